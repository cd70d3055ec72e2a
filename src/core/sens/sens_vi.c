/* sens_vi.c: forward and discrete-adjoint sensitivities of the variational
 * integrator (integ/vi_step.c), exact for its discrete equations (seed 001
 * sec. 4, eqs. 20-27, in the step's position-momentum form).
 *
 * The step from state a (q_a, qd_a, z_a) to state b solves, at
 * convergence, E(u, x_a, theta) = 0 for u = [q1 L qd1 s qdd1 lambda1 z1]
 * (nu = 3 nq + 3 nc + nz):
 *   E1 (nq): M (q1 - q_a - h qd_a) - c Q_m + c G(q_a)^T L          (c = h^2/2)
 *   E2 (nc): Phi(q1, t1)
 *   E3 (nq): M (qd1 - v) + G(q1)^T s - h/2 Q_m
 *   E4 (nc): G(q1) qd1 + Phi_t(t1)
 *   E5 (nq): M qdd1 + G(q1)^T lambda1 - Q(q1, qd1, t1; z1)
 *   E6 (nc): G(q1) qdd1 + gamma(q1, qd1, t1)
 *   E7 (nz): z1 - z_a - h e(q_m, v, t_m)
 * with q_m = (q_a + q1)/2, v = (q1 - q_a)/h, t_m = t1 - h/2 and
 * Q_m = Q(q_m, v, t_m; controllers' integrals z_a + h/2 e).  Its
 * linearization, Ju du + Jx dx_a + Jtheta dtheta = 0, is assembled dense
 * from the kinds' directional derivatives (lw_lin_jvp: forces, rows,
 * J^T l, rates) and the tangent models' mass blocks, and factorized
 * equilibrated by rows and columns (ju_equilibrate); the forward solves
 * Ju for the parameters' columns, the adjoint Ju^T for each objective's
 * cotangent, sweeping back from the last state (eq. 26: Ju is the
 * converged step's Jacobian, transposed).  The initial state's derivatives
 * are the consistent initialization's (sens_initial.c), shared with
 * ALI3-P.  The adjoint keeps every state (no checkpoints). */
#include "sens_internal.h"
#include "dyn/lw_rows.h"
#include "la/lw_matrix.h"
#include "lin/lw_jvp.h"
#include "model/lw_error.h"

#include <math.h>
#include <stdlib.h>

/* one step's linearization and its scratch */
typedef struct {
  int nu, oL, oQD, oS, oQDD, oLAM, oZ;
  int *xmap;        /* (nx) the place in u of each entry of the state x = [q qd qdd lambda z] */
  double *Ju;       /* (nu x nu) equilibrated (ju_equilibrate) and LU-factorized */
  int *ip;
  double *cs, *rs;  /* (nu) Ju's column and row scales */
  double *Jx, *Jt;  /* (nu x nx), (nu x p) */
  double *Ga, *Gb;  /* (nc x nq) the constraint Jacobians at q_a and q1 */
  double *qm, *v, *e, *dv;
  double *dQ, *dJ0, *dJ1, *dJa, *dphi, *dvel, *dacc, *de, *gz, *tmp;
  double h, c, ta, t1, tm;
  const double *sa, *sb;
} vi_lin;

static void vi_lin_free(vi_lin *L)
{
  double *a[] = {L->Ju, L->Jx, L->Jt, L->Ga, L->Gb, L->qm, L->v, L->e, L->dv, L->dQ, L->dJ0, L->dJ1,
                 L->dJa, L->dphi, L->dvel, L->dacc, L->de, L->gz, L->tmp};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    free(a[i]);
  free(L->ip);
  free(L->cs);
  free(L->rs);
  free(L->xmap);
}

