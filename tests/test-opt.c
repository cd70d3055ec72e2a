/* test-opt.c: design optimization: convergence of the shipped problems to
 * a point where the projected gradient has fallen below 1e-6 of its value at
 * the start, checked again there by central differences of the whole
 * simulation; the swing-up; bad problems; failed evaluations; cancel. */
#include "lw-test.h"
#include "lw_opt.h"

#include <string.h>

static int problem(const lw_desc *d, const char *name)
{
  int i = lw_desc_problem_index(d, name);
  if (i < 0)
    g_error("no problem %s", name);
  return i;
}

/* central differences of the objective at the solution, every `stride`-th
 * variable: the projected gradient they give is below tol * pgnorm0 too */
static void check_fd_at_solution(const lw_desc *d, int pi, const lw_opt_result *r, int stride, double tol)
{
  lw_desc *dd = lw_desc_copy(d);
  for (int j = 0; j < r->n; j++)
    dd->params[r->params[j]].value = r->x[j];
  int *P = NULL;
  double *lo = NULL, *hi = NULL, *sc = NULL;
  lw_error err;
  int n = lw_opt_variables(d, &d->problems[pi], &P, &lo, &hi, &sc, &err);
  g_assert_cmpint(n, ==, r->n);
  int m = 0;
  int *Q = g_new(int, n);
  double *xs = g_new(double, n), *gs = g_new(double, n), *ls = g_new(double, n), *hs = g_new(double, n);
  for (int j = 0; j < n; j += stride) {
    Q[m] = P[j];
    xs[m] = r->x[j] / sc[j];
    ls[m] = lo[j] / sc[j];
    hs[m] = hi[j] / sc[j];
    m++;
  }
  int O[1] = {lw_desc_objective_index(d, d->problems[pi].objective)};
  lw_sens_options o = {.method = LW_SENS_FD, .nparams = m, .params = Q, .nobj = 1, .objectives = O, .fd_step = 1e-5};
  lw_sens_result fr;
  g_assert_cmpint(lw_sensitivity(dd, &o, &fr), ==, LW_OK);
  double sign = d->problems[pi].maximize ? -1.0 : 1.0;
  for (int k = 0, j = 0; j < n; j += stride, k++)
    gs[k] = sign * fr.gradient[k] * sc[j];
  double pg = lw_projected_gradient_norm(m, xs, gs, ls, hs);
  g_test_message("%s: central differences at the solution (%d of %d variables): projected gradient %.3e = "
                 "%.2e of its initial %.3e (optimizer: %.2e)",
                 d->problems[pi].name, m, n, pg, pg / r->pgnorm0, r->pgnorm0, r->pgnorm / r->pgnorm0);
  g_assert_cmpfloat(pg, <=, tol * r->pgnorm0);
  lw_sens_result_clear(&fr);
  g_free(Q);
  g_free(xs);
  g_free(gs);
  g_free(ls);
  g_free(hs);
  free(P);
  free(lo);
  free(hi);
  free(sc);
  lw_desc_free(dd);
}

static lw_opt_result solve(const lw_desc *d, int pi, const lw_opt_options *o)
{
  lw_opt_result r;
  int st = lw_optimize(d, pi, o, &r);
  if (st)
    g_error("%s: %s", d->problems[pi].name, r.error.msg);
  g_test_message("%s: %s; %s %.6g -> %.6g after %d evaluations (%d improving) in %.2f s; projected gradient "
                 "%.3e -> %.3e",
                 d->problems[pi].name, r.stop, d->problems[pi].objective, r.f0, r.f, r.evaluations, r.iterations,
                 r.wall_time_s, r.pgnorm0, r.pgnorm);
  return r;
}

