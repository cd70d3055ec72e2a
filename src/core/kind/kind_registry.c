/* kind_registry.c: the table of every force kind, by lw_force_type, and
 * the hooks several kinds share. */
#include "lw_kind.h"

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
