/* lw_hess.h: what compile/lw_hess.c offers the rest of the core (private to src/core). */
#ifndef LW_COMPILE_LW_HESS_H
#define LW_COMPILE_LW_HESS_H

#include "lw_internal.h"

/* compile/lw_hess.c: the DOT rows' Hessians and m->lin_coupled (compile
 * time); -1: no memory */
int lw_lin_prepare(lw_model *m);
/* the nd x w matrix of a vexpr over the blocks blk (row-major, w = nblk nqb) */
void lw_vexpr_matrix(const lw_model *m, const lw_vexpr *e, int nblk, const int *blk, double *A);

#endif
