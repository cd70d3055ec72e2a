/* sens_friction.c: joint friction in the linearization of the step
 * (docs/friction.md sec. 8.5).  The converged position problem of the step
 * from state a to state b is
 *   M qdd*(q) - Q(q, qd*) - Q^f(q, qd*, l) + J^T lambda = 0,   l = lambda + kappa_a
 * (kappa_a: state a's acceleration-projection multipliers, when the step
 * read them; lw_joint_friction_lambda).  Its linearization adds
 *   to A (the q column):       -(Q^f_q + c2 Q^f_qd)
 *   to C (the history bh'):    -Q^f_qd
 *   to AP's lambda columns:    J^T - Q^f_l
 *   to the right-hand side:    Q^f_l kappa_a' and, per parameter, Q^f_rho
 * so that the multipliers' columns are no longer the transpose of the
 * constraint rows (AP is factored by its dense LU, or through A's blocks
 * with the friction rows' columns of the Schur complement J A^-1 (J^T -
 * Q^f_l) taking -J A^-1 Q^f_l: sens_linalg.c) and the forward carries
 * kappa' from a step to the next; the adjoint takes the exact transposes,
 * kappa_a's cotangent Q^f_l^T muP going into the transposed acceleration
 * problem of the step before.  The derivatives are the element's local
 * matrices (lw_joint_friction_jac: its kernel evaluated once, exact), or
 * where it has none lw_joint_friction_jvp's, column by column over the
 * joint's bodies; the parameters' columns lw_joint_friction_jvp's. */
#include "sens_internal.h"
#include "lin/lw_friction_jvp.h"

#include <stdlib.h>

int sens_friction_alloc(sens *s)
{
  s->fric_L = calloc((size_t)s->nq * s->nc + 1, sizeof(double));
  s->fric_l = calloc((size_t)s->nc + 1, sizeof(double));
  s->fric_e = calloc((size_t)s->n1 + 1, sizeof(double));
  s->fric_d = calloc((size_t)s->nq + 1, sizeof(double));
  s->fric_dp = calloc((size_t)s->m->nfric, sizeof(lw_fric_dp));
  s->fric_Z = calloc((size_t)s->nq * s->nc + 1, sizeof(double));
  s->fric_t = calloc((size_t)s->nc + 1, sizeof(double));
  return s->fric_L && s->fric_l && s->fric_e && s->fric_d && s->fric_dp && s->fric_Z && s->fric_t ? 0 : -1;
}

void sens_friction_point(sens *s, const double *sa, const double *sb)
{
  int nc = s->nc;
  const double *mult = ST_MULT(s, sa);
  /* the step read kappa_a when state a came from a step whose projections
   * were exact (lw_ali3p_step: fric_kap_ok); the initial state has none */
  s->fric_kap = sa[1] > 0.0 && mult[0] != 0.0;
  s->fric_dp_ok = 0;
  memcpy(s->fric_l, ST_L(s, sb), sizeof(double) * (size_t)nc);
  if (s->fric_kap)
    for (int r = 0; r < nc; r++)
      s->fric_l[r] += mult[1 + nc + r];
}

/* B(gi, gj) += v in a matrix of blocks */
static void bm_add(const lw_model *m, const lw_bmat *B, int gi, int gj, double v)
{
  int bi = lw_body_of(m, gi), bj = lw_body_of(m, gj), o = m->blk_off[bi], n = m->blk_n[bi];
  if (bi == bj)
    B->blk[m->mblk_off[bi] + (size_t)(gj - o) * n + (gi - o)] += v;
  else
    B->off[(size_t)gj * m->nq + gi] += v;
}

/* the friction's point: q, the slip's velocity qd*, the multipliers l */
static lw_lin_point fric_point(const sens *s, const lw_lin_point *pt)
{
  lw_lin_point pf = {pt->q, pt->v, NULL, NULL, {s->fric_l, NULL, NULL}, pt->t};
  return pf;
}

/* element e's derivative along dir into s->fric_d (zeroed first on the
 * element's coordinates' blocks, which alone it writes); from the point
 * prepared in fpt (NULL: none) */
static void element_dir(sens *s, int e, const lw_lin_point *pf, lw_fric_pt *fpt, const lw_lin_dir *dir)
{
  const lw_model *m = s->m;
  const lw_jfric *fe = &m->fric[e];
  for (int b = 0; b < fe->nblk; b++)
    memset(s->fric_d + m->blk_off[fe->blk[b]], 0, sizeof(double) * (size_t)m->nqb);
  if (fpt)
    lw_joint_friction_jvp_at(m, pf, fpt, dir, s->fric_d);
  else
    lw_joint_friction_jvp(m, NULL, e, pf, dir, NULL, s->fric_d);
}

