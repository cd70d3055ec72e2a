/* lw-window-actions.c: the main window's actions (win.*).
 *
 * The action table and the callbacks that only forward to the view, the
 * runner, the plots or the panels; the file and undo actions call into
 * lw-window-file.c and lw-window-undo.c. */
#include "lw-window-private.h"

#include <glib/gi18n.h>

#include "lw-anim-dialog.h"
#include "lw-editor.h"

/* ---- actions ----------------------------------------------------------------- */
static void set_enabled(LwWindow *self, const char *name, gboolean on)
{
  GAction *a = g_action_map_lookup_action(G_ACTION_MAP(self), name);
  if (a)
    g_simple_action_set_enabled(G_SIMPLE_ACTION(a), on);
}

void _lw_window_update_actions(LwWindow *self)
{
  LwRunnerState st = self->runner ? lw_sim_runner_get_state(self->runner) : LW_RUNNER_FINISHED;
  gboolean can_run = st == LW_RUNNER_READY || st == LW_RUNNER_PAUSED || st == LW_RUNNER_CANCELLED;
  set_enabled(self, "run", can_run);
  set_enabled(self, "pause", st == LW_RUNNER_RUNNING);
  set_enabled(self, "step", can_run);
  set_enabled(self, "reset", self->runner != NULL);
  set_enabled(self, "compare-friction", self->runner != NULL && self->any_friction && !self->comparing);
  set_enabled(self, "undo", self->undo && self->undo->len > 0);
  set_enabled(self, "redo", self->redo && self->redo->len > 0);
  GAction *play = g_action_map_lookup_action(G_ACTION_MAP(self), "play");
  g_simple_action_set_state(G_SIMPLE_ACTION(play), g_variant_new_boolean(self->playing));
  g_simple_action_set_enabled(G_SIMPLE_ACTION(play), st != LW_RUNNER_RUNNING);
}

static void run_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (!self->runner)
    return;
  self->playing = FALSE;
  _lw_window_hide_message(self);
  lw_sim_runner_start(self->runner);
  _lw_window_update_actions(self);
}

static void pause_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (self->runner)
    lw_sim_runner_pause(self->runner);
}

static void step_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (self->runner)
    lw_sim_runner_step(self->runner);
}

static void reset_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (!self->runner)
    return;
  self->playing = FALSE;
  lw_sim_runner_reset(self->runner);
  /* keep the chosen series, drop their data */
  lw_plot_page_rewind(self->plot_page);
  lw_view3d_clear_traces(LW_VIEW3D(self->view));
  self->live_frames = 1;
  _lw_window_show_frame(self, 0);
  _lw_window_set_scale_range(self);
  _lw_window_hide_message(self);
  _lw_window_update_status(self);
  _lw_window_update_actions(self);
}

static void play_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)p;
  LwWindow *self = user;
  if (!self->runner)
    return;
  self->playing = !self->playing;
  if (self->playing && self->shown_time >= lw_sim_runner_get_time(self->runner) - 1e-12)
    self->shown_time = 0; /* from the start when at the end */
  if (self->playing)
    self->last_frame_us = 0; /* the replay's clock starts at the next frame */
  g_simple_action_set_state(a, g_variant_new_boolean(self->playing));
}

static void loop_cb(GSimpleAction *a, GVariant *value, gpointer user)
{
  LwWindow *self = user;
  self->loop = g_variant_get_boolean(value);
  g_simple_action_set_state(a, value);
  if (self->settings)
    g_settings_set_boolean(self->settings, "playback-loop", self->loop);
}

static void real_time_cb(GSimpleAction *a, GVariant *value, gpointer user)
{
  LwWindow *self = user;
  self->real_time = g_variant_get_boolean(value);
  g_simple_action_set_state(a, value);
  if (self->runner)
    lw_sim_runner_set_real_time(self->runner, self->real_time, 1.0);
  if (self->settings)
    g_settings_set_boolean(self->settings, "real-time", self->real_time);
}

static void speed_step(LwWindow *self, int d)
{
  int k = (int)gtk_drop_down_get_selected(GTK_DROP_DOWN(self->speed_dropdown)) + d;
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->speed_dropdown), (guint)CLAMP(k, 0, 5));
}

static void slower_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  speed_step(user, -1);
}

