/* test-friction-sim.c: joint friction in the model format and the step
 * (docs/friction.md sec. 8, docs/model-format.md): a block on an inclined
 * prismatic joint (sticking below tan theta = mu_s, the closed-form
 * acceleration g (sin theta - mu_d cos theta) above), a pendulum with pin
 * friction against an independent integration of the same law, and the
 * work of friction against the loss of mechanical energy. */
#include "lw-test.h"
#include "model/lw_friction.h"

#include <string.h>

static const double G = 9.81;

/* ---- models ------------------------------------------------------------ */

/* a 1 kg block on a planar prismatic joint inclined at theta, at rest */
static char *incline_json(double theta, double h, const char *extra_friction)
{
  return g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"incline\", \"planar\": true, \"gravity\": [0, -9.81],\n"
    " \"solver\": {\"t_end\": 1, \"step\": %.17g},\n"
    " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"com\": [0, 0], \"inertia\": 0.01,\n"
    "   \"position\": [0, 0], \"angle\": %.17g}],\n"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"block\",\n"
    "   \"point1\": [0, 0], \"point2\": [0, 0], \"angle1\": %.17g,\n"
    "   \"friction\": {\"mu_s\": 0.4, \"mu_d\": 0.3, \"v_t\": 0.001%s}}],\n"
    " \"outputs\": [{\"name\": \"x\", \"type\": \"joint_coordinate\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"v\", \"type\": \"joint_velocity\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"E\", \"type\": \"total_energy\"},\n"
    "   {\"name\": \"W\", \"type\": \"dissipated_energy\"},\n"
    "   {\"name\": \"Ff\", \"type\": \"friction_force\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"N\", \"type\": \"normal_force\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"s\", \"type\": \"slip_speed\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"Wf\", \"type\": \"friction_work\", \"joint\": \"slide\"}]}\n",
    h, theta, theta, extra_friction ? extra_friction : "");
}

static lw_desc *read_json(const char *json, lw_error *err)
{
  return lw_model_read_data(json, -1, "test.json", NULL, err);
}

