/* test-plots-builtin.c: plotting without declared outputs.
 *
 * The four-bar stripped of its outputs, plotted from the built-in
 * quantities of the Plots page and compared with the CLI's CSV of the
 * shipped model; the energy balance of a damped pendulum (total +
 * dissipated constant, the dissipated energy against an independent
 * trapezoidal sum of c v^2); stacked plots sharing time and a time cursor;
 * equal aspect of a coupler curve; round-off autoscale; the new output
 * types in files and objectives.
 */
#include <adwaita.h>
#include <dlfcn.h>
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "lw-application.h"
#include "lw-plot-page.h"
#include "lw-plot-view.h"
#include "lw-plot.h"
#include "lw-test.h"
#include "lw-app-test.h"
#include "lw-test-xpointer.h"
#include "lw-camera.h"
#include "lw-view3d.h"
#include "lw-window.h"

static LwApplication *app;

/* the plot page's "Points" group has n labels */
typedef struct {
  LwPlotPage *page;
  guint n;
} labels_wait;

static gboolean points_listed(gpointer p)
{
  labels_wait *lw = p;
  g_auto(GStrv) labels = lw_plot_page_dup_group_labels(lw->page, "Points");
  return g_strv_length(labels) == lw->n;
}

/* models/four-bar.json without "outputs" and the objectives on them, in a
 * temporary file (free with g_free after g_unlink) */
static char *four_bar_without_outputs(void)
{
  g_autofree char *src = g_build_filename(LW_MODELS_DIR, "four-bar.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  g_assert_true(json_parser_load_from_file(parser, src, &error));
  JsonObject *root = json_node_get_object(json_parser_get_root(parser));
  g_assert_true(json_object_has_member(root, "outputs"));
  json_object_remove_member(root, "outputs");
  json_object_remove_member(root, "objectives"); /* both read the outputs */
  json_object_remove_member(root, "problems");
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, json_parser_get_root(parser));
  char *path = NULL;
  int fd = g_file_open_tmp("four-bar-no-outputs-XXXXXX.json", &path, &error);
  g_assert_no_error(error);
  close(fd);
  g_assert_true(json_generator_to_file(gen, path, &error));
  return path;
}

static LwWindow *open_window(const char *path)
{
  LwWindow *w = lw_window_new(app);
  gtk_window_present(GTK_WINDOW(w));
  lwt_await(lwt_is_mapped, w, LWT_WAIT);
  g_autoptr(GFile) f = g_file_new_for_path(path);
  g_assert_true(lw_window_open_file(w, f));
  g_assert_null(lw_window_get_message(w));
  lwt_await(lwt_window_shown, w, LWT_WAIT);
  return w;
}

static void run_flat_out(LwWindow *w)
{
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, 2 * LWT_WAIT);
  g_assert_cmpint(lw_sim_runner_get_state(lw_window_get_runner(w)), ==, LW_RUNNER_FINISHED);
}

/* the CSV of `linkwright-cli simulate MODEL --csv`: header and rows */
typedef struct {
  char **header;
  GArray *values; /* rows x ncols */
  int ncols;
} Csv;

static void cli_csv(const char *model, Csv *csv)
{
  g_autofree char *out = NULL;
  int fd = g_file_open_tmp("four-bar-XXXXXX.csv", &out, NULL);
  close(fd);
  g_autofree char *cmd = g_strdup_printf("%s simulate %s --csv %s", LW_CLI, model, out);
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_autofree char *cli_out = NULL; /* the summary: kept off the test's TAP stream */
  g_assert_true(g_spawn_command_line_sync(cmd, &cli_out, NULL, &status, &error));
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(out, &text, NULL, NULL));
  g_unlink(out);
  char **lines = g_strsplit(text, "\n", -1);
  csv->header = g_strsplit(lines[0], ",", -1);
  csv->ncols = (int)g_strv_length(csv->header);
  csv->values = g_array_new(FALSE, FALSE, sizeof(double));
  for (int i = 1; lines[i] && *lines[i]; i++) {
    char **cells = g_strsplit(lines[i], ",", -1);
    g_assert_cmpint((int)g_strv_length(cells), ==, csv->ncols);
    for (int c = 0; c < csv->ncols; c++) {
      double v = g_ascii_strtod(cells[c], NULL);
      g_array_append_val(csv->values, v);
    }
    g_strfreev(cells);
  }
  g_strfreev(lines);
}

