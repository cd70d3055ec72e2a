/* test-multilimit.c: several contacts and joint limits resting at once.
 * Each resting guard is a unilateral constraint row held while its
 * multiplier pushes and released where it falls through zero.  Checked in
 * both modes of the ALI3-P run (fixed steps and the tolerance mode): a
 * double pendulum that comes to rest on a stop at each joint (the angles
 * at the bounds, the stops' forces those of the statics, the energy not
 * rising) and is lifted off them by a growing torque (each release where
 * the statics' force reaches zero), a bar dropped flat onto the floor,
 * whose two ends reach it in the same step, and a robot arm imported from
 * URDF that falls onto two of its stops. */
#include "lw-test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "linkwright.h"
#include "lw_io.h"

#define G 9.81
/* the energy's round-off in the step mode; in the tolerance mode at rtol
 * = atol = 1e-9 its integration's own error */
#define E_TOL(tol) ((tol) ? 1e-7 : 1e-9)

static lw_desc *read_text(const char *json)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "test.json", NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  return d;
}

/* the double pendulum of tests/data/double-limit.json; with the lifting
 * torque moved to the lower link when on_link2 */
static lw_desc *double_limit(int on_link2)
{
  g_autofree char *path = g_build_filename(LW_SOURCE_ROOT, "tests", "data", "double-limit.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  if (on_link2) {
    char *p = strstr(text, "\"body\": \"link1\"");
    g_assert_nonnull(p);
    p[strlen("\"body\": \"link")] = '2';
    g_assert_null(strstr(text, "\"body\": \"link1\""));
  }
  return read_text(text);
}

/* a run of d to its t_end, in the tolerance mode (rtol = atol = 1e-9) when tol */
static lw_sim_result run(lw_desc *d, int tol, lw_model **mp)
{
  if (tol) {
    d->solver.mode = LW_MODE_TOLERANCE;
    d->solver.rtol = d->solver.atol = 1e-9;
  }
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  lw_simulate(m, d->solver.t_end, d->solver.step, &r, NULL, NULL);
  if (r.status)
    g_error("%s", r.error.msg);
  g_assert_cmpstr(r.error.msg, ==, "");
  g_assert_cmpfloat(fabs(lwt_at(&r, r.rows - 1, 0) - d->solver.t_end), <, 1e-12);
  *mp = m;
  return r;
}

/* the first record of event `name` with action a, or NULL */
static const lw_event_record *find_event(const lw_model *m, const lw_sim_result *r, const char *name,
                                         lw_event_action a)
{
  const lw_desc *d = lw_model_desc(m);
  for (long k = 0; k < r->nevents; k++)
    if (r->events[k].action == a && !strcmp(d->events[r->events[k].event].name, name))
      return &r->events[k];
  return NULL;
}

/* the statics of the arm on both stops (theta1 = -0.5, theta2 = -0.4,
 * links of 1 m and 1 kg): the push of each stop on its joint coordinate */
static double statics_n1(void) { return G * (1.5 * cos(0.5) + 0.5 * cos(0.9)); }
static double statics_n2(void) { return G * 0.5 * cos(0.9); }

/* The arm falls onto the shoulder's stop, rests there, the elbow then
 * reaches its own stop and both rest; from 1.5 s a torque on the upper
 * link, 50 (t - 1.5) N m, takes the shoulder's load: it lets go where
 * that torque equals N1, and the elbow stays on its stop. */
