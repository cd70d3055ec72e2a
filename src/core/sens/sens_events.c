/* sens_events.c: exact sensitivities through events (contacts and joint
 * limits with restitution, switches of forces; lw_events.c).  A step of the grid that holds
 * events is what lw_events.c computes from the state at t_n:
 *   the step of length tau_1 to the first event (tau_1 the root of the
 *   guard g(q) at that step's end), the impact map there (the mass-weighted
 *   projection qd+ onto J qd+ = 0, G qd+ = -e G qd-, then the accelerations
 *   and multipliers solved anew at qd+), a step of length tau_2 to the next
 *   event in the step, ..., and the step of length t_n+1 - t_event back to
 *   the grid.
 * Its derivative with respect to the state at t_n and the parameters is
 * formed here as a dense Jacobian X (nx x (nx + p)) by composing the
 * derivatives of these maps, so that the forward sensitivities apply X and
 * the adjoint its transpose:
 *   - a step of length tau (the ALI3-P step's linearization, sens_step.c,
 *     with c2 = 2/tau, c4 = 4/tau^2, carried by the smooth steps' carry,
 *     sens_carry.c) and its derivative with respect to tau: at fixed q the
 *     step's equations see tau only through qd* = c2 (q - q_n) - qd_n and
 *     qdd* = c4 (q - q_n) - 2 c2 qd_n - qdd_n, so a change dtau is the
 *     history change dbh = -(c2/tau)(q - q_n) dtau, dah = (-(2 c4/tau)(q -
 *     q_n) + (2 c2/tau) qd_n) dtau, that of a start moved by (0, (c2/tau)
 *     (q - q_n), -c4 qd_n) dtau, carried as one more column U;
 *   - the event time: g(q(tau)) = 0 gives dtau = -(G q' + g_rho) / (G U_q)
 *     (seed 003 eq. 21 for the discrete step: G U_q -> G qd- as tau -> 0);
 *     the state at the event moves by U dtau, which is where the jumps of
 *     the position and velocity sensitivities (eqs. 23, 26) come from;
 *   - the impact map, linearized from its conditions
 *       M qd+ + A^T mu = M qd-,  J qd+ = 0,  G qd+ + e G qd- = 0,  A = [J; G],
 *     in q, qd- and the parameters (mass, joints, the contact's point,
 *     normal and restitution);
 *   - the accelerations and multipliers solved anew at qd+ (the
 *     acceleration problem [M qdd - Q + J^T lambda; J qdd + gamma] = 0),
 *     re-evaluated rather than jumped (seed 003 remarks 15-16 corrected);
 *   - the last step's length t_n+1 - t_event: its change is minus the sum
 *     of the events' dtau.
 * A switch (a force turned on or off where a point crosses a plane) is an
 * event whose map keeps the velocity and solves the accelerations anew
 * with the other forces; the steps after it are linearized with the forces
 * that act there (the stored states keep the switches' sides).
 * The objectives' integrals are sums over the grid's states, so their
 * derivatives need no jump of their own (eq. 29 is what the grid sum's
 * derivative tends to).
 * Models whose equations depend on time (drivers, time functions of forces,
 * controllers) and joint friction are refused: the event's time would
 * enter them too. */
#include "sens/sens_events.h"
#include "compile/lw_vexpr.h"
#include "dyn/lw_events.h"
#include "dyn/lw_init.h"
#include "dyn/lw_rows.h"
#include "la/lw_matrix.h"
#include "lin/lw_jvp.h"
#include "model/lw_error.h"

#include <stdio.h>
#include <stdlib.h>

struct sens_ev {
  sens *s;
  lw_ev_run *ev;
  int W;              /* columns of X: nx state directions, p parameters, U */
  size_t sl;          /* doubles in a stored state */
  /* the last step with events: its start, then for each event the state at
   * it and after its impact, then its end (st: 2 + 2 nev states); each
   * event's guard and the length of the step to it */
  double *st;
  int *guard;
  double *tau;
  int nst, cap;
  double t1;          /* the step's end */
  double *X;          /* (nx x W by rows) d(state)/d(start state, parameters, U) */
  /* the step's carry (sens_carry.c): its scratch x', v', d' (nq x W each;
   * a short advance keeps the columns at its start there) and right-hand
   * sides (max(n2, n1) x W); col[j] = nx + j, parameter j's column */
  double *XP, *VP, *DP, *R;
  int *col;
  double *T, *Tsum;   /* (W) an event's dtau, their sum over the step */
  double *G, *dG, *gp, *vloc, *dvloc; /* (nq), (nq), (p), (wrow) x 2 */
  /* the impact: K = [M sA^T; sA 0] (n2 = nq + nc + 1) factored, its
   * derivatives Dq, Dv (n2 x nq), Fp (n2 x p); mu its multipliers */
  double *K, *Dq, *Dv, *Fp, *mu, *b2, *A;
  int *ip;
  /* the accelerations at qd+: K0 = [M sJ^T; sJ 0] factored, D0q, D0qd (n1 x nq), F0 (n1 x p) */
  double *K0, *D0q, *D0qd, *F0, *b1;
  int *ip0;
  double *Sn;         /* (nx x nl) scratch of the forward */
  /* the integrals' terms over the step: the grid's trapezoidal rule
   * replaced by its sub-intervals between the events; C (no x W) their
   * derivative with respect to the step's inputs, vals, cx scratch */
  double *C, *vals, *cx;
  double *Tv, *fv;    /* (cap x W) each event's dtau; ((2 + 2 cap) x no) the integrands at the states */
  double *dt;         /* (ndt x p) the run's events' time derivatives so far (forward) */
  long ndt, capdt;
};

/* ---- what is supported -------------------------------------------------- */
static int time_dependent(const lw_model *m)
{
  for (int r = 0; r < m->nc; r++)
    if (m->rows[r].func >= 0)
      return 1;
  for (int n = 0; n < m->nforces; n++)
    if (m->forces[n].func.type != LW_FUNC_CONSTANT)
      return 1;
  return m->nfbs > 0;
}

