/* lw-render-thread.h: a renderer of its own on a thread of its own.
 *
 * On software OpenGL the scene's draw calls (vertex work, set-up) and the
 * read-back of the picture cost the thread that makes them as much as the
 * rest of a frame.  Here they run on a worker thread with a context of its
 * own (EGL, Mesa's surfaceless platform) and its own lw_renderer; the
 * caller hands over the camera, the size and a copy of the state, and takes
 * back the picture as a cairo image surface (ARGB32, the top row first).
 *
 * Everything handed over is copied.  All functions are for one thread (the
 * caller's); the worker only draws.
 */
#ifndef LW_RENDER_THREAD_H
#define LW_RENDER_THREAD_H

#include <cairo.h>
#include <epoxy/gl.h>
#include <glib.h>

#include "lw-render.h"

G_BEGIN_DECLS

typedef struct lw_render_thread lw_render_thread;

/* Starts the thread; its context and renderer are made there (status
 * LW_RENDER_THREAD_STARTING until then). */
lw_render_thread *lw_render_thread_new(void);
/* Stops the thread and waits for it.  Pictures taken stay valid as long as
 * their surfaces are referenced. */
void lw_render_thread_free(lw_render_thread *t);

typedef enum {
  LW_RENDER_THREAD_FAILED = -1, /* no context or renderer: see _error */
  LW_RENDER_THREAD_STARTING = 0,
  LW_RENDER_THREAD_READY = 1,
} lw_render_thread_status;
lw_render_thread_status lw_render_thread_get_status(lw_render_thread *t);
/* why it failed (NULL otherwise) */
const char *lw_render_thread_error(lw_render_thread *t);

/* What the next frame shows besides the state; each is copied and applied
 * before that frame is drawn. */
void lw_render_thread_set_model(lw_render_thread *t, const lw_desc *desc);
void lw_render_thread_set_options(lw_render_thread *t, const lw_render_options *opt);
void lw_render_thread_set_selection(lw_render_thread *t, lw_pick sel);
/* every trace at once: count polylines, xyz[k] of n[k] points */
void lw_render_thread_set_traces(lw_render_thread *t, int count, const double *const *xyz, const int *n);
void lw_render_thread_reset_scale(lw_render_thread *t);

/* A frame of w x h pixels (samples as lw_renderer_set_samples), state NULL
 * or copied; gen names it.  A frame submitted before it and not yet begun
 * is dropped. */
void lw_render_thread_submit(lw_render_thread *t, const lw_camera *cam, int w, int h, int samples,
                             const lw_render_state *state, guint64 gen);
/* Waits until frame gen (or a later one) is done, or the thread failed.
 * TRUE when it is done. */
gboolean lw_render_thread_wait(lw_render_thread *t, guint64 gen);
/* A frame submitted and not yet done. */
gboolean lw_render_thread_busy(lw_render_thread *t);
/* A picture done and not yet taken. */
gboolean lw_render_thread_has_new(lw_render_thread *t);

/* The newest picture done: the worker does not write it again until a newer
 * one is taken.  NULL before the first.  gen and ms (the time the worker
 * took to draw and read it back) may be NULL. */
cairo_surface_t *lw_render_thread_take(lw_render_thread *t, guint64 *gen, double *ms);

/* ---- a surfaceless context (Mesa's EGL platform), also for offscreen
 * work outside the thread (the animation export) ------------------------ */
typedef struct {
  void *dpy, *ctx; /* EGLDisplay, EGLContext */
} lw_offscreen_gl;
/* A desktop GL 3.3 core context made current on the calling thread; FALSE
 * with *problem (static text) when there is none.  End it in any case. */
gboolean lw_offscreen_gl_begin(lw_offscreen_gl *g, const char **problem);
/* Releases the context (made current or not) from the calling thread. */
void lw_offscreen_gl_end(lw_offscreen_gl *g);

/* ---- read-back helpers (also for the view's own path) ---------------- */
/* A framebuffer to read pictures back from: its colour in a texture of
 * unsized format given as B8G8R8A8, which Mesa stores so (the read-back is
 * then a copy, where a renderbuffer's R8G8B8A8 was swizzled pixel by
 * pixel), with a 24-bit depth buffer.  Needs the context current. */
typedef struct {
  GLuint fbo, color, depth;
  int w, h;
} lw_readback_fb;
/* made (again) for w x h and bound; FALSE (and freed) when incomplete */
gboolean lw_readback_fb_size(lw_readback_fb *f, int w, int h);
void lw_readback_fb_free(lw_readback_fb *f);
/* *img as an ARGB32 surface of w x h (made again at another size), on
 * storage of its own: a surface cairo allocated is taken to be clear until
 * it is marked dirty */
cairo_surface_t *lw_readback_surface(cairo_surface_t **img, int w, int h);
/* f's picture (drawn upside down: the top row first) into img as it is
 * stored, neither flushed nor marked dirty (either would make cairo copy it
 * for the snapshots old render nodes keep of it) */
void lw_readback_read(const lw_readback_fb *f, cairo_surface_t *img);

G_END_DECLS
#endif
