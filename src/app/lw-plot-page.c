/* lw-plot-page.c: the Plots page (see lw-plot-page.h).
 *
 * A quantity is an output column of the runner's model or a component of a
 * body point's position, computed from the recorded coordinates.  A plot
 * holds series of one horizontal quantity (time or another); every series
 * remembers its quantities and is filled from the runner's frames.
 */
#include "lw-plot-page.h"

#include <glib/gi18n.h>
#include <math.h>

#include "lw-camera.h"
#include "lw-panel-util.h"
#include "lw-plot-view.h"
#include "lw-view3d.h"

typedef enum {
  GROUP_OUTPUTS,
  GROUP_JOINTS,
  GROUP_SPRINGS,
  GROUP_CONTROLLERS,
  GROUP_ENERGY,
  GROUP_POINTS,
  N_GROUPS
} Group;

static const char *const group_names[N_GROUPS] = {N_("Outputs"), N_("Joints"), N_("Springs"),
                                                  N_("Controllers"), N_("Energy"), N_("Points")};

typedef struct {
  Group group;
  char *label;
  char *unit;
  int col;       /* output column, or -1: a point's component */
  int body, comp; /* point: body, axis */
  double p[3];    /* point: body coordinates */
  char *name;     /* the output column's name in the model (NULL: a point's) */
} Quantity;

typedef struct {
  int xq, yq; /* quantities; xq -1: time */
  guint series;
  int cmp;    /* the plot's series of the comparison run, -1: none */
} Series;

/* a second run of a variant of the model (without friction), drawn dashed
 * beside each series whose quantities it has, matched by column name */
typedef struct {
  GHashTable *cols; /* column name -> table column + 1 (0: time is column 0) */
  double *table;    /* rows x ncols, time first */
  long rows;
  int ncols;
  char *label;      /* what the series' names get in parentheses */
} Comparison;

typedef struct {
  GtkWidget *view; /* LwPlotView */
  int xq;          /* the horizontal quantity of every series, -1: time */
  GArray *series;  /* Series */
} Plot;

struct _LwPlotPage {
  GtkBox parent_instance;
  GtkWidget *group_dropdown, *y_dropdown, *x_dropdown, *plots_box;
  GtkStringList *group_list, *y_list, *x_list;
  GArray *group_of_row;    /* group index of each group_dropdown row */
  GArray *y_rows;          /* quantity of each y_dropdown row */
  GArray *quantities;      /* Quantity */
  GPtrArray *plots;        /* Plot */
  LwSimRunner *runner;
  lw_data *data;           /* poses of the recorded frames (points) */
  guint plotted;           /* frames already plotted */
  GtkAdjustment *time_adj;
  GtkWidget *view3d;
  double press_x, press_y;
  gboolean syncing;
  Comparison *cmp;         /* NULL: none */
  GArray *event_times;     /* double: marked on every plot against time */
};

G_DEFINE_FINAL_TYPE(LwPlotPage, lw_plot_page, GTK_TYPE_BOX)

static Quantity *quantity(LwPlotPage *self, int q)
{
  return &g_array_index(self->quantities, Quantity, q);
}

static void quantity_clear(gpointer p)
{
  Quantity *q = p;
  g_free(q->label);
  g_free(q->unit);
  g_free(q->name);
}

static void comparison_free(Comparison *c)
{
  if (!c)
    return;
  g_hash_table_unref(c->cols);
  g_free(c->table);
  g_free(c->label);
  g_free(c);
}

static void plot_free(gpointer p)
{
  Plot *pl = p;
  g_array_unref(pl->series);
  g_free(pl);
}

static LwPlot *plot_of(const Plot *pl)
{
  return lw_plot_view_get_plot(LW_PLOT_VIEW(pl->view));
}

lw_model *lw_plot_page_compile(const lw_desc *desc, lw_error *err)
{
  lw_desc *copy = lw_desc_copy(desc);
  lw_desc_add_builtin_outputs(copy);
  lw_model *m = lw_compile(copy, err);
  lw_desc_free(copy);
  if (!m) {
    g_warning("the built-in outputs do not compile (%s): plotting the model's own", err->msg);
    m = lw_compile(desc, err);
  }
  return m;
}

/* ---- values ---------------------------------------------------------------- */
/* frames first .. first + n - 1 of quantity q (-1: time) into dst */
static void quantity_values(LwPlotPage *self, int q, guint first, guint n, double *dst)
{
  if (q < 0 || quantity(self, q)->col >= 0) {
    lw_sim_runner_copy_column(self->runner, q < 0 ? -1 : quantity(self, q)->col, first, n, dst);
    return;
  }
  const Quantity *qu = quantity(self, q);
  const lw_model *m = lw_sim_runner_get_model(self->runner);
  double *qv = g_new0(double, lw_model_nq(m) + 1), t, o[3], R[9];
  for (guint k = 0; k < n; k++) {
    dst[k] = NAN;
    if (!lw_sim_runner_get_frame(self->runner, first + k, &t, qv, NULL))
      continue;
    lw_data_set_state(m, self->data, t, qv, NULL, NULL, NULL);
    lw_body_pose(m, self->data, qu->body, o, R);
    int i = qu->comp;
    dst[k] = o[i] + R[3 * i] * qu->p[0] + R[3 * i + 1] * qu->p[1] + R[3 * i + 2] * qu->p[2];
  }
  g_free(qv);
}

