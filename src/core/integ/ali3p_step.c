/* ali3p_step.c: the ALI3-P step with the implicit trapezoidal rule (seed
 * 002 sec. 3.3: eqs. 3.28-3.29 for the augmented Lagrangian position
 * iteration, 3.37 and 3.40 for the mass-weighted velocity and acceleration
 * projections; Newmark beta = 1/4, gamma = 1/2), of length m->opt.step; or,
 * with rho_inf < 1, with the generalized-alpha method's coefficients and its
 * pseudo-acceleration (dyn/lw_newmark.h, docs/methods-numerical-damping.md). */
#include "integ/lw_integrator.h"
#include "integ/ali3p_friction.h"
#include "compile/lw_model.h"
#include "dyn/lw_forces.h"
#include "dyn/lw_joint_friction.h"
#include "dyn/lw_newmark.h"
#include "dyn/lw_rows.h"
#include "dyn/lw_step.h"
#include "kind/lw_kind.h"
#include "la/lw_matrix.h"
#include "model/lw_error.h"

#include <float.h>
#include <math.h>
#include <string.h>


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
static double project(const lw_model *m, lw_data *d, double *x, const double *target, double s, int *converged)
{
  int nq = m->nq, nc = m->nc;
  double *sigma = d->tmp2;     /* (nc) */
  double *viol = d->tmp2 + nc; /* (nc) */
  double *jx = d->tmp;         /* (nc) J x at the iterate, made once for each */
  double *xs = d->dq; /* x*, kept */
  memcpy(xs, x, sizeof(double) * (size_t)nq);
  memset(sigma, 0, sizeof(double) * (size_t)nc);
  double tol = 0;
  for (int r = 0; r < nc; r++)
    tol = fmax(tol, fabs(target[r]));
  tol = 1e-13 * (1.0 + tol);
  double v = INFINITY;
  lw_jac_mul(m, d, x, jx);
  for (int it = 0; it < 60; it++) {
    v = 0;
    for (int r = 0; r < nc; r++) {
      double e = jx[r] - target[r];
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
    lw_jac_mul(m, d, x, jx);
    for (int r = 0; r < nc; r++)
      sigma[r] += s * (jx[r] - target[r]);
  }
  *converged = v <= tol;
  return v;
}

/* the projections' own matrix M + s J^T J into d->solver (over the Newton
 * matrix in d->vals, which the step no longer needs): where the Newton
 * matrix's stiffness (stiff beams: EA h^2/4 l far above their masses) makes
 * it too far from the projection's Hessian for the iteration to converge */
static int projection_factor(const lw_model *m, lw_data *d, double s)
{
  int w = m->wrow;
  memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
  for (int r = 0; r < m->nc; r++) {
    lw_mat_add_row_outer(m, d->vals, s, r, d->jac + (size_t)r * w);
  }
  return lw_spd_factor(&d->solver, m, d->vals);
}

/* the iterative projection of x (project), made again from the same x*
 * with the projection's own matrix when it did not converge (once a step:
 * *own says it is made) */
static double project_iter(const lw_model *m, lw_data *d, double *x, const double *target, double s, int *own,
                           double t1, lw_error *err)
{
  int conv;
  double v = project(m, d, x, target, s, &conv);
  if (conv || *own)
    return v;
  if (projection_factor(m, d, s)) {
    lw_set_error(err, LW_ERR_SOLVER, "", t1, "the projection matrix is not positive definite at t = %.6g s", t1);
    return NAN;
  }
  *own = 1;
  memcpy(x, d->dq, sizeof(double) * (size_t)m->nq); /* x*, which project keeps */
  return project(m, d, x, target, s, &conv);
}


/* whether the friction terms in d->fric_terms are those of the state
 * (q, qd, lam): the last step ended there and the state was not set since */
static int friction_terms_at(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                             const double *lam)
{
  size_t nq = (size_t)m->nq;
  const double *key = d->fric_terms + lw_joint_friction_nterms(m);
  return d->fric_terms_ok && !memcmp(key, q, sizeof(double) * nq) && !memcmp(key + nq, qd, sizeof(double) * nq) &&
         !memcmp(key + 2 * nq, lam, sizeof(double) * (size_t)m->nc);
}

/* the work of joint friction over the step (t0 to t1) into dissipated
 * and each element's work: the trapezoidal rule along the step's
 * displacement, -1/2 (Q^f_n + Q^f_n+1) . (q_n+1 - q_n), the rule the
 * step's own kinetic energy follows (Newmark: q_n+1 - q_n = h/2 (qd_n +
 * qd_n+1)), with the multipliers at the step's start kept in fric_work.
 * The terms of Q^f_n are those the step before ended with (kept with
 * their state), evaluated again only when the state was set since; the
 * rows' gradients are at q_n+1 on entry and on return. */
static void add_friction_work(const lw_model *m, lw_data *d, double t0, double t1)
{
  int nf = m->nfric;
  size_t nq = (size_t)m->nq;
  double *W = d->fric_work + nf, *lam_n = d->fric_work + 2 * nf, *dq = d->r, *T = d->fric_terms;
  for (size_t i = 0; i < nq; i++)
    dq[i] = d->q[i] - d->qn[i];
  if (!friction_terms_at(m, d, d->qn, d->qdn, lam_n)) {
    lw_rows_eval(m, d, d->qn, t0, 1);
    lw_joint_friction_terms(m, d, d->qn, d->qdn, lam_n, T);
    lw_rows_eval(m, d, d->q, t1, 1);
  }
  lw_joint_friction_terms_work(m, T, dq, W);
  for (int e = 0; e < nf; e++) {
    d->fric_work[e] += 0.5 * W[e];
    d->dissipated += 0.5 * W[e];
  }
  const double *lam = lw_joint_friction_lambda(m, d, d->lambda, lam_n + m->nc);
  lw_joint_friction_terms(m, d, d->q, d->qd, lam, T);
  lw_joint_friction_terms_work(m, T, dq, W);
  for (int e = 0; e < nf; e++) {
    d->fric_work[e] += 0.5 * W[e];
    d->dissipated += 0.5 * W[e];
  }
  double *key = T + lw_joint_friction_nterms(m);
  memcpy(key, d->q, sizeof(double) * nq);
  memcpy(key + nq, d->qd, sizeof(double) * nq);
  memcpy(key + 2 * nq, lam, sizeof(double) * (size_t)m->nc);
  d->fric_terms_ok = 1;
}

/* the Newton iteration's state over one step */
typedef struct {
  int it, converged, raise, budget;
  double dqn, dqprev, phimax, phiprev, moved, qmax;
  double alpha;      /* the penalty, raised in hard steps */
  double alpha_fact; /* the penalty of the factorized matrix */
  double alpha_max;
  int wr_raise;      /* where the penalty was first raised: the worst row, */
  double dq_raise, phi_raise; /* the increment and the violation */
  int stop_at;       /* iterations after which a stall ends the step */
  int fric_lu;       /* the matrix holds friction's cross terms, LU-factored, */
  int fric_damp;     /* and its exact damping (else the positive part) */
  int spd_stale;     /* d->solver holds no factorization of this step */
  const double *lam_read; /* the multipliers friction reads at the iterate */
  lw_newmark k;      /* the method's coefficients */
} newton;

/* the generalized-alpha history terms and predictor (k.on) from the state
 * at t_n in qn, qdn, qddn and the pseudo-acceleration d->acc, started
 * from qdd where it is not that state's */
static void predict_alpha(const lw_model *m, lw_data *d, const lw_newmark *k, double h)
{
  int nq = m->nq;
  if (d->acc_nstep != d->nstep || d->acc_t0 != d->t0 || d->acc_h != h)
    memcpy(d->acc, d->qddn, sizeof(double) * (size_t)nq);
  const double *a = d->acc;
  for (int i = 0; i < nq; i++) {
    d->qhat_d[i] = k->bq * d->qn[i] + k->bv * d->qdn[i] + k->ba * a[i];
    d->qhat_dd[i] = k->aq * d->qn[i] + k->av * d->qdn[i] + k->aa * a[i] + k->ad * d->qddn[i];
    d->q[i] = d->qn[i] + h * d->qdn[i] + 0.5 * h * h * a[i];
    d->qd[i] = k->c2 * d->q[i] + d->qhat_d[i];
    d->qdd[i] = k->c4 * d->q[i] + d->qhat_dd[i];
  }
}

/* the pseudo-acceleration of the step taken (k.on), from the projected
 * acceleration: a_n+1 = ea qdd_n+1 + en qdd_n + eo a_n, so that the
 * recurrence holds with the accelerations the state keeps */
static void update_alpha(const lw_model *m, lw_data *d, const lw_newmark *k, double h)
{
  for (int i = 0; i < m->nq; i++)
    d->acc[i] = k->ea * d->qdd[i] + k->en * d->qddn[i] + k->eo * d->acc[i];
  d->acc_t0 = d->t0;
  d->acc_nstep = d->nstep;
  d->acc_h = h;
}

/* from the state at t_n: the Newmark history terms, the predictor and the
 * multipliers' warm start; lam_f (nc) the multipliers friction reads */
static void predict(const lw_model *m, lw_data *d, const lw_newmark *k, double h, double t1, double *lam_f)
{
  int nq = m->nq, nc = m->nc;
  double c2 = k->c2, c4 = k->c4;
  d->schur_ok = 0;
  if (m->nfbs)
    lw_fb_step_begin(m, d, h); /* from the state at t_n */
  if (m->nfric)
    memcpy(d->fric_work + 2 * m->nfric, lw_joint_friction_lambda(m, d, d->lambda, lam_f), sizeof(double) * (size_t)nc);
  memcpy(d->qn, d->q, sizeof(double) * (size_t)nq);
  memcpy(d->qdn, d->qd, sizeof(double) * (size_t)nq);
  memcpy(d->qddn, d->qdd, sizeof(double) * (size_t)nq);
  if (k->on)
    predict_alpha(m, d, k, h);
  else
    for (int i = 0; i < nq; i++) {
      d->qhat_d[i] = -(c2 * d->qn[i] + d->qdn[i]);
      d->qhat_dd[i] = -(c4 * d->qn[i] + 2.0 * c2 * d->qdn[i] + d->qddn[i]);
      d->q[i] = d->qn[i] + h * d->qdn[i] + 0.5 * h * h * d->qddn[i];
      d->qd[i] = c2 * d->q[i] + d->qhat_d[i];
      d->qdd[i] = c4 * d->q[i] + d->qhat_dd[i];
    }
  for (int r = 0; r < nc; r++)
    d->lambda[r] *= m->opt.lambda_scale;
  lw_rows_eval(m, d, d->q, t1, 1);
}

/* d->dq = -h^2/4 (M qdd + J^T (lambda + alpha Phi) - Q), and when refactor
 * the tangent M + h/2 C + h^2/4 (K + alpha J^T J) in d->vals (h^2/4 and
 * h/2 being 1/c4 and c2/c4 of the method's coefficients) */
static void newton_residual(const lw_model *m, lw_data *d, newton *ns, double h, double t1, double *lam_f,
                            int refactor)
{
  int nq = m->nq, nc = m->nc, w = m->wrow;
  double hh4 = ns->k.kh, alpha = ns->alpha;
  memset(d->Q, 0, sizeof(double) * (size_t)nq);
  if (refactor)
    memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
  lw_forces_eval(m, d, d->q, d->qd, t1, d->Q, refactor ? d->vals : NULL, hh4, ns->k.ch);
  lw_perturb_eval(m, d, d->Q);
  for (int r = 0; r < nc; r++) {
    if (refactor)
      lw_mat_add_row_outer(m, d->vals, hh4 * alpha, r, d->jac + (size_t)r * w);
    d->tmp[r] = d->lambda[r] + alpha * d->phi[r];
  }
  /* joint friction at lambda* = lambda + alpha Phi (plus the last
   * step's acceleration-projection multipliers: lambda* alone is the
   * reaction to first order in h only), its damping's symmetric positive
   * part in the matrix, the rest left to the iteration (docs/friction.md
   * sec. 8.4 (a)); or none of it, the exact tangent taking it (8.4 (b)) */
  if (m->nfric) {
    ns->lam_read = lw_joint_friction_lambda(m, d, d->tmp, lam_f);
    int damping = refactor && !(ns->fric_lu && ns->fric_damp);
    lw_ali3p_fric_eval(m, d, ns->lam_read, damping ? d->vals : NULL, 0.5 * h);
  }
  lw_mass_mul(m, d->qdd, d->r);
  for (int i = 0; i < nq; i++)
    d->r[i] -= d->Q[i];
  lw_jact_mul(m, d, d->tmp, d->r);
  for (int i = 0; i < nq; i++)
    d->dq[i] = -hh4 * d->r[i];
}

/* q += dq with the velocities and accelerations that follow (the
 * trapezoidal rule, or the generalized-alpha method), Phi at the new q,
 * lambda += alpha Phi; the sizes of the increment and the violation into ns */
static void newton_update(const lw_model *m, lw_data *d, newton *ns, double t1)
{
  int nq = m->nq, nc = m->nc;
  double c2 = ns->k.c2, c4 = ns->k.c4;
  ns->qmax = 0;
  for (int i = 0; i < nq; i++) {
    d->q[i] += d->dq[i];
    d->qd[i] = c2 * d->q[i] + d->qhat_d[i];
    d->qdd[i] = c4 * d->q[i] + d->qhat_dd[i];
    ns->qmax = fmax(ns->qmax, fabs(d->q[i]));
  }
  lw_rows_eval(m, d, d->q, t1, 1);
  for (int r = 0; r < nc; r++)
    d->lambda[r] += ns->alpha * d->phi[r];
  ns->dqprev = ns->it == 1 ? INFINITY : ns->dqn;
  ns->dqn = lw_max_abs(d->dq, nq);
  ns->moved += ns->dqn;
  ns->phiprev = ns->phimax;
  ns->phimax = lw_max_abs(d->phi, nc);
}

/* Slow convergence: near a singular position (the constraint Jacobian J
 * losing rank) the multiplier update lambda += alpha Phi converges at a
 * rate of about 1 / (1 + alpha h^2/4 s^2 / m) for J's smallest singular
 * value s, and so does the constraint violation when alpha h^2/4 is small
 * next to the masses (small steps).  A larger penalty restores the rate; it
 * is raised tenfold while the increments or the violation shrink by less
 * than half an iteration, and the iterations that follow may go on up to
 * four times the limit while they make progress.  Steps that converge fast
 * never raise it.  (Joint friction's part of the tangent is left to the
 * iteration, whose increments then shrink linearly however the penalty is
 * set: there only a slow violation tells a singular position.)  Returns 1
 * when the iteration should stop: diverging under the raised penalty (no
 * solution near here). */
static int newton_raise_penalty(const lw_model *m, const lw_data *d, newton *ns, double dq_tol, double phi_tol)
{
  int slow_dq = !m->nfric && ns->dqn > 0.5 * ns->dqprev && ns->dqn > dq_tol;
  int slow_phi = ns->phimax > 0.5 * ns->phiprev && ns->phimax > phi_tol;
  if (ns->wr_raise >= 0 && ns->phimax > 1e6 * ns->phi_raise)
    return 1;
  if (ns->it >= 3 && (slow_dq || slow_phi) && ns->alpha < ns->alpha_max) {
    if (ns->wr_raise < 0) {
      ns->wr_raise = worst_row(m, d);
      ns->dq_raise = ns->dqn;
      ns->phi_raise = ns->phimax;
    }
    ns->alpha = fmin(10.0 * ns->alpha, ns->alpha_max);
    ns->raise = 1;
    ns->budget = 4 * m->opt.max_iterations;
  }
  return 0;
}

/* the Newton matrix in d->vals factored: by Cholesky, or with friction's
 * exact tangent added by LU (d->solver then left stale); 0, or -1 when
 * it is not positive definite or singular */
static int newton_factor(const lw_model *m, lw_data *d, newton *ns, double h, double t1)
{
  if (!ns->fric_lu)
    return lw_spd_factor(&d->solver, m, d->vals);
  ns->spd_stale = 1;
  return lw_ali3p_fric_factor(m, d, d->vals, ns->lam_read, ns->alpha, h, t1, ns->fric_damp);
}

/* A stalled iteration of a model with friction whose matrix holds only
 * the damping's symmetric part (docs/friction.md sec. 8.4 (a)) goes on
 * from where it is with the exact tangent (8.4 (b)): the wedging of a
 * joint by its own friction (dQ^f/dl, dQ^f/dq) is what the symmetric
 * matrix lacks.  Steps that converge without it are untouched.  Returns 1
 * when switched (a new budget of iterations), else 0. */
static int newton_switch_exact(const lw_model *m, newton *ns)
{
  if (ns->fric_lu || !lw_ali3p_fric_exact(m) || !(ns->dqn == ns->dqn) || !(ns->phimax == ns->phimax))
    return 0;
  ns->fric_lu = 1;
  ns->fric_damp = 1;
  ns->raise = 1; /* factor at the next iteration */
  ns->stop_at = ns->it + m->opt.max_iterations;
  ns->budget = ns->budget > ns->stop_at ? ns->budget : ns->stop_at;
  ns->dqprev = INFINITY;
  return 1;
}

/* Friction's exact damping makes Newton's method cycle where the slip
 * crosses the hump of mu (mu rising to mu_s over v_t, falling beyond):
 * when the increments stop shrinking the step goes on with the damping's
 * positive part (sec. 8.4 (a)) and the exact cross terms, which converges
 * there, quadratically again once the slip is back on the rising side. */
static void newton_safeguard(newton *ns)
{
  if (ns->fric_lu && ns->fric_damp && ns->it > 1 && !(ns->dqn < ns->dqprev)) {
    ns->fric_damp = 0;
    ns->raise = 1; /* factor at the next iteration */
  }
}

/* the position problem at t1 by Newton's method on the augmented
 * Lagrangian (seed 002 eqs. 3.28-3.29); 0 when converged, else -1 with
 * err set (LW_ERR_SOLVER) naming the worst equation */
static int newton_solve(const lw_model *m, lw_data *d, newton *ns, double h, double t1, double *lam_f,
                        lw_error *err)
{
  const lw_opt *s = &m->opt;
  for (ns->it = 1;; ns->it++) {
    if (ns->it > ns->budget && !newton_switch_exact(m, ns))
      break;
    /* tangent: factorized at the predictor, then reused (modified Newton)
     * while the iterate stays within 1e-7 (relative) of where it was
     * factorized and the increments shrink fast; otherwise refactorized
     * (full Newton: hard steps).  A banded matrix (a long beam, whose
     * factorization and stiffness dominate the step) is refactorized by
     * the observed rate alone: the increments shrinking four times per
     * iteration, the iterations per step are those of full Newton (3.97
     * against 3.96 on the 100-element spatial beam) at one factorization
     * instead of two */
    int refactor = ns->it == 1 || ns->raise || ns->dqn > 0.25 * ns->dqprev ||
                   (!d->solver.band && ns->moved > 1e-7 * (1.0 + ns->qmax));
    ns->raise = 0;
    if (refactor) {
      ns->alpha_fact = ns->alpha;
      ns->moved = 0;
    }
    newton_residual(m, d, ns, h, t1, lam_f, refactor);
    if (refactor && newton_factor(m, d, ns, h, t1)) {
      if (ns->alpha > s->alpha)
        break; /* a raised penalty lost the matrix to round-off: not converged */
      lw_set_error(err, LW_ERR_SOLVER, "", t1, "the Newton matrix is %s at t = %.6g s",
                   ns->fric_lu ? "singular" : "not positive definite", t1);
      return -1;
    }
    if (ns->fric_lu)
      lw_ali3p_fric_solve(m, d, d->dq);
    else
      lw_spd_solve(&d->solver, d->dq);
    newton_update(m, d, ns, t1);
    newton_safeguard(ns);
    if (!(ns->dqn == ns->dqn) || !(ns->phimax == ns->phimax) || isinf(ns->phimax))
      break;
    /* increments below the tolerance, or at round-off of the coordinates */
    double dq_tol = fmax(s->tolerance, 1e3 * DBL_EPSILON * ns->qmax);
    double phi_tol = fmax(s->constraint_tolerance, 1e3 * DBL_EPSILON * ns->qmax);
    if (ns->dqn <= dq_tol && ns->phimax <= phi_tol)
      return 0;
    if (newton_raise_penalty(m, d, ns, dq_tol, phi_tol))
      break;
    if (ns->it >= ns->stop_at && !(ns->dqn < ns->dqprev) && !newton_switch_exact(m, ns))
      break;
  }
  char where[200];
  int wr = worst_row(m, d);
  if (ns->wr_raise >= 0 && !(ns->phimax <= ns->phi_raise)) {
    /* the raised penalty made it no better: report the state before */
    wr = ns->wr_raise;
    ns->dqn = ns->dq_raise;
    ns->phimax = ns->phi_raise;
  }
  lw_row_owner_path(m, &m->rows[wr], where, sizeof where);
  lw_set_error(err, LW_ERR_SOLVER, where, t1,
               "Newton iteration did not converge at t = %.6g s after %d iterations "
               "(|dq| = %.3g, largest constraint violation %.3g at %s); the mechanism may be "
               "at a singular (dead-point) configuration or the step is too large",
               t1, ns->it > ns->budget ? ns->budget : ns->it, ns->dqn, ns->phimax, where);
  return -1;
}

/* the drivers' work over the step: the trapezoidal rule along the step's
 * displacement, -1/2 (mu_n,r J_r(q_n) + mu_n+1,r J_r(q_n+1)) . (q_n+1 - q_n)
 * over the drivers' rows r, the rule the step's kinetic energy follows (as
 * friction's work), with mu = lambda + kappa the multipliers consistent
 * with the projected accelerations the next step starts from (kappa: the
 * acceleration projection's, kept in d->qa + nq + nc; mu_n in d->qa + nq).
 * With lambda alone, or with the power at the two ends, the balance drifts
 * to first order in the step when a driver moves its coordinate. */
static double driver_step_work(const lw_model *m, lw_data *d)
{
  const double *lam_n = d->qa + m->nq, *kap = lam_n + m->nc;
  double *dq = d->qa, W = 0;
  for (int i = 0; i < m->nq; i++)
    dq[i] = d->q[i] - d->qn[i];
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    if (row->owner_kind != LW_OWNER_DRIVER)
      continue;
    const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
    double x0, x1;
    lw_row_kind_of(row->kind)->rate(m, v, d->qn, dq, &x0, NULL);
    lw_row_kind_of(row->kind)->rate(m, v, d->q, dq, &x1, NULL);
    W -= 0.5 * (lam_n[r] * x0 + (d->lambda[r] + kap[r]) * x1);
  }
  return W;
}

