/* lw-sens-panel.c: the sensitivity panel (see lw-sens-panel.h). */
#include "lw-sens-panel.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "lw-panel-job.h"
#include "lw-panel-util.h"
#include "lw-plot-view.h"
#include "lw-plot.h"

/* what a worker needs: the data of an LwPanelJob */
typedef struct {
  lw_desc *desc;
  lw_sens_options opt;
  int *params;
  int objective;
  lw_sens_result result;
  GStrv columns;    /* output column names, found by the worker */
} SensJob;

/* parameters NAME[0], NAME[1], ... side by side in the model: one
 * expander whose element rows are built when it is first opened */
typedef struct {
  LwSensPanel *panel;
  int first, count;
  GtkWidget *check;          /* all of them */
  GPtrArray *checks;         /* per element, once built */
} ParamArray;

struct _LwSensPanel {
  GtkWidget parent_instance;
  GtkWidget *scroller;
  GtkWidget *objective_row, *method_row;
  GtkStringList *objectives;
  GtkWidget *params_group;
  GPtrArray *param_rows;     /* rows of params_group, one per parameter or array */
  GPtrArray *param_arrays;   /* ParamArray */
  gboolean *param_on;        /* (desc->nparams) chosen for the gradient */
  gboolean syncing;          /* checks being set from param_on */
  gboolean stale;            /* the rows are an older model's: rebuilt when shown */
  GHashTable *pending_off;   /* while stale: the parameters left out */
  GtkWidget *run_button, *progress_bar, *status_label;
  GtkWidget *chart;          /* gradient bars (an LwPlotView) */
  GtkWidget *output_dropdown;
  GtkStringList *output_names;
  GtkWidget *plot_view;

  lw_desc *desc;
  gboolean runnable;         /* the model compiles and assembles */
  char *reason;              /* why it cannot run */
  int ncols;                 /* output columns of the model */
  gboolean busy;
  LwPanelJob *job;           /* the job shown while busy */
  char *status;

  /* last result and what it was for */
  gboolean have_result;
  lw_sens_result result;
  int result_objective;
  int *result_params;        /* (result.nparams) */
};

G_DEFINE_FINAL_TYPE(LwSensPanel, lw_sens_panel, GTK_TYPE_WIDGET)

static void follow_model(LwSensPanel *self);

static void take_columns(LwSensPanel *self, char **columns);

static void set_status(LwSensPanel *self, const char *text)
{
  g_free(self->status);
  self->status = g_strdup(text);
  gtk_label_set_text(GTK_LABEL(self->status_label), text);
}

static void sens_job_free(gpointer p)
{
  SensJob *job = p;
  lw_desc_free(job->desc);
  g_free(job->params);
  lw_sens_result_clear(&job->result);
  g_strfreev(job->columns);
  g_free(job);
}

/* worker thread: the fraction done; non-zero asks the computation to stop */
static int job_progress(double fraction, void *user)
{
  LwPanelJob *job = user;
  lw_panel_job_set_fraction(job, fraction);
  return lw_panel_job_is_cancelled(job);
}

/* the output column names of d, NULL-terminated */
static GStrv output_columns(const lw_desc *d)
{
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  int nc = m ? lw_model_output_columns(m) : 0;
  GStrv columns = g_new0(char *, nc + 1);
  for (int c = 0; c < nc; c++) {
    char b[128];
    lw_model_output_column_name(m, c, b, sizeof b);
    columns[c] = g_strdup(b);
  }
  lw_model_free(m);
  return columns;
}

static void job_work(LwPanelJob *pj, gpointer data)
{
  SensJob *job = data;
  job->opt.progress = job_progress;
  job->opt.user = pj;
  lw_sensitivity(job->desc, &job->opt, &job->result);
  /* the output columns the sensitivities over time are of */
  job->columns = output_columns(job->desc);
}

