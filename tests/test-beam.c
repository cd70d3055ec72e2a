/* Flexible ANCF beams (the beams section, kind_beam.c): the element's mass
 * block against Gauss quadrature of rho A int S^T S dx, its elastic force
 * against the numerical gradient of its strain energy, its stiffness in the
 * Newton matrix against differences of the force; statics of a cantilever
 * (a Newton solve of the assembled nodal equations with the kind's force
 * and exact tangent): a small tip load against P L^3 / (3 EI), a large one
 * against the elastica; the lowest bending frequency of a free beam from
 * the generalized eigenproblem of the assembled M and K at rest; a welded
 * cantilever settling under its damping in a run (joints, damping) to the
 * static solution; forward, adjoint and central-difference sensitivities
 * through the shipped flexible pendulum; the model format's messages. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_forces.h"
#include "kind/lw_kind.h"
#include "lin/lw_jvp.h"
#include "lin/lw_tangent.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *b, const int *ldb, double *w, double *work, const int *lwork, int *info);

/* a model of one beam, nothing else (gravity g along -y) */
static lw_model *beam_model(int planar, int nel, double L, double E, double rho, double b, double h, double eta,
                            double g)
{
  g_autofree char *grav = planar ? g_strdup_printf("[0, %.17g]", -g) : g_strdup_printf("[0, %.17g, 0]", -g);
  char *json = g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"beam\", \"planar\": %s, \"gravity\": %s,"
    " \"solver\": {\"t_end\": 1, \"step\": 0.001},"
    " \"beams\": [{\"name\": \"b\", \"elements\": %d, \"start\": %s, \"end\": [%.17g, 0%s], \"young\": %.17g,"
    " \"density\": %.17g, \"damping\": %.17g, \"section\": \"rectangle\", \"size\": [%.17g, %.17g]}]}",
    planar ? "true" : "false", grav,
    nel, planar ? "[0, 0]" : "[0, 0, 0]", L, planar ? "" : ", 0", E, rho, eta, b, h);
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "beam", NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  g_free(json);
  return m;
}

/* ---- the element -------------------------------------------------------------- */
static void test_mass(void)
{
  for (int planar = 0; planar < 2; planar++) {
    double L = 1.3, rho = 700, b = 0.04, h = 0.03;
    lw_model *m = beam_model(planar, 3, L, 2e9, rho, b, h, 0, 9.81);
    int nd = m->nd, n = 4 * nd;
    double l = L / 3, rhoA = rho * b * h;
    /* 4-point Gauss-Legendre: exact for the degree-6 products */
    const double x4[4] = {0.069431844202973712, 0.33000947820757187, 0.66999052179242813, 0.93056815579702629};
    const double w4[4] = {0.17392742256872693, 0.32607257743127307, 0.32607257743127307, 0.17392742256872693};
    double worst = 0, total = 0;
    for (int e = 0; e < 3; e++) {
      const double *M = m->mass_blocks + m->mblk_off[m->nbd + e];
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double q = 0;
          for (int k = 0; k < 4; k++) {
            double s[4];
            lw_beam_shape(x4[k], l, s, NULL, NULL);
            if (i % nd == j % nd)
              q += w4[k] * l * rhoA * s[i / nd] * s[j / nd];
          }
          worst = fmax(worst, fabs(M[j * n + i] - q) / (rhoA * l));
          if (i % nd == 0 && j % nd == 0 && i % (2 * nd) == 0 && j % (2 * nd) == 0)
            total += M[j * n + i];
        }
    }
    g_test_message("%s: mass blocks against Gauss quadrature of rho A S^T S: %.3g (of rho A l); translational "
                   "mass %.15g (rho A L %.15g)",
                   planar ? "planar" : "spatial", worst, total, rhoA * L);
    g_assert_cmpfloat(worst, <, 1e-14);
    g_assert_cmpfloat(fabs(total - rhoA * L), <, 1e-12 * rhoA * L);
    lw_model_free(m);
  }
}

/* a bent and stretched state of every element, and random velocities */
static void random_state(const lw_model *m, GRand *r, double *q, double *v)
{
  memcpy(q, m->q0, sizeof(double) * (size_t)m->nq);
  for (int i = 0; i < m->nq; i++) {
    q[i] += g_rand_double_range(r, -0.1, 0.1);
    v[i] = g_rand_double_range(r, -1, 1);
  }
}

static double energy_of(const lw_model *m, lw_data *d, const double *q)
{
  double U = 0;
  for (int n = 0; n < m->nforces; n++)
    U += lw_force_kind_of(m->forces[n].type)->energy(m, d, &m->forces[n], q);
  return U;
}

