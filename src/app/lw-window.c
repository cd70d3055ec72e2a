/* lw-window.c: the main window (see lw-window.h).
 *
 * The window owns the user's model description (what is saved), a runner
 * that simulates a compiled copy on a worker thread, and a workspace used
 * only to turn recorded coordinates into poses for the view.  A model that
 * fails to load, compile or assemble never replaces the current one.
 *
 * Undo: a design applied from the optimization panel replaces the model;
 * the model before it goes on a small undo stack (copies of the whole
 * description, with its modified flag), and win.undo / win.redo move
 * between them.  Opening another file starts a new history.  An entry keeps
 * the file and name of its document, so that undoing New gives back the
 * model with its file.
 *
 * Replacing the document (open, recent, examples, new, recovery, closing)
 * always goes through lw_window_confirm_replace, which asks before unsaved
 * changes are dropped.
 *
 * Editing (win.edit-mode): a palette beside the view and an editor layer
 * over it build the model with the mouse, and the inspector page edits
 * properties.  Every edit is a whole new description: the previous one goes
 * on the same undo stack, the new one is checked live (compiled, assembled,
 * rank of the constraint Jacobian) and becomes the document even when it
 * cannot run yet: the view then shows it where assembly left it and the
 * runner is dropped until the model assembles again.  After each edit the
 * document is written to an autosave file (lw-autosave.h), removed when the
 * window closes without unsaved changes; closing with unsaved changes asks
 * first. */
#include "lw-window.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lw-autosave.h"
#include "lw-editor.h"
#include "lw-frame-stats.h"
#include "lw-inspector.h"
#include "lw-measure-actions.h"
#include "lw-palette.h"
#include "lw-panel-util.h"
#include "lw-prop-editor.h"
#include "lw-opt-panel.h"
#include "lw_io.h"
#include "lw-plot-page.h"
#include "lw-plot-view.h"
#include "lw-plot.h"
#include "lw-sens-panel.h"
#include "lw-template-dialog.h"
#include "lw-view3d.h"

#define BUILTIN_MODEL "resource:///io/github/linkwright/Linkwright/models/five-bar.json"

static const double speeds[] = {0.1, 0.25, 0.5, 1.0, 2.0, 4.0};

#define PLOT_INTERVAL_US 33000 /* the plots during a live run: 30 Hz */
#define TEXT_INTERVAL_US 99000 /* the time slider and the status text: 10 Hz */
#define REPLAY_MAX_STEP_S 0.1

struct _LwWindow {
  AdwApplicationWindow parent_instance;

  /* template */
  AdwWindowTitle *window_title;
  AdwToastOverlay *toast_overlay;
  GtkWidget *status_label;
  GtkWidget *message_revealer, *message_label;
  GtkWidget *view_overlay, *gl_status;
  GtkWidget *open_button;
  GtkWidget *time_scale, *time_label, *speed_dropdown;
  GtkAdjustment *time_adjustment;
  GtkWidget *plots_page;
  GtkWidget *side_stack;
  GtkWidget *palette_revealer, *inspector_stack;
  LwInspector *inspector;
  LwPropEditor *prop_editor;
  LwSensPanel *sens_panel;
  LwOptPanel *opt_panel;
  GMenu *recent_section;

  GtkWidget *view;       /* LwView3d */
  GtkWidget *palette;    /* LwPalette */
  GtkWidget *editor;     /* LwEditor, over the view in editing mode */
  gboolean editing;
  char *autosave_path;   /* this window's autosave file */
  gboolean closing_confirmed;
  AdwMessageDialog *confirm_dialog; /* Save / Discard / Cancel, while it is up */
  AdwMessageDialog *recovery_dialog;
  char *recovery_path;
  LwPlotPage *plot_page;
  GSettings *settings;   /* NULL when the schema is not installed */

  /* the document */
  lw_desc *desc;         /* the user's model, as loaded or saved */
  GFile *file;           /* NULL: built-in or example (save asks where) */
  char *display_name;
  gboolean modified;     /* changed since loaded or saved (an applied design) */
  guint doc_id;          /* which document (opened, new, recovered) the model is a state of */
  GPtrArray *undo, *redo; /* UndoEntry, the newest last */
  LwSimRunner *runner;
  lw_data *view_data;    /* poses from recorded q, main thread only */
  int nq, ncols, nbodies, njoints, nforces;
  double *q, *outputs, *poses, *joints, *forces;
  int n_user_outputs;    /* the model file's outputs (the built-in ones follow) */

  /* playback and live display */
  guint tick_id;
  gboolean playing, loop, real_time;
  double shown_time;
  gint64 last_frame_us;
  gint64 last_plot_us, last_text_us; /* plots; slider and status: last refreshed during a live run */
  guint shown_frame;
  gboolean updating_scale;
  guint live_frames;     /* frames already shown live (the rest are new) */
  char *message;
  gboolean automation_done;

  /* frame statistics (--bench-fps) */
  GArray *frame_times;   /* intervals between displayed frames, s */
  gint64 bench_start_us;
  LwCpuMark bench_cpu; /* at bench_start_us */
  guint64 bench_pictures; /* the view's pictures by then */
  gint64 bench_shown_us;   /* when the model was shown */
  gint64 bench_run_us;     /* when Run was pressed */
  gboolean bench_threaded; /* the view on its render thread by then */
  guint bench_waits;     /* checks for the view's render thread before Run */
};

G_DEFINE_FINAL_TYPE(LwWindow, lw_window, ADW_TYPE_APPLICATION_WINDOW)

static void show_frame(LwWindow *self, guint k);
static guint next_doc_id(void);
static void update_actions(LwWindow *self);
static void watch_focus(LwWindow *self);

/* ---- messages ----------------------------------------------------------- */
static void show_message(LwWindow *self, const char *text)
{
  g_free(self->message);
  self->message = g_strdup(text);
  gtk_label_set_text(GTK_LABEL(self->message_label), text);
  gtk_revealer_set_reveal_child(GTK_REVEALER(self->message_revealer), TRUE);
}

static void hide_message(LwWindow *self)
{
  g_clear_pointer(&self->message, g_free);
  gtk_revealer_set_reveal_child(GTK_REVEALER(self->message_revealer), FALSE);
}

static void toast(LwWindow *self, const char *text)
{
  adw_toast_overlay_add_toast(self->toast_overlay, adw_toast_new(text));
}

const char *lw_window_get_message(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->message;
}

/* ---- the status line ------------------------------------------------------ */
static void update_status(LwWindow *self)
{
  if (!self->runner)
    return;
  char buf[160];
  LwRunnerState st = lw_sim_runner_get_state(self->runner);
  double t = lw_sim_runner_get_time(self->runner);
  switch (st) {
  case LW_RUNNER_RUNNING: {
    double rtf = lw_sim_runner_get_real_time_factor(self->runner);
    if (rtf > 0)
      g_snprintf(buf, sizeof buf, _("t = %.3f s · %.2f× real time"), t, rtf);
    else
      g_snprintf(buf, sizeof buf, _("t = %.3f s · running"), t);
    break;
  }
  case LW_RUNNER_PAUSED:
    g_snprintf(buf, sizeof buf, _("t = %.3f s · paused"), t);
    break;
  case LW_RUNNER_FINISHED:
    g_snprintf(buf, sizeof buf, _("t = %.3f s · done, max |Φ| %.1e"), t,
               lw_sim_runner_get_max_constraint_residual(self->runner));
    break;
  case LW_RUNNER_FAILED:
    g_snprintf(buf, sizeof buf, _("t = %.3f s · failed"), t);
    break;
  case LW_RUNNER_CANCELLED:
    g_snprintf(buf, sizeof buf, _("t = %.3f s · stopped"), t);
    break;
  default:
    g_snprintf(buf, sizeof buf, _("t = %.3f s · ready"), t);
  }
  /* a run pulled by the perturbation spring is not the model's free motion */
  if (lw_sim_runner_get_perturbed_steps(self->runner) > 0)
    g_strlcat(buf, _(" · perturbed"), sizeof buf);
  gtk_inscription_set_text(GTK_INSCRIPTION(self->status_label), buf);
}

/* ---- showing a frame ------------------------------------------------------ */
static void show_frame(LwWindow *self, guint k)
{
  if (!self->runner)
    return;
  double t;
  if (!lw_sim_runner_get_frame(self->runner, k, &t, self->q, self->outputs))
    return;
  const lw_model *m = lw_sim_runner_get_model(self->runner);
  lw_data_set_state(m, self->view_data, t, self->q, NULL, NULL, NULL);
  for (int b = 0; b < self->nbodies; b++)
    lw_body_pose(m, self->view_data, b, self->poses + 12 * b, self->poses + 12 * b + 3);
  lw_scene_geometry(m, self->view_data, self->joints, self->forces);
  lw_render_state rs = {t, self->nbodies, self->poses, self->njoints, self->joints, self->nforces, self->forces};
  lw_view3d_set_state(LW_VIEW3D(self->view), &rs);
  lw_inspector_set_outputs(self->inspector, t, self->outputs);
  self->shown_time = t;
  self->shown_frame = k;
  char buf[32];
  g_snprintf(buf, sizeof buf, "%.3f s", t);
  gtk_inscription_set_text(GTK_INSCRIPTION(self->time_label), buf);
}

double lw_window_get_shown_time(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), 0);
  return self->shown_time;
}

/* traces of the point-position outputs, from the recorded frames */
static void update_traces(LwWindow *self, guint nframes)
{
  const lw_model *m = lw_sim_runner_get_model(self->runner);
  const lw_desc *d = lw_model_desc(m);
  int col = 0, k = 0;
  double *buf = g_new(double, nframes), *xyz = g_new0(double, 3 * (gsize)nframes);
  for (int o = 0; o < d->noutputs; o++) {
    int w = lw_model_output_width(m, o);
    if (d->outputs[o].type == LW_OUT_POSITION && o < self->n_user_outputs) { /* not the built-in points */
      for (int i = 0; i < w && i < 3; i++) {
        lw_sim_runner_copy_column(self->runner, col + i, 0, nframes, buf);
        for (guint f = 0; f < nframes; f++)
          xyz[3 * f + i] = buf[f];
      }
      lw_view3d_set_trace(LW_VIEW3D(self->view), k++, xyz, (int)nframes);
    }
    col += w;
  }
  g_free(buf);
  g_free(xyz);
}

