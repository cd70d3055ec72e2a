/* lw-sim-runner.c: the solver on a worker thread (see lw-sim-runner.h). */
#include "lw-sim-runner.h"
#include "lw-measure.h"

#include <math.h>
#include <string.h>

/* Frames are kept up to this many bytes; a longer run records every k-th step. */
#define FRAME_BUDGET_BYTES ((gsize)256 << 20)
/* Paced to the wall clock, the worker lets the clock run ahead by this
 * much and then computes until it has caught up: one wake-up per burst
 * instead of one per step, so the thread does not preempt the display
 * thousands of times a second (a display frame is 16.7 ms).  Simulated
 * time never runs ahead of the wall clock by more than a step. */
#define PACE_BURST_US 8000

struct _LwSimRunner {
  GObject parent_instance;

  lw_model *model;
  lw_data *data;          /* the worker's while a thread runs */
  lw_event_run *events;   /* the model's contacts, limits and guards (the worker's too) */
  int nq, ncols, stride;  /* frame: t, q (nq), outputs (ncols) */
  double h;

  GMainContext *context;  /* where state changes are announced */
  GThread *thread;
  GMutex lock;
  GCond cond;
  /* under lock */
  LwRunnerState state;
  gboolean want_pause, want_step, want_cancel;
  double t_end;
  gboolean real_time;
  double speed;
  GArray *frames;         /* doubles, stride per frame */
  GArray *event_log;      /* lw_event_record: the run's events so far, in time order */
  long steps;             /* steps since frame 0 */
  long record_every;
  long newton_iterations;
  double max_residual;
  double rtf;
  lw_error error;
  double *scratch;        /* (ncols) outputs of the newest step */
  /* the tolerance mode (lw_opt.mode): rows at the output interval h, steps
   * sized to the error; the run's wall clock and time at its (re)start, and
   * its steps taken and refused */
  gboolean tolerance;
  gint64 tol_wall0;
  double tol_t0;
  long tol_steps, tol_rejected;
  /* the perturbation spring, set from the main thread (under lock) */
  gboolean perturb_on;
  LwBodyPoint perturb_point;
  double perturb_target[3];
  double perturb_force[3];  /* applied by the newest step */
  long perturbed_steps;     /* steps since frame 0 with a force applied */
};

G_DEFINE_FINAL_TYPE(LwSimRunner, lw_sim_runner, G_TYPE_OBJECT)

enum { PROP_0, PROP_STATE, N_PROPS };
static GParamSpec *properties[N_PROPS];

static gboolean notify_state_cb(gpointer user)
{
  g_object_notify_by_pspec(G_OBJECT(user), properties[PROP_STATE]);
  return G_SOURCE_REMOVE;
}

/* called with the lock held, from either thread */
static void set_state_locked(LwSimRunner *self, LwRunnerState s)
{
  if (self->state == s)
    return;
  self->state = s;
  /* always through a source: g_main_context_invoke would run the handler
   * right here, on the worker, when no thread owns the context */
  GSource *src = g_idle_source_new();
  g_source_set_priority(src, G_PRIORITY_DEFAULT);
  g_source_set_callback(src, notify_state_cb, g_object_ref(self), g_object_unref);
  g_source_attach(src, self->context);
  g_source_unref(src);
}

static void append_state_frame_locked(LwSimRunner *self, double t, const double *q, const double *outputs)
{
  guint n = self->frames->len / self->stride;
  g_array_set_size(self->frames, (n + 1) * (guint)self->stride);
  double *f = &g_array_index(self->frames, double, (gsize)n * self->stride);
  f[0] = t;
  memcpy(f + 1, q, sizeof(double) * self->nq);
  memcpy(f + 1 + self->nq, outputs, sizeof(double) * self->ncols);
}

static void append_frame_locked(LwSimRunner *self, const double *outputs)
{
  append_state_frame_locked(self, lw_data_time(self->data), lw_data_q(self->data), outputs);
}

/* the newest frame's time (under lock) */
static double last_frame_time_locked(LwSimRunner *self)
{
  guint n = self->frames->len / self->stride;
  return n ? g_array_index(self->frames, double, (gsize)(n - 1) * self->stride) : -INFINITY;
}

