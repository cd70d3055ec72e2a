/* The worker-thread runner behind the app's live simulation: the frames it
 * records are the solver's own results, pause / step / cancel take effect
 * between steps, and a failure keeps the frames so far. */
#include "lw-test.h"

#include "lw-sim-runner.h"

#include <string.h>

static LwSimRunner *runner_for(lw_desc *d)
{
  lw_model *m = lwt_compile(d);
  lw_error err;
  LwSimRunner *r = lw_sim_runner_new(m, &err);
  if (!r)
    g_error("%s", err.msg);
  return r;
}

/* spin the default main context until the runner is idle, so that state
 * notifications queued by the worker are delivered */
static void wait_idle(LwSimRunner *r)
{
  lw_sim_runner_wait(r);
  while (g_main_context_iteration(NULL, FALSE))
    ;
}

/* flat out, the frames are exactly lw_simulate's rows */
static void test_same_as_simulate(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  d->solver.t_end = 1.0;
  lw_model *m = lwt_compile(d);
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, 1.0, d->solver.step, &res, NULL, NULL), ==, LW_OK);

  LwSimRunner *r = runner_for(d);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_READY);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, 1);
  lw_sim_runner_set_real_time(r, FALSE, 1.0);
  lw_sim_runner_start(r);
  wait_idle(r);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
  guint n = lw_sim_runner_get_n_frames(r);
  g_assert_cmpuint(n, ==, (guint)res.rows);
  int nc = lw_model_output_columns(m);
  double *out = g_new(double, nc);
  for (guint k = 0; k < n; k += 97) {
    double t;
    g_assert_true(lw_sim_runner_get_frame(r, k, &t, NULL, out));
    g_assert_cmpfloat(t, ==, res.table[(size_t)k * res.ncols]);
    for (int c = 0; c < nc; c++)
      g_assert_cmpfloat(out[c], ==, res.table[(size_t)k * res.ncols + 1 + c]);
  }
  g_assert_false(lw_sim_runner_get_frame(r, n, NULL, NULL, NULL));
  /* a column of the table, and lookup by time */
  double *col = g_new(double, n);
  g_assert_cmpuint(lw_sim_runner_copy_column(r, 0, 0, n + 10, col), ==, n);
  g_assert_cmpfloat(col[n - 1], ==, res.table[(size_t)(n - 1) * res.ncols + 1]);
  g_assert_cmpuint(lw_sim_runner_frame_at_time(r, 0.5 + 1e-9), ==, 500);
  g_assert_cmpuint(lw_sim_runner_frame_at_time(r, 99.0), ==, n - 1);
  g_assert_cmpfloat(lw_sim_runner_get_progress(r), ==, 1.0);
  g_assert_cmpfloat(lw_sim_runner_get_max_constraint_residual(r), <=, res.max_constraint_residual * 1.0000001);
  g_assert_cmpint(lw_sim_runner_get_newton_iterations(r), ==, res.newton_iterations);
  /* finished: start again does nothing; reset goes back to frame 0 */
  lw_sim_runner_start(r);
  wait_idle(r);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, n);
  lw_sim_runner_reset(r);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_READY);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, 1);
  g_free(col);
  g_free(out);
  g_object_unref(r);
  lw_sim_result_clear(&res);
  lw_model_free(m);
  lw_desc_free(d);
}

