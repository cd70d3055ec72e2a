/* lw-autosave.h: copies of the model being edited, written after every
 * change to the user's cache directory (linkwright/autosave/PID-N.json) and
 * removed when the window closes cleanly or the model is saved.  Beside
 * each, PID-N.origin names the model's file, and PID-N.lock is locked
 * (flock) as long as the process lives.  A file whose lock can be taken was
 * left by a crash or a kill, even when its PID has since been given to
 * another process: it is offered back at the next start. */
#pragma once

#include <glib.h>

#include "linkwright.h"

G_BEGIN_DECLS

/* A new file name for one window of this process (the file is not created). */
char *lw_autosave_path_new(void);
/* Write d there, atomically, and beside it (PID-N.origin) where the model
 * came from: its file's URI (NULL: none) and the name the window shows, so
 * that a recovered model is again the file it was.  Takes the lock again
 * when a Save has removed it. */
gboolean lw_autosave_write(const char *path, const lw_desc *d, const char *uri, const char *display_name,
                           GError **error);
/* lw_autosave_write on a writer thread, in the order queued (the main
 * thread does not wait for the disk); takes d.  A copy with a newer one
 * queued for the same path is not written. */
void lw_autosave_queue(const char *path, lw_desc *d, const char *uri, const char *display_name);
/* Wait until every queued copy is on disk. */
void lw_autosave_flush(void);
/* What lw_autosave_write kept beside path (*uri NULL: no file); FALSE when
 * nothing was kept (an autosave from before origins were written). */
gboolean lw_autosave_read_origin(const char *path, char **uri, char **display_name);
/* Remove the autosave, its origin and its lock (and let go of the lock),
 * once the copies queued are written. */
void lw_autosave_remove(const char *path);
/* The newest autosave whose process has gone, or NULL. */
char *lw_autosave_find_orphan(void);

G_END_DECLS
