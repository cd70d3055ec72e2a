/* lw_urdf.c: robot descriptions in URDF read into a model description.
 *
 * Mapping (docs/model-format.md, "Importing URDF"):
 * - the root link is the ground (a robot's base is fixed, as MuJoCo and
 *   Bullet load a URDF with a fixed base); links joined by fixed joints are
 *   one rigid body whose mass, centre of mass and inertia are lumped in the
 *   frame of its topmost link (parallel-axis theorem);
 * - every other link is a body whose frame is the link frame; its initial
 *   pose is the link's pose with every joint at 0;
 * - revolute and continuous joints become revolute joints, prismatic ones
 *   prismatic, planar ones planar, each placed by its origin and axis in
 *   the world at that pose; floating joints leave the child free;
 * - dynamics damping becomes a joint spring-damper of zero stiffness,
 *   dynamics friction a joint friction of that constant size while the
 *   joint slides (lw_import_joint.h);
 * - the limits of revolute and prismatic joints become a joint_limit event
 *   of restitution 0: a stop the joint rests against;
 * - visuals: boxes, cylinders and spheres; a mesh is drawn as a stand-in box;
 * - the notes say how each of these was mapped, and name what is not
 *   represented.
 *
 * The XML is parsed without network access, without loading or expanding
 * entities, and documents that declare entities or are larger than
 * LW_URDF_MAX_BYTES are refused before anything is built. */
#include "lw_io.h"
#include "lw_import_joint.h"
#include "lw_import_util.h"

#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#define LW_URDF_MAX_BYTES (16u << 20)

typedef struct {
  char *name;
  xmlNode *node;
  int parent_joint; /* -1: root */
  int group;        /* the rigid body it belongs to (-1: the ground) */
  xform world;      /* pose with every joint at 0 */
  double mass, com[3], I[9]; /* inertial, in the link frame (I about the com) */
  int has_inertial;
} urdf_link;

typedef struct {
  char *name, *type;
  xmlNode *node;
  int parent, child;
  xform origin;
  double axis[3];
  double damping, friction;
  int has_limit, limit_bounds; /* limit_bounds: 1 lower or upper given, -1 neither, 0 no <limit> */
  int limit_drive;             /* <limit> gives effort or velocity */
  double lower, upper;
} urdf_joint;

typedef struct {
  const char *filename;
  xmlDoc *doc;
  GPtrArray *links;  /* urdf_link */
  GPtrArray *joints; /* urdf_joint */
  GHashTable *by_name;
  GString *notes;    /* what was not represented */
  lw_error *err;
} urdf;

/* ---- reading ----------------------------------------------------------- */
static int fail(urdf *u, xmlNode *node, const char *field, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  u->err->status = LW_ERR_MODEL;
  u->err->time = NAN;
  snprintf(u->err->path, sizeof u->err->path, "%s", field ? field : "");
  if (node && field)
    snprintf(u->err->msg, sizeof u->err->msg, "%s:%ld: field %s: %s", u->filename, xmlGetLineNo(node), field, msg);
  else if (node)
    snprintf(u->err->msg, sizeof u->err->msg, "%s:%ld: %s", u->filename, xmlGetLineNo(node), msg);
  else
    snprintf(u->err->msg, sizeof u->err->msg, "%s: %s", u->filename, msg);
  return -1;
}

static void note(urdf *u, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  if (u->notes->len)
    g_string_append(u->notes, "\n");
  g_string_append_vprintf(u->notes, fmt, ap);
  va_end(ap);
}

static xmlNode *child(xmlNode *n, const char *name)
{
  for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
      return c;
  return NULL;
}

/* attribute attr of n as up to n numbers; 0 when absent, -1 (error set) when
 * malformed; field names the element and attribute in messages */