static void test_force_gradient(void)
{
  GRand *r = g_rand_new_with_seed(7);
  for (int planar = 0; planar < 2; planar++) {
    lw_model *m = beam_model(planar, 2, 1.0, 2e5, 100, 0.05, 0.02, 0, 0);
    lw_data *d = lw_data_new(m);
    int nq = m->nq;
    double *q = g_new(double, nq), *v = g_new0(double, nq), *Q = g_new0(double, nq), *qp = g_new(double, nq);
    random_state(m, r, q, v);
    memset(v, 0, sizeof(double) * nq);
    lw_forces_eval(m, d, q, v, 0, Q, NULL, 0, 0);
    double worst = 0, scale = 0;
    for (int i = 0; i < nq; i++) {
      double e = 1e-6;
      memcpy(qp, q, sizeof(double) * nq);
      qp[i] += e;
      double Up = energy_of(m, d, qp);
      qp[i] -= 2 * e;
      double Um = energy_of(m, d, qp);
      double g = (Up - Um) / (2 * e);
      worst = fmax(worst, fabs(Q[i] + g));
      scale = fmax(scale, fabs(g));
    }
    g_test_message("%s: elastic force against -dU/dq by central differences: %.3g (scale %.3g)",
                   planar ? "planar" : "spatial", worst / scale, scale);
    g_assert_cmpfloat(worst, <, 1e-6 * scale);

    /* the stiffness the element puts into the Newton matrix (ks = 1, at rest
     * velocity: all of -dQ/dq) against central differences of Q */
    double *vals = g_new0(double, m->nnz), *Qp = g_new0(double, nq), *Qm = g_new0(double, nq);
    lw_forces_eval(m, d, q, v, 0, Q, vals, 1.0, 0.0);
    double kworst = 0, kscale = 0;
    for (int n = 0; n < m->nforces; n++) {
      int b = m->forces[n].blk[0], o = m->blk_off[b], bn = m->blk_n[b], row = m->forces[n].pairpos[0];
      for (int kc = 0; kc < bn; kc++) {
        double e = 1e-6;
        memcpy(qp, q, sizeof(double) * nq);
        qp[o + kc] += e;
        memset(Qp, 0, sizeof(double) * nq);
        lw_force_kind_of(m->forces[n].type)->eval(m, d, &m->forces[n], qp, v, 0, Qp, NULL, 0, 0);
        qp[o + kc] -= 2 * e;
        memset(Qm, 0, sizeof(double) * nq);
        lw_force_kind_of(m->forces[n].type)->eval(m, d, &m->forces[n], qp, v, 0, Qm, NULL, 0, 0);
        for (int kr = 0; kr <= kc; kr++) {
          double K = -(Qp[o + kr] - Qm[o + kr]) / (2 * e);
          double Kv = vals[m->colptr[o + kc] + row + kr];
          kworst = fmax(kworst, fabs(K - Kv));
          kscale = fmax(kscale, fabs(K));
        }
      }
    }
    g_test_message("%s: stiffness in the Newton matrix against differences of the force: %.3g (scale %.3g)",
                   planar ? "planar" : "spatial", kworst / kscale, kscale);
    g_assert_cmpfloat(kworst, <, 1e-6 * kscale);
    g_free(vals), g_free(Qp), g_free(Qm);
    g_free(q), g_free(v), g_free(Q), g_free(qp);
    lw_data_free(d);
    lw_model_free(m);
  }
  g_rand_free(r);
}

/* ---- statics of the assembled nodal equations ------------------------------------ */
/* nodal coordinates x ((nel + 1) 2 nd) into the elements' blocks of q */
static void scatter(const lw_model *m, const double *x, double *q)
{
  int nn = 2 * m->nd;
  for (int e = 0; e < m->beams[0].nel; e++)
    memcpy(q + m->blk_off[m->beams[0].blk0 + e], x + e * nn, sizeof(double) * 2 * nn);
}

/* the elements' forces (nq) summed at the nodes: y ((nel + 1) 2 nd) */
static void gather(const lw_model *m, const double *Q, double *y)
{
  int nn = 2 * m->nd, nel = m->beams[0].nel;
  memset(y, 0, sizeof(double) * (size_t)(nel + 1) * nn);
  for (int e = 0; e < nel; e++)
    for (int i = 0; i < 2 * nn; i++)
      y[e * nn + i] += Q[m->blk_off[m->beams[0].blk0 + e] + i];
}

