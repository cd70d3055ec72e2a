/* Body-fixed measures (src/render/lw-measure.c) at known poses and while a
 * mechanism moves; the core's perturbation force; the runner's perturbation
 * spring on the pendulum. */
#include "lw-test.h"
#include "lw-app-test.h"

#include "lw-measure.h"
#include "lw-sim-runner.h"

#include <adwaita.h>
#include <dlfcn.h>
#include <glib/gstdio.h>

#include "lw-application.h"
#include "lw-measure-actions.h"
#include "lw-palette.h"
#include "lw-view3d.h"
#include "lw-window.h"

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

/* the Measure tool's clicks on the five-bar seen from the front: two joints
 * make a distance (their true length), two links an angle, a point after a
 * link starts over, Escape drops a half-made one, a click on a dimension
 * selects it and Delete removes it */
static void test_tool_clicks(void)
{
  lw_desc *ds = lwt_read("five-bar.json");
  lw_model *m = lwt_compile(ds);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  double poses[4 * 12];
  for (int b = 0; b < 4; b++)
    lw_body_pose(m, d, b, poses + 12 * b, poses + 12 * b + 3);
  lw_render_state st = {0, 4, poses, 0, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, NULL};
  lw_camera cam;
  lw_camera_init(&cam);
  double lo[3] = {-1.5, -2.5, 0}, hi[3] = {2.5, 0.5, 0};
  lw_camera_fit(&cam, lo, hi, 1);
  int w = 800, h = 600;
  double j1[3] = {-1, -1, 0}, j3[3] = {2, -1, 0}, x1, y1, x3, y3;
  g_assert_true(lw_camera_project(&cam, w, h, j1, &x1, &y1));
  g_assert_true(lw_camera_project(&cam, w, h, j3, &x3, &y3));
  LwMeasureOverlay *mo = lw_measure_overlay_new();
  lw_measure_overlay_click(mo, ds, &st, &cam, w, h, x1 + 3, y1 - 2, -1);
  g_assert_true(lw_measure_overlay_cancel(mo)); /* Escape */
  g_assert_false(lw_measure_overlay_cancel(mo));
  lw_measure_overlay_click(mo, ds, &st, &cam, w, h, x1 + 3, y1 - 2, -1);
  lw_measure_overlay_click(mo, ds, &st, &cam, w, h, x3 - 2, y3 + 3, -1);
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 1);
  const LwMeasure *ms = lw_measure_overlay_get(mo, 0);
  g_assert_cmpint(ms->kind, ==, LW_MEASURE_DISTANCE);
  g_assert_cmpfloat_with_epsilon(lw_measure_value(m, lw_data_q(d), ms), 3.0, 1e-9);
  g_assert_cmpfloat_with_epsilon(lw_measure_value_at_pose(1, poses, ms), 3.0, 1e-9);
  /* two links, clicked away from their points: the angle of their x axes */
  lw_measure_overlay_click(mo, ds, &st, &cam, w, h, 5, 5, 0);
  lw_measure_overlay_click(mo, ds, &st, &cam, w, h, 5, 5, 1);
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 2);
  ms = lw_measure_overlay_get(mo, 1);
  g_assert_cmpint(ms->kind, ==, LW_MEASURE_ANGLE);
  g_assert_cmpfloat_with_epsilon(lw_measure_value(m, lw_data_q(d), ms), atan2(-1.0, 1.5) - atan2(-1.0, -1.0), 1e-9);
  /* a link then a point: starts over with the point */
  lw_measure_overlay_click(mo, ds, &st, &cam, w, h, 5, 5, 2);
  lw_measure_overlay_click(mo, ds, &st, &cam, w, h, x1, y1, -1);
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 2);
  g_assert_true(lw_measure_overlay_cancel(mo));
  /* select the distance at its middle, delete it */
  lw_measure_overlay_click(mo, ds, &st, &cam, w, h, 0.5 * (x1 + x3), 0.5 * (y1 + y3), -1);
  g_assert_true(lw_measure_overlay_delete_selected(mo));
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 1);
  g_assert_cmpint(lw_measure_overlay_get(mo, 0)->kind, ==, LW_MEASURE_ANGLE);
  g_assert_false(lw_measure_overlay_delete_selected(mo));
  lw_measure_overlay_clear(mo);
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 0);
  lw_measure_overlay_free(mo);
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(ds);
}

