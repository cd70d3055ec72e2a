/* lw_sens.c: exact sensitivities of objectives over a simulation: forward
 * (direct differentiation) and discrete adjoint of the discretized ALI3-P
 * step, central finite differences as a verifier.
 *
 * The step from t_n to t_n+1 solves, at convergence (seed 002 eqs. 3.28,
 * 3.35, 3.39 with the trapezoidal rule, beta = 1/4, gamma = 1/2):
 *   E_P(q, lambda):  M qdd*(q) - Q(q, qd*(q)) + J(q)^T lambda = 0,  Phi(q, t) = 0
 *   E_V(qd, sigma):  M (qd - qd*) + J^T sigma = 0,                  J qd + Phi_t = 0
 *   E_A(qdd, kappa): M (qdd - qdd*) + J^T kappa = 0,                J qdd + gamma(q, qd) = 0
 * with qd* = c2 q + bh, qdd* = c4 q + ah, c2 = 2/h, c4 = 4/h^2 and the
 * history terms bh = -(c2 q_n + qd_n), ah = -(c4 q_n + 2 c2 qd_n + qdd_n).
 * Position, velocity and acceleration problems at t = 0 start it.  The
 * Newton iteration converges to the tolerance and the projections are exact,
 * so these equations are what was simulated: their linearization, solved
 * forward (one LU of each step matrix, one back-substitution per parameter)
 * or transposed backward (the discrete adjoint: the exact transpose of the
 * same matrices, cost independent of the number of parameters), gives the
 * derivative of the discrete objective
 *   psi = sum_k w_k g(y_k) (trapezoidal weights) + final terms g(y_N).
 * The step matrices are dense (models up to a few hundred coordinates). */
#define _POSIX_C_SOURCE 200809L
#include "lw_internal.h"
#include "lw_rowvec.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* LAPACK (Fortran, hidden string lengths last) */
extern void dgesvd_(const char *ju, const char *jv, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt, const int *ldvt,
                    double *work, const int *lwork, int *info, size_t, size_t);

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* in four independent sums: one chain of additions is bound by their latency */
static double dotn(int n, const double *a, const double *b)
{
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; i++)
    s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

/* y (m) += alpha A x, A m x n column-major */
static void gemv(int m, int n, double alpha, const double *A, const double *x, double *y)
{
  for (int j = 0; j < n; j++) {
    double s = alpha * x[j];
    if (s == 0.0)
      continue;
    const double *a = A + (size_t)j * m;
    for (int i = 0; i < m; i++)
      y[i] += a[i] * s;
  }
}

/* y += alpha M x with the block-diagonal mass matrix (gemv on the dense M
 * would add its zero blocks) */
static void mass_axpy(const lw_model *m, double alpha, const double *x, double *y)
{
  const lw_bmat M = {m->mass_blocks, NULL};
  lw_bmat_mul(m, &M, alpha, x, y);
}

/* y (n) += alpha A^T x, A m x n */
static void gemv_t(int m, int n, double alpha, const double *A, const double *x, double *y)
{
  for (int j = 0; j < n; j++)
    y[j] += alpha * dotn(m, A + (size_t)j * m, x);
}

/* The saddle-point matrices [T s J^T; s J 0] are stored with their
 * constraint rows and multiplier columns scaled by s (of the size of T), so
 * that the pivots stay of one magnitude; A x = b is solved as
 * x = D A_s^-1 D b, D = diag(1, s), for A and for A^T alike. */
static void kkt_solve(const double *A, int n, int nq, double sc, const int *ipiv, int trans, double *B,
                      int nrhs)
{
  for (int j = 0; j < nrhs; j++)
    for (int i = nq; i < n; i++)
      B[(size_t)j * n + i] *= sc;
  lw_lu_dense_solve(A, n, ipiv, trans, B, nrhs);
  for (int j = 0; j < nrhs; j++)
    for (int i = nq; i < n; i++)
      B[(size_t)j * n + i] *= sc;
}

/* the reciprocals of the pivots of an n x n LU */
static void lu_recip(const double *A, int n, double *d)
{
  for (int i = 0; i < n; i++)
    d[i] = 1.0 / A[(size_t)i * n + i];
}

static void kkt_scale(double *A, int n, int nq, double sc)
{
  for (int j = 0; j < nq; j++) /* J rows */
    for (int i = nq; i < n; i++)
      A[(size_t)j * n + i] *= sc;
  for (int j = nq; j < n; j++) /* J^T columns */
    for (int i = 0; i < nq; i++)
      A[(size_t)j * n + i] *= sc;
}

/* P = pinv(A), A m x n (destroyed), P n x m; singular values below
 * 1e-11 of the largest are dropped */
static int pinv(double *A, int m, int n, double *P)
{
  memset(P, 0, sizeof(double) * (size_t)m * n);
  if (m == 0 || n == 0)
    return 0;
  int k = m < n ? m : n, info = 0, lwork = -1;
  double *s = malloc(sizeof(double) * (size_t)k);
  double *U = malloc(sizeof(double) * (size_t)m * k);
  double *VT = malloc(sizeof(double) * (size_t)k * n);
  double wq;
  dgesvd_("S", "S", &m, &n, A, &m, s, U, &m, VT, &k, &wq, &lwork, &info, 1, 1);
  lwork = (int)wq + 1;
  double *work = malloc(sizeof(double) * (size_t)lwork);
  dgesvd_("S", "S", &m, &n, A, &m, s, U, &m, VT, &k, work, &lwork, &info, 1, 1);
  if (info == 0) {
    for (int l = 0; l < k; l++) {
      if (!(s[l] > 1e-11 * s[0]))
        continue;
      double inv = 1.0 / s[l];
      /* P += v_l u_l^T / s_l */
      for (int c = 0; c < m; c++) {
        double uc = U[(size_t)l * m + c] * inv;
        for (int r = 0; r < n; r++)
          P[(size_t)c * n + r] += VT[(size_t)r * k + l] * uc;
      }
    }
  }
  free(s);
  free(U);
  free(VT);
  free(work);
  return info == 0 ? 0 : -1;
}

/* ---- the engine ------------------------------------------------------------ */
/* Where the factors of the Schur complements SP = J A^-1 J^T and S = J
 * M^-1 J^T can be nonzero: the entries of rows that share a body
 * (m->spair) and the fill-in of their elimination without row exchanges,
 * found once.  The solves by rows visit only these: row i's entries left
 * of the diagonal in the order j = 0 .. i-1 (lp, lj, their places in the
 * column-major n x n matrix lpos), right of it in the order j = n-1 .. i+1
 * (up, uj; places upos in an LU's U, cpos in a Cholesky factor's L^T).
 * Outside them a factor holds exact zeros.  The five-bar's factors are 60 %
 * zeros. */
typedef struct {
  int *lp, *lj, *lpos, *up, *uj, *upos, *cpos;
} tri_lists;

typedef struct {
  const lw_model *m;
  lw_data *d;
  lw_error *err;
  int nq, nc, n1, nx, p, no, ncols, ncoords, nqb;
  int nz;    /* controllers' integrals z (m->nfbs), after [q qd qdd lambda] in x */
  int nxs;   /* 3 nq + nc: the mechanical part of x */
  long N;
  lw_tangent **tg;
  const int *obj;
  double h, c2, c4;
  double *M, *AP, *KM, *FP, *FV, *FA;
  int *ipP, *ipM;
  double *dP, *dM; /* (n1) reciprocals of the pivots of the LUs of AP and KM */
  double sP, sM; /* scales of the constraint rows in AP and KM */
  /* the step's linearization in structured form (lw_lin_blocks): the
   * position matrix A = c4 M + K + C' + H(lambda) (AP = [A J^T; J 0]), the
   * Hessian terms H(sigma), H(kappa) of the velocity and acceleration
   * problems, the damping C = -dQ/dv; the rate matrices by rows */
  lw_bmat Ab, Hv, Ha, Cb;
  int undamped; /* the model's C is zero: no products with it */
  double *RV, *RA, *RAd;
  /* AP solved through the bodies' blocks of A and the Schur complement
   * SP = J A^-1 J^T (no coupling between bodies in A, well-conditioned mass
   * blocks), else by the LU of AP */
  int ap_struct;
  double *Ainv, *WP, *SP; /* (nb x nqb x nqb) inverses of A's blocks; (nc x 2 nqb) A^-1 J^T by rows;
                             (nc x nc) LU */
  double *SPd;             /* (nc) reciprocals of the LU's pivots */
  int *ipS;
  double *apt; /* (nq) scratch of ap_solve */
  int km_schur;  /* KM solved through S = J M^-1 J^T (d->S, d->W) instead of its LU */
  tri_lists tri;     /* where SP's LU and S's Cholesky factor can be nonzero (forward by rows) */
  int sp_swapped;    /* SP's LU exchanged rows this step: its zeros are elsewhere */
  double *kxm;   /* (nq) scratch of km_solve */
  int *alist, nact; /* the parameters whose step columns are nonzero at this step, in order */
  /* forward: the columns carried (live), in the order they became live.
   * A parameter's column is exactly zero until its step columns or the
   * initial state first depend on it (a spline value late in the run):
   * until then it is not carried.  col[j]: its place among the nl live
   * columns, or -1; live[c]: the parameter in place c */
  int *col, *live, nl;
  double *plo, *phi; /* (p) outside [plo, phi] a parameter's step columns are 0 */
  int *plist, nplain; /* the parameters that are not a time function's coefficient */
  /* the time functions' coefficients by time: bucket b of nbkt over [bk_t0,
   * bk_t0 + nbkt / bk_scale) lists (bk_ptr, bk_idx, ascending) those whose
   * [plo, phi] meets it, so that a step visits only the few near its time */
  int nbkt, *bk_ptr, *bk_idx;
  double bk_t0, bk_scale;
  int term_tg; /* some parameter changes an objective's term (weight, target) */
  /* the adjoint's stored states carry the step's constraint Jacobian and
   * the Cholesky factor of S = J M^-1 J^T (its lower triangle): the
   * backward pass linearizes each step without evaluating the rows and
   * factorizing S again, for 2 nc (nqb + (nc + 1) / 4) more doubles a state;
   * aux = 2 (the forward on two threads): W = M^-1 J^T as well */
  int aux;
  int forward_rows; /* the forward's Schur solves by rows go by tri (set up for them) */
  double *qds, *qdds, *sig, *kap, *dQ, *dJ[3], *dphi, *dvel, *dacc, *e, *e2, *rhs;
  /* outputs: OUT_EVERY (an integral term reads it, or all outputs are
   * kept) and OUT_FINAL (a final term reads it) */
  char *out_used;
  char *y_const; /* rows of Y filled once: point outputs are linear in the state */
  /* Y's nonzeros by columns (ynz_p, ynz: x ascending) and the x they reach
   * (yx, nyx ascending), for Y^T g while no used output's Y changes from
   * state to state (y_varies): found again after Y is written (y_dirty) */
  int *ynz_p, *ynz, *yx, nyx, y_dirty, y_varies;
  double *Y, *YT, *yrow, *dy;
  double *gy, *gth; /* (no x ncols), (no x p) at the current state */
  double *value, *grad;
  int dense_outputs; /* every output linearized (output table) */
  /* integral action: the carry c_i = z_i + h/2 e_i(state a) enters the step
   * to state b; Rc (nq x nz) = dR_P/dc; the errors' gradients at a and b
   * (nz x nq each, q and qd) and parameter partials (nz x p) */
  double *Rc, *eqa, *eqda, *eqb, *eqdb, *pea, *peb;
  double fb_ta, fb_tb; /* the times of the states eqa.. and eqb.. belong to */
} sens;

/* a stored state: t0, nstep, t, q, qd, qdd, lambda, unwrapped coordinates,
 * the controllers' integrals z and the carry c that entered the step to it,
 * and the multipliers of the step's exact projections (a flag, sigma, kappa) */
static size_t aux_len(const sens *s)
{
  size_t w = (size_t)s->nc * 2 * s->nqb;
  return s->aux ? w + (size_t)s->nc * (s->nc + 1) / 2 + (s->aux > 1 ? w : 0) : 0;
}

static size_t state_len(const sens *s)
{
  return 4 + 3 * (size_t)s->nq + 3 * (size_t)s->nc + (size_t)s->ncoords + 2 * (size_t)s->nz + aux_len(s);
}

static void state_save_d(const sens *s, const lw_data *d, double *st)
{
  int nq = s->nq;
  st[0] = d->t0;
  st[1] = (double)d->nstep;
  st[2] = d->t;
  memcpy(st + 3, d->q, sizeof(double) * (size_t)nq);
  memcpy(st + 3 + nq, d->qd, sizeof(double) * (size_t)nq);
  memcpy(st + 3 + 2 * nq, d->qdd, sizeof(double) * (size_t)nq);
  memcpy(st + 3 + 3 * nq, d->lambda, sizeof(double) * (size_t)s->nc);
  memcpy(st + 3 + 3 * nq + s->nc, d->coord_prev, sizeof(double) * (size_t)s->ncoords);
  double *z = st + 3 + 3 * nq + s->nc + s->ncoords;
  memcpy(z, d->fbz, sizeof(double) * (size_t)s->nz);
  memcpy(z + s->nz, d->fbcs, sizeof(double) * (size_t)s->nz);
  double *mu = z + 2 * s->nz;
  mu[0] = d->schur_ok;
  memcpy(mu + 1, d->sig, sizeof(double) * (size_t)s->nc);
  memcpy(mu + 1 + s->nc, d->kap, sizeof(double) * (size_t)s->nc);
  if (s->aux) {
    int nc = s->nc;
    double *jac = mu + 1 + 2 * nc, *L = jac + (size_t)nc * 2 * s->nqb;
    memcpy(jac, d->jac, sizeof(double) * (size_t)nc * 2 * s->nqb);
    for (int j = 0; j < nc && d->schur_ok; j++, L += nc - j + 1)
      memcpy(L, d->S + (size_t)j * nc + j, sizeof(double) * (size_t)(nc - j));
    if (s->aux > 1 && d->schur_ok)
      memcpy(jac + (size_t)nc * 2 * s->nqb + (size_t)nc * (nc + 1) / 2, d->W, sizeof(double) * (size_t)nc * 2 * s->nqb);
  }
}

static void state_save(const sens *s, double *st)
{
  state_save_d(s, s->d, st);
}

/* the Jacobian kept with state st into d->jac; with S, also the factor of
 * S (valid when the step found it: the flag of ST_MULT) and W */
static void aux_load(const sens *s, const double *st, int with_s);

static void state_load(const sens *s, const double *st)
{
  lw_data *d = s->d;
  int nq = s->nq;
  d->t0 = st[0];
  d->nstep = (long)st[1];
  d->t = st[2];
  memcpy(d->q, st + 3, sizeof(double) * (size_t)nq);
  memcpy(d->qd, st + 3 + nq, sizeof(double) * (size_t)nq);
  memcpy(d->qdd, st + 3 + 2 * nq, sizeof(double) * (size_t)nq);
  memcpy(d->lambda, st + 3 + 3 * nq, sizeof(double) * (size_t)s->nc);
  memcpy(d->coord_prev, st + 3 + 3 * nq + s->nc, sizeof(double) * (size_t)s->ncoords);
  const double *z = st + 3 + 3 * nq + s->nc + s->ncoords;
  memcpy(d->fbz, z, sizeof(double) * (size_t)s->nz);
  memcpy(d->fbc, z, sizeof(double) * (size_t)s->nz);
  memcpy(d->fbcs, z + s->nz, sizeof(double) * (size_t)s->nz);
  d->fb_beta = 0.0;
}

#define ST_T(st) ((st)[2])
#define ST_Q(s, st) ((st) + 3)
#define ST_QD(s, st) ((st) + 3 + (s)->nq)
#define ST_QDD(s, st) ((st) + 3 + 2 * (s)->nq)
#define ST_L(s, st) ((st) + 3 + 3 * (s)->nq)
#define ST_C(s, st) ((st) + 3 + 3 * (s)->nq + (s)->nc)
#define ST_Z(s, st) ((st) + 3 + 3 * (s)->nq + (s)->nc + (s)->ncoords)
#define ST_CARRY(s, st) (ST_Z(s, st) + (s)->nz)
#define ST_MULT(s, st) (ST_CARRY(s, st) + (s)->nz) /* flag, sigma, kappa */
#define ST_AUX(s, st) (ST_MULT(s, st) + 1 + 2 * (s)->nc) /* jac, the lower triangle of chol(S) by columns */

