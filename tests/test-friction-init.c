/* test-friction-init.c: joint friction in the consistent initial
 * accelerations.  A turntable spinning on a planar revolute joint with
 * Coulomb friction (mu_s = mu_d, a preload; the slip far above v_t, where
 * the law is saturated) brakes with a constant torque from its very first
 * step, and with a viscous part its rate follows the closed form to second
 * order in the step. */
#include "lw-test.h"

#include <math.h>
#include <string.h>

static const double G = 9.81, OMEGA0 = 10, INERTIA = 1;
static const double MU = 0.1, RADIUS = 0.1, PRELOAD = 290, EPS = 0.001;

/* a 1 kg turntable of inertia 1 kg m^2 centred on its pivot, under gravity
 * in its plane (the pivot carries m g, which adds to the preload in the
 * normal force), spinning at OMEGA0 */
static char *turntable_json(double h, double viscous)
{
  return g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"turntable\", \"planar\": true, \"gravity\": [0, %.17g],\n"
    " \"solver\": {\"t_end\": 0.1, \"step\": %.17g},\n"
    " \"bodies\": [{\"name\": \"table\", \"mass\": 1, \"com\": [0, 0], \"inertia\": %.17g,\n"
    "   \"position\": [0, 0], \"angle\": 0}],\n"
    " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"table\",\n"
    "   \"point1\": [0, 0], \"point2\": [0, 0],\n"
    "   \"friction\": {\"mu_s\": %.17g, \"mu_d\": %.17g, \"v_t\": 0.01, \"radius\": %.17g,\n"
    "                \"preload\": %.17g, \"eps\": %.17g, \"viscous\": %.17g}}],\n"
    " \"initial\": [{\"joint\": \"pivot\", \"value\": 0, \"velocity\": %.17g}],\n"
    " \"outputs\": [{\"name\": \"w\", \"type\": \"joint_velocity\", \"joint\": \"pivot\"},\n"
    "   {\"name\": \"F\", \"type\": \"friction_force\", \"joint\": \"pivot\"},\n"
    "   {\"name\": \"N\", \"type\": \"normal_force\", \"joint\": \"pivot\"}]}\n",
    -G, h, INERTIA, MU, MU, RADIUS, PRELOAD, EPS, viscous, OMEGA0);
}

/* the law's torque at rate w: r_e (N mu + c_v r_e w), N = pi^3/24 |m g|_eps
 * + N0 (docs/model-format.md sec. 5a); tanh(4 r_e w / v_t) is 1 in double
 * at the rates here */
static double coulomb_torque(void)
{
  double n = pow(M_PI, 3) / 24 * sqrt(G * G + EPS * EPS) + PRELOAD;
  return RADIUS * n * MU;
}

/* the rate at t of I w' = -(a + b w): (w0 + a/b) e^(-b t / I) - a/b */
static double rate_closed_form(double t, double viscous)
{
  double a = coulomb_torque(), b = viscous * RADIUS * RADIUS;
  if (b == 0)
    return OMEGA0 - a * t / INERTIA;
  return (OMEGA0 + a / b) * exp(-b * t / INERTIA) - a / b;
}

typedef struct {
  lw_model *m;
  lw_data *d;
  int col;
} table;

static void table_open(table *tb, double h, double viscous)
{
  g_autofree char *json = turntable_json(h, viscous);
  lw_error err;
  lw_desc *desc = lw_model_read_data(json, -1, "turntable.json", NULL, &err);
  if (!desc)
    g_error("%s: %s", err.path, err.msg);
  tb->m = lwt_compile(desc);
  lw_desc_free(desc);
  tb->d = lw_data_new(tb->m);
  g_assert_nonnull(tb->d);
  if (lw_initialize(tb->m, tb->d, &err))
    g_error("%s", err.msg);
  tb->col = lwt_col(tb->m, "w") - 1; /* (lwt_col counts the time first) */
}

static double table_rate(table *tb)
{
  double out[8];
  g_assert_cmpint(lw_model_output_columns(tb->m), <=, 8);
  lw_outputs(tb->m, tb->d, out);
  return out[tb->col];
}

static void table_step(table *tb)
{
  lw_step_info info;
  lw_error err;
  if (lw_step(tb->m, tb->d, &info, &err))
    g_error("%s", err.msg);
}

static void table_close(table *tb)
{
  lw_data_free(tb->d);
  lw_model_free(tb->m);
}

/* the first step takes h T / I off the rate: the whole step's friction
 * impulse, not half of it (the trapezoidal rule averages the step's two
 * ends, and the start's acceleration is the initial one).  The rotation in
 * natural coordinates adds a drift of its own to the drop, of 5e-5 of it
 * at h w = 0.01 and growing by 1e-8 of it a step: the first drop is also
 * the straight-line extrapolation of the next two's, to round-off */
