/* The Sensitivity and Optimize pages are built from their GtkBuilder
 * templates (ui/lw-sens-panel.ui, ui/lw-opt-panel.ui); the gradient chart
 * is an LwPlotView in bar mode, one bar per parameter with the computed
 * values (round-off drawn and printed as 0, exported like any plot); and a
 * job the shared background code (lw-panel-job) was told to drop ends
 * unheard while the job that replaced it reports.  Needs a display: the
 * test command starts Xvfb. */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lw-application.h"
#include "lw-opt-panel.h"
#include "lw-panel-job.h"
#include "lw-panel-util.h"
#include "lw-plot-view.h"
#include "lw-plot.h"
#include "lw-sens-panel.h"
#include "lw-view3d.h"
#include "lw-window.h"

static LwApplication *app;

/* ---- helpers ---------------------------------------------------------------- */
static LwWindow *new_window(void)
{
  return lwt_builtin_window(app);
}

/* template child `name` of panel (built by the template, inside the panel) */
static GtkWidget *child(gpointer panel, GType type, const char *name)
{
  GObject *o = gtk_widget_get_template_child(GTK_WIDGET(panel), type, name);
  g_assert_nonnull(o);
  if (GTK_IS_WIDGET(o))
    g_assert_true(gtk_widget_is_ancestor(GTK_WIDGET(o), GTK_WIDGET(panel)));
  return GTK_IS_WIDGET(o) ? GTK_WIDGET(o) : NULL;
}

static void shot(LwWindow *w, const char *name)
{
  g_free(lwt_shot(w, "panel-ui", LW_PANEL_UI_SHOT_DIR, name));
}

static gboolean no_bars(gpointer plot)
{
  return lw_plot_get_n_bars(plot) == 0;
}

/* scroll the page that holds w so that w is at the top */
static void scroll_to(GtkWidget *w)
{
  GtkWidget *sw = gtk_widget_get_ancestor(w, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_nonnull(sw);
  graphene_point_t p;
  g_assert_true(gtk_widget_compute_point(w, gtk_scrolled_window_get_child(GTK_SCROLLED_WINDOW(sw)),
                                         &GRAPHENE_POINT_INIT(0, 0), &p));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(sw));
  gtk_adjustment_set_value(adj, p.y - 12);
}

/* ---- the templates ---------------------------------------------------------- */
static void test_sens_template(void)
{
  LwSensPanel *p = g_object_ref_sink(g_object_new(LW_TYPE_SENS_PANEL, NULL));
  GType t = LW_TYPE_SENS_PANEL;
  g_assert_true(GTK_IS_SCROLLED_WINDOW(child(p, t, "scroller")));
  g_assert_true(ADW_IS_COMBO_ROW(child(p, t, "objective_row")));
  GtkWidget *method = child(p, t, "method_row");
  g_assert_true(ADW_IS_COMBO_ROW(method));
  /* the methods listed in the template, Adjoint chosen */
  GListModel *methods = adw_combo_row_get_model(ADW_COMBO_ROW(method));
  g_assert_cmpuint(g_list_model_get_n_items(methods), ==, 3);
  g_assert_cmpstr(gtk_string_list_get_string(GTK_STRING_LIST(methods), 1), ==, "Adjoint");
  g_assert_cmpuint(adw_combo_row_get_selected(ADW_COMBO_ROW(method)), ==, 1);
  g_assert_true(ADW_IS_PREFERENCES_GROUP(child(p, t, "params_group")));
  GtkWidget *run = child(p, t, "run_button");
  g_assert_cmpstr(gtk_button_get_label(GTK_BUTTON(run)), ==, "_Compute Gradient");
  g_assert_true(GTK_IS_PROGRESS_BAR(child(p, t, "progress_bar")));
  GtkWidget *status = child(p, t, "status_label");
  /* the code took over the template's label: no model yet */
  g_assert_nonnull(strstr(gtk_label_get_text(GTK_LABEL(status)), "cannot run"));
  g_assert_true(GTK_IS_DROP_DOWN(child(p, t, "output_dropdown")));
  GtkWidget *chart = child(p, t, "chart"), *plot = child(p, t, "plot_view");
  g_assert_true(LW_IS_PLOT_VIEW(chart));
  g_assert_true(LW_IS_PLOT_VIEW(plot));
  g_assert_true(chart != plot);
  /* no result, no bars (and the chart is not shown) */
  g_assert_cmpuint(lw_plot_get_n_bars(lw_plot_view_get_plot(LW_PLOT_VIEW(chart))), ==, 0);
  g_assert_false(gtk_widget_get_visible(chart));
  g_object_unref(p);
}

