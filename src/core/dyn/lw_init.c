/* lw_init.c: the initial position, velocity and acceleration problems
 * (seed 002 sec. 3.1: assembly with the degrees of freedom held, solved in
 * least squares), the rank of the constraint Jacobian (degrees of freedom,
 * redundant equations), outputs and dense evaluations for verifiers. */
#include "dyn/lw_init.h"
#include "lw_internal.h"
#include "compile/lw_model.h"
#include "compile/lw_vexpr.h"
#include "dyn/lw_beam_out.h"
#include "dyn/lw_forces.h"
#include "dyn/lw_joint_friction.h"
#include "dyn/lw_rows.h"
#include "dyn/lw_step.h"
#include "la/lw_matrix.h"
#include "model/lw_error.h"
#include "kind/lw_kind.h"
#include "integ/lw_integrator.h"

#include <SuiteSparseQR_C.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vals = J^T J + mu diag(P) over the constraint rows and the held
 * coordinates; P = I (positions) or the mass blocks (velocities). */
static void normal_matrix(const lw_model *m, lw_data *d, double mu, int mass_weight, const double *gc)
{
  int w = m->wrow;
  if (mass_weight) {
    for (int k = 0; k < m->nnz; k++)
      d->vals[k] = mu * m->mass_csc[k];
  } else {
    memset(d->vals, 0, sizeof(double) * (size_t)m->nnz);
    lw_mat_add_diag(m, d->vals, mu);
  }
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    lw_mat_add_outer(m, d->vals, 1.0, row->nblk, row->blk, row->pairpos, d->jac + (size_t)r * w);
  }
  for (int i = 0; i < m->ninit; i++) {
    const lw_coord *c = &m->coords[m->init_coord[i]];
    lw_mat_add_outer(m, d->vals, 1.0, c->nblk, c->blk, c->pairpos, gc + (size_t)i * w);
  }
}

/* y += G^T x for the held coordinates */
static void coords_t_mul(const lw_model *m, const double *gc, const double *x, double *y)
{
  for (int i = 0; i < m->ninit; i++) {
    const lw_coord *c = &m->coords[m->init_coord[i]];
    for (int k = 0, o = 0; k < c->nblk; o += m->blk_n[c->blk[k]], k++)
      for (int j = 0; j < m->blk_n[c->blk[k]]; j++)
        y[m->blk_off[c->blk[k]] + j] += gc[(size_t)i * m->wrow + o + j] * x[i];
  }
}

/* residual of the position problem: Phi and (coordinate - value) */
static double position_residual(const lw_model *m, lw_data *d, const double *q, double *rc, double *gc)
{
  lw_rows_eval(m, d, q, 0.0, 1);
  double s = 0;
  for (int r = 0; r < m->nc; r++)
    s += d->phi[r] * d->phi[r];
  for (int i = 0; i < m->ninit; i++) {
    rc[i] = 0;
    double *g = gc + (size_t)i * m->wrow;
    double x = lw_coord_eval(m, &m->coords[m->init_coord[i]], q, g);
    if (!m->init_has_value[i]) {
      memset(g, 0, sizeof(double) * (size_t)m->wrow);
      continue;
    }
    rc[i] = x - m->init_value[i];
    if (m->coords[m->init_coord[i]].kind == LW_ROW_ANGLE)
      rc[i] = lw_wrap_pi(rc[i]);
    s += rc[i] * rc[i];
  }
  return sqrt(s);
}

/* J^T with unit columns (the equations), nq x nc: NULL without memory */
static cholmod_sparse *unit_jacobian_t(const lw_model *m, const lw_data *d, cholmod_common *cc)
{
  int nq = m->nq, nc = m->nc, w = m->wrow;
  size_t nz = 0;
  for (int r = 0; r < nc; r++)
    nz += (size_t)lw_loc_width(m, m->rows[r].nblk, m->rows[r].blk, 0);
  cholmod_sparse *A = cholmod_l_allocate_sparse((size_t)nq, (size_t)nc, nz, 1, 1, 0, CHOLMOD_REAL, cc);
  if (!A)
    return NULL;
  SuiteSparse_long *Ap = A->p, *Ai = A->i;
  double *Ax = A->x;
  size_t p = 0;
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    const double *g = d->jac + (size_t)r * w;
    double nrm = 0;
    for (int k = 0; k < lw_loc_width(m, row->nblk, row->blk, 0); k++)
      nrm += g[k] * g[k];
    nrm = nrm > 0 ? 1.0 / sqrt(nrm) : 0.0;
    Ap[r] = (SuiteSparse_long)p;
    for (int k = 0, o = 0; k < row->nblk; o += m->blk_n[row->blk[k]], k++)
      for (int j = 0; j < m->blk_n[row->blk[k]]; j++) {
        Ai[p] = m->blk_off[row->blk[k]] + j;
        Ax[p] = g[o + j] * nrm;
        p++;
      }
  }
  Ap[nc] = (SuiteSparse_long)p;
  return A;
}