static lw_desc *read_ok(const char *json)
{
  lw_error err;
  lw_desc *d = read_json(json, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  return d;
}

/* a run's outputs at every step: rows of 1 + ncols (time first) */
typedef struct {
  lw_model *m;
  int ncols;
  long steps;
  double *rows;
  long iterations;
  int max_iterations;
} run;

static void run_model(const lw_desc *d, run *r)
{
  memset(r, 0, sizeof *r);
  r->m = lwt_compile(d);
  lw_data *data = lw_data_new(r->m);
  lw_error err;
  g_assert_nonnull(data);
  if (lw_initialize(r->m, data, &err))
    g_error("%s", err.msg);
  r->ncols = 1 + lw_model_output_columns(r->m);
  r->steps = lround(d->solver.t_end / d->solver.step);
  r->rows = g_new0(double, (size_t)(r->steps + 1) * r->ncols);
  r->rows[0] = 0;
  lw_outputs(r->m, data, r->rows + 1);
  for (long k = 1; k <= r->steps; k++) {
    lw_step_info info;
    if (lw_step(r->m, data, &info, &err))
      g_error("step %ld: %s", k, err.msg);
    r->iterations += info.iterations;
    r->max_iterations = MAX(r->max_iterations, info.iterations);
    double *row = r->rows + (size_t)k * r->ncols;
    row[0] = lw_data_time(data);
    lw_outputs(r->m, data, row + 1);
  }
  lw_data_free(data);
}

static double at(const run *r, long k, const char *col)
{
  return r->rows[(size_t)k * r->ncols + lwt_col(r->m, col)];
}

static void run_clear(run *r)
{
  lw_model_free(r->m);
  g_free(r->rows);
}

/* ---- the model format -------------------------------------------------- */

/* every field read, written and read back; v_t 0 (the default) not written */
static void test_format_roundtrip(void)
{
  g_autofree char *json = incline_json(0.5, 1e-3,
                                       ", \"viscous\": 0.5, \"length\": 0.2, \"offset\": 0.01, \"width\": 0.03, "
                                       "\"radius\": 0.02, \"preload\": 3, \"eps\": 0.002");
  lw_desc *d = read_ok(json);
  const double want[LW_FRICTION_NPARAMS] = {0.4, 0.3, 0.001, 0.5, 0.2, 0.01, 0.03, 0.02, 3, 0.002};
  g_assert_true(d->joints[0].has_friction);
  for (int k = 0; k < LW_FRICTION_NPARAMS; k++)
    g_assert_cmpfloat(d->joints[0].friction[k], ==, want[k]);
  g_autofree char *out = lw_model_to_json(d);
  lw_desc *d2 = read_ok(out);
  for (int k = 0; k < LW_FRICTION_NPARAMS; k++)
    g_assert_cmpfloat(d2->joints[0].friction[k], ==, want[k]);
  /* defaults: those of docs/friction.md sec. 1, v_t from the step */
  lw_desc *d3 = read_ok("{\"linkwright\": 1, \"planar\": true, \"bodies\": [{\"name\": \"b\", \"mass\": 1, "
                        "\"inertia\": 1}], \"joints\": [{\"name\": \"j\", \"type\": \"revolute\", "
                        "\"body1\": \"ground\", \"body2\": \"b\", \"at\": [0, 0], \"friction\": {}}]}");
  const double def[LW_FRICTION_NPARAMS] = {0.4, 0.3, 0, 0, 0.05, 0, 0.02, 0.01, 0, 1e-3};
  for (int k = 0; k < LW_FRICTION_NPARAMS; k++)
    g_assert_cmpfloat(d3->joints[0].friction[k], ==, def[k]);
  g_autofree char *out3 = lw_model_to_json(d3);
  g_assert_null(strstr(out3, "v_t"));
  g_assert_nonnull(strstr(out3, "\"friction\": {\"mu_s\": 0.4"));
  lw_desc_free(d);
  lw_desc_free(d2);
  lw_desc_free(d3);
}

static void expect_refusal(const char *json, const char *path, const char *words)
{
  lw_error err;
  memset(&err, 0, sizeof err);
  lw_desc *d = read_json(json, &err);
  if (d) {
    lw_model *m = lw_compile(d, &err);
    g_assert_null(m);
    lw_desc_free(d);
  }
  g_assert_cmpint(err.status, ==, LW_ERR_MODEL);
  g_assert_cmpstr(err.path, ==, path);
  if (!strstr(err.msg, words))
    g_error("'%s' does not say '%s'", err.msg, words);
}

static void test_format_refusals(void)
{
  /* a joint type without friction, with the joint's path */
  expect_refusal("{\"linkwright\": 1, \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": [1, 1, 1, 0, 0, 0]}],"
                 " \"joints\": [{\"name\": \"U\", \"type\": \"universal\", \"body1\": \"ground\", \"body2\": \"b\","
                 " \"at\": [0, 0, 0], \"second_axis\": [1, 0, 0], \"friction\": {\"mu_s\": 0.5}}]}",
                 "joints/U/friction", "universal joint has no friction");
  expect_refusal("{\"linkwright\": 1, \"planar\": true, \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": 1}],"
                 " \"joints\": [{\"name\": \"F\", \"type\": \"fixed\", \"body1\": \"ground\", \"body2\": \"b\","
                 " \"at\": [0, 0], \"friction\": {}}]}",
                 "joints/F/friction", "fixed joint of a planar model has no friction");
  /* out of range, with the field's path */
  g_autofree char *neg = incline_json(0.3, 1e-3, ", \"width\": -0.01");
  expect_refusal(neg, "joints/slide/friction/width", "must be a finite number > 0");
  g_autofree char *bad_mu = incline_json(0.3, 1e-3, ", \"eps\": 0");
  expect_refusal(bad_mu, "joints/slide/friction/eps", "> 0");
  /* an unknown field */
  g_autofree char *unk = incline_json(0.3, 1e-3, ", \"mu\": 1");
  expect_refusal(unk, "joints/slide/friction/mu", "mu");
  /* a parameter that sets a value out of range: refused at compile */
  g_autofree char *base = incline_json(0.3, 1e-3, NULL);
  lw_desc *d = read_ok(base);
  double *f = lw_desc_field(d, "joints/slide/friction/mu_d");
  g_assert_nonnull(f);
  *f = -0.1;
  lw_error err;
  g_assert_null(lw_compile(d, &err));
  g_assert_cmpstr(err.path, ==, "joints/slide/friction/mu_d");
  /* a friction output on a joint without friction */
  lw_desc_free(d);
  g_autofree char *nofric = g_strdup(base);
  char *p = strstr(nofric, "\"friction\"");
  g_assert_nonnull(p);
  while (*p != ',')
    p--; /* from the comma before it to the end of its object */
  char *q = strstr(p, "}}]");
  memmove(p, q + 1, strlen(q + 1) + 1);
  expect_refusal(nofric, "outputs/Ff/joint", "has no friction");
}