/* ---- the gradient chart ------------------------------------------------ */
/* the bars of the result (none without one), with its objective on x */
static void fill_chart(LwSensPanel *self)
{
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(self->chart));
  const lw_sens_result *r = &self->result;
  gboolean ok = self->have_result && r->status == LW_OK && self->desc;
  int np = ok ? r->nparams : 0;
  const char **names = g_new0(const char *, np + 1);
  for (int j = 0; j < np; j++)
    names[j] = self->desc->params[self->result_params[j]].name;
  lw_plot_set_bars(plot, names, ok ? r->gradient : NULL, (guint)np);
  g_free(names);
  g_autofree char *xlabel = ok ? g_strdup_printf(_("d %s / d parameter"),
                                                 self->desc->objectives[self->result_objective].name)
                               : NULL;
  lw_plot_set_x_label(plot, xlabel);
  lw_plot_set_y_label(plot, ok ? _("parameter") : NULL);
  lw_plot_reset_view(plot);
  /* a bar row of 28 pixels, and the axis below */
  gtk_widget_set_size_request(self->chart, -1, 28 * MAX(np, 1) + 60);
  gtk_widget_set_visible(self->chart, np > 0);
  lw_plot_view_queue_update(LW_PLOT_VIEW(self->chart));
}

/* ---- sensitivities over time ------------------------------------------- */
static void fill_plot(LwSensPanel *self)
{
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(self->plot_view));
  while (lw_plot_get_n_series(plot) > 0)
    lw_plot_remove_series(plot, 0);
  guint c = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->output_dropdown));
  const lw_sens_result *r = &self->result;
  if (!self->have_result || r->status != LW_OK || !r->table || c == GTK_INVALID_LIST_POSITION ||
      (int)c >= self->ncols) {
    /* no labels left over from another result or model */
    lw_plot_set_y_label(plot, NULL);
    lw_plot_set_x_label(plot, NULL);
    lw_plot_view_queue_update(LW_PLOT_VIEW(self->plot_view));
    return;
  }
  int np = r->nparams, nc = self->ncols;
  const char *col = gtk_string_list_get_string(self->output_names, c);
  g_autofree char *ylabel = g_strdup_printf(_("d %s / d parameter"), col);
  lw_plot_set_y_label(plot, ylabel);
  lw_plot_set_x_label(plot, "t [s]");
  double *x = g_new(double, r->rows), *y = g_new(double, r->rows);
  for (int j = 0; j < np; j++) {
    for (long i = 0; i < r->rows; i++) {
      const double *row = r->table + (size_t)i * r->ncols;
      x[i] = row[0];
      y[i] = row[1 + nc + (size_t)c * np + j];
    }
    guint s = lw_plot_add_series(plot, self->desc->params[self->result_params[j]].name);
    lw_plot_series_append_many(plot, s, x, y, (gsize)r->rows);
  }
  g_free(x);
  g_free(y);
  lw_plot_reset_view(plot);
  lw_plot_view_queue_update(LW_PLOT_VIEW(self->plot_view));
}

static void output_changed_cb(LwSensPanel *self)
{
  fill_plot(self);
}

static void update_accessible_summary(LwSensPanel *self)
{
  GString *s = g_string_new(_("Gradient"));
  gboolean ok = self->have_result && self->result.status == LW_OK;
  double gmax = 0;
  for (int j = 0; ok && j < self->result.nparams; j++)
    gmax = fmax(gmax, fabs(self->result.gradient[j]));
  for (int j = 0; ok && j < self->result.nparams; j++)
    g_string_append_printf(s, "%s %s = %.6g", j ? "," : ":", self->desc->params[self->result_params[j]].name,
                           lw_panel_clean(self->result.gradient[j], gmax));
  gtk_accessible_update_property(GTK_ACCESSIBLE(self->chart), GTK_ACCESSIBLE_PROPERTY_LABEL, s->str, -1);
  g_string_free(s, TRUE);
}

static void set_busy(LwSensPanel *self, gboolean busy)
{
  self->busy = busy;
  lw_panel_set_busy(self->run_button, self->progress_bar, busy, _("_Compute Gradient"));
}