/* ---- through the window (needs a display) ------------------------------- */
static LwApplication *app;



static LwWindow *example_window(const char *name)
{
  LwWindow *w = lw_window_new(app);
  g_assert_true(lw_window_open_example(w, name));
  gtk_window_set_default_size(GTK_WINDOW(w), 1200, 800);
  lwt_present(w);
  lw_measure_actions_install(lw_window_get_view(w), G_ACTION_MAP(w));
  return w;
}

static void shot(LwWindow *w, const char *name)
{
  lwt_fresh_picture(w);
  lwt_settle(2);
  g_mkdir_with_parents(LW_MEASURE_SHOT_DIR, 0755);
  g_autofree char *file = g_strdup_printf("%s.png", name);
  g_autofree char *path = g_build_filename(LW_MEASURE_SHOT_DIR, file, NULL);
  g_autoptr(GError) error = NULL;
  if (lw_window_save_screenshot(w, path, &error))
    g_test_message("screenshot %s", path);
  else
    g_test_message("no screenshot %s: %s", path, error->message);
}

static gboolean no_measures(gpointer mo)
{
  return lw_measure_overlay_n_measures(mo) == 0;
}

static gboolean past_a_second(gpointer w)
{
  return lw_window_get_shown_time(LW_WINDOW(w)) > 1.0;
}

/* the runner's perturbation spring pulls up, or nothing pulls (the grab
 * released) */
static gboolean pulled_up(gpointer r)
{
  double F[3];
  return lw_sim_runner_get_perturbation_force(r, F) && F[1] > 0;
}

typedef struct {
  GtkWidget *view;
  LwSimRunner *r;
} grab_wait;

static gboolean grab_released(gpointer p)
{
  grab_wait *g = p;
  int body;
  double bp[3], target[3], F[3];
  return !lw_view3d_get_perturbation(LW_VIEW3D(g->view), &body, bp, target) &&
         !lw_sim_runner_get_perturbation_force(g->r, F);
}

/* the five-bar running in real time with a distance (A1's end to B3B's
 * start: joints 1 and 3) and an angle (A1 to B12) in the view; the values
 * the overlay draws are those of the frame on screen */
static void test_gui_five_bar(void)
{
  LwWindow *w = example_window("five-bar");
  LwView3d *view = LW_VIEW3D(lw_window_get_view(w));
  g_action_group_activate_action(G_ACTION_GROUP(w), "measure", NULL);
  g_assert_true(lw_view3d_get_measure_tool(view));
  LwMeasureOverlay *mo = lw_view3d_get_measures(view);
  LwBodyPoint j1 = bpt(0, 1.4142135623730951, 0, 0), j3 = bpt(3, 0, 0, 0);
  LwMeasure ms;
  lw_measure_distance(&ms, &j1, &j3);
  lw_measure_overlay_add(mo, &ms);
  lw_measure_axes_angle(&ms, 0, 1);
  lw_measure_overlay_add(mo, &ms);
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 2);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(TRUE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "run", NULL);
  lwt_await(past_a_second, w, LWT_WAIT);
  shot(w, "five-bar-measures-running");
  g_action_group_activate_action(G_ACTION_GROUP(w), "clear-measures", NULL);
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 0);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.2);
}

/* the pendulum running with the view's grab held on the bob (P1 pulled
 * 0.5 m up): the view's signal reaches the runner, the bob ends higher than
 * in the unperturbed run */
/* Ctrl+Shift+M in editing mode chooses the palette's Measure tool (the
 * editor takes the clicks there); off again, the palette goes back to
 * drawing links, and another tool chosen on the palette unticks it */
