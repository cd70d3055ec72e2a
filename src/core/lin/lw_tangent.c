/* lw_tangent.c: tangent models, the derivatives of a compiled model's
 * constants along one parameter. */
#include "lw_internal.h"
#include "la/lw_rowvec.h"
#include "kind/lw_kind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- tangent models -------------------------------------------------------- */
static int vx_same(const lw_vexpr *a, const lw_vexpr *b)
{
  if (a->nterm != b->nterm)
    return 0;
  for (int t = 0; t < a->nterm; t++)
    if (a->body[t] != b->body[t])
      return 0;
  return 1;
}

static void vx_comb(lw_vexpr *o, const lw_vexpr *const v[4], const double c[4], int *on)
{
  for (int t = 0; t < 2; t++)
    for (int j = 0; j < 4; j++) {
      double s = 0;
      for (int k = 0; k < 4; k++)
        s += c[k] * v[k]->w[t][j];
      o->w[t][j] = s;
      *on |= s != 0.0;
    }
  for (int i = 0; i < 3; i++) {
    double s = 0;
    for (int k = 0; k < 4; k++)
      s += c[k] * v[k]->c[i];
    o->c[i] = s;
    *on |= s != 0.0;
  }
}

static double comb(const double *const x[4], size_t i, const double c[4], int *on)
{
  double s = 0;
  for (int k = 0; k < 4; k++)
    s += c[k] * x[k][i];
  *on |= s != 0.0;
  return s;
}

static void tangent_flags(lw_tangent *t, const lw_model *m);

#define VXS(M, field) {&(M)[0]->field, &(M)[1]->field, &(M)[2]->field, &(M)[3]->field}

/* t = sum_k c_k m_k over every constant a parameter can reach; returns -1
 * when the models differ in structure */
