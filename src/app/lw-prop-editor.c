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
#include "lw-panel-util.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "lw-units.h"

#define SETTINGS_SCHEMA "io.github.linkwright.Linkwright"
#define DEGREES_KEY "angles-in-degrees"

typedef struct {
  char *path;
  GtkWidget *row, *entry, *button; /* button: "make parameter" (numbers) */
  GtkWidget *section;              /* the section that holds the row */
  lw_quantity q;
  gboolean numeric;
  char *note;                      /* the subtitle while there is no error */
  char *shown;                     /* the text last put into the entry */
  char *error;
} Field;

/* The page is a list of sections (a GtkBox of groups each), each with a key
 * that says what it shows (names, kinds, the parameters' names): a new
 * document rebuilds only the sections whose key changed, and the fields of
 * the others take their new values in place.  An edit thus keeps the rows,
 * the focus and what is being typed elsewhere. */
typedef void (*SectionBuild)(LwPropEditor *self, GtkWidget *section, int index);

struct _LwPropEditor {
  GtkWidget parent_instance;
  GtkWidget *scroller, *outer, *box; /* box: the sections */
  GtkWidget *degrees_switch;
  GSettings *settings;               /* NULL when the schema is not installed */
  gboolean degrees;                  /* angles shown in degrees */
  lw_desc *doc;
  lw_check_result info; /* numbers only */
  gboolean have_info;
  char *selection;
  GHashTable *fields; /* path -> Field */
  GtkWidget *cur_section;            /* the section being built */
  char *applying;                    /* the path of the field being applied */
  char *renamed_from, *renamed_to;   /* "bodies/A/", "bodies/B/" during a rename */
  GPtrArray *leaving;                /* paths of fields left with new text */
  guint leave_idle;
  GHashTable *param_boxes;           /* the parameter rows' value boxes shown */
  GHashTable *sliders;               /* parameter name -> double[2] range, rows shown as sliders */
  /* the element's section last taken off the page, kept with its fields:
   * the window shows the model page for a moment during an edit (the view
   * clears its selection when given the new model, then selects again) */
  GtkWidget *stash;
  GHashTable *stash_fields;
  char *lost_focus;                  /* a field that had the focus when its section left */
  char *refocus;                     /* the field given the focus back */
  guint refocus_idle;
  guint rebuild_idle;                /* a rebuild is due (set_document, set_selection) */
  guint lost_focus_idle;
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
  g_free(f->note);
  g_free(f->shown);
  g_free(f->error);
  g_free(f);
}

static void rebuild(LwPropEditor *self);

static void flush(LwPropEditor *self);

/* the page is up to date with the new document when the handler returns */
static void emit_edit(LwPropEditor *self, lw_desc *d, const char *what)
{
  g_signal_emit(self, signals[SIGNAL_EDIT], 0, d, what);
  flush(self);
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
    adw_action_row_set_subtitle(ADW_ACTION_ROW(f->row), f->note ? f->note : "");
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
  if (g_str_has_prefix(path, "beams/") && (ends_with(path, "/young") || ends_with(path, "/density") ||
                                            ends_with(path, "/area") || ends_with(path, "/inertia") ||
                                            ends_with(path, "/size/0")) && !(v > 0))
    return g_strdup_printf(_("must be a positive number (got %g)"), v);
  if (g_str_has_prefix(path, "beams/") && ends_with(path, "/size/1") && v < 0)
    return g_strdup_printf(_("must not be negative (got %g)"), v);
  if (!strcmp(path, "solver/step") && !(v > 0))
    return g_strdup_printf(_("the time step must be positive (got %g)"), v);
  if (!strcmp(path, "solver/t_end") && v < 0)
    return g_strdup_printf(_("the end time must not be negative (got %g)"), v);
  if (!strcmp(path, "solver/rtol") && !(v > 0 && v < 1))
    return g_strdup_printf(_("the relative tolerance must lie between 0 and 1 (got %g)"), v);
  if (!strcmp(path, "solver/atol") && !(v > 0))
    return g_strdup_printf(_("the absolute tolerance must be positive (got %g)"), v);
  if (!strcmp(path, "solver/rho_inf") && !(v >= 0 && v <= 1))
    return g_strdup_printf(_("the spectral radius must lie between 0 and 1 (got %g)"), v);
  return NULL;
}

/* the solver's settings that are edited but not bound to parameters (the
 * run's tolerances and numerical damping), or NULL for any other path */
static double *solver_setting(lw_desc *d, const char *path)
{
  lw_solver_desc *s = &d->solver;
  if (!strcmp(path, "solver/rtol"))
    return &s->rtol;
  if (!strcmp(path, "solver/atol"))
    return &s->atol;
  if (!strcmp(path, "solver/rho_inf"))
    return &s->rho_inf;
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

static const lw_joint_desc *joint_named(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->njoints; i++)
    if (!g_strcmp0(d->joints[i].name, name))
      return &d->joints[i];
  return NULL;
}

/* the second part of a path ("J" of "initial/J/value"), in buf */
static const char *name_in(const char *path, char *buf, size_t n)
{
  const char *s = strchr(path, '/');
  const char *t = s ? strchr(s + 1, '/') : NULL;
  g_strlcpy(buf, s ? s + 1 : "", MIN(n, t ? (size_t)(t - s) : n));
  return buf;
}

/* a joint that turns (an angle) rather than slides (a length) */
static gboolean joint_turns(const lw_desc *d, const char *joint)
{
  const lw_joint_desc *j = joint_named(d, joint);
  return !j || j->type != LW_JOINT_PRISMATIC;
}

/* the quantity of a joint friction parameter (docs/friction.md sec. 1) */
static lw_quantity friction_quantity(const char *name)
{
  switch (lw_friction_param_index(name)) {
  case 2: /* v_t */
    return LW_Q_VELOCITY;
  case 3: /* viscous */
    return LW_Q_DAMPING;
  case 4: /* length */
  case 5: /* offset */
  case 6: /* width */
  case 7: /* radius */
    return LW_Q_LENGTH;
  case 8: /* preload */
  case 9: /* eps */
    return LW_Q_FORCE;
  default: /* the coefficients */
    return LW_Q_NONE;
  }
}

