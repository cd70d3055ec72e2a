/* test-determinism.c: every shipped model gives the trajectory and the
 * gradients recorded in tests/data/determinism.txt.
 *
 * For each model in models/: the final state (time, q, qd, lambda) of a run
 * to its t_end with its step, the number of steps and Newton iterations, and
 * for each objective its value and its gradient with respect to every
 * parameter, by the discrete adjoint and by forward differentiation.  The
 * file was written by this program before the core was reorganized; a
 * change that should not alter the numbers must reproduce them.
 *
 * States must agree to 1e-12 of their vector's scale (a reordered sum may
 * move the last bits, nothing more), gradients to 1e-10 of the gradient's
 * largest entry (exact parameter derivatives in place of extrapolated
 * differences move the last digits).  The gradient is compared as a
 * vector, not entry by entry: an entry that is nearly zero against the
 * others (the pendulum's swing against its mass, 1e-8 of the length's
 * entry) carries the round-off of the larger terms that cancel in it, and
 * the two methods recorded here already differ entry by entry by up to
 * 2.4e-9 (slider-crank-iftomm) and by 3.9e-10 on an entry of the
 * slider-crank's psi2 whose vector they share to 2.1e-10.
 *
 * The gradients were recorded again when the sensitivities' carry took the
 * position's increment over the predictor instead of the position (the
 * states did not move by a bit): that cut the round-off the old form
 * gathered in proportion to the steps times 1/h, and moved the recorded
 * gradients by up to 1.6e-9 of their largest entry, the size by which the
 * two methods had differed.  Since then they agree to 6.9e-12 (the
 * pendulum's load), and each run checks that they agree to METHOD_TOL.
 * The rigid-spring-beam's were recorded again when the beam's derivative
 * in its element length became exact (the differences it replaced carried
 * 1e-13 of noise, which that gradient magnifies to 1.1e-10).
 * The friction models' were recorded again when joint friction's exact
 * Newton tangent became the default (docs/friction.md sec. 8.4: half the
 * iterations, each step converged to its tolerance; final states moved by
 * up to 7.9e-7, the modified iteration's error).
 * LW_DETERMINISM_RECORD=FILE writes the values instead. */
#include "lw-test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "linkwright.h"
#include "lw_io.h"

#define STATE_TOL 1e-12
#define GRAD_TOL 1e-10
#define METHOD_TOL 2e-11 /* forward against adjoint in the same run */

static GHashTable *recorded; /* key -> GArray of double */
static FILE *record;
static double worst_state, worst_grad;
static double model_grad; /* the current model's largest gradient difference */

static void put(const char *key, const double *v, int n)
{
  if (record) {
    fprintf(record, "%s %d", key, n);
    for (int i = 0; i < n; i++)
      fprintf(record, " %.17g", v[i]);
    fputc('\n', record);
    return;
  }
  GArray *ref = g_hash_table_lookup(recorded, key);
  if (!ref)
    g_error("%s: not recorded in determinism.txt", key);
  g_assert_cmpint((int)ref->len, ==, n);
  const double *r = (const double *)ref->data;
  gboolean grad = g_str_has_prefix(key, "grad ");
  double scale = 1e-300, worst = 0;
  int at = -1;
  for (int i = 0; i < n; i++)
    scale = fmax(scale, fabs(r[i]));
  for (int i = 0; i < n; i++) {
    /* a gradient against its largest entry, a state against its vector's
     * scale (at least 1) */
    double den = grad ? scale : fmax(scale, 1.0);
    double e = r[i] == v[i] ? 0 : fabs(v[i] - r[i]) / den;
    if (e > worst) {
      worst = e;
      at = i;
    }
  }
  if (grad) {
    worst_grad = fmax(worst_grad, worst);
    model_grad = fmax(model_grad, worst);
  }
  else
    worst_state = fmax(worst_state, worst);
  if (worst > (grad ? GRAD_TOL : STATE_TOL))
    g_error("%s: entry %d is %.17g, recorded %.17g (relative difference %.3g)", key, at, v[at], r[at], worst);
}

