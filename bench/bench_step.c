/* bench_step.c: step-cost and work-precision benchmarks (plain-text tables).
 *
 *   a. five-bar, h = 1 ms, 5 s: time per lw_step (best of 5) and max |Phi|,
 *      against MuJoCo 2.2.2 (bench/mujoco_fivebar.c) when built with it;
 *   b. planar N-link pendulum chains (the recipe of `linkwright-cli
 *      generate-chain`), N = 10, 100, 1000: time per step and the log-log slope;
 *   c. five-bar work-precision at t = 5 s against an IDAS reference
 *      (src/ref/lw_ref_idas.c): ours at h = 4 ... 0.125 ms, IDAS at
 *      rtol = 1e-3 ... 1e-10, and the observed order of ours; the same table
 *      for the variational integrator, and its time per step at 1 ms
 *      against ALI3-P's;
 *   d. the same for the tolerance mode (solver "mode": "tolerance") at
 *      orders 2 and 4, and the time each takes for the errors 1e-3 ... 1e-8
 *      against IDAS's (log-log interpolation in each table);
 *   e. IFToMM A01 (the pendulum, 2000 s) against the published solution:
 *      the tolerance mode (order 4) and IDAS, the time for 1e-3 m
 *      (build/bench/bench-step --a01 runs this section alone);
 *   f. the chains' start-up, N = 10 ... 10000, and its log-log slope
 *      (bench_startup.c).
 *
 * Run: ninja -C build bench   (or build/bench/bench-step [--quick]; --startup:
 * f alone; --a01: e alone).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "linkwright.h"
#include "lw_io.h"
#include "lw_ref_idas.h"
#include "bench_startup.h"
#ifdef LW_HAVE_MUJOCO
#include "mujoco_fivebar.h"
#endif

#ifndef LW_SOURCE_ROOT
#define LW_SOURCE_ROOT "."
#endif

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A copy of m compiled with other solver settings (NULL on failure). */
/* m with its step set to h (an option of the compiled model: nothing is
 * compiled again); NULL when h is refused */
static lw_model *with_step(lw_model *m, double h)
{
  lw_error err;
  if (lw_model_set_step(m, h, &err) == LW_OK)
    return m;
  fprintf(stderr, "bench-step: step %g refused: %s\n", h, err.msg);
  return NULL;
}

typedef struct {
  int status;
  double t_init;   /* lw_initialize */
  double t_loop;   /* the lw_step loop only */
  double max_phi;  /* max constraint_residual over the steps */
  long iterations; /* Newton iterations, total */
  double r2[2];    /* first two output columns at the end */
  char msg[512];
} run_result;

/* lw_data_new, lw_initialize, nsteps lw_step calls; outputs at the end. */
static void run_ours(const lw_model *m, long nsteps, run_result *r)
{
  memset(r, 0, sizeof *r);
  lw_data *d = lw_data_new(m);
  if (!d) {
    r->status = LW_ERR_NOMEM;
    snprintf(r->msg, sizeof r->msg, "out of memory");
    return;
  }
  lw_error err;
  double t0 = now_s();
  int st = lw_initialize(m, d, &err);
  double t1 = now_s();
  r->t_init = t1 - t0;
  if (st) {
    r->status = st;
    snprintf(r->msg, sizeof r->msg, "initialize: %.480s", err.msg);
    lw_data_free(d);
    return;
  }
  double maxphi = 0;
  long its = 0;
  lw_step_info info;
  t0 = now_s();
  for (long k = 0; k < nsteps; k++) {
    st = lw_step(m, d, &info, &err);
    if (st)
      break;
    its += info.iterations;
    if (info.constraint_residual > maxphi)
      maxphi = info.constraint_residual;
  }
  r->t_loop = now_s() - t0;
  r->max_phi = maxphi;
  r->iterations = its;
  if (st) {
    r->status = st;
    snprintf(r->msg, sizeof r->msg, "step: %.480s", err.msg);
  } else {
    int nc = lw_model_output_columns(m);
    double *out = malloc(sizeof(double) * (size_t)(nc > 2 ? nc : 2));
    if (out) {
      lw_outputs(m, d, out);
      r->r2[0] = out[0];
      r->r2[1] = nc > 1 ? out[1] : 0.0;
      free(out);
    }
  }
  lw_data_free(d);
}

