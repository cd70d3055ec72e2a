/* kind_row_dot.c: the bilinear row x = a.b with a, b linear in q (rigid
 * bodies' unit and orthogonality conditions, point coincidence, axis
 * alignment, prismatic coordinates); its Hessian is constant. */
#include "lw_kind.h"
#include "lw_kind_jvp.h"
#include "compile/lw_vexpr.h"

static double dot_value(const lw_model *m, const lw_vexpr *const v[4], const double *q, int nblk, const int *blk,
                        double *g)
{
  double va[3], vb[3];
  lw_vexpr_eval(m, v[0], q, va);
  lw_vexpr_eval(m, v[1], q, vb);
  double x = dot(m->nd, va, vb);
  if (g) {
    lw_vexpr_grad(m, v[0], vb, 1.0, nblk, blk, g);
    lw_vexpr_grad(m, v[1], va, 1.0, nblk, blk, g);
  }
  return x;
}

static double dot_residual(double e) { return e; }

/* xdot = adot.b + a.bdot, gamma = 2 adot.bdot */
static void dot_rate(const lw_model *m, const lw_vexpr *const v[4], const double *q, const double *qd, double *xdot,
                     double *gam)
{
  int nd = m->nd;
  double va[3], vb[3], ra[3], rb[3];
  lw_vexpr_eval(m, v[0], q, va);
  lw_vexpr_eval(m, v[1], q, vb);
  lw_vexpr_eval_lin(m, v[0], qd, ra);
  lw_vexpr_eval_lin(m, v[1], qd, rb);
  double Sd = dot(nd, ra, vb) + dot(nd, va, rb);
  double Sg = 2.0 * dot(nd, ra, rb);
  *xdot = Sd;
  if (gam)
    *gam = Sg;
}

static void dot_jvp(const lw_model *m, const lw_vexpr *const v[4], const lw_vexpr *const tv[4], int nblk,
                    const int *blk, const lw_lin_point *p, const lw_lin_dir *dir, int need_g, sc *s)
{
  int tg = tv != NULL;
  sc_dot(m, v[0], v[1], tg ? tv[0] : NULL, tg ? tv[1] : NULL, nblk, blk, p, dir, need_g, s);
}

const lw_row_kind_ops lw_row_kind_dot = {
  .name = "dot",
  .nvec = 2,
  .const_hessian = 1,
  .value = dot_value,
  .residual = dot_residual,
  .rate = dot_rate,
  .jvp = dot_jvp,
  .lin = lw_dot_row_lin,
};