/* the nodal stiffness K (N x N, column-major) = -dQ/dx from the kind's jvp */
static void nodal_stiffness(const lw_model *m, lw_data *d, const double *q, double *K)
{
  int nn = 2 * m->nd, nel = m->beams[0].nel, N = (nel + 1) * nn, nq = m->nq;
  double *dq = g_new0(double, nq), *dQ = g_new0(double, nq), *v = g_new0(double, nq);
  memset(K, 0, sizeof(double) * (size_t)N * N);
  lw_lin_point lp = {q, v, v, NULL, {NULL, NULL, NULL}, 0};
  for (int e = 0; e < nel; e++) {
    int n = m->beams[0].force0 + e, o = m->blk_off[m->beams[0].blk0 + e];
    for (int j = 0; j < 2 * nn; j++) {
      memset(dq, 0, sizeof(double) * nq);
      memset(dQ, 0, sizeof(double) * nq);
      dq[o + j] = 1.0;
      lw_lin_dir dir = {dq, NULL, NULL, NULL, NULL, NULL, -1};
      lw_force_kind_of(LW_FORCE_BEAM)->jvp(m, d, n, &lp, &lp, &dir, &dir, 1, dQ);
      for (int i = 0; i < 2 * nn; i++)
        K[(size_t)(e * nn + j) * N + e * nn + i] -= dQ[o + i];
    }
  }
  g_free(dq), g_free(dQ), g_free(v);
}

/* solve A x = b (n, dense, column-major; A overwritten) */
static void solve(double *A, int n, double *b)
{
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[k * n + i]) > fabs(A[k * n + p]))
        p = i;
    for (int j = 0; j < n; j++) {
      double t = A[j * n + k];
      A[j * n + k] = A[j * n + p];
      A[j * n + p] = t;
    }
    double t = b[k];
    b[k] = b[p];
    b[p] = t;
    for (int i = k + 1; i < n; i++) {
      double f = A[k * n + i] / A[k * n + k];
      for (int j = k; j < n; j++)
        A[j * n + i] -= f * A[j * n + k];
      b[i] -= f * b[k];
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    for (int j = k + 1; j < n; j++)
      b[k] -= A[j * n + k] * b[j];
    b[k] /= A[k * n + k];
  }
}

/* a cantilever clamped at x = 0 (node 0's position and slope held) under a
 * tip force P (global -y, nd components), in nsteps load increments with
 * Newton each; the tip's position into tip (nd) */
static void cantilever(const lw_model *m, double P, int nsteps, double *tip)
{
  int nd = m->nd, nn = 2 * nd, nel = m->beams[0].nel, N = (nel + 1) * nn, nf = N - nn, nq = m->nq;
  lw_data *d = lw_data_new(m);
  double *x = g_new0(double, N), *q = g_new0(double, nq), *Q = g_new0(double, nq), *R = g_new0(double, N);
  double *K = g_new0(double, (size_t)N * N), *A = g_new0(double, (size_t)nf * nf), *v = g_new0(double, nq);
  for (int k = 0; k <= nel; k++) {
    x[k * nn] = m->beams[0].l * k;
    x[k * nn + nd] = 1.0;
  }
  for (int s = 1; s <= nsteps; s++) {
    double Ps = P * s / nsteps;
    for (int it = 0; it < 50; it++) {
      scatter(m, x, q);
      memset(Q, 0, sizeof(double) * nq);
      lw_forces_eval(m, d, q, v, 0, Q, NULL, 0, 0);
      gather(m, Q, R);
      R[nel * nn + 1] -= Ps;
      nodal_stiffness(m, d, q, K);
      for (int j = 0; j < nf; j++)
        for (int i = 0; i < nf; i++)
          A[j * nf + i] = K[(size_t)(j + nn) * N + i + nn];
      double *dx = R + nn, nr = 0;
      solve(A, nf, dx);
      for (int i = 0; i < nf; i++) {
        x[nn + i] += dx[i];
        nr = fmax(nr, fabs(dx[i]));
      }
      if (nr < 1e-13)
        break;
    }
  }
  memcpy(tip, x + nel * nn, sizeof(double) * nd);
  g_free(x), g_free(q), g_free(Q), g_free(R), g_free(K), g_free(A), g_free(v);
  lw_data_free(d);
}

static void test_cantilever_small(void)
{
  /* L = 1, EI = 1, EA = 1.2e5 EI / L^2 (a strip 0.012 x 0.01) */
  double L = 1.0, b = 0.012, h = 0.01, E = 1.0 / (b * h * h * h / 12.0);
  double EI = E * b * h * h * h / 12.0, P = 1e-5, exact = P * L * L * L / (3 * EI);
  double prev = NAN;
  for (int nel = 1; nel <= 8; nel *= 2) {
    lw_model *m = beam_model(1, nel, L, E, 1.0, b, h, 0, 0);
    double tip[2];
    cantilever(m, P, 1, tip);
    double err = fabs(-tip[1] - exact) / exact;
    g_test_message("small tip load P L^2 / EI = %g, %d elements: deflection %.15g, P L^3 / (3 EI) %.15g, "
                   "relative difference %.3g, from the previous count %.3g",
                   P * L * L / EI, nel, -tip[1], exact, err, isnan(prev) ? 0.0 : fabs(-tip[1] - prev) / exact);
    /* cubic Hermite elements hold the exact cubic deflection of the linear
     * beam: the difference left is the load's geometric nonlinearity,
     * (delta / L)^2 ~ 1e-10, at any element count */
    g_assert_cmpfloat(err, <, 1e-8);
    prev = -tip[1];
    lw_model_free(m);
  }
}