/* the quantity of a numeric field, from its path */
static lw_quantity quantity_of(const lw_desc *d, const char *path)
{
  char name[128];
  if (g_str_has_prefix(path, "solver/"))
    return !strcmp(path, "solver/t_end") || !strcmp(path, "solver/step") ? LW_Q_TIME
           : !strcmp(path, "solver/atol")                                ? LW_Q_LENGTH
                                                                         : LW_Q_NONE;
  if (g_str_has_prefix(path, "gravity/"))
    return LW_Q_ACCELERATION;
  if (g_str_has_prefix(path, "initial/")) {
    gboolean turns = joint_turns(d, name_in(path, name, sizeof name));
    if (ends_with(path, "/value"))
      return turns ? LW_Q_ANGLE : LW_Q_LENGTH;
    return turns ? LW_Q_ANG_VELOCITY : LW_Q_VELOCITY;
  }
  if (g_str_has_prefix(path, "drivers/")) {
    name_in(path, name, sizeof name);
    const char *joint = NULL;
    for (int i = 0; i < d->ndrivers; i++)
      if (!g_strcmp0(d->drivers[i].name, name))
        joint = d->drivers[i].joint;
    gboolean turns = joint_turns(d, joint);
    if (ends_with(path, "/function/0"))
      return turns ? LW_Q_ANGLE : LW_Q_LENGTH;
    if (ends_with(path, "/function/1"))
      return turns ? LW_Q_ANG_VELOCITY : LW_Q_VELOCITY;
    return LW_Q_NONE;
  }
  if (g_str_has_prefix(path, "forces/")) {
    name_in(path, name, sizeof name);
    const lw_force_desc *f = NULL;
    for (int i = 0; i < d->nforces; i++)
      if (!g_strcmp0(d->forces[i].name, name))
        f = &d->forces[i];
    gboolean rot = f && f->type == LW_FORCE_JOINT_SPRING_DAMPER;
    if (ends_with(path, "/stiffness"))
      return rot ? LW_Q_ROT_STIFFNESS : LW_Q_STIFFNESS;
    if (ends_with(path, "/damping"))
      return rot ? LW_Q_ROT_DAMPING : LW_Q_DAMPING;
    if (ends_with(path, "/rest_length"))
      return LW_Q_LENGTH;
    if (ends_with(path, "/rest_value"))
      return LW_Q_ANGLE;
    if (strstr(path, "/vector/"))
      return f && f->type == LW_FORCE_TORQUE ? LW_Q_TORQUE : LW_Q_FORCE;
    if (strstr(path, "/point1/") || strstr(path, "/point2/"))
      return LW_Q_LENGTH;
    return LW_Q_NONE; /* a time function's factor */
  }
  if (g_str_has_prefix(path, "beams/")) {
    if (ends_with(path, "/young"))
      return LW_Q_PRESSURE;
    if (ends_with(path, "/density"))
      return LW_Q_DENSITY;
    if (ends_with(path, "/damping"))
      return LW_Q_TIME;
    if (ends_with(path, "/area"))
      return LW_Q_AREA;
    if (ends_with(path, "/inertia"))
      return LW_Q_SECOND_MOMENT;
    return LW_Q_LENGTH; /* the section's sizes, the ends */
  }
  if (g_str_has_prefix(path, "bodies/")) {
    if (ends_with(path, "/mass"))
      return LW_Q_MASS;
    if (strstr(path, "/inertia/"))
      return LW_Q_INERTIA;
    if (ends_with(path, "/angle"))
      return LW_Q_ANGLE;
    return LW_Q_LENGTH; /* centre of mass, points, position, frames */
  }
  if (g_str_has_prefix(path, "joints/") && strstr(path, "/friction/"))
    return friction_quantity(strrchr(path, '/') + 1);
  if (g_str_has_prefix(path, "joints/"))
    return ends_with(path, "/angle1") || ends_with(path, "/angle2") ? LW_Q_ANGLE : LW_Q_LENGTH;
  return LW_Q_NONE;
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

/* the friction of the joint of a path "joints/J/friction/P" out of range
 * in d: the reason, else NULL (also for any other path) */
static char *friction_check(const lw_desc *d, const char *path)
{
  if (!g_str_has_prefix(path, "joints/") || !strstr(path, "/friction/"))
    return NULL;
  char name[128];
  name_in(path, name, sizeof name);
  for (int i = 0; i < d->njoints; i++) {
    lw_error e;
    if (!g_strcmp0(d->joints[i].name, name) && lw_joint_friction_check(d, i, &e) != LW_OK)
      return g_strdup(e.msg);
  }
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

/* an edit of a field: the field shows its new value once the document
 * comes back, even with the focus in it */
static void emit_field_edit(LwPropEditor *self, const char *path, lw_desc *d, const char *what)
{
  g_autofree char *keep = g_strdup(path);
  g_free(self->applying);
  self->applying = g_strdup(keep);
  emit_edit(self, d, what);
  g_clear_pointer(&self->applying, g_free);
}

/* the name of an element (path ".../name"); takes d */
static gboolean apply_name(LwPropEditor *self, Field *f, const char *path, const char *t, lw_desc *d)
{
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
  g_autofree char *what = g_strdup_printf(_("Rename %s to %s"), old, t);
  char *sel = g_strdup_printf("%.*s/%s", (int)(strchr(elem, '/') - elem), elem, t);
  g_free(self->selection);
  self->selection = sel;
  /* the focus follows the field to its new path */
  self->renamed_from = g_strdup_printf("%s/", elem);
  self->renamed_to = g_strdup_printf("%s/", sel);
  g_autofree char *npath = g_strdup_printf("%s/name", sel);
  emit_field_edit(self, npath, d, what);
  g_clear_pointer(&self->renamed_from, g_free);
  g_clear_pointer(&self->renamed_to, g_free);
  return TRUE;
}

/* the body (1 or 2) of a joint (path "joints/NAME/body1|2"); takes d */
static gboolean apply_joint_body(LwPropEditor *self, Field *f, const char *path, const char *t, lw_desc *d)
{
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
  g_autofree char *what = g_strdup_printf(_("Joint %s: body %d is %s"), jn, k + 1, t);
  emit_field_edit(self, path, d, what);
  return TRUE;
}

/* the number a field path stands for in d: an initial condition is created
 * when first given; NULL when the field no longer exists */
static double *number_slot(lw_desc *d, const char *path)
{
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
  } else if (!(slot = solver_setting(d, path)))
    slot = lw_desc_field(d, path);
  return slot;
}

/* *slot (the field path of d) becomes v, with what follows it */
static void set_number(lw_desc *d, const char *path, double *slot, double v)
{
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
      if (!strcmp(d->params[i].targets[k], path) && isfinite(lw_param_value_for_field(d, i, k, v)))
        d->params[i].value = lw_param_value_for_field(d, i, k, v);
}

/* a number, with a unit or as an expression; takes d */
static gboolean apply_number(LwPropEditor *self, Field *f, const char *path, const char *t, lw_desc *d)
{
  double v = 0;
  char why_not[256];
  int parsed = lw_units_parse(t, f->q, self->degrees, &v, why_not, sizeof why_not);
  if (parsed != LW_UNITS_OK) {
    g_autofree char *msg = parsed == LW_UNITS_WRONG_UNIT ? g_strdup(why_not)
                                                         : g_strdup_printf(_("'%s' is not a number: %s"), t, why_not);
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
  double *slot = number_slot(d, path);
  if (!slot) {
    show_error(f, _("this field no longer exists"));
    lw_desc_free(d);
    return FALSE;
  }
  set_number(d, path, slot, v);
  char *objection = friction_check(d, path);
  if (!objection)
    objection = compile_check(self->doc, d, path);
  if (objection) {
    show_error(f, objection);
    g_free(objection);
    lw_desc_free(d);
    return FALSE;
  }
  show_error(f, NULL);
  g_autofree char *what = g_strdup_printf(_("Set %s to %s"), path, t);
  emit_field_edit(self, path, d, what);
  return TRUE;
}

/* a beam's number of elements (path "beams/B/elements"); takes d */
static gboolean apply_elements(LwPropEditor *self, Field *f, const char *path, const char *t, lw_desc *d)
{
  g_autofree char *elem = element_of(path);
  int i = -1;
  char *end = NULL;
  gint64 n = g_ascii_strtoll(t, &end, 10);
  g_autofree char *msg = NULL;
  if (lw_desc_find(d, elem, &i) != LW_ELEM_BEAM)
    msg = g_strdup(_("this field no longer exists"));
  else if (!*t || !end || *end || n < 1 || n > LW_EDIT_BEAM_MAX_ELEMENTS)
    msg = g_strdup_printf(_("the number of elements must be a whole number from 1 to %d (got '%s')"),
                          LW_EDIT_BEAM_MAX_ELEMENTS, t);
  if (msg) {
    show_error(f, msg);
    lw_desc_free(d);
    return FALSE;
  }
  d->beams[i].nel = (int)n;
  show_error(f, NULL);
  g_autofree char *what = g_strdup_printf(_("Beam %s: %d elements"), d->beams[i].name, (int)n);
  emit_field_edit(self, path, d, what);
  return TRUE;
}

static gboolean apply_text(LwPropEditor *self, Field *f, const char *text)
{
  g_autofree char *path = g_strdup(f->path);
  g_autofree char *t = g_strstrip(g_strdup(text));
  lw_desc *d = lw_desc_copy(self->doc);
  if (ends_with(path, "/name"))
    return apply_name(self, f, path, t, d);
  if (!strcmp(path, "model/name")) {
    free(d->name);
    d->name = *t ? strdup(t) : NULL;
    emit_field_edit(self, path, d, _("Rename the model"));
    return TRUE;
  }
  if (g_str_has_prefix(path, "joints/") && (ends_with(path, "/body1") || ends_with(path, "/body2")))
    return apply_joint_body(self, f, path, t, d);
  if (g_str_has_prefix(path, "beams/") && ends_with(path, "/elements"))
    return apply_elements(self, f, path, t, d);
  return apply_number(self, f, path, t, d);
}

static void entry_activate_cb(GtkEntry *entry, gpointer user)
{
  LwPropEditor *self = user;
  const char *path = g_object_get_data(G_OBJECT(entry), "path");
  Field *f = g_hash_table_lookup(self->fields, path);
  if (f)
    apply_text(self, f, gtk_editable_get_text(GTK_EDITABLE(entry)));
}

/* text left in a field that lost the focus: applied, or put back with the
 * reason shown when refused */
static void apply_left_field(LwPropEditor *self, const char *path)
{
  Field *f = g_hash_table_lookup(self->fields, path);
  if (!f)
    return;
  g_autofree char *text = g_strdup(gtk_editable_get_text(GTK_EDITABLE(f->entry)));
  if (!g_strcmp0(text, f->shown) || apply_text(self, f, text))
    return;
  f = g_hash_table_lookup(self->fields, path);
  if (!f || !f->error)
    return;
  g_autofree char *msg = g_strdup_printf(_("%s (kept %s)"), f->error, f->shown && *f->shown ? f->shown : _("empty"));
  gtk_editable_set_text(GTK_EDITABLE(f->entry), f->shown ? f->shown : "");
  show_error(f, msg);
}

static gboolean leave_idle_cb(gpointer user)
{
  LwPropEditor *self = user;
  self->leave_idle = 0;
  g_autoptr(GPtrArray) paths = g_steal_pointer(&self->leaving);
  self->leaving = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < paths->len; i++)
    apply_left_field(self, g_ptr_array_index(paths, i));
  return G_SOURCE_REMOVE;
}

/* the focus left an entry: its text is applied once the focus has moved
 * (the edit may rebuild the page, which is not done in the middle of a
 * focus change) */
static void entry_leave_cb(GtkEventControllerFocus *c, gpointer user)
{
  LwPropEditor *self = user;
  GtkWidget *entry = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(c));
  const char *path = g_object_get_data(G_OBJECT(entry), "path");
  Field *f = path ? g_hash_table_lookup(self->fields, path) : NULL;
  if (!f || f->entry != entry || !g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(entry)), f->shown))
    return;
  g_ptr_array_add(self->leaving, g_strdup(path));
  if (!self->leave_idle)
    self->leave_idle = g_idle_add_full(G_PRIORITY_HIGH_IDLE, leave_idle_cb, g_object_ref(self), g_object_unref);
}

static char *param_name_for(const lw_desc *d, const char *path)
{
  /* bodies/crank/mass -> crank_mass; bodies/crank/points/end/0 -> crank_end_x */
  g_auto(GStrv) parts = g_strsplit(path, "/", -1);
  GString *s = g_string_new(NULL);
  static const char *const axes[] = {"x", "y", "z"};
  /* a model-wide vector keeps its own name: gravity/1 -> gravity_y */
  int first = g_strv_length(parts) == 2 && g_ascii_isdigit(parts[1][0]) ? 0 : 1;
  for (int i = first; parts[i]; i++) {
    if (!strcmp(parts[i], "points") || !strcmp(parts[i], "function"))
      continue;
    const char *p = parts[i];
    if (g_ascii_isdigit(p[0]) && !p[1] && p[0] < '3' && i > first && strcmp(parts[i - 1], "function"))
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
  flush(self);
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
  /* title and description are markup; element names are text */
  GtkWidget *g = adw_preferences_group_new();
  g_autofree char *et = g_markup_escape_text(title, -1);
  adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(g), et);
  if (description) {
    g_autofree char *ed = g_markup_escape_text(description, -1);
    adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(g), ed);
  }
  gtk_box_append(GTK_BOX(self->cur_section), g);
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

/* the "make parameter" button of a field, as the document says */
static void field_button_update(LwPropEditor *self, Field *f, const char *title)
{
  gboolean bound = is_parameter(self->doc, f->path);
  if (g_object_get_data(G_OBJECT(f->button), "bound") == GINT_TO_POINTER(bound + 1))
    return;
  g_object_set_data(G_OBJECT(f->button), "bound", GINT_TO_POINTER(bound + 1));
  gtk_button_set_icon_name(GTK_BUTTON(f->button), bound ? "emblem-ok-symbolic" : "list-add-symbolic");
  g_autofree char *tip = bound ? g_strdup(_("This field is a parameter"))
                               : g_strdup_printf(_("Make a parameter of %s"), f->path);
  gtk_widget_set_tooltip_text(f->button, tip);
  if (title) {
    g_autofree char *bname = g_strdup_printf(_("Make parameter: %s"), title);
    gtk_accessible_update_property(GTK_ACCESSIBLE(f->button), GTK_ACCESSIBLE_PROPERTY_LABEL, bname, -1);
  }
  gtk_widget_set_sensitive(f->button, !bound);
}

static void field_set_text(Field *f, const char *text)
{
  g_free(f->shown);
  f->shown = g_strdup(text);
  gtk_editable_set_text(GTK_EDITABLE(f->entry), text);
}

static Field *field_add(LwPropEditor *self, GtkWidget *group, const char *title, const char *note, const char *path,
                        const char *text, gboolean numeric)
{
  Field *f = g_new0(Field, 1);
  f->path = g_strdup(path);
  f->note = g_strdup(note);
  f->numeric = numeric;
  f->q = numeric ? quantity_of(self->doc, path) : LW_Q_NONE;
  f->section = self->cur_section;
  f->row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(f->row), title);
  adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(f->row), FALSE);
  if (note)
    adw_action_row_set_subtitle(ADW_ACTION_ROW(f->row), note);
  f->entry = gtk_entry_new();
  field_set_text(f, text);
  gtk_editable_set_width_chars(GTK_EDITABLE(f->entry), numeric ? 11 : 12);
  gtk_widget_set_valign(f->entry, GTK_ALIGN_CENTER);
  const char *unit = numeric ? lw_quantity_unit(f->q, self->degrees) : "";
  g_autofree char *aname = *unit ? g_strdup_printf("%s (%s)", title, unit) : g_strdup(title);
  gtk_accessible_update_property(GTK_ACCESSIBLE(f->entry), GTK_ACCESSIBLE_PROPERTY_LABEL, aname, -1);
  gtk_widget_set_tooltip_text(f->entry, numeric ? _("A number, an expression (pi/2, 2*0.35) or a value with a unit "
                                                    "(250 mm, 90 deg); applied on Enter, Tab or a click elsewhere")
                                                : _("Applied on Enter, Tab or a click elsewhere"));
  g_object_set_data_full(G_OBJECT(f->entry), "path", g_strdup(path), g_free);
  g_signal_connect(f->entry, "activate", G_CALLBACK(entry_activate_cb), self);
  GtkEventController *focus = gtk_event_controller_focus_new();
  g_signal_connect(focus, "leave", G_CALLBACK(entry_leave_cb), self);
  gtk_widget_add_controller(f->entry, focus);
  adw_action_row_add_suffix(ADW_ACTION_ROW(f->row), f->entry);
  if (numeric) {
    /* the unit beside the value (a fixed width, so that the entries line up) */
    GtkWidget *u = gtk_label_new(unit);
    gtk_label_set_width_chars(GTK_LABEL(u), 7);
    gtk_label_set_xalign(GTK_LABEL(u), 0);
    gtk_widget_add_css_class(u, "dim-label");
    adw_action_row_add_suffix(ADW_ACTION_ROW(f->row), u);
  }
  if (numeric && !solver_setting(self->doc, path)) {
    f->button = gtk_button_new_from_icon_name("list-add-symbolic");
    gtk_widget_add_css_class(f->button, "flat");
    gtk_widget_set_valign(f->button, GTK_ALIGN_CENTER);
    field_button_update(self, f, title);
    g_object_set_data_full(G_OBJECT(f->button), "path", g_strdup(path), g_free);
    g_signal_connect(f->button, "clicked", G_CALLBACK(make_param_cb), self);
    adw_action_row_add_suffix(ADW_ACTION_ROW(f->row), f->button);
  }
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), f->row);
  g_hash_table_replace(self->fields, f->path, f);
  return f;
}

