/* sens_steps.c: the lengths of the steps the sensitivities differentiate.
 * In the step mode every step is m->opt.step.  In the tolerance mode the
 * lengths are those the trapezoidal rule (order 2) chooses at the model's
 * rtol and atol (dyn/lw_sim_tol.c), found by a run before, and then held
 * fixed: the derivatives are those of the discrete map with that sequence
 * of steps, as is usual for adaptive integrators (the step-size control is
 * not differentiated; a perturbed run of finite differences takes the same
 * sequence). */
#include "sens/sens_internal.h"
#include "dyn/lw_sim_tol.h"

#include <math.h>
#include <stdlib.h>

const lw_model *sens_step_set(sens_run *r, long k)
{
  sens *s = r->s;
  if (!s->hs)
    return r->m;
  double h = s->hs[k - 1];
  lw_tol_step_opt(r->m, h, &r->mh.opt);
  /* the model's own penalty: the steps are no longer than `step`, at which
   * lw_initialize accepted it, and a penalty following the masses would
   * change with a parameter in the perturbed runs of central differences
   * (joint friction reads the multipliers lambda + alpha Phi) */
  r->mh.opt.alpha = r->m->opt.alpha;
  s->h = h;
  s->c2 = 2.0 / h;
  s->c4 = 4.0 / (h * h);
  s->sP = s->c4 * s->sM;
  return &r->mh;
}

void sens_step_resume(sens *s, long k)
{
  if (k >= 1)
    s->d->h = sens_step_h(s, k);
}

int sens_steps_start(sens_run *r, const double *given, long n, double **hs)
{
  sens *s = r->s;
  *hs = NULL;
  if (!given) {
    int st = lw_tol_step_lengths(r->m, r->m->opt.t_end, hs, &n, r->err);
    if (st)
      return st;
    given = *hs;
  }
  s->hs = given;
  s->N = n;
  /* the initial state is found with the options the run's starts with */
  r->mh = *r->m;
  lw_tol_step_opt(r->m, fmin(r->m->opt.step, 1e-3), &r->mh.opt);
  r->mh.opt.alpha = r->m->opt.alpha;
  return LW_OK;
}
