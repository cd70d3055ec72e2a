/* lw_sim_tol.h: the run of the tolerance mode (dyn/lw_sim_tol.c), private to src/core. */
#ifndef LW_DYN_LW_SIM_TOL_H
#define LW_DYN_LW_SIM_TOL_H

#include "lw_internal.h"

/* lw_simulate_ex for a model in the tolerance mode (m->opt.mode): steps
 * sized to m->opt.rtol and atol, the outputs at every h_out and at t_end
 * interpolated between the steps.  The same contract as lw_simulate_ex. */
int lw_sim_tolerance(const lw_model *m, double t_end, double h_out, const lw_sim_output *out, lw_sim_result *res,
                     lw_progress_fn progress, void *user);

/* the options of one step of length h in the tolerance mode: o's step,
 * penalty and Newton tolerances (the others left as they are) */
void lw_tol_step_opt(const lw_model *m, double h, lw_opt *o);

/* the lengths of the steps of m's tolerance mode from its initial state
 * to t_end at order 2 (the trapezoidal rule), none longer than the output
 * interval m->opt.step, into *hs (n of them, malloc'd; they add up to
 * t_end): the sequence the sensitivities hold fixed (the cap keeps the
 * perturbed runs of finite differences, which take the same steps, and
 * the time functions resolved where the nominal run is at rest).
 * LW_OK, or the run's status with err set */
int lw_tol_step_lengths(const lw_model *m, double t_end, double **hs, long *n, lw_error *err);

#endif
