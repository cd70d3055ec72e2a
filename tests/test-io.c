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

/* a spline's values as one parameter array: NAME[k] for every value,
 * written back as one entry; malformed splines named at the field */
static void test_spline_params(void)
{
  static const char *json =
      "{\"linkwright\": 1, \"planar\": true, \"bodies\": [{\"name\": \"b\", \"mass\": 1,\n"
      " \"inertia\": 0.1, \"points\": {\"p\": [1, 0]}}],\n"
      " \"joints\": [{\"name\": \"j\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"b\", \"point2\": [0, 0]}],\n"
      " \"forces\": [{\"name\": \"u\", \"type\": \"torque\", \"body\": \"b\", \"value\": 1,\n"
      "   \"function\": {\"type\": \"spline\", \"start\": 0, \"end\": 1, \"values\": [0, 1, 4, 9, 2]}}],\n"
      " \"parameters\": [{\"name\": \"k\", \"bind\": \"forces/u/function/*\"},\n"
      "   {\"name\": \"v\", \"bind\": \"forces/u/function/*\", \"value\": [5, 6, 7, 8, 9]}]}";
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "s.json", NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  g_assert_cmpint(d->nparams, ==, 10);
  g_assert_cmpstr(d->params[3].name, ==, "k[3]");
  g_assert_cmpstr(d->params[3].targets[0], ==, "forces/u/function/3");
  g_assert_cmpfloat(d->params[3].value, ==, 9.0);
  g_assert_cmpfloat(d->params[7].value, ==, 7.0);
  g_autofree char *t1 = lw_model_to_json(d);
  g_assert_nonnull(strstr(t1, "\"bind\": \"forces/u/function/*\""));
  lw_desc *d2 = lw_model_read_data(t1, -1, "w.json", NULL, &err);
  if (!d2)
    g_error("%s", err.msg);
  g_autofree char *t2 = lw_model_to_json(d2);
  g_assert_cmpstr(t1, ==, t2);
  g_assert_cmpint(d2->nparams, ==, 10);
  /* one value of a run set apart: the run is written element by element */
  g_free(d2->params[2].name);
  d2->params[2].name = g_strdup("other");
  g_autofree char *t3 = lw_model_to_json(d2);
  lw_desc *d3 = lw_model_read_data(t3, -1, "w3.json", NULL, &err);
  g_assert_nonnull(d3);
  g_assert_cmpint(d3->nparams, ==, 10);
  g_assert_cmpstr(d3->params[2].name, ==, "other");
  lw_desc_free(d3);
  lw_desc_free(d2);
  lw_desc_free(d);
  /* malformed: too few values, end before start, a value not a number */
  static const char *const bad[][2] = {
      {"\"values\": [0, 1, 4, 9, 2]", "\"values\": [3]"},
      {"\"end\": 1", "\"end\": -1"},
      {"\"values\": [0, 1, 4, 9, 2]", "\"values\": [0, 1, \"x\", 9, 2]"},
  };
  static const char *const field[] = {"forces/u/function/values", "forces/u/function/end",
                                      "forces/u/function/values"};
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    GString *s = g_string_new(json);
    g_string_replace(s, bad[i][0], bad[i][1], 1);
    lw_desc *b = lw_model_read_data(s->str, -1, "bad.json", NULL, &err);
    g_assert_null(b);
    g_test_message("%s", err.msg);
    g_assert_cmpstr(err.path, ==, field[i]);
    g_assert_nonnull(strstr(err.msg, "bad.json:5:"));
    g_string_free(s, TRUE);
  }
}

/* the spline: interpolates, C1, held outside; coefficient tangents exact */
static void test_spline_eval(void)
{
  double kv[7] = {0.3, -1.0, 2.0, 0.5, 0.5, 3.0, -2.0};
  lw_func f = {.type = LW_FUNC_SPLINE, .n = 7, .a = {1.0, 4.0}, .knots = kv};
  double h = 0.5;
  for (int k = 0; k < 7; k++) {
    double v;
    lw_func_eval(&f, 1.0 + k * h, &v, NULL, NULL);
    g_assert_cmpfloat(fabs(v - kv[k]), <=, 1e-15);
  }
  double v0, v1;
  lw_func_eval(&f, 0.2, &v0, NULL, NULL);
  lw_func_eval(&f, 9.0, &v1, NULL, NULL);
  g_assert_cmpfloat(v0, ==, kv[0]);
  g_assert_cmpfloat(v1, ==, kv[6]);
  /* slope continuous at interior knots; value and slope against differences */
  for (int k = 1; k < 6; k++) {
    double t = 1.0 + k * h, e = 1e-9, dl, dr;
    lw_func_eval(&f, t - e, NULL, &dl, NULL);
    lw_func_eval(&f, t + e, NULL, &dr, NULL);
    g_assert_cmpfloat(fabs(dl - dr), <=, 1e-6);
  }
  for (double t = 1.01; t < 4.0; t += 0.137) {
    double v, dv, ddv, vp, vm, dvp, dvm, e = 1e-6;
    lw_func_eval(&f, t, &v, &dv, &ddv);
    lw_func_eval(&f, t + e, &vp, &dvp, NULL);
    lw_func_eval(&f, t - e, &vm, &dvm, NULL);
    g_assert_cmpfloat(fabs((vp - vm) / (2 * e) - dv), <=, 1e-6 * (1 + fabs(dv)));
    g_assert_cmpfloat(fabs((dvp - dvm) / (2 * e) - ddv), <=, 1e-5 * (1 + fabs(ddv)));
    /* d/d value k: the spline is linear in its values, so a unit change is exact */
    for (int k = 0; k < 7; k++) {
      double w, wd, wdd, g[3];
      int on = lw_func_coef_tangent(&f, k, t, &w, &wd, &wdd);
      double save = kv[k];
      kv[k] = save + 1.0;
      lw_func_eval(&f, t, &g[0], &g[1], &g[2]);
      kv[k] = save;
      g_assert_cmpfloat(fabs(g[0] - v - w), <=, 1e-12);
      g_assert_cmpfloat(fabs(g[1] - dv - wd), <=, 1e-11);
      g_assert_cmpfloat(fabs(g[2] - ddv - wdd), <=, 1e-10);
      /* each value reaches two intervals either side of its knot */
      int i = (int)floor((t - 1.0) / h);
      if (k < i - 1 || k > i + 2)
        g_assert_false(on);
    }
  }
}

