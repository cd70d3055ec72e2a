/* Every element kind's derivative hooks against central differences of its
 * evaluation, table-driven: one entry per force kind (src/core/kind) and per
 * row kind, each placed in a small planar and a small spatial two-link model.
 *
 * Forces: the kind's jvp hook along random state directions (dq, dv) against
 * central differences of its eval hook; the linearization (lw_lin_matrices:
 * the closed-form lin hook where the kind has one, jvp columns otherwise)
 * against central differences of lw_forces_eval column by column; the energy
 * hook against the conservative part of the force (-dV/dq . dq = Q(q, 0) . dq)
 * and the energy output's derivative; the spring state's derivative against
 * central differences of the spring state.
 * Rows: the kind's value (gradient), rate and jvp hooks on each of its
 * rows against central differences of value and rate; through the model,
 * dPhi, d(J qd + Phi_t) and d(J^T l) along random directions
 * (lw_lin_jvp) against central differences of lw_eval_dense, and the step's
 * Hessian of J^T l (lw_lin_matrices) against central differences of J^T l.
 *
 * Adding a kind means adding one entry to force_cases or row_cases. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_forces.h"
#include "lin/lw_jvp.h"
#include "kind/lw_kind.h"
#include "kind/lw_kind_jvp.h"

#include <stdio.h>
#include <string.h>

/* ---- the models ------------------------------------------------------------ */
static const char *planar_base =
  "{\"linkwright\": 1, \"name\": \"%s-planar\", \"planar\": true, \"gravity\": [0.3, -9.81],"
  " \"solver\": {\"t_end\": 0.1, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.0, \"com\": [0.5, 0.05], \"inertia\": 0.1, \"position\": [0, 0],"
  "   \"angle\": 0.3, \"points\": {\"mid\": [0.5, 0.1], \"end\": [1, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 2.0, \"com\": [0.4, -0.02], \"inertia\": 0.2, \"position\": [0.95, 0.3],"
  "   \"angle\": -0.1, \"points\": {\"start\": [0, 0], \"tip\": [0.8, 0.05]}}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\","
  "   \"point1\": \"end\", \"point2\": \"start\"}]"
  " %s%s,"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.3, \"velocity\": 0.5}]}";

static const char *spatial_base =
  "{\"linkwright\": 1, \"name\": \"%s-spatial\", \"gravity\": [0.3, -9.81, 0.2],"
  " \"solver\": {\"t_end\": 0.1, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.0, \"com\": [0.5, 0.01, 0.02], \"inertia\": [0.02, 0.08, 0.09, 0.001, 0, 0.002],"
  "   \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"mid\": [0.5, 0.1, 0.05], \"end\": [1, 0, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 1.5, \"com\": [0.4, 0, 0.03], \"inertia\": [0.02, 0.1, 0.1, 0, 0.003, 0],"
  "   \"position\": [1, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"tip\": [0.8, 0.05, 0.1]}}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0, 0],"
  "   \"axis\": [0, 0.2, 1]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\", \"at\": [1, 0, 0],"
  "   \"axis\": [0, 0.6, 0.8]}]"
  " %s%s,"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.2, \"velocity\": 0.4}]}";

/* one force kind: its type and the element in either model (a kind whose
 * elements come from a section of their own gives that section, "beams":
 * [...], with section set) */
typedef struct {
  lw_force_type type;
  const char *planar, *spatial;
  int section;
} force_case;

#define TARGET "\"target\": {\"type\": \"sine\", \"offset\": 0.2, \"amplitude\": 0.3, \"omega\": 2, \"phase\": 0.1}"
#define FUNC "\"function\": {\"type\": \"sine\", \"offset\": 0.2, \"amplitude\": 1.5, \"omega\": 4, \"phase\": 0.1}"

