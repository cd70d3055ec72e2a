/* Bad input: every error names the file, the line and the field, and
 * nothing crashes. */
#include "lw-test.h"

#include <glib/gstdio.h>
#include <string.h>

/* A small valid model, one field per line so that lines are known. */
static const char *base[] = {
  "{",                                                         /* 1 */
  "  \"linkwright\": 1,",                                      /* 2 */
  "  \"planar\": true,",                                       /* 3 */
  "  \"bodies\": [",                                           /* 4 */
  "    {\"name\": \"bob\",",                                   /* 5 */
  "     \"mass\": 1.0,",                                       /* 6 */
  "     \"com\": [1, 0],",                                     /* 7 */
  "     \"inertia\": 0.01,",                                   /* 8 */
  "     \"points\": {\"tip\": [1, 0]}}",                       /* 9 */
  "  ],",                                                      /* 10 */
  "  \"joints\": [",                                           /* 11 */
  "    {\"name\": \"pivot\",",                                 /* 12 */
  "     \"type\": \"revolute\",",                              /* 13 */
  "     \"body1\": \"ground\",",                               /* 14 */
  "     \"body2\": \"bob\",",                                  /* 15 */
  "     \"at\": [0, 0]}",                                      /* 16 */
  "  ],",                                                      /* 17 */
  "  \"outputs\": [",                                          /* 18 */
  "    {\"name\": \"tip\", \"type\": \"position\", \"body\": \"bob\", \"point\": \"tip\"}", /* 19 */
  "  ]",                                                       /* 20 */
  "}",                                                         /* 21 */
  NULL};

/* the base text with line `line` (1-based) replaced, written to a file */
static char *write_variant(int line, const char *replacement)
{
  GString *s = g_string_new(NULL);
  for (int i = 0; base[i]; i++) {
    g_string_append(s, i + 1 == line ? replacement : base[i]);
    g_string_append_c(s, '\n');
  }
  char *path = g_build_filename(g_get_tmp_dir(), "lw-test-bad.json", NULL);
  g_assert_true(g_file_set_contents(path, s->str, -1, NULL));
  g_string_free(s, TRUE);
  return path;
}

/* open must fail; the message must hold the file, ":line:" and the field */
static void expect_error(int line, const char *replacement, int expect_line, const char *field,
                         const char *words)
{
  g_autofree char *path = write_variant(line, replacement);
  lw_error err;
  lw_model *m = lw_model_open(path, &err);
  if (m) {
    /* compile-clean models may still fail to assemble */
    lw_data *d = lw_data_new(m);
    int st = lw_initialize(m, d, &err);
    g_assert_cmpint(st, ==, LW_ERR_MODEL);
    g_autoptr(LwSourceMap) map = NULL;
    lw_desc *dd = lw_model_read_file(path, &map, NULL);
    lw_error_locate(&err, path, map);
    lw_desc_free(dd);
    lw_data_free(d);
    lw_model_free(m);
  }
  g_test_message("%s", err.msg);
  g_assert_cmpint(err.status, ==, LW_ERR_MODEL);
  g_assert_nonnull(strstr(err.msg, path));
  if (expect_line > 0) {
    g_autofree char *l = g_strdup_printf("%s:%d:", path, expect_line);
    g_assert_nonnull(strstr(err.msg, l));
  } else if (expect_line < 0) {
    /* some line of the file */
    const char *p = strstr(err.msg, path) + strlen(path);
    g_assert_true(p[0] == ':' && g_ascii_isdigit(p[1]));
  }
  if (field)
    g_assert_nonnull(strstr(err.msg, field));
  if (words)
    g_assert_nonnull(strstr(err.msg, words));
  g_unlink(path);
}

static void test_valid_base(void)
{
  g_autofree char *path = write_variant(0, "");
  lw_error err;
  lw_model *m = lw_model_open(path, &err);
  g_assert_nonnull(m);
  lw_data *d = lw_data_new(m);
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  g_assert_cmpint(lw_data_dof(d), ==, 1);
  lw_data_free(d);
  lw_model_free(m);
  g_unlink(path);
}

static void test_malformed(void)
{
  /* a missing comma: json-glib reports the line */
  expect_error(6, "     \"mass\": 1.0", 6, NULL, "malformed JSON");
  /* a truncated file */
  expect_error(21, "", 0, NULL, "malformed JSON");
}

static void test_unknown_joint_type(void)
{
  expect_error(13, "     \"type\": \"revolut\",", 13, "joints/pivot/type", "unknown joint type 'revolut'");
}

static void test_missing_body(void)
{
  expect_error(15, "     \"body2\": \"bobb\",", 15, "joints/pivot/body2", "'bobb' does not exist");
}

static void test_negative_mass(void)
{
  expect_error(6, "     \"mass\": -1.0,", 6, "bodies/bob/mass", "positive");
  expect_error(6, "     \"mass\": 0,", 6, "bodies/bob/mass", "positive");
}

