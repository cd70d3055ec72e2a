/* lw-measure.h: body-fixed measures (the distance between two points, the
 * angle between two directions) and the perturbation spring, evaluated at a
 * pose (the coordinates q of a frame).  Plain C over the core: no GTK.
 *
 * A point is a body and a point in the body's axes (body -1: the ground,
 * the point then in global axes), so that a measure follows the bodies as the
 * mechanism moves. */
#pragma once

#include "linkwright.h"

typedef struct {
  int body;     /* 0-based, -1: ground */
  double p[3];  /* body axes (ground: global) */
} LwBodyPoint;

typedef enum {
  LW_MEASURE_DISTANCE, /* |b - a| between two body points */
  LW_MEASURE_ANGLE,    /* between the directions b - a of two links */
} LwMeasureKind;

/* distance: a[0], a[1] the two points.  angle: each link's direction runs
 * from its point a[0] to a[1] (link 1) and b[0] to b[1] (link 2); a link's
 * x axis is (origin, origin + x). */
typedef struct {
  LwMeasureKind kind;
  LwBodyPoint a[2], b[2];
} LwMeasure;

/* global position of a body point at coordinates q */
void lw_body_point_position(const lw_model *m, const double *q, const LwBodyPoint *bp, double x[3]);
/* global velocity of a body point at coordinates q and rates qd */
void lw_body_point_velocity(const lw_model *m, const double *qd, const LwBodyPoint *bp, double v[3]);
/* the body point at global position x on body b (its local coordinates) */
void lw_body_point_from_global(const lw_model *m, const double *q, int b, const double x[3], LwBodyPoint *bp);

void lw_measure_distance(LwMeasure *ms, const LwBodyPoint *p1, const LwBodyPoint *p2);
/* the angle between the x axes of bodies b1 and b2 (-1: the global x axis) */
void lw_measure_axes_angle(LwMeasure *ms, int b1, int b2);
/* the angle between bar p1 -> p2 and bar p3 -> p4 */
void lw_measure_bars_angle(LwMeasure *ms, const LwBodyPoint *p1, const LwBodyPoint *p2,
                           const LwBodyPoint *p3, const LwBodyPoint *p4);
/* The value at coordinates q: distance in model units; angle in radians,
 * planar: signed from link 1 to link 2 about z, in (-pi, pi]; spatial: in
 * [0, pi].  NAN when a direction has zero length. */
double lw_measure_value(const lw_model *m, const double *q, const LwMeasure *ms);

/* The same from a view's render state: poses (nbodies x 12: origin, then
 * R row-major, as lw_render_state's body_pose). */
void lw_body_point_at_pose(const double *poses, const LwBodyPoint *bp, double x[3]);
double lw_measure_value_at_pose(int planar, const double *poses, const LwMeasure *ms);

/* The perturbation spring: force on a body point at x moving at v toward
 * target, F = k (target - x) - c v with k = mass omega^2, c = 2 mass omega
 * (critical damping of the mass on the spring), omega = 2 pi LW_PERTURB_FREQ_HZ,
 * and |F| clamped to mass LW_PERTURB_MAX_ACCEL.  Returns 1 when clamped. */
#define LW_PERTURB_FREQ_HZ 2.0
#define LW_PERTURB_MAX_ACCEL 200.0 /* m/s^2: the clamp, as an acceleration of the body's mass */
int lw_perturb_spring_force(double mass, const double x[3], const double v[3], const double target[3],
                            double F[3]);
