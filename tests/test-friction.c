/* Joint friction kernel (src/core/lw_friction.c): every derivative against
 * fourth-order central differences at many random points, the
 * Brown-McPhee law's limits and published values, and the normal force of
 * every joint kind against hand-computed cases. */
#include "lw-test.h"
#include "model/lw_friction.h"

#include <string.h>

/* ---- a central-difference checker ----------------------------------- */

/* A function of one scalar input with many outputs: the checker moves
 * input `which` by t and reads output `k`. */
typedef double (*lwt_fn)(void *ctx, int which, double t, int k);

static int n_checked;

/* fourth-order central difference of output k in input `which` */
static double central_diff(lwt_fn f, void *ctx, int which, int k, double h)
{
  return (-f(ctx, which, 2 * h, k) + 8 * f(ctx, which, h, k) - 8 * f(ctx, which, -h, k) +
          f(ctx, which, -2 * h, k)) /
         (12 * h);
}

/* input names: the parameters, then the law's v and N or a joint's
 * reaction and rates */
static const char *const law_inputs[] = {"mu_s", "mu_d", "v_t", "viscous", "length", "offset", "width",
                                         "radius", "preload", "eps", "v", "N"};
static const char *const joint_inputs[] = {"mu_s",  "mu_d",   "v_t",    "viscous", "length",  "offset",
                                           "width", "radius", "preload", "eps",    "F_x",     "F_y",
                                           "F_z",   "T_x",    "T_y",    "T_z",     "rate[0]", "rate[1]",
                                           "rate[2]"};
static const char *const *input_names = law_inputs;

/* outputs: the law's mu and F, a joint's N and Q_k */
static const char *output_name(const char *what, int k)
{
  static const char *const law[] = {"mu", "F"}, *const joint[] = {"N", "Q[0]", "Q[1]", "Q[2]"};
  if (input_names == joint_inputs)
    return joint[k];
  return input_names == law_inputs ? law[k] : what;
}

/* The analytic derivative `an` against the difference: relative 1e-6,
 * or a floor 300 times the difference's round-off (3e-16 |f| / h). */
static void check_derivative(const char *what, int which, int k, double an, lwt_fn f, void *ctx, double h)
{
  double fd = central_diff(f, ctx, which, k, h);
  double fv = fabs(f(ctx, which, 0, k));
  double tol = 1e-6 * fabs(an) + 1e-13 * (fv + 1.0) / h;
  n_checked++;
  if (!(fabs(an - fd) <= tol))
    g_error("%s: d(%s)/d(%s) = %.12g analytic, %.12g by central differences "
            "(step %.3g, difference %.3g > tolerance %.3g)",
            what, output_name(what, k), input_names[which], an, fd, h, fabs(an - fd), tol);
}

/* ---- random points ------------------------------------------------- */

static double urand(GRand *r, double lo, double hi)
{
  return g_rand_double_range(r, lo, hi);
}

static void random_params(GRand *r, lw_friction_params *p)
{
  lw_friction_default_params(p, urand(r, 1e-4, 1e-3));
  p->p[LW_FP_MU_S] = urand(r, 0.1, 0.8);
  p->p[LW_FP_MU_D] = urand(r, 0.05, 0.6);
  p->p[LW_FP_VISCOUS] = urand(r, 0, 2.0);
  p->p[LW_FP_LENGTH] = urand(r, 0.02, 0.2);
  p->p[LW_FP_OFFSET] = urand(r, -0.1, 0.1);
  p->p[LW_FP_WIDTH] = urand(r, 0.01, 0.05);
  p->p[LW_FP_RADIUS] = urand(r, 0.005, 0.05);
  p->p[LW_FP_PRELOAD] = urand(r, 0, 10.0);
  p->p[LW_FP_EPS] = urand(r, 1e-3, 1e-2);
}

/* a sliding velocity in one of the regimes: near 0, sticking, near v_t,
 * sliding, far sliding; either sign */