static void fill_series(LwPlotPage *self, const Plot *pl, const Series *s, guint first, guint n)
{
  double *x = g_new(double, n), *y = g_new(double, n);
  quantity_values(self, s->xq, first, n, x);
  quantity_values(self, s->yq, first, n, y);
  lw_plot_series_append_many(plot_of(pl), s->series, x, y, n);
  g_free(x);
  g_free(y);
}

void lw_plot_page_update(LwPlotPage *self, guint nframes)
{
  g_return_if_fail(LW_IS_PLOT_PAGE(self));
  if (!self->runner || nframes <= self->plotted)
    return;
  for (guint i = 0; i < self->plots->len; i++) {
    Plot *pl = g_ptr_array_index(self->plots, i);
    for (guint k = 0; k < pl->series->len; k++)
      fill_series(self, pl, &g_array_index(pl->series, Series, k), self->plotted, nframes - self->plotted);
    lw_plot_view_queue_update(LW_PLOT_VIEW(pl->view));
  }
  self->plotted = nframes;
}

void lw_plot_page_rewind(LwPlotPage *self)
{
  g_return_if_fail(LW_IS_PLOT_PAGE(self));
  for (guint i = 0; i < self->plots->len; i++) {
    Plot *pl = g_ptr_array_index(self->plots, i);
    for (guint k = 0; k < pl->series->len; k++)
      lw_plot_series_clear(plot_of(pl), g_array_index(pl->series, Series, k).series);
  }
  self->plotted = 0;
  lw_plot_page_update(self, 1);
}

/* ---- plots ----------------------------------------------------------------- */
static void time_changed_cb(GtkAdjustment *adj, LwPlotPage *self);

/* a plot against time moved its time axis: the others follow */
static void view_changed_cb(LwPlotView *view, LwPlotPage *self)
{
  if (self->syncing)
    return;
  Plot *src = NULL;
  for (guint i = 0; i < self->plots->len; i++)
    if (((Plot *)g_ptr_array_index(self->plots, i))->view == GTK_WIDGET(view))
      src = g_ptr_array_index(self->plots, i);
  if (!src || src->xq != -1)
    return;
  LwPlot *sp = plot_of(src);
  double x0, x1;
  lw_plot_get_view(sp, &x0, &x1, NULL, NULL);
  gboolean automatic = lw_plot_is_autoscaled(sp);
  self->syncing = TRUE;
  for (guint i = 0; i < self->plots->len; i++) {
    Plot *pl = g_ptr_array_index(self->plots, i);
    if (pl == src || pl->xq != -1)
      continue;
    if (automatic)
      lw_plot_reset_view(plot_of(pl));
    else
      lw_plot_set_x_range(plot_of(pl), x0, x1);
    lw_plot_view_queue_update(LW_PLOT_VIEW(pl->view));
  }
  self->syncing = FALSE;
}

static Plot *plot_new(LwPlotPage *self)
{
  Plot *pl = g_new0(Plot, 1);
  pl->view = lw_plot_view_new();
  pl->xq = -1;
  pl->series = g_array_new(FALSE, FALSE, sizeof(Series));
  gtk_widget_set_vexpand(pl->view, TRUE);
  g_signal_connect(pl->view, "view-changed", G_CALLBACK(view_changed_cb), self);
  gtk_box_append(GTK_BOX(self->plots_box), pl->view);
  g_ptr_array_add(self->plots, pl);
  if (self->time_adj)
    time_changed_cb(self->time_adj, self);
  return pl;
}

void lw_plot_page_clear(LwPlotPage *self)
{
  g_return_if_fail(LW_IS_PLOT_PAGE(self));
  while (self->plots->len > 1) {
    Plot *pl = g_ptr_array_index(self->plots, self->plots->len - 1);
    gtk_box_remove(GTK_BOX(self->plots_box), pl->view);
    g_ptr_array_remove_index(self->plots, self->plots->len - 1);
  }
  if (!self->plots->len)
    plot_new(self);
  Plot *pl = g_ptr_array_index(self->plots, 0);
  LwPlot *plot = plot_of(pl);
  while (lw_plot_get_n_series(plot) > 0)
    lw_plot_remove_series(plot, 0);
  g_array_set_size(pl->series, 0);
  pl->xq = -1;
  lw_plot_set_title(plot, NULL);
  lw_plot_set_x_label(plot, NULL);
  lw_plot_set_y_label(plot, NULL);
  lw_plot_set_equal_aspect(plot, FALSE);
  lw_plot_reset_view(plot);
  lw_plot_view_queue_update(LW_PLOT_VIEW(pl->view));
}

