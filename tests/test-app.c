/* The application window driven through its actions and properties (needs a
 * display: the test command starts Xvfb).  Checks what a user sees: the
 * built-in five-bar on start, a run that fills the plot and the time scale,
 * replay and scrubbing, pause answering at once, bad files refused with the
 * reason while the model is kept, a solver failure reported with the frames
 * kept, the sensitivity panel's gradient, the optimization panel (run,
 * progress, convergence plot, comparison, apply, undo, cancel, errors), and
 * an accelerator for every action, listed in the shortcuts window. */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lw-application.h"
#include "lw-inspector.h"
#include "lw-opt-panel.h"
#include "lw-plot-view.h"
#include "lw-plot.h"
#include "lw-sens-panel.h"
#include "lw-view3d.h"
#include "lw-window.h"

static LwApplication *app;

static LwWindow *new_window(void)
{
  LwWindow *w = lw_window_new(app);
  lw_window_open_builtin(w);
  return lwt_present(w);
}

/* started without a file: the five-bar, assembled, in the view */
static void test_startup(void)
{
  LwWindow *w = new_window();
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_nonnull(d);
  g_assert_cmpint(d->nbodies, ==, 4);
  g_assert_nonnull(lw_desc_field((lw_desc *)d, "bodies/A1/mass"));
  g_assert_null(lw_window_get_message(w));
  g_assert_null(lw_view3d_get_gl_error(LW_VIEW3D(lw_window_get_view(w))));
  LwInspector *ins = LW_INSPECTOR(lw_window_get_inspector(w));
  g_assert_cmpstr(lw_inspector_lookup(ins, "Degrees of freedom"), ==, "2");
  g_assert_cmpstr(lw_inspector_lookup(ins, "Bodies"), ==, "4");
  gtk_window_destroy(GTK_WINDOW(w));
}

/* the frame on screen is past the start (a run or a replay under way) */
static gboolean time_moved(gpointer w)
{
  return lw_window_get_shown_time(LW_WINDOW(w)) > 0.1;
}

/* a run flat out: every frame reaches the plot, the scale spans the run, the
 * last frame is on screen and the inspector shows the solver's final values */
static void test_run(void)
{
  LwWindow *w = new_window();
  lwt_set_state(w, "real-time", FALSE);
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, LWT_WAIT);
  LwSimRunner *r = lw_window_get_runner(w);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
  guint n = lw_sim_runner_get_n_frames(r);
  g_assert_cmpuint(n, ==, 5001);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(lw_window_get_plot_view(w)));
  g_assert_cmpuint(lw_plot_get_n_series(plot), ==, 2); /* r2: x and y */
  g_assert_cmpuint(lw_plot_series_get_n_points(plot, 0), ==, n);
  g_assert_cmpfloat(fabs(lw_window_get_shown_time(w) - 5.0), <, 1e-9);

  /* the solver's own final outputs */
  lw_model *m = lwt_open("five-bar.json");
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, 5.0, 1e-3, &res, NULL, NULL), ==, LW_OK);
  const double *y = lw_plot_series_get_y(plot, 1);
  g_assert_cmpfloat(y[n - 1], ==, lwt_at(&res, res.rows - 1, lwt_col(m, "r2.y")));
  LwInspector *ins = LW_INSPECTOR(lw_window_get_inspector(w));
  const char *shown = lw_inspector_lookup(ins, "r2.x");
  g_assert_nonnull(shown);
  double expect = lwt_at(&res, res.rows - 1, lwt_col(m, "r2.x"));
  g_assert_cmpfloat(fabs(g_ascii_strtod(shown, NULL) - expect), <=, 1e-5 * fmax(1, fabs(expect)));
  lw_sim_result_clear(&res);
  lw_model_free(m);

  /* add a series against another output, then clear */
  lwt_act(w, "clear-plot");
  g_assert_cmpuint(lw_plot_get_n_series(plot), ==, 0);
  lwt_act(w, "add-series");
  g_assert_cmpuint(lw_plot_get_n_series(plot), ==, 1);
  g_assert_cmpuint(lw_plot_series_get_n_points(plot, 0), ==, n);

  /* replay from the start, at 1x: time moves forward, not to the end at
   * once: the time shown runs no faster than the clock since the start
   * (a loaded machine may show less, never more) */
  gint64 start = g_get_monotonic_time();
  lwt_act(w, "play");
  lwt_await(time_moved, w, LWT_WAIT);
  double t = lw_window_get_shown_time(w), elapsed = 1e-6 * (double)(g_get_monotonic_time() - start);
  g_assert_cmpfloat(t, >, 0.1);
  g_assert_cmpfloat(t, <=, elapsed + 0.1);
  lwt_act(w, "play"); /* stop */
  /* scrub: the time scale shows the frame at that time */
  GtkAdjustment *adj = lw_window_get_time_adjustment(w);
  g_assert_cmpfloat(fabs(gtk_adjustment_get_upper(adj) - 5.0), <, 1e-9);
  gtk_adjustment_set_value(adj, 2.5);
  g_assert_cmpfloat(fabs(lw_window_get_shown_time(w) - 2.5), <=, 1e-3 + 1e-9);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* live, paced to real time: pause answers within a frame, step adds one
 * frame, reset goes back to the start */
