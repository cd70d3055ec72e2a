/* The variational integrator (solver.integrator "variational",
 * integ/vi_step.c): selection, second order, bounded energy error over a
 * long run next to ALI3-P, agreement with ALI3-P on every shipped model,
 * the failure message, and its forward and adjoint sensitivities against
 * each other and against central differences of the whole run. */
#include "lw-test.h"
#include "lw_internal.h"
#include "integ/lw_integrator.h"

#include <glib/gstdio.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lw-test-alloc.h"

/* the model's integrator set on the compiled model */
static void set_integrator(lw_model *m, const char *name)
{
  lw_opt o = *lw_model_opt(m);
  snprintf(o.integrator, sizeof o.integrator, "%s", name);
  lw_error err;
  if (lw_model_set_opt(m, &o, &err) != LW_OK)
    g_error("%s: %s", err.path, err.msg);
}

static lw_model *open_with(const char *file, const char *integ)
{
  lw_model *m = lwt_open(file);
  set_integrator(m, integ);
  return m;
}

/* the state (q, qd, lambda) after n steps of h from the consistent start */
static lw_data *run_steps(lw_model *m, double h, long n)
{
  lw_error err;
  g_assert_cmpint(lw_model_set_step(m, h, &err), ==, LW_OK);
  lw_data *d = lw_data_new(m);
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  for (long k = 0; k < n; k++) {
    lw_step_info info;
    if (lw_step(m, d, &info, &err) != LW_OK)
      g_error("step %ld: %s", k, err.msg);
  }
  return d;
}

static double max_diff(const double *a, const double *b, int n)
{
  double e = 0;
  for (int i = 0; i < n; i++)
    e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

/* ---- selection -------------------------------------------------------- */

/* a model file's solver settings name it, it is written back, and an
 * unknown name lists both */
static void test_select(void)
{
  lw_desc *d = lwt_read("pendulum.json");
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "variational");
  lw_model *m = lwt_compile(d);
  g_assert_cmpstr(lw_model_opt(m)->integrator, ==, "variational");
  g_assert_true(m->integ->step != NULL && !strcmp(m->integ->name, "variational"));
  lw_error err;
  char *json = lw_model_to_json(d);
  g_assert_nonnull(json);
  g_assert_nonnull(strstr(json, "\"integrator\": \"variational\""));
  lw_desc *back = lw_model_read_data(json, -1, "pendulum.json", NULL, &err);
  g_assert_nonnull(back);
  g_assert_cmpstr(back->solver.integrator, ==, "variational");
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "euler");
  g_assert_null(lw_compile(d, &err));
  g_assert_cmpstr(err.path, ==, "solver/integrator");
  g_assert_nonnull(strstr(err.msg, "known: ali3p, variational"));
  free(json);
  lw_desc_free(back);
  lw_model_free(m);
  lw_desc_free(d);
}

/* the command line's --integrator runs it, and refuses an unknown name */
static void test_cli(void)
{
  g_autofree char *model = g_build_filename(LW_MODELS_DIR, "four-bar.json", NULL);
  g_autofree char *out = NULL, *errs = NULL;
  int status = 0;
  const char *argv[] = {LW_CLI, "simulate", model, "--t-end", "0.05", "--integrator", "variational", "--json", NULL};
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, 0, NULL, NULL, &out, &errs, &status, NULL));
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_assert_nonnull(strstr(out, "\"status\": \"ok\""));
  g_clear_pointer(&out, g_free);
  g_clear_pointer(&errs, g_free);
  argv[6] = "euler";
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, 0, NULL, NULL, &out, &errs, &status, NULL));
  g_assert_false(g_spawn_check_wait_status(status, NULL));
  g_assert_nonnull(strstr(out, "unknown integrator 'euler' (known: ali3p, variational)"));
}

/* ---- order and energy ------------------------------------------------- */

/* step halving: the final state's error against h/16 falls by 4 per
 * halving (positions, velocities and multipliers) */
static void check_order(const char *file, double t)
{
  lw_model *m = open_with(file, "variational");
  int nq = lw_model_nq(m), nc = lw_model_nc(m);
  double h0 = 4e-3;
  lw_data *ref = run_steps(m, h0 / 16, (long)(t / (h0 / 16) + 0.5));
  double e[3][3];
  for (int k = 0; k < 3; k++) {
    double h = h0 / (1 << k);
    lw_data *d = run_steps(m, h, (long)(t / h + 0.5));
    g_assert_cmpfloat(fabs(lw_data_time(d) - t), <, 1e-12);
    e[k][0] = max_diff(lw_data_q(d), lw_data_q(ref), nq);
    e[k][1] = max_diff(lw_data_qd(d), lw_data_qd(ref), nq);
    e[k][2] = max_diff(lw_data_lambda(d), lw_data_lambda(ref), nc);
    g_test_message("%s h = %g: |dq| %.3e |dqd| %.3e |dlambda| %.3e", file, h, e[k][0], e[k][1], e[k][2]);
    lw_data_free(d);
  }
  for (int k = 0; k < 2; k++)
    for (int c = 0; c < 3; c++) {
      /* against h/16 the ratio of second order is (1 - 1/16 ... ) about 4 */
      double ratio = e[k][c] / e[k + 1][c];
      g_test_message("ratio %d,%d: %.2f", k, c, ratio);
      g_assert_cmpfloat(ratio, >, 3.3);
      g_assert_cmpfloat(ratio, <, 5.5);
    }
  lw_data_free(ref);
  lw_model_free(m);
}