static double random_velocity(GRand *r, double vt, int regime)
{
  static const double lo[] = {0, 1e-3, 0.9, 2.0, 50.0}, hi[] = {1e-3, 0.9, 1.1, 50.0, 1e3};
  double v = vt * urand(r, lo[regime % 5], hi[regime % 5]);
  return g_rand_boolean(r) ? v : -v;
}

/* reaction components of 1..300 N (moments a tenth), some of them within
 * a few eps of zero so that the smoothing is exercised */
static void random_reaction(GRand *r, double eps, double R[6])
{
  for (int i = 0; i < 6; i++) {
    double scale = i < 3 ? 300.0 : 30.0;
    R[i] = g_rand_int_range(r, 0, 4) == 0 ? urand(r, -3 * eps, 3 * eps) : urand(r, -scale, scale);
  }
}

/* the step of each parameter for differences; a length moves a point
 * force f (|df/dlength| <= load / length, load the reaction's force
 * scale) by a hundredth of eps at most, within the smoothing */
static double param_step(const lw_friction_params *p, int i, double load)
{
  double eps = p->p[LW_FP_EPS];
  switch (i) {
  case LW_FP_VT:
  case LW_FP_RADIUS:
    return 1e-4 * p->p[i];
  case LW_FP_LENGTH:
  case LW_FP_WIDTH:
    return fmin(1e-4, 1e-2 * eps / (load + 1.0)) * p->p[i];
  case LW_FP_OFFSET:
    return fmin(1e-4, 1e-2 * eps / (load + 1.0)) * p->p[LW_FP_LENGTH];
  case LW_FP_EPS:
    return 1e-2 * p->p[i];
  default:
    return 1e-4;
  }
}

/* ---- the law --------------------------------------------------------- */

typedef struct {
  lw_friction_params p;
  double v, N;
} law_ctx;

/* inputs: 0 .. LW_FP_N-1 parameters, LW_FP_N v, LW_FP_N+1 N; outputs: 0 mu, 1 F */
static double law_fn(void *vctx, int which, double t, int k)
{
  law_ctx c = *(law_ctx *)vctx;
  if (which < LW_FP_N)
    c.p.p[which] += t;
  else if (which == LW_FP_N)
    c.v += t;
  else
    c.N += t;
  return k == 0 ? lw_friction_mu(&c.p, c.v, NULL, NULL) : lw_friction_law(&c.p, c.v, c.N, NULL, NULL, NULL);
}

static void test_law_derivatives(void)
{
  GRand *r = g_rand_new_with_seed(1);
  input_names = law_inputs;
  for (int n = 0; n < 500; n++) {
    law_ctx c;
    random_params(r, &c.p);
    c.v = random_velocity(r, c.p.p[LW_FP_VT], n);
    c.N = urand(r, 0.1, 500);
    double dmu_dv, dmu_dp[LW_FP_N], dF_dv, dF_dN, dF_dp[LW_FP_N];
    lw_friction_mu(&c.p, c.v, &dmu_dv, dmu_dp);
    lw_friction_law(&c.p, c.v, c.N, &dF_dv, &dF_dN, dF_dp);
    double hv = 1e-3 * c.p.p[LW_FP_VT];
    check_derivative("mu", LW_FP_N, 0, dmu_dv, law_fn, &c, hv);
    check_derivative("law", LW_FP_N, 1, dF_dv, law_fn, &c, hv);
    check_derivative("law", LW_FP_N + 1, 1, dF_dN, law_fn, &c, 1e-3);
    for (int i = 0; i < LW_FP_N; i++) {
      check_derivative("mu", i, 0, dmu_dp[i], law_fn, &c, param_step(&c.p, i, 0.0));
      check_derivative("law", i, 1, dF_dp[i], law_fn, &c, param_step(&c.p, i, 0.0));
    }
  }
  g_rand_free(r);
  g_test_message("%d derivatives checked", n_checked);
}

static double cabs_fn(void *vctx, int which, double t, int k)
{
  (void)k;
  const double *xe = vctx;
  return lw_cabs(xe[0] + (which == 0 ? t : 0), xe[1] + (which == 1 ? t : 0), NULL, NULL);
}

