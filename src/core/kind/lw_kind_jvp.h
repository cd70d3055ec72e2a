/* lw_kind_jvp.h: the directional-derivative helpers that lw_jvp.c and the
 * element kinds (src/core/kind) share: time-function tangents, vectors
 * linear in q, dot and angle scalars with their derivatives (sc), block
 * accumulation and the test whether an element can contribute along a
 * direction.  Inline so that each user keeps the code it had when they were
 * private to lw_jvp.c. */
#ifndef LW_KIND_JVP_H
#define LW_KIND_JVP_H

#include "lw_internal.h"
#include "compile/lw_vexpr.h"
#include "dyn/lw_forces.h"
#include "model/lw_desc.h"
#include "lw_kind.h"

#include <math.h>
#include <string.h>

static inline double dot(int n, const double *a, const double *b)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* a time function's derivative along the tangent: kind 1 force, 2 driver */
static inline void func_tan(const lw_tangent *tg, int kind, int idx, const lw_func *f, const lw_func *tf, double t,
                     double *v, double *dv, double *ddv)
{
  if (tg->fn_kind) {
    double a = 0, b = 0, c = 0;
    if (tg->fn_kind == kind && tg->fn_index == idx && tg->fn_coef == LW_FN_TIME)
      lw_func_time_tangent(f, t, &a, &b, &c);
    else if (tg->fn_kind == kind && tg->fn_index == idx)
      lw_func_coef_tangent(f, tg->fn_coef, t, &a, &b, &c);
    if (v) *v = tg->fn_scale * a;
    if (dv) *dv = tg->fn_scale * b;
    if (ddv) *ddv = tg->fn_scale * c;
    return;
  }
  lw_func_tangent(f, tf, t, v, dv, ddv);
}

/* a vector linear in q at x and its derivative along dx (NULL: 0) and the
 * tangent vexpr te (NULL: none); lin = 1 for rates (no constant term) */
static inline void vx_jvp(const lw_model *m, const lw_vexpr *e, const lw_vexpr *te, const double *x,
                   const double *dx, int lin, double *v, double *dv)
{
  double t[3];
  if (lin)
    lw_vexpr_eval_lin(m, e, x, v);
  else
    lw_vexpr_eval(m, e, x, v);
  dv[0] = dv[1] = dv[2] = 0.0;
  if (dx)
    lw_vexpr_eval_lin(m, e, dx, dv);
  if (te) {
    if (lin)
      lw_vexpr_eval_lin(m, te, x, t);
    else
      lw_vexpr_eval(m, te, x, t);
    for (int i = 0; i < m->nd; i++)
      dv[i] += t[i];
  }
}

/* ---- scalars built from vectors linear in q --------------------------------
 * sc: value v, gradient g (local blocks), rate r = g.qd, second-order term
 * gm (so that d2/dt2 = g.qdd + gm), and their directional derivatives. */
typedef struct lw_sc {
  double v, dv, r, dr, gm, dgm;
  double g[2 * LW_MAXQB], dg[2 * LW_MAXQB];
} sc;

/* need_g of sc_eval for a scalar whose values, rates and their
 * derivatives alone are read (no g, dg) */
#define LW_SC_VALUES (-1)

