/* lw_desc.c: model descriptions: creation, copy, field paths, names. */
#include "linkwright.h"
#include "model/lw_desc.h"
#include "model/lw_event_desc.h"
#include "model/lw_beam_desc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s)
{
  if (!s)
    return NULL;
  size_t n = strlen(s) + 1;
  char *r = malloc(n);
  if (r)
    memcpy(r, s, n);
  return r;
}

/* grow an array by one zeroed element; returns the new element */
static void *grow(void **arr, int *n, size_t elem)
{
  void *p = realloc(*arr, (size_t)(*n + 1) * elem);
  if (!p)
    abort();
  *arr = p;
  char *e = (char *)p + (size_t)(*n) * elem;
  memset(e, 0, elem);
  (*n)++;
  return e;
}

void lw_solver_defaults(lw_solver_desc *s)
{
  s->t_end = 5.0;
  s->step = 1e-3;
  s->alpha = 1e9;
  s->tolerance = 1e-10;
  s->constraint_tolerance = 1e-10;
  s->max_iterations = 25;
  s->lambda_scale = 1.0;
  s->allow_redundant = 0;
  snprintf(s->integrator, sizeof s->integrator, "%s", "ali3p");
  s->mode = LW_MODE_STEP;
  s->rtol = 1e-6;
  s->atol = 1e-6;
  s->order = 4;
  s->rho_inf = 1.0;
}

lw_desc *lw_desc_new(void)
{
  lw_desc *d = calloc(1, sizeof *d);
  if (!d)
    abort();
  d->version = LW_FORMAT_VERSION;
  d->gravity[1] = -9.81;
  lw_solver_defaults(&d->solver);
  return d;
}

lw_body_desc *lw_desc_add_body(lw_desc *d, const char *name)
{
  lw_body_desc *b = grow((void **)&d->bodies, &d->nbodies, sizeof *b);
  b->name = dup_str(name);
  b->orientation[0] = 1.0;
  return b;
}

lw_point_desc *lw_body_add_point(lw_body_desc *b, const char *name, const double p[3])
{
  lw_point_desc *pt = grow((void **)&b->points, &b->npoints, sizeof *pt);
  pt->name = dup_str(name);
  if (p)
    memcpy(pt->p, p, sizeof pt->p);
  return pt;
}

lw_frame_desc *lw_body_add_frame(lw_body_desc *b, const char *name)
{
  lw_frame_desc *f = grow((void **)&b->frames, &b->nframes, sizeof *f);
  f->name = dup_str(name);
  f->axis[2] = 1.0;
  f->ref[0] = 1.0;
  return f;
}

lw_geom_desc *lw_body_add_geom(lw_body_desc *b, lw_geom_type type)
{
  lw_geom_desc *g = grow((void **)&b->geoms, &b->ngeoms, sizeof *g);
  g->type = type;
  g->color[0] = g->color[1] = g->color[2] = 0.6;
  return g;
}

lw_geom_desc *lw_body_copy_geom(lw_body_desc *b, const lw_geom_desc *src)
{
  lw_geom_desc *g = grow((void **)&b->geoms, &b->ngeoms, sizeof *g);
  *g = *src;
  g->mesh = dup_str(src->mesh);
  return g;
}

lw_joint_desc *lw_desc_add_joint(lw_desc *d, const char *name, lw_joint_type type,
                                 const char *body1, const char *body2)
{
  lw_joint_desc *j = grow((void **)&d->joints, &d->njoints, sizeof *j);
  j->name = dup_str(name);
  j->type = type;
  j->body[0] = dup_str(body1);
  j->body[1] = dup_str(body2);
  return j;
}

lw_feedback_desc *lw_force_add_feedback(lw_force_desc *f, const char *joint, int coordinate)
{
  lw_feedback_desc *b = grow((void **)&f->feedback, &f->nfeedback, sizeof *b);
  b->joint = dup_str(joint);
  b->coordinate = coordinate;
  b->target.type = LW_FUNC_CONSTANT;
  return b;
}

lw_force_desc *lw_desc_add_force(lw_desc *d, const char *name, lw_force_type type)
{
  lw_force_desc *f = grow((void **)&d->forces, &d->nforces, sizeof *f);
  f->name = dup_str(name);
  f->type = type;
  f->func.type = LW_FUNC_CONSTANT;
  f->func.a[0] = 1.0;
  return f;
}

lw_driver_desc *lw_desc_add_driver(lw_desc *d, const char *name, const char *joint, int coordinate)
{
  lw_driver_desc *r = grow((void **)&d->drivers, &d->ndrivers, sizeof *r);
  r->name = dup_str(name);
  r->joint = dup_str(joint);
  r->coordinate = coordinate;
  r->func.type = LW_FUNC_CONSTANT;
  return r;
}

lw_initial_desc *lw_desc_add_initial(lw_desc *d, const char *joint, int coordinate)
{
  lw_initial_desc *r = grow((void **)&d->initial, &d->ninitial, sizeof *r);
  r->joint = dup_str(joint);
  r->coordinate = coordinate;
  return r;
}

lw_output_desc *lw_desc_add_output(lw_desc *d, const char *name, lw_output_type type)
{
  lw_output_desc *o = grow((void **)&d->outputs, &d->noutputs, sizeof *o);
  o->name = dup_str(name);
  o->type = type;
  return o;
}

lw_param_desc *lw_desc_add_param(lw_desc *d, const char *name, const char *target)
{
  lw_param_desc *p = grow((void **)&d->params, &d->nparams, sizeof *p);
  p->name = dup_str(name);
  if (target) {
    p->targets = malloc(sizeof(char *));
    p->targets[0] = dup_str(target);
    p->ntargets = 1;
  }
  return p;
}