static void set_scale_range(LwWindow *self)
{
  self->updating_scale = TRUE;
  double t_last = lw_sim_runner_get_time(self->runner);
  gtk_adjustment_set_upper(self->time_adjustment, t_last);
  gtk_adjustment_set_value(self->time_adjustment, self->shown_time);
  self->updating_scale = FALSE;
}

static void record_frame_time(LwWindow *self, gint64 now)
{
  const LwAutomation *au = lw_application_get_automation(LW_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  if (!au || au->bench_fps <= 0 || !self->frame_times)
    return;
  if (self->last_frame_us) {
    double dt = (now - self->last_frame_us) * 1e-6;
    g_array_append_val(self->frame_times, dt);
  }
}

static void bench_report_and_quit(LwWindow *self)
{
  LwCpuMark end;
  lw_cpu_mark(&end);
  GString *out = g_string_new(NULL);
  lw_frame_stats_append(out, self->frame_times);
  int scale = gtk_widget_get_scale_factor(self->view);
  g_string_append_printf(out, ", pictures %" G_GUINT64_FORMAT ", render %.2f ms, view %dx%d, simulated t = %.3f s, real-time factor %.2f, Run %.1f s after the model was shown%s",
                         lw_view3d_get_pictures(LW_VIEW3D(self->view)) - self->bench_pictures,
                         lw_view3d_get_frame_time_ms(LW_VIEW3D(self->view)), scale * gtk_widget_get_width(self->view),
                         scale * gtk_widget_get_height(self->view), lw_sim_runner_get_time(self->runner),
                         lw_sim_runner_get_real_time_factor(self->runner),
                         (double)(self->bench_run_us - self->bench_shown_us) * 1e-6,
                         self->bench_threaded ? "" : " (the view not yet on its render thread)");
  lw_cpu_stats_append(out, &self->bench_cpu, &end, self->frame_times->len);
  g_print("%s\n", out->str);
  g_string_free(out, TRUE);
  g_application_quit(G_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
}

static gboolean tick_cb(GtkWidget *widget, GdkFrameClock *clock, gpointer user)
{
  (void)widget;
  LwWindow *self = user;
  if (!self->runner)
    return G_SOURCE_CONTINUE;
  gint64 now = gdk_frame_clock_get_frame_time(clock);
  LwRunnerState st = lw_sim_runner_get_state(self->runner);
  guint n = lw_sim_runner_get_n_frames(self->runner);
  gboolean live = st == LW_RUNNER_RUNNING || n > self->live_frames;
  gboolean following = live && !self->playing; /* the newest frames of a run */
  if (following) {
    /* live: the newest frame, when there is one */
    if (n > self->live_frames) {
      self->live_frames = n;
      show_frame(self, n - 1);
      update_traces(self, n);
      record_frame_time(self, now);
    }
    /* the 3-D view follows every frame; the plots at most 30 times a
     * second, the time slider and the status text (read, not watched) 10
     * times and never in the same frame as the plots.  On software
     * rendering (measured, five-bar) an update of the plots costs the main
     * thread 2.2 ms, of the slider and text 1.9 ms, the rest of a frame
     * 5.4 ms.  Everything once the run has ended. */
    gboolean ended = st != LW_RUNNER_RUNNING;
    if (now - self->last_plot_us >= PLOT_INTERVAL_US || ended) {
      self->last_plot_us = now;
      lw_plot_page_update(self->plot_page, n);
    }
    if ((self->last_plot_us != now && now - self->last_text_us >= TEXT_INTERVAL_US) || ended) {
      self->last_text_us = now;
      set_scale_range(self);
      update_status(self);
    }
  } else if (self->playing) {
    /* a frame that came late (a stalled main loop) advances the replay by
     * at most REPLAY_MAX_STEP_S, so that it does not jump to the end */
    double dt = self->last_frame_us ? MIN((now - self->last_frame_us) * 1e-6, REPLAY_MAX_STEP_S) : 0;
    double speed = speeds[MIN(gtk_drop_down_get_selected(GTK_DROP_DOWN(self->speed_dropdown)), 5u)];
    double t = self->shown_time + dt * speed, t_last = lw_sim_runner_get_time(self->runner);
    if (t > t_last) {
      if (self->loop)
        t = 0;
      else {
        t = t_last;
        self->playing = FALSE;
        update_actions(self);
      }
    }
    show_frame(self, lw_sim_runner_frame_at_time(self->runner, t));
    self->shown_time = t;
    set_scale_range(self);
  }
  self->last_frame_us = now;
  if (!following) /* else refreshed with the panels above */
    update_status(self);

  const LwAutomation *au = lw_application_get_automation(LW_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  if (au && au->bench_fps > 0 && !self->automation_done) {
    if (!self->bench_start_us && st == LW_RUNNER_RUNNING) {
      self->bench_start_us = now;
      lw_cpu_mark(&self->bench_cpu);
      self->bench_pictures = lw_view3d_get_pictures(LW_VIEW3D(self->view));
    }
    if (self->bench_start_us && (now - self->bench_start_us) * 1e-6 >= au->bench_fps) {
      self->automation_done = TRUE;
      bench_report_and_quit(self); /* reads the real-time factor before the pause resets it */
      lw_sim_runner_pause(self->runner);
    }
  }
  return G_SOURCE_CONTINUE;
}

/* ---- loading ---------------------------------------------------------------- */
static void runner_state_cb(GObject *obj, GParamSpec *pspec, gpointer user);
static void refresh_editing(LwWindow *self);

static gboolean bench_start_cb(gpointer data)
{
  LwWindow *self = data;
  /* on software GL the 3-D view hands its drawing to a render thread once
   * that has drawn a first picture (llvmpipe compiling its shaders); a run
   * started before that shares the first frames with the start-up.  Run
   * waits for the hand-over, 5 s at most */
  if (!self->automation_done && !lw_view3d_get_threaded(LW_VIEW3D(self->view)) && !g_getenv("LW_VIEW_NO_THREAD") &&
      self->bench_waits++ < 50) {
    g_timeout_add_full(G_PRIORITY_DEFAULT, 100, bench_start_cb, g_object_ref(self), g_object_unref);
    return G_SOURCE_REMOVE;
  }
  if (self->runner && !self->automation_done && lw_sim_runner_get_state(self->runner) != LW_RUNNER_RUNNING) {
    self->bench_run_us = g_get_monotonic_time();
    self->bench_threaded = lw_view3d_get_threaded(LW_VIEW3D(self->view));
    lw_sim_runner_start(self->runner);
  }
  return G_SOURCE_REMOVE;
}

/* Make desc the window's model.  Takes desc on success; on failure leaves
 * everything as it was and fills err. */
static gboolean install_model(LwWindow *self, lw_desc *desc, GFile *file, const char *display_name,
                              const LwSourceMap *map, lw_error *err)
{
  lw_model *user_model = lw_compile(desc, err);
  if (!user_model) {
    lw_error_locate(err, display_name, map);
    return FALSE;
  }
  /* the runner records the model's outputs and, after them, the built-in
   * ones the Plots page offers (the document keeps only its own) */
  lw_model *m = lw_plot_page_compile(desc, err);
  if (!m) {
    lw_model_free(user_model);
    lw_error_locate(err, display_name, map);
    return FALSE;
  }
  LwSimRunner *runner = lw_sim_runner_new(m, err); /* takes m, also on failure */
  if (!runner) {
    lw_model_free(user_model);
    lw_error_locate(err, display_name, map);
    return FALSE;
  }
  /* the model is immutable (lw_step takes it const): the main thread reads
   * it for poses while the worker steps */
  const lw_model *mv = m;
  /* success: replace the document */
  if (self->runner) {
    g_signal_handlers_disconnect_by_func(self->runner, runner_state_cb, self);
    lw_sim_runner_cancel(self->runner);
  }
  lw_data_free(self->view_data);
  self->view_data = NULL;
  g_clear_object(&self->runner);
  lw_desc_free(self->desc);
  self->desc = desc;
  g_set_object(&self->file, file);
  g_free(self->display_name);
  self->display_name = g_strdup(display_name);
  self->runner = runner;
  g_signal_connect(runner, "notify::state", G_CALLBACK(runner_state_cb), self);
  lw_sim_runner_set_real_time(runner, self->real_time, 1.0);
  self->view_data = lw_data_new(mv);
  self->nq = lw_model_nq(mv);
  self->ncols = lw_model_output_columns(mv);
  self->nbodies = lw_model_nbodies(mv);
  self->njoints = lw_model_njoints(mv);
  self->nforces = lw_model_nforces(mv);
  g_free(self->q);
  g_free(self->outputs);
  g_free(self->poses);
  g_free(self->joints);
  g_free(self->forces);
  self->q = g_new0(double, self->nq + 1);
  self->outputs = g_new0(double, self->ncols + 1);
  self->poses = g_new0(double, 12 * (gsize)self->nbodies + 1);
  self->joints = g_new0(double, 6 * (gsize)self->njoints + 1);
  self->forces = g_new0(double, 6 * (gsize)self->nforces + 1);
  /* the view and the inspector work on the compiled copy (parameters
   * applied) of the model's own outputs, which come first in every frame */
  lw_view3d_set_model(LW_VIEW3D(self->view), lw_model_desc(user_model));
  lw_view3d_clear_traces(LW_VIEW3D(self->view));
  lw_inspector_set_model(self->inspector, user_model);
  self->n_user_outputs = lw_model_noutputs(user_model);
  lw_model_free(user_model);
  lw_sens_panel_set_desc(self->sens_panel, desc);
  lw_opt_panel_set_desc(self->opt_panel, desc);
  lw_plot_page_set_runner(self->plot_page, runner, self->n_user_outputs);

  self->playing = FALSE;
  self->shown_frame = 0;
  self->shown_time = 0;
  self->live_frames = 1;
  show_frame(self, 0);
  set_scale_range(self);
  adw_window_title_set_title(self->window_title, desc->name && *desc->name ? desc->name : display_name);
  adw_window_title_set_subtitle(self->window_title, display_name);
  hide_message(self);
  update_status(self);
  update_actions(self);

  const LwAutomation *au = lw_application_get_automation(LW_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  if (au && au->flat_out)
    lw_sim_runner_set_real_time(runner, FALSE, 1.0);
  if (au && au->bench_fps > 0 && !self->automation_done) {
    /* the frame rate of the animation, not of the window's first appearance:
     * Run is pressed once the window has been up for a second, as a user
     * would (and the view has taken its render thread: bench_start_cb) */
    self->bench_shown_us = g_get_monotonic_time();
    g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, 1, bench_start_cb, g_object_ref(self), g_object_unref);
  } else if (au && au->run && !self->automation_done)
    lw_sim_runner_start(runner);
  return TRUE;
}

/* The Recent menu lists the files this application opened or saved, in
 * this group: a file chooser adds every file chosen to the user's recent
 * list (GTK does, on accepting), also one that then fails to open. */
#define RECENT_GROUP "Linkwright"

static void add_recent(GFile *file)
{
  g_autofree char *uri = g_file_get_uri(file);
  if (!g_str_has_prefix(uri, "file:"))
    return;
  const char *groups[] = {RECENT_GROUP, NULL};
  GtkRecentData data = {
    .mime_type = (char *)"application/json",
    .app_name = (char *)g_get_application_name(),
    .app_exec = (char *)"linkwright %u",
    .groups = (char **)groups,
  };
  gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data);
}

static gboolean open_file_impl(LwWindow *self, GFile *file, gboolean user_file)
{
  g_autofree char *name = NULL;
  if (g_file_has_uri_scheme(file, "resource")) {
    g_autofree char *base = g_file_get_basename(file);
    name = g_strdup(base);
  } else
    name = g_file_get_parse_name(file);
  g_autoptr(GError) gerr = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  if (!g_file_load_contents(file, NULL, &data, &len, NULL, &gerr)) {
    g_autofree char *msg = g_strdup_printf(_("Cannot open %s: %s. The current model is kept."), name, gerr->message);
    show_message(self, msg);
    return FALSE;
  }
  lw_error err;
  LwSourceMap *map = NULL;
  lw_desc *desc = lw_model_read_data(data, (gssize)len, name, &map, &err);
  if (!desc) {
    g_autofree char *msg = g_strdup_printf(_("%s The current model is kept."), err.msg);
    show_message(self, msg);
    return FALSE;
  }
  gboolean ok = install_model(self, desc, user_file ? file : NULL, name, map, &err);
  lw_source_map_free(map);
  if (!ok) {
    lw_desc_free(desc);
    g_autofree char *msg = g_strdup_printf(_("%s The current model is kept."), err.msg);
    show_message(self, msg);
    return FALSE;
  }
  if (user_file)
    add_recent(file);
  self->modified = FALSE;
  self->doc_id = next_doc_id();
  g_ptr_array_set_size(self->undo, 0);
  g_ptr_array_set_size(self->redo, 0);
  refresh_editing(self);
  update_actions(self);
  return TRUE;
}

gboolean lw_window_open_file(LwWindow *self, GFile *file)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_return_val_if_fail(G_IS_FILE(file), FALSE);
  return open_file_impl(self, file, !g_file_has_uri_scheme(file, "resource"));
}

void lw_window_open_builtin(LwWindow *self)
{
  g_autoptr(GFile) f = g_file_new_for_uri(BUILTIN_MODEL);
  open_file_impl(self, f, FALSE);
}

void lw_window_open_builtin_keep_message(LwWindow *self)
{
  g_autofree char *msg = g_strdup(self->message);
  if (!self->runner)
    lw_window_open_builtin(self);
  if (msg)
    show_message(self, msg);
}

gboolean lw_window_open_example(LwWindow *self, const char *name)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_autofree char *uri = g_strdup_printf("resource:///io/github/linkwright/Linkwright/models/%s.json", name);
  g_autoptr(GFile) f = g_file_new_for_uri(uri);
  return open_file_impl(self, f, FALSE);
}