static int vi_lin_alloc(const sens *s, vi_lin *L)
{
  int nq = s->nq, nc = s->nc, nz = s->nz, p = s->p;
  L->nu = 3 * nq + 3 * nc + nz;
  L->oL = nq, L->oQD = nq + nc, L->oS = 2 * nq + nc, L->oQDD = 2 * nq + 2 * nc;
  L->oLAM = 3 * nq + 2 * nc, L->oZ = 3 * nq + 3 * nc;
  size_t nu = (size_t)L->nu, nqs = (size_t)nq + 1, ncs = (size_t)nc + 1;
  L->Ju = calloc(nu * nu, sizeof(double));
  L->ip = calloc(nu, sizeof(int));
  L->cs = calloc(nu, sizeof(double));
  L->rs = calloc(nu, sizeof(double));
  L->Jx = calloc(nu * (size_t)s->nx, sizeof(double));
  L->Jt = calloc(nu * (size_t)(p ? p : 1), sizeof(double));
  L->Ga = calloc(ncs * nqs, sizeof(double));
  L->Gb = calloc(ncs * nqs, sizeof(double));
  double **vq[] = {&L->qm, &L->v, &L->e, &L->dv, &L->dQ, &L->dJ0, &L->dJ1, &L->dJa, &L->tmp};
  for (size_t i = 0; i < sizeof vq / sizeof vq[0]; i++)
    *vq[i] = calloc(nqs, sizeof(double));
  L->dphi = calloc(ncs, sizeof(double));
  L->dvel = calloc(ncs, sizeof(double));
  L->dacc = calloc(ncs, sizeof(double));
  L->de = calloc((size_t)nz + 1, sizeof(double));
  L->gz = calloc(((size_t)nz + 1) * nqs, sizeof(double));
  L->xmap = calloc((size_t)s->nx + 1, sizeof(int));
  if (!L->Ju || !L->ip || !L->cs || !L->rs || !L->Jx || !L->Jt || !L->Ga || !L->Gb || !L->tmp ||
      !L->dphi || !L->dvel || !L->dacc || !L->de || !L->gz || !L->xmap)
    return -1;
  for (int i = 0; i < nq; i++) {
    L->xmap[i] = i;
    L->xmap[nq + i] = L->oQD + i;
    L->xmap[2 * nq + i] = L->oQDD + i;
  }
  for (int r = 0; r < nc; r++)
    L->xmap[3 * nq + r] = L->oLAM + r;
  for (int i = 0; i < nz; i++)
    L->xmap[s->nxs + i] = L->oZ + i;
  return 0;
}

/* G (nc x nq, column-major) = the gradients in d->jac */
static void dense_jac(const sens *s, double *G)
{
  const lw_model *m = s->m;
  int nc = s->nc;
  memset(G, 0, sizeof(double) * (size_t)nc * s->nq);
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    const double *g = s->d->jac + (size_t)r * m->wrow;
    for (int k = 0; k < row->nblk; k++) {
      int b = row->blk[k], n = m->blk_n[b], o = m->blk_off[b], l = lw_loc(m, row->blk, k, 0);
      for (int j = 0; j < n; j++)
        G[(size_t)(o + j) * nc + r] += g[l + j];
    }
  }
}

/* gz (nz x nq, by rows) = -dQ/dz at q: a controller's integral term
 * -ki z acts along its actuated coordinate's gradient */
static void controller_dq_dz(const sens *s, const double *q, double *gz)
{
  const lw_model *m = s->m;
  int nq = s->nq;
  double g[2 * LW_MAXQB];
  memset(gz, 0, sizeof(double) * (size_t)s->nz * nq);
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    if (!lw_force_is_controller(f->type))
      continue;
    const lw_coord *cd = &m->coords[f->coord];
    lw_coord_eval(m, cd, q, g);
    for (int i = f->fb0; i < f->fb0 + f->nfb; i++)
      for (int l = 0; l < lw_loc_width(m, cd->nblk, cd->blk, 0); l++)
        gz[(size_t)i * nq + lw_loc_global(m, cd->blk, l, 0)] += m->fbs[i].ki * g[l];
  }
}

/* at the midpoint (integrals z_a + h/2 e): dQ of Q(q_m, v, t_m) and de of
 * the controllers' errors along (dq, dv) and the parameter tg */
