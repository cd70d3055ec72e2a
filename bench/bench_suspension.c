/* bench-suspension: the reconstructed double-wishbone suspension
 * (tests/data/suspension.json, seed 001 Sec. 6.3; docs/suspension.md) optimized
 * over its 60 design variables with adjoint gradients and with central
 * differences (2 x 60 + 1 simulations per gradient), the same number of
 * evaluations each: both wall times and their ratio (the paper reports
 * about 40 at 60 variables over 60 iterations, against forward
 * differences).
 *
 *   bench-suspension [--t-end S] [--evaluations N]
 *     --t-end: the horizon (default 0.05 s of the model's 3 s: a simulation
 *              of the whole 3 s takes about 20 s here, and a central-difference
 *              gradient 121 of them);
 *     --evaluations: evaluations of each optimization (default 2). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "linkwright.h"
#include "lw_io.h"
#include "lw_opt.h"

static lw_desc *load(double t_end)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/data/suspension.json", LW_SOURCE_ROOT);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d) {
    printf("cannot read %s: %s\n", path, err.msg);
    exit(1);
  }
  d->solver.t_end = t_end;
  /* a fixed number of evaluations: no stopping test but max_evaluations */
  for (int i = 0; i < d->nproblems; i++) {
    d->problems[i].f_tolerance = 0;
    d->problems[i].x_tolerance = 0;
    d->problems[i].gradient_tolerance = 0;
  }
  return d;
}

/* processor time of the process (s): on a shared machine the wall time
 * also counts what others run */
static double cpu_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* one optimization of problem 'suspension' with the given gradients; *cpu
 * its processor time */
static void run(const lw_desc *d, int pi, int gradient, int evaluations, lw_opt_result *r, double *cpu)
{
  lw_opt_options o = {.algorithm = -1, .gradient = gradient, .max_evaluations = evaluations};
  double c0 = cpu_s();
  int st = lw_optimize(d, pi, &o, r);
  *cpu = cpu_s() - c0;
  if (st) {
    printf("suspension (%s): %s\n", gradient == LW_SENS_FD ? "differences" : "adjoint", r->error.msg);
    exit(1);
  }
}

int main(int argc, char **argv)
{
  double t_end = 0.05;
  int evaluations = 2;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--t-end") && i + 1 < argc)
      t_end = atof(argv[++i]);
    else if (!strcmp(argv[i], "--evaluations") && i + 1 < argc)
      evaluations = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench-suspension [--t-end S] [--evaluations N]\n");
      return 2;
    }
  }
  if (!(t_end > 0) || evaluations < 1) {
    fprintf(stderr, "bench-suspension: --t-end must be > 0 and --evaluations >= 1\n");
    return 2;
  }
  lw_desc *d = load(t_end);
  int pi = lw_desc_problem_index(d, "suspension");
  if (pi < 0) {
    printf("tests/data/suspension.json has no problem 'suspension'\n");
    return 1;
  }
  lw_opt_result r[2];
  double cpu[2];
  run(d, pi, LW_SENS_ADJOINT, evaluations, &r[0], &cpu[0]);
  run(d, pi, LW_SENS_FD, evaluations, &r[1], &cpu[1]);
  printf("suspension, %d design variables, %.3g s horizon (%ld steps of %.3g s), %d evaluations each\n", r[0].n,
         t_end, (long)(t_end / d->solver.step + 0.5), d->solver.step, evaluations);
  const char *label[2] = {"adjoint", "central differences"};
  for (int k = 0; k < 2; k++)
    printf("  %-20s %3d evaluations %9.2f s wall (%8.3f s each), %9.2f s processor  dCM %.6e -> %.6e\n", label[k],
           r[k].evaluations, r[k].wall_time_s, r[k].wall_time_s / r[k].evaluations, cpu[k], r[k].f0, r[k].f);
  for (int k = 0; k < 2; k++)
    printf("  %s stopped: %s\n", label[k], r[k].stop);
  double pe0 = r[0].wall_time_s / r[0].evaluations, pe1 = r[1].wall_time_s / r[1].evaluations;
  printf("  wall-time ratio (differences / adjoint): %.1f; per evaluation %.1f; processor-time ratio %.1f\n",
         r[1].wall_time_s / r[0].wall_time_s, pe1 / pe0, cpu[1] / cpu[0]);
  lw_opt_result_clear(&r[0]);
  lw_opt_result_clear(&r[1]);
  lw_desc_free(d);
  return 0;
}