/* ---- runner state ------------------------------------------------------------ */
static void take_screenshot_and_maybe_quit(LwWindow *self);

static void runner_state_cb(GObject *obj, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  LwWindow *self = user;
  LwSimRunner *runner = LW_SIM_RUNNER(obj);
  if (runner != self->runner)
    return;
  LwRunnerState st = lw_sim_runner_get_state(runner);
  guint n = lw_sim_runner_get_n_frames(runner);
  if (st != LW_RUNNER_RUNNING) {
    /* catch up with the last frames */
    show_frame(self, n - 1);
    update_traces(self, n);
    lw_plot_page_update(self->plot_page, n);
    set_scale_range(self);
    self->live_frames = n;
  }
  if (st == LW_RUNNER_FAILED) {
    const lw_error *e = lw_sim_runner_get_error(runner);
    g_autofree char *msg = g_strdup_printf(_("The simulation failed at t = %.6g s (%s): %s. The %u frames up to "
                                             "then are kept."),
                                           e->time, e->path[0] ? e->path : _("the model"), e->msg, n);
    show_message(self, msg);
  }
  update_status(self);
  update_actions(self);
  if (st == LW_RUNNER_FINISHED || st == LW_RUNNER_FAILED)
    take_screenshot_and_maybe_quit(self);
}

/* ---- screenshots ------------------------------------------------------------- */
gboolean lw_window_save_screenshot(LwWindow *self, const char *filename, GError **error)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  GtkWidget *w = GTK_WIDGET(self);
  GdkPaintable *paintable = gtk_widget_paintable_new(w);
  int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
  GtkSnapshot *snap = gtk_snapshot_new();
  gdk_paintable_snapshot(paintable, snap, width, height);
  GskRenderNode *node = gtk_snapshot_free_to_node(snap);
  gboolean ok = FALSE;
  if (node) {
    GskRenderer *renderer = gtk_native_get_renderer(GTK_NATIVE(self));
    GdkTexture *tex = gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, width, height));
    ok = gdk_texture_save_to_png(tex, filename);
    g_object_unref(tex);
    gsk_render_node_unref(node);
  }
  g_object_unref(paintable);
  if (!ok)
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write the screenshot %s"), filename);
  return ok;
}