static void jvp_mid(sens *s, vi_lin *L, const double *dq, const double *dv, const lw_tangent *tg, int body)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  memcpy(d->fbc, ST_Z(s, L->sa), sizeof(double) * (size_t)s->nz);
  d->fb_beta = 0.5 * L->h;
  lw_lin_point p = {L->qm, L->v, L->v, NULL, {NULL, NULL, NULL}, L->tm};
  lw_lin_dir dir = {dq, dv, dv, NULL, NULL, tg, body};
  lw_lin_out o = {L->dQ, {NULL, NULL, NULL}, NULL, NULL, NULL};
  lw_lin_jvp(m, d, &p, &dir, &o);
  for (int i = 0; i < s->nz; i++)
    lw_fb_error_jvp(m, d, tg, i, &p, &dir, &L->de[i]);
}

/* at state b (integrals z1): dQ, the rows' dphi, dvel, dacc and dJ0, dJ1
 * of G^T s, G^T lambda1 along (dq, dqd, dqdd) and the parameter tg */
static void jvp_end(sens *s, vi_lin *L, const double *dq, const double *dqd, const double *dqdd,
                    const lw_tangent *tg, int body)
{
  const double *sb = L->sb;
  lw_data *d = s->d;
  memcpy(d->fbc, ST_Z(s, sb), sizeof(double) * (size_t)s->nz);
  d->fb_beta = 0.0;
  lw_lin_point p = {ST_Q(s, sb), ST_QD(s, sb), ST_QD(s, sb), ST_QDD(s, sb),
                    {ST_MULT(s, sb) + 1 + s->nc, ST_L(s, sb), NULL}, L->t1};
  lw_lin_dir dir = {dq, dqd, dqd, dqdd, NULL, tg, body};
  lw_lin_out o = {L->dQ, {L->dJ0, L->dJ1, NULL}, L->dphi, L->dvel, L->dacc};
  lw_lin_jvp(s->m, d, &p, &dir, &o);
}

/* at state a: dJa of G(q_a)^T L along dq and the parameter tg */
static void jvp_a(sens *s, vi_lin *L, const double *dq, const lw_tangent *tg, int body)
{
  lw_lin_point p = {ST_Q(s, L->sa), NULL, NULL, NULL, {ST_MULT(s, L->sb) + 1, NULL, NULL}, L->ta};
  lw_lin_dir dir = {dq, NULL, NULL, NULL, NULL, tg, body};
  lw_lin_out o = {NULL, {L->dJa, NULL, NULL}, NULL, NULL, NULL};
  lw_lin_jvp(s->m, s->d, &p, &dir, &o);
}

/* col[o + i] += a x[i], i < n */
static void put(double *col, int o, double a, const double *x, int n)
{
  for (int i = 0; i < n; i++)
    col[o + i] += a * x[i];
}

/* col[o + i] += a G[r, i] (row r of an nc x nq G) */
static void put_row(const sens *s, double *col, int o, double a, const double *G, int r)
{
  for (int i = 0; i < s->nq; i++)
    col[o + i] += a * G[(size_t)i * s->nc + r];
}

/* Ju's columns of q1 and qd1 */
static void ju_state_cols(sens *s, vi_lin *L)
{
  int nq = s->nq, nc = s->nc, nu = L->nu;
  double h = L->h, c = L->c;
  const double *M = s->M;
  for (int j = 0; j < nq; j++) {
    int b = lw_body_of(s->m, j);
    double *col = L->Ju + (size_t)j * nu;
    memset(L->e, 0, sizeof(double) * (size_t)nq);
    memset(L->dv, 0, sizeof(double) * (size_t)nq);
    L->e[j] = 0.5;
    L->dv[j] = 1.0 / h;
    jvp_mid(s, L, L->e, L->dv, NULL, b);
    put(col, 0, -c, L->dQ, nq);
    put(col, 0, 1.0, M + (size_t)j * nq, nq);
    put(col, L->oQD, -0.5 * h, L->dQ, nq);
    put(col, L->oQD, -1.0 / h, M + (size_t)j * nq, nq);
    put(col, L->oZ, -h, L->de, s->nz);
    L->e[j] = 1.0;
    jvp_end(s, L, L->e, NULL, NULL, NULL, b);
    put(col, L->oL, 1.0, L->dphi, nc);
    put(col, L->oQD, 1.0, L->dJ0, nq);
    put(col, L->oS, 1.0, L->dvel, nc);
    put(col, L->oQDD, 1.0, L->dJ1, nq);
    put(col, L->oQDD, -1.0, L->dQ, nq);
    put(col, L->oLAM, 1.0, L->dacc, nc);
    /* qd1 */
    col = L->Ju + (size_t)(L->oQD + j) * nu;
    jvp_end(s, L, NULL, L->e, NULL, NULL, b);
    put(col, L->oQD, 1.0, M + (size_t)j * nq, nq);
    put(col, L->oS, 1.0, L->dvel, nc);
    put(col, L->oQDD, -1.0, L->dQ, nq);
    put(col, L->oLAM, 1.0, L->dacc, nc);
    /* qdd1 */
    col = L->Ju + (size_t)(L->oQDD + j) * nu;
    put(col, L->oQDD, 1.0, M + (size_t)j * nq, nq);
    for (int r = 0; r < nc; r++)
      col[L->oLAM + r] += L->Gb[(size_t)j * nc + r];
  }
}