static void put_int(const char *key, long v)
{
  double x = (double)v;
  if (record) {
    put(key, &x, 1);
    return;
  }
  GArray *ref = g_hash_table_lookup(recorded, key);
  if (!ref)
    g_error("%s: not recorded in determinism.txt", key);
  g_assert_cmpint(ref->len, ==, 1);
  if (g_array_index(ref, double, 0) != x)
    g_error("%s: %ld, recorded %.0f", key, v, g_array_index(ref, double, 0));
}

static void load(const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  if (!g_file_get_contents(path, &text, NULL, &error))
    g_error("%s", error->message);
  recorded = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++) {
    if (!**l || **l == '#')
      continue;
    g_auto(GStrv) f = g_strsplit(*l, " ", -1);
    guint nf = g_strv_length(f), k = 0;
    /* the key runs up to the count: the first field that is an integer
     * and is followed by exactly that many numbers */
    for (k = 1; k < nf; k++) {
      char *end;
      long n = strtol(f[k], &end, 10);
      if (!*end && n >= 0 && (guint)n == nf - k - 1)
        break;
    }
    g_assert_cmpuint(k, <, nf);
    char *count = f[k];
    f[k] = NULL;
    g_autofree char *key = g_strjoinv(" ", f);
    f[k] = count;
    GArray *v = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = k + 1; i < nf; i++) {
      double x = g_ascii_strtod(f[i], NULL);
      g_array_append_val(v, x);
    }
    g_hash_table_insert(recorded, g_steal_pointer(&key), v);
  }
}

static lw_desc *read_model(const char *name)
{
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, name, NULL);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d)
    g_error("%s: %s", name, err.msg);
  return d;
}

static void trajectory(const char *name, const lw_desc *desc)
{
  lw_error err;
  lw_model *m = lw_compile(desc, &err);
  g_assert_nonnull(m);
  lw_data *d = lw_data_new(m);
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  double h = desc->solver.step, t_end = desc->solver.t_end;
  long n = lround(t_end / h), iters = 0;
  for (long k = 0; k < n; k++) {
    lw_step_info info;
    if (lw_step(m, d, &info, &err) != LW_OK)
      g_error("%s: %s", name, err.msg);
    iters += info.iterations;
  }
  int nq = lw_model_nq(m), nc = lw_model_nc(m);
  g_autofree char *ks = g_strdup_printf("steps %s", name);
  put_int(ks, n);
  g_autofree char *ki = g_strdup_printf("iterations %s", name);
  put_int(ki, iters);
  double t = lw_data_time(d);
  g_autofree char *kt = g_strdup_printf("time %s", name);
  put(kt, &t, 1);
  g_autofree char *kq = g_strdup_printf("q %s", name);
  put(kq, lw_data_q(d), nq);
  g_autofree char *kv = g_strdup_printf("qd %s", name);
  put(kv, lw_data_qd(d), nq);
  g_autofree char *kl = g_strdup_printf("lambda %s", name);
  put(kl, lw_data_lambda(d), nc);
  lw_data_free(d);
  lw_model_free(m);
}

/* the gradients of every objective by method, recorded or checked; returned
 * (objectives x parameters, g_free) */
static double *gradients(const char *name, const lw_desc *desc, lw_sens_method method)
{
  int p = desc->nparams;
  if (p == 0 || desc->nobjectives == 0)
    return NULL;
  int *params = g_new(int, p), *objs = g_new(int, desc->nobjectives);
  for (int j = 0; j < p; j++)
    params[j] = j;
  for (int k = 0; k < desc->nobjectives; k++)
    objs[k] = k;
  lw_sens_options opt = {.method = method, .nparams = p, .params = params, .nobj = desc->nobjectives,
                         .objectives = objs, .threads = 1};
  lw_sens_result r;
  if (lw_sensitivity(desc, &opt, &r) != LW_OK)
    g_error("%s: %s", name, r.error.msg);
  for (int k = 0; k < desc->nobjectives; k++) {
    g_autofree char *kv = g_strdup_printf("value %s %s %s", name, desc->objectives[k].name,
                                          lw_sens_method_name(method));
    put(kv, &r.value[k], 1);
    g_autofree char *kg = g_strdup_printf("grad %s %s %s", name, desc->objectives[k].name,
                                          lw_sens_method_name(method));
    put(kg, r.gradient + (size_t)k * p, p);
  }
  double *g = g_memdup2(r.gradient, sizeof(double) * (size_t)p * desc->nobjectives);
  lw_sens_result_clear(&r);
  g_free(params);
  g_free(objs);
  return g;
}