static void aux_load(const sens *s, const double *st, int with_s)
{
  lw_data *d = s->d;
  int nc = s->nc;
  const double *jac = ST_AUX(s, st), *L = jac + (size_t)nc * 2 * s->nqb;
  memcpy(d->jac, jac, sizeof(double) * (size_t)nc * 2 * s->nqb);
  if (!with_s)
    return;
  for (int j = 0; j < nc; j++, L += nc - j + 1)
    memcpy(d->S + (size_t)j * nc + j, L, sizeof(double) * (size_t)(nc - j));
  if (s->aux > 1)
    memcpy(d->W, L, sizeof(double) * (size_t)nc * 2 * s->nqb);
  else
    lw_schur_w(s->m, d);
}

/* sc J into the constraint rows and sc J^T into the multiplier columns of
 * the n1 x n1 matrix K (J at the rows evaluated in d) */
static void kkt_add_jac(const sens *s, double *K, double sc)
{
  int nq = s->nq, n1 = s->n1, nqb = s->nqb, w = 2 * nqb;
  const lw_model *m = s->m;
  for (int r = 0; r < s->nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0; k < row->nblk; k++)
      for (int i = 0; i < nqb; i++) {
        int col = row->blk[k] * nqb + i;
        double g = s->d->jac[(size_t)r * w + k * nqb + i];
        K[(size_t)col * n1 + nq + r] += sc * g;   /* J */
        K[(size_t)(nq + r) * n1 + col] += sc * g; /* J^T */
      }
  }
}

/* K = [M J^T; J 0] at the rows evaluated in d */
static void build_km(sens *s, double *K)
{
  int nq = s->nq, n1 = s->n1;
  memset(K, 0, sizeof(double) * (size_t)n1 * n1);
  for (int j = 0; j < nq; j++)
    memcpy(K + (size_t)j * n1, s->M + (size_t)j * nq, sizeof(double) * (size_t)nq);
  kkt_add_jac(s, K, s->sM);
}

/* [M J^T; J 0] [x; y] = [f; g] for one side b (n1), in place: by its LU,
 * or, for dense models whose mass blocks are well conditioned, through the
 * Schur complement S = J M^-1 J^T that the step uses for its projections
 * (a few hundred operations instead of an LU of order nq + nc):
 *   y = S^-1 (W^T f - g),  x = M^-1 f - W y,  W = M^-1 J^T.
 * The matrix is symmetric: the same solve serves its transpose.  The
 * forward sensitivities' sides go by rows, together (km_solve_rows). */
static void km_solve(sens *s, double *b)
{
  if (!s->km_schur) {
    kkt_solve(s->KM, s->n1, s->nq, s->sM, s->ipM, 0, b, 1);
    return;
  }
  const lw_model *m = s->m;
  const lw_data *d = s->d;
  double *f = b, *g = b + s->nq, *x = s->kxm;
  for (int r = 0; r < s->nc; r++)
    g[r] = -g[r];
  lw_minv_mul(m, f, x);
  lw_rowmat_mul(m, d->W, f, g); /* W^T f - g */
  lw_chol_dense_solve(d->S, s->nc, g);
  lw_schur_update(m, d, x, g); /* M^-1 f - W y */
  memcpy(f, x, sizeof(double) * (size_t)s->nq);
}

static void unit(double *e, int n, int j)
{
  memset(e, 0, sizeof(double) * (size_t)n);
  e[j] = 1.0;
}

/* the controllers' errors e_i at state st: gradients eq, eqd (nz x nq) and
 * parameter partials pe (nz x p) */
static void fb_grads(sens *s, const double *st, double *eq, double *eqd, double *pe)
{
  const lw_model *m = s->m;
  int nq = s->nq, nqb = s->nqb;
  lw_lin_point pt = {ST_Q(s, st), ST_QD(s, st), ST_QD(s, st), ST_QDD(s, st), {NULL, NULL, NULL}, ST_T(st)};
  memset(eq, 0, sizeof(double) * (size_t)s->nz * nq);
  memset(eqd, 0, sizeof(double) * (size_t)s->nz * nq);
  for (int i = 0; i < s->nz; i++) {
    const lw_fb *b = &m->fbs[i];
    const lw_coord *c = &m->coords[b->coord];
    double de;
    for (int pass = 0; pass < (b->rate ? 2 : 1); pass++)
      for (int k = 0; k < c->nblk; k++)
        for (int l = 0; l < nqb; l++) {
          int g = c->blk[k] * nqb + l;
          unit(s->e, nq, g);
          lw_lin_dir dir = {pass ? NULL : s->e, NULL, pass ? s->e : NULL, NULL, NULL, NULL, c->blk[k]};
          lw_fb_error_jvp(m, s->d, NULL, i, &pt, &dir, &de);
          (pass ? eqd : eq)[(size_t)i * nq + g] = de;
        }
    for (int j = 0; j < s->p; j++) {
      const lw_tangent *tg = s->tg[j];
      de = 0.0;
      if (tg && tg->any && tg->force_on[b->force]) {
        lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
        lw_fb_error_jvp(m, s->d, tg, i, &pt, &dir, &de);
      }
      pe[(size_t)i * s->p + j] = de;
    }
  }
}

/* AP = [A J^T; J 0] (constraint rows and columns scaled by sP) and its LU */
static int ap_factor_dense(sens *s)
{
  const lw_model *m = s->m;
  int nq = s->nq, n1 = s->n1, nqb = s->nqb;
  memset(s->AP, 0, sizeof(double) * (size_t)n1 * n1);
  for (int b = 0; b < m->nb; b++)
    for (int j = 0; j < nqb; j++)
      for (int i = 0; i < nqb; i++)
        s->AP[(size_t)(b * nqb + j) * n1 + b * nqb + i] = s->Ab.blk[((size_t)b * nqb + j) * nqb + i];
  if (s->Ab.off)
    for (int j = 0; j < nq; j++)
      for (int i = 0; i < nq; i++)
        s->AP[(size_t)j * n1 + i] += s->Ab.off[(size_t)j * nq + i];
  kkt_add_jac(s, s->AP, 1.0);
  kkt_scale(s->AP, n1, nq, s->sP);
  if (lw_lu_dense(s->AP, n1, s->ipP))
    return -1;
  lu_recip(s->AP, n1, s->dP);
  return 0;
}

/* y = A x (trans: A^T x) for an n x n block, column-major; written out for
 * the planar body (n = 4) so that it unrolls */
static inline void blk_mv_n(const double *restrict A, const double *restrict x, double *restrict y, int trans,
                            const int n)
{
  if (!trans) {
    for (int i = 0; i < n; i++)
      y[i] = 0.0;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        y[i] += A[j * n + i] * x[j];
  } else {
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int i = 0; i < n; i++)
        s += A[j * n + i] * x[i];
      y[j] = s;
    }
  }
}

static void blk_mv(const double *A, int n, const double *x, double *y, int trans)
{
  if (n == 4)
    blk_mv_n(A, x, y, trans, 4);
  else
    blk_mv_n(A, x, y, trans, n);
}

/* LU solve (lw_lu_dense's factors, pivots' reciprocals d) for nrhs sides
 * stored by rows, Y[i * ld + c]: the sides' operations interleave */
LW_KERNEL void lu_solve_rows_n(const double *A, int n, const int *ipiv, const double *d, int trans, double *Y,
                               int ld, const int nrhs)
{
  if (!trans) {
    for (int k = 0; k < n; k++)
      if (ipiv[k] != k)
        for (int c = 0; c < nrhs; c++) {
          double t = Y[(size_t)k * ld + c];
          Y[(size_t)k * ld + c] = Y[(size_t)ipiv[k] * ld + c];
          Y[(size_t)ipiv[k] * ld + c] = t;
        }
    if (nrhs > LW_ROWVEC_MAX) {
      for (int j = 0; j < n; j++) { /* L, unit lower */
        const double *cj = A + (size_t)j * n, *restrict yj = Y + (size_t)j * ld;
        for (int i = j + 1; i < n; i++) {
          double l = cj[i];
          double *restrict yi = Y + (size_t)i * ld;
          for (int c = 0; c < nrhs; c++)
            yi[c] -= l * yj[c];
        }
      }
      for (int j = n - 1; j >= 0; j--) { /* U */
        const double *cj = A + (size_t)j * n;
        double *restrict yj = Y + (size_t)j * ld;
        for (int c = 0; c < nrhs; c++)
          yj[c] *= d[j];
        for (int i = 0; i < j; i++) {
          double u = cj[i];
          double *restrict yi = Y + (size_t)i * ld;
          for (int c = 0; c < nrhs; c++)
            yi[c] -= u * yj[c];
        }
      }
      return;
    }
    /* a few sides: by rows, each held in registers while the rows found
     * before it are taken off (the same operations, in the same order, as
     * the column sweeps above) */
    lw_rowvec r;
    for (int i = 1; i < n; i++) { /* L, unit lower */
      lw_rv_load(&r, Y + (size_t)i * ld, nrhs);
      for (int j = 0; j < i; j++)
        lw_rv_axmy(&r, A[(size_t)j * n + i], Y + (size_t)j * ld, nrhs);
      lw_rv_store(&r, Y + (size_t)i * ld, nrhs);
    }
    for (int i = n - 1; i >= 0; i--) { /* U */
      lw_rv_load(&r, Y + (size_t)i * ld, nrhs);
      for (int j = n - 1; j > i; j--)
        lw_rv_axmy(&r, A[(size_t)j * n + i], Y + (size_t)j * ld, nrhs);
      lw_rv_scale(&r, d[i], nrhs);
      lw_rv_store(&r, Y + (size_t)i * ld, nrhs);
    }
    return;
  }
  for (int j = 0; j < n; j++) { /* U^T */
    const double *cj = A + (size_t)j * n;
    double *restrict yj = Y + (size_t)j * ld;
    for (int i = 0; i < j; i++) {
      double u = cj[i];
      const double *restrict yi = Y + (size_t)i * ld;
      for (int c = 0; c < nrhs; c++)
        yj[c] -= u * yi[c];
    }
    for (int c = 0; c < nrhs; c++)
      yj[c] *= d[j];
  }
  for (int j = n - 1; j >= 0; j--) { /* L^T */
    const double *cj = A + (size_t)j * n;
    double *restrict yj = Y + (size_t)j * ld;
    for (int i = j + 1; i < n; i++) {
      double l = cj[i];
      const double *restrict yi = Y + (size_t)i * ld;
      for (int c = 0; c < nrhs; c++)
        yj[c] -= l * yi[c];
    }
  }
  for (int k = n - 1; k >= 0; k--)
    if (ipiv[k] != k)
      for (int c = 0; c < nrhs; c++) {
        double t = Y[(size_t)k * ld + c];
        Y[(size_t)k * ld + c] = Y[(size_t)ipiv[k] * ld + c];
        Y[(size_t)ipiv[k] * ld + c] = t;
      }
}

LW_CLONES static void lu_solve_rows(const double *A, int n, const int *ipiv, const double *d, int trans, double *Y,
                                    int nrhs)
{
  int c0;
#define CALL(P) lu_solve_rows_n(A, n, ipiv, d, trans, Y + c0, nrhs, P)
  LW_FEW_CHUNKS(nrhs, c0, CALL);
#undef CALL
}

/* y = A x for a body's nqb x nqb block (column-major), a column of A at a
 * time in vectors (nqb a multiple of 4: the planar and the spatial body) */
LW_KERNEL void blk_mv_v(const double *restrict A, const double *restrict x, double *restrict y, const int nqb)
{
  if (nqb % 4) {
    blk_mv_n(A, x, y, 0, nqb);
    return;
  }
  lw_v4d acc[LW_MAXQB / 4];
  for (int v = 0; v < nqb / 4; v++)
    acc[v] = (lw_v4d){0, 0, 0, 0};
  for (int j = 0; j < nqb; j++) {
    lw_v4d xj = {x[j], x[j], x[j], x[j]};
    for (int v = 0; v < nqb / 4; v++)
      acc[v] += lw_v4d_load(A + j * nqb + 4 * v) * xj;
  }
  for (int v = 0; v < nqb / 4; v++)
    lw_v4d_store(y + 4 * v, acc[v]);
}

/* a . b over a body's nqb coordinates, summed in their order */
LW_KERNEL double blk_dot(const double *restrict a, const double *restrict b, const int nqb)
{
  double s = 0;
  if (nqb % 4) {
    for (int i = 0; i < nqb; i++)
      s += a[i] * b[i];
    return s;
  }
  for (int v = 0; v < nqb / 4; v++) {
    lw_v4d t = lw_v4d_load(a + 4 * v) * lw_v4d_load(b + 4 * v);
    s += t[0];
    s += t[1];
    s += t[2];
    s += t[3];
  }
  return s;
}

/* the inverses of the bodies' blocks of A, WP = A^-1 J^T by rows and
 * blocks, and SP = J A^-1 J^T: SP(r, c) = g_r . A^-1 g_c and SP(c, r) =
 * g_c . A^-1 g_r over the pairs of rows r <= c that share a body
 * (m->spair) */
LW_KERNEL int ap_assemble_n(sens *s, const int nqb)
{
  const lw_model *m = s->m;
  const double *jac = s->d->jac;
  double *WP = s->WP;
  int nc = s->nc, w = 2 * nqb, bb = nqb * nqb;
  for (int b = 0; b < m->nb; b++)
    if (lw_inv_small(s->Ab.blk + (size_t)b * bb, nqb, s->Ainv + (size_t)b * bb))
      return -1;
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0; k < row->nblk; k++)
      blk_mv_v(s->Ainv + (size_t)row->blk[k] * bb, jac + (size_t)r * w + k * nqb, WP + (size_t)r * w + k * nqb,
               nqb);
  }
  memset(s->SP, 0, sizeof(double) * (size_t)nc * nc);
  for (int k = 0; k < m->nspair; k++) {
    const int *p = m->spair + 4 * k;
    s->SP[p[3]] += blk_dot(jac + p[1], WP + p[2], nqb);
    if (p[3] != p[0])
      s->SP[p[0]] += blk_dot(jac + p[2], WP + p[1], nqb);
  }
  return 0;
}

LW_CLONES static int ap_assemble(sens *s)
{
#define CALL(N) return ap_assemble_n(s, N)
  LW_FOR_NQB(s->nqb, CALL);
#undef CALL
}

/* AP's blocks inverted, and the LU of SP = J A^-1 J^T (not symmetric: A
 * holds the forces' derivatives) */
static int ap_factor(sens *s)
{
  if (ap_assemble(s) || lw_lu_dense(s->SP, s->nc, s->ipS))
    return -1;
  s->sp_swapped = 0;
  for (int k = 0; k < s->nc; k++)
    s->sp_swapped |= s->ipS[k] != k;
  lu_recip(s->SP, s->nc, s->SPd);
  return 0;
}

/* x = A^-T x with the inverses of A's blocks */
static void a_solve_t(const sens *s, double *x)
{
  int nqb = s->nqb, bb = nqb * nqb;
  double t[LW_MAXQB];
  for (int b = 0; b < s->m->nb; b++) {
    double *xb = x + (size_t)b * nqb;
    blk_mv(s->Ainv + (size_t)b * bb, nqb, xb, t, 1);
    memcpy(xb, t, sizeof(double) * (size_t)nqb);
  }
}

/* AP^T [x; y] = [f; g] for one side b (n1), in place (the adjoint's
 * position problem; the forward sensitivities' sides go by rows,
 * ap_solve_rows):  y = SP^-T (J A^-T f - g),  x = A^-T (f - J^T y) */
