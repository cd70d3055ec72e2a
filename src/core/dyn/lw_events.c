/* lw_events.c: a run through events (seed 003 sec. 1.5, remark 7).
 *
 * Every guard (m->guards: a contact's gap, a joint limit's distance to its
 * bound, an output's distance to a value) is evaluated after each step.  A
 * sign change in the guard's direction is an event inside the step; its
 * time is found on the integrator itself: the step is taken again from the
 * saved state at t_n with a length tau, and tau is the root of the guard at
 * the step's end, found by the Illinois variant of regula falsi started
 * from the root of the guard along the step's cubic Hermite interpolant of
 * q (q_n, qd_n, q_n+1, qd_n+1).  At the event the state is exactly the one a
 * step of that length reaches.
 *
 * An impact (contact, limit) then applies Newton's restitution with the
 * joints held: the post-impact velocity is the mass-weighted projection of
 * the pre-impact one onto
 *   J qd+ = -Phi_t,   G qd+ = -e G qd-   (G = dg/dq, the guard's gradient),
 * qd+ = qd- - M^-1 A^T mu,  (A M^-1 A^T) mu = A qd- - b,  A = [J; G];
 * the kinetic energy falls by exactly (1 - e^2) times that of the normal
 * motion.  Accelerations and multipliers are solved anew at the new
 * velocity and the step goes on from the event to the step's end, so rows
 * stay on the step grid.  A guard's stop ends the run at the event.
 *
 * Persistent contact (seed 003 remark 11): an impact slower than the
 * guard's rest speed (the bouncing would go on with ever shorter flights:
 * Zeno) is made plastic and the guard rests: the run steps a model
 * compiled with one more row, the gap g(q) = 0, whose multiplier is the
 * contact's normal force, while that force pushes; where it falls to zero
 * (located like an impact, on the resting model's steps) the guard is
 * released and the free model steps on.  Any number of guards rest at
 * once: the set resting has a model of its own (a row each, in the order
 * they came to rest), a guard coming to rest is struck with the others
 * held and joins the set, a resting row that then pulls lets go, and in a
 * step the rows whose forces fall through zero first are released
 * together.  After a change of the set the rest of the step is taken on
 * the new set's model.  The sensitivities do not follow a resting guard:
 * for them (allow_rest 0) the slow impact ends the run.
 *
 * A switch's point crossing its plane (located as an impact) turns its
 * force on or off: the velocity stays and the accelerations are solved
 * anew with the forces that act from then on. */
#include "dyn/lw_events.h"
#include "lw_internal.h"
#include "compile/lw_compile.h"
#include "compile/lw_vexpr.h"
#include "dyn/lw_forces.h"
#include "dyn/lw_init.h"
#include "dyn/lw_rows.h"
#include "dyn/lw_step.h"
#include "la/lw_matrix.h"
#include "model/lw_error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* events one step may hold before the run is declared stuck */
#define LW_EV_MAX_PER_STEP 1000
/* samples of the interpolant when looking for the first crossing */
#define LW_EV_SAMPLES 32

/* the state a step reads and writes */
typedef struct {
  double t, t0, h;
  long nstep;
  double *q, *qd, *qdd, *lambda, *coords, *fbz, *fbc, *fbcs;
  double *kap, *fric_work; /* friction reads lambda + kap; its work so far */
  double fb_beta, dissipated, applied_work;
  int fric_kap_ok;
  double sw; /* the switches' sides (lw_switches_pack) */
} ev_state;

/* a set of resting guards: the model holding their gaps at zero (one row
 * each after the joints', in the set's order) and its workspace */
typedef struct {
  int n;
  int *set;
  lw_model *mr;
  lw_data *dr;
} ev_rest;

struct lw_ev_run {
  int ng, nq, na;   /* guards, coordinates, rows of A (nc + 1) */
  ev_state s0;      /* the start of the (sub)step */
  ev_state tmp;     /* a state handed between the models with and without a resting row */
  double *g0;       /* (ng) raw guard values at s0 */
  char *zero;       /* (ng) the guard sits at zero at s0 (just fired, or started there) */
  double *q1, *qd1; /* the step's end, kept for the interpolant */
  double *qh;       /* interpolated q */
  double *out;      /* (ncols) outputs */
  char *use;        /* (nout) the outputs the guards read */
  double *grad;     /* (wrow) a row's local gradient, contiguous over its blocks */
  double *gv;       /* (ng) the guards at the step's end */
  double *a0;       /* (nq) accelerations at the start of a short advance */
  double *A, *W, *S, *S0, *mu, *rhs, *res; /* the impact's projection */
  lw_event_record *log;
  long nlog, caplog;
  double t_end; /* the time g0 belongs to (NAN: none) */
  int last_guard;   /* the guard located last, and */
  double last_tau;  /* its time after the start of the (sub)step it was found in */
  /* persistent contact: a slow impact makes its guard rest (its gap held
   * at zero by a constraint row of a model compiled for the set of guards
   * that rest, one row each in the order they came to rest) until the
   * row's multiplier turns tensile */
  int allow_rest;   /* 0: a slow impact ends the run instead (sensitivities) */
  ev_rest *cur;     /* the set resting now (its model and workspace), NULL: none */
  ev_rest **sets;   /* the sets met so far, each compiled once */
  int nsets, capsets;
  int *set;         /* (ng) a set being formed */
  double *f0, *f1, *fn; /* (ng) the resting guards' forces at a step's start and end, and scratch */
  char *cand;       /* (ng) the resting guards whose force falls through zero in the step */
  double *lam, *kap; /* (ng) resting rows' multipliers handed between sets */
  /* the steps to and from an event of step_m: taken by stepfn (the
   * tolerance mode's extrapolated step) where set, else step_sized */
  const lw_model *step_m;
  lw_ev_step_fn stepfn;
  void *step_user;
  int stop_at_impact; /* after an impact return 2 at the event, not step on */
  double rest_h;      /* the step of the default rest speed g h (0: the model's step) */
};

static void state_free(ev_state *s)
{
  double *a[] = {s->q, s->qd, s->qdd, s->lambda, s->coords, s->fbz, s->fbc, s->fbcs, s->kap, s->fric_work};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    free(a[i]);
}

static void rest_set_free(ev_rest *e)
{
  if (!e)
    return;
  lw_data_free(e->dr);
  lw_model_free(e->mr);
  free(e->set);
  free(e);
}

void lw_ev_run_free(lw_ev_run *ev)
{
  if (!ev)
    return;
  state_free(&ev->s0);
  state_free(&ev->tmp);
  void *a[] = {ev->g0, ev->zero, ev->q1, ev->qd1, ev->qh, ev->out, ev->use, ev->grad,
               ev->gv, ev->a0, ev->A, ev->W, ev->S, ev->S0, ev->mu, ev->rhs, ev->res, ev->log,
               ev->set, ev->f0, ev->f1, ev->fn, ev->cand, ev->lam, ev->kap};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    free(a[i]);
  for (int k = 0; k < ev->nsets; k++)
    rest_set_free(ev->sets[k]);
  free(ev->sets);
  free(ev);
}

/* a state's arrays for models of up to nc rows; -1 when out of memory */
static int state_alloc(const lw_model *m, ev_state *s, size_t nc)
{
  size_t nq = (size_t)m->nq;
  s->q = calloc(nq, sizeof(double));
  s->qd = calloc(nq, sizeof(double));
  s->qdd = calloc(nq, sizeof(double));
  s->lambda = calloc(nc + 1, sizeof(double));
  s->coords = calloc((size_t)m->ncoords + 1, sizeof(double));
  s->fbz = calloc((size_t)m->nfbs + 1, sizeof(double));
  s->fbc = calloc((size_t)m->nfbs + 1, sizeof(double));
  s->fbcs = calloc((size_t)m->nfbs + 1, sizeof(double));
  s->kap = calloc(nc + 1, sizeof(double));
  s->fric_work = calloc((size_t)m->nfric + 1, sizeof(double));
  if (s->q && s->qd && s->qdd && s->lambda && s->coords && s->fbz && s->fbc && s->fbcs && s->kap && s->fric_work)
    return 0;
  state_free(s);
  memset(s, 0, sizeof *s);
  return -1;
}

