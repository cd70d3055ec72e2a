/* lw_rows.c: constraint equations Phi(q, t), their gradients, Phi_t and
 * gamma = d(Phi_q)/dt qdot + d(Phi_t)/dt, so that Phi_q qdd + gamma = 0.
 *
 * Every equation is a dot product of two vectors linear in q (bilinear:
 * rigid-body unit and orthogonality conditions, point coincidence, axis
 * alignment) or the angle atan2(a.b, c.d) of two such products (driven
 * rotations). */
#include "lw_internal.h"

#include <math.h>
#include <string.h>

static double dot(int n, const double *a, const double *b)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

double lw_wrap_pi(double x)
{
  /* into (-pi, pi] */
  x = fmod(x + M_PI, 2.0 * M_PI);
  if (x < 0)
    x += 2.0 * M_PI;
  return x - M_PI;
}

/* value and (optionally) gradient of the angle atan2(S, C), S = a.b, C = c.d */
static double angle_eval(const lw_model *m, const lw_vexpr *a, const lw_vexpr *b, const lw_vexpr *c,
                         const lw_vexpr *dd, const double *q, int nblk, const int *blk, double *g)
{
  double va[3], vb[3], vc[3], vd[3];
  int nd = m->nd;
  lw_vexpr_eval(m, a, q, va);
  lw_vexpr_eval(m, b, q, vb);
  lw_vexpr_eval(m, c, q, vc);
  lw_vexpr_eval(m, dd, q, vd);
  double S = dot(nd, va, vb), C = dot(nd, vc, vd);
  if (g) {
    double r2 = S * S + C * C;
    /* dtheta = (C dS - S dC) / r2 */
    lw_vexpr_grad(m, a, vb, C / r2, nblk, blk, g);
    lw_vexpr_grad(m, b, va, C / r2, nblk, blk, g);
    lw_vexpr_grad(m, c, vd, -S / r2, nblk, blk, g);
    lw_vexpr_grad(m, dd, vc, -S / r2, nblk, blk, g);
  }
  return atan2(S, C);
}

/* rate of an angle or dot coordinate and its second-order term:
 * for DOT: x = a.b, xdot, and gamma = 2 adot.bdot;
 * for ANGLE: theta, thetadot, gamma (the part of thetaddot not in q''). */
static void rates(const lw_model *m, lw_row_kind kind, const lw_vexpr *a, const lw_vexpr *b,
                  const lw_vexpr *c, const lw_vexpr *dd, const double *q, const double *qd,
                  double *xdot, double *gam)
{
  int nd = m->nd;
  double va[3], vb[3], ra[3], rb[3];
  lw_vexpr_eval(m, a, q, va);
  lw_vexpr_eval(m, b, q, vb);
  lw_vexpr_eval_lin(m, a, qd, ra);
  lw_vexpr_eval_lin(m, b, qd, rb);
  double S = dot(nd, va, vb);
  double Sd = dot(nd, ra, vb) + dot(nd, va, rb);
  double Sg = 2.0 * dot(nd, ra, rb);
  if (kind == LW_ROW_DOT) {
    *xdot = Sd;
    if (gam)
      *gam = Sg;
    return;
  }
  double vc[3], vd[3], rc[3], rd[3];
  lw_vexpr_eval(m, c, q, vc);
  lw_vexpr_eval(m, dd, q, vd);
  lw_vexpr_eval_lin(m, c, qd, rc);
  lw_vexpr_eval_lin(m, dd, qd, rd);
  double C = dot(nd, vc, vd);
  double Cd = dot(nd, rc, vd) + dot(nd, vc, rd);
  double Cg = 2.0 * dot(nd, rc, rd);
  double r2 = S * S + C * C;
  *xdot = (C * Sd - S * Cd) / r2;
  if (gam)
    *gam = (C * Sg - S * Cg) / r2 - 2.0 * (C * Sd - S * Cd) * (S * Sd + C * Cd) / (r2 * r2);
}

void lw_rows_eval(const lw_model *m, lw_data *d, const double *q, double t, int want_jac)
{
  int nd = m->nd, w = 2 * m->nqb;
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    double *g = want_jac ? d->jac + (size_t)r * w : NULL;
    if (g)
      memset(g, 0, sizeof(double) * (size_t)w);
    double f = 0;
    if (row->func >= 0)
      lw_func_eval(&m->drivers[row->func], t, &f, NULL, NULL);
    if (row->kind == LW_ROW_DOT) {
      double va[3], vb[3];
      lw_vexpr_eval(m, &row->a, q, va);
      lw_vexpr_eval(m, &row->b, q, vb);
      d->phi[r] = dot(nd, va, vb) - row->c0 - f;
      if (g) {
        lw_vexpr_grad(m, &row->a, vb, 1.0, row->nblk, row->blk, g);
        lw_vexpr_grad(m, &row->b, va, 1.0, row->nblk, row->blk, g);
      }
    } else {
      double th = angle_eval(m, &row->a, &row->b, &row->c, &row->d, q, row->nblk, row->blk, g);
      d->phi[r] = lw_wrap_pi(th - row->c0 - f);
    }
  }
}

void lw_rows_time(const lw_model *m, lw_data *d, const double *q, const double *qd, double t)
{
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    double fd = 0, fdd = 0, xd, g;
    if (row->func >= 0)
      lw_func_eval(&m->drivers[row->func], t, NULL, &fd, &fdd);
    rates(m, row->kind, &row->a, &row->b, &row->c, &row->d, q, qd, &xd, &g);
    d->phit[r] = -fd;
    d->gam[r] = g - fdd;
  }
}

/* Phi_t alone (the driving functions' rates): the target of the velocity
 * projection, which needs none of gamma */
void lw_rows_phit(const lw_model *m, lw_data *d, double t)
{
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    double fd = 0;
    if (row->func >= 0)
      lw_func_eval(&m->drivers[row->func], t, NULL, &fd, NULL);
    d->phit[r] = -fd;
  }
}

double lw_coord_eval(const lw_model *m, const lw_coord *c, const double *q, double *g)
{
  if (g)
    memset(g, 0, sizeof(double) * 2 * (size_t)m->nqb);
  if (c->kind == LW_ROW_DOT) {
    double va[3], vb[3];
    lw_vexpr_eval(m, &c->a, q, va);
    lw_vexpr_eval(m, &c->b, q, vb);
    if (g) {
      lw_vexpr_grad(m, &c->a, vb, 1.0, c->nblk, c->blk, g);
      lw_vexpr_grad(m, &c->b, va, 1.0, c->nblk, c->blk, g);
    }
    return dot(m->nd, va, vb) - c->offset;
  }
  return angle_eval(m, &c->a, &c->b, &c->c, &c->d, q, c->nblk, c->blk, g) - c->offset;
}

double lw_coord_rate(const lw_model *m, const lw_coord *c, const double *q, const double *qd)
{
  double xd;
  rates(m, c->kind, &c->a, &c->b, &c->c, &c->d, q, qd, &xd, NULL);
  return xd;
}
