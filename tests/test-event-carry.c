/* test-event-carry.c: the steps with events (src/core/sens/sens_events.c)
 * carry the sensitivities as precisely as the smooth steps: their pieces
 * go through the smooth steps' carry in the increment form
 * (sens_carry.c), the piece's length as one more column, and the adjoint
 * takes such a step again exactly as the forward pass took it, so that
 * forward and adjoint agree on every model with events and sensitivities
 * as they do on the smooth models. */
#include "lw-test.h"

#include <string.h>

#include "linkwright.h"

/* every objective's value and gradient with respect to every parameter of d */
static lw_sens_result sens_all(const lw_desc *d, lw_sens_method method)
{
  g_autofree int *params = g_new(int, d->nparams + 1);
  g_autofree int *objs = g_new(int, d->nobjectives + 1);
  for (int j = 0; j < d->nparams; j++)
    params[j] = j;
  for (int o = 0; o < d->nobjectives; o++)
    objs[o] = o;
  lw_sens_options opt = {.method = method, .nparams = d->nparams, .params = params, .nobj = d->nobjectives,
                         .objectives = objs, .threads = 1};
  lw_sens_result r;
  if (lw_sensitivity(d, &opt, &r))
    g_error("%s, %s: %s", d->name, lw_sens_method_name(method), r.error.msg);
  return r;
}

/* the largest difference of forward and adjoint, each gradient entry
 * relative to itself, or to 1e-3 of its objective's largest entry when
 * far below it (as tests/test-tolerance.c measures) */
static double fwd_adj_diff(const lw_sens_result *f, const lw_sens_result *a)
{
  int p = a->nparams;
  double worst = 0;
  for (int o = 0; o < a->nobj; o++) {
    double rowmax = 0;
    for (int j = 0; j < p; j++)
      rowmax = fmax(rowmax, fabs(a->gradient[o * p + j]));
    for (int j = 0; j < p; j++) {
      double ga = a->gradient[o * p + j], gf = f->gradient[o * p + j];
      worst = fmax(worst, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
    }
    g_assert_cmpfloat(fabs(f->value[o] - a->value[o]), <=, 1e-14 * fabs(a->value[o]));
  }
  return worst;
}

/* forward against adjoint on d, with at least min_events events */
static double check_agree(const lw_desc *d, const char *what, long min_events)
{
  lw_sens_result f = sens_all(d, LW_SENS_FORWARD), a = sens_all(d, LW_SENS_ADJOINT);
  g_assert_cmpint(f.steps, ==, a.steps);
  g_assert_cmpint(f.nevents, >=, min_events);
  double fa = fwd_adj_diff(&f, &a);
  g_test_message("%s (%ld steps, %ld events): forward vs adjoint %.3g", what, a.steps, f.nevents, fa);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  return fa;
}

/* the tolerance mode as tests/test-tolerance.c runs it: one second, the
 * Newton iteration converged, steps of about 1 ms at rtol = atol = 1e-8 */
static void tolerance_mode(lw_desc *d)
{
  d->solver.t_end = fmin(d->solver.t_end, 1.0);
  d->solver.tolerance = 1e-14;
  d->solver.constraint_tolerance = 1e-12;
  d->solver.mode = LW_MODE_TOLERANCE;
  d->solver.rtol = d->solver.atol = 1e-8;
}

static void add_term(lw_desc *d, const char *obj, const char *output, lw_term_kind kind, int comp)
{
  lw_objective_desc *o = lw_desc_add_objective(d, obj);
  lw_term_desc *t = lw_objective_add_term(o, output);
  t->kind = kind;
  t->form = LW_TERM_VALUE;
  t->component = comp;
  t->weight = 1.0;
}

typedef struct {
  const char *file;
  long events; /* at least, in the step mode */
} event_model;

static const event_model models[] = {
  {"five-bar-ground.json", 9},
  {"bouncing-ball.json", 3},
  {"bouncing-ball-timing.json", 2},
  {"switch-fall.json", 1},
};

/* the model with objectives: the ball's file has none, it gets its height
 * at the end and the integral of its height */
static lw_desc *model_desc(const event_model *em)
{
  lw_desc *d = lwt_read(em->file);
  if (d->nobjectives == 0) {
    add_term(d, "yT", "centre", LW_TERM_FINAL, 1);
    add_term(d, "yint", "centre", LW_TERM_INTEGRAL, 1);
  }
  return d;
}

static void test_step_mode(gconstpointer data)
{
  const event_model *em = data;
  lw_desc *d = model_desc(em);
  double fa = check_agree(d, em->file, em->events);
  g_assert_cmpfloat(fa, <=, 1e-10);
  lw_desc_free(d);
}

static void test_tolerance_mode(gconstpointer data)
{
  const event_model *em = data;
  lw_desc *d = model_desc(em);
  tolerance_mode(d);
  double fa = check_agree(d, em->file, 1);
  g_assert_cmpfloat(fa, <=, 1e-10);
  lw_desc_free(d);
}

/* Newton's cradle has no sensitivities to compare: its events are
 * collisions between two bodies, whose guards are not differentiated, and
 * a run that asks for them is refused naming the event */
static void test_cradle_refused(void)
{
  lw_desc *d = lwt_read("newtons-cradle.json");
  add_term(d, "v5T", "v5", LW_TERM_FINAL, 0);
  lw_desc_add_param(d, "m1", "bodies/ball1/mass")->value = d->bodies[0].mass;
  int param = 0, obj = 0;
  lw_sens_options opt = {.method = LW_SENS_FORWARD, .nparams = 1, .params = &param, .nobj = 1, .objectives = &obj};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity(d, &opt, &r), !=, LW_OK);
  g_test_message("%s: %s", r.error.path, r.error.msg);
  g_assert_nonnull(strstr(r.error.msg, "collision"));
  g_assert_nonnull(strstr(r.error.path, "events/touch"));
  lw_sens_result_clear(&r);
  lw_desc_free(d);
}

