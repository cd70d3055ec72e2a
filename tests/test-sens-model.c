/* Sensitivities from a compiled model: lw_sensitivity_model on the compiled
 * five-bar gives bit for bit the values and gradients lw_sensitivity gives
 * on its description, forward and adjoint, and checks its indices against
 * the compiled description. */
#include "lw-test.h"
#include "lw_internal.h"

#include <string.h>

static const char *const fivebar_params[5] = {"Ls1", "Ls2", "mA1", "rG", "LA1"};
static const char *const fivebar_objs[3] = {"psi1", "psi2", "psi3"};

/* the two results hold the same numbers, bit for bit */
static void assert_same_result(const lw_sens_result *a, const lw_sens_result *b, int np, int no)
{
  g_assert_cmpint(a->status, ==, LW_OK);
  g_assert_cmpint(b->status, ==, LW_OK);
  g_assert_cmpint(a->steps, ==, b->steps);
  g_assert_cmpint(a->sim_steps, ==, b->sim_steps);
  g_assert_cmpint(memcmp(a->value, b->value, sizeof(double) * (size_t)no), ==, 0);
  g_assert_cmpint(memcmp(a->gradient, b->gradient, sizeof(double) * (size_t)(no * np)), ==, 0);
  g_assert_cmpint(memcmp(a->depends, b->depends, sizeof(int) * (size_t)np), ==, 0);
}

static void test_fivebar_same(gconstpointer data)
{
  lw_sens_method method = GPOINTER_TO_INT(data);
  lw_desc *d = lwt_read("five-bar.json");
  int P[5], O[3];
  for (int j = 0; j < 5; j++)
    g_assert_cmpint((P[j] = lw_desc_param_index(d, fivebar_params[j])), >=, 0);
  for (int o = 0; o < 3; o++)
    g_assert_cmpint((O[o] = lw_desc_objective_index(d, fivebar_objs[o])), >=, 0);
  lw_sens_options opt = {.method = method, .nparams = 5, .params = P, .nobj = 3, .objectives = O};
  lw_sens_result rd, rm;
  g_assert_cmpint(lw_sensitivity(d, &opt, &rd), ==, LW_OK);
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  g_assert_nonnull(m);
  /* the model keeps its own copy of the description */
  lw_desc_free(d);
  g_assert_cmpint(lw_sensitivity_model(m, &opt, &rm), ==, LW_OK);
  assert_same_result(&rd, &rm, 5, 3);
  for (int o = 0; o < 3; o++) {
    g_assert_true(isfinite(rm.value[o]));
    for (int j = 0; j < 5; j++) /* tables 7.4-7.6: every one of these gradients is nonzero */
      g_assert_cmpfloat(rm.gradient[o * 5 + j], !=, 0.0);
  }
  g_test_message("%s: psi1 = %.17g, dpsi1/dLs1 = %.17g", lw_sens_method_name(method), rm.value[0], rm.gradient[0]);
  lw_sens_result_clear(&rm);
  /* the same model again: a run leaves nothing behind in it */
  g_assert_cmpint(lw_sensitivity_model(m, &opt, &rm), ==, LW_OK);
  assert_same_result(&rd, &rm, 5, 3);
  lw_sens_result_clear(&rm);
  lw_sens_result_clear(&rd);
  lw_model_free(m);
}

/* indices are checked against the compiled description */
static void test_bad_index(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  g_assert_nonnull(m);
  int P[1] = {lw_model_desc(m)->nparams}, O[1] = {0};
  lw_sens_options opt = {.method = LW_SENS_ADJOINT, .nparams = 1, .params = P, .nobj = 1, .objectives = O};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity_model(m, &opt, &r), ==, LW_ERR_MODEL);
  g_assert_nonnull(strstr(r.error.msg, "parameter index"));
  lw_sens_result_clear(&r);
  P[0] = 0;
  O[0] = lw_model_desc(m)->nobjectives;
  g_assert_cmpint(lw_sensitivity_model(m, &opt, &r), ==, LW_ERR_MODEL);
  g_assert_nonnull(strstr(r.error.msg, "objective index"));
  lw_sens_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_data_func("/sens-model/five-bar/forward", GINT_TO_POINTER(LW_SENS_FORWARD), test_fivebar_same);
  g_test_add_data_func("/sens-model/five-bar/adjoint", GINT_TO_POINTER(LW_SENS_ADJOINT), test_fivebar_same);
  g_test_add_func("/sens-model/bad-index", test_bad_index);
  return g_test_run();
}