static void test_opt_template(void)
{
  LwOptPanel *p = g_object_ref_sink(g_object_new(LW_TYPE_OPT_PANEL, NULL));
  GType t = LW_TYPE_OPT_PANEL;
  const char *rows[] = {"problem_row", "algorithm_row"};
  for (guint i = 0; i < G_N_ELEMENTS(rows); i++)
    g_assert_true(ADW_IS_COMBO_ROW(child(p, t, rows[i])));
  g_assert_true(ADW_IS_ACTION_ROW(child(p, t, "objective_row")));
  g_assert_true(GTK_IS_SPIN_BUTTON(child(p, t, "maxeval_spin")));
  double lo = 0, hi = 0;
  gtk_spin_button_get_range(GTK_SPIN_BUTTON(child(p, t, "maxeval_spin")), &lo, &hi);
  g_assert_cmpfloat(lo, ==, 1);
  g_assert_cmpfloat(hi, ==, 100000);
  GtkWidget *run = child(p, t, "run_button");
  g_assert_cmpstr(gtk_button_get_label(GTK_BUTTON(run)), ==, "_Optimize");
  g_assert_false(gtk_widget_get_sensitive(run));
  const char *labels[] = {"eval_value", "iter_value", "f_value", "best_value", "viol_value", "pg_value",
                          "res_f", "res_viol", "res_pg", "res_evals", "res_time", "status_label", "compare_time"};
  for (guint i = 0; i < G_N_ELEMENTS(labels); i++)
    g_assert_true(GTK_IS_LABEL(child(p, t, labels[i])));
  GtkWidget *pv = child(p, t, "plot_view");
  g_assert_true(LW_IS_PLOT_VIEW(pv));
  g_assert_true(lw_plot_view_get_plot(LW_PLOT_VIEW(pv)) == lw_opt_panel_get_plot(p));
  g_assert_cmpuint(lw_plot_get_n_series(lw_opt_panel_get_plot(p)), ==, 2);
  g_assert_true(LW_IS_VIEW3D(child(p, t, "initial_view")));
  g_assert_true(LW_IS_VIEW3D(child(p, t, "optimized_view")));
  g_assert_false(gtk_widget_get_can_target(child(p, t, "optimized_view")));
  g_assert_false(gtk_widget_get_visible(child(p, t, "result_box")));
  g_assert_true(GTK_IS_BUTTON(child(p, t, "apply_button")));
  g_assert_true(GTK_IS_BUTTON(child(p, t, "discard_button")));
  g_assert_true(GTK_IS_BUTTON(child(p, t, "play_button")));
  g_object_unref(p);
}