static void test_order_pendulum(void) { check_order("pendulum.json", 1.0); }
static void test_order_four_bar(void) { check_order("four-bar.json", 1.0); }

/* the largest |E - E0| over rows [a, b) of a run's energy column */
static double energy_error(const lw_sim_result *r, int col, long a, long b)
{
  double E0 = lwt_at(r, 0, col), e = 0;
  for (long i = a; i < b; i++)
    e = fmax(e, fabs(lwt_at(r, i, col) - E0));
  return e;
}

/* the double pendulum (rigid, no forces but gravity, chaotic), 1e5 steps
 * of 1 ms: the variational integrator's energy error stays where it was
 * in the first tenth (no drift); ALI3-P's over the same run is reported
 * beside it */
static void test_energy(void)
{
  double err[2][2];
  const char *names[2] = {"variational", "ali3p"};
  for (int k = 0; k < 2; k++) {
    lw_model *m = open_with("double-pendulum.json", names[k]);
    lw_sim_output out = {.every = 10, .keep = 1};
    lw_sim_result r;
    g_assert_cmpint(lw_simulate_ex(m, 100.0, 1e-3, &out, &r, NULL, NULL), ==, LW_OK);
    g_assert_cmpint(r.steps, ==, 100000);
    int c = lwt_col(m, "energy");
    long n = r.rows;
    err[k][0] = energy_error(&r, c, 0, n / 10);
    err[k][1] = energy_error(&r, c, n - n / 10, n);
    g_test_message("%s: energy error over the first 10 s %.4e J, over the last 10 s %.4e J, at the end %.4e J",
                   names[k], err[k][0], err[k][1], lwt_at(&r, n - 1, c) - lwt_at(&r, 0, c));
    lw_sim_result_clear(&r);
    lw_model_free(m);
  }
  /* bounded: the oscillation of the first tenth, not a growth (the link's
   * potential energy swings by about 10 J) */
  g_assert_cmpfloat(err[0][1], <, 1.2 * err[0][0]);
  g_assert_cmpfloat(err[0][1], <, 3e-3);
  /* and below ALI3-P's at the same step */
  g_assert_cmpfloat(err[0][1], <, err[1][1]);
}

/* ---- agreement with ALI3-P -------------------------------------------- */

/* every shipped model, 0.3 s at h = 0.1 ms: every output agrees with
 * ALI3-P's; positions, angles, velocities and energies to 1e-5
 * (relative to 1 + |y|), reactions and accelerations (where ALI3-P's
 * multipliers converge more slowly) to 5e-3 */
static void test_models(void)
{
  for (size_t i = 0; i < G_N_ELEMENTS(lwt_models) + 1; i++) {
    const char *file = i < G_N_ELEMENTS(lwt_models) ? lwt_models[i] : "bouncing-ball.json";
    lw_sim_result r[2];
    lw_model *m[2];
    for (int k = 0; k < 2; k++) {
      m[k] = open_with(file, k ? "variational" : "ali3p");
      lw_sim_output out = {.every = 100, .keep = 1};
      g_assert_cmpint(lw_simulate_ex(m[k], 0.3, 1e-4, &out, &r[k], NULL, NULL), ==, LW_OK);
    }
    g_assert_cmpint(r[0].rows, ==, r[1].rows);
    double worst[2] = {0, 0};
    for (int o = 0; o < m[0]->nout; o++) {
      lw_output_type ty = m[0]->outputs[o].type;
      int loose = ty == LW_OUT_REACTION_FORCE || ty == LW_OUT_ACCELERATION || ty == LW_OUT_CONTROL ||
                  ty == LW_OUT_FRICTION_FORCE || ty == LW_OUT_NORMAL_FORCE;
      for (int c = 0; c < m[0]->outputs[o].width; c++) {
        int col = 1 + m[0]->out_col[o] + c;
        for (long row = 0; row < r[0].rows; row++) {
          double a = lwt_at(&r[0], row, col), v = lwt_at(&r[1], row, col);
          worst[loose] = fmax(worst[loose], fabs(a - v) / (1.0 + fabs(a)));
        }
      }
    }
    g_test_message("%s: largest difference %.3g (states, energies), %.3g (reactions, accelerations)", file,
                   worst[0], worst[1]);
    g_assert_cmpfloat(worst[0], <, 1e-5);
    g_assert_cmpfloat(worst[1], <, 5e-3);
    for (int k = 0; k < 2; k++) {
      lw_sim_result_clear(&r[k]);
      lw_model_free(m[k]);
    }
  }
}

/* ---- failure ---------------------------------------------------------- */

/* the four-bar driven through its dead point: the step fails with the
 * time and the equation, and the rows so far are kept */
static void test_dead_point(void)
{
  lw_desc *d = lwt_dead_point_desc(NULL);
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "variational");
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  int st = lw_simulate(m, 3.0, 1e-3, &r, NULL, NULL);
  g_test_message("status %d after %ld steps: %s (at %s, t = %g)", st, r.steps, r.error.msg, r.error.path,
                 r.error.time);
  g_assert_cmpint(st, ==, LW_ERR_SOLVER);
  g_assert_true(isfinite(r.error.time));
  g_assert_cmpfloat(r.error.time, >, 0.3);
  g_assert_cmpfloat(r.error.time, <, 1.0);
  g_assert_nonnull(strstr(r.error.msg, "t = "));
  g_assert_nonnull(strstr(r.error.msg, r.error.path));
  g_assert_true(g_str_has_prefix(r.error.path, "joints/") || g_str_has_prefix(r.error.path, "drivers/"));
  g_assert_cmpint(r.rows, ==, r.steps + 1);
  g_assert_cmpfloat(fabs(lwt_at(&r, r.rows - 1, 0) + 1e-3 - r.error.time), <, 1e-9);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- sensitivities ---------------------------------------------------- */

