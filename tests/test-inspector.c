/* The property page and the inspector through the window (needs a display:
 * the test command starts Xvfb):
 *  - an edit of a model with a 1000-value force spline (1000 parameters)
 *    costs the property page and the inspector less than a frame, the
 *    parameter array is one row, and rows that did not change are kept;
 *  - a value typed into a field is applied when focus leaves it (Tab, a
 *    click elsewhere), or put back with the reason when it is refused;
 *  - after Enter the field just edited keeps the focus;
 *  - numbers with units and expressions, angles in degrees or radians as the
 *    preference says;
 *  - a parameter's row as a slider, applied as an undoable edit on release.
 * Screenshots go to LW_SCREENSHOT_DIR (or the build directory). */
#include "lw-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lw-application.h"
#include "lw-inspector.h"
#include "lw-opt-panel.h"
#include "lw-prop-editor.h"
#include "lw-sens-panel.h"
#include "lw-view3d.h"
#include "lw-window.h"
#include "lw_io.h"

static LwApplication *app;
static char *tmp_dir;

/* ---- helpers ----------------------------------------------------------------
 */
static gboolean is_mapped(gpointer w) {
  return gtk_widget_get_mapped(GTK_WIDGET(w));
}

static LwPropEditor *props_of(LwWindow *w) {
  return LW_PROP_EDITOR(lw_window_get_prop_editor(w));
}

/* the longest main-loop iteration and their sum during the last settle (ms) */
static double settle_longest, settle_busy;

/* let the window lay out and draw until the main loop is quiet */
static void settle(double timeout_s) {
  gint64 end = g_get_monotonic_time() + (gint64)(timeout_s * 1e6);
  int quiet = 0;
  settle_longest = settle_busy = 0;
  while (quiet < 20 && g_get_monotonic_time() < end) {
    gint64 t = g_get_monotonic_time();
    g_main_context_iteration(NULL, FALSE);
    double dt = (double)(g_get_monotonic_time() - t) / 1000.0;
    settle_longest = MAX(settle_longest, dt);
    settle_busy += dt;
    quiet = dt < 20 ? quiet + 1 : 0;
    g_usleep(2000);
  }
}

/* the cart's force spline with p values, one parameter u[k] per value,
 * its problems kept (they bound u[*] to [-100, 100]) */
static lw_desc *cart_with_spline(int p) {
  lw_desc *d = lwt_read("cart-pendulum.json");
  lw_force_desc *f = &d->forces[0];
  free(f->func.knots);
  f->func.knots = calloc((size_t)p, sizeof(double));
  f->func.n = p;
  for (int k = 0; k < p; k++)
    f->func.knots[k] = 2.0 * sin(6.0 * k / (p - 1.0));
  for (int i = 0; i < d->nparams; i++) {
    free(d->params[i].name);
    for (int k = 0; k < d->params[i].ntargets; k++)
      free(d->params[i].targets[k]);
    free(d->params[i].targets);
  }
  d->nparams = 0;
  for (int k = 0; k < p; k++) {
    char name[32], target[64];
    g_snprintf(name, sizeof name, "u[%d]", k);
    g_snprintf(target, sizeof target, "forces/push/function/%d", k);
    lw_param_desc *pp = lw_desc_add_param(d, name, target);
    pp->value = f->func.knots[k];
  }
  return d;
}

/* a window on a model description, in edit mode */
static LwWindow *window_on(lw_desc *d, const char *stem) {
  g_autofree char *file = g_strdup_printf("%s.json", stem);
  g_autofree char *path = g_build_filename(tmp_dir, file, NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true(lw_model_write_file(d, path, &error));
  lw_desc_free(d);
  LwWindow *w = lw_window_new(app);
  gtk_window_set_default_size(GTK_WINDOW(w), 1300, 850);
  g_autoptr(GFile) gf = g_file_new_for_path(path);
  g_assert_true(lw_window_open_file(w, gf));
  gtk_window_present(GTK_WINDOW(w));
  g_assert_true(lwt_wait_until(is_mapped, w, 10));
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode",
                                     g_variant_new_boolean(TRUE));
  settle(20);
  return w;
}