static void job_progress_shown(gpointer owner, LwPanelJob *job)
{
  LwSensPanel *self = owner;
  gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar), lw_panel_job_get_fraction(job));
}

/* the sentence under the chart for the result of job */
static char *result_text(const SensJob *job, const lw_sens_result *r)
{
  if (r->status != LW_OK)
    return g_strdup_printf(_("No gradient: %s"), r->error.msg);
  const char *m = job->opt.method == LW_SENS_FORWARD ? _("forward")
                  : job->opt.method == LW_SENS_ADJOINT ? _("adjoint")
                                                       : _("central differences");
  GString *text = g_string_new(NULL);
  g_string_printf(text, _("%s = %.8g   (%s, %ld steps, %.3f s)"), job->desc->objectives[job->objective].name,
                  lw_panel_clean(r->value[0], fabs(r->value[0])), m, r->steps, r->wall_time_s);
  for (int j = 0; j < r->nparams; j++)
    if (!r->depends[j]) {
      g_string_append_c(text, '\n');
      g_string_append_printf(text, _("%s does not reach this objective: its gradient is exactly 0."),
                             job->desc->params[job->params[j]].name);
    }
  if (!r->table && job->opt.method != LW_SENS_FORWARD) {
    g_string_append_c(text, '\n');
    g_string_append(text, _("Sensitivities over time come from the forward method."));
  }
  return g_string_free(text, FALSE);
}

/* the job in the panel's slot has ended (a dropped one never gets here) */
static void job_done(gpointer owner, LwPanelJob *pj)
{
  LwSensPanel *self = owner;
  SensJob *job = lw_panel_job_get_data(pj);
  set_busy(self, FALSE);
  if (lw_panel_job_is_cancelled(pj)) {
    set_status(self, self->have_result ? _("Cancelled; the previous result is kept.") : _("Cancelled."));
    return;
  }
  take_columns(self, job->columns);
  if (self->have_result)
    lw_sens_result_clear(&self->result);
  g_free(self->result_params);
  /* take the result over from the job */
  self->result = job->result;
  memset(&job->result, 0, sizeof job->result);
  self->result_objective = job->objective;
  self->result_params = g_memdup2(job->params, sizeof(int) * (gsize)MAX(job->opt.nparams, 1));
  self->have_result = TRUE;
  g_autofree char *text = result_text(job, &self->result);
  set_status(self, text);
  fill_chart(self);
  update_accessible_summary(self);
  fill_plot(self);
}

void lw_sens_panel_run(LwSensPanel *self)
{
  g_return_if_fail(LW_IS_SENS_PANEL(self));
  follow_model(self);
  if (self->busy) {
    if (self->job)
      lw_panel_job_cancel(self->job);
    return;
  }
  if (!self->runnable) {
    g_autofree char *text = lw_panel_cannot_run_text(self->reason, _("Compute"));
    set_status(self, text);
    return;
  }
  if (!self->desc || self->desc->nobjectives == 0) {
    set_status(self, _("This model has no objectives. Add one to the model file (see the model format, objectives)."));
    return;
  }
  SensJob *job = g_new0(SensJob, 1);
  job->desc = lw_desc_copy(self->desc);
  job->objective = (int)adw_combo_row_get_selected(ADW_COMBO_ROW(self->objective_row));
  if (job->objective < 0 || job->objective >= self->desc->nobjectives)
    job->objective = 0;
  job->params = g_new0(int, self->desc->nparams + 1);
  int np = 0;
  for (int j = 0; j < self->desc->nparams; j++)
    if (self->param_on[j])
      job->params[np++] = j;
  if (np == 0) {
    sens_job_free(job);
    set_status(self, _("Choose at least one parameter."));
    return;
  }
  static const lw_sens_method methods[] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  guint mi = adw_combo_row_get_selected(ADW_COMBO_ROW(self->method_row));
  job->opt.method = methods[MIN(mi, 2u)];
  job->opt.nparams = np;
  job->opt.params = job->params;
  job->opt.nobj = 1;
  job->opt.objectives = &job->objective;
  job->opt.keep_outputs = job->opt.method == LW_SENS_FORWARD;
  set_busy(self, TRUE);
  set_status(self, _("Computing…"));
  gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar), 0);
  lw_panel_job_start(&self->job, self, job, sens_job_free, job_work, job_progress_shown, job_done);
}