lw_ev_run *lw_ev_run_new(const lw_model *m)
{
  lw_ev_run *ev = calloc(1, sizeof *ev);
  if (!ev)
    return NULL;
  /* room for a resting row of every guard besides the impact's */
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc + (size_t)m->nguards, na = nc + 1;
  ev->ng = m->nguards;
  ev->nq = m->nq;
  ev->na = (int)na;
  size_t ng1 = (size_t)ev->ng + 1;
  ev->set = calloc(ng1, sizeof(int));
  ev->f0 = calloc(ng1, sizeof(double));
  ev->f1 = calloc(ng1, sizeof(double));
  ev->fn = calloc(ng1, sizeof(double));
  ev->cand = calloc(ng1, 1);
  ev->lam = calloc(ng1, sizeof(double));
  ev->kap = calloc(ng1, sizeof(double));
  if (state_alloc(m, &ev->tmp, nc))
    ev->tmp.q = NULL;
  ev_state *s = &ev->s0;
  s->q = calloc(nq, sizeof(double));
  s->qd = calloc(nq, sizeof(double));
  s->qdd = calloc(nq, sizeof(double));
  s->lambda = calloc(nc + 1, sizeof(double));
  s->coords = calloc((size_t)m->ncoords + 1, sizeof(double));
  s->fbz = calloc((size_t)m->nfbs + 1, sizeof(double));
  s->fbc = calloc((size_t)m->nfbs + 1, sizeof(double));
  s->fbcs = calloc((size_t)m->nfbs + 1, sizeof(double));
  s->kap = calloc(nc + 1, sizeof(double));
  s->fric_work = calloc((size_t)m->nfric + 1, sizeof(double));
  ev->g0 = calloc((size_t)ev->ng + 1, sizeof(double));
  ev->zero = calloc((size_t)ev->ng + 1, 1);
  ev->q1 = calloc(nq, sizeof(double));
  ev->qd1 = calloc(nq, sizeof(double));
  ev->qh = calloc(nq, sizeof(double));
  ev->out = calloc((size_t)m->ncols + 1, sizeof(double));
  ev->use = calloc((size_t)m->nout + 1, 1);
  ev->grad = calloc((size_t)m->wrow, sizeof(double));
  ev->A = calloc(na * nq, sizeof(double));
  ev->W = calloc(na * nq, sizeof(double));
  ev->S = calloc(na * na, sizeof(double));
  ev->S0 = calloc(na * na, sizeof(double));
  ev->mu = calloc(na, sizeof(double));
  ev->rhs = calloc(na, sizeof(double));
  ev->res = calloc(na, sizeof(double));
  ev->gv = calloc((size_t)ev->ng + 1, sizeof(double));
  ev->a0 = calloc(nq, sizeof(double));
  if (!s->q || !s->qd || !s->qdd || !s->lambda || !s->coords || !s->fbz || !s->fbc || !s->fbcs || !s->kap || !s->fric_work || !ev->g0 ||
      !ev->zero || !ev->q1 || !ev->qd1 || !ev->qh || !ev->out || !ev->use || !ev->grad || !ev->A || !ev->W ||
      !ev->tmp.q || !ev->S || !ev->S0 || !ev->mu || !ev->rhs || !ev->res || !ev->gv || !ev->a0 || !ev->set ||
      !ev->f0 || !ev->f1 || !ev->fn || !ev->cand || !ev->lam || !ev->kap) {
    lw_ev_run_free(ev);
    return NULL;
  }
  for (int k = 0; k < ev->ng; k++)
    if (m->guards[k].type == LW_EVENT_GUARD)
      ev->use[m->guards[k].output] = 1;
  return ev;
}

/* ---- the state at the start of a (sub)step ---------------------------- */
static void state_copy_out(const lw_model *m, const lw_data *d, ev_state *s)
{
  size_t nq = (size_t)m->nq;
  s->t = d->t;
  s->t0 = d->t0;
  s->h = d->h;
  s->nstep = d->nstep;
  memcpy(s->q, d->q, nq * sizeof(double));
  memcpy(s->qd, d->qd, nq * sizeof(double));
  memcpy(s->qdd, d->qdd, nq * sizeof(double));
  memcpy(s->lambda, d->lambda, (size_t)m->nc * sizeof(double));
  memcpy(s->coords, d->coord_prev, (size_t)m->ncoords * sizeof(double));
  memcpy(s->fbz, d->fbz, (size_t)m->nfbs * sizeof(double));
  memcpy(s->fbc, d->fbc, (size_t)m->nfbs * sizeof(double));
  memcpy(s->fbcs, d->fbcs, (size_t)m->nfbs * sizeof(double));
  s->fb_beta = d->fb_beta;
  s->dissipated = d->dissipated;
  s->applied_work = d->applied_work;
  memcpy(s->kap, d->kap, (size_t)m->nc * sizeof(double));
  memcpy(s->fric_work, d->fric_work, (size_t)m->nfric * sizeof(double));
  s->fric_kap_ok = d->fric_kap_ok;
  s->sw = lw_switches_pack(m, d);
}

static void state_copy_in(const lw_model *m, lw_data *d, const ev_state *s)
{
  size_t nq = (size_t)m->nq;
  d->t = s->t;
  d->t0 = s->t0;
  d->h = s->h;
  d->nstep = s->nstep;
  memcpy(d->q, s->q, nq * sizeof(double));
  memcpy(d->qd, s->qd, nq * sizeof(double));
  memcpy(d->qdd, s->qdd, nq * sizeof(double));
  memcpy(d->lambda, s->lambda, (size_t)m->nc * sizeof(double));
  memcpy(d->coord_prev, s->coords, (size_t)m->ncoords * sizeof(double));
  memcpy(d->fbz, s->fbz, (size_t)m->nfbs * sizeof(double));
  memcpy(d->fbc, s->fbc, (size_t)m->nfbs * sizeof(double));
  memcpy(d->fbcs, s->fbcs, (size_t)m->nfbs * sizeof(double));
  d->fb_beta = s->fb_beta;
  d->dissipated = s->dissipated;
  d->applied_work = s->applied_work;
  memcpy(d->kap, s->kap, (size_t)m->nc * sizeof(double));
  memcpy(d->fric_work, s->fric_work, (size_t)m->nfric * sizeof(double));
  d->fric_kap_ok = s->fric_kap_ok;
  lw_switches_unpack(m, d, s->sw);
}

/* one step of length h from d's state (to d->t + h): the model's step on
 * a shallow copy of the model whose step option is h, counted from d->t */
static int step_sized(const lw_model *m, lw_data *d, double h, lw_step_info *info, lw_error *err)
{
  lw_model mh = *m;
  mh.opt.step = h;
  d->t0 = d->t;
  d->nstep = 0;
  d->h = h;
  return lw_step(&mh, d, info, err);
}

/* a step of length h of model m from d's state: the run's own step for
 * the model it set one for (lw_ev_set_step), else the model's step */
static int ev_step(lw_ev_run *ev, const lw_model *m, lw_data *d, double h, lw_step_info *info, lw_error *err)
{
  if (ev->stepfn && m == ev->step_m) {
    d->t0 = d->t;
    d->nstep = 0;
    d->h = h;
    return ev->stepfn(ev->step_user, d, h, info, err);
  }
  return step_sized(m, d, h, info, err);
}

void lw_ev_set_step(lw_ev_run *ev, const lw_model *m, lw_ev_step_fn fn, void *user)
{
  ev->step_m = m;
  ev->stepfn = fn;
  ev->step_user = user;
}

void lw_ev_stop_at_impact(lw_ev_run *ev, double rest_h)
{
  ev->stop_at_impact = 1;
  ev->rest_h = rest_h;
}

void lw_ev_rest_opt(lw_ev_run *ev, const lw_opt *o)
{
  if (ev->cur)
    ev->cur->mr->opt = *o;
}

/* ---- guards ------------------------------------------------------------ */
static int is_impact(const lw_guard *g)
{
  return g->type == LW_EVENT_CONTACT || g->type == LW_EVENT_JOINT_LIMIT || g->type == LW_EVENT_CAPTURE ||
         g->type == LW_EVENT_COLLISION;
}
/* a guard on the distance between a point and a point (capture, collision) */
static int on_distance(const lw_guard *g) { return g->type == LW_EVENT_CAPTURE || g->type == LW_EVENT_COLLISION; }

/* a capture's point minus its centre at q (into V), its guard (|V|^2 - R^2) / 2R */
static double capture_gap(const lw_model *m, const lw_guard *g, const double *q, double *V)
{
  V[0] = V[1] = V[2] = 0.0;
  lw_vexpr_eval(m, &g->v, q, V);
  double s = 0;
  for (int i = 0; i < m->nd; i++)
    s += V[i] * V[i];
  return (s - g->offset * g->offset) / (2.0 * g->offset);
}
/* a guard that is a function of q alone (not of the outputs) */
static int on_q(const lw_guard *g) { return g->type != LW_EVENT_GUARD; }

/* a contact's, limit's or switch's guard at q (angles continued from d's
 * last values); a switch's gap turned to be positive on the side its point
 * is on, so that its crossing falls through zero either way */