static int csv_col(const Csv *csv, const char *name)
{
  for (int c = 0; c < csv->ncols; c++)
    if (!strcmp(csv->header[c], name))
      return c;
  g_error("no column %s in the CSV", name);
  return -1;
}

static guint csv_rows(const Csv *csv)
{
  return csv->values->len / (guint)csv->ncols;
}

static double csv_at(const Csv *csv, guint row, int col)
{
  return g_array_index(csv->values, double, row * (guint)csv->ncols + (guint)col);
}

/* series s of the plot: x against CSV time, y against CSV column; the
 * largest difference relative to max(1, |value|) */
static double series_vs_csv(LwPlot *plot, guint s, const Csv *csv, const char *xcol, const char *ycol)
{
  gsize n = lw_plot_series_get_n_points(plot, s);
  g_assert_cmpuint(n, ==, csv_rows(csv));
  const double *x = lw_plot_series_get_x(plot, s), *y = lw_plot_series_get_y(plot, s);
  int cx = csv_col(csv, xcol), cy = csv_col(csv, ycol);
  double e = 0;
  for (gsize i = 0; i < n; i++) {
    double ex = csv_at(csv, (guint)i, cx), ey = csv_at(csv, (guint)i, cy);
    e = fmax(e, fabs(x[i] - ex) / fmax(1, fabs(ex)));
    e = fmax(e, fabs(y[i] - ey) / fmax(1, fabs(ey)));
  }
  return e;
}

static void csv_clear(Csv *csv)
{
  g_strfreev(csv->header);
  g_array_unref(csv->values);
}

static gboolean strv_has(char **v, const char *s)
{
  return v && g_strv_contains((const char *const *)v, s);
}

/* the acceptance test: a model without outputs, plotted from the chooser,
 * agrees with the CLI's CSV of the shipped model that declares them */
