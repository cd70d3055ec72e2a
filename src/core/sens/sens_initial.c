/* sens_initial.c: the sensitivities of the initial state: the position,
 * velocity and acceleration problems at t = 0 linearized and solved for
 * the parameters' columns. */
#include "sens/sens_initial.h"
#include "sens_internal.h"
#include "dyn/lw_rows.h"
#include "la/lw_matrix.h"
#include "lin/lw_jvp.h"
#include "model/lw_error.h"

#include <stdlib.h>

void sens_initial_free(sens_initial_lin *L)
{
  free(L->Pg);
  free(L->Gth);
  free(L->dq0);
  free(L->guess_free);
  free(L->Pv);
  free(L->Dvq);
  free(L->Fv);
  free(L->K0);
  free(L->ip0);
  free(L->D0q);
  free(L->D0qd);
  free(L->F0);
}

/* parameter j's derivative of the initial guess q0 into dq0 (nq): a
 * beam's straight shape moves with its end points, a rigid body with its
 * placement; 0 when it is zero */
static int initial_guess_tangent(const sens *s, const lw_tangent *tg, double *dq0)
{
  int on = 0;
  memset(dq0, 0, sizeof(double) * (size_t)s->nq);
  for (int i = 0; i < s->nq; i++)
    on |= (dq0[i] = tg->dm->q0[i]) != 0.0;
  return on;
}

/* dq0 less what the assembly takes away from it: the Gauss-Newton
 * iteration from the guess keeps the guess's part in the free directions
 * of G, (I - Pg G) dq0, and replaces the rest.  A rigid body held by its
 * joints and the initial values keeps nothing of its placement (that part
 * is round-off: set to exactly 0, 0 returned); a free body keeps all of it
 * (a ball's drop height), a body of a mechanism whose coordinates have no
 * initial value the part along its motion */
static int guess_kept(const double *G, const double *Pg, int ng, int nq, double *dq0, double *gt)
{
  double scale = 0, kept = 0;
  memset(gt, 0, sizeof(double) * (size_t)ng);
  gemv(ng, nq, 1.0, G, dq0, gt);
  for (int i = 0; i < nq; i++)
    scale = fmax(scale, fabs(dq0[i]));
  gemv(nq, ng, -1.0, Pg, gt, dq0);
  for (int i = 0; i < nq; i++)
    kept = fmax(kept, fabs(dq0[i]));
  return kept > 1e-10 * scale;
}

/* 1. the position problem G = [Phi; x_i - value_i] = 0 from the guess q0,
 * whose free directions the Gauss-Newton assembly keeps: Pg = pinv(dG/dq),
 * Gth = dG/drho + G dq0 so that q0' = dq0 - Pg Gth; nonzero when the
 * pseudo-inverse fails */
