/* lw_integrator.h: an integrator is a table of hooks (lw_integrator), found
 * by the name the model's options give (lw_opt.integrator) when the model
 * is compiled or its options set.  The public lw_initialize and lw_step,
 * and the sensitivity drivers, call through m->integ and never name an
 * integrator.  Shapes: nq coordinates, nc constraint equations, n1 = nq + nc;
 * the step goes from state a (t_n) to state b (t_n+1 = t_n + m->opt.step).
 *
 * The hooks' implementations may live in any folder below this one; the
 * table of each integrator and the registry are here. */
#ifndef LW_INTEGRATOR_H
#define LW_INTEGRATOR_H

#include "lw_internal.h"

#include <string.h>

struct sens; /* the sensitivities' workspace (sens/sens_internal.h) */
struct sens_run; /* one sensitivity run (sens/sens_internal.h) */

typedef struct lw_integrator {
  const char *name; /* as lw_opt.integrator names it */
  /* the state at t = 0 the steps start from, into d: q, qd (nq), qdd (nq),
   * lambda (nc), the degrees of freedom; LW_OK or an error in err */
  int (*initialize)(const lw_model *m, lw_data *d, lw_error *err);
  /* one step of length m->opt.step from the state in d (t_n) to t_n+1, in
   * place; on failure d keeps the state at t_n and err says why */
  int (*step)(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err);
  /* the step from stored state sa to sb linearized for the sensitivities:
   * the step's matrices factored (for ALI3-P the n1 x n1 position matrix
   * AP = [A J^T; J 0] and the projections' [M J^T; J 0]), the rate
   * matrices, the parameters' step columns (n1 x p); fresh: s->d holds sb
   * as step left it.  0, or -1 with s->err filled */
  int (*linearize)(struct sens *s, const double *sa, const double *sb, int fresh);
  /* the transposed solve of the step's position problem the adjoint takes,
   * b (n1) = AP^-T b in place, with the factors linearize left */
  void (*solve_t)(struct sens *s, double *b);
  /* the integrator's own scratch in d (d->integ_work, d->integ_iwork),
   * made by lw_data_new for a model that names it (NULL: none; a step
   * of a workspace made under another integrator makes it then); 0 or -1
   * when out of memory */
  int (*data_init)(const lw_model *m, lw_data *d);
  /* a sensitivity run of the integrator's own (its forward and adjoint
   * drivers) in place of the ALI3-P drivers, which then use neither
   * linearize nor solve_t (NULL: those drivers) */
  int (*sens_run)(struct sens_run *r);
} lw_integrator;

/* ALI3-P: the augmented-Lagrangian index-3 position iteration with the
 * trapezoidal rule and mass-weighted velocity and acceleration projections */
extern const lw_integrator lw_integ_ali3p;
/* the variational integrator: the midpoint discrete Lagrangian with the
 * constraints at the new positions, in position-momentum form
 * (integ/vi_step.c) */
extern const lw_integrator lw_integ_variational;

/* every integrator, the default first (lw_integrators.c) */
extern const lw_integrator *const lw_integrators[];
extern const int lw_nintegrators;

/* the integrator called name, or NULL */
static inline const lw_integrator *lw_integrator_find(const char *name)
{
  for (int i = 0; i < lw_nintegrators; i++)
    if (!strcmp(lw_integrators[i]->name, name))
      return lw_integrators[i];
  return NULL;
}

/* the ALI3-P step (integ/ali3p_step.c) */
int lw_ali3p_step(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err);
/* the variational step and its scratch (integ/vi_step.c) */
int lw_vi_step(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err);
int lw_vi_data_init(const lw_model *m, lw_data *d);
int lw_vi_initialize(const lw_model *m, lw_data *d, lw_error *err);

#endif