/* Whether the equations (A's unit columns) are plainly independent: every
 * pivot of the sparse LDL^T of A^T A = J J^T (fill-reducing order) is above
 * 1e-10.  A pivot is the squared distance of its equation's unit gradient
 * from the span of those eliminated before it (the square of the diagonal
 * of R in a QR of J^T in that order), so a dependent equation shows as a
 * pivot at round-off level.  The factor has the fill of the step's own
 * matrix, linear in a chain's length; neither a dense matrix nor Q is
 * formed.  Near or at dependence (any pivot at or below the bound) the
 * caller decides with the rank-revealing QR. */
static int plainly_independent(cholmod_sparse *A, cholmod_common *cc)
{
  cholmod_sparse *J = cholmod_l_transpose(A, 1, cc);
  if (!J)
    return 0;
  int supernodal = cc->supernodal, final_ll = cc->final_ll;
  cc->supernodal = CHOLMOD_SIMPLICIAL;
  cc->final_ll = 0;
  cholmod_factor *L = cholmod_l_analyze(J, cc);
  int ok = L && cholmod_l_factorize(J, L, cc) && cc->status == CHOLMOD_OK && !L->is_ll && L->minor == L->n;
  const SuiteSparse_long *Lp = ok ? L->p : NULL;
  const double *Lx = ok ? L->x : NULL;
  for (size_t j = 0; ok && j < L->n; j++)
    ok = Lx[Lp[j]] > 1e-10;
  cc->supernodal = supernodal;
  cc->final_ll = final_ll;
  cholmod_l_free_factor(&L, cc);
  cholmod_l_free_sparse(&J, cc);
  return ok;
}

/* the dependent equations, named, when they are refused */
static void redundant_error(const lw_model *m, SuiteSparse_long rank, const SuiteSparse_long *E, lw_error *err)
{
  int nc = m->nc;
  /* the equations SPQR moved behind the rank are the dependent ones */
  char names[400] = "", where[160];
  int first = E ? (int)E[rank] : 0;
  for (SuiteSparse_long k = rank; E && k < nc && strlen(names) < 300; k++) {
    lw_row_owner_path(m, &m->rows[E[k]], where, sizeof where);
    if (!strstr(names, where)) {
      if (*names)
        strcat(names, ", ");
      strncat(names, where, sizeof names - strlen(names) - 1);
    }
  }
  lw_row_owner_path(m, &m->rows[first], where, sizeof where);
  lw_set_error(err, LW_ERR_MODEL, where, NAN,
               "redundant or conflicting constraints: %ld of %d equations are dependent "
               "(involving %s); remove or change a joint, or set solver.allow_redundant",
               (long)(nc - rank), nc, names);
}

/* The rank of J by rank-revealing sparse QR (SPQR, tolerance 1e-9 on the
 * unit columns of A = J^T), first from J, ordered by nested dissection
 * (METIS; SPQR falls back to COLAMD without it); then, only when equations
 * are dependent, which ones from J^T (columns: the equations), into *E.
 * Neither Q (forming it explicitly is dense work) nor R is kept.  -1 when
 * it could not be computed. */
static SuiteSparse_long rank_qr(cholmod_sparse *A, SuiteSparse_long **E, cholmod_common *cc)
{
  int nq = (int)A->nrow, nc = (int)A->ncol;
  cholmod_sparse *R = NULL;
  cholmod_sparse *J = cholmod_l_transpose(A, 1, cc);
  /* (E is asked for: SPQR makes it either way, and only frees it given) */
  SuiteSparse_long *EJ = NULL;
  SuiteSparse_long rank = J ? SuiteSparseQR_C_QR(SPQR_ORDERING_METIS, 1e-9, 0, J, NULL, &R, &EJ, cc) : -1;
  if (EJ)
    cholmod_l_free((size_t)nq, sizeof(SuiteSparse_long), EJ, cc);
  cholmod_l_free_sparse(&J, cc);
  cholmod_l_free_sparse(&R, cc);
  if (rank >= 0 && rank < nc)
    rank = SuiteSparseQR_C_QR(SPQR_ORDERING_DEFAULT, 1e-9, 0, A, NULL, &R, E, cc);
  cholmod_l_free_sparse(&R, cc);
  return rank;
}