/* models with every element kind and every kind of parameter the
 * sensitivities take (stiffness, damping, rest values, function
 * coefficients, vectors, controllers' gains and targets, mass, centre of
 * mass, inertia, body points, a driver's function, gravity, initial
 * values, objective weights and targets), as tests/test-sens.c has them */
static const char *planar_json =
  "{\"linkwright\": 1, \"name\": \"elements\", \"planar\": true, \"gravity\": [0.3, -9.81],"
  " \"solver\": {\"t_end\": 0.2, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.0, \"com\": [0.5, 0.05], \"inertia\": 0.1, \"position\": [0, 0],"
  "   \"angle\": 0.3, \"points\": {\"start\": [0, 0], \"end\": [1, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 2.0, \"com\": [0.4, -0.02], \"inertia\": 0.2, \"position\": [0.95, 0.3],"
  "   \"angle\": -0.1, \"points\": {\"start\": [0, 0], \"end\": [0.8, 0]}},"
  "  {\"name\": \"wheel\", \"mass\": 0.7, \"com\": [0.01, 0.02], \"inertia\": 0.05, \"position\": [2.0, 0],"
  "   \"points\": {\"rim\": [0.3, 0]}}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\","
  "   \"point1\": \"end\", \"point2\": \"start\"},"
  "  {\"name\": \"hub\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"wheel\", \"at\": [2.0, 0]}],"
  " \"forces\": ["
  "  {\"name\": \"jsd\", \"type\": \"joint_spring_damper\", \"joint\": \"elbow\", \"stiffness\": 5,"
  "   \"damping\": 0.3, \"rest_value\": 0.2},"
  "  {\"name\": \"tq\", \"type\": \"torque\", \"body\": \"link1\", \"value\": 0.7,"
  "   \"function\": {\"type\": \"sine\", \"offset\": 0.2, \"amplitude\": 1.5, \"omega\": 4, \"phase\": 0.1}},"
  "  {\"name\": \"push\", \"type\": \"force\", \"body\": \"link2\", \"point\": \"end\", \"vector\": [1, 0.5],"
  "   \"function\": {\"type\": \"linear\", \"value\": 0.5, \"rate\": 2}},"
  "  {\"name\": \"sp\", \"type\": \"spring_damper\", \"body1\": \"wheel\", \"point1\": \"rim\","
  "   \"body2\": \"link2\", \"point2\": \"end\", \"stiffness\": 20, \"damping\": 0.5, \"rest_length\": 0.6},"
  "  {\"name\": \"fb\", \"type\": \"state_feedback\", \"joint\": \"shoulder\", \"gains\": ["
  "   {\"joint\": \"shoulder\", \"kp\": 4, \"kd\": 0.5, \"ki\": 1.5, \"target\": {\"type\": \"sine\", \"offset\": 0.2,"
  "    \"amplitude\": 0.3, \"omega\": 2, \"phase\": 0}},"
  "   {\"joint\": \"elbow\", \"kp\": -1.5, \"kd\": 0.2}]},"
  "  {\"name\": \"spd\", \"type\": \"pid\", \"joint\": \"elbow\", \"measure\": \"rate\", \"kp\": 0.8, \"ki\": 0.6,"
  "   \"target\": {\"type\": \"linear\", \"value\": 0.3, \"rate\": -0.5}}],"
  " \"drivers\": [{\"name\": \"motor\", \"joint\": \"hub\", \"function\": {\"type\": \"sine\","
  "   \"offset\": 0.1, \"amplitude\": 0.5, \"omega\": 3, \"phase\": 0.2}}],"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.3, \"velocity\": 0.5},"
  "   {\"joint\": \"elbow\", \"value\": -0.4, \"velocity\": -0.2}],"
  " \"outputs\": ["
  "  {\"name\": \"p\", \"type\": \"position\", \"body\": \"link2\", \"point\": \"end\"},"
  "  {\"name\": \"v\", \"type\": \"velocity\", \"body\": \"link2\", \"point\": \"end\"},"
  "  {\"name\": \"a\", \"type\": \"acceleration\", \"body\": \"link2\", \"point\": [0.2, 0.1]},"
  "  {\"name\": \"th\", \"type\": \"joint_coordinate\", \"joint\": \"elbow\"},"
  "  {\"name\": \"thd\", \"type\": \"joint_velocity\", \"joint\": \"elbow\"},"
  "  {\"name\": \"R\", \"type\": \"reaction_force\", \"joint\": \"shoulder\"},"
  "  {\"name\": \"ke\", \"type\": \"kinetic_energy\"},"
  "  {\"name\": \"pe\", \"type\": \"potential_energy\"},"
  "  {\"name\": \"u\", \"type\": \"control\", \"force\": \"fb\"},"
  "  {\"name\": \"u2\", \"type\": \"control\", \"force\": \"spd\"},"
  "  {\"name\": \"spl\", \"type\": \"spring_length\", \"force\": \"sp\"},"
  "  {\"name\": \"spf\", \"type\": \"spring_force\", \"force\": \"sp\"},"
  "  {\"name\": \"jsl\", \"type\": \"spring_length\", \"force\": \"jsd\"},"
  "  {\"name\": \"jsf\", \"type\": \"spring_force\", \"force\": \"jsd\"}],"
  " \"parameters\": ["
  "  {\"name\": \"k_elbow\", \"bind\": \"forces/jsd/stiffness\"},"
  "  {\"name\": \"c_elbow\", \"bind\": \"forces/jsd/damping\"},"
  "  {\"name\": \"rest_elbow\", \"bind\": \"forces/jsd/rest_value\"},"
  "  {\"name\": \"tq_amp\", \"bind\": \"forces/tq/function/1\"},"
  "  {\"name\": \"tq_omega\", \"bind\": \"forces/tq/function/2\"},"
  "  {\"name\": \"tq_value\", \"bind\": \"forces/tq/vector/2\"},"
  "  {\"name\": \"push_x\", \"bind\": \"forces/push/vector/0\"},"
  "  {\"name\": \"push_rate\", \"bind\": \"forces/push/function/1\"},"
  "  {\"name\": \"sp_k\", \"bind\": \"forces/sp/stiffness\"},"
  "  {\"name\": \"sp_c\", \"bind\": \"forces/sp/damping\"},"
  "  {\"name\": \"sp_rest\", \"bind\": \"forces/sp/rest_length\"},"
  "  {\"name\": \"fb_kp0\", \"bind\": \"forces/fb/gains/0/kp\"},"
  "  {\"name\": \"fb_kd1\", \"bind\": \"forces/fb/gains/1/kd\"},"
  "  {\"name\": \"fb_amp\", \"bind\": \"forces/fb/gains/0/target/1\"},"
  "  {\"name\": \"spd_kp\", \"bind\": \"forces/spd/kp\"},"
  "  {\"name\": \"fb_ki0\", \"bind\": \"forces/fb/gains/0/ki\"},"
  "  {\"name\": \"spd_ki\", \"bind\": \"forces/spd/ki\"},"
  "  {\"name\": \"spd_rate\", \"bind\": \"forces/spd/target/1\"},"
  "  {\"name\": \"m2\", \"bind\": \"bodies/link2/mass\"},"
  "  {\"name\": \"com2y\", \"bind\": \"bodies/link2/com/1\"},"
  "  {\"name\": \"J2\", \"bind\": \"bodies/link2/inertia/2\"},"
  "  {\"name\": \"end1y\", \"bind\": \"bodies/link1/points/end/1\"},"
  "  {\"name\": \"rim\", \"bind\": \"bodies/wheel/points/rim/0\"},"
  "  {\"name\": \"drv_omega\", \"bind\": \"drivers/motor/function/2\"},"
  "  {\"name\": \"drv_phase\", \"bind\": \"drivers/motor/function/3\"},"
  "  {\"name\": \"gy\", \"bind\": \"gravity/1\"},"
  "  {\"name\": \"sh0\", \"bind\": \"initial/shoulder/value\"},"
  "  {\"name\": \"el_v0\", \"bind\": \"initial/elbow/velocity\"},"
  "  {\"name\": \"w_o1\", \"bind\": \"objectives/o1/terms/0/weight\"},"
  "  {\"name\": \"tgt_o1\", \"bind\": \"objectives/o1/terms/0/target/1\"}],"
  " \"objectives\": ["
  "  {\"name\": \"o1\", \"terms\": [{\"output\": \"p\", \"target\": [1.5, 0.2], \"weight\": 2},"
  "    {\"output\": \"th\", \"kind\": \"final\", \"form\": \"value\"}, {\"output\": \"u2\", \"kind\": \"final\"}]},"
  "  {\"name\": \"o2\", \"terms\": [{\"output\": \"R\"}, {\"output\": \"ke\", \"kind\": \"final\"},"
  "    {\"output\": \"a\", \"component\": 0}, {\"output\": \"v\"}, {\"output\": \"thd\", \"form\": \"value\"},"
  "    {\"output\": \"pe\", \"kind\": \"final\", \"form\": \"value\"}, {\"output\": \"u\"}]}]}";