static const force_case force_cases[] = {
  {LW_FORCE_SPRING_DAMPER,
   "{\"name\": \"el\", \"type\": \"spring_damper\", \"body1\": \"link1\", \"point1\": \"mid\", \"body2\": \"link2\","
   " \"point2\": \"tip\", \"stiffness\": 20, \"damping\": 0.5, \"rest_length\": 0.6}",
   NULL, 0},
  {LW_FORCE_JOINT_SPRING_DAMPER,
   "{\"name\": \"el\", \"type\": \"joint_spring_damper\", \"joint\": \"elbow\", \"stiffness\": 5, \"damping\": 0.3,"
   " \"rest_value\": 0.2}",
   NULL, 0},
  {LW_FORCE_FORCE,
   "{\"name\": \"el\", \"type\": \"force\", \"body\": \"link2\", \"point\": \"tip\", \"vector\": [1, 0.5], " FUNC "}",
   "{\"name\": \"el\", \"type\": \"force\", \"body\": \"link2\", \"point\": \"tip\", \"vector\": [1, 0.5, -0.3], " FUNC
   "}", 0},
  {LW_FORCE_TORQUE, "{\"name\": \"el\", \"type\": \"torque\", \"body\": \"link1\", \"value\": 0.7, " FUNC "}",
   "{\"name\": \"el\", \"type\": \"torque\", \"body\": \"link1\", \"vector\": [0.3, -0.2, 0.7], " FUNC "}", 0},
  {LW_FORCE_PID,
   "{\"name\": \"el\", \"type\": \"pid\", \"joint\": \"elbow\", \"kp\": 4, \"kd\": 0.5, \"ki\": 1.5, " TARGET "}",
   NULL, 0},
  {LW_FORCE_STATE_FEEDBACK,
   "{\"name\": \"el\", \"type\": \"state_feedback\", \"joint\": \"shoulder\", \"gains\": ["
   " {\"joint\": \"shoulder\", \"kp\": 4, \"kd\": 0.5, \"ki\": 1.5, " TARGET "},"
   " {\"joint\": \"elbow\", \"kp\": -1.5, \"kd\": 0.2, \"ki\": 0.4}]}",
   NULL, 0},
  /* one element of a beam with material damping, free */
  {LW_FORCE_BEAM,
   "\"beams\": [{\"name\": \"el\", \"elements\": 1, \"start\": [0.2, 0.4], \"end\": [1.1, 0.6], \"young\": 2e3,"
   " \"density\": 50, \"damping\": 0.05, \"section\": \"rectangle\", \"size\": [0.1, 0.08]}]",
   "\"beams\": [{\"name\": \"el\", \"elements\": 1, \"start\": [0.2, 0.4, -0.1], \"end\": [1.1, 0.6, 0.3],"
   " \"young\": 2e3, \"density\": 50, \"damping\": 0.05, \"section\": \"circle\", \"size\": [0.09]}]",
   1},
};

/* one row kind: the elements that give the model rows of that kind */
typedef struct {
  lw_row_kind kind;
  const char *name, *extra;
} row_case;

static const row_case row_cases[] = {
  /* the revolute joints' rows alone */
  {LW_ROW_DOT, "dot", ""},
  /* a driven revolute joint: its angle row */
  {LW_ROW_ANGLE, "angle",
   ", \"drivers\": [{\"name\": \"motor\", \"joint\": \"elbow\", \"function\": {\"type\": \"sine\","
   " \"offset\": 0.3, \"amplitude\": 0.5, \"omega\": 3, \"phase\": 0.2}}]"},
};

static lw_model *build(const char *base, const char *name, const char *forces, const char *extra)
{
  char *json = g_strdup_printf(base, name, forces, extra);
  lw_error err;
  lw_desc *desc = lw_model_read_data(json, -1, name, NULL, &err);
  if (!desc)
    g_error("%s: %s", name, err.msg);
  lw_model *m = lwt_compile(desc);
  lw_desc_free(desc);
  g_free(json);
  return m;
}

