/* The beam element's core (kind_beam.c, the beams' tangents in
 * lw_tangent.c and lw_compile.c): the derivative of the element's force
 * and energy in its length against extrapolated central differences, the
 * tangent of a parameter on a beam's start or end against the numerical
 * one (the generic verifier of test-tangent.c's compare), the
 * rigid-spring-beam's gradients in the end point D; material damping of
 * the axial strain: the log decrement of a free axial vibration against
 * the linear theory, the gradient in the damping time; the variational
 * integrator's energy over 1e5 steps of the undamped flexible pendulum. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_forces.h"
#include "kind/lw_kind.h"
#include "lin/lw_jvp.h"
#include "lin/lw_tangent.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static lw_desc *read_json(const char *json)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "beamcore", NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  return d;
}

/* one free beam (no joints), nel elements from the origin along x */
static char *beam_json(int planar, int nel, double L, double E, double rho, double b, double h, double eta,
                       double g)
{
  g_autofree char *grav = planar ? g_strdup_printf("[0, %.17g]", -g) : g_strdup_printf("[0, %.17g, 0]", -g);
  return g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"beam\", \"planar\": %s, \"gravity\": %s,"
    " \"solver\": {\"t_end\": 1, \"step\": 0.001, \"integrator\": \"variational\"},"
    " \"beams\": [{\"name\": \"b\", \"elements\": %d, \"start\": %s, \"end\": [%.17g, 0.3%s], \"young\": %.17g,"
    " \"density\": %.17g, \"damping\": %.17g, \"section\": \"rectangle\", \"size\": [%.17g, %.17g]}]}",
    planar ? "true" : "false", grav, nel, planar ? "[0, 0]" : "[0, 0, 0]", L, planar ? "" : ", 0.2", E, rho, eta, b, h);
}

static double vmax(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s = fmax(s, fabs(x[i]));
  return s;
}

/* ---- the element length ------------------------------------------------------- */
/* element n's force (eval) at q, v with its length set to l */
static void force_at_l(lw_model *m, lw_data *d, int n, double l, const double *q, const double *v, double *Q)
{
  lw_force *f = &m->forces[n];
  double l0 = f->rest;
  f->rest = l;
  memset(Q, 0, sizeof(double) * (size_t)m->nq);
  lw_force_kind_of(f->type)->eval(m, d, f, q, v, 0.0, Q, NULL, 0.0, 0.0);
  f->rest = l0;
}

static double energy_at_l(lw_model *m, lw_data *d, int n, double l, const double *q)
{
  lw_force *f = &m->forces[n];
  double l0 = f->rest;
  f->rest = l;
  double U = lw_force_kind_of(f->type)->energy(m, d, f, q);
  f->rest = l0;
  return U;
}

/* the derivative in l of force n's Q (nq) and energy by central
 * differences extrapolated twice (steps h, h/2, h/4: error O(h^6)) */
static void dl_reference(lw_model *m, lw_data *d, int n, const double *q, const double *v, double *dQ, double *dU)
{
  int nq = m->nq;
  double l = m->forces[n].rest, h = 0.02 * l;
  double *Qp = g_new(double, nq), *Qm = g_new(double, nq), *D[3];
  double E[3];
  for (int k = 0; k < 3; k++) {
    double s = h / (double)(1 << k);
    D[k] = g_new(double, nq);
    force_at_l(m, d, n, l + s, q, v, Qp);
    force_at_l(m, d, n, l - s, q, v, Qm);
    for (int i = 0; i < nq; i++)
      D[k][i] = (Qp[i] - Qm[i]) / (2 * s);
    E[k] = (energy_at_l(m, d, n, l + s, q) - energy_at_l(m, d, n, l - s, q)) / (2 * s);
  }
  /* Richardson: R1(k) = (4 D(k+1) - D(k)) / 3, then (16 R1(1) - R1(0)) / 15 */
  for (int i = 0; i < nq; i++) {
    double r0 = (4 * D[1][i] - D[0][i]) / 3, r1 = (4 * D[2][i] - D[1][i]) / 3;
    dQ[i] = (16 * r1 - r0) / 15;
  }
  double r0 = (4 * E[1] - E[0]) / 3, r1 = (4 * E[2] - E[1]) / 3;
  *dU = (16 * r1 - r0) / 15;
  for (int k = 0; k < 3; k++)
    g_free(D[k]);
  g_free(Qp), g_free(Qm);
}

