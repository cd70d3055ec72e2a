/* The Sensitivity and Optimize pages show only numbers of the model on
 * screen (needs a display: the test command starts Xvfb): a new empty model
 * or an edit that cannot assemble empties them and turns Compute and
 * Optimize off with the reason; a result computed on a worker thread for a
 * model since edited is dropped; no axis label is left from another model;
 * round-off is printed as 0; the wheel over the convergence plot scrolls the
 * page; and giving the panels a model of 601 parameters stays cheap.
 *
 * Only the panels' long-standing interface and their widgets are used, as
 * a user finds them on screen. */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <string.h>

#include "lw-application.h"
#include "lw-opt-panel.h"
#include "lw-plot-page.h"
#include "lw-plot-view.h"
#include "lw-plot.h"
#include "lw-prop-editor.h"
#include "lw-sens-panel.h"
#include "lw-view3d.h"
#include "lw-window.h"

static LwApplication *app;

/* ---- helpers ---------------------------------------------------------------- */
static LwWindow *new_window(void)
{
  return lwt_builtin_window(app);
}

static gboolean no_runner(gpointer w)
{
  return lw_window_get_runner(LW_WINDOW(w)) == NULL;
}

static gboolean has_runner(gpointer w)
{
  return lw_window_get_runner(LW_WINDOW(w)) != NULL;
}

static gboolean model_empty(gpointer w)
{
  return lw_window_get_desc(LW_WINDOW(w))->nbodies == 0;
}

static LwSensPanel *sens_of(LwWindow *w)
{
  return LW_SENS_PANEL(lw_window_get_sens_panel(w));
}

static LwOptPanel *opt_of(LwWindow *w)
{
  return LW_OPT_PANEL(lw_window_get_opt_panel(w));
}

static gboolean is_button_labelled(GtkWidget *w, gconstpointer text)
{
  const char *l = GTK_IS_BUTTON(w) ? gtk_button_get_label(GTK_BUTTON(w)) : NULL;
  return l && strstr(l, text);
}

static gboolean is_row_titled(GtkWidget *w, gconstpointer title)
{
  return ADW_IS_PREFERENCES_ROW(w) && !g_strcmp0(adw_preferences_row_get_title(ADW_PREFERENCES_ROW(w)), title);
}

static gboolean ls1_listed(gpointer panel)
{
  return lwt_find_widget(GTK_WIDGET(panel), is_row_titled, "Ls1") != NULL;
}

static gboolean is_check(GtkWidget *w, gconstpointer data)
{
  (void)data;
  return GTK_IS_CHECK_BUTTON(w);
}

static gboolean is_plot_view(GtkWidget *w, gconstpointer data)
{
  (void)data;
  return LW_IS_PLOT_VIEW(w);
}

static gboolean is_label_with(GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL(w) && strstr(gtk_label_get_text(GTK_LABEL(w)), text);
}

/* the objectives the Sensitivity page offers */
static guint n_objectives(LwSensPanel *p)
{
  GtkWidget *row = lwt_find_widget(GTK_WIDGET(p), is_row_titled, "Objective");
  g_assert_true(ADW_IS_COMBO_ROW(row));
  GListModel *m = adw_combo_row_get_model(ADW_COMBO_ROW(row));
  return m ? g_list_model_get_n_items(m) : 0;
}

static GtkWidget *compute_button(LwSensPanel *p)
{
  GtkWidget *b = lwt_find_widget(GTK_WIDGET(p), is_button_labelled, "Compute");
  g_assert_nonnull(b);
  return b;
}

static GtkWidget *optimize_button(LwOptPanel *p)
{
  GtkWidget *b = lwt_find_widget(GTK_WIDGET(p), is_button_labelled, "Optimize");
  g_assert_nonnull(b);
  return b;
}

/* compute an objective's gradient with the page's parameters; its value */
static double compute(LwSensPanel *p, const char *objective, lw_sens_method method)
{
  lw_sens_panel_select(p, objective, method);
  lw_sens_panel_run(p);
  lwt_await(lwt_sens_idle, p, 120);
  const lw_sens_result *r = lw_sens_panel_get_result(p);
  g_assert_nonnull(r);
  g_assert_cmpint(r->status, ==, LW_OK);
  return r->value[0];
}

