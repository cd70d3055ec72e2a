/* kind_point_force.c: a force F = s(t) vec (global axes) at a body point
 * p(q) linear in q: Q = P^T F, independent of the state's values (P is
 * constant), so its linearization is empty. */
#include "lw_kind.h"
#include "lw_jvp_internal.h"

#include <stdio.h>

#include <string.h>

/* the point body1/point1 */
static int point_force_compile(lw_kind_build *b, const lw_force_desc *fd, lw_force *f)
{
  snprintf(b->path, sizeof b->path, "forces/%s/body1", fd->name);
  int body = lw_build_body(b, fd->body[0]);
  if (body == -2)
    return lw_build_fail(b, "force '%s': body '%s' does not exist", fd->name, fd->body[0] ? fd->body[0] : "(missing)");
  double p[3];
  snprintf(b->path, sizeof b->path, "forces/%s/point1", fd->name);
  if (lw_build_place(b, body, &fd->place[0], p))
    return -1;
  f->v = lw_build_point(b, body, p);
  const lw_vexpr *es[1] = {&f->v};
  lw_build_blocks(es, 1, &f->nblk, f->blk);
  return 0;
}

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
  lw_blk_add(m, f->nblk, f->blk, g, 1.0, Q);
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
  lw_func_tan(tg, 1, n, &f->func, &tf->func, p->t, &dsv, NULL, NULL);
  double F[3], dF[3];
  for (int i = 0; i < nd; i++) {
    F[i] = sv * f->vec[i];
    dF[i] = dsv * f->vec[i] + sv * tf->vec[i];
  }
  double g[2 * LW_MAXQB] = {0};
  lw_vexpr_grad(m, &f->v, dF, 1.0, f->nblk, f->blk, g);
  lw_vexpr_grad(m, &tf->v, F, 1.0, f->nblk, f->blk, g);
  lw_blk_add(m, f->nblk, f->blk, g, 1.0, dQ);
}

static int point_force_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  (void)m, (void)f;
  *blk = NULL;
  return 0;
}

const lw_force_kind lw_kind_point_force = {
  .name = "force",
  .compile = point_force_compile,
  .eval = point_force_eval,
  .lin = lw_force_lin_columns,
  .jvp = point_force_jvp,
  .blocks = point_force_blocks,
};