static void run_clicked_cb(LwSensPanel *self)
{
  lw_sens_panel_run(self);
}

gboolean lw_sens_panel_is_busy(LwSensPanel *self)
{
  g_return_val_if_fail(LW_IS_SENS_PANEL(self), FALSE);
  return self->busy;
}

const lw_sens_result *lw_sens_panel_get_result(LwSensPanel *self)
{
  g_return_val_if_fail(LW_IS_SENS_PANEL(self), NULL);
  return self->have_result ? &self->result : NULL;
}

const char *lw_sens_panel_get_status(LwSensPanel *self)
{
  g_return_val_if_fail(LW_IS_SENS_PANEL(self), NULL);
  follow_model(self);
  return self->status;
}

void lw_sens_panel_select(LwSensPanel *self, const char *objective, lw_sens_method method)
{
  g_return_if_fail(LW_IS_SENS_PANEL(self));
  follow_model(self);
  if (self->desc && objective) {
    int k = lw_desc_objective_index(self->desc, objective);
    if (k >= 0)
      adw_combo_row_set_selected(ADW_COMBO_ROW(self->objective_row), (guint)k);
  }
  guint mi = method == LW_SENS_ADJOINT ? 1 : method == LW_SENS_FD ? 2 : 0;
  adw_combo_row_set_selected(ADW_COMBO_ROW(self->method_row), mi);
}

/* ---- the parameters ---------------------------------------------------- */
static void param_toggled_cb(GtkCheckButton *check, gpointer user);

static GtkWidget *param_check(LwSensPanel *self, const char *name, gboolean active)
{
  GtkWidget *check = gtk_check_button_new();
  gtk_check_button_set_active(GTK_CHECK_BUTTON(check), active);
  gtk_widget_set_valign(check, GTK_ALIGN_CENTER);
  gtk_accessible_update_property(GTK_ACCESSIBLE(check), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  g_signal_connect(check, "toggled", G_CALLBACK(param_toggled_cb), self);
  return check;
}

/* a row with a check for parameter j */
static GtkWidget *param_row(LwSensPanel *self, int j)
{
  const lw_param_desc *p = &self->desc->params[j];
  GtkWidget *row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), p->name);
  adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
  g_autofree char *sub = g_strdup_printf("%.6g  ·  %s", p->value, p->ntargets ? p->targets[0] : "");
  adw_action_row_set_subtitle(ADW_ACTION_ROW(row), sub);
  GtkWidget *check = param_check(self, p->name, self->param_on[j]);
  g_object_set_data(G_OBJECT(check), "lw-param", GINT_TO_POINTER(j + 1));
  adw_action_row_add_prefix(ADW_ACTION_ROW(row), check);
  adw_action_row_set_activatable_widget(ADW_ACTION_ROW(row), check);
  return row;
}

/* the array's check: on, off, or inconsistent when some elements are chosen */
static void param_array_sync(LwSensPanel *self, ParamArray *pa)
{
  int on = 0;
  for (int j = pa->first; j < pa->first + pa->count; j++)
    on += self->param_on[j] != 0;
  self->syncing = TRUE;
  gtk_check_button_set_inconsistent(GTK_CHECK_BUTTON(pa->check), on > 0 && on < pa->count);
  gtk_check_button_set_active(GTK_CHECK_BUTTON(pa->check), on == pa->count);
  for (guint k = 0; pa->checks && k < pa->checks->len; k++)
    gtk_check_button_set_active(GTK_CHECK_BUTTON(g_ptr_array_index(pa->checks, k)), self->param_on[pa->first + (int)k]);
  self->syncing = FALSE;
}

