/* sens_initial.h: what sens/sens_initial.c offers the rest of the core (private to src/core). */
#ifndef LW_SENS_SENS_INITIAL_H
#define LW_SENS_SENS_INITIAL_H

#include "lw_internal.h"

/* the derivatives of the initial state [q qd qdd lambda] that lw_initialize
 * solves (degrees of freedom held at their given values) with respect to the
 * parameters of tg[0..p): S0 is (3 nq + nc) x p, column-major (sens.c).
 * Returns 0, or -1 with err filled. */
int lw_sens_initial_state(const lw_model *m, lw_tangent **tg, int p, double *S0, lw_error *err);

#endif