static void faster_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  speed_step(user, +1);
}

static void view_toggle(LwWindow *self, GSimpleAction *a, GVariant *value, const char *prop, const char *key)
{
  g_simple_action_set_state(a, value);
  g_object_set(self->view, prop, g_variant_get_boolean(value), NULL);
  if (self->settings && key)
    g_settings_set_boolean(self->settings, key, g_variant_get_boolean(value));
}

static void show_frames_cb(GSimpleAction *a, GVariant *value, gpointer user)
{
  view_toggle(user, a, value, "show-frames", "show-frames");
}

static void show_traces_cb(GSimpleAction *a, GVariant *value, gpointer user)
{
  view_toggle(user, a, value, "show-traces", "show-traces");
}

static void reset_camera_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  lw_view3d_reset_camera(LW_VIEW3D(self->view));
}

static void zoom_in_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  gtk_widget_activate_action(self->view, "view.zoom-in", NULL);
}

static void zoom_out_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  gtk_widget_activate_action(self->view, "view.zoom-out", NULL);
}

static void show_page_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  LwWindow *self = user;
  gtk_stack_set_visible_child_name(GTK_STACK(self->side_stack), g_variant_get_string(p, NULL));
}

static void dismiss_message_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  _lw_window_hide_message(user);
}

static void add_series_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (!lw_plot_page_add_chosen(self->plot_page, FALSE))
    _lw_window_toast(self, _("Choose a quantity to plot"));
}

static void clear_plot_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  lw_plot_page_clear(LW_WINDOW(user)->plot_page);
}

static void run_sensitivity_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  gtk_stack_set_visible_child_name(GTK_STACK(self->side_stack), "sensitivity");
  lw_sens_panel_run(self->sens_panel);
}

static void run_optimization_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  gtk_stack_set_visible_child_name(GTK_STACK(self->side_stack), "optimization");
  lw_opt_panel_run(self->opt_panel);
}

static void edit_mode_cb(GSimpleAction *a, GVariant *value, gpointer user)
{
  LwWindow *self = user;
  self->editing = g_variant_get_boolean(value);
  g_simple_action_set_state(a, value);
  gtk_revealer_set_reveal_child(GTK_REVEALER(self->palette_revealer), self->editing);
  gtk_widget_set_visible(self->editor, self->editing);
  gtk_stack_set_visible_child_name(GTK_STACK(self->inspector_stack), self->editing ? "edit" : "view");
  /* no camera moving by itself under the pointer while editing */
  lw_view3d_set_follow_motion(LW_VIEW3D(self->view), !self->editing);
  if (self->editing) {
    gtk_stack_set_visible_child_name(GTK_STACK(self->side_stack), "inspector");
    if (self->runner && lw_sim_runner_get_state(self->runner) == LW_RUNNER_RUNNING)
      lw_sim_runner_pause(self->runner);
    _lw_window_refresh_editing(self);
  }
  _lw_window_update_actions(self);
}

static void delete_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  /* a copy: clearing the selection below frees the view's */
  g_autofree char *sel = g_strdup(lw_view3d_get_selection(LW_VIEW3D(self->view)));
  if (!self->desc || !sel) {
    _lw_window_toast(self, _("Select a body, joint or force to delete"));
    return;
  }
  lw_desc *d = lw_desc_copy(self->desc);
  int n = lw_desc_remove(d, sel);
  if (n <= 0) {
    lw_desc_free(d);
    return;
  }
  g_autofree char *what = g_strdup_printf(_("Delete %s"), sel);
  lw_view3d_set_selection(LW_VIEW3D(self->view), NULL);
  _lw_window_edit_cb(NULL, d, what, self);
  g_autofree char *msg = n > 1 ? g_strdup_printf(_("Deleted %s and %d element(s) that used it (Ctrl+Z to undo)"), sel, n - 1)
                               : g_strdup_printf(_("Deleted %s (Ctrl+Z to undo)"), sel);
  _lw_window_toast(self, msg);
}