lw_objective_desc *lw_desc_add_objective(lw_desc *d, const char *name)
{
  lw_objective_desc *o = grow((void **)&d->objectives, &d->nobjectives, sizeof *o);
  o->name = dup_str(name);
  return o;
}

lw_problem_desc *lw_desc_add_problem(lw_desc *d, const char *name, const char *objective)
{
  lw_problem_desc *p = grow((void **)&d->problems, &d->nproblems, sizeof *p);
  p->name = dup_str(name);
  p->objective = dup_str(objective);
  p->algorithm = LW_OPT_LBFGS;
  p->gradient = LW_SENS_ADJOINT;
  p->max_evaluations = 500;
  p->f_tolerance = 1e-12;
  p->x_tolerance = 1e-10;
  p->gradient_tolerance = 1e-8;
  p->multistart = 1;
  p->seed = 1;
  return p;
}

lw_var_desc *lw_problem_add_var(lw_problem_desc *p, const char *parameter)
{
  lw_var_desc *v = grow((void **)&p->vars, &p->nvars, sizeof *v);
  v->parameter = dup_str(parameter);
  v->scale = 1.0;
  return v;
}

lw_con_desc *lw_problem_add_con(lw_problem_desc *p, const char *objective, lw_con_type type, double value)
{
  lw_con_desc *c = grow((void **)&p->cons, &p->ncons, sizeof *c);
  c->objective = dup_str(objective);
  c->type = type;
  c->value = value;
  return c;
}

static const char *const sens_names[] = {"value", "forward", "adjoint", "fd"};

const char *lw_sens_method_name(lw_sens_method m)
{
  return m >= LW_SENS_VALUE && m <= LW_SENS_FD ? sens_names[m] : "?";
}

int lw_sens_method_from_name(const char *s)
{
  for (int i = LW_SENS_VALUE; s && i <= LW_SENS_FD; i++)
    if (!strcmp(s, sens_names[i]))
      return i;
  return -1;
}

int lw_param_name_matches(const char *pat, const char *name)
{
  size_t l = strlen(pat);
  if (l > 3 && !strcmp(pat + l - 3, "[*]")) {
    if (strncmp(name, pat, l - 2))
      return 0;
    const char *q = name + l - 2;
    while (*q >= '0' && *q <= '9')
      q++;
    return q != name + l - 2 && !strcmp(q, "]");
  }
  return !strcmp(pat, name);
}

static const char *const opt_names[] = {"lbfgs", "mma", "slsqp", "auglag"};

const char *lw_opt_algorithm_name(lw_opt_algorithm a)
{
  return a >= 0 && a < LW_OPT_NALGORITHMS ? opt_names[a] : "?";
}

int lw_opt_algorithm_from_name(const char *s)
{
  for (int i = 0; s && i < LW_OPT_NALGORITHMS; i++)
    if (!strcmp(s, opt_names[i]))
      return i;
  return -1;
}

int lw_desc_problem_index(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->nproblems; i++)
    if (name && !strcmp(d->problems[i].name, name))
      return i;
  return -1;
}

lw_term_desc *lw_objective_add_term(lw_objective_desc *o, const char *output)
{
  lw_term_desc *t = grow((void **)&o->terms, &o->nterms, sizeof *t);
  t->output = dup_str(output);
  t->kind = LW_TERM_INTEGRAL;
  t->form = LW_TERM_SQUARE;
  t->component = -1;
  t->weight = 1.0;
  return t;
}

void lw_place_set_ref(lw_place *pl, const char *ref)
{
  free(pl->ref);
  pl->ref = dup_str(ref);
}

static void place_copy(lw_place *dst, const lw_place *src)
{
  *dst = *src;
  dst->ref = dup_str(src->ref);
}

