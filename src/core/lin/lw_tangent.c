/* lw_tangent.c: tangent models, the derivatives of a compiled model's
 * constants along one parameter.
 *
 * A tangent model (lw_tangent.dm) has the model's layout: every constant a
 * parameter can reach (those combine() below goes over: mass blocks,
 * gravity, the rows', coordinates' and outputs' vectors, the forces' and
 * controllers' constants, time-function coefficients, initial values,
 * the beams' initial node coordinates, objective terms) holds its derivative, every other member the model's
 * own value.  It is exact when every field the parameter is bound to has a
 * known derivative (field_tangent: the bodies' masses, centres of mass and
 * inertia, gravity, the forces' constants through their kinds' tangent
 * hooks, the drivers' coefficients, initial values, objective weights and
 * targets); otherwise (points, frames, joint directions, body placements:
 * they pass through the compile's frames) it is taken from the model
 * compiled at four perturbed values, by Richardson extrapolation.  Either
 * way the flags (which parts are nonzero) are read off the numbers
 * (tangent_flags_set), so that both paths set them alike. */
#include "lin/lw_tangent.h"
#include "lw_internal.h"
#include "compile/lw_compile.h"
#include "model/lw_error.h"
#include "la/lw_rowvec.h"
#include "kind/lw_kind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- o = sum_k c_k m_k over every constant a parameter can reach ---------- */
/* the four models' pointers to the same member: FOUR(&, rs, ->a) */
#define FOUR(pre, x, post) {pre x[0] post, pre x[1] post, pre x[2] post, pre x[3] post}

static int vx_same(const lw_vexpr *a, const lw_vexpr *b)
{
  if (a->nterm != b->nterm)
    return 0;
  for (int t = 0; t < a->nterm; t++)
    if (a->body[t] != b->body[t])
      return 0;
  return 1;
}

static int vx_same4(const lw_vexpr *const v[4])
{
  for (int k = 1; k < 4; k++)
    if (!vx_same(v[0], v[k]))
      return 0;
  return 1;
}

static void vx_comb(lw_vexpr *o, const lw_vexpr *const v[4], const double c[4])
{
  for (int t = 0; t < 2; t++)
    for (int j = 0; j < 4; j++) {
      double s = 0;
      for (int k = 0; k < 4; k++)
        s += c[k] * v[k]->w[t][j];
      o->w[t][j] = s;
    }
  for (int i = 0; i < 3; i++) {
    double s = 0;
    for (int k = 0; k < 4; k++)
      s += c[k] * v[k]->c[i];
    o->c[i] = s;
  }
}

static double comb(const double *const x[4], size_t i, const double c[4])
{
  double s = 0;
  for (int k = 0; k < 4; k++)
    s += c[k] * x[k][i];
  return s;
}

/* a time function's coefficients (a spline's values too: its times are
 * not parameters) */
static void func_comb(lw_func *o, const lw_func *const f[4], const double c[4])
{
  const double *fa[4] = FOUR(, f, ->a);
  for (int i = 0; i < LW_FUNC_MAXCOEF; i++)
    o->a[i] = comb(fa, (size_t)i, c);
  if (f[0]->type == LW_FUNC_SPLINE) {
    const double *fk[4] = FOUR(, f, ->knots);
    for (int i = 0; i < f[0]->n; i++)
      o->knots[i] = comb(fk, (size_t)i, c);
  }
}

/* the models have the same elements, connecting the same bodies (a
 * parameter that changes that cannot be differentiated) */
static int same_structure(lw_model *const mk[4])
{
  const lw_model *m = mk[0];
  for (int k = 1; k < 4; k++)
    if (mk[k]->nq != m->nq || mk[k]->nc != m->nc || mk[k]->nforces != m->nforces || mk[k]->nfbs != m->nfbs ||
        mk[k]->ncoords != m->ncoords || mk[k]->nout != m->nout || mk[k]->nterms != m->nterms ||
        mk[k]->nfric != m->nfric || mk[k]->nguards != m->nguards)
      return 0;
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *fs[4] = FOUR(&, mk, ->fric[e]);
    const lw_vexpr *vo[4] = FOUR(&, fs, ->o), *vx[4] = FOUR(&, fs, ->x);
    const lw_vexpr *vy[4] = FOUR(&, fs, ->y), *vz[4] = FOUR(&, fs, ->z);
    if (!vx_same4(vo) || !vx_same4(vx) || !vx_same4(vy) || !vx_same4(vz))
      return 0;
  }
  for (int r = 0; r < m->nc; r++) {
    const lw_row *rs[4] = FOUR(&, mk, ->rows[r]);
    const lw_vexpr *va[4] = FOUR(&, rs, ->a), *vb[4] = FOUR(&, rs, ->b);
    const lw_vexpr *vc[4] = FOUR(&, rs, ->c), *vd[4] = FOUR(&, rs, ->d);
    if (!vx_same4(va) || !vx_same4(vb) || !vx_same4(vc) || !vx_same4(vd))
      return 0;
    for (int k = 1; k < 4; k++)
      if (rs[k]->kind != rs[0]->kind)
        return 0;
  }
  for (int i = 0; i < m->ncoords; i++) {
    const lw_coord *cs[4] = FOUR(&, mk, ->coords[i]);
    const lw_vexpr *va[4] = FOUR(&, cs, ->a), *vb[4] = FOUR(&, cs, ->b);
    const lw_vexpr *vc[4] = FOUR(&, cs, ->c), *vd[4] = FOUR(&, cs, ->d);
    if (!vx_same4(va) || !vx_same4(vb) || !vx_same4(vc) || !vx_same4(vd))
      return 0;
  }
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *fs[4] = FOUR(&, mk, ->forces[n]);
    const lw_vexpr *vv[4] = FOUR(&, fs, ->v);
    if (!vx_same4(vv))
      return 0;
    for (int k = 1; k < 4; k++)
      if (fs[k]->type != fs[0]->type)
        return 0;
  }
  return 1;
}