/* the largest magnitude among a vector's components (path .../K), 0 for
 * a scalar: a component that is round-off beside it (cos(pi/2) =
 * 6.1e-17) is shown as 0 */
static double component_scale(lw_desc *d, const char *path)
{
  const char *slash = strrchr(path, '/');
  if (!slash || !g_ascii_isdigit(slash[1]) || slash[2])
    return 0;
  double scale = 0;
  for (int k = 0; k < 4; k++) {
    g_autofree char *p = g_strdup_printf("%.*s/%d", (int)(slash - path), path, k);
    double *c = lw_desc_field(d, p);
    if (c)
      scale = fmax(scale, fabs(*c));
  }
  return scale;
}

/* the text of a numeric field's value in the document ("" when it has none) */
static void num_text_of(LwPropEditor *self, const char *path, lw_quantity q, char *buf, size_t n)
{
  buf[0] = 0;
  if (g_str_has_prefix(path, "initial/")) {
    char joint[128];
    const lw_initial_desc *in = initial_for(self->doc, name_in(path, joint, sizeof joint));
    gboolean value = ends_with(path, "/value");
    if (in && (value ? in->has_value : in->has_velocity))
      lw_units_format(value ? in->value : in->velocity, q, self->degrees, buf, n);
    return;
  }
  double *v = solver_setting(self->doc, path);
  if (!v)
    v = lw_desc_field(self->doc, path);
  if (v)
    lw_units_format(lw_panel_clean(*v, component_scale(self->doc, path)), q, self->degrees, buf, n);
}

/* the text a field shows for the document (names and bodies as they are) */
static char *field_text(LwPropEditor *self, Field *f)
{
  if (f->numeric) {
    char buf[64];
    num_text_of(self, f->path, f->q, buf, sizeof buf);
    return g_strdup(buf);
  }
  if (!strcmp(f->path, "model/name"))
    return g_strdup(self->doc->name ? self->doc->name : "");
  int bi = -1;
  g_autofree char *elem = element_of(f->path);
  if (ends_with(f->path, "/elements") && lw_desc_find(self->doc, elem, &bi) == LW_ELEM_BEAM)
    return g_strdup_printf("%d", self->doc->beams[bi].nel);
  if (g_str_has_prefix(f->path, "joints/") && (ends_with(f->path, "/body1") || ends_with(f->path, "/body2"))) {
    char jn[128];
    const lw_joint_desc *j = joint_named(self->doc, name_in(f->path, jn, sizeof jn));
    const char *b = j ? j->body[ends_with(f->path, "/body2")] : NULL;
    return g_strdup(b ? b : "ground");
  }
  return g_strdup(f->shown);
}

static void num_text(char *buf, size_t n, double v)
{
  g_ascii_formatd(buf, (int)n, "%.10g", v);
}

static void num_field(LwPropEditor *self, GtkWidget *g, const char *title, const char *note, const char *path)
{
  char buf[64];
  num_text_of(self, path, quantity_of(self->doc, path), buf, sizeof buf);
  field_add(self, g, title, note, path, buf, TRUE);
}

static void vec_fields(LwPropEditor *self, GtkWidget *g, const char *title, const char *note, const char *base, int n)
{
  static const char *const axes[] = {"x", "y", "z"};
  for (int i = 0; i < n; i++) {
    g_autofree char *t = g_strdup_printf("%s %s", title, axes[i]);
    g_autofree char *p = g_strdup_printf("%s/%d", base, i);
    num_field(self, g, t, note, p);
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
  GtkWidget *g = group_new(self, title, _("Enter, Tab or a click elsewhere applies a value; every change can be undone"));
  g_autofree char *base = g_strdup_printf("bodies/%s", b->name);
  g_autofree char *pn = g_strdup_printf("%s/name", base);
  field_add(self, g, _("Name"), NULL, pn, b->name, FALSE);
  g_autofree char *pm = g_strdup_printf("%s/mass", base);
  num_field(self, g, _("Mass"), NULL, pm);
  g_autofree char *pc = g_strdup_printf("%s/com", base);
  vec_fields(self, g, _("Centre of mass"), _("body frame"), pc, dim);
  if (d->planar) {
    g_autofree char *pi = g_strdup_printf("%s/inertia/2", base);
    num_field(self, g, _("Moment of inertia"), _("about the centre of mass"), pi);
  } else {
    static const char *const names[] = {"Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz"};
    for (int k = 0; k < 6; k++) {
      g_autofree char *pi = g_strdup_printf("%s/inertia/%d", base, k);
      num_field(self, g, names[k], _("body axes"), pi);
    }
  }
  GtkWidget *gp = group_new(self, _("Points"), _("Local coordinates"));
  for (int k = 0; k < b->npoints; k++) {
    g_autofree char *pp = g_strdup_printf("%s/points/%s", base, b->points[k].name);
    g_autofree char *t = g_strdup_printf(_("Point %s"), b->points[k].name);
    vec_fields(self, gp, t, NULL, pp, dim);
  }
  button_add(gp, _("Add a point at the centre of mass"), G_CALLBACK(add_point_cb), self, NULL);
  for (int k = 0; k < b->npoints; k++) {
    g_autofree char *t = g_strdup_printf(_("Plot and trace point %s"), b->points[k].name);
    button_add(gp, t, G_CALLBACK(trace_cb), self, b->points[k].name);
  }
  GtkWidget *gg = group_new(self, _("Initial guess"), _("Where assembly starts from"));
  g_autofree char *pos = g_strdup_printf("%s/position", base);
  vec_fields(self, gg, _("Position"), NULL, pos, dim);
  if (d->planar) {
    g_autofree char *pa = g_strdup_printf("%s/angle", base);
    num_field(self, gg, _("Angle"), NULL, pa);
  }
}

/* the section types in the drop-down's order (lw_section_type) */
static const char *const section_labels[] = {N_("Rectangle"), N_("Circle"), N_("Hollow circle"), N_("Generic"), NULL};

/* beam b's section becomes type t, its sizes carried over so that the
 * section keeps its outer size (generic: the area and second moment it had) */
static void beam_section_convert(lw_beam_desc *b, lw_section_type t)
{
  double A = 0, I = 0, outer = b->size[0];
  if (lw_beam_section(b, &A, &I) == 0 && b->section == LW_SECTION_GENERIC)
    outer = sqrt(4 * A / G_PI); /* a solid circle of the same area */
  if (t == LW_SECTION_GENERIC && A > 0) {
    b->area = A;
    b->inertia = I;
  }
  b->size[0] = outer > 0 ? outer : 0.02;
  if (t == LW_SECTION_RECTANGLE)
    b->size[1] = b->section == LW_SECTION_RECTANGLE ? b->size[1] : b->size[0];
  else if (t == LW_SECTION_TUBE)
    b->size[1] = b->section == LW_SECTION_TUBE ? b->size[1] : 0.5 * b->size[0];
  else if (t == LW_SECTION_CIRCLE)
    b->size[1] = 0;
  b->section = t;
}

gboolean lw_prop_editor_set_beam_section(LwPropEditor *self, const char *beam, lw_section_type t)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  g_autofree char *path = g_strconcat("beams/", beam, NULL);
  int i = -1;
  if ((int)t < 0 || t >= LW_SECTION_NTYPES || lw_desc_find(self->doc, path, &i) != LW_ELEM_BEAM)
    return FALSE;
  if (self->doc->beams[i].section == t)
    return TRUE;
  lw_desc *d = lw_desc_copy(self->doc);
  beam_section_convert(&d->beams[i], t);
  g_autofree char *what = g_strdup_printf(_("Beam %s: %s section"), beam, _(section_labels[t]));
  g_autofree char *fpath = g_strconcat(path, "/section", NULL);
  emit_field_edit(self, fpath, d, what);
  return TRUE;
}

static void section_changed_cb(GObject *drop, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  const char *beam = g_object_get_data(drop, "beam");
  lw_prop_editor_set_beam_section(user, beam, (lw_section_type)gtk_drop_down_get_selected(GTK_DROP_DOWN(drop)));
}

/* the section's row: a drop-down of the section types */
static void section_row(LwPropEditor *self, GtkWidget *g, const lw_beam_desc *b)
{
  const char *names[LW_SECTION_NTYPES + 1];
  for (int k = 0; k <= LW_SECTION_NTYPES; k++)
    names[k] = section_labels[k] ? _(section_labels[k]) : NULL;
  GtkWidget *drop = gtk_drop_down_new_from_strings(names);
  gtk_drop_down_set_selected(GTK_DROP_DOWN(drop), (guint)b->section);
  g_object_set_data_full(G_OBJECT(drop), "beam", g_strdup(b->name), g_free);
  g_signal_connect(drop, "notify::selected", G_CALLBACK(section_changed_cb), self);
  GtkWidget *r = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(r), _("Section"));
  gtk_widget_set_valign(drop, GTK_ALIGN_CENTER);
  gtk_accessible_update_property(GTK_ACCESSIBLE(drop), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Section"), -1);
  adw_action_row_add_suffix(ADW_ACTION_ROW(r), drop);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(g), r);
}