/* the runner's frame count has reached want (the worker hands frames to
 * the interface's thread, which a loaded machine may run late) */
typedef struct {
  LwSimRunner *r;
  guint want;
} frames_wait;

static gboolean frames_reached(gpointer p)
{
  frames_wait *f = p;
  return lw_sim_runner_get_n_frames(f->r) == f->want;
}

/* pause stops the run where it is, step adds exactly one frame, reset
 * goes back to the start; every wait is for a state, not for a time */
static void test_pause_step_reset(void)
{
  LwWindow *w = new_window();
  lwt_set_state(w, "real-time", TRUE);
  lwt_act(w, "run");
  lwt_await(time_moved, w, LWT_WAIT);
  LwSimRunner *r = lw_window_get_runner(w);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_RUNNING);
  double t_live = lw_window_get_shown_time(w);
  g_assert_cmpfloat(t_live, >, 0.05);
  gint64 t0 = g_get_monotonic_time();
  lwt_act(w, "pause");
  lwt_await(lwt_runner_paused, w, LWT_WAIT);
  g_test_message("pause answered in %.2f ms", (g_get_monotonic_time() - t0) * 1e-3);
  /* paused: no frame comes after the pause */
  lwt_spin(0.1);
  guint n = lw_sim_runner_get_n_frames(r);
  lwt_spin(0.3);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, n);
  lwt_await(lwt_step_enabled, w, LWT_WAIT);
  lwt_act(w, "step");
  frames_wait f = {r, n + 1};
  lwt_await(frames_reached, &f, LWT_WAIT);
  lwt_await(lwt_runner_paused, w, LWT_WAIT);
  lwt_spin(0.2);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, n + 1);
  lwt_act(w, "reset");
  f.want = 1;
  lwt_await(frames_reached, &f, LWT_WAIT);
  g_assert_cmpfloat(lw_window_get_shown_time(w), ==, 0.0);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a broken or unknown file: a message naming the problem, the model kept */
