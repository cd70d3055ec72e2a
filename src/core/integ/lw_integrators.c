/* lw_integrators.c: the integrators' tables and the registry the model's
 * options name them from. */
#include "integ/lw_integrator.h"
#include "sens/sens_internal.h"
#include "dyn/lw_init.h"

const lw_integrator lw_integ_ali3p = {
  .name = "ali3p",
  .initialize = lw_init_consistent,
  .step = lw_ali3p_step,
  .linearize = sens_step_linearize,
  .solve_t = sens_ap_solve_t,
};

const lw_integrator lw_integ_variational = {
  .name = "variational",
  .initialize = lw_vi_initialize,
  .step = lw_vi_step,
  .data_init = lw_vi_data_init,
  .sens_run = sens_vi_run,
};

const lw_integrator *const lw_integrators[] = {&lw_integ_ali3p, &lw_integ_variational};
const int lw_nintegrators = (int)(sizeof lw_integrators / sizeof lw_integrators[0]);
