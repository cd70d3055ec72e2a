/* lw-opt-panel.c: the optimization panel (see lw-opt-panel.h).
 *
 * A run is an LwPanelJob (lw-panel-job.h) whose data is an OptJob.  The
 * worker's progress callback only queues numbers under the OptJob's lock
 * and asks for a progress report on the main thread; widgets are touched
 * on the main thread only.  A job the panel let go of (it went away or
 * moved on to another model) reports nothing. */
#include "lw-opt-panel.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lw-panel-job.h"
#include "lw-panel-util.h"
#include "lw-plot-view.h"
#include "lw-sim-runner.h"
#include "lw-view3d.h"

#define RESULT_ROWS 8 /* variables listed one by one; more are summarized */

typedef struct {
  int evaluation, iteration, failed;
  double f, best_f, violation, pgnorm;
} ProgressPoint;

/* one side of the comparison: a design simulated and played */
typedef struct {
  LwSimRunner *runner;
  lw_data *data;          /* poses from the runner's frames, main thread */
  GtkWidget *view, *caption;
  int nq, nbodies, njoints, nforces;
  double *q, *poses, *joints, *forces;
} CompareSide;

struct _LwOptPanel {
  GtkWidget parent_instance;
  GtkWidget *scroller;
  /* choices */
  GtkWidget *problem_group, *problem_row, *objective_row;
  GtkStringList *problems;
  GtkWidget *vars_group;
  GPtrArray *var_rows;       /* AdwActionRow per variable of the problem */
  GPtrArray *var_checks;     /* their GtkCheckButton */
  GtkWidget *algorithm_row, *maxeval_spin;
  GtkWidget *run_button, *progress_bar, *status_label;
  /* progress */
  GtkWidget *eval_value, *iter_value, *f_value, *best_value, *viol_value, *pg_value;
  GtkWidget *plot_view;
  /* result */
  GtkWidget *result_box;
  GtkWidget *res_f, *res_viol, *res_pg, *res_evals, *res_time, *res_stop_row;
  GtkWidget *design_group;
  GPtrArray *design_rows;
  GtkWidget *apply_button, *discard_button;
  GtkWidget *play_button, *compare_time;
  CompareSide side[2];

  lw_desc *desc;
  gboolean runnable;         /* the model compiles and assembles */
  char *reason;              /* why it cannot run */
  gboolean busy;
  gboolean stale;            /* the rows are an older model's: rebuilt when shown */
  gboolean following;        /* the problem list being set from the model */
  LwPanelJob *job;           /* the run shown, or NULL */
  char *status;
  GArray *hist;              /* ProgressPoint of the run shown */
  gboolean plot_log;
  int max_evaluations;

  gboolean have_result;
  lw_opt_result result;
  lw_desc *result_base;      /* the model as it was when the run started */
  int result_problem;        /* the problem it solved */
  lw_desc *optimized;        /* result_base with the optimized values */

  guint tick_id;
  gint64 last_us;
  double play_t;
  gboolean compare_ready, playing;
};

enum { PROP_0, PROP_BUSY, PROP_EVALUATIONS, PROP_STATUS, N_PROPS };
static GParamSpec *props[N_PROPS];
enum { SIGNAL_APPLY, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(LwOptPanel, lw_opt_panel, GTK_TYPE_WIDGET)

static void follow_model(LwOptPanel *self);

/* ---- the job ------------------------------------------------------------ */
/* the data of a run's LwPanelJob */
typedef struct {
  /* set before the worker starts; the worker reads them */
  lw_desc *desc;             /* the model, its problem reduced to the chosen variables */
  lw_desc *base;             /* the model as it was (for Apply) */
  int problem;
  lw_opt_options opt;
  /* worker -> main thread, under lock */
  GMutex lock;
  GArray *pending;           /* ProgressPoint */
  char *message;             /* the last failed evaluation's error */
  /* written by the worker before it returns */
  lw_opt_result result;
} OptJob;

static void opt_job_free(gpointer p)
{
  OptJob *job = p;
  lw_desc_free(job->desc);
  lw_desc_free(job->base);
  lw_opt_result_clear(&job->result);
  g_mutex_clear(&job->lock);
  g_array_unref(job->pending);
  g_free(job->message);
  g_free(job);
}

/* worker thread: queue the numbers, ask for a report on the main thread */
static int job_progress(const lw_opt_progress *p, void *user)
{
  LwPanelJob *pj = user;
  OptJob *job = lw_panel_job_get_data(pj);
  ProgressPoint pt = {p->evaluation, p->iteration, p->failed, p->f, p->best_f, p->violation, p->pgnorm};
  g_mutex_lock(&job->lock);
  g_array_append_val(job->pending, pt);
  if (p->failed && p->message) {
    g_free(job->message);
    job->message = g_strdup(p->message);
  }
  g_mutex_unlock(&job->lock);
  lw_panel_job_notify(pj);
  return lw_panel_job_is_cancelled(pj);
}

static void job_work(LwPanelJob *pj, gpointer data)
{
  OptJob *job = data;
  job->opt.progress = job_progress;
  job->opt.user = pj;
  lw_optimize(job->desc, job->problem, &job->opt, &job->result);
}

/* ---- small helpers ------------------------------------------------------- */
/* v in a column whose largest magnitude is scale (round-off shows as 0) */
static void set_text_num(GtkWidget *label, double v, double scale)
{
  g_autofree char *s = lw_panel_format("%.6g", v, scale);
  gtk_label_set_text(GTK_LABEL(label), s);
}

static double fmax_finite(double a, double b)
{
  return isfinite(b) ? fmax(a, fabs(b)) : a;
}

/* the largest magnitudes of the run shown: objective (and best), constraint
 * violation (with the constraints' bounds, what a violation is measured
 * against) and projected gradient */
static void column_scales(LwOptPanel *self, double *fs, double *vs, double *ps)
{
  *fs = *vs = *ps = 0;
  for (guint i = 0; i < self->hist->len; i++) {
    const ProgressPoint *p = &g_array_index(self->hist, ProgressPoint, i);
    *fs = fmax_finite(fmax_finite(*fs, p->f), p->best_f);
    *vs = fmax_finite(*vs, p->violation);
    *ps = fmax_finite(*ps, p->pgnorm);
  }
  if (self->have_result) {
    *fs = fmax_finite(fmax_finite(*fs, self->result.f0), self->result.f);
    *vs = fmax_finite(*vs, self->result.violation);
    *ps = fmax_finite(fmax_finite(*ps, self->result.pgnorm0), self->result.pgnorm);
  }
  const lw_desc *d = self->have_result ? self->result_base : self->desc;
  int k = self->have_result ? self->result_problem : -1;
  if (d && k >= 0 && k < d->nproblems)
    for (int c = 0; c < d->problems[k].ncons; c++)
      *vs = fmax_finite(*vs, d->problems[k].cons[c].value);
}

static void set_status(LwOptPanel *self, const char *text)
{
  g_free(self->status);
  self->status = g_strdup(text);
  gtk_label_set_text(GTK_LABEL(self->status_label), text);
  g_object_notify_by_pspec(G_OBJECT(self), props[PROP_STATUS]);
}


/* d with the values x of its parameters params, written into every field they bind */
static lw_desc *with_values(const lw_desc *d, int n, const int *params, const double *x)
{
  lw_desc *c = lw_desc_copy(d);
  for (int j = 0; j < n; j++)
    c->params[params[j]].value = x[j];
  lw_desc_apply_params(c);
  return c;
}

static int selected_problem(LwOptPanel *self)
{
  guint k = adw_combo_row_get_selected(ADW_COMBO_ROW(self->problem_row));
  if (!self->desc || k == GTK_INVALID_LIST_POSITION || (int)k >= self->desc->nproblems)
    return -1;
  return (int)k;
}

/* ---- the convergence plot ------------------------------------------------ */
static double plot_y(gboolean log_scale, double v)
{
  if (!isfinite(v))
    return NAN;
  return log_scale ? log10(v) : v;
}

/* log10 when every finite value so far is positive */
static gboolean wants_log(LwOptPanel *self)
{
  gboolean any = FALSE;
  for (guint i = 0; i < self->hist->len; i++) {
    const ProgressPoint *p = &g_array_index(self->hist, ProgressPoint, i);
    if (isfinite(p->f)) {
      if (p->f <= 0)
        return FALSE;
      any = TRUE;
    }
  }
  return any;
}

static void plot_labels(LwOptPanel *self)
{
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(self->plot_view));
  lw_plot_set_x_label(plot, _("evaluation"));
  lw_plot_set_y_label(plot, self->plot_log ? _("log10 objective") : _("objective"));
}

