/* lw-window-events.c: joint friction and events in the main window: the
 * joints whose friction holds them (|slip| < v_t) in the sticking colour,
 * the contact planes (lines) and joint limits in the 3-D view, the run's
 * event log as a list that moves the scrubber, the events marked on the time
 * scale and on every plot against time, and the comparison run of the model
 * without friction drawn dashed beside the plotted series. */
#include "lw-window-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "lw-event-list.h"
#include "lw-event-marks.h"
#include "lw-view3d.h"

/* ---- what the 3-D view draws -------------------------------------------------- */
/* the joints' slip speed columns and transition speeds, the room for the
 * marks, and the size they are drawn at (from the assembled pose) */
void _lw_window_events_setup(LwWindow *self)
{
  const lw_model *m = lw_sim_runner_get_model(self->runner);
  const lw_desc *d = lw_model_desc(m);
  g_free(self->slip_col);
  g_free(self->v_t);
  g_free(self->sticking);
  g_free(self->marks);
  self->slip_col = g_new(int, self->njoints + 1);
  self->v_t = g_new0(double, self->njoints + 1);
  self->sticking = g_new0(double, self->njoints + 1);
  self->any_friction = FALSE;
  for (int j = 0; j < self->njoints; j++) {
    self->slip_col[j] = -1;
    const lw_joint_desc *jd = &d->joints[j];
    double vt = jd->friction[2];
    self->v_t[j] = vt > 0 ? vt : 10 * lw_model_opt(m)->step;
    self->any_friction |= jd->has_friction != 0;
  }
  for (int k = 0, col = 0; k < d->noutputs; col += lw_model_output_width(m, k), k++) {
    const lw_output_desc *o = &d->outputs[k];
    for (int j = 0; o->type == LW_OUT_SLIP_SPEED && j < self->njoints; j++)
      if (!g_strcmp0(o->joint, d->joints[j].name) && self->slip_col[j] < 0)
        self->slip_col[j] = col;
  }
  self->marks = g_new0(double, LW_RENDER_MARK_DOUBLES * (gsize)(lw_event_marks_max(d) + 1));
  self->nmarks = 0;
  /* the marks' size: the spread of the bodies at the start */
  self->mark_size = lw_event_marks_size(self->nbodies, self->poses);
}

/* the sticking joints and the marks at the frame whose outputs and poses
 * are in self->outputs, self->poses and self->joints */
void _lw_window_events_decorate(LwWindow *self, lw_render_state *rs)
{
  if (!self->slip_col)
    return;
  for (int j = 0; j < self->njoints; j++) {
    int c = self->slip_col[j];
    self->sticking[j] = c >= 0 && c < self->ncols && fabs(self->outputs[c]) < self->v_t[j];
  }
  rs->joint_sticking = self->any_friction ? self->sticking : NULL;
  const lw_desc *d = lw_model_desc(lw_sim_runner_get_model(self->runner));
  self->nmarks = lw_event_marks_fill(d, self->poses, self->joints, self->mark_size, self->marks);
  rs->nmarks = self->nmarks;
  rs->marks = self->nmarks ? self->marks : NULL;
}

/* ---- the event log, the time scale's and the plots' marks ------------------------ */
static void events_restart(LwWindow *self)
{
  const lw_desc *d = self->runner ? lw_model_desc(lw_sim_runner_get_model(self->runner)) : NULL;
  gtk_scale_clear_marks(GTK_SCALE(self->time_scale));
  lw_event_list_clear(LW_EVENT_LIST(self->event_list), d && d->nevents > 0);
  lw_plot_page_set_event_times(self->plot_page, NULL, 0);
  self->shown_events = 0;
  self->events_runner = self->runner;
}