/* The rank of the constraint Jacobian: the degrees of freedom, and the
 * dependent equations refused unless solver.allow_redundant.  Independent
 * equations, the usual case, are settled by one sparse LDL^T
 * (plainly_independent); the rank-revealing QR runs only near or at
 * dependence. */
static int rank_check(const lw_model *m, lw_data *d, lw_error *err)
{
  int nq = m->nq, nc = m->nc;
  if (nc == 0) {
    d->dof = nq;
    return 0;
  }
  cholmod_common cc;
  cholmod_l_start(&cc);
  cc.print = 0;
  cholmod_sparse *A = unit_jacobian_t(m, d, &cc);
  SuiteSparse_long *E = NULL;
  SuiteSparse_long rank = !A ? -1 : plainly_independent(A, &cc) ? nc : rank_qr(A, &E, &cc);
  int status = 0;
  if (rank < 0) {
    lw_set_error(err, LW_ERR_MODEL, "", NAN, "rank of the constraint Jacobian could not be computed");
    status = -1;
  } else {
    d->dof = nq - (int)rank;
    if (rank < nc && !m->opt.allow_redundant) {
      redundant_error(m, rank, E, err);
      status = -1;
    }
  }
  if (E)
    cholmod_l_free((size_t)nc, sizeof(SuiteSparse_long), E, &cc);
  cholmod_l_free_sparse(&A, &cc);
  cholmod_l_finish(&cc);
  return status;
}

/* the state before initialization: the initial guess at rest, t = 0 */
static void initial_guess(const lw_model *m, lw_data *d)
{
  memcpy(d->q, m->q0, sizeof(double) * (size_t)m->nq);
  memset(d->qd, 0, sizeof(double) * (size_t)m->nq);
  memset(d->qdd, 0, sizeof(double) * (size_t)m->nq);
  memset(d->lambda, 0, sizeof(double) * (size_t)m->nc);
  d->t = 0;
  d->t0 = 0;
  d->nstep = 0;
  lw_fb_reset(m, d);
  for (int i = 0; i < m->ncoords; i++)
    d->coord_prev[i] = lw_coord_eval(m, &m->coords[i], d->q, NULL);
}

/* the assembly failed after it iterations: name the worst equation */
static void assembly_error(const lw_model *m, const lw_data *d, const double *rc, int it, lw_error *err)
{
  char where[200];
  int wr = -1, wi = -1;
  double s = -1;
  for (int r = 0; r < m->nc; r++)
    if (fabs(d->phi[r]) > s) {
      s = fabs(d->phi[r]);
      wr = r;
    }
  for (int i = 0; i < m->ninit; i++)
    if (fabs(rc[i]) > s) {
      s = fabs(rc[i]);
      wi = i;
    }
  if (wi >= 0)
    snprintf(where, sizeof where, "initial/%s", m->desc->initial[wi].joint);
  else if (wr >= 0)
    lw_row_owner_path(m, &m->rows[wr], where, sizeof where);
  else
    where[0] = 0;
  lw_set_error(err, LW_ERR_MODEL, where, NAN,
               "the model cannot be assembled: after %d iterations the constraints are still "
               "violated by %.3g (largest at %s); check the joint locations, the initial "
               "values and whether the constraints conflict",
               it, s, where);
}

/* after a failed assembly: more initial values given than the mechanism has
 * degrees of freedom (the rank of J where the assembly stopped) are named
 * as such; 0 when that is not the case */
static int overspecified(const lw_model *m, lw_data *d, lw_error *err)
{
  int nv = 0, last = -1;
  char names[300] = "";
  for (int i = 0; i < m->ninit; i++)
    if (m->init_has_value[i]) {
      nv++;
      last = i;
      if (strlen(names) < 200)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", *names ? ", " : "",
                 m->desc->initial[i].joint);
    }
  lw_error quiet;
  if (nv < 2 || (rank_check(m, d, &quiet) && !(d->dof > 0)) || nv <= d->dof)
    return 0;
  char where[200];
  snprintf(where, sizeof where, "initial/%s", m->desc->initial[last].joint);
  lw_set_error(err, LW_ERR_MODEL, where, NAN,
               "%d initial values are given (%s) but the mechanism has %d degree%s of freedom, and they "
               "disagree; give at most %d (the other coordinates follow from the joints)",
               nv, names, d->dof, d->dof == 1 ? "" : "s", d->dof);
  return 1;
}

