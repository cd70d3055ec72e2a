/* lw-anim-dialog.c: see lw-anim-dialog.h.
 *
 * Export copies what the worker needs when it starts: a model compiled
 * from the runner's description, the recorded states it shows (one per
 * video frame) and the options.  The worker reports its progress in an
 * atomic (thousandths) that a timeout shows; Cancel sets the task's
 * GCancellable, which the progress callback answers.  Closing the dialog
 * while it writes cancels, and the dialog goes when the worker has
 * stopped. */
#include "lw-anim-dialog.h"

#include <glib/gi18n.h>

struct _LwAnimDialog {
  AdwWindow parent_instance;

  LwSimRunner *runner;
  gboolean has_camera;
  lw_camera camera;
  lw_render_options options;

  GtkWidget *width_spin, *height_spin, *fps_spin, *speed_spin;
  AdwComboRow *format_row;
  GtkWidget *frames_label, *message_label, *progress, *export_button, *cancel_button;
  char *message;

  GCancellable *cancellable;   /* while writing */
  gint permille;               /* the worker's progress */
  guint progress_id;
  gboolean close_when_done;
};

G_DEFINE_FINAL_TYPE(LwAnimDialog, lw_anim_dialog, ADW_TYPE_WINDOW)

static const char *const format_ext[] = {".webm", ".gif", ".png"};

/* ---- what is written ---------------------------------------------------- */
typedef struct {
  lw_model *model;
  double *t, *q;
  int n;
  lw_anim_options opt;
  char *path;
  gint *permille;
  GCancellable *cancellable;
} ExportJob;

static void export_job_free(ExportJob *j)
{
  lw_model_free(j->model);
  g_free(j->t);
  g_free(j->q);
  g_free(j->path);
  g_clear_object(&j->cancellable);
  g_free(j);
}

static void set_message(LwAnimDialog *self, const char *text)
{
  g_free(self->message);
  self->message = g_strdup(text ? text : "");
  gtk_label_set_text(GTK_LABEL(self->message_label), self->message);
  gtk_widget_set_visible(self->message_label, *self->message != '\0');
}

static lw_anim_options read_options(LwAnimDialog *self)
{
  lw_anim_options o = {0};
  o.width = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(self->width_spin));
  o.height = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(self->height_spin));
  o.fps = gtk_spin_button_get_value(GTK_SPIN_BUTTON(self->fps_spin));
  o.format = (lw_anim_format)adw_combo_row_get_selected(self->format_row);
  o.has_camera = self->has_camera;
  o.camera = self->camera;
  o.has_options = TRUE;
  o.options = self->options;
  o.dark = adw_style_manager_get_dark(adw_style_manager_get_default());
  return o;
}

static double read_speed(LwAnimDialog *self)
{
  return gtk_spin_button_get_value(GTK_SPIN_BUTTON(self->speed_spin));
}

/* the recorded times of the run and the video frames they give */
static double *recorded_times(LwAnimDialog *self, int *n)
{
  guint nf = lw_sim_runner_get_n_frames(self->runner);
  double *t = g_new(double, MAX(nf, 1));
  *n = (int)lw_sim_runner_copy_column(self->runner, -1, 0, nf, t);
  return t;
}

static void update_frames_label(LwAnimDialog *self)
{
  int n;
  g_autofree double *t = recorded_times(self, &n);
  g_autofree int *pick = NULL;
  double fps = gtk_spin_button_get_value(GTK_SPIN_BUTTON(self->fps_spin));
  int count = lw_anim_pick_frames(t, n, fps, read_speed(self), &pick);
  double span = n > 0 ? t[n - 1] - t[0] : 0;
  g_autofree char *text = g_strdup_printf(_("%d frames, %.1f s of video, of %.3f s of the run"), count,
                                          count / fps, span);
  gtk_label_set_text(GTK_LABEL(self->frames_label), text);
}

static ExportJob *make_job(LwAnimDialog *self, const char *path, GError **error)
{
  int n;
  g_autofree double *t = recorded_times(self, &n);
  if (n < 2) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_INVALID, "%s",
                _("Nothing to animate yet: run the simulation first"));
    return NULL;
  }
  lw_error err;
  lw_model *m = lw_compile(lw_model_desc(lw_sim_runner_get_model(self->runner)), &err);
  if (!m) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_INVALID, "%s", err.msg);
    return NULL;
  }
  ExportJob *j = g_new0(ExportJob, 1);
  j->model = m;
  j->opt = read_options(self);
  int *pick = NULL;
  j->n = lw_anim_pick_frames(t, n, j->opt.fps, read_speed(self), &pick);
  int nq = lw_model_nq(m);
  j->t = g_new(double, j->n);
  j->q = g_new(double, (gsize)j->n * MAX(nq, 1));
  for (int k = 0; k < j->n; k++)
    lw_sim_runner_get_frame(self->runner, (guint)pick[k], &j->t[k], j->q + (gsize)k * nq, NULL);
  g_free(pick);
  j->path = g_strdup(path);
  return j;
}

