/* lw_compile_friction.c: a joint's friction element (docs/friction.md
 * sec. 8): the kernel's kind and parameters (v_t's default from the step),
 * the joint's coordinates whose rates are the slips' rates, its equations
 * and the joint frame on body 2 the reaction is expressed in. */
#include "lw_internal.h"
#include "model/lw_error.h"
#include "lw_compile_ctx.h"
#include "model/lw_friction.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the joint's coordinates all touch the same bodies: one block set serves
 * the element's Newton-matrix terms */
static int same_blocks(const lw_model *m, int coord0, int n)
{
  const lw_coord *c0 = &m->coords[coord0];
  for (int k = 1; k < n; k++) {
    const lw_coord *c = &m->coords[coord0 + k];
    if (c->nblk != c0->nblk || c->blk[0] != c0->blk[0] || (c->nblk > 1 && c->blk[1] != c0->blk[1]))
      return 0;
  }
  return 1;
}

int lw_cc_joint_friction(lw_model *m, const lw_desc *d, int ji, const int bi[2], const lw_vexpr *O,
                         const lw_vexpr *X, const lw_vexpr *Y, const lw_vexpr *Z, int row0, int nrow, int coord0,
                         lw_error *err)
{
  const lw_joint_desc *j = &d->joints[ji];
  if (!m->joint_fric) {
    m->joint_fric = malloc(sizeof(int) * ((size_t)d->njoints + 1));
    m->fric = calloc((size_t)d->njoints + 1, sizeof(lw_jfric));
    if (!m->joint_fric || !m->fric) {
      lw_set_error(err, LW_ERR_NOMEM, "joints", NAN, "out of memory");
      return -1;
    }
    for (int k = 0; k <= d->njoints; k++)
      m->joint_fric[k] = -1;
  }
  if (!j->has_friction)
    return 0;
  if (lw_joint_friction_check(d, ji, err) != LW_OK)
    return -1;
  char path[256];
  snprintf(path, sizeof path, "joints/%s/friction", j->name);
  if (m->nqb == 0) { /* blocks of mixed sizes (point masses): not yet */
    lw_set_error(err, LW_ERR_MODEL, path, NAN,
                 "joint '%s': friction in a model with point masses is not supported yet", j->name);
    return -1;
  }
  int kind = lw_friction_kind_of(j->type, m->planar);
  int nslip = lw_friction_nslip((lw_friction_kind)kind);
  int spin = kind == LW_FRICTION_SPHERICAL;
  if (spin && (lw_is_beam_ref(bi[0]) || lw_is_beam_ref(bi[1]))) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN,
                 "joint '%s': friction on a spherical joint to a beam is not simulated yet", j->name);
    return -1;
  }
  if (!spin && (lw_joint_ncoords(j->type, m->planar) != nslip || !same_blocks(m, coord0, nslip))) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN,
                 "joint '%s': friction on a %s joint is not simulated yet (revolute, prismatic, cylindrical, "
                 "spherical and planar joints are)", j->name, lw_joint_type_name(j->type));
    return -1;
  }
  lw_jfric *f = &m->fric[m->nfric];
  f->joint = ji;
  f->kind = kind;
  f->nslip = nslip;
  f->coord0 = coord0;
  f->row0 = row0;
  f->nrow = nrow;
  f->body = bi[0] >= 0 ? bi[0] : bi[1];
  f->bodies[0] = bi[0];
  f->bodies[1] = bi[1];
  /* the slips' gradients' blocks: the coordinates' or, for the ball's
   * relative angular velocity, its bodies but the ground in increasing
   * order; matrix slots once the pattern is built */
  if (spin) {
    f->nblk = 0;
    for (int k = 0; k < 2; k++)
      if (bi[k] >= 0)
        f->blk[f->nblk++] = bi[k];
    if (f->nblk == 2 && f->blk[0] > f->blk[1]) {
      f->blk[0] = bi[1];
      f->blk[1] = bi[0];
    }
  } else {
    f->nblk = m->coords[coord0].nblk;
    f->blk[0] = m->coords[coord0].blk[0];
    f->blk[1] = f->nblk > 1 ? m->coords[coord0].blk[1] : -1;
  }
  /* the bearing (a slider's shoes, a pad) moves with body 2: its frame
   * there, which shares the axis with body 1's and, for a revolute or
   * spherical joint, the origin too */
  f->o = O[1];
  f->x = X[1];
  f->y = Y[1];
  f->z = Z[1];
  memcpy(f->p, j->friction, sizeof f->p);
  if (f->p[LW_FP_VT] == 0.0)
    f->p[LW_FP_VT] = 10.0 * d->solver.step; /* docs/friction.md sec. 1: ten steps of 1 m/s^2 */
  m->joint_fric[ji] = m->nfric++;
  return 0;
}