static double guard_q(const lw_model *m, const lw_data *d, const lw_guard *g, const double *q)
{
  if (g->type == LW_EVENT_SWITCH) {
    double s = lw_switch_gap(m, g, q);
    return d->sw_in[g->sw] ? -s : s;
  }
  if (on_distance(g)) {
    double V[3];
    return capture_gap(m, g, q, V);
  }
  if (g->type == LW_EVENT_CONTACT) {
    double p[3] = {0, 0, 0};
    lw_vexpr_eval(m, &g->v, q, p);
    double s = -g->offset;
    for (int i = 0; i < m->nd; i++)
      s += g->n[i] * p[i];
    return s;
  }
  double x = lw_coord_continue(m, d, g->coord, lw_coord_eval(m, &m->coords[g->coord], q, NULL));
  return g->side < 0 ? x - g->offset : g->offset - x;
}

/* every guard at d's state into gv (outputs evaluated once when a guard
 * reads them) */
static void guards_eval(const lw_model *m, lw_data *d, lw_ev_run *ev, double *gv)
{
  int outs = 0;
  for (int k = 0; k < ev->ng; k++) {
    const lw_guard *g = &m->guards[k];
    if (on_q(g)) {
      gv[k] = guard_q(m, d, g, d->q);
      continue;
    }
    if (!outs) {
      lw_outputs_some(m, d, ev->out, ev->use);
      outs = 1;
    }
    gv[k] = ev->out[g->col] - g->offset;
  }
}

/* the guard's value turned so that it is positive before the crossing that
 * fires it (0: it cannot fire from g0) */
static double oriented(const lw_guard *g, double g0, double v)
{
  if (g->dir < 0)
    return v;
  if (g->dir > 0)
    return -v;
  return g0 > 0 ? v : g0 < 0 ? -v : 0.0;
}

/* the guard's gradient dg/dq, dense (nq) */
static void guard_grad(const lw_model *m, const lw_data *d, lw_ev_run *ev, const lw_guard *g, double *G)
{
  memset(G, 0, sizeof(double) * (size_t)m->nq);
  memset(ev->grad, 0, sizeof(double) * (size_t)m->wrow);
  int nblk = 0;
  const int *blk = NULL;
  double s = 1.0;
  if (on_distance(g)) {
    /* d/dq (|V|^2 - R^2) / 2R = (V / R)^T dV/dq (a collision: over both bodies) */
    double V[3];
    capture_gap(m, g, d->q, V);
    for (int i = 0; i < m->nd; i++)
      V[i] /= g->offset;
    nblk = g->v.nterm;
    blk = &g->v.body[0];
    lw_vexpr_grad(m, &g->v, V, 1.0, nblk, blk, ev->grad);
  } else if (g->type == LW_EVENT_CONTACT || g->type == LW_EVENT_SWITCH) {
    if (g->type == LW_EVENT_SWITCH && d->sw_in[g->sw])
      s = -1.0;
    nblk = 1;
    blk = &g->v.body[0];
    lw_vexpr_grad(m, &g->v, g->n, 1.0, nblk, blk, ev->grad);
  } else {
    const lw_coord *c = &m->coords[g->coord];
    lw_coord_eval(m, c, d->q, ev->grad);
    nblk = c->nblk;
    blk = c->blk;
    s = g->side < 0 ? 1.0 : -1.0;
  }
  for (int k = 0, o = 0; k < nblk; o += m->blk_n[blk[k]], k++)
    for (int i = 0; i < m->blk_n[blk[k]]; i++)
      G[(size_t)m->blk_off[blk[k]] + i] += s * ev->grad[o + i];
}

static double dot(const double *a, const double *b, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* ---- the event log ----------------------------------------------------- */
static void log_event(lw_ev_run *ev, const lw_guard *g, double t, lw_event_action a, double v0, double v1)
{
  if (ev->nlog == ev->caplog) {
    long cap = ev->caplog ? 2 * ev->caplog : 16;
    lw_event_record *p = realloc(ev->log, sizeof *p * (size_t)cap);
    if (!p)
      return; /* the run goes on; the record is lost */
    ev->log = p;
    ev->caplog = cap;
  }
  lw_event_record *r = &ev->log[ev->nlog++];
  r->t = t;
  r->event = g->event;
  r->action = a;
  r->side = g->type == LW_EVENT_JOINT_LIMIT ? g->side : g->type == LW_EVENT_GUARD ? g->dir : 0;
  r->v_pre = v0;
  r->v_post = v1;
}

lw_event_record *lw_ev_take_log(lw_ev_run *ev, long *n)
{
  lw_event_record *l = ev->log;
  *n = ev->nlog;
  ev->log = NULL;
  ev->nlog = ev->caplog = 0;
  return l;
}

/* ---- start, save ------------------------------------------------------- */
int lw_ev_start(const lw_model *m, lw_data *d, lw_ev_run *ev, lw_error *err)
{
  ev->t_end = d->t;
  /* a state set from outside starts free */
  if (ev->cur)
    for (int k = 0; k < ev->ng; k++)
      d->normal_force[k] = 0.0;
  ev->cur = NULL;
  /* the switches' sides from the positions (a state set from outside) */
  if (m->nswitches) {
    double bits = lw_switches_pack(m, d);
    lw_switches_set(m, d, d->q);
    if (lw_switches_pack(m, d) != bits) {
      lw_rows_eval(m, d, d->q, d->t, 1);
      if (lw_accelerations(m, d, d->t, err))
        return -1;
    }
  }
  guards_eval(m, d, ev, ev->g0);
  for (int k = 0; k < ev->ng; k++) {
    const lw_guard *g = &m->guards[k];
    double tol = 1e-10 * (1.0 + fabs(g->offset));
    ev->zero[k] = is_impact(g) && fabs(ev->g0[k]) <= tol;
    if (is_impact(g) && ev->g0[k] < -tol) {
      char path[200];
      snprintf(path, sizeof path, "events/%s", m->desc->events[g->event].name);
      if (g->type == LW_EVENT_CAPTURE)
        lw_set_error(err, LW_ERR_MODEL, path, 0.0,
                     "capture '%s': the point starts %.6g m inside the circle; it must start outside, where it "
                     "is free until it reaches the circle",
                     m->desc->events[g->event].name, -ev->g0[k]);
      else
        lw_set_error(err, LW_ERR_MODEL, path, 0.0,
                     "%s '%s' is violated at the start by %.6g %s: the initial position must lie on the free side",
                     g->type == LW_EVENT_CONTACT     ? "contact"
                     : g->type == LW_EVENT_COLLISION ? "collision"
                                                     : "joint limit",
                     m->desc->events[g->event].name, -ev->g0[k],
                     g->type == LW_EVENT_JOINT_LIMIT ? "(coordinate units)" : "m");
      return -1;
    }
  }
  return 0;
}

void lw_ev_save(const lw_model *m, lw_data *d, lw_ev_run *ev)
{
  if (d->t != ev->t_end) {
    /* a state set from outside: the guards start from it */
    lw_error e;
    lw_ev_start(m, d, ev, &e);
  }
  state_copy_out(m, d, &ev->s0);
}

/* the state r after s0 for a short r: positions and velocities advanced
 * in increments by a predictor (Taylor) and one trapezoidal corrector with
 * the accelerations solved at the predicted state (error O(r^3)), then the
 * accelerations and multipliers at the result */
static int short_advance(const lw_model *m, lw_data *d, lw_ev_run *ev, double r, lw_error *err)
{
  int nq = m->nq;
  const ev_state *s = &ev->s0;
  state_copy_in(m, d, s);
  double P0 = m->napplied ? lw_applied_power(m, d, d->q, d->qd, d->t, d->lambda) : 0.0;
  memcpy(ev->a0, s->qdd, sizeof(double) * (size_t)nq);
  double t = s->t + r;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < nq; i++) {
      double a = pass ? 0.5 * (ev->a0[i] + d->qdd[i]) : ev->a0[i];
      d->q[i] = s->q[i] + r * s->qd[i] + 0.5 * r * r * a;
      d->qd[i] = s->qd[i] + r * a;
    }
    d->t = t;
    lw_coords_update(m, d);
    lw_rows_eval(m, d, d->q, t, 1);
    if (lw_accelerations(m, d, t, err))
      return -1;
  }
  d->fric_kap_ok = 0; /* lambda is the accelerations' own multiplier now */
  if (m->ndampers)
    d->dissipated += 0.5 * r * (lw_damper_power(m, d, s->q, s->qd) + lw_damper_power(m, d, d->q, d->qd));
  if (m->napplied) {
    d->applied_work += 0.5 * r * (P0 + lw_applied_power(m, d, d->q, d->qd, t, d->lambda));
    memset(d->qa + nq + m->nc, 0, sizeof(double) * (size_t)m->nc); /* lambda is the accelerations' own */
  }
  return 0;
}

/* ---- locating ---------------------------------------------------------- */
/* step from s0 by tau; the oriented guard k there */
static int probe(const lw_model *m, lw_data *d, lw_ev_run *ev, int k, double tau, double *f, lw_error *err)
{
  lw_step_info info;
  state_copy_in(m, d, &ev->s0);
  if (ev_step(ev, m, d, tau, &info, err))
    return -1;
  const lw_guard *g = &m->guards[k];
  double v;
  if (on_q(g)) {
    v = guard_q(m, d, g, d->q);
  } else {
    lw_outputs_some(m, d, ev->out, ev->use);
    v = ev->out[g->col] - g->offset;
  }
  *f = oriented(g, ev->g0[k], v);
  return 0;
}

