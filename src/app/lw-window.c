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
 * first.
 *
 * This file holds the widget, its construction, installing a model and
 * playback; actions, documents, undo and automation are in the
 * lw-window-*.c files named for them (see lw-window-private.h). */
#include "lw-window-private.h"
#include "lw-event-list.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lw-autosave.h"
#include "lw-editor.h"
#include "lw-measure-actions.h"
#include "lw-panel-util.h"
#include "lw-stress-legend.h"

static const double speeds[] = {0.1, 0.25, 0.5, 1.0, 2.0, 4.0};

#define PLOT_INTERVAL_US 33000 /* the plots during a live run: 30 Hz */
#define TEXT_INTERVAL_US 99000 /* the time slider and the status text: 10 Hz */
#define REPLAY_MAX_STEP_S 0.1

static void runner_state_cb(GObject *obj, GParamSpec *pspec, gpointer user);

G_DEFINE_FINAL_TYPE(LwWindow, lw_window, ADW_TYPE_APPLICATION_WINDOW)

/* ---- messages ----------------------------------------------------------- */
void _lw_window_show_message(LwWindow *self, const char *text)
{
  g_free(self->message);
  self->message = g_strdup(text);
  gtk_label_set_text(GTK_LABEL(self->message_label), text);
  gtk_revealer_set_reveal_child(GTK_REVEALER(self->message_revealer), TRUE);
}

void _lw_window_hide_message(LwWindow *self)
{
  g_clear_pointer(&self->message, g_free);
  gtk_revealer_set_reveal_child(GTK_REVEALER(self->message_revealer), FALSE);
}

void _lw_window_toast(LwWindow *self, const char *text)
{
  g_free(self->last_toast);
  self->last_toast = g_strdup(text);
  adw_toast_overlay_add_toast(self->toast_overlay, adw_toast_new(text));
}

const char *lw_window_get_last_toast(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->last_toast;
}

const char *lw_window_get_message(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->message;
}

/* ---- the status line ------------------------------------------------------ */
/* the tolerance mode named, with its steps once the run is done (the step
 * mode, the default, is not) */
static void append_mode_status(LwWindow *self, LwRunnerState st, char *buf, gsize len)
{
  if (!lw_sim_runner_get_tolerance_mode(self->runner))
    return;
  long steps = 0, rejected = 0;
  lw_sim_runner_get_tolerance_steps(self->runner, &steps, &rejected);
  char part[96];
  if (st == LW_RUNNER_FINISHED && steps > 0)
    g_snprintf(part, sizeof part, _(" · tolerance mode: %ld steps, %ld refused"), steps, rejected);
  else
    g_snprintf(part, sizeof part, "%s", _(" · tolerance mode"));
  g_strlcat(buf, part, len);
}

void _lw_window_update_status(LwWindow *self)
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
  append_mode_status(self, st, buf, sizeof buf);
  gtk_inscription_set_text(GTK_INSCRIPTION(self->status_label), buf);
}

/* ---- showing a frame ------------------------------------------------------ */
void _lw_window_show_frame(LwWindow *self, guint k)
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
  int nbp = lw_scene_beam_points(m);
  double *bp = nbp ? g_new(double, 4 * (gsize)nbp) : NULL;
  if (bp)
    lw_scene_beams(m, self->view_data, bp);
  /* the beams coloured by their stress at this frame, on request */
  gboolean stress = self->show_stress && nbp > 0;
  double *rgb = stress ? g_new(double, 3 * (gsize)nbp) : NULL;
  if (rgb)
    lw_stress_legend_color_beams(LW_STRESS_LEGEND(self->stress_legend), m, self->view_data, rgb);
  gtk_widget_set_visible(self->stress_legend, stress);
  lw_render_state rs = {t,    self->nbodies, self->poses, self->njoints, self->joints, self->nforces, self->forces,
                        NULL, 0,             NULL,        nbp,           bp,           rgb};
  _lw_window_events_decorate(self, &rs);
  lw_view3d_set_state(LW_VIEW3D(self->view), &rs);
  g_free(bp);
  g_free(rgb);
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

void _lw_window_set_scale_range(LwWindow *self)
{
  self->updating_scale = TRUE;
  double t_last = lw_sim_runner_get_time(self->runner);
  gtk_adjustment_set_upper(self->time_adjustment, t_last);
  gtk_adjustment_set_value(self->time_adjustment, self->shown_time);
  self->updating_scale = FALSE;
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
      _lw_window_show_frame(self, n - 1);
      update_traces(self, n);
      _lw_window_record_frame_time(self, now);
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
      _lw_window_set_scale_range(self);
      _lw_window_update_status(self);
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
        _lw_window_update_actions(self);
      }
    }
    _lw_window_show_frame(self, lw_sim_runner_frame_at_time(self->runner, t));
    self->shown_time = t;
    _lw_window_set_scale_range(self);
  }
  self->last_frame_us = now;
  if (!following) /* else refreshed with the panels above */
    _lw_window_update_status(self);
  _lw_window_events_sync(self);

  _lw_window_bench_tick(self, now, st);
  return G_SOURCE_CONTINUE;
}

