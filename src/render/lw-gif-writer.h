/* lw-gif-writer.h: an animated GIF written frame by frame (GLib only).
 *
 * Frames are 32-bit pixels as cairo's ARGB32 stores them (alpha ignored).
 * One palette of 256 colours serves the whole file: the most frequent
 * colours of the first frame (on a 15-bit grid); later frames map each
 * pixel to the nearest of them.  The file loops forever. */
#ifndef LW_GIF_WRITER_H
#define LW_GIF_WRITER_H

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef struct lw_gif_writer lw_gif_writer;

/* NULL with error set when the file cannot be made; w, h in 1..65535 */
lw_gif_writer *lw_gif_writer_new(const char *path, int w, int h, double fps, GError **error);
/* pixels: h rows of stride bytes; FALSE with error set when writing fails */
gboolean lw_gif_writer_add(lw_gif_writer *g, const guint8 *pixels, int stride, GError **error);
/* ends the file and frees the writer; FALSE with error set when the file
 * could not be completed */
gboolean lw_gif_writer_finish(lw_gif_writer *g, GError **error);
/* frees the writer and removes the partial file */
void lw_gif_writer_abort(lw_gif_writer *g);

G_END_DECLS
#endif
