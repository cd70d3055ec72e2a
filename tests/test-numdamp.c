/* test-numdamp.c: ALI3-P's numerical damping (solver setting rho_inf, the
 * generalized-alpha method; docs/methods-numerical-damping.md): a stiff
 * spring's ringing under the trapezoidal rule and its end with damping,
 * second order with damping, the default bit for bit unchanged, the spectral
 * radius on a stiff linear spring, exact sensitivities (forward = adjoint,
 * both against central differences) and the settings it refuses. */
#include "lw-test.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

/* a 1 kg block on a slide along x, held by a spring 1e7 N/m (1e6 times
 * stiffer than its weight needs to stretch it 1 mm) with a damper of
 * 1000 N s/m, under gravity 9.81 m/s^2 along the slide; the spring starts
 * 1e-4 m too long (1000 N): the exact motion settles within about 0.02 s
 * (period 2 ms, damping ratio 0.16) at the weight, 9.81 N */
static const char *stiff_json =
  "{\"linkwright\": 1, \"name\": \"Stiff spring\", \"planar\": true, \"gravity\": [9.81, 0],"
  " \"solver\": {\"t_end\": 3, \"step\": 0.01},"
  " \"bodies\": [{\"name\": \"bob\", \"mass\": 1.0, \"com\": [0, 0], \"inertia\": 0.01, \"position\": [1, 0],"
  "   \"angle\": 0, \"points\": {\"top\": [0, 0]}}],"
  " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"bob\","
  "   \"at\": [1, 0]}],"
  " \"forces\": [{\"name\": \"spring\", \"type\": \"spring_damper\", \"body1\": \"ground\", \"point1\": [0, 0],"
  "   \"body2\": \"bob\", \"point2\": \"top\", \"stiffness\": 1e7, \"damping\": 1000, \"rest_length\": 0.9999}],"
  " \"outputs\": [{\"name\": \"force\", \"type\": \"spring_force\", \"force\": \"spring\"},"
  "   {\"name\": \"y\", \"type\": \"position\", \"body\": \"bob\", \"point\": \"top\"}],"
  " \"parameters\": [{\"name\": \"k\", \"bind\": \"forces/spring/stiffness\"},"
  "   {\"name\": \"c\", \"bind\": \"forces/spring/damping\"}, {\"name\": \"m\", \"bind\": \"bodies/bob/mass\"}],"
  " \"objectives\": [{\"name\": \"fsq\", \"terms\": [{\"output\": \"force\", \"kind\": \"integral\","
  "   \"form\": \"square\", \"target\": [9.81]}]},"
  "   {\"name\": \"xend\", \"terms\": [{\"output\": \"y\", \"kind\": \"final\", \"form\": \"value\", \"component\": 0,"
  "   \"target\": [0, 0]}]}]}";

static lw_desc *stiff_desc(void)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(stiff_json, -1, "stiff.json", NULL, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  return d;
}

/* the compiled model with the spectral radius rho */
static lw_model *with_rho(lw_desc *d, double rho)
{
  d->solver.rho_inf = rho;
  return lwt_compile(d);
}

/* the state after n steps of h from the consistent start */
static lw_data *run_steps(lw_model *m, double h, long n)
{
  lw_error err;
  g_assert_cmpint(lw_model_set_step(m, h, &err), ==, LW_OK);
  lw_data *d = lw_data_new(m);
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  for (long k = 0; k < n; k++) {
    lw_step_info info;
    if (lw_step(m, d, &info, &err) != LW_OK)
      g_error("step %ld: %s", k, err.msg);
  }
  return d;
}