/* five-bar: spring rest lengths that keep point 2 where it starts */
static void test_five_bar(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  int pi = problem(d, "static-springs");
  /* the problem, description included, is written back */
  g_autofree char *text = lw_model_to_json(d);
  g_assert_nonnull(strstr(text, "\"description\": \"the rest lengths of the two springs"));
  g_assert_nonnull(strstr(text, "\"gradient\": \"adjoint\""));
  lw_opt_result r = solve(d, pi, NULL);
  g_assert_cmpfloat(r.pgnorm, <=, 1e-6 * r.pgnorm0);
  g_assert_cmpfloat(r.f, <, 1e-12 * r.f0);
  check_fd_at_solution(d, pi, &r, 1, 1e-6);
  /* the optimized model holds the design in its fields: a plain run of it
   * stays at the initial pose */
  lw_model *m = lwt_compile(r.optimized);
  lw_sim_result s;
  g_assert_cmpint(lw_simulate(m, 5.0, 1e-3, &s, NULL, NULL), ==, LW_OK);
  int cx = lwt_col(m, "r2.x"), cy = lwt_col(m, "r2.y");
  double dev = 0;
  for (long k = 0; k < s.rows; k++)
    dev = fmax(dev, hypot(lwt_at(&s, k, cx) - lwt_at(&s, 0, cx), lwt_at(&s, k, cy) - lwt_at(&s, 0, cy)));
  g_test_message("optimized five-bar: point 2 moves at most %.2e m over 5 s", dev);
  g_assert_cmpfloat(dev, <, 1e-6);
  const lw_desc *od = lw_model_desc(m);
  g_assert_cmpfloat(od->forces[0].rest, ==, r.x[0]);
  lw_sim_result_clear(&s);
  lw_model_free(m);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}

/* seed 004 sec. 5.1: swing-up by a 601-value force spline, gamma = 0 and 1 */
static void swing(const char *name, int stop)
{
  lw_desc *d = lwt_read("cart-pendulum.json");
  int pi = problem(d, name);
  lw_opt_result r = solve(d, pi, NULL);
  g_assert_cmpint(r.n, ==, 601);
  g_assert_cmpfloat(fabs(r.f0 - M_PI * M_PI / 2), <=, 1e-14);
  g_assert_cmpfloat(r.pgnorm, <=, 1e-6 * r.pgnorm0);
  check_fd_at_solution(d, pi, &r, 20, 1e-6);
  /* upright at the end */
  lw_model *m = lwt_compile(r.optimized);
  lw_sim_result s;
  g_assert_cmpint(lw_simulate(m, 3.0, 0.005, &s, NULL, NULL), ==, LW_OK);
  long e = s.rows - 1;
  double a1 = lwt_at(&s, e, lwt_col(m, "a1")), a2 = lwt_at(&s, e, lwt_col(m, "a2"));
  double w1 = lwt_at(&s, e, lwt_col(m, "w1")), w2 = lwt_at(&s, e, lwt_col(m, "w2"));
  double ty = lwt_at(&s, e, lwt_col(m, "tip.y"));
  g_test_message("%s: J = %.3e; at 3 s: a1 - pi/2 = %.2e, a2 = %.2e, w1 = %.2e, w2 = %.2e, tip height %.9f m", name,
                 r.f, a1 - M_PI / 2, a2, w1, w2, ty);
  g_assert_cmpfloat(r.f, <, 1e-10);
  g_assert_cmpfloat(fabs(a1 - M_PI / 2), <, 1e-5);
  g_assert_cmpfloat(fabs(a2), <, 1e-5);
  g_assert_cmpfloat(fabs(ty - 1.0), <, 1e-9);
  if (stop) {
    g_assert_cmpfloat(fabs(w1), <, 1e-5);
    g_assert_cmpfloat(fabs(w2), <, 1e-5);
  }
  lw_sim_result_clear(&s);
  lw_model_free(m);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}


/* seed 000 sec. 4.3 in spirit: crank and rod lengths with the gain of the
 * crank's speed controller, chosen together */
static double speed_spread(const lw_desc *d)
{
  lw_model *m = lwt_compile(d);
  lw_sim_result s;
  g_assert_cmpint(lw_simulate(m, 1.0, 1e-3, &s, NULL, NULL), ==, LW_OK);
  int cw = lwt_col(m, "w");
  double e = 0;
  for (long k = 0; k < s.rows; k++)
    e = fmax(e, fabs(lwt_at(&s, k, cw) + 10.0));
  lw_sim_result_clear(&s);
  lw_model_free(m);
  return e;
}

