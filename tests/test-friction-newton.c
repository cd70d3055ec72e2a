/* test-friction-newton.c: joint friction's exact tangent in the ALI3-P
 * step's Newton matrix (docs/friction.md sec. 8.4 (b)): the spatial
 * slider-crank with the seed's mu_s 0.4, mu_d 0.3 in its slider (whose rod
 * wedges the slider in its guide) runs its whole t_end at h = 1 ms; a
 * block sticking on an incline converges in fewer iterations with the
 * exact tangent; and where the iteration with the damping's symmetric part
 * alone (8.4 (a)) converges both reach the same solution. */
#include "lw-test.h"

#include <string.h>

/* a run to t_end: iterations in all, the most in a step, the final state */
typedef struct {
  long steps, iterations;
  int max_iterations;
  double t, q[64], qd[64];
  int nq;
} run;

/* simulates m from its initial state for its t_end; returns 0 or the
 * error of the step that failed (msg in err, r->t the last time reached) */
static int run_model(lw_model *m, int exact, run *r, lw_error *err)
{
  memset(r, 0, sizeof *r);
  lw_opt o = *lw_model_opt(m);
  o.friction_exact = exact;
  g_assert_cmpint(lw_model_set_opt(m, &o, err), ==, LW_OK);
  lw_data *d = lw_data_new(m);
  g_assert_nonnull(d);
  if (lw_initialize(m, d, err))
    g_error("%s", err->msg);
  long n = lround(o.t_end / o.step);
  int rc = 0;
  for (long k = 1; k <= n && rc == 0; k++) {
    lw_step_info info;
    rc = lw_step(m, d, &info, err);
    r->iterations += info.iterations;
    r->max_iterations = MAX(r->max_iterations, info.iterations);
    r->steps += rc == 0;
  }
  r->t = lw_data_time(d);
  r->nq = 0;
  for (int b = 0; b < lw_model_nbodies(m); b++) {
    int size, i0 = lw_model_body_coords(m, b, &size);
    r->nq = MAX(r->nq, i0 + size);
  }
  g_assert_cmpint(r->nq, <=, 64);
  memcpy(r->q, lw_data_q(d), sizeof(double) * (size_t)r->nq);
  memcpy(r->qd, lw_data_qd(d), sizeof(double) * (size_t)r->nq);
  lw_data_free(d);
  return rc;
}

/* the shipped slider-crank with friction, its slider's mu_s and mu_d set */
static lw_model *slider_crank(double mus, double mud)
{
  lw_desc *d = lwt_read("slider-crank-friction.json");
  int found = 0;
  for (int j = 0; j < d->njoints; j++)
    if (d->joints[j].has_friction) {
      d->joints[j].friction[lw_friction_param_index("mu_s")] = mus;
      d->joints[j].friction[lw_friction_param_index("mu_d")] = mud;
      found++;
    }
  g_assert_cmpint(found, ==, 1);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  return m;
}

/* the largest difference of two runs' final states, relative to the states' scale */
static double state_diff(const run *a, const run *b)
{
  double dq = 0, sq = 1, dv = 0, sv = 1;
  for (int i = 0; i < a->nq; i++) {
    dq = fmax(dq, fabs(a->q[i] - b->q[i]));
    sq = fmax(sq, fabs(a->q[i]));
    dv = fmax(dv, fabs(a->qd[i] - b->qd[i]));
    sv = fmax(sv, fabs(a->qd[i]));
  }
  return fmax(dq / sq, dv / sv);
}

/* (1) the seed's coefficients: the wedging slider runs its whole second,
 * whether the exact tangent comes in where the symmetric iteration stalls
 * (the default) or in every iteration */