/* guard k along the cubic Hermite interpolant of q over the step (theta in
 * [0, 1], tau the step's length), oriented; output guards linearly */
static double interp(const lw_model *m, const lw_data *d, lw_ev_run *ev, int k, double th, double tau, double g1)
{
  const lw_guard *g = &m->guards[k];
  double f0 = oriented(g, ev->g0[k], ev->g0[k]), f1 = oriented(g, ev->g0[k], g1);
  if (!on_q(g))
    return f0 + th * (f1 - f0);
  double t2 = th * th, t3 = t2 * th;
  double h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + th, h01 = -2 * t3 + 3 * t2, h11 = t3 - t2;
  const ev_state *s = &ev->s0;
  for (int i = 0; i < m->nq; i++)
    ev->qh[i] = h00 * s->q[i] + h10 * tau * s->qd[i] + h01 * ev->q1[i] + h11 * tau * ev->qd1[i];
  return oriented(g, ev->g0[k], guard_q(m, d, g, ev->qh));
}

/* the first crossing of guard k along the interpolant: *th (in (0, 1]) and,
 * for a guard that starts at zero, *lo: a point before it where the guard
 * is on the free side (0 otherwise); 0 when the interpolant shows none */
static int first_crossing(const lw_model *m, const lw_data *d, lw_ev_run *ev, int k, double tau, double g1,
                          double *th, double *lo)
{
  double a = 0, fa = oriented(&m->guards[k], ev->g0[k], ev->g0[k]);
  int positive = fa > 0;
  *lo = 0;
  for (int j = 1; j <= LW_EV_SAMPLES; j++) {
    double b = (double)j / LW_EV_SAMPLES, fb = interp(m, d, ev, k, b, tau, g1);
    if (positive && fb <= 0) {
      for (int it = 0; it < 60; it++) {
        double c = 0.5 * (a + b), fc = interp(m, d, ev, k, c, tau, g1);
        if (fc > 0)
          a = c;
        else
          b = c;
      }
      *th = b;
      return 1;
    }
    if (fb > 0 && !positive) {
      positive = 1;
      *lo = b;
    }
    a = b;
    fa = fb;
  }
  return 0;
}

/* the event time of guard k within the step of length tau1 from s0:
 * *tau, with d left at the state a step of that length reaches; 1 when a
 * guard that starts at zero never leaves it on the steps (*tau = 0), -1 on
 * a failed step */
static int locate(const lw_model *m, lw_data *d, lw_ev_run *ev, int k, double tau1, double g1, double *tau,
                  lw_error *err)
{
  double th, lo;
  if (!first_crossing(m, d, ev, k, tau1, g1, &th, &lo))
    th = 1.0, lo = 0.0;
  const lw_guard *g = &m->guards[k];
  double a = 0, fa = oriented(g, ev->g0[k], ev->g0[k]), b = tau1, fb = oriented(g, ev->g0[k], g1);
  if (ev->zero[k]) {
    /* a point on the free side first: the bounce left the surface */
    if (lo <= 0)
      lo = 0.5 * th;
    if (probe(m, d, ev, k, lo * tau1, &fa, err))
      return -1;
    if (!(fa > 0)) {
      *tau = 0;
      return 1;
    }
    a = lo * tau1;
  }
  double tol = 1e-14 * fmax(1.0, fabs(ev->s0.t + tau1));
  double x = th * tau1;
  if (!(x > a && x < b))
    x = 0.5 * (a + b);
  int side = 0;
  for (int it = 0; it < 100 && b - a > tol; it++) {
    double fx;
    if (probe(m, d, ev, k, x, &fx, err))
      return -1;
    if (fx > 0) {
      a = x;
      fa = fx;
      if (side > 0)
        fb *= 0.5;
      side = 1;
    } else {
      b = x;
      fb = fx;
      if (side < 0)
        fa *= 0.5;
      side = -1;
      if (fx == 0)
        break;
    }
    x = (a * fb - b * fa) / (fb - fa);
    if (!(x > a && x < b))
      x = 0.5 * (a + b);
  }
  /* the event: the first point found past the crossing */
  *tau = b;
  if (b < LW_EV_SHORT * tau1)
    return short_advance(m, d, ev, b, err);
  double fx;
  return probe(m, d, ev, k, b, &fx, err) ? -1 : 0;
}

/* ---- the impact -------------------------------------------------------- */
/* A (na x nq, row-major) = [J; G] at d's state, the targets b (rhs) */
static void impact_rows(const lw_model *m, lw_data *d, lw_ev_run *ev, const lw_guard *g, double vn, double e)
{
  int nq = m->nq, nc = m->nc, w = m->wrow;
  lw_rows_eval(m, d, d->q, d->t, 1);
  lw_rows_phit(m, d, d->t);
  memset(ev->A, 0, sizeof(double) * (size_t)(nc + 1) * nq);
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0, o = 0; k < row->nblk; o += m->blk_n[row->blk[k]], k++)
      for (int j = 0; j < m->blk_n[row->blk[k]]; j++)
        ev->A[(size_t)r * nq + m->blk_off[row->blk[k]] + j] += d->jac[(size_t)r * w + o + j];
    ev->rhs[r] = -d->phit[r];
  }
  guard_grad(m, d, ev, g, ev->A + (size_t)nc * nq);
  ev->rhs[nc] = -e * vn;
}

/* mu = S^-1 r for S = A M^-1 A^T (in ev->S0); dependent rows (redundant
 * joints) are solved in the least-squares sense by a regularized
 * factorization refined on S itself */
static void solve_s(lw_ev_run *ev, int na)
{
  size_t nn = (size_t)na * na;
  memcpy(ev->S, ev->S0, nn * sizeof(double));
  memcpy(ev->mu, ev->rhs, (size_t)na * sizeof(double));
  if (lw_chol_dense(ev->S, na, 1e-12) == 0) {
    lw_chol_dense_solve(ev->S, na, ev->mu);
    return;
  }
  double dmax = 0;
  for (int i = 0; i < na; i++)
    dmax = fmax(dmax, ev->S0[(size_t)i * na + i]);
  memcpy(ev->S, ev->S0, nn * sizeof(double));
  for (int i = 0; i < na; i++)
    ev->S[(size_t)i * na + i] += 1e-10 * dmax;
  lw_chol_dense(ev->S, na, 0.0);
  memset(ev->mu, 0, (size_t)na * sizeof(double));
  double *res = ev->res;
  for (int it = 0; it < 50; it++) {
    for (int i = 0; i < na; i++)
      res[i] = ev->rhs[i] - dot(ev->S0 + (size_t)i * na, ev->mu, na);
    lw_chol_dense_solve(ev->S, na, res);
    double dm = 0;
    for (int i = 0; i < na; i++) {
      ev->mu[i] += res[i];
      dm = fmax(dm, fabs(res[i]));
    }
    if (dm <= 1e-15 * (1.0 + fabs(ev->mu[0])))
      break;
  }
}

/* qd = the mass-weighted projection of qd onto A qd = rhs */
static void impact_project(const lw_model *m, lw_data *d, lw_ev_run *ev)
{
  int nq = m->nq, na = m->nc + 1;
  for (int r = 0; r < na; r++)
    lw_minv_mul(m, ev->A + (size_t)r * nq, ev->W + (size_t)r * nq);
  for (int r = 0; r < na; r++)
    for (int c = 0; c <= r; c++) {
      double s = dot(ev->A + (size_t)r * nq, ev->W + (size_t)c * nq, nq);
      ev->S0[(size_t)c * na + r] = ev->S0[(size_t)r * na + c] = s;
    }
  for (int r = 0; r < na; r++)
    ev->rhs[r] = dot(ev->A + (size_t)r * nq, d->qd, nq) - ev->rhs[r];
  solve_s(ev, na);
  for (int r = 0; r < na; r++)
    for (int i = 0; i < nq; i++)
      d->qd[i] -= ev->W[(size_t)r * nq + i] * ev->mu[r];
}

/* the speed below which an impact ends the bouncing: the event's, or the
 * speed a fall gains in one step (a slower bounce lasts about a step) */
static double rest_speed(const lw_model *m, const lw_ev_run *ev, const lw_guard *g)
{
  if (g->rest_speed > 0)
    return g->rest_speed;
  const double *gr = m->desc->gravity;
  double h = ev->rest_h > 0 ? ev->rest_h : m->opt.step;
  return fmax(sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]) * h, 1e-9);
}

/* ---- persistent contact ----------------------------------------------- */
/* the place of guard k in the resting set e (-1: not there, or no set) */
static int set_pos(const ev_rest *e, int k)
{
  for (int i = 0; e && i < e->n; i++)
    if (e->set[i] == k)
      return i;
  return -1;
}