static char *axis_label(LwPlotPage *self, int q)
{
  if (q < 0)
    return g_strdup(_("t [s]"));
  const Quantity *qu = quantity(self, q);
  return *qu->unit ? g_strdup_printf("%s [%s]", qu->label, qu->unit) : g_strdup(qu->label);
}

/* the series' units on the vertical axis, when they agree */
static void label_y_axis(LwPlotPage *self, Plot *pl)
{
  const char *unit = NULL;
  for (guint k = 0; k < pl->series->len; k++) {
    const char *u = quantity(self, g_array_index(pl->series, Series, k).yq)->unit;
    if (unit && g_strcmp0(unit, u))
      unit = "";
    else if (!unit)
      unit = u;
  }
  g_autofree char *label = unit && *unit ? g_strdup_printf("[%s]", unit) : NULL;
  lw_plot_set_y_label(plot_of(pl), label);
}

/* the comparison's column of quantity q (-1: time), -1 when it has none */
static int comparison_col(LwPlotPage *self, int q)
{
  if (q < 0)
    return 0;
  const Quantity *qu = quantity(self, q);
  gpointer v = qu->name ? g_hash_table_lookup(self->cmp->cols, qu->name) : NULL;
  return v ? GPOINTER_TO_INT(v) : -1;
}

/* the comparison run's series beside s (dashed, in its colour), when the
 * comparison has both of its quantities */
static void add_comparison_series(LwPlotPage *self, Plot *pl, Series *s)
{
  if (!self->cmp || s->cmp >= 0)
    return;
  int cx = comparison_col(self, s->xq), cy = comparison_col(self, s->yq);
  if (cx < 0 || cy < 0)
    return;
  LwPlot *plot = plot_of(pl);
  g_autofree char *name = g_strdup_printf("%s (%s)", lw_plot_series_get_name(plot, s->series), self->cmp->label);
  guint k = lw_plot_add_series(plot, name);
  LwPlotColor c = lw_plot_series_get_color(plot, s->series);
  lw_plot_series_set_color(plot, k, &c);
  lw_plot_series_set_dashed(plot, k, TRUE);
  const Comparison *cmp = self->cmp;
  for (long r = 0; r < cmp->rows; r++)
    lw_plot_series_append(plot, k, cmp->table[r * cmp->ncols + cx], cmp->table[r * cmp->ncols + cy]);
  s->cmp = (int)k;
}

/* the event marks on a plot against time (none on the others) */
static void apply_marks(LwPlotPage *self, Plot *pl)
{
  LwPlot *plot = plot_of(pl);
  if (pl->xq == -1 && self->event_times->len)
    lw_plot_set_marks(plot, (const double *)(void *)self->event_times->data, self->event_times->len);
  else
    lw_plot_set_marks(plot, NULL, 0);
}

static void add_series(LwPlotPage *self, Plot *pl, int xq, int yq)
{
  LwPlot *plot = plot_of(pl);
  const Quantity *y = quantity(self, yq);
  /* every series up to the newest frame, then the new one as far */
  guint n = self->runner ? lw_sim_runner_get_n_frames(self->runner) : 0;
  lw_plot_page_update(self, n);
  g_autofree char *name =
    xq < 0 ? g_strdup(y->label) : g_strdup_printf(_("%s vs %s"), y->label, quantity(self, xq)->label);
  Series s = {xq, yq, lw_plot_add_series(plot, name), -1};
  add_comparison_series(self, pl, &s);
  g_array_append_val(pl->series, s);
  pl->xq = xq;
  g_autofree char *xl = axis_label(self, xq);
  lw_plot_set_x_label(plot, xl);
  label_y_axis(self, pl);
  /* one metre as long across as up: a coupler curve keeps its shape */
  lw_plot_set_equal_aspect(plot, xq >= 0 && *y->unit && !g_strcmp0(y->unit, quantity(self, xq)->unit));
  if (self->plotted)
    fill_series(self, pl, &s, 0, self->plotted);
  apply_marks(self, pl);
  /* the time cursor only on a plot against time (a plot starts as one) */
  if (self->time_adj)
    time_changed_cb(self->time_adj, self);
  lw_plot_view_queue_update(LW_PLOT_VIEW(pl->view));
}

static int chosen_y(LwPlotPage *self)
{
  guint r = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->y_dropdown));
  return r < self->y_rows->len ? g_array_index(self->y_rows, int, r) : -1;
}

static int chosen_x(LwPlotPage *self)
{
  guint r = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->x_dropdown));
  return r == GTK_INVALID_LIST_POSITION || r == 0 || r > self->quantities->len ? -1 : (int)r - 1;
}

