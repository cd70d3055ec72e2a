/* Joint friction and events in the application window (needs a display: the
 * test command starts Xvfb).  Each feature is driven through its widgets:
 *  1. friction in the property page: the switch and the law's parameters
 *     with units, refused values, undo and redo, saved to the file;
 *  2. the comparison run without friction: a dashed twin of each plotted
 *     series, in its colour, with the closed-form frictionless motion;
 *  3. a joint its friction holds drawn in the sticking colour (cyan) in the 3-D
 *     view (pixels of a rendered frame), and not while it slips;
 *  4. events: the contact line and the joint limit drawn in the view, the
 *     event log as a list whose row moves the scrubber to the event, the
 *     events marked on the plots against time and on the time scale;
 *  5. the friction outputs' names in the plot chooser, as translated labels.
 * Screenshots go to LW_SCREENSHOT_DIR/app-fe (or the build directory). */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lw-application.h"
#include "lw-event-list.h"
#include "lw-inspector.h"
#include "lw-plot-page.h"
#include "lw-plot-view.h"
#include "lw-plot.h"
#include "lw-prop-editor.h"
#include "lw-view3d.h"
#include "lw-window.h"
#include "lw_io.h"

#define INCLINE LW_SOURCE_ROOT "/tests/data/friction-incline.json"
#define BALL LW_MODELS_DIR "/bouncing-ball.json"
#define G 9.81
#define THETA 0.1

static LwApplication *app;
static char *tmp_dir;

/* ---- helpers ------------------------------------------------------------------ */
static gboolean not_comparing(gpointer w)
{
  return !lw_window_get_comparing(LW_WINDOW(w));
}

/* a copy of a model file in the test's directory, opened in a new window */
static LwWindow *window_on(const char *src, const char *stem, char **path_out)
{
  g_autofree char *file = g_strdup_printf("%s.json", stem);
  char *path = g_build_filename(tmp_dir, file, NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(src, &text, &len, NULL));
  g_assert_true(g_file_set_contents(path, text, (gssize)len, NULL));
  LwWindow *w = lw_window_new(app);
  gtk_window_set_default_size(GTK_WINDOW(w), 1300, 850);
  g_autoptr(GFile) gf = g_file_new_for_path(path);
  g_assert_true(lw_window_open_file(w, gf));
  gtk_window_present(GTK_WINDOW(w));
  g_assert_true(lwt_wait_until(lwt_is_mapped, w, 10));
  lwt_settle(10);
  if (path_out)
    *path_out = path;
  else
    g_free(path);
  return w;
}

/* the whole run, as fast as it goes */
static void run_to_end(LwWindow *w)
{
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  lwt_act(w, "run");
  g_assert_true(lwt_wait_until(lwt_runner_idle, w, 60));
  lwt_settle(3);
}

static GtkWidget *find_widget(GtkWidget *root, gboolean (*match)(GtkWidget *, gconstpointer), gconstpointer data)
{
  if (match(root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = find_widget(c, match, data);
    if (f)
      return f;
  }
  return NULL;
}

static gboolean is_switch_of(GtkWidget *w, gconstpointer path)
{
  return GTK_IS_SWITCH(w) && !g_strcmp0(g_object_get_data(G_OBJECT(w), "path"), path) && gtk_widget_get_mapped(w);
}

static gboolean is_time_scale(GtkWidget *w, gconstpointer adj)
{
  return GTK_IS_SCALE(w) && gtk_range_get_adjustment(GTK_RANGE(w)) == adj;
}

static int count_css(GtkWidget *root, const char *name)
{
  int n = !strcmp(gtk_widget_get_css_name(root), name);
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c))
    n += count_css(c, name);
  return n;
}

/* type text into a field of the property page and press Enter, as a user */
static void type_into(LwWindow *w, const char *path, const char *text)
{
  GtkWidget *e = lw_prop_editor_get_entry(lwt_props_of(w), path);
  g_assert_nonnull(e);
  gtk_editable_set_text(GTK_EDITABLE(e), text);
  g_signal_emit_by_name(e, "activate");
  lwt_settle(2);
}

static const lw_joint_desc *slide_of(LwWindow *w)
{
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->njoints, ==, 1);
  return &d->joints[0];
}