void lw_desc_free(lw_desc *d)
{
  if (!d)
    return;
  for (int i = 0; i < d->nbodies; i++) {
    lw_body_desc *b = &d->bodies[i];
    free(b->name);
    for (int k = 0; k < b->npoints; k++)
      free(b->points[k].name);
    for (int k = 0; k < b->nframes; k++)
      free(b->frames[k].name);
    free(b->points);
    free(b->frames);
    for (int k = 0; k < b->ngeoms; k++)
      free(b->geoms[k].mesh);
    free(b->geoms);
  }
  for (int i = 0; i < d->njoints; i++) {
    lw_joint_desc *j = &d->joints[i];
    free(j->name);
    for (int k = 0; k < 2; k++) {
      free(j->body[k]);
      free(j->place[k].ref);
    }
  }
  for (int i = 0; i < d->nforces; i++) {
    lw_force_desc *f = &d->forces[i];
    free(f->name);
    free(f->joint);
    free(f->func.knots);
    for (int k = 0; k < 2; k++) {
      free(f->body[k]);
      free(f->place[k].ref);
    }
    for (int k = 0; k < f->nfeedback; k++) {
      free(f->feedback[k].joint);
      free(f->feedback[k].target.knots);
      for (int s = 0; s < 2; s++) {
        free(f->feedback[k].body[s]);
        free(f->feedback[k].place[s].ref);
      }
    }
    free(f->feedback);
  }
  for (int i = 0; i < d->ndrivers; i++) {
    free(d->drivers[i].name);
    free(d->drivers[i].joint);
    free(d->drivers[i].func.knots);
  }
  for (int i = 0; i < d->ninitial; i++)
    free(d->initial[i].joint);
  for (int i = 0; i < d->noutputs; i++) {
    free(d->outputs[i].name);
    free(d->outputs[i].body);
    free(d->outputs[i].joint);
    free(d->outputs[i].force);
    free(d->outputs[i].event);
    free(d->outputs[i].place.ref);
  }
  for (int i = 0; i < d->nparams; i++) {
    free(d->params[i].name);
    for (int k = 0; k < d->params[i].ntargets; k++) {
      free(d->params[i].targets[k]);
      if (d->params[i].times)
        free(d->params[i].times[k]);
    }
    free(d->params[i].targets);
    free(d->params[i].factors);
    free(d->params[i].times);
  }
  free(d->bodies);
  free(d->joints);
  free(d->forces);
  free(d->drivers);
  free(d->initial);
  for (int i = 0; i < d->nobjectives; i++) {
    free(d->objectives[i].name);
    for (int k = 0; k < d->objectives[i].nterms; k++)
      free(d->objectives[i].terms[k].output);
    free(d->objectives[i].terms);
  }
  for (int i = 0; i < d->nproblems; i++) {
    lw_problem_desc *p = &d->problems[i];
    free(p->name);
    free(p->description);
    free(p->objective);
    for (int k = 0; k < p->nvars; k++)
      free(p->vars[k].parameter);
    for (int k = 0; k < p->ncons; k++)
      free(p->cons[k].objective);
    free(p->vars);
    free(p->cons);
  }
  free(d->problems);
  free(d->outputs);
  free(d->params);
  free(d->objectives);
  free(d->name);
  free(d->description);
  free(d->source_dir);
  lw_desc_events_free(d);
  lw_desc_beams_free(d);
  free(d);
}

static void *dup_mem(const void *src, size_t n)
{
  if (!n)
    return NULL;
  void *p = malloc(n);
  if (!p)
    abort();
  memcpy(p, src, n);
  return p;
}

lw_desc *lw_desc_copy(const lw_desc *s)
{
  lw_desc *d = malloc(sizeof *d);
  if (!d)
    abort();
  *d = *s;
  d->name = dup_str(s->name);
  d->description = dup_str(s->description);
  d->source_dir = dup_str(s->source_dir);
  d->bodies = dup_mem(s->bodies, sizeof *s->bodies * (size_t)s->nbodies);
  for (int i = 0; i < s->nbodies; i++) {
    lw_body_desc *b = &d->bodies[i];
    const lw_body_desc *sb = &s->bodies[i];
    b->name = dup_str(sb->name);
    b->points = dup_mem(sb->points, sizeof *sb->points * (size_t)sb->npoints);
    for (int k = 0; k < sb->npoints; k++)
      b->points[k].name = dup_str(sb->points[k].name);
    b->frames = dup_mem(sb->frames, sizeof *sb->frames * (size_t)sb->nframes);
    for (int k = 0; k < sb->nframes; k++)
      b->frames[k].name = dup_str(sb->frames[k].name);
    b->geoms = dup_mem(sb->geoms, sizeof *sb->geoms * (size_t)sb->ngeoms);
    for (int k = 0; k < sb->ngeoms; k++)
      b->geoms[k].mesh = dup_str(sb->geoms[k].mesh);
  }
  d->joints = dup_mem(s->joints, sizeof *s->joints * (size_t)s->njoints);
  for (int i = 0; i < s->njoints; i++) {
    lw_joint_desc *j = &d->joints[i];
    const lw_joint_desc *sj = &s->joints[i];
    j->name = dup_str(sj->name);
    for (int k = 0; k < 2; k++) {
      j->body[k] = dup_str(sj->body[k]);
      place_copy(&j->place[k], &sj->place[k]);
    }
  }
  d->forces = dup_mem(s->forces, sizeof *s->forces * (size_t)s->nforces);
  for (int i = 0; i < s->nforces; i++) {
    lw_force_desc *f = &d->forces[i];
    const lw_force_desc *sf = &s->forces[i];
    f->name = dup_str(sf->name);
    f->joint = dup_str(sf->joint);
    f->func.knots = dup_mem(sf->func.knots, sizeof(double) * (size_t)(sf->func.knots ? sf->func.n : 0));
    for (int k = 0; k < 2; k++) {
      f->body[k] = dup_str(sf->body[k]);
      place_copy(&f->place[k], &sf->place[k]);
    }
    f->feedback = dup_mem(sf->feedback, sizeof *sf->feedback * (size_t)sf->nfeedback);
    for (int k = 0; k < sf->nfeedback; k++) {
      const lw_feedback_desc *sb = &sf->feedback[k];
      f->feedback[k].joint = dup_str(sb->joint);
      for (int s = 0; s < 2; s++) {
        f->feedback[k].body[s] = dup_str(sb->body[s]);
        place_copy(&f->feedback[k].place[s], &sb->place[s]);
      }
      f->feedback[k].target.knots =
          dup_mem(sb->target.knots, sizeof(double) * (size_t)(sb->target.knots ? sb->target.n : 0));
    }
  }
  d->drivers = dup_mem(s->drivers, sizeof *s->drivers * (size_t)s->ndrivers);
  for (int i = 0; i < s->ndrivers; i++) {
    d->drivers[i].name = dup_str(s->drivers[i].name);
    d->drivers[i].joint = dup_str(s->drivers[i].joint);
    d->drivers[i].func.knots =
        dup_mem(s->drivers[i].func.knots, sizeof(double) * (size_t)(s->drivers[i].func.knots ? s->drivers[i].func.n : 0));
  }
  d->initial = dup_mem(s->initial, sizeof *s->initial * (size_t)s->ninitial);
  for (int i = 0; i < s->ninitial; i++)
    d->initial[i].joint = dup_str(s->initial[i].joint);
  d->outputs = dup_mem(s->outputs, sizeof *s->outputs * (size_t)s->noutputs);
  for (int i = 0; i < s->noutputs; i++) {
    lw_output_desc *o = &d->outputs[i];
    const lw_output_desc *so = &s->outputs[i];
    o->name = dup_str(so->name);
    o->body = dup_str(so->body);
    o->joint = dup_str(so->joint);
    o->force = dup_str(so->force);
    o->event = dup_str(so->event);
    place_copy(&o->place, &so->place);
  }
  d->params = dup_mem(s->params, sizeof *s->params * (size_t)s->nparams);
  for (int i = 0; i < s->nparams; i++) {
    lw_param_desc *p = &d->params[i];
    const lw_param_desc *sp = &s->params[i];
    p->name = dup_str(sp->name);
    p->targets = dup_mem(sp->targets, sizeof(char *) * (size_t)sp->ntargets);
    for (int k = 0; k < sp->ntargets; k++)
      p->targets[k] = dup_str(sp->targets[k]);
    p->factors = sp->factors ? dup_mem(sp->factors, sizeof(double) * (size_t)sp->ntargets) : NULL;
    p->times = sp->times ? dup_mem(sp->times, sizeof(char *) * (size_t)sp->ntargets) : NULL;
    for (int k = 0; p->times && k < sp->ntargets; k++)
      p->times[k] = dup_str(sp->times[k]);
  }
  d->objectives = dup_mem(s->objectives, sizeof *s->objectives * (size_t)s->nobjectives);
  for (int i = 0; i < s->nobjectives; i++) {
    lw_objective_desc *o = &d->objectives[i];
    const lw_objective_desc *so = &s->objectives[i];
    o->name = dup_str(so->name);
    o->terms = dup_mem(so->terms, sizeof *so->terms * (size_t)so->nterms);
    for (int k = 0; k < so->nterms; k++)
      o->terms[k].output = dup_str(so->terms[k].output);
  }
  d->problems = dup_mem(s->problems, sizeof *s->problems * (size_t)s->nproblems);
  for (int i = 0; i < s->nproblems; i++) {
    lw_problem_desc *p = &d->problems[i];
    const lw_problem_desc *sp = &s->problems[i];
    p->name = dup_str(sp->name);
    p->description = dup_str(sp->description);
    p->objective = dup_str(sp->objective);
    p->vars = dup_mem(sp->vars, sizeof *sp->vars * (size_t)sp->nvars);
    for (int k = 0; k < sp->nvars; k++)
      p->vars[k].parameter = dup_str(sp->vars[k].parameter);
    p->cons = dup_mem(sp->cons, sizeof *sp->cons * (size_t)sp->ncons);
    for (int k = 0; k < sp->ncons; k++)
      p->cons[k].objective = dup_str(sp->cons[k].objective);
  }
  lw_desc_events_copy(d, s);
  lw_desc_beams_copy(d, s);
  return d;
}