static const char *spatial_json =
  "{\"linkwright\": 1, \"name\": \"elements-3d\", \"gravity\": [0, -1, -9.81],"
  " \"solver\": {\"t_end\": 0.2, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.0, \"com\": [0.5, 0.01, 0.02], \"inertia\": [0.02, 0.08, 0.09, 0.001, 0, 0.002],"
  "   \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"end\": [1, 0, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 1.5, \"com\": [0.4, 0, 0.03], \"inertia\": [0.02, 0.1, 0.1, 0, 0.003, 0],"
  "   \"position\": [1, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"tip\": [0.8, 0.05, 0]}},"
  "  {\"name\": \"slider\", \"mass\": 0.5, \"com\": [0, 0, 0], \"inertia\": [0.001, 0.001, 0.001, 0, 0, 0],"
  "   \"position\": [0, -1, 0], \"orientation\": [1, 0, 0, 0]}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0, 0],"
  "   \"axis\": [0, 0, 1]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\", \"at\": [1, 0, 0],"
  "   \"axis\": [0, 0.6, 0.8]},"
  "  {\"name\": \"rail\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"slider\", \"at\": [0, -1, 0],"
  "   \"axis\": [1, 0, 0]}],"
  " \"forces\": ["
  "  {\"name\": \"jsd\", \"type\": \"joint_spring_damper\", \"joint\": \"elbow\", \"stiffness\": 3,"
  "   \"damping\": 0.2, \"rest_value\": 0.1},"
  "  {\"name\": \"tq\", \"type\": \"torque\", \"body\": \"link2\", \"vector\": [0.1, 0.2, 0.3],"
  "   \"function\": {\"type\": \"sine\", \"offset\": 0.5, \"amplitude\": 1, \"omega\": 2, \"phase\": 0}},"
  "  {\"name\": \"push\", \"type\": \"force\", \"body\": \"link1\", \"point\": \"end\", \"vector\": [0, 0.3, -1]},"
  "  {\"name\": \"sp\", \"type\": \"spring_damper\", \"body1\": \"ground\", \"point1\": [1, 1, 0.5],"
  "   \"body2\": \"link2\", \"point2\": \"tip\", \"stiffness\": 15, \"damping\": 0.4, \"rest_length\": 0.9},"
  "  {\"name\": \"rail_sd\", \"type\": \"joint_spring_damper\", \"joint\": \"rail\", \"stiffness\": 8,"
  "   \"damping\": 0.1, \"rest_value\": 0.2},"
  "  {\"name\": \"rail_ctl\", \"type\": \"state_feedback\", \"joint\": \"rail\", \"gains\": ["
  "   {\"joint\": \"rail\", \"kp\": 6, \"kd\": 0.8, \"target\": {\"type\": \"constant\", \"value\": 0.05}},"
  "   {\"joint\": \"elbow\", \"measure\": \"rate\", \"kp\": 0.3, \"ki\": 0.2}]},"
  "  {\"name\": \"sh_pid\", \"type\": \"pid\", \"joint\": \"shoulder\", \"kp\": 2, \"kd\": 0.3, \"ki\": 0.8,"
  "   \"target\": {\"type\": \"sine\", \"offset\": 0.2, \"amplitude\": 0.2, \"omega\": 3, \"phase\": 0}}],"
  " \"drivers\": [],"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.2, \"velocity\": 0.4},"
  "   {\"joint\": \"elbow\", \"value\": 0.3, \"velocity\": -0.3}, {\"joint\": \"rail\", \"value\": 0.1}],"
  " \"outputs\": ["
  "  {\"name\": \"p\", \"type\": \"position\", \"body\": \"link2\", \"point\": \"tip\"},"
  "  {\"name\": \"a\", \"type\": \"acceleration\", \"body\": \"link2\", \"point\": \"tip\"},"
  "  {\"name\": \"th\", \"type\": \"joint_coordinate\", \"joint\": \"elbow\"},"
  "  {\"name\": \"R\", \"type\": \"reaction_force\", \"joint\": \"elbow\"},"
  "  {\"name\": \"E\", \"type\": \"total_energy\"},"
  "  {\"name\": \"u\", \"type\": \"control\", \"force\": \"rail_ctl\"},"
  "  {\"name\": \"spf\", \"type\": \"spring_force\", \"force\": \"sp\"},"
  "  {\"name\": \"spl\", \"type\": \"spring_length\", \"force\": \"sp\"},"
  "  {\"name\": \"rsf\", \"type\": \"spring_force\", \"force\": \"rail_sd\"}],"
  " \"parameters\": ["
  "  {\"name\": \"k_elbow\", \"bind\": \"forces/jsd/stiffness\"},"
  "  {\"name\": \"tq_y\", \"bind\": \"forces/tq/vector/1\"},"
  "  {\"name\": \"tq_phase\", \"bind\": \"forces/tq/function/3\"},"
  "  {\"name\": \"push_z\", \"bind\": \"forces/push/vector/2\"},"
  "  {\"name\": \"sp_rest\", \"bind\": \"forces/sp/rest_length\"},"
  "  {\"name\": \"sp_anchor\", \"bind\": \"forces/sp/point1/2\"},"
  "  {\"name\": \"m2\", \"bind\": \"bodies/link2/mass\"},"
  "  {\"name\": \"com1z\", \"bind\": \"bodies/link1/com/2\"},"
  "  {\"name\": \"Ixy2\", \"bind\": \"bodies/link1/inertia/3\"},"
  "  {\"name\": \"tip_y\", \"bind\": \"bodies/link2/points/tip/1\"},"
  "  {\"name\": \"rail_k\", \"bind\": \"forces/rail_sd/stiffness\"},"
  "  {\"name\": \"rail_kp\", \"bind\": \"forces/rail_ctl/gains/0/kp\"},"
  "  {\"name\": \"el_rate_k\", \"bind\": \"forces/rail_ctl/gains/1/kp\"},"
  "  {\"name\": \"sh_kd\", \"bind\": \"forces/sh_pid/kd\"},"
  "  {\"name\": \"sh_ki\", \"bind\": \"forces/sh_pid/ki\"},"
  "  {\"name\": \"el_rate_ki\", \"bind\": \"forces/rail_ctl/gains/1/ki\"},"
  "  {\"name\": \"sh_tgt\", \"bind\": \"forces/sh_pid/target/0\"},"
  "  {\"name\": \"el0\", \"bind\": \"initial/elbow/value\"}],"
  " \"objectives\": ["
  "  {\"name\": \"o1\", \"terms\": [{\"output\": \"p\", \"target\": [1, 0.5, 0]}, {\"output\": \"E\", \"kind\": \"final\","
  "    \"form\": \"value\"}]},"
  "  {\"name\": \"o2\", \"terms\": [{\"output\": \"R\"}, {\"output\": \"a\", \"weight\": 0.01},"
  "    {\"output\": \"th\", \"kind\": \"final\"}, {\"output\": \"u\", \"weight\": 0.1}]}]}";


