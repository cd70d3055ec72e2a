/* lw-prop-editor.c: editing properties with units and validation (see
 * lw-prop-editor.h).
 *
 * A value is checked in two stages: the field's own rule (a number, and
 * for masses, inertias, stiffnesses, time steps... its sign), then the
 * model compiler on the changed copy, whose message is shown when it names
 * the element being edited (a spatial inertia that breaks the triangle
 * inequality, a joint point that does not exist).  A model that compiles
 * but cannot assemble is accepted: the live check shows it. */
#include "lw-prop-editor.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

typedef struct {
  char *path;
  GtkWidget *row, *entry;
  char *unit;
  char *error;
} Field;

struct _LwPropEditor {
  GtkWidget parent_instance;
  GtkWidget *scroller, *box;
  lw_desc *doc;
  lw_check_result info; /* numbers only */
  gboolean have_info;
  char *selection;
  GHashTable *fields; /* path -> Field */
  /* the model page's form for a new objective (NULL while not shown) */
  GtkWidget *obj_name, *obj_output, *obj_measure, *obj_target, *obj_weight, *obj_error;
  GArray *obj_items;  /* ObjItem, the rows of obj_output */
};

typedef struct {
  int output;     /* index in doc->outputs */
  int component;  /* -1: every component */
} ObjItem;

/* the measures a new objective can take, in the drop-down's order */
static const struct {
  const char *label;
  lw_term_kind kind;
  lw_term_form form;
} measures[] = {
  {N_("∫ (y − target)² dt over the run"), LW_TERM_INTEGRAL, LW_TERM_SQUARE},
  {N_("(y − target)² at the end"), LW_TERM_FINAL, LW_TERM_SQUARE},
  {N_("∫ (y − target) dt over the run"), LW_TERM_INTEGRAL, LW_TERM_VALUE},
  {N_("y − target at the end"), LW_TERM_FINAL, LW_TERM_VALUE},
};

G_DEFINE_FINAL_TYPE(LwPropEditor, lw_prop_editor, GTK_TYPE_WIDGET)

enum { SIGNAL_EDIT, N_SIGNALS };
static guint signals[N_SIGNALS];

static void field_free(gpointer p)
{
  Field *f = p;
  g_free(f->path);
  g_free(f->unit);
  g_free(f->error);
  g_free(f);
}

static void rebuild(LwPropEditor *self);

static void emit_edit(LwPropEditor *self, lw_desc *d, const char *what)
{
  g_signal_emit(self, signals[SIGNAL_EDIT], 0, d, what);
}

static void show_error(Field *f, const char *msg)
{
  g_free(f->error);
  f->error = g_strdup(msg);
  if (msg) {
    gtk_widget_add_css_class(f->entry, "error");
    adw_action_row_set_subtitle(ADW_ACTION_ROW(f->row), msg);
    gtk_accessible_update_property(GTK_ACCESSIBLE(f->entry), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, msg, -1);
  } else {
    gtk_widget_remove_css_class(f->entry, "error");
    adw_action_row_set_subtitle(ADW_ACTION_ROW(f->row), f->unit ? f->unit : "");
  }
}

/* ---- rules -------------------------------------------------------------- */
static gboolean ends_with(const char *s, const char *suffix)
{
  return g_str_has_suffix(s, suffix);
}

/* NULL if v is allowed in the field of path, else why not */
static char *rule_check(const lw_desc *d, const char *path, double v)
{
  if (!isfinite(v))
    return g_strdup(_("must be a finite number"));
  if (ends_with(path, "/mass") && !(v > 0))
    return g_strdup_printf(_("mass must be a positive number (got %g)"), v);
  if (g_str_has_prefix(path, "bodies/") && strstr(path, "/inertia/")) {
    int k = atoi(strrchr(path, '/') + 1);
    if ((d->planar || k < 3) && !(v > 0))
      return g_strdup_printf(_("a moment of inertia must be positive (got %g)"), v);
  }
  if ((ends_with(path, "/stiffness") || ends_with(path, "/damping") || ends_with(path, "/rest_length")) && v < 0)
    return g_strdup_printf(_("must not be negative (got %g)"), v);
  if (!strcmp(path, "solver/step") && !(v > 0))
    return g_strdup_printf(_("the time step must be positive (got %g)"), v);
  if (!strcmp(path, "solver/t_end") && v < 0)
    return g_strdup_printf(_("the end time must not be negative (got %g)"), v);
  return NULL;
}

/* the element a path belongs to: "bodies/B" of "bodies/B/mass" */
static char *element_of(const char *path)
{
  const char *s = strchr(path, '/');
  if (!s)
    return g_strdup(path);
  const char *t = strchr(s + 1, '/');
  return t ? g_strndup(path, (gsize)(t - path)) : g_strdup(path);
}

/* the compiler's objection to the changed copy, when it concerns the element
 * being edited and the document itself compiled (or objected elsewhere) */
static char *compile_check(const lw_desc *before, const lw_desc *after, const char *path)
{
  lw_error e0, e1;
  lw_model *m1 = lw_compile(after, &e1);
  if (m1) {
    lw_model_free(m1);
    return NULL;
  }
  g_autofree char *elem = element_of(path);
  lw_model *m0 = lw_compile(before, &e0);
  gboolean was_ok = m0 != NULL || g_strcmp0(e0.path, e1.path) != 0 || strcmp(e0.msg, e1.msg) != 0;
  lw_model_free(m0);
  if (was_ok && g_str_has_prefix(e1.path, elem))
    return g_strdup(e1.msg);
  return NULL;
}

/* ---- applying a field --------------------------------------------------- */
static lw_initial_desc *initial_for(lw_desc *d, const char *joint)
{
  for (int i = 0; i < d->ninitial; i++)
    if (!g_strcmp0(d->initial[i].joint, joint) && d->initial[i].coordinate == 0)
      return &d->initial[i];
  return NULL;
}