/* ---- names ---------------------------------------------------------- */
static const char *joint_names[LW_JOINT_NTYPES] = {
  "revolute", "prismatic", "spherical", "cylindrical", "universal", "planar", "fixed"};
static const char *force_names[LW_FORCE_NTYPES] = {
  "spring_damper", "joint_spring_damper", "force", "torque", "pid", "state_feedback", "beam_element"};
static const char *output_names[LW_OUT_NTYPES] = {
  "position", "velocity", "acceleration", "joint_coordinate", "joint_velocity",
  "reaction_force", "kinetic_energy", "potential_energy", "total_energy", "control",
  "spring_length", "spring_force", "dissipated_energy", "friction_force", "normal_force", "slip_speed",
  "friction_work", "beam_strain", "beam_force", "beam_curvature", "beam_moment", "beam_deflection",
  "beam_energy", "contact_force", "body_angle", "applied_work", "energy_balance"};

static int name_index(const char **names, int n, const char *s)
{
  for (int i = 0; s && i < n; i++)
    if (strcmp(names[i], s) == 0)
      return i;
  return -1;
}

const char *lw_joint_type_name(lw_joint_type t) { return joint_names[t]; }
int lw_joint_type_from_name(const char *s) { return name_index(joint_names, LW_JOINT_NTYPES, s); }
const char *lw_force_type_name(lw_force_type t) { return force_names[t]; }
int lw_force_type_from_name(const char *s) { return name_index(force_names, LW_FORCE_NTYPES, s); }
const char *lw_output_type_name(lw_output_type t) { return output_names[t]; }
int lw_output_type_from_name(const char *s) { return name_index(output_names, LW_OUT_NTYPES, s); }

int lw_joint_ncoords(lw_joint_type t, int planar)
{
  switch (t) {
  case LW_JOINT_REVOLUTE:
  case LW_JOINT_PRISMATIC:
    return 1;
  case LW_JOINT_CYLINDRICAL:
    return planar ? 0 : 2;
  case LW_JOINT_PLANAR:
    return planar ? 0 : 3;
  default:
    return 0;
  }
}

int lw_output_width(const lw_output_type t, int planar)
{
  switch (t) {
  case LW_OUT_POSITION:
  case LW_OUT_VELOCITY:
  case LW_OUT_ACCELERATION:
  case LW_OUT_REACTION_FORCE:
    return planar ? 2 : 3;
  default:
    return 1;
  }
}

