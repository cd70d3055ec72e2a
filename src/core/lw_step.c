/* lw_step.c: the workspace and the ALI3-P step with the implicit
 * trapezoidal rule (seed 002 sec. 3.3: eqs. 3.28-3.29 for the augmented
 * Lagrangian position iteration, 3.37 and 3.40 for the mass-weighted
 * velocity and acceleration projections; Newmark beta = 1/4, gamma = 1/2). */
#include "lw_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

lw_data *lw_data_new(const lw_model *m)
{
  lw_data *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc + 1;
  d->q = calloc(nq, sizeof(double));
  d->qd = calloc(nq, sizeof(double));
  d->qdd = calloc(nq, sizeof(double));
  d->lambda = calloc(nc, sizeof(double));
  d->qn = calloc(nq, sizeof(double));
  d->qdn = calloc(nq, sizeof(double));
  d->qddn = calloc(nq, sizeof(double));
  d->qhat_d = calloc(nq, sizeof(double));
  d->qhat_dd = calloc(nq, sizeof(double));
  d->phi = calloc(nc, sizeof(double));
  d->phit = calloc(nc, sizeof(double));
  d->gam = calloc(nc, sizeof(double));
  d->jac = calloc(nc * 2 * (size_t)m->nqb, sizeof(double));
  d->Q = calloc(nq, sizeof(double));
  d->r = calloc(nq, sizeof(double));
  d->dq = calloc(nq, sizeof(double));
  d->tmp = calloc(nq + nc, sizeof(double));
  d->tmp2 = calloc(nq + 3 * nc, sizeof(double));
  d->vals = calloc((size_t)m->nnz, sizeof(double));
  d->ncoords = m->ncoords;
  d->coord_prev = calloc((size_t)m->ncoords + 1, sizeof(double));
  d->coord_val = calloc((size_t)m->ncoords + 1, sizeof(double));
  if (!d->q || !d->vals || !d->jac || !d->tmp || lw_spd_init(&d->solver, m)) {
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
  double *arrs[] = {d->q,   d->qd,   d->qdd, d->lambda, d->qn,  d->qdn,   d->qddn,
                    d->qhat_d, d->qhat_dd, d->phi, d->phit, d->gam, d->jac, d->Q,
                    d->r,   d->dq,   d->tmp, d->tmp2,   d->vals, d->coord_prev, d->coord_val};
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
}

static double max_abs(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > s || x[i] != x[i])
      s = x[i] != x[i] ? INFINITY : fabs(x[i]);
  return s;
}

static double norm2(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return sqrt(s);
}

/* keep angles continuous across steps */
void lw_coords_update(const lw_model *m, lw_data *d)
{
  for (int i = 0; i < m->ncoords; i++) {
    double x = lw_coord_eval(m, &m->coords[i], d->q, NULL);
    if (m->coords[i].kind == LW_ROW_ANGLE)
      x += 2.0 * M_PI * nearbyint((d->coord_prev[i] - x) / (2.0 * M_PI));
    d->coord_prev[i] = x;
  }
}

/* index of the equation with the largest |Phi| */
static int worst_row(const lw_model *m, const lw_data *d)
{
  int w = 0;
  double s = -1;
  for (int r = 0; r < m->nc; r++) {
    double a = fabs(d->phi[r]);
    if (a != a)
      return r;
    if (a > s) {
      s = a;
      w = r;
    }
  }
  return w;
}

/* P = M + s alpha J^T J in d->vals, factorized */
static int factor_projection(const lw_model *m, lw_data *d, double s)
{
  memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
  int w = 2 * m->nqb;
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    lw_mat_add_outer(m, d->vals, s, row->nblk, row->blk, row->pairpos, d->jac + (size_t)r * w);
  }
  return lw_spd_factor(&d->solver, m, d->vals);
}

