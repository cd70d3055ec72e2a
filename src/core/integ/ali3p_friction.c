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
#include "compile/lw_vexpr.h"
#include "dyn/lw_joint_friction.h"
#include "kind/lw_kind.h"
#include "lin/lw_friction_jvp.h"

#include <string.h>

static void cross3v(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

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

/* the local index of body b among blk (n), or -1 */
static int blk_pos(int n, const int *blk, int b)
{
  for (int k = 0; k < n; k++)
    if (blk[k] == b)
      return k;
  return -1;
}

/* 1 when element e's tangent has the structure friction_columns_rank
 * takes: slips that are coordinates over the element's blocks and rows
 * and coordinates with constant Hessians */
static int rank_form(const lw_model *m, const lw_jfric *f)
{
  if (f->kind == LW_FRICTION_SPHERICAL || f->nrow > LW_FRIC_PT_MAXROWS)
    return 0;
  for (int k = 0; k < f->nslip; k++) {
    const lw_coord *c = &m->coords[f->coord0 + k];
    if (!lw_row_kind_of(c->kind)->const_hessian || c->nblk != f->nblk)
      return 0;
    for (int b = 0; b < c->nblk; b++)
      if (c->blk[b] != f->blk[b])
        return 0;
  }
  for (int r = f->row0; r < f->row0 + f->nrow; r++)
    if (!lw_row_kind_of(m->rows[r].kind)->const_hessian)
      return 0;
  return 1;
}

/* a = L^T dR: the reaction's weights dR (6) pulled back onto the
 * constraint force g on the reaction's body (coordinates qb), the
 * reaction being R = L g (lw_joint_friction.c's reaction: the force in
 * the frame's axes and its moment about the origin P) */
static void reaction_pullback(const lw_model *m, const double *qb, double fr[4][3], const double *dR, double *a)
{
  const double *P = fr[0], *X = fr[1], *Y = fr[2], *Z = fr[3];
  if (m->planar) {
    double rx = P[0] - qb[0], ry = P[1] - qb[1];
    a[0] = dR[0] * X[0] + dR[1] * Y[0] + dR[5] * ry;
    a[1] = dR[0] * X[1] + dR[1] * Y[1] - dR[5] * rx;
    a[2] = -dR[5] * qb[3];
    a[3] = dR[5] * qb[2];
    return;
  }
  double U[3], V[3], r[3], c[3];
  for (int i = 0; i < 3; i++) {
    U[i] = dR[0] * X[i] + dR[1] * Y[i] + dR[2] * Z[i];
    V[i] = dR[3] * X[i] + dR[4] * Y[i] + dR[5] * Z[i];
    r[i] = P[i] - qb[i];
  }
  cross3v(V, r, c);
  for (int i = 0; i < 3; i++)
    a[i] = U[i] - c[i];
  for (int e = 1; e < 4; e++)
    cross3v(V, qb + 3 * e, a + 3 * e);
}

/* W += the gradient in q (over the column bodies blk, nb) of dR . L(q) g
 * with g held: the frame's and the reaction body's coordinates' part of
 * dR . dR/dq */
static void reaction_frame_grad(const lw_model *m, const lw_jfric *f, const double *qb, double fr[4][3],
                                const double *g, const double *dR, const int *blk, int nb, double *W)
{
  int nqb = m->nqb, kb = blk_pos(nb, blk, f->body);
  double *Wb = kb >= 0 ? W + kb * nqb : NULL;
  if (m->planar) {
    double F[2] = {g[0], g[1]}, nP[2] = {-g[1], g[0]};
    lw_vexpr_grad(m, &f->x, F, dR[0], nb, blk, W);
    lw_vexpr_grad(m, &f->y, F, dR[1], nb, blk, W);
    lw_vexpr_grad(m, &f->o, nP, dR[5], nb, blk, W);
    if (Wb) {
      Wb[0] += dR[5] * g[1];
      Wb[1] -= dR[5] * g[0];
      Wb[2] += dR[5] * g[3];
      Wb[3] -= dR[5] * g[2];
    }
    return;
  }
  const double *P = fr[0], *ax[3] = {fr[1], fr[2], fr[3]};
  double n[3] = {0}, V[3], c[3], FV[3], r[3];
  for (int e = 1; e < 4; e++) {
    cross3v(qb + 3 * e, g + 3 * e, c);
    for (int i = 0; i < 3; i++)
      n[i] += c[i];
  }
  for (int i = 0; i < 3; i++)
    r[i] = P[i] - qb[i];
  cross3v(r, g, c);
  for (int i = 0; i < 3; i++) {
    n[i] -= c[i];
    V[i] = dR[3] * ax[0][i] + dR[4] * ax[1][i] + dR[5] * ax[2][i];
  }
  const lw_vexpr *vx[3] = {&f->x, &f->y, &f->z};
  for (int k = 0; k < 3; k++) {
    double a[3];
    for (int i = 0; i < 3; i++)
      a[i] = dR[k] * g[i] + dR[3 + k] * n[i];
    lw_vexpr_grad(m, vx[k], a, 1.0, nb, blk, W);
  }
  cross3v(g, V, FV);
  lw_vexpr_grad(m, &f->o, FV, -1.0, nb, blk, W);
  if (Wb) {
    for (int i = 0; i < 3; i++)
      Wb[i] += FV[i];
    for (int e = 1; e < 4; e++) {
      cross3v(g + 3 * e, V, c);
      for (int i = 0; i < 3; i++)
        Wb[3 * e + i] += c[i];
    }
  }
}

/* the exact tangent's part of element e in A's columns over its bodies
 * blk (nb), from the structure of dQ^f (docs/friction.md sec. 8.3):
 *   dQ^f = sum_k G_k dQ_k + Q_k H_k dq,
 * dQ_k along (e_j, c2 e_j, alpha J e_j) a row W_k over the columns, so
 * that A -= hh4 (sum_k G_k W_k + Q_k H_k): W_k from the kernel's
 * derivatives, the coordinates' constant Hessians H_k (the rates'
 * dependence on q: H_k qd) and the rows' (the constraint force's
 * dependence on q), the frame's gradient and the rows' gradients J.  The
 * same matrix as friction_columns_local's, without a kernel evaluation of
 * its own beyond the point's.  -1 when the element lacks that structure
 * (rank_form). */
static int friction_columns_rank(const lw_model *m, const lw_data *d, int e, const double *lam,
                                 const lw_fric_point *kept, const int *blk, int nb, double alpha, double c2,
                                 double hh4, double *A)
{
  enum { W2 = 2 * LW_MAXQB };
  const lw_jfric *f = &m->fric[e];
  if (!rank_form(m, f))
    return -1;
  int n = m->nq, nqb = m->nqb, nw = nb * nqb, ns = f->nslip;
  double Hv[LW_FRICTION_MAXSLIP][W2], W[LW_FRICTION_MAXSLIP][W2], a[LW_FRICTION_MAXSLIP][LW_MAXQB];
  memset(Hv, 0, sizeof Hv[0] * (size_t)ns);
  memset(W, 0, sizeof W[0] * (size_t)ns);
  lw_fric_point pt;
  if (!kept) {
    lw_joint_friction_point(m, d, e, d->q, d->qd, lam, pt.G, pt.g, pt.frame, &pt.out);
    kept = &pt;
  }
  const double *G = kept->G, *g = kept->g;
  const lw_friction_out *out = &kept->out;
  double fr[4][3];
  memcpy(fr, kept->frame, sizeof fr);
  const double *qb = d->q + (size_t)f->body * nqb;
  /* the rates' gradients in q: H_s qd, and their columns' local blocks */
  for (int s = 0; s < ns; s++) {
    int ci = f->coord0 + s;
    const lw_coord *c = &m->coords[ci];
    for (int t = m->ch_ptr[ci]; t < m->ch_ptr[ci + 1]; t++) {
      int ii = m->ch_ij[2 * t], jj = m->ch_ij[2 * t + 1], kq = blk_pos(nb, blk, c->blk[jj / nqb]);
      if (kq >= 0)
        Hv[s][kq * nqb + jj % nqb] += m->ch_v[2 * t] * d->qd[m->blk_off[c->blk[ii / nqb]] + ii % nqb];
    }
  }
  for (int k = 0; k < ns; k++) {
    reaction_pullback(m, qb, fr, out->dQ_dreaction[k], a[k]);
    /* the rates: dQ_k/drate_s (H_s qd + c2 G_s) */
    for (int s = 0; s < ns; s++) {
      double dr = out->dQ_drate[k][s];
      for (int kk = 0; kk < nb; kk++) {
        int kc = blk_pos(f->nblk, f->blk, blk[kk]);
        for (int i = 0; i < nqb; i++) {
          double gs = kc < 0 ? 0.0 : G[(size_t)s * 2 * nqb + kc * nqb + i];
          W[k][kk * nqb + i] += dr * (Hv[s][kk * nqb + i] + c2 * gs);
        }
      }
    }
    reaction_frame_grad(m, f, qb, fr, g, out->dQ_dreaction[k], blk, nb, W[k]);
  }
  /* the constraint force g = -sum_r lam_r grad Phi_r on the body: along q
   * its rows' Hessians, along alpha J e_j their gradients */
  for (int r = f->row0; r < f->row0 + f->nrow; r++) {
    const lw_row *row = &m->rows[r];
    int kb = blk_pos(row->nblk, row->blk, f->body);
    if (kb < 0)
      continue;
    const double *jr = d->jac + (size_t)r * m->wrow;
    for (int k = 0; k < ns; k++) {
      double cr = 0.0;
      for (int i = 0; i < nqb; i++)
        cr += a[k][i] * jr[kb * nqb + i];
      for (int b = 0; b < row->nblk; b++) {
        int kq = blk_pos(nb, blk, row->blk[b]);
        for (int i = 0; kq >= 0 && i < nqb; i++)
          W[k][kq * nqb + i] -= alpha * cr * jr[b * nqb + i];
      }
      if (lam[r] == 0.0)
        continue;
      for (int t = m->rh_ptr[r]; t < m->rh_ptr[r + 1]; t++) {
        int ii = m->rh_ij[2 * t], jj = m->rh_ij[2 * t + 1];
        int kq = ii / nqb == kb ? blk_pos(nb, blk, row->blk[jj / nqb]) : -1;
        if (kq >= 0)
          W[k][kq * nqb + jj % nqb] -= lam[r] * a[k][ii % nqb] * m->rh_v[t];
      }
    }
  }
  /* A -= hh4 (sum_k G_k W_k + Q_k H_k) */
  for (int k = 0; k < ns; k++) {
    for (int j = 0; j < nw; j++) {
      double *Ac = A + (size_t)(m->blk_off[blk[j / nqb]] + j % nqb) * n, wk = hh4 * W[k][j];
      for (int b = 0; b < f->nblk; b++)
        for (int i = 0; i < nqb; i++)
          Ac[m->blk_off[f->blk[b]] + i] -= wk * G[(size_t)k * 2 * nqb + b * nqb + i];
    }
    int ci = f->coord0 + k;
    const lw_coord *c = &m->coords[ci];
    double qk = hh4 * out->Q[k];
    for (int t = m->ch_ptr[ci]; t < m->ch_ptr[ci + 1]; t++) {
      int ii = m->ch_ij[2 * t], jj = m->ch_ij[2 * t + 1];
      if (blk_pos(nb, blk, c->blk[jj / nqb]) < 0)
        continue;
      A[(size_t)(m->blk_off[c->blk[jj / nqb]] + jj % nqb) * n + m->blk_off[c->blk[ii / nqb]] + ii % nqb] -=
        qk * m->ch_v[2 * t];
    }
  }
  return 0;
}

/* the residual's friction points, kept for the matrix at the same
 * iterate: after the LU's storage a flag, the key (q, qd and the
 * multipliers friction read: nq, nq, nc), then one point an element */
static double *kept_key(const lw_model *m, const lw_data *d)
{
  return d->fric_lu + (size_t)m->nq * m->nq + 3 * (size_t)m->nq + m->nc;
}

static lw_fric_point *kept_points(const lw_model *m, const lw_data *d)
{
  return (lw_fric_point *)(kept_key(m, d) + 1 + 2 * (size_t)m->nq + m->nc);
}

/* the elements' column bodies (lw_joint_friction_bodies), found at the
 * first matrix and kept after the points: a flag, then nb, blk[0],
 * blk[1] an element (the storage is zeroed with the data) */
static int element_bodies(const lw_model *m, const lw_data *d, int e, int *blk)
{
  double *rec = (double *)(kept_points(m, d) + m->nfric);
  if (rec[0] != 1.0) {
    for (int k = 0; k < m->nfric; k++) {
      int b[2] = {-1, -1}, nb = lw_joint_friction_bodies(m, k, b);
      rec[1 + 3 * k] = nb;
      rec[2 + 3 * k] = b[0];
      rec[3 + 3 * k] = b[1];
    }
    rec[0] = 1.0;
  }
  const double *r = rec + 1 + 3 * e;
  blk[0] = (int)r[1];
  blk[1] = (int)r[2];
  return (int)r[0];
}

void lw_ali3p_fric_eval(const lw_model *m, lw_data *d, const double *lam, double *vals, double cs)
{
  lw_fric_point *keep = NULL;
  if (d->fric_lu) {
    size_t n = (size_t)m->nq;
    double *key = kept_key(m, d);
    key[0] = 1.0;
    memcpy(key + 1, d->q, sizeof(double) * n);
    memcpy(key + 1 + n, d->qd, sizeof(double) * n);
    memcpy(key + 1 + 2 * n, lam, sizeof(double) * (size_t)m->nc);
    keep = kept_points(m, d);
  }
  lw_joint_friction_eval_keep(m, d, d->q, d->qd, lam, d->Q, vals, cs, keep);
}

/* the points the residual kept, when they are those of (d->q, d->qd,
 * lam); else NULL */
static const lw_fric_point *kept_at(const lw_model *m, const lw_data *d, const double *lam)
{
  size_t n = (size_t)m->nq;
  const double *key = kept_key(m, d);
  if (key[0] != 1.0 || memcmp(key + 1, d->q, sizeof(double) * n) || memcmp(key + 1 + n, d->qd, sizeof(double) * n) ||
      memcmp(key + 1 + 2 * n, lam, sizeof(double) * (size_t)m->nc))
    return NULL;
  return kept_points(m, d);
}

void lw_ali3p_fric_matrix(const lw_model *m, lw_data *d, const double *vals, const double *lam, double alpha,
                          double h, double t, int damping, int local, double *A)
{
  int n = m->nq, nqb = m->nqb;
  double *u = d->fric_lu + (size_t)n * n, *v = u + n, *dQ = v + n, *dl = dQ + n;
  double c2 = damping ? 2.0 / h : 0.0, hh4 = 0.25 * h * h;
  dense_from_pattern(m, vals, A);
  memset(u, 0, sizeof(double) * 2 * (size_t)n);
  lw_lin_point p = {d->q, d->qd, NULL, NULL, {lam, NULL, NULL}, t};
  const lw_fric_point *kept = kept_at(m, d, lam);
  for (int e = 0; e < m->nfric; e++) {
    int blk[2], nb = element_bodies(m, d, e, blk);
    if (!local && !friction_columns_rank(m, d, e, lam, kept ? &kept[e] : NULL, blk, nb, alpha, c2, hh4, A))
      continue;
    if (!friction_columns_local(m, d, e, &p, blk, nb, alpha, c2, hh4, A, u))
      continue;
    for (int k = 0; k < nb; k++)
      for (int i = 0; i < nqb; i++)
        friction_column(m, d, e, &p, m->blk_off[blk[k]] + i, alpha, c2, hh4, A, u, v, dQ, dl);
  }
}

int lw_ali3p_fric_factor(const lw_model *m, lw_data *d, const double *vals, const double *lam, double alpha,
                         double h, double t, int damping)
{
  lw_ali3p_fric_matrix(m, d, vals, lam, alpha, h, t, damping, 0, d->fric_lu);
  return lw_lu_dense(d->fric_lu, m->nq, d->fric_piv);
}

void lw_ali3p_fric_solve(const lw_model *m, const lw_data *d, double *x)
{
  lw_lu_dense_solve(d->fric_lu, m->nq, d->fric_piv, 0, x, 1);
}