static void test_slider_crank_codesign(void)
{
  lw_desc *d = lwt_read("slider-crank-codesign.json");
  int pi = problem(d, "codesign");
  lw_opt_result r = solve(d, pi, NULL);
  g_assert_cmpint(r.n, ==, 3);
  g_assert_cmpfloat(r.pgnorm, <=, 1e-6 * r.pgnorm0);
  check_fd_at_solution(d, pi, &r, 1, 1e-6);
  double e0 = speed_spread(d), e1 = speed_spread(r.optimized);
  g_test_message("codesign: crank %.4f m, rod %.4f m, kp %.4f N m s/rad; psi %.4g -> %.4g (%.1fx); largest "
                 "|w - w0| %.4f -> %.4f rad/s",
                 r.x[0], r.x[1], r.x[2], r.f0, r.f, r.f0 / r.f, e0, e1);
  /* the objective falls by more than three times (seed 000 Fig. 14), the
   * crank at its lower bound as in Table 6, and the speed holds closer */
  g_assert_cmpfloat(r.f, <, r.f0 / 3);
  g_assert_cmpfloat(r.x[0], ==, 0.06);
  g_assert_cmpfloat(e1, <, e0);
  g_assert_cmpfloat(r.optimized->forces[0].feedback[0].kp, ==, r.x[2]);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}

/* the objective of description d (one simulation) */
static double objective_value(const lw_desc *d, const char *name)
{
  int O[1] = {lw_desc_objective_index(d, name)};
  lw_sens_options o = {.method = LW_SENS_VALUE, .nobj = 1, .objectives = O};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity(d, &o, &r), ==, LW_OK);
  double v = r.value[0];
  lw_sens_result_clear(&r);
  return v;
}

/* the same with integral action: kp and ki with the lengths; at the
 * solution the integral gain is worth having (the same design without it
 * costs more) */
static void test_slider_crank_codesign_pi(void)
{
  if (LW_UNDER_SANITIZERS) {
    /* the same optimization as /opt/slider-crank-codesign with one more
     * variable: its code runs under the sanitizers there */
    g_test_skip("the optimization's result is checked by the plain build");
    return;
  }
  lw_desc *d = lwt_read("slider-crank-codesign.json");
  int pi = problem(d, "codesign-pi");
  lw_opt_result r = solve(d, pi, NULL);
  g_assert_cmpint(r.n, ==, 4);
  g_assert_cmpfloat(r.pgnorm, <=, 1e-6 * r.pgnorm0);
  check_fd_at_solution(d, pi, &r, 1, 1e-6);
  double e0 = speed_spread(d), e1 = speed_spread(r.optimized);
  g_assert_cmpfloat(r.optimized->forces[0].feedback[0].ki, ==, r.x[3]);
  g_assert_cmpfloat(objective_value(r.optimized, "psi"), ==, r.f);
  r.optimized->forces[0].feedback[0].ki = 0.0;
  for (int j = 0; j < r.optimized->nparams; j++)
    if (!strcmp(r.optimized->params[j].name, "ki"))
      r.optimized->params[j].value = 0.0;
  double fp = objective_value(r.optimized, "psi");
  g_test_message("codesign-pi: crank %.4f m, rod %.4f m, kp %.4f N m s/rad, ki %.4f N m/rad; psi %.4g -> %.4g "
                 "(%.1fx; the same design with ki = 0: %.4g); largest |w - w0| %.4f -> %.4f rad/s; %d evaluations",
                 r.x[0], r.x[1], r.x[2], r.x[3], r.f0, r.f, r.f0 / r.f, fp, e0, e1, r.evaluations);
  g_assert_cmpfloat(r.f, <, r.f0 / 3);
  g_assert_cmpfloat(r.f, <, fp);
  g_assert_cmpfloat(e1, <, e0);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}

static void test_swing_up(void) { swing("swing-up", 0); }
static void test_swing_up_stop(void) { swing("swing-up-stop", 1); }

/* a constraint: keep the five-bar's point 2 from sagging, by an integral
 * of the squared excess below a height, while reaching a spring design */
