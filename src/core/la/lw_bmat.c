/* lw_bmat.c: products with the step's structured matrices: lw_bmat
 * (block diagonal plus off-diagonal entries) and row matrices stored by
 * rows and blocks like the constraint Jacobian. */
#include "la/lw_bmat.h"
#include "lw_internal.h"
#include "la/lw_rowvec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* written for a block size N (0: mixed sizes, from the model) */
static inline void bmat_mul_n(const lw_model *m, const lw_bmat *B, double alpha, const double *x, double *y,
                              int trans, const int N)
{
  for (int b = 0; b < m->nb; b++) {
    const int nqb = lw_bn(m, b, N);
    const double *Bb = B->blk + lw_mboff(m, b, N), *xb = x + lw_boff(m, b, N);
    double *yb = y + lw_boff(m, b, N);
    if (!trans) {
      for (int j = 0; j < nqb; j++) {
        double a = alpha * xb[j];
        for (int i = 0; i < nqb; i++)
          yb[i] += Bb[j * nqb + i] * a;
      }
    } else {
      for (int j = 0; j < nqb; j++) {
        double s = 0;
        for (int i = 0; i < nqb; i++)
          s += Bb[j * nqb + i] * xb[i];
        yb[j] += alpha * s;
      }
    }
  }
  if (!B->off)
    return;
  for (int j = 0; j < m->nq; j++) {
    const double *col = B->off + (size_t)j * m->nq;
    if (!trans) {
      double a = alpha * x[j];
      for (int i = 0; i < m->nq; i++)
        y[i] += col[i] * a;
    } else {
      double s = 0;
      for (int i = 0; i < m->nq; i++)
        s += col[i] * x[i];
      y[j] += alpha * s;
    }
  }
}

void lw_bmat_mul(const lw_model *m, const lw_bmat *B, double alpha, const double *x, double *y)
{
  if (m->nqb == 4)
    bmat_mul_n(m, B, alpha, x, y, 0, 4);
  else if (m->nqb)
    bmat_mul_n(m, B, alpha, x, y, 0, m->nqb);
  else
    bmat_mul_n(m, B, alpha, x, y, 0, 0);
}

void lw_bmat_mul_t(const lw_model *m, const lw_bmat *B, double alpha, const double *x, double *y)
{
  if (m->nqb == 4)
    bmat_mul_n(m, B, alpha, x, y, 1, 4);
  else if (m->nqb)
    bmat_mul_n(m, B, alpha, x, y, 1, m->nqb);
  else
    bmat_mul_n(m, B, alpha, x, y, 1, 0);
}

/* the row products written for a block size N, so that the planar body's
 * (4) unroll; N = 0: mixed sizes (a row's second block after its first,
 * rows wrow apart) */
LW_KERNEL void rowmat_mul_n(const lw_model *m, const double *restrict R, const double *restrict x,
                                double *restrict y, const int N, const int sparse)
{
  const int w = N ? 2 * N : m->wrow;
  for (int r = 0; r < m->nc; r++) {
    if (sparse && m->row_gconst[r]) {
      /* the same sum over the entries not known to be zero */
      const double *g = R + (size_t)r * w;
      double s = 0;
      for (int e = m->gz_ptr[r]; e < m->gz_ptr[r + 1]; e++)
        s += g[m->gz_loc[e]] * x[m->gz_q[e]];
      y[r] += s;
      continue;
    }
    const int *blk = m->rows[r].blk;
    const int n0 = lw_bn(m, blk[0], N);
    const double *g = R + (size_t)r * w, *x0 = x + m->rq0[2 * r];
    double s = 0;
    for (int i = 0; i < n0; i++)
      s += g[i] * x0[i];
    if (m->rq0[2 * r + 1] >= 0) {
      const double *x1 = x + m->rq0[2 * r + 1];
      const int n1 = lw_bn(m, blk[1], N);
      for (int i = 0; i < n1; i++)
        s += g[n0 + i] * x1[i];
    }
    y[r] += s;
  }
}

LW_KERNEL void rowmat_mul_t_n(const lw_model *m, const double *restrict R, double alpha,
                                  const double *restrict y, double *restrict x, const int N, const int sparse)
{
  const int w = N ? 2 * N : m->wrow;
  for (int r = 0; r < m->nc; r++) {
    if (sparse && m->row_gconst[r]) {
      const double *g = R + (size_t)r * w;
      double a = alpha * y[r];
      for (int e = m->gz_ptr[r]; e < m->gz_ptr[r + 1]; e++)
        x[m->gz_q[e]] += g[m->gz_loc[e]] * a;
      continue;
    }
    const int *blk = m->rows[r].blk;
    const int n0 = lw_bn(m, blk[0], N);
    const double *g = R + (size_t)r * w;
    double a = alpha * y[r], *x0 = x + m->rq0[2 * r];
    for (int i = 0; i < n0; i++)
      x0[i] += g[i] * a;
    if (m->rq0[2 * r + 1] >= 0) {
      double *x1 = x + m->rq0[2 * r + 1];
      const int n1 = lw_bn(m, blk[1], N);
      for (int i = 0; i < n1; i++)
        x1[i] += g[n0 + i] * a;
    }
  }
}

/* the products for each block size N, dense or (sparse) with the affine
 * rows' known zeros left out */
static void rowmat_mul(const lw_model *m, const double *R, const double *x, double *y, const int sparse)
{
  if (m->nqb == 4)
    rowmat_mul_n(m, R, x, y, 4, sparse);
  else if (m->nqb == 8) /* planar beam elements */
    rowmat_mul_n(m, R, x, y, 8, sparse);
  else if (m->nqb == 12) /* spatial bodies or beam elements */
    rowmat_mul_n(m, R, x, y, 12, sparse);
  else if (m->nqb)
    rowmat_mul_n(m, R, x, y, m->nqb, sparse);
  else
    rowmat_mul_n(m, R, x, y, 0, sparse);
}

static void rowmat_mul_t(const lw_model *m, const double *R, double alpha, const double *y, double *x,
                         const int sparse)
{
  if (m->nqb == 4)
    rowmat_mul_t_n(m, R, alpha, y, x, 4, sparse);
  else if (m->nqb == 8)
    rowmat_mul_t_n(m, R, alpha, y, x, 8, sparse);
  else if (m->nqb == 12)
    rowmat_mul_t_n(m, R, alpha, y, x, 12, sparse);
  else if (m->nqb)
    rowmat_mul_t_n(m, R, alpha, y, x, m->nqb, sparse);
  else
    rowmat_mul_t_n(m, R, alpha, y, x, 0, sparse);
}

void lw_rowmat_mul(const lw_model *m, const double *R, const double *x, double *y) { rowmat_mul(m, R, x, y, 0); }

void lw_rowmat_mul_t(const lw_model *m, const double *R, double alpha, const double *y, double *x)
{
  rowmat_mul_t(m, R, alpha, y, x, 0);
}

void lw_gradmat_mul(const lw_model *m, const double *G, const double *x, double *y)
{
  rowmat_mul(m, G, x, y, m->gz_ptr != NULL);
}

void lw_gradmat_mul_t(const lw_model *m, const double *G, double alpha, const double *y, double *x)
{
  rowmat_mul_t(m, G, alpha, y, x, m->gz_ptr != NULL);
}