int sens_ev_supported(const lw_model *m, int derivs, lw_error *err)
{
  if (!m->nguards)
    return 0;
  const char *why = NULL;
  char path[200] = "events";
  for (int k = 0; k < m->nguards && !why; k++)
    if (m->guards[k].type == LW_EVENT_GUARD) { /* a switch goes on: its run reaches t_end */
      why = "a guard that stops the run (the run must reach t_end)";
      snprintf(path, sizeof path, "events/%s", m->desc->events[m->guards[k].event].name);
    }
  for (int k = 0; k < m->nguards && !why; k++)
    if (m->guards[k].type == LW_EVENT_CAPTURE || m->guards[k].type == LW_EVENT_COLLISION) {
      why = m->guards[k].type == LW_EVENT_CAPTURE
                ? "a capture (the constraint it adds from the capture on is not differentiated)"
                : "a collision between two bodies (its guard is not differentiated)";
      snprintf(path, sizeof path, "events/%s", m->desc->events[m->guards[k].event].name);
    }
  if (!why && derivs && m->nfbs)
    why = "controllers";
  if (!why && derivs && m->nfric)
    why = "joint friction";
  if (!why && derivs && time_dependent(m))
    why = "equations that depend on time (drivers or time functions of forces)";
  if (!why && derivs && m->integ != &lw_integ_ali3p)
    why = "an integrator other than ali3p";
  if (!why)
    return 0;
  lw_set_error(err, LW_ERR_MODEL, path, NAN,
               "objectives and sensitivities are not computed through events for a model with %s", why);
  return -1;
}

/* ---- set-up ------------------------------------------------------------- */
void sens_ev_free(sens_ev *e)
{
  if (!e)
    return;
  lw_ev_run_free(e->ev);
  free(e->dt);
  void *a[] = {e->st, e->guard, e->tau, e->X, e->XP, e->VP, e->DP, e->R, e->col, e->T, e->Tsum, e->G, e->dG,
               e->gp, e->vloc, e->dvloc, e->K, e->Dq, e->Dv, e->Fp, e->mu, e->b2, e->A, e->ip, e->K0,
               e->D0q, e->D0qd, e->F0, e->b1, e->ip0, e->Sn, e->C, e->vals, e->cx, e->Tv, e->fv};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    free(a[i]);
  free(e);
}

sens_ev *sens_ev_new(sens *s)
{
  const lw_model *m = s->m;
  sens_ev *e = calloc(1, sizeof *e);
  if (!e)
    goto nomem;
  e->s = s;
  e->ev = lw_ev_run_new(m);
  int nq = s->nq, nc = s->nc, n1 = s->n1, nx = s->nx, p = s->p, n2 = nq + nc + 1;
  size_t W = (size_t)(nx + p + 1);
  e->W = (int)W;
  e->sl = sens_state_len(s);
  e->X = calloc((size_t)nx * W, sizeof(double));
  e->XP = calloc((size_t)nq * W, sizeof(double));
  e->VP = calloc((size_t)nq * W, sizeof(double));
  e->DP = calloc((size_t)nq * W, sizeof(double));
  e->col = calloc((size_t)p + 1, sizeof(int));
  e->R = calloc((size_t)(n2 > n1 ? n2 : n1) * W, sizeof(double));
  e->T = calloc(W, sizeof(double));
  e->Tsum = calloc(W, sizeof(double));
  e->G = calloc((size_t)nq, sizeof(double));
  e->dG = calloc((size_t)nq, sizeof(double));
  e->gp = calloc((size_t)p + 1, sizeof(double));
  e->vloc = calloc((size_t)m->wrow, sizeof(double));
  e->dvloc = calloc((size_t)m->wrow, sizeof(double));
  e->K = calloc((size_t)n2 * n2, sizeof(double));
  e->Dq = calloc((size_t)n2 * nq, sizeof(double));
  e->Dv = calloc((size_t)n2 * nq, sizeof(double));
  e->Fp = calloc((size_t)n2 * (p + 1), sizeof(double));
  e->mu = calloc((size_t)n2, sizeof(double));
  e->b2 = calloc((size_t)n2, sizeof(double));
  e->A = calloc((size_t)(nc + 1) * nq, sizeof(double));
  e->ip = calloc((size_t)n2, sizeof(int));
  e->K0 = calloc((size_t)n1 * n1, sizeof(double));
  e->D0q = calloc((size_t)n1 * nq, sizeof(double));
  e->D0qd = calloc((size_t)n1 * nq, sizeof(double));
  e->F0 = calloc((size_t)n1 * (p + 1), sizeof(double));
  e->b1 = calloc((size_t)n1, sizeof(double));
  e->ip0 = calloc((size_t)n1, sizeof(int));
  e->Sn = calloc((size_t)nx * (p + 1), sizeof(double));
  e->C = calloc((size_t)(s->no + 1) * W, sizeof(double));
  e->vals = calloc((size_t)s->no + 1, sizeof(double));
  e->cx = calloc((size_t)nx, sizeof(double));
  e->cap = 8;
  e->st = malloc(sizeof(double) * e->sl * (size_t)(2 + 2 * e->cap));
  e->guard = malloc(sizeof(int) * (size_t)e->cap);
  e->tau = malloc(sizeof(double) * (size_t)e->cap);
  e->Tv = malloc(sizeof(double) * W * (size_t)e->cap);
  e->fv = malloc(sizeof(double) * (size_t)(s->no + 1) * (size_t)(2 + 2 * e->cap));
  if (!e->ev || !e->X || !e->XP || !e->VP || !e->DP || !e->R || !e->col || !e->T || !e->Tsum || !e->G || !e->dG ||
      !e->gp || !e->vloc || !e->dvloc || !e->K || !e->Dq || !e->Dv || !e->Fp || !e->mu || !e->b2 || !e->A ||
      !e->ip || !e->K0 || !e->D0q || !e->D0qd || !e->F0 || !e->b1 || !e->ip0 || !e->Sn || !e->C || !e->vals || !e->cx || !e->st ||
      !e->guard || !e->tau || !e->Tv || !e->fv) {
    sens_ev_free(e);
    goto nomem;
  }
  for (int j = 0; j < p; j++)
    e->col[j] = nx + j;
  if (lw_ev_start(m, s->d, e->ev, s->err)) {
    sens_ev_free(e);
    return NULL;
  }
  return e;
nomem:
  lw_set_error(s->err, LW_ERR_NOMEM, "", NAN, "out of memory for the events' sensitivities");
  return NULL;
}

