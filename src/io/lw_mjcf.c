/* lw_mjcf.c: MuJoCo models (MJCF) read into a model description.
 *
 * The file is read by MuJoCo's own parser and compiler (mj_loadXML), so that
 * <default> classes, <include>, every way of writing an orientation and
 * inertia from geoms and density are MuJoCo's; the compiled model is then
 * mapped at its reference pose qpos0 (docs/model-format.md, "Importing
 * MJCF"):
 * - the world and the bodies welded to it are the ground; a body without
 *   joints is one rigid body with its parent (mass and inertia lumped);
 * - a hinge is a revolute joint, a slide a prismatic one, a ball a spherical
 *   one; two hinges at one anchor a universal joint, three a spherical one;
 *   a free joint leaves the body free; other combinations are refused;
 * - joint damping and stiffness become joint spring-dampers, frictionloss a
 *   constant joint friction and a limited range a joint_limit event of
 *   restitution 0 (hinge, slide; lw_import_joint.h);
 * - equality connect is a spherical joint, weld a fixed joint;
 * - gravity and the time step are the model's options;
 * - geoms: sphere, box, capsule and cylinder drawn; others named.
 * Contacts, actuators, tendons, sensors and the rest are listed in the
 * notes as not imported. */
#include "lw_io.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef LW_HAVE_MUJOCO
#include <mujoco/mujoco.h>

#include "lw_import_joint.h"
#include "lw_import_util.h"

#define LW_MJCF_MAX_BYTES (16u << 20)

typedef struct {
  const char *filename;
  const mjModel *m;
  mjData *d;
  int *group;        /* (nbody) the body each belongs to, -1: the ground */
  char **names;      /* (nbody) Linkwright body names */
  GString *notes;
  lw_error *err;
} mjcf;

static int fail(mjcf *c, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  c->err->status = LW_ERR_MODEL;
  c->err->time = NAN;
  snprintf(c->err->msg, sizeof c->err->msg, "%s: %s", c->filename, msg);
  return -1;
}

static void note(mjcf *c, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  if (c->notes->len)
    g_string_append(c->notes, "\n");
  g_string_append_vprintf(c->notes, fmt, ap);
  va_end(ap);
}

static const char *name_of(const mjModel *m, int type, int id, char *buf, size_t n, const char *kind)
{
  const char *s = mj_id2name(m, type, id);
  if (s && *s)
    return s;
  snprintf(buf, n, "%s%d", kind, id);
  return buf;
}

/* pose of body b: world position and rotation (row-major) at qpos0 */
static void body_pose(const mjcf *c, int b, xform *t)
{
  for (int i = 0; i < 9; i++)
    t->R[i] = c->d->xmat[9 * b + i];
  for (int i = 0; i < 3; i++)
    t->p[i] = c->d->xpos[3 * b + i];
}

/* ---- bodies ------------------------------------------------------------- */
static void find_groups(mjcf *c)
{
  const mjModel *m = c->m;
  c->group[0] = -1;
  c->names[0] = g_strdup("ground");
  for (int b = 1; b < m->nbody; b++) /* parents come before children */
    c->group[b] = m->body_jntnum[b] > 0 ? b : c->group[m->body_parentid[b]];
  for (int b = 1; b < m->nbody; b++) {
    char buf[32];
    c->names[b] = g_strdup(name_of(m, mjOBJ_BODY, b, buf, sizeof buf, "body"));
  }
}

