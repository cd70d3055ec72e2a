/* test-event-sens.c: exact sensitivities through events (src/core/sens/
 * sens_events.c): the bouncing ball against its closed form (seed 003
 * notes sec. 2.4 a) by forward and adjoint, and constrained models with
 * impacts (forward = adjoint, both against Richardson-extrapolated central
 * differences of whole runs). */
#include "lw-test.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <unistd.h>

#include "linkwright.h"

/* ---- helpers ----------------------------------------------------------- */
static lw_term_desc *add_term(lw_desc *d, const char *obj, const char *output, lw_term_kind kind, int comp)
{
  lw_objective_desc *o = lw_desc_add_objective(d, obj);
  lw_term_desc *t = lw_objective_add_term(o, output);
  t->kind = kind;
  t->form = LW_TERM_VALUE;
  t->component = comp;
  t->weight = 1.0;
  return t;
}

/* every objective's value and gradient with respect to every parameter of d */
static lw_sens_result sens_all(const lw_desc *d, lw_sens_method method)
{
  int p = d->nparams, no = d->nobjectives, params[16], objs[16];
  for (int j = 0; j < p; j++)
    params[j] = j;
  for (int o = 0; o < no; o++)
    objs[o] = o;
  lw_sens_options opt = {0};
  opt.method = method;
  opt.nparams = p;
  opt.params = params;
  opt.nobj = no;
  opt.objectives = objs;
  opt.threads = 1;
  lw_sens_result r;
  lw_sensitivity(d, &opt, &r);
  if (r.status)
    g_error("%s: %s", lw_sens_method_name(method), r.error.msg);
  return r;
}

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

/* forward and adjoint agree: the largest relative difference of the values
 * and gradients (relative to the largest gradient entry of the objective) */
static double fwd_adj_diff(const lw_sens_result *f, const lw_sens_result *a)
{
  double worst = 0;
  for (int o = 0; o < f->nobj; o++) {
    worst = fmax(worst, rel(f->value[o], a->value[o]));
    double scale = 0;
    for (int j = 0; j < f->nparams; j++)
      scale = fmax(scale, fabs(f->gradient[(size_t)o * f->nparams + j]));
    for (int j = 0; j < f->nparams; j++) {
      size_t k = (size_t)o * f->nparams + j;
      worst = fmax(worst, fabs(f->gradient[k] - a->gradient[k]) / scale);
    }
  }
  return worst;
}

/* ---- the bouncing ball ------------------------------------------------- */
/* the closed form (h0 = 1 m, g = 9.81 m/s^2, e = 0.8, T = 2 s) */
static const double ball_t[3] = {0.451523640986, 1.173961466563, 1.751911727025};
static const double ball_y = 0.260741728327, ball_yd = -0.165869135836, ball_z = 0.811900973899;
/* d/de, d/dh0, d/dg of y(T), dy/dt(T), z(T) = int_0^T y dt, and of the impact times */
static const double ball_d[3][3] = {
  {2.499324113317e+00, 3.153766205666e+01, 1.989058937819e+00},
  {4.266108641635e-01, 9.727065432082e+00, 9.571097325207e-01},
  {-1.690816879067e-02, -1.008454084395e+00, -1.480211606750e-02},
};
static const double ball_dt[3][3] = {
  {0, 9.0304728197e-01, 2.3479229331e+00},
  {2.2576182049e-01, 5.8698073328e-01, 8.7595586351e-01},
  {-2.3013437359e-02, -5.9834937134e-02, -8.9292136953e-02},
};

/* The ball with the objectives y(T), dy/dt(T) (final values) and the
 * integral of y, and the parameters restitution e, the floor's height
 * (offset, 0: the notes' h0 enters as minus it) and gravity's y component
 * (-g) */
static lw_desc *ball_desc(double h)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  d->solver.step = h;
  add_term(d, "yT", "centre", LW_TERM_FINAL, 1);
  add_term(d, "vT", "speed", LW_TERM_FINAL, 1);
  add_term(d, "zint", "centre", LW_TERM_INTEGRAL, 1);
  /* only these three parameters, in this order */
  lw_desc_remove(d, "parameters/restitution");
  lw_desc_remove(d, "parameters/height");
  g_assert_cmpint(d->nparams, ==, 0);
  lw_desc_add_param(d, "e", "events/floor/restitution");
  lw_desc_add_param(d, "floor", "events/floor/offset");
  lw_desc_add_param(d, "gy", "gravity/1");
  for (int j = 0; j < 3; j++)
    d->params[j].value = j == 0 ? 0.8 : j == 1 ? 0.0 : -9.81;
  return d;
}