/* a parameter bound to joints/J/friction/mu_d moves the sliding
 * acceleration as g (sin - mu_d cos) says */
static void test_format_parameter(void)
{
  double theta = 0.5;
  g_autofree char *json = incline_json(theta, 1e-3, NULL);
  char *end = strrchr(json, '}');
  *end = 0;
  g_autofree char *with = g_strdup_printf("%s, \"parameters\": [{\"name\": \"md\", \"value\": 0.2, "
                                          "\"bind\": \"joints/slide/friction/mu_d\"}]}", json);
  lw_desc *d = read_ok(with);
  d->solver.t_end = 0.5;
  run r;
  run_model(d, &r);
  double a = (at(&r, 500, "v") - at(&r, 250, "v")) / 0.25;
  g_assert_cmpfloat(fabs(a + G * (sin(theta) - 0.2 * cos(theta))), <, 1e-6);
  run_clear(&r);
  lw_desc_free(d);
}

/* ---- the inclined block ------------------------------------------------ */

/* above tan theta = mu_s the block slides with a = g (sin - mu_d cos) once
 * its speed is many v_t; the outputs: N = m g cos, friction = mu_d N along
 * the slip (the rate is negative: down the slope), slip = |v| */
static void test_incline_slide(void)
{
  double theta = M_PI / 6;
  g_autofree char *json = incline_json(theta, 1e-3, NULL);
  lw_desc *d = read_ok(json);
  run r;
  run_model(d, &r);
  double a = (at(&r, 1000, "v") - at(&r, 500, "v")) / 0.5;
  double want = G * (sin(theta) - 0.3 * cos(theta));
  g_test_message("slide: a = %.9g, closed form %.9g; %ld Newton iterations in %ld steps (max %d)", -a, want,
                 r.iterations, r.steps, r.max_iterations);
  g_assert_cmpfloat(fabs(-a - want), <, 1e-6 * want);
  double N = at(&r, 1000, "N");
  g_assert_cmpfloat(fabs(N - G * cos(theta)), <, 1e-6);
  g_assert_cmpfloat(fabs(at(&r, 1000, "Ff") - 0.3 * N), <, 1e-6);
  g_assert_cmpfloat(fabs(at(&r, 1000, "s") + at(&r, 1000, "v")), <, 1e-12);
  /* a single friction joint: its work is all that was dissipated */
  g_assert_cmpfloat(at(&r, 1000, "Wf"), ==, at(&r, 1000, "W"));
  g_assert_cmpint(r.max_iterations, <=, 10);
  run_clear(&r);
  lw_desc_free(d);
}

/* below tan theta = mu_s the block sticks: it creeps at a speed below v_t
 * where mu(v) = tan theta, and moves less than v_t times the time; just
 * above mu_s it slides away.  At h = 1 ms with v_t = 1e-3 (tan 0.268) the
 * modified Newton iteration of option (a) must converge in few
 * iterations.  Near the peak (tan 0.38) the step must resolve v_t: the
 * block starts at the frictionless acceleration (mu(0) = 0) and at 1 ms
 * the trapezoidal rule carries it past v_t in the first step, onto the
 * falling side of the law, where it slides; at 0.1 ms it sticks. */
