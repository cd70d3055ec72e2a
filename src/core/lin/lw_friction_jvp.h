/* lw_friction_jvp.h: what lin/lw_friction_jvp.c offers the rest of the core (private to src/core). */
#ifndef LW_LIN_LW_FRICTION_JVP_H
#define LW_LIN_LW_FRICTION_JVP_H

#include "lw_internal.h"
#include "model/lw_friction.h"

/* Friction element e's generalized friction Q^f(q, v, l) (docs/friction.md
 * sec. 8.2) at p (p->q, the slip's velocity p->v, the multipliers it reads
 * p->l[0], nc) and its directional derivative along dir (dir->dq, dir->dv,
 * dir->dl, each NULL for 0) and the parameter tangent tg (NULL: none; its
 * friction parameters, frame, rows and coordinates): Q (nq) += Q^f and
 * dQ (nq) += dQ^f, either may be NULL.  Exact (sec. 8.5). */
void lw_joint_friction_jvp(const lw_model *m, const lw_tangent *tg, int e, const lw_lin_point *p,
                           const lw_lin_dir *dir, double *Q, double *dQ);

/* A point of element e's friction prepared for the columns of the step's
 * linearization (directions without a parameter tangent): its rows'
 * gradients once for the directions that do not move q (the multipliers'
 * and the velocity's), the kernel again only where its reaction or rates
 * differ (bit for bit) from the last direction's. */
#define LW_FRIC_PT_MAXROWS 8
#define LW_FRIC_PT_SC (6 + 4 * LW_MAXQB) /* doubles of a row's scalar (lw_kind_jvp.h's sc) */
typedef struct {
  int e;
  double rows[LW_FRIC_PT_MAXROWS * LW_FRIC_PT_SC]; /* the joint's rows' scalars at the point */
  double cs[LW_FRICTION_MAXSLIP * LW_FRIC_PT_SC];  /* the coordinates' scalars along no velocity */
  int have_cs;
  double R[6], rate[LW_FRICTION_MAXSLIP];          /* the kernel's last arguments, */
  int have_out;
  lw_friction_out out;                             /* and its result */
} lw_fric_pt;
/* pt prepared at p for element e; 0, or -1 when the joint has more rows
 * than LW_FRIC_PT_MAXROWS (lw_joint_friction_jvp then) */
int lw_joint_friction_prepare(const lw_model *m, int e, const lw_lin_point *p, lw_fric_pt *pt);
/* lw_joint_friction_jvp(m, NULL, pt->e, p, dir, NULL, dQ) along dir (no
 * tangent) at the point pt was prepared at: the same numbers (the rows
 * evaluated again along a dq, the kernel only where its arguments differ
 * from the last direction's) */
void lw_joint_friction_jvp_at(const lw_model *m, const lw_lin_point *p, lw_fric_pt *pt, const lw_lin_dir *dir,
                              double *dQ);

/* Element e's derivatives at p (p->q, the slip's velocity p->v, the
 * multipliers p->l[0]) as dense local matrices, computed from one
 * evaluation of its kernel: rows (nout = its blocks f->blk times nqb, in
 * their order) by columns, column-major,
 *   Fq (nout x nb nqb): along q at the coordinates of blk[0..nb) (the
 *     element's bodies, lw_joint_friction_bodies), body after body;
 *   Fv (nout x nb nqb): along the slip's velocity at the same;
 *   Fl (nout x nrow): along the multipliers of the joint's rows.
 * The same derivatives as lw_joint_friction_jvp's directions, without its
 * kernel, constraint force and frame at each; the rows' and the
 * coordinates' gradients move along a q column only where they touch its
 * body.  u (nq) zero on entry and on return; fp (NULL: not wanted) the
 * point's parameter derivatives.  0, or -1 when the joint has
 * more rows than LW_FRIC_PT_MAXROWS or the bodies differ in size
 * (lw_joint_friction_jvp then). */
/* what a friction parameter's column needs of the point (fp of
 * lw_joint_friction_jac): the slips' gradients G_k (over the element's
 * blocks) and the kernel's dQ_k/dp */
typedef struct lw_fric_dp {
  double G[LW_FRICTION_MAXSLIP][2 * LW_MAXQB];
  double dQ_dp[LW_FRICTION_MAXSLIP][LW_FP_N];
} lw_fric_dp;
int lw_joint_friction_jac(const lw_model *m, int e, const lw_lin_point *p, const int *blk, int nb, double *u,
                          double *Fq, double *Fv, double *Fl, lw_fric_dp *fp);

/* the bodies element e's generalized friction depends on (its joint's two,
 * less the ground) into blk (2); returns how many */
int lw_joint_friction_bodies(const lw_model *m, int e, int *blk);

#endif