/* append points first .. hist->len - 1; redraws everything when the scale changes */
static void plot_append(LwOptPanel *self, guint first)
{
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(self->plot_view));
  gboolean log_scale = wants_log(self);
  if (log_scale != self->plot_log) {
    self->plot_log = log_scale;
    lw_plot_clear_data(plot);
    plot_labels(self);
    first = 0;
  }
  for (guint i = first; i < self->hist->len; i++) {
    const ProgressPoint *p = &g_array_index(self->hist, ProgressPoint, i);
    lw_plot_series_append(plot, 0, p->evaluation, plot_y(log_scale, p->f));
    lw_plot_series_append(plot, 1, p->evaluation, plot_y(log_scale, p->best_f));
  }
  lw_plot_view_queue_update(LW_PLOT_VIEW(self->plot_view));
}

static void plot_reset(LwOptPanel *self)
{
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(self->plot_view));
  lw_plot_clear_data(plot);
  self->plot_log = FALSE;
  plot_labels(self);
  lw_plot_reset_view(plot);
  lw_plot_view_queue_update(LW_PLOT_VIEW(self->plot_view));
}

/* ---- progress ------------------------------------------------------------ */
static void show_progress(LwOptPanel *self)
{
  if (!self->hist->len) {
    GtkWidget *labels[] = {self->eval_value, self->iter_value, self->f_value,
                           self->best_value, self->viol_value, self->pg_value};
    for (guint i = 0; i < G_N_ELEMENTS(labels); i++)
      gtk_label_set_text(GTK_LABEL(labels[i]), "–");
    return;
  }
  const ProgressPoint *p = &g_array_index(self->hist, ProgressPoint, self->hist->len - 1);
  g_autofree char *ev = self->max_evaluations > 0 ? g_strdup_printf(_("%d of %d"), p->evaluation, self->max_evaluations)
                                                  : g_strdup_printf("%d", p->evaluation);
  gtk_label_set_text(GTK_LABEL(self->eval_value), ev);
  g_autofree char *it = g_strdup_printf("%d", p->iteration);
  gtk_label_set_text(GTK_LABEL(self->iter_value), it);
  double fs, vs, ps;
  column_scales(self, &fs, &vs, &ps);
  if (p->failed)
    gtk_label_set_text(GTK_LABEL(self->f_value), _("failed"));
  else
    set_text_num(self->f_value, p->f, fs);
  set_text_num(self->best_value, p->best_f, fs);
  set_text_num(self->viol_value, p->violation, vs);
  set_text_num(self->pg_value, p->pgnorm, ps);
  if (self->busy && self->max_evaluations > 0)
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar),
                                  MIN(1.0, (double)p->evaluation / self->max_evaluations));
}

/* main thread: take what the worker queued */
static void drain_progress(LwOptPanel *self, OptJob *job)
{
  g_mutex_lock(&job->lock);
  GArray *got = job->pending;
  job->pending = g_array_new(FALSE, FALSE, sizeof(ProgressPoint));
  g_autofree char *message = g_steal_pointer(&job->message);
  g_mutex_unlock(&job->lock);
  if (got->len) {
    guint first = self->hist->len;
    g_array_append_vals(self->hist, got->data, got->len);
    plot_append(self, first);
    show_progress(self);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_EVALUATIONS]);
    if (self->busy) {
      const ProgressPoint *p = &g_array_index(self->hist, ProgressPoint, self->hist->len - 1);
      g_autofree char *text = message ? g_strdup_printf(_("Optimizing… evaluation %d failed: %s"), p->evaluation, message)
                                      : g_strdup_printf(_("Optimizing… evaluation %d"), p->evaluation);
      set_status(self, text);
    }
  }
  g_array_unref(got);
}

