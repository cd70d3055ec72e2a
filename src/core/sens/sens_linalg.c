/* sens_linalg.c: the solves of the step matrices.  The position matrix
 * AP = [A J^T; J 0] and the velocity/acceleration matrix KM = [M J^T; J 0],
 * by their LUs or through the bodies' blocks and the Schur complements;
 * for one side (the adjoint) or for the forward's p columns by rows. */
#include "sens_internal.h"
#include "dyn/lw_step.h"
#include "la/lw_bmat.h"
#include "la/lw_matrix.h"

#include <stdlib.h>

/* LAPACK (Fortran, hidden string lengths last) */
extern void dgesvd_(const char *ju, const char *jv, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt, const int *ldvt,
                    double *work, const int *lwork, int *info, size_t, size_t);

/* The saddle-point matrices [T s J^T; s J 0] are stored with their
 * constraint rows and multiplier columns scaled by s (of the size of T), so
 * that the pivots stay of one magnitude; A x = b is solved as
 * x = D A_s^-1 D b, D = diag(1, s), for A and for A^T alike. */
void sens_kkt_solve(const double *A, int n, int nq, double scale, const int *ipiv, int trans, double *B,
                      int nrhs)
{
  for (int j = 0; j < nrhs; j++)
    for (int i = nq; i < n; i++)
      B[(size_t)j * n + i] *= scale;
  lw_lu_dense_solve(A, n, ipiv, trans, B, nrhs);
  for (int j = 0; j < nrhs; j++)
    for (int i = nq; i < n; i++)
      B[(size_t)j * n + i] *= scale;
}

/* the reciprocals of the pivots of an n x n LU */
void sens_lu_recip(const double *A, int n, double *d)
{
  for (int i = 0; i < n; i++)
    d[i] = 1.0 / A[(size_t)i * n + i];
}

/* the constraint rows and multiplier columns of the n x n saddle-point
 * matrix A (nq coordinates first) multiplied by scale */
static void kkt_scale(double *A, int n, int nq, double scale)
{
  for (int j = 0; j < nq; j++) /* J rows */
    for (int i = nq; i < n; i++)
      A[(size_t)j * n + i] *= scale;
  for (int j = nq; j < n; j++) /* J^T columns */
    for (int i = 0; i < nq; i++)
      A[(size_t)j * n + i] *= scale;
}

/* P = sens_pinv(A), A m x n (destroyed), P n x m; singular values below
 * 1e-11 of the largest are dropped */
int sens_pinv(double *A, int m, int n, double *P)
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

/* scale J into the constraint rows and scale J^T into the multiplier columns of
 * the n1 x n1 matrix K (J at the rows evaluated in d) */
static void kkt_add_jac(const sens *s, double *K, double scale)
{
  const lw_model *m = s->m;
  int nq = s->nq, n1 = s->n1, w = m->wrow;
  for (int r = 0; r < s->nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0, o = 0; k < row->nblk; o += m->blk_n[row->blk[k]], k++)
      for (int i = 0; i < m->blk_n[row->blk[k]]; i++) {
        int col = m->blk_off[row->blk[k]] + i;
        double g = s->d->jac[(size_t)r * w + o + i];
        K[(size_t)col * n1 + nq + r] += scale * g;   /* J */
        K[(size_t)(nq + r) * n1 + col] += scale * g; /* J^T */
      }
  }
}

/* K = [M J^T; J 0] at the rows evaluated in d */
void sens_km_build(sens *s, double *K)
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
 * forward sensitivities' sides go by rows, together (sens_km_solve_rows). */
