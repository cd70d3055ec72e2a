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
#include "lw_internal.h"
#include "lw_rowvec.h"
#include "kind/lw_kind.h"
#include "kind/lw_kind_jvp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- time functions ------------------------------------------------------ */
void lw_func_tangent(const lw_func *f, const lw_func *tf, double t, double *v, double *dv, double *ddv)
{
  if (f->type != LW_FUNC_SINE) {
    /* linear in the coefficients */
    lw_func g = *f;
    if (f->type == LW_FUNC_SPLINE)
      g.knots = tf->knots; /* the times are not parameters */
    else
      memcpy(g.a, tf->a, sizeof g.a);
    lw_func_eval(&g, t, v, dv, ddv);
    return;
  }
  const double *a = f->a, *b = tf->a;
  double ph = a[2] * t + a[3], dph = b[2] * t + b[3];
  double s = sin(ph), c = cos(ph);
  if (v)
    *v = b[0] + b[1] * s + a[1] * c * dph;
  if (dv)
    *dv = (b[1] * a[2] + a[1] * b[2]) * c - a[1] * a[2] * s * dph;
  if (ddv)
    *ddv = -(b[1] * a[2] * a[2] + 2.0 * a[1] * a[2] * b[2]) * s - a[1] * a[2] * a[2] * c * dph;
}

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
  int w = 2 * m->nqb;
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
    if (!force_on || force_on[n])
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

/* the nd x w matrix of a vexpr over the blocks blk (row-major, w = nblk nqb) */
static void vx_matrix(const lw_model *m, const lw_vexpr *e, int nblk, const int *blk, double *A)
{
  int nqb = m->nqb, w = nblk * nqb;
  memset(A, 0, sizeof(double) * (size_t)m->nd * w);
  for (int t = 0; t < e->nterm; t++) {
    int k = 0;
    while (k < nblk && blk[k] != e->body[t])
      k++;
    const double *wt = e->w[t];
    double *a0 = A + k * nqb, *a1 = A + w + k * nqb;
    if (m->nd == 3) {
      double *a2 = A + 2 * w + k * nqb;
      for (int j = 0; j < 4; j++) {
        a0[3 * j] += wt[j];
        a1[3 * j + 1] += wt[j];
        a2[3 * j + 2] += wt[j];
      }
    } else {
      a0[0] += wt[0];
      a1[1] += wt[0];
      a0[2] += wt[1];
      a0[3] -= wt[2];
      a1[3] += wt[1];
      a1[2] += wt[2];
    }
  }
}

/* A bilinear form of q (a row or a coordinate) as hess_table reads it */
typedef struct {
  int skip;  /* no Hessian kept */
  int angle; /* the Hessian of c.d as well (an angle's cosine side) */
  const lw_vexpr *a, *b, *c, *d;
  int nblk;
  const int *blk;
} hform;

static void row_form(const lw_model *m, int k, hform *f)
{
  const lw_row *r = &m->rows[k];
  *f = (hform){!lw_row_kind_of(r->kind)->const_hessian, 0, &r->a, &r->b, &r->c, &r->d, r->nblk, r->blk};
}

static void coord_form(const lw_model *m, int k, hform *f)
{
  const lw_coord *c = &m->coords[k];
  *f = (hform){0, lw_row_kind_of(c->kind)->nvec == 4, &c->a, &c->b, &c->c, &c->d, c->nblk, c->blk};
}

/* The constant Hessians of n bilinear forms over their bodies' coordinates
 * (w = nblk nqb of them): H(a.b) = A^T B + B^T A, and H(c.d) as a second
 * value (nval = 2) for angles.  Form k's entries where a value is nonzero:
 * ptr[k] .. ptr[k + 1], at local coordinates (ij[2e], ij[2e + 1]) with
 * values v[nval e ..].  *cross (when given) is set where an entry couples
 * two bodies.  Counted in a first pass, filled in a second. */
