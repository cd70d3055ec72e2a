/* kind_spring.c: the spring-damper between two body points,
 * F = k (l - l0) + c dl/dt along e = v / l, v = p2 - p1 linear in q. */
#include "lw_kind.h"
#include "lw_kind_jvp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
  lw_kind_add_block_grad(m, Q, f, g, -F);
  if (vals && f->nblk > 0)
    lw_mat_add_outer(m, vals, ks * f->k + cs * f->c, f->nblk, f->blk, f->pairpos, g);
}

static double spring_energy(const lw_model *m, lw_data *d, const lw_force *f, const double *q)
{
  (void)d;
  double v[3], l = 0;
  lw_vexpr_eval(m, &f->v, q, v);
  for (int i = 0; i < m->nd; i++)
    l += v[i] * v[i];
  l = sqrt(l);
  return 0.5 * f->k * (l - f->rest) * (l - f->rest);
}

static void spring_state(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
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
  if (!active(dir, state, f->nblk, f->blk, fon))
    return;
  double v[3], vd[3], dv[3], dvd[3];
  /* the derivative of the vector itself only where it moves */
  const lw_vexpr *tv = fon && tg->force_vx_on[n] ? &tf->v : NULL;
  vx_jvp(m, &f->v, tv, p->q, dir->dq, 0, v, dv);
  vx_jvp(m, &f->v, tv, p->v, dir->dv, 1, vd, dvd);
  double l = sqrt(dot(nd, v, v));
  if (l < 1e-300)
    return;
  double e[3], de[3];
  for (int i = 0; i < nd; i++)
    e[i] = v[i] / l;
  double dl = dot(nd, e, dv);
  for (int i = 0; i < nd; i++)
    de[i] = (dv[i] - e[i] * dl) / l;
  double ld = dot(nd, e, vd), dld = dot(nd, de, vd) + dot(nd, e, dvd);
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
  blk_add(m, f->nblk, f->blk, g, 1.0, dQ);
}

static void spring_energy_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                              const lw_lin_dir *dir, double *s)
{
  (void)d;
  int nd = m->nd;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  double v[3], dv[3];
  vx_jvp(m, &f->v, tf ? &tf->v : NULL, p->q, dir->dq, 0, v, dv);
  double l = sqrt(dot(nd, v, v));
  if (l < 1e-300)
    return;
  double dl = dot(nd, v, dv) / l;
  *s += f->k * (l - f->rest) * dl;
  if (tf)
    *s += 0.5 * tf->k * (l - f->rest) * (l - f->rest) - f->k * (l - f->rest) * tf->rest;
}

/* l = |v|, dl/dt = v.vd / l with v = V(q), vd = V_lin(qd) */
static void spring_state_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                             const lw_lin_dir *dir, double *x, double *dx, double *xd, double *dxd)
{
  (void)d;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  int nd = m->nd;
  *x = *dx = *xd = *dxd = 0.0;
  double v[3], dv[3], vd[3] = {0, 0, 0}, dvd[3] = {0, 0, 0};
  vx_jvp(m, &f->v, tf ? &tf->v : NULL, p->q, dir->dq, 0, v, dv);
  if (p->qd)
    vx_jvp(m, &f->v, tf ? &tf->v : NULL, p->qd, dir->dqd, 1, vd, dvd);
  double l = sqrt(dot(nd, v, v));
  if (l < 1e-300)
    return;
  double dl = dot(nd, v, dv) / l, vvd = dot(nd, v, vd);
  *x = l;
  *dx = dl;
  *xd = vvd / l;
  *dxd = (dot(nd, dv, vd) + dot(nd, v, dvd)) / l - vvd * dl / (l * l);
}

static int spring_compile(lw_compile_ctx *cx, int i, lw_error *err)
{
  const lw_force_desc *fd = &cx->d->forces[i];
  lw_model *m = cx->m;
  lw_force *f = &m->forces[i];
  char path[256];
  lw_vexpr P[2];
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "forces/%s/body%d", fd->name, k + 1);
    int b = lw_cc_body(cx, fd->body[k]);
    if (b == -2)
      KFAIL(path, "force '%s': body%d '%s' does not exist", fd->name, k + 1,
            fd->body[k] ? fd->body[k] : "(missing)");
    snprintf(path, sizeof path, "forces/%s/point%d", fd->name, k + 1);
    if (lw_cc_point(cx, b, &fd->place[k], path, &P[k], err))
      return -1;
  }
  if (fd->rest < 0) {
    snprintf(path, sizeof path, "forces/%s/rest_length", fd->name);
    KFAIL(path, "force '%s': rest length must be nonnegative", fd->name);
  }
  f->v = lw_cc_sub(P[1], &P[0]);
  f->p1 = P[0];
  double v[3];
  lw_vexpr_eval(m, &f->v, m->q0, v);
  if (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 1e-12)
    KFAIL(path, "force '%s': the two points coincide; the spring has no direction", fd->name);
  const lw_vexpr *es[1] = {&f->v};
  lw_cc_blocks(es, 1, &f->nblk, f->blk);
  return 0;
}

static void spring_geometry(const lw_model *m, const lw_data *d, const lw_force *f, double *a, double *b)
{
  double v[3];
  lw_vexpr_eval(m, &f->p1, d->q, a);
  lw_vexpr_eval(m, &f->v, d->q, v);
  for (int i = 0; i < 3; i++)
    b[i] = a[i] + v[i];
  if (m->planar)
    a[2] = b[2] = 0;
}

const struct lw_kind_output lw_kind_spring_outputs[2] = {
  {"length", LW_OUT_SPRING_LENGTH},
  {"force", LW_OUT_SPRING_FORCE},
};

static int spring_uses_velocity(const lw_force *f)
{
  return f->c != 0.0; /* a damper */
}

const lw_force_kind lw_kind_spring = {
  .uses_velocity = spring_uses_velocity,
  .name = "spring-damper",
  .compile = spring_compile,
  .eval = spring_eval,
  .energy = spring_energy,
  .spring_state = spring_state,
  .energy_jvp = spring_energy_jvp,
  .state_jvp = spring_state_jvp,
  .geometry = spring_geometry,
  .jvp = spring_jvp,
  .blocks = lw_kind_own_blocks,
  .tangent = lw_kind_field_tangent,
  .lin = lw_point_sd_lin,
  .outputs = lw_kind_spring_outputs,
  .noutputs = 2,
};
