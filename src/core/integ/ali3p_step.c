/* ali3p_step.c: the ALI3-P step with the implicit trapezoidal rule (seed
 * 002 sec. 3.3: eqs. 3.28-3.29 for the augmented Lagrangian position
 * iteration, 3.37 and 3.40 for the mass-weighted velocity and acceleration
 * projections; Newmark beta = 1/4, gamma = 1/2), of length m->opt.step. */
#include "integ/lw_integrator.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double max_abs(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > s || x[i] != x[i])
      s = x[i] != x[i] ? INFINITY : fabs(x[i]);
  return s;
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


/* exact mass-weighted projection x = x* - M^-1 J^T S^-1 (J x* - target),
 * its multiplier S^-1 (J x* - target) into mult; returns the violation left
 * when want_res (else 0) */
static double project_exact(const lw_model *m, lw_data *d, double *x, const double *target, double *mult,
                            int want_res)
{
  int nc = m->nc;
  double *y = d->tmp2 + nc;
  lw_jac_mul(m, d, x, y);
  for (int r = 0; r < nc; r++)
    y[r] -= target[r];
  lw_schur_correct(m, d, x, y);
  memcpy(mult, y, sizeof(double) * (size_t)nc);
  if (!want_res)
    return 0.0;
  lw_jac_mul(m, d, x, y);
  double v = 0;
  for (int r = 0; r < nc; r++)
    v = fmax(v, fabs(y[r] - target[r]));
  return v;
}

/* Mass-weighted projection of x* onto J x = target (seed 002 eqs. 3.35,
 * 3.39; signs from the minimization 3.33): the conditions
 *   M (x - x*) + J^T (sigma + s (J x - target)) = 0,  sigma += s (J x - target)
 * are iterated with the factorized Newton matrix as the approximate Hessian,
 * so the converged x is the exact projection with the current J and no
 * factorization of its own.  Returns the final violation. */
static double project(const lw_model *m, lw_data *d, double *x, const double *target, double s)
{
  int nq = m->nq, nc = m->nc;
  double *sigma = d->tmp2;     /* (nc) */
  double *viol = d->tmp2 + nc; /* (nc) */
  double *xs = d->dq; /* x*, kept */
  memcpy(xs, x, sizeof(double) * (size_t)nq);
  memset(sigma, 0, sizeof(double) * (size_t)nc);
  double tol = 0;
  for (int r = 0; r < nc; r++)
    tol = fmax(tol, fabs(target[r]));
  tol = 1e-13 * (1.0 + tol);
  double v = INFINITY;
  for (int it = 0; it < 60; it++) {
    lw_jac_mul(m, d, x, viol);
    v = 0;
    for (int r = 0; r < nc; r++) {
      double e = viol[r] - target[r];
      v = fmax(v, fabs(e));
      viol[r] = sigma[r] + s * e;
    }
    if (v <= tol && it > 0)
      break;
    /* r = M (x - x*) + J^T (sigma + s e) */
    for (int i = 0; i < nq; i++)
      d->tmp[nc + i] = x[i] - xs[i];
    lw_mass_mul(m, d->tmp + nc, d->r);
    lw_jact_mul(m, d, viol, d->r);
    for (int i = 0; i < nq; i++)
      d->r[i] = -d->r[i];
    lw_spd_solve(&d->solver, d->r);
    for (int i = 0; i < nq; i++)
      x[i] += d->r[i];
    lw_jac_mul(m, d, x, viol);
    for (int r = 0; r < nc; r++)
      sigma[r] += s * (viol[r] - target[r]);
  }
  return v;
}


/* the work of joint friction over the step (t0 to t1) into dissipated
 * and each element's work: the trapezoidal rule along the step's
 * displacement, -1/2 (Q^f_n + Q^f_n+1) . (q_n+1 - q_n), the rule the
 * step's own kinetic energy follows (Newmark: q_n+1 - q_n = h/2 (qd_n +
 * qd_n+1)), with the multipliers at the step's start kept in fric_work */
static void add_friction_work(const lw_model *m, lw_data *d, double t0, double t1)
{
  int nf = m->nfric;
  double *W = d->fric_work + nf, *lam_n = d->fric_work + 2 * nf, *dq = d->r;
  for (int i = 0; i < m->nq; i++)
    dq[i] = d->q[i] - d->qn[i];
  lw_rows_eval(m, d, d->qn, t0, 1);
  lw_joint_friction_work(m, d, d->qn, d->qdn, lam_n, dq, W);
  for (int e = 0; e < nf; e++) {
    d->fric_work[e] += 0.5 * W[e];
    d->dissipated += 0.5 * W[e];
  }
  lw_rows_eval(m, d, d->q, t1, 1);
  lw_joint_friction_work(m, d, d->q, d->qd, lw_joint_friction_lambda(m, d, d->lambda, lam_n + m->nc), dq, W);
  for (int e = 0; e < nf; e++) {
    d->fric_work[e] += 0.5 * W[e];
    d->dissipated += 0.5 * W[e];
  }
}