static void test_cabs(void)
{
  static const char *const cabs_inputs[] = {"x", "eps"};
  input_names = cabs_inputs;
  GRand *r = g_rand_new_with_seed(2);
  for (int n = 0; n < 200; n++) {
    double eps = urand(r, 1e-4, 1.0);
    double xe[2] = {eps * urand(r, -100, 100) * (n % 2 ? 1.0 : 0.01), eps}, dx, de;
    double y = lw_cabs(xe[0], xe[1], &dx, &de);
    /* never below |x| nor eps, and within eps of |x| */
    g_assert_cmpfloat(y, >=, fabs(xe[0]));
    g_assert_cmpfloat(y, >=, eps);
    g_assert_cmpfloat(y - fabs(xe[0]), <=, eps * (1 + 1e-15));
    check_derivative("cabs", 0, 0, dx, cabs_fn, xe, 1e-3 * eps);
    check_derivative("cabs", 1, 0, de, cabs_fn, xe, 1e-3 * eps);
  }
  g_rand_free(r);
}

/* F_f of seed 000 eq. 1 with F_n = 1, v_t = 1e-3, mu_s = 0.4, mu_d = 0.3 */
static void test_law_values(void)
{
  static const double v[] = {0, 1e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 0.1, -1e-3};
  static const double F[] = {0,          0.1316445379, 0.3649479190, 0.3997987899, 0.3653060549,
                             0.3102040816, 0.3015081535, 0.3000015990, -0.3997987899};
  lw_friction_params p;
  lw_friction_default_params(&p, 1e-4);
  p.p[LW_FP_VT] = 1e-3;
  for (size_t i = 0; i < G_N_ELEMENTS(v); i++)
    g_assert_cmpfloat_with_epsilon(lw_friction_law(&p, v[i], 1.0, NULL, NULL, NULL), F[i], 6e-11);
  /* 5e-3: x = 5, D = 7, mu = 0.3 tanh 20 + 0.1 * 5 / 49 */
  g_assert_cmpfloat_with_epsilon(lw_friction_mu(&p, 5e-3, NULL, NULL), 0.3 * tanh(20.0) + 0.5 / 49.0, 1e-15);
}

static void test_law_limits(void)
{
  GRand *r = g_rand_new_with_seed(3);
  for (int n = 0; n < 100; n++) {
    lw_friction_params p;
    random_params(r, &p);
    double ms = p.p[LW_FP_MU_S], md = p.p[LW_FP_MU_D], vt = p.p[LW_FP_VT], d0;
    /* mu(0) = 0, slope (4 mu_d + 16 (mu_s - mu_d) / 9) / v_t */
    g_assert_cmpfloat(lw_friction_mu(&p, 0.0, &d0, NULL), ==, 0.0);
    g_assert_cmpfloat_with_epsilon(d0 * vt, 4 * md + 16 * (ms - md) / 9, 1e-14);
    /* odd */
    double v = urand(r, -10 * vt, 10 * vt);
    g_assert_cmpfloat(lw_friction_mu(&p, -v, NULL, NULL), ==, -lw_friction_mu(&p, v, NULL, NULL));
    /* mu -> mu_d: the Stribeck bump decays like 16 v_t^3 / v^3 */
    for (double x = 100; x <= 1e6; x *= 10) {
      double e = lw_friction_mu(&p, x * vt, NULL, NULL) - md;
      g_assert_cmpfloat(fabs(e), <=, 16.5 * fabs(ms - md) / (x * x * x) + 1e-15);
      g_assert_cmpfloat(lw_friction_mu(&p, -x * vt, NULL, NULL) + md, ==, -e);
    }
    /* at v_t: exactly mu_d tanh 4 + mu_s - mu_d, within 7e-4 mu_d of mu_s */
    double at = lw_friction_mu(&p, vt, NULL, NULL);
    g_assert_cmpfloat_with_epsilon(at, md * tanh(4.0) + ms - md, 1e-15);
    g_assert_cmpfloat(fabs(at - ms), <=, 6.8e-4 * md);
    if (ms > 1.2 * md) {
      /* the peak lies near v_t (between 0.8 and 1.25 v_t) and about mu_s */
      double best = 0, xbest = 0;
      for (double x = 0.01; x <= 5; x += 0.001) {
        double m = lw_friction_mu(&p, x * vt, NULL, NULL);
        if (m > best)
          best = m, xbest = x;
      }
      g_assert_cmpfloat(xbest, >, 0.8);
      g_assert_cmpfloat(xbest, <, 1.25);
      g_assert_cmpfloat(fabs(best - ms), <, 0.01 * ms);
    }
  }
  g_rand_free(r);
}