/* Ju: the columns of q1, L, qd1, s, qdd1, lambda1, z1 */
static void ju_build(sens *s, vi_lin *L)
{
  int nq = s->nq, nc = s->nc, nu = L->nu;
  memset(L->Ju, 0, sizeof(double) * (size_t)nu * nu);
  ju_state_cols(s, L);
  for (int r = 0; r < nc; r++) {
    put_row(s, L->Ju + (size_t)(L->oL + r) * nu, 0, L->c, L->Ga, r);
    put_row(s, L->Ju + (size_t)(L->oS + r) * nu, L->oQD, 1.0, L->Gb, r);
    put_row(s, L->Ju + (size_t)(L->oLAM + r) * nu, L->oQDD, 1.0, L->Gb, r);
  }
  controller_dq_dz(s, ST_Q(s, L->sb), L->gz);
  for (int i = 0; i < s->nz; i++) {
    double *col = L->Ju + (size_t)(L->oZ + i) * nu;
    put(col, L->oQDD, 1.0, L->gz + (size_t)i * nq, nq);
    col[L->oZ + i] += 1.0;
  }
}

/* Jx: the columns of q_a, qd_a and z_a (qdd_a and lambda_a only warm-start
 * the step) */
static void jx_build(sens *s, vi_lin *L)
{
  int nq = s->nq, nu = L->nu;
  double h = L->h, c = L->c;
  const double *M = s->M;
  memset(L->Jx, 0, sizeof(double) * (size_t)nu * s->nx);
  for (int j = 0; j < nq; j++) {
    int b = lw_body_of(s->m, j);
    double *col = L->Jx + (size_t)j * nu;
    memset(L->e, 0, sizeof(double) * (size_t)nq);
    memset(L->dv, 0, sizeof(double) * (size_t)nq);
    L->e[j] = 0.5;
    L->dv[j] = -1.0 / h;
    jvp_mid(s, L, L->e, L->dv, NULL, b);
    L->e[j] = 1.0;
    jvp_a(s, L, L->e, NULL, b);
    put(col, 0, -1.0, M + (size_t)j * nq, nq);
    put(col, 0, -c, L->dQ, nq);
    put(col, 0, c, L->dJa, nq);
    put(col, L->oQD, 1.0 / h, M + (size_t)j * nq, nq);
    put(col, L->oQD, -0.5 * h, L->dQ, nq);
    put(col, L->oZ, -h, L->de, s->nz);
    put(L->Jx + (size_t)(nq + j) * nu, 0, -h, M + (size_t)j * nq, nq);
  }
  controller_dq_dz(s, L->qm, L->gz);
  for (int i = 0; i < s->nz; i++) {
    double *col = L->Jx + (size_t)(s->nxs + i) * nu;
    put(col, 0, c, L->gz + (size_t)i * nq, nq);
    put(col, L->oQD, 0.5 * h, L->gz + (size_t)i * nq, nq);
    col[L->oZ + i] -= 1.0;
  }
}

