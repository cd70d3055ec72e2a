/* lw_json_read.c: model files, format version 1, into lw_desc.
 *
 * json-glib parses; while it does, the line of every object member is
 * recorded so that every error names the file, the line and the field. */
#include "lw_io.h"

#include <glib/gstdio.h>
#include <sys/stat.h>

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

struct _LwSourceMap {
  GHashTable *lines; /* path -> line */
};

void lw_source_map_free(LwSourceMap *map)
{
  if (!map)
    return;
  g_hash_table_unref(map->lines);
  g_free(map);
}

int lw_source_map_line(const LwSourceMap *map, const char *path)
{
  if (!map || !path)
    return 0;
  g_autofree char *p = g_strdup(path);
  for (;;) {
    gpointer v = g_hash_table_lookup(map->lines, p);
    if (v)
      return GPOINTER_TO_INT(v);
    char *slash = strrchr(p, '/');
    if (!slash)
      return 0;
    *slash = 0;
  }
}

void lw_error_locate(lw_error *err, const char *filename, const LwSourceMap *map)
{
  int line = lw_source_map_line(map, err->path);
  char buf[sizeof err->msg];
  if (line > 0)
    g_snprintf(buf, sizeof buf, "%s:%d: %s%s%s", filename, line, err->path[0] ? "field " : "",
               err->path, err->path[0] ? ": " : "");
  else
    g_snprintf(buf, sizeof buf, "%s: %s%s%s", filename, err->path[0] ? "field " : "", err->path,
               err->path[0] ? ": " : "");
  size_t n = strlen(buf);
  g_strlcpy(buf + n, err->msg, sizeof buf - n);
  memcpy(err->msg, buf, sizeof buf);
}

/* ---- reader state ------------------------------------------------------ */
typedef struct {
  GHashTable *member_lines; /* "%p/name" -> line, filled while parsing */
  LwSourceMap *map;
  lw_error *err;
  lw_desc *d;
  int planar;
  int failed;
} reader;

static void on_member(JsonParser *parser, JsonObject *object, const char *name, gpointer user)
{
  reader *r = user;
  char key[256];
  g_snprintf(key, sizeof key, "%p/%s", (void *)object, name);
  g_hash_table_insert(r->member_lines, g_strdup(key),
                      GINT_TO_POINTER((int)json_parser_get_current_line(parser)));
}

static int member_line(reader *r, JsonObject *o, const char *name)
{
  char key[256];
  g_snprintf(key, sizeof key, "%p/%s", (void *)o, name);
  return GPOINTER_TO_INT(g_hash_table_lookup(r->member_lines, key));
}

/* record the line of path (the object member name in o) */
static void mark(reader *r, JsonObject *o, const char *name, const char *path)
{
  int line = member_line(r, o, name);
  if (line > 0)
    g_hash_table_insert(r->map->lines, g_strdup(path), GINT_TO_POINTER(line));
}

static void fail(reader *r, const char *path, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void fail(reader *r, const char *path, const char *fmt, ...)
{
  if (r->failed)
    return;
  r->failed = 1;
  r->err->status = LW_ERR_MODEL;
  r->err->time = NAN;
  g_strlcpy(r->err->path, path, sizeof r->err->path);
  va_list ap;
  va_start(ap, fmt);
  g_vsnprintf(r->err->msg, sizeof r->err->msg, fmt, ap);
  va_end(ap);
}

/* every member of o must be one of the allowed names */
static void check_keys(reader *r, JsonObject *o, const char *path, const char *const *allowed)
{
  g_autoptr(GList) names = json_object_get_members(o);
  for (GList *l = names; l && !r->failed; l = l->next) {
    const char *n = l->data;
    gboolean ok = FALSE;
    for (int i = 0; allowed[i]; i++)
      if (!strcmp(allowed[i], n))
        ok = TRUE;
    if (!ok) {
      g_autofree char *p = g_strdup_printf("%s/%s", path, n);
      mark(r, o, n, p);
      GString *list = g_string_new(NULL);
      for (int i = 0; allowed[i]; i++)
        g_string_append_printf(list, "%s%s", i ? ", " : "", allowed[i]);
      fail(r, p, "unknown field '%s' (expected one of: %s)", n, list->str);
      g_string_free(list, TRUE);
    }
  }
}

static gboolean is_number(JsonNode *n)
{
  if (!n || !JSON_NODE_HOLDS_VALUE(n))
    return FALSE;
  GType t = json_node_get_value_type(n);
  return t == G_TYPE_DOUBLE || t == G_TYPE_INT64;
}

static const char *node_kind(JsonNode *n)
{
  if (!n)
    return "nothing";
  switch (JSON_NODE_TYPE(n)) {
  case JSON_NODE_OBJECT: return "an object";
  case JSON_NODE_ARRAY: return "an array";
  case JSON_NODE_NULL: return "null";
  default: break;
  }
  GType t = json_node_get_value_type(n);
  if (t == G_TYPE_STRING) return "a string";
  if (t == G_TYPE_BOOLEAN) return "a boolean";
  return "a number";
}

/* optional number */
static gboolean get_num(reader *r, JsonObject *o, const char *name, const char *path, double *out)
{
  if (r->failed || !json_object_has_member(o, name))
    return FALSE;
  g_autofree char *p = g_strdup_printf("%s/%s", path, name);
  mark(r, o, name, p);
  JsonNode *n = json_object_get_member(o, name);
  if (!is_number(n)) {
    fail(r, p, "'%s' must be a number, not %s", name, node_kind(n));
    return FALSE;
  }
  *out = json_node_get_double(n);
  return TRUE;
}

static void need_num(reader *r, JsonObject *o, const char *name, const char *path, double *out)
{
  if (r->failed)
    return;
  if (!get_num(r, o, name, path, out) && !r->failed)
    fail(r, path, "required field '%s' is missing", name);
}

static gboolean get_int(reader *r, JsonObject *o, const char *name, const char *path, int *out)
{
  double v;
  if (!get_num(r, o, name, path, &v))
    return FALSE;
  if (v != floor(v) || fabs(v) > 1e9) {
    g_autofree char *p = g_strdup_printf("%s/%s", path, name);
    fail(r, p, "'%s' must be an integer", name);
    return FALSE;
  }
  *out = (int)v;
  return TRUE;
}

static gboolean get_bool(reader *r, JsonObject *o, const char *name, const char *path, int *out)
{
  if (r->failed || !json_object_has_member(o, name))
    return FALSE;
  g_autofree char *p = g_strdup_printf("%s/%s", path, name);
  mark(r, o, name, p);
  JsonNode *n = json_object_get_member(o, name);
  if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN) {
    fail(r, p, "'%s' must be true or false, not %s", name, node_kind(n));
    return FALSE;
  }
  *out = json_node_get_boolean(n);
  return TRUE;
}

static const char *get_str(reader *r, JsonObject *o, const char *name, const char *path)
{
  if (r->failed || !json_object_has_member(o, name))
    return NULL;
  g_autofree char *p = g_strdup_printf("%s/%s", path, name);
  mark(r, o, name, p);
  JsonNode *n = json_object_get_member(o, name);
  if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
    fail(r, p, "'%s' must be a string, not %s", name, node_kind(n));
    return NULL;
  }
  return json_node_get_string(n);
}

