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

/* the reaction R (6) in the frame on body 2 and its derivative dR, from
 * g, dg on the element's body (coordinates qb, their derivative dqb) and
 * the frame's origin and axes P, X, Y, Z with their derivatives (sec. 8.1,
 * lw_joint_friction.c's reaction()) */
static void reaction_d(const lw_model *m, const double *qb, const double *dqb, const double *P, const double *dP,
                       const double *X, const double *dX, const double *Y, const double *dY, const double *Z,
                       const double *dZ, const double *g, const double *dg, double *R, double *dR)
{
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

/* reaction_d with the frame at p and along dir and the tangent model tm */
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
  if (!m->planar)
    vx_jvp(m, &f->z, tf ? &tf->z : NULL, p->q, dir->dq, 0, Z, dZ);
  reaction_d(m, qb, dqb, P, dP, X, dX, Y, dY, Z, dZ, g, dg, R, dR);
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

/* the element's values at p that every column shares: the joint's rows'
 * scalars, the constraint force g, the reaction R, the slips' scalars
 * (their gradients G_k and rates) and the kernel's result */
typedef struct {
  sc rows[LW_FRIC_PT_MAXROWS];
  sc cs[LW_FRICTION_MAXSLIP];
  double g[LW_MAXQB], R[6];
  double P[3], X[3], Y[3], Z[3]; /* the frame */
  lw_friction_out out;
} fric_jac_pt;

static const double zeros[LW_MAXQB];

/* the reaction's derivative dR along dg and, when dq != NULL, along dq
 * (the frame's and the reaction body's coordinates' parts) */
static void jac_reaction(const lw_model *m, const lw_jfric *f, const lw_lin_point *p, const fric_jac_pt *x,
                         const double *dq, const double *dg, double *dR)
{
  double R[6], dP[3] = {0}, dX[3] = {0}, dY[3] = {0}, dZ[3] = {0};
  const double *qb = p->q + (size_t)f->body * m->nqb, *dqb = zeros;
  if (dq) {
    dqb = dq + (size_t)f->body * m->nqb;
    lw_vexpr_eval_lin(m, &f->o, dq, dP);
    lw_vexpr_eval_lin(m, &f->x, dq, dX);
    lw_vexpr_eval_lin(m, &f->y, dq, dY);
    if (!m->planar)
      lw_vexpr_eval_lin(m, &f->z, dq, dZ);
  }
  reaction_d(m, qb, dqb, x->P, dP, x->X, dX, x->Y, dY, x->Z, dZ, x->g, dg, R, dR);
}

/* x at p for element e: the joint's rows' scalars, g, the frame, R (as
 * reaction_jvp's along no direction), the slips' scalars with their rates
 * along the slip's velocity p->v, and the kernel at (R, rates) */
static void jac_point(const lw_model *m, int e, const lw_lin_point *p, fric_jac_pt *x)
{
  const lw_jfric *f = &m->fric[e];
  lw_lin_point pr = *p, pc = *p;
  pr.qd = NULL; /* as gen_force_jvp */
  pc.qd = p->v;
  lw_lin_dir none = {NULL, NULL, NULL, NULL, NULL, NULL, -1};
  double dg[LW_MAXQB], dR[6], rate[LW_FRICTION_MAXSLIP];
  for (int r = f->row0; r < f->row0 + f->nrow; r++)
    row_grad_jvp(m, NULL, r, &pr, &none, &x->rows[r - f->row0]);
  gen_force_at(m, f, p, &none, x->rows, x->g, dg);
  memset(x->Z, 0, sizeof x->Z);
  lw_vexpr_eval(m, &f->o, p->q, x->P);
  lw_vexpr_eval(m, &f->x, p->q, x->X);
  lw_vexpr_eval(m, &f->y, p->q, x->Y);
  if (!m->planar)
    lw_vexpr_eval(m, &f->z, p->q, x->Z);
  reaction_d(m, p->q + (size_t)f->body * m->nqb, zeros, x->P, zeros, x->X, zeros, x->Y, zeros, x->Z, zeros, x->g, dg,
             x->R, dR);
  slip_scs(m, NULL, e, &pc, &none, x->cs);
  for (int k = 0; k < f->nslip; k++)
    rate[k] = x->cs[k].r;
  lw_friction_params fp;
  memcpy(fp.p, f->p, sizeof fp.p);
  lw_friction_eval(&fp, (lw_friction_kind)f->kind, x->R, rate, &x->out);
}

/* the local index of body b among blk (n), or -1 */
static int blk_index(int n, const int *blk, int b)
{
  for (int k = 0; k < n; k++)
    if (blk[k] == b)
      return k;
  return -1;
}

/* F[o] = sum_k dQ_k G_k[o] (+ Q_k dG_k[o] when dG), o over the element's
 * blocks (nout), with dQ_k = dQ/drate . drate + dQ/dR . dR */
static void jac_column(const lw_jfric *f, const fric_jac_pt *x, int nout, const double *drate, const double *dR,
                       const sc *dG, double *F)
{
  memset(F, 0, sizeof(double) * (size_t)nout);
  for (int k = 0; k < f->nslip; k++) {
    double dQk = 0.0;
    for (int j = 0; drate && j < f->nslip; j++)
      dQk += x->out.dQ_drate[k][j] * drate[j];
    for (int i = 0; dR && i < 6; i++)
      dQk += x->out.dQ_dreaction[k][i] * dR[i];
    const double *gk = x->cs[k].g;
    for (int o = 0; o < nout; o++)
      F[o] += dQk * gk[o] + (dG ? x->out.Q[k] * dG[k].dg[o] : 0.0);
  }
}

/* H[:, j] of a constant Hessian's entries n0 .. n1 (ij local pairs, values
 * v with stride sv) into col (w, zeroed first) */
static void hess_column(int n0, int n1, const int *ij, const double *v, int sv, int j, int w, double *col)
{
  memset(col, 0, sizeof(double) * (size_t)w);
  for (int n = n0; n < n1; n++)
    if (ij[2 * n + 1] == j)
      col[ij[2 * n]] += v[(size_t)sv * n];
}

/* dg -= l_r d(grad Phi_r)/dq_j on the reaction's body (local block kb) for
 * row r along coordinate j of its local blocks (unit direction u): from
 * the constant Hessian of a DOT row, else its derivative along u */
static void row_hess_column(const lw_model *m, int r, const lw_lin_point *pr, const double *u, int kb, int j,
                            double *dg)
{
  const lw_row *row = &m->rows[r];
  int nqb = m->nqb;
  double l = pr->l[0][r];
  if (lw_row_kind_of(row->kind)->const_hessian) {
    double col[2 * LW_MAXQB];
    hess_column(m->rh_ptr[r], m->rh_ptr[r + 1], m->rh_ij, m->rh_v, 1, j, row->nblk * nqb, col);
    for (int i = 0; i < nqb; i++)
      dg[i] -= col[kb * nqb + i] * l;
    return;
  }
  lw_lin_dir dir = {u, NULL, NULL, NULL, NULL, NULL, -1};
  sc s;
  row_grad_jvp(m, NULL, r, pr, &dir, &s);
  for (int i = 0; i < nqb; i++)
    dg[i] -= s.dg[kb * nqb + i] * l;
}

/* the derivative of coordinate ci's gradient along its local coordinate j
 * (unit direction u) into s->dg, and of its rate into s->dr: from the
 * constant Hessian of a DOT coordinate (dr = dG . v), else its derivative
 * along u */
static void coord_hess_column(const lw_model *m, int ci, const lw_lin_point *pc, const double *u, int j, sc *s)
{
  const lw_coord *c = &m->coords[ci];
  if (!lw_row_kind_of(c->kind)->const_hessian) {
    lw_lin_dir dir = {u, NULL, NULL, NULL, NULL, NULL, -1};
    coord_sc(m, NULL, ci, pc, &dir, s);
    return;
  }
  int nqb = m->nqb;
  hess_column(m->ch_ptr[ci], m->ch_ptr[ci + 1], m->ch_ij, m->ch_v, 2, j, c->nblk * nqb, s->dg);
  s->dr = 0.0;
  for (int b = 0; b < c->nblk; b++)
    for (int i = 0; i < nqb; i++)
      s->dr += s->dg[b * nqb + i] * pc->qd[m->blk_off[c->blk[b]] + i];
}

/* the column of F_q along coordinate a of body b (unit direction u, zero
 * elsewhere): the joint's rows' gradients and the coordinates move along
 * it only where they touch b (by their constant Hessians where they have
 * them), a ball's slips along it (spin_sc); the frame and the reaction's
 * body by the product rule */
static void jac_q_column(const lw_model *m, const lw_jfric *f, const lw_lin_point *p, const fric_jac_pt *x,
                         int b, int a, const double *u, int nout, double *F)
{
  int nqb = m->nqb;
  lw_lin_point pr = *p, pc = *p;
  pr.qd = NULL;
  pc.qd = p->v;
  const double *l = p->l[0];
  double dg[LW_MAXQB] = {0}, dR[6], drate[LW_FRICTION_MAXSLIP];
  for (int r = f->row0; r < f->row0 + f->nrow; r++) {
    const lw_row *row = &m->rows[r];
    int kb = blk_index(row->nblk, row->blk, f->body), kq = blk_index(row->nblk, row->blk, b);
    if (kb >= 0 && kq >= 0 && l[r] != 0.0)
      row_hess_column(m, r, &pr, u, kb, kq * nqb + a, dg);
  }
  jac_reaction(m, f, p, x, u, dg, dR);
  sc dG[LW_FRICTION_MAXSLIP];
  if (f->kind == LW_FRICTION_SPHERICAL) { /* a ball's slips: the frame moves them too */
    lw_lin_dir dir = {u, NULL, NULL, NULL, NULL, NULL, -1};
    slip_scs(m, NULL, (int)(f - m->fric), &pc, &dir, dG);
    for (int k = 0; k < f->nslip; k++)
      drate[k] = dG[k].dr;
    jac_column(f, x, nout, drate, dR, dG, F);
    return;
  }
  for (int k = 0; k < f->nslip; k++) {
    const lw_coord *c = &m->coords[f->coord0 + k];
    int kc = blk_index(c->nblk, c->blk, b);
    if (kc >= 0) {
      coord_hess_column(m, f->coord0 + k, &pc, u, kc * nqb + a, &dG[k]);
    } else {
      memset(dG[k].dg, 0, sizeof(double) * (size_t)nout);
      dG[k].dr = 0.0;
    }
    drate[k] = dG[k].dr;
  }
  jac_column(f, x, nout, drate, dR, dG, F);
}

int lw_joint_friction_jac(const lw_model *m, int e, const lw_lin_point *p, const int *blk, int nb, double *u,
                          double *Fq, double *Fv, double *Fl, lw_fric_dp *fp)
{
  const lw_jfric *f = &m->fric[e];
  int nqb = m->nqb, nout = f->nblk * nqb;
  if (f->nrow > LW_FRIC_PT_MAXROWS || nqb <= 0)
    return -1;
  fric_jac_pt x;
  jac_point(m, e, p, &x);
  for (int k = 0; fp && k < f->nslip; k++) {
    memcpy(fp->G[k], x.cs[k].g, sizeof(double) * (size_t)nout);
    memcpy(fp->dQ_dp[k], x.out.dQ_dp[k], sizeof fp->dQ_dp[k]);
  }
  for (int k = 0; k < nb; k++) {
    int kc = blk_index(f->nblk, f->blk, blk[k]);
    for (int a = 0; a < nqb; a++) {
      int j = k * nqb + a, gj = m->blk_off[blk[k]] + a;
      u[gj] = 1.0;
      jac_q_column(m, f, p, &x, blk[k], a, u, nout, Fq + (size_t)j * nout);
      u[gj] = 0.0;
      /* along v: drate_s = G_s[j], the gradients fixed */
      double drate[LW_FRICTION_MAXSLIP];
      for (int s = 0; s < f->nslip; s++)
        drate[s] = kc < 0 ? 0.0 : x.cs[s].g[kc * nqb + a];
      jac_column(f, &x, nout, drate, NULL, NULL, Fv + (size_t)j * nout);
    }
  }
  /* along the joint's multipliers: dg = -grad Phi_r on the reaction's body */
  for (int r = f->row0; r < f->row0 + f->nrow; r++) {
    const lw_row *row = &m->rows[r];
    const sc *s = &x.rows[r - f->row0];
    int kb = blk_index(row->nblk, row->blk, f->body);
    double dg[LW_MAXQB] = {0}, dR[6];
    for (int i = 0; kb >= 0 && i < nqb; i++)
      dg[i] = -s->g[kb * nqb + i];
    jac_reaction(m, f, p, &x, NULL, dg, dR);
    jac_column(f, &x, nout, NULL, dR, NULL, Fl + (size_t)(r - f->row0) * nout);
  }
  return 0;
}