gboolean lw_plot_page_add_chosen(LwPlotPage *self, gboolean new_plot)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self), FALSE);
  int yq = chosen_y(self), xq = chosen_x(self);
  if (yq < 0)
    return FALSE;
  Plot *pl = g_ptr_array_index(self->plots, self->plots->len - 1);
  if (pl->series->len && (new_plot || pl->xq != xq))
    pl = plot_new(self);
  lw_plot_set_title(plot_of(pl), NULL);
  add_series(self, pl, xq, yq);
  return TRUE;
}

/* ---- the chooser ----------------------------------------------------------- */
static void fill_y_list(LwPlotPage *self)
{
  guint r = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->group_dropdown));
  int g = r < self->group_of_row->len ? g_array_index(self->group_of_row, int, r) : -1;
  g_array_set_size(self->y_rows, 0);
  GPtrArray *labels = g_ptr_array_new();
  for (guint q = 0; q < self->quantities->len; q++)
    if ((int)quantity(self, (int)q)->group == g) {
      int qi = (int)q;
      g_array_append_val(self->y_rows, qi);
      g_ptr_array_add(labels, quantity(self, qi)->label);
    }
  g_ptr_array_add(labels, NULL);
  lw_panel_set_strings(self->y_list, (const char *const *)labels->pdata);
  g_ptr_array_free(labels, TRUE);
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->y_dropdown), 0);
}

static void group_changed_cb(GObject *dropdown, GParamSpec *pspec, LwPlotPage *self)
{
  (void)dropdown;
  (void)pspec;
  fill_y_list(self);
}

/* the group rows (the groups that have quantities) and the x list */
static void fill_chooser(LwPlotPage *self, Group show)
{
  gboolean used[N_GROUPS] = {FALSE};
  for (guint q = 0; q < self->quantities->len; q++)
    used[quantity(self, (int)q)->group] = TRUE;
  g_array_set_size(self->group_of_row, 0);
  guint row = 0;
  /* each list replaced in one splice: one change for the drop-downs */
  const char *groups[N_GROUPS + 1];
  for (int g = 0; g < N_GROUPS; g++)
    if (used[g]) {
      if (g == (int)show)
        row = self->group_of_row->len;
      groups[self->group_of_row->len] = _(group_names[g]);
      g_array_append_val(self->group_of_row, g);
    }
  groups[self->group_of_row->len] = NULL;
  g_signal_handlers_block_by_func(self->group_dropdown, group_changed_cb, self);
  lw_panel_set_strings(self->group_list, groups);
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->group_dropdown), row);
  g_signal_handlers_unblock_by_func(self->group_dropdown, group_changed_cb, self);
  fill_y_list(self);
  guint x = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->x_dropdown));
  const char **labels = g_new(const char *, self->quantities->len + 2);
  labels[0] = _("time");
  for (guint q = 0; q < self->quantities->len; q++)
    labels[q + 1] = quantity(self, (int)q)->label;
  labels[self->quantities->len + 1] = NULL;
  lw_panel_set_strings(self->x_list, labels);
  g_free(labels);
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->x_dropdown), x < self->quantities->len + 1 ? x : 0);
}

static Group group_of_output(lw_output_type t)
{
  switch (t) {
  case LW_OUT_JOINT_COORDINATE:
  case LW_OUT_JOINT_VELOCITY:
  case LW_OUT_REACTION_FORCE:
  case LW_OUT_FRICTION_FORCE:
  case LW_OUT_NORMAL_FORCE:
  case LW_OUT_SLIP_SPEED:
  case LW_OUT_FRICTION_WORK:
    return GROUP_JOINTS;
  case LW_OUT_SPRING_LENGTH:
  case LW_OUT_SPRING_FORCE:
    return GROUP_SPRINGS;
  case LW_OUT_CONTROL:
    return GROUP_CONTROLLERS;
  case LW_OUT_POSITION:
  case LW_OUT_BODY_ANGLE:
    return GROUP_POINTS;
  default:
    return GROUP_ENERGY;
  }
}

/* the label of a built-in friction output, "J: friction force" (NULL for
 * any other output, or one whose name is not the joint's and the kind's) */
static char *friction_label(const lw_output_desc *o)
{
  static const struct {
    lw_output_type type;
    const char *suffix, *label;
  } kinds[] = {
    {LW_OUT_FRICTION_FORCE, ".friction_force", N_("%s: friction force")},
    {LW_OUT_NORMAL_FORCE, ".normal_force", N_("%s: normal force")},
    {LW_OUT_SLIP_SPEED, ".slip_speed", N_("%s: slip speed")},
    {LW_OUT_FRICTION_WORK, ".friction_work", N_("%s: friction work")},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(kinds); i++) {
    if (o->type != kinds[i].type || !o->joint)
      continue;
    g_autofree char *internal = g_strconcat(o->joint, kinds[i].suffix, NULL);
    return !g_strcmp0(internal, o->name) ? g_strdup_printf(_(kinds[i].label), o->joint) : NULL;
  }
  return NULL;
}

