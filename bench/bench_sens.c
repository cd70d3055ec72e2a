/* bench-sens: the cost of gradients against the cost of one simulation.
 *
 * For the five-bar (seed 002 sec. 7.1, h = 1 ms, 5 s, p = 5 parameters) and
 * the spatial slider-crank with spring (sec. 7.2, p = 4): one simulation,
 * the objective evaluation alone, forward (on one thread, and with the
 * simulation stepped on a second thread alongside) and discrete adjoint
 * gradients (one objective and all objectives), central finite differences (2p + 1
 * simulations) and the adjoint with checkpointing; ratios to one
 * simulation in wall and in processor time, the memory the adjoint keeps,
 * and the agreement of the gradients.  Best of N repetitions; the simulation, the objective alone
 * and the gradients of one objective in turn, best of at least 7 rounds.
 *
 * Then the five-bar's psi1 by SUNDIALS IDAS (src/ref/lw_ref_idas_sens.h) on
 * the index-1 form of the same model: the simulation alone, forward (p = 5)
 * and adjoint sensitivities at several tolerances, each against IDAS's own
 * simulation at that tolerance and against ours, and the gradient error of
 * each, ours at h = 1 ms included, against IDAS forward at rtol 1e-12.
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
#include "lw_ref_idas_sens.h"

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* best wall time of nrep simulations; its processor time into *cpu */
static double sim_time(const lw_desc *d, int nrep, double *cpu)
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
    double t0 = now_s(), c0 = cpu_s();
    int st = lw_simulate(m, d->solver.t_end, d->solver.step, &r, NULL, NULL);
    double t = now_s() - t0, c = cpu_s() - c0;
    if (st) {
      printf("simulation failed: %s\n", r.error.msg);
      exit(1);
    }
    lw_sim_result_clear(&r);
    if (t < best && cpu)
      *cpu = c;
    best = fmin(best, t);
  }
  lw_model_free(m);
  return best;
}

typedef struct {
  double time, cpu; /* wall and processor time (of the best) */
  int threads;
  double value;    /* the first objective */
  double grad[64];
  size_t bytes;
  int recomputed;
} run;

