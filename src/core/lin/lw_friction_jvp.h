/* lw_friction_jvp.h: what lin/lw_friction_jvp.c offers the rest of the core (private to src/core). */
#ifndef LW_LIN_LW_FRICTION_JVP_H
#define LW_LIN_LW_FRICTION_JVP_H

#include "lw_internal.h"

/* Friction element e's generalized friction Q^f(q, v, l) (docs/friction.md
 * sec. 8.2) at p (p->q, the slip's velocity p->v, the multipliers it reads
 * p->l[0], nc) and its directional derivative along dir (dir->dq, dir->dv,
 * dir->dl, each NULL for 0) and the parameter tangent tg (NULL: none; its
 * friction parameters, frame, rows and coordinates): Q (nq) += Q^f and
 * dQ (nq) += dQ^f, either may be NULL.  Exact (sec. 8.5). */
void lw_joint_friction_jvp(const lw_model *m, const lw_tangent *tg, int e, const lw_lin_point *p,
                           const lw_lin_dir *dir, double *Q, double *dQ);

/* the bodies element e's generalized friction depends on (its joint's two,
 * less the ground) into blk (2); returns how many */
int lw_joint_friction_bodies(const lw_model *m, int e, int *blk);

#endif