static void test_first_step(void)
{
  double h = 1e-3, T = coulomb_torque(), drop[3];
  table tb;
  table_open(&tb, h, 0);
  double w = table_rate(&tb);
  g_assert_cmpfloat(fabs(w - OMEGA0), <, 1e-12);
  for (int k = 0; k < 3; k++) {
    table_step(&tb);
    double w1 = table_rate(&tb);
    drop[k] = w - w1;
    w = w1;
  }
  double hti = h * T / INERTIA, line = 2 * drop[1] - drop[2];
  g_test_message("rate drops %.17g %.17g %.17g; h T / I %.17g (T = %.6g N m)", drop[0], drop[1], drop[2], hti, T);
  g_assert_cmpfloat(fabs(drop[0] - hti), <=, 1e-4 * hti);
  g_assert_cmpfloat(fabs(drop[0] - line), <=, 1e-12 * OMEGA0); /* the rates' round-off */
  table_close(&tb);
}

/* the rate error at t = 0.1 s against the closed form with a viscous part
 * (I w' = -(a + b w)) falls as h^2: ratios of about 4 for h halved (an
 * initial acceleration without friction leaves an O(h) error, ratio 2) */
static void test_convergence(void)
{
  const double viscous = 1000;
  double e[3];
  for (int i = 0; i < 3; i++) {
    double h = 1e-3 / (1 << i);
    table tb;
    table_open(&tb, h, viscous);
    long n = lround(0.1 / h);
    for (long k = 0; k < n; k++)
      table_step(&tb);
    e[i] = fabs(table_rate(&tb) - rate_closed_form(n * h, viscous));
    g_test_message("h = %.3g: rate error at 0.1 s %.6g", h, e[i]);
    table_close(&tb);
  }
  for (int i = 0; i < 2; i++) {
    double ratio = e[i] / e[i + 1];
    g_test_message("ratio %.4f", ratio);
    g_assert_cmpfloat(ratio, >, 3.7);
    g_assert_cmpfloat(ratio, <, 4.3);
  }
}

/* ---- sensitivities ----------------------------------------------------- */

/* a bar pendulum with pin friction launched from the bottom at 4 rad/s:
 * the pin's normal force carries the centripetal load, so the initial
 * friction depends on the multipliers as well as on the rate */
static const char *launched_json =
  "{\"linkwright\": 1, \"name\": \"launched pendulum\", \"planar\": true, \"gravity\": [0, -9.81],\n"
  " \"solver\": {\"t_end\": 0.3, \"step\": 0.001, \"tolerance\": 1e-14, \"constraint_tolerance\": 1e-12},\n"
  " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": 0.02, \"position\": [0, 0],\n"
  "   \"angle\": -1.5707963267948966, \"points\": {\"P1\": [0.5, 0]}}],\n"
  " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"bob\", \"at\": [0, 0],\n"
  "   \"friction\": {\"mu_s\": 0.5, \"mu_d\": 0.3, \"v_t\": 0.01, \"radius\": 0.05, \"viscous\": 0.2, \"preload\": 1,"
  " \"eps\": 0.01}}],\n"
  " \"initial\": [{\"joint\": \"pivot\", \"value\": -1.5707963267948966, \"velocity\": 4}],\n"
  " \"outputs\": [{\"name\": \"angle\", \"type\": \"joint_coordinate\", \"joint\": \"pivot\"},\n"
  "   {\"name\": \"w\", \"type\": \"joint_velocity\", \"joint\": \"pivot\"}],\n"
  " \"parameters\": [{\"name\": \"mass\", \"bind\": \"bodies/bob/mass\"},\n"
  "   {\"name\": \"length\", \"bind\": [\"bodies/bob/com/0\", \"bodies/bob/points/P1/0\"]},\n"
  "   {\"name\": \"mu_s\", \"bind\": \"joints/pivot/friction/mu_s\"},\n"
  "   {\"name\": \"mu_d\", \"bind\": \"joints/pivot/friction/mu_d\"},\n"
  "   {\"name\": \"r_e\", \"bind\": \"joints/pivot/friction/radius\"},\n"
  "   {\"name\": \"c_v\", \"bind\": \"joints/pivot/friction/viscous\"},\n"
  "   {\"name\": \"N0\", \"bind\": \"joints/pivot/friction/preload\"}],\n"
  " \"objectives\": [{\"name\": \"final\", \"terms\": [{\"output\": \"angle\", \"kind\": \"final\", \"form\": \"value\"}]},\n"
  "   {\"name\": \"rate\", \"terms\": [{\"output\": \"w\", \"kind\": \"final\", \"form\": \"value\"}]},\n"
  "   {\"name\": \"swing\", \"terms\": [{\"output\": \"w\", \"kind\": \"integral\", \"form\": \"square\"}]}]}\n";