/* whether guard k rests now */
static int in_rest(const lw_ev_run *ev, int k) { return set_pos(ev->cur, k) >= 0; }

/* the resting set whose model is m (NULL: m is the free model) */
static ev_rest *set_of(const lw_ev_run *ev, const lw_model *m)
{
  for (int i = 0; i < ev->nsets; i++)
    if (ev->sets[i]->mr == m)
      return ev->sets[i];
  return NULL;
}

/* the resting set set[0 .. n) (in its rows' order): the model holding
 * their gaps at zero and its workspace, compiled at the set's first use
 * with the options of m, the model of d's state it is entered from */
static ev_rest *rest_entry(const lw_model *m, const lw_data *d, lw_ev_run *ev, const int *set, int n,
                           lw_error *err)
{
  for (int i = 0; i < ev->nsets; i++)
    if (ev->sets[i]->n == n && !memcmp(ev->sets[i]->set, set, sizeof(int) * (size_t)n))
      return ev->sets[i];
  if (ev->nsets == ev->capsets) {
    int cap = ev->capsets ? 2 * ev->capsets : 4;
    ev_rest **p = realloc(ev->sets, sizeof *p * (size_t)cap);
    if (!p)
      goto nomem;
    ev->sets = p;
    ev->capsets = cap;
  }
  lw_model *mr = lw_compile_resting(m->desc, set, n, err);
  if (!mr)
    return NULL;
  mr->opt = m->opt;
  mr->integ = m->integ;
  ev_rest *e = calloc(1, sizeof *e);
  if (!e) {
    lw_model_free(mr);
    goto nomem;
  }
  e->mr = mr;
  e->n = n;
  e->set = malloc(sizeof(int) * (size_t)n);
  e->dr = lw_data_new(mr);
  if (!e->set || !e->dr) {
    rest_set_free(e);
    goto nomem;
  }
  memcpy(e->set, set, sizeof(int) * (size_t)n);
  const ev_rest *from = set_of(ev, m);
  int dof = d->dof + (from ? from->n : 0) - n;
  e->dr->dof = dof > 0 ? dof : 0;
  ev->sets[ev->nsets++] = e;
  return e;
nomem:
  lw_set_error(err, LW_ERR_NOMEM, "", d->t, "out of memory for a resting contact");
  return NULL;
}

/* the push of the i-th of the n resting rows of mr along its guard's
 * gradient (N, or N m for an angle; a capture: along the outward normal of
 * its circle): M qdd = Q - J^T lambda with J = s dg/dq */
static double rest_force(const lw_model *mr, const lw_data *dr, const lw_guard *g, int i, int n)
{
  /* a capture's row |p - c|^2 - R^2 has the gradient 2 R n: its push along n is 2 R times the multiplier's */
  double s = g->type == LW_EVENT_CONTACT ? 1.0 : on_distance(g) ? 2.0 * g->offset : -(double)g->side;
  return -s * dr->lambda[mr->nc - n + i];
}

/* the resting guards' normal forces (f, in the set's order) at the
 * resting workspace's state from the accelerations solved there (the
 * step's own multipliers lag the instantaneous ones); the state's
 * accelerations and multipliers are kept */
static int exact_forces(lw_ev_run *ev, double *f, lw_error *err)
{
  const ev_rest *e = ev->cur;
  lw_model *mr = e->mr;
  lw_data *dr = e->dr;
  memcpy(ev->a0, dr->qdd, sizeof(double) * (size_t)mr->nq);
  memcpy(ev->res, dr->lambda, sizeof(double) * (size_t)mr->nc);
  lw_rows_eval(mr, dr, dr->q, dr->t, 1);
  if (lw_accelerations(mr, dr, dr->t, err))
    return -1;
  for (int i = 0; i < e->n; i++)
    f[i] = rest_force(mr, dr, &mr->guards[e->set[i]], i, e->n);
  memcpy(dr->qdd, ev->a0, sizeof(double) * (size_t)mr->nq);
  memcpy(dr->lambda, ev->res, sizeof(double) * (size_t)mr->nc);
  return 0;
}

/* the state of (ma, da) into (mb, db), either a resting model or the free
 * one: the joints' multipliers as they are, a resting row's found by its
 * guard (a row that da does not hold keeps db's own) */
static void map_state(lw_ev_run *ev, const lw_model *ma, const lw_data *da, const lw_model *mb, lw_data *db)
{
  const ev_rest *ea = set_of(ev, ma), *eb = set_of(ev, mb);
  int na = ea ? ea->n : 0, nb = eb ? eb->n : 0, abase = ma->nc - na, bbase = mb->nc - nb;
  for (int i = 0; i < nb; i++) {
    int j = set_pos(ea, eb->set[i]);
    ev->lam[i] = j >= 0 ? da->lambda[abase + j] : db->lambda[bbase + i];
    ev->kap[i] = j >= 0 ? da->kap[abase + j] : db->kap[bbase + i];
  }
  state_copy_out(ma, da, &ev->tmp);
  for (int i = 0; i < nb; i++) {
    ev->tmp.lambda[bbase + i] = ev->lam[i];
    ev->tmp.kap[bbase + i] = ev->kap[i];
  }
  state_copy_in(mb, db, &ev->tmp);
}

/* d's state (model m) into the resting model's workspace */
static void to_rest(const lw_model *m, const lw_data *d, lw_ev_run *ev)
{
  map_state(ev, m, d, ev->cur->mr, ev->cur->dr);
}

/* the resting model's state back into d (model m), with the normal forces
 * (the step's multipliers should the accelerations fail; 0 for the guards
 * that do not rest) */
static void from_rest(const lw_model *m, lw_data *d, lw_ev_run *ev)
{
  const ev_rest *e = ev->cur;
  map_state(ev, e->mr, e->dr, m, d);
  lw_error err;
  int bad = exact_forces(ev, ev->fn, &err);
  for (int k = 0; k < ev->ng; k++)
    d->normal_force[k] = 0.0;
  for (int i = 0; i < e->n; i++)
    d->normal_force[e->set[i]] = bad ? rest_force(e->mr, e->dr, &m->guards[e->set[i]], i, e->n) : ev->fn[i];
}

/* the rate of guard k at d's state */
static double guard_rate(const lw_model *m, const lw_data *d, lw_ev_run *ev, int k)
{
  guard_grad(m, d, ev, &m->guards[k], ev->qh);
  return dot(ev->qh, d->qd, m->nq);
}

/* the resting set ev->set[0 .. n) taken from the one resting now, the
 * state mapped onto its model and the accelerations solved there, the
 * guards left out logged as released (at their rates) */
static int rest_change(lw_ev_run *ev, int n, lw_error *err)
{
  ev_rest *was = ev->cur;
  ev_rest *e = rest_entry(was->mr, was->dr, ev, ev->set, n, err);
  if (!e)
    return -1;
  map_state(ev, was->mr, was->dr, e->mr, e->dr);
  ev->cur = e;
  lw_rows_eval(e->mr, e->dr, e->dr->q, e->dr->t, 1);
  if (lw_accelerations(e->mr, e->dr, e->dr->t, err))
    return -1;
  e->dr->fric_kap_ok = 0;
  for (int i = 0; i < was->n; i++)
    if (set_pos(e, was->set[i]) < 0) {
      double vn = guard_rate(e->mr, e->dr, ev, was->set[i]);
      log_event(ev, &e->mr->guards[was->set[i]], e->dr->t, LW_EVREC_RELEASE, vn, vn);
    }
  return 0;
}

/* every resting guard but keep pushes, or lets go: the one that pulls
 * most is released and the accelerations are solved without it, until
 * none pulls (the active set of the unilateral rows); a capture holds */
static int settle(lw_ev_run *ev, int keep, lw_error *err)
{
  for (int count = 0; count < ev->ng; count++) {
    const ev_rest *e = ev->cur;
    int worst = -1;
    double fw = 0;
    for (int i = 0; i < e->n; i++) {
      const lw_guard *g = &e->mr->guards[e->set[i]];
      double f = rest_force(e->mr, e->dr, g, i, e->n);
      if (e->set[i] != keep && g->type != LW_EVENT_CAPTURE && !(f > 0) && (worst < 0 || f < fw))
        worst = i, fw = f;
    }
    if (worst < 0 || e->n < 2)
      return 0;
    int n = 0;
    for (int i = 0; i < e->n; i++)
      if (i != worst)
        ev->set[n++] = e->set[i];
    if (rest_change(ev, n, err))
      return -1;
  }
  return 0;
}

/* guard k at d's state (its normal velocity vn) comes to rest: a plastic
 * impact with the joints and the guards that rest already held, then the
 * gap held at zero while the row pushes (returns 2; a resting guard that
 * would pull then lets go); a row that would pull leaves the guard free
 * after the plastic impact (returns 0).  m is the model of the set
 * resting now (the free model when none rests) */