/* ---- field paths ------------------------------------------------------ */
/* Split the next segment off *p into buf; returns 0 at the end. */
static int seg(const char **p, char *buf, size_t n)
{
  const char *s = *p;
  if (!*s)
    return 0;
  size_t k = 0;
  while (*s && *s != '/') {
    if (k + 1 < n)
      buf[k++] = *s;
    s++;
  }
  buf[k] = 0;
  if (*s == '/')
    s++;
  *p = s;
  return 1;
}

/* vector component: rest of the path is one index < n */
static double *comp(double *v, int n, const char *rest)
{
  char b[32];
  if (!seg(&rest, b, sizeof b) || *rest)
    return NULL;
  char *end;
  long k = strtol(b, &end, 10);
  if (*end || end == b || k < 0 || k >= n)
    return NULL;
  return &v[k];
}

int lw_func_ncoef(const lw_func *f)
{
  switch (f->type) {
  case LW_FUNC_CONSTANT: return 1;
  case LW_FUNC_LINEAR: return 2;
  case LW_FUNC_POLY: return f->n;
  case LW_FUNC_SINE: return 4;
  case LW_FUNC_SPLINE: return f->knots ? f->n : 0;
  }
  return 0;
}

static double *func_field(lw_func *f, const char *rest)
{
  if (f->type == LW_FUNC_SPLINE)
    return comp(f->knots, lw_func_ncoef(f), rest);
  return comp(f->a, lw_func_ncoef(f), rest);
}

static double *place_field(lw_place *pl, const char *rest)
{
  if (pl->ref)
    return NULL; /* a named place lives on the body */
  return comp(pl->p, 3, rest);
}

/* bodies/<name>/mass | angle | com | inertia | position | orientation |
 * points/<point> | frames/<frame>/origin | axis | ref | angle (p: after the name) */
static double *body_field(lw_body_desc *bd, const char *p)
{
  char c[128];
  if (!seg(&p, c, sizeof c))
    return NULL;
  if (!strcmp(c, "mass")) return *p ? NULL : &bd->mass;
  if (!strcmp(c, "angle")) return *p ? NULL : &bd->angle;
  if (!strcmp(c, "com")) return comp(bd->com, 3, p);
  if (!strcmp(c, "inertia")) return comp(bd->inertia, 6, p);
  if (!strcmp(c, "position")) return comp(bd->position, 3, p);
  if (!strcmp(c, "orientation")) return comp(bd->orientation, 4, p);
  if (!strcmp(c, "points")) {
    char e[128];
    if (!seg(&p, e, sizeof e))
      return NULL;
    for (int k = 0; k < bd->npoints; k++)
      if (!strcmp(bd->points[k].name, e))
        return comp(bd->points[k].p, 3, p);
    return NULL;
  }
  if (!strcmp(c, "frames")) {
    char e[128], f[32];
    if (!seg(&p, e, sizeof e) || !seg(&p, f, sizeof f))
      return NULL;
    for (int k = 0; k < bd->nframes; k++) {
      lw_frame_desc *fr = &bd->frames[k];
      if (strcmp(fr->name, e))
        continue;
      if (!strcmp(f, "origin")) return comp(fr->origin, 3, p);
      if (!strcmp(f, "axis")) return comp(fr->axis, 3, p);
      if (!strcmp(f, "ref")) return comp(fr->ref, 3, p);
      if (!strcmp(f, "angle")) return *p ? NULL : &fr->angle;
    }
  }
  return NULL;
}

/* joints/<name>/point1 | point2 | axis1 | axis2 | ref1 | ref2 | angle1 | angle2 | at
 * (the global origin, when the joint gives one) */
static double *joint_field(lw_joint_desc *j, const char *p)
{
  char c[128];
  if (!seg(&p, c, sizeof c))
    return NULL;
  if (!strcmp(c, "at"))
    return j->has_at ? comp(j->at, 3, p) : NULL;
  int k = c[strlen(c) - 1] == '2';
  if (!strncmp(c, "point", 5)) return place_field(&j->place[k], p);
  if (!strncmp(c, "axis", 4)) return comp(j->axis[k], 3, p);
  if (!strncmp(c, "ref", 3)) return comp(j->ref[k], 3, p);
  if (!strncmp(c, "angle", 5)) return *p ? NULL : &j->angle[k];
  if (!strcmp(c, "friction") && j->has_friction) {
    char e[32];
    int fk;
    if (!seg(&p, e, sizeof e) || *p || (fk = lw_friction_param_index(e)) < 0)
      return NULL;
    return &j->friction[fk];
  }
  return NULL;
}

/* a controller's measure: pid kp | kd | ki | target/K; state_feedback
 * gains/K/kp | kd | ki | target/K (c: the segment after the force's name) */
static double *feedback_field(lw_force_desc *f, char *c, size_t nc, const char *p)
{
  lw_feedback_desc *fb = NULL;
  if (f->type == LW_FORCE_PID && f->nfeedback == 1) {
    fb = &f->feedback[0];
  } else if (f->type == LW_FORCE_STATE_FEEDBACK && !strcmp(c, "gains")) {
    char kk[32];
    if (!seg(&p, kk, sizeof kk) || !seg(&p, c, nc))
      return NULL;
    char *end;
    long k = strtol(kk, &end, 10);
    if (*end || end == kk || k < 0 || k >= f->nfeedback)
      return NULL;
    fb = &f->feedback[k];
  }
  if (!fb)
    return NULL;
  if (!strcmp(c, "kp")) return *p ? NULL : &fb->kp;
  if (!strcmp(c, "kd")) return *p ? NULL : &fb->kd;
  if (!strcmp(c, "ki")) return *p ? NULL : &fb->ki;
  if (!strcmp(c, "target")) return func_field(&fb->target, p);
  return NULL;
}