static int combine(lw_tangent *t, lw_model *const mk[4], const double c[4])
{
  lw_model *o = t->dm;
  const lw_model *m = mk[0];
  for (int k = 1; k < 4; k++)
    if (mk[k]->nq != m->nq || mk[k]->nc != m->nc || mk[k]->nforces != m->nforces || mk[k]->nfbs != m->nfbs ||
        mk[k]->ncoords != m->ncoords || mk[k]->nout != m->nout || mk[k]->nterms != m->nterms)
      return -1;
  for (int b = 0; b < m->nb; b++) {
    int on = 0;
    for (int i = 0; i < m->blk_n[b] * m->blk_n[b]; i++) {
      size_t idx = m->mblk_off[b] + (size_t)i;
      const double *x[4] = {mk[0]->mass_blocks, mk[1]->mass_blocks, mk[2]->mass_blocks, mk[3]->mass_blocks};
      o->mass_blocks[idx] = comb(x, idx, c, &on);
    }
    t->body_on[b] = on;
    t->any |= on;
  }
  {
    int on = 0;
    const double *x[4] = {mk[0]->qgrav, mk[1]->qgrav, mk[2]->qgrav, mk[3]->qgrav};
    for (int i = 0; i < m->nq; i++)
      o->qgrav[i] = comb(x, (size_t)i, c, &on);
    t->grav_on = on;
    t->any |= on;
  }
  for (int r = 0; r < m->nc; r++) {
    const lw_row *rs[4] = {&mk[0]->rows[r], &mk[1]->rows[r], &mk[2]->rows[r], &mk[3]->rows[r]};
    lw_row *ro = &o->rows[r];
    int on = 0;
    for (int k = 1; k < 4; k++)
      if (!vx_same(&rs[0]->a, &rs[k]->a) || !vx_same(&rs[0]->b, &rs[k]->b) ||
          !vx_same(&rs[0]->c, &rs[k]->c) || !vx_same(&rs[0]->d, &rs[k]->d) || rs[0]->kind != rs[k]->kind)
        return -1;
    const lw_vexpr *va[4] = {&rs[0]->a, &rs[1]->a, &rs[2]->a, &rs[3]->a};
    const lw_vexpr *vb[4] = {&rs[0]->b, &rs[1]->b, &rs[2]->b, &rs[3]->b};
    const lw_vexpr *vc[4] = {&rs[0]->c, &rs[1]->c, &rs[2]->c, &rs[3]->c};
    const lw_vexpr *vd[4] = {&rs[0]->d, &rs[1]->d, &rs[2]->d, &rs[3]->d};
    int vx_on = 0;
    vx_comb(&ro->a, va, c, &vx_on);
    vx_comb(&ro->b, vb, c, &vx_on);
    vx_comb(&ro->c, vc, c, &vx_on);
    vx_comb(&ro->d, vd, c, &vx_on);
    t->row_vx_on[r] = (char)vx_on;
    on |= vx_on;
    const double *c0[4] = {&rs[0]->c0, &rs[1]->c0, &rs[2]->c0, &rs[3]->c0};
    ro->c0 = comb(c0, 0, c, &on);
    if (rs[0]->func >= 0) {
      int f = rs[0]->func;
      const double *fa[4] = {mk[0]->drivers[f].a, mk[1]->drivers[f].a, mk[2]->drivers[f].a, mk[3]->drivers[f].a};
      for (int i = 0; i < LW_FUNC_MAXCOEF; i++)
        o->drivers[f].a[i] = comb(fa, (size_t)i, c, &on);
      if (m->drivers[f].type == LW_FUNC_SPLINE) {
        const double *fk[4] = {mk[0]->drivers[f].knots, mk[1]->drivers[f].knots, mk[2]->drivers[f].knots,
                               mk[3]->drivers[f].knots};
        for (int i = 0; i < m->drivers[f].n; i++)
          o->drivers[f].knots[i] = comb(fk, (size_t)i, c, &on);
      }
    }
    t->row_on[r] = on;
    t->any |= on;
  }
  for (int i = 0; i < m->ncoords; i++) {
    const lw_coord *cs[4] = {&mk[0]->coords[i], &mk[1]->coords[i], &mk[2]->coords[i], &mk[3]->coords[i]};
    lw_coord *co = &o->coords[i];
    int on = 0;
    for (int k = 1; k < 4; k++)
      if (!vx_same(&cs[0]->a, &cs[k]->a) || !vx_same(&cs[0]->b, &cs[k]->b) ||
          !vx_same(&cs[0]->c, &cs[k]->c) || !vx_same(&cs[0]->d, &cs[k]->d))
        return -1;
    const lw_vexpr *va[4] = {&cs[0]->a, &cs[1]->a, &cs[2]->a, &cs[3]->a};
    const lw_vexpr *vb[4] = {&cs[0]->b, &cs[1]->b, &cs[2]->b, &cs[3]->b};
    const lw_vexpr *vc[4] = {&cs[0]->c, &cs[1]->c, &cs[2]->c, &cs[3]->c};
    const lw_vexpr *vd[4] = {&cs[0]->d, &cs[1]->d, &cs[2]->d, &cs[3]->d};
    vx_comb(&co->a, va, c, &on);
    vx_comb(&co->b, vb, c, &on);
    vx_comb(&co->c, vc, c, &on);
    vx_comb(&co->d, vd, c, &on);
    const double *off[4] = {&cs[0]->offset, &cs[1]->offset, &cs[2]->offset, &cs[3]->offset};
    co->offset = comb(off, 0, c, &on);
    t->coord_on[i] = on;
    t->any |= on;
  }
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *fs[4] = {&mk[0]->forces[n], &mk[1]->forces[n], &mk[2]->forces[n], &mk[3]->forces[n]};
    lw_force *fo = &o->forces[n];
    int on = 0;
    for (int k = 1; k < 4; k++)
      if (!vx_same(&fs[0]->v, &fs[k]->v) || fs[0]->type != fs[k]->type)
        return -1;
    const lw_vexpr *vv[4] = {&fs[0]->v, &fs[1]->v, &fs[2]->v, &fs[3]->v};
    int vx_on = 0;
    vx_comb(&fo->v, vv, c, &vx_on);
    t->force_vx_on[n] = (char)vx_on;
    on |= vx_on;
    const double *kk[4] = {&fs[0]->k, &fs[1]->k, &fs[2]->k, &fs[3]->k};
    const double *cc[4] = {&fs[0]->c, &fs[1]->c, &fs[2]->c, &fs[3]->c};
    const double *rr[4] = {&fs[0]->rest, &fs[1]->rest, &fs[2]->rest, &fs[3]->rest};
    const double *vec[4] = {fs[0]->vec, fs[1]->vec, fs[2]->vec, fs[3]->vec};
    const double *fa[4] = {fs[0]->func.a, fs[1]->func.a, fs[2]->func.a, fs[3]->func.a};
    fo->k = comb(kk, 0, c, &on);
    fo->c = comb(cc, 0, c, &on);
    fo->rest = comb(rr, 0, c, &on);
    for (int i = 0; i < 3; i++)
      fo->vec[i] = comb(vec, (size_t)i, c, &on);
    for (int i = 0; i < LW_FUNC_MAXCOEF; i++)
      fo->func.a[i] = comb(fa, (size_t)i, c, &on);
    if (fs[0]->func.type == LW_FUNC_SPLINE) {
      const double *fk[4] = {fs[0]->func.knots, fs[1]->func.knots, fs[2]->func.knots, fs[3]->func.knots};
      for (int i = 0; i < fs[0]->func.n; i++)
        fo->func.knots[i] = comb(fk, (size_t)i, c, &on);
    }
    if (lw_force_kind_of(fs[0]->type)->on_joint && t->coord_on[fs[0]->coord])
      on = 1; /* and a controller's measures (none for other kinds): */
    {
      for (int k = 0; k < fs[0]->nfb; k++) {
        int i = fs[0]->fb0 + k;
        const lw_fb *bs[4] = {&mk[0]->fbs[i], &mk[1]->fbs[i], &mk[2]->fbs[i], &mk[3]->fbs[i]};
        lw_fb *bo = &o->fbs[i];
        const double *kp[4] = {&bs[0]->kp, &bs[1]->kp, &bs[2]->kp, &bs[3]->kp};
        const double *kd[4] = {&bs[0]->kd, &bs[1]->kd, &bs[2]->kd, &bs[3]->kd};
        const double *ki[4] = {&bs[0]->ki, &bs[1]->ki, &bs[2]->ki, &bs[3]->ki};
        const double *ra[4] = {bs[0]->r.a, bs[1]->r.a, bs[2]->r.a, bs[3]->r.a};
        bo->kp = comb(kp, 0, c, &on);
        bo->kd = comb(kd, 0, c, &on);
        bo->ki = comb(ki, 0, c, &on);
        for (int j = 0; j < LW_FUNC_MAXCOEF; j++)
          bo->r.a[j] = comb(ra, (size_t)j, c, &on);
        if (bs[0]->r.type == LW_FUNC_SPLINE) {
          const double *rk[4] = {bs[0]->r.knots, bs[1]->r.knots, bs[2]->r.knots, bs[3]->r.knots};
          for (int j = 0; j < bs[0]->r.n; j++)
            bo->r.knots[j] = comb(rk, (size_t)j, c, &on);
        }
        if (t->coord_on[bs[0]->coord])
          on = 1;
      }
    }
    t->force_on[n] = on;
    t->any |= on;
  }
  for (int i = 0; i < m->ninit; i++) {
    int on = 0;
    const double *iv[4] = {mk[0]->init_value, mk[1]->init_value, mk[2]->init_value, mk[3]->init_value};
    const double *id[4] = {mk[0]->init_vel, mk[1]->init_vel, mk[2]->init_vel, mk[3]->init_vel};
    o->init_value[i] = comb(iv, (size_t)i, c, &on);
    o->init_vel[i] = comb(id, (size_t)i, c, &on);
    t->any |= on;
    t->init_on |= on;
  }
  for (int k = 0; k < m->nout; k++) {
    int on = 0;
    const lw_vexpr *vv[4] = {&mk[0]->outputs[k].v, &mk[1]->outputs[k].v, &mk[2]->outputs[k].v,
                             &mk[3]->outputs[k].v};
    vx_comb(&o->outputs[k].v, vv, c, &on);
    t->out_on[k] = on;
    t->any |= on;
  }
  for (int k = 0; k < m->nterms; k++) {
    int on = 0;
    const double *wt[4] = {&mk[0]->terms[k].weight, &mk[1]->terms[k].weight, &mk[2]->terms[k].weight,
                           &mk[3]->terms[k].weight};
    const double *tt[4] = {mk[0]->terms[k].target, mk[1]->terms[k].target, mk[2]->terms[k].target,
                           mk[3]->terms[k].target};
    o->terms[k].weight = comb(wt, 0, c, &on);
    for (int i = 0; i < 3; i++)
      o->terms[k].target[i] = comb(tt, (size_t)i, c, &on);
    t->term_on[k] = on;
    t->any |= on;
  }
  return 0;
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
  free(t);
}