static LwPlot *plot_n(LwWindow *w, guint i)
{
  LwPlotPage *page = LW_PLOT_PAGE(lw_window_get_plot_page(w));
  return lw_plot_view_get_plot(LW_PLOT_VIEW(lw_plot_page_get_plot_view(page, i)));
}

static gboolean is_cyan(const guint8 *q)
{
  /* the sticking colour: green and blue alike, well above red (not the
   * blue of a body, whose blue is far above its green) */
  return q[1] > q[0] + 80 && q[2] > q[0] + 80 && abs((int)q[1] - (int)q[2]) < 40;
}

static gboolean is_mark_brown(const guint8 *q)
{
  /* the marks' grey-brown, lit: red over green over blue, but not the
   * ball's orange (red far above green) */
  return q[0] > 80 && q[0] > q[1] + 12 && q[1] > q[2] + 15 && q[0] < q[1] + 45;
}

/* pixels of a colour in the 3-D view's part of a screenshot */
static int view_pixels(const char *png, LwWindow *w, gboolean (*match)(const guint8 *))
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new_from_file(png, &error);
  g_assert_no_error(error);
  GtkWidget *view = lw_window_get_view(w);
  graphene_rect_t r;
  g_assert_true(gtk_widget_compute_bounds(view, GTK_WIDGET(w), &r));
  int nc = gdk_pixbuf_get_n_channels(pb), rs = gdk_pixbuf_get_rowstride(pb);
  int W = gdk_pixbuf_get_width(pb), H = gdk_pixbuf_get_height(pb);
  double sx = (double)W / gtk_widget_get_width(GTK_WIDGET(w)), sy = (double)H / gtk_widget_get_height(GTK_WIDGET(w));
  const guint8 *px = gdk_pixbuf_read_pixels(pb);
  int n = 0;
  for (int y = (int)(r.origin.y * sy); y < (int)((r.origin.y + r.size.height) * sy) && y < H; y++)
    for (int x = (int)(r.origin.x * sx); x < (int)((r.origin.x + r.size.width) * sx) && x < W; x++) {
      n += match(px + y * rs + x * nc);
    }
  return n;
}