static int initial_position(sens *s, const double *st, sens_initial_lin *L)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, p = s->p, w = m->wrow;
  const double *q = ST_Q(s, st), *qd = ST_QD(s, st), *qdd = ST_QDD(s, st), *lam = ST_L(s, st);
  double t = ST_T(st);
  int ng = L->ng;
  double *G = calloc((size_t)ng * nq + 1, sizeof(double));
  double *gc = calloc((size_t)w, sizeof(double));
  L->Pg = calloc((size_t)nq * ng + 1, sizeof(double));
  L->Gth = calloc((size_t)ng * p + 1, sizeof(double));
  double *dq0 = calloc((size_t)nq + 1, sizeof(double));
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int i = 0; i < lw_loc_width(m, row->nblk, row->blk, 0); i++)
      G[(size_t)lw_loc_global(m, row->blk, i, 0) * ng + r] += d->jac[(size_t)r * w + i];
  }
  lw_lin_point pt = {q, qd, qd, qdd, {lam, NULL, NULL}, t};
  lw_lin_dir none = {NULL, NULL, NULL, NULL, NULL, NULL, -1};
  for (int i = 0, h = 0; i < m->ninit; i++) {
    if (!m->init_has_value[i])
      continue;
    int ci = m->init_coord[i];
    const lw_coord *c = &m->coords[ci];
    lw_coord_jvp(m, NULL, ci, &pt, &none, NULL, NULL, gc, NULL);
    for (int l = 0; l < lw_loc_width(m, c->nblk, c->blk, 0); l++)
      G[(size_t)lw_loc_global(m, c->blk, l, 0) * ng + nc + h] += gc[l];
    h++;
  }
  lw_lin_out op = {NULL, {NULL, NULL, NULL}, s->dphi, NULL, NULL};
  for (int j = 0; j < p; j++) {
    const lw_tangent *tg = s->tg[j];
    if (!tg || !tg->any || tg->fn_kind == 1)
      continue; /* a force's time function: the positions do not depend on it */
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    lw_lin_jvp(m, d, &pt, &dir, &op);
    double *gt = L->Gth + (size_t)j * ng;
    memcpy(gt, s->dphi, sizeof(double) * (size_t)nc);
    for (int i = 0, h = 0; i < m->ninit; i++) {
      if (!m->init_has_value[i])
        continue;
      double dx;
      lw_coord_jvp(m, tg, m->init_coord[i], &pt, &dir, &dx, NULL, NULL, NULL);
      gt[nc + h] = dx - tg->dm->init_value[i];
      h++;
    }
  }
  double *G0 = malloc(sizeof(double) * ((size_t)ng * nq + 1)); /* sens_pinv destroys G */
  memcpy(G0, G, sizeof(double) * (size_t)ng * nq);
  int bad = sens_pinv(G, ng, nq, L->Pg);
  double *gq = calloc((size_t)ng + 1, sizeof(double));
  L->guess_free = calloc((size_t)p + 1, 1);
  for (int j = 0; j < p && !bad; j++) {
    const lw_tangent *tg = s->tg[j];
    if (!tg || !tg->any || tg->fn_kind == 1 || !initial_guess_tangent(s, tg, dq0))
      continue;
    if (!guess_kept(G0, L->Pg, ng, nq, dq0, gq))
      continue;
    L->guess_free[j] = 1;
    if (!L->dq0)
      L->dq0 = calloc((size_t)nq * p + 1, sizeof(double));
    memcpy(L->dq0 + (size_t)j * nq, dq0, sizeof(double) * (size_t)nq);
  }
  free(gq);
  free(G0);
  free(dq0);
  free(G);
  free(gc);
  return bad;
}

/* 2. the velocity problem, min qd^T M qd / 2 subject to A qd = b, A = [J;
 * grad x_i]: Pv = pinv([M A^T; A 0]) and the derivatives Dvq, Fv of its
 * conditions; nonzero when the pseudo-inverse fails */
