/* lw-inspector.c: the inspector panel (see lw-inspector.h).
 *
 * The page is described by the same functions in three passes: one that
 * only lists its groups and rows (its shape), one that builds them, one
 * that sets the values of the rows already there.  A new model whose page
 * has the shape of the one shown (an edited value, a parameter changed) is
 * shown by the third: no row is built again.  An array of parameters
 * (u[0], u[1]...) is one row that opens onto a list, which makes only the
 * rows on screen. */
#include "lw-inspector.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

typedef enum { PASS_SHAPE, PASS_BUILD, PASS_UPDATE } Pass;

struct _LwInspector {
  GtkWidget parent_instance;
  GtkWidget *scroller;
  GtkWidget *box;        /* the groups */
  lw_desc *desc;         /* compiled copy (parameters applied) */
  int dof;
  char *selection;
  int ncols;
  GPtrArray *out_labels; /* (ncols) value labels of the outputs */
  GtkWidget *time_row;
  GHashTable *rows;      /* title -> value label (lookup) */
  Pass pass;
  GString *shape;        /* what PASS_SHAPE lists */
  char *shown_shape;     /* the shape of the page shown */
  guint rebuild_idle;
};

G_DEFINE_FINAL_TYPE(LwInspector, lw_inspector, GTK_TYPE_WIDGET)

static void clear_groups(LwInspector *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(self->box)))
    gtk_box_remove(GTK_BOX(self->box), child);
  g_ptr_array_set_size(self->out_labels, 0);
  g_hash_table_remove_all(self->rows);
  self->time_row = NULL;
}

static GtkWidget *group_new(LwInspector *self, const char *title, const char *description)
{
  if (self->pass == PASS_SHAPE)
    g_string_append_printf(self->shape, "G\x1f%s\x1f%s\n", title, description ? description : "");
  if (self->pass != PASS_BUILD)
    return NULL;
  /* a group's title and description are markup: names and a model's
   * description are text ("tan 0.1 < mu_s", "A & B") */
  GtkWidget *g = adw_preferences_group_new();
  g_autofree char *et = g_markup_escape_text(title, -1);
  adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(g), et);
  if (description) {
    g_autofree char *ed = g_markup_escape_text(description, -1);
    adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(g), ed);
  }
  gtk_box_append(GTK_BOX(self->box), g);
  return g;
}

/* a row: title and subtitle on the left, the widget that shows its value
 * on the right */
static GtkWidget *row_add_widget(LwInspector *self, GtkWidget *group, const char *title, const char *subtitle,
                                 GtkWidget *value)
{
  GtkWidget *row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
  adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
  if (subtitle)
    adw_action_row_set_subtitle(ADW_ACTION_ROW(row), subtitle);
  gtk_widget_add_css_class(value, "numeric");
  /* its accessible name is its text; the row's title says what it is */
  adw_action_row_add_suffix(ADW_ACTION_ROW(row), value);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
  g_hash_table_replace(self->rows, g_strdup(title), value);
  return value;
}

/* a selectable value */
/* a short value ("5 s") stays on one line: a row gives a wrapping label
 * only its narrowest width, which broke it at every space */
static gboolean value_wraps(const char *value)
{
  return value && g_utf8_strlen(value, -1) > 24;
}

static GtkWidget *row_add(LwInspector *self, GtkWidget *group, const char *title, const char *subtitle,
                          const char *value)
{
  if (self->pass == PASS_SHAPE) {
    g_string_append_printf(self->shape, "R\x1f%s\x1f%s\n", title, subtitle ? subtitle : "");
    return NULL;
  }
  if (self->pass == PASS_UPDATE) {
    GtkWidget *l = g_hash_table_lookup(self->rows, title);
    if (l && GTK_IS_LABEL(l) && g_strcmp0(gtk_label_get_text(GTK_LABEL(l)), value)) {
      gtk_label_set_text(GTK_LABEL(l), value);
      gtk_label_set_wrap(GTK_LABEL(l), value_wraps(value));
    }
    return l;
  }
  GtkWidget *label = gtk_label_new(value);
  gtk_label_set_selectable(GTK_LABEL(label), TRUE);
  gtk_label_set_xalign(GTK_LABEL(label), 1);
  gtk_label_set_wrap(GTK_LABEL(label), value_wraps(value));
  gtk_label_set_max_width_chars(GTK_LABEL(label), 28);
  return row_add_widget(self, group, title, subtitle, label);
}

