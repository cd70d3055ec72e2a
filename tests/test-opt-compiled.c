/* Compiled solver options: a model compiled once and run at another step
 * (or end time) by setting the option gives bit for bit what compiling a
 * description with that option gives, for runs and for sensitivities; the
 * options are checked as the compiler checks them; the model's integrator
 * is named by its options. */
#include "lw-test.h"

#include <stdio.h>
#include <string.h>

/* the PID of slider-crank-codesign.json measures the crank's rate; with
 * integral action (ki, a parameter of the file) its Newton terms depend on
 * the step */
static lw_desc *codesign_with_ki(void)
{
  lw_desc *d = lwt_read("slider-crank-codesign.json");
  int j = lw_desc_param_index(d, "ki");
  g_assert_cmpint(j, >=, 0);
  d->params[j].value = 5.0;
  return d;
}

/* the five-bar with a PID holding joint A's angle (position measure, all
 * three gains) */
static lw_desc *fivebar_with_pid(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  lw_force_desc *f = lw_desc_add_force(d, "hold", LW_FORCE_PID);
  f->joint = strdup("A");
  f->coordinate = 0;
  lw_feedback_desc *b = lw_force_add_feedback(f, "A", 0);
  b->kp = 50.0;
  b->kd = 1.0;
  b->ki = 20.0;
  return d;
}

