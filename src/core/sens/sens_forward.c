/* sens_forward.c: the forward drivers: values alone (LW_SENS_VALUE) and the
 * forward sensitivities (direct differentiation, LW_SENS_FORWARD).  The
 * simulation steps on (on this thread, or on a second one: sens_pipeline.c);
 * after each step its linearization carries the parameters' columns of the
 * state, and the outputs and objectives at the new state are summed. */
#include "sens_internal.h"
#include "sens/sens_events.h"
#include "model/lw_error.h"

#include <stdlib.h>

/* the forward's arrays */
typedef struct {
  double *Sx;      /* (nx x nl) the live columns by rows: q', qd', qdd', lambda', z'; with joint
                      friction nc more rows: the last state's kappa' (sens_friction.c); with
                      numerical damping nq more: the pseudo-acceleration's a' */
  double *Sn;      /* (nx x p) the initial columns; while stepping, scratch for ah', bh', c', M ah' */
  double *Z;       /* (p x ncols) the outputs' derivatives Y Sx + YT (output table) */
  double *R, *R2;  /* (max(nv, n1) x p), (2 max(nv, n1)) right-hand sides */
  sens_pipe *pipe; /* the stepping thread, or NULL */
  sens_ev *ev;     /* the model's events (sens_events.c), or NULL */
} forward_cols;

/* the step's active parameters become live (a controller's error depends
 * on a parameter only where the step does: its pe are 0 elsewhere): Sx (nx
 * rows of nl) widens by a zero column for each, in place from its end */
static void live_cols_add(sens *s, double *Sx)
{
  for (int a = 0; a < s->nact; a++) {
    int j = s->alist[a];
    if (s->col[j] >= 0)
      continue;
    int nl = s->nl;
    for (size_t i = (size_t)s->nx + (s->m->nfric ? (size_t)s->nc : 0) + (size_t)s->na; i-- > 0;) {
      Sx[i * (nl + 1) + nl] = 0.0;
      for (int c = nl; c-- > 0;)
        Sx[i * (nl + 1) + c] = Sx[i * nl + c];
    }
    s->col[j] = nl;
    s->live[s->nl++] = j;
  }
}

/* the carried columns and their scratch (the table's rows: forward_table_alloc) */
static int forward_alloc(sens_run *r, forward_cols *f)
{
  sens *s = r->s;
  int p = s->p, nx = s->nx, n1 = s->n1, nv = r->L.nv;
  f->Sx = calloc((size_t)(nx + (r->m->nfric ? s->nc : 0) + s->na) * (p ? p : 1), sizeof(double));
  f->Sn = calloc((size_t)(nx + s->na) * (p ? p : 1), sizeof(double));
  f->Z = calloc((size_t)s->ncols * (p ? p : 1) + 1, sizeof(double));
  f->R = calloc((size_t)(nv > n1 ? nv : n1) * (p ? p : 1) + 1, sizeof(double));
  f->R2 = calloc(2 * (size_t)(nv > n1 ? nv : n1) + 1, sizeof(double));
  int tri_ok = 1;
  if (p <= 4 * LW_FEW_CHUNK && r->m->dense) {
    tri_ok = sens_tri_init(&s->tri, r->m) == 0;
    s->forward_rows = 1;
  }
  if (!f->Sx || !f->Sn || !f->Z || !f->R || !f->R2 || !tri_ok) {
    lw_set_error(r->err, LW_ERR_NOMEM, "", NAN, "out of memory for the forward sensitivities");
    return LW_ERR_NOMEM;
  }
  return LW_OK;
}

/* frees the carried columns and their scratch */
static void forward_free(forward_cols *f)
{
  free(f->Sx);
  free(f->Sn);
  free(f->Z);
  free(f->R);
  free(f->R2);
}

/* the initial state's columns: by columns into Sn, then the nonzero ones
 * (the live columns) by rows into Sx */
static void forward_initial_cols(sens_run *r, forward_cols *f)
{
  sens *s = r->s;
  int p = s->p, nx = s->nx;
  double *Sn = f->Sn, *Sx = f->Sx;
  sens_initial_solve(s, &r->L, Sn, nx, f->R, f->R2);
  for (int j = 0; j < p; j++)
    for (int i = 0; i < nx; i++)
      if (Sn[(size_t)j * nx + i] != 0.0) {
        s->col[j] = s->nl;
        s->live[s->nl++] = j;
        break;
      }
  for (int c = 0; c < s->nl; c++)
    for (int i = 0; i < nx; i++)
      Sx[(size_t)i * s->nl + c] = Sn[(size_t)s->live[c] * nx + i];
  /* the pseudo-acceleration starts as qdd: a_0' = qdd_0' */
  if (s->na)
    memcpy(Sx + (size_t)nx * s->nl, Sx + 2 * (size_t)s->nq * s->nl, sizeof(double) * (size_t)s->nq * s->nl);
}

