/* lw_public_eval.c: evaluations of a compiled model for programs that use
 * only the public interface (the IDAS reference in src/ref): objective
 * terms at an output row, and the joint coordinates that angles are
 * continued from.  Values only, no derivatives. */
#include "lw_internal.h"

#include <math.h>
#include <string.h>

int lw_model_nobjectives(const lw_model *m)
{
  return m->nobj;
}

double lw_objective_terms(const lw_model *m, int objective, lw_term_kind kind, const double *outputs)
{
  if (objective < 0 || objective >= m->nobj)
    return NAN;
  const lw_objective *ob = &m->objs[objective];
  double value = 0;
  for (int k = ob->first; k < ob->first + ob->n; k++) {
    const lw_term *t = &m->terms[k];
    if (t->kind != kind)
      continue;
    for (int i = 0; i < t->width; i++) {
      if (t->comp >= 0 && i != t->comp)
        continue;
      double e = outputs[t->col + i] - t->target[i];
      if (t->form == LW_TERM_ABOVE)
        e = fmax(e, 0.0);
      else if (t->form == LW_TERM_BELOW)
        e = fmin(e, 0.0);
      value += t->form != LW_TERM_VALUE ? t->weight * e * e : t->weight * e;
    }
  }
  return value;
}

int lw_model_ncoords(const lw_model *m)
{
  return m->ncoords;
}

void lw_data_get_coords(const lw_model *m, const lw_data *d, double *coords)
{
  if (m->ncoords > 0)
    memcpy(coords, d->coord_prev, sizeof(double) * (size_t)m->ncoords);
}

void lw_data_set_coords(const lw_model *m, lw_data *d, const double *coords)
{
  if (m->ncoords > 0)
    memcpy(d->coord_prev, coords, sizeof(double) * (size_t)m->ncoords);
}
