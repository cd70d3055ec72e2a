/* kind_controller.c: the controllers, PID and state feedback: a force or
 * torque along an actuated joint coordinate from the errors of measured
 * coordinates (m->fbs[fb0 .. fb0 + nfb)) to their targets,
 * tau = -sum kp e + kd ed + ki (fbc + fb_beta e).  Both kinds share every
 * hook; they differ only in how the description lists their measures. */
#include "lw_kind.h"
#include "lw_kind_jvp.h"

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

/* Q += tau g along the actuated coordinate; vals += only the part of the
 * tangent that is symmetric (the actuated coordinate's own positive gains):
 * the other terms are left to the Newton iteration */
static void controller_eval(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd,
                            double t, double *Q, double *vals, double ks, double cs)
{
  int nqb = m->nqb;
  double g[2 * LW_MAXQB];
  const lw_coord *c = &m->coords[f->coord];
  double tau = lw_control_value(m, d, f, q, qd, t);
  lw_coord_eval(m, c, q, g);
  for (int k = 0; k < c->nblk; k++) {
    double *Qb = Q + (size_t)c->blk[k] * nqb;
    for (int i = 0; i < nqb; i++)
      Qb[i] += tau * g[k * nqb + i];
  }
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

static const struct lw_kind_output controller_outputs[1] = {{"effort", LW_OUT_CONTROL}};

const lw_force_kind lw_kind_pid = {
  .name = "pid",
  .eval = controller_eval,
  .jvp = controller_jvp,
  .blocks = controller_blocks,
  .outputs = controller_outputs,
  .noutputs = 1,
};

const lw_force_kind lw_kind_state_feedback = {
  .name = "state-feedback",
  .eval = controller_eval,
  .jvp = controller_jvp,
  .blocks = controller_blocks,
  .outputs = controller_outputs,
  .noutputs = 1,
};