/* 1. position: Gauss-Newton with a small Levenberg term and backtracking
 * (rc, gc: the held coordinates' residuals and gradients; qtry: nq) */
static int assemble(const lw_model *m, lw_data *d, double *rc, double *gc, double *qtry, lw_error *err)
{
  int nq = m->nq;
  double res = position_residual(m, d, d->q, rc, gc);
  int it;
  for (it = 0; it < 200 && res > 1e-13; it++) {
    double mu = 1e-10;
    normal_matrix(m, d, mu, 0, gc);
    if (lw_spd_factor(&d->solver, m, d->vals)) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "assembly: singular normal equations");
      return -1;
    }
    memset(d->dq, 0, sizeof(double) * (size_t)nq);
    lw_jact_mul(m, d, d->phi, d->dq);
    coords_t_mul(m, gc, rc, d->dq);
    for (int i = 0; i < nq; i++)
      d->dq[i] = -d->dq[i];
    lw_spd_solve(&d->solver, d->dq);
    double step = 1.0, rnew = INFINITY;
    for (int ls = 0; ls < 30; ls++) {
      for (int i = 0; i < nq; i++)
        qtry[i] = d->q[i] + step * d->dq[i];
      rnew = position_residual(m, d, qtry, rc, gc);
      if (rnew < res || rnew < 1e-13)
        break;
      step *= 0.5;
    }
    if (!(rnew < res) && !(rnew < 1e-13))
      break; /* stalled */
    memcpy(d->q, qtry, sizeof(double) * (size_t)nq);
    res = rnew;
  }
  res = position_residual(m, d, d->q, rc, gc);
  if (!(res <= 1e-10)) {
    if (!overspecified(m, d, err))
      assembly_error(m, d, rc, it, err);
    return -1;
  }
  return 0;
}

/* 3. velocity: J qd = -Phi_t, held coordinates at their velocities (0 if
 * not given), the rest of minimal kinetic energy; two refinements */
static int solve_velocity(const lw_model *m, lw_data *d, double *rc, double *gc, lw_error *err)
{
  int nq = m->nq, nc = m->nc, w = m->wrow;
  lw_rows_eval(m, d, d->q, 0.0, 1);
  lw_rows_time(m, d, d->q, d->qd, 0.0);
  for (int i = 0; i < m->ninit; i++) {
    double *g = gc + (size_t)i * w;
    lw_coord_eval(m, &m->coords[m->init_coord[i]], d->q, g);
  }
  /* mu M regularizes J^T J: 1e-10 of the masses; a beam's slopes, whose
   * mass entries fall with the cube of the element length, get theirs
   * raised to 1e-10 of the largest entry, else they vanish in round-off */
  double mu = m->nbeams ? 1e-10 * fmax(1.0, m->mass_scale / m->mass_min) : 1e-10;
  normal_matrix(m, d, mu, 1, gc);
  if (lw_spd_factor(&d->solver, m, d->vals)) {
    lw_set_error(err, LW_ERR_MODEL, "", NAN, "velocity problem: singular matrix");
    return -1;
  }
  /* each pass leaves about mu M / (J^T J + mu M) of the residual: three
   * passes where the masses are alike; where mu is large against some
   * directions (a beam's tiny slope masses beside a heavy body), up to
   * 200 while the residual is above 1e-12 of the rates asked */
  double scale = 0;
  for (int r = 0; r < nc; r++)
    scale = fmax(scale, fabs(d->phit[r]));
  for (int i = 0; i < m->ninit; i++)
    scale = fmax(scale, m->init_has_vel[i] ? fabs(m->init_vel[i]) : 0.0);
  for (int pass = 0; pass < 200; pass++) {
    /* residual b - A qd */
    lw_jac_mul(m, d, d->qd, d->tmp);
    double res = 0;
    for (int r = 0; r < nc; r++) {
      d->tmp[r] = -d->phit[r] - d->tmp[r];
      res = fmax(res, fabs(d->tmp[r]));
    }
    for (int i = 0; i < m->ninit; i++) {
      const lw_coord *c = &m->coords[m->init_coord[i]];
      double xd = lw_coord_rate(m, c, d->q, d->qd);
      rc[i] = (m->init_has_vel[i] ? m->init_vel[i] : 0.0) - xd;
      res = fmax(res, fabs(rc[i]));
    }
    if (pass >= 3 && res <= 1e-12 * scale)
      break;
    memset(d->dq, 0, sizeof(double) * (size_t)nq);
    lw_jact_mul(m, d, d->tmp, d->dq);
    coords_t_mul(m, gc, rc, d->dq);
    lw_spd_solve(&d->solver, d->dq);
    for (int i = 0; i < nq; i++)
      d->qd[i] += d->dq[i];
  }
  return 0;
}

