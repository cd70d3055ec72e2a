/* lw_jvp.c: exact directional derivatives (Jacobian-vector products) of
 * every piece of the discretized equations, with respect to the state and
 * to a parameter.
 *
 * A parameter enters only through the compiled constants of the model: the
 * coefficients of the vectors linear in q, the mass blocks, the generalized
 * gravity, spring constants, force vectors and time-function coefficients,
 * objective weights and targets.  A tangent model (lw_tangent) holds the
 * derivative of every such constant with respect to one parameter, in the
 * layout of lw_model, so that the derivative of a vector linear in q with
 * respect to the parameter is the same linear map with the tangent
 * coefficients (lw_vexpr_eval on the tangent vexpr).  Everything below is
 * differentiated by hand: bilinear dot products, atan2 angles, the spring
 * length, torques; the tests check each against central differences. */
#include "lin/lw_jvp.h"
#include "lw_internal.h"
#include "dyn/lw_beam_out.h"
#include "compile/lw_hess.h"
#include "compile/lw_vexpr.h"
#include "dyn/lw_forces.h"
#include "la/lw_matrix.h"
#include "la/lw_rowvec.h"
#include "kind/lw_kind.h"
#include "kind/lw_kind_jvp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int lw_tangent_active(const lw_model *m, const lw_tangent *tg, double t)
{
  if (!tg || !tg->any)
    return 0;
  if (!tg->fn_kind)
    return 1;
  const lw_func *f = tg->fn_kind == 1 ? &m->forces[tg->fn_index].func : &m->drivers[tg->fn_index];
  return lw_func_coef_tangent(f, tg->fn_coef, t, NULL, NULL, NULL);
}

static void row_sc(const lw_model *m, const lw_model *tm, int r, const lw_lin_point *p,
                   const lw_lin_dir *dir, int need_g, sc *s)
{
  const lw_row *row = &m->rows[r];
  const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
  if (tm) {
    const lw_row *tr = &tm->rows[r];
    const lw_vexpr *tv[4] = {&tr->a, &tr->b, &tr->c, &tr->d};
    sc_eval(m, row->kind, v, tv, row->nblk, row->blk, p, dir, need_g, s);
    s->dv -= tr->c0;
  } else {
    sc_eval(m, row->kind, v, NULL, row->nblk, row->blk, p, dir, need_g, s);
  }
}

void lw_coord_jvp(const lw_model *m, const lw_tangent *tg, int ci, const lw_lin_point *p,
                 const lw_lin_dir *dir, double *dx, double *dxd, double *g, double *dg)
{
  sc s;
  coord_sc(m, tg ? tg->dm : NULL, ci, p, dir, &s);
  if (dx)
    *dx = s.dv;
  if (dxd)
    *dxd = s.dr;
  int w = m->wrow;
  if (g)
    memcpy(g, s.g, sizeof(double) * (size_t)w);
  if (dg)
    memcpy(dg, s.dg, sizeof(double) * (size_t)w);
}

double lw_fb_error_jvp(const lw_model *m, const lw_data *d, const lw_tangent *tg, int i,
                       const lw_lin_point *p, const lw_lin_dir *dir, double *de)
{
  lw_lin_dir df = *dir;
  df.tg = tg;
  int fon = tg && tg->force_on[m->fbs[i].force];
  double e, ed, ded;
  fb_error_jvp(m, d, i, fon, p, &df, &e, de, &ed, &ded);
  return e;
}