/* threads: lw_sens_options.threads (forward: 1 one thread, 0 the simulation stepped alongside) */
static run sens(const lw_desc *d, lw_sens_method method, int nobj, size_t mem, int nrep, int threads)
{
  int P[32], O[8];
  for (int j = 0; j < d->nparams; j++)
    P[j] = j;
  for (int o = 0; o < nobj; o++)
    O[o] = o;
  lw_sens_options opt = {.method = method, .nparams = d->nparams, .params = P, .nobj = nobj,
                         .objectives = O, .memory_limit = mem, .fd_step = 1e-6, .threads = threads};
  run best = {.time = INFINITY};
  for (int k = 0; k < nrep; k++) {
    lw_sens_result r;
    double t0 = now_s(), c0 = cpu_s();
    int st = lw_sensitivity(d, &opt, &r);
    double t = now_s() - t0, c = cpu_s() - c0;
    if (st) {
      printf("sensitivity failed: %s\n", r.error.msg);
      exit(1);
    }
    if (t < best.time) {
      best.time = t;
      best.cpu = c;
      best.threads = r.threads;
      best.value = r.value[0];
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

/* what the IDAS section compares with: our simulation time and our runs
 * with the first objective */
typedef struct {
  double ts;
  run val, f1, a1;
} model_runs;

static model_runs bench_model(const char *file, int nrep)
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
   * the objective summed (which includes it).  These two and the gradients
   * of one objective are timed in turn, round after round (at least 7),
   * best of each: a slower or faster minute of the host falls on all four
   * alike, not on the reference alone. */
  double tsim = INFINITY, csim = 0;
  run val = {.time = INFINITY}, f1 = {.time = INFINITY}, f2 = {.time = INFINITY}, a1 = {.time = INFINITY};
  for (int k = 0; k < (nrep > 7 ? nrep : 7); k++) {
    double c = 0, t = sim_time(d, 1, &c);
    if (t < tsim)
      tsim = t, csim = c;
    run r = sens(d, LW_SENS_VALUE, 1, 0, 1, 1);
    if (r.time < val.time)
      val = r;
    r = sens(d, LW_SENS_FORWARD, 1, 0, 1, 1);
    if (r.time < f1.time)
      f1 = r;
    r = sens(d, LW_SENS_FORWARD, 1, 0, 1, 0);
    if (r.time < f2.time)
      f2 = r;
    r = sens(d, LW_SENS_ADJOINT, 1, 0, 1, 1);
    if (r.time < a1.time)
      a1 = r;
  }
  double ts = fmin(tsim, val.time), cs = tsim <= val.time ? csim : val.cpu;
  run fa = sens(d, LW_SENS_FORWARD, no, 0, nrep, 1);
  run aa = sens(d, LW_SENS_ADJOINT, no, 0, nrep, 1);
  run ac = sens(d, LW_SENS_ADJOINT, 1, 64 << 10, nrep, 1);
  run fd = sens(d, LW_SENS_FD, 1, 0, 1, 1);
  printf("%-44s %10s %10s %10s %14s   (x sim: against the faster of the first two rows)\n", "run", "wall s",
         "x sim", "cpu x sim", "kept bytes");
  printf("%-44s %10.4f %10.2f %10.2f\n", "simulation (lw_simulate)", tsim, tsim / ts, csim / cs);
  printf("%-44s %10.4f %10.2f %10.2f\n", "objective value only", val.time, val.time / ts, val.cpu / cs);
  printf("%-44s %10.4f %10.2f %10.2f %14zu\n", "forward, 1 objective, one thread", f1.time, f1.time / ts,
         f1.cpu / cs, f1.bytes);
  char lab[64];
  snprintf(lab, sizeof lab, "forward, 1 objective, %d threads", f2.threads);
  printf("%-44s %10.4f %10.2f %10.2f %14zu\n", lab, f2.time, f2.time / ts, f2.cpu / cs, f2.bytes);
  printf("%-44s %10.4f %10.2f %10.2f %14zu\n", "adjoint, 1 objective", a1.time, a1.time / ts, a1.cpu / cs,
         a1.bytes);
  snprintf(lab, sizeof lab, "forward, %d objectives (one thread)", no);
  printf("%-44s %10.4f %10.2f %10.2f %14zu\n", lab, fa.time, fa.time / ts, fa.cpu / cs, fa.bytes);
  snprintf(lab, sizeof lab, "adjoint, %d objectives", no);
  printf("%-44s %10.4f %10.2f %10.2f %14zu\n", lab, aa.time, aa.time / ts, aa.cpu / cs, aa.bytes);
  printf("%-44s %10.4f %10.2f %10.2f %14zu%s\n", "adjoint, 1 objective, checkpoints (64 KiB)", ac.time,
         ac.time / ts, ac.cpu / cs, ac.bytes, ac.recomputed ? "" : " (not needed)");
  snprintf(lab, sizeof lab, "central differences (%d simulations)", 2 * p + 1);
  printf("%-44s %10.4f %10.2f %10.2f\n", lab, fd.time, fd.time / ts, fd.cpu / cs);
  double tf = 1 + 0.2 * p;
  printf("targets at p = %d: forward <= 1 + 0.2 p = %.1f x sim: one thread %.2f (%s), %d threads %.2f wall (%s), "
         "%.2f processor time; adjoint <= 2.5 x sim: %.2f (%s)\n",
         p, tf, f1.time / ts, f1.time / ts <= tf ? "met" : "NOT met", f2.threads, f2.time / ts,
         f2.time / ts <= tf ? "met" : "NOT met", f2.cpu / cs, a1.time / ts, a1.time / ts <= 2.5 ? "met" : "NOT met");
  printf("agreement: forward vs adjoint %.2e, two threads vs one %.2e, checkpointed vs stored %.2e, central "
         "differences (1e-6) vs adjoint %.2e\n",
         maxrel(f1.grad, a1.grad, p), maxrel(f2.grad, f1.grad, p), maxrel(ac.grad, a1.grad, p),
         maxrel(fd.grad, a1.grad, p));
  lw_desc_free(d);
  return (model_runs){ts, val, f1, a1};
}

/* max_j |a_j - ref_j| / max_j |ref_j| */
static double normrel(const double *a, const double *ref, int n)
{
  double e = 0, s = 0;
  for (int i = 0; i < n; i++) {
    e = fmax(e, fabs(a[i] - ref[i]));
    s = fmax(s, fabs(ref[i]));
  }
  return e / s;
}

typedef struct {
  double time, value, grad[32];
  long steps, steps_b;
} idas_run;

static idas_run idas(const lw_model *m, lw_ref_sens_method method, double rtol, int p, int nrep)
{
  int P[32];
  for (int j = 0; j < p; j++)
    P[j] = j;
  lw_ref_sens_options o = {.method = method, .rtol = rtol, .atol = 1e-2 * rtol, .objective = 0, .nparams = p,
                           .params = P};
  idas_run best = {.time = INFINITY};
  for (int k = 0; k < nrep; k++) {
    idas_run r;
    lw_ref_sens_stats st;
    char msg[512];
    if (lw_ref_idas_sens(m, &o, &r.value, r.grad, &st, msg, sizeof msg)) {
      printf("IDAS failed: %s\n", msg);
      exit(1);
    }
    r.time = st.wall_time_s;
    r.steps = st.steps;
    r.steps_b = st.steps_b;
    if (r.time < best.time)
      best = r;
  }
  return best;
}

static void bench_idas(const char *file, const model_runs *ours, int nrep)
{
  lw_error err;
  lw_desc *d = lw_model_read_file(file, NULL, &err);
  lw_model *m = d ? lw_compile(d, &err) : NULL;
  if (!m) {
    printf("%s\n", err.msg);
    exit(1);
  }
  int p = d->nparams;
  long steps = (long)floor(d->solver.t_end / d->solver.step + 0.5);
  printf("\n== %s, objective %s by SUNDIALS IDAS, best of %d ==\n", d->name, d->objectives[0].name, nrep);
  printf("the index-1 form y = [q; v; lam]: BDF orders 1-5, dense LU, central-difference Jacobians and sensitivity "
         "residuals, the multipliers left out of every error test, atol = rtol / 100\n");
  /* the reference, and ours at a small step as its check */
  idas_run ref = idas(m, LW_REF_FORWARD, 1e-12, p, 1);
  /* ours at an eighth of the step: an option of the compiled model, set
   * for this run and put back */
  double h8 = d->solver.step / 8;
  int P[32], O = 0;
  for (int j = 0; j < p; j++)
    P[j] = j;
  lw_sens_options so = {.method = LW_SENS_ADJOINT, .nparams = p, .params = P, .nobj = 1, .objectives = &O};
  lw_sens_result r8;
  if (lw_model_set_step(m, h8, &err) || lw_sensitivity_model(m, &so, &r8) ||
      lw_model_set_step(m, d->solver.step, &err)) {
    printf("sensitivity failed: %s\n", err.status ? err.msg : r8.error.msg);
    exit(1);
  }
  printf("reference: IDAS forward at rtol 1e-12 (%ld steps); our adjoint at h = %g ms differs from it by %.1e "
         "(gradient), %.1e (value)\n",
         ref.steps, 1e3 * h8, normrel(r8.gradient, ref.grad, p),
         fabs(r8.value[0] - ref.value) / fabs(ref.value));
  lw_sens_result_clear(&r8);
  printf("value err: |psi - psi_ref| / |psi_ref|; grad err: max_j |g_j - g_ref,j| / max_j |g_ref,j|; x IDAS sim: "
         "against IDAS's simulation at the same rtol; x our sim: against ours, %.4f s\n",
         ours->ts);
  printf("%-7s %-38s %9s %11s %10s %14s %10s %10s\n", "rtol", "run", "wall s", "x IDAS sim", "x our sim", "steps",
         "value err", "grad err");
  double tols[4] = {1e-4, 1e-6, 1e-8, 1e-10};
  char lab[64], stp[32];
  for (int k = 0; k < 4; k++) {
    idas_run sim = idas(m, LW_REF_VALUE, tols[k], p, nrep);
    idas_run fw = idas(m, LW_REF_FORWARD, tols[k], p, nrep);
    idas_run ad = idas(m, LW_REF_ADJOINT, tols[k], p, nrep);
    printf("%-7.0e %-38s %9.4f %11.2f %10.2f %14ld %10.1e %10s\n", tols[k], "IDAS simulation (psi by quadrature)",
           sim.time, 1.0, sim.time / ours->ts, sim.steps, fabs(sim.value - ref.value) / fabs(ref.value), "-");
    snprintf(lab, sizeof lab, "IDAS forward sensitivities, p = %d", p);
    printf("%-7s %-38s %9.4f %11.2f %10.2f %14ld %10.1e %10.1e\n", "", lab, fw.time, fw.time / sim.time,
           fw.time / ours->ts, fw.steps, fabs(fw.value - ref.value) / fabs(ref.value), normrel(fw.grad, ref.grad, p));
    snprintf(stp, sizeof stp, "%ld + %ld", ad.steps, ad.steps_b);
    printf("%-7s %-38s %9.4f %11.2f %10.2f %14s %10.1e %10.1e\n", "", "IDAS adjoint, 1 objective", ad.time,
           ad.time / sim.time, ad.time / ours->ts, stp, fabs(ad.value - ref.value) / fabs(ref.value),
           normrel(ad.grad, ref.grad, p));
  }
  snprintf(lab, sizeof lab, "ours, h = %g ms: simulation", 1e3 * d->solver.step);
  printf("%-7s %-38s %9.4f %11s %10.2f %14ld %10.1e %10s\n", "-", lab, ours->ts, "-", 1.0, steps,
         fabs(ours->val.value - ref.value) / fabs(ref.value), "-");
  snprintf(lab, sizeof lab, "ours, h = %g ms: forward, p = %d", 1e3 * d->solver.step, p);
  printf("%-7s %-38s %9.4f %11s %10.2f %14ld %10.1e %10.1e\n", "-", lab, ours->f1.time, "-", ours->f1.time / ours->ts,
         steps, fabs(ours->f1.value - ref.value) / fabs(ref.value), normrel(ours->f1.grad, ref.grad, p));
  snprintf(lab, sizeof lab, "ours, h = %g ms: adjoint, 1 objective", 1e3 * d->solver.step);
  printf("%-7s %-38s %9.4f %11s %10.2f %14ld %10.1e %10.1e\n", "-", lab, ours->a1.time, "-", ours->a1.time / ours->ts,
         steps, fabs(ours->a1.value - ref.value) / fabs(ref.value), normrel(ours->a1.grad, ref.grad, p));
  lw_model_free(m);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  int nrep = quick ? 1 : 3;
  model_runs fb = bench_model(LW_SOURCE_ROOT "/models/five-bar.json", nrep);
  bench_model(LW_SOURCE_ROOT "/models/slider-crank.json", nrep);
  bench_idas(LW_SOURCE_ROOT "/models/five-bar.json", &fb, nrep);
  printf("\nthe cost for p = 10, 100, 1000 (a 601-value force spline) is printed by bench-opt --scaling\n");
  return 0;
}