/* every parameter and objective of a co-design model over t_end: forward
 * and adjoint agree to 1e-8 (relative to the largest gradient entry of
 * the objective), and both with central differences of the whole run */
static void check_sens(const char *file, double t_end, double fd_step, double fd_tol)
{
  lw_desc *d = lwt_read(file);
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "variational");
  d->solver.t_end = t_end;
  int p = d->nparams, no = d->nobjectives;
  int *params = g_new(int, p), *objs = g_new(int, no);
  for (int j = 0; j < p; j++)
    params[j] = j;
  for (int o = 0; o < no; o++)
    objs[o] = o;
  lw_sens_result r[3];
  lw_sens_method methods[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  for (int k = 0; k < 3; k++) {
    lw_sens_options opt = {.method = methods[k], .nparams = p, .params = params, .nobj = no, .objectives = objs,
                           .fd_step = fd_step};
    if (lw_sensitivity(d, &opt, &r[k]) != LW_OK)
      g_error("%s %d: %s", file, k, r[k].error.msg);
  }
  for (int o = 0; o < no; o++) {
    double scale = 0;
    for (int j = 0; j < p; j++)
      scale = fmax(scale, fabs(r[0].gradient[o * p + j]));
    g_assert_cmpfloat(scale, >, 0.0);
    g_assert_cmpfloat(fabs(r[0].value[o] - r[1].value[o]), <=, 1e-14 * (1 + fabs(r[0].value[o])));
    for (int j = 0; j < p; j++) {
      double f = r[0].gradient[o * p + j], a = r[1].gradient[o * p + j], c = r[2].gradient[o * p + j];
      g_test_message("%s %s / %s: forward %.12g adjoint %.12g fd %.12g", file, d->objectives[o].name,
                     d->params[j].name, f, a, c);
      g_assert_cmpfloat(fabs(f - a), <=, 1e-8 * scale);
      g_assert_cmpfloat(fabs(f - c), <=, fd_tol * scale);
    }
  }
  for (int k = 0; k < 3; k++)
    lw_sens_result_clear(&r[k]);
  g_free(params);
  g_free(objs);
  lw_desc_free(d);
}