/* a tangent whose only nonzero constant is force n's length: dl = 1 */
static lw_tangent *length_tangent(const lw_desc *desc, const lw_model *m, int n)
{
  lw_error err;
  lw_tangent *t = g_new0(lw_tangent, 1);
  t->dm = lw_tangent_zero_model(desc, &err);
  g_assert_nonnull(t->dm);
  t->dm->forces[n].rest = 1.0;
  t->row_on = calloc((size_t)m->nc + 1, 1);
  t->force_on = calloc((size_t)m->nforces + 1, 1);
  t->body_on = calloc((size_t)m->nb + 1, 1);
  t->coord_on = calloc((size_t)m->ncoords + 1, 1);
  t->out_on = calloc((size_t)m->nout + 1, 1);
  t->term_on = calloc((size_t)m->nterms + 1, 1);
  t->row_vx_on = calloc((size_t)m->nc + 1, 1);
  t->force_vx_on = calloc((size_t)m->nforces + 1, 1);
  t->fric_on = calloc((size_t)m->nfric + 1, 1);
  t->force_on[n] = 1;
  t->any = 1;
  return t;
}

/* the jvp and energy_jvp hooks along the element length against the
 * extrapolated differences, at a bent, stretched and moving state, with
 * material damping on (both strain rates) and off */
static void test_length_derivative(void)
{
  GRand *r = g_rand_new_with_seed(5);
  double worst_q = 0, worst_u = 0;
  for (int planar = 0; planar < 2; planar++)
    for (int damped = 0; damped < 2; damped++) {
      g_autofree char *json = beam_json(planar, 2, 1.1, 3e4, 200, 0.05, 0.03, damped ? 0.07 : 0.0, 9.81);
      lw_desc *desc = read_json(json);
      lw_model *m = lwt_compile(desc);
      lw_data *d = lw_data_new(m);
      int nq = m->nq;
      double *q = g_new(double, nq), *v = g_new(double, nq), *dQ = g_new0(double, nq), *ref = g_new(double, nq);
      memcpy(q, m->q0, sizeof(double) * nq);
      for (int i = 0; i < nq; i++) {
        q[i] += g_rand_double_range(r, -0.15, 0.15);
        v[i] = g_rand_double_range(r, -2, 2);
      }
      for (int n = 0; n < m->nforces; n++) {
        const lw_force_kind *k = lw_force_kind_of(m->forces[n].type);
        lw_tangent *tg = length_tangent(desc, m, n);
        lw_lin_point p = {q, v, v, NULL, {NULL, NULL, NULL}, 0.0};
        lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
        memset(dQ, 0, sizeof(double) * nq);
        k->jvp(m, d, n, &p, &p, &dir, &dir, 0, dQ);
        double dU = 0, dUr;
        k->energy_jvp(m, tg->dm, d, n, &p, &dir, &dU);
        dl_reference(m, d, n, q, v, ref, &dUr);
        double e = 0;
        for (int i = 0; i < nq; i++)
          e = fmax(e, fabs(dQ[i] - ref[i]));
        e /= vmax(ref, nq);
        double eu = fabs(dU - dUr) / fabs(dUr);
        g_test_message("%s, %s, element %d: dQ/dl against differences %.2e (scale %.3g), dU/dl %.12g against "
                       "%.12g (%.2e)",
                       planar ? "planar" : "spatial", damped ? "damped" : "undamped", n, e, vmax(ref, nq), dU, dUr,
                       eu);
        worst_q = fmax(worst_q, e);
        worst_u = fmax(worst_u, eu);
        lw_tangent_free(tg);
      }
      g_free(q), g_free(v), g_free(dQ), g_free(ref);
      lw_data_free(d);
      lw_model_free(m);
      lw_desc_free(desc);
    }
  g_assert_cmpfloat(worst_q, <, 1e-9);
  g_assert_cmpfloat(worst_u, <, 1e-9);
  g_rand_free(r);
}

/* ---- the tangent of a beam's start and end ------------------------------------------- */
/* every constant of beam k's elements: mass blocks, gravity, initial
 * coordinates, element constants */