static gboolean apply_text(LwPropEditor *self, Field *f, const char *text)
{
  const char *path = f->path;
  g_autofree char *t = g_strstrip(g_strdup(text));
  lw_desc *d = lw_desc_copy(self->doc);
  g_autofree char *what = NULL;
  /* names */
  if (ends_with(path, "/name")) {
    g_autofree char *elem = element_of(path);
    const char *old = strchr(elem, '/') + 1;
    if (!strcmp(old, t)) {
      lw_desc_free(d);
      show_error(f, NULL);
      return TRUE;
    }
    if (!*t || strchr(t, '/') || lw_desc_name_used(d, t)) {
      show_error(f, !*t ? _("a name cannot be empty")
                 : strchr(t, '/') ? _("a name cannot contain '/'")
                                  : _("this name is taken (or is 'ground')"));
      lw_desc_free(d);
      return FALSE;
    }
    lw_desc_rename(d, elem, t);
    what = g_strdup_printf(_("Rename %s to %s"), old, t);
    char *sel = g_strdup_printf("%.*s/%s", (int)(strchr(elem, '/') - elem), elem, t);
    g_free(self->selection);
    self->selection = sel;
    emit_edit(self, d, what);
    return TRUE;
  }
  if (!strcmp(path, "model/name")) {
    free(d->name);
    d->name = *t ? strdup(t) : NULL;
    emit_edit(self, d, _("Rename the model"));
    return TRUE;
  }
  /* the bodies of a joint */
  if (g_str_has_prefix(path, "joints/") && (ends_with(path, "/body1") || ends_with(path, "/body2"))) {
    g_autofree char *elem = element_of(path);
    const char *jn = strchr(elem, '/') + 1;
    lw_joint_desc *j = NULL;
    for (int i = 0; i < d->njoints; i++)
      if (!strcmp(d->joints[i].name, jn))
        j = &d->joints[i];
    int k = ends_with(path, "/body2");
    gboolean known = !strcmp(t, "ground");
    for (int i = 0; i < d->nbodies && !known; i++)
      known = !strcmp(d->bodies[i].name, t);
    char *msg = NULL;
    if (!j)
      msg = g_strdup(_("no such joint"));
    else if (!known)
      msg = g_strdup_printf(_("there is no body '%s' (give a body's name or 'ground')"), t);
    else if (!g_strcmp0(j->body[1 - k], t))
      msg = g_strdup_printf(_("a joint cannot join body '%s' to itself"), t);
    if (msg) {
      show_error(f, msg);
      g_free(msg);
      lw_desc_free(d);
      return FALSE;
    }
    free(j->body[k]);
    j->body[k] = strdup(t);
    what = g_strdup_printf(_("Joint %s: body %d is %s"), jn, k + 1, t);
    emit_edit(self, d, what);
    return TRUE;
  }
  /* numbers */
  char *end = NULL;
  double v = g_ascii_strtod(t, &end);
  if (!*t || !end || *end) {
    g_autofree char *msg = g_strdup_printf(_("'%s' is not a number"), t);
    show_error(f, msg);
    lw_desc_free(d);
    return FALSE;
  }
  char *why = rule_check(d, path, v);
  if (why) {
    show_error(f, why);
    g_free(why);
    lw_desc_free(d);
    return FALSE;
  }
  double *slot = NULL;
  if (g_str_has_prefix(path, "initial/")) {
    /* an initial condition is created when first given */
    g_autofree char *elem = element_of(path);
    const char *jn = strchr(elem, '/') + 1;
    lw_initial_desc *in = initial_for(d, jn);
    if (!in)
      in = lw_desc_add_initial(d, jn, 0);
    if (ends_with(path, "/value")) {
      in->has_value = 1;
      slot = &in->value;
    } else {
      in->has_velocity = 1;
      slot = &in->velocity;
    }
  } else
    slot = lw_desc_field(d, path);
  if (!slot) {
    show_error(f, _("this field no longer exists"));
    lw_desc_free(d);
    return FALSE;
  }
  double old = *slot;
  /* a point moved: the shapes that ended there and a drawn link's mass
   * properties follow it (lw_desc_move_point) */
  int bi = -1, pk = -1;
  const char *pts = g_str_has_prefix(path, "bodies/") ? strstr(path, "/points/") : NULL;
  g_autofree char *pelem = pts ? element_of(path) : NULL;
  if (pts && lw_desc_find(d, pelem, &bi) == LW_ELEM_BODY) {
    const char *pn = pts + 8, *sl = strrchr(path, '/');
    for (int k = 0; k < d->bodies[bi].npoints && sl > pn; k++)
      if (strlen(d->bodies[bi].points[k].name) == (size_t)(sl - pn) &&
          !strncmp(d->bodies[bi].points[k].name, pn, (size_t)(sl - pn)))
        pk = k;
  }
  if (pk >= 0) {
    double p[3];
    memcpy(p, d->bodies[bi].points[pk].p, sizeof p);
    p[atoi(strrchr(path, '/') + 1)] = v;
    lw_desc_move_point(d, bi, pk, p);
  } else
    *slot = v;
  /* parameters bound to the field take the value too */
  for (int i = 0; i < d->nparams; i++)
    for (int k = 0; k < d->params[i].ntargets; k++)
      if (!strcmp(d->params[i].targets[k], path))
        d->params[i].value = v;
  char *objection = compile_check(self->doc, d, path);
  if (objection) {
    show_error(f, objection);
    g_free(objection);
    lw_desc_free(d);
    return FALSE;
  }
  (void)old;
  show_error(f, NULL);
  what = g_strdup_printf(_("Set %s to %s"), path, t);
  emit_edit(self, d, what);
  return TRUE;
}

static void entry_activate_cb(GtkEntry *entry, gpointer user)
{
  LwPropEditor *self = user;
  const char *path = g_object_get_data(G_OBJECT(entry), "path");
  Field *f = g_hash_table_lookup(self->fields, path);
  if (f)
    apply_text(self, f, gtk_editable_get_text(GTK_EDITABLE(entry)));
}

static char *param_name_for(const lw_desc *d, const char *path)
{
  /* bodies/crank/mass -> crank_mass; bodies/crank/points/end/0 -> crank_end_x */
  g_auto(GStrv) parts = g_strsplit(path, "/", -1);
  GString *s = g_string_new(NULL);
  static const char *const axes[] = {"x", "y", "z"};
  for (int i = 1; parts[i]; i++) {
    if (!strcmp(parts[i], "points") || !strcmp(parts[i], "function"))
      continue;
    const char *p = parts[i];
    if (g_ascii_isdigit(p[0]) && !p[1] && p[0] < '3' && i > 1 && strcmp(parts[i - 1], "function"))
      p = axes[p[0] - '0'];
    g_string_append_printf(s, "%s%s", s->len ? "_" : "", p);
  }
  char *base = g_string_free(s, FALSE);
  if (!lw_desc_name_used(d, base))
    return base;
  for (int k = 2;; k++) {
    char *n = g_strdup_printf("%s%d", base, k);
    if (!lw_desc_name_used(d, n)) {
      g_free(base);
      return n;
    }
    g_free(n);
  }
}