static gboolean delayed_screenshot_cb(gpointer user)
{
  LwWindow *self = user;
  static int tries;
  /* a short run can end before the window is on screen, or drawn */
  if (!gtk_widget_get_mapped(GTK_WIDGET(self)) || gtk_widget_get_width(GTK_WIDGET(self)) == 0)
    return G_SOURCE_CONTINUE;
  const LwAutomation *au = lw_application_get_automation(LW_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  if (au->screenshot) {
    g_autoptr(GError) error = NULL;
    if (!lw_window_save_screenshot(self, au->screenshot, &error)) {
      if (++tries < 50)
        return G_SOURCE_CONTINUE;
      g_printerr("linkwright: %s\n", error->message);
    } else
      g_print("screenshot %s\n", au->screenshot);
  }
  if (au->quit_after_run)
    g_application_quit(G_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  return G_SOURCE_REMOVE;
}

static void take_screenshot_and_maybe_quit(LwWindow *self)
{
  GtkApplication *app = gtk_window_get_application(GTK_WINDOW(self));
  const LwAutomation *au = app ? lw_application_get_automation(LW_APPLICATION(app)) : NULL;
  if (!au || self->automation_done || au->bench_fps > 0 || (!au->screenshot && !au->quit_after_run))
    return;
  self->automation_done = TRUE;
  /* let the last frame reach the screen first */
  g_timeout_add(300, delayed_screenshot_cb, self);
}

/* ---- actions ----------------------------------------------------------------- */
static void set_enabled(LwWindow *self, const char *name, gboolean on)
{
  GAction *a = g_action_map_lookup_action(G_ACTION_MAP(self), name);
  if (a)
    g_simple_action_set_enabled(G_SIMPLE_ACTION(a), on);
}

static void update_actions(LwWindow *self)
{
  LwRunnerState st = self->runner ? lw_sim_runner_get_state(self->runner) : LW_RUNNER_FINISHED;
  gboolean can_run = st == LW_RUNNER_READY || st == LW_RUNNER_PAUSED || st == LW_RUNNER_CANCELLED;
  set_enabled(self, "run", can_run);
  set_enabled(self, "pause", st == LW_RUNNER_RUNNING);
  set_enabled(self, "step", can_run);
  set_enabled(self, "reset", self->runner != NULL);
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
  hide_message(self);
  lw_sim_runner_start(self->runner);
  update_actions(self);
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
  show_frame(self, 0);
  set_scale_range(self);
  hide_message(self);
  update_status(self);
  update_actions(self);
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
  hide_message(user);
}

static void add_series_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (!lw_plot_page_add_chosen(self->plot_page, FALSE))
    toast(self, _("Choose a quantity to plot"));
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

/* ---- undo: whole-model replacements ------------------------------------------ */
#define UNDO_DEPTH 1000

typedef struct {
  lw_desc *desc;
  gboolean modified;
  guint doc_id;         /* the document it is a state of, */
  GFile *file;          /* with its file (NULL: none) */
  char *display_name;   /* and name */
} UndoEntry;

static void undo_entry_free(gpointer p)
{
  UndoEntry *e = p;
  lw_desc_free(e->desc);
  g_clear_object(&e->file);
  g_free(e->display_name);
  g_free(e);
}

static void push_current(LwWindow *self, GPtrArray *stack)
{
  UndoEntry *e = g_new(UndoEntry, 1);
  e->desc = lw_desc_copy(self->desc);
  e->modified = self->modified;
  e->doc_id = self->doc_id;
  e->file = self->file ? g_object_ref(self->file) : NULL;
  e->display_name = g_strdup(self->display_name);
  if (stack->len >= UNDO_DEPTH)
    g_ptr_array_remove_index(stack, 0);
  g_ptr_array_add(stack, e);
}

/* a document saved under a new name: its states on the stacks go with it */
static void rename_undo_entries(LwWindow *self)
{
  GPtrArray *stacks[] = {self->undo, self->redo};
  for (guint s = 0; s < G_N_ELEMENTS(stacks); s++)
    for (guint i = 0; i < stacks[s]->len; i++) {
      UndoEntry *e = g_ptr_array_index(stacks[s], i);
      if (e->doc_id != self->doc_id)
        continue;
      g_set_object(&e->file, self->file);
      g_free(e->display_name);
      e->display_name = g_strdup(self->display_name);
    }
}

/* a document other than the states on the stacks: a new model, a recovered one */
static guint next_doc_id(void)
{
  static guint last;
  return ++last;
}

static void update_subtitle(LwWindow *self)
{
  g_autofree char *sub = self->modified ? g_strdup_printf(_("%s (modified)"), self->display_name)
                                        : g_strdup(self->display_name);
  adw_window_title_set_subtitle(self->window_title, sub);
}

/* Make desc (taken) the model, keeping the file; on failure the model is
 * kept and the reason shown. */
static gboolean replace_model(LwWindow *self, lw_desc *desc, gboolean modified)
{
  g_autofree char *name = g_strdup(self->display_name);
  g_autoptr(GFile) file = self->file ? g_object_ref(self->file) : NULL;
  lw_error err;
  if (!install_model(self, desc, file, name, NULL, &err)) {
    lw_desc_free(desc);
    g_autofree char *msg = g_strdup_printf(_("%s The current model is kept."), err.msg);
    show_message(self, msg);
    return FALSE;
  }
  self->modified = modified;
  update_subtitle(self);
  refresh_editing(self);
  return TRUE;
}

/* ---- the document being edited -------------------------------------------------- */
static void write_autosave(LwWindow *self)
{
  if (!self->desc)
    return;
  if (!self->autosave_path)
    self->autosave_path = lw_autosave_path_new();
  /* written on the autosave thread: an edit does not wait for the disk */
  g_autofree char *uri = self->file ? g_file_get_uri(self->file) : NULL;
  lw_autosave_queue(self->autosave_path, lw_desc_copy(self->desc), uri, self->display_name);
}

/* the view, the editor and the property page follow the document and its check */
static void show_check(LwWindow *self, const lw_check_result *chk, gboolean runnable)
{
  lw_editor_set_document(LW_EDITOR(self->editor), self->desc, chk);
  lw_prop_editor_set_document(self->prop_editor, self->desc, chk);
  lw_palette_set_spatial(LW_PALETTE(self->palette), self->desc && !self->desc->planar);
  if (runnable)
    return;
  /* not runnable: the document where assembly left it (or at its guesses) */
  const lw_desc *d = self->desc;
  int nb = d->nbodies;
  gboolean from_chk = chk->model && chk->data;
  int nj = from_chk ? d->njoints : 0, nf = from_chk ? d->nforces : 0;
  double *poses = g_new0(double, 12 * (gsize)nb + 1), *joints = g_new0(double, 6 * (gsize)nj + 1);
  double *forces = g_new0(double, 6 * (gsize)nf + 1);
  for (int b = 0; b < nb; b++) {
    if (from_chk)
      lw_body_pose(chk->model, chk->data, b, poses + 12 * b, poses + 12 * b + 3);
    else
      lw_editor_guess_pose(d, b, poses + 12 * b, poses + 12 * b + 3);
  }
  if (from_chk)
    lw_scene_geometry(chk->model, chk->data, joints, forces);
  lw_render_state rs = {0, nb, poses, nj, joints, nf, forces};
  lw_view3d_set_state(LW_VIEW3D(self->view), &rs);
  g_free(poses);
  g_free(joints);
  g_free(forces);
}

/* the header's status for a model that cannot run, as the live check found it */
static const char *check_status_text(const lw_check_result *chk)
{
  if (!chk->compiled)
    return _("incomplete model");
  if (!chk->assembled)
    return _("cannot assemble");
  if (chk->nredundant > 0)
    return _("assembled · redundant constraints");
  return _("assembled · cannot run");
}

/* no runner: the time scale and the time shown go back to 0 */
static void reset_time(LwWindow *self)
{
  self->shown_time = 0;
  self->shown_frame = 0;
  self->updating_scale = TRUE;
  gtk_adjustment_set_upper(self->time_adjustment, 0);
  gtk_adjustment_set_value(self->time_adjustment, 0);
  self->updating_scale = FALSE;
  gtk_inscription_set_text(GTK_INSCRIPTION(self->time_label), "0.000 s");
}

/* Make desc (taken) the document whether or not it can run.  Returns TRUE
 * when it compiled and assembled (the runner is then the new model's). */
static gboolean set_document(LwWindow *self, lw_desc *desc, gboolean modified)
{
  /* the property page knows a renamed element's new name */
  const char *psel = lw_prop_editor_get_selection(self->prop_editor);
  g_autofree char *sel = g_strdup(psel ? psel : lw_view3d_get_selection(LW_VIEW3D(self->view)));
  gboolean keep_camera = self->desc && self->desc->planar == desc->planar;
  lw_check_result chk;
  lw_check(desc, &chk);
  gboolean runnable = FALSE;
  lw_error err = {0};
  if (chk.status == LW_OK) {
    g_autofree char *name = g_strdup(self->display_name ? self->display_name : _("Untitled"));
    g_autoptr(GFile) file = self->file ? g_object_ref(self->file) : NULL;
    runnable = install_model(self, desc, file, name, NULL, &err);
  }
  if (!runnable) {
    /* keep the edit: no runner until the model assembles again */
    if (self->runner) {
      g_signal_handlers_disconnect_by_func(self->runner, runner_state_cb, self);
      lw_sim_runner_cancel(self->runner);
    }
    g_clear_pointer(&self->view_data, lw_data_free);
    g_clear_object(&self->runner);
    lw_desc_free(self->desc);
    self->desc = desc;
    self->playing = FALSE;
    lw_view3d_set_model(LW_VIEW3D(self->view), desc);
    lw_view3d_clear_traces(LW_VIEW3D(self->view));
    lw_inspector_set_model(self->inspector, NULL);
    lw_plot_page_set_runner(self->plot_page, NULL, 0);
    /* the reason: the check's, or the compile's when the check passed */
    const char *why = chk.status != LW_OK ? chk.err.msg : err.msg[0] ? err.msg : NULL;
    lw_sens_panel_set_model_state(self->sens_panel, desc, FALSE, why);
    lw_opt_panel_set_model_state(self->opt_panel, desc, FALSE, why);
    self->ncols = 0;
    adw_window_title_set_title(self->window_title, desc->name && *desc->name ? desc->name : self->display_name);
    if (desc->nbodies == 0)
      hide_message(self);
    else {
      g_autofree char *msg = g_strdup_printf(_("The model cannot run yet: %s (the edit is kept; Undo goes back)"),
                                             chk.err.msg);
      show_message(self, msg);
    }
    gtk_inscription_set_text(GTK_INSCRIPTION(self->status_label), check_status_text(&chk));
    reset_time(self);
  }
  if (keep_camera)
    lw_view3d_keep_camera(LW_VIEW3D(self->view));
  show_check(self, &chk, runnable);
  lw_check_result_clear(&chk);
  if (sel)
    lw_view3d_set_selection(LW_VIEW3D(self->view), sel);
  self->modified = modified;
  update_subtitle(self);
  update_actions(self);
  return runnable;
}

/* the editor and the property page follow a model installed another way */
static void refresh_editing(LwWindow *self)
{
  if (!self->editor || !self->desc)
    return;
  lw_check_result chk;
  lw_check(self->desc, &chk);
  show_check(self, &chk, TRUE);
  lw_check_result_clear(&chk);
}

/* an edit from the editor or the property page: undoable, checked, autosaved */
static void edit_cb(GObject *source, gpointer desc, const char *what, gpointer user)
{
  (void)source;
  LwWindow *self = user;
  if (!desc)
    return;
  if (self->desc)
    push_current(self, self->undo);
  g_ptr_array_set_size(self->redo, 0);
  set_document(self, desc, TRUE);
  write_autosave(self);
  g_debug("edit: %s", what);
  update_actions(self);
}

static void editor_message_cb(LwEditor *editor, const char *msg, gpointer user)
{
  (void)editor;
  toast(user, msg);
}

/* the newest entry of `from` becomes the model, the model goes onto `to` */
static void undo_redo(LwWindow *self, GPtrArray *from, GPtrArray *to, const char *done)
{
  if (!self->desc || !from->len)
    return;
  UndoEntry *e = g_ptr_array_steal_index(from, from->len - 1);
  push_current(self, to);
  /* the entry's document, with its file (undoing New gives the file back) */
  self->doc_id = e->doc_id;
  g_set_object(&self->file, e->file);
  g_free(self->display_name);
  self->display_name = g_strdup(e->display_name);
  set_document(self, g_steal_pointer(&e->desc), e->modified);
  toast(self, done);
  undo_entry_free(e);
  write_autosave(self);
  update_actions(self);
}

static void undo_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  undo_redo(self, self->undo, self->redo, _("Undone"));
}

static void redo_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  undo_redo(self, self->redo, self->undo, _("Redone"));
}