static void check_two_stops(int tol)
{
  lw_desc *d = double_limit(0);
  lw_model *m;
  lw_sim_result r = run(d, tol, &m);
  const lw_event_record *r1 = find_event(m, &r, "shoulder_stop", LW_EVREC_REST);
  const lw_event_record *r2 = find_event(m, &r, "elbow_stop", LW_EVREC_REST);
  const lw_event_record *l1 = find_event(m, &r, "shoulder_stop", LW_EVREC_RELEASE);
  g_assert_nonnull(r1);
  g_assert_nonnull(r2);
  g_assert_nonnull(l1);
  g_assert_null(find_event(m, &r, "elbow_stop", LW_EVREC_RELEASE));
  g_assert_cmpfloat(r1->t, <, r2->t);
  int c1 = lwt_col(m, "theta1"), c2 = lwt_col(m, "theta2"), cn1 = lwt_col(m, "N1"), cn2 = lwt_col(m, "N2");
  int ce = lwt_col(m, "energy");
  double e_rest = NAN, e_prev = lwt_at(&r, 0, ce), rise = 0, drift = 0;
  long both = 0;
  for (long i = 0; i < r.rows; i++) {
    double t = lwt_at(&r, i, 0), e = lwt_at(&r, i, ce);
    if (t > 1.5)
      break; /* the torque works on the arm from here */
    /* the stops only take energy out (the tolerance mode's rows between
     * the long steps of the free swing are interpolated, not its
     * solution: there only while both rest) */
    if (!tol || t > r2->t)
      rise = fmax(rise, e - e_prev);
    e_prev = e;
    if (t <= r2->t + 0.01 || t >= 1.49)
      continue;
    /* both at rest on their stops, pushed there by the statics' forces
     * (before the torque: the tolerance mode's rows between two steps
     * carry the forces of the step's end) */
    both++;
    if (isnan(e_rest))
      e_rest = e;
    g_assert_cmpfloat(fabs(lwt_at(&r, i, c1) + 0.5), <, 1e-8);
    g_assert_cmpfloat(fabs(lwt_at(&r, i, c2) + 0.4), <, 1e-8);
    g_assert_cmpfloat(fabs(lwt_at(&r, i, cn1) - statics_n1()), <, 1e-6);
    g_assert_cmpfloat(fabs(lwt_at(&r, i, cn2) - statics_n2()), <, 1e-6);
    drift = fmax(drift, fabs(e - e_rest));
  }
  g_test_message("energy: largest rise from a row to the next %.3g J, drift at rest %.3g J", rise, drift);
  g_assert_cmpfloat(rise, <, E_TOL(tol));
  g_assert_cmpfloat(drift, <, E_TOL(tol));
  g_assert_cmpint(both, >, 0);
  g_assert_cmpfloat(e_rest, <, lwt_at(&r, 0, ce) - 1.0); /* the plastic stops took out the impacts' energy */
  /* the shoulder lets go where 50 (t - 1.5) = N1 */
  double t_rel = 1.5 + statics_n1() / 50.0;
  g_test_message("%s: rests at %.9f and %.9f s, shoulder released at %.12f s (statics %.12f), %ld steps",
                 tol ? "tolerance" : "step", r1->t, r2->t, l1->t, t_rel, r.steps);
  g_assert_cmpfloat(fabs(l1->t - t_rel), <, 1e-8);
  long last = r.rows - 1;
  g_assert_cmpfloat(lwt_at(&r, last, c1), >, -0.4); /* swung up, off its stop */
  g_assert_cmpfloat(lwt_at(&r, last, cn1), ==, 0.0);
  g_assert_cmpfloat(fabs(lwt_at(&r, last, c2) + 0.4), <, 1e-8); /* the elbow still on its stop */
  g_assert_cmpfloat(lwt_at(&r, last, cn2), >, 0.0);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

static void test_two_stops_step(void) { check_two_stops(0); }
static void test_two_stops_tolerance(void) { check_two_stops(1); }

/* The torque on the lower link instead (it turns both coordinates): in
 * the statics N2 = 3.05 N m - tau falls to zero first, so the elbow lets
 * go at 1.5 + N2 / 50 s while the shoulder stays; the arm then swings up
 * and the shoulder lets go too, after which neither stop pushes. */
static void check_release_order(int tol)
{
  lw_desc *d = double_limit(1);
  lw_model *m;
  lw_sim_result r = run(d, tol, &m);
  const lw_event_record *l1 = find_event(m, &r, "shoulder_stop", LW_EVREC_RELEASE);
  const lw_event_record *l2 = find_event(m, &r, "elbow_stop", LW_EVREC_RELEASE);
  g_assert_nonnull(l1);
  g_assert_nonnull(l2);
  double t_rel = 1.5 + statics_n2() / 50.0;
  g_test_message("%s: elbow released at %.12f s (statics %.12f), shoulder at %.6f s", tol ? "tolerance" : "step",
                 l2->t, t_rel, l1->t);
  g_assert_cmpfloat(fabs(l2->t - t_rel), <, 1e-8);
  g_assert_cmpfloat(l1->t, >, l2->t);
  int c1 = lwt_col(m, "theta1"), c2 = lwt_col(m, "theta2"), cn1 = lwt_col(m, "N1"), cn2 = lwt_col(m, "N2");
  for (long i = 0; i < r.rows; i++) {
    double t = lwt_at(&r, i, 0);
    if (t > l2->t && t < l1->t) { /* the shoulder alone rests, and pushes */
      g_assert_cmpfloat(fabs(lwt_at(&r, i, c1) + 0.5), <, 1e-8);
      g_assert_cmpfloat(lwt_at(&r, i, cn1), >, 0.0);
      g_assert_cmpfloat(lwt_at(&r, i, cn2), ==, 0.0);
      g_assert_cmpfloat(lwt_at(&r, i, c2), >=, -0.4 - 1e-10);
    }
    if (t > l1->t && t > l2->t) {
      g_assert_cmpfloat(lwt_at(&r, i, cn1), ==, 0.0);
      g_assert_cmpfloat(lwt_at(&r, i, cn2), ==, 0.0);
      g_assert_cmpfloat(lwt_at(&r, i, c1), >=, -0.5 - 1e-10);
      g_assert_cmpfloat(lwt_at(&r, i, c2), >=, -0.4 - 1e-10);
    }
  }
  g_assert_cmpfloat(lwt_at(&r, r.rows - 1, c2), >, -0.3); /* the lower link lifted off its stop */
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

static void test_release_order_step(void) { check_release_order(0); }
static void test_release_order_tolerance(void) { check_release_order(1); }

/* a 1 m bar of 1 kg, horizontal, dropped from 0.5 m onto the floor y = 0
 * with a contact at each end (restitution e) */
static const char *bar_json =
  "{\"linkwright\": 1, \"name\": \"bar\", \"planar\": true, \"gravity\": [0, -9.81],"
  " \"solver\": {\"t_end\": 1, \"step\": 0.001},"
  " \"bodies\": [{\"name\": \"bar\", \"mass\": 1.0, \"com\": [0, 0], \"inertia\": 0.08333333333333333,"
  "   \"position\": [0, 0.5], \"angle\": 0.0, \"points\": {\"left\": [-0.5, 0], \"right\": [0.5, 0]}}],"
  " \"events\": [{\"name\": \"floor_left\", \"type\": \"contact\", \"body\": \"bar\", \"point\": \"left\","
  "   \"normal\": [0, 1], \"offset\": 0, \"restitution\": 0},"
  "  {\"name\": \"floor_right\", \"type\": \"contact\", \"body\": \"bar\", \"point\": \"right\","
  "   \"normal\": [0, 1], \"offset\": 0, \"restitution\": 0}],"
  " \"outputs\": [{\"name\": \"p\", \"type\": \"position\", \"body\": \"bar\", \"point\": [0, 0]},"
  "  {\"name\": \"angle\", \"type\": \"body_angle\", \"body\": \"bar\"},"
  "  {\"name\": \"NL\", \"type\": \"contact_force\", \"event\": \"floor_left\"},"
  "  {\"name\": \"NR\", \"type\": \"contact_force\", \"event\": \"floor_right\"},"
  "  {\"name\": \"energy\", \"type\": \"total_energy\"}]}";

/* Both ends reach the floor in the same step, at the same time: the
 * impacts at that instant are taken one after another, each with the
 * contacts that rest already held, and both come to rest: the bar lies
 * flat on the floor, each end carrying m g / 2, all its energy gone. */
static void check_bar(int tol)
{
  lw_desc *d = read_text(bar_json);
  lw_model *m;
  lw_sim_result r = run(d, tol, &m);
  const lw_event_record *rl = find_event(m, &r, "floor_left", LW_EVREC_REST);
  const lw_event_record *rr = find_event(m, &r, "floor_right", LW_EVREC_REST);
  g_assert_nonnull(rl);
  g_assert_nonnull(rr);
  double t_hit = sqrt(2.0 * 0.5 / G);
  g_test_message("%s: both at rest at %.12f and %.12f s (closed form %.12f), %ld events", tol ? "tolerance" : "step",
                 rl->t, rr->t, t_hit, r.nevents);
  g_assert_cmpfloat(rl->t, ==, rr->t);
  g_assert_cmpfloat(fabs(rl->t - t_hit), <, 1e-8);
  g_assert_null(find_event(m, &r, "floor_left", LW_EVREC_RELEASE));
  g_assert_null(find_event(m, &r, "floor_right", LW_EVREC_RELEASE));
  int cy = lwt_col(m, "p.y"), ca = lwt_col(m, "angle"), cl = lwt_col(m, "NL"), cr = lwt_col(m, "NR");
  int ce = lwt_col(m, "energy");
  double e_prev = lwt_at(&r, 0, ce), rise = 0;
  long resting = 0;
  for (long i = 0; i < r.rows; i++) {
    double t = lwt_at(&r, i, 0), e = lwt_at(&r, i, ce);
    rise = fmax(rise, e - e_prev);
    e_prev = e;
    if (t <= rl->t + 0.01)
      continue;
    resting++;
    g_assert_cmpfloat(fabs(lwt_at(&r, i, cy)), <, 1e-9);
    g_assert_cmpfloat(fabs(lwt_at(&r, i, ca)), <, 1e-9);
    g_assert_cmpfloat(fabs(lwt_at(&r, i, cl) - 0.5 * G), <, 1e-8);
    g_assert_cmpfloat(fabs(lwt_at(&r, i, cr) - 0.5 * G), <, 1e-8);
    g_assert_cmpfloat(fabs(e), <, 1e-9);
  }
  g_test_message("energy: largest rise from a row to the next %.3g J", rise);
  g_assert_cmpfloat(rise, <, E_TOL(tol));
  g_assert_cmpint(resting, >, 0);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

static void test_bar_step(void) { check_bar(0); }
static void test_bar_tolerance(void) { check_bar(1); }

/* The KUKA arm imported from ../shared/urdf (its limits are plastic stops,
 * restitution 0) falls under gravity from the imported pose: joint 2 comes
 * to rest on its stop and joint 4 reaches its own while joint 2 rests.
 * Both rest together (each angle at its bound) and the run goes on to its
 * end.  Skipped where the URDF is not there (it is not in the repository). */
static void test_imported_robot(void)
{
  /* LW_URDF_DIR in the environment stands in for ../shared/urdf (a work
   * tree whose ../shared does not hold the files) */
  g_autofree char *dflt = g_build_filename(LW_SOURCE_ROOT, "..", "shared", "urdf", NULL);
  const char *dir = g_getenv("LW_URDF_DIR") ? g_getenv("LW_URDF_DIR") : dflt;
  g_autofree char *path = g_build_filename(dir, "bullet3_kuka_iiwa_model.urdf", NULL);
  if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
    g_test_skip("no bullet3_kuka_iiwa_model.urdf");
    return;
  }
  lw_error err;
  lw_desc *d = lw_model_import_file(path, NULL, NULL, NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  d->solver.t_end = 3.0;
  lw_model *m;
  lw_sim_result r = run(d, 0, &m);
  /* the resting set along the log: the rows where two rest */
  char rests[64] = {0};
  int n = 0, most = 0;
  double t_two = NAN, t_end_two = NAN;
  for (long k = 0; k < r.nevents; k++) {
    int e = r.events[k].event;
    g_assert_cmpint(e, <, 64);
    if (r.events[k].action == LW_EVREC_REST && !rests[e])
      rests[e] = 1, n++;
    else if (r.events[k].action == LW_EVREC_RELEASE && rests[e])
      rests[e] = 0, n--;
    else
      continue;
    if (n >= 2 && isnan(t_two))
      t_two = r.events[k].t;
    if (n < 2 && !isnan(t_two) && isnan(t_end_two))
      t_end_two = r.events[k].t;
    most = n > most ? n : most;
  }
  g_test_message("%ld events, at most %d at rest together, from %.6f to %.6f s", r.nevents, most, t_two, t_end_two);
  g_assert_cmpint(most, >=, 2);
  g_assert_false(isnan(t_end_two) && isnan(t_two));
  if (isnan(t_end_two))
    t_end_two = d->solver.t_end;
  /* while two rest, each resting joint sits at its bound */
  long rows = 0;
  for (long i = 0; i < r.rows; i++) {
    double t = lwt_at(&r, i, 0);
    if (!(t > t_two && t < t_end_two))
      continue;
    rows++;
    int at_bound = 0;
    for (int e = 0; e < d->nevents; e++) {
      const lw_event_desc *ed = &d->events[e];
      if (ed->type != LW_EVENT_JOINT_LIMIT)
        continue;
      char label[128];
      snprintf(label, sizeof label, "%s.angle", ed->joint);
      double x = lwt_at(&r, i, lwt_col(m, label));
      if ((ed->has_lower && fabs(x - ed->lower) < 1e-8) || (ed->has_upper && fabs(x - ed->upper) < 1e-8))
        at_bound++;
    }
    g_assert_cmpint(at_bound, >=, 2);
  }
  g_assert_cmpint(rows, >, 0);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/multilimit/two-stops/step", test_two_stops_step);
  g_test_add_func("/multilimit/two-stops/tolerance", test_two_stops_tolerance);
  g_test_add_func("/multilimit/release-order/step", test_release_order_step);
  g_test_add_func("/multilimit/release-order/tolerance", test_release_order_tolerance);
  g_test_add_func("/multilimit/simultaneous/step", test_bar_step);
  g_test_add_func("/multilimit/simultaneous/tolerance", test_bar_tolerance);
  g_test_add_func("/multilimit/imported-robot", test_imported_robot);
  return g_test_run();
}
