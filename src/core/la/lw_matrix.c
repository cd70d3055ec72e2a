/* lw_matrix.c: the block-sparse symmetric pattern (upper triangle, CSC),
 * products with M and the constraint Jacobian, and the SPD solver: dense
 * LAPACK Cholesky for small models, CHOLMOD (symbolic analysis once,
 * numeric factorization per call) for large ones. */
#include "la/lw_matrix.h"
#include "lw_internal.h"
#include "la/lw_bmat.h"
#include "la/lw_rowvec.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Dense Cholesky A = L L^T of the lower triangle, column-major (entry
 * (i, j), i >= j, at a[j n + i]), in place; the upper triangle is not read.
 * For the small matrices of a few bodies this beats LAPACK's dpotrf/dpotrs,
 * whose call overhead dominates below n ~ 100.  Left-looking by columns:
 * each column receives the earlier ones as contiguous axpy updates, which
 * vectorize and do not wait on one another (the dot-product form spent its
 * time in the latency of one long chain of additions); the zero entries of
 * a block-sparse matrix skip their updates.  L is kept with the reciprocals
 * of its diagonal on the diagonal: one division per column. */
int lw_chol_dense(double *a, int n, double rel_pivot)
{
  for (int j = 0; j < n; j++) {
    double *restrict cj = a + (size_t)j * n;
    double d0 = cj[j];
    for (int k = 0; k < j; k++) {
      const double *restrict ck = a + (size_t)k * n;
      double ljk = ck[j];
      if (ljk == 0.0)
        continue;
      for (int i = j; i < n; i++)
        cj[i] -= ljk * ck[i];
    }
    double d = cj[j];
    if (!(d > rel_pivot * d0))
      return -1;
    double r = 1.0 / sqrt(d);
    cj[j] = r;
    for (int i = j + 1; i < n; i++)
      cj[i] *= r;
  }
  return 0;
}

/* lw_chol_dense for a positive semi-definite matrix of which up to maxdrop
 * rows are dependent on earlier ones: such a row's pivot, lost to
 * cancellation (at most rel_pivot times its diagonal), is dropped instead
 * of failing: its column of L is zero, reciprocal pivot included, so that
 * lw_chol_dense_solve gives its unknown 0 and solves the other equations
 * exactly (a consistent right-hand side satisfies the dropped ones too).
 * Returns the number dropped, or -1 beyond maxdrop. */
int lw_chol_dense_drop(double *a, int n, double rel_pivot, int maxdrop)
{
  int ndrop = 0;
  for (int j = 0; j < n; j++) {
    double *restrict cj = a + (size_t)j * n;
    double d0 = cj[j];
    for (int k = 0; k < j; k++) {
      const double *restrict ck = a + (size_t)k * n;
      double ljk = ck[j];
      if (ljk == 0.0)
        continue;
      for (int i = j; i < n; i++)
        cj[i] -= ljk * ck[i];
    }
    double d = cj[j];
    if (!(d > rel_pivot * d0)) {
      if (++ndrop > maxdrop || !(fabs(d) <= rel_pivot * fabs(d0)))
        return -1;
      for (int i = j; i < n; i++)
        cj[i] = 0.0;
      continue;
    }
    double r = 1.0 / sqrt(d);
    cj[j] = r;
    for (int i = j + 1; i < n; i++)
      cj[i] *= r;
  }
  return ndrop;
}

/* Scalar loops: vectorized, the updates of the next column would load each
 * pair of entries across two stores of the last one, which the store buffer
 * cannot forward (measured: the solve took a quarter longer). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
void lw_chol_dense_solve(const double *a, int n, double *x)
{
  /* L y = b, by columns */
  for (int j = 0; j < n; j++) {
    const double *restrict cj = a + (size_t)j * n;
    double yj = x[j] * cj[j];
    x[j] = yj;
    if (yj != 0.0)
      for (int i = j + 1; i < n; i++)
        x[i] -= cj[i] * yj;
  }
  /* L^T x = y, by the rows of L: scalar updates of the entries still to
   * come (a dot product over the entries just found would reload each
   * fresh store inside a wider load, which the store buffer cannot forward) */
  for (int j = n - 1; j >= 0; j--) {
    double xj = x[j] * a[(size_t)j * n + j];
    x[j] = xj;
    for (int k = 0; k < j; k++)
      x[k] -= a[(size_t)k * n + j] * xj;
  }
}

/* nrhs right-hand sides at once, row-major (Y[i * ld + c]): the updates
 * of the sides are independent, so they overlap instead of waiting on one
 * another as a single side's do */