/* d(compiled constants)/d(parameter j) by Richardson-extrapolated central
 * differences of the compilation, exact for constants polynomial of degree
 * <= 4 in the field (points, masses, centres of mass, inertia, stiffness,
 * damping, rest lengths, force values, coefficients, weights, targets) up to
 * round-off; other constants (normalized axes) to O(eps^4). */
lw_tangent *lw_tangent_new(const lw_desc *desc, int j, lw_error *err)
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
  t = calloc(1, sizeof *t);
  t->dm = lw_compile_constants(dd, err);
  if (!t->dm) {
    free(t);
    t = NULL;
    goto out;
  }
  tangent_flags(t, t->dm);
  /* (4 D(eps/2) - D(eps)) / 3, D(e) = (f(v + e) - f(v - e)) / (2 e) */
  double c[4] = {-1.0 / (6.0 * eps), 1.0 / (6.0 * eps), 4.0 / (3.0 * eps), -4.0 / (3.0 * eps)};
  if (combine(t, mk, c)) {
    lw_set_error(err, LW_ERR_MODEL, "", NAN,
                 "parameter '%s' changes the structure of the model (which bodies a joint or force "
                 "connects); it cannot be differentiated",
                 pp->name);
    lw_tangent_free(t);
    t = NULL;
  }