static void show_beam(LwPropEditor *self, const lw_beam_desc *b)
{
  int dim = self->doc->planar ? 2 : 3;
  g_autofree char *title = g_strdup_printf(_("Beam %s"), b->name);
  GtkWidget *g = group_new(self, title, _("A flexible beam of equal elements, straight and unstrained at the start"));
  g_autofree char *base = g_strdup_printf("beams/%s", b->name);
  g_autofree char *pn = g_strdup_printf("%s/name", base);
  field_add(self, g, _("Name"), NULL, pn, b->name, FALSE);
  g_autofree char *pe = g_strdup_printf("%s/elements", base);
  g_autofree char *ne = g_strdup_printf("%d", b->nel);
  field_add(self, g, _("Elements"), _("more elements follow the bending more closely"), pe, ne, FALSE);
  GtkWidget *gs = group_new(self, _("Section"), NULL);
  section_row(self, gs, b);
  g_autofree char *p0 = g_strdup_printf("%s/size/0", base), *p1 = g_strdup_printf("%s/size/1", base);
  switch (b->section) {
  case LW_SECTION_RECTANGLE:
    num_field(self, gs, _("Width"), NULL, p0);
    num_field(self, gs, _("Height"), _("the beam bends across its height"), p1);
    break;
  case LW_SECTION_CIRCLE:
    num_field(self, gs, _("Diameter"), NULL, p0);
    break;
  case LW_SECTION_TUBE:
    num_field(self, gs, _("Outer diameter"), NULL, p0);
    num_field(self, gs, _("Inner diameter"), NULL, p1);
    break;
  default: {
    g_autofree char *pa = g_strdup_printf("%s/area", base), *pi = g_strdup_printf("%s/inertia", base);
    num_field(self, gs, _("Area"), NULL, pa);
    num_field(self, gs, _("Second moment of area"), _("bending, alike in every direction"), pi);
  }
  }
  GtkWidget *gm = group_new(self, _("Material"), NULL);
  g_autofree char *py = g_strdup_printf("%s/young", base), *pd = g_strdup_printf("%s/density", base);
  g_autofree char *pc = g_strdup_printf("%s/damping", base);
  num_field(self, gm, _("Young's modulus"), NULL, py);
  num_field(self, gm, _("Density"), NULL, pd);
  num_field(self, gm, _("Damping time"), _("Kelvin–Voigt: the bending moment is EI (κ + η dκ/dt)"), pc);
  GtkWidget *gx = group_new(self, _("Ends"), _("Where the straight beam starts and ends (global)"));
  g_autofree char *ps = g_strdup_printf("%s/start", base), *pt = g_strdup_printf("%s/end", base);
  vec_fields(self, gx, _("Start"), NULL, ps, dim);
  vec_fields(self, gx, _("End"), NULL, pt, dim);
}

static void show_friction(LwPropEditor *self, const lw_joint_desc *j);

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
      vec_fields(self, g, t, NULL, p, dim);
    }
  if (d->planar)
    for (int b = 0; b < 2; b++) {
      g_autofree char *t = g_strdup_printf(_("Angle on body %d"), b + 1);
      g_autofree char *p = g_strdup_printf("%s/angle%d", base, b + 1);
      num_field(self, g, t, NULL, p);
    }
  int nco = lw_joint_ncoords(j->type, d->planar);
  if (nco > 0) {
    GtkWidget *gi = group_new(self, _("Initial condition"), _("Coordinate 0 at the start (empty: found by assembly)"));
    g_autofree char *pv = g_strdup_printf("initial/%s/value", j->name);
    num_field(self, gi, _("Initial value"), NULL, pv);
    g_autofree char *pw = g_strdup_printf("initial/%s/velocity", j->name);
    num_field(self, gi, _("Initial velocity"), NULL, pw);
  }
  for (int i = 0; i < d->ndrivers; i++) {
    const lw_driver_desc *r = &d->drivers[i];
    if (g_strcmp0(r->joint, j->name))
      continue;
    g_autofree char *t = g_strdup_printf(_("Motor %s"), r->name);
    GtkWidget *gm = group_new(self, t, _("Prescribed motion: start value + speed × t"));
    g_autofree char *p0 = g_strdup_printf("drivers/%s/function/0", r->name);
    num_field(self, gm, _("Start value"), NULL, p0);
    if (r->func.type == LW_FUNC_LINEAR) {
      g_autofree char *p1 = g_strdup_printf("drivers/%s/function/1", r->name);
      num_field(self, gm, _("Speed"), NULL, p1);
    }
  }
  show_friction(self, j);
}

/* ---- joint friction --------------------------------------------------------- */
/* the joint types whose friction is simulated (planar models: revolute and
 * prismatic joints only) */
static gboolean friction_possible(const lw_desc *d, const lw_joint_desc *j)
{
  if (j->type == LW_JOINT_REVOLUTE || j->type == LW_JOINT_PRISMATIC)
    return TRUE;
  return !d->planar &&
         (j->type == LW_JOINT_CYLINDRICAL || j->type == LW_JOINT_SPHERICAL || j->type == LW_JOINT_PLANAR);
}

/* every friction parameter at zero: never given (turning friction on takes
 * the defaults then, and a joint's values otherwise come back as they were) */
static gboolean friction_unset(const lw_joint_desc *j)
{
  for (int k = 0; k < LW_FRICTION_NPARAMS; k++)
    if (j->friction[k] != 0)
      return FALSE;
  return TRUE;
}

/* a joint's friction on or off, as an undoable edit; FALSE (and the reason
 * under the switch) when the model would not compile so (a parameter bound
 * to one of its fields) */
static gboolean apply_friction_switch(LwPropEditor *self, const char *joint, gboolean on, GtkWidget *row)
{
  lw_desc *d = lw_desc_copy(self->doc);
  lw_joint_desc *j = (lw_joint_desc *)joint_named(d, joint);
  if (!j || !!j->has_friction == !!on) {
    lw_desc_free(d);
    return j != NULL;
  }
  if (on && friction_unset(j))
    lw_joint_friction_defaults(j);
  j->has_friction = on;
  lw_error e, e0;
  lw_model *m = lw_compile(d, &e), *m0 = m ? NULL : lw_compile(self->doc, &e0);
  gboolean broke = !m && m0; /* the switch alone would break a model that compiles */
  lw_model_free(m);
  lw_model_free(m0);
  if (broke) {
    if (row)
      adw_action_row_set_subtitle(ADW_ACTION_ROW(row), e.msg);
    lw_desc_free(d);
    return FALSE;
  }
  g_autofree char *what = on ? g_strdup_printf(_("Friction on joint %s"), joint)
                             : g_strdup_printf(_("No friction on joint %s"), joint);
  emit_edit(self, d, what);
  return TRUE;
}

static void friction_switch_cb(GObject *sw, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  LwPropEditor *self = user;
  const char *joint = g_object_get_data(sw, "joint");
  gboolean on = gtk_switch_get_active(GTK_SWITCH(sw));
  const lw_joint_desc *j = joint_named(self->doc, joint);
  if (!j || !!j->has_friction == !!on)
    return;
  if (!apply_friction_switch(self, joint, on, g_object_get_data(sw, "row")))
    gtk_switch_set_active(GTK_SWITCH(sw), !on); /* the model's state again */
}

/* the friction group of a joint page: a switch, then the law's parameters */
static void show_friction(LwPropEditor *self, const lw_joint_desc *j)
{
  static const char *const titles[LW_FRICTION_NPARAMS] = {
    N_("Static coefficient μs"), N_("Dynamic coefficient μd"), N_("Transition velocity v_t"),
    N_("Viscous coefficient"), N_("Bearing length a"), N_("Bearing offset"),
    N_("Half-width b"), N_("Effective radius r_e"), N_("Preload N0"), N_("Smoothing force ε")};
  static const char *const notes[LW_FRICTION_NPARAMS] = {
    N_("the law's peak, at slip v_t"), N_("at slips well above v_t"), N_("0: ten steps' worth (10 h m/s)"),
    N_("not scaled by the load"), N_("along the axis"), N_("bearing centre from the joint origin"),
    N_("prismatic: axis to the faces; planar joint: pad width"), N_("turns a rotation rate into a slip speed; a ball joint: the ball's radius"),
    N_("constant normal force added"), N_("of the smoothed |x|")};
  if (!friction_possible(self->doc, j))
    return;
  GtkWidget *g =
    group_new(self, _("Friction"), _("Brown–McPhee law with the normal force from the joint's reaction"));
  GtkWidget *row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _("Joint friction"));
  GtkWidget *sw = gtk_switch_new();
  gtk_widget_set_valign(sw, GTK_ALIGN_CENTER);
  gtk_switch_set_active(GTK_SWITCH(sw), j->has_friction);
  gtk_accessible_update_property(GTK_ACCESSIBLE(sw), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Joint friction"), -1);
  g_autofree char *swpath = g_strdup_printf("joints/%s/friction", j->name);
  g_object_set_data_full(G_OBJECT(sw), "path", g_strdup(swpath), g_free);
  g_object_set_data_full(G_OBJECT(sw), "joint", g_strdup(j->name), g_free);
  g_object_set_data(G_OBJECT(sw), "row", row);
  g_signal_connect(sw, "notify::active", G_CALLBACK(friction_switch_cb), self);
  adw_action_row_add_suffix(ADW_ACTION_ROW(row), sw);
  adw_action_row_set_activatable_widget(ADW_ACTION_ROW(row), sw);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(g), row);
  if (!j->has_friction)
    return;
  for (int k = 0; k < LW_FRICTION_NPARAMS; k++) {
    g_autofree char *p = g_strdup_printf("%s/%s", swpath, lw_friction_param_name(k));
    num_field(self, g, _(titles[k]), _(notes[k]), p);
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
    num_field(self, g, _("Stiffness"), NULL, p);
    g_free(p);
    p = g_strdup_printf("%s/damping", base);
    num_field(self, g, _("Damping"), NULL, p);
    g_free(p);
    p = g_strdup_printf(lin ? "%s/rest_length" : "%s/rest_value", base);
    num_field(self, g, lin ? _("Rest length") : _("Rest value"), NULL, p);
    if (lin)
      for (int k = 0; k < 2; k++)
        if (!f->place[k].ref) {
          g_autofree char *t = g_strdup_printf(_("End %d on %s"), k + 1, f->body[k] ? f->body[k] : "ground");
          g_autofree char *pp = g_strdup_printf("%s/point%d", base, k + 1);
          vec_fields(self, g, t, NULL, pp, dim);
        }
    break;
  }
  case LW_FORCE_FORCE:
  case LW_FORCE_TORQUE: {
    g_autofree char *pv = g_strdup_printf("%s/vector", base);
    if (f->type == LW_FORCE_TORQUE && d->planar) {
      g_autofree char *pz = g_strdup_printf("%s/vector/2", base);
      num_field(self, g, _("Torque"), NULL, pz);
    } else
      vec_fields(self, g, f->type == LW_FORCE_TORQUE ? _("Torque") : _("Force"),
                 NULL, pv, f->type == LW_FORCE_TORQUE ? 3 : dim);
    if (f->type == LW_FORCE_FORCE && !f->place[0].ref) {
      g_autofree char *pp = g_strdup_printf("%s/point1", base);
      vec_fields(self, g, _("Point"), NULL, pp, dim);
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
}

/* a new objective: name, output (or one of its components), measure, target, weight */
static void show_objective_form(LwPropEditor *self)
{
  const lw_desc *d = self->doc;
  static const char *const axes[] = {"x", "y", "z"};
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

/* ---- the model page ---------------------------------------------------------- */
static void show_model_fields(LwPropEditor *self)
{
  const lw_desc *d = self->doc;
  GtkWidget *g = group_new(self, _("Model"), NULL);
  field_add(self, g, _("Name"), NULL, "model/name", d->name ? d->name : "", FALSE);
  vec_fields(self, g, _("Gravity"), NULL, "gravity", d->planar ? 2 : 3);
}

/* ---- the solver ---------------------------------------------------------------- */
static const char *const integrator_ids[] = {"ali3p", "variational"};
static const char *const integrator_labels[] = {N_("ALI3-P"), N_("Variational"), NULL};
static const char *const integrator_notes[] = {N_("augmented Lagrangian, index 3 (the trapezoidal rule)"),
                                               N_("midpoint rule: the energy's error stays bounded"), NULL};
static const char *const mode_labels[] = {N_("Fixed step"), N_("Error tolerance"), NULL};
static const char *const order_labels[] = {N_("2 (trapezoidal rule)"), N_("4 (extrapolated)"), NULL};

static int integrator_index(const lw_solver_desc *s)
{
  return !strcmp(s->integrator, "variational") ? 1 : 0;
}

/* setting "integrator" (choice 0 ALI3-P, 1 variational), "mode" (0 the
 * fixed step, 1 the error tolerance) or "order" (0: 2, 1: 4) of d's
 * solver; the variational integrator takes the fixed step and no
 * numerical damping with it, the tolerance mode no numerical damping (the
 * combinations the compiler refuses).  The edit's name in what; FALSE for
 * a setting or choice that does not exist or is not open */
static gboolean solver_choose(lw_solver_desc *s, const char *setting, guint choice, char *what, size_t n)
{
  if (!strcmp(setting, "integrator") && choice < G_N_ELEMENTS(integrator_ids)) {
    g_strlcpy(s->integrator, integrator_ids[choice], sizeof s->integrator);
    if (choice == 1)
      s->mode = LW_MODE_STEP, s->rho_inf = 1.0;
    g_snprintf(what, n, _("Integrator: %s"), _(integrator_labels[choice]));
  } else if (!strcmp(setting, "mode") && choice < 2 && (choice == 0 || integrator_index(s) == 0)) {
    s->mode = choice ? LW_MODE_TOLERANCE : LW_MODE_STEP;
    if (choice)
      s->rho_inf = 1.0;
    g_snprintf(what, n, _("Step control: %s"), _(mode_labels[choice]));
  } else if (!strcmp(setting, "order") && choice < 2 && s->mode == LW_MODE_TOLERANCE) {
    s->order = choice ? 4 : 2;
    g_snprintf(what, n, _("Order of the error control: %s"), _(order_labels[choice]));
  } else
    return FALSE;
  return TRUE;
}

gboolean lw_prop_editor_set_solver(LwPropEditor *self, const char *setting, guint choice)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  lw_desc *d = lw_desc_copy(self->doc);
  char what[256];
  if (!solver_choose(&d->solver, setting, choice, what, sizeof what)) {
    lw_desc_free(d);
    return FALSE;
  }
  if (!memcmp(&d->solver, &self->doc->solver, sizeof d->solver)) {
    lw_desc_free(d);
    return TRUE;
  }
  g_autofree char *path = g_strconcat("solver/", setting, NULL);
  emit_field_edit(self, path, d, what);
  return TRUE;
}

static void solver_drop_cb(GObject *row, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  LwPropEditor *self = user;
  const char *setting = g_object_get_data(row, "setting");
  guint choice = adw_combo_row_get_selected(ADW_COMBO_ROW(row));
  if (lw_prop_editor_set_solver(self, setting, choice))
    return;
  /* refused: the row shows the model's choice again */
  const lw_solver_desc *s = &self->doc->solver;
  guint now = !strcmp(setting, "integrator") ? (guint)integrator_index(s)
              : !strcmp(setting, "mode")     ? (s->mode == LW_MODE_TOLERANCE)
                                             : (s->order != 2);
  g_signal_handlers_block_by_func(row, solver_drop_cb, self);
  adw_combo_row_set_selected(ADW_COMBO_ROW(row), now);
  g_signal_handlers_unblock_by_func(row, solver_drop_cb, self);
}

/* a combo row of labels (NULL-terminated), choice selected: its title
 * names it for assistive technologies too */
static GtkWidget *solver_drop(LwPropEditor *self, GtkWidget *g, const char *title, const char *note,
                              const char *setting, const char *const *labels, guint choice)
{
  GtkStringList *list = gtk_string_list_new(NULL);
  for (int k = 0; labels[k]; k++)
    gtk_string_list_append(list, _(labels[k]));
  GtkWidget *r = adw_combo_row_new();
  adw_combo_row_set_model(ADW_COMBO_ROW(r), G_LIST_MODEL(list));
  g_object_unref(list);
  adw_combo_row_set_selected(ADW_COMBO_ROW(r), choice);
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(r), title);
  if (note)
    adw_action_row_set_subtitle(ADW_ACTION_ROW(r), note);
  gtk_widget_set_name(r, setting);
  g_object_set_data(G_OBJECT(r), "setting", (gpointer)setting);
  g_signal_connect(r, "notify::selected", G_CALLBACK(solver_drop_cb), self);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(g), r);
  return r;
}