static void add_column_quantities(LwPlotPage *self, const lw_model *m, int n_user)
{
  const lw_desc *d = lw_model_desc(m);
  for (int k = 0, col = 0; k < lw_model_noutputs(m); k++) {
    int w = lw_model_output_width(m, k);
    for (int i = 0; i < w; i++, col++) {
      char b[300];
      lw_model_output_column_name(m, col, b, sizeof b);
      char *label = k < n_user ? NULL : friction_label(&d->outputs[k]);
      Quantity q = {k < n_user ? GROUP_OUTPUTS : group_of_output(d->outputs[k].type), label ? label : g_strdup(b),
                    g_strdup(lw_model_output_unit(m, k)), col, -1, 0, {0, 0, 0}, g_strdup(b)};
      g_array_append_val(self->quantities, q);
    }
  }
}

void lw_plot_page_set_runner(LwPlotPage *self, LwSimRunner *runner, int n_user)
{
  g_return_if_fail(LW_IS_PLOT_PAGE(self));
  g_set_object(&self->runner, runner);
  g_clear_pointer(&self->data, lw_data_free);
  g_clear_pointer(&self->cmp, comparison_free); /* of the model before */
  g_array_set_size(self->event_times, 0);
  g_array_set_size(self->quantities, 0);
  self->plotted = 0;
  const lw_model *m = runner ? lw_sim_runner_get_model(runner) : NULL;
  if (m) {
    self->data = lw_data_new(m);
    add_column_quantities(self, m, n_user);
  }
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->x_dropdown), 0);
  fill_chooser(self, n_user > 0 ? GROUP_OUTPUTS : GROUP_JOINTS);
  lw_plot_page_clear(self);
  if (!m || n_user <= 0)
    return;
  /* by default the model's first output, every component, against time */
  Plot *pl = g_ptr_array_index(self->plots, 0);
  for (int c = 0; c < lw_model_output_width(m, 0); c++)
    add_series(self, pl, -1, c);
  lw_plot_set_title(plot_of(pl), lw_model_output_name(m, 0));
}

int lw_plot_page_add_point(LwPlotPage *self, int body, const double p[3], const char *name)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self), -1);
  static const char *const axes[3] = {"x", "y", "z"};
  int first = (int)self->quantities->len;
  int nd = self->runner && lw_model_planar(lw_sim_runner_get_model(self->runner)) ? 2 : 3;
  for (int i = 0; i < nd; i++) {
    Quantity q = {GROUP_POINTS, g_strdup_printf("%s.%s", name, axes[i]), g_strdup("m"), -1, body, i,
                  {p[0], p[1], p[2]}, NULL};
    g_array_append_val(self->quantities, q);
  }
  fill_chooser(self, GROUP_POINTS);
  for (guint r = 0; r < self->y_rows->len; r++)
    if (g_array_index(self->y_rows, int, r) == first)
      gtk_drop_down_set_selected(GTK_DROP_DOWN(self->y_dropdown), r);
  return first;
}

static int find_label(LwPlotPage *self, const char *label)
{
  for (guint q = 0; q < self->quantities->len; q++)
    if (!g_strcmp0(quantity(self, (int)q)->label, label))
      return (int)q;
  return -1;
}

gboolean lw_plot_page_choose(LwPlotPage *self, const char *label, const char *against)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self), FALSE);
  int yq = find_label(self, label);
  int xq = against && g_strcmp0(against, "time") ? find_label(self, against) : -1;
  if (yq < 0 || (against && g_strcmp0(against, "time") && xq < 0))
    return FALSE;
  lw_plot_page_show_group(self, group_names[quantity(self, yq)->group]);
  for (guint r = 0; r < self->y_rows->len; r++)
    if (g_array_index(self->y_rows, int, r) == yq)
      gtk_drop_down_set_selected(GTK_DROP_DOWN(self->y_dropdown), r);
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->x_dropdown), (guint)(xq + 1));
  return TRUE;
}

gboolean lw_plot_page_show_group(LwPlotPage *self, const char *group)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self), FALSE);
  for (guint r = 0; r < self->group_of_row->len; r++) {
    int g = g_array_index(self->group_of_row, int, r);
    if (!g_strcmp0(group_names[g], group) || !g_strcmp0(_(group_names[g]), group)) {
      gtk_drop_down_set_selected(GTK_DROP_DOWN(self->group_dropdown), r);
      return TRUE;
    }
  }
  return FALSE;
}

GStrv lw_plot_page_dup_groups(LwPlotPage *self)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self), NULL);
  GStrvBuilder *b = g_strv_builder_new();
  for (guint r = 0; r < self->group_of_row->len; r++)
    g_strv_builder_add(b, group_names[g_array_index(self->group_of_row, int, r)]);
  GStrv v = g_strv_builder_end(b);
  g_strv_builder_unref(b);
  return v;
}