static void test_incline_stick(void)
{
  const struct { double tan, h; } cases[] = {{0.268, 1e-3}, {0.38, 1e-4}, {0.42, 1e-4}};
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    double theta = atan(cases[i].tan), h = cases[i].h;
    g_autofree char *json = incline_json(theta, h, NULL);
    lw_desc *d = read_ok(json);
    run r;
    run_model(d, &r);
    long n = r.steps;
    double v = at(&r, n, "v"), x = at(&r, n, "x");
    g_test_message("tan theta %.3g, h %g: x(1 s) = %.6g m, v = %.6g m/s; %ld Newton iterations in %ld steps "
                   "(max %d)", cases[i].tan, h, x, v, r.iterations, r.steps, r.max_iterations);
    if (cases[i].tan < 0.4) {
      g_assert_cmpfloat(fabs(v), <, 1e-3);
      g_assert_cmpfloat(fabs(x), <, 1e-3);
      /* the creep speed: mu(v) N = m g sin, so the friction balances gravity */
      g_assert_cmpfloat(fabs(at(&r, n, "Ff") - G * sin(theta)), <, 1e-6);
    } else {
      g_assert_cmpfloat(v, <, -0.5);
    }
    g_assert_cmpint(r.max_iterations, <=, 25);
    g_assert_cmpfloat((double)r.iterations / r.steps, <, 1.2);
    run_clear(&r);
    lw_desc_free(d);
  }
}

/* A spatial block on a prismatic joint down a slope at theta (gravity
 * -z), its centre of mass 2 cm off the slide along the slope's normal, so
 * that the reaction has a moment (T_y = 0.02 mu_d N, the friction's moment
 * about the joint origin), and its guide (0.2 m long) centred 0.15 m ahead
 * of the joint origin, so that the moment moves N: the normal force output
 * equals the kernel's N at the reaction statics gives for the simulated
 * acceleration, R = m a d + m g z and T = (c - P) x R (the block does not
 * turn), in body 2's joint axes; and the acceleration is g sin - mu_d N / m.
 * (With the centre of mass 0.1 m off and a 5 cm guide centred on the joint
 * origin, 2 off mu_d / a > 1: the guide wedges, as a drawer pulled off its
 * axis does.) */
static void test_incline_spatial(void)
{
  double th = 0.5, m = 1.0, off = 0.02;
  double n[3] = {sin(th), 0, cos(th)}, dd[3] = {cos(th), 0, -sin(th)}, y[3];
  y[0] = dd[1] * n[2] - dd[2] * n[1];
  y[1] = dd[2] * n[0] - dd[0] * n[2];
  y[2] = dd[0] * n[1] - dd[1] * n[0];
  g_autofree char *json = g_strdup_printf(
    "{\"linkwright\": 1, \"gravity\": [0, 0, -9.81], \"solver\": {\"t_end\": 1, \"step\": 0.001},\n"
    " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"com\": [%.17g, 0, %.17g],"
    " \"inertia\": [0.01, 0.01, 0.01, 0, 0, 0], \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0]}],\n"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"block\","
    " \"at\": [0, 0, 0], \"axis\": [%.17g, 0, %.17g], \"ref\": [%.17g, 0, %.17g],"
    " \"friction\": {\"mu_s\": 0.4, \"mu_d\": 0.3, \"v_t\": 0.001, \"eps\": 1e-6, \"length\": 0.2, \"offset\": 0.15}}],\n"
    " \"outputs\": [{\"name\": \"v\", \"type\": \"joint_velocity\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"N\", \"type\": \"normal_force\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"Ff\", \"type\": \"friction_force\", \"joint\": \"slide\"}]}\n",
    off * n[0], off * n[2], dd[0], dd[2], n[0], n[2]);
  lw_desc *d = read_ok(json);
  run r;
  run_model(d, &r);
  double a = (at(&r, 1000, "v") - at(&r, 500, "v")) / 0.5;
  /* the reaction on the block in global axes, its moment about the joint
   * origin (the block's), then in body 2's joint axes (x n, y, z d) */
  double R[3], T[3], c[3] = {off * n[0], off * n[1], off * n[2]};
  for (int i = 0; i < 3; i++)
    R[i] = m * a * dd[i] + (i == 2 ? m * G : 0.0);
  T[0] = c[1] * R[2] - c[2] * R[1];
  T[1] = c[2] * R[0] - c[0] * R[2];
  T[2] = c[0] * R[1] - c[1] * R[0];
  const double *ax[3] = {n, y, dd};
  double Rj[6];
  for (int k = 0; k < 3; k++) {
    Rj[k] = ax[k][0] * R[0] + ax[k][1] * R[1] + ax[k][2] * R[2];
    Rj[3 + k] = ax[k][0] * T[0] + ax[k][1] * T[1] + ax[k][2] * T[2];
  }
  lw_friction_params p;
  lw_friction_default_params(&p, 1e-3);
  p.p[LW_FP_VT] = 1e-3;
  p.p[LW_FP_EPS] = 1e-6;
  p.p[LW_FP_LENGTH] = 0.2;
  p.p[LW_FP_OFFSET] = 0.15;
  double N = lw_friction_normal(&p, LW_FRICTION_PRISMATIC, Rj, NULL, NULL);
  double Nout = at(&r, 1000, "N");
  g_test_message("spatial slide: a = %.9g, g sin - mu_d N / m = %.9g; N = %.9g, from statics %.9g "
                 "(T_y = %.6g N m); %ld Newton iterations in %ld steps (max %d)",
                 a, G * sin(th) - 0.3 * N / m, Nout, N, Rj[4], r.iterations, r.steps, r.max_iterations);
  g_assert_cmpfloat(fabs(Rj[4]), >, 0.05);
  g_assert_cmpfloat(N, >, 1.2 * G * cos(th)); /* the guide's lever */
  g_assert_cmpfloat(fabs(Nout - N), <, 1e-6 * N);
  g_assert_cmpfloat(fabs(a - (G * sin(th) - 0.3 * N / m)), <, 1e-6);
  g_assert_cmpfloat(fabs(at(&r, 1000, "Ff") + 0.3 * N), <, 1e-6); /* down the axis: opposing */
  run_clear(&r);
  lw_desc_free(d);
}