static void test_bad_files(void)
{
  LwWindow *w = new_window();
  const lw_desc *before = lw_window_get_desc(w);
  g_autofree char *dir = g_dir_make_tmp("lw-app-XXXXXX", NULL);
  /* a negative mass, on a known line */
  g_autofree char *src = NULL;
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, "pendulum.json", NULL);
  g_assert_true(g_file_get_contents(path, &src, NULL, NULL));
  char *mass = strstr(src, "\"mass\"");
  g_assert_nonnull(mass);
  const char *after = strchr(mass, ',');
  g_assert_nonnull(after);
  GString *bad = g_string_new_len(src, mass - src);
  g_string_append(bad, "\"mass\": -2.0");
  g_string_append(bad, after);
  g_autofree char *bad_path = g_build_filename(dir, "bad-mass.json", NULL);
  g_assert_true(g_file_set_contents(bad_path, bad->str, -1, NULL));
  g_string_free(bad, TRUE);
  g_autoptr(GFile) f1 = g_file_new_for_path(bad_path);
  g_assert_false(lw_window_open_file(w, f1));
  const char *msg = lw_window_get_message(w);
  g_test_message("%s", msg);
  g_assert_nonnull(msg);
  g_assert_nonnull(strstr(msg, "bad-mass.json"));
  g_assert_nonnull(strstr(msg, "bodies/bob/mass"));
  g_assert_nonnull(strstr(msg, "bad-mass.json:"));
  g_assert_true(lw_window_get_desc(w) == before);

  /* not JSON at all: file and line */
  g_autofree char *junk_path = g_build_filename(dir, "junk.json", NULL);
  g_assert_true(g_file_set_contents(junk_path, "{\n  \"version\": 1,\n  \"bodies\": [ oops ]\n}\n", -1, NULL));
  g_autoptr(GFile) f2 = g_file_new_for_path(junk_path);
  g_assert_false(lw_window_open_file(w, f2));
  msg = lw_window_get_message(w);
  g_test_message("%s", msg);
  g_assert_nonnull(strstr(msg, "junk.json"));
  g_assert_nonnull(strstr(msg, ":3"));
  g_assert_true(lw_window_get_desc(w) == before);

  /* missing */
  g_autofree char *none = g_build_filename(dir, "missing.json", NULL);
  g_autoptr(GFile) f3 = g_file_new_for_path(none);
  g_assert_false(lw_window_open_file(w, f3));
  g_assert_nonnull(strstr(lw_window_get_message(w), "missing.json"));
  g_assert_true(lw_window_get_desc(w) == before);
  /* the kept model still runs */
  lwt_set_state(w, "real-time", FALSE);
  lwt_act(w, "run");
  lwt_await(lwt_runner_idle, w, LWT_WAIT);
  g_assert_cmpint(lw_sim_runner_get_state(lw_window_get_runner(w)), ==, LW_RUNNER_FINISHED);
  g_unlink(bad_path);
  g_unlink(junk_path);
  g_rmdir(dir);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a replay has gone back from the run's last frame */
static gboolean replay_started(gpointer w)
{
  return lw_window_get_shown_time(LW_WINDOW(w)) < lw_sim_runner_get_time(lw_window_get_runner(LW_WINDOW(w)));
}

/* a solver failure mid-run: where and when, and the frames so far kept */
static void test_solver_failure(void)
{
  lw_desc *d = lwt_dead_point_desc(NULL);
  d->solver.t_end = 3.0;
  g_autofree char *dir = g_dir_make_tmp("lw-app-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "dead-point.json", NULL);
  g_assert_true(lw_model_write_file(d, path, NULL));
  lw_desc_free(d);

  LwWindow *w = new_window();
  g_autoptr(GFile) f = g_file_new_for_path(path);
  g_assert_true(lw_window_open_file(w, f));
  lwt_set_state(w, "real-time", FALSE);
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, LWT_WAIT);
  LwSimRunner *r = lw_window_get_runner(w);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FAILED);
  const char *msg = lw_window_get_message(w);
  g_test_message("%s", msg);
  g_assert_nonnull(msg);
  g_assert_nonnull(strstr(msg, "t = "));
  g_assert_true(strstr(msg, "joints/") || strstr(msg, "drivers/"));
  guint n = lw_sim_runner_get_n_frames(r);
  g_assert_cmpuint(n, >, 100);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(lw_window_get_plot_view(w)));
  g_assert_cmpuint(lw_plot_series_get_n_points(plot, 0), ==, n);
  g_assert_cmpfloat(lw_window_get_shown_time(w), >, 0.1);
  /* the model is still the one opened, and replay works */
  g_assert_nonnull(lw_window_get_desc(w));
  lwt_act(w, "play");
  lwt_await(replay_started, w, LWT_WAIT);
  g_assert_cmpfloat(lw_window_get_shown_time(w), <, lw_sim_runner_get_time(r));
  gtk_window_destroy(GTK_WINDOW(w));
  g_unlink(path);
  g_rmdir(dir);
}

