/* test-friction-sph.c: friction in spherical (ball-and-socket) joints
 * (docs/friction.md secs. 5.5, 8.2; docs/model-format.md sec. 5a): the
 * ball's slips are the relative angular velocity in body 2's joint axes,
 * checked against rigid motions of known angular velocity; the kernel's
 * derivatives for the ball; the element's directional derivative along
 * q, the velocity, the multipliers and every parameter against central
 * differences; the step's exact Newton tangent converging quadratically;
 * the energy balance; forward and adjoint sensitivities against each other
 * and against central differences of the whole run; the outputs. */
#include "lw-test.h"
#include "lw_internal.h"
#include "lw-friction-test.h"
#include "compile/lw_vexpr.h"
#include "la/lw_matrix.h"
#include "model/lw_friction.h"

#include <string.h>

/* ---- models ------------------------------------------------------------ */

/* two bars in a chain of ball joints (ground - upper - lower), both with
 * friction, inertia tensors not aligned with the bars; released at rest */
static const char *double_json =
  "{\"linkwright\": 1, \"name\": \"double ball pendulum\", \"gravity\": [0, 0, -9.81],\n"
  " \"solver\": {\"t_end\": 0.4, \"step\": 0.001, \"tolerance\": 1e-14, \"constraint_tolerance\": 1e-12},\n"
  " \"bodies\": [\n"
  "  {\"name\": \"upper\", \"mass\": 1, \"com\": [0.3, 0.02, 0.01], \"inertia\": [0.01, 0.03, 0.035, 0.001, 0, 0.002],\n"
  "   \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"end\": [0.6, 0, 0]}},\n"
  "  {\"name\": \"lower\", \"mass\": 0.7, \"com\": [0.25, -0.01, 0.02], \"inertia\": [0.008, 0.02, 0.022, 0, 0.001, 0],\n"
  "   \"position\": [0.6, 0, 0], \"orientation\": [0.9238795325112867, 0, 0, 0.3826834323650898],\n"
  "   \"points\": {\"tip\": [0.5, 0, 0]}}],\n"
  " \"joints\": [\n"
  "  {\"name\": \"shoulder\", \"type\": \"spherical\", \"body1\": \"ground\", \"body2\": \"upper\", \"at\": [0, 0, 0],\n"
  "   \"friction\": {\"mu_s\": 0.4, \"mu_d\": 0.3, \"v_t\": 0.01, \"radius\": 0.02, \"viscous\": 0.1, \"preload\": 0.5,"
  " \"eps\": 0.01}},\n"
  "  {\"name\": \"elbow\", \"type\": \"spherical\", \"body1\": \"upper\", \"body2\": \"lower\", \"at\": [0.6, 0, 0],\n"
  "   \"friction\": {\"mu_s\": 0.5, \"mu_d\": 0.35, \"v_t\": 0.02, \"radius\": 0.015}}],\n"
  " \"outputs\": [{\"name\": \"tip\", \"type\": \"position\", \"body\": \"lower\", \"point\": \"tip\"},\n"
  "   {\"name\": \"E\", \"type\": \"total_energy\"}, {\"name\": \"W\", \"type\": \"dissipated_energy\"},\n"
  "   {\"name\": \"Ff\", \"type\": \"friction_force\", \"joint\": \"elbow\"},\n"
  "   {\"name\": \"N\", \"type\": \"normal_force\", \"joint\": \"elbow\"},\n"
  "   {\"name\": \"s\", \"type\": \"slip_speed\", \"joint\": \"elbow\"},\n"
  "   {\"name\": \"Wf\", \"type\": \"friction_work\", \"joint\": \"elbow\"},\n"
  "   {\"name\": \"Fr\", \"type\": \"reaction_force\", \"joint\": \"elbow\"}],\n"
  " \"parameters\": [{\"name\": \"mu_s\", \"bind\": \"joints/shoulder/friction/mu_s\"},\n"
  "   {\"name\": \"mu_d\", \"bind\": \"joints/elbow/friction/mu_d\"},\n"
  "   {\"name\": \"v_t\", \"bind\": \"joints/elbow/friction/v_t\"},\n"
  "   {\"name\": \"r_e\", \"bind\": \"joints/elbow/friction/radius\"},\n"
  "   {\"name\": \"c_v\", \"bind\": \"joints/shoulder/friction/viscous\"},\n"
  "   {\"name\": \"N0\", \"bind\": \"joints/shoulder/friction/preload\"},\n"
  "   {\"name\": \"eps\", \"bind\": \"joints/shoulder/friction/eps\"},\n"
  "   {\"name\": \"mass\", \"bind\": \"bodies/lower/mass\"},\n"
  "   {\"name\": \"reach\", \"bind\": [\"bodies/upper/points/end/0\", \"joints/elbow/at/0\", \"bodies/lower/position/0\"]}],\n"
  " \"objectives\": [{\"name\": \"drop\", \"terms\": [{\"output\": \"tip\", \"kind\": \"final\", \"component\": 2}]},\n"
  "   {\"name\": \"sway\", \"terms\": [{\"output\": \"tip\", \"kind\": \"integral\", \"form\": \"square\", \"component\": 1},\n"
  "     {\"output\": \"tip\", \"kind\": \"final\", \"component\": 0}]}]}\n";

