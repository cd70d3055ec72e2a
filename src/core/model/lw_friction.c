/* lw_friction.c: Brown-McPhee joint friction with the normal force from
 * the joint's reaction (seed 000 eqs. 1, 7a-f), and its exact derivatives.
 * docs/friction.md derives every expression below. */
#include "lw_friction.h"

#include <math.h>
#include <string.h>

/* pi^3/24: integral of |pressure| over the resultant for a parabolic
 * pressure p0 (1 - (2 theta / pi)^2) on a half bore (seed 000 sec. 2.2) */
#define LW_KP_BORE 1.2919281950124923
/* the same for a parabolic pressure in the polar angle on a half sphere:
 * 4 (pi^2 - 4 pi + 8) / (pi^2 + 4) */
#define LW_KP_BALL 1.5294549529656822

/* the parameters' names in the model format, in the order of
 * lw_friction_param */
static const char *const param_names[LW_FRICTION_NPARAMS] = {
  "mu_s", "mu_d", "v_t", "viscous", "length", "offset", "width", "radius", "preload", "eps"};

_Static_assert(LW_FRICTION_NPARAMS == LW_FP_N, "the public count of friction parameters is the kernel's");

const char *lw_friction_param_name(int k)
{
  return k >= 0 && k < LW_FRICTION_NPARAMS ? param_names[k] : NULL;
}

int lw_friction_param_index(const char *name)
{
  for (int k = 0; name && k < LW_FRICTION_NPARAMS; k++)
    if (!strcmp(param_names[k], name))
      return k;
  return -1;
}

void lw_friction_default_params(lw_friction_params *p, double h)
{
  memset(p, 0, sizeof *p);
  p->p[LW_FP_MU_S] = 0.4;
  p->p[LW_FP_MU_D] = 0.3;
  p->p[LW_FP_VT] = 10.0 * h;
  p->p[LW_FP_VISCOUS] = 0.0;
  p->p[LW_FP_LENGTH] = 0.05;
  p->p[LW_FP_OFFSET] = 0.0;
  p->p[LW_FP_WIDTH] = 0.02;
  p->p[LW_FP_RADIUS] = 0.01;
  p->p[LW_FP_PRELOAD] = 0.0;
  p->p[LW_FP_EPS] = 1e-3;
}

/* 1 when every parameter passes lw_friction_check_params: one pass
 * without branches, for the kernel's every evaluation */
static int params_ok(const lw_friction_params *p)
{
  const double *x = p->p;
  int ok = 1;
  for (int i = 0; i < LW_FP_N; i++)
    ok &= isfinite(x[i]) != 0;
  ok &= (x[LW_FP_VT] > 0) & (x[LW_FP_LENGTH] > 0) & (x[LW_FP_WIDTH] > 0) & (x[LW_FP_RADIUS] > 0) & (x[LW_FP_EPS] > 0);
  ok &= (x[LW_FP_MU_S] >= 0) & (x[LW_FP_MU_D] >= 0) & (x[LW_FP_VISCOUS] >= 0) & (x[LW_FP_PRELOAD] >= 0);
  return ok;
}

int lw_friction_check_params(const lw_friction_params *p)
{
  if (params_ok(p))
    return 0;
  static const int positive[] = {LW_FP_VT, LW_FP_LENGTH, LW_FP_WIDTH, LW_FP_RADIUS, LW_FP_EPS};
  static const int nonneg[] = {LW_FP_MU_S, LW_FP_MU_D, LW_FP_VISCOUS, LW_FP_PRELOAD};
  for (int i = 0; i < LW_FP_N; i++)
    if (!isfinite(p->p[i]))
      return -1 - i;
  for (size_t i = 0; i < sizeof positive / sizeof positive[0]; i++)
    if (!(p->p[positive[i]] > 0))
      return -1 - positive[i];
  for (size_t i = 0; i < sizeof nonneg / sizeof nonneg[0]; i++)
    if (!(p->p[nonneg[i]] >= 0))
      return -1 - nonneg[i];
  return 0;
}

