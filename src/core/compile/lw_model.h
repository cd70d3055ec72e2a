/* lw_model.h: what compile/lw_model.c offers the rest of the core (private to src/core). */
#ifndef LW_COMPILE_LW_MODEL_H
#define LW_COMPILE_LW_MODEL_H

#include "lw_internal.h"

void lw_opt_of_solver(lw_opt *o, const lw_solver_desc *s);
const char *lw_row_owner_path(const lw_model *m, const lw_row *r, char *buf, size_t n);

#endif
