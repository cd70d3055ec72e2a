/* lw_compile_events.c: the description's events (contacts, joint limits,
 * guards on outputs, switches of forces) compiled into the guards a run watches (m->guards):
 * each one a scalar of the state whose sign change is the event.  Every
 * field is checked here and a bad one named by its path. */
#include "compile/lw_compile_ctx.h"
#include "model/lw_error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EFAIL(path, ...)                                                                           \
  do {                                                                                             \
    lw_set_error(err, LW_ERR_MODEL, path, NAN, __VA_ARGS__);                                       \
    return -1;                                                                                     \
  } while (0)

/* the restitution and the speed below which impacts end the bouncing */
static int impact_fields(const lw_event_desc *e, lw_guard *g, lw_error *err)
{
  char path[256];
  snprintf(path, sizeof path, "events/%s/restitution", e->name);
  if (!(e->restitution >= 0.0 && e->restitution <= 1.0))
    EFAIL(path, "event '%s': restitution %g must lie in [0, 1]", e->name, e->restitution);
  snprintf(path, sizeof path, "events/%s/rest_speed", e->name);
  if (!(e->rest_speed >= 0.0) || !isfinite(e->rest_speed))
    EFAIL(path, "event '%s': rest_speed %g must be a finite speed >= 0", e->name, e->rest_speed);
  g->e = e->restitution;
  g->rest_speed = e->rest_speed; /* 0: from the step option when run */
  return 0;
}

/* a contact's or switch's point and plane (what: "contact", "switch") */
static int compile_plane(const lw_compile_ctx *c, const lw_event_desc *e, const char *what, lw_guard *g,
                         lw_error *err)
{
  char path[256];
  const lw_model *m = c->m;
  snprintf(path, sizeof path, "events/%s/body", e->name);
  int b = lw_cc_body_index(c->d, e->body);
  if (b == -2)
    EFAIL(path, "%s '%s': body '%s' does not exist", what, e->name, e->body ? e->body : "(missing)");
  if (b == -1)
    EFAIL(path, "%s '%s': the body must move (the plane is already fixed to the ground)", what, e->name);
  double p[3];
  snprintf(path, sizeof path, "events/%s/point", e->name);
  if (lw_cc_resolve_place(c, b, &e->place, path, p, NULL, err))
    return -1;
  g->v = lw_cc_vx_point(m, b, p);
  snprintf(path, sizeof path, "events/%s/normal", e->name);
  double nn = 0;
  for (int i = 0; i < m->nd; i++)
    nn += e->normal[i] * e->normal[i];
  nn = sqrt(nn);
  if (!(nn > 0) || !isfinite(nn))
    EFAIL(path, "%s '%s': the normal must be a finite nonzero vector", what, e->name);
  for (int i = 0; i < m->nd; i++)
    g->n[i] = e->normal[i] / nn;
  snprintf(path, sizeof path, "events/%s/offset", e->name);
  if (!isfinite(e->offset))
    EFAIL(path, "%s '%s': offset must be finite", what, e->name);
  g->offset = e->offset;
  return 0;
}

static int compile_contact(const lw_compile_ctx *c, const lw_event_desc *e, lw_guard *g, lw_error *err)
{
  char path[256];
  if (compile_plane(c, e, "contact", g, err))
    return -1;
  snprintf(path, sizeof path, "events/%s/radius", e->name);
  if (!(e->radius >= 0) || !isfinite(e->radius))
    EFAIL(path, "contact '%s': radius %g must be finite and >= 0", e->name, e->radius);
  g->offset = e->offset + e->radius;
  g->dir = -1;
  return impact_fields(e, g, err);
}

/* a switch: its plane, and the force it turns on on the negative side
 * (the guard's dir is falling: lw_events.c turns its value so that it is
 * positive on the side the point is on) */
static int compile_switch(lw_compile_ctx *c, const lw_event_desc *e, lw_guard *g, lw_error *err)
{
  char path[256];
  const lw_desc *d = c->d;
  lw_model *m = c->m;
  if (compile_plane(c, e, "switch", g, err))
    return -1;
  snprintf(path, sizeof path, "events/%s/force", e->name);
  int f = -1;
  for (int i = 0; e->force && i < d->nforces && f < 0; i++)
    if (d->forces[i].name && !strcmp(d->forces[i].name, e->force))
      f = i;
  if (f < 0)
    EFAIL(path, "switch '%s': force '%s' does not exist", e->name, e->force ? e->force : "(missing)");
  g->force = -1;
  for (int n = 0; n < m->nforces && g->force < 0; n++)
    if (m->forces[n].index == f && m->forces[n].type == d->forces[f].type)
      g->force = n;
  if (g->force < 0)
    EFAIL(path, "switch '%s': force '%s' is not one the model computes", e->name, e->force);
  for (int k = 0; k < m->nguards; k++)
    if (m->guards[k].type == LW_EVENT_SWITCH && m->guards[k].force == g->force)
      EFAIL(path, "switch '%s': force '%s' is switched by '%s' already (one switch a force)", e->name, e->force,
            d->events[m->guards[k].event].name);
  if (m->nswitches >= LW_MAX_SWITCHES)
    EFAIL(path, "switch '%s': a model holds at most %d switches", e->name, LW_MAX_SWITCHES);
  g->sw = m->nswitches++;
  g->dir = -1;
  return 0;
}

