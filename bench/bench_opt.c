/* bench-opt: design optimization with exact (adjoint) gradients against the
 * same optimizer with central-difference gradients (2p + 1 simulations per
 * gradient), for the shipped problems; and the cost of one gradient as the
 * number of parameters grows (a force spline with p = 10, 100, 1000 values
 * on the double pendulum on a cart): simulation, adjoint and forward.
 *
 *   bench-opt [--quick | --scaling | --problem MODEL PROBLEM]
 *     --quick: central differences stop after 8 evaluations;
 *     --scaling: the gradient cost table alone;
 *     --problem: one problem of one shipped model, both ways */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "linkwright.h"
#include "lw_io.h"
#include "lw_opt.h"

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static lw_desc *load(const char *name)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/models/%s", LW_SOURCE_ROOT, name);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d) {
    printf("cannot read %s: %s\n", path, err.msg);
    exit(1);
  }
  return d;
}

static void optimize_both(const char *model, const char *problem, int quick)
{
  lw_desc *d = load(model);
  int pi = lw_desc_problem_index(d, problem);
  lw_opt_result r[2];
  for (int k = 0; k < 2; k++) {
    lw_opt_options o = {.algorithm = -1, .gradient = k ? LW_SENS_FD : LW_SENS_ADJOINT};
    if (k && quick)
      o.max_evaluations = 8;
    if (lw_optimize(d, pi, &o, &r[k])) {
      printf("%s: %s\n", problem, r[k].error.msg);
      exit(1);
    }
  }
  double pe[2] = {r[0].wall_time_s / r[0].evaluations, r[1].wall_time_s / r[1].evaluations};
  printf("%-16s %5d  adjoint: %4d evaluations %8.2f s  J %.3e | differences: %4d evaluations %8.2f s  J %.3e | "
         "time ratio %6.1fx, per evaluation %6.1fx%s\n",
         problem, r[0].n, r[0].evaluations, r[0].wall_time_s, r[0].f, r[1].evaluations, r[1].wall_time_s, r[1].f,
         r[1].wall_time_s / r[0].wall_time_s, pe[1] / pe[0], quick ? " (differences stopped by max_evaluations = 8)" : "");
  lw_opt_result_clear(&r[0]);
  lw_opt_result_clear(&r[1]);
  lw_desc_free(d);
}

/* the cart's force spline with p values and one parameter per value */
static lw_desc *cart_with_spline(int p)
{
  lw_desc *d = load("cart-pendulum.json");
  lw_force_desc *f = &d->forces[0];
  free(f->func.knots);
  f->func.knots = calloc((size_t)p, sizeof(double));
  f->func.n = p;
  for (int k = 0; k < p; k++) /* a nonzero force, so the run is not at rest */
    f->func.knots[k] = 2.0 * sin(6.0 * k / (p - 1.0));
  for (int i = 0; i < d->nparams; i++) {
    free(d->params[i].name);
    for (int k = 0; k < d->params[i].ntargets; k++)
      free(d->params[i].targets[k]);
    free(d->params[i].targets);
  }
  d->nparams = 0;
  /* the model's problems are not used here */
  lw_desc *none = lw_desc_new();
  lw_problem_desc *keep = d->problems;
  int nkeep = d->nproblems;
  d->problems = none->problems;
  d->nproblems = 0;
  none->problems = keep;
  none->nproblems = nkeep;
  lw_desc_free(none);
  for (int k = 0; k < p; k++) {
    char name[32], target[64];
    snprintf(name, sizeof name, "u[%d]", k);
    snprintf(target, sizeof target, "forces/push/function/%d", k);
    lw_param_desc *pp = lw_desc_add_param(d, name, target);
    pp->value = f->func.knots[k];
  }
  return d;
}