/* edit mode, the coupler's end moved to x = 5 m: the four-bar cannot close */
static void break_four_bar(LwWindow *w)
{
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_is_mapped, lw_window_get_editor(w), LWT_WAIT);
  lwt_pick(w, "bodies/coupler");
  lwt_enter(w, "bodies/coupler/points/end/0", "5");
  /* the Run button is off: no runner */
  lwt_await(no_runner, w, LWT_WAIT);
  g_assert_null(lw_window_get_runner(w));
}

/* a screenshot of the window into LW_SCREENSHOT_DIR (or the build's screenshots/panels) */
static void shot(LwWindow *w, const char *name)
{
  g_free(lwt_shot(w, "panels", LW_PANELS_SHOT_DIR, name));
}

/* a page that says the model cannot run, with its button off */
static void assert_cannot_run(const char *status, GtkWidget *button)
{
  g_test_message("status: %s", status);
  g_assert_nonnull(status);
  g_assert_nonnull(strstr(status, "cannot run"));
  g_assert_false(gtk_widget_get_sensitive(button));
}

/* ---- the tests ------------------------------------------------------------------ */
/* Ctrl+N after a gradient of the five-bar: nothing of the five-bar is left */
static void test_new_model(void)
{
  LwWindow *w = new_window();
  LwSensPanel *sp = sens_of(w);
  lwt_show_page(w, "sensitivity");
  compute(sp, "psi1", LW_SENS_ADJOINT);
  g_assert_nonnull(lwt_find_widget(GTK_WIDGET(sp), is_row_titled, "Ls1"));
  lwt_act(w, "new");
  lwt_await(model_empty, w, LWT_WAIT);
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 0);
  g_assert_cmpuint(n_objectives(sp), ==, 0);
  g_assert_null(lwt_find_widget(GTK_WIDGET(sp), is_row_titled, "Ls1"));
  g_assert_null(lw_sens_panel_get_result(sp));
  assert_cannot_run(lw_sens_panel_get_status(sp), compute_button(sp));
  /* Ctrl+G does not compute the five-bar's numbers either */
  lwt_act(w, "run-sensitivity");
  lwt_await(lwt_sens_idle, sp, 120);
  g_assert_null(lw_sens_panel_get_result(sp));
  LwOptPanel *op = opt_of(w);
  assert_cannot_run(lw_opt_panel_get_status(op), optimize_button(op));
  lw_opt_panel_run(op);
  g_assert_false(lw_opt_panel_is_busy(op));
  g_assert_null(lw_opt_panel_get_result(op));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* an edit that cannot assemble: the old geometry's gradient goes, Compute is off */