/* a capture: g->v is the point minus the centre, offset the radius R; the
 * guard (|v|^2 - R^2) / 2R, about |v| - R near the circle, falls through 0
 * where the point reaches it from outside */
static int compile_capture(const lw_compile_ctx *c, const lw_event_desc *e, lw_guard *g, lw_error *err)
{
  char path[256];
  const lw_model *m = c->m;
  snprintf(path, sizeof path, "events/%s/body", e->name);
  int b = lw_cc_body_index(c->d, e->body);
  if (b == -2)
    EFAIL(path, "capture '%s': body '%s' does not exist", e->name, e->body ? e->body : "(missing)");
  if (b == -1)
    EFAIL(path, "capture '%s': the body must move", e->name);
  double p[3];
  snprintf(path, sizeof path, "events/%s/point", e->name);
  if (lw_cc_resolve_place(c, b, &e->place, path, p, NULL, err))
    return -1;
  g->v = lw_cc_vx_point(m, b, p);
  snprintf(path, sizeof path, "events/%s/center", e->name);
  for (int i = 0; i < m->nd; i++) {
    if (!isfinite(e->center[i]))
      EFAIL(path, "capture '%s': the centre must be finite", e->name);
    g->v.c[i] -= e->center[i];
    g->n[i] = e->center[i];
  }
  snprintf(path, sizeof path, "events/%s/radius", e->name);
  if (!(e->radius > 0) || !isfinite(e->radius))
    EFAIL(path, "capture '%s': radius %g must be finite and > 0", e->name, e->radius);
  g->offset = e->radius;
  g->dir = -1;
  g->e = 0.0;
  return 0;
}

/* a collision: g->v is the first point minus the second, offset the
 * distance d; the guard (|v|^2 - d^2) / 2d as a capture's */
static int compile_collision(const lw_compile_ctx *c, const lw_event_desc *e, lw_guard *g, lw_error *err)
{
  char path[256];
  const lw_model *m = c->m;
  int b[2];
  double p[2][3];
  const char *names[2] = {e->body, e->body2};
  const lw_place *pl[2] = {&e->place, &e->place2};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "events/%s/%s", e->name, k ? "body2" : "body");
    b[k] = lw_cc_body_index(c->d, names[k]);
    if (b[k] == -2)
      EFAIL(path, "collision '%s': body '%s' does not exist", e->name, names[k] ? names[k] : "(missing)");
    if (b[k] == -1)
      EFAIL(path, "collision '%s': both bodies must move (a contact meets the ground)", e->name);
    snprintf(path, sizeof path, "events/%s/%s", e->name, k ? "point2" : "point");
    if (lw_cc_resolve_place(c, b[k], pl[k], path, p[k], NULL, err))
      return -1;
  }
  snprintf(path, sizeof path, "events/%s/body2", e->name);
  if (b[0] == b[1])
    EFAIL(path, "collision '%s': the two bodies must differ", e->name);
  lw_vexpr v2 = lw_cc_vx_point(m, b[1], p[1]);
  g->v = lw_cc_sub(lw_cc_vx_point(m, b[0], p[0]), &v2);
  snprintf(path, sizeof path, "events/%s/distance", e->name);
  if (!(e->distance > 0) || !isfinite(e->distance))
    EFAIL(path, "collision '%s': distance %g must be finite and > 0", e->name, e->distance);
  g->offset = e->distance;
  g->dir = -1;
  return impact_fields(e, g, err);
}

/* a limit's guards: one per bound (*ng of them) */
static int compile_limit(lw_compile_ctx *c, const lw_event_desc *e, lw_guard *g, int *ng, lw_error *err)
{
  char path[256];
  snprintf(path, sizeof path, "events/%s/joint", e->name);
  int ci;
  if (lw_cc_coord(c, e->joint, e->coordinate, "joint limit", path, &ci, err))
    return -1;
  snprintf(path, sizeof path, "events/%s", e->name);
  if (!e->has_lower && !e->has_upper)
    EFAIL(path, "joint limit '%s': give 'lower', 'upper' or both", e->name);
  snprintf(path, sizeof path, "events/%s/%s", e->name, e->has_lower ? "lower" : "upper");
  if ((e->has_lower && !isfinite(e->lower)) || (e->has_upper && !isfinite(e->upper)))
    EFAIL(path, "joint limit '%s': bounds must be finite", e->name);
  snprintf(path, sizeof path, "events/%s/upper", e->name);
  if (e->has_lower && e->has_upper && !(e->lower < e->upper))
    EFAIL(path, "joint limit '%s': upper %g must exceed lower %g", e->name, e->upper, e->lower);
  *ng = 0;
  for (int s = -1; s <= 1; s += 2) {
    if ((s < 0 && !e->has_lower) || (s > 0 && !e->has_upper))
      continue;
    lw_guard *gk = &g[(*ng)++];
    gk->coord = ci;
    gk->side = s;
    gk->offset = s < 0 ? e->lower : e->upper;
    gk->dir = -1;
    if (impact_fields(e, gk, err))
      return -1;
  }
  return 0;
}