/* ---- the bar chart ------------------------------------------------------------ */
/* Compute psi1 on the five-bar: one bar a parameter, named and valued as computed */
static void test_sens_bars(void)
{
  LwWindow *w = new_window();
  lwt_show_page(w, "sensitivity");
  LwSensPanel *sp = LW_SENS_PANEL(lw_window_get_sens_panel(w));
  lw_sens_panel_select(sp, "psi1", LW_SENS_ADJOINT);
  lw_sens_panel_run(sp);
  lwt_await(lwt_sens_idle, sp, 120);
  const lw_sens_result *r = lw_sens_panel_get_result(sp);
  g_assert_nonnull(r);
  g_assert_cmpint(r->status, ==, LW_OK);
  GtkWidget *chart = child(sp, LW_TYPE_SENS_PANEL, "chart");
  g_assert_true(gtk_widget_get_visible(chart));
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(chart));
  g_assert_cmpuint(lw_plot_get_n_bars(plot), ==, (guint)r->nparams);
  g_assert_cmpint(r->nparams, ==, 5);
  const lw_desc *d = lw_window_get_desc(w);
  double gmax = 0;
  for (int j = 0; j < r->nparams; j++)
    gmax = fmax(gmax, fabs(r->gradient[j]));
  /* every parameter chosen: the bars in the model's order */
  for (int j = 0; j < r->nparams; j++) {
    g_assert_cmpstr(lw_plot_get_bar_name(plot, (guint)j), ==, d->params[j].name);
    g_assert_cmpfloat(lw_plot_get_bar_value(plot, (guint)j), ==, lw_panel_clean(r->gradient[j], gmax));
    g_test_message("%s: %.9g", lw_plot_get_bar_name(plot, (guint)j), lw_plot_get_bar_value(plot, (guint)j));
  }
  g_assert_nonnull(strstr(lw_plot_get_x_label(plot), "psi1"));
  /* a bar row of 28 pixels at least */
  int ch = 0;
  gtk_widget_get_size_request(chart, NULL, &ch);
  g_assert_cmpint(ch, >=, 28 * r->nparams);
  /* exported like any plot: the CSV holds the bars as drawn */
  g_autofree char *dir = g_dir_make_tmp("lw-panel-ui-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename(dir, "gradient.csv", NULL);
  g_autofree char *png = g_build_filename(dir, "gradient.png", NULL);
  g_assert_true(lw_plot_export_csv(plot, csv, NULL));
  g_assert_true(lw_plot_export(plot, png, 600, 300, NULL));
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(g_strchomp(text), "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + (guint)r->nparams);
  g_assert_true(g_str_has_prefix(lines[1], d->params[0].name));
  g_assert_cmpfloat(g_ascii_strtod(strchr(lines[1], ',') + 1, NULL), ==, lw_plot_get_bar_value(plot, 0));
  g_assert_true(g_file_test(png, G_FILE_TEST_IS_REGULAR));
  g_remove(csv);
  g_remove(png);
  g_rmdir(dir);
  scroll_to(child(sp, LW_TYPE_SENS_PANEL, "run_button"));
  shot(w, "sensitivity-five-bar-bars");
  /* a new model: no bars left of the five-bar */
  g_assert_true(lw_window_open_example(w, "pendulum"));
  lwt_await(no_bars, plot, LWT_WAIT);
  g_assert_cmpuint(lw_plot_get_n_bars(plot), ==, 0);
  g_assert_null(lw_plot_get_x_label(plot));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* the bar mode of LwPlot itself: round-off is 0, the view holds every bar
 * and 0, zoom works as for lines, the series are not drawn */
static void test_bar_mode(void)
{
  g_autoptr(LwPlot) plot = lw_plot_new();
  const char *names[] = {"a", "b", "c"};
  const double values[] = {1.5, 1e-17, -2.0};
  lw_plot_set_bars(plot, names, values, 3);
  g_assert_cmpuint(lw_plot_get_n_bars(plot), ==, 3);
  g_assert_cmpfloat(lw_plot_get_bar_value(plot, 0), ==, 1.5);
  g_assert_cmpfloat(lw_plot_get_bar_value(plot, 1), ==, 0.0);
  g_assert_cmpfloat(lw_plot_get_bar_value(plot, 2), ==, -2.0);
  double x0, x1, y0, y1;
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, <, -2.0);
  g_assert_cmpfloat(x1, >, 1.5);
  g_assert_cmpfloat(y0, ==, -0.5);
  g_assert_cmpfloat(y1, ==, 2.5);
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 400, 200);
  cairo_t *cr = cairo_create(s);
  lw_plot_draw(plot, cr, 400, 200);
  /* the first bar is the top one: its middle pixel is drawn in the
   * palette's first color, the third (negative) to the left of 0 */
  double px, py;
  g_assert_true(lw_plot_to_pixel(plot, 0.75, 2.0, &px, &py));
  cairo_surface_flush(s);
  const unsigned char *data = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  const guint32 *pix = (const guint32 *)(data + (int)py * stride) + (int)px;
  LwPlotColor c0 = {0};
  guint sx = lw_plot_add_series(plot, "hidden");
  c0 = lw_plot_series_get_color(plot, sx); /* the palette's first color */
  g_assert_cmpint((*pix >> 16) & 0xff, ==, (int)round(c0.red * 255));
  g_assert_cmpint(*pix & 0xff, ==, (int)round(c0.blue * 255));
  /* a series added to a bar chart is neither drawn nor found */
  lw_plot_series_append(plot, sx, 0.75, 2.0);
  g_assert_false(lw_plot_nearest(plot, px, py, 20, NULL, NULL, NULL));
  /* zoom about the first bar: the view narrows like a line plot's */
  lw_plot_zoom(plot, 2, 0.75, 2.0);
  double z0, z1;
  lw_plot_get_view(plot, &z0, &z1, NULL, NULL);
  g_assert_cmpfloat(z1 - z0, <, x1 - x0);
  lw_plot_draw(plot, cr, 400, 200);
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  /* back to an x-y plot */
  lw_plot_set_bars(plot, NULL, NULL, 0);
  g_assert_cmpuint(lw_plot_get_n_bars(plot), ==, 0);
}

