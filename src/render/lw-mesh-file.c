/* lw-mesh-file.c: STL and OBJ meshes for display (lw-mesh-file.h). */
#include "lw-mesh-file.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* files larger than this are not display meshes */
#define MAX_BYTES ((gsize)512 << 20)

void lw_mesh_file_clear(lw_mesh_file *m)
{
  g_free(m->vertices);
  memset(m, 0, sizeof *m);
}

/* append triangle (a, b, c) with its flat normal */
static void add_triangle(GArray *v, const float a[3], const float b[3], const float c[3])
{
  float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
  float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (len > 0)
    for (int i = 0; i < 3; i++)
      n[i] /= len;
  const float *p[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    g_array_append_vals(v, p[k], 3);
    g_array_append_vals(v, n, 3);
  }
}

static gboolean binary_stl(const char *data, gsize len, GArray *v)
{
  if (len < 84)
    return FALSE;
  guint32 n;
  memcpy(&n, data + 80, 4);
  n = GUINT32_FROM_LE(n);
  if ((guint64)84 + (guint64)n * 50 != len)
    return FALSE;
  for (guint32 t = 0; t < n; t++) {
    const char *rec = data + 84 + (gsize)t * 50 + 12; /* past the stored normal */
    float x[9];
    for (int k = 0; k < 9; k++) {
      guint32 u;
      memcpy(&u, rec + 4 * k, 4);
      u = GUINT32_FROM_LE(u);
      memcpy(&x[k], &u, 4);
    }
    add_triangle(v, x, x + 3, x + 6);
  }
  return TRUE;
}

/* ASCII STL: every "vertex x y z", three to a facet */
static gboolean ascii_stl(const char *data, GArray *v, GError **error, const char *path)
{
  float tri[9];
  int k = 0, line = 1;
  for (const char *p = data; *p;) {
    const char *eol = strchr(p, '\n');
    const char *s = p;
    while (*s == ' ' || *s == '\t')
      s++;
    if (!strncmp(s, "vertex", 6)) {
      char *end;
      s += 6;
      for (int i = 0; i < 3; i++) {
        tri[3 * k + i] = (float)g_ascii_strtod(s, &end);
        if (end == s) {
          g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s:%d: a vertex needs three numbers", path, line);
          return FALSE;
        }
        s = end;
      }
      if (++k == 3) {
        add_triangle(v, tri, tri + 3, tri + 6);
        k = 0;
      }
    }
    if (!eol)
      break;
    p = eol + 1;
    line++;
  }
  return TRUE;
}

/* OBJ: "v x y z" and "f a b c ..." (1-based, negative from the end,
 * a/b/c forms); polygons as fans */
static gboolean obj(const char *data, GArray *v, GError **error, const char *path)
{
  GArray *pos = g_array_new(FALSE, FALSE, sizeof(float));
  int line = 1;
  gboolean ok = TRUE;
  for (const char *p = data; *p && ok;) {
    const char *eol = strchr(p, '\n');
    if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
      char *end;
      const char *s = p + 2;
      for (int i = 0; i < 3; i++) {
        float x = (float)g_ascii_strtod(s, &end);
        if (end == s) {
          g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s:%d: a vertex needs three numbers", path, line);
          ok = FALSE;
          break;
        }
        g_array_append_val(pos, x);
        s = end;
      }
    } else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
      long idx[64];
      int n = 0;
      const char *s = p + 2;
      int nv = (int)(pos->len / 3);
      while (n < 64) {
        char *end;
        long i = strtol(s, &end, 10);
        if (end == s)
          break;
        i = i < 0 ? nv + i : i - 1;
        if (i < 0 || i >= nv) {
          g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s:%d: a face names vertex %ld of %d", path,
                      line, i + 1, nv);
          ok = FALSE;
          break;
        }
        idx[n++] = i;
        s = end;
        while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') /* /vt/vn */
          s++;
      }
      const float *P = (const float *)pos->data;
      for (int k = 2; ok && k < n; k++)
        add_triangle(v, P + 3 * idx[0], P + 3 * idx[k - 1], P + 3 * idx[k]);
    }
    if (!eol)
      break;
    p = eol + 1;
    line++;
  }
  g_array_unref(pos);
  return ok;
}

gboolean lw_mesh_file_load(const char *path, lw_mesh_file *out, GError **error)
{
  memset(out, 0, sizeof *out);
  GStatBuf st;
  if (g_stat(path, &st) != 0) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: no such file", path);
    return FALSE;
  }
  if (!S_ISREG(st.st_mode) || (gsize)st.st_size > MAX_BYTES) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: not a mesh file of at most 512 MiB", path);
    return FALSE;
  }
  g_autofree char *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &data, &len, error))
    return FALSE;
  GArray *v = g_array_new(FALSE, FALSE, sizeof(float));
  gboolean ok;
  const char *dot = strrchr(path, '.');
  if (dot && !g_ascii_strcasecmp(dot, ".obj"))
    ok = obj(data, v, error, path);
  else if (dot && !g_ascii_strcasecmp(dot, ".stl"))
    /* binary when its size says so (an ASCII file may begin "solid" too) */
    ok = binary_stl(data, len, v) || ascii_stl(data, v, error, path);
  else {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s: only STL and OBJ meshes are read", path);
    ok = FALSE;
  }
  int nt = (int)(v->len / 18);
  if (ok && nt == 0) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: no triangle in it", path);
    ok = FALSE;
  }
  if (ok && nt > LW_MESH_MAX_TRIANGLES) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %d triangles, more than a display takes (%d)", path,
                nt, LW_MESH_MAX_TRIANGLES);
    ok = FALSE;
  }
  if (!ok) {
    g_array_unref(v);
    return FALSE;
  }
  out->ntriangles = nt;
  out->vertices = (float *)g_array_free(v, FALSE);
  for (int i = 0; i < 3; i++)
    out->lo[i] = out->hi[i] = out->vertices[i];
  for (int k = 0; k < 3 * nt; k++)
    for (int i = 0; i < 3; i++) {
      out->lo[i] = fminf(out->lo[i], out->vertices[6 * k + i]);
      out->hi[i] = fmaxf(out->hi[i], out->vertices[6 * k + i]);
    }
  return TRUE;
}

char *lw_mesh_file_resolve(const char *name, const char *base_dir, const char *search)
{
  if (g_str_has_prefix(name, "package://")) {
    const char *rest = name + strlen("package://");
    if (!search)
      search = g_getenv("LW_MESH_PATH");
    g_auto(GStrv) dirs = g_strsplit(search ? search : "", ":", -1);
    for (char **d = dirs; *d; d++) {
      if (!**d)
        continue;
      char *p = g_build_filename(*d, rest, NULL);
      if (g_file_test(p, G_FILE_TEST_EXISTS))
        return p;
      g_free(p);
    }
    /* beside the model: PKG/REST there */
    return g_build_filename(base_dir ? base_dir : ".", rest, NULL);
  }
  if (g_path_is_absolute(name))
    return g_strdup(name);
  return g_build_filename(base_dir ? base_dir : ".", name, NULL);
}
