/* Exact parameter tangents against the numerical ones, table-driven.
 *
 * A tangent model holds the derivative of every compiled constant along one
 * parameter.  lw_tangent_new takes it exactly where every field the
 * parameter is bound to has a known derivative (the kinds' tangent hooks,
 * masses, centres of mass, inertia, gravity, function coefficients, initial
 * values, objective terms) and otherwise by Richardson-extrapolated
 * differences of the compilation.  For every force kind and each field
 * its hook differentiates (one table entry per kind, in a small planar and
 * a small spatial two-link model), for the fields outside the kinds, and
 * for the parameters of the shipped models: the exact tangent exists, its
 * constants equal the numerical tangent's to 1e-9 relative and its flags
 * (which parts are nonzero: the sensitivities skip work by them) are the
 * same.  Fields without an exact derivative (points) keep the numerical
 * path, and a field bound twice counts once. */
#include "lw-test.h"
#include "lw_internal.h"
#include "lin/lw_tangent.h"
#include "kind/lw_kind.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* ---- the models ------------------------------------------------------------ */
static const char *planar_base =
  "{\"linkwright\": 1, \"name\": \"%s-planar\", \"planar\": true, \"gravity\": [0.3, -9.81],"
  " \"solver\": {\"t_end\": 0.05, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.3, \"com\": [0.5, 0.05], \"inertia\": 0.1, \"position\": [0, 0],"
  "   \"angle\": 0.3, \"points\": {\"mid\": [0.5, 0.1], \"end\": [1, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 2.0, \"com\": [0.4, -0.02], \"inertia\": 0.2, \"position\": [0.95, 0.3],"
  "   \"angle\": -0.1, \"points\": {\"start\": [0, 0], \"tip\": [0.8, 0.05]}}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\","
  "   \"point1\": \"end\", \"point2\": \"start\"}],"
  " \"forces\": [%s],"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.3, \"velocity\": 0.5}],"
  " \"outputs\": [{\"name\": \"tip\", \"type\": \"position\", \"body\": \"link2\", \"point\": \"tip\"}],"
  " \"objectives\": [{\"name\": \"o\", \"terms\": [{\"output\": \"tip\", \"weight\": 0.7, \"target\": [0.2, -0.4]}]}],"
  " \"parameters\": [{\"name\": \"p\", \"bind\": [%s]}]}";

static const char *spatial_base =
  "{\"linkwright\": 1, \"name\": \"%s-spatial\", \"gravity\": [0.3, -9.81, 0.2],"
  " \"solver\": {\"t_end\": 0.05, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.3, \"com\": [0.5, 0.01, 0.02], \"inertia\": [0.02, 0.08, 0.09, 0.001, 0, 0.002],"
  "   \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"mid\": [0.5, 0.1, 0.05], \"end\": [1, 0, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 1.5, \"com\": [0.4, 0, 0.03], \"inertia\": [0.02, 0.1, 0.1, 0, 0.003, 0],"
  "   \"position\": [1, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"start\": [0, 0, 0], \"tip\": [0.8, 0.05, 0.1]}}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0, 0],"
  "   \"axis\": [0, 0.2, 1]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\", \"at\": [1, 0, 0],"
  "   \"axis\": [0, 0.6, 0.8]}],"
  " \"forces\": [%s],"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.2, \"velocity\": 0.4}],"
  " \"outputs\": [{\"name\": \"tip\", \"type\": \"position\", \"body\": \"link2\", \"point\": \"tip\"}],"
  " \"objectives\": [{\"name\": \"o\", \"terms\": [{\"output\": \"tip\", \"weight\": 0.7, \"target\": [0.2, -0.4, 0.1]}]}],"
  " \"parameters\": [{\"name\": \"p\", \"bind\": [%s]}]}";