static int numbers(urdf *u, xmlNode *n, const char *attr, double *v, int count, const char *field)
{
  xmlChar *s = n ? xmlGetProp(n, (const xmlChar *)attr) : NULL;
  if (!s)
    return 0;
  char *p = (char *)s;
  for (int i = 0; i < count; i++) {
    char *end;
    v[i] = g_ascii_strtod(p, &end);
    if (end == p || !isfinite(v[i])) {
      fail(u, n, field, "%s must be %d number%s, not \"%s\"", attr, count, count > 1 ? "s" : "", (char *)s);
      xmlFree(s);
      return -1;
    }
    p = end;
  }
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (*p) {
    fail(u, n, field, "%s must be %d number%s, not \"%s\"", attr, count, count > 1 ? "s" : "", (char *)s);
    xmlFree(s);
    return -1;
  }
  xmlFree(s);
  return 1;
}

static char *attr_dup(xmlNode *n, const char *attr)
{
  xmlChar *s = n ? xmlGetProp(n, (const xmlChar *)attr) : NULL;
  char *r = s ? g_strdup((const char *)s) : NULL;
  xmlFree(s);
  return r;
}

/* an <origin xyz rpy> child of n (identity when absent) */
static int origin_of(urdf *u, xmlNode *n, const char *field, xform *t)
{
  xform_identity(t);
  xmlNode *o = child(n, "origin");
  double rpy[3] = {0, 0, 0};
  if (numbers(u, o, "xyz", t->p, 3, field) < 0 || numbers(u, o, "rpy", rpy, 3, field) < 0)
    return -1;
  rpy_matrix(rpy, t->R);
  return 0;
}

static int read_inertial(urdf *u, urdf_link *l)
{
  xmlNode *in = child(l->node, "inertial");
  if (!in)
    return 0;
  g_autofree char *field = g_strdup_printf("link %s/inertial", l->name);
  xform o;
  if (origin_of(u, in, field, &o) < 0)
    return -1;
  xmlNode *m = child(in, "mass"), *i = child(in, "inertia");
  if (numbers(u, m, "value", &l->mass, 1, field) < 0)
    return -1;
  static const char *const names[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
  double v[6] = {0};
  for (int k = 0; k < 6; k++)
    if (numbers(u, i, names[k], &v[k], 1, field) < 0)
      return -1;
  if (l->mass < 0)
    return fail(u, m, field, "mass must not be negative");
  /* a tensor no rigid body has (a moment below zero, or one larger than
   * the other two together) would be refused by the compiler without the
   * line: say it here */
  double Ic[9] = {v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2]}, e[3];
  sym_eigenvalues(Ic, e);
  double tol = 1e-9 * fmax(e[2], 1e-300);
  if (l->mass > 0 && (e[0] < -tol || e[0] + e[1] < e[2] - tol))
    return fail(u, i ? i : in, field,
                "the inertia is not one of a rigid body: its principal moments %.6g, %.6g, %.6g %s", e[0], e[1],
                e[2], e[0] < -tol ? "include a negative one" : "break the triangle inequality (I1 + I2 >= I3)");
  /* the tensor in the inertial frame, turned into the link frame */
  double Ii[9] = {v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2]}, T[9];
  double Rt[9] = {o.R[0], o.R[3], o.R[6], o.R[1], o.R[4], o.R[7], o.R[2], o.R[5], o.R[8]};
  mat_mul(o.R, Ii, T);
  mat_mul(T, Rt, l->I);
  memcpy(l->com, o.p, sizeof o.p);
  l->has_inertial = 1;
  return 0;
}

static int read_links(urdf *u, xmlNode *robot)
{
  for (xmlNode *c = robot->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "link"))
      continue;
    urdf_link *l = g_new0(urdf_link, 1);
    l->node = c;
    l->parent_joint = -1;
    l->name = attr_dup(c, "name");
    g_ptr_array_add(u->links, l);
    if (!l->name || !*l->name)
      return fail(u, c, "link", "a link needs a name");
    if (g_hash_table_contains(u->by_name, l->name))
      return fail(u, c, "link", "two links are named \"%s\"", l->name);
    g_hash_table_insert(u->by_name, l->name, GINT_TO_POINTER((int)u->links->len));
    if (read_inertial(u, l) < 0)
      return -1;
  }
  if (!u->links->len)
    return fail(u, robot, "robot", "the robot has no link");
  return 0;
}