/* the columns of element e along q and qd at coordinate gi */
static void element_state_cols(sens *s, int e, const lw_lin_point *pf, lw_fric_pt *fpt, int gi)
{
  const lw_model *m = s->m;
  const lw_jfric *fe = &m->fric[e];
  double *u = s->fric_e;
  u[gi] = 1.0;
  for (int pass = 0; pass < 2; pass++) {
    lw_lin_dir dir = {pass ? NULL : u, pass ? u : NULL, NULL, NULL, NULL, NULL, -1};
    element_dir(s, e, pf, fpt, &dir);
    for (int b = 0; b < fe->nblk; b++)
      for (int i = 0; i < m->nqb; i++) {
        int g = m->blk_off[fe->blk[b]] + i;
        double v = s->fric_d[g];
        if (v == 0.0)
          continue;
        if (pass == 0) {
          bm_add(m, &s->Ab, g, gi, -v);
        } else {
          bm_add(m, &s->Ab, g, gi, -s->c2 * v);
          bm_add(m, &s->Cb, g, gi, -v);
        }
      }
  }
  u[gi] = 0.0;
}

/* element e's columns from its local derivatives (lw_joint_friction_jac)
 * over its bodies blk (nb): A -= Fq + c2 Fv, C -= Fv, the joint's rows'
 * L = Fl; -1 when it has none (the columns one derivative each then) */
static int element_cols_local(sens *s, int e, const lw_lin_point *pf, const int *blk, int nb)
{
  enum { W = 2 * LW_MAXQB };
  const lw_model *m = s->m;
  const lw_jfric *f = &m->fric[e];
  int nq = s->nq, nqb = m->nqb, nout = f->nblk * nqb;
  double Fq[W * W], Fv[W * W], Fl[W * LW_FRIC_PT_MAXROWS];
  if (lw_joint_friction_jac(m, e, pf, blk, nb, s->fric_e, Fq, Fv, Fl, &s->fric_dp[e]))
    return -1;
  for (int k = 0; k < nb; k++)
    for (int a = 0; a < nqb; a++) {
      int j = k * nqb + a, gi = m->blk_off[blk[k]] + a;
      for (int pass = 0; pass < 2; pass++)
        for (int b = 0; b < f->nblk; b++)
          for (int i = 0; i < nqb; i++) {
            int g = m->blk_off[f->blk[b]] + i;
            double v = (pass ? Fv : Fq)[(size_t)j * nout + b * nqb + i];
            if (v == 0.0)
              continue;
            if (pass == 0) {
              bm_add(m, &s->Ab, g, gi, -v);
            } else {
              bm_add(m, &s->Ab, g, gi, -s->c2 * v);
              bm_add(m, &s->Cb, g, gi, -v);
            }
          }
    }
  for (int r = f->row0; r < f->row0 + f->nrow; r++) {
    double *L = s->fric_L + (size_t)r * nq;
    memset(L, 0, sizeof(double) * (size_t)nq);
    for (int b = 0; b < f->nblk; b++)
      memcpy(L + m->blk_off[f->blk[b]], Fl + (size_t)(r - f->row0) * nout + b * nqb, sizeof(double) * (size_t)nqb);
  }
  return 0;
}

void sens_friction_lin(sens *s, const lw_lin_point *pt)
{
  const lw_model *m = s->m;
  int nq = s->nq, nqb = m->nqb;
  lw_lin_point pf = fric_point(s, pt);
  lw_fric_pt fpt;
  s->fric_dp_ok = 1;
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    int blk[2], nb = lw_joint_friction_bodies(m, e, blk);
    if (!element_cols_local(s, e, &pf, blk, nb))
      continue;
    s->fric_dp_ok = 0;
    /* the columns share the point's kernel, those along qd and l its rows */
    lw_fric_pt *fp = lw_joint_friction_prepare(m, e, &pf, &fpt) ? NULL : &fpt;
    for (int k = 0; k < nb; k++)
      for (int i = 0; i < nqb; i++)
        element_state_cols(s, e, &pf, fp, m->blk_off[blk[k]] + i);
    /* dQ^f/dl: the joint's rows' columns */
    double *u = s->fric_e;
    for (int r = f->row0; r < f->row0 + f->nrow; r++) {
      double *L = s->fric_L + (size_t)r * nq;
      memset(L, 0, sizeof(double) * (size_t)nq);
      u[r] = 1.0;
      lw_lin_dir dir = {NULL, NULL, NULL, NULL, u, NULL, -1};
      element_dir(s, e, &pf, fp, &dir);
      u[r] = 0.0;
      for (int b = 0; b < f->nblk; b++)
        memcpy(L + m->blk_off[f->blk[b]], s->fric_d + m->blk_off[f->blk[b]], sizeof(double) * (size_t)nqb);
    }
  }
}