static int come_to_rest(const lw_model *m, lw_data *d, lw_ev_run *ev, int k, double vn, lw_error *err)
{
  const lw_guard *g = &m->guards[k];
  impact_rows(m, d, ev, g, 0.0, 0.0);
  ev->rhs[m->nc] = 0.0;
  impact_project(m, d, ev);
  double *G = ev->qh;
  guard_grad(m, d, ev, g, G);
  double vp = dot(G, d->qd, m->nq);
  const ev_rest *was = set_of(ev, m);
  int n = was ? was->n : 0;
  if (n)
    memcpy(ev->set, was->set, sizeof(int) * (size_t)n);
  ev->set[n] = k;
  ev_rest *e = rest_entry(m, d, ev, ev->set, n + 1, err);
  if (!e)
    return -1;
  lw_model *mr = e->mr;
  lw_data *dr = e->dr;
  map_state(ev, m, d, mr, dr);
  dr->lambda[mr->nc - 1] = 0.0;
  dr->kap[mr->nc - 1] = 0.0;
  lw_rows_eval(mr, dr, dr->q, dr->t, 1);
  if (lw_accelerations(mr, dr, dr->t, err))
    return -1;
  dr->fric_kap_ok = 0;
  /* a capture holds whatever its row's force (the distance is a joint from now on) */
  if (g->type != LW_EVENT_CAPTURE && !(rest_force(mr, dr, g, n, n + 1) > 0)) {
    lw_rows_eval(m, d, d->q, d->t, 1);
    if (lw_accelerations(m, d, d->t, err))
      return -1;
    d->fric_kap_ok = 0;
    log_event(ev, g, d->t, LW_EVREC_IMPACT, vn, vp);
    return 0;
  }
  ev->cur = e;
  log_event(ev, g, d->t, g->type == LW_EVENT_CAPTURE ? LW_EVREC_CAPTURE : LW_EVREC_REST, vn, vp);
  if (n && settle(ev, k, err))
    return -1;
  from_rest(m, d, ev);
  return 2;
}

/* the impact of guard k at d's state: restitution; a slow one comes to
 * rest (returns 2) or, where resting is not followed (the sensitivities),
 * ends the run (returns 1) */
static int impact(const lw_model *m, lw_data *d, lw_ev_run *ev, int k, lw_error *err)
{
  const lw_guard *g = &m->guards[k];
  double *G = ev->qh;
  guard_grad(m, d, ev, g, G);
  double vn = dot(G, d->qd, m->nq);
  if (g->type == LW_EVENT_CAPTURE || !(-vn >= rest_speed(m, ev, g))) {
    if (ev->allow_rest)
      return come_to_rest(m, d, ev, k, vn, err);
    log_event(ev, g, d->t, LW_EVREC_REST, vn, vn);
    return 1;
  }
  impact_rows(m, d, ev, g, vn, g->e);
  impact_project(m, d, ev);
  guard_grad(m, d, ev, g, G);
  double vp = dot(G, d->qd, m->nq);
  lw_rows_eval(m, d, d->q, d->t, 1);
  if (lw_accelerations(m, d, d->t, err))
    return -1;
  d->fric_kap_ok = 0; /* lambda is the accelerations' own multiplier now */
  log_event(ev, g, d->t, LW_EVREC_IMPACT, vn, vp);
  return 0;
}

/* switch k fires at d's state: its point passes to the other side of the
 * plane and its force turns on (the negative side) or off; the velocity
 * stays, the accelerations and multipliers are solved anew with the forces
 * that act now (seed 003 theorem 4) */
static int switch_fire(const lw_model *m, lw_data *d, lw_ev_run *ev, int k, lw_error *err)
{
  const lw_guard *g = &m->guards[k];
  double *G = ev->qh;
  guard_grad(m, d, ev, g, G);
  double vn = dot(G, d->qd, m->nq);
  if (d->sw_in[g->sw])
    vn = -vn; /* the rate of n.p: G is turned with the side */
  d->sw_in[g->sw] = !d->sw_in[g->sw];
  lw_switches_apply(m, d);
  lw_rows_eval(m, d, d->q, d->t, 1);
  if (lw_accelerations(m, d, d->t, err))
    return -1;
  d->fric_kap_ok = 0;
  long n0 = ev->nlog;
  log_event(ev, g, d->t, LW_EVREC_SWITCH, vn, vn);
  if (ev->nlog > n0)
    ev->log[n0].side = d->sw_in[g->sw] ? -1 : 1;
  return 0;
}

/* ---- impacts at persistent contact ------------------------------------ */
/* a contact's or limit's guard value at zero (it touches) */
static int touches(const lw_guard *g, double v) { return fabs(v) <= 1e-10 * (1.0 + fabs(g->offset)); }

/* the first contact or limit that touches at d's state and closes (its
 * normal velocity below -1e-12 m/s), or -1 */
static int closing_touch(const lw_model *m, lw_data *d, lw_ev_run *ev)
{
  for (int j = 0; j < ev->ng; j++) {
    const lw_guard *g = &m->guards[j];
    if (!is_impact(g) || in_rest(ev, j) || !touches(g, guard_q(m, d, g, d->q)))
      continue;
    guard_grad(m, d, ev, g, ev->qh);
    if (dot(ev->qh, d->qd, m->nq) < -1e-12)
      return j;
  }
  return -1;
}

/* After an impact, every other contact or limit that touches and now
 * closes is struck at once, one after another until none closes: the
 * impulse passes along bodies at rest against each other (Newton's cradle:
 * with equal balls and e = 1 it reaches the last one whole).  Sequential
 * impacts at one time; the simulation only (the sensitivities do not go
 * through simultaneous events).  0, 1 (a row callback stopped the run), 2
 * (a guard came to rest: ev->cur) or -1 */
static int chain_impacts(const lw_model *m, lw_data *d, lw_ev_run *ev, lw_ev_row_fn row, void *user, lw_error *err)
{
  for (int count = 0; count < LW_EV_MAX_PER_STEP; count++) {
    int j = closing_touch(m, d, ev);
    if (j < 0)
      return 0;
    ev->last_guard = j;
    if (row && row(user, d))
      return 1;
    int st = impact(m, d, ev, j, err);
    if (st < 0 || st == 1)
      return st;
    if (row && row(user, d))
      return 1;
    if (st == 2)
      return 2;
  }
  lw_set_error(err, LW_ERR_SOLVER, "", d->t, "more than %d impacts at t = %.6g s among touching bodies",
               LW_EV_MAX_PER_STEP, d->t);
  return -1;
}

/* the row handed on at an event of the resting model: in d's layout */
typedef struct {
  const lw_model *m;
  lw_data *d;
  lw_ev_run *ev;
  lw_ev_row_fn row;
  void *user;
} rest_rows;

static int rest_row(void *user, lw_data *dr)
{
  rest_rows *rr = user;
  (void)dr;
  from_rest(rr->m, rr->d, rr->ev);
  return rr->row ? rr->row(rr->user, rr->d) : 0;
}

/* the rest of the step to t1 after the resting set changed at d's state
 * (m: the model of the set before, or the free model): the model of the
 * set resting now steps on from there, and its events are handled as in
 * any step, with rows handed on in d's layout; d then takes the state at
 * t1 (or at the event where the run stops); returns as lw_ev_after_step */
static int rest_remainder(const lw_model *m, lw_data *d, lw_ev_run *ev, double t1, lw_ev_row_fn row, void *user,
                          lw_error *err)
{
  lw_model *mr = ev->cur->mr;
  lw_data *dr = ev->cur->dr;
  to_rest(m, d, ev);
  dr->t0 = dr->t;
  dr->nstep = 0;
  state_copy_out(mr, dr, &ev->s0);
  guards_eval(mr, dr, ev, ev->g0);
  for (int j = 0; j < ev->ng; j++)
    ev->zero[j] = is_impact(&mr->guards[j]) && touches(&mr->guards[j], ev->g0[j]);
  double rem = t1 - dr->t;
  if (rem > 0) {
    lw_step_info info;
    if (rem < LW_EV_SHORT * m->opt.step ? short_advance(mr, dr, ev, rem, err) : step_sized(mr, dr, rem, &info, err))
      return -1;
    dr->t = t1;
  }
  rest_rows rr = {m, d, ev, row, user};
  int st = lw_ev_after_step(mr, dr, ev, rest_row, &rr, err);
  if (st >= 0 && ev->cur)
    from_rest(m, d, ev);
  return st;
}

/* after the resting set changed at d's state: rest_remainder for a step
 * of d's grid (t0, nstep, h), d back on it at t1.  A run that steps on
 * from an event itself gets 2 with d at the event instead where several
 * rest now or the change ended a chain of impacts among touching bodies
 * (chained): the motion from there has a time scale of its own, as a
 * rebound's, and the rest of a long step on the new set's model would
 * leap over the next contact's */
