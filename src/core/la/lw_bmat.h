/* lw_bmat.h: what la/lw_bmat.c offers the rest of the core (private to src/core). */
#ifndef LW_LA_LW_BMAT_H
#define LW_LA_LW_BMAT_H

#include "lw_internal.h"

/* y += alpha B x, y += alpha B^T x */
void lw_bmat_mul(const lw_model *m, const lw_bmat *B, double alpha, const double *x, double *y);
void lw_bmat_mul_t(const lw_model *m, const lw_bmat *B, double alpha, const double *x, double *y);
/* y (nc) += R x, x (nq) += alpha R^T y for R by rows and blocks like d->jac */
void lw_rowmat_mul(const lw_model *m, const double *R, const double *x, double *y);
void lw_rowmat_mul_t(const lw_model *m, const double *R, double alpha, const double *y, double *x);
/* the same for a matrix G of the rows' gradients (d->jac or a set like
 * it, their zeros included: the affine rows' known zeros are skipped) */
void lw_gradmat_mul(const lw_model *m, const double *G, const double *x, double *y);
void lw_gradmat_mul_t(const lw_model *m, const double *G, double alpha, const double *y, double *x);

#endif
