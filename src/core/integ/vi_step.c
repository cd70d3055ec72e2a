/* vi_step.c: the variational integrator (seed 001 sec. 3, eqs. 10-17): the
 * midpoint discrete Lagrangian (alpha = 1/2) with the holonomic constraints
 * enforced at the new positions, and the forces that are not potential
 * (dampers, controllers, external and driven forces, friction) as the
 * discrete Lagrange-d'Alembert forcing f_d^- = f_d^+ = h/2 Q(q_n+1/2, v, t_n+1/2).
 *
 * The step is written in position-momentum form, so that it needs only
 * the state at t_n (q_n, qd_n: a one-step method, restartable after an
 * event or a change of state):
 *
 *   (a) M (q_n+1 - q_n) - h p_n - h^2/2 Q_n+1/2 + h^2/2 G(q_n)^T L = 0,
 *       Phi(q_n+1, t_n+1) = 0          (unknowns q_n+1, L; p_n = M qd_n)
 *   (b) p_n+1 = M v + h/2 Q_n+1/2 - h/2 G(q_n+1)^T mu,
 *       G(q_n+1) M^-1 p_n+1 = -Phi_t(t_n+1)   (linear: p_n+1, mu)
 *
 * with v = (q_n+1 - q_n)/h and Q_n+1/2 = Q((q_n + q_n+1)/2, v, t_n + h/2).
 * (a) is eq. 17 from p_n; (a) of step n with (b) of step n-1 is the
 * discrete Euler-Lagrange (Lagrange-d'Alembert) equation 14 with the
 * multiplier h G(q_n)^T lambda_n, lambda_n = (L_n + mu_n)/2: the positions
 * are exactly those of the seed's scheme, and (b) makes the discrete
 * momentum tangent to the constraints (the velocities satisfy G qd = -Phi_t
 * to round-off: RATTLE's choice of the multipliers' split).
 *
 * (a) is solved by Newton's method, from q_n + h qd_n + h^2/2 qdd_n or,
 * where that acceleration term is the predictor's error (modes the step
 * does not resolve: stiff beams), from q_n + h qd_n (predict), with its
 * Jacobian
 *   [A  h^2/2 G(q_n)^T; G(q_n+1)  0],  A = M + h/2 C + h^2/4 K
 * (K = -dQ/dq, C = -dQ/dqd at the midpoint; the multipliers' term is
 * constant in q_n+1, so no Hessian of the constraints enters), by the
 * Schur complement S = G(q_n+1) A'^-1 G(q_n)^T (nc x nc, dense LU) over a
 * factorization of A' = A + rho G(q_n+1)^T G(q_n+1) (rho the largest mass
 * entry: the second block row added rho G^T times to the first, which
 * leaves the solution as it is and keeps A' well conditioned when M alone
 * is not, a body of nearly no inertia).  Dense models (without joint
 * friction) take A exactly, the forces' whole tangent from the kinds'
 * linearization (lw_lin_blocks, as the sensitivities do), by dense LU;
 * sparse models take the symmetric tangent the kinds' eval hooks assemble
 * into the sparse pattern (ALI3-P's Newton matrix) by sparse Cholesky,
 * converging linearly but fast where it differs (spring-dampers' geometric
 * stiffness, controllers' nonsymmetric part).  The sparse path keeps its
 * matrix while the increments shrink at least fourfold, the exact path
 * only where the increments' ratio ends the step at the next iteration
 * (newton_refactor).  (b) and the index-1 problem
 * are linear, solved likewise with
 * M + rho G^T G.  The accelerations and multipliers reported at t_n+1 solve the
 * index-1 problem M qdd + G^T lambda = Q(q_n+1, qd_n+1, t_n+1),
 * G qdd = -gamma at the new state, so that outputs (reactions, powers) are
 * those of the state the step reached.
 *
 * The step keeps L in d->sig and the scaled velocity multiplier s = h/2 mu
 * (M qd_n+1 + G^T s = M v + h/2 Q_n+1/2) in d->kap: the stored states of
 * the sensitivities carry them, and sens/sens_vi.c linearizes (a), (b) and
 * the index-1 problem at them. */
#include "integ/lw_integrator.h"
#include "compile/lw_model.h"
#include "dyn/lw_forces.h"
#include "dyn/lw_init.h"
#include "dyn/lw_joint_friction.h"
#include "dyn/lw_rows.h"
#include "dyn/lw_step.h"
#include "la/lw_matrix.h"
#include "la/lw_saddle.h"
#include "lin/lw_jvp.h"
#include "model/lw_error.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

/* the step's scratch in d->integ_work: the gradients at q_n and those of
 * the factorized matrices (nc x wrow each),
 * Y = A^-1 G^T (nq x nc, by rows), the Schur complement (nc x nc), and
 * nq- and nc-vectors; the LU pivots in d->integ_iwork (nc), then a permutation's (nc), then the
 * dense Newton matrix's pivots (nq) */
typedef struct {
  double *jac_n, *jac_f, *Y, *S;
  double *p, *lam, *lam_n, *qm, *v, *z, *w, *x, *e;
  /* the exact Newton matrix of dense models (exact_newton): A dense
   * (nq x nq, LU-factorized, pivots ipA), the forces' tangent as blocks
   * (kc_blk, kc_off) and the rows' rate matrices lw_lin_blocks fills
   * besides (rv, 3 nc x wrow); lu: A^-1 is taken from A's LU (else from
   * the factorization in d->solver) */
  double *A, *kc_blk, *kc_off, *rv;
  int *ipA, lu;
} vi_ws;

