/* lw_friction_jvp.c: the exact directional derivative of a joint's
 * generalized friction (docs/friction.md sec. 8.5).
 *
 *   Q^f(q, v, l) = sum_k Q_k(R(q, l), rate(q, v)) G_k(q),   rate_k = G_k . v
 *
 * with G_k the gradient of the joint's coordinate k and R the reaction in
 * the joint axes on body 2 (sec. 8.1), built from the constraint force
 * g = -(sum over the joint's rows of l_r grad Phi_r) on the reaction's body,
 * that body's coordinates and the joint frame (vectors linear in q).  Along
 * a direction (dq, dv, dl) and a parameter's tangent:
 *
 *   dQ^f = sum_k dQ_k G_k + Q_k dG_k,
 *   dQ_k = dQ_k/drate . drate + dQ_k/dR . dR + dQ_k/dp . dp,
 *   drate_k = dG_k . v + G_k . dv,
 *   dg = -(sum_r dl_r grad Phi_r + l_r d grad Phi_r),
 *
 * dR by the product rule on the reaction's formula (lw_joint_friction.c),
 * the kernel's derivatives (lw_friction_eval) exact. */
#include "lin/lw_friction_jvp.h"
#include "lw_internal.h"
#include "kind/lw_kind_jvp.h"
#include "model/lw_friction.h"

#include <string.h>

