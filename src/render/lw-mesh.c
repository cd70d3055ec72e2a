/* lw-mesh.c: unit meshes for the renderer. */
#include "lw-mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TAU 6.28318530717958647692

/* Resolutions kept modest: llvmpipe's cost is dominated by triangle setup
 * for a scene like this, not by pixels. */
enum { CYL_SEG = 24, SPH_LON = 24, SPH_LAT = 12, COIL_AROUND = 6, COIL_ALONG = LW_COIL_MAX_TURNS * 14 };

typedef struct {
  lw_mesh_set *s;
  int cap_v, cap_i;
  int ok;
} builder;

static int reserve(builder *b, int nv, int ni)
{
  lw_mesh_set *s = b->s;
  if (s->nvertices + nv > b->cap_v) {
    int cap = b->cap_v * 2 + nv + 64;
    float *v = realloc(s->vertices, sizeof(float) * 6 * (size_t)cap);
    if (!v)
      return b->ok = 0;
    s->vertices = v;
    b->cap_v = cap;
  }
  if (s->nindices + ni > b->cap_i) {
    int cap = b->cap_i * 2 + ni + 64;
    unsigned *i = realloc(s->indices, sizeof(unsigned) * (size_t)cap);
    if (!i)
      return b->ok = 0;
    s->indices = i;
    b->cap_i = cap;
  }
  return 1;
}

static int vert(builder *b, double x, double y, double z, double nx, double ny, double nz)
{
  if (!reserve(b, 1, 0))
    return 0;
  float *v = b->s->vertices + 6 * (size_t)b->s->nvertices;
  v[0] = (float)x, v[1] = (float)y, v[2] = (float)z;
  v[3] = (float)nx, v[4] = (float)ny, v[5] = (float)nz;
  return b->s->nvertices++;
}

static void tri(builder *b, int i0, int i1, int i2)
{
  if (!reserve(b, 0, 3))
    return;
  unsigned *t = b->s->indices + b->s->nindices;
  t[0] = (unsigned)i0, t[1] = (unsigned)i1, t[2] = (unsigned)i2;
  b->s->nindices += 3;
}

static void quad(builder *b, int i0, int i1, int i2, int i3)
{
  tri(b, i0, i1, i2);
  tri(b, i0, i2, i3);
}

static void cube(builder *b)
{
  for (int axis = 0; axis < 3; axis++)
    for (int sign = -1; sign <= 1; sign += 2) {
      /* face normal n = sign * e_axis; (u, v) span the face with u x v = n */
      int a = (axis + 1) % 3, c = (axis + 2) % 3;
      double n[3] = {0, 0, 0};
      n[axis] = sign;
      int base = b->s->nvertices;
      static const int uv[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
      for (int k = 0; k < 4; k++) {
        double p[3];
        p[axis] = sign;
        p[a] = uv[k][0];
        p[c] = uv[k][1] * sign;
        vert(b, p[0], p[1], p[2], n[0], n[1], n[2]);
      }
      quad(b, base, base + 1, base + 2, base + 3);
    }
}

static void disc(builder *b, double z, double nz, double radius_unused)
{
  (void)radius_unused;
  int centre = vert(b, 0, 0, z, 0, 0, nz);
  int base = b->s->nvertices;
  for (int k = 0; k <= CYL_SEG; k++) {
    double a = TAU * k / CYL_SEG;
    vert(b, cos(a), sin(a), z, 0, 0, nz);
  }
  for (int k = 0; k < CYL_SEG; k++) {
    if (nz > 0)
      tri(b, centre, base + k, base + k + 1);
    else
      tri(b, centre, base + k + 1, base + k);
  }
}

static void cylinder(builder *b)
{
  int base = b->s->nvertices;
  for (int k = 0; k <= CYL_SEG; k++) {
    double a = TAU * k / CYL_SEG, c = cos(a), s = sin(a);
    vert(b, c, s, 0, c, s, 0);
    vert(b, c, s, 1, c, s, 0);
  }
  for (int k = 0; k < CYL_SEG; k++) {
    int i = base + 2 * k;
    quad(b, i, i + 2, i + 3, i + 1);
  }
  disc(b, 0, -1, 1);
  disc(b, 1, 1, 1);
}

static void sphere(builder *b)
{
  int base = b->s->nvertices;
  for (int j = 0; j <= SPH_LAT; j++) {
    double th = TAU * 0.5 * j / SPH_LAT, z = cos(th), r = sin(th);
    for (int k = 0; k <= SPH_LON; k++) {
      double a = TAU * k / SPH_LON, x = r * cos(a), y = r * sin(a);
      vert(b, x, y, z, x, y, z);
    }
  }
  for (int j = 0; j < SPH_LAT; j++)
    for (int k = 0; k < SPH_LON; k++) {
      int i = base + j * (SPH_LON + 1) + k, n = i + SPH_LON + 1;
      quad(b, i, n, n + 1, i + 1);
    }
}

static void cone(builder *b)
{
  /* slope 1:1, so the side normal is (cos, sin, 1) / sqrt 2 */
  int base = b->s->nvertices;
  double h = sqrt(0.5);
  for (int k = 0; k <= CYL_SEG; k++) {
    double a = TAU * k / CYL_SEG, am = TAU * (k + 0.5) / CYL_SEG;
    vert(b, cos(a), sin(a), 0, h * cos(a), h * sin(a), h);
    vert(b, 0, 0, 1, h * cos(am), h * sin(am), h);
  }
  for (int k = 0; k < CYL_SEG; k++) {
    int i = base + 2 * k;
    tri(b, i, i + 2, i + 1);
  }
  disc(b, 0, -1, 1);
}

static void coil(builder *b)
{
  int base = b->s->nvertices;
  for (int j = 0; j <= COIL_ALONG; j++)
    for (int k = 0; k <= COIL_AROUND; k++)
      vert(b, (double)j / COIL_ALONG, TAU * k / COIL_AROUND, 0, 0, 0, 1);
  for (int j = 0; j < COIL_ALONG; j++)
    for (int k = 0; k < COIL_AROUND; k++) {
      int i = base + j * (COIL_AROUND + 1) + k, n = i + COIL_AROUND + 1;
      quad(b, i, i + 1, n + 1, n); /* counter-clockwise seen from outside the tube */
    }
}

static void screen(builder *b)
{
  int i0 = vert(b, -1, -1, 0, 0, 0, 1);
  int i1 = vert(b, 3, -1, 0, 0, 0, 1);
  int i2 = vert(b, -1, 3, 0, 0, 0, 1);
  tri(b, i0, i1, i2);
}

int lw_mesh_set_build(lw_mesh_set *s)
{
  memset(s, 0, sizeof *s);
  builder b = {s, 0, 0, 1};
  void (*const make[LW_MESH_N])(builder *) = {cube, cylinder, sphere, cone, coil, screen};
  for (int m = 0; m < LW_MESH_N; m++) {
    s->first[m] = s->nindices;
    make[m](&b);
    s->count[m] = s->nindices - s->first[m];
  }
  if (!b.ok)
    lw_mesh_set_clear(s);
  return b.ok;
}

void lw_mesh_set_clear(lw_mesh_set *s)
{
  free(s->vertices);
  free(s->indices);
  memset(s, 0, sizeof *s);
}