/* ---- the residual pieces ------------------------------------------------- */
void lw_lin_jvp(const lw_model *m, lw_data *d, const lw_lin_point *p, const lw_lin_dir *dir,
                const lw_lin_out *o)
{
  int nq = m->nq, nc = m->nc;
  const lw_tangent *tg = dir->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  if (o->dQ)
    memset(o->dQ, 0, sizeof(double) * (size_t)nq);
  for (int k = 0; k < 3; k++)
    if (o->dJl[k])
      memset(o->dJl[k], 0, sizeof(double) * (size_t)nq);
  if (o->dphi)
    memset(o->dphi, 0, sizeof(double) * (size_t)nc);
  if (o->dvel)
    memset(o->dvel, 0, sizeof(double) * (size_t)nc);
  if (o->dacc)
    memset(o->dacc, 0, sizeof(double) * (size_t)nc);
  int state = dir->dq || dir->dv || dir->dqd || dir->dqdd;
  int want_rows = o->dphi || o->dvel || o->dacc || o->dJl[0] || o->dJl[1] || o->dJl[2];
  lw_lin_point pr = *p;
  if (!o->dvel && !o->dacc)
    pr.qd = NULL;
  sc s;
  /* along a parameter alone, only the rows and forces it reaches */
  const char *row_on = !state && tg ? tg->row_on : NULL, *force_on = !state && tg ? tg->force_on : NULL;
  for (int r = 0; want_rows && r < nc; r++) {
    if (row_on && !row_on[r])
      continue;
    const lw_row *row = &m->rows[r];
    if (!active(dir, state, row->nblk, row->blk, tg && tg->row_on[r]))
      continue;
    double df = 0, dfd = 0, dfdd = 0;
    if (tm && row->func >= 0)
      func_tan(tg, 2, row->func, &m->drivers[row->func], &tm->drivers[row->func], p->t, &df, &dfd, &dfdd);
    if (row_on && !tg->row_vx_on[r]) {
      /* along the parameter alone, with the row's vectors unmoved, only
       * its constant moves: its gradient, rate and second-order term stay */
      if (o->dphi)
        o->dphi[r] = (0.0 - tm->rows[r].c0) - df;
      if (o->dvel)
        o->dvel[r] = 0.0 - dfd;
      if (o->dacc)
        o->dacc[r] = 0.0 - dfdd;
      continue;
    }
    row_sc(m, tm, r, &pr, dir, dir->dqdd != NULL, &s); /* s.g only for qdd's direction */
    if (o->dphi)
      o->dphi[r] = s.dv - df;
    if (o->dvel)
      o->dvel[r] = s.dr - dfd;
    if (o->dacc) {
      double a = blk_dot(m, row->nblk, row->blk, s.dg, p->qdd) + s.dgm - dfdd;
      if (dir->dqdd)
        a += blk_dot(m, row->nblk, row->blk, s.g, dir->dqdd);
      o->dacc[r] = a;
    }
    for (int k = 0; k < 3; k++)
      if (o->dJl[k] && p->l[k][r] != 0.0)
        blk_add(m, row->nblk, row->blk, s.dg, p->l[k][r], o->dJl[k]);
  }
  if (!o->dQ)
    return;
  double *dQ = o->dQ;
  if (tg && tg->grav_on)
    for (int i = 0; i < nq; i++)
      dQ[i] += tm->qgrav[i];
  lw_lin_point pf = *p;
  pf.qd = p->v; /* forces see the velocity argument v */
  lw_lin_dir df = *dir;
  df.dqd = dir->dv;
  for (int n = 0; n < m->nforces; n++)
    if ((!force_on || force_on[n]) && !d->force_off[n])
      lw_force_kind_of(m->forces[n].type)->jvp(m, d, n, p, &pf, dir, &df, state, dQ);
}

/* ---- step matrices ------------------------------------------------------------
 * The dense matrices of the linearized step at point p (column-major, leading
 * dimensions given), accumulated (+=):
 *   H[k] (nq x nq): sum_r l_k[r] d2 Phi_r / dq2, k = 0, 1, 2 (NULL: skip)
 *   RV (nc x nq): d(J qd + Phi_t)/dq,  RA: d(J qdd + gamma)/dq,  RAd: d gamma / d qd
 *   KC (nq x nq): -dQ/dq - cv dQ/dv,   C: -dQ/dv
 * Bilinear rows contribute their constant Hessian A^T B + B^T A directly;
 * angles and forces go through their directional derivatives, one local
 * coordinate at a time. */

/* B(gi, gj) += v for blocks of mixed sizes */
static void bm_add_mixed(const lw_model *m, const lw_bmat *B, int gi, int gj, double v)
{
  int bi = lw_body_of(m, gi), bj = lw_body_of(m, gj), o = m->blk_off[bi], n = m->blk_n[bi];
  if (bi == bj)
    B->blk[m->mblk_off[bi] + (size_t)(gj - o) * n + (gi - o)] += v;
  else
    B->off[(size_t)gj * m->nq + gi] += v;
}

/* B(gi, gj) += v */
static inline void bm_add(const lw_model *m, const lw_bmat *B, int gi, int gj, double v)
{
  int nqb = m->nqb;
  if (!nqb) {
    bm_add_mixed(m, B, gi, gj, v);
    return;
  }
  int bi = lw_qb_div(gi, nqb), bj = lw_qb_div(gj, nqb);
  if (bi == bj)
    B->blk[(size_t)bi * nqb * nqb + (size_t)(lw_qb_mod(gj, nqb)) * nqb + lw_qb_mod(gi, nqb)] += v;
  else
    B->off[(size_t)gj * m->nq + gi] += v; /* present whenever m->lin_coupled (lw_lin_prepare) */
}

/* the part of B in the rows of body br and the columns of body bc:
 * B(blk_off[br] + r, blk_off[bc] + c) = part[c ld + r] */
static inline double *bm_part(const lw_model *m, const lw_bmat *B, int br, int bc, int *ld)
{
  if (br == bc) {
    *ld = m->blk_n[br];
    return B->blk + m->mblk_off[br];
  }
  *ld = m->nq;
  return B->off + (size_t)m->blk_off[bc] * m->nq + m->blk_off[br];
}

/* A scalar of a row or a coordinate in closed form: x = a.b (DOT) or
 * theta = atan2(S, C), S = a.b, C = c.d (ANGLE), with a..d linear in q
 * (matrices X[0..3] over the w local coordinates).  Its gradient g, its rate
 * xd = g.qd and d(xd)/dq = H qd (gd) at (q, qd); H's entries by sx_hess.
 * For an angle, with sigma = 2 a'.b', kappa = 2 c'.d' (independent of q):
 *   g = (C dS - S dC) / r2,  theta' = (C S' - S C') / r2,  r2 = S^2 + C^2.
 * These are the quantities row_sc's directional derivatives give (sc_dot,
 * sc_angle), without evaluating the vectors again for every direction. */
