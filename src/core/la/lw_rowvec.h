/* lw_rowvec.h: a row of up to 8 columns held in vector registers, for the
 * kernels that carry several sides at once stored by rows (the forward
 * sensitivities' columns, Y[i * ld + c]).
 *
 * The compiler does not vectorize "acc[c] += a * x[c]" over a handful of
 * columns well by itself (it unrolls it into scalar adds); written with
 * GCC's vector types, a row of n columns is one 4-wide vector for each
 * four, then a 2-wide one and a scalar for what is left.  With n a
 * constant (LW_FOR_FEW) the tests on n fold away and the row stays in
 * registers; on a processor without 4-wide vectors the compiler splits
 * them into pairs.  The order of the operations on each column is the one
 * a scalar loop would do, so the results do not depend on the width. */
#ifndef LW_ROWVEC_H
#define LW_ROWVEC_H

#include <string.h>

/* The kernels that use these rows come in two builds chosen when the
 * program starts (GCC's function multiversioning): one for processors
 * with AVX2, whose 4-wide vectors take one instruction instead of two,
 * and the default one.  Neither contracts a multiply and an add into one
 * rounding (ISO C mode), so both give the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LW_CLONES
#endif

/* the helpers below are always inlined: a 4-wide vector never crosses a
 * call, whatever the target (GCC warns of the ABI of such a call anyway,
 * at the end of the file that includes this one) */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef double lw_v4d __attribute__((vector_size(32)));
typedef double lw_v2d __attribute__((vector_size(16)));

#define LW_ROWVEC_MAX 8
/* a kernel, or a helper of one, inlined into each case of its callers
 * (a side count or a body's size a constant) by force: the compiler's own
 * limits would leave one copy with them as variables, and outside a
 * caller's AVX2 build */
#define LW_KERNEL static inline __attribute__((always_inline))

/* The body's size nqb is a constant in kernels (LW_FOR_NQB: the
 * planar body's 4, the spatial body's 12), so that the loops over a
 * body's coordinates unroll; another uniform size goes as a variable, and
 * blocks of mixed sizes (m->nqb = 0) as 0, which the kernels read as "the
 * sizes from the model" (lw_bn, lw_boff, lw_mboff in lw_internal.h). */

#define LW_FOR_NQB(nqb, call)                                                                                        \
  do {                                                                                                             \
    if ((nqb) == 4) {                                                                                              \
      call(4);                                                                                                     \
    } else if ((nqb) == 12) {                                                                                      \
      call(12);                                                                                                    \
    } else {                                                                                                       \
      call(nqb);                                                                                                   \
    }                                                                                                              \
  } while (0)

typedef struct {
  lw_v4d a[LW_ROWVEC_MAX / 4];
  lw_v2d b;
  double c;
} lw_rowvec;

LW_KERNEL lw_v4d lw_v4d_load(const double *p)
{
  lw_v4d v;
  memcpy(&v, p, sizeof v);
  return v;
}

LW_KERNEL lw_v2d lw_v2d_load(const double *p)
{
  lw_v2d v;
  memcpy(&v, p, sizeof v);
  return v;
}

LW_KERNEL void lw_v4d_store(double *p, lw_v4d v) { memcpy(p, &v, sizeof v); }
LW_KERNEL void lw_v2d_store(double *p, lw_v2d v) { memcpy(p, &v, sizeof v); }

/* y[0 .. n) -= x[0 .. n) a: four at a time, then two, then one (each
 * entry's operation the scalar loop's) */
LW_KERNEL void lw_sub_scaled(double *y, const double *x, double a, int n)
{
  int i = 0;
  for (; i + 4 <= n; i += 4)
    lw_v4d_store(y + i, lw_v4d_load(y + i) - lw_v4d_load(x + i) * a);
  if (i + 2 <= n) {
    lw_v2d_store(y + i, lw_v2d_load(y + i) - lw_v2d_load(x + i) * a);
    i += 2;
  }
  for (; i < n; i++)
    y[i] -= x[i] * a;
}

/* r = 0 */
LW_KERNEL void lw_rv_zero(lw_rowvec *r)
{
  for (int v = 0; v < LW_ROWVEC_MAX / 4; v++)
    r->a[v] = (lw_v4d){0, 0, 0, 0};
  r->b = (lw_v2d){0, 0};
  r->c = 0.0;
}

/* r = x[0 .. n) */
LW_KERNEL void lw_rv_load(lw_rowvec *r, const double *x, const int n)
{
  lw_rv_zero(r); /* the parts past n: never read, set so that nothing is read unset */
  for (int v = 0; v < n / 4; v++)
    r->a[v] = lw_v4d_load(x + 4 * v);
  if (n & 2)
    r->b = lw_v2d_load(x + (n & ~3));
  if (n & 1)
    r->c = x[n - 1];
}