static void ap_solve_t(sens *s, double *b)
{
  if (!s->ap_struct) {
    kkt_solve(s->AP, s->n1, s->nq, s->sP, s->ipP, 1, b, 1);
    return;
  }
  const lw_model *m = s->m;
  int nq = s->nq;
  double *f = b, *g = b + nq, *t = s->apt;
  a_solve_t(s, f);
  for (int r = 0; r < s->nc; r++)
    g[r] = -g[r];
  lw_rowmat_mul(m, s->d->jac, f, g);
  lu_solve_rows(s->SP, s->nc, s->ipS, s->SPd, 1, g, 1);
  /* f holds A^-T f: A^-T (f - J^T y) = A^-T f - A^-T J^T y */
  memset(t, 0, sizeof(double) * (size_t)nq);
  lw_rowmat_mul_t(m, s->d->jac, -1.0, g, t);
  a_solve_t(s, t);
  for (int i = 0; i < nq; i++)
    f[i] += t[i];
}

/* ---- the factors' nonzeros -------------------------------------------- */
static void tri_free(tri_lists *t)
{
  free(t->lp);
  free(t->lj);
  free(t->lpos);
  free(t->up);
  free(t->uj);
  free(t->upos);
  free(t->cpos);
}

static int tri_init(tri_lists *t, const lw_model *m)
{
  int n = m->nc;
  size_t half = (size_t)n * (n - 1) / 2 + 1;
  char *nz = calloc((size_t)n * n + 1, 1);
  t->lp = calloc((size_t)n + 1, sizeof(int));
  t->up = calloc((size_t)n + 1, sizeof(int));
  t->lj = calloc(half, sizeof(int));
  t->uj = calloc(half, sizeof(int));
  t->lpos = calloc(half, sizeof(int));
  t->upos = calloc(half, sizeof(int));
  t->cpos = calloc(half, sizeof(int));
  if (!nz || !t->lp || !t->up || !t->lj || !t->uj || !t->lpos || !t->upos || !t->cpos) {
    free(nz);
    return -1;
  }
  for (int k = 0; k < m->nspair; k++) {
    nz[m->spair[4 * k]] = 1;
    nz[m->spair[4 * k + 3]] = 1;
  }
  for (int k = 0; k < n; k++) /* fill-in: (i, j) from (i, k) and (k, j) */
    for (int j = k + 1; j < n; j++)
      if (nz[(size_t)j * n + k])
        for (int i = k + 1; i < n; i++)
          if (nz[(size_t)k * n + i])
            nz[(size_t)j * n + i] = 1;
  int kl = 0, ku = 0;
  for (int i = 0; i < n; i++) {
    t->lp[i] = kl;
    for (int j = 0; j < i; j++)
      if (nz[(size_t)j * n + i]) {
        t->lj[kl] = j;
        t->lpos[kl++] = j * n + i;
      }
    t->up[i] = ku;
    for (int j = n - 1; j > i; j--)
      if (nz[(size_t)j * n + i] || nz[(size_t)i * n + j]) {
        t->uj[ku] = j;
        t->upos[ku] = j * n + i;
        t->cpos[ku++] = i * n + j;
      }
  }
  t->lp[n] = kl;
  t->up[n] = ku;
  free(nz);
  return 0;
}

/* the two triangular solves of a factor A (n x n) for nrhs (a few) sides
 * by rows (ld apart), over the entries the lists name, with the
 * operations of the dense loops in their order: lw_lu_dense's LU (ipiv;
 * U's places upos; rows scaled by d, the pivots' reciprocals) or
 * lw_chol_dense's factor (d NULL: no exchanges, L^T's places cpos, rows
 * scaled by the diagonal after each solve) */
LW_KERNEL void tri_solve_rows_n(const tri_lists *t, const double *A, int n, const int *ipiv, const double *d,
                                double *Y, int ld, const int nrhs)
{
  int chol = d == NULL;
  const int *up = chol ? t->cpos : t->upos;
  if (ipiv)
    for (int k = 0; k < n; k++)
      if (ipiv[k] != k)
        for (int c = 0; c < nrhs; c++) {
          double x = Y[(size_t)k * ld + c];
          Y[(size_t)k * ld + c] = Y[(size_t)ipiv[k] * ld + c];
          Y[(size_t)ipiv[k] * ld + c] = x;
        }
  lw_rowvec r;
  for (int i = 0; i < n; i++) {
    int k0 = t->lp[i], k1 = t->lp[i + 1];
    if (k0 == k1 && !chol)
      continue;
    lw_rv_load(&r, Y + (size_t)i * ld, nrhs);
    for (int k = k0; k < k1; k++)
      lw_rv_axmy(&r, A[t->lpos[k]], Y + (size_t)t->lj[k] * ld, nrhs);
    if (chol)
      lw_rv_scale(&r, A[(size_t)i * n + i], nrhs);
    lw_rv_store(&r, Y + (size_t)i * ld, nrhs);
  }
  for (int i = n - 1; i >= 0; i--) {
    lw_rv_load(&r, Y + (size_t)i * ld, nrhs);
    for (int k = t->up[i]; k < t->up[i + 1]; k++)
      lw_rv_axmy(&r, A[up[k]], Y + (size_t)t->uj[k] * ld, nrhs);
    lw_rv_scale(&r, chol ? A[(size_t)i * n + i] : d[i], nrhs);
    lw_rv_store(&r, Y + (size_t)i * ld, nrhs);
  }
}

/* for at most 4 LW_FEW_CHUNK sides (wider blocks go by the dense sweeps) */
LW_CLONES static void tri_solve_rows(const tri_lists *t, const double *A, int n, const int *ipiv, const double *d,
                                     double *Y, int nrhs)
{
  int c0;
#define CALL(P) tri_solve_rows_n(t, A, n, ipiv, d, Y + c0, nrhs, P)
  LW_FEW_CHUNKS(nrhs, c0, CALL);
#undef CALL
}

/* ---- the forward sensitivities by rows ---------------------------------
 * The p columns of the forward sensitivities go through each step's
 * operators together, stored by rows (X[i p + c]): an entry of an operator
 * is loaded once for all the columns, and the loop over the columns, the
 * inner one, runs without index arithmetic of its own. */

/* The columns go in chunks of LW_ROWS_CHUNK, then what is left: a chunk of
 * a constant width keeps a row's sums in registers (for a few columns,
 * LW_FOR_FEW makes the width of the one chunk a constant too). */
#define LW_ROWS_CHUNK LW_FEW_CHUNK
_Static_assert(LW_ROWS_CHUNK <= LW_ROWVEC_MAX, "a chunk of columns is one lw_rowvec");
#define LW_ROWS_CHUNKS(p, chunk)                                                                                     \
  do {                                                                                                             \
    int c0_ = 0;                                                                                                   \
    for (; c0_ + LW_ROWS_CHUNK <= (p); c0_ += LW_ROWS_CHUNK)                                                      \
      chunk(c0_, LW_ROWS_CHUNK);                                                                                   \
    if (c0_ < (p))                                                                                                 \
      chunk(c0_, (p) - c0_);                                                                                       \
  } while (0)

/* CALL(P) (a macro of the caller's) with NQB, the body's size, and P, the
 * number of columns p, constants as far as LW_FOR_NQB and LW_FOR_FEW make
 * them */
#define LW_NQB_FEW_(N)                                                                                             \
  {                                                                                                                \
    const int NQB = (N);                                                                                           \
    LW_FOR_FEW(p, CALL)                                                                                            \
  }
#define LW_FOR_NQB_FEW(nqb) LW_FOR_NQB(nqb, LW_NQB_FEW_)

/* columns c0 .. c0 + n of row i of body b: Y += alpha (A + cb B) X */
LW_KERNEL void blocks_chunk(const int nqb, const double *Ab, const double *Bb, double cb, double alpha,
                            const double *restrict Xb, double *restrict yi, int i, int p, int c0, const int n)
{
  lw_rowvec acc;
  lw_rv_zero(&acc);
  for (int j = 0; j < nqb; j++) {
    double a = Bb ? alpha * (Ab[j * nqb + i] + cb * Bb[j * nqb + i]) : alpha * Ab[j * nqb + i];
    if (a == 0.0)
      continue; /* the blocks of point masses and of most derivatives are sparse */
    lw_rv_axpy(&acc, a, Xb + (size_t)j * p + c0, n);
  }
  lw_rv_add_to(&acc, 1.0, yi + c0, n);
}

/* Y += alpha (A + cb B) X, A and B block-diagonal (the bodies' nqb x nqb
 * blocks; B NULL: A alone) */
LW_KERNEL void blocks_rows_n(const lw_model *m, const int nqb, const double *A, const double *B, double cb,
                             double alpha, const double *restrict X, double *restrict Y, const int p)
{
  int bb = nqb * nqb;
  for (int b = 0; b < m->nb; b++) {
    const double *Ab = A + (size_t)b * bb, *Bb = B ? B + (size_t)b * bb : NULL;
    const double *Xb = X + (size_t)b * nqb * p;
    for (int i = 0; i < nqb; i++) {
      double *yi = Y + ((size_t)b * nqb + i) * p;
#define CHUNK(c0, n) blocks_chunk(nqb, Ab, Bb, cb, alpha, Xb, yi, i, p, c0, n)
      LW_ROWS_CHUNKS(p, CHUNK);
#undef CHUNK
    }
  }
}

/* columns c0 .. c0 + n of row r: y += alpha R X, or with neg y = alpha R X
 * - y (g: the row's entries, q0 its two blocks' first coordinates, the
 * second -1 when it has one) */
LW_KERNEL void rowmat_chunk(const int nqb, const double *g, const int *q0, double alpha, const int neg,
                            const double *restrict X, double *restrict y, int p, int c0, const int n)
{
  lw_rowvec acc;
  lw_rv_zero(&acc);
  for (int k = 0; k < 2 && q0[k] >= 0; k++) {
    const double *restrict x = X + (size_t)q0[k] * p + c0;
    for (int i = 0; i < nqb; i++)
      if (g[k * nqb + i] != 0.0) /* the rows of natural coordinates are mostly zeros */
        lw_rv_axpy(&acc, g[k * nqb + i], x + (size_t)i * p, n);
  }
  if (neg)
    lw_rv_add_to_neg(&acc, alpha, y + c0, n);
  else
    lw_rv_add_to(&acc, alpha, y + c0, n);
}

/* Y (nc rows) += alpha R X (neg: Y = alpha R X - Y), R by rows like d->jac */
LW_KERNEL void rowmat_rows_n(const lw_model *m, const int nqb, const double *R, double alpha, const int neg,
                             const double *restrict X, double *restrict Y, const int p)
{
  for (int r = 0; r < m->nc; r++) {
    const double *g = R + (size_t)r * 2 * nqb;
    const int *q0 = m->rq0 + 2 * r;
    double *y = Y + (size_t)r * p;
#define CHUNK(c0, n) rowmat_chunk(nqb, g, q0, alpha, neg, X, y, p, c0, n)
    LW_ROWS_CHUNKS(p, CHUNK);
#undef CHUNK
  }
}

/* columns c0 .. c0 + n of row r: X += alpha R^T y */
LW_KERNEL void rowmat_t_chunk(const int nqb, const double *g, const int *q0, double alpha,
                              const double *restrict y, double *restrict X, int p, int c0, const int n)
{
  lw_rowvec yr;
  lw_rv_load(&yr, y + c0, n);
  lw_rv_scale(&yr, alpha, n);
  for (int k = 0; k < 2 && q0[k] >= 0; k++) {
    double *restrict x = X + (size_t)q0[k] * p + c0;
    for (int i = 0; i < nqb; i++)
      lw_rv_add_to(&yr, g[k * nqb + i], x + (size_t)i * p, n);
  }
}

/* X (nq rows) += alpha R^T Y */
LW_KERNEL void rowmat_t_rows_n(const lw_model *m, const int nqb, const double *R, double alpha,
                               const double *restrict Y, double *restrict X, const int p)
{
  for (int r = 0; r < m->nc; r++) {
    const double *g = R + (size_t)r * 2 * nqb, *y = Y + (size_t)r * p;
    const int *q0 = m->rq0 + 2 * r;
#define CHUNK(c0, n) rowmat_t_chunk(nqb, g, q0, alpha, y, X, p, c0, n)
    LW_ROWS_CHUNKS(p, CHUNK);
#undef CHUNK
  }
}

LW_CLONES static void blocks_rows(const lw_model *m, const double *A, const double *B, double cb, double alpha,
                                  const double *X, double *Y, int p)
{
  if (B) {
#define CALL(P) blocks_rows_n(m, NQB, A, B, cb, alpha, X, Y, P)
    LW_FOR_NQB_FEW(m->nqb);
#undef CALL
  } else { /* a literal NULL: the sums of A + cb B are left out of the code */
#define CALL(P) blocks_rows_n(m, NQB, A, NULL, 0.0, alpha, X, Y, P)
    LW_FOR_NQB_FEW(m->nqb);
#undef CALL
  }
}

/* Y += alpha (B - cm M) X for a matrix of blocks B and its entries between
 * bodies */
static void bmat_rows(const lw_model *m, const lw_bmat *B, double cm, double alpha, const double *X, double *Y, int p)
{
  blocks_rows(m, B->blk, cm != 0.0 ? m->mass_blocks : NULL, -cm, alpha, X, Y, p);
  if (!B->off)
    return;
  int nq = m->nq;
  for (int j = 0; j < nq; j++)
    for (int i = 0; i < nq; i++) {
      double a = alpha * B->off[(size_t)j * nq + i];
      if (a == 0.0)
        continue;
      for (int c = 0; c < p; c++)
        Y[(size_t)i * p + c] += a * X[(size_t)j * p + c];
    }
}

/* Y += alpha R X, or with neg Y = alpha R X - Y */
LW_CLONES static void rowmat_rows(const lw_model *m, const double *R, double alpha, int neg, const double *X,
                                  double *Y, int p)
{
  if (neg) {
#define CALL(P) rowmat_rows_n(m, NQB, R, alpha, 1, X, Y, P)
    LW_FOR_NQB_FEW(m->nqb);
#undef CALL
  } else {
#define CALL(P) rowmat_rows_n(m, NQB, R, alpha, 0, X, Y, P)
    LW_FOR_NQB_FEW(m->nqb);
#undef CALL
  }
}

LW_CLONES static void rowmat_t_rows(const lw_model *m, const double *R, double alpha, const double *Y, double *X, int p)
{
#define CALL(P) rowmat_t_rows_n(m, NQB, R, alpha, Y, X, P)
  LW_FOR_NQB_FEW(m->nqb);
#undef CALL
}

/* a saddle-point matrix by its LU (kkt_solve; d its pivots' reciprocals)
 * for the p columns of B by rows */
static void kkt_solve_rows(sens *s, const double *K, double sc, const int *ipiv, const double *d, double *B, int p)
{
  size_t r0 = (size_t)s->nq * p, r1 = (size_t)s->n1 * p;
  for (size_t i = r0; i < r1; i++)
    B[i] *= sc;
  lu_solve_rows(K, s->n1, ipiv, d, 0, B, p);
  for (size_t i = r0; i < r1; i++)
    B[i] *= sc;
}

/* [B J^T; J 0] [x; y] = [f; g] (B block-diagonal, inverses Binv; W = B^-1
 * J^T by rows) for the p columns of F = [f; g] by rows: x into X (nq x p),
 * y in place of g; through the Schur complement J B^-1 J^T, by its LU
 * (SP; B not symmetric) or its Cholesky factor (d->S):
 *   y = (J B^-1 J^T)^-1 (J B^-1 f - g),  x = B^-1 f - W y */
static void schur_solve_rows(sens *s, const double *Binv, const double *W, int lu, double *B, double *X, int p)
{
  int nq = s->nq, nc = s->nc;
  double *F = B, *G = B + (size_t)nq * p;
  memset(X, 0, sizeof(double) * (size_t)nq * p);
  blocks_rows(s->m, Binv, NULL, 0.0, 1.0, F, X, p);  /* B^-1 f */
  rowmat_rows(s->m, s->d->jac, 1.0, 1, X, G, p); /* J B^-1 f - g */
  /* y: the multipliers' part of the solution */
  if (s->forward_rows && !lu)
    tri_solve_rows(&s->tri, s->d->S, nc, NULL, NULL, G, p);
  else if (s->forward_rows && !s->sp_swapped)
    tri_solve_rows(&s->tri, s->SP, nc, NULL, s->SPd, G, p);
  else if (lu)
    lu_solve_rows(s->SP, nc, s->ipS, s->SPd, 0, G, p);
  else
    lw_chol_dense_solve_multi(s->d->S, nc, G, p);
  rowmat_t_rows(s->m, W, -1.0, G, X, p); /* B^-1 f - W y */
}