gboolean lw_prop_editor_make_parameter(LwPropEditor *self, const char *path)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  lw_desc *d = lw_desc_copy(self->doc);
  double *slot = lw_desc_field(d, path);
  if (!slot) {
    Field *f = g_hash_table_lookup(self->fields, path);
    if (f)
      show_error(f, _("this field cannot be a parameter (give its value first)"));
    lw_desc_free(d);
    return FALSE;
  }
  for (int i = 0; i < d->nparams; i++)
    for (int k = 0; k < d->params[i].ntargets; k++)
      if (!strcmp(d->params[i].targets[k], path)) {
        Field *f = g_hash_table_lookup(self->fields, path);
        g_autofree char *msg = g_strdup_printf(_("already the parameter %s"), d->params[i].name);
        if (f)
          show_error(f, msg);
        lw_desc_free(d);
        return FALSE;
      }
  g_autofree char *name = param_name_for(d, path);
  lw_param_desc *p = lw_desc_add_param(d, name, path);
  p->value = *slot;
  g_autofree char *what = g_strdup_printf(_("Make parameter %s of %s"), name, path);
  emit_edit(self, d, what);
  return TRUE;
}

static void make_param_cb(GtkButton *b, gpointer user)
{
  lw_prop_editor_make_parameter(user, g_object_get_data(G_OBJECT(b), "path"));
}

/* ---- building the page -------------------------------------------------- */
static GtkWidget *group_new(LwPropEditor *self, const char *title, const char *description)
{
  GtkWidget *g = adw_preferences_group_new();
  adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(g), title);
  if (description)
    adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(g), description);
  gtk_box_append(GTK_BOX(self->box), g);
  return g;
}

static gboolean is_parameter(const lw_desc *d, const char *path)
{
  for (int i = 0; i < d->nparams; i++)
    for (int k = 0; k < d->params[i].ntargets; k++)
      if (!strcmp(d->params[i].targets[k], path))
        return TRUE;
  return FALSE;
}

static Field *field_add(LwPropEditor *self, GtkWidget *group, const char *title, const char *unit, const char *path,
                        const char *text, gboolean numeric)
{
  Field *f = g_new0(Field, 1);
  f->path = g_strdup(path);
  f->unit = g_strdup(unit);
  f->row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(f->row), title);
  adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(f->row), FALSE);
  if (unit)
    adw_action_row_set_subtitle(ADW_ACTION_ROW(f->row), unit);
  f->entry = gtk_entry_new();
  gtk_editable_set_text(GTK_EDITABLE(f->entry), text);
  gtk_editable_set_width_chars(GTK_EDITABLE(f->entry), numeric ? 11 : 12);
  gtk_widget_set_valign(f->entry, GTK_ALIGN_CENTER);
  if (numeric)
    gtk_entry_set_input_purpose(GTK_ENTRY(f->entry), GTK_INPUT_PURPOSE_NUMBER);
  g_autofree char *aname = unit ? g_strdup_printf("%s (%s)", title, unit) : g_strdup(title);
  gtk_accessible_update_property(GTK_ACCESSIBLE(f->entry), GTK_ACCESSIBLE_PROPERTY_LABEL, aname, -1);
  gtk_widget_set_tooltip_text(f->entry, _("Type a value and press Enter"));
  g_object_set_data_full(G_OBJECT(f->entry), "path", g_strdup(path), g_free);
  g_signal_connect(f->entry, "activate", G_CALLBACK(entry_activate_cb), self);
  adw_action_row_add_suffix(ADW_ACTION_ROW(f->row), f->entry);
  if (numeric) {
    gboolean bound = is_parameter(self->doc, path);
    GtkWidget *b = gtk_button_new_from_icon_name(bound ? "emblem-ok-symbolic" : "list-add-symbolic");
    gtk_widget_add_css_class(b, "flat");
    gtk_widget_set_valign(b, GTK_ALIGN_CENTER);
    g_autofree char *tip = bound ? g_strdup(_("This field is a parameter"))
                                 : g_strdup_printf(_("Make a parameter of %s"), path);
    gtk_widget_set_tooltip_text(b, tip);
    g_autofree char *bname = g_strdup_printf(_("Make parameter: %s"), title);
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, bname, -1);
    gtk_widget_set_sensitive(b, !bound && !g_str_has_prefix(path, "initial/") ? TRUE : !bound);
    g_object_set_data_full(G_OBJECT(b), "path", g_strdup(path), g_free);
    g_signal_connect(b, "clicked", G_CALLBACK(make_param_cb), self);
    adw_action_row_add_suffix(ADW_ACTION_ROW(f->row), b);
  }
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), f->row);
  g_hash_table_replace(self->fields, f->path, f);
  return f;
}

static void num_text(char *buf, size_t n, double v)
{
  g_ascii_formatd(buf, (int)n, "%.10g", v);
}

static void num_field(LwPropEditor *self, GtkWidget *g, const char *title, const char *unit, const char *path)
{
  double *v = lw_desc_field(self->doc, path);
  char buf[64] = "";
  if (v)
    num_text(buf, sizeof buf, *v);
  field_add(self, g, title, unit, path, buf, TRUE);
}

static void vec_fields(LwPropEditor *self, GtkWidget *g, const char *title, const char *unit, const char *base, int n)
{
  static const char *const axes[] = {"x", "y", "z"};
  for (int i = 0; i < n; i++) {
    g_autofree char *t = g_strdup_printf("%s %s", title, axes[i]);
    g_autofree char *p = g_strdup_printf("%s/%d", base, i);
    num_field(self, g, t, unit, p);
  }
}

