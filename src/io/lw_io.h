/* lw_io.h: model files (JSON, format version 1) and results export. */
#ifndef LW_IO_H
#define LW_IO_H

#include <glib.h>

#include "linkwright.h"

G_BEGIN_DECLS

/* Where each field of a model file was written: field path -> line. */
typedef struct _LwSourceMap LwSourceMap;

void lw_source_map_free(LwSourceMap *map);
/* Line of the path, or of its nearest enclosing element; 0 if unknown. */
int lw_source_map_line(const LwSourceMap *map, const char *path);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LwSourceMap, lw_source_map_free)

/* Read a model. On failure returns NULL and fills err (status LW_ERR_MODEL)
 * with a message that names the file, the line and the field. map may be NULL. */
lw_desc *lw_model_read_file(const char *filename, LwSourceMap **map, lw_error *err);
lw_desc *lw_model_read_data(const char *data, gssize len, const char *filename, LwSourceMap **map,
                            lw_error *err);

/* Read and compile: errors from the compiler are located in the file too. */
lw_model *lw_model_open(const char *filename, lw_error *err);

/* Rewrite err->msg as "FILE:LINE: field PATH: MESSAGE". */
void lw_error_locate(lw_error *err, const char *filename, const LwSourceMap *map);

/* Import a robot description in URDF (lw_urdf.c): the root link is the
 * ground, links joined by fixed joints are one body, joints become joints
 * placed in the world with every joint at 0, limits joint_limit events,
 * damping and friction a joint spring-damper and joint friction.  How they
 * were mapped, and what is not represented (meshes, ...), is listed in
 * *notes (one item per line; NULL when nothing; free with g_free).  On failure returns NULL and fills
 * err with a message naming the file, the line and the element. */
lw_desc *lw_urdf_read_file(const char *filename, char **notes, lw_error *err);
lw_desc *lw_urdf_read_data(const char *data, gsize len, const char *filename, char **notes, lw_error *err);

/* Import a MuJoCo model (MJCF), read and compiled by MuJoCo's own parser
 * (lw_mjcf.c), mapped at its reference pose: bodies without joints are
 * welded to their parent, hinges, slides and balls become joints (two or
 * three hinges through one point a universal or spherical joint), equality
 * connect and weld become spherical and fixed joints.  *notes as for URDF;
 * MuJoCo's own message (which names the element and the line) on failure. */
lw_desc *lw_mjcf_read_file(const char *filename, char **notes, lw_error *err);

typedef enum { LW_FORMAT_UNKNOWN, LW_FORMAT_JSON, LW_FORMAT_URDF, LW_FORMAT_MJCF } lw_model_format;
/* The format of a file by its first element ({, <robot, <mujoco). */
lw_model_format lw_model_sniff(const char *filename);
/* A model from a Linkwright JSON file, a URDF or an MJCF file, whichever
 * the file is (lw_model_sniff); *format says which (may be NULL).  *notes
 * as for the importers (NULL for JSON); *map only for JSON. */
lw_desc *lw_model_import_file(const char *filename, lw_model_format *format, char **notes, LwSourceMap **map,
                              lw_error *err);

/* Write a model as JSON (numbers round-trip exactly, in any locale). */
char *lw_model_to_json(const lw_desc *d);
gboolean lw_model_write_file(const lw_desc *d, const char *filename, GError **error);

/* A number as the shortest text that reads back to the same double. */
void lw_format_double(char *buf, size_t len, double v);

G_END_DECLS
#endif