/* forces/<name>/stiffness | damping | rest_length | vector | function |
 * point1 | point2 | a controller's gains */
static double *force_field(lw_force_desc *f, const char *p)
{
  char c[128];
  if (!seg(&p, c, sizeof c))
    return NULL;
  if (!strcmp(c, "stiffness")) return *p ? NULL : &f->stiffness;
  if (!strcmp(c, "damping")) return *p ? NULL : &f->damping;
  if (!strcmp(c, "rest_length") || !strcmp(c, "rest_value")) return *p ? NULL : &f->rest;
  if (!strcmp(c, "vector")) return comp(f->vector, 3, p);
  if (!strcmp(c, "function")) return func_field(&f->func, p);
  if (!strncmp(c, "point", 5)) return place_field(&f->place[c[5] == '2'], p);
  return feedback_field(f, c, sizeof c, p);
}

/* objectives/<name>/terms/<k>/weight | target/<i> */
static double *objective_field(lw_objective_desc *o, const char *p)
{
  char c[128], kk[32];
  if (!seg(&p, c, sizeof c) || strcmp(c, "terms") || !seg(&p, kk, sizeof kk))
    return NULL;
  char *end;
  long k = strtol(kk, &end, 10);
  if (*end || end == kk || k < 0 || k >= o->nterms || !seg(&p, c, sizeof c))
    return NULL;
  if (!strcmp(c, "weight"))
    return *p ? NULL : &o->terms[k].weight;
  if (!strcmp(c, "target"))
    return comp(o->terms[k].target, 3, p);
  return NULL;
}

/* initial/<joint>[.<coordinate>]/value | velocity (b: the joint part) */
static double *initial_field(lw_desc *d, const char *b, const char *p)
{
  char jn[128], c[128];
  int coord = 0;
  snprintf(jn, sizeof jn, "%s", b);
  char *dot = strrchr(jn, '.');
  if (dot) {
    coord = atoi(dot + 1);
    *dot = 0;
  }
  if (!seg(&p, c, sizeof c) || *p)
    return NULL;
  for (int i = 0; i < d->ninitial; i++) {
    lw_initial_desc *in = &d->initial[i];
    if (strcmp(in->joint, jn) || in->coordinate != coord)
      continue;
    if (!strcmp(c, "value")) return &in->value;
    if (!strcmp(c, "velocity")) return &in->velocity;
  }
  return NULL;
}

/* gravity/<i> | solver/t_end | step | alpha | tolerance */
static double *settings_field(lw_desc *d, const char *a, const char *p)
{
  if (!strcmp(a, "gravity"))
    return comp(d->gravity, 3, p);
  char b[128];
  if (!seg(&p, b, sizeof b) || *p)
    return NULL;
  lw_solver_desc *s = &d->solver;
  if (!strcmp(b, "t_end")) return &s->t_end;
  if (!strcmp(b, "step")) return &s->step;
  if (!strcmp(b, "alpha")) return &s->alpha;
  if (!strcmp(b, "tolerance")) return &s->tolerance;
  return NULL;
}

/* out = the index of the first element of arr[0 .. n) named name, or -1 */
#define FIND_NAMED(arr, n, key, out)                                                              \
  do {                                                                                             \
    out = -1;                                                                                      \
    for (int k_ = 0; k_ < (n) && out < 0; k_++)                                                    \
      if (!strcmp((arr)[k_].name, (key)))                                                           \
        out = k_;                                                                                  \
  } while (0)

double *lw_desc_field(lw_desc *d, const char *path)
{
  char a[128], b[128];
  const char *p = path;
  if (!seg(&p, a, sizeof a))
    return NULL;
  if (!strcmp(a, "gravity") || !strcmp(a, "solver"))
    return settings_field(d, a, p);
  if (!seg(&p, b, sizeof b))
    return NULL;
  if (!strcmp(a, "initial"))
    return initial_field(d, b, p);
  int i = -1;
  if (!strcmp(a, "bodies")) {
    FIND_NAMED(d->bodies, d->nbodies, b, i);
    return i < 0 ? NULL : body_field(&d->bodies[i], p);
  }
  if (!strcmp(a, "joints")) {
    FIND_NAMED(d->joints, d->njoints, b, i);
    return i < 0 ? NULL : joint_field(&d->joints[i], p);
  }
  if (!strcmp(a, "forces")) {
    FIND_NAMED(d->forces, d->nforces, b, i);
    return i < 0 ? NULL : force_field(&d->forces[i], p);
  }
  if (!strcmp(a, "drivers")) {
    char c[128];
    FIND_NAMED(d->drivers, d->ndrivers, b, i);
    if (i < 0 || !seg(&p, c, sizeof c) || strcmp(c, "function"))
      return NULL;
    return func_field(&d->drivers[i].func, p);
  }
  if (!strcmp(a, "objectives")) {
    FIND_NAMED(d->objectives, d->nobjectives, b, i);
    return i < 0 ? NULL : objective_field(&d->objectives[i], p);
  }
  if (!strcmp(a, "events"))
    return lw_event_field(d, b, p);
  if (!strcmp(a, "beams"))
    return lw_beam_field(d, b, p);
  return NULL;
}