static void lump(mjcf *c, int g, lw_body_desc *bd)
{
  const mjModel *m = c->m;
  xform top;
  body_pose(c, g, &top);
  double mass = 0, cw[3] = {0}, I[9] = {0};
  for (int b = 1; b < m->nbody; b++)
    if (c->group[b] == g) {
      mass += m->body_mass[b];
      for (int i = 0; i < 3; i++)
        cw[i] += m->body_mass[b] * c->d->xipos[3 * b + i];
    }
  if (mass > 0)
    for (int i = 0; i < 3; i++)
      cw[i] /= mass;
  xform cworld = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {cw[0], cw[1], cw[2]}}, cb;
  xform_relative(&top, &cworld, &cb);
  for (int b = 1; b < m->nbody; b++) {
    if (c->group[b] != g)
      continue;
    /* the body's principal frame (world) relative to the group's frame */
    xform pf, rel;
    for (int i = 0; i < 9; i++)
      pf.R[i] = c->d->ximat[9 * b + i];
    for (int i = 0; i < 3; i++)
      pf.p[i] = c->d->xipos[3 * b + i];
    xform_relative(&top, &pf, &rel);
    const double *in = m->body_inertia + 3 * b;
    double D[9] = {in[0], 0, 0, 0, in[1], 0, 0, 0, in[2]};
    inertia_add(rel.R, rel.p, m->body_mass[b], D, cb.p, I);
  }
  bd->mass = mass;
  memcpy(bd->com, cb.p, sizeof cb.p);
  double v[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
  memcpy(bd->inertia, v, sizeof v);
}

static void add_geom(mjcf *c, int gi, const xform *top, lw_body_desc *bd)
{
  const mjModel *m = c->m;
  xform gw, rel;
  for (int i = 0; i < 9; i++)
    gw.R[i] = c->d->geom_xmat[9 * gi + i];
  for (int i = 0; i < 3; i++)
    gw.p[i] = c->d->geom_xpos[3 * gi + i];
  xform_relative(top, &gw, &rel);
  const double *sz = m->geom_size + 3 * gi;
  const float *rgba = m->geom_matid[gi] >= 0 ? m->mat_rgba + 4 * m->geom_matid[gi] : m->geom_rgba + 4 * gi;
  lw_geom_desc *gd = NULL;
  switch (m->geom_type[gi]) {
  case mjGEOM_SPHERE:
    gd = lw_body_add_geom(bd, LW_GEOM_SPHERE);
    gd->size[0] = sz[0];
    memcpy(gd->center, rel.p, sizeof rel.p);
    break;
  case mjGEOM_CAPSULE:
  case mjGEOM_CYLINDER: {
    gd = lw_body_add_geom(bd, LW_GEOM_CYLINDER);
    double z[3] = {0, 0, sz[1]}, e[3];
    mat_vec(rel.R, z, e);
    for (int i = 0; i < 3; i++) {
      gd->from[i] = rel.p[i] - e[i];
      gd->to[i] = rel.p[i] + e[i];
    }
    gd->size[0] = sz[0];
    break;
  }
  case mjGEOM_BOX:
  case mjGEOM_ELLIPSOID:
  case mjGEOM_MESH: {
    gd = lw_body_add_geom(bd, LW_GEOM_BOX);
    int perm[3] = {0, 1, 2};
    if (!axis_permutation(rel.R, perm))
      perm[0] = 0, perm[1] = 1, perm[2] = 2;
    /* a mesh's size is its bounding box's half extents */
    for (int i = 0; i < 3; i++)
      gd->size[i] = sz[perm[i]];
    memcpy(gd->center, rel.p, sizeof rel.p);
    if (m->geom_type[gi] != mjGEOM_BOX) {
      char buf[32];
      note(c, "geom %s: drawn as a box", name_of(m, mjOBJ_GEOM, gi, buf, sizeof buf, "geom"));
    }
    break;
  }
  default: {
    char buf[32];
    note(c, "geom %s (type %d) is not drawn", name_of(m, mjOBJ_GEOM, gi, buf, sizeof buf, "geom"),
         (int)m->geom_type[gi]);
    return;
  }
  }
  for (int i = 0; i < 3; i++)
    gd->color[i] = rgba[i];
}

static int add_bodies(mjcf *c, lw_desc *d)
{
  const mjModel *m = c->m;
  for (int g = 1; g < m->nbody; g++) {
    if (c->group[g] != g)
      continue;
    lw_body_desc *bd = lw_desc_add_body(d, c->names[g]);
    lump(c, g, bd);
    if (!(bd->mass > 0))
      return fail(c, "body \"%s\" moves but has no mass", c->names[g]);
    xform top;
    body_pose(c, g, &top);
    memcpy(bd->position, top.p, sizeof top.p);
    quat_of(top.R, bd->orientation);
    for (int gi = 0; gi < m->ngeom; gi++)
      if (c->group[m->geom_bodyid[gi]] == g)
        add_geom(c, gi, &top, bd);
  }
  for (int b = 1; b < m->nbody; b++)
    if (c->group[b] != b)
      note(c, "body %s is welded to %s", c->names[b], c->group[b] < 0 ? "the ground" : c->names[c->group[b]]);
  return 0;
}

