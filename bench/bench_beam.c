/* bench_beam.c: the step cost of a flexible beam against its element count.
 *
 * The flexible pendulum of models/flexible-pendulum.json (1.2 m, a 0.05 m
 * square section, rho = 4000, E = 1e7, pinned at one end and released
 * horizontal) with 10, 50, 100 and 200 elements, planar and spatial, at
 * h = 1 ms for 0.2 s: microseconds per step (best of 3), Newton
 * iterations per step and the log-log slope of the time against the
 * elements.
 *
 * Run: ninja -C build bench-beam   (or build/bench/bench-beam [--quick]).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
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

static lw_model *pendulum(int nel, int spatial)
{
  char json[2048];
  snprintf(json, sizeof json,
           "{\"linkwright\": 1, \"name\": \"beam-%d\", \"planar\": %s, \"gravity\": %s,"
           " \"solver\": {\"t_end\": 1, \"step\": 0.001},"
           " \"beams\": [{\"name\": \"beam\", \"elements\": %d, \"start\": %s, \"end\": %s, \"young\": 1e7,"
           "  \"density\": 4000, \"section\": \"rectangle\", \"size\": [0.05, 0.05]}],"
           " \"joints\": [{\"name\": \"pin\", \"type\": \"%s\", \"body1\": \"ground\", \"body2\": \"beam\", \"at\": %s}]}",
           nel, spatial ? "false" : "true", spatial ? "[0, -9.81, 0]" : "[0, -9.81]", nel,
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

int main(int argc, char **argv)
{
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  const int counts[4] = {10, 50, 100, 200};
  int nsteps = quick ? 50 : 200;
  for (int spatial = 0; spatial < 2; spatial++) {
    printf("%s flexible pendulum, h = 1 ms, %d steps (best of 3)\n", spatial ? "spatial" : "planar", nsteps);
    printf("%9s %6s %6s %12s %10s\n", "elements", "nq", "nc", "us/step", "iter/step");
    double t[4];
    for (int k = 0; k < 4; k++) {
      lw_model *m = pendulum(counts[k], spatial);
      if (!m)
        return 1;
      double it = 0;
      t[k] = step_cost(m, nsteps, 3, &it);
      printf("%9d %6d %6d %12.1f %10.2f\n", counts[k], lw_model_nq(m), lw_model_nc(m), t[k], it);
      lw_model_free(m);
    }
    printf("log-log slope of the time per step against the elements, 10 to 200: %.2f\n\n",
           log(t[3] / t[0]) / log(20.0));
  }
  return 0;
}