/* forward against adjoint (<= 1e-8) and against central differences of
 * step fd_step (<= fd_tol) for every parameter and objective of d, per
 * component; a component far below its objective's largest is measured
 * against 1e-3 (forward, adjoint) or 1e-2 (differences) of it, as in
 * tests/test-sens.c.  The differences are taken with the Newton iteration
 * converged to round-off: they see where it stops */
static void agree(lw_desc *d, double fd_step, double fd_tol)
{
  /* fd_step 0: forward and adjoint alone; so under the sanitizers too (the
   * differences are plain runs, checked for memory with every other test) */
  int nm = fd_step > 0 && !LW_UNDER_SANITIZERS ? 3 : 2;
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "variational");
  d->solver.tolerance = 1e-14;
  d->solver.constraint_tolerance = 1e-12;
  int p = d->nparams, no = d->nobjectives;
  g_autofree int *params = g_new(int, p), *objs = g_new(int, no);
  for (int j = 0; j < p; j++)
    params[j] = j;
  for (int o = 0; o < no; o++)
    objs[o] = o;
  lw_sens_result r[3];
  lw_sens_method methods[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  for (int k = 0; k < nm; k++) {
    lw_sens_options opt = {.method = methods[k], .nparams = p, .params = params, .nobj = no, .objectives = objs,
                           .fd_step = fd_step};
    if (lw_sensitivity(d, &opt, &r[k]) != LW_OK)
      g_error("%s %d: %s", d->name, k, r[k].error.msg);
  }
  double efa = 0, efd = 0;
  for (int o = 0; o < no; o++) {
    g_assert_cmpfloat(fabs(r[0].value[o] - r[1].value[o]), <=, 1e-14 * (1 + fabs(r[1].value[o])));
    double rowmax = 0;
    for (int j = 0; j < p; j++)
      rowmax = fmax(rowmax, fabs(r[1].gradient[o * p + j]));
    g_assert_cmpfloat(rowmax, >, 0.0);
    for (int j = 0; j < p; j++) {
      double gf = r[0].gradient[o * p + j], ga = r[1].gradient[o * p + j];
      efa = fmax(efa, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
      if (nm > 2)
        efd = fmax(efd, fabs(ga - r[2].gradient[o * p + j]) / fmax(fabs(ga), 1e-2 * rowmax));
    }
  }
  g_test_message("%s (%ld steps, %d parameters): forward vs adjoint %.2e, adjoint vs central differences (step %g) "
                 "%.2e; times: forward %.3f s, adjoint %.3f s, differences %.3f s",
                 d->name, r[1].steps, p, efa, fd_step, efd, r[0].wall_time_s, r[1].wall_time_s,
                 nm > 2 ? r[2].wall_time_s : 0.0);
  g_assert_cmpfloat(efa, <=, 1e-8);
  g_assert_cmpfloat(efd, <=, fd_tol);
  for (int k = 0; k < nm; k++)
    lw_sens_result_clear(&r[k]);
}

static void test_sens_elements(void)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(planar_json, -1, "planar.json", NULL, &err);
  g_assert_nonnull(d);
  agree(d, 1e-4, 1e-4);
  lw_desc_free(d);
  d = lw_model_read_data(spatial_json, -1, "spatial.json", NULL, &err);
  g_assert_nonnull(d);
  agree(d, 1e-3, 1e-4);
  lw_desc_free(d);
}

