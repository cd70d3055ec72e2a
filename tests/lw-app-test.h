/* lw-app-test.h: helpers of the application's tests (a window, its
 * runner, screenshots).  Header-only, included after lw-test.h by tests
 * that link the application's library. */
#ifndef LW_APP_TEST_H
#define LW_APP_TEST_H

#include <glib/gstdio.h>
#include <adwaita.h>
#include <gtk/gtk.h>
#include <string.h>

#include "lw-editor.h"
#include "lw-opt-panel.h"
#include "lw-palette.h"
#include "lw-prop-editor.h"
#include "lw-sens-panel.h"
#include "lw-view3d.h"
#include "lw-window.h"

/* the main loop run until it has been quiet (twenty turns of under 20 ms
 * in a row) or timeout_s has passed: what a shown window had to lay out
 * and draw is done */
static inline void lwt_settle(double timeout_s)
{
  gint64 end = g_get_monotonic_time() + (gint64)(timeout_s * 1e6);
  int quiet = 0;
  while (quiet < 20 && g_get_monotonic_time() < end) {
    gint64 t = g_get_monotonic_time();
    g_main_context_iteration(NULL, FALSE);
    quiet = g_get_monotonic_time() - t < 20000 ? quiet + 1 : 0;
    g_usleep(2000);
  }
}

static inline gboolean lwt_is_mapped(gpointer w)
{
  return gtk_widget_get_mapped(GTK_WIDGET(w));
}

/* the window's run has finished or failed (or there is no runner) */
static inline gboolean lwt_runner_idle(gpointer w)
{
  LwSimRunner *r = lw_window_get_runner(LW_WINDOW(w));
  LwRunnerState s = r ? lw_sim_runner_get_state(r) : LW_RUNNER_FAILED;
  return s == LW_RUNNER_FINISHED || s == LW_RUNNER_FAILED;
}

/* the Sensitivity or the Optimize page has no computation running */
static inline gboolean lwt_sens_idle(gpointer panel)
{
  return !lw_sens_panel_is_busy(LW_SENS_PANEL(panel));
}

static inline gboolean lwt_opt_idle(gpointer panel)
{
  return !lw_opt_panel_is_busy(LW_OPT_PANEL(panel));
}

static inline gboolean lwt_runner_paused(gpointer w)
{
  LwSimRunner *r = lw_window_get_runner(LW_WINDOW(w));
  return r && lw_sim_runner_get_state(r) == LW_RUNNER_PAUSED;
}

static inline gboolean lwt_runner_running(gpointer w)
{
  LwSimRunner *r = lw_window_get_runner(LW_WINDOW(w));
  return r && lw_sim_runner_get_state(r) == LW_RUNNER_RUNNING;
}

/* the run has finished or failed and the window has caught up with it:
 * its last frames plotted and shown, its status line (written last) says
 * so.  The runner's state changes on its worker thread; the window hears
 * of it later, on the main loop. */
static inline gboolean lwt_run_shown(gpointer w)
{
  LwSimRunner *r = lw_window_get_runner(LW_WINDOW(w));
  const char *status = lw_window_get_status_text(LW_WINDOW(w));
  if (!r || !status)
    return FALSE;
  switch (lw_sim_runner_get_state(r)) {
  case LW_RUNNER_FINISHED:
    return strstr(status, "done") != NULL;
  case LW_RUNNER_FAILED:
    return strstr(status, "failed") != NULL;
  default:
    return FALSE;
  }
}

/* shown: mapped, and the view has drawn its first picture */
static inline gboolean lwt_window_shown(gpointer w)
{
  return gtk_widget_get_mapped(GTK_WIDGET(w)) &&
         lw_view3d_get_pictures(LW_VIEW3D(lw_window_get_view(LW_WINDOW(w)))) > 0;
}

/* the window presented, and waited for until it is shown */
static inline LwWindow *lwt_present(LwWindow *w)
{
  gtk_window_present(GTK_WINDOW(w));
  lwt_await(lwt_window_shown, w, LWT_WAIT);
  return w;
}