static void test_unrunnable_edit(void)
{
  LwWindow *w = new_window();
  g_assert_true(lw_window_open_example(w, "four-bar"));
  LwSensPanel *sp = sens_of(w);
  lwt_show_page(w, "sensitivity");
  double v = compute(sp, "path", LW_SENS_ADJOINT);
  g_test_message("path = %g on the four-bar", v);
  break_four_bar(w);
  g_assert_null(lw_sens_panel_get_result(sp));
  assert_cannot_run(lw_sens_panel_get_status(sp), compute_button(sp));
  /* the reason is the model's */
  g_assert_nonnull(strstr(lw_sens_panel_get_status(sp), "assembled"));
  lwt_show_page(w, "sensitivity");
  shot(w, "sensitivity-cannot-run");
  lw_sens_panel_run(sp);
  lwt_await(lwt_sens_idle, sp, 120);
  g_assert_null(lw_sens_panel_get_result(sp));
  g_assert_nonnull(strstr(lw_sens_panel_get_status(sp), "cannot run"));
  /* Undo: runnable again, Compute back */
  lwt_act(w, "undo");
  lwt_await(has_runner, w, LWT_WAIT);
  g_assert_nonnull(lw_window_get_runner(w));
  g_assert_true(gtk_widget_get_sensitive(compute_button(sp)));
  g_assert_cmpfloat(compute(sp, "path", LW_SENS_ADJOINT), ==, v);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a gradient that arrives after the model was edited is not shown for the
 * edited model; the page is free at once for the new model */
static void test_stale_gradient(void)
{
  LwWindow *w = new_window();
  g_assert_true(lw_window_open_example(w, "four-bar"));
  LwSensPanel *sp = sens_of(w);
  lwt_show_page(w, "sensitivity");
  gint64 t0 = g_get_monotonic_time();
  compute(sp, "path", LW_SENS_FORWARD);
  double took = (g_get_monotonic_time() - t0) * 1e-6;
  /* edited while the worker computes: a model that cannot run */
  lw_sens_panel_run(sp);
  g_assert_true(lw_sens_panel_is_busy(sp));
  break_four_bar(w);
  g_assert_false(lw_sens_panel_is_busy(sp));
  lwt_spin(2 * took + 0.5); /* the worker has finished by now */
  g_assert_null(lw_sens_panel_get_result(sp));
  g_assert_nonnull(strstr(lw_sens_panel_get_status(sp), "cannot run"));
  lwt_act(w, "undo");
  lwt_await(has_runner, w, LWT_WAIT);

  /* edited while the worker computes: a model that runs (a heavier crank) */
  lw_sens_panel_run(sp);
  g_assert_true(lw_sens_panel_is_busy(sp));
  lw_desc *d = lw_desc_copy(lw_window_get_desc(w));
  for (int j = 0; j < d->nparams; j++)
    if (!strcmp(d->params[j].name, "crank_mass"))
      d->params[j].value *= 2;
  g_assert_true(lw_window_open_document(w, d, "heavier"));
  /* free for the new model at once, with no claim of a kept result */
  g_assert_false(lw_sens_panel_is_busy(sp));
  lwt_spin(2 * took + 0.5);
  g_assert_null(lw_sens_panel_get_result(sp));
  g_assert_null(strstr(lw_sens_panel_get_status(sp), "previous result is kept"));
  g_assert_false(lw_sens_panel_is_busy(sp));
  /* and the new model's gradient differs from the old one's */
  double v = compute(sp, "path", LW_SENS_FORWARD);
  g_test_message("path = %g with the heavier crank", v);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* an optimization that ends after the model was edited is not shown */
static void test_stale_optimization(void)
{
  LwWindow *w = new_window();
  LwOptPanel *op = opt_of(w);
  lwt_show_page(w, "optimization");
  lw_opt_panel_run(op);
  g_assert_true(lw_opt_panel_is_busy(op));
  lw_desc *d = lw_desc_copy(lw_window_get_desc(w));
  /* a link of the five-bar 10 m longer: it cannot assemble */
  *lw_desc_field(d, "bodies/B12/points/end/0") += 10;
  g_assert_false(lw_window_open_document(w, d, "broken"));
  g_assert_false(lw_opt_panel_is_busy(op));
  lwt_spin(3.0);
  g_assert_null(lw_opt_panel_get_result(op));
  assert_cannot_run(lw_opt_panel_get_status(op), optimize_button(op));
  gtk_window_destroy(GTK_WINDOW(w));
}

typedef struct {
  LwPlot *plot;
  const char *old;
} label_wait;

static gboolean label_changed(gpointer p)
{
  label_wait *lw = p;
  const char *now = lw_plot_get_y_label(lw->plot);
  return now == NULL || strcmp(now, lw->old) != 0;
}

/* the sensitivity plot's axis label is not the previous model's */
static void test_axis_label(void)
{
  LwWindow *w = new_window();
  LwSensPanel *sp = sens_of(w);
  lwt_show_page(w, "sensitivity");
  compute(sp, "psi2", LW_SENS_FORWARD);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(lwt_find_widget(GTK_WIDGET(sp), is_plot_view, NULL)));
  g_autofree char *old = g_strdup(lw_plot_get_y_label(plot));
  g_test_message("five-bar label: %s", old);
  g_assert_nonnull(old);
  g_assert_true(lw_window_open_example(w, "pendulum"));
  label_wait lw = {plot, old};
  lwt_await(label_changed, &lw, LWT_WAIT);
  const char *now = lw_plot_get_y_label(plot);
  g_test_message("pendulum label: %s", now ? now : "(none)");
  g_assert_true(now == NULL || strcmp(now, old) != 0);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* the five-bar's optimum makes psi1 0 to round-off (about 1e-18 of 0.73): 0 is shown */
static void test_roundoff_zero(void)
{
  LwWindow *w = new_window();
  LwOptPanel *op = opt_of(w);
  lwt_show_page(w, "optimization");
  lw_opt_panel_run(op);
  lwt_await(lwt_opt_idle, op, 120);
  const lw_opt_result *r = lw_opt_panel_get_result(op);
  g_assert_nonnull(r);
  g_test_message("f0 = %g, f = %g; %s", r->f0, r->f, lw_opt_panel_get_status(op));
  g_assert_cmpfloat(fabs(r->f), <=, 1e-12 * fabs(r->f0));
  g_assert_null(strstr(lw_opt_panel_get_status(op), "e-1"));
  g_assert_nonnull(strstr(lw_opt_panel_get_status(op), " to 0."));
  /* the result's objective row: initial → 0 */
  GtkWidget *l = lwt_find_widget(GTK_WIDGET(op), is_label_with, "→");
  g_assert_nonnull(l);
  g_test_message("objective row: %s", gtk_label_get_text(GTK_LABEL(l)));
  g_assert_true(g_str_has_suffix(gtk_label_get_text(GTK_LABEL(l)), "→ 0"));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a wheel notch over plot view pv (no Ctrl): whether the view took it */
static gboolean wheel_zooms(GtkWidget *pv)
{
  g_assert_nonnull(pv);
  GListModel *ctrls = gtk_widget_observe_controllers(pv);
  GtkEventController *scroll = NULL;
  for (guint i = 0; i < g_list_model_get_n_items(ctrls) && !scroll; i++) {
    GtkEventController *c = g_list_model_get_item(ctrls, i);
    if (GTK_IS_EVENT_CONTROLLER_SCROLL(c))
      scroll = c;
    g_object_unref(c);
  }
  g_object_unref(ctrls);
  g_assert_nonnull(scroll);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(pv));
  double a[4], b[4];
  lw_plot_get_view(plot, &a[0], &a[1], &a[2], &a[3]);
  gboolean handled = TRUE;
  g_signal_emit_by_name(scroll, "scroll", 0.0, 1.0, &handled);
  lw_plot_get_view(plot, &b[0], &b[1], &b[2], &b[3]);
  gboolean moved = FALSE;
  for (int i = 0; i < 4; i++)
    moved |= a[i] != b[i];
  return handled || moved;
}

/* the wheel over the convergence plot is the page's (scrolling), Ctrl+wheel zooms */
static void test_plot_wheel(void)
{
  LwWindow *w = new_window();
  lwt_show_page(w, "optimization");
  g_assert_false(wheel_zooms(lwt_find_widget(lw_window_get_opt_panel(w), is_plot_view, NULL)));
  /* the same on the Sensitivity page */
  g_assert_false(wheel_zooms(lwt_find_widget(lw_window_get_sens_panel(w), is_plot_view, NULL)));
  gtk_window_destroy(GTK_WINDOW(w));
}

static guint plotted_series(LwPlotPage *page)
{
  LwPlotView *v = LW_PLOT_VIEW(lw_plot_page_get_current_view(page));
  return lw_plot_get_n_series(lw_plot_view_get_plot(v));
}

/* the Plots page offers and shows only the model on screen: an edit that
 * leaves it unable to run empties the chooser and the plots (nothing of
 * the old geometry stays plotted), Undo brings them back */
static void test_plots_stale(void)
{
  LwWindow *w = new_window();
  g_assert_true(lw_window_open_example(w, "four-bar"));
  LwPlotPage *page = LW_PLOT_PAGE(lw_window_get_plot_page(w));
  lwt_show_page(w, "plots");
  g_assert_true(lw_plot_page_choose(page, "D.q", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, FALSE));
  g_assert_cmpuint(plotted_series(page), >, 0);
  g_auto(GStrv) groups = lw_plot_page_dup_groups(page);
  g_assert_cmpuint(g_strv_length(groups), >, 0);
  break_four_bar(w);
  lwt_show_page(w, "plots");
  g_auto(GStrv) none = lw_plot_page_dup_groups(page);
  g_assert_cmpuint(g_strv_length(none), ==, 0);
  g_assert_false(lw_plot_page_choose(page, "D.q", "time"));
  g_assert_cmpuint(plotted_series(page), ==, 0);
  g_assert_cmpuint(lw_plot_page_get_n_plots(page), ==, 1);
  lwt_act(w, "undo");
  lwt_await(has_runner, w, LWT_WAIT);
  g_auto(GStrv) back = lw_plot_page_dup_groups(page);
  g_assert_cmpuint(g_strv_length(back), ==, g_strv_length(groups));
  g_assert_true(lw_plot_page_choose(page, "D.q", "time"));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a page not on screen leaves its rows alone on an edit and brings them up
 * to date when it is shown (or asked): an edit pays only for what is seen */
static void test_follow_when_shown(void)
{
  LwWindow *w = new_window();
  LwSensPanel *sp = sens_of(w);
  LwOptPanel *op = opt_of(w);
  lwt_show_page(w, "sensitivity");
  GtkWidget *ls1 = lwt_find_widget(GTK_WIDGET(sp), is_row_titled, "Ls1");
  g_assert_nonnull(ls1);
  lwt_show_page(w, "plots");
  g_assert_false(gtk_widget_get_mapped(GTK_WIDGET(sp)));
  g_assert_false(gtk_widget_get_mapped(GTK_WIDGET(op)));
  lwt_act(w, "new");
  lwt_await(model_empty, w, LWT_WAIT);
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 0);
  /* off screen: the old rows are still there, nothing rebuilt */
  g_assert_true(lwt_find_widget(GTK_WIDGET(sp), is_row_titled, "Ls1") == ls1);
  g_assert_null(lw_sens_panel_get_result(sp));
  /* shown: the new (empty) model's rows */
  lwt_show_page(w, "sensitivity");
  g_assert_null(lwt_find_widget(GTK_WIDGET(sp), is_row_titled, "Ls1"));
  g_assert_cmpuint(n_objectives(sp), ==, 0);
  assert_cannot_run(lw_sens_panel_get_status(sp), compute_button(sp));
  /* asked without being shown: the status is the model's on screen */
  assert_cannot_run(lw_opt_panel_get_status(op), optimize_button(op));
  /* Undo brings the five-bar back; shown again, its rows are back */
  lwt_act(w, "undo");
  lwt_await(ls1_listed, sp, LWT_WAIT);
  g_assert_nonnull(lwt_find_widget(GTK_WIDGET(sp), is_row_titled, "Ls1"));
  g_assert_cmpuint(n_objectives(sp), >, 0);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a model of 601 parameters: what the panels do on every edit stays cheap */
static void test_set_desc_cost(void)
{
  LwWindow *w = new_window();
  g_assert_true(lw_window_open_example(w, "cart-pendulum"));
  lwt_settle(30); /* the first layout of hundreds of rows */
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nparams, >=, 601);
  lwt_show_page(w, "sensitivity");
  shot(w, "sensitivity-601-parameters");
  double best_s = HUGE_VAL, best_o = HUGE_VAL;
  for (int page = 0; page < 2; page++) {
    lwt_show_page(w, page ? "optimization" : "sensitivity");
    for (int k = 0; k < 5; k++) {
      gint64 t0 = g_get_monotonic_time();
      lw_sens_panel_set_desc(sens_of(w), d);
      gint64 t1 = g_get_monotonic_time();
      lw_opt_panel_set_desc(opt_of(w), d);
      gint64 t2 = g_get_monotonic_time();
      best_s = fmin(best_s, (t1 - t0) * 1e-3);
      best_o = fmin(best_o, (t2 - t1) * 1e-3);
      lwt_spin(0.05);
    }
  }
  /* the array is one row; its elements are built when it is opened, and
   * leaving one out leaves the array's check inconsistent */
  LwSensPanel *sp = sens_of(w);
  GtkWidget *arr = lwt_find_widget(GTK_WIDGET(sp), is_row_titled, "u[0] … u[600]");
  g_assert_true(ADW_IS_EXPANDER_ROW(arr));
  g_assert_null(lwt_find_widget(arr, is_row_titled, "u[7]"));
  adw_expander_row_set_expanded(ADW_EXPANDER_ROW(arr), TRUE);
  GtkWidget *u7 = lwt_find_widget(arr, is_row_titled, "u[7]");
  g_assert_nonnull(u7);
  GtkWidget *c7 = adw_action_row_get_activatable_widget(ADW_ACTION_ROW(u7));
  g_assert_true(gtk_check_button_get_active(GTK_CHECK_BUTTON(c7)));
  gtk_check_button_set_active(GTK_CHECK_BUTTON(c7), FALSE);
  GtkWidget *all = lwt_find_widget(arr, is_check, NULL); /* the header's, before the elements' */
  g_assert_nonnull(all);
  g_assert_true(gtk_check_button_get_inconsistent(GTK_CHECK_BUTTON(all)));
  /* an edit keeps the choice */
  lw_sens_panel_set_desc(sp, d);
  arr = lwt_find_widget(GTK_WIDGET(sp), is_row_titled, "u[0] … u[600]");
  all = lwt_find_widget(arr, is_check, NULL);
  g_assert_true(gtk_check_button_get_inconsistent(GTK_CHECK_BUTTON(all)));
  adw_expander_row_set_expanded(ADW_EXPANDER_ROW(arr), TRUE);
  c7 = adw_action_row_get_activatable_widget(ADW_ACTION_ROW(lwt_find_widget(arr, is_row_titled, "u[7]")));
  g_assert_false(gtk_check_button_get_active(GTK_CHECK_BUTTON(c7)));
  gtk_check_button_set_active(GTK_CHECK_BUTTON(all), TRUE);
  g_assert_true(gtk_check_button_get_active(GTK_CHECK_BUTTON(c7)));
  g_assert_false(gtk_check_button_get_inconsistent(GTK_CHECK_BUTTON(all)));
  g_test_message("cart-pendulum (%d parameters): sensitivity set_desc %.2f ms, optimization %.2f ms (best of 10)",
                 d->nparams, best_s, best_o);
  /* the times are for the record (a test does not time: under the
   * sanitizers or a busy machine they say nothing); what makes them small
   * is asserted above: the array is one row, built when opened */
  /* a whole edit (the property page, the window, both panels), for the record
   * (the description d is the window's and goes with the first edit) */
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_is_mapped, lw_window_get_editor(w), LWT_WAIT);
  lwt_pick(w, "bodies/cart");
  LwPropEditor *pe = LW_PROP_EDITOR(lw_window_get_prop_editor(w));
  double best_edit = HUGE_VAL;
  for (int k = 0; k < 4; k++) {
    gint64 t0 = g_get_monotonic_time();
    g_assert_true(lw_prop_editor_enter(pe, "bodies/cart/mass", k % 2 ? "1" : "1.5"));
    best_edit = fmin(best_edit, (g_get_monotonic_time() - t0) * 1e-3);
    lwt_spin(0.1);
  }
  g_test_message("cart-pendulum: a whole edit (Enter in the property page) %.2f ms (best of 4)", best_edit);
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
  g_test_add_func("/panels/new-model", test_new_model);
  g_test_add_func("/panels/follow-when-shown", test_follow_when_shown);
  g_test_add_func("/panels/unrunnable-edit", test_unrunnable_edit);
  g_test_add_func("/panels/plots-stale", test_plots_stale);
  g_test_add_func("/panels/stale-gradient", test_stale_gradient);
  g_test_add_func("/panels/stale-optimization", test_stale_optimization);
  g_test_add_func("/panels/axis-label", test_axis_label);
  g_test_add_func("/panels/roundoff-zero", test_roundoff_zero);
  g_test_add_func("/panels/plot-wheel", test_plot_wheel);
  g_test_add_func("/panels/set-desc-cost", test_set_desc_cost);
  int rc = g_test_run();
  g_object_unref(app);
  return rc;
}