/* how many steps per recorded frame so that the rest of the run fits the budget */
static void plan_recording_locked(LwSimRunner *self)
{
  double t = lw_data_time(self->data);
  double left = ceil((self->t_end - t) / self->h - 1e-9);
  gsize have = self->frames->len / self->stride;
  gsize max_frames = FRAME_BUDGET_BYTES / (sizeof(double) * self->stride);
  gsize room = max_frames > have + 16 ? max_frames - have : 16;
  long every = left > (double)room ? (long)ceil(left / (double)room) : 1;
  if (every > self->record_every)
    self->record_every = every;
}

/* The spring from the setter's state, evaluated at the state the step starts
 * from, written into the worker's data (constant over the step). */
static void apply_perturbation_locked(LwSimRunner *self)
{
  if (!self->perturb_on) {
    lw_data_set_perturbation(self->data, -1, NULL, NULL);
    memset(self->perturb_force, 0, sizeof self->perturb_force);
    return;
  }
  const LwBodyPoint *bp = &self->perturb_point;
  double x[3], v[3];
  lw_body_point_position(self->model, lw_data_q(self->data), bp, x);
  lw_body_point_velocity(self->model, lw_data_qd(self->data), bp, v);
  lw_perturb_spring_force(lw_model_body_mass(self->model, bp->body), x, v, self->perturb_target,
                          self->perturb_force);
  lw_data_set_perturbation(self->data, bp->body, bp->p, self->perturb_force);
  self->perturbed_steps++;
}

/* ---- the tolerance mode ------------------------------------------------ */
/* Its steps are sized by the error estimate and the rows come at the
 * output interval, interpolated between them (dense output): the run is
 * lw_simulate_ex's, and each row it hands on, with its state, becomes a
 * frame here.  Pause waits inside this callback, so that the run goes on
 * from where it stopped; Step lets one more row (one output interval)
 * through; cancel ends the run.  The rows a resumed run makes again (a run
 * started after a stop begins at t = 0) are skipped. */
static int tolerance_row(const lw_data *d, const double *row, int ncols, void *user)
{
  LwSimRunner *self = user;
  (void)ncols;
  g_mutex_lock(&self->lock);
  if (row[0] <= last_frame_time_locked(self)) {
    gboolean stop = self->want_cancel;
    g_mutex_unlock(&self->lock);
    return stop;
  }
  append_state_frame_locked(self, row[0], lw_data_q(d), row + 1);
  self->steps++;
  if (self->want_step) {
    self->want_step = FALSE;
    self->want_pause = TRUE;
  }
  gint64 now = g_get_monotonic_time();
  double sim = row[0] - self->tol_t0, wall = (now - self->tol_wall0) * 1e-6;
  self->rtf = wall > 0.05 ? sim / wall : 0;
  if (self->real_time && !self->want_pause && self->speed > 0) {
    gint64 due = self->tol_wall0 + (gint64)(sim / self->speed * 1e6);
    while (!self->want_cancel && !self->want_pause && g_get_monotonic_time() < due)
      g_cond_wait_until(&self->cond, &self->lock, due);
  }
  while (self->want_pause && !self->want_cancel) {
    set_state_locked(self, LW_RUNNER_PAUSED);
    self->rtf = 0;
    g_cond_wait(&self->cond, &self->lock);
    self->tol_wall0 = g_get_monotonic_time();
    self->tol_t0 = row[0];
  }
  gboolean stop = self->want_cancel;
  if (!stop)
    set_state_locked(self, LW_RUNNER_RUNNING);
  g_mutex_unlock(&self->lock);
  return stop;
}

/* the worker of a model in the tolerance mode (called with the lock held) */
static void tolerance_worker_locked(LwSimRunner *self)
{
  self->tol_wall0 = g_get_monotonic_time();
  self->tol_t0 = last_frame_time_locked(self);
  double t_end = self->t_end;
  set_state_locked(self, LW_RUNNER_RUNNING);
  g_mutex_unlock(&self->lock);
  lw_sim_output out = {.every = 1, .keep = 0, .user = self, .state_row = tolerance_row};
  lw_sim_result res;
  int st = lw_simulate_ex(self->model, t_end, self->h, &out, &res, NULL, NULL);
  g_mutex_lock(&self->lock);
  self->newton_iterations += res.newton_iterations;
  self->max_residual = fmax(self->max_residual, res.max_constraint_residual);
  self->tol_steps = res.steps;
  self->tol_rejected = res.rejected;
  /* the run's events (contacts, limits, guards), known once it is over */
  if (res.nevents > (long)self->event_log->len)
    g_array_append_vals(self->event_log, res.events + self->event_log->len,
                        (guint)(res.nevents - (long)self->event_log->len));
  if (self->want_cancel) {
    set_state_locked(self, LW_RUNNER_CANCELLED);
  } else if (st != LW_OK) {
    self->error = res.error;
    set_state_locked(self, LW_RUNNER_FAILED);
  } else {
    set_state_locked(self, LW_RUNNER_FINISHED);
  }
  lw_sim_result_clear(&res);
}