/* the run's length and step, the integrator, the step control and what
 * each of them takes (the rows shown depend on the choices: the section's
 * key holds them) */
static void show_solver(LwPropEditor *self)
{
  const lw_solver_desc *s = &self->doc->solver;
  GtkWidget *g = group_new(self, _("Solver"), NULL);
  gboolean tol = s->mode == LW_MODE_TOLERANCE, vi = integrator_index(s) == 1;
  num_field(self, g, _("End time"), NULL, "solver/t_end");
  num_field(self, g, tol ? _("Output interval") : _("Time step"),
            tol ? _("the steps themselves are sized to the tolerance") : NULL, "solver/step");
  solver_drop(self, g, _("Integrator"), _(integrator_notes[integrator_index(s)]), "integrator", integrator_labels,
              (guint)integrator_index(s));
  GtkWidget *mode = solver_drop(self, g, _("Step control"),
                                vi ? _("the variational integrator takes the fixed step") : NULL, "mode",
                                mode_labels, tol ? 1 : 0);
  gtk_widget_set_sensitive(mode, !vi);
  if (tol) {
    num_field(self, g, _("Relative tolerance"), _("of the local error, per step"), "solver/rtol");
    num_field(self, g, _("Absolute tolerance"), NULL, "solver/atol");
    solver_drop(self, g, _("Order"), NULL, "order", order_labels, s->order == 2 ? 0 : 1);
  } else if (!vi)
    num_field(self, g, _("Numerical damping ρ∞"),
              _("1: none (trapezoidal rule); below 1 damps the highest frequencies"), "solver/rho_inf");
}

static GString *solver_key(const lw_desc *d)
{
  GString *k = g_string_new(NULL);
  g_string_printf(k, "solver\x1f%s\x1f%d\x1f%d", d->solver.integrator, d->solver.mode, d->solver.order);
  return k;
}

/* the live check's degrees of freedom and assembly, as text (assembly "" when not compiled) */
static void check_texts(LwPropEditor *self, char *dof, char *assembly, size_t n)
{
  const lw_check_result *c = &self->info;
  assembly[0] = 0;
  if (!self->have_info || !c->compiled)
    g_strlcpy(dof, "—", n);
  else if (c->dof != c->dof_driven)
    g_snprintf(dof, n, _("%d (%d with the motors)"), c->dof, c->dof_driven);
  else
    g_snprintf(dof, n, "%d", c->dof);
  if (self->have_info && c->compiled)
    g_snprintf(assembly, n, c->assembled ? _("assembled, max |Φ| %.1e") : _("cannot assemble, max |Φ| %.2g"),
               c->residual);
}

static void show_check(LwPropEditor *self)
{
  GtkWidget *gc = group_new(self, _("Live check"), NULL);
  GtkWidget *row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _("Degrees of freedom"));
  adw_action_row_set_subtitle(ADW_ACTION_ROW(row), _("from the rank of the constraint Jacobian"));
  char dof[160], assembly[160];
  check_texts(self, dof, assembly, sizeof dof);
  GtkWidget *l = gtk_label_new(dof);
  gtk_widget_set_name(l, "dof");
  adw_action_row_add_suffix(ADW_ACTION_ROW(row), l);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(gc), row);
  if (*assembly) {
    row = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _("Assembly"));
    adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
    adw_action_row_set_subtitle(ADW_ACTION_ROW(row), assembly);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(gc), row);
  }
}

/* ---- parameters: a value, and on demand a slider ------------------------------ */
typedef struct {
  LwPropEditor *self; /* the page that holds the row */
  int index;          /* in doc->params, -1 while unbound */
  GtkWidget *value, *scale, *toggle;
  gboolean binding;   /* the widgets are being set from the document */
  /* what the widgets show: a row is set again only when it changed */
  int shown_index;
  double shown_value;
  const double *shown_range;
  gboolean shown_degrees;
} ParamRow;

static lw_quantity param_quantity(const lw_desc *d, const lw_param_desc *p)
{
  return p->ntargets > 0 ? quantity_of(d, p->targets[0]) : LW_Q_NONE;
}

static void param_value_text(LwPropEditor *self, const lw_param_desc *p, double v, char *buf, size_t n)
{
  lw_quantity q = param_quantity(self->doc, p);
  char num[64];
  lw_units_format(v, q, self->degrees, num, sizeof num);
  const char *unit = lw_quantity_unit(q, self->degrees);
  g_snprintf(buf, n, "%s%s%s", num, *unit ? " " : "", unit);
}

/* a slider's range: the bounds an optimization problem gives the
 * parameter, else half its value on either side */
static void param_range(const lw_desc *d, const lw_param_desc *p, double range[2])
{
  for (int i = 0; i < d->nproblems; i++)
    for (int k = 0; k < d->problems[i].nvars; k++) {
      const lw_var_desc *v = &d->problems[i].vars[k];
      if (v->has_lower && v->has_upper && v->upper > v->lower && lw_param_name_matches(v->parameter, p->name)) {
        range[0] = v->lower;
        range[1] = v->upper;
        return;
      }
    }
  double h = p->value != 0 ? 0.5 * fabs(p->value) : 1.0;
  range[0] = p->value - h;
  range[1] = p->value + h;
}

/* the parameter's value becomes the model's: an undoable edit */
static void param_commit(LwPropEditor *self, int index, double v)
{
  if (index < 0 || index >= self->doc->nparams || self->doc->params[index].value == v)
    return;
  lw_desc *d = lw_desc_copy(self->doc);
  lw_param_desc *p = &d->params[index];
  p->value = v;
  lw_desc_apply_params(d);
  char text[96];
  param_value_text(self, p, v, text, sizeof text);
  g_autofree char *what = g_strdup_printf(_("Set parameter %s to %s"), p->name, text);
  emit_edit(self, d, what);
}

