/* test-tolerance.c: the tolerance mode of a run (solver "mode":
 * "tolerance"): steps sized to rtol and atol, the rows at the requested
 * times interpolated between the steps; IFToMM A01 and A02 against their
 * published solutions, a stiff spring, the settings' checks. */
#include "lw-test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* m switched to the tolerance mode at rtol = atol = tol and order */
static void set_tolerance(lw_model *m, double tol, int order)
{
  lw_opt o = *lw_model_opt(m);
  o.mode = LW_MODE_TOLERANCE;
  o.rtol = o.atol = tol;
  o.order = order;
  lw_error err;
  g_assert_cmpint(lw_model_set_opt(m, &o, &err), ==, LW_OK);
}

/* reference points t, x, y of an IFToMM file (comment lines skipped) */
static int read_ref(const char *file, double (*ref)[3], int max)
{
  g_autofree char *path = g_build_filename(LW_IFTOMM_DIR, file, NULL);
  FILE *f = fopen(path, "r");
  g_assert_nonnull(f);
  char line[256];
  int n = 0;
  while (n < max && fgets(line, sizeof line, f))
    if (sscanf(line, "%lf,%lf,%lf", &ref[n][0], &ref[n][1], &ref[n][2]) == 3)
      n++;
  fclose(f);
  return n;
}

/* the largest distance of (cx, cy) in the rows from the reference points,
 * asserting one row at each reference time, no more */
static double worst_distance(const lw_sim_result *r, int cx, int cy, double (*ref)[3], int n)
{
  g_assert_cmpint(r->rows, ==, n);
  double worst = 0;
  for (int k = 0; k < n; k++) {
    g_assert_cmpfloat(fabs(lwt_at(r, k, 0) - ref[k][0]), <, 1e-12);
    worst = fmax(worst, hypot(lwt_at(r, k, cx) - ref[k][1], lwt_at(r, k, cy) - ref[k][2]));
  }
  return worst;
}

/* the rows come at every `step` and at t_end, wherever the steps fall, and
 * between the steps they are the solution to the tolerance's accuracy: the
 * five-bar at rtol 1e-8 against the fixed step of 0.05 ms (error 7e-8 m at
 * 5 s) at the same times */
static void test_dense_output(void)
{
  lw_model *fine = lwt_open("five-bar.json");
  lw_sim_output every = {.every = 100, .keep = 1};
  lw_sim_result ref;
  g_assert_cmpint(lw_simulate_ex(fine, 2.0, 5e-5, &every, &ref, NULL, NULL), ==, LW_OK);
  for (int order = 2; order <= 4; order += 2) {
    lw_model *m = lwt_open("five-bar.json");
    set_tolerance(m, order == 2 ? 1e-10 : 1e-8, order);
    lw_sim_result r;
    g_assert_cmpint(lw_simulate_ex(m, 2.0, 5e-3, NULL, &r, NULL, NULL), ==, LW_OK);
    /* the outputs at 0, 5 ms, ..., 2 s: 401 rows from far fewer steps */
    g_assert_cmpint(r.rows, ==, 401);
    if (order == 4)
      g_assert_cmpint(r.steps, <, 400);
    g_assert_cmpint(ref.rows, ==, 401);
    double worst = 0;
    for (long k = 0; k < r.rows; k++) {
      g_assert_cmpfloat(fabs(lwt_at(&r, k, 0) - lwt_at(&ref, k, 0)), <, 1e-12);
      for (int c = 1; c <= 2; c++)
        worst = fmax(worst, fabs(lwt_at(&r, k, c) - lwt_at(&ref, k, c)));
    }
    g_test_message("order %d: %ld steps (%ld refused, h %.2e .. %.2e), 401 rows, largest difference %.2e m", order,
                   r.steps, r.rejected, r.h_min, r.h_max, worst);
    g_assert_cmpfloat(worst, <, 2e-5);
    lw_sim_result_clear(&r);
    lw_model_free(m);
  }
  lw_sim_result_clear(&ref);
  lw_model_free(fine);
}

/* a t_end that is not a multiple of the output interval ends the rows at
 * t_end exactly; --every keeps every k-th row and the last */
