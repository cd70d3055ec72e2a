/* ali3p_friction.h: what integ/ali3p_friction.c offers the ALI3-P step (private to src/core). */
#ifndef LW_INTEG_ALI3P_FRICTION_H
#define LW_INTEG_ALI3P_FRICTION_H

#include "lw_internal.h"

/* 1 when the step's Newton matrix takes joint friction's exact tangent
 * (docs/friction.md sec. 8.4 (b)): a dense model with friction */
int lw_ali3p_fric_exact(const lw_model *m);
/* the step residual's joint friction (lw_joint_friction_eval at d->q,
 * d->qd and lam into d->Q, vals, cs), each element's point kept for
 * lw_ali3p_fric_factor at the same iterate (in d->fric_lu after the LU's
 * nq^2 + 3 nq + nc: lw_joint_friction_kept_size doubles) */
void lw_ali3p_fric_eval(const lw_model *m, lw_data *d, const double *lam, double *vals, double cs);
/* the exact Newton matrix of the step with friction: the tangent without
 * friction in vals (the upper pattern of m, M + h/2 C + h^2/4 (K + alpha
 * J^T J)) less h^2/4 (dQ^f/dq + 2/h dQ^f/dqd + alpha dQ^f/dl J) at the
 * iterate (d->q, d->qd; the rows' gradients in d->jac) and the multipliers
 * friction reads, lam; LU-factored in d->fric_lu.  Without damping the
 * dQ^f/dqd term is left out (vals then holds its symmetric positive part,
 * sec. 8.4 (a)).  Returns 0, or -1 when it is singular. */
int lw_ali3p_fric_factor(const lw_model *m, lw_data *d, const double *vals, const double *lam, double alpha,
                         double h, double t, int damping);
/* lw_ali3p_fric_factor's matrix, unfactored, into A (nq x nq,
 * column-major): friction's columns from the structure of dQ^f where the
 * element has it (local = 0, the step's), else, or with local = 1 for
 * all, from lw_joint_friction_jac's local matrices */
void lw_ali3p_fric_matrix(const lw_model *m, lw_data *d, const double *vals, const double *lam, double alpha,
                          double h, double t, int damping, int local, double *A);
/* x = A^-1 x with the factors of lw_ali3p_fric_factor */
void lw_ali3p_fric_solve(const lw_model *m, const lw_data *d, double *x);

#endif