/* ---- the worker ----------------------------------------------------------- */
static int job_progress(double fraction, void *user)
{
  ExportJob *j = user;
  g_atomic_int_set(j->permille, (gint)(1000 * fraction));
  return g_cancellable_is_cancelled(j->cancellable);
}

static void export_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  (void)source;
  (void)cancellable;
  ExportJob *j = data;
  lw_anim_frames fr = {j->model, j->n, j->t, j->q};
  GError *error = NULL;
  if (lw_anim_export(&fr, &j->opt, j->path, job_progress, j, &error))
    g_task_return_boolean(task, TRUE);
  else
    g_task_return_error(task, error);
}

static gboolean show_progress_cb(gpointer user)
{
  LwAnimDialog *self = user;
  gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress), lw_anim_dialog_get_fraction(self));
  return G_SOURCE_CONTINUE;
}

static void set_running(LwAnimDialog *self, gboolean running)
{
  gtk_widget_set_sensitive(self->export_button, !running);
  gtk_widget_set_visible(self->progress, running);
  gtk_button_set_label(GTK_BUTTON(self->cancel_button), running ? _("_Cancel") : _("_Close"));
  if (running && !self->progress_id)
    self->progress_id = g_timeout_add(100, show_progress_cb, self);
  else if (!running)
    g_clear_handle_id(&self->progress_id, g_source_remove);
}

static void export_done_cb(GObject *source, GAsyncResult *res, gpointer user)
{
  (void)user;
  LwAnimDialog *self = LW_ANIM_DIALOG(source);
  ExportJob *j = g_task_get_task_data(G_TASK(res));
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean(G_TASK(res), &error);
  g_clear_object(&self->cancellable);
  set_running(self, FALSE);
  if (self->close_when_done) {
    gtk_window_destroy(GTK_WINDOW(self));
    return;
  }
  if (ok) {
    g_autofree char *msg = g_strdup_printf(_("Exported %d frames to %s"), j->n, j->path);
    set_message(self, msg);
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress), 1.0);
  } else if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
    set_message(self, _("Cancelled: nothing was written"));
  } else {
    set_message(self, error->message);
  }
}

gboolean lw_anim_dialog_export_to(LwAnimDialog *self, GFile *file)
{
  g_return_val_if_fail(LW_IS_ANIM_DIALOG(self), FALSE);
  g_return_val_if_fail(G_IS_FILE(file), FALSE);
  if (self->cancellable)
    return FALSE; /* one export at a time */
  g_autofree char *path = g_file_get_path(file);
  if (!path) {
    set_message(self, _("Choose a file on this computer: the video is written there directly"));
    return FALSE;
  }
  g_autoptr(GError) error = NULL;
  ExportJob *j = make_job(self, path, &error);
  if (!j) {
    set_message(self, error->message);
    return FALSE;
  }
  self->cancellable = g_cancellable_new();
  j->cancellable = g_object_ref(self->cancellable);
  j->permille = &self->permille;
  g_atomic_int_set(&self->permille, 0);
  set_message(self, NULL);
  set_running(self, TRUE);
  GTask *task = g_task_new(self, self->cancellable, export_done_cb, NULL);
  g_task_set_task_data(task, j, (GDestroyNotify)export_job_free);
  g_task_run_in_thread(task, export_thread);
  g_object_unref(task);
  return TRUE;
}

void lw_anim_dialog_cancel(LwAnimDialog *self)
{
  g_return_if_fail(LW_IS_ANIM_DIALOG(self));
  if (self->cancellable)
    g_cancellable_cancel(self->cancellable);
}

gboolean lw_anim_dialog_get_running(LwAnimDialog *self)
{
  g_return_val_if_fail(LW_IS_ANIM_DIALOG(self), FALSE);
  return self->cancellable != NULL;
}

double lw_anim_dialog_get_fraction(LwAnimDialog *self)
{
  g_return_val_if_fail(LW_IS_ANIM_DIALOG(self), 0);
  return g_atomic_int_get(&self->permille) / 1000.0;
}