static void test_nan_mass(void)
{
  /* JSON has no NaN: the text form is refused as a non-number... */
  expect_error(6, "     \"mass\": \"NaN\",", 6, "bodies/bob/mass", "must be a number");
  /* ...and a NaN set through the API is refused by the compiler */
  g_autofree char *path = write_variant(0, "");
  lw_desc *d = lw_model_read_file(path, NULL, NULL);
  g_assert_nonnull(d);
  d->bodies[0].mass = NAN;
  lw_error err;
  g_assert_null(lw_compile(d, &err));
  g_assert_cmpstr(err.path, ==, "bodies/bob/mass");
  g_assert_nonnull(strstr(err.msg, "nan"));
  lw_desc_free(d);
  g_unlink(path);
}

static void test_inertia(void)
{
  expect_error(8, "     \"inertia\": -0.01,", 8, "bodies/bob/inertia", "positive");
  /* 3-D tensors: not positive definite, and not a rigid body */
  lw_desc *d = lw_desc_new();
  lw_body_desc *b = lw_desc_add_body(d, "box");
  b->mass = 1;
  double bad[6] = {1, 1, -1, 0, 0, 0};
  memcpy(b->inertia, bad, sizeof bad);
  lw_error err;
  g_assert_null(lw_compile(d, &err));
  g_assert_cmpstr(err.path, ==, "bodies/box/inertia");
  g_assert_nonnull(strstr(err.msg, "not positive definite"));
  double off[6] = {1, 1, 1, 2, 0, 0}; /* symmetric but indefinite */
  memcpy(b->inertia, off, sizeof off);
  g_assert_null(lw_compile(d, &err));
  g_assert_nonnull(strstr(err.msg, "not positive definite"));
  double tri[6] = {1, 1, 3, 0, 0, 0}; /* positive but I1 + I2 < I3 */
  memcpy(b->inertia, tri, sizeof tri);
  g_assert_null(lw_compile(d, &err));
  g_assert_nonnull(strstr(err.msg, "triangle inequality"));
  lw_desc_free(d);
}

static void test_unknown_field(void)
{
  expect_error(6, "     \"mas\": 1.0,", 6, "bodies/bob/mas", "unknown field 'mas'");
}

static void test_wrong_types(void)
{
  expect_error(7, "     \"com\": [1, 0, 0],", 7, "bodies/bob/com", "2 numbers");
  expect_error(16, "     \"at\": \"origin\"}", 16, "joints/pivot/at", "array");
  expect_error(19, "    {\"name\": \"tip\", \"type\": \"speed\", \"body\": \"bob\", \"point\": \"tip\"}", 19,
               "outputs/tip/type", "unknown output type");
  expect_error(19, "    {\"name\": \"tip\", \"type\": \"position\", \"body\": \"bob\", \"point\": \"nose\"}", 19,
               "outputs/tip/point", "no point or frame named 'nose'");
  expect_error(2, "  \"linkwright\": 7,", 2, NULL, "unsupported format version 7");
}

static void test_joint_to_itself(void)
{
  expect_error(14, "     \"body1\": \"bob\",", 15, "joints/pivot/body2", "to itself");
}

/* a loop that cannot close: two pivots further apart than the body allows */
static void test_cannot_assemble(void)
{
  expect_error(16, "     \"at\": [0, 0]}, {\"name\": \"pin2\", \"type\": \"revolute\", \"body1\": \"ground\", "
                   "\"body2\": \"bob\", \"point2\": \"tip\", \"at\": [3, 0]}",
               -1, "joints/", "cannot be assembled");
}

/* two pivots where the body fits: consistent but dependent equations */
static void test_redundant(void)
{
  expect_error(16, "     \"at\": [0, 0]}, {\"name\": \"pin2\", \"type\": \"revolute\", \"body1\": \"ground\", "
                   "\"body2\": \"bob\", \"point2\": [0, 0], \"at\": [0, 0]}",
               -1, "joints/", "redundant or conflicting");
}

/* two parameters of one name: the first repeated name is the one named */
static void test_duplicate_parameter(void)
{
  expect_error(20,
               "  ], \"parameters\": [{\"name\": \"b\", \"bind\": \"bodies/bob/mass\"}, "
               "{\"name\": \"a\", \"bind\": \"bodies/bob/mass\"}, {\"name\": \"c\", \"bind\": \"bodies/bob/mass\"}, "
               "{\"name\": \"b\", \"bind\": \"bodies/bob/mass\"}, {\"name\": \"a\", \"bind\": \"bodies/bob/mass\"}]",
               20, "parameters/b", "duplicate parameter name 'b'");
  expect_error(20,
               "  ], \"parameters\": [{\"name\": \"b\", \"bind\": \"bodies/bob/mass\"}, "
               "{\"name\": \"a\", \"bind\": \"bodies/bob/mass\"}, {\"name\": \"a\", \"bind\": \"bodies/bob/mass\"}, "
               "{\"name\": \"b\", \"bind\": \"bodies/bob/mass\"}]",
               20, "parameters/a", "duplicate parameter name 'a'");
}

