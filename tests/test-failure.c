/* Solver failure: a four-bar driven through a dead point stops cleanly with
 * the time and the cause, and keeps the results up to that time. */
#include "lw-test.h"

#include <string.h>

static void test_dead_point(void)
{
  /* the rocker driven through its extreme position */
  double rocker0;
  lw_desc *d = lwt_dead_point_desc(&rocker0);
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  int st = lw_simulate(m, 3.0, 1e-3, &r, NULL, NULL);
  g_test_message("status %d after %ld steps: %s (at %s, t = %g)", st, r.steps, r.error.msg, r.error.path,
                 r.error.time);
  g_assert_cmpint(st, ==, LW_ERR_SOLVER);
  /* when and where */
  g_assert_true(isfinite(r.error.time));
  g_assert_cmpfloat(r.error.time, >, 0.0);
  g_assert_cmpfloat(r.error.time, <, 3.0);
  g_assert_nonnull(strstr(r.error.msg, "t = "));
  g_assert_true(g_str_has_prefix(r.error.path, "joints/") || g_str_has_prefix(r.error.path, "drivers/"));
  /* the results so far are kept: one row per step taken, up to the failure */
  g_assert_cmpint(r.rows, ==, r.steps + 1);
  double t_last = lwt_at(&r, r.rows - 1, 0);
  g_assert_cmpfloat(fabs(t_last + 1e-3 - r.error.time), <, 1e-9);
  int cr = lwt_col(m, "rocker_angle");
  /* the kept rows follow the prescribed motion */
  for (long i = 0; i < r.rows; i += 50)
    g_assert_cmpfloat(fabs(lwt_at(&r, i, cr) - (rocker0 + lwt_at(&r, i, 0))), <, 1e-8);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/failure/dead-point", test_dead_point);
  return g_test_run();
}
