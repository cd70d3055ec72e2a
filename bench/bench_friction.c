/* bench-friction: the cost of joint friction in the step and in the
 * sensitivities, on a planar slider-crank with friction in its slider
 * (crank 0.1 m, rod 0.3 m, 2 kg slider, proportional speed control near
 * -10 rad/s, 1 s at h = 1 ms: tests/data/slider-crank-friction-planar.json,
 * which tests/test-friction-sens.c reads too):
 *   - a step with friction against the same model without it (target
 *     <= 1.3x), and the same with friction's exact Newton tangent in every
 *     iteration (lw_opt.friction_exact);
 *   - the adjoint gradient (6 parameters, one objective) in simulations
 *     of the model with friction (target <= 2.5x), and the forward's;
 * then the same for the spatial co-design model
 * (models/slider-crank-friction.json, p = 5).
 * Best time of N repetitions, in the process's CPU time (the machine may
 * be shared: wall time then counts other processes' work too).
 *
 *   bench-friction [--quick]
 *   bench-friction --once MODEL.json simulate|adjoint|forward [--no-friction] [--exact]
 * The second form runs one simulation or gradient of MODEL (objective 0,
 * every parameter), for an instruction count under callgrind; --exact: the
 * simulation with friction's exact Newton tangent in every iteration. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "linkwright.h"
#include "lw_io.h"

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the step with friction's exact Newton tangent in every iteration
 * (lw_opt.friction_exact; --exact) */
static int exact_tangent;

/* best time of nrep simulations of d */
static double sim_time(const lw_desc *d, int nrep, long *iterations)
{
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  if (!m) {
    printf("compile failed: %s\n", err.msg);
    exit(1);
  }
  if (exact_tangent) {
    lw_opt o = *lw_model_opt(m);
    o.friction_exact = 1;
    lw_model_set_opt(m, &o, &err);
  }
  double best = INFINITY;
  for (int k = 0; k < nrep; k++) {
    lw_sim_result r;
    double t0 = now_s();
    if (lw_simulate(m, d->solver.t_end, d->solver.step, &r, NULL, NULL)) {
      printf("simulation failed: %s\n", r.error.msg);
      exit(1);
    }
    best = fmin(best, now_s() - t0);
    *iterations = r.newton_iterations;
    lw_sim_result_clear(&r);
  }
  lw_model_free(m);
  return best;
}

/* best wall time of nrep gradients of objective 0 by method */
static double grad_time(const lw_desc *d, lw_sens_method method, int nrep, double *g)
{
  int P[16], O[1] = {0};
  for (int j = 0; j < d->nparams; j++)
    P[j] = j;
  lw_sens_options o;
  memset(&o, 0, sizeof o);
  o.method = method;
  o.nparams = d->nparams;
  o.params = P;
  o.nobj = 1;
  o.objectives = O;
  o.threads = 1;
  double best = INFINITY;
  for (int k = 0; k < nrep; k++) {
    lw_sens_result r;
    double t0 = now_s();
    if (lw_sensitivity(d, &o, &r)) {
      printf("sensitivity failed: %s\n", r.error.msg);
      exit(1);
    }
    best = fmin(best, now_s() - t0);
    memcpy(g, r.gradient, sizeof(double) * (size_t)d->nparams);
    lw_sens_result_clear(&r);
  }
  return best;
}

/* a copy of d without its joint friction, the parameters bound to it and
 * the friction outputs */
static lw_desc *without_friction(const lw_desc *d)
{
  lw_desc *free_d = lw_desc_copy(d);
  for (int j = 0; j < free_d->njoints; j++)
    free_d->joints[j].has_friction = 0;
  for (int j = d->nparams; j-- > 0;)
    for (int k = 0; k < d->params[j].ntargets; k++)
      if (strstr(d->params[j].targets[k], "/friction/")) {
        char path[300];
        snprintf(path, sizeof path, "parameters/%s", d->params[j].name);
        lw_desc_remove(free_d, path);
        break;
      }
  for (int k = free_d->noutputs; k-- > 0;)
    if (free_d->outputs[k].type >= LW_OUT_FRICTION_FORCE) {
      char path[300];
      snprintf(path, sizeof path, "outputs/%s", free_d->outputs[k].name);
      lw_desc_remove(free_d, path);
    }
  return free_d;
}