static lw_model *build_force(const force_case *c, int spatial)
{
  const char *el = spatial && c->spatial ? c->spatial : c->planar;
  char *forces = c->section ? g_strdup_printf(", %s", el) : g_strdup_printf(", \"forces\": [%s]", el);
  lw_model *m = build(spatial ? spatial_base : planar_base, lw_force_kind_of(c->type)->name, forces, "");
  g_free(forces);
  return m;
}

/* ---- helpers ---------------------------------------------------------------- */
typedef struct {
  int nq, nc;
  double *q, *v, *qd, *qdd, *l;
} point;

static double vmax(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s = fmax(s, fabs(x[i]));
  return s;
}

/* largest |a - b| relative to the scale of b */
static double rel_err(const double *a, const double *b, int n)
{
  double e = 0;
  for (int i = 0; i < n; i++)
    e = fmax(e, fabs(a[i] - b[i]));
  return e / fmax(vmax(b, n), 1e-12);
}

static double *rand_vec(GRand *r, int n, double lo, double hi)
{
  double *x = g_new0(double, n + 1);
  for (int i = 0; i < n; i++)
    x[i] = g_rand_double_range(r, lo, hi);
  return x;
}

/* a point near the assembled configuration, not on it; the controllers'
 * integral terms within a step */
static point make_point(const lw_model *m, lw_data *d, GRand *r)
{
  point p = {.nq = lw_model_nq(m), .nc = lw_model_nc(m)};
  p.q = rand_vec(r, p.nq, -0.05, 0.05);
  for (int i = 0; i < p.nq; i++)
    p.q[i] += lw_data_q(d)[i];
  p.v = rand_vec(r, p.nq, -1, 1);
  p.qd = rand_vec(r, p.nq, -1, 1);
  p.qdd = rand_vec(r, p.nq, -5, 5);
  p.l = rand_vec(r, p.nc, -3, 3);
  for (int i = 0; i < m->nfbs; i++)
    d->fbz[i] = d->fbc[i] = 0.4 - 0.3 * i;
  d->fb_beta = 0.3;
  return p;
}

static void free_point(point *p)
{
  g_free(p->q), g_free(p->v), g_free(p->qd), g_free(p->qdd), g_free(p->l);
}

/* x + s dx */
static void axpy_to(int n, const double *x, double s, const double *dx, double *y)
{
  for (int i = 0; i < n; i++)
    y[i] = x[i] + s * dx[i];
}

static const double eps = 1e-6;

/* ---- forces ----------------------------------------------------------------- */
/* the element's own Q through its kind's eval hook */
static void kind_q(const lw_model *m, lw_data *d, int n, const double *q, const double *v, double t, double *Q)
{
  memset(Q, 0, sizeof(double) * (size_t)m->nq);
  const lw_force *f = &m->forces[n];
  lw_force_kind_of(f->type)->eval(m, d, f, q, v, t, Q, NULL, 0.0, 0.0);
}

/* jvp along (dq, dv) against central differences of eval */
static void check_force_jvp(const lw_model *m, lw_data *d, const point *p, GRand *r, double t)
{
  int nq = p->nq;
  const lw_force_kind *k = lw_force_kind_of(m->forces[0].type);
  double *Qa = g_new0(double, nq), *Qp = g_new0(double, nq), *Qm = g_new0(double, nq), *Qd = g_new0(double, nq);
  double *qp = g_new0(double, nq), *qm = g_new0(double, nq), *vp = g_new0(double, nq), *vm = g_new0(double, nq);
  for (int trial = 0; trial < 3; trial++) {
    double *dq = rand_vec(r, nq, -1, 1), *dv = rand_vec(r, nq, -1, 1);
    lw_lin_point lp = {p->q, p->v, p->v, p->qdd, {NULL, NULL, NULL}, t};
    lw_lin_dir dir = {dq, dv, NULL, NULL, NULL, NULL, -1}, df = dir;
    df.dqd = dv;
    memset(Qa, 0, sizeof(double) * nq);
    k->jvp(m, d, 0, &lp, &lp, &dir, &df, 1, Qa);
    axpy_to(nq, p->q, eps, dq, qp);
    axpy_to(nq, p->q, -eps, dq, qm);
    axpy_to(nq, p->v, eps, dv, vp);
    axpy_to(nq, p->v, -eps, dv, vm);
    kind_q(m, d, 0, qp, vp, t, Qp);
    kind_q(m, d, 0, qm, vm, t, Qm);
    for (int i = 0; i < nq; i++)
      Qd[i] = (Qp[i] - Qm[i]) / (2 * eps);
    double e = rel_err(Qa, Qd, nq);
    g_test_message("%s: jvp hook along (dq, dv) #%d against central differences of eval: %.2e (scale %.3g)",
                   k->name, trial, e, vmax(Qd, nq));
    g_assert_cmpfloat(e, <, 1e-6);
    g_free(dq), g_free(dv);
  }
  g_free(Qa), g_free(Qp), g_free(Qm), g_free(Qd), g_free(qp), g_free(qm), g_free(vp), g_free(vm);
}