static int compile_guard(const lw_compile_ctx *c, const lw_event_desc *e, lw_guard *g, lw_error *err)
{
  char path[256];
  const lw_desc *d = c->d;
  snprintf(path, sizeof path, "events/%s/output", e->name);
  int k = -1;
  for (int i = 0; e->output && i < d->noutputs && k < 0; i++)
    if (!strcmp(d->outputs[i].name, e->output))
      k = i;
  if (k < 0)
    EFAIL(path, "guard '%s': output '%s' does not exist", e->name, e->output ? e->output : "(missing)");
  int width = c->m->outputs[k].width;
  snprintf(path, sizeof path, "events/%s/component", e->name);
  if (e->component < 0 || e->component >= width)
    EFAIL(path, "guard '%s': output '%s' has %d component(s); component %d does not exist", e->name,
          e->output, width, e->component);
  snprintf(path, sizeof path, "events/%s/value", e->name);
  if (!isfinite(e->value))
    EFAIL(path, "guard '%s': value must be finite", e->name);
  snprintf(path, sizeof path, "events/%s/direction", e->name);
  if (e->direction < -1 || e->direction > 1)
    EFAIL(path, "guard '%s': direction must be rising, falling or both", e->name);
  g->output = k;
  g->col = c->m->out_col[k] + e->component;
  g->offset = e->value;
  g->dir = e->direction;
  return 0;
}

static int check_event_name(const lw_desc *d, int i, lw_error *err)
{
  char path[256];
  const char *name = d->events[i].name;
  snprintf(path, sizeof path, "events/%d", i);
  if (!name || !*name)
    EFAIL(path, "event %d has no name", i);
  for (int k = 0; k < i; k++)
    if (d->events[k].name && !strcmp(d->events[k].name, name)) {
      snprintf(path, sizeof path, "events/%s", name);
      EFAIL(path, "duplicate event name '%s'", name);
    }
  return 0;
}

/* the contact-force outputs: their event's first guard (a limit with two
 * bounds rests on one at a time; its second guard's force is added when
 * the output is evaluated) */
static int contact_force_outputs(lw_compile_ctx *c, lw_error *err)
{
  const lw_desc *d = c->d;
  lw_model *m = c->m;
  char path[256];
  for (int i = 0; i < d->noutputs; i++) {
    const lw_output_desc *od = &d->outputs[i];
    if (od->type != LW_OUT_CONTACT_FORCE)
      continue;
    snprintf(path, sizeof path, "outputs/%s/event", od->name);
    int g = -1;
    for (int k = 0; od->event && k < m->nguards && g < 0; k++)
      if (!strcmp(d->events[m->guards[k].event].name, od->event))
        g = k;
    if (g < 0)
      EFAIL(path, "output '%s': event '%s' does not exist", od->name, od->event ? od->event : "(missing)");
    if (m->guards[g].type == LW_EVENT_GUARD || m->guards[g].type == LW_EVENT_SWITCH)
      EFAIL(path, "output '%s': event '%s' is a %s, not a contact or joint limit", od->name, od->event,
            lw_event_type_name(m->guards[g].type));
    m->outputs[i].coord = g;
  }
  return 0;
}

int lw_compile_events(lw_compile_ctx *c, lw_error *err)
{
  const lw_desc *d = c->d;
  lw_model *m = c->m;
  m->nguards = 0;
  m->nswitches = 0;
  m->guards = calloc((size_t)2 * d->nevents + 1, sizeof(lw_guard));
  if (!m->guards)
    EFAIL("", "out of memory");
  for (int i = 0; i < d->nevents; i++) {
    const lw_event_desc *e = &d->events[i];
    if (check_event_name(d, i, err))
      return -1;
    lw_guard *g = &m->guards[m->nguards];
    int ng = 1, st = -1;
    switch (e->type) {
    case LW_EVENT_CONTACT: st = compile_contact(c, e, g, err); break;
    case LW_EVENT_JOINT_LIMIT: st = compile_limit(c, e, g, &ng, err); break;
    case LW_EVENT_GUARD: st = compile_guard(c, e, g, err); break;
    case LW_EVENT_SWITCH: st = compile_switch(c, e, g, err); break;
    case LW_EVENT_CAPTURE: st = compile_capture(c, e, g, err); break;
    case LW_EVENT_COLLISION: st = compile_collision(c, e, g, err); break;
    default: {
      char path[256];
      snprintf(path, sizeof path, "events/%s/type", e->name);
      EFAIL(path, "event '%s': unknown type", e->name);
    }
    }
    if (st)
      return -1;
    for (int k = 0; k < ng; k++) {
      g[k].event = i;
      g[k].type = e->type;
    }
    m->nguards += ng;
  }
  return contact_force_outputs(c, err);
}