static void test_cantilever_large(void)
{
  /* P L^2 / EI = 1 with EA = 1.2e5 EI / L^2 (a 0.01 thick strip): the
   * inextensible elastica gives the tip at (1 - 0.05643, -0.30172) L
   * (Bisshopp and Drucker 1945) */
  double L = 1.0, b = 0.012, h = 0.01, E = 1.0 / (b * h * h * h / 12.0), P = 1.0;
  double tips[6][2];
  int counts[6] = {1, 2, 4, 8, 16, 32};
  for (int k = 0; k < 6; k++) {
    lw_model *m = beam_model(1, counts[k], L, E, 1.0, b, h, 0, 0);
    cantilever(m, P, 10, tips[k]);
    lw_model_free(m);
  }
  for (int k = 0; k < 6; k++) {
    double dx = tips[k][0] - tips[5][0], dy = tips[k][1] - tips[5][1];
    double prev = k > 0 ? hypot(tips[k - 1][0] - tips[5][0], tips[k - 1][1] - tips[5][1]) : NAN;
    g_test_message("large tip load P L^2 / EI = 1, %2d elements: tip (%.8f, %.8f), from 32 elements' %.3g "
                   "(the previous count's over this: %.2f)",
                   counts[k], tips[k][0], tips[k][1], hypot(dx, dy), prev / hypot(dx, dy));
  }
  /* converging: each doubling closer to the finest, and the finest on the elastica */
  for (int k = 1; k < 5; k++)
    g_assert_cmpfloat(hypot(tips[k][0] - tips[5][0], tips[k][1] - tips[5][1]), <,
                      hypot(tips[k - 1][0] - tips[5][0], tips[k - 1][1] - tips[5][1]));
  g_test_message("32 elements against the elastica: x %.5f (1 - 0.05643 = 0.94357), y %.5f (-0.30172)", tips[5][0],
                 tips[5][1]);
  g_assert_cmpfloat(fabs(tips[5][1] + 0.30172), <, 2e-4);
  g_assert_cmpfloat(fabs(tips[5][0] - 0.94357), <, 2e-4);
}

/* ---- vibration --------------------------------------------------------------------- */
static void test_free_frequency(void)
{
  double L = 1.2, b = 0.05, h = 0.05, E = 1e7, rho = 4000;
  for (int planar = 0; planar < 2; planar++) {
    lw_model *m = beam_model(planar, 8, L, E, rho, b, h, 0, 0);
    lw_data *d = lw_data_new(m);
    int nd = m->nd, nn = 2 * nd, nel = 8, N = (nel + 1) * nn;
    double *K = g_new0(double, (size_t)N * N), *M = g_new0(double, (size_t)N * N), *w = g_new0(double, N);
    nodal_stiffness(m, d, m->q0, K);
    for (int e = 0; e < nel; e++) {
      int bb = m->beams[0].blk0 + e;
      const double *Mb = m->mass_blocks + m->mblk_off[bb];
      for (int j = 0; j < 2 * nn; j++)
        for (int i = 0; i < 2 * nn; i++)
          M[(size_t)(e * nn + j) * N + e * nn + i] += Mb[j * 2 * nn + i];
    }
    int one = 1, lwork = 64 * N, info;
    double *work = g_new(double, lwork);
    dsygv_(&one, "N", "U", &N, K, &N, M, &N, w, work, &lwork, &info);
    g_assert_cmpint(info, ==, 0);
    /* the rigid motions (planar 3, spatial 5: no twist in this element)
     * have zero frequency; the next is the first bending mode */
    int nrig = 0;
    while (nrig < N && w[nrig] < 1e-6 * w[N - 1])
      nrig++;
    double EI = E * b * h * h * h / 12.0, rhoA = rho * b * h, bl = 4.730040744862704;
    double f = sqrt(w[nrig]) / (2 * M_PI), fa = bl * bl / (2 * M_PI * L * L) * sqrt(EI / rhoA);
    g_test_message("%s free beam, 8 elements: %d rigid modes, lowest bending frequency %.8g Hz, analytic %.8g Hz "
                   "(relative difference %.3g)",
                   planar ? "planar" : "spatial", nrig, f, fa, fabs(f - fa) / fa);
    g_assert_cmpint(nrig, ==, planar ? 3 : 5);
    g_assert_cmpfloat(fabs(f - fa) / fa, <, 0.01);
    g_free(K), g_free(M), g_free(w), g_free(work);
    lw_data_free(d);
    lw_model_free(m);
  }
}

