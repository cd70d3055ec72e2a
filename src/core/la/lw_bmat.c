/* lw_bmat.c: products with the step's structured matrices: lw_bmat
 * (block diagonal plus off-diagonal entries) and row matrices stored by
 * rows and blocks like the constraint Jacobian. */
#include "lw_internal.h"
#include "la/lw_rowvec.h"
#include "kind/lw_kind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline void bmat_mul_n(const lw_model *m, const lw_bmat *B, double alpha, const double *x, double *y,
                              int trans, const int nqb)
{
  for (int b = 0; b < m->nb; b++) {
    const double *Bb = B->blk + (size_t)b * nqb * nqb, *xb = x + (size_t)b * nqb;
    double *yb = y + (size_t)b * nqb;
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
  else
    bmat_mul_n(m, B, alpha, x, y, 0, m->nqb);
}

void lw_bmat_mul_t(const lw_model *m, const lw_bmat *B, double alpha, const double *x, double *y)
{
  if (m->nqb == 4)
    bmat_mul_n(m, B, alpha, x, y, 1, 4);
  else
    bmat_mul_n(m, B, alpha, x, y, 1, m->nqb);
}

/* the row products written for a constant nqb, so that the planar body's
 * (4) unroll */
static inline void rowmat_mul_n(const lw_model *m, const double *restrict R, const double *restrict x,
                                double *restrict y, const int nqb)
{
  for (int r = 0; r < m->nc; r++) {
    const double *g = R + (size_t)r * 2 * nqb, *x0 = x + m->rq0[2 * r];
    double s = 0;
    for (int i = 0; i < nqb; i++)
      s += g[i] * x0[i];
    if (m->rq0[2 * r + 1] >= 0) {
      const double *x1 = x + m->rq0[2 * r + 1];
      for (int i = 0; i < nqb; i++)
        s += g[nqb + i] * x1[i];
    }
    y[r] += s;
  }
}

static inline void rowmat_mul_t_n(const lw_model *m, const double *restrict R, double alpha,
                                  const double *restrict y, double *restrict x, const int nqb)
{
  for (int r = 0; r < m->nc; r++) {
    const double *g = R + (size_t)r * 2 * nqb;
    double a = alpha * y[r], *x0 = x + m->rq0[2 * r];
    for (int i = 0; i < nqb; i++)
      x0[i] += g[i] * a;
    if (m->rq0[2 * r + 1] >= 0) {
      double *x1 = x + m->rq0[2 * r + 1];
      for (int i = 0; i < nqb; i++)
        x1[i] += g[nqb + i] * a;
    }
  }
}

void lw_rowmat_mul(const lw_model *m, const double *R, const double *x, double *y)
{
  if (m->nqb == 4)
    rowmat_mul_n(m, R, x, y, 4);
  else
    rowmat_mul_n(m, R, x, y, m->nqb);
}

void lw_rowmat_mul_t(const lw_model *m, const double *R, double alpha, const double *y, double *x)
{
  if (m->nqb == 4)
    rowmat_mul_t_n(m, R, alpha, y, x, 4);
  else
    rowmat_mul_t_n(m, R, alpha, y, x, m->nqb);
}