static void cross3(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* constraint row r's gradient (its local blocks) and its derivative along
 * dir and the tangent model tm (NULL: none) */
static void row_grad_jvp(const lw_model *m, const lw_model *tm, int r, const lw_lin_point *p, const lw_lin_dir *dir,
                         sc *s)
{
  const lw_row *row = &m->rows[r];
  const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
  if (tm) {
    const lw_row *tr = &tm->rows[r];
    const lw_vexpr *tv[4] = {&tr->a, &tr->b, &tr->c, &tr->d};
    sc_eval(m, row->kind, v, tv, row->nblk, row->blk, p, dir, 1, s);
  } else {
    sc_eval(m, row->kind, v, NULL, row->nblk, row->blk, p, dir, 1, s);
  }
}

/* g = -(J_j^T l_j) on the element's body and its derivative dg */
static void gen_force_jvp(const lw_model *m, const lw_model *tm, const lw_jfric *f, const lw_lin_point *p,
                          const lw_lin_dir *dir, double *g, double *dg)
{
  int nqb = m->nqb;
  const double *l = p->l[0], *dl = dir->dl;
  memset(g, 0, sizeof(double) * (size_t)nqb);
  memset(dg, 0, sizeof(double) * (size_t)nqb);
  lw_lin_point pr = *p;
  pr.qd = NULL; /* the rows' rates are not needed */
  for (int r = f->row0; r < f->row0 + f->nrow; r++) {
    const lw_row *row = &m->rows[r];
    int kb = -1;
    for (int k = 0; k < row->nblk; k++)
      if (row->blk[k] == f->body)
        kb = k;
    if (kb < 0 || (l[r] == 0.0 && (!dl || dl[r] == 0.0) && !dir->dq && !tm))
      continue;
    sc s;
    row_grad_jvp(m, tm, r, &pr, dir, &s);
    double dlr = dl ? dl[r] : 0.0;
    for (int i = 0; i < nqb; i++) {
      g[i] -= s.g[kb * nqb + i] * l[r];
      dg[i] -= s.dg[kb * nqb + i] * l[r] + s.g[kb * nqb + i] * dlr;
    }
  }
}

/* the reaction R (6) in the frame on body 2 and its derivative dR, from g,
 * dg on the element's body (sec. 8.1, lw_joint_friction.c's reaction()) */
static void reaction_jvp(const lw_model *m, const lw_model *tm, int e, const lw_lin_point *p, const lw_lin_dir *dir,
                         const double *g, const double *dg, double *R, double *dR)
{
  const lw_jfric *f = &m->fric[e], *tf = tm ? &tm->fric[e] : NULL;
  const double *qb = p->q + (size_t)f->body * m->nqb;
  const double *dqb = dir->dq ? dir->dq + (size_t)f->body * m->nqb : NULL;
  double P[3] = {0}, dP[3] = {0}, X[3] = {0}, dX[3] = {0}, Y[3] = {0}, dY[3] = {0}, Z[3] = {0}, dZ[3] = {0};
  double dq0[LW_MAXQB] = {0};
  if (!dqb)
    dqb = dq0;
  vx_jvp(m, &f->o, tf ? &tf->o : NULL, p->q, dir->dq, 0, P, dP);
  vx_jvp(m, &f->x, tf ? &tf->x : NULL, p->q, dir->dq, 0, X, dX);
  vx_jvp(m, &f->y, tf ? &tf->y : NULL, p->q, dir->dq, 0, Y, dY);
  memset(R, 0, sizeof(double) * 6);
  memset(dR, 0, sizeof(double) * 6);
  if (m->planar) {
    double F[2] = {g[0], g[1]}, dF[2] = {dg[0], dg[1]};
    double n0 = qb[2] * g[3] - qb[3] * g[2];
    double dn0 = dqb[2] * g[3] + qb[2] * dg[3] - dqb[3] * g[2] - qb[3] * dg[2];
    double rx = P[0] - qb[0], ry = P[1] - qb[1], drx = dP[0] - dqb[0], dry = dP[1] - dqb[1];
    R[0] = X[0] * F[0] + X[1] * F[1];
    R[1] = Y[0] * F[0] + Y[1] * F[1];
    R[5] = n0 - (rx * F[1] - ry * F[0]);
    dR[0] = dX[0] * F[0] + dX[1] * F[1] + X[0] * dF[0] + X[1] * dF[1];
    dR[1] = dY[0] * F[0] + dY[1] * F[1] + Y[0] * dF[0] + Y[1] * dF[1];
    dR[5] = dn0 - (drx * F[1] + rx * dF[1] - dry * F[0] - ry * dF[0]);
    return;
  }
  vx_jvp(m, &f->z, tf ? &tf->z : NULL, p->q, dir->dq, 0, Z, dZ);
  double n[3] = {0}, dn[3] = {0}, c[3], r[3], dr[3];
  const double *F = g, *dF = dg;
  for (int a = 1; a < 4; a++) {
    cross3(qb + 3 * a, g + 3 * a, c);
    for (int i = 0; i < 3; i++)
      n[i] += c[i];
    cross3(dqb + 3 * a, g + 3 * a, c);
    for (int i = 0; i < 3; i++)
      dn[i] += c[i];
    cross3(qb + 3 * a, dg + 3 * a, c);
    for (int i = 0; i < 3; i++)
      dn[i] += c[i];
  }
  for (int i = 0; i < 3; i++) {
    r[i] = P[i] - qb[i];
    dr[i] = dP[i] - dqb[i];
  }
  cross3(r, F, c);
  for (int i = 0; i < 3; i++)
    n[i] -= c[i];
  cross3(dr, F, c);
  for (int i = 0; i < 3; i++)
    dn[i] -= c[i];
  cross3(r, dF, c);
  for (int i = 0; i < 3; i++)
    dn[i] -= c[i];
  const double *ax[3] = {X, Y, Z}, *dax[3] = {dX, dY, dZ};
  for (int k = 0; k < 3; k++) {
    R[k] = dot3(ax[k], F);
    R[3 + k] = dot3(ax[k], n);
    dR[k] = dot3(dax[k], F) + dot3(ax[k], dF);
    dR[3 + k] = dot3(dax[k], n) + dot3(ax[k], dn);
  }
}

/* a ball's slips as scalars (docs/friction.md sec. 8.2): rate_k = G_k . v
 * with G_k = +-1/2 A_k x e_a on body 2's (body 1's) unit vectors e_a
 * (lw_joint_friction_spin_grad), A_k body 2's joint axis k; along dq, dv
 * and the tangent's frame dA_k
 *   dG_k = +-1/2 (dA_k x e_a + A_k x de_a),   drate_k = dG_k . v + G_k . dv */
static void spin_sc(const lw_model *m, const lw_model *tm, int e, const lw_lin_point *p, const lw_lin_dir *dir,
                    sc cs[3])
{
  const lw_jfric *f = &m->fric[e], *tf = tm ? &tm->fric[e] : NULL;
  int nqb = m->nqb;
  double A[3][3], dA[3][3], c[3], dc[3];
  vx_jvp(m, &f->x, tf ? &tf->x : NULL, p->q, dir->dq, 0, A[0], dA[0]);
  vx_jvp(m, &f->y, tf ? &tf->y : NULL, p->q, dir->dq, 0, A[1], dA[1]);
  vx_jvp(m, &f->z, tf ? &tf->z : NULL, p->q, dir->dq, 0, A[2], dA[2]);
  for (int k = 0; k < 3; k++) {
    memset(&cs[k], 0, sizeof cs[k]);
    for (int b = 0; b < f->nblk; b++) {
      size_t o = (size_t)f->blk[b] * nqb;
      const double *qb = p->q + o, *dqb = dir->dq ? dir->dq + o : NULL;
      const double *vb = p->qd ? p->qd + o : NULL, *dvb = dir->dqd ? dir->dqd + o : NULL;
      double h = f->blk[b] == f->bodies[1] ? 0.5 : -0.5;
      for (int a = 1; a < 4; a++) {
        cross3(A[k], qb + 3 * a, c);
        cross3(dA[k], qb + 3 * a, dc);
        if (dqb) {
          double t[3];
          cross3(A[k], dqb + 3 * a, t);
          for (int i = 0; i < 3; i++)
            dc[i] += t[i];
        }
        for (int i = 0; i < 3; i++) {
          int j = b * nqb + 3 * a + i;
          cs[k].g[j] = h * c[i];
          cs[k].dg[j] = h * dc[i];
          if (vb)
            cs[k].r += cs[k].g[j] * vb[3 * a + i];
          if (vb)
            cs[k].dr += cs[k].dg[j] * vb[3 * a + i];
          if (dvb)
            cs[k].dr += cs[k].g[j] * dvb[3 * a + i];
        }
      }
    }
  }
}

/* the slips' scalars: the coordinates', or a ball's (spin_sc) */
static void slip_scs(const lw_model *m, const lw_model *tm, int e, const lw_lin_point *p, const lw_lin_dir *dir,
                     sc *cs)
{
  const lw_jfric *f = &m->fric[e];
  if (f->kind == LW_FRICTION_SPHERICAL) {
    spin_sc(m, tm, e, p, dir, cs);
    return;
  }
  for (int k = 0; k < f->nslip; k++)
    coord_sc(m, tm, f->coord0 + k, p, dir, &cs[k]);
}

/* Q += Q^f and dQ += dQ^f (either may be NULL) from the kernel's result
 * out, the coordinates' scalars cs, the rates' and the reaction's
 * derivatives and the friction parameters' (dp; NULL: none) */
static void assemble(const lw_model *m, const lw_jfric *f, const lw_friction_out *out, const sc *cs,
                     const double *drate, const double *dR, const double *dp, double *Q, double *dQ)
{
  int nqb = m->nqb;
  for (int k = 0; k < f->nslip; k++) {
    double dQk = 0.0;
    for (int j = 0; j < f->nslip; j++)
      dQk += out->dQ_drate[k][j] * drate[j];
    for (int i = 0; i < 6; i++)
      dQk += out->dQ_dreaction[k][i] * dR[i];
    for (int i = 0; dp && i < LW_FP_N; i++)
      dQk += out->dQ_dp[k][i] * dp[i];
    for (int b = 0; b < f->nblk; b++) {
      size_t o = (size_t)f->blk[b] * nqb;
      const double *gk = cs[k].g + b * nqb, *dgk = cs[k].dg + b * nqb;
      for (int i = 0; i < nqb; i++) {
        if (Q)
          Q[o + i] += out->Q[k] * gk[i];
        if (dQ)
          dQ[o + i] += dQk * gk[i] + out->Q[k] * dgk[i];
      }
    }
  }
}

void lw_joint_friction_jvp(const lw_model *m, const lw_tangent *tg, int e, const lw_lin_point *p,
                           const lw_lin_dir *dir, double *Q, double *dQ)
{
  const lw_jfric *f = &m->fric[e];
  const lw_model *tm = tg && tg->any ? tg->dm : NULL;
  double g[LW_MAXQB], dg[LW_MAXQB], R[6], dR[6];
  gen_force_jvp(m, tm, f, p, dir, g, dg);
  reaction_jvp(m, tm, e, p, dir, g, dg, R, dR);
  /* the coordinates' gradients, rates and their derivatives */
  sc cs[LW_FRICTION_MAXSLIP];
  double rate[LW_FRICTION_MAXSLIP], drate[LW_FRICTION_MAXSLIP];
  lw_lin_point pc = *p;
  pc.qd = p->v;
  lw_lin_dir dc = *dir;
  dc.dqd = dir->dv;
  slip_scs(m, tm, e, &pc, &dc, cs);
  for (int k = 0; k < f->nslip; k++) {
    rate[k] = cs[k].r;
    drate[k] = cs[k].dr;
  }
  lw_friction_params fp;
  memcpy(fp.p, f->p, sizeof fp.p);
  lw_friction_out out;
  lw_friction_eval(&fp, (lw_friction_kind)f->kind, R, rate, &out);
  assemble(m, f, &out, cs, drate, dR, tm ? tm->fric[e].p : NULL, Q, dQ);
}

int lw_joint_friction_bodies(const lw_model *m, int e, int *blk)
{
  const lw_jfric *f = &m->fric[e];
  int n = 0;
  int cand[16], nc = 0;
  for (int b = 0; b < f->nblk; b++)
    cand[nc++] = f->blk[b];
  cand[nc++] = f->body;
  for (int t = 0; t < f->o.nterm; t++)
    cand[nc++] = f->o.body[t];
  for (int r = f->row0; r < f->row0 + f->nrow && nc < 14; r++)
    for (int b = 0; b < m->rows[r].nblk; b++)
      cand[nc++] = m->rows[r].blk[b];
  for (int i = 0; i < nc; i++) {
    int seen = cand[i] < 0;
    for (int k = 0; k < n; k++)
      seen |= blk[k] == cand[i];
    if (!seen && n < 2)
      blk[n++] = cand[i];
  }
  return n;
}

_Static_assert(sizeof(sc) == sizeof(double) * LW_FRIC_PT_SC, "lw_fric_pt's storage of a scalar");

int lw_joint_friction_prepare(const lw_model *m, int e, const lw_lin_point *p, lw_fric_pt *pt)
{
  const lw_jfric *f = &m->fric[e];
  if (f->nrow > LW_FRIC_PT_MAXROWS)
    return -1;
  lw_lin_point pr = *p;
  pr.qd = NULL; /* as gen_force_jvp */
  lw_lin_dir none = {NULL, NULL, NULL, NULL, NULL, NULL, -1};
  sc *rows = (sc *)pt->rows;
  for (int r = f->row0; r < f->row0 + f->nrow; r++)
    row_grad_jvp(m, NULL, r, &pr, &none, &rows[r - f->row0]);
  pt->e = e;
  pt->have_cs = pt->have_out = 0;
  return 0;
}

/* gen_force_jvp along a direction without dq nor tangent, from the rows'
 * scalars at the point (which do not depend on such a direction) */
static void gen_force_at(const lw_model *m, const lw_jfric *f, const lw_lin_point *p, const lw_lin_dir *dir,
                         const sc *rows, double *g, double *dg)
{
  int nqb = m->nqb;
  const double *l = p->l[0], *dl = dir->dl;
  memset(g, 0, sizeof(double) * (size_t)nqb);
  memset(dg, 0, sizeof(double) * (size_t)nqb);
  for (int r = f->row0; r < f->row0 + f->nrow; r++) {
    const lw_row *row = &m->rows[r];
    int kb = -1;
    for (int k = 0; k < row->nblk; k++)
      if (row->blk[k] == f->body)
        kb = k;
    if (kb < 0 || (l[r] == 0.0 && (!dl || dl[r] == 0.0)))
      continue;
    const sc *s = &rows[r - f->row0];
    double dlr = dl ? dl[r] : 0.0;
    for (int i = 0; i < nqb; i++) {
      g[i] -= s->g[kb * nqb + i] * l[r];
      dg[i] -= s->dg[kb * nqb + i] * l[r] + s->g[kb * nqb + i] * dlr;
    }
  }
}

void lw_joint_friction_jvp_at(const lw_model *m, const lw_lin_point *p, lw_fric_pt *pt, const lw_lin_dir *dir,
                              double *dQ)
{
  int e = pt->e;
  const lw_jfric *f = &m->fric[e];
  double g[LW_MAXQB], dg[LW_MAXQB], R[6], dR[6];
  if (dir->dq) /* the rows' derivatives along it */
    gen_force_jvp(m, NULL, f, p, dir, g, dg);
  else
    gen_force_at(m, f, p, dir, (const sc *)pt->rows, g, dg);
  reaction_jvp(m, NULL, e, p, dir, g, dg, R, dR);
  /* the coordinates' scalars: along neither q nor the velocity the same
   * for every direction */
  int moves = dir->dq || dir->dv;
  sc cs[LW_FRICTION_MAXSLIP], *csp = moves ? cs : (sc *)pt->cs;
  double rate[LW_FRICTION_MAXSLIP], drate[LW_FRICTION_MAXSLIP];
  lw_lin_point pc = *p;
  pc.qd = p->v;
  lw_lin_dir dc = *dir;
  dc.dqd = dir->dv;
  if (moves || !pt->have_cs)
    slip_scs(m, NULL, e, &pc, &dc, csp);
  pt->have_cs |= !moves;
  for (int k = 0; k < f->nslip; k++) {
    rate[k] = csp[k].r;
    drate[k] = csp[k].dr;
  }
  /* the kernel again only where its arguments changed */
  if (!pt->have_out || memcmp(R, pt->R, sizeof R) || memcmp(rate, pt->rate, sizeof(double) * (size_t)f->nslip)) {
    lw_friction_params fp;
    memcpy(fp.p, f->p, sizeof fp.p);
    lw_friction_eval(&fp, (lw_friction_kind)f->kind, R, rate, &pt->out);
    memcpy(pt->R, R, sizeof R);
    memcpy(pt->rate, rate, sizeof(double) * (size_t)f->nslip);
    pt->have_out = 1;
  }
  assemble(m, f, &pt->out, csp, drate, dR, NULL, NULL, dQ);
}
