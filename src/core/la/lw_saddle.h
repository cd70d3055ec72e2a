/* lw_saddle.h: the sparse saddle-point solver of the variational step on
 * sparse models (la/lw_saddle.c). */
#ifndef LW_LA_LW_SADDLE_H
#define LW_LA_LW_SADDLE_H

#include "lw_internal.h"

/* K = [A  Gl^T; Gr  0] ((nq + nc) square): A in the model's symmetric
 * pattern (its upper triangle's values, as d->vals holds them), Gl and Gr
 * two sets of the rows' gradients (d->jac's layout, nc x wrow) */
typedef struct lw_saddle lw_saddle;

/* the pattern of K and its analysis (fill-reducing order), once per
 * model; NULL when memory runs out */
lw_saddle *lw_saddle_new(const lw_model *m);
void lw_saddle_free(lw_saddle *s);
/* K's LU factorization at vals, gl, gr: the pivot order of the first one
 * reused (no allocation) while it stays well conditioned; 0, or -1 when K
 * is singular */
int lw_saddle_factor(lw_saddle *s, const lw_model *m, const double *vals, const double *gl, const double *gr);
/* the same, for a matrix that repeats (the variational step's rates at
 * constant gradients): factorized into a second band kept beside the
 * other's, and not again while vals, gl and gr are those it was made of
 * (to the bit); the solves that follow use it.  Without the band, as
 * lw_saddle_factor. */
int lw_saddle_factor_kept(lw_saddle *s, const lw_model *m, const double *vals, const double *gl, const double *gr);
/* the kept factorization for the solves, without a comparison of the
 * values: for a matrix known to be the one it was made of (M + rho G^T G
 * of a model whose rows are all affine); -1 when none is kept for m */
int lw_saddle_use_kept(lw_saddle *s, const lw_model *m);
/* the last factorization made by lw_saddle_factor for the solves again
 * (after others used the kept one): -1 when it is not a band's */
int lw_saddle_use_last(lw_saddle *s);
/* whether the solves use the kept factorization (the last one made by
 * lw_saddle_factor is then still there) */
int lw_saddle_kept_in_use(const lw_saddle *s);
/* whether the factorizations are those of the band (else KLU's) */
int lw_saddle_banded(const lw_saddle *s);
/* the solution of A x + Gl^T y = b, Gr x = e: x (nq) holds b on entry,
 * y (nc) holds e */
void lw_saddle_solve(lw_saddle *s, const lw_model *m, double *x, double *y);

#endif