typedef struct {
  int angle, w, nd;
  double X[4][3 * 2 * LW_MAXQB];
  double S, C, Sd, Cd, sig, kap, r2, x, xd;
  double gS[2 * LW_MAXQB], gC[2 * LW_MAXQB], hS[2 * LW_MAXQB], hC[2 * LW_MAXQB]; /* dS, dC, dS', dC' by q */
  double g[2 * LW_MAXQB], gd[2 * LW_MAXQB];
} sx;

/* one dot product a.b of vectors linear in q (matrices A, B by columns of
 * the w local coordinates): value, rate, 2 a'.b', its gradient g and the
 * gradient h of its rate */
static void sx_pair(int nd, int w, const double *A, const double *B, const double *a, const double *b,
                    const double *ad, const double *bd, double *val, double *rate, double *acc, double *g, double *h)
{
  *val = dot(nd, a, b);
  *rate = dot(nd, ad, b) + dot(nd, a, bd);
  *acc = 2.0 * dot(nd, ad, bd);
  for (int i = 0; i < w; i++) {
    double s0 = 0, s1 = 0;
    for (int c = 0; c < nd; c++) {
      s0 += A[c * w + i] * b[c] + B[c * w + i] * a[c];
      s1 += A[c * w + i] * bd[c] + B[c * w + i] * ad[c];
    }
    g[i] = s0, h[i] = s1;
  }
}

static void sx_eval(const lw_model *m, lw_row_kind kind, const lw_vexpr *const ve[4], int nblk, const int *blk,
                    const double *q, const double *qd, sx *o)
{
  int nd = m->nd, n = kind == LW_ROW_ANGLE ? 4 : 2, w = lw_loc_width(m, nblk, blk, m->nqb);
  double v[4][3], vd[4][3];
  o->angle = kind == LW_ROW_ANGLE;
  o->w = w;
  o->nd = nd;
  for (int k = 0; k < n; k++) {
    lw_vexpr_matrix(m, ve[k], nblk, blk, o->X[k]);
    lw_vexpr_eval(m, ve[k], q, v[k]);
    lw_vexpr_eval_lin(m, ve[k], qd, vd[k]);
  }
  sx_pair(nd, w, o->X[0], o->X[1], v[0], v[1], vd[0], vd[1], &o->S, &o->Sd, &o->sig, o->gS, o->hS);
  if (!o->angle) {
    o->x = o->S, o->xd = o->Sd;
    memcpy(o->g, o->gS, sizeof(double) * (size_t)w);
    memcpy(o->gd, o->hS, sizeof(double) * (size_t)w);
    return;
  }
  sx_pair(nd, w, o->X[2], o->X[3], v[2], v[3], vd[2], vd[3], &o->C, &o->Cd, &o->kap, o->gC, o->hC);
  double S = o->S, C = o->C, r2 = o->r2 = S * S + C * C;
  o->x = atan2(S, C);
  o->xd = (C * o->Sd - S * o->Cd) / r2;
  for (int i = 0; i < w; i++)
    o->g[i] = (C * o->gS[i] - S * o->gC[i]) / r2;
  for (int i = 0; i < w; i++) {
    double dr2 = 2.0 * (S * o->gS[i] + C * o->gC[i]);
    o->gd[i] = (o->gC[i] * o->Sd + C * o->hS[i] - o->gS[i] * o->Cd - S * o->hC[i]) / r2 - o->xd * dr2 / r2;
  }
}

/* d2x / dq_j dq_i */
static double sx_hess(const sx *o, int j, int i)
{
  int w = o->w;
  double HS = 0, HC = 0;
  for (int c = 0; c < o->nd; c++) {
    HS += o->X[0][c * w + j] * o->X[1][c * w + i] + o->X[1][c * w + j] * o->X[0][c * w + i];
    if (o->angle)
      HC += o->X[2][c * w + j] * o->X[3][c * w + i] + o->X[3][c * w + j] * o->X[2][c * w + i];
  }
  if (!o->angle)
    return HS;
  double dr2 = 2.0 * (o->S * o->gS[i] + o->C * o->gC[i]);
  return (o->gC[i] * o->gS[j] + o->C * HS - o->gS[i] * o->gC[j] - o->S * HC) / o->r2 - o->g[j] * dr2 / o->r2;
}

/* An angle row: its Hessian into H[k] (times the multipliers), the
 * derivatives of theta' by q (rv) and of gm = theta'' - g.qdd by q (ra,
 * with H qdd) and by qd (rad).  With P = S S' + C C', N = C sigma - S kappa:
 *   gm = N / r2 - 2 theta' P / r2 */