int sens_ev_restart(sens_ev *e, const double *st)
{
  sens_state_load(e->s, st);
  long n;
  free(lw_ev_take_log(e->ev, &n));
  return lw_ev_start(e->s->m, e->s->d, e->ev, e->s->err) ? LW_ERR_MODEL : LW_OK;
}

/* ---- the step ------------------------------------------------------------ */
/* the row callback of lw_ev_after_step: called at each event (the state
 * there) and after its impact; both states kept */
static int keep_state(void *user, lw_data *d)
{
  sens_ev *e = user;
  int nev = e->nst / 2;
  if (nev >= e->cap) {
    int cap = 2 * e->cap;
    double *st = realloc(e->st, sizeof(double) * e->sl * (size_t)(2 + 2 * cap));
    int *g = realloc(e->guard, sizeof(int) * (size_t)cap);
    double *tau = realloc(e->tau, sizeof(double) * (size_t)cap);
    double *Tv = realloc(e->Tv, sizeof(double) * (size_t)e->W * (size_t)cap);
    double *fv = realloc(e->fv, sizeof(double) * (size_t)(e->s->no + 1) * (size_t)(2 + 2 * cap));
    if (Tv)
      e->Tv = Tv;
    if (fv)
      e->fv = fv;
    if (st)
      e->st = st;
    if (g)
      e->guard = g;
    if (tau)
      e->tau = tau;
    if (!st || !g || !tau || !Tv || !fv)
      return 1; /* out of memory: the run stops (and is refused below) */
    e->cap = cap;
  }
  if (e->nst % 2 == 0)
    e->guard[nev] = lw_ev_last(e->ev, &e->tau[nev]);
  sens_state_save_data(e->s, d, e->st + e->sl * (size_t)(1 + e->nst));
  e->nst++;
  return 0;
}

/* ---- the integrals over a step with events ----------------------------------- */
/* The objectives' integrals sum the trapezoidal rule over the grid (weights
 * h/2 at both ends of each step).  Over a step with events the integrand
 * jumps or kinks inside the step; its rule is taken over the sub-intervals
 * between the events instead: the state at t_n weighs tau_1/2, the states
 * at each event tau_i/2 (before the impact) and tau_i+1/2 (after it), the
 * state at t_n+1 rem/2.  Walked state by state: fn(e, st, w, i) with w the
 * weight beyond the grid's (h/2 of the grid states subtracted) and i the
 * state's place (0: the start, 1 + 2v, 2 + 2v: event v's, 2 + 2 nev: the
 * end). */
typedef void (*quad_fn)(sens_ev *e, const double *st, double w, int i, void *user);

static void quad_walk(sens_ev *e, quad_fn fn, void *user)
{
  int nev = e->nst / 2;
  size_t sl = e->sl;
  double h = e->s->h, ta = ST_T(e->st);
  for (int i = 0; i <= 2 * nev + 1; i++) {
    const double *st = e->st + sl * (size_t)i;
    double t = ST_T(st), w;
    if (i % 2 == 0) { /* the start, or after an impact: the sub-interval that follows */
      const double *nx = e->st + sl * (size_t)(i + 1);
      w = 0.5 * (ST_T(nx) - t) - (i == 0 ? 0.5 * h : 0.0);
    } else { /* at an event, or the end: the sub-interval that ends there */
      w = 0.5 * (t - ta) - (i == 2 * nev + 1 ? 0.5 * h : 0.0);
    }
    ta = t;
    fn(e, st, w, i, user);
  }
}

static void quad_value(sens_ev *e, const double *st, double w, int i, void *user)
{
  (void)i;
  sens_outputs_at(e->s, st, 0, 0);
  sens_objectives_at(e->s, w, 0.0, user);
}

/* the weight of state i (quad_walk's) */
static double quad_weight(const sens_ev *e, int i)
{
  int nev = e->nst / 2;
  size_t sl = e->sl;
  double h = e->s->h, t = ST_T(e->st + sl * (size_t)i);
  if (i % 2 == 0)
    return 0.5 * (ST_T(e->st + sl * (size_t)(i + 1)) - t) - (i == 0 ? 0.5 * h : 0.0);
  return 0.5 * (t - ST_T(e->st + sl * (size_t)(i - 1))) - (i == 2 * nev + 1 ? 0.5 * h : 0.0);
}

/* the part of state i's term w g(y) through the state (its columns X, by
 * rows; NULL: the identity) into C; g's value kept in fv for the part
 * through w (quad_weights_deriv) */
static void quad_deriv(sens_ev *e, int i, const double *Xi)
{
  sens *s = e->s;
  int nx = s->nx, W = e->W, p = s->p;
  sens_outputs_at(s, e->st + e->sl * (size_t)i, 1, 0);
  double *fv = e->fv + (size_t)i * s->no;
  memset(fv, 0, sizeof(double) * (size_t)s->no);
  sens_objectives_at(s, 1.0, 0.0, fv);
  sens_objectives_at(s, quad_weight(e, i), 0.0, NULL);
  for (int o = 0; o < s->no; o++) {
    double *c = e->C + (size_t)o * W;
    memset(e->cx, 0, sizeof(double) * (size_t)nx);
    const int *xs;
    sens_outputs_cotangent(s, s->gy + (size_t)o * s->ncols, e->cx, &xs);
    for (int r = 0; r < nx; r++) {
      double g = e->cx[r];
      if (g == 0.0)
        continue;
      if (!Xi) {
        c[r] += g;
        continue;
      }
      for (int k = 0; k < W - 1; k++)
        c[k] += g * Xi[(size_t)r * W + k];
    }
    for (int j = 0; j < p; j++)
      c[nx + j] += dotn(s->ncols, s->gy + (size_t)o * s->ncols, s->YT + (size_t)j * s->ncols) +
                   s->gth[(size_t)o * p + j];
  }
}

/* the parts through the weights: state i's w moves with the length of its
 * sub-interval, an event's dtau (Tv) or minus their sum (the last) */
