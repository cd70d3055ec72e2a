/* sens_adjoint.c: the discrete adjoint driver (LW_SENS_ADJOINT).  A forward
 * pass sums the objectives and stores every state, or only checkpoints when
 * they would exceed the memory limit; the backward pass (segment by segment
 * from the checkpoints, each recomputed) linearizes each step again and
 * solves its transposed systems, one objective at a time: the cost does not
 * grow with the number of parameters. */
#include "sens_internal.h"
#include "sens/sens_events.h"
#include "la/lw_bmat.h"
#include "model/lw_error.h"

#include <stdlib.h>

/* the adjoint's stored states and cotangents */
typedef struct {
  int checkpoint;  /* only every K-th state is stored; segments are recomputed */
  long K;          /* the segment length (N + 1 without checkpoints) */
  double *store;   /* the stored states (all, or the checkpoints) */
  double *seg;     /* (K + 1 states) a recomputed segment */
  double *ab, *bb, *cb; /* (no x nq) the step k+1's parts of d psi / d q_k, d qd_k, d qdd_k */
  double *zb;      /* (no x nz) d psi / d c_{k+1} */
  /* numerical damping (na = nq): the step k+1's part of d psi / d a_k, and
   * d psi / d a_{k+1} in all, the pseudo-acceleration's (no x na each) */
  double *aab, *anb;
  double *kb;      /* (no x nc) d psi / d kappa_k: joint friction read it in the step to k+1 */
  double *cx;      /* (nx) the cotangent of the state k */
  double *mu;      /* (3 n1) the multipliers of the acceleration, velocity and position problems */
  double *tmp;     /* (max(nv, n1) + nq) scratch of the initial problems */
  sens_ev *ev;     /* the model's events (sens_events.c), or NULL; then */
  char *fired;     /* (N + 1) the steps to these states held events */
  double *xb;      /* (no x nx) the cotangent a step with events hands to the state it started from */
  double *stx;     /* (one state) scratch */
  struct lw_event_record *log; /* the forward pass's events */
  long nlog;
} adjoint_work;

/* the stored states: all of them, or checkpoints every K = ceil(sqrt(N + 1))
 * states and one segment when all would exceed the limit */
static int adjoint_store_alloc(sens_run *r, adjoint_work *a)
{
  sens *s = r->s;
  size_t sl = r->sl;
  size_t need = sl * sizeof(double) * (size_t)(s->N + 1);
  a->K = s->N + 1;
  a->checkpoint = need > r->limit;
  if (a->checkpoint) {
    a->K = (long)ceil(sqrt((double)(s->N + 1)));
    /* checkpoints + one segment */
    need = sl * sizeof(double) * (size_t)((s->N / a->K + 2) + a->K + 1);
  }
  long nck = a->checkpoint ? s->N / a->K + 1 : s->N + 1;
  a->store = malloc(sizeof(double) * sl * (size_t)nck);
  a->seg = a->checkpoint ? malloc(sizeof(double) * sl * (size_t)(a->K + 1)) : NULL;
  if (!a->store || (a->checkpoint && !a->seg)) {
    lw_set_error(r->err, LW_ERR_NOMEM, "", NAN, "out of memory for %zu bytes of stored states", need);
    return LW_ERR_NOMEM;
  }
  r->res->peak_bytes = sizeof(double) * sl * (size_t)(nck + (a->checkpoint ? a->K + 1 : 0));
  r->res->recomputed = a->checkpoint;
  return LW_OK;
}

