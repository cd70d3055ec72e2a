/* kind_torque.c: a torque vec f(t) on a body (global axes).  Planar: the
 * virtual work tau dtheta with du = S u dtheta; spatial: on the frame
 * vectors a_k = u, v, w, Q_{a_k} = 1/2 T x a_k. */
#include "lw_kind.h"
#include "lw_kind_jvp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void torque_eval(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd,
                        double t, double *Q, double *vals, double ks, double cs)
{
  (void)d, (void)qd, (void)vals, (void)ks, (void)cs;
  int nd = m->nd;
  if (f->body < 0 || m->blk_n[f->body] == nd)
    return; /* a point takes no torque */
  double s;
  lw_func_eval(&f->func, t, &s, NULL, NULL);
  const double *qb = q + m->blk_off[f->body];
  double *Qb = Q + m->blk_off[f->body];
  if (nd == 2) {
    /* virtual work tau dtheta, du = S u dtheta: Q_u = tau S u */
    double tau = s * f->vec[2];
    Qb[2] += -tau * qb[3];
    Qb[3] += tau * qb[2];
  } else {
    /* Q_{a_k} = 1/2 T x a_k for the frame vectors a_k = u, v, w */
    double T[3] = {s * f->vec[0], s * f->vec[1], s * f->vec[2]};
    for (int k = 1; k < 4; k++) {
      const double *a = qb + 3 * k;
      Qb[3 * k + 0] += 0.5 * (T[1] * a[2] - T[2] * a[1]);
      Qb[3 * k + 1] += 0.5 * (T[2] * a[0] - T[0] * a[2]);
      Qb[3 * k + 2] += 0.5 * (T[0] * a[1] - T[1] * a[0]);
    }
  }
}

static void torque_jvp(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                       const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ)
{
  (void)d, (void)pf, (void)df;
  int nd = m->nd;
  const lw_tangent *tg = dir->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  int fon = tg && tg->force_on[n];
  if (f->body < 0 || m->blk_n[f->body] == nd || !active(dir, state, 1, &f->body, fon))
    return;
  double sv, dsv = 0;
  lw_func_eval(&f->func, p->t, &sv, NULL, NULL);
  if (fon)
    func_tan(tg, 1, n, &f->func, &tf->func, p->t, &dsv, NULL, NULL);
  const double *qb = p->q + m->blk_off[f->body];
  const double *dqb = dir->dq ? dir->dq + m->blk_off[f->body] : NULL;
  double *Qb = dQ + m->blk_off[f->body];
  double T[3], dT[3];
  for (int i = 0; i < 3; i++) {
    T[i] = sv * f->vec[i];
    dT[i] = dsv * f->vec[i] + (fon ? sv * tf->vec[i] : 0.0);
  }
  if (nd == 2) {
    Qb[2] += -dT[2] * qb[3] - (dqb ? T[2] * dqb[3] : 0.0);
    Qb[3] += dT[2] * qb[2] + (dqb ? T[2] * dqb[2] : 0.0);
  } else {
    for (int k = 1; k < 4; k++) {
      const double *a = qb + 3 * k;
      double da[3] = {0, 0, 0};
      if (dqb)
        memcpy(da, dqb + 3 * k, sizeof da);
      Qb[3 * k + 0] += 0.5 * (dT[1] * a[2] - dT[2] * a[1] + T[1] * da[2] - T[2] * da[1]);
      Qb[3 * k + 1] += 0.5 * (dT[2] * a[0] - dT[0] * a[2] + T[2] * da[0] - T[0] * da[2]);
      Qb[3 * k + 2] += 0.5 * (dT[0] * a[1] - dT[1] * a[0] + T[0] * da[1] - T[1] * da[0]);
    }
  }
}

static int torque_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  (void)m;
  *blk = &f->body;
  return f->body >= 0 ? 1 : 0;
}

static int torque_compile(lw_compile_ctx *cx, int i, lw_error *err)
{
  const lw_force_desc *fd = &cx->d->forces[i];
  lw_force *f = &cx->m->forces[i];
  char path[256];
  snprintf(path, sizeof path, "forces/%s/body", fd->name);
  int b = lw_cc_body(cx, fd->body[0]);
  if (b == -2)
    KFAIL(path, "force '%s': body '%s' does not exist", fd->name, fd->body[0] ? fd->body[0] : "(missing)");
  if (b == -1)
    KFAIL(path, "torque '%s' acts on the ground, where it does nothing; apply it to a moving body", fd->name);
  if (lw_is_beam_ref(b))
    KFAIL(path, "torque '%s' acts on beam '%s', which has no rotation of its own; apply a force pair instead",
          fd->name, fd->body[0]);
  if (b >= 0 && cx->m->blk_n[b] == cx->m->nd)
    KFAIL(path, "force '%s': body '%s' is a point mass, which takes no torque", fd->name, fd->body[0]);
  f->body = b;
  return 0;
}

static void torque_geometry(const lw_model *m, const lw_data *d, const lw_force *f, double *a, double *b)
{
  double R[9], ft = 1;
  if (f->body >= 0)
    lw_body_pose(m, d, f->body, a, R);
  lw_func_eval(&f->func, d->t, &ft, NULL, NULL);
  for (int i = 0; i < 3; i++)
    b[i] = f->vec[i] * ft;
  if (m->planar)
    b[0] = b[1] = 0;
}

const lw_force_kind lw_kind_torque = {
  .name = "torque",
  .compile = torque_compile,
  .eval = torque_eval,
  .geometry = torque_geometry,
  .jvp = torque_jvp,
  .blocks = torque_blocks,
  .tangent = lw_kind_field_tangent,
};