static void quad_weights_deriv(sens_ev *e)
{
  sens *s = e->s;
  int W = e->W, nev = e->nst / 2;
  for (int i = 0; i <= 2 * nev + 1; i++) {
    const double *dt;
    double sg = 0.5;
    if (i == 2 * nev + 1 || (i % 2 == 0 && i / 2 >= nev))
      dt = e->Tsum, sg = -0.5;
    else
      dt = e->Tv + (size_t)(i % 2 == 0 ? i / 2 : (i - 1) / 2) * W;
    for (int o = 0; o < s->no; o++) {
      double f = e->fv[(size_t)i * s->no + o];
      double *c = e->C + (size_t)o * W;
      for (int k = 0; k < W - 1; k++)
        c[k] += sg * f * dt[k];
    }
  }
}

int sens_ev_step(sens_ev *e, const lw_model *mk, const double *st0, double *st1, int *fired, double *value)
{
  sens *s = e->s;
  const lw_model *m = mk;
  lw_data *d = s->d;
  sens_state_load(s, st0);
  memcpy(e->st, st0, sizeof(double) * e->sl);
  e->nst = 0;
  lw_ev_save(m, d, e->ev);
  lw_step_info info;
  if (lw_step(m, d, &info, s->err))
    return LW_ERR_SOLVER;
  int st = lw_ev_after_step(m, d, e->ev, keep_state, e, s->err);
  if (st < 0)
    return LW_ERR_SOLVER;
  if (st > 0) {
    double tau;
    int k = lw_ev_last(e->ev, &tau);
    lw_set_error(s->err, LW_ERR_MODEL, "events", d->t,
                 "the derivatives stop at the event '%s' at t = %.12g s: a contact or joint limit that comes to "
                 "rest there (persistent contact, which the sensitivities do not follow), a guard that stops the "
                 "run, or out of memory; objectives and sensitivities need the run to reach t_end through impacts "
                 "alone",
                 m->desc->events[m->guards[k].event].name, d->t);
    return LW_ERR_MODEL;
  }
  e->t1 = d->t;
  sens_state_save(s, st1);
  memcpy(e->st + e->sl * (size_t)(1 + e->nst), st1, sizeof(double) * e->sl);
  *fired = e->nst > 0;
  if (*fired && value && s->no)
    quad_walk(e, quad_value, value);
  return LW_OK;
}

/* ---- the derivative of one step of length h from sa to sb ------------------ */
/* the step's columns: X (the state a) becomes the state b, at a fixed
 * length, by the smooth steps' carry (sens_carry.c); column U (zero at a)
 * gets the derivative with respect to the length.  The step sees its start
 * and its length only through the history of its rates, qd* = c2 (q - q_a)
 * - qd_a and qdd* = c4 (q - q_a) - 2 c2 qd_a - qdd_a (c2 = 2/h, c4 =
 * 4/h^2): a change dh moves them by -(c2/h) dq dh and (-(2 c4/h) dq + (2
 * c2/h) qd_a) dh (dq = q_b - q_a), as a start moved by q_a' = 0, qd_a' =
 * (c2/h) dq, qdd_a' = -c4 qd_a would.  Column U starts there and is
 * carried with the others: its predictor x'_U = c2 dq - qd_a = qd* and
 * its increment over it are of the size of qd and qdd, whereas the
 * history terms themselves are of size c4 |qd| and would cancel in the
 * acceleration problem (over a piece of 1e-5 s, 7.6e-6 m/s^2 would be left
 * in a free ball's acceleration, whose derivatives are exact zeros:
 * tests/test-event-carry.c) */
static void carry_step(sens_ev *e, const double *sa, const double *sb, double h)
{
  sens *s = e->s;
  int nq = s->nq, W = e->W, u = W - 1;
  size_t np = (size_t)nq * W;
  const double *qa = ST_Q(s, sa), *qda = ST_QD(s, sa), *qb = ST_Q(s, sb);
  for (int i = 0; i < nq; i++) {
    e->X[np + (size_t)i * W + u] = (s->c2 / h) * (qb[i] - qa[i]);
    e->X[2 * np + (size_t)i * W + u] = -s->c4 * qda[i];
  }
  sens_cols c = {e->X, W, e->col, e->XP, e->VP, e->DP, NULL, NULL, e->R};
  sens_step_carry(s, &c);
}

/* the step from sa to sb of length h linearized (the step's constants set
 * for that length) and carried */
static int step_length(sens_ev *e, const double *sa, const double *sb, double h)
{
  sens *s = e->s;
  double h0 = s->h, c20 = s->c2, c40 = s->c4, sP0 = s->sP;
  int aux0 = s->aux, rows0 = s->forward_rows;
  s->h = h;
  s->c2 = 2.0 / h;
  s->c4 = 4.0 / (h * h);
  s->sP = s->c4 * s->sM;
  s->aux = 0;          /* the substeps' states keep no step data */
  s->forward_rows = 0; /* nor are the Schur factors' fill lists theirs */
  for (size_t i = 0; i < (size_t)s->nx; i++)
    e->X[i * e->W + e->W - 1] = 0.0;
  int st = s->m->integ->linearize(s, sa, sb, 0);
  if (!st)
    carry_step(e, sa, sb, h);
  s->h = h0;
  s->c2 = c20;
  s->c4 = c40;
  s->sP = sP0;
  s->aux = aux0;
  s->forward_rows = rows0;
  return st;
}

/* X += U dt for each column (dt: W entries, U: the last column of X) */
static void shift_time(sens_ev *e, const double *dt, double sign)
{
  int W = e->W;
  for (size_t i = 0; i < (size_t)e->s->nx; i++) {
    double u = e->X[i * W + W - 1];
    for (int c = 0; c < W - 1; c++)
      e->X[i * W + c] += sign * u * dt[c];
  }
}

/* ---- guards ---------------------------------------------------------------- */
/* guard k's derivatives at the positions in s->d along a position change
 * dq (tg NULL) or the parameter tg: its value's (returned) and its
 * gradient's (dG, nq) */
