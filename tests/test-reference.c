/* The five-bar against an independent solution of the same model: the
 * index-1 DAE integrated by SUNDIALS IDAS at tight tolerance. */
#include "lw-test.h"
#include "lw_ref_idas.h"

static void test_fivebar_vs_idas(void)
{
  lw_model *m = lwt_open("five-bar.json");
  int nc = lw_model_output_columns(m);
  double times[5] = {1, 2, 3, 4, 5};
  double *ref = g_new0(double, 5 * nc);
  lw_ref_stats st;
  char msg[256];
  g_assert_cmpint(lw_ref_idas_run(m, 1e-11, 1e-13, times, 5, ref, &st, msg, sizeof msg), ==, 0);
  int cx = lwt_col(m, "r2.x") - 1, cy = lwt_col(m, "r2.y") - 1;
  /* ALI3-P at two steps: the error falls 4x per halving and is within 1e-6 m at 0.125 ms */
  double hs[2] = {2.5e-4, 1.25e-4}, worst[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    lw_sim_result r;
    g_assert_cmpint(lw_simulate(m, 5.0, hs[k], &r, NULL, NULL), ==, LW_OK);
    for (int i = 0; i < 5; i++) {
      long row = lround(times[i] / hs[k]);
      double ex = lwt_at(&r, row, cx + 1) - ref[i * nc + cx];
      double ey = lwt_at(&r, row, cy + 1) - ref[i * nc + cy];
      worst[k] = fmax(worst[k], hypot(ex, ey));
    }
    g_test_message("h = %g ms: max |r2 - r2_IDAS| over t = 1..5 s: %.3e m", 1e3 * hs[k], worst[k]);
    lw_sim_result_clear(&r);
  }
  g_test_message("IDAS: %ld steps, %ld residual evaluations", st.steps, st.nfevals);
  g_assert_cmpfloat(worst[1], <=, 1e-6);
  g_assert_cmpfloat(worst[0] / worst[1], >, 3.5);
  g_assert_cmpfloat(worst[0] / worst[1], <, 4.5);
  g_free(ref);
  lw_model_free(m);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/reference/five-bar-idas", test_fivebar_vs_idas);
  return g_test_run();
}