static size_t ws_size(const lw_model *m)
{
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc;
  size_t exact = m->dense ? nq * nq + m->mblk_off[m->nb] + (m->lin_coupled ? nq * nq : 0) + 3 * nc * (size_t)m->wrow : 0;
  return 2 * nc * (size_t)m->wrow + nq * nc + nc * nc + 5 * nq + 4 * (nc + 1) + exact;
}

/* whether the saddle-point systems are factorized whole (sparse LU,
 * la/lw_saddle.c) rather than through the Schur complement: sparse models
 * with rows, whose Schur complement is dense (nc solves with A, O(nc^3)) */
static int whole_saddle(const lw_model *m) { return !m->dense && m->nc > 0; }

int lw_vi_data_init(const lw_model *m, lw_data *d)
{
  if (d->integ_work)
    return 0;
  d->integ_work = calloc(ws_size(m), sizeof(double));
  d->integ_iwork = calloc(2 * ((size_t)m->nc + 1) + (size_t)m->nq + 1, sizeof(int));
  if (whole_saddle(m) && !d->saddle)
    d->saddle = lw_saddle_new(m);
  return d->integ_work && d->integ_iwork && (d->saddle || !whole_saddle(m)) ? 0 : -1;
}

static vi_ws ws_of(const lw_model *m, lw_data *d)
{
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc;
  vi_ws w;
  w.jac_n = d->integ_work;
  w.jac_f = w.jac_n + nc * (size_t)m->wrow;
  w.Y = w.jac_f + nc * (size_t)m->wrow;
  w.S = w.Y + nq * nc;
  w.p = w.S + nc * nc;
  w.qm = w.p + nq;
  w.v = w.qm + nq;
  w.z = w.v + nq;
  w.x = w.z + nq;
  w.lam = w.x + nq;
  w.w = w.lam + nc + 1;
  w.lam_n = w.w + nc + 1;
  w.e = w.lam_n + nc + 1;
  w.A = w.e + nc + 1;
  w.kc_blk = w.A + (m->dense ? nq * nq : 0);
  w.kc_off = w.kc_blk + (m->dense ? m->mblk_off[m->nb] : 0);
  w.rv = w.kc_off + (m->dense && m->lin_coupled ? nq * nq : 0);
  w.ipA = d->integ_iwork + 2 * (nc + 1);
  w.lu = 0;
  return w;
}

/* x (nq) = the gradient of row r of the gradients jac, scattered */
static void row_scatter(const lw_model *m, const double *jac, int r, double *x)
{
  const lw_row *row = &m->rows[r];
  const double *g = jac + (size_t)r * m->wrow;
  memset(x, 0, sizeof(double) * (size_t)m->nq);
  for (int k = 0; k < row->nblk; k++) {
    int b = row->blk[k], n = m->blk_n[b], o = m->blk_off[b], l = lw_loc(m, row->blk, k, 0);
    for (int j = 0; j < n; j++)
      x[o + j] += g[l + j];
  }
}

/* d->vals += rho G^T G with the gradients in d->jac: the matrices factorized
 * are augmented so that they stay well conditioned where the mass matrix
 * alone is not (a body whose inertia is near zero); the saddle-point
 * systems solved with them keep their solutions (augmented_rhs) */
static void add_augmentation(const lw_model *m, lw_data *d, double rho)
{
  for (int r = 0; r < m->nc; r++) {
    lw_mat_add_row_outer(m, d->vals, rho, r, d->jac + (size_t)r * m->wrow);
  }
}

/* y (nc) = G x with the gradients gr in place of d->jac's */
static void jac_mul_with(const lw_model *m, lw_data *d, const double *gr, const double *x, double *y)
{
  double *jac = d->jac;
  d->jac = (double *)gr;
  lw_jac_mul(m, d, x, y);
  d->jac = jac;
}

/* b += rho G^T e: the right-hand side of A x + Gl^T s = b, G x = e with
 * A augmented by rho G^T G (G the gradients gr) */
static void augmented_rhs(const lw_model *m, lw_data *d, double rho, const double *gr, const double *e, double *w,
                          double *b)
{
  for (int r = 0; r < m->nc; r++)
    w[r] = rho * e[r];
  double *jac = d->jac;
  d->jac = (double *)gr;
  lw_jact_mul(m, d, w, b);
  d->jac = jac;
}

/* x = A^-1 x with the matrix the Newton iteration or the projections
 * factorized */
static void a_solve(const lw_model *m, lw_data *d, const vi_ws *w, double *x)
{
  if (w->lu)
    lw_lu_dense_solve(w->A, m->nq, w->ipA, 0, x, 1);
  else
    lw_spd_solve(&d->solver, x);
}

/* whether the Newton matrix is the exact one (dense LU): dense models
 * without joint friction, whose tangent is not among the kinds' */
static int exact_newton(const lw_model *m) { return m->dense && !m->nfric; }