/* threads: lw_sens_options.threads (forward: 1 one thread, 0 the simulation stepped alongside) */
static double best_of(int nrep, const lw_desc *d, lw_sens_method m, int p, size_t *peak, int threads)
{
  int *P = malloc(sizeof(int) * (size_t)(p > 0 ? p : 1));
  for (int j = 0; j < p; j++)
    P[j] = j;
  int O[1] = {lw_desc_objective_index(d, "swing")};
  double best = INFINITY;
  for (int r = 0; r < nrep; r++) {
    lw_sens_options o = {.method = m, .nparams = p, .params = P, .nobj = 1, .objectives = O, .threads = threads};
    lw_sens_result res;
    double t0 = now_s();
    if (lw_sensitivity(d, &o, &res)) {
      printf("sensitivity failed: %s\n", res.error.msg);
      exit(1);
    }
    best = fmin(best, now_s() - t0);
    if (peak)
      *peak = res.peak_bytes;
    lw_sens_result_clear(&res);
  }
  free(P);
  return best;
}

static void scaling(void)
{
  printf("\ngradient cost against the number of parameters: double pendulum on a cart, 3 s at h = 5 ms,\n"
         "a force spline with p values (one parameter each); the four timed in turn, best of 7 rounds;\n"
         "ratios to one simulation; forward on one thread, and with the simulation stepped on a\n"
         "second thread alongside (wall time)\n");
  printf("%6s %10s %10s %8s %10s %8s %10s %8s %12s\n", "p", "sim [s]", "adjoint", "ratio", "fwd 1 th", "ratio",
         "fwd 2 th", "ratio", "adjoint mem");
  double adj10 = 0, adj1000 = 0, rel10 = 0, rel1000 = 0;
  int ps[3] = {10, 100, 1000};
  for (int i = 0; i < 3; i++) {
    int p = ps[i];
    lw_desc *d = cart_with_spline(p);
    lw_error err;
    lw_model *m = lw_compile(d, &err);
    /* the simulation and the gradients in turn, round after round, best of
     * each: a slower minute of the host falls on all of them */
    double ts = INFINITY, ta = INFINITY, tf = INFINITY, tf2 = INFINITY;
    size_t peak = 0;
    for (int r = 0; r < 7; r++) {
      lw_sim_result sr;
      double t0 = now_s();
      lw_simulate(m, d->solver.t_end, d->solver.step, &sr, NULL, NULL);
      ts = fmin(ts, now_s() - t0);
      lw_sim_result_clear(&sr);
      ta = fmin(ta, best_of(1, d, LW_SENS_ADJOINT, p, &peak, 1));
      tf = fmin(tf, best_of(1, d, LW_SENS_FORWARD, p, NULL, 1));
      tf2 = fmin(tf2, best_of(1, d, LW_SENS_FORWARD, p, NULL, 0));
    }
    lw_model_free(m);
    printf("%6d %10.5f %10.5f %7.1fx %10.5f %7.1fx %10.5f %7.1fx %9.2f MB   (1 + 0.2 p = %.0f)\n", p, ts, ta,
           ta / ts, tf, tf / ts, tf2, tf2 / ts, peak / 1e6, 1 + 0.2 * p);
    if (p == 10)
      adj10 = ta, rel10 = ta / ts;
    if (p == 1000)
      adj1000 = ta, rel1000 = ta / ts;
    lw_desc_free(d);
  }
  /* in simulations of the same row (timed in the same rounds), so that a
   * slower minute during one row does not show as growth; in seconds too */
  printf("adjoint cost from p = 10 to p = 1000: %.2fx in simulations (%.2f to %.2f), %.2fx in seconds\n",
         rel1000 / rel10, rel10, rel1000, adj1000 / adj10);
}

int main(int argc, char **argv)
{
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  if (argc > 1 && !strcmp(argv[1], "--scaling")) {
    scaling();
    return 0;
  }
  if (argc > 3 && !strcmp(argv[1], "--problem")) {
    optimize_both(argv[2], argv[3], 0);
    return 0;
  }
  printf("bench-opt: problem, design variables, the same optimizer with adjoint and with central-difference "
         "gradients\n");
  optimize_both("five-bar.json", "static-springs", quick);
  optimize_both("slider-crank-codesign.json", "codesign", quick);
  optimize_both("slider-crank-codesign.json", "codesign-pi", quick);
  optimize_both("cart-pendulum.json", "swing-up", quick);
  optimize_both("cart-pendulum.json", "swing-up-stop", 1);
  scaling();
  return 0;
}