/* ---- the shared job code ------------------------------------------------------ */
typedef struct {
  gint release;   /* the worker waits for this */
  gint freed;     /* free_data ran */
  int done, progress;
  gboolean cancelled;
} JobProbe;

static void probe_work(LwPanelJob *job, gpointer data)
{
  JobProbe *p = data;
  lw_panel_job_set_fraction(job, 0.5);
  while (!g_atomic_int_get(&p->release))
    g_usleep(1000);
}

static void probe_free(gpointer data)
{
  JobProbe *p = data;
  g_atomic_int_set(&p->freed, 1);
}

static void probe_progress(gpointer owner, LwPanelJob *job)
{
  (void)owner;
  JobProbe *p = lw_panel_job_get_data(job);
  g_assert_cmpfloat(lw_panel_job_get_fraction(job), ==, 0.5);
  p->progress++;
}

static void probe_done(gpointer owner, LwPanelJob *job)
{
  LwPanelJob **slot = owner;
  g_assert_null(*slot); /* the slot is free again when done runs */
  JobProbe *p = lw_panel_job_get_data(job);
  p->done++;
  p->cancelled = lw_panel_job_is_cancelled(job);
}

static gboolean probe_finished(gpointer p)
{
  return ((JobProbe *)p)->done > 0;
}

static gboolean probe_progressed(gpointer p)
{
  return ((JobProbe *)p)->progress > 0;
}

static gboolean probe_freed(gpointer p)
{
  return g_atomic_int_get(&((JobProbe *)p)->freed);
}

/* a job dropped from its slot (the model was edited) reports nothing and is
 * freed when it ends; the job started after it in the same slot reports */
