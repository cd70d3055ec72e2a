/* test-startup.c: start-up of large models (the rank of the constraint
 * Jacobian, name lookups while compiling), redundant constraint sets in the
 * step's projections (a Bricard linkage), and a loop close to a mechanism.
 * White box: it reads the workspace (degrees of freedom, whether a step's
 * projections were exact). */
#define _POSIX_C_SOURCE 200809L

#include "lw-test.h"
#include "lw_internal.h"

#include <string.h>
#include <time.h>

static double cpu_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static lw_model *chain_model(int n)
{
  lw_desc *cd = lw_desc_chain(n, 0);
  lw_model *m = lwt_compile(cd);
  lw_desc_free(cd);
  return m;
}

/* CPU time of lw_initialize on the n-link chain, best of three */
static double chain_init_time(int n)
{
  lw_model *m = chain_model(n);
  double best = INFINITY;
  for (int r = 0; r < 3; r++) {
    lw_data *d = lw_data_new(m);
    lw_error err;
    double t0 = cpu_s();
    g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
    best = fmin(best, cpu_s() - t0);
    g_assert_cmpint(d->dof, ==, n);
    lw_data_free(d);
  }
  lw_model_free(m);
  return best;
}

/* a 10000-link chain compiles, initializes (10000 degrees of freedom) and
 * steps; under the sanitizers 2000 links, through the same code */
static void test_chain_10000(void)
{
  int n = LW_UNDER_SANITIZERS ? 2000 : 10000;
  lw_model *m = chain_model(n);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  g_assert_cmpint(d->dof, ==, n);
  lw_step_info info;
  for (int k = 0; k < 2; k++)
    g_assert_cmpint(lw_step(m, d, &info, &err), ==, LW_OK);
  g_assert_cmpfloat(info.constraint_residual, <=, 1e-10);
  lw_data_free(d);
  lw_model_free(m);
}

/* the initialization's cost grows linearly with the chain's length: eight
 * times the links, well under twenty times the time (a quadratic cost
 * would take sixty-four); under the sanitizers from 500 links */
static void test_init_linear(void)
{
  int n = LW_UNDER_SANITIZERS ? 500 : 1000;
  double t1 = chain_init_time(n), t8 = chain_init_time(8 * n);
  g_test_message("initialize: N = %d %.4f s, N = %d %.4f s, ratio %.2f", n, t1, 8 * n, t8, t8 / t1);
  g_assert_cmpfloat(t8, <, 20.0 * t1);
}

/* the compile's name index: duplicates and unknown names still refused,
 * with the same paths */
static void expect_compile_error(lw_desc *cd, const char *path, const char *msg)
{
  lw_error err;
  lw_model *m = lw_compile(cd, &err);
  g_assert_null(m);
  g_assert_cmpstr(err.path, ==, path);
  g_assert_nonnull(strstr(err.msg, msg));
  lw_desc_free(cd);
}

static void test_names(void)
{
  lw_desc *cd = lw_desc_chain(50, 0);
  free(cd->bodies[30].name);
  cd->bodies[30].name = strdup("link7");
  expect_compile_error(cd, "bodies/link7", "duplicate body name 'link7'");
  cd = lw_desc_chain(50, 0);
  free(cd->joints[40].name);
  cd->joints[40].name = strdup(cd->joints[3].name);
  char path[64];
  snprintf(path, sizeof path, "joints/%s", cd->joints[3].name);
  expect_compile_error(cd, path, "duplicate joint name");
  cd = lw_desc_chain(50, 0);
  free(cd->joints[20].body[1]);
  cd->joints[20].body[1] = strdup("nowhere");
  snprintf(path, sizeof path, "joints/%s/body2", cd->joints[20].name);
  expect_compile_error(cd, path, "body2 'nowhere' does not exist");
  /* and a body found in the middle of ten thousand (two thousand under
   * the sanitizers) */
  int n = LW_UNDER_SANITIZERS ? 2000 : 10000;
  cd = lw_desc_chain(n, 0);
  lw_model *m = lwt_compile(cd);
  g_assert_cmpint(lw_model_nc(m), ==, 3 * n);
  lw_model_free(m);
  lw_desc_free(cd);
}