static void test_four_bar(void)
{
  g_autofree char *path = four_bar_without_outputs();
  LwWindow *w = open_window(path);
  g_assert_cmpint(lw_window_get_desc(w)->noutputs, ==, 0); /* the document has none */
  LwPlotPage *page = LW_PLOT_PAGE(lw_window_get_plot_page(w));
  g_auto(GStrv) groups = lw_plot_page_dup_groups(page);
  g_assert_false(strv_has(groups, "Outputs"));
  g_assert_true(strv_has(groups, "Joints"));
  g_assert_true(strv_has(groups, "Energy"));
  g_assert_true(strv_has(groups, "Points"));
  g_auto(GStrv) joints = lw_plot_page_dup_group_labels(page, "Joints");
  for (const char *const *j = (const char *const[]){"A", "B", "C", "D", NULL}; *j; j++)
    for (const char *const *k = (const char *const[]){"q", "qd", "reaction.x", "reaction.y", NULL}; *k; k++) {
      g_autofree char *label = g_strdup_printf("%s.%s", *j, *k);
      g_assert_true(strv_has(joints, label));
    }
  g_auto(GStrv) energy = lw_plot_page_dup_group_labels(page, "Energy");
  g_assert_true(strv_has(energy, "kinetic_energy"));
  g_assert_true(strv_has(energy, "potential_energy"));
  g_assert_true(strv_has(energy, "total_energy"));
  g_assert_true(strv_has(energy, "dissipated_energy"));

  /* the rocker's angle, the crank's reaction force (one plot: both against
   * time), and the coupler's midpoint clicked as a point */
  g_assert_true(lw_plot_page_choose(page, "D.q", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, FALSE));
  g_assert_true(lw_plot_page_choose(page, "A.reaction.x", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, FALSE));
  g_assert_true(lw_plot_page_choose(page, "A.reaction.y", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, FALSE));
  int coupler = 1;
  g_assert_cmpstr(lw_window_get_desc(w)->bodies[coupler].name, ==, "coupler");
  lw_plot_page_add_point(page, coupler, (const double[]){1, 0, 0}, "mid");
  g_assert_true(lw_plot_page_choose(page, "mid.y", "mid.x"));
  g_assert_true(lw_plot_page_add_chosen(page, FALSE)); /* another x: a plot below */
  g_assert_cmpuint(lw_plot_page_get_n_plots(page), ==, 2);
  run_flat_out(w);

  g_autofree char *shipped = g_build_filename(LW_MODELS_DIR, "four-bar.json", NULL);
  Csv csv;
  cli_csv(shipped, &csv);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(lw_plot_page_get_plot_view(page, 0)));
  g_assert_cmpuint(lw_plot_get_n_series(plot), ==, 3);
  double e1 = series_vs_csv(plot, 0, &csv, "time", "rocker_angle");
  double e2 = series_vs_csv(plot, 1, &csv, "time", "reaction_A.x");
  double e3 = series_vs_csv(plot, 2, &csv, "time", "reaction_A.y");
  LwPlot *curve = lw_plot_view_get_plot(LW_PLOT_VIEW(lw_plot_page_get_plot_view(page, 1)));
  double e4 = series_vs_csv(curve, 0, &csv, "coupler_mid.x", "coupler_mid.y");
  g_test_message("plotted vs CLI CSV (%u rows): rocker angle %.2e, reaction x %.2e, y %.2e, coupler point %.2e",
                 csv_rows(&csv), e1, e2, e3, e4);
  g_assert_cmpfloat(e1, <=, 1e-9);
  g_assert_cmpfloat(e2, <=, 1e-9);
  g_assert_cmpfloat(e3, <=, 1e-9);
  g_assert_cmpfloat(e4, <=, 1e-9);
  /* the rocker does move: the comparison is not of constants */
  const double *y = lw_plot_series_get_y(plot, 0);
  double lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < csv_rows(&csv); i++)
    lo = fmin(lo, y[i]), hi = fmax(hi, y[i]);
  g_assert_cmpfloat(hi - lo, >, 0.1);
  csv_clear(&csv);

  /* the file on disk still has no outputs */
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(d);
  g_assert_cmpint(d->noutputs, ==, 0);
  lw_desc_free(d);
  gtk_window_destroy(GTK_WINDOW(w));
  g_unlink(path);
}

/* a pendulum with a joint damper on its pivot and a point-to-point damper
 * from a ground anchor to its bob, no springs: all energy lost is the
 * dampers' */
static lw_desc *damped_pendulum(double c_joint, double c_point)
{
  lw_desc *d = lw_desc_chain(1, 0);
  d->solver.t_end = 3.0;
  d->solver.step = 1e-3;
  lw_desc_add_initial(d, "J1", 0)->has_velocity = 1;
  d->initial[d->ninitial - 1].velocity = 2.0;
  lw_force_desc *jd = lw_desc_add_force(d, "pivot_damper", LW_FORCE_JOINT_SPRING_DAMPER);
  jd->joint = strdup("J1");
  jd->damping = c_joint;
  lw_force_desc *pd = lw_desc_add_force(d, "air", LW_FORCE_SPRING_DAMPER);
  pd->body[0] = strdup("ground");
  pd->body[1] = strdup(d->bodies[0].name);
  pd->place[0].p[0] = 0.5;
  pd->place[0].p[1] = 1.5;
  pd->place[1].p[0] = 1.0;
  pd->damping = c_point;
  pd->rest = 0;
  lw_output_desc *v = lw_desc_add_output(d, "tip_v", LW_OUT_VELOCITY);
  v->body = strdup(d->bodies[0].name);
  v->place.p[0] = 1.0;
  lw_output_desc *p = lw_desc_add_output(d, "tip_p", LW_OUT_POSITION);
  p->body = strdup(d->bodies[0].name);
  p->place.p[0] = 1.0;
  return d;
}

