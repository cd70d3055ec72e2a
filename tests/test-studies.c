/* test-studies.c: the case studies of seed 000 sec. 4 shipped as models
 * (the inverted spatial pendulum on a cart with and without friction, the
 * flyball governor with friction in its top-arm pivots) and what they
 * need of the model format: parameter bindings with a factor and a
 * product, and a pid measuring a distance between two bodies.
 *
 * The models load and run; their gradients agree forward against adjoint
 * and against central differences of the whole run; a short optimization
 * lowers the cost; and the pendulum's two optimized controllers, each run
 * on the other model, show the seed's result: the controller tuned with
 * friction leaves no offset under friction, the one tuned without does. */
#include "lw-test.h"
#include "lw_opt.h"

#include <glib/gstdio.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------- */

/* a model's run to its end, every row kept */
static lw_sim_result run(const lw_desc *d)
{
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  int st = lw_simulate(m, d->solver.t_end, d->solver.step, &r, NULL, NULL);
  if (st != LW_OK)
    g_error("%s: %s", d->name, r.error.msg);
  lw_model_free(m);
  return r;
}

static int out_col(const lw_desc *d, const char *label)
{
  lw_model *m = lwt_compile(d);
  int c = lwt_col(m, label);
  lw_model_free(m);
  return c;
}

/* |(ex, ey)| at row k */
static double error_norm(const lw_desc *d, const lw_sim_result *r, long k)
{
  int cx = out_col(d, "ex"), cy = out_col(d, "ey");
  return hypot(lwt_at(r, k, cx), lwt_at(r, k, cy));
}

static lw_sens_result gradient(const lw_desc *d, lw_sens_method method, double fd_step)
{
  g_autofree int *P = g_new(int, d->nparams + 1);
  for (int i = 0; i < d->nparams; i++)
    P[i] = i;
  int O[1] = {lw_desc_objective_index(d, "psi")};
  lw_sens_options o = {0};
  o.method = method;
  o.nparams = d->nparams;
  o.params = P;
  o.nobj = 1;
  o.objectives = O;
  o.fd_step = fd_step;
  lw_sens_result r;
  if (lw_sensitivity(d, &o, &r))
    g_error("sensitivity of %s failed: %s", d->name, r.error.msg);
  return r;
}

/* forward = adjoint to 1e-8 and both against central differences of the
 * whole run (fd_tol, relative per entry against 1e-2 of the largest) */
static void gradients_agree(const lw_desc *d, double fd_step, double fd_tol)
{
  /* under the sanitizers forward and adjoint only (the differences are
   * plain runs, checked for memory with every other test) */
  lw_sens_result f = gradient(d, LW_SENS_FORWARD, 0), a = gradient(d, LW_SENS_ADJOINT, 0),
                 c = LW_UNDER_SANITIZERS ? a : gradient(d, LW_SENS_FD, fd_step);
  int p = d->nparams;
  double gmax = 0, efa = 0, efd = 0;
  for (int j = 0; j < p; j++)
    gmax = fmax(gmax, fabs(a.gradient[j]));
  g_assert_cmpfloat(gmax, >, 0);
  for (int j = 0; j < p; j++) {
    double ga = a.gradient[j], gf = f.gradient[j], gc = c.gradient[j];
    g_test_message("  %s dpsi/d%s: forward %.10e adjoint %.10e differences %.10e", d->name, d->params[j].name, gf, ga,
                   gc);
    g_assert_true(a.depends[j]);
    efa = fmax(efa, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * gmax));
    efd = fmax(efd, fabs(ga - gc) / fmax(fabs(ga), 1e-2 * gmax));
  }
  g_test_message("%s: forward vs adjoint %.2e, adjoint vs central differences (step %g) %.2e", d->name, efa, fd_step,
                 efd);
  g_assert_cmpfloat(efa, <=, 1e-8);
  g_assert_cmpfloat(efd, <=, fd_tol);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  if (!LW_UNDER_SANITIZERS)
    lw_sens_result_clear(&c);
}

static double param_value(const lw_desc *d, const char *name)
{
  int j = lw_desc_param_index(d, name);
  g_assert_cmpint(j, >=, 0);
  return d->params[j].value;
}

/* ---- the models load and run --------------------------------------------- */

/* each pendulum starts tilted (e != 0) and is balanced by its PIDs: the
 * error falls tenfold over the run; the measured distance is the rod's
 * centre of mass minus the cart's centre, as the position outputs give */