/* the step's and the gradients' costs of model d against d without its friction */
static void bench_model(lw_desc *d, const char *title, int nrep)
{
  lw_desc *free_d = without_friction(d);
  long it_f = 0, it_0 = 0;
  double tf = sim_time(d, nrep, &it_f), t0 = sim_time(free_d, nrep, &it_0);
  long N = lround(d->solver.t_end / d->solver.step);
  printf("%s, %ld steps of %g s (best of %d)\n", title, N, d->solver.step, nrep);
  printf("  simulation with slider friction:    %8.3f ms  %7.2f us/step  %ld Newton iterations\n", 1e3 * tf,
         1e6 * tf / N, it_f);
  printf("  simulation without friction:        %8.3f ms  %7.2f us/step  %ld Newton iterations\n", 1e3 * t0,
         1e6 * t0 / N, it_0);
  printf("  friction step / frictionless step:  %8.2f x (target <= 1.3); per Newton iteration %.2f x\n", tf / t0,
         (tf / it_f) / (t0 / it_0));
  long it_e = 0;
  exact_tangent = 1;
  double te = sim_time(d, nrep, &it_e);
  exact_tangent = 0;
  printf("  with the exact tangent (friction_exact): %8.3f ms  %ld Newton iterations, %.2f x the frictionless step\n",
         1e3 * te, it_e, te / t0);
  double ga[16], gf[16];
  double ta = grad_time(d, LW_SENS_ADJOINT, nrep, ga), tw = grad_time(d, LW_SENS_FORWARD, nrep, gf);
  double e = 0, s = 0;
  for (int j = 0; j < d->nparams; j++) {
    e = fmax(e, fabs(ga[j] - gf[j]));
    s = fmax(s, fabs(ga[j]));
  }
  printf("  adjoint gradient (p = %d):          %8.3f ms  %6.2f simulations (target <= 2.5)\n", d->nparams,
         1e3 * ta, ta / tf);
  printf("  forward gradient (p = %d, 1 thread): %8.3f ms  %6.2f simulations\n", d->nparams, 1e3 * tw, tw / tf);
  printf("  forward vs adjoint: %.2e of the largest component\n", e / s);
  double t0a = grad_time(free_d, LW_SENS_ADJOINT, nrep, ga);
  printf("  without friction: adjoint gradient (p = %d) %8.3f ms  %6.2f simulations\n", free_d->nparams, 1e3 * t0a,
         t0a / t0);
  lw_desc_free(free_d);
}

/* one simulation or gradient of the model in file (without its friction
 * when nofric), for callgrind */
static int once(const char *file, const char *what, int nofric)
{
  lw_error err;
  lw_desc *d = lw_model_read_file(file, NULL, &err);
  if (!d) {
    printf("%s\n", err.msg);
    return 1;
  }
  if (nofric) {
    lw_desc *f = without_friction(d);
    lw_desc_free(d);
    d = f;
  }
  long it = 0;
  double g[16];
  if (!strcmp(what, "simulate")) {
    double t = sim_time(d, 1, &it);
    printf("%s: %.3f ms, %ld Newton iterations\n", file, 1e3 * t, it);
  }
  else {
    double t = grad_time(d, strcmp(what, "forward") ? LW_SENS_ADJOINT : LW_SENS_FORWARD, 1, g);
    printf("%s: %s gradient %.3f ms\n", file, what, 1e3 * t);
  }
  lw_desc_free(d);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 4 && !strcmp(argv[1], "--once")) {
    for (int k = 4; k < argc; k++)
      exact_tangent |= !strcmp(argv[k], "--exact");
    return once(argv[2], argv[3], argc > 4 && !strcmp(argv[4], "--no-friction"));
  }
  int nrep = argc > 1 && !strcmp(argv[1], "--quick") ? 3 : 15;
  lw_error err;
  lw_desc *d = lw_model_read_file(LW_SOURCE_ROOT "/tests/data/slider-crank-friction-planar.json", NULL, &err);
  if (!d) {
    printf("%s\n", err.msg);
    return 1;
  }
  bench_model(d, "planar slider-crank", nrep);
  lw_desc_free(d);
  d = lw_model_read_file(LW_SOURCE_ROOT "/models/slider-crank-friction.json", NULL, &err);
  if (!d) {
    printf("%s\n", err.msg);
    return 1;
  }
  bench_model(d, "spatial slider-crank co-design (models/slider-crank-friction.json)", nrep < 5 ? 1 : 3);
  lw_desc_free(d);
  return 0;
}