/* max |total + dissipated - initial total| over a run of d at step h */
static double energy_drift(const lw_desc *d, double h)
{
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  g_assert_cmpint(lw_simulate(m, d->solver.t_end, h, &r, NULL, NULL), ==, LW_OK);
  int ct = lwt_col(m, "total_energy"), cd = lwt_col(m, "dissipated_energy");
  double e = 0;
  for (long i = 0; i < r.rows; i++)
    e = fmax(e, fabs(lwt_at(&r, i, ct) + lwt_at(&r, i, cd) - lwt_at(&r, 0, ct)));
  lw_sim_result_clear(&r);
  lw_model_free(m);
  return e;
}

static void test_energy_balance(void)
{
  const double cj = 0.05, cp = 0.2;
  lw_desc *d = damped_pendulum(cj, cp);
  int nuser = d->noutputs;
  lw_desc_add_builtin_outputs(d);
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  g_assert_cmpint(lw_simulate(m, d->solver.t_end, d->solver.step, &r, NULL, NULL), ==, LW_OK);
  g_assert_cmpint(nuser, ==, 4); /* the chain's tip and energy, and the two above */
  int ct = lwt_col(m, "total_energy"), cd = lwt_col(m, "dissipated_energy"), cq = lwt_col(m, "J1.qd");
  int cvx = lwt_col(m, "tip_v.x"), cvy = lwt_col(m, "tip_v.y"), cx = lwt_col(m, "tip_p.x"), cy = lwt_col(m, "tip_p.y");
  int cl = lwt_col(m, "air.length"), cf = lwt_col(m, "air.force");
  double E0 = lwt_at(&r, 0, ct), drift = 0, sum = 0, trap = 0, len_err = 0, force_err = 0, P_prev = 0;
  for (long i = 0; i < r.rows; i++) {
    /* the independent sum: c v^2 of each damper from the recorded rates */
    double ax = lwt_at(&r, i, cx) - 0.5, ay = lwt_at(&r, i, cy) - 1.5, l = hypot(ax, ay);
    double ld = (ax * lwt_at(&r, i, cvx) + ay * lwt_at(&r, i, cvy)) / l, qd = lwt_at(&r, i, cq);
    double P = cj * qd * qd + cp * ld * ld;
    if (i > 0)
      sum += 0.5 * (lwt_at(&r, i, 0) - lwt_at(&r, i - 1, 0)) * (P_prev + P);
    P_prev = P;
    trap = fmax(trap, fabs(lwt_at(&r, i, cd) - sum));
    drift = fmax(drift, fabs(lwt_at(&r, i, ct) + lwt_at(&r, i, cd) - E0));
    len_err = fmax(len_err, fabs(lwt_at(&r, i, cl) - l));
    force_err = fmax(force_err, fabs(lwt_at(&r, i, cf) - cp * ld));
  }
  double lost = lwt_at(&r, r.rows - 1, cd);
  g_test_message("damped pendulum over %.1f s: dissipated %.6f J of %.6f J; max |E + D - E0| %.3e J; "
                 "dissipated vs independent trapezoidal sum %.3e J; spring length %.2e, force %.2e",
                 d->solver.t_end, lost, E0 - lwt_at(&r, r.rows - 1, ct), drift, trap, len_err, force_err);
  g_assert_cmpfloat(lost, >, 0.5); /* the dampers take a good part of the energy */
  g_assert_cmpfloat(drift, <, 1e-4 * lost);
  /* and that remainder is the integration error: it shrinks with the step
   * (second order: about 4 times for half the step) */
  double drift_half = energy_drift(d, 0.5 * d->solver.step);
  g_test_message("max |E + D - E0| at h = %g: %.3e J, at h/2: %.3e J", d->solver.step, drift, drift_half);
  g_assert_cmpfloat(drift_half, <, 0.4 * drift);
  g_assert_cmpfloat(trap, <, 1e-12 * fmax(1, lost));
  g_assert_cmpfloat(len_err, <, 1e-12);
  g_assert_cmpfloat(force_err, <, 1e-9);
  /* dissipated energy is not differentiated: an objective on it is refused */
  lw_objective_desc *o = lw_desc_add_objective(d, "loss");
  lw_objective_add_term(o, "dissipated_energy");
  lw_error err;
  lw_model *bad = lw_compile(d, &err);
  g_assert_null(bad);
  g_assert_nonnull(strstr(err.msg, "cannot be used in an objective"));
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* the new output types survive a file round trip; a spring output on a
 * force that is no spring is refused with a clear message */
static void test_output_types_io(void)
{
  lw_desc *d = damped_pendulum(0.1, 0.1);
  lw_desc_add_output(d, "sl", LW_OUT_SPRING_LENGTH)->force = strdup("air");
  lw_desc_add_output(d, "sf", LW_OUT_SPRING_FORCE)->force = strdup("pivot_damper");
  lw_desc_add_output(d, "de", LW_OUT_DISSIPATED_ENERGY);
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp("outputs-XXXXXX.json", &path, NULL);
  close(fd);
  g_autoptr(GError) error = NULL;
  g_assert_true(lw_model_write_file(d, path, &error));
  lw_error err;
  lw_desc *back = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(back);
  g_assert_cmpint(back->noutputs, ==, d->noutputs);
  for (int k = d->noutputs - 3; k < d->noutputs; k++) {
    g_assert_cmpint(back->outputs[k].type, ==, d->outputs[k].type);
    g_assert_cmpstr(back->outputs[k].force, ==, d->outputs[k].force);
  }
  lw_model *m = lwt_compile(back);
  g_assert_cmpstr(lw_model_output_unit(m, d->noutputs - 3), ==, "m");
  g_assert_cmpstr(lw_model_output_unit(m, d->noutputs - 2), ==, "N m");
  g_assert_cmpstr(lw_model_output_unit(m, d->noutputs - 1), ==, "J");
  lw_model_free(m);
  lw_desc_add_force(back, "push", LW_FORCE_FORCE)->body[0] = strdup(back->bodies[0].name);
  lw_desc_add_output(back, "bad", LW_OUT_SPRING_FORCE)->force = strdup("push");
  g_assert_null(lw_compile(back, &err));
  g_assert_cmpstr(err.path, ==, "outputs/bad/force");
  g_assert_nonnull(strstr(err.msg, "not a spring_damper"));
  lw_desc_free(back);
  lw_desc_free(d);
  g_unlink(path);
}

/* the n-th GtkDropDown under w (depth first) */
static GtkWidget *find_dropdown(GtkWidget *w, int *n)
{
  if (GTK_IS_DROP_DOWN(w) && (*n)-- == 0)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = find_dropdown(c, n);
    if (f)
      return f;
  }
  return NULL;
}

