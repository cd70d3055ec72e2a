/* kind_joint_spring.c: the spring-damper on a joint coordinate x,
 * tau = -k (x - x0) - c dx/dt along the coordinate's gradient (an angle
 * taken continuously: the data keeps the unwrapped value). */
#include "lw_kind.h"
#include "lw_kind_jvp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void joint_spring_eval(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd,
                              double t, double *Q, double *vals, double ks, double cs)
{
  (void)t;
  double g[2 * LW_MAXQB];
  const lw_coord *c = &m->coords[f->coord];
  /* continuous angle: the data keeps the unwrapped value */
  double x = lw_coord_continue(m, d, f->coord, lw_coord_eval(m, c, q, g));
  double xd = lw_coord_rate(m, c, q, qd);
  double tau = -f->k * (x - f->rest) - f->c * xd;
  /* lw_coord_eval wrote the gradient in the coordinate's blocks */
  for (int k = 0, o = 0; k < c->nblk; o += m->blk_n[c->blk[k]], k++) {
    double *Qb = Q + m->blk_off[c->blk[k]];
    for (int i = 0; i < m->blk_n[c->blk[k]]; i++)
      Qb[i] += tau * g[o + i];
  }
  if (vals && c->nblk > 0)
    lw_mat_add_outer(m, vals, ks * f->k + cs * f->c, c->nblk, c->blk, c->pairpos, g);
}

static double joint_spring_energy(const lw_model *m, lw_data *d, const lw_force *f, const double *q)
{
  const lw_coord *c = &m->coords[f->coord];
  double x = lw_coord_continue(m, d, f->coord, lw_coord_eval(m, c, q, NULL));
  return 0.5 * f->k * (x - f->rest) * (x - f->rest);
}

static void joint_spring_state(const lw_model *m, const lw_data *d, const lw_force *f, const double *q,
                               const double *qd, double *x, double *xd)
{
  const lw_coord *c = &m->coords[f->coord];
  *x = lw_coord_continue(m, d, f->coord, lw_coord_eval(m, c, q, NULL));
  *xd = lw_coord_rate(m, c, q, qd);
}

static void joint_spring_jvp(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                             const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ)
{
  (void)p;
  const lw_tangent *tg = dir->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  sc s;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  int fon = tg && tg->force_on[n];
  const lw_coord *c = &m->coords[f->coord];
  if (!active(dir, state, c->nblk, c->blk, fon))
    return;
  coord_sc(m, fon ? tm : NULL, f->coord, pf, df, &s);
  double x = lw_coord_continue(m, d, f->coord, s.v - c->offset);
  double tau = -f->k * (x - f->rest) - f->c * s.r;
  double dtau = -f->k * s.dv - f->c * s.dr;
  if (fon)
    dtau += -tf->k * (x - f->rest) + f->k * tf->rest - tf->c * s.r;
  blk_add(m, c->nblk, c->blk, s.g, dtau, dQ);
  blk_add(m, c->nblk, c->blk, s.dg, tau, dQ);
}

static int joint_spring_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  *blk = m->coords[f->coord].blk;
  return m->coords[f->coord].nblk;
}

static void joint_spring_energy_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n,
                                    const lw_lin_point *p, const lw_lin_dir *dir, double *s)
{
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  const lw_coord *c = &m->coords[f->coord];
  sc cs;
  lw_lin_point pc = *p;
  pc.qd = NULL;
  coord_sc(m, tm, f->coord, &pc, dir, &cs);
  double x = lw_coord_continue(m, d, f->coord, cs.v - c->offset);
  *s += f->k * (x - f->rest) * cs.dv;
  if (tf)
    *s += 0.5 * tf->k * (x - f->rest) * (x - f->rest) - f->k * (x - f->rest) * tf->rest;
}

static void joint_spring_state_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n,
                                   const lw_lin_point *p, const lw_lin_dir *dir, double *x, double *dx, double *xd,
                                   double *dxd)
{
  const lw_force *f = &m->forces[n];
  *x = *dx = *xd = *dxd = 0.0;
  const lw_coord *c = &m->coords[f->coord];
  sc cs;
  coord_sc(m, tm, f->coord, p, dir, &cs);
  *x = lw_coord_continue(m, d, f->coord, cs.v - c->offset);
  *dx = cs.dv;
  *xd = cs.r;
  *dxd = cs.dr;
}

static int joint_spring_compile(lw_compile_ctx *cx, int i, lw_error *err)
{
  const lw_force_desc *fd = &cx->d->forces[i];
  lw_model *m = cx->m;
  lw_force *f = &m->forces[i];
  char path[256];
  snprintf(path, sizeof path, "forces/%s/joint", fd->name);
  int ci;
  if (lw_cc_coord(cx, fd->joint, fd->coordinate, "joint spring-damper", path, &ci, err))
    return -1;
  f->coord = ci;
  f->nblk = m->coords[ci].nblk;
  memcpy(f->blk, m->coords[ci].blk, sizeof f->blk);
  return 0;
}

static int joint_spring_uses_velocity(const lw_force *f)
{
  return f->c != 0.0; /* a damper */
}

const lw_force_kind lw_kind_joint_spring = {
  .uses_velocity = joint_spring_uses_velocity,
  .name = "joint-spring-damper",
  .on_joint = 1,
  .compile = joint_spring_compile,
  .eval = joint_spring_eval,
  .energy = joint_spring_energy,
  .spring_state = joint_spring_state,
  .energy_jvp = joint_spring_energy_jvp,
  .state_jvp = joint_spring_state_jvp,
  .geometry = lw_kind_joint_geometry,
  .jvp = joint_spring_jvp,
  .blocks = joint_spring_blocks,
  .tangent = lw_kind_field_tangent,
  .lin = lw_joint_sd_lin,
  .outputs = lw_kind_spring_outputs,
  .noutputs = 2,
};
