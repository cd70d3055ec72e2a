/* lw_friction.h: joint friction whose normal force comes from the joint's
 * own reaction (seed 000 eqs. 1, 6, 7a-f; Brown-McPhee law, Haug's
 * decomposition of the reaction into bearing forces).  A self-contained
 * kernel: from a joint's reaction force and moment in its joint frame and
 * the rates of its coordinates, the generalized friction forces on those
 * coordinates and their exact derivatives with respect to the rates, the
 * reaction and every parameter.  docs/friction.md derives every formula
 * and says how the kernel enters the ALI3-P step and the sensitivities.
 *
 * Units: SI.  Forces N, moments N m, lengths m, velocities m/s, angular
 * rates rad/s.  Rotational slips are turned into surface speeds by the
 * effective radius r_e (v = r_e omega), so one law serves every joint. */
#ifndef LW_FRICTION_H
#define LW_FRICTION_H

#include "linkwright.h"

/* The joints friction is defined for.  The spatial universal and fixed
 * joints have none (a universal joint's two pins would each need their
 * own reaction; a fixed joint does not slide). */
typedef enum {
  LW_FRICTION_REVOLUTE,         /* slip: r_e * angle rate */
  LW_FRICTION_PRISMATIC,        /* slip: axial rate z1.D' */
  LW_FRICTION_CYLINDRICAL,      /* slip: (axial rate, r_e * angle rate) */
  LW_FRICTION_SPHERICAL,        /* slip: r_e * relative angular velocity (3, joint axes) */
  LW_FRICTION_PLANAR,           /* slip: (x1.D', y1.D', r_e * angle rate) */
  LW_FRICTION_PLANAR_REVOLUTE,  /* planar model: r_e * angle rate */
  LW_FRICTION_PLANAR_PRISMATIC, /* planar model: axial rate x1.D' */
  LW_FRICTION_NKINDS
} lw_friction_kind;

/* Parameters, in this order wherever a derivative is indexed by one. */
typedef enum {
  LW_FP_MU_S,    /* static coefficient (peak of mu at |v| = v_t), >= 0 */
  LW_FP_MU_D,    /* dynamic coefficient (mu as |v| >> v_t), >= 0 */
  LW_FP_VT,      /* transition velocity v_t (m/s), > 0 */
  LW_FP_VISCOUS, /* viscous coefficient c_v (N s/m), load-independent, >= 0 */
  LW_FP_LENGTH,  /* bearing length a (m) along the axis, > 0; planar joint: pad length along x1 */
  LW_FP_OFFSET,  /* bearing centre c (m) on the axis from the joint origin (0: centred) */
  LW_FP_WIDTH,   /* prismatic: half-width b (m), axis to the faces that take torsion;
                    planar joint: pad width along y1; > 0 */
  LW_FP_RADIUS,  /* effective radius r_e (m) of rotational slip, > 0 */
  LW_FP_PRELOAD, /* constant normal force N_0 (N) added to the reaction's, >= 0 */
  LW_FP_EPS,     /* smoothing force eps (N) of |x|_eps = sqrt(x^2 + eps^2), > 0 */
  LW_FP_N
} lw_friction_param;

typedef struct {
  double p[LW_FP_N]; /* indexed by lw_friction_param */
} lw_friction_params;

/* Defaults for a step h (s): mu_s 0.4, mu_d 0.3, v_t = 10 h x 1 m/s^2
 * (the seed's "ten times the step": what 1 m/s^2 builds in ten steps),
 * no viscous term, a = 0.05 m centred, b = 0.02 m, r_e = 0.01 m, no
 * preload, eps = 1e-3 N. */
void lw_friction_default_params(lw_friction_params *p, double h);

/* 0 when every parameter is in its range; otherwise -1 - the index of
 * the first one out of range. */
int lw_friction_check_params(const lw_friction_params *p);

/* The friction kind of a joint type (planar: a planar model), or -1 for
 * the joints without friction (universal, fixed). */
int lw_friction_kind_of(lw_joint_type type, int planar);

/* Number of slip components (joint rates) of a kind: 1, 2 or 3. */
int lw_friction_nslip(lw_friction_kind kind);

/* ---- the pieces, each with its exact derivatives ---------------------- */