/* x[0 .. n) = r */
LW_KERNEL void lw_rv_store(const lw_rowvec *r, double *x, const int n)
{
  for (int v = 0; v < n / 4; v++)
    lw_v4d_store(x + 4 * v, r->a[v]);
  if (n & 2)
    lw_v2d_store(x + (n & ~3), r->b);
  if (n & 1)
    x[n - 1] = r->c;
}

/* r += a x */
LW_KERNEL void lw_rv_axpy(lw_rowvec *r, double a, const double *x, const int n)
{
  lw_v4d a4 = {a, a, a, a};
  for (int v = 0; v < n / 4; v++)
    r->a[v] += a4 * lw_v4d_load(x + 4 * v);
  if (n & 2)
    r->b += (lw_v2d){a, a} * lw_v2d_load(x + (n & ~3));
  if (n & 1)
    r->c += a * x[n - 1];
}

/* r -= a x */
LW_KERNEL void lw_rv_axmy(lw_rowvec *r, double a, const double *x, const int n)
{
  lw_v4d a4 = {a, a, a, a};
  for (int v = 0; v < n / 4; v++)
    r->a[v] -= a4 * lw_v4d_load(x + 4 * v);
  if (n & 2)
    r->b -= (lw_v2d){a, a} * lw_v2d_load(x + (n & ~3));
  if (n & 1)
    r->c -= a * x[n - 1];
}

/* r *= a */
LW_KERNEL void lw_rv_scale(lw_rowvec *r, double a, const int n)
{
  lw_v4d a4 = {a, a, a, a};
  for (int v = 0; v < n / 4; v++)
    r->a[v] *= a4;
  if (n & 2)
    r->b *= (lw_v2d){a, a};
  if (n & 1)
    r->c *= a;
}

/* y[0 .. n) += a r */
LW_KERNEL void lw_rv_add_to(const lw_rowvec *r, double a, double *y, const int n)
{
  lw_v4d a4 = {a, a, a, a};
  for (int v = 0; v < n / 4; v++)
    lw_v4d_store(y + 4 * v, lw_v4d_load(y + 4 * v) + a4 * r->a[v]);
  if (n & 2)
    lw_v2d_store(y + (n & ~3), lw_v2d_load(y + (n & ~3)) + (lw_v2d){a, a} * r->b);
  if (n & 1)
    y[n - 1] += a * r->c;
}

/* y[0 .. n) = a r - y[0 .. n), summed as -y + a r (so the bits are those
 * of negating y first, then adding) */
LW_KERNEL void lw_rv_add_to_neg(const lw_rowvec *r, double a, double *y, const int n)
{
  lw_v4d a4 = {a, a, a, a};
  for (int v = 0; v < n / 4; v++)
    lw_v4d_store(y + 4 * v, -lw_v4d_load(y + 4 * v) + a4 * r->a[v]);
  if (n & 2)
    lw_v2d_store(y + (n & ~3), -lw_v2d_load(y + (n & ~3)) + (lw_v2d){a, a} * r->b);
  if (n & 1)
    y[n - 1] = -y[n - 1] + a * r->c;
}

/* y[0 .. len) *= a, four at a time, then two, then one */
LW_KERNEL void lw_run_scale(double *y, double a, int len)
{
  lw_v4d a4 = {a, a, a, a};
  int i = 0;
  for (; i + 4 <= len; i += 4)
    lw_v4d_store(y + i, lw_v4d_load(y + i) * a4);
  if (len - i >= 2) {
    lw_v2d_store(y + i, lw_v2d_load(y + i) * (lw_v2d){a, a});
    i += 2;
  }
  if (i < len)
    y[i] *= a;
}

/* y[0 .. len) += a x[0 .. len), four at a time, then two, then one */
LW_KERNEL void lw_run_axpy(double *restrict y, double a, const double *restrict x, int len)
{
  lw_v4d a4 = {a, a, a, a};
  int i = 0;
  for (; i + 4 <= len; i += 4)
    lw_v4d_store(y + i, lw_v4d_load(y + i) + a4 * lw_v4d_load(x + i));
  if (len - i >= 2) {
    lw_v2d_store(y + i, lw_v2d_load(y + i) + (lw_v2d){a, a} * lw_v2d_load(x + i));
    i += 2;
  }
  if (i < len)
    y[i] += a * x[i];
}

/* y[0 .. len) -= a x[0 .. len), for a run of a length known only when it
 * runs (a column below a pivot): lw_run_axpy with -a, the same bits (the
 * product with -a is the product with a negated, exactly) */
LW_KERNEL void lw_run_axmy(double *restrict y, double a, const double *restrict x, int len)
{
  lw_run_axpy(y, -a, x, len);
}

#endif