/* ---- 1. friction in the property page ------------------------------------------- */
static void test_friction_inspector(void)
{
  g_autofree char *path = NULL;
  LwWindow *w = window_on(INCLINE, "incline", &path);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(TRUE));
  lwt_settle(5);
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("inspector"));
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), "joints/slide");
  lwt_settle(5);
  g_assert_cmpstr(lw_prop_editor_get_selection(lwt_props_of(w)), ==, "joints/slide");
  GtkWidget *sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, "joints/slide/friction");
  g_assert_nonnull(sw);
  g_assert_true(gtk_switch_get_active(GTK_SWITCH(sw)));
  /* every parameter of the format with its unit */
  static const struct { const char *field, *unit; } units[] = {
    {"mu_s", ""}, {"mu_d", ""}, {"v_t", "m/s"}, {"viscous", "N·s/m"}, {"length", "m"}, {"offset", "m"},
    {"width", "m"}, {"radius", "m"}, {"preload", "N"}, {"eps", "N"}};
  for (gsize i = 0; i < G_N_ELEMENTS(units); i++) {
    g_autofree char *p = g_strdup_printf("joints/slide/friction/%s", units[i].field);
    g_assert_nonnull(lw_prop_editor_get_entry(lwt_props_of(w), p));
    const char *u = lw_prop_editor_get_unit(lwt_props_of(w), p);
    g_test_message("%s: '%s' shown in %s", p, lw_prop_editor_get_text(lwt_props_of(w), p), u);
    if (*units[i].unit)
      g_assert_true(u && *u);
  }
  g_assert_cmpstr(lw_prop_editor_get_text(lwt_props_of(w), "joints/slide/friction/mu_s"), ==, "0.4");
  lw_prop_editor_scroll_to_end(lwt_props_of(w));
  lw_view3d_redraw(LW_VIEW3D(lw_window_get_view(w)));
  g_autofree char *incline_shot = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "friction-inspector");
  /* editing too, the view draws the slide's end stop */
  int stop_px = view_pixels(incline_shot, w, is_mark_brown);
  g_test_message("the end stop's colour in the editing view: %d pixels", stop_px);
  g_assert_cmpint(stop_px, >, 200);

  /* values with units; a bad one refused with the reason, the model kept */
  guint depth0 = lw_window_get_undo_depth(w);
  type_into(w, "joints/slide/friction/mu_s", "0.5");
  g_assert_cmpfloat(slide_of(w)->friction[0], ==, 0.5);
  type_into(w, "joints/slide/friction/v_t", "2 cm/s");
  g_assert_cmpfloat(fabs(slide_of(w)->friction[2] - 0.02), <, 1e-15);
  type_into(w, "joints/slide/friction/length", "-1");
  g_assert_nonnull(lw_prop_editor_get_error(lwt_props_of(w), "joints/slide/friction/length"));
  g_test_message("refused: %s", lw_prop_editor_get_error(lwt_props_of(w), "joints/slide/friction/length"));
  g_assert_cmpfloat(slide_of(w)->friction[4], ==, 0.05);
  g_assert_cmpuint(lw_window_get_undo_depth(w), ==, depth0 + 2);
  /* undo and redo */
  lwt_act(w, "undo");
  lwt_settle(2);
  g_assert_cmpfloat(slide_of(w)->friction[2], ==, 0.01);
  lwt_act(w, "undo");
  lwt_settle(2);
  g_assert_cmpfloat(slide_of(w)->friction[0], ==, 0.4);
  lwt_act(w, "redo");
  lwt_act(w, "redo");
  lwt_settle(2);
  g_assert_cmpfloat(slide_of(w)->friction[0], ==, 0.5);
  g_assert_cmpfloat(fabs(slide_of(w)->friction[2] - 0.02), <, 1e-15);
  g_assert_cmpstr(lw_prop_editor_get_text(lwt_props_of(w), "joints/slide/friction/mu_s"), ==, "0.5");

  /* saved to the file */
  g_autoptr(GFile) gf = g_file_new_for_path(path);
  g_assert_true(lw_window_save_to_file(w, gf));
  lw_error err;
  lw_desc *saved = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(saved);
  g_assert_true(saved->joints[0].has_friction);
  g_assert_cmpfloat(saved->joints[0].friction[0], ==, 0.5);
  g_assert_cmpfloat(fabs(saved->joints[0].friction[2] - 0.02), <, 1e-15);
  lw_desc_free(saved);

  /* the switch: off takes the fields away, undo brings friction back as it was */
  sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, "joints/slide/friction");
  gtk_switch_set_active(GTK_SWITCH(sw), FALSE);
  lwt_settle(3);
  g_assert_false(slide_of(w)->has_friction);
  g_assert_null(lw_prop_editor_get_entry(lwt_props_of(w), "joints/slide/friction/mu_s"));
  g_assert_true(lw_window_get_modified(w));
  g_assert_true(lw_window_save_to_file(w, gf));
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_assert_null(strstr(text, "\"friction\""));
  lwt_act(w, "undo");
  lwt_settle(3);
  g_assert_true(slide_of(w)->has_friction);
  g_assert_cmpfloat(slide_of(w)->friction[0], ==, 0.5);
  sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, "joints/slide/friction");
  g_assert_nonnull(sw);
  g_assert_true(gtk_switch_get_active(GTK_SWITCH(sw)));
  /* off and on again: the values come back, not the defaults */
  gtk_switch_set_active(GTK_SWITCH(sw), FALSE);
  lwt_settle(3);
  sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, "joints/slide/friction");
  gtk_switch_set_active(GTK_SWITCH(sw), TRUE);
  lwt_settle(3);
  g_assert_true(slide_of(w)->has_friction);
  g_assert_cmpfloat(slide_of(w)->friction[0], ==, 0.5);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* a joint with no friction yet takes the defaults; a parameter bound to a
 * friction field keeps the switch on, with the reason */
