/* lw_ref_idas_sens.h: gradients of a model's objectives by SUNDIALS IDAS
 * forward and adjoint sensitivity analysis, as an independent check of (and
 * a peer to measure against) the library's own sensitivities.
 *
 * The model is the index-1 DAE of lw_ref_idas.h, y = [q; v; lam]:
 *     F(t, y, y', p) = [ q' - v
 *                        M v' + J^T lam - Q(q, v, t)
 *                        J v' + gamma(q, v, t) ] = 0
 * with J = Phi_q, and the objective is that of the model description,
 *     psi(p) = int_0^T g(y, y') dt + g_T(y(T), y'(T)),
 * its integral terms integrated as IDAS quadratures (exactly, up to the
 * tolerance, where the library sums them by the trapezoidal rule over its
 * steps: the two agree as the library's step goes to zero) and its final
 * terms at T.  Accelerations are v', reaction forces come from lam.
 *
 * Only the library's public interface is used (linkwright.h): the residual
 * from lw_eval_dense and lw_eval_mass_dense, the objective from lw_outputs
 * and lw_objective_terms, the initial state from lw_initialize.  Every
 * derivative is a central difference of those values, independent of the
 * library's own derivative code (steps and accuracy in lw_ref_idas_sens.c):
 * Jacobians with respect to the state one coordinate at a time or along a
 * direction, derivatives with respect to a parameter (the initial state's
 * among them) from two models compiled with the parameter at p +- h.
 *   forward: IDAS forward sensitivities s_j = dy/dp_j with the sensitivity
 *     residual F_y s_j + F_y' s_j' + dF/dp_j; the objective and its
 *     derivatives as quadratures (staggered corrector, the sensitivities in
 *     the error test);
 *   adjoint: IDAS checkpointed adjoint.  With lambda = [a; b; c] the adjoint
 *     of F solves (lambda^T F_y')' - lambda^T F_y = -g_y; written in a and
 *     u = M b + J^T c (the components lambda^T F_y') it is
 *       a' = Dq^T [b; c] - g_q,   u' = -a + Dv^T [b; c] - g_v,
 *       [M J^T; J 0] [b; c] = [u; 0]   (c algebraic: c = C u),
 *     Dq, Dv the derivatives of the last two rows of F with respect to q
 *     and v, taken at v' and lam solved from q and v (not IDAS's
 *     interpolated multipliers).  An objective reading v' or lam has them
 *     eliminated the same way.  Final values a(T) = dg_T/dq, u(T) = dg_T/dv;
 *     the gradient is the backward quadrature of dg/dp - [b; c]^T dF/dp,
 *     plus a(0) dq0/dp + u(0) dv0/dp, plus dg_T/dp.
 * In every problem the multipliers (lam, their sensitivities, the adjoint c)
 * are left out of the error test (IDASetId, IDASetSuppressAlg): they are
 * algebraic and follow q and v.  Dense direct linear solvers with
 * difference Jacobians; steps no longer than the knot interval of the
 * model's splines.
 *
 * Models whose controllers have integral action are refused (the index-1
 * form has no state for the integral). */
#ifndef LW_REF_IDAS_SENS_H
#define LW_REF_IDAS_SENS_H

#include "linkwright.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LW_REF_VALUE,   /* the objective only (the simulation) */
  LW_REF_FORWARD, /* IDAS forward sensitivity analysis */
  LW_REF_ADJOINT, /* IDAS adjoint sensitivity analysis */
} lw_ref_sens_method;

typedef struct {
  lw_ref_sens_method method;
  double rtol, atol;    /* every IDAS error test: q, v, their sensitivities, the
                           adjoint's a and u, and the quadratures */
  int objective;        /* index into the description's objectives */
  int nparams;
  const int *params;    /* indices into the description's parameters */
  int checkpoint_steps; /* adjoint: steps between checkpoints (0: 200) */
} lw_ref_sens_options;

typedef struct {
  long steps;           /* forward problem: IDAS steps */
  long steps_b;         /* backward problem (adjoint) */
  long nres;            /* residual evaluations of the forward problem */
  long nres_sens;       /* sensitivity residual evaluations (forward) */
  long nres_b;          /* backward residual evaluations (adjoint) */
  long njac, njac_b;    /* Jacobian evaluations */
  int ncheck;           /* checkpoints (adjoint) */
  double wall_time_s;   /* the whole computation (CLOCK_MONOTONIC) */
  double phi_end;       /* max |Phi| at T: the index-1 form's drift */
} lw_ref_sens_stats;

/* The value of objective opt->objective of m (*value) and, for FORWARD and
 * ADJOINT, its gradient with respect to opt->params (gradient, nparams
 * entries; may be NULL for VALUE), over a run from t = 0 to the model's
 * solver.t_end.  stats may be NULL.  Returns 0, or nonzero with a message
 * in msg. */
int lw_ref_idas_sens(const lw_model *m, const lw_ref_sens_options *opt, double *value, double *gradient,
                     lw_ref_sens_stats *stats, char *msg, int msglen);

#ifdef __cplusplus
}
#endif
#endif
