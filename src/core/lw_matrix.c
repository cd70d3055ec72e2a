/* lw_matrix.c: the block-sparse symmetric pattern (upper triangle, CSC),
 * products with M and the constraint Jacobian, and the SPD solver: dense
 * LAPACK Cholesky for small models, CHOLMOD (symbolic analysis once,
 * numeric factorization per call) for large ones. */
#include "lw_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info);

/* position of block row bi in block column bj's list (bi <= bj), or -1 */
int lw_pattern_pos(const lw_model *m, int bi, int bj)
{
  for (int k = m->adj_ptr[bj]; k < m->adj_ptr[bj + 1]; k++)
    if (m->adj[k] == bi)
      return k - m->adj_ptr[bj];
  return -1;
}

/* vals += s g g^T, g given on the blocks blk[0..nblk) (2 nqb values) */
void lw_mat_add_outer(const lw_model *m, double *vals, double s, int nblk, const int *blk,
                      const int *pairpos, const double *g)
{
  int nqb = m->nqb;
  for (int x = 0; x < nblk; x++)
    for (int y = 0; y < nblk; y++) {
      int bi = blk[x], bj = blk[y];
      if (bi > bj)
        continue;
      int pos = pairpos[x == y ? (x == 0 ? 0 : 2) : 1];
      const double *gi = g + (size_t)x * nqb, *gj = g + (size_t)y * nqb;
      for (int kc = 0; kc < nqb; kc++) {
        double sg = s * gj[kc];
        if (sg == 0.0)
          continue;
        double *col = vals + m->colptr[bj * nqb + kc] + pos * nqb;
        int kmax = bi == bj ? kc + 1 : nqb;
        for (int kr = 0; kr < kmax; kr++)
          col[kr] += sg * gi[kr];
      }
    }
}

void lw_mat_add_diag(const lw_model *m, double *vals, double s)
{
  for (int c = 0; c < m->nq; c++)
    vals[m->colptr[c + 1] - 1] += s;
}

void lw_jac_mul(const lw_model *m, const lw_data *d, const double *x, double *y)
{
  int nqb = m->nqb, w = 2 * nqb;
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    const double *g = d->jac + (size_t)r * w;
    double s = 0;
    for (int k = 0; k < row->nblk; k++) {
      const double *xb = x + (size_t)row->blk[k] * nqb;
      for (int i = 0; i < nqb; i++)
        s += g[k * nqb + i] * xb[i];
    }
    y[r] = s;
  }
}

void lw_jact_mul(const lw_model *m, const lw_data *d, const double *x, double *y)
{
  int nqb = m->nqb, w = 2 * nqb;
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    const double *g = d->jac + (size_t)r * w;
    for (int k = 0; k < row->nblk; k++) {
      double *yb = y + (size_t)row->blk[k] * nqb;
      for (int i = 0; i < nqb; i++)
        yb[i] += g[k * nqb + i] * x[r];
    }
  }
}

void lw_mass_mul(const lw_model *m, const double *x, double *y)
{
  int nqb = m->nqb;
  for (int b = 0; b < m->nb; b++) {
    const double *M = m->mass_blocks + (size_t)b * nqb * nqb;
    const double *xb = x + (size_t)b * nqb;
    double *yb = y + (size_t)b * nqb;
    for (int i = 0; i < nqb; i++) {
      double s = 0;
      for (int j = 0; j < nqb; j++)
        s += M[j * nqb + i] * xb[j];
      yb[i] = s;
    }
  }
}

/* ---- SPD solver ------------------------------------------------------- */
int lw_spd_init(lw_spd *s, const lw_model *m)
{
  memset(s, 0, sizeof *s);
  s->n = m->nq;
  s->dense = m->dense;
  if (s->dense) {
    s->a = calloc((size_t)s->n * s->n, sizeof(double));
    return s->a ? 0 : -1;
  }
  cholmod_start(&s->cc);
  s->started = 1;
  s->cc.supernodal = CHOLMOD_SIMPLICIAL;
  s->cc.final_ll = 1;
  s->cc.print = 0;
  s->cc.error_handler = NULL;
  /* the matrix struct points at the model's pattern and the data's values */
  s->A.nrow = s->A.ncol = (size_t)s->n;
  s->A.nzmax = (size_t)m->nnz;
  s->A.p = m->colptr;
  s->A.i = m->rowind;
  s->A.x = m->mass_csc; /* replaced per factorization */
  s->A.stype = 1;
  s->A.itype = CHOLMOD_INT;
  s->A.xtype = CHOLMOD_REAL;
  s->A.dtype = CHOLMOD_DOUBLE;
  s->A.sorted = 1;
  s->A.packed = 1;
  s->L = cholmod_analyze(&s->A, &s->cc);
  if (!s->L)
    return -1;
  /* one factorization so that every workspace exists before the first step */
  if (!cholmod_factorize(&s->A, s->L, &s->cc))
    return -1;
  s->B.nrow = (size_t)s->n;
  s->B.ncol = 1;
  s->B.nzmax = (size_t)s->n;
  s->B.d = (size_t)s->n;
  s->B.xtype = CHOLMOD_REAL;
  s->B.dtype = CHOLMOD_DOUBLE;
  s->X = cholmod_zeros((size_t)s->n, 1, CHOLMOD_REAL, &s->cc);
  s->B.x = s->X->x;
  double *tmp = calloc((size_t)s->n, sizeof(double));
  s->B.x = tmp;
  cholmod_solve2(CHOLMOD_A, s->L, &s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->cc);
  free(tmp);
  return s->cc.status < 0 ? -1 : 0;
}

void lw_spd_free(lw_spd *s)
{
  free(s->a);
  if (s->started) {
    cholmod_free_factor(&s->L, &s->cc);
    cholmod_free_dense(&s->X, &s->cc);
    cholmod_free_dense(&s->Y, &s->cc);
    cholmod_free_dense(&s->E, &s->cc);
    cholmod_finish(&s->cc);
  }
  memset(s, 0, sizeof *s);
}

int lw_spd_factor(lw_spd *s, const lw_model *m, const double *vals)
{
  int n = s->n;
  if (s->dense) {
    double *a = s->a;
    for (int c = 0; c < n; c++)
      for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++)
        a[(size_t)c * n + m->rowind[k]] = vals[k];
    int info = 0;
    dpotrf_("U", &n, a, &n, &info);
    return info == 0 ? 0 : -1;
  }
  s->A.x = (void *)vals;
  int ok = cholmod_factorize(&s->A, s->L, &s->cc);
  if (!ok || s->cc.status != CHOLMOD_OK)
    return -1;
  return 0;
}

void lw_spd_solve(lw_spd *s, double *x)
{
  int n = s->n;
  if (s->dense) {
    int one = 1, info = 0;
    dpotrs_("U", &n, &one, s->a, &n, x, &n, &info);
    return;
  }
  s->B.x = x;
  cholmod_solve2(CHOLMOD_A, s->L, &s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->cc);
  memcpy(x, s->X->x, sizeof(double) * (size_t)n);
}
