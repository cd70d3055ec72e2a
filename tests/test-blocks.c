/* test-blocks.c: coordinates in blocks of mixed sizes.  A spatial pendulum
 * (a rod, 12 coordinates) ending in a point mass (3 coordinates): the
 * compiled layout, the sparse pattern and the linear solvers against dense
 * ones, a run against its invariants (energy, constraints) and its
 * sensitivities (forward against adjoint against differences).  A chain of
 * such pendulums long enough for the sparse (CHOLMOD) paths checks the same
 * solves and sensitivities there; planar point masses (2 coordinates) alone
 * and with a link (4) check the plane. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_rows.h"
#include "la/lw_matrix.h"

#include <string.h>

/* n rods, each hung by a spherical joint from the previous point mass (the
 * first from the ground), each ending in a point mass; the rods start
 * tilted out of the vertical plane so that the motion is spatial */
static char *chain_json(int n, double t_end)
{
  GString *s = g_string_new(NULL);
  g_string_append_printf(s,
                         "{\"linkwright\": 1, \"name\": \"blocks\", \"planar\": false, \"gravity\": [0, 0, -9.81],"
                         " \"solver\": {\"t_end\": %g, \"step\": 0.001, \"tolerance\": 1e-12}, \"bodies\": [",
                         t_end);
  const double L[3] = {0.6, 0.3, -0.2};
  for (int k = 0; k < n; k++) {
    double o[3] = {k * L[0], k * L[1], k * L[2]};
    g_string_append_printf(s,
                           "%s{\"name\": \"rod%d\", \"mass\": 0.5, \"com\": [0.3, 0.15, -0.1],"
                           " \"inertia\": [0.02, 0.03, 0.04, 0.001, 0.002, 0.003], \"position\": [%g, %g, %g],"
                           " \"points\": {\"end\": [0.6, 0.3, -0.2]}},"
                           " {\"name\": \"bob%d\", \"type\": \"point\", \"mass\": 1.5, \"position\": [%g, %g, %g]}",
                           k ? ", " : "", k, o[0], o[1], o[2], k, o[0] + L[0], o[1] + L[1], o[2] + L[2]);
  }
  g_string_append(s, "], \"joints\": [");
  for (int k = 0; k < n; k++) {
    if (k == 0)
      g_string_append(s, "{\"name\": \"top\", \"type\": \"spherical\", \"body1\": \"ground\", \"body2\": \"rod0\","
                         " \"at\": [0, 0, 0]}");
    else
      g_string_append_printf(s,
                             ", {\"name\": \"hang%d\", \"type\": \"spherical\", \"body1\": \"bob%d\","
                             " \"body2\": \"rod%d\", \"point1\": [0, 0, 0], \"point2\": [0, 0, 0]}",
                             k, k - 1, k);
    g_string_append_printf(s,
                           ", {\"name\": \"tip%d\", \"type\": \"spherical\", \"body1\": \"rod%d\", \"body2\": \"bob%d\","
                           " \"point1\": \"end\", \"point2\": [0, 0, 0]}",
                           k, k, k);
  }
  g_string_append_printf(s,
                         "], \"outputs\": [{\"name\": \"bob\", \"type\": \"position\", \"body\": \"bob%d\","
                         " \"point\": [0, 0, 0]}, {\"name\": \"energy\", \"type\": \"total_energy\"}],"
                         " \"parameters\": [{\"name\": \"mb\", \"bind\": \"bodies/bob0/mass\"},"
                         " {\"name\": \"mr\", \"bind\": \"bodies/rod0/mass\"},"
                         " {\"name\": \"L\", \"bind\": \"bodies/rod0/points/end/0\"}],"
                         " \"objectives\": [{\"name\": \"height\", \"terms\": [{\"output\": \"bob\", \"kind\": \"integral\","
                         " \"form\": \"square\", \"target\": [0.5, 0.5, -1]}]}]}",
                         n - 1);
  return g_string_free(s, FALSE);
}

