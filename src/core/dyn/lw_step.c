/* lw_step.c: the workspace, the exact projections' Schur factors, and the
 * public step, which takes the model's integrator's (integ/). */
#include "dyn/lw_step.h"
#include "lw_internal.h"
#include "dyn/lw_forces.h"
#include "dyn/lw_joint_friction.h"
#include "dyn/lw_rows.h"
#include "la/lw_bmat.h"
#include "la/lw_matrix.h"
#include "la/lw_saddle.h"
#include "integ/lw_integrator.h"
#include "la/lw_rowvec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

lw_data *lw_data_new(const lw_model *m)
{
  lw_data *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  d->perturb_body = -1;
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc + 1;
  d->q = calloc(nq, sizeof(double));
  d->qd = calloc(nq, sizeof(double));
  d->qdd = calloc(nq, sizeof(double));
  d->lambda = calloc(nc, sizeof(double));
  d->sig = calloc(nc, sizeof(double));
  d->kap = calloc(nc, sizeof(double));
  d->normal_force = calloc((size_t)m->nguards + 1, sizeof(double));
  d->sw_in = calloc((size_t)m->nswitches + 1, 1);
  d->force_off = calloc((size_t)m->nforces + 1, 1);
  d->qn = calloc(nq, sizeof(double));
  d->qdn = calloc(nq, sizeof(double));
  d->qddn = calloc(nq, sizeof(double));
  d->qhat_d = calloc(nq, sizeof(double));
  d->qhat_dd = calloc(nq, sizeof(double));
  d->acc = calloc(nq + 1, sizeof(double));
  d->acc_nstep = -1;
  d->phi = calloc(nc, sizeof(double));
  d->phit = calloc(nc, sizeof(double));
  d->gam = calloc(nc, sizeof(double));
  d->jac = calloc(nc * (size_t)m->wrow, sizeof(double));
  d->Q = calloc(nq, sizeof(double));
  d->r = calloc(nq, sizeof(double));
  d->dq = calloc(nq, sizeof(double));
  d->tmp = calloc(nq + nc, sizeof(double));
  d->tmp2 = calloc(nq + 3 * nc, sizeof(double));
  d->vals = calloc((size_t)m->nnz, sizeof(double));
  d->ncoords = m->ncoords;
  d->coord_prev = calloc((size_t)m->ncoords + 1, sizeof(double));
  d->fbz = calloc((size_t)m->nfbs + 1, sizeof(double));
  d->qa = calloc(nq + 2 * nc, sizeof(double));
  d->fbc = calloc((size_t)m->nfbs + 1, sizeof(double));
  d->fbcs = calloc((size_t)m->nfbs + 1, sizeof(double));
  d->fric_work = calloc(2 * (size_t)m->nfric + (m->nfric ? 2 * nc : 0) + 1, sizeof(double));
  if (m->nfric) {
    d->fric_terms = calloc((size_t)lw_joint_friction_nterms(m) + 2 * nq + nc, sizeof(double));
    if (!d->fric_terms) {
      lw_data_free(d);
      return NULL;
    }
  }
  if (m->dense && m->nfric) {
    d->fric_lu = calloc(nq * nq + 3 * nq + nc + lw_joint_friction_kept_size(m), sizeof(double));
    d->fric_piv = calloc(nq + 1, sizeof(int));
    if (!d->fric_lu || !d->fric_piv) {
      lw_data_free(d);
      return NULL;
    }
  }
  if (m->dense) {
    d->S = calloc(nc * nc, sizeof(double));
    d->W = calloc(nc * (size_t)m->wrow, sizeof(double));
  }
  if (!d->q || !d->qa || !d->acc || !d->sw_in || !d->force_off || !d->sig || !d->kap || !d->vals || !d->jac || !d->tmp || !d->fbz || !d->fbc || !d->fbcs || !d->fric_work || lw_spd_init(&d->solver, m)) {
    lw_data_free(d);
    return NULL;
  }
  if (m->integ->data_init && m->integ->data_init(m, d)) {
    lw_data_free(d);
    return NULL;
  }
  memcpy(d->q, m->q0, sizeof(double) * nq);
  return d;
}

void lw_data_free(lw_data *d)
{
  if (!d)
    return;
  lw_spd_free(&d->solver);
  free(d->normal_force);
  free(d->sw_in);
  free(d->force_off);
  free(d->integ_work);
  free(d->integ_iwork);
  lw_saddle_free(d->saddle);
  free(d->S);
  free(d->W);
  free(d->fric_lu);
  free(d->fric_piv);
  free(d->fric_terms);
  double *arrs[] = {d->q,   d->qd,   d->qdd, d->lambda, d->sig, d->kap, d->qn,  d->qdn,   d->qddn,
                    d->qhat_d, d->qhat_dd, d->acc, d->phi, d->phit, d->gam, d->jac, d->Q,
                    d->r,   d->dq,   d->tmp, d->tmp2,   d->vals, d->coord_prev, d->fbz, d->fbc, d->fbcs, d->fric_work, d->qa};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
    free(arrs[i]);
  free(d);
}