static void comb_bodies(lw_model *o, lw_model *const mk[4], const double c[4])
{
  const lw_model *m = mk[0];
  const double *x[4] = FOUR(, mk, ->mass_blocks);
  for (size_t i = 0; i < m->mblk_off[m->nb]; i++) /* the blocks packed by offset */
    o->mass_blocks[i] = comb(x, i, c);
  const double *g[4] = FOUR(, mk, ->qgrav);
  for (int i = 0; i < m->nq; i++)
    o->qgrav[i] = comb(g, (size_t)i, c);
}

/* the rows' vectors and constants, and the functions of the drivers' rows */
static void comb_rows(lw_model *o, lw_model *const mk[4], const double c[4])
{
  for (int r = 0; r < mk[0]->nc; r++) {
    const lw_row *rs[4] = FOUR(&, mk, ->rows[r]);
    lw_row *ro = &o->rows[r];
    const lw_vexpr *va[4] = FOUR(&, rs, ->a), *vb[4] = FOUR(&, rs, ->b);
    const lw_vexpr *vc[4] = FOUR(&, rs, ->c), *vd[4] = FOUR(&, rs, ->d);
    vx_comb(&ro->a, va, c);
    vx_comb(&ro->b, vb, c);
    vx_comb(&ro->c, vc, c);
    vx_comb(&ro->d, vd, c);
    const double *c0[4] = FOUR(&, rs, ->c0);
    ro->c0 = comb(c0, 0, c);
    int f = rs[0]->func;
    if (f >= 0) {
      const lw_func *fs[4] = FOUR(&, mk, ->drivers[f]);
      func_comb(&o->drivers[f], fs, c);
    }
  }
}

static void comb_coords(lw_model *o, lw_model *const mk[4], const double c[4])
{
  for (int i = 0; i < mk[0]->ncoords; i++) {
    const lw_coord *cs[4] = FOUR(&, mk, ->coords[i]);
    lw_coord *co = &o->coords[i];
    const lw_vexpr *va[4] = FOUR(&, cs, ->a), *vb[4] = FOUR(&, cs, ->b);
    const lw_vexpr *vc[4] = FOUR(&, cs, ->c), *vd[4] = FOUR(&, cs, ->d);
    vx_comb(&co->a, va, c);
    vx_comb(&co->b, vb, c);
    vx_comb(&co->c, vc, c);
    vx_comb(&co->d, vd, c);
    const double *off[4] = FOUR(&, cs, ->offset);
    co->offset = comb(off, 0, c);
  }
}

/* a controller's measure: gains and target */
static void comb_fb(lw_fb *bo, const lw_fb *const bs[4], const double c[4])
{
  const double *kp[4] = FOUR(&, bs, ->kp), *kd[4] = FOUR(&, bs, ->kd), *ki[4] = FOUR(&, bs, ->ki);
  bo->kp = comb(kp, 0, c);
  bo->kd = comb(kd, 0, c);
  bo->ki = comb(ki, 0, c);
  const lw_func *rs[4] = FOUR(&, bs, ->r);
  func_comb(&bo->r, rs, c);
}

static void comb_forces(lw_model *o, lw_model *const mk[4], const double c[4])
{
  for (int n = 0; n < mk[0]->nforces; n++) {
    const lw_force *fs[4] = FOUR(&, mk, ->forces[n]);
    lw_force *fo = &o->forces[n];
    const lw_vexpr *vv[4] = FOUR(&, fs, ->v);
    vx_comb(&fo->v, vv, c);
    const double *kk[4] = FOUR(&, fs, ->k), *cc[4] = FOUR(&, fs, ->c), *rr[4] = FOUR(&, fs, ->rest);
    const double *vec[4] = FOUR(, fs, ->vec);
    fo->k = comb(kk, 0, c);
    fo->c = comb(cc, 0, c);
    fo->rest = comb(rr, 0, c);
    for (int i = 0; i < 3; i++)
      fo->vec[i] = comb(vec, (size_t)i, c);
    const lw_func *ff[4] = FOUR(&, fs, ->func);
    func_comb(&fo->func, ff, c);
    for (int k = 0; k < fs[0]->nfb; k++) {
      int i = fs[0]->fb0 + k;
      const lw_fb *bs[4] = FOUR(&, mk, ->fbs[i]);
      comb_fb(&o->fbs[i], bs, c);
    }
  }
}