static GArray *beam_constants(const lw_model *o)
{
  GArray *a = g_array_new(FALSE, FALSE, sizeof(double));
  for (int k = 0; k < o->nbeams; k++)
    for (int e = 0; e < o->beams[k].nel; e++) {
      int b = o->beams[k].blk0 + e, n = o->blk_n[b];
      const lw_force *f = &o->forces[o->beams[k].force0 + e];
      g_array_append_vals(a, o->mass_blocks + o->mblk_off[b], (guint)(n * n));
      g_array_append_vals(a, o->qgrav + o->blk_off[b], (guint)n);
      g_array_append_vals(a, o->q0 + o->blk_off[b], (guint)n);
      g_array_append_val(a, f->k);
      g_array_append_val(a, f->rest);
      g_array_append_vals(a, f->vec, 3);
    }
  return a;
}

/* the largest difference of the beams' constants in the two tangents,
 * relative to each (the largest for those near 0), beyond the numerical
 * one's round-off (24 ulp of the constant over its step, as test-tangent.c) */
static double beam_compare(const lw_tangent *ex, const lw_tangent *nu, const lw_model *base, double eps,
                           double *raw)
{
  GArray *a = beam_constants(ex->dm), *b = beam_constants(nu->dm), *c = beam_constants(base);
  const double *x = (const double *)a->data, *y = (const double *)b->data, *f = (const double *)c->data;
  double scale = 1e-300, worst = 0;
  for (guint i = 0; i < b->len; i++)
    scale = fmax(scale, fabs(y[i]));
  for (guint i = 0; i < b->len; i++) {
    double noise = 24 * DBL_EPSILON * fabs(f[i]) / eps;
    worst = fmax(worst, fmax(fabs(x[i] - y[i]) - noise, 0.0) / fmax(fabs(y[i]), 1e-6 * scale));
    *raw = fmax(*raw, fabs(x[i] - y[i]) / fmax(fabs(y[i]), 1e-6 * scale));
  }
  g_array_unref(a), g_array_unref(b), g_array_unref(c);
  return worst;
}

/* a parameter bound to a beam's start or end (alone, with a joint's place
 * on it, with its density): lw_tangent_new's beam constants against the
 * numerical tangent's, and the flags alike */
static void test_geometry_tangent(void)
{
  static const char *const binds[] = {"\"beams/b/end/0\"", "\"beams/b/end/1\"",
                                      "\"beams/b/start/0\", \"joints/pin/at/0\"",
                                      "\"beams/b/start/1\", \"joints/pin/at/1\"",
                                      "\"beams/b/end/0\", \"beams/b/density\""};
  double worst = 0;
  for (int planar = 0; planar < 2; planar++)
    for (size_t k = 0; k < G_N_ELEMENTS(binds); k++) {
      double val = strstr(binds[k], "density") ? 700.0 : strstr(binds[k], "end/0") ? 1.3 : 0.0;
      if (strstr(binds[k], "end/1"))
        val = 0.3;
      if (strstr(binds[k], "end/0") && strstr(binds[k], "density"))
        val = 1.3; /* both hold the value: a length and a density of 1.3 */
      char *json = g_strdup_printf(
        "{\"linkwright\": 1, \"name\": \"g\", \"planar\": %s, \"gravity\": %s,"
        " \"beams\": [{\"name\": \"b\", \"elements\": 3, \"start\": %s, \"end\": %s, \"young\": 2e5,"
        "   \"density\": %s, \"damping\": 0.01, \"section\": \"rectangle\", \"size\": [0.04, 0.03]}],"
        " \"joints\": [{\"name\": \"pin\", \"type\": \"%s\", \"body1\": \"ground\", \"body2\": \"b\", \"at\": %s}],"
        " \"parameters\": [{\"name\": \"p\", \"bind\": [%s], \"value\": %.17g}]}",
        planar ? "true" : "false", planar ? "[0.3, -9.81]" : "[0.3, -9.81, 0.5]", planar ? "[0, 0]" : "[0, 0, 0]",
        planar ? "[1.3, 0.3]" : "[1.3, 0.3, 0.2]", strstr(binds[k], "density") ? "1.3" : "700",
        planar ? "revolute" : "spherical", planar ? "[0, 0]" : "[0, 0, 0]", binds[k], val);
      lw_desc *desc = read_json(json);
      lw_error err;
      g_assert_null(lw_tangent_new_exact(desc, 0, &err));
      lw_tangent *t = lw_tangent_new(desc, 0, &err), *nu = lw_tangent_new_numeric(desc, 0, &err);
      if (!t || !nu)
        g_error("%s: %s", binds[k], err.msg);
      lw_model *base = lwt_compile(desc);
      double eps = 1e-3 * fmax(fabs(desc->params[0].value), 1e-2);
      double raw = 0, e = beam_compare(t, nu, base, eps, &raw);
      g_test_message("%s: %s: beam constants, exact against numerical %.3g beyond the latter's round-off (%.3g "
                     "with it)", planar ? "planar" : "spatial", binds[k], e, raw);
      worst = fmax(worst, e);
      g_assert_cmpint(t->any, ==, nu->any);
      g_assert_cmpint(t->grav_on, ==, nu->grav_on);
      for (int n = 0; n < base->nforces; n++)
        g_assert_cmpint(!t->force_on[n], ==, !nu->force_on[n]);
      for (int b = 0; b < base->nb; b++)
        g_assert_cmpint(!t->body_on[b], ==, !nu->body_on[b]);
      lw_model_free(base);
      lw_tangent_free(t);
      lw_tangent_free(nu);
      lw_desc_free(desc);
      g_free(json);
    }
  g_assert_cmpfloat(worst, <, 1e-9);
}

