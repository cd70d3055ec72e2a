/* lw_step.h: what dyn/lw_step.c offers the rest of the core (private to src/core). */
#ifndef LW_DYN_LW_STEP_H
#define LW_DYN_LW_STEP_H

#include "lw_internal.h"

/* W alone, from d->jac (S kept from an earlier factorization) */
void lw_schur_w(const lw_model *m, lw_data *d);
/* with those factors: y = S^-1 y, then x -= W y */
void lw_schur_correct(const lw_model *m, const lw_data *d, double *x, double *y);
/* x -= W y */
void lw_schur_update(const lw_model *m, const lw_data *d, double *x, const double *y);
void lw_coords_update(const lw_model *m, lw_data *d);

#endif