static lw_desc *chain_desc(int n, double t_end)
{
  g_autofree char *json = chain_json(n, t_end);
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "blocks.json", NULL, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  return d;
}

/* the layout: blocks of 12 and 3, offsets and packed mass blocks, and no
 * uniform size */
static void test_layout(void)
{
  lw_desc *d = chain_desc(2, 0.1);
  lw_model *m = lwt_compile(d);
  g_assert_cmpint(m->nb, ==, 4);
  g_assert_cmpint(m->nqb, ==, 0);
  g_assert_cmpint(m->nqbmax, ==, 12);
  g_assert_cmpint(m->wrow, ==, 24);
  const int n[4] = {12, 3, 12, 3};
  for (int b = 0, off = 0, moff = 0; b < 4; off += n[b], moff += n[b] * n[b], b++) {
    g_assert_cmpint(m->blk_n[b], ==, n[b]);
    g_assert_cmpint(m->blk_off[b], ==, off);
    g_assert_cmpint((int)m->mblk_off[b], ==, moff);
  }
  g_assert_cmpint(m->blk_off[4], ==, m->nq);
  g_assert_cmpint(m->nq, ==, 30);
  /* the point's mass block is m I */
  const double *Mb = m->mass_blocks + m->mblk_off[1];
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++)
      g_assert_cmpfloat(Mb[j * 3 + i], ==, i == j ? 1.5 : 0.0);
  /* a rod has its 6 rigid-body rows, a point none; 4 spherical joints */
  g_assert_cmpint(m->nc, ==, 2 * 6 + 4 * 3);
  int nd;
  g_assert_cmpint(lw_model_body_coords(m, 3, &nd), ==, 27);
  g_assert_cmpint(nd, ==, 3);
  lw_model_free(m);
  lw_desc_free(d);
}

/* the upper triangle of the pattern (CSC) as a dense symmetric matrix */
static void csc_to_dense(const lw_model *m, const double *vals, double *A)
{
  int nq = m->nq;
  memset(A, 0, sizeof(double) * (size_t)nq * nq);
  for (int c = 0; c < nq; c++)
    for (int p = m->colptr[c]; p < m->colptr[c + 1]; p++) {
      int r = m->rowind[p];
      g_assert_cmpint(r, <=, c);
      A[(size_t)c * nq + r] = vals[p];
      A[(size_t)r * nq + c] = vals[p];
    }
}

/* the pattern holds M's blocks, each column's rows sorted and its diagonal
 * last; the Newton matrix M + alpha J^T J assembled in the pattern (rows
 * across blocks of 12 and 3) solves as the dense matrix built from the
 * Jacobian directly, on the dense or the sparse (CHOLMOD) path */
