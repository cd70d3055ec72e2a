/* lw_import_util.h: rigid transforms and inertia for the importers
 * (lw_urdf.c, lw_mjcf.c); private to src/io. */
#pragma once

#include <math.h>
#include <string.h>

typedef struct {
  double R[9]; /* row-major rotation */
  double p[3];
} xform;

static inline void xform_identity(xform *t)
{
  memset(t, 0, sizeof *t);
  t->R[0] = t->R[4] = t->R[8] = 1;
}

/* URDF's fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll) */
static inline void rpy_matrix(const double rpy[3], double R[9])
{
  double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
  double cy = cos(rpy[2]), sy = sin(rpy[2]);
  double M[9] = {cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
                 sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
                 -sp,     cp * sr,                cp * cr};
  memcpy(R, M, sizeof M);
}

static inline void mat_mul(const double A[9], const double B[9], double C[9])
{
  double T[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      T[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
  memcpy(C, T, sizeof T);
}

static inline void mat_vec(const double A[9], const double x[3], double y[3])
{
  double t[3];
  for (int i = 0; i < 3; i++)
    t[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
  memcpy(y, t, sizeof t);
}

/* c = a * b (b expressed in a's frame) */
static inline void xform_compose(const xform *a, const xform *b, xform *c)
{
  xform t;
  mat_mul(a->R, b->R, t.R);
  mat_vec(a->R, b->p, t.p);
  for (int i = 0; i < 3; i++)
    t.p[i] += a->p[i];
  *c = t;
}

/* the pose of b in a's frame: a^-1 b */
static inline void xform_relative(const xform *a, const xform *b, xform *c)
{
  double Rt[9] = {a->R[0], a->R[3], a->R[6], a->R[1], a->R[4], a->R[7], a->R[2], a->R[5], a->R[8]};
  double d[3] = {b->p[0] - a->p[0], b->p[1] - a->p[1], b->p[2] - a->p[2]};
  xform t;
  mat_mul(Rt, b->R, t.R);
  mat_vec(Rt, d, t.p);
  *c = t;
}

/* unit quaternion (w x y z) of a rotation matrix */
static inline void quat_of(const double R[9], double q[4])
{
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = 2 * sqrt(tr + 1);
    q[0] = s / 4, q[1] = (R[7] - R[5]) / s, q[2] = (R[2] - R[6]) / s, q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s, q[1] = s / 4, q[2] = (R[1] + R[3]) / s, q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s, q[1] = (R[1] + R[3]) / s, q[2] = s / 4, q[3] = (R[5] + R[7]) / s;
  } else {
    double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s, q[1] = (R[2] + R[6]) / s, q[2] = (R[5] + R[7]) / s, q[3] = s / 4;
  }
}

/* the eigenvalues of a symmetric 3 x 3 matrix, ascending (the
 * trigonometric solution of the characteristic cubic) */
static inline void sym_eigenvalues(const double A[9], double e[3])
{
  double p1 = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
  double q = (A[0] + A[4] + A[8]) / 3;
  double p2 = (A[0] - q) * (A[0] - q) + (A[4] - q) * (A[4] - q) + (A[8] - q) * (A[8] - q) + 2 * p1;
  double p = sqrt(p2 / 6);
  if (p == 0) {
    e[0] = e[1] = e[2] = q;
    return;
  }
  double B[9];
  for (int i = 0; i < 9; i++)
    B[i] = (A[i] - (i % 4 == 0 ? q : 0)) / p;
  double r = (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
              B[2] * (B[3] * B[7] - B[4] * B[6])) / 2;
  double phi = r <= -1 ? M_PI / 3 : r >= 1 ? 0 : acos(r) / 3;
  e[2] = q + 2 * p * cos(phi);
  e[0] = q + 2 * p * cos(phi + 2 * M_PI / 3);
  e[1] = 3 * q - e[0] - e[2];
}

/* the inertia tensor I (about the centre of mass c, in the axes of a
 * frame at relative pose rel inside the body frame) of mass m added to the
 * body's tensor J about the body's centre of mass cb: turned into body axes
 * and moved by the parallel-axis theorem */
static inline void inertia_add(const double rel_R[9], const double c_body[3], double m, const double I[9],
                               const double cb[3], double J[9])
{
  double Rt[9] = {rel_R[0], rel_R[3], rel_R[6], rel_R[1], rel_R[4], rel_R[7], rel_R[2], rel_R[5], rel_R[8]};
  double T[9], Ib[9];
  mat_mul(rel_R, I, T);
  mat_mul(T, Rt, Ib);
  double d[3] = {c_body[0] - cb[0], c_body[1] - cb[1], c_body[2] - cb[2]};
  double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      J[3 * i + j] += Ib[3 * i + j] + m * ((i == j ? dd : 0) - d[i] * d[j]);
}

/* is R a permutation of the axes (with signs)?  then perm[i] is the axis
 * of the visual frame along body axis i */
static inline int axis_permutation(const double R[9], int perm[3])
{
  for (int i = 0; i < 3; i++) {
    perm[i] = -1;
    for (int j = 0; j < 3; j++)
      if (fabs(fabs(R[3 * i + j]) - 1) < 1e-9)
        perm[i] = j;
    if (perm[i] < 0)
      return 0;
  }
  return 1;
}