static void button_add(GtkWidget *group, const char *label, GCallback cb, gpointer user, const char *data)
{
  GtkWidget *b = gtk_button_new_with_label(label);
  gtk_widget_set_margin_top(b, 6);
  if (data)
    g_object_set_data_full(G_OBJECT(b), "point", g_strdup(data), g_free);
  g_signal_connect(b, "clicked", cb, user);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), b);
}

static void add_point_cb(GtkButton *b, gpointer user)
{
  (void)b;
  lw_prop_editor_add_point(user);
}

static void trace_cb(GtkButton *b, gpointer user)
{
  lw_prop_editor_trace_point(user, g_object_get_data(G_OBJECT(b), "point"));
}

static void show_body(LwPropEditor *self, const lw_body_desc *b)
{
  const lw_desc *d = self->doc;
  int dim = d->planar ? 2 : 3;
  g_autofree char *title = g_strdup_printf(_("Body %s"), b->name);
  GtkWidget *g = group_new(self, title, _("Enter applies a value; every change can be undone"));
  g_autofree char *base = g_strdup_printf("bodies/%s", b->name);
  g_autofree char *pn = g_strdup_printf("%s/name", base);
  field_add(self, g, _("Name"), NULL, pn, b->name, FALSE);
  g_autofree char *pm = g_strdup_printf("%s/mass", base);
  num_field(self, g, _("Mass"), "kg", pm);
  g_autofree char *pc = g_strdup_printf("%s/com", base);
  vec_fields(self, g, _("Centre of mass"), _("m, body frame"), pc, dim);
  if (d->planar) {
    g_autofree char *pi = g_strdup_printf("%s/inertia/2", base);
    num_field(self, g, _("Moment of inertia"), _("kg m², about the centre of mass"), pi);
  } else {
    static const char *const names[] = {"Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz"};
    for (int k = 0; k < 6; k++) {
      g_autofree char *pi = g_strdup_printf("%s/inertia/%d", base, k);
      num_field(self, g, names[k], _("kg m², body axes"), pi);
    }
  }
  GtkWidget *gp = group_new(self, _("Points"), _("Local coordinates, m"));
  for (int k = 0; k < b->npoints; k++) {
    g_autofree char *pp = g_strdup_printf("%s/points/%s", base, b->points[k].name);
    g_autofree char *t = g_strdup_printf(_("Point %s"), b->points[k].name);
    vec_fields(self, gp, t, "m", pp, dim);
  }
  button_add(gp, _("Add a point at the centre of mass"), G_CALLBACK(add_point_cb), self, NULL);
  for (int k = 0; k < b->npoints; k++) {
    g_autofree char *t = g_strdup_printf(_("Plot and trace point %s"), b->points[k].name);
    button_add(gp, t, G_CALLBACK(trace_cb), self, b->points[k].name);
  }
  GtkWidget *gg = group_new(self, _("Initial guess"), _("Where assembly starts from"));
  g_autofree char *pos = g_strdup_printf("%s/position", base);
  vec_fields(self, gg, _("Position"), "m", pos, dim);
  if (d->planar) {
    g_autofree char *pa = g_strdup_printf("%s/angle", base);
    num_field(self, gg, _("Angle"), "rad", pa);
  }
}

static void show_joint(LwPropEditor *self, const lw_joint_desc *j)
{
  const lw_desc *d = self->doc;
  int dim = d->planar ? 2 : 3;
  g_autofree char *title = g_strdup_printf(_("Joint %s (%s)"), j->name, lw_joint_type_name(j->type));
  g_autofree char *desc = NULL;
  int k = -1;
  for (int i = 0; i < d->njoints; i++)
    if (&d->joints[i] == j)
      k = i;
  if (self->have_info && k >= 0 && k < self->info.njoints && self->info.joint_state && self->info.joint_state[k])
    desc = g_strdup(self->info.joint_state[k] & LW_CHECK_CONFLICT ? _("Its equations are violated: the mechanism "
                                                                      "cannot assemble")
                                                                   : _("Its equations are redundant with others"));
  GtkWidget *g = group_new(self, title, desc);
  g_autofree char *base = g_strdup_printf("joints/%s", j->name);
  g_autofree char *pn = g_strdup_printf("%s/name", base);
  field_add(self, g, _("Name"), NULL, pn, j->name, FALSE);
  for (int b = 0; b < 2; b++) {
    g_autofree char *t = g_strdup_printf(_("Body %d"), b + 1);
    g_autofree char *p = g_strdup_printf("%s/body%d", base, b + 1);
    field_add(self, g, t, NULL, p, j->body[b] ? j->body[b] : "ground", FALSE);
  }
  for (int b = 0; b < 2; b++)
    if (j->has_place[b] && !j->place[b].ref) {
      g_autofree char *t = g_strdup_printf(_("Place on body %d"), b + 1);
      g_autofree char *p = g_strdup_printf("%s/point%d", base, b + 1);
      vec_fields(self, g, t, "m", p, dim);
    }
  if (d->planar)
    for (int b = 0; b < 2; b++) {
      g_autofree char *t = g_strdup_printf(_("Angle on body %d"), b + 1);
      g_autofree char *p = g_strdup_printf("%s/angle%d", base, b + 1);
      num_field(self, g, t, "rad", p);
    }
  int nco = lw_joint_ncoords(j->type, d->planar);
  if (nco > 0) {
    gboolean slide = j->type == LW_JOINT_PRISMATIC;
    GtkWidget *gi = group_new(self, _("Initial condition"), _("Coordinate 0 at the start (empty: found by assembly)"));
    const lw_initial_desc *in = NULL;
    for (int i = 0; i < d->ninitial; i++)
      if (!g_strcmp0(d->initial[i].joint, j->name) && d->initial[i].coordinate == 0)
        in = &d->initial[i];
    char buf[64] = "";
    if (in && in->has_value)
      num_text(buf, sizeof buf, in->value);
    g_autofree char *pv = g_strdup_printf("initial/%s/value", j->name);
    field_add(self, gi, _("Initial value"), slide ? "m" : "rad", pv, buf, TRUE);
    buf[0] = 0;
    if (in && in->has_velocity)
      num_text(buf, sizeof buf, in->velocity);
    g_autofree char *pw = g_strdup_printf("initial/%s/velocity", j->name);
    field_add(self, gi, _("Initial velocity"), slide ? "m/s" : "rad/s", pw, buf, TRUE);
  }
  for (int i = 0; i < d->ndrivers; i++) {
    const lw_driver_desc *r = &d->drivers[i];
    if (g_strcmp0(r->joint, j->name))
      continue;
    g_autofree char *t = g_strdup_printf(_("Motor %s"), r->name);
    GtkWidget *gm = group_new(self, t, _("Prescribed motion: start value + speed × t"));
    g_autofree char *p0 = g_strdup_printf("drivers/%s/function/0", r->name);
    num_field(self, gm, _("Start value"), j->type == LW_JOINT_PRISMATIC ? "m" : "rad", p0);
    if (r->func.type == LW_FUNC_LINEAR) {
      g_autofree char *p1 = g_strdup_printf("drivers/%s/function/1", r->name);
      num_field(self, gm, _("Speed"), j->type == LW_JOINT_PRISMATIC ? "m/s" : "rad/s", p1);
    }
  }
}