/* objective 0's gradient in the listed parameters by one method */
static void gradient(const lw_desc *desc, lw_sens_method method, int np, int *params, double fd_step, double *g)
{
  int obj = 0;
  lw_sens_options opt = {.method = method, .nparams = np, .params = params, .nobj = 1, .objectives = &obj,
                         .threads = 1, .fd_step = fd_step};
  lw_sens_result r;
  if (lw_sensitivity(desc, &opt, &r) != LW_OK)
    g_error("%s: %s", lw_sens_method_name(method), r.error.msg);
  memcpy(g, r.gradient, sizeof(double) * (size_t)np);
  lw_sens_result_clear(&r);
}

/* the rigid-spring-beam over its whole second: forward and adjoint
 * gradients in X_D, Y_D (the beam's end and the pin there) agree to 1e-8
 * and with central differences of the run */
static void test_rigid_spring_beam(void)
{
  lw_desc *desc = lwt_read("rigid-spring-beam.json");
  int params[2] = {0, 1};
  double g[3][2];
  gradient(desc, LW_SENS_FORWARD, 2, params, 0.0, g[0]);
  gradient(desc, LW_SENS_ADJOINT, 2, params, 0.0, g[1]);
  gradient(desc, LW_SENS_FD, 2, params, 1e-5, g[2]);
  for (int j = 0; j < 2; j++) {
    g_test_message("d dB / d %s over %g s: forward %.12g adjoint %.12g (%.2g) differences %.12g (%.2g)",
                   desc->params[j].name, desc->solver.t_end, g[0][j], g[1][j],
                   fabs(g[0][j] - g[1][j]) / fabs(g[1][j]), g[2][j], fabs(g[0][j] - g[2][j]) / fabs(g[2][j]));
    g_assert_cmpfloat(fabs(g[2][j]), >, 0.0);
    g_assert_cmpfloat(fabs(g[0][j] - g[1][j]), <=, 1e-8 * fabs(g[1][j]));
    g_assert_cmpfloat(fabs(g[0][j] - g[2][j]), <=, 1e-5 * fabs(g[2][j]));
  }
  lw_desc_free(desc);
}

/* ---- material damping --------------------------------------------------------------- */
/* the end node's axial displacement from L over nsteps of the variational
 * integrator, from the first axial mode of a free-free beam, u(x) = U
 * cos(pi x / L), at rest */
static double *axial_run(lw_model *m, double L, double U, int nsteps)
{
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  int nq = m->nq, nd = m->nd, nel = m->beams[0].nel;
  double *q = g_new(double, nq), *qd = g_new0(double, nq), *u = g_new(double, nsteps + 1);
  memcpy(q, m->q0, sizeof(double) * nq);
  for (int e = 0; e < nel; e++)
    for (int k = 0; k < 2; k++) {
      double x = (e + k) * L / nel, *node = q + m->blk_off[m->beams[0].blk0 + e] + 2 * k * nd;
      node[0] += U * cos(M_PI * x / L);
      node[nd] += -U * M_PI / L * sin(M_PI * x / L);
    }
  lw_data_set_state(m, d, 0.0, q, qd, NULL, NULL);
  const double *qs = lw_data_q(d);
  int end = m->blk_off[m->beams[0].blk0 + nel - 1] + 2 * nd;
  u[0] = qs[end] - L;
  for (int k = 1; k <= nsteps; k++) {
    if (lw_step(m, d, NULL, &err) != LW_OK)
      g_error("%s", err.msg);
    u[k] = lw_data_q(d)[end] - L;
  }
  g_free(q), g_free(qd);
  lw_data_free(d);
  return u;
}