static int link_index(urdf *u, xmlNode *j, const char *which, const char *jname)
{
  xmlNode *n = child(j, which);
  g_autofree char *name = attr_dup(n, "link");
  g_autofree char *field = g_strdup_printf("joint %s/%s", jname, which);
  if (!name)
    return fail(u, j, field, "the joint needs a <%s link=\"...\"/>", which);
  int k = GPOINTER_TO_INT(g_hash_table_lookup(u->by_name, name)) - 1;
  if (k < 0)
    return fail(u, n, field, "there is no link \"%s\"", name);
  return k;
}

static const char *const joint_types[] = {"revolute", "continuous", "prismatic", "fixed", "floating", "planar"};

static int read_joint(urdf *u, xmlNode *c, urdf_joint *j)
{
  j->node = c;
  j->name = attr_dup(c, "name");
  j->type = attr_dup(c, "type");
  if (!j->name || !*j->name)
    return fail(u, c, "joint", "a joint needs a name");
  g_autofree char *field = g_strdup_printf("joint %s", j->name);
  gboolean known = FALSE;
  for (guint k = 0; k < G_N_ELEMENTS(joint_types); k++)
    known |= j->type && !strcmp(j->type, joint_types[k]);
  if (!known)
    return fail(u, c, field, "type must be revolute, continuous, prismatic, fixed, floating or planar, not \"%s\"",
                j->type ? j->type : "");
  if ((j->parent = link_index(u, c, "parent", j->name)) < 0 || (j->child = link_index(u, c, "child", j->name)) < 0)
    return -1;
  if (origin_of(u, c, field, &j->origin) < 0)
    return -1;
  j->axis[0] = 1;
  xmlNode *ax = child(c, "axis");
  g_autofree char *afield = g_strdup_printf("joint %s/axis", j->name);
  if (numbers(u, ax, "xyz", j->axis, 3, afield) < 0)
    return -1;
  double n = sqrt(j->axis[0] * j->axis[0] + j->axis[1] * j->axis[1] + j->axis[2] * j->axis[2]);
  if (n == 0)
    return fail(u, ax, afield, "the axis must not be zero");
  for (int i = 0; i < 3; i++)
    j->axis[i] /= n;
  xmlNode *dyn = child(c, "dynamics");
  g_autofree char *dfield = g_strdup_printf("joint %s/dynamics", j->name);
  if (numbers(u, dyn, "damping", &j->damping, 1, dfield) < 0 || numbers(u, dyn, "friction", &j->friction, 1, dfield) < 0)
    return -1;
  xmlNode *lim = child(c, "limit");
  g_autofree char *lfield = g_strdup_printf("joint %s/limit", j->name);
  if (lim) {
    int a = numbers(u, lim, "lower", &j->lower, 1, lfield), b = numbers(u, lim, "upper", &j->upper, 1, lfield);
    if (a < 0 || b < 0)
      return -1;
    j->has_limit = (a || b) && strcmp(j->type, "continuous");
    j->limit_bounds = a || b ? 1 : -1;
    j->limit_drive = xmlHasProp(lim, (const xmlChar *)"effort") || xmlHasProp(lim, (const xmlChar *)"velocity");
  }
  return 0;
}

static int read_joints(urdf *u, xmlNode *robot)
{
  for (xmlNode *c = robot->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "joint"))
      continue;
    urdf_joint *j = g_new0(urdf_joint, 1);
    g_ptr_array_add(u->joints, j);
    if (read_joint(u, c, j) < 0)
      return -1;
    urdf_link *ch = g_ptr_array_index(u->links, j->child);
    if (ch->parent_joint >= 0)
      return fail(u, c, j->name, "link \"%s\" is the child of two joints", ch->name);
    ch->parent_joint = (int)u->joints->len - 1;
  }
  return 0;
}

