/* lw-panel-job.c: a panel's computation on a worker thread (see lw-panel-job.h).
 *
 * The job is reference counted: the slot, the GTask and a pending progress
 * idle each hold one.  owner and slot are touched on the main thread only;
 * the worker sees the cancel flag, the fraction and the idle flag, which
 * are atomic. */
#include "lw-panel-job.h"

#include <gio/gio.h>

struct _LwPanelJob {
  gpointer data;
  GDestroyNotify free_data;
  LwPanelJobWork work;
  LwPanelJobReport progress, done;
  GMainContext *context;  /* where the reports run */
  gint cancel;
  gint fraction;          /* per million */
  gint idle_pending;
  /* main thread only: NULL once dropped */
  gpointer owner;
  LwPanelJob **slot;
};

static void job_clear(gpointer p)
{
  LwPanelJob *job = p;
  if (job->free_data)
    job->free_data(job->data);
  g_main_context_unref(job->context);
}

static LwPanelJob *job_ref(LwPanelJob *job)
{
  return g_atomic_rc_box_acquire(job);
}

static void job_unref(gpointer job)
{
  g_atomic_rc_box_release_full(job, job_clear);
}

static void job_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  (void)source;
  (void)cancellable;
  LwPanelJob *job = data;
  job->work(job, job->data);
  g_task_return_boolean(task, TRUE);
}

static void job_finished(GObject *source, GAsyncResult *res, gpointer user)
{
  (void)source;
  (void)user;
  LwPanelJob *job = g_task_get_task_data(G_TASK(res));
  g_task_propagate_boolean(G_TASK(res), NULL);
  if (!job->slot)
    return; /* dropped: a result nobody shows */
  gpointer owner = job->owner;
  LwPanelJob **slot = job->slot;
  job->slot = NULL;
  job->owner = NULL;
  /* the slot's reference goes after done has read the job */
  *slot = NULL;
  job->done(owner, job);
  job_unref(job);
}

LwPanelJob *lw_panel_job_start(LwPanelJob **slot, gpointer owner, gpointer data, GDestroyNotify free_data,
                               LwPanelJobWork work, LwPanelJobReport progress, LwPanelJobReport done)
{
  g_return_val_if_fail(slot && !*slot && work && done, NULL);
  LwPanelJob *job = g_atomic_rc_box_new0(LwPanelJob);
  job->data = data;
  job->free_data = free_data;
  job->work = work;
  job->progress = progress;
  job->done = done;
  job->context = g_main_context_ref_thread_default();
  job->owner = owner;
  job->slot = slot;
  *slot = job;
  GTask *task = g_task_new(NULL, NULL, job_finished, NULL);
  g_task_set_task_data(task, job_ref(job), job_unref);
  g_task_run_in_thread(task, job_thread);
  g_object_unref(task);
  return job;
}

void lw_panel_job_drop(LwPanelJob **slot)
{
  g_return_if_fail(slot);
  LwPanelJob *job = g_steal_pointer(slot);
  if (!job)
    return;
  g_atomic_int_set(&job->cancel, 1);
  job->owner = NULL;
  job->slot = NULL;
  job_unref(job);
}

void lw_panel_job_cancel(LwPanelJob *job)
{
  g_return_if_fail(job);
  g_atomic_int_set(&job->cancel, 1);
}

gboolean lw_panel_job_is_cancelled(LwPanelJob *job)
{
  g_return_val_if_fail(job, TRUE);
  return g_atomic_int_get(&job->cancel) != 0;
}

gpointer lw_panel_job_get_data(LwPanelJob *job)
{
  g_return_val_if_fail(job, NULL);
  return job->data;
}

static gboolean progress_idle(gpointer user)
{
  LwPanelJob *job = user;
  g_atomic_int_set(&job->idle_pending, 0);
  if (job->slot && job->progress)
    job->progress(job->owner, job);
  return G_SOURCE_REMOVE;
}

void lw_panel_job_notify(LwPanelJob *job)
{
  g_return_if_fail(job);
  if (!job->progress || !g_atomic_int_compare_and_exchange(&job->idle_pending, 0, 1))
    return;
  GSource *src = g_idle_source_new();
  g_source_set_priority(src, G_PRIORITY_DEFAULT);
  g_source_set_callback(src, progress_idle, job_ref(job), job_unref);
  g_source_attach(src, job->context);
  g_source_unref(src);
}

void lw_panel_job_set_fraction(LwPanelJob *job, double fraction)
{
  g_return_if_fail(job);
  g_atomic_int_set(&job->fraction, (gint)(1e6 * CLAMP(fraction, 0.0, 1.0)));
  lw_panel_job_notify(job);
}

double lw_panel_job_get_fraction(LwPanelJob *job)
{
  g_return_val_if_fail(job, 0);
  return g_atomic_int_get(&job->fraction) * 1e-6;
}