static void test_constraints(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  d->solver.t_end = 1.0;
  lw_objective_desc *ob = lw_desc_add_objective(d, "sag");
  lw_term_desc *t = lw_objective_add_term(ob, "r2");
  t->form = LW_TERM_BELOW;
  t->component = 1;
  /* the start: lowest point 2 over the first second */
  lw_model *m0 = lwt_compile(d);
  lw_sim_result s0;
  g_assert_cmpint(lw_simulate(m0, 1.0, 1e-3, &s0, NULL, NULL), ==, LW_OK);
  int cy = lwt_col(m0, "r2.y");
  double ymin = INFINITY, y0 = lwt_at(&s0, 0, cy);
  for (long k = 0; k < s0.rows; k++)
    ymin = fmin(ymin, lwt_at(&s0, k, cy));
  lw_sim_result_clear(&s0);
  lw_model_free(m0);
  double bound = 0.5 * (ymin + y0);
  t->target[1] = bound;
  /* minimize the kinetic-energy-like psi2 with the rest lengths, point 2
   * never below the bound */
  for (int alg = LW_OPT_MMA; alg <= LW_OPT_SLSQP; alg++) {
    lw_problem_desc *p = lw_desc_add_problem(d, alg == LW_OPT_MMA ? "c-mma" : "c-slsqp", "psi2");
    p->algorithm = alg;
    p->max_evaluations = 150;
    lw_var_desc *v = lw_problem_add_var(p, "Ls1");
    v->has_lower = v->has_upper = 1;
    v->lower = 1.5;
    v->upper = 3.5;
    v = lw_problem_add_var(p, "Ls2");
    v->has_lower = v->has_upper = 1;
    v->lower = 1.5;
    v->upper = 3.5;
    lw_problem_add_con(p, "sag", LW_CON_LE, 0.0);
  }
  for (int k = 0; k < 2; k++) {
    int pi = d->nproblems - 2 + k;
    lw_opt_result r = solve(d, pi, NULL);
    /* feasible: point 2 stays above the bound */
    lw_model *m = lwt_compile(r.optimized);
    lw_sim_result s;
    g_assert_cmpint(lw_simulate(m, 1.0, 1e-3, &s, NULL, NULL), ==, LW_OK);
    double lo = INFINITY;
    for (long i = 0; i < s.rows; i++)
      lo = fmin(lo, lwt_at(&s, i, cy));
    g_test_message("%s: lowest point 2 %.6f m, bound %.6f m (start: %.6f m)", d->problems[pi].name, lo, bound,
                   ymin);
    g_assert_cmpfloat(r.violation, <=, 1e-6);
    g_assert_cmpfloat(lo, >=, bound - 1e-3);
    g_assert_cmpfloat(r.f, <, r.f0);
    lw_sim_result_clear(&s);
    lw_model_free(m);
    lw_opt_result_clear(&r);
  }
  lw_desc_free(d);
}

/* an equality constraint: the height of the five-bar's point 2 at 1 s
 * prescribed (to the height another spring design gives), psi2 minimized
 * under it with the rest lengths */
static double final_height(const lw_desc *d)
{
  lw_model *m = lwt_compile(d);
  lw_sim_result s;
  g_assert_cmpint(lw_simulate(m, 1.0, 1e-3, &s, NULL, NULL), ==, LW_OK);
  double y = lwt_at(&s, s.rows - 1, lwt_col(m, "r2.y"));
  lw_sim_result_clear(&s);
  lw_model_free(m);
  return y;
}

static void test_equality(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  d->solver.t_end = 1.0;
  lw_objective_desc *ob = lw_desc_add_objective(d, "height");
  lw_term_desc *t = lw_objective_add_term(ob, "r2");
  t->kind = LW_TERM_FINAL;
  t->form = LW_TERM_VALUE;
  t->component = 1;
  int i1 = lw_desc_param_index(d, "Ls1"), i2 = lw_desc_param_index(d, "Ls2");
  double y0 = final_height(d);
  lw_desc *other = lw_desc_copy(d);
  other->params[i1].value = 2.6;
  other->params[i2].value = 2.2;
  double target = final_height(other);
  lw_desc_free(other);
  lw_problem_desc *p = lw_desc_add_problem(d, "c-eq", "psi2");
  p->algorithm = LW_OPT_SLSQP;
  p->max_evaluations = 150;
  for (int k = 0; k < 2; k++) {
    lw_var_desc *v = lw_problem_add_var(p, k ? "Ls2" : "Ls1");
    v->has_lower = v->has_upper = 1;
    v->lower = 1.5;
    v->upper = 3.5;
  }
  lw_problem_add_con(p, "height", LW_CON_EQ, target);
  lw_opt_result r = solve(d, d->nproblems - 1, NULL);
  double y1 = final_height(r.optimized);
  g_test_message("c-eq: height of point 2 at 1 s %.6f m -> %.9f m, prescribed %.9f m; psi2 %.4g -> %.4g; Ls1 %.4f, "
                 "Ls2 %.4f; %d evaluations",
                 y0, y1, target, r.f0, r.f, r.x[0], r.x[1], r.evaluations);
  g_assert_cmpfloat(fabs(y0 - target), >, 1e-3);
  g_assert_cmpfloat(r.violation, <=, 1e-6);
  g_assert_cmpfloat(fabs(y1 - target), <=, 1e-6);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}