/* the interior maxima of u (n + 1 samples), each by the parabola through
 * its neighbours: their values (at most maxp) */
static int maxima(const double *u, int n, double *peak, int maxp)
{
  int np = 0;
  for (int k = 1; k < n && np < maxp; k++)
    if (u[k] > u[k - 1] && u[k] >= u[k + 1]) {
      double a = 0.5 * (u[k - 1] + u[k + 1]) - u[k], b = 0.5 * (u[k + 1] - u[k - 1]);
      peak[np++] = u[k] - b * b / (4 * a);
    }
  return np;
}

/* a free-free beam of 8 elements vibrating in its first axial mode with
 * Kelvin-Voigt damping (time eta) decays with the log decrement of the
 * linear theory: rho A u_tt = EA (u_xx + eta u_txx), each mode a damped
 * oscillator of damping ratio zeta = eta omega / 2, omega = (pi / L)
 * sqrt(E / rho), delta = 2 pi zeta / sqrt(1 - zeta^2) */
static void test_axial_decrement(void)
{
  double L = 1.0, E = 1e5, rho = 1000, zeta = 0.02, omega = M_PI / L * sqrt(E / rho), eta = 2 * zeta / omega;
  double delta = 2 * M_PI * zeta / sqrt(1 - zeta * zeta);
  char *json = g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"axial\", \"planar\": true, \"gravity\": [0, 0],"
    " \"solver\": {\"t_end\": 1, \"step\": 0.001, \"integrator\": \"variational\"},"
    " \"beams\": [{\"name\": \"b\", \"elements\": 8, \"start\": [0, 0], \"end\": [%.17g, 0], \"young\": %.17g,"
    "   \"density\": %.17g, \"damping\": %.17g, \"section\": \"rectangle\", \"size\": [0.05, 0.05]}]}",
    L, E, rho, eta);
  lw_desc *desc = read_json(json);
  lw_model *m = lwt_compile(desc);
  int nsteps = 1200; /* six periods of 0.2 s */
  double *u = axial_run(m, L, 1e-4 * L, nsteps), peak[16];
  int np = maxima(u, nsteps, peak, 16);
  g_assert_cmpint(np, >=, 4);
  double measured = log(peak[0] / peak[np - 1]) / (np - 1);
  g_test_message("free axial vibration, 8 elements, zeta %.3g: %d maxima %.6g .. %.6g, log decrement %.5f, "
                 "linear theory %.5f (relative %.2g)",
                 zeta, np, peak[0], peak[np - 1], measured, delta, (measured - delta) / delta);
  g_assert_cmpfloat(fabs(measured - delta), <, 0.03 * delta);
  g_free(u);
  lw_model_free(m);
  lw_desc_free(desc);
  g_free(json);
}

/* the element's derivative along the damping time: jvp with d eta = 1
 * against central differences of eval (Q is linear in eta: exact but for
 * round-off), at a moving state where both strain rates are nonzero */
static void test_damping_derivative(void)
{
  GRand *r = g_rand_new_with_seed(9);
  for (int planar = 0; planar < 2; planar++) {
    g_autofree char *json = beam_json(planar, 2, 1.1, 3e4, 200, 0.05, 0.03, 0.05, 9.81);
    lw_desc *desc = read_json(json);
    lw_model *m = lwt_compile(desc);
    lw_data *d = lw_data_new(m);
    int nq = m->nq;
    double *q = g_new(double, nq), *v = g_new(double, nq), *dQ = g_new0(double, nq);
    double *Qp = g_new(double, nq), *Qm = g_new(double, nq);
    memcpy(q, m->q0, sizeof(double) * nq);
    for (int i = 0; i < nq; i++) {
      q[i] += g_rand_double_range(r, -0.15, 0.15);
      v[i] = g_rand_double_range(r, -2, 2);
    }
    for (int n = 0; n < m->nforces; n++) {
      lw_force *f = &m->forces[n];
      const lw_force_kind *k = lw_force_kind_of(f->type);
      lw_tangent *tg = length_tangent(desc, m, n);
      tg->dm->forces[n].rest = 0.0;
      tg->dm->forces[n].vec[1] = 1.0;
      lw_lin_point p = {q, v, v, NULL, {NULL, NULL, NULL}, 0.0};
      lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
      memset(dQ, 0, sizeof(double) * nq);
      k->jvp(m, d, n, &p, &p, &dir, &dir, 0, dQ);
      double eta = f->vec[1], h = 1e-3 * eta;
      f->vec[1] = eta + h;
      memset(Qp, 0, sizeof(double) * nq);
      k->eval(m, d, f, q, v, 0.0, Qp, NULL, 0.0, 0.0);
      f->vec[1] = eta - h;
      memset(Qm, 0, sizeof(double) * nq);
      k->eval(m, d, f, q, v, 0.0, Qm, NULL, 0.0, 0.0);
      f->vec[1] = eta;
      double e = 0, s = 0;
      for (int i = 0; i < nq; i++) {
        double fd = (Qp[i] - Qm[i]) / (2 * h);
        e = fmax(e, fabs(dQ[i] - fd));
        s = fmax(s, fabs(fd));
      }
      g_test_message("%s element %d: dQ/d eta against differences %.2e (scale %.3g)", planar ? "planar" : "spatial",
                     n, e / s, s);
      g_assert_cmpfloat(e, <, 1e-8 * s);
      lw_tangent_free(tg);
    }
    g_free(q), g_free(v), g_free(dQ), g_free(Qp), g_free(Qm);
    lw_data_free(d);
    lw_model_free(m);
    lw_desc_free(desc);
  }
  g_rand_free(r);
}

