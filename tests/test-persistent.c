/* test-persistent.c: persistent contact (seed 003 remark 11): a contact
 * whose impact is slower than its rest speed, or plastic, rests (its gap
 * held at zero by a constraint row) while its normal force pushes, and is
 * released where that force falls to zero.  Checked against closed forms:
 * a bouncing ball that comes to rest (N = m g), a plastic drop, a ball
 * lifted off the floor by a growing force, a pendulum held against a wall
 * (and at a joint limit) and pulled away by a growing torque. */
#include "lw-test.h"

#include <math.h>
#include <string.h>

#include "linkwright.h"

static lw_model *model_from_json(const char *json)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "test.json", NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  return m;
}

static lw_sim_result run(const lw_model *m, double t_end)
{
  lw_sim_result r;
  lw_simulate(m, t_end, lw_model_desc(m)->solver.step, &r, NULL, NULL);
  return r;
}

static double at(const lw_sim_result *r, long i, int c) { return r->table[(size_t)i * r->ncols + c]; }

/* a ball of mass 1 kg (its centre the contact point) over the floor y = 0;
 * %s: its height, the restitution, the upward force's rate (N/s) */
static char *ball_json(double y0, double e, double rate)
{
  return g_strdup_printf(
    "{\"linkwright\": 1, \"planar\": true, \"gravity\": [0, -9.81], \"solver\": {\"t_end\": 1, \"step\": 0.001},"
    " \"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"com\": [0, 0], \"inertia\": 0.001, \"position\": [0, %.17g],"
    "   \"angle\": 0, \"points\": {\"centre\": [0, 0]}}],"
    " \"forces\": [{\"name\": \"lift\", \"type\": \"force\", \"body\": \"ball\", \"point\": \"centre\","
    "   \"vector\": [0, 1], \"function\": {\"type\": \"linear\", \"rate\": %.17g}}],"
    " \"outputs\": [{\"name\": \"centre\", \"type\": \"position\", \"body\": \"ball\", \"point\": \"centre\"},"
    "   {\"name\": \"N\", \"type\": \"contact_force\", \"event\": \"floor\"}],"
    " \"events\": [{\"name\": \"floor\", \"type\": \"contact\", \"body\": \"ball\", \"point\": \"centre\","
    "   \"normal\": [0, 1], \"offset\": 0, \"restitution\": %.17g}]}",
    y0, rate, e);
}

/* the shipped bouncing ball: the bouncing ends, the contact rests and the
 * ball lies on the floor to t_end with N = m g; N is 0 while it flies */