/* bad problems: clear messages, nothing run */
static void test_bad_problems(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  int pi = problem(d, "static-springs");
  lw_problem_desc *p = &d->problems[pi];
  lw_opt_result r;
  /* infeasible bounds */
  p->vars[0].lower = 3.0;
  p->vars[0].upper = 2.0;
  g_assert_cmpint(lw_optimize(d, pi, NULL, &r), ==, LW_ERR_MODEL);
  g_test_message("%s: %s", r.error.path, r.error.msg);
  g_assert_nonnull(strstr(r.error.msg, "infeasible bounds for 'Ls1'"));
  g_assert_cmpint(r.evaluations, ==, 0);
  lw_opt_result_clear(&r);
  p->vars[0].lower = 1.5;
  p->vars[0].upper = 3.5;
  /* a variable that is not a parameter */
  free(p->vars[1].parameter);
  p->vars[1].parameter = strdup("Lspring");
  g_assert_cmpint(lw_optimize(d, pi, NULL, &r), ==, LW_ERR_MODEL);
  g_test_message("%s: %s", r.error.path, r.error.msg);
  g_assert_nonnull(strstr(r.error.msg, "'Lspring' is not a parameter"));
  g_assert_cmpstr(r.error.path, ==, "problems/static-springs/variables/1");
  lw_opt_result_clear(&r);
  free(p->vars[1].parameter);
  p->vars[1].parameter = strdup("Ls2");
  /* constraints with an optimizer that takes none */
  lw_problem_add_con(p, "psi2", LW_CON_LE, 1.0);
  g_assert_cmpint(lw_optimize(d, pi, NULL, &r), ==, LW_ERR_MODEL);
  g_test_message("%s", r.error.msg);
  g_assert_nonnull(strstr(r.error.msg, "lbfgs takes bounds only"));
  lw_opt_result_clear(&r);
  lw_desc_free(d);

  /* the same from a file: file, line and field */
  static const char *const cases[][3] = {
      {"\"lower\": 1.5, \"upper\": 3.5", "\"lower\": 3.5, \"upper\": 1.5", "infeasible bounds"},
      {"{\"parameter\": \"Ls2\"", "{\"parameter\": \"mass\"", "'mass' is not a parameter"},
      {"\"algorithm\": \"lbfgs\"", "\"algorithm\": \"newton\"", "unknown algorithm 'newton'"},
      {"\"objective\": \"psi1\"", "\"objective\": \"psi9\"", "objective 'psi9' does not exist"},
  };
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, "five-bar.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    GString *s = g_string_new(text);
    g_assert_cmpuint(g_string_replace(s, cases[i][0], cases[i][1], 1), ==, 1);
    lw_error err;
    lw_desc *b = lw_model_read_data(s->str, -1, "five-bar.json", NULL, &err);
    g_assert_null(b);
    g_test_message("%s", err.msg);
    g_assert_nonnull(strstr(err.msg, cases[i][2]));
    g_assert_true(g_str_has_prefix(err.msg, "five-bar.json:"));
    g_assert_nonnull(strstr(err.msg, "problems/static-springs"));
    g_string_free(s, TRUE);
  }
}

/* a design that drives the four-bar's rocker into its dead point cannot
 * be simulated: the optimizer is told, steps back, and keeps the best
 * design that could */