static void test_pendulum_runs(void)
{
  const char *names[] = {"inverted-pendulum-friction.json", "inverted-pendulum.json"};
  for (int i = 0; i < 2; i++) {
    lw_desc *d = lwt_read(names[i]);
    lw_sim_result r = run(d);
    double e0 = error_norm(d, &r, 0), e1 = error_norm(d, &r, r.rows - 1);
    g_test_message("%s: |e| %.3e at 0, %.3e at %g s", names[i], e0, e1, d->solver.t_end);
    g_assert_cmpfloat(e0, >, 0.05);
    g_assert_cmpfloat(e1, <, 0.1 * e0);
    /* at the start the cart is at the origin: e = x_cart - x_G, and the
     * tip (1 m from the pivot) leans twice as far as G (0.5 m) */
    int tx = out_col(d, "tip.x"), ex = out_col(d, "ex"), ey = out_col(d, "ey"), ty = out_col(d, "tip.y");
    g_assert_cmpfloat(fabs(lwt_at(&r, 0, ex) + 0.5 * lwt_at(&r, 0, tx)), <, 1e-12);
    g_assert_cmpfloat(fabs(lwt_at(&r, 0, ey) + 0.5 * lwt_at(&r, 0, ty)), <, 1e-12);
    lw_sim_result_clear(&r);
    lw_desc_free(d);
  }
}

/* the governor starts at 15 rad/s with the collar at the servo's h0 =
 * 0.1 m, too slow to hold it there: the collar sinks, the servo's torque
 * speeds the pillar up, and it settles at the speed that holds the collar
 * at h0 (the torque back to zero) */
static void test_governor_runs(void)
{
  lw_desc *d = lwt_read("flyball-governor.json");
  lw_sim_result r = run(d);
  int cz = out_col(d, "z"), cw = out_col(d, "w"), ct = out_col(d, "tau");
  long n = r.rows - 1, k = (long)(0.9 * (double)n);
  double tmax = 0;
  for (long i = 0; i <= n; i++)
    tmax = fmax(tmax, fabs(lwt_at(&r, i, ct)));
  double z = lwt_at(&r, n, cz), w = lwt_at(&r, n, cw), tau = lwt_at(&r, n, ct);
  g_test_message("governor: z %.6f m, w %.4f rad/s, servo torque up to %.3g, at the end %.3g N m", z, w, tmax, tau);
  g_assert_cmpfloat(fabs(z - 0.1), <, 1e-4);
  g_assert_cmpfloat(tmax, >, 0.01);
  g_assert_cmpfloat(fabs(tau), <, 0.01 * tmax);
  g_assert_cmpfloat(w, >, 15.5);
  g_assert_cmpfloat(fabs(w - lwt_at(&r, k, cw)), <, 0.01 * fabs(w));
  lw_sim_result_clear(&r);
  lw_desc_free(d);
}

/* ---- bindings with a factor and a product ----------------------------------- */

/* the governor's mirrored and product bindings write factor * value *
 * (the other parameter's value) into their fields, and a written model
 * reads back with the same bindings */
static void test_bindings(void)
{
  lw_desc *d = lwt_read("flyball-governor.json");
  double L1 = param_value(d, "L1"), r3 = param_value(d, "overhang"), off = param_value(d, "offset");
  lw_desc_apply_params(d);
  g_assert_cmpfloat(*lw_desc_field(d, "joints/pivotL/point1/0"), ==, -off);
  g_assert_cmpfloat(*lw_desc_field(d, "joints/pivotR/point1/0"), ==, off);
  g_assert_cmpfloat(*lw_desc_field(d, "joints/elbowR/point1/0"), ==, -r3 * L1);
  g_assert_cmpfloat(*lw_desc_field(d, "joints/pivotR/point2/0"), ==, -L1);
  g_assert_false(lw_param_is_plain(d, lw_desc_param_index(d, "L1"))); /* multiplies 'overhang' */
  g_assert_true(lw_param_is_plain(d, lw_desc_param_index(d, "m_fly")));
  /* the value that a field edit gives back to its parameter */
  int jo = lw_desc_param_index(d, "overhang");
  g_assert_cmpfloat(fabs(lw_param_value_for_field(d, jo, 0, -0.05) - 0.05 / L1), <, 1e-15);
  g_autofree char *dir = g_dir_make_tmp("lw-studies-XXXXXX", NULL);
  g_autofree char *file = g_build_filename(dir, "again.json", NULL);
  g_assert_true(lw_model_write_file(d, file, NULL));
  lw_error err;
  lw_desc *e = lw_model_read_file(file, NULL, &err);
  g_assert_nonnull(e);
  g_remove(file);
  g_rmdir(dir);
  for (int i = 0; i < d->nparams; i++) {
    g_assert_cmpint(e->params[i].ntargets, ==, d->params[i].ntargets);
    for (int k = 0; k < d->params[i].ntargets; k++) {
      g_assert_cmpstr(e->params[i].targets[k], ==, d->params[i].targets[k]);
      g_assert_cmpfloat(lw_param_bind_value(e, &e->params[i], k), ==, lw_param_bind_value(d, &d->params[i], k));
    }
  }
  lw_desc_free(e);
  /* a product with an unknown parameter is refused when compiled */
  lw_param_set_binding(&d->params[jo], 0, -1.0, "nothing");
  lw_model *m = lw_compile(d, &err);
  g_assert_null(m);
  g_assert_nonnull(strstr(err.msg, "not a parameter"));
  lw_desc_free(d);
}