static int hess_table(const lw_model *m, int n, void (*get)(const lw_model *, int, hform *), int nval, int **ptr,
                      int **ij, double **v, int *cross)
{
  int nqb = m->nqb, nd = m->nd;
  double A[3 * 2 * LW_MAXQB], B[3 * 2 * LW_MAXQB], C[3 * 2 * LW_MAXQB], D[3 * 2 * LW_MAXQB];
  *ptr = calloc((size_t)n + 1, sizeof(int));
  if (!*ptr)
    return -1;
  for (int pass = 0; pass < 2; pass++) {
    int e = 0;
    for (int k = 0; k < n; k++) {
      hform f;
      get(m, k, &f);
      if (pass == 0)
        (*ptr)[k] = e;
      if (f.skip)
        continue;
      int w = f.nblk * nqb;
      vx_matrix(m, f.a, f.nblk, f.blk, A);
      vx_matrix(m, f.b, f.nblk, f.blk, B);
      if (f.angle) {
        vx_matrix(m, f.c, f.nblk, f.blk, C);
        vx_matrix(m, f.d, f.nblk, f.blk, D);
      }
      for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
          double h[2] = {0, 0};
          for (int c = 0; c < nd; c++) {
            h[0] += A[c * w + i] * B[c * w + j] + B[c * w + i] * A[c * w + j];
            if (f.angle)
              h[1] += C[c * w + i] * D[c * w + j] + D[c * w + i] * C[c * w + j];
          }
          if (h[0] == 0.0 && h[1] == 0.0)
            continue;
          if (pass) {
            (*ij)[2 * e] = i;
            (*ij)[2 * e + 1] = j;
            for (int l = 0; l < nval; l++)
              (*v)[(size_t)nval * e + l] = h[l];
          } else if (cross && i / nqb != j / nqb) {
            *cross = 1;
          }
          e++;
        }
    }
    if (pass == 0) {
      (*ptr)[n] = e;
      *ij = malloc(sizeof(int) * 2 * ((size_t)e + 1));
      *v = malloc(sizeof(double) * (size_t)nval * ((size_t)e + 1));
      if (!*ij || !*v)
        return -1;
    }
  }
  return 0;
}

/* the DOT rows' and the coordinates' constant Hessians, and whether the
 * step's linearization couples bodies (the cases lw_lin_blocks writes
 * across two) */
int lw_lin_prepare(lw_model *m)
{
  int nqb = m->nqb;
  m->lin_coupled = 0;
  m->rq0 = malloc(sizeof(int) * 2 * ((size_t)m->nc + 1));
  if (!m->rq0)
    return -1;
  for (int r = 0; r < m->nc; r++) {
    for (int k = 0; k < 2; k++)
      m->rq0[2 * r + k] = k < m->rows[r].nblk ? m->rows[r].blk[k] * nqb : -1;
    if (!lw_row_kind_of(m->rows[r].kind)->const_hessian && m->rows[r].nblk > 1)
      m->lin_coupled = 1;
  }
  if (hess_table(m, m->nc, row_form, 1, &m->rh_ptr, &m->rh_ij, &m->rh_v, &m->lin_coupled))
    return -1;
  for (int n = 0; n < m->nforces; n++) {
    const int *blk;
    if (lw_force_blocks(m, &m->forces[n], &blk) > 1)
      m->lin_coupled = 1;
  }
  return hess_table(m, m->ncoords, coord_form, 2, &m->ch_ptr, &m->ch_ij, &m->ch_v, NULL);
}

/* B(gi, gj) += v */
static inline void bm_add(const lw_model *m, const lw_bmat *B, int gi, int gj, double v)
{
  int nqb = m->nqb, bi = lw_qb_div(gi, nqb), bj = lw_qb_div(gj, nqb);
  if (bi == bj)
    B->blk[(size_t)bi * nqb * nqb + (size_t)(lw_qb_mod(gj, nqb)) * nqb + lw_qb_mod(gi, nqb)] += v;
  else
    B->off[(size_t)gj * m->nq + gi] += v; /* present whenever m->lin_coupled (lw_lin_prepare) */
}

/* the part of B in the rows of body br and the columns of body bc:
 * B(br nqb + r, bc nqb + c) = part[c ld + r] */
