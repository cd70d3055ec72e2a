/* test-event-sens2.c: exact sensitivities through events for models whose
 * equations depend on time (src/core/sens/sens_events.c): a force that is
 * a function of time on the bouncing ball, and a double pendulum whose
 * shoulder is driven while its tip strikes the floor.  Forward = adjoint,
 * both against Richardson-extrapolated central differences of whole runs
 * (the events stay away from the perturbations' reach); what stays
 * refused is named. */
#include "lw-test.h"

#include <math.h>
#include <string.h>

#include "linkwright.h"

/* ---- helpers (as tests/test-event-sens.c) ------------------------------ */
static void add_term(lw_desc *d, const char *obj, const char *output, lw_term_kind kind, int comp)
{
  lw_objective_desc *o = lw_desc_add_objective(d, obj);
  lw_term_desc *t = lw_objective_add_term(o, output);
  t->kind = kind;
  t->form = LW_TERM_VALUE;
  t->component = comp;
  t->weight = 1.0;
}

static lw_sens_options all_options(const lw_desc *d, lw_sens_method method, int *params, int *objs)
{
  for (int j = 0; j < d->nparams; j++)
    params[j] = j;
  for (int o = 0; o < d->nobjectives; o++)
    objs[o] = o;
  lw_sens_options opt = {0};
  opt.method = method;
  opt.nparams = d->nparams;
  opt.params = params;
  opt.nobj = d->nobjectives;
  opt.objectives = objs;
  opt.threads = 1;
  return opt;
}

/* every objective's value and gradient with respect to every parameter of d */
static lw_sens_result sens_all(const lw_desc *d, lw_sens_method method)
{
  int params[16], objs[16];
  lw_sens_options opt = all_options(d, method, params, objs);
  lw_sens_result r;
  lw_sensitivity(d, &opt, &r);
  if (r.status)
    g_error("%s: %s", lw_sens_method_name(method), r.error.msg);
  return r;
}

/* central differences of whole runs, Richardson-extrapolated from the
 * relative steps eps and eps/2 */
static lw_sens_result fd_richardson(const lw_desc *d, double eps)
{
  int params[16], objs[16];
  lw_sens_options opt = all_options(d, LW_SENS_FD, params, objs);
  lw_sens_result a, b;
  opt.fd_step = eps;
  lw_sensitivity(d, &opt, &a);
  opt.fd_step = 0.5 * eps;
  lw_sensitivity(d, &opt, &b);
  g_assert_cmpint(a.status, ==, LW_OK);
  g_assert_cmpint(b.status, ==, LW_OK);
  for (int k = 0; k < d->nparams * d->nobjectives; k++)
    b.gradient[k] = (4.0 * b.gradient[k] - a.gradient[k]) / 3.0;
  lw_sens_result_clear(&a);
  return b;
}

/* the largest difference of the gradients, relative to each objective's largest entry */
static double grad_diff(const lw_sens_result *f, const lw_sens_result *g)
{
  double worst = 0;
  for (int o = 0; o < f->nobj; o++) {
    double scale = 0;
    for (int j = 0; j < f->nparams; j++)
      scale = fmax(scale, fabs(f->gradient[(size_t)o * f->nparams + j]));
    for (int j = 0; j < f->nparams; j++) {
      size_t k = (size_t)o * f->nparams + j;
      worst = fmax(worst, fabs(f->gradient[k] - g->gradient[k]) / scale);
    }
  }
  return worst;
}

/* forward and adjoint, then differences: fwd = adj to fa_tol, both to the
 * differences to fd_tol (relative to each objective's largest entry) */
static void check_events(const lw_desc *d, const char *what, int min_events, double eps, double fa_tol,
                         double fd_tol)
{
  lw_model *m = lwt_compile(d);
  lw_sim_result sr;
  lw_simulate(m, d->solver.t_end, d->solver.step, &sr, NULL, NULL);
  g_assert_cmpint(sr.status, ==, LW_OK);
  long nev = sr.nevents;
  lw_sim_result_clear(&sr);
  lw_model_free(m);
  g_assert_cmpint(nev, >=, min_events);
  lw_sens_result f = sens_all(d, LW_SENS_FORWARD), a = sens_all(d, LW_SENS_ADJOINT);
  lw_sens_result c = fd_richardson(d, eps);
  double fa = grad_diff(&f, &a), fc = grad_diff(&f, &c), ac = grad_diff(&a, &c);
  for (int o = 0; o < f.nobj; o++)
    for (int j = 0; j < f.nparams; j++) {
      size_t k = (size_t)o * f.nparams + j;
      g_test_message("%s d%s/d%s: forward %.12g adjoint %.12g differences %.12g", what, d->objectives[o].name,
                     d->params[j].name, f.gradient[k], a.gradient[k], c.gradient[k]);
    }
  g_test_message("%s (%ld events): forward = adjoint to %.3g, central differences (Richardson) to %.3g "
                 "(forward) and %.3g (adjoint)",
                 what, nev, fa, fc, ac);
  g_assert_cmpfloat(fa, <, fa_tol);
  g_assert_cmpfloat(fc, <, fd_tol);
  g_assert_cmpfloat(ac, <, fd_tol);
  for (int o = 0; o < f.nobj; o++)
    g_assert_cmpfloat(fabs(f.value[o] - a.value[o]), <=, 1e-14 * fmax(fabs(f.value[o]), 1.0));
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&c);
}