/* continuity and smoothness: the derivative's increments over a step
 * shrink with the step (no jump in mu or dmu/dv, even across v = 0), and
 * the second difference stays bounded by the analytic bound 32 mu / v_t^2 */
static void test_law_smooth(void)
{
  lw_friction_params p;
  lw_friction_default_params(&p, 1e-3);
  double vt = p.p[LW_FP_VT];
  double bound = 0;
  for (double v = -5 * vt; v <= 5 * vt; v += 1e-3 * vt) {
    double h = 1e-6 * vt, d1, d2;
    double m1 = lw_friction_mu(&p, v - h, &d1, NULL), m2 = lw_friction_mu(&p, v + h, &d2, NULL);
    g_assert_cmpfloat(fabs(m2 - m1), <=, 2 * h * 3 / vt);
    g_assert_cmpfloat(fabs(d2 - d1), <=, 2 * h * 32 * p.p[LW_FP_MU_S] / (vt * vt));
    bound = fmax(bound, fabs(d2 - d1) / (2 * h));
  }
  g_test_message("largest |d2mu/dv2| v_t^2 on [-5 v_t, 5 v_t]: %.3g", bound * vt * vt);
}

/* ---- the normal force ------------------------------------------------ */

typedef struct {
  lw_friction_params p;
  lw_friction_kind kind;
  double R[6];
  double rate[LW_FRICTION_MAXSLIP];
} joint_ctx;

/* inputs: 0 .. LW_FP_N-1 parameters, LW_FP_N + i reaction i, LW_FP_N + 6 + j
 * rate j; outputs: 0 N, 1 + k Q_k */
static double joint_fn(void *vctx, int which, double t, int k)
{
  joint_ctx c = *(joint_ctx *)vctx;
  if (which < LW_FP_N)
    c.p.p[which] += t;
  else if (which < LW_FP_N + 6)
    c.R[which - LW_FP_N] += t;
  else
    c.rate[which - LW_FP_N - 6] += t;
  if (k == 0)
    return lw_friction_normal(&c.p, c.kind, c.R, NULL, NULL);
  lw_friction_out out;
  g_assert_cmpint(lw_friction_eval(&c.p, c.kind, c.R, c.rate, &out), ==, LW_OK);
  return out.Q[k - 1];
}

/* slip of a unit rate j: r_e for an angle, 1 for a length */
static double slip_weight(lw_friction_kind kind, int j, double re)
{
  switch (kind) {
  case LW_FRICTION_PRISMATIC:
  case LW_FRICTION_PLANAR_PRISMATIC:
    return 1.0;
  case LW_FRICTION_CYLINDRICAL:
    return j == 1 ? re : 1.0;
  case LW_FRICTION_PLANAR:
    return j == 2 ? re : 1.0;
  default:
    return re;
  }
}

static const char *const kind_names[] = {"revolute", "prismatic", "cylindrical", "spherical",
                                         "planar", "planar revolute", "planar prismatic"};