int lw_friction_kind_of(lw_joint_type type, int planar)
{
  switch (type) {
  case LW_JOINT_REVOLUTE:
    return planar ? LW_FRICTION_PLANAR_REVOLUTE : LW_FRICTION_REVOLUTE;
  case LW_JOINT_PRISMATIC:
    return planar ? LW_FRICTION_PLANAR_PRISMATIC : LW_FRICTION_PRISMATIC;
  case LW_JOINT_CYLINDRICAL:
    return planar ? -1 : LW_FRICTION_CYLINDRICAL;
  case LW_JOINT_SPHERICAL:
    return planar ? -1 : LW_FRICTION_SPHERICAL;
  case LW_JOINT_PLANAR:
    return planar ? -1 : LW_FRICTION_PLANAR;
  default:
    return -1;
  }
}

int lw_friction_nslip(lw_friction_kind kind)
{
  switch (kind) {
  case LW_FRICTION_CYLINDRICAL:
    return 2;
  case LW_FRICTION_SPHERICAL:
  case LW_FRICTION_PLANAR:
    return 3;
  default:
    return 1;
  }
}

/* 1 when rate k of a kind is an angle (its slip is r_e times the rate) */
static int rate_is_angle(lw_friction_kind kind, int k)
{
  switch (kind) {
  case LW_FRICTION_PRISMATIC:
  case LW_FRICTION_PLANAR_PRISMATIC:
    return 0;
  case LW_FRICTION_CYLINDRICAL:
    return k == 1;
  case LW_FRICTION_PLANAR:
    return k == 2;
  default:
    return 1;
  }
}

double lw_cabs(double x, double eps, double *d_dx, double *d_deps)
{
  double r = sqrt(x * x + eps * eps);
  if (d_dx)
    *d_dx = x / r;
  if (d_deps)
    *d_deps = eps / r;
  return r;
}

/* ---- the law ---------------------------------------------------------- */

double lw_friction_mu(const lw_friction_params *p, double v, double *dmu_dv, double *dmu_dp)
{
  double ms = p->p[LW_FP_MU_S], md = p->p[LW_FP_MU_D], vt = p->p[LW_FP_VT];
  double x = v / vt;
  double th = tanh(4.0 * x), sech2 = 1.0 - th * th;
  double D = 0.25 * x * x + 0.75; /* (x/2)^2 + 3/4 */
  double r = x / (D * D);         /* peaks at 1 for x = 1 */
  double dr_dx = 1.0 / (D * D) - x * x / (D * D * D);
  double dmu_dx = 4.0 * md * sech2 + (ms - md) * dr_dx;
  if (dmu_dv)
    *dmu_dv = dmu_dx / vt;
  if (dmu_dp) {
    for (int i = 0; i < LW_FP_N; i++)
      dmu_dp[i] = 0;
    dmu_dp[LW_FP_MU_S] = r;
    dmu_dp[LW_FP_MU_D] = th - r;
    dmu_dp[LW_FP_VT] = -dmu_dx * x / vt;
  }
  return md * th + (ms - md) * r;
}

double lw_friction_law(const lw_friction_params *p, double v, double N, double *dF_dv, double *dF_dN,
                       double *dF_dp)
{
  double dmu_dv, dmu_dp[LW_FP_N];
  double mu = lw_friction_mu(p, v, &dmu_dv, dmu_dp);
  double cv = p->p[LW_FP_VISCOUS];
  if (dF_dv)
    *dF_dv = dmu_dv * N + cv;
  if (dF_dN)
    *dF_dN = mu;
  if (dF_dp) {
    for (int i = 0; i < LW_FP_N; i++)
      dF_dp[i] = dmu_dp[i] * N;
    dF_dp[LW_FP_VISCOUS] = v;
  }
  return mu * N + cv * v;
}