static void test_gui_edit_mode_shortcut(void)
{
  LwWindow *w = example_window("four-bar");
  LwPalette *pal = LW_PALETTE(lw_window_get_palette(w));
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_palette_revealed, w, LWT_WAIT);
  g_action_group_activate_action(G_ACTION_GROUP(w), "measure", NULL);
  g_assert_cmpstr(lw_palette_get_stroke_tool(pal), ==, "measure");
  g_action_group_activate_action(G_ACTION_GROUP(w), "measure", NULL);
  g_assert_cmpstr(lw_palette_get_stroke_tool(pal), ==, "link");
  g_action_group_activate_action(G_ACTION_GROUP(w), "measure", NULL);
  lw_palette_set_stroke_tool(pal, "link");
  GVariant *st = g_action_group_get_action_state(G_ACTION_GROUP(w), "measure");
  g_assert_false(g_variant_get_boolean(st));
  g_variant_unref(st);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.2);
}

/* measures follow their bodies by name through edits, and are dropped
 * when another model (without those bodies) is opened */
static void test_gui_measures_follow_model(void)
{
  LwWindow *w = example_window("four-bar");
  LwView3d *view = LW_VIEW3D(lw_window_get_view(w));
  LwMeasureOverlay *mo = lw_view3d_get_measures(view);
  LwBodyPoint a = bpt(0, 0.5, 0, 0), b = bpt(2, 1.5, 0, 0);
  LwMeasure ms;
  lw_measure_distance(&ms, &a, &b);
  lw_measure_overlay_add(mo, &ms);
  /* the same model again (an edit): kept, same bodies */
  lw_view3d_set_model(view, lw_window_get_desc(w));
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 1);
  g_assert_cmpint(lw_measure_overlay_get(mo, 0)->a[1].body, ==, 2);
  /* the first body removed: the rocker is body 1 now, the measure follows */
  lw_desc *d = lw_desc_copy(lw_window_get_desc(w));
  lw_body_desc first = d->bodies[0];
  memmove(d->bodies, d->bodies + 1, sizeof *d->bodies * (size_t)(d->nbodies - 1));
  d->bodies[d->nbodies - 1] = first; /* kept for freeing */
  g_free(d->bodies[d->nbodies - 1].name);
  d->bodies[d->nbodies - 1].name = g_strdup("elsewhere");
  lw_view3d_set_model(view, d);
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 0); /* the crank is gone */
  lw_desc_free(d);
  /* another model: nothing of the four-bar's stays */
  lw_measure_overlay_add(mo, &ms);
  lw_view3d_set_model(view, lw_window_get_desc(w));
  g_assert_true(lw_window_open_example(w, "pendulum"));
  lwt_await(no_measures, mo, LWT_WAIT);
  g_assert_cmpuint(lw_measure_overlay_n_measures(mo), ==, 0);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.2);
}

static void test_gui_perturbation(void)
{
  LwWindow *w = example_window("pendulum");
  LwView3d *view = LW_VIEW3D(lw_window_get_view(w));
  LwSimRunner *r = lw_window_get_runner(w);
  g_assert_nonnull(r);
  lw_sim_runner_set_t_end(r, 1.0);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(TRUE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "run", NULL);
  lwt_await(lwt_runner_running, w, LWT_WAIT);
  /* the grab as a Ctrl+press on P1 and a pull 0.5 m above it make it */
  LwMeasureOverlay *mo = lw_view3d_get_measures(view);
  lw_camera cam;
  lw_view3d_get_camera(view, &cam);
  int vw = gtk_widget_get_width(GTK_WIDGET(view)), vh = gtk_widget_get_height(GTK_WIDGET(view));
  double p0[3] = {-1, 0, 0}, p1[3] = {-1, 0.5, 0}, x0, y0, x1, y1;
  g_assert_true(lw_camera_project(&cam, vw, vh, p0, &x0, &y0));
  g_assert_true(lw_camera_project(&cam, vw, vh, p1, &x1, &y1));
  double pose[12] = {0, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0, 1}; /* the bob at frame 0 (angle pi) */
  lw_render_state st = {0, 1, pose, 0, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, NULL};
  lw_measure_overlay_grab(mo, 1, &st, &cam, vw, vh, 0, x0, y0);
  lw_measure_overlay_pull(mo, 1, &st, &cam, vw, vh, x1, y1);
  int body;
  double p[3], target[3];
  g_assert_true(lw_view3d_get_perturbation(view, &body, p, target));
  g_assert_cmpint(body, ==, 0);
  g_assert_cmpfloat_with_epsilon(p[0], 1.0, 0.02);
  g_assert_cmpfloat_with_epsilon(target[1], 0.5, 0.02);
  g_signal_emit_by_name(view, "perturbation-changed");
  shot(w, "pendulum-perturbation-spring");
  double F[3];
  g_assert_true(lw_sim_runner_get_perturbation_force(r, F));
  g_assert_cmpfloat(F[1], >, 0);
  lwt_await(lwt_runner_idle, w, 60);
  g_assert_cmpint(lw_sim_runner_get_perturbed_steps(r), >, 0);
  lw_measure_overlay_release(mo);
  g_signal_emit_by_name(view, "perturbation-changed");
  g_assert_false(lw_sim_runner_get_perturbation_force(r, F));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.2);
}