const char *lw_anim_dialog_get_message(LwAnimDialog *self)
{
  g_return_val_if_fail(LW_IS_ANIM_DIALOG(self), NULL);
  return self->message ? self->message : "";
}

/* ---- the fields ------------------------------------------------------------- */
void lw_anim_dialog_set_size(LwAnimDialog *self, int width, int height)
{
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->width_spin), width);
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->height_spin), height);
}

void lw_anim_dialog_set_fps(LwAnimDialog *self, double fps)
{
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->fps_spin), fps);
}

void lw_anim_dialog_set_speed(LwAnimDialog *self, double speed)
{
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->speed_spin), speed);
}

void lw_anim_dialog_set_format(LwAnimDialog *self, lw_anim_format format)
{
  adw_combo_row_set_selected(self->format_row, (guint)format);
}

static void chooser_response_cb(GtkNativeDialog *chooser, int response, gpointer user)
{
  LwAnimDialog *self = user;
  if (response == GTK_RESPONSE_ACCEPT) {
    g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(chooser));
    lw_anim_dialog_export_to(self, file);
  }
  g_object_unref(chooser);
  g_object_unref(self);
}

static void export_clicked_cb(GtkButton *button, gpointer user)
{
  (void)button;
  LwAnimDialog *self = user;
  lw_anim_format f = (lw_anim_format)adw_combo_row_get_selected(self->format_row);
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new(_("Export Animation"), GTK_WINDOW(self),
                                                              GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  g_autofree char *name = g_strconcat("animation", format_ext[f], NULL);
  gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), name);
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new();
  static const char *const names[] = {N_("WebM video"), N_("Animated GIF"), N_("PNG images")};
  gtk_file_filter_set_name(filter, _(names[f]));
  g_autofree char *pattern = g_strconcat("*", format_ext[f], NULL);
  gtk_file_filter_add_pattern(filter, pattern);
  gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), filter);
  g_signal_connect(chooser, "response", G_CALLBACK(chooser_response_cb), g_object_ref(self));
  gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

static void cancel_clicked_cb(GtkButton *button, gpointer user)
{
  (void)button;
  LwAnimDialog *self = user;
  if (self->cancellable)
    lw_anim_dialog_cancel(self);
  else
    gtk_window_close(GTK_WINDOW(self));
}

static gboolean close_request_cb(GtkWindow *window, gpointer user)
{
  (void)user;
  LwAnimDialog *self = LW_ANIM_DIALOG(window);
  if (!self->cancellable)
    return FALSE;
  /* the worker stops at its next frame; the dialog goes then */
  self->close_when_done = TRUE;
  lw_anim_dialog_cancel(self);
  gtk_widget_set_visible(GTK_WIDGET(self), FALSE);
  return TRUE;
}

static void fields_changed_cb(gpointer user)
{
  update_frames_label(LW_ANIM_DIALOG(user));
}

static GtkWidget *spin_row(AdwPreferencesGroup *group, const char *title, double lo, double hi, double step,
                           int digits, double value, GtkWidget **spin)
{
  GtkWidget *row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
  adw_preferences_row_set_use_underline(ADW_PREFERENCES_ROW(row), TRUE);
  *spin = gtk_spin_button_new_with_range(lo, hi, step);
  gtk_spin_button_set_digits(GTK_SPIN_BUTTON(*spin), (guint)digits);
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(*spin), value);
  gtk_widget_set_valign(*spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix(ADW_ACTION_ROW(row), *spin);
  adw_action_row_set_activatable_widget(ADW_ACTION_ROW(row), *spin);
  adw_preferences_group_add(group, row);
  return row;
}

static GtkWidget *build_fields(LwAnimDialog *self)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP(adw_preferences_group_new());
  spin_row(group, _("_Width (pixels)"), 16, 4096, 2, 0, 640, &self->width_spin);
  spin_row(group, _("_Height (pixels)"), 16, 4096, 2, 0, 480, &self->height_spin);
  spin_row(group, _("_Frame rate (frames/s)"), 1, 120, 1, 0, 30, &self->fps_spin);
  spin_row(group, _("_Speed (simulated s per s)"), 0.01, 100, 0.05, 2, 1.0, &self->speed_spin);
  self->format_row = ADW_COMBO_ROW(adw_combo_row_new());
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(self->format_row), _("F_ormat"));
  adw_preferences_row_set_use_underline(ADW_PREFERENCES_ROW(self->format_row), TRUE);
  const char *const formats[] = {_("WebM video"), _("Animated GIF"), _("PNG images (one a frame)"), NULL};
  g_autoptr(GtkStringList) list = gtk_string_list_new(formats);
  adw_combo_row_set_model(self->format_row, G_LIST_MODEL(list));
  adw_preferences_group_add(group, GTK_WIDGET(self->format_row));
  GtkWidget *spins[] = {self->fps_spin, self->speed_spin};
  for (guint i = 0; i < G_N_ELEMENTS(spins); i++)
    g_signal_connect_swapped(spins[i], "value-changed", G_CALLBACK(fields_changed_cb), self);
  return GTK_WIDGET(group);
}

