/* test-friction-sens.c: exact forward and adjoint sensitivities through
 * joint friction (docs/friction.md sec. 8.5): the friction's directional
 * derivative against central differences (q, the slip's velocity, the
 * multipliers, every friction parameter and a geometric one), and whole
 * runs: forward = adjoint and both against central differences of the
 * simulation, on a pendulum with pin friction, a block on an inclined
 * prismatic joint (sliding and sticking) and a slider-crank with friction
 * in its slider. */
#include "lw-test.h"
#include "lw_internal.h"
#include "lw-friction-test.h"
#include "model/lw_friction.h"

#include <string.h>

/* ---- models ------------------------------------------------------------ */

/* a 1 kg bar pendulum (centre of mass at L) with pin friction, released
 * at 60 degrees from the bottom */
static const char *pendulum_json =
  "{\"linkwright\": 1, \"name\": \"pin-friction pendulum\", \"planar\": true, \"gravity\": [0, -9.81],\n"
  " \"solver\": {\"t_end\": 0.6, \"step\": 0.001, \"tolerance\": 1e-14, \"constraint_tolerance\": 1e-12},\n"
  " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": 0.02, \"position\": [0, 0],\n"
  "   \"angle\": -0.5235987755982988, \"points\": {\"P1\": [0.5, 0]}}],\n"
  " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"bob\", \"at\": [0, 0],\n"
  "   \"friction\": {\"mu_s\": 0.5, \"mu_d\": 0.3, \"v_t\": 0.01, \"radius\": 0.05, \"viscous\": 0.2, \"preload\": 1,"
  " \"eps\": 0.01}}],\n"
  " \"initial\": [{\"joint\": \"pivot\", \"value\": -0.5235987755982988, \"velocity\": 0}],\n"
  " \"outputs\": [{\"name\": \"angle\", \"type\": \"joint_coordinate\", \"joint\": \"pivot\"},\n"
  "   {\"name\": \"w\", \"type\": \"joint_velocity\", \"joint\": \"pivot\"},\n"
  "   {\"name\": \"P1\", \"type\": \"position\", \"body\": \"bob\", \"point\": \"P1\"}],\n"
  " \"parameters\": [{\"name\": \"mass\", \"bind\": \"bodies/bob/mass\"},\n"
  "   {\"name\": \"length\", \"bind\": [\"bodies/bob/com/0\", \"bodies/bob/points/P1/0\"]},\n"
  "   {\"name\": \"mu_s\", \"bind\": \"joints/pivot/friction/mu_s\"},\n"
  "   {\"name\": \"mu_d\", \"bind\": \"joints/pivot/friction/mu_d\"},\n"
  "   {\"name\": \"v_t\", \"bind\": \"joints/pivot/friction/v_t\"},\n"
  "   {\"name\": \"r_e\", \"bind\": \"joints/pivot/friction/radius\"},\n"
  "   {\"name\": \"c_v\", \"bind\": \"joints/pivot/friction/viscous\"},\n"
  "   {\"name\": \"N0\", \"bind\": \"joints/pivot/friction/preload\"},\n"
  "   {\"name\": \"eps\", \"bind\": \"joints/pivot/friction/eps\"}],\n"
  " \"objectives\": [{\"name\": \"final\", \"terms\": [{\"output\": \"angle\", \"kind\": \"final\", \"form\": \"value\"}]},\n"
  "   {\"name\": \"swing\", \"terms\": [{\"output\": \"w\", \"kind\": \"integral\", \"form\": \"square\"},\n"
  "     {\"output\": \"P1\", \"kind\": \"final\", \"form\": \"value\", \"component\": 0}]}]}\n";

/* a 1 kg block on a prismatic joint inclined at theta (tan theta above
 * mu_s = 0.4: it slides; below: it sticks, creeping below v_t), pushed
 * across the guide by a constant force so that both shoes carry load */