int lw_ali3p_step(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err)
{
  const lw_opt *s = &m->opt;
  int nq = m->nq, nc = m->nc, w = m->wrow;
  double h = s->step, alpha = s->alpha;
  double t1 = d->t0 + (double)(d->nstep + 1) * h;
  double c2 = 2.0 / h, c4 = 4.0 / (h * h), hh4 = 0.25 * h * h;

  d->schur_ok = 0;
  if (m->nfbs)
    lw_fb_step_begin(m, d, h); /* from the state at t_n */
  double *lam_f = d->fric_work + 2 * m->nfric + nc; /* (nc) the multipliers friction reads */
  if (m->nfric)
    memcpy(d->fric_work + 2 * m->nfric, lw_joint_friction_lambda(m, d, d->lambda, lam_f), sizeof(double) * (size_t)nc);
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

  int it, converged = 0, raise = 0, budget = s->max_iterations, wr_raise = -1;
  double dq_raise = 0, phi_raise = 0; /* where the penalty was first raised */
  double dqn = INFINITY, dqprev = INFINITY, phimax = INFINITY, phiprev = INFINITY, moved = 0, qmax = 0;
  double alpha_fact = alpha;
  /* the penalty may rise within a hard step up to alpha h^2/4 = 1e8 times
   * the largest mass entry (the Newton matrix then stays conditioned
   * below about 1e8 relative to its mass part) */
  double alpha_max = fmax(alpha, 1e8 * m->mass_scale / hh4);
  for (it = 1; it <= budget; it++) {
    /* residual h^2/4 (M qdd + J^T (lambda + alpha Phi) - Q) */
    memset(d->Q, 0, sizeof(double) * (size_t)nq);
    /* tangent M + h/2 C + h^2/4 (K + alpha J^T J): factorized at the
     * predictor, then reused (modified Newton) while the iterate stays
     * within 1e-7 (relative) of where it was factorized and the increments
     * shrink fast; otherwise refactorized (full Newton: hard steps) */
    int refactor = it == 1 || raise || dqn > 0.25 * dqprev || moved > 1e-7 * (1.0 + qmax);
    raise = 0;
    if (refactor) {
      alpha_fact = alpha;
      moved = 0;
      memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
    }
    lw_forces_eval(m, d, d->q, d->qd, t1, d->Q, refactor ? d->vals : NULL, hh4, 0.5 * h);
    lw_perturb_eval(m, d, d->Q);
    for (int r = 0; r < nc; r++) {
      if (refactor) {
        const lw_row *row = &m->rows[r];
        lw_mat_add_outer(m, d->vals, hh4 * alpha, row->nblk, row->blk, row->pairpos,
                         d->jac + (size_t)r * w);
      }
      d->tmp[r] = d->lambda[r] + alpha * d->phi[r];
    }
    /* joint friction at lambda* = lambda + alpha Phi (plus the last
     * step's acceleration-projection multipliers: lambda* alone is the
     * reaction to first order in h only), its damping's symmetric positive
     * part in the matrix, the rest left to the iteration (docs/friction.md
     * sec. 8.4 (a)) */
    if (m->nfric)
      lw_joint_friction_eval(m, d, d->q, d->qd, lw_joint_friction_lambda(m, d, d->tmp, lam_f), d->Q,
                             refactor ? d->vals : NULL, 0.5 * h);
    lw_mass_mul(m, d->qdd, d->r);
    for (int i = 0; i < nq; i++)
      d->r[i] -= d->Q[i];
    lw_jact_mul(m, d, d->tmp, d->r);
    for (int i = 0; i < nq; i++)
      d->dq[i] = -hh4 * d->r[i];
    if (refactor) {
      if (lw_spd_factor(&d->solver, m, d->vals)) {
        if (alpha > s->alpha)
          break; /* a raised penalty lost the matrix to round-off: not converged */
        lw_set_error(err, LW_ERR_SOLVER, "", t1,
                     "the Newton matrix is not positive definite at t = %.6g s", t1);
        goto fail;
      }
    }
    lw_spd_solve(&d->solver, d->dq);
    qmax = 0;
    for (int i = 0; i < nq; i++) {
      d->q[i] += d->dq[i];
      d->qd[i] = c2 * d->q[i] + d->qhat_d[i];
      d->qdd[i] = c4 * d->q[i] + d->qhat_dd[i];
      qmax = fmax(qmax, fabs(d->q[i]));
    }
    lw_rows_eval(m, d, d->q, t1, 1);
    for (int r = 0; r < nc; r++)
      d->lambda[r] += alpha * d->phi[r];
    dqprev = it == 1 ? INFINITY : dqn;
    dqn = max_abs(d->dq, nq);
    moved += dqn;
    phiprev = phimax;
    phimax = max_abs(d->phi, nc);
    if (!(dqn == dqn) || !(phimax == phimax) || isinf(phimax))
      break;
    /* increments below the tolerance, or at round-off of the coordinates */
    double dq_tol = fmax(s->tolerance, 1e3 * DBL_EPSILON * qmax);
    double phi_tol = fmax(s->constraint_tolerance, 1e3 * DBL_EPSILON * qmax);
    if (dqn <= dq_tol && phimax <= phi_tol) {
      converged = 1;
      break;
    }
    /* Slow convergence: near a singular position (the constraint
     * Jacobian J losing rank) the multiplier update lambda += alpha Phi
     * converges at a rate of about 1 / (1 + alpha h^2/4 s^2 / m) for J's
     * smallest singular value s, and so does the constraint violation when
     * alpha h^2/4 is small next to the masses (small steps).  A larger
     * penalty restores the rate; it is raised tenfold while the increments
     * or the violation shrink by less than half an iteration, and the
     * iterations that follow may go on up to four times the limit while
     * they make progress.  Steps that converge fast never raise it. */
    /* (joint friction's part of the tangent is left to the iteration, whose
     * increments then shrink linearly however the penalty is set: there
     * only a slow violation tells a singular position) */
    int slow_dq = !m->nfric && dqn > 0.5 * dqprev && dqn > dq_tol;
    int slow_phi = phimax > 0.5 * phiprev && phimax > phi_tol;
    if (wr_raise >= 0 && phimax > 1e6 * phi_raise)
      break; /* diverging under the raised penalty: no solution near here */
    if (it >= 3 && (slow_dq || slow_phi) && alpha < alpha_max) {
      if (wr_raise < 0) {
        wr_raise = worst_row(m, d);
        dq_raise = dqn;
        phi_raise = phimax;
      }
      alpha = fmin(10.0 * alpha, alpha_max);
      raise = 1;
      budget = 4 * s->max_iterations;
    }
    if (it >= s->max_iterations && !(dqn < dqprev))
      break;
  }
  if (!converged) {
    char where[200];
    int wr = worst_row(m, d);
    if (wr_raise >= 0 && !(phimax <= phi_raise)) {
      /* the raised penalty made it no better: report the state before */
      wr = wr_raise;
      dqn = dq_raise;
      phimax = phi_raise;
    }
    lw_row_owner_path(m, &m->rows[wr], where, sizeof where);
    lw_set_error(err, LW_ERR_SOLVER, where, t1,
                 "Newton iteration did not converge at t = %.6g s after %d iterations "
                 "(|dq| = %.3g, largest constraint violation %.3g at %s); the mechanism may be "
                 "at a singular (dead-point) configuration or the step is too large",
                 t1, it > budget ? budget : it, dqn, phimax, where);
    goto fail;
  }

  /* velocity and acceleration projections (3.35, 3.39), preconditioned by
   * the Newton factorization: no factorization of their own */
  double sa = alpha_fact * hh4; /* the penalty of the preconditioner */
  double *target = d->tmp2 + 2 * nc;
  lw_rows_phit(m, d, t1);
  for (int r = 0; r < nc; r++)
    target[r] = -d->phit[r];
  int exact = m->dense && lw_schur_factor(m, d) == 0;
  d->schur_ok = exact;
  double vres = exact ? project_exact(m, d, d->qd, target, d->sig, 1) : project(m, d, d->qd, target, sa);
  lw_rows_time(m, d, d->q, d->qd, t1);
  for (int r = 0; r < nc; r++)
    target[r] = -d->gam[r];
  double ares = exact ? project_exact(m, d, d->qdd, target, d->kap, 0) : project(m, d, d->qdd, target, sa);
  if (!(vres <= 1e-6 * (1.0 + max_abs(d->qd, nq))) || !(ares == ares) || !(max_abs(d->qdd, nq) < INFINITY)) {
    lw_set_error(err, LW_ERR_SOLVER, "", t1,
                 "velocity projection did not converge at t = %.6g s (violation %.3g)", t1, vres);
    goto fail;
  }

  d->t = t1;
  d->nstep++;
  if (m->nfbs)
    lw_fb_step_end(m, d, h);
  if (m->ndampers) /* trapezoidal rule over the step, like the controllers' integrals */
    d->dissipated += 0.5 * h * (lw_damper_power(m, d, d->qn, d->qdn) + lw_damper_power(m, d, d->q, d->qd));
  if (m->nfric) {
    d->fric_kap_ok = exact;
    add_friction_work(m, d, t1 - h, t1);
  }
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
  for (int i = 0; i < m->nfbs; i++)
    d->fbc[i] = d->fbz[i];
  d->fb_beta = 0.0;
  if (info) {
    info->iterations = it;
    info->residual = dqn;
    info->constraint_residual = phimax;
  }
  return LW_ERR_SOLVER;
}

