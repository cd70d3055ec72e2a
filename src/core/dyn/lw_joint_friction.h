/* lw_joint_friction.h: what dyn/lw_joint_friction.c offers the rest of the core (private to src/core). */
#ifndef LW_DYN_LW_JOINT_FRICTION_H
#define LW_DYN_LW_JOINT_FRICTION_H

#include "lw_internal.h"
#include "model/lw_friction.h"

/* a ball joint's slip rates: the relative angular velocity omega_2 -
 * omega_1 in its joint axes on body 2 (x, y, z), omega_b = 1/2 sum_a e_a x
 * de_a/dt over the body's unit vectors u, v, w, is G qd; its gradients G
 * (3 x 2 nqb, the element's blocks) at q (docs/friction.md sec. 8.6) */
void lw_joint_friction_spin_grad(const lw_model *m, const lw_jfric *f, const double *q, double *G);
/* friction element e at (q, qd, lam) (the rows' gradients in d->jac at
 * q): the kernel's result into out, its slips' gradients into G (nslip x
 * 2 nqb, the element's blocks), the constraint force of its joint's rows
 * on the reaction's body into g (nqb) and body 2's joint frame (origin,
 * x, y, z axes; z zero in a planar model) into frame: the numbers
 * lw_joint_friction_eval computes */
void lw_joint_friction_point(const lw_model *m, const lw_data *d, int e, const double *q, const double *qd,
                             const double *lam, double *G, double *g, double frame[4][3], lw_friction_out *out);
/* one element's point as lw_joint_friction_point gives it, kept */
typedef struct {
  double G[LW_FRICTION_MAXSLIP * 2 * LW_MAXQB], g[LW_MAXQB], frame[4][3];
  lw_friction_out out;
} lw_fric_point;
/* doubles for a key (a flag, q, qd, the multipliers: 1 + 2 nq + nc),
 * nfric points and a record of the elements' bodies (a flag, then three
 * an element) */
size_t lw_joint_friction_kept_size(const lw_model *m);
/* lw_joint_friction_eval, each element's point kept in keep (nfric) */
void lw_joint_friction_eval_keep(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                                 const double *lam, double *Q, double *vals, double cs, lw_fric_point *keep);
/* joint friction at (q, qd) with the multipliers lam
 * (nc; the rows' gradients in d->jac at q): Q += the generalized friction;
 * when vals != NULL also vals += cs times the symmetric positive part of
 * its damping -dQ/dqd (docs/friction.md sec. 8.4 (a)) */
void lw_joint_friction_eval(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                            const double *lam, double *Q, double *vals, double cs);
/* the power friction takes out at (q, qd, lam), summed (returned) and per
 * element into P (nfric; may be NULL); d->jac at q */
double lw_joint_friction_power(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                               const double *lam, double *P);
/* the work friction takes out along the displacement dq (nq) at the
 * forces of (q, qd, lam), per element into W (nfric): -Q^f . dq; d->jac at q */
void lw_joint_friction_work(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                            const double *lam, const double *dq, double *W);
/* the number of terms of lw_joint_friction_terms */
int lw_joint_friction_nterms(const lw_model *m);
/* the generalized friction's terms Q_k G_k (each element's slips k, its
 * coordinates' blocks, their coordinates) at (q, qd, lam) into T
 * (lw_joint_friction_nterms); d->jac at q */
void lw_joint_friction_terms(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                             const double *lam, double *T);
/* the work of the forces of terms T along dq per element into W (nfric):
 * the same sums, in the same order, as lw_joint_friction_work */
void lw_joint_friction_terms_work(const lw_model *m, const double *T, const double *dq, double *W);
/* the multipliers friction reads its reaction from: lam + kap, the one
 * consistent with the projected acceleration, when the data holds the
 * last step's kap (fric_kap_ok), into buf (nc); else lam itself */
const double *lw_joint_friction_lambda(const lw_model *m, const lw_data *d, const double *lam, double *buf);
/* friction element e's generalized friction on its first coordinate,
 * normal force and slip speed at (q, qd, lam) into o (3); d->jac at q */
void lw_joint_friction_state(const lw_model *m, const lw_data *d, int e, const double *q, const double *qd,
                             const double *lam, double *o);

#endif
