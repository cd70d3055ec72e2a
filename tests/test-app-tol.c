/* The window's live run of a model in the tolerance mode (needs a display:
 * the test command starts Xvfb): the run takes the mode's steps and gives a
 * frame at every output interval, ending on the state the command line's
 * `simulate --mode tolerance` ends on; the status line names the mode;
 * pause, step (one output interval) and reset work.  A screenshot goes to
 * LW_SCREENSHOT_DIR/app-tol (or the build directory). */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "lw-application.h"
#include "lw-sim-runner.h"
#include "lw-window.h"

static LwApplication *app;

/* the double pendulum in the tolerance mode: rows every 10 ms to 2 s */
static char *write_model(const char *dir)
{
  g_autofree char *src = NULL;
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, "double-pendulum.json", NULL);
  g_assert_true(g_file_get_contents(path, &src, NULL, NULL));
  const char *from = "\"solver\": {\n    \"t_end\": 10,\n    \"step\": 0.001\n  }";
  g_assert_nonnull(strstr(src, from));
  g_auto(GStrv) parts = g_strsplit(src, from, 2);
  g_autofree char *text = g_strjoin("\"solver\": {\"t_end\": 2, \"step\": 0.01, \"mode\": \"tolerance\", "
                                    "\"rtol\": 1e-6, \"atol\": 1e-6}",
                                    parts[0], parts[1], NULL);
  char *out = g_build_filename(dir, "tol-pendulum.json", NULL);
  g_assert_true(g_file_set_contents(out, text, -1, NULL));
  return out;
}

static LwWindow *open_window(const char *model)
{
  LwWindow *w = lw_window_new(app);
  g_autoptr(GFile) f = g_file_new_for_path(model);
  g_assert_true(lw_window_open_file(w, f));
  return lwt_present(w);
}

/* the last CSV row of `linkwright-cli simulate MODEL --mode tolerance`: the
 * header's names into *names, the numbers into *vals */
static int cli_last_row(const char *model, char ***names, double **vals)
{
  const char *argv[] = {LW_CLI, "simulate", model, "--mode", "tolerance", "--csv", "-", NULL};
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  int n = (int)g_strv_length(lines), last = -1;
  for (int i = 1; i < n; i++)
    if (g_ascii_isdigit(lines[i][0]))
      last = i;
  g_assert_cmpint(last, >, 0);
  *names = g_strsplit(lines[0], ",", -1);
  g_auto(GStrv) cells = g_strsplit(lines[last], ",", -1);
  int nc = (int)g_strv_length(cells);
  g_assert_cmpint(nc, ==, (int)g_strv_length(*names));
  *vals = g_new(double, nc);
  for (int i = 0; i < nc; i++)
    (*vals)[i] = g_ascii_strtod(cells[i], NULL);
  return nc;
}

/* run to the end flat out: a frame every 10 ms, the last one the CLI's */
static void test_run_matches_cli(void)
{
  g_autofree char *dir = g_dir_make_tmp("lw-app-tol-XXXXXX", NULL);
  g_autofree char *model = write_model(dir);
  LwWindow *w = open_window(model);
  LwSimRunner *r = lw_window_get_runner(w);
  g_assert_true(lw_sim_runner_get_tolerance_mode(r));
  lwt_set_state(w, "real-time", FALSE);
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, 2 * LWT_WAIT);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
  guint n = lw_sim_runner_get_n_frames(r);
  g_assert_cmpuint(n, ==, 201); /* t = 0, 0.01, ..., 2: the output interval, not the steps */
  long steps = 0, rejected = 0;
  lw_sim_runner_get_tolerance_steps(r, &steps, &rejected);
  const lw_model *m = lw_sim_runner_get_model(r);
  int ncols = lw_model_output_columns(m);
  g_autofree double *outs = g_new(double, ncols);
  double t = 0;
  g_assert_true(lw_sim_runner_get_frame(r, n - 1, &t, NULL, outs));
  g_assert_cmpfloat(t, ==, 2.0);
  g_auto(GStrv) names = NULL;
  g_autofree double *vals = NULL;
  int nv = cli_last_row(model, &names, &vals);
  double worst = 0;
  int matched = 0;
  for (int c = 0; c < ncols; c++) {
    char b[256];
    lw_model_output_column_name(m, c, b, sizeof b);
    for (int k = 1; k < nv; k++)
      if (!strcmp(g_strstrip(names[k]), b)) {
        worst = fmax(worst, fabs(outs[c] - vals[k]));
        matched++;
      }
  }
  const char *status = lw_window_get_status_text(w);
  g_test_message("%d columns matched the CLI's last row, largest difference %.3g; %ld steps, %ld refused; "
                 "status '%s'", matched, worst, steps, rejected, status);
  g_assert_cmpint(matched, ==, nv - 1);
  g_assert_cmpfloat(worst, <=, 1e-10);
  g_assert_cmpint(steps, >, 0);
  g_assert_cmpint(steps, <, 200); /* fewer steps than rows: the rows are interpolated */
  g_assert_nonnull(strstr(status, "tolerance mode"));
  g_autofree char *png = lwt_shot(w, "app-tol", LW_APPTOL_SHOT_DIR, "tolerance-run");
  gtk_window_destroy(GTK_WINDOW(w));
  g_unlink(model);
  g_rmdir(dir);
}