/* a.b with a, b linear in q; ta, tb tangent vexprs or NULL */
static inline void sc_dot(const lw_model *m, const lw_vexpr *a, const lw_vexpr *b, const lw_vexpr *ta,
                   const lw_vexpr *tb, int nblk, const int *blk, const lw_lin_point *p,
                   const lw_lin_dir *dir, int need_g, sc *s)
{
  int nd = m->nd, w = m->wrow;
  double va[3], vb[3], dva[3], dvb[3];
  vx_jvp(m, a, ta, p->q, dir->dq, 0, va, dva);
  vx_jvp(m, b, tb, p->q, dir->dq, 0, vb, dvb);
  s->v = dot(nd, va, vb);
  s->dv = dot(nd, dva, vb) + dot(nd, va, dvb);
  if (need_g >= 0) {
    memset(s->g, 0, sizeof(double) * (size_t)w);
    memset(s->dg, 0, sizeof(double) * (size_t)w);
  }
  if (need_g > 0) {
    lw_vexpr_grad(m, a, vb, 1.0, nblk, blk, s->g);
    lw_vexpr_grad(m, b, va, 1.0, nblk, blk, s->g);
  }
  if (need_g >= 0) {
    lw_vexpr_grad(m, a, dvb, 1.0, nblk, blk, s->dg);
    lw_vexpr_grad(m, b, dva, 1.0, nblk, blk, s->dg);
  }
  if (ta && need_g >= 0) {
    lw_vexpr_grad(m, ta, vb, 1.0, nblk, blk, s->dg);
    lw_vexpr_grad(m, tb, va, 1.0, nblk, blk, s->dg);
  }
  s->r = s->dr = s->gm = s->dgm = 0;
  if (!p->qd)
    return;
  double ra[3], rb[3], dra[3], drb[3];
  vx_jvp(m, a, ta, p->qd, dir->dqd, 1, ra, dra);
  vx_jvp(m, b, tb, p->qd, dir->dqd, 1, rb, drb);
  s->r = dot(nd, ra, vb) + dot(nd, va, rb);
  s->dr = dot(nd, dra, vb) + dot(nd, ra, dvb) + dot(nd, dva, rb) + dot(nd, va, drb);
  s->gm = 2.0 * dot(nd, ra, rb);
  s->dgm = 2.0 * (dot(nd, dra, rb) + dot(nd, ra, drb));
}

/* theta = atan2(S, C) from two dot scalars (in place into S); w = 0: no
 * gradients (sc_eval's LW_SC_VALUES) */
static inline void sc_angle(int w, sc *S, const sc *C)
{
  double s = S->v, c = C->v, r2 = s * s + c * c;
  double ds = S->dv, dc = C->dv, dr2 = 2.0 * (s * ds + c * dc);
  double th = atan2(s, c), dth = (c * ds - s * dc) / r2;
  double g[2 * LW_MAXQB], dg[2 * LW_MAXQB];
  for (int i = 0; i < w; i++) {
    g[i] = (c * S->g[i] - s * C->g[i]) / r2;
    dg[i] = (dc * S->g[i] + c * S->dg[i] - ds * C->g[i] - s * C->dg[i]) / r2 - g[i] * dr2 / r2;
  }
  double sd = S->r, cd = C->r, dsd = S->dr, dcd = C->dr;
  double thd = (c * sd - s * cd) / r2;
  double dthd = (dc * sd + c * dsd - ds * cd - s * dcd) / r2 - thd * dr2 / r2;
  double P = s * sd + c * cd, dP = ds * sd + s * dsd + dc * cd + c * dcd;
  double A = c * S->gm - s * C->gm;
  double dA = dc * S->gm + c * S->dgm - ds * C->gm - s * C->dgm;
  double gm = A / r2 - 2.0 * thd * P / r2;
  double dgm = dA / r2 - A * dr2 / (r2 * r2) - 2.0 * (dthd * P + thd * dP) / r2 +
               2.0 * thd * P * dr2 / (r2 * r2);
  S->v = th;
  S->dv = dth;
  memcpy(S->g, g, sizeof(double) * (size_t)w);
  memcpy(S->dg, dg, sizeof(double) * (size_t)w);
  S->r = thd;
  S->dr = dthd;
  S->gm = gm;
  S->dgm = dgm;
}

/* a row or a joint coordinate: kind with vexprs a..d */
/* need_g: s->g is wanted (an angle's derivatives need its dot products'
 * anyway); otherwise it is left 0 */
static inline void sc_eval(const lw_model *m, lw_row_kind kind, const lw_vexpr *const v[4],
                           const lw_vexpr *const tv[4], int nblk, const int *blk, const lw_lin_point *p,
                           const lw_lin_dir *dir, int need_g, sc *s)
{
  lw_row_kind_of(kind)->jvp(m, v, tv, nblk, blk, p, dir, need_g, s);
}