static void test_slider_crank_seed(void)
{
  lw_model *m = slider_crank(0.4, 0.3);
  g_assert_cmpfloat(lw_model_opt(m)->step, ==, 1e-3);
  run r[2];
  for (int exact = 0; exact < 2; exact++) {
    lw_error err;
    int rc = run_model(m, exact, &r[exact], &err);
    g_test_message("mu_s 0.4, mu_d 0.3, %s: %ld steps, %ld Newton iterations (max %d a step)%s%s",
                   exact ? "exact tangent always" : "exact tangent where stalled", r[exact].steps,
                   r[exact].iterations, r[exact].max_iterations, rc ? ": " : "", rc ? err.msg : "");
    g_assert_cmpint(rc, ==, LW_OK);
    g_assert_cmpint(r[exact].steps, ==, 1000);
    g_assert_cmpfloat(fabs(r[exact].t - 1.0), <, 1e-12);
  }
  /* quadratic convergence: a few iterations a step with the exact tangent */
  g_assert_cmpfloat((double)r[1].iterations / r[1].steps, <, 5.0);
  g_assert_cmpint(r[1].max_iterations, <=, 12);
  double diff = state_diff(&r[0], &r[1]);
  g_test_message("the two runs' final states differ by %.3g (relative)", diff);
  g_assert_cmpfloat(diff, <, 1e-5);
  lw_model_free(m);
}

/* a 1 kg block on a planar prismatic joint inclined at atan(0.268), at
 * rest, sticking (mu_s 0.4, mu_d 0.3, v_t 1 mm/s) at h = 1 ms */
static lw_model *sticking_block(void)
{
  double th = atan(0.268);
  g_autofree char *json = g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"incline\", \"planar\": true, \"gravity\": [0, -9.81],\n"
    " \"solver\": {\"t_end\": 1, \"step\": 0.001},\n"
    " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"com\": [0, 0], \"inertia\": 0.01,\n"
    "   \"position\": [0, 0], \"angle\": %.17g}],\n"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"block\",\n"
    "   \"point1\": [0, 0], \"point2\": [0, 0], \"angle1\": %.17g,\n"
    "   \"friction\": {\"mu_s\": 0.4, \"mu_d\": 0.3, \"v_t\": 0.001}}]}\n",
    th, th);
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "incline.json", NULL, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  return m;
}

/* (2) the stiff sticking case (N h mu'(0) / (m v_t) about 13): the
 * symmetric part alone converges linearly, the exact tangent
 * quadratically, in fewer iterations; (3) to the same state */
static void test_sticking_block(void)
{
  lw_model *m = sticking_block();
  run r[2];
  for (int exact = 0; exact < 2; exact++) {
    lw_error err;
    if (run_model(m, exact, &r[exact], &err))
      g_error("at t = %g: %s", r[exact].t, err.msg);
    g_test_message("sticking block, h = 1 ms, v_t = 1e-3, %s: %ld Newton iterations in %ld steps (max %d)",
                   exact ? "exact tangent" : "symmetric part", r[exact].iterations, r[exact].steps,
                   r[exact].max_iterations);
    g_assert_cmpint(r[exact].steps, ==, 1000);
  }
  g_assert_cmpint(r[1].max_iterations, <, r[0].max_iterations);
  g_assert_cmpint(r[1].iterations, <=, r[0].iterations);
  double diff = state_diff(&r[0], &r[1]);
  g_test_message("final states differ by %.3g (relative)", diff);
  g_assert_cmpfloat(diff, <, 1e-7);
  lw_model_free(m);
}

/* (3) the shipped coefficients (mu_s 0.15, mu_d 0.1), where the symmetric
 * iteration converges: the exact tangent converges in fewer iterations to
 * the same solution (each step to the Newton tolerance, so the runs differ
 * by what that tolerance lets accumulate over 1000 steps) */
static void test_agrees_with_symmetric(void)
{
  lw_model *m = slider_crank(0.15, 0.1);
  run r[2];
  for (int exact = 0; exact < 2; exact++) {
    lw_error err;
    g_assert_cmpint(run_model(m, exact, &r[exact], &err), ==, LW_OK);
    g_test_message("mu_s 0.15, mu_d 0.1, %s: %ld Newton iterations in %ld steps (max %d)",
                   exact ? "exact tangent" : "symmetric part", r[exact].iterations, r[exact].steps,
                   r[exact].max_iterations);
  }
  g_assert_cmpint(r[1].iterations, <, r[0].iterations);
  double diff = state_diff(&r[0], &r[1]);
  g_test_message("final states differ by %.3g (relative)", diff);
  g_assert_cmpfloat(diff, <, 1e-5);
  lw_model_free(m);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/friction-newton/slider-crank-seed", test_slider_crank_seed);
  g_test_add_func("/friction-newton/sticking-block", test_sticking_block);
  g_test_add_func("/friction-newton/agrees-with-symmetric", test_agrees_with_symmetric);
  return g_test_run();
}
