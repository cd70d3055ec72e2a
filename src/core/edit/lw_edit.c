/* lw_edit.c: changes to a model description made by an editor (remove and
 * rename elements with everything that refers to them, unique names) and the
 * live check of a description being edited: compile, assemble, and the
 * numerical rank of the constraint Jacobian at the configuration reached.
 *
 * The rank is taken from the singular values of Phi_q with every equation
 * scaled to a unit row (the same scaling the initialization's QR uses), so
 * the degrees of freedom are those of the actual configuration, not a
 * Grübler count: a parallelogram's extra link or a planar loop of parallel
 * sliders is seen as it is.  Equations in a dependency are the rows with a
 * component in the left null space of Phi_q (y^T Phi_q = 0): every joint
 * whose equations enter such a combination is reported, not only the one a
 * pivoting order would have dropped. */
#include "lw_internal.h"
#include "model/lw_beam_desc.h"
#include "model/lw_event_desc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void dgesvd_(const char *ju, const char *jv, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt, const int *ldvt,
                    double *work, const int *lwork, int *info, size_t, size_t);

/* ---- removing elements ------------------------------------------------ */
/* Take element i out of an array of n elements of size sz; the element is
 * copied (shallow) into out. */
static void take_out(void *arr, int *n, int i, size_t sz, void *out)
{
  char *a = arr;
  memcpy(out, a + (size_t)i * sz, sz);
  memmove(a + (size_t)i * sz, a + (size_t)(i + 1) * sz, (size_t)(*n - i - 1) * sz);
  (*n)--;
}

/* free what a lone element owns, through lw_desc_free on a one-element description */
static void free_taken(int kind, void *elem)
{
  lw_desc *t = lw_desc_new();
  size_t sz = 0;
  void **slot = NULL;
  int *count = NULL;
  switch (kind) {
  case 0: sz = sizeof(lw_body_desc), slot = (void **)&t->bodies, count = &t->nbodies; break;
  case 1: sz = sizeof(lw_joint_desc), slot = (void **)&t->joints, count = &t->njoints; break;
  case 2: sz = sizeof(lw_force_desc), slot = (void **)&t->forces, count = &t->nforces; break;
  case 3: sz = sizeof(lw_driver_desc), slot = (void **)&t->drivers, count = &t->ndrivers; break;
  case 4: sz = sizeof(lw_initial_desc), slot = (void **)&t->initial, count = &t->ninitial; break;
  case 5: sz = sizeof(lw_output_desc), slot = (void **)&t->outputs, count = &t->noutputs; break;
  case 7: sz = sizeof(lw_objective_desc), slot = (void **)&t->objectives, count = &t->nobjectives; break;
  case 8: sz = sizeof(lw_problem_desc), slot = (void **)&t->problems, count = &t->nproblems; break;
  default: sz = sizeof(lw_param_desc), slot = (void **)&t->params, count = &t->nparams; break;
  }
  *slot = malloc(sz);
  if (!*slot)
    abort();
  memcpy(*slot, elem, sz);
  *count = 1;
  lw_desc_free(t);
}

static int eq(const char *a, const char *b)
{
  return a && b && !strcmp(a, b);
}

/* parameters that bind a field under prefix ("bodies/B/") lose those targets;
 * a parameter left without targets goes */
static int drop_param_targets(lw_desc *d, const char *prefix)
{
  int removed = 0;
  size_t n = strlen(prefix);
  for (int i = d->nparams - 1; i >= 0; i--) {
    lw_param_desc *p = &d->params[i];
    for (int k = p->ntargets - 1; k >= 0; k--)
      if (!strncmp(p->targets[k], prefix, n)) {
        free(p->targets[k]);
        size_t after = (size_t)(p->ntargets - k - 1);
        memmove(p->targets + k, p->targets + k + 1, sizeof(char *) * after);
        if (p->factors)
          memmove(p->factors + k, p->factors + k + 1, sizeof(double) * after);
        if (p->times) {
          free(p->times[k]);
          memmove(p->times + k, p->times + k + 1, sizeof(char *) * after);
        }
        p->ntargets--;
      }
    if (p->ntargets == 0) {
      lw_param_desc e;
      take_out(d->params, &d->nparams, i, sizeof e, &e);
      free_taken(6, &e);
      removed++;
    }
  }
  return removed;
}

