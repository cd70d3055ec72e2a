/* lw_friction_desc.c: joint friction in a model description: its
 * defaults and the check of a
 * joint's friction against its type and the parameters' ranges
 * (docs/friction.md sec. 1, docs/model-format.md). */
#include "lw_friction.h"
#include "lw_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>



void lw_joint_friction_defaults(lw_joint_desc *j)
{
  lw_friction_params p;
  lw_friction_default_params(&p, 0.0); /* v_t 0: the default, set from the step at compile */
  j->has_friction = 1;
  memcpy(j->friction, p.p, sizeof j->friction);
}

/* the range each parameter must lie in, for the message */
static const char *range_text(int k)
{
  switch (k) {
  case LW_FP_VT:
  case LW_FP_LENGTH:
  case LW_FP_WIDTH:
  case LW_FP_RADIUS:
  case LW_FP_EPS:
    return "must be a finite number > 0";
  case LW_FP_OFFSET:
    return "must be a finite number";
  default:
    return "must be a finite number >= 0";
  }
}

int lw_joint_friction_check(const lw_desc *d, int ji, lw_error *err)
{
  const lw_joint_desc *j = &d->joints[ji];
  char path[256];
  if (!j->has_friction)
    return LW_OK;
  snprintf(path, sizeof path, "joints/%s/friction", j->name ? j->name : "?");
  if ((int)j->type < 0 || j->type >= LW_JOINT_NTYPES || lw_friction_kind_of(j->type, d->planar) < 0) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN,
                 "joint '%s': a %s joint%s has no friction (friction is defined for revolute, prismatic, "
                 "cylindrical, spherical and planar joints; in a planar model for revolute and prismatic ones)",
                 j->name ? j->name : "?",
                 (int)j->type >= 0 && j->type < LW_JOINT_NTYPES ? lw_joint_type_name(j->type) : "unknown",
                 d->planar ? " of a planar model" : "");
    return LW_ERR_MODEL;
  }
  lw_friction_params p;
  memcpy(p.p, j->friction, sizeof p.p);
  if (p.p[LW_FP_VT] == 0.0)
    p.p[LW_FP_VT] = 1.0; /* the default, whatever the step */
  int bad = lw_friction_check_params(&p);
  if (bad) {
    int k = -1 - bad;
    snprintf(path, sizeof path, "joints/%s/friction/%s", j->name ? j->name : "?", lw_friction_param_name(k));
    lw_set_error(err, LW_ERR_MODEL, path, NAN, "joint '%s': friction %s = %g %s%s", j->name ? j->name : "?",
                 lw_friction_param_name(k), j->friction[k], range_text(k),
                 k == LW_FP_VT ? " (or 0 for the default, 10 steps' worth)" : "");
    return LW_ERR_MODEL;
  }
  return LW_OK;
}