/* Mass-weighted projection of x onto J x = target by the augmented
 * Lagrangian iteration of seed 002 eqs. 3.35 / 3.39 (signs from the
 * minimization 3.33): (M + s J^T J) x = M x* + s J^T target - J^T sigma,
 * sigma += s (J x - target).  P = M + s J^T J is factorized by the caller;
 * s is kept moderate so that P stays well conditioned, and the iteration
 * makes the projection exact whatever s is.  Returns the final violation. */
static double project(const lw_model *m, lw_data *d, double *x, const double *target, double s)
{
  int nq = m->nq, nc = m->nc;
  double *sigma = d->tmp2;     /* (nc) */
  double *viol = d->tmp2 + nc; /* (nc) */
  lw_mass_mul(m, x, d->dq);    /* M x*, kept for every iteration */
  memset(sigma, 0, sizeof(double) * (size_t)nc);
  double tol = 0;
  for (int r = 0; r < nc; r++)
    tol = fmax(tol, fabs(target[r]));
  tol = 1e-13 * (1.0 + tol);
  double v = INFINITY;
  for (int it = 0; it < 50; it++) {
    memcpy(d->r, d->dq, sizeof(double) * (size_t)nq);
    for (int r = 0; r < nc; r++)
      d->tmp[r] = s * target[r] - sigma[r];
    lw_jact_mul(m, d, d->tmp, d->r);
    memcpy(x, d->r, sizeof(double) * (size_t)nq);
    lw_spd_solve(&d->solver, x);
    lw_jac_mul(m, d, x, viol);
    v = 0;
    for (int r = 0; r < nc; r++) {
      double e = viol[r] - target[r];
      sigma[r] += s * e;
      v = fmax(v, fabs(e));
    }
    if (v <= tol)
      break;
  }
  return v;
}

/* penalty of the projections: varsigma alpha h^2/4 (the scale of the
 * Newton matrix), never so small that the iteration crawls */
double lw_projection_penalty(const lw_model *m, double h)
{
  const lw_solver_desc *s = &m->desc->solver;
  double sa = s->projection_penalty * s->alpha * 0.25 * h * h;
  return fmax(sa, 1e2 * m->mass_scale);
}