/* ---- joints ------------------------------------------------------------ */
static const char *group_name(const mjcf *c, int b)
{
  return c->group[b] < 0 ? "ground" : c->names[c->group[b]];
}

static void add_damper(mjcf *c, lw_desc *d, const char *joint, int jnt)
{
  const mjModel *m = c->m;
  double damping = m->dof_damping[m->jnt_dofadr[jnt]], k = m->jnt_stiffness[jnt];
  if (damping <= 0 && k <= 0)
    return;
  g_autofree char *fname = g_strdup_printf("%s damping", joint);
  lw_force_desc *f = lw_desc_add_force(d, fname, LW_FORCE_JOINT_SPRING_DAMPER);
  f->joint = g_strdup(joint);
  f->damping = damping;
  f->stiffness = k;
  f->rest = m->qpos_spring[m->jnt_qposadr[jnt]] - m->qpos0[m->jnt_qposadr[jnt]];
  if (m->dof_armature[m->jnt_dofadr[jnt]] > 0)
    note(c, "joint %s: armature %g is not modelled", joint, m->dof_armature[m->jnt_dofadr[jnt]]);
}

/* a limited hinge or slide: a stop at each end of its range, which MuJoCo's
 * compiler has put in radians (compiler angle="degree") and which is
 * measured from qpos0, where Linkwright's coordinate is 0 */
static void add_limit(mjcf *c, lw_desc *d, const char *joint, int jnt)
{
  const mjModel *m = c->m;
  if (!m->jnt_limited[jnt])
    return;
  double q0 = m->qpos0[m->jnt_qposadr[jnt]];
  double lo = m->jnt_range[2 * jnt] - q0, hi = m->jnt_range[2 * jnt + 1] - q0;
  double start = lw_import_add_limit(d, joint, 1, lo, 1, hi);
  note(c, "joint %s: range [%g, %g] %s becomes the joint_limit event \"%s limits\" at [%g, %g] from the reference "
          "pose (restitution %g: a stop that does not bounce)",
       joint, m->jnt_range[2 * jnt], m->jnt_range[2 * jnt + 1], m->jnt_type[jnt] == mjJNT_HINGE ? "rad" : "m",
       joint, lo, hi, LW_IMPORT_LIMIT_RESTITUTION);
  if (start != 0)
    note(c, "joint %s: its reference pose lies outside its range: it starts at %g", joint, start);
}

/* frictionloss of a hinge or slide: a constant Coulomb friction */
static void add_friction(mjcf *c, lw_joint_desc *jd, const char *joint, int jnt)
{
  double F = c->m->dof_frictionloss[c->m->jnt_dofadr[jnt]];
  if (!(F > 0))
    return;
  lw_import_set_friction(jd, F);
  note(c,
       "joint %s: frictionloss %g becomes joint friction of that constant size while it slides: mu_s = mu_d = %g, "
       "preload %g N, radius %g m",
       joint, F, LW_IMPORT_FRICTION_KAPPA, F / LW_IMPORT_FRICTION_KAPPA, LW_IMPORT_FRICTION_RADIUS);
}

