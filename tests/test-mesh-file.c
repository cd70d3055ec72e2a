/* test-mesh-file.c: STL (binary, ASCII) and OBJ meshes read for display,
 * and where a model's mesh names lead (src/render/lw-mesh-file.c). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lw-mesh-file.h"

static char *dir;

static char *write_file(const char *name, const void *data, gssize len)
{
  char *p = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(p, data, len, NULL));
  return p;
}

/* every normal of unit length, each triangle's normal across its edges */
static void check_normals(const lw_mesh_file *m)
{
  for (int t = 0; t < m->ntriangles; t++) {
    const float *v = m->vertices + 18 * t;
    float n2 = v[3] * v[3] + v[4] * v[4] + v[5] * v[5];
    g_assert_cmpfloat(fabsf(n2 - 1), <, 1e-5f);
    for (int k = 1; k < 3; k++) {
      float e[3] = {v[6 * k] - v[0], v[6 * k + 1] - v[1], v[6 * k + 2] - v[2]};
      g_assert_cmpfloat(fabsf(e[0] * v[3] + e[1] * v[4] + e[2] * v[5]), <, 1e-5f);
    }
  }
}

static const float tet[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0, 0, 3}};
static const int tet_faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

static void test_binary_stl(void)
{
  guint8 buf[84 + 4 * 50] = {0};
  guint32 n = GUINT32_TO_LE(4);
  memcpy(buf + 80, &n, 4);
  for (int f = 0; f < 4; f++)
    for (int k = 0; k < 3; k++)
      memcpy(buf + 84 + 50 * f + 12 + 12 * k, tet[tet_faces[f][k]], 12);
  g_autofree char *p = write_file("tet.stl", buf, sizeof buf);
  lw_mesh_file m;
  g_autoptr(GError) error = NULL;
  g_assert_true(lw_mesh_file_load(p, &m, &error));
  g_assert_cmpint(m.ntriangles, ==, 4);
  g_assert_cmpfloat(m.hi[0], ==, 1);
  g_assert_cmpfloat(m.hi[1], ==, 2);
  g_assert_cmpfloat(m.hi[2], ==, 3);
  g_assert_cmpfloat(m.lo[0], ==, 0);
  check_normals(&m);
  lw_mesh_file_clear(&m);
}

static void test_ascii_stl(void)
{
  GString *s = g_string_new("solid tet\n");
  for (int f = 0; f < 4; f++) {
    g_string_append(s, "  facet normal 0 0 0\n    outer loop\n");
    for (int k = 0; k < 3; k++) {
      const float *v = tet[tet_faces[f][k]];
      g_string_append_printf(s, "      vertex %g %g %g\n", v[0], v[1], v[2]);
    }
    g_string_append(s, "    endloop\n  endfacet\n");
  }
  g_string_append(s, "endsolid tet\n");
  g_autofree char *p = write_file("tet-ascii.stl", s->str, (gssize)s->len);
  g_string_free(s, TRUE);
  lw_mesh_file m;
  g_assert_true(lw_mesh_file_load(p, &m, NULL));
  g_assert_cmpint(m.ntriangles, ==, 4);
  g_assert_cmpfloat(m.hi[2], ==, 3);
  check_normals(&m);
  lw_mesh_file_clear(&m);
}

/* a cube of quads, some faces with v/vt/vn and negative indices */
static void test_obj(void)
{
  const char *cube = "# cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
                     "vn 0 0 1\nf 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2/1/1 3/1/1 7/1/1 6/1/1\n"
                     "f -5 -1 -4 -8\nf 4 8 7 3\n";
  g_autofree char *p = write_file("cube.obj", cube, -1);
  lw_mesh_file m;
  g_autoptr(GError) error = NULL;
  g_assert_true(lw_mesh_file_load(p, &m, &error));
  g_assert_cmpint(m.ntriangles, ==, 12);
  for (int i = 0; i < 3; i++) {
    g_assert_cmpfloat(m.lo[i], ==, 0);
    g_assert_cmpfloat(m.hi[i], ==, 1);
  }
  check_normals(&m);
  lw_mesh_file_clear(&m);
}

/* what cannot be read says which file and why */
static void test_errors(void)
{
  struct {
    const char *name, *text, *expect;
  } cases[] = {
      {"missing.stl", NULL, "no such file"},
      {"bad.obj", "v 0 0 0\nv 1 0\n", "bad.obj:2: a vertex needs three numbers"},
      {"range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "range.obj:4: a face names vertex 4 of 3"},
      {"empty.stl", "solid x\nendsolid x\n", "no triangle"},
      {"model.ply", "ply\n", "only STL and OBJ"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *p = cases[i].text ? write_file(cases[i].name, cases[i].text, -1)
                                       : g_build_filename(dir, cases[i].name, NULL);
    lw_mesh_file m;
    g_autoptr(GError) error = NULL;
    g_assert_false(lw_mesh_file_load(p, &m, &error));
    g_assert_nonnull(error);
    g_test_message("%s", error->message);
    g_assert_nonnull(strstr(error->message, cases[i].expect));
    g_assert_nonnull(strstr(error->message, cases[i].name));
  }
}

static void test_resolve(void)
{
  g_autofree char *a = lw_mesh_file_resolve("/abs/m.stl", "/models", NULL);
  g_assert_cmpstr(a, ==, "/abs/m.stl");
  g_autofree char *r = lw_mesh_file_resolve("meshes/m.stl", "/models", NULL);
  g_assert_cmpstr(r, ==, "/models/meshes/m.stl");
  /* package://: the first directory of the search path where it exists */
  g_autofree char *pkg = g_build_filename(dir, "share", "robot", "meshes", NULL);
  g_mkdir_with_parents(pkg, 0755);
  g_autofree char *f = g_build_filename(pkg, "arm.stl", NULL);
  g_assert_true(g_file_set_contents(f, "solid\n", -1, NULL));
  g_autofree char *search = g_strdup_printf("/nonexistent:%s/share", dir);
  g_autofree char *p = lw_mesh_file_resolve("package://robot/meshes/arm.stl", "/models", search);
  g_assert_cmpstr(p, ==, f);
  g_autofree char *q = lw_mesh_file_resolve("package://robot/meshes/none.stl", "/models", search);
  g_assert_cmpstr(q, ==, "/models/robot/meshes/none.stl");
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  dir = g_dir_make_tmp("lw-mesh-XXXXXX", NULL);
  g_test_add_func("/mesh-file/binary-stl", test_binary_stl);
  g_test_add_func("/mesh-file/ascii-stl", test_ascii_stl);
  g_test_add_func("/mesh-file/obj", test_obj);
  g_test_add_func("/mesh-file/errors", test_errors);
  g_test_add_func("/mesh-file/resolve", test_resolve);
  int rc = g_test_run();
  g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
  if (system(cmd) != 0)
    g_test_message("could not remove %s", dir);
  g_free(dir);
  return rc;
}