/* real-time pacing, pause within a step, single steps, resume, cancel */
static void test_pause_step(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  LwSimRunner *r = runner_for(d);
  lw_sim_runner_set_real_time(r, TRUE, 1.0);
  gint64 t0 = g_get_monotonic_time();
  lw_sim_runner_start(r);
  g_usleep(200000);
  lw_sim_runner_pause(r);
  /* the worker stops within a step: the state says so promptly */
  while (lw_sim_runner_get_state(r) != LW_RUNNER_PAUSED && g_get_monotonic_time() - t0 < 5000000)
    g_usleep(100);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_PAUSED);
  double wall = (g_get_monotonic_time() - t0) * 1e-6;
  double t = lw_sim_runner_get_time(r);
  /* paced: simulated time does not run ahead of the wall clock (5 s in all) */
  g_assert_cmpfloat(t, >, 0.0);
  g_assert_cmpfloat(t, <=, wall + 0.002);
  guint n = lw_sim_runner_get_n_frames(r);
  g_usleep(100000);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, n);
  /* one step */
  lw_sim_runner_step(r);
  while (lw_sim_runner_get_n_frames(r) == n && g_get_monotonic_time() - t0 < 5000000)
    g_usleep(100);
  g_usleep(50000);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, n + 1);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_PAUSED);
  g_assert_cmpfloat(fabs(lw_sim_runner_get_time(r) - t - d->solver.step), <, 1e-12);
  /* resume flat out to the end */
  lw_sim_runner_set_real_time(r, FALSE, 1.0);
  lw_sim_runner_start(r);
  wait_idle(r);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
  g_assert_cmpfloat(fabs(lw_sim_runner_get_time(r) - d->solver.t_end), <, 1e-9);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, 5001);

  /* cancel in mid-run keeps what was done */
  lw_sim_runner_reset(r);
  lw_sim_runner_set_real_time(r, TRUE, 1.0);
  lw_sim_runner_start(r);
  g_usleep(100000);
  lw_sim_runner_cancel(r);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_CANCELLED);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), >, 1);
  g_assert_cmpfloat(lw_sim_runner_get_time(r), <, 1.0);
  g_object_unref(r);
  lw_desc_free(d);
}

static int state_changes;
static void on_state(GObject *obj, GParamSpec *pspec, gpointer user)
{
  (void)obj;
  (void)pspec;
  (void)user;
  state_changes++;
}

/* a mid-run failure: state FAILED, time and place given, frames up to it kept */
static void test_failure(void)
{
  lw_desc *d = lwt_dead_point_desc(NULL);
  d->solver.t_end = 3.0;
  LwSimRunner *r = runner_for(d);
  state_changes = 0;
  g_signal_connect(r, "notify::state", G_CALLBACK(on_state), NULL);
  lw_sim_runner_set_real_time(r, FALSE, 1.0);
  lw_sim_runner_start(r);
  wait_idle(r);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FAILED);
  g_assert_cmpint(state_changes, >=, 1);
  const lw_error *e = lw_sim_runner_get_error(r);
  g_assert_nonnull(e);
  g_assert_cmpint(e->status, ==, LW_ERR_SOLVER);
  g_assert_true(isfinite(e->time));
  g_assert_cmpfloat(e->time, >, 0.0);
  g_assert_true(g_str_has_prefix(e->path, "joints/") || g_str_has_prefix(e->path, "drivers/"));
  guint n = lw_sim_runner_get_n_frames(r);
  g_assert_cmpuint(n, >, 1);
  g_assert_cmpfloat(fabs(lw_sim_runner_get_time(r) + d->solver.step - e->time), <, 1e-9);
  /* a failed run does not restart by itself */
  lw_sim_runner_start(r);
  wait_idle(r);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, n);
  g_object_unref(r);
  lw_desc_free(d);
}

/* an unassemblable model is refused with the reason */
static void test_bad_assembly(void)
{
  lw_desc *d = lwt_read("four-bar.json");
  /* a coupler too short to close the loop */
  double *len = lw_desc_field(d, "bodies/coupler/points/end/0");
  g_assert_nonnull(len);
  *len *= 0.05;
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  if (m) {
    LwSimRunner *r = lw_sim_runner_new(m, &err);
    g_assert_null(r);
  }
  g_assert_cmpint(err.status, ==, LW_ERR_MODEL);
  g_assert_cmpuint(strlen(err.msg), >, 0);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runner/same-as-simulate", test_same_as_simulate);
  g_test_add_func("/runner/pause-step-cancel", test_pause_step);
  g_test_add_func("/runner/failure", test_failure);
  g_test_add_func("/runner/bad-assembly", test_bad_assembly);
  return g_test_run();
}