void lw_angle_row_lin(const lw_model *m, const lw_row *row, const lw_lin_point *p, const lw_bmat *const H[3], int r,
                      double *rv, double *ra, double *rad)
{
  int nqb = m->nqb;
  const lw_vexpr *ve[4] = {&row->a, &row->b, &row->c, &row->d};
  sx o;
  sx_eval(m, LW_ROW_ANGLE, ve, row->nblk, row->blk, p->q, p->qd, &o);
  int w = o.w;
  double S = o.S, C = o.C, Sd = o.Sd, Cd = o.Cd, r2 = o.r2, th = o.xd;
  double P = S * Sd + C * Cd, N = C * o.sig - S * o.kap;
  double lk[3];
  for (int k = 0; k < 3; k++)
    lk[k] = H[k] ? p->l[k][r] : 0.0;
  for (int i = 0; i < w; i++) {
    int gi = lw_loc_global(m, row->blk, i, nqb);
    double dr2 = 2.0 * (S * o.gS[i] + C * o.gC[i]);
    /* the Hessian's column i */
    double hq = 0;
    for (int j = 0; j < w; j++) {
      double hji = sx_hess(&o, j, i);
      if (hji == 0.0)
        continue;
      int gj = lw_loc_global(m, row->blk, j, nqb);
      hq += hji * p->qdd[gj];
      for (int k = 0; k < 3; k++)
        if (lk[k] != 0.0)
          bm_add(m, H[k], gj, gi, lk[k] * hji);
    }
    /* by q_i: theta' (o.gd), P, N, gm */
    double dth = o.gd[i];
    double dP = o.gS[i] * Sd + S * o.hS[i] + o.gC[i] * Cd + C * o.hC[i];
    double dN = o.gC[i] * o.sig - o.gS[i] * o.kap;
    double dgm = dN / r2 - N * dr2 / (r2 * r2) - 2.0 * (dth * P + th * dP) / r2 + 2.0 * th * P * dr2 / (r2 * r2);
    rv[i] += dth;
    ra[i] += hq + dgm;
    /* by qd_i: S' and C' by dS, dC; sigma, kappa by 2 dS', 2 dC' */
    double dthv = o.g[i], dPv = S * o.gS[i] + C * o.gC[i], dNv = 2.0 * (C * o.hS[i] - S * o.hC[i]);
    rad[i] += dNv / r2 - 2.0 * (dthv * P + th * dPv) / r2;
  }
}

/* A spring-damper's blocks over the w local coordinates of the bodies blk,
 * from the gradient g = u[0] of its scalar x (a length, an angle) and
 * generalized force Q = tau g:
 *   KC = -dQ/dq - cv dQ/dv = sum_k u[k] v[k]^T - tau H,  C = -dQ/dv = c g g^T
 * (entry (j, i) = row j, column i; nv outer products, v[0] = k g + c gd +
 * cv c g and the rest of the Hessian's terms; H: column i at H + i w, or
 * NULL, read with KC only) */
LW_KERNEL void sd_blocks(const lw_model *m, const lw_force *f, int nblk, const int *blk, int w, int nv,
                         const double *const u[], const double *const v[], const double *H, double tau,
                         const lw_bmat *KC, const lw_bmat *Cm, const int N)
{
  const double *g = u[0];
  double cc = Cm ? f->c : 0.0;
  for (int kb = 0; kb < nblk; kb++)
    for (int lb = 0; lb < nblk; lb++) {
      int ldk = 0, ldc = 0;
      double *pk = KC ? bm_part(m, KC, blk[lb], blk[kb], &ldk) : NULL;
      double *pc = cc != 0.0 ? bm_part(m, Cm, blk[lb], blk[kb], &ldc) : NULL;
      const int nk = lw_bn(m, blk[kb], N), nl = lw_bn(m, blk[lb], N);
      const int ok = lw_loc(m, blk, kb, N), ol = lw_loc(m, blk, lb, N);
      for (int ii = 0; ii < nk; ii++) {
        int i = ok + ii;
        double v0 = v[0][i], v1 = nv > 1 ? v[1][i] : 0.0, v2 = nv > 2 ? v[2][i] : 0.0;
        for (int jj = 0; jj < nl && pk; jj++) {
          int j = ol + jj;
          double a = u[0][j] * v0;
          if (nv > 1)
            a += u[1][j] * v1 + u[2][j] * v2;
          if (H)
            a -= tau * H[i * w + j];
          pk[ii * ldk + jj] += a;
        }
        for (int jj = 0; jj < nl && pc; jj++)
          pc[ii * ldc + jj] += cc * g[ol + jj] * g[i];
      }
    }
}

/* A joint spring-damper, tau = -k (x - x0) - c x' (x' at the forces'
 * velocity argument v), acting as Q = tau g: -dQ/dq = -g a^T - tau H with
 * a = k g + c (gd + cv g), H = d2x/dq2.  For an angle x = atan2(S, C),
 *   H = (gC gS^T - gS gC^T + C HS - S HC) / r2 - dr2 g^T / r2
 * (rows i; dr2 = 2 (S gS + C gC)), HS and HC constant (m->ch_v): the
 * outer products go through sd_blocks, the constant parts from their
 * nonzeros */