static void pick(LwWindow *w, const char *path) {
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), path);
  settle(5);
  g_assert_cmpstr(lw_prop_editor_get_selection(props_of(w)), ==, path);
}

/* the entry of a field, found in the page as a user would */
static GtkWidget *find_entry(GtkWidget *root, const char *path) {
  if (GTK_IS_ENTRY(root) &&
      !g_strcmp0(g_object_get_data(G_OBJECT(root), "path"), path) &&
      gtk_widget_get_mapped(root))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c;
       c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *e = find_entry(c, path);
    if (e)
      return e;
  }
  return NULL;
}

static GtkWidget *entry_of(LwWindow *w, const char *path) {
  GtkWidget *e = find_entry(GTK_WIDGET(props_of(w)), path);
  if (!e)
    g_error("no field %s on the page", path);
  return e;
}

static int count_rows(GtkWidget *root) {
  int n = ADW_IS_PREFERENCES_ROW(root) ? 1 : 0;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c;
       c = gtk_widget_get_next_sibling(c))
    n += count_rows(c);
  return n;
}

static double field_value(LwWindow *w, const char *path) {
  lw_desc *d = lw_desc_copy(lw_window_get_desc(w));
  double *v = lw_desc_field(d, path);
  g_assert_nonnull(v);
  double r = *v;
  lw_desc_free(d);
  return r;
}

/* the focus is in the entry (its text widget has it) */
static gboolean focus_in(LwWindow *w, GtkWidget *entry) {
  GtkWidget *f = gtk_root_get_focus(GTK_ROOT(w));
  return f && (f == entry || gtk_widget_is_ancestor(f, entry));
}

static void shot(LwWindow *w, const char *name) {
  settle(2);
  const char *dir = g_getenv("LW_SCREENSHOT_DIR");
  g_autofree char *sdir = dir && *dir
                              ? g_build_filename(dir, "inspector", NULL)
                              : g_strdup(LW_INSPECTOR_SHOT_DIR);
  g_mkdir_with_parents(sdir, 0755);
  g_autofree char *file = g_strdup_printf("%s.png", name);
  g_autofree char *path = g_build_filename(sdir, file, NULL);
  g_autoptr(GError) error = NULL;
  if (lw_window_save_screenshot(w, path, &error))
    g_test_message("screenshot %s", path);
  else
    g_test_message("no screenshot %s: %s", path, error->message);
}

static double ms_since(gint64 t0) {
  return (double)(g_get_monotonic_time() - t0) / 1000.0;
}

/* ---- 1: an edit on a model with 1000 parameters -----------------------------
 */