static void test_friction_switch_guards(void)
{
  lw_desc *d = lwt_read("pendulum.json");
  g_assert_false(d->joints[0].has_friction);
  g_autofree char *path = g_build_filename(tmp_dir, "pend.json", NULL);
  g_assert_true(lw_model_write_file(d, path, NULL));
  const char *jname = d->joints[0].name;
  g_autofree char *jpath = g_strdup_printf("joints/%s", jname);
  g_autofree char *swpath = g_strdup_printf("joints/%s/friction", jname);
  g_autofree char *mupath = g_strdup_printf("joints/%s/friction/mu_s", jname);
  lw_desc_free(d);
  LwWindow *w = window_on(path, "pend2", NULL);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(TRUE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("inspector"));
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), jpath);
  lwt_settle(5);
  GtkWidget *sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, swpath);
  g_assert_nonnull(sw);
  g_assert_false(gtk_switch_get_active(GTK_SWITCH(sw)));
  g_assert_false(g_action_group_get_action_enabled(G_ACTION_GROUP(w), "compare-friction"));
  gtk_switch_set_active(GTK_SWITCH(sw), TRUE);
  lwt_settle(3);
  const lw_joint_desc *j = &lw_window_get_desc(w)->joints[0];
  g_assert_true(j->has_friction);
  g_assert_cmpfloat(j->friction[0], ==, 0.4);
  g_assert_cmpfloat(j->friction[1], ==, 0.3);
  g_assert_true(g_action_group_get_action_enabled(G_ACTION_GROUP(w), "compare-friction"));
  /* bind mu_s to a parameter: switching off would leave it unbound */
  g_assert_true(lw_prop_editor_make_parameter(lwt_props_of(w), mupath));
  lwt_settle(3);
  sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, swpath);
  gtk_switch_set_active(GTK_SWITCH(sw), FALSE);
  lwt_settle(3);
  g_assert_true(lw_window_get_desc(w)->joints[0].has_friction);
  sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, swpath);
  g_assert_true(gtk_switch_get_active(GTK_SWITCH(sw)));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* ---- 2. the comparison run -------------------------------------------------------- */
static void test_compare(void)
{
  LwWindow *w = window_on(INCLINE, "incline-cmp", NULL);
  g_assert_true(g_action_group_get_action_enabled(G_ACTION_GROUP(w), "compare-friction"));
  run_to_end(w);
  LwPlotPage *page = LW_PLOT_PAGE(lw_window_get_plot_page(w));
  LwPlot *p = plot_n(w, 0);
  g_assert_cmpuint(lw_plot_get_n_series(p), ==, 1);
  g_assert_cmpstr(lw_plot_series_get_name(p, 0), ==, "x");
  lwt_act(w, "compare-friction");
  g_assert_true(lwt_wait_until(not_comparing, w, 60));
  lwt_settle(2);
  g_assert_true(lw_plot_page_has_comparison(page));
  g_assert_cmpuint(lw_plot_get_n_series(p), ==, 2);
  g_assert_cmpstr(lw_plot_series_get_name(p, 1), ==, "x (without friction)");
  g_assert_true(lw_plot_series_get_dashed(p, 1));
  g_assert_false(lw_plot_series_get_dashed(p, 0));
  LwPlotColor c0 = lw_plot_series_get_color(p, 0), c1 = lw_plot_series_get_color(p, 1);
  g_assert_true(c0.red == c1.red && c0.green == c1.green && c0.blue == c1.blue);
  /* the dashed curve is the frictionless motion: x = v0 t - g sin(theta) t^2 / 2
   * until the end stop at -0.5 m; the solid one stopped near -0.258 m */
  gsize n = lw_plot_series_get_n_points(p, 1);
  const double *t = lw_plot_series_get_x(p, 1), *x = lw_plot_series_get_y(p, 1);
  double worst = 0;
  int checked = 0;
  for (gsize k = 0; k < n && t[k] < 0.35; k++, checked++)
    worst = fmax(worst, fabs(x[k] - (-t[k] - 0.5 * G * sin(THETA) * t[k] * t[k])));
  g_test_message("without friction, %d points up to 0.35 s: max |x - closed form| %.3g m", checked, worst);
  g_assert_cmpint(checked, >, 300);
  g_assert_cmpfloat(worst, <, 1e-6);
  gsize nf = lw_plot_series_get_n_points(p, 0);
  g_assert_cmpfloat(fabs(lw_plot_series_get_y(p, 0)[nf - 1] + 0.2579), <, 2e-3);
  /* a series added later gets its twin; a friction output has none */
  g_assert_true(lw_plot_page_choose(page, "v", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, TRUE));
  LwPlot *p1 = plot_n(w, 1);
  g_assert_cmpuint(lw_plot_get_n_series(p1), ==, 2);
  g_assert_true(lw_plot_series_get_dashed(p1, 1));
  g_assert_true(lw_plot_page_choose(page, "slide: slip speed", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, TRUE));
  g_assert_cmpuint(lw_plot_get_n_series(plot_n(w, 2)), ==, 1);
  g_autofree char *png = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "compare-without-friction");
  /* a model without friction offers no comparison */
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
  w = window_on(BALL, "ball-nocmp", NULL);
  g_assert_false(g_action_group_get_action_enabled(G_ACTION_GROUP(w), "compare-friction"));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* ---- 3. sticking joints ------------------------------------------------------------- */