static int rest_on_grid(const lw_model *m, lw_data *d, lw_ev_run *ev, double t1, const double grid[3], int chained,
                        lw_ev_row_fn row, void *user, lw_error *err)
{
  if (ev->stop_at_impact && (chained || ev->cur->n > 1)) {
    guards_eval(m, d, ev, ev->g0);
    for (int j = 0; j < ev->ng; j++)
      ev->zero[j] = is_impact(&m->guards[j]) && touches(&m->guards[j], ev->g0[j]);
    ev->t_end = d->t;
    return 2;
  }
  int st = rest_remainder(m, d, ev, t1, row, user, err);
  if (st)
    return st;
  d->t = t1;
  d->t0 = grid[0];
  d->nstep = (long)grid[1];
  d->h = grid[2];
  ev->t_end = t1;
  return 0;
}

/* ---- after a step ------------------------------------------------------ */
/* the guard that fires first in the step from s0 to d's state (gv: the
 * guards there), or -1; *th its estimated place (in [0, 1]) */
static int first_fired(const lw_model *m, lw_data *d, lw_ev_run *ev, const double *gv, double tau, double *thk)
{
  int best = -1;
  double bth = INFINITY;
  for (int k = 0; k < ev->ng; k++) {
    const lw_guard *g = &m->guards[k];
    double f0 = oriented(g, ev->g0[k], ev->g0[k]), f1 = oriented(g, ev->g0[k], gv[k]);
    int armed = (f0 > 0 || (ev->zero[k] && is_impact(g))) && !in_rest(ev, k);
    /* a guard that sits at zero (within its round-off, on either side)
     * fires where it goes below that round-off (bodies at rest against
     * each other keep touching; a joint started at its bound drifts by
     * round-off) */
    double below = f0 > 0 && !ev->zero[k] ? 0.0 : -1e-10 * (1.0 + fabs(g->offset));
    if (!armed || !(f1 < below || (f1 == 0 && f0 > 0)))
      continue;
    double th, lo;
    if (!first_crossing(m, d, ev, k, tau, gv[k], &th, &lo))
      th = 1.0;
    if (th < bth) {
      bth = th;
      best = k;
    }
  }
  *thk = bth;
  return best;
}

int lw_ev_after_step(const lw_model *m, lw_data *d, lw_ev_run *ev, lw_ev_row_fn row, void *user, lw_error *err)
{
  double t1 = d->t, *gv = ev->gv;
  double t0_grid = d->t0;
  long n_grid = d->nstep;
  double h_grid = d->h;
  const double grid[3] = {t0_grid, (double)n_grid, h_grid};
  for (int count = 0;; count++) {
    guards_eval(m, d, ev, gv);
    double tau1 = t1 - ev->s0.t, th;
    memcpy(ev->q1, d->q, sizeof(double) * (size_t)m->nq);
    memcpy(ev->qd1, d->qd, sizeof(double) * (size_t)m->nq);
    int k = tau1 > 0 ? first_fired(m, d, ev, gv, tau1, &th) : -1;
    if (k < 0)
      break;
    if (count >= LW_EV_MAX_PER_STEP) {
      lw_set_error(err, LW_ERR_SOLVER, "", d->t, "more than %d events within the step to t = %.6g s",
                   LW_EV_MAX_PER_STEP, t1);
      return -1;
    }
    double tau;
    int st = locate(m, d, ev, k, tau1, gv[k], &tau, err);
    if (st < 0)
      return -1;
    ev->last_guard = k;
    ev->last_tau = tau;
    if (st == 1) {
      /* the guard never left zero: the contact rests from s0 on */
      state_copy_in(m, d, &ev->s0);
      double *G = ev->qh;
      guard_grad(m, d, ev, &m->guards[k], G);
      double vn = dot(G, d->qd, m->nq);
      if (!ev->allow_rest || come_to_rest(m, d, ev, k, vn, err) != 2) {
        if (!ev->allow_rest)
          log_event(ev, &m->guards[k], d->t, LW_EVREC_REST, vn, vn);
        return 1;
      }
      return rest_on_grid(m, d, ev, t1, grid, 0, row, user, err);
    }
    if (row && row(user, d))
      return 1;
    if (m->guards[k].type == LW_EVENT_GUARD) {
      log_event(ev, &m->guards[k], d->t, LW_EVREC_STOP, 0, 0);
      return 1;
    }
    st = m->guards[k].type == LW_EVENT_SWITCH ? switch_fire(m, d, ev, k, err) : impact(m, d, ev, k, err);
    if (st == 2) {
      if (row && row(user, d))
        return 1;
      return rest_on_grid(m, d, ev, t1, grid, 0, row, user, err);
    }
    if (st)
      return st;
    if (row && row(user, d))
      return 1;
    if (ev->allow_rest && is_impact(&m->guards[k])) {
      st = chain_impacts(m, d, ev, row, user, err);
      if (st == 2)
        return rest_on_grid(m, d, ev, t1, grid, 1, row, user, err);
      if (st)
        return st;
    }
    if (ev->stop_at_impact) { /* the run steps on from the event itself */
      state_copy_out(m, d, &ev->s0);
      guards_eval(m, d, ev, ev->g0);
      memset(ev->zero, 0, (size_t)ev->ng);
      ev->zero[k] = is_impact(&m->guards[k]);
      for (int j = 0; ev->allow_rest && j < ev->ng; j++)
        if (is_impact(&m->guards[j]) && touches(&m->guards[j], ev->g0[j]))
          ev->zero[j] = 1;
      ev->t_end = d->t;
      return 2;
    }
    /* go on from the event to the step's end */
    d->t0 = d->t;
    d->nstep = 0;
    state_copy_out(m, d, &ev->s0);
    guards_eval(m, d, ev, ev->g0);
    memset(ev->zero, 0, (size_t)ev->ng);
    ev->zero[k] = is_impact(&m->guards[k]);
    for (int j = 0; ev->allow_rest && j < ev->ng; j++)
      if (is_impact(&m->guards[j]) && touches(&m->guards[j], ev->g0[j]))
        ev->zero[j] = 1;
    double rem = t1 - d->t;
    if (rem > 0) {
      lw_step_info info;
      if (rem < LW_EV_SHORT * m->opt.step ? short_advance(m, d, ev, rem, err)
                                          : ev_step(ev, m, d, rem, &info, err))
        return -1;
      d->t = t1;
    }
  }
  /* the guards at the step's end are the next step's start; back on the grid */
  memcpy(ev->g0, gv, sizeof(double) * (size_t)ev->ng);
  for (int k = 0; k < ev->ng; k++)
    if (ev->zero[k] && !(fabs(gv[k]) <= 1e-10 * (1.0 + fabs(m->guards[k].offset))))
      ev->zero[k] = 0;
  d->t = t1;
  d->t0 = t0_grid;
  d->nstep = n_grid;
  d->h = h_grid;
  ev->t_end = t1;
  return 0;
}

/* ---- a step while guards rest ----------------------------------------- */
/* the least of the forces f of the resting guards marked in ev->cand */
static double least_cand(const lw_ev_run *ev, const double *f)
{
  double m = INFINITY;
  for (int i = 0; i < ev->cur->n; i++)
    if (ev->cand[i] && f[i] < m)
      m = f[i];
  return m;
}

/* the step from s0 (the resting model) by tau: the least normal force of
 * the candidates there (all of them into ev->f1) */
static int probe_force(lw_ev_run *ev, double tau, double *f, lw_error *err)
{
  lw_model *mr = ev->cur->mr;
  lw_data *dr = ev->cur->dr;
  lw_step_info info;
  state_copy_in(mr, dr, &ev->s0);
  if (step_sized(mr, dr, tau, &info, err))
    return -1;
  if (exact_forces(ev, ev->f1, err))
    return -1;
  *f = least_cand(ev, ev->f1);
  return 0;
}

/* the time in (0, tau1] where the least normal force of the candidates
 * (f0 > 0 at s0, f1 <= 0 at tau1) falls to zero, by the Illinois variant
 * of regula falsi on the resting model's steps; the resting workspace is
 * left at the first point found past it, the forces there in ev->f1 */
static int locate_release(lw_ev_run *ev, double tau1, double f0, double f1, double *tau, lw_error *err)
{
  double a = 0, fa = f0, b = tau1, fb = f1;
  double tol = 1e-14 * fmax(1.0, fabs(ev->s0.t + tau1));
  int side = 0;
  for (int it = 0; it < 100 && b - a > tol && fb != 0; it++) {
    double x = (a * fb - b * fa) / (fb - fa), fx;
    if (!(x > a && x < b))
      x = 0.5 * (a + b);
    if (probe_force(ev, x, &fx, err))
      return -1;
    if (fx > 0) {
      a = x, fa = fx;
      if (side > 0)
        fb *= 0.5;
      side = 1;
    } else {
      b = x, fb = fx;
      if (side < 0)
        fa *= 0.5;
      side = -1;
    }
  }
  *tau = b;
  double fx;
  return probe_force(ev, b, &fx, err);
}

