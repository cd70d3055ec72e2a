/* The window among the desktop's conventions: a plot exported to a
 * location without a local path says so (and does not crash), a model
 * file dropped on the window opens (through the unsaved-work question),
 * the 3-D view follows the dark style, Save As and Export Plot Data offer
 * file filters, the Recent menu lists only Linkwright's own models that
 * still exist, and Help (F1) without a help viewer says what is missing.  Needs a display (the test command starts Xvfb); the
 * recent list goes to a private directory. */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lw-application.h"
#include "lw-window.h"
#include "lw_io.h"

static LwApplication *app;
static char *tmp_dir;

/* ---- helpers (shared ones in lw-app-test.h) ----------------------------------- */
static LwWindow *window_on(const char *path)
{
  LwWindow *w = lw_window_new(app);
  g_autoptr(GFile) f = g_file_new_for_path(path);
  g_assert_true(lw_window_open_file(w, f));
  return lwt_show(w);
}

static char *copy_model(const char *name)
{
  return lwt_copy_model(tmp_dir, name);
}

/* ---- 1. a plot exported where there is no local path -------------------------- */
static void test_plot_export_nonlocal(void)
{
  g_autofree char *model = copy_model("pendulum.json");
  LwWindow *w = window_on(model);
  /* a remote location GLib knows no local path for */
  g_autoptr(GFile) remote = g_file_new_for_uri("sftp://example.invalid/plots/plot.png");
  g_assert_null(g_file_get_path(remote));
  const gboolean csv[] = {FALSE, TRUE};
  for (int i = 0; i < 2; i++) {
    g_assert_false(lw_window_export_plot_to(w, remote, csv[i]));
    const char *msg = lw_window_get_message(w);
    g_assert_nonnull(msg);
    g_test_message("%s", msg);
    g_assert_nonnull(strstr(msg, "sftp://example.invalid/plots/plot.png"));
  }
  /* a local file is written */
  g_autofree char *png = g_build_filename(tmp_dir, "plot.png", NULL);
  g_autoptr(GFile) local = g_file_new_for_path(png);
  g_assert_true(lw_window_export_plot_to(w, local, FALSE));
  g_assert_true(g_file_test(png, G_FILE_TEST_IS_REGULAR));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.1);
}

/* ---- 2. dropping a model file ----------------------------------------------------- */
static GtkDropTarget *drop_target_of(GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(widget);
  for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
    g_autoptr(GObject) c = g_list_model_get_item(controllers, i);
    if (GTK_IS_DROP_TARGET(c))
      return GTK_DROP_TARGET(c);
  }
  return NULL;
}

/* what a drop of the file on the window hands over: a GdkFileList */
static gboolean drop_file(LwWindow *w, const char *path)
{
  GtkDropTarget *target = drop_target_of(GTK_WIDGET(w));
  g_assert_nonnull(target);
  g_autoptr(GFile) f = g_file_new_for_path(path);
  GSList *list = g_slist_prepend(NULL, f);
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GDK_TYPE_FILE_LIST);
  g_value_set_boxed(&v, list);
  g_slist_free(list);
  gboolean accepted = FALSE;
  g_signal_emit_by_name(target, "drop", &v, 100.0, 100.0, &accepted);
  g_value_unset(&v);
  return accepted;
}

static void test_drop(void)
{
  g_autofree char *first = copy_model("pendulum.json");
  g_autofree char *second = copy_model("double-pendulum.json");
  g_autofree char *third = copy_model("four-bar.json");
  LwWindow *w = window_on(first);
  GType types_ok = FALSE;
  gsize n = 0;
  const GType *types = gtk_drop_target_get_gtypes(drop_target_of(GTK_WIDGET(w)), &n);
  for (gsize i = 0; i < n; i++)
    types_ok |= types[i] == GDK_TYPE_FILE_LIST;
  g_assert_true(types_ok);
  /* nothing unsaved: the dropped file opens */
  g_assert_true(drop_file(w, second));
  g_autoptr(GFile) f2 = g_file_new_for_path(second);
  g_assert_true(g_file_equal(lw_window_get_file(w), f2));
  /* unsaved changes: the question first; Cancel keeps them */
  lwt_edit_mass(w);
  g_autofree char *before = lw_model_to_json(lw_window_get_desc(w));
  g_assert_true(drop_file(w, third));
  lwt_await(lwt_dialog_shown, w, LWT_WAIT);
  lwt_respond(w, "cancel");
  g_autofree char *after = lw_model_to_json(lw_window_get_desc(w));
  g_assert_cmpstr(after, ==, before);
  g_assert_true(lw_window_get_modified(w));
  g_assert_true(g_file_equal(lw_window_get_file(w), f2));
  /* Discard opens it */
  g_assert_true(drop_file(w, third));
  lwt_respond(w, "discard");
  g_autoptr(GFile) f3 = g_file_new_for_path(third);
  g_assert_true(g_file_equal(lw_window_get_file(w), f3));
  g_assert_false(lw_window_get_modified(w));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.1);
}