/* the optimization panel's Apply: the optimized model replaces this one, undoably */
static gboolean opt_apply_cb(LwOptPanel *panel, gpointer optimized, gpointer user)
{
  (void)panel;
  LwWindow *self = user;
  if (!self->desc || !optimized)
    return FALSE;
  push_current(self, self->undo);
  if (!replace_model(self, lw_desc_copy(optimized), TRUE)) {
    g_ptr_array_remove_index(self->undo, self->undo->len - 1);
    return FALSE;
  }
  g_ptr_array_set_size(self->redo, 0);
  update_actions(self);
  toast(self, _("Optimized design applied (Ctrl+Z to undo)"));
  return TRUE;
}

/* ---- editing actions ----------------------------------------------------------- */
/* a frame of 4 m x 3 m around the origin to draw in (the view keeps it
 * fitted as the palette slides in beside it) */
static void frame_drawing_area(LwWindow *self)
{
  gboolean planar = !self->desc || self->desc->planar;
  double lo[3] = {-0.5, -0.5, planar ? 0 : -0.5}, hi[3] = {3.0, 2.0, planar ? 0 : 1.5};
  lw_view3d_fit_box(LW_VIEW3D(self->view), lo, hi);
}

static void new_document(LwWindow *self, gboolean planar)
{
  /* undoable like any edit: the model before it stays on the stack */
  if (self->desc)
    push_current(self, self->undo);
  g_ptr_array_set_size(self->redo, 0);
  self->doc_id = next_doc_id();
  g_clear_object(&self->file);
  g_free(self->display_name);
  self->display_name = g_strdup(_("Untitled"));
  set_document(self, lw_editor_new_document(planar), FALSE);
  adw_window_title_set_title(self->window_title, _("Untitled"));
  if (!self->editing)
    g_action_group_change_action_state(G_ACTION_GROUP(self), "edit-mode", g_variant_new_boolean(TRUE));
  frame_drawing_area(self);
  write_autosave(self);
  update_actions(self);
}

static void new_planar_then(LwWindow *self, gpointer data)
{
  (void)data;
  new_document(self, TRUE);
}

static void new_spatial_then(LwWindow *self, gpointer data)
{
  (void)data;
  new_document(self, FALSE);
}

static void new_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  lw_window_confirm_replace(user, _("Starting a new model"), new_planar_then, NULL, NULL);
}

static void new_spatial_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  lw_window_confirm_replace(user, _("Starting a new model"), new_spatial_then, NULL, NULL);
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
    refresh_editing(self);
  }
  update_actions(self);
}

static void delete_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  const char *sel = lw_view3d_get_selection(LW_VIEW3D(self->view));
  if (!self->desc || !sel) {
    toast(self, _("Select a body, joint or force to delete"));
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
  edit_cb(NULL, d, what, self);
  g_autofree char *msg = n > 1 ? g_strdup_printf(_("Deleted %s and %d element(s) that used it (Ctrl+Z to undo)"), sel, n - 1)
                               : g_strdup_printf(_("Deleted %s (Ctrl+Z to undo)"), sel);
  toast(self, msg);
}

static void duplicate_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  const char *sel = lw_view3d_get_selection(LW_VIEW3D(self->view));
  if (!self->desc || !sel || !g_str_has_prefix(sel, "bodies/")) {
    toast(self, _("Select a body to duplicate"));
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
    edit_cb(NULL, d, what, self);
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

static void close_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  gtk_window_close(GTK_WINDOW(user));
}

/* a replacement of the document waiting for the user's answer */
typedef struct {
  LwWindow *self; /* a reference */
  LwWindowReplaceFunc fn;
  gpointer data;
  GDestroyNotify destroy;
} Replace;

static void replace_free(Replace *r)
{
  if (r->destroy)
    r->destroy(r->data);
  g_object_unref(r->self);
  g_free(r);
}

static void replace_run(Replace *r)
{
  r->fn(r->self, r->data);
  replace_free(r);
}

/* open / save / export dialogs: one native chooser, the choice handed to fn */
typedef void (*FileChosenFn)(LwWindow *self, GFile *file, gboolean csv);

typedef struct {
  LwWindow *self;
  FileChosenFn fn;
  gboolean csv;
  Replace *then; /* Save As before a replacement: run once saved */
} FileDialog;

static void file_dialog_response_cb(GtkNativeDialog *dialog, int response, gpointer user)
{
  FileDialog *fd = user;
  if (response == GTK_RESPONSE_ACCEPT) {
    g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
    fd->fn(fd->self, file, fd->csv);
  }
  if (fd->then) {
    /* saved (nothing unsaved left): go on; cancelled or failed: keep all */
    if (response == GTK_RESPONSE_ACCEPT && !fd->self->modified)
      replace_run(fd->then);
    else
      replace_free(fd->then);
  }
  g_free(fd);
  g_object_unref(dialog);
}

/* filters: NULL-terminated pairs of name and pattern */
static FileDialog *file_dialog(LwWindow *self, const char *title, GtkFileChooserAction action, const char *accept,
                               const char *suggest, const char *const *filters, FileChosenFn fn, gboolean csv)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new(title, GTK_WINDOW(self), action, accept, _("_Cancel"));
  if (suggest)
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(native), suggest);
  for (int i = 0; filters && filters[i]; i += 2) {
    g_autoptr(GtkFileFilter) f = gtk_file_filter_new();
    gtk_file_filter_set_name(f, filters[i]);
    gtk_file_filter_add_pattern(f, filters[i + 1]);
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(native), f);
  }
  FileDialog *fd = g_new(FileDialog, 1);
  *fd = (FileDialog){self, fn, csv, NULL};
  g_signal_connect(native, "response", G_CALLBACK(file_dialog_response_cb), fd);
  gtk_native_dialog_show(GTK_NATIVE_DIALOG(native));
  return fd;
}

static void open_file_then(LwWindow *self, gpointer file)
{
  lw_window_open_file(self, file);
}

/* asks first when the model has unsaved changes */
static void open_file_confirmed(LwWindow *self, GFile *file)
{
  lw_window_confirm_replace(self, _("Opening another model"), open_file_then, g_object_ref(file), g_object_unref);
}

static void open_chosen(LwWindow *self, GFile *file, gboolean csv)
{
  (void)csv;
  open_file_confirmed(self, file);
}

static void open_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  const char *const filters[] = {_("Linkwright models"), "*.json", _("All files"), "*", NULL};
  file_dialog(user, _("Open Model"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL, filters, open_chosen, FALSE);
}

/* Save the model to file; FALSE with the message shown when it failed */
static gboolean save_file(LwWindow *self, GFile *file)
{
  g_autofree char *path = g_file_get_path(file);
  g_autoptr(GError) error = NULL;
  if (!path || !lw_model_write_file(self->desc, path, &error)) {
    g_autofree char *msg = g_strdup_printf(_("Cannot save %s: %s"), path ? path : "?",
                                           error ? error->message : _("not a local file"));
    show_message(self, msg);
    return FALSE;
  }
  g_set_object(&self->file, file);
  g_free(self->display_name);
  self->display_name = g_file_get_parse_name(file);
  self->modified = FALSE;
  rename_undo_entries(self);
  /* saved: nothing to recover; the next change autosaves to a new file
   * under a new lock */
  lw_autosave_remove(self->autosave_path);
  g_clear_pointer(&self->autosave_path, g_free);
  adw_window_title_set_subtitle(self->window_title, self->display_name);
  add_recent(file);
  g_autofree char *msg = g_strdup_printf(_("Saved %s"), self->display_name);
  toast(self, msg);
  return TRUE;
}

static void save_to(LwWindow *self, GFile *file, gboolean csv)
{
  (void)csv;
  save_file(self, file);
}

/* Save As; then (may be NULL) runs once the model is saved */
static void save_as_dialog(LwWindow *self, Replace *then)
{
  g_autofree char *suggest = g_strdup_printf("%s.json", self->desc->name && *self->desc->name ? self->desc->name : "model");
  FileDialog *fd = file_dialog(self, _("Save Model"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), suggest, NULL, save_to, FALSE);
  fd->then = then;
}

static void save_as_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (!self->desc)
    return;
  save_as_dialog(self, NULL);
}

/* ---- replacing the document: never without asking ------------------------------ */
/* the dialog's Save: to the file, or Save As; r goes on only once saved */
static void save_then(LwWindow *self, Replace *r)
{
  if (!self->file) {
    save_as_dialog(self, r);
    return;
  }
  if (save_file(self, self->file))
    replace_run(r);
  else
    replace_free(r); /* the reason is shown; the model and its changes stay */
}

static void confirm_response_cb(AdwMessageDialog *dialog, const char *response, gpointer user)
{
  LwWindow *self = user;
  Replace *r = g_object_steal_data(G_OBJECT(dialog), "replace");
  if (self->confirm_dialog == dialog) {
    g_object_remove_weak_pointer(G_OBJECT(dialog), (gpointer *)&self->confirm_dialog);
    self->confirm_dialog = NULL;
  }
  if (!r)
    return;
  /* answered: the question goes, however the answer came (a button closes
   * its dialog, a response given otherwise does not) */
  /* destroyed here, before the answer is carried out (which may close the
   * window it belongs to): the emission holds the dialog until it returns,
   * and a second destroy by the dialog's own button does nothing */
  gtk_window_destroy(GTK_WINDOW(dialog));
  if (!g_strcmp0(response, "discard"))
    replace_run(r);
  else if (!g_strcmp0(response, "save"))
    save_then(self, r);
  else
    replace_free(r);
}

