/* lw_param_bind.c: parameter bindings with a factor and a product.
 *
 * A parameter's target k holds factors[k] * value * (value of parameter
 * times[k], when there is one).  A sign or a scale lets one parameter place
 * two mirrored points (+a and -a); a product lets a length and a ratio place
 * a point at their product.  Compiled constants stay polynomial (of degree
 * one in each parameter) in the values, so the tangent models, taken from
 * the compile where a binding is not plain (lin/lw_tangent.c), are exact up
 * to round-off. */
#include "linkwright.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const lw_param_desc *param_named(const lw_desc *d, const char *name)
{
  for (int i = 0; name && i < d->nparams; i++)
    if (d->params[i].name && !strcmp(d->params[i].name, name))
      return &d->params[i];
  return NULL;
}

static double bind_factor(const lw_param_desc *p, int k)
{
  return p->factors ? p->factors[k] : 1.0;
}

static const char *bind_times(const lw_param_desc *p, int k)
{
  return p->times ? p->times[k] : NULL;
}

double lw_param_bind_value(const lw_desc *d, const lw_param_desc *p, int k)
{
  double v = bind_factor(p, k) * p->value;
  const char *t = bind_times(p, k);
  if (!t)
    return v;
  const lw_param_desc *o = param_named(d, t);
  return o ? v * o->value : NAN;
}

void lw_desc_apply_params(lw_desc *d)
{
  for (int i = 0; i < d->nparams; i++)
    for (int k = 0; k < d->params[i].ntargets; k++) {
      double *f = lw_desc_field(d, d->params[i].targets[k]);
      if (f)
        *f = lw_param_bind_value(d, &d->params[i], k);
    }
}

int lw_param_is_plain(const lw_desc *d, int j)
{
  const lw_param_desc *p = &d->params[j];
  for (int k = 0; k < p->ntargets; k++)
    if (bind_factor(p, k) != 1.0 || bind_times(p, k))
      return 0;
  for (int i = 0; i < d->nparams; i++)
    for (int k = 0; k < d->params[i].ntargets; k++) {
      const char *t = bind_times(&d->params[i], k);
      if (t && p->name && !strcmp(t, p->name))
        return 0;
    }
  return 1;
}

double lw_param_value_for_field(const lw_desc *d, int i, int k, double v)
{
  const lw_param_desc *p = &d->params[i];
  double s = bind_factor(p, k);
  const char *t = bind_times(p, k);
  if (t) {
    const lw_param_desc *o = param_named(d, t);
    s = o ? s * o->value : 0.0;
  }
  if (s == 1.0)
    return v;
  return s != 0.0 ? v / s : NAN;
}

void lw_param_set_binding(lw_param_desc *p, int k, double factor, const char *times)
{
  if (k < 0 || k >= p->ntargets)
    return;
  if (!p->factors && factor != 1.0) {
    p->factors = malloc(sizeof(double) * (size_t)p->ntargets);
    if (!p->factors)
      abort();
    for (int i = 0; i < p->ntargets; i++)
      p->factors[i] = 1.0;
  }
  if (p->factors)
    p->factors[k] = factor;
  if (!p->times && times) {
    p->times = calloc((size_t)p->ntargets, sizeof(char *));
    if (!p->times)
      abort();
  }
  if (p->times) {
    free(p->times[k]);
    p->times[k] = times ? strdup(times) : NULL;
    if (times && !p->times[k])
      abort();
  }
}
