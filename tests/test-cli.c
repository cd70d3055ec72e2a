/* linkwright-cli: exit codes, the JSON summary and the CSV. */
#include "lw-test.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

static int run(const char *args, char **out, char **err)
{
  g_autofree char *cmd = g_strdup_printf("%s %s", LW_CLI, args);
  int status = 0;
  GError *e = NULL;
  g_assert_true(g_spawn_command_line_sync(cmd, out, err, &status, &e));
  g_assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static JsonObject *parse(const char *text, JsonParser **p)
{
  *p = json_parser_new();
  g_assert_true(json_parser_load_from_data(*p, text, -1, NULL));
  return json_node_get_object(json_parser_get_root(*p));
}

static void test_simulate_json(void)
{
  g_autofree char *csv = g_build_filename(g_get_tmp_dir(), "lw-cli-test.csv", NULL);
  g_autofree char *args = g_strdup_printf("simulate %s/five-bar.json --t-end 0.5 --step 0.001 --json --csv %s",
                                          LW_MODELS_DIR, csv);
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint(run(args, &out, &err), ==, 0);
  JsonParser *p;
  JsonObject *o = parse(out, &p);
  g_assert_cmpint(json_object_get_int_member(o, "steps"), ==, 500);
  g_assert_cmpfloat(json_object_get_double_member(o, "wall_time_s"), >, 0);
  g_assert_cmpfloat(json_object_get_double_member(o, "max_constraint_residual"), <=, 1e-10);
  g_assert_cmpint(json_object_get_int_member(o, "newton_iterations"), >=, 500);
  JsonObject *fin = json_object_get_object_member(o, "final");
  JsonArray *r2 = json_object_get_array_member(fin, "r2");
  g_assert_cmpint(json_array_get_length(r2), ==, 2);
  g_assert_true(json_object_has_member(fin, "energy"));
  /* the CSV: a header with time and every output column, 501 rows */
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_assert_true(g_str_has_prefix(lines[0], "time,r2.x,r2.y,v2.x"));
  g_assert_cmpint(g_strv_length(lines), ==, 501 + 1 + 1);
  /* the last row matches the JSON final value exactly */
  g_auto(GStrv) last = g_strsplit(lines[501], ",", -1);
  g_assert_cmpfloat(g_ascii_strtod(last[1], NULL), ==, json_array_get_double_element(r2, 0));
  g_object_unref(p);
  g_unlink(csv);
}

static void test_exit_codes(void)
{
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL;
  g_assert_cmpint(run("", &o1, &e1), ==, 1);
  g_clear_pointer(&o1, g_free);
  g_clear_pointer(&e1, g_free);
  g_assert_cmpint(run("simulate", &o1, &e1), ==, 1);
  g_autofree char *bad = g_strdup_printf("simulate %s/five-bar.json --step -1", LW_MODELS_DIR);
  g_assert_cmpint(run(bad, &o2, &e2), ==, 1);
  g_assert_cmpint(run("simulate /nonexistent.json", &o3, &e3), ==, 2);
  g_assert_nonnull(strstr(e3, "/nonexistent.json"));
}

/* solver failure: exit 3, the JSON names time and place, the CSV keeps the rows */
static void test_solver_failure(void)
{
  lw_desc *d = lwt_read("four-bar.json");
  lwt_clear_initial(d);
  lw_driver_desc *dr = lw_desc_add_driver(d, "motor", "D", 0);
  dr->func.type = LW_FUNC_LINEAR;
  dr->func.a[0] = 1.7419501646378184; /* the rocker angle of the shipped start */
  dr->func.a[1] = 1.0;
  g_autofree char *model = g_build_filename(g_get_tmp_dir(), "lw-cli-dead.json", NULL);
  g_autofree char *csv = g_build_filename(g_get_tmp_dir(), "lw-cli-dead.csv", NULL);
  g_assert_true(lw_model_write_file(d, model, NULL));
  lw_desc_free(d);
  g_autofree char *args = g_strdup_printf("simulate %s --t-end 3 --json --csv %s", model, csv);
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint(run(args, &out, &err), ==, 3);
  JsonParser *p;
  JsonObject *o = parse(out, &p);
  g_assert_cmpstr(json_object_get_string_member(o, "status"), ==, "solver_failure");
  JsonObject *e = json_object_get_object_member(o, "error");
  double t = json_object_get_double_member(e, "time");
  g_assert_cmpfloat(t, >, 0);
  g_assert_cmpfloat(t, <, 3);
  g_test_message("failure reported: %s", json_object_get_string_member(e, "message"));
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  long rows = (long)g_strv_length(lines) - 2;
  g_assert_cmpint(rows, ==, json_object_get_int_member(o, "steps") + 1);
  g_object_unref(p);
  g_unlink(model);
  g_unlink(csv);
}

static void test_demo_and_chain(void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint(run("demo --t-end 0.1 --json", &out, &err), ==, 0);
  JsonParser *p;
  JsonObject *o = parse(out, &p);
  g_assert_cmpint(json_object_get_int_member(o, "steps"), ==, 100);
  g_object_unref(p);
  g_autofree char *chain = g_build_filename(g_get_tmp_dir(), "lw-cli-chain.json", NULL);
  g_autofree char *a1 = g_strdup_printf("generate-chain 12 --out %s", chain);
  g_autofree char *o1 = NULL, *e1 = NULL;
  g_assert_cmpint(run(a1, &o1, &e1), ==, 0);
  g_autofree char *a2 = g_strdup_printf("check %s", chain);
  g_autofree char *o2 = NULL, *e2 = NULL;
  g_assert_cmpint(run(a2, &o2, &e2), ==, 0);
  g_assert_nonnull(strstr(o2, "12 degrees of freedom"));
  g_unlink(chain);
}

/* sensitivity: JSON fields, forward = adjoint, bad names, CSV over time */
static void test_sensitivity(void)
{
  double g[3][5];
  /* the forward with and without the second thread: the same gradient */
  const char *methods[3] = {"forward", "adjoint", "forward"}, *extra[3] = {"", "", " --one-thread"};
  int threads[3] = {sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1, 1, 1};
  for (int k = 0; k < 3; k++) {
    g_autofree char *args = g_strdup_printf("sensitivity %s/five-bar.json --objective psi2 --method %s "
                                            "--t-end 0.3 --json%s",
                                            LW_MODELS_DIR, methods[k], extra[k]);
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint(run(args, &out, &err), ==, 0);
    JsonParser *p;
    JsonObject *o = parse(out, &p);
    g_assert_cmpstr(json_object_get_string_member(o, "method"), ==, methods[k]);
    g_assert_cmpfloat(json_object_get_double_member(o, "objective"), >, 0);
    g_assert_cmpfloat(json_object_get_double_member(o, "wall_time_s"), >, 0);
    g_assert_cmpint(json_object_get_int_member(o, "threads"), ==, threads[k]);
    JsonObject *gr = json_object_get_object_member(o, "gradient");
    const char *names[5] = {"Ls1", "Ls2", "mA1", "rG", "LA1"};
    for (int j = 0; j < 5; j++)
      g[k][j] = json_object_get_double_member(gr, names[j]);
    g_object_unref(p);
  }
  for (int j = 0; j < 5; j++) {
    g_assert_cmpfloat(fabs(g[0][j] - g[1][j]), <=, 1e-8 * fabs(g[1][j]));
    g_assert_cmpfloat(g[0][j], ==, g[2][j]);
  }
  /* unknown names are refused with the known ones listed */
  g_autofree char *a1 = g_strdup_printf("sensitivity %s/five-bar.json --objective nope", LW_MODELS_DIR);
  g_autofree char *o1 = NULL, *e1 = NULL;
  g_assert_cmpint(run(a1, &o1, &e1), ==, 1);
  g_assert_nonnull(strstr(e1, "no objective 'nope'"));
  g_assert_nonnull(strstr(e1, "psi1, psi2, psi3"));
  g_autofree char *a2 = g_strdup_printf("sensitivity %s/five-bar.json --objective psi1 --params Ls1,nope",
                                        LW_MODELS_DIR);
  g_autofree char *o2 = NULL, *e2 = NULL;
  g_assert_cmpint(run(a2, &o2, &e2), ==, 1);
  g_assert_nonnull(strstr(e2, "no parameter 'nope'"));
  /* forward sensitivities over time */
  g_autofree char *csv = g_build_filename(g_get_tmp_dir(), "lw-cli-sens.csv", NULL);
  g_autofree char *a3 = g_strdup_printf("sensitivity %s/five-bar.json --objective psi1 --params LA1 "
                                        "--method forward --t-end 0.1 --csv %s",
                                        LW_MODELS_DIR, csv);
  g_autofree char *o3 = NULL, *e3 = NULL;
  g_assert_cmpint(run(a3, &o3, &e3), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_assert_nonnull(strstr(lines[0], ",d(r2.x)/d(LA1),"));
  g_assert_cmpint(g_strv_length(lines), ==, 101 + 1 + 1);
  g_unlink(csv);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/simulate-json", test_simulate_json);
  g_test_add_func("/cli/exit-codes", test_exit_codes);
  g_test_add_func("/cli/solver-failure", test_solver_failure);
  g_test_add_func("/cli/demo-and-chain", test_demo_and_chain);
  g_test_add_func("/cli/sensitivity", test_sensitivity);
  return g_test_run();
}