/* ---- runs -------------------------------------------------------------------------- */
/* a cantilever welded to the ground, a tip force, material damping: the
 * run settles to the static solution of the nodal equations */
static void test_welded_settles(void)
{
  for (int planar = 0; planar < 2; planar++) {
    /* EI = 1, rho A = 1, the first mode's damping ratio about 0.35 */
    double L = 1.0, b = 0.012, h = 0.01, E = 1.0 / (b * h * h * h / 12.0), rho = 1.0 / (b * h), P = 0.5;
    char *json = g_strdup_printf(
      "{\"linkwright\": 1, \"name\": \"welded\", \"planar\": %s, \"gravity\": %s,"
      " \"solver\": {\"t_end\": 10, \"step\": 0.01},"
      " \"beams\": [{\"name\": \"b\", \"elements\": 4, \"start\": %s, \"end\": %s, \"young\": %.17g,"
      "   \"density\": %.17g, \"damping\": 0.2, \"section\": \"rectangle\", \"size\": [%.17g, %.17g]}],"
      " \"joints\": [{\"name\": \"clamp\", \"type\": \"fixed\", \"body1\": \"ground\", \"body2\": \"b\", \"at\": %s}],"
      " \"forces\": [{\"name\": \"load\", \"type\": \"force\", \"body\": \"b\", \"point\": %s, \"vector\": %s}],"
      " \"outputs\": [{\"name\": \"tip\", \"type\": \"position\", \"body\": \"b\", \"point\": %s},"
      "   {\"name\": \"E\", \"type\": \"total_energy\"}]}",
      planar ? "true" : "false", planar ? "[0, 0]" : "[0, 0, 0]", planar ? "[0, 0]" : "[0, 0, 0]",
      planar ? "[1, 0]" : "[1, 0, 0]", E, rho, b, h, planar ? "[0, 0]" : "[0, 0, 0]", planar ? "[1, 0]" : "[1, 0, 0]",
      planar ? "[0, -0.5]" : "[0, -0.5, 0]", planar ? "[1, 0]" : "[1, 0, 0]");
    lw_error err;
    lw_desc *desc = lw_model_read_data(json, -1, "welded", NULL, &err);
    if (!desc)
      g_error("%s", err.msg);
    lw_model *m = lwt_compile(desc);
    lw_sim_result r;
    g_assert_cmpint(lw_simulate(m, 10.0, 0.01, &r, NULL, NULL), ==, LW_OK);
    int cx = lwt_col(m, "tip.x"), cy = lwt_col(m, "tip.y");
    double x = lwt_at(&r, r.rows - 1, cx), y = lwt_at(&r, r.rows - 1, cy);
    lw_model *ms = beam_model(1, 4, L, E, rho, b, h, 0, 0);
    double tip[2];
    cantilever(ms, P, 5, tip);
    g_test_message("%s welded cantilever, tip force 0.5 EI / L^2, damped run to t = 10 s: tip (%.8f, %.8f), static "
                   "solution (%.8f, %.8f)",
                   planar ? "planar" : "spatial", x, y, tip[0], tip[1]);
    g_assert_cmpfloat(fabs(x - tip[0]), <, 1e-5);
    g_assert_cmpfloat(fabs(y - tip[1]), <, 1e-5);
    lw_sim_result_clear(&r);
    lw_model_free(ms);
    lw_model_free(m);
    lw_desc_free(desc);
    g_free(json);
  }
}

/* a beam's end point moves its initial shape (the nodes' coordinates) and
 * its element length: forward and adjoint agree to 1e-8 and both with
 * central differences of the whole run, with ALI3-P and the variational
 * integrator (forward and adjoint once gave an exact 0 where differences
 * gave about 0.9) */