/* text with its first `from` replaced by `to` */
static char *lwt_replace(const char *text, const char *from, const char *to)
{
  const char *at = strstr(text, from);
  g_assert_nonnull(at);
  return g_strdup_printf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

static lw_desc *with_step(const lw_desc *d, double h)
{
  lw_desc *c = lw_desc_copy(d);
  c->solver.step = h;
  return c;
}

/* two runs hold the same numbers, bit for bit */
static void assert_same_run(const lw_sim_result *a, const lw_sim_result *b)
{
  g_assert_cmpint(a->status, ==, LW_OK);
  g_assert_cmpint(b->status, ==, LW_OK);
  g_assert_cmpint(a->steps, ==, b->steps);
  g_assert_cmpint(a->rows, ==, b->rows);
  g_assert_cmpint(a->ncols, ==, b->ncols);
  g_assert_cmpint(a->newton_iterations, ==, b->newton_iterations);
  g_assert_cmpint(memcmp(a->table, b->table, sizeof(double) * (size_t)a->rows * (size_t)a->ncols), ==, 0);
}

/* compiled once at h, run at h and h/2 by setting the step, and at h/2 by
 * lw_simulate's argument alone: each run equals the run of a model compiled
 * with that step */
static void check_steps(lw_desc *d, double t_end)
{
  double h = d->solver.step;
  lw_model *m = lwt_compile(d);
  const double steps[3] = {h, 0.5 * h, h};
  for (int k = 0; k < 3; k++) {
    double hk = steps[k];
    lw_desc *dk = with_step(d, hk);
    lw_model *ref = lwt_compile(dk);
    lw_sim_result r0, r1;
    g_assert_cmpint(lw_simulate(ref, t_end, hk, &r0, NULL, NULL), ==, LW_OK);
    lw_error err;
    g_assert_cmpint(lw_model_set_step(m, hk, &err), ==, LW_OK);
    g_assert_cmpfloat(lw_model_opt(m)->step, ==, hk);
    g_assert_cmpfloat(lw_model_desc(m)->solver.step, ==, hk);
    g_assert_cmpint(lw_simulate(m, t_end, hk, &r1, NULL, NULL), ==, LW_OK);
    assert_same_run(&r0, &r1);
    g_assert_cmpint(r1.steps, ==, (long)(t_end / hk + 0.5));
    lw_sim_result_clear(&r1);
    lw_sim_result_clear(&r0);
    lw_model_free(ref);
    lw_desc_free(dk);
  }
  /* a step other than the model's, given to lw_simulate alone */
  lw_desc *dh = with_step(d, 0.5 * h);
  lw_model *ref = lwt_compile(dh);
  lw_sim_result r0, r1;
  g_assert_cmpint(lw_simulate(ref, t_end, 0.5 * h, &r0, NULL, NULL), ==, LW_OK);
  g_assert_cmpint(lw_simulate(m, t_end, 0.5 * h, &r1, NULL, NULL), ==, LW_OK);
  g_assert_cmpfloat(lw_model_opt(m)->step, ==, h); /* the model's own is left */
  assert_same_run(&r0, &r1);
  lw_sim_result_clear(&r1);
  lw_sim_result_clear(&r0);
  lw_model_free(ref);
  lw_desc_free(dh);
  lw_model_free(m);
}

static void test_simulate_codesign(void)
{
  lw_desc *d = codesign_with_ki();
  check_steps(d, 0.2);
  lw_desc_free(d);
}

static void test_simulate_fivebar_pid(void)
{
  lw_desc *d = fivebar_with_pid();
  check_steps(d, 0.3);
  lw_desc_free(d);
}

static void test_simulate_fivebar(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  check_steps(d, 0.3);
  lw_desc_free(d);
}

static void assert_same_sens(const lw_sens_result *a, const lw_sens_result *b, int np, int no)
{
  g_assert_cmpint(a->status, ==, LW_OK);
  g_assert_cmpint(b->status, ==, LW_OK);
  g_assert_cmpint(a->sim_steps, ==, b->sim_steps);
  g_assert_cmpint(memcmp(a->value, b->value, sizeof(double) * (size_t)no), ==, 0);
  g_assert_cmpint(memcmp(a->gradient, b->gradient, sizeof(double) * (size_t)(no * np)), ==, 0);
}

/* sensitivities at half the step and a shorter end time, set on a model
 * compiled once, equal those of a description with those settings
 * (forward, adjoint and finite differences: the perturbed copies are made
 * from the model's description, which takes the options) */
static void test_sensitivity(gconstpointer data)
{
  lw_sens_method method = GPOINTER_TO_INT(data);
  lw_desc *d = codesign_with_ki();
  int np = d->nparams, P[8], O[1] = {lw_desc_objective_index(d, "psi")};
  g_assert_cmpint(np, <=, 8);
  g_assert_cmpint(O[0], >=, 0);
  for (int j = 0; j < np; j++)
    P[j] = j;
  lw_sens_options opt = {.method = method, .nparams = np, .params = P, .nobj = 1, .objectives = O};
  lw_model *m = lwt_compile(d);
  lw_desc *dh = with_step(d, 0.5 * d->solver.step);
  dh->solver.t_end = 0.1;
  lw_sens_result rd, rm;
  g_assert_cmpint(lw_sensitivity(dh, &opt, &rd), ==, LW_OK);
  lw_opt o = *lw_model_opt(m);
  o.step = dh->solver.step;
  o.t_end = 0.1;
  lw_error err;
  g_assert_cmpint(lw_model_set_opt(m, &o, &err), ==, LW_OK);
  g_assert_cmpint(lw_sensitivity_model(m, &opt, &rm), ==, LW_OK);
  g_assert_cmpint(rm.sim_steps, ==, 200);
  assert_same_sens(&rd, &rm, np, 1);
  int dki = lw_desc_param_index(d, "ki");
  g_assert_cmpfloat(rm.gradient[dki], !=, 0.0);
  lw_sens_result_clear(&rm);
  lw_sens_result_clear(&rd);
  lw_desc_free(dh);
  lw_model_free(m);
  lw_desc_free(d);
}

/* the step set between steps of one workspace: time goes on from where it
 * was, by the new step */
static void test_step_between_steps(void)
{
  lw_desc *d = fivebar_with_pid();
  double h = d->solver.step;
  lw_model *m = lwt_compile(d);
  lw_data *a = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, a, &err), ==, LW_OK);
  for (int k = 0; k < 100; k++)
    g_assert_cmpint(lw_step(m, a, NULL, &err), ==, LW_OK);
  double t100 = lw_data_time(a);
  g_assert_cmpfloat(t100, ==, 100 * h);
  g_assert_cmpint(lw_model_set_step(m, 0.5 * h, &err), ==, LW_OK);
  for (int k = 0; k < 10; k++)
    g_assert_cmpint(lw_step(m, a, NULL, &err), ==, LW_OK);
  g_assert_cmpfloat(lw_data_time(a), ==, t100 + 10 * (0.5 * h));
  lw_data_free(a);
  lw_model_free(m);
  lw_desc_free(d);
}

/* options are checked as the compiler checks the solver section; a refused
 * option leaves the model as it was */
static void test_set_opt_checked(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  lw_model *m = lwt_compile(d);
  lw_opt before = *lw_model_opt(m);
  lw_error err, cerr;
  g_assert_cmpint(lw_model_set_step(m, -1e-3, &err), ==, LW_ERR_MODEL);
  d->solver.step = -1e-3;
  g_assert_null(lw_compile(d, &cerr));
  g_assert_cmpstr(err.path, ==, "solver/step");
  g_assert_cmpstr(err.path, ==, cerr.path);
  g_assert_cmpstr(err.msg, ==, cerr.msg);
  g_assert_cmpint(lw_model_set_step(m, NAN, &err), ==, LW_ERR_MODEL);
  d->solver.step = 1e-3;
  lw_opt o = before;
  o.max_iterations = 0;
  g_assert_cmpint(lw_model_set_opt(m, &o, &err), ==, LW_ERR_MODEL);
  g_assert_cmpstr(err.path, ==, "solver/max_iterations");
  o = before;
  snprintf(o.integrator, sizeof o.integrator, "%s", "euler");
  g_assert_cmpint(lw_model_set_opt(m, &o, &err), ==, LW_ERR_MODEL);
  g_assert_cmpstr(err.path, ==, "solver/integrator");
  g_assert_nonnull(strstr(err.msg, "euler"));
  g_assert_nonnull(strstr(err.msg, "ali3p"));
  g_assert_cmpint(memcmp(lw_model_opt(m), &before, sizeof before), ==, 0);
  g_assert_cmpfloat(lw_model_desc(m)->solver.step, ==, before.step);
  lw_model_free(m);
  lw_desc_free(d);
}

