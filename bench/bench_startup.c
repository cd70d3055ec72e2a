/* bench_startup.c: start-up of planar N-link pendulum chains (the recipe of
 * `linkwright-cli generate-chain`), N = 10, 100, 1000, 10000: the compile
 * (lw_compile), the workspace (lw_data_new) and the initialization
 * (lw_initialize: assembly, the rank of the constraint Jacobian, the
 * velocity and acceleration problems), each the best of a few runs, and
 * the least-squares slopes of log(time) against log(N), whose target is
 * 1.1 at most (linear in N).  Times are the process's CPU time: on a
 * shared machine the wall clock also counts the other processes' turns,
 * which grow with the length of the run (the wall time of the whole
 * start-up is printed beside them). */
#define _POSIX_C_SOURCE 200809L

#include "bench_startup.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "linkwright.h"

#define NSIZES 4

static double clock_s(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_s(void)
{
  return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

/* the three CPU times of one start-up of the n-link chain and its wall
 * time (t: 4); 0, or -1 (printed) */
static int startup_once(int n, double t[4])
{
  double w0 = clock_s(CLOCK_MONOTONIC);
  lw_error err;
  lw_desc *cd = lw_desc_chain(n, 0);
  double t0 = now_s();
  lw_model *m = lw_compile(cd, &err);
  double t1 = now_s();
  lw_desc_free(cd);
  if (!m) {
    printf("%6d compile failed: %s\n", n, err.msg);
    return -1;
  }
  lw_data *d = lw_data_new(m);
  double t2 = now_s();
  int st = d ? lw_initialize(m, d, &err) : LW_ERR_NOMEM;
  double t3 = now_s();
  if (st)
    printf("%6d initialize failed: %s\n", n, d ? err.msg : "out of memory");
  t[0] = t1 - t0;
  t[1] = t2 - t1;
  t[2] = t3 - t2;
  t[3] = clock_s(CLOCK_MONOTONIC) - w0;
  lw_data_free(d);
  lw_model_free(m);
  return st ? -1 : 0;
}

/* least-squares slope of ly against lx */
static double loglog_slope(const double *lx, const double *ly, int n)
{
  double mx = 0, my = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    mx += lx[i] / n;
    my += ly[i] / n;
  }
  for (int i = 0; i < n; i++) {
    sxx += (lx[i] - mx) * (lx[i] - mx);
    sxy += (lx[i] - mx) * (ly[i] - my);
  }
  return sxy / sxx;
}

int bench_startup(int nrep)
{
  static const int Ns[NSIZES] = {10, 100, 1000, 10000};
  double lx[NSIZES], linit[NSIZES], ltotal[NSIZES];
  int nfit = 0, failed = 0;
  printf("\n== d. Planar N-link chain start-up, best of %d ==\n", nrep);
  printf("%6s %12s %12s %14s %12s %12s\n", "N", "compile ms", "data ms", "initialize ms", "total ms", "wall ms");
  for (int k = 0; k < NSIZES; k++) {
    double best[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, t[4];
    int ok = 1;
    for (int r = 0; r < nrep && ok; r++) {
      ok = startup_once(Ns[k], t) == 0;
      for (int i = 0; ok && i < 4; i++)
        best[i] = fmin(best[i], t[i]);
    }
    if (!ok) {
      failed = 1;
      continue;
    }
    double total = best[0] + best[1] + best[2];
    printf("%6d %12.3f %12.3f %14.3f %12.3f %12.3f\n", Ns[k], 1e3 * best[0], 1e3 * best[1], 1e3 * best[2],
           1e3 * total, 1e3 * best[3]);
    lx[nfit] = log((double)Ns[k]);
    linit[nfit] = log(best[2]);
    ltotal[nfit] = log(total);
    nfit++;
  }
  if (nfit < 2) {
    printf("start-up scaling: too few sizes ran\n");
    return 1;
  }
  double si = loglog_slope(lx, linit, nfit), st = loglog_slope(lx, ltotal, nfit);
  printf("least-squares slope of log(CPU time) vs log(N) over %d sizes: initialize %.3f, total %.3f (target <= 1.1)\n",
         nfit, si, st);
  return failed || !(si <= 1.1) || !(st <= 1.1);
}