void lw_joint_sd_lin(const lw_model *m, const lw_data *d, const lw_force *f, const lw_lin_point *p, double cv,
                     const lw_bmat *KC, const lw_bmat *Cm)
{
  const lw_coord *c = &m->coords[f->coord];
  const lw_vexpr *ve[4] = {&c->a, &c->b, &c->c, &c->d};
  sx o;
  sx_eval(m, c->kind, ve, c->nblk, c->blk, p->q, p->v, &o);
  double x = lw_coord_continue(m, d, f->coord, o.x - c->offset);
  double tau = -f->k * (x - f->rest) - f->c * o.xd;
  int w = o.w, nqb = m->nqb;
  double a[2 * LW_MAXQB], b[2 * LW_MAXQB], e[2 * LW_MAXQB];
  for (int i = 0; i < w; i++)
    a[i] = f->k * o.g[i] + f->c * o.gd[i] + cv * f->c * o.g[i];
  double cs = -tau, cc = 0.0;
  if (o.angle) {
    double r2 = o.r2;
    for (int i = 0; i < w; i++) {
      a[i] += tau * 2.0 * (o.S * o.gS[i] + o.C * o.gC[i]) / r2;
      b[i] = -tau * o.gC[i] / r2;
      e[i] = tau * o.gS[i] / r2;
    }
    cs = -tau * o.C / r2;
    cc = tau * o.S / r2;
  }
  const double *u[3] = {o.g, o.gS, o.gC}, *v[3] = {a, b, e};
  sd_blocks(m, f, c->nblk, c->blk, w, o.angle ? 3 : 1, u, v, NULL, tau, KC, Cm, m->nqb);
  if (!KC)
    return;
  for (int n = m->ch_ptr[f->coord]; n < m->ch_ptr[f->coord + 1]; n++) {
    int i = m->ch_ij[2 * n], j = m->ch_ij[2 * n + 1];
    int gi = lw_loc_global(m, c->blk, i, nqb), gj = lw_loc_global(m, c->blk, j, nqb);
    bm_add(m, KC, gj, gi, cs * m->ch_v[2 * n] + cc * m->ch_v[2 * n + 1]);
  }
}

/* A spring-damper between two points, F = k (l - l0) + c l' along
 * e = v / l, l = |v|, v linear in q (V over the local coordinates), acting
 * as Q = -F g with g = dl/dq = V^T e: sd_blocks with tau = -F,
 *   H = d2l/dq2 = V^T (I - e e^T) V / l,  d(l')/dq = V^T (I - e e^T) v' / l */
LW_KERNEL void point_sd_lin_n(const lw_model *m, const lw_force *f, const lw_lin_point *p, double cv,
                              const lw_bmat *KC, const lw_bmat *Cm, const int nd, const int nqb, const int w)
{
  double X[3 * 2 * LW_MAXQB], PX[3 * 2 * LW_MAXQB], v[3], vd[3], e[3], pv[3];
  lw_vexpr_matrix(m, &f->v, f->nblk, f->blk, X);
  lw_vexpr_eval(m, &f->v, p->q, v);
  lw_vexpr_eval_lin(m, &f->v, p->v, vd);
  double l = sqrt(dot(nd, v, v));
  if (l < 1e-300)
    return; /* as the force itself (lw_forces_eval) */
  for (int c = 0; c < nd; c++)
    e[c] = v[c] / l;
  double ld = dot(nd, e, vd);
  for (int c = 0; c < nd; c++)
    pv[c] = (vd[c] - e[c] * ld) / l;
  double g[2 * LW_MAXQB], gd[2 * LW_MAXQB];
  for (int i = 0; i < w; i++) {
    double s0 = 0, s1 = 0;
    for (int c = 0; c < nd; c++) {
      s0 += X[c * w + i] * e[c];
      s1 += X[c * w + i] * pv[c];
    }
    g[i] = s0, gd[i] = s1;
    for (int c = 0; c < nd; c++)
      PX[c * w + i] = (X[c * w + i] - e[c] * s0) / l;
  }
  double tau = -(f->k * (l - f->rest) + f->c * ld), H[4 * LW_MAXQB * LW_MAXQB];
  for (int i = 0; i < w && KC; i++)
    for (int j = 0; j < w; j++) {
      double hji = 0;
      for (int c = 0; c < nd; c++)
        hji += X[c * w + j] * PX[c * w + i];
      H[i * w + j] = hji;
    }
  double a[2 * LW_MAXQB];
  for (int i = 0; i < w; i++)
    a[i] = f->k * g[i] + f->c * gd[i] + cv * f->c * g[i];
  const double *gu[1] = {g}, *av[1] = {a};
  sd_blocks(m, f, f->nblk, f->blk, w, 1, gu, av, H, tau, KC, Cm, nqb);
}

/* the sizes constants for a planar or spatial spring between one or two
 * bodies, so that the loops over them unroll */