static double guard_jvp(sens_ev *e, int k, const double *dq, const lw_tangent *tg, double *dG)
{
  sens *s = e->s;
  const lw_model *m = s->m;
  const lw_guard *g = &m->guards[k];
  lw_data *d = s->d;
  int nq = s->nq;
  memset(dG, 0, sizeof(double) * (size_t)nq);
  if (g->type == LW_EVENT_CONTACT || g->type == LW_EVENT_SWITCH) {
    /* g = n . V(q) - offset, V linear in q: its gradient moves only with
     * the parameter; a switch's turned by its side (lw_events.c) */
    if (!tg) {
      lw_ev_guard_grad(m, d, e->ev, k, e->G);
      return dotn(nq, e->G, dq);
    }
    double sg = g->type == LW_EVENT_SWITCH && d->sw_in[g->sw] ? -1.0 : 1.0;
    const lw_guard *dg = &tg->dm->guards[k];
    double p[3] = {0, 0, 0}, dp[3] = {0, 0, 0};
    lw_vexpr_eval(m, &g->v, d->q, p);
    lw_vexpr_eval(m, &dg->v, d->q, dp);
    double v = -dg->offset;
    for (int i = 0; i < m->nd; i++)
      v += dg->n[i] * p[i] + g->n[i] * dp[i];
    int blk = g->v.body[0];
    if (g->v.nterm > 0 && blk >= 0) {
      memset(e->vloc, 0, sizeof(double) * (size_t)m->wrow);
      lw_vexpr_grad(m, &g->v, dg->n, 1.0, 1, &blk, e->vloc);
      lw_vexpr_grad(m, &dg->v, g->n, 1.0, 1, &blk, e->vloc);
      for (int i = 0; i < m->blk_n[blk]; i++)
        dG[m->blk_off[blk] + i] += sg * e->vloc[i];
    }
    return sg * v;
  }
  /* a joint limit: g = x(q) - lower or upper - x(q) */
  double sg = g->side < 0 ? 1.0 : -1.0, dx = 0.0;
  const lw_coord *c = &m->coords[g->coord];
  lw_lin_point pt = {d->q, d->qd, d->qd, d->qdd, {NULL, NULL, NULL}, d->t};
  lw_lin_dir dir = {dq, NULL, NULL, NULL, NULL, tg, -1};
  memset(e->vloc, 0, sizeof(double) * (size_t)m->wrow);
  memset(e->dvloc, 0, sizeof(double) * (size_t)m->wrow);
  lw_coord_jvp(m, tg, g->coord, &pt, &dir, &dx, NULL, e->vloc, e->dvloc);
  for (int l = 0; l < lw_loc_width(m, c->nblk, c->blk, 0); l++)
    dG[lw_loc_global(m, c->blk, l, 0)] += sg * e->dvloc[l];
  return sg * dx - (tg ? sg * tg->dm->guards[k].offset : 0.0);
}

/* the event of guard k at the end of the step just carried (s->d at that
 * state): dtau from g(q) = 0 into T, the state moved by U dtau */
static void event_time(sens_ev *e, int k, double *Tv)
{
  sens *s = e->s;
  int nq = s->nq, nx = s->nx, W = e->W, p = s->p;
  lw_ev_guard_grad(s->m, s->d, e->ev, k, e->G);
  double den = 0.0;
  for (int i = 0; i < nq; i++)
    den += e->G[i] * e->X[(size_t)i * W + W - 1];
  for (int c = 0; c < W - 1; c++) {
    double num = 0.0;
    for (int i = 0; i < nq; i++)
      num += e->G[i] * e->X[(size_t)i * W + c];
    if (c >= nx) {
      const lw_tangent *tg = s->tg[c - nx];
      if (tg && tg->any)
        num += guard_jvp(e, k, NULL, tg, e->dG);
    }
    e->T[c] = -num / den;
  }
  (void)p;
  memcpy(Tv, e->T, sizeof(double) * (size_t)W);
  shift_time(e, e->T, 1.0);
  for (int c = 0; c < W - 1; c++)
    e->Tsum[c] += e->T[c];
}

/* ---- the impact ------------------------------------------------------------ */
/* the impact's conditions at the state pre (loaded in s->d, rows
 * evaluated) and their factored matrix: A = [J; G], mu from
 * [M sA^T; sA 0] [qd+; mu/s] = [M qd-; 0; -s e G qd-] */
static int impact_matrix(sens_ev *e, int k)
{
  sens *s = e->s;
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, n2 = nq + nc + 1, w = m->wrow;
  double sc = s->sM;
  memset(e->A, 0, sizeof(double) * (size_t)(nc + 1) * nq);
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int i = 0; i < lw_loc_width(m, row->nblk, row->blk, 0); i++)
      e->A[(size_t)lw_loc_global(m, row->blk, i, 0) * (nc + 1) + r] += d->jac[(size_t)r * w + i];
  }
  lw_ev_guard_grad(m, d, e->ev, k, e->G);
  for (int i = 0; i < nq; i++)
    e->A[(size_t)i * (nc + 1) + nc] = e->G[i];
  memset(e->K, 0, sizeof(double) * (size_t)n2 * n2);
  for (int j = 0; j < nq; j++) {
    memcpy(e->K + (size_t)j * n2, s->M + (size_t)j * nq, sizeof(double) * (size_t)nq);
    for (int r = 0; r <= nc; r++) {
      double a = sc * e->A[(size_t)j * (nc + 1) + r];
      e->K[(size_t)j * n2 + nq + r] = a;
      e->K[(size_t)(nq + r) * n2 + j] = a;
    }
  }
  if (lw_lu_dense(e->K, n2, e->ip)) {
    lw_set_error(s->err, LW_ERR_SOLVER, "", d->t,
                 "the impact at t = %.6g s has dependent conditions (joints and the contact); its "
                 "sensitivities need independent ones",
                 d->t);
    return -1;
  }
  memset(e->mu, 0, sizeof(double) * (size_t)n2);
  lw_mass_mul(m, d->qd, e->mu);
  e->mu[nq + nc] = -m->guards[k].e * dotn(nq, e->G, d->qd);
  sens_kkt_solve(e->K, n2, nq, sc, e->ip, 0, e->mu, 1);
  return 0;
}

/* the impact conditions' derivatives Dq, Dv, Fp at pre (qd-: d->qd) and
 * qd+ = u, multipliers e->mu */