/* a value that changes with every frame of a run: an inscription, whose
 * size does not follow its text, so that a new value redraws the row
 * without laying out the window again (a label would, at every frame) */
static GtkWidget *row_add_live(LwInspector *self, GtkWidget *group, const char *title, const char *subtitle,
                               const char *value)
{
  if (self->pass == PASS_SHAPE)
    g_string_append_printf(self->shape, "L\x1f%s\x1f%s\n", title, subtitle ? subtitle : "");
  if (self->pass != PASS_BUILD)
    return g_hash_table_lookup(self->rows, title);
  GtkWidget *text = gtk_inscription_new(value);
  gtk_inscription_set_min_chars(GTK_INSCRIPTION(text), 13); /* "-1.23457e-05" */
  gtk_inscription_set_xalign(GTK_INSCRIPTION(text), 1);
  return row_add_widget(self, group, title, subtitle, text);
}

static void fmt_num(char *buf, size_t n, double v)
{
  g_snprintf(buf, n, "%.6g", v);
}

static char *fmt_vec(const double *v, int n)
{
  GString *s = g_string_new("(");
  for (int i = 0; i < n; i++) {
    char b[32];
    fmt_num(b, sizeof b, v[i]);
    g_string_append_printf(s, "%s%s", i ? ", " : "", b);
  }
  g_string_append_c(s, ')');
  return g_string_free(s, FALSE);
}

static const char *place_text(const lw_place *pl, char *buf, size_t n, int dim)
{
  if (pl->ref)
    return pl->ref;
  g_autofree char *v = fmt_vec(pl->p, dim);
  g_strlcpy(buf, v, n);
  return buf;
}

static void show_body(LwInspector *self, const lw_body_desc *b)
{
  int dim = self->desc->planar ? 2 : 3;
  char buf[64];
  g_autofree char *title = g_strdup_printf(_("Body %s"), b->name);
  GtkWidget *g = group_new(self, title, NULL);
  fmt_num(buf, sizeof buf, b->mass);
  row_add(self, g, _("Mass"), "kg", buf);
  g_autofree char *com = fmt_vec(b->com, dim);
  row_add(self, g, _("Centre of mass"), _("body frame, m"), com);
  if (self->desc->planar) {
    fmt_num(buf, sizeof buf, b->inertia[2]);
    row_add(self, g, _("Moment of inertia"), _("about the centre of mass, kg m²"), buf);
  } else {
    g_autofree char *in = fmt_vec(b->inertia, 6);
    row_add(self, g, _("Inertia"), _("xx yy zz xy xz yz, kg m²"), in);
  }
  for (int i = 0; i < b->npoints; i++) {
    g_autofree char *v = fmt_vec(b->points[i].p, dim);
    g_autofree char *t = g_strdup_printf(_("Point %s"), b->points[i].name);
    row_add(self, g, t, NULL, v);
  }
  g_snprintf(buf, sizeof buf, "%d", b->ngeoms);
  row_add(self, g, _("Display shapes"), NULL, buf);
}

static void show_beam(LwInspector *self, const lw_beam_desc *b)
{
  int dim = self->desc->planar ? 2 : 3;
  char buf[64];
  g_autofree char *title = g_strdup_printf(_("Beam %s"), b->name);
  GtkWidget *g = group_new(self, title, NULL);
  g_snprintf(buf, sizeof buf, "%d", b->nel);
  row_add(self, g, _("Elements"), NULL, buf);
  row_add(self, g, _("Section"), NULL, lw_section_type_name(b->section));
  double A = 0, I = 0;
  if (lw_beam_section(b, &A, &I) == 0) {
    fmt_num(buf, sizeof buf, A);
    row_add(self, g, _("Area"), "m²", buf);
    fmt_num(buf, sizeof buf, I);
    row_add(self, g, _("Second moment of area"), "m⁴", buf);
  }
  fmt_num(buf, sizeof buf, b->young);
  row_add(self, g, _("Young's modulus"), "Pa", buf);
  fmt_num(buf, sizeof buf, b->density);
  row_add(self, g, _("Density"), "kg/m³", buf);
  g_autofree char *st = fmt_vec(b->start, dim), *en = fmt_vec(b->end, dim);
  row_add(self, g, _("Start"), _("global, m"), st);
  row_add(self, g, _("End"), _("global, m"), en);
}

