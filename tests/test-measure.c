/* Body-fixed measures (src/render/lw-measure.c) at known poses and while a
 * mechanism moves; the core's perturbation force; the runner's perturbation
 * spring on the pendulum. */
#include "lw-test.h"

#include "lw-measure.h"
#include "lw-sim-runner.h"

#include <math.h>
#include <string.h>

static LwBodyPoint bpt(int body, double x, double y, double z)
{
  LwBodyPoint p = {body, {x, y, z}};
  return p;
}

static double dist3(const double *a, const double *b)
{
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* a body point by hand from the body's frame: origin + R p */
static void point_by_pose(const lw_model *m, const lw_data *d, const LwBodyPoint *bp, double x[3])
{
  double o[3], R[9];
  lw_body_pose(m, d, bp->body, o, R);
  for (int i = 0; i < 3; i++)
    x[i] = o[i] + R[3 * i] * bp->p[0] + R[3 * i + 1] * bp->p[1] + R[3 * i + 2] * bp->p[2];
}

/* four-bar over a second of motion: the crank end to the rocker end is the
 * coupler (2 m, held by joints B and C) at every step; the crank end to the
 * rocker's pivot changes and matches the body frames by hand; the angle
 * between the crank and the coupler matches atan2 of their directions */
static void test_four_bar_running(void)
{
  lw_desc *ds = lwt_read("four-bar.json");
  lw_model *m = lwt_compile(ds);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  LwBodyPoint crank_end = bpt(0, 0.5, 0, 0), rocker_end = bpt(2, 1.5, 0, 0), rocker_pivot = bpt(2, 0, 0, 0);
  LwBodyPoint coupler_start = bpt(1, 0, 0, 0), coupler_end = bpt(1, 2, 0, 0), crank_start = bpt(0, 0, 0, 0);
  LwMeasure coupler, diag, ang, axes;
  lw_measure_distance(&coupler, &crank_end, &rocker_end);
  lw_measure_distance(&diag, &crank_end, &rocker_pivot);
  lw_measure_bars_angle(&ang, &crank_start, &crank_end, &coupler_start, &coupler_end);
  lw_measure_axes_angle(&axes, 0, 1);
  double dmin = INFINITY, dmax = -INFINITY;
  for (int k = 0; k < 1000; k++) {
    g_assert_cmpint(lw_step(m, d, NULL, &err), ==, LW_OK);
    const double *q = lw_data_q(d);
    g_assert_cmpfloat_with_epsilon(lw_measure_value(m, q, &coupler), 2.0, 1e-8);
    double a[3], b[3], x[3];
    point_by_pose(m, d, &crank_end, a);
    point_by_pose(m, d, &rocker_pivot, b);
    lw_body_point_position(m, q, &crank_end, x);
    g_assert_cmpfloat_with_epsilon(dist3(a, x), 0.0, 1e-14);
    double v = lw_measure_value(m, q, &diag);
    g_assert_cmpfloat_with_epsilon(v, dist3(a, b), 1e-14);
    dmin = fmin(dmin, v);
    dmax = fmax(dmax, v);
    /* angle from the crank's to the coupler's direction, by hand */
    double o0[3], R0[9], o1[3], R1[9];
    lw_body_pose(m, d, 0, o0, R0);
    lw_body_pose(m, d, 1, o1, R1);
    double t0 = atan2(R0[3], R0[0]), t1 = atan2(R1[3], R1[0]);
    double want = remainder(t1 - t0, 2 * M_PI);
    g_assert_cmpfloat_with_epsilon(lw_measure_value(m, q, &ang), want, 1e-12);
    g_assert_cmpfloat_with_epsilon(lw_measure_value(m, q, &axes), want, 1e-12);
  }
  g_assert_cmpfloat(dmax - dmin, >, 0.05); /* the mechanism moved */
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(ds);
}

/* five-bar at its assembled pose: the angle between bars A1 and B12 is the
 * difference of their assembly angles (-0.588 - (-2.356) = 1.768 rad) */
static void test_five_bar_angle(void)
{
  lw_desc *ds = lwt_read("five-bar.json");
  lw_model *m = lwt_compile(ds);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  LwMeasure ms;
  lw_measure_axes_angle(&ms, 0, 1);
  double want = atan2(-1.0, 1.5) - atan2(-1.0, -1.0); /* directions (1.5, -1) and (-1, -1) */
  g_assert_cmpfloat_with_epsilon(lw_measure_value(m, lw_data_q(d), &ms), want, 1e-9);
  /* against the global x axis: the bar's own angle */
  lw_measure_axes_angle(&ms, -1, 0);
  g_assert_cmpfloat_with_epsilon(lw_measure_value(m, lw_data_q(d), &ms), -3 * M_PI / 4, 1e-9);
  /* ground to B12's end: joint 2 at (0.5, -2) */
  LwBodyPoint g0 = bpt(-1, 0, 0, 0), e = bpt(1, 1.8027756377319946, 0, 0);
  lw_measure_distance(&ms, &g0, &e);
  g_assert_cmpfloat_with_epsilon(lw_measure_value(m, lw_data_q(d), &ms), sqrt(0.25 + 4.0), 1e-9);
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(ds);
}

/* a global point taken onto a body and back, planar and spatial */
static void test_point_round_trip(void)
{
  for (int spatial = 0; spatial < 2; spatial++) {
    lw_desc *ds = lw_desc_chain(3, spatial);
    lw_model *m = lwt_compile(ds);
    lw_data *d = lw_data_new(m);
    lw_error err;
    g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
    for (int k = 0; k < 200; k++)
      g_assert_cmpint(lw_step(m, d, NULL, &err), ==, LW_OK);
    double x[3] = {0.3, -0.7, spatial ? 0.2 : 0.0}, y[3];
    LwBodyPoint bp;
    lw_body_point_from_global(m, lw_data_q(d), 2, x, &bp);
    lw_body_point_position(m, lw_data_q(d), &bp, y);
    g_assert_cmpfloat_with_epsilon(dist3(x, y), 0.0, 1e-9);
    point_by_pose(m, d, &bp, y);
    g_assert_cmpfloat_with_epsilon(dist3(x, y), 0.0, 1e-9);
    lw_data_free(d);
    lw_model_free(m);
    lw_desc_free(ds);
  }
}

/* the core's point force: its generalized force is J^T F with J the
 * point's derivative in q (finite differences), planar and spatial */
static void test_core_point_force(void)
{
  for (int spatial = 0; spatial < 2; spatial++) {
    lw_desc *ds = lw_desc_chain(2, spatial);
    lw_model *m = lwt_compile(ds);
    lw_data *d = lw_data_new(m);
    lw_error err;
    g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
    for (int k = 0; k < 100; k++)
      g_assert_cmpint(lw_step(m, d, NULL, &err), ==, LW_OK);
    int nq = lw_model_nq(m);
    double *q = g_memdup2(lw_data_q(d), sizeof(double) * nq), *qd = g_memdup2(lw_data_qd(d), sizeof(double) * nq);
    double *Q0 = g_new(double, nq), *Q1 = g_new(double, nq);
    double t = lw_data_time(d);
    lw_eval_dense(m, d, q, qd, t, Q0, NULL, NULL, NULL, NULL);
    LwBodyPoint bp = bpt(1, 0.4, -0.3, spatial ? 0.25 : 0.0);
    double F[3] = {1.5, -2.0, spatial ? 0.7 : 0.0};
    lw_data_set_perturbation(d, 1, bp.p, F);
    lw_eval_dense(m, d, q, qd, t, Q1, NULL, NULL, NULL, NULL);
    for (int i = 0; i < nq; i++) {
      double save = q[i], xp[3], xm[3];
      q[i] = save + 1e-6;
      lw_body_point_position(m, q, &bp, xp);
      q[i] = save - 1e-6;
      lw_body_point_position(m, q, &bp, xm);
      q[i] = save;
      double want = 0;
      for (int j = 0; j < 3; j++)
        want += F[j] * (xp[j] - xm[j]) / 2e-6;
      g_assert_cmpfloat_with_epsilon(Q1[i] - Q0[i], want, 1e-8);
    }
    /* removed: the generalized forces are those without it, bit for bit */
    lw_data_set_perturbation(d, -1, NULL, NULL);
    lw_eval_dense(m, d, q, qd, t, Q1, NULL, NULL, NULL, NULL);
    g_assert_cmpmem(Q0, sizeof(double) * nq, Q1, sizeof(double) * nq);
    g_free(q), g_free(qd), g_free(Q0), g_free(Q1);
    lw_data_free(d);
    lw_model_free(m);
    lw_desc_free(ds);
  }
}

/* F = k (target - x) - c v with k = m w^2, c = 2 m w; clamped at m * max accel */
static void test_spring_force(void)
{
  double w = 2 * M_PI * LW_PERTURB_FREQ_HZ, mass = 2.0;
  double x[3] = {1, 2, 0}, v[3] = {0.1, -0.2, 0}, tg[3] = {1.2, 2.1, 0}, F[3];
  g_assert_cmpint(lw_perturb_spring_force(mass, x, v, tg, F), ==, 0);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon(F[i], mass * w * w * (tg[i] - x[i]) - 2 * mass * w * v[i], 1e-12);
  double far[3] = {100, 2, 0};
  g_assert_cmpint(lw_perturb_spring_force(mass, x, v, far, F), ==, 1);
  g_assert_cmpfloat_with_epsilon(sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]), mass * LW_PERTURB_MAX_ACCEL, 1e-9);
  g_assert_cmpfloat(F[0], >, 0);
}