/* the forward pass: the states stepped and stored, the objectives' values summed */
static int adjoint_forward_pass(sens_run *r, adjoint_work *a)
{
  sens *s = r->s;
  size_t sl = r->sl;
  double *st1 = r->st1;
  memcpy(a->store, r->st0, sizeof(double) * sl);
  for (long k = 0; k <= s->N; k++) {
    if (k > 0) {
      lw_step_info info;
      if (a->ev) {
        int fired = 0, status = sens_ev_step(a->ev, sens_step_set(r, k), st1, st1, &fired, s->value);
        if (status)
          return status;
        a->fired[k] = (char)fired;
      } else if (lw_step(sens_step_set(r, k), s->d, &info, r->err)) {
        return LW_ERR_SOLVER;
      }
      sens_state_save(s, st1);
      if (!a->checkpoint)
        memcpy(a->store + sl * (size_t)k, st1, sizeof(double) * sl);
      else if (k % a->K == 0)
        memcpy(a->store + sl * (size_t)(k / a->K), st1, sizeof(double) * sl);
      sens_state_load(s, st1);
    } else {
      memcpy(st1, r->st0, sizeof(double) * sl);
    }
    double wi, wf;
    sens_trapezoid_weights(s, k, &wi, &wf);
    sens_outputs_at(s, st1, 0, k == s->N);
    sens_objectives_at(s, wi, wf, s->value);
    sens_state_load(s, st1);
    r->res->steps = k;
    if (sens_run_cancelled(r, k, 0.5 * (double)k / (double)(s->N + 1))) {
      lw_set_error(r->err, LW_OK, "", ST_T(st1), "cancelled at t = %.6g s", ST_T(st1));
      return -1;
    }
  }
  return LW_OK;
}

/* the backward pass's cotangents */
static void adjoint_cotangents_alloc(sens_run *r, adjoint_work *a)
{
  sens *s = r->s;
  int nq = s->nq, no = s->no, n1 = s->n1;
  a->ab = calloc((size_t)nq * no + 1, sizeof(double));
  a->bb = calloc((size_t)nq * no + 1, sizeof(double));
  a->cb = calloc((size_t)nq * no + 1, sizeof(double));
  a->cx = calloc((size_t)s->nx + 1, sizeof(double));
  a->zb = calloc((size_t)s->nz * no + 1, sizeof(double));
  a->aab = calloc((size_t)s->na * no + 1, sizeof(double));
  a->anb = calloc((size_t)s->na * no + 1, sizeof(double));
  a->kb = calloc((size_t)(r->m->nfric ? s->nc : 0) * no + 1, sizeof(double));
  a->mu = calloc((size_t)3 * n1 + 1, sizeof(double));
  a->tmp = calloc((size_t)(r->L.nv > n1 ? r->L.nv : n1) + nq + 1, sizeof(double));
}

/* frees the stored states and the cotangents */
static void adjoint_free(adjoint_work *a)
{
  free(a->store);
  free(a->seg);
  free(a->ab);
  free(a->bb);
  free(a->cb);
  free(a->cx);
  free(a->zb);
  free(a->aab);
  free(a->anb);
  free(a->kb);
  free(a->mu);
  free(a->tmp);
  sens_ev_free(a->ev);
  free(a->fired);
  free(a->xb);
  free(a->stx);
  free(a->log);
}

/* with numerical damping, the pseudo-acceleration's part of state k's
 * cotangent: a_k+1 = ea qdd_k+1 + en qdd_k + eo a_k, so that with ab the
 * step k+1's part of d psi / d a_k and an = d psi / d a_k+1 on entry,
 * d psi / d a_k = ab + eo an (into an on return) and qdd_k takes en an
 * and, a_k being formed from it, ea d psi / d a_k (a_0 = qdd_0: all of it) */
static void accel_cotangent_alpha(const sens *s, double *an, const double *ab, long k, double *cx)
{
  const lw_newmark *c = &s->nm;
  int nq = s->nq;
  double from_qdd = k > 0 ? c->ea : 1.0;
  for (int i = 0; i < nq; i++) {
    double abar = ab[i] + c->eo * an[i];
    cx[2 * nq + i] += c->en * an[i] + from_qdd * abar;
    an[i] = abar;
  }
}

/* the cotangent cx of [q qd qdd lambda z] at state k for objective o: the
 * outputs', the history's (a, b) and the integrals' (zo) parts; the
 * integrals' and the plain parameters' direct terms into the gradient */