/* bad input is refused with the field's path and a message that says why */
static void test_refused(void)
{
  lw_desc *d = lwt_read("inverted-pendulum.json");
  int f = -1;
  for (int i = 0; i < d->nforces; i++)
    if (!strcmp(d->forces[i].name, "px"))
      f = i;
  g_assert_cmpint(f, >=, 0);
  memset(d->forces[f].feedback[0].axis, 0, sizeof d->forces[f].feedback[0].axis);
  lw_error err;
  g_assert_null(lw_compile(d, &err));
  g_assert_cmpstr(err.path, ==, "forces/px/between/axis");
  g_assert_nonnull(strstr(err.msg, "nonzero"));
  lw_desc_free(d);
  d = lwt_read("inverted-pendulum.json");
  free(d->forces[f].feedback[0].body[0]);
  d->forces[f].feedback[0].body[0] = strdup("nobody");
  g_assert_null(lw_compile(d, &err));
  g_assert_cmpstr(err.path, ==, "forces/px/between/body1");
  lw_desc_free(d);
  static const char *bad_bind =
    "{\"linkwright\": 1, \"name\": \"m\", \"planar\": true,\n"
    " \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": 0.1, \"points\": {\"P\": [1, 0]}}],\n"
    " \"parameters\": [{\"name\": \"x\", \"value\": 1,\n"
    "   \"bind\": [{\"path\": \"bodies/b/points/P/0\", \"factr\": 2}]}]}\n";
  g_assert_null(lw_model_read_data(bad_bind, -1, "bad.json", NULL, &err));
  g_assert_nonnull(strstr(err.msg, "factr"));
}

/* ---- gradients ------------------------------------------------------------- */

/* with friction the differences carry the Newton iteration's stop (the
 * law is steep below v_t): 1e-4 of the largest entry; without, 1e-6 */
static void test_pendulum_gradients(void)
{
  lw_desc *d = lwt_read("inverted-pendulum-friction.json");
  d->solver.tolerance = 1e-14;
  d->solver.constraint_tolerance = 1e-12;
  gradients_agree(d, 1e-5, 1e-4);
  lw_desc_free(d);
  d = lwt_read("inverted-pendulum.json");
  d->solver.tolerance = 1e-14;
  d->solver.constraint_tolerance = 1e-12;
  gradients_agree(d, 1e-5, 1e-6);
  lw_desc_free(d);
}

/* the governor's seven design variables (mirrored points, a product, a
 * mass bound twice) over its first 0.3 s */
static void test_governor_gradients(void)
{
  lw_desc *d = lwt_read("flyball-governor.json");
  d->solver.t_end = 0.3;
  d->solver.tolerance = 1e-13;
  d->solver.constraint_tolerance = 1e-12;
  /* at a step of 1e-5 the differences scatter by 1e-4 (the iteration's
   * stop through the pivots' friction, v_t 1 mm/s), at 1e-4 by 2e-6 */
  gradients_agree(d, 1e-4, 2e-5);
  lw_desc_free(d);
}

/* ---- optimization ------------------------------------------------------------ */