static void impact_derivs(sens_ev *e, int k, const double *u)
{
  sens *s = e->s;
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, n2 = nq + nc + 1, p = s->p;
  const lw_guard *g = &m->guards[k];
  const double *v = d->qd, *mu = e->mu + nq;
  double mug = mu[nc], ge = g->e;
  double *w = e->b2; /* u + e v, then u - v */
  lw_lin_point pt = {d->q, u, u, d->qdd, {mu, NULL, NULL}, d->t};
  lw_lin_out o = {NULL, {s->dJ[0], NULL, NULL}, NULL, s->dvel, NULL};
  /* dq: [H(mu_J) + mu_g dG^T; d(J u)/dq; dG (u + e v)] */
  for (int i = 0; i < nq; i++)
    w[i] = u[i] + ge * v[i];
  for (int j = 0; j < nq; j++) {
    unit_vector(s->e, nq, j);
    lw_lin_dir dir = {s->e, NULL, NULL, NULL, NULL, NULL, lw_body_of(m, j)};
    lw_lin_jvp(m, d, &pt, &dir, &o);
    double *col = e->Dq + (size_t)j * n2;
    guard_jvp(e, k, s->e, NULL, e->dG);
    for (int i = 0; i < nq; i++)
      col[i] = s->dJ[0][i] + mug * e->dG[i];
    memcpy(col + nq, s->dvel, sizeof(double) * (size_t)nc);
    col[nq + nc] = dotn(nq, e->dG, w);
  }
  /* dv: [-M; 0; e G] */
  lw_ev_guard_grad(m, d, e->ev, k, e->G);
  memset(e->Dv, 0, sizeof(double) * (size_t)n2 * nq);
  for (int j = 0; j < nq; j++) {
    for (int i = 0; i < nq; i++)
      e->Dv[(size_t)j * n2 + i] = -s->M[(size_t)j * nq + i];
    e->Dv[(size_t)j * n2 + nq + nc] = ge * e->G[j];
  }
  /* the parameters: [dM (u - v) + J_rho^T mu_J + mu_g G_rho; J_rho u; G_rho (u + e v) + de G v] */
  double gv = dotn(nq, e->G, v);
  for (int j = 0; j < p; j++) {
    double *col = e->Fp + (size_t)j * n2;
    memset(col, 0, sizeof(double) * (size_t)n2);
    const lw_tangent *tg = s->tg[j];
    if (!tg || !tg->any)
      continue;
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    lw_lin_jvp(m, d, &pt, &dir, &o);
    guard_jvp(e, k, NULL, tg, e->dG);
    for (int i = 0; i < nq; i++)
      col[i] = s->dJ[0][i] + mug * e->dG[i];
    memcpy(col + nq, s->dvel, sizeof(double) * (size_t)nc);
    col[nq + nc] = dotn(nq, e->dG, w) + tg->dm->guards[k].e * gv;
    for (int i = 0; i < nq; i++)
      e->b1[i] = u[i] - v[i];
    lw_tangent_mass_mul(m, tg, e->b1, col);
  }
}

/* the accelerations' problem at post (loaded in s->d, rows evaluated):
 * K0 factored, D0q, D0qd, F0 (as sens_initial.c's acceleration problem) */
static int accel_derivs(sens_ev *e)
{
  sens *s = e->s;
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, n1 = s->n1, p = s->p;
  sens_km_build(s, e->K0);
  if (lw_lu_dense(e->K0, n1, e->ip0)) {
    lw_set_error(s->err, LW_ERR_SOLVER, "", d->t,
                 "the acceleration problem after the impact at t = %.6g s is singular (dependent constraints)",
                 d->t);
    return -1;
  }
  lw_lin_point pa = {d->q, d->qd, d->qd, d->qdd, {d->lambda, NULL, NULL}, d->t};
  lw_lin_out oa = {s->dQ, {s->dJ[0], NULL, NULL}, NULL, NULL, s->dacc};
  for (int j = 0; j < nq; j++) {
    unit_vector(s->e, nq, j);
    lw_lin_dir dq = {s->e, NULL, NULL, NULL, NULL, NULL, lw_body_of(m, j)};
    lw_lin_jvp(m, d, &pa, &dq, &oa);
    double *c1 = e->D0q + (size_t)j * n1;
    for (int i = 0; i < nq; i++)
      c1[i] = -s->dQ[i] + s->dJ[0][i];
    memcpy(c1 + nq, s->dacc, sizeof(double) * (size_t)nc);
    lw_lin_dir dv = {NULL, s->e, s->e, NULL, NULL, NULL, lw_body_of(m, j)};
    lw_lin_jvp(m, d, &pa, &dv, &oa);
    double *c2 = e->D0qd + (size_t)j * n1;
    for (int i = 0; i < nq; i++)
      c2[i] = -s->dQ[i];
    memcpy(c2 + nq, s->dacc, sizeof(double) * (size_t)nc);
  }
  for (int j = 0; j < p; j++) {
    double *c1 = e->F0 + (size_t)j * n1;
    memset(c1, 0, sizeof(double) * (size_t)n1);
    const lw_tangent *tg = s->tg[j];
    if (!tg || !tg->any)
      continue;
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    lw_lin_jvp(m, d, &pa, &dir, &oa);
    lw_tangent_mass_mul(m, tg, d->qdd, c1);
    for (int i = 0; i < nq; i++)
      c1[i] += -s->dQ[i] + s->dJ[0][i];
    memcpy(c1 + nq, s->dacc, sizeof(double) * (size_t)nc);
  }
  return 0;
}

/* the accelerations' derivative at the state in s->d applied to column c:
 * X's qdd and lambda rows from its q and qd rows (accel_derivs' factors) */
static void accel_column(sens_ev *e, double *X, int c)
{
  sens *s = e->s;
  int nq = s->nq, nc = s->nc, n1 = s->n1, nx = s->nx, W = e->W;
  size_t np = (size_t)nq * W;
  double *r = e->R;
  memset(r, 0, sizeof(double) * (size_t)n1);
  if (c >= nx && c < W - 1)
    memcpy(r, e->F0 + (size_t)(c - nx) * n1, sizeof(double) * (size_t)n1);
  for (int j = 0; j < nq; j++) {
    double xq = X[(size_t)j * W + c], xv = X[np + (size_t)j * W + c];
    for (int i = 0; i < n1; i++)
      r[i] += e->D0q[(size_t)j * n1 + i] * xq + e->D0qd[(size_t)j * n1 + i] * xv;
  }
  sens_kkt_solve(e->K0, n1, nq, s->sM, e->ip0, 0, r, 1);
  for (int i = 0; i < nq; i++)
    X[2 * np + (size_t)i * W + c] = -r[i];
  for (int i = 0; i < nc; i++)
    X[3 * np + (size_t)i * W + c] = -r[nq + i];
}