static void check_joint_point(joint_ctx *c)
{
  lw_friction_out out;
  g_assert_cmpint(lw_friction_eval(&c->p, c->kind, c->R, c->rate, &out), ==, LW_OK);
  char what[64];
  g_snprintf(what, sizeof what, "%s N", kind_names[c->kind]);
  /* within the smoothing of a point force f = M / d, d >= min(a, b) / 2,
   * the scale of a moment is eps d */
  double hR[6], eps = c->p.p[LW_FP_EPS], d = 0.5 * fmin(c->p.p[LW_FP_LENGTH], c->p.p[LW_FP_WIDTH]);
  double load = 0;
  for (int i = 0; i < 6; i++) {
    hR[i] = i < 3 ? 1e-2 * eps : 1e-2 * eps * d;
    load = fmax(load, i < 3 ? fabs(c->R[i]) : fabs(c->R[i]) / d);
  }
  for (int i = 0; i < 6; i++)
    check_derivative(what, LW_FP_N + i, 0, out.dN_dreaction[i], joint_fn, c, hR[i]);
  for (int i = 0; i < LW_FP_N; i++)
    check_derivative(what, i, 0, out.dN_dp[i], joint_fn, c, param_step(&c->p, i, load));
  g_snprintf(what, sizeof what, "%s Q", kind_names[c->kind]);
  for (int k = 0; k < out.nslip; k++) {
    for (int i = 0; i < 6; i++)
      check_derivative(what, LW_FP_N + i, 1 + k, out.dQ_dreaction[k][i], joint_fn, c, hR[i]);
    for (int i = 0; i < LW_FP_N; i++)
      check_derivative(what, i, 1 + k, out.dQ_dp[k][i], joint_fn, c, param_step(&c->p, i, load));
    for (int j = 0; j < out.nslip; j++) {
      double hv = 1e-3 * c->p.p[LW_FP_VT] / slip_weight(c->kind, j, c->p.p[LW_FP_RADIUS]);
      check_derivative(what, LW_FP_N + 6 + j, 1 + k, out.dQ_drate[k][j], joint_fn, c, hv);
    }
  }
}

static void test_joint_derivatives(void)
{
  GRand *r = g_rand_new_with_seed(4);
  input_names = joint_inputs;
  int before = n_checked;
  for (int kind = 0; kind < LW_FRICTION_NKINDS; kind++)
    for (int n = 0; n < 200; n++) {
      joint_ctx c;
      memset(&c, 0, sizeof c);
      c.kind = (lw_friction_kind)kind;
      random_params(r, &c.p);
      random_reaction(r, c.p.p[LW_FP_EPS], c.R);
      int ns = lw_friction_nslip(c.kind);
      double vt = c.p.p[LW_FP_VT], re = c.p.p[LW_FP_RADIUS];
      for (int j = 0; j < ns; j++) {
        /* each slip component in a regime of its own, a quarter of them near 0 */
        double v = random_velocity(r, vt, g_rand_int_range(r, 0, 4) == 0 ? 0 : n);
        c.rate[j] = v / slip_weight(c.kind, j, re);
      }
      check_joint_point(&c);
    }
  g_rand_free(r);
  g_test_message("%d derivatives checked", n_checked - before);
}

/* hand-computed cases: R = [30 40 -20 2 -1 7], a = 0.1 centred, b = 0.02,
 * eps = 1e-9.  Bearing points at z = -0.05, +0.05:
 *   x: f1 = (T_y - z2 F_x)/a = -25, f2 = (-T_y + z1 F_x)/a = -5
 *   y: f1 = (-T_x - z2 F_y)/a = -40, f2 = (T_x + z1 F_y)/a = 0 */
