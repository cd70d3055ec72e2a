/* lw_beam_desc.c: flexible beams in a description: creation, copy, field
 * paths and the section's area and second moment. */
#include "model/lw_beam_desc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const section_names[LW_SECTION_NTYPES] = {"rectangle", "circle", "tube", "generic"};

const char *lw_section_type_name(lw_section_type t)
{
  return (int)t >= 0 && t < LW_SECTION_NTYPES ? section_names[t] : "unknown";
}

int lw_section_type_from_name(const char *s)
{
  for (int i = 0; s && i < LW_SECTION_NTYPES; i++)
    if (!strcmp(section_names[i], s))
      return i;
  return -1;
}

lw_beam_desc *lw_desc_add_beam(lw_desc *d, const char *name, int nel)
{
  lw_beam_desc *p = realloc(d->beams, sizeof *p * ((size_t)d->nbeams + 1));
  if (!p)
    abort();
  d->beams = p;
  lw_beam_desc *b = &p[d->nbeams++];
  memset(b, 0, sizeof *b);
  b->name = name ? strdup(name) : NULL;
  b->nel = nel;
  b->end[0] = 1.0;
  b->young = 1.0;
  b->density = 1.0;
  b->section = LW_SECTION_RECTANGLE;
  b->size[0] = b->size[1] = 1.0;
  return b;
}

int lw_beam_section(const lw_beam_desc *b, double *A, double *I)
{
  const double *s = b->size;
  switch (b->section) {
  case LW_SECTION_RECTANGLE:
    if (!(s[0] > 0) || !(s[1] > 0))
      return -1;
    /* bending across the height h (in the plane of a planar model; a 3-D
     * element bends alike in every direction) */
    *A = s[0] * s[1];
    *I = s[0] * s[1] * s[1] * s[1] / 12.0;
    return 0;
  case LW_SECTION_CIRCLE:
    if (!(s[0] > 0))
      return -1;
    *A = M_PI * s[0] * s[0] / 4.0;
    *I = M_PI * pow(s[0], 4) / 64.0;
    return 0;
  case LW_SECTION_TUBE:
    if (!(s[0] > 0) || !(s[1] >= 0) || !(s[1] < s[0]))
      return -1;
    *A = M_PI * (s[0] * s[0] - s[1] * s[1]) / 4.0;
    *I = M_PI * (pow(s[0], 4) - pow(s[1], 4)) / 64.0;
    return 0;
  case LW_SECTION_GENERIC:
    if (!(b->area > 0) || !(b->inertia > 0))
      return -1;
    *A = b->area;
    *I = b->inertia;
    return 0;
  default:
    return -1;
  }
}

int lw_beam_section_tangent(const lw_beam_desc *b, const double *x, double *dA, double *dI)
{
  const double *s = b->size;
  *dA = *dI = 0.0;
  switch (b->section) {
  case LW_SECTION_RECTANGLE:
    if (x == &s[0]) {
      *dA = s[1];
      *dI = s[1] * s[1] * s[1] / 12.0;
    } else if (x == &s[1]) {
      *dA = s[0];
      *dI = s[0] * s[1] * s[1] / 4.0;
    } else
      return 0;
    return 1;
  case LW_SECTION_CIRCLE:
  case LW_SECTION_TUBE:
    if (x == &s[0] || (b->section == LW_SECTION_TUBE && x == &s[1])) {
      double sg = x == &s[0] ? 1.0 : -1.0;
      *dA = sg * M_PI * *x / 2.0;
      *dI = sg * M_PI * *x * *x * *x / 16.0;
      return 1;
    }
    return 0;
  case LW_SECTION_GENERIC:
    if (x == &b->area)
      *dA = 1.0;
    else if (x == &b->inertia)
      *dI = 1.0;
    else
      return 0;
    return 1;
  default:
    return 0;
  }
}

void lw_desc_beams_free(lw_desc *d)
{
  for (int i = 0; i < d->nbeams; i++)
    free(d->beams[i].name);
  free(d->beams);
  d->beams = NULL;
  d->nbeams = 0;
}

void lw_desc_beams_copy(lw_desc *dst, const lw_desc *src)
{
  dst->nbeams = src->nbeams;
  dst->beams = NULL;
  if (!src->nbeams)
    return;
  dst->beams = malloc(sizeof *dst->beams * (size_t)src->nbeams);
  if (!dst->beams)
    abort();
  memcpy(dst->beams, src->beams, sizeof *dst->beams * (size_t)src->nbeams);
  for (int i = 0; i < src->nbeams; i++)
    dst->beams[i].name = src->beams[i].name ? strdup(src->beams[i].name) : NULL;
}

/* component k (< n) of v from the rest of a path, "K" alone */
static double *beam_comp(double *v, int n, const char *rest)
{
  char *end;
  long k = strtol(rest, &end, 10);
  if (*end || end == rest || k < 0 || k >= n)
    return NULL;
  return &v[k];
}

/* beams/<name>/young | density | damping | area | inertia | size/K |
 * start/K | end/K (p: after the name) */
double *lw_beam_field(lw_desc *d, const char *name, const char *p)
{
  lw_beam_desc *b = NULL;
  for (int i = 0; i < d->nbeams && !b; i++)
    if (d->beams[i].name && !strcmp(d->beams[i].name, name))
      b = &d->beams[i];
  if (!b)
    return NULL;
  int generic = b->section == LW_SECTION_GENERIC;
  int nsize = b->section == LW_SECTION_RECTANGLE || b->section == LW_SECTION_TUBE ? 2 : 1;
  if (!strcmp(p, "young"))
    return &b->young;
  if (!strcmp(p, "density"))
    return &b->density;
  if (!strcmp(p, "damping"))
    return &b->damping;
  if (!strcmp(p, "area"))
    return generic ? &b->area : NULL;
  if (!strcmp(p, "inertia"))
    return generic ? &b->inertia : NULL;
  if (!strncmp(p, "size/", 5))
    return generic ? NULL : beam_comp(b->size, nsize, p + 5);
  if (!strncmp(p, "start/", 6))
    return beam_comp(b->start, d->planar ? 2 : 3, p + 6);
  if (!strncmp(p, "end/", 4))
    return beam_comp(b->end, d->planar ? 2 : 3, p + 4);
  return NULL;
}