static inline void lwt_act(LwWindow *w, const char *name)
{
  g_action_group_activate_action(G_ACTION_GROUP(w), name, NULL);
}

/* the window's "step" action enabled: the window enables it when its
 * thread has seen the runner pause, which comes after the runner's own
 * state (a loaded machine runs it late), and a disabled action ignores
 * its activation */
static inline gboolean lwt_step_enabled(gpointer w)
{
  return g_action_group_get_action_enabled(G_ACTION_GROUP(w), "step");
}

static inline void lwt_set_state(LwWindow *w, const char *name, gboolean on)
{
  g_action_group_change_action_state(G_ACTION_GROUP(w), name, g_variant_new_boolean(on));
}

static inline LwPropEditor *lwt_props_of(LwWindow *w)
{
  return LW_PROP_EDITOR(lw_window_get_prop_editor(w));
}

static inline LwEditor *lwt_editor_of(LwWindow *w)
{
  return LW_EDITOR(lw_window_get_editor(w));
}

/* the side panel's page is page, and on screen */
typedef struct {
  LwWindow *w;
  const char *page;
} lwt_page;

static inline gboolean lwt_page_shown(gpointer p)
{
  lwt_page *pg = p;
  GtkStack *stack = GTK_STACK(gtk_widget_get_parent(lw_window_get_sens_panel(pg->w)));
  GtkWidget *child = gtk_stack_get_visible_child(stack);
  return !g_strcmp0(gtk_stack_get_visible_child_name(stack), pg->page) && child && gtk_widget_get_mapped(child);
}

static inline void lwt_show_page(LwWindow *w, const char *page)
{
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string(page));
  lwt_page pg = {w, page};
  lwt_await(lwt_page_shown, &pg, LWT_WAIT);
}

/* a window on the built-in five-bar, shown */
static inline LwWindow *lwt_builtin_window(LwApplication *app)
{
  LwWindow *w = lw_window_new(app);
  lw_window_open_builtin(w);
  return lwt_present(w);
}

/* Run, flat out, to the end; the runner, finished, and the window caught up */
static inline LwSimRunner *lwt_run_to_end(LwWindow *w)
{
  lwt_set_state(w, "real-time", FALSE);
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, 2 * LWT_WAIT);
  LwSimRunner *r = lw_window_get_runner(w);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
  return r;
}

/* a value typed into the property page's field at path, and Enter; the
 * test fails with the field's message when it refuses the text */
static inline void lwt_enter(LwWindow *w, const char *path, const char *text)
{
  if (!lw_prop_editor_enter(lwt_props_of(w), path, text))
    g_error("field %s refused '%s': %s", path, text,
            lw_prop_editor_get_error(lwt_props_of(w), path) ? lw_prop_editor_get_error(lwt_props_of(w), path)
                                                            : "(not shown)");
}

/* the property page and the view have path (NULL: nothing) selected */
typedef struct {
  LwWindow *w;
  const char *path;
} lwt_selection;

static inline gboolean lwt_props_selected(gpointer p)
{
  lwt_selection *s = p;
  return !g_strcmp0(lw_prop_editor_get_selection(lwt_props_of(s->w)), s->path);
}

/* path selected in the view, as a click does; the property page follows */
static inline void lwt_pick(LwWindow *w, const char *path)
{
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), path);
  lwt_selection s = {w, path};
  lwt_await(lwt_props_selected, &s, LWT_WAIT);
  g_assert_cmpstr(lw_prop_editor_get_selection(lwt_props_of(w)), ==, path);
}

/* before aiming with the real pointer: the palette has slid in and the
 * editor is on screen */
static inline gboolean lwt_palette_revealed(gpointer w)
{
  GtkWidget *rev = gtk_widget_get_parent(lw_window_get_palette(LW_WINDOW(w)));
  return GTK_IS_REVEALER(rev) && gtk_revealer_get_child_revealed(GTK_REVEALER(rev)) &&
         gtk_widget_get_mapped(lw_window_get_editor(LW_WINDOW(w)));
}