void lw_point_sd_lin(const lw_model *m, const lw_data *d, const lw_force *f, const lw_lin_point *p, double cv,
                     const lw_bmat *KC, const lw_bmat *Cm)
{
  (void)d;
  int nd = m->nd, nqb = m->nqb, w = lw_loc_width(m, f->nblk, f->blk, nqb);
  if (nqb == 4 && w == 8)
    point_sd_lin_n(m, f, p, cv, KC, Cm, 2, 4, 8);
  else if (nqb == 4 && w == 4)
    point_sd_lin_n(m, f, p, cv, KC, Cm, 2, 4, 4);
  else if (nqb == 12 && w == 24)
    point_sd_lin_n(m, f, p, cv, KC, Cm, 3, 12, 24);
  else if (nqb == 12 && w == 12)
    point_sd_lin_n(m, f, p, cv, KC, Cm, 3, 12, 12);
  else
    point_sd_lin_n(m, f, p, cv, KC, Cm, nd, nqb, w);
}

/* a DOT row's step blocks from its constant Hessian (m->rh_v) */
void lw_dot_row_lin(const lw_model *m, const lw_row *row, const lw_lin_point *p, const lw_bmat *const H[3], int r,
                    double *rv, double *ra, double *rad)
{
  int nqb = m->nqb, w = lw_loc_width(m, row->nblk, row->blk, nqb);
  /* the constant Hessian: the global index of each local coordinate,
   * and the multipliers */
  int gidx[2 * LW_MAXQB];
  if (nqb)
    for (int i = 0; i < w; i++)
      gidx[i] = row->blk[lw_qb_div(i, nqb)] * nqb + lw_qb_mod(i, nqb);
  else
    for (int i = 0; i < w; i++)
      gidx[i] = lw_loc_global(m, row->blk, i, 0);
  double lk[3];
  for (int k = 0; k < 3; k++)
    lk[k] = H[k] ? p->l[k][r] : 0.0;
  for (int n = m->rh_ptr[r]; n < m->rh_ptr[r + 1]; n++) {
    int i = m->rh_ij[2 * n], j = m->rh_ij[2 * n + 1], gi = gidx[i], gj = gidx[j];
    double h = m->rh_v[n];
    /* d(g . x)/dq = H x; gamma = qd^T H qd: d gamma / d qd = 2 H qd */
    double hv = h * p->qd[gj];
    rv[i] += hv;
    ra[i] += h * p->qdd[gj];
    rad[i] += 2.0 * hv;
    for (int k = 0; k < 3; k++)
      if (lk[k] != 0.0)
        bm_add(m, H[k], gj, gi, lk[k] * h);
  }
}

void lw_lin_blocks(const lw_model *m, lw_data *d, const lw_lin_point *p, double cv, const lw_bmat *const H[3],
                   double *RV, double *RA, double *RAd, const lw_bmat *KC, const lw_bmat *C)
{
  lw_lin_blocks_dirs(m, d, p, cv, H, RV, RA, RAd, KC, C, NULL, NULL);
}

void lw_lin_blocks_dirs(const lw_model *m, lw_data *d, const lw_lin_point *p, double cv,
                        const lw_bmat *const H[3], double *RV, double *RA, double *RAd, const lw_bmat *KC,
                        const lw_bmat *C, const int *fd_ptr, const int *fd_q)
{
  int nq = m->nq, nqb = m->nqb, w2 = m->wrow;
  double *e = d->r; /* unit directions */
  memset(e, 0, sizeof(double) * (size_t)nq);
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    double *rv = RV + (size_t)r * w2, *ra = RA + (size_t)r * w2, *rad = RAd + (size_t)r * w2;
    lw_row_kind_of(row->kind)->lin(m, row, p, H, r, rv, ra, rad);
  }
  /* forces */
  lw_lin_point pf = *p;
  pf.qd = p->v;
  double *dQ = d->dq;
  memset(dQ, 0, sizeof(double) * (size_t)nq);
  double *ev = d->tmp;
  memset(ev, 0, sizeof(double) * (size_t)nq);
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    const lw_force_kind *kind = lw_force_kind_of(f->type);
    if (d->force_off[n])
      continue;
    const int *blk;
    int nblk = kind->blocks(m, f, &blk);
    if (kind->lin) {
      kind->lin(m, d, f, p, cv, KC, C);
      continue;
    }
    /* its directions: the listed ones, else every coordinate of its blocks */
    const int *dirs = fd_ptr ? fd_q + fd_ptr[n] : NULL;
    int ndir = fd_ptr ? fd_ptr[n + 1] - fd_ptr[n] : lw_loc_width(m, nblk, blk, nqb);
    for (int i = 0; i < ndir; i++) {
      int gi = dirs ? dirs[i] : lw_loc_global(m, blk, i, nqb);
      for (int pass = 0; pass < 2; pass++) {
        /* pass 0: dq = e, dv = cv e (KC); pass 1: dv = e (C) */
        const lw_bmat *T = pass == 0 ? KC : C;
        if (!T)
          continue;
        e[gi] = pass == 0 ? 1.0 : 0.0;
        ev[gi] = pass == 0 ? cv : 1.0;
        lw_lin_dir dir = {pass == 0 ? e : NULL, ev, NULL, NULL, NULL, NULL, lw_body_of(m, gi)};
        lw_lin_dir df = dir;
        df.dqd = ev;
        kind->jvp(m, d, n, p, &pf, &dir, &df, 1, dQ);
        for (int k = 0; k < nblk; k++)
          for (int l = 0; l < m->blk_n[blk[k]]; l++) {
            int g = m->blk_off[blk[k]] + l;
            bm_add(m, T, g, gi, -dQ[g]);
            dQ[g] = 0.0;
          }
        e[gi] = 0.0;
        ev[gi] = 0.0;
      }
    }
  }
}

