/* lw_matrix.h: what la/lw_matrix.c offers the rest of the core (private to src/core). */
#ifndef LW_LA_LW_MATRIX_H
#define LW_LA_LW_MATRIX_H

#include "lw_internal.h"

int lw_pattern_pos(const lw_model *m, int bi, int bj);
void lw_mat_add_outer(const lw_model *m, double *vals, double s, int nblk, const int *blk,
                      const int *pairpos, const double *g);
/* vals += s g g^T for row r's gradient g */
void lw_mat_add_row_outer(const lw_model *m, double *vals, double s, int r, const double *g);
/* vals += s K on block b's diagonal block (K: its n x n, column-major,
 * symmetric; row: where the block's rows start in its columns, pairpos[0]) */
void lw_mat_add_block(const lw_model *m, double *vals, double s, int b, int row, const double *K);
void lw_mat_add_diag(const lw_model *m, double *vals, double s);
void lw_jac_mul(const lw_model *m, const lw_data *d, const double *x, double *y);   /* y = J x */
void lw_jact_mul(const lw_model *m, const lw_data *d, const double *x, double *y);  /* y += J^T x */
void lw_mass_mul(const lw_model *m, const double *x, double *y);                    /* y = M x */
void lw_minv_mul(const lw_model *m, const double *x, double *y); /* y = M^-1 x */

int lw_spd_init(lw_spd *s, const lw_model *m);
void lw_spd_free(lw_spd *s);
/* factor vals (pattern of m); returns 0 or -1 if not positive definite */
int lw_spd_factor(lw_spd *s, const lw_model *m, const double *vals);
void lw_spd_solve(lw_spd *s, double *x); /* in place */
/* dense models: S = J M^-1 J^T (Cholesky-factorized in d->S) and
 * W = M^-1 J^T (d->W, by rows and blocks like d->jac) at the Jacobian in
 * d->jac; -1 when S is singular (dependent constraints) */
int lw_schur_factor(const lw_model *m, lw_data *d);
/* dense LU with partial pivoting in place (column-major); -1 when a pivot
 * falls below 1e-14 of the largest.  Solves A x = b (trans = 0) or
 * A^T x = b for nrhs columns of B. */
int lw_lu_dense(double *A, int n, int *ipiv);
int lw_inv_small(const double *A, int n, double *inv);
void lw_lu_dense_solve(const double *A, int n, const int *ipiv, int trans, double *B, int nrhs);
/* dense Cholesky A = L L^T of the lower triangle (column-major, in place,
 * 1/L_jj stored on the diagonal); -1 when a pivot falls to rel_pivot times
 * its diagonal entry or below */
int lw_chol_dense(double *a, int n, double rel_pivot);
void lw_chol_dense_solve(const double *a, int n, double *x);
/* the same for a semi-definite matrix, dropping up to maxdrop dependent
 * rows (their unknowns 0); the number dropped, or -1 */
int lw_chol_dense_drop(double *a, int n, double rel_pivot, int maxdrop);
/* the same for nrhs sides stored by rows: Y[i * nrhs + c] */
void lw_chol_dense_solve_multi(const double *a, int n, double *Y, int nrhs);
/* the largest |x_i| of x (n), infinite when one is NaN */
double lw_max_abs(const double *x, int n);

#endif