/* the window with stacked plots and the cursor, and the screen with the
 * chooser's list open (X root window), in LW_PLOTS_SHOT_DIR (by default the
 * build's screenshots/plots, for the tutorial) */
static void take_shots(LwWindow *w, LwPlotPage *page)
{
  const char *dir = g_getenv("LW_PLOTS_SHOT_DIR");
  if (!dir || !*dir)
    dir = LW_PLOTS_SHOT_DEFAULT;
  g_mkdir_with_parents(dir, 0755);
  gtk_window_set_default_size(GTK_WINDOW(w), 1400, 900);
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("plots"));
  gtk_adjustment_set_value(lw_window_get_time_adjustment(w), 1.25);
  lwt_fresh_picture(w);
  lwt_settle(2);
  g_autofree char *stacked = g_build_filename(dir, "plots-stacked.png", NULL);
  lwt_save_shot(w, stacked);
  /* the chooser's list stays open over the screen: only on request, since a
   * later test clicks in the view */
  if (!g_getenv("LW_PLOTS_SHOT_DIR"))
    return;
  lw_plot_page_show_group(page, "Joints");
  int n = 1;
  GtkWidget *dd = find_dropdown(GTK_WIDGET(page), &n);
  g_assert_nonnull(dd);
  g_signal_emit_by_name(dd, "activate");
  lwt_spin(1.0);
  g_autofree char *chooser = g_build_filename(dir, "plots-chooser.png", NULL);
  g_autofree char *cmd = g_strdup_printf("import -window root %s", chooser);
  g_spawn_command_line_sync(cmd, NULL, NULL, NULL, NULL);
}