/* 4. accelerations and multipliers: augmented Lagrangian index-1 solve
 * (M + alpha J^T J) qdd = Q - J^T (lambda + alpha gamma), lambda += alpha (J qdd + gamma) */
static int solve_acceleration(const lw_model *m, lw_data *d, lw_error *err)
{
  return lw_accelerations(m, d, 0.0, err);
}

/* Joint friction at the data's state and multipliers: d->Q = d->r (the
 * applied forces) + Q^f(q, qd, lambda).  Friction reads its normal force
 * from the multipliers, which the iteration below converges, so it is
 * evaluated again at each iterate (a fixed point inside the multipliers'
 * iteration; lambda here is the index-1 multiplier itself, no projection's
 * kappa).  Returns how far friction moved since the last iterate: 0 once
 * it moves by no more than 1e-13 of its size.  At the first iterate (d->Q
 * the applied forces alone) that is its whole size, so friction that is
 * not zero is always evaluated again at the updated multipliers; friction
 * that is zero (at rest) leaves the iteration as it is without it. */
static double add_joint_friction(const lw_model *m, lw_data *d)
{
  int nq = m->nq;
  double *prev = d->tmp2, moved = 0, size = 0;
  for (int i = 0; i < nq; i++)
    prev[i] = d->Q[i] - d->r[i];
  memcpy(d->Q, d->r, sizeof(double) * (size_t)nq);
  lw_joint_friction_eval(m, d, d->q, d->qd, d->lambda, d->Q, NULL, 0.0);
  for (int i = 0; i < nq; i++) {
    double f = d->Q[i] - d->r[i];
    moved = fmax(moved, fabs(f - prev[i]));
    size = fmax(size, fabs(f));
  }
  return moved <= 1e-13 * size ? 0.0 : moved;
}

/* the same at time t (the rows' gradients in d->jac at the data's q) */
int lw_accelerations(const lw_model *m, lw_data *d, double t, lw_error *err)
{
  int nq = m->nq, nc = m->nc, w = m->wrow;
  /* a penalty of the scale of the Newton matrix keeps this matrix well
   * conditioned; the iteration makes the result exact */
  double hs = m->opt.step;
  double alpha = fmax(0.25 * hs * hs * m->opt.alpha, 1e2 * m->mass_scale);
  memcpy(d->vals, m->mass_csc, sizeof(double) * (size_t)m->nnz);
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    lw_mat_add_outer(m, d->vals, alpha, row->nblk, row->blk, row->pairpos, d->jac + (size_t)r * w);
  }
  if (lw_spd_factor(&d->solver, m, d->vals)) {
    lw_set_error(err, LW_ERR_MODEL, "", NAN, "acceleration problem: singular matrix");
    return -1;
  }
  lw_rows_time(m, d, d->q, d->qd, t);
  memset(d->Q, 0, sizeof(double) * (size_t)nq);
  lw_forces_eval(m, d, d->q, d->qd, t, d->Q, NULL, 0, 0);
  if (m->nfric) /* the applied forces, friction added to them at each iterate */
    memcpy(d->r, d->Q, sizeof(double) * (size_t)nq);
  for (int k = 0; k < 200; k++) {
    double df = m->nfric ? add_joint_friction(m, d) : 0.0;
    memcpy(d->qdd, d->Q, sizeof(double) * (size_t)nq);
    for (int r = 0; r < nc; r++)
      d->tmp[r] = -(d->lambda[r] + alpha * d->gam[r]);
    lw_jact_mul(m, d, d->tmp, d->qdd);
    lw_spd_solve(&d->solver, d->qdd);
    lw_jac_mul(m, d, d->qdd, d->tmp);
    double e = 0;
    for (int r = 0; r < nc; r++) {
      double v = d->tmp[r] + d->gam[r];
      d->lambda[r] += alpha * v;
      e = fmax(e, fabs(v));
    }
    if (e < 1e-12 && df == 0.0)
      break;
  }
  return 0;
}