/* joint friction: the parameters and the frame on body 2 */
static void comb_fric(lw_model *o, lw_model *const mk[4], const double c[4])
{
  for (int e = 0; e < mk[0]->nfric; e++) {
    const lw_jfric *fs[4] = FOUR(&, mk, ->fric[e]);
    lw_jfric *fo = &o->fric[e];
    const lw_vexpr *vo[4] = FOUR(&, fs, ->o), *vx[4] = FOUR(&, fs, ->x);
    const lw_vexpr *vy[4] = FOUR(&, fs, ->y), *vz[4] = FOUR(&, fs, ->z);
    vx_comb(&fo->o, vo, c);
    vx_comb(&fo->x, vx, c);
    vx_comb(&fo->y, vy, c);
    vx_comb(&fo->z, vz, c);
    const double *fp[4] = FOUR(, fs, ->p);
    for (int k = 0; k < LW_FRICTION_NPARAMS; k++)
      fo->p[k] = comb(fp, (size_t)k, c);
  }
}

/* initial values, the initial guess (the bodies' placements, the beams'
 * straight coordinates), the outputs' vectors, the objectives' terms */
static void comb_rest(lw_model *o, lw_model *const mk[4], const double c[4])
{
  const lw_model *m = mk[0];
  const double *q0[4] = FOUR(, mk, ->q0);
  for (int i = 0; i < m->nq; i++)
    o->q0[i] = comb(q0, (size_t)i, c);
  const double *iv[4] = FOUR(, mk, ->init_value), *id[4] = FOUR(, mk, ->init_vel);
  for (int i = 0; i < m->ninit; i++) {
    o->init_value[i] = comb(iv, (size_t)i, c);
    o->init_vel[i] = comb(id, (size_t)i, c);
  }
  for (int k = 0; k < m->nout; k++) {
    const lw_vexpr *vv[4] = FOUR(&, mk, ->outputs[k].v);
    vx_comb(&o->outputs[k].v, vv, c);
  }
  for (int k = 0; k < m->nterms; k++) {
    const double *wt[4] = FOUR(&, mk, ->terms[k].weight), *tt[4] = FOUR(, mk, ->terms[k].target);
    o->terms[k].weight = comb(wt, 0, c);
    for (int i = 0; i < 3; i++)
      o->terms[k].target[i] = comb(tt, (size_t)i, c);
  }
  /* the events' guards: the point and normal of a contact, the bound or
   * value, the restitution (the rest speed is a threshold, not varied) */
  for (int k = 0; k < m->nguards; k++) {
    const lw_vexpr *gv[4] = FOUR(&, mk, ->guards[k].v);
    vx_comb(&o->guards[k].v, gv, c);
    const double *gn[4] = FOUR(, mk, ->guards[k].n), *go[4] = FOUR(&, mk, ->guards[k].offset);
    const double *ge[4] = FOUR(&, mk, ->guards[k].e);
    for (int i = 0; i < 3; i++)
      o->guards[k].n[i] = comb(gn, (size_t)i, c);
    o->guards[k].offset = comb(go, 0, c);
    o->guards[k].e = comb(ge, 0, c);
  }
}

/* o = sum_k c_k mk[k] (o may be one of them: each constant is read before
 * it is written); -1 when the models differ in structure */
static int combine(lw_model *o, lw_model *const mk[4], const double c[4])
{
  if (!same_structure(mk))
    return -1;
  comb_bodies(o, mk, c);
  comb_rows(o, mk, c);
  comb_coords(o, mk, c);
  comb_forces(o, mk, c);
  comb_fric(o, mk, c);
  comb_rest(o, mk, c);
  return 0;
}

/* every constant a parameter can reach set to 0 */
static void zero_constants(lw_model *m)
{
  lw_model *mk[4] = {m, m, m, m};
  double c[4] = {0, 0, 0, 0};
  combine(m, mk, c);
}

/* ---- which parts of a tangent are nonzero ---------------------------------- */
static int nonzero(const double *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (x[i] != 0.0)
      return 1;
  return 0;
}

static int vx_nonzero(const lw_vexpr *v)
{
  return nonzero(v->w[0], 4) || nonzero(v->w[1], 4) || nonzero(v->c, 3);
}

static int func_nonzero(const lw_func *f)
{
  return nonzero(f->a, LW_FUNC_MAXCOEF) || (f->type == LW_FUNC_SPLINE && nonzero(f->knots, (size_t)f->n));
}

