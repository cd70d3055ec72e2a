/* linkwright-cli: exit codes, the JSON summary and the CSV. */
#include "lw-test.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "lw_io.h"

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

/* solver settings on the command line override the file's: the shipped
 * four-bar with one Newton iteration a step stops (exit 3); with an absurd
 * penalty it is refused (exit 2, naming the field) in simulate,
 * sensitivity and optimize alike; a bad value is a usage error */
static void test_solver_options(void)
{
  struct { const char *args; int code; const char *says; } cases[] = {
    {"simulate %s/four-bar.json --t-end 0.1 --max-iterations 1", 3, "after 1 iterations"},
    {"simulate %s/four-bar.json --t-end 0.1 --max-iterations 30 --tolerance 1e-9 --constraint-tolerance 1e-9", 0, NULL},
    {"simulate %s/five-bar.json --alpha 1e17", 2, "alpha = 1e+17 is too large"},
    {"sensitivity %s/five-bar.json --objective psi1 --alpha 1e17", 2, "solver/alpha"},
    {"optimize %s/five-bar.json --alpha 1e17 --max-evaluations 2", 3, "too large"},
    {"simulate %s/five-bar.json --tolerance 0", 1, "--tolerance"},
    {"simulate %s/five-bar.json --max-iterations 0", 1, "--max-iterations"},
  };
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    g_autofree char *args = g_strdup_printf(cases[k].args, LW_MODELS_DIR);
    g_autofree char *out = NULL, *err = NULL;
    int code = run(args, &out, &err);
    g_test_message("%s: exit %d, %s", args, code, err);
    g_assert_cmpint(code, ==, cases[k].code);
    if (cases[k].says)
      g_assert_nonnull(strstr(err, cases[k].says));
  }
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


/* the conventions: --version, COMMAND --help on stdout with exit 0 */
static void test_version_help(void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint(run("--version", &out, &err), ==, 0);
  g_assert_true(g_str_has_prefix(out, "linkwright-cli "));
  g_assert_true(g_ascii_isdigit(out[strlen("linkwright-cli ")]));
  const char *cmds[] = {"simulate --help", "sensitivity --help", "optimize -h", "convert --help"};
  for (guint i = 0; i < G_N_ELEMENTS(cmds); i++) {
    g_autofree char *o = NULL, *e = NULL;
    g_assert_cmpint(run(cmds[i], &o, &e), ==, 0);
    g_assert_nonnull(strstr(o, "usage:"));
    g_assert_cmpstr(e, ==, "");
  }
}

/* --csv - on stdout (the summary on stderr), every K-th row and the last;
 * settings that make no run are a usage error */