/* ---- the pendulum against a scalar ODE --------------------------------- */

/* Brown-McPhee, written out again here (docs/friction.md sec. 2) */
static double bm_mu(double v, double mus, double mud, double vt)
{
  double x = v / vt, D = 0.25 * x * x + 0.75;
  return mud * tanh(4 * x) + (mus - mud) * x / (D * D);
}

typedef struct {
  double m, l, Ic, re, mus, mud, vt, eps;
} pend;

/* theta'' of a uniform-free pendulum (com at l on the body's x axis from
 * the pin) with pin friction: I_pin th'' = -m g l cos th - r_e mu(r_e w) N,
 * N = pi^3/24 |F|_eps, F = m (a_com - g) the pin's force on the body,
 * a_com = l th'' (-sin, cos) - l w^2 (cos, sin).  Implicit in th'' through
 * N: solved by fixed-point iteration (the friction torque's dependence on
 * th'' is r_e mu m l / I_pin, well below 1). */
static double pend_acc(const pend *p, double th, double w)
{
  double I = p->Ic + p->m * p->l * p->l, kb = pow(M_PI, 3) / 24.0;
  double a = -p->m * G * p->l * cos(th) / I;
  for (int it = 0; it < 200; it++) {
    double ax = p->l * a * -sin(th) - p->l * w * w * cos(th);
    double ay = p->l * a * cos(th) - p->l * w * w * sin(th);
    double Fx = p->m * ax, Fy = p->m * (ay + G);
    double N = kb * sqrt(Fx * Fx + Fy * Fy + p->eps * p->eps);
    double an = (-p->m * G * p->l * cos(th) - p->re * bm_mu(p->re * w, p->mus, p->mud, p->vt) * N) / I;
    if (fabs(an - a) <= 1e-15 * (1 + fabs(an))) {
      a = an;
      break;
    }
    a = an;
  }
  return a;
}

/* RK4 from rest at th0 to t with step h; the states at every multiple of
 * `every` steps into out (th, w pairs) */
static void pend_rk4(const pend *p, double th0, double h, long nsteps, long every, double *out)
{
  double th = th0, w = 0;
  out[0] = th;
  out[1] = w;
  for (long k = 1; k <= nsteps; k++) {
    double k1t = w, k1w = pend_acc(p, th, w);
    double k2t = w + 0.5 * h * k1w, k2w = pend_acc(p, th + 0.5 * h * k1t, k2t);
    double k3t = w + 0.5 * h * k2w, k3w = pend_acc(p, th + 0.5 * h * k2t, k3t);
    double k4t = w + h * k3w, k4w = pend_acc(p, th + h * k3t, k4t);
    th += h / 6 * (k1t + 2 * k2t + 2 * k3t + k4t);
    w += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
    if (k % every == 0) {
      out[2 * (k / every)] = th;
      out[2 * (k / every) + 1] = w;
    }
  }
}