/* ---- 3. the dark style ---------------------------------------------------------------- */
/* the mean grey of a patch of the 3-D view in a screenshot of the window */
static double view_grey(LwWindow *w, const char *png)
{
  g_autoptr(GError) error = NULL;
  lwt_fresh_picture(w); /* in the style set now */
  lwt_settle(2);
  g_assert_true(lw_window_save_screenshot(w, png, &error));
  g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new_from_file(png, &error);
  g_assert_no_error(error);
  /* the view's left part, below the header bar (the mechanism is in the middle) */
  int nc = gdk_pixbuf_get_n_channels(pb), rs = gdk_pixbuf_get_rowstride(pb);
  const guint8 *p = gdk_pixbuf_read_pixels(pb);
  double sum = 0;
  int count = 0;
  for (int y = 80; y < 120; y++)
    for (int x = 20; x < 60; x++, count++)
      sum += (p[y * rs + x * nc] + p[y * rs + x * nc + 1] + p[y * rs + x * nc + 2]) / 3.0;
  return sum / count;
}

static void test_dark(void)
{
  g_autofree char *model = copy_model("pendulum.json");
  AdwStyleManager *sm = adw_style_manager_get_default();
  LwWindow *w = window_on(model);
  gtk_window_set_default_size(GTK_WINDOW(w), 1100, 700);
  g_mkdir_with_parents(LW_ECOSYS_SHOT_DIR, 0755);
  g_autofree char *light_png = g_build_filename(LW_ECOSYS_SHOT_DIR, "light.png", NULL);
  g_autofree char *dark_png = g_build_filename(LW_ECOSYS_SHOT_DIR, "dark.png", NULL);
  adw_style_manager_set_color_scheme(sm, ADW_COLOR_SCHEME_FORCE_LIGHT);
  GtkWidget *view = lw_window_get_view(w);
  gboolean dark = TRUE;
  g_object_get(view, "dark", &dark, NULL);
  g_assert_false(dark);
  double light_grey = view_grey(w, light_png);
  adw_style_manager_set_color_scheme(sm, ADW_COLOR_SCHEME_FORCE_DARK);
  g_object_get(view, "dark", &dark, NULL);
  g_assert_true(dark);
  double dark_grey = view_grey(w, dark_png);
  g_test_message("the view's background: %.0f light, %.0f dark (%s, %s)", light_grey, dark_grey, light_png, dark_png);
  g_assert_cmpfloat(light_grey, >, 180);
  g_assert_cmpfloat(dark_grey, <, 70);
  adw_style_manager_set_color_scheme(sm, ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.1);
}