static void param_toggled_cb(GtkCheckButton *check, gpointer user)
{
  LwSensPanel *self = user;
  if (self->syncing || !self->desc)
    return;
  gboolean on = gtk_check_button_get_active(check);
  int j = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(check), "lw-param")) - 1;
  ParamArray *pa = g_object_get_data(G_OBJECT(check), "lw-param-array");
  if (j >= 0 && j < self->desc->nparams)
    self->param_on[j] = on;
  else if (pa)
    for (int k = pa->first; k < pa->first + pa->count; k++)
      self->param_on[k] = on;
  for (guint i = 0; i < self->param_arrays->len; i++) {
    ParamArray *a = g_ptr_array_index(self->param_arrays, i);
    if (a == pa || (j >= a->first && j < a->first + a->count))
      param_array_sync(self, a);
  }
}

static void param_array_expanded_cb(GObject *row, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  ParamArray *pa = user;
  LwSensPanel *self = pa->panel;
  if (pa->checks || !adw_expander_row_get_expanded(ADW_EXPANDER_ROW(row)))
    return;
  pa->checks = g_ptr_array_new();
  for (int j = pa->first; j < pa->first + pa->count; j++) {
    GtkWidget *r = param_row(self, j);
    adw_expander_row_add_row(ADW_EXPANDER_ROW(row), r);
    g_ptr_array_add(pa->checks, adw_action_row_get_activatable_widget(ADW_ACTION_ROW(r)));
  }
}

static void param_array_free(gpointer p)
{
  ParamArray *pa = p;
  if (pa->checks)
    g_ptr_array_unref(pa->checks);
  g_free(pa);
}

/* the length of the run of parameters NAME[k] from j (0 when j is no element) */
static int array_run(const lw_desc *d, int j)
{
  const char *name = d->params[j].name, *br = strchr(name, '[');
  if (!br || !g_str_has_suffix(name, "]"))
    return 0;
  size_t n = (size_t)(br - name) + 1;
  int k = j + 1;
  while (k < d->nparams && !strncmp(d->params[k].name, name, n) && g_str_has_suffix(d->params[k].name, "]"))
    k++;
  return k - j;
}

static GtkWidget *param_array_row(LwSensPanel *self, int first, int count)
{
  const lw_desc *d = self->desc;
  const char *name = d->params[first].name;
  g_autofree char *base = g_strndup(name, (gsize)(strchr(name, '[') - name));
  g_autofree char *title = g_strdup_printf("%s … %s", name, d->params[first + count - 1].name);
  GtkWidget *row = adw_expander_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
  adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
  g_autofree char *sub =
    g_strdup_printf(ngettext("%d element of the parameter array %s", "%d elements of the parameter array %s", count),
                    count, base);
  adw_expander_row_set_subtitle(ADW_EXPANDER_ROW(row), sub);
  ParamArray *pa = g_new0(ParamArray, 1);
  pa->panel = self;
  pa->first = first;
  pa->count = count;
  pa->check = param_check(self, base, FALSE);
  g_object_set_data(G_OBJECT(pa->check), "lw-param-array", pa);
  adw_expander_row_add_prefix(ADW_EXPANDER_ROW(row), pa->check);
  g_ptr_array_add(self->param_arrays, pa);
  g_signal_connect(row, "notify::expanded", G_CALLBACK(param_array_expanded_cb), pa);
  param_array_sync(self, pa);
  return row;
}

/* the names of the parameters left out (NULL when none): an edit keeps them out */
static GHashTable *left_out_params(LwSensPanel *self)
{
  GHashTable *off = NULL;
  for (int j = 0; self->desc && self->param_on && j < self->desc->nparams; j++)
    if (!self->param_on[j]) {
      if (!off)
        off = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_add(off, g_strdup(self->desc->params[j].name));
    }
  return off;
}

/* one row per parameter, one expander per array of them: a model may have
 * hundreds of elements, and this runs on every edit; the parameters named
 * in off are left out */
