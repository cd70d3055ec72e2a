/* lw_vexpr.h: what compile/lw_vexpr.c offers the rest of the core (private to src/core). */
#ifndef LW_COMPILE_LW_VEXPR_H
#define LW_COMPILE_LW_VEXPR_H

#include "lw_internal.h"

void lw_vexpr_eval(const lw_model *m, const lw_vexpr *e, const double *q, double *v);
void lw_vexpr_eval_lin(const lw_model *m, const lw_vexpr *e, const double *x, double *v);
/* add s * a^T dV/dq into the row gradient g (blocks blk[0..nblk)) */
void lw_vexpr_grad(const lw_model *m, const lw_vexpr *e, const double *a, double s, int nblk,
                   const int *blk, double *g);

#endif