static inline gboolean lwt_count_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer counter)
{
  (void)widget, (void)clock;
  ++*(int *)counter;
  return G_SOURCE_CONTINUE;
}

static inline gboolean lwt_two_ticks(gpointer counter)
{
  return *(int *)counter >= 2;
}

/* where the world's origin is in the window, or FALSE while the view has
 * no picture */
static inline gboolean lwt_origin_in_window(LwWindow *w, int *x, int *y)
{
  const double o[3] = {0, 0, 0};
  double vx, vy;
  if (!lw_editor_world_to_view(lwt_editor_of(w), o, &vx, &vy))
    return FALSE;
  graphene_point_t in = GRAPHENE_POINT_INIT((float)vx, (float)vy), out;
  if (!gtk_widget_compute_point(GTK_WIDGET(lwt_editor_of(w)), GTK_WIDGET(w), &in, &out))
    return FALSE;
  *x = (int)lround(out.x), *y = (int)lround(out.y);
  return TRUE;
}

/* before aiming at world points: the palette has slid in, and the layout
 * has settled and the camera been framed to it, that is the origin stays
 * at the same point of the window over two frames (on a loaded machine a
 * frame can take longer than any fixed pause) */
static inline void lwt_editor_settle(LwWindow *w)
{
  lwt_await(lwt_palette_revealed, w, LWT_WAIT);
  GtkWidget *ed = GTK_WIDGET(lwt_editor_of(w));
  gint64 end = g_get_monotonic_time() + (gint64)(LWT_WAIT * G_USEC_PER_SEC);
  int x0 = -1, y0 = -1;
  gboolean had = lwt_origin_in_window(w, &x0, &y0);
  for (;;) {
    int ticks = 0, x1 = -1, y1 = -1;
    guint id = gtk_widget_add_tick_callback(ed, lwt_count_tick, &ticks, NULL);
    lwt_await(lwt_two_ticks, &ticks, LWT_WAIT);
    gtk_widget_remove_tick_callback(ed, id);
    gboolean has = lwt_origin_in_window(w, &x1, &y1);
    if (had && has && x1 == x0 && y1 == y0)
      break;
    if (g_get_monotonic_time() > end)
      g_error("the view did not settle within %g s: the origin moved from (%d, %d) to (%d, %d)", LWT_WAIT, x0, y0,
              x1, y1);
    had = has, x0 = x1, y0 = y1;
  }
}

/* a signal counted (connected swapped, with the counter as data), and the
 * condition that it came */
static inline void lwt_count_signal(gpointer counter)
{
  ++*(int *)counter;
}

static inline gboolean lwt_counter_positive(gpointer counter)
{
  return *(int *)counter > 0;
}

/* ---- documents, questions and file choosers ---- */

/* the window presented (with or without a model yet: an empty view draws
 * no picture), mapped and laid out */
static inline LwWindow *lwt_show(LwWindow *w)
{
  gtk_window_present(GTK_WINDOW(w));
  lwt_await(lwt_is_mapped, w, LWT_WAIT);
  lwt_settle(5);
  return w;
}

/* a copy of a shipped model in a directory of its own under dir (its path,
 * to free) */
static inline char *lwt_copy_model(const char *dir, const char *name)
{
  static int n;
  g_autofree char *sub = g_strdup_printf("m%d", ++n);
  g_autofree char *where = g_build_filename(dir, sub, NULL);
  g_assert_cmpint(g_mkdir_with_parents(where, 0700), ==, 0);
  g_autofree char *src = g_build_filename(LW_MODELS_DIR, name, NULL);
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true(g_file_get_contents(src, &data, &len, NULL));
  char *path = g_build_filename(where, name, NULL);
  g_assert_true(g_file_set_contents(path, data, (gssize)len, NULL));
  return path;
}

