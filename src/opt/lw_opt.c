/* lw_opt.c: design optimization with NLopt and exact gradients. */
#define _POSIX_C_SOURCE 200809L
#include "lw_opt.h"

#include <math.h>
#include <nlopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_err(lw_error *e, int status, const char *path, const char *fmt, ...)
{
  memset(e, 0, sizeof *e);
  e->status = status;
  e->time = NAN;
  snprintf(e->path, sizeof e->path, "%s", path ? path : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
}

double lw_projected_gradient_norm(int n, const double *x, const double *g, const double *lo, const double *hi)
{
  double m = 0;
  for (int i = 0; i < n; i++) {
    double y = x[i] - g[i];
    if (lo && y < lo[i])
      y = lo[i];
    if (hi && y > hi[i])
      y = hi[i];
    m = fmax(m, fabs(y - x[i]));
  }
  return m;
}

int lw_opt_variables(const lw_desc *d, const lw_problem_desc *p, int **params, double **lower, double **upper,
                     double **scale, lw_error *err)
{
  int n = 0, cap = 16;
  int *P = malloc(sizeof(int) * (size_t)cap);
  double *lo = malloc(sizeof(double) * (size_t)cap), *hi = malloc(sizeof(double) * (size_t)cap),
         *sc = malloc(sizeof(double) * (size_t)cap);
  char path[160];
  for (int v = 0; v < p->nvars; v++) {
    const lw_var_desc *vd = &p->vars[v];
    snprintf(path, sizeof path, "problems/%s/variables/%d", p->name, v);
    int found = 0;
    if (vd->has_lower && vd->has_upper && !(vd->lower <= vd->upper)) {
      set_err(err, LW_ERR_MODEL, path, "problem '%s': infeasible bounds for '%s': lower %.17g > upper %.17g",
              p->name, vd->parameter, vd->lower, vd->upper);
      goto fail;
    }
    if (!(vd->scale > 0) || !isfinite(vd->scale)) {
      set_err(err, LW_ERR_MODEL, path, "problem '%s': the scale of '%s' must be a positive number", p->name,
              vd->parameter);
      goto fail;
    }
    for (int j = 0; j < d->nparams; j++) {
      if (!lw_param_name_matches(vd->parameter, d->params[j].name))
        continue;
      for (int k = 0; k < n; k++)
        if (P[k] == j) {
          set_err(err, LW_ERR_MODEL, path, "problem '%s': parameter '%s' is a variable twice", p->name,
                  d->params[j].name);
          goto fail;
        }
      if (n == cap) {
        cap *= 2;
        P = realloc(P, sizeof(int) * (size_t)cap);
        lo = realloc(lo, sizeof(double) * (size_t)cap);
        hi = realloc(hi, sizeof(double) * (size_t)cap);
        sc = realloc(sc, sizeof(double) * (size_t)cap);
      }
      P[n] = j;
      lo[n] = vd->has_lower ? vd->lower : -HUGE_VAL;
      hi[n] = vd->has_upper ? vd->upper : HUGE_VAL;
      sc[n] = vd->scale;
      n++;
      found = 1;
    }
    if (!found) {
      set_err(err, LW_ERR_MODEL, path,
              "problem '%s': '%s' is not a parameter of this model (design variables must be parameters)",
              p->name, vd->parameter);
      goto fail;
    }
  }
  if (n == 0) {
    set_err(err, LW_ERR_MODEL, "", "problem '%s' has no design variables", p->name);
    goto fail;
  }
  *params = P;
  *lower = lo;
  *upper = hi;
  *scale = sc;
  return n;
fail:
  free(P);
  free(lo);
  free(hi);
  free(sc);
  return -1;
}

/* ---- the optimization ------------------------------------------------------- */
typedef struct {
  lw_desc *d;                 /* working copy: parameter values set per evaluation */
  const lw_problem_desc *pb;
  const lw_opt_options *opt;
  lw_opt_result *res;
  int n, nobj;
  int *P, *O;
  double *lo, *hi, *sc;       /* unscaled bounds, scales */
  double *slo, *shi;          /* scaled bounds */
  double sign;                /* -1 when maximizing */
  int method;
  nlopt_opt o;
  /* the evaluation cache */
  double *cx;
  int cvalid, cfailed;
  double *cval, *cgrad;       /* (nobj), (nobj x n) unscaled */
  double cf, cviol, cpg;
  double *gs;                 /* scaled objective gradient (n) */
  /* the best design */
  int have_best, best_feasible;
  double best_f, best_viol, best_pg;
  double *best_xs, *best_g;
  /* this start */
  int start, consecutive_failures;
  double pg0;
  int pg0_set;
  int stop_reason;            /* 1 gradient, 2 user, 3 failures */
  double ctol;
} ctx;

static double con_value(const ctx *c, int k, const double *val)
{
  const lw_con_desc *cd = &c->pb->cons[k];
  double v = val[1 + k];
  return cd->type == LW_CON_GE ? cd->value - v : v - cd->value;
}

static void hist_push(ctx *c, double f, double viol, double pg)
{
  lw_opt_result *r = c->res;
  int k = r->nhist++;
  if ((k & (k - 1)) == 0) {
    size_t cap = k ? 2 * (size_t)k : 1;
    r->hist_f = realloc(r->hist_f, sizeof(double) * cap);
    r->hist_violation = realloc(r->hist_violation, sizeof(double) * cap);
    r->hist_pgnorm = realloc(r->hist_pgnorm, sizeof(double) * cap);
    r->hist_start = realloc(r->hist_start, sizeof(int) * cap);
  }
  r->hist_f[k] = f;
  r->hist_violation[k] = viol;
  r->hist_pgnorm[k] = pg;
  r->hist_start[k] = c->start;
}

static void evaluate(ctx *c, const double *xs)
{
  int n = c->n;
  if (c->cvalid && !memcmp(xs, c->cx, sizeof(double) * (size_t)n))
    return;
  memcpy(c->cx, xs, sizeof(double) * (size_t)n);
  c->cvalid = 1;
  for (int j = 0; j < n; j++)
    c->d->params[c->P[j]].value = xs[j] * c->sc[j];
  lw_sens_options so = {0};
  so.method = c->method;
  so.nparams = n;
  so.params = c->P;
  so.nobj = c->nobj;
  so.objectives = c->O;
  lw_sens_result r;
  int st = lw_sensitivity(c->d, &so, &r);
  lw_opt_result *res = c->res;
  res->evaluations++;
  lw_opt_progress pr = {0};
  pr.start = c->start;
  pr.n = n;
  double *xv = malloc(sizeof(double) * (size_t)n);
  for (int j = 0; j < n; j++)
    xv[j] = xs[j] * c->sc[j];
  pr.x = xv;
  if (st) {
    c->cfailed = 1;
    res->failed_evaluations++;
    c->consecutive_failures++;
    const lw_error *e = &r.error;
    if (isfinite(e->time))
      snprintf(res->last_failure, sizeof res->last_failure, "%s%s%.400s (t = %.6g s)", e->path,
               e->path[0] ? ": " : "", e->msg, e->time);
    else
      snprintf(res->last_failure, sizeof res->last_failure, "%s%s%.400s", e->path, e->path[0] ? ": " : "", e->msg);
    pr.failed = 1;
    pr.message = res->last_failure;
    pr.f = NAN;
    pr.violation = NAN;
    pr.pgnorm = NAN;
    hist_push(c, NAN, NAN, NAN);
  } else {
    c->cfailed = 0;
    c->consecutive_failures = 0;
    memcpy(c->cval, r.value, sizeof(double) * (size_t)c->nobj);
    memcpy(c->cgrad, r.gradient, sizeof(double) * (size_t)c->nobj * (size_t)n);
    c->cf = c->sign * r.value[0];
    double viol = 0;
    for (int k = 0; k < c->pb->ncons; k++) {
      double g = con_value(c, k, r.value);
      viol = fmax(viol, c->pb->cons[k].type == LW_CON_EQ ? fabs(g) : g);
    }
    c->cviol = viol;
    for (int j = 0; j < n; j++)
      c->gs[j] = c->sign * r.gradient[j] * c->sc[j];
    c->cpg = lw_projected_gradient_norm(n, xs, c->gs, c->slo, c->shi);
    int feasible = viol <= c->ctol;
    int better = !c->have_best || (feasible && !c->best_feasible) ||
                 (feasible && c->best_feasible && c->cf < c->best_f) ||
                 (!feasible && !c->best_feasible && viol < c->best_viol);
    if (better) {
      c->have_best = 1;
      c->best_feasible = feasible;
      c->best_f = c->cf;
      c->best_viol = viol;
      c->best_pg = c->cpg;
      memcpy(c->best_xs, xs, sizeof(double) * (size_t)n);
      for (int j = 0; j < n; j++)
        c->best_g[j] = r.gradient[j];
      res->iterations++;
    }
    if (!c->pg0_set) {
      c->pg0 = c->cpg;
      c->pg0_set = 1;
    }
    pr.f = c->sign * c->cf;
    pr.violation = viol;
    pr.pgnorm = c->cpg;
    hist_push(c, pr.f, viol, c->cpg);
    if (feasible && c->pg0 > 0 && c->cpg <= c->pb->gradient_tolerance * c->pg0 && c->pb->ncons == 0) {
      c->stop_reason = 1;
      nlopt_force_stop(c->o);
    }
  }
  lw_sens_result_clear(&r);
  pr.evaluation = res->evaluations;
  pr.iteration = res->iterations;
  pr.best_f = c->have_best ? c->sign * c->best_f : NAN;
  if (c->opt && c->opt->progress && c->opt->progress(&pr, c->opt->user)) {
    c->stop_reason = 2;
    nlopt_force_stop(c->o);
  }
  if (c->cfailed && (!c->have_best || c->consecutive_failures >= 20)) {
    c->stop_reason = 3;
    nlopt_force_stop(c->o);
  }
  free(xv);
}

/* a failed simulation: a value well above the best so far, rising toward x,
 * so that a line search steps back toward the best design */
static double penalty(const ctx *c, const double *xs, double *grad)
{
  double K = 1e3 * (1.0 + (c->have_best ? fabs(c->best_f) : 0.0));
  double d2 = 0;
  for (int j = 0; j < c->n; j++) {
    double dx = c->have_best ? xs[j] - c->best_xs[j] : 0.0;
    d2 += dx * dx;
  }
  if (grad)
    for (int j = 0; j < c->n; j++)
      grad[j] = d2 > 0 ? 2.0 * K * (xs[j] - c->best_xs[j]) / d2 : 0.0;
  return (c->have_best ? c->best_f : 0.0) + K;
}

/* The objective as the optimizer sees it: without constraints, divided by
 * the projected gradient's norm at the initial design.  NLopt's L-BFGS also
 * stops on a test of its own on the gradient's absolute size (about 1e-8),
 * which an objective of large or small scale would otherwise meet before
 * the gradient tolerance, or never; so scaled, the gradient tolerance
 * (relative to the initial gradient) decides. */
static double f_obj(unsigned n, const double *x, double *grad, void *data)
{
  ctx *c = data;
  (void)n;
  evaluate(c, x);
  double fs = c->pb->ncons == 0 && c->pg0_set && c->pg0 > 0 ? 1.0 / c->pg0 : 1.0;
  double f = c->cfailed ? penalty(c, x, grad) : c->cf;
  if (grad && !c->cfailed)
    memcpy(grad, c->gs, sizeof(double) * (size_t)c->n);
  if (grad)
    for (int j = 0; j < c->n; j++)
      grad[j] *= fs;
  return f * fs;
}

typedef struct {
  ctx *c;
  int k;
} con_data;

static double f_con(unsigned n, const double *x, double *grad, void *data)
{
  con_data *cd = data;
  ctx *c = cd->c;
  (void)n;
  evaluate(c, x);
  if (c->cfailed) {
    if (grad)
      memset(grad, 0, sizeof(double) * (size_t)c->n);
    return 1e3;
  }
  double s = c->pb->cons[cd->k].type == LW_CON_GE ? -1.0 : 1.0;
  if (grad)
    for (int j = 0; j < c->n; j++)
      grad[j] = s * c->cgrad[(size_t)(1 + cd->k) * c->n + j] * c->sc[j];
  return con_value(c, cd->k, c->cval);
}

static uint64_t xorshift(uint64_t *s)
{
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

static double uniform(uint64_t *s) { return (double)(xorshift(s) >> 11) * (1.0 / 9007199254740992.0); }

static const char *code_text(nlopt_result r)
{
  switch (r) {
  case NLOPT_SUCCESS: return "converged";
  case NLOPT_STOPVAL_REACHED: return "the objective reached its stop value";
  case NLOPT_FTOL_REACHED: return "the relative change of the objective fell below f_tolerance";
  case NLOPT_XTOL_REACHED: return "the relative change of the design fell below x_tolerance";
  case NLOPT_MAXEVAL_REACHED: return "max_evaluations reached";
  case NLOPT_MAXTIME_REACHED: return "the time limit was reached";
  case NLOPT_ROUNDOFF_LIMITED: return "round-off limited: the objective cannot decrease further at this precision";
  case NLOPT_FORCED_STOP: return "stopped";
  case NLOPT_OUT_OF_MEMORY: return "out of memory";
  case NLOPT_INVALID_ARGS: return "invalid arguments to the optimizer";
  default: return "the optimizer failed";
  }
}

void lw_opt_result_clear(lw_opt_result *r)
{
  free(r->params);
  free(r->x0);
  free(r->x);
  free(r->grad);
  free(r->hist_f);
  free(r->hist_violation);
  free(r->hist_pgnorm);
  free(r->hist_start);
  lw_desc_free(r->optimized);
  memset(r, 0, sizeof *r);
}

/* the problem's settings that NLopt cannot take, or objectives that do not
 * exist: an error in res (LW_ERR_MODEL), else 0 with the objectives'
 * indices in c->O (the problem's objective, then its constraints') */
static int opt_check(ctx *c, const lw_desc *desc, int alg)
{
  const lw_problem_desc *pb = c->pb;
  lw_opt_result *res = c->res;
  char path[160];
  snprintf(path, sizeof path, "problems/%s", pb->name);
  int neq = 0;
  for (int k = 0; k < pb->ncons; k++)
    neq += pb->cons[k].type == LW_CON_EQ;
  if (c->method != LW_SENS_ADJOINT && c->method != LW_SENS_FORWARD && c->method != LW_SENS_FD) {
    set_err(&res->error, LW_ERR_MODEL, path, "problem '%s': unknown gradient method", pb->name);
    return res->status = LW_ERR_MODEL;
  }
  if (alg == LW_OPT_LBFGS && pb->ncons > 0) {
    set_err(&res->error, LW_ERR_MODEL, path,
            "problem '%s' has constraints; lbfgs takes bounds only (use mma, slsqp or auglag)", pb->name);
    return res->status = LW_ERR_MODEL;
  }
  if (alg == LW_OPT_MMA && neq > 0) {
    set_err(&res->error, LW_ERR_MODEL, path,
            "problem '%s' has equality constraints; mma takes inequalities only (use slsqp or auglag)", pb->name);
    return res->status = LW_ERR_MODEL;
  }
  int io = lw_desc_objective_index(desc, pb->objective);
  if (io < 0) {
    set_err(&res->error, LW_ERR_MODEL, path, "problem '%s': objective '%s' does not exist", pb->name,
            pb->objective ? pb->objective : "");
    return res->status = LW_ERR_MODEL;
  }
  c->nobj = 1 + pb->ncons;
  c->O = malloc(sizeof(int) * (size_t)c->nobj);
  c->O[0] = io;
  for (int k = 0; k < pb->ncons; k++) {
    c->O[1 + k] = lw_desc_objective_index(desc, pb->cons[k].objective);
    if (c->O[1 + k] < 0) {
      snprintf(path, sizeof path, "problems/%s/constraints/%d", pb->name, k);
      set_err(&res->error, LW_ERR_MODEL, path, "problem '%s': constraint objective '%s' does not exist", pb->name,
              pb->cons[k].objective ? pb->cons[k].objective : "");
      return res->status = LW_ERR_MODEL;
    }
  }
  return 0;
}

/* the design variables (c->P, bounds, scales) and the buffers of c and
 * res for n of them; the scaled start in xs0 (a start outside the bounds
 * moved onto them).  -1 (res->error set) when the variables are not
 * usable */
static int opt_setup(ctx *c, const lw_desc *desc, double **xs0)
{
  lw_opt_result *res = c->res;
  int n = lw_opt_variables(desc, c->pb, &c->P, &c->lo, &c->hi, &c->sc, &res->error);
  if (n < 0)
    return -1;
  c->n = n;
  c->d = lw_desc_copy(desc);
  res->n = n;
  res->params = malloc(sizeof(int) * (size_t)n);
  memcpy(res->params, c->P, sizeof(int) * (size_t)n);
  res->x0 = malloc(sizeof(double) * (size_t)n);
  res->x = malloc(sizeof(double) * (size_t)n);
  res->grad = calloc((size_t)n, sizeof(double));
  c->slo = malloc(sizeof(double) * (size_t)n);
  c->shi = malloc(sizeof(double) * (size_t)n);
  c->cx = malloc(sizeof(double) * (size_t)n);
  c->gs = malloc(sizeof(double) * (size_t)n);
  c->best_xs = malloc(sizeof(double) * (size_t)n);
  c->best_g = calloc((size_t)n, sizeof(double));
  c->cval = malloc(sizeof(double) * (size_t)c->nobj);
  c->cgrad = malloc(sizeof(double) * (size_t)c->nobj * (size_t)n);
  *xs0 = malloc(sizeof(double) * (size_t)n);
  for (int j = 0; j < n; j++) {
    c->slo[j] = isfinite(c->lo[j]) ? c->lo[j] / c->sc[j] : -HUGE_VAL;
    c->shi[j] = isfinite(c->hi[j]) ? c->hi[j] / c->sc[j] : HUGE_VAL;
    double v = desc->params[c->P[j]].value;
    res->x0[j] = v;
    v = fmin(fmax(v, c->lo[j]), c->hi[j]); /* a start outside the bounds moves onto them */
    (*xs0)[j] = v / c->sc[j];
  }
  return n;
}

static void ctx_free(ctx *c)
{
  free(c->O);
  free(c->P);
  free(c->lo);
  free(c->hi);
  free(c->sc);
  free(c->slo);
  free(c->shi);
  free(c->cx);
  free(c->gs);
  free(c->best_xs);
  free(c->best_g);
  free(c->cval);
  free(c->cgrad);
  lw_desc_free(c->d);
}

/* start s's scaled design in xs: the model's for the first, else drawn
 * uniformly within finite bounds (or within 1 of the model's, in scaled
 * units, where a bound is infinite) */
static void start_point(const ctx *c, int s, const double *xs0, uint64_t *rng, double *xs)
{
  if (s == 0) {
    memcpy(xs, xs0, sizeof(double) * (size_t)c->n);
    return;
  }
  for (int j = 0; j < c->n; j++) {
    double u = uniform(rng);
    if (isfinite(c->slo[j]) && isfinite(c->shi[j]))
      xs[j] = c->slo[j] + u * (c->shi[j] - c->slo[j]);
    else
      xs[j] = fmin(fmax(xs0[j] + (2.0 * u - 1.0), c->slo[j]), c->shi[j]);
  }
}

/* one NLopt run of algorithm na from xs (left at its end) */
static nlopt_result run_start(ctx *c, nlopt_algorithm na, int maxeval, con_data *cd, double *xs)
{
  const lw_problem_desc *pb = c->pb;
  unsigned n = (unsigned)c->n;
  c->o = nlopt_create(na, n);
  nlopt_set_lower_bounds(c->o, c->slo);
  nlopt_set_upper_bounds(c->o, c->shi);
  nlopt_set_min_objective(c->o, f_obj, c);
  nlopt_set_maxeval(c->o, maxeval);
  nlopt_set_ftol_rel(c->o, pb->f_tolerance);
  nlopt_set_xtol_rel(c->o, pb->x_tolerance);
  if (na == NLOPT_AUGLAG) {
    nlopt_opt local = nlopt_create(NLOPT_LD_LBFGS, n);
    nlopt_set_ftol_rel(local, pb->f_tolerance);
    nlopt_set_xtol_rel(local, pb->x_tolerance);
    nlopt_set_local_optimizer(c->o, local);
    nlopt_destroy(local);
  }
  for (int k = 0; k < pb->ncons; k++) {
    cd[k].c = c;
    cd[k].k = k;
    if (pb->cons[k].type == LW_CON_EQ)
      nlopt_add_equality_constraint(c->o, f_con, &cd[k], 1e-8);
    else
      nlopt_add_inequality_constraint(c->o, f_con, &cd[k], 1e-8);
  }
  double fval = 0;
  c->cvalid = 0;
  nlopt_result last = nlopt_optimize(c->o, xs, &fval);
  nlopt_destroy(c->o);
  c->o = NULL;
  return last;
}

/* why the last start stopped, in res->stop */
static void stop_text(const ctx *c, nlopt_result last)
{
  lw_opt_result *res = c->res;
  if (c->stop_reason == 1)
    snprintf(res->stop, sizeof res->stop, "the projected gradient fell to %.3g of its initial value",
             c->pg0 > 0 ? c->cpg / c->pg0 : 0.0);
  else if (c->stop_reason == 2)
    snprintf(res->stop, sizeof res->stop, "cancelled");
  else if (c->stop_reason == 3)
    snprintf(res->stop, sizeof res->stop, "%s",
             c->have_best ? "20 evaluations in a row failed" : "the initial design cannot be simulated");
  else
    snprintf(res->stop, sizeof res->stop, "%s", code_text(last));
}

/* the best design found, as values and as the optimized model; or the
 * failure when no design could be simulated */
static void opt_finish(const ctx *c, const lw_desc *desc)
{
  lw_opt_result *res = c->res;
  int n = c->n;
  if (!c->have_best) {
    set_err(&res->error, LW_ERR_SOLVER, "", "problem '%s': no design could be simulated: %s", c->pb->name,
            res->last_failure);
    res->status = LW_ERR_SOLVER;
    return;
  }
  for (int j = 0; j < n; j++)
    res->x[j] = c->best_xs[j] * c->sc[j];
  memcpy(res->grad, c->best_g, sizeof(double) * (size_t)n);
  res->f = c->sign * c->best_f;
  res->violation = c->best_viol;
  res->pgnorm = c->best_pg;
  /* the optimized model: parameter values and the fields they bind */
  res->optimized = lw_desc_copy(desc);
  for (int j = 0; j < n; j++)
    res->optimized->params[c->P[j]].value = res->x[j];
  lw_desc_apply_params(res->optimized);
  res->status = LW_OK;
}

int lw_optimize(const lw_desc *desc, int problem, const lw_opt_options *opt, lw_opt_result *res)
{
  memset(res, 0, sizeof *res);
  res->error.time = NAN;
  double t0 = now_s();
  if (problem < 0 || problem >= desc->nproblems) {
    set_err(&res->error, LW_ERR_MODEL, "problems", "problem index %d out of range (the model has %d)", problem,
            desc->nproblems);
    return res->status = LW_ERR_MODEL;
  }
  const lw_problem_desc *pb = &desc->problems[problem];
  ctx C = {0}, *c = &C;
  c->pb = pb;
  c->opt = opt;
  c->res = res;
  c->sign = pb->maximize ? -1.0 : 1.0;
  c->ctol = 1e-6;
  int alg = opt && opt->algorithm >= 0 ? opt->algorithm : (int)pb->algorithm;
  c->method = opt && opt->gradient >= 0 ? opt->gradient : pb->gradient;
  int maxeval = opt && opt->max_evaluations > 0 ? opt->max_evaluations : pb->max_evaluations;
  int starts = opt && opt->multistart > 0 ? opt->multistart : pb->multistart;
  double *xs0 = NULL;
  if (opt_check(c, desc, alg) || opt_setup(c, desc, &xs0) < 0) {
    ctx_free(c);
    return res->status = LW_ERR_MODEL;
  }
  double *xs = malloc(sizeof(double) * (size_t)c->n);
  nlopt_algorithm na = alg == LW_OPT_MMA     ? NLOPT_LD_MMA
                       : alg == LW_OPT_SLSQP ? NLOPT_LD_SLSQP
                       : alg == LW_OPT_AUGLAG ? NLOPT_AUGLAG
                                              : NLOPT_LD_LBFGS;
  con_data *cd = calloc((size_t)pb->ncons + 1, sizeof *cd);
  uint64_t rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)pb->seed * 0xD1B54A32D192ED03ull);
  if (!rng)
    rng = 1;
  for (int s = 0; s < starts; s++) {
    c->start = s;
    c->pg0_set = 0;
    c->stop_reason = 0;
    c->consecutive_failures = 0;
    start_point(c, s, xs0, &rng, xs);
    nlopt_result last = run_start(c, na, maxeval, cd, xs);
    res->starts = s + 1;
    if (s == 0) {
      /* the initial design is the first evaluation */
      res->f0 = res->nhist > 0 ? res->hist_f[0] : NAN;
      res->pgnorm0 = res->nhist > 0 ? res->hist_pgnorm[0] : NAN;
    }
    stop_text(c, last);
    if (c->stop_reason == 2 || (c->stop_reason == 3 && !c->have_best))
      break;
  }
  opt_finish(c, desc);
  res->wall_time_s = now_s() - t0;
  free(cd);
  free(xs0);
  free(xs);
  ctx_free(c);
  return res->status;
}
