/* The five-bar against an independent solution of the same model: the
 * index-1 DAE integrated by SUNDIALS IDAS at tight tolerance; objective
 * gradients against IDAS forward and adjoint sensitivity analysis. */
#include "lw-test.h"
#include "lw_ref_idas.h"
#include "lw_ref_idas_sens.h"

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

/* max_j |a_j - b_j| / max_j |ref_j| */
static double rel_diff(const double *a, const double *b, const double *ref, int n)
{
  double d = 0, s = 0;
  for (int j = 0; j < n; j++) {
    d = fmax(d, fabs(a[j] - b[j]));
    s = fmax(s, fabs(ref[j]));
  }
  return d / s;
}

/* Gradients of objective `objective` of a shipped model over t_end seconds
 * with respect to every parameter: IDAS forward and adjoint at rtol 1e-10,
 * and ours (discrete adjoint) at h and h/2.  order: the order in h at which
 * our gradient converges for this objective. */
static void check_gradients(const char *model, const char *objective, double t_end, double h, int order)
{
  lw_desc *d = lwt_read(model);
  d->solver.t_end = t_end;
  int p = d->nparams, obj = lw_desc_objective_index(d, objective);
  g_assert_cmpint(obj, >=, 0);
  g_assert_cmpint(p, <=, 16);
  int P[16];
  for (int j = 0; j < p; j++)
    P[j] = j;
  lw_model *m = lwt_compile(d);
  double value[2], g[2][16];
  for (int k = 0; k < 2; k++) {
    lw_ref_sens_options o = {.method = k ? LW_REF_ADJOINT : LW_REF_FORWARD, .rtol = 1e-10, .atol = 1e-12,
                             .objective = obj, .nparams = p, .params = P};
    lw_ref_sens_stats st;
    char msg[512];
    if (lw_ref_idas_sens(m, &o, &value[k], g[k], &st, msg, sizeof msg))
      g_error("%s %s: IDAS %s: %s", model, objective, k ? "adjoint" : "forward", msg);
    g_test_message("%s %s: IDAS %s: %ld + %ld steps, %.3f s", model, objective, k ? "adjoint" : "forward", st.steps,
                   st.steps_b, st.wall_time_s);
  }
  double ours[2][16], vours[2];
  for (int k = 0; k < 2; k++) {
    d->solver.step = h / (1 << k);
    lw_sens_options so = {.method = LW_SENS_ADJOINT, .nparams = p, .params = P, .nobj = 1, .objectives = &obj};
    lw_sens_result r;
    if (lw_sensitivity(d, &so, &r))
      g_error("%s %s: lw_sensitivity: %s", model, objective, r.error.msg);
    vours[k] = r.value[0];
    memcpy(ours[k], r.gradient, sizeof(double) * (size_t)p);
    lw_sens_result_clear(&r);
  }
  /* Richardson: our discretization error at h/2 is (g(h) - g(h/2)) / (2^order - 1) */
  double rich[16];
  for (int j = 0; j < p; j++)
    rich[j] = ours[1][j] + (ours[1][j] - ours[0][j]) / ((1 << order) - 1);
  double fa = rel_diff(g[0], g[1], g[0], p);
  double disc = rel_diff(ours[0], ours[1], g[0], p);
  double oh2 = fmax(rel_diff(ours[1], g[0], g[0], p), rel_diff(ours[1], g[1], g[0], p));
  double orich = fmax(rel_diff(rich, g[0], g[0], p), rel_diff(rich, g[1], g[0], p));
  g_test_message("%s %s (%g s): value IDAS %.12g, ours at h/2 %.12g; gradient differences relative to max |grad|: "
                 "IDAS forward vs adjoint %.2e; ours h = %g ms vs h/2 %.2e; ours h/2 vs IDAS %.2e; ours "
                 "extrapolated (order %d) vs IDAS %.2e",
                 model, objective, t_end, value[0], vours[1], fa, 1e3 * h, disc, oh2, order, orich);
  /* IDAS against itself: two computations at rtol 1e-10 on different step
   * sequences (the forward sensitivities take part in the error test),
   * measured within 3e-8 of each other on these models */
  g_assert_cmpfloat(fa, <=, 1e-6);
  g_assert_cmpfloat(fabs(value[0] - value[1]), <=, 1e-6 * fabs(value[0]));
  /* ours at h/2 within its own discretization error of IDAS: for order 2 the
   * error at h/2 is a third of g(h) - g(h/2) (measured: 0.33), for order 1
   * all of it (measured: 0.99); the IDAS error is far below */
  g_assert_cmpfloat(oh2, <=, (order == 2 ? 0.5 : 1.5) * disc);
  /* and what is left after removing the leading term of our error is a
   * small part of it: both compute the same derivative */
  g_assert_cmpfloat(orich, <=, (order == 2 ? 0.05 : 0.2) * disc);
  lw_model_free(m);
  lw_desc_free(d);
}