static void scrub_to(LwWindow *w, double t)
{
  gtk_adjustment_set_value(lw_window_get_time_adjustment(w), t);
  lwt_settle(2);
  lw_view3d_redraw(LW_VIEW3D(lw_window_get_view(w)));
  lwt_settle(2);
}

static void test_sticking(void)
{
  LwWindow *w = window_on(INCLINE, "incline-stick", NULL);
  run_to_end(w);
  scrub_to(w, 0.2); /* sliding at 0.6 m/s */
  g_assert_false(lw_window_get_joint_sticking(w, 0));
  g_autofree char *slip_png = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "sliding");
  int slipping = view_pixels(slip_png, w, is_cyan);
  scrub_to(w, 1.2); /* held: creeping at 0.75 mm/s < v_t = 1 cm/s */
  g_assert_true(lw_window_get_joint_sticking(w, 0));
  g_autofree char *stick_png = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "sticking");
  int sticking = view_pixels(stick_png, w, is_cyan);
  g_test_message("sticking-colour pixels in the view: %d sliding, %d sticking", slipping, sticking);
  g_assert_cmpint(slipping, <, 5);
  g_assert_cmpint(sticking, >, 50);
  /* a model without friction never sticks */
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* ---- 4. events ---------------------------------------------------------------------- */
static void test_events(void)
{
  static const double impacts[] = {0.451523640986, 1.173961466563, 1.751911727025};
  LwWindow *w = window_on(BALL, "ball", NULL);
  LwEventList *list = LW_EVENT_LIST(lw_window_get_event_list(w));
  g_assert_cmpint(lw_window_get_n_marks(w), ==, 1); /* the floor */
  g_assert_cmpuint(lw_event_list_get_n_rows(list), ==, 0);
  run_to_end(w);
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("events"));
  lwt_settle(2);
  guint n = lw_event_list_get_n_rows(list);
  g_assert_cmpuint(n, ==, 3);
  for (guint k = 0; k < n; k++) {
    g_autofree char *row = lw_event_list_dup_row_text(list, k);
    g_test_message("event row %u: %s", k, row);
    g_assert_cmpfloat(fabs(lw_event_list_get_row_time(list, k) - impacts[k]), <, 1e-9);
    g_assert_nonnull(strstr(row, "floor (contact)"));
    g_assert_nonnull(strstr(row, "impact"));
  }
  /* the first impact: from rest at 1 m, v = -sqrt(2 g), then -0.8 of it */
  g_autofree char *row0 = lw_event_list_dup_row_text(list, 0);
  g_assert_nonnull(strstr(row0, "-4.429"));
  g_assert_nonnull(strstr(row0, "+3.544"));
  /* a click on a row: the scrubber at the event, the frame shown from just before it */
  GtkAdjustment *adj = lw_window_get_time_adjustment(w);
  gtk_widget_activate(lw_event_list_get_row(list, 1));
  lwt_settle(2);
  g_assert_cmpfloat(gtk_adjustment_get_value(adj), ==, lw_event_list_get_row_time(list, 1));
  double shown = lw_window_get_shown_time(w);
  g_test_message("row 1 clicked: scale at %.12g s, frame shown at %.12g s", gtk_adjustment_get_value(adj), shown);
  g_assert_cmpfloat(shown, <=, impacts[1]);
  g_assert_cmpfloat(shown, >, impacts[1] - 0.001 - 1e-9);
  /* marks: every plot against time, and the time scale */
  LwPlot *p = plot_n(w, 0);
  g_assert_cmpuint(lw_plot_get_n_marks(p), ==, 3);
  for (guint k = 0; k < 3; k++)
    g_assert_cmpfloat(fabs(lw_plot_get_mark(p, k) - impacts[k]), <, 1e-9);
  LwPlotPage *page = LW_PLOT_PAGE(lw_window_get_plot_page(w));
  g_assert_true(lw_plot_page_choose(page, "energy", "time"));
  g_assert_true(lw_plot_page_add_chosen(page, TRUE));
  g_assert_cmpuint(lw_plot_get_n_marks(plot_n(w, 1)), ==, 3);
  g_assert_true(lw_plot_page_choose(page, "centre.y", "centre.x"));
  g_assert_true(lw_plot_page_add_chosen(page, TRUE));
  g_assert_cmpuint(lw_plot_get_n_marks(plot_n(w, 2)), ==, 0); /* not against time */
  g_assert_true(isnan(lw_plot_get_cursor(plot_n(w, 2))));      /* nor the time cursor */
  GtkWidget *scale = find_widget(GTK_WIDGET(w), is_time_scale, adj);
  g_assert_nonnull(scale);
  g_assert_cmpint(count_css(scale, "mark"), ==, 3);
  lw_view3d_redraw(LW_VIEW3D(lw_window_get_view(w)));
  g_autofree char *png = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "events-log");
  int floor_px = view_pixels(png, w, is_mark_brown);
  g_test_message("the floor's colour in the view: %d pixels", floor_px);
  g_assert_cmpint(floor_px, >, 500);
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("plots"));
  g_autofree char *png2 = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "events-plots");
  /* Reset: no events yet, no marks */
  lwt_act(w, "reset");
  lwt_settle(2);
  g_assert_cmpuint(lw_event_list_get_n_rows(list), ==, 0);
  g_assert_cmpuint(lw_plot_get_n_marks(plot_n(w, 0)), ==, 0);
  g_assert_cmpint(count_css(scale, "mark"), ==, 0);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* the joint limit of the incline is drawn; a model without events has none */