/* live: pause answers, step adds one output interval, run goes on from
 * there to the end, reset goes back to frame 0 */
/* the frame count has passed frames_after (a step's frame arrived), or is
 * back at one (a reset): the worker hands frames to the interface's
 * thread, which a loaded machine may run late */
static guint frames_after;

static gboolean one_more_frame(gpointer r)
{
  return lw_sim_runner_get_n_frames(r) > frames_after;
}

static gboolean one_frame(gpointer r)
{
  return lw_sim_runner_get_n_frames(r) == 1;
}

static void test_pause_step_reset(void)
{
  g_autofree char *dir = g_dir_make_tmp("lw-app-tol-XXXXXX", NULL);
  g_autofree char *model = write_model(dir);
  LwWindow *w = open_window(model);
  LwSimRunner *r = lw_window_get_runner(w);
  lwt_set_state(w, "real-time", TRUE);
  lwt_act(w, "run");
  lwt_await(lwt_runner_running, w, LWT_WAIT);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_RUNNING);
  lwt_act(w, "pause");
  lwt_await(lwt_runner_paused, w, LWT_WAIT);
  g_assert_nonnull(strstr(lw_window_get_status_text(w), "tolerance mode"));
  lwt_spin(0.1);
  guint n = lw_sim_runner_get_n_frames(r);
  frames_after = n;
  double t0 = 0, t1 = 0;
  g_assert_true(lw_sim_runner_get_frame(r, n - 1, &t0, NULL, NULL));
  g_assert_cmpfloat(t0, >, 0.0);
  g_assert_cmpfloat(t0, <, 2.0);
  lwt_await(lwt_step_enabled, w, LWT_WAIT);
  lwt_act(w, "step");
  lwt_await(one_more_frame, r, LWT_WAIT);
  lwt_await(lwt_runner_paused, w, LWT_WAIT);
  lwt_spin(0.2);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, n + 1);
  g_assert_true(lw_sim_runner_get_frame(r, n, &t1, NULL, NULL));
  g_test_message("paused at %.3f s, one step to %.3f s", t0, t1);
  g_assert_cmpfloat(fabs(t1 - t0 - 0.01), <, 1e-9);
  lwt_set_state(w, "real-time", FALSE);
  lwt_act(w, "run");
  lwt_await(lwt_runner_idle, w, 120);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, 201);
  lwt_act(w, "reset");
  lwt_await(one_frame, r, LWT_WAIT);
  g_assert_cmpfloat(lw_window_get_shown_time(w), ==, 0.0);
  gtk_window_destroy(GTK_WINDOW(w));
  g_unlink(model);
  g_rmdir(dir);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  g_autofree char *tmp_dir = g_dir_make_tmp("lw-app-tol-cache-XXXXXX", NULL);
  g_setenv("XDG_CACHE_HOME", tmp_dir, TRUE);
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/app-tol/run-matches-cli", test_run_matches_cli);
  g_test_add_func("/app-tol/pause-step-reset", test_pause_step_reset);
  int st = g_test_run();
  g_object_unref(app);
  return st;
}
