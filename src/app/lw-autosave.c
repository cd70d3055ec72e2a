/* lw-autosave.c: autosave files and crash recovery (see lw-autosave.h). */
#include "lw-autosave.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/file.h>
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

/* "DIR/PID-N.json" -> "DIR/PID-N" + suffix */
static char *beside(const char *json, const char *suffix)
{
  g_autofree char *base = g_str_has_suffix(json, ".json") ? g_strndup(json, strlen(json) - 5) : g_strdup(json);
  return g_strconcat(base, suffix, NULL);
}

static char *lock_path(const char *json)
{
  return beside(json, ".lock");
}

static char *origin_path(const char *json)
{
  return beside(json, ".origin");
}

/* the lock files this process holds: path of the autosave -> fd + 1
 * (taken on the writer's thread and the main thread: under held_lock) */
static GHashTable *held;
static GMutex held_lock;

/* Lock the autosave's lock file for as long as this process lives (or
 * until lw_autosave_remove): the kernel lets go of it when the process ends
 * however it ends, so a file whose lock can be taken was left behind, even
 * when its PID now belongs to another process. */
static void hold_lock(const char *path)
{
  g_mutex_lock(&held_lock);
  gboolean have = held && g_hash_table_contains(held, path);
  g_mutex_unlock(&held_lock);
  if (have)
    return;
  g_autofree char *dir = g_path_get_dirname(path);
  g_autofree char *lp = lock_path(path);
  int fd = -1;
  if (g_mkdir_with_parents(dir, 0700) == 0)
    fd = g_open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    fd = -1;
  }
  if (fd < 0)
    return;
  g_mutex_lock(&held_lock);
  if (!held)
    held = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_insert(held, g_strdup(path), GINT_TO_POINTER(fd + 1));
  g_mutex_unlock(&held_lock);
}

char *lw_autosave_path_new(void)
{
  static int counter;
  g_autofree char *dir = autosave_dir();
  g_autofree char *name = g_strdup_printf("%d-%d.json", (int)getpid(), ++counter);
  char *path = g_build_filename(dir, name, NULL);
  hold_lock(path);
  return path;
}

static gboolean write_origin(const char *path, const char *uri, const char *display_name, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (uri)
    g_key_file_set_string(kf, "origin", "uri", uri);
  if (display_name)
    g_key_file_set_string(kf, "origin", "display-name", display_name);
  gsize len = 0;
  g_autofree char *data = g_key_file_to_data(kf, &len, NULL);
  g_autofree char *op = origin_path(path);
  return g_file_set_contents(op, data, (gssize)len, error);
}

gboolean lw_autosave_write(const char *path, const lw_desc *d, const char *uri, const char *display_name,
                           GError **error)
{
  g_autofree char *dir = g_path_get_dirname(path);
  if (g_mkdir_with_parents(dir, 0700) != 0) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s", dir, g_strerror(e));
    return FALSE;
  }
  hold_lock(path);
  /* the origin first: the model's file is the newer of the two, and the
   * one whose time says which autosave is the newest */
  if (!write_origin(path, uri, display_name, error))
    return FALSE;
  return lw_model_write_file(d, path, error);
}

gboolean lw_autosave_read_origin(const char *path, char **uri, char **display_name)
{
  *uri = NULL;
  *display_name = NULL;
  g_autofree char *op = origin_path(path);
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_file(kf, op, G_KEY_FILE_NONE, NULL))
    return FALSE;
  *uri = g_key_file_get_string(kf, "origin", "uri", NULL);
  *display_name = g_key_file_get_string(kf, "origin", "display-name", NULL);
  return TRUE;
}

/* ---- writing off the main thread ---------------------------------------------- */
/* One writer thread takes the queued copies in order; a copy with a newer
 * one queued behind it for the same file is skipped. */
typedef struct {
  char *path, *uri, *display_name;
  lw_desc *desc;
  guint64 serial;
} Job;