/* libX11 and libXtst opened at run time (as in test-edit): the pointer and
 * the Control key pressed through the X server */
typedef struct {
  void *x11, *xtst, *dpy;
  unsigned long root;
  void *(*open_display)(const char *);
  int (*flush)(void *);
  unsigned long (*default_root)(void *);
  int (*translate)(void *, unsigned long, unsigned long, int, int, int *, int *, unsigned long *);
  int (*fake_motion)(void *, int, int, int, unsigned long);
  int (*fake_button)(void *, unsigned int, int, unsigned long);
  int (*fake_key)(void *, unsigned int, int, unsigned long);
  unsigned char (*keycode)(void *, unsigned long);
  unsigned long (*surface_xid)(GdkSurface *);
} xinput;

static gboolean xinput_open(xinput *xi)
{
  memset(xi, 0, sizeof *xi);
  if (strcmp(G_OBJECT_TYPE_NAME(gdk_display_get_default()), "GdkX11Display"))
    return FALSE;
  xi->x11 = dlopen("libX11.so.6", RTLD_NOW);
  xi->xtst = dlopen("libXtst.so.6", RTLD_NOW);
  if (!xi->x11 || !xi->xtst)
    return FALSE;
  *(void **)&xi->open_display = dlsym(xi->x11, "XOpenDisplay");
  *(void **)&xi->flush = dlsym(xi->x11, "XFlush");
  *(void **)&xi->default_root = dlsym(xi->x11, "XDefaultRootWindow");
  *(void **)&xi->translate = dlsym(xi->x11, "XTranslateCoordinates");
  *(void **)&xi->keycode = dlsym(xi->x11, "XKeysymToKeycode");
  *(void **)&xi->fake_motion = dlsym(xi->xtst, "XTestFakeMotionEvent");
  *(void **)&xi->fake_button = dlsym(xi->xtst, "XTestFakeButtonEvent");
  *(void **)&xi->fake_key = dlsym(xi->xtst, "XTestFakeKeyEvent");
  *(void **)&xi->surface_xid = dlsym(RTLD_DEFAULT, "gdk_x11_surface_get_xid");
  if (!xi->open_display || !xi->flush || !xi->default_root || !xi->translate || !xi->keycode || !xi->fake_motion ||
      !xi->fake_button || !xi->fake_key || !xi->surface_xid)
    return FALSE;
  xi->dpy = xi->open_display(NULL);
  if (!xi->dpy)
    return FALSE;
  xi->root = xi->default_root(xi->dpy);
  return TRUE;
}

