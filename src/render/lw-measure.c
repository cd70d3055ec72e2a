/* lw-measure.c: body-fixed measures and the perturbation spring (see lw-measure.h). */
#include "lw-measure.h"

#include <math.h>
#include <string.h>

/* where a body's coordinates start in q: planar (r0x, r0y, ux, uy), spatial
 * (r0, u, v, w), a point mass its position alone */
static size_t body_q0(const lw_model *m, int b) { return (size_t)lw_model_body_coords(m, b, NULL); }

static int body_is_point(const lw_model *m, int b)
{
  int n;
  lw_model_body_coords(m, b, &n);
  return n <= 3;
}

/* y = r + R p for body b's coordinates qb (r: with_origin; a point mass: r) */
static void body_map(const lw_model *m, int b, const double *qb, const double p[3], int with_origin, double y[3])
{
  if (body_is_point(m, b)) {
    for (int i = 0; i < 3; i++)
      y[i] = with_origin && (i < 2 || !lw_model_planar(m)) ? qb[i] : 0.0;
    return;
  }
  if (lw_model_planar(m)) {
    y[0] = (with_origin ? qb[0] : 0.0) + p[0] * qb[2] - p[1] * qb[3];
    y[1] = (with_origin ? qb[1] : 0.0) + p[0] * qb[3] + p[1] * qb[2];
    y[2] = 0.0;
    return;
  }
  for (int i = 0; i < 3; i++)
    y[i] = (with_origin ? qb[i] : 0.0) + p[0] * qb[3 + i] + p[1] * qb[6 + i] + p[2] * qb[9 + i];
}

void lw_body_point_position(const lw_model *m, const double *q, const LwBodyPoint *bp, double x[3])
{
  if (bp->body < 0) {
    memcpy(x, bp->p, sizeof bp->p);
    return;
  }
  body_map(m, bp->body, q + body_q0(m, bp->body), bp->p, 1, x);
}

/* the point is linear in the body's coordinates: its velocity is the same map of qd */
void lw_body_point_velocity(const lw_model *m, const double *qd, const LwBodyPoint *bp, double v[3])
{
  if (bp->body < 0) {
    v[0] = v[1] = v[2] = 0.0;
    return;
  }
  body_map(m, bp->body, qd + body_q0(m, bp->body), bp->p, 1, v);
}

void lw_body_point_from_global(const lw_model *m, const double *q, int b, const double x[3], LwBodyPoint *bp)
{
  bp->body = b;
  if (b < 0) {
    memcpy(bp->p, x, sizeof bp->p);
    return;
  }
  const double *qb = q + body_q0(m, b);
  if (body_is_point(m, b)) {
    memset(bp->p, 0, sizeof bp->p);
    return;
  }
  if (lw_model_planar(m)) {
    double d0 = x[0] - qb[0], d1 = x[1] - qb[1];
    bp->p[0] = qb[2] * d0 + qb[3] * d1;
    bp->p[1] = -qb[3] * d0 + qb[2] * d1;
    bp->p[2] = 0.0;
    return;
  }
  double d[3] = {x[0] - qb[0], x[1] - qb[1], x[2] - qb[2]};
  for (int k = 0; k < 3; k++)
    bp->p[k] = qb[3 * (k + 1)] * d[0] + qb[3 * (k + 1) + 1] * d[1] + qb[3 * (k + 1) + 2] * d[2];
}

void lw_measure_distance(LwMeasure *ms, const LwBodyPoint *p1, const LwBodyPoint *p2)
{
  memset(ms, 0, sizeof *ms);
  ms->kind = LW_MEASURE_DISTANCE;
  ms->a[0] = *p1;
  ms->a[1] = *p2;
}

static void axis_points(int b, LwBodyPoint bp[2])
{
  memset(bp, 0, 2 * sizeof *bp);
  bp[0].body = bp[1].body = b;
  bp[1].p[0] = 1.0;
}

void lw_measure_axes_angle(LwMeasure *ms, int b1, int b2)
{
  memset(ms, 0, sizeof *ms);
  ms->kind = LW_MEASURE_ANGLE;
  axis_points(b1, ms->a);
  axis_points(b2, ms->b);
}

void lw_measure_bars_angle(LwMeasure *ms, const LwBodyPoint *p1, const LwBodyPoint *p2,
                           const LwBodyPoint *p3, const LwBodyPoint *p4)
{
  memset(ms, 0, sizeof *ms);
  ms->kind = LW_MEASURE_ANGLE;
  ms->a[0] = *p1;
  ms->a[1] = *p2;
  ms->b[0] = *p3;
  ms->b[1] = *p4;
}

void lw_body_point_at_pose(const double *poses, const LwBodyPoint *bp, double x[3])
{
  if (bp->body < 0) {
    memcpy(x, bp->p, sizeof bp->p);
    return;
  }
  const double *o = poses + 12 * (size_t)bp->body, *R = o + 3;
  for (int i = 0; i < 3; i++)
    x[i] = o[i] + R[3 * i] * bp->p[0] + R[3 * i + 1] * bp->p[1] + R[3 * i + 2] * bp->p[2];
}

/* the value from the measure's points in global axes (x[0..1]: a, x[2..3]: b) */
static double value_of_points(int planar, LwMeasureKind kind, double x[4][3])
{
  double e1[3], e2[3];
  for (int i = 0; i < 3; i++) {
    e1[i] = x[1][i] - x[0][i];
    e2[i] = x[3][i] - x[2][i];
  }
  if (kind == LW_MEASURE_DISTANCE)
    return sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
  double dot = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
  double n1 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
  double n2 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
  if (n1 == 0.0 || n2 == 0.0)
    return NAN;
  if (planar)
    return atan2(c[2], dot);
  return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), dot);
}

double lw_measure_value(const lw_model *m, const double *q, const LwMeasure *ms)
{
  double x[4][3];
  const LwBodyPoint *bp[4] = {&ms->a[0], &ms->a[1], &ms->b[0], &ms->b[1]};
  for (int k = 0; k < 4; k++)
    lw_body_point_position(m, q, bp[k], x[k]);
  return value_of_points(lw_model_planar(m), ms->kind, x);
}

double lw_measure_value_at_pose(int planar, const double *poses, const LwMeasure *ms)
{
  double x[4][3];
  const LwBodyPoint *bp[4] = {&ms->a[0], &ms->a[1], &ms->b[0], &ms->b[1]};
  for (int k = 0; k < 4; k++)
    lw_body_point_at_pose(poses, bp[k], x[k]);
  return value_of_points(planar, ms->kind, x);
}

int lw_perturb_spring_force(double mass, const double x[3], const double v[3], const double target[3],
                            double F[3])
{
  double w = 2.0 * M_PI * LW_PERTURB_FREQ_HZ;
  double k = mass * w * w, c = 2.0 * mass * w, fmax = mass * LW_PERTURB_MAX_ACCEL;
  double n = 0;
  for (int i = 0; i < 3; i++) {
    F[i] = k * (target[i] - x[i]) - c * v[i];
    n += F[i] * F[i];
  }
  n = sqrt(n);
  if (n <= fmax)
    return 0;
  for (int i = 0; i < 3; i++)
    F[i] *= fmax / n;
  return 1;
}
