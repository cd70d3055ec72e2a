/* cli-error.c: see cli-error.h. */
#include "cli-error.h"

#include <stdarg.h>
#include <stdio.h>

static char *last_error;

void lw_cli_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  fprintf(stderr, "linkwright-cli: %s\n", msg);
  g_free(last_error);
  last_error = msg;
}

const char *lw_cli_last_error(void)
{
  return last_error;
}

void lw_cli_json_str(GString *s, const char *v)
{
  g_string_append_c(s, '"');
  for (const char *p = v; p && *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\')
      g_string_append_printf(s, "\\%c", c);
    else if (c < 0x20)
      g_string_append_printf(s, "\\u%04x", c);
    else
      g_string_append_c(s, (char)c);
  }
  g_string_append_c(s, '"');
}