out:
  for (int k = 0; k < 4; k++)
    lw_model_free(mk[k]);
  lw_desc_free(dd);
  return t;
}

static void tangent_flags(lw_tangent *t, const lw_model *m)
{
  t->row_on = calloc((size_t)m->nc + 1, 1);
  t->force_on = calloc((size_t)m->nforces + 1, 1);
  t->body_on = calloc((size_t)m->nb + 1, 1);
  t->coord_on = calloc((size_t)m->ncoords + 1, 1);
  t->out_on = calloc((size_t)m->nout + 1, 1);
  t->term_on = calloc((size_t)m->nterms + 1, 1);
  t->row_vx_on = calloc((size_t)m->nc + 1, 1);
  t->force_vx_on = calloc((size_t)m->nforces + 1, 1);
}

lw_model *lw_tangent_zero_model(const lw_desc *desc, lw_error *err)
{
  lw_tangent t = {0};
  t.dm = lw_compile_constants(desc, err);
  if (!t.dm)
    return NULL;
  tangent_flags(&t, t.dm);
  lw_model *mk[4] = {t.dm, t.dm, t.dm, t.dm};
  double c[4] = {0, 0, 0, 0};
  combine(&t, mk, c);
  free(t.row_on);
  free(t.force_on);
  free(t.body_on);
  free(t.coord_on);
  free(t.out_on);
  free(t.term_on);
  free(t.row_vx_on);
  free(t.force_vx_on);
  return t.dm;
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
  if (pp->ntargets < 1)
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
  tangent_flags(t, zero);
  t->fn_kind = kind;
  t->fn_index = idx;
  t->fn_coef = coef;
  t->fn_scale = (double)pp->ntargets;
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

