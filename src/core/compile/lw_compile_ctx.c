/* lw_compile_ctx.c: what compilation and the kinds' compile hooks share:
 * names resolved to bodies, points and frames, vectors linear in q built
 * from them, and the checks every element gets. */
#include "lw_compile_ctx.h"
#include "model/lw_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int lw_cc_finite(const double *v, int n)
{
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return 0;
  return 1;
}

int lw_cc_body_index(const lw_desc *d, const char *name)
{
  if (!name)
    return -2;
  if (!strcmp(name, "ground"))
    return -1;
  for (int i = 0; i < d->nbodies; i++)
    if (!strcmp(d->bodies[i].name, name))
      return i;
  for (int i = 0; i < d->nbeams; i++)
    if (d->beams[i].name && !strcmp(d->beams[i].name, name))
      return -3 - i;
  return -2;
}

/* ---- name indices ----------------------------------------------------- */
static int cmp_named(const void *a, const void *b)
{
  const lw_cc_named *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* names[k * stride] for k < n, NULL names left out */
static int names_build(lw_cc_names *ix, const char *const *names, size_t stride, int n)
{
  ix->n = 0;
  ix->e = malloc(sizeof(lw_cc_named) * ((size_t)n + 1));
  if (!ix->e)
    return -1;
  for (int k = 0; k < n; k++) {
    const char *s = *(const char *const *)((const char *)names + (size_t)k * stride);
    if (s)
      ix->e[ix->n++] = (lw_cc_named){s, k};
  }
  qsort(ix->e, (size_t)ix->n, sizeof(lw_cc_named), cmp_named);
  return 0;
}

int lw_cc_index_bodies(lw_compile_ctx *c)
{
  free(c->body_names.e);
  const lw_desc *d = c->d;
  return names_build(&c->body_names, d->nbodies ? (const char *const *)&d->bodies[0].name : NULL, sizeof d->bodies[0], d->nbodies);
}

int lw_cc_index_joints(lw_compile_ctx *c)
{
  free(c->joint_names.e);
  const lw_desc *d = c->d;
  return names_build(&c->joint_names, d->njoints ? (const char *const *)&d->joints[0].name : NULL, sizeof d->joints[0], d->njoints);
}

void lw_cc_names_free(lw_compile_ctx *c)
{
  free(c->body_names.e);
  free(c->joint_names.e);
  c->body_names = c->joint_names = (lw_cc_names){0};
}

int lw_cc_names_find(const lw_cc_names *ix, const char *name)
{
  int lo = 0, hi = ix->n;
  while (name && lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (strcmp(ix->e[mid].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return name && lo < ix->n && !strcmp(ix->e[lo].name, name) ? ix->e[lo].i : -1;
}

/* the element of beam k at arc length x (clamped to the beam) and x's place xi in it */
static int beam_element_at(const lw_beam *bm, double x, double *xi)
{
  int e = (int)floor(x / bm->l);
  if (e < 0)
    e = 0;
  if (e > bm->nel - 1)
    e = bm->nel - 1;
  *xi = x / bm->l - e;
  return e;
}

lw_vexpr lw_cc_vx_beam(const lw_model *m, int k, double x, int slope)
{
  const lw_beam *bm = &m->beams[k];
  lw_vexpr e;
  memset(&e, 0, sizeof e);
  double xi, s[4];
  int el = beam_element_at(bm, x, &xi);
  if (slope)
    lw_beam_shape(xi, bm->l, NULL, s, NULL);
  else
    lw_beam_shape(xi, bm->l, s, NULL, NULL);
  e.nterm = 1;
  e.body[0] = bm->blk0 + el;
  memcpy(e.w[0], s, sizeof s);
  return e;
}

/* ---- vector expressions -------------------------------------------- */
lw_vexpr lw_cc_vx_point(const lw_model *m, int b, const double *p)
{
  lw_vexpr e;
  memset(&e, 0, sizeof e);
  if (lw_is_beam_ref(b))
    return lw_cc_vx_beam(m, lw_beam_of_ref(b), p[0], 0);
  if (b < 0) {
    memcpy(e.c, p, sizeof e.c);
    return e;
  }
  e.nterm = 1;
  e.body[0] = b;
  e.w[0][0] = 1.0;
  if (m->blk_n[b] == m->nd)
    return e; /* a point mass: every place on it is the point */
  for (int i = 0; i < m->nd; i++)
    e.w[0][1 + i] = p[i];
  return e;
}

/* a - b */
lw_vexpr lw_cc_sub(lw_vexpr a, const lw_vexpr *b)
{
  for (int i = 0; i < 3; i++)
    a.c[i] -= b->c[i];
  for (int t = 0; t < b->nterm; t++) {
    int k = 0;
    while (k < a.nterm && a.body[k] != b->body[t])
      k++;
    if (k == a.nterm) {
      a.nterm++;
      a.body[k] = b->body[t];
      memset(a.w[k], 0, sizeof a.w[k]);
    }
    for (int j = 0; j < 4; j++)
      a.w[k][j] -= b->w[t][j];
  }
  return a;
}

/* bodies touched by a set of expressions */
void lw_cc_blocks(const lw_vexpr *const *es, int n, int *nblk, int *blk)
{
  *nblk = 0;
  for (int i = 0; i < n; i++)
    for (int t = 0; t < es[i]->nterm; t++) {
      int b = es[i]->body[t], k = 0;
      while (k < *nblk && blk[k] != b)
        k++;
      if (k == *nblk && *nblk < 2)
        blk[(*nblk)++] = b;
    }
  if (*nblk == 2 && blk[0] > blk[1]) {
    int t = blk[0];
    blk[0] = blk[1];
    blk[1] = t;
  }
}

static const lw_frame_desc *find_frame(const lw_body_desc *b, const char *name)
{
  for (int k = 0; b && k < b->nframes; k++)
    if (!strcmp(b->frames[k].name, name))
      return &b->frames[k];
  return NULL;
}

static const lw_point_desc *find_point(const lw_body_desc *b, const char *name)
{
  for (int k = 0; b && k < b->npoints; k++)
    if (!strcmp(b->points[k].name, name))
      return &b->points[k];
  return NULL;
}

/* global to local */
void lw_cc_to_local(const lw_compile_ctx *c, int b, const double *g, int is_point, double *l)
{
  const lw_model *m = c->m;
  if (b < 0) {
    memcpy(l, g, sizeof(double) * 3);
    return;
  }
  const lw_body_desc *bd = &c->d->bodies[b];
  double v[3] = {g[0], g[1], g[2]};
  if (is_point)
    for (int i = 0; i < 3; i++)
      v[i] -= bd->position[i];
  const double *R = c->R + 9 * b;
  for (int i = 0; i < 3; i++)
    l[i] = R[0 + i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
  if (m->planar)
    l[2] = 0;
}

/* resolve a place on a body; returns 0 or -1 (error filled) */
int lw_cc_resolve_place(const lw_compile_ctx *c, int b, const lw_place *pl, const char *path, double *p,
                         const lw_frame_desc **frame, lw_error *err)
{
  if (frame)
    *frame = NULL;
  if (lw_is_beam_ref(b)) {
    /* a place on a beam: its arc length along the undeformed line */
    const lw_beam_desc *bd = &c->d->beams[lw_beam_of_ref(b)];
    const lw_beam *bm = &c->m->beams[lw_beam_of_ref(b)];
    if (pl->ref) {
      lw_set_error(err, LW_ERR_MODEL, path, NAN,
                   "beam '%s' has no named places: give the arc length along it as [s, 0], 0 <= s <= %g", bd->name,
                   bm->L);
      return -1;
    }
    if (!(pl->p[0] >= -1e-9 * bm->L && pl->p[0] <= bm->L * (1 + 1e-9))) {
      lw_set_error(err, LW_ERR_MODEL, path, NAN, "the place %g on beam '%s' lies outside it (0 to its length %g)",
                   pl->p[0], bd->name, bm->L);
      return -1;
    }
    memcpy(p, pl->p, sizeof(double) * 3);
    return 0;
  }
  if (!pl->ref) {
    memcpy(p, pl->p, sizeof(double) * 3);
    return 0;
  }
  const lw_body_desc *bd = b >= 0 ? &c->d->bodies[b] : NULL;
  const lw_point_desc *pt = find_point(bd, pl->ref);
  if (pt) {
    memcpy(p, pt->p, sizeof(double) * 3);
    return 0;
  }
  const lw_frame_desc *fr = find_frame(bd, pl->ref);
  if (fr) {
    memcpy(p, fr->origin, sizeof(double) * 3);
    if (frame)
      *frame = fr;
    return 0;
  }
  lw_set_error(err, LW_ERR_MODEL, path, NAN, "no point or frame named '%s' on body '%s'", pl->ref,
               bd ? bd->name : "ground");
  return -1;
}

/* a spline needs 2 or more finite values over an interval of time */
int lw_cc_check_func(const lw_func *f, const char *path, lw_error *err)
{
  if (f->type != LW_FUNC_SPLINE)
    return 0;
  if (!f->knots || f->n < 2 || f->n > LW_SPLINE_MAXKNOTS) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN, "a spline needs 2 to %d values (it has %d)",
                 LW_SPLINE_MAXKNOTS, f->knots ? f->n : 0);
    return -1;
  }
  if (!(f->a[1] > f->a[0]) || !isfinite(f->a[0]) || !isfinite(f->a[1])) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN, "spline 'end' (%.17g) must be later than 'start' (%.17g)",
                 f->a[1], f->a[0]);
    return -1;
  }
  if (!lw_cc_finite(f->knots, f->n)) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN, "spline values must be finite");
    return -1;
  }
  return 0;
}