/* ---- a force that is a function of time -------------------------------- */
/* The bouncing ball pushed up and down by F(t) = 4 sin(3 t + 0.5) N: its
 * impacts happen where the force has moved them, and the force differs
 * before and after each.  The force's amplitude and frequency, the floor's
 * height and the restitution are parameters. */
static lw_desc *ball_pushed(void)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  d->solver.tolerance = 1e-13;
  lw_force_desc *f = lw_desc_add_force(d, "push", LW_FORCE_FORCE);
  f->body[0] = strdup("ball");
  lw_place_set_ref(&f->place[0], "centre");
  f->vector[0] = 0;
  f->vector[1] = 1;
  f->func.type = LW_FUNC_SINE;
  f->func.a[0] = 0.0;
  f->func.a[1] = 4.0;
  f->func.a[2] = 3.0;
  f->func.a[3] = 0.5;
  lw_desc_remove(d, "parameters/height");
  lw_desc_add_param(d, "amplitude", "forces/push/function/1")->value = 4.0;
  lw_desc_add_param(d, "omega", "forces/push/function/2")->value = 3.0;
  lw_desc_add_param(d, "floor", "events/floor/offset")->value = 0.0;
  add_term(d, "yT", "centre", LW_TERM_FINAL, 1);
  add_term(d, "vT", "speed", LW_TERM_FINAL, 1);
  add_term(d, "zint", "centre", LW_TERM_INTEGRAL, 1);
  return d;
}

static void test_ball_time_force(void)
{
  lw_desc *d = ball_pushed();
  check_events(d, "ball under a force of time", 3, 1e-4, 1e-10, 1e-6);
  lw_desc_free(d);
}

/* The event step's time terms are what make it exact: the same run at a
 * step of 1e-3 s and 5e-4 s moves the gradient by the step's error only,
 * which the differences share (see check_events); here the event times'
 * derivatives are checked against differences of the event times */
static void test_ball_time_force_event_dt(void)
{
  lw_desc *d = ball_pushed();
  int params[16], objs[16];
  lw_sens_options opt = all_options(d, LW_SENS_FORWARD, params, objs);
  lw_sens_result f;
  g_assert_cmpint(lw_sensitivity(d, &opt, &f), ==, LW_OK);
  g_assert_nonnull(f.event_dt);
  for (int j = 0; j < d->nparams; j++) {
    double v = d->params[j].value, h = 1e-5 * fmax(fabs(v), 1.0), t[2][8];
    long n[2];
    for (int s = 0; s < 2; s++) {
      lw_desc *dd = lw_desc_copy(d);
      dd->params[j].value = v + (s ? -h : h);
      lw_sens_options o1 = opt;
      o1.method = LW_SENS_VALUE;
      lw_sens_result r;
      g_assert_cmpint(lw_sensitivity(dd, &o1, &r), ==, LW_OK);
      n[s] = r.nevents;
      for (long k = 0; k < r.nevents && k < 8; k++)
        t[s][k] = r.events[k].t;
      lw_sens_result_clear(&r);
      lw_desc_free(dd);
    }
    g_assert_cmpint(n[0], ==, f.nevents);
    g_assert_cmpint(n[1], ==, f.nevents);
    for (long k = 0; k < f.nevents && k < 8; k++) {
      double fd = (t[0][k] - t[1][k]) / (2.0 * h), got = f.event_dt[(size_t)k * d->nparams + j];
      g_test_message("dt%ld/d%s = %.10g, differences %.10g", k + 1, d->params[j].name, got, fd);
      g_assert_cmpfloat(fabs(got - fd), <, 1e-6 * fmax(fabs(fd), 1e-2));
    }
  }
  lw_sens_result_clear(&f);
  lw_desc_free(d);
}

/* ---- a driver ------------------------------------------------------------ */
/* The double pendulum with its shoulder driven, theta1(t) = 0.4 sin(2 t),
 * and the tip of the free second link striking the floor y = -0.8 (e =
 * 0.6): the impact's conditions hold the driven joint (J qd+ + Phi_t = 0),
 * the accelerations after it see the driver's second derivative at the
 * event's time.  The driver's amplitude and frequency, the floor and the
 * restitution are parameters. */