/* forward against adjoint, each objective's gradient as a vector against
 * its largest entry */
static void methods_agree(const char *name, const lw_desc *desc, const double *ga, const double *gf)
{
  int p = desc->nparams;
  double worst = 0;
  for (int k = 0; k < desc->nobjectives; k++) {
    double scale = 1e-300, e = 0;
    for (int j = 0; j < p; j++)
      scale = fmax(scale, fabs(ga[(size_t)k * p + j]));
    for (int j = 0; j < p; j++)
      e = fmax(e, fabs(ga[(size_t)k * p + j] - gf[(size_t)k * p + j]) / scale);
    worst = fmax(worst, e);
  }
  g_test_message("%s: forward against adjoint %.3g (of the gradient's largest entry)", name, worst);
  g_assert_cmpfloat(worst, <=, METHOD_TOL);
}

static void test_model(gconstpointer data)
{
  const char *name = data;
  lw_desc *d = read_model(name);
  /* the record predates events: a run through them is checked against
   * closed forms in tests/test-events.c */
  if (d->nevents) {
    g_test_skip("a model with events (tests/test-events.c)");
    lw_desc_free(d);
    return;
  }
  model_grad = 0;
  trajectory(name, d);
  g_autofree double *ga = gradients(name, d, LW_SENS_ADJOINT);
  /* forward differentiation of every parameter column: the shorter models */
  g_autofree double *gf = d->nparams <= 64 ? gradients(name, d, LW_SENS_FORWARD) : NULL;
  if (ga && gf)
    methods_agree(name, d, ga, gf);
  g_test_message("%s: largest gradient difference from the recorded values %.3g (of the gradient's largest entry)",
                 name, model_grad);
  lw_desc_free(d);
}

static void report(void)
{
  g_test_message("largest difference from the recorded values: states %.3g (of their scale), gradients %.3g "
                 "(of their largest entry)",
                 worst_state, worst_grad);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  const char *rec = g_getenv("LW_DETERMINISM_RECORD");
  if (rec && *rec) {
    record = fopen(rec, "w");
    g_assert_nonnull(record);
    fprintf(record, "# final states and gradients of every model in models/ (tests/test-determinism.c)\n");
  } else
    load(LW_DETERMINISM_FILE);
  g_autoptr(GDir) dir = g_dir_open(LW_MODELS_DIR, 0, NULL);
  g_assert_nonnull(dir);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *n;
  while ((n = g_dir_read_name(dir)))
    if (g_str_has_suffix(n, ".json"))
      g_ptr_array_add(names, g_strdup(n));
  /* in name order */
  for (guint i = 0; i + 1 < names->len; i++)
    for (guint j = i + 1; j < names->len; j++)
      if (strcmp(g_ptr_array_index(names, i), g_ptr_array_index(names, j)) > 0) {
        gpointer t = names->pdata[i];
        names->pdata[i] = names->pdata[j];
        names->pdata[j] = t;
      }
  for (guint i = 0; i < names->len; i++) {
    g_autofree char *path = g_strdup_printf("/determinism/%s", (char *)g_ptr_array_index(names, i));
    g_test_add_data_func(path, g_ptr_array_index(names, i), test_model);
  }
  g_test_add_func("/determinism/report", report);
  int rc = g_test_run();
  if (record)
    fclose(record);
  g_ptr_array_unref(names);
  return rc;
}