/* the flexible pendulum with material damping: forward and adjoint
 * gradients of the tip's final height in the damping time agree to 1e-8
 * and with central differences, with both integrators */
static void test_damping_gradient(void)
{
  static const char *const integ[2] = {"ali3p", "variational"};
  for (int k = 0; k < 2; k++) {
    lw_desc *desc = lwt_read("flexible-pendulum.json");
    desc->solver.t_end = 0.5;
    snprintf(desc->solver.integrator, sizeof desc->solver.integrator, "%s", integ[k]);
    desc->beams[0].damping = 0.01;
    lw_param_desc *pp = lw_desc_add_param(desc, "eta", "beams/beam/damping");
    pp->value = 0.01;
    int j = desc->nparams - 1;
    double g[3];
    gradient(desc, LW_SENS_FORWARD, 1, &j, 0.0, &g[0]);
    gradient(desc, LW_SENS_ADJOINT, 1, &j, 0.0, &g[1]);
    gradient(desc, LW_SENS_FD, 1, &j, 1e-6, &g[2]);
    g_test_message("%s: d tip_y / d eta: forward %.12g adjoint %.12g (%.2g) differences %.12g (%.2g)", integ[k],
                   g[0], g[1], fabs(g[0] - g[1]) / fabs(g[1]), g[2], fabs(g[0] - g[2]) / fabs(g[2]));
    g_assert_cmpfloat(fabs(g[2]), >, 0.0);
    g_assert_cmpfloat(fabs(g[0] - g[1]), <=, 1e-8 * fabs(g[1]));
    g_assert_cmpfloat(fabs(g[0] - g[2]), <=, 1e-5 * fabs(g[2]));
    lw_desc_free(desc);
  }
}

/* ---- energy ---------------------------------------------------------------------------- */
/* The variational integrator is the implicit midpoint rule in the
 * momenta p = M qd: M v = (p_n + p_n+1)/2, p_n+1 - p_n = h Q(q_n+1/2)
 * (vi_step.c), with the beam's node equalities (linear constraints)
 * eliminated.  Backward error analysis (Hairer, Lubich, Wanner,
 * Geometric Numerical Integration, IX.3) gives it a modified energy
 *   H~ = H - h^2/24 H''(f, f) + O(h^4),  H''(f, f) = v^T K v + a^T M a,
 * (f the constrained vector field: v the velocity, a the acceleration,
 * K = -dQ/dq) that the numerical solution keeps to O(h^4) without drift
 * over exponentially long times.  The energy's own error is then
 * h^2/24 (H''(f,f)(t) - H''(f,f)(0)): bounded by the range of a bounded
 * function of the state.  A drift (a force that is not a gradient, an
 * inexact solve, a scheme that is not symplectic) would sit in H~ alone. */