/* an edit as the property page makes it: the first body twice as heavy */
static inline void lwt_edit_mass(LwWindow *w)
{
  lw_desc *d = lw_desc_copy(lw_window_get_desc(w));
  d->bodies[0].mass *= 2;
  g_signal_emit_by_name(lw_window_get_prop_editor(w), "edit", d, "mass");
  g_assert_true(lw_window_get_modified(w));
}

/* the message dialog a window shows (transient for it), or NULL */
static inline AdwMessageDialog *lwt_dialog_for(LwWindow *w)
{
  AdwMessageDialog *found = NULL;
  GList *all = gtk_window_list_toplevels();
  for (GList *l = all; l; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG(l->data) && gtk_window_get_transient_for(GTK_WINDOW(l->data)) == GTK_WINDOW(w) &&
        gtk_widget_get_visible(GTK_WIDGET(l->data)))
      found = ADW_MESSAGE_DIALOG(l->data);
  g_list_free(all);
  return found;
}

static inline gboolean lwt_dialog_shown(gpointer w)
{
  return lwt_dialog_for(LW_WINDOW(w)) != NULL;
}

static inline gboolean lwt_widget_hidden(gpointer widget)
{
  return !gtk_widget_get_visible(GTK_WIDGET(widget));
}

/* answer the window's question; the dialog goes (as after a click on
 * its button, which closes it: emitting the response alone does not) */
static inline void lwt_respond(LwWindow *w, const char *response)
{
  lwt_await(lwt_dialog_shown, w, LWT_WAIT);
  AdwMessageDialog *ask = g_object_ref(lwt_dialog_for(w));
  adw_message_dialog_response(ask, response);
  if (gtk_widget_get_visible(GTK_WIDGET(ask)))
    gtk_window_destroy(GTK_WINDOW(ask));
  lwt_await(lwt_widget_hidden, ask, LWT_WAIT);
  g_object_unref(ask);
}

/* the file chooser a window shows (GTK's own dialog: no portal here) */
static inline GtkWidget *lwt_chooser_for(LwWindow *w)
{
  GtkWidget *found = NULL;
  GList *all = gtk_window_list_toplevels();
  for (GList *l = all; l; l = l->next)
    if (GTK_IS_FILE_CHOOSER(l->data) && gtk_window_get_transient_for(GTK_WINDOW(l->data)) == GTK_WINDOW(w) &&
        gtk_widget_get_visible(GTK_WIDGET(l->data)))
      found = l->data;
  g_list_free(all);
  return found;
}

static inline gboolean lwt_chooser_shown(gpointer w)
{
  return lwt_chooser_for(LW_WINDOW(w)) != NULL;
}

static inline gboolean lwt_chooser_gone(gpointer w)
{
  return lwt_chooser_for(LW_WINDOW(w)) == NULL;
}

/* the chooser has file selected (its folder loaded) */
typedef struct {
  GtkWidget *chooser;
  GFile *file;
} lwt_chosen;

static inline gboolean lwt_file_chosen(gpointer p)
{
  lwt_chosen *c = p;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_autoptr(GFile) f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(c->chooser));
  G_GNUC_END_IGNORE_DEPRECATIONS
  return f && g_file_equal(f, c->file);
}

/* path chosen in the window's file chooser and accepted, as a user would;
 * the chooser gone (the window has opened or written the file) */