/* Jtheta's column j: the step's equations along parameter j */
static void jt_col(sens *s, vi_lin *L, int j)
{
  int nq = s->nq, nc = s->nc;
  const double *sa = L->sa, *sb = L->sb;
  const lw_tangent *tg = s->tg[j];
  double h = L->h, c = L->c, *col = L->Jt + (size_t)j * L->nu;
  memset(col, 0, sizeof(double) * (size_t)L->nu);
  jvp_mid(s, L, NULL, NULL, tg, -1);
  put(col, 0, -c, L->dQ, nq);
  put(col, L->oQD, -0.5 * h, L->dQ, nq);
  put(col, L->oZ, -h, L->de, s->nz);
  jvp_a(s, L, NULL, tg, -1);
  put(col, 0, c, L->dJa, nq);
  jvp_end(s, L, NULL, NULL, NULL, tg, -1);
  put(col, L->oL, 1.0, L->dphi, nc);
  put(col, L->oQD, 1.0, L->dJ0, nq);
  put(col, L->oS, 1.0, L->dvel, nc);
  put(col, L->oQDD, 1.0, L->dJ1, nq);
  put(col, L->oQDD, -1.0, L->dQ, nq);
  put(col, L->oLAM, 1.0, L->dacc, nc);
  /* the mass matrix's derivative */
  const double *qa = ST_Q(s, sa), *qda = ST_QD(s, sa), *q1 = ST_Q(s, sb), *qd1 = ST_QD(s, sb);
  for (int i = 0; i < nq; i++)
    L->tmp[i] = q1[i] - qa[i] - h * qda[i];
  lw_tangent_mass_mul(s->m, tg, L->tmp, col);
  for (int i = 0; i < nq; i++)
    L->tmp[i] = qd1[i] - L->v[i];
  lw_tangent_mass_mul(s->m, tg, L->tmp, col + L->oQD);
  lw_tangent_mass_mul(s->m, tg, ST_QDD(s, sb), col + L->oQDD);
}

/* 2^-e with e the exponent that brings |x| into [1/2, 1) (1 for x = 0) */
static double scale_of(double x)
{
  int e = 0;
  if (x > 0)
    frexp(x, &e);
  return ldexp(1.0, -e);
}

/* Ju equilibrated by powers of two, F = diag(rs) Ju diag(cs): each
 * column, then each row, to its largest entry in [1/2, 1).  The unknowns
 * and the equations differ in scale by many orders: the multipliers L
 * enter E1 times h^2/2, while a stiff beam's element puts its axial
 * stiffness EA/l (1e8 N/m for the suspension's steel tubes) into E5.
 * Unscaled, the LU's test of a pivot against 1e-14 of the largest took
 * the suspension's L for dependent at its first step, and partial
 * pivoting among rows of such different scales left its forward and
 * adjoint gradients 2e-8 apart (1e-11 equilibrated).  Products with
 * powers of two are exact. */
static void ju_equilibrate(vi_lin *L)
{
  int nu = L->nu;
  memset(L->rs, 0, sizeof(double) * (size_t)nu);
  for (int j = 0; j < nu; j++) {
    double *col = L->Ju + (size_t)j * nu, a = 0;
    for (int i = 0; i < nu; i++) {
      double v = fabs(col[i]);
      a = v > a ? v : a;
    }
    double c = L->cs[j] = scale_of(a);
    for (int i = 0; i < nu; i++) {
      col[i] *= c;
      double v = fabs(col[i]);
      L->rs[i] = v > L->rs[i] ? v : L->rs[i];
    }
  }
  for (int i = 0; i < nu; i++)
    L->rs[i] = scale_of(L->rs[i]);
  for (int j = 0; j < nu; j++) {
    double *col = L->Ju + (size_t)j * nu;
    for (int i = 0; i < nu; i++)
      col[i] *= L->rs[i];
  }
}

/* with the equilibrated factors, Ju x = b (trans 0) or Ju^T x = b (trans
 * 1) for nb right-hand sides b (nu each), in place: x = diag(cs) F^-1
 * diag(rs) b, or x = diag(rs) F^-T diag(cs) b */
static void ju_solve(const vi_lin *L, int trans, double *b, int nb)
{
  int nu = L->nu;
  const double *s0 = trans ? L->cs : L->rs, *s1 = trans ? L->rs : L->cs;
  for (int k = 0; k < nb; k++)
    for (int i = 0; i < nu; i++)
      b[(size_t)k * nu + i] *= s0[i];
  lw_lu_dense_solve(L->Ju, nu, L->ip, trans, b, nb);
  for (int k = 0; k < nb; k++)
    for (int i = 0; i < nu; i++)
      b[(size_t)k * nu + i] *= s1[i];
}