static inline void chol_solve_multi_n(const double *a, int n, double *Y, int ld, const int nrhs)
{
  if (nrhs <= LW_ROWVEC_MAX) {
    /* a few sides: by rows, each held in registers while the rows found
     * before it are taken off (the operations of the column sweeps below,
     * in the same order) */
    lw_rowvec r;
    for (int i = 0; i < n; i++) {
      lw_rv_load(&r, Y + (size_t)i * ld, nrhs);
      for (int j = 0; j < i; j++) {
        double l = a[(size_t)j * n + i];
        if (l != 0.0)
          lw_rv_axmy(&r, l, Y + (size_t)j * ld, nrhs);
      }
      lw_rv_scale(&r, a[(size_t)i * n + i], nrhs);
      lw_rv_store(&r, Y + (size_t)i * ld, nrhs);
    }
    for (int i = n - 1; i >= 0; i--) {
      lw_rv_load(&r, Y + (size_t)i * ld, nrhs);
      const double *ci = a + (size_t)i * n;
      for (int j = n - 1; j > i; j--) {
        double l = ci[j];
        if (l != 0.0)
          lw_rv_axmy(&r, l, Y + (size_t)j * ld, nrhs);
      }
      lw_rv_scale(&r, ci[i], nrhs);
      lw_rv_store(&r, Y + (size_t)i * ld, nrhs);
    }
    return;
  }
  for (int j = 0; j < n; j++) {
    const double *restrict cj = a + (size_t)j * n;
    double *restrict yj = Y + (size_t)j * ld;
    for (int c = 0; c < nrhs; c++)
      yj[c] *= cj[j];
    for (int i = j + 1; i < n; i++) {
      double l = cj[i];
      if (l == 0.0)
        continue;
      double *restrict yi = Y + (size_t)i * ld;
      for (int c = 0; c < nrhs; c++)
        yi[c] -= l * yj[c];
    }
  }
  for (int j = n - 1; j >= 0; j--) {
    double *restrict yj = Y + (size_t)j * ld;
    double djj = a[(size_t)j * n + j];
    for (int c = 0; c < nrhs; c++)
      yj[c] *= djj;
    for (int k = 0; k < j; k++) {
      double l = a[(size_t)k * n + j];
      if (l == 0.0)
        continue;
      double *restrict yk = Y + (size_t)k * ld;
      for (int c = 0; c < nrhs; c++)
        yk[c] -= l * yj[c];
    }
  }
}

/* in chunks of LW_FEW_CHUNK sides, then the rest, each of a width written
 * out (LW_FOR_FEW; many sides at once); one side by lw_chol_dense_solve */
LW_CLONES void lw_chol_dense_solve_multi(const double *a, int n, double *Y, int nrhs)
{
  if (nrhs == 1) {
    lw_chol_dense_solve(a, n, Y);
    return;
  }
  int c0;
#define CALL(P) chol_solve_multi_n(a, n, Y + c0, nrhs, P)
  LW_FEW_CHUNKS(nrhs, c0, CALL);
#undef CALL
}

/* LU with partial pivoting in place (column-major), for small dense
 * matrices (the sensitivities' step matrices); -1 when a pivot falls below 1e-14 of the largest */
LW_CLONES int lw_lu_dense(double *A, int n, int *ipiv)
{
  double umax = 0;
  for (int k = 0; k < n; k++) {
    double *ck = A + (size_t)k * n;
    int p = k;
    double best = fabs(ck[k]);
    for (int i = k + 1; i < n; i++)
      if (fabs(ck[i]) > best) {
        best = fabs(ck[i]);
        p = i;
      }
    ipiv[k] = p;
    if (!(best > 0))
      return -1;
    umax = best > umax ? best : umax;
    if (p != k)
      for (int j = 0; j < n; j++) {
        double t = A[(size_t)j * n + k];
        A[(size_t)j * n + k] = A[(size_t)j * n + p];
        A[(size_t)j * n + p] = t;
      }
    lw_run_scale(ck + k + 1, 1.0 / ck[k], n - k - 1);
    for (int j = k + 1; j < n; j++) {
      double *cj = A + (size_t)j * n, a = cj[k];
      if (a == 0.0)
        continue;
      lw_run_axmy(cj + k + 1, a, ck + k + 1, n - k - 1);
    }
  }
  for (int k = 0; k < n; k++)
    if (!(fabs(A[(size_t)k * n + k]) > 1e-14 * umax))
      return -1;
  return 0;
}

/* inv = A^-1 for a small n x n matrix (a body's block, n <= LW_MAXQB),
 * column-major, by Gauss-Jordan elimination with partial pivoting on a
 * copy: n^3 operations, against LU and n solves for the columns of the
 * identity.  Returns -1 when a pivot falls below 1e-14 of the largest
 * entry of A. */
LW_KERNEL int inv_small_n(const double *A, double *inv, const int n)
{
  double a[LW_MAXQB * LW_MAXQB], amax = 0;
  int perm[LW_MAXQB];
  memcpy(a, A, sizeof(double) * (size_t)n * n);
  for (int i = 0; i < n * n; i++) {
    double v = fabs(a[i]);
    amax = v > amax ? v : amax;
  }
  for (int i = 0; i < n; i++)
    perm[i] = i;
  /* in place: column k of a becomes column k of the inverse (rows permuted) */
  for (int k = 0; k < n; k++) {
    double *ak = a + k * n;
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(ak[i]) > fabs(ak[p]))
        p = i;
    if (!(fabs(ak[p]) > 1e-14 * amax))
      return -1;
    if (p != k) {
      for (int j = 0; j < n; j++) {
        double t = a[j * n + k];
        a[j * n + k] = a[j * n + p];
        a[j * n + p] = t;
      }
      int t = perm[k];
      perm[k] = perm[p];
      perm[p] = t;
    }
    double r = 1.0 / ak[k];
    ak[k] = 1.0;
    for (int j = 0; j < n; j++)
      a[j * n + k] *= r; /* row k */
    /* every other row i less f_i times row k, a column at a time; column
     * k's own entries first become 0, so that they end as 0 - f_i r */
    double f[LW_MAXQB];
    memcpy(f, ak, sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
      if (i != k)
        ak[i] = 0.0;
    for (int j = 0; j < n; j++) {
      double *aj = a + j * n, akj = aj[k];
      lw_run_axmy(aj, akj, f, n); /* row k too, then put back */
      aj[k] = akj;
    }
  }
  /* the row exchanges of A become column exchanges of its inverse */
  for (int j = 0; j < n; j++)
    memcpy(inv + (size_t)perm[j] * n, a + (size_t)j * n, sizeof(double) * (size_t)n);
  return 0;
}