static void test_edit_time(void) {
  LwWindow *w = window_on(cart_with_spline(1000), "cart-1000");
  LwPropEditor *pe = props_of(w);
  g_assert_null(lw_prop_editor_get_selection(pe));
  g_assert_cmpint(lw_window_get_desc(w)->nparams, ==, 1000);
  /* the model page: the 1000 parameters are one row */
  int rows = count_rows(GTK_WIDGET(pe));
  g_test_message("rows on the model page: %d", rows);
  /* the time of the whole edit on the main thread: the window's check and
   * compile, the pages' update, and the first frame after it */
  GtkWidget *step = entry_of(w, "solver/step");
  double best = 1e9, best_frame = 1e9;
  for (int round = 0; round < 3; round++) {
    gint64 t0 = g_get_monotonic_time();
    g_assert_true(
        lw_prop_editor_enter(pe, "solver/t_end", round % 2 ? "3" : "2.5"));
    double edit = ms_since(t0);
    settle(10);
    double all = ms_since(t0);
    g_test_message("edit %d: %.1f ms synchronous, %.1f ms until the main loop "
                   "is quiet (busy %.1f ms after the "
                   "edit, longest iteration %.1f ms)",
                   round, edit, all, settle_busy, settle_longest);
    best = MIN(best, edit);
    best_frame = MIN(best_frame, all);
  }
  /* the parts of it, on the same description */
  const lw_desc *d = lw_window_get_desc(w);
  gint64 t0 = g_get_monotonic_time();
  lw_check_result chk;
  lw_check(d, &chk);
  double t_check = ms_since(t0);
  t0 = g_get_monotonic_time();
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  double t_compile = ms_since(t0);
  /* each part's own call, then the main loop's work that follows it (its
   * layout and drawing) */
  double busy[4];
  settle(10);
  t0 = g_get_monotonic_time();
  lw_prop_editor_set_document(pe, d, &chk);
  lw_prop_editor_get_text(pe, "solver/t_end"); /* the page brought up to date */
  double t_props = ms_since(t0);
  settle(10);
  busy[0] = settle_busy;
  LwInspector *ins = LW_INSPECTOR(lw_window_get_inspector(w));
  t0 = g_get_monotonic_time();
  lw_inspector_set_model(ins, m);
  lw_inspector_lookup(ins, "Bodies"); /* the page brought up to date */
  double t_inspector = ms_since(t0);
  settle(10);
  busy[1] = settle_busy;
  t0 = g_get_monotonic_time();
  lw_sens_panel_set_desc(LW_SENS_PANEL(lw_window_get_sens_panel(w)), d);
  double t_sens = ms_since(t0);
  settle(10);
  busy[2] = settle_busy;
  t0 = g_get_monotonic_time();
  lw_opt_panel_set_desc(LW_OPT_PANEL(lw_window_get_opt_panel(w)), d);
  double t_opt = ms_since(t0);
  settle(10);
  busy[3] = settle_busy;
  g_test_message("main loop after each (layout, drawing): property page %.1f "
                 "ms, inspector %.1f ms, sensitivity "
                 "panel %.1f ms, optimization panel %.1f ms",
                 busy[0], busy[1], busy[2], busy[3]);
  lw_model_free(m);
  lw_check_result_clear(&chk);
  g_test_message("best edit: %.1f ms synchronous, %.1f ms with its frame; "
                 "lw_check %.1f ms, lw_compile %.1f ms, "
                 "property page %.2f ms, inspector %.2f ms, sensitivity panel "
                 "%.1f ms, optimization panel %.1f ms",
                 best, best_frame, t_check, t_compile, t_props, t_inspector,
                 t_sens, t_opt);
  g_assert_cmpint(rows, <, 100);
  /* the times are for the record (a test does not time: under the
   * sanitizers or a busy machine they say nothing); what makes them small
   * is asserted: the few rows above, and fields kept through an edit below */
  /* a field that did not change keeps its widget through an edit */
  step = entry_of(w, "solver/step");
  g_assert_true(lw_prop_editor_enter(pe, "solver/t_end", "2"));
  settle(5);
  g_assert_true(entry_of(w, "solver/step") == step);
  /* the inspector (out of edit mode): the 1000 parameters are one row too */
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(FALSE));
  settle(10);
  int irows = count_rows(GTK_WIDGET(ins));
  g_test_message("rows in the inspector: %d; u[1000]: %s", irows, lw_inspector_lookup(ins, "u[1000]"));
  g_assert_cmpint(irows, <, 100);
  g_assert_nonnull(lw_inspector_lookup(ins, "u[1000]"));
  shot(w, "inspector-1000-parameters");
  gtk_window_destroy(GTK_WINDOW(w));
  settle(1);
}

typedef struct {
  LwWindow *w;
  const char *path;
  double value;
} FieldWait;

static gboolean field_is(gpointer data) {
  FieldWait *f = data;
  return field_value(f->w, f->path) == f->value;
}