/* the exact Newton matrix of (a) at the iterate, LU-factorized into w->A:
 * M + h^2/4 K_m + rho G^T G with K_m = -dQ/dq - 2/h dQ/dv the forces'
 * whole tangent at the midpoint (the kinds' lin hooks or their
 * directional derivatives, nonsymmetric as they come) and G the
 * gradients in d->jac.  Uses d->r, d->dq, d->tmp as scratch; 0, or -1
 * when A is singular */
static int exact_factor(const lw_model *m, lw_data *d, vi_ws *w, double h, double tm, double rho)
{
  int nq = m->nq, nc = m->nc;
  size_t wn = (size_t)nc * m->wrow;
  memset(w->kc_blk, 0, sizeof(double) * m->mblk_off[m->nb]);
  if (m->lin_coupled)
    memset(w->kc_off, 0, sizeof(double) * (size_t)nq * nq);
  memset(w->rv, 0, sizeof(double) * 3 * wn);
  const lw_bmat KC = {w->kc_blk, m->lin_coupled ? w->kc_off : NULL};
  const lw_bmat *const H[3] = {NULL, NULL, NULL};
  lw_lin_point pt = {w->qm, w->v, w->v, w->v, {NULL, NULL, NULL}, tm};
  lw_lin_blocks(m, d, &pt, 2.0 / h, H, w->rv, w->rv + wn, w->rv + 2 * wn, &KC, NULL);
  double hh4 = 0.25 * h * h, *A = w->A;
  memset(A, 0, sizeof(double) * (size_t)nq * nq);
  if (m->lin_coupled)
    for (size_t k = 0; k < (size_t)nq * nq; k++)
      A[k] = hh4 * w->kc_off[k];
  for (int b = 0; b < m->nb; b++) {
    int n = m->blk_n[b], o = m->blk_off[b];
    const double *mb = m->mass_blocks + m->mblk_off[b], *kb = w->kc_blk + m->mblk_off[b];
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        A[(size_t)(o + j) * nq + o + i] += mb[j * n + i] + hh4 * kb[j * n + i];
  }
  for (int r = 0; r < nc; r++) {
    row_scatter(m, d->jac, r, w->x);
    for (int j = 0; j < nq; j++)
      if (w->x[j] != 0.0)
        for (int i = 0; i < nq; i++)
          A[(size_t)j * nq + i] += rho * w->x[i] * w->x[j];
  }
  return lw_lu_dense(A, nq, w->ipA);
}

/* S (nc x nc, column-major) = Gr Y, Y (nq x nc) by rows, row by row of Gr */
static void schur_product(const lw_model *m, const double *gr, const double *Y, double *S, double *srow)
{
  int nc = m->nc;
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    const double *g = gr + (size_t)r * m->wrow;
    memset(srow, 0, sizeof(double) * (size_t)nc);
    for (int k = 0; k < row->nblk; k++) {
      int bk = row->blk[k], n = m->blk_n[bk], o = m->blk_off[bk], l = lw_loc(m, row->blk, k, 0);
      for (int j = 0; j < n; j++) {
        double gj = g[l + j];
        const double *y = Y + (size_t)(o + j) * nc;
        if (gj != 0.0)
          for (int c = 0; c < nc; c++)
            srow[c] += gj * y[c];
      }
    }
    for (int c = 0; c < nc; c++)
      S[(size_t)c * nc + r] = srow[c];
  }
}

/* Y = A^-1 Gl^T (nq x nc, by rows: the dense factor solves all its columns
 * at once) and S = Gr Y, LU-factorized, with A the factorized matrix in
 * d->solver and Gl, Gr the gradients gl, gr.  Dependent equations (a
 * pivot lost) are regularized by 1e-12 of S's largest entry: the
 * right-hand sides of consistent dependent equations then give the
 * least-change solution.  0, or -1 when even that fails. */
static int schur_factor(const lw_model *m, lw_data *d, vi_ws *w, const double *gl, const double *gr)
{
  int nq = m->nq, nc = m->nc;
  int multi = !w->lu && d->solver.dense;
  for (int c = 0; c < nc; c++) {
    row_scatter(m, gl, c, w->x);
    if (!multi)
      a_solve(m, d, w, w->x);
    for (int i = 0; i < nq; i++)
      w->Y[(size_t)i * nc + c] = w->x[i];
  }
  if (multi)
    lw_chol_dense_solve_multi(d->solver.a, nq, w->Y, nc);
  schur_product(m, gr, w->Y, w->S, w->e);
  double smax = 0;
  for (size_t k = 0; k < (size_t)nc * nc; k++)
    smax = fmax(smax, fabs(w->S[k]));
  if (lw_lu_dense(w->S, nc, d->integ_iwork) == 0)
    return 0;
  schur_product(m, gr, w->Y, w->S, w->e);
  for (int c = 0; c < nc; c++)
    w->S[(size_t)c * nc + c] += 1e-12 * smax;
  return lw_lu_dense(w->S, nc, d->integ_iwork) == 0 ? 0 : -1;
}

/* with schur_factor's factors, the solution x of A x + Gl^T s = b,
 * Gr x = e: z = A^-1 b; s = S^-1 (Gr z - e) into e; x = z - Y s into b */