/* the list, the scale and the plots show every event the run has met */
void _lw_window_events_sync(LwWindow *self)
{
  guint n = self->runner ? lw_sim_runner_get_n_events(self->runner) : 0;
  if (self->events_runner != self->runner || n < self->shown_events)
    events_restart(self);
  if (n == self->shown_events)
    return;
  const lw_desc *d = lw_model_desc(lw_sim_runner_get_model(self->runner));
  double *times = g_new(double, n);
  for (guint k = 0; k < n; k++) {
    lw_event_record rec;
    lw_sim_runner_get_event(self->runner, k, &rec);
    times[k] = rec.t;
    if (k < self->shown_events)
      continue;
    const lw_event_desc *e = rec.event >= 0 && rec.event < d->nevents ? &d->events[rec.event] : NULL;
    lw_event_list_append(LW_EVENT_LIST(self->event_list), &rec, e ? e->name : NULL,
                         e ? e->type : LW_EVENT_NTYPES);
    gtk_scale_add_mark(GTK_SCALE(self->time_scale), rec.t, GTK_POS_BOTTOM, NULL);
  }
  lw_plot_page_set_event_times(self->plot_page, times, n);
  g_free(times);
  self->shown_events = n;
}

/* ---- the run without friction ------------------------------------------------------ */
typedef struct {
  lw_model *model;
  double t_end, h;
  lw_sim_result res;
  guint serial; /* the installed model it compares with */
} CompareJob;

static void compare_job_free(gpointer p)
{
  CompareJob *job = p;
  lw_sim_result_clear(&job->res);
  lw_model_free(job->model);
  g_free(job);
}

static void compare_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  (void)source;
  (void)cancel;
  CompareJob *job = data;
  lw_simulate(job->model, job->t_end, job->h, &job->res, NULL, NULL);
  g_task_return_boolean(task, TRUE);
}

static void compare_done(GObject *source, GAsyncResult *result, gpointer user)
{
  (void)user;
  LwWindow *self = LW_WINDOW(source);
  CompareJob *job = g_task_get_task_data(G_TASK(result));
  self->comparing = FALSE;
  if (self->disposed)
    return;
  _lw_window_update_actions(self);
  if (job->serial != self->install_serial)
    return; /* the model changed while it ran: the comparison is of another model */
  if (job->res.rows < 2 && job->res.status != LW_OK) {
    g_autofree char *msg = g_strdup_printf(_("The run without friction failed: %s"), job->res.error.msg);
    _lw_window_toast(self, msg);
    return;
  }
  lw_plot_page_set_comparison(self->plot_page, job->model, job->res.table, job->res.rows, job->res.ncols,
                              _("without friction"));
  g_autofree char *msg = job->res.status == LW_OK
                           ? g_strdup(_("Dashed: the same model without friction"))
                           : g_strdup_printf(_("Dashed: the model without friction, up to t = %.4g s (%s)"),
                                             job->res.table[(job->res.rows - 1) * job->res.ncols],
                                             job->res.error.msg);
  _lw_window_toast(self, msg);
}

/* the model without friction, compiled with the built-in outputs (NULL
 * when it does not compile) */
static lw_model *model_without_friction(const lw_desc *desc)
{
  lw_desc *d = lw_desc_copy(desc);
  for (int j = 0; j < d->njoints; j++)
    d->joints[j].has_friction = 0;
  lw_error err;
  lw_model *m = lw_plot_page_compile(d, &err);
  lw_desc_free(d);
  return m;
}

void _lw_window_compare_friction_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (!self->desc || !self->runner || !self->any_friction || self->comparing)
    return;
  lw_model *m = model_without_friction(self->desc);
  if (!m) {
    _lw_window_toast(self, _("The model without friction does not compile"));
    return;
  }
  CompareJob *job = g_new0(CompareJob, 1);
  job->model = m;
  job->t_end = lw_sim_runner_get_t_end(self->runner);
  job->h = lw_model_opt(m)->step;
  job->serial = self->install_serial;
  self->comparing = TRUE;
  _lw_window_update_actions(self);
  GTask *task = g_task_new(self, NULL, compare_done, NULL);
  g_task_set_task_data(task, job, compare_job_free);
  g_task_run_in_thread(task, compare_thread);
  g_object_unref(task);
}

gboolean lw_window_get_comparing(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  return self->comparing;
}

GtkWidget *lw_window_get_event_list(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->event_list;
}

gboolean lw_window_get_joint_sticking(LwWindow *self, int j)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  return self->sticking && self->any_friction && j >= 0 && j < self->njoints && self->sticking[j] != 0;
}

int lw_window_get_n_marks(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), 0);
  return self->nmarks;
}
