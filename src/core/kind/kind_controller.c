/* kind_controller.c: the controllers, a force / torque tau along a joint
 * coordinate from measured coordinates' errors e = x - r(t):
 *   tau = -sum (kp e + kd e' + ki integral e),
 * acting as Q = tau g with g the actuated coordinate's gradient.  A PID
 * measures its own coordinate; a state feedback any number of them. */
#include "lw_kind.h"
#include "lw_jvp_internal.h"

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
  .eval = controller_eval,
  .lin = lw_force_lin_columns,
  .jvp = controller_jvp,
  .blocks = controller_blocks,
  .on_coord = 1,
};

const lw_force_kind lw_kind_state_feedback = {
  .name = "state_feedback",
  .eval = controller_eval,
  .lin = lw_force_lin_columns,
  .jvp = controller_jvp,
  .blocks = controller_blocks,
  .on_coord = 1,
};