/* inv = A^-1 for n = 4 by the adjugates of its 2 x 2 blocks: with the
 * blocks P, Q, R, S of the rows (memory read by rows, which inverts the
 * transpose: the inverse comes out column-major, like A) and X# the
 * adjugate of X (X# X = |X| I),
 *   |A| = |P||S| + |Q||R| - tr((P# Q)(S# R)),
 *   A^-1 = [X# Y#; Z# W#] / |A|,  X = |S| P - Q (S# R),  Y = |Q| R - S (P# Q)#,
 *                                  Z = |R| Q - P (S# R)#,  W = |P| S - R (P# Q):
 * each 2 x 2 block is one vector, so that the whole takes a few dozen
 * vector operations and no chain of pivots and divisions.  Then one step
 * of refinement, X += X (I - A X), takes back the few ulps more that
 * these products leave than elimination does.  Returns -1, leaving inv
 * alone, when |det A| is not above 1e-10 of the product of A's columns'
 * largest entries (a block near singular, for the elimination with
 * pivoting to decide). */
typedef long long lw_v4i __attribute__((vector_size(32)));
#if defined(__clang__)
#define LW_SHUF2(a, b, i, j, k, l) __builtin_shufflevector((a), (b), i, j, k, l)
#define LW_SHUF(a, i, j, k, l) __builtin_shufflevector((a), (a), i, j, k, l)
#else
#define LW_SHUF2(a, b, i, j, k, l) __builtin_shuffle((a), (b), (lw_v4i){i, j, k, l})
#define LW_SHUF(a, i, j, k, l) __builtin_shuffle((a), (lw_v4i){i, j, k, l})
#endif

/* 2 x 2 blocks as vectors [x00 x01 x10 x11] */
LW_KERNEL lw_v4d mat2_mul(lw_v4d a, lw_v4d b) /* a b */
{
  return a * LW_SHUF(b, 0, 3, 0, 3) + LW_SHUF(a, 1, 0, 3, 2) * LW_SHUF(b, 2, 1, 2, 1);
}
LW_KERNEL lw_v4d mat2_adj_mul(lw_v4d a, lw_v4d b) /* a# b */
{
  return LW_SHUF(a, 3, 3, 0, 0) * b - LW_SHUF(a, 1, 1, 2, 2) * LW_SHUF(b, 2, 3, 0, 1);
}
LW_KERNEL lw_v4d mat2_mul_adj(lw_v4d a, lw_v4d b) /* a b# */
{
  return a * LW_SHUF(b, 3, 0, 3, 0) - LW_SHUF(a, 1, 0, 3, 2) * LW_SHUF(b, 2, 1, 2, 1);
}
LW_KERNEL lw_v4d mat2_adj(lw_v4d a) /* a# */
{
  return LW_SHUF(a, 3, 1, 2, 0) * (lw_v4d){1.0, -1.0, -1.0, 1.0};
}

