/* lw_compile.h: what compile/lw_compile.c offers the rest of the core (private to src/core). */
#ifndef LW_COMPILE_LW_COMPILE_H
#define LW_COMPILE_LW_COMPILE_H

#include "lw_internal.h"

lw_model *lw_compile_constants(const lw_desc *src, lw_error *err);
lw_model *lw_compile_resting(const lw_desc *src, const int *rest, int nrest, lw_error *err);

#endif