int lw_step(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err)
{
  const lw_solver_desc *s = &m->desc->solver;
  int nq = m->nq, nc = m->nc, w = 2 * m->nqb;
  double h = s->step, alpha = s->alpha;
  double t1 = d->t0 + (double)(d->nstep + 1) * h;
  double c2 = 2.0 / h, c4 = 4.0 / (h * h), hh4 = 0.25 * h * h;

  memcpy(d->qn, d->q, sizeof(double) * (size_t)nq);
  memcpy(d->qdn, d->qd, sizeof(double) * (size_t)nq);
  memcpy(d->qddn, d->qdd, sizeof(double) * (size_t)nq);
  for (int i = 0; i < nq; i++) {
    d->qhat_d[i] = -(c2 * d->qn[i] + d->qdn[i]);
    d->qhat_dd[i] = -(c4 * d->qn[i] + 2.0 * c2 * d->qdn[i] + d->qddn[i]);
    d->q[i] = d->qn[i] + h * d->qdn[i] + 0.5 * h * h * d->qddn[i];
    d->qd[i] = c2 * d->q[i] + d->qhat_d[i];
    d->qdd[i] = c4 * d->q[i] + d->qhat_dd[i];
  }
  for (int r = 0; r < nc; r++)
    d->lambda[r] *= s->lambda_scale;
  lw_rows_eval(m, d, d->q, t1, 1);

  int it, converged = 0;
  double dqn = INFINITY, phimax = INFINITY;
  for (it = 1; it <= s->max_iterations; it++) {
    /* tangent M + h/2 C + h^2/4 (K + alpha J^T J) and residual
     * h^2/4 (M qdd + J^T (lambda + alpha Phi) - Q) */
    memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
    memset(d->Q, 0, sizeof(double) * (size_t)nq);
    lw_forces_eval(m, d, d->q, d->qd, t1, d->Q, d->vals, hh4, 0.5 * h);
    for (int r = 0; r < nc; r++) {
      const lw_row *row = &m->rows[r];
      lw_mat_add_outer(m, d->vals, hh4 * alpha, row->nblk, row->blk, row->pairpos,
                       d->jac + (size_t)r * w);
      d->tmp[r] = d->lambda[r] + alpha * d->phi[r];
    }
    lw_mass_mul(m, d->qdd, d->r);
    for (int i = 0; i < nq; i++)
      d->r[i] -= d->Q[i];
    lw_jact_mul(m, d, d->tmp, d->r);
    for (int i = 0; i < nq; i++)
      d->dq[i] = -hh4 * d->r[i];
    if (lw_spd_factor(&d->solver, m, d->vals)) {
      lw_set_error(err, LW_ERR_SOLVER, "", t1,
                   "the Newton matrix is not positive definite at t = %.6g s", t1);
      goto fail;
    }
    lw_spd_solve(&d->solver, d->dq);
    for (int i = 0; i < nq; i++) {
      d->q[i] += d->dq[i];
      d->qd[i] = c2 * d->q[i] + d->qhat_d[i];
      d->qdd[i] = c4 * d->q[i] + d->qhat_dd[i];
    }
    lw_rows_eval(m, d, d->q, t1, 1);
    for (int r = 0; r < nc; r++)
      d->lambda[r] += alpha * d->phi[r];
    dqn = norm2(d->dq, nq);
    phimax = max_abs(d->phi, nc);
    if (!(dqn == dqn) || !(phimax == phimax) || isinf(phimax))
      break;
    if (dqn <= s->tolerance && phimax <= s->constraint_tolerance) {
      converged = 1;
      break;
    }
  }
  if (!converged) {
    char where[200];
    int wr = worst_row(m, d);
    lw_row_owner_path(m, &m->rows[wr], where, sizeof where);
    lw_set_error(err, LW_ERR_SOLVER, where, t1,
                 "Newton iteration did not converge at t = %.6g s after %d iterations "
                 "(|dq| = %.3g, largest constraint violation %.3g at %s); the mechanism may be "
                 "at a singular (dead-point) configuration or the step is too large",
                 t1, it > s->max_iterations ? s->max_iterations : it, dqn, phimax, where);
    goto fail;
  }

  /* velocity and acceleration projections, one factorization (3.35, 3.39) */
  double sa = lw_projection_penalty(m, h);
  if (factor_projection(m, d, sa)) {
    lw_set_error(err, LW_ERR_SOLVER, "", t1, "projection matrix is singular at t = %.6g s", t1);
    goto fail;
  }
  double *target = d->tmp2 + 2 * nc;
  lw_rows_time(m, d, d->q, d->qd, t1);
  for (int r = 0; r < nc; r++)
    target[r] = -d->phit[r];
  double vres = project(m, d, d->qd, target, sa);
  lw_rows_time(m, d, d->q, d->qd, t1);
  for (int r = 0; r < nc; r++)
    target[r] = -d->gam[r];
  project(m, d, d->qdd, target, sa);

  d->t = t1;
  d->nstep++;
  lw_coords_update(m, d);
  if (info) {
    info->iterations = it;
    info->residual = dqn;
    info->constraint_residual = phimax;
    info->velocity_residual = vres;
  }
  return LW_OK;

fail:
  /* restore the last good state so that the results so far stay valid */
  memcpy(d->q, d->qn, sizeof(double) * (size_t)nq);
  memcpy(d->qd, d->qdn, sizeof(double) * (size_t)nq);
  memcpy(d->qdd, d->qddn, sizeof(double) * (size_t)nq);
  if (info) {
    info->iterations = it;
    info->residual = dqn;
    info->constraint_residual = phimax;
  }
  return LW_ERR_SOLVER;
}

double lw_constraint_residual(const lw_model *m, lw_data *d)
{
  lw_rows_eval(m, d, d->q, d->t, 0);
  return max_abs(d->phi, m->nc);
}
