/* lw-event-marks.c: the marks a 3-D view draws for a model's events (see
 * lw-event-marks.h). */
#include "lw-event-marks.h"

#include <math.h>
#include <string.h>

typedef struct {
  const double *poses, *joints;
  double mark_size;
  double *marks;
  int nmarks;
} MarkCtx;

static const lw_body_desc *body_named(const lw_desc *d, const char *name, int *index)
{
  for (int b = 0; name && b < d->nbodies; b++)
    if (!strcmp(d->bodies[b].name, name)) {
      *index = b;
      return &d->bodies[b];
    }
  *index = -1;
  return NULL;
}

static void add_mark(MarkCtx *mc, const double c[3], const double u[3], const double v[3], const double w[3])
{
  double *mk = mc->marks + LW_RENDER_MARK_DOUBLES * (gsize)mc->nmarks++;
  for (int i = 0; i < 3; i++) {
    mk[i] = c[i];
    mk[3 + i] = u[i];
    mk[6 + i] = v[i];
    mk[9 + i] = w[i];
  }
}

static void cross3(const double a[3], const double b[3], double c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double unit3(double a[3])
{
  double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (n > 0)
    for (int i = 0; i < 3; i++)
      a[i] /= n;
  return n;
}

/* global position of a contact's body point at the frame shown */
static void contact_point(MarkCtx *mc, const lw_desc *d, const lw_event_desc *e, double p[3])
{
  int b;
  const lw_body_desc *bd = body_named(d, e->body, &b);
  double local[3] = {e->place.p[0], e->place.p[1], e->place.p[2]};
  for (int k = 0; bd && e->place.ref && k < bd->npoints; k++)
    if (!strcmp(bd->points[k].name, e->place.ref))
      memcpy(local, bd->points[k].p, sizeof local);
  memset(p, 0, 3 * sizeof(double));
  if (b < 0)
    return;
  const double *o = mc->poses + 12 * b, *R = o + 3;
  for (int i = 0; i < 3; i++)
    p[i] = o[i] + R[3 * i] * local[0] + R[3 * i + 1] * local[1] + R[3 * i + 2] * local[2];
}

/* a contact's plane (line): a slab whose top face is n.x = offset, under
 * the point's place on it */
static void contact_mark(MarkCtx *mc, const lw_desc *d, const lw_event_desc *e)
{
  double n[3] = {e->normal[0], e->normal[1], d->planar ? 0 : e->normal[2]}, p[3];
  if (!(unit3(n) > 0))
    return;
  contact_point(mc, d, e, p);
  double s = mc->mark_size, th = 0.01 * s, gap = n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - e->offset;
  double c[3], u[3], v[3], w[3], z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  for (int i = 0; i < 3; i++)
    c[i] = p[i] - (gap + th) * n[i];
  cross3(d->planar ? z : (fabs(n[0]) < 0.9 ? x : z), n, u);
  unit3(u);
  cross3(n, u, v);
  /* a line along the plane of a planar model; in space a square patch,
   * small enough not to hide the mechanism behind it */
  for (int i = 0; i < 3; i++) {
    u[i] *= d->planar ? s : 0.5 * s;
    v[i] *= d->planar ? 0.15 * s : 0.5 * s;
    w[i] = n[i] * th;
  }
  add_mark(mc, c, u, v, w);
}

/* a joint's bound: for a slide a plate across the rail at the bound, for a
 * turning joint a spoke from its centre at the bound's angle */
static void limit_mark(MarkCtx *mc, const lw_desc *d, int j, double bound)
{
  const lw_joint_desc *jd = &d->joints[j];
  const double *jg = mc->joints + 6 * j;
  double o[3] = {jg[0], jg[1], jg[2]}, a[3] = {jg[3], jg[4], jg[5]}, ref[3];
  if (!(unit3(a) > 0))
    a[2] = 1;
  int b1;
  const lw_body_desc *bd = body_named(d, jd->body[0], &b1);
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, lr[3];
  if (bd)
    memcpy(R, mc->poses + 12 * b1 + 3, sizeof R);
  if (d->planar) {
    lr[0] = cos(jd->angle[0]), lr[1] = sin(jd->angle[0]), lr[2] = 0;
    a[0] = a[1] = 0, a[2] = 1;
  } else
    memcpy(lr, jd->ref[0], sizeof lr);
  for (int i = 0; i < 3; i++)
    ref[i] = R[3 * i] * lr[0] + R[3 * i + 1] * lr[1] + R[3 * i + 2] * lr[2];
  double side[3], s = mc->mark_size, c[3], u[3], v[3], w[3];
  if (jd->type == LW_JOINT_PRISMATIC) {
    double dir[3];
    memcpy(dir, d->planar ? ref : a, sizeof dir);
    unit3(dir);
    cross3(d->planar ? a : (fabs(dir[0]) < 0.9 ? (double[3]){1, 0, 0} : (double[3]){0, 0, 1}), dir, side);
    unit3(side);
    cross3(dir, side, w);
    for (int i = 0; i < 3; i++) {
      c[i] = o[i] + bound * dir[i];
      u[i] = 0.12 * s * side[i];
      v[i] = 0.012 * s * dir[i];
      w[i] *= 0.12 * s;
    }
  } else {
    if (!(unit3(ref) > 0))
      return;
    double ar[3], spoke[3];
    cross3(a, ref, ar);
    for (int i = 0; i < 3; i++)
      spoke[i] = cos(bound) * ref[i] + sin(bound) * ar[i];
    cross3(a, spoke, side);
    for (int i = 0; i < 3; i++) {
      c[i] = o[i] + 0.2 * s * spoke[i];
      u[i] = 0.2 * s * spoke[i];
      v[i] = 0.012 * s * side[i];
      w[i] = 0.012 * s * a[i];
    }
  }
  add_mark(mc, c, u, v, w);
}

int lw_event_marks_max(const lw_desc *d)
{
  return 2 * d->nevents;
}

double lw_event_marks_size(int nbodies, const double *poses)
{
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int b = 0; b < nbodies; b++)
    for (int i = 0; i < 3; i++) {
      lo[i] = fmin(lo[i], poses[12 * b + i]);
      hi[i] = fmax(hi[i], poses[12 * b + i]);
    }
  double span = 0;
  for (int i = 0; i < 3; i++)
    span = fmax(span, hi[i] - lo[i]);
  return fmax(isfinite(span) ? span : 0, 0.5);
}

int lw_event_marks_fill(const lw_desc *d, const double *poses, const double *joints, double size, double *marks)
{
  MarkCtx ctx = {poses, joints, size, marks, 0};
  MarkCtx *mc = &ctx;
  for (int k = 0; k < d->nevents; k++) {
    const lw_event_desc *e = &d->events[k];
    int j = -1;
    for (int i = 0; e->type == LW_EVENT_JOINT_LIMIT && i < d->njoints; i++)
      if (!g_strcmp0(d->joints[i].name, e->joint))
        j = i;
    if (e->type == LW_EVENT_CONTACT || e->type == LW_EVENT_SWITCH) /* a switch's plane drawn as a contact's */
      contact_mark(mc, d, e);
    else if (j >= 0 && e->coordinate == 0 && lw_joint_ncoords(d->joints[j].type, d->planar) >= 1) {
      if (e->has_lower)
        limit_mark(mc, d, j, e->lower);
      if (e->has_upper)
        limit_mark(mc, d, j, e->upper);
    }
  }
  return ctx.nmarks;
}