static void xi_move(xinput *xi, GtkWidget *w, double x, double y)
{
  GtkNative *nat = gtk_widget_get_native(w);
  graphene_point_t in = GRAPHENE_POINT_INIT((float)x, (float)y), out;
  g_assert_true(gtk_widget_compute_point(w, GTK_WIDGET(nat), &in, &out));
  double sx, sy;
  gtk_native_get_surface_transform(nat, &sx, &sy);
  unsigned long child;
  int rx, ry;
  g_assert_true(xi->translate(xi->dpy, xi->surface_xid(gtk_native_get_surface(nat)), xi->root,
                              (int)lround(out.x + sx), (int)lround(out.y + sy), &rx, &ry, &child));
  xi->fake_motion(xi->dpy, -1, rx, ry, 0);
  xi->flush(xi->dpy);
  lwt_spin(0.04);
}


/* the pendulum running slowly (0.1 x real time); Control held, the bob
 * pressed at P1 and dragged 0.5 m up: the view grabs it, the runner applies
 * the spring (upward); released, no force; the run ends with the bob higher
 * than the unperturbed run */
/* Ctrl held, the pendulum's tip (P1, shown now) grabbed with the real
 * pointer and pulled 0.5 m up in ten moves: the runner feels an upward
 * force.  The tip's position at the grab in p; Ctrl's key code returned
 * (the button and the key are still down) */
static unsigned int ctrl_pull_up(xinput *xi, LwWindow *w, GtkWidget *view, LwSimRunner *r, int *changes,
                                 double p[3])
{
  lw_camera cam;
  lw_view3d_get_camera(LW_VIEW3D(view), &cam);
  int vw = gtk_widget_get_width(view), vh = gtk_widget_get_height(view);
  double t = lw_window_get_shown_time(w), q[4], x0, y0, x1, y1;
  lw_sim_runner_get_frame(r, lw_sim_runner_frame_at_time(r, t), NULL, q, NULL);
  LwBodyPoint P1 = bpt(0, 1, 0, 0);
  lw_body_point_position(lw_sim_runner_get_model(r), q, &P1, p);
  g_assert_true(lw_camera_project(&cam, vw, vh, p, &x0, &y0));
  double up[3] = {p[0], p[1] + 0.5, 0};
  g_assert_true(lw_camera_project(&cam, vw, vh, up, &x1, &y1));
  unsigned int ctrl = xi->keycode(xi->dpy, 0xffe3 /* Control_L */);
  xi_move(xi, view, x0, y0);
  xi->fake_key(xi->dpy, ctrl, TRUE, 0);
  xi->fake_button(xi->dpy, 1, TRUE, 0);
  xi->flush(xi->dpy);
  lwt_await(lwt_counter_positive, changes, 20);
  for (int k = 1; k <= 10; k++)
    xi_move(xi, view, x0 + (x1 - x0) * k / 10, y0 + (y1 - y0) * k / 10);
  lwt_await(pulled_up, r, LWT_WAIT);
  double F[3];
  g_assert_true(lw_sim_runner_get_perturbation_force(r, F));
  g_assert_cmpfloat(F[1], >, 0);
  return ctrl;
}