/* The closed form's derivatives with respect to the test's parameters:
 * the floor at height f is the notes' h0 - f with everything shifted by f
 * (y = f + y_rel, z = f T + z_rel); gy = -g */
static double ball_exact_grad(int o, int j)
{
  double T = 2.0;
  if (j == 0)
    return ball_d[0][o];
  if (j == 1)
    return (o == 0 ? 1.0 : o == 2 ? T : 0.0) - ball_d[1][o];
  return -ball_d[2][o];
}

static double ball_exact_dt(int k, int j)
{
  return j == 0 ? ball_dt[0][k] : j == 1 ? -ball_dt[1][k] : -ball_dt[2][k];
}

/* The integral's discrete value: the states are exact (the trapezoidal
 * rule's Newmark step is exact under constant acceleration, and the events
 * are located to 1e-14 s), and the rule over each sub-interval of length L
 * (a step, or the parts of a step on either side of an impact) of the
 * parabola y (y'' = -g) errs by exactly -g L^3 / 12 - so the discrete
 * integral is z - (g/12) sum L^3, and its derivative follows from the
 * closed form's impact times and their derivatives.  Returns that sum
 * (sum L^3) and its derivative with respect to parameter j into *dsum. */
static double ball_quad_error(double h, int j, double *dsum)
{
  long n = (long)floor(2.0 / h + 0.5);
  double s = (double)(n - 3) * h * h * h, ds = 0;
  for (int k = 0; k < 3; k++) {
    double a = ball_t[k] - h * floor(ball_t[k] / h), b = h - a;
    s += a * a * a + b * b * b;
    ds += 3.0 * (a * a - b * b) * ball_exact_dt(k, j);
  }
  *dsum = ds;
  return s;
}

static void test_ball(void)
{
  double h = 1e-3, g = 9.81;
  lw_desc *d = ball_desc(h);
  /* the impact times of the run */
  lw_model *m = lwt_compile(d);
  lw_sim_result sr;
  lw_simulate(m, 2.0, h, &sr, NULL, NULL);
  g_assert_cmpint(sr.nevents, ==, 3);
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat(fabs(sr.events[k].t - ball_t[k]), <, 1e-10);
  lw_sim_result_clear(&sr);
  lw_model_free(m);

  lw_sens_result f = sens_all(d, LW_SENS_FORWARD), a = sens_all(d, LW_SENS_ADJOINT);
  double fa = fwd_adj_diff(&f, &a);
  g_assert_cmpfloat(fa, <, 1e-8);
  const double val[3] = {ball_y, ball_yd, ball_z};
  double worst = 0;
  for (int o = 0; o < 3; o++) {
    double dsum0;
    double qs = o == 2 ? ball_quad_error(h, 0, &dsum0) : 0.0;
    double v = val[o] - (o == 2 ? g / 12.0 * qs : 0.0);
    for (int which = 0; which < 2; which++) {
      const lw_sens_result *r = which ? &a : &f;
      double e = rel(r->value[o], v);
      worst = fmax(worst, e);
      if (!(e < 1e-8))
        g_error("objective %d: %.15g against %.15g", o, r->value[o], v);
      for (int j = 0; j < 3; j++) {
        double ex = ball_exact_grad(o, j);
        if (o == 2) {
          double ds, s = ball_quad_error(h, j, &ds);
          /* d/dgy of -(g/12) s: g = -gy */
          ex -= g / 12.0 * ds + (j == 2 ? -s / 12.0 : 0.0);
        }
        double got = r->gradient[(size_t)o * 3 + j];
        e = rel(got, ex);
        worst = fmax(worst, e);
        if (!(e < 1e-8))
          g_error("%s: d objective %d / d parameter %d = %.15g against %.15g (%.3g)", which ? "adjoint" : "forward",
                  o, j, got, ex, e);
      }
    }
  }
  /* the impact times' derivatives (forward): the notes' table */
  g_assert_cmpint(f.nevents, ==, 3);
  g_assert_nonnull(f.event_dt);
  g_assert_cmpint(a.nevents, ==, 3);
  g_assert_null(a.event_dt);
  for (int k = 0; k < 3; k++) {
    g_assert_cmpfloat(fabs(f.events[k].t - ball_t[k]), <, 1e-10);
    for (int j = 0; j < 3; j++) {
      double ex = ball_exact_dt(k, j), got = f.event_dt[(size_t)k * 3 + j];
      /* the table's 11 digits */
      if (!(fabs(got - ex) < 1e-10 * fmax(fabs(ex), 1e-2)))
        g_error("dt%d/dparameter %d = %.15g against %.15g", k + 1, j, got, ex);
    }
  }
  g_test_message("ball at h = %g: forward = adjoint to %.3g, the closed form to %.3g (relative)", h, fa, worst);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_desc_free(d);
}