/* |x|_eps = sqrt(x^2 + eps^2); d/dx and d/deps (either pointer may be NULL). */
double lw_cabs(double x, double eps, double *d_dx, double *d_deps);

/* Brown-McPhee coefficient (seed 000 eq. 1 without F_n):
 *   mu(v) = mu_d tanh(4 v / v_t) + (mu_s - mu_d) (v / v_t) / ((v / (2 v_t))^2 + 3/4)^2
 * odd in v.  dmu_dv and dmu_dp[LW_FP_N] (zero but for MU_S, MU_D, VT) may
 * be NULL. */
double lw_friction_mu(const lw_friction_params *p, double v, double *dmu_dv, double *dmu_dp);

/* The friction law on one slip direction: F = mu(v) N + c_v v (the
 * viscous term does not scale with the load), with dF/dv, dF/dN and
 * dF/dp[LW_FP_N] (the law's parameters only; any pointer may be NULL). */
double lw_friction_law(const lw_friction_params *p, double v, double N, double *dF_dv, double *dF_dN,
                       double *dF_dp);

/* Effective normal force N of a joint from its reaction: reaction =
 * [F_x F_y F_z T_x T_y T_z], the force and the moment about the joint
 * origin that the joint exerts on either body, in joint axes (z = the
 * axis; planar models: x = the sliding axis, T_z the moment about the
 * normal, F_z T_x T_y unused).  N is even in the reaction, so the sign
 * convention does not matter.  dN_dreaction[6] and dN_dp[LW_FP_N] may be
 * NULL.  Includes the preload. */
double lw_friction_normal(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                          double *dN_dreaction, double *dN_dp);

/* ---- the whole kernel -------------------------------------------------- */

#define LW_FRICTION_MAXSLIP 3

typedef struct {
  int nslip;                                 /* 1, 2 or 3: the rates' count */
  double N;                                  /* effective normal force (N) */
  double dN_dreaction[6];
  double dN_dp[LW_FP_N];
  double slip_speed;                         /* |u| (m/s), u the slip vector */
  double F;                                  /* friction force at the contact, along -u:
                                                N mu(s) + c_v s (N) */
  double slip_w[LW_FRICTION_MAXSLIP];        /* w_k: r_e for an angle, 1 for a length */
  double slip_u[LW_FRICTION_MAXSLIP];        /* the slip u_k = w_k rate_k */
  double G, psi;                             /* G = N phi(s) + c_v and psi = phi'(s) / s,
                                                phi = mu(s) / s: dQ_drate = -W (G I + N psi u u^T) W */
  double Q[LW_FRICTION_MAXSLIP];             /* generalized friction on each rate's
                                                coordinate (N or N m), opposing it */
  double dQ_drate[LW_FRICTION_MAXSLIP][LW_FRICTION_MAXSLIP];
  double dQ_dreaction[LW_FRICTION_MAXSLIP][6];
  double dQ_dp[LW_FRICTION_MAXSLIP][LW_FP_N];
} lw_friction_out;

/* Generalized friction of one joint.  rate: the nslip joint-coordinate
 * rates in Linkwright's coordinate order (revolute: angle; prismatic:
 * z1.D; cylindrical: z1.D, angle; planar: x1.D, y1.D, angle; planar
 * revolute: angle; planar prismatic: x1.D), spherical: the relative
 * angular velocity of body 2 in joint axes.  Slip u_k = w_k rate_k with
 * w_k = r_e for an angle, 1 for a length; s = |u|;
 *   Q_k = -w_k (N mu(s) / s + c_v) u_k
 * (mu(s)/s taken by its limit at s = 0), so the power sum Q_k rate_k =
 * -(N mu(s) s + c_v s^2) <= 0 and a 1-slip joint gets Q = -w mu(v) N -
 * w c_v v.  Returns LW_OK, or LW_ERR_MODEL for an unknown kind or a
 * parameter out of range (lw_friction_check_params names it); out is
 * then zeroed. */
int lw_friction_eval(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                     const double *rate, lw_friction_out *out);
/* lw_friction_eval without the parameters' derivatives: dN_dp and dQ_dp
 * left zero, every other field the same numbers (the step's use) */
int lw_friction_eval_state(const lw_friction_params *p, lw_friction_kind kind, const double reaction[6],
                           const double *rate, lw_friction_out *out);

#endif
