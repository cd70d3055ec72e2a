/* bench_beam.c: the step cost of a flexible beam against its element count.
 *
 * The flexible pendulum of models/flexible-pendulum.json (1.2 m, a 0.05 m
 * square section, rho = 4000, E = 1e7, pinned at one end and released
 * horizontal) with 10, 25, 50, 100 and 200 elements, planar and spatial,
 * with ALI3-P and the variational integrator, at h = 1 ms: microseconds
 * per step (best of the repetitions, CPU time of this process and wall
 * time), the ratio of the CPU time per step to the step's 1 ms of
 * simulated time (below 1: faster than real time), Newton iterations per
 * step and the least-squares slope of log time against log elements (1:
 * linear).
 *
 * Run: ninja -C build bench-beam   (or build/bench/bench-beam [--quick]
 * [--reps N] [--steps N] [--elements N] [--integrator ali3p|variational]
 * [--planar|--spatial]).  The machine may be shared: CPU time is the
 * measure, wall time tells how much of it the others took.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "linkwright.h"
#include "lw_io.h"

#define NCOUNT 5

static double now_s(clockid_t clk)
{
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static lw_model *pendulum(int nel, int spatial, const char *integ)
{
  char json[2048];
  snprintf(json, sizeof json,
           "{\"linkwright\": 1, \"name\": \"beam-%d\", \"planar\": %s, \"gravity\": %s,"
           " \"solver\": {\"t_end\": 1, \"step\": 0.001, \"integrator\": \"%s\"},"
           " \"beams\": [{\"name\": \"beam\", \"elements\": %d, \"start\": %s, \"end\": %s, \"young\": 1e7,"
           "  \"density\": 4000, \"section\": \"rectangle\", \"size\": [0.05, 0.05]}],"
           " \"joints\": [{\"name\": \"pin\", \"type\": \"%s\", \"body1\": \"ground\", \"body2\": \"beam\", \"at\": %s}]}",
           nel, spatial ? "false" : "true", spatial ? "[0, -9.81, 0]" : "[0, -9.81]", integ, nel,
           spatial ? "[0, 0, 0]" : "[0, 0]", spatial ? "[1.2, 0, 0]" : "[1.2, 0]", spatial ? "spherical" : "revolute",
           spatial ? "[0, 0, 0]" : "[0, 0]");
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "bench-beam", NULL, &err);
  lw_model *m = d ? lw_compile(d, &err) : NULL;
  if (!m)
    fprintf(stderr, "bench-beam: %s\n", err.msg);
  lw_desc_free(d);
  return m;
}

/* microseconds of CPU time per step over nsteps (best of reps), of wall
 * time in *wall (best of reps), Newton iterations per step */
static double step_cost(const lw_model *m, int nsteps, int reps, double *wall, double *iters)
{
  double best = INFINITY;
  lw_data *d = lw_data_new(m);
  lw_error err;
  *wall = INFINITY;
  for (int r = 0; r < reps; r++) {
    if (lw_initialize(m, d, &err) != LW_OK) {
      fprintf(stderr, "bench-beam: %s\n", err.msg);
      break;
    }
    long it = 0;
    double t0 = now_s(CLOCK_PROCESS_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
    for (int k = 0; k < nsteps; k++) {
      lw_step_info info;
      if (lw_step(m, d, &info, &err) != LW_OK) {
        fprintf(stderr, "bench-beam: %s\n", err.msg);
        break;
      }
      it += info.iterations;
    }
    best = fmin(best, (now_s(CLOCK_PROCESS_CPUTIME_ID) - t0) / nsteps * 1e6);
    *wall = fmin(*wall, (now_s(CLOCK_MONOTONIC) - w0) / nsteps * 1e6);
    *iters = (double)it / nsteps;
  }
  lw_data_free(d);
  return best;
}

/* the least-squares slope of log t against log n */
static double loglog_slope(const int *n, const double *t, int k)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < k; i++) {
    double x = log((double)n[i]), y = log(t[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

/* the options: --quick, --reps N, --steps N, --elements N (that count
 * alone), --integrator NAME, --planar, --spatial */
typedef struct {
  int nsteps, reps, elements, planar, spatial;
  const char *integ;
} bench_opts;

static int parse_opts(int argc, char **argv, bench_opts *o)
{
  *o = (bench_opts){200, 3, 0, 1, 1, NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quick"))
      o->nsteps = 50;
    else if (!strcmp(a, "--planar"))
      o->spatial = 0;
    else if (!strcmp(a, "--spatial"))
      o->planar = 0;
    else if (v && !strcmp(a, "--reps"))
      o->reps = atoi(argv[++i]);
    else if (v && !strcmp(a, "--steps"))
      o->nsteps = atoi(argv[++i]);
    else if (v && !strcmp(a, "--elements"))
      o->elements = atoi(argv[++i]);
    else if (v && !strcmp(a, "--integrator"))
      o->integ = argv[++i];
    else {
      fprintf(stderr, "usage: bench-beam [--quick] [--reps N] [--steps N] [--elements N] "
                      "[--integrator ali3p|variational] [--planar|--spatial]\n");
      return -1;
    }
  }
  return o->nsteps > 0 && o->reps > 0 ? 0 : -1;
}

/* one table: the counts for one integrator and dimension; 0, or 1 when a
 * model failed */
static int run_table(const bench_opts *o, const char *integ, int spatial)
{
  const int counts[NCOUNT] = {10, 25, 50, 100, 200};
  int n[NCOUNT], k0 = 0;
  double t[NCOUNT];
  printf("%s flexible pendulum, %s, h = 1 ms, %d steps (best of %d)\n", spatial ? "spatial" : "planar", integ,
         o->nsteps, o->reps);
  printf("%9s %6s %6s %12s %12s %14s %10s\n", "elements", "nq", "nc", "us/step CPU", "us/step wall",
         "CPU/real time", "iter/step");
  for (int k = 0; k < NCOUNT; k++) {
    if (o->elements && counts[k] != o->elements)
      continue;
    lw_model *m = pendulum(counts[k], spatial, integ);
    if (!m)
      return 1;
    double it = 0, wall;
    n[k0] = counts[k];
    t[k0] = step_cost(m, o->nsteps, o->reps, &wall, &it);
    printf("%9d %6d %6d %12.1f %12.1f %14.3f %10.2f\n", counts[k], lw_model_nq(m), lw_model_nc(m), t[k0], wall,
           t[k0] / (1e6 * lw_model_opt(m)->step), it);
    k0++;
    lw_model_free(m);
  }
  if (k0 > 1)
    printf("fitted log-log slope of the time per step against the elements, %d to %d: %.2f\n", n[0], n[k0 - 1],
           loglog_slope(n, t, k0));
  printf("\n");
  return 0;
}

int main(int argc, char **argv)
{
  bench_opts o;
  if (parse_opts(argc, argv, &o))
    return 2;
  const char *integ[2] = {"ali3p", "variational"};
  for (int v = 0; v < 2; v++)
    for (int spatial = 0; spatial < 2; spatial++) {
      if ((o.integ && strcmp(o.integ, integ[v])) || (spatial ? !o.spatial : !o.planar))
        continue;
      if (run_table(&o, integ[v], spatial))
        return 1;
    }
  return 0;
}