/* the sensitivity panel computes what the library computes */
static void test_sensitivity(void)
{
  LwWindow *w = new_window();
  LwSensPanel *panel = LW_SENS_PANEL(lw_window_get_sens_panel(w));
  lw_sens_panel_select(panel, "psi1", LW_SENS_ADJOINT);
  lwt_act(w, "run-sensitivity");
  g_assert_true(lw_sens_panel_is_busy(panel));
  lwt_await(lwt_sens_idle, panel, 120);
  const lw_sens_result *r = lw_sens_panel_get_result(panel);
  g_assert_nonnull(r);
  g_assert_cmpint(r->status, ==, LW_OK);
  g_assert_cmpint(r->nparams, ==, 5);
  /* seed 002 table 7.4: d psi1 / d Ls1 = -4.2288 */
  g_test_message("psi1 = %.9g, d/dLs1 = %.9g (%s)", r->value[0], r->gradient[0], lw_sens_panel_get_status(panel));
  g_assert_cmpfloat(fabs(r->gradient[0] + 4.22882) / 4.22882, <, 1e-4);
  /* the same as the library */
  const lw_desc *d = lw_window_get_desc(w);
  int params[5] = {0, 1, 2, 3, 4}, obj = lw_desc_objective_index(d, "psi1");
  lw_sens_options opt = {.method = LW_SENS_ADJOINT, .nparams = 5, .params = params, .nobj = 1, .objectives = &obj};
  lw_sens_result ref;
  g_assert_cmpint(lw_sensitivity(d, &opt, &ref), ==, LW_OK);
  for (int j = 0; j < 5; j++)
    g_assert_cmpfloat(r->gradient[j], ==, ref.gradient[j]);
  lw_sens_result_clear(&ref);
  g_assert_nonnull(strstr(lw_sens_panel_get_status(panel), "psi1"));

  /* forward keeps the sensitivities over time */
  lw_sens_panel_select(panel, "psi2", LW_SENS_FORWARD);
  lw_sens_panel_run(panel);
  lwt_await(lwt_sens_idle, panel, 120);
  r = lw_sens_panel_get_result(panel);
  g_assert_cmpint(r->status, ==, LW_OK);
  g_assert_nonnull(r->table);
  g_assert_cmpint(r->rows, ==, 5001);
  /* cancel */
  lw_sens_panel_run(panel);
  lw_sens_panel_run(panel);
  lwt_await(lwt_sens_idle, panel, 120);
  g_assert_nonnull(strstr(lw_sens_panel_get_status(panel), "ancel"));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- the optimization panel -------------------------------------------------- */
static gboolean opt_started(gpointer p)
{
  return lw_opt_panel_get_progress(LW_OPT_PANEL(p), NULL, NULL, NULL, NULL) >= 1;
}

static gboolean opt_compared(gpointer p)
{
  return lw_opt_panel_comparison_ready(LW_OPT_PANEL(p));
}

static double param_value(const lw_desc *d, const char *name)
{
  int k = lw_desc_param_index(d, name);
  g_assert_cmpint(k, >=, 0);
  return d->params[k].value;
}

/* the value in the field a parameter binds (what a simulation uses) */
static double param_field(const lw_desc *d, const char *name)
{
  int k = lw_desc_param_index(d, name);
  g_assert_cmpint(k, >=, 0);
  g_assert_cmpint(d->params[k].ntargets, >, 0);
  double *f = lw_desc_field((lw_desc *)d, d->params[k].targets[0]);
  g_assert_nonnull(f);
  return *f;
}

static gboolean action_enabled(LwWindow *w, const char *name)
{
  return g_action_group_get_action_enabled(G_ACTION_GROUP(w), name);
}

/* the five-bar's springs: run with live progress and the convergence plot,
 * the same optimum as the library, both designs simulated side by side,
 * Apply changes the model, Undo and Redo move between the designs */
static void test_optimize(void)
{
  LwWindow *w = new_window();
  LwOptPanel *panel = LW_OPT_PANEL(lw_window_get_opt_panel(w));
  g_assert_false(lw_opt_panel_select_problem(panel, "no-such-problem"));
  g_assert_true(lw_opt_panel_select_problem(panel, "static-springs"));
  g_assert_false(action_enabled(w, "undo"));
  lw_desc *before = lw_desc_copy(lw_window_get_desc(w));
  lwt_act(w, "run-optimization");
  g_assert_true(lw_opt_panel_is_busy(panel));
  lwt_await(lwt_opt_idle, panel, 240);
  const lw_opt_result *r = lw_opt_panel_get_result(panel);
  g_assert_nonnull(r);
  g_test_message("%s; f %.6g -> %.6g, %d evaluations, stop: %s", lw_opt_panel_get_status(panel), r->f0, r->f,
                 r->evaluations, r->stop);
  g_assert_cmpint(r->status, ==, LW_OK);
  g_assert_cmpint(r->n, ==, 2);
  g_assert_cmpfloat(r->f, <, r->f0);
  g_assert_cmpint(r->evaluations, >, 1);
  /* the progress shown is the last evaluation's */
  int it = -1, ne = -1;
  double f = NAN, viol = NAN, pg = NAN;
  g_assert_cmpint(lw_opt_panel_get_progress(panel, &it, &f, &viol, &pg), ==, r->evaluations);
  g_object_get(panel, "evaluations", &ne, NULL);
  g_assert_cmpint(ne, ==, r->evaluations);
  g_assert_cmpint(it, ==, r->iterations);
  g_assert_cmpfloat(f, ==, r->hist_f[r->nhist - 1]);
  g_assert_cmpfloat(viol, ==, 0.0);
  g_assert_cmpfloat(pg, ==, r->hist_pgnorm[r->nhist - 1]);
  /* the convergence plot: one point per evaluation, objective and best so far */
  LwPlot *plot = lw_opt_panel_get_plot(panel);
  g_assert_cmpuint(lw_plot_get_n_series(plot), ==, 2);
  g_assert_cmpuint(lw_plot_series_get_n_points(plot, 0), ==, (gsize)r->evaluations);
  g_assert_cmpuint(lw_plot_series_get_n_points(plot, 1), ==, (gsize)r->evaluations);
  /* what the library finds on its own */
  lw_opt_result ref;
  g_assert_cmpint(lw_optimize(before, lw_desc_problem_index(before, "static-springs"), NULL, &ref), ==, LW_OK);
  g_assert_cmpfloat(fabs(ref.f - r->f), <=, 1e-12 * fmax(1, fabs(ref.f)));
  lw_opt_result_clear(&ref);
  /* nothing changed yet */
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpfloat(param_value(d, "Ls1"), ==, param_value(before, "Ls1"));
  g_assert_false(lw_window_get_modified(w));
  /* the two designs simulated for the comparison */
  lwt_await(opt_compared, panel, 120);
  const char *dir = g_getenv("LW_SCREENSHOT_DIR");
  if (dir) {
    gtk_stack_set_visible_child_name(GTK_STACK(gtk_widget_get_parent(GTK_WIDGET(panel))), "optimization");
    /* the top of the panel, the progress and the result */
    GtkWidget *sw = gtk_widget_get_first_child(GTK_WIDGET(panel));
    GtkAdjustment *va = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(sw));
    for (int k = 0; k < 3; k++) {
      gtk_adjustment_set_value(va, k * (gtk_adjustment_get_upper(va) - gtk_adjustment_get_page_size(va)) / 2);
      lwt_settle(2);
      g_autofree char *name = g_strdup_printf("opt-panel-%d.png", k);
      g_autofree char *png = g_build_filename(dir, name, NULL);
      g_assert_true(lw_window_save_screenshot(w, png, NULL));
      g_test_message("screenshot %s", png);
    }
  }
  /* Apply: the model takes the optimized values, undoably */
  double x[2];
  int idx[2];
  for (int j = 0; j < 2; j++) {
    x[j] = r->x[j];
    idx[j] = r->params[j];
  }
  g_assert_true(lw_opt_panel_apply(panel));
  g_assert_null(lw_opt_panel_get_result(panel));
  d = lw_window_get_desc(w);
  for (int j = 0; j < 2; j++) {
    const char *name = d->params[idx[j]].name;
    g_assert_cmpfloat(param_value(d, name), ==, x[j]);
    g_assert_cmpfloat(param_field(d, name), ==, x[j]);
  }
  g_assert_true(lw_window_get_modified(w));
  g_assert_true(action_enabled(w, "undo"));
  g_assert_nonnull(lw_opt_panel_get_status(panel));
  /* Undo: back to the initial values */
  lwt_act(w, "undo");
  d = lw_window_get_desc(w);
  for (int j = 0; j < 2; j++) {
    const char *name = d->params[idx[j]].name;
    g_assert_cmpfloat(param_value(d, name), ==, param_value(before, name));
    g_assert_cmpfloat(param_field(d, name), ==, param_field(before, name));
  }
  g_assert_false(lw_window_get_modified(w));
  g_assert_false(action_enabled(w, "undo"));
  g_assert_true(action_enabled(w, "redo"));
  /* Redo, and Undo again */
  lwt_act(w, "redo");
  d = lw_window_get_desc(w);
  g_assert_cmpfloat(param_value(d, d->params[idx[0]].name), ==, x[0]);
  g_assert_true(lw_window_get_modified(w));
  lwt_act(w, "undo");
  d = lw_window_get_desc(w);
  g_assert_cmpfloat(param_value(d, d->params[idx[0]].name), ==, param_value(before, d->params[idx[0]].name));
  /* the restored model still runs */
  lwt_set_state(w, "real-time", FALSE);
  lwt_act(w, "run");
  lwt_await(lwt_runner_idle, w, LWT_WAIT);
  g_assert_cmpint(lw_sim_runner_get_state(lw_window_get_runner(w)), ==, LW_RUNNER_FINISHED);
  lw_desc_free(before);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a long run (601 spline values) cancelled after its first evaluation:
 * it stops, the model is untouched */
static void test_optimize_cancel(void)
{
  LwWindow *w = new_window();
  g_assert_true(lw_window_open_example(w, "cart-pendulum"));
  LwOptPanel *panel = LW_OPT_PANEL(lw_window_get_opt_panel(w));
  g_assert_true(lw_opt_panel_select_problem(panel, "swing-up-stop"));
  lwt_settle(30);
  lw_desc *before = lw_desc_copy(lw_window_get_desc(w));
  lw_opt_panel_run(panel);
  g_assert_true(lw_opt_panel_is_busy(panel));
  gint64 ts = g_get_monotonic_time();
  lwt_await(opt_started, panel, 120);
  gint64 t0 = g_get_monotonic_time();
  int seen = lw_opt_panel_get_progress(panel, NULL, NULL, NULL, NULL);
  g_test_message("first progress after %.1f ms: evaluation %d", (t0 - ts) * 1e-3, seen);
  lw_opt_panel_run(panel); /* the button reads Cancel now */
  lwt_await(lwt_opt_idle, panel, 120);
  double answer_ms = (g_get_monotonic_time() - t0) * 1e-3;
  const lw_opt_result *r = lw_opt_panel_get_result(panel);
  g_assert_nonnull(r);
  g_test_message("%s (cancel answered in %.1f ms)", lw_opt_panel_get_status(panel), answer_ms);
  g_assert_cmpstr(r->stop, ==, "cancelled");
  g_assert_cmpfloat(answer_ms, <, 5000); /* an evaluation, then the comparison starts */
  g_assert_cmpint(r->evaluations, <=, seen + 5);
  g_assert_nonnull(strstr(lw_opt_panel_get_status(panel), "ancel"));
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nparams, ==, before->nparams);
  for (int j = 0; j < d->nparams; j++)
    g_assert_cmpfloat(d->params[j].value, ==, before->params[j].value);
  g_assert_false(lw_window_get_modified(w));
  g_assert_false(action_enabled(w, "undo"));
  /* Discard drops the partial result */
  lw_opt_panel_discard(panel);
  g_assert_null(lw_opt_panel_get_result(panel));
  lw_desc_free(before);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a bad problem, no variables, no problems: a message, never a crash, the
 * model kept; a variable left out keeps its value */
static void test_optimize_errors(void)
{
  LwWindow *w = new_window();
  LwOptPanel *panel = LW_OPT_PANEL(lw_window_get_opt_panel(w));
  const lw_desc *model = lw_window_get_desc(w);
  /* a problem whose objective does not exist */
  lw_desc *bad = lw_desc_copy(model);
  lw_problem_desc *p = lw_desc_add_problem(bad, "broken", "no-such-objective");
  lw_problem_add_var(p, "Ls1");
  lw_opt_panel_set_desc(panel, bad);
  lw_desc_free(bad);
  g_assert_true(lw_opt_panel_select_problem(panel, "broken"));
  lw_opt_panel_run(panel);
  lwt_await(lwt_opt_idle, panel, 60);
  const char *status = lw_opt_panel_get_status(panel);
  g_test_message("%s", status);
  g_assert_nonnull(strstr(status, "no-such-objective"));
  g_assert_cmpint(lw_opt_panel_get_result(panel)->status, ==, LW_ERR_MODEL);
  g_assert_false(lw_opt_panel_apply(panel));
  g_assert_true(lw_window_get_desc(w) == model);
  /* every variable left out */
  lw_opt_panel_set_desc(panel, model);
  g_assert_true(lw_opt_panel_select_problem(panel, "static-springs"));
  lw_opt_panel_set_variable_included(panel, 0, FALSE);
  lw_opt_panel_set_variable_included(panel, 1, FALSE);
  lw_opt_panel_run(panel);
  g_assert_false(lw_opt_panel_is_busy(panel));
  g_assert_nonnull(strstr(lw_opt_panel_get_status(panel), "at least one"));
  /* only Ls1: Ls2 keeps its value, also after Apply */
  lw_opt_panel_set_variable_included(panel, 0, TRUE);
  lw_opt_panel_set_algorithm(panel, LW_OPT_MMA);
  double ls2 = param_value(model, "Ls2");
  lw_opt_panel_run(panel);
  lwt_await(lwt_opt_idle, panel, 240);
  const lw_opt_result *r = lw_opt_panel_get_result(panel);
  g_assert_cmpint(r->status, ==, LW_OK);
  g_assert_cmpint(r->n, ==, 1);
  g_assert_cmpint(r->params[0], ==, lw_desc_param_index(model, "Ls1"));
  double x = r->x[0];
  g_assert_true(lw_opt_panel_apply(panel));
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpfloat(param_value(d, "Ls1"), ==, x);
  g_assert_cmpfloat(param_value(d, "Ls2"), ==, ls2);
  g_assert_cmpint(d->nproblems, ==, 1);
  g_assert_cmpint(d->problems[0].nvars, ==, 2); /* the problem itself is not changed */
  lwt_act(w, "undo");
  /* a model without problems */
  g_assert_true(lw_window_open_example(w, "pendulum"));
  g_assert_false(action_enabled(w, "undo"));
  lw_opt_panel_run(panel);
  g_assert_false(lw_opt_panel_is_busy(panel));
  g_assert_nonnull(strstr(lw_opt_panel_get_status(panel), "no optimization problems"));
  gtk_window_destroy(GTK_WINDOW(w));
}

static gboolean inspector_on_a1(gpointer w)
{
  return !g_strcmp0(lw_inspector_get_selection(LW_INSPECTOR(lw_window_get_inspector(LW_WINDOW(w)))), "bodies/A1");
}

static gboolean inspector_cleared(gpointer w)
{
  return lw_inspector_get_selection(LW_INSPECTOR(lw_window_get_inspector(LW_WINDOW(w)))) == NULL;
}

/* a click in the view selects; the inspector follows */
static void test_selection(void)
{
  LwWindow *w = new_window();
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), "bodies/A1");
  lwt_await(inspector_on_a1, w, LWT_WAIT);
  LwInspector *ins = LW_INSPECTOR(lw_window_get_inspector(w));
  g_assert_cmpstr(lw_inspector_get_selection(ins), ==, "bodies/A1");
  g_assert_cmpstr(lw_inspector_lookup(ins, "Mass"), ==, "1");
  /* the parameters bound to that body are listed with it */
  g_assert_nonnull(lw_inspector_lookup(ins, "mA1"));
  g_assert_null(lw_inspector_lookup(ins, "Ls1"));
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), NULL);
  lwt_await(inspector_cleared, w, LWT_WAIT);
  g_assert_null(lw_inspector_get_selection(ins));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* every action has a key, and the shortcuts window lists each key */