static lw_desc *parse(const char *json)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "test.json", NULL, &err);
  if (!d)
    g_error("%s: %s", err.path, err.msg);
  return d;
}

static void cross(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* ---- compiling --------------------------------------------------------- */

/* a ball joint's friction compiles into an element with three slips on the
 * joint's bodies */
static void test_compiles(void)
{
  lw_desc *d = parse(double_json);
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  if (!m)
    g_error("%s: %s", err.path, err.msg);
  g_assert_cmpint(m->nfric, ==, 2);
  for (int e = 0; e < 2; e++) {
    g_assert_cmpint(m->fric[e].kind, ==, LW_FRICTION_SPHERICAL);
    g_assert_cmpint(m->fric[e].nslip, ==, 3);
  }
  g_assert_cmpint(m->fric[0].nblk, ==, 1); /* the ground holds no coordinates */
  g_assert_cmpint(m->fric[1].nblk, ==, 2);
  g_assert_cmpint(m->fric[1].blk[0], <, m->fric[1].blk[1]);
  g_assert_cmpint(m->fric[1].pairpos[1], >=, 0);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- the slips ------------------------------------------------------- */

/* every body turning rigidly at its own angular velocity w_b (about its
 * origin): u' = w x u for its unit vectors; the ball's rates are then
 * A_k . (w_2 - w_1) with A_k body 2's joint axes, for random states of the
 * bodies' orientations (whatever the rates of the origins) */
static void test_spin_rates(void)
{
  lw_desc *d = parse(double_json);
  lw_model *m = lwt_compile(d);
  lw_data *data = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, data, &err), ==, LW_OK);
  GRand *r = g_rand_new_with_seed(3);
  int nq = m->nq, nqb = m->nqb, w = 2 * nqb;
  double *q = g_new(double, nq), *qd = g_new(double, nq);
  double worst = 0;
  for (int trial = 0; trial < 50; trial++) {
    memcpy(q, data->q, sizeof(double) * nq);
    /* a random rotation of each body: its vectors turned about a random axis */
    double om[8][3];
    for (int b = 0; b < m->nb; b++) {
      double a[3], n = 0;
      for (int i = 0; i < 3; i++) {
        a[i] = g_rand_double_range(r, -1, 1);
        n += a[i] * a[i];
      }
      n = sqrt(n);
      double th = g_rand_double_range(r, -3, 3), c = cos(th), s = sin(th);
      for (int i = 0; i < 3; i++)
        a[i] /= n;
      for (int v = 1; v < 4; v++) {
        double *e = q + b * nqb + 3 * v, x[3], ax[3], ad = a[0] * e[0] + a[1] * e[1] + a[2] * e[2];
        cross(a, e, ax);
        for (int i = 0; i < 3; i++)
          x[i] = e[i] * c + ax[i] * s + a[i] * ad * (1 - c);
        memcpy(e, x, sizeof x);
      }
      for (int i = 0; i < 3; i++)
        om[b][i] = g_rand_double_range(r, -5, 5);
      for (int i = 0; i < 3; i++)
        qd[b * nqb + i] = g_rand_double_range(r, -1, 1);
      for (int v = 1; v < 4; v++)
        cross(om[b], q + b * nqb + 3 * v, qd + b * nqb + 3 * v);
    }
    for (int e = 0; e < m->nfric; e++) {
      const lw_jfric *f = &m->fric[e];
      double G[3 * 2 * LW_MAXQB], A[3][3], wr[3] = {0};
      lw_joint_friction_spin_grad(m, f, q, G);
      lw_vexpr_eval(m, &f->x, q, A[0]);
      lw_vexpr_eval(m, &f->y, q, A[1]);
      lw_vexpr_eval(m, &f->z, q, A[2]);
      for (int i = 0; i < 3; i++)
        wr[i] = (f->bodies[1] >= 0 ? om[f->bodies[1]][i] : 0) - (f->bodies[0] >= 0 ? om[f->bodies[0]][i] : 0);
      for (int k = 0; k < 3; k++) {
        double rate = 0, want = A[k][0] * wr[0] + A[k][1] * wr[1] + A[k][2] * wr[2];
        for (int b = 0; b < f->nblk; b++)
          for (int i = 0; i < nqb; i++)
            rate += G[k * w + b * nqb + i] * qd[f->blk[b] * nqb + i];
        worst = fmax(worst, fabs(rate - want));
      }
    }
  }
  g_test_message("ball rates against A_k . (w2 - w1): worst %.3g rad/s", worst);
  g_assert_cmpfloat(worst, <, 1e-13);
  g_rand_free(r);
  g_free(q);
  g_free(qd);
  lw_data_free(data);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- the kernel --------------------------------------------------------- */

/* the spherical kind's result: moment -N mu(s) r_e w / |w| - c_v r_e^2 w,
 * N = k_ball |F|_eps + N0; and its derivatives in the rates, the reaction
 * and every parameter against central differences */
static double kernel_out(const lw_friction_params *p, const double R[6], const double rate[3], int k)
{
  lw_friction_out o;
  g_assert_cmpint(lw_friction_eval(p, LW_FRICTION_SPHERICAL, R, rate, &o), ==, LW_OK);
  return k < 3 ? o.Q[k] : o.N;
}

static void test_kernel(void)
{
  GRand *r = g_rand_new_with_seed(5);
  double worst = 0;
  int checked = 0;
  for (int n = 0; n < 200; n++) {
    lw_friction_params p;
    lw_friction_default_params(&p, 1e-3);
    p.p[LW_FP_MU_S] = g_rand_double_range(r, 0.1, 0.8);
    p.p[LW_FP_MU_D] = g_rand_double_range(r, 0.05, 0.6);
    p.p[LW_FP_VT] = g_rand_double_range(r, 1e-3, 2e-2);
    p.p[LW_FP_VISCOUS] = g_rand_double_range(r, 0, 0.5);
    p.p[LW_FP_RADIUS] = g_rand_double_range(r, 0.005, 0.05);
    p.p[LW_FP_PRELOAD] = g_rand_double_range(r, 0, 2);
    p.p[LW_FP_EPS] = g_rand_double_range(r, 1e-3, 1e-1);
    double R[6], rate[3], scale = n % 4 == 0 ? 0.2 : 20.0; /* a quarter in the transition */
    for (int i = 0; i < 6; i++)
      R[i] = g_rand_double_range(r, -30, 30);
    for (int i = 0; i < 3; i++)
      rate[i] = g_rand_double_range(r, -1, 1) * scale * p.p[LW_FP_VT] / p.p[LW_FP_RADIUS];
    lw_friction_out o;
    g_assert_cmpint(lw_friction_eval(&p, LW_FRICTION_SPHERICAL, R, rate, &o), ==, LW_OK);
    /* the closed form */
    double Fn = sqrt(R[0] * R[0] + R[1] * R[1] + R[2] * R[2] + p.p[LW_FP_EPS] * p.p[LW_FP_EPS]);
    double N = 1.5294549529656822 * Fn + p.p[LW_FP_PRELOAD], re = p.p[LW_FP_RADIUS];
    double wn = sqrt(rate[0] * rate[0] + rate[1] * rate[1] + rate[2] * rate[2]), s = re * wn;
    double mu = lw_friction_mu(&p, s, NULL, NULL);
    g_assert_cmpfloat(fabs(o.N - N), <=, 1e-13 * N);
    g_assert_cmpfloat(fabs(o.slip_speed - s), <=, 1e-15 * (s + 1e-300));
    for (int k = 0; k < 3; k++) {
      double want = -N * mu * re * rate[k] / wn - p.p[LW_FP_VISCOUS] * re * re * rate[k];
      g_assert_cmpfloat(fabs(o.Q[k] - want), <=, 1e-12 * (fabs(N * mu * re) + 1e-12));
    }
    /* derivatives: rates, reaction, parameters */
    for (int in = 0; in < 3 + 6 + LW_FP_N; in++) {
      double x0, hh;
      double *px = in < 3 ? &rate[in] : in < 9 ? &R[in - 3] : &p.p[in - 9];
      x0 = *px;
      hh = 1e-3 * fmax(fabs(x0), in < 3 ? 1e-2 * p.p[LW_FP_VT] / re : 1e-3);
      for (int k = 0; k < 4; k++) {
        double an = k < 3 ? (in < 3 ? o.dQ_drate[k][in] : in < 9 ? o.dQ_dreaction[k][in - 3] : o.dQ_dp[k][in - 9])
                          : (in < 3 ? 0.0 : in < 9 ? o.dN_dreaction[in - 3] : o.dN_dp[in - 9]);
        double v[4];
        for (int j = 0; j < 4; j++) {
          *px = x0 + (j - 2 + (j >= 2)) * hh; /* -2h, -h, h, 2h */
          v[j] = kernel_out(&p, R, rate, k);
        }
        *px = x0;
        double fd = (v[0] - 8 * v[1] + 8 * v[2] - v[3]) / (12 * hh);
        /* to 1e-6 and the differences' round-off (test-friction.c's
         * tolerance) */
        double tol = 1e-6 * fabs(an) + 1e-13 * (fabs(kernel_out(&p, R, rate, k)) + 1.0) / hh;
        double e = fabs(an - fd) / tol;
        worst = fmax(worst, fabs(an - fd) / fmax(fabs(an), 1e-6));
        checked++;
        if (!(e <= 1.0))
          g_error("point %d: d out[%d] / d in[%d] = %.12g, differences %.12g", n, k, in, an, fd);
      }
    }
  }
  g_test_message("%d derivatives of the ball's kernel checked, largest relative difference %.3g", checked, worst);
  g_rand_free(r);
}

/* ---- the element's directional derivative (lw-friction-test.h) -------- */

static void test_jvp_state(void)
{
  lw_desc *d = parse(double_json);
  lwt_check_state_jvp(d, 1.0);  /* sliding: r_e |w| >> v_t */
  lwt_check_state_jvp(d, 1e-2); /* in the transition */
  lw_desc_free(d);
}

static void test_jvp_params(void)
{
  lw_desc *d = parse(double_json);
  lwt_check_param_jvp(d, 1.0);
  lw_desc_free(d);
}

/* ---- the step ---------------------------------------------------------- */

/* The trapezoidal step's friction problem at fixed multipliers l: find q
 * with v = 2/h (q - q0) - v0 and
 *   R(q) = 4/h^2 M (q - q0 - h v0) - Q^f(q, v, l) = 0,
 * whose Newton matrix 4/h^2 M - (dQ^f/dq + 2/h dQ^f/dv) takes its friction
 * columns along (e_i, 2/h e_i) from lw_joint_friction_jvp, as the ALI3-P
 * step's exact tangent does (integ/ali3p_friction.c).  Returns the number
 * of iterations to |dq| <= 1e-14 and their increments in inc (max 30);
 * exact = 0 leaves out dQ^f/dq (the iteration then converges linearly). */
static int friction_newton(const lw_model *m, lw_data *d, const double *q0, const double *v0, const double *l,
                           double h, int exact, double *inc)
{
  int n = m->nq;
  double *M = g_new(double, (size_t)n * n), *A = g_new(double, (size_t)n * n), *q = g_new(double, n);
  double *v = g_new(double, n), *R = g_new(double, n), *Q = g_new(double, n), *e = g_new0(double, n);
  double *ev = g_new0(double, n), *col = g_new(double, n);
  int *piv = g_new(int, n), it;
  lw_eval_mass_dense(m, M);
  for (int i = 0; i < n; i++)
    q[i] = q0[i] + h * v0[i];
  for (it = 0; it < 30; it++) {
    for (int i = 0; i < n; i++)
      v[i] = 2.0 / h * (q[i] - q0[i]) - v0[i];
    lwt_friction_Q(m, d, q, v, l, Q);
    for (int i = 0; i < n; i++) {
      R[i] = -Q[i];
      for (int j = 0; j < n; j++)
        R[i] += 4.0 / (h * h) * M[(size_t)j * n + i] * (q[j] - q0[j] - h * v0[j]);
    }
    lw_lin_point p = {q, v, NULL, NULL, {l, NULL, NULL}, 0.0};
    for (int j = 0; j < n; j++) {
      e[j] = 1.0;
      ev[j] = 2.0 / h;
      memset(col, 0, sizeof(double) * n);
      lw_lin_dir dir = {exact ? e : NULL, ev, NULL, NULL, NULL, NULL, -1};
      lwt_friction_jvp(m, NULL, &p, &dir, NULL, col);
      e[j] = ev[j] = 0.0;
      for (int i = 0; i < n; i++)
        A[(size_t)j * n + i] = 4.0 / (h * h) * M[(size_t)j * n + i] - col[i];
    }
    g_assert_cmpint(lw_lu_dense(A, n, piv), ==, 0);
    lw_lu_dense_solve(A, n, piv, 0, R, 1);
    double dn = 0;
    for (int i = 0; i < n; i++) {
      q[i] -= R[i];
      dn += R[i] * R[i];
    }
    inc[it] = sqrt(dn);
    if (inc[it] <= 1e-14)
      break;
  }
  g_free(M), g_free(A), g_free(q), g_free(v), g_free(R), g_free(Q), g_free(e), g_free(ev), g_free(col), g_free(piv);
  return it + 1;
}

/* from a state where both balls turn (r_e |w| from below to above v_t)
 * at a long step (h = 0.05 s: the friction's damping comparable to the
 * inertia's 4/h^2 M): the increments fall quadratically to round-off,
 * |dq_k+1| <= C |dq_k|^2 with C bounded (15 to 60 here, <= 100 asserted);
 * without dQ^f/dq only linearly (C then grows past 1e4), in more
 * iterations */
static void test_newton_quadratic(void)
{
  lw_desc *desc = parse(double_json);
  lw_model *m = lwt_compile(desc);
  lw_data *d = lw_data_new(m);
  int n = m->nq;
  double *q0 = g_new(double, n), *v0 = g_new(double, n), *l = g_new(double, m->nc);
  lwt_some_state(m, d, 0.5, q0, v0, l);
  double inc[2][30];
  int its[2];
  for (int exact = 1; exact >= 0; exact--) {
    its[exact] = friction_newton(m, d, q0, v0, l, 0.05, exact, inc[exact]);
    for (int k = 0; k < its[exact]; k++)
      g_test_message("%s tangent: |dq_%d| = %.3e", exact ? "exact" : "without dQ/dq", k + 1, inc[exact][k]);
  }
  int quadratic = 0;
  for (int k = 0; k + 1 < its[1] && inc[1][k + 1] > 1e-13; k++) {
    double C = inc[1][k + 1] / (inc[1][k] * inc[1][k]);
    g_test_message("exact: |dq_%d| / |dq_%d|^2 = %.3g", k + 2, k + 1, C);
    g_assert_cmpfloat(C, <=, 100.0);
    quadratic++;
  }
  g_assert_cmpint(quadratic, >=, 2);
  g_assert_cmpfloat(inc[1][0], >, 1e-4); /* a first increment far from round-off */
  g_assert_cmpint(its[1], <=, 8);
  g_assert_cmpint(its[0], >, its[1]);
  g_free(q0), g_free(v0), g_free(l);
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(desc);
}

/* the ALI3-P step with the exact tangent in every iteration runs the
 * model's whole t_end, in no more iterations than with the damping's
 * symmetric part, to the same state (each step to the Newton tolerance:
 * 1.3e-9 m apart after 400 steps, 1e-7 asserted) */
static void test_step_exact(void)
{
  lw_desc *desc = parse(double_json);
  lw_model *m = lwt_compile(desc);
  long iters[2];
  double *q[2];
  int n = m->nq;
  for (int exact = 0; exact < 2; exact++) {
    lw_error err;
    lw_opt o = *lw_model_opt(m);
    o.friction_exact = exact;
    g_assert_cmpint(lw_model_set_opt(m, &o, &err), ==, LW_OK);
    lw_data *d = lw_data_new(m);
    g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
    long steps = lround(o.t_end / o.step);
    iters[exact] = 0;
    for (long k = 0; k < steps; k++) {
      lw_step_info info;
      if (lw_step(m, d, &info, &err))
        g_error("step %ld: %s", k, err.msg);
      iters[exact] += info.iterations;
    }
    q[exact] = g_memdup2(lw_data_q(d), sizeof(double) * n);
    g_test_message("%s: %ld Newton iterations in %ld steps", exact ? "exact tangent" : "symmetric part",
                   iters[exact], steps);
    lw_data_free(d);
  }
  double diff = 0;
  for (int i = 0; i < n; i++)
    diff = fmax(diff, fabs(q[0][i] - q[1][i]));
  g_test_message("final positions differ by %.3g", diff);
  g_assert_cmpint(iters[1], <=, iters[0]);
  g_assert_cmpfloat(diff, <, 1e-7);
  g_free(q[0]);
  g_free(q[1]);
  lw_model_free(m);
  lw_desc_free(desc);
}

/* a run of the model with its outputs: rows 1 + columns */
static double *run_rows(lw_model *m, long *steps, int *ncols)
{
  lw_data *data = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, data, &err), ==, LW_OK);
  *ncols = 1 + lw_model_output_columns(m);
  *steps = lround(lw_model_opt(m)->t_end / lw_model_opt(m)->step);
  double *rows = g_new0(double, (size_t)(*steps + 1) * *ncols);
  lw_outputs(m, data, rows + 1);
  for (long k = 1; k <= *steps; k++) {
    if (lw_step(m, data, NULL, &err))
      g_error("step %ld: %s", k, err.msg);
    rows[(size_t)k * *ncols] = lw_data_time(data);
    lw_outputs(m, data, rows + (size_t)k * *ncols + 1);
  }
  lw_data_free(data);
  return rows;
}