static void tangent_flags_alloc(lw_tangent *t, const lw_model *m)
{
  t->row_on = calloc((size_t)m->nc + 1, 1);
  t->force_on = calloc((size_t)m->nforces + 1, 1);
  t->body_on = calloc((size_t)m->nb + 1, 1);
  t->coord_on = calloc((size_t)m->ncoords + 1, 1);
  t->out_on = calloc((size_t)m->nout + 1, 1);
  t->term_on = calloc((size_t)m->nterms + 1, 1);
  t->row_vx_on = calloc((size_t)m->nc + 1, 1);
  t->force_vx_on = calloc((size_t)m->nforces + 1, 1);
  t->fric_on = calloc((size_t)m->nfric + 1, 1);
}

/* a force is on when a constant of its own or of its measures moves, or a
 * coordinate it acts along or measures does */
static int force_on(const lw_tangent *t, const lw_model *o, int n)
{
  const lw_force *f = &o->forces[n];
  int on = t->force_vx_on[n] || f->k != 0.0 || f->c != 0.0 || f->rest != 0.0 || nonzero(f->vec, 3) ||
           func_nonzero(&f->func);
  if (lw_force_kind_of(f->type)->on_joint && t->coord_on[f->coord])
    on = 1;
  for (int k = 0; k < f->nfb; k++) {
    const lw_fb *b = &o->fbs[f->fb0 + k];
    if (b->kp != 0.0 || b->kd != 0.0 || b->ki != 0.0 || func_nonzero(&b->r) || t->coord_on[b->coord])
      on = 1;
  }
  return on;
}

/* the flags of t from the numbers of t->dm */
static void tangent_flags_set(lw_tangent *t)
{
  const lw_model *o = t->dm;
  for (int b = 0; b < o->nb; b++) {
    size_t nb2 = (size_t)o->blk_n[b] * (size_t)o->blk_n[b];
    t->any |= t->body_on[b] = (char)nonzero(o->mass_blocks + o->mblk_off[b], nb2);
  }
  t->any |= t->grav_on = nonzero(o->qgrav, (size_t)o->nq);
  for (int r = 0; r < o->nc; r++) {
    const lw_row *row = &o->rows[r];
    t->row_vx_on[r] = (char)(vx_nonzero(&row->a) || vx_nonzero(&row->b) || vx_nonzero(&row->c) ||
                             vx_nonzero(&row->d));
    t->any |= t->row_on[r] = (char)(t->row_vx_on[r] || row->c0 != 0.0 ||
                                    (row->func >= 0 && func_nonzero(&o->drivers[row->func])));
  }
  for (int i = 0; i < o->ncoords; i++) {
    const lw_coord *co = &o->coords[i];
    t->any |= t->coord_on[i] = (char)(vx_nonzero(&co->a) || vx_nonzero(&co->b) || vx_nonzero(&co->c) ||
                                      vx_nonzero(&co->d) || co->offset != 0.0);
  }
  for (int n = 0; n < o->nforces; n++) {
    t->force_vx_on[n] = (char)vx_nonzero(&o->forces[n].v);
    t->any |= t->force_on[n] = (char)force_on(t, o, n);
  }
  for (int e = 0; e < o->nfric; e++) {
    const lw_jfric *f = &o->fric[e];
    t->any |= t->fric_on[e] = (char)(vx_nonzero(&f->o) || vx_nonzero(&f->x) || vx_nonzero(&f->y) ||
                                     vx_nonzero(&f->z) || nonzero(f->p, LW_FRICTION_NPARAMS));
  }
  for (int i = 0; i < o->ninit; i++)
    t->init_on |= o->init_value[i] != 0.0 || o->init_vel[i] != 0.0;
  t->any |= t->init_on;
  t->any |= nonzero(o->q0 + o->blk_off[o->nbd], (size_t)(o->nq - o->blk_off[o->nbd]));
  for (int k = 0; k < o->nout; k++)
    t->any |= t->out_on[k] = (char)vx_nonzero(&o->outputs[k].v);
  for (int k = 0; k < o->nterms; k++)
    t->any |= t->term_on[k] = (char)(o->terms[k].weight != 0.0 || nonzero(o->terms[k].target, 3));
  for (int k = 0; k < o->nguards; k++) {
    const lw_guard *g = &o->guards[k];
    t->any |= vx_nonzero(&g->v) || nonzero(g->n, 3) || g->offset != 0.0 || g->e != 0.0;
  }
  t->guess_on = nonzero(o->q0, (size_t)o->blk_off[o->nbd]);
  t->guess_only = t->guess_on && !t->any;
  t->any |= t->guess_on;
}

/* the summary flags tangent_flags_set accumulates, cleared before it runs
 * again on changed numbers */
static void tangent_flags_clear(lw_tangent *t)
{
  t->any = 0;
  t->grav_on = 0;
  t->init_on = 0;
}

void lw_tangent_free(lw_tangent *t)
{
  if (!t)
    return;
  if (!t->shared_dm)
    lw_model_free(t->dm);
  free(t->row_on);
  free(t->force_on);
  free(t->body_on);
  free(t->coord_on);
  free(t->out_on);
  free(t->term_on);
  free(t->row_vx_on);
  free(t->force_vx_on);
  free(t->fric_on);
  free(t);
}