static void schur_solve(const lw_model *m, lw_data *d, vi_ws *w, const double *gr, double *b, double *e)
{
  int nq = m->nq, nc = m->nc;
  a_solve(m, d, w, b);
  jac_mul_with(m, d, gr, b, w->e);
  for (int r = 0; r < nc; r++)
    e[r] = w->e[r] - e[r];
  lw_lu_dense_solve(w->S, nc, d->integ_iwork, 0, e, 1);
  for (int i = 0; i < nq; i++) {
    const double *y = w->Y + (size_t)i * nc;
    double t = 0;
    for (int c = 0; c < nc; c++)
      t += y[c] * e[c];
    b[i] -= t;
  }
}

/* the solution of A x + Gl^T s = b, Gr x = e with the factors of the
 * whole matrix, or of A and the Schur complement (Gr the gradients gr), or
 * of A alone without rows: x into b, s into e */
static void saddle_solve(const lw_model *m, lw_data *d, vi_ws *w, const double *gr, double *b, double *e)
{
  if (whole_saddle(m))
    lw_saddle_solve(d->saddle, m, b, e);
  else if (m->nc)
    schur_solve(m, d, w, gr, b, e);
  else
    lw_spd_solve(&d->solver, b);
}

/* index of the equation with the largest |Phi| */
static int worst_row(const lw_model *m, const lw_data *d)
{
  int wr = 0;
  double s = -1;
  for (int r = 0; r < m->nc; r++) {
    double a = fabs(d->phi[r]);
    if (a != a)
      return r;
    if (a > s) {
      s = a;
      wr = r;
    }
  }
  return wr;
}

/* the midpoint and the mean velocity of the step to q1 */
static void midpoint(const lw_model *m, const lw_data *d, vi_ws *w, double h)
{
  for (int i = 0; i < m->nq; i++) {
    w->qm[i] = 0.5 * (d->qn[i] + d->q[i]);
    w->v[i] = (d->q[i] - d->qn[i]) / h;
  }
}

/* the forces at the midpoint into d->Q (friction with the multipliers L,
 * reacting at the midpoint's gradients), and when vals the Newton matrix
 * A = M + h/2 C + h^2/4 K into d->vals; leaves Phi and the gradients at
 * q1, t1 in d */
static void mid_forces(const lw_model *m, lw_data *d, vi_ws *w, double h, double t1, int vals)
{
  int nq = m->nq;
  double tm = t1 - 0.5 * h;
  midpoint(m, d, w, h);
  memset(d->Q, 0, sizeof(double) * (size_t)nq);
  if (vals)
    memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
  lw_forces_eval(m, d, w->qm, w->v, tm, d->Q, vals ? d->vals : NULL, 0.25 * h * h, 0.5 * h);
  lw_perturb_eval(m, d, d->Q);
  if (m->nfric) {
    lw_rows_eval(m, d, w->qm, tm, 1);
    lw_joint_friction_eval(m, d, w->qm, w->v, w->lam, d->Q, vals ? d->vals : NULL, 0.5 * h);
  }
  lw_rows_eval(m, d, d->q, t1, 1);
}

/* the residual of (a) into d->r: M (q1 - q_n) - h p_n - h^2/2 Q + h^2/2 G_n^T L */
static void residual(const lw_model *m, lw_data *d, vi_ws *w, double h)
{
  int nq = m->nq;
  double c = 0.5 * h * h;
  for (int i = 0; i < nq; i++)
    w->x[i] = d->q[i] - d->qn[i];
  lw_mass_mul(m, w->x, d->r);
  for (int i = 0; i < nq; i++)
    d->r[i] -= h * w->p[i] + c * d->Q[i];
  for (int r = 0; r < m->nc; r++)
    w->w[r] = c * w->lam[r];
  double *jac = d->jac;
  d->jac = w->jac_n;
  lw_jact_mul(m, d, w->w, d->r);
  d->jac = jac;
}

/* the Newton iteration's state; where it first stopped converging (the
 * equation then worst, the increment and the violation) is what a failure
 * reports: later iterates wander off into equations that were satisfied.
 * restart: the first increment above which the iteration gives up its
 * predictor (predict); dq_tol: the increment's tolerance at the last
 * iterate (newton_refactor) */
typedef struct {
  int it, wr_slow, factored;
  int inherited; /* the first iterations use the last step's factorization */
  double dqn, dqprev, phimax, phiprev, dq_slow, phi_slow, restart, dq_tol;
} vi_newton;

/* whether the next iteration refactorizes the Newton matrix at its
 * iterate.  The first iteration does; the second keeps the first's
 * matrix.  The sparse path's matrix is the symmetric tangent, not the
 * Jacobian, so its iteration converges linearly wherever the matrix was
 * taken: it is kept while the increments shrink at least fourfold.  The
 * exact path's is the Jacobian, and the Jacobian of an earlier iterate
 * turns Newton's quadratic convergence into a linear one at the ratio of
 * the last two increments (the Jacobian's change over the iterates
 * against the matrix).  That ratio can stay near 0.1: on
 * models/rigid-spring-beam.json, the axial stiffness h^2/4 K of the
 * one-element beam outweighs its slopes' mass terms and changes with the
 * slopes, and the matrix kept from the predictor took 8.7 iterations a
 * step.  So from the third iteration on the exact path keeps its matrix
 * only where that ratio puts the next increment within the tolerance:
 * one more iteration with it then ends the step as Newton's would */
static int newton_refactor(const vi_ws *w, const vi_newton *ns)
{
  if (ns->it == 1)
    return !ns->inherited;
  if (ns->it == 2)
    return 0;
  int shrank = ns->dqn <= 0.25 * ns->dqprev;
  if (!w->lu)
    return !shrank;
  return !(shrank && ns->dqn * (ns->dqn / ns->dqprev) <= ns->dq_tol);
}