static gboolean plots_stacked(gpointer page)
{
  graphene_rect_t b0, b1;
  return gtk_widget_compute_bounds(lw_plot_page_get_plot_view(page, 0), GTK_WIDGET(page), &b0) &&
         gtk_widget_compute_bounds(lw_plot_page_get_plot_view(page, 1), GTK_WIDGET(page), &b1) &&
         b1.origin.y >= b0.origin.y + b0.size.height;
}

/* plots against time share their time axis and a cursor at the scale's
 * time; a plot of one length against another is drawn at equal aspect */
static void test_stacked_and_aspect(void)
{
  g_autofree char *path = four_bar_without_outputs();
  LwWindow *w = open_window(path);
  LwPlotPage *page = LW_PLOT_PAGE(lw_window_get_plot_page(w));
  g_assert_true(lw_plot_page_choose(page, "D.q", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, FALSE));
  g_assert_true(lw_plot_page_choose(page, "kinetic_energy", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, TRUE));
  /* the coupler's midpoint, as a click on it would add it */
  lw_plot_page_add_point(page, 1, (const double[]){1, 0, 0}, "coupler(1, 0)");
  g_assert_true(lw_plot_page_choose(page, "coupler(1, 0).y", "coupler(1, 0).x"));
  g_assert_true(lw_plot_page_add_chosen(page, FALSE));
  g_assert_cmpuint(lw_plot_page_get_n_plots(page), ==, 3);
  run_flat_out(w);
  GtkWidget *v0 = lw_plot_page_get_plot_view(page, 0), *v1 = lw_plot_page_get_plot_view(page, 1),
            *v2 = lw_plot_page_get_plot_view(page, 2);
  LwPlot *p0 = lw_plot_view_get_plot(LW_PLOT_VIEW(v0)), *p1 = lw_plot_view_get_plot(LW_PLOT_VIEW(v1)),
         *p2 = lw_plot_view_get_plot(LW_PLOT_VIEW(v2));
  /* stacked: one above the other (once the page has laid the new plots out) */
  lwt_await(plots_stacked, page, LWT_WAIT);
  graphene_rect_t b0, b1;
  g_assert_true(gtk_widget_compute_bounds(v0, GTK_WIDGET(page), &b0));
  g_assert_true(gtk_widget_compute_bounds(v1, GTK_WIDGET(page), &b1));
  g_assert_cmpfloat(b1.origin.y, >=, b0.origin.y + b0.size.height);

  /* zoom and pan time on the upper plot: the lower follows, y stays its own */
  double a0, a1, c0, c1, y0, y1, k0, k1;
  gtk_widget_activate_action(v0, "plot.zoom-in", NULL);
  lw_plot_get_view(p0, &a0, &a1, NULL, NULL);
  lw_plot_get_view(p1, &c0, &c1, &y0, &y1);
  g_assert_cmpfloat(a1 - a0, <, 5.0);
  g_assert_cmpfloat(a0, ==, c0);
  g_assert_cmpfloat(a1, ==, c1);
  lw_plot_get_auto_view(p1, NULL, NULL, &k0, &k1);
  g_assert_cmpfloat(y0, ==, k0); /* the energy's own automatic range */
  g_assert_cmpfloat(y1, ==, k1);
  gtk_widget_activate_action(v1, "plot.zoom-out", NULL);
  lw_plot_get_view(p1, &c0, &c1, NULL, NULL);
  lw_plot_get_view(p0, &a0, &a1, NULL, NULL);
  g_assert_cmpfloat(a0, ==, c0);
  g_assert_cmpfloat(a1, ==, c1);
  gtk_widget_activate_action(v0, "plot.reset-view", NULL);
  g_assert_true(lw_plot_is_autoscaled(p0));
  g_assert_true(lw_plot_is_autoscaled(p1));
  /* the coupler curve keeps its own axes */
  g_assert_true(lw_plot_is_autoscaled(p2));

  /* the cursor follows the time scale on every plot against time */
  gtk_adjustment_set_value(lw_window_get_time_adjustment(w), 1.25);
  g_assert_cmpfloat(lw_plot_get_cursor(p0), ==, 1.25);
  g_assert_cmpfloat(lw_plot_get_cursor(p1), ==, 1.25);
  g_assert_true(isnan(lw_plot_get_cursor(p2)));

  /* equal aspect: a metre across as long as a metre up, at any size */
  g_assert_true(lw_plot_get_equal_aspect(p2));
  g_assert_false(lw_plot_get_equal_aspect(p0));
  for (int k = 0; k < 2; k++) {
    double W = k ? 300 : 800, H = k ? 500 : 250, ax, ay, aw, ah, x0, x1;
    lw_plot_layout(p2, W, H);
    g_assert_true(lw_plot_get_data_area(p2, &ax, &ay, &aw, &ah));
    lw_plot_get_view(p2, &x0, &x1, &y0, &y1);
    double ux = (x1 - x0) / aw, uy = (y1 - y0) / ah;
    g_test_message("coupler curve at %gx%g: %.6g m/px across, %.6g m/px up", W, H, ux, uy);
    g_assert_cmpfloat(fabs(ux - uy), <=, 1e-12 * ux);
    /* every point of the curve is inside */
    gsize n = lw_plot_series_get_n_points(p2, 0);
    const double *x = lw_plot_series_get_x(p2, 0), *y = lw_plot_series_get_y(p2, 0);
    for (gsize i = 0; i < n; i++) {
      g_assert_true(x[i] >= x0 && x[i] <= x1);
      g_assert_true(y[i] >= y0 && y[i] <= y1);
    }
  }
  take_shots(w, page);
  gtk_window_destroy(GTK_WINDOW(w));
  g_unlink(path);
}