/* E(t) + W(t) = E(0) on a model whose only non-conservative force is the
 * balls' friction: the work they took out against the loss of mechanical
 * energy, at every step over 1 s of a double pendulum swinging through
 * (1.3 J taken out of it), to the trapezoidal rule's error (halving the
 * step cuts the gap four times) */
static void test_energy_balance(void)
{
  double gap[2], Wend = 0;
  for (int pass = 0; pass < 2; pass++) {
    lw_desc *d = parse(double_json);
    d->solver.t_end = 1.0;
    d->solver.step = pass ? 5e-4 : 1e-3;
    lw_model *m = lwt_compile(d);
    long steps;
    int nc;
    double *rows = run_rows(m, &steps, &nc);
    int cE = lwt_col(m, "E"), cW = lwt_col(m, "W");
    double E0 = rows[cE], worst = 0;
    for (long k = 1; k <= steps; k++)
      worst = fmax(worst, fabs(E0 - rows[k * nc + cE] - rows[k * nc + cW]));
    Wend = rows[steps * nc + cW];
    gap[pass] = worst / Wend;
    g_test_message("h = %g: work of friction %.6g J, worst |E0 - E - W| %.3g of it", d->solver.step, Wend,
                   gap[pass]);
    g_assert_cmpfloat(Wend, >, 0.05 * E0 > 0 ? 0.05 * fabs(E0) : 0.01);
    g_free(rows);
    lw_model_free(m);
    lw_desc_free(d);
  }
  /* 1.3e-4 of the work at 1 ms; the trapezoidal rule's second order: a
   * quarter at half the step (a work that missed a term would not shrink) */
  g_assert_cmpfloat(gap[0], <, 3e-4);
  g_assert_cmpfloat(gap[1], >, 0.15 * gap[0]);
  g_assert_cmpfloat(gap[1], <, 0.35 * gap[0]);
}