/* ---- the comparison: initial and optimized design side by side ----------- */
static void side_clear(CompareSide *s)
{
  if (s->runner)
    lw_sim_runner_cancel(s->runner);
  g_clear_pointer(&s->data, lw_data_free); /* before the runner's model goes */
  g_clear_object(&s->runner);
  g_clear_pointer(&s->q, g_free);
  g_clear_pointer(&s->poses, g_free);
  g_clear_pointer(&s->joints, g_free);
  g_clear_pointer(&s->forces, g_free);
  if (s->view) {
    lw_view3d_clear_traces(LW_VIEW3D(s->view));
    lw_view3d_set_model(LW_VIEW3D(s->view), NULL);
  }
}

/* the poses of frame k into s->poses, s->joints, s->forces */
static gboolean side_pose(CompareSide *s, guint k, double *t)
{
  if (!s->runner || !lw_sim_runner_get_frame(s->runner, k, t, s->q, NULL))
    return FALSE;
  const lw_model *m = lw_sim_runner_get_model(s->runner);
  lw_data_set_state(m, s->data, *t, s->q, NULL, NULL, NULL);
  for (int b = 0; b < s->nbodies; b++)
    lw_body_pose(m, s->data, b, s->poses + 12 * b, s->poses + 12 * b + 3);
  lw_scene_geometry(m, s->data, s->joints, s->forces);
  return TRUE;
}

static void side_show(CompareSide *s, guint k)
{
  double t;
  if (!side_pose(s, k, &t))
    return;
  lw_render_state rs = {t, s->nbodies, s->poses, s->njoints, s->joints, s->nforces, s->forces, NULL, 0, NULL, 0, NULL, NULL};
  lw_view3d_set_state(LW_VIEW3D(s->view), &rs);
}

static void grow_box(double lo[3], double hi[3], const double p[3])
{
  for (int i = 0; i < 3; i++)
    if (isfinite(p[i])) {
      lo[i] = fmin(lo[i], p[i]);
      hi[i] = fmax(hi[i], p[i]);
    }
}

/* where the bodies and joints go over the run (sampled frames) */
static void side_bounds(CompareSide *s, double lo[3], double hi[3])
{
  guint n = lw_sim_runner_get_n_frames(s->runner), stride = MAX(1u, n / 400);
  for (guint k = 0; k < n; k += stride) {
    double t;
    if (!side_pose(s, k, &t))
      break;
    for (int b = 0; b < s->nbodies; b++)
      grow_box(lo, hi, s->poses + 12 * b);
    for (int j = 0; j < s->njoints; j++)
      grow_box(lo, hi, s->joints + 6 * j);
  }
}

/* the paths of the point outputs over the whole run, also into the box */
static void side_traces(CompareSide *s, double lo[3], double hi[3])
{
  guint n = lw_sim_runner_get_n_frames(s->runner);
  const lw_model *m = lw_sim_runner_get_model(s->runner);
  const lw_desc *d = lw_model_desc(m);
  int col = 0, k = 0;
  double *buf = g_new(double, n + 1), *xyz = g_new0(double, 3 * (gsize)n + 1);
  for (int o = 0; o < d->noutputs; o++) {
    int w = lw_model_output_width(m, o);
    if (d->outputs[o].type == LW_OUT_POSITION) {
      for (int i = 0; i < w && i < 3; i++) {
        lw_sim_runner_copy_column(s->runner, col + i, 0, n, buf);
        for (guint f = 0; f < n; f++)
          xyz[3 * f + i] = buf[f];
      }
      lw_view3d_set_trace(LW_VIEW3D(s->view), k++, xyz, (int)n);
      for (guint f = 0; f < n; f++)
        grow_box(lo, hi, xyz + 3 * f);
    }
    col += w;
  }
  g_free(buf);
  g_free(xyz);
}

/* compile, assemble and start a flat-out run of d; FALSE with the reason as caption */
static gboolean side_start(CompareSide *s, const lw_desc *d, const char *title)
{
  side_clear(s);
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  LwSimRunner *r = m ? lw_sim_runner_new(m, &err) : NULL; /* takes m */
  if (!r) {
    g_autofree char *text = g_strdup_printf(_("%s: cannot be simulated: %s"), title, err.msg);
    gtk_label_set_text(GTK_LABEL(s->caption), text);
    return FALSE;
  }
  s->runner = r;
  const lw_model *mv = lw_sim_runner_get_model(r);
  s->data = lw_data_new(mv);
  s->nq = lw_model_nq(mv);
  s->nbodies = lw_model_nbodies(mv);
  s->njoints = lw_model_njoints(mv);
  s->nforces = lw_model_nforces(mv);
  s->q = g_new0(double, s->nq + 1);
  s->poses = g_new0(double, 12 * (gsize)s->nbodies + 1);
  s->joints = g_new0(double, 6 * (gsize)s->njoints + 1);
  s->forces = g_new0(double, 6 * (gsize)s->nforces + 1);
  lw_view3d_set_model(LW_VIEW3D(s->view), lw_model_desc(mv));
  gtk_label_set_text(GTK_LABEL(s->caption), title);
  lw_sim_runner_set_real_time(r, FALSE, 1.0);
  lw_sim_runner_start(r);
  side_show(s, 0);
  return TRUE;
}