static void adjoint_state_cotangent(sens_run *r, adjoint_work *aw, int o, long k)
{
  sens *s = r->s;
  int nq = s->nq, p = s->p, ncols = s->ncols;
  const double *a = aw->ab + (size_t)o * nq, *b = aw->bb + (size_t)o * nq, *c = aw->cb + (size_t)o * nq;
  double *cx = aw->cx;
  memset(cx, 0, sizeof(double) * (size_t)s->nx);
  if (aw->xb) { /* from a step with events that starts here */
    double *xb = aw->xb + (size_t)o * s->nx;
    memcpy(cx, xb, sizeof(double) * (size_t)s->nx);
    memset(xb, 0, sizeof(double) * (size_t)s->nx);
  }
  const int *xs;
  sens_outputs_cotangent(s, s->gy + (size_t)o * ncols, cx, &xs);
  /* a and b come from the step after k (its history terms), the
   * integrals' z_k from the step to k: their lengths (one length but in
   * the tolerance mode) */
  double hn = sens_step_h(s, k + 1), hk = k > 0 ? sens_step_h(s, k) : s->h;
  for (int i = 0; i < nq; i++) {
    cx[i] += a[i];
    cx[nq + i] += b[i];
    cx[2 * nq + i] += c[i];
  }
  if (s->na)
    accel_cotangent_alpha(s, aw->anb + (size_t)o * nq, aw->aab + (size_t)o * nq, k, cx);
  /* integrals: z_k = c_k + h/2 e_k feeds the outputs and c_k+1 =
   * z_k + h/2 e_k; z_0 = 0.  e_k's gradients: state b of the step
   * to k, or state a of the step from 0 */
  const double *zo = aw->zb + (size_t)o * s->nz;
  for (int i = 0; i < s->nz; i++) {
    const double *eq = (k > 0 ? s->eqb : s->eqa) + (size_t)i * nq;
    const double *eqd = (k > 0 ? s->eqdb : s->eqda) + (size_t)i * nq;
    const double *pe = (k > 0 ? s->peb : s->pea) + (size_t)i * p;
    double W = 0.5 * hn * zo[i];
    if (k > 0) {
      cx[s->nxs + i] += zo[i];
      W += 0.5 * hk * cx[s->nxs + i];
    }
    for (int l = 0; l < nq; l++) {
      cx[l] += W * eq[l];
      cx[nq + l] += W * eqd[l];
    }
    for (int j = 0; j < p; j++)
      s->grad[(size_t)o * p + j] += W * pe[j];
  }
  for (int n = 0; n < s->nplain; n++) { /* YT and gth are 0 for time-function values */
    int j = s->plist[n];
    s->grad[(size_t)o * p + j] +=
        dotn(ncols, s->gy + (size_t)o * ncols, s->YT + (size_t)j * ncols) + s->gth[(size_t)o * p + j];
  }
}

/* the initial problems transposed: the acceleration problem, then the
 * velocity and position problems, their parameter columns into the gradient */
static void adjoint_initial_transposed(sens_run *r, adjoint_work *aw, int o)
{
  sens *s = r->s;
  const sens_initial_lin *L = &r->L;
  int nq = s->nq, nc = s->nc, n1 = s->n1, p = s->p;
  double *cx = aw->cx, *muA = aw->mu, *tmp = aw->tmp;
  double *cq = cx, *cqd = cx + nq;
  memcpy(muA, cx + 2 * nq, sizeof(double) * (size_t)nq);
  memcpy(muA + nq, cx + 3 * nq, sizeof(double) * (size_t)nc);
  sens_kkt_solve(L->K0, n1, nq, s->sM, L->ip0, 1, muA, 1);
  gemv_t(n1, nq, -1.0, L->D0q, muA, cq);
  gemv_t(n1, nq, -1.0, L->D0qd, muA, cqd);
  for (int j = 0; j < p; j++)
    s->grad[(size_t)o * p + j] -= dotn(n1, L->F0 + (size_t)j * n1, muA);
  /* nu = Pv^T [cqd; 0] */
  memset(tmp, 0, sizeof(double) * (size_t)L->nv);
  memcpy(tmp, cqd, sizeof(double) * (size_t)nq);
  double *nuv = calloc((size_t)L->nv, sizeof(double));
  gemv_t(L->nv, L->nv, 1.0, L->Pv, tmp, nuv);
  gemv_t(L->nv, nq, -1.0, L->Dvq, nuv, cq);
  for (int j = 0; j < p; j++)
    s->grad[(size_t)o * p + j] -= dotn(L->nv, L->Fv + (size_t)j * L->nv, nuv);
  free(nuv);
  double *pg = calloc((size_t)L->ng + 1, sizeof(double));
  gemv_t(nq, L->ng, 1.0, L->Pg, cq, pg);
  for (int j = 0; j < p; j++)
    s->grad[(size_t)o * p + j] -= dotn(L->ng, L->Gth + (size_t)j * L->ng, pg);
  for (int j = 0; L->dq0 && j < p; j++) /* q0' = dq0 - Pg Gth */
    s->grad[(size_t)o * p + j] += dotn(nq, L->dq0 + (size_t)j * nq, cq);
  free(pg);
}