static void param_row_update(LwPropEditor *self, ParamRow *r)
{
  if (r->index < 0 || r->index >= self->doc->nparams)
    return;
  const lw_param_desc *p = &self->doc->params[r->index];
  const double *range = g_hash_table_lookup(self->sliders, p->name);
  if (r->shown_index == r->index && r->shown_value == p->value && r->shown_range == range &&
      r->shown_degrees == self->degrees)
    return;
  gboolean rebound = r->shown_index != r->index;
  r->shown_index = r->index;
  r->shown_value = p->value;
  r->shown_range = range;
  r->shown_degrees = self->degrees;
  char text[96];
  param_value_text(self, p, p->value, text, sizeof text);
  gtk_label_set_text(GTK_LABEL(r->value), text);
  r->binding = TRUE;
  gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(r->toggle), range != NULL);
  gtk_widget_set_visible(r->scale, range != NULL);
  if (range) {
    gtk_range_set_range(GTK_RANGE(r->scale), MIN(range[0], p->value), MAX(range[1], p->value));
    gtk_range_set_increments(GTK_RANGE(r->scale), (range[1] - range[0]) / 100, (range[1] - range[0]) / 10);
    gtk_range_set_value(GTK_RANGE(r->scale), p->value);
  }
  r->binding = FALSE;
  if (!rebound)
    return;
  g_autofree char *tip = g_strdup_printf(_("Show %s as a slider"), p->name);
  gtk_widget_set_tooltip_text(r->toggle, tip);
  gtk_accessible_update_property(GTK_ACCESSIBLE(r->toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, tip, -1);
  gtk_accessible_update_property(GTK_ACCESSIBLE(r->scale), GTK_ACCESSIBLE_PROPERTY_LABEL, p->name, -1);
  r->binding = FALSE;
}

static void param_toggled_cb(GtkToggleButton *b, gpointer user)
{
  ParamRow *r = user;
  LwPropEditor *self = r->self;
  if (r->binding || r->index < 0 || r->index >= self->doc->nparams)
    return;
  const lw_param_desc *p = &self->doc->params[r->index];
  if (gtk_toggle_button_get_active(b)) {
    double *range = g_new(double, 2);
    param_range(self->doc, p, range);
    g_hash_table_replace(self->sliders, g_strdup(p->name), range);
  } else
    g_hash_table_remove(self->sliders, p->name);
  param_row_update(self, r);
}

/* while the slider moves, its value is shown; the model changes on release */
static void param_scale_moved_cb(GtkRange *range, gpointer user)
{
  ParamRow *r = user;
  if (r->binding || r->index < 0 || r->index >= r->self->doc->nparams)
    return;
  char text[96];
  param_value_text(r->self, &r->self->doc->params[r->index], gtk_range_get_value(range), text, sizeof text);
  gtk_label_set_text(GTK_LABEL(r->value), text);
}

static void param_scale_release(ParamRow *r)
{
  if (!r->binding)
    param_commit(r->self, r->index, gtk_range_get_value(GTK_RANGE(r->scale)));
}

static gboolean param_scale_event_cb(GtkEventControllerLegacy *c, GdkEvent *event, gpointer user)
{
  (void)c;
  GdkEventType t = gdk_event_get_event_type(event);
  if (t == GDK_BUTTON_RELEASE || t == GDK_KEY_RELEASE || t == GDK_TOUCH_END)
    param_scale_release(user);
  return FALSE;
}

static void param_row_forget_cb(GtkWidget *box, gpointer user)
{
  g_hash_table_remove(LW_PROP_EDITOR(user)->param_boxes, box);
}

/* the value, the slider and its toggle of a parameter's row */
static GtkWidget *param_box_new(LwPropEditor *self)
{
  ParamRow *r = g_new0(ParamRow, 1);
  r->self = self;
  r->index = -1;
  r->shown_index = -1;
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  r->scale = gtk_scale_new(GTK_ORIENTATION_HORIZONTAL, NULL);
  gtk_widget_set_size_request(r->scale, 160, -1);
  gtk_widget_set_visible(r->scale, FALSE);
  g_signal_connect(r->scale, "value-changed", G_CALLBACK(param_scale_moved_cb), r);
  GtkEventController *legacy = gtk_event_controller_legacy_new();
  gtk_event_controller_set_propagation_phase(legacy, GTK_PHASE_CAPTURE);
  g_signal_connect(legacy, "event", G_CALLBACK(param_scale_event_cb), r);
  gtk_widget_add_controller(r->scale, legacy);
  r->value = gtk_label_new(NULL);
  gtk_label_set_width_chars(GTK_LABEL(r->value), 14);
  gtk_label_set_xalign(GTK_LABEL(r->value), 1);
  gtk_widget_add_css_class(r->value, "numeric");
  r->toggle = gtk_toggle_button_new_with_label(_("Slider"));
  gtk_widget_add_css_class(r->toggle, "flat");
  gtk_widget_set_valign(r->toggle, GTK_ALIGN_CENTER);
  g_signal_connect(r->toggle, "toggled", G_CALLBACK(param_toggled_cb), r);
  gtk_box_append(GTK_BOX(box), r->scale);
  gtk_box_append(GTK_BOX(box), r->value);
  gtk_box_append(GTK_BOX(box), r->toggle);
  g_object_set_data_full(G_OBJECT(box), "param-row", r, g_free);
  g_hash_table_add(self->param_boxes, box);
  g_signal_connect(box, "destroy", G_CALLBACK(param_row_forget_cb), self);
  return box;
}

static void param_box_bind(LwPropEditor *self, GtkWidget *box, int index)
{
  ParamRow *r = g_object_get_data(G_OBJECT(box), "param-row");
  r->index = index;
  param_row_update(self, r);
}

static char *param_targets_text(const lw_param_desc *p)
{
  GString *s = g_string_new(NULL);
  for (int k = 0; k < p->ntargets; k++)
    g_string_append_printf(s, "%s%s", k ? ", " : "", p->targets[k]);
  return g_string_free(s, FALSE);
}

/* the rows of an array's list: made for the rows on screen only */
static void param_item_setup_cb(GtkSignalListItemFactory *f, GtkListItem *item, gpointer user)
{
  (void)f;
  GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start(row, 12);
  gtk_widget_set_margin_end(row, 6);
  gtk_widget_set_margin_top(row, 3);
  gtk_widget_set_margin_bottom(row, 3);
  GtkWidget *name = gtk_label_new(NULL);
  gtk_label_set_xalign(GTK_LABEL(name), 0);
  gtk_widget_set_hexpand(name, TRUE);
  gtk_box_append(GTK_BOX(row), name);
  gtk_box_append(GTK_BOX(row), param_box_new(user));
  gtk_list_item_set_child(item, row);
}

static void param_item_bind_cb(GtkSignalListItemFactory *f, GtkListItem *item, gpointer user)
{
  LwPropEditor *self = user;
  int first = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(f), "first"));
  int index = first + (int)gtk_list_item_get_position(item);
  GtkWidget *row = gtk_list_item_get_child(item);
  GtkWidget *name = gtk_widget_get_first_child(row);
  if (index < self->doc->nparams) {
    gtk_label_set_text(GTK_LABEL(name), self->doc->params[index].name);
    param_box_bind(self, gtk_widget_get_next_sibling(name), index);
  }
}

/* "u" of "u[12]" (NULL when the name is not an element of an array) */
static char *array_base(const char *name)
{
  const char *b = strchr(name, '[');
  return b && b > name && g_str_has_suffix(name, "]") ? g_strndup(name, (gsize)(b - name)) : NULL;
}

/* an array's elements: one row that opens onto a list of them */
static void show_param_array(LwPropEditor *self, GtkWidget *group, int first, int n, const char *base)
{
  const lw_desc *d = self->doc;
  GtkWidget *row = adw_expander_row_new();
  g_autofree char *title = g_strdup_printf("%s[%d]", base, n);
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), title);
  adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
  g_autofree char *t0 = param_targets_text(&d->params[first]);
  g_autofree char *sub = g_strdup_printf(_("%d values: %s, …"), n, t0);
  adw_expander_row_set_subtitle(ADW_EXPANDER_ROW(row), sub);
  GtkStringList *names = gtk_string_list_new(NULL);
  for (int i = 0; i < n; i++)
    gtk_string_list_append(names, d->params[first + i].name);
  GtkListItemFactory *f = gtk_signal_list_item_factory_new();
  g_object_set_data(G_OBJECT(f), "first", GINT_TO_POINTER(first));
  g_signal_connect(f, "setup", G_CALLBACK(param_item_setup_cb), self);
  g_signal_connect(f, "bind", G_CALLBACK(param_item_bind_cb), self);
  GtkWidget *list = gtk_list_view_new(GTK_SELECTION_MODEL(gtk_no_selection_new(G_LIST_MODEL(names))), f);
  gtk_widget_add_css_class(list, "background");
  gtk_widget_set_name(list, "parameter-list");
  g_object_set_data(G_OBJECT(row), "list", list);
  GtkWidget *scroller = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height(GTK_SCROLLED_WINDOW(scroller), 280);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), list);
  adw_expander_row_add_row(ADW_EXPANDER_ROW(row), scroller);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
  g_object_set_data_full(G_OBJECT(row), "array", g_strdup(base), g_free);
}

static void show_params(LwPropEditor *self)
{
  const lw_desc *d = self->doc;
  if (!d->nparams)
    return;
  GtkWidget *gp = group_new(self, _("Parameters"), _("Their values are the model's; a slider sets one on release"));
  for (int i = 0; i < d->nparams;) {
    g_autofree char *base = array_base(d->params[i].name);
    int n = 1;
    while (base && i + n < d->nparams) {
      g_autofree char *b2 = array_base(d->params[i + n].name);
      if (g_strcmp0(base, b2))
        break;
      n++;
    }
    if (n > 1) {
      show_param_array(self, gp, i, n, base);
      i += n;
      continue;
    }
    GtkWidget *r = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(r), d->params[i].name);
    adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(r), FALSE);
    g_autofree char *targets = param_targets_text(&d->params[i]);
    adw_action_row_set_subtitle(ADW_ACTION_ROW(r), targets);
    GtkWidget *box = param_box_new(self);
    gtk_widget_set_valign(box, GTK_ALIGN_CENTER);
    adw_action_row_add_suffix(ADW_ACTION_ROW(r), box);
    param_box_bind(self, box, i);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(gp), r);
    i++;
  }
}

/* ---- sections ------------------------------------------------------------------ */
typedef struct {
  char *key;
  SectionBuild build;
  int index;
} Section;

static void section_free(gpointer p)
{
  Section *s = p;
  g_free(s->key);
  g_free(s);
}

static void build_body(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  show_body(self, &self->doc->bodies[i]);
}

static void build_beam(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  show_beam(self, &self->doc->beams[i]);
}

static void build_joint(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  show_joint(self, &self->doc->joints[i]);
}

static void build_force(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  show_force(self, &self->doc->forces[i]);
}

static void build_model(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  (void)i;
  show_model_fields(self);
}

static void build_solver(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  (void)i;
  show_solver(self);
}

static void build_check(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  (void)i;
  show_check(self);
}

static void build_params(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  (void)i;
  show_params(self);
}

static void build_objectives(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)sec;
  (void)i;
  show_objectives(self);
}

static void build_form(LwPropEditor *self, GtkWidget *sec, int i)
{
  (void)i;
  g_object_set_data(G_OBJECT(sec), "form", GINT_TO_POINTER(1));
  show_objective_form(self);
}

static void section_add(GPtrArray *list, SectionBuild build, int index, GString *key)
{
  Section *s = g_new0(Section, 1);
  s->key = g_string_free(key, FALSE);
  s->build = build;
  s->index = index;
  g_ptr_array_add(list, s);
}

static GString *body_key(const lw_desc *d, const lw_body_desc *b)
{
  GString *k = g_string_new(NULL);
  g_string_printf(k, "body\x1f%s\x1f%d", b->name, d->planar);
  for (int i = 0; i < b->npoints; i++)
    g_string_append_printf(k, "\x1f%s", b->points[i].name);
  return k;
}