#define TARGET "\"target\": {\"type\": \"sine\", \"offset\": 0.2, \"amplitude\": 0.3, \"omega\": 2, \"phase\": 0.1}"
#define FUNC "\"function\": {\"type\": \"sine\", \"offset\": 0.2, \"amplitude\": 1.5, \"omega\": 4, \"phase\": 0.1}"
#define SPLINE "\"function\": {\"type\": \"spline\", \"start\": 0, \"end\": 1, \"values\": [0.1, 0.5, -0.2, 0.3]}"
#define MAXFIELDS 12

/* one force kind: its type, the element in either model (spatial NULL: the
 * planar one) and the fields (past forces/el/) its tangent hook
 * differentiates */
typedef struct {
  lw_force_type type;
  const char *planar, *spatial;
  const char *fields[MAXFIELDS];
} force_case;

static const force_case force_cases[] = {
  {LW_FORCE_SPRING_DAMPER,
   "{\"name\": \"el\", \"type\": \"spring_damper\", \"body1\": \"link1\", \"point1\": \"mid\", \"body2\": \"link2\","
   " \"point2\": \"tip\", \"stiffness\": 20, \"damping\": 0.5, \"rest_length\": 0.6}",
   NULL, {"stiffness", "damping", "rest_length"}},
  {LW_FORCE_JOINT_SPRING_DAMPER,
   "{\"name\": \"el\", \"type\": \"joint_spring_damper\", \"joint\": \"elbow\", \"stiffness\": 5, \"damping\": 0.3,"
   " \"rest_value\": 0.2}",
   NULL, {"stiffness", "damping", "rest_value"}},
  {LW_FORCE_FORCE,
   "{\"name\": \"el\", \"type\": \"force\", \"body\": \"link2\", \"point\": \"tip\", \"vector\": [1, 0.5], " FUNC "}",
   "{\"name\": \"el\", \"type\": \"force\", \"body\": \"link2\", \"point\": \"tip\", \"vector\": [1, 0.5, -0.3], " FUNC
   "}",
   {"vector/0", "vector/1", "function/0", "function/1", "function/2", "function/3"}},
  {LW_FORCE_TORQUE, "{\"name\": \"el\", \"type\": \"torque\", \"body\": \"link1\", \"value\": 0.7, " SPLINE "}",
   "{\"name\": \"el\", \"type\": \"torque\", \"body\": \"link1\", \"vector\": [0.3, -0.2, 0.7], " SPLINE "}",
   {"vector/2", "function/0", "function/2", "function/3"}},
  {LW_FORCE_PID,
   "{\"name\": \"el\", \"type\": \"pid\", \"joint\": \"elbow\", \"kp\": 4, \"kd\": 0.5, \"ki\": 1.5, " TARGET "}",
   NULL, {"kp", "kd", "ki", "target/0", "target/2"}},
  {LW_FORCE_STATE_FEEDBACK,
   "{\"name\": \"el\", \"type\": \"state_feedback\", \"joint\": \"shoulder\", \"gains\": ["
   " {\"joint\": \"shoulder\", \"kp\": 4, \"kd\": 0.5, \"ki\": 1.5, " TARGET "},"
   " {\"joint\": \"elbow\", \"kp\": -1.5, \"kd\": 0.2, \"ki\": 0.4},"
   " {\"joint\": \"shoulder\", \"measure\": \"rate\", \"kp\": 0.8, \"ki\": 0.3}]}",
   NULL,
   {"gains/0/kp", "gains/0/kd", "gains/0/ki", "gains/0/target/1", "gains/1/kp", "gains/1/kd", "gains/1/ki",
    "gains/2/kp", "gains/2/ki"}},
  /* a beam of two elements beside the links: its fields (paths from "beams/"; a
   * section of its own, not in forces) */
  {LW_FORCE_BEAM,
   "\"beams\": [{\"name\": \"el\", \"elements\": 2, \"start\": [1.7, 0.2], \"end\": [2.5, 0.5],"
   " \"young\": 3e4, \"density\": 60, \"damping\": 0.02, \"section\": \"rectangle\", \"size\": [0.06, 0.04]}]",
   "\"beams\": [{\"name\": \"el\", \"elements\": 2, \"start\": [1.7, 0.2, 0.1], \"end\": [2.5, 0.5, 0.1],"
   " \"young\": 3e4, \"density\": 60, \"damping\": 0.02, \"section\": \"tube\", \"size\": [0.06, 0.04]}]",
   {"beams/el/young", "beams/el/density", "beams/el/damping", "beams/el/size/0", "beams/el/size/1"}},
};