static gpointer worker(gpointer user)
{
  LwSimRunner *self = user;
  if (self->tolerance) {
    g_mutex_lock(&self->lock);
    tolerance_worker_locked(self);
    g_mutex_unlock(&self->lock);
    return NULL;
  }
  lw_step_info info;
  lw_error err;
  g_mutex_lock(&self->lock);
  gint64 wall0 = g_get_monotonic_time();
  double t0 = lw_data_time(self->data);
  for (;;) {
    if (self->want_cancel) {
      set_state_locked(self, LW_RUNNER_CANCELLED);
      break;
    }
    if (self->want_pause && !self->want_step) {
      set_state_locked(self, LW_RUNNER_PAUSED);
      self->rtf = 0;
      g_cond_wait(&self->cond, &self->lock);
      wall0 = g_get_monotonic_time();
      t0 = lw_data_time(self->data);
      continue;
    }
    double t = lw_data_time(self->data);
    if (t >= self->t_end - 0.5 * self->h) {
      set_state_locked(self, LW_RUNNER_FINISHED);
      break;
    }
    set_state_locked(self, LW_RUNNER_RUNNING);
    apply_perturbation_locked(self);
    g_mutex_unlock(&self->lock);

    int st = lw_step_events(self->model, self->data, self->events, &info, &err);
    if (st == LW_OK || st == LW_EVENT_STOP)
      lw_outputs(self->model, self->data, self->scratch);
    long nev = 0;
    const lw_event_record *log = lw_event_run_log(self->events, &nev);

    g_mutex_lock(&self->lock);
    /* the log is the worker's; the main thread reads this copy */
    if (nev > (long)self->event_log->len)
      g_array_append_vals(self->event_log, log + self->event_log->len, (guint)(nev - (long)self->event_log->len));
    self->newton_iterations += info.iterations;
    if (st == LW_EVENT_STOP) {
      /* a guard or the end of a bouncing: the frames end at the event */
      self->steps++;
      append_frame_locked(self, self->scratch);
      set_state_locked(self, LW_RUNNER_FINISHED);
      break;
    }
    if (st != LW_OK) {
      self->error = err;
      /* the state at the failure is not a solution; the frames so far are */
      set_state_locked(self, LW_RUNNER_FAILED);
      break;
    }
    self->steps++;
    if (info.constraint_residual > self->max_residual)
      self->max_residual = info.constraint_residual;
    gboolean last = lw_data_time(self->data) >= self->t_end - 0.5 * self->h;
    if (self->steps % self->record_every == 0 || last || self->want_step)
      append_frame_locked(self, self->scratch);
    if (self->want_step) {
      self->want_step = FALSE;
      self->want_pause = TRUE;
    }
    gint64 now = g_get_monotonic_time();
    double wall = (now - wall0) * 1e-6;
    double sim = lw_data_time(self->data) - t0;
    self->rtf = wall > 0.05 ? sim / wall : 0;
    if (self->real_time && !self->want_pause && self->speed > 0) {
      /* wait for the wall clock; a pause or cancel wakes the wait at once */
      gint64 due = wall0 + (gint64)(sim / self->speed * 1e6);
      if (due > now)
        while (!self->want_cancel && !self->want_pause && g_get_monotonic_time() < due + PACE_BURST_US)
          g_cond_wait_until(&self->cond, &self->lock, due + PACE_BURST_US);
    }
  }
  g_mutex_unlock(&self->lock);
  return NULL;
}

static void join_worker(LwSimRunner *self)
{
  if (!self->thread)
    return;
  g_mutex_lock(&self->lock);
  self->want_cancel = TRUE;
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);
  g_thread_join(self->thread);
  self->thread = NULL;
  g_mutex_lock(&self->lock);
  self->want_cancel = FALSE;
  g_mutex_unlock(&self->lock);
}

/* a worker that ended by itself (finished / failed / cancelled) is joined
 * before a new one starts */