GStrv lw_plot_page_dup_group_labels(LwPlotPage *self, const char *group)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self), NULL);
  GStrvBuilder *b = g_strv_builder_new();
  for (guint q = 0; q < self->quantities->len; q++)
    if (!g_strcmp0(group_names[quantity(self, (int)q)->group], group))
      g_strv_builder_add(b, quantity(self, (int)q)->label);
  GStrv v = g_strv_builder_end(b);
  g_strv_builder_unref(b);
  return v;
}

guint lw_plot_page_get_n_plots(LwPlotPage *self)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self), 0);
  return self->plots->len;
}

GtkWidget *lw_plot_page_get_plot_view(LwPlotPage *self, guint i)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self) && i < self->plots->len, NULL);
  return ((Plot *)g_ptr_array_index(self->plots, i))->view;
}

GtkWidget *lw_plot_page_get_current_view(LwPlotPage *self)
{
  return lw_plot_page_get_plot_view(self, self->plots->len - 1);
}

/* ---- the time cursor ------------------------------------------------------- */
static void time_changed_cb(GtkAdjustment *adj, LwPlotPage *self)
{
  double t = gtk_adjustment_get_value(adj);
  for (guint i = 0; i < self->plots->len; i++) {
    Plot *pl = g_ptr_array_index(self->plots, i);
    LwPlot *plot = plot_of(pl);
    double c = pl->xq == -1 ? t : NAN, old = lw_plot_get_cursor(plot);
    if (c == old || (isnan(c) && isnan(old)))
      continue;
    lw_plot_set_cursor(plot, c);
    gtk_widget_queue_draw(pl->view);
  }
}

void lw_plot_page_set_time_adjustment(LwPlotPage *self, GtkAdjustment *adj)
{
  g_return_if_fail(LW_IS_PLOT_PAGE(self));
  if (self->time_adj)
    g_signal_handlers_disconnect_by_func(self->time_adj, time_changed_cb, self);
  g_set_object(&self->time_adj, adj);
  if (adj) {
    g_signal_connect(adj, "value-changed", G_CALLBACK(time_changed_cb), self);
    time_changed_cb(adj, self);
  }
}

/* ---- points clicked in the 3-D view ---------------------------------------- */
static void view_pressed_cb(GtkGestureClick *g, int n, double x, double y, LwPlotPage *self)
{
  (void)g;
  (void)n;
  self->press_x = x;
  self->press_y = y;
}

/* the point of body b under pixel (x, y): where the ray through it meets
 * the plane through the body's origin facing the camera (planar models:
 * the plane of motion) */
static gboolean body_point_at(LwPlotPage *self, int b, double x, double y, double p[3])
{
  const lw_model *m = lw_sim_runner_get_model(self->runner);
  double t = self->time_adj ? gtk_adjustment_get_value(self->time_adj) : 0, tk, o[3], R[9], e[3], dir[3];
  double *qv = g_new0(double, lw_model_nq(m) + 1);
  gboolean ok = lw_sim_runner_get_frame(self->runner, lw_sim_runner_frame_at_time(self->runner, t), &tk, qv, NULL);
  if (ok) {
    lw_data_set_state(m, self->data, tk, qv, NULL, NULL, NULL);
    lw_body_pose(m, self->data, b, o, R);
  }
  g_free(qv);
  if (!ok)
    return FALSE;
  lw_camera cam;
  lw_view3d_get_camera(LW_VIEW3D(self->view3d), &cam);
  int w = gtk_widget_get_width(self->view3d), h = gtk_widget_get_height(self->view3d);
  lw_camera_ray(&cam, w, h, x, y, e, dir);
  double right[3], up[3], n[3];
  lw_camera_axes(&cam, right, up, n);
  if (lw_model_planar(m))
    n[0] = n[1] = 0, n[2] = 1;
  double den = dir[0] * n[0] + dir[1] * n[1] + dir[2] * n[2];
  if (fabs(den) < 1e-12)
    return FALSE;
  double s = ((o[0] - e[0]) * n[0] + (o[1] - e[1]) * n[1] + (o[2] - e[2]) * n[2]) / den, wpt[3];
  for (int i = 0; i < 3; i++)
    wpt[i] = e[i] + s * dir[i] - o[i];
  /* body coordinates: R^T (w - o) */
  for (int j = 0; j < 3; j++)
    p[j] = R[j] * wpt[0] + R[3 + j] * wpt[1] + R[6 + j] * wpt[2];
  if (lw_model_planar(m))
    p[2] = 0;
  return TRUE;
}

static void view_released_cb(GtkGestureClick *g, int n, double x, double y, LwPlotPage *self)
{
  (void)g;
  if (n != 1 || !self->runner || hypot(x - self->press_x, y - self->press_y) > 3)
    return;
  lw_pick pk;
  if (!lw_view3d_pick(LW_VIEW3D(self->view3d), x, y, &pk) || pk.kind != LW_PICK_BODY)
    return;
  double p[3];
  if (!body_point_at(self, pk.index, x, y, p))
    return;
  const lw_desc *d = lw_model_desc(lw_sim_runner_get_model(self->runner));
  g_autofree char *name = g_strdup_printf("%s(%.3g, %.3g%s)", d->bodies[pk.index].name, p[0], p[1],
                                          lw_model_planar(lw_sim_runner_get_model(self->runner)) ? "" : ", …");
  g_autofree char *xname = g_strconcat(name, ".x", NULL);
  if (find_label(self, xname) < 0)
    lw_plot_page_add_point(self, pk.index, p, name);
}