/* AP [x; y] = [f; g] for the p columns of B (n1 x p) by rows: x into X,
 * y in place of g */
static void ap_solve_rows(sens *s, double *B, double *X, int p)
{
  if (s->ap_struct) {
    schur_solve_rows(s, s->Ainv, s->WP, 1, B, X, p);
  } else {
    kkt_solve_rows(s, s->AP, s->sP, s->ipP, s->dP, B, p);
    memcpy(X, B, sizeof(double) * (size_t)s->nq * p);
  }
}

/* [M J^T; J 0] [x; y] = [f; g] by rows (km_solve by rows): x into X */
static void km_solve_rows(sens *s, double *B, double *X, int p)
{
  if (s->km_schur) {
    schur_solve_rows(s, s->m->minv_blocks, s->d->W, 0, B, X, p);
  } else {
    kkt_solve_rows(s, s->KM, s->sM, s->ipM, s->dM, B, p);
    memcpy(X, B, sizeof(double) * (size_t)s->nq * p);
  }
}

/* every live column active, in the order of alist: row by row, the row's
 * entries taken from the p columns (a width LW_FOR_FEW writes out) */
static inline void scatter_rows_n(const double *const *f, double sign, double *restrict R, int n1, const int p)
{
  for (int i = 0; i < n1; i++)
    for (int c = 0; c < p; c++)
      R[(size_t)i * p + c] = sign * f[c][i];
}

/* R (n1 x p by rows, the live columns) = sign times the step's parameter
 * columns F (n1 each; zero where not active; every active one is live) */
static void scatter_cols(const sens *s, const double *F, double sign, double *R, int p)
{
  int n1 = s->n1;
  const double *f[LW_FEW_CHUNK];
  int rows = s->nact == p && p <= LW_FEW_CHUNK;
  for (int a = 0; rows && a < p; a++) {
    rows = s->col[s->alist[a]] == a;
    f[a] = F + (size_t)s->alist[a] * n1;
  }
  if (rows) {
#define CALL(P) scatter_rows_n(f, sign, R, n1, P)
    LW_FOR_FEW(p, CALL)
#undef CALL
    return;
  }
  memset(R, 0, sizeof(double) * (size_t)n1 * p);
  for (int a = 0; a < s->nact; a++) {
    int j = s->alist[a];
    const double *fj = F + (size_t)j * n1;
    int c = s->col[j];
    for (int i = 0; i < n1; i++)
      R[(size_t)i * p + c] = sign * fj[i];
  }
}

/* the controllers' integrals by rows (the p live columns): out = base +
 * h/2 e', the errors' derivatives e' = pe + eq q' + eqd qd' (gradients at
 * one state, nz x nq; pe nz x s->p by parameter) */
static void carry_rows(const sens *s, const double *eq, const double *eqd, const double *pe, const double *Sq,
                       const double *Sqd, const double *base, double *out, int p)
{
  int nq = s->nq;
  for (int i = 0; i < s->nz; i++)
    for (int c = 0; c < p; c++) {
      double e = pe[(size_t)i * s->p + s->live[c]];
      for (int l = 0; l < nq; l++)
        e += eq[(size_t)i * nq + l] * Sq[(size_t)l * p + c] + eqd[(size_t)i * nq + l] * Sqd[(size_t)l * p + c];
      out[(size_t)i * p + c] = base[(size_t)i * p + c] + 0.5 * s->h * e;
    }
}

/* the step's active parameters become live (a controller's error depends
 * on a parameter only where the step does: its pe are 0 elsewhere): Sx (nx
 * rows of nl) widens by a zero column for each, in place from its end */
static void live_cols(sens *s, double *Sx)
{
  for (int a = 0; a < s->nact; a++) {
    int j = s->alist[a];
    if (s->col[j] >= 0)
      continue;
    int nl = s->nl;
    for (size_t i = (size_t)s->nx; i-- > 0;) {
      Sx[i * (nl + 1) + nl] = 0.0;
      for (int c = nl; c-- > 0;)
        Sx[i * (nl + 1) + c] = Sx[i * nl + c];
    }
    s->col[j] = nl;
    s->live[s->nl++] = j;
  }
}

/* the predictor's terms of the carried columns: ah' = -(c4 q' + 2 c2 qd' +
 * qdd'), bh' = -(c2 q' + qd'), n entries, in vectors */
LW_CLONES static void predictor_rows(double *restrict ah, double *restrict bh, const double *restrict q1,
                                     const double *restrict q2, const double *restrict q3, double c2, double c4,
                                     size_t n)
{
  lw_v4d a2 = {c2, c2, c2, c2}, a4 = {c4, c4, c4, c4}, b2 = a2 * (lw_v4d){2.0, 2.0, 2.0, 2.0};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    lw_v4d x1 = lw_v4d_load(q1 + i), x2 = lw_v4d_load(q2 + i);
    lw_v4d_store(ah + i, -(a4 * x1 + b2 * x2 + lw_v4d_load(q3 + i)));
    lw_v4d_store(bh + i, -(a2 * x1 + x2));
  }
  for (; i < n; i++) {
    ah[i] = -(c4 * q1[i] + 2.0 * c2 * q2[i] + q3[i]);
    bh[i] = -(c2 * q1[i] + q2[i]);
  }
}

/* the step's rates from the states a (n) and b: qd* = c2 (q - qn) - qdn,
 * qdd* = c4 (q - qn) - 2 c2 qdn - qddn, in vectors */
LW_CLONES static void step_rates(double *restrict qds, double *restrict qdds, const double *restrict q,
                                 const double *restrict qn, const double *restrict qdn,
                                 const double *restrict qddn, double c2, double c4, int nq)
{
  lw_v4d a2 = {c2, c2, c2, c2}, a4 = {c4, c4, c4, c4}, b2 = (lw_v4d){2.0, 2.0, 2.0, 2.0} * a2;
  int i = 0;
  for (; i + 4 <= nq; i += 4) {
    lw_v4d dq = lw_v4d_load(q + i) - lw_v4d_load(qn + i), v = lw_v4d_load(qdn + i);
    lw_v4d_store(qds + i, a2 * dq - v);
    lw_v4d_store(qdds + i, a4 * dq - b2 * v - lw_v4d_load(qddn + i));
  }
  for (; i < nq; i++) {
    qds[i] = c2 * (q[i] - qn[i]) - qdn[i];
    qdds[i] = c4 * (q[i] - qn[i]) - 2.0 * c2 * qdn[i] - qddn[i];
  }
}

/* y += a x, n entries (a = 1 or -1: y + x or y - x, exactly), in vectors */
LW_CLONES static void vec_axpy(double *restrict y, double a, const double *restrict x, size_t n)
{
  lw_run_axpy(y, a, x, (int)n);
}

/* a parameter's step columns: fp += -dQ + dJ0, fv += dJ1, fa += dJ2 over
 * the nq coordinates, in vectors (the compiler leaves the loop scalar for
 * fear the seven arrays overlap) */
LW_CLONES static void step_cols_add(double *restrict fp, double *restrict fv, double *restrict fa,
                                    const double *restrict dq, double *const dj[3], int nq)
{
  const double *restrict j0 = dj[0], *restrict j1 = dj[1], *restrict j2 = dj[2];
  int i = 0;
  for (; i + 4 <= nq; i += 4) {
    lw_v4d_store(fp + i, lw_v4d_load(fp + i) + (-lw_v4d_load(dq + i) + lw_v4d_load(j0 + i)));
    lw_v4d_store(fv + i, lw_v4d_load(fv + i) + lw_v4d_load(j1 + i));
    lw_v4d_store(fa + i, lw_v4d_load(fa + i) + lw_v4d_load(j2 + i));
  }
  for (; i < nq; i++) {
    fp[i] += -dq[i] + j0[i];
    fv[i] += j1[i];
    fa[i] += j2[i];
  }
}

/* the bucket of time t: floor((t - t0) scale), within 0 .. nbkt - 1 (a
 * monotone map, so that t in [lo, hi] falls between the buckets of lo and
 * hi) */
static int bk_of(const sens *s, double t)
{
  double x = (t - s->bk_t0) * s->bk_scale;
  if (!(x > 0.0))
    return 0;
  return x >= (double)(s->nbkt - 1) ? s->nbkt - 1 : (int)x;
}

/* linearize the step from state a (t_n) to state b (t_n+1); fresh: s->d
 * holds state b as lw_step left it (the constraint rows, their time terms
 * and the Schur factors at b are not evaluated again) */
static int lin_step(sens *s, const double *sa, const double *sb, int fresh)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, n1 = s->n1;
  double t = ST_T(sb);
  const double *qn = ST_Q(s, sa), *qdn = ST_QD(s, sa), *qddn = ST_QDD(s, sa);
  const double *q = ST_Q(s, sb), *qd = ST_QD(s, sb), *qdd = ST_QDD(s, sb), *lam = ST_L(s, sb);
  memcpy(d->coord_prev, ST_C(s, sb), sizeof(double) * (size_t)s->ncoords);
  if (s->nz) {
    /* the controllers' integral terms as the step saw them */
    memcpy(d->fbc, ST_CARRY(s, sb), sizeof(double) * (size_t)s->nz);
    d->fb_beta = 0.5 * s->h;
    /* a state's gradients serve two steps: the forward pass meets it as
     * state b then a, the backward pass as a then b */
    double ta = ST_T(sa), tb = ST_T(sb);
    if (s->fb_tb == ta || s->fb_ta == tb) {
      double *sw[3][2] = {{s->eqa, s->eqb}, {s->eqda, s->eqdb}, {s->pea, s->peb}};
      s->eqa = sw[0][1], s->eqb = sw[0][0];
      s->eqda = sw[1][1], s->eqdb = sw[1][0];
      s->pea = sw[2][1], s->peb = sw[2][0];
      double t = s->fb_ta;
      s->fb_ta = s->fb_tb;
      s->fb_tb = t;
    }
    if (s->fb_ta != ta)
      fb_grads(s, sa, s->eqa, s->eqda, s->pea);
    if (s->fb_tb != tb)
      fb_grads(s, sb, s->eqb, s->eqdb, s->peb);
    s->fb_ta = ta;
    s->fb_tb = tb;
    memset(s->Rc, 0, sizeof(double) * (size_t)s->nz * nq);
    double g[2 * LW_MAXQB];
    for (int n = 0; n < m->nforces; n++) {
      const lw_force *f = &m->forces[n];
      if (!lw_force_is_controller(f->type))
        continue;
      const lw_coord *c = &m->coords[f->coord];
      lw_coord_eval(m, c, q, g);
      for (int i = f->fb0; i < f->fb0 + f->nfb; i++)
        for (int k = 0; k < c->nblk; k++)
          for (int l = 0; l < s->nqb; l++)
            s->Rc[(size_t)i * nq + c->blk[k] * s->nqb + l] = m->fbs[i].ki * g[k * s->nqb + l];
    }
  }
  step_rates(s->qds, s->qdds, q, qn, qdn, qddn, s->c2, s->c4, nq);
  fresh = fresh && d->schur_ok;
  const double *mult = ST_MULT(s, sb);
  /* through M^-1 only when the mass blocks are well conditioned: a point
   * mass without rotary inertia is not, and M^-1 would carry its round-off
   * into the derivatives (the pendulum's forward and adjoint then differ by
   * 1e-6 instead of 1e-11) */
  int schur = m->dense && m->minv_cond <= 1e6;
  int kept = !fresh && s->aux && schur && mult[0] != 0.0; /* S as the step factorized it */
  if (!fresh && s->aux)
    aux_load(s, sb, kept);
  else if (!fresh)
    lw_rows_eval(m, d, q, t, 1);
  s->km_schur = schur && (fresh || kept || lw_schur_factor(m, d) == 0);
  if (!s->km_schur)
    build_km(s, s->KM);
  if (!s->km_schur && lw_lu_dense(s->KM, n1, s->ipM)) {
    lw_set_error(s->err, LW_ERR_SOLVER, "", t,
                 "the projection matrix [M J^T; J 0] is singular at t = %.6g s (dependent "
                 "constraints); sensitivities need independent constraints",
                 t);
    return -1;
  }
  if (!s->km_schur)
    lu_recip(s->KM, n1, s->dM);
  /* multipliers of the projections: as the step found them, or again
   * (with the rows' time terms Phi_t, gamma) */
  if (s->km_schur && mult[0] != 0.0) {
    memcpy(s->sig, mult + 1, sizeof(double) * (size_t)nc);
    memcpy(s->kap, mult + 1 + nc, sizeof(double) * (size_t)nc);
  } else {
    if (!fresh)
      lw_rows_time(m, d, q, qd, t);
    lw_mass_mul(m, s->qds, s->rhs);
    for (int r = 0; r < nc; r++)
      s->rhs[nq + r] = -d->phit[r];
    km_solve(s, s->rhs);
    memcpy(s->sig, s->rhs + nq, sizeof(double) * (size_t)nc);
    lw_mass_mul(m, s->qdds, s->rhs);
    for (int r = 0; r < nc; r++)
      s->rhs[nq + r] = -d->gam[r];
    km_solve(s, s->rhs);
    memcpy(s->kap, s->rhs + nq, sizeof(double) * (size_t)nc);
  }

  lw_lin_point pt = {q, s->qds, qd, qdd, {lam, s->sig, s->kap}, t};
  lw_lin_out o1 = {s->dQ, {s->dJ[0], s->dJ[1], s->dJ[2]}, s->dphi, s->dvel, s->dacc};
  {
    size_t nbb = (size_t)m->nb * s->nqb * s->nqb, nr = (size_t)nc * 2 * s->nqb;
    lw_bmat *bm[4] = {&s->Ab, &s->Hv, &s->Ha, &s->Cb};
    for (int k = 0; k < 4; k++) {
      memset(bm[k]->blk, 0, sizeof(double) * nbb);
      if (bm[k]->off)
        memset(bm[k]->off, 0, sizeof(double) * (size_t)nq * nq);
    }
    memset(s->RV, 0, sizeof(double) * nr);
    memset(s->RA, 0, sizeof(double) * nr);
    memset(s->RAd, 0, sizeof(double) * nr);
    const lw_bmat *H[3] = {&s->Ab, &s->Hv, &s->Ha};
    lw_lin_blocks(m, d, &pt, s->c2, H, s->RV, s->RA, s->RAd, &s->Ab, &s->Cb);
    vec_axpy(s->Ab.blk, s->c4, m->mass_blocks, nbb);
  }
  if (s->ap_struct ? ap_factor(s) : ap_factor_dense(s)) {
    lw_set_error(s->err, LW_ERR_SOLVER, "", t,
                 "the step's tangent matrix is singular at t = %.6g s; the sensitivities are "
                 "undefined there",
                 t);
    return -1;
  }
  /* parameter columns; a parameter left out of alist has a column that is
   * exactly zero (not written): a spline value far from t */
  for (int i = 0; i < nq; i++) {
    s->e[i] = qd[i] - s->qds[i];
    s->e2[i] = qdd[i] - s->qdds[i];
  }
  s->nact = 0;
  /* the parameters that are not time functions' coefficients, and those
   * coefficients listed in t's bucket, merged in ascending order */
  int bt = s->nbkt ? bk_of(s, t) : 0;
  const int *bl = s->nbkt ? s->bk_idx + s->bk_ptr[bt] : NULL;
  int nbl = s->nbkt ? s->bk_ptr[bt + 1] - s->bk_ptr[bt] : 0;
  for (int ia = 0, ib = 0; ia < s->nplain || ib < nbl;) {
    int j = ib >= nbl || (ia < s->nplain && s->plist[ia] < bl[ib]) ? s->plist[ia++] : bl[ib++];
    /* a time function's coefficient: most are far from t (a long spline) */
    if (t < s->plo[j] || t > s->phi[j])
      continue;
    double *fp = s->FP + (size_t)j * n1, *fv = s->FV + (size_t)j * n1, *fa = s->FA + (size_t)j * n1;
    const lw_tangent *tg = s->tg[j];
    if (!lw_tangent_active(m, tg, t))
      continue;
    s->alist[s->nact++] = j;
    memset(fp, 0, sizeof(double) * (size_t)nq);
    memset(fv, 0, sizeof(double) * (size_t)nq);
    memset(fa, 0, sizeof(double) * (size_t)nq);
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    /* the constraint rows' derivatives straight into the columns */
    o1.dphi = fp + nq;
    o1.dvel = fv + nq;
    o1.dacc = fa + nq;
    lw_lin_jvp(m, d, &pt, &dir, &o1);
    {
      const double *x[3] = {s->qdds, s->e, s->e2};
      double *y[3] = {fp, fv, fa};
      lw_tangent_mass_mul_k(m, tg, 3, x, y);
    }
    step_cols_add(fp, fv, fa, s->dQ, s->dJ, nq);
  }
  if (s->nz) {
    memcpy(d->fbc, ST_Z(s, sb), sizeof(double) * (size_t)s->nz);
    d->fb_beta = 0.0;
  }
  return 0;
}

