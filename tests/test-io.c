/* Model files: save and load round-trip exactly, numbers in any locale. */
#include "lw-test.h"

#include <locale.h>
#include <string.h>


/* load -> write -> load -> write: both texts equal, and both models simulate
 * to bit-identical results */
static void test_roundtrip(void)
{
  for (size_t i = 0; i < G_N_ELEMENTS(lwt_models); i++) {
    lw_desc *d1 = lwt_read(lwt_models[i]);
    g_autofree char *t1 = lw_model_to_json(d1);
    lw_error err;
    lw_desc *d2 = lw_model_read_data(t1, -1, "written.json", NULL, &err);
    if (!d2)
      g_error("%s: %s", lwt_models[i], err.msg);
    g_autofree char *t2 = lw_model_to_json(d2);
    g_assert_cmpstr(t1, ==, t2);
    lw_model *m1 = lwt_compile(d1), *m2 = lwt_compile(d2);
    lw_sim_result r1, r2;
    g_assert_cmpint(lw_simulate(m1, 0.2, 1e-3, &r1, NULL, NULL), ==, LW_OK);
    g_assert_cmpint(lw_simulate(m2, 0.2, 1e-3, &r2, NULL, NULL), ==, LW_OK);
    g_assert_cmpint(r1.rows, ==, r2.rows);
    g_assert_cmpmem(r1.table, sizeof(double) * r1.rows * r1.ncols, r2.table,
                    sizeof(double) * r2.rows * r2.ncols);
    g_test_message("%s: %zu bytes written, round trip exact", lwt_models[i], strlen(t1));
    lw_sim_result_clear(&r1);
    lw_sim_result_clear(&r2);
    lw_model_free(m1);
    lw_model_free(m2);
    lw_desc_free(d1);
    lw_desc_free(d2);
  }
}

/* extreme doubles survive the writer and the reader */
static void test_extreme_numbers(void)
{
  const double v[] = {1e-300, 4.9406564584124654e-324, 1.7976931348623157e308, -0.0, 0.1, 1.0 / 3.0,
                      -2.5e-17, 123456789.123456789, 6.02214076e23};
  lw_desc *d = lwt_read("pendulum.json");
  for (size_t i = 0; i < G_N_ELEMENTS(v); i++) {
    d->bodies[0].position[0] = v[i];
    g_autofree char *t = lw_model_to_json(d);
    lw_error err;
    lw_desc *e = lw_model_read_data(t, -1, "x.json", NULL, &err);
    if (!e)
      g_error("%g: %s", v[i], err.msg);
    double back = e->bodies[0].position[0];
    g_assert_true(memcmp(&back, &v[i], sizeof back) == 0);
    lw_desc_free(e);
  }
  lw_desc_free(d);
}

/* a comma-decimal locale changes nothing in the file */
static void test_locale(void)
{
  const char *loc = setlocale(LC_NUMERIC, "de_DE.UTF-8");
  if (!loc)
    loc = setlocale(LC_NUMERIC, "fr_FR.UTF-8");
  if (!loc) {
    g_test_skip("no comma-decimal locale installed");
    return;
  }
  lw_desc *d = lwt_read("five-bar.json");
  g_autofree char *t = lw_model_to_json(d);
  setlocale(LC_NUMERIC, "C");
  lw_desc *c = lwt_read("five-bar.json");
  g_autofree char *tc = lw_model_to_json(c);
  g_assert_cmpstr(t, ==, tc);
  lw_desc_free(d);
  lw_desc_free(c);
}

/* parameters write their value into every field they bind */
static void test_parameters(void)
{
  lw_desc *d = lwt_read("pendulum.json");
  g_assert_cmpint(d->nparams, ==, 2);
  g_assert_cmpstr(d->params[0].name, ==, "length");
  d->params[0].value = 0.5;
  lw_model *m = lwt_compile(d);
  const lw_desc *c = lw_model_desc(m);
  g_assert_cmpfloat(c->bodies[0].com[0], ==, 0.5);
  g_assert_cmpfloat(c->bodies[0].points[1].p[0], ==, 0.5);
  /* the description given stays untouched */
  g_assert_cmpfloat(d->bodies[0].com[0], ==, 1.0);
  lw_model_free(m);
  /* a binding to nothing is refused with the parameter's name */
  g_free(d->params[1].targets[0]);
  d->params[1].targets[0] = g_strdup("bodies/bob/weight");
  lw_error err;
  g_assert_null(lw_compile(d, &err));
  g_assert_cmpstr(err.path, ==, "parameters/mass");
  g_assert_nonnull(strstr(err.msg, "bodies/bob/weight"));
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/io/roundtrip", test_roundtrip);
  g_test_add_func("/io/extreme-numbers", test_extreme_numbers);
  g_test_add_func("/io/locale", test_locale);
  g_test_add_func("/io/parameters", test_parameters);
  return g_test_run();
}
