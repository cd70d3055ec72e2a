/* kind_controller.h: what kind/kind_controller.c offers the rest of the core (private to src/core). */
#ifndef LW_KIND_KIND_CONTROLLER_H
#define LW_KIND_KIND_CONTROLLER_H

#include "lw_internal.h"

/* a controller's force / torque along its actuated coordinate at (q, qd, t) */
double lw_control_value(const lw_model *m, const lw_data *d, const lw_force *f, const double *q,
                        const double *qd, double t);

#endif