/* the joints of body b into one joint of the description */
static int add_body_joints(mjcf *c, lw_desc *d, int b)
{
  const mjModel *m = c->m;
  int n = m->body_jntnum[b], j0 = m->body_jntadr[b];
  char buf[32];
  const char *first = name_of(m, mjOBJ_JOINT, j0, buf, sizeof buf, "joint");
  int type = m->jnt_type[j0];
  if (n == 1 && type == mjJNT_FREE)
    return 0;
  gboolean same_anchor = TRUE, hinges = TRUE;
  for (int k = 0; k < n; k++) {
    hinges &= m->jnt_type[j0 + k] == mjJNT_HINGE;
    for (int i = 0; i < 3; i++)
      same_anchor &= fabs(c->d->xanchor[3 * (j0 + k) + i] - c->d->xanchor[3 * j0 + i]) < 1e-12;
  }
  lw_joint_type lt;
  if (n == 1)
    lt = type == mjJNT_HINGE ? LW_JOINT_REVOLUTE : type == mjJNT_SLIDE ? LW_JOINT_PRISMATIC : LW_JOINT_SPHERICAL;
  else if (hinges && same_anchor && n <= 3)
    lt = n == 2 ? LW_JOINT_UNIVERSAL : LW_JOINT_SPHERICAL;
  else
    return -1; /* listed by the caller */
  const char *jname = n == 1 ? first : c->names[b];
  g_autofree char *owned = n == 1 ? NULL : g_strdup_printf("%s joint", c->names[b]);
  if (owned)
    jname = owned;
  lw_joint_desc *jd = lw_desc_add_joint(d, jname, lt, group_name(c, m->body_parentid[b]), c->names[b]);
  jd->has_at = 1;
  memcpy(jd->at, c->d->xanchor + 3 * j0, sizeof jd->at);
  if (lt != LW_JOINT_SPHERICAL) {
    jd->has_gaxis = 1;
    memcpy(jd->gaxis, c->d->xaxis + 3 * j0, sizeof jd->gaxis);
  }
  if (lt == LW_JOINT_UNIVERSAL) {
    jd->has_gaxis2 = 1;
    memcpy(jd->gaxis2, c->d->xaxis + 3 * (j0 + 1), sizeof jd->gaxis2);
  }
  if (n == 1 && type != mjJNT_BALL) {
    add_damper(c, d, jname, j0);
    g_autofree char *oname = g_strdup_printf("%s.q", jname);
    lw_output_desc *o = lw_desc_add_output(d, oname, LW_OUT_JOINT_COORDINATE);
    o->joint = g_strdup(jname);
  } else if (n > 1)
    note(c, "body %s: hinges %s ... become one %s joint (their damping, stiffness, frictionloss and limits are not "
            "kept)",
         c->names[b], first, lt == LW_JOINT_UNIVERSAL ? "universal" : "spherical");
  if (n == 1 && type != mjJNT_BALL) {
    add_limit(c, d, jname, j0);
    add_friction(c, jd, jname, j0);
  } else if (n == 1 && (m->jnt_limited[j0] || m->dof_frictionloss[m->jnt_dofadr[j0]] > 0))
    note(c, "joint %s: the cone of its range and its frictionloss are not imported (a ball has no coordinate)",
         jname);
  return 0;
}

static void add_equalities(mjcf *c, lw_desc *d)
{
  const mjModel *m = c->m;
  for (int e = 0; e < m->neq; e++) {
    char buf[32];
    const char *name = name_of(m, mjOBJ_EQUALITY, e, buf, sizeof buf, "equality");
    int b1 = m->eq_obj1id[e], b2 = m->eq_obj2id[e];
    if (m->eq_type[e] != mjEQ_CONNECT && m->eq_type[e] != mjEQ_WELD) {
      note(c, "equality %s (type %d) is not imported", name, (int)m->eq_type[e]);
      continue;
    }
    lw_joint_type lt = m->eq_type[e] == mjEQ_CONNECT ? LW_JOINT_SPHERICAL : LW_JOINT_FIXED;
    lw_joint_desc *jd = lw_desc_add_joint(d, name, lt, group_name(c, b1), group_name(c, b2));
    /* the anchor, given in body 1's frame */
    xform t;
    body_pose(c, b1, &t);
    const double *a = m->eq_data + mjNEQDATA * e;
    mat_vec(t.R, a, jd->at);
    for (int i = 0; i < 3; i++)
      jd->at[i] += t.p[i];
    jd->has_at = 1;
  }
}

static void list_not_imported(mjcf *c)
{
  const mjModel *m = c->m;
  if (m->nu)
    note(c, "%d actuator%s not imported (no control inputs yet)", m->nu, m->nu > 1 ? "s are" : " is");
  if (m->ntendon)
    note(c, "%d tendon%s not imported", m->ntendon, m->ntendon > 1 ? "s are" : " is");
  if (m->nsensor)
    note(c, "%d sensor%s not imported", m->nsensor, m->nsensor > 1 ? "s are" : " is");
  if (m->ngeom)
    note(c, "contacts between geoms are not modelled");
  if (m->nsite)
    note(c, "%d site%s not imported", m->nsite, m->nsite > 1 ? "s are" : " is");
}

