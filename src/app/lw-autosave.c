/* lw-autosave.c: autosave files and crash recovery (see lw-autosave.h). */
#include "lw-autosave.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "lw_io.h"

static char *autosave_dir(void)
{
  return g_build_filename(g_get_user_cache_dir(), "linkwright", "autosave", NULL);
}

char *lw_autosave_path_new(void)
{
  static int counter;
  g_autofree char *dir = autosave_dir();
  g_autofree char *name = g_strdup_printf("%d-%d.json", (int)getpid(), ++counter);
  return g_build_filename(dir, name, NULL);
}

gboolean lw_autosave_write(const char *path, const lw_desc *d, GError **error)
{
  g_autofree char *dir = g_path_get_dirname(path);
  if (g_mkdir_with_parents(dir, 0700) != 0) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s", dir, g_strerror(e));
    return FALSE;
  }
  return lw_model_write_file(d, path, error);
}

void lw_autosave_remove(const char *path)
{
  if (path)
    g_unlink(path);
}

static gboolean process_alive(long pid)
{
  if (pid <= 0)
    return FALSE;
  if (pid == (long)getpid())
    return TRUE;
  return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

char *lw_autosave_find_orphan(void)
{
  g_autofree char *dir = autosave_dir();
  GDir *gd = g_dir_open(dir, 0, NULL);
  if (!gd)
    return NULL;
  char *best = NULL;
  gint64 best_time = 0;
  const char *name;
  while ((name = g_dir_read_name(gd))) {
    if (!g_str_has_suffix(name, ".json"))
      continue;
    char *end = NULL;
    long pid = strtol(name, &end, 10);
    if (!end || *end != '-' || process_alive(pid))
      continue;
    g_autofree char *path = g_build_filename(dir, name, NULL);
    GStatBuf st;
    if (g_stat(path, &st) != 0)
      continue;
    gint64 t = (gint64)st.st_mtime;
    if (!best || t > best_time) {
      g_free(best);
      best = g_strdup(path);
      best_time = t;
    }
  }
  g_dir_close(gd);
  return best;
}
