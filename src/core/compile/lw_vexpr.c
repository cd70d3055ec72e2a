/* lw_vexpr.c: vectors linear in the natural coordinates. */
#include "compile/lw_vexpr.h"
#include "lw_internal.h"
#include "la/lw_rowvec.h"

#include <string.h>

/* V = c + sum_t B_t(q) with B linear; x is either q (with constant) or a
 * rate (without): lin = 1 drops the constant.  Written for a block size N
 * in nd dimensions: the rigid bodies' (4, 2) and (12, 3) as constants hold
 * no point masses; any other (N = 0: mixed sizes) tells them apart.  A
 * beam element's block [r_i, r_i', r_j, r_j'] (4 nd) weighs its four
 * vectors alike: in 3-D as a rigid body's r0, u, v, w; in the plane (8) by
 * its own branch; a model of planar beam elements alone (8) has a case of
 * its own, the elements' size a constant. */
LW_KERNEL void eval_n(const lw_model *m, const lw_vexpr *e, const double *x, double *v, int lin, const int N,
                      const int nd)
{
  for (int i = 0; i < nd; i++)
    v[i] = lin ? 0.0 : e->c[i];
  for (int t = 0; t < e->nterm; t++) {
    const double *w = e->w[t];
    const double *qb = x + lw_boff(m, e->body[t], N);
    if (N != 4 && N != 12 && lw_is_point(m, e->body[t])) {
      /* a point: its position alone */
      for (int i = 0; i < nd; i++)
        v[i] += w[0] * qb[i];
    } else if (nd == 2 && N != 4 && lw_bn(m, e->body[t], N) == 8) {
      /* a planar beam element: w0 r_i + w1 r_i' + w2 r_j + w3 r_j' */
      for (int i = 0; i < 2; i++)
        v[i] += w[0] * qb[i] + w[1] * qb[2 + i] + w[2] * qb[4 + i] + w[3] * qb[6 + i];
    } else if (nd == 3) {
      for (int i = 0; i < 3; i++)
        v[i] += w[0] * qb[i] + w[1] * qb[3 + i] + w[2] * qb[6 + i] + w[3] * qb[9 + i];
    } else {
      /* r0 + w1 u + w2 S u, S u = (-u_y, u_x) */
      v[0] += w[0] * qb[0] + w[1] * qb[2] - w[2] * qb[3];
      v[1] += w[0] * qb[1] + w[1] * qb[3] + w[2] * qb[2];
    }
  }
}

static void eval(const lw_model *m, const lw_vexpr *e, const double *x, double *v, int lin)
{
  if (m->nqb == 4)
    eval_n(m, e, x, v, lin, 4, 2);
  else if (m->nqb == 8 && m->nd == 2) /* planar beam elements alone */
    eval_n(m, e, x, v, lin, 8, 2);
  else if (m->nqb == 12)
    eval_n(m, e, x, v, lin, 12, 3);
  else
    eval_n(m, e, x, v, lin, m->nqb, m->nd);
}

void lw_vexpr_eval(const lw_model *m, const lw_vexpr *e, const double *q, double *v)
{
  eval(m, e, q, v, 0);
}

void lw_vexpr_eval_lin(const lw_model *m, const lw_vexpr *e, const double *x, double *v)
{
  eval(m, e, x, v, 1);
}

LW_KERNEL void grad_n(const lw_model *m, const lw_vexpr *e, const double *a, double s, int nblk, const int *blk,
                      double *g, const int N, const int nd)
{
  for (int t = 0; t < e->nterm; t++) {
    int k = 0;
    while (k < nblk && blk[k] != e->body[t])
      k++;
    double *gb = g + lw_loc(m, blk, k, N);
    const double *w = e->w[t];
    if (N != 4 && N != 12 && lw_is_point(m, e->body[t])) {
      for (int i = 0; i < nd; i++)
        gb[i] += s * w[0] * a[i];
    } else if (nd == 2 && N != 4 && lw_bn(m, e->body[t], N) == 8) {
      for (int j = 0; j < 4; j++)
        for (int i = 0; i < 2; i++)
          gb[2 * j + i] += s * w[j] * a[i];
    } else if (nd == 3) {
      for (int j = 0; j < 4; j++)
        for (int i = 0; i < 3; i++)
          gb[3 * j + i] += s * w[j] * a[i];
    } else {
      gb[0] += s * w[0] * a[0];
      gb[1] += s * w[0] * a[1];
      /* d/du (w1 u + w2 S u)^T a = w1 a + w2 S^T a, S^T a = (a_y, -a_x) */
      gb[2] += s * (w[1] * a[0] + w[2] * a[1]);
      gb[3] += s * (w[1] * a[1] - w[2] * a[0]);
    }
  }
}

void lw_vexpr_grad(const lw_model *m, const lw_vexpr *e, const double *a, double s, int nblk,
                   const int *blk, double *g)
{
  if (m->nqb == 4)
    grad_n(m, e, a, s, nblk, blk, g, 4, 2);
  else if (m->nqb == 8 && m->nd == 2)
    grad_n(m, e, a, s, nblk, blk, g, 8, 2);
  else if (m->nqb == 12)
    grad_n(m, e, a, s, nblk, blk, g, 12, 3);
  else
    grad_n(m, e, a, s, nblk, blk, g, m->nqb, m->nd);
}
