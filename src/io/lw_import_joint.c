/* lw_import_joint.c: a stop at an imported joint's limits and its
 * constant Coulomb friction (lw_import_joint.h). */
#include "lw_import_joint.h"

#include <glib.h>

double lw_import_add_limit(lw_desc *d, const char *joint, int has_lower, double lower, int has_upper, double upper)
{
  g_autofree char *name = g_strdup_printf("%s limits", joint);
  lw_event_desc *e = lw_desc_add_event(d, name, LW_EVENT_JOINT_LIMIT);
  e->joint = g_strdup(joint);
  e->coordinate = 0;
  e->has_lower = has_lower;
  e->lower = has_lower ? lower : 0.0;
  e->has_upper = has_upper;
  e->upper = has_upper ? upper : 0.0;
  e->restitution = LW_IMPORT_LIMIT_RESTITUTION;
  e->rest_speed = 0.0; /* the default: |gravity| x step */
  double start = has_lower && lower > 0 ? lower : has_upper && upper < 0 ? upper : 0.0;
  if (start != 0.0) {
    lw_initial_desc *in = lw_desc_add_initial(d, joint, 0);
    in->has_value = 1;
    in->value = start;
  }
  return start;
}

void lw_import_set_friction(lw_joint_desc *j, double F)
{
  lw_joint_friction_defaults(j);
  j->friction[lw_friction_param_index("mu_s")] = LW_IMPORT_FRICTION_KAPPA;
  j->friction[lw_friction_param_index("mu_d")] = LW_IMPORT_FRICTION_KAPPA;
  j->friction[lw_friction_param_index("radius")] = LW_IMPORT_FRICTION_RADIUS;
  j->friction[lw_friction_param_index("preload")] = F / LW_IMPORT_FRICTION_KAPPA;
}
