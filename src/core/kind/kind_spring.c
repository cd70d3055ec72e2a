/* kind_spring.c: the spring-damper between two body points,
 * F = k (l - l0) + c l' along e = v / l, l = |v|, v = p2 - p1 linear in q,
 * acting as Q = -F g with g = dl/dq = V^T e. */
#include "lw_kind.h"
#include "lw_jvp_internal.h"

#include <stdio.h>

#include <math.h>
#include <string.h>

/* the two points (body1/point1, body2/point2); the vector between them
 * must have a direction at the initial guess */
static int spring_compile(lw_kind_build *b, const lw_force_desc *fd, lw_force *f)
{
  lw_model *m = b->m;
  lw_vexpr P[2];
  for (int k = 0; k < 2; k++) {
    snprintf(b->path, sizeof b->path, "forces/%s/body%d", fd->name, k + 1);
    int body = lw_build_body(b, fd->body[k]);
    if (body == -2)
      return lw_build_fail(b, "force '%s': body%d '%s' does not exist", fd->name, k + 1,
                           fd->body[k] ? fd->body[k] : "(missing)");
    double p[3];
    snprintf(b->path, sizeof b->path, "forces/%s/point%d", fd->name, k + 1);
    if (lw_build_place(b, body, &fd->place[k], p))
      return -1;
    P[k] = lw_build_point(b, body, p);
  }
  if (fd->rest < 0) {
    snprintf(b->path, sizeof b->path, "forces/%s/rest_length", fd->name);
    return lw_build_fail(b, "force '%s': rest length must be nonnegative", fd->name);
  }
  f->v = lw_build_sub(P[1], &P[0]);
  f->p1 = P[0];
  double v[3];
  lw_vexpr_eval(m, &f->v, m->q0, v);
  if (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 1e-12)
    return lw_build_fail(b, "force '%s': the two points coincide; the spring has no direction", fd->name);
  const lw_vexpr *es[1] = {&f->v};
  lw_build_blocks(es, 1, &f->nblk, f->blk);
  return 0;
}

static void spring_eval(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd,
                        double t, double *Q, double *vals, double ks, double cs)
{
  (void)d, (void)t;
  int nd = m->nd;
  double g[2 * LW_MAXQB];
  double v[3], vd[3];
  lw_vexpr_eval(m, &f->v, q, v);
  lw_vexpr_eval_lin(m, &f->v, qd, vd);
  double l = 0;
  for (int i = 0; i < nd; i++)
    l += v[i] * v[i];
  l = sqrt(l);
  if (l < 1e-300)
    return; /* direction undefined; validated at compile, skipped here */
  double e[3];
  for (int i = 0; i < nd; i++)
    e[i] = v[i] / l;
  double ld = 0;
  for (int i = 0; i < nd; i++)
    ld += e[i] * vd[i];
  double F = f->k * (l - f->rest) + f->c * ld;
  memset(g, 0, sizeof g);
  lw_vexpr_grad(m, &f->v, e, 1.0, f->nblk, f->blk, g); /* dl/dq */
  lw_blk_add(m, f->nblk, f->blk, g, -F, Q);
  if (vals && f->nblk > 0)
    lw_mat_add_outer(m, vals, ks * f->k + cs * f->c, f->nblk, f->blk, f->pairpos, g);
}

/* sd_blocks with tau = -F,
 *   H = d2l/dq2 = V^T (I - e e^T) V / l,  d(l')/dq = V^T (I - e e^T) v' / l */
LW_KERNEL void spring_lin_n(const lw_model *m, const lw_force *f, const lw_lin_point *p, double cv,
                            const lw_bmat *KC, const lw_bmat *Cm, const int nd, const int nqb, const int w)
{
  double X[3 * 2 * LW_MAXQB], PX[3 * 2 * LW_MAXQB], v[3], vd[3], e[3], pv[3];
  lw_vx_matrix(m, &f->v, f->nblk, f->blk, X);
  lw_vexpr_eval(m, &f->v, p->q, v);
  lw_vexpr_eval_lin(m, &f->v, p->v, vd);
  double l = sqrt(lw_dot(nd, v, v));
  if (l < 1e-300)
    return; /* as the force itself (spring_eval) */
  for (int c = 0; c < nd; c++)
    e[c] = v[c] / l;
  double ld = lw_dot(nd, e, vd);
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
  lw_sd_blocks(m, f, f->blk, w, 1, gu, av, H, tau, KC, Cm, nqb);
}

/* the sizes constants for a planar or spatial spring between one or two
 * bodies, so that the loops over them unroll */
static void spring_lin(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                       double cv, const lw_bmat *KC, const lw_bmat *Cm)
{
  (void)d, (void)pf;
  const lw_force *f = &m->forces[n];
  int nd = m->nd, nqb = m->nqb, w = f->nblk * nqb;
  if (nqb == 4 && w == 8)
    spring_lin_n(m, f, p, cv, KC, Cm, 2, 4, 8);
  else if (nqb == 4 && w == 4)
    spring_lin_n(m, f, p, cv, KC, Cm, 2, 4, 4);
  else if (nqb == 12 && w == 24)
    spring_lin_n(m, f, p, cv, KC, Cm, 3, 12, 24);
  else if (nqb == 12 && w == 12)
    spring_lin_n(m, f, p, cv, KC, Cm, 3, 12, 12);
  else
    spring_lin_n(m, f, p, cv, KC, Cm, nd, nqb, w);
}