void lw_window_confirm_replace(LwWindow *self, const char *what, LwWindowReplaceFunc fn, gpointer data,
                               GDestroyNotify destroy)
{
  g_return_if_fail(LW_IS_WINDOW(self));
  g_return_if_fail(fn != NULL);
  Replace *r = g_new(Replace, 1);
  *r = (Replace){g_object_ref(self), fn, data, destroy};
  if (!self->modified) {
    replace_run(r);
    return;
  }
  if (self->confirm_dialog) {
    /* one question at a time: the one asked stands */
    gtk_window_present(GTK_WINDOW(self->confirm_dialog));
    replace_free(r);
    return;
  }
  GtkWidget *dialog = adw_message_dialog_new(GTK_WINDOW(self), _("Save changes?"), NULL);
  const char *name = self->desc && self->desc->name && *self->desc->name ? self->desc->name : self->display_name;
  /* TRANSLATORS: the second %s is an action, e.g. "Opening another model" */
  adw_message_dialog_format_body(ADW_MESSAGE_DIALOG(dialog),
                                 _("“%s” has changes that are not saved. %s discards them unless they are saved "
                                   "first."),
                                 name ? name : _("Untitled"), what);
  adw_message_dialog_add_responses(ADW_MESSAGE_DIALOG(dialog), "cancel", _("_Cancel"), "discard", _("_Discard"),
                                   "save", self->file ? _("_Save") : _("_Save As…"), NULL);
  adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response(ADW_MESSAGE_DIALOG(dialog), "save");
  adw_message_dialog_set_close_response(ADW_MESSAGE_DIALOG(dialog), "cancel");
  /* freed with the dialog unless a response takes it */
  g_object_set_data_full(G_OBJECT(dialog), "replace", r, (GDestroyNotify)replace_free);
  g_signal_connect(dialog, "response", G_CALLBACK(confirm_response_cb), self);
  self->confirm_dialog = ADW_MESSAGE_DIALOG(dialog);
  g_object_add_weak_pointer(G_OBJECT(dialog), (gpointer *)&self->confirm_dialog);
  gtk_window_present(GTK_WINDOW(dialog));
}

static void save_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  LwWindow *self = user;
  if (self->file)
    save_to(self, self->file, FALSE);
  else
    save_as_cb(a, p, user);
}

static void export_chosen(LwWindow *self, GFile *file, gboolean csv)
{
  g_autofree char *path = g_file_get_path(file);
  g_autoptr(GError) error = NULL;
  GtkWidget *view = lw_plot_page_get_current_view(self->plot_page);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(view));
  int w = MAX(gtk_widget_get_width(view), 640), h = MAX(gtk_widget_get_height(view), 400);
  gboolean ok = csv ? lw_plot_export_csv(plot, path, &error) : lw_plot_export(plot, path, w, h, &error);
  if (!ok)
    show_message(self, error->message);
  else {
    g_autofree char *msg = g_strdup_printf(_("Exported %s"), path);
    toast(self, msg);
  }
}

static void export_plot_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  const char *const filters[] = {"PNG", "*.png", "SVG", "*.svg", "PDF", "*.pdf", NULL};
  file_dialog(user, _("Export Plot"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), "plot.png", filters,
              export_chosen, FALSE);
}

static void export_csv_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  file_dialog(user, _("Export Plot Data"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), "plot.csv", NULL,
              export_chosen, TRUE);
}

/* recent files: the menu section and Ctrl+1..5 */
static int recent_cmp(gconstpointer a, gconstpointer b)
{
  GDateTime *x = gtk_recent_info_get_modified((GtkRecentInfo *)a), *y = gtk_recent_info_get_modified((GtkRecentInfo *)b);
  return g_date_time_compare(y, x);
}

static GList *recent_sorted(void)
{
  GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default()), *out = NULL;
  for (GList *l = items; l; l = l->next) {
    GtkRecentInfo *info = l->data;
    if (g_str_has_suffix(gtk_recent_info_get_uri(info), ".json") && gtk_recent_info_has_group(info, RECENT_GROUP))
      out = g_list_prepend(out, gtk_recent_info_ref(info));
  }
  g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
  return g_list_sort(out, recent_cmp);
}

static void rebuild_recent_menu(LwWindow *self)
{
  g_menu_remove_all(self->recent_section);
  GList *items = recent_sorted();
  int k = 0;
  for (GList *l = items; l && k < 5; l = l->next, k++) {
    GtkRecentInfo *info = l->data;
    g_autofree char *action = g_strdup_printf("win.open-recent(%d)", k);
    g_menu_append(self->recent_section, gtk_recent_info_get_display_name(info), action);
  }
  g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
}

static void open_recent_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  LwWindow *self = user;
  int k = g_variant_get_int32(p);
  GList *items = recent_sorted();
  GtkRecentInfo *info = g_list_nth_data(items, (guint)k);
  if (info) {
    g_autoptr(GFile) f = g_file_new_for_uri(gtk_recent_info_get_uri(info));
    open_file_confirmed(self, f);
  } else
    toast(self, _("No such recent model"));
  g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
}

static void recent_changed_cb(GtkRecentManager *rm, gpointer user)
{
  (void)rm;
  rebuild_recent_menu(user);
}

/* examples gallery: every model shipped in the resource */
static void open_example_then(LwWindow *self, gpointer name)
{
  lw_window_open_example(self, name);
}

static void example_activated_cb(GtkListBox *box, GtkListBoxRow *row, gpointer user)
{
  LwWindow *self = user;
  char *name = g_strdup(g_object_get_data(G_OBJECT(row), "example"));
  /* the gallery goes first: the question, if any, is the window's */
  gtk_window_destroy(GTK_WINDOW(gtk_widget_get_root(GTK_WIDGET(box))));
  lw_window_confirm_replace(self, _("Opening an example"), open_example_then, name, g_free);
}

static void examples_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  GtkWidget *win = adw_window_new();
  gtk_window_set_title(GTK_WINDOW(win), _("Examples"));
  gtk_window_set_transient_for(GTK_WINDOW(win), GTK_WINDOW(self));
  gtk_window_set_modal(GTK_WINDOW(win), TRUE);
  gtk_window_set_default_size(GTK_WINDOW(win), 520, 560);
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append(GTK_BOX(box), adw_header_bar_new());
  GtkWidget *scroller = gtk_scrolled_window_new();
  gtk_widget_set_vexpand(scroller, TRUE);
  GtkWidget *list = gtk_list_box_new();
  gtk_widget_add_css_class(list, "boxed-list");
  gtk_widget_set_margin_start(list, 18);
  gtk_widget_set_margin_end(list, 18);
  gtk_widget_set_margin_top(list, 18);
  gtk_widget_set_margin_bottom(list, 18);
  gtk_widget_set_valign(list, GTK_ALIGN_START);
  gtk_accessible_update_property(GTK_ACCESSIBLE(list), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Examples"), -1);
  char **names = g_resources_enumerate_children("/io/github/linkwright/Linkwright/models", 0, NULL);
  for (int i = 0; names && names[i]; i++) {
    if (!g_str_has_suffix(names[i], ".json"))
      continue;
    g_autofree char *stem = g_strndup(names[i], strlen(names[i]) - 5);
    g_autofree char *uri = g_strdup_printf("resource:///io/github/linkwright/Linkwright/models/%s", names[i]);
    g_autoptr(GFile) f = g_file_new_for_uri(uri);
    g_autofree char *data = NULL;
    gsize len;
    lw_error err;
    lw_desc *d = g_file_load_contents(f, NULL, &data, &len, NULL, NULL)
                     ? lw_model_read_data(data, (gssize)len, names[i], NULL, &err)
                     : NULL;
    GtkWidget *row = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), d && d->name ? d->name : stem);
    adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
    if (d && d->description)
      adw_action_row_set_subtitle(ADW_ACTION_ROW(row), d->description);
    adw_action_row_set_subtitle_lines(ADW_ACTION_ROW(row), 3);
    gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), TRUE);
    adw_action_row_add_suffix(ADW_ACTION_ROW(row), gtk_image_new_from_icon_name("go-next-symbolic"));
    g_object_set_data_full(G_OBJECT(row), "example", g_strdup(stem), g_free);
    gtk_list_box_append(GTK_LIST_BOX(list), row);
    lw_desc_free(d);
  }
  g_strfreev(names);
  g_signal_connect(list, "row-activated", G_CALLBACK(example_activated_cb), self);
  GtkWidget *content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append(GTK_BOX(content), lw_template_gallery_new(self));
  gtk_box_append(GTK_BOX(content), list);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), content);
  gtk_box_append(GTK_BOX(box), scroller);
  adw_window_set_content(ADW_WINDOW(win), box);
  gtk_window_present(GTK_WINDOW(win));
}

static gboolean open_document_now(LwWindow *self, lw_desc *desc, const char *display_name)
{
  /* undoable like New: the model before it stays on the undo stack */
  if (self->desc)
    push_current(self, self->undo);
  g_ptr_array_set_size(self->redo, 0);
  self->doc_id = next_doc_id();
  g_clear_object(&self->file);
  g_free(self->display_name);
  self->display_name = g_strdup(display_name);
  gboolean runnable = set_document(self, desc, TRUE);
  write_autosave(self);
  update_actions(self);
  return runnable;
}

/* a document waiting for the answer to "Save changes?" */
typedef struct {
  lw_desc *desc;
  char *display_name;
} PendingDocument;

static void pending_document_free(gpointer p)
{
  PendingDocument *pd = p;
  lw_desc_free(pd->desc);
  g_free(pd->display_name);
  g_free(pd);
}

static void open_document_then(LwWindow *self, gpointer p)
{
  PendingDocument *pd = p;
  open_document_now(self, g_steal_pointer(&pd->desc), pd->display_name);
}

gboolean lw_window_open_document(LwWindow *self, lw_desc *desc, const char *display_name)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_return_val_if_fail(desc != NULL, FALSE);
  if (!self->modified)
    return open_document_now(self, desc, display_name);
  PendingDocument *pd = g_new(PendingDocument, 1);
  *pd = (PendingDocument){desc, g_strdup(display_name)};
  lw_window_confirm_replace(self, _("Opening the new model"), open_document_then, pd, pending_document_free);
  return FALSE;
}