/* ---- constrained models with impacts ----------------------------------- */
/* Central differences of whole runs, Richardson-extrapolated from the
 * relative steps eps and eps/2: the run through events is smooth in the
 * parameters away from grazing (no impact appears or vanishes within the
 * perturbation), but each run carries the event's root tolerance and the
 * Newton tolerance, which the differences divide by eps; the core has no
 * complex-arithmetic path for a complex step.  Hence the check to 2e-5 of
 * the gradient's size, against forward = adjoint to 1e-8. */
static lw_sens_result fd_richardson(const lw_desc *d, double eps)
{
  int p = d->nparams, no = d->nobjectives, params[16], objs[16];
  for (int j = 0; j < p; j++)
    params[j] = j;
  for (int o = 0; o < no; o++)
    objs[o] = o;
  lw_sens_options opt = {0};
  opt.method = LW_SENS_FD;
  opt.nparams = p;
  opt.params = params;
  opt.nobj = no;
  opt.objectives = objs;
  lw_sens_result a, b;
  opt.fd_step = eps;
  lw_sensitivity(d, &opt, &a);
  opt.fd_step = 0.5 * eps;
  lw_sensitivity(d, &opt, &b);
  g_assert_cmpint(a.status, ==, LW_OK);
  g_assert_cmpint(b.status, ==, LW_OK);
  for (int k = 0; k < p * no; k++)
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

static void check_constrained(lw_desc *d, const char *what, int min_events, double eps)
{
  lw_model *m = lwt_compile(d);
  lw_sim_result sr;
  lw_simulate(m, d->solver.t_end, d->solver.step, &sr, NULL, NULL);
  g_assert_cmpint(sr.status, ==, LW_OK);
  g_assert_cmpint(sr.nevents, >=, min_events);
  long nev = sr.nevents;
  lw_sim_result_clear(&sr);
  lw_model_free(m);
  lw_sens_result f = sens_all(d, LW_SENS_FORWARD), a = sens_all(d, LW_SENS_ADJOINT);
  lw_sens_result c = fd_richardson(d, eps);
  double fa = fwd_adj_diff(&f, &a), fc = grad_diff(&f, &c);
  g_test_message("%s (%ld impacts): forward = adjoint to %.3g, central differences (Richardson) to %.3g", what, nev,
                 fa, fc);
  g_assert_cmpfloat(fa, <, 1e-8);
  g_assert_cmpfloat(fc, <, 2e-5);
  for (int o = 0; o < f.nobj; o++)
    g_assert_cmpfloat(rel(f.value[o], c.value[o]), <, 1e-12);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&c);
}

/* the five-bar of seed 003 sec. 7 with point 2 striking the ground y =
 * -2.35 (models/five-bar-ground.json): nine impacts in 5 s, the springs'
 * rest lengths, a mass, a centre of mass and a bar length as parameters,
 * the objectives psi1..3 and y2(T) */
static void test_five_bar_ground(void)
{
  lw_desc *d = lwt_read("five-bar-ground.json");
  d->solver.tolerance = 1e-13; /* the differences divide the runs' noise by eps */
  add_term(d, "y2T", "r2", LW_TERM_FINAL, 1);
  check_constrained(d, "five-bar at the ground", 9, 2e-4);
  lw_desc_free(d);
}

/* the pendulum of tests/test-events.c against the wall x = 0 (e = 0.7):
 * an impact on an off-centre point with the revolute joint held; the wall's
 * place and the restitution are parameters too */
