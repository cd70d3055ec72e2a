/* lw-anim-export.h: a run's 3-D animation written to a video (WebM through
 * GStreamer), an animated GIF or a sequence of PNG files, drawn offscreen
 * on a surfaceless EGL context of the calling thread (no display needed;
 * run it on a worker thread to keep an interface responsive).
 *
 * The caller hands over the states to draw, one per video frame (times
 * and coordinates); lw_anim_pick_frames picks them from a recorded run for
 * a frame rate and a playback speed. */
#ifndef LW_ANIM_EXPORT_H
#define LW_ANIM_EXPORT_H

#include <glib.h>

#include "linkwright.h"
#include "lw-camera.h"
#include "lw-render.h"

G_BEGIN_DECLS

typedef enum {
  LW_ANIM_WEBM,
  LW_ANIM_GIF,
  LW_ANIM_PNG, /* NAME.png written as NAME-00000.png, NAME-00001.png, ... */
} lw_anim_format;

/* The format a file name asks for (.webm, .gif, .png; case ignored);
 * FALSE for any other name. */
gboolean lw_anim_format_from_path(const char *path, lw_anim_format *format);
/* PNG sequences: the file of frame k for the name given */
char *lw_anim_png_frame_path(const char *path, int k);

typedef struct {
  int width, height;   /* pixels, 16..4096 */
  double fps;          /* frames per second of the video, > 0 */
  lw_anim_format format;
  gboolean has_camera; /* FALSE: a camera fitted to every state drawn */
  lw_camera camera;
  gboolean has_options;/* FALSE: the renderer's defaults */
  lw_render_options options;
  gboolean dark;       /* the dark background */
} lw_anim_options;

/* The states to draw: n frames of model m, time t[k] and coordinates
 * q + k * nq (nq = lw_model_nq(m)). */
typedef struct {
  const lw_model *model;
  int n;
  const double *t;
  const double *q;
} lw_anim_frames;

/* Of n recorded times (ascending), the one to show at each video frame:
 * frame k shows simulated time t[0] + k * speed / fps (the last recorded
 * time at or before it).  Returns the number of video frames (the last
 * at or before t[n-1]), their indices in a new array in *pick. */
int lw_anim_pick_frames(const double *t, int n, double fps, double speed, int **pick);

/* Progress after each frame: fraction done in 0..1; a nonzero return
 * cancels (the partial output is removed, error G_IO_ERROR_CANCELLED). */
typedef int (*lw_anim_progress)(double fraction, void *user);

#define LW_ANIM_ERROR (lw_anim_error_quark())
typedef enum {
  LW_ANIM_ERROR_GL,      /* no offscreen OpenGL */
  LW_ANIM_ERROR_ENCODER, /* GStreamer or one of its elements is missing or failed */
  LW_ANIM_ERROR_INVALID, /* options out of range, no frames */
} LwAnimError;
GQuark lw_anim_error_quark(void);

/* Draws every frame and writes path.  FALSE with error set (and no partial
 * output left) when it fails or is cancelled. */
gboolean lw_anim_export(const lw_anim_frames *frames, const lw_anim_options *opt, const char *path,
                        lw_anim_progress progress, void *user, GError **error);

G_END_DECLS
#endif