static int remove_event_refs(lw_desc *d, int kind, const char *name);

static int remove_joint_refs(lw_desc *d, const char *joint)
{
  int removed = 0;
  for (int i = d->ndrivers - 1; i >= 0; i--)
    if (eq(d->drivers[i].joint, joint)) {
      char pre[200];
      snprintf(pre, sizeof pre, "drivers/%s/", d->drivers[i].name);
      drop_param_targets(d, pre);
      lw_driver_desc e;
      take_out(d->drivers, &d->ndrivers, i, sizeof e, &e);
      free_taken(3, &e);
      removed++;
    }
  for (int i = d->ninitial - 1; i >= 0; i--)
    if (eq(d->initial[i].joint, joint)) {
      lw_initial_desc e;
      take_out(d->initial, &d->ninitial, i, sizeof e, &e);
      free_taken(4, &e);
      removed++;
    }
  char pre[200];
  snprintf(pre, sizeof pre, "initial/%s/", joint);
  drop_param_targets(d, pre);
  for (int i = d->nforces - 1; i >= 0; i--) {
    lw_force_desc *f = &d->forces[i];
    int hit = eq(f->joint, joint);
    for (int k = 0; k < f->nfeedback; k++)
      hit |= eq(f->feedback[k].joint, joint);
    if (hit) {
      char fp[200];
      snprintf(fp, sizeof fp, "forces/%s", f->name);
      removed += lw_desc_remove(d, fp);
    }
  }
  for (int i = d->noutputs - 1; i >= 0; i--)
    if (eq(d->outputs[i].joint, joint)) {
      char op[200];
      snprintf(op, sizeof op, "outputs/%s", d->outputs[i].name);
      removed += lw_desc_remove(d, op);
    }
  removed += remove_event_refs(d, 1, joint);
  return removed;
}

/* objective terms that read a removed output go, and objectives left empty */
static void drop_output_terms(lw_desc *d, const char *output)
{
  for (int i = 0; i < d->nobjectives; i++) {
    lw_objective_desc *o = &d->objectives[i];
    for (int k = o->nterms - 1; k >= 0; k--)
      if (eq(o->terms[k].output, output)) {
        free(o->terms[k].output);
        memmove(o->terms + k, o->terms + k + 1, sizeof *o->terms * (size_t)(o->nterms - k - 1));
        o->nterms--;
      }
  }
}

/* the events on a removed body (kind 0), joint (1) or output (2) go */
static int remove_event_refs(lw_desc *d, int kind, const char *name)
{
  int removed = 0;
  for (int i = d->nevents - 1; i >= 0; i--) {
    const lw_event_desc *e = &d->events[i];
    if (eq(kind == 0 ? e->body : kind == 1 ? e->joint : e->output, name)) {
      char ep[200];
      snprintf(ep, sizeof ep, "events/%s", e->name);
      removed += lw_desc_remove(d, ep);
    }
  }
  return removed;
}

/* the joints, forces, outputs and events on a body or beam go */
static int remove_body_refs(lw_desc *d, const char *body)
{
  int removed = 0;
  for (int j = d->njoints - 1; j >= 0; j--)
    if (eq(d->joints[j].body[0], body) || eq(d->joints[j].body[1], body)) {
      char jp[200];
      snprintf(jp, sizeof jp, "joints/%s", d->joints[j].name);
      removed += lw_desc_remove(d, jp);
    }
  for (int f = d->nforces - 1; f >= 0; f--)
    if (eq(d->forces[f].body[0], body) || eq(d->forces[f].body[1], body)) {
      char fp[200];
      snprintf(fp, sizeof fp, "forces/%s", d->forces[f].name);
      removed += lw_desc_remove(d, fp);
    }
  for (int o = d->noutputs - 1; o >= 0; o--)
    if (eq(d->outputs[o].body, body)) {
      char op[200];
      snprintf(op, sizeof op, "outputs/%s", d->outputs[o].name);
      removed += lw_desc_remove(d, op);
    }
  return removed + remove_event_refs(d, 0, body);
}

/* beam i goes with what refers to it (joints, forces, outputs and events
 * name a beam as their body) */