/* Make desc the window's model.  Takes desc on success; on failure leaves
 * everything as it was and fills err. */
gboolean _lw_window_install_model(LwWindow *self, lw_desc *desc, GFile *file, const char *display_name,
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
  self->install_serial++;
  g_clear_pointer(&self->slip_col, g_free); /* the old model's: set up again below */
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
  _lw_window_show_frame(self, 0);
  _lw_window_events_setup(self); /* from the assembled pose, then that frame again */
  _lw_window_show_frame(self, 0);
  _lw_window_events_sync(self);
  _lw_window_set_scale_range(self);
  adw_window_title_set_title(self->window_title, desc->name && *desc->name ? desc->name : display_name);
  adw_window_title_set_subtitle(self->window_title, display_name);
  _lw_window_hide_message(self);
  _lw_window_update_status(self);
  _lw_window_update_actions(self);

  const LwAutomation *au = lw_application_get_automation(LW_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  if (au && au->flat_out)
    lw_sim_runner_set_real_time(runner, FALSE, 1.0);
  if (au && au->bench_fps > 0 && !self->automation_done) {
    /* the frame rate of the animation, not of the window's first appearance:
     * Run is pressed once the window has been up for a second, as a user
     * would (and the view has taken its render thread: _lw_window_bench_start_cb) */
    self->bench_shown_us = g_get_monotonic_time();
    g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, 1, _lw_window_bench_start_cb, g_object_ref(self), g_object_unref);
  } else if (au && au->run && !self->automation_done)
    lw_sim_runner_start(runner);
  return TRUE;
}

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
    _lw_window_show_frame(self, n - 1);
    update_traces(self, n);
    lw_plot_page_update(self->plot_page, n);
    _lw_window_set_scale_range(self);
    self->live_frames = n;
  }
  _lw_window_events_sync(self);
  if (st == LW_RUNNER_FAILED) {
    const lw_error *e = lw_sim_runner_get_error(runner);
    g_autofree char *msg = g_strdup_printf(_("The simulation failed at t = %.6g s (%s): %s. The %u frames up to "
                                             "then are kept."),
                                           e->time, e->path[0] ? e->path : _("the model"), e->msg, n);
    _lw_window_show_message(self, msg);
  }
  _lw_window_update_status(self);
  _lw_window_update_actions(self);
  if (st == LW_RUNNER_FINISHED || st == LW_RUNNER_FAILED)
    _lw_window_take_screenshot_and_maybe_quit(self);
}

/* a document other than the states on the stacks: a new model, a recovered one */
guint _lw_window_next_doc_id(void)
{
  static guint last;
  return ++last;
}

void _lw_window_update_subtitle(LwWindow *self)
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
  if (!_lw_window_install_model(self, desc, file, name, NULL, &err)) {
    lw_desc_free(desc);
    g_autofree char *msg = g_strdup_printf(_("%s The current model is kept."), err.msg);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  self->modified = modified;
  _lw_window_update_subtitle(self);
  _lw_window_refresh_editing(self);
  return TRUE;
}

/* ---- the document being edited -------------------------------------------------- */
void _lw_window_write_autosave(LwWindow *self)
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
  /* the editor showed the assembled pose with the beams in their own
   * colour: the frame again, coloured by stress when asked */
  if (runnable && self->show_stress)
    _lw_window_show_frame(self, self->shown_frame);
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
  int nbp = from_chk ? lw_scene_beam_points(chk->model) : 0;
  double *bp = nbp ? g_new(double, 4 * (gsize)nbp) : NULL;
  if (bp)
    lw_scene_beams(chk->model, chk->data, bp);
  lw_render_state rs = {0, nb, poses, nj, joints, nf, forces, NULL, 0, NULL, nbp, bp, NULL};
  gtk_widget_set_visible(self->stress_legend, FALSE); /* no run: no stress shown */
  lw_view3d_set_state(LW_VIEW3D(self->view), &rs);
  g_free(bp);
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
gboolean _lw_window_set_document(LwWindow *self, lw_desc *desc, gboolean modified)
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
    runnable = _lw_window_install_model(self, desc, file, name, NULL, &err);
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
    if (desc->nbodies + desc->nbeams == 0)
      _lw_window_hide_message(self);
    else {
      g_autofree char *msg = g_strdup_printf(_("The model cannot run yet: %s (the edit is kept; Undo goes back)"),
                                             chk.err.msg);
      _lw_window_show_message(self, msg);
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
  _lw_window_update_subtitle(self);
  _lw_window_update_actions(self);
  return runnable;
}

/* the editor and the property page follow a model installed another way */
void _lw_window_refresh_editing(LwWindow *self)
{
  if (!self->editor || !self->desc)
    return;
  lw_check_result chk;
  lw_check(self->desc, &chk);
  show_check(self, &chk, TRUE);
  lw_check_result_clear(&chk);
}