/* ---- exact derivatives of the fields ------------------------------------- */
/* body b's mass, centre of mass or inertia: its mass block and gravity */
static int body_field_tangent(const lw_model *m, const double *x, lw_model *dm)
{
  const lw_desc *d = m->desc;
  for (int b = 0; b < d->nbodies; b++) {
    const lw_body_desc *bd = &d->bodies[b];
    double dmass = x == &bd->mass, dcom[3] = {0, 0, 0}, dI[6] = {0, 0, 0, 0, 0, 0}, dg[3] = {0, 0, 0};
    int ic = lw_field_index(x, bd->com, 3), iI = lw_field_index(x, bd->inertia, 6);
    if (!dmass && ic < 0 && iI < 0)
      continue;
    if (ic >= 0)
      dcom[ic] = 1.0;
    if (iI >= 0)
      dI[iI] = 1.0;
    if (dm)
      lw_body_tangent(m, b, dmass, dcom, dI, dg, dm->mass_blocks + m->mblk_off[b], dm->qgrav + m->blk_off[b]);
    return 1;
  }
  return 0;
}

/* gravity component K: every body's generalized gravity */
static int gravity_field_tangent(const lw_model *m, const double *x, lw_model *dm)
{
  int k = lw_field_index(x, m->desc->gravity, 3);
  if (k < 0)
    return 0;
  double z[6] = {0, 0, 0, 0, 0, 0}, dg[3] = {0, 0, 0};
  dg[k] = 1.0;
  for (int b = 0; dm && b < m->nbd; b++)
    lw_body_tangent(m, b, 0.0, z, z, dg, dm->mass_blocks + m->mblk_off[b], dm->qgrav + m->blk_off[b]);
  for (int b = m->nbd; dm && b < m->nb; b++)
    lw_beam_tangent(m, b, 0.0, dg, dm->mass_blocks + m->mblk_off[b], dm->qgrav + m->blk_off[b]);
  return 1;
}

/* beams/NAME/...: the kind's tangent hook on each of its elements (their
 * constants, mass blocks and gravity) */
static int beam_field_tangent(const lw_model *m, const char *path, const double *x, lw_model *dm)
{
  const char *name = path + 6, *sl = strchr(name, '/');
  size_t nl = sl ? (size_t)(sl - name) : strlen(name);
  for (int k = 0; k < m->nbeams; k++) {
    const char *bn = m->desc->beams[k].name;
    if (strlen(bn) != nl || strncmp(bn, name, nl))
      continue;
    const lw_force_kind *kd = lw_force_kind_of(LW_FORCE_BEAM);
    int ok = 1;
    for (int e = 0; e < m->beams[k].nel; e++)
      ok &= kd->tangent(m, m->beams[k].force0 + e, x, dm);
    return ok;
  }
  return 0;
}

/* a driver's coefficient, an initial value or velocity, an objective
 * term's weight or target: each its compiled constant */
static int value_field_tangent(const lw_model *m, const double *x, lw_model *dm)
{
  const lw_desc *d = m->desc;
  int i, knot;
  for (int k = 0; k < d->ndrivers; k++)
    if ((i = lw_kind_func_coef(&d->drivers[k].func, x, &knot)) >= 0) {
      lw_kind_tangent_add(dm ? lw_kind_func_at(&dm->drivers[k], i, knot) : NULL, 1.0);
      return 1;
    }
  for (int k = 0; k < m->ninit; k++)
    if (x == &d->initial[k].value || x == &d->initial[k].velocity) {
      lw_kind_tangent_add(dm ? (x == &d->initial[k].value ? &dm->init_value[k] : &dm->init_vel[k]) : NULL, 1.0);
      return 1;
    }
  for (int o = 0; o < d->nobjectives; o++)
    for (int k = 0; k < d->objectives[o].nterms; k++) {
      const lw_term_desc *td = &d->objectives[o].terms[k];
      lw_term *dt = dm ? &dm->terms[m->objs[o].first + k] : NULL;
      if (x == &td->weight) {
        lw_kind_tangent_add(dt ? &dt->weight : NULL, 1.0);
        return 1;
      }
      if ((i = lw_field_index(x, td->target, 3)) >= 0) {
        lw_kind_tangent_add(dt ? &dt->target[i] : NULL, 1.0);
        return 1;
      }
    }
  return 0;
}

/* joints/NAME/friction/FIELD: the friction element's parameter (v_t left
 * at 0 takes its default from the step, which is no parameter) */
static int friction_field_tangent(const lw_model *m, const double *x, lw_model *dm)
{
  const lw_desc *d = m->desc;
  for (int j = 0; j < d->njoints; j++) {
    int k = lw_field_index(x, d->joints[j].friction, LW_FRICTION_NPARAMS);
    if (k < 0)
      continue;
    int e = m->joint_fric ? m->joint_fric[j] : -1;
    if (e < 0 || (k == 2 && d->joints[j].friction[k] == 0.0))
      return 0;
    if (dm)
      dm->fric[e].p[k] += 1.0;
    return 1;
  }
  return 0;
}

