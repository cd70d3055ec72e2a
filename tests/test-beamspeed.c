/* test-beamspeed.c: the band solvers that make a beam of many elements
 * step in time linear in its elements.
 *
 * The band LU factorization with partial pivoting (la/lw_band_lu.c) on
 * matrices whose diagonal has zeros, as a saddle-point matrix's has; the
 * reverse Cuthill-McKee order of a shuffled chain; the variational step of
 * a 100-element beam taking the band (and agreeing with ALI3-P); and the
 * band Cholesky of ALI3-P's Newton matrix, whose operations stop at the
 * matrix's envelope, narrower than the band the block pattern spans. */
#include "lw-test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linkwright.h"
#include "lw_internal.h"
#include "lw_io.h"
#include "la/lw_band_lu.h"
#include "la/lw_saddle.h"

#include "lw-test-alloc.h"

/* a random band matrix (n, kl, ku) with every third diagonal entry zero,
 * dense (column-major) and in band storage */
static void random_band(int n, int kl, int ku, double *dense, lw_band *b, GRand *rng)
{
  memset(dense, 0, sizeof(double) * (size_t)n * n);
  memset(b->ab, 0, sizeof(double) * (size_t)n * b->ld);
  for (int j = 0; j < n; j++)
    for (int i = j - ku < 0 ? 0 : j - ku; i <= j + kl && i < n; i++) {
      double v = i == j && j % 3 == 0 ? 0.0 : g_rand_double_range(rng, -1.0, 1.0);
      dense[(size_t)j * n + i] = v;
      *lw_band_at(b, i, j) = v;
    }
}

static void test_band_lu(void)
{
  GRand *rng = g_rand_new_with_seed(7);
  const int n = 120, kl = 5, ku = 3;
  double *dense = g_new(double, n * n), *x = g_new(double, n), *b = g_new(double, n);
  lw_band B = {n, kl, ku, kl + ku, 2 * kl + ku + 1, g_new(double, n * (2 * kl + ku + 1)), g_new(int, n)};
  for (int trial = 0; trial < 5; trial++) {
    random_band(n, kl, ku, dense, &B, rng);
    for (int i = 0; i < n; i++)
      x[i] = b[i] = g_rand_double_range(rng, -1.0, 1.0);
    g_assert_cmpint(lw_band_factor(&B), ==, 0);
    lw_band_solve(&B, x);
    /* the residual b - A x against |A| |x| */
    double res = 0, scale = 0;
    for (int i = 0; i < n; i++) {
      double r = b[i], s = 0;
      for (int j = 0; j < n; j++) {
        r -= dense[(size_t)j * n + i] * x[j];
        s += fabs(dense[(size_t)j * n + i] * x[j]);
      }
      res = fmax(res, fabs(r));
      scale = fmax(scale, s);
    }
    g_test_message("trial %d: residual %.3g of %.3g", trial, res, scale);
    g_assert_cmpfloat(res, <, 1e-13 * scale);
  }
  /* a zero column is singular */
  random_band(n, kl, ku, dense, &B, rng);
  for (int i = 0; i < n; i++)
    if (abs(i - 40) <= (i > 40 ? kl : ku))
      *lw_band_at(&B, i, 40) = 0.0;
  g_assert_cmpint(lw_band_factor(&B), ==, -1);
  g_free(B.ab), g_free(B.ipiv), g_free(dense), g_free(x), g_free(b);
  g_rand_free(rng);
}

/* a path 0 - 1 - ... - n-1 under a random relabelling, as compressed
 * columns (each edge once, in the column of its larger end): the order
 * brings it back to bandwidth 1 */
static void test_rcm_chain(void)
{
  const int n = 60;
  GRand *rng = g_rand_new_with_seed(3);
  int *label = g_new(int, n), *Ap = g_new0(int, n + 1), *Ai = g_new(int, n), *perm = g_new(int, n),
      *pinv = g_new(int, n), *work = g_new(int, lw_rcm_work(n, n));
  for (int i = 0; i < n; i++)
    label[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = g_rand_int_range(rng, 0, i + 1), t = label[i];
    label[i] = label[j];
    label[j] = t;
  }
  /* edge (k, k+1) as the entry (min, max) of the labels */
  int *col = g_new(int, n), *row = g_new(int, n);
  for (int k = 0; k + 1 < n; k++) {
    int a = label[k], b = label[k + 1];
    col[k] = a > b ? a : b;
    row[k] = a > b ? b : a;
    Ap[col[k] + 1]++;
  }
  for (int c = 0; c < n; c++)
    Ap[c + 1] += Ap[c];
  int *fill = g_new0(int, n);
  for (int k = 0; k + 1 < n; k++)
    Ai[Ap[col[k]] + fill[col[k]]++] = row[k];
  unsigned char *keep = g_new(unsigned char, n);
  memset(keep, 1, (size_t)n);
  lw_rcm_order(n, Ap, Ai, keep, perm, work);
  int seen = 0, bw = 0;
  for (int i = 0; i < n; i++)
    pinv[perm[i]] = i;
  for (int i = 0; i < n; i++)
    seen += pinv[i] >= 0 && pinv[i] < n;
  g_assert_cmpint(seen, ==, n);
  for (int k = 0; k + 1 < n; k++)
    bw = MAX(bw, abs(pinv[col[k]] - pinv[row[k]]));
  g_assert_cmpint(bw, ==, 1);
  g_free(label), g_free(Ap), g_free(Ai), g_free(perm), g_free(pinv), g_free(work), g_free(col), g_free(row);
  g_free(fill), g_free(keep);
  g_rand_free(rng);
}

