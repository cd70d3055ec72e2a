/* kind_point_force.c: a force vec f(t) at a body point (global axes),
 * independent of the velocity; its virtual work F . dr with r linear in q. */
#include "lw_kind.h"
#include "lw_kind_jvp.h"
#include "compile/lw_vexpr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void point_force_eval(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd,
                             double t, double *Q, double *vals, double ks, double cs)
{
  (void)d, (void)q, (void)qd, (void)vals, (void)ks, (void)cs;
  int nd = m->nd;
  double g[2 * LW_MAXQB];
  double s;
  lw_func_eval(&f->func, t, &s, NULL, NULL);
  double F[3];
  for (int i = 0; i < nd; i++)
    F[i] = s * f->vec[i];
  memset(g, 0, sizeof g);
  lw_vexpr_grad(m, &f->v, F, 1.0, f->nblk, f->blk, g);
  lw_kind_add_block_grad(m, Q, f, g, 1.0);
}

static void point_force_jvp(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                            const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ)
{
  (void)d, (void)pf, (void)df, (void)state;
  int nd = m->nd;
  const lw_tangent *tg = dir->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  int fon = tg && tg->force_on[n];
  if (!fon)
    return; /* independent of the state */
  double sv, dsv;
  lw_func_eval(&f->func, p->t, &sv, NULL, NULL);
  func_tan(tg, 1, n, &f->func, &tf->func, p->t, &dsv, NULL, NULL);
  double F[3], dF[3];
  for (int i = 0; i < nd; i++) {
    F[i] = sv * f->vec[i];
    dF[i] = dsv * f->vec[i] + sv * tf->vec[i];
  }
  double g[2 * LW_MAXQB] = {0};
  lw_vexpr_grad(m, &f->v, dF, 1.0, f->nblk, f->blk, g);
  lw_vexpr_grad(m, &tf->v, F, 1.0, f->nblk, f->blk, g);
  blk_add(m, f->nblk, f->blk, g, 1.0, dQ);
}

static int point_force_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  (void)m, (void)f;
  *blk = NULL;
  return 0;
}

static int point_force_compile(lw_compile_ctx *cx, int i, lw_error *err)
{
  const lw_force_desc *fd = &cx->d->forces[i];
  lw_force *f = &cx->m->forces[i];
  char path[256];
  snprintf(path, sizeof path, "forces/%s/body1", fd->name);
  int b = lw_cc_body(cx, fd->body[0]);
  if (b == -2)
    KFAIL(path, "force '%s': body '%s' does not exist", fd->name, fd->body[0] ? fd->body[0] : "(missing)");
  if (b == -1) /* the ground does not move: the force would do nothing */
    KFAIL(path, "force '%s' acts on the ground, where it does nothing; apply it to a moving body", fd->name);
  snprintf(path, sizeof path, "forces/%s/point1", fd->name);
  if (lw_cc_point(cx, b, &fd->place[0], path, &f->v, err))
    return -1;
  const lw_vexpr *es[1] = {&f->v};
  lw_cc_blocks(es, 1, &f->nblk, f->blk);
  return 0;
}

static void point_force_geometry(const lw_model *m, const lw_data *d, const lw_force *f, double *a, double *b)
{
  double ft = 1;
  lw_vexpr_eval(m, &f->v, d->q, a);
  lw_func_eval(&f->func, d->t, &ft, NULL, NULL);
  for (int i = 0; i < 3; i++)
    b[i] = f->vec[i] * ft;
  if (m->planar)
    a[2] = b[2] = 0;
}

const lw_force_kind lw_kind_point_force = {
  .name = "force",
  .compile = point_force_compile,
  .eval = point_force_eval,
  .geometry = point_force_geometry,
  .jvp = point_force_jvp,
  .blocks = point_force_blocks,
  .tangent = lw_kind_field_tangent,
};