/* a switch from state pre to post applied to X's columns: the velocity
 * carried as it is, the accelerations and multipliers solved anew with the
 * forces that act at post (seed 003 eq. 28 in the discrete form: the jump
 * of the velocity's sensitivity comes from the step to the event, whose
 * length moves, and the step after it, which sees the new forces) */
static int switch_apply(sens_ev *e, const double *post)
{
  sens *s = e->s;
  sens_state_load(s, post);
  lw_rows_eval(s->m, s->d, s->d->q, s->d->t, 1);
  if (accel_derivs(e))
    return -1;
  for (int c = 0; c < e->W - 1; c++)
    accel_column(e, e->X, c);
  return 0;
}

/* the impact of guard k from state pre to post applied to X's columns */
static int impact_apply(sens_ev *e, int k, const double *pre, const double *post)
{
  if (e->s->m->guards[k].type == LW_EVENT_SWITCH)
    return switch_apply(e, post);
  sens *s = e->s;
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, nx = s->nx, W = e->W, n2 = nq + nc + 1;
  size_t np = (size_t)nq * W;
  sens_state_load(s, pre);
  lw_rows_eval(m, d, d->q, d->t, 1);
  if (impact_matrix(e, k))
    return -1;
  impact_derivs(e, k, ST_QD(s, post));
  double *r = e->R; /* n2 for the impact, then n1 for the accelerations */
  double *X = e->X;
  /* qd+' = -(K^-1 (Dq q' + Dv qd- ' + Fp))_q, column by column */
  for (int c = 0; c < W - 1; c++) {
    memset(r, 0, sizeof(double) * (size_t)n2);
    if (c >= nx)
      memcpy(r, e->Fp + (size_t)(c - nx) * n2, sizeof(double) * (size_t)n2);
    for (int j = 0; j < nq; j++) {
      double xq = X[(size_t)j * W + c], xv = X[np + (size_t)j * W + c];
      if (xq != 0.0)
        for (int i = 0; i < n2; i++)
          r[i] += e->Dq[(size_t)j * n2 + i] * xq;
      if (xv != 0.0)
        for (int i = 0; i < n2; i++)
          r[i] += e->Dv[(size_t)j * n2 + i] * xv;
    }
    sens_kkt_solve(e->K, n2, nq, s->sM, e->ip, 0, r, 1);
    for (int i = 0; i < nq; i++)
      X[np + (size_t)i * W + c] = -r[i];
  }
  /* the accelerations and multipliers at qd+ */
  sens_state_load(s, post);
  lw_rows_eval(m, d, d->q, d->t, 1);
  if (accel_derivs(e))
    return -1;
  for (int c = 0; c < W - 1; c++)
    accel_column(e, X, c);
  return 0;
}

/* ---- a short advance ------------------------------------------------------- */
/* the advance of length len from sa by lw_events.c's predictor-corrector
 * (a sub-step shorter than LW_EV_SHORT of its step): with a0 = qdd_a,
 *   p: q = q_a + len qd_a + len^2/2 a0, qd = qd_a + len a0, (qdd, lambda)_p solved;
 *   b: the same with a = (a0 + qdd_p)/2, (qdd, lambda)_b solved;
 * X carried through both, column U its derivative with respect to len */
static int short_length(sens_ev *e, const double *sa, const double *sb, double len)
{
  sens *s = e->s;
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, W = e->W, u = W - 1;
  size_t np = (size_t)nq * W;
  double *X = e->X;
  const double *qa = ST_Q(s, sa), *qda = ST_QD(s, sa), *a0 = ST_QDD(s, sa);
  /* the columns at a, kept: Q0 (q), V0 (qd), A0 (qdd) */
  double *Q0 = e->XP, *V0 = e->VP, *A0 = e->DP;
  for (size_t i = 0; i < (size_t)s->nx; i++)
    X[i * W + u] = 0.0;
  memcpy(Q0, X, sizeof(double) * np);
  memcpy(V0, X + np, sizeof(double) * np);
  memcpy(A0, X + 2 * np, sizeof(double) * np);
  /* the predicted state again, as lw_events.c computes it */
  sens_state_load(s, sa);
  for (int i = 0; i < nq; i++) {
    d->q[i] = qa[i] + len * qda[i] + 0.5 * len * len * a0[i];
    d->qd[i] = qda[i] + len * a0[i];
  }
  d->t = ST_T(sa) + len;
  lw_rows_eval(m, d, d->q, d->t, 1);
  if (lw_accelerations(m, d, d->t, s->err) || accel_derivs(e))
    return -1;
  double *qddp = e->b2; /* (n2 >= nq) */
  memcpy(qddp, d->qdd, sizeof(double) * (size_t)nq);
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < nq; i++)
      for (int c = 0; c < W; c++) {
        size_t ic = (size_t)i * W + c;
        double da = pass ? 0.5 * (A0[ic] + X[2 * np + ic]) : A0[ic];
        double acc = pass ? 0.5 * (a0[i] + qddp[i]) : a0[i];
        double dr = c == u ? 1.0 : 0.0;
        X[ic] = Q0[ic] + len * V0[ic] + 0.5 * len * len * da + (qda[i] + len * acc) * dr;
        X[np + ic] = V0[ic] + len * da + acc * dr;
      }
    if (pass == 1) {
      sens_state_load(s, sb);
      lw_rows_eval(m, d, d->q, d->t, 1);
      if (accel_derivs(e))
        return -1;
    }
    for (int c = 0; c < W; c++)
      accel_column(e, X, c);
  }
  return 0;
}

/* ---- the step's Jacobian ----------------------------------------------------- */
/* the sub-step from sa to sb of length len: a step, or a short advance */
static int sub_step(sens_ev *e, const double *sa, const double *sb, double len, double ref)
{
  return len < LW_EV_SHORT * ref ? short_length(e, sa, sb, len) : step_length(e, sa, sb, len);
}