static lw_desc *read_data(const char *name)
{
  g_autofree char *path = g_build_filename(LW_SOURCE_ROOT, "tests", "data", name, NULL);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  return d;
}

/* the Bricard loop's dependent equation is refused by default, named */
static void test_bricard_refused(void)
{
  lw_desc *cd = read_data("bricard.json");
  cd->solver.allow_redundant = 0;
  lw_model *m = lwt_compile(cd);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_ERR_MODEL);
  g_assert_nonnull(strstr(err.msg, "1 of 60 equations are dependent"));
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(cd);
}

/* CPU time per step over the first half second at step h (best of two);
 * *exact: whether every step's projections were exact */
static double bricard_step_cost(lw_model *m, double h, int *exact)
{
  int n = (int)lround(0.5 / h);
  lw_error err;
  g_assert_cmpint(lw_model_set_step(m, h, &err), ==, LW_OK);
  double best = INFINITY;
  *exact = 1;
  for (int r = 0; r < 2; r++) {
    lw_data *d = lw_data_new(m);
    g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
    g_assert_cmpint(d->dof, ==, 1);
    lw_step_info info;
    double t0 = cpu_s();
    for (int k = 0; k < n; k++) {
      g_assert_cmpint(lw_step(m, d, &info, &err), ==, LW_OK);
      *exact &= d->schur_ok;
    }
    best = fmin(best, (cpu_s() - t0) / n);
    g_assert_cmpfloat(info.constraint_residual, <=, 1e-10);
    lw_data_free(d);
  }
  return best;
}

/* redundant constraints (allowed): the velocity and acceleration
 * projections drop the dependent equation and stay exact at any step, so
 * a step costs about the same at h = 2e-3 and 2.5e-4 (the iterative
 * projection they fell back to converges at a rate set by alpha h^2/4 and
 * needed some 45 iterations at the small step) */
static void test_bricard_steps(void)
{
  lw_desc *cd = read_data("bricard.json");
  lw_model *m = lwt_compile(cd);
  int ex_big, ex_small;
  double c_big = bricard_step_cost(m, 2e-3, &ex_big);
  double c_small = bricard_step_cost(m, 2.5e-4, &ex_small);
  g_test_message("Bricard: %.1f us/step at h = 2e-3, %.1f us/step at h = 2.5e-4 (ratio %.2f)", 1e6 * c_big,
                 1e6 * c_small, c_small / c_big);
  g_assert_cmpfloat(c_small, <, 2.0 * c_big);
  g_assert_cmpfloat(c_big, <, 2.0 * c_small);
  g_assert_true(ex_big);
  g_assert_true(ex_small);
  lw_model_free(m);
  lw_desc_free(cd);
}

/* the loop with a joint moved by 1 mm: a structure (0 degrees of freedom)
 * close to a mechanism, nearly singular; with the default settings it
 * runs at h = 1 ms and stays at rest */
static void test_bricard_rigid(void)
{
  lw_desc *cd = read_data("bricard-rigid.json");
  lw_model *m = lwt_compile(cd);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  g_assert_cmpint(d->dof, ==, 0);
  lw_data_free(d);
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, 1.0, 1e-3, &res, NULL, NULL), ==, LW_OK);
  g_assert_cmpfloat(res.max_constraint_residual, <=, 1e-10);
  int cz = lwt_col(m, "rP2.z");
  double worst = 0;
  for (long k = 0; k < res.steps; k++)
    worst = fmax(worst, fabs(lwt_at(&res, k, cz)));
  g_test_message("rigid Bricard: %ld steps, %ld Newton iterations, largest |z| of P2 %.2e m", res.steps,
                 res.newton_iterations, worst);
  g_assert_cmpfloat(worst, <, 1e-5);
  lw_sim_result_clear(&res);
  lw_model_free(m);
  lw_desc_free(cd);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/startup/chain-10000", test_chain_10000);
  g_test_add_func("/startup/init-linear", test_init_linear);
  g_test_add_func("/startup/names", test_names);
  g_test_add_func("/startup/bricard-refused", test_bricard_refused);
  g_test_add_func("/startup/bricard-steps", test_bricard_steps);
  g_test_add_func("/startup/bricard-rigid", test_bricard_rigid);
  return g_test_run();
}