static LwSimRunner *pendulum_runner(double t_end)
{
  lw_desc *ds = lwt_read("pendulum.json");
  lw_model *m = lwt_compile(ds);
  lw_desc_free(ds);
  lw_error err;
  LwSimRunner *r = lw_sim_runner_new(m, &err);
  if (!r)
    g_error("%s", err.msg);
  lw_sim_runner_set_t_end(r, t_end);
  lw_sim_runner_set_real_time(r, FALSE, 1.0);
  return r;
}

static void run_to_end(LwSimRunner *r)
{
  lw_sim_runner_start(r);
  lw_sim_runner_wait(r);
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
}

static double *all_frames(LwSimRunner *r, guint *n)
{
  int nq = lw_model_nq(lw_sim_runner_get_model(r));
  *n = lw_sim_runner_get_n_frames(r);
  double *f = g_new(double, (gsize)*n * (nq + 1));
  for (guint k = 0; k < *n; k++)
    g_assert_true(lw_sim_runner_get_frame(r, k, &f[(gsize)k * (nq + 1)], &f[(gsize)k * (nq + 1) + 1], NULL));
  return f;
}

/* the pendulum released horizontally, its bob P1 at (-1, 0), pulled by the
 * spring toward a target 0.5 m above: the bob falls less than without it;
 * the force the runner reports is the spring's at the step's start; with
 * the perturbation cleared the run is the unperturbed one, bit for bit */