/* the fields outside the kinds with an exact derivative (a "%s" is
 * planar-only, "*" spatial-only) */
static const char *const body_fields[] = {
  "bodies/link1/mass", "bodies/link2/mass", "bodies/link1/com/0", "bodies/link2/com/1", "*bodies/link2/com/2",
  "bodies/link1/inertia/2", "*bodies/link1/inertia/0", "*bodies/link2/inertia/4", "*bodies/link1/inertia/5",
  "gravity/0", "gravity/1", "*gravity/2", "initial/shoulder/value", "initial/shoulder/velocity",
  "objectives/o/terms/0/weight", "objectives/o/terms/0/target/1",
};

static lw_desc *read_json(const char *json, const char *name)
{
  lw_error err;
  lw_desc *desc = lw_model_read_data(json, -1, name, NULL, &err);
  if (!desc)
    g_error("%s: %s", name, err.msg);
  return desc;
}

/* the model with force el (NULL: none) and parameter p bound to binds (a
 * JSON list's inside) */
static lw_desc *build(const char *name, const char *force, int spatial, const char *binds)
{
  int section = force && !strncmp(force, "\"beams\"", 7);
  char *json = g_strdup_printf(spatial ? spatial_base : planar_base, name, force && !section ? force : "", binds);
  if (section) {
    /* an element of a section of its own: beside the (empty) forces */
    char **parts = g_strsplit(json, "\"forces\": [],", 2);
    char *with = g_strdup_printf("\"forces\": [], %s,", force);
    g_free(json);
    json = g_strjoinv(with, parts);
    g_strfreev(parts);
    g_free(with);
  }
  lw_desc *desc = read_json(json, name);
  g_free(json);
  return desc;
}

/* ---- the comparison ---------------------------------------------------------- */
static void put_vx(GArray *a, const lw_vexpr *v)
{
  g_array_append_vals(a, v->w[0], 4);
  g_array_append_vals(a, v->w[1], 4);
  g_array_append_vals(a, v->c, 3);
}

static void put_func(GArray *a, const lw_func *f)
{
  g_array_append_vals(a, f->a, LW_FUNC_MAXCOEF);
  if (f->type == LW_FUNC_SPLINE)
    g_array_append_vals(a, f->knots, (guint)f->n);
}

/* every constant a parameter reaches, in one order */
static GArray *constants(const lw_model *o)
{
  GArray *a = g_array_new(FALSE, FALSE, sizeof(double));
  g_array_append_vals(a, o->mass_blocks, (guint)(o->nb * o->nqb * o->nqb));
  g_array_append_vals(a, o->qgrav, (guint)o->nq);
  for (int r = 0; r < o->nc; r++) {
    const lw_row *row = &o->rows[r];
    put_vx(a, &row->a), put_vx(a, &row->b), put_vx(a, &row->c), put_vx(a, &row->d);
    g_array_append_val(a, row->c0);
    if (row->func >= 0)
      put_func(a, &o->drivers[row->func]);
  }
  for (int i = 0; i < o->ncoords; i++) {
    const lw_coord *c = &o->coords[i];
    put_vx(a, &c->a), put_vx(a, &c->b), put_vx(a, &c->c), put_vx(a, &c->d);
    g_array_append_val(a, c->offset);
  }
  for (int n = 0; n < o->nforces; n++) {
    const lw_force *f = &o->forces[n];
    put_vx(a, &f->v);
    g_array_append_val(a, f->k), g_array_append_val(a, f->c), g_array_append_val(a, f->rest);
    g_array_append_vals(a, f->vec, 3);
    put_func(a, &f->func);
  }
  for (int i = 0; i < o->nfbs; i++) {
    const lw_fb *b = &o->fbs[i];
    g_array_append_val(a, b->kp), g_array_append_val(a, b->kd), g_array_append_val(a, b->ki);
    put_func(a, &b->r);
  }
  g_array_append_vals(a, o->init_value, (guint)o->ninit);
  g_array_append_vals(a, o->init_vel, (guint)o->ninit);
  for (int k = 0; k < o->nout; k++)
    put_vx(a, &o->outputs[k].v);
  for (int k = 0; k < o->nterms; k++) {
    g_array_append_val(a, o->terms[k].weight);
    g_array_append_vals(a, o->terms[k].target, 3);
  }
  return a;
}

