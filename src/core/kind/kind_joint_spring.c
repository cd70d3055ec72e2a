/* kind_joint_spring.c: the spring-damper on a joint coordinate x (an
 * angle or a distance, unwrapped), tau = -k (x - x0) - c x', acting as
 * Q = tau g with g = dx/dq. */
#include "lw_kind.h"
#include "lw_jvp_internal.h"

#include <stdio.h>

#include <string.h>

static int joint_spring_compile(lw_kind_build *b, const lw_force_desc *fd, lw_force *f)
{
  snprintf(b->path, sizeof b->path, "forces/%s/joint", fd->name);
  int ci;
  if (lw_build_coord(b, fd->joint, fd->coordinate, "joint spring-damper", &ci))
    return -1;
  f->coord = ci;
  f->nblk = b->m->coords[ci].nblk;
  memcpy(f->blk, b->m->coords[ci].blk, sizeof f->blk);
  return 0;
}

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
  lw_blk_add(m, c->nblk, c->blk, g, tau, Q);
  if (vals && c->nblk > 0)
    lw_mat_add_outer(m, vals, ks * f->k + cs * f->c, c->nblk, c->blk, c->pairpos, g);
}

/* -dQ/dq = -g a^T - tau H with a = k g + c (gd + cv g) (x' at the forces'
 * velocity argument v), H = d2x/dq2.  For an angle x = atan2(S, C),
 *   H = (gC gS^T - gS gC^T + C HS - S HC) / r2 - dr2 g^T / r2
 * (rows i; dr2 = 2 (S gS + C gC)), HS and HC constant (m->ch_v): the
 * outer products go through lw_sd_blocks, the constant parts from their
 * nonzeros */
static void joint_spring_lin(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                             double cv, const lw_bmat *KC, const lw_bmat *Cm)
{
  (void)pf;
  const lw_force *f = &m->forces[n];
  const lw_coord *c = &m->coords[f->coord];
  const lw_vexpr *ve[4] = {&c->a, &c->b, &c->c, &c->d};
  lw_sx o;
  lw_sx_eval(m, c->kind, ve, c->nblk, c->blk, p->q, p->v, &o);
  double x = lw_coord_continue(m, d, f->coord, o.x - c->offset);
  double tau = -f->k * (x - f->rest) - f->c * o.xd;
  int w = o.w, nqb = m->nqb;
  double a[2 * LW_MAXQB], b[2 * LW_MAXQB], e[2 * LW_MAXQB];
  for (int i = 0; i < w; i++)
    a[i] = f->k * o.g[i] + f->c * o.gd[i] + cv * f->c * o.g[i];
  double cs = -tau, cc = 0.0;
  if (o.angle) {
    double r2 = o.r2;
    for (int i = 0; i < w; i++) {
      a[i] += tau * 2.0 * (o.S * o.gS[i] + o.C * o.gC[i]) / r2;
      b[i] = -tau * o.gC[i] / r2;
      e[i] = tau * o.gS[i] / r2;
    }
    cs = -tau * o.C / r2;
    cc = tau * o.S / r2;
  }
  const double *u[3] = {o.g, o.gS, o.gC}, *v[3] = {a, b, e};
  lw_sd_blocks(m, f, c->blk, w, o.angle ? 3 : 1, u, v, NULL, tau, KC, Cm, m->nqb);
  if (!KC)
    return;
  for (int k = m->ch_ptr[f->coord]; k < m->ch_ptr[f->coord + 1]; k++) {
    int i = m->ch_ij[2 * k], j = m->ch_ij[2 * k + 1];
    int gi = c->blk[lw_qb_div(i, nqb)] * nqb + lw_qb_mod(i, nqb), gj = c->blk[lw_qb_div(j, nqb)] * nqb + lw_qb_mod(j, nqb);
    lw_bm_add(m, KC, gj, gi, cs * m->ch_v[2 * k] + cc * m->ch_v[2 * k + 1]);
  }
}

