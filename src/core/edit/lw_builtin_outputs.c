/* lw_builtin_outputs.c: the outputs every model offers for plotting
 * without declaring them (lw_desc_add_builtin_outputs). */
#include "linkwright.h"
#include "kind/lw_kind.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

/* an output named base, or base#2, base#3, ... when that name is taken */
static lw_output_desc *add_unique(lw_desc *d, const char *base, lw_output_type type)
{
  char name[256];
  snprintf(name, sizeof name, "%s", base);
  for (int k = 2; lw_desc_name_used(d, name); k++)
    snprintf(name, sizeof name, "%s#%d", base, k);
  return lw_desc_add_output(d, name, type);
}

/* whether name is a beam's */
static int is_beam(const lw_desc *d, const char *name)
{
  for (int k = 0; name && k < d->nbeams; k++)
    if (d->beams[k].name && !strcmp(d->beams[k].name, name))
      return 1;
  return 0;
}

static void add_joint_outputs(lw_desc *d, int j, int *n)
{
  char base[256];
  int nc = lw_joint_ncoords(d->joints[j].type, d->planar);
  for (int c = 0; c < nc; c++) {
    if (nc == 1)
      snprintf(base, sizeof base, "%s.q", d->joints[j].name);
    else
      snprintf(base, sizeof base, "%s.q%d", d->joints[j].name, c);
    lw_output_desc *o = add_unique(d, base, LW_OUT_JOINT_COORDINATE);
    o->joint = strdup(d->joints[j].name);
    o->coordinate = c;
    if (nc == 1)
      snprintf(base, sizeof base, "%s.qd", d->joints[j].name);
    else
      snprintf(base, sizeof base, "%s.qd%d", d->joints[j].name, c);
    o = add_unique(d, base, LW_OUT_JOINT_VELOCITY);
    o->joint = strdup(d->joints[j].name);
    o->coordinate = c;
    *n += 2;
  }
  /* a joint holding a beam has no reaction output */
  if (is_beam(d, d->joints[j].body[0]) || is_beam(d, d->joints[j].body[1]))
    return;
  snprintf(base, sizeof base, "%s.reaction", d->joints[j].name);
  lw_output_desc *o = add_unique(d, base, LW_OUT_REACTION_FORCE);
  o->joint = strdup(d->joints[j].name);
  (*n)++;
  if (!d->joints[j].has_friction)
    return;
  static const lw_output_type fric[] = {LW_OUT_FRICTION_FORCE, LW_OUT_NORMAL_FORCE, LW_OUT_SLIP_SPEED,
                                        LW_OUT_FRICTION_WORK};
  for (size_t k = 0; k < sizeof fric / sizeof fric[0]; k++, (*n)++) {
    snprintf(base, sizeof base, "%s.%s", d->joints[j].name, lw_output_type_name(fric[k]));
    add_unique(d, base, fric[k])->joint = strdup(d->joints[j].name);
  }
}

static void add_force_outputs(lw_desc *d, int f, int *n)
{
  char base[256];
  const lw_force_kind *k = lw_force_kind_of(d->forces[f].type);
  for (int i = 0; i < k->noutputs; i++) {
    snprintf(base, sizeof base, "%s.%s", d->forces[f].name, k->outputs[i].suffix);
    add_unique(d, base, k->outputs[i].type)->force = strdup(d->forces[f].name);
    (*n)++;
  }
}

int lw_desc_add_builtin_outputs(lw_desc *d)
{
  int n = 0;
  int nj = d->njoints, nf = d->nforces, nb = d->nbodies;
  for (int j = 0; j < nj; j++)
    add_joint_outputs(d, j, &n);
  for (int f = 0; f < nf; f++)
    add_force_outputs(d, f, &n);
  static const lw_output_type energies[] = {LW_OUT_KINETIC_ENERGY, LW_OUT_POTENTIAL_ENERGY, LW_OUT_TOTAL_ENERGY,
                                            LW_OUT_DISSIPATED_ENERGY, LW_OUT_APPLIED_WORK, LW_OUT_ENERGY_BALANCE};
  for (size_t k = 0; k < sizeof energies / sizeof energies[0]; k++, n++)
    add_unique(d, lw_output_type_name(energies[k]), energies[k]);
  char base[256];
  for (int k = 0; k < d->nbeams; k++, n += 2) {
    /* a beam's elastic energy and its end's position */
    snprintf(base, sizeof base, "%s.energy", d->beams[k].name);
    add_unique(d, base, LW_OUT_BEAM_ENERGY)->body = strdup(d->beams[k].name);
    snprintf(base, sizeof base, "%s.end", d->beams[k].name);
    lw_output_desc *o = add_unique(d, base, LW_OUT_POSITION);
    o->body = strdup(d->beams[k].name);
    double L = 0;
    for (int i = 0; i < 3; i++)
      L += (d->beams[k].end[i] - d->beams[k].start[i]) * (d->beams[k].end[i] - d->beams[k].start[i]);
    o->place.p[0] = sqrt(L);
  }
  /* a planar body's absolute angle (a spatial one's needs an axis) */
  for (int b = 0; d->planar && b < nb; b++, n++) {
    if (d->bodies[b].point) {
      n--;
      continue;
    }
    snprintf(base, sizeof base, "%s.angle", d->bodies[b].name);
    add_unique(d, base, LW_OUT_BODY_ANGLE)->body = strdup(d->bodies[b].name);
  }
  for (int b = 0; b < nb; b++)
    for (int p = 0; p < d->bodies[b].npoints; p++, n++) {
      snprintf(base, sizeof base, "%s.%s", d->bodies[b].name, d->bodies[b].points[p].name);
      lw_output_desc *o = add_unique(d, base, LW_OUT_POSITION);
      o->body = strdup(d->bodies[b].name);
      lw_place_set_ref(&o->place, d->bodies[b].points[p].name);
    }
  return n;
}