/* an edit from the editor or the property page: undoable, checked, autosaved */
void _lw_window_edit_cb(GObject *source, gpointer desc, const char *what, gpointer user)
{
  (void)source;
  LwWindow *self = user;
  if (!desc)
    return;
  if (self->desc)
    _lw_window_push_current(self, self->undo);
  g_ptr_array_set_size(self->redo, 0);
  _lw_window_set_document(self, desc, TRUE);
  _lw_window_write_autosave(self);
  g_debug("edit: %s", what);
  _lw_window_update_actions(self);
}

static void editor_message_cb(LwEditor *editor, const char *msg, gpointer user)
{
  (void)editor;
  _lw_window_toast(user, msg);
}

/* the optimization panel's Apply: the optimized model replaces this one, undoably */
static gboolean opt_apply_cb(LwOptPanel *panel, gpointer optimized, gpointer user)
{
  (void)panel;
  LwWindow *self = user;
  if (!self->desc || !optimized)
    return FALSE;
  _lw_window_push_current(self, self->undo);
  if (!replace_model(self, lw_desc_copy(optimized), TRUE)) {
    g_ptr_array_remove_index(self->undo, self->undo->len - 1);
    return FALSE;
  }
  g_ptr_array_set_size(self->redo, 0);
  _lw_window_update_actions(self);
  _lw_window_toast(self, _("Optimized design applied (Ctrl+Z to undo)"));
  return TRUE;
}

/* ---- editing actions ----------------------------------------------------------- */
/* a frame of 4 m x 3 m around the origin to draw in (the view keeps it
 * fitted as the palette slides in beside it) */
void _lw_window_frame_drawing_area(LwWindow *self)
{
  gboolean planar = !self->desc || self->desc->planar;
  double lo[3] = {-0.5, -0.5, planar ? 0 : -0.5}, hi[3] = {3.0, 2.0, planar ? 0 : 1.5};
  lw_view3d_fit_box(LW_VIEW3D(self->view), lo, hi);
}

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
  _lw_window_update_actions(self);
  double t = gtk_adjustment_get_value(adj);
  _lw_window_show_frame(self, lw_sim_runner_frame_at_time(self->runner, t));
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
  self->disposed = TRUE; /* a comparison run still under way finds the window gone */
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
  g_free(self->slip_col);
  g_free(self->v_t);
  g_free(self->sticking);
  g_free(self->marks);
  g_free(self->message);
  g_free(self->last_toast);
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
  self->undo = g_ptr_array_new_with_free_func(_lw_window_undo_entry_free);
  self->redo = g_ptr_array_new_with_free_func(_lw_window_undo_entry_free);
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
  _lw_window_actions_init(self);

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
  g_signal_connect(self->editor, "edit", G_CALLBACK(_lw_window_edit_cb), self);
  /* the stress scale, at the view's top right corner */
  self->stress_legend = lw_stress_legend_new();
  gtk_widget_set_halign(self->stress_legend, GTK_ALIGN_END);
  gtk_widget_set_valign(self->stress_legend, GTK_ALIGN_START);
  gtk_widget_set_margin_top(self->stress_legend, 12);
  gtk_widget_set_margin_end(self->stress_legend, 12);
  gtk_widget_set_visible(self->stress_legend, FALSE);
  gtk_overlay_add_overlay(GTK_OVERLAY(self->view_overlay), self->stress_legend);
  g_signal_connect(self->editor, "message", G_CALLBACK(editor_message_cb), self);
  g_signal_connect(self->prop_editor, "edit", G_CALLBACK(_lw_window_edit_cb), self);
  _lw_window_watch_focus(self);
  _lw_window_dnd_init(self);
  /* the 3-D view follows the style: a dark background in the dark style */
  g_object_bind_property(adw_style_manager_get_default(), "dark", self->view, "dark", G_BINDING_SYNC_CREATE);
  g_signal_connect(self->opt_panel, "apply", G_CALLBACK(opt_apply_cb), self);
  _lw_window_update_actions(self);
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
  self->event_list = lw_event_list_new();
  lw_event_list_set_adjustment(LW_EVENT_LIST(self->event_list), self->time_adjustment);
  /* the list's columns are wider than the side panel's least width: they
   * scroll sideways there rather than push the view aside */
  GtkWidget *events_scroll = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(events_scroll), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(events_scroll), self->event_list);
  gtk_stack_add_titled(GTK_STACK(self->side_stack), events_scroll, "events", _("Events"));
  /* each page button as wide as its title (style.css: side-pages), not all
   * as wide as the widest */
  GtkWidget *switcher = gtk_widget_get_prev_sibling(GTK_WIDGET(self->side_stack));
  GtkLayoutManager *sl = switcher ? gtk_widget_get_layout_manager(switcher) : NULL;
  if (GTK_IS_BOX_LAYOUT(sl))
    gtk_box_layout_set_homogeneous(GTK_BOX_LAYOUT(sl), FALSE);
  g_signal_connect(gtk_recent_manager_get_default(), "changed", G_CALLBACK(_lw_window_recent_changed_cb), self);
  _lw_window_rebuild_recent_menu(self);
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

GtkWidget *lw_window_get_editor(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->editor;
}

GtkWidget *lw_window_get_stress_legend(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->stress_legend;
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