static void build_param_rows(LwSensPanel *self, GHashTable *off)
{
  for (guint i = 0; i < self->param_rows->len; i++)
    adw_preferences_group_remove(ADW_PREFERENCES_GROUP(self->params_group), g_ptr_array_index(self->param_rows, i));
  g_ptr_array_set_size(self->param_rows, 0);
  g_ptr_array_set_size(self->param_arrays, 0);
  g_clear_pointer(&self->param_on, g_free);
  if (!self->desc)
    return;
  self->param_on = g_new(gboolean, self->desc->nparams + 1);
  for (int j = 0; j < self->desc->nparams; j++)
    self->param_on[j] = !off || !g_hash_table_contains(off, self->desc->params[j].name);
  for (int j = 0; j < self->desc->nparams;) {
    int run = array_run(self->desc, j);
    GtkWidget *row = run > 1 ? param_array_row(self, j, run) : param_row(self, j);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(self->params_group), row);
    g_ptr_array_add(self->param_rows, row);
    j += MAX(run, 1);
  }
}

/* the output columns a result's sensitivities over time are of, keeping
 * the chosen one when it is still there */
static void take_columns(LwSensPanel *self, char **columns)
{
  guint sel = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->output_dropdown));
  g_autofree char *keep = sel != GTK_INVALID_LIST_POSITION && sel < g_list_model_get_n_items(G_LIST_MODEL(self->output_names))
                            ? g_strdup(gtk_string_list_get_string(self->output_names, sel))
                            : NULL;
  guint n = g_list_model_get_n_items(G_LIST_MODEL(self->output_names));
  self->ncols = columns ? (int)g_strv_length(columns) : 0;
  gtk_string_list_splice(self->output_names, 0, n, (const char *const *)columns);
  for (int c = 0; keep && c < self->ncols; c++)
    if (!strcmp(columns[c], keep))
      gtk_drop_down_set_selected(GTK_DROP_DOWN(self->output_dropdown), (guint)c);
}

/* ---- the model ---------------------------------------------------------- */
/* let go of the running job: it is cancelled, and its result is dropped */
static void orphan_job(LwSensPanel *self)
{
  lw_panel_job_drop(&self->job);
  if (self->busy)
    set_busy(self, FALSE);
}

static void show_model_status(LwSensPanel *self)
{
  gtk_widget_set_sensitive(self->run_button, self->runnable && self->desc && self->desc->nobjectives > 0);
  lw_panel_set_warning(self->status_label, !self->runnable);
  if (!self->runnable) {
    g_autofree char *text = lw_panel_cannot_run_text(self->reason, _("Compute"));
    set_status(self, text);
    gtk_widget_set_tooltip_text(self->run_button, text);
    return;
  }
  gtk_widget_set_tooltip_text(self->run_button, _("Compute the gradient of the objective (Ctrl+G)"));
  set_status(self, self->desc && self->desc->nobjectives ? _("Choose an objective and parameters, then compute.")
                                                         : _("This model has no objectives."));
}

void lw_sens_panel_set_model_state(LwSensPanel *self, const lw_desc *desc, gboolean runnable, const char *reason)
{
  g_return_if_fail(LW_IS_SENS_PANEL(self));
  orphan_job(self);
  /* the choices made in the rows, which belong to the model before (while
   * stale, they were kept when the rows went stale) */
  if (!self->stale)
    self->pending_off = left_out_params(self);
  lw_panel_take_model(&self->desc, &self->runnable, &self->reason, desc, runnable, reason);
  if (self->have_result)
    lw_sens_result_clear(&self->result);
  self->have_result = FALSE;
  g_clear_pointer(&self->result_params, g_free);
  self->stale = TRUE;
  /* a page not on screen follows when it is shown (an edit stays cheap) */
  if (gtk_widget_get_mapped(GTK_WIDGET(self)))
    follow_model(self);
}

