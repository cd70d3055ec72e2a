/* bench_beam.c: the step cost of a flexible beam against its element count.
 *
 * The flexible pendulum of models/flexible-pendulum.json (1.2 m, a 0.05 m
 * square section, rho = 4000, E = 1e7, pinned at one end and released
 * horizontal) with 10, 25, 50, 100 and 200 elements, planar and spatial,
 * with ALI3-P and the variational integrator, at h = 1 ms: microseconds
 * per step (best of 3), Newton iterations per step and the least-squares
 * slope of log time against log elements (1: linear).
 *
 * Run: ninja -C build bench-beam   (or build/bench/bench-beam [--quick]).
 * The times are CPU time of this process (the machine may be shared).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "linkwright.h"
#include "lw_io.h"

#define NCOUNT 5

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

/* microseconds per step over nsteps (best of reps), Newton iterations per step */
static double step_cost(const lw_model *m, int nsteps, int reps, double *iters)
{
  double best = INFINITY;
  lw_data *d = lw_data_new(m);
  lw_error err;
  for (int r = 0; r < reps; r++) {
    if (lw_initialize(m, d, &err) != LW_OK) {
      fprintf(stderr, "bench-beam: %s\n", err.msg);
      break;
    }
    long it = 0;
    double t0 = now_s();
    for (int k = 0; k < nsteps; k++) {
      lw_step_info info;
      if (lw_step(m, d, &info, &err) != LW_OK) {
        fprintf(stderr, "bench-beam: %s\n", err.msg);
        break;
      }
      it += info.iterations;
    }
    best = fmin(best, (now_s() - t0) / nsteps * 1e6);
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

int main(int argc, char **argv)
{
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  const int counts[NCOUNT] = {10, 25, 50, 100, 200};
  const char *integ[2] = {"ali3p", "variational"};
  int nsteps = quick ? 50 : 200;
  for (int v = 0; v < 2; v++)
    for (int spatial = 0; spatial < 2; spatial++) {
      printf("%s flexible pendulum, %s, h = 1 ms, %d steps (best of 3, CPU time)\n", spatial ? "spatial" : "planar",
             integ[v], nsteps);
      printf("%9s %6s %6s %12s %10s\n", "elements", "nq", "nc", "us/step", "iter/step");
      double t[NCOUNT];
      for (int k = 0; k < NCOUNT; k++) {
        lw_model *m = pendulum(counts[k], spatial, integ[v]);
        if (!m)
          return 1;
        double it = 0;
        t[k] = step_cost(m, nsteps, 3, &it);
        printf("%9d %6d %6d %12.1f %10.2f\n", counts[k], lw_model_nq(m), lw_model_nc(m), t[k], it);
        lw_model_free(m);
      }
      printf("fitted log-log slope of the time per step against the elements, 10 to 200: %.2f\n\n",
             loglog_slope(counts, t, NCOUNT));
    }
  return 0;
}