static void update_play_button(LwOptPanel *self)
{
  gtk_button_set_icon_name(GTK_BUTTON(self->play_button),
                           self->playing ? "media-playback-pause-symbolic" : "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text(self->play_button, self->playing ? _("Pause the comparison") : _("Play the comparison"));
}

static gboolean compare_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer user)
{
  (void)widget;
  LwOptPanel *self = user;
  gint64 now = gdk_frame_clock_get_frame_time(clock);
  double dt = self->last_us ? (now - self->last_us) * 1e-6 : 0;
  self->last_us = now;
  gboolean running = FALSE;
  double t_end = 0;
  for (int i = 0; i < 2; i++) {
    CompareSide *s = &self->side[i];
    if (!s->runner)
      continue;
    LwRunnerState st = lw_sim_runner_get_state(s->runner);
    if (st == LW_RUNNER_RUNNING || st == LW_RUNNER_READY)
      running = TRUE;
    t_end = fmax(t_end, lw_sim_runner_get_time(s->runner));
  }
  if (running) {
    /* still simulating: the newest frames */
    for (int i = 0; i < 2; i++)
      if (self->side[i].runner)
        side_show(&self->side[i], lw_sim_runner_get_n_frames(self->side[i].runner) - 1);
    gtk_label_set_text(GTK_LABEL(self->compare_time), _("simulating…"));
    return G_SOURCE_CONTINUE;
  }
  if (!self->compare_ready) {
    self->compare_ready = TRUE;
    self->play_t = 0;
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    int planar = 1;
    for (int i = 0; i < 2; i++) {
      CompareSide *s = &self->side[i];
      if (!s->runner)
        continue;
      side_traces(s, lo, hi);
      side_bounds(s, lo, hi);
      planar = lw_model_planar(lw_sim_runner_get_model(s->runner));
      if (lw_sim_runner_get_state(s->runner) == LW_RUNNER_FAILED) {
        const lw_error *e = lw_sim_runner_get_error(s->runner);
        g_autofree char *text = g_strdup_printf(_("%s (the simulation failed at t = %.4g s: %s)"),
                                                i ? _("Optimized") : _("Initial"), e->time, e->msg);
        gtk_label_set_text(GTK_LABEL(s->caption), text);
      }
    }
    if (lo[0] <= hi[0]) {
      /* one camera for the motion of both designs, with room for the bodies' shapes */
      double pad = 0.15 * fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), fmax(hi[2] - lo[2], 1e-3));
      for (int i = 0; i < 3; i++) {
        lo[i] -= pad;
        hi[i] += pad;
      }
      GtkWidget *v = self->side[0].runner ? self->side[0].view : self->side[1].view;
      int w = gtk_widget_get_width(v), h = gtk_widget_get_height(v);
      lw_camera cam;
      lw_view3d_get_camera(LW_VIEW3D(v), &cam);
      lw_camera_fit_aspect(&cam, lo, hi, planar, w > 0 && h > 0 ? (double)w / h : 0);
      for (int i = 0; i < 2; i++)
        if (self->side[i].runner)
          lw_view3d_set_camera(LW_VIEW3D(self->side[i].view), &cam);
    }
    gtk_widget_set_sensitive(self->play_button, TRUE);
  }
  if (self->playing) {
    self->play_t += dt;
    if (self->play_t > t_end + 0.5) /* a short rest at the end, then again */
      self->play_t = 0;
  }
  double t = fmin(self->play_t, t_end);
  for (int i = 0; i < 2; i++)
    if (self->side[i].runner)
      side_show(&self->side[i], lw_sim_runner_frame_at_time(self->side[i].runner, t));
  char buf[32];
  g_snprintf(buf, sizeof buf, "%.2f s", t);
  gtk_label_set_text(GTK_LABEL(self->compare_time), buf);
  return G_SOURCE_CONTINUE;
}

/* one camera for both views, so that sizes and places compare: the left
 * view leads (the user turns and zooms it), the right one follows */
static void lead_rendered_cb(LwOptPanel *self, LwView3d *view)
{
  if (!self->side[0].runner || !self->side[1].runner || !self->side[1].view)
    return;
  lw_camera a, b;
  lw_view3d_get_camera(view, &a);
  lw_view3d_get_camera(LW_VIEW3D(self->side[1].view), &b);
  if (memcmp(&a, &b, sizeof a))
    lw_view3d_set_camera(LW_VIEW3D(self->side[1].view), &a);
}

static void compare_stop(LwOptPanel *self)
{
  if (self->tick_id) {
    gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->tick_id);
    self->tick_id = 0;
  }
  for (int i = 0; i < 2; i++)
    side_clear(&self->side[i]);
  self->compare_ready = FALSE;
  gtk_widget_set_sensitive(self->play_button, FALSE);
  gtk_label_set_text(GTK_LABEL(self->compare_time), "");
}

static void compare_start(LwOptPanel *self)
{
  compare_stop(self);
  gboolean a = side_start(&self->side[0], self->result_base, _("Initial"));
  gboolean b = side_start(&self->side[1], self->optimized, _("Optimized"));
  if (!a && !b)
    return;
  self->playing = TRUE;
  self->last_us = 0;
  self->play_t = 0;
  update_play_button(self);
  self->tick_id = gtk_widget_add_tick_callback(GTK_WIDGET(self), compare_tick, self, NULL);
}

static void play_clicked_cb(LwOptPanel *self)
{
  self->playing = !self->playing;
  update_play_button(self);
}

/* ---- the result -------------------------------------------------------------- */
static void clear_design_rows(LwOptPanel *self)
{
  for (guint i = 0; i < self->design_rows->len; i++)
    adw_preferences_group_remove(ADW_PREFERENCES_GROUP(self->design_group), g_ptr_array_index(self->design_rows, i));
  g_ptr_array_set_size(self->design_rows, 0);
}

static void drop_result(LwOptPanel *self)
{
  compare_stop(self);
  if (self->have_result)
    lw_opt_result_clear(&self->result);
  memset(&self->result, 0, sizeof self->result);
  self->have_result = FALSE;
  g_clear_pointer(&self->result_base, lw_desc_free);
  g_clear_pointer(&self->optimized, lw_desc_free);
  clear_design_rows(self);
  gtk_widget_set_visible(self->result_box, FALSE);
}

static void show_design(LwOptPanel *self)
{
  const lw_opt_result *r = &self->result;
  clear_design_rows(self);
  int jmax = -1;
  double dmax = 0;
  for (int j = 0; j < r->n; j++) {
    double d = fabs(r->x[j] - r->x0[j]);
    if (jmax < 0 || d > dmax) {
      dmax = d;
      jmax = j;
    }
  }
  g_autofree char *desc = NULL;
  if (r->n > RESULT_ROWS)
    desc = g_strdup_printf(_("%d variables; the largest change is %.4g (%s). The first %d are listed."), r->n, dmax,
                           self->result_base->params[r->params[jmax]].name, RESULT_ROWS);
  else
    desc = g_strdup_printf(ngettext("%d variable: initial → optimized", "%d variables: initial → optimized", r->n),
                           r->n);
  adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(self->design_group), desc);
  for (int j = 0; j < r->n && j < RESULT_ROWS; j++) {
    GtkWidget *row = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), self->result_base->params[r->params[j]].name);
    adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
    g_autofree char *text = g_strdup_printf("%.6g → %.6g", r->x0[j], r->x[j]);
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_selectable(GTK_LABEL(label), TRUE);
    gtk_widget_add_css_class(label, "numeric");
    adw_action_row_add_suffix(ADW_ACTION_ROW(row), label);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(self->design_group), row);
    g_ptr_array_add(self->design_rows, row);
  }
}

