/* lw_json_write.c: lw_desc to JSON.  Numbers are written by us, as the
 * shortest text that reads back to the same double, never in the user's
 * locale (json-glib 1.6 writes 1e-300 as invalid JSON). */
#include "lw_io.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void lw_format_double(char *buf, size_t len, double v)
{
  if (!isfinite(v)) {
    /* JSON has no NaN or infinity; the reader will reject it with a message */
    g_strlcpy(buf, isnan(v) ? "\"NaN\"" : (v > 0 ? "\"Infinity\"" : "\"-Infinity\""), len);
    return;
  }
  if (v == 0) {
    g_strlcpy(buf, signbit(v) ? "-0.0" : "0", len);
    return;
  }
  for (int prec = 15; prec <= 17; prec++) {
    char fmt[8];
    g_snprintf(fmt, sizeof fmt, "%%.%dg", prec);
    g_ascii_formatd(buf, (gint)len, fmt, v);
    if (g_ascii_strtod(buf, NULL) == v)
      break;
  }
}

typedef struct {
  GString *s;
  int planar;
} writer;

static void num(writer *w, double v)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  lw_format_double(b, sizeof b, v);
  g_string_append(w->s, b);
}

static void str(writer *w, const char *v)
{
  g_string_append_c(w->s, '"');
  for (const char *p = v; p && *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\')
      g_string_append_printf(w->s, "\\%c", c);
    else if (c < 0x20)
      g_string_append_printf(w->s, "\\u%04x", c);
    else
      g_string_append_c(w->s, (char)c);
  }
  g_string_append_c(w->s, '"');
}

static void vec(writer *w, const double *v, int n)
{
  g_string_append_c(w->s, '[');
  for (int i = 0; i < n; i++) {
    if (i)
      g_string_append(w->s, ", ");
    num(w, v[i]);
  }
  g_string_append_c(w->s, ']');
}

/* ", \"key\": " */
static void key(writer *w, const char *k)
{
  g_string_append_printf(w->s, ", \"%s\": ", k);
}

static void kvnum(writer *w, const char *k, double v)
{
  key(w, k);
  num(w, v);
}

static void kvstr(writer *w, const char *k, const char *v)
{
  key(w, k);
  str(w, v);
}

static void kvvec(writer *w, const char *k, const double *v, int n)
{
  key(w, k);
  vec(w, v, n);
}

static void place(writer *w, const char *k, const lw_place *pl)
{
  if (pl->ref)
    kvstr(w, k, pl->ref);
  else
    kvvec(w, k, pl->p, w->planar ? 2 : 3);
}

/* the length of a run of parameters NAME[k], k = 0..n-1, each bound to
 * PREFIX/k alone, where PREFIX has exactly n components; 0 if i starts none */
/* a joint's friction: every parameter
 * (so that a reader with other defaults reads the same model;
 * v_t only when set, 0 standing for its default) */
static void friction(writer *w, const lw_joint_desc *j)
{
  key(w, "friction");
  g_string_append_c(w->s, '{');
  int first = 1;
  for (int k = 0; k < LW_FRICTION_NPARAMS; k++) {
    if (k == 2 && j->friction[k] == 0.0)
      continue;
    g_string_append_printf(w->s, "%s\"%s\": ", first ? "" : ", ", lw_friction_param_name(k));
    num(w, j->friction[k]);
    first = 0;
  }
  g_string_append_c(w->s, '}');
}

static int param_run(const lw_desc *d, int i)
{
  const lw_param_desc *p = &d->params[i];
  if (p->ntargets != 1 || p->factors || p->times || !g_str_has_suffix(p->name, "[0]") ||
      !g_str_has_suffix(p->targets[0], "/0"))
    return 0;
  g_autofree char *base = g_strndup(p->name, strlen(p->name) - 3);
  g_autofree char *prefix = g_strndup(p->targets[0], strlen(p->targets[0]) - 2);
  int n = 0;
  for (; i + n < d->nparams; n++) {
    const lw_param_desc *q = &d->params[i + n];
    g_autofree char *name = g_strdup_printf("%s[%d]", base, n);
    g_autofree char *target = g_strdup_printf("%s/%d", prefix, n);
    if (q->ntargets != 1 || q->factors || q->times || strcmp(q->name, name) || strcmp(q->targets[0], target))
      break;
  }
  /* the prefix must have exactly n components */
  for (int k = 0; k <= n; k++) {
    g_autofree char *fp = g_strdup_printf("%s/%d", prefix, k);
    if ((lw_desc_field((lw_desc *)d, fp) != NULL) != (k < n))
      return 0;
  }
  return n;
}