/* the resting guards whose force no longer pushes at the release (the
 * candidates with ev->f1 <= 0) let go, the others stay: the resting set
 * without them into ev->set; their number */
static int released_set(lw_ev_run *ev, int *nkeep)
{
  const ev_rest *e = ev->cur;
  int nrel = 0, n = 0;
  for (int i = 0; i < e->n; i++) {
    if (ev->cand[i] && !(ev->f1[i] > 0))
      nrel++;
    else
      ev->set[n++] = e->set[i];
  }
  *nkeep = n;
  return nrel;
}

/* the last resting guards let go at the resting workspace's state: d takes
 * it, free, with its accelerations solved anew (each released guard logged
 * at its rate) */
static int release_all(const lw_model *m, lw_data *d, lw_ev_run *ev, lw_error *err)
{
  const ev_rest *e = ev->cur;
  ev->cur = NULL;
  for (int i = 0; i < e->n; i++)
    d->normal_force[e->set[i]] = 0.0;
  lw_rows_eval(m, d, d->q, d->t, 1);
  if (lw_accelerations(m, d, d->t, err))
    return -1;
  d->fric_kap_ok = 0;
  for (int i = 0; i < e->n; i++) {
    double vn = guard_rate(m, d, ev, e->set[i]);
    log_event(ev, &m->guards[e->set[i]], d->t, LW_EVREC_RELEASE, vn, vn);
  }
  return 0;
}

/* resting guards let go at the resting workspace's state (those that
 * rest on keep resting): d takes it, row() is called before and after,
 * and the step goes on to t1 (the step's end on the grid) watching the
 * guards, on the free model when none rests any more */
static int release(const lw_model *m, lw_data *d, lw_ev_run *ev, double t1, lw_ev_row_fn row, void *user,
                   lw_error *err)
{
  from_rest(m, d, ev);
  if (row && row(user, d))
    return 1;
  double grid[3] = {d->t0, (double)d->nstep, d->h};
  int nkeep;
  released_set(ev, &nkeep);
  if (nkeep) {
    if (rest_change(ev, nkeep, err) || settle(ev, -1, err))
      return -1;
    from_rest(m, d, ev);
    if (row && row(user, d))
      return 1;
    return rest_on_grid(m, d, ev, t1, grid, 1, row, user, err);
  }
  const ev_rest *was = ev->cur;
  if (release_all(m, d, ev, err))
    return -1;
  if (row && row(user, d))
    return 1;
  state_copy_out(m, d, &ev->s0);
  guards_eval(m, d, ev, ev->g0);
  memset(ev->zero, 0, (size_t)ev->ng);
  for (int i = 0; i < was->n; i++)
    ev->zero[was->set[i]] = 1;
  double rem = t1 - d->t;
  if (rem > 0) {
    lw_step_info info;
    if (rem < LW_EV_SHORT * m->opt.step ? short_advance(m, d, ev, rem, err) : ev_step(ev, m, d, rem, &info, err))
      return -1;
  }
  d->t = t1;
  d->t0 = grid[0];
  d->nstep = (long)grid[1];
  d->h = grid[2];
  return lw_ev_after_step(m, d, ev, row, user, err);
}

int lw_ev_resting(const lw_ev_run *ev) { return ev->cur != NULL; }

void lw_ev_allow_rest(lw_ev_run *ev) { ev->allow_rest = 1; }

int lw_ev_touching(const lw_model *m, const lw_data *d, const lw_ev_run *ev, int except)
{
  for (int k = 0; k < ev->ng; k++)
    if (k != except && is_impact(&m->guards[k]) && touches(&m->guards[k], guard_q(m, d, &m->guards[k], d->q)))
      return k;
  return -1;
}

/* the resting guards whose force falls through zero within the step (a
 * capture is never released) marked in ev->cand; their number */
static int release_candidates(lw_ev_run *ev)
{
  const ev_rest *e = ev->cur;
  int n = 0;
  for (int i = 0; i < e->n; i++) {
    ev->cand[i] = e->mr->guards[e->set[i]].type != LW_EVENT_CAPTURE && ev->f0[i] > 0 && !(ev->f1[i] > 0);
    n += ev->cand[i];
  }
  return n;
}

int lw_ev_rest_step(const lw_model *m, lw_data *d, lw_ev_run *ev, lw_step_info *info, lw_ev_row_fn row, void *user,
                    lw_error *err, int *evs)
{
  lw_model *mr = ev->cur->mr;
  lw_data *dr = ev->cur->dr;
  *evs = 0;
  to_rest(m, d, ev);
  state_copy_out(mr, dr, &ev->s0);
  if (exact_forces(ev, ev->f0, err)) {
    *evs = -1;
    return 0;
  }
  int st = lw_step(mr, dr, info, err);
  if (st)
    return st;
  double t1 = dr->t;
  if (exact_forces(ev, ev->f1, err)) {
    *evs = -1;
    return 0;
  }
  if (release_candidates(ev)) {
    double tau, t0_grid = dr->t0, h_grid = dr->h;
    long n_grid = dr->nstep;
    if (locate_release(ev, t1 - ev->s0.t, least_cand(ev, ev->f0), least_cand(ev, ev->f1), &tau, err)) {
      *evs = -1;
      return 0;
    }
    int first = 0;
    while (first < ev->cur->n - 1 && !(ev->cand[first] && !(ev->f1[first] > 0)))
      first++;
    ev->last_guard = ev->cur->set[first];
    ev->last_tau = tau;
    double t_ev = dr->t;
    dr->t0 = t0_grid, dr->h = h_grid, dr->nstep = n_grid; /* d's grid, once d takes the state */
    from_rest(m, d, ev);
    d->t = t_ev;
    *evs = release(m, d, ev, t1, row, user, err);
    return 0;
  }
  rest_rows rr = {m, d, ev, row, user};
  *evs = lw_ev_after_step(mr, dr, ev, rest_row, &rr, err);
  if (ev->cur)
    from_rest(m, d, ev);
  return 0;
}

int lw_ev_last(const lw_ev_run *ev, double *tau)
{
  *tau = ev->last_tau;
  return ev->last_guard;
}

void lw_ev_guard_grad(const lw_model *m, const lw_data *d, lw_ev_run *ev, int k, double *G)
{
  guard_grad(m, d, ev, &m->guards[k], G);
}

/* the events' end of the run, said as a stop */
void lw_ev_stop_message(const lw_model *m, lw_ev_run *ev, lw_sim_result *res, double t)
{
  long n;
  lw_event_record *log = lw_ev_take_log(ev, &n);
  free(res->events);
  res->events = log;
  res->nevents = n;
  if (!n)
    return;
  const lw_event_record *r = &log[n - 1];
  const char *name = m->desc->events[r->event].name;
  if (r->action == LW_EVREC_REST)
    lw_set_error(&res->error, LW_OK, "", t,
                 "'%s' came to rest at t = %.12g s (impact speed %.3g below the rest speed): resting contact "
                 "is not followed in this run, which stops there",
                 name, t, fabs(r->v_pre));
  else
    lw_set_error(&res->error, LW_OK, "", t, "stopped by the guard '%s' at t = %.12g s", name, t);
}

/* ---- the public stepping ----------------------------------------------- */
lw_event_run *lw_event_run_new(const lw_model *m, lw_data *d, lw_error *err)
{
  lw_ev_run *ev = lw_ev_run_new(m);
  if (!ev) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the events");
    return NULL;
  }
  if (lw_ev_start(m, d, ev, err)) {
    lw_ev_run_free(ev);
    return NULL;
  }
  ev->allow_rest = 1;
  return ev;
}

void lw_event_run_free(lw_event_run *ev) { lw_ev_run_free(ev); }

int lw_step_events(const lw_model *m, lw_data *d, lw_event_run *ev, lw_step_info *info, lw_error *err)
{
  if (!ev->ng)
    return lw_step(m, d, info, err);
  lw_ev_save(m, d, ev);
  int evs = 0, resting = lw_ev_resting(ev);
  int st = resting ? lw_ev_rest_step(m, d, ev, info, NULL, NULL, err, &evs) : lw_step(m, d, info, err);
  if (st)
    return st;
  st = resting ? evs : lw_ev_after_step(m, d, ev, NULL, NULL, err);
  if (st < 0)
    return LW_ERR_SOLVER;
  if (st > 0)
    ev->t_end = NAN; /* the guards are taken anew at the stop's state */
  return st > 0 ? LW_EVENT_STOP : LW_OK;
}

const lw_event_record *lw_event_run_log(const lw_event_run *ev, long *n)
{
  *n = ev->nlog;
  return ev->log;
}