static void show_result(LwOptPanel *self)
{
  const lw_opt_result *r = &self->result;
  double fs, vs, ps;
  column_scales(self, &fs, &vs, &ps);
  g_autofree char *f = g_strdup_printf("%.6g → %.6g", lw_panel_clean(r->f0, fs), lw_panel_clean(r->f, fs));
  gtk_label_set_text(GTK_LABEL(self->res_f), f);
  set_text_num(self->res_viol, r->violation, vs);
  g_autofree char *pg = g_strdup_printf("%.3g → %.3g", lw_panel_clean(r->pgnorm0, ps), lw_panel_clean(r->pgnorm, ps));
  gtk_label_set_text(GTK_LABEL(self->res_pg), pg);
  g_autofree char *ev = g_strdup_printf(_("%d (%d improved, %d failed)"), r->evaluations, r->iterations,
                                        r->failed_evaluations);
  gtk_label_set_text(GTK_LABEL(self->res_evals), ev);
  g_autofree char *wt = g_strdup_printf(_("%.2f s"), r->wall_time_s);
  gtk_label_set_text(GTK_LABEL(self->res_time), wt);
  adw_action_row_set_subtitle(ADW_ACTION_ROW(self->res_stop_row), r->stop);
  show_design(self);
  gtk_widget_set_visible(self->result_box, TRUE);
  gtk_widget_set_sensitive(self->apply_button, TRUE);
  gtk_widget_set_sensitive(self->discard_button, TRUE);
  compare_start(self);
}

/* ---- running ------------------------------------------------------------------ */
static void set_busy(LwOptPanel *self, gboolean busy)
{
  self->busy = busy;
  lw_panel_set_busy(self->run_button, self->progress_bar, busy, _("_Optimize"));
  gtk_widget_set_sensitive(self->problem_row, !busy);
  gtk_widget_set_sensitive(self->vars_group, !busy);
  gtk_widget_set_sensitive(self->algorithm_row, !busy);
  gtk_widget_set_sensitive(self->maxeval_spin, !busy);
  g_object_notify_by_pspec(G_OBJECT(self), props[PROP_BUSY]);
}

/* a progress report of the job shown */
static void job_progress_shown(gpointer owner, LwPanelJob *pj)
{
  drain_progress(owner, lw_panel_job_get_data(pj));
}

/* the status after a run that failed */
static char *failure_text(const lw_opt_result *r)
{
  if (r->last_failure[0] && !strstr(r->error.msg, r->last_failure))
    return g_strdup_printf(_("The optimization failed: %s\nLast failed evaluation: %s\nThe model is unchanged."),
                           r->error.msg, r->last_failure);
  return g_strdup_printf(_("The optimization failed: %s\nThe model is unchanged."), r->error.msg);
}

/* the status after a run that gave a design */
static char *success_text(const lw_opt_result *r, gboolean cancelled)
{
  g_autofree char *text = NULL;
  if (cancelled)
    text = g_strdup_printf(
      _("Cancelled after %d evaluations. The best design so far is shown; apply it or discard it."), r->evaluations);
  else {
    double fs = fmax(fabs(r->f0), fabs(r->f));
    text = g_strdup_printf(_("Done: the objective went from %.6g to %.6g. Apply the design to the model or discard it."),
                           lw_panel_clean(r->f0, fs), lw_panel_clean(r->f, fs));
  }
  if (r->failed_evaluations && r->last_failure[0])
    return g_strdup_printf(_("%s\n%d evaluations failed; the last: %s"), text, r->failed_evaluations,
                           r->last_failure);
  return g_steal_pointer(&text);
}

/* the run in the panel's slot has ended (a dropped one never gets here) */
static void job_done(gpointer owner, LwPanelJob *pj)
{
  LwOptPanel *self = owner;
  OptJob *job = lw_panel_job_get_data(pj);
  drain_progress(self, job);
  drop_result(self);
  self->result = job->result;
  memset(&job->result, 0, sizeof job->result);
  self->have_result = TRUE;
  self->result_base = g_steal_pointer(&job->base);
  self->result_problem = job->problem;
  set_busy(self, FALSE);
  const lw_opt_result *r = &self->result;
  if (r->status != LW_OK) {
    g_autofree char *text = failure_text(r);
    set_status(self, text);
    gtk_widget_set_visible(self->result_box, FALSE);
    return;
  }
  self->optimized = with_values(self->result_base, r->n, r->params, r->x);
  g_autofree char *text = success_text(r, lw_panel_job_is_cancelled(pj));
  set_status(self, text);
  show_result(self);
}

void lw_opt_panel_run(LwOptPanel *self)
{
  g_return_if_fail(LW_IS_OPT_PANEL(self));
  follow_model(self);
  if (self->busy) {
    lw_opt_panel_cancel(self);
    return;
  }
  if (!self->runnable) {
    g_autofree char *text = lw_panel_cannot_run_text(self->reason, _("Optimize"));
    set_status(self, text);
    return;
  }
  int k = selected_problem(self);
  if (k < 0) {
    set_status(self, _("This model has no optimization problems. Add one to the model file (see the model format, "
                       "problems)."));
    return;
  }
  lw_desc *reduced = lw_desc_copy(self->desc);
  lw_problem_desc *p = &reduced->problems[k];
  int w = 0;
  for (int v = 0; v < p->nvars; v++) {
    gboolean on = (guint)v < self->var_checks->len &&
                  gtk_check_button_get_active(GTK_CHECK_BUTTON(g_ptr_array_index(self->var_checks, v)));
    if (on)
      p->vars[w++] = p->vars[v];
    else
      free(p->vars[v].parameter); /* the description's own allocator */
  }
  p->nvars = w;
  if (w == 0) {
    lw_desc_free(reduced);
    set_status(self, _("Choose at least one variable."));
    return;
  }
  drop_result(self);
  OptJob *job = g_new0(OptJob, 1);
  job->desc = reduced;
  job->base = lw_desc_copy(self->desc);
  job->problem = k;
  g_mutex_init(&job->lock);
  job->pending = g_array_new(FALSE, FALSE, sizeof(ProgressPoint));
  guint alg = adw_combo_row_get_selected(ADW_COMBO_ROW(self->algorithm_row));
  job->opt.algorithm = alg == 0 || alg == GTK_INVALID_LIST_POSITION ? -1 : (int)alg - 1;
  job->opt.gradient = -1;
  job->opt.max_evaluations = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(self->maxeval_spin));
  job->opt.multistart = 0;
  self->max_evaluations = job->opt.max_evaluations > 0 ? job->opt.max_evaluations : p->max_evaluations;
  g_array_set_size(self->hist, 0);
  plot_reset(self);
  show_progress(self);
  g_object_notify_by_pspec(G_OBJECT(self), props[PROP_EVALUATIONS]);
  gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar), 0);
  set_busy(self, TRUE);
  set_status(self, _("Optimizing…"));
  lw_panel_job_start(&self->job, self, job, opt_job_free, job_work, job_progress_shown, job_done);
}