/* the outputs: the friction moment's magnitude r_e (N mu(s) + c_v s) at
 * the slip speed, the normal force k_ball |F|_eps from the ball's reaction
 * (exactly at the start), the joint's work growing and part of the whole */
static void test_outputs(void)
{
  lw_desc *d = parse(double_json);
  lw_model *m = lwt_compile(d);
  long steps;
  int nc;
  double *rows = run_rows(m, &steps, &nc);
  int cF = lwt_col(m, "Ff"), cN = lwt_col(m, "N"), cs = lwt_col(m, "s"), cWf = lwt_col(m, "Wf");
  int cW = lwt_col(m, "W");
  lw_friction_params p;
  memcpy(p.p, m->fric[1].p, sizeof p.p);
  double re = p.p[LW_FP_RADIUS], worstN = 0;
  for (long k = 1; k <= steps; k++) {
    const double *r = rows + k * nc;
    double s = r[cs], N = r[cN];
    double want = re * (N * lw_friction_mu(&p, s, NULL, NULL) + p.p[LW_FP_VISCOUS] * s);
    g_assert_cmpfloat(fabs(r[cF] - want), <=, 1e-12 * (want + 1e-12));
    /* N = k_ball |F|_eps, F the ball's reaction (the elbow has no preload) */
    const double *F = r + lwt_col(m, "Fr.x");
    double NF = 1.5294549529656822 * sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2] + 1e-6);
    worstN = fmax(worstN, fabs(N - NF) / NF);
    if (k == 1) {
      const double *F0 = rows + lwt_col(m, "Fr.x");
      double N0 = 1.5294549529656822 * sqrt(F0[0] * F0[0] + F0[1] * F0[1] + F0[2] * F0[2] + 1e-6);
      g_test_message("at t = 0: N %.15g, k_ball |reaction|_eps %.15g", rows[cN], N0);
      g_assert_cmpfloat(fabs(rows[cN] - N0), <=, 1e-12 * N0);
    }
    g_assert_cmpfloat(r[cWf], >=, rows[(k - 1) * nc + cWf] - 1e-15);
    g_assert_cmpfloat(r[cWf], <=, r[cW] + 1e-15);
  }
  g_test_message("normal force against k_ball |reaction|_eps: worst relative difference %.3g", worstN);
  /* after the start the friction reads the multipliers consistent with the
   * step's projected acceleration (docs/friction.md sec. 8.4), the reaction
   * output the step's own: they differ by that projection's correction */
  g_assert_cmpfloat(worstN, <, 2e-2);
  g_assert_cmpfloat(rows[steps * nc + cs], >, 0.0);
  g_assert_cmpfloat(rows[steps * nc + cWf], >, 0.0);
  int of = -1;
  for (int k = 0; k < lw_model_noutputs(m); k++)
    if (!strcmp(lw_model_output_name(m, k), "Ff"))
      of = k;
  g_assert_cmpint(of, >=, 0);
  g_assert_cmpstr(lw_model_output_unit(m, of), ==, "N m");
  g_free(rows);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- sensitivities --------------------------------------------------- */