LW_KERNEL int inv_blocks_4(const double *A, double *inv)
{
  lw_v4d r0 = lw_v4d_load(A), r1 = lw_v4d_load(A + 4), r2 = lw_v4d_load(A + 8), r3 = lw_v4d_load(A + 12);
  lw_v4d P = LW_SHUF2(r0, r1, 0, 1, 4, 5), Q = LW_SHUF2(r0, r1, 2, 3, 6, 7);
  lw_v4d R = LW_SHUF2(r2, r3, 0, 1, 4, 5), S = LW_SHUF2(r2, r3, 2, 3, 6, 7);
  /* |P| |Q| |R| |S| at once */
  lw_v4d d00 = LW_SHUF2(P, Q, 0, 4, 0, 4), d11 = LW_SHUF2(P, Q, 3, 7, 3, 7);
  lw_v4d d01 = LW_SHUF2(P, Q, 1, 5, 1, 5), d10 = LW_SHUF2(P, Q, 2, 6, 2, 6);
  lw_v4d e00 = LW_SHUF2(R, S, 0, 4, 0, 4), e11 = LW_SHUF2(R, S, 3, 7, 3, 7);
  lw_v4d e01 = LW_SHUF2(R, S, 1, 5, 1, 5), e10 = LW_SHUF2(R, S, 2, 6, 2, 6);
  lw_v4d dpq = d00 * d11 - d01 * d10, drs = e00 * e11 - e01 * e10; /* [|P| |Q| ..], [|R| |S| ..] */
  double dP = dpq[0], dQ = dpq[1], dR = drs[0], dS = drs[1];
  lw_v4d PQ = mat2_adj_mul(P, Q), SR = mat2_adj_mul(S, R);
  lw_v4d tr = PQ * LW_SHUF(SR, 0, 2, 1, 3);
  double det = dP * dS + dQ * dR - ((tr[0] + tr[1]) + (tr[2] + tr[3]));
  /* the columns' largest entries (of the memory's rows: A's columns) */
  lw_v4d sign = {-0.0, -0.0, -0.0, -0.0};
  lw_v4d a0 = (lw_v4d)((lw_v4i)r0 & ~(lw_v4i)sign), a1 = (lw_v4d)((lw_v4i)r1 & ~(lw_v4i)sign);
  lw_v4d a2 = (lw_v4d)((lw_v4i)r2 & ~(lw_v4i)sign), a3 = (lw_v4d)((lw_v4i)r3 & ~(lw_v4i)sign);
  double cm = 1.0;
  lw_v4d rows[4] = {a0, a1, a2, a3};
  for (int j = 0; j < 4; j++) {
    lw_v4d v = rows[j];
    double x = v[0] > v[1] ? v[0] : v[1], y = v[2] > v[3] ? v[2] : v[3];
    cm *= x > y ? x : y;
  }
  if (!(fabs(det) > 1e-10 * cm))
    return -1;
  lw_v4d X = dS * P - mat2_mul(Q, SR), W = dP * S - mat2_mul(R, PQ);
  lw_v4d Y = dQ * R - mat2_mul_adj(S, PQ), Z = dR * Q - mat2_mul_adj(P, SR);
  double rd = 1.0 / det;
  lw_v4d Xa = mat2_adj(X) * rd, Ya = mat2_adj(Y) * rd, Za = mat2_adj(Z) * rd, Wa = mat2_adj(W) * rd;
  /* [X# Y#; Z# W#] by rows */
  lw_v4d x[4] = {LW_SHUF2(Xa, Ya, 0, 1, 4, 5), LW_SHUF2(Xa, Ya, 2, 3, 6, 7), LW_SHUF2(Za, Wa, 0, 1, 4, 5),
                 LW_SHUF2(Za, Wa, 2, 3, 6, 7)};
  /* the refinement on the transposes, as they are in the registers: the
   * rows a[j] of T = A^T (A's columns) and x[j] of X = T^-1 (those of
   * A^-1); rr = I - T X by rows, row j = e_j - sum_k T[j][k] x[k] */
  lw_v4d a[4] = {r0, r1, r2, r3}, rr[4];
  for (int j = 0; j < 4; j++) {
    lw_v4d ax = x[0] * a[j][0] + x[1] * a[j][1] + x[2] * a[j][2] + x[3] * a[j][3];
    lw_v4d e = {j == 0, j == 1, j == 2, j == 3};
    rr[j] = e - ax;
  }
  /* rows of X (I - T X) = X rr: row j = sum_k x[j][k] rr[k] */
  for (int j = 0; j < 4; j++)
    lw_v4d_store(inv + 4 * j, x[j] + (rr[0] * x[j][0] + rr[1] * x[j][1] + rr[2] * x[j][2] + rr[3] * x[j][3]));
  return 0;
}

/* written out for the planar (4) and the spatial body (12) */
LW_CLONES int lw_inv_small(const double *A, int n, double *inv)
{
  if (n == 4)
    return inv_blocks_4(A, inv) == 0 ? 0 : inv_small_n(A, inv, 4);
  if (n == 12)
    return inv_small_n(A, inv, 12);
  return inv_small_n(A, inv, n);
}

/* solve A x = b (trans = 0) or A^T x = b with the LU of lw_lu_dense */
void lw_lu_dense_solve(const double *A, int n, const int *ipiv, int trans, double *B, int nrhs)
{
  for (int c = 0; c < nrhs; c++) {
    double *x = B + (size_t)c * n;
    if (!trans) {
      for (int k = 0; k < n; k++)
        if (ipiv[k] != k) {
          double t = x[k];
          x[k] = x[ipiv[k]];
          x[ipiv[k]] = t;
        }
      for (int j = 0; j < n; j++) { /* L y = x, unit lower, by columns */
        double xj = x[j];
        if (xj == 0.0)
          continue;
        const double *cj = A + (size_t)j * n;
        for (int i = j + 1; i < n; i++)
          x[i] -= cj[i] * xj;
      }
      for (int j = n - 1; j >= 0; j--) { /* U x = y */
        const double *cj = A + (size_t)j * n;
        x[j] /= cj[j];
        double xj = x[j];
        for (int i = 0; i < j; i++)
          x[i] -= cj[i] * xj;
      }
    } else {
      for (int j = 0; j < n; j++) { /* U^T y = x */
        const double *cj = A + (size_t)j * n;
        double s = x[j];
        for (int i = 0; i < j; i++)
          s -= cj[i] * x[i];
        x[j] = s / cj[j];
      }
      for (int j = n - 1; j >= 0; j--) { /* L^T z = y */
        const double *cj = A + (size_t)j * n;
        double s = x[j];
        for (int i = j + 1; i < n; i++)
          s -= cj[i] * x[i];
        x[j] = s;
      }
      for (int k = n - 1; k >= 0; k--)
        if (ipiv[k] != k) {
          double t = x[k];
          x[k] = x[ipiv[k]];
          x[ipiv[k]] = t;
        }
    }
  }
}

/* position of block row bi in block column bj's list (bi <= bj), or -1 */
int lw_pattern_pos(const lw_model *m, int bi, int bj)
{
  for (int k = m->adj_ptr[bj]; k < m->adj_ptr[bj + 1]; k++)
    if (m->adj[k] == bi)
      return k - m->adj_ptr[bj];
  return -1;
}