/* forces/NAME/...: the element's kind */
static int force_field_tangent(const lw_model *m, const char *path, const double *x, lw_model *dm)
{
  const char *name = path + 7, *sl = strchr(name, '/');
  size_t nl = sl ? (size_t)(sl - name) : strlen(name);
  for (int n = 0; n < m->desc->nforces; n++) { /* the beams' elements follow, unnamed */
    const char *fn = m->desc->forces[n].name;
    if (strlen(fn) != nl || strncmp(fn, name, nl))
      continue;
    const lw_force_kind *k = lw_force_kind_of(m->forces[n].type);
    return k->tangent && k->tangent(m, n, x, dm);
  }
  return 0;
}

/* the derivative of every compiled constant that the field at address x
 * of m->desc (bound by path) reaches, added into dm; with dm NULL only
 * whether it is known exactly.  m's constants are not read (m may be dm). */
static int field_tangent(const lw_model *m, const char *path, const double *x, lw_model *dm)
{
  if (!strncmp(path, "forces/", 7))
    return force_field_tangent(m, path, x, dm);
  if (!strncmp(path, "bodies/", 7))
    return body_field_tangent(m, x, dm);
  if (!strncmp(path, "beams/", 6))
    return beam_field_tangent(m, path, x, dm);
  if (!strncmp(path, "joints/", 7))
    return friction_field_tangent(m, x, dm);
  return gravity_field_tangent(m, x, dm) || value_field_tangent(m, x, dm);
}

/* the tangent of parameter pp on dm, the model compiled at its value,
 * exactly; NULL (dm untouched) when a field it is bound to has no exact
 * derivative.  A field bound twice counts once (it holds the value once). */
static lw_tangent *tangent_exact(lw_model *dm, const lw_param_desc *pp)
{
  const double **x = malloc(sizeof(double *) * ((size_t)pp->ntargets + 1));
  int *at = malloc(sizeof(int) * ((size_t)pp->ntargets + 1)), nx = 0, ok = x && at;
  for (int k = 0; ok && k < pp->ntargets; k++) {
    const double *f = lw_desc_field(dm->desc, pp->targets[k]);
    int seen = 0;
    for (int i = 0; i < nx; i++)
      seen |= x[i] == f;
    ok = f && (seen || field_tangent(dm, pp->targets[k], f, NULL));
    if (ok && !seen) {
      x[nx] = f;
      at[nx++] = k;
    }
  }
  lw_tangent *t = ok ? calloc(1, sizeof *t) : NULL;
  if (t) {
    zero_constants(dm);
    for (int i = 0; i < nx; i++)
      field_tangent(dm, pp->targets[at[i]], x[i], dm);
    t->dm = dm;
    tangent_flags_alloc(t, dm);
    tangent_flags_set(t);
  }
  free(x);
  free(at);
  return t;
}

/* ---- numerical derivatives ----------------------------------------------- */
/* d(compiled constants)/d(parameter j) by Richardson-extrapolated central
 * differences of the compilation, exact for constants polynomial of degree
 * <= 4 in the field up to round-off; other constants (normalized axes) to
 * O(eps^4).  base: the model compiled at the parameter's value (NULL: it is
 * compiled here), which becomes the tangent's dm (freed on failure). */
static lw_tangent *tangent_numeric(const lw_desc *desc, int j, lw_model *base, lw_error *err)
{
  lw_desc *dd = lw_desc_copy(desc);
  lw_param_desc *pp = &dd->params[j];
  double v = pp->value;
  double eps = 1e-3 * fmax(fabs(v), 1e-2);
  double off[4] = {eps, -eps, 0.5 * eps, -0.5 * eps};
  lw_model *mk[4] = {NULL, NULL, NULL, NULL};
  lw_tangent *t = NULL;
  for (int k = 0; k < 4; k++) {
    pp->value = v + off[k];
    mk[k] = lw_compile_constants(dd, err);
    if (!mk[k]) {
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg, "%s", err->msg);
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "parameter '%s' cannot be varied around %.17g: %.400s",
                   pp->name, v, msg);
      goto out;
    }
  }
  pp->value = v;
  if (!base)
    base = lw_compile_constants(dd, err);
  if (!base)
    goto out;
  t = calloc(1, sizeof *t);
  t->dm = base;
  base = NULL;
  tangent_flags_alloc(t, t->dm);
  /* (4 D(eps/2) - D(eps)) / 3, D(e) = (f(v + e) - f(v - e)) / (2 e) */
  double c[4] = {-1.0 / (6.0 * eps), 1.0 / (6.0 * eps), 4.0 / (3.0 * eps), -4.0 / (3.0 * eps)};
  if (combine(t->dm, mk, c)) {
    lw_set_error(err, LW_ERR_MODEL, "", NAN,
                 "parameter '%s' changes the structure of the model (which bodies a joint or force "
                 "connects); it cannot be differentiated",
                 pp->name);
    lw_tangent_free(t);
    t = NULL;
  } else {
    tangent_flags_set(t);
  }
