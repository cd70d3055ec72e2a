/* kind_controller.c: the controllers, PID and state feedback: a force or
 * torque along an actuated joint coordinate from the errors of measured
 * coordinates (m->fbs[fb0 .. fb0 + nfb)) to their targets,
 * tau = -sum kp e + kd ed + ki (fbc + fb_beta e).  Both kinds share every
 * hook; they differ only in how the description lists their measures. */
#include "kind/kind_controller.h"
#include "lw_kind.h"
#include "lw_kind_jvp.h"
#include "dyn/lw_forces.h"
#include "dyn/lw_rows.h"
#include "la/lw_matrix.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double lw_control_value(const lw_model *m, const lw_data *d, const lw_force *f, const double *q,
                        const double *qd, double t)
{
  double tau = 0;
  for (int k = 0; k < f->nfb; k++) {
    int i = f->fb0 + k;
    const lw_fb *b = &m->fbs[i];
    double e = lw_fb_error(m, d, i, q, qd, t), ed = 0;
    if (!b->rate && b->kd != 0.0) {
      double rd;
      lw_func_eval(&b->r, t, NULL, &rd, NULL);
      ed = lw_coord_rate(m, &m->coords[b->coord], q, qd) - rd;
    }
    tau -= b->kp * e + b->kd * ed + b->ki * (d->fbc[i] + d->fb_beta * e);
  }
  return tau;
}

/* a controller's force / torque tau and its derivative dtau along the
 * direction (pf: the forces' point, velocity argument in qd); the integral
 * term ki (fbc + fb_beta e) takes fbc as given */
void lw_control_jvp(const lw_model *m, const lw_data *d, int n, const lw_lin_point *pf, const lw_lin_dir *df,
                    double *tau, double *dtau)
{
  const lw_tangent *tg = df->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  const lw_force *f = &m->forces[n];
  int fon = tg && tg->force_on[n];
  double T = 0, dT = 0, beta = d->fb_beta;
  for (int k = 0; k < f->nfb; k++) {
    int i = f->fb0 + k;
    const lw_fb *b = &m->fbs[i];
    const lw_fb *tb = fon ? &tm->fbs[i] : NULL;
    double e, de, ed, ded;
    fb_error_jvp(m, d, i, fon, pf, df, &e, &de, &ed, &ded);
    double I = d->fbc[i] + beta * e;
    T -= b->kp * e + b->kd * ed + b->ki * I;
    dT -= (b->kp + beta * b->ki) * de + b->kd * ded;
    if (fon)
      dT -= tb->kp * e + tb->kd * ed + tb->ki * I;
  }
  *tau = T;
  *dtau = dT;
}

/* the Newton matrix's symmetric part: the actuated coordinate's own gains
 * as a stiffness k and a damping c; within a step the integral term adds
 * fb_beta ki (fb_beta = h/2: the step's length is read here, not compiled) */
static void controller_newton_gains(const lw_model *m, const lw_data *d, const lw_force *f, double *k, double *c)
{
  double kk = f->k, cc = f->c;
  for (int j = 0; j < f->nfb; j++) {
    const lw_fb *b = &m->fbs[f->fb0 + j];
    if (b->coord != f->coord)
      continue;
    double kih = d->fb_beta * b->ki;
    kk += b->rate ? 0.0 : b->kp + kih;
    cc += b->rate ? b->kp + kih : b->kd;
  }
  *k = kk;
  *c = cc;
}

/* Q += tau g along the actuated coordinate; vals += only the part of the
 * tangent that is symmetric (the actuated coordinate's own positive gains):
 * the other terms are left to the Newton iteration */
static void controller_eval(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd,
                            double t, double *Q, double *vals, double ks, double cs)
{
  double g[2 * LW_MAXQB];
  const lw_coord *c = &m->coords[f->coord];
  double tau = lw_control_value(m, d, f, q, qd, t);
  lw_coord_eval(m, c, q, g);
  for (int k = 0, o = 0; k < c->nblk; o += m->blk_n[c->blk[k]], k++) {
    double *Qb = Q + m->blk_off[c->blk[k]];
    for (int i = 0; i < m->blk_n[c->blk[k]]; i++)
      Qb[i] += tau * g[o + i];
  }
  if (!vals)
    return;
  double k, cd;
  controller_newton_gains(m, d, f, &k, &cd);
  double s = ks * k + cs * cd; /* the actuated coordinate's own gains */
  if (c->nblk > 0 && s > 0)
    lw_mat_add_outer(m, vals, s, c->nblk, c->blk, c->pairpos, g);
}