/* velocity and acceleration projections (3.35, 3.39), preconditioned by
 * the Newton factorization (penalty sa): no factorization of their own;
 * *exact when they were solved exactly (Schur); 0, or -1 with err set */
static int project_rates(const lw_model *m, lw_data *d, double t1, double sa, int spd_stale, double *vres,
                         int *exact, lw_error *err)
{
  int nq = m->nq, nc = m->nc;
  double *target = d->tmp2 + 2 * nc;
  lw_rows_phit(m, d, t1);
  for (int r = 0; r < nc; r++)
    target[r] = -d->phit[r];
  *exact = m->dense && lw_schur_factor(m, d) == 0;
  d->schur_ok = *exact;
  /* the iterative projections precondition with the Cholesky factor of the
   * Newton matrix less friction's non-symmetric terms (d->vals), made now
   * when the step used LU */
  if (!*exact && spd_stale && lw_spd_factor(&d->solver, m, d->vals)) {
    lw_set_error(err, LW_ERR_SOLVER, "", t1, "the projection matrix is not positive definite at t = %.6g s", t1);
    return -1;
  }
  int own = 0;
  *vres = *exact ? project_exact(m, d, d->qd, target, d->sig, 1) : project_iter(m, d, d->qd, target, sa, &own, t1, err);
  lw_rows_time(m, d, d->q, d->qd, t1);
  for (int r = 0; r < nc; r++)
    target[r] = -d->gam[r];
  double ares =
    *exact ? project_exact(m, d, d->qdd, target, d->kap, 0) : project_iter(m, d, d->qdd, target, sa, &own, t1, err);
  if (m->ndrivers) /* kappa for the drivers' work: in d->kap, or project's sigma at the start of tmp2 */
    memcpy(d->qa + nq + nc, *exact ? d->kap : d->tmp2, sizeof(double) * (size_t)nc);
  if (!(*vres <= 1e-6 * (1.0 + lw_max_abs(d->qd, nq))) || !(ares == ares) || !(lw_max_abs(d->qdd, nq) < INFINITY)) {
    lw_set_error(err, LW_ERR_SOLVER, "", t1, "velocity projection did not converge at t = %.6g s (violation %.3g)",
                 t1, *vres);
    return -1;
  }
  return 0;
}