/* the step from state sa to sb linearized: Ju factorized, Jx, Jtheta */
static int vi_linearize(sens *s, vi_lin *L, const double *sa, const double *sb)
{
  const lw_model *m = s->m;
  int nq = s->nq;
  L->sa = sa, L->sb = sb;
  L->h = s->h, L->c = 0.5 * s->h * s->h;
  L->ta = ST_T(sa), L->t1 = ST_T(sb), L->tm = L->t1 - 0.5 * s->h;
  sens_state_load(s, sa); /* the unwrapped coordinates the step saw */
  const double *qa = ST_Q(s, sa), *q1 = ST_Q(s, sb);
  for (int i = 0; i < nq; i++) {
    L->qm[i] = 0.5 * (qa[i] + q1[i]);
    L->v[i] = (q1[i] - qa[i]) / s->h;
  }
  lw_rows_eval(m, s->d, qa, L->ta, 1);
  dense_jac(s, L->Ga);
  lw_rows_eval(m, s->d, q1, L->t1, 1);
  dense_jac(s, L->Gb);
  ju_build(s, L);
  jx_build(s, L);
  for (int j = 0; j < s->p; j++)
    jt_col(s, L, j);
  ju_equilibrate(L);
  if (lw_lu_dense(L->Ju, L->nu, L->ip)) {
    lw_set_error(s->err, LW_ERR_SOLVER, "", L->t1,
                 "the variational step's Jacobian is singular at t = %.6g s: no sensitivities there", L->t1);
    return -1;
  }
  return 0;
}

/* ---- the drivers ---------------------------------------------------------- */

/* the gradient's direct terms at a state: the plain parameters' output and
 * objective partials (time-function coefficients have none) */
static void direct_terms(sens *s)
{
  int p = s->p, ncols = s->ncols;
  for (int o = 0; o < s->no; o++)
    for (int n = 0; n < s->nplain; n++) {
      int j = s->plist[n];
      s->grad[(size_t)o * p + j] +=
          dotn(ncols, s->gy + (size_t)o * ncols, s->YT + (size_t)j * ncols) + s->gth[(size_t)o * p + j];
    }
}

/* the initial state's columns (nx x p) */
static int initial_cols(sens_run *r, double *X)
{
  sens *s = r->s;
  int n = r->L.nv > s->n1 ? r->L.nv : s->n1;
  double *R = calloc((size_t)n * (s->p ? s->p : 1) + 1, sizeof(double)), *R2 = calloc(2 * (size_t)n + 1, sizeof(double));
  if (!R || !R2) {
    free(R);
    free(R2);
    return -1;
  }
  sens_initial_solve(s, &r->L, X, s->nx, R, R2);
  free(R);
  free(R2);
  return 0;
}

/* the outputs and objectives at state st (k of N): values into value
 * (NULL: not summed), their derivatives in s->gy, s->gth */
static void objectives_at(sens *s, const double *st, long k, double *value)
{
  double wi, wf;
  sens_trapezoid_weights(s, k, &wi, &wf);
  sens_outputs_at(s, st, 1, k == s->N);
  sens_objectives_at(s, wi, wf, value);
}

/* row k of the output table (keep_outputs): t, the outputs, and for every
 * output column c and parameter j d y_c / d rho_j = (Y X_j + YT_j)_c
 * (c-major), the columns X (nx x p) at that state */
static void table_row(sens_run *r, const double *X, long k)
{
  sens *s = r->s;
  lw_sens_result *res = r->res;
  int ncols = s->ncols, p = s->p, nx = s->nx;
  double *row = res->table + (size_t)k * res->ncols;
  row[0] = ST_T(r->st1);
  memcpy(row + 1, s->yrow, sizeof(double) * (size_t)ncols);
  for (int j = 0; j < p; j++)
    for (int c = 0; c < ncols; c++) {
      double z = s->YT[(size_t)j * ncols + c];
      for (int x = 0; x < nx; x++)
        z += s->Y[(size_t)x * ncols + c] * X[(size_t)j * nx + x];
      row[1 + ncols + (size_t)c * p + j] = z;
    }
  res->rows = k + 1;
}