void lw_opt_panel_cancel(LwOptPanel *self)
{
  g_return_if_fail(LW_IS_OPT_PANEL(self));
  if (!self->busy || !self->job)
    return;
  lw_panel_job_cancel(self->job);
  set_status(self, _("Cancelling after this evaluation…"));
}

static void run_clicked_cb(LwOptPanel *self)
{
  lw_opt_panel_run(self);
}

gboolean lw_opt_panel_apply(LwOptPanel *self)
{
  g_return_val_if_fail(LW_IS_OPT_PANEL(self), FALSE);
  if (!self->have_result || !self->optimized)
    return FALSE;
  /* the handler may replace the panel's model (and so drop the result) */
  lw_desc *d = lw_desc_copy(self->optimized);
  gboolean taken = FALSE;
  g_signal_emit(self, signals[SIGNAL_APPLY], 0, d, &taken);
  lw_desc_free(d);
  if (taken) {
    drop_result(self);
    set_status(self, _("The optimized design is now the model. Undo (Ctrl+Z) brings the previous one back."));
  }
  return taken;
}

void lw_opt_panel_discard(LwOptPanel *self)
{
  g_return_if_fail(LW_IS_OPT_PANEL(self));
  if (!self->have_result)
    return;
  drop_result(self);
  set_status(self, _("Result discarded; the model is unchanged."));
}

static void apply_clicked_cb(LwOptPanel *self)
{
  lw_opt_panel_apply(self);
}

static void discard_clicked_cb(LwOptPanel *self)
{
  lw_opt_panel_discard(self);
}

/* ---- the chosen problem ---------------------------------------------------------- */
static const char *con_symbol(lw_con_type t)
{
  return t == LW_CON_LE ? "≤" : t == LW_CON_GE ? "≥" : "=";
}

static void show_problem(LwOptPanel *self)
{
  for (guint i = 0; i < self->var_rows->len; i++)
    adw_preferences_group_remove(ADW_PREFERENCES_GROUP(self->vars_group), g_ptr_array_index(self->var_rows, i));
  g_ptr_array_set_size(self->var_rows, 0);
  g_ptr_array_set_size(self->var_checks, 0);
  int k = selected_problem(self);
  gtk_widget_set_sensitive(self->run_button, k >= 0 && self->runnable);
  if (k < 0) {
    adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(self->problem_group), NULL);
    adw_action_row_set_subtitle(ADW_ACTION_ROW(self->objective_row), "–");
    return;
  }
  const lw_problem_desc *p = &self->desc->problems[k];
  g_autofree char *pdesc = p->description ? g_markup_escape_text(p->description, -1) : NULL;
  adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(self->problem_group), pdesc); /* markup */
  GString *obj = g_string_new(NULL);
  g_string_printf(obj, p->maximize ? _("maximize %s") : _("minimize %s"), p->objective ? p->objective : "?");
  for (int c = 0; c < p->ncons; c++)
    g_string_append_printf(obj, "\n%s %s %.6g", p->cons[c].objective ? p->cons[c].objective : "?",
                           con_symbol(p->cons[c].type), p->cons[c].value);
  adw_action_row_set_subtitle(ADW_ACTION_ROW(self->objective_row), obj->str);
  g_string_free(obj, TRUE);
  for (int v = 0; v < p->nvars; v++) {
    const lw_var_desc *var = &p->vars[v];
    int count = 0, first = -1;
    for (int j = 0; j < self->desc->nparams; j++)
      if (lw_param_name_matches(var->parameter, self->desc->params[j].name)) {
        if (first < 0)
          first = j;
        count++;
      }
    g_autofree char *lo = var->has_lower ? g_strdup_printf("%g", var->lower) : g_strdup("−∞");
    g_autofree char *hi = var->has_upper ? g_strdup_printf("%g", var->upper) : g_strdup("∞");
    g_autofree char *sub = NULL;
    if (count == 0)
      sub = g_strdup_printf(_("no such parameter · bounds [%s, %s]"), lo, hi);
    else if (count == 1)
      sub = g_strdup_printf(_("%.6g · bounds [%s, %s]"), self->desc->params[first].value, lo, hi);
    else
      sub = g_strdup_printf(_("%d parameters · bounds [%s, %s]"), count, lo, hi);
    if (var->scale != 1.0 && var->scale > 0) {
      g_autofree char *more = g_strdup_printf(_("%s · scale %g"), sub, var->scale);
      g_free(sub);
      sub = g_steal_pointer(&more);
    }
    GtkWidget *row = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), var->parameter);
    adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
    adw_action_row_set_subtitle(ADW_ACTION_ROW(row), sub);
    GtkWidget *check = gtk_check_button_new();
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), TRUE);
    gtk_widget_set_valign(check, GTK_ALIGN_CENTER);
    gtk_widget_set_tooltip_text(check, _("Optimize this variable (unchecked: it keeps its value)"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(check), GTK_ACCESSIBLE_PROPERTY_LABEL, var->parameter, -1);
    adw_action_row_add_prefix(ADW_ACTION_ROW(row), check);
    adw_action_row_set_activatable_widget(ADW_ACTION_ROW(row), check);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(self->vars_group), row);
    g_ptr_array_add(self->var_rows, row);
    g_ptr_array_add(self->var_checks, check);
  }
  /* the problem's algorithm is the first choice */
  g_autofree char *first_alg = g_strdup_printf(_("The problem's (%s)"), lw_opt_algorithm_name(p->algorithm));
  GtkStringList *algs = GTK_STRING_LIST(adw_combo_row_get_model(ADW_COMBO_ROW(self->algorithm_row)));
  const char *const one[] = {first_alg, NULL};
  gtk_string_list_splice(algs, 0, 1, one);
  adw_combo_row_set_selected(ADW_COMBO_ROW(self->algorithm_row), 0);
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->maxeval_spin), p->max_evaluations > 0 ? p->max_evaluations : 500);
}