static void test_pendulum_wall(void)
{
  lw_desc *d = lwt_read("pendulum.json");
  d->solver.t_end = 3.0;
  d->solver.tolerance = 1e-13;
  lw_event_desc *e = lw_desc_add_event(d, "wall", LW_EVENT_CONTACT);
  e->body = strdup("bob");
  lw_place_set_ref(&e->place, "P1");
  e->normal[0] = -1;
  e->normal[1] = 0;
  e->offset = -0.05;
  e->restitution = 0.7;
  lw_desc_add_param(d, "wall", "events/wall/offset")->value = -0.05;
  lw_desc_add_param(d, "e", "events/wall/restitution")->value = 0.7;
  add_term(d, "xT", "P1", LW_TERM_FINAL, 0);
  check_constrained(d, "pendulum at a wall", 2, 2e-4);
  lw_desc_free(d);
}

/* the four-bar's rocker against an upper joint limit (e = 0.5): the
 * limit's guard is a joint coordinate, nonlinear in q (its Hessian enters
 * the impact's derivative); the bound and the restitution are parameters */
static void test_four_bar_limit(void)
{
  lw_desc *d = lwt_read("four-bar.json");
  d->solver.t_end = 2.0;
  d->solver.tolerance = 1e-13;
  lw_output_desc *out = lw_desc_add_output(d, "rocker", LW_OUT_JOINT_COORDINATE);
  out->joint = strdup("D");
  /* the bound halfway up the rocker's free swing (tests/test-events.c) */
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  lw_simulate(m, 2.0, d->solver.step, &r, NULL, NULL);
  int c = lwt_col(m, "rocker");
  double x0 = r.table[c], xmax = -INFINITY;
  for (long i = 0; i < r.rows; i++)
    xmax = fmax(xmax, r.table[(size_t)i * r.ncols + c]);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_event_desc *e = lw_desc_add_event(d, "stop", LW_EVENT_JOINT_LIMIT);
  e->joint = strdup("D");
  e->has_upper = 1;
  e->upper = 0.5 * (x0 + xmax);
  e->restitution = 0.5;
  lw_desc_add_param(d, "upper", "events/stop/upper")->value = e->upper;
  lw_desc_add_param(d, "e", "events/stop/restitution")->value = 0.5;
  d->solver.t_end = 1.2; /* before the bouncing at the limit ends (1.62 s) */
  add_term(d, "rockerT", "rocker", LW_TERM_FINAL, -1);
  add_term(d, "rocker_int", "rocker", LW_TERM_INTEGRAL, -1);
  /* smaller differences: the reaction's objective bends strongly with the
   * bound (at 2e-4 the extrapolation is still 1e-4 off, at 5e-5 1e-5) */
  check_constrained(d, "four-bar at a joint limit", 2, 5e-5);
  lw_desc_free(d);
}

/* An impact 0.3 % of a step after the step's start, and one 0.3 % before
 * its end: the run advances there by a predictor-corrector instead of a
 * step (lw_events.c), whose derivative is taken as well.  The floor's
 * height places the first impact (t = sqrt(2 (1 - f) / g)). */
static void test_ball_short(void)
{
  const double frac[2] = {0.003, 0.997};
  for (int k = 0; k < 2; k++) {
    lw_desc *d = ball_desc(1e-3);
    double t1 = 0.451e0 + frac[k] * 1e-3, f = 1.0 - 0.5 * 9.81 * t1 * t1;
    d->params[1].value = f;
    d->events[0].offset = f;
    lw_model *m = lwt_compile(d);
    lw_sim_result sr;
    lw_simulate(m, 2.0, 1e-3, &sr, NULL, NULL);
    g_assert_cmpfloat(fabs(sr.events[0].t - t1), <, 1e-10);
    lw_sim_result_clear(&sr);
    lw_model_free(m);
    check_constrained(d, k ? "ball, impact 0.3 % before a step's end" : "ball, impact 0.3 % into a step", 3, 2e-5);
    lw_desc_free(d);
  }
}

/* the adjoint from checkpoints (its segments stepped again through the
 * events) gives the gradients of the one that keeps every state */
