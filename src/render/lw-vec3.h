/* lw-vec3.h: the few 3-vector operations the renderer and camera share. */
#ifndef LW_VEC3_H
#define LW_VEC3_H

#include <math.h>

static inline double lw_dot3(const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void lw_cross3(const double a[3], const double b[3], double c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double lw_norm3(const double a[3])
{
  return sqrt(lw_dot3(a, a));
}

/* scales a to unit length (a zero vector stays zero); returns the old length */
static inline double lw_normalize3(double a[3])
{
  double n = lw_norm3(a);
  if (n > 0)
    for (int i = 0; i < 3; i++)
      a[i] /= n;
  return n;
}

#endif