static void show_force(LwPropEditor *self, const lw_force_desc *f)
{
  const lw_desc *d = self->doc;
  int dim = d->planar ? 2 : 3;
  g_autofree char *title = g_strdup_printf(_("Force %s (%s)"), f->name, lw_force_type_name(f->type));
  GtkWidget *g = group_new(self, title, NULL);
  g_autofree char *base = g_strdup_printf("forces/%s", f->name);
  g_autofree char *pn = g_strdup_printf("%s/name", base);
  field_add(self, g, _("Name"), NULL, pn, f->name, FALSE);
  g_autofree char *p = NULL;
  switch (f->type) {
  case LW_FORCE_SPRING_DAMPER:
  case LW_FORCE_JOINT_SPRING_DAMPER: {
    gboolean lin = f->type == LW_FORCE_SPRING_DAMPER;
    p = g_strdup_printf("%s/stiffness", base);
    num_field(self, g, _("Stiffness"), lin ? "N/m" : "N m/rad", p);
    g_free(p);
    p = g_strdup_printf("%s/damping", base);
    num_field(self, g, _("Damping"), lin ? "N s/m" : "N m s/rad", p);
    g_free(p);
    p = g_strdup_printf(lin ? "%s/rest_length" : "%s/rest_value", base);
    num_field(self, g, lin ? _("Rest length") : _("Rest value"), lin ? "m" : "rad", p);
    if (lin)
      for (int k = 0; k < 2; k++)
        if (!f->place[k].ref) {
          g_autofree char *t = g_strdup_printf(_("End %d on %s"), k + 1, f->body[k] ? f->body[k] : "ground");
          g_autofree char *pp = g_strdup_printf("%s/point%d", base, k + 1);
          vec_fields(self, g, t, "m", pp, dim);
        }
    break;
  }
  case LW_FORCE_FORCE:
  case LW_FORCE_TORQUE: {
    g_autofree char *pv = g_strdup_printf("%s/vector", base);
    if (f->type == LW_FORCE_TORQUE && d->planar) {
      g_autofree char *pz = g_strdup_printf("%s/vector/2", base);
      num_field(self, g, _("Torque"), "N m", pz);
    } else
      vec_fields(self, g, f->type == LW_FORCE_TORQUE ? _("Torque") : _("Force"),
                 f->type == LW_FORCE_TORQUE ? "N m" : "N", pv, f->type == LW_FORCE_TORQUE ? 3 : dim);
    if (f->type == LW_FORCE_FORCE && !f->place[0].ref) {
      g_autofree char *pp = g_strdup_printf("%s/point1", base);
      vec_fields(self, g, _("Point"), "m", pp, dim);
    }
    if (f->func.type == LW_FUNC_CONSTANT) {
      g_autofree char *pf = g_strdup_printf("%s/function/0", base);
      num_field(self, g, _("Factor"), _("times the vector"), pf);
    }
    break;
  }
  default:
    break;
  }
}

/* ---- objectives ------------------------------------------------------------ */
static int output_width(const lw_desc *d, const lw_output_desc *o)
{
  switch (o->type) {
  case LW_OUT_POSITION:
  case LW_OUT_VELOCITY:
  case LW_OUT_ACCELERATION:
  case LW_OUT_REACTION_FORCE:
    return d->planar ? 2 : 3;
  default:
    return 1;
  }
}

/* "∫ 1·(link2_end.y − 0)² dt + ..." */
static char *objective_summary(const lw_objective_desc *o)
{
  static const char *const axes[] = {"x", "y", "z"};
  GString *s = g_string_new(NULL);
  for (int k = 0; k < o->nterms; k++) {
    const lw_term_desc *t = &o->terms[k];
    char y[200], tg[64], w[64];
    if (t->component >= 0 && t->component < 3)
      g_snprintf(y, sizeof y, "%s.%s", t->output, axes[t->component]);
    else
      g_strlcpy(y, t->output ? t->output : "?", sizeof y);
    num_text(tg, sizeof tg, t->target[t->component > 0 ? t->component : 0]);
    num_text(w, sizeof w, t->weight);
    const char *fmt = t->form == LW_TERM_VALUE   ? "%s·(%s − %s)"
                      : t->form == LW_TERM_ABOVE ? "%s·max(0, %s − %s)²"
                      : t->form == LW_TERM_BELOW ? "%s·min(0, %s − %s)²"
                                                 : "%s·(%s − %s)²";
    g_autofree char *g = g_strdup_printf(fmt, w, y, tg);
    if (k)
      g_string_append(s, " + ");
    if (t->kind == LW_TERM_INTEGRAL)
      g_string_append_printf(s, "∫ %s dt", g);
    else
      g_string_append_printf(s, _("%s at the end"), g);
  }
  return g_string_free(s, FALSE);
}

static void remove_objective_cb(GtkButton *b, gpointer user)
{
  lw_prop_editor_remove_objective(user, g_object_get_data(G_OBJECT(b), "objective"));
}