/* Delete names what it deleted (the selection's name outlives the
 * selection, which the deletion clears) */
typedef struct {
  LwWindow *w;
  int want;
} forces_wait;

static gboolean forces_reached(gpointer p)
{
  forces_wait *f = p;
  return lw_window_get_desc(f->w)->nforces == f->want;
}

static void test_delete_message(void)
{
  LwWindow *w = new_window();
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_is_mapped, lw_window_get_editor(w), LWT_WAIT);
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), "forces/spring1");
  forces_wait f = {w, lw_window_get_desc(w)->nforces - 1};
  int nforces = f.want + 1;
  lwt_act(w, "delete");
  lwt_await(forces_reached, &f, LWT_WAIT);
  g_assert_cmpint(lw_window_get_desc(w)->nforces, ==, nforces - 1);
  g_assert_cmpstr(lw_window_get_last_toast(w), ==, "Deleted forces/spring1 (Ctrl+Z to undo)");
  gtk_window_destroy(GTK_WINDOW(w));
}

static void test_accels(void)
{
  LwWindow *w = new_window();
  g_autoptr(GBytes) overlay = g_resources_lookup_data("/io/github/linkwright/Linkwright/gtk/help-overlay.ui", 0, NULL);
  g_assert_nonnull(overlay);
  const char *xml = g_bytes_get_data(overlay, NULL);
  GActionGroup *groups[2] = {G_ACTION_GROUP(w), G_ACTION_GROUP(app)};
  const char *prefix[2] = {"win.", "app."};
  int checked = 0;
  for (int g = 0; g < 2; g++) {
    g_auto(GStrv) names = g_action_group_list_actions(groups[g]);
    for (int i = 0; names[i]; i++) {
      const GVariantType *pt = g_action_group_get_action_parameter_type(groups[g], names[i]);
      g_autofree char *full = g_strconcat(prefix[g], names[i], NULL);
      g_autofree char *detailed = NULL;
      if (pt && g_variant_type_equal(pt, G_VARIANT_TYPE_INT32))
        detailed = g_strdup_printf("%s(0)", full);
      else if (pt && g_variant_type_equal(pt, G_VARIANT_TYPE_STRING))
        detailed = g_strdup_printf("%s('plots')", full);
      else
        detailed = g_strdup(full);
      g_auto(GStrv) keys = gtk_application_get_accels_for_action(GTK_APPLICATION(app), detailed);
      if (!keys[0])
        g_error("action %s has no keyboard shortcut", detailed);
      /* listed: by action name, or by its key for parameterized actions */
      g_autofree char *by_name = g_strdup_printf("\"action-name\">%s<", full);
      g_autofree char *escaped = g_markup_escape_text(keys[0], -1);
      g_autofree char *by_key = g_strdup_printf("\"accelerator\">%s", escaped);
      if (!strstr(xml, by_name) && !strstr(xml, by_key))
        g_error("action %s (%s) is not in the shortcuts window", detailed, keys[0]);
      checked++;
    }
  }
  g_test_message("%d actions checked", checked);
  g_assert_cmpint(checked, >=, 30);
  gtk_window_destroy(GTK_WINDOW(w));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/app/startup", test_startup);
  g_test_add_func("/app/run", test_run);
  g_test_add_func("/app/pause-step-reset", test_pause_step_reset);
  g_test_add_func("/app/bad-files", test_bad_files);
  g_test_add_func("/app/solver-failure", test_solver_failure);
  g_test_add_func("/app/sensitivity", test_sensitivity);
  g_test_add_func("/app/optimize", test_optimize);
  g_test_add_func("/app/optimize-cancel", test_optimize_cancel);
  g_test_add_func("/app/optimize-errors", test_optimize_errors);
  g_test_add_func("/app/delete-message", test_delete_message);
  g_test_add_func("/app/selection", test_selection);
  g_test_add_func("/app/accels", test_accels);
  int rc = g_test_run();
  g_object_unref(app);
  return rc;
}
