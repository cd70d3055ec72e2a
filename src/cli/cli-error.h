/* cli-error.h: the error messages of linkwright-cli.  Each goes to stderr
 * ("linkwright-cli: MESSAGE"); with --json the last one is also given as a
 * JSON object on stdout when the command wrote no result of its own. */
#pragma once

#include <glib.h>

void lw_cli_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* the last message (NULL when none) */
const char *lw_cli_last_error(void);
/* a JSON string (quotes and escapes) appended to s */
void lw_cli_json_str(GString *s, const char *v);
