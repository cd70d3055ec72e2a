/* test-events.c: runs through events (contacts, joint limits, guards):
 * the bouncing ball against its closed form (seed 003 sec. 2.4 a), the
 * energy a pendulum keeps at a wall and a four-bar at a joint limit
 * (e^2 of the kinetic energy), a bouncing that ends cleanly, a guard that
 * stops the run, the model format's events (round trip, parameters, bad
 * input named by file, line and field). */
#include "lw-test.h"

#include <math.h>
#include <string.h>

#include "linkwright.h"

/* the closed form of the ball (h0 = 1 m, g = 9.81 m/s^2, e = 0.8) */
static const double ball_impacts[3] = {0.451523640985730904, 1.17396146656290035, 1.75191172702463591};
static const double ball_y2 = 0.260741728327057197, ball_yd2 = -0.165869135836471402;

static lw_sim_result run(const lw_model *m, double t_end)
{
  lw_sim_result r;
  lw_simulate(m, t_end, lw_model_desc(m)->solver.step, &r, NULL, NULL);
  return r;
}

/* the row of the table at time t (the first at that time), or -1 */
static long row_at(const lw_sim_result *r, double t)
{
  for (long i = 0; i < r->rows; i++)
    if (r->table[(size_t)i * r->ncols] == t)
      return i;
  return -1;
}