static int table_alloc(sens_run *r)
{
  lw_sens_result *res = r->res;
  res->ncols = 1 + r->s->ncols * (1 + r->s->p);
  res->table = malloc(sizeof(double) * (size_t)(r->s->N + 1) * (size_t)res->ncols);
  if (!res->table) {
    lw_set_error(r->err, LW_ERR_NOMEM, "", NAN, "out of memory for the output table");
    return LW_ERR_NOMEM;
  }
  return LW_OK;
}

/* the forward: the parameters' columns X (nx x p) carried step by step */
static int vi_forward(sens_run *r, vi_lin *L, double *X, double *B, double *cx)
{
  sens *s = r->s;
  int nx = s->nx, nu = L->nu, p = s->p;
  for (long k = 0; k <= s->N; k++) {
    if (k > 0) {
      memcpy(r->st0, r->st1, sizeof(double) * r->sl);
      sens_state_load(s, r->st0);
      lw_step_info info;
      if (lw_step(r->m, s->d, &info, r->err))
        return LW_ERR_SOLVER;
      sens_state_save(s, r->st1);
      if (vi_linearize(s, L, r->st0, r->st1))
        return r->err->status;
      /* Ju du = -(Jx dx_a + Jtheta) */
      for (int j = 0; j < p; j++) {
        double *b = B + (size_t)j * nu;
        for (int i = 0; i < nu; i++)
          b[i] = -L->Jt[(size_t)j * nu + i];
        gemv(nu, nx, -1.0, L->Jx, X + (size_t)j * nx, b);
      }
      ju_solve(L, 0, B, p);
      for (int j = 0; j < p; j++)
        for (int i = 0; i < nx; i++)
          X[(size_t)j * nx + i] = B[(size_t)j * nu + L->xmap[i]];
    } else {
      memcpy(r->st1, r->st0, sizeof(double) * r->sl);
    }
    objectives_at(s, r->st1, k, s->value);
    for (int o = 0; o < s->no; o++) {
      memset(cx, 0, sizeof(double) * (size_t)nx);
      const int *xs;
      sens_outputs_cotangent(s, s->gy + (size_t)o * s->ncols, cx, &xs);
      for (int j = 0; j < p; j++)
        s->grad[(size_t)o * p + j] += dotn(nx, cx, X + (size_t)j * nx);
    }
    direct_terms(s);
    if (r->res->table)
      table_row(r, X, k);
    r->res->steps = k;
    if (sens_run_cancelled(r, k, 0.999 * (double)k / (double)(s->N + 1))) {
      lw_set_error(r->err, LW_OK, "", ST_T(r->st1), "cancelled at t = %.6g s", ST_T(r->st1));
      return -1;
    }
  }
  return LW_OK;
}

/* the adjoint's forward pass: every state stored, the objectives summed */
static int vi_adjoint_forward(sens_run *r, double *store)
{
  sens *s = r->s;
  size_t sl = r->sl;
  memcpy(store, r->st0, sizeof(double) * sl);
  for (long k = 0; k <= s->N; k++) {
    double *st = store + sl * (size_t)k;
    if (k > 0) {
      sens_state_load(s, st - sl);
      lw_step_info info;
      if (lw_step(r->m, s->d, &info, r->err))
        return LW_ERR_SOLVER;
      sens_state_save(s, st);
    }
    double wi, wf;
    sens_trapezoid_weights(s, k, &wi, &wf);
    sens_outputs_at(s, st, 0, k == s->N);
    sens_objectives_at(s, wi, wf, s->value);
    r->res->steps = k;
    if (sens_run_cancelled(r, k, 0.5 * (double)k / (double)(s->N + 1))) {
      lw_set_error(r->err, LW_OK, "", ST_T(st), "cancelled at t = %.6g s", ST_T(st));
      return -1;
    }
  }
  return LW_OK;
}

/* the backward pass: the cotangents C (nx x no) of the states from the
 * last; step k transposed: Ju^T w = C (placed in u), the parameters'
 * terms -Jtheta^T w, the cotangent of state k-1 -Jx^T w; at state 0 the
 * initial columns X0 */