static void test_gui_ctrl_drag(void)
{
  xinput xi;
  if (!xinput_open(&xi)) {
    g_test_skip("no XTest on this display");
    return;
  }
  LwSimRunner *free_r = pendulum_runner(0.3);
  run_to_end(free_r);
  double qf[4];
  lw_sim_runner_get_frame(free_r, lw_sim_runner_get_n_frames(free_r) - 1, NULL, qf, NULL);

  LwWindow *w = example_window("pendulum");
  GtkWidget *view = lw_window_get_view(w);
  LwSimRunner *r = lw_window_get_runner(w);
  lw_sim_runner_set_t_end(r, 0.3);
  int changes = 0;
  g_signal_connect_swapped(view, "perturbation-changed", G_CALLBACK(lwt_count_signal), &changes);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(TRUE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "run", NULL);
  lw_sim_runner_set_real_time(r, TRUE, 0.1);
  lwt_await(lwt_runner_running, w, LWT_WAIT);
  double p[3];
  unsigned int ctrl = ctrl_pull_up(&xi, w, view, r, &changes, p);
  double F[3];
  int body;
  double bp[3], target[3];
  g_assert_true(lw_view3d_get_perturbation(LW_VIEW3D(view), &body, bp, target));
  g_assert_cmpint(body, ==, 0);
  g_assert_cmpfloat_with_epsilon(target[1], p[1] + 0.5, 0.05);
  shot(w, "pendulum-ctrl-drag");
  xi.fake_button(xi.dpy, 1, FALSE, 0);
  xi.fake_key(xi.dpy, ctrl, FALSE, 0);
  xi.flush(xi.dpy);
  grab_wait released = {view, r};
  lwt_await(grab_released, &released, LWT_WAIT);
  g_assert_false(lw_view3d_get_perturbation(LW_VIEW3D(view), &body, bp, target));
  g_assert_false(lw_sim_runner_get_perturbation_force(r, F));
  lw_sim_runner_set_real_time(r, FALSE, 1.0);
  lwt_await(lwt_runner_idle, w, 60);
  g_assert_cmpint(lw_sim_runner_get_perturbed_steps(r), >, 0);
  double q[4];
  lw_sim_runner_get_frame(r, lw_sim_runner_get_n_frames(r) - 1, NULL, q, NULL);
  /* P1's height is u_y of the bob pivoted at the origin */
  g_assert_cmpfloat(q[3], >, qf[3] + 0.05);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.2);
  g_object_unref(free_r);
}


/* in editing mode too, a Ctrl+drag while the simulation runs pulls it; it
 * does not draw a link (which would end the run) */
static void test_gui_ctrl_drag_editing(void)
{
  xinput xi;
  if (!xinput_open(&xi)) {
    g_test_skip("no XTest on this display");
    return;
  }
  LwWindow *w = example_window("pendulum");
  GtkWidget *view = lw_window_get_view(w);
  LwSimRunner *r = lw_window_get_runner(w);
  lw_sim_runner_set_t_end(r, 0.3);
  int nbodies = lw_window_get_desc(w)->nbodies, changes = 0;
  g_signal_connect_swapped(view, "perturbation-changed", G_CALLBACK(lwt_count_signal), &changes);
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_palette_revealed, w, LWT_WAIT);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(TRUE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "run", NULL);
  r = lw_window_get_runner(w);
  lw_sim_runner_set_real_time(r, TRUE, 0.1);
  lwt_await(lwt_runner_running, w, LWT_WAIT);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_RUNNING);
  double p[3];
  unsigned int ctrl = ctrl_pull_up(&xi, w, view, r, &changes, p);
  double F[3];
  xi.fake_button(xi.dpy, 1, FALSE, 0);
  xi.fake_key(xi.dpy, ctrl, FALSE, 0);
  xi.flush(xi.dpy);
  grab_wait released = {view, r};
  lwt_await(grab_released, &released, LWT_WAIT);
  g_assert_false(lw_sim_runner_get_perturbation_force(r, F));
  /* no link drawn, the run goes on */
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, nbodies);
  g_assert_true(lw_window_get_runner(w) == r);
  lw_sim_runner_set_real_time(r, FALSE, 1.0);
  lwt_await(lwt_runner_idle, w, 60);
  g_assert_cmpint(lw_sim_runner_get_perturbed_steps(r), >, 0);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.2);
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
  g_test_add_func("/measure/tool-clicks", test_tool_clicks);
  if (gtk_init_check()) {
    adw_init();
    app = lw_application_new();
    g_application_register(G_APPLICATION(app), NULL, NULL);
    g_test_add_func("/measure/gui/five-bar", test_gui_five_bar);
    g_test_add_func("/measure/gui/perturbation", test_gui_perturbation);
    g_test_add_func("/measure/gui/edit-mode-shortcut", test_gui_edit_mode_shortcut);
    g_test_add_func("/measure/gui/follow-model", test_gui_measures_follow_model);
    g_test_add_func("/measure/gui/ctrl-drag", test_gui_ctrl_drag);
    g_test_add_func("/measure/gui/ctrl-drag-editing", test_gui_ctrl_drag_editing);
  }
  return g_test_run();
}