enum { OUT_EVERY = 1, OUT_FINAL = 2 };

/* the outputs at state st into s->yrow; with lin, also their derivatives
 * Y (ncols x nx, x = [q qd qdd lambda z]) and YT (ncols x p) for the
 * outputs read at this state (at the last state, final is set).  The rows
 * of an output not read here are left as they were: its objective
 * derivatives gy are exactly 0 at this state. */
static void outputs_at(sens *s, const double *st, int lin, int final)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  memcpy(d->q, ST_Q(s, st), sizeof(double) * (size_t)s->nq);
  memcpy(d->qd, ST_QD(s, st), sizeof(double) * (size_t)s->nq);
  memcpy(d->qdd, ST_QDD(s, st), sizeof(double) * (size_t)s->nq);
  memcpy(d->lambda, ST_L(s, st), sizeof(double) * (size_t)s->nc);
  memcpy(d->coord_prev, ST_C(s, st), sizeof(double) * (size_t)s->ncoords);
  memcpy(d->fbz, ST_Z(s, st), sizeof(double) * (size_t)s->nz);
  memcpy(d->fbc, ST_Z(s, st), sizeof(double) * (size_t)s->nz);
  d->fb_beta = 0.0;
  d->t = ST_T(st);
  lw_outputs_some(m, d, s->yrow, s->out_used);
  if (!lin)
    return;
  int nq = s->nq, nx = s->nxs, nc = s->ncols;
  lw_lin_point pt = {ST_Q(s, st), ST_QD(s, st), ST_QD(s, st), ST_QDD(s, st), {ST_L(s, st), NULL, NULL},
                     ST_T(st)};
  for (int k = 0; k < m->nout; k++) {
    if (!(s->out_used[k] & OUT_EVERY) && !(final && s->out_used[k] & OUT_FINAL))
      continue;
    int c0 = m->out_col[k], w = m->outputs[k].width;
    lw_output_type ty = m->outputs[k].type;
    int linear = ty == LW_OUT_POSITION || ty == LW_OUT_VELOCITY || ty == LW_OUT_ACCELERATION;
    if (!s->y_const[k])
      s->y_dirty = 1;
    if (!linear)
      s->y_varies = 1;
    for (int x = 0; x < nx && !s->y_const[k]; x++) {
      unit(s->e, nx, x);
      lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, NULL, -1};
      if (x < nq)
        dir.dq = s->e;
      else if (x < 2 * nq)
        dir.dqd = s->e + nq;
      else if (x < 3 * nq)
        dir.dqdd = s->e + 2 * nq;
      else
        dir.dl = s->e + 3 * nq;
      if (x < 3 * nq)
        dir.body = (x % nq) / s->nqb;
      /* a state direction lives in one body: outputs elsewhere are skipped */
      lw_output_jvp(m, d, NULL, k, &pt, &dir, s->dy);
      for (int i = 0; i < w; i++)
        s->Y[(size_t)x * nc + c0 + i] = s->dy[i];
    }
    if (ty == LW_OUT_CONTROL) {
      /* u = ... - ki z at a state */
      const lw_force *f = &m->forces[m->outputs[k].force];
      for (int i = f->fb0; i < f->fb0 + f->nfb; i++)
        s->Y[(size_t)(nx + i) * nc + c0] = -m->fbs[i].ki;
    }
    s->y_const[k] = linear;
    for (int a = 0; a < s->nplain; a++) { /* outputs do not read time functions: their YT stays 0 */
      int j = s->plist[a];
      for (int i = 0; i < w; i++)
        s->YT[(size_t)j * nc + c0 + i] = 0;
      if (!s->tg[j] || !s->tg[j]->any || (linear && !s->tg[j]->out_on[k]))
        continue; /* a point's output moves with the parameter only through its vector */
      lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, s->tg[j], -1};
      lw_output_jvp(m, d, s->tg[j], k, &pt, &dir, s->dy);
      for (int i = 0; i < w; i++)
        s->YT[(size_t)j * nc + c0 + i] = s->dy[i];
    }
  }
}

/* objective values and derivatives at output row y with integral weight wi
 * and final weight wf: value += ..., gy = dg/dy, gth = direct dg/dtheta */
static void objectives_at(sens *s, double wi, double wf, double *value)
{
  const lw_model *m = s->m;
  int nc = s->ncols;
  memset(s->gy, 0, sizeof(double) * (size_t)s->no * nc);
  if (s->term_tg) /* else never written */
    memset(s->gth, 0, sizeof(double) * (size_t)s->no * (s->p ? s->p : 1));
  for (int o = 0; o < s->no; o++) {
    const lw_objective *ob = &m->objs[s->obj[o]];
    for (int k = ob->first; k < ob->first + ob->n; k++) {
      const lw_term *t = &m->terms[k];
      double wk = t->kind == LW_TERM_FINAL ? wf : wi;
      if (wk == 0.0)
        continue;
      for (int i = 0; i < t->width; i++) {
        if (t->comp >= 0 && i != t->comp)
          continue;
        double e = s->yrow[t->col + i] - t->target[i];
        if (t->form == LW_TERM_ABOVE)
          e = fmax(e, 0.0);
        else if (t->form == LW_TERM_BELOW)
          e = fmin(e, 0.0);
        if (t->form != LW_TERM_VALUE) {
          if (value)
            value[o] += wk * t->weight * e * e;
          s->gy[(size_t)o * nc + t->col + i] += wk * 2.0 * t->weight * e;
        } else {
          if (value)
            value[o] += wk * t->weight * e;
          s->gy[(size_t)o * nc + t->col + i] += wk * t->weight;
        }
        for (int j = 0; j < s->p && s->term_tg; j++) {
          const lw_tangent *tg = s->tg[j];
          if (!tg || !tg->term_on[k])
            continue;
          const lw_term *tt = &tg->dm->terms[k];
          double g = t->form != LW_TERM_VALUE
                         ? tt->weight * e * e - 2.0 * t->weight * e * tt->target[i]
                         : tt->weight * e - t->weight * tt->target[i];
          s->gth[(size_t)o * s->p + j] += wk * g;
        }
      }
    }
  }
}

/* y (nx) += Y^T g from the rows of Y (ncols x nx) that g weights: those of
 * an objective's outputs, a few of the ncols.  Returns the number of the x
 * where y can have changed, listed in *xs, or -1 for any x */
static int yt_gy(sens *s, const double *g, double *y, const int **xs)
{
  int nc = s->ncols, nx = s->nx;
  if (s->y_varies) {
    for (int c = 0; c < nc; c++)
      if (g[c] != 0.0)
        for (int x = 0; x < nx; x++)
          y[x] += s->Y[(size_t)x * nc + c] * g[c];
    return -1;
  }
  if (s->y_dirty) {
    int k = 0;
    for (int c = 0; c < nc; c++) {
      s->ynz_p[c] = k;
      for (int x = 0; x < nx; x++)
        if (s->Y[(size_t)x * nc + c] != 0.0)
          s->ynz[k++] = x;
    }
    s->ynz_p[nc] = k;
    s->nyx = 0;
    for (int x = 0; x < nx; x++)
      for (int c = 0; c < nc; c++)
        if (s->Y[(size_t)x * nc + c] != 0.0) {
          s->yx[s->nyx++] = x;
          break;
        }
    s->y_dirty = 0;
  }
  /* the terms of the dense loop that are not exactly 0, in its order */
  for (int c = 0; c < nc; c++)
    if (g[c] != 0.0)
      for (int k = s->ynz_p[c]; k < s->ynz_p[c + 1]; k++)
        y[s->ynz[k]] += s->Y[(size_t)s->ynz[k] * nc + c] * g[c];
  *xs = s->yx;
  return s->nyx;
}

static void weights(const sens *s, long k, double *wi, double *wf)
{
  *wi = s->N == 0 ? 0.0 : (k == 0 || k == s->N) ? 0.5 * s->h : s->h;
  *wf = k == s->N ? 1.0 : 0.0;
}

/* ---- the initial problems ------------------------------------------------- */
typedef struct {
  int ng, na, nv;
  double *Pg;          /* nq x ng: pinv of the position Jacobian */
  double *Gth;         /* ng x p */
  double *Pv;          /* nv x nv: pinv of [M A^T; A 0] */
  double *Dvq, *Fv;    /* nv x nq, nv x p */
  double *K0;          /* n1 x n1 LU of [M J^T; J 0] */
  int *ip0;
  double *D0q, *D0qd, *F0; /* n1 x nq, n1 x nq, n1 x p */
} init_lin;

static void init_free(init_lin *L)
{
  free(L->Pg);
  free(L->Gth);
  free(L->Pv);
  free(L->Dvq);
  free(L->Fv);
  free(L->K0);
  free(L->ip0);
  free(L->D0q);
  free(L->D0qd);
  free(L->F0);
}

static int init_linearize(sens *s, const double *st, init_lin *L)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, n1 = s->n1, p = s->p, nqb = s->nqb, w = 2 * nqb;
  const double *q = ST_Q(s, st), *qd = ST_QD(s, st), *qdd = ST_QDD(s, st), *lam = ST_L(s, st);
  double t = ST_T(st);
  memcpy(d->coord_prev, ST_C(s, st), sizeof(double) * (size_t)s->ncoords);
  memset(L, 0, sizeof *L);
  int nh = 0;
  for (int i = 0; i < m->ninit; i++)
    nh += m->init_has_value[i] != 0;
  L->ng = nc + nh;
  L->na = nc + m->ninit;
  L->nv = nq + L->na;
  int ng = L->ng, na = L->na, nv = L->nv;
  lw_rows_eval(m, d, q, t, 1);
  lw_rows_time(m, d, q, qd, t);
  double *G = calloc((size_t)ng * nq + 1, sizeof(double));
  double *gc = calloc((size_t)w, sizeof(double));
  double *dgc = calloc((size_t)w, sizeof(double));
  L->Pg = calloc((size_t)nq * ng + 1, sizeof(double));
  L->Gth = calloc((size_t)ng * p + 1, sizeof(double));
  /* 1. position: G = [Phi; x_i - value_i] */
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0; k < row->nblk; k++)
      for (int i = 0; i < nqb; i++)
        G[(size_t)(row->blk[k] * nqb + i) * ng + r] += d->jac[(size_t)r * w + k * nqb + i];
  }
  lw_lin_point pt = {q, qd, qd, qdd, {lam, NULL, NULL}, t};
  lw_lin_dir none = {NULL, NULL, NULL, NULL, NULL, NULL, -1};
  for (int i = 0, h = 0; i < m->ninit; i++) {
    if (!m->init_has_value[i])
      continue;
    int ci = m->init_coord[i];
    const lw_coord *c = &m->coords[ci];
    lw_coord_jvp(m, NULL, ci, &pt, &none, NULL, NULL, gc, NULL);
    for (int k = 0; k < c->nblk; k++)
      for (int l = 0; l < nqb; l++)
        G[(size_t)(c->blk[k] * nqb + l) * ng + nc + h] += gc[k * nqb + l];
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
  int bad = pinv(G, ng, nq, L->Pg);
  /* 2. velocity: min qd^T M qd / 2 subject to A qd = b, A = [J; grad x_i] */
  double *Kv = calloc((size_t)nv * nv + 1, sizeof(double));
  L->Pv = calloc((size_t)nv * nv + 1, sizeof(double));
  L->Dvq = calloc((size_t)nv * nq + 1, sizeof(double));
  L->Fv = calloc((size_t)nv * p + 1, sizeof(double));
  for (int j = 0; j < nq; j++)
    memcpy(Kv + (size_t)j * nv, s->M + (size_t)j * nq, sizeof(double) * (size_t)nq);
  double *A = calloc((size_t)na * nq + 1, sizeof(double));
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0; k < row->nblk; k++)
      for (int i = 0; i < nqb; i++)
        A[(size_t)(row->blk[k] * nqb + i) * na + r] += d->jac[(size_t)r * w + k * nqb + i];
  }
  double *bv = calloc((size_t)nv, sizeof(double));
  for (int r = 0; r < nc; r++)
    bv[nq + r] = -d->phit[r];
  for (int i = 0; i < m->ninit; i++) {
    int ci = m->init_coord[i];
    const lw_coord *c = &m->coords[ci];
    lw_coord_jvp(m, NULL, ci, &pt, &none, NULL, NULL, gc, NULL);
    for (int k = 0; k < c->nblk; k++)
      for (int l = 0; l < nqb; l++)
        A[(size_t)(c->blk[k] * nqb + l) * na + nc + i] += gc[k * nqb + l];
    bv[nq + nc + i] = m->init_has_vel[i] ? m->init_vel[i] : 0.0;
  }
  for (int j = 0; j < nq; j++)
    for (int r = 0; r < na; r++) {
      Kv[(size_t)j * nv + nq + r] = s->sM * A[(size_t)j * na + r];
      Kv[(size_t)(nq + r) * nv + j] = s->sM * A[(size_t)j * na + r];
    }
  bad |= pinv(Kv, nv, nv, L->Pv);
  /* Kv = D^-1 Kv_s D^-1, D = diag(1, s): D pinv(Kv_s) D solves Kv (its inverse when regular) */
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
      unit(s->e, nq, x);
      dir.dq = s->e;
      dir.body = x / nqb;
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
      for (int k = 0; k < c->nblk; k++)
        for (int l = 0; l < nqb; l++)
          col[c->blk[k] * nqb + l] += mu[nc + i] * dgc[k * nqb + l];
      col[nq + nc + i] = dxd - (tg && m->init_has_vel[i] ? tg->dm->init_vel[i] : 0.0);
    }
  }
  /* 3. accelerations: [M qdd - Q(q, qd) + J^T lambda; J qdd + gamma] */
  L->K0 = calloc((size_t)n1 * n1 + 1, sizeof(double));
  L->ip0 = calloc((size_t)n1 + 1, sizeof(int));
  L->D0q = calloc((size_t)n1 * nq + 1, sizeof(double));
  L->D0qd = calloc((size_t)n1 * nq + 1, sizeof(double));
  L->F0 = calloc((size_t)n1 * p + 1, sizeof(double));
  lw_rows_eval(m, d, q, t, 1);
  build_km(s, L->K0);
  if (lw_lu_dense(L->K0, n1, L->ip0))
    bad = 1;
  lw_lin_point pa = {q, qd, qd, qdd, {lam, NULL, NULL}, t};
  lw_lin_out oa = {s->dQ, {s->dJ[0], NULL, NULL}, NULL, NULL, s->dacc};
  for (int j = 0; j < nq; j++) {
    unit(s->e, nq, j);
    lw_lin_dir dq = {s->e, NULL, NULL, NULL, NULL, NULL, j / nqb};
    lw_lin_jvp(m, d, &pa, &dq, &oa);
    double *c1 = L->D0q + (size_t)j * n1;
    for (int i = 0; i < nq; i++)
      c1[i] = -s->dQ[i] + s->dJ[0][i];
    memcpy(c1 + nq, s->dacc, sizeof(double) * (size_t)nc);
    lw_lin_dir dv = {NULL, s->e, s->e, NULL, NULL, NULL, j / nqb};
    lw_lin_jvp(m, d, &pa, &dv, &oa);
    double *c2 = L->D0qd + (size_t)j * n1;
    for (int i = 0; i < nq; i++)
      c2[i] = -s->dQ[i];
    memcpy(c2 + nq, s->dacc, sizeof(double) * (size_t)nc);
  }
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
    memcpy(c1 + nq, s->dacc, sizeof(double) * (size_t)nc);
  }
  free(G);
  free(gc);
  free(dgc);
  free(Kv);
  free(A);
  free(bv);
  free(xm);
  free(mu_rows);
  if (bad) {
    lw_set_error(s->err, LW_ERR_MODEL, "", 0.0,
                 "the initial problems cannot be linearized (dependent constraints at t = 0)");
    return -1;
  }
  return 0;
}

