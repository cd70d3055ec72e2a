/* bench-sens: the cost of gradients against the cost of one simulation.
 *
 * For the five-bar (seed 002 sec. 7.1, h = 1 ms, 5 s, p = 5 parameters) and
 * the spatial slider-crank with spring (sec. 7.2, p = 4): one simulation,
 * the objective evaluation alone, forward and discrete adjoint gradients
 * (one objective and all objectives), central finite differences (2p + 1
 * simulations) and the adjoint with checkpointing; ratios to one
 * simulation, the memory the adjoint keeps, and the agreement of the
 * gradients.  Best of N repetitions.
 *
 *   bench-sens [--quick] */
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
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double sim_time(const lw_desc *d, int nrep)
{
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  if (!m) {
    printf("compile failed: %s\n", err.msg);
    exit(1);
  }
  double best = INFINITY;
  for (int k = 0; k < nrep; k++) {
    lw_sim_result r;
    double t0 = now_s();
    int st = lw_simulate(m, d->solver.t_end, d->solver.step, &r, NULL, NULL);
    double t = now_s() - t0;
    if (st) {
      printf("simulation failed: %s\n", r.error.msg);
      exit(1);
    }
    lw_sim_result_clear(&r);
    best = fmin(best, t);
  }
  lw_model_free(m);
  return best;
}

typedef struct {
  double time;
  double grad[64];
  size_t bytes;
  int recomputed;
} run;

static run sens(const lw_desc *d, lw_sens_method method, int nobj, size_t mem, int nrep)
{
  int P[32], O[8];
  for (int j = 0; j < d->nparams; j++)
    P[j] = j;
  for (int o = 0; o < nobj; o++)
    O[o] = o;
  lw_sens_options opt = {.method = method, .nparams = d->nparams, .params = P, .nobj = nobj,
                         .objectives = O, .memory_limit = mem, .fd_step = 1e-6};
  run best = {.time = INFINITY};
  for (int k = 0; k < nrep; k++) {
    lw_sens_result r;
    double t0 = now_s();
    int st = lw_sensitivity(d, &opt, &r);
    double t = now_s() - t0;
    if (st) {
      printf("sensitivity failed: %s\n", r.error.msg);
      exit(1);
    }
    if (t < best.time) {
      best.time = t;
      for (int i = 0; i < nobj * d->nparams && i < 64; i++)
        best.grad[i] = r.gradient[i];
      best.bytes = r.peak_bytes;
      best.recomputed = r.recomputed;
    }
    lw_sens_result_clear(&r);
  }
  return best;
}

static double maxrel(const double *a, const double *b, int n)
{
  double e = 0, s = 0;
  for (int i = 0; i < n; i++)
    s = fmax(s, fabs(b[i]));
  for (int i = 0; i < n; i++)
    e = fmax(e, fabs(a[i] - b[i]) / fmax(fabs(b[i]), 1e-6 * s));
  return e;
}

static void bench_model(const char *file, int nrep)
{
  lw_error err;
  lw_desc *d = lw_model_read_file(file, NULL, &err);
  if (!d) {
    printf("%s\n", err.msg);
    exit(1);
  }
  int p = d->nparams, no = d->nobjectives;
  long steps = (long)floor(d->solver.t_end / d->solver.step + 0.5);
  printf("\n== %s: %ld steps of %g ms, p = %d parameters, %d objectives, best of %d ==\n", d->name, steps,
         1e3 * d->solver.step, p, no, nrep);
  /* the reference: the faster of a plain simulation and the same run with
   * the objective summed (which includes it), best of at least 7 each */
  double tsim = sim_time(d, nrep > 7 ? nrep : 7);
  run val = sens(d, LW_SENS_VALUE, 1, 0, nrep > 7 ? nrep : 7);
  double ts = fmin(tsim, val.time);
  run f1 = sens(d, LW_SENS_FORWARD, 1, 0, nrep);
  run a1 = sens(d, LW_SENS_ADJOINT, 1, 0, nrep);
  run fa = sens(d, LW_SENS_FORWARD, no, 0, nrep);
  run aa = sens(d, LW_SENS_ADJOINT, no, 0, nrep);
  run ac = sens(d, LW_SENS_ADJOINT, 1, 64 << 10, nrep);
  run fd = sens(d, LW_SENS_FD, 1, 0, 1);
  printf("%-44s %10s %10s %14s   (x sim: against the faster of the first two rows)\n", "run", "wall s", "x sim",
         "kept bytes");
  printf("%-44s %10.4f %10.2f\n", "simulation (lw_simulate)", tsim, tsim / ts);
  printf("%-44s %10.4f %10.2f\n", "objective value only", val.time, val.time / ts);
  printf("%-44s %10.4f %10.2f %14zu\n", "forward, 1 objective", f1.time, f1.time / ts, f1.bytes);
  printf("%-44s %10.4f %10.2f %14zu\n", "adjoint, 1 objective", a1.time, a1.time / ts, a1.bytes);
  char lab[64];
  snprintf(lab, sizeof lab, "forward, %d objectives", no);
  printf("%-44s %10.4f %10.2f %14zu\n", lab, fa.time, fa.time / ts, fa.bytes);
  snprintf(lab, sizeof lab, "adjoint, %d objectives", no);
  printf("%-44s %10.4f %10.2f %14zu\n", lab, aa.time, aa.time / ts, aa.bytes);
  printf("%-44s %10.4f %10.2f %14zu%s\n", "adjoint, 1 objective, checkpoints (64 KiB)", ac.time, ac.time / ts,
         ac.bytes, ac.recomputed ? "" : " (not needed)");
  snprintf(lab, sizeof lab, "central differences (%d simulations)", 2 * p + 1);
  printf("%-44s %10.4f %10.2f\n", lab, fd.time, fd.time / ts);
  printf("targets at p = %d: forward <= 1 + 0.2 p = %.1f x sim: %.2f (%s); adjoint <= 2.5 x sim: %.2f (%s)\n", p,
         1 + 0.2 * p, f1.time / ts, f1.time / ts <= 1 + 0.2 * p ? "met" : "NOT met", a1.time / ts,
         a1.time / ts <= 2.5 ? "met" : "NOT met");
  printf("agreement: forward vs adjoint %.2e, checkpointed vs stored %.2e, central differences (1e-6) vs adjoint "
         "%.2e\n",
         maxrel(f1.grad, a1.grad, p), maxrel(ac.grad, a1.grad, p), maxrel(fd.grad, a1.grad, p));
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  int nrep = quick ? 1 : 3;
  bench_model(LW_SOURCE_ROOT "/models/five-bar.json", nrep);
  bench_model(LW_SOURCE_ROOT "/models/slider-crank.json", nrep);
  printf("\nnot measured yet: SUNDIALS IDAS forward/adjoint sensitivities of the index-1 five-bar; the cost for "
         "p = 10, 100, 1000 (a 601-value force spline) is printed by bench-opt --scaling\n");
  return 0;
}
