/* test-outputs28.c: the body_angle output (values, unwrapping, its
 * sensitivities), the applied work and energy balance outputs (the balance
 * holds to second order in the step), and the refusals of a force on the
 * ground and of too many initial values. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "lw-test.h"

/* a planar double pendulum: link1 pinned to the ground, link2 to its end,
 * a damper on the elbow; drive 0: a torque on link1 with a time function,
 * 1: a driver on the elbow instead */
static char *pendulum_json(double t_end, double h, int drive)
{
  const char *forces =
      drive ? "{\"name\": \"damp\", \"type\": \"joint_spring_damper\", \"joint\": \"shoulder\", \"stiffness\": 0, "
              "\"damping\": 0.3}"
            : "{\"name\": \"motor\", \"type\": \"torque\", \"body\": \"link1\", \"value\": 1, "
              "\"function\": {\"type\": \"sine\", \"offset\": 30, \"amplitude\": 10, \"omega\": 2}}, "
              "{\"name\": \"damp\", \"type\": \"joint_spring_damper\", \"joint\": \"elbow\", \"stiffness\": 0, "
              "\"damping\": 0.3}";
  const char *drivers =
      drive ? "{\"name\": \"drv\", \"joint\": \"elbow\", \"function\": {\"type\": \"sine\", \"offset\": 0.3, "
              "\"amplitude\": 1.2, \"omega\": 4}}"
            : "";
  const char *initial = drive ? "{\"joint\": \"shoulder\", \"value\": 0, \"velocity\": 0}"
                              : "{\"joint\": \"shoulder\", \"value\": 0, \"velocity\": 0}, "
                                "{\"joint\": \"elbow\", \"value\": 0, \"velocity\": 0}";
  const char *params = drive ? "{\"name\": \"m2\", \"bind\": \"bodies/link2/mass\"}"
                             : "{\"name\": \"tq\", \"bind\": \"forces/motor/function/0\"}, "
                               "{\"name\": \"m2\", \"bind\": \"bodies/link2/mass\"}";
  return g_strdup_printf(
      "{\"linkwright\": 1, \"name\": \"t\", \"planar\": true, \"gravity\": [0, -9.81],"
      " \"solver\": {\"t_end\": %.17g, \"step\": %.17g},"
      " \"bodies\": ["
      "  {\"name\": \"link1\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": 0.0833333333, \"position\": [0, 0],"
      "   \"angle\": 0, \"points\": {\"start\": [0, 0], \"end\": [1, 0]}},"
      "  {\"name\": \"link2\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": 0.0833333333, \"position\": [1, 0],"
      "   \"angle\": 0, \"points\": {\"start\": [0, 0], \"end\": [1, 0]}}],"
      " \"joints\": ["
      "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0]},"
      "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\","
      "   \"point1\": \"end\", \"point2\": \"start\"}],"
      " \"forces\": [%s], \"drivers\": [%s], \"initial\": [%s],"
      " \"outputs\": ["
      "  {\"name\": \"a1\", \"type\": \"body_angle\", \"body\": \"link1\"},"
      "  {\"name\": \"a2\", \"type\": \"body_angle\", \"body\": \"link2\"},"
      "  {\"name\": \"th1\", \"type\": \"joint_coordinate\", \"joint\": \"shoulder\"},"
      "  {\"name\": \"th2\", \"type\": \"joint_coordinate\", \"joint\": \"elbow\"},"
      "  {\"name\": \"E\", \"type\": \"total_energy\"},"
      "  {\"name\": \"D\", \"type\": \"dissipated_energy\"},"
      "  {\"name\": \"W\", \"type\": \"applied_work\"},"
      "  {\"name\": \"B\", \"type\": \"energy_balance\"}],"
      " \"parameters\": [%s],"
      " \"objectives\": [{\"name\": \"ang\", \"terms\": ["
      "   {\"output\": \"a2\", \"kind\": \"final\", \"form\": \"square\", \"target\": [1]},"
      "   {\"output\": \"a2\", \"kind\": \"integral\", \"form\": \"square\", \"weight\": 0.5, \"target\": [0]}]}]}",
      t_end, h, forces, drivers, initial, params);
}

static lw_desc *read_text(const char *text, lw_error *err)
{
  return lw_model_read_data(text, -1, "t.json", NULL, err);
}

static lw_model *compile_text(const char *text)
{
  lw_error err = {0};
  lw_desc *d = read_text(text, &err);
  if (!d)
    g_error("%s", err.msg);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  return m;
}