static void test_checkpointed(void)
{
  lw_desc *d = lwt_read("five-bar-ground.json");
  int params[2] = {0, 1}, obj = 0;
  lw_sens_options opt = {0};
  opt.method = LW_SENS_ADJOINT;
  opt.nparams = 2;
  opt.params = params;
  opt.nobj = 1;
  opt.objectives = &obj;
  lw_sens_result a, b;
  lw_sensitivity(d, &opt, &a);
  opt.memory_limit = 64 << 10;
  lw_sensitivity(d, &opt, &b);
  g_assert_cmpint(a.status, ==, LW_OK);
  g_assert_cmpint(b.status, ==, LW_OK);
  g_assert_cmpint(a.recomputed, ==, 0);
  g_assert_cmpint(b.recomputed, ==, 1);
  for (int j = 0; j < 2; j++)
    g_assert_cmpfloat(a.gradient[j], ==, b.gradient[j]);
  g_assert_cmpfloat(a.value[0], ==, b.value[0]);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&b);
  lw_desc_free(d);
}

/* ---- the command line ---------------------------------------------------- */
static int run_cli(const char *args, char **out)
{
  g_autofree char *cmd = g_strdup_printf("%s %s", LW_CLI, args);
  int status = 0;
  g_assert_true(g_spawn_command_line_sync(cmd, out, NULL, &status, NULL));
  g_assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

/* sensitivity --json lists the events with their times' derivatives, and
 * --events-csv writes them */
static void test_cli_event_log(void)
{
  g_autofree char *csv = g_build_filename(g_get_tmp_dir(), "lw-event-sens.csv", NULL);
  g_autofree char *args = g_strdup_printf("sensitivity %s/bouncing-ball-timing.json --objective on_floor "
                                          "--method forward --json --events-csv %s", LW_MODELS_DIR, csv);
  g_autofree char *out = NULL;
  g_assert_cmpint(run_cli(args, &out), ==, 0);
  JsonParser *p = json_parser_new();
  g_assert_true(json_parser_load_from_data(p, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  JsonArray *ev = json_object_get_array_member(o, "events");
  g_assert_cmpint(json_array_get_length(ev), ==, 2); /* 0.45 and 1.17 s before 1.6 s */
  for (int k = 0; k < 2; k++) {
    JsonObject *e = json_array_get_object_element(ev, k);
    g_assert_cmpfloat(fabs(json_object_get_double_member(e, "t") - ball_t[k]), <, 1e-10);
    g_assert_cmpstr(json_object_get_string_member(e, "action"), ==, "impact");
    JsonObject *dt = json_object_get_object_member(e, "dt_dparam");
    g_assert_cmpfloat(fabs(json_object_get_double_member(dt, "restitution") - ball_dt[0][k]), <, 1e-10);
  }
  g_object_unref(p);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_assert_cmpstr(lines[0], ==, "t,event,action,dt/drestitution,dt/dheight");
  g_auto(GStrv) f = g_strsplit(lines[2], ",", -1);
  g_assert_cmpuint(g_strv_length(f), ==, 5);
  g_assert_cmpfloat(fabs(g_ascii_strtod(f[0], NULL) - ball_t[1]), <, 1e-10);
  g_assert_cmpstr(f[1], ==, "floor");
  g_assert_cmpstr(f[2], ==, "impact");
  g_assert_cmpfloat(fabs(g_ascii_strtod(f[3], NULL) - ball_dt[0][1]), <, 1e-10);
  /* the drop height h0 (the ball's placement: a free body keeps it) */
  g_assert_cmpfloat(fabs(g_ascii_strtod(f[4], NULL) - ball_dt[1][1]), <, 1e-10);
  g_remove(csv);
}

/* optimize through the impacts from the command line: the restitution
 * that puts the third impact at 1.6 s, t1 (1 + 2 e + 2 e^2) = 1.6 */
static void test_cli_optimize(void)
{
  g_autofree char *args = g_strdup_printf("optimize %s/bouncing-ball-timing.json --json --quiet", LW_MODELS_DIR);
  g_autofree char *out = NULL;
  g_assert_cmpint(run_cli(args, &out), ==, 0);
  JsonParser *p = json_parser_new();
  g_assert_true(json_parser_load_from_data(p, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  g_assert_cmpstr(json_object_get_string_member(o, "status"), ==, "ok");
  double e = json_object_get_double_member(json_object_get_object_member(o, "design"), "restitution");
  double t1 = sqrt(2.0 / 9.81), c = 1.0 - 1.6 / t1, ex = (-2.0 + sqrt(4.0 - 8.0 * c)) / 4.0;
  g_test_message("restitution %.13f (closed form %.13f) after %ld evaluations", e, ex,
                 (long)json_object_get_int_member(o, "evaluations"));
  g_assert_cmpfloat(fabs(e - ex), <, 1e-9);
  g_assert_cmpint(json_object_get_int_member(o, "failed_evaluations"), ==, 0);
  g_object_unref(p);
}

/* the refusal is gone, and what is not computed through events is named */
static void test_refusals(void)
{
  lw_desc *d = ball_desc(1e-3);
  lw_sens_result r = sens_all(d, LW_SENS_VALUE);
  g_assert_cmpint(r.status, ==, LW_OK);
  lw_sens_result_clear(&r);
  /* a guard that stops the run: the run cannot reach t_end */
  lw_event_desc *e = lw_desc_add_event(d, "stop", LW_EVENT_GUARD);
  e->output = strdup("centre");
  e->component = 0;
  e->value = 5.0;
  int params[1] = {0}, objs[1] = {0};
  lw_sens_options opt = {0};
  opt.method = LW_SENS_FORWARD;
  opt.nparams = 1;
  opt.params = params;
  opt.nobj = 1;
  opt.objectives = objs;
  lw_sensitivity(d, &opt, &r);
  g_assert_cmpint(r.status, ==, LW_ERR_MODEL);
  g_assert_nonnull(strstr(r.error.msg, "stops the run"));
  lw_sens_result_clear(&r);
  lw_desc_free(d);
}

/* The drop height as the ball's placement (bodies/ball/position/1): a free
 * body keeps its placement through the assembly, so y(T) and dy/dt(T)
 * move with it by the closed form's d/dh0, by forward and by adjoint */
static void test_ball_placement(void)
{
  lw_desc *d = lwt_read("bouncing-ball.json");
  add_term(d, "yT", "centre", LW_TERM_FINAL, 1);
  add_term(d, "vT", "speed", LW_TERM_FINAL, 1);
  lw_desc_remove(d, "parameters/restitution");
  g_assert_cmpint(d->nparams, ==, 1);
  g_assert_cmpstr(d->params[0].name, ==, "height");
  int P[1] = {0}, O[2] = {lw_desc_objective_index(d, "yT"), lw_desc_objective_index(d, "vT")};
  lw_sens_method ms[2] = {LW_SENS_FORWARD, LW_SENS_ADJOINT};
  for (int k = 0; k < 2; k++) {
    lw_sens_options opt = {.method = ms[k], .nparams = 1, .params = P, .nobj = 2, .objectives = O, .threads = 1};
    lw_sens_result r;
    g_assert_cmpint(lw_sensitivity(d, &opt, &r), ==, LW_OK);
    g_assert_cmpint(r.depends[0], ==, 1);
    for (int o = 0; o < 2; o++) {
      g_test_message("%s: d %s / d h0 = %.12g, closed form %.12g", lw_sens_method_name(ms[k]),
                     o ? "vT" : "yT", r.gradient[o], ball_d[1][o]);
      g_assert_cmpfloat(fabs(r.gradient[o] - ball_d[1][o]), <, 1e-8 * fabs(ball_d[1][o]));
    }
    lw_sens_result_clear(&r);
  }
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/event-sens/ball", test_ball);
  g_test_add_func("/event-sens/ball-placement", test_ball_placement);
  g_test_add_func("/event-sens/ball-short", test_ball_short);
  g_test_add_func("/event-sens/five-bar-ground", test_five_bar_ground);
  g_test_add_func("/event-sens/pendulum-wall", test_pendulum_wall);
  g_test_add_func("/event-sens/four-bar-limit", test_four_bar_limit);
  g_test_add_func("/event-sens/checkpointed", test_checkpointed);
  g_test_add_func("/event-sens/cli-event-log", test_cli_event_log);
  g_test_add_func("/event-sens/cli-optimize", test_cli_optimize);
  g_test_add_func("/event-sens/refusals", test_refusals);
  return g_test_run();
}