static void add_objective_cb(GtkButton *b, gpointer user)
{
  (void)b;
  LwPropEditor *self = user;
  const char *name = gtk_editable_get_text(GTK_EDITABLE(self->obj_name));
  const char *why = NULL;
  g_autofree char *msg = NULL;
  guint row = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->obj_output));
  guint mrow = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->obj_measure));
  char *end = NULL;
  const char *tt = gtk_editable_get_text(GTK_EDITABLE(self->obj_target));
  const char *wt = gtk_editable_get_text(GTK_EDITABLE(self->obj_weight));
  double target = g_ascii_strtod(tt, &end);
  gboolean target_ok = *tt && end && !*end && isfinite(target);
  double weight = g_ascii_strtod(wt, &end);
  gboolean weight_ok = *wt && end && !*end && isfinite(weight);
  if (!*name)
    why = _("Give the objective a name");
  else if (strchr(name, '/'))
    why = _("A name cannot contain '/'");
  else if (lw_desc_name_used(self->doc, name))
    why = msg = g_strdup_printf(_("The name '%s' is taken"), name);
  else if (!self->obj_items->len || row >= self->obj_items->len)
    why = _("There is no output to measure yet: trace a point of a body first");
  else if (!target_ok)
    why = msg = g_strdup_printf(_("Target: '%s' is not a number"), tt);
  else if (!weight_ok)
    why = msg = g_strdup_printf(_("Weight: '%s' is not a number"), wt);
  if (why) {
    gtk_label_set_text(GTK_LABEL(self->obj_error), why);
    gtk_widget_set_visible(self->obj_error, TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->obj_name), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, why, -1);
    return;
  }
  const ObjItem *it = &g_array_index(self->obj_items, ObjItem, row);
  lw_desc *d = lw_desc_copy(self->doc);
  lw_objective_desc *o = lw_desc_add_objective(d, name);
  lw_term_desc *t = lw_objective_add_term(o, d->outputs[it->output].name);
  t->component = it->component;
  t->kind = measures[mrow < G_N_ELEMENTS(measures) ? mrow : 0].kind;
  t->form = measures[mrow < G_N_ELEMENTS(measures) ? mrow : 0].form;
  t->weight = weight;
  for (int i = 0; i < 3; i++)
    if (it->component < 0 || it->component == i)
      t->target[i] = target;
  g_autofree char *what = g_strdup_printf(_("Add objective %s"), name);
  emit_edit(self, d, what);
}

static GtkWidget *form_row(GtkWidget *group, const char *title, GtkWidget *w)
{
  GtkWidget *r = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(r), title);
  gtk_widget_set_valign(w, GTK_ALIGN_CENTER);
  gtk_accessible_update_property(GTK_ACCESSIBLE(w), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  /* a drop-down's button is what assistive technology meets: it gets the name too */
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
    if (GTK_IS_BUTTON(c))
      gtk_accessible_update_property(GTK_ACCESSIBLE(c), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_action_row_add_suffix(ADW_ACTION_ROW(r), w);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), r);
  return r;
}

static void show_objectives(LwPropEditor *self)
{
  const lw_desc *d = self->doc;
  static const char *const axes[] = {"x", "y", "z"};
  GtkWidget *go = group_new(self, _("Objectives"),
                            _("Numbers computed from a run: their gradients on the Sensitivity page, their optimum on "
                              "the Optimize page"));
  for (int i = 0; i < d->nobjectives; i++) {
    const lw_objective_desc *o = &d->objectives[i];
    GtkWidget *r = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(r), o->name);
    adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(r), FALSE);
    g_autofree char *sum = objective_summary(o);
    adw_action_row_set_subtitle(ADW_ACTION_ROW(r), sum);
    GtkWidget *b = gtk_button_new_from_icon_name("user-trash-symbolic");
    gtk_widget_add_css_class(b, "flat");
    gtk_widget_set_valign(b, GTK_ALIGN_CENTER);
    g_autofree char *bn = g_strdup_printf(_("Remove objective %s"), o->name);
    gtk_widget_set_tooltip_text(b, bn);
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, bn, -1);
    g_object_set_data_full(G_OBJECT(b), "objective", g_strdup(o->name), g_free);
    g_signal_connect(b, "clicked", G_CALLBACK(remove_objective_cb), self);
    adw_action_row_add_suffix(ADW_ACTION_ROW(r), b);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(go), r);
    for (int k = 0; k < o->nterms; k++) {
      g_autofree char *t = o->nterms > 1 ? g_strdup_printf(_("%s: weight of term %d"), o->name, k + 1)
                                         : g_strdup_printf(_("%s: weight"), o->name);
      g_autofree char *p = g_strdup_printf("objectives/%s/terms/%d/weight", o->name, k);
      num_field(self, go, t, NULL, p);
    }
  }
  /* a new one: name, output (or one of its components), measure, target, weight */
  GtkWidget *gn = group_new(self, _("New objective"), NULL);
  self->obj_name = gtk_entry_new();
  char def[64];
  lw_desc_unique_name(d, "objective", def, sizeof def);
  gtk_editable_set_text(GTK_EDITABLE(self->obj_name), def);
  gtk_editable_set_width_chars(GTK_EDITABLE(self->obj_name), 12);
  form_row(gn, _("Name"), self->obj_name);
  g_array_set_size(self->obj_items, 0);
  GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
  for (int i = 0; i < d->noutputs; i++) {
    const lw_output_desc *o = &d->outputs[i];
    int w = output_width(d, o);
    for (int c = -1; c < (w > 1 ? w : 0); c++) {
      ObjItem it = {i, c};
      g_array_append_val(self->obj_items, it);
      g_ptr_array_add(labels, c < 0 ? g_strdup(o->name) : g_strdup_printf("%s.%s", o->name, axes[c]));
    }
  }
  g_ptr_array_add(labels, NULL);
  self->obj_output = gtk_drop_down_new_from_strings((const char *const *)labels->pdata);
  g_ptr_array_free(labels, TRUE);
  form_row(gn, _("Output y"), self->obj_output);
  const char *ml[G_N_ELEMENTS(measures) + 1];
  for (guint k = 0; k < G_N_ELEMENTS(measures); k++)
    ml[k] = _(measures[k].label);
  ml[G_N_ELEMENTS(measures)] = NULL;
  self->obj_measure = gtk_drop_down_new_from_strings(ml);
  form_row(gn, _("Measure"), self->obj_measure);
  self->obj_target = gtk_entry_new();
  gtk_editable_set_text(GTK_EDITABLE(self->obj_target), "0");
  gtk_editable_set_width_chars(GTK_EDITABLE(self->obj_target), 11);
  form_row(gn, _("Target"), self->obj_target);
  self->obj_weight = gtk_entry_new();
  gtk_editable_set_text(GTK_EDITABLE(self->obj_weight), "1");
  gtk_editable_set_width_chars(GTK_EDITABLE(self->obj_weight), 11);
  form_row(gn, _("Weight"), self->obj_weight);
  self->obj_error = gtk_label_new(NULL);
  gtk_widget_add_css_class(self->obj_error, "error");
  gtk_label_set_wrap(GTK_LABEL(self->obj_error), TRUE);
  gtk_label_set_xalign(GTK_LABEL(self->obj_error), 0);
  gtk_widget_set_visible(self->obj_error, FALSE);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(gn), self->obj_error);
  GtkWidget *add = gtk_button_new_with_label(_("Add objective"));
  gtk_widget_set_margin_top(add, 6);
  gtk_widget_set_name(add, "add-objective");
  g_signal_connect(add, "clicked", G_CALLBACK(add_objective_cb), self);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(gn), add);
  g_object_set_data(G_OBJECT(self->obj_name), "add", add);
}