static void test_normal_hand(void)
{
  const double R[6] = {30, 40, -20, 2, -1, 7}, kp = G_PI * G_PI * G_PI / 24;
  lw_friction_params p;
  lw_friction_default_params(&p, 1e-3);
  p.p[LW_FP_LENGTH] = 0.1;
  p.p[LW_FP_WIDTH] = 0.02;
  p.p[LW_FP_EPS] = 1e-9;
  struct {
    lw_friction_kind kind;
    double N;
  } cases[] = {
      {LW_FRICTION_CYLINDRICAL, kp * (sqrt(25.0 * 25 + 40 * 40) + 5)},
      {LW_FRICTION_REVOLUTE, kp * (sqrt(25.0 * 25 + 40 * 40) + 5) + 20},       /* + |F_z| thrust */
      {LW_FRICTION_PRISMATIC, 25 + 40 + 5 + 0 + 2 * 7 / (2 * 0.02)},            /* 420 */
      {LW_FRICTION_SPHERICAL, 1.5294549529656822 * sqrt(30.0 * 30 + 40 * 40 + 20 * 20)},
      {LW_FRICTION_PLANAR, 20 + 2 * 2 / 0.02 + 2 * 1 / 0.1},                     /* 240 */
      {LW_FRICTION_PLANAR_REVOLUTE, kp * 50},
      /* shoes at x = -0.05, 0.05: f1 = (T_z - x2 F_y)/a = 50, f2 = (-T_z + x1 F_y)/a = -90 */
      {LW_FRICTION_PLANAR_PRISMATIC, 140},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    double N = lw_friction_normal(&p, cases[i].kind, R, NULL, NULL);
    if (fabs(N - cases[i].N) > 1e-9 * cases[i].N)
      g_error("%s: N = %.15g, by hand %.15g", kind_names[cases[i].kind], N, cases[i].N);
    /* even in the reaction */
    double mR[6];
    for (int k = 0; k < 6; k++)
      mR[k] = -R[k];
    g_assert_cmpfloat(lw_friction_normal(&p, cases[i].kind, mR, NULL, NULL), ==, N);
  }
  /* the seed's eqs. 7a-d are the bearing with its centre at c = a/2
   * (moment about end 1): f1x = -F_x + T_y/a = -40, f1y = -F_y - T_x/a = -60,
   * f2x = -T_y/a = 10, f2y = T_x/a = 20 */
  p.p[LW_FP_OFFSET] = 0.05;
  g_assert_cmpfloat_with_epsilon(lw_friction_normal(&p, LW_FRICTION_PRISMATIC, R, NULL, NULL), 130 + 350.0, 1e-9);
  /* a preload adds itself */
  p.p[LW_FP_PRELOAD] = 5;
  g_assert_cmpfloat_with_epsilon(lw_friction_normal(&p, LW_FRICTION_PRISMATIC, R, NULL, NULL), 485.0, 1e-9);
  /* the factor pi^3/24 (integral of a parabolic pressure over its resultant) */
  g_assert_cmpfloat_with_epsilon(kp, 1.2919281950124923, 1e-15);
  g_assert_cmpfloat_with_epsilon(4 * (G_PI * G_PI - 4 * G_PI + 8) / (G_PI * G_PI + 4), 1.5294549529656822, 1e-15);
}

/* a one-slip joint is the scalar law on the slip: Q = -w (mu(w rate) N + c_v w rate),
 * and every joint takes power out */
static void test_eval_law_and_power(void)
{
  GRand *r = g_rand_new_with_seed(5);
  for (int kind = 0; kind < LW_FRICTION_NKINDS; kind++)
    for (int n = 0; n < 200; n++) {
      lw_friction_params p;
      random_params(r, &p);
      double R[6], rate[3], vt = p.p[LW_FP_VT];
      random_reaction(r, p.p[LW_FP_EPS], R);
      for (int j = 0; j < 3; j++)
        rate[j] = random_velocity(r, vt, n) / slip_weight((lw_friction_kind)kind, j, p.p[LW_FP_RADIUS]);
      lw_friction_out out;
      g_assert_cmpint(lw_friction_eval(&p, (lw_friction_kind)kind, R, rate, &out), ==, LW_OK);
      double power = 0;
      for (int k = 0; k < out.nslip; k++)
        power += out.Q[k] * rate[k];
      g_assert_cmpfloat(power, <=, 0.0);
      /* the contact force is the law at the slip speed */
      double F = lw_friction_law(&p, out.slip_speed, out.N, NULL, NULL, NULL);
      g_assert_cmpfloat(fabs(out.F - F), <=, 1e-13 * F);
      if (out.nslip == 1) {
        double w = slip_weight((lw_friction_kind)kind, 0, p.p[LW_FP_RADIUS]);
        double F1 = lw_friction_law(&p, w * rate[0], out.N, NULL, NULL, NULL);
        g_assert_cmpfloat(fabs(out.Q[0] + w * F1), <=, 1e-13 * (fabs(w * F1) + 1e-300));
      }
    }
  g_rand_free(r);
}

