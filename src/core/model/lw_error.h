/* lw_error.h: what model/lw_error.c offers the rest of the core (private to src/core). */
#ifndef LW_MODEL_LW_ERROR_H
#define LW_MODEL_LW_ERROR_H

#include "lw_internal.h"

void lw_set_error(lw_error *e, int status, const char *path, double t, const char *fmt, ...);

#endif