/* KC = -dQ/dq - cv dQ/dv and C = -dQ/dv from lw_lin_matrices against
 * central differences of lw_forces_eval, column by column */
static void check_force_lin(const lw_model *m, lw_data *d, const point *p, double t)
{
  int nq = p->nq, nc = p->nc;
  const double cv = 0.7;
  const lw_force_kind *k = lw_force_kind_of(m->forces[0].type);
  double *KC = g_new0(double, (size_t)nq * nq), *C = g_new0(double, (size_t)nq * nq);
  double *KCd = g_new0(double, (size_t)nq * nq), *Cd = g_new0(double, (size_t)nq * nq);
  double *H[3] = {NULL, NULL, NULL};
  double *RV = g_new0(double, (size_t)nc * nq + 1), *RA = g_new0(double, (size_t)nc * nq + 1),
         *RAd = g_new0(double, (size_t)nc * nq + 1);
  double *l0 = g_new0(double, nc + 1);
  lw_lin_point lp = {p->q, p->v, p->qd, p->qdd, {l0, l0, l0}, t};
  g_assert_cmpint(lw_lin_matrices(m, d, &lp, cv, H, nq, RV, RA, RAd, nc, KC, nq, C, nq), ==, 0);
  double *qp = g_new0(double, nq), *qm = g_new0(double, nq), *vp = g_new0(double, nq), *vm = g_new0(double, nq);
  double *Qp = g_new0(double, nq), *Qm = g_new0(double, nq);
  for (int j = 0; j < nq; j++) {
    for (int pass = 0; pass < 2; pass++) {
      /* pass 0: dq = e_j, dv = cv e_j (KC); pass 1: dv = e_j (C) */
      memcpy(qp, p->q, sizeof(double) * nq);
      memcpy(qm, p->q, sizeof(double) * nq);
      memcpy(vp, p->v, sizeof(double) * nq);
      memcpy(vm, p->v, sizeof(double) * nq);
      if (pass == 0) {
        qp[j] += eps, qm[j] -= eps;
        vp[j] += cv * eps, vm[j] -= cv * eps;
      } else {
        vp[j] += eps, vm[j] -= eps;
      }
      memset(Qp, 0, sizeof(double) * nq);
      memset(Qm, 0, sizeof(double) * nq);
      lw_forces_eval(m, d, qp, vp, t, Qp, NULL, 0.0, 0.0);
      lw_forces_eval(m, d, qm, vm, t, Qm, NULL, 0.0, 0.0);
      double *T = pass == 0 ? KCd : Cd;
      for (int i = 0; i < nq; i++)
        T[(size_t)j * nq + i] = -(Qp[i] - Qm[i]) / (2 * eps);
    }
  }
  double ekc = rel_err(KC, KCd, nq * nq), ec = rel_err(C, Cd, nq * nq);
  g_test_message("%s: linearization (%s) KC: %.2e (scale %.3g), C: %.2e (scale %.3g)", k->name,
                 k->lin ? "lin hook" : "jvp columns", ekc, vmax(KCd, nq * nq), ec, vmax(Cd, nq * nq));
  g_assert_cmpfloat(ekc, <, 1e-6);
  g_assert_cmpfloat(ec, <, 1e-6);
  /* an element that says it does not depend on the velocities has C = 0
   * (the sensitivities then skip every product with C) */
  if (!k->uses_velocity || !k->uses_velocity(&m->forces[0]))
    g_assert_cmpfloat(vmax(Cd, nq * nq), ==, 0.0);
  g_free(KC), g_free(C), g_free(KCd), g_free(Cd), g_free(RV), g_free(RA), g_free(RAd), g_free(l0);
  g_free(qp), g_free(qm), g_free(vp), g_free(vm), g_free(Qp), g_free(Qm);
}