static const char *need_str(reader *r, JsonObject *o, const char *name, const char *path)
{
  const char *s = get_str(r, o, name, path);
  if (!s && !r->failed)
    fail(r, path, "required field '%s' is missing", name);
  return s;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* numeric array of length n (or 2 in planar models where n = dim) */
static gboolean array_node(reader *r, JsonNode *n, const char *p, const char *name, double *out, int len)
{
  if (!n || JSON_NODE_TYPE(n) != JSON_NODE_ARRAY) {
    fail(r, p, "'%s' must be an array of %d numbers, not %s", name, len, node_kind(n));
    return FALSE;
  }
  JsonArray *a = json_node_get_array(n);
  if ((int)json_array_get_length(a) != len) {
    fail(r, p, "'%s' must have %d numbers (it has %u)%s", name, len, json_array_get_length(a),
         len == 2 ? " in a planar model" : "");
    return FALSE;
  }
  for (int i = 0; i < len; i++) {
    JsonNode *e = json_array_get_element(a, (guint)i);
    if (!is_number(e)) {
      fail(r, p, "'%s' element %d must be a number, not %s", name, i, node_kind(e));
      return FALSE;
    }
    out[i] = json_node_get_double(e);
  }
  return TRUE;
}

static gboolean get_vec(reader *r, JsonObject *o, const char *name, const char *path, double *out, int len)
{
  if (r->failed || !json_object_has_member(o, name))
    return FALSE;
  g_autofree char *p = g_strdup_printf("%s/%s", path, name);
  mark(r, o, name, p);
  return array_node(r, json_object_get_member(o, name), p, name, out, len);
}

static JsonObject *get_obj(reader *r, JsonObject *o, const char *name, const char *path)
{
  if (r->failed || !json_object_has_member(o, name))
    return NULL;
  g_autofree char *p = g_strdup_printf("%s/%s", path, name);
  mark(r, o, name, p);
  JsonNode *n = json_object_get_member(o, name);
  if (!n || JSON_NODE_TYPE(n) != JSON_NODE_OBJECT) {
    fail(r, p, "'%s' must be an object, not %s", name, node_kind(n));
    return NULL;
  }
  return json_node_get_object(n);
}

static JsonArray *get_arr(reader *r, JsonObject *o, const char *name, const char *path)
{
  if (r->failed || !json_object_has_member(o, name))
    return NULL;
  g_autofree char *p = g_strdup_printf("%s/%s", path, name);
  mark(r, o, name, p);
  JsonNode *n = json_object_get_member(o, name);
  if (!n || JSON_NODE_TYPE(n) != JSON_NODE_ARRAY) {
    fail(r, p, "'%s' must be an array, not %s", name, node_kind(n));
    return NULL;
  }
  return json_node_get_array(n);
}

/* element k of a list must be an object with a name; returns it */
static JsonObject *element(reader *r, JsonArray *a, guint k, const char *list, JsonObject *parent,
                           char **path_out, const char **name_out, gboolean named)
{
  JsonNode *n = json_array_get_element(a, k);
  char idx[160];
  g_snprintf(idx, sizeof idx, "%s/%u", list, k);
  if (!n || JSON_NODE_TYPE(n) != JSON_NODE_OBJECT) {
    mark(r, parent, list, idx);
    fail(r, idx, "element %u of '%s' must be an object, not %s", k, list, node_kind(n));
    return NULL;
  }
  JsonObject *o = json_node_get_object(n);
  const char *name = NULL;
  if (named) {
    name = get_str(r, o, "name", idx);
    if (!name && !r->failed) {
      mark(r, parent, list, idx);
      fail(r, idx, "element %u of '%s' has no \"name\"", k, list);
    }
    if (r->failed)
      return NULL;
  }
  *path_out = named ? g_strdup_printf("%s/%s", list, name) : g_strdup(idx);
  /* the element's line: that of its name (or first member) */
  g_autoptr(GList) mem = json_object_get_members(o);
  int line = member_line(r, o, named ? "name" : (mem ? (const char *)mem->data : ""));
  if (line > 0)
    g_hash_table_insert(r->map->lines, g_strdup(*path_out), GINT_TO_POINTER(line));
  if (name_out)
    *name_out = name;
  return o;
}

static void read_param_array(reader *r, JsonObject *o, const char *path, const char *bp, const char *name,
                             const char *bind);

/* ---- pieces ------------------------------------------------------------ */
static void read_func(reader *r, JsonObject *o, const char *path, lw_func *f)
{
  static const char *const keys[] = {"type", "value", "rate", "coefficients", "offset", "amplitude",
                                     "omega", "phase", "start", "end", "values", NULL};
  check_keys(r, o, path, keys);
  const char *type = need_str(r, o, "type", path);
  if (!type)
    return;
  memset(f, 0, sizeof *f);
  g_autofree char *tp = g_strdup_printf("%s/type", path);
  if (!strcmp(type, "constant")) {
    f->type = LW_FUNC_CONSTANT;
    need_num(r, o, "value", path, &f->a[0]);
  } else if (!strcmp(type, "linear")) {
    f->type = LW_FUNC_LINEAR;
    get_num(r, o, "value", path, &f->a[0]);
    need_num(r, o, "rate", path, &f->a[1]);
  } else if (!strcmp(type, "poly")) {
    f->type = LW_FUNC_POLY;
    JsonArray *a = get_arr(r, o, "coefficients", path);
    if (!a) {
      if (!r->failed)
        fail(r, path, "required field 'coefficients' is missing");
      return;
    }
    int n = (int)json_array_get_length(a);
    if (n < 1 || n > LW_FUNC_MAXCOEF) {
      g_autofree char *p = g_strdup_printf("%s/coefficients", path);
      fail(r, p, "'coefficients' must have 1 to %d numbers", LW_FUNC_MAXCOEF);
      return;
    }
    g_autofree char *p = g_strdup_printf("%s/coefficients", path);
    array_node(r, json_object_get_member(o, "coefficients"), p, "coefficients", f->a, n);
    f->n = n;
  } else if (!strcmp(type, "sine")) {
    f->type = LW_FUNC_SINE;
    get_num(r, o, "offset", path, &f->a[0]);
    need_num(r, o, "amplitude", path, &f->a[1]);
    need_num(r, o, "omega", path, &f->a[2]);
    get_num(r, o, "phase", path, &f->a[3]);
  } else if (!strcmp(type, "spline")) {
    f->type = LW_FUNC_SPLINE;
    need_num(r, o, "start", path, &f->a[0]);
    need_num(r, o, "end", path, &f->a[1]);
    JsonArray *a = get_arr(r, o, "values", path);
    if (!a) {
      if (!r->failed)
        fail(r, path, "required field 'values' is missing");
      return;
    }
    int n = (int)json_array_get_length(a);
    g_autofree char *p = g_strdup_printf("%s/values", path);
    if (n < 2 || n > LW_SPLINE_MAXKNOTS) {
      fail(r, p, "'values' must have 2 to %d numbers (it has %d)", LW_SPLINE_MAXKNOTS, n);
      return;
    }
    f->knots = calloc((size_t)n, sizeof(double));
    f->n = n;
    array_node(r, json_object_get_member(o, "values"), p, "values", f->knots, n);
    if (!r->failed && !(f->a[1] > f->a[0])) {
      g_autofree char *pe = g_strdup_printf("%s/end", path);
      fail(r, pe, "'end' (%g) must be later than 'start' (%g)", f->a[1], f->a[0]);
    }
  } else {
    fail(r, tp, "unknown function type '%s' (expected constant, linear, poly, sine or spline)", type);
  }
}

/* a place: a point name (string) or a literal local point */
static gboolean read_place(reader *r, JsonObject *o, const char *name, const char *path, lw_place *pl)
{
  if (r->failed || !json_object_has_member(o, name))
    return FALSE;
  JsonNode *n = json_object_get_member(o, name);
  g_autofree char *p = g_strdup_printf("%s/%s", path, name);
  mark(r, o, name, p);
  if (n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING) {
    pl->ref = strdup(json_node_get_string(n));
    return TRUE;
  }
  int dim = r->planar ? 2 : 3;
  return array_node(r, n, p, name, pl->p, dim);
}

/* a point mass: its mass at its position, nothing that turns */
static void read_point_body(reader *r, JsonObject *o, const char *path, lw_body_desc *b)
{
  static const char *const keys[] = {"name", "type", "mass", "position", "geometry", NULL};
  check_keys(r, o, path, keys);
  b->point = 1;
  need_num(r, o, "mass", path, &b->mass);
  get_vec(r, o, "position", path, b->position, r->planar ? 2 : 3);
}

static void read_geometry(reader *r, JsonObject *o, const char *path, lw_body_desc *b);

static void read_body(reader *r, JsonObject *o, const char *path, lw_body_desc *b)
{
  static const char *const keys[] = {"name", "type", "mass", "com", "inertia", "position", "angle",
                                     "orientation", "points", "frames", "geometry", NULL};
  const char *type = get_str(r, o, "type", path);
  if (type && !strcmp(type, "point")) {
    read_point_body(r, o, path, b);
    read_geometry(r, o, path, b);
    return;
  }
  if (type && strcmp(type, "rigid")) {
    g_autofree char *p = g_strdup_printf("%s/type", path);
    fail(r, p, "unknown body type '%s' (rigid or point)", type);
    return;
  }
  check_keys(r, o, path, keys);
  int dim = r->planar ? 2 : 3;
  need_num(r, o, "mass", path, &b->mass);
  get_vec(r, o, "com", path, b->com, dim);
  if (r->planar)
    need_num(r, o, "inertia", path, &b->inertia[2]);
  else if (!r->failed) {
    if (!json_object_has_member(o, "inertia"))
      fail(r, path, "required field 'inertia' is missing");
    else
      get_vec(r, o, "inertia", path, b->inertia, 6);
  }
  get_vec(r, o, "position", path, b->position, dim);
  if (r->planar)
    get_num(r, o, "angle", path, &b->angle);
  else
    get_vec(r, o, "orientation", path, b->orientation, 4);
  JsonObject *pts = get_obj(r, o, "points", path);
  if (pts) {
    g_autoptr(GList) names = json_object_get_members(pts);
    g_autofree char *pp = g_strdup_printf("%s/points", path);
    for (GList *l = names; l && !r->failed; l = l->next) {
      g_autofree char *p = g_strdup_printf("%s/%s", pp, (char *)l->data);
      mark(r, pts, l->data, p);
      lw_point_desc *pt = lw_body_add_point(b, l->data, NULL);
      array_node(r, json_object_get_member(pts, l->data), p, l->data, pt->p, dim);
    }
  }
  JsonObject *frs = get_obj(r, o, "frames", path);
  if (frs) {
    g_autoptr(GList) names = json_object_get_members(frs);
    for (GList *l = names; l && !r->failed; l = l->next) {
      g_autofree char *p = g_strdup_printf("%s/frames/%s", path, (char *)l->data);
      mark(r, frs, l->data, p);
      JsonNode *n = json_object_get_member(frs, l->data);
      if (JSON_NODE_TYPE(n) != JSON_NODE_OBJECT) {
        fail(r, p, "frame '%s' must be an object", (char *)l->data);
        break;
      }
      JsonObject *fo = json_node_get_object(n);
      static const char *const fk3[] = {"origin", "axis", "ref", NULL};
      static const char *const fk2[] = {"origin", "angle", NULL};
      check_keys(r, fo, p, r->planar ? fk2 : fk3);
      lw_frame_desc *f = lw_body_add_frame(b, l->data);
      get_vec(r, fo, "origin", p, f->origin, dim);
      if (r->planar) {
        get_num(r, fo, "angle", p, &f->angle);
      } else {
        get_vec(r, fo, "axis", p, f->axis, 3);
        get_vec(r, fo, "ref", p, f->ref, 3);
      }
    }
  }
  read_geometry(r, o, path, b);
}

/* a body's drawing */
static void read_geometry(reader *r, JsonObject *o, const char *path, lw_body_desc *b)
{
  int dim = r->planar ? 2 : 3;
  JsonArray *geo = get_arr(r, o, "geometry", path);
  for (guint k = 0; geo && k < json_array_get_length(geo) && !r->failed; k++) {
    char *gp = NULL;
    JsonObject *go = element(r, geo, k, "geometry", o, &gp, NULL, FALSE);
    if (!go)
      break;
    g_autofree char *p = g_strdup_printf("%s/%s", path, gp);
    g_free(gp);
    static const char *const gk[] = {"type", "from", "to", "width", "radius", "center", "half_extents",
                                     "color", "file", "orientation", "scale", NULL};
    check_keys(r, go, p, gk);
    const char *t = need_str(r, go, "type", p);
    if (!t)
      break;
    lw_geom_type gt = !strcmp(t, "bar") ? LW_GEOM_BAR
                      : !strcmp(t, "box") ? LW_GEOM_BOX
                      : !strcmp(t, "cylinder") ? LW_GEOM_CYLINDER
                      : !strcmp(t, "sphere") ? LW_GEOM_SPHERE
                      : !strcmp(t, "mesh")   ? LW_GEOM_MESH
                                              : LW_GEOM_NONE;
    if (gt == LW_GEOM_NONE) {
      g_autofree char *tp = g_strdup_printf("%s/type", p);
      fail(r, tp, "unknown geometry type '%s' (expected bar, box, cylinder, sphere or mesh)", t);
      break;
    }
    lw_geom_desc *g = lw_body_add_geom(b, gt);
    get_vec(r, go, "from", p, g->from, dim);
    get_vec(r, go, "to", p, g->to, dim);
    get_vec(r, go, "center", p, g->center, dim);
    get_num(r, go, "width", p, &g->size[0]);
    get_num(r, go, "radius", p, &g->size[0]);
    get_vec(r, go, "half_extents", p, g->size, 3);
    get_vec(r, go, "color", p, g->color, 3);
    if (gt == LW_GEOM_MESH) {
      const char *file = need_str(r, go, "file", p);
      g->mesh = file ? g_strdup(file) : NULL;
      get_vec(r, go, "orientation", p, g->quat, 4);
      get_vec(r, go, "scale", p, g->size, 3);
    }
  }
}

/* a joint's "friction": each parameter optional (docs/friction.md sec. 1
 * gives the defaults), refused on a joint type without friction and out
 * of its range with the field's path */
static void read_friction(reader *r, JsonObject *o, const char *path, int ji)
{
  JsonObject *fo = get_obj(r, o, "friction", path);
  if (!fo || r->failed)
    return;
  g_autofree char *p = g_strdup_printf("%s/friction", path);
  const char *keys[LW_FRICTION_NPARAMS + 1];
  for (int k = 0; k < LW_FRICTION_NPARAMS; k++)
    keys[k] = lw_friction_param_name(k);
  keys[LW_FRICTION_NPARAMS] = NULL;
  check_keys(r, fo, p, keys);
  lw_joint_desc *j = &r->d->joints[ji];
  lw_joint_friction_defaults(j);
  for (int k = 0; k < LW_FRICTION_NPARAMS; k++)
    get_num(r, fo, keys[k], p, &j->friction[k]);
  lw_error e = {0};
  if (!r->failed && lw_joint_friction_check(r->d, ji, &e) != LW_OK)
    fail(r, e.path, "%s", e.msg);
}

static void read_joint(reader *r, JsonObject *o, const char *path, const char *name)
{
  static const char *const keys[] = {"name", "type", "body1", "body2", "at", "axis", "ref",
                                     "second_axis", "point1", "point2", "axis1", "axis2", "ref1",
                                     "ref2", "angle1", "angle2", "friction", NULL};
  check_keys(r, o, path, keys);
  const char *type = need_str(r, o, "type", path);
  const char *b1 = need_str(r, o, "body1", path);
  const char *b2 = need_str(r, o, "body2", path);
  if (r->failed)
    return;
  int t = lw_joint_type_from_name(type);
  if (t < 0) {
    g_autofree char *p = g_strdup_printf("%s/type", path);
    fail(r, p, "unknown joint type '%s' (expected revolute, prismatic, spherical, cylindrical, "
               "universal, planar or fixed)", type);
    return;
  }
  lw_joint_desc *j = lw_desc_add_joint(r->d, name, (lw_joint_type)t, b1, b2);
  int dim = r->planar ? 2 : 3;
  j->has_at = get_vec(r, o, "at", path, j->at, dim);
  j->has_place[0] = read_place(r, o, "point1", path, &j->place[0]);
  j->has_place[1] = read_place(r, o, "point2", path, &j->place[1]);
  if (r->planar) {
    get_num(r, o, "angle1", path, &j->angle[0]);
    get_num(r, o, "angle2", path, &j->angle[1]);
  } else {
    j->has_gaxis = get_vec(r, o, "axis", path, j->gaxis, 3);
    j->has_gref = get_vec(r, o, "ref", path, j->gref, 3);
    j->has_gaxis2 = get_vec(r, o, "second_axis", path, j->gaxis2, 3);
    j->has_axis[0] = get_vec(r, o, "axis1", path, j->axis[0], 3);
    j->has_axis[1] = get_vec(r, o, "axis2", path, j->axis[1], 3);
    j->has_ref[0] = get_vec(r, o, "ref1", path, j->ref[0], 3);
    j->has_ref[1] = get_vec(r, o, "ref2", path, j->ref[1], 3);
  }
  read_friction(r, o, path, (int)(j - r->d->joints));
}

/* a measured distance {"body1", "point1", "body2", "point2", "axis"} */
static void read_between(reader *r, JsonObject *o, const char *path, lw_feedback_desc *b)
{
  static const char *const k[] = {"body1", "point1", "body2", "point2", "axis", NULL};
  check_keys(r, o, path, k);
  b->has_between = 1;
  for (int s = 0; s < 2; s++) {
    char bn[8], pn[8];
    snprintf(bn, sizeof bn, "body%d", s + 1);
    snprintf(pn, sizeof pn, "point%d", s + 1);
    b->body[s] = dup_or_null(need_str(r, o, bn, path));
    if (!read_place(r, o, pn, path, &b->place[s]) && !r->failed)
      fail(r, path, "required field '%s' is missing", pn);
  }
  if (!get_vec(r, o, "axis", path, b->axis, r->planar ? 2 : 3) && !r->failed)
    fail(r, path, "required field 'axis' is missing");
}

/* a controller's measured coordinate: measure, kp, kd, ki, target (and the
 * coordinate itself for a state feedback gain) */
static void read_feedback(reader *r, JsonObject *o, const char *path, lw_feedback_desc *b)
{
  const char *ms = get_str(r, o, "measure", path);
  if (ms) {
    if (!strcmp(ms, "rate")) {
      b->rate = 1;
    } else if (strcmp(ms, "position")) {
      g_autofree char *p = g_strdup_printf("%s/measure", path);
      fail(r, p, "unknown measure '%s' (expected position or rate)", ms);
      return;
    }
  }
  get_num(r, o, "kp", path, &b->kp);
  get_num(r, o, "kd", path, &b->kd);
  get_num(r, o, "ki", path, &b->ki);
  JsonObject *bo = get_obj(r, o, "between", path);
  if (bo) {
    g_autofree char *p = g_strdup_printf("%s/between", path);
    read_between(r, bo, p, b);
  }
  JsonObject *fo = get_obj(r, o, "target", path);
  if (fo) {
    g_autofree char *p = g_strdup_printf("%s/target", path);
    read_func(r, fo, p, &b->target);
  }
}

static void read_force(reader *r, JsonObject *o, const char *path, const char *name)
{
  const char *type = need_str(r, o, "type", path);
  if (!type)
    return;
  int t = lw_force_type_from_name(type);
  if (t < 0) {
    g_autofree char *p = g_strdup_printf("%s/type", path);
    fail(r, p, "unknown force type '%s' (expected spring_damper, joint_spring_damper, force, torque, pid "
               "or state_feedback)", type);
    return;
  }
  lw_force_desc *f = lw_desc_add_force(r->d, name, (lw_force_type)t);
  int dim = r->planar ? 2 : 3;
  switch (t) {
  case LW_FORCE_SPRING_DAMPER: {
    static const char *const k[] = {"name", "type", "body1", "point1", "body2", "point2", "stiffness",
                                    "damping", "rest_length", NULL};
    check_keys(r, o, path, k);
    f->body[0] = dup_or_null(need_str(r, o, "body1", path));
    f->body[1] = dup_or_null(need_str(r, o, "body2", path));
    if (!read_place(r, o, "point1", path, &f->place[0]) && !r->failed)
      fail(r, path, "required field 'point1' is missing");
    if (!read_place(r, o, "point2", path, &f->place[1]) && !r->failed)
      fail(r, path, "required field 'point2' is missing");
    need_num(r, o, "stiffness", path, &f->stiffness);
    get_num(r, o, "damping", path, &f->damping);
    need_num(r, o, "rest_length", path, &f->rest);
    break;
  }
  case LW_FORCE_JOINT_SPRING_DAMPER: {
    static const char *const k[] = {"name", "type", "joint", "coordinate", "stiffness", "damping",
                                    "rest_value", NULL};
    check_keys(r, o, path, k);
    f->joint = dup_or_null(need_str(r, o, "joint", path));
    get_int(r, o, "coordinate", path, &f->coordinate);
    need_num(r, o, "stiffness", path, &f->stiffness);
    get_num(r, o, "damping", path, &f->damping);
    get_num(r, o, "rest_value", path, &f->rest);
    break;
  }
  case LW_FORCE_FORCE:
  case LW_FORCE_TORQUE: {
    static const char *const k[] = {"name", "type", "body", "point", "vector", "value", "function", NULL};
    check_keys(r, o, path, k);
    f->body[0] = dup_or_null(need_str(r, o, "body", path));
    if (t == LW_FORCE_FORCE) {
      if (!read_place(r, o, "point", path, &f->place[0]) && !r->failed)
        fail(r, path, "required field 'point' is missing");
      if (!get_vec(r, o, "vector", path, f->vector, dim) && !r->failed)
        fail(r, path, "required field 'vector' is missing");
    } else if (r->planar) {
      need_num(r, o, "value", path, &f->vector[2]);
    } else if (!get_vec(r, o, "vector", path, f->vector, 3) && !r->failed) {
      fail(r, path, "required field 'vector' is missing");
    }
    JsonObject *fo = get_obj(r, o, "function", path);
    if (fo) {
      g_autofree char *p = g_strdup_printf("%s/function", path);
      read_func(r, fo, p, &f->func);
    }
    break;
  }
  case LW_FORCE_PID: {
    static const char *const k[] = {"name", "type", "joint", "coordinate", "measure", "kp", "kd", "ki", "target",
                                    "between", NULL};
    check_keys(r, o, path, k);
    f->joint = dup_or_null(need_str(r, o, "joint", path));
    get_int(r, o, "coordinate", path, &f->coordinate);
    if (r->failed)
      break;
    read_feedback(r, o, path, lw_force_add_feedback(f, f->joint, f->coordinate));
    break;
  }
  case LW_FORCE_STATE_FEEDBACK: {
    static const char *const k[] = {"name", "type", "joint", "coordinate", "gains", NULL};
    static const char *const gk[] = {"joint", "coordinate", "measure", "kp", "kd", "ki", "target", "between", NULL};
    check_keys(r, o, path, k);
    f->joint = dup_or_null(need_str(r, o, "joint", path));
    get_int(r, o, "coordinate", path, &f->coordinate);
    JsonArray *a = get_arr(r, o, "gains", path);
    if (!a) {
      if (!r->failed)
        fail(r, path, "required field 'gains' is missing");
      break;
    }
    for (guint i = 0; i < json_array_get_length(a) && !r->failed; i++) {
      g_autofree char *gp = g_strdup_printf("%s/gains/%u", path, i);
      JsonNode *n = json_array_get_element(a, i);
      if (!JSON_NODE_HOLDS_OBJECT(n)) {
        fail(r, gp, "each gain must be an object with joint, coordinate, measure, kp, kd, ki, target");
        break;
      }
      JsonObject *go = json_node_get_object(n);
      check_keys(r, go, gp, gk);
      const char *jn = json_object_has_member(go, "between") ? get_str(r, go, "joint", gp)
                                                             : need_str(r, go, "joint", gp);
      int co = 0;
      get_int(r, go, "coordinate", gp, &co);
      if (r->failed)
        break;
      read_feedback(r, go, gp, lw_force_add_feedback(f, jn, co));
    }
    break;
  }
  }
}

static void read_output(reader *r, JsonObject *o, const char *path, const char *name)
{
  static const char *const k[] = {"name", "type", "body", "point", "joint", "coordinate", "force", "event", NULL};
  check_keys(r, o, path, k);
  const char *type = need_str(r, o, "type", path);
  if (!type)
    return;
  int t = lw_output_type_from_name(type);
  if (t < 0) {
    g_autofree char *p = g_strdup_printf("%s/type", path);
    fail(r, p, "unknown output type '%s' (expected position, velocity, acceleration, joint_coordinate, "
               "joint_velocity, reaction_force, kinetic_energy, potential_energy, total_energy, control, "
               "spring_length, spring_force, dissipated_energy, beam_strain, beam_force, beam_curvature, beam_moment, "
               "beam_deflection, beam_energy or contact_force)", type);
    return;
  }
  lw_output_desc *od = lw_desc_add_output(r->d, name, (lw_output_type)t);
  switch (t) {
  case LW_OUT_POSITION:
  case LW_OUT_VELOCITY:
  case LW_OUT_ACCELERATION:
    od->body = dup_or_null(need_str(r, o, "body", path));
    if (!read_place(r, o, "point", path, &od->place) && !r->failed)
      fail(r, path, "required field 'point' is missing");
    break;
  case LW_OUT_JOINT_COORDINATE:
  case LW_OUT_JOINT_VELOCITY:
    /* a joint's coordinate, or with "force" a controller's measure */
    if (json_object_has_member(o, "force") && !json_object_has_member(o, "joint"))
      od->force = dup_or_null(need_str(r, o, "force", path));
    else
      od->joint = dup_or_null(need_str(r, o, "joint", path));
    get_int(r, o, "coordinate", path, &od->coordinate);
    break;
  case LW_OUT_REACTION_FORCE:
  case LW_OUT_FRICTION_FORCE:
  case LW_OUT_NORMAL_FORCE:
  case LW_OUT_SLIP_SPEED:
  case LW_OUT_FRICTION_WORK:
    od->joint = dup_or_null(need_str(r, o, "joint", path));
    get_int(r, o, "coordinate", path, &od->coordinate);
    break;
  case LW_OUT_CONTROL:
  case LW_OUT_SPRING_LENGTH:
  case LW_OUT_SPRING_FORCE:
    od->force = dup_or_null(need_str(r, o, "force", path));
    break;
  case LW_OUT_CONTACT_FORCE:
    od->event = dup_or_null(need_str(r, o, "event", path));
    break;
  case LW_OUT_BEAM_ENERGY:
    od->body = dup_or_null(need_str(r, o, "body", path));
    break;
  default:
    if (t >= LW_OUT_BEAM_STRAIN && t <= LW_OUT_BEAM_DEFLECTION) {
      od->body = dup_or_null(need_str(r, o, "body", path));
      if (!read_place(r, o, "point", path, &od->place) && !r->failed)
        fail(r, path, "required field 'point' is missing (the arc length along the beam, [s, 0])");
    }
    break;
  }
}

static void read_objective(reader *r, JsonObject *o, const char *path, const char *name)
{
  static const char *const k[] = {"name", "description", "terms", NULL};
  static const char *const tk[] = {"output", "kind", "form", "component", "weight", "target", NULL};
  check_keys(r, o, path, k);
  lw_objective_desc *od = lw_desc_add_objective(r->d, name);
  JsonArray *a = get_arr(r, o, "terms", path);
  if (!a) {
    if (!r->failed)
      fail(r, path, "required field 'terms' is missing");
    return;
  }
  for (guint i = 0; i < json_array_get_length(a) && !r->failed; i++) {
    char *tp = NULL;
    g_autofree char *list = g_strdup_printf("%s/terms", path);
    JsonObject *to = element(r, a, i, list, o, &tp, NULL, FALSE);
    if (!to)
      break;
    check_keys(r, to, tp, tk);
    const char *out = need_str(r, to, "output", tp);
    lw_term_desc *t = lw_objective_add_term(od, out);
    int width = 0;
    for (int j = 0; out && j < r->d->noutputs; j++)
      if (!strcmp(r->d->outputs[j].name, out))
        width = lw_output_width(r->d->outputs[j].type, r->planar);
    if (out && !width && !r->failed) {
      g_autofree char *p = g_strdup_printf("%s/output", tp);
      mark(r, to, "output", p);
      fail(r, p, "objective '%s': output '%s' does not exist", name, out);
    }
    const char *kind = get_str(r, to, "kind", tp);
    if (kind && !strcmp(kind, "final"))
      t->kind = LW_TERM_FINAL;
    else if (kind && strcmp(kind, "integral")) {
      g_autofree char *p = g_strdup_printf("%s/kind", tp);
      mark(r, to, "kind", p);
      fail(r, p, "unknown term kind '%s' (expected integral or final)", kind);
    }
    const char *form = get_str(r, to, "form", tp);
    if (form && !strcmp(form, "value"))
      t->form = LW_TERM_VALUE;
    else if (form && !strcmp(form, "above"))
      t->form = LW_TERM_ABOVE;
    else if (form && !strcmp(form, "below"))
      t->form = LW_TERM_BELOW;
    else if (form && strcmp(form, "square")) {
      g_autofree char *p = g_strdup_printf("%s/form", tp);
      mark(r, to, "form", p);
      fail(r, p, "unknown term form '%s' (expected square, value, above or below)", form);
    }
    get_int(r, to, "component", tp, &t->component);
    get_num(r, to, "weight", tp, &t->weight);
    if (width > 0 && !r->failed)
      get_vec(r, to, "target", tp, t->target, width);
    g_free(tp);
  }
}


static int param_matches(const lw_desc *d, const char *pat)
{
  int n = 0;
  for (int i = 0; i < d->nparams; i++)
    n += lw_param_name_matches(pat, d->params[i].name);
  return n;
}

/* an optimization problem: objective, variables (parameters with bounds),
 * constraints (objectives with a bound), the optimizer and its stopping rules */
static void read_problem(reader *r, JsonObject *o, const char *path, const char *name)
{
  static const char *const k[] = {"name", "description", "objective", "maximize", "variables", "constraints",
                                   "algorithm", "gradient", "max_evaluations", "f_tolerance", "x_tolerance",
                                   "gradient_tolerance", "multistart", "seed", NULL};
  static const char *const vk[] = {"parameter", "lower", "upper", "scale", NULL};
  static const char *const ck[] = {"objective", "type", "value", NULL};
  lw_desc *d = r->d;
  check_keys(r, o, path, k);
  const char *obj = need_str(r, o, "objective", path);
  if (r->failed)
    return;
  lw_problem_desc *p = lw_desc_add_problem(d, name, obj);
  if (lw_desc_objective_index(d, obj) < 0) {
    g_autofree char *fp = g_strdup_printf("%s/objective", path);
    mark(r, o, "objective", fp);
    fail(r, fp, "problem '%s': objective '%s' does not exist", name, obj);
    return;
  }
  const char *desc = get_str(r, o, "description", path);
  p->description = desc ? strdup(desc) : NULL;
  get_bool(r, o, "maximize", path, &p->maximize);
  const char *alg = get_str(r, o, "algorithm", path);
  if (alg) {
    int ai = lw_opt_algorithm_from_name(alg);
    if (ai < 0) {
      g_autofree char *fp = g_strdup_printf("%s/algorithm", path);
      mark(r, o, "algorithm", fp);
      fail(r, fp, "unknown algorithm '%s' (expected lbfgs, mma, slsqp or auglag)", alg);
      return;
    }
    p->algorithm = ai;
  }
  const char *gr = get_str(r, o, "gradient", path);
  if (gr) {
    p->gradient = lw_sens_method_from_name(gr);
    if (p->gradient < LW_SENS_FORWARD) {
      g_autofree char *fp = g_strdup_printf("%s/gradient", path);
      mark(r, o, "gradient", fp);
      fail(r, fp, "unknown gradient '%s' (expected adjoint, forward or fd)", gr);
      return;
    }
  }
  get_int(r, o, "max_evaluations", path, &p->max_evaluations);
  get_num(r, o, "f_tolerance", path, &p->f_tolerance);
  get_num(r, o, "x_tolerance", path, &p->x_tolerance);
  get_num(r, o, "gradient_tolerance", path, &p->gradient_tolerance);
  get_int(r, o, "multistart", path, &p->multistart);
  int seed = 1;
  if (get_int(r, o, "seed", path, &seed))
    p->seed = (unsigned)seed;
  if (!r->failed && (p->max_evaluations < 1 || p->multistart < 1)) {
    fail(r, path, "problem '%s': max_evaluations and multistart must be at least 1", name);
    return;
  }
  JsonArray *va = get_arr(r, o, "variables", path);
  if (!va) {
    if (!r->failed)
      fail(r, path, "required field 'variables' is missing");
    return;
  }
  for (guint i = 0; i < json_array_get_length(va) && !r->failed; i++) {
    char *vp = NULL;
    g_autofree char *list = g_strdup_printf("%s/variables", path);
    JsonObject *vo = element(r, va, i, list, o, &vp, NULL, FALSE);
    if (!vo)
      break;
    check_keys(r, vo, vp, vk);
    const char *pn = need_str(r, vo, "parameter", vp);
    if (pn) {
      lw_var_desc *v = lw_problem_add_var(p, pn);
      v->has_lower = get_num(r, vo, "lower", vp, &v->lower);
      v->has_upper = get_num(r, vo, "upper", vp, &v->upper);
      get_num(r, vo, "scale", vp, &v->scale);
      if (!r->failed && !param_matches(d, pn)) {
        g_autofree char *fp = g_strdup_printf("%s/parameter", vp);
        mark(r, vo, "parameter", fp);
        fail(r, fp, "problem '%s': '%s' is not a parameter of this model (variables must be parameters)", name,
             pn);
      } else if (!r->failed && v->has_lower && v->has_upper && !(v->lower <= v->upper)) {
        fail(r, vp, "problem '%s': infeasible bounds for '%s': lower %g > upper %g", name, pn, v->lower,
             v->upper);
      } else if (!r->failed && !(v->scale > 0 && isfinite(v->scale))) {
        g_autofree char *fp = g_strdup_printf("%s/scale", vp);
        fail(r, fp, "problem '%s': the scale of '%s' must be a positive number", name, pn);
      }
    }
    g_free(vp);
  }
  JsonArray *ca = get_arr(r, o, "constraints", path);
  for (guint i = 0; ca && i < json_array_get_length(ca) && !r->failed; i++) {
    char *cp = NULL;
    g_autofree char *list = g_strdup_printf("%s/constraints", path);
    JsonObject *co = element(r, ca, i, list, o, &cp, NULL, FALSE);
    if (!co)
      break;
    check_keys(r, co, cp, ck);
    const char *on = need_str(r, co, "objective", cp);
    const char *ty = need_str(r, co, "type", cp);
    double value = 0;
    get_num(r, co, "value", cp, &value);
    if (!r->failed) {
      lw_con_type ct = LW_CON_LE;
      if (!strcmp(ty, ">="))
        ct = LW_CON_GE;
      else if (!strcmp(ty, "="))
        ct = LW_CON_EQ;
      else if (strcmp(ty, "<=")) {
        g_autofree char *fp = g_strdup_printf("%s/type", cp);
        mark(r, co, "type", fp);
        fail(r, fp, "unknown constraint type '%s' (expected <=, >= or =)", ty);
      }
      if (!r->failed && lw_desc_objective_index(d, on) < 0) {
        g_autofree char *fp = g_strdup_printf("%s/objective", cp);
        mark(r, co, "objective", fp);
        fail(r, fp, "problem '%s': constraint objective '%s' does not exist", name, on);
      }
      if (!r->failed)
        lw_problem_add_con(p, on, ct, value);
    }
    g_free(cp);
  }
}

static void read_solver(reader *r, JsonObject *so)
{
  static const char *const sk[] = {"t_end", "step", "alpha", "tolerance",
                                   "constraint_tolerance", "max_iterations", "lambda_scale",
                                   "allow_redundant", "integrator", "mode", "rtol", "atol", "order", "rho_inf",
                                   NULL};
  check_keys(r, so, "solver", sk);
  lw_solver_desc *sv = &r->d->solver;
  get_num(r, so, "t_end", "solver", &sv->t_end);
  get_num(r, so, "step", "solver", &sv->step);
  get_num(r, so, "alpha", "solver", &sv->alpha);
  get_num(r, so, "tolerance", "solver", &sv->tolerance);
  get_num(r, so, "constraint_tolerance", "solver", &sv->constraint_tolerance);
  get_int(r, so, "max_iterations", "solver", &sv->max_iterations);
  get_num(r, so, "lambda_scale", "solver", &sv->lambda_scale);
  get_bool(r, so, "allow_redundant", "solver", &sv->allow_redundant);
  const char *in = get_str(r, so, "integrator", "solver");
  if (in && strlen(in) >= sizeof sv->integrator)
    fail(r, "solver/integrator", "'integrator' names an integrator in at most %d characters, not '%s'",
         (int)sizeof sv->integrator - 1, in);
  else if (in)
    snprintf(sv->integrator, sizeof sv->integrator, "%s", in);
  const char *mode = get_str(r, so, "mode", "solver");
  if (mode && !strcmp(mode, "step"))
    sv->mode = LW_MODE_STEP;
  else if (mode && !strcmp(mode, "tolerance"))
    sv->mode = LW_MODE_TOLERANCE;
  else if (mode)
    fail(r, "solver/mode", "'mode' is \"step\" (a fixed step, the default) or \"tolerance\" (steps sized "
         "to rtol and atol), not '%s'", mode);
  get_num(r, so, "rtol", "solver", &sv->rtol);
  get_num(r, so, "atol", "solver", &sv->atol);
  get_int(r, so, "order", "solver", &sv->order);
  get_num(r, so, "rho_inf", "solver", &sv->rho_inf);
}

static void read_body_element(reader *r, JsonObject *o, const char *path, const char *name)
{
  read_body(r, o, path, lw_desc_add_body(r->d, name));
}

/* a flexible beam: its elements, ends, material and section */
static void read_beam(reader *r, JsonObject *o, const char *path, const char *name)
{
  static const char *const k[] = {"name", "elements", "start", "end", "young", "density", "damping",
                                  "section", "size", "area", "inertia", NULL};
  check_keys(r, o, path, k);
  int dim = r->planar ? 2 : 3;
  lw_beam_desc *b = lw_desc_add_beam(r->d, name, 0);
  if (!get_int(r, o, "elements", path, &b->nel) && !r->failed)
    fail(r, path, "required field 'elements' is missing");
  if (!r->failed && b->nel < 1) {
    g_autofree char *p = g_strdup_printf("%s/elements", path);
    fail(r, p, "a beam needs at least one element (got %d)", b->nel);
  }
  memset(b->end, 0, sizeof b->end);
  if (!get_vec(r, o, "start", path, b->start, dim) && !r->failed)
    fail(r, path, "required field 'start' is missing");
  if (!get_vec(r, o, "end", path, b->end, dim) && !r->failed)
    fail(r, path, "required field 'end' is missing");
  need_num(r, o, "young", path, &b->young);
  need_num(r, o, "density", path, &b->density);
  get_num(r, o, "damping", path, &b->damping);
  const char *sec = need_str(r, o, "section", path);
  if (!sec)
    return;
  int t = lw_section_type_from_name(sec);
  if (t < 0) {
    g_autofree char *p = g_strdup_printf("%s/section", path);
    fail(r, p, "unknown section '%s' (rectangle, circle, tube or generic)", sec);
    return;
  }
  b->section = (lw_section_type)t;
  if (t == LW_SECTION_GENERIC) {
    need_num(r, o, "area", path, &b->area);
    need_num(r, o, "inertia", path, &b->inertia);
    return;
  }
  int n = t == LW_SECTION_CIRCLE ? 1 : 2;
  if (!json_object_has_member(o, "size")) {
    fail(r, path, "required field 'size' is missing (the %s's %s)", sec,
         t == LW_SECTION_RECTANGLE ? "width and height" : t == LW_SECTION_CIRCLE ? "diameter" : "outer and inner diameters");
    return;
  }
  g_autofree char *sp = g_strdup_printf("%s/size", path);
  mark(r, o, "size", sp);
  array_node(r, json_object_get_member(o, "size"), sp, "size", b->size, n);
}

static void read_driver(reader *r, JsonObject *o, const char *path, const char *name)
{
  static const char *const dk[] = {"name", "joint", "coordinate", "function", NULL};
  check_keys(r, o, path, dk);
  const char *jn = need_str(r, o, "joint", path);
  if (!jn)
    return;
  lw_driver_desc *dr = lw_desc_add_driver(r->d, name, jn, 0);
  get_int(r, o, "coordinate", path, &dr->coordinate);
  JsonObject *fo = get_obj(r, o, "function", path);
  g_autofree char *fp = g_strdup_printf("%s/function", path);
  if (fo)
    read_func(r, fo, fp, &dr->func);
  else if (!r->failed)
    fail(r, path, "required field 'function' is missing");
}

static void read_initial(reader *r, JsonObject *o, const char *path, const char *name)
{
  (void)name;
  static const char *const ik[] = {"joint", "coordinate", "value", "velocity", NULL};
  check_keys(r, o, path, ik);
  const char *jn = need_str(r, o, "joint", path);
  if (!jn)
    return;
  int coord = 0;
  get_int(r, o, "coordinate", path, &coord);
  /* path by joint name, as parameters name it */
  g_autofree char *np = coord ? g_strdup_printf("initial/%s.%d", jn, coord) : g_strdup_printf("initial/%s", jn);
  g_hash_table_insert(r->map->lines, g_strdup(np), GINT_TO_POINTER(lw_source_map_line(r->map, path)));
  lw_initial_desc *in = lw_desc_add_initial(r->d, jn, coord);
  in->has_value = get_num(r, o, "value", np, &in->value);
  in->has_velocity = get_num(r, o, "velocity", np, &in->velocity);
}

/* one binding {"path", "factor", "times"} of a parameter's "bind" (ep: its
 * path): its field path, with the factor and product kept in *factor, *times */
static char *read_binding_object(reader *r, JsonNode *e, const char *ep, double *factor, const char **times)
{
  static const char *const bk[] = {"path", "factor", "times", NULL};
  JsonObject *o = json_node_get_object(e);
  check_keys(r, o, ep, bk);
  const char *path = get_str(r, o, "path", ep);
  if (!r->failed && !path)
    fail(r, ep, "required field 'path' is missing");
  get_num(r, o, "factor", ep, factor);
  *times = get_str(r, o, "times", ep);
  return r->failed ? NULL : strdup(path);
}

/* a parameter's "bind": a field path, a binding object or a list of them
 * (bp: its path) */
static void read_param_bind(reader *r, JsonNode *b, const char *path, const char *bp, lw_param_desc *p)
{
  if (!b) {
    fail(r, path, "required field 'bind' is missing");
    return;
  }
  gboolean one = JSON_NODE_TYPE(b) != JSON_NODE_ARRAY;
  if (one && JSON_NODE_TYPE(b) != JSON_NODE_OBJECT &&
      !(JSON_NODE_HOLDS_VALUE(b) && json_node_get_value_type(b) == G_TYPE_STRING)) {
    fail(r, bp, "'bind' must be a field path or a list of them, not %s", node_kind(b));
    return;
  }
  JsonArray *ba = one ? NULL : json_node_get_array(b);
  guint n = one ? 1 : json_array_get_length(ba);
  p->targets = calloc(n + 1, sizeof(char *));
  double *factor = g_new0(double, n + 1);
  const char **times = g_new0(const char *, n + 1);
  for (guint i = 0; i < n && !r->failed; i++) {
    JsonNode *e = one ? b : json_array_get_element(ba, i);
    g_autofree char *ep = one ? g_strdup(bp) : g_strdup_printf("%s/%u", bp, i);
    factor[i] = 1.0;
    if (JSON_NODE_TYPE(e) == JSON_NODE_OBJECT)
      p->targets[p->ntargets] = read_binding_object(r, e, ep, &factor[i], &times[i]);
    else if (JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING)
      p->targets[p->ntargets] = strdup(json_node_get_string(e));
    else
      fail(r, bp, "'bind' must hold field paths (strings) or bindings {\"path\", \"factor\", \"times\"}");
    if (!r->failed)
      p->ntargets++;
  }
  for (int k = 0; k < p->ntargets; k++)
    if (factor[k] != 1.0 || times[k])
      lw_param_set_binding(p, k, factor[k], times[k]);
  g_free(factor);
  g_free(times);
}

static void read_param(reader *r, JsonObject *o, const char *path, const char *name)
{
  static const char *const pk[] = {"name", "bind", "value", NULL};
  check_keys(r, o, path, pk);
  JsonNode *b = json_object_get_member(o, "bind");
  g_autofree char *bp = g_strdup_printf("%s/bind", path);
  mark(r, o, "bind", bp);
  if (b && JSON_NODE_HOLDS_VALUE(b) && json_node_get_value_type(b) == G_TYPE_STRING &&
      g_str_has_suffix(json_node_get_string(b), "/*")) {
    read_param_array(r, o, path, bp, name, json_node_get_string(b));
    return;
  }
  lw_param_desc *p = lw_desc_add_param(r->d, name, NULL);
  read_param_bind(r, b, path, bp, p);
  if (r->failed || get_num(r, o, "value", path, &p->value) || r->failed || p->ntargets == 0)
    return;
  /* no value: the parameter takes the field's current value (over its
   * factor; a product needs the value given) */
  double *f = lw_desc_field(r->d, p->targets[0]);
  double s = p->factors ? p->factors[0] : 1.0;
  if (!f)
    fail(r, bp, "parameter '%s' names '%s', which is not a numeric field of this model", name, p->targets[0]);
  else if ((p->times && p->times[0]) || s == 0.0)
    fail(r, path, "parameter '%s': a 'value' is required when its first binding has a product or a factor 0", name);
  else
    p->value = *f / s;
}

/* an event (docs/model-format.md sec. 8a): contact, joint_limit, guard or switch */
static void read_event(reader *r, JsonObject *o, const char *path, const char *name)
{
  static const char *const k[] = {"name", "type", "body", "point", "normal", "offset", "radius",
                                  "joint", "coordinate", "lower", "upper", "restitution", "rest_speed",
                                  "output", "component", "value", "direction", "action", "force", "center",
                                  "body2", "point2", "distance", NULL};
  check_keys(r, o, path, k);
  const char *type = need_str(r, o, "type", path);
  if (!type)
    return;
  int t = lw_event_type_from_name(type);
  if (t < 0) {
    g_autofree char *p = g_strdup_printf("%s/type", path);
    fail(r, p, "unknown event type '%s' (expected contact, joint_limit, guard, switch, capture or collision)", type);
    return;
  }
  lw_event_desc *e = lw_desc_add_event(r->d, name, (lw_event_type)t);
  int dim = r->planar ? 2 : 3;
  if (t == LW_EVENT_CONTACT || t == LW_EVENT_SWITCH) {
    e->body = dup_or_null(need_str(r, o, "body", path));
    if (!read_place(r, o, "point", path, &e->place) && !r->failed)
      fail(r, path, "required field 'point' is missing");
    if (json_object_has_member(o, "normal"))
      memset(e->normal, 0, sizeof e->normal);
    get_vec(r, o, "normal", path, e->normal, dim);
    get_num(r, o, "offset", path, &e->offset);
    if (t == LW_EVENT_SWITCH)
      e->force = dup_or_null(need_str(r, o, "force", path));
    else
      get_num(r, o, "radius", path, &e->radius);
  } else if (t == LW_EVENT_CAPTURE) {
    e->body = dup_or_null(need_str(r, o, "body", path));
    if (!read_place(r, o, "point", path, &e->place) && !r->failed)
      fail(r, path, "required field 'point' is missing");
    get_vec(r, o, "center", path, e->center, dim);
    need_num(r, o, "radius", path, &e->radius);
  } else if (t == LW_EVENT_COLLISION) {
    e->body = dup_or_null(need_str(r, o, "body", path));
    if (!read_place(r, o, "point", path, &e->place) && !r->failed)
      fail(r, path, "required field 'point' is missing");
    e->body2 = dup_or_null(need_str(r, o, "body2", path));
    if (!read_place(r, o, "point2", path, &e->place2) && !r->failed)
      fail(r, path, "required field 'point2' is missing");
    need_num(r, o, "distance", path, &e->distance);
  } else if (t == LW_EVENT_JOINT_LIMIT) {
    e->joint = dup_or_null(need_str(r, o, "joint", path));
    get_int(r, o, "coordinate", path, &e->coordinate);
    e->has_lower = get_num(r, o, "lower", path, &e->lower);
    e->has_upper = get_num(r, o, "upper", path, &e->upper);
    if (!e->has_lower && !e->has_upper && !r->failed)
      fail(r, path, "a joint limit needs 'lower', 'upper' or both");
  } else {
    e->output = dup_or_null(need_str(r, o, "output", path));
    get_int(r, o, "component", path, &e->component);
    need_num(r, o, "value", path, &e->value);
    const char *dir = get_str(r, o, "direction", path);
    static const char *const dirs[] = {"falling", "both", "rising"};
    e->direction = 0;
    if (dir) {
      int found = 0;
      for (int i = 0; i < 3; i++)
        if (!strcmp(dir, dirs[i])) {
          e->direction = i - 1;
          found = 1;
        }
      if (!found) {
        g_autofree char *p = g_strdup_printf("%s/direction", path);
        fail(r, p, "unknown direction '%s' (expected rising, falling or both)", dir);
      }
    }
    const char *act = get_str(r, o, "action", path);
    if (act && strcmp(act, "stop")) {
      g_autofree char *p = g_strdup_printf("%s/action", path);
      fail(r, p, "unknown action '%s' (a guard's action is stop)", act);
    }
  }
  if (t == LW_EVENT_CONTACT || t == LW_EVENT_JOINT_LIMIT || t == LW_EVENT_COLLISION) {
    e->restitution = 1.0;
    get_num(r, o, "restitution", path, &e->restitution);
    get_num(r, o, "rest_speed", path, &e->rest_speed);
  } else if (!r->failed) {
    /* a guard has no radius either, but reads it nowhere: refused for a switch only */
    static const char *const impact_only[] = {"restitution", "rest_speed", "radius", NULL};
    static const char *const why[] = {[LW_EVENT_GUARD] = "guard",
                                      [LW_EVENT_SWITCH] = "switch (its velocity does not jump)",
                                      [LW_EVENT_CAPTURE] = "capture (its impact is plastic)"};
    for (int i = 0; impact_only[i]; i++)
      if (json_object_has_member(o, impact_only[i]) && (t == LW_EVENT_SWITCH || i < 2)) {
        g_autofree char *p = g_strdup_printf("%s/%s", path, impact_only[i]);
        mark(r, o, impact_only[i], p);
        fail(r, p, "'%s' belongs to contacts and joint limits, not to a %s", impact_only[i], why[t]);
      }
  }
}

/* each element of the list root[key] through read_el (named: each has a name) */
static void read_list(reader *r, JsonObject *root, const char *key, gboolean named,
                      void (*read_el)(reader *, JsonObject *, const char *, const char *))
{
  JsonArray *a = get_arr(r, root, key, "");
  char *path = NULL;
  const char *name = NULL;
  for (guint k = 0; a && k < json_array_get_length(a) && !r->failed; k++) {
    JsonObject *o = element(r, a, k, key, root, &path, named ? &name : NULL, named);
    if (o)
      read_el(r, o, path, named ? name : NULL);
    g_clear_pointer(&path, g_free);
  }
}

/* the format version: 0, or -1 (failed) when missing or not this build's */
static int read_version(reader *r, JsonObject *root)
{
  int version = 0;
  if (!json_object_has_member(root, "linkwright")) {
    fail(r, "linkwright", "not a Linkwright model: the top-level field \"linkwright\" (format version) is missing");
    return -1;
  }
  if (!get_int(r, root, "linkwright", "", &version))
    return -1;
  mark(r, root, "linkwright", "version");
  r->d->version = version;
  if (version != LW_FORMAT_VERSION) {
    fail(r, "version", "unsupported format version %d (this build reads version %d)", version,
         LW_FORMAT_VERSION);
    return -1;
  }
  return 0;
}

static void read_root(reader *r, JsonObject *root)
{
  static const char *const keys[] = {"linkwright", "name", "description", "planar", "gravity", "solver",
                                     "bodies", "joints", "forces", "drivers", "initial", "outputs",
                                     "events", "beams", "parameters", "objectives", "problems", NULL};
  lw_desc *d = r->d;
  if (read_version(r, root))
    return;
  check_keys(r, root, "", keys);
  d->name = dup_or_null(get_str(r, root, "name", ""));
  d->description = dup_or_null(get_str(r, root, "description", ""));
  get_bool(r, root, "planar", "", &d->planar);
  r->planar = d->planar;
  if (json_object_has_member(root, "gravity")) {
    memset(d->gravity, 0, sizeof d->gravity);
    get_vec(r, root, "gravity", "", d->gravity, r->planar ? 2 : 3);
  }
  JsonObject *so = get_obj(r, root, "solver", "");
  if (so)
    read_solver(r, so);
  read_list(r, root, "bodies", TRUE, read_body_element);
  read_list(r, root, "beams", TRUE, read_beam);
  read_list(r, root, "joints", TRUE, read_joint);
  read_list(r, root, "forces", TRUE, read_force);
  read_list(r, root, "drivers", TRUE, read_driver);
  read_list(r, root, "initial", FALSE, read_initial);
  read_list(r, root, "outputs", TRUE, read_output);
  read_list(r, root, "events", TRUE, read_event);
  read_list(r, root, "objectives", TRUE, read_objective);
  read_list(r, root, "parameters", TRUE, read_param);
  read_list(r, root, "problems", TRUE, read_problem);
}

/* "bind" "PREFIX/" followed by "*": one parameter NAME[k] for every component k of the
 * field PREFIX (for example every value of a spline); "value" is omitted
 * (the fields' values) or an array with one number per component */
static void read_param_array(reader *r, JsonObject *o, const char *path, const char *bp, const char *name,
                             const char *bind)
{
  lw_desc *d = r->d;
  g_autofree char *prefix = g_strndup(bind, strlen(bind) - 2);
  int n = 0;
  for (;; n++) {
    g_autofree char *fp = g_strdup_printf("%s/%d", prefix, n);
    if (!lw_desc_field(d, fp))
      break;
  }
  if (n == 0) {
    fail(r, bp, "parameter '%s' names '%s', which has no numeric components in this model", name, bind);
    return;
  }
  double *values = NULL;
  if (json_object_has_member(o, "value")) {
    g_autofree char *vp = g_strdup_printf("%s/value", path);
    mark(r, o, "value", vp);
    values = calloc((size_t)n, sizeof(double));
    if (!array_node(r, json_object_get_member(o, "value"), vp, "value", values, n)) {
      free(values);
      return;
    }
  }
  for (int k = 0; k < n; k++) {
    g_autofree char *pn = g_strdup_printf("%s[%d]", name, k);
    g_autofree char *fp = g_strdup_printf("%s/%d", prefix, k);
    lw_param_desc *p = lw_desc_add_param(d, pn, fp);
    p->value = values ? values[k] : *lw_desc_field(d, fp);
  }
  free(values);
}

/* Nothing in a model nests deeper than a few levels; the JSON parser
 * recurses once per level, so a file of deep brackets would exhaust the
 * stack.  The line of the first bracket beyond LW_JSON_MAX_DEPTH, or 0. */
#define LW_JSON_MAX_DEPTH 64
static int too_deep(const char *data, gsize len)
{
  int depth = 0, line = 1, in_string = 0;
  for (gsize i = 0; i < len && data[i]; i++) {
    char c = data[i];
    if (c == '\n')
      line++;
    else if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = 0;
    } else if (c == '"')
      in_string = 1;
    else if (c == '[' || c == '{') {
      if (++depth > LW_JSON_MAX_DEPTH)
        return line;
    } else if (c == ']' || c == '}')
      depth--;
  }
  return 0;
}

