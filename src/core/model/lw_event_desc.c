/* lw_event_desc.c: the events of a description (contacts, joint limits,
 * guards): adding, copying and freeing them, their type names and the
 * numeric fields parameters bind (events/E/...). */
#include "model/lw_event_desc.h"

#include <stdlib.h>
#include <string.h>

static char *ev_strdup(const char *s)
{
  if (!s)
    return NULL;
  char *d = strdup(s);
  if (!d)
    abort();
  return d;
}

static const char *const event_names[LW_EVENT_NTYPES] = {"contact", "joint_limit", "guard", "switch", "capture", "collision"};
static const char *const action_names[] = {"impact", "rest", "stop", "release", "switch", "capture"};

const char *lw_event_type_name(lw_event_type t)
{
  return t >= 0 && t < LW_EVENT_NTYPES ? event_names[t] : "?";
}

int lw_event_type_from_name(const char *s)
{
  for (int i = 0; s && i < LW_EVENT_NTYPES; i++)
    if (!strcmp(event_names[i], s))
      return i;
  return -1;
}

const char *lw_event_action_name(lw_event_action a)
{
  return a >= LW_EVREC_IMPACT && a <= LW_EVREC_CAPTURE ? action_names[a] : "?";
}

lw_event_desc *lw_desc_add_event(lw_desc *d, const char *name, lw_event_type type)
{
  lw_event_desc *ev = realloc(d->events, sizeof *ev * (size_t)(d->nevents + 1));
  if (!ev)
    abort();
  d->events = ev;
  lw_event_desc *e = &ev[d->nevents++];
  memset(e, 0, sizeof *e);
  e->name = ev_strdup(name);
  e->type = type;
  /* a contact with the floor of a model with gravity along -y */
  e->normal[1] = 1.0;
  return e;
}

static void event_free(lw_event_desc *e)
{
  free(e->name);
  free(e->body);
  free(e->place.ref);
  free(e->joint);
  free(e->output);
  free(e->force);
  free(e->body2);
  free(e->place2.ref);
}

void lw_desc_event_take(lw_desc *d, int i)
{
  if (i < 0 || i >= d->nevents)
    return;
  event_free(&d->events[i]);
  memmove(d->events + i, d->events + i + 1, sizeof *d->events * (size_t)(d->nevents - i - 1));
  d->nevents--;
}

void lw_desc_events_free(lw_desc *d)
{
  for (int i = 0; i < d->nevents; i++)
    event_free(&d->events[i]);
  free(d->events);
  d->events = NULL;
  d->nevents = 0;
}

void lw_desc_events_copy(lw_desc *dst, const lw_desc *src)
{
  dst->nevents = src->nevents;
  dst->events = NULL;
  if (!src->nevents)
    return;
  dst->events = malloc(sizeof *dst->events * (size_t)src->nevents);
  if (!dst->events)
    abort();
  memcpy(dst->events, src->events, sizeof *dst->events * (size_t)src->nevents);
  for (int i = 0; i < src->nevents; i++) {
    lw_event_desc *e = &dst->events[i];
    const lw_event_desc *s = &src->events[i];
    e->name = ev_strdup(s->name);
    e->body = ev_strdup(s->body);
    e->place.ref = ev_strdup(s->place.ref);
    e->joint = ev_strdup(s->joint);
    e->output = ev_strdup(s->output);
    e->force = ev_strdup(s->force);
    e->body2 = ev_strdup(s->body2);
    e->place2.ref = ev_strdup(s->place2.ref);
  }
}

/* component k (< n) of v from the rest of a path, "K" alone */
static double *event_comp(double *v, int n, const char *rest)
{
  char *end;
  long k = strtol(rest, &end, 10);
  if (*end || end == rest || k < 0 || k >= n)
    return NULL;
  return &v[k];
}

/* events/<name>/restitution | rest_speed | offset | radius | lower | upper |
 * value | distance | normal/K | point/K | point2/K (p: after the name,
 * "restitution", say) */
double *lw_event_field(lw_desc *d, const char *name, const char *p)
{
  lw_event_desc *e = NULL;
  for (int i = 0; i < d->nevents && !e; i++)
    if (d->events[i].name && !strcmp(d->events[i].name, name))
      e = &d->events[i];
  if (!e)
    return NULL;
  /* a switch's plane is addressed as a contact's */
  int contact = e->type == LW_EVENT_CONTACT || e->type == LW_EVENT_SWITCH, limit = e->type == LW_EVENT_JOINT_LIMIT;
  int impact = e->type == LW_EVENT_CONTACT || e->type == LW_EVENT_COLLISION || limit;
  /* each field where its event type has it */
  const struct { const char *key; int has; double *v; } scalars[] = {
    {"restitution", impact, &e->restitution},
    {"rest_speed", impact, &e->rest_speed},
    {"offset", contact, &e->offset},
    {"radius", (contact && impact) || e->type == LW_EVENT_CAPTURE, &e->radius},
    {"distance", e->type == LW_EVENT_COLLISION, &e->distance},
    {"lower", limit && e->has_lower, &e->lower},
    {"upper", limit && e->has_upper, &e->upper},
    {"value", e->type == LW_EVENT_GUARD, &e->value},
  };
  for (size_t k = 0; k < sizeof scalars / sizeof scalars[0]; k++)
    if (!strcmp(p, scalars[k].key))
      return scalars[k].has ? scalars[k].v : NULL;
  if (contact && !strncmp(p, "normal/", 7))
    return event_comp(e->normal, 3, p + 7);
  if (e->type == LW_EVENT_CAPTURE && !strncmp(p, "center/", 7))
    return event_comp(e->center, 3, p + 7);
  if ((contact || e->type == LW_EVENT_CAPTURE || e->type == LW_EVENT_COLLISION) && !strncmp(p, "point/", 6) &&
      !e->place.ref)
    return event_comp(e->place.p, 3, p + 6);
  if (e->type == LW_EVENT_COLLISION && !strncmp(p, "point2/", 7) && !e->place2.ref)
    return event_comp(e->place2.p, 3, p + 7);
  return NULL;
}