/* the output table's rows (keep_outputs) */
static int forward_table_alloc(sens_run *r)
{
  lw_sens_result *res = r->res;
  res->ncols = 1 + r->s->ncols * (1 + r->s->p);
  res->table = malloc(sizeof(double) * (size_t)(r->s->N + 1) * (size_t)res->ncols);
  if (!res->table) {
    lw_set_error(r->err, LW_ERR_NOMEM, "", NAN, "out of memory for the output table");
    return LW_ERR_NOMEM;
  }
  return LW_OK;
}

/* the live columns carried over the step linearized in s
 * (sens_step_linearize), in the increment form of sens_carry.c; scratch in
 * Sn: x', v', the controllers' carry c', d', r' */
static void forward_carry(sens_run *r, forward_cols *f)
{
  sens *s = r->s;
  size_t np = (size_t)s->nq * s->nl;
  double *DC = f->Sn + 2 * np, *DP = DC + (size_t)s->nz * s->nl;
  sens_cols c = {f->Sx, s->nl, s->col, f->Sn, f->Sn + np, DP, DP + np, DC, f->R};
  sens_step_carry(s, &c);
}

/* the step with events just taken (st0 to st1): the live columns carried
 * by its Jacobian (sens_events.c), the parameters it moves made live */
static int forward_event_step(sens_run *r, forward_cols *f)
{
  sens *s = r->s;
  if (!r->forward || s->p == 0)
    return LW_OK;
  if (sens_ev_jacobian(f->ev))
    return r->err->status ? r->err->status : LW_ERR_SOLVER;
  sens_ev_quad_grad(f->ev, f->Sx, s->grad);
  sens_ev_times(f->ev, f->Sx);
  sens_ev_active(f->ev);
  live_cols_add(s, f->Sx);
  if (s->nl > 0)
    sens_ev_forward(f->ev, f->Sx);
  return LW_OK;
}

/* the step to state k (k >= 1) into st1 (st0 its start), from the stepping
 * thread or stepped here; with derivatives, linearized and carried */
static int forward_step(sens_run *r, forward_cols *f, long k)
{
  sens *s = r->s;
  memcpy(r->st0, r->st1, sizeof(double) * r->sl);
  if (f->pipe) {
    if (sens_pipe_get(f->pipe, k, r->st1)) {
      *r->err = *sens_pipe_error(f->pipe);
      return LW_ERR_SOLVER;
    }
    sens_state_load(s, r->st1);
  } else if (f->ev) {
    int fired = 0, status = sens_ev_step(f->ev, sens_step_set(r, k), r->st0, r->st1, &fired, s->value);
    if (status)
      return status;
    if (fired)
      return forward_event_step(r, f);
  } else {
    lw_step_info info;
    sens_state_load(s, r->st0);
    if (lw_step(sens_step_set(r, k), s->d, &info, r->err))
      return LW_ERR_SOLVER;
    sens_state_save(s, r->st1);
  }
  if (r->forward && s->p > 0) {
    if (s->m->integ->linearize(s, r->st0, r->st1, !f->pipe && !f->ev))
      return r->err->status;
    live_cols_add(s, f->Sx);
  }
  if (r->forward && s->nl > 0)
    forward_carry(r, f);
  return LW_OK;
}

/* the gradients alone: g_o += (Y^T gy_o) . Sx_j + gy_o . YT_j */
static void forward_grad_add(sens *s, const double *Sx)
{
  int nx = s->nx, ncols = s->ncols, p = s->p;
  for (int o = 0; o < s->no; o++) {
    const double *gyo = s->gy + (size_t)o * ncols;
    memset(s->e2, 0, sizeof(double) * (size_t)nx);
    const int *xs = NULL;
    int nxs = sens_outputs_cotangent(s, gyo, s->e2, &xs);
    double *g = s->grad + (size_t)o * p;
    for (int a = 0; a < (nxs < 0 ? nx : nxs); a++) {
      int x = nxs < 0 ? a : xs[a];
      double ex = s->e2[x];
      if (ex != 0.0)
        for (int c = 0; c < s->nl; c++)
          g[s->live[c]] += ex * Sx[(size_t)x * s->nl + c];
    }
    for (int a = 0; a < s->nplain; a++) { /* YT and gth are 0 for time-function values */
      int j = s->plist[a];
      g[j] += dotn(ncols, gyo, s->YT + (size_t)j * ncols) + s->gth[(size_t)o * p + j];
    }
  }
}