int sens_ev_jacobian(sens_ev *e)
{
  sens *s = e->s;
  int nx = s->nx, W = e->W, nev = e->nst / 2;
  size_t sl = e->sl;
  memset(e->X, 0, sizeof(double) * (size_t)nx * W);
  for (int i = 0; i < nx; i++)
    e->X[(size_t)i * W + i] = 1.0;
  memset(e->Tsum, 0, sizeof(double) * (size_t)W);
  memset(e->C, 0, sizeof(double) * (size_t)s->no * W);
  int quad = s->no > 0;
  if (quad)
    quad_deriv(e, 0, NULL);
  const double *sa = e->st;
  for (int v = 0; v < nev; v++) {
    const double *pre = e->st + sl * (size_t)(1 + 2 * v), *post = pre + sl;
    double tau = e->tau[v], tau1 = e->t1 - ST_T(sa);
    if (sub_step(e, sa, pre, tau, tau1))
      return -1;
    sens_state_load(s, pre);
    event_time(e, e->guard[v], e->Tv + (size_t)v * W);
    if (quad)
      quad_deriv(e, 1 + 2 * v, e->X);
    if (impact_apply(e, e->guard[v], pre, post))
      return -1;
    if (quad)
      quad_deriv(e, 2 + 2 * v, e->X);
    sa = post;
  }
  double rem = e->t1 - ST_T(sa);
  if (rem > 0) {
    /* the state the step ended at: the last state kept after it */
    const double *sb = e->st + sl * (size_t)(1 + e->nst);
    if (sub_step(e, sa, sb, rem, s->m->opt.step))
      return -1;
    shift_time(e, e->Tsum, -1.0);
  }
  if (quad) {
    quad_deriv(e, 1 + e->nst, e->X);
    quad_weights_deriv(e);
  }
  return 0;
}

void sens_ev_quad_grad(const sens_ev *e, const double *Sx, double *grad)
{
  const sens *s = e->s;
  int nx = s->nx, W = e->W, p = s->p, nl = s->nl;
  for (int o = 0; o < s->no; o++) {
    const double *c = e->C + (size_t)o * W;
    double *g = grad + (size_t)o * p;
    for (int j = 0; j < p; j++)
      g[j] += c[nx + j];
    for (int r = 0; r < nx; r++)
      if (c[r] != 0.0)
        for (int k = 0; k < nl; k++)
          g[s->live[k]] += c[r] * Sx[(size_t)r * nl + k];
  }
}

/* ---- applying it ----------------------------------------------------------- */
void sens_ev_active(sens_ev *e)
{
  sens *s = e->s;
  int nx = s->nx, W = e->W;
  s->nact = 0;
  for (int j = 0; j < s->p; j++) {
    int on = 0;
    for (int i = 0; i < nx && !on; i++)
      on = e->X[(size_t)i * W + nx + j] != 0.0;
    if (on)
      s->alist[s->nact++] = j;
  }
}

void sens_ev_times(sens_ev *e, const double *Sx)
{
  sens *s = e->s;
  int nx = s->nx, W = e->W, p = s->p, nl = s->nl, nev = e->nst / 2;
  if (e->ndt + nev > e->capdt) {
    long cap = 2 * (e->ndt + nev) + 8;
    double *dt = realloc(e->dt, sizeof(double) * (size_t)cap * (size_t)(p + 1));
    if (!dt)
      return; /* the list stops (sens_ev_take_log hands none on) */
    e->dt = dt;
    e->capdt = cap;
  }
  for (int v = 0; v < nev; v++) {
    double *dt = e->dt + (size_t)(e->ndt + v) * p;
    if (v == 0)
      memset(dt, 0, sizeof(double) * (size_t)p);
    else
      memcpy(dt, dt - p, sizeof(double) * (size_t)p);
    const double *T = e->Tv + (size_t)v * W;
    for (int j = 0; j < p; j++)
      dt[j] += T[nx + j];
    for (int r = 0; r < nx; r++)
      if (T[r] != 0.0)
        for (int c = 0; c < nl; c++)
          dt[s->live[c]] += T[r] * Sx[(size_t)r * nl + c];
  }
  e->ndt += nev;
}

void sens_ev_take_log(sens_ev *e, lw_sens_result *res)
{
  long n;
  free(res->events);
  free(res->event_dt);
  res->events = lw_ev_take_log(e->ev, &n);
  res->nevents = n;
  res->event_dt = NULL;
  if (e->ndt == n && n > 0 && e->s->p > 0) {
    res->event_dt = e->dt;
    e->dt = NULL;
    e->ndt = e->capdt = 0;
  }
}

void sens_ev_forward(sens_ev *e, double *Sx)
{
  sens *s = e->s;
  int nx = s->nx, W = e->W, nl = s->nl;
  double *Y = e->Sn;
  for (int i = 0; i < nx; i++) {
    const double *x = e->X + (size_t)i * W;
    for (int c = 0; c < nl; c++) {
      double v = x[nx + s->live[c]];
      for (int r = 0; r < nx; r++)
        v += x[r] * Sx[(size_t)r * nl + c];
      Y[(size_t)i * nl + c] = v;
    }
  }
  memcpy(Sx, Y, sizeof(double) * (size_t)nx * nl);
}

void sens_ev_adjoint(const sens_ev *e, int o, const double *cx, double *cprev, double *grad)
{
  const sens *s = e->s;
  int nx = s->nx, W = e->W;
  memset(cprev, 0, sizeof(double) * (size_t)nx);
  for (int i = 0; i < nx; i++) {
    double c = cx[i];
    if (c == 0.0)
      continue;
    const double *x = e->X + (size_t)i * W;
    for (int r = 0; r < nx; r++)
      cprev[r] += x[r] * c;
    for (int j = 0; j < s->p; j++)
      grad[j] += x[nx + j] * c;
  }
  /* the integrals' terms over the step */
  const double *q = e->C + (size_t)o * W;
  for (int r = 0; r < nx; r++)
    cprev[r] += q[r];
  for (int j = 0; j < s->p; j++)
    grad[j] += q[nx + j];
}