static GString *joint_key(LwPropEditor *self, int ji)
{
  const lw_desc *d = self->doc;
  const lw_joint_desc *j = &d->joints[ji];
  GString *k = g_string_new(NULL);
  int state = self->have_info && ji < self->info.njoints && self->info.joint_state ? self->info.joint_state[ji] : 0;
  g_string_printf(k, "joint\x1f%s\x1f%d\x1f%s\x1f%s\x1f%d%d%d%d\x1f%d\x1f%d\x1f%d", j->name, j->type, j->body[0],
                  j->body[1], j->has_place[0], !j->place[0].ref, j->has_place[1], !j->place[1].ref, d->planar, state,
                  j->has_friction);
  for (int i = 0; i < d->ndrivers; i++)
    if (!g_strcmp0(d->drivers[i].joint, j->name))
      g_string_append_printf(k, "\x1f%s:%d", d->drivers[i].name, d->drivers[i].func.type);
  return k;
}

static GString *beam_key(const lw_desc *d, const lw_beam_desc *b)
{
  GString *k = g_string_new(NULL);
  g_string_printf(k, "beam\x1f%s\x1f%d\x1f%d", b->name, b->section, d->planar);
  return k;
}

static GString *force_key(const lw_desc *d, const lw_force_desc *f)
{
  GString *k = g_string_new(NULL);
  g_string_printf(k, "force\x1f%s\x1f%d\x1f%s\x1f%s\x1f%d%d\x1f%d\x1f%d", f->name, f->type, f->body[0], f->body[1],
                  !f->place[0].ref, !f->place[1].ref, f->func.type, d->planar);
  return k;
}

static GString *params_key(const lw_desc *d)
{
  GString *k = g_string_new("params");
  for (int i = 0; i < d->nparams; i++) {
    g_string_append_printf(k, "\x1f%s", d->params[i].name);
    for (int t = 0; t < d->params[i].ntargets; t++)
      g_string_append_printf(k, "\x1e%s", d->params[i].targets[t]);
  }
  return k;
}

static GString *objectives_key(const lw_desc *d)
{
  GString *k = g_string_new("objectives");
  for (int i = 0; i < d->nobjectives; i++) {
    g_autofree char *sum = objective_summary(&d->objectives[i]);
    g_string_append_printf(k, "\x1f%s\x1e%d\x1e%s", d->objectives[i].name, d->objectives[i].nterms, sum);
  }
  return k;
}

static GString *form_key(const lw_desc *d)
{
  GString *k = g_string_new("form");
  g_string_append_printf(k, "\x1f%d\x1f%d", d->planar, d->nobjectives);
  for (int i = 0; i < d->noutputs; i++)
    g_string_append_printf(k, "\x1f%s:%d", d->outputs[i].name, d->outputs[i].type);
  return k;
}

/* what the page shows for the document and the selection */
static GPtrArray *sections_for(LwPropEditor *self)
{
  GPtrArray *list = g_ptr_array_new_with_free_func(section_free);
  const lw_desc *d = self->doc;
  int i;
  lw_elem_kind kind = lw_desc_find(d, self->selection, &i);
  if (kind == LW_ELEM_BODY)
    section_add(list, build_body, i, body_key(d, &d->bodies[i]));
  else if (kind == LW_ELEM_JOINT)
    section_add(list, build_joint, i, joint_key(self, i));
  else if (kind == LW_ELEM_FORCE)
    section_add(list, build_force, i, force_key(d, &d->forces[i]));
  else if (kind == LW_ELEM_BEAM)
    section_add(list, build_beam, i, beam_key(d, &d->beams[i]));
  if (kind != LW_ELEM_NONE)
    return list;
  g_clear_pointer(&self->selection, g_free);
  GString *k = g_string_new(NULL);
  g_string_printf(k, "model\x1f%d", d->planar);
  section_add(list, build_model, 0, k);
  section_add(list, build_solver, 0, solver_key(d));
  char dof[160], assembly[160];
  check_texts(self, dof, assembly, sizeof dof);
  k = g_string_new(NULL);
  g_string_printf(k, "check\x1f%s\x1f%s", dof, assembly);
  section_add(list, build_check, 0, k);
  section_add(list, build_params, 0, params_key(d));
  section_add(list, build_objectives, 0, objectives_key(d));
  section_add(list, build_form, 0, form_key(d));
  return list;
}

static gboolean field_in_section(gpointer key, gpointer value, gpointer section)
{
  (void)key;
  return ((Field *)value)->section == section;
}

static void stash_clear(LwPropEditor *self)
{
  g_hash_table_remove_all(self->stash_fields);
  g_clear_object(&self->stash);
}

/* an element's section is kept aside with its fields; the others go */
static void section_remove(LwPropEditor *self, GtkWidget *sec)
{
  if (g_object_get_data(G_OBJECT(sec), "element")) {
    stash_clear(self);
    self->stash = g_object_ref(sec);
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, self->fields);
    while (g_hash_table_iter_next(&it, &key, &value))
      if (((Field *)value)->section == sec) {
        g_hash_table_iter_steal(&it);
        g_hash_table_replace(self->stash_fields, key, value);
      }
  } else
    g_hash_table_foreach_remove(self->fields, field_in_section, sec);
  /* the form's widgets, unless a new form has replaced them already */
  if (self->obj_name && gtk_widget_is_ancestor(self->obj_name, sec)) {
    self->obj_name = self->obj_output = self->obj_measure = self->obj_target = self->obj_weight = NULL;
    self->obj_error = NULL;
  }
  gtk_box_remove(GTK_BOX(self->box), sec);
}

/* the section kept aside, when it is the one with this key */
static GtkWidget *section_unstash(LwPropEditor *self, const char *key)
{
  if (!self->stash || g_strcmp0(g_object_get_data(G_OBJECT(self->stash), "key"), key))
    return NULL;
  GHashTableIter it;
  gpointer k, value;
  g_hash_table_iter_init(&it, self->stash_fields);
  while (g_hash_table_iter_next(&it, &k, &value)) {
    g_hash_table_iter_steal(&it);
    g_hash_table_replace(self->fields, k, value);
  }
  GtkWidget *sec = self->stash;
  self->stash = NULL;
  g_object_force_floating(G_OBJECT(sec));
  return sec;
}

static GtkWidget *section_build(LwPropEditor *self, const Section *s)
{
  GtkWidget *sec = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18);
  g_object_set_data_full(G_OBJECT(sec), "key", g_strdup(s->key), g_free);
  if (s->build == build_body || s->build == build_joint || s->build == build_force || s->build == build_beam)
    g_object_set_data(G_OBJECT(sec), "element", GINT_TO_POINTER(1));
  self->cur_section = sec;
  s->build(self, sec, s->index);
  self->cur_section = NULL;
  return sec;
}

/* the field the focus is in ("" when none of this page's) */
static char *focused_path(LwPropEditor *self)
{
  GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(self));
  GtkWidget *focus = root ? gtk_root_get_focus(root) : NULL;
  GtkWidget *entry = focus ? gtk_widget_get_ancestor(focus, GTK_TYPE_ENTRY) : NULL;
  if (!entry || !gtk_widget_is_ancestor(entry, GTK_WIDGET(self)))
    return NULL;
  const char *path = g_object_get_data(G_OBJECT(entry), "path");
  if (!path)
    return NULL;
  if (self->renamed_from && g_str_has_prefix(path, self->renamed_from))
    return g_strconcat(self->renamed_to, path + strlen(self->renamed_from), NULL);
  return g_strdup(path);
}

/* the field to have the focus, unless the focus went to another field or
 * out of the page */
static gboolean refocus_idle_cb(gpointer user)
{
  LwPropEditor *self = user;
  self->refocus_idle = 0;
  g_autofree char *path = g_steal_pointer(&self->refocus);
  Field *f = path ? g_hash_table_lookup(self->fields, path) : NULL;
  GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(self));
  GtkWidget *focus = root ? gtk_root_get_focus(root) : NULL;
  /* GTK hands the focus of a widget taken off the page to its parents */
  gboolean moved_up = !focus || focus == GTK_WIDGET(self) || gtk_widget_is_ancestor(GTK_WIDGET(self), focus) ||
                      (gtk_widget_is_ancestor(focus, GTK_WIDGET(self)) && !GTK_IS_EDITABLE(focus) &&
                       !gtk_widget_get_ancestor(focus, GTK_TYPE_EDITABLE));
  if (!f || !moved_up || (focus && gtk_widget_is_ancestor(focus, f->entry)))
    return G_SOURCE_REMOVE;
  gtk_widget_grab_focus(f->entry);
  gtk_editable_set_position(GTK_EDITABLE(f->entry), -1);
  return G_SOURCE_REMOVE;
}

static gboolean lost_focus_idle_cb(gpointer user)
{
  LwPropEditor *self = user;
  self->lost_focus_idle = 0;
  g_clear_pointer(&self->lost_focus, g_free);
  return G_SOURCE_REMOVE;
}

/* the focus back in the field it was in, when rebuilding took it away; a
 * field not on the page now gets it back if it returns before the main loop
 * goes on */
static void focus_restore(LwPropEditor *self, const char *path)
{
  if (!path)
    return;
  Field *f = g_hash_table_lookup(self->fields, path);
  GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(self));
  if (!f) {
    if (g_strcmp0(path, self->lost_focus)) {
      g_free(self->lost_focus);
      self->lost_focus = g_strdup(path);
    }
    if (!self->lost_focus_idle)
      self->lost_focus_idle = g_idle_add(lost_focus_idle_cb, self);
    return;
  }
  g_clear_pointer(&self->lost_focus, g_free);
  if (!root)
    return;
  GtkWidget *focus = gtk_root_get_focus(root);
  if (!focus || (focus != f->entry && !gtk_widget_is_ancestor(focus, f->entry))) {
    gtk_widget_grab_focus(f->entry);
    gtk_editable_set_position(GTK_EDITABLE(f->entry), -1);
  }
  /* GTK moves the focus of a field taken off the page (and put back) to
   * its parents afterwards, and the window may move it while it finishes
   * the edit: checked once more when it is done */
  g_free(self->refocus);
  self->refocus = g_strdup(path);
  if (!self->refocus_idle)
    self->refocus_idle = g_idle_add_full(G_PRIORITY_HIGH_IDLE, refocus_idle_cb, g_object_ref(self), g_object_unref);
}

/* the fields kept take the document's values; one being typed into keeps
 * its text (unless it is the one just applied) */
/* the friction switches under w show the document's state (a section kept
 * aside and shown again has the switch as it was last toggled) */
static void sync_friction_switches(LwPropEditor *self, GtkWidget *w)
{
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    const char *joint = GTK_IS_SWITCH(c) ? g_object_get_data(G_OBJECT(c), "joint") : NULL;
    const lw_joint_desc *j = joint ? joint_named(self->doc, joint) : NULL;
    if (j && !!gtk_switch_get_active(GTK_SWITCH(c)) != !!j->has_friction) {
      g_signal_handlers_block_by_func(c, friction_switch_cb, self);
      gtk_switch_set_active(GTK_SWITCH(c), j->has_friction);
      g_signal_handlers_unblock_by_func(c, friction_switch_cb, self);
    } else if (!joint)
      sync_friction_switches(self, c);
  }
}

