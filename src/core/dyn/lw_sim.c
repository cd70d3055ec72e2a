/* lw_sim.c: run a model to t_end, keeping every output row so that a
 * failure mid-way leaves the results up to that time. */
#define _POSIX_C_SOURCE 200809L
#include "lw_internal.h"
#include "dyn/lw_events.h"
#include "dyn/lw_sim_tol.h"
#include "model/lw_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

/* the most steps one run may take (its table is kept in memory) */
#define LW_MAX_STEPS 1e9

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void lw_sim_result_clear(lw_sim_result *res)
{
  free(res->table);
  free(res->events);
  memset(res, 0, sizeof *res);
}

/* the rows the run keeps or hands on: every `every`-th step and the last.
 * row is the table's next free row when rows are kept (a kept row is
 * already in place: counting it keeps it) */
static int emit_row(const lw_sim_output *out, lw_sim_result *res, const double *row, long k, long nsteps)
{
  if (k % out->every != 0 && k != nsteps)
    return 0;
  res->rows++;
  return out->row ? out->row(row, res->ncols, out->user) : 0;
}

/* the rows at events (lw_events.c): handed on whatever `every`, kept in a
 * table that grows to hold them */
typedef struct {
  const lw_model *m;
  const lw_sim_output *out;
  lw_sim_result *res;
  size_t cap; /* rows the table holds */
} event_rows;

/* the table's next free row (grown when events added rows), or the one
 * row handed on; NULL when out of memory */
static double *row_slot(event_rows *er)
{
  lw_sim_result *res = er->res;
  if (!er->out->keep)
    return res->table;
  if ((size_t)res->rows + 1 > er->cap) {
    double *t = realloc(res->table, sizeof(double) * 2 * er->cap * (size_t)res->ncols);
    if (!t)
      return NULL;
    res->table = t;
    er->cap *= 2;
  }
  return res->table + (size_t)res->rows * res->ncols;
}

static int event_row(void *user, lw_data *d)
{
  event_rows *er = user;
  lw_sim_result *res = er->res;
  double *row = row_slot(er);
  if (!row)
    return 0; /* the row is not kept; the run goes on */
  row[0] = d->t;
  lw_outputs(er->m, d, row + 1);
  res->rows++;
  return er->out->row ? er->out->row(row, res->ncols, er->out->user) : 0;
}