/* vals += s g g^T over every entry of g's blocks: where s is not finite
 * (its products with g's zeros are not zero) */
static void add_outer_dense(const lw_model *m, double *vals, double s, int nblk, const int *blk,
                            const int *pairpos, const double *g)
{
  int nqb = m->nqb;
  for (int x = 0; x < nblk; x++)
    for (int y = 0; y < nblk; y++) {
      int bi = blk[x], bj = blk[y];
      if (bi > bj)
        continue;
      int row = pairpos[x == y ? (x == 0 ? 0 : 2) : 1];
      int ni = lw_bn(m, bi, nqb), nj = lw_bn(m, bj, nqb), cj = lw_boff(m, bj, nqb);
      const double *gi = g + lw_loc(m, blk, x, nqb), *gj = g + lw_loc(m, blk, y, nqb);
      for (int kc = 0; kc < nj; kc++) {
        double sg = s * gj[kc];
        if (sg == 0.0)
          continue;
        double *col = vals + m->colptr[cj + kc] + row;
        int kmax = bi == bj ? kc + 1 : ni;
        for (int kr = 0; kr < kmax; kr++)
          col[kr] += sg * gi[kr];
      }
    }
}

/* vals += s g g^T, g given on the blocks blk[0..nblk) (their coordinates
 * in turn).  A row's gradient is mostly zeros (a beam's join: one entry
 * on each of its two blocks of 12): only the products of its nonzero
 * entries are added, those of a zero being zero (while s g_j is finite) */
/* vals += s g g^T over the entries nz[x][0 .. nnz[x]) of g's blocks x
 * (those that are not zero, in order) */
static void add_outer_nz(const lw_model *m, double *vals, double s, int nblk, const int *blk, const int *pairpos,
                         const double *g, int nz[2][LW_MAXQB], const int nnz[2])
{
  int nqb = m->nqb;
  for (int x = 0; x < nblk; x++)
    for (int y = 0; y < nblk; y++) {
      int bi = blk[x], bj = blk[y];
      if (bi > bj)
        continue;
      int row = pairpos[x == y ? (x == 0 ? 0 : 2) : 1];
      int ni = lw_bn(m, bi, nqb), cj = lw_boff(m, bj, nqb);
      const double *gi = g + lw_loc(m, blk, x, nqb), *gj = g + lw_loc(m, blk, y, nqb);
      for (int q = 0; q < nnz[y]; q++) {
        int kc = nz[y][q];
        double sg = s * gj[kc];
        if (sg == 0.0)
          continue;
        double *col = vals + m->colptr[cj + kc] + row;
        int kmax = bi == bj ? kc + 1 : ni;
        if (!isfinite(sg)) {
          for (int kr = 0; kr < kmax; kr++)
            col[kr] += sg * gi[kr];
          continue;
        }
        for (int p = 0; p < nnz[x] && nz[x][p] < kmax; p++)
          col[nz[x][p]] += sg * gi[nz[x][p]];
      }
    }
}

void lw_mat_add_outer(const lw_model *m, double *vals, double s, int nblk, const int *blk,
                      const int *pairpos, const double *g)
{
  int nqb = m->nqb, nz[2][LW_MAXQB], nnz[2] = {0, 0};
  if (!isfinite(s) || nblk > 2) {
    add_outer_dense(m, vals, s, nblk, blk, pairpos, g);
    return;
  }
  for (int x = 0; x < nblk; x++) {
    const double *gx = g + lw_loc(m, blk, x, nqb);
    for (int k = 0; k < lw_bn(m, blk[x], nqb); k++)
      if (gx[k] != 0.0)
        nz[x][nnz[x]++] = k;
  }
  add_outer_nz(m, vals, s, nblk, blk, pairpos, g, nz, nnz);
}

/* the same for row r's gradient g (in the layout of d->jac's rows): an
 * affine row's nonzero entries from the model's table */
void lw_mat_add_row_outer(const lw_model *m, double *vals, double s, int r, const double *g)
{
  const lw_row *row = &m->rows[r];
  if (!m->gz_ptr || !m->row_gconst[r] || !isfinite(s) || row->nblk > 2) {
    lw_mat_add_outer(m, vals, s, row->nblk, row->blk, row->pairpos, g);
    return;
  }
  int e0 = m->op_ptr[r], e1 = m->op_ptr[r + 1];
  for (int e = e0; e < e1; e++)
    if (!isfinite(s * g[m->op_a[e]])) {
      lw_mat_add_outer(m, vals, s, row->nblk, row->blk, row->pairpos, g);
      return;
    }
  for (int e = e0; e < e1; e++)
    vals[m->op_pos[e]] += s * g[m->op_a[e]] * g[m->op_b[e]];
}


void lw_mat_add_block(const lw_model *m, double *vals, double s, int b, int row, const double *K)
{
  int n = m->blk_n[b], c0 = m->blk_off[b];
  for (int kc = 0; kc < n; kc++) {
    double *col = vals + m->colptr[c0 + kc] + row;
    for (int kr = 0; kr <= kc; kr++)
      col[kr] += s * K[kc * n + kr];
  }
}

void lw_mat_add_diag(const lw_model *m, double *vals, double s)
{
  for (int c = 0; c < m->nq; c++)
    vals[m->colptr[c + 1] - 1] += s;
}