static int initial_velocity(sens *s, const double *st, sens_initial_lin *L)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, p = s->p, w = m->wrow;
  const double *q = ST_Q(s, st), *qd = ST_QD(s, st), *qdd = ST_QDD(s, st), *lam = ST_L(s, st);
  double t = ST_T(st);
  int na = L->na, nv = L->nv;
  lw_lin_point pt = {q, qd, qd, qdd, {lam, NULL, NULL}, t};
  lw_lin_dir none = {NULL, NULL, NULL, NULL, NULL, NULL, -1};
  double *gc = calloc((size_t)w, sizeof(double));
  double *dgc = calloc((size_t)w, sizeof(double));
  double *Kv = calloc((size_t)nv * nv + 1, sizeof(double));
  L->Pv = calloc((size_t)nv * nv + 1, sizeof(double));
  L->Dvq = calloc((size_t)nv * nq + 1, sizeof(double));
  L->Fv = calloc((size_t)nv * p + 1, sizeof(double));
  for (int j = 0; j < nq; j++)
    memcpy(Kv + (size_t)j * nv, s->M + (size_t)j * nq, sizeof(double) * (size_t)nq);
  double *A = calloc((size_t)na * nq + 1, sizeof(double));
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int i = 0; i < lw_loc_width(m, row->nblk, row->blk, 0); i++)
      A[(size_t)lw_loc_global(m, row->blk, i, 0) * na + r] += d->jac[(size_t)r * w + i];
  }
  double *bv = calloc((size_t)nv, sizeof(double));
  for (int r = 0; r < nc; r++)
    bv[nq + r] = -d->phit[r];
  for (int i = 0; i < m->ninit; i++) {
    int ci = m->init_coord[i];
    const lw_coord *c = &m->coords[ci];
    lw_coord_jvp(m, NULL, ci, &pt, &none, NULL, NULL, gc, NULL);
    for (int l = 0; l < lw_loc_width(m, c->nblk, c->blk, 0); l++)
      A[(size_t)lw_loc_global(m, c->blk, l, 0) * na + nc + i] += gc[l];
    bv[nq + nc + i] = m->init_has_vel[i] ? m->init_vel[i] : 0.0;
  }
  for (int j = 0; j < nq; j++)
    for (int r = 0; r < na; r++) {
      Kv[(size_t)j * nv + nq + r] = s->sM * A[(size_t)j * na + r];
      Kv[(size_t)(nq + r) * nv + j] = s->sM * A[(size_t)j * na + r];
    }
  int bad = sens_pinv(Kv, nv, nv, L->Pv);
  /* Kv = D^-1 Kv_s D^-1, D = diag(1, s): D sens_pinv(Kv_s) D solves Kv (its inverse when regular) */
  for (int j = 0; j < nv; j++)
    for (int i = 0; i < nv; i++)
      L->Pv[(size_t)j * nv + i] *= (i >= nq ? s->sM : 1.0) * (j >= nq ? s->sM : 1.0);
  /* base multipliers mu of the velocity problem */
  double *xm = calloc((size_t)nv, sizeof(double));
  gemv(nv, nv, 1.0, L->Pv, bv, xm);
  const double *mu = xm + nq;
  /* derivatives of [M qd + A^T mu; A qd - b] */
  double *mu_rows = calloc((size_t)nc + 1, sizeof(double));
  memcpy(mu_rows, mu, sizeof(double) * (size_t)nc);
  lw_lin_point pv = {q, qd, qd, qdd, {mu_rows, NULL, NULL}, t};
  lw_lin_out ov = {NULL, {s->dJ[0], NULL, NULL}, NULL, s->dvel, NULL};
  for (int x = 0; x < nq + p; x++) {
    /* x < nq: position direction; x >= nq: parameter x - nq */
    const lw_tangent *tg = x < nq ? NULL : s->tg[x - nq];
    if (x >= nq && (!tg || !tg->any || tg->fn_kind == 1))
      continue; /* nor the velocities on a force's time function */
    double *col = x < nq ? L->Dvq + (size_t)x * nv : L->Fv + (size_t)(x - nq) * nv;
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    if (x < nq) {
      unit_vector(s->e, nq, x);
      dir.dq = s->e;
      dir.body = lw_body_of(m, x);
    }
    lw_lin_jvp(m, d, &pv, &dir, &ov);
    for (int i = 0; i < nq; i++)
      col[i] = s->dJ[0][i];
    if (tg)
      lw_tangent_mass_mul(m, tg, qd, col);
    for (int r = 0; r < nc; r++)
      col[nq + r] = s->dvel[r];
    for (int i = 0; i < m->ninit; i++) {
      int ci = m->init_coord[i];
      const lw_coord *c = &m->coords[ci];
      double dxd;
      lw_coord_jvp(m, tg, ci, &pv, &dir, NULL, &dxd, gc, dgc);
      /* mu_i d(grad x_i) */
      for (int l = 0; l < lw_loc_width(m, c->nblk, c->blk, 0); l++)
        col[lw_loc_global(m, c->blk, l, 0)] += mu[nc + i] * dgc[l];
      col[nq + nc + i] = dxd - (tg && m->init_has_vel[i] ? tg->dm->init_vel[i] : 0.0);
    }
  }
  free(gc);
  free(dgc);
  free(Kv);
  free(A);
  free(bv);
  free(xm);
  free(mu_rows);
  return bad;
}