/* the cart's 601 spline values (parameters of one time function's
 * coefficients, each reaching only the steps near its knot) over 1 s:
 * forward against adjoint (central differences would take 1203 runs) */
static void test_sens_spline(void)
{
  lw_desc *d = lwt_read("cart-pendulum.json");
  d->solver.t_end = 1.0;
  agree(d, 0.0, 0.0);
  lw_desc_free(d);
}

/* the forward's output table (the application's sensitivity plots): the
 * objective's integrand summed from it is the gradient, and its columns
 * are the central differences of the outputs of whole runs */
static void test_sens_output_table(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "variational");
  d->solver.t_end = 0.5;
  d->solver.tolerance = 1e-14;
  d->solver.constraint_tolerance = 1e-12;
  int P[1] = {lw_desc_param_index(d, "LA1")}, O[1] = {lw_desc_objective_index(d, "psi1")};
  lw_sens_options opt = {.method = LW_SENS_FORWARD, .nparams = 1, .params = P, .nobj = 1, .objectives = O,
                         .keep_outputs = 1};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity(d, &opt, &r), ==, LW_OK);
  g_assert_cmpint(r.rows, ==, 501);
  lw_model *m = lwt_compile(d);
  int nc = lw_model_output_columns(m), cx = lwt_col(m, "r2.x") - 1, cy = lwt_col(m, "r2.y") - 1;
  g_assert_cmpint(r.ncols, ==, 1 + 2 * nc);
  /* d psi1 / d LA1 = trapezoid of 2 (r2 - r20) . d r2 / d LA1 */
  double sum = 0;
  for (long k = 0; k < r.rows; k++) {
    const double *row = r.table + (size_t)k * r.ncols;
    double w = (k == 0 || k == r.rows - 1) ? 0.5e-3 : 1e-3;
    sum += w * 2 * ((row[1 + cx] - 0.5) * row[1 + nc + cx] + (row[1 + cy] + 2.0) * row[1 + nc + cy]);
  }
  g_assert_cmpfloat(fabs(sum - r.gradient[0]), <=, 1e-12 * fabs(r.gradient[0]));
  /* every column at three times against the outputs of runs at LA1 +- dp */
  lw_sens_options ov = opt;
  ov.method = LW_SENS_VALUE;
  lw_sens_result v[2];
  double p0 = d->params[P[0]].value, dp = 1e-5 * fmax(1.0, fabs(p0));
  for (int k = 0; k < 2; k++) {
    d->params[P[0]].value = p0 + (k ? -dp : dp);
    g_assert_cmpint(lw_sensitivity(d, &ov, &v[k]), ==, LW_OK);
  }
  d->params[P[0]].value = p0;
  double worst = 0;
  for (long k = 0; k < r.rows; k += 250)
    for (int c = 0; c < nc; c++) {
      double fd = (v[0].table[(size_t)k * v[0].ncols + 1 + c] - v[1].table[(size_t)k * v[1].ncols + 1 + c]) / (2 * dp);
      double an = r.table[(size_t)k * r.ncols + 1 + nc + c];
      worst = fmax(worst, fabs(fd - an) / fmax(1.0, fabs(an)));
    }
  g_test_message("output table against central differences: %.3g", worst);
  g_assert_cmpfloat(worst, <, 1e-6);
  for (int k = 0; k < 2; k++)
    lw_sens_result_clear(&v[k]);
  lw_model_free(m);
  lw_sens_result_clear(&r);
  lw_desc_free(d);
}

static void test_sens_pendulum(void) { check_sens("pendulum.json", 1.0, 1e-5, 1e-6); }
static void test_sens_four_bar(void) { check_sens("four-bar.json", 1.0, 1e-5, 1e-6); }
static void test_sens_five_bar(void) { check_sens("five-bar.json", 1.0, 1e-5, 1e-6); }
static void test_sens_slider_crank(void) { check_sens("slider-crank-codesign.json", 0.5, 1e-5, 1e-6); }

/* joint friction (its force read at the Newton iterate's multipliers, at
 * the midpoint): a block sliding down a plane inclined at 0.6 rad
 * (tan 0.6 > mu_s = 0.4) moves as the dynamic coefficient says, and the
 * energy friction took out balances the mechanical energy lost */
