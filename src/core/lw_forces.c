/* lw_forces.c: generalized forces Q(q, qdot, t) and the tangent terms
 * ks K + cs C (K = -dQ/dq, C = -dQ/dqdot) in Gauss-Newton form, which keeps
 * the Newton matrix symmetric positive definite. */
#include "lw_internal.h"

#include <math.h>
#include <string.h>

static void add_block_grad(const lw_model *m, double *Q, const lw_force *f, const double *g, double s)
{
  int nqb = m->nqb;
  for (int k = 0; k < f->nblk; k++) {
    double *Qb = Q + (size_t)f->blk[k] * nqb;
    for (int i = 0; i < nqb; i++)
      Qb[i] += s * g[k * nqb + i];
  }
}

double lw_coord_continue(const lw_model *m, const lw_data *d, int ci, double x)
{
  if (m->coords[ci].kind == LW_ROW_ANGLE)
    x += 2.0 * M_PI * nearbyint((d->coord_prev[ci] - x) / (2.0 * M_PI));
  return x;
}

double lw_fb_error(const lw_model *m, const lw_data *d, int i, const double *q, const double *qd, double t)
{
  const lw_fb *b = &m->fbs[i];
  double r;
  lw_func_eval(&b->r, t, &r, NULL, NULL);
  if (b->rate)
    return lw_coord_rate(m, &m->coords[b->coord], q, qd) - r;
  return lw_coord_continue(m, d, b->coord, lw_coord_eval(m, &m->coords[b->coord], q, NULL)) - r;
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

void lw_fb_step_begin(const lw_model *m, lw_data *d, double h)
{
  for (int i = 0; i < m->nfbs; i++)
    d->fbc[i] = d->fbz[i] + 0.5 * h * lw_fb_error(m, d, i, d->q, d->qd, d->t);
  d->fb_beta = 0.5 * h;
}

void lw_fb_step_end(const lw_model *m, lw_data *d, double h)
{
  for (int i = 0; i < m->nfbs; i++) {
    d->fbcs[i] = d->fbc[i];
    d->fbz[i] = d->fbc[i] + 0.5 * h * lw_fb_error(m, d, i, d->q, d->qd, d->t);
    d->fbc[i] = d->fbz[i];
  }
  d->fb_beta = 0.0;
}

void lw_fb_reset(const lw_model *m, lw_data *d)
{
  for (int i = 0; i < m->nfbs; i++)
    d->fbz[i] = d->fbc[i] = d->fbcs[i] = 0.0;
  d->fb_beta = 0.0;
  d->dissipated = 0.0;
}

void lw_spring_state(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                     double *x, double *xd)
{
  if (f->type == LW_FORCE_JOINT_SPRING_DAMPER) {
    const lw_coord *c = &m->coords[f->coord];
    *x = lw_coord_continue(m, d, f->coord, lw_coord_eval(m, c, q, NULL));
    *xd = lw_coord_rate(m, c, q, qd);
    return;
  }
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

double lw_damper_power(const lw_model *m, const lw_data *d, const double *q, const double *qd)
{
  double P = 0;
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    if ((f->type != LW_FORCE_SPRING_DAMPER && f->type != LW_FORCE_JOINT_SPRING_DAMPER) || f->c == 0.0)
      continue;
    double x, xd;
    lw_spring_state(m, d, f, q, qd, &x, &xd);
    P += f->c * xd * xd;
  }
  return P;
}

/* Q += forces; vals += ks K + cs C when vals != NULL.  Controllers add only
 * the part of their tangent that is symmetric (the actuated coordinate's
 * own positive gains): the other terms are left to the Newton iteration. */
void lw_forces_eval(const lw_model *m, lw_data *d, const double *q, const double *qd, double t,
                    double *Q, double *vals, double ks, double cs)
{
  int nd = m->nd, nqb = m->nqb;
  double g[2 * LW_MAXQB];
  for (int i = 0; i < m->nq; i++)
    Q[i] += m->qgrav[i];
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    switch (f->type) {
    case LW_FORCE_SPRING_DAMPER: {
      double v[3], vd[3];
      lw_vexpr_eval(m, &f->v, q, v);
      lw_vexpr_eval_lin(m, &f->v, qd, vd);
      double l = 0;
      for (int i = 0; i < nd; i++)
        l += v[i] * v[i];
      l = sqrt(l);
      if (l < 1e-300)
        break; /* direction undefined; validated at compile, skipped here */
      double e[3];
      for (int i = 0; i < nd; i++)
        e[i] = v[i] / l;
      double ld = 0;
      for (int i = 0; i < nd; i++)
        ld += e[i] * vd[i];
      double F = f->k * (l - f->rest) + f->c * ld;
      memset(g, 0, sizeof g);
      lw_vexpr_grad(m, &f->v, e, 1.0, f->nblk, f->blk, g); /* dl/dq */
      add_block_grad(m, Q, f, g, -F);
      if (vals && f->nblk > 0)
        lw_mat_add_outer(m, vals, ks * f->k + cs * f->c, f->nblk, f->blk, f->pairpos, g);
      break;
    }
    case LW_FORCE_JOINT_SPRING_DAMPER: {
      const lw_coord *c = &m->coords[f->coord];
      /* continuous angle: the data keeps the unwrapped value */
      double x = lw_coord_continue(m, d, f->coord, lw_coord_eval(m, c, q, g));
      double xd = lw_coord_rate(m, c, q, qd);
      double tau = -f->k * (x - f->rest) - f->c * xd;
      /* lw_coord_eval wrote the gradient in the coordinate's blocks */
      for (int k = 0; k < c->nblk; k++) {
        double *Qb = Q + (size_t)c->blk[k] * nqb;
        for (int i = 0; i < nqb; i++)
          Qb[i] += tau * g[k * nqb + i];
      }
      if (vals && c->nblk > 0)
        lw_mat_add_outer(m, vals, ks * f->k + cs * f->c, c->nblk, c->blk, c->pairpos, g);
      break;
    }
    case LW_FORCE_PID:
    case LW_FORCE_STATE_FEEDBACK: {
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
      break;
    }
    case LW_FORCE_FORCE: {
      double s;
      lw_func_eval(&f->func, t, &s, NULL, NULL);
      double F[3];
      for (int i = 0; i < nd; i++)
        F[i] = s * f->vec[i];
      memset(g, 0, sizeof g);
      lw_vexpr_grad(m, &f->v, F, 1.0, f->nblk, f->blk, g);
      add_block_grad(m, Q, f, g, 1.0);
      break;
    }
    case LW_FORCE_TORQUE: {
      if (f->body < 0)
        break;
      double s;
      lw_func_eval(&f->func, t, &s, NULL, NULL);
      const double *qb = q + (size_t)f->body * nqb;
      double *Qb = Q + (size_t)f->body * nqb;
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
      break;
    }
    default:
      break;
    }
  }
}

