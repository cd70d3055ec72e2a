/* kind_row_angle.c: the angle theta = atan2(S, C), S = a.b, C = c.d with
 * a..d linear in q (driven rotations, revolute coordinates); its residual
 * is wrapped into (-pi, pi]. */
#include "lw_kind.h"
#include "lw_kind_jvp.h"
#include "compile/lw_vexpr.h"
#include "dyn/lw_rows.h"

#include <math.h>

/* value and (optionally) gradient: dtheta = (C dS - S dC) / r2 */
static double angle_value(const lw_model *m, const lw_vexpr *const v[4], const double *q, int nblk, const int *blk,
                          double *g)
{
  double va[3], vb[3], vc[3], vd[3];
  int nd = m->nd;
  lw_vexpr_eval(m, v[0], q, va);
  lw_vexpr_eval(m, v[1], q, vb);
  lw_vexpr_eval(m, v[2], q, vc);
  lw_vexpr_eval(m, v[3], q, vd);
  double S = dot(nd, va, vb), C = dot(nd, vc, vd);
  if (g) {
    double r2 = S * S + C * C;
    lw_vexpr_grad(m, v[0], vb, C / r2, nblk, blk, g);
    lw_vexpr_grad(m, v[1], va, C / r2, nblk, blk, g);
    lw_vexpr_grad(m, v[2], vd, -S / r2, nblk, blk, g);
    lw_vexpr_grad(m, v[3], vc, -S / r2, nblk, blk, g);
  }
  return atan2(S, C);
}

/* theta, thetadot and gamma (the part of thetaddot not in qdd) */
static void angle_rate(const lw_model *m, const lw_vexpr *const v[4], const double *q, const double *qd,
                       double *xdot, double *gam)
{
  int nd = m->nd;
  double va[3], vb[3], ra[3], rb[3];
  lw_vexpr_eval(m, v[0], q, va);
  lw_vexpr_eval(m, v[1], q, vb);
  lw_vexpr_eval_lin(m, v[0], qd, ra);
  lw_vexpr_eval_lin(m, v[1], qd, rb);
  double S = dot(nd, va, vb);
  double Sd = dot(nd, ra, vb) + dot(nd, va, rb);
  double Sg = 2.0 * dot(nd, ra, rb);
  double vc[3], vd[3], rc[3], rd[3];
  lw_vexpr_eval(m, v[2], q, vc);
  lw_vexpr_eval(m, v[3], q, vd);
  lw_vexpr_eval_lin(m, v[2], qd, rc);
  lw_vexpr_eval_lin(m, v[3], qd, rd);
  double C = dot(nd, vc, vd);
  double Cd = dot(nd, rc, vd) + dot(nd, vc, rd);
  double Cg = 2.0 * dot(nd, rc, rd);
  double r2 = S * S + C * C;
  *xdot = (C * Sd - S * Cd) / r2;
  if (gam)
    *gam = (C * Sg - S * Cg) / r2 - 2.0 * (C * Sd - S * Cd) * (S * Sd + C * Cd) / (r2 * r2);
}

/* the two dot products' derivatives, then the angle's (sc_angle) */
static void angle_jvp(const lw_model *m, const lw_vexpr *const v[4], const lw_vexpr *const tv[4], int nblk,
                      const int *blk, const lw_lin_point *p, const lw_lin_dir *dir, int need_g, sc *s)
{
  int tg = tv != NULL, values = need_g < 0;
  sc_dot(m, v[0], v[1], tg ? tv[0] : NULL, tg ? tv[1] : NULL, nblk, blk, p, dir, values ? need_g : 1, s);
  sc C;
  sc_dot(m, v[2], v[3], tg ? tv[2] : NULL, tg ? tv[3] : NULL, nblk, blk, p, dir, values ? need_g : 1, &C);
  sc_angle(values ? 0 : m->wrow, s, &C);
}

const lw_row_kind_ops lw_row_kind_angle = {
  .name = "angle",
  .nvec = 4,
  .const_hessian = 0,
  .value = angle_value,
  .residual = lw_wrap_pi,
  .rate = angle_rate,
  .jvp = angle_jvp,
  .lin = lw_angle_row_lin,
};