static char *incline_json(double theta, double v0)
{
  return g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"incline %.3f\", \"planar\": true, \"gravity\": [0, -9.81],\n"
    " \"solver\": {\"t_end\": 0.4, \"step\": 0.001, \"tolerance\": 1e-14, \"constraint_tolerance\": 1e-12},\n"
    " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"com\": [0, 0], \"inertia\": 0.01,\n"
    "   \"position\": [0, 0], \"angle\": %.17g, \"points\": {\"E\": [0.03, 0.01]}}],\n"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"block\",\n"
    "   \"point1\": [0, 0], \"point2\": [0, 0], \"angle1\": %.17g,\n"
    "   \"friction\": {\"mu_s\": 0.4, \"mu_d\": 0.3, \"v_t\": 0.01, \"length\": 0.1, \"offset\": 0.01}}],\n"
    " \"forces\": [{\"name\": \"push\", \"type\": \"force\", \"body\": \"block\", \"point\": \"E\",\n"
    "   \"vector\": [0.5, -1]}],\n"
    " \"initial\": [{\"joint\": \"slide\", \"value\": 0, \"velocity\": %.17g}],\n"
    " \"outputs\": [{\"name\": \"x\", \"type\": \"joint_coordinate\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"v\", \"type\": \"joint_velocity\", \"joint\": \"slide\"}],\n"
    " \"parameters\": [{\"name\": \"mass\", \"bind\": \"bodies/block/mass\"},\n"
    "   {\"name\": \"mu_s\", \"bind\": \"joints/slide/friction/mu_s\"},\n"
    "   {\"name\": \"mu_d\", \"bind\": \"joints/slide/friction/mu_d\"},\n"
    "   {\"name\": \"v_t\", \"bind\": \"joints/slide/friction/v_t\"},\n"
    "   {\"name\": \"a\", \"bind\": \"joints/slide/friction/length\"},\n"
    "   {\"name\": \"c\", \"bind\": \"joints/slide/friction/offset\"},\n"
    "   {\"name\": \"Ex\", \"bind\": \"bodies/block/points/E/0\"},\n"
    "   {\"name\": \"theta\", \"bind\": [\"bodies/block/angle\", \"joints/slide/angle1\"]}],\n"
    " \"objectives\": [{\"name\": \"final\", \"terms\": [{\"output\": \"x\", \"kind\": \"final\", \"form\": \"value\"}]},\n"
    "   {\"name\": \"speed\", \"terms\": [{\"output\": \"v\", \"kind\": \"integral\", \"form\": \"square\"}]}]}\n",
    theta, theta, theta, v0);
}

static lw_desc *parse(const char *json)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "test.json", NULL, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  return d;
}

/* a planar slider-crank (crank 0.1 m, rod 0.3 m, 2 kg slider on the x
 * axis, gravity across the guide) with friction in the slider, its crank
 * held near -10 rad/s by a proportional speed controller; from 0.3 rad
 * the crank passes the dead point at 0 (the slider stops and turns: the
 * transition region) at 0.03 s, the other at -pi near 0.34 s.  The file
 * bench-friction reads, run here to 0.36 s with tight Newton tolerances. */