/* ---- 2: Tab and a click elsewhere apply what was typed
 * ------------------------ */
static void test_focus_out_applies(void) {
  LwWindow *w = window_on(lwt_read("cart-pendulum.json"), "cart-focus");
  pick(w, "bodies/link1");
  const char *px = "bodies/link1/points/end/0";
  GtkWidget *e = entry_of(w, px);
  gtk_widget_grab_focus(e);
  settle(1);
  g_assert_true(focus_in(w, e));
  gtk_editable_set_text(GTK_EDITABLE(e), "0.6");
  /* Tab: the focus moves on to the next field */
  g_assert_true(gtk_widget_child_focus(GTK_WIDGET(w), GTK_DIR_TAB_FORWARD));
  settle(2);
  /* a slow machine (the sanitizers) may need longer before it is quiet */
  lwt_wait_until(field_is, &(FieldWait){w, px, 0.6}, 10);
  g_test_message("after Tab: end x = %g", field_value(w, px));
  g_assert_cmpfloat(field_value(w, px), ==, 0.6);
  g_assert_cmpstr(lw_prop_editor_get_text(props_of(w), px), ==, "0.6");
  /* a click elsewhere: the focus goes to another field */
  const char *pm = "bodies/link1/mass";
  e = entry_of(w, pm);
  gtk_widget_grab_focus(e);
  gtk_editable_set_text(GTK_EDITABLE(e), "0.75");
  gtk_widget_grab_focus(entry_of(w, "bodies/link1/com/0"));
  settle(2);
  g_assert_cmpfloat(field_value(w, pm), ==, 0.75);
  /* a refused value is put back with the reason, the model unchanged */
  guint depth = lw_window_get_undo_depth(w);
  e = entry_of(w, pm);
  gtk_widget_grab_focus(e);
  gtk_editable_set_text(GTK_EDITABLE(e), "-3");
  gtk_widget_grab_focus(entry_of(w, "bodies/link1/com/0"));
  settle(2);
  g_assert_cmpfloat(field_value(w, pm), ==, 0.75);
  g_assert_cmpuint(lw_window_get_undo_depth(w), ==, depth);
  g_assert_cmpstr(lw_prop_editor_get_text(props_of(w), pm), ==, "0.75");
  const char *why = lw_prop_editor_get_error(props_of(w), pm);
  g_test_message("-3 kg on leaving: %s", why ? why : "(no message)");
  g_assert_nonnull(why);
  g_assert_nonnull(strstr(why, "positive"));
  gtk_window_destroy(GTK_WINDOW(w));
  settle(1);
}

/* ---- 3: Enter keeps the focus in the field ----------------------------------
 */
static void test_focus_stays(void) {
  LwWindow *w = window_on(lwt_read("cart-pendulum.json"), "cart-enter");
  pick(w, "bodies/link1");
  const char *pm = "bodies/link1/mass";
  gtk_widget_grab_focus(entry_of(w, pm));
  settle(1);
  g_assert_true(lw_prop_editor_enter(props_of(w), pm, "0.8"));
  settle(2);
  g_assert_cmpfloat(field_value(w, pm), ==, 0.8);
  GtkWidget *f = gtk_root_get_focus(GTK_ROOT(w));
  GtkWidget *fe = f ? gtk_widget_get_ancestor(f, GTK_TYPE_ENTRY) : NULL;
  g_test_message(
      "focus after Enter: %s (field %s)", f ? G_OBJECT_TYPE_NAME(f) : "none",
      fe ? (const char *)g_object_get_data(G_OBJECT(fe), "path") : "-");
  g_assert_true(focus_in(w, entry_of(w, pm)));
  /* also when the edit renames the element (its fields are new) */
  const char *pn = "bodies/link1/name";
  gtk_widget_grab_focus(entry_of(w, pn));
  g_assert_true(lw_prop_editor_enter(props_of(w), pn, "upper"));
  settle(2);
  g_assert_true(focus_in(w, entry_of(w, "bodies/upper/name")));
  gtk_window_destroy(GTK_WINDOW(w));
  settle(1);
}