void sens_km_solve(sens *s, double *b)
{
  if (!s->km_schur) {
    sens_kkt_solve(s->KM, s->n1, s->nq, s->sM, s->ipM, 0, b, 1);
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

/* AP = [A J^T; J 0] (constraint rows and columns scaled by sP) and its LU */
int sens_ap_factor_dense(sens *s)
{
  const lw_model *m = s->m;
  int nq = s->nq, n1 = s->n1;
  memset(s->AP, 0, sizeof(double) * (size_t)n1 * n1);
  for (int b = 0; b < m->nb; b++) {
    int n = m->blk_n[b], o = m->blk_off[b];
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        s->AP[(size_t)(o + j) * n1 + o + i] = s->Ab.blk[m->mblk_off[b] + (size_t)j * n + i];
  }
  if (s->Ab.off)
    for (int j = 0; j < nq; j++)
      for (int i = 0; i < nq; i++)
        s->AP[(size_t)j * n1 + i] += s->Ab.off[(size_t)j * nq + i];
  kkt_add_jac(s, s->AP, 1.0);
  if (m->nfric)
    sens_friction_ap_add(s, s->AP);
  kkt_scale(s->AP, n1, nq, s->sP);
  if (lw_lu_dense(s->AP, n1, s->ipP))
    return -1;
  sens_lu_recip(s->AP, n1, s->dP);
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
LW_KERNEL int ap_assemble_n(sens *s, const int N)
{
  const lw_model *m = s->m;
  const double *jac = s->d->jac;
  double *WP = s->WP;
  int nc = s->nc, w = N ? 2 * N : m->wrow;
  for (int b = 0; b < m->nb; b++)
    if (lw_inv_small(s->Ab.blk + lw_mboff(m, b, N), lw_bn(m, b, N), s->Ainv + lw_mboff(m, b, N)))
      return -1;
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0; k < row->nblk; k++) {
      int o = lw_loc(m, row->blk, k, N);
      blk_mv_v(s->Ainv + lw_mboff(m, row->blk[k], N), jac + (size_t)r * w + o, WP + (size_t)r * w + o,
               lw_bn(m, row->blk[k], N));
    }
  }
  memset(s->SP, 0, sizeof(double) * (size_t)nc * nc);
  for (int k = 0; k < m->nspair; k++) {
    const int *p = m->spair + 4 * k;
    const int n = N ? N : m->spair_n[k];
    s->SP[p[3]] += blk_dot(jac + p[1], WP + p[2], n);
    if (p[3] != p[0])
      s->SP[p[0]] += blk_dot(jac + p[2], WP + p[1], n);
  }
  return 0;
}

LW_CLONES static int ap_assemble(sens *s)
{
#define CALL(N) return ap_assemble_n(s, N)
  LW_FOR_NQB(s->nqb, CALL);
#undef CALL
}

/* joint friction's multiplier columns J^T - L (L = dQ^f/dl, fric_L) in
 * the Schur complement: SP's column r of a friction row takes -J A^-1 L_r,
 * Z_r = A^-1 L_r kept (fric_Z) for the solves */
static void ap_friction_columns(sens *s)
{
  const lw_model *m = s->m;
  int nq = s->nq, nc = s->nc;
  for (int e = 0; e < m->nfric; e++)
    for (int r = m->fric[e].row0; r < m->fric[e].row0 + m->fric[e].nrow; r++) {
      const double *L = s->fric_L + (size_t)r * nq;
      double *z = s->fric_Z + (size_t)r * nq, *t = s->fric_t, *col = s->SP + (size_t)r * nc;
      for (int b = 0; b < m->nb; b++)
        blk_mv(s->Ainv + m->mblk_off[b], m->blk_n[b], L + m->blk_off[b], z + m->blk_off[b], 0);
      memset(t, 0, sizeof(double) * (size_t)nc);
      lw_gradmat_mul(m, s->d->jac, z, t);
      for (int c = 0; c < nc; c++)
        col[c] -= t[c];
    }
}

/* AP's blocks inverted, and the LU of SP = J A^-1 (J^T - L) (not
 * symmetric: A holds the forces' derivatives, L joint friction's) */
int sens_ap_factor(sens *s)
{
  if (ap_assemble(s))
    return -1;
  if (s->m->nfric)
    ap_friction_columns(s);
  if (lw_lu_dense(s->SP, s->nc, s->ipS))
    return -1;
  int swapped = 0;
  for (int k = 0; k < s->nc; k++)
    swapped |= s->ipS[k] != k;
  /* friction's columns fill SP beyond the rows' pairs (tri) */
  s->sp_swapped = swapped || s->m->nfric;
  sens_lu_recip(s->SP, s->nc, s->SPd);
  return 0;
}

/* x = A^-T x with the inverses of A's blocks */
static void a_solve_t(const sens *s, double *x)
{
  const lw_model *m = s->m;
  double t[LW_MAXQB];
  for (int b = 0; b < m->nb; b++) {
    int nqb = m->blk_n[b];
    double *xb = x + m->blk_off[b];
    blk_mv(s->Ainv + m->mblk_off[b], nqb, xb, t, 1);
    memcpy(xb, t, sizeof(double) * (size_t)nqb);
  }
}

/* AP^T [x; y] = [f; g] for one side b (n1), in place (the adjoint's
 * position problem; the forward sensitivities' sides go by rows,
 * ap_solve_rows):  y = SP^-T ((J - L^T) A^-T f - g),  x = A^-T (f - J^T y)
 * (L: joint friction's dQ^f/dl, AP = [A J^T - L; J 0]) */
void sens_ap_solve_t(sens *s, double *b)
{
  if (!s->ap_struct) {
    sens_kkt_solve(s->AP, s->n1, s->nq, s->sP, s->ipP, 1, b, 1);
    return;
  }
  const lw_model *m = s->m;
  int nq = s->nq;
  double *f = b, *g = b + nq, *t = s->apt;
  a_solve_t(s, f);
  for (int r = 0; r < s->nc; r++)
    g[r] = -g[r];
  lw_gradmat_mul(m, s->d->jac, f, g);
  for (int e = 0; e < m->nfric; e++) /* (J - L^T) A^-T f - g */
    for (int r = m->fric[e].row0; r < m->fric[e].row0 + m->fric[e].nrow; r++)
      g[r] -= dotn(nq, s->fric_L + (size_t)r * nq, f);
  lu_solve_rows(s->SP, s->nc, s->ipS, s->SPd, 1, g, 1);
  /* f holds A^-T f: A^-T (f - J^T y) = A^-T f - A^-T J^T y */
  memset(t, 0, sizeof(double) * (size_t)nq);
  lw_gradmat_mul_t(m, s->d->jac, -1.0, g, t);
  a_solve_t(s, t);
  for (int i = 0; i < nq; i++)
    f[i] += t[i];
}

/* ---- the factors' nonzeros -------------------------------------------- */
void sens_tri_free(tri_lists *t)
{
  free(t->lp);
  free(t->lj);
  free(t->lpos);
  free(t->up);
  free(t->uj);
  free(t->upos);
  free(t->cpos);
}

int sens_tri_init(tri_lists *t, const lw_model *m)
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

/* Y += alpha (A + cb B) X, A and B block-diagonal (the bodies' blocks,
 * N their size or 0 for mixed sizes; B NULL: A alone) */
LW_KERNEL void blocks_rows_n(const lw_model *m, const int N, const double *A, const double *B, double cb,
                             double alpha, const double *restrict X, double *restrict Y, const int p)
{
  for (int b = 0; b < m->nb; b++) {
    const int nqb = lw_bn(m, b, N);
    const double *Ab = A + lw_mboff(m, b, N), *Bb = B ? B + lw_mboff(m, b, N) : NULL;
    const double *Xb = X + (size_t)lw_boff(m, b, N) * p;
    for (int i = 0; i < nqb; i++) {
      double *yi = Y + ((size_t)lw_boff(m, b, N) + i) * p;
#define CHUNK(c0, n) blocks_chunk(nqb, Ab, Bb, cb, alpha, Xb, yi, i, p, c0, n)
      LW_ROWS_CHUNKS(p, CHUNK);
#undef CHUNK
    }
  }
}

/* columns c0 .. c0 + n of row r: y += alpha R X, or with neg y = alpha R X
 * - y (g: the row's entries, q0 its two blocks' first coordinates, the
 * second -1 when it has one; n0, n1 the two blocks' sizes) */
LW_KERNEL void rowmat_chunk(const int n0, const int n1, const double *g, const int *q0, double alpha,
                            const int neg, const double *restrict X, double *restrict y, int p, int c0, const int n)
{
  lw_rowvec acc;
  lw_rv_zero(&acc);
  for (int k = 0; k < 2 && q0[k] >= 0; k++) {
    const double *restrict x = X + (size_t)q0[k] * p + c0;
    const double *gk = g + (k ? n0 : 0);
    for (int i = 0; i < (k ? n1 : n0); i++)
      if (gk[i] != 0.0) /* the rows of natural coordinates are mostly zeros */
        lw_rv_axpy(&acc, gk[i], x + (size_t)i * p, n);
  }
  if (neg)
    lw_rv_add_to_neg(&acc, alpha, y + c0, n);
  else
    lw_rv_add_to(&acc, alpha, y + c0, n);
}

/* Y (nc rows) += alpha R X (neg: Y = alpha R X - Y), R by rows like d->jac */
LW_KERNEL void rowmat_rows_n(const lw_model *m, const int N, const double *R, double alpha, const int neg,
                             const double *restrict X, double *restrict Y, const int p)
{
  const int w = N ? 2 * N : m->wrow;
  for (int r = 0; r < m->nc; r++) {
    const double *g = R + (size_t)r * w;
    const int *q0 = m->rq0 + 2 * r, n0 = lw_row_bn(m, r, 0, N), n1 = lw_row_bn(m, r, 1, N);
    double *y = Y + (size_t)r * p;
#define CHUNK(c0, n) rowmat_chunk(n0, n1, g, q0, alpha, neg, X, y, p, c0, n)
    LW_ROWS_CHUNKS(p, CHUNK);
#undef CHUNK
  }
}

/* columns c0 .. c0 + n of row r: X += alpha R^T y */
LW_KERNEL void rowmat_t_chunk(const int n0, const int n1, const double *g, const int *q0, double alpha,
                              const double *restrict y, double *restrict X, int p, int c0, const int n)
{
  lw_rowvec yr;
  lw_rv_load(&yr, y + c0, n);
  lw_rv_scale(&yr, alpha, n);
  for (int k = 0; k < 2 && q0[k] >= 0; k++) {
    double *restrict x = X + (size_t)q0[k] * p + c0;
    const double *gk = g + (k ? n0 : 0);
    for (int i = 0; i < (k ? n1 : n0); i++)
      lw_rv_add_to(&yr, gk[i], x + (size_t)i * p, n);
  }
}

/* X (nq rows) += alpha R^T Y */
LW_KERNEL void rowmat_t_rows_n(const lw_model *m, const int N, const double *R, double alpha,
                               const double *restrict Y, double *restrict X, const int p)
{
  const int w = N ? 2 * N : m->wrow;
  for (int r = 0; r < m->nc; r++) {
    const double *g = R + (size_t)r * w, *y = Y + (size_t)r * p;
    const int *q0 = m->rq0 + 2 * r, n0 = lw_row_bn(m, r, 0, N), n1 = lw_row_bn(m, r, 1, N);
#define CHUNK(c0, n) rowmat_t_chunk(n0, n1, g, q0, alpha, y, X, p, c0, n)
    LW_ROWS_CHUNKS(p, CHUNK);
#undef CHUNK
  }
}

LW_CLONES void sens_blocks_rows(const lw_model *m, const double *A, const double *B, double cb, double alpha,
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

/* y += alpha B^T x for one of the step's matrices of blocks: its blocks
 * by lw_bmat_mul_t, its entries between bodies over the pairs of bodies
 * that can hold any (s->opair), each column's in ascending rows as
 * lw_bmat_mul_t sums them (the others are 0) */
void sens_bmat_mul_t(const sens *s, const lw_bmat *B, double alpha, const double *x, double *y)
{
  const lw_model *m = s->m;
  const lw_bmat Bd = {B->blk, NULL};
  lw_bmat_mul_t(m, &Bd, alpha, x, y);
  if (!B->off)
    return;
  int nq = m->nq;
  for (int k = 0; k < s->nopair;) {
    int bj = s->opair[2 * k + 1], k1 = k;
    while (k1 < s->nopair && s->opair[2 * k1 + 1] == bj)
      k1++;
    for (int j = m->blk_off[bj]; j < m->blk_off[bj] + m->blk_n[bj]; j++) {
      const double *col = B->off + (size_t)j * nq;
      double t = 0;
      for (int l = k; l < k1; l++) {
        int bi = s->opair[2 * l];
        for (int i = m->blk_off[bi]; i < m->blk_off[bi] + m->blk_n[bi]; i++)
          t += col[i] * x[i];
      }
      y[j] += alpha * t;
    }
    k = k1;
  }
}

/* Y += alpha (B - cm M) X for a matrix of blocks B and its entries between
 * bodies */
void sens_bmat_rows(const lw_model *m, const lw_bmat *B, double cm, double alpha, const double *X, double *Y, int p)
{
  sens_blocks_rows(m, B->blk, cm != 0.0 ? m->mass_blocks : NULL, -cm, alpha, X, Y, p);
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
LW_CLONES void sens_rowmat_rows(const lw_model *m, const double *R, double alpha, int neg, const double *X,
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

/* a saddle-point matrix by its LU (sens_kkt_solve; d its pivots' reciprocals)
 * for the p columns of B by rows */
static void kkt_solve_rows(sens *s, const double *K, double scale, const int *ipiv, const double *d, double *B, int p)
{
  size_t r0 = (size_t)s->nq * p, r1 = (size_t)s->n1 * p;
  for (size_t i = r0; i < r1; i++)
    B[i] *= scale;
  lu_solve_rows(K, s->n1, ipiv, d, 0, B, p);
  for (size_t i = r0; i < r1; i++)
    B[i] *= scale;
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
  sens_blocks_rows(s->m, Binv, NULL, 0.0, 1.0, F, X, p);  /* B^-1 f */
  sens_rowmat_rows(s->m, s->d->jac, 1.0, 1, X, G, p); /* J B^-1 f - g */
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

/* joint friction's part of AP's solve through its blocks (AP = [A J^T -
 * L; J 0]): x = A^-1 f - W y + Z y over the friction rows (Z = A^-1 L),
 * for p sides by rows */
static void ap_friction_rows(const sens *s, const double *Y, double *X, int p)
{
  const lw_model *m = s->m;
  int nq = s->nq;
  for (int e = 0; e < m->nfric; e++)
    for (int r = m->fric[e].row0; r < m->fric[e].row0 + m->fric[e].nrow; r++) {
      const double *z = s->fric_Z + (size_t)r * nq, *y = Y + (size_t)r * p;
      for (int i = 0; i < nq; i++)
        if (z[i] != 0.0)
          for (int c = 0; c < p; c++)
            X[(size_t)i * p + c] += z[i] * y[c];
    }
}

/* AP [x; y] = [f; g] for the p columns of B (n1 x p) by rows: x into X,
 * y in place of g */
void sens_ap_solve_rows(sens *s, double *B, double *X, int p)
{
  if (s->ap_struct) {
    schur_solve_rows(s, s->Ainv, s->WP, 1, B, X, p);
    if (s->m->nfric)
      ap_friction_rows(s, B + (size_t)s->nq * p, X, p);
  } else {
    kkt_solve_rows(s, s->AP, s->sP, s->ipP, s->dP, B, p);
    memcpy(X, B, sizeof(double) * (size_t)s->nq * p);
  }
}

/* [M J^T; J 0] [x; y] = [f; g] by rows (sens_km_solve by rows): x into X */
void sens_km_solve_rows(sens *s, double *B, double *X, int p)
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

/* R (n1 x p by rows) = sign times the step's parameter columns F (n1
 * each; zero where not active), parameter j's in column col[j] (every
 * active one has one) and zeros elsewhere */
void sens_step_cols_scatter(const sens *s, const int *col, const double *F, double sign, double *R, int p)
{
  int n1 = s->n1;
  const double *f[LW_FEW_CHUNK];
  int rows = s->nact == p && p <= LW_FEW_CHUNK;
  for (int a = 0; rows && a < p; a++) {
    rows = col[s->alist[a]] == a;
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
    int c = col[j];
    for (int i = 0; i < n1; i++)
      R[(size_t)i * p + c] = sign * fj[i];
  }
}

/* the controllers' integrals by rows (the p live columns): out = base +
 * h/2 e', the errors' derivatives e' = pe + eq q' + eqd qd' (gradients at
 * one state, nz x nq; pe nz x s->p by parameter) */
void sens_carry_rows(const sens *s, const double *eq, const double *eqd, const double *pe, const double *Sq,
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

/* y += a x, n entries (a = 1 or -1: y + x or y - x, exactly), in vectors */
LW_CLONES void sens_vec_axpy(double *restrict y, double a, const double *restrict x, size_t n)
{
  lw_run_axpy(y, a, x, (int)n);
}