static lw_desc *slider_crank(void)
{
  lw_error err;
  lw_desc *d = lw_model_read_file(LW_SOURCE_ROOT "/tests/data/slider-crank-friction-planar.json", NULL, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  d->solver.t_end = 0.36;
  d->solver.tolerance = 1e-14;
  d->solver.constraint_tolerance = 1e-12;
  return d;
}

/* ---- the friction's directional derivative (lw-friction-test.h) -------- */

static void test_jvp_pendulum(void)
{
  lw_desc *d = parse(pendulum_json);
  lwt_check_state_jvp(d, 1.0);  /* slipping */
  lwt_check_state_jvp(d, 1e-3); /* in the transition, |r_e w| < v_t */
  lwt_check_param_jvp(d, 1.0);
  lw_desc_free(d);
}

static void test_jvp_incline(void)
{
  g_autofree char *json = incline_json(0.6, 0.0);
  lw_desc *d = parse(json);
  lwt_check_state_jvp(d, 0.5);
  lwt_check_state_jvp(d, 1e-3);
  lwt_check_param_jvp(d, 0.5);
  lw_desc_free(d);
}

static void test_jvp_slider_crank(void)
{
  lw_desc *d = slider_crank();
  lwt_check_state_jvp(d, 0.5);
  lwt_check_param_jvp(d, 0.5);
  lw_desc_free(d);
}

/* a friction parameter's tangent is exact (1 on its own field, 0 on the
 * others) and equals the one taken by differences of the compilation */
static void test_tangent_exact(void)
{
  lw_desc *d = parse(pendulum_json);
  /* the pendulum's parameters 2 .. 8: mu_s, mu_d, v_t, radius, viscous, preload, eps */
  static const int field[7] = {LW_FP_MU_S, LW_FP_MU_D, LW_FP_VT, LW_FP_RADIUS, LW_FP_VISCOUS, LW_FP_PRELOAD, LW_FP_EPS};
  for (int j = 2; j < d->nparams; j++) {
    lw_error err;
    lw_tangent *te = lw_tangent_new_exact(d, j, &err), *tn = lw_tangent_new_numeric(d, j, &err);
    g_assert_nonnull(te);
    g_assert_nonnull(tn);
    g_assert_true(te->any && te->fric_on[0]);
    g_assert_true(tn->any && tn->fric_on[0]);
    for (int k = 0; k < LW_FRICTION_NPARAMS; k++) {
      g_assert_cmpfloat(te->dm->fric[0].p[k], ==, k == field[j - 2] ? 1.0 : 0.0);
      g_assert_cmpfloat(fabs(te->dm->fric[0].p[k] - tn->dm->fric[0].p[k]), <=, 1e-9);
    }
    lw_tangent_free(te);
    lw_tangent_free(tn);
  }
  lw_desc_free(d);
}

/* ---- whole runs --------------------------------------------------------- */


/* forward vs adjoint (<= 1e-8) vs central differences of the whole run
 * (fd_tol, relative per component against 1e-2 of the largest) */
static void agree(const lw_desc *d, double fd_step, double fd_tol)
{
  lw_sens_result f = lwt_sens_all(d, LW_SENS_FORWARD, 0, 0), a = lwt_sens_all(d, LW_SENS_ADJOINT, 0, 0),
                 c = lwt_sens_all(d, LW_SENS_FD, fd_step, 0);
  int p = d->nparams;
  double efa = 0, efd = 0;
  for (int o = 0; o < d->nobjectives; o++) {
    g_assert_cmpfloat(fabs(f.value[o] - a.value[o]), <=, 1e-14 * fabs(a.value[o]));
    double rowmax = 0;
    for (int j = 0; j < p; j++)
      rowmax = fmax(rowmax, fabs(a.gradient[o * p + j]));
    for (int j = 0; j < p; j++) {
      double ga = a.gradient[o * p + j], gf = f.gradient[o * p + j], gc = c.gradient[o * p + j];
      g_test_message("  %s d%s/d%s: forward %.10e adjoint %.10e differences %.10e", d->name,
                     d->objectives[o].name, d->params[j].name, gf, ga, gc);
      efa = fmax(efa, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
      efd = fmax(efd, fabs(ga - gc) / fmax(fabs(ga), 1e-2 * rowmax));
    }
  }
  g_test_message("%s (%ld steps): forward vs adjoint %.2e, adjoint vs central differences (step %g) %.2e",
                 d->name, a.steps, efa, fd_step, efd);
  g_assert_cmpfloat(efa, <=, 1e-8);
  g_assert_cmpfloat(efd, <=, fd_tol);
  /* the adjoint from checkpoints (segments stepped again) is the same */
  lw_sens_result k = lwt_sens_all(d, LW_SENS_ADJOINT, 0, 4096);
  g_assert_true(k.recomputed);
  for (int i = 0; i < d->nobjectives * p; i++)
    g_assert_cmpfloat(fabs(k.gradient[i] - a.gradient[i]), <=, 1e-12 * fmax(fabs(a.gradient[i]), 1e-300));
  lw_sens_result_clear(&k);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&c);
}

static void test_run_pendulum(void)
{
  lw_desc *d = parse(pendulum_json);
  agree(d, 1e-5, 1e-5);
  lw_desc_free(d);
}

/* sliding down (tan 0.6 = 0.68 > mu_s) */
static void test_run_incline_slip(void)
{
  g_autofree char *json = incline_json(0.6, 0.0);
  lw_desc *d = parse(json);
  /* the differences scatter about the exact values by 1e-6 to 1e-5 of the
   * largest component (steps 3e-5 .. 1e-3: round-off of the iteration's
   * stop, not truncation); 1e-4 is the least noisy */
  agree(d, 1e-4, 5e-5);
  lw_desc_free(d);
}

/* launched up the slope at 0.3 m/s on tan 0.25 < mu_s: it slides up,
 * stops and sticks (the transition region) */
static void test_run_incline_stick(void)
{
  g_autofree char *json = incline_json(0.25, 0.3);
  lw_desc *d = parse(json);
  agree(d, 1e-4, 5e-5);
  lw_desc_free(d);
}

static void test_run_slider_crank(void)
{
  lw_desc *d = slider_crank();
  agree(d, 1e-4, 5e-5);
  lw_desc_free(d);
}

/* the shipped co-design model (spatial prismatic joint, the rod pinned
 * off the guide's axis: its moments load the shoes, so the slider's length
 * and width matter), its first 0.1 s */
static void test_run_slider_crank_spatial(void)
{
  lw_desc *d = lwt_read("slider-crank-friction.json");
  d->solver.t_end = 0.1;
  /* the modified Newton iteration (friction's tangent left out, sec. 8.4
   * (a)) contracts slowly here: 1e-11 is where it still converges */
  d->solver.tolerance = 1e-11;
  d->solver.constraint_tolerance = 1e-12;
  /* the differences then carry the iteration's stop: 8e-5 at step 1e-4,
   * truncation 1.7e-3 at 1e-3 (the step is absolute: 1e-3 of a 0.05 m
   * slider) */
  agree(d, 1e-4, 2e-4);
  lw_desc_free(d);
}

/* another integrator's own sensitivity drivers have no friction terms:
 * refused with a message that says so, values alone still given */
static void test_other_integrator_refused(void)
{
  lw_desc *d = parse(pendulum_json);
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "%s", "variational");
  int P[1] = {3}, O[1] = {0};
  lw_sens_options o = {.method = LW_SENS_ADJOINT, .nparams = 1, .params = P, .nobj = 1, .objectives = O};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity(d, &o, &r), ==, LW_ERR_MODEL);
  g_assert_nonnull(strstr(r.error.msg, "ALI3-P integrator only"));
  lw_sens_result_clear(&r);
  o.method = LW_SENS_VALUE;
  g_assert_cmpint(lw_sensitivity(d, &o, &r), ==, LW_OK);
  g_assert_true(isfinite(r.value[0]));
  lw_sens_result_clear(&r);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/friction-sens/jvp/pendulum", test_jvp_pendulum);
  g_test_add_func("/friction-sens/jvp/incline", test_jvp_incline);
  g_test_add_func("/friction-sens/jvp/slider-crank", test_jvp_slider_crank);
  g_test_add_func("/friction-sens/tangent", test_tangent_exact);
  g_test_add_func("/friction-sens/other-integrator", test_other_integrator_refused);
  g_test_add_func("/friction-sens/run/pendulum", test_run_pendulum);
  g_test_add_func("/friction-sens/run/incline-slip", test_run_incline_slip);
  g_test_add_func("/friction-sens/run/incline-stick", test_run_incline_stick);
  g_test_add_func("/friction-sens/run/slider-crank", test_run_slider_crank);
  g_test_add_func("/friction-sens/run/slider-crank-spatial", test_run_slider_crank_spatial);
  return g_test_run();
}