/* ---- the real pointer: XTest events through the X server (lw-test-xpointer.h) */


/* a click on the coupler's middle in the 3-D view adds that point to the
 * Points group, in the coupler's own coordinates */
static void test_click_point(void)
{
  xpointer xp;
  if (!xpointer_open(&xp)) {
    xpointer_close(&xp);
    g_test_skip("needs X11 with the XTest extension (libX11, libXtst)");
    return;
  }
  g_autofree char *path = four_bar_without_outputs();
  LwWindow *w = open_window(path);
  lwt_fresh_picture(w);
  lwt_settle(5); /* the camera framed where the point is projected */
  GtkWidget *view = lw_window_get_view(w);
  if (lw_view3d_get_gl_error(LW_VIEW3D(view))) {
    g_test_skip("no OpenGL: nothing to pick");
    gtk_window_destroy(GTK_WINDOW(w));
    xpointer_close(&xp);
    return;
  }
  LwPlotPage *page = LW_PLOT_PAGE(lw_window_get_plot_page(w));
  g_auto(GStrv) before = lw_plot_page_dup_group_labels(page, "Points");
  /* where the coupler's point (1, 0) is on screen at t = 0 */
  LwSimRunner *r = lw_window_get_runner(w);
  const lw_model *m = lw_sim_runner_get_model(r);
  double *q = g_new0(double, lw_model_nq(m)), t, o[3], R[9], pw[3];
  g_assert_true(lw_sim_runner_get_frame(r, 0, &t, q, NULL));
  lw_data *d = lw_data_new(m);
  lw_data_set_state(m, d, t, q, NULL, NULL, NULL);
  lw_body_pose(m, d, 1, o, R);
  for (int i = 0; i < 3; i++)
    pw[i] = o[i] + R[3 * i] * 1.0;
  lw_camera cam;
  lw_view3d_get_camera(LW_VIEW3D(view), &cam);
  double px, py;
  g_assert_true(lw_camera_project(&cam, gtk_widget_get_width(view), gtk_widget_get_height(view), pw, &px, &py));
  int rx, ry;
  root_point(&xp, view, px, py, &rx, &ry);
  xmove(&xp, rx, ry);
  xbutton(&xp, TRUE);
  xbutton(&xp, FALSE);
  labels_wait lw = {page, g_strv_length(before) + 2};
  lwt_await(points_listed, &lw, LWT_WAIT);
  g_auto(GStrv) after = lw_plot_page_dup_group_labels(page, "Points");
  g_assert_cmpuint(g_strv_length(after), ==, g_strv_length(before) + 2);
  const char *label = after[g_strv_length(after) - 2];
  g_test_message("clicked at pixel (%.1f, %.1f): %s", px, py, label);
  g_assert_true(g_str_has_prefix(label, "coupler("));
  /* the label holds the point in body coordinates: within a pixel of (1, 0) */
  double bx = g_ascii_strtod(label + strlen("coupler("), NULL);
  double by = g_ascii_strtod(strchr(label, ',') + 1, NULL);
  g_assert_cmpfloat(fabs(bx - 1.0), <, 0.02);
  g_assert_cmpfloat(fabs(by), <, 0.02);
  lw_data_free(d);
  g_free(q);
  gtk_window_destroy(GTK_WINDOW(w));
  xpointer_close(&xp);
  g_unlink(path);
}