/* ---- 4. file filters ------------------------------------------------------------------ */
static void assert_filter(LwWindow *w, const char *action, const char *name, const char *file)
{
  g_action_group_activate_action(G_ACTION_GROUP(w), action, NULL);
  lwt_await(lwt_chooser_shown, w, LWT_WAIT);
  GtkWidget *chooser = lwt_chooser_for(w);
  g_assert_nonnull(chooser);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_autoptr(GListModel) filters = gtk_file_chooser_get_filters(GTK_FILE_CHOOSER(chooser));
  gboolean found = FALSE;
  for (guint i = 0; i < g_list_model_get_n_items(filters); i++) {
    g_autoptr(GtkFileFilter) f = g_list_model_get_item(filters, i);
    if (!g_strcmp0(gtk_file_filter_get_name(f), name)) {
      found = TRUE;
      /* it keeps the files of its kind and no others */
      g_autoptr(GFile) yes = g_file_new_for_path(file);
      g_autoptr(GFileInfo) info = g_file_info_new();
      g_file_info_set_display_name(info, file);
      g_file_info_set_attribute_object(info, "standard::file", G_OBJECT(yes));
      g_assert_true(gtk_filter_match(GTK_FILTER(f), info));
      g_file_info_set_display_name(info, "notes.txt");
      g_assert_false(gtk_filter_match(GTK_FILTER(f), info));
    }
  }
  g_assert_true(found);
  gtk_dialog_response(GTK_DIALOG(chooser), GTK_RESPONSE_CANCEL);
  G_GNUC_END_IGNORE_DEPRECATIONS
  lwt_await(lwt_chooser_gone, w, LWT_WAIT);
}

static void test_filters(void)
{
  g_autofree char *model = copy_model("pendulum.json");
  LwWindow *w = window_on(model);
  assert_filter(w, "save-as", "Linkwright models", "model.json");
  assert_filter(w, "export-csv", "CSV (comma-separated values)", "plot.csv");
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.1);
}

/* ---- 5. the Recent menu ------------------------------------------------------------- */
static GtkWidget *find_widget(GtkWidget *root, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE(root, type))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = find_widget(c, type);
    if (f)
      return f;
  }
  return NULL;
}

static gboolean recent_has(LwWindow *w, const char *label)
{
  GtkWidget *split = find_widget(GTK_WIDGET(w), ADW_TYPE_SPLIT_BUTTON);
  g_assert_nonnull(split);
  GMenuModel *menu = adw_split_button_get_menu_model(ADW_SPLIT_BUTTON(split));
  for (int s = 0; s < g_menu_model_get_n_items(menu); s++) {
    g_autoptr(GMenuModel) section = g_menu_model_get_item_link(menu, s, G_MENU_LINK_SECTION);
    for (int i = 0; section && i < g_menu_model_get_n_items(section); i++) {
      g_autofree char *action = NULL, *lab = NULL;
      g_menu_model_get_item_attribute(section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action);
      g_menu_model_get_item_attribute(section, i, G_MENU_ATTRIBUTE_LABEL, "s", &lab);
      if (!g_strcmp0(action, "win.open-recent") && !g_strcmp0(lab, label))
        return TRUE;
    }
  }
  return FALSE;
}

static void add_recent(const char *path, gboolean ours)
{
  g_autofree char *uri = g_filename_to_uri(path, NULL, NULL);
  const char *groups[] = {"Linkwright", NULL};
  GtkRecentData data = {.mime_type = (char *)"application/json",
                        .app_name = (char *)(ours ? g_get_application_name() : "other-editor"),
                        .app_exec = (char *)(ours ? "linkwright %u" : "other-editor %u"),
                        .groups = ours ? (char **)groups : NULL};
  g_assert_true(gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data));
}

/* the recent list (written asynchronously) has the three files */
static gboolean recent_added(gpointer files)
{
  for (int i = 0; i < 3; i++) {
    g_autofree char *uri = g_filename_to_uri(((const char **)files)[i], NULL, NULL);
    if (!gtk_recent_manager_has_item(gtk_recent_manager_get_default(), uri))
      return FALSE;
  }
  return TRUE;
}

static gboolean recent_lists_kept(gpointer w)
{
  return recent_has(LW_WINDOW(w), "ours-kept.json");
}

static void test_recent_own(void)
{
  g_autofree char *ours = g_build_filename(tmp_dir, "ours-kept.json", NULL);
  g_autofree char *gone = g_build_filename(tmp_dir, "ours-deleted.json", NULL);
  g_autofree char *other = g_build_filename(tmp_dir, "package.json", NULL);
  const char *files[] = {ours, gone, other};
  for (int i = 0; i < 3; i++)
    g_assert_true(g_file_set_contents(files[i], "{}", -1, NULL));
  add_recent(ours, TRUE);
  add_recent(gone, TRUE);
  add_recent(other, FALSE);
  lwt_await(recent_added, (gpointer)files, LWT_WAIT);
  g_unlink(gone);
  g_autofree char *model = copy_model("pendulum.json");
  LwWindow *w = window_on(model); /* the window builds its menu from the list now */
  lwt_await(recent_lists_kept, w, LWT_WAIT);
  g_assert_true(recent_has(w, "ours-kept.json"));
  g_assert_false(recent_has(w, "ours-deleted.json"));
  g_assert_false(recent_has(w, "package.json"));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(1.5); /* the recent list's file is written asynchronously */
}