/* col -= scale times element f's entries of d (on its coordinates' blocks) */
static void sub_element_col(const lw_model *m, const lw_jfric *f, const double *d, double *col, double scale)
{
  for (int b = 0; b < f->nblk; b++)
    for (int i = 0; i < m->nqb; i++) {
      int g = m->blk_off[f->blk[b]] + i;
      col[g] -= scale * d[g];
    }
}

void sens_friction_ap_add(const sens *s, double *AP)
{
  const lw_model *m = s->m;
  int nq = s->nq, n1 = s->n1;
  for (int e = 0; e < m->nfric; e++)
    for (int r = m->fric[e].row0; r < m->fric[e].row0 + m->fric[e].nrow; r++)
      for (int i = 0; i < nq; i++)
        AP[(size_t)(nq + r) * n1 + i] -= s->fric_L[(size_t)r * nq + i];
}

/* whether tangent tg moves element e's friction at a fixed state: its
 * parameters or frame, the gradients of its joint's rows (the reaction)
 * or its coordinates (the slips); else its column is exactly 0 */
static int element_moves(const lw_model *m, const lw_tangent *tg, int e)
{
  const lw_jfric *f = &m->fric[e];
  if (!tg || !tg->any || tg->fric_on[e])
    return tg && tg->any;
  for (int r = f->row0; r < f->row0 + f->nrow; r++)
    if (tg->row_vx_on[r])
      return 1;
  for (int k = 0; k < f->nslip && f->kind != LW_FRICTION_SPHERICAL; k++)
    if (tg->coord_on[f->coord0 + k])
      return 1;
  return 0;
}

static int vx_moves(const lw_vexpr *v)
{
  for (int i = 0; i < 4; i++)
    if (v->w[0][i] != 0.0 || v->w[1][i] != 0.0)
      return 1;
  return v->c[0] != 0.0 || v->c[1] != 0.0 || v->c[2] != 0.0;
}

/* whether tangent tg moves element e's friction parameters alone (not
 * its frame, its joint's rows' gradients nor its coordinates) */
static int params_alone(const lw_model *m, const lw_tangent *tg, int e)
{
  const lw_jfric *f = &m->fric[e], *tf = &tg->dm->fric[e];
  if (vx_moves(&tf->o) || vx_moves(&tf->x) || vx_moves(&tf->y) || vx_moves(&tf->z))
    return 0;
  for (int r = f->row0; r < f->row0 + f->nrow; r++)
    if (tg->row_vx_on[r])
      return 0;
  for (int k = 0; k < f->nslip && f->kind != LW_FRICTION_SPHERICAL; k++)
    if (tg->coord_on[f->coord0 + k])
      return 0;
  return 1;
}

/* fp -= element e's column along its friction parameters' tangent alone,
 * from the point's derivatives (sens_friction_lin): sum_k (dQ_k/dp . dp)
 * G_k, in lw_joint_friction_jvp's order (its other terms are zero there) */
static void param_col_at(sens *s, int e, const double *dp, double *fp)
{
  const lw_model *m = s->m;
  const lw_jfric *f = &m->fric[e];
  const lw_fric_dp *x = &s->fric_dp[e];
  int nqb = m->nqb;
  double d[2 * LW_MAXQB] = {0};
  for (int k = 0; k < f->nslip; k++) {
    double dQk = 0.0;
    for (int i = 0; i < LW_FP_N; i++)
      dQk += x->dQ_dp[k][i] * dp[i];
    for (int o = 0; o < f->nblk * nqb; o++)
      d[o] += dQk * x->G[k][o];
  }
  for (int b = 0; b < f->nblk; b++)
    for (int i = 0; i < nqb; i++)
      fp[m->blk_off[f->blk[b]] + i] -= d[b * nqb + i];
}