/* mu(s)/s and its derivative change formula at s = 0.005 v_t (the series
 * of tanh(y)/y near 0): no step there, and exact at s = 0 */
static void test_eval_series_seam(void)
{
  lw_friction_params p;
  lw_friction_default_params(&p, 1e-3);
  double vt = p.p[LW_FP_VT], R[6] = {10, 20, 30, 1, 2, 3};
  double seam = 0.02 * vt / 4;
  lw_friction_out lo, hi;
  double rlo[3] = {seam * (1 - 1e-9), 0, 0}, rhi[3] = {seam * (1 + 1e-9), 0, 0};
  lw_friction_eval(&p, LW_FRICTION_PRISMATIC, R, rlo, &lo);
  lw_friction_eval(&p, LW_FRICTION_PRISMATIC, R, rhi, &hi);
  /* Q and dQ/dp are the rate times even functions of it */
  double qlo = lo.Q[0] / rlo[0], qhi = hi.Q[0] / rhi[0];
  g_assert_cmpfloat(fabs(qlo - qhi), <=, 1e-12 * fabs(qhi));
  g_assert_cmpfloat(fabs(lo.dQ_drate[0][0] - hi.dQ_drate[0][0]), <=, 1e-11 * fabs(hi.dQ_drate[0][0]));
  for (int i = 0; i < LW_FP_N; i++) {
    double plo = lo.dQ_dp[0][i] / rlo[0], phi = hi.dQ_dp[0][i] / rhi[0];
    g_assert_cmpfloat(fabs(plo - phi), <=, 1e-10 * fabs(phi) + 1e-300);
  }
  /* at rest: no force, the slope of the law (4 mu_d + 16 (mu_s - mu_d)/9) N / v_t (+ c_v) */
  double zero[3] = {0, 0, 0};
  lw_friction_eval(&p, LW_FRICTION_CYLINDRICAL, R, zero, &lo);
  g_assert_cmpfloat(lo.Q[0], ==, 0.0);
  g_assert_cmpfloat(lo.Q[1], ==, 0.0);
  double slope = (4 * 0.3 + 16 * 0.1 / 9) * lo.N / vt;
  g_assert_cmpfloat_with_epsilon(lo.dQ_drate[0][0], -slope, 1e-12 * slope);
  g_assert_cmpfloat(lo.dQ_drate[0][1], ==, 0.0);
  double re = p.p[LW_FP_RADIUS];
  g_assert_cmpfloat_with_epsilon(lo.dQ_drate[1][1], -slope * re * re, 1e-12 * slope * re * re);
}

/* the pressure factors: integral of a parabolic pressure p over its
 * resultant, by Simpson's rule, on a half bore (theta in [-pi/2, pi/2]) and
 * on a half sphere (polar angle in [0, pi/2], area sin theta) */
static double simpson(double (*f)(double, int), int which, double lo, double hi)
{
  int n = 20000;
  double h = (hi - lo) / n, s = f(lo, which) + f(hi, which);
  for (int i = 1; i < n; i++)
    s += (i % 2 ? 4 : 2) * f(lo + i * h, which);
  return s * h / 3;
}

static double pressure_integrand(double t, int which)
{
  double p = 1 - 4 * t * t / (G_PI * G_PI);
  switch (which) {
  case 0:
    return p;
  case 1:
    return p * cos(t);
  case 2:
    return p * sin(t);
  default:
    return p * sin(t) * cos(t);
  }
}