static void check_solve(int nlinks, int want_dense)
{
  lw_desc *d = chain_desc(nlinks, 0.1);
  lw_model *m = lwt_compile(d);
  g_assert_cmpint(m->dense, ==, want_dense);
  lw_data *dd = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, dd, &err), ==, LW_OK);
  int nq = m->nq, nc = m->nc;
  for (int c = 0; c < nq; c++) {
    g_assert_cmpint(m->rowind[m->colptr[c + 1] - 1], ==, c);
    for (int p = m->colptr[c] + 1; p < m->colptr[c + 1]; p++)
      g_assert_cmpint(m->rowind[p - 1], <, m->rowind[p]);
  }
  double *A = g_new0(double, (size_t)nq * nq), *B = g_new0(double, (size_t)nq * nq);
  double *Md = g_new0(double, (size_t)nq * nq), *Jd = g_new0(double, (size_t)nc * nq);
  csc_to_dense(m, m->mass_csc, A);
  lw_eval_mass_dense(m, Md);
  for (size_t k = 0; k < (size_t)nq * nq; k++)
    g_assert_cmpfloat(A[k], ==, Md[k]);
  /* vals = M + alpha J^T J through the pattern */
  double alpha = 1e3;
  lw_eval_dense(m, dd, dd->q, dd->qd, dd->t, NULL, NULL, Jd, NULL, NULL);
  for (int k = 0; k < m->nnz; k++)
    dd->vals[k] = m->mass_csc[k];
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    lw_mat_add_outer(m, dd->vals, alpha, row->nblk, row->blk, row->pairpos, dd->jac + (size_t)r * m->wrow);
  }
  csc_to_dense(m, dd->vals, A);
  for (int j = 0; j < nq; j++)
    for (int i = 0; i < nq; i++) {
      double s = Md[(size_t)j * nq + i];
      for (int r = 0; r < nc; r++)
        s += alpha * Jd[(size_t)i * nc + r] * Jd[(size_t)j * nc + r];
      B[(size_t)j * nq + i] = s;
    }
  for (size_t k = 0; k < (size_t)nq * nq; k++)
    g_assert_cmpfloat(fabs(A[k] - B[k]), <=, 1e-12 * (1.0 + fabs(B[k])));
  /* solve A x = b by the model's solver and by a dense LU */
  double *x = g_new(double, nq), *y = g_new(double, nq);
  int *ipiv = g_new(int, nq);
  for (int i = 0; i < nq; i++)
    x[i] = y[i] = sin(1.0 + 0.7 * i);
  g_assert_cmpint(lw_spd_factor(&dd->solver, m, dd->vals), ==, 0);
  lw_spd_solve(&dd->solver, x);
  g_assert_cmpint(lw_lu_dense(B, nq, ipiv), ==, 0);
  lw_lu_dense_solve(B, nq, ipiv, 0, y, 1);
  double e = 0, s = 0;
  for (int i = 0; i < nq; i++) {
    e = fmax(e, fabs(x[i] - y[i]));
    s = fmax(s, fabs(y[i]));
  }
  g_assert_cmpfloat(e, <=, 1e-10 * s);
  /* M^-1 M x = x over the blocks */
  double *z = g_new(double, nq);
  lw_mass_mul(m, x, y);
  lw_minv_mul(m, y, z);
  for (int i = 0; i < nq; i++)
    g_assert_cmpfloat(fabs(z[i] - x[i]), <=, 1e-12 * (1.0 + fabs(x[i])));
  g_free(z), g_free(x), g_free(y), g_free(ipiv), g_free(A), g_free(B), g_free(Md), g_free(Jd);
  lw_data_free(dd);
  lw_model_free(m);
  lw_desc_free(d);
}

static void test_solve_dense(void) { check_solve(1, 1); }
static void test_solve_sparse(void) { check_solve(8, 0); }

/* max |E - E0| over 2 s of the pendulum at step h (the lowest height of the
 * point and the largest constraint residual into zmin, phimax) */
static double energy_error(double h, double *E0, double *zmin, double *phimax)
{
  lw_desc *d = chain_desc(1, 2.0);
  d->solver.step = h;
  int nsteps = (int)lround(2.0 / h);
  lw_model *m = lwt_compile(d);
  lw_data *dd = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, dd, &err), ==, LW_OK);
  int ncol = lw_model_output_columns(m), ce = -1;
  for (int k = 0, c = 0; k < lw_model_noutputs(m); c += lw_model_output_width(m, k), k++)
    if (!strcmp(lw_model_output_name(m, k), "energy"))
      ce = c;
  g_assert_cmpint(ce, >=, 0);
  double *out = g_new(double, ncol);
  lw_outputs(m, dd, out);
  double emax = 0;
  *E0 = out[ce], *zmin = 0, *phimax = 0;
  for (int n = 0; n < nsteps; n++) {
    g_assert_cmpint(lw_step(m, dd, NULL, &err), ==, LW_OK);
    lw_outputs(m, dd, out);
    emax = fmax(emax, fabs(out[ce] - *E0));
    *zmin = fmin(*zmin, dd->q[m->blk_off[1] + 2]);
    lw_rows_eval(m, dd, dd->q, dd->t, 0);
    for (int r = 0; r < m->nc; r++)
      *phimax = fmax(*phimax, fabs(dd->phi[r]));
  }
  g_free(out);
  lw_data_free(dd);
  lw_model_free(m);
  lw_desc_free(d);
  return emax;
}