/* Best (smallest loop time) of nrep runs; returns the status of the last. */
static int best_of(const lw_model *m, long nsteps, int nrep, run_result *best)
{
  run_result r;
  for (int i = 0; i < nrep; i++) {
    run_ours(m, nsteps, &r);
    if (r.status) {
      *best = r;
      return r.status;
    }
    if (i == 0 || r.t_loop + r.t_init < best->t_loop + best->t_init)
      *best = r;
  }
  return 0;
}


static double dist2(const double *a, const double *b)
{
  return hypot(a[0] - b[0], a[1] - b[1]);
}

/* the last row a run hands on */
typedef struct {
  double r2[2];
} last_row;

static int keep_last(const double *row, int ncols, void *user)
{
  last_row *l = user;
  l->r2[0] = ncols > 1 ? row[1] : 0.0;
  l->r2[1] = ncols > 2 ? row[2] : 0.0;
  return 0;
}

/* the five-bar to T in the tolerance mode (rtol = atol = tol, order),
 * rows every 0.01 s handed on and not kept; best wall time of nrep runs
 * into *wall, the final r2 into r2, the run's statistics into st; 0 or -1 */
static int run_tolerance(lw_model *m, double tol, int order, double T, int nrep, double *wall, double r2[2],
                         lw_sim_result *st)
{
  lw_opt o = *lw_model_opt(m), keep = o;
  o.mode = LW_MODE_TOLERANCE;
  o.rtol = o.atol = tol;
  o.order = order;
  lw_error err;
  if (lw_model_set_opt(m, &o, &err) != LW_OK) {
    fprintf(stderr, "bench-step: %s\n", err.msg);
    return -1;
  }
  int bad = 0;
  *wall = INFINITY;
  for (int i = 0; i < nrep && !bad; i++) {
    last_row l = {{NAN, NAN}};
    lw_sim_output out = {1000000, 0, keep_last, &l, NULL};
    lw_sim_result r;
    double t0 = now_s();
    bad = lw_simulate_ex(m, T, 0.01, &out, &r, NULL, NULL) != LW_OK;
    double w = now_s() - t0;
    if (w < *wall)
      *wall = w;
    r2[0] = l.r2[0];
    r2[1] = l.r2[1];
    if (bad)
      printf("%10.0e FAILED %s\n", tol, r.error.msg);
    *st = r;
    st->events = NULL;
    lw_sim_result_clear(&r);
  }
  lw_model_set_opt(m, &keep, &err);
  return bad ? -1 : 0;
}

/* ---- e. IFToMM A01 -------------------------------------------------- */
#define A01_N 4001 /* the reference's points: every 0.5 s to 2000 s */

/* the published solution (t, x, y of P1); the number of points read */
static int a01_reference(double (*ref)[3])
{
  FILE *f = fopen(LW_SOURCE_ROOT "/tests/data/iftomm/A01_pendulum_reference.csv", "r");
  if (!f)
    return 0;
  char line[256];
  int n = 0;
  while (n < A01_N && fgets(line, sizeof line, f))
    if (sscanf(line, "%lf,%lf,%lf", &ref[n][0], &ref[n][1], &ref[n][2]) == 3)
      n++;
  fclose(f);
  return n;
}

/* the largest distance of P1 (output columns 0, 1) from the reference over
 * the rows handed on (the reference's times) */
typedef struct {
  const double (*ref)[3];
  int n, k;
  double worst;
} a01_err;

static int a01_row(const double *row, int ncols, void *user)
{
  a01_err *a = user;
  if (a->k < a->n && ncols > 2 && fabs(row[0] - a->ref[a->k][0]) < 1e-9)
    a->worst = fmax(a->worst, hypot(row[1] - a->ref[a->k][1], row[2] - a->ref[a->k][2]));
  a->k++;
  return 0;
}