static void test_fivebar_gradients(void)
{
  /* 1 s of the run: every objective, every parameter */
  check_gradients("five-bar.json", "psi1", 1.0, 2.5e-4, 2);
  check_gradients("five-bar.json", "psi2", 1.0, 2.5e-4, 2);
  check_gradients("five-bar.json", "psi3", 1.0, 2.5e-4, 2);
}

static void test_double_pendulum_gradients(void)
{
  /* integral terms on joint angles, and a final term (kinetic energy) */
  check_gradients("double-pendulum.json", "swing", 1.0, 2.5e-4, 2);
  check_gradients("double-pendulum.json", "final_energy", 1.0, 2.5e-4, 2);
}

static void test_pendulum_reaction_gradient(void)
{
  /* a final term on a reaction force: the multipliers enter the objective.
   * Our multipliers converge at first order in h, so the gradient does too */
  check_gradients("pendulum.json", "load", 1.0, 2.5e-4, 1);
}

static void test_idas_sens_errors(void)
{
  char msg[512];
  double v, g[4];
  int P[4] = {0, 1, 2, 3};
  /* integral action of a controller is a state the index-1 form lacks: its
   * gain as a parameter (at 0), and a nonzero gain */
  lw_desc *d = lwt_read("slider-crank-codesign.json");
  lw_model *m = lwt_compile(d);
  lw_ref_sens_options o = {.method = LW_REF_ADJOINT, .rtol = 1e-6, .atol = 1e-8, .objective = 0, .nparams = 4,
                           .params = P};
  g_assert_cmpint(lw_ref_idas_sens(m, &o, &v, g, NULL, msg, sizeof msg), !=, 0);
  g_assert_nonnull(strstr(msg, "integral gain"));
  lw_model_free(m);
  d->params[lw_desc_param_index(d, "ki")].value = 0.5;
  m = lwt_compile(d);
  o.nparams = 2;
  g_assert_cmpint(lw_ref_idas_sens(m, &o, &v, g, NULL, msg, sizeof msg), !=, 0);
  g_assert_nonnull(strstr(msg, "integral action"));
  lw_model_free(m);
  lw_desc_free(d);
  m = lwt_open("five-bar.json");
  o.objective = 7;
  g_assert_cmpint(lw_ref_idas_sens(m, &o, &v, g, NULL, msg, sizeof msg), !=, 0);
  g_assert_nonnull(strstr(msg, "objective index 7"));
  o.objective = 0;
  P[1] = 99;
  g_assert_cmpint(lw_ref_idas_sens(m, &o, &v, g, NULL, msg, sizeof msg), !=, 0);
  g_assert_nonnull(strstr(msg, "parameter index 99"));
  lw_model_free(m);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/reference/five-bar-idas", test_fivebar_vs_idas);
  g_test_add_func("/reference/five-bar-gradients", test_fivebar_gradients);
  g_test_add_func("/reference/double-pendulum-gradients", test_double_pendulum_gradients);
  g_test_add_func("/reference/pendulum-reaction-gradient", test_pendulum_reaction_gradient);
  g_test_add_func("/reference/idas-sens-errors", test_idas_sens_errors);
  return g_test_run();
}