/* ---- the tree ---------------------------------------------------------- */
static urdf_link *link_at(urdf *u, int k)
{
  return g_ptr_array_index(u->links, k);
}

static urdf_joint *joint_at(urdf *u, int k)
{
  return g_ptr_array_index(u->joints, k);
}

/* the world pose of link k (every joint at 0), by its chain of joints */
static int place_link(urdf *u, int k, int depth)
{
  urdf_link *l = link_at(u, k);
  if (depth > (int)u->links->len)
    return fail(u, l->node, l->name, "the joints form a loop through link \"%s\"", l->name);
  if (l->parent_joint < 0) {
    xform_identity(&l->world);
    return 0;
  }
  urdf_joint *j = joint_at(u, l->parent_joint);
  if (place_link(u, j->parent, depth + 1) < 0)
    return -1;
  xform_compose(&link_at(u, j->parent)->world, &j->origin, &l->world);
  return 0;
}

/* the rigid body of link k: its own, or its parent's through a fixed joint
 * (-1 for the ground: the root and what is fixed to it) */
static int group_of(urdf *u, int k)
{
  urdf_link *l = link_at(u, k);
  if (l->parent_joint < 0)
    return -1;
  urdf_joint *j = joint_at(u, l->parent_joint);
  return strcmp(j->type, "fixed") ? k : group_of(u, j->parent);
}

static int build_tree(urdf *u, xmlNode *robot)
{
  int root = -1;
  for (guint k = 0; k < u->links->len; k++)
    if (link_at(u, (int)k)->parent_joint < 0) {
      if (root >= 0)
        return fail(u, robot, "robot",
                    "links \"%s\" and \"%s\" both have no parent joint: a robot is one tree with one root",
                    link_at(u, root)->name, link_at(u, (int)k)->name);
      root = (int)k;
    }
  if (root < 0)
    return fail(u, robot, "robot", "every link has a parent joint: the joints form a loop");
  for (guint k = 0; k < u->links->len; k++)
    if (place_link(u, (int)k, 0) < 0)
      return -1;
  for (guint k = 0; k < u->links->len; k++)
    link_at(u, (int)k)->group = group_of(u, (int)k);
  return root;
}

/* ---- bodies -------------------------------------------------------------- */
/* mass, centre of mass and inertia of group g lumped in the frame of its
 * top link (the parallel-axis theorem moves each link's tensor) */
static void lump(urdf *u, int g, lw_body_desc *b)
{
  const xform *top = &link_at(u, g)->world;
  double m = 0, c[3] = {0}, I[9] = {0};
  for (guint k = 0; k < u->links->len; k++) {
    urdf_link *l = link_at(u, (int)k);
    if (l->group != g || !l->has_inertial || l->mass == 0)
      continue;
    xform rel;
    xform_relative(top, &l->world, &rel);
    double ck[3];
    mat_vec(rel.R, l->com, ck);
    for (int i = 0; i < 3; i++)
      c[i] += l->mass * (ck[i] + rel.p[i]);
    m += l->mass;
  }
  if (m > 0)
    for (int i = 0; i < 3; i++)
      c[i] /= m;
  for (guint k = 0; k < u->links->len; k++) {
    urdf_link *l = link_at(u, (int)k);
    if (l->group != g || !l->has_inertial)
      continue;
    xform rel;
    xform_relative(top, &l->world, &rel);
    double ck[3];
    mat_vec(rel.R, l->com, ck);
    for (int i = 0; i < 3; i++)
      ck[i] += rel.p[i];
    inertia_add(rel.R, ck, l->mass, l->I, c, I);
  }
  b->mass = m;
  memcpy(b->com, c, sizeof c);
  double v[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
  memcpy(b->inertia, v, sizeof v);
}

static void geom_color(urdf *u, xmlNode *visual, lw_geom_desc *gd)
{
  xmlNode *mat = child(visual, "material");
  g_autofree char *name = attr_dup(mat, "name");
  xmlNode *col = child(mat, "color");
  if (!col && name) /* a material defined at the top of the robot */
    for (xmlNode *c = xmlDocGetRootElement(u->doc)->children; c; c = c->next) {
      g_autofree char *n = c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "material")
                               ? attr_dup(c, "name")
                               : NULL;
      if (n && !strcmp(n, name))
        col = child(c, "color");
    }
  double rgba[4];
  lw_error keep = *u->err;
  if (col && numbers(u, col, "rgba", rgba, 4, "material") > 0)
    memcpy(gd->color, rgba, sizeof gd->color);
  *u->err = keep; /* a colour that does not read is not worth refusing the robot */
}