static GThreadPool *writer;
static GMutex queue_lock;
static GCond queue_done;
static guint pending;          /* jobs queued and not finished */
static GHashTable *newest;     /* path -> serial of its newest job */
static guint64 last_serial;

static void job_free(Job *j)
{
  lw_desc_free(j->desc);
  g_free(j->path);
  g_free(j->uri);
  g_free(j->display_name);
  g_free(j);
}

static void write_job(gpointer data, gpointer user)
{
  (void)user;
  Job *j = data;
  g_mutex_lock(&queue_lock);
  gboolean stale = GPOINTER_TO_SIZE(g_hash_table_lookup(newest, j->path)) != (gsize)j->serial;
  g_mutex_unlock(&queue_lock);
  if (!stale) {
    g_autoptr(GError) error = NULL;
    if (!lw_autosave_write(j->path, j->desc, j->uri, j->display_name, &error))
      g_warning("autosave: %s", error->message);
  }
  job_free(j);
  g_mutex_lock(&queue_lock);
  if (--pending == 0)
    g_cond_broadcast(&queue_done);
  g_mutex_unlock(&queue_lock);
}

void lw_autosave_queue(const char *path, lw_desc *d, const char *uri, const char *display_name)
{
  Job *j = g_new0(Job, 1);
  j->path = g_strdup(path);
  j->uri = g_strdup(uri);
  j->display_name = g_strdup(display_name);
  j->desc = d;
  g_mutex_lock(&queue_lock);
  if (!writer) {
    writer = g_thread_pool_new(write_job, NULL, 1, TRUE, NULL);
    newest = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  }
  j->serial = ++last_serial;
  g_hash_table_insert(newest, g_strdup(path), GSIZE_TO_POINTER((gsize)j->serial));
  pending++;
  g_mutex_unlock(&queue_lock);
  g_thread_pool_push(writer, j, NULL);
}

void lw_autosave_flush(void)
{
  g_mutex_lock(&queue_lock);
  while (pending > 0)
    g_cond_wait(&queue_done, &queue_lock);
  g_mutex_unlock(&queue_lock);
}

void lw_autosave_remove(const char *path)
{
  if (!path)
    return;
  lw_autosave_flush(); /* a write still queued would bring the file back */
  g_unlink(path);
  g_autofree char *op = origin_path(path);
  g_unlink(op);
  g_autofree char *lp = lock_path(path);
  g_unlink(lp);
  gpointer fd1;
  g_mutex_lock(&held_lock);
  if (held && g_hash_table_lookup_extended(held, path, NULL, &fd1)) {
    close(GPOINTER_TO_INT(fd1) - 1);
    g_hash_table_remove(held, path);
  }
  g_mutex_unlock(&held_lock);
}

/* the process that wrote the autosave at path still runs: its lock is held
 * (files without a lock: the process with its PID runs) */
static gboolean owner_alive(const char *path, long pid)
{
  g_autofree char *lp = lock_path(path);
  int fd = g_open(lp, O_RDONLY | O_CLOEXEC, 0);
  if (fd >= 0) {
    gboolean alive = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* and with it the lock just taken */
    return alive;
  }
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
    if (g_str_has_suffix(name, ".lock")) {
      /* the lock of a window that ended before it saved anything */
      g_autofree char *lp = g_build_filename(dir, name, NULL);
      g_autofree char *base = g_strndup(lp, strlen(lp) - 5);
      g_autofree char *json = g_strconcat(base, ".json", NULL);
      if (!g_file_test(json, G_FILE_TEST_EXISTS) && !owner_alive(json, 0)) {
        g_autofree char *op = origin_path(json);
        g_unlink(op);
        g_unlink(lp);
      }
      continue;
    }
    if (!g_str_has_suffix(name, ".json"))
      continue;
    char *end = NULL;
    long pid = strtol(name, &end, 10);
    if (!end || *end != '-')
      continue;
    g_autofree char *path = g_build_filename(dir, name, NULL);
    if (owner_alive(path, pid))
      continue;
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