/* the message compiling text gives (NULL when it compiles) */
static char *compile_error(const char *text, char *path, size_t plen)
{
  lw_error err = {0};
  lw_desc *d = read_text(text, &err);
  if (!d)
    return g_strdup(err.msg);
  lw_model *m = lw_compile(d, &err);
  lw_desc_free(d);
  if (m) {
    lw_model_free(m);
    return NULL;
  }
  g_strlcpy(path, err.path, plen);
  return g_strdup(err.msg);
}

/* ---- body angle ------------------------------------------------------- */

/* link1's angle is the shoulder's coordinate, link2's the sum of both joint
 * angles; the motor spins the pendulum over the top, and the angles go on
 * past pi without a jump */
static void test_body_angle_values(void)
{
  g_autofree char *js = pendulum_json(4.0, 1e-3, 0);
  lw_model *m = compile_text(js);
  lw_sim_result r = {0};
  g_assert_cmpint(lw_simulate(m, 4.0, 1e-3, &r, NULL, NULL), ==, LW_OK);
  int ca1 = lwt_col(m, "a1"), ca2 = lwt_col(m, "a2"), c1 = lwt_col(m, "th1"), c2 = lwt_col(m, "th2");
  double e1 = 0, e2 = 0, jump = 0;
  for (long i = 0; i < r.rows; i++) {
    e1 = fmax(e1, fabs(lwt_at(&r, i, ca1) - lwt_at(&r, i, c1)));
    e2 = fmax(e2, fabs(lwt_at(&r, i, ca2) - lwt_at(&r, i, c1) - lwt_at(&r, i, c2)));
    if (i)
      jump = fmax(jump, fabs(lwt_at(&r, i, ca2) - lwt_at(&r, i - 1, ca2)));
  }
  double a1end = lwt_at(&r, r.rows - 1, ca1), a2end = lwt_at(&r, r.rows - 1, ca2);
  g_test_message("a1 - th1 %.3g, a2 - th1 - th2 %.3g, largest step change %.3g, final a1 %.4f a2 %.4f", e1, e2,
                 jump, a1end, a2end);
  g_assert_cmpfloat(e1, <, 1e-12);
  g_assert_cmpfloat(e2, <, 1e-9); /* th2 unwrapped on its own: equal, not up to 2 pi */
  g_assert_cmpfloat(fabs(a1end), >, 2 * M_PI); /* went round at least once */
  g_assert_cmpfloat(jump, <, 0.1);
  g_assert_cmpstr(lw_model_output_unit(m, lwt_col(m, "a2") - 1), ==, "rad");
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* an objective on link2's angle: forward = adjoint, and both = central
 * differences, for a force parameter and a mass */
static void test_body_angle_sensitivity(void)
{
  g_autofree char *js = pendulum_json(1.5, 1e-3, 0);
  lw_error err = {0};
  lw_desc *d = read_text(js, &err);
  g_assert_nonnull(d);
  int params[2] = {lw_desc_param_index(d, "tq"), lw_desc_param_index(d, "m2")};
  int obj = lw_desc_objective_index(d, "ang");
  lw_sens_result res[3] = {{0}};
  lw_sens_method meth[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  for (int k = 0; k < 3; k++) {
    lw_sens_options o = {.method = meth[k], .nparams = 2, .params = params, .nobj = 1, .objectives = &obj,
                         .fd_step = 1e-6, .threads = 1};
    g_assert_cmpint(lw_sensitivity(d, &o, &res[k]), ==, LW_OK);
  }
  for (int j = 0; j < 2; j++) {
    double f = res[0].gradient[j], a = res[1].gradient[j], c = res[2].gradient[j];
    g_test_message("d/d%s: forward %.12g adjoint %.12g central %.12g", j ? "m2" : "tq", f, a, c);
    g_assert_cmpfloat(fabs(f), >, 1e-3);
    g_assert_cmpfloat(fabs(f - a), <=, 1e-9 * fabs(f));
    g_assert_cmpfloat(fabs(f - c), <=, 1e-5 * fabs(f));
  }
  for (int k = 0; k < 3; k++)
    lw_sens_result_clear(&res[k]);
  lw_desc_free(d);
}

/* a spatial pendulum turning about the ground's z axis: its body angle about
 * z is its joint angle; without an axis it is refused */
static const char *spatial_fmt =
    "{\"linkwright\": 1, \"name\": \"s\", \"gravity\": [0, -9.81, 0], \"solver\": {\"t_end\": 1, \"step\": 0.001},"
    " \"bodies\": [{\"name\": \"arm\", \"mass\": 1, \"com\": [0.5, 0, 0], \"inertia\": [0.01, 0.09, 0.09, 0, 0, 0],"
    "   \"position\": [0, 0, 0], \"points\": {\"tip\": [1, 0, 0]}}],"
    " \"joints\": [{\"name\": \"pin\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"arm\","
    "   \"at\": [0, 0, 0], \"axis\": [0, 0, 1]}],"
    " \"forces\": [{\"name\": \"spin\", \"type\": \"torque\", \"body\": \"arm\", \"vector\": [0, 0, 25]}],"
    " \"outputs\": [{\"name\": \"q\", \"type\": \"joint_coordinate\", \"joint\": \"pin\"},"
    "   {\"name\": \"a\", \"type\": \"body_angle\", \"body\": \"arm\"%s}]}";

static void test_body_angle_spatial(void)
{
  g_autofree char *bad = g_strdup_printf(spatial_fmt, "");
  char path[256] = "";
  g_autofree char *msg = compile_error(bad, path, sizeof path);
  g_test_message("%s: %s", path, msg);
  g_assert_nonnull(msg);
  g_assert_cmpstr(path, ==, "outputs/a/axis");
  g_assert_nonnull(strstr(msg, "needs the ground axis"));
  g_autofree char *good = g_strdup_printf(spatial_fmt, ", \"axis\": [0, 0, 2]");
  lw_model *m = compile_text(good);
  lw_sim_result r = {0};
  g_assert_cmpint(lw_simulate(m, 1.0, 1e-3, &r, NULL, NULL), ==, LW_OK);
  int ca = lwt_col(m, "a"), cq = lwt_col(m, "q");
  double e = 0;
  for (long i = 0; i < r.rows; i++)
    e = fmax(e, fabs(lwt_at(&r, i, ca) - lwt_at(&r, i, cq)));
  double last = lwt_at(&r, r.rows - 1, ca);
  g_test_message("spatial: |a - q| <= %.3g, final angle %.4f", e, last);
  g_assert_cmpfloat(e, <, 1e-12);
  g_assert_cmpfloat(last, >, M_PI); /* past pi, unwrapped */
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* the ground, a point mass and a missing body are refused by name */
static void test_body_angle_refused(void)
{
  g_autofree char *js = pendulum_json(1.0, 1e-3, 0);
  const char *bodies[2] = {"ground", "nobody"};
  const char *says[2] = {"the ground does not turn", "does not exist"};
  for (int k = 0; k < 2; k++) {
    g_autofree char *from = g_strdup("{\"name\": \"a1\", \"type\": \"body_angle\", \"body\": \"link1\"}");
    g_autofree char *to = g_strdup_printf("{\"name\": \"a1\", \"type\": \"body_angle\", \"body\": \"%s\"}", bodies[k]);
    g_auto(GStrv) parts = g_strsplit(js, from, 2);
    g_autofree char *text = g_strjoin(to, parts[0], parts[1], NULL);
    char path[256] = "";
    g_autofree char *msg = compile_error(text, path, sizeof path);
    g_test_message("%s: %s", path, msg);
    g_assert_nonnull(msg);
    g_assert_cmpstr(path, ==, "outputs/a1/body");
    g_assert_nonnull(strstr(msg, says[k]));
  }
}

/* ---- applied work and energy balance ------------------------------------ */

/* the largest |B(t) - B(0)| of the energy balance over a run at step h */
static double balance_drift(int drive, double h, double *work, double *dissipated)
{
  g_autofree char *js = pendulum_json(3.0, h, drive);
  lw_model *m = compile_text(js);
  lw_sim_result r = {0};
  g_assert_cmpint(lw_simulate(m, 3.0, h, &r, NULL, NULL), ==, LW_OK);
  int cb = lwt_col(m, "B"), cw = lwt_col(m, "W"), cd = lwt_col(m, "D"), ce = lwt_col(m, "E");
  double drift = 0, b0 = lwt_at(&r, 0, cb);
  g_assert_cmpfloat(fabs(b0 - lwt_at(&r, 0, ce)), <, 1e-14); /* nothing done yet */
  for (long i = 0; i < r.rows; i++)
    drift = fmax(drift, fabs(lwt_at(&r, i, cb) - b0));
  long n = r.rows - 1;
  *work = lwt_at(&r, n, cw);
  *dissipated = lwt_at(&r, n, cd);
  /* the balance is total energy + dissipated - work, column by column */
  g_assert_cmpfloat(fabs(lwt_at(&r, n, cb) - (lwt_at(&r, n, ce) + *dissipated - *work)), <, 1e-9);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  return drift;
}

/* a torque (drive 0) or a driver (drive 1) puts work in, a damper takes
 * energy out: the balance stays at its start to O(h^2) */
static void check_balance(int drive)
{
  double w1, d1, w2, d2, w3, d3;
  double b1 = balance_drift(drive, 2e-3, &w1, &d1);
  double b2 = balance_drift(drive, 1e-3, &w2, &d2);
  double b3 = balance_drift(drive, 5e-4, &w3, &d3);
  g_test_message("%s: work %.6f J, dissipated %.6f J; balance drift %.3e (h 2 ms), %.3e (1 ms), %.3e (0.5 ms); "
                 "ratios %.3f %.3f",
                 drive ? "driver" : "torque", w2, d2, b1, b2, b3, b1 / b2, b2 / b3);
  g_assert_cmpfloat(fabs(w2), >, 1.0);
  g_assert_cmpfloat(d2, >, 0.1);
  g_assert_cmpfloat(b2, <, 1e-3 * fabs(w2));
  g_assert_cmpfloat(b1 / b2, >, 3.5);
  g_assert_cmpfloat(b1 / b2, <, 4.5);
  g_assert_cmpfloat(b2 / b3, >, 3.5);
  g_assert_cmpfloat(b2 / b3, <, 4.5);
}

static void test_balance_torque(void) { check_balance(0); }
static void test_balance_driver(void) { check_balance(1); }

/* the tolerance mode carries the work through its extrapolation and its
 * interpolated rows: the balance holds there too */
static void test_balance_tolerance(void)
{
  g_autofree char *js0 = pendulum_json(3.0, 1e-3, 0);
  g_auto(GStrv) parts = g_strsplit(js0, "\"step\": 0.001", 2);
  g_autofree char *js = g_strjoin("\"step\": 0.01, \"mode\": \"tolerance\", \"rtol\": 1e-8, \"atol\": 1e-8", parts[0], parts[1],
                                  NULL);
  lw_model *m = compile_text(js);
  lw_sim_result r = {0};
  g_assert_cmpint(lw_simulate(m, 3.0, 0.01, &r, NULL, NULL), ==, LW_OK);
  int cb = lwt_col(m, "B"), cw = lwt_col(m, "W");
  double drift = 0;
  for (long i = 0; i < r.rows; i++)
    drift = fmax(drift, fabs(lwt_at(&r, i, cb) - lwt_at(&r, 0, cb)));
  g_test_message("tolerance mode: %ld rows, work %.6f, balance drift %.3e", r.rows,
                 lwt_at(&r, r.rows - 1, cw), drift);
  g_assert_cmpfloat(fabs(lwt_at(&r, r.rows - 1, cw)), >, 1.0);
  /* rows between the steps interpolate the work linearly (the state to
   * fifth order): the balance there is as good as that line */
  g_assert_cmpfloat(drift, <, 1e-5 * fabs(lwt_at(&r, r.rows - 1, cw)));
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* the work is an integral over the run: an objective reading it is refused */
static void test_work_objective_refused(void)
{
  g_autofree char *js = pendulum_json(1.0, 1e-3, 0);
  const char *outs[2] = {"W", "B"};
  for (int k = 0; k < 2; k++) {
    g_auto(GStrv) parts = g_strsplit(js, "{\"output\": \"a2\", \"kind\": \"final\"", 2);
    g_autofree char *to = g_strdup_printf("{\"output\": \"%s\", \"kind\": \"final\"", outs[k]);
    g_autofree char *text = g_strjoin(to, parts[0], parts[1], NULL);
    char path[256] = "";
    g_autofree char *msg = compile_error(text, path, sizeof path);
    g_test_message("%s: %s", path, msg);
    g_assert_nonnull(msg);
    g_assert_cmpstr(path, ==, "objectives/ang/terms/0/output");
    g_assert_nonnull(strstr(msg, "cannot be used in an objective"));
  }
}

/* the new outputs are written back as read */
static void test_round_trip(void)
{
  g_autofree char *good = g_strdup_printf(spatial_fmt, ", \"axis\": [0, 0, 2]");
  lw_error err = {0};
  lw_desc *d = read_text(good, &err);
  g_assert_nonnull(d);
  g_autofree char *text = lw_model_to_json(d);
  lw_desc *d2 = read_text(text, &err);
  g_assert_nonnull(d2);
  const lw_output_desc *o = &d2->outputs[1];
  g_assert_cmpint(o->type, ==, LW_OUT_BODY_ANGLE);
  g_assert_cmpstr(o->body, ==, "arm");
  g_assert_true(o->has_axis);
  g_assert_cmpfloat(o->axis[2], ==, 2.0);
  lw_desc_free(d2);
  lw_desc_free(d);
}

/* the application's built-in outputs offer each planar body's angle, the
 * applied work and the balance */
static void test_builtin_outputs(void)
{
  g_autofree char *js = pendulum_json(1.0, 1e-3, 0);
  lw_error err = {0};
  lw_desc *d = read_text(js, &err);
  g_assert_nonnull(d);
  lw_desc_add_builtin_outputs(d);
  lw_model *m = lwt_compile(d);
  lw_sim_result r = {0};
  g_assert_cmpint(lw_simulate(m, 0.2, 1e-3, &r, NULL, NULL), ==, LW_OK);
  long n = r.rows - 1;
  g_assert_cmpfloat(fabs(lwt_at(&r, n, lwt_col(m, "link1.angle")) - lwt_at(&r, n, lwt_col(m, "a1"))), <, 1e-15);
  g_assert_cmpfloat(lwt_at(&r, n, lwt_col(m, "applied_work")), ==, lwt_at(&r, n, lwt_col(m, "W")));
  g_assert_cmpfloat(lwt_at(&r, n, lwt_col(m, "energy_balance")), ==, lwt_at(&r, n, lwt_col(m, "B")));
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- refusals ------------------------------------------------------------ */

/* a force on the ground does nothing: refused, naming the force */
static void test_force_on_ground(void)
{
  g_autofree char *js = pendulum_json(1.0, 1e-3, 0);
  g_auto(GStrv) parts = g_strsplit(js, "\"forces\": [", 2);
  g_autofree char *text = g_strjoin("\"forces\": [{\"name\": \"push\", \"type\": \"force\", \"body\": \"ground\", "
                                    "\"point\": [0, 0], \"vector\": [1, 0]}, ",
                                    parts[0], parts[1], NULL);
  char path[256] = "";
  g_autofree char *msg = compile_error(text, path, sizeof path);
  g_test_message("%s: %s", path, msg);
  g_assert_nonnull(msg);
  g_assert_true(g_str_has_prefix(path, "forces/push"));
  g_assert_nonnull(strstr(msg, "force 'push' acts on the ground"));
}

/* two initial positions of the one-degree-of-freedom four-bar that
 * disagree: the message names both and says the mechanism has one degree
 * of freedom */
static void test_two_initial_values(void)
{
  lw_desc *d = lwt_read("four-bar.json");
  lw_initial_desc *in = lw_desc_add_initial(d, "D", 0);
  in->has_value = 1;
  in->value = 1.0;
  lw_model *m = lwt_compile(d);
  lw_data *data = lw_data_new(m);
  lw_error err = {0};
  g_assert_cmpint(lw_initialize(m, data, &err), ==, LW_ERR_MODEL);
  g_test_message("%s: %s", err.path, err.msg);
  g_assert_nonnull(strstr(err.msg, "(A, D)"));
  g_assert_nonnull(strstr(err.msg, "1 degree of freedom"));
  g_assert_null(strstr(err.msg, "cannot be assembled"));
  lw_data_free(data);
  lw_model_free(m);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/outputs28/body-angle/values", test_body_angle_values);
  g_test_add_func("/outputs28/body-angle/sensitivity", test_body_angle_sensitivity);
  g_test_add_func("/outputs28/body-angle/spatial", test_body_angle_spatial);
  g_test_add_func("/outputs28/body-angle/refused", test_body_angle_refused);
  g_test_add_func("/outputs28/balance/torque", test_balance_torque);
  g_test_add_func("/outputs28/balance/driver", test_balance_driver);
  g_test_add_func("/outputs28/balance/tolerance", test_balance_tolerance);
  g_test_add_func("/outputs28/balance/objective-refused", test_work_objective_refused);
  g_test_add_func("/outputs28/round-trip", test_round_trip);
  g_test_add_func("/outputs28/builtin-outputs", test_builtin_outputs);
  g_test_add_func("/outputs28/refuse/force-on-ground", test_force_on_ground);
  g_test_add_func("/outputs28/refuse/two-initial-values", test_two_initial_values);
  return g_test_run();
}