static void show_model(LwPropEditor *self)
{
  const lw_desc *d = self->doc;
  GtkWidget *g = group_new(self, _("Model"), NULL);
  field_add(self, g, _("Name"), NULL, "model/name", d->name ? d->name : "", FALSE);
  num_field(self, g, _("End time"), "s", "solver/t_end");
  num_field(self, g, _("Time step"), "s", "solver/step");
  vec_fields(self, g, _("Gravity"), "m/s²", "gravity", d->planar ? 2 : 3);
  GtkWidget *gc = group_new(self, _("Live check"), NULL);
  GtkWidget *row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _("Degrees of freedom"));
  adw_action_row_set_subtitle(ADW_ACTION_ROW(row), _("from the rank of the constraint Jacobian"));
  char buf[160];
  const lw_check_result *c = &self->info;
  if (!self->have_info || !c->compiled)
    g_strlcpy(buf, "—", sizeof buf);
  else if (c->dof != c->dof_driven)
    g_snprintf(buf, sizeof buf, _("%d (%d with the motors)"), c->dof, c->dof_driven);
  else
    g_snprintf(buf, sizeof buf, "%d", c->dof);
  GtkWidget *l = gtk_label_new(buf);
  gtk_widget_set_name(l, "dof");
  adw_action_row_add_suffix(ADW_ACTION_ROW(row), l);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(gc), row);
  if (self->have_info && c->compiled) {
    row = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _("Assembly"));
    adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
    g_snprintf(buf, sizeof buf, c->assembled ? _("assembled, max |Φ| %.1e") : _("cannot assemble, max |Φ| %.2g"),
               c->residual);
    adw_action_row_set_subtitle(ADW_ACTION_ROW(row), buf);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(gc), row);
  }
  if (d->nparams) {
    GtkWidget *gp = group_new(self, _("Parameters"), NULL);
    for (int i = 0; i < d->nparams; i++) {
      GtkWidget *r = adw_action_row_new();
      adw_preferences_row_set_title(ADW_PREFERENCES_ROW(r), d->params[i].name);
      adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(r), FALSE);
      GString *s = g_string_new(NULL);
      for (int k = 0; k < d->params[i].ntargets; k++)
        g_string_append_printf(s, "%s%s", k ? ", " : "", d->params[i].targets[k]);
      adw_action_row_set_subtitle(ADW_ACTION_ROW(r), s->str);
      g_string_free(s, TRUE);
      adw_preferences_group_add(ADW_PREFERENCES_GROUP(gp), r);
    }
  }
  show_objectives(self);
}

static void rebuild(LwPropEditor *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(self->box)))
    gtk_box_remove(GTK_BOX(self->box), child);
  g_hash_table_remove_all(self->fields);
  self->obj_name = self->obj_output = self->obj_measure = self->obj_target = self->obj_weight = NULL;
  self->obj_error = NULL;
  const lw_desc *d = self->doc;
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
    show_model(self);
  }
}

/* ---- public API ------------------------------------------------------------ */
gboolean lw_prop_editor_add_point(LwPropEditor *self)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  if (!self->selection || !g_str_has_prefix(self->selection, "bodies/"))
    return FALSE;
  lw_desc *d = lw_desc_copy(self->doc);
  const char *bn = self->selection + 7;
  for (int b = 0; b < d->nbodies; b++)
    if (!strcmp(d->bodies[b].name, bn)) {
      char name[32];
      for (int k = 1;; k++) {
        g_snprintf(name, sizeof name, "p%d", k);
        gboolean used = FALSE;
        for (int i = 0; i < d->bodies[b].npoints; i++)
          used |= !strcmp(d->bodies[b].points[i].name, name);
        if (!used)
          break;
      }
      lw_body_add_point(&d->bodies[b], name, d->bodies[b].com);
      g_autofree char *what = g_strdup_printf(_("Add point %s to %s"), name, bn);
      emit_edit(self, d, what);
      return TRUE;
    }
  lw_desc_free(d);
  return FALSE;
}

gboolean lw_prop_editor_trace_point(LwPropEditor *self, const char *point)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  if (!self->selection || !g_str_has_prefix(self->selection, "bodies/") || !point)
    return FALSE;
  const char *bn = self->selection + 7;
  for (int i = 0; i < self->doc->noutputs; i++) {
    const lw_output_desc *o = &self->doc->outputs[i];
    if (o->type == LW_OUT_POSITION && !g_strcmp0(o->body, bn) && !g_strcmp0(o->place.ref, point))
      return FALSE; /* already traced */
  }
  lw_desc *d = lw_desc_copy(self->doc);
  char name[160];
  g_snprintf(name, sizeof name, "%s_%s", bn, point);
  if (lw_desc_name_used(d, name))
    lw_desc_unique_name(d, name, name, sizeof name);
  lw_output_desc *o = lw_desc_add_output(d, name, LW_OUT_POSITION);
  o->body = strdup(bn);
  lw_place_set_ref(&o->place, point);
  g_autofree char *what = g_strdup_printf(_("Trace point %s of %s"), point, bn);
  emit_edit(self, d, what);
  return TRUE;
}