void lw_jac_mul(const lw_model *m, const lw_data *d, const double *x, double *y)
{
  memset(y, 0, sizeof(double) * (size_t)m->nc);
  lw_gradmat_mul(m, d->jac, x, y);
}

void lw_jact_mul(const lw_model *m, const lw_data *d, const double *x, double *y)
{
  lw_gradmat_mul_t(m, d->jac, 1.0, x, y);
}

/* y = B x for a block-diagonal B of the model's blocks (column-major,
 * packed like the mass blocks), written for a block size N (4, 8, 12: the
 * planar body's, the planar beam element's and the spatial body's or beam
 * element's unroll; 0: the sizes of mixed blocks from the model) */
static inline void block_diag_mul_n(const lw_model *m, const double *blocks, const double *x, double *y,
                                    const int N)
{
  for (int b = 0; b < m->nb; b++) {
    int n = lw_bn(m, b, N);
    const double *B = blocks + lw_mboff(m, b, N), *xb = x + lw_boff(m, b, N);
    double *yb = y + lw_boff(m, b, N);
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++)
        s += B[j * n + i] * xb[j];
      yb[i] = s;
    }
  }
}

/* the same for a block size N of 4, 8 or 12, four rows at a time: each
 * row's sum runs over the columns in the order of the scalar loop, so the
 * results are its bits */
LW_KERNEL void block_diag_mul_v(const lw_model *m, const double *blocks, const double *x, double *y, const int N)
{
  for (int b = 0; b < m->nb; b++) {
    const double *B = blocks + (size_t)b * N * N, *xb = x + b * N;
    lw_v4d s[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
    for (int j = 0; j < N; j++) {
      lw_v4d xj = {xb[j], xb[j], xb[j], xb[j]};
      for (int v = 0; v < N / 4; v++)
        s[v] += lw_v4d_load(B + j * N + 4 * v) * xj;
    }
    for (int v = 0; v < N / 4; v++)
      lw_v4d_store(y + b * N + 4 * v, s[v]);
  }
}

LW_CLONES static void block_diag_mul(const lw_model *m, const double *blocks, const double *x, double *y)
{
  if (m->nqb == 4)
    block_diag_mul_v(m, blocks, x, y, 4);
  else if (m->nqb == 8) /* planar beam elements */
    block_diag_mul_v(m, blocks, x, y, 8);
  else if (m->nqb == 12) /* spatial bodies or beam elements */
    block_diag_mul_v(m, blocks, x, y, 12);
  else if (m->nqb)
    block_diag_mul_n(m, blocks, x, y, m->nqb);
  else
    block_diag_mul_n(m, blocks, x, y, 0);
}

void lw_mass_mul(const lw_model *m, const double *x, double *y)
{
  block_diag_mul(m, m->mass_blocks, x, y);
}

/* y = M^-1 x with the inverses of the mass blocks */
void lw_minv_mul(const lw_model *m, const double *x, double *y)
{
  block_diag_mul(m, m->minv_blocks, x, y);
}

/* ---- SPD solver ------------------------------------------------------- */
/* whether the pattern's natural order is banded narrowly enough that a
 * band Cholesky takes fewer operations than a quarter of those CHOLMOD
 * counted for its own order (its row-by-row factorization spends several
 * times its flops on bookkeeping); then the band's storage */
static int band_choose(lw_spd *s, const lw_model *m)
{
  int n = s->n, bw = 0;
  for (int c = 0; c < n; c++)
    for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++)
      bw = c - m->rowind[k] > bw ? c - m->rowind[k] : bw;
  if (!((double)n * (bw + 1) * (bw + 1) <= 4.0 * s->cc.fl))
    return 0;
  s->band = 1;
  s->bw = bw;
  s->ab = calloc((size_t)n * (size_t)(bw + 1), sizeof(double));
  s->last = malloc(sizeof(int) * ((size_t)n + 1));
  s->pmap = (double)n * (bw + 1) <= INT_MAX ? malloc(sizeof(int) * ((size_t)m->nnz + 1)) : NULL;
  if (!s->last || !s->pmap) {
    free(s->ab);
    s->ab = NULL;
    return 1;
  }
  /* where each entry of the pattern goes in ab: entry (r, c), r <= c,
   * at row r's place c - r */
  for (int c = 0; c < n; c++)
    for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++)
      s->pmap[k] = m->rowind[k] * (bw + 1) + (c - m->rowind[k]);
  return 1;
}

/* the envelope of vals: last[j] = the last column c whose first nonzero
 * entry lies in row j or above.  The pattern stores whole blocks, most of
 * whose couplings between bodies are zero (a row's gradient touches a few
 * of its blocks' coordinates): Cholesky fills only within the envelope, so
 * the band's entries beyond it stay zero and need no operations. */
static void band_envelope(lw_spd *s, const lw_model *m, const double *vals)
{
  int n = s->n, *last = s->last;
  for (int j = 0; j < n; j++)
    last[j] = j;
  for (int c = 0; c < n; c++) {
    /* the column's rows increase to its diagonal, its last entry: the
     * first nonzero entry is the top */
    int k = m->colptr[c], kd = m->colptr[c + 1] - 1;
    while (k < kd && vals[k] == 0.0)
      k++;
    int top = m->rowind[k];
    last[top] = c > last[top] ? c : last[top];
  }
  for (int j = 1; j < n; j++)
    last[j] = last[j - 1] > last[j] ? last[j - 1] : last[j];
}

