/* test-hostile.c: input that once crashed, hung or corrupted memory is
 * refused at once with a message that says why. */
#include "lw-test.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "linkwright.h"
#include "lw_io.h"

/* 100 000 nested brackets: the parser would recurse out of its stack */
static void test_deep_nesting(void)
{
  for (int obj = 0; obj < 2; obj++) {
    GString *s = g_string_new("{\"version\": 1,\n\"name\": ");
    for (int k = 0; k < 100000; k++)
      g_string_append(s, obj ? "{\"a\": " : "[");
    lw_error err;
    lw_desc *d = lw_model_read_data(s->str, (gssize)s->len, "deep.json", NULL, &err);
    g_assert_null(d);
    g_test_message("%s", err.msg);
    g_assert_nonnull(strstr(err.msg, "deep.json:2: brackets nested deeper than"));
    g_string_free(s, TRUE);
  }
  /* brackets inside strings do not count */
  GString *ok = g_string_new("{\"version\": 1, \"name\": \"");
  for (int k = 0; k < 1000; k++)
    g_string_append(ok, "[{\\\"");
  g_string_append(ok, "\"}");
  lw_error err;
  lw_desc *d = lw_model_read_data(ok->str, (gssize)ok->len, "strings.json", NULL, &err);
  if (d)
    lw_desc_free(d);
  else
    g_assert_null(strstr(err.msg, "nested"));
  g_string_free(ok, TRUE);
}

/* a device that never ends, a directory */
static void test_special_files(void)
{
  const char *paths[] = {"/dev/zero", "/tmp"};
  for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
    lw_error err;
    gint64 t0 = g_get_monotonic_time();
    lw_desc *d = lw_model_read_file(paths[i], NULL, &err);
    g_assert_null(d);
    g_test_message("%s (%.1f ms)", err.msg, (g_get_monotonic_time() - t0) / 1000.0);
    g_assert_nonnull(strstr(err.msg, "not a regular file"));
  }
}

/* runs of no step, and of more steps than a table can hold */
static void test_step_counts(void)
{
  lw_desc *desc = lw_desc_chain(2, 0);
  lw_error err;
  lw_model *m = lw_compile(desc, &err);
  g_assert_nonnull(m);
  static const struct {
    double t_end, h;
    const char *expect;
  } runs[] = {
      {1.0, 10.0, "would take no step"},
      {1e300, 1.0, "more than the"},
      {2251799813685248.0, 0.0009765625, "more than the"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(runs); i++) {
    lw_sim_result r;
    int st = lw_simulate(m, runs[i].t_end, runs[i].h, &r, NULL, NULL);
    g_test_message("t_end %g, h %g: %s", runs[i].t_end, runs[i].h, r.error.msg);
    g_assert_cmpint(st, ==, LW_ERR_MODEL);
    g_assert_nonnull(strstr(r.error.msg, runs[i].expect));
    g_assert_cmpint(r.rows, ==, 0);
    lw_sim_result_clear(&r);
  }
  /* t_end 0: the initial state alone, as before */
  lw_sim_result r;
  g_assert_cmpint(lw_simulate(m, 0.0, 1e-3, &r, NULL, NULL), ==, LW_OK);
  g_assert_cmpint(r.rows, ==, 1);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(desc);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/hostile/deep-nesting", test_deep_nesting);
  g_test_add_func("/hostile/special-files", test_special_files);
  g_test_add_func("/hostile/step-counts", test_step_counts);
  return g_test_run();
}