/* the outputs' derivatives Z = Y Sx + YT (only the used outputs' rows of Y
 * are filled), and the gradients from them: g_o += gy_o . Z_j */
static void forward_outputs_grad_add(sens *s, const double *Sx, double *Z)
{
  int nx = s->nx, ncols = s->ncols, p = s->p;
  for (int j = 0; j < p; j++) {
    double *z = Z + (size_t)j * ncols;
    memcpy(z, s->YT + (size_t)j * ncols, sizeof(double) * (size_t)ncols);
    for (int x = 0, cj = s->col[j]; cj >= 0 && x < nx; x++) {
      double dxj = Sx[(size_t)x * s->nl + cj];
      if (dxj != 0.0)
        for (int c = 0; c < ncols; c++)
          z[c] += s->Y[(size_t)x * ncols + c] * dxj;
    }
    for (int o = 0; o < s->no; o++)
      s->grad[(size_t)o * p + j] += dotn(ncols, s->gy + (size_t)o * ncols, z) + s->gth[(size_t)o * p + j];
  }
}

/* row k of the output table: t, the outputs, their derivatives (c-major) */
static void forward_table_row(sens_run *r, const double *Z, long k)
{
  lw_sens_result *res = r->res;
  int ncols = r->s->ncols, p = r->s->p;
  double *row = res->table + (size_t)k * res->ncols;
  row[0] = ST_T(r->st1);
  memcpy(row + 1, r->s->yrow, sizeof(double) * (size_t)ncols);
  for (int c = 0; c < ncols; c++)
    for (int j = 0; j < p; j++)
      row[1 + ncols + (size_t)c * p + j] = Z[(size_t)j * ncols + c];
  res->rows = k + 1;
}

/* the outputs and objectives at state k (st1), their values and gradients summed */
static void forward_accumulate(sens_run *r, forward_cols *f, long k)
{
  sens *s = r->s;
  int derivs = r->forward && s->p > 0;
  sens_outputs_at(s, r->st1, derivs, k == s->N);
  double wi, wf;
  sens_trapezoid_weights(s, k, &wi, &wf);
  sens_objectives_at(s, wi, wf, s->value);
  if (derivs && !r->res->table)
    forward_grad_add(s, f->Sx);
  else if (derivs)
    forward_outputs_grad_add(s, f->Sx, f->Z);
  if (r->res->table)
    forward_table_row(r, f->Z, k);
}

/* the states 0 .. N with their outputs and objectives (and derivatives) */
static int forward_steps(sens_run *r, forward_cols *f)
{
  sens *s = r->s;
  for (long k = 0; k <= s->N; k++) {
    int status = LW_OK;
    if (k > 0)
      status = forward_step(r, f, k);
    else
      memcpy(r->st1, r->st0, sizeof(double) * r->sl);
    if (status)
      return status;
    forward_accumulate(r, f, k);
    r->res->steps = k;
    if (sens_run_cancelled(r, k, 0.999 * (double)k / (double)(s->N + 1))) {
      lw_set_error(r->err, LW_OK, "", ST_T(r->st1), "cancelled at t = %.6g s", ST_T(r->st1));
      return -1;
    }
  }
  return LW_OK;
}

/* the arrays, the initial columns, the table, the stepping thread, then the states */
int sens_forward_run(sens_run *r)
{
  sens *s = r->s;
  lw_sens_result *res = r->res;
  forward_cols f = {0};
  int status = forward_alloc(r, &f);
  if (!status && r->forward && s->p > 0)
    forward_initial_cols(r, &f);
  if (!status && r->opt->keep_outputs)
    status = forward_table_alloc(r);
  if (!status && r->m->nguards) {
    sens_state_load(s, r->st0);
    if (!(f.ev = sens_ev_new(s)))
      status = r->err->status ? r->err->status : LW_ERR_NOMEM;
  }
  if (!status) {
    if (r->pipelined && !(f.pipe = sens_pipe_start(s)))
      s->aux = 0; /* one thread after all: no step data to keep */
    res->threads = f.pipe ? 2 : 1;
    status = forward_steps(r, &f);
  }
  if (!status)
    res->peak_bytes = sizeof(double) * ((size_t)s->nx * s->p * 2 + (f.pipe ? sens_pipe_bytes(f.pipe) : 0));
  sens_pipe_stop(f.pipe);
  if (f.ev)
    sens_ev_take_log(f.ev, res);
  sens_ev_free(f.ev);
  forward_free(&f);
  return status;
}
