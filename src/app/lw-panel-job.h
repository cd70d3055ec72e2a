/* lw-panel-job.h: a long computation of a panel on a worker thread.
 *
 * A job runs work(job, data) on a GTask thread.  The panel keeps the job
 * it shows in a slot (a LwPanelJob * of its own); only the job in its slot
 * reports back: progress(owner, job) on the main thread when the worker
 * asks for it (calls are coalesced), and done(owner, job) once it ends.
 * A job dropped from its slot (the model changed, the panel goes away) is
 * cancelled and ends unheard: its result belongs to a model no longer on
 * screen.  data is freed with free_data when the last reference goes,
 * whichever thread that is on. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _LwPanelJob LwPanelJob;

/* worker thread */
typedef void (*LwPanelJobWork)(LwPanelJob *job, gpointer data);
/* main thread, for the job in its slot only */
typedef void (*LwPanelJobReport)(gpointer owner, LwPanelJob *job);

/* Start work on a worker thread with data and put the job in *slot (which
 * must be empty: drop the previous job first).  progress may be NULL.
 * When it ends, done is called for a job still in its slot, after the slot
 * is emptied. */
LwPanelJob *lw_panel_job_start(LwPanelJob **slot, gpointer owner, gpointer data, GDestroyNotify free_data,
                               LwPanelJobWork work, LwPanelJobReport progress, LwPanelJobReport done);
/* Let go of the job in *slot (if any): it is cancelled, reports nothing
 * more, and *slot is emptied. */
void lw_panel_job_drop(LwPanelJob **slot);

/* Ask the job to stop (it finishes early and still reports done). */
void lw_panel_job_cancel(LwPanelJob *job);
/* Any thread: whether the job was cancelled or dropped. */
gboolean lw_panel_job_is_cancelled(LwPanelJob *job);
gpointer lw_panel_job_get_data(LwPanelJob *job);

/* Worker thread: the fraction done (0 to 1), and one progress report
 * scheduled on the main thread. */
void lw_panel_job_set_fraction(LwPanelJob *job, double fraction);
double lw_panel_job_get_fraction(LwPanelJob *job);
/* Worker thread: schedule a progress report (one at a time: a report not
 * yet delivered covers the later calls). */
void lw_panel_job_notify(LwPanelJob *job);

G_END_DECLS