/* ---- 4: units and expressions
 * ------------------------------------------------ */
static void enter_ok(LwWindow *w, const char *path, const char *text) {
  if (!lw_prop_editor_enter(props_of(w), path, text))
    g_error("field %s refused '%s': %s", path, text,
            lw_prop_editor_get_error(props_of(w), path));
  settle(1);
}

static void test_units(void) {
  LwWindow *w = window_on(lwt_read("cart-pendulum.json"), "cart-units");
  LwPropEditor *pe = props_of(w);
  g_assert_true(lw_prop_editor_get_degrees(pe)); /* the default */
  pick(w, "bodies/link1");
  const char *pa = "bodies/link1/angle", *px = "bodies/link1/points/end/0",
             *pm = "bodies/link1/mass";
  g_assert_cmpstr(lw_prop_editor_get_text(pe, pa), ==, "-90");
  g_assert_cmpstr(lw_prop_editor_get_unit(pe, pa), ==, "deg");
  g_assert_cmpstr(lw_prop_editor_get_unit(pe, px), ==, "m");
  g_assert_cmpstr(lw_prop_editor_get_unit(pe, pm), ==, "kg");
  g_assert_cmpstr(lw_prop_editor_get_unit(pe, "bodies/link1/inertia/2"), ==,
                  "kg m²");
  enter_ok(w, px, "250 mm");
  g_assert_cmpfloat_with_epsilon(field_value(w, px), 0.25, 1e-15);
  g_assert_cmpstr(lw_prop_editor_get_text(pe, px), ==, "0.25");
  enter_ok(w, pm, "2*0.35");
  g_assert_cmpfloat_with_epsilon(field_value(w, pm), 0.7, 1e-15);
  enter_ok(w, pm, "350 g");
  g_assert_cmpfloat_with_epsilon(field_value(w, pm), 0.35, 1e-15);
  enter_ok(w, pa, "-45");
  g_assert_cmpfloat_with_epsilon(field_value(w, pa), -G_PI / 4, 1e-15);
  enter_ok(w, pa, "-pi/2 rad");
  g_assert_cmpfloat_with_epsilon(field_value(w, pa), -G_PI / 2, 1e-15);
  g_assert_cmpstr(lw_prop_editor_get_text(pe, pa), ==, "-90");
  /* a unit of another quantity is refused, the model unchanged */
  guint depth = lw_window_get_undo_depth(w);
  g_assert_false(lw_prop_editor_enter(pe, pa, "90 kg"));
  g_test_message("90 kg as an angle: %s", lw_prop_editor_get_error(pe, pa));
  g_assert_nonnull(
      strstr(lw_prop_editor_get_error(pe, pa), "not a unit of angle"));
  g_assert_false(lw_prop_editor_enter(pe, px, "2 +"));
  g_test_message("'2 +': %s", lw_prop_editor_get_error(pe, px));
  g_assert_false(lw_prop_editor_enter(pe, px, "1/0"));
  g_assert_nonnull(
      strstr(lw_prop_editor_get_error(pe, px), "division by zero"));
  g_assert_cmpuint(lw_window_get_undo_depth(w), ==, depth);
  g_assert_cmpfloat_with_epsilon(field_value(w, pa), -G_PI / 2, 1e-15);
  shot(w, "units-degrees");
  /* radians: the switch (and the setting) */
  lw_prop_editor_set_degrees(pe, FALSE);
  settle(1);
  g_assert_cmpstr(lw_prop_editor_get_unit(pe, pa), ==, "rad");
  g_assert_cmpstr(lw_prop_editor_get_text(pe, pa), ==, "-1.570796327");
  enter_ok(w, pa, "-1");
  g_assert_cmpfloat(field_value(w, pa), ==, -1);
  g_autoptr(GSettings) settings =
      g_settings_new("io.github.linkwright.Linkwright");
  g_assert_false(g_settings_get_boolean(settings, "angles-in-degrees"));
  g_settings_set_boolean(settings, "angles-in-degrees", TRUE);
  settle(1);
  g_assert_cmpstr(lw_prop_editor_get_unit(pe, pa), ==, "deg");
  /* a joint's initial velocity and a spring's stiffness */
  pick(w, "joints/shoulder");
  const char *pv = "initial/shoulder/velocity";
  g_assert_cmpstr(lw_prop_editor_get_unit(pe, pv), ==, "deg/s");
  enter_ok(w, pv, "60 rpm");
  const lw_desc *d = lw_window_get_desc(w);
  double v = NAN;
  for (int i = 0; i < d->ninitial; i++)
    if (!g_strcmp0(d->initial[i].joint, "shoulder") &&
        d->initial[i].has_velocity)
      v = d->initial[i].velocity;
  g_assert_cmpfloat_with_epsilon(v, 2 * G_PI, 1e-12);
  g_assert_cmpstr(lw_prop_editor_get_text(pe, pv), ==, "360");
  gtk_window_destroy(GTK_WINDOW(w));
  settle(1);
}