static void test_pressure_factors(void)
{
  double bore = simpson(pressure_integrand, 0, -G_PI / 2, G_PI / 2) / simpson(pressure_integrand, 1, -G_PI / 2, G_PI / 2);
  double ball = simpson(pressure_integrand, 2, 0, G_PI / 2) / simpson(pressure_integrand, 3, 0, G_PI / 2);
  g_assert_cmpfloat_with_epsilon(bore, 1.2919281950124923, 1e-12);
  g_assert_cmpfloat_with_epsilon(ball, 1.5294549529656822, 1e-12);
  /* a unit radial load on the planar revolute joint and on the ball gives these factors */
  lw_friction_params p;
  lw_friction_default_params(&p, 1e-3);
  p.p[LW_FP_EPS] = 1e-12;
  double R[6] = {0, 1000, 0, 0, 0, 0};
  g_assert_cmpfloat_with_epsilon(lw_friction_normal(&p, LW_FRICTION_PLANAR_REVOLUTE, R, NULL, NULL), 1000 * bore, 1e-8);
  g_assert_cmpfloat_with_epsilon(lw_friction_normal(&p, LW_FRICTION_SPHERICAL, R, NULL, NULL), 1000 * ball, 1e-8);
}

static void test_params_and_kinds(void)
{
  lw_friction_params p;
  lw_friction_default_params(&p, 1e-3);
  g_assert_cmpint(lw_friction_check_params(&p), ==, 0);
  g_assert_cmpfloat(p.p[LW_FP_VT], ==, 1e-2);
  double R[6] = {0}, rate[3] = {0};
  lw_friction_out out;
  static const int bad[][2] = {{LW_FP_VT, 0}, {LW_FP_MU_S, -1}, {LW_FP_LENGTH, 0}, {LW_FP_EPS, 0}, {LW_FP_RADIUS, -1}};
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    lw_friction_params q = p;
    q.p[bad[i][0]] = bad[i][1];
    g_assert_cmpint(lw_friction_check_params(&q), ==, -1 - bad[i][0]);
    g_assert_cmpint(lw_friction_eval(&q, LW_FRICTION_REVOLUTE, R, rate, &out), ==, LW_ERR_MODEL);
    g_assert_cmpfloat(out.N, ==, 0.0);
  }
  p.p[LW_FP_OFFSET] = NAN;
  g_assert_cmpint(lw_friction_check_params(&p), ==, -1 - LW_FP_OFFSET);
  lw_friction_default_params(&p, 1e-3);
  g_assert_cmpint(lw_friction_eval(&p, LW_FRICTION_NKINDS, R, rate, &out), ==, LW_ERR_MODEL);
  g_assert_cmpint(lw_friction_kind_of(LW_JOINT_REVOLUTE, 1), ==, LW_FRICTION_PLANAR_REVOLUTE);
  g_assert_cmpint(lw_friction_kind_of(LW_JOINT_PRISMATIC, 0), ==, LW_FRICTION_PRISMATIC);
  g_assert_cmpint(lw_friction_kind_of(LW_JOINT_PLANAR, 0), ==, LW_FRICTION_PLANAR);
  g_assert_cmpint(lw_friction_kind_of(LW_JOINT_UNIVERSAL, 0), ==, -1);
  g_assert_cmpint(lw_friction_kind_of(LW_JOINT_FIXED, 1), ==, -1);
  g_assert_cmpint(lw_friction_nslip(LW_FRICTION_CYLINDRICAL), ==, 2);
  g_assert_cmpint(lw_friction_nslip(LW_FRICTION_SPHERICAL), ==, 3);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/friction/cabs", test_cabs);
  g_test_add_func("/friction/law/values", test_law_values);
  g_test_add_func("/friction/law/limits", test_law_limits);
  g_test_add_func("/friction/law/smooth", test_law_smooth);
  g_test_add_func("/friction/law/derivatives", test_law_derivatives);
  g_test_add_func("/friction/normal/hand", test_normal_hand);
  g_test_add_func("/friction/normal/pressure-factors", test_pressure_factors);
  g_test_add_func("/friction/joint/derivatives", test_joint_derivatives);
  g_test_add_func("/friction/joint/law-and-power", test_eval_law_and_power);
  g_test_add_func("/friction/joint/series-seam", test_eval_series_seam);
  g_test_add_func("/friction/params", test_params_and_kinds);
  return g_test_run();
}