out:
  lw_model_free(base);
  for (int k = 0; k < 4; k++)
    lw_model_free(mk[k]);
  lw_desc_free(dd);
  return t;
}

/* ---- a beam's start and end: its own constants exactly ------------------- */
/* beam k's elements' constants (mass blocks, gravity forces, initial
 * coordinates, element constants) set to 0 in dm */
static void beam_constants_zero(lw_model *dm, int k)
{
  const lw_beam *bm = &dm->beams[k];
  for (int e = 0; e < bm->nel; e++) {
    int b = bm->blk0 + e, n = dm->blk_n[b];
    memset(dm->mass_blocks + dm->mblk_off[b], 0, sizeof(double) * (size_t)n * (size_t)n);
    memset(dm->qgrav + dm->blk_off[b], 0, sizeof(double) * (size_t)n);
    memset(dm->q0 + dm->blk_off[b], 0, sizeof(double) * (size_t)n);
    lw_force *f = &dm->forces[bm->force0 + e];
    f->k = f->rest = 0.0;
    memset(f->vec, 0, sizeof f->vec);
  }
}

/* the distinct fields of dm->desc that parameter pp is bound to, n of them
 * (x: pp->ntargets entries), and the index of each one's first target */
static int param_fields(const lw_model *dm, const lw_param_desc *pp, const double **x, int *at)
{
  int nx = 0;
  for (int k = 0; k < pp->ntargets; k++) {
    const double *f = lw_desc_field(dm->desc, pp->targets[k]);
    int seen = !f;
    for (int i = 0; i < nx; i++)
      seen |= x[i] == f;
    if (!seen) {
      x[nx] = f;
      at[nx++] = k;
    }
  }
  return nx;
}

/* beam k's constants along the fields x (nx, first bound at targets at):
 * its start and end (lw_beam_geom_tangent), its other fields (the kind's
 * hook), gravity; 1 when the start or the end is among them */
static int beam_exact(lw_model *dm, const lw_param_desc *pp, int k, const double *const *x, const int *at, int nx)
{
  const lw_beam_desc *bd = &dm->desc->beams[k];
  const lw_beam *bm = &dm->beams[k];
  double dstart[3] = {0, 0, 0}, dend[3] = {0, 0, 0};
  int geom = 0;
  for (int i = 0; i < nx; i++) {
    int a = lw_field_index(x[i], bd->start, 3), b = lw_field_index(x[i], bd->end, 3);
    if (a >= 0)
      dstart[a] = 1.0;
    if (b >= 0)
      dend[b] = 1.0;
    geom |= a >= 0 || b >= 0;
  }
  if (!geom)
    return 0;
  beam_constants_zero(dm, k);
  lw_beam_geom_tangent(dm, k, dstart, dend, dm);
  const lw_force_kind *kd = lw_force_kind_of(LW_FORCE_BEAM);
  for (int i = 0; i < nx; i++) {
    int g = lw_field_index(x[i], dm->desc->gravity, 3);
    if (g >= 0) {
      double dg[3] = {0, 0, 0};
      dg[g] = 1.0;
      for (int e = 0; e < bm->nel; e++)
        lw_beam_tangent(dm, bm->blk0 + e, 0.0, dg, dm->mass_blocks + dm->mblk_off[bm->blk0 + e],
                        dm->qgrav + dm->blk_off[bm->blk0 + e]);
    } else if (!strncmp(pp->targets[at[i]], "beams/", 6)) {
      for (int e = 0; e < bm->nel; e++)
        kd->tangent(dm, bm->force0 + e, x[i], dm);
    }
  }
  return 1;
}

/* a numerical tangent of a parameter bound to a beam's start or end (the
 * joints and places on the beam pass through the compile's frames): the
 * beam's own constants replaced by their exact derivatives, those of the
 * element length, the initial line and every other field of the beam
 * bound with them; the flags set again */
static void beam_geometry_exact(lw_tangent *t, const lw_param_desc *pp)
{
  lw_model *dm = t->dm;
  const double **x = malloc(sizeof(double *) * ((size_t)pp->ntargets + 1));
  int *at = malloc(sizeof(int) * ((size_t)pp->ntargets + 1)), any = 0;
  if (x && at) {
    int nx = param_fields(dm, pp, x, at);
    for (int k = 0; k < dm->nbeams; k++)
      any |= beam_exact(dm, pp, k, x, at, nx);
  }
  free(x);
  free(at);
  if (any) {
    tangent_flags_clear(t);
    tangent_flags_set(t);
  }
}