/* tanh(y)/y and (y sech^2 y - tanh y)/y^3, even in y, by their series
 * near 0 where the quotients lose digits (truncation below 1e-16 there) */
static void tanh_quotients(double y, double *T, double *U)
{
  double y2 = y * y;
  if (fabs(y) < 0.02) {
    *T = 1.0 + y2 * (-1.0 / 3.0 + y2 * (2.0 / 15.0 + y2 * (-17.0 / 315.0)));
    *U = -2.0 / 3.0 + y2 * (8.0 / 15.0 + y2 * (-34.0 / 105.0 + y2 * (496.0 / 2835.0)));
    return;
  }
  double th = tanh(y);
  *T = th / y;
  *U = (y * (1.0 - th * th) - th) / (y2 * y);
}

/* phi(s) = mu(s)/s, psi(s) = phi'(s)/s and dphi/dp for the slip speed
 * s >= 0 (dphi_dp NULL: not wanted): smooth and even in s, finite at s = 0.  With x = s/v_t,
 * y = 4x, D = x^2/4 + 3/4:
 *   phi = (4 mu_d T(y) + (mu_s - mu_d) / D^2) / v_t
 *   psi = (64 mu_d U(y) - (mu_s - mu_d) / D^3) / v_t^3 */
static void slip_ratio(const lw_friction_params *p, double s, double *phi, double *psi, double *dphi_dp)
{
  double ms = p->p[LW_FP_MU_S], md = p->p[LW_FP_MU_D], vt = p->p[LW_FP_VT];
  double x = s / vt, y = 4.0 * x, T, U;
  tanh_quotients(y, &T, &U);
  double D = 0.25 * x * x + 0.75, iD2 = 1.0 / (D * D);
  double g = 4.0 * md * T + (ms - md) * iD2; /* phi v_t: mu / x */
  *phi = g / vt;
  *psi = (64.0 * md * U - (ms - md) * iD2 / D) / (vt * vt * vt);
  if (!dphi_dp)
    return;
  for (int i = 0; i < LW_FP_N; i++)
    dphi_dp[i] = 0;
  dphi_dp[LW_FP_MU_S] = iD2 / vt;
  dphi_dp[LW_FP_MU_D] = (4.0 * T - iD2) / vt;
  /* phi = g(x)/v_t with x = s/v_t: dphi/dv_t = -(g + x g'(x)) / v_t^2 and
   * x g'(x) = x^2 (16 mu_d U(y) 4 - (mu_s - mu_d) / D^3) = psi v_t^3 x^2 */
  dphi_dp[LW_FP_VT] = -(g + x * x * (*psi) * vt * vt * vt) / (vt * vt);
}

/* ---- the normal force ----------------------------------------------- */

/* a quantity linear-or-not in the reaction and the parameters, with its
 * gradient: value, d/dreaction[6], d/dp[LW_FP_N] */
typedef struct {
  double v, dr[6], dp[LW_FP_N];
} lw_grad;

static void grad_zero(lw_grad *g)
{
  memset(g, 0, sizeof *g);
}

/* g zeroed but for its parameters' gradient when !dp (left unset: the
 * evaluation without the parameters' derivatives reads none) */
static void grad_zero_dp(lw_grad *g, int dp)
{
  if (dp) {
    grad_zero(g);
    return;
  }
  g->v = 0.0;
  memset(g->dr, 0, sizeof g->dr);
}

/* acc += k * |g|_eps (scalar) */
static void add_cabs(lw_grad *acc, double k, const lw_grad *g, double eps, int dp)
{
  double dx, de;
  acc->v += k * lw_cabs(g->v, eps, &dx, &de);
  for (int i = 0; i < 6; i++)
    acc->dr[i] += k * dx * g->dr[i];
  if (!dp)
    return;
  for (int i = 0; i < LW_FP_N; i++)
    acc->dp[i] += k * dx * g->dp[i];
  acc->dp[LW_FP_EPS] += k * de;
}