/* 3. the acceleration problem [M qdd - Q(q, qd) + J^T lambda; J qdd +
 * gamma] = 0: K0 = [M J^T; J 0] factored and the derivatives D0q, D0qd, F0;
 * nonzero when K0 is singular */
static int initial_acceleration(sens *s, const double *st, sens_initial_lin *L)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, n1 = s->n1, nc = s->nc, p = s->p;
  const double *q = ST_Q(s, st), *qd = ST_QD(s, st), *qdd = ST_QDD(s, st), *lam = ST_L(s, st);
  double t = ST_T(st);
  int bad = 0;
  L->K0 = calloc((size_t)n1 * n1 + 1, sizeof(double));
  L->ip0 = calloc((size_t)n1 + 1, sizeof(int));
  L->D0q = calloc((size_t)n1 * nq + 1, sizeof(double));
  L->D0qd = calloc((size_t)n1 * nq + 1, sizeof(double));
  L->F0 = calloc((size_t)n1 * p + 1, sizeof(double));
  lw_rows_eval(m, d, q, t, 1);
  sens_km_build(s, L->K0);
  lw_lin_point pa = {q, qd, qd, qdd, {lam, NULL, NULL}, t};
  lw_lin_out oa = {s->dQ, {s->dJ[0], NULL, NULL}, NULL, NULL, s->dacc};
  for (int j = 0; j < nq; j++) {
    unit_vector(s->e, nq, j);
    lw_lin_dir dq = {s->e, NULL, NULL, NULL, NULL, NULL, lw_body_of(m, j)};
    lw_lin_jvp(m, d, &pa, &dq, &oa);
    double *c1 = L->D0q + (size_t)j * n1;
    for (int i = 0; i < nq; i++)
      c1[i] = -s->dQ[i] + s->dJ[0][i];
    memcpy(c1 + nq, s->dacc, sizeof(double) * (size_t)nc);
    lw_lin_dir dv = {NULL, s->e, s->e, NULL, NULL, NULL, lw_body_of(m, j)};
    lw_lin_jvp(m, d, &pa, &dv, &oa);
    double *c2 = L->D0qd + (size_t)j * n1;
    for (int i = 0; i < nq; i++)
      c2[i] = -s->dQ[i];
    memcpy(c2 + nq, s->dacc, sizeof(double) * (size_t)nc);
  }
  if (m->nfric) /* friction's derivatives, at the multipliers it read */
    sens_friction_initial(s, &pa, L->K0, L->D0q, L->D0qd, s->sM);
  if (lw_lu_dense(L->K0, n1, L->ip0))
    bad = 1;
  for (int j = 0; j < p; j++) {
    const lw_tangent *tg = s->tg[j];
    if (!tg || !tg->any)
      continue;
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    lw_lin_jvp(m, d, &pa, &dir, &oa);
    double *c1 = L->F0 + (size_t)j * n1;
    lw_tangent_mass_mul(m, tg, qdd, c1);
    for (int i = 0; i < nq; i++)
      c1[i] += -s->dQ[i] + s->dJ[0][i];
    if (m->nfric)
      sens_friction_param_col(s, &pa, tg, c1);
    memcpy(c1 + nq, s->dacc, sizeof(double) * (size_t)nc);
  }
  return bad;
}

int sens_initial_linearize(sens *s, const double *st, sens_initial_lin *L)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  const double *q = ST_Q(s, st), *qd = ST_QD(s, st);
  double t = ST_T(st);
  memcpy(d->coord_prev, ST_C(s, st), sizeof(double) * (size_t)s->ncoords);
  memset(L, 0, sizeof *L);
  int nh = 0;
  for (int i = 0; i < m->ninit; i++)
    nh += m->init_has_value[i] != 0;
  L->ng = s->nc + nh;
  L->na = s->nc + m->ninit;
  L->nv = s->nq + L->na;
  lw_rows_eval(m, d, q, t, 1);
  lw_rows_time(m, d, q, qd, t);
  int bad = initial_position(s, st, L);
  bad |= initial_velocity(s, st, L);
  if (initial_acceleration(s, st, L))
    bad = 1;
  if (bad) {
    lw_set_error(s->err, LW_ERR_MODEL, "", 0.0,
                 "the initial problems cannot be linearized (dependent constraints at t = 0)");
    return -1;
  }
  return 0;
}