static double max_diff(const double *a, const double *b, int n)
{
  double e = 0;
  for (int i = 0; i < n; i++)
    e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

/* ---- ringing ---------------------------------------------------------- */

/* the spring force's sign changes over the run at h = 0.01, the time of
 * the last one and the force's largest distance from the weight over the
 * last second */
static void ringing(double rho, int *changes, double *last, double *spread)
{
  lw_desc *d = stiff_desc();
  lw_model *m = with_rho(d, rho);
  lw_sim_result r;
  g_assert_cmpint(lw_simulate(m, 3.0, 0.01, &r, NULL, NULL), ==, LW_OK);
  int col = lwt_col(m, "force");
  *changes = 0;
  *last = 0;
  *spread = 0;
  for (long k = 1; k < r.rows; k++) {
    double a = lwt_at(&r, k - 1, col), b = lwt_at(&r, k, col);
    if (a * b < 0) {
      (*changes)++;
      *last = lwt_at(&r, k, 0);
    }
    if (lwt_at(&r, k, 0) >= 2.0)
      *spread = fmax(*spread, fabs(b - 9.81));
  }
  g_test_message("rho_inf %g: %d sign changes of the spring force, the last at t = %g s; over the last second "
                 "|F - mg| <= %.3g N",
                 rho, *changes, *last, *spread);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* the trapezoidal rule rings (the force alternates in sign from step to
 * step for seconds and still swings at the end); damping settles it */
static void test_ringing(void)
{
  int n1, n5, n8;
  double t1, t5, t8, s1, s5, s8;
  ringing(1.0, &n1, &t1, &s1);
  g_assert_cmpint(n1, >, 100);
  g_assert_cmpfloat(t1, >, 1.0);
  g_assert_cmpfloat(s1, >, 1.0);
  ringing(0.5, &n5, &t5, &s5);
  g_assert_cmpint(n5, <=, 12);
  g_assert_cmpfloat(t5, <, 0.15);
  g_assert_cmpfloat(s5, <, 1e-6);
  ringing(0.8, &n8, &t8, &s8);
  g_assert_cmpint(n8, <, 40);
  g_assert_cmpfloat(t8, <, 0.5);
  g_assert_cmpfloat(s8, <, 1e-6);
}

/* the spectral radius: the stiff spring's free oscillation about its rest
 * (no gravity, no damper: omega h = 31.6) shrinks by about rho_inf a step,
 * not at all without damping */
static void test_spectral_radius(void)
{
  const double rhos[3] = {1.0, 0.8, 0.5};
  for (int k = 0; k < 3; k++) {
    lw_desc *d = stiff_desc();
    d->gravity[0] = 0;
    d->forces[0].damping = 0;
    d->params[1].value = 0; /* the parameter c binds it */
    d->solver.tolerance = 1e-14;
    lw_model *m = with_rho(d, rhos[k]);
    lw_sim_result r;
    g_assert_cmpint(lw_simulate(m, 0.7, 0.01, &r, NULL, NULL), ==, LW_OK);
    int col = lwt_col(m, "force");
    /* the largest |F| over two windows of w steps (w = 30: undamped, the
     * samples' phase, pi - 0.126 a step, sweeps past pi in each).  The
     * method's roots at infinite frequency are a double -rho_inf, so that
     * the amplitude goes as (A + B n) rho^n with rho a little above
     * rho_inf at omega h = 31.6 (0.87 for 0.8, 0.58 for 0.5): the rate
     * measured lies above rho_inf, well below 1 */
    int w = 30;
    double a1 = 0, a2 = 0;
    for (long i = 1; i <= w; i++) {
      a1 = fmax(a1, fabs(lwt_at(&r, i, col)));
      a2 = fmax(a2, fabs(lwt_at(&r, i + w, col)));
    }
    double rate = pow(a2 / a1, 1.0 / w);
    g_test_message("rho_inf %g: the amplitude shrinks by %.4f a step", rhos[k], rate);
    if (rhos[k] == 1.0)
      g_assert_cmpfloat(fabs(rate - 1.0), <, 1e-4);
    else
    {
      g_assert_cmpfloat(rate, >, rhos[k] - 0.01);
      g_assert_cmpfloat(rate, <, rhos[k] + 0.12);
    }
    lw_sim_result_clear(&r);
    lw_model_free(m);
    lw_desc_free(d);
  }
}

/* ---- order ------------------------------------------------------------ */

/* step halving: the final state's error against h/16 falls by 4 per
 * halving for the positions and velocities; the multipliers' ratios into
 * lr (the Newton iteration's lambda, of the unprojected acceleration, is
 * first order with and without damping) */
static void check_order(const char *file, double rho, double t, double lr[2])
{
  lw_desc *dd = lwt_read(file);
  lw_model *m = with_rho(dd, rho);
  int nq = lw_model_nq(m), nc = lw_model_nc(m);
  double h0 = 4e-3;
  lw_data *ref = run_steps(m, h0 / 16, (long)(t / (h0 / 16) + 0.5));
  double e[3][3];
  for (int k = 0; k < 3; k++) {
    double h = h0 / (1 << k);
    lw_data *d = run_steps(m, h, (long)(t / h + 0.5));
    g_assert_cmpfloat(fabs(lw_data_time(d) - t), <, 1e-12);
    e[k][0] = max_diff(lw_data_q(d), lw_data_q(ref), nq);
    e[k][1] = max_diff(lw_data_qd(d), lw_data_qd(ref), nq);
    e[k][2] = max_diff(lw_data_lambda(d), lw_data_lambda(ref), nc);
    g_test_message("%s rho_inf %g h = %g: |dq| %.3e |dqd| %.3e |dlambda| %.3e", file, rho, h, e[k][0], e[k][1],
                   e[k][2]);
    lw_data_free(d);
  }
  for (int k = 0; k < 2; k++)
    for (int c = 0; c < 3; c++) {
      /* against h/16 the ratio of second order is (1 - 1/4^k ...) about 4 */
      double ratio = e[k][c] / e[k + 1][c];
      g_test_message("ratio %d,%d: %.2f", k, c, ratio);
      if (c == 2)
        lr[k] = ratio;
      if (c < 2) {
        g_assert_cmpfloat(ratio, >, 3.3);
        g_assert_cmpfloat(ratio, <, 5.5);
      }
    }
  lw_data_free(ref);
  lw_model_free(m);
  lw_desc_free(dd);
}

/* at rho_inf 0.8 and 0.5, and at 1 for the multipliers' order: damping
 * lowers it no further (their ratios within 10 % of the undamped) */
static void check_orders(const char *file)
{
  double l1[2], l8[2], l5[2];
  check_order(file, 1.0, 1.0, l1);
  check_order(file, 0.8, 1.0, l8);
  check_order(file, 0.5, 1.0, l5);
  for (int k = 0; k < 2; k++) {
    g_assert_cmpfloat(l8[k], >, 0.9 * l1[k]);
    g_assert_cmpfloat(l5[k], >, 0.9 * l1[k]);
  }
}

static void test_order_pendulum(void) { check_orders("pendulum.json"); }

static void test_order_five_bar(void) { check_orders("five-bar.json"); }

/* ---- the default unchanged ------------------------------------------- */

/* rho_inf = 1 (the default, also given explicitly, written back and read)
 * steps bit for bit as a model without the setting; a value just below 1
 * is read and changes the result */
static void test_default_identical(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  g_assert_cmpfloat(d->solver.rho_inf, ==, 1.0);
  lw_model *m0 = lwt_compile(d);
  d->solver.rho_inf = 1.0;
  g_autofree char *path = g_build_filename(g_get_tmp_dir(), "lw-numdamp-five-bar.json", NULL);
  g_assert_true(lw_model_write_file(d, path, NULL));
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_assert_null(strstr(text, "rho_inf")); /* the default is left unsaid */
  d->solver.rho_inf = 0.999999;
  g_assert_true(lw_model_write_file(d, path, NULL));
  lw_error err;
  lw_desc *d2 = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(d2);
  g_assert_cmpfloat(d2->solver.rho_inf, ==, 0.999999);
  lw_model *m2 = lwt_compile(d2);
  g_remove(path);
  int nq = lw_model_nq(m0);
  lw_data *a = run_steps(m0, 1e-3, 500);
  lw_opt o = *lw_model_opt(m0);
  o.rho_inf = 1.0;
  g_assert_cmpint(lw_model_set_opt(m0, &o, &err), ==, LW_OK);
  lw_data *b = run_steps(m0, 1e-3, 500);
  lw_data *c = run_steps(m2, 1e-3, 500);
  g_assert_cmpint(memcmp(lw_data_q(a), lw_data_q(b), sizeof(double) * (size_t)nq), ==, 0);
  g_assert_cmpint(memcmp(lw_data_qd(a), lw_data_qd(b), sizeof(double) * (size_t)nq), ==, 0);
  g_assert_cmpint(memcmp(lw_data_qdd(a), lw_data_qdd(b), sizeof(double) * (size_t)nq), ==, 0);
  g_assert_cmpfloat(max_diff(lw_data_q(a), lw_data_q(c), nq), >, 0.0);
  g_assert_cmpfloat(max_diff(lw_data_q(a), lw_data_q(c), nq), <, 1e-4);
  lw_data_free(a);
  lw_data_free(b);
  lw_data_free(c);
  lw_model_free(m0);
  lw_model_free(m2);
  lw_desc_free(d);
  lw_desc_free(d2);
}

/* ---- sensitivities ---------------------------------------------------- */

/* forward against adjoint (<= 1e-8) and against central differences of
 * the whole run (step fd_step, <= fd_tol) for every parameter and
 * objective of d at rho_inf rho, per component; a component far below its
 * objective's largest is measured against 1e-3 (forward, adjoint) or 1e-2
 * (differences) of it.  The Newton iteration is converged to round-off, so
 * that the differences see where it stops; the forward runs on one thread
 * and on two (the stepping thread's states); fd_step 0: no differences */
static void agree(lw_desc *d, double rho, double fd_step, double fd_tol)
{
  d->solver.rho_inf = rho;
  d->solver.tolerance = 1e-14;
  d->solver.constraint_tolerance = 1e-12;
  int p = d->nparams, no = d->nobjectives;
  g_autofree int *params = g_new(int, p), *objs = g_new(int, no);
  for (int j = 0; j < p; j++)
    params[j] = j;
  for (int o = 0; o < no; o++)
    objs[o] = o;
  lw_sens_result r[4];
  lw_sens_method methods[4] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD, LW_SENS_FORWARD};
  memset(r, 0, sizeof r);
  for (int k = 0; k < 4; k++) {
    if (k == 2 && fd_step == 0)
      continue;
    lw_sens_options opt = {.method = methods[k], .nparams = p, .params = params, .nobj = no, .objectives = objs,
                           .fd_step = fd_step, .threads = k == 3 ? 1 : 0};
    if (lw_sensitivity(d, &opt, &r[k]) != LW_OK)
      g_error("%s %d: %s", d->name, k, r[k].error.msg);
  }
  double efa = 0, efd = 0, eft = 0;
  for (int o = 0; o < no; o++) {
    g_assert_cmpfloat(fabs(r[0].value[o] - r[1].value[o]), <=, 1e-14 * (1 + fabs(r[1].value[o])));
    double rowmax = 0;
    for (int j = 0; j < p; j++)
      rowmax = fmax(rowmax, fabs(r[1].gradient[o * p + j]));
    g_assert_cmpfloat(rowmax, >, 0.0);
    for (int j = 0; j < p; j++) {
      double gf = r[0].gradient[o * p + j], ga = r[1].gradient[o * p + j];
      g_test_message("%s %s / %s: forward %.12g adjoint %.12g differences %.12g", d->name, d->objectives[o].name,
                     d->params[j].name, gf, ga, fd_step > 0 ? r[2].gradient[o * p + j] : NAN);
      efa = fmax(efa, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
      eft = fmax(eft, fabs(ga - r[3].gradient[o * p + j]) / fmax(fabs(ga), 1e-3 * rowmax));
      if (fd_step > 0)
        efd = fmax(efd, fabs(ga - r[2].gradient[o * p + j]) / fmax(fabs(ga), 1e-2 * rowmax));
    }
  }
  g_test_message("%s rho_inf %g (%ld steps, %d parameters): forward vs adjoint %.2e (one thread %.2e), adjoint vs "
                 "central differences (step %g) %.2e",
                 d->name, rho, r[1].steps, p, efa, eft, fd_step, efd);
  g_assert_cmpfloat(efa, <=, 1e-8);
  g_assert_cmpfloat(eft, <=, 1e-8);
  g_assert_cmpfloat(efd, <=, fd_tol);
  for (int k = 0; k < 4; k++)
    if (k != 2 || fd_step > 0)
      lw_sens_result_clear(&r[k]);
}

static void test_sens_five_bar(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  d->solver.t_end = 1.0;
  /* the differences' own error on the five-bar is some 1e-5 of the
   * largest component with or without damping (tests/test-sens.c allows
   * 1e-4) */
  agree(d, 0.8, 1e-5, 1e-5);
  agree(d, 0.5, 1e-5, 1e-5);
  /* small steps, where the carry's increment form keeps forward and
   * adjoint together (3000 steps of 1e-4 s) */
  d->solver.t_end = 0.3;
  d->solver.step = 1e-4;
  agree(d, 0.8, 0, 0);
  lw_desc_free(d);
}

static void test_sens_stiff(void)
{
  lw_desc *d = stiff_desc();
  d->solver.t_end = 0.5;
  agree(d, 0.5, 1e-5, 1e-5);
  agree(d, 0.8, 1e-5, 1e-5);
  lw_desc_free(d);
}

static void test_sens_pendulum(void)
{
  lw_desc *d = lwt_read("pendulum.json");
  d->solver.t_end = 1.0;
  /* the bob's 1e-8 kg m^2 makes the differences' error on d load / d mass
   * 2.4e-5 without damping, 1.7e-5 with (tests/test-sens.c allows 1e-4) */
  agree(d, 0.6, 1e-5, 1e-4);
  lw_desc_free(d);
}

/* ---- refusals --------------------------------------------------------- */

/* compiling d refuses with a message on solver/rho_inf that holds what */
static void refused(lw_desc *d, const char *what)
{
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  g_assert_null(m);
  g_test_message("%s: %s", err.path, err.msg);
  g_assert_cmpstr(err.path, ==, "solver/rho_inf");
  g_assert_nonnull(strstr(err.msg, what));
}

/* out of range, another integrator, the tolerance mode, joint friction,
 * events; and on a compiled model the options stay as they were */
static void test_refusals(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  d->solver.rho_inf = 1.5;
  refused(d, "between 0 and 1");
  d->solver.rho_inf = -0.1;
  refused(d, "between 0 and 1");
  d->solver.rho_inf = NAN;
  refused(d, "between 0 and 1");
  d->solver.rho_inf = 0.5;
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "variational");
  refused(d, "ali3p integrator");
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "ali3p");
  d->solver.mode = LW_MODE_TOLERANCE;
  refused(d, "tolerance mode");
  d->solver.mode = LW_MODE_STEP;
  lw_model *m = lwt_compile(d); /* rho_inf 0.5 alone is fine */
  lw_opt o = *lw_model_opt(m);
  o.mode = LW_MODE_TOLERANCE;
  lw_error err;
  g_assert_cmpint(lw_model_set_opt(m, &o, &err), ==, LW_ERR_MODEL);
  g_assert_cmpstr(err.path, ==, "solver/rho_inf");
  g_assert_cmpint(lw_model_opt(m)->mode, ==, LW_MODE_STEP);
  g_assert_cmpfloat(lw_model_opt(m)->rho_inf, ==, 0.5);
  lw_model_free(m);
  lw_desc_free(d);

  d = lwt_read("slider-crank-friction.json");
  d->solver.rho_inf = 0.5;
  refused(d, "joint friction");
  lw_desc_free(d);
  d = lwt_read("bouncing-ball.json");
  d->solver.rho_inf = 0.5;
  refused(d, "events");
  lw_desc *db = lwt_read("bouncing-ball.json");
  lw_model *mb = lwt_compile(db);
  o = *lw_model_opt(mb);
  o.rho_inf = 0.5;
  g_assert_cmpint(lw_model_set_opt(mb, &o, &err), ==, LW_ERR_MODEL);
  g_assert_nonnull(strstr(err.msg, "events"));
  g_assert_cmpfloat(lw_model_opt(mb)->rho_inf, ==, 1.0);
  lw_model_free(mb);
  lw_desc_free(db);
  lw_desc_free(d);
}