/* ---- setup ------------------------------------------------------------------ */
static void sens_free(sens *s)
{
  void *arrs[] = {s->M,   s->AP,  s->KM,  s->Ab.blk, s->Ab.off, s->Hv.blk, s->Hv.off, s->Ha.blk, s->Ha.off,
                  s->Cb.blk, s->Cb.off, s->RV, s->RA, s->RAd, s->WP, s->SP, s->ipS, s->apt, s->Ainv, s->SPd, s->FP,  s->FV,
                  s->FA,  s->ipP, s->ipM, s->dP, s->dM, s->qds, s->qdds, s->sig, s->kap, s->dQ,  s->dJ[0],
                  s->dJ[1], s->dJ[2], s->dphi, s->dvel, s->dacc, s->e, s->e2, s->kxm, s->rhs, s->out_used, s->y_const,
                  s->ynz_p, s->ynz, s->yx,
                  s->Y,   s->YT,  s->yrow, s->dy, s->gy, s->gth, s->Rc, s->eqa, s->eqda,
                  s->eqb, s->eqdb, s->pea, s->peb, s->alist, s->plo, s->phi, s->plist,
                  s->col, s->live, s->bk_ptr, s->bk_idx};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
    free(arrs[i]);
  tri_free(&s->tri);
}

/* the buckets of the time functions' coefficients (none: nbkt = 0) */
static int bk_init(sens *s)
{
  int nf = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (int j = 0; j < s->p; j++) {
    if (!s->tg[j] || !s->tg[j]->fn_kind)
      continue;
    nf++;
    double e[2] = {s->plo[j], s->phi[j]};
    for (int k = 0; k < 2; k++)
      if (isfinite(e[k])) {
        lo = fmin(lo, e[k]);
        hi = fmax(hi, e[k]);
      }
  }
  s->nbkt = 0;
  if (nf == 0)
    return 0;
  s->nbkt = nf < 1024 ? nf : 1024;
  s->bk_t0 = isfinite(lo) ? lo : 0.0;
  s->bk_scale = hi > lo ? s->nbkt / (hi - lo) : 0.0;
  s->bk_ptr = calloc((size_t)s->nbkt + 1, sizeof(int));
  if (!s->bk_ptr)
    return -1;
  /* count, then fill in ascending order of the parameters */
  for (int pass = 0; pass < 2; pass++) {
    for (int j = 0; j < s->p; j++) {
      if (!s->tg[j] || !s->tg[j]->fn_kind || !(s->plo[j] <= s->phi[j]))
        continue;
      int b1 = bk_of(s, s->phi[j]);
      for (int b = bk_of(s, s->plo[j]); b <= b1; b++)
        if (pass == 0)
          s->bk_ptr[b + 1]++;
        else
          s->bk_idx[s->bk_ptr[b]++] = j;
    }
    if (pass == 0) {
      for (int b = 0; b < s->nbkt; b++)
        s->bk_ptr[b + 1] += s->bk_ptr[b];
      s->bk_idx = malloc(sizeof(int) * ((size_t)s->bk_ptr[s->nbkt] + 1));
      if (!s->bk_idx)
        return -1;
    } else { /* the fill moved each start to the next bucket's */
      for (int b = s->nbkt; b > 0; b--)
        s->bk_ptr[b] = s->bk_ptr[b - 1];
      s->bk_ptr[0] = 0;
    }
  }
  return 0;
}

static int sens_alloc(sens *s)
{
  int nq = s->nq, n1 = s->n1, p = s->p > 0 ? s->p : 1, nx = s->nx;
  size_t nn = (size_t)n1 * n1;
  s->M = calloc((size_t)nq * nq + 1, sizeof(double));
  s->AP = calloc(nn + 1, sizeof(double));
  s->KM = calloc(nn + 1, sizeof(double));
  size_t nbb = (size_t)s->m->nb * s->nqb * s->nqb + 1, nr = (size_t)s->nc * 2 * s->nqb + 1;
  lw_bmat *bm[4] = {&s->Ab, &s->Hv, &s->Ha, &s->Cb};
  int bm_ok = 1;
  for (int k = 0; k < 4; k++) {
    bm[k]->blk = calloc(nbb, sizeof(double));
    bm[k]->off = s->m->lin_coupled ? calloc((size_t)nq * nq + 1, sizeof(double)) : NULL;
    bm_ok = bm_ok && bm[k]->blk && (bm[k]->off || !s->m->lin_coupled);
  }
  s->RV = calloc(nr, sizeof(double));
  s->RA = calloc(nr, sizeof(double));
  s->RAd = calloc(nr, sizeof(double));
  s->WP = calloc(nr, sizeof(double));
  s->SP = calloc((size_t)s->nc * s->nc + 1, sizeof(double));
  s->ipS = calloc((size_t)s->nc + 1, sizeof(int));
  s->apt = calloc((size_t)nq + 1, sizeof(double));
  s->Ainv = calloc(nbb, sizeof(double));
  s->SPd = calloc((size_t)s->nc + 1, sizeof(double));
  s->FP = calloc((size_t)n1 * p, sizeof(double));
  s->FV = calloc((size_t)n1 * p, sizeof(double));
  s->FA = calloc((size_t)n1 * p, sizeof(double));
  s->alist = calloc((size_t)p + 1, sizeof(int));
  s->col = malloc(sizeof(int) * ((size_t)p + 1));
  s->live = calloc((size_t)p + 1, sizeof(int));
  s->plist = calloc((size_t)p + 1, sizeof(int));
  s->plo = calloc((size_t)p + 1, sizeof(double));
  s->phi = calloc((size_t)p + 1, sizeof(double));
  if (!s->alist || !s->plist || !s->plo || !s->phi || !s->col || !s->live)
    return -1;
  for (int j = 0; j < p; j++)
    s->col[j] = -1;
  s->nl = 0;
  s->nact = s->nplain = 0;
  for (int j = 0; j < s->p; j++) {
    const lw_tangent *tg = s->tg[j];
    s->plo[j] = !tg || !tg->any ? INFINITY : tg->fn_kind ? tg->fn_lo : -INFINITY;
    s->phi[j] = !tg || !tg->any ? -INFINITY : tg->fn_kind ? tg->fn_hi : INFINITY;
    if (!tg || !tg->fn_kind)
      s->plist[s->nplain++] = j;
  }
  if (bk_init(s))
    return -1;
  s->ipP = calloc((size_t)n1 + 1, sizeof(int));
  s->ipM = calloc((size_t)n1 + 1, sizeof(int));
  s->dP = calloc((size_t)n1 + 1, sizeof(double));
  s->dM = calloc((size_t)n1 + 1, sizeof(double));
  s->qds = calloc((size_t)nq + 1, sizeof(double));
  s->qdds = calloc((size_t)nq + 1, sizeof(double));
  s->sig = calloc((size_t)s->nc + 1, sizeof(double));
  s->kap = calloc((size_t)s->nc + 1, sizeof(double));
  s->dQ = calloc((size_t)nq + 1, sizeof(double));
  for (int k = 0; k < 3; k++)
    s->dJ[k] = calloc((size_t)nq + 1, sizeof(double));
  s->dphi = calloc((size_t)s->nc + 1, sizeof(double));
  s->dvel = calloc((size_t)s->nc + 1, sizeof(double));
  s->dacc = calloc((size_t)s->nc + 1, sizeof(double));
  s->e = calloc((size_t)nx + n1 + 1, sizeof(double));
  s->e2 = calloc((size_t)nx + n1 + 1, sizeof(double));
  s->kxm = calloc((size_t)s->nq + 1, sizeof(double));
  s->rhs = calloc((size_t)n1 + 1, sizeof(double));
  s->out_used = calloc((size_t)s->m->nout + 1, 1);
  s->y_const = calloc((size_t)s->m->nout + 1, 1);
  s->ynz_p = calloc((size_t)s->ncols + 1, sizeof(int));
  s->ynz = calloc((size_t)s->ncols * nx + 1, sizeof(int));
  s->yx = calloc((size_t)nx + 1, sizeof(int));
  s->y_dirty = 1;
  s->Y = calloc((size_t)s->ncols * nx + 1, sizeof(double));
  s->YT = calloc((size_t)s->ncols * p + 1, sizeof(double));
  s->yrow = calloc((size_t)s->ncols + 1, sizeof(double));
  s->dy = calloc(4, sizeof(double));
  s->gy = calloc((size_t)(s->no ? s->no : 1) * s->ncols + 1, sizeof(double));
  s->gth = calloc((size_t)(s->no ? s->no : 1) * p, sizeof(double));
  if (s->nz) {
    size_t zq = (size_t)s->nz * nq + 1, zp = (size_t)s->nz * p + 1;
    s->Rc = calloc(zq, sizeof(double));
    s->eqa = calloc(zq, sizeof(double));
    s->eqda = calloc(zq, sizeof(double));
    s->eqb = calloc(zq, sizeof(double));
    s->eqdb = calloc(zq, sizeof(double));
    s->pea = calloc(zp, sizeof(double));
    s->peb = calloc(zp, sizeof(double));
    if (!s->Rc || !s->eqa || !s->eqda || !s->eqb || !s->eqdb || !s->pea || !s->peb)
      return -1;
  }
  return s->M && s->kxm && s->AP && s->KM && bm_ok && s->RV && s->RA && s->RAd && s->WP && s->SP &&
                 s->ipS && s->apt && s->Ainv && s->SPd && s->FP && s->FV && s->FA && s->Y && s->YT && s->ynz_p &&
                 s->ynz && s->yx && s->ipP &&
                 s->ipM && s->dP && s->dM
             ? 0
             : -1;
}

int lw_desc_param_index(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->nparams; i++)
    if (name && !strcmp(d->params[i].name, name))
      return i;
  return -1;
}

int lw_desc_objective_index(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->nobjectives; i++)
    if (name && !strcmp(d->objectives[i].name, name))
      return i;
  return -1;
}

void lw_sens_result_clear(lw_sens_result *r)
{
  free(r->value);
  free(r->gradient);
  free(r->depends);
  free(r->table);
  memset(r, 0, sizeof *r);
}

/* solver settings are not differentiable parameters */
static int check_param(const lw_desc *d, int j, lw_error *err)
{
  const lw_param_desc *p = &d->params[j];
  for (int k = 0; k < p->ntargets; k++)
    if (!strncmp(p->targets[k], "solver/", 7)) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN,
                   "parameter '%s' sets the solver setting '%s'; the simulation is not a "
                   "differentiable function of it",
                   p->name, p->targets[k]);
      return -1;
    }
  return 0;
}

/* one pass: values only (method VALUE), forward, or adjoint */
/* The initial state's derivatives with respect to the parameters, into the
 * p columns of X (leading dimension ldx, zero on entry): q0' = -Pg Gth;
 * qd0' = -(Pv (Dvq q0' + Fv))_q; [qdd0'; lambda0'] = -K0^-1 (D0q q0' + D0qd qd0' + F0).
 * R (n1 x p) and R2 (2 max(nv, n1)) are scratch. */
static void initial_sens(sens *s, const init_lin *L, double *X, int ldx, double *R, double *R2)
{
  int nq = s->nq, nc = s->nc, n1 = s->n1, p = s->p;
  for (int j = 0; j < p; j++) {
    double *x = X + (size_t)j * ldx;
    gemv(nq, L->ng, -1.0, L->Pg, L->Gth + (size_t)j * L->ng, x);
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
  kkt_solve(L->K0, n1, nq, s->sM, L->ip0, 0, R, p);
  for (int j = 0; j < p; j++) {
    double *x = X + (size_t)j * ldx, *r = R + (size_t)j * n1;
    memcpy(x + 2 * nq, r, sizeof(double) * (size_t)nq);
    memcpy(x + 3 * nq, r + nq, sizeof(double) * (size_t)nc);
  }
}

/* the engine's sizes and constants for model m and p parameters */
static void sens_init(sens *s, const lw_model *m, lw_tangent **tg, int p, lw_error *err)
{
  s->m = m;
  s->err = err;
  s->nq = m->nq;
  s->nc = m->nc;
  s->n1 = m->nq + m->nc;
  s->nz = m->nfbs;
  s->fb_ta = s->fb_tb = NAN;
  s->nxs = 3 * m->nq + m->nc;
  s->nx = s->nxs + s->nz;
  s->nqb = m->nqb;
  s->ncoords = m->ncoords;
  s->ncols = m->ncols;
  s->p = p;
  s->tg = tg;
  s->term_tg = 0;
  for (int j = 0; j < p; j++)
    for (int k = 0; tg && tg[j] && k < m->nterms && !s->term_tg; k++)
      s->term_tg = tg[j]->term_on[k] != 0;
  s->h = m->desc->solver.step;
  s->c2 = 2.0 / s->h;
  s->c4 = 4.0 / (s->h * s->h);
  s->sM = m->mass_scale > 0 ? m->mass_scale : 1.0;
  s->sP = s->c4 * s->sM;
  s->ap_struct = m->dense && m->minv_cond <= 1e6 && !m->lin_coupled;
  /* no force depends on the velocities: springs without damping, forces
   * and torques of time alone (C = -dQ/dv is zero) */
  s->undamped = 1;
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    int spring = f->type == LW_FORCE_SPRING_DAMPER || f->type == LW_FORCE_JOINT_SPRING_DAMPER;
    if (spring ? f->c != 0.0 : f->type != LW_FORCE_FORCE && f->type != LW_FORCE_TORQUE)
      s->undamped = 0;
  }
}

/* ---- the forward sensitivities on two threads ------------------------------
 * One thread steps the simulation (its own lw_data) and stores each state,
 * with the step's Jacobian and Schur factor (aux), in a ring; the calling
 * thread linearizes the steps from the ring and carries the sensitivities.
 * The two stay in step through two counters: states made, states taken. */
enum { PIPE_SLOTS = 128, PIPE_MIN_SLOTS = 8 };
#define PIPE_BYTES ((size_t)32 << 20) /* the ring's size at most */

typedef struct {
  sens *s;
  lw_data *d;
  double *ring;
  size_t sl;
  long N, nslot; /* slots: PIPE_SLOTS, fewer for large states */
  atomic_long made, taken;
  atomic_int stop, done;
  lw_error err; /* the stepping thread's failure (done set, made < N) */
  pthread_t th;
} lw_pipe;

/* the taking thread waits a little: spins, then gives the processor up */
static void pipe_wait(int *spins)
{
  if (++*spins < 200)
    return;
  if (*spins < 300) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, 20000};
  nanosleep(&ts, NULL);
}

static void *pipe_run(void *arg)
{
  lw_pipe *pp = arg;
  const sens *s = pp->s;
  for (long k = 1; k <= pp->N; k++) {
    lw_step_info info;
    if (atomic_load_explicit(&pp->stop, memory_order_relaxed) || lw_step(s->m, pp->d, &info, &pp->err))
      break;
    /* the ring full: sleep while the other thread takes a quarter of it
     * (it is the slower one; spinning would only burn the processor) */
    if (k - atomic_load_explicit(&pp->taken, memory_order_acquire) > pp->nslot)
      while (k - atomic_load_explicit(&pp->taken, memory_order_acquire) > 3 * pp->nslot / 4) {
        if (atomic_load_explicit(&pp->stop, memory_order_relaxed))
          goto out;
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
      }
    state_save_d(s, pp->d, pp->ring + pp->sl * (size_t)(k % pp->nslot));
    atomic_store_explicit(&pp->made, k, memory_order_release);
  }
out:
  atomic_store_explicit(&pp->done, 1, memory_order_release);
  return NULL;
}

