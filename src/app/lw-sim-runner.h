/* lw-sim-runner.h: a simulation on a worker thread, its frames kept for
 * display and replay.
 *
 * The worker owns the integrator state; the main thread reads frames (time,
 * coordinates, outputs) under a lock and is told about the end of the run on
 * the main context the runner was created in.  Pause, step and cancel are
 * flags the worker looks at between steps, so they take effect within one
 * step. */
#pragma once

#include <glib-object.h>

#include "linkwright.h"

G_BEGIN_DECLS

typedef enum {
  LW_RUNNER_READY,     /* assembled, not started (or reset) */
  LW_RUNNER_RUNNING,
  LW_RUNNER_PAUSED,
  LW_RUNNER_FINISHED,  /* reached t_end, or an event stopped the run */
  LW_RUNNER_FAILED,    /* solver failure: the error says when and where; frames kept */
  LW_RUNNER_CANCELLED,
} LwRunnerState;

#define LW_TYPE_SIM_RUNNER (lw_sim_runner_get_type())
G_DECLARE_FINAL_TYPE(LwSimRunner, lw_sim_runner, LW, SIM_RUNNER, GObject)

/* Takes ownership of the compiled model; assembles it (initial position,
 * velocity and acceleration problems) on the calling thread so that frame 0
 * exists at once.  NULL with err filled when assembly fails. */
LwSimRunner *lw_sim_runner_new(lw_model *model, lw_error *err);

const lw_model *lw_sim_runner_get_model(LwSimRunner *self);
LwRunnerState lw_sim_runner_get_state(LwSimRunner *self);
double lw_sim_runner_get_t_end(LwSimRunner *self);
void lw_sim_runner_set_t_end(LwSimRunner *self, double t_end);

/* Real-time pacing: the worker waits so that simulated time advances at
 * `speed` simulated seconds per second; off, it runs flat out. */
void lw_sim_runner_set_real_time(LwSimRunner *self, gboolean real_time, double speed);

void lw_sim_runner_start(LwSimRunner *self);  /* run (or resume) to t_end */
void lw_sim_runner_pause(LwSimRunner *self);
void lw_sim_runner_step(LwSimRunner *self);   /* one step, then paused */
void lw_sim_runner_cancel(LwSimRunner *self); /* stops and joins the worker */
void lw_sim_runner_reset(LwSimRunner *self);  /* cancel, back to frame 0 */
/* Wait until the worker is idle (finished, failed, paused or cancelled). */
void lw_sim_runner_wait(LwSimRunner *self);

/* Frames: frame k holds time, the coordinates q (nq) and every output
 * column (ncols).  Every step is recorded unless a run would exceed
 * max_frames; then every k-th step is, and the last state always is. */
guint lw_sim_runner_get_n_frames(LwSimRunner *self);
/* Copies frame k into the arrays given (any may be NULL); FALSE if k is past the end. */
gboolean lw_sim_runner_get_frame(LwSimRunner *self, guint k, double *t, double *q, double *outputs);
/* Copies output column col (-1: time) of frames first .. first + n - 1 into dst;
 * returns the count copied. */
guint lw_sim_runner_copy_column(LwSimRunner *self, int col, guint first, guint n, double *dst);
/* Index of the last frame with time <= t. */
guint lw_sim_runner_frame_at_time(LwSimRunner *self, double t);

double lw_sim_runner_get_time(LwSimRunner *self);          /* newest frame's time */
double lw_sim_runner_get_real_time_factor(LwSimRunner *self); /* simulated / wall seconds while running */
double lw_sim_runner_get_progress(LwSimRunner *self);      /* 0..1 */
long lw_sim_runner_get_newton_iterations(LwSimRunner *self);
double lw_sim_runner_get_max_constraint_residual(LwSimRunner *self);
/* The run's event log (contacts, joint limits, guards met so far, in time
 * order): the count, and event k copied into rec (FALSE past the end). */
guint lw_sim_runner_get_n_events(LwSimRunner *self);
gboolean lw_sim_runner_get_event(LwSimRunner *self, guint k, lw_event_record *rec);

/* Whether the model runs in the tolerance mode (steps sized to its rtol and
 * atol, a frame at every output interval `step`, interpolated between the
 * steps); then lw_sim_runner_step advances one output interval, and the
 * perturbation spring is not applied.  The steps the finished run took and
 * refused (0 before the end). */
gboolean lw_sim_runner_get_tolerance_mode(LwSimRunner *self);
void lw_sim_runner_get_tolerance_steps(LwSimRunner *self, long *steps, long *rejected);

/* The failure, when state is LW_RUNNER_FAILED (NULL otherwise). */
const lw_error *lw_sim_runner_get_error(LwSimRunner *self);

/* The perturbation spring: from the step after this call on, every step
 * applies the force of lw_perturb_spring_force (lw-measure.h) from the
 * body-fixed point p of body (0-based) toward target (global axes),
 * evaluated at the state the step starts from and held over the step; the
 * frames recorded are those of the perturbed run.  body < 0 (or clear)
 * removes it.  Thread-safe; callable while running. */
void lw_sim_runner_set_perturbation(LwSimRunner *self, int body, const double p[3], const double target[3]);
void lw_sim_runner_clear_perturbation(LwSimRunner *self);
/* The force the newest step applied (zero when none); TRUE while one is set. */
gboolean lw_sim_runner_get_perturbation_force(LwSimRunner *self, double F[3]);
/* Steps since frame 0 that had a perturbation applied (for the status bar). */
long lw_sim_runner_get_perturbed_steps(LwSimRunner *self);

G_END_DECLS