static lw_desc *pendulum_driven(void)
{
  lw_desc *d = lwt_read("double-pendulum.json");
  d->solver.t_end = 2.0;
  d->solver.tolerance = 1e-13;
  lwt_clear_initial(d);
  lw_driver_desc *dr = lw_desc_add_driver(d, "drive", "shoulder", 0);
  dr->func.type = LW_FUNC_SINE;
  dr->func.a[0] = 0.0;
  dr->func.a[1] = 0.4;
  dr->func.a[2] = 2.0;
  dr->func.a[3] = 0.0;
  lw_event_desc *e = lw_desc_add_event(d, "floor", LW_EVENT_CONTACT);
  e->body = strdup("link2");
  lw_place_set_ref(&e->place, "end");
  e->normal[0] = 0;
  e->normal[1] = 1;
  e->offset = -0.8;
  e->restitution = 0.6;
  lw_desc_add_param(d, "amplitude", "drivers/drive/function/1")->value = 0.4;
  lw_desc_add_param(d, "omega", "drivers/drive/function/2")->value = 2.0;
  lw_desc_add_param(d, "floor", "events/floor/offset")->value = -0.8;
  lw_desc_add_param(d, "e", "events/floor/restitution")->value = 0.6;
  add_term(d, "xT", "tip", LW_TERM_FINAL, 0);
  add_term(d, "yT", "tip", LW_TERM_FINAL, 1);
  add_term(d, "yint", "tip", LW_TERM_INTEGRAL, 1);
  return d;
}

static void test_pendulum_driven(void)
{
  lw_desc *d = pendulum_driven();
  check_events(d, "driven double pendulum at the floor", 1, 1e-4, 1e-10, 5e-7);
  lw_desc_free(d);
}

/* the same with the driver a spline through 0.4 sin(2 t) sampled every
 * 0.25 s: its third derivative, constant on each piece, enters the
 * accelerations' time terms; a knot value is a parameter */
static void test_pendulum_spline_driven(void)
{
  lw_desc *d = pendulum_driven();
  lw_desc_remove(d, "parameters/amplitude");
  lw_desc_remove(d, "parameters/omega");
  lw_func *f = &d->drivers[0].func;
  f->type = LW_FUNC_SPLINE;
  f->n = 11;
  f->a[0] = 0.0;
  f->a[1] = 2.5;
  f->a[2] = f->a[3] = 0.0;
  f->knots = calloc(11, sizeof(double));
  for (int k = 0; k < 11; k++)
    f->knots[k] = 0.4 * sin(2.0 * 0.25 * k);
  f->knots[0] = 0.0;
  lw_desc_add_param(d, "knot3", "drivers/drive/function/3")->value = f->knots[3];
  check_events(d, "double pendulum driven by a spline at the floor", 1, 1e-4, 1e-10, 5e-7);
  lw_desc_free(d);
}

/* ---- a collision between two bodies ------------------------------------- */
/* Two free balls without gravity: the first, pushed along x by a constant
 * 1 N, strikes the second, at rest 1 m ahead and 0.05 m higher, obliquely
 * where their centres come within 0.1 m (e = 0.9), and both move on.  The
 * guard (|p1 - p2|^2 - d^2) / 2d moves with both balls' coordinates; the
 * distance, the restitution, the points' places on either ball, the
 * second ball's height and the push are parameters. */
static lw_desc *two_balls(void)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  d->solver.t_end = 2.0;
  d->solver.tolerance = 1e-13;
  d->gravity[0] = d->gravity[1] = d->gravity[2] = 0.0;
  lw_desc_remove(d, "parameters/height");
  lw_desc_remove(d, "parameters/restitution");
  lw_desc_remove(d, "events/floor");
  d->bodies[0].position[1] = 0.0;
  lw_body_desc *b = lw_desc_add_body(d, "other");
  b->mass = 0.5;
  b->inertia[2] = 0.001;
  b->position[0] = 1.0;
  b->position[1] = 0.05;
  lw_force_desc *f = lw_desc_add_force(d, "push", LW_FORCE_FORCE);
  f->body[0] = strdup("ball");
  lw_place_set_ref(&f->place[0], "centre");
  f->vector[0] = 1.0;
  f->func.type = LW_FUNC_CONSTANT;
  f->func.a[0] = 1.0;
  lw_event_desc *e = lw_desc_add_event(d, "hit", LW_EVENT_COLLISION);
  e->body = strdup("ball");
  e->body2 = strdup("other");
  e->distance = 0.1;
  e->restitution = 0.9;
  lw_desc_add_param(d, "distance", "events/hit/distance")->value = 0.1;
  lw_desc_add_param(d, "e", "events/hit/restitution")->value = 0.9;
  lw_desc_add_param(d, "p1y", "events/hit/point/1")->value = 0.0;
  lw_desc_add_param(d, "p2x", "events/hit/point2/0")->value = 0.0;
  lw_desc_add_param(d, "y2", "bodies/other/position/1")->value = 0.05;
  lw_desc_add_param(d, "push", "forces/push/vector/0")->value = 1.0;
  lw_output_desc *o = lw_desc_add_output(d, "c2", LW_OUT_POSITION);
  o->body = strdup("other");
  add_term(d, "x2T", "c2", LW_TERM_FINAL, 0);
  add_term(d, "y2T", "c2", LW_TERM_FINAL, 1);
  add_term(d, "y1T", "centre", LW_TERM_FINAL, 1);
  add_term(d, "x2int", "c2", LW_TERM_INTEGRAL, 0);
  return d;
}