void lw_data_set_perturbation(lw_data *d, int b, const double p[3], const double F[3])
{
  d->perturb_body = b;
  for (int i = 0; i < 3; i++) {
    d->perturb_p[i] = b >= 0 ? p[i] : 0.0;
    d->perturb_f[i] = b >= 0 ? F[i] : 0.0;
  }
}

/* The point is r0 + x u + y v + z w (planar: r0 + x u + y S u), linear in
 * the body's coordinates: Q_r0 = F, Q_u = x F, Q_v = y F, Q_w = z F
 * (planar: Q_u = x F + y S^T F). */
void lw_perturb_eval(const lw_model *m, const lw_data *d, double *Q)
{
  int b = d->perturb_body;
  if (b < 0 || b >= m->nb)
    return;
  const double *p = d->perturb_p, *F = d->perturb_f;
  double *Qb = Q + (size_t)b * m->nqb;
  if (m->nd == 2) {
    Qb[0] += F[0];
    Qb[1] += F[1];
    Qb[2] += p[0] * F[0] + p[1] * F[1];
    Qb[3] += p[0] * F[1] - p[1] * F[0];
    return;
  }
  for (int i = 0; i < 3; i++) {
    Qb[i] += F[i];
    for (int k = 0; k < 3; k++)
      Qb[3 * (k + 1) + i] += p[k] * F[i];
  }
}

double lw_potential_energy(const lw_model *m, lw_data *d, const double *q)
{
  double V = 0;
  /* gravity: every centre of mass is linear in q without a constant term,
   * so -Q_grav . q = -sum m g . r_G exactly */
  for (int i = 0; i < m->nq; i++)
    V -= m->qgrav[i] * q[i];
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    if (f->type == LW_FORCE_SPRING_DAMPER) {
      double v[3], l = 0;
      lw_vexpr_eval(m, &f->v, q, v);
      for (int i = 0; i < m->nd; i++)
        l += v[i] * v[i];
      l = sqrt(l);
      V += 0.5 * f->k * (l - f->rest) * (l - f->rest);
    } else if (f->type == LW_FORCE_JOINT_SPRING_DAMPER) {
      const lw_coord *c = &m->coords[f->coord];
      double x = lw_coord_continue(m, d, f->coord, lw_coord_eval(m, c, q, NULL));
      V += 0.5 * f->k * (x - f->rest) * (x - f->rest);
    }
  }
  return V;
}