int lw_simulate_ex(const lw_model *m, double t_end, double h, const lw_sim_output *output, lw_sim_result *res,
                   lw_progress_fn progress, void *user)
{
  lw_sim_output out = output ? *output : (lw_sim_output){1, 1, NULL, NULL};
  if (out.every < 1)
    out.every = 1;
  memset(res, 0, sizeof *res);
  res->error.time = NAN;
  if (!(h > 0) || !(t_end >= 0) || !isfinite(t_end)) {
    lw_set_error(&res->error, LW_ERR_MODEL, "solver/step", NAN, "step must be positive and t_end finite");
    return res->status = LW_ERR_MODEL;
  }
  if (m->opt.mode == LW_MODE_TOLERANCE) /* h is the output interval */
    return lw_sim_tolerance(m, t_end, h, &out, res, progress, user);
  /* a run of no step (but t_end = 0: the initial state alone), or of more
   * steps than a result table can hold, is a mistake in the settings: say
   * so rather than return nothing or overflow the table's size */
  double n = floor(t_end / h + 0.5);
  if (n < 1 && t_end > 0) {
    lw_set_error(&res->error, LW_ERR_MODEL, "solver/step", NAN,
                 "t_end %.6g s is shorter than half a step of %.6g s: the run would take no step", t_end, h);
    return res->status = LW_ERR_MODEL;
  }
  double kept = out.keep ? floor(n / (double)out.every) + 2 : 1;
  if (n > LW_MAX_STEPS || kept * (double)(1 + m->ncols) * sizeof(double) > (double)(SIZE_MAX / 2)) {
    lw_set_error(&res->error, LW_ERR_MODEL, "solver/t_end", NAN,
                 "t_end %.6g s at a step of %.6g s is %.3g steps: more than the %g a run may take", t_end, h, n,
                 (double)LW_MAX_STEPS);
    return res->status = LW_ERR_MODEL;
  }
  long nsteps = (long)n;
  res->ncols = 1 + m->ncols;
  /* the rows kept, or one row to build each in; outputs are written in
   * place: into the table's next free row, or into that one row */
  size_t nrows = out.keep ? (size_t)kept : 1;
  res->table = malloc(sizeof(double) * nrows * (size_t)res->ncols);
  if (!res->table) {
    lw_set_error(&res->error, LW_ERR_NOMEM, "", NAN, "out of memory for %zu result rows", nrows);
    return res->status = LW_ERR_NOMEM;
  }
  /* the step length is an option: a different h runs on a shallow copy of
   * the model (its arrays shared, never freed through it) with that option */
  lw_model mh;
  const lw_model *mm = m;
  lw_ev_run *ev = NULL;
  if (h != m->opt.step) {
    mh = *m;
    mh.opt.step = h;
    mm = &mh;
  }
  lw_data *d = lw_data_new(mm);
  if (!d) {
    lw_set_error(&res->error, LW_ERR_NOMEM, "", NAN, "out of memory for the workspace");
    return res->status = LW_ERR_NOMEM;
  }
  double t0 = now_s();
  int st = lw_initialize(mm, d, &res->error);
  if (st) {
    res->status = st;
    goto out;
  }
  res->max_constraint_residual = lw_constraint_residual(mm, d);
  event_rows er = {mm, &out, res, nrows};
  if (mm->nguards) {
    ev = lw_ev_run_new(mm);
    if (!ev) {
      lw_set_error(&res->error, LW_ERR_NOMEM, "", NAN, "out of memory for the events");
      res->status = LW_ERR_NOMEM;
      goto out;
    }
    lw_ev_allow_rest(ev);
    if (lw_ev_start(mm, d, ev, &res->error)) {
      res->status = LW_ERR_MODEL;
      goto out;
    }
  }
  double *row = res->table;
  row[0] = 0.0;
  lw_outputs(mm, d, row + 1);
  if (emit_row(&out, res, row, 0, nsteps)) {
    lw_set_error(&res->error, LW_OK, "", 0.0, "stopped by the receiver of the rows at t = 0 s");
    goto out;
  }
  long every = nsteps / 100 > 0 ? nsteps / 100 : 1;
  for (long k = 1; k <= nsteps; k++) {
    lw_step_info info;
    int evs = 0, resting = ev && lw_ev_resting(ev);
    if (ev)
      lw_ev_save(mm, d, ev);
    st = resting ? lw_ev_rest_step(mm, d, ev, &info, event_row, &er, &res->error, &evs)
                 : lw_step(mm, d, &info, &res->error);
    res->newton_iterations += info.iterations;
    if (info.iterations > res->max_step_iterations)
      res->max_step_iterations = info.iterations;
    if (st) {
      res->status = st;
      /* the last good state ends the rows handed on (it is in the row
       * built last, not yet counted) */
      if (out.every > 1 && (k - 1) % out.every != 0 && k > 1)
        emit_row(&out, res, row, k - 1, k - 1);
      break;
    }
    res->steps = k;
    if (info.constraint_residual > res->max_constraint_residual)
      res->max_constraint_residual = info.constraint_residual;
    if (ev && !resting)
      evs = lw_ev_after_step(mm, d, ev, event_row, &er, &res->error);
    if (evs < 0) {
      res->status = LW_ERR_SOLVER;
      break;
    }
    if (evs > 0) {
      lw_ev_stop_message(mm, ev, res, d->t);
      break;
    }
    if (out.keep && !(row = row_slot(&er))) {
      lw_set_error(&res->error, LW_ERR_NOMEM, "", d->t, "out of memory for the result rows at t = %.6g s", d->t);
      res->status = LW_ERR_NOMEM;
      break;
    }
    row[0] = d->t;
    lw_outputs(mm, d, row + 1);
    if (emit_row(&out, res, row, k, nsteps)) {
      lw_set_error(&res->error, LW_OK, "", d->t, "stopped by the receiver of the rows at t = %.6g s", d->t);
      break;
    }
    if (progress && k % every == 0 && progress((double)k / (double)nsteps, user)) {
      lw_set_error(&res->error, LW_OK, "", d->t, "cancelled at t = %.6g s", d->t);
      break;
    }
  }
out:
  if (ev && !res->events) {
    long nev;
    res->events = lw_ev_take_log(ev, &nev);
    res->nevents = nev;
  }
  lw_ev_run_free(ev);
  res->wall_time_s = now_s() - t0;
  if (!out.keep) { /* nothing was kept: no table */
    free(res->table);
    res->table = NULL;
  }
  lw_data_free(d);
  return res->status;
}

int lw_simulate(const lw_model *m, double t_end, double h, lw_sim_result *res, lw_progress_fn progress,
                void *user)
{
  return lw_simulate_ex(m, t_end, h, NULL, res, progress, user);
}