/* the equation of the smallest pivot of the Schur complement's LU (the
 * last one factorized): the one nearest to depending on the others, where
 * the mechanism is singular */
static int weakest_row(const lw_model *m, const lw_data *d, const vi_ws *w)
{
  int nc = m->nc, *perm = d->integ_iwork + nc + 1, kmin = 0;
  for (int r = 0; r < nc; r++)
    perm[r] = r;
  for (int k = 0; k < nc; k++) {
    int p = d->integ_iwork[k], t = perm[k];
    perm[k] = perm[p];
    perm[p] = t;
    if (fabs(w->S[(size_t)k * nc + k]) < fabs(w->S[(size_t)kmin * nc + kmin]))
      kmin = k;
  }
  return perm[kmin];
}

/* a failed iteration: err names the time, the equation nearest to
 * dependence (the element) and the worst violated one where it stopped
 * converging */
static int newton_fail(const lw_model *m, lw_data *d, const vi_ws *w, const vi_newton *ns, double t1,
                       const char *why, lw_error *err)
{
  char where[200] = "", worst[200] = "";
  int slow = ns->wr_slow >= 0;
  if (m->nc) {
    lw_row_owner_path(m, &m->rows[ns->factored ? weakest_row(m, d, w) : worst_row(m, d)], where, sizeof where);
    lw_row_owner_path(m, &m->rows[slow ? ns->wr_slow : worst_row(m, d)], worst, sizeof worst);
  }
  lw_set_error(err, LW_ERR_SOLVER, where, t1,
               "variational step: Newton iteration did not converge at t = %.6g s after %d iterations "
               "(%s; |dq| = %.3g, largest constraint violation %.3g at %s; the equations are nearest to "
               "dependent at %s); the mechanism may be at a singular (dead-point) configuration or the step "
               "is too large",
               t1, ns->it, why, slow ? ns->dq_slow : ns->dqn, slow ? ns->phi_slow : ns->phimax,
               m->nc ? worst : "no equation", m->nc ? where : "no equation");
  return -1;
}

/* whether this step's Newton iterations start with the factorization the
 * last one ended with (banded saddle models alone): that step ended at
 * this one's start, with the same length and model, in three iterations
 * or fewer.  The matrix is the symmetric tangent, an approximation at any
 * iterate; a step's motion changes it little, and the iteration
 * refactorizes from its third iterate on where the increments shrink
 * less than fourfold (newton_refactor) */
static int inherit_newton(const lw_model *m, const lw_data *d, double h)
{
  return d->vi_newton_serial == m->serial && d->vi_newton_t == d->t && d->vi_newton_h == h && whole_saddle(m) &&
         lw_saddle_banded(d->saddle);
}

/* (a) by Newton's method from the predictor in d->q and L in w->lam; 0,
 * or -1 with err set naming the worst equation, or 1 when the first
 * increment was larger than ns->restart (see predict) */
static int newton_solve(const lw_model *m, lw_data *d, vi_ws *w, vi_newton *ns, double h, double t1,
                        lw_error *err)
{
  const lw_opt *o = &m->opt;
  int nq = m->nq, nc = m->nc;
  double c = 0.5 * h * h;
  for (ns->it = 1; ns->it <= o->max_iterations; ns->it++) {
    /* the Jacobian at the iterate, or the last one (newton_refactor) */
    int refactor = newton_refactor(w, ns);
    mid_forces(m, d, w, h, t1, refactor && !w->lu);
    if (ns->it == 1 && !refactor)
      lw_saddle_use_last(d->saddle);
    if (refactor) {
      ns->factored = 0;
      lw_grad_copy(m, w->jac_f, d->jac, &d->vi_grad_mark[1]);
      if (whole_saddle(m)) {
        add_augmentation(m, d, m->mass_scale);
        if (lw_saddle_factor(d->saddle, m, d->vals, w->jac_n, w->jac_f))
          return newton_fail(m, d, w, ns, t1, "the Newton matrix is singular", err);
      } else {
        if (w->lu ? exact_factor(m, d, w, h, t1 - 0.5 * h, m->mass_scale) != 0
                  : (add_augmentation(m, d, m->mass_scale), lw_spd_factor(&d->solver, m, d->vals) != 0))
          return newton_fail(m, d, w, ns, t1,
                             w->lu ? "the Newton matrix is singular" : "the Newton matrix is not positive definite",
                             err);
        if (nc && schur_factor(m, d, w, w->jac_n, w->jac_f))
          return newton_fail(m, d, w, ns, t1, "the constraint equations are singular", err);
        ns->factored = nc > 0;
      }
    }
    residual(m, d, w, h);
    for (int i = 0; i < nq; i++)
      d->dq[i] = -d->r[i];
    for (int r = 0; r < nc; r++)
      w->w[r] = -d->phi[r];
    augmented_rhs(m, d, m->mass_scale, w->jac_f, w->w, d->tmp, d->dq);
    saddle_solve(m, d, w, w->jac_f, d->dq, w->w);
    double qmax = 0;
    for (int i = 0; i < nq; i++) {
      d->q[i] += d->dq[i];
      qmax = fmax(qmax, fabs(d->q[i]));
    }
    for (int r = 0; r < nc; r++)
      w->lam[r] += w->w[r] / c;
    ns->dqprev = ns->it == 1 ? INFINITY : ns->dqn;
    ns->dqn = lw_max_abs(d->dq, nq);
    lw_rows_eval(m, d, d->q, t1, 0);
    ns->phiprev = ns->phimax;
    ns->phimax = lw_max_abs(d->phi, nc);
    if (!(ns->dqn < INFINITY) || !(ns->phimax < INFINITY))
      return newton_fail(m, d, w, ns, t1, "the iterate is not finite", err);
    double dq_tol = fmax(o->tolerance, 1e3 * DBL_EPSILON * qmax);
    double phi_tol = fmax(o->constraint_tolerance, 1e3 * DBL_EPSILON * qmax);
    ns->dq_tol = dq_tol;
    if (ns->dqn <= dq_tol && ns->phimax <= phi_tol)
      return 0;
    if (ns->it == 1 && ns->dqn > ns->restart)
      return 1;
    /* Newton's iterates converge quadratically near a regular solution:
     * a violation above the tolerance that does not halve from the third
     * iteration on marks where the failure is.  One within it has
     * converged: rows linear in q (a pin to the ground) sit at round-off,
     * 1e-25 at one iterate and 1e-16 at the next, which is no sign of
     * divergence */
    if (ns->it >= 3 && ns->wr_slow < 0 && ns->phimax > phi_tol && ns->phimax > 0.5 * ns->phiprev) {
      ns->wr_slow = worst_row(m, d);
      ns->dq_slow = ns->dqn;
      ns->phi_slow = ns->phimax;
    }
    if (ns->wr_slow >= 0 && ns->phimax > 1e6 * ns->phi_slow)
      return newton_fail(m, d, w, ns, t1, "diverging", err);
  }
  ns->it = o->max_iterations;
  return newton_fail(m, d, w, ns, t1, "iteration limit", err);
}