static void test_runner_perturbation(void)
{
  LwSimRunner *free_r = pendulum_runner(0.5);
  run_to_end(free_r);
  guint n0;
  double *f0 = all_frames(free_r, &n0);
  g_assert_cmpint(lw_sim_runner_get_perturbed_steps(free_r), ==, 0);

  /* set and then cleared before the run: nothing applied */
  LwSimRunner *r = pendulum_runner(0.5);
  double p[3] = {1, 0, 0}, target[3] = {-1, 0.5, 0};
  lw_sim_runner_set_perturbation(r, 0, p, target);
  lw_sim_runner_clear_perturbation(r);
  run_to_end(r);
  guint n1;
  double *f1 = all_frames(r, &n1);
  g_assert_cmpuint(n1, ==, n0);
  g_assert_cmpmem(f0, sizeof(double) * n0 * 5, f1, sizeof(double) * n1 * 5);
  g_assert_cmpint(lw_sim_runner_get_perturbed_steps(r), ==, 0);
  g_free(f1);
  g_object_unref(r);

  r = pendulum_runner(0.5);
  const lw_model *m = lw_sim_runner_get_model(r);
  lw_sim_runner_set_perturbation(r, 0, p, target);
  lw_sim_runner_step(r);
  lw_sim_runner_wait(r);
  /* one step: the force reported is the spring's at frame 0 (at rest, x = P1) */
  double F[3], Fw[3], x0[3] = {-1, 0, 0}, v0[3] = {0, 0, 0};
  g_assert_true(lw_sim_runner_get_perturbation_force(r, F));
  lw_perturb_spring_force(lw_model_body_mass(m, 0), x0, v0, target, Fw);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon(F[i], Fw[i], 1e-12);
  g_assert_cmpfloat(F[1], >, 0);
  /* a later step: the spring at the state of the frame before it */
  lw_sim_runner_step(r);
  lw_sim_runner_wait(r);
  guint nf = lw_sim_runner_get_n_frames(r);
  g_assert_cmpuint(nf, ==, 3);
  (void)nf;
  run_to_end(r);
  g_assert_true(lw_sim_runner_get_perturbed_steps(r) >= 499);
  guint n2;
  double *f2 = all_frames(r, &n2);
  g_assert_cmpuint(n2, ==, n0);
  /* P1 = r0 + R (1, 0): its height is q[3] (u_y) for the bob pivoted at the origin */
  LwBodyPoint P1 = bpt(0, 1, 0, 0);
  double xf[3], xp[3];
  lw_body_point_position(m, &f0[(gsize)(n0 - 1) * 5 + 1], &P1, xf);
  lw_body_point_position(m, &f2[(gsize)(n2 - 1) * 5 + 1], &P1, xp);
  g_assert_cmpfloat(xp[1], >, xf[1] + 0.1); /* held up */
  g_free(f0), g_free(f2);
  g_object_unref(r);
  g_object_unref(free_r);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/measure/four-bar-running", test_four_bar_running);
  g_test_add_func("/measure/five-bar-angle", test_five_bar_angle);
  g_test_add_func("/measure/point-round-trip", test_point_round_trip);
  g_test_add_func("/measure/core-point-force", test_core_point_force);
  g_test_add_func("/measure/spring-force", test_spring_force);
  g_test_add_func("/measure/runner-perturbation", test_runner_perturbation);
  return g_test_run();
}