static const GActionEntry win_actions[] = {
  {"new", new_cb, NULL, NULL, NULL, {0}},
  {"new-spatial", new_spatial_cb, NULL, NULL, NULL, {0}},
  {"edit-mode", NULL, NULL, "false", edit_mode_cb, {0}},
  {"delete", delete_cb, NULL, NULL, NULL, {0}},
  {"duplicate", duplicate_cb, NULL, NULL, NULL, {0}},
  {"snap-grid", NULL, NULL, "true", snap_grid_cb, {0}},
  {"open", open_cb, NULL, NULL, NULL, {0}},
  {"examples", examples_cb, NULL, NULL, NULL, {0}},
  {"open-recent", open_recent_cb, "i", NULL, NULL, {0}},
  {"save", save_cb, NULL, NULL, NULL, {0}},
  {"save-as", save_as_cb, NULL, NULL, NULL, {0}},
  {"close", close_cb, NULL, NULL, NULL, {0}},
  {"run", run_cb, NULL, NULL, NULL, {0}},
  {"pause", pause_cb, NULL, NULL, NULL, {0}},
  {"step", step_cb, NULL, NULL, NULL, {0}},
  {"reset", reset_cb, NULL, NULL, NULL, {0}},
  {"real-time", NULL, NULL, "true", real_time_cb, {0}},
  {"run-sensitivity", run_sensitivity_cb, NULL, NULL, NULL, {0}},
  {"run-optimization", run_optimization_cb, NULL, NULL, NULL, {0}},
  {"undo", undo_cb, NULL, NULL, NULL, {0}},
  {"redo", redo_cb, NULL, NULL, NULL, {0}},
  {"play", play_cb, NULL, "false", NULL, {0}},
  {"loop", NULL, NULL, "false", loop_cb, {0}},
  {"slower", slower_cb, NULL, NULL, NULL, {0}},
  {"faster", faster_cb, NULL, NULL, NULL, {0}},
  {"reset-camera", reset_camera_cb, NULL, NULL, NULL, {0}},
  {"zoom-in", zoom_in_cb, NULL, NULL, NULL, {0}},
  {"zoom-out", zoom_out_cb, NULL, NULL, NULL, {0}},
  {"show-frames", NULL, NULL, "false", show_frames_cb, {0}},
  {"show-traces", NULL, NULL, "true", show_traces_cb, {0}},
  {"show-page", show_page_cb, "s", NULL, NULL, {0}},
  {"dismiss-message", dismiss_message_cb, NULL, NULL, NULL, {0}},
  {"add-series", add_series_cb, NULL, NULL, NULL, {0}},
  {"clear-plot", clear_plot_cb, NULL, NULL, NULL, {0}},
  {"export-plot", export_plot_cb, NULL, NULL, NULL, {0}},
  {"export-csv", export_csv_cb, NULL, NULL, NULL, {0}},
};

/* ---- view and scale signals ---------------------------------------------------- */
static void selection_cb(GObject *view, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  LwWindow *self = user;
  const char *sel = lw_view3d_get_selection(LW_VIEW3D(view));
  lw_inspector_set_selection(self->inspector, sel);
  if (g_strcmp0(sel, lw_prop_editor_get_selection(self->prop_editor)))
    lw_prop_editor_set_selection(self->prop_editor, sel);
  if (sel)
    gtk_stack_set_visible_child_name(GTK_STACK(self->side_stack), "inspector");
  lw_inspector_set_outputs(self->inspector, self->shown_time, self->outputs);
}

static void gl_error_cb(GObject *view, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  LwWindow *self = user;
  const char *e = lw_view3d_get_gl_error(LW_VIEW3D(view));
  gtk_widget_set_visible(self->gl_status, e != NULL);
  if (e) {
    g_autofree char *reason = g_strstrip(g_strdup(e));
    g_autofree char *text = g_strdup_printf(_("%s\nSimulation, plots and sensitivities work without it."), reason);
    adw_status_page_set_description(ADW_STATUS_PAGE(self->gl_status), text);
  }
}

static void scale_changed_cb(GtkAdjustment *adj, gpointer user)
{
  LwWindow *self = user;
  if (self->updating_scale || !self->runner)
    return;
  if (lw_sim_runner_get_state(self->runner) == LW_RUNNER_RUNNING)
    return;
  self->playing = FALSE;
  update_actions(self);
  double t = gtk_adjustment_get_value(adj);
  show_frame(self, lw_sim_runner_frame_at_time(self->runner, t));
}

/* ---- closing: never lose the user's model ------------------------------------------ */
static gboolean close_later(gpointer window)
{
  gtk_window_close(GTK_WINDOW(window));
  g_object_unref(window);
  return G_SOURCE_REMOVE;
}

/* Discard, or saved: the window closes */
static void close_then(LwWindow *self, gpointer data)
{
  (void)data;
  self->closing_confirmed = TRUE;
  /* after the dialog has finished its response: closing the window from
   * inside it would leave the dialog with a destroyed parent */
  g_idle_add(close_later, g_object_ref(self));
}

static gboolean lw_window_close_request(GtkWindow *window)
{
  LwWindow *self = LW_WINDOW(window);
  if (self->modified && !self->closing_confirmed) {
    lw_window_confirm_replace(self, _("Closing the window"), close_then, NULL, NULL);
    return TRUE;
  }
  /* closed on purpose: nothing to recover */
  lw_autosave_remove(self->autosave_path);
  if (self->runner)
    lw_sim_runner_cancel(self->runner);
  if (self->settings) {
    int w, h;
    gtk_window_get_default_size(window, &w, &h);
    g_settings_set_int(self->settings, "window-width", w);
    g_settings_set_int(self->settings, "window-height", h);
    g_settings_set_boolean(self->settings, "window-maximized", gtk_window_is_maximized(window));
  }
  return GTK_WINDOW_CLASS(lw_window_parent_class)->close_request(window);
}

static void lw_window_dispose(GObject *object)
{
  LwWindow *self = LW_WINDOW(object);
  if (self->tick_id) {
    gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->tick_id);
    self->tick_id = 0;
  }
  g_signal_handlers_disconnect_by_data(gtk_recent_manager_get_default(), self);
  if (self->confirm_dialog) {
    AdwMessageDialog *dialog = self->confirm_dialog;
    g_object_remove_weak_pointer(G_OBJECT(dialog), (gpointer *)&self->confirm_dialog);
    self->confirm_dialog = NULL;
    gtk_window_destroy(GTK_WINDOW(dialog));
  }
  if (self->runner) {
    g_signal_handlers_disconnect_by_func(self->runner, runner_state_cb, self);
    lw_sim_runner_cancel(self->runner);
  }
  g_clear_pointer(&self->view_data, lw_data_free); /* before the runner's model goes */
  g_clear_object(&self->runner);
  gtk_widget_dispose_template(GTK_WIDGET(self), LW_TYPE_WINDOW);
  G_OBJECT_CLASS(lw_window_parent_class)->dispose(object);
}

static void lw_window_finalize(GObject *object)
{
  LwWindow *self = LW_WINDOW(object);
  lw_desc_free(self->desc);
  g_clear_object(&self->file);
  g_clear_object(&self->settings);
  g_free(self->display_name);
  g_free(self->q);
  g_free(self->outputs);
  g_free(self->poses);
  g_free(self->joints);
  g_free(self->forces);
  g_free(self->message);
  g_free(self->autosave_path);
  g_free(self->recovery_path);
  g_ptr_array_unref(self->undo);
  g_ptr_array_unref(self->redo);
  if (self->frame_times)
    g_array_unref(self->frame_times);
  G_OBJECT_CLASS(lw_window_parent_class)->finalize(object);
}

static void lw_window_class_init(LwWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  object_class->dispose = lw_window_dispose;
  object_class->finalize = lw_window_finalize;
  GTK_WINDOW_CLASS(klass)->close_request = lw_window_close_request;
  g_type_ensure(LW_TYPE_INSPECTOR);
  g_type_ensure(LW_TYPE_PROP_EDITOR);
  g_type_ensure(LW_TYPE_SENS_PANEL);
  g_type_ensure(LW_TYPE_OPT_PANEL);
  gtk_widget_class_set_template_from_resource(widget_class, "/io/github/linkwright/Linkwright/ui/lw-window.ui");
  gtk_widget_class_bind_template_child(widget_class, LwWindow, window_title);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, open_button);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, toast_overlay);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, status_label);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, message_revealer);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, message_label);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, view_overlay);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, gl_status);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, time_scale);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, time_label);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, time_adjustment);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, speed_dropdown);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, plots_page);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, side_stack);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, inspector);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, inspector_stack);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, prop_editor);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, palette_revealer);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, sens_panel);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, opt_panel);
  gtk_widget_class_bind_template_child(widget_class, LwWindow, recent_section);
}