static void reap_worker(LwSimRunner *self)
{
  if (!self->thread)
    return;
  g_mutex_lock(&self->lock);
  gboolean done = self->state == LW_RUNNER_FINISHED || self->state == LW_RUNNER_FAILED ||
                  self->state == LW_RUNNER_CANCELLED;
  g_mutex_unlock(&self->lock);
  if (done) {
    g_thread_join(self->thread);
    self->thread = NULL;
  }
}

static void lw_sim_runner_dispose(GObject *object)
{
  LwSimRunner *self = LW_SIM_RUNNER(object);
  join_worker(self);
  G_OBJECT_CLASS(lw_sim_runner_parent_class)->dispose(object);
}

static void lw_sim_runner_finalize(GObject *object)
{
  LwSimRunner *self = LW_SIM_RUNNER(object);
  lw_event_run_free(self->events);
  lw_data_free(self->data);
  lw_model_free(self->model);
  g_array_unref(self->frames);
  if (self->event_log)
    g_array_unref(self->event_log);
  g_free(self->scratch);
  g_main_context_unref(self->context);
  g_mutex_clear(&self->lock);
  g_cond_clear(&self->cond);
  G_OBJECT_CLASS(lw_sim_runner_parent_class)->finalize(object);
}

static void lw_sim_runner_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  LwSimRunner *self = LW_SIM_RUNNER(object);
  switch (prop_id) {
  case PROP_STATE:
    g_value_set_int(value, lw_sim_runner_get_state(self));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
}

static void lw_sim_runner_class_init(LwSimRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  object_class->dispose = lw_sim_runner_dispose;
  object_class->finalize = lw_sim_runner_finalize;
  object_class->get_property = lw_sim_runner_get_property;
  properties[PROP_STATE] = g_param_spec_int("state", NULL, NULL, LW_RUNNER_READY, LW_RUNNER_CANCELLED,
                                            LW_RUNNER_READY, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties(object_class, N_PROPS, properties);
}

static void lw_sim_runner_init(LwSimRunner *self)
{
  g_mutex_init(&self->lock);
  g_cond_init(&self->cond);
  self->context = g_main_context_ref_thread_default();
  self->speed = 1.0;
  self->real_time = TRUE;
  self->record_every = 1;
}

/* assemble and record frame 0 */
static int assemble(LwSimRunner *self, lw_error *err)
{
  int st = lw_initialize(self->model, self->data, err);
  if (st)
    return st;
  lw_event_run_free(self->events);
  self->events = lw_event_run_new(self->model, self->data, err);
  if (!self->events)
    return err->status;
  g_array_set_size(self->frames, 0);
  g_array_set_size(self->event_log, 0);
  lw_outputs(self->model, self->data, self->scratch);
  append_frame_locked(self, self->scratch);
  self->steps = 0;
  self->perturbed_steps = 0;
  self->record_every = 1;
  self->newton_iterations = 0;
  self->max_residual = lw_constraint_residual(self->model, self->data);
  self->rtf = 0;
  self->tol_steps = self->tol_rejected = 0;
  memset(&self->error, 0, sizeof self->error);
  self->want_pause = self->want_step = self->want_cancel = FALSE;
  return LW_OK;
}

LwSimRunner *lw_sim_runner_new(lw_model *model, lw_error *err)
{
  g_return_val_if_fail(model != NULL, NULL);
  LwSimRunner *self = g_object_new(LW_TYPE_SIM_RUNNER, NULL);
  self->model = model;
  self->data = lw_data_new(model);
  self->nq = lw_model_nq(model);
  self->ncols = lw_model_output_columns(model);
  self->stride = 1 + self->nq + self->ncols;
  self->frames = g_array_new(FALSE, FALSE, sizeof(double));
  self->event_log = g_array_new(FALSE, FALSE, sizeof(lw_event_record));
  self->scratch = g_new0(double, self->ncols + 1);
  const lw_opt *o = lw_model_opt(model);
  self->h = o->step;
  self->t_end = o->t_end;
  self->tolerance = o->mode == LW_MODE_TOLERANCE;
  if (!self->data) {
    memset(err, 0, sizeof *err);
    err->status = LW_ERR_NOMEM;
    err->time = NAN;
    g_strlcpy(err->msg, "out of memory for the workspace", sizeof err->msg);
    g_object_unref(self);
    return NULL;
  }
  if (assemble(self, err)) {
    g_object_unref(self);
    return NULL;
  }
  return self;
}

const lw_model *lw_sim_runner_get_model(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), NULL);
  return self->model;
}