/* acc += k * sqrt(g0^2 + g1^2 (+ g2^2) + eps^2): n of the three */
static void add_norm(lw_grad *acc, double k, const lw_grad *g, int n, double eps, int dp)
{
  double r2 = eps * eps;
  for (int j = 0; j < n; j++)
    r2 += g[j].v * g[j].v;
  double r = sqrt(r2);
  acc->v += k * r;
  for (int j = 0; j < n; j++) {
    double c = k * g[j].v / r;
    for (int i = 0; i < 6; i++)
      acc->dr[i] += c * g[j].dr[i];
    for (int i = 0; dp && i < LW_FP_N; i++)
      acc->dp[i] += c * g[j].dp[i];
  }
  if (dp)
    acc->dp[LW_FP_EPS] += k * eps / r;
}

/* a reaction component as a gradient quantity */
static lw_grad reaction_component(const double reaction[6], int i)
{
  lw_grad g;
  grad_zero(&g);
  g.v = reaction[i];
  g.dr[i] = 1.0;
  return g;
}

/* Two bearing points on the axis at z1 = c - a/2 and z2 = c + a/2 that
 * balance a transverse force F and the moment M it pairs with (sign s:
 * the moment of a force f at z is s z f):  f1 + f2 = -F and
 * s (z1 f1 + z2 f2) = -M, so
 *   f1 = (s M - z2 F) / a,   f2 = (-s M + z1 F) / a
 * (seed 000 eqs. 7a-d when c = a/2, the moment about bearing end 1). */
static void bearing_split(const lw_friction_params *p, const double reaction[6], int iF, int iM, double s,
                          lw_grad *f1, lw_grad *f2, int dp)
{
  double a = p->p[LW_FP_LENGTH], c = p->p[LW_FP_OFFSET];
  double F = reaction[iF], M = s * reaction[iM];
  double z1 = c - 0.5 * a, z2 = c + 0.5 * a;
  grad_zero_dp(f1, dp);
  grad_zero_dp(f2, dp);
  f1->v = (M - z2 * F) / a;
  f2->v = (-M + z1 * F) / a;
  f1->dr[iF] = -z2 / a;
  f1->dr[iM] = s / a;
  f2->dr[iF] = z1 / a;
  f2->dr[iM] = -s / a;
  if (!dp)
    return;
  /* d/da: f1 = M/a - c F/a - F/2, f2 = -M/a + c F/a - F/2 */
  f1->dp[LW_FP_LENGTH] = (-M + c * F) / (a * a);
  f2->dp[LW_FP_LENGTH] = (M - c * F) / (a * a);
  f1->dp[LW_FP_OFFSET] = -F / a;
  f2->dp[LW_FP_OFFSET] = F / a;
}

/* radial bearing load of a bore of length a: the two points' transverse
 * forces (x from F_x and T_y, y from F_y and T_x, seed 7a-d) */
static void bore_points(const lw_friction_params *p, const double reaction[6], lw_grad f1[2], lw_grad f2[2],
                        int dp)
{
  bearing_split(p, reaction, 0, 4, 1.0, &f1[0], &f2[0], dp);
  bearing_split(p, reaction, 1, 3, -1.0, &f1[1], &f2[1], dp);
}

/* a couple of opposite normal forces d apart taking the moment M:
 * 2 |M / d|_eps, d a parameter */
static void add_couple(lw_grad *acc, const lw_friction_params *p, const double reaction[6], int iM, int id, int dp)
{
  double d = p->p[id];
  lw_grad f = reaction_component(reaction, iM);
  f.v /= d;
  f.dr[iM] = 1.0 / d;
  f.dp[id] = -reaction[iM] / (d * d);
  add_cabs(acc, 2.0, &f, p->p[LW_FP_EPS], dp);
}