static lw_desc *build(mjcf *c, const char *model_name)
{
  const mjModel *m = c->m;
  lw_desc *d = lw_desc_new();
  d->name = g_strdup(model_name);
  d->description = g_strdup_printf("Imported from %s.", c->filename);
  d->planar = 0;
  for (int i = 0; i < 3; i++)
    d->gravity[i] = m->opt.gravity[i];
  d->solver.t_end = 1.0;
  d->solver.step = m->opt.timestep;
  find_groups(c);
  if (add_bodies(c, d) < 0)
    goto failed;
  /* every body whose joints do not make one joint, listed at once */
  GString *refused = g_string_new(NULL);
  for (int b = 1; b < m->nbody; b++)
    if (m->body_jntnum[b] > 0 && add_body_joints(c, d, b) < 0) {
      char buf[32];
      g_string_append_printf(refused, "%s%s (%d joints from %s)", refused->len ? ", " : "", c->names[b],
                             m->body_jntnum[b], name_of(m, mjOBJ_JOINT, m->body_jntadr[b], buf, sizeof buf, "joint"));
    }
  if (refused->len) {
    fail(c, "the joints of these bodies are not one joint Linkwright has (one hinge, slide or ball, or two or three "
            "hinges through one point): %s",
         refused->str);
    g_string_free(refused, TRUE);
    goto failed;
  }
  g_string_free(refused, TRUE);
  add_equalities(c, d);
  list_not_imported(c);
  return d;
failed:
  lw_desc_free(d);
  return NULL;
}

lw_desc *lw_mjcf_read_file(const char *filename, char **notes, lw_error *err)
{
  lw_error dummy;
  if (!err)
    err = &dummy;
  memset(err, 0, sizeof *err);
  if (notes)
    *notes = NULL;
  mjcf c = {filename, NULL, NULL, NULL, NULL, NULL, err};
  GStatBuf st;
  if (g_stat(filename, &st) != 0) {
    fail(&c, "cannot read the file: %s", g_strerror(errno));
    return NULL;
  }
  if ((guint64)st.st_size > LW_MJCF_MAX_BYTES) {
    fail(&c, "%llu bytes is too large for a model (at most %u MiB)", (unsigned long long)st.st_size,
         LW_MJCF_MAX_BYTES >> 20);
    return NULL;
  }
  char mjerr[1000] = "";
  mjModel *m = mj_loadXML(filename, NULL, mjerr, sizeof mjerr);
  if (!m) {
    for (char *p = mjerr; *p; p++)
      if (*p == '\n')
        *p = ' ';
    g_strstrip(mjerr);
    fail(&c, "MuJoCo cannot read it: %s", mjerr);
    return NULL;
  }
  c.m = m;
  c.d = mj_makeData(m);
  mj_kinematics(m, c.d);
  c.group = g_new0(int, m->nbody);
  c.names = g_new0(char *, m->nbody + 1);
  c.notes = g_string_new(NULL);
  g_autofree char *base = g_path_get_basename(filename);
  const char *mname = m->names && m->names[0] ? m->names : base;
  lw_desc *d = build(&c, mname);
  if (d && notes && c.notes->len)
    *notes = g_strdup(c.notes->str);
  g_string_free(c.notes, TRUE);
  g_strfreev(c.names);
  g_free(c.group);
  mj_deleteData(c.d);
  mj_deleteModel(m);
  return d;
}

#else

lw_desc *lw_mjcf_read_file(const char *filename, char **notes, lw_error *err)
{
  if (notes)
    *notes = NULL;
  if (err) {
    memset(err, 0, sizeof *err);
    err->status = LW_ERR_MODEL;
    snprintf(err->msg, sizeof err->msg, "%s: this build reads MJCF through MuJoCo, which it was built without",
             filename);
  }
  return NULL;
}

#endif