static GtkWidget *find_type(GtkWidget *root, GType type) {
  if (G_TYPE_CHECK_INSTANCE_TYPE(root, type))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c;
       c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *r = find_type(c, type);
    if (r)
      return r;
  }
  return NULL;
}

/* the page scrolled to the parameters (for the screenshot) */
static void scroll_to_array(LwPropEditor *pe) {
  GtkWidget *sw = find_type(GTK_WIDGET(pe), GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *row = find_type(GTK_WIDGET(pe), ADW_TYPE_EXPANDER_ROW);
  graphene_rect_t r;
  if (sw && row &&
      gtk_widget_compute_bounds(
          row, gtk_scrolled_window_get_child(GTK_SCROLLED_WINDOW(sw)), &r))
    gtk_adjustment_set_value(
        gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(sw)),
        r.origin.y - 150);
}

/* ---- 5: a parameter as a slider
 * -------------------------------------------------- */
static void test_slider(void) {
  LwWindow *w = window_on(lwt_read("cart-pendulum.json"), "cart-slider");
  LwPropEditor *pe = props_of(w);
  g_assert_null(lw_prop_editor_get_selection(pe));
  /* a parameter of its own: gravity y, -9.81, slides over +-50 % */
  g_assert_true(lw_prop_editor_make_parameter(pe, "gravity/1"));
  settle(1);
  const lw_desc *d = lw_window_get_desc(w);
  const char *gname = d->params[d->nparams - 1].name;
  g_autofree char *gn = g_strdup(gname);
  g_assert_true(lw_prop_editor_set_slider(pe, gn, TRUE));
  GtkWidget *s = lw_prop_editor_get_slider(pe, gn);
  g_assert_nonnull(s);
  GtkAdjustment *a = gtk_range_get_adjustment(GTK_RANGE(s));
  g_assert_cmpfloat_with_epsilon(gtk_adjustment_get_lower(a), -9.81 * 1.5,
                                 1e-12);
  g_assert_cmpfloat_with_epsilon(gtk_adjustment_get_upper(a), -9.81 * 0.5,
                                 1e-12);
  guint depth = lw_window_get_undo_depth(w);
  g_assert_true(lw_prop_editor_slide(pe, gn, -5.0));
  settle(1);
  g_assert_cmpuint(lw_window_get_undo_depth(w), ==, depth + 1);
  d = lw_window_get_desc(w);
  g_assert_cmpfloat(d->params[lw_desc_param_index(d, gn)].value, ==, -5.0);
  g_assert_cmpfloat(d->gravity[1], ==, -5.0);
  g_assert_cmpstr(lw_prop_editor_get_text(pe, "gravity/1"), ==, "-5");
  /* the slider stays a slider through the edit, at its new value */
  s = lw_prop_editor_get_slider(pe, gn);
  g_assert_nonnull(s);
  g_assert_cmpfloat(gtk_range_get_value(GTK_RANGE(s)), ==, -5.0);
  /* an array's element: the range of the optimization problem's bounds */
  g_assert_true(lw_prop_editor_expand_array(pe, "u", TRUE));
  settle(2);
  g_assert_true(lw_prop_editor_set_slider(pe, "u[2]", TRUE));
  s = lw_prop_editor_get_slider(pe, "u[2]");
  g_assert_nonnull(s);
  a = gtk_range_get_adjustment(GTK_RANGE(s));
  g_assert_cmpfloat(gtk_adjustment_get_lower(a), ==, -100);
  g_assert_cmpfloat(gtk_adjustment_get_upper(a), ==, 100);
  g_assert_true(lw_prop_editor_slide(pe, "u[2]", 25));
  settle(1);
  d = lw_window_get_desc(w);
  g_assert_cmpfloat(d->params[lw_desc_param_index(d, "u[2]")].value, ==, 25);
  g_assert_cmpfloat(d->forces[0].func.knots[2], ==, 25);
  g_assert_cmpuint(lw_window_get_undo_depth(w), ==, depth + 2);
  scroll_to_array(pe);
  shot(w, "slider");
  /* undone as any edit */
  g_action_group_activate_action(G_ACTION_GROUP(w), "undo", NULL);
  settle(1);
  d = lw_window_get_desc(w);
  g_assert_cmpfloat(d->params[lw_desc_param_index(d, "u[2]")].value, ==, 0);
  /* the next run uses the model's value: the compiled model has it */
  g_assert_true(lw_prop_editor_slide(pe, "u[2]", 40));
  settle(1);
  lw_error err;
  lw_model *m = lw_compile(lw_window_get_desc(w), &err);
  g_assert_nonnull(m);
  g_assert_cmpfloat(lw_model_desc(m)->forces[0].func.knots[2], ==, 40);
  lw_model_free(m);
  gtk_window_destroy(GTK_WINDOW(w));
  settle(1);
}