/* forward = adjoint to 1e-10, and both the Richardson extrapolation of
 * central differences (steps 2 fd and fd) to fd_tol, relative per
 * component against 1e-2 of the objective's largest */
static void sens_agree(const lw_desc *d, double fd, double fd_tol)
{
  lw_sens_result f = lwt_sens_all(d, LW_SENS_FORWARD, 0, 0), a = lwt_sens_all(d, LW_SENS_ADJOINT, 0, 0),
                 c1 = lwt_sens_all(d, LW_SENS_FD, 2 * fd, 0), c2 = lwt_sens_all(d, LW_SENS_FD, fd, 0);
  int p = d->nparams;
  double efa = 0, efd = 0;
  for (int o = 0; o < d->nobjectives; o++) {
    double rowmax = 0;
    for (int j = 0; j < p; j++)
      rowmax = fmax(rowmax, fabs(a.gradient[o * p + j]));
    for (int j = 0; j < p; j++) {
      int k = o * p + j;
      double ga = a.gradient[k], gf = f.gradient[k];
      double gc = (4 * c2.gradient[k] - c1.gradient[k]) / 3;
      g_test_message("  d%s/d%s: forward %.12e adjoint %.12e differences %.12e", d->objectives[o].name,
                     d->params[j].name, gf, ga, gc);
      efa = fmax(efa, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
      efd = fmax(efd, fabs(ga - gc) / fmax(fabs(ga), 1e-2 * rowmax));
    }
  }
  g_test_message("%s: forward vs adjoint %.2e, adjoint vs central differences %.2e", d->name, efa, efd);
  g_assert_cmpfloat(efa, <=, 1e-10);
  g_assert_cmpfloat(efd, <=, fd_tol);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&c1);
  lw_sens_result_clear(&c2);
}

static lw_desc *parse(const char *json)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "test.json", NULL, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  return d;
}

/* the launched pendulum: friction from its first instant */
static void test_sens_launched(void)
{
  lw_desc *d = parse(launched_json);
  sens_agree(d, 1e-3, 1e-6);
  lw_desc_free(d);
}

/* the spinning turntable with its parameters: friction's coefficient,
 * radius, preload and viscous part, and the table's mass (its weight loads the pin) */
static void test_sens_turntable(void)
{
  g_autofree char *json = turntable_json(1e-3, 100);
  char *cut = strstr(json, " \"outputs\"");
  *cut = 0;
  g_autofree char *full = g_strdup_printf(
    "%s \"outputs\": [{\"name\": \"w\", \"type\": \"joint_velocity\", \"joint\": \"pivot\"},\n"
    "   {\"name\": \"a\", \"type\": \"joint_coordinate\", \"joint\": \"pivot\"}],\n"
    " \"parameters\": [{\"name\": \"mu\", \"bind\": [\"joints/pivot/friction/mu_s\", \"joints/pivot/friction/mu_d\"]},\n"
    "   {\"name\": \"r_e\", \"bind\": \"joints/pivot/friction/radius\"},\n"
    "   {\"name\": \"N0\", \"bind\": \"joints/pivot/friction/preload\"},\n"
    "   {\"name\": \"c_v\", \"bind\": \"joints/pivot/friction/viscous\"},\n"
    "   {\"name\": \"m\", \"bind\": \"bodies/table/mass\"}],\n"
    " \"objectives\": [{\"name\": \"rate\", \"terms\": [{\"output\": \"w\", \"kind\": \"final\", \"form\": \"value\"}]},\n"
    "   {\"name\": \"turn\", \"terms\": [{\"output\": \"a\", \"kind\": \"final\", \"form\": \"value\"}]}]}\n",
    json);
  lw_desc *d = parse(full);
  sens_agree(d, 1e-3, 1e-6);
  lw_desc_free(d);
}

/* the shipped slider-crank with slider friction, launched at -10 rad/s:
 * its first 0.1 s as test-friction-sens.c takes it (the iteration
 * converged to 1e-11) */
static void test_sens_slider_crank(void)
{
  lw_desc *d = lwt_read("slider-crank-friction.json");
  d->solver.t_end = 0.1;
  d->solver.tolerance = 1e-11;
  d->solver.constraint_tolerance = 1e-12;
  /* the differences' truncation falls below their noise near 3e-5 here */
  sens_agree(d, 3e-5, 1e-6);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/friction-init/first-step", test_first_step);
  g_test_add_func("/friction-init/convergence", test_convergence);
  g_test_add_func("/friction-init/sens/launched", test_sens_launched);
  g_test_add_func("/friction-init/sens/turntable", test_sens_turntable);
  g_test_add_func("/friction-init/sens/slider-crank", test_sens_slider_crank);
  return g_test_run();
}