static void refresh_fields(LwPropEditor *self)
{
  if (self->selection && g_str_has_prefix(self->selection, "joints/"))
    sync_friction_switches(self, self->box);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, self->fields);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    Field *f = value;
    if (f->button)
      field_button_update(self, f, NULL);
    gboolean applied = !g_strcmp0(f->path, self->applying);
    gboolean typing = g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(f->entry)), f->shown) != 0;
    if (typing && !applied)
      continue;
    g_autofree char *text = field_text(self, f);
    if (applied || g_strcmp0(text, f->shown))
      field_set_text(f, text);
  }
  GHashTableIter pit;
  gpointer box;
  g_hash_table_iter_init(&pit, self->param_boxes);
  while (g_hash_table_iter_next(&pit, &box, NULL))
    param_row_update(self, g_object_get_data(G_OBJECT(box), "param-row"));
}

/* sections whose key changed are built again, the others kept */
static void rebuild(LwPropEditor *self)
{
  g_autofree char *focus = focused_path(self);
  if (!focus)
    focus = g_strdup(self->lost_focus);
  g_autoptr(GPtrArray) list = sections_for(self);
  GtkWidget *cur = gtk_widget_get_first_child(self->box), *prev = NULL;
  for (guint i = 0; i < list->len; i++) {
    const Section *s = g_ptr_array_index(list, i);
    if (cur && !g_strcmp0(g_object_get_data(G_OBJECT(cur), "key"), s->key)) {
      prev = cur;
      cur = gtk_widget_get_next_sibling(cur);
      continue;
    }
    GtkWidget *sec = section_unstash(self, s->key);
    if (!sec)
      sec = section_build(self, s);
    gtk_box_insert_child_after(GTK_BOX(self->box), sec, prev);
    prev = sec;
    if (cur) {
      GtkWidget *next = gtk_widget_get_next_sibling(cur);
      section_remove(self, cur);
      cur = next;
    }
  }
  while (cur) {
    GtkWidget *next = gtk_widget_get_next_sibling(cur);
    section_remove(self, cur);
    cur = next;
  }
  refresh_fields(self);
  focus_restore(self, focus);
}

/* everything built again (the units changed) */
static void rebuild_all(LwPropEditor *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(self->box)))
    section_remove(self, child);
  stash_clear(self);
  rebuild(self);
}

static void degrees_changed(LwPropEditor *self, gboolean degrees)
{
  if (self->degrees == degrees)
    return;
  self->degrees = degrees;
  rebuild_all(self);
}

static void degrees_switch_cb(GObject *sw, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  degrees_changed(user, gtk_switch_get_active(GTK_SWITCH(sw)));
}

/* the preference row at the top of the page */
static GtkWidget *units_group_new(LwPropEditor *self)
{
  GtkWidget *g = adw_preferences_group_new();
  GtkWidget *row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _("Angles in degrees"));
  adw_action_row_set_subtitle(ADW_ACTION_ROW(row), _("Off: radians. The file keeps radians either way"));
  self->degrees_switch = gtk_switch_new();
  gtk_widget_set_valign(self->degrees_switch, GTK_ALIGN_CENTER);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self->degrees_switch), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                 _("Angles in degrees"), -1);
  gtk_switch_set_active(GTK_SWITCH(self->degrees_switch), self->degrees);
  if (self->settings)
    g_settings_bind(self->settings, DEGREES_KEY, self->degrees_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect(self->degrees_switch, "notify::active", G_CALLBACK(degrees_switch_cb), self);
  adw_action_row_add_suffix(ADW_ACTION_ROW(row), self->degrees_switch);
  adw_action_row_set_activatable_widget(ADW_ACTION_ROW(row), self->degrees_switch);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(g), row);
  return g;
}

/* The window hands over a document, then (its view having been given the
 * new model) the selection cleared and set again: the page is brought up
 * to date once they are done, or at once when asked about its fields. */
static gboolean rebuild_idle_cb(gpointer user)
{
  LwPropEditor *self = user;
  self->rebuild_idle = 0;
  rebuild(self);
  return G_SOURCE_REMOVE;
}

static void rebuild_soon(LwPropEditor *self)
{
  if (!self->rebuild_idle)
    self->rebuild_idle = g_idle_add_full(G_PRIORITY_HIGH_IDLE, rebuild_idle_cb, self, NULL);
}

static void flush(LwPropEditor *self)
{
  if (!self->rebuild_idle)
    return;
  g_clear_handle_id(&self->rebuild_idle, g_source_remove);
  rebuild(self);
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
  flush(self);
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
  flush(self);
  GtkAdjustment *a = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(self->scroller));
  gtk_adjustment_set_value(a, gtk_adjustment_get_upper(a) - gtk_adjustment_get_page_size(a));
}

const char *lw_prop_editor_get_objective_error(LwPropEditor *self)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  flush(self);
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
  rebuild_soon(self);
}

void lw_prop_editor_set_selection(LwPropEditor *self, const char *path)
{
  g_return_if_fail(LW_IS_PROP_EDITOR(self));
  g_free(self->selection);
  self->selection = g_strdup(path);
  rebuild_soon(self);
}

const char *lw_prop_editor_get_selection(LwPropEditor *self)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  int i;
  /* an element that is gone is no longer the selection (as the page will
   * show); one being renamed is, by its new name */
  if (self->selection && !self->renamed_to && lw_desc_find(self->doc, self->selection, &i) == LW_ELEM_NONE)
    return NULL;
  return self->selection;
}

gboolean lw_prop_editor_enter(LwPropEditor *self, const char *path, const char *text)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  flush(self);
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
  flush(self);
  Field *f = g_hash_table_lookup(self->fields, path);
  return f ? f->error : NULL;
}

const char *lw_prop_editor_get_text(LwPropEditor *self, const char *path)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  flush(self);
  Field *f = g_hash_table_lookup(self->fields, path);
  return f ? gtk_editable_get_text(GTK_EDITABLE(f->entry)) : NULL;
}

GtkWidget *lw_prop_editor_get_entry(LwPropEditor *self, const char *path)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  flush(self);
  Field *f = path ? g_hash_table_lookup(self->fields, path) : NULL;
  return f ? f->entry : NULL;
}

const char *lw_prop_editor_get_unit(LwPropEditor *self, const char *path)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  flush(self);
  Field *f = path ? g_hash_table_lookup(self->fields, path) : NULL;
  return f && f->numeric ? lw_quantity_unit(f->q, self->degrees) : NULL;
}

void lw_prop_editor_set_degrees(LwPropEditor *self, gboolean degrees)
{
  g_return_if_fail(LW_IS_PROP_EDITOR(self));
  gtk_switch_set_active(GTK_SWITCH(self->degrees_switch), degrees);
}

gboolean lw_prop_editor_get_degrees(LwPropEditor *self)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), TRUE);
  return self->degrees;
}

/* the value box of a parameter's row on screen, or NULL */
static ParamRow *param_row_shown(LwPropEditor *self, const char *name)
{
  GHashTableIter it;
  gpointer box;
  g_hash_table_iter_init(&it, self->param_boxes);
  while (g_hash_table_iter_next(&it, &box, NULL)) {
    ParamRow *r = g_object_get_data(G_OBJECT(box), "param-row");
    if (r->index >= 0 && r->index < self->doc->nparams && !g_strcmp0(self->doc->params[r->index].name, name))
      return r;
  }
  return NULL;
}

gboolean lw_prop_editor_set_slider(LwPropEditor *self, const char *name, gboolean on)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  flush(self);
  ParamRow *r = name ? param_row_shown(self, name) : NULL;
  if (!r)
    return FALSE;
  gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(r->toggle), on);
  return TRUE;
}

GtkWidget *lw_prop_editor_get_slider(LwPropEditor *self, const char *name)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), NULL);
  flush(self);
  ParamRow *r = name ? param_row_shown(self, name) : NULL;
  return r && gtk_widget_get_visible(r->scale) ? r->scale : NULL;
}

gboolean lw_prop_editor_slide(LwPropEditor *self, const char *name, double value)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  flush(self);
  ParamRow *r = name ? param_row_shown(self, name) : NULL;
  if (!r || !gtk_widget_get_visible(r->scale))
    return FALSE;
  gtk_range_set_value(GTK_RANGE(r->scale), value);
  param_scale_release(r);
  return TRUE;
}

static GtkWidget *find_array_row(GtkWidget *w, const char *base)
{
  if (ADW_IS_EXPANDER_ROW(w) && !g_strcmp0(g_object_get_data(G_OBJECT(w), "array"), base))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *r = find_array_row(c, base);
    if (r)
      return r;
  }
  return NULL;
}

gboolean lw_prop_editor_expand_array(LwPropEditor *self, const char *base, gboolean expanded)
{
  g_return_val_if_fail(LW_IS_PROP_EDITOR(self), FALSE);
  flush(self);
  GtkWidget *row = base ? find_array_row(self->box, base) : NULL;
  if (!row)
    return FALSE;
  adw_expander_row_set_expanded(ADW_EXPANDER_ROW(row), expanded);
  return TRUE;
}

static void lw_prop_editor_dispose(GObject *object)
{
  LwPropEditor *self = LW_PROP_EDITOR(object);
  g_clear_handle_id(&self->leave_idle, g_source_remove);
  g_clear_handle_id(&self->lost_focus_idle, g_source_remove);
  g_clear_handle_id(&self->refocus_idle, g_source_remove);
  g_clear_handle_id(&self->rebuild_idle, g_source_remove);
  if (self->stash_fields)
    stash_clear(self);
  if (self->fields)
    g_hash_table_remove_all(self->fields);
  g_clear_object(&self->settings);
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
  g_hash_table_unref(self->param_boxes);
  g_hash_table_unref(self->stash_fields);
  g_free(self->lost_focus);
  g_free(self->refocus);
  g_hash_table_unref(self->sliders);
  g_ptr_array_unref(self->leaving);
  g_free(self->applying);
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
  self->param_boxes = g_hash_table_new(NULL, NULL);
  self->stash_fields = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, field_free);
  self->sliders = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  self->leaving = g_ptr_array_new_with_free_func(g_free);
  self->obj_items = g_array_new(FALSE, TRUE, sizeof(ObjItem));
  self->doc = lw_desc_new();
  GSettingsSchemaSource *src = g_settings_schema_source_get_default();
  g_autoptr(GSettingsSchema) schema = src ? g_settings_schema_source_lookup(src, SETTINGS_SCHEMA, TRUE) : NULL;
  if (schema && g_settings_schema_has_key(schema, DEGREES_KEY))
    self->settings = g_settings_new(SETTINGS_SCHEMA);
  self->degrees = self->settings ? g_settings_get_boolean(self->settings, DEGREES_KEY) : TRUE;
  self->scroller = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent(self->scroller, GTK_WIDGET(self));
  self->outer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18);
  gtk_widget_set_margin_start(self->outer, 12);
  gtk_widget_set_margin_end(self->outer, 12);
  gtk_widget_set_margin_top(self->outer, 6);
  gtk_widget_set_margin_bottom(self->outer, 12);
  gtk_box_append(GTK_BOX(self->outer), units_group_new(self));
  self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18);
  gtk_box_append(GTK_BOX(self->outer), self->box);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroller), self->outer);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Properties"), -1);
  rebuild(self);
}

GtkWidget *lw_prop_editor_new(void)
{
  return g_object_new(LW_TYPE_PROP_EDITOR, NULL);
}
