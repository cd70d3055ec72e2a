/* sens_internal.h: the state shared by the files of src/core/sens/, which
 * compute exact sensitivities of objectives over a simulation (forward and
 * discrete adjoint of the discretized ALI3-P step; see sens_run.c for the
 * equations).
 *
 * One header for all of them, not one per file: every file works on the one
 * `sens` workspace below, whose fields the drivers, the step linearization,
 * the objectives and the solves all read and write, so that splitting it
 * would only scatter its documentation.  The functions are grouped by the
 * file that defines them.  Nothing here is part of the public API
 * (linkwright.h) or of the rest of the core (lw_internal.h). */
#ifndef LW_SENS_INTERNAL_H
#define LW_SENS_INTERNAL_H

#define _POSIX_C_SOURCE 200809L
#include "lw_internal.h"
#include "la/lw_bmat.h"
#include "la/lw_rowvec.h"
#include "integ/lw_integrator.h"
#include "dyn/lw_newmark.h"

#include <math.h>
#include <string.h>
#include <time.h>

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

typedef struct sens {
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
  /* the step's Newmark coefficients (c2, c4 above are nm.c2, nm.c4); with
   * numerical damping (nm.on) the states carry the pseudo-acceleration a,
   * na = nq more doubles each (ST_A), and the forward nq more rows */
  lw_newmark nm;
  int na;
  /* the tolerance mode: the steps' lengths (N of them, step k of hs[k-1]),
   * held fixed; NULL: every step of m->opt.step (sens_steps.c) */
  const double *hs;
  double *M, *AP, *KM, *FP, *FV, *FA;
  int *ipP, *ipM;
  double *dP, *dM; /* (n1) reciprocals of the pivots of the LUs of AP and KM */
  double sP, sM; /* scales of the constraint rows in AP and KM */
  /* the step's linearization in structured form (lw_lin_blocks): the
   * position matrix A = c4 M + K + C' + H(lambda) (AP = [A J^T; J 0]), the
   * Hessian terms H(sigma), H(kappa) of the velocity and acceleration
   * problems, the damping C = -dQ/dv; the rate matrices by rows */
  lw_bmat Ab, Hv, Ha, Cb;
  lw_bmat Kb;       /* A without its c4 M: blocks of their own, off-block entries Ab's */
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
  double *apt; /* (nq) scratch of sens_ap_solve_t */
  int km_schur;  /* KM solved through S = J M^-1 J^T (d->S, d->W) instead of its LU */
  tri_lists tri;     /* where SP's LU and S's Cholesky factor can be nonzero (forward by rows) */
  int sp_swapped;    /* SP's LU exchanged rows this step: its zeros are elsewhere */
  double *kxm;   /* (nq) scratch of sens_km_solve */
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
  /* the coordinates q_g a joint coordinate ci reads (its vectors' weights
   * on them are not zero): cd_q[cd_ptr[ci] .. cd_ptr[ci + 1]) ascending.
   * Along any other coordinate its value, rate and their derivatives are
   * exactly 0 (a revolute joint's angle does not read its bodies' origins) */
  int *cd_ptr, *cd_q;
  /* the coordinates along which force n's Q can change (the step's
   * lw_lin_blocks_dirs): fd_q[fd_ptr[n] .. fd_ptr[n + 1]); a controller's
   * are those its actuated and measured coordinates read, any other
   * force's every coordinate of its blocks */
  int *fd_ptr, *fd_q;
  /* the pairs of distinct bodies (bi, bj) whose part of the lw_bmat's off
   * can be written (a row's, a force's or a friction element's two
   * bodies): opair[2 k], opair[2 k + 1], k < nopair; the rest stays 0 */
  int *opair, nopair;
  /* the state directions x along which output k's derivative can be
   * nonzero: od_x[od_ptr[k] .. od_ptr[k + 1]) ascending (Y's other rows for
   * it stay 0) */
  int *od_ptr, *od_x;
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
  /* joint friction (sens_friction.c): the multipliers l it read in this
   * step (nc), fric_L = dQ^f/dl (nq x nc, column-major; only the friction
   * joints' columns written), whether l holds the last state's kappa too
   * (fric_kap), scratch fric_e, fric_d (nq); each element's gradients and
   * parameter derivatives at this step's point (nfric; fric_dp_ok: made
   * for every element by sens_friction_lin since sens_friction_point) */
  double *fric_L, *fric_l, *fric_e, *fric_d;
  /* with AP solved through the bodies' blocks (ap_struct): fric_Z = A^-1
   * fric_L (its friction rows' columns), fric_t (nc) scratch */
  double *fric_Z, *fric_t;
  struct lw_fric_dp *fric_dp;
  int fric_kap, fric_dp_ok;
} sens;