static int add_visual(urdf *u, urdf_link *l, const xform *top, xmlNode *visual, lw_body_desc *b)
{
  g_autofree char *field = g_strdup_printf("link %s/visual", l->name);
  xform o, w, rel;
  if (origin_of(u, visual, field, &o) < 0)
    return -1;
  xform_compose(&l->world, &o, &w);
  xform_relative(top, &w, &rel);
  xmlNode *geo = child(visual, "geometry");
  xmlNode *box = child(geo, "box"), *cyl = child(geo, "cylinder"), *sph = child(geo, "sphere");
  xmlNode *mesh = child(geo, "mesh");
  if (box) {
    double s[3];
    if (numbers(u, box, "size", s, 3, field) <= 0)
      return fail(u, box, field, "a box needs size=\"x y z\"");
    lw_geom_desc *gd = lw_body_add_geom(b, LW_GEOM_BOX);
    int perm[3];
    if (!axis_permutation(rel.R, perm)) {
      note(u, "link %s: a box turned by an angle that is not a multiple of 90 degrees is drawn unturned", l->name);
      perm[0] = 0, perm[1] = 1, perm[2] = 2;
    }
    for (int i = 0; i < 3; i++)
      gd->size[i] = s[perm[i]] / 2;
    memcpy(gd->center, rel.p, sizeof rel.p);
    geom_color(u, visual, gd);
  } else if (cyl) {
    double r = 0, len = 0;
    if (numbers(u, cyl, "radius", &r, 1, field) <= 0 || numbers(u, cyl, "length", &len, 1, field) <= 0)
      return fail(u, cyl, field, "a cylinder needs radius and length");
    lw_geom_desc *gd = lw_body_add_geom(b, LW_GEOM_CYLINDER);
    double z[3] = {0, 0, len / 2}, e[3];
    mat_vec(rel.R, z, e);
    for (int i = 0; i < 3; i++) {
      gd->from[i] = rel.p[i] - e[i];
      gd->to[i] = rel.p[i] + e[i];
    }
    gd->size[0] = r;
    geom_color(u, visual, gd);
  } else if (sph) {
    double r = 0;
    if (numbers(u, sph, "radius", &r, 1, field) <= 0)
      return fail(u, sph, field, "a sphere needs a radius");
    lw_geom_desc *gd = lw_body_add_geom(b, LW_GEOM_SPHERE);
    gd->size[0] = r;
    memcpy(gd->center, rel.p, sizeof rel.p);
    geom_color(u, visual, gd);
  } else if (mesh) {
    /* the file is read for display (relative to the URDF's directory, or
     * package:// on LW_MESH_PATH); one that is missing is drawn as a box
     * and named by the view */
    g_autofree char *file = attr_dup(mesh, "filename");
    if (!file || !*file)
      return fail(u, mesh, field, "a mesh needs a filename");
    lw_geom_desc *gd = lw_body_add_geom(b, LW_GEOM_MESH);
    gd->mesh = g_strdup(file);
    double sc[3] = {1, 1, 1};
    if (numbers(u, mesh, "scale", sc, 3, field) < 0)
      return -1;
    memcpy(gd->size, sc, sizeof sc);
    memcpy(gd->center, rel.p, sizeof rel.p);
    quat_of(rel.R, gd->quat);
    geom_color(u, visual, gd);
  }
  return 0;
}