/* The ball's acceleration at the end of the step that holds its first
 * impact (the run ends there): the free ball's is -g whatever the
 * restitution and the floor, so that its derivatives with respect to them
 * are 0 and with respect to gravity's y component 1, exactly.  The step
 * reaches it through the piece from the impact to the grid, its length a
 * fraction of the step: the old form of the piece's carry, whose position
 * and acceleration problems held terms of size c4 |q'| = 4/tau^2 |q'| that
 * cancelled, left 7.6e-6 at a piece of 1e-5 s and 1.7e-9 at 5e-4 s; the
 * increment form leaves nothing. */
static void test_ball_acceleration(void)
{
  const double frac[] = {0.011, 0.5, 0.99, 0.995}, h = 1e-3;
  for (size_t k = 0; k < G_N_ELEMENTS(frac); k++) {
    lw_desc *d = lwt_read("bouncing-ball.json");
    d->solver.step = h;
    d->solver.t_end = 0.452;
    lw_output_desc *out = lw_desc_add_output(d, "acc", LW_OUT_ACCELERATION);
    out->body = strdup("ball");
    lw_place_set_ref(&out->place, "centre");
    add_term(d, "aT", "acc", LW_TERM_FINAL, 1);
    lw_desc_remove(d, "parameters/restitution");
    lw_desc_remove(d, "parameters/height");
    /* the impact at 0.451 s + frac h: the floor at 1 - g t^2 / 2 */
    double t1 = 0.451 + frac[k] * h, f = 1.0 - 0.5 * 9.81 * t1 * t1;
    d->events[0].offset = f;
    lw_desc_add_param(d, "e", "events/floor/restitution")->value = 0.8;
    lw_desc_add_param(d, "floor", "events/floor/offset")->value = f;
    lw_desc_add_param(d, "gy", "gravity/1")->value = -9.81;
    for (int method = 0; method < 2; method++) {
      lw_sens_result r = sens_all(d, method ? LW_SENS_ADJOINT : LW_SENS_FORWARD);
      g_assert_cmpint(r.nevents, ==, 1);
      g_test_message("impact at %.3g of the step, %s: d aT / d(e, floor, gy) = %.3g, %.3g, 1 + %.3g", frac[k],
                     method ? "adjoint" : "forward", r.gradient[0], r.gradient[1], r.gradient[2] - 1.0);
      g_assert_cmpfloat(fabs(r.gradient[0]), <=, 1e-12);
      g_assert_cmpfloat(fabs(r.gradient[1]), <=, 1e-12);
      g_assert_cmpfloat(fabs(r.gradient[2] - 1.0), <=, 1e-12);
      lw_sens_result_clear(&r);
    }
    lw_desc_free(d);
  }
}

/* the adjoint from checkpoints in the tolerance mode (its segments stepped
 * again through the events over steps of their own lengths) gives the
 * gradients of the one that keeps every state, to the bit */
static void test_checkpointed_tolerance(void)
{
  lw_desc *d = lwt_read("five-bar-ground.json");
  tolerance_mode(d);
  int params[5] = {0, 1, 2, 3, 4}, obj[3] = {0, 1, 2};
  lw_sens_options opt = {.method = LW_SENS_ADJOINT, .nparams = 5, .params = params, .nobj = 3, .objectives = obj,
                         .threads = 1};
  lw_sens_result a, b;
  lw_sensitivity(d, &opt, &a);
  opt.memory_limit = 64 << 10;
  lw_sensitivity(d, &opt, &b);
  g_assert_cmpint(a.status, ==, LW_OK);
  g_assert_cmpint(b.status, ==, LW_OK);
  g_assert_cmpint(a.recomputed, ==, 0);
  g_assert_cmpint(b.recomputed, ==, 1);
  double worst = 0;
  for (int k = 0; k < 15; k++)
    worst = fmax(worst, fabs(a.gradient[k] - b.gradient[k]) / fabs(a.gradient[k]));
  g_test_message("checkpointed against stored states: %.3g", worst);
  for (int k = 0; k < 15; k++)
    g_assert_cmpfloat(a.gradient[k], ==, b.gradient[k]);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&b);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  for (size_t k = 0; k < G_N_ELEMENTS(models); k++) {
    g_autofree char *stem = g_strndup(models[k].file, strlen(models[k].file) - 5);
    g_autofree char *p1 = g_strdup_printf("/event-carry/step/%s", stem);
    g_autofree char *p2 = g_strdup_printf("/event-carry/tolerance/%s", stem);
    g_test_add_data_func(p1, &models[k], test_step_mode);
    g_test_add_data_func(p2, &models[k], test_tolerance_mode);
  }
  g_test_add_func("/event-carry/ball-acceleration", test_ball_acceleration);
  g_test_add_func("/event-carry/checkpointed-tolerance", test_checkpointed_tolerance);
  g_test_add_func("/event-carry/cradle-refused", test_cradle_refused);
  return g_test_run();
}