/* the pendulum conserves energy up to the trapezoidal rule's error, which
 * falls as h^2, and holds its constraints */
static void test_energy(void)
{
  double E0, zmin, phimax, e1, e2;
  e1 = energy_error(2e-4, &E0, &zmin, &phimax);
  e2 = energy_error(1e-4, &E0, &zmin, &phimax);
  g_test_message("E0 %g, max |E - E0| %g (h = 0.2 ms), %g (0.1 ms), max |Phi| %g, lowest z %g", E0, e1, e2, phimax,
                 zmin);
  /* it swung: the point fell to the bottom (length 0.7 below the pivot) */
  g_assert_cmpfloat(zmin, <, -0.69);
  g_assert_cmpfloat(e2, <=, 1e-6 * fabs(E0));
  g_assert_cmpfloat(e1 / e2, >, 3.5);
  g_assert_cmpfloat(e1 / e2, <, 4.5);
  g_assert_cmpfloat(phimax, <=, 1e-10);
}

static lw_desc *read_json(const char *json)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "planar.json", NULL, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  return d;
}

/* a planar point mass (2 coordinates) on a spring from the ground swings
 * radially with the period 2 pi sqrt(m / k): at half a period it is at the
 * other end of its stroke */
static void test_planar_oscillator(void)
{
  lw_desc *d = read_json("{\"linkwright\": 1, \"name\": \"osc\", \"planar\": true, \"gravity\": [0, 0],"
                         " \"solver\": {\"t_end\": 1, \"step\": 0.0001},"
                         " \"bodies\": [{\"name\": \"p\", \"type\": \"point\", \"mass\": 2, \"position\": [0.6, 0.8]}],"
                         " \"forces\": [{\"name\": \"s\", \"type\": \"spring_damper\", \"body1\": \"ground\","
                         " \"point1\": [0, 0], \"body2\": \"p\", \"point2\": [0, 0], \"stiffness\": 50,"
                         " \"rest_length\": 0.8}]}");
  /* the point starts at rest 0.2 past the rest length along (0.6, 0.8) */
  d->bodies[0].position[0] = 0.6;
  d->bodies[0].position[1] = 0.8;
  lw_model *m = lwt_compile(d);
  g_assert_cmpint(m->nq, ==, 2);
  g_assert_cmpint(m->nc, ==, 0);
  g_assert_cmpint(m->nqb, ==, 2);
  lw_data *dd = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, dd, &err), ==, LW_OK);
  double T = 2 * G_PI * sqrt(2.0 / 50.0);
  int n = (int)lround(0.5 * T / 1e-4);
  for (int k = 0; k < n; k++)
    g_assert_cmpint(lw_step(m, dd, NULL, &err), ==, LW_OK);
  /* the remainder of half a period past n steps is below a step; the
   * velocity is near zero there, so the position is flat in time */
  double r = hypot(dd->q[0], dd->q[1]);
  g_test_message("radius at T/2: %.9f (expected 0.6)", r);
  g_assert_cmpfloat(fabs(r - 0.6), <, 1e-6);
  /* on its line, up to the Newton iteration's tolerance over the steps */
  g_assert_cmpfloat(fabs(dd->q[0] * 0.8 - dd->q[1] * 0.6), <, 1e-9);
  lw_data_free(dd);
  lw_model_free(m);
  lw_desc_free(d);
}

/* a planar link (4 coordinates) on a pin with a point mass (2) hung from its
 * end by a spring */
