/* lw_integrators.c: the integrators' tables and the registry the model's
 * options name them from. */
#include "integ/lw_integrator.h"
#include "sens/sens_internal.h"

const lw_integrator lw_integ_ali3p = {
  .name = "ali3p",
  .initialize = lw_init_consistent,
  .step = lw_ali3p_step,
  .linearize = sens_step_linearize,
  .solve_t = sens_ap_solve_t,
};

const lw_integrator *const lw_integrators[] = {&lw_integ_ali3p};
const int lw_nintegrators = (int)(sizeof lw_integrators / sizeof lw_integrators[0]);