static void test_failed_evaluations(void)
{
  double a0;
  lw_desc *d = lwt_dead_point_desc(&a0);
  d->solver.t_end = 0.4;
  lw_param_desc *pp = lw_desc_add_param(d, "rate", "drivers/rocker_motor/function/1");
  pp->value = 0.5;
  lw_objective_desc *ob = lw_desc_add_objective(d, "reach");
  lw_term_desc *t = lw_objective_add_term(ob, "rocker_angle");
  t->kind = LW_TERM_FINAL;
  t->form = LW_TERM_VALUE;
  lw_problem_desc *p = lw_desc_add_problem(d, "fast", "reach");
  p->maximize = 1;
  p->max_evaluations = 60;
  lw_var_desc *v = lw_problem_add_var(p, "rate");
  v->has_lower = v->has_upper = 1;
  v->lower = 0.0;
  v->upper = 5.0;
  lw_opt_result r;
  int st = lw_optimize(d, 0, NULL, &r);
  g_test_message("%s; rate %.6f, reach %.6f rad, %d evaluations, %d failed; last failure: %s", r.stop, r.x[0], r.f,
                 r.evaluations, r.failed_evaluations, r.last_failure);
  g_assert_cmpint(st, ==, LW_OK);
  g_assert_cmpint(r.failed_evaluations, >=, 1);
  g_assert_nonnull(strstr(r.last_failure, "t = "));
  g_assert_cmpfloat(r.x[0], >, 0.5);
  g_assert_cmpfloat(r.f, >, a0 + 0.5 * 0.4);
  /* the kept design runs */
  lw_model *m = lwt_compile(r.optimized);
  lw_sim_result s;
  g_assert_cmpint(lw_simulate(m, 0.4, 1e-3, &s, NULL, NULL), ==, LW_OK);
  g_assert_cmpfloat(fabs(lwt_at(&s, s.rows - 1, lwt_col(m, "rocker_angle")) - r.f), <=, 1e-9);
  lw_sim_result_clear(&s);
  lw_model_free(m);
  lw_opt_result_clear(&r);
  /* the initial design itself fails: an error naming the failure, no design */
  d->params[d->nparams - 1].value = 4.0;
  g_assert_cmpint(lw_optimize(d, 0, NULL, &r), ==, LW_ERR_SOLVER);
  g_test_message("%s", r.error.msg);
  g_assert_nonnull(strstr(r.error.msg, "no design could be simulated"));
  g_assert_null(r.optimized);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}

static int cancel_after_three(const lw_opt_progress *p, void *user)
{
  (void)user;
  return p->evaluation >= 3;
}

static void test_cancel(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  int pi = problem(d, "static-springs");
  lw_opt_options o = {.algorithm = -1, .gradient = -1, .progress = cancel_after_three};
  lw_opt_result r;
  g_assert_cmpint(lw_optimize(d, pi, &o, &r), ==, LW_OK);
  g_assert_cmpstr(r.stop, ==, "cancelled");
  g_assert_cmpint(r.evaluations, ==, 3);
  g_assert_cmpfloat(r.f, <=, r.f0);
  g_assert_cmpint(r.nhist, ==, 3);
  double best = INFINITY;
  for (int k = 0; k < r.nhist; k++)
    best = fmin(best, r.hist_f[k]);
  g_assert_cmpfloat(r.f, ==, best);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}

/* several starts: the best over all of them is kept */
static void test_multistart(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  int pi = problem(d, "static-springs");
  lw_opt_options o = {.algorithm = -1, .gradient = -1, .multistart = 3};
  lw_opt_result r = solve(d, pi, &o);
  g_assert_cmpint(r.starts, ==, 3);
  g_assert_cmpint(r.hist_start[r.nhist - 1], ==, 2);
  double best = INFINITY;
  for (int k = 0; k < r.nhist; k++)
    if (isfinite(r.hist_f[k]))
      best = fmin(best, r.hist_f[k]);
  g_assert_cmpfloat(r.f, ==, best);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/opt/five-bar", test_five_bar);
  g_test_add_func("/opt/slider-crank-codesign", test_slider_crank_codesign);
  g_test_add_func("/opt/slider-crank-codesign-pi", test_slider_crank_codesign_pi);
  g_test_add_func("/opt/swing-up", test_swing_up);
  g_test_add_func("/opt/swing-up-stop", test_swing_up_stop);
  g_test_add_func("/opt/constraints", test_constraints);
  g_test_add_func("/opt/equality", test_equality);
  g_test_add_func("/opt/bad-problems", test_bad_problems);
  g_test_add_func("/opt/failed-evaluations", test_failed_evaluations);
  g_test_add_func("/opt/cancel", test_cancel);
  g_test_add_func("/opt/multistart", test_multistart);
  return g_test_run();
}
