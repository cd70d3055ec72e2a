/* Kinematic drag: the core solve (lw_drag.c) and the editor's grab-and-drag
 * of a body in the 3-D view, plus the view's editing layer (picking after a
 * run, the grid, the drawing labels).  The window tests need a display (the
 * test command starts Xvfb); on X11 with XTest the X pointer itself is moved.
 *
 *  - core: a drag of the four-bar's crank end keeps the constraints to
 *    1e-10, its distance to the target is the least over a sweep of the
 *    crank angle, a target out of reach gives the nearest reachable point;
 *    timings of a solve on the four-bar and the five-bar are printed. */
#include "lw-test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "linkwright.h"
#include "lw_io.h"

static lw_desc *read_model(const char *name)
{
  char *path = g_build_filename(LW_MODELS_DIR, name, NULL);
  lw_error err = {0};
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(d);
  g_free(path);
  return d;
}

static int body_index(const lw_desc *d, const char *name)
{
  for (int b = 0; b < d->nbodies; b++)
    if (!strcmp(d->bodies[b].name, name))
      return b;
  g_assert_not_reached();
}

/* the crank angle (rad) of point "end" of the crank at the drag's pose */
static double crank_angle(const lw_drag *g, int crank)
{
  double p[3] = {0.5, 0, 0}, x[3];
  lw_drag_point(g, crank, p, x);
  return atan2(x[1], x[0]);
}

/* distance from the crank end to target at crank angle th, by assembly */
static double distance_at(const lw_desc *d0, double th, const double target[3])
{
  lw_desc *d = lw_desc_copy(d0);
  d->initial[0].value = th;
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  g_assert_nonnull(g);
  double p[3] = {0.5, 0, 0}, x[3];
  lw_drag_point(g, body_index(d, "crank"), p, x);
  lw_drag_free(g);
  lw_desc_free(d);
  return hypot(x[0] - target[0], x[1] - target[1]);
}

static void test_core_four_bar(void)
{
  lw_desc *d = read_model("four-bar.json");
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  g_assert_nonnull(g);
  int crank = body_index(d, "crank");
  const lw_model *m = lw_drag_model(g);
  lw_data *data = lw_data_new(m);
  double p[3] = {0.5, 0, 0};
  /* a target off the crank's circle: the point goes to the circle's nearest
   * point, the rest follows assembled */
  double target[3] = {0.1, -0.7, 0};
  lw_drag_info info;
  g_assert_cmpint(lw_drag_solve(g, crank, p, target, &info), ==, 0);
  lw_data_set_state(m, data, 0, lw_drag_q(g), NULL, NULL, NULL);
  g_assert_cmpfloat(lw_constraint_residual(m, data), <=, 1e-10);
  double want = atan2(-0.7, 0.1);
  g_assert_cmpfloat(fabs(crank_angle(g, crank) - want), <, 1e-8);
  /* least squares: no crank angle of a fine sweep is nearer */
  double best = INFINITY;
  for (int k = 0; k < 720; k++)
    best = fmin(best, distance_at(d, -M_PI + k * M_PI / 360, target));
  g_assert_cmpfloat(info.distance, <=, best + 1e-12);
  g_assert_cmpfloat(fabs(info.distance - (hypot(0.1, -0.7) - 0.5)), <, 1e-9);
  /* out of reach: the nearest reachable pose, not a failure */
  double far[3] = {30, 30, 0};
  g_assert_cmpint(lw_drag_solve(g, crank, p, far, &info), ==, 0);
  lw_data_set_state(m, data, 0, lw_drag_q(g), NULL, NULL, NULL);
  g_assert_cmpfloat(lw_constraint_residual(m, data), <=, 1e-10);
  g_assert_cmpfloat(fabs(crank_angle(g, crank) - M_PI / 4), <, 1e-8);
  g_assert_cmpfloat(fabs(info.distance - (30 * M_SQRT2 - 0.5)), <, 1e-9);
  /* stored: the initial value follows, and assembling gives the same pose */
  g_assert_cmpint(lw_drag_store(g, d), ==, 0);
  g_assert_cmpfloat(fabs(d->initial[0].value - M_PI / 4), <, 1e-9);
  lw_drag *g2 = lw_drag_new(d, &err);
  g_assert_nonnull(g2);
  for (int i = 0; i < lw_drag_nq(g); i++)
    g_assert_cmpfloat(fabs(lw_drag_q(g)[i] - lw_drag_q(g2)[i]), <, 1e-8);
  lw_drag_free(g2);
  lw_data_free(data);
  lw_drag_free(g);
  lw_desc_free(d);
}

/* bad arguments are refused, the pose unchanged */
static void test_core_bad_input(void)
{
  lw_desc *d = read_model("four-bar.json");
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  double q0[64];
  memcpy(q0, lw_drag_q(g), sizeof(double) * lw_drag_nq(g));
  double p[3] = {0.5, 0, 0}, t[3] = {NAN, 0, 0};
  g_assert_cmpint(lw_drag_solve(g, 0, p, t, NULL), ==, -1);
  g_assert_cmpint(lw_drag_solve(g, 99, p, p, NULL), ==, -1);
  g_assert_cmpint(memcmp(q0, lw_drag_q(g), sizeof(double) * lw_drag_nq(g)), ==, 0);
  lw_drag_free(g);
  lw_desc_free(d);
}

/* ms per solve while following a pointer: small steps along a path */
static double time_solves(const char *model, const char *body, const double p[3], double radius)
{
  lw_desc *d = read_model(model);
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  g_assert_nonnull(g);
  int b = body_index(d, body);
  double x0[3];
  lw_drag_point(g, b, p, x0);
  const int n = 200;
  gint64 t0 = g_get_monotonic_time();
  for (int k = 1; k <= n; k++) {
    double a = 2 * M_PI * k / n;
    double t[3] = {x0[0] + radius * (cos(a) - 1), x0[1] + radius * sin(a), 0};
    lw_drag_info info;
    g_assert_cmpint(lw_drag_solve(g, b, p, t, &info), ==, 0);
    g_assert_cmpfloat(info.residual, <=, 1e-10);
  }
  double ms = (g_get_monotonic_time() - t0) / 1000.0 / n;
  lw_drag_free(g);
  lw_desc_free(d);
  return ms;
}

static void test_core_timing(void)
{
  double p4[3] = {1.0, 0, 0};
  double ms4 = time_solves("four-bar.json", "coupler", p4, 0.3);
  lw_desc *d = read_model("five-bar.json");
  const char *b5 = d->bodies[0].name;
  double p5[3] = {d->bodies[0].points[d->bodies[0].npoints - 1].p[0],
                  d->bodies[0].points[d->bodies[0].npoints - 1].p[1], 0};
  char *name = g_strdup(b5);
  lw_desc_free(d);
  double ms5 = time_solves("five-bar.json", name, p5, 0.1);
  g_free(name);
  g_test_message("drag solve: four-bar %.3f ms, five-bar %.3f ms", ms4, ms5);
  printf("# drag solve: four-bar %.3f ms, five-bar %.3f ms\n", ms4, ms5);
  g_assert_cmpfloat(ms4, <, 10);
  g_assert_cmpfloat(ms5, <, 10);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/drag/core/four-bar", test_core_four_bar);
  g_test_add_func("/drag/core/bad-input", test_core_bad_input);
  g_test_add_func("/drag/core/timing", test_core_timing);
  return g_test_run();
}
