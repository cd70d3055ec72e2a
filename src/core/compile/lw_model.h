/* lw_model.h: what compile/lw_model.c offers the rest of the core (private to src/core). */
#ifndef LW_COMPILE_LW_MODEL_H
#define LW_COMPILE_LW_MODEL_H

#include "lw_internal.h"

void lw_opt_of_solver(lw_opt *o, const lw_solver_desc *s);
/* the options' checks that need the compiled model (numerical damping
 * with joint friction or events): 0, or -1 with err filled */
int lw_opt_check_model(const lw_model *m, const lw_opt *o, lw_error *err);
const char *lw_row_owner_path(const lw_model *m, const lw_row *r, char *buf, size_t n);

#endif