/* y - x[0] z[0] - x[1] z[1] - ... - x[n - 1] z[n - 1]: the products past
 * the first summed in four lanes, then two, then one (lane sums added
 * pairwise), subtracted from y, and the first product last.  In the back
 * substitution x[0] is the unknown found just before (z the next ones), so
 * that the chain from one unknown to the next is one product and one
 * subtraction; the sums of the others start early and overlap. */
LW_KERNEL double band_dot_sub(double y, const double *x, const double *z, int n)
{
  if (n <= 0)
    return y;
  int i = 1;
  double s = 0;
  if (n - 1 >= 4) {
    lw_v4d a = lw_v4d_load(x + 1) * lw_v4d_load(z + 1);
    for (i = 5; i + 4 <= n; i += 4)
      a += lw_v4d_load(x + i) * lw_v4d_load(z + i);
    s = (a[0] + a[1]) + (a[2] + a[3]);
  }
  for (; i < n; i++)
    s += x[i] * z[i];
  return (y - s) - x[0] * z[0];
}

/* the band Cholesky of vals (the pattern's upper triangle) into s->ab,
 * right-looking: each column, once final, updates the bw after it; -1
 * when a pivot is not positive */
LW_CLONES static int band_factor(lw_spd *s, const lw_model *m, const double *vals)
{
  int n = s->n, bw = s->bw, ld = bw + 1;
  double *ab = s->ab;
  /* the envelope first: the factorization and the solves read and write
   * its entries alone, so that only they are cleared (every nonzero entry
   * lies within it; the pattern's zeros beyond it are written and never
   * read) */
  band_envelope(s, m, vals);
  for (int j = 0; j < n; j++)
    memset(ab + (size_t)j * ld, 0, sizeof(double) * (size_t)(s->last[j] - j + 1));
  const int *pos = s->pmap;
  for (int k = 0; k < m->nnz; k++)
    ab[pos[k]] = vals[k];
  for (int j = 0; j < n; j++) {
    double *cj = ab + (size_t)j * ld;
    if (!(cj[0] > 0.0))
      return -1;
    double r = 1.0 / sqrt(cj[0]);
    int h = s->last[j] - j;
    cj[0] = r;
    for (int i = 1; i <= h; i++)
      cj[i] *= r;
    for (int c = 1; c <= h; c++) {
      double l = cj[c];
      if (l == 0.0)
        continue;
      double *cc = ab + (size_t)(j + c) * ld - c;
      lw_sub_scaled(cc + c, cj + c, l, h - c + 1);
    }
  }
  return 0;
}

LW_CLONES static void band_solve(const lw_spd *s, double *x)
{
  int n = s->n, bw = s->bw, ld = bw + 1;
  const double *ab = s->ab;
  for (int j = 0; j < n; j++) {
    const double *cj = ab + (size_t)j * ld;
    double y = x[j] * cj[0];
    x[j] = y;
    int h = s->last[j] - j;
    if (y != 0.0)
      lw_sub_scaled(x + j + 1, cj + 1, y, h);
  }
  for (int j = n - 1; j >= 0; j--) {
    const double *cj = ab + (size_t)j * ld;
    int h = s->last[j] - j;
    x[j] = band_dot_sub(x[j], cj + 1, x + j + 1, h) * cj[0];
  }
}