/* the largest relative difference seen, round-off included */
static double raw_worst;

static void same_flags(const char *what, const char *name, const char *x, const char *y, int n)
{
  for (int i = 0; i < n; i++)
    if (!x[i] != !y[i])
      g_error("%s: %s[%d] is %d exactly, %d numerically", what, name, i, x[i], y[i]);
}

/* the largest difference of the two tangents' constants, relative to each
 * constant (the tangent's largest for those near 0) beyond the numerical
 * tangent's own round-off: its weights (lw_tangent.c) sum to 3 / eps in
 * magnitude, each compiled constant f carries a few ulps, so that a
 * constant made of several fields (a controller's k = stiffness + kp + h/2
 * ki) has its derivative along one of them only to about 3 * 8 ulp(f) /
 * eps.  base: the model's constants (NULL: no round-off allowed).  The
 * flags must be the same. */
static double compare(const char *what, const lw_tangent *ex, const lw_tangent *nu, const lw_model *base, double eps)
{
  const lw_model *m = nu->dm;
  GArray *a = constants(ex->dm), *b = constants(nu->dm), *c = base ? constants(base) : NULL;
  g_assert_cmpuint(a->len, ==, b->len);
  const double *x = (const double *)a->data, *y = (const double *)b->data;
  const double *f = c ? (const double *)c->data : NULL;
  double scale = 1e-300, worst = 0;
  for (guint i = 0; i < b->len; i++)
    scale = fmax(scale, fabs(y[i]));
  for (guint i = 0; i < b->len; i++) {
    double noise = f ? 24 * DBL_EPSILON * fabs(f[i]) / eps : 0.0;
    double den = fmax(fabs(y[i]), 1e-6 * scale);
    worst = fmax(worst, fmax(fabs(x[i] - y[i]) - noise, 0.0) / den);
    raw_worst = fmax(raw_worst, fabs(x[i] - y[i]) / den);
  }
  if (c)
    g_array_unref(c);
  g_array_unref(a);
  g_array_unref(b);
  same_flags(what, "body_on", ex->body_on, nu->body_on, m->nb);
  same_flags(what, "row_on", ex->row_on, nu->row_on, m->nc);
  same_flags(what, "row_vx_on", ex->row_vx_on, nu->row_vx_on, m->nc);
  same_flags(what, "coord_on", ex->coord_on, nu->coord_on, m->ncoords);
  same_flags(what, "force_on", ex->force_on, nu->force_on, m->nforces);
  same_flags(what, "force_vx_on", ex->force_vx_on, nu->force_vx_on, m->nforces);
  same_flags(what, "out_on", ex->out_on, nu->out_on, m->nout);
  same_flags(what, "term_on", ex->term_on, nu->term_on, m->nterms);
  char g[3] = {(char)ex->grav_on, (char)ex->init_on, (char)ex->any};
  char h[3] = {(char)nu->grav_on, (char)nu->init_on, (char)nu->any};
  same_flags(what, "grav_on, init_on, any", g, h, 3);
  return worst;
}