/* The initial state's derivatives with respect to the parameters, into the
 * p columns of X (leading dimension ldx, zero on entry): q0' = -Pg Gth;
 * qd0' = -(Pv (Dvq q0' + Fv))_q; [qdd0'; lambda0'] = -K0^-1 (D0q q0' + D0qd qd0' + F0).
 * R (n1 x p) and R2 (2 max(nv, n1)) are scratch. */
void sens_initial_solve(sens *s, const sens_initial_lin *L, double *X, int ldx, double *R, double *R2)
{
  int nq = s->nq, nc = s->nc, n1 = s->n1, p = s->p;
  for (int j = 0; j < p; j++) {
    double *x = X + (size_t)j * ldx;
    gemv(nq, L->ng, -1.0, L->Pg, L->Gth + (size_t)j * L->ng, x);
    for (int i = 0; L->dq0 && i < nq; i++)
      x[i] += L->dq0[(size_t)j * nq + i];
    memcpy(R2, L->Fv + (size_t)j * L->nv, sizeof(double) * (size_t)L->nv);
    gemv(L->nv, nq, 1.0, L->Dvq, x, R2);
    double *xv = R2 + L->nv;
    memset(xv, 0, sizeof(double) * (size_t)L->nv);
    gemv(L->nv, L->nv, -1.0, L->Pv, R2, xv);
    memcpy(x + nq, xv, sizeof(double) * (size_t)nq);
    double *r = R + (size_t)j * n1;
    memcpy(r, L->F0 + (size_t)j * n1, sizeof(double) * (size_t)n1);
    gemv(n1, nq, 1.0, L->D0q, x, r);
    gemv(n1, nq, 1.0, L->D0qd, x + nq, r);
    for (int i = 0; i < n1; i++)
      r[i] = -r[i];
  }
  sens_kkt_solve(L->K0, n1, nq, s->sM, L->ip0, 0, R, p);
  for (int j = 0; j < p; j++) {
    double *x = X + (size_t)j * ldx, *r = R + (size_t)j * n1;
    memcpy(x + 2 * nq, r, sizeof(double) * (size_t)nq);
    memcpy(x + 3 * nq, r + nq, sizeof(double) * (size_t)nc);
  }
}

/* ---- the initial state's derivatives, for other integrators ---------------- */
int lw_sens_initial_state(const lw_model *m, lw_tangent **tg, int p, double *S0, lw_error *err)
{
  sens S = {0}, *s = &S;
  sens_sizes_init(s, m, tg, p, err);
  int n1 = s->n1, rc = -1;
  sens_initial_lin L = {0};
  double *st0 = NULL, *R = NULL, *R2 = NULL;
  s->d = lw_data_new(m);
  if (!s->d || sens_alloc(s)) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    goto out;
  }
  lw_eval_mass_dense(m, s->M);
  st0 = calloc(sens_state_len(s), sizeof(double));
  if (!st0) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    goto out;
  }
  if (lw_initialize(m, s->d, err))
    goto out;
  sens_state_save(s, st0);
  if (sens_initial_linearize(s, st0, &L))
    goto out;
  R = calloc((size_t)n1 * (p > 0 ? p : 1), sizeof(double));
  R2 = calloc(2 * (size_t)(L.nv > n1 ? L.nv : n1) + 1, sizeof(double));
  if (!R || !R2) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    goto out;
  }
  memset(S0, 0, sizeof(double) * (size_t)s->nxs * (size_t)p);
  sens_initial_solve(s, &L, S0, s->nxs, R, R2);
  rc = 0;
out:
  free(st0);
  free(R);
  free(R2);
  sens_initial_free(&L);
  sens_free(s);
  lw_data_free(s->d);
  return rc;
}