static lw_opt_result optimize(const lw_desc *d, const char *problem, int max_evaluations)
{
  int pi = -1;
  for (int i = 0; i < d->nproblems; i++)
    if (!strcmp(d->problems[i].name, problem))
      pi = i;
  g_assert_cmpint(pi, >=, 0);
  lw_opt_options o = {.algorithm = -1, .gradient = -1, .max_evaluations = max_evaluations};
  lw_opt_result r;
  if (lw_optimize(d, pi, &o, &r) != LW_OK)
    g_error("%s: %s", problem, r.error.msg);
  g_test_message("%s: psi %.9g -> %.9g in %d evaluations (%s)", problem, r.f0, r.f, r.evaluations, r.stop);
  return r;
}

/* a few evaluations of the governor's design lower its cost */
static void test_governor_step(void)
{
  lw_desc *d = lwt_read("flyball-governor.json");
  d->solver.t_end = 0.5;
  lw_opt_result r = optimize(d, "design", 4);
  g_assert_cmpfloat(r.f, <, 0.9 * r.f0);
  lw_opt_result_clear(&r);
  lw_desc_free(d);
}

/* the pendulum's gains tuned with and without friction (the problems as
 * shipped, run to their stop), then each controller run on the model with
 * friction: the friction-aware one (integral-heavy) drives the error to
 * zero, the frictionless one (Ki near 0, a PD) keeps an offset; on the
 * frictionless model both settle */
static void test_pendulum_cross(void)
{
  if (LW_UNDER_SANITIZERS) {
    /* two optimizations to convergence: their code runs under the
     * sanitizers in /studies/pendulum/gradients and test-opt */
    g_test_skip("the optimizations' results are checked by the plain build");
    return;
  }
  lw_desc *df = lwt_read("inverted-pendulum-friction.json"), *dn = lwt_read("inverted-pendulum.json");
  lw_opt_result rf = optimize(df, "pid-friction", 0), rn = optimize(dn, "pid-frictionless", 0);
  g_assert_cmpfloat(rf.f, <, 0.7 * rf.f0);
  g_assert_cmpfloat(rn.f, <, 0.7 * rn.f0);
  g_assert_cmpfloat(rf.pgnorm, <=, 1e-6 * rf.pgnorm0);
  g_assert_cmpfloat(rn.pgnorm, <=, 1e-6 * rn.pgnorm0);
  double ki_f = param_value(rf.optimized, "Ki"), ki_n = param_value(rn.optimized, "Ki");
  g_test_message("Ki with friction %.4g, without %.4g", ki_f, ki_n);
  g_assert_cmpfloat(ki_n, <, 0.05 * ki_f);
  lw_desc *on[2] = {df, dn};
  double end[2][2]; /* [controller: friction-aware, frictionless][model: friction, none] */
  for (int c = 0; c < 2; c++)
    for (int mdl = 0; mdl < 2; mdl++) {
      lw_desc *x = lw_desc_copy(on[mdl]);
      const lw_desc *gains = c == 0 ? rf.optimized : rn.optimized;
      for (int i = 0; i < x->nparams; i++)
        x->params[i].value = param_value(gains, x->params[i].name);
      x->solver.t_end = 3.0;
      lw_sim_result r = run(x);
      end[c][mdl] = error_norm(x, &r, r.rows - 1);
      lw_sim_result_clear(&r);
      lw_desc_free(x);
    }
  g_test_message("|e| at 3 s: friction-aware controller %.3e (friction) %.3e (none); frictionless controller "
                 "%.3e (friction) %.3e (none)",
                 end[0][0], end[0][1], end[1][0], end[1][1]);
  g_assert_cmpfloat(end[0][0], <, 1e-5);
  g_assert_cmpfloat(end[1][0], >, 100 * end[0][0]);
  g_assert_cmpfloat(end[1][0], >, 1e-3);
  g_assert_cmpfloat(end[0][1], <, 1e-5);
  g_assert_cmpfloat(end[1][1], <, 1e-4);
  lw_opt_result_clear(&rf);
  lw_opt_result_clear(&rn);
  lw_desc_free(df);
  lw_desc_free(dn);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/studies/pendulum/runs", test_pendulum_runs);
  g_test_add_func("/studies/governor/runs", test_governor_runs);
  g_test_add_func("/studies/bindings", test_bindings);
  g_test_add_func("/studies/refused", test_refused);
  g_test_add_func("/studies/pendulum/gradients", test_pendulum_gradients);
  g_test_add_func("/studies/governor/gradients", test_governor_gradients);
  g_test_add_func("/studies/governor/step", test_governor_step);
  g_test_add_func("/studies/pendulum/cross", test_pendulum_cross);
  return g_test_run();
}