static void show_joint(LwInspector *self, const lw_joint_desc *j)
{
  char buf[64];
  int dim = self->desc->planar ? 2 : 3;
  g_autofree char *title = g_strdup_printf(_("Joint %s"), j->name);
  GtkWidget *g = group_new(self, title, NULL);
  row_add(self, g, _("Type"), NULL, lw_joint_type_name(j->type));
  row_add(self, g, _("Body 1"), NULL, j->body[0] ? j->body[0] : "ground");
  row_add(self, g, _("Body 2"), NULL, j->body[1] ? j->body[1] : "ground");
  if (j->has_at) {
    g_autofree char *v = fmt_vec(j->at, dim);
    row_add(self, g, _("Location"), _("global, at the start"), v);
  }
  for (int k = 0; k < 2; k++)
    if (j->has_place[k] || j->place[k].ref) {
      g_autofree char *t = g_strdup_printf(_("Place on body %d"), k + 1);
      row_add(self, g, t, NULL, place_text(&j->place[k], buf, sizeof buf, dim));
    }
  g_snprintf(buf, sizeof buf, "%d", lw_joint_ncoords(j->type, self->desc->planar));
  row_add(self, g, _("Coordinates"), NULL, buf);
  if (j->has_friction) {
    /* the law's coefficients and transition speed (the rest: editing) */
    char vt[32];
    if (j->friction[2] > 0)
      g_snprintf(vt, sizeof vt, "%g m/s", j->friction[2]);
    else
      g_strlcpy(vt, "10 h", sizeof vt);
    g_snprintf(buf, sizeof buf, "μs %g · μd %g · v_t %s", j->friction[0], j->friction[1], vt);
  }
  row_add(self, g, _("Friction"), NULL, j->has_friction ? buf : _("none"));
}

static void show_force(LwInspector *self, const lw_force_desc *f)
{
  char buf[64];
  int dim = self->desc->planar ? 2 : 3;
  g_autofree char *title = g_strdup_printf(_("Force %s"), f->name);
  GtkWidget *g = group_new(self, title, NULL);
  row_add(self, g, _("Type"), NULL, lw_force_type_name(f->type));
  switch (f->type) {
  case LW_FORCE_SPRING_DAMPER:
  case LW_FORCE_JOINT_SPRING_DAMPER:
    if (f->type == LW_FORCE_JOINT_SPRING_DAMPER)
      row_add(self, g, _("Joint"), NULL, f->joint ? f->joint : "");
    else
      for (int k = 0; k < 2; k++) {
        g_autofree char *t = g_strdup_printf(_("Body %d"), k + 1);
        g_autofree char *p = g_strdup_printf("%s @ %s", f->body[k] ? f->body[k] : "ground",
                                             place_text(&f->place[k], buf, sizeof buf, dim));
        row_add(self, g, t, NULL, p);
      }
    fmt_num(buf, sizeof buf, f->stiffness);
    row_add(self, g, _("Stiffness"), f->type == LW_FORCE_SPRING_DAMPER ? "N/m" : "N m/rad", buf);
    fmt_num(buf, sizeof buf, f->damping);
    row_add(self, g, _("Damping"), f->type == LW_FORCE_SPRING_DAMPER ? "N s/m" : "N m s/rad", buf);
    fmt_num(buf, sizeof buf, f->rest);
    row_add(self, g, _("Rest value"), f->type == LW_FORCE_SPRING_DAMPER ? "m" : "rad", buf);
    break;
  case LW_FORCE_PID:
  case LW_FORCE_STATE_FEEDBACK: {
    g_autofree char *act = g_strdup_printf("%s.%d", f->joint ? f->joint : "", f->coordinate);
    row_add(self, g, _("Actuates"), NULL, act);
    for (int k = 0; k < f->nfeedback; k++) {
      const lw_feedback_desc *b = &f->feedback[k];
      char kp[32], kd[32], ki[32];
      fmt_num(kp, sizeof kp, b->kp);
      fmt_num(kd, sizeof kd, b->kd);
      fmt_num(ki, sizeof ki, b->ki);
      g_autofree char *t = g_strdup_printf(_("Measures %s.%d (%s)"), b->joint ? b->joint : "", b->coordinate,
                                           b->rate ? _("rate") : _("position"));
      g_autofree char *v = b->rate ? g_strdup_printf("kp %s", kp) : g_strdup_printf("kp %s, kd %s", kp, kd);
      if (b->ki != 0.0) {
        char *w = g_strdup_printf("%s, ki %s", v, ki);
        g_free(v);
        v = w;
      }
      row_add(self, g, t, NULL, v);
    }
    break;
  }
  default: {
    row_add(self, g, _("Body"), NULL, f->body[0] ? f->body[0] : "ground");
    g_autofree char *v = fmt_vec(f->vector, 3);
    row_add(self, g, _("Vector"), f->type == LW_FORCE_TORQUE ? "N m" : "N", v);
    break;
  }
  }
}