/* joint coordinate ci as a scalar (need_g 1, or LW_SC_VALUES) */
static inline void coord_sc_need(const lw_model *m, const lw_model *tm, int ci, const lw_lin_point *p,
                                 const lw_lin_dir *dir, int need_g, sc *s)
{
  const lw_coord *c = &m->coords[ci];
  const lw_vexpr *v[4] = {&c->a, &c->b, &c->c, &c->d};
  if (tm) {
    const lw_coord *tc = &tm->coords[ci];
    const lw_vexpr *tv[4] = {&tc->a, &tc->b, &tc->c, &tc->d};
    sc_eval(m, c->kind, v, tv, c->nblk, c->blk, p, dir, need_g, s);
    s->dv -= tc->offset;
  } else {
    sc_eval(m, c->kind, v, NULL, c->nblk, c->blk, p, dir, need_g, s);
  }
}

static inline void coord_sc(const lw_model *m, const lw_model *tm, int ci, const lw_lin_point *p,
                     const lw_lin_dir *dir, sc *s)
{
  coord_sc_need(m, tm, ci, p, dir, 1, s);
}

/* x . g over the local blocks */
static inline double blk_dot(const lw_model *m, int nblk, const int *blk, const double *g, const double *x)
{
  double s = 0;
  for (int k = 0, o = 0; k < nblk; o += m->blk_n[blk[k]], k++)
    s += dot(m->blk_n[blk[k]], g + o, x + m->blk_off[blk[k]]);
  return s;
}

static inline void blk_add(const lw_model *m, int nblk, const int *blk, const double *g, double a, double *y)
{
  for (int k = 0, o = 0; k < nblk; o += m->blk_n[blk[k]], k++)
    for (int i = 0; i < m->blk_n[blk[k]]; i++)
      y[m->blk_off[blk[k]] + i] += a * g[o + i];
}

static inline int touches(int nblk, const int *blk, int body)
{
  if (body < 0)
    return 1;
  for (int k = 0; k < nblk; k++)
    if (blk[k] == body)
      return 1;
  return 0;
}

/* whether an element (blocks nblk/blk, tangent flag on) can contribute */
static inline int active(const lw_lin_dir *dir, int state, int nblk, const int *blk, int on)
{
  if (dir->tg && on)
    return 1;
  return state && touches(nblk, blk, dir->body);
}

/* the error e of measured coordinate i and its derivative de along the
 * direction from that coordinate's scalar s there (sc_eval, at least
 * LW_SC_VALUES); ed and ded: the error's rate (position measure) */
static inline void fb_error_of(const lw_model *m, const lw_data *d, int i, int fon, const lw_lin_point *pf,
                               const lw_lin_dir *df, const sc *s, double *e, double *de, double *ed, double *ded)
{
  const lw_tangent *tg = df->tg;
  const lw_fb *b = &m->fbs[i];
  const lw_fb *tb = fon ? &tg->dm->fbs[i] : NULL;
  const lw_coord *c = &m->coords[b->coord];
  double r, rd, dr = 0, drd = 0;
  lw_func_eval(&b->r, pf->t, &r, &rd, NULL);
  if (fon)
    func_tan(tg, 3, i, &b->r, &tb->r, pf->t, &dr, &drd, NULL);
  if (b->rate) {
    *e = s->r - r;
    *de = s->dr - dr;
    *ed = *ded = 0.0;
  } else {
    *e = lw_coord_continue(m, d, b->coord, s->v - c->offset) - r;
    *de = s->dv - dr;
    *ed = s->r - rd;
    *ded = s->dr - drd;
  }
}

/* the error e of measured coordinate i and its derivative de along the
 * direction; ed and ded: the error's rate (position measure) */
static inline void fb_error_jvp(const lw_model *m, const lw_data *d, int i, int fon, const lw_lin_point *pf,
                         const lw_lin_dir *df, double *e, double *de, double *ed, double *ded)
{
  const lw_tangent *tg = df->tg;
  sc s;
  coord_sc_need(m, fon ? tg->dm : NULL, m->fbs[i].coord, pf, df, LW_SC_VALUES, &s);
  fb_error_of(m, d, i, fon, pf, df, &s, e, de, ed, ded);
}

#endif