static double midpoint_h2(lw_model *m, lw_data *scratch, const lw_data *d, double h, const double *M, double *w)
{
  int nq = m->nq;
  const double *q = lw_data_q(d), *v = lw_data_qd(d), *a = lw_data_qdd(d);
  double *qp = w, *Qp = w + nq, *Qm = w + 2 * nq, vmx = vmax(v, nq), e = 1e-6 / fmax(vmx, 1e-12);
  /* v^T K v by central differences of Q along v */
  for (int i = 0; i < nq; i++)
    qp[i] = q[i] + e * v[i];
  lw_eval_dense(m, scratch, qp, v, 0.0, Qp, NULL, NULL, NULL, NULL);
  for (int i = 0; i < nq; i++)
    qp[i] = q[i] - e * v[i];
  lw_eval_dense(m, scratch, qp, v, 0.0, Qm, NULL, NULL, NULL, NULL);
  double vkv = 0, ama = 0;
  for (int i = 0; i < nq; i++)
    vkv -= v[i] * (Qp[i] - Qm[i]) / (2 * e);
  for (int j = 0; j < nq; j++)
    for (int i = 0; i < nq; i++)
      ama += a[i] * M[(size_t)j * nq + i] * a[j];
  return h * h / 24 * (vkv + ama);
}

/* a free-free beam (8 elements, no gravity) spinning at 1 rad/s about its
 * middle, stretched by the spin, its first bending mode excited, run with
 * the variational integrator at step h for n steps: the largest |H - H0|
 * and |H~ - H~0| by tenths of the run (ten values each) */
typedef struct {
  double E0, Umax, secs, err[10], merr[10];
} spin_run;

static spin_run spinning_beam(double h, long n)
{
  double L = 1.0, w0 = 1.0;
  char *json = g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"spinning\", \"planar\": true, \"gravity\": [0, 0],"
    " \"solver\": {\"t_end\": 100, \"step\": %.17g, \"integrator\": \"variational\"},"
    " \"beams\": [{\"name\": \"b\", \"elements\": 8, \"start\": [0, 0], \"end\": [1, 0], \"young\": 1e4,"
    "   \"density\": 1000, \"section\": \"rectangle\", \"size\": [0.02, 0.02]}],"
    " \"outputs\": [{\"name\": \"E\", \"type\": \"total_energy\"},"
    "   {\"name\": \"U\", \"type\": \"beam_energy\", \"body\": \"b\"}]}", h);
  lw_desc *desc = read_json(json);
  g_free(json);
  lw_model *m = lwt_compile(desc);
  lw_data *d = lw_data_new(m), *scratch = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  int nq = m->nq, nd = m->nd, nel = m->beams[0].nel;
  /* v = w0 z x (r - middle) and a bending velocity 0.2 cos(2 pi x / L) across */
  double *qd = g_new0(double, nq);
  for (int e = 0; e < nel; e++)
    for (int k = 0; k < 2; k++) {
      double x = (e + k) * L / nel, *node = qd + m->blk_off[m->beams[0].blk0 + e] + 2 * k * nd;
      node[1] = w0 * (x - 0.5 * L) + 0.2 * cos(2 * M_PI * x / L);
      node[nd + 1] = w0 - 0.2 * 2 * M_PI / L * sin(2 * M_PI * x / L);
    }
  /* the accelerations at the start are zero: the beam is straight and
   * unstretched (Q = 0) and its node equalities are linear (gamma = 0) */
  double *qdd = g_new0(double, nq);
  lw_data_set_state(m, d, 0.0, NULL, qd, qdd, NULL);
  g_free(qdd);
  int nout = lw_model_output_columns(m), ce = lwt_col(m, "E") - 1, cu = lwt_col(m, "U") - 1;
  double *y = g_new(double, nout), *w = g_new(double, 3 * nq), *M = g_new(double, (size_t)nq * nq);
  lw_eval_mass_dense(m, M); /* constant in natural coordinates */
  spin_run r = {0};
  lw_outputs(m, d, y);
  r.E0 = y[ce];
  double M0 = r.E0 - midpoint_h2(m, scratch, d, h, M, w);
  gint64 t0 = g_get_monotonic_time();
  for (long k = 1; k <= n; k++) {
    if (lw_step(m, d, NULL, &err) != LW_OK)
      g_error("step %ld: %s", k, err.msg);
    lw_outputs(m, d, y);
    int tenth = (int)((k - 1) * 10 / n);
    r.err[tenth] = fmax(r.err[tenth], fabs(y[ce] - r.E0));
    r.merr[tenth] = fmax(r.merr[tenth], fabs(y[ce] - midpoint_h2(m, scratch, d, h, M, w) - M0));
    r.Umax = fmax(r.Umax, y[cu]);
  }
  r.secs = (double)(g_get_monotonic_time() - t0) * 1e-6;
  g_free(y), g_free(w), g_free(M), g_free(qd);
  lw_data_free(d), lw_data_free(scratch);
  lw_model_free(m);
  lw_desc_free(desc);
  return r;
}