/* with numerical damping, the step's history transposed (sens_step_carry,
 * sens_carry.c): x = q_n + h qd_n + px a_n with cotangent g, v = qd_n +
 * pv a_n with M muV, r = rm a_n + rd qdd_n with M (muA - muP), and the
 * damping's -C bh, bh = bq q_n + bv qd_n + ba a_n; into the step's parts
 * of the cotangents of q_n, qd_n, qdd_n and a_n (a, b, c, aa; rb nq of
 * scratch) */
static void history_transposed_alpha(const sens *s, const double *g, const double *muP, const double *muV,
                                     const double *muA, double *a, double *b, double *c, double *aa, double *rb)
{
  const lw_model *m = s->m;
  const lw_newmark *k = &s->nm;
  int nq = s->nq;
  double h = s->h;
  for (int i = 0; i < nq; i++) {
    a[i] = g[i];
    b[i] = h * g[i];
    aa[i] = k->px * g[i];
    rb[i] = muA[i] - muP[i];
  }
  mass_axpy(m, 1.0, muV, b);
  mass_axpy(m, k->pv, muV, aa);
  memset(c, 0, sizeof(double) * (size_t)nq);
  mass_axpy(m, k->rm, rb, aa);
  mass_axpy(m, k->rd, rb, c);
  if (!s->undamped) {
    sens_bmat_mul_t(s, &s->Cb, -k->bq, muP, a);
    sens_bmat_mul_t(s, &s->Cb, -k->bv, muP, b);
    sens_bmat_mul_t(s, &s->Cb, -k->ba, muP, aa);
  }
}

/* step k (from k-1) transposed: the acceleration, velocity and position
 * problems in turn, their parameter columns into the gradient, and the
 * step's part of the cotangents of state k-1 (ab, bb, cb) and of the carry
 * (zo).  The forward carry's form transposed (sens_carry.c): the
 * position problem gives the increment d' over the predictor x' = q'_n + h
 * qd'_n + h^2/4 qdd'_n, so with g the cotangent of q' from the rates and
 * mu_P = AP^-T [g + c2 M mu_V + c4 M mu_A; c_lambda], x' has the cotangent
 * g - K^T mu_P,q - J^T mu_P,c (K = A - c4 M), which reaches q_n, qd_n,
 * qdd_n with 1, h, h^2/4: no difference of terms of size c4 |M mu| */