int lw_spd_init(lw_spd *s, const lw_model *m)
{
  memset(s, 0, sizeof *s);
  int n = s->n = m->nq;
  s->dense = m->dense;
  if (s->dense) {
    s->a = calloc((size_t)n * n, sizeof(double));
    return s->a ? 0 : -1;
  }
  cholmod_start(&s->cc);
  s->started = 1;
  s->cc.supernodal = CHOLMOD_SIMPLICIAL;
  s->cc.final_ll = 1;
  s->cc.print = 0;
  s->cc.error_handler = NULL;
  cholmod_sparse A = {0};
  A.nrow = A.ncol = (size_t)n;
  A.nzmax = (size_t)m->nnz;
  A.p = m->colptr;
  A.i = m->rowind;
  A.x = m->mass_csc;
  A.stype = 1;
  A.itype = CHOLMOD_INT;
  A.xtype = CHOLMOD_REAL;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = 1;
  A.packed = 1;
  /* 1. the fill-reducing order CHOLMOD would choose */
  cholmod_factor *L0 = cholmod_analyze(&A, &s->cc);
  if (!L0)
    return -1;
  s->pinv = malloc(sizeof(int) * (size_t)n);
  const int *perm = L0->Perm;
  for (int i = 0; i < n; i++)
    s->pinv[perm[i]] = i;
  cholmod_free_factor(&L0, &s->cc);
  if (band_choose(s, m))
    return s->ab ? 0 : -1;
  /* 2. the permuted upper pattern and the map of every entry into it */
  int nnz = m->nnz;
  s->pcolptr = calloc((size_t)n + 1, sizeof(int));
  s->prowind = malloc(sizeof(int) * (size_t)nnz);
  s->pmap = malloc(sizeof(int) * (size_t)nnz);
  s->pvals = calloc((size_t)nnz, sizeof(double));
  s->px = calloc((size_t)n, sizeof(double));
  for (int c = 0; c < n; c++)
    for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++) {
      int r2 = s->pinv[m->rowind[k]], c2 = s->pinv[c];
      s->pcolptr[(r2 > c2 ? r2 : c2) + 1]++;
    }
  for (int c = 0; c < n; c++)
    s->pcolptr[c + 1] += s->pcolptr[c];
  /* rows within a column in increasing order: fill by increasing row */
  int *cnt = calloc((size_t)n, sizeof(int));
  for (int c = 0; c < n; c++)
    for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++) {
      int r2 = s->pinv[m->rowind[k]], c2 = s->pinv[c];
      int col = r2 > c2 ? r2 : c2, row = r2 > c2 ? c2 : r2;
      s->prowind[s->pcolptr[col] + cnt[col]] = row;
      s->pmap[k] = s->pcolptr[col] + cnt[col];
      cnt[col]++;
    }
  /* sort each column's rows, carrying the map along (insertion sort: columns are short) */
  int *inv = malloc(sizeof(int) * (size_t)nnz);
  for (int k = 0; k < nnz; k++)
    inv[s->pmap[k]] = k;
  for (int c = 0; c < n; c++)
    for (int a = s->pcolptr[c] + 1; a < s->pcolptr[c + 1]; a++)
      for (int b = a; b > s->pcolptr[c] && s->prowind[b - 1] > s->prowind[b]; b--) {
        int t = s->prowind[b];
        s->prowind[b] = s->prowind[b - 1];
        s->prowind[b - 1] = t;
        t = inv[b];
        inv[b] = inv[b - 1];
        inv[b - 1] = t;
      }
  for (int k = 0; k < nnz; k++)
    s->pmap[inv[k]] = k;
  free(inv);
  free(cnt);
  /* 3. analysis of the permuted matrix in natural order */
  s->A = A;
  s->A.p = s->pcolptr;
  s->A.i = s->prowind;
  s->A.x = s->pvals;
  for (int k = 0; k < nnz; k++)
    s->pvals[s->pmap[k]] = m->mass_csc[k];
  s->cc.nmethods = 1;
  s->cc.method[0].ordering = CHOLMOD_NATURAL;
  s->cc.postorder = 0;
  s->L = cholmod_analyze(&s->A, &s->cc);
  if (!s->L)
    return -1;
  /* one factorization so that every workspace exists before the first step */
  if (!cholmod_factorize(&s->A, s->L, &s->cc))
    return -1;
  return s->cc.status < 0 || !s->L->is_ll || s->L->is_super ? -1 : 0;
}

void lw_spd_free(lw_spd *s)
{
  free(s->a);
  free(s->ab);
  free(s->last);
  free(s->pinv);
  free(s->pmap);
  free(s->pcolptr);
  free(s->prowind);
  free(s->pvals);
  free(s->px);
  if (s->started) {
    cholmod_free_factor(&s->L, &s->cc);
    cholmod_finish(&s->cc);
  }
  memset(s, 0, sizeof *s);
}

int lw_spd_factor(lw_spd *s, const lw_model *m, const double *vals)
{
  int n = s->n;
  if (s->dense) {
    /* the upper pattern (row <= c) into the lower triangle; the entries
     * outside the pattern are zeroed, as the last factorization filled them */
    double *a = s->a;
    memset(a, 0, sizeof(double) * (size_t)n * n);
    for (int c = 0; c < n; c++)
      for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++)
        a[(size_t)m->rowind[k] * n + c] = vals[k];
    return lw_chol_dense(a, n, 0.0);
  }
  if (s->band)
    return band_factor(s, m, vals);
  for (int k = 0; k < m->nnz; k++)
    s->pvals[s->pmap[k]] = vals[k];
  int ok = cholmod_factorize(&s->A, s->L, &s->cc);
  if (!ok || s->cc.status != CHOLMOD_OK)
    return -1;
  return 0;
}

void lw_spd_solve(lw_spd *s, double *x)
{
  int n = s->n;
  if (s->dense) {
    lw_chol_dense_solve(s->a, n, x);
    return;
  }
  if (s->band) {
    band_solve(s, x);
    return;
  }
  /* L L^T y = b by our own triangular solves on the simplicial factor
   * (cholmod_solve2 reallocates its workspace on every call) */
  double *y = s->px;
  for (int i = 0; i < n; i++)
    y[s->pinv[i]] = x[i];
  const int *Lp = s->L->p, *Li = s->L->i, *Lnz = s->L->nz;
  const double *Lx = s->L->x;
  for (int j = 0; j < n; j++) {
    int p0 = Lp[j], p1 = Lp[j] + Lnz[j];
    double yj = y[j] / Lx[p0];
    y[j] = yj;
    for (int p = p0 + 1; p < p1; p++)
      y[Li[p]] -= Lx[p] * yj;
  }
  for (int j = n - 1; j >= 0; j--) {
    int p0 = Lp[j], p1 = Lp[j] + Lnz[j];
    double yj = y[j];
    for (int p = p0 + 1; p < p1; p++)
      yj -= Lx[p] * y[Li[p]];
    y[j] = yj / Lx[p0];
  }
  for (int i = 0; i < n; i++)
    x[i] = y[s->pinv[i]];
}

double lw_max_abs(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > s || x[i] != x[i])
      s = x[i] != x[i] ? INFINITY : fabs(x[i]);
  return s;
}