/* ---- 6. Help (F1) where no help viewer is installed ------------------------------- */
static gboolean has_message(gpointer w)
{
  return lw_window_get_message(LW_WINDOW(w)) != NULL;
}

static void test_help_without_viewer(void)
{
  g_autoptr(GAppInfo) viewer = g_app_info_get_default_for_uri_scheme("help");
  if (viewer) {
    g_test_skip("a help viewer is installed: F1 opens it");
    return;
  }
  g_autofree char *model = copy_model("pendulum.json");
  LwWindow *w = window_on(model);
  g_auto(GStrv) keys = gtk_application_get_accels_for_action(GTK_APPLICATION(app), "win.help");
  g_assert_cmpstr(keys[0], ==, "F1");
  g_action_group_activate_action(G_ACTION_GROUP(w), "help", NULL);
  lwt_await(has_message, w, LWT_WAIT);
  const char *msg = lw_window_get_message(w);
  g_test_message("%s", msg);
  g_assert_nonnull(strstr(msg, "Yelp"));
  g_assert_nonnull(strstr(msg, "tutorial.md"));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.1);
}

/* ---- 7. About: copyright and translators ---------------------------------------- */
static GtkWindow *about_window(void)
{
  GListModel *tops = gtk_window_get_toplevels(); /* owned by GTK */
  for (guint i = 0; i < g_list_model_get_n_items(tops); i++) {
    g_autoptr(GObject) o = g_list_model_get_item(tops, i);
    if (ADW_IS_ABOUT_WINDOW(o))
      return GTK_WINDOW(o);
  }
  return NULL;
}

static gboolean about_shown(gpointer unused)
{
  (void)unused;
  return about_window() != NULL;
}

static void test_about(void)
{
  g_autofree char *model = copy_model("pendulum.json");
  LwWindow *w = window_on(model);
  g_action_group_activate_action(G_ACTION_GROUP(app), "about", NULL);
  lwt_await(about_shown, NULL, LWT_WAIT);
  AdwAboutWindow *about = ADW_ABOUT_WINDOW(about_window());
  const char *copyright = adw_about_window_get_copyright(about);
  g_assert_nonnull(copyright);
  g_assert_nonnull(strstr(copyright, "2026 The Linkwright developers"));
  g_assert_cmpint(adw_about_window_get_license_type(about), ==, GTK_LICENSE_GPL_3_0);
  /* in the C locale nobody translated: no credits rather than the message's own text */
  const char *credits = adw_about_window_get_translator_credits(about);
  g_assert_true(credits == NULL || strcmp(credits, "translator-credits") != 0);
  gtk_window_destroy(GTK_WINDOW(about));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.1);
}

int main(int argc, char **argv)
{
  tmp_dir = g_dir_make_tmp("lw-ecosys-XXXXXX", NULL);
  g_autofree char *cache = g_build_filename(tmp_dir, "cache", NULL);
  g_autofree char *data = g_build_filename(tmp_dir, "data", NULL);
  g_setenv("XDG_CACHE_HOME", cache, TRUE);
  g_setenv("XDG_DATA_HOME", data, TRUE);
  g_setenv("LANGUAGE", "C", TRUE);
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/ecosys/plot-export-nonlocal", test_plot_export_nonlocal);
  g_test_add_func("/ecosys/drop", test_drop);
  g_test_add_func("/ecosys/dark", test_dark);
  g_test_add_func("/ecosys/filters", test_filters);
  g_test_add_func("/ecosys/recent-own", test_recent_own);
  g_test_add_func("/ecosys/help-without-viewer", test_help_without_viewer);
  g_test_add_func("/ecosys/about", test_about);
  int rc = g_test_run();
  g_object_unref(app);
  lwt_rm_rf(tmp_dir);
  g_free(tmp_dir);
  return rc;
}