/* ---- what the kinds' compile hooks use (lw_kind.h) ---- */
int lw_cc_body(const lw_compile_ctx *c, const char *name)
{
  if (!c->body_names.e || !name || !strcmp(name, "ground"))
    return lw_cc_body_index(c->d, name);
  int b = lw_cc_names_find(&c->body_names, name);
  return b >= 0 ? b : lw_cc_body_index(c->d, name); /* a beam's, or missing */
}

int lw_cc_point(const lw_compile_ctx *c, int b, const lw_place *pl, const char *path, lw_vexpr *v, lw_error *err)
{
  double p[3];
  if (lw_cc_resolve_place(c, b, pl, path, p, NULL, err))
    return -1;
  *v = lw_cc_vx_point(c->m, b, p);
  return 0;
}

int lw_cc_coord(const lw_compile_ctx *c, const char *jname, int idx, const char *what, const char *path, int *out,
                lw_error *err)
{
  const lw_desc *d = c->d;
  const lw_model *m = c->m;
  int ji = -1;
  if (c->joint_names.e)
    ji = lw_cc_names_find(&c->joint_names, jname); /* names are unique by now */
  for (int q = 0; !c->joint_names.e && jname && q < d->njoints; q++)
    if (!strcmp(d->joints[q].name, jname))
      ji = q;
  if (ji < 0) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN, "%s: joint '%s' does not exist", what, jname ? jname : "(missing)");
    return -1;
  }
  int nco = m->joint_coord0[ji + 1] - m->joint_coord0[ji];
  if (idx < 0 || idx >= nco) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN, "%s: joint '%s' (%s) has %d coordinate(s); coordinate %d does not exist",
                 what, jname, lw_joint_type_name(d->joints[ji].type), nco, idx);
    return -1;
  }
  *out = m->joint_coord0[ji] + idx;
  return 0;
}

int lw_cc_measure_coord(const lw_compile_ctx *c, int force, int k)
{
  int n = c->m->joint_coord0[c->d->njoints];
  for (int i = 0; i <= force; i++)
    for (int j = 0; j < c->d->forces[i].nfeedback && (i < force || j < k); j++)
      n += c->d->forces[i].feedback[j].has_between != 0;
  return n;
}