LwRunnerState lw_sim_runner_get_state(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), LW_RUNNER_READY);
  g_mutex_lock(&self->lock);
  LwRunnerState s = self->state;
  g_mutex_unlock(&self->lock);
  return s;
}

double lw_sim_runner_get_t_end(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  return self->t_end;
}

void lw_sim_runner_set_t_end(LwSimRunner *self, double t_end)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  g_return_if_fail(t_end >= 0 && isfinite(t_end));
  g_mutex_lock(&self->lock);
  self->t_end = t_end;
  g_mutex_unlock(&self->lock);
}

void lw_sim_runner_set_real_time(LwSimRunner *self, gboolean real_time, double speed)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  g_mutex_lock(&self->lock);
  self->real_time = real_time;
  self->speed = speed > 0 ? speed : 1.0;
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);
}

static void run(LwSimRunner *self, gboolean one_step)
{
  reap_worker(self);
  g_mutex_lock(&self->lock);
  if (self->state == LW_RUNNER_FINISHED || self->state == LW_RUNNER_FAILED) {
    g_mutex_unlock(&self->lock);
    return;
  }
  self->want_pause = FALSE;
  self->want_step = one_step;
  plan_recording_locked(self);
  if (self->thread) {
    /* the worker is waiting in its pause: it is running from now on */
    set_state_locked(self, LW_RUNNER_RUNNING);
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
    return;
  }
  set_state_locked(self, LW_RUNNER_RUNNING);
  g_mutex_unlock(&self->lock);
  self->thread = g_thread_new("lw-sim", worker, self);
}

void lw_sim_runner_start(LwSimRunner *self)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  run(self, FALSE);
}

void lw_sim_runner_step(LwSimRunner *self)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  run(self, TRUE);
}

void lw_sim_runner_pause(LwSimRunner *self)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  g_mutex_lock(&self->lock);
  if (self->state == LW_RUNNER_RUNNING) {
    self->want_pause = TRUE;
    g_cond_broadcast(&self->cond);
  }
  g_mutex_unlock(&self->lock);
}

void lw_sim_runner_cancel(LwSimRunner *self)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  gboolean had = self->thread != NULL;
  join_worker(self);
  g_mutex_lock(&self->lock);
  if (had && (self->state == LW_RUNNER_RUNNING || self->state == LW_RUNNER_PAUSED))
    set_state_locked(self, LW_RUNNER_CANCELLED);
  g_mutex_unlock(&self->lock);
}

void lw_sim_runner_reset(LwSimRunner *self)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  join_worker(self);
  lw_error err;
  g_mutex_lock(&self->lock);
  /* assembly succeeded once for this model; it is deterministic */
  if (assemble(self, &err) != LW_OK)
    g_warning("reassembly failed: %s", err.msg);
  set_state_locked(self, LW_RUNNER_READY);
  g_mutex_unlock(&self->lock);
}

void lw_sim_runner_wait(LwSimRunner *self)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  for (;;) {
    g_mutex_lock(&self->lock);
    gboolean busy = self->thread && self->state == LW_RUNNER_RUNNING;
    g_mutex_unlock(&self->lock);
    if (!busy)
      break;
    g_usleep(1000);
  }
  reap_worker(self);
}

guint lw_sim_runner_get_n_frames(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  g_mutex_lock(&self->lock);
  guint n = self->frames->len / self->stride;
  g_mutex_unlock(&self->lock);
  return n;
}

gboolean lw_sim_runner_get_frame(LwSimRunner *self, guint k, double *t, double *q, double *outputs)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), FALSE);
  g_mutex_lock(&self->lock);
  gboolean ok = k < self->frames->len / self->stride;
  if (ok) {
    const double *f = &g_array_index(self->frames, double, (gsize)k * self->stride);
    if (t)
      *t = f[0];
    if (q)
      memcpy(q, f + 1, sizeof(double) * self->nq);
    if (outputs)
      memcpy(outputs, f + 1 + self->nq, sizeof(double) * self->ncols);
  }
  g_mutex_unlock(&self->lock);
  return ok;
}

guint lw_sim_runner_copy_column(LwSimRunner *self, int col, guint first, guint n, double *dst)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  g_return_val_if_fail(col >= -1 && col < self->ncols, 0);
  g_mutex_lock(&self->lock);
  guint have = self->frames->len / self->stride;
  guint count = first < have ? MIN(n, have - first) : 0;
  int off = col < 0 ? 0 : 1 + self->nq + col;
  const double *f = (const double *)self->frames->data;
  for (guint i = 0; i < count; i++)
    dst[i] = f[(gsize)(first + i) * self->stride + off];
  g_mutex_unlock(&self->lock);
  return count;
}