static lw_desc *planar_mixed_desc(double damping)
{
  lw_desc *d;
  d = read_json("{\"linkwright\": 1, \"name\": \"mixed\", \"planar\": true, \"gravity\": [0, -9.81],"
                         " \"solver\": {\"t_end\": 1, \"step\": 0.0001, \"tolerance\": 1e-12},"
                         " \"bodies\": [{\"name\": \"link\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": 0.1,"
                         " \"points\": {\"end\": [1, 0]}},"
                         " {\"name\": \"p\", \"type\": \"point\", \"mass\": 0.5, \"position\": [1.2, -0.6]}],"
                         " \"joints\": [{\"name\": \"pin\", \"type\": \"revolute\", \"body1\": \"ground\","
                         " \"body2\": \"link\", \"at\": [0, 0]}],"
                         " \"forces\": [{\"name\": \"s\", \"type\": \"spring_damper\", \"body1\": \"link\","
                         " \"point1\": \"end\", \"body2\": \"p\", \"point2\": [0, 0], \"stiffness\": 100,"
                         " \"rest_length\": 0.5}],"
                         " \"outputs\": [{\"name\": \"energy\", \"type\": \"total_energy\"},"
                   " {\"name\": \"p\", \"type\": \"position\", \"body\": \"p\", \"point\": [0, 0]}],"
                   " \"parameters\": [{\"name\": \"k\", \"bind\": \"forces/s/stiffness\"},"
                   " {\"name\": \"mp\", \"bind\": \"bodies/p/mass\"}, {\"name\": \"L\", \"bind\": \"bodies/link/points/end/0\"}],"
                   " \"objectives\": [{\"name\": \"reach\", \"terms\": [{\"output\": \"p\", \"kind\": \"integral\","
                   " \"form\": \"square\", \"target\": [1, -1]}]}]}");
  d->forces[0].damping = damping;
  return d;
}

/* a planar link (4 coordinates) on a pin with a point mass (2) hung from its
 * end by a spring: blocks of 4 and 2 in one model conserve energy and hold
 * the pin */
static void test_planar_mixed(void)
{
  lw_desc *d = planar_mixed_desc(0.0);
  lw_model *m = lwt_compile(d);
  g_assert_cmpint(m->nqb, ==, 0);
  g_assert_cmpint(m->nq, ==, 6);
  g_assert_cmpint(m->blk_n[0], ==, 4);
  g_assert_cmpint(m->blk_n[1], ==, 2);
  lw_data *dd = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, dd, &err), ==, LW_OK);
  double out[3], E0, emax = 0, phimax = 0; /* energy, then p (2) */
  g_assert_cmpint(lw_model_output_columns(m), ==, 3);
  lw_outputs(m, dd, out);
  E0 = out[0];
  for (int k = 0; k < 10000; k++) {
    g_assert_cmpint(lw_step(m, dd, NULL, &err), ==, LW_OK);
    lw_outputs(m, dd, out);
    emax = fmax(emax, fabs(out[0] - E0));
    lw_rows_eval(m, dd, dd->q, dd->t, 0);
    for (int r = 0; r < m->nc; r++)
      phimax = fmax(phimax, fabs(dd->phi[r]));
  }
  g_test_message("E0 %g, max |E - E0| %g, max |Phi| %g, point at (%g, %g)", E0, emax, phimax, dd->q[4], dd->q[5]);
  g_assert_cmpfloat(emax, <=, 1e-6 * fabs(E0));
  g_assert_cmpfloat(phimax, <=, 1e-10);
  lw_data_free(dd);
  lw_model_free(m);
  lw_desc_free(d);
}

/* forward and adjoint sensitivities of d's first objective to its first np
 * parameters agree (and, with fd, agree with central differences of steps
 * 1e-4 relative: at 1e-6 the differences of these runs of thousands of
 * steps are within the Newton iteration's noise) */