/* A penalty with alpha h^2/4 above 1e7 times the largest mass entry makes
 * the Newton matrix M + h^2/4 alpha J^T J so ill-conditioned that its
 * factorization loses the motion (the null space of J, where only M acts)
 * to round-off: the N-four-bar at alpha 1e15, h = 1 ms reported ok and
 * ended 1 cm off, at 4e14 1.7 mm off after 3 s.  Refused, with the largest
 * penalty that is not.  (Near singular positions a step may raise its own
 * penalty ten times higher for a few iterations: lw_step.) */
static int check_penalty(const lw_model *m, lw_error *err)
{
  double alpha = m->opt.alpha, h = m->opt.step;
  double hh4 = 0.25 * h * h, limit = 1e7 * m->mass_scale;
  if (!(alpha * hh4 > limit))
    return 0;
  lw_set_error(err, LW_ERR_MODEL, "solver/alpha", NAN,
               "the penalty alpha = %.3g is too large for the step %.3g s: alpha h^2/4 = %.2g is %.2g times the "
               "largest mass entry, and the Newton matrix then loses the motion to round-off; use alpha of "
               "%.2g or less (the default is 1e9)",
               alpha, h, alpha * hh4, alpha * hh4 / m->mass_scale, limit / hh4);
  return -1;
}

int lw_init_consistent(const lw_model *m, lw_data *d, lw_error *err)
{
  double *rc = calloc((size_t)m->ninit + 1, sizeof(double));
  double *gc = calloc(((size_t)m->ninit + 1) * m->wrow, sizeof(double));
  double *qtry = calloc((size_t)m->nq, sizeof(double));
  int status = LW_OK;
  if (check_penalty(m, err)) {
    status = LW_ERR_MODEL;
    goto done;
  }
  initial_guess(m, d);
  /* 1. position, 2. rank: degrees of freedom and redundant equations */
  if (assemble(m, d, rc, gc, qtry, err) || rank_check(m, d, err)) {
    status = LW_ERR_MODEL;
    goto done;
  }
  /* angles continue from the values the user gave, or from the guess */
  for (int i = 0; i < m->ninit; i++)
    if (m->init_has_value[i])
      d->coord_prev[m->init_coord[i]] = m->init_value[i];
  lw_coords_update(m, d);
  /* the forces the switches turn on where the motion starts */
  lw_switches_set(m, d, d->q);
  /* 3. velocity, 4. accelerations and multipliers */
  if (solve_velocity(m, d, rc, gc, err) || solve_acceleration(m, d, err))
    status = LW_ERR_MODEL;
done:
  free(rc);
  free(gc);
  free(qtry);
  return status;
}

/* the model's integrator's initialization (integ/) */
int lw_initialize(const lw_model *m, lw_data *d, lw_error *err)
{
  return m->integ->initialize(m, d, err);
}

/* ---- outputs ---------------------------------------------------------- */
void lw_outputs(const lw_model *m, lw_data *d, double *out)
{
  lw_outputs_some(m, d, out, NULL);
}

/* the outputs k with use[k] set (all without use); the others' columns are
 * left as they are */