static void adjoint_step_transposed(sens_run *r, adjoint_work *aw, int o)
{
  sens *s = r->s;
  const lw_model *m = r->m;
  int nq = s->nq, nc = s->nc, n1 = s->n1, p = s->p;
  double *cx = aw->cx, *muA = aw->mu, *muV = aw->mu + n1, *muP = aw->mu + 2 * n1, *g = aw->tmp;
  double *a = aw->ab + (size_t)o * nq, *b = aw->bb + (size_t)o * nq, *c = aw->cb + (size_t)o * nq;
  double *zo = aw->zb + (size_t)o * s->nz;
  memset(muA, 0, sizeof(double) * (size_t)n1);
  memcpy(muA, cx + 2 * nq, sizeof(double) * (size_t)nq);
  if (m->nfric) /* kappa_k's cotangent from the step after */
    memcpy(muA + nq, aw->kb + (size_t)o * nc, sizeof(double) * (size_t)nc);
  sens_km_solve(s, muA);
  memset(muV, 0, sizeof(double) * (size_t)n1);
  memcpy(muV, cx + nq, sizeof(double) * (size_t)nq);
  lw_rowmat_mul_t(m, s->RAd, -1.0, muA + nq, muV); /* -DAqd^T muA */
  sens_km_solve(s, muV);
  /* g = c_q - DVq^T muV - DAq^T muA */
  memcpy(g, cx, sizeof(double) * (size_t)nq);
  sens_bmat_mul_t(s, &s->Hv, -1.0, muV, g);
  sens_bmat_mul_t(s, &s->Ha, -1.0, muA, g);
  lw_rowmat_mul_t(m, s->RV, -1.0, muV + nq, g);
  lw_rowmat_mul_t(m, s->RA, -1.0, muA + nq, g);
  memcpy(muP, g, sizeof(double) * (size_t)nq);
  memcpy(muP + nq, cx + 3 * nq, sizeof(double) * (size_t)nc);
  mass_axpy(m, s->c2, muV, muP);
  mass_axpy(m, s->c4, muA, muP);
  m->integ->solve_t(s, muP);
  if (m->nfric)
    sens_friction_kap_cotangent(s, muP, aw->kb + (size_t)o * nc);
  for (int n = 0; n < s->nact; n++) {
    int j = s->alist[n];
    s->grad[(size_t)o * p + j] -= dotn(n1, s->FP + (size_t)j * n1, muP) + dotn(n1, s->FV + (size_t)j * n1, muV) +
                                  dotn(n1, s->FA + (size_t)j * n1, muA);
  }
  /* x''s cotangent g - K^T muP_q - J^T muP_c; the damping's history
   * C (c2 q'_n + qd'_n) and the velocity's M (qd'_n + h/2 qdd'_n) */
  sens_bmat_mul_t(s, &s->Kb, -1.0, muP, g);
  lw_gradmat_mul_t(m, s->d->jac, -1.0, muP + nq, g);
  double h = s->h, h2 = 0.5 * h, hh4 = 0.25 * h * h;
  if (s->na) {
    history_transposed_alpha(s, g, muP, muV, muA, a, b, c, aw->aab + (size_t)o * nq, aw->tmp + nq);
  } else {
    for (int i = 0; i < nq; i++) {
      a[i] = g[i];
      b[i] = h * g[i];
      c[i] = hh4 * g[i];
    }
    mass_axpy(m, 1.0, muV, b);
    mass_axpy(m, h2, muV, c);
    if (!s->undamped) {
      sens_bmat_mul_t(s, &s->Cb, s->c2, muP, a);
      sens_bmat_mul_t(s, &s->Cb, 1.0, muP, b);
    }
  }
  for (int i = 0; i < s->nz; i++)
    zo[i] = cx[s->nxs + i] - dotn(nq, s->Rc + (size_t)i * nq, muP);
}

/* the step with events from stored state st0 (state k - 1) taken again as
 * the forward pass took it, its Jacobian formed */
static int adjoint_event_step(sens_run *r, adjoint_work *aw, const double *st0, long k)
{
  int fired = 0, status = sens_ev_restart(aw->ev, st0);
  sens_step_resume(r->s, k - 1);
  if (!status)
    status = sens_ev_step(aw->ev, sens_step_set(r, k), st0, aw->stx, &fired, NULL);
  if (!status && (!fired || sens_ev_jacobian(aw->ev)))
    status = r->err->status ? r->err->status : LW_ERR_SOLVER;
  return status;
}

/* that step transposed for objective o: the cotangent of the state it
 * started from (handed on through xb, none through the history) and its
 * parameters' part into the gradient */
static void adjoint_event_transposed(sens_run *r, adjoint_work *aw, int o)
{
  sens *s = r->s;
  int nq = s->nq;
  sens_ev_adjoint(aw->ev, o, aw->cx, aw->xb + (size_t)o * s->nx, s->grad + (size_t)o * s->p);
  memset(aw->ab + (size_t)o * nq, 0, sizeof(double) * (size_t)nq);
  memset(aw->bb + (size_t)o * nq, 0, sizeof(double) * (size_t)nq);
  memset(aw->cb + (size_t)o * nq, 0, sizeof(double) * (size_t)nq);
}

/* state k of the backward pass (stored at base + k states): its outputs'
 * and objectives' derivatives, the step to it linearized, and for each
 * objective the step (or, at k = 0, the initial problems) transposed */
static int adjoint_state(sens_run *r, adjoint_work *aw, const double *base, long k)
{
  sens *s = r->s;
  const double *stk = base + r->sl * (size_t)k;
  double wi, wf;
  sens_trapezoid_weights(s, k, &wi, &wf);
  /* a step with events first: its integrals' terms evaluate the outputs
   * at its states */
  int fired = k > 0 && aw->fired && aw->fired[k];
  if (k > 0) /* the step to k's length (the tolerance mode's steps differ) */
    sens_step_set(r, k);
  if (fired) {
    int status = adjoint_event_step(r, aw, base + r->sl * (size_t)(k - 1), k);
    if (status)
      return status;
  }
  sens_outputs_at(s, stk, 1, k == s->N);
  sens_objectives_at(s, wi, wf, NULL); /* the values were summed going forward */
  if (!fired && k > 0 && s->m->integ->linearize(s, base + r->sl * (size_t)(k - 1), stk, 0))
    return r->err->status;
  for (int o = 0; o < s->no; o++) {
    adjoint_state_cotangent(r, aw, o, k);
    if (fired)
      adjoint_event_transposed(r, aw, o);
    else if (k == 0)
      adjoint_initial_transposed(r, aw, o);
    else
      adjoint_step_transposed(r, aw, o);
  }
  return LW_OK;
}