static int add_body(urdf *u, int g, lw_desc *d)
{
  urdf_link *top = link_at(u, g);
  lw_body_desc *b = lw_desc_add_body(d, top->name);
  lump(u, g, b);
  if (!(b->mass > 0))
    return fail(u, top->node, top->name,
                "link \"%s\" moves but has no mass (with the links fixed to it): every moving body needs a "
                "mass and an inertia",
                top->name);
  memcpy(b->position, top->world.p, sizeof b->position);
  quat_of(top->world.R, b->orientation);
  for (guint k = 0; k < u->links->len; k++) {
    urdf_link *l = link_at(u, (int)k);
    if (l->group != g)
      continue;
    if (l != top)
      note(u, "link %s is fixed to %s: one body", l->name, top->name);
    for (xmlNode *c = l->node->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "visual") &&
          add_visual(u, l, &top->world, c, b) < 0)
        return -1;
  }
  return 0;
}

/* ---- joints ----------------------------------------------------------- */
static const char *body_name(urdf *u, int link)
{
  int g = link_at(u, link)->group;
  return g < 0 ? "ground" : link_at(u, g)->name;
}

/* <dynamics friction>: a constant Coulomb friction of that size while the
 * joint slides (lw_import_joint.h) */
static void add_friction(urdf *u, const urdf_joint *j, lw_joint_type type, lw_joint_desc *jd)
{
  if (!(j->friction > 0))
    return;
  if (type == LW_JOINT_PLANAR) {
    note(u, "joint %s: friction %g on a planar joint is not imported", j->name, j->friction);
    return;
  }
  lw_import_set_friction(jd, j->friction);
  note(u,
       "joint %s: friction %g becomes joint friction of that constant size (%s) while it slides: mu_s = mu_d = "
       "%g, preload %g N, radius %g m",
       j->name, j->friction, type == LW_JOINT_PRISMATIC ? "N" : "N m", LW_IMPORT_FRICTION_KAPPA,
       j->friction / LW_IMPORT_FRICTION_KAPPA, LW_IMPORT_FRICTION_RADIUS);
}

/* <limit lower upper> of a revolute or prismatic joint: a stop at each
 * bound (continuous joints have none; read_joint leaves has_limit 0) */
static void add_limit(urdf *u, const urdf_joint *j, lw_joint_type type, lw_desc *d)
{
  if (!strcmp(j->type, "continuous")) {
    if (j->limit_bounds > 0)
      note(u, "joint %s is continuous: the bounds of its <limit> do not apply", j->name);
    return;
  }
  if (!j->has_limit) {
    if (j->limit_bounds < 0)
      note(u, "joint %s: <limit> gives neither lower nor upper: no stop", j->name);
    return;
  }
  if (type == LW_JOINT_PLANAR) {
    note(u, "joint %s: limits [%g, %g] on a planar joint are not imported", j->name, j->lower, j->upper);
    return;
  }
  if (!(j->lower < j->upper)) {
    note(u, "joint %s: limits [%g, %g] leave no range: not imported", j->name, j->lower, j->upper);
    return;
  }
  double start = lw_import_add_limit(d, j->name, 1, j->lower, 1, j->upper);
  note(u, "joint %s: limits [%g, %g] become the joint_limit event \"%s limits\" (restitution %g: a stop that "
          "does not bounce)",
       j->name, j->lower, j->upper, j->name, LW_IMPORT_LIMIT_RESTITUTION);
  if (start != 0)
    note(u, "joint %s: 0 lies outside its limits: it starts at %g", j->name, start);
}