/* a component that is round-off beside the others (cos(pi/2) in an initial
 * guess) is shown as 0, as everywhere; the model keeps its value */
static void test_roundoff_shown_as_zero(void)
{
  lw_desc *d = lw_desc_chain(2, 0);
  d->bodies[1].position[0] = 3.061616997868383e-17;
  d->bodies[1].position[1] = 0.5;
  LwWindow *w = window_on(d, "roundoff");
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(TRUE));
  settle(2);
  pick(w, "bodies/link2");
  const char *px = "bodies/link2/position/0";
  g_assert_cmpstr(lw_prop_editor_get_text(props_of(w), px), ==, "0");
  g_assert_cmpstr(lw_prop_editor_get_text(props_of(w), "bodies/link2/position/1"), ==, "0.5");
  g_assert_cmpfloat(lw_window_get_desc(w)->bodies[1].position[0], ==, 3.061616997868383e-17);
  gtk_window_destroy(GTK_WINDOW(w));
  settle(1);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  tmp_dir = g_dir_make_tmp("lw-inspector-XXXXXX", NULL);
  g_setenv("XDG_CACHE_HOME", tmp_dir, TRUE);
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/inspector/edit-time", test_edit_time);
  g_test_add_func("/inspector/focus-out-applies", test_focus_out_applies);
  g_test_add_func("/inspector/focus-stays", test_focus_stays);
  g_test_add_func("/inspector/units", test_units);
  g_test_add_func("/inspector/slider", test_slider);
  g_test_add_func("/inspector/roundoff-zero", test_roundoff_shown_as_zero);
  int rc = g_test_run();
  g_object_unref(app);
  return rc;
}