/* the command line's --rho-inf: taken by simulate, refused out of range
 * with the compiler's message (exit 2) */
static void test_cli(void)
{
  g_autofree char *model = g_build_filename(LW_MODELS_DIR, "five-bar.json", NULL);
  g_autofree char *out = NULL, *errs = NULL;
  int status = 0;
  const char *argv[] = {LW_CLI, "simulate", model, "--t-end", "0.05", "--rho-inf", "0.6", "--json", NULL};
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, 0, NULL, NULL, &out, &errs, &status, NULL));
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_assert_nonnull(strstr(out, "\"status\": \"ok\""));
  g_clear_pointer(&out, g_free);
  g_clear_pointer(&errs, g_free);
  argv[6] = "1.2";
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, 0, NULL, NULL, &out, &errs, &status, NULL));
  g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 2);
  g_assert_nonnull(strstr(out, "rho_inf"));
  g_clear_pointer(&out, g_free);
  g_clear_pointer(&errs, g_free);
  argv[6] = "x";
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, 0, NULL, NULL, &out, &errs, &status, NULL));
  g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  g_assert_nonnull(strstr(errs, "--rho-inf needs a number"));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/numdamp/ringing", test_ringing);
  g_test_add_func("/numdamp/spectral-radius", test_spectral_radius);
  g_test_add_func("/numdamp/order/pendulum", test_order_pendulum);
  g_test_add_func("/numdamp/order/five-bar", test_order_five_bar);
  g_test_add_func("/numdamp/default-identical", test_default_identical);
  g_test_add_func("/numdamp/sens/five-bar", test_sens_five_bar);
  g_test_add_func("/numdamp/sens/stiff-spring", test_sens_stiff);
  g_test_add_func("/numdamp/sens/pendulum", test_sens_pendulum);
  g_test_add_func("/numdamp/refusals", test_refusals);
  g_test_add_func("/numdamp/cli", test_cli);
  return g_test_run();
}