/* the energy: -dV/dq . dq is the force at rest velocity along dq; its jvp
 * hook against central differences of the energy */
static void check_force_energy(const lw_model *m, lw_data *d, const point *p, GRand *r, double t)
{
  int nq = p->nq;
  const lw_force *f = &m->forces[0];
  const lw_force_kind *k = lw_force_kind_of(f->type);
  if (!k->energy) {
    g_assert_null(k->energy_jvp);
    return;
  }
  g_assert_nonnull(k->energy_jvp);
  double *dq = rand_vec(r, nq, -1, 1), *zero = g_new0(double, nq), *Q = g_new0(double, nq);
  double *qp = g_new0(double, nq), *qm = g_new0(double, nq);
  axpy_to(nq, p->q, eps, dq, qp);
  axpy_to(nq, p->q, -eps, dq, qm);
  double dV = (k->energy(m, d, f, qp) - k->energy(m, d, f, qm)) / (2 * eps);
  kind_q(m, d, 0, p->q, zero, t, Q);
  double w = 0;
  for (int i = 0; i < nq; i++)
    w += Q[i] * dq[i];
  double s = 0;
  lw_lin_point lp = {p->q, NULL, NULL, NULL, {NULL, NULL, NULL}, t};
  lw_lin_dir dir = {dq, NULL, NULL, NULL, NULL, NULL, -1};
  k->energy_jvp(m, NULL, d, 0, &lp, &dir, &s);
  g_test_message("%s: dV along dq %.10g, -Q(q, 0) . dq %.10g, energy_jvp %.10g", k->name, dV, -w, s);
  g_assert_cmpfloat(fabs(dV + w), <, 1e-6 * fmax(fabs(dV), 1.0));
  g_assert_cmpfloat(fabs(s - dV), <, 1e-6 * fmax(fabs(dV), 1.0));
  /* the spring state (length and rate) and its derivative */
  g_assert_nonnull(k->spring_state);
  g_assert_nonnull(k->state_jvp);
  double *dqd = rand_vec(r, nq, -1, 1), *vp = g_new0(double, nq), *vm = g_new0(double, nq);
  axpy_to(nq, p->qd, eps, dqd, vp);
  axpy_to(nq, p->qd, -eps, dqd, vm);
  double xp, xdp, xm, xdm, x, dx, xd, dxd;
  k->spring_state(m, d, f, qp, vp, &xp, &xdp);
  k->spring_state(m, d, f, qm, vm, &xm, &xdm);
  lw_lin_point sp = {p->q, NULL, p->qd, NULL, {NULL, NULL, NULL}, t};
  lw_lin_dir sdir = {dq, NULL, dqd, NULL, NULL, NULL, -1};
  k->state_jvp(m, NULL, d, 0, &sp, &sdir, &x, &dx, &xd, &dxd);
  double fx = (xp - xm) / (2 * eps), fxd = (xdp - xdm) / (2 * eps);
  g_test_message("%s: state_jvp dx %.10g (differences %.10g), dxd %.10g (%.10g)", k->name, dx, fx, dxd, fxd);
  g_assert_cmpfloat(fabs(dx - fx), <, 1e-6 * fmax(fabs(fx), 1.0));
  g_assert_cmpfloat(fabs(dxd - fxd), <, 1e-6 * fmax(fabs(fxd), 1.0));
  g_free(dq), g_free(zero), g_free(Q), g_free(qp), g_free(qm), g_free(dqd), g_free(vp), g_free(vm);
}