/* parameter j of desc: the exact tangent exists and equals the numerical
 * one; the relative difference */
static double check_param(const char *what, const lw_desc *desc, int j)
{
  lw_error err;
  lw_tangent *ex = lw_tangent_new_exact(desc, j, &err), *nu = lw_tangent_new_numeric(desc, j, &err);
  if (!ex)
    g_error("%s: no exact tangent", what);
  g_assert_nonnull(nu);
  lw_model *base = lwt_compile(desc);
  double v = desc->params[j].value, eps = 1e-3 * fmax(fabs(v), 1e-2);
  double e = compare(what, ex, nu, base, eps);
  lw_model_free(base);
  if (e > 1e-9)
    g_error("%s: the exact tangent differs from the numerical one by %.3g", what, e);
  lw_tangent_free(ex);
  lw_tangent_free(nu);
  return e;
}

/* ---- the tests ---------------------------------------------------------------- */
static void test_force(gconstpointer data)
{
  raw_worst = 0;
  const force_case *c = data;
  const char *name = lw_force_kind_of(c->type)->name;
  g_assert_nonnull(lw_force_kind_of(c->type)->tangent);
  double worst = 0;
  for (int spatial = 0; spatial < 2; spatial++) {
    const char *el = spatial && c->spatial ? c->spatial : c->planar;
    for (int k = 0; k < MAXFIELDS && c->fields[k]; k++) {
      char *bind = !strncmp(c->fields[k], "beams/", 6) ? g_strdup_printf("\"%s\"", c->fields[k])
                                                       : g_strdup_printf("\"forces/el/%s\"", c->fields[k]);
      char *what = g_strdup_printf("%s (%s): %s", name, spatial ? "spatial" : "planar", c->fields[k]);
      lw_desc *desc = build(name, el, spatial, bind);
      worst = fmax(worst, check_param(what, desc, 0));
      lw_desc_free(desc);
      g_free(bind);
      g_free(what);
    }
  }
  g_test_message("%s: largest difference of the exact and the numerical tangent %.3g beyond the latter's "
                 "round-off (%.3g with it)", name, worst, raw_worst);
}

static void test_body_fields(void)
{
  raw_worst = 0;
  double worst = 0;
  for (int spatial = 0; spatial < 2; spatial++)
    for (size_t k = 0; k < G_N_ELEMENTS(body_fields); k++) {
      const char *f = body_fields[k];
      if (*f == '*' && !spatial)
        continue;
      f += *f == '*';
      char *bind = g_strdup_printf("\"%s\"", f);
      char *what = g_strdup_printf("%s: %s", spatial ? "spatial" : "planar", f);
      lw_desc *desc = build("fields", NULL, spatial, bind);
      worst = fmax(worst, check_param(what, desc, 0));
      lw_desc_free(desc);
      g_free(bind);
      g_free(what);
    }
  g_test_message("largest difference of the exact and the numerical tangent %.3g beyond the latter's round-off "
                 "(%.3g with it)", worst, raw_worst);
}

/* a driver's coefficients (its row's function) */
static void test_driver(void)
{
  static const char *model =
    "{\"linkwright\": 1, \"name\": \"driven\", \"planar\": true, \"solver\": {\"t_end\": 0.05, \"step\": 0.001},"
    " \"bodies\": [{\"name\": \"crank\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": 0.1}],"
    " \"joints\": [{\"name\": \"j\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"crank\", \"at\": [0, 0]}],"
    " \"drivers\": [{\"name\": \"motor\", \"joint\": \"j\", \"function\": {\"type\": \"sine\", \"offset\": 0.3,"
    " \"amplitude\": 0.5, \"omega\": 3, \"phase\": 0.2}}],"
    " \"parameters\": [{\"name\": \"a\", \"bind\": \"drivers/motor/function/1\"},"
    "  {\"name\": \"w\", \"bind\": \"drivers/motor/function/2\"},"
    "  {\"name\": \"both\", \"bind\": [\"drivers/motor/function/0\", \"drivers/motor/function/3\"]}]}";
  lw_desc *desc = read_json(model, "driven");
  for (int j = 0; j < desc->nparams; j++)
    check_param(desc->params[j].name, desc, j);
  lw_desc_free(desc);
}