/* forward = adjoint to 1e-8, both against central differences of the whole
 * run (relative per entry against 1e-2 of the objective's largest) */
static void agree(const lw_desc *d, double fd_step, double fd_tol)
{
  lw_sens_result f = lwt_sens_all(d, LW_SENS_FORWARD, 0, 0), a = lwt_sens_all(d, LW_SENS_ADJOINT, 0, 0),
                 c = lwt_sens_all(d, LW_SENS_FD, fd_step, 0);
  int p = d->nparams;
  double efa = 0, efd = 0;
  for (int o = 0; o < d->nobjectives; o++) {
    double rowmax = 0;
    for (int j = 0; j < p; j++)
      rowmax = fmax(rowmax, fabs(a.gradient[o * p + j]));
    g_assert_cmpfloat(rowmax, >, 0.0);
    for (int j = 0; j < p; j++) {
      double ga = a.gradient[o * p + j], gf = f.gradient[o * p + j], gc = c.gradient[o * p + j];
      g_test_message("  %s d%s/d%s: forward %.10e adjoint %.10e differences %.10e", d->name,
                     d->objectives[o].name, d->params[j].name, gf, ga, gc);
      efa = fmax(efa, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
      efd = fmax(efd, fabs(ga - gc) / fmax(fabs(ga), 1e-2 * rowmax));
    }
  }
  g_test_message("%s (%ld steps): forward vs adjoint %.2e, adjoint vs central differences (step %g) %.2e", d->name,
                 a.steps, efa, fd_step, efd);
  g_assert_cmpfloat(efa, <=, 1e-8);
  g_assert_cmpfloat(efd, <=, fd_tol);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&c);
}