static void duplicate_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  const char *sel = lw_view3d_get_selection(LW_VIEW3D(self->view));
  if (!self->desc || !sel || !g_str_has_prefix(sel, "bodies/")) {
    _lw_window_toast(self, _("Select a body to duplicate"));
    return;
  }
  lw_desc *d = lw_desc_copy(self->desc);
  for (int b = 0; b < d->nbodies; b++) {
    if (strcmp(d->bodies[b].name, sel + 7))
      continue;
    /* a copy of the body alone (no joints), a little aside */
    lw_desc *one = lw_desc_copy(self->desc);
    char name[64];
    lw_desc_unique_name(d, d->bodies[b].name, name, sizeof name);
    lw_body_desc *nb = lw_desc_add_body(d, name);
    const lw_body_desc *src = &one->bodies[b];
    double offset = 0.2;
    nb->mass = src->mass;
    memcpy(nb->com, src->com, sizeof nb->com);
    memcpy(nb->inertia, src->inertia, sizeof nb->inertia);
    memcpy(nb->position, src->position, sizeof nb->position);
    memcpy(nb->orientation, src->orientation, sizeof nb->orientation);
    nb->angle = src->angle;
    nb->position[0] += offset;
    nb->position[1] += offset;
    for (int k = 0; k < src->npoints; k++)
      lw_body_add_point(nb, src->points[k].name, src->points[k].p);
    for (int k = 0; k < src->ngeoms; k++)
      lw_body_copy_geom(nb, &src->geoms[k]);
    lw_desc_free(one);
    g_autofree char *what = g_strdup_printf(_("Duplicate %s as %s"), sel, name);
    g_autofree char *path = g_strconcat("bodies/", name, NULL);
    _lw_window_edit_cb(NULL, d, what, self);
    lw_view3d_set_selection(LW_VIEW3D(self->view), path);
    return;
  }
  lw_desc_free(d);
}

static void snap_grid_cb(GSimpleAction *a, GVariant *value, gpointer user)
{
  LwWindow *self = user;
  g_simple_action_set_state(a, value);
  lw_editor_set_snap_to_grid(LW_EDITOR(self->editor), g_variant_get_boolean(value));
}

/* beams coloured by their stress at the frame shown, with the scale's legend */
static void show_stress_cb(GSimpleAction *a, GVariant *value, gpointer user)
{
  LwWindow *self = user;
  g_simple_action_set_state(a, value);
  self->show_stress = g_variant_get_boolean(value);
  if (self->runner)
    _lw_window_show_frame(self, self->shown_frame);
  else
    gtk_widget_set_visible(self->stress_legend, FALSE);
}

static void close_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  gtk_window_close(GTK_WINDOW(user));
}

/* Export Animation: a dialog on the run recorded so far, drawn with what
 * the view shows (grid, joints, frames, forces) */
static void export_animation_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (!self->runner) {
    _lw_window_show_message(self, _("Nothing to animate: the model does not run yet"));
    return;
  }
  lw_render_options opt = {TRUE, TRUE, FALSE, TRUE, FALSE, 0, FALSE};
  g_object_get(self->view, "show-grid", &opt.show_grid, "show-joints", &opt.show_joints, "show-frames",
               &opt.show_frames, "show-forces", &opt.show_forces, NULL);
  LwAnimDialog *dialog = lw_anim_dialog_new(GTK_WINDOW(self), self->runner, NULL, &opt);
  gtk_window_present(GTK_WINDOW(dialog));
}

/* Help: the Mallard pages through the desktop's help viewer (Yelp); where
 * no program opens help: addresses, the message says where the tutorial is */
static void help_launched_cb(GObject *source, GAsyncResult *res, gpointer user)
{
  (void)source;
  g_autoptr(LwWindow) self = user;
  g_autoptr(GError) error = NULL;
  if (g_app_info_launch_default_for_uri_finish(res, &error))
    return;
  g_autofree char *msg =
    g_strdup_printf(_("The help cannot be shown: the help viewer Yelp (package yelp) is not installed (%s). "
                      "The tutorial is also in %s."),
                    error->message, LW_DOCDIR "/tutorial.md");
  _lw_window_show_message(self, msg);
}

static void help_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  g_autoptr(GAppLaunchContext) ctx =
    G_APP_LAUNCH_CONTEXT(gdk_display_get_app_launch_context(gtk_widget_get_display(GTK_WIDGET(self))));
  g_app_info_launch_default_for_uri_async("help:linkwright", ctx, NULL, help_launched_cb, g_object_ref(self));
}