/* a parameter bound to several fields: the sum of their derivatives; bound
 * twice to one field: that field's derivative once */
static void test_several_fields(void)
{
  const force_case *c = &force_cases[0];
  lw_desc *desc = build("several", c->planar, 0,
                        "\"forces/el/stiffness\", \"bodies/link1/mass\", \"forces/el/rest_length\","
                        " \"gravity/1\", \"bodies/link2/com/0\"");
  check_param("spring stiffness, rest length, mass, gravity, centre of mass", desc, 0);
  lw_desc_free(desc);
  desc = build("twice", c->planar, 0, "\"forces/el/damping\", \"forces/el/damping\"");
  check_param("damping bound twice", desc, 0);
  lw_error err;
  lw_tangent *t = lw_tangent_new_exact(desc, 0, &err);
  g_assert_cmpfloat(t->dm->forces[0].c, ==, 1.0);
  lw_tangent_free(t);
  lw_desc_free(desc);
}

/* a point is left to the numerical path, alone or with exact fields, and
 * lw_tangent_new gives the numerical tangent then */
static void test_points_numerical(void)
{
  const force_case *c = &force_cases[0];
  const char *binds[] = {"\"bodies/link2/points/tip/0\"", "\"forces/el/stiffness\", \"bodies/link1/points/mid/1\"",
                         "\"bodies/link1/position/0\""};
  for (size_t k = 0; k < G_N_ELEMENTS(binds); k++) {
    lw_desc *desc = build("points", c->planar, 0, binds[k]);
    lw_error err;
    g_assert_null(lw_tangent_new_exact(desc, 0, &err));
    lw_tangent *t = lw_tangent_new(desc, 0, &err), *nu = lw_tangent_new_numeric(desc, 0, &err);
    g_assert_nonnull(t);
    g_assert_cmpfloat(compare(binds[k], t, nu, NULL, 1.0), ==, 0.0);
    lw_tangent_free(t);
    lw_tangent_free(nu);
    lw_desc_free(desc);
  }
}

/* objective o's adjoint gradient with respect to parameter 0, and its value */
static double gradient0(const lw_desc *desc, double *value)
{
  int params[1] = {0}, objs[1] = {0};
  lw_sens_options opt = {.method = LW_SENS_ADJOINT, .nparams = 1, .params = params, .nobj = 1, .objectives = objs,
                         .threads = 1};
  lw_sens_result r;
  if (lw_sensitivity(desc, &opt, &r) != LW_OK)
    g_error("%s: %s", desc->name, r.error.msg);
  double g = r.gradient[0];
  *value = r.value[0];
  lw_sens_result_clear(&r);
  return g;
}

/* a damping of 0, the edge of its valid values: no perturbed model below
 * it compiles (the numerical tangent fails), the exact one differentiates
 * it; the gradient against one-sided differences of second order */
static void test_damping_at_zero(void)
{
  const char *spring = "{\"name\": \"el\", \"type\": \"spring_damper\", \"body1\": \"link1\", \"point1\": \"mid\","
                       " \"body2\": \"link2\", \"point2\": \"tip\", \"stiffness\": 20, \"damping\": %g, \"rest_length\": 0.6}";
  double h = 1e-3, J[3], g = 0;
  for (int k = 0; k < 3; k++) {
    char *el = g_strdup_printf(spring, k * h);
    lw_desc *desc = build("damping", el, 0, "\"forces/el/damping\"");
    desc->solver.t_end = 0.3;
    lw_error err;
    if (k == 0) {
      lw_tangent *nu = lw_tangent_new_numeric(desc, 0, &err);
      g_assert_null(nu);
      g_assert_nonnull(strstr(err.msg, "cannot be varied around 0"));
    }
    double gk = gradient0(desc, &J[k]);
    if (k == 0)
      g = gk;
    lw_desc_free(desc);
    g_free(el);
  }
  double fd = (-3 * J[0] + 4 * J[1] - J[2]) / (2 * h);
  g_test_message("d o / d damping at 0: %.10g, one-sided differences %.10g", g, fd);
  g_assert_cmpfloat(fabs(g - fd), <, 1e-4 * fabs(fd)); /* O(h^2) and the solver's tolerance */
}