/* the rows, lists and status of the model in self->desc */
static void follow_model(LwSensPanel *self)
{
  if (!self->stale)
    return;
  self->stale = FALSE;
  g_autoptr(GHashTable) off = g_steal_pointer(&self->pending_off);
  int nobj = self->desc ? self->desc->nobjectives : 0;
  const char **names = g_new(const char *, nobj + 1);
  for (int i = 0; i < nobj; i++)
    names[i] = self->desc->objectives[i].name;
  names[nobj] = NULL;
  lw_panel_set_strings(self->objectives, names);
  g_free(names);
  build_param_rows(self, off);
  take_columns(self, NULL);
  show_model_status(self);
  fill_chart(self);
  update_accessible_summary(self);
  fill_plot(self);
}

void lw_sens_panel_set_desc(LwSensPanel *self, const lw_desc *desc)
{
  lw_sens_panel_set_model_state(self, desc, desc != NULL, NULL);
}

static void lw_sens_panel_map(GtkWidget *widget)
{
  follow_model(LW_SENS_PANEL(widget));
  GTK_WIDGET_CLASS(lw_sens_panel_parent_class)->map(widget);
}

static void lw_sens_panel_dispose(GObject *object)
{
  LwSensPanel *self = LW_SENS_PANEL(object);
  lw_panel_job_drop(&self->job);
  gtk_widget_dispose_template(GTK_WIDGET(object), LW_TYPE_SENS_PANEL);
  G_OBJECT_CLASS(lw_sens_panel_parent_class)->dispose(object);
}

static void lw_sens_panel_finalize(GObject *object)
{
  LwSensPanel *self = LW_SENS_PANEL(object);
  lw_desc_free(self->desc);
  if (self->have_result)
    lw_sens_result_clear(&self->result);
  g_free(self->result_params);
  g_free(self->status);
  g_free(self->reason);
  g_free(self->param_on);
  g_clear_pointer(&self->pending_off, g_hash_table_unref);
  g_ptr_array_unref(self->param_rows);
  g_ptr_array_unref(self->param_arrays);
  G_OBJECT_CLASS(lw_sens_panel_parent_class)->finalize(object);
}

/* the widgets of ui/lw-sens-panel.ui the code reaches, and its callbacks */
static void bind_template(GtkWidgetClass *widget_class)
{
  g_type_ensure(LW_TYPE_PLOT_VIEW);
  gtk_widget_class_set_template_from_resource(widget_class, "/io/github/linkwright/Linkwright/ui/lw-sens-panel.ui");
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, scroller);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, objective_row);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, method_row);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, objectives);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, params_group);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, run_button);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, progress_bar);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, status_label);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, chart);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, output_dropdown);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, output_names);
  gtk_widget_class_bind_template_child(widget_class, LwSensPanel, plot_view);
  gtk_widget_class_bind_template_callback(widget_class, run_clicked_cb);
  gtk_widget_class_bind_template_callback(widget_class, output_changed_cb);
}

static void lw_sens_panel_class_init(LwSensPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  object_class->dispose = lw_sens_panel_dispose;
  object_class->finalize = lw_sens_panel_finalize;
  widget_class->map = lw_sens_panel_map;
  gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  bind_template(widget_class);
}

static void lw_sens_panel_init(LwSensPanel *self)
{
  gtk_widget_init_template(GTK_WIDGET(self));
  self->param_rows = g_ptr_array_new();
  self->param_arrays = g_ptr_array_new_with_free_func(param_array_free);
  /* the page scrolls under the wheel; Ctrl+wheel zooms a plot */
  lw_plot_view_set_wheel_zoom(LW_PLOT_VIEW(self->chart), FALSE);
  lw_plot_view_set_wheel_zoom(LW_PLOT_VIEW(self->plot_view), FALSE);
  /* the drop-down's own button is named too: without a name a screen
   * reader says the class name */
  lw_panel_name_inner_buttons(self->output_dropdown, _("Sensitivity output"));
  self->reason = g_strdup(_("there is no model"));
  show_model_status(self);
}
