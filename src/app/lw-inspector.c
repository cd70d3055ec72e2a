/* lw-inspector.c: the inspector panel (see lw-inspector.h). */
#include "lw-inspector.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>

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
  GtkWidget *g = adw_preferences_group_new();
  adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(g), title);
  if (description)
    adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(g), description);
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
static GtkWidget *row_add(LwInspector *self, GtkWidget *group, const char *title, const char *subtitle,
                          const char *value)
{
  GtkWidget *label = gtk_label_new(value);
  gtk_label_set_selectable(GTK_LABEL(label), TRUE);
  gtk_label_set_xalign(GTK_LABEL(label), 1);
  gtk_label_set_wrap(GTK_LABEL(label), TRUE);
  gtk_label_set_max_width_chars(GTK_LABEL(label), 28);
  return row_add_widget(self, group, title, subtitle, label);
}

/* a value that changes with every frame of a run: an inscription, whose
 * size does not follow its text, so that a new value redraws the row
 * without laying out the window again (a label would, at every frame) */
static GtkWidget *row_add_live(LwInspector *self, GtkWidget *group, const char *title, const char *subtitle,
                               const char *value)
{
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
  g_snprintf(buf, sizeof buf, "%g s, h = %g s", d->solver.t_end, d->solver.step);
  row_add(self, g, _("Run"), NULL, buf);
}

/* parameters that reach the selection (all of them for the overview) */
static void show_params(LwInspector *self)
{
  const lw_desc *d = self->desc;
  GtkWidget *g = NULL;
  for (int i = 0; i < d->nparams; i++) {
    const lw_param_desc *p = &d->params[i];
    gboolean hit = self->selection == NULL;
    for (int k = 0; !hit && k < p->ntargets; k++) {
      size_t n = strlen(self->selection);
      hit = strncmp(p->targets[k], self->selection, n) == 0 && p->targets[k][n] == '/';
    }
    if (!hit)
      continue;
    if (!g)
      g = group_new(self, _("Parameters"), NULL);
    char buf[64];
    fmt_num(buf, sizeof buf, p->value);
    /* targets is counted, not NULL-terminated */
    GString *targets = g_string_new(NULL);
    for (int k = 0; k < p->ntargets; k++)
      g_string_append_printf(targets, "%s%s", k ? ", " : "", p->targets[k]);
    row_add(self, g, p->name, targets->str, buf);
    g_string_free(targets, TRUE);
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

static void rebuild(LwInspector *self);

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
  rebuild(self);
}

static void rebuild(LwInspector *self)
{
  clear_groups(self);
  if (!self->desc)
    return;
  const lw_desc *d = self->desc;
  int i;
  lw_elem_kind kind = lw_desc_find(d, self->selection, &i);
  if (kind == LW_ELEM_BODY)
    show_body(self, &d->bodies[i]);
  else if (kind == LW_ELEM_JOINT)
    show_joint(self, &d->joints[i]);
  else if (kind == LW_ELEM_FORCE)
    show_force(self, &d->forces[i]);
  gboolean shown = kind != LW_ELEM_NONE;
  if (!shown) {
    g_clear_pointer(&self->selection, g_free);
    show_overview(self);
  }
  show_params(self);
  show_outputs(self);
  char **names = g_object_get_data(G_OBJECT(self), "column-names");
  if (names && self->ncols) {
    GtkWidget *g = gtk_widget_get_last_child(self->box);
    for (int c = 0; c < self->ncols; c++)
      g_ptr_array_add(self->out_labels, row_add_live(self, g, names[c], NULL, "—"));
  }
}

void lw_inspector_set_selection(LwInspector *self, const char *path)
{
  g_return_if_fail(LW_IS_INSPECTOR(self));
  if (!g_strcmp0(path, self->selection))
    return;
  g_free(self->selection);
  self->selection = g_strdup(path);
  rebuild(self);
}

const char *lw_inspector_get_selection(LwInspector *self)
{
  g_return_val_if_fail(LW_IS_INSPECTOR(self), NULL);
  return self->selection;
}

void lw_inspector_set_outputs(LwInspector *self, double t, const double *outputs)
{
  g_return_if_fail(LW_IS_INSPECTOR(self));
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
  GtkWidget *value = g_hash_table_lookup(self->rows, title);
  if (value && GTK_IS_INSCRIPTION(value))
    return gtk_inscription_get_text(GTK_INSCRIPTION(value));
  return value ? gtk_label_get_text(GTK_LABEL(value)) : NULL;
}

static void lw_inspector_dispose(GObject *object)
{
  LwInspector *self = LW_INSPECTOR(object);
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