/* the double pendulum's differences carry about 1e-7 of noise (each run
 * converges its steps to round-off of the coordinates, 1e-11 of the
 * objective, over steps of 1e-4): the entries agree to that, 1e-4 of the
 * objective's largest (7e-5 the worst, the shoulder's preload) */
static void test_sens_double(void)
{
  lw_desc *d = parse(double_json);
  agree(d, 1e-4, 1e-4);
  lw_desc_free(d);
}

static void test_sens_model(void)
{
  lw_desc *d = lwt_read("spherical-pendulum-friction.json");
  agree(d, 1e-4, 1e-5);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/friction-sph/compiles", test_compiles);
  g_test_add_func("/friction-sph/spin-rates", test_spin_rates);
  g_test_add_func("/friction-sph/kernel", test_kernel);
  g_test_add_func("/friction-sph/jvp/state", test_jvp_state);
  g_test_add_func("/friction-sph/jvp/params", test_jvp_params);
  g_test_add_func("/friction-sph/newton-quadratic", test_newton_quadratic);
  g_test_add_func("/friction-sph/step-exact", test_step_exact);
  g_test_add_func("/friction-sph/energy-balance", test_energy_balance);
  g_test_add_func("/friction-sph/outputs", test_outputs);
  g_test_add_func("/friction-sph/sens/double", test_sens_double);
  g_test_add_func("/friction-sph/sens/model", test_sens_model);
  return g_test_run();
}