/* the step taken: time, controllers' integrals, dissipated energy, applied
 * work (P0 the applied power at the step's start), friction's work,
 * unwrapped coordinates */
static void step_done(const lw_model *m, lw_data *d, const lw_newmark *k, double h, double t1, int exact, double P0)
{
  d->t = t1;
  d->nstep++;
  if (k->on)
    update_alpha(m, d, k, h);
  if (m->nfbs)
    lw_fb_step_end(m, d, h);
  if (m->ndampers) /* trapezoidal rule over the step, like the controllers' integrals */
    d->dissipated += 0.5 * h * (lw_damper_power(m, d, d->qn, d->qdn) + lw_damper_power(m, d, d->q, d->qd));
  if (m->napplied)
    d->applied_work += 0.5 * h * (P0 + lw_applied_power(m, d, d->q, d->qd, t1, NULL)) +
                       (m->ndrivers ? driver_step_work(m, d) : 0.0);
  if (m->nfric) {
    d->fric_kap_ok = exact;
    add_friction_work(m, d, t1 - h, t1);
  }
  lw_coords_update(m, d);
}

/* a failed step: the last good state back, so that the results so far stay valid */
static void step_undo(const lw_model *m, lw_data *d)
{
  size_t nq = (size_t)m->nq;
  memcpy(d->q, d->qn, sizeof(double) * nq);
  memcpy(d->qd, d->qdn, sizeof(double) * nq);
  memcpy(d->qdd, d->qddn, sizeof(double) * nq);
  for (int i = 0; i < m->nfbs; i++)
    d->fbc[i] = d->fbz[i];
  d->fb_beta = 0.0;
}