static void check_sensitivities(const lw_desc *d, int np, int fd)
{
  int params[3] = {0, 1, 2}, obj = 0;
  double g[3][3];
  lw_sens_method meth[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  for (int k = 0; k < (fd ? 3 : 2); k++) {
    lw_sens_options o = {.method = meth[k], .nparams = np, .params = params, .nobj = 1, .objectives = &obj,
                         .threads = 1, .fd_step = 1e-4};
    lw_sens_result r = {0};
    g_assert_cmpint(lw_sensitivity(d, &o, &r), ==, LW_OK);
    memcpy(g[k], r.gradient, sizeof(double) * (size_t)np);
    lw_sens_result_clear(&r);
  }
  for (int j = 0; j < np; j++) {
    double s = fmax(fabs(g[0][j]), 1e-12);
    g_test_message("param %d: forward %.12g adjoint %.12g fd %.12g", j, g[0][j], g[1][j], fd ? g[2][j] : NAN);
    g_assert_cmpfloat(fabs(g[0][j] - g[1][j]), <=, 1e-8 * s);
    if (fd)
      g_assert_cmpfloat(fabs(g[0][j] - g[2][j]), <=, 1e-4 * s);
    g_assert_cmpfloat(fabs(g[0][j]), >, 0.0);
  }
}

/* the pendulum with its point mass (dense model: the Schur paths) */
static void test_sensitivities(void)
{
  lw_desc *d = chain_desc(1, 0.5);
  check_sensitivities(d, 3, 1);
  lw_desc_free(d);
}

/* eight of them in a chain (120 coordinates: the sparse paths) */
static void test_sensitivities_sparse(void)
{
  lw_desc *d = chain_desc(8, 0.1);
  check_sensitivities(d, 3, 1);
  lw_desc_free(d);
}

/* the planar link with a point mass on a spring (blocks 4 and 2), and on a
 * spring-damper (the damping's velocity derivatives) */
static void test_sensitivities_planar(void)
{
  for (int k = 0; k < 2; k++) {
    lw_desc *d = planar_mixed_desc(k ? 0.5 : 0.0);
    check_sensitivities(d, 3, 1);
    lw_desc_free(d);
  }
}

/* the point mass survives a write and a read */
static void test_roundtrip(void)
{
  lw_desc *d = chain_desc(1, 0.1);
  g_autofree char *json = lw_model_to_json(d);
  g_assert_nonnull(strstr(json, "\"type\": \"point\""));
  lw_error err;
  lw_desc *e = lw_model_read_data(json, -1, "again.json", NULL, &err);
  g_assert_nonnull(e);
  g_assert_cmpint(e->bodies[1].point, ==, 1);
  g_assert_cmpint(e->bodies[0].point, ==, 0);
  g_assert_cmpfloat(e->bodies[1].mass, ==, 1.5);
  lw_desc_free(e);
  lw_desc_free(d);
}

/* a point mass has no axes: a revolute joint on it is refused */
static void test_point_refuses_axes(void)
{
  g_autofree char *json = chain_json(1, 0.1);
  char *p = strstr(json, "\"tip0\", \"type\": \"spherical\"");
  g_assert_nonnull(p);
  /* a revolute in the spherical's place (the same length plus padding) */
  memcpy(p + strlen("\"tip0\", \"type\": "), "\"revolute\" ", strlen("\"spherical\""));
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "bad.json", NULL, &err);
  g_assert_nonnull(d);
  lw_model *m = lw_compile(d, &err);
  g_assert_null(m);
  g_assert_nonnull(strstr(err.msg, "point mass"));
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/blocks/layout", test_layout);
  g_test_add_func("/blocks/solve-dense", test_solve_dense);
  g_test_add_func("/blocks/solve-sparse", test_solve_sparse);
  g_test_add_func("/blocks/energy", test_energy);
  g_test_add_func("/blocks/sensitivities", test_sensitivities);
  g_test_add_func("/blocks/sensitivities-sparse", test_sensitivities_sparse);
  g_test_add_func("/blocks/sensitivities-planar", test_sensitivities_planar);
  g_test_add_func("/blocks/planar-oscillator", test_planar_oscillator);
  g_test_add_func("/blocks/planar-mixed", test_planar_mixed);
  g_test_add_func("/blocks/roundtrip", test_roundtrip);
  g_test_add_func("/blocks/point-refuses-axes", test_point_refuses_axes);
  return g_test_run();
}
