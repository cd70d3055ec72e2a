/* kind_registry.c: the table of every force kind, by lw_force_type, and
 * the hooks several kinds share (their tangents' common fields). */
#include "lw_kind.h"
#include "dyn/lw_init.h"

#include <string.h>

const lw_force_kind *const lw_force_kinds[LW_FORCE_NTYPES] = {
  [LW_FORCE_SPRING_DAMPER] = &lw_kind_spring,
  [LW_FORCE_JOINT_SPRING_DAMPER] = &lw_kind_joint_spring,
  [LW_FORCE_FORCE] = &lw_kind_point_force,
  [LW_FORCE_TORQUE] = &lw_kind_torque,
  [LW_FORCE_PID] = &lw_kind_pid,
  [LW_FORCE_STATE_FEEDBACK] = &lw_kind_state_feedback,
  [LW_FORCE_BEAM] = &lw_kind_beam,
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

int lw_kind_func_coef(const lw_func *f, const double *x, int *knot)
{
  int i = lw_field_index(x, f->a, LW_FUNC_MAXCOEF);
  *knot = 0;
  if (i < 0 && f->type == LW_FUNC_SPLINE) {
    i = lw_field_index(x, f->knots, f->n);
    *knot = 1;
  }
  return i;
}

/* the fields lw_compile copies into every force unchanged (its forces
 * stage, before the kind's compile): the derivative of each is 1 at its
 * compiled constant */
int lw_kind_field_tangent(const lw_model *m, int n, const double *field, lw_model *dm)
{
  const lw_force_desc *fd = &m->desc->forces[n];
  lw_force *df = dm ? &dm->forces[n] : NULL;
  int i, knot;
  if (field == &fd->stiffness)
    lw_kind_tangent_add(df ? &df->k : NULL, 1.0);
  else if (field == &fd->damping)
    lw_kind_tangent_add(df ? &df->c : NULL, 1.0);
  else if (field == &fd->rest)
    lw_kind_tangent_add(df ? &df->rest : NULL, 1.0);
  else if ((i = lw_field_index(field, fd->vector, 3)) >= 0)
    lw_kind_tangent_add(df ? &df->vec[i] : NULL, 1.0);
  else if ((i = lw_kind_func_coef(&fd->func, field, &knot)) >= 0)
    lw_kind_tangent_add(df ? lw_kind_func_at(&df->func, i, knot) : NULL, 1.0);
  else
    return 0;
  return 1;
}