static const GActionEntry win_actions[] = {
  {"new", _lw_window_new_cb, NULL, NULL, NULL, {0}},
  {"new-spatial", _lw_window_new_spatial_cb, NULL, NULL, NULL, {0}},
  {"edit-mode", NULL, NULL, "false", edit_mode_cb, {0}},
  {"delete", delete_cb, NULL, NULL, NULL, {0}},
  {"duplicate", duplicate_cb, NULL, NULL, NULL, {0}},
  {"snap-grid", NULL, NULL, "true", snap_grid_cb, {0}},
  {"open", _lw_window_open_cb, NULL, NULL, NULL, {0}},
  {"examples", _lw_window_examples_cb, NULL, NULL, NULL, {0}},
  {"open-recent", _lw_window_open_recent_cb, "i", NULL, NULL, {0}},
  {"save", _lw_window_save_cb, NULL, NULL, NULL, {0}},
  {"save-as", _lw_window_save_as_cb, NULL, NULL, NULL, {0}},
  {"close", close_cb, NULL, NULL, NULL, {0}},
  {"run", run_cb, NULL, NULL, NULL, {0}},
  {"pause", pause_cb, NULL, NULL, NULL, {0}},
  {"step", step_cb, NULL, NULL, NULL, {0}},
  {"reset", reset_cb, NULL, NULL, NULL, {0}},
  {"compare-friction", _lw_window_compare_friction_cb, NULL, NULL, NULL, {0}},
  {"real-time", NULL, NULL, "true", real_time_cb, {0}},
  {"run-sensitivity", run_sensitivity_cb, NULL, NULL, NULL, {0}},
  {"run-optimization", run_optimization_cb, NULL, NULL, NULL, {0}},
  {"undo", _lw_window_undo_cb, NULL, NULL, NULL, {0}},
  {"redo", _lw_window_redo_cb, NULL, NULL, NULL, {0}},
  {"play", play_cb, NULL, "false", NULL, {0}},
  {"loop", NULL, NULL, "false", loop_cb, {0}},
  {"slower", slower_cb, NULL, NULL, NULL, {0}},
  {"faster", faster_cb, NULL, NULL, NULL, {0}},
  {"reset-camera", reset_camera_cb, NULL, NULL, NULL, {0}},
  {"zoom-in", zoom_in_cb, NULL, NULL, NULL, {0}},
  {"zoom-out", zoom_out_cb, NULL, NULL, NULL, {0}},
  {"show-frames", NULL, NULL, "false", show_frames_cb, {0}},
  {"show-traces", NULL, NULL, "true", show_traces_cb, {0}},
  {"show-stress", NULL, NULL, "false", show_stress_cb, {0}},
  {"show-page", show_page_cb, "s", NULL, NULL, {0}},
  {"dismiss-message", dismiss_message_cb, NULL, NULL, NULL, {0}},
  {"add-series", add_series_cb, NULL, NULL, NULL, {0}},
  {"clear-plot", clear_plot_cb, NULL, NULL, NULL, {0}},
  {"export-plot", _lw_window_export_plot_cb, NULL, NULL, NULL, {0}},
  {"export-csv", _lw_window_export_csv_cb, NULL, NULL, NULL, {0}},
  {"export-animation", export_animation_cb, NULL, NULL, NULL, {0}},
  {"help", help_cb, NULL, NULL, NULL, {0}},
};

/* ---- editing: public API -------------------------------------------------------- */
/* Delete is the key of win.delete: while a text field has the focus it
 * belongs to the field */
static void focus_changed_cb(GObject *window, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  (void)user;
  GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(window));
  set_enabled(LW_WINDOW(window), "delete", !(focus && GTK_IS_EDITABLE(focus)));
}

void _lw_window_watch_focus(LwWindow *self)
{
  g_signal_connect(self, "notify::focus-widget", G_CALLBACK(focus_changed_cb), NULL);
}

/* Installs the window's actions, with the states read from the settings. */
void _lw_window_actions_init(LwWindow *self)
{
  g_action_map_add_action_entries(G_ACTION_MAP(self), win_actions, G_N_ELEMENTS(win_actions), self);
  g_simple_action_set_state(G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(self), "loop")),
                            g_variant_new_boolean(self->loop));
  g_simple_action_set_state(G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(self), "real-time")),
                            g_variant_new_boolean(self->real_time));
}