gboolean lw_prop_editor_add_objective(LwPropEditor *self, const char *name, const char *output, int measure,
                                      const char *target, const char *weight)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  if (!self->obj_name)
    return FALSE; /* the model page is not shown */
  GtkStringList *sl = GTK_STRING_LIST(gtk_drop_down_get_model(GTK_DROP_DOWN(self->obj_output)));
  guint n = g_list_model_get_n_items(G_LIST_MODEL(sl)), row = GTK_INVALID_LIST_POSITION;
  for (guint k = 0; k < n; k++)
    if (!g_strcmp0(gtk_string_list_get_string(sl, k), output))
      row = k;
  gtk_editable_set_text(GTK_EDITABLE(self->obj_name), name ? name : "");
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->obj_output), row);
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->obj_measure), (guint)MAX(measure, 0));
  gtk_editable_set_text(GTK_EDITABLE(self->obj_target), target ? target : "");
  gtk_editable_set_text(GTK_EDITABLE(self->obj_weight), weight ? weight : "");
  int before = self->doc->nobjectives;
  g_signal_emit_by_name(g_object_get_data(G_OBJECT(self->obj_name), "add"), "clicked");
  return self->doc->nobjectives > before;
}

void lw_prop_editor_scroll_to_end(LwPropEditor *self)
{
  g_return_if_fail(LW_IS_PROP_EDITOR(self));
  GtkAdjustment *a = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(self->scroller));
  gtk_adjustment_set_value(a, gtk_adjustment_get_upper(a) - gtk_adjustment_get_page_size(a));
}

const char *lw_prop_editor_get_objective_error(LwPropEditor *self)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  if (!self->obj_error || !gtk_widget_get_visible(self->obj_error))
    return NULL;
  return gtk_label_get_text(GTK_LABEL(self->obj_error));
}

gboolean lw_prop_editor_remove_objective(LwPropEditor *self, const char *name)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  lw_desc *d = lw_desc_copy(self->doc);
  g_autofree char *path = g_strdup_printf("objectives/%s", name ? name : "");
  int removed = lw_desc_remove(d, path);
  if (!removed) {
    lw_desc_free(d);
    return FALSE;
  }
  g_autofree char *what = removed > 1 ? g_strdup_printf(_("Remove objective %s and the problems that optimize it"), name)
                                      : g_strdup_printf(_("Remove objective %s"), name);
  emit_edit(self, d, what);
  return TRUE;
}

void lw_prop_editor_set_document(LwPropEditor *self, const lw_desc *doc, const lw_check_result *check)
{
  g_return_if_fail(LW_IS_PROP_EDITOR(self));
  lw_desc_free(self->doc);
  self->doc = doc ? lw_desc_copy(doc) : lw_desc_new();
  free(self->info.joint_state);
  memset(&self->info, 0, sizeof self->info);
  self->have_info = check != NULL;
  if (check) {
    self->info = *check;
    self->info.q = NULL;
    self->info.model = NULL;
    self->info.data = NULL;
    self->info.joint_state = NULL;
    if (check->joint_state && check->njoints > 0)
      self->info.joint_state = g_memdup2(check->joint_state, sizeof(int) * (gsize)check->njoints);
  }
  rebuild(self);
}

void lw_prop_editor_set_selection(LwPropEditor *self, const char *path)
{
  g_return_if_fail(LW_IS_PROP_EDITOR(self));
  g_free(self->selection);
  self->selection = g_strdup(path);
  rebuild(self);
}

const char *lw_prop_editor_get_selection(LwPropEditor *self)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  return self->selection;
}

gboolean lw_prop_editor_enter(LwPropEditor *self, const char *path, const char *text)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  Field *f = g_hash_table_lookup(self->fields, path);
  if (!f)
    return FALSE;
  gtk_editable_set_text(GTK_EDITABLE(f->entry), text);
  g_free(f->error);
  f->error = NULL;
  g_signal_emit_by_name(f->entry, "activate");
  /* a refusal leaves the field (and its error) in place */
  f = g_hash_table_lookup(self->fields, path);
  return !f || !f->error;
}

const char *lw_prop_editor_get_error(LwPropEditor *self, const char *path)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  Field *f = g_hash_table_lookup(self->fields, path);
  return f ? f->error : NULL;
}

const char *lw_prop_editor_get_text(LwPropEditor *self, const char *path)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  Field *f = g_hash_table_lookup(self->fields, path);
  return f ? gtk_editable_get_text(GTK_EDITABLE(f->entry)) : NULL;
}

static void lw_prop_editor_dispose(GObject *object)
{
  LwPropEditor *self = LW_PROP_EDITOR(object);
  if (self->fields)
    g_hash_table_remove_all(self->fields);
  g_clear_pointer(&self->scroller, gtk_widget_unparent);
  G_OBJECT_CLASS(lw_prop_editor_parent_class)->dispose(object);
}

static void lw_prop_editor_finalize(GObject *object)
{
  LwPropEditor *self = LW_PROP_EDITOR(object);
  lw_desc_free(self->doc);
  free(self->info.joint_state);
  g_free(self->selection);
  g_hash_table_unref(self->fields);
  g_array_unref(self->obj_items);
  G_OBJECT_CLASS(lw_prop_editor_parent_class)->finalize(object);
}

static void lw_prop_editor_class_init(LwPropEditorClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS(klass);
  oc->dispose = lw_prop_editor_dispose;
  oc->finalize = lw_prop_editor_finalize;
  signals[SIGNAL_EDIT] = g_signal_new("edit", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_STRING);
  gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role(GTK_WIDGET_CLASS(klass), GTK_ACCESSIBLE_ROLE_GROUP);
}

static void lw_prop_editor_init(LwPropEditor *self)
{
  self->fields = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, field_free);
  self->obj_items = g_array_new(FALSE, TRUE, sizeof(ObjItem));
  self->doc = lw_desc_new();
  self->scroller = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent(self->scroller, GTK_WIDGET(self));
  self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18);
  gtk_widget_set_margin_start(self->box, 12);
  gtk_widget_set_margin_end(self->box, 12);
  gtk_widget_set_margin_top(self->box, 6);
  gtk_widget_set_margin_bottom(self->box, 12);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroller), self->box);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Properties"), -1);
  rebuild(self);
}

GtkWidget *lw_prop_editor_new(void)
{
  return g_object_new(LW_TYPE_PROP_EDITOR, NULL);
}