void lw_plot_page_watch_view(LwPlotPage *self, GtkWidget *view3d)
{
  g_return_if_fail(LW_IS_PLOT_PAGE(self));
  self->view3d = view3d;
  GtkGesture *click = gtk_gesture_click_new();
  gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase(GTK_EVENT_CONTROLLER(click), GTK_PHASE_CAPTURE);
  g_signal_connect(click, "pressed", G_CALLBACK(view_pressed_cb), self);
  g_signal_connect(click, "released", G_CALLBACK(view_released_cb), self);
  gtk_widget_add_controller(view3d, GTK_EVENT_CONTROLLER(click));
}

/* ---- GObject --------------------------------------------------------------- */
static void new_plot_clicked_cb(GtkButton *button, LwPlotPage *self)
{
  (void)button;
  lw_plot_page_add_chosen(self, TRUE);
}

static GtkWidget *searchable_dropdown(GtkStringList *list, const char *tooltip, const char *a11y)
{
  GtkWidget *dd = gtk_drop_down_new(G_LIST_MODEL(g_object_ref(list)), NULL);
  gtk_drop_down_set_expression(GTK_DROP_DOWN(dd),
                               gtk_property_expression_new(GTK_TYPE_STRING_OBJECT, NULL, "string"));
  gtk_drop_down_set_enable_search(GTK_DROP_DOWN(dd), TRUE);
  gtk_widget_set_tooltip_text(dd, tooltip);
  gtk_accessible_update_property(GTK_ACCESSIBLE(dd), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  lw_panel_name_inner_buttons(dd, a11y);
  return dd;
}

static GtkWidget *icon_button(const char *icon, const char *action, const char *tooltip, const char *a11y)
{
  GtkWidget *b = gtk_button_new_from_icon_name(icon);
  if (action)
    gtk_actionable_set_action_name(GTK_ACTIONABLE(b), action);
  gtk_widget_set_tooltip_text(b, tooltip);
  gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  return b;
}

static void lw_plot_page_build(LwPlotPage *self)
{
  GtkWidget *row1 = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6), *row2 = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  for (GtkWidget **r = (GtkWidget *[]){row1, row2, NULL}; *r; r++) {
    gtk_widget_set_margin_start(*r, 6);
    gtk_widget_set_margin_end(*r, 6);
  }
  self->group_dropdown = gtk_drop_down_new(G_LIST_MODEL(g_object_ref(self->group_list)), NULL);
  gtk_widget_set_tooltip_text(self->group_dropdown, _("Kind of quantity"));
  gtk_accessible_update_property(GTK_ACCESSIBLE(self->group_dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                 _("Plot quantity group"), -1);
  lw_panel_name_inner_buttons(self->group_dropdown, _("Plot quantity group"));
  g_signal_connect(self->group_dropdown, "notify::selected", G_CALLBACK(group_changed_cb), self);
  self->y_dropdown = searchable_dropdown(self->y_list, _("Quantity to plot (type to search)"), _("Plot quantity"));
  gtk_widget_set_hexpand(self->y_dropdown, TRUE);
  gtk_box_append(GTK_BOX(row1), self->group_dropdown);
  gtk_box_append(GTK_BOX(row1), self->y_dropdown);

  GtkWidget *against = gtk_label_new(_("against"));
  gtk_widget_add_css_class(against, "dim-label");
  self->x_dropdown =
    searchable_dropdown(self->x_list, _("Horizontal axis: time or another quantity (type to search)"), _("Plot against"));
  gtk_widget_set_hexpand(self->x_dropdown, TRUE);
  GtkWidget *add = icon_button("list-add-symbolic", "win.add-series", _("Add the series to the last plot (Ctrl+Shift+A)"),
                               _("Add series"));
  GtkWidget *stack = icon_button("view-paged-symbolic", NULL, _("Add the series in a new plot below"),
                                 _("Add series in a new plot"));
  g_signal_connect(stack, "clicked", G_CALLBACK(new_plot_clicked_cb), self);
  GtkWidget *clear = icon_button("edit-clear-all-symbolic", "win.clear-plot", _("Remove every plot (Ctrl+Shift+K)"),
                                 _("Clear plot"));
  gtk_box_append(GTK_BOX(row2), against);
  gtk_box_append(GTK_BOX(row2), self->x_dropdown);
  gtk_box_append(GTK_BOX(row2), add);
  gtk_box_append(GTK_BOX(row2), stack);
  gtk_box_append(GTK_BOX(row2), clear);

  self->plots_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
  gtk_box_set_homogeneous(GTK_BOX(self->plots_box), TRUE);
  gtk_widget_set_vexpand(self->plots_box, TRUE);
  gtk_box_append(GTK_BOX(self), row1);
  gtk_box_append(GTK_BOX(self), row2);
  gtk_box_append(GTK_BOX(self), self->plots_box);
}

static void lw_plot_page_dispose(GObject *object)
{
  LwPlotPage *self = LW_PLOT_PAGE(object);
  lw_plot_page_set_time_adjustment(self, NULL);
  g_clear_object(&self->runner);
  g_clear_pointer(&self->cmp, comparison_free);
  G_OBJECT_CLASS(lw_plot_page_parent_class)->dispose(object);
}

static void lw_plot_page_finalize(GObject *object)
{
  LwPlotPage *self = LW_PLOT_PAGE(object);
  g_clear_pointer(&self->data, lw_data_free);
  g_array_unref(self->quantities);
  g_array_unref(self->group_of_row);
  g_array_unref(self->y_rows);
  g_array_unref(self->event_times);
  g_ptr_array_unref(self->plots);
  g_object_unref(self->group_list);
  g_object_unref(self->y_list);
  g_object_unref(self->x_list);
  G_OBJECT_CLASS(lw_plot_page_parent_class)->finalize(object);
}

static void lw_plot_page_class_init(LwPlotPageClass *klass)
{
  G_OBJECT_CLASS(klass)->dispose = lw_plot_page_dispose;
  G_OBJECT_CLASS(klass)->finalize = lw_plot_page_finalize;
}

static void lw_plot_page_init(LwPlotPage *self)
{
  gtk_orientable_set_orientation(GTK_ORIENTABLE(self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing(GTK_BOX(self), 6);
  self->quantities = g_array_new(FALSE, FALSE, sizeof(Quantity));
  g_array_set_clear_func(self->quantities, quantity_clear);
  self->group_of_row = g_array_new(FALSE, FALSE, sizeof(int));
  self->y_rows = g_array_new(FALSE, FALSE, sizeof(int));
  self->event_times = g_array_new(FALSE, FALSE, sizeof(double));
  self->plots = g_ptr_array_new_with_free_func(plot_free);
  self->group_list = gtk_string_list_new(NULL);
  self->y_list = gtk_string_list_new(NULL);
  self->x_list = gtk_string_list_new(NULL);
  lw_plot_page_build(self);
  plot_new(self);
}

GtkWidget *lw_plot_page_new(void)
{
  return g_object_new(LW_TYPE_PLOT_PAGE, NULL);
}

/* ---- friction and events ------------------------------------------------------- */
void lw_plot_page_set_comparison(LwPlotPage *self, const lw_model *m, const double *table, long rows, int ncols,
                                 const char *label)
{
  g_return_if_fail(LW_IS_PLOT_PAGE(self));
  g_clear_pointer(&self->cmp, comparison_free);
  for (guint i = 0; i < self->plots->len; i++) {
    Plot *pl = g_ptr_array_index(self->plots, i);
    for (guint k = 0; k < pl->series->len; k++)
      g_array_index(pl->series, Series, k).cmp = -1;
  }
  if (!m || !table || rows <= 0)
    return;
  Comparison *c = g_new0(Comparison, 1);
  c->cols = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (int col = 0; col + 1 < ncols && col < lw_model_output_columns(m); col++) {
    char b[300];
    lw_model_output_column_name(m, col, b, sizeof b);
    g_hash_table_insert(c->cols, g_strdup(b), GINT_TO_POINTER(col + 1));
  }
  c->table = g_memdup2(table, sizeof(double) * (gsize)rows * (gsize)ncols);
  c->rows = rows;
  c->ncols = ncols;
  c->label = g_strdup(label);
  self->cmp = c;
  for (guint i = 0; i < self->plots->len; i++) {
    Plot *pl = g_ptr_array_index(self->plots, i);
    for (guint k = 0; k < pl->series->len; k++)
      add_comparison_series(self, pl, &g_array_index(pl->series, Series, k));
    lw_plot_view_queue_update(LW_PLOT_VIEW(pl->view));
  }
}

gboolean lw_plot_page_has_comparison(LwPlotPage *self)
{
  g_return_val_if_fail(LW_IS_PLOT_PAGE(self), FALSE);
  return self->cmp != NULL;
}

void lw_plot_page_set_event_times(LwPlotPage *self, const double *t, guint n)
{
  g_return_if_fail(LW_IS_PLOT_PAGE(self));
  g_array_set_size(self->event_times, 0);
  if (n)
    g_array_append_vals(self->event_times, t, n);
  for (guint i = 0; i < self->plots->len; i++) {
    Plot *pl = g_ptr_array_index(self->plots, i);
    apply_marks(self, pl);
    lw_plot_view_queue_update(LW_PLOT_VIEW(pl->view));
  }
}