lw_tangent *lw_tangent_new(const lw_desc *desc, int j, lw_error *err)
{
  lw_model *base = lw_compile_constants(desc, err);
  /* a binding with a factor or a product: from the compile (field_tangent
   * gives the derivatives of a field's value, not of the parameter's) */
  int plain = lw_param_is_plain(desc, j);
  lw_tangent *t = base && plain ? tangent_exact(base, &desc->params[j]) : NULL;
  if (t)
    return t;
  t = tangent_numeric(desc, j, base, err);
  if (t && plain) /* a beam's end points' constants exactly (bound plainly) */
    beam_geometry_exact(t, &desc->params[j]);
  return t;
}

lw_tangent *lw_tangent_new_exact(const lw_desc *desc, int j, lw_error *err)
{
  lw_model *base = lw_compile_constants(desc, err);
  lw_tangent *t = base && lw_param_is_plain(desc, j) ? tangent_exact(base, &desc->params[j]) : NULL;
  if (!t)
    lw_model_free(base);
  return t;
}

lw_tangent *lw_tangent_new_numeric(const lw_desc *desc, int j, lw_error *err)
{
  return tangent_numeric(desc, j, NULL, err);
}

lw_model *lw_tangent_zero_model(const lw_desc *desc, lw_error *err)
{
  lw_model *m = lw_compile_constants(desc, err);
  if (m)
    zero_constants(m);
  return m;
}

/* "forces/F/function/K" or "drivers/D/function/K": kind, element and K */
static int func_target(const lw_desc *d, const char *path, int *kind, int *idx, int *coef)
{
  const char *list = NULL;
  if (!strncmp(path, "forces/", 7)) {
    *kind = 1;
    list = path + 7;
  } else if (!strncmp(path, "drivers/", 8)) {
    *kind = 2;
    list = path + 8;
  } else {
    return 0;
  }
  const char *sl = strchr(list, '/');
  if (!sl || strncmp(sl, "/function/", 10))
    return 0;
  size_t nl = (size_t)(sl - list);
  char *end = NULL;
  long k = strtol(sl + 10, &end, 10);
  if (!end || *end || end == sl + 10 || k < 0)
    return 0;
  int n = *kind == 1 ? d->nforces : d->ndrivers;
  for (int i = 0; i < n; i++) {
    const char *nm = *kind == 1 ? d->forces[i].name : d->drivers[i].name;
    if (nm && strlen(nm) == nl && !strncmp(nm, list, nl)) {
      const lw_func *f = *kind == 1 ? &d->forces[i].func : &d->drivers[i].func;
      if (k >= lw_func_ncoef(f))
        return 0;
      *idx = i;
      *coef = (int)k;
      return 1;
    }
  }
  return 0;
}

lw_tangent *lw_tangent_new_func(const lw_desc *desc, int j, lw_model *zero)
{
  const lw_param_desc *pp = &desc->params[j];
  int kind = 0, idx = -1, coef = -1;
  if (pp->ntargets < 1 || !lw_param_is_plain(desc, j))
    return NULL;
  for (int k = 0; k < pp->ntargets; k++) {
    int kd, ix, cf;
    if (!func_target(desc, pp->targets[k], &kd, &ix, &cf))
      return NULL;
    if (k > 0 && (kd != kind || ix != idx || cf != coef))
      return NULL;
    kind = kd;
    idx = ix;
    coef = cf;
  }
  const lw_func *f = kind == 1 ? &desc->forces[idx].func : &desc->drivers[idx].func;
  if (f->type == LW_FUNC_SINE && coef != 0)
    return NULL; /* nonlinear in the coefficient: the general path */
  lw_tangent *t = calloc(1, sizeof *t);
  t->dm = zero;
  t->shared_dm = 1;
  tangent_flags_alloc(t, zero);
  t->fn_kind = kind;
  t->fn_index = idx;
  t->fn_coef = coef;
  t->fn_scale = 1.0; /* bound there more than once, it still holds the value once */
  lw_func_coef_support(f, coef, &t->fn_lo, &t->fn_hi);
  if (kind == 1) {
    t->force_on[idx] = 1;
  } else {
    for (int r = 0; r < zero->nc; r++)
      if (zero->rows[r].owner_kind == LW_OWNER_DRIVER && zero->rows[r].owner == idx)
        t->row_on[r] = 1;
  }
  t->any = 1;
  return t;
}


lw_tangent *lw_tangent_new_time(lw_model *zero, int kind, int idx)
{
  lw_tangent *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->dm = zero;
  t->shared_dm = 1;
  tangent_flags_alloc(t, zero);
  t->fn_kind = kind;
  t->fn_index = idx;
  t->fn_coef = LW_FN_TIME;
  t->fn_scale = 1.0;
  t->fn_lo = -INFINITY;
  t->fn_hi = INFINITY;
  if (kind == 1) {
    t->force_on[idx] = 1;
  } else {
    for (int r = 0; r < zero->nc; r++)
      if (zero->rows[r].owner_kind == LW_OWNER_DRIVER && zero->rows[r].owner == idx)
        t->row_on[r] = 1;
  }
  t->any = 1;
  return t;
}