static void problem_changed_cb(LwOptPanel *self)
{
  if (!self->following)
    show_problem(self);
}

static void show_model_status(LwOptPanel *self)
{
  lw_panel_set_warning(self->status_label, !self->runnable);
  if (!self->runnable) {
    g_autofree char *text = lw_panel_cannot_run_text(self->reason, _("Optimize"));
    set_status(self, text);
    gtk_widget_set_tooltip_text(self->run_button, text);
    return;
  }
  gtk_widget_set_tooltip_text(self->run_button, _("Optimize the design, or cancel (Ctrl+Shift+O)"));
  set_status(self, self->desc && self->desc->nproblems
                     ? _("Choose a problem, its variables and the algorithm, then optimize.")
                     : _("This model has no optimization problems. Add one to the model file (see the model format, "
                         "problems)."));
}

void lw_opt_panel_set_model_state(LwOptPanel *self, const lw_desc *desc, gboolean runnable, const char *reason)
{
  g_return_if_fail(LW_IS_OPT_PANEL(self));
  lw_panel_job_drop(&self->job); /* its result, when it comes, is not this model's */
  if (self->busy)
    set_busy(self, FALSE);
  drop_result(self);
  g_array_set_size(self->hist, 0);
  plot_reset(self);
  show_progress(self);
  lw_panel_take_model(&self->desc, &self->runnable, &self->reason, desc, runnable, reason);
  self->stale = TRUE;
  /* a page not on screen follows when it is shown (an edit stays cheap) */
  if (gtk_widget_get_mapped(GTK_WIDGET(self)))
    follow_model(self);
}

/* the problem list, the variables and the status of the model in self->desc */
static void follow_model(LwOptPanel *self)
{
  if (!self->stale)
    return;
  self->stale = FALSE;
  self->following = TRUE;
  int nprob = self->desc ? self->desc->nproblems : 0;
  const char **names = g_new(const char *, nprob + 1);
  for (int i = 0; i < nprob; i++)
    names[i] = self->desc->problems[i].name;
  names[nprob] = NULL;
  gboolean changed = lw_panel_set_strings(self->problems, names);
  g_free(names);
  /* the same problems: the one chosen stays chosen */
  if (changed && self->desc && self->desc->nproblems > 0)
    adw_combo_row_set_selected(ADW_COMBO_ROW(self->problem_row), 0);
  self->following = FALSE;
  show_problem(self);
  show_model_status(self);
}

void lw_opt_panel_set_desc(LwOptPanel *self, const lw_desc *desc)
{
  lw_opt_panel_set_model_state(self, desc, desc != NULL, NULL);
}

/* ---- for tests and scripts -------------------------------------------------------------- */
gboolean lw_opt_panel_is_busy(LwOptPanel *self)
{
  g_return_val_if_fail(LW_IS_OPT_PANEL(self), FALSE);
  return self->busy;
}

gboolean lw_opt_panel_select_problem(LwOptPanel *self, const char *name)
{
  g_return_val_if_fail(LW_IS_OPT_PANEL(self), FALSE);
  follow_model(self);
  int k = self->desc ? lw_desc_problem_index(self->desc, name) : -1;
  if (k < 0 || self->busy)
    return FALSE;
  if ((int)adw_combo_row_get_selected(ADW_COMBO_ROW(self->problem_row)) != k)
    adw_combo_row_set_selected(ADW_COMBO_ROW(self->problem_row), (guint)k);
  return TRUE;
}

void lw_opt_panel_set_variable_included(LwOptPanel *self, int k, gboolean included)
{
  g_return_if_fail(LW_IS_OPT_PANEL(self));
  follow_model(self);
  if (k >= 0 && (guint)k < self->var_checks->len)
    gtk_check_button_set_active(GTK_CHECK_BUTTON(g_ptr_array_index(self->var_checks, k)), included);
}

void lw_opt_panel_set_algorithm(LwOptPanel *self, int algorithm)
{
  g_return_if_fail(LW_IS_OPT_PANEL(self));
  guint i = algorithm >= 0 && algorithm < LW_OPT_NALGORITHMS ? (guint)algorithm + 1 : 0;
  adw_combo_row_set_selected(ADW_COMBO_ROW(self->algorithm_row), i);
}

int lw_opt_panel_get_progress(LwOptPanel *self, int *iteration, double *f, double *violation, double *pgnorm)
{
  g_return_val_if_fail(LW_IS_OPT_PANEL(self), 0);
  ProgressPoint none = {0, 0, 0, NAN, NAN, NAN, NAN};
  const ProgressPoint *p = self->hist->len ? &g_array_index(self->hist, ProgressPoint, self->hist->len - 1) : &none;
  if (iteration)
    *iteration = p->iteration;
  if (f)
    *f = p->f;
  if (violation)
    *violation = p->violation;
  if (pgnorm)
    *pgnorm = p->pgnorm;
  return p->evaluation;
}

LwPlot *lw_opt_panel_get_plot(LwOptPanel *self)
{
  g_return_val_if_fail(LW_IS_OPT_PANEL(self), NULL);
  return lw_plot_view_get_plot(LW_PLOT_VIEW(self->plot_view));
}

const lw_opt_result *lw_opt_panel_get_result(LwOptPanel *self)
{
  g_return_val_if_fail(LW_IS_OPT_PANEL(self), NULL);
  return self->have_result ? &self->result : NULL;
}

const char *lw_opt_panel_get_status(LwOptPanel *self)
{
  g_return_val_if_fail(LW_IS_OPT_PANEL(self), NULL);
  follow_model(self);
  return self->status;
}

gboolean lw_opt_panel_comparison_ready(LwOptPanel *self)
{
  g_return_val_if_fail(LW_IS_OPT_PANEL(self), FALSE);
  return self->compare_ready;
}