/* (b) and the index-1 problem at the new state: M qd + G^T s = M v +
 * h/2 Q_n+1/2 with G qd = -Phi_t; then qdd and lambda from
 * M qdd + G^T lambda = Q(q1, qd1, t1), G qdd = -gamma.  Q_n+1/2 in d->Q
 * and the gradients at q1 in d->jac on entry.  0, or -1 with err set. */
static int rates(const lw_model *m, lw_data *d, vi_ws *w, double h, double t1, double *vres, lw_error *err)
{
  int nq = m->nq, nc = m->nc;
  double rho = m->mass_scale;
  /* M + rho G^T G is a constant where every row is affine (a beam pinned
   * to the ground): its kept factorization serves as it is */
  int constant = whole_saddle(m) && m->af_ptr && m->nvar_runs == 0 && lw_saddle_use_kept(d->saddle, m) == 0;
  if (!constant) {
    memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
    add_augmentation(m, d, rho);
  }
  if (constant ? 0
      : whole_saddle(m) ? lw_saddle_factor_kept(d->saddle, m, d->vals, d->jac, d->jac) != 0
                        : lw_spd_factor(&d->solver, m, d->vals) || (nc && schur_factor(m, d, w, d->jac, d->jac))) {
    lw_set_error(err, LW_ERR_SOLVER, "", t1, "variational step: the constraint equations are singular at t = %.6g s", t1);
    return -1;
  }
  /* M qd + G^T s = M v + h/2 Q_n+1/2, G qd = -Phi_t */
  lw_mass_mul(m, w->v, d->qd);
  for (int i = 0; i < nq; i++)
    d->qd[i] += 0.5 * h * d->Q[i];
  lw_rows_phit(m, d, t1);
  for (int r = 0; r < nc; r++)
    w->w[r] = -d->phit[r];
  augmented_rhs(m, d, rho, d->jac, w->w, d->tmp, d->qd);
  saddle_solve(m, d, w, d->jac, d->qd, w->w);
  memcpy(d->kap, w->w, sizeof(double) * (size_t)nc);
  *vres = 0;
  lw_jac_mul(m, d, d->qd, w->e);
  for (int r = 0; r < nc; r++)
    *vres = fmax(*vres, fabs(w->e[r] + d->phit[r]));
  /* the accelerations and multipliers at (q1, qd1, t1) */
  memset(d->Q, 0, sizeof(double) * (size_t)nq);
  lw_forces_eval(m, d, d->q, d->qd, t1, d->Q, NULL, 0.0, 0.0);
  lw_perturb_eval(m, d, d->Q);
  if (m->nfric)
    lw_joint_friction_eval(m, d, d->q, d->qd, w->lam, d->Q, NULL, 0.0);
  lw_rows_time(m, d, d->q, d->qd, t1);
  for (int r = 0; r < nc; r++)
    d->lambda[r] = -d->gam[r];
  memcpy(d->qdd, d->Q, sizeof(double) * (size_t)nq);
  augmented_rhs(m, d, rho, d->jac, d->lambda, d->tmp, d->qdd);
  saddle_solve(m, d, w, d->jac, d->qdd, d->lambda);
  if (!(*vres <= 1e-6 * (1.0 + lw_max_abs(d->qd, nq))) || !(lw_max_abs(d->qdd, nq) < INFINITY)) {
    lw_set_error(err, LW_ERR_SOLVER, "", t1, "variational step: the velocities violate the constraints at t = %.6g s (violation %.3g)",
                 t1, *vres);
    return -1;
  }
  return 0;
}

