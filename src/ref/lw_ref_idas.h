/* lw_ref_idas.h: an independent reference integrator for linkwright models.
 *
 * The equations of motion in natural coordinates are integrated as the
 * index-1 DAE (acceleration-level constraints)
 *     q' - v = 0
 *     M v' + Phi_q^T lam - Q(q, v, t) = 0
 *     Phi_q v' + gamma(q, v, t) = 0
 * with y = [q; v; lam] (lam algebraic) by SUNDIALS IDAS (variable order BDF,
 * dense direct linear solver, IDAS's difference-quotient Jacobian).  Only
 * the model evaluations of the public interface (lw_eval_dense,
 * lw_eval_mass_dense: M, Q, Phi, Phi_q, gamma) are shared with the
 * library's own integrator, none of its derivative code; the consistent
 * initial state comes from lw_initialize.
 *
 * Being index 1, the formulation does not enforce Phi = 0 and Phi_q v + Phi_t
 * = 0 themselves: they drift at the level of the integration error, which is
 * what max_constraint_residual reports.  Use tight tolerances for a reference.
 */
#ifndef LW_REF_IDAS_H
#define LW_REF_IDAS_H

#include "linkwright.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  long steps;                     /* IDAS internal steps */
  long nfevals;                   /* residual evaluations, including those of the DQ Jacobian */
  double wall_time_s;             /* integration only (CLOCK_MONOTONIC) */
  double max_constraint_residual; /* max |Phi| over the output times */
} lw_ref_stats;

/* Integrate m from its initialized state at t = 0 to each time in
 * times[0..ntimes-1] (increasing, >= 0), with relative tolerance rtol and
 * absolute tolerance atol (on q and v; the multipliers are left out of the
 * error test); write lw_outputs at each time into out (ntimes x
 * lw_model_output_columns(m), row-major; may be NULL).  stats may be NULL.
 * Returns 0 on success, nonzero on failure with a message in msg. */
int lw_ref_idas_run(const lw_model *m, double rtol, double atol, const double *times, int ntimes,
                    double *out, lw_ref_stats *stats, char *msg, int msglen);

#ifdef __cplusplus
}
#endif
#endif
