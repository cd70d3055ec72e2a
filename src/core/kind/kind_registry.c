/* kind_registry.c: the table of every force kind, by lw_force_type, and
 * the hooks several kinds share. */
#include "lw_kind.h"

#include <string.h>

const lw_force_kind *const lw_force_kinds[LW_FORCE_NTYPES] = {
  [LW_FORCE_SPRING_DAMPER] = &lw_kind_spring,
  [LW_FORCE_JOINT_SPRING_DAMPER] = &lw_kind_joint_spring,
  [LW_FORCE_FORCE] = &lw_kind_point_force,
  [LW_FORCE_TORQUE] = &lw_kind_torque,
  [LW_FORCE_PID] = &lw_kind_pid,
  [LW_FORCE_STATE_FEEDBACK] = &lw_kind_state_feedback,
};

int lw_kind_own_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  (void)m;
  *blk = f->blk;
  return f->nblk;
}

void lw_kind_joint_geometry(const lw_model *m, const lw_data *d, const lw_force *f, double *a, double *b)
{
  (void)b;
  /* at the (actuated) joint: origin and axis */
  const lw_desc *ds = m->desc;
  const char *jn = ds->forces[f->index].joint;
  for (int j = 0; jn && j < ds->njoints; j++)
    if (strcmp(ds->joints[j].name, jn) == 0) {
      lw_joint_geometry(m, d, j, a);
      break;
    }
  if (m->planar)
    a[2] = 0;
}