static inline void lwt_choose(LwWindow *w, const char *path, gboolean save)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  lwt_await(lwt_chooser_shown, w, LWT_WAIT);
  GtkWidget *chooser = lwt_chooser_for(w);
  /* mapped, the chooser goes to a folder of its own: what is chosen
   * before would be lost */
  lwt_await(lwt_is_mapped, chooser, LWT_WAIT);
  lwt_settle(2);
  g_autoptr(GFile) f = g_file_new_for_path(path);
  if (save) {
    g_autoptr(GFile) dir = g_file_get_parent(f);
    g_autofree char *base = g_file_get_basename(f);
    gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(chooser), dir, NULL);
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), base);
  } else
    gtk_file_chooser_set_file(GTK_FILE_CHOOSER(chooser), f, NULL);
  lwt_chosen c = {chooser, f};
  lwt_await(lwt_file_chosen, &c, LWT_WAIT);
  lwt_settle(2);
  lwt_await(lwt_file_chosen, &c, LWT_WAIT); /* still, the folder loaded */
  gtk_dialog_response(GTK_DIALOG(chooser), GTK_RESPONSE_ACCEPT);
  G_GNUC_END_IGNORE_DEPRECATIONS
  lwt_await(lwt_chooser_gone, w, LWT_WAIT);
}

/* the view has shown a picture after the one it showed at `since` */
typedef struct {
  LwView3d *view;
  guint64 since;
} lwt_pictures;

static inline gboolean lwt_new_picture(gpointer p)
{
  lwt_pictures *pc = p;
  return lw_view3d_get_pictures(pc->view) > pc->since;
}

/* the view (when on screen) redrawn, and waited for until that picture is
 * shown: what the model is now, not a frame from before an edit */
static inline void lwt_fresh_picture(LwWindow *w)
{
  LwView3d *view = LW_VIEW3D(lw_window_get_view(w));
  if (!gtk_widget_get_mapped(GTK_WIDGET(view)))
    return;
  lwt_pictures pc = {view, lw_view3d_get_pictures(view)};
  lw_view3d_redraw(view);
  lwt_await(lwt_new_picture, &pc, LWT_WAIT);
}

/* a screenshot of the window as NAME.png in LW_SCREENSHOT_DIR/subdir, or in
 * fallback (the build directory's) when that is not set; its path (to
 * free), with the view's picture of the model as it is now.  Under load
 * the window may not have drawn yet: it is tried again for five seconds */
/* the window's screenshot into path, tried again for 5 s (under load the
 * window may not be shown or have its first frame yet) */
static inline void lwt_save_shot(LwWindow *w, const char *path)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = FALSE;
  for (int tries = 0; !ok && tries < 20; tries++) {
    g_clear_error(&error);
    ok = gtk_widget_get_mapped(GTK_WIDGET(w)) && lw_window_save_screenshot(w, path, &error);
    if (!ok)
      lwt_spin(0.25);
  }
  if (!ok)
    g_error("screenshot %s: %s", path, error ? error->message : "the window is not shown");
}

static inline char *lwt_shot(LwWindow *w, const char *subdir, const char *fallback, const char *name)
{
  lwt_fresh_picture(w);
  lwt_settle(2);
  const char *dir = g_getenv("LW_SCREENSHOT_DIR");
  g_autofree char *sdir = dir && *dir ? g_build_filename(dir, subdir, NULL) : g_strdup(fallback);
  g_mkdir_with_parents(sdir, 0755);
  g_autofree char *file = g_strdup_printf("%s.png", name);
  char *path = g_build_filename(sdir, file, NULL);
  lwt_save_shot(w, path);
  g_test_message("screenshot %s", path);
  return path;
}

/* a file, or a directory and all in it, removed */
static inline void lwt_rm_rf(const char *path)
{
  GDir *d = g_dir_open(path, 0, NULL);
  if (d) {
    const char *n;
    while ((n = g_dir_read_name(d))) {
      g_autofree char *p = g_build_filename(path, n, NULL);
      lwt_rm_rf(p);
    }
    g_dir_close(d);
    g_rmdir(path);
  } else
    g_unlink(path);
}

/* the first widget under root (root included, depth first) that match takes */
static inline GtkWidget *lwt_find_widget(GtkWidget *root, gboolean (*match)(GtkWidget *, gconstpointer),
                                         gconstpointer data)
{
  if (match(root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = lwt_find_widget(c, match, data);
    if (f)
      return f;
  }
  return NULL;
}

#endif