static void test_ball_comes_to_rest(void)
{
  g_autofree char *js = ball_json(1.0, 0.8, 0.0);
  lw_model *m = model_from_json(js);
  lw_sim_result r = run(m, 6.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpstr(r.error.msg, ==, "");
  const lw_event_record *e = &r.events[r.nevents - 1];
  g_assert_cmpint(e->action, ==, LW_EVREC_REST);
  g_assert_cmpfloat(e->v_post, ==, 0.0);
  g_assert_cmpfloat(e->t, >, 4.0);
  g_assert_cmpfloat(e->t, <, 4.07);
  int cy = lwt_col(m, "centre.y"), cn = lwt_col(m, "N");
  long rest_rows = 0;
  for (long i = 0; i < r.rows; i++) {
    double t = at(&r, i, 0);
    if (t < e->t) {
      g_assert_cmpfloat(at(&r, i, cn), ==, 0.0);
    } else if (t > e->t) {
      g_assert_cmpfloat(fabs(at(&r, i, cn) - 9.81), <, 1e-8);
      g_assert_cmpfloat(fabs(at(&r, i, cy)), <, 1e-12);
      rest_rows++;
    }
  }
  g_assert_cmpfloat(at(&r, r.rows - 1, 0), ==, 6.0);
  g_assert_cmpint(rest_rows, >, 1900);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* a plastic drop from 1 m rests at its first impact, t = sqrt(2 h / g) */
static void test_plastic_drop(void)
{
  g_autofree char *js = ball_json(1.0, 0.0, 0.0);
  lw_model *m = model_from_json(js);
  lw_sim_result r = run(m, 1.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, ==, 2);
  g_assert_cmpint(r.events[0].action, ==, LW_EVREC_IMPACT);
  g_assert_cmpint(r.events[1].action, ==, LW_EVREC_REST);
  g_assert_cmpfloat(fabs(r.events[1].t - sqrt(2.0 / 9.81)), <, 1e-10);
  g_assert_cmpfloat(at(&r, r.rows - 1, 0), ==, 1.0);
  g_assert_cmpfloat(fabs(at(&r, r.rows - 1, lwt_col(m, "N")) - 9.81), <, 1e-8);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* the ball on the floor from the start, pushed up by F = k t: it rests
 * while N = m g - k t > 0 and lifts off at t* = m g / k, then rises as
 * y = k (t - t*)^3 / (6 m) */
static void test_lift_off(void)
{
  const double k = 20.0, ts = 9.81 / k;
  g_autofree char *js = ball_json(0.0, 0.5, k);
  lw_model *m = model_from_json(js);
  lw_sim_result r = run(m, 1.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, ==, 2);
  g_assert_cmpint(r.events[0].action, ==, LW_EVREC_REST);
  g_assert_cmpfloat(r.events[0].t, <, 1e-12);
  g_assert_cmpint(r.events[1].action, ==, LW_EVREC_RELEASE);
  g_assert_cmpfloat(fabs(r.events[1].t - ts), <, 1e-9);
  int cy = lwt_col(m, "centre.y"), cn = lwt_col(m, "N");
  for (long i = 0; i < r.rows; i++) {
    double t = at(&r, i, 0);
    if (t > 0 && t < ts)
      g_assert_cmpfloat(fabs(at(&r, i, cn) - (9.81 - k * t)), <, 1e-8);
    if (t > ts)
      g_assert_cmpfloat(at(&r, i, cn), ==, 0.0);
  }
  double y1 = k * pow(1.0 - ts, 3) / 6.0;
  g_assert_cmpfloat(fabs(at(&r, r.rows - 1, cy) - y1), <, 1e-5 * y1);
  g_test_message("release at %.15g s (closed form %.15g s); y(1) = %.12g m (closed form %.12g m)", r.events[1].t, ts,
                 at(&r, r.rows - 1, cy), y1);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* a 1 m pendulum of 1 kg released horizontally swings into the wall
 * x = 0.5 (plastic): it rests there at beta = 30 degrees from the
 * vertical, gravity holding it with N = (m g L sin(beta) - tau) / (L
 * cos(beta)), until the torque tau = k t pulls it away at
 * t* = m g L sin(beta) / k */
static void test_pendulum_wall(void)
{
  const double k = 2.0, ts = 9.81 * 0.5 / k, cb = sqrt(0.75);
  lw_model *m = model_from_json(
    "{\"linkwright\": 1, \"planar\": true, \"gravity\": [0, -9.81], \"solver\": {\"t_end\": 3, \"step\": 0.001},"
    " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"com\": [1, 0], \"inertia\": 1e-8, \"position\": [0, 0],"
    "   \"angle\": 0, \"points\": {\"P1\": [1, 0]}}],"
    " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"bob\","
    "   \"at\": [0, 0]}],"
    " \"forces\": [{\"name\": \"pull\", \"type\": \"torque\", \"body\": \"bob\", \"value\": 1,"
    "   \"function\": {\"type\": \"linear\", \"rate\": 2}}],"
    " \"outputs\": [{\"name\": \"P1\", \"type\": \"position\", \"body\": \"bob\", \"point\": \"P1\"},"
    "   {\"name\": \"N\", \"type\": \"contact_force\", \"event\": \"wall\"}],"
    " \"events\": [{\"name\": \"wall\", \"type\": \"contact\", \"body\": \"bob\", \"point\": \"P1\","
    "   \"normal\": [1, 0], \"offset\": 0.5, \"restitution\": 0}]}");
  lw_sim_result r = run(m, 3.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, ==, 3);
  g_assert_cmpint(r.events[1].action, ==, LW_EVREC_REST);
  g_assert_cmpint(r.events[2].action, ==, LW_EVREC_RELEASE);
  g_assert_cmpfloat(fabs(r.events[2].t - ts), <, 1e-9);
  int cx = lwt_col(m, "P1.x"), cy = lwt_col(m, "P1.y"), cn = lwt_col(m, "N");
  long held = 0;
  for (long i = 0; i < r.rows; i++) {
    double t = at(&r, i, 0);
    if (t > r.events[1].t && t < ts) {
      g_assert_cmpfloat(fabs(at(&r, i, cx) - 0.5), <, 1e-10); /* the constraints' tolerance */
      g_assert_cmpfloat(fabs(at(&r, i, cy) + cb), <, 1e-9);
      g_assert_cmpfloat(fabs(at(&r, i, cn) - (9.81 * 0.5 - k * t) / cb), <, 1e-8);
      held++;
    }
  }
  g_assert_cmpint(held, >, 1000);
  /* pulled away: the bob leaves the wall towards the free side */
  g_assert_cmpfloat(at(&r, r.rows - 1, cx), >, 0.5 + 1e-3);
  g_assert_cmpfloat(at(&r, r.rows - 1, cn), ==, 0.0);
  g_test_message("rest at %.12g s, release at %.15g s (closed form %.15g s)", r.events[1].t, r.events[2].t, ts);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* the same pendulum held by a plastic joint limit at -60 degrees (30
 * degrees from the vertical) instead of the wall: N = m g L sin(beta) - tau
 * (N m) and the same release time */
static void test_pendulum_limit(void)
{
  const double k = 2.0, ts = 9.81 * 0.5 / k;
  lw_model *m = model_from_json(
    "{\"linkwright\": 1, \"planar\": true, \"gravity\": [0, -9.81], \"solver\": {\"t_end\": 3, \"step\": 0.001},"
    " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"com\": [1, 0], \"inertia\": 1e-8, \"position\": [0, 0],"
    "   \"angle\": 0, \"points\": {\"P1\": [1, 0]}}],"
    " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"bob\","
    "   \"at\": [0, 0]}],"
    " \"forces\": [{\"name\": \"pull\", \"type\": \"torque\", \"body\": \"bob\", \"value\": 1,"
    "   \"function\": {\"type\": \"linear\", \"rate\": 2}}],"
    " \"outputs\": [{\"name\": \"angle\", \"type\": \"joint_coordinate\", \"joint\": \"pivot\"},"
    "   {\"name\": \"N\", \"type\": \"contact_force\", \"event\": \"stop\"}],"
    " \"events\": [{\"name\": \"stop\", \"type\": \"joint_limit\", \"joint\": \"pivot\","
    "   \"lower\": -1.0471975511965976, \"restitution\": 0}]}");
  lw_sim_result r = run(m, 3.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, ==, 3);
  g_assert_cmpint(r.events[1].action, ==, LW_EVREC_REST);
  g_assert_cmpint(r.events[2].action, ==, LW_EVREC_RELEASE);
  g_assert_cmpfloat(fabs(r.events[2].t - ts), <, 1e-9);
  int ca = lwt_col(m, "angle"), cn = lwt_col(m, "N");
  for (long i = 0; i < r.rows; i++) {
    double t = at(&r, i, 0);
    if (t > r.events[1].t && t < ts) {
      g_assert_cmpfloat(fabs(at(&r, i, ca) + 1.0471975511965976), <, 1e-10);
      g_assert_cmpfloat(fabs(at(&r, i, cn) - (9.81 * 0.5 - k * t)), <, 1e-8);
    }
  }
  g_assert_cmpfloat(at(&r, r.rows - 1, ca), >, -1.0471975511965976 + 1e-3);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* a contact_force output must name a contact or joint limit */
static void test_bad_output(void)
{
  g_autofree char *js = ball_json(1.0, 0.5, 0.0);
  char *p = strstr(js, "\"event\": \"floor\"");
  g_assert_nonnull(p);
  memcpy(p, "\"event\": \"flor\" ", 16);
  lw_error err;
  lw_desc *d = lw_model_read_data(js, -1, "test.json", NULL, &err);
  g_assert_nonnull(d);
  lw_model *m = lw_compile(d, &err);
  g_assert_null(m);
  g_assert_cmpstr(err.path, ==, "outputs/N/event");
  g_assert_nonnull(strstr(err.msg, "'flor' does not exist"));
  lw_desc_free(d);
  /* nor is it differentiated: an objective on it is refused */
  g_autofree char *js2 = ball_json(1.0, 0.5, 0.0);
  char *q = strrchr(js2, '}');
  *q = '\0';
  g_autofree char *js3 = g_strconcat(js2, ", \"objectives\": [{\"name\": \"push\", \"terms\": [{\"output\": \"N\","
                                     " \"kind\": \"final\"}]}]}", NULL);
  d = lw_model_read_data(js3, -1, "test.json", NULL, &err);
  g_assert_nonnull(d);
  m = lw_compile(d, &err);
  g_assert_null(m);
  g_assert_nonnull(strstr(err.msg, "cannot be used in an objective"));
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/persistent/ball-comes-to-rest", test_ball_comes_to_rest);
  g_test_add_func("/persistent/plastic-drop", test_plastic_drop);
  g_test_add_func("/persistent/lift-off", test_lift_off);
  g_test_add_func("/persistent/pendulum-wall", test_pendulum_wall);
  g_test_add_func("/persistent/pendulum-limit", test_pendulum_limit);
  g_test_add_func("/persistent/bad-output", test_bad_output);
  return g_test_run();
}