/* the flexible pendulum of bench/bench_beam.c with nel elements */
static lw_model *pendulum(int nel, int spatial, const char *integ)
{
  char json[2048];
  snprintf(json, sizeof json,
           "{\"linkwright\": 1, \"name\": \"beam\", \"planar\": %s, \"gravity\": %s,"
           " \"solver\": {\"t_end\": 1, \"step\": 0.001, \"integrator\": \"%s\"},"
           " \"beams\": [{\"name\": \"beam\", \"elements\": %d, \"start\": %s, \"end\": %s, \"young\": 1e7,"
           "  \"density\": 4000, \"section\": \"rectangle\", \"size\": [0.05, 0.05]}],"
           " \"joints\": [{\"name\": \"pin\", \"type\": \"%s\", \"body1\": \"ground\", \"body2\": \"beam\", \"at\": %s}]}",
           spatial ? "false" : "true", spatial ? "[0, -9.81, 0]" : "[0, -9.81]", integ, nel,
           spatial ? "[0, 0, 0]" : "[0, 0]", spatial ? "[1.2, 0, 0]" : "[1.2, 0]", spatial ? "spherical" : "revolute",
           spatial ? "[0, 0, 0]" : "[0, 0]");
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "beam.json", NULL, &err);
  g_assert_nonnull(d);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  return m;
}

/* n steps from the initial state; the final positions into q (nq) */
static lw_data *run(const lw_model *m, int n, double *q)
{
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  for (int k = 0; k < n; k++) {
    lw_step_info info;
    g_assert_cmpint(lw_step(m, d, &info, &err), ==, LW_OK);
    g_assert_cmpfloat(info.constraint_residual, <, 1e-10);
  }
  memcpy(q, lw_data_q(d), sizeof(double) * (size_t)lw_model_nq(m));
  return d;
}

/* the variational step of a 100-element beam, planar and spatial, takes
 * the band from its initial factorization on, and 100 steps agree with
 * ALI3-P's to the order of the step */
static void test_vi_band(void)
{
  for (int spatial = 0; spatial < 2; spatial++) {
    lw_model *mv = pendulum(100, spatial, "variational"), *ma = pendulum(100, spatial, "ali3p");
    g_assert_false(mv->dense);
    int nq = lw_model_nq(mv);
    double *qv = g_new(double, nq), *qa = g_new(double, nq);
    lw_data *dv = run(mv, 100, qv), *da = run(ma, 100, qa);
    g_assert_true(lw_saddle_banded(dv->saddle));
    double diff = 0, drop = 0;
    for (int i = 0; i < nq; i++)
      diff = fmax(diff, fabs(qv[i] - qa[i]));
    /* the tip falls, at first by 3 g / 2 as a rigid bar's would (a
     * flexible one's at least as fast, well below twice g) */
    drop = fabs(qv[nq - (spatial ? 6 : 4) + 1]);
    g_test_message("%s: |q_vi - q_ali3p| = %.3g, tip drop %.4g m", spatial ? "spatial" : "planar", diff, drop);
    g_assert_cmpfloat(diff, <, 1e-4);
    g_assert_cmpfloat(drop, >, 1e-3);
    g_assert_cmpfloat(drop, <, 0.5 * 2.0 * 9.81 * 0.1 * 0.1);
    lw_data_free(dv), lw_data_free(da);
    lw_model_free(mv), lw_model_free(ma);
    g_free(qv), g_free(qa);
  }
}

/* the banded steps allocate nothing (the order's scratch and the band are
 * made with the solver and at its first factorization) */
static void test_vi_band_noalloc(void)
{
#ifdef LW_SANITIZED
  g_test_skip("allocation counting needs the plain build");
#else
  for (int spatial = 0; spatial < 2; spatial++) {
    lw_model *m = pendulum(50, spatial, "variational");
    lw_data *d = lw_data_new(m);
    lw_error err;
    g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
    count = 0;
    counting = 1;
    int st = 0;
    for (int k = 0; k < 50 && !st; k++) {
      lw_step_info info;
      st = lw_step(m, d, &info, &err);
    }
    counting = 0;
    g_assert_cmpint(st, ==, LW_OK);
    g_assert_true(lw_saddle_banded(d->saddle));
    g_test_message("%s: 50 steps, %ld allocations", spatial ? "spatial" : "planar", count);
    g_assert_cmpint(count, ==, 0);
    lw_data_free(d);
    lw_model_free(m);
  }
#endif
}

/* ALI3-P on a 20-element beam takes the band Cholesky, and the envelope
 * of its Newton matrix is narrower than the band's stored width (the
 * blocks coupling the elements are zero but for their nodes' entries) */
static void test_ali3p_envelope(void)
{
  lw_model *m = pendulum(20, 0, "ali3p");
  g_assert_false(m->dense);
  int nq = lw_model_nq(m);
  double *q = g_new(double, nq);
  lw_data *d = run(m, 50, q);
  g_assert_true(d->solver.band);
  int wide = 0;
  for (int j = 0; j < nq; j++)
    wide = MAX(wide, d->solver.last[j] - j);
  g_test_message("stored width %d, envelope width %d", d->solver.bw, wide);
  g_assert_cmpint(wide, <, d->solver.bw);
  lw_data_free(d);
  lw_model_free(m);
  g_free(q);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/beamspeed/band-lu", test_band_lu);
  g_test_add_func("/beamspeed/rcm-chain", test_rcm_chain);
  g_test_add_func("/beamspeed/vi-band", test_vi_band);
  g_test_add_func("/beamspeed/vi-band-noalloc", test_vi_band_noalloc);
  g_test_add_func("/beamspeed/ali3p-envelope", test_ali3p_envelope);
  return g_test_run();
}