/* segment sg's states k0 .. k1 stepped again from its checkpoint into seg */
static int adjoint_segment_recompute(sens_run *r, adjoint_work *a, long sg, long k0, long k1)
{
  sens *s = r->s;
  size_t sl = r->sl;
  memcpy(a->seg, a->store + sl * (size_t)sg, sizeof(double) * sl);
  sens_state_load(s, a->seg);
  if (a->ev && sens_ev_restart(a->ev, a->seg))
    return LW_ERR_MODEL;
  sens_step_resume(s, k0);
  for (long k = k0 + 1; k <= k1; k++) {
    lw_step_info info;
    double *stk = a->seg + sl * (size_t)(k - k0);
    if (a->ev) {
      int fired, status = sens_ev_step(a->ev, sens_step_set(r, k), stk - sl, stk, &fired, NULL);
      if (status)
        return status;
      continue;
    }
    if (lw_step(sens_step_set(r, k), s->d, &info, r->err))
      return LW_ERR_SOLVER;
    sens_state_save(s, stk);
  }
  return LW_OK;
}

/* the backward pass: the segments from the last, each one's states from its last */
static int adjoint_backward_pass(sens_run *r, adjoint_work *a)
{
  sens *s = r->s;
  long K = a->K, segs = a->checkpoint ? (s->N + K) / K : 1;
  for (long sg = segs - 1; sg >= 0; sg--) {
    long k0 = a->checkpoint ? sg * K : 0, k1 = a->checkpoint ? (sg + 1) * K : s->N;
    if (k1 > s->N)
      k1 = s->N;
    const double *base = a->store;
    if (a->checkpoint) {
      if (adjoint_segment_recompute(r, a, sg, k0, k1))
        return LW_ERR_SOLVER;
      base = a->seg - r->sl * (size_t)k0;
    }
    for (long k = k1; k >= (sg == 0 ? 0 : k0 + 1); k--) {
      int status = adjoint_state(r, a, base, k);
      if (status)
        return status;
      if (sens_run_cancelled(r, k, 0.5 + 0.5 * (double)(s->N - k) / (double)(s->N + 1))) {
        lw_set_error(r->err, LW_OK, "", ST_T(base + r->sl * (size_t)k), "cancelled");
        return -1;
      }
    }
  }
  return LW_OK;
}

/* the stored states, the forward pass, then the backward pass */
int sens_adjoint_run(sens_run *r)
{
  adjoint_work a = {0};
  int status = adjoint_store_alloc(r, &a);
  if (!status && r->m->nguards) {
    sens *s = r->s;
    sens_state_load(s, r->st0);
    a.ev = sens_ev_new(s);
    a.fired = calloc((size_t)s->N + 1, 1);
    a.xb = calloc((size_t)s->nx * s->no + 1, sizeof(double));
    a.stx = calloc(r->sl, sizeof(double));
    if (!a.ev)
      status = r->err->status ? r->err->status : LW_ERR_NOMEM;
    else if (!a.fired || !a.xb || !a.stx)
      status = LW_ERR_NOMEM;
  }
  if (!status)
    status = adjoint_forward_pass(r, &a);
  if (!status && a.ev) {
    sens_ev_take_log(a.ev, r->res);
    a.log = r->res->events;
    a.nlog = r->res->nevents;
    r->res->events = NULL;
    r->res->nevents = 0;
  }
  if (!status) {
    adjoint_cotangents_alloc(r, &a);
    status = adjoint_backward_pass(r, &a);
  }
  if (a.ev) { /* the log of the forward pass (the backward one restarts it) */
    lw_sens_result *res = r->res;
    free(res->events);
    res->events = a.log;
    res->nevents = a.nlog;
    a.log = NULL;
  }
  adjoint_free(&a);
  return status;
}