guint lw_sim_runner_frame_at_time(LwSimRunner *self, double t)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  g_mutex_lock(&self->lock);
  guint lo = 0, hi = self->frames->len / self->stride; /* frames [lo, hi) */
  const double *f = (const double *)self->frames->data;
  while (hi - lo > 1) {
    guint mid = lo + (hi - lo) / 2;
    if (f[(gsize)mid * self->stride] <= t)
      lo = mid;
    else
      hi = mid;
  }
  g_mutex_unlock(&self->lock);
  return lo;
}

double lw_sim_runner_get_time(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  g_mutex_lock(&self->lock);
  guint n = self->frames->len / self->stride;
  double t = n ? g_array_index(self->frames, double, (gsize)(n - 1) * self->stride) : 0;
  g_mutex_unlock(&self->lock);
  return t;
}

double lw_sim_runner_get_real_time_factor(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  g_mutex_lock(&self->lock);
  double r = self->rtf;
  g_mutex_unlock(&self->lock);
  return r;
}

double lw_sim_runner_get_progress(LwSimRunner *self)
{
  double t = lw_sim_runner_get_time(self);
  return self->t_end > 0 ? CLAMP(t / self->t_end, 0.0, 1.0) : 1.0;
}

long lw_sim_runner_get_newton_iterations(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  g_mutex_lock(&self->lock);
  long n = self->newton_iterations;
  g_mutex_unlock(&self->lock);
  return n;
}

double lw_sim_runner_get_max_constraint_residual(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  g_mutex_lock(&self->lock);
  double r = self->max_residual;
  g_mutex_unlock(&self->lock);
  return r;
}

const lw_error *lw_sim_runner_get_error(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), NULL);
  return lw_sim_runner_get_state(self) == LW_RUNNER_FAILED ? &self->error : NULL;
}

void lw_sim_runner_set_perturbation(LwSimRunner *self, int body, const double p[3], const double target[3])
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  g_mutex_lock(&self->lock);
  self->perturb_on = body >= 0 && body < lw_model_nbodies(self->model);
  if (self->perturb_on) {
    self->perturb_point.body = body;
    memcpy(self->perturb_point.p, p, sizeof self->perturb_point.p);
    memcpy(self->perturb_target, target, sizeof self->perturb_target);
  }
  g_mutex_unlock(&self->lock);
}

void lw_sim_runner_clear_perturbation(LwSimRunner *self)
{
  lw_sim_runner_set_perturbation(self, -1, NULL, NULL);
}

gboolean lw_sim_runner_get_perturbation_force(LwSimRunner *self, double F[3])
{
  g_mutex_lock(&self->lock);
  gboolean on = self->perturb_on;
  memcpy(F, self->perturb_force, sizeof self->perturb_force);
  g_mutex_unlock(&self->lock);
  return on;
}

long lw_sim_runner_get_perturbed_steps(LwSimRunner *self)
{
  g_mutex_lock(&self->lock);
  long n = self->perturbed_steps;
  g_mutex_unlock(&self->lock);
  return n;
}

guint lw_sim_runner_get_n_events(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), 0);
  g_mutex_lock(&self->lock);
  guint n = self->event_log->len;
  g_mutex_unlock(&self->lock);
  return n;
}

gboolean lw_sim_runner_get_event(LwSimRunner *self, guint k, lw_event_record *rec)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), FALSE);
  g_mutex_lock(&self->lock);
  gboolean ok = k < self->event_log->len;
  if (ok)
    *rec = g_array_index(self->event_log, lw_event_record, k);
  g_mutex_unlock(&self->lock);
  return ok;
}

gboolean lw_sim_runner_get_tolerance_mode(LwSimRunner *self)
{
  g_return_val_if_fail(LW_IS_SIM_RUNNER(self), FALSE);
  return self->tolerance;
}

void lw_sim_runner_get_tolerance_steps(LwSimRunner *self, long *steps, long *rejected)
{
  g_return_if_fail(LW_IS_SIM_RUNNER(self));
  g_mutex_lock(&self->lock);
  *steps = self->tol_steps;
  *rejected = self->tol_rejected;
  g_mutex_unlock(&self->lock);
}