void lw_outputs_some(const lw_model *m, lw_data *d, double *out, const char *use)
{
  int nd = m->nd, w = m->wrow;
  double *o = out;
  int have_jac = 0;
  for (int k = 0; k < m->nout; k++) {
    const lw_output *op = &m->outputs[k];
    if (use && !use[k]) {
      o += op->width;
      continue;
    }
    switch (op->type) {
    case LW_OUT_POSITION:
      lw_vexpr_eval(m, &op->v, d->q, o);
      break;
    case LW_OUT_VELOCITY:
      lw_vexpr_eval_lin(m, &op->v, d->qd, o);
      break;
    case LW_OUT_ACCELERATION:
      lw_vexpr_eval_lin(m, &op->v, d->qdd, o);
      break;
    case LW_OUT_JOINT_COORDINATE:
      o[0] = d->coord_prev[op->coord];
      break;
    case LW_OUT_JOINT_VELOCITY:
      o[0] = lw_coord_rate(m, &m->coords[op->coord], d->q, d->qd);
      break;
    case LW_OUT_CONTROL: {
      const lw_force *f = &m->forces[op->force];
      o[0] = lw_force_kind_of(f->type)->actuation(m, d, f, d->q, d->qd, d->t);
      break;
    }
    case LW_OUT_REACTION_FORCE: {
      /* force on body 2 (or minus the force on body 1 when body 2 is the
       * ground): the r0 block of -J^T lambda over the joint's equations */
      if (!have_jac) {
        lw_rows_eval(m, d, d->q, d->t, 1);
        have_jac = 1;
      }
      int b = op->rbody;
      double sgn = op->rsign;
      for (int i = 0; i < nd; i++)
        o[i] = 0;
      for (int r = m->joint_row0[op->joint]; r < m->joint_row0[op->joint + 1]; r++) {
        const lw_row *row = &m->rows[r];
        for (int kb = 0; kb < row->nblk; kb++)
          if (row->blk[kb] == b)
            for (int i = 0; i < nd; i++)
              o[i] -= sgn * d->jac[(size_t)r * w + lw_loc(m, row->blk, kb, 0) + i] * d->lambda[r];
      }
      break;
    }
    case LW_OUT_SPRING_LENGTH:
    case LW_OUT_SPRING_FORCE: {
      const lw_force *f = &m->forces[op->force];
      double x, xd;
      lw_spring_state(m, d, f, d->q, d->qd, &x, &xd);
      o[0] = op->type == LW_OUT_SPRING_LENGTH ? x : f->k * (x - f->rest) + f->c * xd;
      break;
    }
    case LW_OUT_DISSIPATED_ENERGY:
      o[0] = d->dissipated;
      break;
    case LW_OUT_BODY_ANGLE: /* a coordinate of its own past the joints' */
      o[0] = d->coord_prev[op->coord];
      break;
    case LW_OUT_APPLIED_WORK:
      o[0] = d->applied_work;
      break;
    case LW_OUT_BEAM_STRAIN:
    case LW_OUT_BEAM_FORCE:
    case LW_OUT_BEAM_CURVATURE:
    case LW_OUT_BEAM_MOMENT:
    case LW_OUT_BEAM_DEFLECTION:
    case LW_OUT_BEAM_ENERGY:
      o[0] = lw_beam_output(m, d, k, d->q, NULL, NULL, NULL);
      break;
    case LW_OUT_FRICTION_WORK:
      o[0] = d->fric_work[op->coord];
      break;
    case LW_OUT_CONTACT_FORCE: {
      /* the event's guards are consecutive: a limit's two bounds */
      int g = op->coord;
      o[0] = d->normal_force[g];
      if (g + 1 < m->nguards && m->guards[g + 1].event == m->guards[g].event)
        o[0] += d->normal_force[g + 1];
      break;
    }
    case LW_OUT_FRICTION_FORCE:
    case LW_OUT_NORMAL_FORCE:
    case LW_OUT_SLIP_SPEED: {
      double fs[3];
      if (!have_jac) {
        lw_rows_eval(m, d, d->q, d->t, 1);
        have_jac = 1;
      }
      lw_joint_friction_state(m, d, op->coord, d->q, d->qd, lw_joint_friction_lambda(m, d, d->lambda, d->tmp2),
                              fs);
      o[0] = fs[op->type - LW_OUT_FRICTION_FORCE];
      break;
    }
    case LW_OUT_KINETIC_ENERGY:
    case LW_OUT_POTENTIAL_ENERGY:
    case LW_OUT_TOTAL_ENERGY:
    case LW_OUT_ENERGY_BALANCE: {
      double T = 0, V = 0;
      if (op->type != LW_OUT_POTENTIAL_ENERGY) {
        lw_mass_mul(m, d->qd, d->r);
        for (int i = 0; i < m->nq; i++)
          T += 0.5 * d->qd[i] * d->r[i];
      }
      if (op->type != LW_OUT_KINETIC_ENERGY)
        V = lw_potential_energy(m, d, d->q);
      o[0] = T + V;
      if (op->type == LW_OUT_ENERGY_BALANCE) /* what went out, less what came in */
        o[0] += d->dissipated - d->applied_work;
      break;
    }
    default:
      break;
    }
    o += op->width;
  }
}

void lw_body_pose(const lw_model *m, const lw_data *d, int b, double origin[3], double R[9])
{
  const double *qb = d->q + m->blk_off[b];
  if (m->blk_n[b] == m->nd) {
    /* a point: its position, the global axes */
    double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    origin[2] = 0;
    memcpy(origin, qb, sizeof(double) * (size_t)m->nd);
    memcpy(R, I, sizeof I);
    return;
  }
  if (m->planar) {
    origin[0] = qb[0];
    origin[1] = qb[1];
    origin[2] = 0;
    double c = qb[2], s = qb[3];
    double Rp[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, Rp, sizeof Rp);
    return;
  }
  for (int i = 0; i < 3; i++) {
    origin[i] = qb[i];
    R[3 * i] = qb[3 + i];
    R[3 * i + 1] = qb[6 + i];
    R[3 * i + 2] = qb[9 + i];
  }
}