static void normal_spatial(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                           lw_grad *N, int dp)
{
  double eps = p->p[LW_FP_EPS];
  lw_grad f1[2], f2[2];
  switch (kind) {
  case LW_FRICTION_REVOLUTE:
  case LW_FRICTION_CYLINDRICAL: {
    bore_points(p, reaction, f1, f2, dp);
    add_norm(N, LW_KP_BORE, f1, 2, eps, dp);
    add_norm(N, LW_KP_BORE, f2, 2, eps, dp);
    if (kind == LW_FRICTION_REVOLUTE) { /* the thrust on the collar, same r_e */
      lw_grad fz = reaction_component(reaction, 2);
      add_cabs(N, 1.0, &fz, eps, dp);
    }
    break;
  }
  case LW_FRICTION_PRISMATIC:
    /* flat faces: each component on its own (seed 000 sec. 2.2 item 3) */
    bore_points(p, reaction, f1, f2, dp);
    for (int j = 0; j < 2; j++) {
      add_cabs(N, 1.0, &f1[j], eps, dp);
      add_cabs(N, 1.0, &f2[j], eps, dp);
    }
    /* torsion: 2 |T_z / (2 b)| = 2 |f3| (seed 7f) */
    {
      lw_grad f3 = reaction_component(reaction, 5);
      double b = p->p[LW_FP_WIDTH];
      f3.v /= 2.0 * b;
      f3.dr[5] = 0.5 / b;
      f3.dp[LW_FP_WIDTH] = -reaction[5] / (2.0 * b * b);
      add_cabs(N, 2.0, &f3, eps, dp);
    }
    break;
  case LW_FRICTION_SPHERICAL: {
    lw_grad F[3];
    for (int j = 0; j < 3; j++)
      F[j] = reaction_component(reaction, j);
    add_norm(N, LW_KP_BALL, F, 3, eps, dp);
    break;
  }
  case LW_FRICTION_PLANAR: {
    lw_grad fz = reaction_component(reaction, 2);
    add_cabs(N, 1.0, &fz, eps, dp);
    add_couple(N, p, reaction, 3, LW_FP_WIDTH, dp);  /* T_x: edges b apart along y */
    add_couple(N, p, reaction, 4, LW_FP_LENGTH, dp); /* T_y: edges a apart along x */
    break;
  }
  default:
    break;
  }
}

static void normal_planar(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                          lw_grad *N, int dp)
{
  double eps = p->p[LW_FP_EPS];
  if (kind == LW_FRICTION_PLANAR_REVOLUTE) {
    lw_grad F[2] = {reaction_component(reaction, 0), reaction_component(reaction, 1)};
    add_norm(N, LW_KP_BORE, F, 2, eps, dp);
  } else {
    /* slider along x: transverse F_y and the moment T_z on two shoes
     * (the moment of f at x about z is +x f) */
    lw_grad f1, f2;
    bearing_split(p, reaction, 1, 5, 1.0, &f1, &f2, dp);
    add_cabs(N, 1.0, &f1, eps, dp);
    add_cabs(N, 1.0, &f2, eps, dp);
  }
}

/* N with its gradient in the reaction into dN_dreaction and, when
 * dN_dp != NULL, in the parameters */
static double normal_grad(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                          double *dN_dreaction, double *dN_dp)
{
  lw_grad N;
  int dp = dN_dp != NULL;
  grad_zero_dp(&N, dp);
  if (kind == LW_FRICTION_PLANAR_REVOLUTE || kind == LW_FRICTION_PLANAR_PRISMATIC)
    normal_planar(p, kind, reaction, &N, dp);
  else
    normal_spatial(p, kind, reaction, &N, dp);
  N.v += p->p[LW_FP_PRELOAD];
  if (dp)
    N.dp[LW_FP_PRELOAD] += 1.0;
  if (dN_dreaction)
    memcpy(dN_dreaction, N.dr, sizeof N.dr);
  if (dN_dp)
    memcpy(dN_dp, N.dp, sizeof N.dp);
  return N.v;
}

double lw_friction_normal(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                          double *dN_dreaction, double *dN_dp)
{
  return normal_grad(p, kind, reaction, dN_dreaction, dN_dp);
}