/* the run's length, its step (the output interval in the tolerance mode)
 * and how it steps */
static void show_solver(LwInspector *self, GtkWidget *g, const lw_solver_desc *s)
{
  char buf[96];
  gboolean vi = !strcmp(s->integrator, "variational"), tol = s->mode == LW_MODE_TOLERANCE;
  g_snprintf(buf, sizeof buf, "%g s", s->t_end);
  row_add(self, g, _("End time"), NULL, buf);
  g_snprintf(buf, sizeof buf, "%g s", s->step);
  row_add(self, g, tol ? _("Output interval") : _("Time step"), NULL, buf);
  row_add(self, g, _("Integrator"), NULL, vi ? _("variational") : _("ALI3-P"));
  if (tol) {
    g_snprintf(buf, sizeof buf, _("tolerance %g (relative), %g m, order %d"), s->rtol, s->atol, s->order);
    row_add(self, g, _("Step control"), NULL, buf);
  } else if (s->rho_inf < 1) {
    g_snprintf(buf, sizeof buf, "ρ∞ = %g", s->rho_inf);
    row_add(self, g, _("Numerical damping"), NULL, buf);
  }
}

static void show_overview(LwInspector *self)
{
  const lw_desc *d = self->desc;
  char buf[64];
  GtkWidget *g = group_new(self, d->name && *d->name ? d->name : _("Model"), d->description);
  row_add(self, g, _("Kind"), NULL, d->planar ? _("planar") : _("spatial"));
  g_snprintf(buf, sizeof buf, "%d", d->nbodies);
  row_add(self, g, _("Bodies"), NULL, buf);
  g_snprintf(buf, sizeof buf, "%d", d->njoints);
  row_add(self, g, _("Joints"), NULL, buf);
  g_snprintf(buf, sizeof buf, "%d", d->nforces);
  row_add(self, g, _("Forces"), NULL, buf);
  g_snprintf(buf, sizeof buf, "%d", self->dof);
  row_add(self, g, _("Degrees of freedom"), NULL, buf);
  show_solver(self, g, &d->solver);
}

/* the parameter reaches the selection (every one does for the overview) */
static gboolean param_shown(LwInspector *self, const lw_param_desc *p)
{
  if (!self->selection)
    return TRUE;
  size_t n = strlen(self->selection);
  for (int k = 0; k < p->ntargets; k++)
    if (strncmp(p->targets[k], self->selection, n) == 0 && p->targets[k][n] == '/')
      return TRUE;
  return FALSE;
}

static char *targets_text(const lw_param_desc *p)
{
  /* targets is counted, not NULL-terminated */
  GString *targets = g_string_new(NULL);
  for (int k = 0; k < p->ntargets; k++)
    g_string_append_printf(targets, "%s%s", k ? ", " : "", p->targets[k]);
  return g_string_free(targets, FALSE);
}

/* "u" of "u[12]" (NULL when the name is not an element of an array) */
static char *array_base(const char *name)
{
  const char *b = strchr(name, '[');
  return b && b > name && g_str_has_suffix(name, "]") ? g_strndup(name, (gsize)(b - name)) : NULL;
}

/* the rows of an array's list, for the rows on screen only */
static void array_item_setup_cb(GtkSignalListItemFactory *f, GtkListItem *item, gpointer user)
{
  (void)f;
  (void)user;
  GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start(row, 12);
  gtk_widget_set_margin_end(row, 12);
  gtk_widget_set_margin_top(row, 3);
  gtk_widget_set_margin_bottom(row, 3);
  GtkWidget *name = gtk_label_new(NULL), *value = gtk_label_new(NULL);
  gtk_label_set_xalign(GTK_LABEL(name), 0);
  gtk_widget_set_hexpand(name, TRUE);
  gtk_label_set_xalign(GTK_LABEL(value), 1);
  gtk_label_set_selectable(GTK_LABEL(value), TRUE);
  gtk_widget_add_css_class(value, "numeric");
  gtk_box_append(GTK_BOX(row), name);
  gtk_box_append(GTK_BOX(row), value);
  gtk_list_item_set_child(item, row);
}