/* round-off is not motion: 0 to 1.2e-17 autoscales to a readable range
 * about 0, while a small real motion still fills the axis */
static void test_roundoff_autoscale(void)
{
  g_autoptr(LwPlot) plot = lw_plot_new();
  guint s = lw_plot_add_series(plot, "round-off");
  for (int i = 0; i < 100; i++)
    lw_plot_series_append(plot, s, i * 0.01, (i % 3) * 0.6e-17);
  double y0, y1;
  lw_plot_get_view(plot, NULL, NULL, &y0, &y1);
  g_test_message("0 .. 1.2e-17: y from %g to %g", y0, y1);
  g_assert_cmpfloat(y1 - y0, >=, 0.1);
  g_assert_cmpfloat(y0, <, 0);
  g_assert_cmpfloat(y1, >, 1.2e-17);
  /* round-off on a large value: a flat line at the value */
  g_autoptr(LwPlot) big = lw_plot_new();
  s = lw_plot_add_series(big, "big");
  for (int i = 0; i < 100; i++)
    lw_plot_series_append(big, s, i, 9.81 + (i % 2) * 1.8e-15);
  lw_plot_get_view(big, NULL, NULL, &y0, &y1);
  g_assert_cmpfloat(y1 - y0, >, 0.1);
  g_assert_cmpfloat(y0, <, 9.81);
  g_assert_cmpfloat(y1, >, 9.81);
  /* a micrometre of real motion is still shown filling the axis */
  g_autoptr(LwPlot) small = lw_plot_new();
  s = lw_plot_add_series(small, "small");
  for (int i = 0; i < 100; i++)
    lw_plot_series_append(small, s, i, 1e-6 * sin(0.1 * i));
  lw_plot_get_view(small, NULL, NULL, &y0, &y1);
  g_assert_cmpfloat(y1 - y0, <, 3e-6);
  g_assert_cmpfloat(y1 - y0, >, 1.9e-6);
  /* with no floor every span is trusted */
  lw_plot_set_scale_floor(plot, 0);
  lw_plot_get_view(plot, NULL, NULL, &y0, &y1);
  g_assert_cmpfloat(y1 - y0, <, 1e-16);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plots-builtin/energy-balance", test_energy_balance);
  g_test_add_func("/plots-builtin/output-types-io", test_output_types_io);
  g_test_add_func("/plots-builtin/roundoff-autoscale", test_roundoff_autoscale);
  if (!gtk_init_check()) {
    printf("# no display: the window tests are skipped (the test command starts Xvfb)\n");
    return g_test_run();
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/plots-builtin/four-bar", test_four_bar);
  g_test_add_func("/plots-builtin/stacked-and-aspect", test_stacked_and_aspect);
  g_test_add_func("/plots-builtin/click-point", test_click_point);
  return g_test_run();
}