static char *pendulum_json(const pend *p, double h, double t_end)
{
  return g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"pendulum\", \"planar\": true, \"gravity\": [0, -9.81],\n"
    " \"solver\": {\"t_end\": %.17g, \"step\": %.17g},\n"
    " \"bodies\": [{\"name\": \"arm\", \"mass\": %.17g, \"com\": [%.17g, 0], \"inertia\": %.17g,\n"
    "   \"position\": [0, 0], \"angle\": 0}],\n"
    " \"joints\": [{\"name\": \"pin\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"arm\",\n"
    "   \"at\": [0, 0], \"friction\": {\"mu_s\": %.17g, \"mu_d\": %.17g, \"v_t\": %.17g, \"radius\": %.17g,"
    " \"eps\": %.17g}}],\n"
    " \"outputs\": [{\"name\": \"th\", \"type\": \"joint_coordinate\", \"joint\": \"pin\"},\n"
    "   {\"name\": \"w\", \"type\": \"joint_velocity\", \"joint\": \"pin\"},\n"
    "   {\"name\": \"E\", \"type\": \"total_energy\"},\n"
    "   {\"name\": \"W\", \"type\": \"friction_work\", \"joint\": \"pin\"}]}\n",
    t_end, h, p->m, p->l, p->Ic, p->mus, p->mud, p->vt, p->re, p->eps);
}

/* the largest errors of the angle and rate every 0.1 s over t_end against
 * the scalar equation by RK4 at 1e-5 s; the friction work into *W */
static void pendulum_errors(const pend *p, double h, double t_end, double *eth, double *ew, double *W, long *iters)
{
  long n = lround(t_end / h), ev = lround(0.1 / h);
  g_autofree char *json = pendulum_json(p, h, t_end);
  lw_desc *d = read_ok(json);
  run r;
  run_model(d, &r);
  long nr = lround(t_end / 1e-5);
  double *ref = g_new0(double, 2 * (size_t)(nr / 10000 + 1));
  pend_rk4(p, 0.0, 1e-5, nr, 10000, ref);
  *eth = *ew = 0;
  for (long k = 0; k * ev <= n; k++) {
    *eth = fmax(*eth, fabs(at(&r, k * ev, "th") - ref[2 * k]));
    *ew = fmax(*ew, fabs(at(&r, k * ev, "w") - ref[2 * k + 1]));
  }
  *W = at(&r, n, "W");
  *iters = r.iterations;
  g_free(ref);
  run_clear(&r);
  lw_desc_free(d);
}

/* released from horizontal: swings through the bottom and back, the pin's
 * friction (r_e 5 cm) taking some of its energy; at h = 1e-4 within 1e-6
 * rad of the scalar equation, and the error falls as h^2 (it fell as h,
 * 3e-5 rad at 1e-4, while friction read the step's multipliers alone) */
static void test_pendulum_ode(void)
{
  pend p = {.m = 2.0, .l = 0.4, .Ic = 0.05, .re = 0.05, .mus = 0.4, .mud = 0.3, .vt = 0.01, .eps = 1e-3};
  double eth, ew, W, eth2, ew2, W2;
  long it, it2;
  pendulum_errors(&p, 1e-4, 1.5, &eth, &ew, &W, &it);
  pendulum_errors(&p, 5e-5, 1.5, &eth2, &ew2, &W2, &it2);
  g_test_message("pendulum over 1.5 s: max |th - th_ode| %.3g rad, |w - w_ode| %.3g rad/s at h = 1e-4 (%ld Newton "
                 "iterations in 15000 steps); %.3g, %.3g at h = 5e-5; friction work %.6g J",
                 eth, ew, it, eth2, ew2, W);
  g_assert_cmpfloat(W, >, 0.05); /* friction matters */
  g_assert_cmpfloat(eth, <, 1e-6);
  g_assert_cmpfloat(ew, <, 5e-6);
  g_assert_cmpfloat(eth / eth2, >, 3.0);
}

/* ---- the energy balance ------------------------------------------------ */

/* E(t) + W(t) = E(0): the work friction took out equals the mechanical
 * energy lost, at every step to 1e-6 of the run's work (pendulum at h =
 * 1e-4, whose trapezoidal rule alone drifts 8e-7 J in 3 s, 8e-5 J at h =
 * 1e-3; blocks sliding and sticking at 1e-3) */
