/* The reconstructed double-wishbone suspension (tests/data/suspension.json,
 * seed 001 Sec. 6.3; docs/suspension.md): the model loads with its 60
 * design variables and runs its 3 s; forward and adjoint gradients of the
 * objective and of the stress constraint agree to 1e-8 and with central
 * differences (a shortened horizon); the wheels start at the drivers'
 * rates; the stress constraint's value is the
 * integral of the beams' stresses beyond the limit, those stresses being
 * E times the axial strain; and the weld between two beams at an angle
 * holds under any rotation of the pair. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_rows.h"
#include "lw_opt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define YOUNG 2e11
#define AREA (M_PI / 4 * (0.03 * 0.03 - 0.02 * 0.02))

static lw_desc *read_suspension(void)
{
  g_autofree char *path = g_build_filename(LW_SOURCE_ROOT, "tests", "data", "suspension.json", NULL);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  return d;
}

/* the stress constraint's limit set to sigma (Pa) on both sides */
static void set_stress_limit(lw_desc *d, double sigma)
{
  lw_objective_desc *o = &d->objectives[lw_desc_objective_index(d, "stress")];
  for (int k = 0; k < o->nterms; k++)
    o->terms[k].target[0] = (o->terms[k].form == LW_TERM_ABOVE ? 1 : -1) * sigma * AREA;
}