static void test_rows_end(void)
{
  lw_model *m = lwt_open("pendulum.json");
  set_tolerance(m, 1e-6, 4);
  lw_sim_output out = {.every = 3, .keep = 1};
  lw_sim_result r;
  g_assert_cmpint(lw_simulate_ex(m, 1.05, 0.1, &out, &r, NULL, NULL), ==, LW_OK);
  /* rows 0, 3, 6, 9 and the last (index 11, at 1.05 s) */
  g_assert_cmpint(r.rows, ==, 5);
  g_assert_cmpfloat(lwt_at(&r, 3, 0), ==, 9 * 0.1);
  g_assert_cmpfloat(lwt_at(&r, 4, 0), ==, 1.05);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* the published A01 solution (P1 every 0.5 s to 2000 s, six digits):
 * the rows at its times within 1e-3 m at every point */
static void test_a01(void)
{
  static double ref[4001][3];
  int n = read_ref("A01_pendulum_reference.csv", ref, 4001);
  g_assert_cmpint(n, ==, 4001);
  double t_end = LW_UNDER_SANITIZERS ? 100.0 : 2000.0;
  if (LW_UNDER_SANITIZERS)
    n = 201;
  lw_model *m = lwt_open("pendulum.json");
  set_tolerance(m, 1e-9, 4);
  lw_sim_result r;
  g_assert_cmpint(lw_simulate_ex(m, t_end, 0.5, NULL, &r, NULL, NULL), ==, LW_OK);
  double worst = worst_distance(&r, lwt_col(m, "P1.x"), lwt_col(m, "P1.y"), ref, n);
  g_test_message("A01 to %g s: %ld steps (%ld refused), %.3g s, P1 within %.3e m of the published solution", t_end,
                 r.steps, r.rejected, r.wall_time_s, worst);
  g_assert_cmpfloat(worst, <, 1e-3);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* the A02 model (tests/test-singular.c): cranks i = 0..n vertical on
 * ground pivots (i, 0), couplers horizontal at y = 1, links of 1 m and
 * 1 kg, the first crank at -1 rad/s */
static lw_desc *nfourbar(int n)
{
  GString *s = g_string_new(NULL);
  g_string_append(s, "{\"linkwright\": 1, \"name\": \"A02 N-four-bar\", \"planar\": true, "
                     "\"gravity\": [0, -9.81], \"solver\": {\"t_end\": 20, \"step\": 0.05}, \"bodies\": [");
  for (int i = 0; i <= 2 * n; i++) {
    int crank = i <= n;
    g_string_append_printf(s,
                           "%s{\"name\": \"%s%d\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": %.17g, "
                           "\"position\": [%d, %d], \"angle\": %.17g, "
                           "\"points\": {\"start\": [0, 0], \"end\": [1, 0]}}",
                           i ? ", " : "", crank ? "crank" : "coupler", crank ? i : i - n - 1, 1.0 / 12.0,
                           crank ? i : i - n - 1, crank ? 0 : 1, crank ? M_PI / 2 : 0.0);
  }
  g_string_append(s, "], \"joints\": [");
  for (int i = 0; i <= n; i++)
    g_string_append_printf(s, "%s{\"name\": \"G%d\", \"type\": \"revolute\", \"body1\": \"ground\", "
                              "\"body2\": \"crank%d\", \"at\": [%d, 0]}",
                           i ? ", " : "", i, i, i);
  for (int i = 0; i < n; i++)
    g_string_append_printf(s,
                           ", {\"name\": \"L%d\", \"type\": \"revolute\", \"body1\": \"crank%d\", "
                           "\"body2\": \"coupler%d\", \"point1\": \"end\", \"point2\": \"start\"}"
                           ", {\"name\": \"R%d\", \"type\": \"revolute\", \"body1\": \"coupler%d\", "
                           "\"body2\": \"crank%d\", \"point1\": \"end\", \"point2\": \"end\"}",
                           i, i, i, i, i, i + 1);
  g_string_append(s, "], \"initial\": [{\"joint\": \"G0\", \"value\": 1.5707963267948966, \"velocity\": -1}], "
                     "\"outputs\": [{\"name\": \"B0\", \"type\": \"position\", \"body\": \"crank0\", "
                     "\"point\": \"end\"}]}");
  lw_error err = {0};
  lw_desc *d = lw_model_read_data(s->str, (gssize)s->len, "a02.json", NULL, &err);
  if (!d)
    g_error("A02 model: %s", err.msg);
  g_string_free(s, TRUE);
  return d;
}

/* A02, N = 40, 20 s (about 20 flat positions, where all 40 loops lose rank
 * at once): the top of the first crank within 1e-3 m of the published
 * solution at each of its 401 points */
static void test_a02(void)
{
  static double ref[401][3];
  int n = read_ref("A02_nfourbar_N40_reference.csv", ref, 401);
  g_assert_cmpint(n, ==, 401);
  double t_end = LW_UNDER_SANITIZERS ? 1.5 : 20.0;
  if (LW_UNDER_SANITIZERS)
    n = 31;
  lw_desc *d = nfourbar(40);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  set_tolerance(m, 1e-7, 4);
  lw_sim_result r;
  int st = lw_simulate_ex(m, t_end, 0.05, NULL, &r, NULL, NULL);
  g_test_message("A02: status %d, %ld steps (%ld refused, h %.2e .. %.2e), %ld Newton iterations, %.3g s%s%s", st,
                 r.steps, r.rejected, r.h_min, r.h_max, r.newton_iterations, r.wall_time_s, st ? ": " : "",
                 st ? r.error.msg : "");
  g_assert_cmpint(st, ==, LW_OK);
  double worst = worst_distance(&r, lwt_col(m, "B0.x"), lwt_col(m, "B0.y"), ref, n);
  g_test_message("A02 to %g s: B0 within %.3e m of the published solution", t_end, worst);
  g_assert_cmpfloat(worst, <, 1e-3);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* A flyball governor: a spindle turning freely about z (10 rad/s at the
 * start), two arms of 0.3 m hinged at its top with 1 kg balls at their
 * ends, 30 degrees out, each ball tied to the spindle's axis by a
 * horizontal spring.  Its tension holds the arms where the centrifugal
 * force, gravity and the spring balance; k_g = m g / L (33 N/m) is what
 * gravity alone would need, the spring is stiffer by `stiff`, so that its
 * own motion is up to 300 times faster than the governor's. */
static lw_model *governor(double stiff)
{
  const double L = 0.3, th = M_PI / 6, w = 10.0, g = 9.81, mb = 1.0;
  double r = L * sin(th), zb = 0.5 - L * cos(th);
  double k = stiff * mb * g / L, F = mb * r * (w * w - g / (L * cos(th)));
  GString *s = g_string_new(NULL);
  g_string_append_printf(
    s,
    "{\"linkwright\": 1, \"name\": \"flyball governor\", \"planar\": false, \"gravity\": [0, 0, -9.81],"
    " \"solver\": {\"t_end\": 2, \"step\": 0.01},"
    " \"bodies\": [{\"name\": \"spindle\", \"mass\": 2, \"com\": [0, 0, 0.25], \"inertia\": [0.05, 0.05, 0.002, 0, 0, 0],"
    "  \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"top\": [0, 0, 0.5], \"mid\": [0, 0, %.17g]}},"
    " {\"name\": \"arm1\", \"mass\": %.17g, \"com\": [%.17g, 0, %.17g], \"inertia\": [1e-4, 1e-4, 1e-4, 0, 0, 0],"
    "  \"position\": [0, 0, 0.5], \"orientation\": [1, 0, 0, 0], \"points\": {\"ball\": [%.17g, 0, %.17g]}},"
    " {\"name\": \"arm2\", \"mass\": %.17g, \"com\": [%.17g, 0, %.17g], \"inertia\": [1e-4, 1e-4, 1e-4, 0, 0, 0],"
    "  \"position\": [0, 0, 0.5], \"orientation\": [1, 0, 0, 0], \"points\": {\"ball\": [%.17g, 0, %.17g]}}],"
    " \"joints\": [{\"name\": \"spin\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"spindle\","
    "  \"at\": [0, 0, 0], \"axis\": [0, 0, 1]},"
    " {\"name\": \"h1\", \"type\": \"revolute\", \"body1\": \"spindle\", \"body2\": \"arm1\", \"at\": [0, 0, 0.5],"
    "  \"axis\": [0, 1, 0]},"
    " {\"name\": \"h2\", \"type\": \"revolute\", \"body1\": \"spindle\", \"body2\": \"arm2\", \"at\": [0, 0, 0.5],"
    "  \"axis\": [0, 1, 0]}],"
    " \"forces\": [{\"name\": \"s1\", \"type\": \"spring_damper\", \"body1\": \"spindle\", \"point1\": \"mid\","
    "  \"body2\": \"arm1\", \"point2\": \"ball\", \"stiffness\": %.17g, \"rest_length\": %.17g},"
    " {\"name\": \"s2\", \"type\": \"spring_damper\", \"body1\": \"spindle\", \"point1\": \"mid\","
    "  \"body2\": \"arm2\", \"point2\": \"ball\", \"stiffness\": %.17g, \"rest_length\": %.17g}],"
    " \"initial\": [{\"joint\": \"spin\", \"value\": 0, \"velocity\": %.17g}, {\"joint\": \"h1\", \"velocity\": 0},"
    "  {\"joint\": \"h2\", \"velocity\": 0}],"
    " \"outputs\": [{\"name\": \"ball\", \"type\": \"position\", \"body\": \"arm1\", \"point\": \"ball\"},"
    "  {\"name\": \"speed\", \"type\": \"joint_velocity\", \"joint\": \"spin\"}]}",
    zb, mb, r, zb - 0.5, r, zb - 0.5, mb, -r, zb - 0.5, -r, zb - 0.5, k, r - F / k, k, r - F / k, w);
  lw_error err = {0};
  lw_desc *d = lw_model_read_data(s->str, (gssize)s->len, "governor.json", NULL, &err);
  if (!d)
    g_error("governor: %s", err.msg);
  g_string_free(s, TRUE);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  return m;
}

/* the stiff spring at 1e3, 1e4 and 1e5 times k_g: 2 s run through in
 * both orders without the steps collapsing (the smallest step stays
 * within a factor 100 of the largest and the run takes a few thousand
 * steps at most), the ball's radius stays where the spring holds it */
static void test_stiff_spring(void)
{
  for (int order = 2; order <= 4; order += 2)
    for (double stiff = 1e3; stiff <= 1e5; stiff *= 10) {
      lw_model *m = governor(stiff);
      set_tolerance(m, 1e-6, order);
      lw_sim_result r;
      int st = lw_simulate_ex(m, 2.0, 0.01, NULL, &r, NULL, NULL);
      double rad = hypot(lwt_at(&r, r.rows - 1, 1), lwt_at(&r, r.rows - 1, 2));
      g_test_message("order %d, spring %g k_g: status %d, %ld steps (%ld refused), h %.2e .. %.2e, %.3g s, "
                     "ball radius at 2 s %.6f m%s%s",
                     order, stiff, st, r.steps, r.rejected, r.h_min, r.h_max, r.wall_time_s, rad, st ? ": " : "",
                     st ? r.error.msg : "");
      g_assert_cmpint(st, ==, LW_OK);
      g_assert_cmpint(r.rows, ==, 201);
      g_assert_cmpint(r.steps, <, 5000);
      g_assert_cmpfloat(r.h_min, >, 1e-5);
      g_assert_cmpfloat(fabs(rad - 0.15), <, 1e-3);
      lw_sim_result_clear(&r);
      lw_model_free(m);
    }
}

/* the five-bar's final position error against the step count: order 4
 * reaches at 1e-9 what order 2 cannot reach at ten times the steps */
static void test_order(void)
{
  lw_model *fine = lwt_open("five-bar.json");
  lw_sim_output last = {.every = 1000000, .keep = 1};
  lw_sim_result ref;
  g_assert_cmpint(lw_simulate_ex(fine, 1.0, 2.5e-5, &last, &ref, NULL, NULL), ==, LW_OK);
  double e[2];
  long steps[2];
  for (int k = 0; k < 2; k++) {
    lw_model *m = lwt_open("five-bar.json");
    set_tolerance(m, 1e-9, k ? 4 : 2);
    lw_sim_result r;
    g_assert_cmpint(lw_simulate_ex(m, 1.0, 1.0, &last, &r, NULL, NULL), ==, LW_OK);
    e[k] = hypot(lwt_at(&r, r.rows - 1, 1) - lwt_at(&ref, ref.rows - 1, 1),
                 lwt_at(&r, r.rows - 1, 2) - lwt_at(&ref, ref.rows - 1, 2));
    steps[k] = r.steps * (k ? 6 : 1); /* integrator steps */
    g_test_message("order %d at 1e-9: %ld steps of the integrator, error %.2e m", k ? 4 : 2, steps[k], e[k]);
    lw_sim_result_clear(&r);
    lw_model_free(m);
  }
  g_assert_cmpint(steps[1], <, steps[0]);
  g_assert_cmpfloat(e[1], <, e[0]);
  lw_sim_result_clear(&ref);
  lw_model_free(fine);
}

/* the settings: read, checked with their path, written back; the step
 * mode stays the default and is not written */
static void test_settings(void)
{
  static const struct {
    const char *solver, *path;
  } bad[] = {
    {"\"mode\": \"adaptive\"", "solver/mode"},
    {"\"mode\": \"tolerance\", \"rtol\": 0", "solver/rtol"},
    {"\"mode\": \"tolerance\", \"rtol\": 1", "solver/rtol"},
    {"\"mode\": \"tolerance\", \"atol\": -1", "solver/atol"},
    {"\"mode\": \"tolerance\", \"order\": 3", "solver/order"},
    {"\"mode\": \"tolerance\", \"integrator\": \"variational\"", "solver/mode"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *json = g_strdup_printf(
      "{\"linkwright\": 1, \"planar\": true, \"solver\": {%s}, \"bodies\": [{\"name\": \"b\", \"mass\": 1, "
      "\"inertia\": 1, \"position\": [0, 0]}]}",
      bad[i].solver);
    lw_error err = {0};
    lw_desc *d = lw_model_read_data(json, -1, "bad.json", NULL, &err);
    lw_model *m = d ? lw_compile(d, &err) : NULL;
    g_test_message("%s: %s (%s)", bad[i].solver, err.msg, err.path);
    g_assert_null(m);
    g_assert_cmpstr(err.path, ==, bad[i].path);
    lw_desc_free(d);
  }
  lw_desc *d = lwt_read("pendulum.json");
  g_assert_cmpint(d->solver.mode, ==, LW_MODE_STEP);
  char *plain = lw_model_to_json(d);
  g_assert_null(strstr(plain, "\"mode\""));
  d->solver.mode = LW_MODE_TOLERANCE;
  d->solver.rtol = 1e-7;
  d->solver.atol = 2e-9;
  d->solver.order = 2;
  char *json = lw_model_to_json(d);
  lw_error err = {0};
  lw_desc *back = lw_model_read_data(json, -1, "back.json", NULL, &err);
  g_assert_nonnull(back);
  g_assert_cmpint(back->solver.mode, ==, LW_MODE_TOLERANCE);
  g_assert_cmpfloat(back->solver.rtol, ==, 1e-7);
  g_assert_cmpfloat(back->solver.atol, ==, 2e-9);
  g_assert_cmpint(back->solver.order, ==, 2);
  g_free(plain);
  g_free(json);
  lw_desc_free(back);
  lw_desc_free(d);
}

/* Events in the tolerance mode (lw_sim_tol.c with dyn/lw_events.c): the
 * bouncing ball's impacts at the closed form's times (to 1e-10) and its
 * state at 2 s, at both orders; the steps go on from each impact itself */
static void test_events_ball(void)
{
  static const double t_ev[3] = {0.451523640986, 1.173961466563, 1.751911727025};
  for (int order = 2; order <= 4; order += 2) {
    lw_model *m = lwt_open("bouncing-ball.json");
    set_tolerance(m, 1e-8, order);
    lw_sim_result r;
    g_assert_cmpint(lw_simulate_ex(m, 2.0, 0.01, NULL, &r, NULL, NULL), ==, LW_OK);
    g_assert_cmpint(r.nevents, ==, 3);
    for (int k = 0; k < 3; k++) {
      g_assert_cmpint(r.events[k].action, ==, LW_EVREC_IMPACT);
      g_assert_cmpfloat(fabs(r.events[k].t - t_ev[k]), <, 1e-10);
    }
    long last = r.rows - 1;
    g_assert_cmpfloat(lwt_at(&r, last, 0), ==, 2.0);
    g_test_message("order %d: %ld steps, y(2) error %.2e, dy/dt(2) error %.2e", order, r.steps,
                   lwt_at(&r, last, 2) - 0.260741728327, lwt_at(&r, last, 4) + 0.165869135836);
    g_assert_cmpfloat(fabs(lwt_at(&r, last, 2) - 0.260741728327), <, 1e-9);
    g_assert_cmpfloat(fabs(lwt_at(&r, last, 4) + 0.165869135836), <, 1e-9);
    g_assert_cmpint(r.steps, <, 100); /* a free flight is a parabola: long steps */
    lw_sim_result_clear(&r);
    lw_model_free(m);
  }
}

/* The ball at restitution 0.5 bounces ever shorter (Zeno) and comes to
 * rest: the same impacts as in the step mode and the rest there, not a
 * rebound leapt over by a long step */
static void test_events_zeno(void)
{
  lw_sim_result r[2];
  for (int mode = 0; mode < 2; mode++) {
    lw_desc *d = lwt_read("bouncing-ball.json");
    for (int j = 0; j < d->nparams; j++) /* the model binds it to a parameter */
      if (!strcmp(d->params[j].name, "restitution"))
        d->params[j].value = 0.5;
    d->solver.t_end = 3.0;
    if (mode) {
      d->solver.mode = LW_MODE_TOLERANCE;
      d->solver.rtol = d->solver.atol = 1e-8;
    }
    lw_error err;
    lw_model *m = lw_compile(d, &err);
    g_assert_nonnull(m);
    g_assert_cmpint(lw_simulate(m, 3.0, 1e-3, &r[mode], NULL, NULL), ==, LW_OK);
    lw_model_free(m);
    lw_desc_free(d);
  }
  g_assert_cmpint(r[1].nevents, ==, r[0].nevents);
  for (long k = 0; k < r[0].nevents; k++) {
    g_assert_cmpint(r[1].events[k].action, ==, r[0].events[k].action);
    g_assert_cmpfloat(fabs(r[1].events[k].t - r[0].events[k].t), <, 1e-9);
  }
  const lw_event_record *rest = &r[1].events[r[1].nevents - 1];
  g_assert_cmpint(rest->action, ==, LW_EVREC_REST);
  /* Zeno's time sqrt(2 h0 / g) (1 + 2 e / (1 - e)) less the last, unresolved flights */
  double zeno = sqrt(2.0 / 9.81) * 3.0;
  g_test_message("%ld events, at rest at %.6f s (Zeno's time %.6f s), %ld steps against %ld", r[1].nevents,
                 rest->t, zeno, r[1].steps, r[0].steps);
  g_assert_cmpfloat(rest->t, <, zeno);
  g_assert_cmpfloat(rest->t, >, zeno - 0.01);
  g_assert_cmpfloat(fabs(lwt_at(&r[1], r[1].rows - 1, 2)), <, 1e-9); /* on the floor at 3 s */
  lw_sim_result_clear(&r[0]);
  lw_sim_result_clear(&r[1]);
}

/* The five-bar hitting the ground (nine impacts of a closed loop): the
 * event times at rtol 1e-12 against the step mode's extrapolated to h -> 0
 * from 5e-5 and 2.5e-5 s (second order; the extrapolation from 1e-4 and
 * 5e-5 s is 4e-9 s from it at the last impact) */
static void test_events_five_bar(void)
{
  lw_sim_result r[3];
  const double hs[2] = {5e-5, 2.5e-5};
  for (int k = 0; k < 3; k++) {
    lw_model *m = lwt_open("five-bar-ground.json");
    if (k == 2)
      set_tolerance(m, 1e-12, 4);
    else
      lw_model_set_step(m, hs[k], NULL);
    g_assert_cmpint(lw_simulate(m, 5.0, k == 2 ? 0.01 : hs[k], &r[k], NULL, NULL), ==, LW_OK);
    lw_model_free(m);
  }
  g_assert_cmpint(r[0].nevents, ==, 9);
  g_assert_cmpint(r[1].nevents, ==, 9);
  g_assert_cmpint(r[2].nevents, ==, 9);
  double worst = 0;
  for (int k = 0; k < 9; k++) {
    double ext = (4.0 * r[1].events[k].t - r[0].events[k].t) / 3.0;
    worst = fmax(worst, fabs(r[2].events[k].t - ext));
  }
  g_test_message("event times against the step mode's extrapolation: %.2e s (%ld steps; the step mode %ld at "
                 "2.5e-5 s)", worst, r[2].steps, r[1].steps);
  g_assert_cmpfloat(worst, <, 5e-9);
  for (int k = 0; k < 3; k++)
    lw_sim_result_clear(&r[k]);
}

static int lwt_strcmp_p(const char **a, const char **b) { return strcmp(*a, *b); }

/* every parameter and objective of d by method; fd at the step fd_step */
static lw_sens_result sens_all(const lw_desc *d, lw_sens_method method, double fd_step)
{
  g_autofree int *params = g_new(int, d->nparams + 1);
  g_autofree int *objs = g_new(int, d->nobjectives + 1);
  for (int j = 0; j < d->nparams; j++)
    params[j] = j;
  for (int o = 0; o < d->nobjectives; o++)
    objs[o] = o;
  lw_sens_options opt = {.method = method, .nparams = d->nparams, .params = params, .nobj = d->nobjectives,
                         .objectives = objs, .threads = 1, .fd_step = fd_step};
  lw_sens_result res;
  if (lw_sensitivity(d, &opt, &res))
    g_error("%s, %s: %s", d->name, lw_sens_method_name(method), res.error.msg);
  return res;
}

/* central differences, each parameter with a step of `rel` times its value
 * (at most rel: lw_sensitivity takes the step relative to max(|value|, 1)):
 * a small value, a beam's 0.05 m section, is not stepped by 2e-3 of it */
static lw_sens_result fd_relative(const lw_desc *d, double rel)
{
  lw_sens_result all = sens_all(d, LW_SENS_FORWARD, 0);
  int np = d->nparams;
  for (int j = 0; j < np; j++) {
    g_autofree int *objs = g_new(int, d->nobjectives + 1);
    for (int o = 0; o < d->nobjectives; o++)
      objs[o] = o;
    lw_sens_options opt = {.method = LW_SENS_FD, .nparams = 1, .params = &j, .nobj = d->nobjectives,
                           .objectives = objs, .threads = 1, .fd_step = rel * fmin(fabs(d->params[j].value), 1.0)};
    lw_sens_result r;
    if (lw_sensitivity(d, &opt, &r))
      g_error("%s, differences: %s", d->name, r.error.msg);
    for (int o = 0; o < d->nobjectives; o++)
      all.gradient[o * np + j] = r.gradient[o];
    lw_sens_result_clear(&r);
  }
  return all;
}

/* sensitivities over the tolerance mode's steps (their lengths held
 * fixed): forward and adjoint agree to 1e-8 and with central differences
 * of the whole run (over the same steps) on every model in models/ with
 * objectives and parameters, those with events too.  As in test-sens.c (/sens/agree/models): one second of each,
 * the differences at step 1e-4 (for the beam's section, 0.05 m, 1e-4 of
 * it: at 1e-4 their truncation error is 1.5e-2) with the Newton iteration converged, each
 * component relative (a component far below the row's largest against 1e-3
 * of it for forward and adjoint, 1e-2 for the differences) */
static void test_sensitivities(void)
{
  /* every model in models/ (sorted) */
  GDir *dir = g_dir_open(LW_MODELS_DIR, 0, NULL);
  g_assert_nonnull(dir);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  for (const char *f; (f = g_dir_read_name(dir));)
    if (g_str_has_suffix(f, ".json"))
      g_ptr_array_add(names, g_strdup(f));
  g_dir_close(dir);
  g_ptr_array_sort(names, (GCompareFunc)lwt_strcmp_p);
  for (guint i = 0; i < names->len; i++) {
    const char *name = names->pdata[i];
    lw_desc *d = lwt_read(name);
    if (d->nobjectives == 0 || d->nparams == 0) { /* a model to watch, not to differentiate */
      g_test_message("%s: no objective or parameter", name);
      lw_desc_free(d);
      continue;
    }
    /* (under the sanitizers a quarter second, through the same code) */
    d->solver.t_end = fmin(d->solver.t_end, LW_UNDER_SANITIZERS ? 0.25 : 1.0);
    d->solver.tolerance = 1e-14;
    d->solver.constraint_tolerance = 1e-12;
    int friction = !strcmp(name, "slider-crank-friction.json");
    if (friction) {
      /* as test-friction-sens.c takes it: the first 0.1 s, the Newton
       * iteration converging to 1e-11 */
      d->solver.t_end = 0.1;
      d->solver.tolerance = 1e-11;
    }
    d->solver.mode = LW_MODE_TOLERANCE;
    /* steps of about 1 ms as in the step mode's test: on the spatial
     * slider-crank the differences move away from the derivatives as h^2
     * (1.8e-5 at h = 1 ms in the step mode, 2.4e-4 at rtol 1e-6, steps of
     * 4 ms) */
    d->solver.rtol = d->solver.atol = 1e-8;
    /* under the sanitizers forward and adjoint only: the differences are
     * plain runs, checked for memory with every other test */
    lw_sens_result f = sens_all(d, LW_SENS_FORWARD, 0), a = sens_all(d, LW_SENS_ADJOINT, 0),
                   c = LW_UNDER_SANITIZERS             ? a
                       : !strcmp(name, "flexible-pendulum.json") ? fd_relative(d, 1e-4)
                                                                 : sens_all(d, LW_SENS_FD, 1e-4);
    g_assert_cmpint(f.steps, ==, a.steps);
    int p = d->nparams;
    double efa = 0, efd = 0;
    for (int o = 0; o < d->nobjectives; o++) {
      g_assert_cmpfloat(fabs(f.value[o] - a.value[o]), <=, 1e-14 * fabs(a.value[o]));
      g_assert_cmpfloat(fabs(c.value[o] - a.value[o]), <=, 1e-14 * fabs(a.value[o]));
      double rowmax = 0;
      for (int j = 0; j < p; j++)
        rowmax = fmax(rowmax, fabs(a.gradient[o * p + j]));
      for (int j = 0; j < p; j++) {
        double ga = a.gradient[o * p + j], gf = f.gradient[o * p + j], gc = c.gradient[o * p + j];
        efa = fmax(efa, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
        efd = fmax(efd, fabs(ga - gc) / fmax(fabs(ga), 1e-2 * rowmax));
      }
    }
    g_test_message("%s (%ld steps of their own lengths): forward vs adjoint %.2e, adjoint vs central "
                   "differences %.2e", d->name, a.steps, efa, efd);
    g_assert_cmpfloat(efa, <=, 1e-8);
    /* (joint friction's differences once missed by 1.7e-3: the modified
     * Newton iteration, converging linearly, stopped short of the step the
     * derivatives differentiate; with the exact tangent, 3.7e-7) */
    g_assert_cmpfloat(efd, <=, 1e-4);
    lw_sens_result_clear(&f);
    lw_sens_result_clear(&a);
    if (!LW_UNDER_SANITIZERS)
      lw_sens_result_clear(&c);
    lw_desc_free(d);
  }
  g_ptr_array_unref(names);
}

/* the command line: --mode tolerance with --rtol, --atol, --order; --step
 * is the rows' interval (a t_end that is no multiple of it is no mistake
 * there), a bad mode is refused naming the setting */
static void test_cli(void)
{
  g_autofree char *cmd = g_strdup_printf("%s simulate %s/pendulum.json --mode tolerance --rtol 1e-7 --atol 1e-7 "
                                         "--order 2 --step 0.1 --t-end 1.05 --csv -", LW_CLI, LW_MODELS_DIR);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true(g_spawn_command_line_sync(cmd, &out, &err, &status, NULL));
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  /* the header, rows at 0, 0.1, ..., 1.0 and 1.05, the final newline */
  g_assert_cmpint(g_strv_length(lines), ==, 14);
  g_assert_true(g_str_has_prefix(lines[12], "1.05,"));
  g_assert_null(strstr(err, "whole number"));
  g_autofree char *bad = g_strdup_printf("%s simulate %s/pendulum.json --mode adaptive", LW_CLI, LW_MODELS_DIR);
  g_autofree char *out2 = NULL, *err2 = NULL;
  g_assert_true(g_spawn_command_line_sync(bad, &out2, &err2, &status, NULL));
  g_assert_false(g_spawn_check_wait_status(status, NULL));
  g_test_message("%s", err2);
  g_assert_nonnull(strstr(err2, "mode must be"));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/tolerance/dense-output", test_dense_output);
  g_test_add_func("/tolerance/rows-end", test_rows_end);
  g_test_add_func("/tolerance/order", test_order);
  g_test_add_func("/tolerance/settings", test_settings);
  g_test_add_func("/tolerance/cli", test_cli);
  g_test_add_func("/tolerance/events-ball", test_events_ball);
  g_test_add_func("/tolerance/events-zeno", test_events_zeno);
  g_test_add_func("/tolerance/events-five-bar", test_events_five_bar);
  g_test_add_func("/tolerance/stiff-spring", test_stiff_spring);
  g_test_add_func("/tolerance/sensitivities", test_sensitivities);
  g_test_add_func("/tolerance/a01", test_a01);
  g_test_add_func("/tolerance/a02", test_a02);
  return g_test_run();
}