static void test_energy_balance(void)
{
  pend p = {.m = 2.0, .l = 0.4, .Ic = 0.05, .re = 0.05, .mus = 0.4, .mud = 0.3, .vt = 0.01, .eps = 1e-3};
  g_autofree char *pj = pendulum_json(&p, 1e-4, 3.0);
  g_autofree char *sj = incline_json(M_PI / 6, 1e-3, NULL);
  g_autofree char *kj = incline_json(atan(0.3), 1e-3, NULL);
  const char *jsons[] = {pj, sj, kj};
  const char *what[] = {"pendulum", "sliding block", "sticking block"};
  for (int i = 0; i < 3; i++) {
    lw_desc *d = read_ok(jsons[i]);
    run r;
    run_model(d, &r);
    double worst = 0, E0 = at(&r, 0, "E"), Wend = at(&r, r.steps, "W");
    for (long k = 1; k <= r.steps; k++)
      worst = fmax(worst, fabs(E0 - at(&r, k, "E") - at(&r, k, "W")) / Wend);
    g_test_message("%s: energy lost against friction work, worst relative gap %.3g (work %.6g J at the end)",
                   what[i], worst, at(&r, r.steps, "W"));
    g_assert_cmpfloat(at(&r, r.steps, "W"), >, 0);
    g_assert_cmpfloat(worst, <, 1e-6);
    run_clear(&r);
    lw_desc_free(d);
  }
}

/* a model without friction: no friction element, dissipated energy 0 */
static void test_no_friction_unaffected(void)
{
  lw_model *m = lwt_open("pendulum.json");
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  for (int k = 0; k < 100; k++)
    g_assert_cmpint(lw_step(m, d, NULL, &err), ==, LW_OK);
  lw_data_free(d);
  lw_model_free(m);
}

/* forward and adjoint sensitivities of a model with friction are given
 * (docs/friction.md sec. 8.5; tests/test-friction-sens.c checks them) and
 * agree */
static void test_sens_given(void)
{
  g_autofree char *json = incline_json(0.5, 1e-3, NULL);
  char *end = strrchr(json, '}');
  *end = 0;
  g_autofree char *with = g_strdup_printf(
    "%s, \"parameters\": [{\"name\": \"md\", \"value\": 0.3, \"bind\": \"joints/slide/friction/mu_d\"}],"
    " \"objectives\": [{\"name\": \"xf\", \"terms\": [{\"output\": \"x\", \"kind\": \"final\"}]}]}", json);
  lw_desc *d = read_ok(with);
  d->solver.t_end = 0.05;
  lw_model *m = lwt_compile(d);
  lw_sens_options opt;
  memset(&opt, 0, sizeof opt);
  int obj = 0, par = 0;
  opt.method = LW_SENS_FORWARD;
  opt.objectives = &obj;
  opt.nobj = 1;
  opt.params = &par;
  opt.nparams = 1;
  lw_sens_result res, adj;
  g_assert_cmpint(lw_sensitivity_model(m, &opt, &res), ==, LW_OK);
  opt.method = LW_SENS_ADJOINT;
  g_assert_cmpint(lw_sensitivity_model(m, &opt, &adj), ==, LW_OK);
  g_assert_cmpfloat(fabs(res.gradient[0]), >, 0.0);
  g_assert_cmpfloat(fabs(res.gradient[0] - adj.gradient[0]), <=, 1e-10 * fabs(adj.gradient[0]));
  lw_sens_result_clear(&res);
  lw_sens_result_clear(&adj);
  lw_model_free(m);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/friction-sim/format/roundtrip", test_format_roundtrip);
  g_test_add_func("/friction-sim/format/refusals", test_format_refusals);
  g_test_add_func("/friction-sim/format/parameter", test_format_parameter);
  g_test_add_func("/friction-sim/incline/slide", test_incline_slide);
  g_test_add_func("/friction-sim/incline/stick", test_incline_stick);
  g_test_add_func("/friction-sim/incline/spatial", test_incline_spatial);
  g_test_add_func("/friction-sim/pendulum/ode", test_pendulum_ode);
  g_test_add_func("/friction-sim/energy-balance", test_energy_balance);
  g_test_add_func("/friction-sim/no-friction", test_no_friction_unaffected);
  g_test_add_func("/friction-sim/sens-given", test_sens_given);
  return g_test_run();
}