/* an option bound to a parameter is the parameter's: setting it otherwise
 * is refused (what is compiled from the description would write the
 * parameter's value back); the other options stay free */
static void test_option_bound_to_parameter(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  lw_param_desc *p = lw_desc_add_param(d, "h", "solver/step");
  p->value = 5e-4;
  lw_model *m = lwt_compile(d);
  g_assert_cmpfloat(lw_model_opt(m)->step, ==, 5e-4);
  lw_error err;
  g_assert_cmpint(lw_model_set_step(m, 5e-4, &err), ==, LW_OK); /* the same value */
  g_assert_cmpint(lw_model_set_step(m, 1e-3, &err), ==, LW_ERR_MODEL);
  g_assert_cmpstr(err.path, ==, "solver/step");
  g_assert_nonnull(strstr(err.msg, "parameter 'h'"));
  g_assert_cmpfloat(lw_model_opt(m)->step, ==, 5e-4);
  lw_opt o = *lw_model_opt(m);
  o.t_end = 0.5;
  g_assert_cmpint(lw_model_set_opt(m, &o, &err), ==, LW_OK);
  g_assert_cmpfloat(lw_model_opt(m)->t_end, ==, 0.5);
  lw_model_free(m);
  lw_desc_free(d);
}

/* the integrator is named by the file's solver section: "ali3p" by
 * default, an unknown name refused at its path */
static void test_integrator_named(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  g_assert_cmpstr(d->solver.integrator, ==, "ali3p");
  lw_model *m = lwt_compile(d);
  g_assert_cmpstr(lw_model_opt(m)->integrator, ==, "ali3p");
  lw_model_free(m);
  /* the five-bar's file with an integrator named in its solver section */
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, "five-bar.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_assert_nonnull(strstr(text, "\"solver\": {"));
  g_autofree char *json = lwt_replace(text, "\"solver\": {", "\"solver\": {\"integrator\": \"%s\", ");
  g_autofree char *good = g_strdup_printf(json, "ali3p");
  g_autofree char *bad = g_strdup_printf(json, "euler");
  lw_error err;
  lw_desc *dg = lw_model_read_data(good, -1, "good.json", NULL, &err);
  g_assert_nonnull(dg);
  m = lwt_compile(dg);
  lw_model_free(m);
  lw_desc *db = lw_model_read_data(bad, -1, "bad.json", NULL, &err);
  g_assert_nonnull(db);
  g_assert_cmpstr(db->solver.integrator, ==, "euler");
  g_assert_null(lw_compile(db, &err));
  g_assert_cmpstr(err.path, ==, "solver/integrator");
  /* written back only when it is not the default */
  g_autofree char *out = lw_model_to_json(dg);
  g_assert_null(strstr(out, "integrator"));
  g_autofree char *outb = lw_model_to_json(db);
  g_assert_nonnull(strstr(outb, "\"integrator\": \"euler\""));
  lw_desc_free(db);
  lw_desc_free(dg);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/opt-compiled/simulate/codesign-ki", test_simulate_codesign);
  g_test_add_func("/opt-compiled/simulate/five-bar-pid", test_simulate_fivebar_pid);
  g_test_add_func("/opt-compiled/simulate/five-bar", test_simulate_fivebar);
  g_test_add_data_func("/opt-compiled/sensitivity/adjoint", GINT_TO_POINTER(LW_SENS_ADJOINT), test_sensitivity);
  g_test_add_data_func("/opt-compiled/sensitivity/forward", GINT_TO_POINTER(LW_SENS_FORWARD), test_sensitivity);
  g_test_add_data_func("/opt-compiled/sensitivity/fd", GINT_TO_POINTER(LW_SENS_FD), test_sensitivity);
  g_test_add_func("/opt-compiled/set-opt-checked", test_set_opt_checked);
  g_test_add_func("/opt-compiled/step-between-steps", test_step_between_steps);
  g_test_add_func("/opt-compiled/integrator-named", test_integrator_named);
  g_test_add_func("/opt-compiled/option-bound-to-parameter", test_option_bound_to_parameter);
  return g_test_run();
}