static int remove_beam(lw_desc *d, int i)
{
  char *beam = strdup(d->beams[i].name);
  if (!beam)
    abort();
  free(d->beams[i].name);
  memmove(d->beams + i, d->beams + i + 1, sizeof *d->beams * (size_t)(d->nbeams - i - 1));
  if (--d->nbeams == 0) {
    free(d->beams);
    d->beams = NULL;
  }
  char pre[200];
  snprintf(pre, sizeof pre, "beams/%s/", beam);
  drop_param_targets(d, pre);
  int removed = 1 + remove_body_refs(d, beam);
  free(beam);
  return removed;
}

int lw_desc_remove(lw_desc *d, const char *path)
{
  if (!d || !path)
    return 0;
  const char *slash = strchr(path, '/');
  if (!slash)
    return 0;
  const char *name = slash + 1;
  size_t kl = (size_t)(slash - path);
  int removed = 0;
  char pre[200];
  if (kl == 6 && !strncmp(path, "bodies", kl)) {
    for (int i = 0; i < d->nbodies; i++) {
      if (!eq(d->bodies[i].name, name))
        continue;
      char *body = strdup(name);
      lw_body_desc e;
      take_out(d->bodies, &d->nbodies, i, sizeof e, &e);
      free_taken(0, &e);
      removed++;
      snprintf(pre, sizeof pre, "bodies/%s/", body);
      drop_param_targets(d, pre);
      removed += remove_body_refs(d, body);
      free(body);
      return removed;
    }
  } else if (kl == 5 && !strncmp(path, "beams", kl)) {
    for (int i = 0; i < d->nbeams; i++)
      if (eq(d->beams[i].name, name))
        return remove_beam(d, i);
  } else if (kl == 6 && !strncmp(path, "joints", kl)) {
    for (int i = 0; i < d->njoints; i++) {
      if (!eq(d->joints[i].name, name))
        continue;
      char *joint = strdup(name);
      lw_joint_desc e;
      take_out(d->joints, &d->njoints, i, sizeof e, &e);
      free_taken(1, &e);
      removed++;
      snprintf(pre, sizeof pre, "joints/%s/", joint);
      drop_param_targets(d, pre);
      removed += remove_joint_refs(d, joint);
      free(joint);
      return removed;
    }
  } else if (kl == 6 && !strncmp(path, "forces", kl)) {
    for (int i = 0; i < d->nforces; i++) {
      if (!eq(d->forces[i].name, name))
        continue;
      char *force = strdup(name);
      lw_force_desc e;
      take_out(d->forces, &d->nforces, i, sizeof e, &e);
      free_taken(2, &e);
      removed++;
      snprintf(pre, sizeof pre, "forces/%s/", force);
      drop_param_targets(d, pre);
      for (int o = d->noutputs - 1; o >= 0; o--)
        if (eq(d->outputs[o].force, force)) {
          char op[200];
          snprintf(op, sizeof op, "outputs/%s", d->outputs[o].name);
          removed += lw_desc_remove(d, op);
        }
      free(force);
      return removed;
    }
  } else if (kl == 7 && !strncmp(path, "drivers", kl)) {
    for (int i = 0; i < d->ndrivers; i++)
      if (eq(d->drivers[i].name, name)) {
        snprintf(pre, sizeof pre, "drivers/%s/", name);
        drop_param_targets(d, pre);
        lw_driver_desc e;
        take_out(d->drivers, &d->ndrivers, i, sizeof e, &e);
        free_taken(3, &e);
        return 1;
      }
  } else if (kl == 7 && !strncmp(path, "outputs", kl)) {
    for (int i = 0; i < d->noutputs; i++)
      if (eq(d->outputs[i].name, name)) {
        drop_output_terms(d, name);
        char *output = strdup(name);
        lw_output_desc e;
        take_out(d->outputs, &d->noutputs, i, sizeof e, &e);
        free_taken(5, &e);
        removed = 1 + remove_event_refs(d, 2, output);
        free(output);
        return removed;
      }
  } else if (kl == 6 && !strncmp(path, "events", kl)) {
    for (int i = 0; i < d->nevents; i++)
      if (eq(d->events[i].name, name)) {
        snprintf(pre, sizeof pre, "events/%s/", name);
        drop_param_targets(d, pre);
        lw_desc_event_take(d, i);
        return 1;
      }
  } else if (kl == 10 && !strncmp(path, "parameters", kl)) {
    for (int i = 0; i < d->nparams; i++)
      if (eq(d->params[i].name, name)) {
        lw_param_desc e;
        take_out(d->params, &d->nparams, i, sizeof e, &e);
        free_taken(6, &e);
        return 1;
      }
  } else if (kl == 10 && !strncmp(path, "objectives", kl)) {
    for (int i = 0; i < d->nobjectives; i++)
      if (eq(d->objectives[i].name, name)) {
        /* problems that optimize it go; constraints on it go from the others */
        for (int k = d->nproblems - 1; k >= 0; k--) {
          lw_problem_desc *p = &d->problems[k];
          if (eq(p->objective, name)) {
            lw_problem_desc e;
            take_out(d->problems, &d->nproblems, k, sizeof e, &e);
            free_taken(8, &e);
            removed++;
            continue;
          }
          for (int c = p->ncons - 1; c >= 0; c--)
            if (eq(p->cons[c].objective, name)) {
              free(p->cons[c].objective);
              memmove(p->cons + c, p->cons + c + 1, sizeof *p->cons * (size_t)(p->ncons - c - 1));
              p->ncons--;
            }
        }
        lw_objective_desc e;
        take_out(d->objectives, &d->nobjectives, i, sizeof e, &e);
        free_taken(7, &e);
        return removed + 1;
      }
  }
  return removed;
}