static void check_force_case(const force_case *c, int spatial)
{
  lw_model *m = build_force(c, spatial);
  g_assert_cmpint(m->nforces, ==, 1);
  g_assert_cmpint(m->forces[0].type, ==, c->type);
  const lw_force_kind *k = lw_force_kind_of(c->type);
  g_assert_nonnull(k->eval);
  g_assert_nonnull(k->jvp);
  g_assert_nonnull(k->blocks);
  g_assert_nonnull(k->geometry);
  /* no kind so far has multipliers or events */
  g_assert_null(k->dlambda);
  g_assert_null(k->guard);
  g_assert_null(k->jump);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  GRand *r = g_rand_new_with_seed(11 + (guint32)c->type);
  point p = make_point(m, d, r);
  double t = 0.37;
  check_force_jvp(m, d, &p, r, t);
  check_force_lin(m, d, &p, t);
  check_force_energy(m, d, &p, r, t);
  free_point(&p);
  g_rand_free(r);
  lw_data_free(d);
  lw_model_free(m);
}

static void test_force(gconstpointer data)
{
  const force_case *c = data;
  check_force_case(c, 0);
  check_force_case(c, 1);
}

/* ---- rows ------------------------------------------------------------------- */
/* Phi, J qd + Phi_t and J^T l at (q, qd) */
static void row_vals(const lw_model *m, lw_data *d, const double *q, const double *qd, const double *l, double t,
                     double *phi, double *vel, double *jtl)
{
  int nq = m->nq, nc = m->nc;
  double *Jd = g_new0(double, (size_t)nc * nq + 1), *pt = g_new0(double, nc + 1);
  lw_eval_dense(m, d, q, qd, t, NULL, phi, Jd, pt, NULL);
  for (int r = 0; r < nc; r++) {
    double a = pt[r];
    for (int j = 0; j < nq; j++)
      a += Jd[(size_t)j * nc + r] * qd[j];
    vel[r] = a;
  }
  for (int j = 0; j < nq; j++) {
    double a = 0;
    for (int r = 0; r < nc; r++)
      a += Jd[(size_t)j * nc + r] * l[r];
    jtl[j] = a;
  }
  g_free(Jd), g_free(pt);
}

/* the kind's own hooks on each of its rows: the gradient from value and
 * the rate against central differences of value, the jvp hook's dv and dr
 * against central differences of value and rate */