static void array_item_bind_cb(GtkSignalListItemFactory *f, GtkListItem *item, gpointer user)
{
  LwInspector *self = user;
  int index = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(f), "first")) + (int)gtk_list_item_get_position(item);
  GtkWidget *name = gtk_widget_get_first_child(gtk_list_item_get_child(item));
  if (!self->desc || index >= self->desc->nparams)
    return;
  char buf[64];
  fmt_num(buf, sizeof buf, self->desc->params[index].value);
  gtk_label_set_text(GTK_LABEL(name), self->desc->params[index].name);
  gtk_label_set_text(GTK_LABEL(gtk_widget_get_next_sibling(name)), buf);
}

/* an array of n parameters from first: one row with their range, that
 * opens onto the list of them */
static void show_param_array(LwInspector *self, GtkWidget *g, int first, int n, const char *base)
{
  const lw_desc *d = self->desc;
  g_autofree char *title = g_strdup_printf("%s[%d]", base, n);
  g_autofree char *t0 = targets_text(&d->params[first]);
  g_autofree char *sub = g_strdup_printf(_("%d values: %s, …"), n, t0);
  double lo = INFINITY, hi = -INFINITY;
  for (int i = first; i < first + n; i++) {
    lo = fmin(lo, d->params[i].value);
    hi = fmax(hi, d->params[i].value);
  }
  char a[32], b[32];
  fmt_num(a, sizeof a, lo);
  fmt_num(b, sizeof b, hi);
  g_autofree char *range = g_strdup_printf(_("%s to %s"), a, b);
  if (self->pass == PASS_SHAPE) {
    g_string_append_printf(self->shape, "A\x1f%s\x1f%s\n", title, sub);
    return;
  }
  if (self->pass == PASS_UPDATE) {
    GtkWidget *l = g_hash_table_lookup(self->rows, title);
    if (l)
      gtk_label_set_text(GTK_LABEL(l), range);
    GListModel *m = l ? g_object_get_data(G_OBJECT(l), "list-model") : NULL;
    if (m)
      g_list_model_items_changed(m, 0, (guint)n, (guint)n); /* the rows on screen bound again */
    return;
  }
  GtkWidget *row = adw_expander_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
  adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
  adw_expander_row_set_subtitle(ADW_EXPANDER_ROW(row), sub);
  GtkWidget *label = gtk_label_new(range);
  gtk_widget_add_css_class(label, "numeric");
  adw_expander_row_add_action(ADW_EXPANDER_ROW(row), label);
  GtkStringList *names = gtk_string_list_new(NULL);
  for (int i = 0; i < n; i++)
    gtk_string_list_append(names, d->params[first + i].name);
  g_object_set_data(G_OBJECT(label), "list-model", names);
  GtkListItemFactory *f = gtk_signal_list_item_factory_new();
  g_object_set_data(G_OBJECT(f), "first", GINT_TO_POINTER(first));
  g_signal_connect(f, "setup", G_CALLBACK(array_item_setup_cb), self);
  g_signal_connect(f, "bind", G_CALLBACK(array_item_bind_cb), self);
  GtkWidget *list = gtk_list_view_new(GTK_SELECTION_MODEL(gtk_no_selection_new(G_LIST_MODEL(names))), f);
  GtkWidget *scroller = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height(GTK_SCROLLED_WINDOW(scroller), 240);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), list);
  adw_expander_row_add_row(ADW_EXPANDER_ROW(row), scroller);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(g), row);
  g_hash_table_replace(self->rows, g_strdup(title), label);
}

