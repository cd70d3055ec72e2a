/* bench-events: what events cost and what exact derivatives through them
 * give.
 *
 *   (a) event location: the five-bar with ground impacts
 *       (models/five-bar-ground.json, 5 s at 1 ms) against the same model
 *       without its events, the same number of steps on the grid: the
 *       time per simulated second of both and their ratio (the best of
 *       several runs each, the machine being shared);
 *   (b) an optimization through impacts: the bouncing ball's restitution
 *       chosen so that the third impact happens at 1.6 s
 *       (models/bouncing-ball-timing.json, problem third-impact), once
 *       with exact (adjoint) gradients and once with central-difference
 *       gradients, their paths printed side by side with the evaluation
 *       counts; and the same from starts on either side of the solution.
 *
 *   bench-events [--quick]   (--quick: fewer repetitions in (a)) */
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

/* ---- (a) the cost of locating events ------------------------------------ */
/* the best wall time of reps runs of m to t_end; *steps and *nev of the last */
static double best_run(const lw_model *m, double t_end, double h, int reps, long *steps, long *nev)
{
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    lw_sim_result res;
    double t0 = now_s();
    lw_simulate(m, t_end, h, &res, NULL, NULL);
    double t = now_s() - t0;
    if (res.status != LW_OK) {
      printf("run failed: %s\n", res.error.msg);
      exit(1);
    }
    best = fmin(best, t);
    *steps = res.steps;
    *nev = res.nevents;
    lw_sim_result_clear(&res);
  }
  return best;
}

static void event_cost(int quick)
{
  lw_desc *d = load("five-bar-ground.json");
  lw_error err;
  lw_model *me = lw_compile(d, &err);
  int nev = d->nevents; /* the same model without its events */
  d->nevents = 0;
  lw_model *mf = lw_compile(d, &err);
  d->nevents = nev;
  if (!me || !mf) {
    printf("compile: %s\n", err.msg);
    exit(1);
  }
  double T = d->solver.t_end, h = d->solver.step;
  int reps = quick ? 3 : 15;
  long se, sf, ne, nf;
  /* interleaved, so that a slow spell of the shared machine hits both */
  double te = INFINITY, tf = INFINITY;
  for (int k = 0; k < reps; k++) {
    te = fmin(te, best_run(me, T, h, 1, &se, &ne));
    tf = fmin(tf, best_run(mf, T, h, 1, &sf, &nf));
  }
  printf("(a) event location: five-bar with ground impacts, %.0f s at h = %g s (best of %d runs each)\n", T, h, reps);
  printf("    with events:    %ld steps, %ld impacts, %.4f s wall, %.4f s per simulated second\n", se, ne, te, te / T);
  printf("    without events: %ld steps, %ld impacts, %.4f s wall, %.4f s per simulated second\n", sf, nf, tf, tf / T);
  printf("    ratio (with / without) per simulated second: %.3f  (%+.1f %%; target <= +10 %%)\n\n", te / tf,
         100.0 * (te / tf - 1.0));
  lw_model_free(me);
  lw_model_free(mf);
  lw_desc_free(d);
}

/* ---- (b) an optimization through impacts ---------------------------------- */
#define MAXPATH 200
typedef struct {
  int n;
  double x[MAXPATH], f[MAXPATH];
} opt_path;

static int record(const lw_opt_progress *p, void *user)
{
  opt_path *o = user;
  if (o->n < MAXPATH) {
    o->x[o->n] = p->x[0];
    o->f[o->n] = p->failed ? NAN : p->f;
    o->n++;
  }
  return 0;
}

/* the restitution that puts the third impact at T: t3 = t1 (1 + 2 e + 2 e^2), t1 = sqrt(2 h0 / g) */
static double exact_e(double T)
{
  double t1 = sqrt(2.0 / 9.81), c = 1.0 - T / t1; /* 2 e^2 + 2 e + c = 0 */
  return (-2.0 + sqrt(4.0 - 8.0 * c)) / 4.0;
}

static void optimize_from(lw_desc *d, int pi, double e0)
{
  double *ev = lw_desc_field(d, "events/floor/restitution");
  *ev = e0;
  for (int j = 0; j < d->nparams; j++)
    if (!strcmp(d->params[j].name, "restitution"))
      d->params[j].value = e0;
  opt_path path[2] = {{0}, {0}};
  lw_opt_result r[2];
  const char *name[2] = {"exact (adjoint)", "central differences"};
  for (int k = 0; k < 2; k++) {
    lw_opt_options o = {.algorithm = -1, .gradient = k ? LW_SENS_FD : LW_SENS_ADJOINT, .progress = record,
                        .user = &path[k]};
    if (lw_optimize(d, pi, &o, &r[k])) {
      printf("optimize: %s\n", r[k].error.msg);
      exit(1);
    }
  }
  double es = exact_e(1.6);
  printf("    start e = %.3f; solution e* = %.12f (closed form)\n", e0, es);
  printf("    %-4s | %-17s %-11s | %-17s %-11s\n", "eval", "e (exact grad.)", "J", "e (differences)", "J");
  int n = path[0].n > path[1].n ? path[0].n : path[1].n;
  for (int i = 0; i < n; i++) {
    char a[64] = "", b[64] = "";
    if (i < path[0].n)
      snprintf(a, sizeof a, "%.12f %.4e", path[0].x[i], path[0].f[i]);
    if (i < path[1].n)
      snprintf(b, sizeof b, "%.12f %.4e", path[1].x[i], path[1].f[i]);
    printf("    %4d | %-29s | %-29s\n", i + 1, a, b);
  }
  for (int k = 0; k < 2; k++) {
    /* simulations: a central-difference gradient takes 2 per parameter besides the run itself */
    int sims = k ? r[k].evaluations * (1 + 2 * r[k].n) : r[k].evaluations;
    printf("    %-20s %3d evaluations (%3d simulations%s), %.3f s: e = %.12f (|e - e*| = %.2e), J = %.3e; %s\n",
           name[k], r[k].evaluations, sims, k ? "" : " + as many adjoint sweeps", r[k].wall_time_s, r[k].x[0],
           fabs(r[k].x[0] - es), r[k].f, r[k].stop);
    lw_opt_result_clear(&r[k]);
  }
  printf("\n");
}

static void optimize_through_impacts(void)
{
  lw_desc *d = load("bouncing-ball-timing.json");
  int pi = lw_desc_problem_index(d, "third-impact");
  printf("(b) the third impact at t = 1.6 s: restitution of models/bouncing-ball-timing.json, "
         "objective y(1.6)^2\n");
  const double starts[] = {0.8, 0.7, 0.9};
  for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
    optimize_from(d, pi, starts[k]);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  event_cost(quick);
  optimize_through_impacts();
  return 0;
}