static void test_two_balls(void)
{
  lw_desc *d = two_balls();
  check_events(d, "two balls colliding", 1, 1e-3, 1e-10, 5e-7);
  lw_desc_free(d);
}

/* ---- the tolerance mode -------------------------------------------------- */
/* the same models with steps sized to rtol = atol = 1e-8 up to 0.02 s
 * (100 to 1200 steps of varying length): forward and adjoint carry the
 * same event steps, with their time terms, to the same gradients */
static void test_tolerance_mode(void)
{
  lw_desc *ds[3] = {ball_pushed(), pendulum_driven(), two_balls()};
  for (int k = 0; k < 3; k++) {
    lw_desc *d = ds[k];
    d->solver.t_end = fmin(d->solver.t_end, 2.0);
    d->solver.tolerance = 1e-14;
    d->solver.constraint_tolerance = 1e-12;
    d->solver.mode = LW_MODE_TOLERANCE;
    d->solver.rtol = d->solver.atol = 1e-8;
    d->solver.step = 0.02; /* the largest step: the tolerance sizes them */
    lw_sens_result f = sens_all(d, LW_SENS_FORWARD), a = sens_all(d, LW_SENS_ADJOINT);
    g_assert_cmpint(f.steps, ==, a.steps);
    g_assert_cmpint(f.nevents, >=, 1);
    double fa = grad_diff(&f, &a);
    g_test_message("model %d in the tolerance mode (%ld steps, %ld events): forward = adjoint to %.3g", k, f.steps,
                   f.nevents, fa);
    g_assert_cmpfloat(fa, <, 1e-10);
    lw_sens_result_clear(&f);
    lw_sens_result_clear(&a);
    lw_desc_free(d);
  }
}

/* ---- what stays refused ------------------------------------------------- */
static void expect_refused(const lw_desc *d, const char *why)
{
  int params[16], objs[16];
  lw_sens_options opt = all_options(d, LW_SENS_FORWARD, params, objs);
  lw_sens_result r;
  lw_sensitivity(d, &opt, &r);
  g_assert_cmpint(r.status, ==, LW_ERR_MODEL);
  g_test_message("refused: %s", r.error.msg);
  g_assert_nonnull(strstr(r.error.msg, why));
  lw_sens_result_clear(&r);
}

/* a capture (its constraint, added from the crossing on, is not
 * differentiated) is still named, on a model that depends on time, and so
 * are collisions that touch (simultaneous impacts) */
static void test_still_refused(void)
{
  lw_desc *d = ball_pushed();
  lw_desc_remove(d, "events/floor");
  lw_desc_remove(d, "parameters/floor");
  lw_desc_remove(d, "parameters/restitution");
  lw_event_desc *e = lw_desc_add_event(d, "ring", LW_EVENT_CAPTURE);
  e->body = strdup("ball");
  lw_place_set_ref(&e->place, "centre");
  e->center[1] = 1.5;
  e->radius = 0.8;
  expect_refused(d, "a capture");
  lw_desc_free(d);
  /* Newton's cradle: its collisions touch from the start, and their
   * impacts would chain at one instant */
  d = lwt_read("newtons-cradle.json");
  lw_desc_add_param(d, "m1", "bodies/ball1/mass")->value = d->bodies[0].mass;
  add_term(d, "v5T", "v5", LW_TERM_FINAL, 0);
  expect_refused(d, "simultaneous impacts");
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/event-sens2/ball-time-force", test_ball_time_force);
  g_test_add_func("/event-sens2/ball-time-force-event-dt", test_ball_time_force_event_dt);
  g_test_add_func("/event-sens2/pendulum-driven", test_pendulum_driven);
  g_test_add_func("/event-sens2/pendulum-spline-driven", test_pendulum_spline_driven);
  g_test_add_func("/event-sens2/two-balls", test_two_balls);
  g_test_add_func("/event-sens2/tolerance-mode", test_tolerance_mode);
  g_test_add_func("/event-sens2/still-refused", test_still_refused);
  return g_test_run();
}