/* a parameter's target k: its path, or {"path", "factor", "times"} when it
 * has a factor other than 1 or a product */
static void param_binding(writer *w, const lw_param_desc *p, int k)
{
  double f = p->factors ? p->factors[k] : 1.0;
  const char *t = p->times ? p->times[k] : NULL;
  if (f == 1.0 && !t) {
    str(w, p->targets[k]);
    return;
  }
  g_string_append(w->s, "{\"path\": ");
  str(w, p->targets[k]);
  if (f != 1.0)
    kvnum(w, "factor", f);
  if (t)
    kvstr(w, "times", t);
  g_string_append_c(w->s, '}');
}

/* a controller's measured distance */
static void between(writer *w, const lw_feedback_desc *b)
{
  key(w, "between");
  g_string_append(w->s, "{\"body1\": ");
  str(w, b->body[0] ? b->body[0] : "");
  place(w, "point1", &b->place[0]);
  kvstr(w, "body2", b->body[1] ? b->body[1] : "");
  place(w, "point2", &b->place[1]);
  kvvec(w, "axis", b->axis, w->planar ? 2 : 3);
  g_string_append_c(w->s, '}');
}

static void func_as(writer *w, const char *name, const lw_func *f)
{
  key(w, name);
  switch (f->type) {
  case LW_FUNC_CONSTANT:
    g_string_append(w->s, "{\"type\": \"constant\"");
    kvnum(w, "value", f->a[0]);
    break;
  case LW_FUNC_LINEAR:
    g_string_append(w->s, "{\"type\": \"linear\"");
    kvnum(w, "value", f->a[0]);
    kvnum(w, "rate", f->a[1]);
    break;
  case LW_FUNC_POLY:
    g_string_append(w->s, "{\"type\": \"poly\"");
    kvvec(w, "coefficients", f->a, f->n);
    break;
  case LW_FUNC_SINE:
    g_string_append(w->s, "{\"type\": \"sine\"");
    kvnum(w, "offset", f->a[0]);
    kvnum(w, "amplitude", f->a[1]);
    kvnum(w, "omega", f->a[2]);
    kvnum(w, "phase", f->a[3]);
    break;
  case LW_FUNC_SPLINE:
    g_string_append(w->s, "{\"type\": \"spline\"");
    kvnum(w, "start", f->a[0]);
    kvnum(w, "end", f->a[1]);
    kvvec(w, "values", f->knots, f->knots ? f->n : 0);
    break;
  }
  g_string_append_c(w->s, '}');
}

static void list_open(writer *w, const char *k, int n, int *first)
{
  g_string_append_printf(w->s, ",\n  \"%s\": [", k);
  *first = 1;
  (void)n;
}

static void item_open(writer *w, int *first, const char *name)
{
  g_string_append(w->s, *first ? "\n    {" : ",\n    {");
  *first = 0;
  g_string_append(w->s, "\"name\": ");
  str(w, name);
}

static void item_open_unnamed(writer *w, int *first)
{
  g_string_append(w->s, *first ? "\n    {" : ",\n    {");
  *first = 0;
}

static void list_close(writer *w, int first)
{
  g_string_append(w->s, first ? "]" : "\n  ]");
}

/* the events, written only when the model has some (the section is new:
 * a model without keeps the file it had) */