double lw_data_time(const lw_data *d) { return d->t; }
const double *lw_data_q(const lw_data *d) { return d->q; }
const double *lw_data_qd(const lw_data *d) { return d->qd; }
const double *lw_data_qdd(const lw_data *d) { return d->qdd; }
const double *lw_data_lambda(const lw_data *d) { return d->lambda; }
int lw_data_dof(const lw_data *d) { return d->dof; }

void lw_data_set_state(const lw_model *m, lw_data *d, double t, const double *q, const double *qd,
                       const double *qdd, const double *lambda)
{
  size_t nq = (size_t)m->nq;
  d->t = t;
  d->t0 = t;
  d->nstep = 0;
  if (q)
    memcpy(d->q, q, sizeof(double) * nq);
  if (qd)
    memcpy(d->qd, qd, sizeof(double) * nq);
  if (qdd)
    memcpy(d->qdd, qdd, sizeof(double) * nq);
  if (lambda)
    memcpy(d->lambda, lambda, sizeof(double) * (size_t)m->nc);
  if (q)
    lw_coords_update(m, d);
  lw_fb_reset(m, d);
}


/* keep angles continuous across steps */
void lw_coords_update(const lw_model *m, lw_data *d)
{
  for (int i = 0; i < m->ncoords; i++) {
    d->coord_prev[i] = lw_coord_continue(m, d, i, lw_coord_eval(m, &m->coords[i], d->q, NULL));
  }
}

/* S = J M^-1 J^T, Cholesky-factorized in place, for the exact projections
 * of dense models; returns 0, or -1 when S is singular (dependent
 * constraints), in which case the iterative projection is used. */
LW_KERNEL void schur_w_n(const lw_model *m, lw_data *d, const int N)
{
  int nc = m->nc, w = N ? 2 * N : m->wrow;
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0; k < row->nblk; k++) {
      const int nqb = lw_bn(m, row->blk[k], N);
      const double *Mi = m->minv_blocks + lw_mboff(m, row->blk[k], N);
      const double *g = d->jac + (size_t)r * w + lw_loc(m, row->blk, k, N);
      double *wr = d->W + (size_t)r * w + lw_loc(m, row->blk, k, N);
      for (int i = 0; i < nqb; i++) {
        double s = 0;
        for (int j = 0; j < nqb; j++)
          s += Mi[j * nqb + i] * g[j];
        wr[i] = s;
      }
    }
  }
}

void lw_schur_w(const lw_model *m, lw_data *d)
{
#define CALL(N) schur_w_n(m, d, N)
  LW_FOR_NQB(m->nqb, CALL);
#undef CALL
}

/* S's entries from the pairs of rows that share a body (m->spair) */
LW_KERNEL void schur_pairs_n(const lw_model *m, lw_data *d, const int N)
{
  for (int k = 0; k < m->nspair; k++) {
    const int *p = m->spair + 4 * k;
    const double *g = d->jac + p[1], *wc = d->W + p[2];
    const int n = N ? N : m->spair_n[k]; /* the shared body's block */
    double s = 0;
    for (int i = 0; i < n; i++)
      s += g[i] * wc[i];
    d->S[p[0]] += s; /* lower triangle, column-major */
  }
}

int lw_schur_factor(const lw_model *m, lw_data *d)
{
  int nc = m->nc;
  lw_schur_w(m, d);
  memset(d->S, 0, sizeof(double) * (size_t)nc * nc);
#define CALL(N) schur_pairs_n(m, d, N)
  LW_FOR_NQB(m->nqb, CALL);
#undef CALL
  /* dependent equations show as a pivot lost to cancellation; as many
   * as the initialization found (redundant constraints, allowed) are
   * dropped, their multipliers 0: the projections stay exact */
  int ndep = d->dof - (m->nq - nc);
  if (ndep > 0)
    return lw_chol_dense_drop(d->S, nc, 1e-10, ndep) < 0 ? -1 : 0;
  return lw_chol_dense(d->S, nc, 1e-10);
}

/* with S and W of lw_schur_factor: y = S^-1 y, then x -= W y */
void lw_schur_correct(const lw_model *m, const lw_data *d, double *x, double *y)
{
  lw_chol_dense_solve(d->S, m->nc, y);
  lw_schur_update(m, d, x, y);
}

/* x -= W y */
void lw_schur_update(const lw_model *m, const lw_data *d, double *x, const double *y)
{
  lw_rowmat_mul_t(m, d->W, -1.0, y, x);
}

int lw_step(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err)
{
  /* the steps since t0 are of one length: after the step option changed
   * between steps they count from the current time */
  if (d->h != m->opt.step) {
    if (d->h != 0.0) {
      d->t0 = d->t;
      d->nstep = 0;
    }
    d->h = m->opt.step;
  }
  return m->integ->step(m, d, info, err);
}

double lw_constraint_residual(const lw_model *m, lw_data *d)
{
  lw_rows_eval(m, d, d->q, d->t, 0);
  return lw_max_abs(d->phi, m->nc);
}