/* The spline as weights on the knot values: on the interval [t_i, t_i+1]
 * (s in [0, 1]) the Hermite form h00 b_i + h10 m_i + h01 b_i+1 + h11 m_i+1
 * with slopes m_j = (b_hi - b_lo) / (hi - lo), lo = max(j-1, 0),
 * hi = min(j+1, n-1).  Slot j of w holds the weight of knot i - 1 + j;
 * returns i, or -1 when t lies outside (the end value is held: the weight
 * of that knot is 1 in *end). */
static int spline_weights(const lw_func *f, double t, double w[4], double wd[4], double wdd[4], int *end)
{
  int n = f->n;
  double t0 = f->a[0], t1 = f->a[1];
  double dt = n > 1 ? (t1 - t0) / (n - 1) : 1.0;
  memset(w, 0, 4 * sizeof(double));
  memset(wd, 0, 4 * sizeof(double));
  memset(wdd, 0, 4 * sizeof(double));
  if (n < 2 || !(t > t0) || !(t < t1)) {
    *end = (n < 2 || !(t > t0)) ? 0 : n - 1;
    return -1;
  }
  int i = (int)floor((t - t0) / dt);
  if (i > n - 2)
    i = n - 2;
  if (i < 0)
    i = 0;
  double s = (t - t0) / dt - i;
  double s2 = s * s, s3 = s2 * s;
  double h[4] = {2 * s3 - 3 * s2 + 1, s3 - 2 * s2 + s, -2 * s3 + 3 * s2, s3 - s2};
  double hd[4] = {6 * s2 - 6 * s, 3 * s2 - 4 * s + 1, -6 * s2 + 6 * s, 3 * s2 - 2 * s};
  double hdd[4] = {12 * s - 6, 6 * s - 4, -12 * s + 6, 6 * s - 2};
  /* values b_i (slot 1), b_i+1 (slot 2) */
  w[1] += h[0]; wd[1] += hd[0]; wdd[1] += hdd[0];
  w[2] += h[2]; wd[2] += hd[2]; wdd[2] += hdd[2];
  for (int e = 0; e < 2; e++) { /* slopes at i (e = 0) and i + 1 */
    int j = i + e;
    int lo = j > 0 ? j - 1 : 0, hi = j < n - 1 ? j + 1 : n - 1;
    double fac = 1.0 / (hi - lo);
    double c = e ? h[3] : h[1], cd = e ? hd[3] : hd[1], cdd = e ? hdd[3] : hdd[1];
    int shi = hi - i + 1, slo = lo - i + 1;
    w[shi] += fac * c; wd[shi] += fac * cd; wdd[shi] += fac * cdd;
    w[slo] -= fac * c; wd[slo] -= fac * cd; wdd[slo] -= fac * cdd;
  }
  for (int k = 0; k < 4; k++) {
    wd[k] /= dt;
    wdd[k] /= dt * dt;
  }
  return i;
}

void lw_func_coef_support(const lw_func *f, int k, double *lo, double *hi)
{
  *lo = -INFINITY;
  *hi = INFINITY;
  if (f->type != LW_FUNC_SPLINE || f->n < 2 || !(f->a[1] > f->a[0]))
    return;
  /* value k reaches the knot intervals k - 2 .. k + 1 (see below), and
   * before the start or after the end only the first or last value counts;
   * one interval more on each side keeps rounding in the floor out */
  double dt = (f->a[1] - f->a[0]) / (f->n - 1);
  if (k > 1)
    *lo = f->a[0] + (k - 3) * dt;
  if (k < f->n - 2)
    *hi = f->a[0] + (k + 3) * dt;
}

/* the derivative of f's value and its first two time derivatives at t
 * along the coefficients' tangent tf (the knots' times are not parameters) */
void lw_func_tangent(const lw_func *f, const lw_func *tf, double t, double *v, double *dv, double *ddv)
{
  if (f->type != LW_FUNC_SINE) {
    /* linear in the coefficients */
    lw_func g = *f;
    if (f->type == LW_FUNC_SPLINE)
      g.knots = tf->knots; /* the times are not parameters */
    else
      memcpy(g.a, tf->a, sizeof g.a);
    lw_func_eval(&g, t, v, dv, ddv);
    return;
  }
  const double *a = f->a, *b = tf->a;
  double ph = a[2] * t + a[3], dph = b[2] * t + b[3];
  double s = sin(ph), c = cos(ph);
  if (v)
    *v = b[0] + b[1] * s + a[1] * c * dph;
  if (dv)
    *dv = (b[1] * a[2] + a[1] * b[2]) * c - a[1] * a[2] * s * dph;
  if (ddv)
    *ddv = -(b[1] * a[2] * a[2] + 2.0 * a[1] * a[2] * b[2]) * s - a[1] * a[2] * a[2] * c * dph;
}

/* a spline's third derivative at t: its cubic piece's, from the Hermite
 * basis' third derivatives 12, 6, -12, 6 (values over dt^3, slopes, which
 * carry dt themselves, over dt^2) with the slopes by central differences */
static double spline_third(const lw_func *f, double t)
{
  int n = f->n;
  if (!f->knots || n < 2 || !(t > f->a[0]) || !(t < f->a[1]))
    return 0.0;
  double dt = (f->a[1] - f->a[0]) / (n - 1);
  int i = (int)floor((t - f->a[0]) / dt);
  if (i > n - 2)
    i = n - 2;
  if (i < 0)
    i = 0;
  double m[2];
  for (int e = 0; e < 2; e++) {
    int j = i + e, lo = j > 0 ? j - 1 : 0, hi = j < n - 1 ? j + 1 : n - 1;
    m[e] = (f->knots[hi] - f->knots[lo]) / (hi - lo);
  }
  return (12.0 * (f->knots[i] - f->knots[i + 1]) + 6.0 * (m[0] + m[1])) / (dt * dt * dt);
}