static void build(LwAnimDialog *self)
{
  gtk_window_set_title(GTK_WINDOW(self), _("Export Animation"));
  gtk_window_set_default_size(GTK_WINDOW(self), 460, -1);
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *header = adw_header_bar_new();
  gtk_box_append(GTK_BOX(box), header);
  GtkWidget *body = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_margin_start(body, 18);
  gtk_widget_set_margin_end(body, 18);
  gtk_widget_set_margin_bottom(body, 18);
  gtk_box_append(GTK_BOX(body), build_fields(self));
  self->frames_label = gtk_label_new(NULL);
  gtk_widget_add_css_class(self->frames_label, "dim-label");
  gtk_label_set_xalign(GTK_LABEL(self->frames_label), 0);
  gtk_box_append(GTK_BOX(body), self->frames_label);
  self->progress = gtk_progress_bar_new();
  gtk_widget_set_visible(self->progress, FALSE);
  gtk_box_append(GTK_BOX(body), self->progress);
  self->message_label = gtk_label_new(NULL);
  gtk_label_set_wrap(GTK_LABEL(self->message_label), TRUE);
  gtk_label_set_xalign(GTK_LABEL(self->message_label), 0);
  gtk_label_set_selectable(GTK_LABEL(self->message_label), TRUE);
  gtk_widget_set_visible(self->message_label, FALSE);
  gtk_box_append(GTK_BOX(body), self->message_label);
  GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_halign(buttons, GTK_ALIGN_END);
  self->cancel_button = gtk_button_new_with_mnemonic(_("_Close"));
  self->export_button = gtk_button_new_with_mnemonic(_("_Export…"));
  gtk_widget_add_css_class(self->export_button, "suggested-action");
  gtk_box_append(GTK_BOX(buttons), self->cancel_button);
  gtk_box_append(GTK_BOX(buttons), self->export_button);
  gtk_box_append(GTK_BOX(body), buttons);
  gtk_box_append(GTK_BOX(box), body);
  adw_window_set_content(ADW_WINDOW(self), box);
  g_signal_connect(self->export_button, "clicked", G_CALLBACK(export_clicked_cb), self);
  g_signal_connect(self->cancel_button, "clicked", G_CALLBACK(cancel_clicked_cb), self);
  g_signal_connect(self, "close-request", G_CALLBACK(close_request_cb), NULL);
}

static void lw_anim_dialog_dispose(GObject *obj)
{
  LwAnimDialog *self = LW_ANIM_DIALOG(obj);
  g_clear_handle_id(&self->progress_id, g_source_remove);
  g_clear_object(&self->runner);
  G_OBJECT_CLASS(lw_anim_dialog_parent_class)->dispose(obj);
}

static void lw_anim_dialog_finalize(GObject *obj)
{
  LwAnimDialog *self = LW_ANIM_DIALOG(obj);
  g_free(self->message);
  G_OBJECT_CLASS(lw_anim_dialog_parent_class)->finalize(obj);
}

static void lw_anim_dialog_class_init(LwAnimDialogClass *klass)
{
  G_OBJECT_CLASS(klass)->dispose = lw_anim_dialog_dispose;
  G_OBJECT_CLASS(klass)->finalize = lw_anim_dialog_finalize;
}

static void lw_anim_dialog_init(LwAnimDialog *self)
{
  build(self);
}

LwAnimDialog *lw_anim_dialog_new(GtkWindow *parent, LwSimRunner *runner, const lw_camera *camera,
                                 const lw_render_options *options)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(runner), NULL);
  LwAnimDialog *self = g_object_new(LW_TYPE_ANIM_DIALOG, "transient-for", parent, "modal", FALSE, NULL);
  self->runner = g_object_ref(runner);
  self->has_camera = camera != NULL;
  if (camera)
    self->camera = *camera;
  self->options = *options;
  update_frames_label(self);
  return self;
}
