/* lw_error.c: filling an lw_error. */
#include "model/lw_error.h"
#include "lw_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void lw_set_error(lw_error *e, int status, const char *path, double t, const char *fmt, ...)
{
  if (!e)
    return;
  e->status = status;
  snprintf(e->path, sizeof e->path, "%s", path ? path : "");
  e->time = t;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
}