static void check_row_hooks(const lw_model *m, const point *p, const row_case *c, GRand *rnd)
{
  const lw_row_kind_ops *k = lw_row_kind_of(c->kind);
  int nq = m->nq;
  double *dq = rand_vec(rnd, nq, -1, 1), *dqd = rand_vec(rnd, nq, -1, 1);
  double *qp = g_new0(double, nq), *qm = g_new0(double, nq), *vp = g_new0(double, nq), *vm = g_new0(double, nq);
  axpy_to(nq, p->q, eps, dq, qp);
  axpy_to(nq, p->q, -eps, dq, qm);
  axpy_to(nq, p->qd, eps, dqd, vp);
  axpy_to(nq, p->qd, -eps, dqd, vm);
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    if (row->kind != c->kind)
      continue;
    const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
    double g[2 * LW_MAXQB] = {0};
    k->value(m, v, p->q, row->nblk, row->blk, g);
    double gdq = 0, gqd = 0;
    for (int b = 0; b < row->nblk; b++)
      for (int i = 0; i < m->nqb; i++) {
        gdq += g[b * m->nqb + i] * dq[(size_t)row->blk[b] * m->nqb + i];
        gqd += g[b * m->nqb + i] * p->qd[(size_t)row->blk[b] * m->nqb + i];
      }
    double fx = (k->value(m, v, qp, row->nblk, row->blk, NULL) - k->value(m, v, qm, row->nblk, row->blk, NULL)) /
                (2 * eps);
    double xd, xdp, xdm;
    k->rate(m, v, p->q, p->qd, &xd, NULL);
    k->rate(m, v, qp, vp, &xdp, NULL);
    k->rate(m, v, qm, vm, &xdm, NULL);
    sc s;
    lw_lin_point lp = {p->q, NULL, p->qd, NULL, {NULL, NULL, NULL}, 0.0};
    lw_lin_dir dir = {dq, NULL, dqd, NULL, NULL, NULL, -1};
    memset(&s, 0, sizeof s);
    k->jvp(m, v, NULL, row->nblk, row->blk, &lp, &dir, 1, &s);
    double fxd = (xdp - xdm) / (2 * eps);
    double scale = fmax(1.0, fabs(fx) + fabs(fxd));
    g_test_message("%s row %d: g.dq %.10g, differences %.10g, jvp %.10g; rate %.10g, g.qd %.10g; d(rate) %.10g, "
                   "jvp %.10g", k->name, r, gdq, fx, s.dv, xd, gqd, fxd, s.dr);
    g_assert_cmpfloat(fabs(gdq - fx), <, 1e-6 * scale);
    g_assert_cmpfloat(fabs(s.dv - fx), <, 1e-6 * scale);
    g_assert_cmpfloat(fabs(xd - gqd), <, 1e-9 * scale);
    g_assert_cmpfloat(fabs(s.dr - fxd), <, 1e-6 * scale);
  }
  g_free(dq), g_free(dqd), g_free(qp), g_free(qm), g_free(vp), g_free(vm);
}