static void controller_jvp(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                           const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ)
{
  (void)p;
  const lw_tangent *tg = dir->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  sc s;
  const lw_force *f = &m->forces[n];
  int fon = tg && tg->force_on[n];
  if (!active(dir, state, f->ncblk, f->cblk, fon))
    return;
  double tau, dtau;
  lw_control_jvp(m, d, n, pf, df, &tau, &dtau);
  const lw_coord *c = &m->coords[f->coord];
  coord_sc(m, fon ? tm : NULL, f->coord, pf, df, &s);
  blk_add(m, c->nblk, c->blk, s.g, dtau, dQ);
  blk_add(m, c->nblk, c->blk, s.dg, tau, dQ);
}

/* every body the measured and actuated coordinates touch */
static int controller_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  (void)m;
  *blk = f->cblk;
  return f->ncblk;
}

/* one measure k of controller i into m->fbs[cx->nfb] (the actuated
 * coordinate's own gains reach the Newton matrix through
 * controller_newton_gains, at the step's length) */
static int controller_measure(lw_compile_ctx *cx, int i, int k, lw_error *err)
{
  const lw_desc *d = cx->d;
  const lw_force_desc *fd = &d->forces[i];
  lw_model *m = cx->m;
  lw_force *f = &m->forces[i];
  int pid = fd->type == LW_FORCE_PID;
  char path[256];
  const lw_feedback_desc *bd = &fd->feedback[k];
  lw_fb *b = &m->fbs[cx->nfb++];
  char base[192];
  if (pid)
    snprintf(base, sizeof base, "forces/%s", fd->name);
  else
    snprintf(base, sizeof base, "forces/%s/gains/%d", fd->name, k);
  snprintf(path, sizeof path, "%s/joint", base);
  int bc;
  if (bd->has_between)
    bc = lw_cc_measure_coord(cx, i, k);
  else if (lw_cc_coord(cx, bd->joint, bd->coordinate, "controller", path, &bc, err))
    return -1;
  b->coord = bc;
  b->force = i;
  b->rate = bd->rate;
  b->kp = bd->kp;
  b->kd = bd->kd;
  b->ki = bd->ki;
  b->r = bd->target;
  snprintf(path, sizeof path, "%s/%s", base, !isfinite(bd->kp) ? "kp" : !isfinite(bd->kd) ? "kd" : "ki");
  if (!isfinite(bd->kp) || !isfinite(bd->kd) || !isfinite(bd->ki))
    KFAIL(path, "controller '%s': gains must be finite numbers", fd->name);
  if (bd->rate && bd->kd != 0.0) {
    snprintf(path, sizeof path, "%s/kd", base);
    KFAIL(path, "controller '%s': kd must be 0 when the rate is measured (its derivative "
          "would be an acceleration)", fd->name);
  }
  snprintf(path, sizeof path, "%s/target", base);
  if (!lw_cc_finite(bd->target.a, LW_FUNC_MAXCOEF))
    KFAIL(path, "controller '%s': target coefficients must be finite", fd->name);
  if (lw_cc_check_func(&bd->target, path, err))
    return -1;
  const lw_coord *co = &m->coords[bc];
  for (int kb = 0; kb < co->nblk; kb++) {
    int seen = 0;
    for (int l = 0; l < f->ncblk; l++)
      seen |= f->cblk[l] == co->blk[kb];
    if (seen)
      continue;
    if (f->ncblk == LW_MAXCBLK)
      KFAIL(path, "controller '%s': its coordinates touch more than %d bodies", fd->name, LW_MAXCBLK);
    f->cblk[f->ncblk++] = co->blk[kb];
  }
  return 0;
}