static void test_limit_mark(void)
{
  LwWindow *w = window_on(INCLINE, "incline-limit", NULL);
  g_assert_cmpint(lw_window_get_n_marks(w), ==, 1);
  g_autofree char *png = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "limit-mark");
  int limit_px = view_pixels(png, w, is_mark_brown);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
  /* a model without events has no marks */
  w = window_on(LW_MODELS_DIR "/pendulum.json", "pend-nomark", NULL);
  g_assert_cmpint(lw_window_get_n_marks(w), ==, 0);
  g_autofree char *png2 = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "no-mark");
  int none_px = view_pixels(png2, w, is_mark_brown);
  g_test_message("the marks' colour in the view: %d pixels with the end stop, %d without events", limit_px,
                 none_px);
  g_assert_cmpint(limit_px, >, 200);
  /* the pendulum's shaded orange bob has a few dozen rim pixels of that hue
   * (how many grows with the view's size): far fewer than one end stop */
  g_assert_cmpint(none_px, <, limit_px / 50);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* a spatial model: limits on a slide, a contact plane, a guard that stops
 * the run (its row says so); the comparison runs without friction */
static void test_spatial_events(void)
{
  LwWindow *w = window_on(LW_SOURCE_ROOT "/tests/data/slider-crank-events.json", "sc-events", NULL);
  g_assert_cmpint(lw_window_get_n_marks(w), ==, 3); /* two end stops and the plane */
  run_to_end(w);
  g_assert_cmpint(lw_sim_runner_get_state(lw_window_get_runner(w)), ==, LW_RUNNER_FINISHED);
  LwEventList *list = LW_EVENT_LIST(lw_window_get_event_list(w));
  g_assert_cmpuint(lw_event_list_get_n_rows(list), ==, 1);
  g_autofree char *row = lw_event_list_dup_row_text(list, 0);
  g_test_message("event row: %s", row);
  g_assert_nonnull(strstr(row, "far (guard)"));
  g_assert_nonnull(strstr(row, "stop | – | –"));
  /* the CLI's time of the stop (at h = 0.5, 0.25, 0.125 ms 0.2158596,
   * 0.2158593, 0.2158593: second order.  Before the initial accelerations
   * held the joint friction the run stopped at 0.2126) */
  g_assert_cmpfloat(fabs(lw_event_list_get_row_time(list, 0) - 0.21586047654742432), <, 1e-9);
  /* at the stop the crank pin turns at 1.06 rad/s, a slip of r_e w = 1.06e-2 m/s,
   * just above v_t = 10 h = 1e-2 m/s; the slider slips at 5.8 cm/s */
  const lw_desc *d = lw_window_get_desc(w);
  for (int j = 0; j < d->njoints; j++)
    g_test_message("joint %s %s", d->joints[j].name, lw_window_get_joint_sticking(w, j) ? "sticks" : "does not stick");
  lwt_act(w, "compare-friction");
  g_assert_true(lwt_wait_until(not_comparing, w, 60));
  lwt_settle(2);
  g_assert_true(lw_plot_page_has_comparison(LW_PLOT_PAGE(lw_window_get_plot_page(w))));
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("events"));
  g_autofree char *png = lwt_shot(w, "app-fe", LW_APPFE_SHOT_DIR, "spatial-events");
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* ---- 5. the friction outputs' names ------------------------------------------------ */
static void test_labels(void)
{
  LwWindow *w = window_on(INCLINE, "incline-labels", NULL);
  LwPlotPage *page = LW_PLOT_PAGE(lw_window_get_plot_page(w));
  g_auto(GStrv) labels = lw_plot_page_dup_group_labels(page, "Joints");
  static const char *const want[] = {"slide: friction force", "slide: normal force", "slide: slip speed",
                                     "slide: friction work"};
  for (gsize i = 0; i < G_N_ELEMENTS(want); i++)
    g_assert_true(g_strv_contains((const char *const *)labels, want[i]));
  for (int i = 0; labels[i]; i++)
    g_assert_null(strstr(labels[i], "_"));
  /* the inspector (not editing) sums the joint's friction up */
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("inspector"));
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), "joints/slide");
  lwt_settle(3);
  LwInspector *ins = LW_INSPECTOR(lw_window_get_inspector(w));
  g_assert_cmpstr(lw_inspector_lookup(ins, "Friction"), ==, "μs 0.4 · μd 0.3 · v_t 0.01 m/s");
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* ---- a description that is not markup ---------------------------------------------- */
/* the model overview shows a description with '<' and '&' as text (it was
 * taken for markup: GTK refused it with a warning and showed nothing) */