/* a held coordinate that fights a fixed joint */
static void test_conflicting_initial(void)
{
  expect_error(16, "     \"at\": [0, 0]}], \"drivers\": [{\"name\": \"lock\", \"joint\": \"pivot\", "
                   "\"function\": {\"type\": \"constant\", \"value\": 0.5}}], \"initial\": [{\"joint\": "
                   "\"pivot\", \"value\": -1.0}], \"forces\": [",
               -1, NULL, "cannot be assembled");
}

/* a torque on the ground does nothing: refused, naming the force */
static void test_torque_on_ground(void)
{
  expect_error(17, "  ], \"forces\": [{\"name\": \"twist\", \"type\": \"torque\", \"body\": \"ground\", \"value\": 1}],",
               17, "forces/twist", "acts on the ground");
}

/* a crank angle and a rocker angle that disagree on a one-degree-of-freedom
 * four-bar: named as too many initial values (it said "cannot be
 * assembled"); values that agree still run */
static void test_overspecified_initial(void)
{
  for (int agree = 0; agree < 2; agree++) {
    lw_desc *d = lwt_read("four-bar.json");
    lw_initial_desc *in = lw_desc_add_initial(d, "D", 0);
    in->has_value = 1;
    in->value = agree ? 1.7419501646378184 : 1.0; /* the rocker angle where the crank is upright */
    lw_model *m = lwt_compile(d);
    lw_data *data = lw_data_new(m);
    lw_error err = {0};
    int st = lw_initialize(m, data, &err);
    g_test_message("%s: %s", err.path, err.msg);
    if (agree) {
      g_assert_cmpint(st, ==, LW_OK);
    } else {
      g_assert_cmpint(st, ==, LW_ERR_MODEL);
      g_assert_cmpstr(err.path, ==, "initial/D");
      g_assert_nonnull(strstr(err.msg, "2 initial values are given (A, D)"));
      g_assert_nonnull(strstr(err.msg, "1 degree of freedom"));
    }
    lw_data_free(data);
    lw_model_free(m);
    lw_desc_free(d);
  }
}

static void test_missing_file(void)
{
  lw_error err;
  g_assert_null(lw_model_open("/nonexistent/model.json", &err));
  g_assert_nonnull(strstr(err.msg, "/nonexistent/model.json"));
}

/* every prefix of a real model: an error, never a crash */
static void test_truncations(void)
{
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, "five-bar.json", NULL);
  g_autofree char *text = NULL;
  gsize len;
  g_assert_true(g_file_get_contents(path, &text, &len, NULL));
  int failed = 0, total = 0;
  for (gsize n = 0; n < len - 2; n += 7) {
    lw_error err;
    lw_desc *d = lw_model_read_data(text, (gssize)n, "cut.json", NULL, &err);
    total++;
    if (!d) {
      failed++;
      g_assert_nonnull(strstr(err.msg, "cut.json"));
    } else {
      lw_model *m = lw_compile(d, &err);
      lw_model_free(m);
      lw_desc_free(d);
    }
  }
  g_test_message("%d truncated texts, %d refused with a message", total, failed);
  g_assert_cmpint(failed, ==, total);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/errors/valid-base", test_valid_base);
  g_test_add_func("/errors/malformed-json", test_malformed);
  g_test_add_func("/errors/unknown-joint-type", test_unknown_joint_type);
  g_test_add_func("/errors/missing-body", test_missing_body);
  g_test_add_func("/errors/negative-mass", test_negative_mass);
  g_test_add_func("/errors/nan-mass", test_nan_mass);
  g_test_add_func("/errors/inertia", test_inertia);
  g_test_add_func("/errors/unknown-field", test_unknown_field);
  g_test_add_func("/errors/wrong-types", test_wrong_types);
  g_test_add_func("/errors/joint-to-itself", test_joint_to_itself);
  g_test_add_func("/errors/cannot-assemble", test_cannot_assemble);
  g_test_add_func("/errors/redundant", test_redundant);
  g_test_add_func("/errors/duplicate-parameter", test_duplicate_parameter);
  g_test_add_func("/errors/conflicting-initial", test_conflicting_initial);
  g_test_add_func("/errors/torque-on-ground", test_torque_on_ground);
  g_test_add_func("/errors/overspecified-initial", test_overspecified_initial);
  g_test_add_func("/errors/missing-file", test_missing_file);
  g_test_add_func("/errors/truncations", test_truncations);
  return g_test_run();
}