/* the controllers' integrals over the step by the midpoint rule: the
 * forces at the midpoint read z_n + h/2 e(q_n+1/2, v, t_n+1/2) */
static void fb_begin(const lw_model *m, lw_data *d, double h)
{
  for (int i = 0; i < m->nfbs; i++)
    d->fbc[i] = d->fbz[i];
  d->fb_beta = 0.5 * h;
}

static void fb_end(const lw_model *m, lw_data *d, vi_ws *w, double h, double tm)
{
  for (int i = 0; i < m->nfbs; i++) {
    d->fbcs[i] = d->fbc[i];
    d->fbz[i] = d->fbc[i] + h * lw_fb_error(m, d, i, w->qm, w->v, tm);
    d->fbc[i] = d->fbz[i];
  }
  d->fb_beta = 0.0;
}

/* the energy the dampers and friction took out over the step: the
 * discrete forcing's work, h P at the midpoint */
static void add_dissipated(const lw_model *m, lw_data *d, vi_ws *w, double h, double tm)
{
  if (m->ndampers)
    d->dissipated += h * lw_damper_power(m, d, w->qm, w->v);
  if (m->nfric) {
    lw_rows_eval(m, d, w->qm, tm, 1);
    double *W = d->fric_work + m->nfric;
    for (int i = 0; i < m->nq; i++)
      d->r[i] = d->q[i] - d->qn[i];
    lw_joint_friction_work(m, d, w->qm, w->v, w->lam, d->r, W);
    for (int e = 0; e < m->nfric; e++) {
      d->fric_work[e] += W[e];
      d->dissipated += W[e];
    }
    lw_rows_eval(m, d, d->q, d->t, 1);
  }
}

/* a failed step: the state at t_n back (the controllers' integrals from
 * fbcs when fb_end had moved them on) */
static void step_undo(const lw_model *m, lw_data *d, const vi_ws *w, int fb_ended)
{
  size_t nq = (size_t)m->nq;
  memcpy(d->q, d->qn, sizeof(double) * nq);
  memcpy(d->qd, d->qdn, sizeof(double) * nq);
  memcpy(d->qdd, d->qddn, sizeof(double) * nq);
  memcpy(d->lambda, w->lam_n, sizeof(double) * (size_t)m->nc);
  for (int i = 0; i < m->nfbs; i++)
    d->fbc[i] = d->fbz[i] = fb_ended ? d->fbcs[i] : d->fbz[i];
  d->fb_beta = 0.0;
  lw_rows_eval(m, d, d->q, d->t, 1);
}

/* the consistent initial state (as ALI3-P's) and, on sparse models with
 * rows, the first factorization of the saddle-point matrix there (M + rho
 * G^T G and the gradients at the initial state, the rates' matrix): KLU
 * allocates its factors then, and the steps refactorize in place */
int lw_vi_initialize(const lw_model *m, lw_data *d, lw_error *err)
{
  int st = lw_init_consistent(m, d, err);
  if (st != LW_OK || !whole_saddle(m))
    return st;
  if (lw_vi_data_init(m, d)) {
    lw_set_error(err, LW_ERR_SOLVER, "", d->t, "variational step: out of memory");
    return LW_ERR_SOLVER;
  }
  lw_rows_eval(m, d, d->q, d->t, 1);
  memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
  add_augmentation(m, d, m->mass_scale);
  lw_saddle_factor(d->saddle, m, d->vals, d->jac, d->jac);
  d->vi_newton_serial = 0; /* the saddle's last factorization is not a Newton matrix */
  return LW_OK;
}

/* the predictor d->q = q_n + h qd_n + h^2/2 qdd_n (with_acc) or q_n + h
 * qd_n from the state at t_n in d->qn, d->qdn, d->qddn; returns the
 * acceleration term's largest entry, max |h^2/2 qdd_n|.
 *
 * qdd_n is the instantaneous acceleration at t_n.  Where the step
 * resolves the motion, the term brings the predictor's error from O(h^2)
 * to O(h^3).  Where it does not (a mode of frequency w with w h > 1: the
 * bending and stretching of a stiff beam's element), the term is of order
 * (w h)^2 / 2 times the mode's amplitude, while the midpoint rule moves
 * the mode by at most about twice its amplitude: the term is then the
 * predictor's error, and q_n + h qd_n is off by no more than the
 * amplitude whatever w h.  On the double-wishbone suspension
 * (tests/data/suspension.json: steel tubes of one element at h = 1 ms,
 * their slopes swinging at w h of 1 to 2 and stretching at w h near 20)
 * the term put the slopes 0.1 to 0.5 off the solution at every step.
 * There the midpoint's axial strain energy, quartic in the slopes and
 * weighted by h^2 EA against the element's mass, makes (a) so nonlinear
 * that Newton's method from the full predictor converged to a spurious
 * root (velocities of 1e6 at t = 0.201 s) or, refactorizing at every
 * iteration, lost its way at t = 0.479 s; from q_n + h qd_n it converges
 * at every step of the 3 s, its chassis within about 1e-4 m of ALI3-P's.
 *
 * Newton starts from the full predictor; the step starts again from q_n
 * + h qd_n when the first increment exceeds both half the acceleration
 * term (the term mostly wrong: w h above about 1.5 for a linear mode) and
 * a tenth of the velocity term max |h qd_n| (a correction not small
 * against the step's motion).  Resolved motion has its first increment
 * O(h^3), far below both: on the shipped models it reaches at most 1.5e-2
 * of the velocity term where it passes half the acceleration term (small
 * where the accelerations change sign), against at least 0.7 of both on
 * the suspension's first 0.5 s; they keep the full predictor's fewer
 * iterations and their results to the bit. */