/* the dense form (column-major, leading dimensions given), accumulated:
 *   H[k] (nq x nq): sum_r l_k[r] d2 Phi_r / dq2, k = 0, 1, 2 (NULL: skip)
 *   RV (nc x nq): d(J qd + Phi_t)/dq,  RA: d(J qdd + gamma)/dq,  RAd: d gamma / d qd
 *   KC (nq x nq): -dQ/dq - cv dQ/dv,   C: -dQ/dv */
int lw_lin_matrices(const lw_model *m, lw_data *d, const lw_lin_point *p, double cv, double *const H[3], int ldh,
                    double *RV, double *RA, double *RAd, int ldr, double *KC, int ldk, double *C, int ldc)
{
  int nq = m->nq, nc = m->nc, w2 = m->wrow;
  size_t nblk = m->mblk_off[m->nb], nrow = (size_t)nc * w2;
  /* five matrices of blocks and entries between bodies, three of rows */
  double *mem = calloc(5 * (nblk + (size_t)nq * nq) + 3 * nrow + 1, sizeof(double));
  if (!mem)
    return -1;
  lw_bmat B[5];
  for (int k = 0; k < 5; k++)
    B[k] = (lw_bmat){mem + k * (nblk + (size_t)nq * nq), mem + k * (nblk + (size_t)nq * nq) + nblk};
  double *R = mem + 5 * (nblk + (size_t)nq * nq);
  const lw_bmat *Hb[3] = {H[0] ? &B[0] : NULL, H[1] ? &B[1] : NULL, H[2] ? &B[2] : NULL};
  lw_lin_blocks(m, d, p, cv, Hb, R, R + nrow, R + 2 * nrow, KC ? &B[3] : NULL, C ? &B[4] : NULL);
  double *const out[5] = {H[0], H[1], H[2], KC, C};
  const int ld[5] = {ldh, ldh, ldh, ldk, ldc};
  for (int k = 0; k < 5; k++) {
    if (!out[k])
      continue;
    for (int j = 0; j < nq; j++)
      for (int i = 0; i < nq; i++) {
        int bi = lw_body_of(m, i), oi = m->blk_off[bi];
        double v = bi == lw_body_of(m, j)
                       ? B[k].blk[m->mblk_off[bi] + (size_t)(j - oi) * m->blk_n[bi] + (i - oi)]
                       : B[k].off[(size_t)j * nq + i];
        out[k][(size_t)j * ld[k] + i] += v;
      }
  }
  double *const rout[3] = {RV, RA, RAd};
  for (int k = 0; k < 3; k++)
    for (int r = 0; r < nc; r++) {
      const lw_row *row = &m->rows[r];
      for (int i = 0; i < lw_loc_width(m, row->nblk, row->blk, 0); i++)
        rout[k][(size_t)lw_loc_global(m, row->blk, i, 0) * ldr + r] += R[k * nrow + (size_t)r * w2 + i];
    }
  free(mem);
  return 0;
}


/* y += M' x with the tangent mass blocks */
LW_KERNEL void tangent_mass_mul_n(const lw_model *m, const lw_tangent *tg, int k, const double *const *x,
                                   double *const *y, const int N)
{
  for (int b = 0; b < m->nb; b++) {
    if (!tg->body_on[b])
      continue;
    const int nqb = lw_bn(m, b, N);
    const double *M = tg->dm->mass_blocks + lw_mboff(m, b, N);
    for (int v = 0; v < k; v++) {
      const double *xb = x[v] + lw_boff(m, b, N);
      double *yb = y[v] + lw_boff(m, b, N);
      for (int j = 0; j < nqb; j++)
        for (int i = 0; i < nqb; i++)
          yb[i] += M[j * nqb + i] * xb[j];
    }
  }
}

/* y[v] += dM x[v] for the k vectors x[v] (dM: the tangent's mass blocks;
 * each block is loaded once for them all) */
void lw_tangent_mass_mul_k(const lw_model *m, const lw_tangent *tg, int k, const double *const *x,
                           double *const *y)
{
#define CALL(N) tangent_mass_mul_n(m, tg, k, x, y, N)
  LW_FOR_NQB(m->nqb, CALL);
#undef CALL
}

void lw_tangent_mass_mul(const lw_model *m, const lw_tangent *tg, const double *x, double *y)
{
  lw_tangent_mass_mul_k(m, tg, 1, &x, &y);
}