static void joint_spring_jvp(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                             const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ)
{
  (void)p;
  const lw_tangent *tg = dir->tg;
  const lw_model *tm = tg ? tg->dm : NULL;
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  int fon = tg && tg->force_on[n];
  const lw_coord *c = &m->coords[f->coord];
  if (!lw_dir_active(dir, state, c->nblk, c->blk, fon))
    return;
  lw_sc s;
  lw_coord_sc(m, fon ? tm : NULL, f->coord, pf, df, &s);
  double x = lw_coord_continue(m, d, f->coord, s.v - c->offset);
  double tau = -f->k * (x - f->rest) - f->c * s.r;
  double dtau = -f->k * s.dv - f->c * s.dr;
  if (fon)
    dtau += -tf->k * (x - f->rest) + f->k * tf->rest - tf->c * s.r;
  lw_blk_add(m, c->nblk, c->blk, s.g, dtau, dQ);
  lw_blk_add(m, c->nblk, c->blk, s.dg, tau, dQ);
}

static int joint_spring_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  *blk = m->coords[f->coord].blk;
  return m->coords[f->coord].nblk;
}

static void joint_spring_potential(const lw_model *m, lw_data *d, const lw_force *f, const double *q, double *V)
{
  const lw_coord *c = &m->coords[f->coord];
  double x = lw_coord_continue(m, d, f->coord, lw_coord_eval(m, c, q, NULL));
  *V += 0.5 * f->k * (x - f->rest) * (x - f->rest);
}

static void joint_spring_potential_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n,
                                       const lw_lin_point *p, const lw_lin_dir *dir, double *s)
{
  const lw_force *f = &m->forces[n];
  const lw_force *tf = tm ? &tm->forces[n] : NULL;
  const lw_coord *c = &m->coords[f->coord];
  lw_sc cs;
  lw_lin_point pc = *p;
  pc.qd = NULL;
  lw_coord_sc(m, tm, f->coord, &pc, dir, &cs);
  double x = lw_coord_continue(m, d, f->coord, cs.v - c->offset);
  *s += f->k * (x - f->rest) * cs.dv;
  if (tf)
    *s += 0.5 * tf->k * (x - f->rest) * (x - f->rest) - f->k * (x - f->rest) * tf->rest;
}

static void joint_spring_length(const lw_model *m, const lw_data *d, const lw_force *f, const double *q,
                                const double *qd, double *x, double *xd)
{
  const lw_coord *c = &m->coords[f->coord];
  *x = lw_coord_continue(m, d, f->coord, lw_coord_eval(m, c, q, NULL));
  *xd = lw_coord_rate(m, c, q, qd);
}

static double joint_spring_damper_power(const lw_model *m, const lw_data *d, const lw_force *f, const double *q,
                                        const double *qd)
{
  if (f->c == 0.0)
    return 0.0;
  double x, xd;
  joint_spring_length(m, d, f, q, qd, &x, &xd);
  return f->c * xd * xd;
}

static void joint_spring_length_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n,
                                    const lw_lin_point *p, const lw_lin_dir *dir, double *x, double *dx, double *xd,
                                    double *dxd)
{
  const lw_force *f = &m->forces[n];
  const lw_coord *c = &m->coords[f->coord];
  lw_sc cs;
  lw_coord_sc(m, tm, f->coord, p, dir, &cs);
  *x = lw_coord_continue(m, d, f->coord, cs.v - c->offset);
  *dx = cs.dv;
  *xd = cs.r;
  *dxd = cs.dr;
}

const lw_force_kind lw_kind_joint_spring_damper = {
  .name = "joint_spring_damper",
  .compile = joint_spring_compile,
  .eval = joint_spring_eval,
  .lin = joint_spring_lin,
  .jvp = joint_spring_jvp,
  .blocks = joint_spring_blocks,
  .potential = joint_spring_potential,
  .potential_jvp = joint_spring_potential_jvp,
  .damper_power = joint_spring_damper_power,
  .length = joint_spring_length,
  .length_jvp = joint_spring_length_jvp,
  .on_coord = 1,
};