static void add_joint(urdf *u, urdf_joint *j, lw_desc *d)
{
  urdf_link *ch = link_at(u, j->child);
  const xform *w = &ch->world; /* the joint frame is the child's frame */
  lw_joint_type type = !strcmp(j->type, "prismatic") ? LW_JOINT_PRISMATIC
                       : !strcmp(j->type, "planar")  ? LW_JOINT_PLANAR
                                                     : LW_JOINT_REVOLUTE;
  lw_joint_desc *jd = lw_desc_add_joint(d, j->name, type, body_name(u, j->parent), ch->name);
  jd->has_at = 1;
  memcpy(jd->at, w->p, sizeof jd->at);
  jd->has_gaxis = 1;
  mat_vec(w->R, j->axis, jd->gaxis);
  if (j->damping > 0) {
    g_autofree char *fname = g_strdup_printf("%s damping", j->name);
    lw_force_desc *f = lw_desc_add_force(d, fname, LW_FORCE_JOINT_SPRING_DAMPER);
    f->joint = g_strdup(j->name);
    f->damping = j->damping;
    note(u, "joint %s: damping %g becomes the joint spring-damper \"%s\" (stiffness 0)", j->name, j->damping, fname);
  }
  add_friction(u, j, type, jd);
  add_limit(u, j, type, d);
  g_autofree char *oname = g_strdup_printf("%s.angle", j->name);
  lw_output_desc *o = lw_desc_add_output(d, type == LW_JOINT_PRISMATIC ? j->name : oname, LW_OUT_JOINT_COORDINATE);
  o->joint = g_strdup(j->name);
}

/* the effort and velocity of <limit> bound an actuator, which the model
 * does not have: one note names the joints */
static void note_drive_limits(urdf *u)
{
  GString *names = g_string_new(NULL);
  for (guint k = 0; k < u->joints->len; k++)
    if (joint_at(u, (int)k)->limit_drive)
      g_string_append_printf(names, "%s%s", names->len ? ", " : "", joint_at(u, (int)k)->name);
  if (names->len)
    note(u, "the effort and velocity of <limit> are not imported (no actuators): joints %s", names->str);
  g_string_free(names, TRUE);
}

static lw_desc *build(urdf *u, xmlNode *robot)
{
  int root = build_tree(u, robot);
  if (root < 0)
    return NULL;
  lw_desc *d = lw_desc_new();
  d->name = attr_dup(robot, "name");
  /* mesh files are found beside the robot description */
  g_autofree char *dir = g_path_get_dirname(u->filename);
  d->source_dir = g_path_is_absolute(dir) ? g_strdup(dir) : g_canonicalize_filename(dir, NULL);
  d->description = g_strdup_printf("Imported from %s.", u->filename);
  d->planar = 0;
  d->gravity[0] = d->gravity[1] = 0;
  d->gravity[2] = -9.81;
  d->solver.t_end = 1.0;
  d->solver.step = 1e-3;
  if (link_at(u, root)->has_inertial && link_at(u, root)->mass > 0)
    note(u, "link %s (the root) is fixed to the ground: its mass does not move", link_at(u, root)->name);
  for (guint k = 0; k < u->links->len; k++) {
    urdf_link *l = link_at(u, (int)k);
    if ((int)k == root || l->group != (int)k)
      continue;
    if (add_body(u, (int)k, d) < 0) {
      lw_desc_free(d);
      return NULL;
    }
  }
  for (guint k = 0; k < u->links->len; k++)
    if (link_at(u, (int)k)->group < 0 && (int)k != root)
      note(u, "link %s is fixed to the ground", link_at(u, (int)k)->name);
  for (guint k = 0; k < u->joints->len; k++) {
    urdf_joint *j = joint_at(u, (int)k);
    if (!strcmp(j->type, "fixed"))
      continue;
    if (!strcmp(j->type, "floating")) {
      note(u, "joint %s is floating: %s moves freely", j->name, link_at(u, j->child)->name);
      continue;
    }
    add_joint(u, j, d);
  }
  note_drive_limits(u);
  for (xmlNode *c = robot->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "link") &&
        strcmp((const char *)c->name, "joint") && strcmp((const char *)c->name, "material"))
      note(u, "<%s> (line %ld) is not imported", (const char *)c->name, xmlGetLineNo(c));
  return d;
}

static void link_free(gpointer p)
{
  urdf_link *l = p;
  g_free(l->name);
  g_free(l);
}

static void joint_free(gpointer p)
{
  urdf_joint *j = p;
  g_free(j->name);
  g_free(j->type);
  g_free(j);
}