static void test_job_stale(void)
{
  LwPanelJob *slot = NULL;
  JobProbe a = {0}, b = {0};
  LwPanelJob *ja = lw_panel_job_start(&slot, &slot, &a, probe_free, probe_work, probe_progress, probe_done);
  g_assert_true(slot == ja);
  lwt_await(probe_progressed, &a, LWT_WAIT);
  g_assert_cmpint(a.progress, ==, 1);
  lw_panel_job_drop(&slot);
  g_assert_null(slot);
  lw_panel_job_start(&slot, &slot, &b, probe_free, probe_work, probe_progress, probe_done);
  g_atomic_int_set(&a.release, 1);
  lwt_await(probe_freed, &a, LWT_WAIT);
  lwt_spin(0.05);
  g_assert_cmpint(a.done, ==, 0);
  g_assert_cmpint(a.progress, ==, 1);
  /* b still runs and owns the slot */
  g_assert_nonnull(slot);
  g_assert_cmpint(b.progress, ==, 1);
  g_atomic_int_set(&b.release, 1);
  lwt_await(probe_finished, &b, LWT_WAIT);
  g_assert_cmpint(b.done, ==, 1);
  g_assert_false(b.cancelled);
  g_assert_null(slot);
  lwt_await(probe_freed, &b, LWT_WAIT);
  /* a cancelled job still reports done, cancelled */
  JobProbe c = {0};
  lw_panel_job_start(&slot, &slot, &c, probe_free, probe_work, probe_progress, probe_done);
  lw_panel_job_cancel(slot);
  g_atomic_int_set(&c.release, 1);
  lwt_await(probe_finished, &c, LWT_WAIT);
  g_assert_true(c.cancelled);
  lwt_await(probe_freed, &c, LWT_WAIT);
}

/* the same on the Sensitivity page: a gradient started on the five-bar and
 * overtaken by an edit never shows */
static void test_sens_stale_job(void)
{
  LwWindow *w = new_window();
  lwt_show_page(w, "sensitivity");
  LwSensPanel *sp = LW_SENS_PANEL(lw_window_get_sens_panel(w));
  lw_sens_panel_select(sp, "psi1", LW_SENS_FORWARD);
  lw_sens_panel_run(sp);
  g_assert_true(lw_sens_panel_is_busy(sp));
  lw_desc *d = lw_desc_copy(lw_window_get_desc(w));
  d->params[0].value *= 1.01;
  lw_sens_panel_set_desc(sp, d);
  g_assert_false(lw_sens_panel_is_busy(sp));
  lwt_spin(3.0); /* the worker has finished */
  g_assert_null(lw_sens_panel_get_result(sp));
  g_assert_cmpuint(lw_plot_get_n_bars(lw_plot_view_get_plot(LW_PLOT_VIEW(child(sp, LW_TYPE_SENS_PANEL, "chart")))),
                   ==, 0);
  lw_desc_free(d);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* an optimization of the five-bar, for the screenshot of the Optimize page */
static void test_opt_run(void)
{
  LwWindow *w = new_window();
  lwt_show_page(w, "optimization");
  LwOptPanel *op = LW_OPT_PANEL(lw_window_get_opt_panel(w));
  lw_opt_panel_run(op);
  lwt_await(lwt_opt_idle, op, 120);
  const lw_opt_result *r = lw_opt_panel_get_result(op);
  g_assert_nonnull(r);
  g_assert_cmpint(r->status, ==, LW_OK);
  g_assert_true(gtk_widget_get_visible(child(op, LW_TYPE_OPT_PANEL, "result_box")));
  g_assert_cmpint(lw_opt_panel_get_progress(op, NULL, NULL, NULL, NULL), ==, r->evaluations);
  scroll_to(child(op, LW_TYPE_OPT_PANEL, "run_button"));
  lwt_spin(1.5); /* the button's colour eases back from Cancel's */
  shot(w, "optimize-five-bar-progress");
  scroll_to(child(op, LW_TYPE_OPT_PANEL, "result_box"));
  shot(w, "optimize-five-bar-result");
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
  g_test_add_func("/panel-ui/sens-template", test_sens_template);
  g_test_add_func("/panel-ui/opt-template", test_opt_template);
  g_test_add_func("/panel-ui/bar-mode", test_bar_mode);
  g_test_add_func("/panel-ui/sens-bars", test_sens_bars);
  g_test_add_func("/panel-ui/job-stale", test_job_stale);
  g_test_add_func("/panel-ui/sens-stale-job", test_sens_stale_job);
  g_test_add_func("/panel-ui/opt-run", test_opt_run);
  return g_test_run();
}