static double tenths_max(const double *x, int a, int b)
{
  double v = 0;
  for (int k = a; k < b; k++)
    v = fmax(v, x[k]);
  return v;
}

static void report_tenths(const char *what, const double *x)
{
  GString *s = g_string_new(what);
  for (int k = 0; k < 10; k++)
    g_string_append_printf(s, " %.3g", x[k]);
  g_test_message("%s J", s->str);
  g_string_free(s, TRUE);
}

/* 1e5 steps of 1 ms (100 s, 16 turns).  The element's fastest mode (axial,
 * about 200 rad/s) keeps h omega near 0.2.  The spin pumps energy from the
 * bending mode into the axial ones over the first tens of seconds, so the
 * energy error's envelope (h^2/24 times the range H''(f,f) has explored)
 * widens before it settles: bounded is shown by the modified energy, not by
 * comparing the first tenth with the last.  Then two short runs at h and
 * h/2 show the orders: the energy's error O(h^2), the modified energy's
 * O(h^4) (against ALI3-P at the same step: 5.6e-6 J with a steady loss,
 * measured when this test was written). */
static void test_energy_long(void)
{
  /* under the sanitizers the first 5000 steps and no orders: the same
   * code, checked for memory; the long run and the orders are the plain
   * build's */
  long n = LW_UNDER_SANITIZERS ? 5000 : 100000;
  spin_run r = spinning_beam(1e-3, n);
  double emax = tenths_max(r.err, 0, 10), mmax = tenths_max(r.merr, 0, 10);
  g_test_message("spinning beam, %ld steps (%.1f s of wall time): energy %.6g J, largest elastic energy %.3g J; "
                 "largest |H - H0| %.3g J, largest |H~ - H~0| %.3g J",
                 n, r.secs, r.E0, r.Umax, emax, mmax);
  report_tenths("largest |H - H0| by tenths of the run:", r.err);
  report_tenths("largest |H~ - H~0| by tenths of the run:", r.merr);
  g_assert_cmpfloat(r.Umax, >, 1e-3 * r.E0);
  g_assert_cmpfloat(emax, <, 1e-3 * r.E0);
  /* the energy's error is the modified energy's O(h^2) term: what is
   * left, the O(h^4) remainder, is below a thirtieth of it */
  g_assert_cmpfloat(mmax, <, emax / 30);
  /* and the modified energy does not drift: the second half's largest
   * error within 1.5 times the first half's (a drift linear in time
   * gives 2) */
  if (LW_UNDER_SANITIZERS)
    return;
  g_assert_cmpfloat(tenths_max(r.merr, 5, 10), <, 1.5 * tenths_max(r.merr, 0, 5));

  spin_run a = spinning_beam(1e-3, 10000), b = spinning_beam(5e-4, 20000);
  double ea = tenths_max(a.err, 0, 10), eb = tenths_max(b.err, 0, 10);
  double ma = tenths_max(a.merr, 0, 10), mb = tenths_max(b.merr, 0, 10);
  g_test_message("10 s at h = 1 ms and 0.5 ms: |H - H0| %.3g and %.3g J (ratio %.2f), |H~ - H~0| %.3g and %.3g J "
                 "(ratio %.2f)", ea, eb, ea / eb, ma, mb, ma / mb);
  g_assert_cmpfloat(ea / eb, >, 3.3);
  g_assert_cmpfloat(ea / eb, <, 5.0);
  /* O(h^4) is 16; measured 10.8 at these steps (not yet asymptotic):
   * well above the 4 that an error of O(h^2) per unit time would give */
  g_assert_cmpfloat(ma / mb, >, 9.0);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/beamcore/length-derivative", test_length_derivative);
  g_test_add_func("/beamcore/geometry-tangent", test_geometry_tangent);
  g_test_add_func("/beamcore/rigid-spring-beam", test_rigid_spring_beam);
  g_test_add_func("/beamcore/axial-decrement", test_axial_decrement);
  g_test_add_func("/beamcore/damping-derivative", test_damping_derivative);
  g_test_add_func("/beamcore/damping-gradient", test_damping_gradient);
  g_test_add_func("/beamcore/energy-1e5-steps", test_energy_long);
  return g_test_run();
}
