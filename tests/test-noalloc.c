/* The time step allocates nothing: malloc and friends are interposed and
 * counted while lw_step runs (glibc's __libc_* entry points do the work). */
#include "lw-test.h"

#include <stddef.h>

#include "lw-test-alloc.h"

static void steps_allocate_nothing(const char *name, int nsteps)
{
#ifdef LW_SANITIZED
  g_test_skip("allocation counting needs the plain build (malloc belongs to the sanitizer here)");
  (void)name;
  (void)nsteps;
  return;
#else
  lw_model *m = lwt_open(name);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  double *out = g_new0(double, lw_model_output_columns(m) + 1);
  /* the counter works: an allocation while counting is seen */
  counting = 1;
  void *probe = malloc(16);
  counting = 0;
  free(probe);
  g_assert_cmpint(count, ==, 1);
  count = 0;
  counting = 1;
  int st = 0;
  for (int k = 0; k < nsteps && !st; k++) {
    lw_step_info info;
    st = lw_step(m, d, &info, &err);
    lw_outputs(m, d, out);
  }
  counting = 0;
  g_assert_cmpint(st, ==, LW_OK);
  g_test_message("%s: %d steps (%s solver), %ld allocations", name, nsteps,
                 lw_model_nq(m) > 96 ? "sparse" : "dense", count);
  g_assert_cmpint(count, ==, 0);
  g_free(out);
  lw_data_free(d);
  lw_model_free(m);
#endif
}

static void test_fivebar(void) { steps_allocate_nothing("five-bar.json", 500); }
static void test_slider_crank(void) { steps_allocate_nothing("slider-crank.json", 200); }

/* a chain large enough for the sparse (CHOLMOD) path */
static void test_chain_sparse(void)
{
#ifdef LW_SANITIZED
  g_test_skip("allocation counting needs the plain build (malloc belongs to the sanitizer here)");
  return;
#else
  g_autofree char *path = g_build_filename(g_get_tmp_dir(), "lw-noalloc-chain.json", NULL);
  g_autofree char *cmd = g_strdup_printf("%s generate-chain 40 --out %s", LW_CLI, path);
  int status;
  g_assert_true(g_spawn_command_line_sync(cmd, NULL, NULL, &status, NULL));
  g_assert_cmpint(status, ==, 0);
  lw_error err;
  lw_model *m = lw_model_open(path, &err);
  g_assert_nonnull(m);
  g_assert_cmpint(lw_model_nq(m), >, 96);
  lw_data *d = lw_data_new(m);
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  count = 0;
  counting = 1;
  int st = 0;
  for (int k = 0; k < 100 && !st; k++)
    st = lw_step(m, d, NULL, &err);
  counting = 0;
  g_assert_cmpint(st, ==, LW_OK);
  g_test_message("40-link chain (%d coordinates, sparse): 100 steps, %ld allocations", lw_model_nq(m), count);
  g_assert_cmpint(count, ==, 0);
  lw_data_free(d);
  lw_model_free(m);
#endif
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/noalloc/five-bar", test_fivebar);
  g_test_add_func("/noalloc/slider-crank", test_slider_crank);
  g_test_add_func("/noalloc/chain-sparse", test_chain_sparse);
  return g_test_run();
}