static void test_ball(void)
{
  lw_model *m = lwt_open("bouncing-ball.json");
  lw_sim_result r = run(m, 2.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, ==, 3);
  for (int k = 0; k < 3; k++) {
    const lw_event_record *e = &r.events[k];
    g_assert_cmpint(e->action, ==, LW_EVREC_IMPACT);
    g_assert_cmpfloat(fabs(e->t - ball_impacts[k]), <, 1e-10);
    /* Newton's restitution on the normal velocity */
    g_assert_cmpfloat(fabs(e->v_post + 0.8 * e->v_pre), <, 1e-12 * fabs(e->v_pre));
    /* the state at the event is on the floor */
    long i = row_at(&r, e->t);
    g_assert_cmpint(i, >=, 0);
    int cy = lwt_col(m, "centre.y");
    g_assert_cmpfloat(fabs(r.table[(size_t)i * r.ncols + cy]), <, 1e-13);
  }
  /* every step's row and two at each impact (before and after) */
  g_assert_cmpint(r.steps, ==, 2000);
  g_assert_cmpint(r.rows, ==, 2001 + 2 * 3);
  int ev = 0;
  for (long i = 0; i < r.rows; i++) {
    double t = r.table[(size_t)i * r.ncols];
    if (i)
      g_assert_cmpfloat(t, >=, r.table[(size_t)(i - 1) * r.ncols]);
    int on_grid = fabs(t / 1e-3 - nearbyint(t / 1e-3)) < 1e-9;
    int at_event = 0;
    for (int k = 0; k < 3; k++)
      at_event |= t == r.events[k].t;
    g_assert_true(on_grid || at_event);
    ev += at_event;
  }
  g_assert_cmpint(ev, ==, 6);
  const double *last = r.table + (size_t)(r.rows - 1) * r.ncols;
  g_assert_cmpfloat(last[0], ==, 2.0);
  g_assert_cmpfloat(fabs(last[lwt_col(m, "centre.y")] - ball_y2), <, 1e-10);
  g_assert_cmpfloat(fabs(last[lwt_col(m, "speed.y")] - ball_yd2), <, 1e-9);
  g_test_message("impacts off the closed form by %.3g, %.3g, %.3g s; y(2) by %.3g m, dy/dt(2) by %.3g m/s",
                 r.events[0].t - ball_impacts[0], r.events[1].t - ball_impacts[1],
                 r.events[2].t - ball_impacts[2], last[lwt_col(m, "centre.y")] - ball_y2,
                 last[lwt_col(m, "speed.y")] - ball_yd2);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* Zeno: the impacts come ever faster towards t = t1 + 2 e v1 / (g (1 - e));
 * the run ends there with a record of the last (slow) impact */
static void test_ball_rest(void)
{
  lw_model *m = lwt_open("bouncing-ball.json");
  lw_sim_result r = run(m, 20.0);
  double v1 = sqrt(2 * 9.81), t_inf = ball_impacts[0] + 2 * 0.8 * v1 / (9.81 * 0.2);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, >, 10);
  g_assert_cmpint(r.nevents, <, 100);
  const lw_event_record *e = &r.events[r.nevents - 1];
  g_assert_cmpint(e->action, ==, LW_EVREC_REST);
  g_assert_cmpfloat(fabs(e->v_pre), <, 9.81e-3); /* the rest speed: |g| h */
  double tf = r.table[(size_t)(r.rows - 1) * r.ncols];
  g_assert_cmpfloat(tf, ==, e->t);
  g_assert_cmpfloat(tf, <, t_inf);
  g_assert_cmpfloat(tf, >, t_inf - 0.02);
  g_assert_nonnull(strstr(r.error.msg, "bouncing at 'floor' ended"));
  for (long k = 0; k + 1 < r.nevents; k++)
    g_assert_cmpint(r.events[k].action, ==, LW_EVREC_IMPACT);
  g_test_message("%ld impacts, rest at %.9f s (accumulation point %.9f s)", r.nevents - 1, tf, t_inf);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* kinetic energy right after each impact over that right before (the two
 * rows at its time) */
static void check_energy_ratio(const lw_model *m, const lw_sim_result *r, const char *ke, double e, int min_impacts)
{
  int c = lwt_col(m, ke), n = 0;
  for (long k = 0; k < r->nevents; k++) {
    if (r->events[k].action != LW_EVREC_IMPACT)
      continue;
    long i = row_at(r, r->events[k].t);
    g_assert_cmpint(i, >=, 0);
    double k0 = r->table[(size_t)i * r->ncols + c], k1 = r->table[(size_t)(i + 1) * r->ncols + c];
    g_assert_cmpfloat(r->table[(size_t)(i + 1) * r->ncols], ==, r->events[k].t);
    g_assert_cmpfloat(fabs(k1 / k0 - e * e), <, 1e-8);
    g_assert_cmpfloat(fabs(r->events[k].v_post + e * r->events[k].v_pre), <, 1e-10 * fabs(r->events[k].v_pre));
    n++;
  }
  g_assert_cmpint(n, >=, min_impacts);
}

static void test_pendulum_wall(void)
{
  lw_desc *d = lwt_read("pendulum.json");
  lw_desc_add_output(d, "ke", LW_OUT_KINETIC_ENERGY);
  /* the wall x = 0: the bob (point P1) swings into it at the bottom */
  lw_event_desc *e = lw_desc_add_event(d, "wall", LW_EVENT_CONTACT);
  e->body = strdup("bob");
  lw_place_set_ref(&e->place, "P1");
  e->normal[0] = -1;
  e->normal[1] = 0;
  e->restitution = 0.7;
  lw_model *m = lwt_compile(d);
  lw_sim_result r = run(m, 5.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  check_energy_ratio(m, &r, "ke", 0.7, 3);
  /* the first impact: the bottom of the swing at the speed of a 1 m fall
   * (to the trapezoidal rule's O(h^2) energy error at h = 1 ms) */
  g_assert_cmpfloat(fabs(r.events[0].v_pre + sqrt(2 * 9.81)), <, 1e-4);
  g_assert_cmpfloat(r.max_constraint_residual, <, 1e-9);
  g_test_message("%ld impacts, the first at %.12f s", r.nevents, r.events[0].t);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

static void test_four_bar_limit(void)
{
  lw_desc *d = lwt_read("four-bar.json");
  lw_output_desc *o = lw_desc_add_output(d, "rocker", LW_OUT_JOINT_COORDINATE);
  o->joint = strdup("D");
  lw_desc_add_output(d, "ke", LW_OUT_KINETIC_ENERGY);
  /* the rocker's range without the limit, then a limit inside it */
  lw_model *m = lwt_compile(d);
  lw_sim_result r = run(m, 2.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  int c = lwt_col(m, "rocker");
  double x0 = r.table[c], xmax = -INFINITY;
  for (long i = 0; i < r.rows; i++)
    xmax = fmax(xmax, r.table[(size_t)i * r.ncols + c]);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  g_assert_cmpfloat(xmax, >, x0 + 0.05);
  double upper = 0.5 * (x0 + xmax);
  lw_event_desc *e = lw_desc_add_event(d, "stop", LW_EVENT_JOINT_LIMIT);
  e->joint = strdup("D");
  e->has_upper = 1;
  e->upper = upper;
  e->restitution = 0.5;
  m = lwt_compile(d);
  r = run(m, 2.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  check_energy_ratio(m, &r, "ke", 0.5, 1);
  for (long k = 0; k < r.nevents; k++) {
    g_assert_cmpint(r.events[k].side, ==, 1);
    long i = row_at(&r, r.events[k].t);
    g_assert_cmpfloat(fabs(r.table[(size_t)i * r.ncols + c] - upper), <, 1e-12);
  }
  for (long i = 0; i < r.rows; i++)
    g_assert_cmpfloat(r.table[(size_t)i * r.ncols + c], <=, upper + 1e-12);
  g_assert_cmpfloat(r.max_constraint_residual, <, 1e-8);
  g_test_message("%ld events, the first at %.12f s (bound %.6f rad)", r.nevents, r.nevents ? r.events[0].t : 0, upper);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* a guard on the ball's height falling through 0.5 m stops the run there */
static void test_guard_stop(void)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  lw_event_desc *e = lw_desc_add_event(d, "half", LW_EVENT_GUARD);
  e->output = strdup("centre");
  e->component = 1;
  e->value = 0.5;
  e->direction = -1;
  lw_model *m = lwt_compile(d);
  lw_sim_result r = run(m, 2.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, ==, 1);
  g_assert_cmpint(r.events[0].action, ==, LW_EVREC_STOP);
  double t = sqrt(2 * 0.5 / 9.81);
  g_assert_cmpfloat(fabs(r.events[0].t - t), <, 1e-11);
  const double *last = r.table + (size_t)(r.rows - 1) * r.ncols;
  g_assert_cmpfloat(last[0], ==, r.events[0].t);
  g_assert_cmpfloat(fabs(last[lwt_col(m, "centre.y")] - 0.5), <, 1e-12);
  g_assert_nonnull(strstr(r.error.msg, "guard 'half'"));
  lw_sim_result_clear(&r);
  lw_model_free(m);
  /* rising through 0.5 m after the first bounce instead */
  d->events[d->nevents - 1].direction = 1;
  m = lwt_compile(d);
  r = run(m, 2.0);
  g_assert_cmpint(r.nevents, ==, 2);
  g_assert_cmpint(r.events[1].action, ==, LW_EVREC_STOP);
  double v = 0.8 * sqrt(2 * 9.81), tr = ball_impacts[0] + (v - sqrt(v * v - 2 * 9.81 * 0.5)) / 9.81;
  g_assert_cmpfloat(fabs(r.events[1].t - tr), <, 1e-10);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* the restitution bound by a parameter; the events through a save and a
 * read */
static void test_param_roundtrip(void)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  int p = lw_desc_param_index(d, "restitution");
  g_assert_cmpint(p, >=, 0);
  g_assert_cmpfloat(d->params[p].value, ==, 0.8);
  d->params[p].value = 0.5;
  lw_model *m = lwt_compile(d);
  lw_sim_result r = run(m, 1.0);
  g_assert_cmpint(r.nevents, >=, 1);
  g_assert_cmpfloat(fabs(r.events[0].v_post + 0.5 * r.events[0].v_pre), <, 1e-12);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_event_desc *lim = lw_desc_add_event(d, "lim", LW_EVENT_GUARD);
  lim->output = strdup("speed");
  lim->component = 1;
  lim->value = -1;
  lim->direction = 0;
  char *json = lw_model_to_json(d);
  lw_error err;
  lw_desc *d2 = lw_model_read_data(json, -1, "saved.json", NULL, &err);
  g_assert_nonnull(d2);
  g_assert_cmpint(d2->nevents, ==, 2);
  const lw_event_desc *a = &d2->events[0], *b = &d2->events[1];
  g_assert_cmpstr(a->name, ==, "floor");
  g_assert_cmpint(a->type, ==, LW_EVENT_CONTACT);
  g_assert_cmpstr(a->body, ==, "ball");
  g_assert_cmpstr(a->place.ref, ==, "centre");
  g_assert_cmpfloat(a->normal[1], ==, 1.0);
  g_assert_cmpfloat(a->restitution, ==, 0.8); /* the description's value; the parameter holds 0.5 */
  g_assert_cmpfloat(d2->params[lw_desc_param_index(d2, "restitution")].value, ==, 0.5);
  g_assert_cmpint(b->type, ==, LW_EVENT_GUARD);
  g_assert_cmpstr(b->output, ==, "speed");
  g_assert_cmpint(b->component, ==, 1);
  g_assert_cmpint(b->direction, ==, 0);
  g_free(json);
  lw_desc_free(d2);
  /* objectives through a guard that stops the run are refused, not wrong
   * (contacts and limits: tests/test-event-sens.c) */
  lw_objective_desc *ob = lw_desc_add_objective(d, "height");
  lw_term_desc *t = lw_objective_add_term(ob, "centre");
  t->kind = LW_TERM_FINAL;
  t->form = LW_TERM_VALUE;
  int par = lw_desc_param_index(d, "height"), obj = 0;
  lw_sens_options so = {.method = LW_SENS_FORWARD, .nparams = 1, .params = &par, .nobj = 1, .objectives = &obj};
  lw_sens_result sr;
  g_assert_cmpint(lw_sensitivity(d, &so, &sr), ==, LW_ERR_MODEL);
  g_assert_cmpstr(sr.error.path, ==, "events/lim");
  g_assert_nonnull(strstr(sr.error.msg, "not computed through events"));
  g_assert_nonnull(strstr(sr.error.msg, "stops the run"));
  lw_sens_result_clear(&sr);
  lw_desc_free(d);
}

/* a model text with the events section replaced, read and compiled: the
 * message (file:line: field PATH: ...) */
static char *open_text(const char *events)
{
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, "bouncing-ball.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  char *start = strstr(text, "  \"events\": [");
  char *end = strstr(start, "  \"parameters\"");
  g_autofree char *model = g_strdup_printf("%.*s  \"events\": [\n%s\n  ],\n%s", (int)(start - text), text, events, end);
  lw_error err;
  LwSourceMap *map = NULL;
  lw_desc *d = lw_model_read_data(model, -1, "ball.json", &map, &err);
  if (d) {
    lw_model *m = lw_compile(d, &err);
    if (m) {
      lw_sim_result r;
      lw_simulate(m, 0.1, 1e-3, &r, NULL, NULL);
      err = r.error;
      if (r.status == LW_OK)
        err.msg[0] = 0;
      lw_sim_result_clear(&r);
      lw_model_free(m);
    }
    lw_error_locate(&err, "ball.json", map);
    lw_desc_free(d);
  }
  lw_source_map_free(map);
  return g_strdup(err.msg);
}

static void test_bad_input(void)
{
  /* guards come after the floor the parameter binds */
#define FLOOR "{\"name\": \"floor\", \"type\": \"contact\", \"body\": \"ball\", \"point\": [0, 0]},\n"
  static const struct { const char *events, *expect; } cases[] = {
    {"{\"name\": \"floor\", \"type\": \"wall\", \"body\": \"ball\", \"point\": [0, 0]}",
     "field events/floor/type: unknown event type 'wall'"},
    {"{\"name\": \"floor\", \"type\": \"contact\", \"body\": \"ball\", \"point\": [0, 0], \"restitution\": 1.5}",
     "field events/floor/restitution: event 'floor': restitution 1.5 must lie in [0, 1]"},
    {"{\"name\": \"floor\", \"type\": \"contact\", \"body\": \"rock\", \"point\": [0, 0]}",
     "field events/floor/body: contact 'floor': body 'rock' does not exist"},
    {"{\"name\": \"floor\", \"type\": \"contact\", \"body\": \"ball\", \"point\": [0, 0], \"normal\": [0, 0]}",
     "field events/floor/normal: contact 'floor': the normal must be a finite nonzero vector"},
    {"{\"name\": \"floor\", \"type\": \"contact\", \"body\": \"ball\", \"point\": [0, 0], \"normal\": [0, 1, 0]}",
     "field events/floor/normal: 'normal' must have 2 numbers"},
    {"{\"name\": \"floor\", \"type\": \"contact\", \"body\": \"ball\", \"point\": [0, 0], \"offset\": 2}",
     "field events/floor: contact 'floor' is violated at the start by 1 m"},
    {"{\"name\": \"floor\", \"type\": \"contact\", \"body\": \"ball\", \"point\": [0, 0], \"friction\": 2}",
     "field events/floor/friction: unknown field 'friction'"},
    {FLOOR "{\"name\": \"f\", \"type\": \"guard\", \"output\": \"height\", \"value\": 1}",
     "field events/f/output: guard 'f': output 'height' does not exist"},
    {FLOOR "{\"name\": \"f\", \"type\": \"guard\", \"output\": \"centre\", \"component\": 2, \"value\": 1}",
     "field events/f/component: guard 'f': output 'centre' has 2 component(s)"},
    {FLOOR "{\"name\": \"f\", \"type\": \"guard\", \"output\": \"centre\", \"value\": 1, \"direction\": \"up\"}",
     "field events/f/direction: unknown direction 'up'"},
    {FLOOR "{\"name\": \"f\", \"type\": \"guard\", \"output\": \"centre\", \"value\": 1, \"restitution\": 1}",
     "field events/f/restitution: 'restitution' belongs to contacts and joint limits"},
    {"{\"name\": \"floor\", \"type\": \"joint_limit\", \"joint\": \"pin\", \"lower\": 0}",
     "field events/floor/joint: joint limit: joint 'pin' does not exist"},
    {"{\"name\": \"floor\", \"type\": \"joint_limit\", \"joint\": \"pin\"}",
     "field events/floor: a joint limit needs 'lower', 'upper' or both"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *msg = open_text(cases[i].events);
    g_test_message("%s", msg);
    if (!strstr(msg, cases[i].expect))
      g_error("case %zu: \"%s\" does not hold \"%s\"", i, msg, cases[i].expect);
    g_assert_true(g_str_has_prefix(msg, "ball.json:"));
  }
  /* a line number: the events are on lines 30 and after */
  g_autofree char *msg = open_text(cases[1].events);
  int line = atoi(msg + strlen("ball.json:"));
  g_assert_cmpint(line, >, 25);
}

/* stepping through events one step at a time (what the application's
 * runner does): the same states as lw_simulate; a stop holds */
static void test_step_events(void)
{
  lw_model *m = lwt_open("bouncing-ball.json");
  lw_sim_result r = run(m, 2.0);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  lw_event_run *ev = lw_event_run_new(m, d, &err);
  g_assert_nonnull(ev);
  lw_step_info info;
  for (int k = 0; k < 2000; k++)
    g_assert_cmpint(lw_step_events(m, d, ev, &info, &err), ==, LW_OK);
  long n;
  const lw_event_record *log = lw_event_run_log(ev, &n);
  g_assert_cmpint(n, ==, 3);
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat(log[k].t, ==, r.events[k].t);
  double out[16];
  lw_outputs(m, d, out);
  g_assert_cmpfloat(lw_data_time(d), ==, 2.0);
  g_assert_cmpmem(out, sizeof(double) * 4, r.table + (size_t)(r.rows - 1) * r.ncols + 1, sizeof(double) * 4);
  /* on to the end of the bouncing: a stop, and stepping on stops again */
  int st = LW_OK;
  for (int k = 0; k < 5000 && st == LW_OK; k++)
    st = lw_step_events(m, d, ev, &info, &err);
  g_assert_cmpint(st, ==, LW_EVENT_STOP);
  double t = lw_data_time(d);
  g_assert_cmpfloat(t, <, 4.07);
  g_assert_cmpint(lw_step_events(m, d, ev, &info, &err), ==, LW_EVENT_STOP);
  g_assert_cmpfloat(lw_data_time(d), ==, t);
  /* a state set from outside (back to the start): the guards follow it */
  double q0[4] = {0, 1, 1, 0}, z[4] = {0, 0, 0, 0}, a[4] = {0, -9.81, 0, 0};
  lw_data_set_state(m, d, 0.0, q0, z, a, NULL);
  for (int k = 0; k < 1000; k++)
    g_assert_cmpint(lw_step_events(m, d, ev, &info, &err), ==, LW_OK);
  log = lw_event_run_log(ev, &n);
  g_assert_cmpfloat(fabs(log[n - 1].t - ball_impacts[0]), <, 1e-10);
  lw_event_run_free(ev);
  lw_data_free(d);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

/* editing: renaming follows into the events, removing takes the events
 * that refer to the element (and their parameter targets) with it */
static void test_edit(void)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  lw_event_desc *g = lw_desc_add_event(d, "half", LW_EVENT_GUARD);
  g->output = strdup("centre");
  g->value = 0.5;
  g_assert_true(lw_desc_name_used(d, "floor"));
  g_assert_cmpint(lw_desc_rename(d, "bodies/ball", "sphere"), ==, 1);
  g_assert_cmpstr(d->events[0].body, ==, "sphere");
  g_assert_cmpint(lw_desc_rename(d, "outputs/centre", "middle"), ==, 1);
  g_assert_cmpstr(d->events[1].output, ==, "middle");
  g_assert_cmpint(lw_desc_rename(d, "events/floor", "ground_line"), ==, 1);
  g_assert_cmpstr(d->events[0].name, ==, "ground_line");
  int p = lw_desc_param_index(d, "restitution");
  g_assert_cmpstr(d->params[p].targets[0], ==, "events/ground_line/restitution");
  lw_model *m = lwt_compile(d);
  lw_model_free(m);
  /* the guard goes with its output, the contact with its body */
  g_assert_cmpint(lw_desc_remove(d, "outputs/middle"), ==, 2);
  g_assert_cmpint(d->nevents, ==, 1);
  g_assert_cmpint(lw_desc_remove(d, "events/ground_line"), ==, 1);
  g_assert_cmpint(d->nevents, ==, 0);
  g_assert_cmpint(lw_desc_param_index(d, "restitution"), <, 0);
  lw_desc_free(d);
  d = lwt_read("bouncing-ball.json");
  g_assert_cmpint(lw_desc_remove(d, "bodies/ball"), >=, 2);
  g_assert_cmpint(d->nevents, ==, 0);
  lw_desc_free(d);
}

/* a plastic impact (e = 0) ends the bouncing at once; a two-link chain
 * at a wall keeps its joints through the impact and obeys the law on the
 * normal velocity (its kinetic energy falls, by less than e^2 alone) */
static void test_plastic_and_chain(void)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  int p = lw_desc_param_index(d, "restitution");
  d->params[p].value = 0.0;
  lw_model *m = lwt_compile(d);
  lw_sim_result r = run(m, 2.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, ==, 2);
  g_assert_cmpint(r.events[0].action, ==, LW_EVREC_IMPACT);
  g_assert_cmpfloat(fabs(r.events[0].v_post), <, 1e-12);
  g_assert_cmpint(r.events[1].action, ==, LW_EVREC_REST);
  g_assert_cmpfloat(r.events[1].t, ==, r.events[0].t);
  g_assert_cmpfloat(r.table[(size_t)(r.rows - 1) * r.ncols], ==, r.events[0].t);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);

  d = lwt_read("double-pendulum.json");
  lw_desc_add_output(d, "ke", LW_OUT_KINETIC_ENERGY);
  /* the wall x = -1.2 m: the outer link's end swings into it */
  lw_event_desc *e = lw_desc_add_event(d, "wall", LW_EVENT_CONTACT);
  e->body = strdup(d->bodies[1].name);
  e->place.p[0] = 1.0;
  e->normal[0] = 1;
  e->normal[1] = 0;
  e->offset = -1.2;
  e->restitution = 0.6;
  m = lwt_compile(d);
  r = run(m, 3.0);
  g_assert_cmpint(r.status, ==, LW_OK);
  g_assert_cmpint(r.nevents, >=, 1);
  int c = lwt_col(m, "ke");
  for (long k = 0; k < r.nevents; k++) {
    const lw_event_record *ev = &r.events[k];
    if (ev->action != LW_EVREC_IMPACT)
      continue;
    g_assert_cmpfloat(fabs(ev->v_post + 0.6 * ev->v_pre), <, 1e-10 * fabs(ev->v_pre));
    long i = row_at(&r, ev->t);
    double k0 = r.table[(size_t)i * r.ncols + c], k1 = r.table[(size_t)(i + 1) * r.ncols + c];
    g_assert_cmpfloat(k1, <, k0);
    g_assert_cmpfloat(k1, >, 0.36 * k0);
  }
  g_assert_cmpfloat(r.max_constraint_residual, <, 1e-9);
  g_test_message("%ld events, the first at %.9f s", r.nevents, r.events[0].t);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

/* The run through events is smooth in the parameters: central differences
 * of whole runs across the ball's three impacts give the closed-form
 * sensitivities of seed 003 sec. 2.4 (a) (dy(2), dydot(2) and the impact
 * times with respect to e, h0 and g).  A run whose impacts snapped to the
 * step grid would be off by about h / (its time scale).  The differences
 * take 1e-4 of each value: the run's round-off (1e-12 s in the impact
 * times) divided by a smaller one would swamp them. */
typedef struct {
  double y, yd, t[3];
} ball_end;

static ball_end ball_run(double e, double h0, double g)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  d->events[0].restitution = e;
  d->params[lw_desc_param_index(d, "restitution")].value = e;
  d->params[lw_desc_param_index(d, "height")].value = h0;
  d->gravity[1] = -g;
  lw_model *m = lwt_compile(d);
  lw_sim_result r = run(m, 2.0);
  g_assert_cmpint(r.nevents, ==, 3);
  const double *last = r.table + (size_t)(r.rows - 1) * r.ncols;
  ball_end b = {last[lwt_col(m, "centre.y")], last[lwt_col(m, "speed.y")], {r.events[0].t, r.events[1].t, r.events[2].t}};
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
  return b;
}

static void test_ball_parameters(void)
{
  /* the closed form's table: d/de, d/dh0, d/dg of y(2), dy/dt(2), t1, t2, t3 */
  static const double table[3][5] = {
    {2.499324113317e+00, 3.153766205666e+01, 0, 9.0304728197e-01, 2.3479229331e+00},
    {4.266108641635e-01, 9.727065432082e+00, 2.2576182049e-01, 5.8698073328e-01, 8.7595586351e-01},
    {-1.690816879067e-02, -1.008454084395e+00, -2.3013437359e-02, -5.9834937134e-02, -8.9292136953e-02},
  };
  const double x0[3] = {0.8, 1.0, 9.81};
  double worst = 0;
  for (int j = 0; j < 3; j++) {
    double x[3] = {x0[0], x0[1], x0[2]}, dx = 1e-4 * x0[j];
    x[j] = x0[j] + dx;
    ball_end p = ball_run(x[0], x[1], x[2]);
    x[j] = x0[j] - dx;
    ball_end q = ball_run(x[0], x[1], x[2]);
    double fd[5] = {(p.y - q.y) / (2 * dx), (p.yd - q.yd) / (2 * dx), (p.t[0] - q.t[0]) / (2 * dx),
                    (p.t[1] - q.t[1]) / (2 * dx), (p.t[2] - q.t[2]) / (2 * dx)};
    for (int k = 0; k < 5; k++) {
      double err = fabs(fd[k] - table[j][k]) / fmax(fabs(table[j][k]), 1e-2);
      worst = fmax(worst, err);
      if (!(err < 1e-6))
        g_error("parameter %d, quantity %d: %.12g against %.12g", j, k, fd[k], table[j][k]);
    }
  }
  g_test_message("central differences across the impacts within %.3g (relative) of the closed form", worst);
}

/* impacts a hair before or after a grid point: the short pieces of step
 * on either side keep the state's digits (a trapezoidal step of 1e-12 s
 * would lose four of the velocity's: 3e-7 m/s at 0.6 s) */
static void test_near_grid(void)
{
  /* impact times 0.452 s - 9e-13 s, 0.452 s + 1e-8 s, 0.451 s + 5e-7 s */
  static const double heights[] = {1.00211112, 1.0021111643412005, 0.9976840500000044};
  for (size_t i = 0; i < G_N_ELEMENTS(heights); i++) {
    lw_desc *d = lwt_read("bouncing-ball.json");
    d->params[lw_desc_param_index(d, "height")].value = heights[i];
    lw_model *m = lwt_compile(d);
    lw_sim_result r = run(m, 0.6);
    g_assert_cmpint(r.nevents, ==, 1);
    double g = 9.81, t1 = sqrt(2 * heights[i] / g), v = 0.8 * g * t1, T = 0.6;
    const double *last = r.table + (size_t)(r.rows - 1) * r.ncols;
    g_assert_cmpfloat(fabs(r.events[0].t - t1), <, 1e-11);
    g_assert_cmpfloat(fabs(last[lwt_col(m, "speed.y")] - (v - g * (T - t1))), <, 1e-10);
    g_assert_cmpfloat(fabs(last[lwt_col(m, "centre.y")] - (v * (T - t1) - 0.5 * g * (T - t1) * (T - t1))), <, 1e-10);
    /* the rows stay on the grid */
    g_assert_cmpint(r.rows, ==, 601 + 2);
    lw_sim_result_clear(&r);
    lw_model_free(m);
    lw_desc_free(d);
  }
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/events/ball", test_ball);
  g_test_add_func("/events/ball-rest", test_ball_rest);
  g_test_add_func("/events/pendulum-wall", test_pendulum_wall);
  g_test_add_func("/events/four-bar-limit", test_four_bar_limit);
  g_test_add_func("/events/guard-stop", test_guard_stop);
  g_test_add_func("/events/param-roundtrip", test_param_roundtrip);
  g_test_add_func("/events/bad-input", test_bad_input);
  g_test_add_func("/events/step-events", test_step_events);
  g_test_add_func("/events/edit", test_edit);
  g_test_add_func("/events/plastic-and-chain", test_plastic_and_chain);
  g_test_add_func("/events/ball-parameters", test_ball_parameters);
  g_test_add_func("/events/near-grid", test_near_grid);
  return g_test_run();
}