/* ---- GObject ----------------------------------------------------------------------- */
static void lw_opt_panel_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  LwOptPanel *self = LW_OPT_PANEL(object);
  switch (prop_id) {
  case PROP_BUSY:
    g_value_set_boolean(value, self->busy);
    break;
  case PROP_EVALUATIONS:
    g_value_set_int(value, lw_opt_panel_get_progress(self, NULL, NULL, NULL, NULL));
    break;
  case PROP_STATUS:
    g_value_set_string(value, self->status);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
}

static void lw_opt_panel_dispose(GObject *object)
{
  LwOptPanel *self = LW_OPT_PANEL(object);
  lw_panel_job_drop(&self->job);
  if (self->tick_id) {
    gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->tick_id);
    self->tick_id = 0;
  }
  for (int i = 0; i < 2; i++) {
    CompareSide *s = &self->side[i];
    if (s->runner)
      lw_sim_runner_cancel(s->runner);
    g_clear_pointer(&s->data, lw_data_free);
    g_clear_object(&s->runner);
    s->view = NULL;
  }
  gtk_widget_dispose_template(GTK_WIDGET(object), LW_TYPE_OPT_PANEL);
  G_OBJECT_CLASS(lw_opt_panel_parent_class)->dispose(object);
}

static void lw_opt_panel_finalize(GObject *object)
{
  LwOptPanel *self = LW_OPT_PANEL(object);
  lw_desc_free(self->desc);
  if (self->have_result)
    lw_opt_result_clear(&self->result);
  lw_desc_free(self->result_base);
  lw_desc_free(self->optimized);
  for (int i = 0; i < 2; i++) {
    g_free(self->side[i].q);
    g_free(self->side[i].poses);
    g_free(self->side[i].joints);
    g_free(self->side[i].forces);
  }
  g_free(self->status);
  g_free(self->reason);
  g_array_unref(self->hist);
  g_ptr_array_unref(self->var_rows);
  g_ptr_array_unref(self->var_checks);
  g_ptr_array_unref(self->design_rows);
  G_OBJECT_CLASS(lw_opt_panel_parent_class)->finalize(object);
}

static void lw_opt_panel_map(GtkWidget *widget)
{
  follow_model(LW_OPT_PANEL(widget));
  GTK_WIDGET_CLASS(lw_opt_panel_parent_class)->map(widget);
}

/* the widgets of ui/lw-opt-panel.ui the code reaches, and its callbacks */
static void bind_template(GtkWidgetClass *widget_class)
{
  g_type_ensure(LW_TYPE_PLOT_VIEW);
  g_type_ensure(LW_TYPE_VIEW3D);
  gtk_widget_class_set_template_from_resource(widget_class, "/io/github/linkwright/Linkwright/ui/lw-opt-panel.ui");
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, scroller);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, problem_group);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, problem_row);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, objective_row);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, problems);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, vars_group);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, algorithm_row);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, maxeval_spin);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, run_button);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, progress_bar);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, status_label);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, eval_value);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, iter_value);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, f_value);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, best_value);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, viol_value);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, pg_value);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, plot_view);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, result_box);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, res_f);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, res_viol);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, res_pg);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, res_evals);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, res_time);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, res_stop_row);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, design_group);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, apply_button);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, discard_button);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, play_button);
  gtk_widget_class_bind_template_child(widget_class, LwOptPanel, compare_time);
  gtk_widget_class_bind_template_child_full(widget_class, "initial_view", FALSE,
                                            G_STRUCT_OFFSET(LwOptPanel, side[0].view));
  gtk_widget_class_bind_template_child_full(widget_class, "initial_caption", FALSE,
                                            G_STRUCT_OFFSET(LwOptPanel, side[0].caption));
  gtk_widget_class_bind_template_child_full(widget_class, "optimized_view", FALSE,
                                            G_STRUCT_OFFSET(LwOptPanel, side[1].view));
  gtk_widget_class_bind_template_child_full(widget_class, "optimized_caption", FALSE,
                                            G_STRUCT_OFFSET(LwOptPanel, side[1].caption));
  gtk_widget_class_bind_template_callback(widget_class, problem_changed_cb);
  gtk_widget_class_bind_template_callback(widget_class, run_clicked_cb);
  gtk_widget_class_bind_template_callback(widget_class, play_clicked_cb);
  gtk_widget_class_bind_template_callback(widget_class, apply_clicked_cb);
  gtk_widget_class_bind_template_callback(widget_class, discard_clicked_cb);
  gtk_widget_class_bind_template_callback(widget_class, lead_rendered_cb);
}

static void lw_opt_panel_class_init(LwOptPanelClass *klass)
{
  GTK_WIDGET_CLASS(klass)->map = lw_opt_panel_map;
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  object_class->get_property = lw_opt_panel_get_property;
  object_class->dispose = lw_opt_panel_dispose;
  object_class->finalize = lw_opt_panel_finalize;
  props[PROP_BUSY] = g_param_spec_boolean("busy", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_EVALUATIONS] =
    g_param_spec_int("evaluations", NULL, NULL, 0, G_MAXINT, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_STATUS] = g_param_spec_string("status", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties(object_class, N_PROPS, props);
  /* gboolean handler(LwOptPanel *, const lw_desc *optimized, gpointer) */
  signals[SIGNAL_APPLY] = g_signal_new("apply", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                       g_signal_accumulator_true_handled, NULL, NULL, G_TYPE_BOOLEAN, 1,
                                       G_TYPE_POINTER);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  bind_template(widget_class);
}


static void lw_opt_panel_init(LwOptPanel *self)
{
  gtk_widget_init_template(GTK_WIDGET(self));
  self->var_rows = g_ptr_array_new();
  self->var_checks = g_ptr_array_new();
  self->design_rows = g_ptr_array_new();
  self->hist = g_array_new(FALSE, FALSE, sizeof(ProgressPoint));
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(self->plot_view));
  lw_plot_set_title(plot, _("Convergence"));
  lw_plot_add_series(plot, _("objective"));
  lw_plot_add_series(plot, _("best so far"));
  plot_labels(self);
  /* the page scrolls under the wheel; Ctrl+wheel zooms the plot */
  lw_plot_view_set_wheel_zoom(LW_PLOT_VIEW(self->plot_view), FALSE);
  self->reason = g_strdup(_("there is no model"));
  show_model_status(self);
}