/* A01 in the tolerance mode (order 4) at rtol = atol = tol; its error and wall time */
static int a01_ours(lw_model *m, double tol, const double (*ref)[3], int n, double *err, double *wall,
                    lw_sim_result *st)
{
  lw_opt o = *lw_model_opt(m);
  o.mode = LW_MODE_TOLERANCE;
  o.rtol = o.atol = tol;
  o.order = 4;
  lw_error e;
  if (lw_model_set_opt(m, &o, &e) != LW_OK)
    return -1;
  a01_err a = {ref, n, 0, 0.0};
  lw_sim_output out = {1, 0, a01_row, &a, NULL};
  double t0 = now_s();
  int bad = lw_simulate_ex(m, 2000.0, 0.5, &out, st, NULL, NULL) != LW_OK;
  *wall = now_s() - t0;
  *err = a.worst;
  free(st->table); /* nothing kept; the counts stay */
  free(st->events);
  st->table = NULL;
  st->events = NULL;
  return bad || a.k != n ? -1 : 0;
}

/* A01 by IDAS at rtol (atol 1e-2 rtol): its error and wall time */
static int a01_idas(const lw_model *m, double rtol, const double (*ref)[3], int n, double *err, double *wall,
                    lw_ref_stats *rs)
{
  static double times[A01_N], out[A01_N * 8];
  if (lw_model_output_columns(m) > 8)
    return -1;
  for (int i = 0; i < n; i++)
    times[i] = ref[i][0];
  char msg[256];
  double t0 = now_s();
  if (lw_ref_idas_run(m, rtol, 1e-2 * rtol, times, n, out, rs, msg, sizeof msg))
    return -1;
  *wall = now_s() - t0;
  int nc = lw_model_output_columns(m);
  *err = 0;
  for (int i = 0; i < n; i++)
    *err = fmax(*err, hypot(out[i * nc] - ref[i][1], out[i * nc + 1] - ref[i][2]));
  return 0;
}

/* time at error e by log-log interpolation in a table sorted by decreasing error */
static double time_at_error(const double *err, const double *tim, int n, double e)
{
  for (int i = 0; i + 1 < n; i++) {
    double e0 = err[i], e1 = err[i + 1];
    if ((e0 >= e && e1 <= e) || (e0 <= e && e1 >= e)) {
      if (e0 == e1)
        return tim[i];
      double s = (log(e) - log(e0)) / (log(e1) - log(e0));
      return exp(log(tim[i]) + s * (log(tim[i + 1]) - log(tim[i])));
    }
  }
  return NAN;
}

/* section e; nonzero when a run failed */
static int bench_a01(void)
{
  int failed = 0;
  lw_error err;
  printf("\n== e. IFToMM A01 pendulum to 2000 s: error = max |P1 - P1_ref| over the 4001 published points ==\n");
  static double a01_ref[A01_N][3];
  int na = a01_reference(a01_ref);
  lw_model *pm = lw_model_open(LW_SOURCE_ROOT "/models/pendulum.json", &err);
  if (na != A01_N || !pm) {
    printf("A01: no reference or model\n");
    failed = 1;
  } else {
    double ae[8], at[8], be[8], bt[8];
    int nae = 0, nbe = 0;
    printf("%-28s %10s %12s %10s %10s %10s\n", "solver", "tol", "error (m)", "wall s", "steps", "res evals");
    for (int k = 8; k <= 10; k++) {
      double tol = pow(10.0, -k), e, w;
      lw_sim_result st;
      if (a01_ours(pm, tol, (const double (*)[3])a01_ref, na, &e, &w, &st)) {
        printf("%-28s %10.0e FAILED\n", "linkwright tolerance, 4", tol);
        continue;
      }
      /* steps: the macro steps, each 6 of ALI3-P (1 + 2 + 3) */
      printf("%-28s %10.0e %12.3e %10.3f %10ld %10s\n", "linkwright tolerance, 4", tol, e, w, st.steps, "-");
      ae[nae] = e;
      at[nae++] = w;
    }
    for (int k = 8; k <= 11; k++) { /* rtol 1e-12 took 170 s here, still 5.7e-2 m off */
      double tol = pow(10.0, -k), e, w;
      lw_ref_stats rs2;
      if (a01_idas(pm, tol, (const double (*)[3])a01_ref, na, &e, &w, &rs2)) {
        printf("%-28s %10.0e FAILED\n", "IDAS", tol);
        continue;
      }
      printf("%-28s %10.0e %12.3e %10.3f %10ld %10ld\n", "IDAS", tol, e, w, rs2.steps, rs2.nfevals);
      be[nbe] = e;
      bt[nbe++] = w;
    }
    double to = time_at_error(ae, at, nae, 1e-3), ti = time_at_error(be, bt, nbe, 1e-3);
    if (ti == ti) {
      printf("A01 within 1e-3 m: ours %.3f s, IDAS %.3f s (ours/IDAS = %.2f)\n", to, ti, to / ti);
    } else if (nbe > 0) {
      /* IDAS's error falls with its tolerance: its time for 1e-3 m is more
       * than that of its most accurate run */
      printf("A01 within 1e-3 m: ours %.3f s; IDAS did not reach it down to rtol 1e-11 (its best: %.3e m in "
             "%.3f s), so it needs more than %.3f s (ours/IDAS < %.2f)\n",
             to, be[nbe - 1], bt[nbe - 1], bt[nbe - 1], to / bt[nbe - 1]);
    }
  }
  lw_model_free(pm);
  return failed;
}