static int controller_compile(lw_compile_ctx *cx, int i, lw_error *err)
{
  const lw_force_desc *fd = &cx->d->forces[i];
  lw_model *m = cx->m;
  lw_force *f = &m->forces[i];
  int pid = fd->type == LW_FORCE_PID;
  char path[256];
  snprintf(path, sizeof path, "forces/%s/joint", fd->name);
  int ci;
  if (lw_cc_coord(cx, fd->joint, fd->coordinate, "controller", path, &ci, err))
    return -1;
  f->coord = ci;
  f->nblk = m->coords[ci].nblk;
  memcpy(f->blk, m->coords[ci].blk, sizeof f->blk);
  f->ncblk = f->nblk;
  memcpy(f->cblk, f->blk, sizeof(int) * (size_t)f->nblk);
  snprintf(path, sizeof path, pid ? "forces/%s" : "forces/%s/gains", fd->name);
  if (fd->nfeedback < 1 || (pid && fd->nfeedback != 1))
    KFAIL(path, "controller '%s': %s", fd->name,
          pid ? "a pid controller measures exactly its own coordinate or one distance"
              : "a state feedback needs at least one gain");
  f->fb0 = cx->nfb;
  f->nfb = fd->nfeedback;
  for (int k = 0; k < fd->nfeedback; k++)
    if (controller_measure(cx, i, k, err))
      return -1;
  return 0;
}

/* a measure's gains and target enter its lw_fb alone: the Newton matrix
 * reads the actuated coordinate's own gains from there within the step
 * (controller_newton_gains) */
static int measure_tangent(const lw_model *m, int n, int k, const double *field, lw_model *dm)
{
  const lw_feedback_desc *bd = &m->desc->forces[n].feedback[k];
  const lw_force *f = &m->forces[n];
  const lw_fb *b = &m->fbs[f->fb0 + k];
  lw_fb *db = dm ? &dm->fbs[f->fb0 + k] : NULL;
  int i, knot;
  if (field == &bd->kp) {
    lw_kind_tangent_add(db ? &db->kp : NULL, 1.0);
  } else if (field == &bd->kd && !b->rate) { /* (a rate's kd must stay 0) */
    lw_kind_tangent_add(db ? &db->kd : NULL, 1.0);
  } else if (field == &bd->ki) {
    lw_kind_tangent_add(db ? &db->ki : NULL, 1.0);
  } else if ((i = lw_kind_func_coef(&bd->target, field, &knot)) >= 0) {
    lw_kind_tangent_add(db ? lw_kind_func_at(&db->r, i, knot) : NULL, 1.0);
  } else {
    return 0;
  }
  return 1;
}

/* the gains and targets of every measure, then the fields all forces share */
static int controller_tangent(const lw_model *m, int n, const double *field, lw_model *dm)
{
  for (int k = 0; k < m->forces[n].nfb; k++)
    if (measure_tangent(m, n, k, field, dm))
      return 1;
  return lw_kind_field_tangent(m, n, field, dm);
}

static const struct lw_kind_output controller_outputs[1] = {{"effort", LW_OUT_CONTROL}};

/* a controller reads rates (kd, rate measures) and its Newton terms carry a
 * damping: taken as depending on the velocities */
static int controller_uses_velocity(const lw_force *f)
{
  (void)f;
  return 1;
}

const lw_force_kind lw_kind_pid = {
  .uses_velocity = controller_uses_velocity,
  .name = "pid",
  .on_joint = 1,
  .compile = controller_compile,
  .eval = controller_eval,
  .geometry = lw_kind_joint_geometry,
  .jvp = controller_jvp,
  .blocks = controller_blocks,
  .tangent = controller_tangent,
  .actuation = lw_control_value,
  .outputs = controller_outputs,
  .noutputs = 1,
};

const lw_force_kind lw_kind_state_feedback = {
  .uses_velocity = controller_uses_velocity,
  .name = "state-feedback",
  .on_joint = 1,
  .compile = controller_compile,
  .eval = controller_eval,
  .geometry = lw_kind_joint_geometry,
  .jvp = controller_jvp,
  .blocks = controller_blocks,
  .tangent = controller_tangent,
  .actuation = lw_control_value,
  .outputs = controller_outputs,
  .noutputs = 1,
};