/* parameters that reach the selection (all of them for the overview) */
static void show_params(LwInspector *self)
{
  const lw_desc *d = self->desc;
  GtkWidget *g = NULL;
  gboolean any = FALSE;
  for (int i = 0; i < d->nparams;) {
    const lw_param_desc *p = &d->params[i];
    if (!param_shown(self, p)) {
      i++;
      continue;
    }
    if (!any)
      g = group_new(self, _("Parameters"), NULL);
    any = TRUE;
    g_autofree char *base = array_base(p->name);
    int n = 1;
    while (base && i + n < d->nparams && param_shown(self, &d->params[i + n])) {
      g_autofree char *b2 = array_base(d->params[i + n].name);
      if (g_strcmp0(base, b2))
        break;
      n++;
    }
    if (n > 1) {
      show_param_array(self, g, i, n, base);
      i += n;
      continue;
    }
    char buf[64];
    fmt_num(buf, sizeof buf, p->value);
    g_autofree char *targets = targets_text(p);
    row_add(self, g, p->name, targets, buf);
    i++;
  }
}

static void show_outputs(LwInspector *self)
{
  const lw_desc *d = self->desc;
  if (!d->noutputs)
    return;
  GtkWidget *g = group_new(self, _("Outputs"), NULL);
  self->time_row = row_add_live(self, g, _("Time"), "s", "0");
}

static void rebuild_soon(LwInspector *self);
static void flush(LwInspector *self);

void lw_inspector_set_model(LwInspector *self, const lw_model *model)
{
  g_return_if_fail(LW_IS_INSPECTOR(self));
  lw_desc_free(self->desc);
  self->desc = model ? lw_desc_copy(lw_model_desc(model)) : NULL;
  g_strfreev(g_object_steal_data(G_OBJECT(self), "column-names"));
  if (model) {
    self->ncols = lw_model_output_columns(model);
    char **names = g_new0(char *, self->ncols + 1);
    for (int c = 0; c < self->ncols; c++) {
      char b[128];
      lw_model_output_column_name(model, c, b, sizeof b);
      names[c] = g_strdup(b);
    }
    g_object_set_data(G_OBJECT(self), "column-names", names);
    /* degrees of freedom: coordinates minus independent constraints, from assembly */
    lw_data *d = lw_data_new(model);
    lw_error err;
    self->dof = d && lw_initialize(model, d, &err) == LW_OK ? lw_data_dof(d) : -1;
    lw_data_free(d);
  } else
    self->ncols = 0;
  g_clear_pointer(&self->selection, g_free);
  rebuild_soon(self);
}

/* the page in the pass set (its groups, its values, or its shape) */
static void show_page(LwInspector *self)
{
  const lw_desc *d = self->desc;
  int i;
  lw_elem_kind kind = lw_desc_find(d, self->selection, &i);
  if (kind == LW_ELEM_BODY)
    show_body(self, &d->bodies[i]);
  else if (kind == LW_ELEM_JOINT)
    show_joint(self, &d->joints[i]);
  else if (kind == LW_ELEM_FORCE)
    show_force(self, &d->forces[i]);
  else if (kind == LW_ELEM_BEAM)
    show_beam(self, &d->beams[i]);
  gboolean shown = kind != LW_ELEM_NONE;
  if (!shown) {
    g_clear_pointer(&self->selection, g_free);
    show_overview(self);
  }
  show_params(self);
  show_outputs(self);
  char **names = g_object_get_data(G_OBJECT(self), "column-names");
  if (names && self->ncols) {
    GtkWidget *g = self->pass == PASS_BUILD ? gtk_widget_get_last_child(self->box) : NULL;
    for (int c = 0; c < self->ncols; c++) {
      GtkWidget *l = row_add_live(self, g, names[c], NULL, "—");
      if (self->pass == PASS_BUILD)
        g_ptr_array_add(self->out_labels, l);
    }
  }
}

/* built again only when the shape of the page changed; else its values set */
static void rebuild(LwInspector *self)
{
  if (!self->desc) {
    clear_groups(self);
    g_clear_pointer(&self->shown_shape, g_free);
    return;
  }
  g_string_truncate(self->shape, 0);
  g_string_append_printf(self->shape, "%s\n", self->selection ? self->selection : "");
  self->pass = PASS_SHAPE;
  show_page(self);
  if (self->shown_shape && !strcmp(self->shown_shape, self->shape->str)) {
    self->pass = PASS_UPDATE;
    show_page(self);
  } else {
    clear_groups(self);
    g_free(self->shown_shape);
    self->shown_shape = g_strdup(self->shape->str);
    self->pass = PASS_BUILD;
    show_page(self);
  }
  self->pass = PASS_BUILD;
}