/* the five-bar's error |r2(T) - ref| and wall time at the steps hs (n of
 * them), one table row each with the observed order; into oe, ot (NAN
 * where a run failed).  Leaves the model's step at 1 ms. */
static void work_precision(lw_model *fb, double T, const double *ref, const double *hs, int nh, int nrep,
                           double *oe, double *ot)
{
  printf("%10s %8s %12s %10s %8s %12s\n", "h (ms)", "steps", "error (m)", "wall s", "order",
         "max |Phi|");
  double prev = NAN;
  for (int i = 0; i < nh; i++) {
    double h = hs[i];
    long n = (long)floor(T / h + 0.5);
    lw_model *mh = with_step(fb, h);
    run_result r;
    int reps = n <= 5000 ? (nrep > 3 ? 3 : nrep) : 1;
    oe[i] = ot[i] = NAN;
    if (!mh || best_of(mh, n, reps, &r)) {
      printf("%10.4g FAILED %s\n", 1e3 * h, mh ? r.msg : "");
      prev = NAN;
      continue;
    }
    double e = dist2(r.r2, ref), w = r.t_init + r.t_loop;
    double ord = (prev > 0 && e > 0) ? log(prev / e) / log(2.0) : NAN;
    if (ord == ord)
      printf("%10.4g %8ld %12.3e %10.4f %8.2f %12.2e\n", 1e3 * h, n, e, w, ord, r.max_phi);
    else
      printf("%10.4g %8ld %12.3e %10.4f %8s %12.2e\n", 1e3 * h, n, e, w, "-", r.max_phi);
    prev = e;
    oe[i] = e;
    ot[i] = w;
  }
  with_step(fb, 1e-3);
}

/* the model's integrator set by name; 0, or -1 after a message */
static int with_integrator(lw_model *m, const char *name)
{
  lw_opt o = *lw_model_opt(m);
  snprintf(o.integrator, sizeof o.integrator, "%s", name);
  lw_error err;
  if (lw_model_set_opt(m, &o, &err) == LW_OK)
    return 0;
  fprintf(stderr, "bench-step: integrator %s refused: %s\n", name, err.msg);
  return -1;
}