int lw_ali3p_step(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err)
{
  double h = m->opt.step;
  lw_newmark k = lw_newmark_coefs(m->opt.rho_inf, h);
  double hh4 = k.kh;
  double t1 = d->t0 + (double)(d->nstep + 1) * h;
  double *lam_f = d->fric_work + 2 * m->nfric + m->nc; /* (nc) the multipliers friction reads */
  double P0 = m->napplied ? lw_applied_power(m, d, d->q, d->qd, d->t, NULL) : 0.0;
  if (m->ndrivers)
    for (int r = 0; r < m->nc; r++) /* the start's force, consistent with its projected acceleration */
      d->qa[m->nq + r] = d->lambda[r] + d->qa[m->nq + m->nc + r];
  predict(m, d, &k, h, t1, lam_f);
  /* the penalty may rise within a hard step up to alpha h^2/4 = 1e8 times
   * the largest mass entry (the Newton matrix then stays conditioned
   * below about 1e8 relative to its mass part) */
  newton ns = {.budget = m->opt.max_iterations, .dqn = INFINITY, .dqprev = INFINITY, .phimax = INFINITY,
               .phiprev = INFINITY, .alpha = m->opt.alpha, .alpha_fact = m->opt.alpha,
               .alpha_max = fmax(m->opt.alpha, 1e8 * m->mass_scale / hh4), .wr_raise = -1,
               .stop_at = m->opt.max_iterations, .fric_lu = lw_ali3p_fric_exact(m) && m->opt.friction_exact,
               .fric_damp = 1, .k = k};
  double vres = 0;
  int exact = 0, ok = newton_solve(m, d, &ns, h, t1, lam_f, err) == 0 &&
                      project_rates(m, d, t1, ns.alpha_fact * hh4, ns.spd_stale, &vres, &exact, err) == 0;
  if (ok)
    step_done(m, d, &k, h, t1, exact, P0);
  else
    step_undo(m, d);
  if (info) {
    info->iterations = ns.it;
    info->residual = ns.dqn;
    info->constraint_residual = ns.phimax;
    if (ok)
      info->velocity_residual = vres;
  }
  return ok ? LW_OK : LW_ERR_SOLVER;
}

