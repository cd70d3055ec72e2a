/* lw_init.h: what dyn/lw_init.c offers the rest of the core (private to src/core). */
#ifndef LW_DYN_LW_INIT_H
#define LW_DYN_LW_INIT_H

#include "lw_internal.h"

/* the consistent initial state (assembly, rank, velocity,
 * acceleration): the initialization of the integrators that start from it */
int lw_init_consistent(const lw_model *m, lw_data *d, lw_error *err);
void lw_outputs_some(const lw_model *m, lw_data *d, double *out, const char *use);
/* joint j's origin and axis at the data's state (g: 6) */
void lw_joint_geometry(const lw_model *m, const lw_data *d, int j, double *g);
/* accelerations and multipliers at the data's q, qd and time t
 * (d->jac evaluated at q) */
int lw_accelerations(const lw_model *m, lw_data *d, double t, lw_error *err);

#endif
