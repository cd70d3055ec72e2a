/* lw_forces.c: generalized forces Q(q, qdot, t) and the tangent terms
 * ks K + cs C (K = -dQ/dq, C = -dQ/dqdot) in Gauss-Newton form, which keeps
 * the Newton matrix symmetric positive definite. */
#include "dyn/lw_forces.h"
#include "lw_internal.h"
#include "compile/lw_vexpr.h"
#include "dyn/lw_rows.h"
#include "kind/lw_kind.h"

#include <math.h>
#include <string.h>

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
  for (int e = 0; e < m->nfric; e++)
    d->fric_work[e] = 0.0;
  d->fric_kap_ok = 0;
}

void lw_spring_state(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                     double *x, double *xd)
{
  lw_force_kind_of(f->type)->spring_state(m, d, f, q, qd, x, xd);
}

double lw_damper_power(const lw_model *m, const lw_data *d, const double *q, const double *qd)
{
  double P = 0;
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    const lw_force_kind *k = lw_force_kind_of(f->type);
    if (!k->spring_state || f->c == 0.0 || d->force_off[n])
      continue;
    double x, xd;
    k->spring_state(m, d, f, q, qd, &x, &xd);
    P += f->c * xd * xd;
  }
  return P;
}

/* Q += gravity and every force, vals += ks K + cs C when vals != NULL (each
 * kind's eval hook; controllers add only the symmetric part of their
 * tangent) */
void lw_forces_eval(const lw_model *m, lw_data *d, const double *q, const double *qd, double t,
                    double *Q, double *vals, double ks, double cs)
{
  for (int i = 0; i < m->nq; i++)
    Q[i] += m->qgrav[i];
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    if (!d->force_off[n])
      lw_force_kind_of(f->type)->eval(m, d, f, q, qd, t, Q, vals, ks, cs);
  }
}

/* ---- switches ---------------------------------------------------------- */
double lw_switch_gap(const lw_model *m, const lw_guard *g, const double *q)
{
  double p[3] = {0, 0, 0};
  lw_vexpr_eval(m, &g->v, q, p);
  double s = -g->offset;
  for (int i = 0; i < m->nd; i++)
    s += g->n[i] * p[i];
  return s;
}

void lw_switches_apply(const lw_model *m, lw_data *d)
{
  for (int k = 0; k < m->nguards; k++) {
    const lw_guard *g = &m->guards[k];
    if (g->type == LW_EVENT_SWITCH)
      d->force_off[g->force] = !d->sw_in[g->sw];
  }
}

void lw_switches_set(const lw_model *m, lw_data *d, const double *q)
{
  for (int k = 0; k < m->nguards; k++) {
    const lw_guard *g = &m->guards[k];
    if (g->type != LW_EVENT_SWITCH)
      continue;
    double s = lw_switch_gap(m, g, q);
    if (s != 0.0)
      d->sw_in[g->sw] = s < 0;
  }
  lw_switches_apply(m, d);
}

double lw_switches_pack(const lw_model *m, const lw_data *d)
{
  double bits = 0.0;
  for (int i = m->nswitches - 1; i >= 0; i--)
    bits = 2.0 * bits + (d->sw_in[i] ? 1.0 : 0.0);
  return bits;
}

void lw_switches_unpack(const lw_model *m, lw_data *d, double bits)
{
  for (int i = 0; i < m->nswitches; i++) {
    double half = floor(bits / 2.0);
    d->sw_in[i] = bits - 2.0 * half != 0.0;
    bits = half;
  }
  lw_switches_apply(m, d);
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
  if (b < 0 || b >= m->nbd)
    return;
  const double *p = d->perturb_p, *F = d->perturb_f;
  double *Qb = Q + m->blk_off[b];
  if (m->blk_n[b] == m->nd) {
    /* a point: the force alone */
    for (int i = 0; i < m->nd; i++)
      Qb[i] += F[i];
    return;
  }
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
    const lw_force_kind *k = lw_force_kind_of(f->type);
    if (k->energy && !d->force_off[n])
      V += k->energy(m, d, f, q);
  }
  return V;
}