static void lw_window_init(LwWindow *self)
{
  gtk_widget_init_template(GTK_WIDGET(self));
  self->undo = g_ptr_array_new_with_free_func(undo_entry_free);
  self->redo = g_ptr_array_new_with_free_func(undo_entry_free);
  self->real_time = TRUE;
  GSettingsSchemaSource *src = g_settings_schema_source_get_default();
  g_autoptr(GSettingsSchema) schema =
    src ? g_settings_schema_source_lookup(src, "io.github.linkwright.Linkwright", TRUE) : NULL;
  if (schema) {
    self->settings = g_settings_new("io.github.linkwright.Linkwright");
    gtk_window_set_default_size(GTK_WINDOW(self), g_settings_get_int(self->settings, "window-width"),
                                g_settings_get_int(self->settings, "window-height"));
    if (g_settings_get_boolean(self->settings, "window-maximized"))
      gtk_window_maximize(GTK_WINDOW(self));
    self->loop = g_settings_get_boolean(self->settings, "playback-loop");
    self->real_time = g_settings_get_boolean(self->settings, "real-time");
  }
  g_action_map_add_action_entries(G_ACTION_MAP(self), win_actions, G_N_ELEMENTS(win_actions), self);
  g_simple_action_set_state(G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(self), "loop")),
                            g_variant_new_boolean(self->loop));
  g_simple_action_set_state(G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(self), "real-time")),
                            g_variant_new_boolean(self->real_time));

  self->view = lw_view3d_new();
  gtk_widget_set_hexpand(self->view, TRUE);
  gtk_widget_set_vexpand(self->view, TRUE);
  gtk_overlay_set_child(GTK_OVERLAY(self->view_overlay), self->view);
  g_signal_connect(self->view, "notify::selection", G_CALLBACK(selection_cb), self);
  lw_measure_actions_install(self->view, G_ACTION_MAP(self));
  /* editing: the palette beside the view, the editor layer over it */
  self->palette = lw_palette_new();
  gtk_widget_set_size_request(self->palette, 190, -1);
  gtk_revealer_set_child(GTK_REVEALER(self->palette_revealer), self->palette);
  self->editor = lw_editor_new(LW_VIEW3D(self->view), LW_PALETTE(self->palette));
  gtk_widget_set_visible(self->editor, FALSE);
  gtk_overlay_add_overlay(GTK_OVERLAY(self->view_overlay), self->editor);
  g_signal_connect(self->editor, "edit", G_CALLBACK(edit_cb), self);
  g_signal_connect(self->editor, "message", G_CALLBACK(editor_message_cb), self);
  g_signal_connect(self->prop_editor, "edit", G_CALLBACK(edit_cb), self);
  watch_focus(self);
  g_signal_connect(self->opt_panel, "apply", G_CALLBACK(opt_apply_cb), self);
  update_actions(self);
  g_signal_connect(self->view, "notify::gl-error", G_CALLBACK(gl_error_cb), self);
  if (self->settings) {
    g_object_set(self->view, "show-frames", g_settings_get_boolean(self->settings, "show-frames"), "show-traces",
                 g_settings_get_boolean(self->settings, "show-traces"), NULL);
    g_simple_action_set_state(G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(self), "show-frames")),
                              g_variant_new_boolean(g_settings_get_boolean(self->settings, "show-frames")));
    g_simple_action_set_state(G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(self), "show-traces")),
                              g_variant_new_boolean(g_settings_get_boolean(self->settings, "show-traces")));
  }

  self->plot_page = LW_PLOT_PAGE(lw_plot_page_new());
  gtk_widget_set_vexpand(GTK_WIDGET(self->plot_page), TRUE);
  gtk_box_append(GTK_BOX(self->plots_page), GTK_WIDGET(self->plot_page));
  lw_plot_page_set_time_adjustment(self->plot_page, self->time_adjustment);
  lw_plot_page_watch_view(self->plot_page, self->view);
  g_signal_connect(self->time_adjustment, "value-changed", G_CALLBACK(scale_changed_cb), self);
  g_signal_connect(gtk_recent_manager_get_default(), "changed", G_CALLBACK(recent_changed_cb), self);
  rebuild_recent_menu(self);
  self->tick_id = gtk_widget_add_tick_callback(GTK_WIDGET(self), tick_cb, self, NULL);
  lw_panel_name_inner_buttons(self->speed_dropdown, _("Playback speed"));
  lw_panel_name_inner_buttons(GTK_WIDGET(self->open_button), _("Recent models and examples"));
}

LwWindow *lw_window_new(LwApplication *app)
{
  LwWindow *self = g_object_new(LW_TYPE_WINDOW, "application", app, NULL);
  const LwAutomation *au = app ? lw_application_get_automation(app) : NULL;
  if (au && au->bench_fps > 0)
    self->frame_times = g_array_new(FALSE, FALSE, sizeof(double));
  return self;
}

const lw_desc *lw_window_get_desc(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->desc;
}

LwSimRunner *lw_window_get_runner(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->runner;
}

GtkAdjustment *lw_window_get_time_adjustment(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->time_adjustment;
}

GtkWidget *lw_window_get_view(LwWindow *self)
{
  return self->view;
}

GtkWidget *lw_window_get_plot_page(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return GTK_WIDGET(self->plot_page);
}

GtkWidget *lw_window_get_plot_view(LwWindow *self)
{
  return lw_plot_page_get_plot_view(self->plot_page, 0);
}

GtkWidget *lw_window_get_sens_panel(LwWindow *self)
{
  return GTK_WIDGET(self->sens_panel);
}

GtkWidget *lw_window_get_inspector(LwWindow *self)
{
  return GTK_WIDGET(self->inspector);
}

GtkWidget *lw_window_get_opt_panel(LwWindow *self)
{
  return GTK_WIDGET(self->opt_panel);
}

gboolean lw_window_get_modified(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  return self->modified;
}

GFile *lw_window_get_file(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->file;
}

const char *lw_window_get_display_name(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->display_name;
}

const char *lw_window_get_status_text(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return gtk_inscription_get_text(GTK_INSCRIPTION(self->status_label));
}

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

static void watch_focus(LwWindow *self)
{
  g_signal_connect(self, "notify::focus-widget", G_CALLBACK(focus_changed_cb), NULL);
}
GtkWidget *lw_window_get_editor(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->editor;
}

GtkWidget *lw_window_get_palette(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->palette;
}

GtkWidget *lw_window_get_prop_editor(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return GTK_WIDGET(self->prop_editor);
}

const char *lw_window_get_autosave_path(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  lw_autosave_flush(); /* the file as of the last change */
  return self->autosave_path;
}

guint lw_window_get_undo_depth(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), 0);
  return self->undo->len;
}

gboolean lw_window_recover_file(LwWindow *self, const char *path)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr(GError) gerr = NULL;
  if (!g_file_get_contents(path, &data, &len, &gerr)) {
    g_autofree char *msg = g_strdup_printf(_("Cannot read the recovered model: %s"), gerr->message);
    show_message(self, msg);
    return FALSE;
  }
  lw_error err;
  lw_desc *d = lw_model_read_data(data, (gssize)len, path, NULL, &err);
  if (!d) {
    g_autofree char *msg = g_strdup_printf(_("The recovered model cannot be read: %s"), err.msg);
    show_message(self, msg);
    return FALSE;
  }
  if (self->desc)
    push_current(self, self->undo);
  g_ptr_array_set_size(self->redo, 0);
  self->doc_id = next_doc_id();
  /* the file it was edited from, when the autosave names it: Save writes
   * there again */
  g_autofree char *uri = NULL, *name = NULL;
  lw_autosave_read_origin(path, &uri, &name);
  g_clear_object(&self->file);
  if (uri)
    self->file = g_file_new_for_uri(uri);
  g_free(self->display_name);
  self->display_name = name && *name ? g_steal_pointer(&name) : g_strdup(_("Recovered model"));
  set_document(self, d, TRUE);
  lw_view3d_reset_camera(LW_VIEW3D(self->view));
  /* this window's own autosave takes over */
  write_autosave(self);
  lw_autosave_remove(path);
  if (!self->editing)
    g_action_group_change_action_state(G_ACTION_GROUP(self), "edit-mode", g_variant_new_boolean(TRUE));
  toast(self, _("The unsaved model is back: save it to keep it"));
  return TRUE;
}

static void recover_then(LwWindow *self, gpointer path)
{
  lw_window_recover_file(self, path);
}

static void recovery_response_cb(AdwMessageDialog *dialog, const char *response, gpointer user)
{
  LwWindow *self = user;
  if (!g_strcmp0(response, "recover"))
    lw_window_confirm_replace(self, _("Recovering the unsaved model"), recover_then, g_strdup(self->recovery_path),
                              g_free);
  else if (!g_strcmp0(response, "discard"))
    lw_autosave_remove(self->recovery_path);
  g_clear_pointer(&self->recovery_path, g_free);
  if (self->recovery_dialog == dialog)
    self->recovery_dialog = NULL;
}

gboolean lw_window_offer_recovery(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_autofree char *path = lw_autosave_find_orphan();
  if (!path)
    return FALSE;
  g_free(self->recovery_path);
  self->recovery_path = g_strdup(path);
  GtkWidget *dialog = adw_message_dialog_new(GTK_WINDOW(self), _("Recover the unsaved model?"), NULL);
  g_autofree char *when = NULL;
  GStatBuf st;
  if (g_stat(path, &st) == 0) {
    g_autoptr(GDateTime) t = g_date_time_new_from_unix_local((gint64)st.st_mtime);
    when = g_date_time_format(t, "%x %X");
  }
  adw_message_dialog_format_body(ADW_MESSAGE_DIALOG(dialog),
                                 _("Linkwright stopped without saving a model that was being edited (last change: "
                                   "%s)."),
                                 when ? when : "?");
  adw_message_dialog_add_responses(ADW_MESSAGE_DIALOG(dialog), "later", _("_Later"), "discard", _("_Discard"),
                                   "recover", _("_Recover"), NULL);
  adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "recover", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response(ADW_MESSAGE_DIALOG(dialog), "recover");
  adw_message_dialog_set_close_response(ADW_MESSAGE_DIALOG(dialog), "later");
  g_signal_connect(dialog, "response", G_CALLBACK(recovery_response_cb), self);
  self->recovery_dialog = ADW_MESSAGE_DIALOG(dialog);
  gtk_window_present(GTK_WINDOW(dialog));
  return TRUE;
}

GtkWidget *lw_window_get_recovery_dialog(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->recovery_dialog ? GTK_WIDGET(self->recovery_dialog) : NULL;
}

gboolean lw_window_save_to_file(LwWindow *self, GFile *file)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  save_to(self, file, FALSE);
  return !self->modified && self->file && g_file_equal(self->file, file);
}
