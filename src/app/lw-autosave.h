/* lw-autosave.h: copies of the model being edited, written after every
 * change to the user's cache directory (linkwright/autosave/PID-N.json) and
 * removed when the window closes cleanly.  Beside each, PID-N.lock is locked
 * (flock) as long as the process lives.  A file whose lock can be taken was
 * left by a crash or a kill, even when its PID has since been given to
 * another process: it is offered back at the next start. */
#pragma once

#include <glib.h>

#include "linkwright.h"

G_BEGIN_DECLS

/* A new file name for one window of this process (the file is not created). */
char *lw_autosave_path_new(void);
/* Write d there, atomically. */
gboolean lw_autosave_write(const char *path, const lw_desc *d, GError **error);
void lw_autosave_remove(const char *path);
/* The newest autosave whose process has gone, or NULL. */
char *lw_autosave_find_orphan(void);

G_END_DECLS
