/* The variational integrator (integ/vi_step.c) on the shipped
 * rigid-spring-beam (models/rigid-spring-beam.json): a rigid bar and a
 * stiff one-element beam joined by a spring, the beam's axial stiffness
 * h^2/4 K outweighing its slopes' mass terms in the step's Newton matrix.
 *
 * The exact Newton matrix of step (a) is the Jacobian of its residual
 * (against central differences at the start of the step where the
 * iteration once stopped, t = 0.338 s); the whole 1 s runs at h = 1 ms
 * and 0.5 ms with few Newton iterations a step (the matrix kept from the
 * predictor took 8.7 at 1 ms, up to 13, and a constraint violation at
 * round-off, 4e-25 then 2e-16, was taken for divergence at 0.338 s); and
 * the objective's forward and adjoint gradients agree with each other
 * and with central differences. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_forces.h"
#include "lin/lw_jvp.h"

#include <stdio.h>
#include <string.h>

static lw_model *open_variational(double h)
{
  lw_model *m = lwt_open("rigid-spring-beam.json");
  lw_opt o = *lw_model_opt(m);
  snprintf(o.integrator, sizeof o.integrator, "%s", "variational");
  o.step = h;
  lw_error err;
  if (lw_model_set_opt(m, &o, &err) != LW_OK)
    g_error("%s: %s", err.path, err.msg);
  return m;
}

static double vmax(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s = fmax(s, fabs(x[i]));
  return s;
}

/* the forces' part of the residual of (a) at q1 from the state (qn, t_n):
 * r = M (q1 - q_n) - h^2/2 Q((q_n + q1)/2, (q1 - q_n)/h, t_n + h/2) (the
 * momentum and multipliers' terms are constant in q1) */
static void step_residual(const lw_model *m, lw_data *d, const double *M, const double *qn, const double *q1,
                          double tn, double h, double *qm, double *v, double *Q, double *r)
{
  int nq = lw_model_nq(m);
  for (int i = 0; i < nq; i++) {
    qm[i] = 0.5 * (qn[i] + q1[i]);
    v[i] = (q1[i] - qn[i]) / h;
  }
  memset(Q, 0, sizeof(double) * (size_t)nq);
  lw_forces_eval(m, d, qm, v, tn + 0.5 * h, Q, NULL, 0.0, 0.0);
  for (int i = 0; i < nq; i++) {
    double s = 0;
    for (int j = 0; j < nq; j++)
      s += M[(size_t)j * nq + i] * (q1[j] - qn[j]);
    r[i] = s - 0.5 * h * h * Q[i];
  }
}

/* the exact path's Newton matrix M + h^2/4 KC (KC = -dQ/dq - 2/h dQ/dv at
 * the midpoint, lw_lin_matrices as the step's lw_lin_blocks) against
 * central differences of the residual, column by column, at the state of
 * 0.337 s and the predictor q_n + h qd_n */
static void test_jacobian(void)
{
  const double h = 1e-3;
  lw_model *m = open_variational(h);
  int nq = lw_model_nq(m), nc = lw_model_nc(m);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  for (int k = 0; k < 337; k++)
    if (lw_step(m, d, NULL, &err) != LW_OK)
      g_error("step %d: %s", k, err.msg);
  double tn = lw_data_time(d);
  double *qn = g_new0(double, nq), *q1 = g_new0(double, nq), *M = g_new0(double, (size_t)nq * nq);
  double *qm = g_new0(double, nq), *v = g_new0(double, nq), *Q = g_new0(double, nq);
  double *rp = g_new0(double, nq), *rm = g_new0(double, nq), *qs = g_new0(double, nq);
  double *A = g_new0(double, (size_t)nq * nq), *Ad = g_new0(double, (size_t)nq * nq), *C = g_new0(double, (size_t)nq * nq);
  double *RV = g_new0(double, (size_t)nc * nq + 1), *RA = g_new0(double, (size_t)nc * nq + 1),
         *RAd = g_new0(double, (size_t)nc * nq + 1), *l0 = g_new0(double, nc + 1);
  memcpy(qn, lw_data_q(d), sizeof(double) * nq);
  for (int i = 0; i < nq; i++) {
    q1[i] = qn[i] + h * lw_data_qd(d)[i];
    qm[i] = 0.5 * (qn[i] + q1[i]);
    v[i] = (q1[i] - qn[i]) / h;
  }
  lw_eval_mass_dense(m, M);
  double *H[3] = {NULL, NULL, NULL};
  lw_lin_point lp = {qm, v, v, v, {l0, l0, l0}, tn + 0.5 * h};
  g_assert_cmpint(lw_lin_matrices(m, d, &lp, 2.0 / h, H, nq, RV, RA, RAd, nc, A, nq, C, nq), ==, 0);
  for (size_t k = 0; k < (size_t)nq * nq; k++)
    A[k] = M[k] + 0.25 * h * h * A[k];
  for (int j = 0; j < nq; j++) {
    double e = 1e-6 * fmax(1.0, fabs(q1[j]));
    memcpy(qs, q1, sizeof(double) * nq);
    qs[j] = q1[j] + e;
    step_residual(m, d, M, qn, qs, tn, h, qm, v, Q, rp);
    qs[j] = q1[j] - e;
    step_residual(m, d, M, qn, qs, tn, h, qm, v, Q, rm);
    for (int i = 0; i < nq; i++)
      Ad[(size_t)j * nq + i] = (rp[i] - rm[i]) / (2 * e);
  }
  double diff = 0, mass = vmax(M, nq * nq);
  for (size_t k = 0; k < (size_t)nq * nq; k++)
    diff = fmax(diff, fabs(A[k] - Ad[k]));
  g_test_message("t = %.3f s: Newton matrix against central differences of the residual: %.2e (scale %.3g; "
                 "mass matrix's largest entry %.3g)",
                 tn, diff, vmax(Ad, nq * nq), mass);
  /* the stiffness outweighs the mass terms (what makes the iteration
   * sensitive to a matrix kept from an earlier iterate) */
  g_assert_cmpfloat(vmax(Ad, nq * nq), >, 2 * mass);
  g_assert_cmpfloat(diff, <, 1e-7 * vmax(Ad, nq * nq));
  g_free(qn), g_free(q1), g_free(M), g_free(qm), g_free(v), g_free(Q), g_free(rp), g_free(rm), g_free(qs);
  g_free(A), g_free(Ad), g_free(C), g_free(RV), g_free(RA), g_free(RAd), g_free(l0);
  lw_data_free(d);
  lw_model_free(m);
}

