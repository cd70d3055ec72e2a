/* Solver failure: a four-bar driven through a dead point stops cleanly with
 * the time and the cause, and keeps the results up to that time. */
#include "lw-test.h"

#include <string.h>

/* the rocker of the crank-rocker cannot turn beyond its extreme positions:
 * drive it there at constant speed */
static lw_desc *driven_rocker(void)
{
  lw_desc *d = lwt_read("four-bar.json");
  lw_driver_desc *dr = lw_desc_add_driver(d, "rocker_motor", "D", 0);
  dr->func.type = LW_FUNC_LINEAR;
  /* start where the rocker is (measured below) and sweep at 1 rad/s */
  dr->func.a[0] = 0.0;
  dr->func.a[1] = 1.0;
  return d;
}

static void test_dead_point(void)
{
  /* rocker angle in the assembled start */
  lw_desc *d0 = lwt_read("four-bar.json");
  lw_model *m0 = lwt_compile(d0);
  lw_sim_result r0;
  g_assert_cmpint(lw_simulate(m0, 0.0, 1e-3, &r0, NULL, NULL), ==, LW_OK);
  double rocker0 = lwt_at(&r0, 0, lwt_col(m0, "rocker_angle"));
  lw_sim_result_clear(&r0);
  lw_model_free(m0);
  lw_desc_free(d0);

  lw_desc *d = driven_rocker();
  d->drivers[0].func.a[0] = rocker0;
  /* the crank is now driven through the rocker: release its initial value */
  lwt_clear_initial(d);
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