/* ---- moving points -------------------------------------------------- */
static int near3(const double *a, const double *b)
{
  for (int i = 0; i < 3; i++)
    if (!(fabs(a[i] - b[i]) <= 1e-9 * (1.0 + fabs(a[i]) + fabs(b[i]))))
      return 0;
  return 1;
}

static int near1(double a, double b)
{
  return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-300;
}

void lw_bar_inertia(int planar, double m, double L, const double u[3], double I[6])
{
  memset(I, 0, 6 * sizeof(double));
  if (planar) {
    I[2] = m * L * L / 12;
    return;
  }
  /* a thin cylinder: a across the axis, b about it; I = a (1 - u u^T) + b u u^T */
  double r = 0.5 * LW_LINK_WIDTH, a = m * L * L / 12 + 0.25 * m * r * r, b = 0.5 * m * r * r;
  for (int i = 0; i < 3; i++)
    I[i] = a + (b - a) * u[i] * u[i];
  I[3] = (b - a) * u[0] * u[1] + 0.0; /* + 0.0: no -0 in the file */
  I[4] = (b - a) * u[0] * u[2] + 0.0;
  I[5] = (b - a) * u[1] * u[2] + 0.0;
}

/* the body is a drawn link's uniform bar between its two points */
static int uniform_bar(const lw_desc *d, const lw_body_desc *b)
{
  if (b->npoints != 2 || b->ngeoms != 1 || b->geoms[0].type != LW_GEOM_BAR)
    return 0;
  const double *p0 = b->points[0].p, *p1 = b->points[1].p;
  if (!near3(b->geoms[0].from, p0) || !near3(b->geoms[0].to, p1))
    return 0;
  double e[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  double L = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
  if (!(L > 0) || !near1(b->mass, LW_LINK_DENSITY * L))
    return 0;
  double mid[3] = {0.5 * (p0[0] + p1[0]), 0.5 * (p0[1] + p1[1]), 0.5 * (p0[2] + p1[2])};
  if (!near3(b->com, mid))
    return 0;
  double u[3] = {e[0] / L, e[1] / L, e[2] / L}, I[6];
  lw_bar_inertia(d->planar, b->mass, L, u, I);
  for (int i = 0; i < 6; i++)
    if (!(fabs(I[i] - b->inertia[i]) <= 1e-9 * (I[0] + I[1] + I[2])))
      return 0;
  return 1;
}

int lw_desc_move_point(lw_desc *d, int bi, int k, const double p[3])
{
  if (!d || bi < 0 || bi >= d->nbodies || k < 0 || k >= d->bodies[bi].npoints)
    return -1;
  lw_body_desc *b = &d->bodies[bi];
  int bar = uniform_bar(d, b);
  double was[3];
  memcpy(was, b->points[k].p, sizeof was);
  memcpy(b->points[k].p, p, sizeof was);
  if (d->planar)
    b->points[k].p[2] = 0;
  const double *now = b->points[k].p;
  for (int g = 0; g < b->ngeoms; g++) {
    lw_geom_desc *gd = &b->geoms[g];
    if (gd->type == LW_GEOM_BAR || gd->type == LW_GEOM_CYLINDER) {
      if (near3(gd->from, was))
        memcpy(gd->from, now, sizeof was);
      if (near3(gd->to, was))
        memcpy(gd->to, now, sizeof was);
    } else if (near3(gd->center, was))
      memcpy(gd->center, now, sizeof was);
  }
  /* parameters bound to a coordinate that changed */
  for (int c = 0; c < 3; c++) {
    if (now[c] == was[c])
      continue;
    char path[400];
    snprintf(path, sizeof path, "bodies/%s/points/%s/%d", b->name, b->points[k].name, c);
    for (int i = 0; i < d->nparams; i++)
      for (int t = 0; t < d->params[i].ntargets; t++)
        if (eq(d->params[i].targets[t], path)) {
          double v = lw_param_value_for_field(d, i, t, now[c]);
          if (isfinite(v))
            d->params[i].value = v;
        }
  }
  if (!bar)
    return 0;
  const double *p0 = b->points[0].p, *p1 = b->points[1].p;
  double e[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  double L = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
  if (!(L > 1e-9))
    return 0; /* a bar of no length: its last mass properties stay */
  double u[3] = {e[0] / L, e[1] / L, e[2] / L};
  b->mass = LW_LINK_DENSITY * L;
  for (int i = 0; i < 3; i++)
    b->com[i] = 0.5 * (p0[i] + p1[i]);
  lw_bar_inertia(d->planar, b->mass, L, u, b->inertia);
  return 1;
}

/* ---- names ---------------------------------------------------------- */
lw_elem_kind lw_desc_find(const lw_desc *d, const char *path, int *index)
{
  const char *slash = path ? strchr(path, '/') : NULL;
  *index = -1;
  if (!slash)
    return LW_ELEM_NONE;
  const char *name = slash + 1;
  size_t kl = (size_t)(slash - path);
  if (kl == 6 && !strncmp(path, "bodies", kl)) {
    for (int i = 0; i < d->nbodies; i++)
      if (eq(d->bodies[i].name, name))
        return *index = i, LW_ELEM_BODY;
  } else if (kl == 6 && !strncmp(path, "joints", kl)) {
    for (int i = 0; i < d->njoints; i++)
      if (eq(d->joints[i].name, name))
        return *index = i, LW_ELEM_JOINT;
  } else if (kl == 6 && !strncmp(path, "forces", kl)) {
    for (int i = 0; i < d->nforces; i++)
      if (eq(d->forces[i].name, name))
        return *index = i, LW_ELEM_FORCE;
  } else if (kl == 5 && !strncmp(path, "beams", kl)) {
    for (int i = 0; i < d->nbeams; i++)
      if (eq(d->beams[i].name, name))
        return *index = i, LW_ELEM_BEAM;
  }
  return LW_ELEM_NONE;
}

int lw_desc_name_used(const lw_desc *d, const char *name)
{
  if (!name || !strcmp(name, "ground"))
    return 1;
  for (int i = 0; i < d->nbodies; i++)
    if (eq(d->bodies[i].name, name))
      return 1;
  for (int i = 0; i < d->nbeams; i++)
    if (eq(d->beams[i].name, name))
      return 1;
  for (int i = 0; i < d->njoints; i++)
    if (eq(d->joints[i].name, name))
      return 1;
  for (int i = 0; i < d->nforces; i++)
    if (eq(d->forces[i].name, name))
      return 1;
  for (int i = 0; i < d->ndrivers; i++)
    if (eq(d->drivers[i].name, name))
      return 1;
  for (int i = 0; i < d->nevents; i++)
    if (eq(d->events[i].name, name))
      return 1;
  for (int i = 0; i < d->noutputs; i++)
    if (eq(d->outputs[i].name, name))
      return 1;
  for (int i = 0; i < d->nparams; i++)
    if (eq(d->params[i].name, name))
      return 1;
  for (int i = 0; i < d->nobjectives; i++)
    if (eq(d->objectives[i].name, name))
      return 1;
  return 0;
}

void lw_desc_unique_name(const lw_desc *d, const char *prefix, char *buf, size_t len)
{
  for (int k = 1;; k++) {
    snprintf(buf, len, "%s%d", prefix, k);
    if (!lw_desc_name_used(d, buf))
      return;
  }
}

static void set_str(char **s, const char *v)
{
  free(*s);
  *s = strdup(v);
  if (!*s)
    abort();
}

/* rewrite parameter targets "KIND/OLD/..." to "KIND/NEW/..." */
static void rename_targets(lw_desc *d, const char *kind, const char *old, const char *nw)
{
  char pre[200];
  snprintf(pre, sizeof pre, "%s/%s/", kind, old);
  size_t n = strlen(pre);
  for (int i = 0; i < d->nparams; i++)
    for (int k = 0; k < d->params[i].ntargets; k++) {
      char *t = d->params[i].targets[k];
      if (strncmp(t, pre, n))
        continue;
      size_t len = strlen(kind) + strlen(nw) + strlen(t + n) + 3;
      char *r = malloc(len);
      if (!r)
        abort();
      snprintf(r, len, "%s/%s/%s", kind, nw, t + n);
      free(t);
      d->params[i].targets[k] = r;
    }
}

/* joints, forces, outputs and events that name body (or beam) o name nw */
static void rename_body_refs(lw_desc *d, const char *o, const char *nw)
{
  for (int j = 0; j < d->njoints; j++)
    for (int k = 0; k < 2; k++)
      if (eq(d->joints[j].body[k], o))
        set_str(&d->joints[j].body[k], nw);
  for (int f = 0; f < d->nforces; f++)
    for (int k = 0; k < 2; k++)
      if (eq(d->forces[f].body[k], o))
        set_str(&d->forces[f].body[k], nw);
  for (int k = 0; k < d->noutputs; k++)
    if (eq(d->outputs[k].body, o))
      set_str(&d->outputs[k].body, nw);
  for (int k = 0; k < d->nevents; k++)
    if (eq(d->events[k].body, o))
      set_str(&d->events[k].body, nw);
}

int lw_desc_rename(lw_desc *d, const char *path, const char *nw)
{
  if (!d || !path || !nw || !*nw || strchr(nw, '/') || lw_desc_name_used(d, nw))
    return 0;
  const char *slash = strchr(path, '/');
  if (!slash)
    return 0;
  const char *old = slash + 1;
  if (!strncmp(path, "beams/", 6)) {
    for (int i = 0; i < d->nbeams; i++)
      if (eq(d->beams[i].name, old)) {
        char *o = strdup(old);
        set_str(&d->beams[i].name, nw);
        rename_body_refs(d, o, nw);
        rename_targets(d, "beams", o, nw);
        free(o);
        return 1;
      }
  } else if (!strncmp(path, "bodies/", 7)) {
    for (int i = 0; i < d->nbodies; i++)
      if (eq(d->bodies[i].name, old)) {
        char *o = strdup(old);
        set_str(&d->bodies[i].name, nw);
        rename_body_refs(d, o, nw);
        rename_targets(d, "bodies", o, nw);
        free(o);
        return 1;
      }
  } else if (!strncmp(path, "joints/", 7)) {
    for (int i = 0; i < d->njoints; i++)
      if (eq(d->joints[i].name, old)) {
        char *o = strdup(old);
        set_str(&d->joints[i].name, nw);
        for (int k = 0; k < d->ndrivers; k++)
          if (eq(d->drivers[k].joint, o))
            set_str(&d->drivers[k].joint, nw);
        for (int k = 0; k < d->ninitial; k++)
          if (eq(d->initial[k].joint, o))
            set_str(&d->initial[k].joint, nw);
        for (int f = 0; f < d->nforces; f++) {
          if (eq(d->forces[f].joint, o))
            set_str(&d->forces[f].joint, nw);
          for (int k = 0; k < d->forces[f].nfeedback; k++)
            if (eq(d->forces[f].feedback[k].joint, o))
              set_str(&d->forces[f].feedback[k].joint, nw);
        }
        for (int k = 0; k < d->noutputs; k++)
          if (eq(d->outputs[k].joint, o))
            set_str(&d->outputs[k].joint, nw);
        for (int k = 0; k < d->nevents; k++)
          if (eq(d->events[k].joint, o))
            set_str(&d->events[k].joint, nw);
        rename_targets(d, "joints", o, nw);
        rename_targets(d, "initial", o, nw);
        free(o);
        return 1;
      }
  } else if (!strncmp(path, "forces/", 7)) {
    for (int i = 0; i < d->nforces; i++)
      if (eq(d->forces[i].name, old)) {
        char *o = strdup(old);
        set_str(&d->forces[i].name, nw);
        for (int k = 0; k < d->noutputs; k++)
          if (eq(d->outputs[k].force, o))
            set_str(&d->outputs[k].force, nw);
        rename_targets(d, "forces", o, nw);
        free(o);
        return 1;
      }
  } else if (!strncmp(path, "drivers/", 8)) {
    for (int i = 0; i < d->ndrivers; i++)
      if (eq(d->drivers[i].name, old)) {
        rename_targets(d, "drivers", old, nw);
        set_str(&d->drivers[i].name, nw);
        return 1;
      }
  } else if (!strncmp(path, "outputs/", 8)) {
    for (int i = 0; i < d->noutputs; i++)
      if (eq(d->outputs[i].name, old)) {
        for (int k = 0; k < d->nobjectives; k++)
          for (int t = 0; t < d->objectives[k].nterms; t++)
            if (eq(d->objectives[k].terms[t].output, old))
              set_str(&d->objectives[k].terms[t].output, nw);
        for (int k = 0; k < d->nevents; k++)
          if (eq(d->events[k].output, old))
            set_str(&d->events[k].output, nw);
        set_str(&d->outputs[i].name, nw);
        return 1;
      }
  } else if (!strncmp(path, "events/", 7)) {
    for (int i = 0; i < d->nevents; i++)
      if (eq(d->events[i].name, old)) {
        rename_targets(d, "events", old, nw);
        set_str(&d->events[i].name, nw);
        return 1;
      }
  }
  return 0;
}

/* ---- the live check ----------------------------------------------------- */
void lw_check_result_clear(lw_check_result *res)
{
  if (!res)
    return;
  free(res->joint_state);
  free(res->q);
  lw_data_free(res->data);
  lw_model_free(res->model);
  memset(res, 0, sizeof *res);
}

/* numerical rank of the rows of A (nr x nq, column-major, leading dim lda)
 * selected by use[] (NULL: all); U (nr x nr) receives the left singular
 * vectors of the selected rows when not NULL */
static int rank_rows(const double *A, int nr, int nq, const int *use, double *U)
{
  int m = 0;
  for (int r = 0; r < nr; r++)
    m += !use || use[r];
  if (m == 0 || nq == 0)
    return 0;
  double *B = malloc(sizeof(double) * (size_t)m * nq);
  int k = m < nq ? m : nq, i = 0;
  double *s = malloc(sizeof(double) * (size_t)k);
  for (int r = 0; r < nr; r++) {
    if (use && !use[r])
      continue;
    for (int j = 0; j < nq; j++)
      B[(size_t)j * m + i] = A[(size_t)j * nr + r];
    i++;
  }
  int lwork = -1, info = 0, one = 1;
  double wq = 0, dummy = 0;
  double *u = U ? U : &dummy;
  int ldu = U ? m : 1;
  const char *ju = U ? "A" : "N";
  dgesvd_(ju, "N", &m, &nq, B, &m, s, u, &ldu, &dummy, &one, &wq, &lwork, &info, 1, 1);
  lwork = (int)wq + 1;
  double *work = malloc(sizeof(double) * (size_t)lwork);
  dgesvd_(ju, "N", &m, &nq, B, &m, s, u, &ldu, &dummy, &one, work, &lwork, &info, 1, 1);
  int rank = 0;
  if (info == 0) {
    /* rows have unit norm: the same absolute threshold as the initialization's QR */
    double tol = 1e-9 * (s[0] > 1 ? s[0] : 1);
    for (int j = 0; j < k; j++)
      rank += s[j] > tol;
  } else
    rank = -1;
  free(work);
  free(s);
  free(B);
  return rank;
}

int lw_check(const lw_desc *desc, lw_check_result *res)
{
  memset(res, 0, sizeof *res);
  res->status = LW_ERR_MODEL;
  res->njoints = desc->njoints;
  res->joint_state = calloc((size_t)desc->njoints + 1, sizeof(int));
  res->rank = res->rank_free = -1;
  res->dof = res->dof_driven = -1;
  lw_model *m = lw_compile(desc, &res->err);
  if (!m) {
    /* a joint named in the error is the one to look at */
    for (int j = 0; j < desc->njoints; j++) {
      char p[200];
      snprintf(p, sizeof p, "joints/%s", desc->joints[j].name);
      size_t n = strlen(p);
      if (!strncmp(res->err.path, p, n) && (res->err.path[n] == 0 || res->err.path[n] == '/'))
        res->joint_state[j] |= LW_CHECK_CONFLICT;
    }
    return res->status;
  }
  res->compiled = 1;
  res->model = m;
  res->data = lw_data_new(m);
  lw_error ierr;
  int st = lw_initialize(m, res->data, &ierr);
  int nq = lw_model_nq(m), nc = lw_model_nc(m);
  res->nq = nq;
  res->nc = nc;
  res->q = malloc(sizeof(double) * ((size_t)nq + 1));
  memcpy(res->q, lw_data_q(res->data), sizeof(double) * (size_t)nq);
  double *Phi = malloc(sizeof(double) * ((size_t)nc + 1));
  double *J = malloc(sizeof(double) * ((size_t)nc * nq + 1));
  lw_eval_dense(m, res->data, res->q, lw_data_qd(res->data), 0.0, NULL, Phi, J, NULL, NULL);
  res->residual = 0;
  for (int r = 0; r < nc; r++)
    res->residual = fmax(res->residual, fabs(Phi[r]));
  /* unit rows */
  for (int r = 0; r < nc; r++) {
    double s = 0;
    for (int j = 0; j < nq; j++)
      s += J[(size_t)j * nc + r] * J[(size_t)j * nc + r];
    s = s > 0 ? 1 / sqrt(s) : 0;
    for (int j = 0; j < nq; j++)
      J[(size_t)j * nc + r] *= s;
  }
  int *free_rows = malloc(sizeof(int) * ((size_t)nc + 1));
  for (int r = 0; r < nc; r++)
    free_rows[r] = m->rows[r].owner_kind != LW_OWNER_DRIVER;
  double *U = malloc(sizeof(double) * ((size_t)nc * nc + 1));
  res->rank = rank_rows(J, nc, nq, NULL, U);
  res->rank_free = rank_rows(J, nc, nq, free_rows, NULL);
  if (res->rank >= 0) {
    res->dof_driven = nq - res->rank;
    res->dof = nq - res->rank_free;
    res->nredundant = nc - res->rank;
    /* rows with a component in the left null space take part in a dependency */
    for (int r = 0; r < nc; r++) {
      double w = 0;
      for (int k = res->rank; k < nc; k++)
        w += U[(size_t)k * nc + r] * U[(size_t)k * nc + r];
      const lw_row *row = &m->rows[r];
      if (w > 1e-8 && row->owner_kind == LW_OWNER_JOINT && row->owner < desc->njoints)
        res->joint_state[row->owner] |= LW_CHECK_REDUNDANT;
    }
  }
  /* not assembled: the joints whose equations stay violated */
  int assembled = st == LW_OK || res->residual <= 1e-9;
  if (!assembled)
    for (int r = 0; r < nc; r++) {
      const lw_row *row = &m->rows[r];
      if (fabs(Phi[r]) > 1e-6 && row->owner_kind == LW_OWNER_JOINT && row->owner < desc->njoints)
        res->joint_state[row->owner] |= LW_CHECK_CONFLICT;
    }
  res->assembled = assembled;
  if (st == LW_OK) {
    res->status = LW_OK;
  } else {
    res->err = ierr;
    res->status = LW_ERR_MODEL;
  }
  free(U);
  free(free_rows);
  free(J);
  free(Phi);
  return res->status;
}
