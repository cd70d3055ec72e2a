/* test-event-carry.c: forward and adjoint sensitivities agree through the
 * steps with events (src/core/sens/sens_events.c) as closely as over the
 * smooth steps: the step lengths inside a step with events (the piece to
 * the event, the piece back to the grid) are carried in the increment form
 * of the smooth steps (sens_forward.c), whose terms do not cancel. */
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
      if (getenv("EVC_DUMP"))
        g_test_message("o%d j%d %.17g %.17g %.3g", o, j, gf, ga, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
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
  if (!getenv("EVC_STEP"))
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
  return g_test_run();
}