/* removing an objective takes the problems that optimize it along */
static void test_remove_objective(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  int nobj = d->nobjectives, nprob = d->nproblems;
  g_assert_cmpint(nprob, >=, 1);
  g_assert_cmpstr(d->problems[0].objective, ==, "psi1");
  g_assert_cmpint(lw_desc_remove(d, "objectives/psi1"), ==, 2); /* the objective and static-springs */
  g_assert_cmpint(d->nobjectives, ==, nobj - 1);
  g_assert_cmpint(d->nproblems, ==, nprob - 1);
  g_assert_cmpint(lw_desc_remove(d, "objectives/psi1"), ==, 0);
  g_assert_cmpint(lw_desc_remove(d, "objectives/psi2"), ==, 1);
  g_assert_cmpint(d->nobjectives, ==, nobj - 2);
  lw_model_free(lwt_compile(d)); /* what is left compiles */
  lw_desc_free(d);
}

/* a drawn link's end moved off its axis: still a uniform thin bar, whose
 * inertia tensor has the principal moments m r^2 / 2 about the new axis and
 * m L^2 / 12 + m r^2 / 4 across it */
static void test_move_point_bar(void)
{
  lw_desc *d = lw_desc_new();
  d->planar = 0;
  lw_body_desc *b = lw_desc_add_body(d, "link1");
  double u0[3] = {1, 0, 0}, p0[3] = {0, 0, 0}, p1[3] = {1, 0, 0};
  b->mass = LW_LINK_DENSITY * 1.0;
  b->com[0] = 0.5;
  lw_bar_inertia(0, b->mass, 1.0, u0, b->inertia);
  lw_body_add_point(b, "start", p0);
  lw_body_add_point(b, "end", p1);
  lw_geom_desc *g = lw_body_add_geom(b, LW_GEOM_BAR);
  memcpy(g->to, p1, sizeof p1);
  double q[3] = {1, 2, 2}; /* length 3 */
  g_assert_cmpint(lw_desc_move_point(d, 0, 1, q), ==, 1);
  b = &d->bodies[0];
  double m = 3 * LW_LINK_DENSITY, r = 0.5 * LW_LINK_WIDTH, ax = 0.5 * m * r * r, tr = m * 9 / 12 + 0.25 * m * r * r;
  g_assert_cmpfloat_with_epsilon(b->mass, m, 1e-15);
  for (int i = 0; i < 3; i++) {
    g_assert_cmpfloat_with_epsilon(b->com[i], 0.5 * q[i], 1e-15);
    g_assert_cmpfloat(b->geoms[0].to[i], ==, q[i]);
  }
  /* tensor I (xx yy zz xy xz yz) applied to the axis u gives ax u; its trace is ax + 2 tr */
  const double *I = b->inertia;
  double T[3][3] = {{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}}, u[3] = {1. / 3, 2. / 3, 2. / 3};
  for (int i = 0; i < 3; i++) {
    double s = 0;
    for (int k = 0; k < 3; k++)
      s += T[i][k] * u[k];
    g_assert_cmpfloat_with_epsilon(s, ax * u[i], 1e-14);
  }
  g_assert_cmpfloat_with_epsilon(I[0] + I[1] + I[2], ax + 2 * tr, 1e-14);
  lw_model_free(lwt_compile(d)); /* a valid inertia (positive, triangle inequality) */
  /* a mass typed in: the body is no longer a drawn bar, the move leaves it */
  b->mass = 7;
  double q2[3] = {2, 0, 0};
  g_assert_cmpint(lw_desc_move_point(d, 0, 1, q2), ==, 0);
  g_assert_cmpfloat(d->bodies[0].mass, ==, 7);
  g_assert_cmpfloat(d->bodies[0].geoms[0].to[0], ==, 2);
  g_assert_cmpint(lw_desc_move_point(d, 0, 5, q2), ==, -1);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/io/spline-params", test_spline_params);
  g_test_add_func("/io/spline-eval", test_spline_eval);
  g_test_add_func("/io/roundtrip", test_roundtrip);
  g_test_add_func("/io/extreme-numbers", test_extreme_numbers);
  g_test_add_func("/io/locale", test_locale);
  g_test_add_func("/io/parameters", test_parameters);
  g_test_add_func("/io/remove-objective", test_remove_objective);
  g_test_add_func("/io/move-point-bar", test_move_point_bar);
  return g_test_run();
}