static void test_csv_stream(void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *args = g_strdup_printf("simulate %s/pendulum.json --t-end 1 --step 0.001 --csv - --every 300",
                                          LW_MODELS_DIR);
  g_assert_cmpint(run(args, &out, &err), ==, 0);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  /* header, t = 0, 0.3, 0.6, 0.9, 1 and the empty end */
  g_assert_cmpuint(g_strv_length(lines), ==, 7);
  g_assert_true(g_str_has_prefix(lines[0], "time,"));
  g_assert_true(g_str_has_prefix(lines[2], "0.3"));
  g_assert_true(g_str_has_prefix(lines[5], "1,"));
  g_assert_nonnull(strstr(err, "1000 steps"));
  struct {
    const char *opts;
    const char *expect;
  } bad[] = {{"--step 10 --t-end 1", "not one step"}, {"--t-end 1e300 --step 1", "more than the 1e9"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *o = NULL, *e = NULL;
    g_autofree char *a = g_strdup_printf("simulate %s/pendulum.json %s", LW_MODELS_DIR, bad[i].opts);
    g_assert_cmpint(run(a, &o, &e), ==, 1);
    g_assert_nonnull(strstr(e, bad[i].expect));
  }
  /* a t_end that is not a whole number of steps is said */
  g_autofree char *o2 = NULL, *e2 = NULL;
  g_autofree char *a2 = g_strdup_printf("simulate %s/pendulum.json --t-end 0.03 --step 7e-5", LW_MODELS_DIR);
  g_assert_cmpint(run(a2, &o2, &e2), ==, 0);
  g_assert_nonnull(strstr(e2, "ends at 0.03003"));
}

/* an output named with a quote, a comma and a line break keeps the CSV's
 * columns: the header field is quoted */
static void test_csv_header_quoting(void)
{
  g_autofree char *dir = g_dir_make_tmp("lw-cli-XXXXXX", NULL);
  g_autofree char *model = g_build_filename(dir, "m.json", NULL);
  g_autofree char *csv = g_build_filename(dir, "m.csv", NULL);
  lw_desc *d = lw_desc_chain(1, 0);
  lw_desc_add_output(d, "odd \"name\",\nhere", LW_OUT_TOTAL_ENERGY);
  GError *gerr = NULL;
  g_assert_true(lw_model_write_file(d, model, &gerr));
  lw_desc_free(d);
  g_autofree char *args = g_strdup_printf("simulate %s --t-end 0.01 --csv %s", model, csv);
  g_autofree char *out = NULL, *err = NULL;
  int rc = run(args, &out, &err);
  g_test_message("%s", err);
  g_assert_cmpint(rc, ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  /* the last header field quoted, the header then ends */
  g_assert_nonnull(strstr(text, ",\"odd \"\"name\"\",\nhere\"\n0,"));
  g_unlink(model);
  g_unlink(csv);
  g_rmdir(dir);
}

/* convert: a URDF into a model file that reads back and runs */
static void test_convert(void)
{
  g_autofree char *urdf = g_build_filename(LW_SOURCE_ROOT, "..", "shared", "urdf", "bullet3_kuka_iiwa_model.urdf", NULL);
  if (!g_file_test(urdf, G_FILE_TEST_EXISTS)) {
    g_test_skip("the shared robot descriptions are absent");
    return;
  }
  g_autofree char *dir = g_dir_make_tmp("lw-cli-XXXXXX", NULL);
  g_autofree char *json = g_build_filename(dir, "kuka.json", NULL);
  g_autofree char *args = g_strdup_printf("convert %s --out %s", urdf, json);
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint(run(args, &out, &err), ==, 0);
  g_test_message("%s", err);
  g_assert_nonnull(strstr(err, "7 bodies, 7 joints"));
  g_assert_nonnull(strstr(err, "7 degrees of freedom"));
  g_assert_nonnull(strstr(err, "limits"));
  g_autofree char *a2 = g_strdup_printf("simulate %s --t-end 0.1", json);
  g_autofree char *o2 = NULL, *e2 = NULL;
  g_assert_cmpint(run(a2, &o2, &e2), ==, 0);
  g_autofree char *a3 = g_strdup_printf("convert %s/five-bar.json", LW_MODELS_DIR);
  g_autofree char *o3 = NULL, *e3 = NULL;
  g_assert_cmpint(run(a3, &o3, &e3), ==, 1); /* no --out */
  g_unlink(json);
  g_rmdir(dir);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/simulate-json", test_simulate_json);
  g_test_add_func("/cli/exit-codes", test_exit_codes);
  g_test_add_func("/cli/solver-failure", test_solver_failure);
  g_test_add_func("/cli/solver-options", test_solver_options);
  g_test_add_func("/cli/demo-and-chain", test_demo_and_chain);
  g_test_add_func("/cli/sensitivity", test_sensitivity);
  g_test_add_func("/cli/version-help", test_version_help);
  g_test_add_func("/cli/csv-stream", test_csv_stream);
  g_test_add_func("/cli/csv-header-quoting", test_csv_header_quoting);
  g_test_add_func("/cli/convert", test_convert);
  return g_test_run();
}