int main(int argc, char **argv)
{
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  if (argc > 1 && !strcmp(argv[1], "--a01")) /* section e alone */
    return bench_a01();
  int nrep = quick ? 1 : 5;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--startup"))
      return bench_startup(3);
  double t_start = now_s();
  const char *path = LW_SOURCE_ROOT "/models/five-bar.json";
  lw_error err;
  lw_model *fb = lw_model_open(path, &err);
  if (!fb) {
    fprintf(stderr, "bench-step: %s\n", err.msg);
    return 1;
  }
  const double T = 5.0;
  int failed = 0;

  /* ---- a. five-bar step cost ------------------------------------------
   * Our runs and MuJoCo's alternate, so that both see the same machine (the
   * speed of a shared virtual machine drifts by tens of percent within
   * seconds): the fastest run of each, and the median of the ratios of
   * back-to-back pairs. */
  int nrep_a = quick ? 1 : 15;
  printf("== a. Five-bar, h = 1 ms, t = 0..5 s (5000 steps), runs alternating, best of %d each ==\n", nrep_a);
  lw_model *fb1 = with_step(fb, 1e-3);
  run_result ra, rr;
  memset(&ra, 0, sizeof ra);
  double ours_step = NAN, mj_step = NAN;
  int ours_ok = fb1 != NULL;
  double pair_ratio[64];
  int npair = 0;
#ifdef LW_HAVE_MUJOCO
  lw_mj_result mj, mjbest;
  memset(&mjbest, 0, sizeof mjbest);
  char mjerr[512] = "";
  int mjok = 1;
#endif
  for (int i = 0; i < nrep_a && i < 64; i++) {
    if (ours_ok) {
      run_ours(fb1, 5000, &rr);
      if (rr.status) {
        ra = rr;
        ours_ok = 0;
      } else if (i == 0 || rr.t_loop < ra.t_loop) {
        ra = rr;
      }
    }
#ifdef LW_HAVE_MUJOCO
    if (mjok) {
      if (lw_mj_fivebar_run(1e-3, T, &mj, mjerr, sizeof mjerr)) {
        mjok = 0;
      } else {
        if (i == 0 || mj.sec_per_step < mjbest.sec_per_step)
          mjbest = mj;
        if (ours_ok)
          pair_ratio[npair++] = rr.t_loop / 5000.0 / mj.sec_per_step;
      }
    }
#endif
  }
  if (!ours_ok) {
    printf("ours: FAILED %s\n", fb1 ? ra.msg : "");
    failed = 1;
  } else {
    ours_step = ra.t_loop / 5000.0;
    printf("%-10s %14s %16s %10s %10s\n", "solver", "us/step", "max |Phi| (m)", "iter/step", "init ms");
    printf("%-10s %14.3f %16.3e %10.2f %10.3f\n", "linkwright", 1e6 * ours_step, ra.max_phi,
           (double)ra.iterations / 5000.0, 1e3 * ra.t_init);
  }
#ifdef LW_HAVE_MUJOCO
  if (mjok) {
    mj_step = mjbest.sec_per_step;
    printf("%-10s %14.3f %16.3e %10s %10s   (loop-closure gap, soft constraint)\n", "MuJoCo",
           1e6 * mj_step, mjbest.max_loop_residual, "-", "-");
    printf("ratio ours/MuJoCo time per step: %.2f (best against best)", ours_step / mj_step);
    if (npair > 0) {
      /* median of the back-to-back ratios (insertion sort: a few values) */
      for (int i = 1; i < npair; i++)
        for (int j = i; j > 0 && pair_ratio[j - 1] > pair_ratio[j]; j--) {
          double t = pair_ratio[j];
          pair_ratio[j] = pair_ratio[j - 1];
          pair_ratio[j - 1] = t;
        }
      double med = npair % 2 ? pair_ratio[npair / 2]
                             : 0.5 * (pair_ratio[npair / 2 - 1] + pair_ratio[npair / 2]);
      printf(", %.2f (median of %d back-to-back pairs, range %.2f-%.2f)", med, npair, pair_ratio[0],
             pair_ratio[npair - 1]);
    }
    printf("\n");
  } else {
    printf("MuJoCo: FAILED %s\n", mjerr);
  }
#else
  (void)pair_ratio;
  (void)npair;
  printf("MuJoCo: not built\n");
#endif

  /* ---- b. chains ------------------------------------------------------- */
  printf("\n== b. Planar N-link pendulum chain, h = 1 ms ==\n");
  printf("%6s %6s %6s %8s %12s %10s %12s %14s\n", "N", "nq", "nc", "steps", "us/step", "iter/step",
         "init ms", "max |Phi| (m)");
  const int Ns[3] = {10, 100, 1000};
  double lx[3], ly[3];
  int nfit = 0;
  for (int k = 0; k < 3; k++) {
    int n = Ns[k];
    long steps = n <= 100 ? 1000 : 200;
    lw_desc *cd = lw_desc_chain(n, 0);
    lw_model *cm = lw_compile(cd, &err);
    lw_desc_free(cd);
    if (!cm) {
      printf("%6d compile failed: %s\n", n, err.msg);
      failed = 1;
      continue;
    }
    run_result rc;
    int reps = n <= 10 ? nrep : (n <= 100 ? (nrep > 3 ? 3 : nrep) : 1);
    if (best_of(cm, steps, reps, &rc)) {
      printf("%6d FAILED: %s\n", n, rc.msg);
      failed = 1;
    } else {
      double ps = rc.t_loop / (double)steps;
      printf("%6d %6d %6d %8ld %12.1f %10.2f %12.1f %14.3e\n", n, lw_model_nq(cm), lw_model_nc(cm),
             steps, 1e6 * ps, (double)rc.iterations / (double)steps, 1e3 * rc.t_init, rc.max_phi);
      lx[nfit] = log((double)n);
      ly[nfit] = log(ps);
      nfit++;
    }
    lw_model_free(cm);
  }
  double slope = NAN;
  if (nfit >= 2) {
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < nfit; i++) {
      mx += lx[i] / nfit;
      my += ly[i] / nfit;
    }
    for (int i = 0; i < nfit; i++) {
      sxx += (lx[i] - mx) * (lx[i] - mx);
      sxy += (lx[i] - mx) * (ly[i] - my);
    }
    slope = sxy / sxx;
    printf("least-squares slope of log(time/step) vs log(N) over %d points: %.3f\n", nfit, slope);
  }

  /* ---- c. work-precision ----------------------------------------------- */
  printf("\n== c. Five-bar work-precision at t = 5 s: error = |r2(5) - r2_ref| ==\n");
  double tref = T, ref[64];
  int ncols = lw_model_output_columns(fb);
  double *row = malloc(sizeof(double) * (size_t)ncols);
  lw_ref_stats rs;
  char msg[512];
  double ref_rtol = 1e-12, ref_atol = 1e-14;
  int refok = 0;
  for (; ref_rtol <= 1e-9 && !refok; ref_rtol *= 10, ref_atol *= 10) {
    if (!lw_ref_idas_run(fb, ref_rtol, ref_atol, &tref, 1, row, &rs, msg, sizeof msg))
      refok = 1;
    else
      printf("IDAS reference at rtol %.0e failed: %s\n", ref_rtol, msg);
    if (refok)
      break;
  }
  double ours_e1 = NAN, ours_t1 = NAN, idas_t_at_e1 = NAN;
  double vi_e[6] = {NAN, NAN, NAN, NAN, NAN, NAN}, vi_t[6], vi_step_s = NAN;
  if (!refok || ncols < 2) {
    printf("no reference solution\n");
    failed = 1;
  } else {
    ref[0] = row[0];
    ref[1] = row[1];
    printf("reference: IDAS rtol %.0e atol %.0e: r2 = (%.10f, %.10f), %ld steps, %ld res evals, "
           "%.3f s, max |Phi| %.2e\n",
           ref_rtol, ref_atol, ref[0], ref[1], rs.steps, rs.nfevals, rs.wall_time_s,
           rs.max_constraint_residual);
#ifdef LW_HAVE_MUJOCO
    if (mjok)
      printf("MuJoCo (h = 1 ms) r2 error: %.3e\n", dist2(mjbest.final_r2, ref));
#endif
    const double hs[6] = {4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4};
    double oe[6], ot[6];
    printf("-- linkwright (ALI3-P, trapezoidal rule; model's solver settings) --\n");
    work_precision(fb, T, ref, hs, 6, nrep, oe, ot);
    ours_e1 = oe[2];
    ours_t1 = ot[2];
    /* the variational integrator on the same model, steps and reference:
     * its cost per step (best of nrep 5000-step runs at 1 ms) and accuracy */
    printf("-- linkwright (variational: midpoint discrete Lagrangian, constraints at positions) --\n");
    if (with_integrator(fb, "variational") == 0) {
      work_precision(fb, T, ref, hs, 6, nrep, vi_e, vi_t);
      run_result rv;
      if (best_of(fb, 5000, nrep, &rv) == 0)
        vi_step_s = rv.t_loop / 5000.0;
      with_integrator(fb, "ali3p");
    }

    printf("-- IDAS (BDF, index-1 DAE, dense DQ Jacobian), atol = 1e-2 rtol --\n");
    printf("%10s %8s %10s %12s %10s %12s\n", "rtol", "steps", "res evals", "error (m)", "wall s",
           "max |Phi|");
    double ie[8], it[8];
    int ni = 0;
    for (int k = 3; k <= 10; k++) {
      double rtol = pow(10.0, -k);
      double best = INFINITY;
      int ok = 1;
      for (int rep = 0; rep < (nrep > 3 ? 3 : nrep); rep++) {
        double t0 = now_s();
        if (lw_ref_idas_run(fb, rtol, 1e-2 * rtol, &tref, 1, row, &rs, msg, sizeof msg)) {
          ok = 0;
          break;
        }
        double w = now_s() - t0; /* whole call, incl. initialization, like ours */
        if (w < best)
          best = w;
      }
      if (!ok) {
        printf("%10.0e FAILED %s\n", rtol, msg);
        continue;
      }
      double e = dist2(row, ref);
      printf("%10.0e %8ld %10ld %12.3e %10.4f %12.2e\n", rtol, rs.steps, rs.nfevals, e, best,
             rs.max_constraint_residual);
      ie[ni] = e;
      it[ni] = best;
      ni++;
    }
    idas_t_at_e1 = time_at_error(ie, it, ni, ours_e1);

    /* d. the tolerance mode against IDAS: the time each needs for the
     * errors 1e-3 ... 1e-8 (log-log interpolation in each table) */
    for (int order = 2; order <= 4; order += 2) {
      printf("-- linkwright tolerance mode, order %d (rtol = atol = tol, rows every 10 ms interpolated) --\n",
             order);
      printf("%10s %8s %8s %12s %10s %10s %10s\n", "tol", "steps", "refused", "error (m)", "wall s", "h min",
             "h max");
      double te[12], tt[12];
      int nt = 0;
      for (int k = 3; k <= (order == 2 ? 8 : 11); k++) {
        double tol = pow(10.0, -k), w, r2[2];
        lw_sim_result st;
        if (run_tolerance(fb, tol, order, T, nrep > 3 ? 3 : nrep, &w, r2, &st)) {
          failed = 1;
          continue;
        }
        double e = dist2(r2, ref);
        printf("%10.0e %8ld %8ld %12.3e %10.4f %10.2e %10.2e\n", tol, st.steps, st.rejected, e, w, st.h_min,
               st.h_max);
        te[nt] = e;
        tt[nt] = w;
        nt++;
      }
      printf("   error    ours (s)    IDAS (s)  ours/IDAS\n");
      int worse = 0;
      for (int k = 3; k <= 8; k++) {
        double e = pow(10.0, -k), to = time_at_error(te, tt, nt, e), ti = time_at_error(ie, it, ni, e);
        printf("%8.0e %11.4f %11.4f %10.2f\n", e, to, ti, to / ti);
        if (!(to <= ti))
          worse++;
      }
      printf("order %d: %s\n", order,
             worse ? "slower than IDAS (or outside a table) at some accuracy" : "at or below IDAS at every accuracy");
    }
  }
  free(row);

  failed |= bench_a01();

  /* ---- summary ----------------------------------------------------------- */
  printf("\n== summary ==\n");
  printf("five-bar time per step (h = 1 ms): ours %.2f us", 1e6 * ours_step);
  if (mj_step == mj_step)
    printf(", MuJoCo %.2f us, ours/MuJoCo = %.2f\n", 1e6 * mj_step, ours_step / mj_step);
  else
    printf(", MuJoCo not available\n");
  printf("chain scaling: time/step ~ N^%.2f (fitted over %d of the 3 sizes%s)\n", slope, nfit,
         nfit < 3 ? "; see the FAILED row" : "");
  if (ours_e1 == ours_e1) {
    printf("five-bar at h = 1 ms: error %.2e in %.4f s", ours_e1, ours_t1);
    if (idas_t_at_e1 == idas_t_at_e1)
      printf("; IDAS needs %.4f s for the same error (ours/IDAS time = %.2f)\n", idas_t_at_e1,
             ours_t1 / idas_t_at_e1);
    else
      printf("; error outside the IDAS table\n");
  }
  if (vi_step_s == vi_step_s && ours_e1 == ours_e1)
    printf("five-bar at h = 1 ms, variational against ALI3-P: %.2f us/step against %.2f (ratio %.2f), "
           "error %.2e m against %.2e m\n",
           1e6 * vi_step_s, 1e6 * ours_step, vi_step_s / ours_step, vi_e[2], ours_e1);
  failed |= bench_startup(quick ? 1 : 3);
  printf("total bench time %.1f s\n", now_s() - t_start);
  lw_model_free(fb);
  return failed;
}