/* start stepping from the initial state (lw_initialize again, into the
 * thread's own data); NULL: run on one thread (also when a ring of
 * PIPE_MIN_SLOTS states would exceed PIPE_BYTES: a large model) */
static lw_pipe *pipe_start(sens *s)
{
  size_t sl = state_len(s), fit = PIPE_BYTES / (sizeof(double) * sl);
  if (fit < PIPE_MIN_SLOTS)
    return NULL;
  lw_pipe *pp = calloc(1, sizeof *pp);
  if (!pp)
    return NULL;
  pp->s = s;
  pp->sl = sl;
  pp->nslot = fit < PIPE_SLOTS ? (long)fit : PIPE_SLOTS;
  pp->N = s->N;
  pp->d = lw_data_new(s->m);
  pp->ring = malloc(sizeof(double) * pp->sl * (size_t)pp->nslot);
  atomic_init(&pp->made, 0);
  atomic_init(&pp->taken, 0);
  atomic_init(&pp->stop, 0);
  atomic_init(&pp->done, 0);
  if (!pp->d || !pp->ring || lw_initialize(s->m, pp->d, &pp->err) ||
      pthread_create(&pp->th, NULL, pipe_run, pp)) {
    lw_data_free(pp->d);
    free(pp->ring);
    free(pp);
    return NULL;
  }
  return pp;
}

/* state k (1 .. N) into st; -1 when the stepping failed before it (the
 * error in pp->err) */
static int pipe_get(lw_pipe *pp, long k, double *st)
{
  int spins = 0;
  while (atomic_load_explicit(&pp->made, memory_order_acquire) < k) {
    if (atomic_load_explicit(&pp->done, memory_order_acquire) &&
        atomic_load_explicit(&pp->made, memory_order_acquire) < k)
      return -1;
    pipe_wait(&spins);
  }
  memcpy(st, pp->ring + pp->sl * (size_t)(k % pp->nslot), sizeof(double) * pp->sl);
  atomic_store_explicit(&pp->taken, k, memory_order_release);
  return 0;
}

static void pipe_stop(lw_pipe *pp)
{
  if (!pp)
    return;
  atomic_store(&pp->stop, 1);
  pthread_join(pp->th, NULL);
  lw_data_free(pp->d);
  free(pp->ring);
  free(pp);
}

static int run(const lw_model *m, const lw_sens_options *opt, lw_sens_result *res, lw_tangent **tg)
{
  sens S = {0}, *s = &S;
  int status = LW_OK;
  lw_error *err = &res->error;
  sens_init(s, m, tg, opt->method == LW_SENS_VALUE ? 0 : opt->nparams, err);
  /* the forward on two threads: the stepping thread keeps each step's
   * constraint data with the state (aux), as the adjoint's forward pass */
  int pipelined = opt->method == LW_SENS_FORWARD && s->p > 0 && m->dense && opt->threads != 1 &&
                  sysconf(_SC_NPROCESSORS_ONLN) >= 2;
  /* with pipelined, W = M^-1 J^T too: the ring holds a few states, and the
   * taking thread is the slower */
  s->aux = pipelined ? 2 : opt->method == LW_SENS_ADJOINT && m->dense;
  s->no = opt->nobj;
  s->obj = opt->objectives;
  s->N = (long)floor(m->desc->solver.t_end / s->h + 0.5);
  /* the adjoint keeps every state unless they exceed the memory limit
   * (then checkpoints); the step data kept with them must not be what
   * makes it checkpoint */
  size_t limit = opt->memory_limit ? opt->memory_limit : ((size_t)512 << 20);
  if (!pipelined && s->aux && state_len(s) * sizeof(double) * (size_t)(s->N + 1) > limit) {
    s->aux = 0;
    if (state_len(s) * sizeof(double) * (size_t)(s->N + 1) > limit)
      s->aux = 1; /* checkpoints either way */
  }
  s->value = res->value;
  s->grad = res->gradient;
  int forward = opt->method == LW_SENS_FORWARD, adjoint = opt->method == LW_SENS_ADJOINT;
  if (s->n1 > 3000 && (forward || adjoint)) {
    lw_set_error(err, LW_ERR_MODEL, "", NAN,
                 "the model has %d coordinates and %d constraints; sensitivities use dense step "
                 "matrices and are limited to 3000 unknowns",
                 s->nq, s->nc);
    return LW_ERR_MODEL;
  }
  s->d = lw_data_new(m);
  if (!s->d || sens_alloc(s)) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    status = LW_ERR_NOMEM;
    goto out;
  }
  lw_eval_mass_dense(m, s->M);
  for (int o = 0; o < s->no; o++) {
    const lw_objective *ob = &m->objs[s->obj[o]];
    for (int k = ob->first; k < ob->first + ob->n; k++)
      s->out_used[m->terms[k].output] |= m->terms[k].kind == LW_TERM_FINAL ? OUT_FINAL : OUT_EVERY;
  }
  if (!adjoint && opt->keep_outputs) /* the table: every output, also without sensitivities */
    for (int k = 0; k < m->nout; k++)
      s->out_used[k] |= OUT_EVERY;
  int p = s->p, nq = s->nq, nc = s->nc, n1 = s->n1, nx = s->nx, ncols = s->ncols, no = s->no;
  size_t sl = state_len(s);
  double *st0 = calloc(sl, sizeof(double)), *st1 = calloc(sl, sizeof(double));
  double *Sx = NULL, *Sn = NULL, *Z = NULL, *R = NULL, *R2 = NULL;
  double *store = NULL, *seg = NULL, *ab = NULL, *bb = NULL, *cx = NULL, *mu = NULL, *tmp = NULL, *zb = NULL;
  init_lin L = {0};
  lw_pipe *pipe = NULL;
  double t_start = now_s();
  if (lw_initialize(m, s->d, err)) {
    status = err->status ? err->status : LW_ERR_MODEL;
    goto out2;
  }
  state_save(s, st0);
  if (forward || adjoint) {
    if (init_linearize(s, st0, &L)) {
      status = err->status;
      goto out2;
    }
  }
  long every = s->N / 100 > 0 ? s->N / 100 : 1;
  /* ----- forward (values, forward sensitivities) ----- */
  if (!adjoint) {
    /* Sx = [q' qd' qdd' lambda' z'] (nx x p, by rows); Sn scratch (3 nq + nz rows used) */
    Sx = calloc((size_t)nx * (p ? p : 1), sizeof(double));
    Sn = calloc((size_t)nx * (p ? p : 1), sizeof(double));
    Z = calloc((size_t)ncols * (p ? p : 1) + 1, sizeof(double));
    R = calloc((size_t)(L.nv > n1 ? L.nv : n1) * (p ? p : 1) + 1, sizeof(double));
    R2 = calloc(2 * (size_t)(L.nv > n1 ? L.nv : n1) + 1, sizeof(double));
    int tri_ok = 1;
    if (p <= 4 * LW_FEW_CHUNK && m->dense) {
      tri_ok = tri_init(&s->tri, m) == 0;
      s->forward_rows = 1;
    }
    if (!Sx || !Sn || !Z || !R || !R2 || !tri_ok) {
      lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the forward sensitivities");
      status = LW_ERR_NOMEM;
      goto out2;
    }
    if (forward && p > 0) {
      /* by columns into Sn, then the nonzero ones by rows into Sx */
      initial_sens(s, &L, Sn, nx, R, R2);
      for (int j = 0; j < p; j++)
        for (int i = 0; i < nx; i++)
          if (Sn[(size_t)j * nx + i] != 0.0) {
            s->col[j] = s->nl;
            s->live[s->nl++] = j;
            break;
          }
      for (int c = 0; c < s->nl; c++)
        for (int i = 0; i < nx; i++)
          Sx[(size_t)i * s->nl + c] = Sn[(size_t)s->live[c] * nx + i];
    }
    if (opt->keep_outputs) {
      res->ncols = 1 + ncols * (1 + p);
      res->table = malloc(sizeof(double) * (size_t)(s->N + 1) * (size_t)res->ncols);
      if (!res->table) {
        lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the output table");
        status = LW_ERR_NOMEM;
        goto out2;
      }
    }
    if (pipelined && !(pipe = pipe_start(s)))
      s->aux = 0; /* one thread after all: no step data to keep */
    res->threads = pipe ? 2 : 1;
    for (long k = 0; k <= s->N; k++) {
      if (k > 0) {
        memcpy(st0, st1, sizeof(double) * sl);
        if (pipe) {
          if (pipe_get(pipe, k, st1)) {
            *err = pipe->err;
            status = LW_ERR_SOLVER;
            goto out2;
          }
          state_load(s, st1);
        } else {
          lw_step_info info;
          state_load(s, st0);
          if (lw_step(m, s->d, &info, err)) {
            status = LW_ERR_SOLVER;
            goto out2;
          }
          state_save(s, st1);
        }
        if (forward && p > 0) {
          if (lin_step(s, st0, st1, !pipe)) {
            status = err->status;
            goto out2;
          }
          live_cols(s, Sx);
        }
        if (forward && s->nl > 0) {
          /* the nl live columns are carried: Sx by rows, q', qd', qdd',
           * lambda', z' (nq, nq, nq, nc, nz rows of nl) */
          int nl = s->nl;
          size_t np = (size_t)nq * nl;
          double *Sq = Sx, *Sqd = Sx + np, *Sqdd = Sx + 2 * np, *Sl = Sx + 3 * np, *Sz = Sx + (size_t)s->nxs * nl;
          /* scratch: ah', bh', the carry c', M ah' */
          double *AH = Sn, *BH = Sn + np, *DC = Sn + 2 * np, *MAH = DC + (size_t)s->nz * nl;
          /* propagate: ah' = -(c4 q' + 2 c2 qd' + qdd'), bh' = -(c2 q' + qd') */
          predictor_rows(AH, BH, Sq, Sqd, Sqdd, s->c2, s->c4, np);
          memset(MAH, 0, sizeof(double) * np);
          blocks_rows(m, m->mass_blocks, NULL, 0.0, 1.0, AH, MAH, nl);
          /* position: AP [q'; lambda'] = -(FP + M ah' + C bh' + Rc c') */
          scatter_cols(s, s->FP, -1.0, R, nl);
          vec_axpy(R, -1.0, MAH, np);
          if (!s->undamped)
            bmat_rows(m, &s->Cb, 0.0, -1.0, BH, R, nl);
          if (s->nz) {
            /* the carry c' = z' + h/2 e'(state k-1) enters through Rc */
            carry_rows(s, s->eqa, s->eqda, s->pea, Sq, Sqd, Sz, DC, nl);
            for (int i = 0; i < s->nz; i++)
              for (int l = 0; l < nq; l++) {
                double rc = s->Rc[(size_t)i * nq + l];
                if (rc == 0.0)
                  continue;
                for (int c = 0; c < nl; c++)
                  R[(size_t)l * nl + c] -= rc * DC[(size_t)i * nl + c];
              }
          }
          ap_solve_rows(s, R, Sq, nl);
          memcpy(Sl, R + np, sizeof(double) * (size_t)nc * nl);
          /* velocity: KM [qd'; .] = -(FV + (DVq - c2 M) q' - M bh'; RV q') */
          scatter_cols(s, s->FV, -1.0, R, nl);
          bmat_rows(m, &s->Hv, s->c2, -1.0, Sq, R, nl);
          blocks_rows(m, m->mass_blocks, NULL, 0.0, 1.0, BH, R, nl);
          rowmat_rows(m, s->RV, -1.0, 0, Sq, R + np, nl);
          km_solve_rows(s, R, Sqd, nl);
          /* acceleration: KM [qdd'; .] = -(FA + (DAq - c4 M) q' - M ah'; RA q' + RAd qd') */
          scatter_cols(s, s->FA, -1.0, R, nl);
          bmat_rows(m, &s->Ha, s->c4, -1.0, Sq, R, nl);
          vec_axpy(R, 1.0, MAH, np);
          rowmat_rows(m, s->RA, -1.0, 0, Sq, R + np, nl);
          rowmat_rows(m, s->RAd, -1.0, 0, Sqd, R + np, nl);
          km_solve_rows(s, R, Sqdd, nl);
          /* z' = c' + h/2 e'(state k) */
          if (s->nz)
            carry_rows(s, s->eqb, s->eqdb, s->peb, Sq, Sqd, DC, Sz, nl);
        }
      } else {
        memcpy(st1, st0, sizeof(double) * sl);
      }
      /* outputs and objectives at state k */
      outputs_at(s, st1, forward && p > 0, k == s->N);
      double wi, wf;
      weights(s, k, &wi, &wf);
      objectives_at(s, wi, wf, s->value);
      if (forward && p > 0 && !res->table) {
        /* the gradients alone: g_o += (Y^T gy_o) . Sx_j + gy_o . YT_j */
        for (int o = 0; o < no; o++) {
          const double *gyo = s->gy + (size_t)o * ncols;
          memset(s->e2, 0, sizeof(double) * (size_t)nx);
          const int *xs = NULL;
          int nxs = yt_gy(s, gyo, s->e2, &xs);
          double *g = s->grad + (size_t)o * p;
          for (int a = 0; a < (nxs < 0 ? nx : nxs); a++) {
            int x = nxs < 0 ? a : xs[a];
            double ex = s->e2[x];
            if (ex != 0.0)
              for (int c = 0; c < s->nl; c++)
                g[s->live[c]] += ex * Sx[(size_t)x * s->nl + c];
          }
          for (int a = 0; a < s->nplain; a++) { /* YT and gth are 0 for time-function values */
            int j = s->plist[a];
            g[j] += dotn(ncols, gyo, s->YT + (size_t)j * ncols) + s->gth[(size_t)o * p + j];
          }
        }
      } else if (forward && p > 0) {
        /* Z = Y Sx + YT (only the used outputs' rows of Y are filled) */
        for (int j = 0; j < p; j++) {
          double *z = Z + (size_t)j * ncols;
          memcpy(z, s->YT + (size_t)j * ncols, sizeof(double) * (size_t)ncols);
          for (int x = 0, cj = s->col[j]; cj >= 0 && x < nx; x++) {
            double sx = Sx[(size_t)x * s->nl + cj];
            if (sx != 0.0)
              for (int c = 0; c < ncols; c++)
                z[c] += s->Y[(size_t)x * ncols + c] * sx;
          }
          for (int o = 0; o < no; o++)
            s->grad[(size_t)o * p + j] += dotn(ncols, s->gy + (size_t)o * ncols, z) + s->gth[(size_t)o * p + j];
        }
      }
      if (res->table) {
        double *row = res->table + (size_t)k * res->ncols;
        row[0] = ST_T(st1);
        memcpy(row + 1, s->yrow, sizeof(double) * (size_t)ncols);
        for (int c = 0; c < ncols; c++)
          for (int j = 0; j < p; j++)
            row[1 + ncols + (size_t)c * p + j] = Z[(size_t)j * ncols + c];
        res->rows = k + 1;
      }
      res->steps = k;
      if (opt->progress && k % every == 0 && opt->progress(0.999 * (double)k / (double)(s->N + 1), opt->user)) {
        lw_set_error(err, LW_OK, "", ST_T(st1), "cancelled at t = %.6g s", ST_T(st1));
        status = -1;
        goto out2;
      }
    }
    res->peak_bytes = sizeof(double) * ((size_t)nx * p * 2 + (pipe ? pipe->sl * (size_t)pipe->nslot : 0));
    goto out2;
  }

  /* ----- adjoint: forward pass storing states or checkpoints ----- */
  {
    size_t need = sl * sizeof(double) * (size_t)(s->N + 1);
    long K = s->N + 1; /* segment length */
    int checkpoint = need > limit;
    if (checkpoint) {
      K = (long)ceil(sqrt((double)(s->N + 1)));
      /* checkpoints + one segment */
      need = sl * sizeof(double) * (size_t)((s->N / K + 2) + K + 1);
    }
    long nck = checkpoint ? s->N / K + 1 : s->N + 1;
    store = malloc(sizeof(double) * sl * (size_t)nck);
    seg = checkpoint ? malloc(sizeof(double) * sl * (size_t)(K + 1)) : NULL;
    if (!store || (checkpoint && !seg)) {
      lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for %zu bytes of stored states", need);
      status = LW_ERR_NOMEM;
      goto out2;
    }
    res->peak_bytes = sizeof(double) * sl * (size_t)(nck + (checkpoint ? K + 1 : 0));
    res->recomputed = checkpoint;
    memcpy(store, st0, sizeof(double) * sl);
    for (long k = 0; k <= s->N; k++) {
      if (k > 0) {
        lw_step_info info;
        if (lw_step(m, s->d, &info, err)) {
          status = LW_ERR_SOLVER;
          goto out2;
        }
        state_save(s, st1);
        if (!checkpoint)
          memcpy(store + sl * (size_t)k, st1, sizeof(double) * sl);
        else if (k % K == 0)
          memcpy(store + sl * (size_t)(k / K), st1, sizeof(double) * sl);
        state_load(s, st1);
      } else {
        memcpy(st1, st0, sizeof(double) * sl);
      }
      double wi, wf;
      weights(s, k, &wi, &wf);
      outputs_at(s, st1, 0, k == s->N);
      objectives_at(s, wi, wf, s->value);
      state_load(s, st1);
      res->steps = k;
      if (opt->progress && k % every == 0 && opt->progress(0.5 * (double)k / (double)(s->N + 1), opt->user)) {
        lw_set_error(err, LW_OK, "", ST_T(st1), "cancelled at t = %.6g s", ST_T(st1));
        status = -1;
        goto out2;
      }
    }
    /* ----- backward ----- */
    ab = calloc((size_t)nq * no + 1, sizeof(double)); /* d psi / d ah_{k+1} */
    bb = calloc((size_t)nq * no + 1, sizeof(double)); /* d psi / d bh_{k+1} */
    cx = calloc((size_t)nx + 1, sizeof(double));
    zb = calloc((size_t)s->nz * no + 1, sizeof(double)); /* d psi / d c_{k+1} */
    mu = calloc((size_t)3 * n1 + 1, sizeof(double));
    tmp = calloc((size_t)(L.nv > n1 ? L.nv : n1) + nq + 1, sizeof(double));
    double *muA = mu, *muV = mu + n1, *muP = mu + 2 * n1;
    /* per objective: solve transposed systems one objective at a time */
    long segs = checkpoint ? (s->N + K) / K : 1;
    for (long sg = segs - 1; sg >= 0; sg--) {
      long k0 = checkpoint ? sg * K : 0, k1 = checkpoint ? (sg + 1) * K : s->N;
      if (k1 > s->N)
        k1 = s->N;
      const double *base = store;
      if (checkpoint) {
        /* recompute the segment from its checkpoint */
        memcpy(seg, store + sl * (size_t)sg, sizeof(double) * sl);
        state_load(s, seg);
        for (long k = k0 + 1; k <= k1; k++) {
          lw_step_info info;
          if (lw_step(m, s->d, &info, err)) {
            status = LW_ERR_SOLVER;
            goto out2;
          }
          state_save(s, seg + sl * (size_t)(k - k0));
        }
        base = seg - sl * (size_t)k0;
      }
      for (long k = k1; k >= (sg == 0 ? 0 : k0 + 1); k--) {
        const double *stk = base + sl * (size_t)k;
        double wi, wf;
        weights(s, k, &wi, &wf);
        outputs_at(s, stk, 1, k == s->N);
        objectives_at(s, wi, wf, NULL); /* the values were summed going forward */
        if (k > 0 && lin_step(s, base + sl * (size_t)(k - 1), stk, 0)) {
          status = err->status;
          goto out2;
        }
        for (int o = 0; o < no; o++) {
          double *a = ab + (size_t)o * nq, *b = bb + (size_t)o * nq;
          /* cotangent of [q qd qdd lambda] at state k: outputs + history */
          memset(cx, 0, sizeof(double) * (size_t)nx);
          const int *xs;
          yt_gy(s, s->gy + (size_t)o * ncols, cx, &xs);
          for (int i = 0; i < nq; i++) {
            cx[i] += -s->c4 * a[i] - s->c2 * b[i];
            cx[nq + i] += -2.0 * s->c2 * a[i] - b[i];
            cx[2 * nq + i] += -a[i];
          }
          /* integrals: z_k = c_k + h/2 e_k feeds the outputs and c_k+1 =
           * z_k + h/2 e_k; z_0 = 0.  e_k's gradients: state b of the step
           * to k, or state a of the step from 0 */
          double *zo = zb + (size_t)o * s->nz;
          for (int i = 0; i < s->nz; i++) {
            const double *eq = (k > 0 ? s->eqb : s->eqa) + (size_t)i * nq;
            const double *eqd = (k > 0 ? s->eqdb : s->eqda) + (size_t)i * nq;
            const double *pe = (k > 0 ? s->peb : s->pea) + (size_t)i * p;
            double W = 0.5 * s->h * zo[i];
            if (k > 0) {
              cx[s->nxs + i] += zo[i];
              W += 0.5 * s->h * cx[s->nxs + i];
            }
            for (int l = 0; l < nq; l++) {
              cx[l] += W * eq[l];
              cx[nq + l] += W * eqd[l];
            }
            for (int j = 0; j < p; j++)
              s->grad[(size_t)o * p + j] += W * pe[j];
          }
          for (int a = 0; a < s->nplain; a++) { /* YT and gth are 0 for time-function values */
            int j = s->plist[a];
            s->grad[(size_t)o * p + j] += dotn(ncols, s->gy + (size_t)o * ncols, s->YT + (size_t)j * ncols) +
                                         s->gth[(size_t)o * p + j];
          }
          if (k == 0) {
            /* initial problems, transposed */
            double *cq = cx, *cqd = cx + nq;
            memcpy(muA, cx + 2 * nq, sizeof(double) * (size_t)nq);
            memcpy(muA + nq, cx + 3 * nq, sizeof(double) * (size_t)nc);
            kkt_solve(L.K0, n1, nq, s->sM, L.ip0, 1, muA, 1);
            gemv_t(n1, nq, -1.0, L.D0q, muA, cq);
            gemv_t(n1, nq, -1.0, L.D0qd, muA, cqd);
            for (int j = 0; j < p; j++)
              s->grad[(size_t)o * p + j] -= dotn(n1, L.F0 + (size_t)j * n1, muA);
            /* nu = Pv^T [cqd; 0] */
            memset(tmp, 0, sizeof(double) * (size_t)L.nv);
            memcpy(tmp, cqd, sizeof(double) * (size_t)nq);
            double *nuv = calloc((size_t)L.nv, sizeof(double));
            gemv_t(L.nv, L.nv, 1.0, L.Pv, tmp, nuv);
            gemv_t(L.nv, nq, -1.0, L.Dvq, nuv, cq);
            for (int j = 0; j < p; j++)
              s->grad[(size_t)o * p + j] -= dotn(L.nv, L.Fv + (size_t)j * L.nv, nuv);
            free(nuv);
            double *pg = calloc((size_t)L.ng + 1, sizeof(double));
            gemv_t(nq, L.ng, 1.0, L.Pg, cq, pg);
            for (int j = 0; j < p; j++)
              s->grad[(size_t)o * p + j] -= dotn(L.ng, L.Gth + (size_t)j * L.ng, pg);
            free(pg);
            continue;
          }
          /* step k (from k-1), transposed: A, then V, then P */
          memset(muA, 0, sizeof(double) * (size_t)n1);
          memcpy(muA, cx + 2 * nq, sizeof(double) * (size_t)nq);
          km_solve(s, muA);
          memset(muV, 0, sizeof(double) * (size_t)n1);
          memcpy(muV, cx + nq, sizeof(double) * (size_t)nq);
          lw_rowmat_mul_t(m, s->RAd, -1.0, muA + nq, muV); /* -DAqd^T muA */
          km_solve(s, muV);
          memcpy(muP, cx, sizeof(double) * (size_t)nq);
          memcpy(muP + nq, cx + 3 * nq, sizeof(double) * (size_t)nc);
          lw_bmat_mul_t(m, &s->Hv, -1.0, muV, muP); /* -DVq^T muV - DAq^T muA */
          lw_bmat_mul_t(m, &s->Ha, -1.0, muA, muP);
          mass_axpy(m, s->c2, muV, muP);
          mass_axpy(m, s->c4, muA, muP);
          lw_rowmat_mul_t(m, s->RV, -1.0, muV + nq, muP);
          lw_rowmat_mul_t(m, s->RA, -1.0, muA + nq, muP);
          ap_solve_t(s, muP);
          for (int a = 0; a < s->nact; a++) {
            int j = s->alist[a];
            s->grad[(size_t)o * p + j] -= dotn(n1, s->FP + (size_t)j * n1, muP) + dotn(n1, s->FV + (size_t)j * n1, muV) +
                                       dotn(n1, s->FA + (size_t)j * n1, muA);
          }
          /* history cotangents for step k-1: ah = -M muP_q + M muA_q, bh = -C^T muP_q + M muV_q */
          memset(a, 0, sizeof(double) * (size_t)nq);
          memset(b, 0, sizeof(double) * (size_t)nq);
          mass_axpy(m, -1.0, muP, a);
          mass_axpy(m, 1.0, muA, a);
          lw_bmat_mul_t(m, &s->Cb, -1.0, muP, b);
          mass_axpy(s->m, 1.0, muV, b);
          for (int i = 0; i < s->nz; i++)
            zo[i] = cx[s->nxs + i] - dotn(nq, s->Rc + (size_t)i * nq, muP);
        }
        if (opt->progress && k % every == 0 &&
            opt->progress(0.5 + 0.5 * (double)(s->N - k) / (double)(s->N + 1), opt->user)) {
          lw_set_error(err, LW_OK, "", ST_T(stk), "cancelled");
          status = -1;
          goto out2;
        }
      }
    }
  }