static void write_events(writer *w, const lw_desc *d)
{
  int first;
  if (!d->nevents)
    return;
  list_open(w, "events", d->nevents, &first);
  for (int i = 0; i < d->nevents; i++) {
    const lw_event_desc *e = &d->events[i];
    item_open(w, &first, e->name);
    kvstr(w, "type", lw_event_type_name(e->type));
    if (e->type == LW_EVENT_CONTACT || e->type == LW_EVENT_SWITCH) {
      kvstr(w, "body", e->body ? e->body : "");
      place(w, "point", &e->place);
      kvvec(w, "normal", e->normal, w->planar ? 2 : 3);
      kvnum(w, "offset", e->offset);
      if (e->type == LW_EVENT_SWITCH)
        kvstr(w, "force", e->force ? e->force : "");
      else
        kvnum(w, "radius", e->radius);
    } else if (e->type == LW_EVENT_CAPTURE) {
      kvstr(w, "body", e->body ? e->body : "");
      place(w, "point", &e->place);
      kvvec(w, "center", e->center, w->planar ? 2 : 3);
      kvnum(w, "radius", e->radius);
    } else if (e->type == LW_EVENT_COLLISION) {
      kvstr(w, "body", e->body ? e->body : "");
      place(w, "point", &e->place);
      kvstr(w, "body2", e->body2 ? e->body2 : "");
      place(w, "point2", &e->place2);
      kvnum(w, "distance", e->distance);
    } else if (e->type == LW_EVENT_JOINT_LIMIT) {
      kvstr(w, "joint", e->joint ? e->joint : "");
      kvnum(w, "coordinate", e->coordinate);
      if (e->has_lower)
        kvnum(w, "lower", e->lower);
      if (e->has_upper)
        kvnum(w, "upper", e->upper);
    } else {
      static const char *const dirs[] = {"falling", "both", "rising"};
      kvstr(w, "output", e->output ? e->output : "");
      kvnum(w, "component", e->component);
      kvnum(w, "value", e->value);
      kvstr(w, "direction", dirs[e->direction + 1]);
      kvstr(w, "action", "stop");
    }
    if (e->type == LW_EVENT_CONTACT || e->type == LW_EVENT_JOINT_LIMIT || e->type == LW_EVENT_COLLISION) {
      kvnum(w, "restitution", e->restitution);
      if (e->rest_speed != 0)
        kvnum(w, "rest_speed", e->rest_speed);
    }
    g_string_append_c(w->s, '}');
  }
  list_close(w, first);
}

/* the beams, written only when the model has some */
static void write_beams(writer *w, const lw_desc *d)
{
  int first;
  if (!d->nbeams)
    return;
  list_open(w, "beams", d->nbeams, &first);
  for (int i = 0; i < d->nbeams; i++) {
    const lw_beam_desc *b = &d->beams[i];
    item_open(w, &first, b->name);
    kvnum(w, "elements", b->nel);
    kvvec(w, "start", b->start, w->planar ? 2 : 3);
    kvvec(w, "end", b->end, w->planar ? 2 : 3);
    kvnum(w, "young", b->young);
    kvnum(w, "density", b->density);
    if (b->damping != 0)
      kvnum(w, "damping", b->damping);
    kvstr(w, "section", lw_section_type_name(b->section));
    if (b->section == LW_SECTION_GENERIC) {
      kvnum(w, "area", b->area);
      kvnum(w, "inertia", b->inertia);
    } else
      kvvec(w, "size", b->size, b->section == LW_SECTION_CIRCLE ? 1 : 2);
    g_string_append_c(w->s, '}');
  }
  list_close(w, first);
}