static double predict(const lw_model *m, lw_data *d, double h, int with_acc)
{
  double c = with_acc ? 0.5 * h * h : 0.0, acc = 0;
  for (int i = 0; i < m->nq; i++) {
    d->q[i] = d->qn[i] + h * d->qdn[i] + c * d->qddn[i];
    acc = fmax(acc, fabs(c * d->qddn[i]));
  }
  return acc;
}

int lw_vi_step(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err)
{
  if (lw_vi_data_init(m, d)) {
    lw_set_error(err, LW_ERR_SOLVER, "", d->t, "variational step: out of memory");
    return LW_ERR_SOLVER;
  }
  vi_ws w = ws_of(m, d);
  int nq = m->nq, nc = m->nc;
  double h = m->opt.step, t1 = d->t0 + (double)(d->nstep + 1) * h, tm = t1 - 0.5 * h;
  d->schur_ok = 0;
  d->fric_kap_ok = 0;
  memcpy(d->qn, d->q, sizeof(double) * (size_t)nq);
  memcpy(d->qdn, d->qd, sizeof(double) * (size_t)nq);
  memcpy(d->qddn, d->qdd, sizeof(double) * (size_t)nq);
  lw_mass_mul(m, d->qd, w.p);
  lw_rows_eval(m, d, d->q, d->t, 1);
  lw_grad_copy(m, w.jac_n, d->jac, &d->vi_grad_mark[0]);
  memcpy(w.lam, d->lambda, sizeof(double) * (size_t)nc);
  memcpy(w.lam_n, d->lambda, sizeof(double) * (size_t)nc);
  double P0 = m->napplied ? lw_applied_power(m, d, d->q, d->qd, d->t, d->lambda) : 0.0;
  if (m->nfbs)
    fb_begin(m, d, h);
  /* a pattern banded in its natural order (lw_spd's band, chosen from
   * the model alone) is a long beam's, whose stiff elements made every
   * step give up the full predictor (3.98 iterations a step on the
   * 100-element spatial pendulum, 2.98 from q_n + h qd_n, the same
   * solution): it starts from q_n + h qd_n */
  int banded = d->solver.band;
  double acc = predict(m, d, h, !banded);
  vi_newton ns = {.dqn = INFINITY, .phimax = INFINITY, .wr_slow = -1, .restart = INFINITY};
  ns.inherited = inherit_newton(m, d, h);
  d->vi_newton_serial = 0;
  if (acc > 0.0)
    ns.restart = fmax(0.5 * acc, 0.1 * h * lw_max_abs(d->qdn, nq));
  double vres = 0;
  w.lu = exact_newton(m);
  int st = newton_solve(m, d, &w, &ns, h, t1, err);
  if (st == 1) {
    /* again from q_n + h qd_n, with the multipliers of t_n */
    int it = ns.it;
    predict(m, d, h, 0);
    memcpy(w.lam, w.lam_n, sizeof(double) * (size_t)nc);
    ns = (vi_newton){.dqn = INFINITY, .phimax = INFINITY, .wr_slow = -1, .restart = INFINITY, .inherited = 0};
    st = newton_solve(m, d, &w, &ns, h, t1, err);
    ns.it += it;
  }
  int ok = st == 0, fb_ended = 0;
  /* the factorization this step's Newton iterations ended with, for the
   * next step's: where they converged in three iterations at most */
  int pass_on = ok && whole_saddle(m) && lw_saddle_banded(d->saddle) && ns.it <= 3;
  w.lu = 0;
  if (ok) {
    /* Q_n+1/2 at the converged positions, for (b) */
    mid_forces(m, d, &w, h, t1, 0);
    memcpy(d->sig, w.lam, sizeof(double) * (size_t)nc);
    if (m->nfbs)
      fb_end(m, d, &w, h, tm);
    fb_ended = 1;
    ok = rates(m, d, &w, h, t1, &vres, err) == 0;
  }
  if (ok) {
    d->t = t1;
    d->nstep++;
    if (pass_on && lw_saddle_kept_in_use(d->saddle)) { /* the rates left it in place */
      d->vi_newton_t = d->t;
      d->vi_newton_h = h;
      d->vi_newton_serial = m->serial;
    }
    add_dissipated(m, d, &w, h, tm);
    if (m->napplied) /* the trapezoidal rule, as the first-order form's work */
      d->applied_work += 0.5 * h * (P0 + lw_applied_power(m, d, d->q, d->qd, d->t, d->lambda));
    lw_coords_update(m, d);
  } else {
    step_undo(m, d, &w, fb_ended);
  }
  if (info) {
    info->iterations = ns.it;
    info->residual = ns.dqn;
    info->constraint_residual = ns.phimax;
    if (ok)
      info->velocity_residual = vres;
  }
  return ok ? LW_OK : LW_ERR_SOLVER;
}