static void check_row_case(const row_case *c, int spatial)
{
  lw_model *m = build(spatial ? spatial_base : planar_base, c->name, "", c->extra);
  int nq = m->nq, nc = m->nc, found = 0;
  for (int r = 0; r < nc; r++)
    found += m->rows[r].kind == c->kind;
  g_assert_cmpint(found, >, 0);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  GRand *r = g_rand_new_with_seed(23 + (guint32)c->kind);
  point p = make_point(m, d, r);
  double t = 0.37;
  check_row_hooks(m, &p, c, r);
  double *dq = rand_vec(r, nq, -1, 1), *dqd = rand_vec(r, nq, -1, 1);
  double *phi = g_new0(double, nc + 1), *vel = g_new0(double, nc + 1), *jtl = g_new0(double, nq);
  lw_lin_point lp = {p.q, p.v, p.qd, p.qdd, {p.l, NULL, NULL}, t};
  lw_lin_dir dir = {dq, NULL, dqd, NULL, NULL, NULL, -1};
  lw_lin_out o = {NULL, {jtl, NULL, NULL}, phi, vel, NULL};
  lw_lin_jvp(m, d, &lp, &dir, &o);
  double *qp = g_new0(double, nq), *qm = g_new0(double, nq), *vp = g_new0(double, nq), *vm = g_new0(double, nq);
  double *fp = g_new0(double, 2 * nc + nq + 1), *fm = g_new0(double, 2 * nc + nq + 1);
  axpy_to(nq, p.q, eps, dq, qp);
  axpy_to(nq, p.q, -eps, dq, qm);
  axpy_to(nq, p.qd, eps, dqd, vp);
  axpy_to(nq, p.qd, -eps, dqd, vm);
  row_vals(m, d, qp, vp, p.l, t, fp, fp + nc, fp + 2 * nc);
  row_vals(m, d, qm, vm, p.l, t, fm, fm + nc, fm + 2 * nc);
  for (int i = 0; i < 2 * nc + nq; i++)
    fp[i] = (fp[i] - fm[i]) / (2 * eps);
  double e[3] = {rel_err(phi, fp, nc), rel_err(vel, fp + nc, nc), rel_err(jtl, fp + 2 * nc, nq)};
  g_test_message("%s rows (%s): dPhi %.2e, d(J qd + Phi_t) %.2e, d(J^T l) %.2e", c->name,
                 spatial ? "spatial" : "planar", e[0], e[1], e[2]);
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat(e[k], <, 1e-6);
  /* the step's Hessian of J^T l and d(J qd + Phi_t)/dq, column by column */
  double *H0 = g_new0(double, (size_t)nq * nq), *RV = g_new0(double, (size_t)nc * nq);
  double *Hd = g_new0(double, (size_t)nq * nq), *RVd = g_new0(double, (size_t)nc * nq);
  double *RA = g_new0(double, (size_t)nc * nq), *RAd = g_new0(double, (size_t)nc * nq);
  double *H[3] = {H0, NULL, NULL};
  g_assert_cmpint(lw_lin_matrices(m, d, &lp, 0.7, H, nq, RV, RA, RAd, nc, NULL, nq, NULL, nq), ==, 0);
  for (int j = 0; j < nq; j++) {
    memcpy(qp, p.q, sizeof(double) * nq);
    memcpy(qm, p.q, sizeof(double) * nq);
    qp[j] += eps, qm[j] -= eps;
    row_vals(m, d, qp, p.qd, p.l, t, fp, fp + nc, fp + 2 * nc);
    row_vals(m, d, qm, p.qd, p.l, t, fm, fm + nc, fm + 2 * nc);
    for (int i = 0; i < nq; i++)
      Hd[(size_t)j * nq + i] = (fp[2 * nc + i] - fm[2 * nc + i]) / (2 * eps);
    for (int i = 0; i < nc; i++)
      RVd[(size_t)j * nc + i] = (fp[nc + i] - fm[nc + i]) / (2 * eps);
  }
  double eh = rel_err(H0, Hd, nq * nq), erv = rel_err(RV, RVd, nc * nq);
  g_test_message("%s rows (%s): Hessian of J^T l %.2e (scale %.3g), RV %.2e", c->name, spatial ? "spatial" : "planar",
                 eh, vmax(Hd, nq * nq), erv);
  g_assert_cmpfloat(eh, <, 1e-6);
  g_assert_cmpfloat(erv, <, 1e-6);
  g_free(H0), g_free(RV), g_free(RA), g_free(RAd), g_free(Hd), g_free(RVd);
  g_free(dq), g_free(dqd), g_free(phi), g_free(vel), g_free(jtl);
  g_free(qp), g_free(qm), g_free(vp), g_free(vm), g_free(fp), g_free(fm);
  free_point(&p);
  g_rand_free(r);
  lw_data_free(d);
  lw_model_free(m);
}

static void test_row(gconstpointer data)
{
  const row_case *c = data;
  check_row_case(c, 0);
  check_row_case(c, 1);
}

/* every registered force kind has an entry above */
static void test_registry_covered(void)
{
  for (int t = 0; t < LW_FORCE_NTYPES; t++) {
    g_assert_nonnull(lw_force_kind_of(t));
    int found = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(force_cases); i++)
      found += force_cases[i].type == (lw_force_type)t;
    if (!found)
      g_error("force kind %s has no entry in force_cases", lw_force_kind_of(t)->name);
  }
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kinds/registry", test_registry_covered);
  for (size_t i = 0; i < G_N_ELEMENTS(force_cases); i++) {
    char *path = g_strdup_printf("/kinds/force/%s", lw_force_kind_of(force_cases[i].type)->name);
    g_test_add_data_func(path, &force_cases[i], test_force);
    g_free(path);
  }
  for (size_t i = 0; i < G_N_ELEMENTS(row_cases); i++) {
    char *path = g_strdup_printf("/kinds/row/%s", row_cases[i].name);
    g_test_add_data_func(path, &row_cases[i], test_row);
    g_free(path);
  }
  return g_test_run();
}