static void test_load_and_run(void)
{
  lw_desc *d = read_suspension();
  int pi = lw_desc_problem_index(d, "suspension");
  g_assert_cmpint(pi, >=, 0);
  int *params = NULL;
  double *lo = NULL, *hi = NULL, *sc = NULL;
  lw_error err;
  int n = lw_opt_variables(d, &d->problems[pi], &params, &lo, &hi, &sc, &err);
  g_assert_cmpint(n, ==, 60);
  /* Table 1's first and last rows */
  g_assert_cmpfloat(d->params[params[0]].value, ==, -1.270);
  g_assert_cmpfloat(lo[0], ==, -1.350);
  g_assert_cmpfloat(hi[59], ==, 1000);
  free(params), free(lo), free(hi), free(sc);
  g_assert_cmpint(d->nbeams, ==, 16);
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  /* under the sanitizers the first 0.3 s (the front wheels' first rise) */
  double t_end = LW_UNDER_SANITIZERS ? 0.3 : d->solver.t_end;
  if (lw_simulate(m, t_end, d->solver.step, &r, NULL, NULL) != LW_OK)
    g_error("%s", r.error.msg);
  g_assert_cmpint(r.rows, ==, lround(t_end / d->solver.step) + 1);
  int cz = lwt_col(m, "cm.z"), c5 = lwt_col(m, "force5_root");
  double zmax = -1, fmax5 = 0;
  for (long k = 0; k < r.rows; k++) {
    zmax = fmax(zmax, lwt_at(&r, k, cz));
    fmax5 = fmax(fmax5, fabs(lwt_at(&r, k, c5)));
  }
  g_test_message("%g s: chassis centre of mass up to z = %.4f m; beam 5's largest axial stress %.3g MPa", t_end,
                 zmax, fmax5 / AREA * 1e-6);
  /* the wheels move the chassis up (the front 0.05 m, the rear 0.075 m) */
  g_assert_cmpfloat(zmax, >, 0.365 + 0.02);
  g_assert_cmpfloat(zmax, <, 0.365 + 0.2);
  g_assert_cmpfloat(fmax5, >, 0);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* forward, adjoint and central differences of objective `obj`; under the
 * sanitizers forward and adjoint only (the differences are plain runs,
 * checked for memory with every other test) */
#define NMETHODS (LW_UNDER_SANITIZERS ? 2 : 3)
static void gradients(const lw_desc *d, int obj, int np, const int *params, double g[3][8], double *value)
{
  lw_sens_method methods[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  for (int k = 0; k < NMETHODS; k++) {
    lw_sens_options opt = {.method = methods[k], .nparams = np, .params = params, .nobj = 1, .objectives = &obj,
                           .threads = 1, .fd_step = k == 2 ? 1e-5 : 0.0};
    lw_sens_result r;
    if (lw_sensitivity(d, &opt, &r) != LW_OK)
      g_error("%s: %s", lw_sens_method_name(methods[k]), r.error.msg);
    for (int j = 0; j < np; j++)
      g[k][j] = r.gradient[j];
    *value = r.value[0];
    lw_sens_result_clear(&r);
  }
}

/* design variables that move a beam's chassis end (X1, Y6, Z8, X13) and
 * ones that do not (the shock's top Z17, Z18, a stiffness, a damping).
 * The beam-start ones differed from the differences by 6e-4 while the
 * ALI3-P projections stopped short of converging (the Newton matrix's beam
 * stiffness as their preconditioner) */
static const char *const subset[8] = {"X1", "Y6", "Z8", "X13", "Z17", "Z18", "k2", "c1"};

static void check_gradients(const char *objective, double sigma)
{
  lw_desc *d = read_suspension();
  d->solver.t_end = 0.04;
  if (sigma > 0)
    set_stress_limit(d, sigma);
  int params[8], obj = lw_desc_objective_index(d, objective);
  for (int j = 0; j < 8; j++)
    g_assert_cmpint(params[j] = lw_desc_param_index(d, subset[j]), >=, 0);
  double g[3][8] = {{0}}, value;
  gradients(d, obj, 8, params, g, &value);
  g_assert_cmpfloat(value, >, 0);
  for (int j = 0; j < 8; j++) {
    g_test_message("%s = %.6g: d/d %s: forward %.12g adjoint %.12g differences %.12g (%.2g)", objective, value,
                   subset[j], g[0][j], g[1][j], g[2][j], fabs(g[0][j] - g[2][j]) / fabs(g[2][j]));
    g_assert_cmpfloat(fabs(g[0][j] - g[1][j]), <=, 1e-8 * fabs(g[0][j]) + 1e-14 * value);
    if (LW_UNDER_SANITIZERS)
      continue;
    /* the floor: what the differences resolve at this step (Z17 moves the
     * shock's top and its rest length together and changes almost
     * nothing: 5e-7 of the value per metre) */
    g_assert_cmpfloat(fabs(g[0][j] - g[2][j]), <=, 1e-4 * fabs(g[2][j]) + 1e-5 * value);
  }
  lw_desc_free(d);
}

static void test_objective_gradient(void) { check_gradients("dCM", 0); }

/* the stress limit lowered to 2 MPa so that the constraint is active */
static void test_stress_gradient(void) { check_gradients("stress", 2e6); }

/* the constraint's value is the trapezoidal integral of the squared
 * stresses beyond the limit, the stresses being E eps */
static void test_stress_values(void)
{
  lw_desc *d = read_suspension();
  d->solver.t_end = 0.04;
  double sigma = 2e6;
  set_stress_limit(d, sigma);
  /* the strain where each force output is */
  int nf = d->noutputs;
  for (int k = 0; k < nf; k++)
    if (d->outputs[k].type == LW_OUT_BEAM_FORCE) {
      lw_output_desc o = d->outputs[k];
      char name[64];
      snprintf(name, sizeof name, "%s_strain", o.name);
      lw_output_desc *s = lw_desc_add_output(d, name, LW_OUT_BEAM_STRAIN);
      s->body = strdup(o.body);
      memcpy(&s->place, &o.place, sizeof s->place);
      s->place.ref = NULL;
    }
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  if (lw_simulate(m, d->solver.t_end, d->solver.step, &r, NULL, NULL) != LW_OK)
    g_error("%s", r.error.msg);
  double integral = 0, worst = 0, smax = 0;
  int nforce = 0;
  for (int k = 0; k < nf; k++) {
    if (d->outputs[k].type != LW_OUT_BEAM_FORCE)
      continue;
    nforce++;
    char name[64];
    snprintf(name, sizeof name, "%s_strain", d->outputs[k].name);
    int cf = lwt_col(m, d->outputs[k].name), ce = lwt_col(m, name);
    for (long i = 0; i < r.rows; i++) {
      double s = lwt_at(&r, i, cf) / AREA, se = YOUNG * lwt_at(&r, i, ce);
      worst = fmax(worst, fabs(s - se));
      smax = fmax(smax, fabs(s));
      double ex = s > sigma ? s - sigma : s < -sigma ? s + sigma : 0;
      double h = lwt_at(&r, i < r.rows - 1 ? i + 1 : i, 0) - lwt_at(&r, i > 0 ? i - 1 : i, 0);
      integral += 0.5 * h * ex * ex;
    }
  }
  g_assert_cmpint(nforce, ==, 32);
  int obj = lw_desc_objective_index(d, "stress");
  lw_sens_options opt = {.method = LW_SENS_VALUE, .nobj = 1, .objectives = &obj};
  lw_sens_result sr;
  if (lw_sensitivity(d, &opt, &sr) != LW_OK)
    g_error("%s", sr.error.msg);
  g_test_message("largest stress %.4g MPa; force / A against E eps: %.3g Pa; constraint %.10g, from the outputs %.10g",
                 smax * 1e-6, worst, sr.value[0], integral);
  g_assert_cmpfloat(smax, >, sigma);
  g_assert_cmpfloat(worst, <=, 1e-9 * smax);
  g_assert_cmpfloat(fabs(sr.value[0] - integral), <=, 1e-9 * integral);
  /* at the paper's 400 MPa nothing is beyond the limit */
  set_stress_limit(d, 400e6);
  lw_sens_result_clear(&sr);
  if (lw_sensitivity(d, &opt, &sr) != LW_OK)
    g_error("%s", sr.error.msg);
  g_assert_cmpfloat(sr.value[0], ==, 0);
  lw_sens_result_clear(&sr);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* the wheels start at the drivers' rates A omega (the initial velocity
 * problem stopped after three passes, 1.5e-5 short of them) */
static void test_initial_velocity(void)
{
  lw_desc *d = read_suspension();
  d->solver.t_end = 0.001;
  const char *drive[4] = {"drive_FR", "drive_RR", "drive_RL", "drive_FL"};
  const double rate[4] = {0.05 * 2 * M_PI, 0.075 * 4 * M_PI, 0.075 * 4 * M_PI, 0.05 * 2 * M_PI};
  for (int k = 0; k < 4; k++) {
    lw_output_desc *o = lw_desc_add_output(d, drive[k], LW_OUT_JOINT_VELOCITY);
    o->joint = strdup(drive[k]);
  }
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  if (lw_simulate(m, d->solver.t_end, d->solver.step, &r, NULL, NULL) != LW_OK)
    g_error("%s", r.error.msg);
  for (int k = 0; k < 4; k++) {
    double v = lwt_at(&r, 0, lwt_col(m, drive[k]));
    g_test_message("%s: rate at t = 0 %.15g (A omega %.15g)", drive[k], v, rate[k]);
    g_assert_cmpfloat(fabs(v - rate[k]), <=, 1e-10 * rate[k]);
  }
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* two beams welded at their common end at 90 degrees, pinned there to the
 * ground: turned as a whole about the pin, the weld's equations stay met */
static void test_weld_rotation(void)
{
  const char *json =
    "{\"linkwright\": 1, \"name\": \"vee\", \"gravity\": [0, 0, 0],"
    " \"beams\": [{\"name\": \"a\", \"elements\": 1, \"start\": [1, 1, 0], \"end\": [0, 0, 0], \"young\": 2e11,"
    "  \"density\": 7800, \"section\": \"tube\", \"size\": [0.03, 0.02]},"
    " {\"name\": \"b\", \"elements\": 1, \"start\": [1, -1, 0], \"end\": [0, 0, 0], \"young\": 2e11,"
    "  \"density\": 7800, \"section\": \"tube\", \"size\": [0.03, 0.02]}],"
    " \"joints\": [{\"name\": \"weld\", \"type\": \"fixed\", \"body1\": \"a\", \"body2\": \"b\", \"at\": [0, 0, 0]},"
    "  {\"name\": \"pin\", \"type\": \"spherical\", \"body1\": \"ground\", \"body2\": \"a\", \"at\": [0, 0, 0]}]}";
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "vee", NULL, &err);
  g_assert_nonnull(d);
  lw_model *m = lwt_compile(d);
  lw_data *dd = lw_data_new(m);
  double *q = g_new(double, m->nq);
  /* every coordinate triple (positions and slopes) turned by 90 degrees about x, then 40 about z */
  double cx = cos(M_PI / 2), sx = sin(M_PI / 2), cz = cos(0.7), sz = sin(0.7);
  for (int i = 0; i + 2 < m->nq; i += 3) {
    const double *v = m->q0 + i;
    double w[3] = {v[0], cx * v[1] - sx * v[2], sx * v[1] + cx * v[2]};
    q[i] = cz * w[0] - sz * w[1], q[i + 1] = sz * w[0] + cz * w[1], q[i + 2] = w[2];
  }
  lw_rows_eval(m, dd, m->q0, 0, 0);
  double r0 = 0, r1 = 0;
  for (int r = 0; r < m->nc; r++)
    r0 = fmax(r0, fabs(dd->phi[r]));
  lw_rows_eval(m, dd, q, 0, 0);
  for (int r = 0; r < m->nc; r++)
    r1 = fmax(r1, fabs(dd->phi[r]));
  g_test_message("weld of two beams at 90 degrees: largest residual %.3g at the start, %.3g turned", r0, r1);
  g_assert_cmpfloat(r0, <, 1e-14);
  g_assert_cmpfloat(r1, <, 1e-14);
  g_free(q);
  lw_data_free(dd);
  lw_model_free(m);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/suspension/weld-rotation", test_weld_rotation);
  g_test_add_func("/suspension/initial-velocity", test_initial_velocity);
  g_test_add_func("/suspension/stress-values", test_stress_values);
  g_test_add_func("/suspension/objective-gradient", test_objective_gradient);
  g_test_add_func("/suspension/stress-gradient", test_stress_gradient);
  g_test_add_func("/suspension/load-and-run", test_load_and_run);
  return g_test_run();
}