/* the window gives a model, then (its view having been given the model)
 * clears the selection and sets it again: the page follows once they are
 * done, or at once when asked about */
static gboolean rebuild_idle_cb(gpointer user)
{
  LwInspector *self = user;
  self->rebuild_idle = 0;
  rebuild(self);
  return G_SOURCE_REMOVE;
}

static void rebuild_soon(LwInspector *self)
{
  if (!self->rebuild_idle)
    self->rebuild_idle = g_idle_add_full(G_PRIORITY_HIGH_IDLE, rebuild_idle_cb, self, NULL);
}

static void flush(LwInspector *self)
{
  if (!self->rebuild_idle)
    return;
  g_clear_handle_id(&self->rebuild_idle, g_source_remove);
  rebuild(self);
}

void lw_inspector_set_selection(LwInspector *self, const char *path)
{
  g_return_if_fail(LW_IS_INSPECTOR(self));
  if (!g_strcmp0(path, self->selection))
    return;
  g_free(self->selection);
  self->selection = g_strdup(path);
  rebuild_soon(self);
}

const char *lw_inspector_get_selection(LwInspector *self)
{
  g_return_val_if_fail(LW_IS_INSPECTOR(self), NULL);
  int i;
  /* an element that is not in the model is not shown (the overview is) */
  if (self->selection && (!self->desc || lw_desc_find(self->desc, self->selection, &i) == LW_ELEM_NONE))
    return NULL;
  return self->selection;
}

void lw_inspector_set_outputs(LwInspector *self, double t, const double *outputs)
{
  g_return_if_fail(LW_IS_INSPECTOR(self));
  flush(self);
  char buf[64];
  if (self->time_row) {
    g_snprintf(buf, sizeof buf, "%.4f", t);
    gtk_inscription_set_text(GTK_INSCRIPTION(self->time_row), buf);
  }
  for (guint c = 0; outputs && c < self->out_labels->len; c++) {
    fmt_num(buf, sizeof buf, outputs[c]);
    gtk_inscription_set_text(GTK_INSCRIPTION(g_ptr_array_index(self->out_labels, c)), buf);
  }
}

const char *lw_inspector_lookup(LwInspector *self, const char *title)
{
  g_return_val_if_fail(LW_IS_INSPECTOR(self), NULL);
  flush(self);
  GtkWidget *value = g_hash_table_lookup(self->rows, title);
  if (value && GTK_IS_INSCRIPTION(value))
    return gtk_inscription_get_text(GTK_INSCRIPTION(value));
  return value ? gtk_label_get_text(GTK_LABEL(value)) : NULL;
}

static void lw_inspector_dispose(GObject *object)
{
  LwInspector *self = LW_INSPECTOR(object);
  g_clear_handle_id(&self->rebuild_idle, g_source_remove);
  g_clear_pointer(&self->scroller, gtk_widget_unparent);
  G_OBJECT_CLASS(lw_inspector_parent_class)->dispose(object);
}

static void lw_inspector_finalize(GObject *object)
{
  LwInspector *self = LW_INSPECTOR(object);
  lw_desc_free(self->desc);
  g_free(self->selection);
  g_strfreev(g_object_steal_data(object, "column-names"));
  g_ptr_array_unref(self->out_labels);
  g_hash_table_unref(self->rows);
  g_string_free(self->shape, TRUE);
  g_free(self->shown_shape);
  G_OBJECT_CLASS(lw_inspector_parent_class)->finalize(object);
}

static void lw_inspector_class_init(LwInspectorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  object_class->dispose = lw_inspector_dispose;
  object_class->finalize = lw_inspector_finalize;
  gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role(GTK_WIDGET_CLASS(klass), GTK_ACCESSIBLE_ROLE_GROUP);
}

static void lw_inspector_init(LwInspector *self)
{
  self->out_labels = g_ptr_array_new();
  self->shape = g_string_new(NULL);
  self->pass = PASS_BUILD;
  self->rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  self->scroller = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent(self->scroller, GTK_WIDGET(self));
  self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18);
  gtk_widget_set_margin_start(self->box, 12);
  gtk_widget_set_margin_end(self->box, 12);
  gtk_widget_set_margin_top(self->box, 6);
  gtk_widget_set_margin_bottom(self->box, 12);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroller), self->box);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Inspector"), -1);
}
