/* lw_kind.c: the registry of force kinds, and the linearization that any
 * kind can have from its Jacobian-vector product. */
#include "lw_kind.h"
#include "lw_jvp_internal.h"

#include <string.h>

static const lw_force_kind *const force_kinds[LW_FORCE_NTYPES] = {
  [LW_FORCE_SPRING_DAMPER] = &lw_kind_spring_damper,
  [LW_FORCE_JOINT_SPRING_DAMPER] = &lw_kind_joint_spring_damper,
  [LW_FORCE_FORCE] = &lw_kind_point_force,
  [LW_FORCE_TORQUE] = &lw_kind_torque,
  [LW_FORCE_PID] = &lw_kind_pid,
  [LW_FORCE_STATE_FEEDBACK] = &lw_kind_state_feedback,
};

const lw_force_kind *lw_force_kind_of(lw_force_type t)
{
  if ((unsigned)t >= LW_FORCE_NTYPES)
    return NULL;
  return force_kinds[t];
}

void lw_force_lin_columns(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                          double cv, const lw_bmat *KC, const lw_bmat *C)
{
  const lw_force *f = &m->forces[n];
  const lw_force_kind *kind = lw_force_kind_of(f->type);
  int nqb = m->nqb;
  double *e = d->r, *ev = d->tmp, *dQ = d->dq;
  const int *blk;
  int nblk = kind->blocks(m, f, &blk);
  for (int i = 0; i < nblk * nqb; i++) {
    int gi = blk[lw_qb_div(i, nqb)] * nqb + lw_qb_mod(i, nqb);
    for (int pass = 0; pass < 2; pass++) {
      /* pass 0: dq = e, dv = cv e (KC); pass 1: dv = e (C) */
      const lw_bmat *T = pass == 0 ? KC : C;
      if (!T)
        continue;
      e[gi] = pass == 0 ? 1.0 : 0.0;
      ev[gi] = pass == 0 ? cv : 1.0;
      lw_lin_dir dir = {pass == 0 ? e : NULL, ev, NULL, NULL, NULL, NULL, blk[i / nqb]};
      lw_lin_dir df = dir;
      df.dqd = ev;
      kind->jvp(m, d, n, p, pf, &dir, &df, 1, dQ);
      for (int k = 0; k < nblk; k++)
        for (int l = 0; l < nqb; l++) {
          int g = blk[k] * nqb + l;
          lw_bm_add(m, T, g, gi, -dQ[g]);
          dQ[g] = 0.0;
        }
      e[gi] = 0.0;
      ev[gi] = 0.0;
    }
  }
}