/* refuse a document type that declares entities: nothing in a robot
 * description needs them, and they are how XML bombs and external reads work */
static int check_dtd(urdf *u)
{
  xmlDtd *dtds[2] = {u->doc->intSubset, u->doc->extSubset};
  for (int i = 0; i < 2; i++)
    if (dtds[i] && (dtds[i]->entities || dtds[i]->pentities || dtds[i]->ExternalID || dtds[i]->SystemID))
      return fail(u, NULL, NULL, "the file declares entities or an external document type: refused (a robot "
                                 "description needs neither)");
  return 0;
}

lw_desc *lw_urdf_read_data(const char *data, gsize len, const char *filename, char **notes, lw_error *err)
{
  lw_error dummy;
  if (!err)
    err = &dummy;
  memset(err, 0, sizeof *err);
  if (notes)
    *notes = NULL;
  urdf u = {filename ? filename : "(URDF)", NULL, NULL, NULL, NULL, NULL, err};
  if (len > LW_URDF_MAX_BYTES) {
    fail(&u, NULL, NULL, "%zu bytes is too large for a robot description (at most %u MiB)", (size_t)len,
         LW_URDF_MAX_BYTES >> 20);
    return NULL;
  }
  /* no network, no entity substitution, no DTD loading, no huge nodes */
  u.doc = xmlReadMemory(data, (int)len, u.filename, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
  if (!u.doc) {
    const xmlError *e = xmlGetLastError();
    g_autofree char *why = g_strdup(e && e->message ? e->message : "unreadable");
    snprintf(err->msg, sizeof err->msg, "%s:%d: not well-formed XML: %s", u.filename, e ? e->line : 0,
             g_strchomp(why));
    err->status = LW_ERR_MODEL;
    err->time = NAN;
    return NULL;
  }
  u.links = g_ptr_array_new_with_free_func(link_free);
  u.joints = g_ptr_array_new_with_free_func(joint_free);
  u.by_name = g_hash_table_new(g_str_hash, g_str_equal);
  u.notes = g_string_new(NULL);
  lw_desc *d = NULL;
  xmlNode *robot = xmlDocGetRootElement(u.doc);
  if (check_dtd(&u) == 0) {
    if (!robot || strcmp((const char *)robot->name, "robot"))
      fail(&u, robot, NULL, "a URDF file holds one <robot> element, not <%s>", robot ? (const char *)robot->name : "");
    else if (read_links(&u, robot) == 0 && read_joints(&u, robot) == 0)
      d = build(&u, robot);
  }
  if (d && notes && u.notes->len)
    *notes = g_strdup(u.notes->str);
  g_string_free(u.notes, TRUE);
  g_hash_table_unref(u.by_name);
  g_ptr_array_unref(u.joints);
  g_ptr_array_unref(u.links);
  xmlFreeDoc(u.doc);
  return d;
}

lw_desc *lw_urdf_read_file(const char *filename, char **notes, lw_error *err)
{
  lw_error dummy;
  if (!err)
    err = &dummy;
  memset(err, 0, sizeof *err);
  if (notes)
    *notes = NULL;
  /* the size first: a huge file is refused before it is read */
  GStatBuf st;
  if (g_stat(filename, &st) == 0 && (guint64)st.st_size > LW_URDF_MAX_BYTES) {
    err->status = LW_ERR_MODEL;
    err->time = NAN;
    snprintf(err->msg, sizeof err->msg, "%s: %llu bytes is too large for a robot description (at most %u MiB)",
             filename, (unsigned long long)st.st_size, LW_URDF_MAX_BYTES >> 20);
    return NULL;
  }
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;
  if (!g_file_get_contents(filename, &data, &len, &error)) {
    err->status = LW_ERR_MODEL;
    err->time = NAN;
    snprintf(err->msg, sizeof err->msg, "%s", error->message);
    return NULL;
  }
  return lw_urdf_read_data(data, len, filename, notes, err);
}