lw_desc *lw_model_read_data(const char *data, gssize len, const char *filename, LwSourceMap **map_out,
                            lw_error *err)
{
  lw_error dummy;
  if (!err)
    err = &dummy;
  memset(err, 0, sizeof *err);
  err->time = NAN;
  int deep = too_deep(data, len < 0 ? strlen(data) : (gsize)len);
  if (deep) {
    err->status = LW_ERR_MODEL;
    g_snprintf(err->msg, sizeof err->msg, "%s:%d: brackets nested deeper than %d levels: not a model file",
               filename, deep, LW_JSON_MAX_DEPTH);
    if (map_out)
      *map_out = NULL;
    return NULL;
  }
  reader r = {0};
  r.member_lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  r.map = g_new0(LwSourceMap, 1);
  r.map->lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  r.err = err;
  g_autoptr(JsonParser) parser = json_parser_new_immutable();
  g_signal_connect(parser, "object-member", G_CALLBACK(on_member), &r);
  GError *gerr = NULL;
  lw_desc *d = NULL;
  if (!json_parser_load_from_data(parser, data, len, &gerr)) {
    err->status = LW_ERR_MODEL;
    /* json-glib says "<data>:LINE:COL: Parse error: ..." */
    const char *msg = gerr->message;
    if (g_str_has_prefix(msg, "<data>:"))
      msg += 7;
    g_snprintf(err->msg, sizeof err->msg, "%s:%s (malformed JSON)", filename, msg);
    g_error_free(gerr);
    goto out;
  }
  JsonNode *root = json_parser_get_root(parser);
  if (!root || JSON_NODE_TYPE(root) != JSON_NODE_OBJECT) {
    err->status = LW_ERR_MODEL;
    g_snprintf(err->msg, sizeof err->msg, "%s:1: the top level must be a JSON object", filename);
    goto out;
  }
  d = lw_desc_new();
  r.d = d;
  read_root(&r, json_node_get_object(root));
  if (r.failed) {
    lw_error_locate(err, filename, r.map);
    lw_desc_free(d);
    d = NULL;
  }
out:
  g_hash_table_unref(r.member_lines);
  if (map_out && d)
    *map_out = r.map;
  else
    lw_source_map_free(r.map);
  return d;
}