void sens_friction_param_col(sens *s, const lw_lin_point *pt, const lw_tangent *tg, double *fp)
{
  const lw_model *m = s->m;
  lw_lin_point pf = fric_point(s, pt);
  lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
  for (int e = 0; e < m->nfric; e++) {
    if (!element_moves(m, tg, e))
      continue;
    if (s->fric_dp_ok && !tg->fn_kind && params_alone(m, tg, e)) {
      param_col_at(s, e, tg->dm->fric[e].p, fp);
      continue;
    }
    const lw_jfric *fe = &m->fric[e];
    for (int b = 0; b < fe->nblk; b++)
      memset(s->fric_d + m->blk_off[fe->blk[b]], 0, sizeof(double) * (size_t)m->nqb);
    lw_joint_friction_jvp(m, tg, e, &pf, &dir, NULL, s->fric_d);
    for (int b = 0; b < fe->nblk; b++)
      for (int i = 0; i < m->nqb; i++) {
        int g = m->blk_off[fe->blk[b]] + i;
        fp[g] -= s->fric_d[g];
      }
  }
}

void sens_friction_kap_rows(const sens *s, const double *Sk, double *R, int p)
{
  const lw_model *m = s->m;
  if (!s->fric_kap)
    return;
  for (int e = 0; e < m->nfric; e++)
    for (int r = m->fric[e].row0; r < m->fric[e].row0 + m->fric[e].nrow; r++) {
      const double *L = s->fric_L + (size_t)r * s->nq, *sk = Sk + (size_t)r * p;
      for (int i = 0; i < s->nq; i++)
        if (L[i] != 0.0)
          for (int c = 0; c < p; c++)
            R[(size_t)i * p + c] += L[i] * sk[c];
    }
}

void sens_friction_kap_cotangent(const sens *s, const double *muP, double *kb)
{
  const lw_model *m = s->m;
  memset(kb, 0, sizeof(double) * (size_t)s->nc);
  if (!s->fric_kap)
    return;
  for (int e = 0; e < m->nfric; e++)
    for (int r = m->fric[e].row0; r < m->fric[e].row0 + m->fric[e].nrow; r++)
      kb[r] = dotn(s->nq, s->fric_L + (size_t)r * s->nq, muP);
}

/* The initial acceleration problem M qdd - Q - Q^f(q, qd, lambda) + J^T
 * lambda = 0, J qdd + gamma = 0 (lw_accelerations: friction reads the
 * index-1 multipliers themselves) linearized: the coordinates' columns of
 * D0q and D0qd (n1 each) less Q^f_q and Q^f_qd, and the multipliers'
 * columns of K0 (n1 x n1, stored with them scaled by scale) less
 * Q^f_lambda.  Each element's columns along its own coordinates and rows,
 * by its exact directional derivatives. */
void sens_friction_initial(sens *s, const lw_lin_point *pt, double *K0, double *D0q, double *D0qd, double scale)
{
  const lw_model *m = s->m;
  int nqb = m->nqb, n1 = s->n1;
  lw_lin_point pf = {pt->q, pt->v, NULL, NULL, {pt->l[0], NULL, NULL}, pt->t};
  memcpy(s->fric_l, pt->l[0], sizeof(double) * (size_t)s->nc);
  s->fric_dp_ok = 0;
  s->fric_kap = 0;
  double *u = s->fric_e;
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    int blk[2], nb = lw_joint_friction_bodies(m, e, blk);
    for (int k = 0; k < nb; k++)
      for (int a = 0; a < nqb; a++) {
        int gi = m->blk_off[blk[k]] + a;
        u[gi] = 1.0;
        for (int pass = 0; pass < 2; pass++) {
          lw_lin_dir dir = {pass ? NULL : u, pass ? u : NULL, NULL, NULL, NULL, NULL, -1};
          element_dir(s, e, &pf, NULL, &dir);
          sub_element_col(m, f, s->fric_d, (pass ? D0qd : D0q) + (size_t)gi * n1, 1.0);
        }
        u[gi] = 0.0;
      }
    for (int r = f->row0; r < f->row0 + f->nrow; r++) {
      u[r] = 1.0;
      lw_lin_dir dir = {NULL, NULL, NULL, NULL, u, NULL, -1};
      element_dir(s, e, &pf, NULL, &dir);
      u[r] = 0.0;
      sub_element_col(m, f, s->fric_d, K0 + (size_t)(s->nq + r) * n1, scale);
    }
  }
}
