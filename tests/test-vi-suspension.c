/* The variational integrator (integ/vi_step.c) on the double-wishbone
 * suspension (tests/data/suspension.json): steel tubes of one element
 * whose bending and stretching the model's step of 1 ms does not resolve.
 * It runs the whole 3 s at that step, its chassis going as ALI3-P's; and
 * its forward and discrete-adjoint sensitivities (sens/sens_vi.c) agree
 * with each other to 1e-8 and with central differences. */
#include "lw-test.h"

#include <math.h>
#include <stdio.h>

static lw_desc *read_suspension(const char *integrator)
{
  g_autofree char *path = g_build_filename(LW_SOURCE_ROOT, "tests", "data", "suspension.json", NULL);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "%s", integrator);
  return d;
}

/* the chassis's centre of mass height at row k of a run to t_end */
static lw_sim_result run(const lw_desc *d, lw_model **m, double t_end)
{
  *m = lwt_compile(d);
  lw_sim_result r;
  if (lw_simulate(*m, t_end, d->solver.step, &r, NULL, NULL) != LW_OK)
    g_error("%s: %s", d->solver.integrator, r.error.msg);
  return r;
}

/* the whole 3 s at the model's step (the steps from the full predictor
 * took the beams' slopes 0.1 to 0.5 off and went to a spurious root at
 * t = 0.201 s, then failed); at 0.3 s the chassis is where ALI3-P puts it */
static void test_run(void)
{
  lw_desc *d = read_suspension("variational");
  lw_model *m;
  /* under the sanitizers through the old failure to 0.3 s only */
  double t_end = LW_UNDER_SANITIZERS ? 0.3 : d->solver.t_end;
  lw_sim_result r = run(d, &m, t_end);
  g_assert_cmpint(r.rows, ==, lround(t_end / d->solver.step) + 1);
  int cz = lwt_col(m, "cm.z");
  double zmin = INFINITY, zmax = -INFINITY;
  for (long k = 0; k < r.rows; k++) {
    zmin = fmin(zmin, lwt_at(&r, k, cz));
    zmax = fmax(zmax, lwt_at(&r, k, cz));
  }
  double z300 = lwt_at(&r, 300, cz);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc *da = read_suspension("ali3p");
  lw_model *ma;
  lw_sim_result ra = run(da, &ma, 0.3);
  double za = lwt_at(&ra, 300, lwt_col(ma, "cm.z"));
  g_test_message("%g s: chassis centre of mass between z = %.4f and %.4f m; at 0.3 s %.9f (ALI3-P %.9f)", t_end, zmin,
                 zmax, z300, za);
  /* the wheels move the chassis up and down by centimetres */
  g_assert_cmpfloat(zmax, >, 0.365 + 0.02);
  g_assert_cmpfloat(zmax, <, 0.365 + 0.2);
  g_assert_cmpfloat(zmin, >, 0.365 - 0.2);
  g_assert_cmpfloat(fabs(z300 - za), <, 1e-4);
  lw_sim_result_clear(&ra);
  lw_model_free(ma);
  lw_desc_free(da);
  lw_desc_free(d);
}

/* forward, adjoint and central differences of the objective dCM over the
 * first 10 ms (each step's dense linearization has 3 nq + 3 nc = 1734
 * unknowns) for design variables that move a beam's chassis end (X1, Z8),
 * a stiffness and a damping.  The adjoint and the forward once stopped at
 * the first step, the Jacobian's multipliers' columns (h^2/2 G^T) taken
 * for dependent beside the beams' axial stiffness. */
static void test_gradients(void)
{
  lw_desc *d = read_suspension("variational");
  d->solver.t_end = 0.01;
  const char *names[4] = {"X1", "Z8", "k2", "c1"};
  int params[4], obj = lw_desc_objective_index(d, "dCM");
  for (int j = 0; j < 4; j++)
    g_assert_cmpint(params[j] = lw_desc_param_index(d, names[j]), >=, 0);
  lw_sens_method methods[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  double g[3][4] = {{0}}, value = 0;
  /* under the sanitizers forward and adjoint only (the differences are
   * plain runs, checked for memory with every other test) */
  for (int k = 0; k < (LW_UNDER_SANITIZERS ? 2 : 3); k++) {
    lw_sens_options opt = {.method = methods[k], .nparams = 4, .params = params, .nobj = 1, .objectives = &obj,
                           .threads = 1, .fd_step = k == 2 ? 1e-5 : 0.0};
    lw_sens_result r;
    if (lw_sensitivity(d, &opt, &r) != LW_OK)
      g_error("%s: %s", lw_sens_method_name(methods[k]), r.error.msg);
    for (int j = 0; j < 4; j++)
      g[k][j] = r.gradient[j];
    value = r.value[0];
    lw_sens_result_clear(&r);
  }
  g_assert_cmpfloat(value, >, 0);
  for (int j = 0; j < 4; j++) {
    g_test_message("dCM = %.6g: d/d %s: forward %.12g adjoint %.12g differences %.12g (%.2g, %.2g)", value, names[j],
                   g[0][j], g[1][j], g[2][j], fabs(g[0][j] - g[1][j]) / fabs(g[0][j]),
                   fabs(g[0][j] - g[2][j]) / fabs(g[2][j]));
    g_assert_cmpfloat(g[0][j], !=, 0);
    g_assert_cmpfloat(fabs(g[0][j] - g[1][j]), <=, 1e-8 * fabs(g[0][j]));
    if (!LW_UNDER_SANITIZERS)
      g_assert_cmpfloat(fabs(g[0][j] - g[2][j]), <=, 1e-4 * fabs(g[2][j]));
  }
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/vi-suspension/run", test_run);
  g_test_add_func("/vi-suspension/gradients", test_gradients);
  return g_test_run();
}
