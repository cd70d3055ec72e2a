/* lw-mesh-file.h: triangle meshes read from STL (binary and ASCII) and
 * Wavefront OBJ files, for display: flat-shaded triangles in the layout of
 * lw-mesh.h (position, normal: 6 floats a vertex, three vertices a
 * triangle).  No GL here. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  float *vertices; /* ntriangles x 3 x 6 */
  int ntriangles;
  float lo[3], hi[3]; /* bounding box */
} lw_mesh_file;

/* Read path; FALSE with error set (the file named) when it cannot be read,
 * is neither STL nor OBJ, holds no triangle or more than a display wants
 * (LW_MESH_MAX_TRIANGLES). */
#define LW_MESH_MAX_TRIANGLES 4000000
gboolean lw_mesh_file_load(const char *path, lw_mesh_file *out, GError **error);
void lw_mesh_file_clear(lw_mesh_file *m);

/* The file a model's mesh name means: absolute as it is; package://PKG/REST
 * as DIR/PKG/REST for the first DIR of the colon-separated search path
 * (LW_MESH_PATH when search is NULL) where it exists; anything else
 * relative to base_dir.  A newly allocated path (it may not exist). */
char *lw_mesh_file_resolve(const char *name, const char *base_dir, const char *search);

G_END_DECLS