/* model files are small: a file larger than this is not one */
#define LW_MODEL_MAX_BYTES (256u << 20)

static lw_desc *refuse_file(const char *filename, lw_error *err, const char *why)
{
  if (err) {
    memset(err, 0, sizeof *err);
    err->status = LW_ERR_MODEL;
    err->time = NAN;
    g_snprintf(err->msg, sizeof err->msg, "%s: %s", filename, why);
  }
  return NULL;
}

lw_desc *lw_model_read_file(const char *filename, LwSourceMap **map, lw_error *err)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  GError *gerr = NULL;
  if (map)
    *map = NULL;
  /* a device or a pipe may never end (/dev/zero): only regular files */
  GStatBuf st;
  if (g_stat(filename, &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return refuse_file(filename, err, "not a regular file");
    if ((guint64)st.st_size > LW_MODEL_MAX_BYTES)
      return refuse_file(filename, err, "too large for a model file (more than 256 MiB)");
  }
  if (!g_file_get_contents(filename, &data, &len, &gerr)) {
    if (err) {
      memset(err, 0, sizeof *err);
      err->status = LW_ERR_MODEL;
      err->time = NAN;
      g_snprintf(err->msg, sizeof err->msg, "%s: %s", filename, gerr->message);
    }
    g_error_free(gerr);
    return NULL;
  }
  if (!g_utf8_validate(data, (gssize)len, NULL)) {
    if (err) {
      memset(err, 0, sizeof *err);
      err->status = LW_ERR_MODEL;
      err->time = NAN;
      g_snprintf(err->msg, sizeof err->msg, "%s: not a text file (invalid UTF-8)", filename);
    }
    return NULL;
  }
  lw_desc *d = lw_model_read_data(data, (gssize)len, filename, map, err);
  if (d) {
    /* files the model names are found beside it */
    g_autofree char *dir = g_path_get_dirname(filename);
    d->source_dir = g_path_is_absolute(dir) ? g_strdup(dir) : g_canonicalize_filename(dir, NULL);
  }
  return d;
}

lw_model *lw_model_open(const char *filename, lw_error *err)
{
  g_autoptr(LwSourceMap) map = NULL;
  lw_desc *d = lw_model_read_file(filename, &map, err);
  if (!d)
    return NULL;
  lw_model *m = lw_compile(d, err);
  lw_desc_free(d);
  if (!m)
    lw_error_locate(err, filename, map);
  return m;
}