static void end_point_check(const char *integrator)
{
  lw_desc *desc = lwt_read("flexible-pendulum.json");
  desc->solver.t_end = 0.1;
  snprintf(desc->solver.integrator, sizeof desc->solver.integrator, "%s", integrator);
  lw_param_desc *pp = lw_desc_add_param(desc, "Ly", "beams/beam/end/1");
  pp->value = lw_desc_field(desc, "beams/beam/end/1")[0];
  int j = desc->nparams - 1, obj = 0;
  double g[3];
  lw_sens_method methods[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  for (int k = 0; k < 3; k++) {
    lw_sens_options opt = {.method = methods[k], .nparams = 1, .params = &j, .nobj = 1, .objectives = &obj,
                           .threads = 1, .fd_step = k == 2 ? 1e-5 : 0.0};
    lw_sens_result r;
    if (lw_sensitivity(desc, &opt, &r) != LW_OK)
      g_error("%s %s: %s", integrator, lw_sens_method_name(methods[k]), r.error.msg);
    g[k] = r.gradient[0];
    lw_sens_result_clear(&r);
  }
  g_test_message("%s: d %s / d Ly: forward %.12g adjoint %.12g differences %.12g", integrator,
                 desc->objectives[0].name, g[0], g[1], g[2]);
  g_assert_cmpfloat(fabs(g[2]), >, 1e-3);
  g_assert_cmpfloat(fabs(g[0] - g[1]), <=, 1e-8 * fmax(1.0, fabs(g[0])));
  g_assert_cmpfloat(fabs(g[0] - g[2]), <=, 1e-5 * fmax(1.0, fabs(g[2])));
  lw_desc_free(desc);
}

static void test_end_point(void)
{
  end_point_check("ali3p");
  end_point_check("variational");
}

/* the rigid-spring-beam assembly, shortened to 0.2 s: the gradient of
 * the integral of |d_B|^2 in X_D and Y_D (the beam's end and the pin's
 * place together), forward against adjoint and against central
 * differences of the whole run */
static void test_rigid_spring_beam_gradient(void)
{
  lw_desc *desc = lwt_read("rigid-spring-beam.json");
  desc->solver.t_end = 0.2;
  g_assert_cmpint(desc->nparams, ==, 2);
  int params[2] = {0, 1}, obj = 0;
  double g[3][2];
  lw_sens_method methods[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  for (int k = 0; k < 3; k++) {
    lw_sens_options opt = {.method = methods[k], .nparams = 2, .params = params, .nobj = 1, .objectives = &obj,
                           .threads = 1, .fd_step = k == 2 ? 1e-5 : 0.0};
    lw_sens_result r;
    if (lw_sensitivity(desc, &opt, &r) != LW_OK)
      g_error("%s: %s", lw_sens_method_name(methods[k]), r.error.msg);
    g[k][0] = r.gradient[0];
    g[k][1] = r.gradient[1];
    lw_sens_result_clear(&r);
  }
  for (int j = 0; j < 2; j++) {
    g_test_message("d dB / d %s: forward %.12g adjoint %.12g differences %.12g", desc->params[j].name, g[0][j],
                   g[1][j], g[2][j]);
    g_assert_cmpfloat(fabs(g[2][j]), >, 1e-15); /* the objective is about 1e-9 at 0.2 s */
    g_assert_cmpfloat(fabs(g[0][j] - g[1][j]), <=, 1e-8 * fabs(g[0][j]));
    g_assert_cmpfloat(fabs(g[0][j] - g[2][j]), <=, 1e-4 * fabs(g[2][j]));
  }
  lw_desc_free(desc);
}

/* the flexible pendulum, shortened to 0.5 s: forward against adjoint, and
 * both against central differences of the whole run */
static void test_pendulum_sensitivities(void)
{
  lw_desc *desc = lwt_read("flexible-pendulum.json");
  desc->solver.t_end = 0.5;
  int np = desc->nparams, params[8], objs[2] = {0, 1};
  g_assert_cmpint(np, <=, 8);
  for (int j = 0; j < np; j++)
    params[j] = j;
  double *g[3];
  lw_sens_method methods[2] = {LW_SENS_FORWARD, LW_SENS_ADJOINT};
  for (int k = 0; k < 2; k++) {
    lw_sens_options opt = {.method = methods[k], .nparams = np, .params = params, .nobj = 2, .objectives = objs,
                           .threads = 1};
    lw_sens_result r;
    if (lw_sensitivity(desc, &opt, &r) != LW_OK)
      g_error("%s: %s", lw_sens_method_name(methods[k]), r.error.msg);
    g[k] = g_memdup2(r.gradient, sizeof(double) * 2 * np);
    lw_sens_result_clear(&r);
  }
  /* central differences, each parameter with a step of about 1e-5 of its
   * value (the step is relative to max(|value|, 1)): shorter ones meet the
   * Newton iteration's tolerance, longer ones the truncation error */
  g[2] = g_new0(double, 2 * np);
  for (int j = 0; j < np; j++) {
    lw_sens_options opt = {.method = LW_SENS_FD, .nparams = 1, .params = &params[j], .nobj = 2, .objectives = objs,
                           .threads = 1, .fd_step = 1e-5 * fmin(fabs(desc->params[j].value), 1.0)};
    lw_sens_result r;
    if (lw_sensitivity(desc, &opt, &r) != LW_OK)
      g_error("fd: %s", r.error.msg);
    g[2][j] = r.gradient[0];
    g[2][np + j] = r.gradient[1];
    lw_sens_result_clear(&r);
  }
  for (int i = 0; i < 2 * np; i++) {
    int j = i % np;
    double scale = fmax(fabs(g[1][i]), 1e-300);
    double fa = fabs(g[0][i] - g[1][i]) / scale, fd = fabs(g[2][i] - g[1][i]) / scale;
    g_test_message("d %s / d %s: forward %.12g, adjoint %.12g (relative %.2g), central differences %.8g "
                   "(relative %.2g)",
                   desc->objectives[i / np].name, desc->params[j].name, g[0][i], g[1][i], fa, g[2][i], fd);
    g_assert_cmpfloat(fa, <, 1e-8);
    g_assert_cmpfloat(fd, <, 1e-5);
  }
  for (int k = 0; k < 3; k++)
    g_free(g[k]);
  lw_desc_free(desc);
}

/* the beam outputs' derivatives along a state direction and the
 * parameters' tangents against central differences of the outputs */
static void test_output_derivatives(void)
{
  lw_desc *desc = lwt_read("flexible-pendulum.json");
  lw_model *m = lwt_compile(desc);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  GRand *r = g_rand_new_with_seed(3);
  int nq = m->nq, nc = lw_model_output_columns(m);
  double *q = g_new(double, nq), *v = g_new0(double, nq), *dq = g_new(double, nq), *q0 = g_new(double, nq);
  double *yp = g_new(double, nc), *ym = g_new(double, nc), dy[3];
  random_state(m, r, q, v);
  for (int i = 0; i < nq; i++)
    dq[i] = g_rand_double_range(r, -1, 1);
  memcpy(q0, q, sizeof(double) * nq);
  double e = 1e-6;
  for (int i = 0; i < nq; i++)
    d->q[i] = q0[i] + e * dq[i];
  lw_outputs(m, d, yp);
  for (int i = 0; i < nq; i++)
    d->q[i] = q0[i] - e * dq[i];
  lw_outputs(m, d, ym);
  memcpy(d->q, q0, sizeof(double) * nq);
  lw_lin_point lp = {q0, v, v, v, {NULL, NULL, NULL}, 0};
  lw_lin_dir dir = {dq, NULL, NULL, NULL, NULL, NULL, -1};
  for (int k = 0; k < m->nout; k++) {
    if (m->outputs[k].type < LW_OUT_BEAM_STRAIN)
      continue;
    lw_output_jvp(m, d, NULL, k, &lp, &dir, dy);
    int c = m->out_col[k];
    double fd = (yp[c] - ym[c]) / (2 * e);
    g_test_message("%s (%s): derivative along dq %.10g, central differences %.10g", desc->outputs[k].name,
                   lw_output_type_name(m->outputs[k].type), dy[0], fd);
    g_assert_cmpfloat(fabs(dy[0] - fd), <, 1e-6 * fmax(fabs(fd), 1e-3));
  }
  /* along the parameters: the exact tangent against the outputs of models compiled at perturbed values */
  for (int j = 0; j < desc->nparams; j++) {
    lw_tangent *tg = lw_tangent_new(desc, j, &err);
    g_assert_nonnull(tg);
    lw_lin_dir pdir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    double val = desc->params[j].value, h = 1e-6 * fabs(val);
    lw_desc *dp = lw_desc_copy(desc);
    double ys[2][16];
    for (int sgn = 0; sgn < 2; sgn++) {
      dp->params[j].value = val + (sgn ? -h : h);
      lw_model *mp = lwt_compile(dp);
      lw_data *dd = lw_data_new(mp);
      memcpy(dd->q, q0, sizeof(double) * nq);
      lw_outputs(mp, dd, ys[sgn]);
      lw_data_free(dd);
      lw_model_free(mp);
    }
    for (int k = 0; k < m->nout; k++) {
      if (m->outputs[k].type < LW_OUT_BEAM_STRAIN)
        continue;
      lw_output_jvp(m, d, tg, k, &lp, &pdir, dy);
      int c = m->out_col[k];
      double fd = (ys[0][c] - ys[1][c]) / (2 * h);
      g_test_message("%s along %s: %.10g, central differences %.10g", desc->outputs[k].name, desc->params[j].name,
                     dy[0], fd);
      g_assert_cmpfloat(fabs(dy[0] - fd), <, 1e-5 * fmax(fabs(fd), 1e-12) + 1e-14);
    }
    lw_desc_free(dp);
    lw_tangent_free(tg);
  }
  g_free(q), g_free(v), g_free(dq), g_free(q0), g_free(yp), g_free(ym);
  g_rand_free(r);
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(desc);
}

/* malformed beams: a message naming the field */
static void test_messages(void)
{
  static const struct { const char *beam, *extra, *path, *what; } cases[] = {
    {"\"start\": [0, 0], \"end\": [1, 0], \"young\": 1, \"density\": 1, \"section\": \"rectangle\", \"size\": [1, 1]",
     "", "beams/b", "elements"},
    {"\"elements\": 0, \"start\": [0, 0], \"end\": [1, 0], \"young\": 1, \"density\": 1, \"section\": \"rectangle\","
     " \"size\": [1, 1]", "", "beams/b/elements", "at least one"},
    {"\"elements\": 2, \"start\": [0, 0], \"end\": [1, 0], \"young\": 1, \"density\": 1, \"section\": \"square\","
     " \"size\": [1, 1]", "", "beams/b/section", "unknown section"},
    {"\"elements\": 2, \"start\": [0, 0], \"end\": [1, 0], \"young\": -1, \"density\": 1, \"section\": \"circle\","
     " \"size\": [1]", "", "beams/b/young", "positive"},
    {"\"elements\": 2, \"start\": [0, 0], \"end\": [0, 0], \"young\": 1, \"density\": 1, \"section\": \"circle\","
     " \"size\": [1]", "", "beams/b/end", "apart"},
    {"\"elements\": 2, \"start\": [0, 0], \"end\": [1, 0], \"young\": 1, \"density\": 1, \"section\": \"tube\","
     " \"size\": [1, 2]", "", "beams/b/size", "outer diameter"},
    {"\"elements\": 2, \"start\": [0, 0], \"end\": [1, 0], \"young\": 1, \"density\": 1, \"section\": \"circle\","
     " \"size\": [1]",
     ", \"joints\": [{\"name\": \"j\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"b\", \"at\": [0, 0]}]",
     "joints/j/type", "a beam takes"},
    {"\"elements\": 2, \"start\": [0, 0], \"end\": [1, 0], \"young\": 1, \"density\": 1, \"section\": \"circle\","
     " \"size\": [1]",
     ", \"outputs\": [{\"name\": \"o\", \"type\": \"position\", \"body\": \"b\", \"point\": [1.5, 0]}]",
     "outputs/o/point", "outside"},
    {"\"elements\": 2, \"start\": [0, 0], \"end\": [1, 0], \"young\": 1, \"density\": 1, \"section\": \"circle\","
     " \"size\": [1]",
     ", \"forces\": [{\"name\": \"t\", \"type\": \"torque\", \"body\": \"b\", \"value\": 1}]",
     "forces/t/body", "no rotation"},
  };
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    char *json = g_strdup_printf("{\"linkwright\": 1, \"name\": \"bad\", \"planar\": true,"
                                 " \"beams\": [{\"name\": \"b\", %s}]%s}",
                                 cases[k].beam, cases[k].extra);
    lw_error err;
    memset(&err, 0, sizeof err);
    lw_desc *d = lw_model_read_data(json, -1, "bad", NULL, &err);
    lw_model *m = d ? lw_compile(d, &err) : NULL;
    g_test_message("%s: %s", err.path, err.msg);
    g_assert_null(m);
    g_assert_cmpstr(err.path, ==, cases[k].path);
    g_assert_nonnull(strstr(err.msg, cases[k].what));
    lw_desc_free(d);
    g_free(json);
  }
}

/* the model file keeps a beam: written and read back, the same */
static void test_round_trip(void)
{
  lw_desc *d = lwt_read("flexible-pendulum.json");
  char *json = lw_model_to_json(d);
  lw_error err;
  lw_desc *e = lw_model_read_data(json, -1, "again", NULL, &err);
  if (!e)
    g_error("%s", err.msg);
  g_assert_cmpint(e->nbeams, ==, 1);
  g_assert_cmpint(memcmp(&e->beams[0].nel, &d->beams[0].nel, sizeof *d->beams - offsetof(lw_beam_desc, nel)), ==, 0);
  char *again = lw_model_to_json(e);
  g_assert_cmpstr(json, ==, again);
  g_free(json);
  g_free(again);
  lw_desc_free(d);
  lw_desc_free(e);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/beam/mass", test_mass);
  g_test_add_func("/beam/force-gradient-stiffness", test_force_gradient);
  g_test_add_func("/beam/cantilever-small-load", test_cantilever_small);
  g_test_add_func("/beam/cantilever-large-load", test_cantilever_large);
  g_test_add_func("/beam/free-frequency", test_free_frequency);
  g_test_add_func("/beam/welded-settles", test_welded_settles);
  g_test_add_func("/beam/pendulum-sensitivities", test_pendulum_sensitivities);
  g_test_add_func("/beam/output-derivatives", test_output_derivatives);
  g_test_add_func("/beam/end-point", test_end_point);
  g_test_add_func("/beam/rigid-spring-beam-gradient", test_rigid_spring_beam_gradient);
  g_test_add_func("/beam/messages", test_messages);
  g_test_add_func("/beam/round-trip", test_round_trip);
  return g_test_run();
}