/* a stored state: t0, nstep, t, q, qd, qdd, lambda, unwrapped coordinates,
 * the controllers' integrals z and the carry c that entered the step to it,
 * and the multipliers of the step's exact projections (a flag, sigma, kappa);
 * the switches' sides (one number); then, with aux, the step data described at sens.aux; last, with numerical
 * damping, the pseudo-acceleration (nq) */
static inline size_t sens_aux_len(const sens *s)
{
  size_t w = (size_t)s->nc * s->m->wrow;
  return s->aux ? w + (size_t)s->nc * (s->nc + 1) / 2 + (s->aux > 1 ? w : 0) : 0;
}

/* doubles in one stored state */
static inline size_t sens_state_len(const sens *s)
{
  return 5 + 3 * (size_t)s->nq + 3 * (size_t)s->nc + (size_t)s->ncoords + 2 * (size_t)s->nz + sens_aux_len(s) +
         (size_t)s->na;
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
#define ST_SW(s, st) (ST_MULT(s, st) + 1 + 2 * (s)->nc) /* the switches' sides (lw_switches_pack) */
#define ST_AUX(s, st) (ST_SW(s, st) + 1) /* jac, the lower triangle of chol(S) by columns */
#define ST_A(s, st) ((st) + sens_state_len(s) - (size_t)(s)->na) /* the pseudo-acceleration (nm.on) */

enum { OUT_EVERY = 1, OUT_FINAL = 2 };

/* the initial problems linearized (sens_initial.c) */
typedef struct {
  int ng, na, nv;
  double *Pg;          /* nq x ng: pinv of the position Jacobian */
  double *Gth;         /* ng x p */
  double *dq0;         /* nq x p: the part of the initial guess's derivative the assembly keeps, or NULL */
  char *guess_free;    /* p: that part is not zero */
  double *Pv;          /* nv x nv: pinv of [M A^T; A 0] */
  double *Dvq, *Fv;    /* nv x nq, nv x p */
  double *K0;          /* n1 x n1 LU of [M J^T; J 0] */
  int *ip0;
  double *D0q, *D0qd, *F0; /* n1 x nq, n1 x nq, n1 x p */
} sens_initial_lin;

/* monotonic wall time in seconds */
static inline double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* in four independent sums: one chain of additions is bound by their latency */
static inline double dotn(int n, const double *a, const double *b)
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
static inline void gemv(int m, int n, double alpha, const double *A, const double *x, double *y)
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
static inline void mass_axpy(const lw_model *m, double alpha, const double *x, double *y)
{
  const lw_bmat M = {m->mass_blocks, NULL};
  lw_bmat_mul(m, &M, alpha, x, y);
}

/* y (n) += alpha A^T x, A m x n */
static inline void gemv_t(int m, int n, double alpha, const double *A, const double *x, double *y)
{
  for (int j = 0; j < n; j++)
    y[j] += alpha * dotn(m, A + (size_t)j * m, x);
}

/* e = the j-th unit vector of length n */
static inline void unit_vector(double *e, int n, int j)
{
  memset(e, 0, sizeof(double) * (size_t)n);
  e[j] = 1.0;
}

/* ---- sens_linalg.c: the step matrices' solves (KKT, Schur complement, bodies'
 * blocks), for one side or for p sides by rows ---- */
/* x = D A_s^-1 D b for a saddle-point LU stored with its constraint rows scaled by scale (trans: A^T) */
void sens_kkt_solve(const double *A, int n, int nq, double scale, const int *ipiv, int trans, double *B, int nrhs);
/* d (n) = the reciprocals of the pivots of an n x n LU */
void sens_lu_recip(const double *A, int n, double *d);
/* P (n x m) = pinv(A), A (m x n) destroyed; -1 if the SVD fails */
int sens_pinv(double *A, int m, int n, double *P);
/* K = [M J^T; J 0] at the rows evaluated in s->d */
void sens_km_build(sens *s, double *K);
/* [M J^T; J 0] [x; y] = b in place, by its LU or through S = J M^-1 J^T */
void sens_km_solve(sens *s, double *b);
/* AP = [A J^T; J 0] assembled dense and factored by LU */
int sens_ap_factor_dense(sens *s);
/* AP factored: by the bodies' blocks and the Schur complement SP, else dense */
int sens_ap_factor(sens *s);
/* AP^T [x; y] = b in place (the adjoint's position solve) */
void sens_ap_solve_t(sens *s, double *b);
/* frees the nonzero lists of the Schur factors */
void sens_tri_free(tri_lists *t);
/* finds where the Schur complements' factors can be nonzero */
int sens_tri_init(tri_lists *t, const lw_model *m);
/* Y += alpha (A + cb B) X, block-diagonal A and B, p columns by rows */
void sens_blocks_rows(const lw_model *m, const double *A, const double *B, double cb, double alpha,
                      const double *X, double *Y, int p);
/* Y += alpha (B - cm M) X for a matrix of blocks B, p columns by rows */
void sens_bmat_mul_t(const sens *s, const lw_bmat *B, double alpha, const double *x, double *y);
void sens_bmat_rows(const lw_model *m, const lw_bmat *B, double cm, double alpha, const double *X, double *Y,
                    int p);
/* Y += alpha R X (neg: Y = alpha R X - Y), R by rows like d->jac */
void sens_rowmat_rows(const lw_model *m, const double *R, double alpha, int neg, const double *X, double *Y,
                      int p);
/* AP [x; y] = B for p columns by rows: x into X, y left in B */
void sens_ap_solve_rows(sens *s, double *B, double *X, int p);
/* [M J^T; J 0] [x; y] = B for p columns by rows: x into X */
void sens_km_solve_rows(sens *s, double *B, double *X, int p);
/* R (n1 x p by rows) = sign times the step's parameter columns F, parameter j's in column col[j] */
void sens_step_cols_scatter(const sens *s, const int *col, const double *F, double sign, double *R, int p);
/* out = base + h/2 e' of the controllers' integrals, p live columns by rows */
void sens_carry_rows(const sens *s, const double *eq, const double *eqd, const double *pe, const double *Sq,
                     const double *Sqd, const double *base, double *out, int p);
/* y += a x over n entries, in vectors */
void sens_vec_axpy(double *restrict y, double a, const double *restrict x, size_t n);

/* ---- sens_carry.c: columns carried over one step ---- */
/* columns of the state's derivatives by rows: q', qd', qdd', lambda', z'
 * (nx rows), then with joint friction nc rows kappa', with numerical
 * damping nq rows a'; w columns.  Parameter j's step columns go to column
 * col[j] (the z', kappa' rows' parameter terms are the forward's live
 * columns: s->live).  Scratch: xp, vp, dp (nq x w each), rp (nq x w, with
 * numerical damping), dc (nz x w), r (max(n1, nv) x w) */
typedef struct {
  double *X;
  int w;
  const int *col;
  double *xp, *vp, *dp, *rp, *dc, *r;
} sens_cols;
/* the columns X of state n carried to state n+1 over the step linearized
 * in s, in the increment form (the position's increment over its
 * predictor solved for, sens_carry.c) */
void sens_step_carry(sens *s, const sens_cols *c);

/* ---- sens_state.c: stored states (layout at sens_aux_len) ---- */
/* state st = the simulation data d (and the step data kept with aux) */
void sens_state_save_data(const sens *s, const lw_data *d, double *st);
/* state st = the workspace's data s->d */
void sens_state_save(const sens *s, double *st);
/* s->d = state st, ready to step from it */
void sens_state_load(const sens *s, const double *st);
/* d->jac (and with_s: S's factor and W) = the step data kept with state st */
void sens_state_aux_load(const sens *s, const double *st, int with_s);

/* ---- sens_step.c: one step's linearization ---- */
/* the bucket of the time functions' coefficients that time t falls in */
int sens_time_bucket(const sens *s, double t);
/* linearizes the step from state sa to state sb: the step matrices factored, the parameter columns FP, FV, FA */
int sens_step_linearize(sens *s, const double *sa, const double *sb, int fresh);

/* ---- sens_objectives.c: outputs and objectives along a run ---- */
/* the outputs at state st into s->yrow; with lin, their derivatives Y and YT */
void sens_outputs_at(sens *s, const double *st, int lin, int final);
/* adds the objectives' values at this state to value, their derivatives into s->gy, s->gth */
void sens_objectives_at(sens *s, double wi, double wf, double *value);
/* y (nx) += Y^T g; returns how many x it reached (xs lists them), or -1 for all */
int sens_outputs_cotangent(sens *s, const double *g, double *y, const int **xs);
/* the trapezoidal weight wi of state k in the integrals and wf of the final terms */
void sens_trapezoid_weights(const sens *s, long k, double *wi, double *wf);

/* ---- sens_initial.c: the initial state's sensitivities ---- */
/* frees the initial problems' linearization */
void sens_initial_free(sens_initial_lin *L);
/* linearizes the position, velocity and acceleration problems at state st */
int sens_initial_linearize(sens *s, const double *st, sens_initial_lin *L);
/* the initial state's derivatives into the p columns of X */
void sens_initial_solve(sens *s, const sens_initial_lin *L, double *X, int ldx, double *R, double *R2);

/* ---- sens_friction.c: joint friction in the step's linearization (docs/friction.md sec. 8.5) ---- */
/* the friction workspace; -1 when out of memory */
int sens_friction_alloc(sens *s);
/* the multipliers friction read in the step from state sa to sb: lambda_b,
 * plus kappa_a when state a had it (fric_kap) */
void sens_friction_point(sens *s, const double *sa, const double *sb);
/* A += -(dQ^f/dq + c2 dQ^f/dqd), C += -dQ^f/dqd in s->Ab, s->Cb at pt, and
 * fric_L = dQ^f/dl */
void sens_friction_lin(sens *s, const lw_lin_point *pt);
/* AP's multiplier columns (unscaled, n1 x n1) -= fric_L */
void sens_friction_ap_add(const sens *s, double *AP);
/* a parameter's step column fp (nq) -= dQ^f/drho along tangent tg */
void sens_friction_param_col(sens *s, const lw_lin_point *pt, const lw_tangent *tg, double *fp);
/* forward: R (nq rows of p) += fric_L Sk, Sk (nc rows of p) the last state's kappa' (when fric_kap) */
void sens_friction_kap_rows(const sens *s, const double *Sk, double *R, int p);
/* adjoint: kb (nc) = fric_L^T muP (the cotangent of the last state's kappa; 0 unless fric_kap) */
void sens_friction_kap_cotangent(const sens *s, const double *muP, double *kb);
/* the initial acceleration problem's friction: K0's multipliers' columns
 * (scaled by scale), D0q's and D0qd's coordinates' columns less Q^f's
 * derivatives at pt (q, qd, its multipliers l[0]) */
void sens_friction_initial(sens *s, const lw_lin_point *pt, double *K0, double *D0q, double *D0qd, double scale);

/* ---- sens_setup.c: the workspace ---- */
/* frees the workspace's arrays */
void sens_free(sens *s);
/* allocates the workspace for the sizes sens_sizes_init set; -1 when out of memory */
int sens_alloc(sens *s);
/* the sizes and constants for model m and p parameters */
void sens_sizes_init(sens *s, const lw_model *m, lw_tangent **tg, int p, lw_error *err);

/* ---- sens_pipeline.c: the forward on two threads (one steps, the caller linearizes) ---- */
typedef struct sens_pipe sens_pipe;
/* starts the stepping thread from the initial state; NULL if it cannot */
sens_pipe *sens_pipe_start(sens *s);
/* state k into st, waiting for it; -1 when the stepping failed before it */
int sens_pipe_get(sens_pipe *pp, long k, double *st);
/* the stepping thread's failure */
const lw_error *sens_pipe_error(const sens_pipe *pp);
/* the bytes of the ring of states */
size_t sens_pipe_bytes(const sens_pipe *pp);
/* stops the stepping thread and frees the pipeline (NULL: nothing) */
void sens_pipe_stop(sens_pipe *pp);

/* ---- sens_run.c: one run, shared by its drivers ---- */
typedef struct sens_run {
  const lw_model *m;
  const lw_sens_options *opt;
  lw_sens_result *res;
  sens *s;
  lw_error *err;
  int forward, adjoint; /* the method (neither: values alone) */
  int pipelined;        /* the forward on two threads is wanted */
  size_t limit;         /* bytes of stored states before the adjoint checkpoints */
  size_t sl;            /* doubles in a stored state */
  double *st0, *st1;    /* the states a step goes from and to (st0: the initial state first) */
  sens_initial_lin L;   /* the initial problems linearized (forward, adjoint) */
  long every;           /* progress is reported every so many states */
  lw_model mh;          /* the tolerance mode: the model with step k's options (sens_steps.c) */
} sens_run;

/* ---- sens_steps.c: the steps' lengths ---- */
/* the model step k (from state k - 1 to k, 1 <= k <= N) is taken with,
 * and s->h, c2, c4, sP of that step; with every step of m->opt.step, r->m
 * and nothing changed */
const lw_model *sens_step_set(sens_run *r, long k);
/* the length of step k (1 <= k <= N; s->h past them) */
static inline double sens_step_h(const sens *s, long k)
{
  return s->hs && k >= 1 && k <= s->N ? s->hs[k - 1] : s->h;
}
/* s->d, loaded with stored state k (sens_state_load), made to step on
 * from it as the run did: lw_step counts the time as t0 + nstep h while
 * the steps keep one length h and counts anew from t where it changes, so
 * d's length is set to that of the step to state k (a state stepped again
 * otherwise ends a rounding away, and a step with events, whose Jacobian
 * the penalty's conditioning makes sensitive to it, differs in the
 * adjoint by 1e-6 of its entries; the initial state starts a count) */
void sens_step_resume(sens *s, long k);
/* the tolerance mode's steps' lengths: given (n of them), or when NULL
 * those of a run to m->opt.t_end, into *hs (the caller frees it); s->N
 * and s->hs set.  LW_OK or the status with r->err set */
int sens_steps_start(sens_run *r, const double *given, long n, double **hs);

/* progress at state k reported (every so many states); nonzero: cancelled */
int sens_run_cancelled(const sens_run *r, long k, double fraction);

/* ---- the drivers ---- */
/* sens_forward.c: values alone or forward sensitivities over states 0 .. N */
int sens_forward_run(sens_run *r);
/* sens_adjoint.c: values and the discrete adjoint's gradients */
int sens_adjoint_run(sens_run *r);
/* sens_vi.c: forward and adjoint of the variational integrator's steps
 * (values alone through sens_forward_run) */
int sens_vi_run(sens_run *r);

#endif /* LW_SENS_INTERNAL_H */