/* a spline value bound twice to one parameter holds its value once: the
 * same gradient as bound once */
static void test_function_bound_twice(void)
{
  const char *torque = force_cases[3].planar;
  double v, once, twice;
  lw_desc *desc = build("once", torque, 0, "\"forces/el/function/2\"");
  once = gradient0(desc, &v);
  lw_desc_free(desc);
  desc = build("twice", torque, 0, "\"forces/el/function/2\", \"forces/el/function/2\"");
  twice = gradient0(desc, &v);
  lw_desc_free(desc);
  g_test_message("bound once %.17g, twice %.17g", once, twice);
  g_assert_cmpfloat(once, !=, 0.0);
  g_assert_cmpfloat(twice, ==, once);
}

/* every parameter of the shipped models whose fields all have exact
 * derivatives */
static void test_shipped(void)
{
  int nexact = 0;
  for (size_t k = 0; k < G_N_ELEMENTS(lwt_models); k++) {
    lw_desc *desc = lwt_read(lwt_models[k]);
    double worst = 0;
    raw_worst = 0;
    for (int j = 0; j < desc->nparams && j < 40; j++) {
      lw_error err;
      lw_tangent *ex = lw_tangent_new_exact(desc, j, &err);
      if (!ex)
        continue;
      lw_tangent_free(ex);
      char *what = g_strdup_printf("%s: %s", lwt_models[k], desc->params[j].name);
      worst = fmax(worst, check_param(what, desc, j));
      nexact++;
      g_free(what);
    }
    g_test_message("%s: largest difference of the exact and the numerical tangents %.3g beyond the latter's "
                   "round-off (%.3g with it)", lwt_models[k], worst, raw_worst);
    lw_desc_free(desc);
  }
  g_assert_cmpint(nexact, >=, 10);
}

/* every registered force kind has a tangent hook and an entry here */
static void test_registry_covered(void)
{
  for (int t = 0; t < LW_FORCE_NTYPES; t++) {
    const lw_force_kind *k = lw_force_kind_of((lw_force_type)t);
    g_assert_nonnull(k);
    int found = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(force_cases); i++)
      found += force_cases[i].type == (lw_force_type)t;
    if (!found || !k->tangent)
      g_error("force kind %s has %s", k->name, k->tangent ? "no entry in force_cases" : "no tangent hook");
  }
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/tangent/registry", test_registry_covered);
  for (size_t k = 0; k < G_N_ELEMENTS(force_cases); k++) {
    char *path = g_strdup_printf("/tangent/kind/%s", lw_force_kind_of(force_cases[k].type)->name);
    g_test_add_data_func(path, &force_cases[k], test_force);
    g_free(path);
  }
  g_test_add_func("/tangent/bodies-gravity-initial-objectives", test_body_fields);
  g_test_add_func("/tangent/driver", test_driver);
  g_test_add_func("/tangent/several-fields", test_several_fields);
  g_test_add_func("/tangent/points-numerical", test_points_numerical);
  g_test_add_func("/tangent/shipped-models", test_shipped);
  g_test_add_func("/tangent/damping-at-zero", test_damping_at_zero);
  g_test_add_func("/tangent/function-bound-twice", test_function_bound_twice);
  return g_test_run();
}