/* the model's t_end = 1 s at step h, one step at a time: every step
 * converges, in at most max_it Newton iterations and mean_it on average
 * (each counts the iteration from the full predictor that the beam's
 * unresolved modes throw back to q_n + h qd_n) */
static void check_run(double h, double mean_it, int max_it)
{
  lw_model *m = open_variational(h);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  long n = lround(lw_model_opt(m)->t_end / h), total = 0;
  int worst = 0;
  for (long k = 0; k < n; k++) {
    lw_step_info info;
    if (lw_step(m, d, &info, &err) != LW_OK)
      g_error("h = %g, step %ld: %s", h, k + 1, err.msg);
    total += info.iterations;
    worst = MAX(worst, info.iterations);
  }
  g_test_message("h = %g: %ld steps to t = %.4f s, %ld Newton iterations (%.2f a step, at most %d), "
                 "constraint violation %.2e",
                 h, n, lw_data_time(d), total, (double)total / n, worst, lw_constraint_residual(m, d));
  g_assert_cmpfloat(fabs(lw_data_time(d) - 1.0), <, 1e-9);
  g_assert_cmpfloat(lw_constraint_residual(m, d), <, 1e-10);
  g_assert_cmpfloat((double)total / n, <=, mean_it);
  g_assert_cmpint(worst, <=, max_it);
  lw_data_free(d);
  lw_model_free(m);
}

/* 5.66 and 4.86 iterations a step (6 and 5 at most); the kept matrix took
 * 8.7 (13) and 6.1 (10) before the runs failed at 0.338 and 0.8695 s */
static void test_run_1ms(void) { check_run(1e-3, 6.0, 7); }
static void test_run_half_ms(void) { check_run(5e-4, 5.5, 6); }

/* the objective dB's gradient with respect to X_D and Y_D over the whole
 * 1 s: forward and adjoint agree to 3e-10 of the gradient's largest entry
 * (7.4e-11 seen, 5e-16 on d/dX_D, the same whatever the Newton tolerance,
 * 1e-8 to 1e-12: round-off that the small objective, 1.9e-7, magnifies;
 * ALI3-P's is 1.1e-11), each entry central differences of 1e-5 to 1e-6
 * (3e-8 seen) */
static void test_gradients(void)
{
  lw_desc *d = lwt_read("rigid-spring-beam.json");
  snprintf(d->solver.integrator, sizeof d->solver.integrator, "%s", "variational");
  const char *names[2] = {"XD", "YD"};
  int params[2], obj = lw_desc_objective_index(d, "dB");
  for (int j = 0; j < 2; j++)
    g_assert_cmpint(params[j] = lw_desc_param_index(d, names[j]), >=, 0);
  lw_sens_method methods[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  double g[3][2], value = 0;
  for (int k = 0; k < 3; k++) {
    lw_sens_options opt = {.method = methods[k], .nparams = 2, .params = params, .nobj = 1, .objectives = &obj,
                           .threads = 1, .fd_step = k == 2 ? 1e-5 : 0.0};
    lw_sens_result r;
    if (lw_sensitivity(d, &opt, &r) != LW_OK)
      g_error("%s: %s", lw_sens_method_name(methods[k]), r.error.msg);
    for (int j = 0; j < 2; j++)
      g[k][j] = r.gradient[j];
    value = r.value[0];
    lw_sens_result_clear(&r);
  }
  g_assert_cmpfloat(value, >, 0);
  double gmax = fmax(fabs(g[0][0]), fabs(g[0][1]));
  for (int j = 0; j < 2; j++) {
    g_test_message("dB = %.6g: d/d %s: forward %.12g adjoint %.12g differences %.12g (%.2g, %.2g)", value, names[j],
                   g[0][j], g[1][j], g[2][j], fabs(g[0][j] - g[1][j]) / fabs(g[0][j]),
                   fabs(g[0][j] - g[2][j]) / fabs(g[2][j]));
    g_assert_cmpfloat(g[0][j], !=, 0);
    g_assert_cmpfloat(fabs(g[0][j] - g[1][j]), <=, 3e-10 * gmax);
    g_assert_cmpfloat(fabs(g[0][j] - g[2][j]), <=, 1e-6 * fabs(g[2][j]));
  }
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/vi-rsb/jacobian", test_jacobian);
  g_test_add_func("/vi-rsb/run-1ms", test_run_1ms);
  g_test_add_func("/vi-rsb/run-0.5ms", test_run_half_ms);
  g_test_add_func("/vi-rsb/gradients", test_gradients);
  return g_test_run();
}