out2:
  pipe_stop(pipe);
  res->sim_steps = s->N;
  res->wall_time_s = now_s() - t_start;
  free(st0);
  free(st1);
  free(Sx);
  free(Sn);
  free(Z);
  free(R);
  free(R2);
  free(store);
  free(seg);
  free(ab);
  free(bb);
  free(cx);
  free(zb);
  free(mu);
  free(tmp);
  init_free(&L);
out:
  sens_free(s);
  lw_data_free(s->d);
  return status;
}

int lw_sensitivity(const lw_desc *desc, const lw_sens_options *opt, lw_sens_result *res)
{
  memset(res, 0, sizeof *res);
  res->error.time = NAN;
  lw_error *err = &res->error;
  int p = opt->nparams, no = opt->nobj;
  res->nparams = p;
  res->nobj = no;
  res->value = calloc((size_t)no + 1, sizeof(double));
  res->gradient = calloc((size_t)no * (p > 0 ? p : 1) + 1, sizeof(double));
  res->depends = calloc((size_t)p + 1, sizeof(int));
  for (int o = 0; o < no; o++)
    if (opt->objectives[o] < 0 || opt->objectives[o] >= desc->nobjectives) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "objective index %d out of range", opt->objectives[o]);
      return res->status = LW_ERR_MODEL;
    }
  for (int j = 0; j < p; j++) {
    if (opt->params[j] < 0 || opt->params[j] >= desc->nparams) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "parameter index %d out of range", opt->params[j]);
      return res->status = LW_ERR_MODEL;
    }
    if (check_param(desc, opt->params[j], err))
      return res->status = LW_ERR_MODEL;
  }
  lw_model *m = lw_compile(desc, err);
  if (!m)
    return res->status = err->status;
  double t0 = now_s();
  int st = LW_OK;
  if (opt->method == LW_SENS_FD) {
    /* central differences of the whole simulation: 2p + 1 runs */
    lw_sens_options o1 = *opt;
    o1.method = LW_SENS_VALUE;
    o1.keep_outputs = 0;
    o1.progress = NULL;
    lw_sens_result r0;
    st = lw_sensitivity(desc, &o1, &r0);
    if (st) {
      res->error = r0.error;
      lw_sens_result_clear(&r0);
      goto done;
    }
    memcpy(res->value, r0.value, sizeof(double) * (size_t)no);
    res->steps = r0.steps;
    res->sim_steps = r0.sim_steps;
    lw_sens_result_clear(&r0);
    double rel = opt->fd_step > 0 ? opt->fd_step : 1e-6;
    for (int j = 0; j < p && !st; j++) {
      lw_desc *dd = lw_desc_copy(desc);
      lw_param_desc *pp = &dd->params[opt->params[j]];
      double v = pp->value, hstep = rel * fmax(fabs(v), 1.0);
      double fv[2][64];
      for (int sgn = 0; sgn < 2 && !st; sgn++) {
        pp->value = v + (sgn ? -hstep : hstep);
        lw_sens_result rr;
        st = lw_sensitivity(dd, &o1, &rr);
        if (st)
          res->error = rr.error;
        for (int o = 0; o < no && o < 64; o++)
          fv[sgn][o] = rr.value[o];
        lw_sens_result_clear(&rr);
      }
      for (int o = 0; o < no && o < 64 && !st; o++)
        res->gradient[(size_t)o * p + j] = (fv[0][o] - fv[1][o]) / (2.0 * hstep);
      res->depends[j] = 1;
      lw_desc_free(dd);
      if (opt->progress && opt->progress((double)(j + 1) / (double)p, opt->user))
        break;
    }
    goto done;
  }
  lw_tangent **tg = calloc((size_t)p + 1, sizeof(lw_tangent *));
  lw_model *zero = NULL;
  if (opt->method != LW_SENS_VALUE)
    for (int j = 0; j < p; j++) {
      /* a time-function coefficient (a spline value): its derivative is
       * taken directly, on a shared model of zeros */
      if (!zero)
        zero = lw_tangent_zero_model(desc, err);
      tg[j] = zero ? lw_tangent_new_func(desc, opt->params[j], zero) : NULL;
      if (!tg[j])
        tg[j] = lw_tangent_new(desc, opt->params[j], err);
      if (!tg[j]) {
        st = err->status ? err->status : LW_ERR_MODEL;
        break;
      }
      res->depends[j] = tg[j]->any;
    }
  if (!st)
    st = run(m, opt, res, tg);
  for (int j = 0; j < p; j++)
    lw_tangent_free(tg[j]);
  free(tg);
  lw_model_free(zero);
done:
  res->wall_time_s = now_s() - t0;
  lw_model_free(m);
  if (st && !res->error.status)
    res->error.status = st;
  return res->status = st;
}

/* ---- the initial state's derivatives, for other integrators ---------------- */
int lw_sens_initial_state(const lw_model *m, lw_tangent **tg, int p, double *S0, lw_error *err)
{
  sens S = {0}, *s = &S;
  sens_init(s, m, tg, p, err);
  int n1 = s->n1, rc = -1;
  init_lin L = {0};
  double *st0 = NULL, *R = NULL, *R2 = NULL;
  s->d = lw_data_new(m);
  if (!s->d || sens_alloc(s)) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    goto out;
  }
  lw_eval_mass_dense(m, s->M);
  st0 = calloc(state_len(s), sizeof(double));
  if (!st0) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    goto out;
  }
  if (lw_initialize(m, s->d, err))
    goto out;
  state_save(s, st0);
  if (init_linearize(s, st0, &L))
    goto out;
  R = calloc((size_t)n1 * (p > 0 ? p : 1), sizeof(double));
  R2 = calloc(2 * (size_t)(L.nv > n1 ? L.nv : n1) + 1, sizeof(double));
  if (!R || !R2) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    goto out;
  }
  memset(S0, 0, sizeof(double) * (size_t)s->nxs * (size_t)p);
  initial_sens(s, &L, S0, s->nxs, R, R2);
  rc = 0;
out:
  free(st0);
  free(R);
  free(R2);
  init_free(&L);
  sens_free(s);
  lw_data_free(s->d);
  return rc;
}