/* ---- outputs ---------------------------------------------------------------- */
void lw_output_jvp(const lw_model *m, lw_data *d, const lw_tangent *tg, int k, const lw_lin_point *p,
                   const lw_lin_dir *dir, double *dy)
{
  const lw_model *tm = tg ? tg->dm : NULL;
  const lw_output *op = &m->outputs[k];
  int nd = m->nd, nq = m->nq;
  for (int i = 0; i < op->width; i++)
    dy[i] = 0;
  switch (op->type) {
  case LW_OUT_POSITION:
  case LW_OUT_VELOCITY:
  case LW_OUT_ACCELERATION: {
    const double *x = op->type == LW_OUT_POSITION ? p->q : op->type == LW_OUT_VELOCITY ? p->qd : p->qdd;
    const double *dx = op->type == LW_OUT_POSITION ? dir->dq : op->type == LW_OUT_VELOCITY ? dir->dqd : dir->dqdd;
    double y[3], d3[3];
    vx_jvp(m, &op->v, tm ? &tm->outputs[k].v : NULL, x, dx, op->type != LW_OUT_POSITION, y, d3);
    for (int i = 0; i < nd; i++)
      dy[i] = d3[i];
    break;
  }
  case LW_OUT_JOINT_COORDINATE:
  case LW_OUT_JOINT_VELOCITY:
  case LW_OUT_BODY_ANGLE: {
    sc s;
    coord_sc_need(m, tm, op->coord, p, dir, LW_SC_VALUES, &s);
    dy[0] = op->type == LW_OUT_JOINT_VELOCITY ? s.dr : s.dv;
    break;
  }
  case LW_OUT_REACTION_FORCE: {
    int b = op->rbody;
    double sgn = op->rsign;
    lw_lin_point pr = *p;
    pr.qd = NULL;
    for (int r = m->joint_row0[op->joint]; r < m->joint_row0[op->joint + 1]; r++) {
      const lw_row *row = &m->rows[r];
      sc s;
      row_sc(m, tm, r, &pr, dir, 1, &s);
      for (int kb = 0; kb < row->nblk; kb++)
        if (row->blk[kb] == b)
          for (int i = 0; i < nd; i++)
            dy[i] -= sgn * (s.dg[lw_loc(m, row->blk, kb, 0) + i] * p->l[0][r] +
                            (dir->dl ? s.g[lw_loc(m, row->blk, kb, 0) + i] * dir->dl[r] : 0.0));
    }
    break;
  }
  case LW_OUT_SPRING_LENGTH:
  case LW_OUT_SPRING_FORCE: {
    const lw_force *f = &m->forces[op->force];
    const lw_force *tf = tm ? &tm->forces[op->force] : NULL;
    double x, dx, xd, dxd;
    lw_force_kind_of(f->type)->state_jvp(m, tm, d, op->force, p, dir, &x, &dx, &xd, &dxd);
    if (op->type == LW_OUT_SPRING_LENGTH) {
      dy[0] = dx;
      break;
    }
    /* F = k (x - x0) + c xd */
    dy[0] = f->k * dx + f->c * dxd;
    if (tf)
      dy[0] += tf->k * (x - f->rest) - f->k * tf->rest + tf->c * xd;
    break;
  }
  case LW_OUT_CONTROL: {
    double tau;
    lw_lin_dir dc = *dir;
    dc.tg = tg;
    lw_control_jvp(m, d, op->force, p, &dc, &tau, &dy[0]);
    break;
  }
  case LW_OUT_KINETIC_ENERGY:
  case LW_OUT_POTENTIAL_ENERGY:
  case LW_OUT_TOTAL_ENERGY: {
    double s = 0;
    if (op->type != LW_OUT_POTENTIAL_ENERGY) {
      if (dir->dqd) {
        lw_mass_mul(m, dir->dqd, d->r);
        s += dot(nq, p->qd, d->r);
      }
      if (tg) {
        memset(d->r, 0, sizeof(double) * (size_t)nq);
        lw_tangent_mass_mul(m, tg, p->qd, d->r);
        s += 0.5 * dot(nq, p->qd, d->r);
      }
    }
    if (op->type != LW_OUT_KINETIC_ENERGY) {
      if (dir->dq)
        s -= dot(nq, m->qgrav, dir->dq);
      if (tm)
        s -= dot(nq, tm->qgrav, p->q);
      for (int n = 0; n < m->nforces; n++) {
        const lw_force *f = &m->forces[n];
        const lw_force_kind *k = lw_force_kind_of(f->type);
        if (k->energy_jvp && !d->force_off[n])
          k->energy_jvp(m, tm, d, n, p, dir, &s);
      }
    }
    dy[0] = s;
    break;
  }
  case LW_OUT_DISSIPATED_ENERGY:
  case LW_OUT_APPLIED_WORK:
  case LW_OUT_ENERGY_BALANCE:
    dy[0] = NAN; /* an integral over the run: not differentiated (objectives refuse it) */
    break;
  case LW_OUT_BEAM_STRAIN:
  case LW_OUT_BEAM_FORCE:
  case LW_OUT_BEAM_CURVATURE:
  case LW_OUT_BEAM_MOMENT:
  case LW_OUT_BEAM_DEFLECTION:
  case LW_OUT_BEAM_ENERGY:
    lw_beam_output(m, d, k, p->q, dir->dq, tm, &dy[0]);
    break;
  default:
    break;
  }
}