/* ---- the generalized friction --------------------------------------- */

/* Q_k = -w_k G u_k, G = N phi(s) + c_v, u_k = w_k rate_k:
 *   dQ_k/drate_j = -w_k (G delta_kj + N psi u_k u_j) w_j
 *   dQ_k/dN      = -w_k phi u_k
 *   dQ_k/dp      = -w_k N dphi/dp u_k        (mu_s, mu_d, v_t)
 *   dQ_k/dc_v    = -w_k u_k
 *   dQ_k/dr_e    = -(dw_k G u_k + w_k G du_k + w_k N psi u_k (u . du))
 * with dw_k = du_k / rate_k = 1 for an angle, 0 for a length. */
static void generalized_friction(const lw_friction_params *p, lw_friction_kind kind, const double *rate,
                                 lw_friction_out *out, int dp)
{
  int n = out->nslip;
  double w[LW_FRICTION_MAXSLIP], dw[LW_FRICTION_MAXSLIP], u[LW_FRICTION_MAXSLIP];
  double s2 = 0, udu = 0;
  for (int k = 0; k < n; k++) {
    dw[k] = rate_is_angle(kind, k) ? 1.0 : 0.0;
    w[k] = dw[k] ? p->p[LW_FP_RADIUS] : 1.0;
    u[k] = w[k] * rate[k];
    s2 += u[k] * u[k];
    udu += u[k] * dw[k] * rate[k];
  }
  double s = sqrt(s2), phi, psi, dphi_dp[LW_FP_N];
  slip_ratio(p, s, &phi, &psi, dp ? dphi_dp : NULL);
  double N = out->N, G = N * phi + p->p[LW_FP_VISCOUS];
  out->slip_speed = s;
  out->F = G * s;
  out->G = G;
  out->psi = psi;
  for (int k = 0; k < n; k++) {
    out->slip_w[k] = w[k];
    out->slip_u[k] = u[k];
  }
  for (int k = 0; k < n; k++) {
    out->Q[k] = -w[k] * G * u[k];
    for (int j = 0; j < n; j++)
      out->dQ_drate[k][j] = -w[k] * ((k == j ? G : 0.0) + N * psi * u[k] * u[j]) * w[j];
    double dQ_dN = -w[k] * phi * u[k];
    for (int i = 0; i < 6; i++)
      out->dQ_dreaction[k][i] = dQ_dN * out->dN_dreaction[i];
    if (!dp)
      continue;
    for (int i = 0; i < LW_FP_N; i++)
      out->dQ_dp[k][i] = dQ_dN * out->dN_dp[i] - w[k] * N * dphi_dp[i] * u[k];
    out->dQ_dp[k][LW_FP_VISCOUS] += -w[k] * u[k];
    out->dQ_dp[k][LW_FP_RADIUS] +=
        -(dw[k] * G * u[k] + w[k] * G * dw[k] * rate[k] + w[k] * N * psi * u[k] * udu);
  }
}

/* lw_friction_eval, the parameters' derivatives (dN_dp, dQ_dp) only
 * when dp */
static int friction_eval(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                         const double *rate, lw_friction_out *out, int dp)
{
  memset(out, 0, sizeof *out);
  if ((int)kind < 0 || kind >= LW_FRICTION_NKINDS || lw_friction_check_params(p))
    return LW_ERR_MODEL;
  out->nslip = lw_friction_nslip(kind);
  out->N = normal_grad(p, kind, reaction, out->dN_dreaction, dp ? out->dN_dp : NULL);
  generalized_friction(p, kind, rate, out, dp);
  return LW_OK;
}

int lw_friction_eval(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                     const double *rate, lw_friction_out *out)
{
  return friction_eval(p, kind, reaction, rate, out, 1);
}

int lw_friction_eval_state(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                           const double *rate, lw_friction_out *out)
{
  return friction_eval(p, kind, reaction, rate, out, 0);
}