static inline double *bm_part(const lw_model *m, const lw_bmat *B, int br, int bc, int *ld)
{
  int nqb = m->nqb;
  if (br == bc) {
    *ld = nqb;
    return B->blk + (size_t)br * nqb * nqb;
  }
  *ld = m->nq;
  return B->off + (size_t)bc * nqb * m->nq + (size_t)br * nqb;
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
  int nd = m->nd, n = kind == LW_ROW_ANGLE ? 4 : 2, w = nblk * m->nqb;
  double v[4][3], vd[4][3];
  o->angle = kind == LW_ROW_ANGLE;
  o->w = w;
  o->nd = nd;
  for (int k = 0; k < n; k++) {
    vx_matrix(m, ve[k], nblk, blk, o->X[k]);
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
    int gi = row->blk[lw_qb_div(i, nqb)] * nqb + lw_qb_mod(i, nqb);
    double dr2 = 2.0 * (S * o.gS[i] + C * o.gC[i]);
    /* the Hessian's column i */
    double hq = 0;
    for (int j = 0; j < w; j++) {
      double hji = sx_hess(&o, j, i);
      if (hji == 0.0)
        continue;
      int gj = row->blk[lw_qb_div(j, nqb)] * nqb + lw_qb_mod(j, nqb);
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
LW_KERNEL void sd_blocks(const lw_model *m, const lw_force *f, const int *blk, int w, int nv,
                         const double *const u[], const double *const v[], const double *H, double tau,
                         const lw_bmat *KC, const lw_bmat *Cm, const int nqb)
{
  int nblk = w / nqb;
  const double *g = u[0];
  double cc = Cm ? f->c : 0.0;
  for (int kb = 0; kb < nblk; kb++)
    for (int lb = 0; lb < nblk; lb++) {
      int ldk = 0, ldc = 0;
      double *pk = KC ? bm_part(m, KC, blk[lb], blk[kb], &ldk) : NULL;
      double *pc = cc != 0.0 ? bm_part(m, Cm, blk[lb], blk[kb], &ldc) : NULL;
      for (int ii = 0; ii < nqb; ii++) {
        int i = kb * nqb + ii;
        double v0 = v[0][i], v1 = nv > 1 ? v[1][i] : 0.0, v2 = nv > 2 ? v[2][i] : 0.0;
        for (int jj = 0; jj < nqb && pk; jj++) {
          int j = lb * nqb + jj;
          double a = u[0][j] * v0;
          if (nv > 1)
            a += u[1][j] * v1 + u[2][j] * v2;
          if (H)
            a -= tau * H[i * w + j];
          pk[ii * ldk + jj] += a;
        }
        for (int jj = 0; jj < nqb && pc; jj++)
          pc[ii * ldc + jj] += cc * g[lb * nqb + jj] * g[i];
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
  sd_blocks(m, f, c->blk, w, o.angle ? 3 : 1, u, v, NULL, tau, KC, Cm, m->nqb);
  if (!KC)
    return;
  for (int n = m->ch_ptr[f->coord]; n < m->ch_ptr[f->coord + 1]; n++) {
    int i = m->ch_ij[2 * n], j = m->ch_ij[2 * n + 1];
    int gi = c->blk[lw_qb_div(i, nqb)] * nqb + lw_qb_mod(i, nqb), gj = c->blk[lw_qb_div(j, nqb)] * nqb + lw_qb_mod(j, nqb);
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
  vx_matrix(m, &f->v, f->nblk, f->blk, X);
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
  sd_blocks(m, f, f->blk, w, 1, gu, av, H, tau, KC, Cm, nqb);
}

/* the sizes constants for a planar or spatial spring between one or two
 * bodies, so that the loops over them unroll */
void lw_point_sd_lin(const lw_model *m, const lw_data *d, const lw_force *f, const lw_lin_point *p, double cv,
                     const lw_bmat *KC, const lw_bmat *Cm)
{
  (void)d;
  int nd = m->nd, nqb = m->nqb, w = f->nblk * nqb;
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
  int nqb = m->nqb, w = row->nblk * nqb;
  /* the constant Hessian: the global index of each local coordinate,
   * and the multipliers */
  int gidx[2 * LW_MAXQB];
  for (int i = 0; i < w; i++)
    gidx[i] = row->blk[lw_qb_div(i, nqb)] * nqb + lw_qb_mod(i, nqb);
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
  int nq = m->nq, nqb = m->nqb, w2 = 2 * nqb;
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
    const int *blk;
    int nblk = kind->blocks(m, f, &blk);
    if (kind->lin) {
      kind->lin(m, d, f, p, cv, KC, C);
      continue;
    }
    for (int i = 0; i < nblk * nqb; i++) {
      int gi = blk[lw_qb_div(i, nqb)] * nqb + lw_qb_mod(i, nqb);
      for (int pass = 0; pass < 2; pass++) {
        /* pass 0: dq = e, dv = cv e (KC); pass 1: dv = e (C) */
        const lw_bmat *T = pass == 0 ? KC : C;
        if (!T)
          continue;
        e[gi] = pass == 0 ? 1.0 : 0.0;
        ev[gi] = pass == 0 ? cv : 1.0;
        lw_lin_dir dir = {pass == 0 ? e : NULL, ev, NULL, NULL, NULL, NULL, blk[i / nqb]};
        lw_lin_dir df = dir;
        df.dqd = ev;
        kind->jvp(m, d, n, p, &pf, &dir, &df, 1, dQ);
        for (int k = 0; k < nblk; k++)
          for (int l = 0; l < nqb; l++) {
            int g = blk[k] * nqb + l;
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
  int nq = m->nq, nqb = m->nqb, nc = m->nc, w2 = 2 * nqb;
  size_t nblk = (size_t)m->nb * nqb * nqb, nrow = (size_t)nc * w2;
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
        double v = i / nqb == j / nqb ? B[k].blk[(size_t)(i / nqb) * nqb * nqb + (size_t)(j % nqb) * nqb + i % nqb]
                                      : B[k].off[(size_t)j * nq + i];
        out[k][(size_t)j * ld[k] + i] += v;
      }
  }
  double *const rout[3] = {RV, RA, RAd};
  for (int k = 0; k < 3; k++)
    for (int r = 0; r < nc; r++) {
      const lw_row *row = &m->rows[r];
      for (int i = 0; i < row->nblk * nqb; i++)
        rout[k][(size_t)(row->blk[i / nqb] * nqb + i % nqb) * ldr + r] += R[k * nrow + (size_t)r * w2 + i];
    }
  free(mem);
  return 0;
}

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

/* y += M' x with the tangent mass blocks */
LW_KERNEL void tangent_mass_mul_n(const lw_model *m, const lw_tangent *tg, int k, const double *const *x,
                                   double *const *y, const int nqb)
{
  for (int b = 0; b < m->nb; b++) {
    if (!tg->body_on[b])
      continue;
    const double *M = tg->dm->mass_blocks + (size_t)b * nqb * nqb;
    for (int v = 0; v < k; v++) {
      const double *xb = x[v] + (size_t)b * nqb;
      double *yb = y[v] + (size_t)b * nqb;
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
  int nd = m->nd, nqb = m->nqb, nq = m->nq;
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
  case LW_OUT_JOINT_VELOCITY: {
    sc s;
    coord_sc(m, tm, op->coord, p, dir, &s);
    dy[0] = op->type == LW_OUT_JOINT_COORDINATE ? s.dv : s.dr;
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
            dy[i] -= sgn * (s.dg[kb * nqb + i] * p->l[0][r] +
                            (dir->dl ? s.g[kb * nqb + i] * dir->dl[r] : 0.0));
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
        if (k->energy_jvp)
          k->energy_jvp(m, tm, d, n, p, dir, &s);
      }
    }
    dy[0] = s;
    break;
  }
  case LW_OUT_DISSIPATED_ENERGY:
    dy[0] = NAN; /* an integral over the run: not differentiated (objectives refuse it) */
    break;
  default:
    break;
  }
}

/* ---- tangent models -------------------------------------------------------- */
static int vx_same(const lw_vexpr *a, const lw_vexpr *b)
{
  if (a->nterm != b->nterm)
    return 0;
  for (int t = 0; t < a->nterm; t++)
    if (a->body[t] != b->body[t])
      return 0;
  return 1;
}

static void vx_comb(lw_vexpr *o, const lw_vexpr *const v[4], const double c[4], int *on)
{
  for (int t = 0; t < 2; t++)
    for (int j = 0; j < 4; j++) {
      double s = 0;
      for (int k = 0; k < 4; k++)
        s += c[k] * v[k]->w[t][j];
      o->w[t][j] = s;
      *on |= s != 0.0;
    }
  for (int i = 0; i < 3; i++) {
    double s = 0;
    for (int k = 0; k < 4; k++)
      s += c[k] * v[k]->c[i];
    o->c[i] = s;
    *on |= s != 0.0;
  }
}

static double comb(const double *const x[4], size_t i, const double c[4], int *on)
{
  double s = 0;
  for (int k = 0; k < 4; k++)
    s += c[k] * x[k][i];
  *on |= s != 0.0;
  return s;
}

static void tangent_flags(lw_tangent *t, const lw_model *m);

#define VXS(M, field) {&(M)[0]->field, &(M)[1]->field, &(M)[2]->field, &(M)[3]->field}

/* t = sum_k c_k m_k over every constant a parameter can reach; returns -1
 * when the models differ in structure */
static int combine(lw_tangent *t, lw_model *const mk[4], const double c[4])
{
  lw_model *o = t->dm;
  const lw_model *m = mk[0];
  for (int k = 1; k < 4; k++)
    if (mk[k]->nq != m->nq || mk[k]->nc != m->nc || mk[k]->nforces != m->nforces || mk[k]->nfbs != m->nfbs ||
        mk[k]->ncoords != m->ncoords || mk[k]->nout != m->nout || mk[k]->nterms != m->nterms)
      return -1;
  int nqb = m->nqb;
  for (int b = 0; b < m->nb; b++) {
    int on = 0;
    for (int i = 0; i < nqb * nqb; i++) {
      size_t idx = (size_t)b * nqb * nqb + i;
      const double *x[4] = {mk[0]->mass_blocks, mk[1]->mass_blocks, mk[2]->mass_blocks, mk[3]->mass_blocks};
      o->mass_blocks[idx] = comb(x, idx, c, &on);
    }
    t->body_on[b] = on;
    t->any |= on;
  }
  {
    int on = 0;
    const double *x[4] = {mk[0]->qgrav, mk[1]->qgrav, mk[2]->qgrav, mk[3]->qgrav};
    for (int i = 0; i < m->nq; i++)
      o->qgrav[i] = comb(x, (size_t)i, c, &on);
    t->grav_on = on;
    t->any |= on;
  }
  for (int r = 0; r < m->nc; r++) {
    const lw_row *rs[4] = {&mk[0]->rows[r], &mk[1]->rows[r], &mk[2]->rows[r], &mk[3]->rows[r]};
    lw_row *ro = &o->rows[r];
    int on = 0;
    for (int k = 1; k < 4; k++)
      if (!vx_same(&rs[0]->a, &rs[k]->a) || !vx_same(&rs[0]->b, &rs[k]->b) ||
          !vx_same(&rs[0]->c, &rs[k]->c) || !vx_same(&rs[0]->d, &rs[k]->d) || rs[0]->kind != rs[k]->kind)
        return -1;
    const lw_vexpr *va[4] = {&rs[0]->a, &rs[1]->a, &rs[2]->a, &rs[3]->a};
    const lw_vexpr *vb[4] = {&rs[0]->b, &rs[1]->b, &rs[2]->b, &rs[3]->b};
    const lw_vexpr *vc[4] = {&rs[0]->c, &rs[1]->c, &rs[2]->c, &rs[3]->c};
    const lw_vexpr *vd[4] = {&rs[0]->d, &rs[1]->d, &rs[2]->d, &rs[3]->d};
    int vx_on = 0;
    vx_comb(&ro->a, va, c, &vx_on);
    vx_comb(&ro->b, vb, c, &vx_on);
    vx_comb(&ro->c, vc, c, &vx_on);
    vx_comb(&ro->d, vd, c, &vx_on);
    t->row_vx_on[r] = (char)vx_on;
    on |= vx_on;
    const double *c0[4] = {&rs[0]->c0, &rs[1]->c0, &rs[2]->c0, &rs[3]->c0};
    ro->c0 = comb(c0, 0, c, &on);
    if (rs[0]->func >= 0) {
      int f = rs[0]->func;
      const double *fa[4] = {mk[0]->drivers[f].a, mk[1]->drivers[f].a, mk[2]->drivers[f].a, mk[3]->drivers[f].a};
      for (int i = 0; i < LW_FUNC_MAXCOEF; i++)
        o->drivers[f].a[i] = comb(fa, (size_t)i, c, &on);
      if (m->drivers[f].type == LW_FUNC_SPLINE) {
        const double *fk[4] = {mk[0]->drivers[f].knots, mk[1]->drivers[f].knots, mk[2]->drivers[f].knots,
                               mk[3]->drivers[f].knots};
        for (int i = 0; i < m->drivers[f].n; i++)
          o->drivers[f].knots[i] = comb(fk, (size_t)i, c, &on);
      }
    }
    t->row_on[r] = on;
    t->any |= on;
  }
  for (int i = 0; i < m->ncoords; i++) {
    const lw_coord *cs[4] = {&mk[0]->coords[i], &mk[1]->coords[i], &mk[2]->coords[i], &mk[3]->coords[i]};
    lw_coord *co = &o->coords[i];
    int on = 0;
    for (int k = 1; k < 4; k++)
      if (!vx_same(&cs[0]->a, &cs[k]->a) || !vx_same(&cs[0]->b, &cs[k]->b) ||
          !vx_same(&cs[0]->c, &cs[k]->c) || !vx_same(&cs[0]->d, &cs[k]->d))
        return -1;
    const lw_vexpr *va[4] = {&cs[0]->a, &cs[1]->a, &cs[2]->a, &cs[3]->a};
    const lw_vexpr *vb[4] = {&cs[0]->b, &cs[1]->b, &cs[2]->b, &cs[3]->b};
    const lw_vexpr *vc[4] = {&cs[0]->c, &cs[1]->c, &cs[2]->c, &cs[3]->c};
    const lw_vexpr *vd[4] = {&cs[0]->d, &cs[1]->d, &cs[2]->d, &cs[3]->d};
    vx_comb(&co->a, va, c, &on);
    vx_comb(&co->b, vb, c, &on);
    vx_comb(&co->c, vc, c, &on);
    vx_comb(&co->d, vd, c, &on);
    const double *off[4] = {&cs[0]->offset, &cs[1]->offset, &cs[2]->offset, &cs[3]->offset};
    co->offset = comb(off, 0, c, &on);
    t->coord_on[i] = on;
    t->any |= on;
  }
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *fs[4] = {&mk[0]->forces[n], &mk[1]->forces[n], &mk[2]->forces[n], &mk[3]->forces[n]};
    lw_force *fo = &o->forces[n];
    int on = 0;
    for (int k = 1; k < 4; k++)
      if (!vx_same(&fs[0]->v, &fs[k]->v) || fs[0]->type != fs[k]->type)
        return -1;
    const lw_vexpr *vv[4] = {&fs[0]->v, &fs[1]->v, &fs[2]->v, &fs[3]->v};
    int vx_on = 0;
    vx_comb(&fo->v, vv, c, &vx_on);
    t->force_vx_on[n] = (char)vx_on;
    on |= vx_on;
    const double *kk[4] = {&fs[0]->k, &fs[1]->k, &fs[2]->k, &fs[3]->k};
    const double *cc[4] = {&fs[0]->c, &fs[1]->c, &fs[2]->c, &fs[3]->c};
    const double *rr[4] = {&fs[0]->rest, &fs[1]->rest, &fs[2]->rest, &fs[3]->rest};
    const double *vec[4] = {fs[0]->vec, fs[1]->vec, fs[2]->vec, fs[3]->vec};
    const double *fa[4] = {fs[0]->func.a, fs[1]->func.a, fs[2]->func.a, fs[3]->func.a};
    fo->k = comb(kk, 0, c, &on);
    fo->c = comb(cc, 0, c, &on);
    fo->rest = comb(rr, 0, c, &on);
    for (int i = 0; i < 3; i++)
      fo->vec[i] = comb(vec, (size_t)i, c, &on);
    for (int i = 0; i < LW_FUNC_MAXCOEF; i++)
      fo->func.a[i] = comb(fa, (size_t)i, c, &on);
    if (fs[0]->func.type == LW_FUNC_SPLINE) {
      const double *fk[4] = {fs[0]->func.knots, fs[1]->func.knots, fs[2]->func.knots, fs[3]->func.knots};
      for (int i = 0; i < fs[0]->func.n; i++)
        fo->func.knots[i] = comb(fk, (size_t)i, c, &on);
    }
    if (lw_force_kind_of(fs[0]->type)->on_joint && t->coord_on[fs[0]->coord])
      on = 1; /* and a controller's measures (none for other kinds): */
    {
      for (int k = 0; k < fs[0]->nfb; k++) {
        int i = fs[0]->fb0 + k;
        const lw_fb *bs[4] = {&mk[0]->fbs[i], &mk[1]->fbs[i], &mk[2]->fbs[i], &mk[3]->fbs[i]};
        lw_fb *bo = &o->fbs[i];
        const double *kp[4] = {&bs[0]->kp, &bs[1]->kp, &bs[2]->kp, &bs[3]->kp};
        const double *kd[4] = {&bs[0]->kd, &bs[1]->kd, &bs[2]->kd, &bs[3]->kd};
        const double *ki[4] = {&bs[0]->ki, &bs[1]->ki, &bs[2]->ki, &bs[3]->ki};
        const double *ra[4] = {bs[0]->r.a, bs[1]->r.a, bs[2]->r.a, bs[3]->r.a};
        bo->kp = comb(kp, 0, c, &on);
        bo->kd = comb(kd, 0, c, &on);
        bo->ki = comb(ki, 0, c, &on);
        for (int j = 0; j < LW_FUNC_MAXCOEF; j++)
          bo->r.a[j] = comb(ra, (size_t)j, c, &on);
        if (bs[0]->r.type == LW_FUNC_SPLINE) {
          const double *rk[4] = {bs[0]->r.knots, bs[1]->r.knots, bs[2]->r.knots, bs[3]->r.knots};
          for (int j = 0; j < bs[0]->r.n; j++)
            bo->r.knots[j] = comb(rk, (size_t)j, c, &on);
        }
        if (t->coord_on[bs[0]->coord])
          on = 1;
      }
    }
    t->force_on[n] = on;
    t->any |= on;
  }
  for (int i = 0; i < m->ninit; i++) {
    int on = 0;
    const double *iv[4] = {mk[0]->init_value, mk[1]->init_value, mk[2]->init_value, mk[3]->init_value};
    const double *id[4] = {mk[0]->init_vel, mk[1]->init_vel, mk[2]->init_vel, mk[3]->init_vel};
    o->init_value[i] = comb(iv, (size_t)i, c, &on);
    o->init_vel[i] = comb(id, (size_t)i, c, &on);
    t->any |= on;
    t->init_on |= on;
  }
  for (int k = 0; k < m->nout; k++) {
    int on = 0;
    const lw_vexpr *vv[4] = {&mk[0]->outputs[k].v, &mk[1]->outputs[k].v, &mk[2]->outputs[k].v,
                             &mk[3]->outputs[k].v};
    vx_comb(&o->outputs[k].v, vv, c, &on);
    t->out_on[k] = on;
    t->any |= on;
  }
  for (int k = 0; k < m->nterms; k++) {
    int on = 0;
    const double *wt[4] = {&mk[0]->terms[k].weight, &mk[1]->terms[k].weight, &mk[2]->terms[k].weight,
                           &mk[3]->terms[k].weight};
    const double *tt[4] = {mk[0]->terms[k].target, mk[1]->terms[k].target, mk[2]->terms[k].target,
                           mk[3]->terms[k].target};
    o->terms[k].weight = comb(wt, 0, c, &on);
    for (int i = 0; i < 3; i++)
      o->terms[k].target[i] = comb(tt, (size_t)i, c, &on);
    t->term_on[k] = on;
    t->any |= on;
  }
  return 0;
}

void lw_tangent_free(lw_tangent *t)
{
  if (!t)
    return;
  if (!t->shared_dm)
    lw_model_free(t->dm);
  free(t->row_on);
  free(t->force_on);
  free(t->body_on);
  free(t->coord_on);
  free(t->out_on);
  free(t->term_on);
  free(t->row_vx_on);
  free(t->force_vx_on);
  free(t);
}

/* d(compiled constants)/d(parameter j) by Richardson-extrapolated central
 * differences of the compilation, exact for constants polynomial of degree
 * <= 4 in the field (points, masses, centres of mass, inertia, stiffness,
 * damping, rest lengths, force values, coefficients, weights, targets) up to
 * round-off; other constants (normalized axes) to O(eps^4). */
lw_tangent *lw_tangent_new(const lw_desc *desc, int j, lw_error *err)
{
  lw_desc *dd = lw_desc_copy(desc);
  lw_param_desc *pp = &dd->params[j];
  double v = pp->value;
  double eps = 1e-3 * fmax(fabs(v), 1e-2);
  double off[4] = {eps, -eps, 0.5 * eps, -0.5 * eps};
  lw_model *mk[4] = {NULL, NULL, NULL, NULL};
  lw_tangent *t = NULL;
  for (int k = 0; k < 4; k++) {
    pp->value = v + off[k];
    mk[k] = lw_compile_constants(dd, err);
    if (!mk[k]) {
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg, "%s", err->msg);
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "parameter '%s' cannot be varied around %.17g: %.400s",
                   pp->name, v, msg);
      goto out;
    }
  }
  pp->value = v;
  t = calloc(1, sizeof *t);
  t->dm = lw_compile_constants(dd, err);
  if (!t->dm) {
    free(t);
    t = NULL;
    goto out;
  }
  tangent_flags(t, t->dm);
  /* (4 D(eps/2) - D(eps)) / 3, D(e) = (f(v + e) - f(v - e)) / (2 e) */
  double c[4] = {-1.0 / (6.0 * eps), 1.0 / (6.0 * eps), 4.0 / (3.0 * eps), -4.0 / (3.0 * eps)};
  if (combine(t, mk, c)) {
    lw_set_error(err, LW_ERR_MODEL, "", NAN,
                 "parameter '%s' changes the structure of the model (which bodies a joint or force "
                 "connects); it cannot be differentiated",
                 pp->name);
    lw_tangent_free(t);
    t = NULL;
  }
out:
  for (int k = 0; k < 4; k++)
    lw_model_free(mk[k]);
  lw_desc_free(dd);
  return t;
}

static void tangent_flags(lw_tangent *t, const lw_model *m)
{
  t->row_on = calloc((size_t)m->nc + 1, 1);
  t->force_on = calloc((size_t)m->nforces + 1, 1);
  t->body_on = calloc((size_t)m->nb + 1, 1);
  t->coord_on = calloc((size_t)m->ncoords + 1, 1);
  t->out_on = calloc((size_t)m->nout + 1, 1);
  t->term_on = calloc((size_t)m->nterms + 1, 1);
  t->row_vx_on = calloc((size_t)m->nc + 1, 1);
  t->force_vx_on = calloc((size_t)m->nforces + 1, 1);
}

lw_model *lw_tangent_zero_model(const lw_desc *desc, lw_error *err)
{
  lw_tangent t = {0};
  t.dm = lw_compile_constants(desc, err);
  if (!t.dm)
    return NULL;
  tangent_flags(&t, t.dm);
  lw_model *mk[4] = {t.dm, t.dm, t.dm, t.dm};
  double c[4] = {0, 0, 0, 0};
  combine(&t, mk, c);
  free(t.row_on);
  free(t.force_on);
  free(t.body_on);
  free(t.coord_on);
  free(t.out_on);
  free(t.term_on);
  free(t.row_vx_on);
  free(t.force_vx_on);
  return t.dm;
}

/* "forces/F/function/K" or "drivers/D/function/K": kind, element and K */
static int func_target(const lw_desc *d, const char *path, int *kind, int *idx, int *coef)
{
  const char *list = NULL;
  if (!strncmp(path, "forces/", 7)) {
    *kind = 1;
    list = path + 7;
  } else if (!strncmp(path, "drivers/", 8)) {
    *kind = 2;
    list = path + 8;
  } else {
    return 0;
  }
  const char *sl = strchr(list, '/');
  if (!sl || strncmp(sl, "/function/", 10))
    return 0;
  size_t nl = (size_t)(sl - list);
  char *end = NULL;
  long k = strtol(sl + 10, &end, 10);
  if (!end || *end || end == sl + 10 || k < 0)
    return 0;
  int n = *kind == 1 ? d->nforces : d->ndrivers;
  for (int i = 0; i < n; i++) {
    const char *nm = *kind == 1 ? d->forces[i].name : d->drivers[i].name;
    if (nm && strlen(nm) == nl && !strncmp(nm, list, nl)) {
      const lw_func *f = *kind == 1 ? &d->forces[i].func : &d->drivers[i].func;
      if (k >= lw_func_ncoef(f))
        return 0;
      *idx = i;
      *coef = (int)k;
      return 1;
    }
  }
  return 0;
}

lw_tangent *lw_tangent_new_func(const lw_desc *desc, int j, lw_model *zero)
{
  const lw_param_desc *pp = &desc->params[j];
  int kind = 0, idx = -1, coef = -1;
  if (pp->ntargets < 1)
    return NULL;
  for (int k = 0; k < pp->ntargets; k++) {
    int kd, ix, cf;
    if (!func_target(desc, pp->targets[k], &kd, &ix, &cf))
      return NULL;
    if (k > 0 && (kd != kind || ix != idx || cf != coef))
      return NULL;
    kind = kd;
    idx = ix;
    coef = cf;
  }
  const lw_func *f = kind == 1 ? &desc->forces[idx].func : &desc->drivers[idx].func;
  if (f->type == LW_FUNC_SINE && coef != 0)
    return NULL; /* nonlinear in the coefficient: the general path */
  lw_tangent *t = calloc(1, sizeof *t);
  t->dm = zero;
  t->shared_dm = 1;
  tangent_flags(t, zero);
  t->fn_kind = kind;
  t->fn_index = idx;
  t->fn_coef = coef;
  t->fn_scale = (double)pp->ntargets;
  lw_func_coef_support(f, coef, &t->fn_lo, &t->fn_hi);
  if (kind == 1) {
    t->force_on[idx] = 1;
  } else {
    for (int r = 0; r < zero->nc; r++)
      if (zero->rows[r].owner_kind == LW_OWNER_DRIVER && zero->rows[r].owner == idx)
        t->row_on[r] = 1;
  }
  t->any = 1;
  return t;
}
