/* ali3p_friction.c: the exact Newton matrix of the ALI3-P step for a model
 * with joint friction (docs/friction.md sec. 8.4 (b)).  The step's residual
 * at the iterate q (qd = 2/h q + qh, lambda* = lambda + alpha Phi(q)) holds
 * the friction Q^f(q, qd, lambda* + kappa), so its tangent gains
 *   -h^2/4 [dQ^f/dq + 2/h dQ^f/dqd + alpha dQ^f/dl J]
 * which is not symmetric (the multiplier term has no symmetric partner, and
 * the falling branch of mu makes even the damping indefinite): the matrix is
 * assembled dense and factored by LU.  Its friction columns come from the
 * element's local derivatives dQ^f/dq, dQ^f/dqd, dQ^f/dl
 * (lw_joint_friction_jac: one evaluation of the kernel, exact), combined
 * as (e_i, 2/h e_i, alpha J e_i) for each coordinate of each friction
 * joint's two bodies; a joint with more rows than that takes one
 * lw_joint_friction_jvp per column. */
#include "integ/ali3p_friction.h"
#include "la/lw_matrix.h"
#include "lin/lw_friction_jvp.h"

#include <string.h>

int lw_ali3p_fric_exact(const lw_model *m) { return m->nfric > 0 && m->dense && m->nqb > 0; }

/* the symmetric matrix of the upper pattern vals into the full A (n x n,
 * column-major) */
static void dense_from_pattern(const lw_model *m, const double *vals, double *A)
{
  int n = m->nq;
  memset(A, 0, sizeof(double) * (size_t)n * n);
  for (int c = 0; c < n; c++)
    for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++) {
      int r = m->rowind[k];
      A[(size_t)c * n + r] = vals[k];
      A[(size_t)r * n + c] = vals[k];
    }
}

/* A's column gi -= hh4 times element e's derivative along (e_gi, c2 e_gi,
 * alpha J e_gi), or (e_gi, 0, alpha J e_gi) when c2 = 0; u, v (nq) zero on
 * entry and on return, dQ (nq), dl (nc) scratch */
static void friction_column(const lw_model *m, const lw_data *d, int e, const lw_lin_point *p, int gi, double alpha,
                            double c2, double hh4, double *A, double *u, double *v, double *dQ, double *dl)
{
  int n = m->nq, nqb = m->nqb;
  const lw_jfric *fe = &m->fric[e];
  u[gi] = 1.0;
  v[gi] = c2;
  lw_jac_mul(m, d, u, dl);
  for (int r = 0; r < m->nc; r++)
    dl[r] *= alpha;
  for (int b = 0; b < fe->nblk; b++)
    memset(dQ + m->blk_off[fe->blk[b]], 0, sizeof(double) * (size_t)nqb);
  lw_lin_dir dir = {u, v, NULL, NULL, dl, NULL, -1};
  lw_joint_friction_jvp(m, NULL, e, p, &dir, NULL, dQ);
  u[gi] = 0.0;
  v[gi] = 0.0;
  double *col = A + (size_t)gi * n;
  for (int b = 0; b < fe->nblk; b++)
    for (int i = 0; i < nqb; i++) {
      int g = m->blk_off[fe->blk[b]] + i;
      col[g] -= hh4 * dQ[g];
    }
}

/* A's columns over element e's bodies blk (nb) -= hh4 times its local
 * derivatives (lw_joint_friction_jac) along (e_gi, c2 e_gi, alpha J e_gi);
 * -1 when the element has no local derivatives (friction_column then) */
static int friction_columns_local(const lw_model *m, const lw_data *d, int e, const lw_lin_point *p,
                                  const int *blk, int nb, double alpha, double c2, double hh4, double *A, double *u)
{
  enum { W = 2 * LW_MAXQB };
  const lw_jfric *f = &m->fric[e];
  int n = m->nq, nqb = m->nqb, nout = f->nblk * nqb;
  double Fq[W * W], Fv[W * W], Fl[W * LW_FRIC_PT_MAXROWS], col[W];
  if (lw_joint_friction_jac(m, e, p, blk, nb, u, Fq, Fv, Fl, NULL))
    return -1;
  for (int k = 0; k < nb; k++)
    for (int a = 0; a < nqb; a++) {
      int j = k * nqb + a;
      const double *fq = Fq + (size_t)j * nout, *fv = Fv + (size_t)j * nout;
      for (int o = 0; o < nout; o++)
        col[o] = fq[o] + c2 * fv[o];
      /* alpha J e_gi on the joint's rows: their gradients at this coordinate */
      for (int r = f->row0; r < f->row0 + f->nrow; r++) {
        const lw_row *row = &m->rows[r];
        for (int kb = 0; kb < row->nblk; kb++)
          if (row->blk[kb] == blk[k]) {
            double jr = alpha * d->jac[(size_t)r * m->wrow + kb * nqb + a];
            const double *fl = Fl + (size_t)(r - f->row0) * nout;
            for (int o = 0; o < nout; o++)
              col[o] += jr * fl[o];
          }
      }
      double *Ac = A + (size_t)(m->blk_off[blk[k]] + a) * n;
      for (int b = 0; b < f->nblk; b++)
        for (int i = 0; i < nqb; i++)
          Ac[m->blk_off[f->blk[b]] + i] -= hh4 * col[b * nqb + i];
    }
  return 0;
}

int lw_ali3p_fric_factor(const lw_model *m, lw_data *d, const double *vals, const double *lam, double alpha,
                         double h, double t, int damping)
{
  int n = m->nq, nqb = m->nqb;
  double *A = d->fric_lu, *u = A + (size_t)n * n, *v = u + n, *dQ = v + n, *dl = dQ + n;
  double c2 = damping ? 2.0 / h : 0.0, hh4 = 0.25 * h * h;
  dense_from_pattern(m, vals, A);
  memset(u, 0, sizeof(double) * 2 * (size_t)n);
  lw_lin_point p = {d->q, d->qd, NULL, NULL, {lam, NULL, NULL}, t};
  for (int e = 0; e < m->nfric; e++) {
    int blk[2], nb = lw_joint_friction_bodies(m, e, blk);
    if (!friction_columns_local(m, d, e, &p, blk, nb, alpha, c2, hh4, A, u))
      continue;
    for (int k = 0; k < nb; k++)
      for (int i = 0; i < nqb; i++)
        friction_column(m, d, e, &p, m->blk_off[blk[k]] + i, alpha, c2, hh4, A, u, v, dQ, dl);
  }
  return lw_lu_dense(A, n, d->fric_piv);
}

void lw_ali3p_fric_solve(const lw_model *m, const lw_data *d, double *x)
{
  lw_lu_dense_solve(d->fric_lu, m->nq, d->fric_piv, 0, x, 1);
}
