/* lw_sim_tol.h: the run of the tolerance mode (dyn/lw_sim_tol.c), private to src/core. */
#ifndef LW_DYN_LW_SIM_TOL_H
#define LW_DYN_LW_SIM_TOL_H

#include "lw_internal.h"

/* lw_simulate_ex for a model in the tolerance mode (m->opt.mode): steps
 * sized to m->opt.rtol and atol, the outputs at every h_out and at t_end
 * interpolated between the steps.  The same contract as lw_simulate_ex. */
int lw_sim_tolerance(const lw_model *m, double t_end, double h_out, const lw_sim_output *out, lw_sim_result *res,
                     lw_progress_fn progress, void *user);

#endif