char *lw_model_to_json(const lw_desc *d)
{
  writer w = {g_string_new(NULL), d->planar};
  int dim = d->planar ? 2 : 3, first;
  g_string_append_printf(w.s, "{\n  \"linkwright\": %d", d->version);
  if (d->name) {
    g_string_append(w.s, ",\n  \"name\": ");
    str(&w, d->name);
  }
  if (d->description) {
    g_string_append(w.s, ",\n  \"description\": ");
    str(&w, d->description);
  }
  g_string_append_printf(w.s, ",\n  \"planar\": %s", d->planar ? "true" : "false");
  g_string_append(w.s, ",\n  \"gravity\": ");
  vec(&w, d->gravity, dim);
  const lw_solver_desc *s = &d->solver;
  g_string_append(w.s, ",\n  \"solver\": {\"t_end\": ");
  num(&w, s->t_end);
  kvnum(&w, "step", s->step);
  kvnum(&w, "alpha", s->alpha);
  kvnum(&w, "tolerance", s->tolerance);
  kvnum(&w, "constraint_tolerance", s->constraint_tolerance);
  kvnum(&w, "max_iterations", s->max_iterations);
  kvnum(&w, "lambda_scale", s->lambda_scale);
  g_string_append_printf(w.s, ", \"allow_redundant\": %s", s->allow_redundant ? "true" : "false");
  if (strcmp(s->integrator, "ali3p") != 0) { /* the default is left unsaid */
    g_string_append(w.s, ", \"integrator\": ");
    str(&w, s->integrator);
  }
  if (s->mode == LW_MODE_TOLERANCE) { /* the step mode, the default, is left unsaid */
    g_string_append(w.s, ", \"mode\": \"tolerance\"");
    kvnum(&w, "rtol", s->rtol);
    kvnum(&w, "atol", s->atol);
    kvnum(&w, "order", s->order);
  }
  if (s->rho_inf != 1.0) /* no damping, the default, is left unsaid */
    kvnum(&w, "rho_inf", s->rho_inf);
  g_string_append(w.s, "}");

  list_open(&w, "bodies", d->nbodies, &first);
  for (int i = 0; i < d->nbodies; i++) {
    const lw_body_desc *b = &d->bodies[i];
    item_open(&w, &first, b->name);
    if (b->point) {
      kvstr(&w, "type", "point");
      kvnum(&w, "mass", b->mass);
      kvvec(&w, "position", b->position, dim);
    } else {
      kvnum(&w, "mass", b->mass);
      kvvec(&w, "com", b->com, dim);
      if (d->planar)
        kvnum(&w, "inertia", b->inertia[2]);
      else
        kvvec(&w, "inertia", b->inertia, 6);
      kvvec(&w, "position", b->position, dim);
      if (d->planar)
        kvnum(&w, "angle", b->angle);
      else
        kvvec(&w, "orientation", b->orientation, 4);
    }
    if (b->npoints) {
      g_string_append(w.s, ",\n     \"points\": {");
      for (int k = 0; k < b->npoints; k++) {
        if (k)
          g_string_append(w.s, ", ");
        str(&w, b->points[k].name);
        g_string_append(w.s, ": ");
        vec(&w, b->points[k].p, dim);
      }
      g_string_append_c(w.s, '}');
    }
    if (b->nframes) {
      g_string_append(w.s, ",\n     \"frames\": {");
      for (int k = 0; k < b->nframes; k++) {
        const lw_frame_desc *f = &b->frames[k];
        if (k)
          g_string_append(w.s, ", ");
        str(&w, f->name);
        g_string_append(w.s, ": {\"origin\": ");
        vec(&w, f->origin, dim);
        if (d->planar) {
          kvnum(&w, "angle", f->angle);
        } else {
          kvvec(&w, "axis", f->axis, 3);
          kvvec(&w, "ref", f->ref, 3);
        }
        g_string_append_c(w.s, '}');
      }
      g_string_append_c(w.s, '}');
    }
    if (b->ngeoms) {
      g_string_append(w.s, ",\n     \"geometry\": [");
      static const char *gn[] = {"none", "bar", "box", "cylinder", "sphere", "mesh"};
      for (int k = 0; k < b->ngeoms; k++) {
        const lw_geom_desc *g = &b->geoms[k];
        if (k)
          g_string_append(w.s, ", ");
        g_string_append_printf(w.s, "{\"type\": \"%s\"", gn[g->type]);
        switch (g->type) {
        case LW_GEOM_BAR:
          kvvec(&w, "from", g->from, dim);
          kvvec(&w, "to", g->to, dim);
          kvnum(&w, "width", g->size[0]);
          break;
        case LW_GEOM_CYLINDER:
          kvvec(&w, "from", g->from, dim);
          kvvec(&w, "to", g->to, dim);
          kvnum(&w, "radius", g->size[0]);
          break;
        case LW_GEOM_BOX:
          kvvec(&w, "center", g->center, dim);
          kvvec(&w, "half_extents", g->size, 3);
          break;
        case LW_GEOM_SPHERE:
          kvvec(&w, "center", g->center, dim);
          kvnum(&w, "radius", g->size[0]);
          break;
        case LW_GEOM_MESH:
          kvstr(&w, "file", g->mesh ? g->mesh : "");
          kvvec(&w, "center", g->center, dim);
          kvvec(&w, "orientation", g->quat, 4);
          kvvec(&w, "scale", g->size, 3);
          break;
        default:
          break;
        }
        kvvec(&w, "color", g->color, 3);
        g_string_append_c(w.s, '}');
      }
      g_string_append_c(w.s, ']');
    }
    g_string_append_c(w.s, '}');
  }
  list_close(&w, first);

  list_open(&w, "joints", d->njoints, &first);
  for (int i = 0; i < d->njoints; i++) {
    const lw_joint_desc *j = &d->joints[i];
    item_open(&w, &first, j->name);
    kvstr(&w, "type", lw_joint_type_name(j->type));
    kvstr(&w, "body1", j->body[0] ? j->body[0] : "");
    kvstr(&w, "body2", j->body[1] ? j->body[1] : "");
    if (j->has_at)
      kvvec(&w, "at", j->at, dim);
    for (int k = 0; k < 2; k++)
      if (j->has_place[k] || j->place[k].ref)
        place(&w, k ? "point2" : "point1", &j->place[k]);
    if (d->planar) {
      if (j->angle[0] != 0)
        kvnum(&w, "angle1", j->angle[0]);
      if (j->angle[1] != 0)
        kvnum(&w, "angle2", j->angle[1]);
    } else {
      if (j->has_gaxis)
        kvvec(&w, "axis", j->gaxis, 3);
      if (j->has_gref)
        kvvec(&w, "ref", j->gref, 3);
      if (j->has_gaxis2)
        kvvec(&w, "second_axis", j->gaxis2, 3);
      for (int k = 0; k < 2; k++) {
        if (j->has_axis[k])
          kvvec(&w, k ? "axis2" : "axis1", j->axis[k], 3);
        if (j->has_ref[k])
          kvvec(&w, k ? "ref2" : "ref1", j->ref[k], 3);
      }
    }
    if (j->has_friction)
      friction(&w, j);
    g_string_append_c(w.s, '}');
  }
  list_close(&w, first);

  list_open(&w, "forces", d->nforces, &first);
  for (int i = 0; i < d->nforces; i++) {
    const lw_force_desc *f = &d->forces[i];
    item_open(&w, &first, f->name);
    kvstr(&w, "type", lw_force_type_name(f->type));
    switch (f->type) {
    case LW_FORCE_SPRING_DAMPER:
      kvstr(&w, "body1", f->body[0] ? f->body[0] : "");
      place(&w, "point1", &f->place[0]);
      kvstr(&w, "body2", f->body[1] ? f->body[1] : "");
      place(&w, "point2", &f->place[1]);
      kvnum(&w, "stiffness", f->stiffness);
      kvnum(&w, "damping", f->damping);
      kvnum(&w, "rest_length", f->rest);
      break;
    case LW_FORCE_JOINT_SPRING_DAMPER:
      kvstr(&w, "joint", f->joint ? f->joint : "");
      kvnum(&w, "coordinate", f->coordinate);
      kvnum(&w, "stiffness", f->stiffness);
      kvnum(&w, "damping", f->damping);
      kvnum(&w, "rest_value", f->rest);
      break;
    case LW_FORCE_FORCE:
      kvstr(&w, "body", f->body[0] ? f->body[0] : "");
      place(&w, "point", &f->place[0]);
      kvvec(&w, "vector", f->vector, dim);
      func_as(&w, "function", &f->func);
      break;
    case LW_FORCE_TORQUE:
      kvstr(&w, "body", f->body[0] ? f->body[0] : "");
      if (d->planar)
        kvnum(&w, "value", f->vector[2]);
      else
        kvvec(&w, "vector", f->vector, 3);
      func_as(&w, "function", &f->func);
      break;
    case LW_FORCE_PID:
    case LW_FORCE_STATE_FEEDBACK:
      kvstr(&w, "joint", f->joint ? f->joint : "");
      kvnum(&w, "coordinate", f->coordinate);
      if (f->type == LW_FORCE_STATE_FEEDBACK) {
        key(&w, "gains");
        g_string_append_c(w.s, '[');
      }
      for (int k = 0; k < f->nfeedback; k++) {
        const lw_feedback_desc *b = &f->feedback[k];
        if (f->type == LW_FORCE_STATE_FEEDBACK) {
          g_string_append(w.s, k ? ", {\"joint\": " : "{\"joint\": ");
          str(&w, b->joint ? b->joint : "");
          kvnum(&w, "coordinate", b->coordinate);
        }
        kvstr(&w, "measure", b->rate ? "rate" : "position");
        if (b->has_between)
          between(&w, b);
        kvnum(&w, "kp", b->kp);
        kvnum(&w, "kd", b->kd);
        if (b->ki != 0.0)
          kvnum(&w, "ki", b->ki);
        func_as(&w, "target", &b->target);
        if (f->type == LW_FORCE_STATE_FEEDBACK)
          g_string_append_c(w.s, '}');
      }
      if (f->type == LW_FORCE_STATE_FEEDBACK)
        g_string_append_c(w.s, ']');
      break;
    default:
      break;
    }
    g_string_append_c(w.s, '}');
  }
  list_close(&w, first);

  list_open(&w, "drivers", d->ndrivers, &first);
  for (int i = 0; i < d->ndrivers; i++) {
    const lw_driver_desc *r = &d->drivers[i];
    item_open(&w, &first, r->name);
    kvstr(&w, "joint", r->joint);
    kvnum(&w, "coordinate", r->coordinate);
    func_as(&w, "function", &r->func);
    g_string_append_c(w.s, '}');
  }
  list_close(&w, first);

  list_open(&w, "initial", d->ninitial, &first);
  for (int i = 0; i < d->ninitial; i++) {
    const lw_initial_desc *in = &d->initial[i];
    item_open_unnamed(&w, &first);
    g_string_append(w.s, "\"joint\": ");
    str(&w, in->joint);
    kvnum(&w, "coordinate", in->coordinate);
    if (in->has_value)
      kvnum(&w, "value", in->value);
    if (in->has_velocity)
      kvnum(&w, "velocity", in->velocity);
    g_string_append_c(w.s, '}');
  }
  list_close(&w, first);

  list_open(&w, "outputs", d->noutputs, &first);
  for (int i = 0; i < d->noutputs; i++) {
    const lw_output_desc *o = &d->outputs[i];
    item_open(&w, &first, o->name);
    kvstr(&w, "type", lw_output_type_name(o->type));
    switch (o->type) {
    case LW_OUT_POSITION:
    case LW_OUT_VELOCITY:
    case LW_OUT_ACCELERATION:
    case LW_OUT_BEAM_STRAIN:
    case LW_OUT_BEAM_FORCE:
    case LW_OUT_BEAM_CURVATURE:
    case LW_OUT_BEAM_MOMENT:
    case LW_OUT_BEAM_DEFLECTION:
      kvstr(&w, "body", o->body ? o->body : "");
      place(&w, "point", &o->place);
      break;
    case LW_OUT_BEAM_ENERGY:
      kvstr(&w, "body", o->body ? o->body : "");
      break;
    case LW_OUT_JOINT_COORDINATE:
    case LW_OUT_JOINT_VELOCITY:
      if (!o->joint && o->force)
        kvstr(&w, "force", o->force); /* a controller's measure */
      else
        kvstr(&w, "joint", o->joint ? o->joint : "");
      kvnum(&w, "coordinate", o->coordinate);
      break;
    case LW_OUT_REACTION_FORCE:
    case LW_OUT_FRICTION_FORCE:
    case LW_OUT_NORMAL_FORCE:
    case LW_OUT_SLIP_SPEED:
    case LW_OUT_FRICTION_WORK:
      kvstr(&w, "joint", o->joint ? o->joint : "");
      break;
    case LW_OUT_CONTROL:
    case LW_OUT_SPRING_LENGTH:
    case LW_OUT_SPRING_FORCE:
      kvstr(&w, "force", o->force ? o->force : "");
      break;
    case LW_OUT_CONTACT_FORCE:
      kvstr(&w, "event", o->event ? o->event : "");
      break;
    default:
      break;
    }
    g_string_append_c(w.s, '}');
  }
  list_close(&w, first);
  write_beams(&w, d);
  write_events(&w, d);

  list_open(&w, "parameters", d->nparams, &first);
  for (int i = 0; i < d->nparams; i++) {
    const lw_param_desc *p = &d->params[i];
    int run = param_run(d, i);
    if (run > 0) {
      /* NAME[0..n-1] bound to PREFIX/0..n-1: written as one array (bind "PREFIX/" "*") */
      const char *br = strrchr(p->name, '[');
      g_autofree char *base = g_strndup(p->name, (gsize)(br - p->name));
      const char *sl = strrchr(p->targets[0], '/');
      g_autofree char *bind = g_strdup_printf("%.*s/*", (int)(sl - p->targets[0]), p->targets[0]);
      item_open(&w, &first, base);
      kvstr(&w, "bind", bind);
      double *v = malloc(sizeof(double) * (size_t)run);
      for (int k = 0; k < run; k++)
        v[k] = d->params[i + k].value;
      kvvec(&w, "value", v, run);
      free(v);
      g_string_append_c(w.s, '}');
      i += run - 1;
      continue;
    }
    item_open(&w, &first, p->name);
    key(&w, "bind");
    if (p->ntargets == 1 && !p->factors && !p->times) {
      str(&w, p->targets[0]);
    } else {
      g_string_append_c(w.s, '[');
      for (int k = 0; k < p->ntargets; k++) {
        if (k)
          g_string_append(w.s, ", ");
        param_binding(&w, p, k);
      }
      g_string_append_c(w.s, ']');
    }
    kvnum(&w, "value", p->value);
    g_string_append_c(w.s, '}');
  }
  list_close(&w, first);

  list_open(&w, "objectives", d->nobjectives, &first);
  for (int i = 0; i < d->nobjectives; i++) {
    const lw_objective_desc *o = &d->objectives[i];
    item_open(&w, &first, o->name);
    key(&w, "terms");
    g_string_append_c(w.s, '[');
    for (int k = 0; k < o->nterms; k++) {
      const lw_term_desc *t = &o->terms[k];
      int width = 1;
      for (int j = 0; j < d->noutputs; j++)
        if (t->output && !strcmp(d->outputs[j].name, t->output))
          width = lw_output_width(d->outputs[j].type, d->planar);
      g_string_append(w.s, k ? ", {" : "{");
      g_string_append(w.s, "\"output\": ");
      str(&w, t->output ? t->output : "");
      g_string_append_printf(w.s, ", \"kind\": \"%s\", \"form\": \"%s\"",
                             t->kind == LW_TERM_FINAL ? "final" : "integral",
                             t->form == LW_TERM_VALUE   ? "value"
                             : t->form == LW_TERM_ABOVE ? "above"
                             : t->form == LW_TERM_BELOW ? "below"
                                                        : "square");
      if (t->component >= 0)
        g_string_append_printf(w.s, ", \"component\": %d", t->component);
      g_string_append(w.s, ", \"weight\": ");
      num(&w, t->weight);
      g_string_append(w.s, ", \"target\": ");
      vec(&w, t->target, width);
      g_string_append_c(w.s, '}');
    }
    g_string_append_c(w.s, ']');
    g_string_append_c(w.s, '}');
  }
  list_close(&w, first);

  list_open(&w, "problems", d->nproblems, &first);
  for (int i = 0; i < d->nproblems; i++) {
    const lw_problem_desc *p = &d->problems[i];
    item_open(&w, &first, p->name);
    if (p->description)
      kvstr(&w, "description", p->description);
    kvstr(&w, "objective", p->objective);
    g_string_append_printf(w.s, ", \"maximize\": %s", p->maximize ? "true" : "false");
    kvstr(&w, "algorithm", lw_opt_algorithm_name(p->algorithm));
    kvstr(&w, "gradient", lw_sens_method_name(p->gradient));
    g_string_append_printf(w.s, ", \"max_evaluations\": %d", p->max_evaluations);
    kvnum(&w, "f_tolerance", p->f_tolerance);
    kvnum(&w, "x_tolerance", p->x_tolerance);
    kvnum(&w, "gradient_tolerance", p->gradient_tolerance);
    g_string_append_printf(w.s, ", \"multistart\": %d, \"seed\": %u", p->multistart, p->seed);
    g_string_append(w.s, ",\n     \"variables\": [");
    for (int k = 0; k < p->nvars; k++) {
      const lw_var_desc *v = &p->vars[k];
      g_string_append(w.s, k ? ", {\"parameter\": " : "{\"parameter\": ");
      str(&w, v->parameter);
      if (v->has_lower)
        kvnum(&w, "lower", v->lower);
      if (v->has_upper)
        kvnum(&w, "upper", v->upper);
      kvnum(&w, "scale", v->scale);
      g_string_append_c(w.s, '}');
    }
    g_string_append(w.s, "],\n     \"constraints\": [");
    for (int k = 0; k < p->ncons; k++) {
      const lw_con_desc *c = &p->cons[k];
      g_string_append(w.s, k ? ", {\"objective\": " : "{\"objective\": ");
      str(&w, c->objective);
      kvstr(&w, "type", c->type == LW_CON_GE ? ">=" : c->type == LW_CON_EQ ? "=" : "<=");
      kvnum(&w, "value", c->value);
      g_string_append_c(w.s, '}');
    }
    g_string_append(w.s, "]}");
  }
  list_close(&w, first);
  g_string_append(w.s, "\n}\n");
  return g_string_free(w.s, FALSE);
}

gboolean lw_model_write_file(const lw_desc *d, const char *filename, GError **error)
{
  g_autofree char *text = lw_model_to_json(d);
  /* g_file_set_contents writes a temporary file and renames it: a failed
   * save never destroys the previous file */
  return g_file_set_contents(filename, text, -1, error);
}