/* origin and unit axis of joint j's frame on body 1 (g: 6) */
void lw_joint_geometry(const lw_model *m, const lw_data *d, int j, double *g)
{
  double *o = g, *z = g + 3;
  lw_vexpr_eval(m, &m->joint_o[j], d->q, o);
  lw_vexpr_eval(m, &m->joint_z[j], d->q, z);
  if (m->planar) {
    o[2] = 0;
    z[0] = z[1] = 0;
    z[2] = 1;
    return;
  }
  double n = sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
  for (int i = 0; i < 3 && n > 0; i++)
    z[i] /= n;
}

void lw_scene_geometry(const lw_model *m, const lw_data *d, double *joints, double *forces)
{
  for (int j = 0; joints && j < m->njoints; j++)
    lw_joint_geometry(m, d, j, joints + 6 * (size_t)j);
  for (int k = 0; forces && k < m->desc->nforces; k++) { /* the description's: not the beams' elements */
    const lw_force *f = &m->forces[k];
    double *a = forces + 6 * (size_t)k, *b = a + 3;
    memset(a, 0, 6 * sizeof(double));
    lw_force_kind_of(f->type)->geometry(m, d, f, a, b);
  }
}

int lw_scene_beam_points(const lw_model *m)
{
  int n = 0;
  for (int k = 0; k < m->nbeams; k++)
    n += m->beams[k].nel * LW_BEAM_DRAW_PER_ELEMENT + 1;
  return n;
}

void lw_scene_beams(const lw_model *m, const lw_data *d, double *pts)
{
  int nd = m->nd;
  for (int k = 0; k < m->nbeams; k++) {
    const lw_beam *bm = &m->beams[k];
    /* the radius of a circle of the section's area */
    double rad = sqrt(bm->rhoA / m->desc->beams[k].density / M_PI);
    for (int e = 0; e < bm->nel; e++) {
      const double *x = d->q + m->blk_off[bm->blk0 + e];
      for (int j = e ? 1 : 0; j <= LW_BEAM_DRAW_PER_ELEMENT; j++) {
        double S[4];
        lw_beam_shape((double)j / LW_BEAM_DRAW_PER_ELEMENT, bm->l, S, NULL, NULL);
        double *p = pts;
        p[0] = p[1] = p[2] = 0;
        for (int a = 0; a < 4; a++)
          for (int i = 0; i < nd; i++)
            p[i] += S[a] * x[a * nd + i];
        p[3] = e == 0 && j == 0 ? -rad : rad;
        pts += 4;
      }
    }
  }
}

/* ---- dense evaluations (verifiers, reference integrators) --------------- */
void lw_eval_mass_dense(const lw_model *m, double *M)
{
  int nq = m->nq;
  memset(M, 0, sizeof(double) * (size_t)nq * nq);
  for (int b = 0; b < m->nb; b++) {
    int n = m->blk_n[b], o = m->blk_off[b];
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        M[(size_t)(o + j) * nq + o + i] = m->mass_blocks[m->mblk_off[b] + (size_t)j * n + i];
  }
}

void lw_eval_dense(const lw_model *m, lw_data *d, const double *q, const double *qd, double t,
                   double *Q, double *Phi, double *Phi_q, double *Phi_t, double *gamma)
{
  int nq = m->nq, nc = m->nc, w = m->wrow;
  lw_rows_eval(m, d, q, t, 1);
  lw_rows_time(m, d, q, qd, t);
  if (Q) {
    memset(Q, 0, sizeof(double) * (size_t)nq);
    lw_forces_eval(m, d, q, qd, t, Q, NULL, 0, 0);
    lw_perturb_eval(m, d, Q);
  }
  if (Phi)
    memcpy(Phi, d->phi, sizeof(double) * (size_t)nc);
  if (Phi_t)
    memcpy(Phi_t, d->phit, sizeof(double) * (size_t)nc);
  if (gamma)
    memcpy(gamma, d->gam, sizeof(double) * (size_t)nc);
  if (Phi_q) {
    memset(Phi_q, 0, sizeof(double) * (size_t)nc * nq);
    for (int r = 0; r < nc; r++) {
      const lw_row *row = &m->rows[r];
      for (int k = 0, o = 0; k < row->nblk; o += m->blk_n[row->blk[k]], k++)
        for (int j = 0; j < m->blk_n[row->blk[k]]; j++)
          Phi_q[(size_t)(m->blk_off[row->blk[k]] + j) * nc + r] += d->jac[(size_t)r * w + o + j];
    }
  }
}
