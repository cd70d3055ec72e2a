/* kind_controller.c: the controllers, a force / torque tau along a joint
 * coordinate from measured coordinates' errors e = x - r(t):
 *   tau = -sum (kp e + kd e' + ki integral e),
 * acting as Q = tau g with g the actuated coordinate's gradient.  A PID
 * measures its own coordinate; a state feedback any number of them. */
#include "lw_kind.h"
#include "lw_jvp_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* one measured coordinate (feedback k of fd) into m->fbs[b->nfb]; the
 * actuated coordinate's own gains become f->k, f->c, the Newton matrix's
 * symmetric part (controller_eval: within a step the integral term adds
 * h/2 ki e) */
static int feedback_compile(lw_kind_build *b, const lw_force_desc *fd, lw_force *f, int k)
{
  lw_model *m = b->m;
  int pid = fd->type == LW_FORCE_PID, ci = f->coord;
  const lw_feedback_desc *bd = &fd->feedback[k];
  lw_fb *fb = &m->fbs[b->nfb++];
  char base[192];
  if (pid)
    snprintf(base, sizeof base, "forces/%s", fd->name);
  else
    snprintf(base, sizeof base, "forces/%s/gains/%d", fd->name, k);
  snprintf(b->path, sizeof b->path, "%s/joint", base);
  int bc;
  if (lw_build_coord(b, bd->joint, bd->coordinate, "controller", &bc))
    return -1;
  fb->coord = bc;
  fb->force = f->index;
  fb->rate = bd->rate;
  fb->kp = bd->kp;
  fb->kd = bd->kd;
  fb->ki = bd->ki;
  fb->r = bd->target;
  if (bc == ci) {
    double kih = 0.5 * b->d->solver.step * bd->ki;
    f->k += bd->rate ? 0.0 : bd->kp + kih;
    f->c += bd->rate ? bd->kp + kih : bd->kd;
  }
  snprintf(b->path, sizeof b->path, "%s/%s", base, !isfinite(bd->kp) ? "kp" : !isfinite(bd->kd) ? "kd" : "ki");
  if (!isfinite(bd->kp) || !isfinite(bd->kd) || !isfinite(bd->ki))
    return lw_build_fail(b, "controller '%s': gains must be finite numbers", fd->name);
  if (bd->rate && bd->kd != 0.0) {
    snprintf(b->path, sizeof b->path, "%s/kd", base);
    return lw_build_fail(b, "controller '%s': kd must be 0 when the rate is measured (its derivative "
                         "would be an acceleration)", fd->name);
  }
  snprintf(b->path, sizeof b->path, "%s/target", base);
  if (!lw_build_finite(bd->target.a, LW_FUNC_MAXCOEF))
    return lw_build_fail(b, "controller '%s': target coefficients must be finite", fd->name);
  if (lw_build_check_func(b, &bd->target))
    return -1;
  const lw_coord *co = &m->coords[bc];
  for (int kb = 0; kb < co->nblk; kb++) {
    int seen = 0;
    for (int l = 0; l < f->ncblk; l++)
      seen |= f->cblk[l] == co->blk[kb];
    if (seen)
      continue;
    if (f->ncblk == LW_MAXCBLK)
      return lw_build_fail(b, "controller '%s': its coordinates touch more than %d bodies", fd->name, LW_MAXCBLK);
    f->cblk[f->ncblk++] = co->blk[kb];
  }
  return 0;
}

/* the actuated coordinate (joint/coordinate) and the measured ones */
static int controller_compile(lw_kind_build *b, const lw_force_desc *fd, lw_force *f)
{
  lw_model *m = b->m;
  int pid = fd->type == LW_FORCE_PID;
  snprintf(b->path, sizeof b->path, "forces/%s/joint", fd->name);
  int ci;
  if (lw_build_coord(b, fd->joint, fd->coordinate, "controller", &ci))
    return -1;
  f->coord = ci;
  f->nblk = m->coords[ci].nblk;
  memcpy(f->blk, m->coords[ci].blk, sizeof f->blk);
  f->ncblk = f->nblk;
  memcpy(f->cblk, f->blk, sizeof(int) * (size_t)f->nblk);
  snprintf(b->path, sizeof b->path, pid ? "forces/%s" : "forces/%s/gains", fd->name);
  if (fd->nfeedback < 1 || (pid && fd->nfeedback != 1))
    return lw_build_fail(b, "controller '%s': %s", fd->name,
                         pid ? "a pid controller measures exactly its own coordinate"
                             : "a state feedback needs at least one gain");
  f->fb0 = b->nfb;
  f->nfb = fd->nfeedback;
  for (int k = 0; k < fd->nfeedback; k++)
    if (feedback_compile(b, fd, f, k))
      return -1;
  return 0;
}

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
    lw_fb_err_jvp(m, d, i, fon, pf, df, &e, &de, &ed, &ded);
    double I = d->fbc[i] + beta * e;
    T -= b->kp * e + b->kd * ed + b->ki * I;
    dT -= (b->kp + beta * b->ki) * de + b->kd * ded;
    if (fon)
      dT -= tb->kp * e + tb->kd * ed + tb->ki * I;
  }
  *tau = T;
  *dtau = dT;
}

/* vals gets only the part of the tangent that is symmetric (the actuated
 * coordinate's own positive gains, folded into f->k and f->c at compile):
 * the other terms are left to the Newton iteration */
static void controller_eval(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd,
                            double t, double *Q, double *vals, double ks, double cs)
{
  double g[2 * LW_MAXQB];
  const lw_coord *c = &m->coords[f->coord];
  double tau = lw_control_value(m, d, f, q, qd, t);
  lw_coord_eval(m, c, q, g);
  lw_blk_add(m, c->nblk, c->blk, g, tau, Q);
  double s = ks * f->k + cs * f->c; /* the actuated coordinate's own gains */
  if (vals && c->nblk > 0 && s > 0)
    lw_mat_add_outer(m, vals, s, c->nblk, c->blk, c->pairpos, g);
}

static void controller_jvp(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                           const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ)
{
  (void)p;
  const lw_tangent *tg = dir->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  const lw_force *f = &m->forces[n];
  int fon = tg && tg->force_on[n];
  if (!lw_dir_active(dir, state, f->ncblk, f->cblk, fon))
    return;
  double tau, dtau;
  lw_control_jvp(m, d, n, pf, df, &tau, &dtau);
  const lw_coord *c = &m->coords[f->coord];
  lw_sc s;
  lw_coord_sc(m, fon ? tm : NULL, f->coord, pf, df, &s);
  lw_blk_add(m, c->nblk, c->blk, s.g, dtau, dQ);
  lw_blk_add(m, c->nblk, c->blk, s.dg, tau, dQ);
}

/* every body the measured and actuated coordinates touch */
static int controller_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  (void)m;
  *blk = f->cblk;
  return f->ncblk;
}

const lw_force_kind lw_kind_pid = {
  .name = "pid",
  .compile = controller_compile,
  .eval = controller_eval,
  .lin = lw_force_lin_columns,
  .jvp = controller_jvp,
  .blocks = controller_blocks,
  .on_coord = 1,
};

const lw_force_kind lw_kind_state_feedback = {
  .name = "state_feedback",
  .compile = controller_compile,
  .eval = controller_eval,
  .lin = lw_force_lin_columns,
  .jvp = controller_jvp,
  .blocks = controller_blocks,
  .on_coord = 1,
};