void lw_func_time_tangent(const lw_func *f, double t, double *v, double *dv, double *ddv)
{
  double x = 0, dx = 0, ddx = 0;
  const double *a = f->a;
  switch (f->type) {
  case LW_FUNC_CONSTANT:
    break;
  case LW_FUNC_LINEAR:
    x = a[1];
    break;
  case LW_FUNC_POLY:
    /* f' = sum k a[k] t^(k-1), with its two derivatives by Horner's rule */
    for (int k = f->n - 1; k >= 1; k--) {
      ddx = ddx * t + 2.0 * dx;
      dx = dx * t + x;
      x = x * t + k * a[k];
    }
    break;
  case LW_FUNC_SINE: {
    double s = sin(a[2] * t + a[3]), c = cos(a[2] * t + a[3]), w = a[2];
    x = a[1] * w * c;
    dx = -a[1] * w * w * s;
    ddx = -a[1] * w * w * w * c;
    break;
  }
  case LW_FUNC_SPLINE:
    lw_func_eval(f, t, NULL, &x, &dx);
    ddx = spline_third(f, t);
    break;
  }
  if (v) *v = x;
  if (dv) *dv = dx;
  if (ddv) *ddv = ddx;
}

int lw_func_coef_tangent(const lw_func *f, int k, double t, double *v, double *dv, double *ddv)
{
  double x = 0, dx = 0, ddx = 0;
  if (f->type == LW_FUNC_SPLINE) {
    double w[4], wd[4], wdd[4];
    int end = 0;
    if (f->n >= 2 && t > f->a[0] && t < f->a[1]) {
      /* value k reaches the knot intervals k - 2 .. k + 1 only: answer
       * before computing any weight (a step asks this of every value) */
      int i = (int)floor((t - f->a[0]) / ((f->a[1] - f->a[0]) / (f->n - 1)));
      if (i > f->n - 2)
        i = f->n - 2;
      if (k < i - 1 || k > i + 2) {
        if (v) *v = 0;
        if (dv) *dv = 0;
        if (ddv) *ddv = 0;
        return 0;
      }
    }
    int i = spline_weights(f, t, w, wd, wdd, &end);
    if (i < 0) {
      x = k == end ? 1.0 : 0.0;
    } else if (k >= i - 1 && k <= i + 2) {
      x = w[k - i + 1];
      dx = wd[k - i + 1];
      ddx = wdd[k - i + 1];
    }
  } else if (f->type == LW_FUNC_SINE) {
    const double *a = f->a;
    double ph = a[2] * t + a[3], s = sin(ph), c = cos(ph);
    switch (k) {
    case 0: x = 1; break;
    case 1: x = s; dx = a[2] * c; ddx = -a[2] * a[2] * s; break;
    case 2:
      x = a[1] * c * t;
      dx = a[1] * c - a[1] * a[2] * s * t;
      ddx = -2.0 * a[1] * a[2] * s - a[1] * a[2] * a[2] * c * t;
      break;
    case 3: x = a[1] * c; dx = -a[1] * a[2] * s; ddx = -a[1] * a[2] * a[2] * c; break;
    default: break;
    }
  } else if (k >= 0 && k < LW_FUNC_MAXCOEF) {
    lw_func g = *f;
    memset(g.a, 0, sizeof g.a);
    g.a[k] = 1.0;
    lw_func_eval(&g, t, &x, &dx, &ddx);
  }
  if (v) *v = x;
  if (dv) *dv = dx;
  if (ddv) *ddv = ddx;
  return x != 0.0 || dx != 0.0 || ddx != 0.0;
}

void lw_func_eval(const lw_func *f, double t, double *v, double *dv, double *ddv)
{
  double x = 0, dx = 0, ddx = 0;
  const double *a = f->a;
  switch (f->type) {
  case LW_FUNC_SPLINE: {
    double w[4], wd[4], wdd[4];
    int end = 0;
    if (!f->knots || f->n < 1)
      break;
    int i = spline_weights(f, t, w, wd, wdd, &end);
    if (i < 0) {
      x = f->knots[end];
      break;
    }
    for (int k = 0; k < 4; k++) {
      int j = i - 1 + k;
      if (j < 0 || j >= f->n)
        continue;
      x += w[k] * f->knots[j];
      dx += wd[k] * f->knots[j];
      ddx += wdd[k] * f->knots[j];
    }
    break;
  }
  case LW_FUNC_CONSTANT:
    x = a[0];
    break;
  case LW_FUNC_LINEAR:
    x = a[0] + a[1] * t;
    dx = a[1];
    break;
  case LW_FUNC_POLY:
    for (int k = f->n - 1; k >= 0; k--) {
      ddx = ddx * t + 2.0 * dx;
      dx = dx * t + x;
      x = x * t + a[k];
    }
    break;
  case LW_FUNC_SINE: {
    double s = sin(a[2] * t + a[3]), c = cos(a[2] * t + a[3]);
    x = a[0] + a[1] * s;
    dx = a[1] * a[2] * c;
    ddx = -a[1] * a[2] * a[2] * s;
    break;
  }
  }
  if (v) *v = x;
  if (dv) *dv = dx;
  if (ddv) *ddv = ddx;
}