static void test_friction(void)
{
  const double th = 0.6, g = 9.81, mu_d = 0.3;
  g_autofree char *json = g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"incline\", \"planar\": true, \"gravity\": [0, -9.81],\n"
    " \"solver\": {\"t_end\": 1, \"step\": 0.001, \"integrator\": \"variational\"},\n"
    " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"com\": [0, 0], \"inertia\": 0.01,\n"
    "   \"position\": [0, 0], \"angle\": %.17g}],\n"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"block\",\n"
    "   \"point1\": [0, 0], \"point2\": [0, 0], \"angle1\": %.17g,\n"
    "   \"friction\": {\"mu_s\": 0.4, \"mu_d\": %.17g, \"v_t\": 0.001}}],\n"
    " \"outputs\": [{\"name\": \"x\", \"type\": \"joint_coordinate\", \"joint\": \"slide\"},\n"
    "   {\"name\": \"E\", \"type\": \"total_energy\"},\n"
    "   {\"name\": \"W\", \"type\": \"dissipated_energy\"}]}\n",
    th, th, mu_d);
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "incline.json", NULL, &err);
  g_assert_nonnull(d);
  lw_model *m = lwt_compile(d);
  g_assert_cmpint(m->nfric, ==, 1);
  lw_sim_result r;
  g_assert_cmpint(lw_simulate(m, 1.0, 1e-3, &r, NULL, NULL), ==, LW_OK);
  int cx = lwt_col(m, "x"), cE = lwt_col(m, "E"), cW = lwt_col(m, "W");
  double x1 = lwt_at(&r, r.rows - 1, cx), x_exact = -0.5 * g * (sin(th) - mu_d * cos(th));
  double E0 = lwt_at(&r, 0, cE), bal = 0;
  for (long i = 0; i < r.rows; i++)
    bal = fmax(bal, fabs(lwt_at(&r, i, cE) + lwt_at(&r, i, cW) - E0));
  g_test_message("x(1) = %.8f (sliding at mu_d from rest: %.8f), |E + W - E0| <= %.3g", x1, x_exact, bal);
  /* the regularized law sticks over the first milliseconds (v_t) */
  g_assert_cmpfloat(fabs(x1 - x_exact), <, 2e-3);
  g_assert_cmpfloat(bal, <, 1e-8);
  g_assert_cmpfloat(lwt_at(&r, r.rows - 1, cW), >, 3.0);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- allocation and the sparse path ------------------------------------- */

/* n steps of the model in path (an integrator named in it or set here)
 * allocate nothing: the step's scratch is made with the workspace */
static void steps_allocate_nothing(lw_model *m, int n)
{
#ifdef LW_SANITIZED
  (void)m;
  (void)n;
  g_test_skip("allocation counting needs the plain build");
#else
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  double *out = g_new0(double, lw_model_output_columns(m) + 1);
  count = 0;
  counting = 1;
  int st = 0;
  for (int k = 0; k < n && !st; k++) {
    lw_step_info info;
    st = lw_step(m, d, &info, &err);
    lw_outputs(m, d, out);
  }
  counting = 0;
  g_assert_cmpint(st, ==, LW_OK);
  g_test_message("%d steps (%s solver), %ld allocations", n, m->dense ? "dense" : "sparse", count);
  g_assert_cmpint(count, ==, 0);
  g_free(out);
  lw_data_free(d);
#endif
}

static void test_noalloc_five_bar(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "variational");
  lw_model *m = lwt_compile(d);
  steps_allocate_nothing(m, 300);
  lw_model_free(m);
  lw_desc_free(d);
}

/* a 40-link chain (the sparse CHOLMOD path): no allocation, and 0.1 s
 * agrees with ALI3-P's to the accuracy of the step */
static void test_chain_sparse(void)
{
  g_autofree char *path = g_build_filename(g_get_tmp_dir(), "lw-variational-chain.json", NULL);
  g_autofree char *cmd = g_strdup_printf("%s generate-chain 40 --out %s", LW_CLI, path);
  int status;
  g_assert_true(g_spawn_command_line_sync(cmd, NULL, NULL, &status, NULL));
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  lw_error err;
  lw_model *m = lw_model_open(path, &err);
  g_assert_nonnull(m);
  g_assert_false(m->dense);
  set_integrator(m, "variational");
  steps_allocate_nothing(m, 20);
  lw_data *dv = run_steps(m, 1e-3, 100);
  set_integrator(m, "ali3p");
  lw_data *da = run_steps(m, 1e-3, 100);
  double e = max_diff(lw_data_q(dv), lw_data_q(da), lw_model_nq(m));
  g_test_message("chain of 40, 0.1 s: |q_variational - q_ali3p| = %.3g", e);
  g_assert_cmpfloat(e, <, 1e-4);
  lw_data_free(dv);
  lw_data_free(da);
  lw_model_free(m);
  g_remove(path);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/variational/select", test_select);
  g_test_add_func("/variational/cli", test_cli);
  g_test_add_func("/variational/order/pendulum", test_order_pendulum);
  g_test_add_func("/variational/order/four-bar", test_order_four_bar);
  g_test_add_func("/variational/energy", test_energy);
  g_test_add_func("/variational/models", test_models);
  g_test_add_func("/variational/dead-point", test_dead_point);
  g_test_add_func("/variational/sens/pendulum", test_sens_pendulum);
  g_test_add_func("/variational/sens/four-bar", test_sens_four_bar);
  g_test_add_func("/variational/sens/five-bar", test_sens_five_bar);
  g_test_add_func("/variational/sens/slider-crank-codesign", test_sens_slider_crank);
  g_test_add_func("/variational/sens/elements", test_sens_elements);
  g_test_add_func("/variational/sens/spline", test_sens_spline);
  g_test_add_func("/variational/sens/output-table", test_sens_output_table);
  g_test_add_func("/variational/friction", test_friction);
  g_test_add_func("/variational/noalloc", test_noalloc_five_bar);
  g_test_add_func("/variational/chain-sparse", test_chain_sparse);
  return g_test_run();
}