static void spring_jvp(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                       const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ)
{
  (void)d, (void)pf, (void)df;
  int nd = m->nd;
  const lw_tangent *tg = dir->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  int fon = tg && tg->force_on[n];
  if (!lw_dir_active(dir, state, f->nblk, f->blk, fon))
    return;
  double v[3], vd[3], dv[3], dvd[3];
  /* the derivative of the vector itself only where it moves */
  const lw_vexpr *tv = fon && tg->force_vx_on[n] ? &tf->v : NULL;
  lw_vx_jvp(m, &f->v, tv, p->q, dir->dq, 0, v, dv);
  lw_vx_jvp(m, &f->v, tv, p->v, dir->dv, 1, vd, dvd);
  double l = sqrt(lw_dot(nd, v, v));
  if (l < 1e-300)
    return;
  double e[3], de[3];
  for (int i = 0; i < nd; i++)
    e[i] = v[i] / l;
  double dl = lw_dot(nd, e, dv);
  for (int i = 0; i < nd; i++)
    de[i] = (dv[i] - e[i] * dl) / l;
  double ld = lw_dot(nd, e, vd), dld = lw_dot(nd, de, vd) + lw_dot(nd, e, dvd);
  double F = f->k * (l - f->rest) + f->c * ld;
  double dF = f->k * dl + f->c * dld;
  if (fon)
    dF += tf->k * (l - f->rest) - f->k * tf->rest + tf->c * ld;
  /* Q = -F V^T e */
  double g[2 * LW_MAXQB] = {0};
  lw_vexpr_grad(m, &f->v, e, -dF, f->nblk, f->blk, g);
  lw_vexpr_grad(m, &f->v, de, -F, f->nblk, f->blk, g);
  if (tv)
    lw_vexpr_grad(m, tv, e, -F, f->nblk, f->blk, g);
  lw_blk_add(m, f->nblk, f->blk, g, 1.0, dQ);
}

static int spring_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  (void)m;
  *blk = f->blk;
  return f->nblk;
}

static void spring_potential(const lw_model *m, lw_data *d, const lw_force *f, const double *q, double *V)
{
  (void)d;
  double v[3], l = 0;
  lw_vexpr_eval(m, &f->v, q, v);
  for (int i = 0; i < m->nd; i++)
    l += v[i] * v[i];
  l = sqrt(l);
  *V += 0.5 * f->k * (l - f->rest) * (l - f->rest);
}

static void spring_potential_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                                 const lw_lin_dir *dir, double *s)
{
  (void)d;
  int nd = m->nd;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  double v[3], dv[3];
  lw_vx_jvp(m, &f->v, tf ? &tf->v : NULL, p->q, dir->dq, 0, v, dv);
  double l = sqrt(lw_dot(nd, v, v));
  if (l < 1e-300)
    return;
  double dl = lw_dot(nd, v, dv) / l;
  *s += f->k * (l - f->rest) * dl;
  if (tf)
    *s += 0.5 * tf->k * (l - f->rest) * (l - f->rest) - f->k * (l - f->rest) * tf->rest;
}

static void spring_length(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                          double *x, double *xd)
{
  (void)d;
  double v[3], vd[3], l = 0, ld = 0;
  lw_vexpr_eval(m, &f->v, q, v);
  lw_vexpr_eval_lin(m, &f->v, qd, vd);
  for (int i = 0; i < m->nd; i++)
    l += v[i] * v[i];
  l = sqrt(l);
  for (int i = 0; l >= 1e-300 && i < m->nd; i++)
    ld += v[i] * vd[i] / l;
  *x = l;
  *xd = ld;
}

static double spring_damper_power(const lw_model *m, const lw_data *d, const lw_force *f, const double *q,
                                  const double *qd)
{
  if (f->c == 0.0)
    return 0.0;
  double x, xd;
  spring_length(m, d, f, q, qd, &x, &xd);
  return f->c * xd * xd;
}

/* l = |v|, dl/dt = v.vd / l with v = V(q), vd = V_lin(qd) */
static void spring_length_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                              const lw_lin_dir *dir, double *x, double *dx, double *xd, double *dxd)
{
  (void)d;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  int nd = m->nd;
  *x = *dx = *xd = *dxd = 0.0;
  double v[3], dv[3], vd[3] = {0, 0, 0}, dvd[3] = {0, 0, 0};
  lw_vx_jvp(m, &f->v, tf ? &tf->v : NULL, p->q, dir->dq, 0, v, dv);
  if (p->qd)
    lw_vx_jvp(m, &f->v, tf ? &tf->v : NULL, p->qd, dir->dqd, 1, vd, dvd);
  double l = sqrt(lw_dot(nd, v, v));
  if (l < 1e-300)
    return;
  double dl = lw_dot(nd, v, dv) / l, vvd = lw_dot(nd, v, vd);
  *x = l;
  *dx = dl;
  *xd = vvd / l;
  *dxd = (lw_dot(nd, dv, vd) + lw_dot(nd, v, dvd)) / l - vvd * dl / (l * l);
}

const lw_force_kind lw_kind_spring_damper = {
  .name = "spring_damper",
  .compile = spring_compile,
  .eval = spring_eval,
  .lin = spring_lin,
  .jvp = spring_jvp,
  .blocks = spring_blocks,
  .potential = spring_potential,
  .potential_jvp = spring_potential_jvp,
  .damper_power = spring_damper_power,
  .length = spring_length,
  .length_jvp = spring_length_jvp,
};