static int vi_adjoint_backward(sens_run *r, vi_lin *L, const double *store, double *C, const double *X0,
                               double *w)
{
  sens *s = r->s;
  int nx = s->nx, nu = L->nu, p = s->p;
  size_t sl = r->sl;
  memset(C, 0, sizeof(double) * (size_t)nx * s->no);
  for (long k = s->N; k >= 0; k--) {
    const double *st = store + sl * (size_t)k;
    objectives_at(s, st, k, NULL);
    for (int o = 0; o < s->no; o++) {
      const int *xs;
      sens_outputs_cotangent(s, s->gy + (size_t)o * s->ncols, C + (size_t)o * nx, &xs);
    }
    direct_terms(s);
    if (k > 0 && vi_linearize(s, L, st - sl, st))
      return r->err->status;
    for (int o = 0; o < s->no; o++) {
      double *c = C + (size_t)o * nx, *g = s->grad + (size_t)o * p;
      if (k == 0) {
        for (int j = 0; j < p; j++)
          g[j] += dotn(nx, c, X0 + (size_t)j * nx);
        continue;
      }
      memset(w, 0, sizeof(double) * (size_t)nu);
      for (int i = 0; i < nx; i++)
        w[L->xmap[i]] += c[i];
      ju_solve(L, 1, w, 1);
      for (int j = 0; j < p; j++)
        g[j] -= dotn(nu, L->Jt + (size_t)j * nu, w);
      memset(c, 0, sizeof(double) * (size_t)nx);
      gemv_t(nu, nx, -1.0, L->Jx, w, c);
    }
    if (sens_run_cancelled(r, k, 0.5 + 0.5 * (double)(s->N - k) / (double)(s->N + 1))) {
      lw_set_error(r->err, LW_OK, "", ST_T(st), "cancelled");
      return -1;
    }
  }
  return LW_OK;
}

static int vi_adjoint(sens_run *r, vi_lin *L, double *X0, double *w)
{
  sens *s = r->s;
  size_t need = r->sl * sizeof(double) * (size_t)(s->N + 1);
  if (need > r->limit) {
    lw_set_error(r->err, LW_ERR_NOMEM, "", NAN,
                 "the variational integrator's adjoint keeps every state: %zu bytes exceed the memory limit of "
                 "%zu; use the forward method",
                 need, r->limit);
    return LW_ERR_NOMEM;
  }
  double *store = malloc(need), *C = calloc((size_t)s->nx * s->no + 1, sizeof(double));
  int status = store && C ? LW_OK : LW_ERR_NOMEM;
  if (status)
    lw_set_error(r->err, LW_ERR_NOMEM, "", NAN, "out of memory for %zu bytes of stored states", need);
  if (!status)
    status = vi_adjoint_forward(r, store);
  if (!status)
    status = vi_adjoint_backward(r, L, store, C, X0, w);
  r->res->peak_bytes = need;
  free(store);
  free(C);
  return status;
}

int sens_vi_run(sens_run *r)
{
  sens *s = r->s;
  if (!r->forward && !r->adjoint)
    return sens_forward_run(r);
  vi_lin L = {0};
  size_t nx = (size_t)s->nx, p = (size_t)(s->p ? s->p : 1);
  double *X = calloc(nx * p, sizeof(double)), *cx = calloc(nx + 1, sizeof(double));
  int status = vi_lin_alloc(s, &L) || !X || !cx ? LW_ERR_NOMEM : LW_OK;
  double *B = status ? NULL : calloc((size_t)L.nu * p, sizeof(double));
  if (!status && (!B || initial_cols(r, X)))
    status = LW_ERR_NOMEM;
  if (status)
    lw_set_error(r->err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivities");
  if (!status && r->forward && r->opt->keep_outputs)
    status = table_alloc(r);
  r->res->threads = 1;
  if (!status)
    status = r->forward ? vi_forward(r, &L, X, B, cx) : vi_adjoint(r, &L, X, B);
  free(X);
  free(cx);
  free(B);
  vi_lin_free(&L);
  return status;
}