static void test_description_text(void)
{
  lw_desc *d = lwt_read("pendulum.json");
  free(d->description);
  d->description = strdup("holds while tan 0.1 < mu_s & slips above");
  free(d->name);
  d->name = strdup("Pendulum <A & B>");
  g_autofree char *path = g_build_filename(tmp_dir, "markup.json", NULL);
  g_assert_true(lw_model_write_file(d, path, NULL));
  lw_desc_free(d);
  LwWindow *w = window_on(path, "markup2", NULL);
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("inspector"));
  lwt_settle(2);
  g_assert_true(lw_window_get_desc(w)->description != NULL);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  tmp_dir = g_dir_make_tmp("lw-app-fe-XXXXXX", NULL);
  g_setenv("XDG_CACHE_HOME", tmp_dir, TRUE);
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/app-fe/description-text", test_description_text);
  g_test_add_func("/app-fe/friction-inspector", test_friction_inspector);
  g_test_add_func("/app-fe/friction-switch-guards", test_friction_switch_guards);
  g_test_add_func("/app-fe/compare", test_compare);
  g_test_add_func("/app-fe/sticking", test_sticking);
  g_test_add_func("/app-fe/events", test_events);
  g_test_add_func("/app-fe/limit-mark", test_limit_mark);
  g_test_add_func("/app-fe/spatial-events", test_spatial_events);
  g_test_add_func("/app-fe/labels", test_labels);
  int rc = g_test_run();
  g_object_unref(app);
  return rc;
}
