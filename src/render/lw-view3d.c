/* lw-view3d.c: GtkGLArea subclass drawing a mechanism with lw_renderer.
 *
 * GL discipline as in gtk-demo's glarea: the renderer (program, buffers) is
 * made in realize, used in render and freed in unrealize, each time with
 * the area's context current.  Everything the application hands over
 * (model, state, traces) is copied, so it can arrive before realize and
 * survive a re-realize (moving the widget to another window).
 */
#include "lw-view3d.h"
#include "lw-render-thread.h"
#include "lw-measure-overlay.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include <epoxy/gl.h>

#define DRAG_THRESHOLD 4.0  /* px: below this a press-release is a click */
#define ORBIT_RATE 0.008    /* rad per px */
#define ZOOM_STEP 1.25
/* Anti-aliasing costs llvmpipe about as much as the frame itself, so frames
 * drawn while things move go without it, and once the view has been still
 * this long it is drawn again with 4x multisampling. */
#define AA_IDLE_US 150000
#define AA_SAMPLES 4
/* two changes of the picture this close: it is moving (frames drawn ahead) */
#define ASYNC_GAP_US 100000
#define RB_RING 3           /* pictures read back in turn */
/* what the render thread has not been told yet */
enum { RT_MODEL = 1, RT_TRACES = 2, RT_OPT = 4, RT_SEL = 8, RT_SCALE = 16, RT_ALL = 31 };

typedef struct {
  double *xyz;
  int n;
} trace_copy;

struct _LwView3d {
  GtkGLArea parent_instance;

  lw_renderer *renderer;
  char *gl_error;
  double frame_ms;

  lw_desc *desc;
  lw_camera cam;
  gboolean need_fit;
  /* the camera is the fitted one (the user has not moved it): it widens to
   * keep the moving mechanism in view; frame_lo/hi is the box it shows */
  gboolean auto_frame;
  gboolean no_follow;         /* widening held off (while the user edits) */
  double frame_lo[3], frame_hi[3];
  int frame_w, frame_h;       /* the picture size it was fitted for */

  gboolean has_state;
  lw_render_state state;
  double *poses, *joints, *forces;
  int cap_poses, cap_joints, cap_forces;
  double *sticking, *marks; /* the state's joint_sticking and marks */
  int cap_sticking, cap_marks;
  double *beam_pts, *beam_rgb; /* the state's beam_pts and beam_rgb */
  int cap_beam_pts, cap_beam_rgb;

  GArray *traces; /* trace_copy */
  lw_render_options opt;
  lw_pick sel;
  char *selection;

  gint64 last_change;  /* monotonic time of the last change of the picture */
  guint aa_source;

  /* software path (GTK's cairo renderer): our own framebuffer, read back
   * straight into the format cairo composites */
  lw_readback_fb rb;
  /* while the picture keeps changing, the frame drawn at one snapshot is
   * read back at the next, so that llvmpipe's threads draw while GTK
   * composites: the picture shown is one frame old */
  /* The pictures are a ring of image surfaces that live as long as the
   * view and are written in place.  A cairo node records its picture as a
   * snapshot of the surface; a surface freed (or flushed) while it has one
   * is first copied for it, 2 MB copied and cleared per frame.  GTK draws
   * only its newest frame, which shows rb_img, so the surface written next,
   * the oldest, is in no frame that will be drawn again. */
  cairo_surface_t *rb_ring[RB_RING];
  int rb_next;                /* the one to write next */
  cairo_surface_t *rb_img;    /* the last picture read back (in rb_ring) */
  guint64 rb_img_gen;         /* the generation it shows */
  gboolean rb_warm;           /* a frame without multisampling drawn in rb */
  gboolean rb_bgra;           /* desktop GL: the read-back path can be used */
  gboolean rb_pending;        /* a frame is being drawn into rb */
  guint64 rb_pending_gen;
  double rb_submit_ms;        /* the time the submission took */
  guint rb_tick;
  gboolean rb_tick_only;      /* this redraw is only to show that frame */
  guint64 gen;                /* counts the changes of the picture */
  gboolean aa_only;           /* the change since: anti-aliasing only */
  guint64 pictures;           /* counts the pictures shown */
  gboolean threaded;          /* the last one drawn on the render thread */
  /* software path with a render thread (lw-render-thread.h): the scene is
   * drawn and read back there; rt_img is the picture taken last */
  lw_render_thread *rt;
  gboolean rt_failed;
  gboolean rt_primed;         /* its first frame asked for */
  guint rt_dirty;
  guint64 rt_gen;
  int rt_w, rt_h;
  cairo_surface_t *rt_img;
  guint64 rt_shown_gen;       /* the generation rt_img shows */
  gint64 prev_change;         /* the change before last_change */

  /* pointer */
  guint drag_button;
  GdkModifierType drag_mods;
  gboolean dragging;
  double drag_x0, drag_y0, drag_dx, drag_dy;
  double pointer_x, pointer_y;

  LwMeasureOverlay *measure;  /* Measure tool's dimensions, perturbation spring */
  gboolean perturbing;        /* a Ctrl+drag holds a body */
};

enum {
  PROP_0,
  PROP_SELECTION,
  PROP_SHOW_GRID,
  PROP_SHOW_JOINTS,
  PROP_SHOW_FRAMES,
  PROP_SHOW_FORCES,
  PROP_SHOW_TRACES,
  PROP_DARK,
  PROP_GL_ERROR,
  N_PROPS
};
static GParamSpec *props[N_PROPS];

enum { SIGNAL_RENDERED, SIGNAL_PERTURBATION, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(LwView3d, lw_view3d, GTK_TYPE_GL_AREA)

static const char *const kind_prefix[] = {NULL, "bodies/", "joints/", "forces/", "beams/"};

/* ---- helpers ---------------------------------------------------------- */
/* The picture changed: redraw now (fast, aliased while things keep moving). */
static void changed(LwView3d *self)
{
  self->prev_change = self->last_change;
  self->last_change = g_get_monotonic_time();
  self->gen++;
  self->rb_tick_only = FALSE;
  self->aa_only = FALSE;
  gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

static gboolean aa_timeout(gpointer data)
{
  LwView3d *self = data;
  if (g_get_monotonic_time() - self->last_change < AA_IDLE_US)
    return G_SOURCE_CONTINUE;
  self->aa_source = 0;
  self->gen++;
  self->aa_only = TRUE;
  gtk_gl_area_queue_render(GTK_GL_AREA(self));
  return G_SOURCE_REMOVE;
}
static void set_gl_error(LwView3d *self, const char *msg)
{
  if (g_strcmp0(self->gl_error, msg) == 0)
    return;
  g_free(self->gl_error);
  self->gl_error = g_strdup(msg);
  g_object_notify_by_pspec(G_OBJECT(self), props[PROP_GL_ERROR]);
}

static int device_size(LwView3d *self, int *w, int *h)
{
  int s = gtk_widget_get_scale_factor(GTK_WIDGET(self));
  *w = gtk_widget_get_width(GTK_WIDGET(self)) * s;
  *h = gtk_widget_get_height(GTK_WIDGET(self)) * s;
  return s;
}

static void push_traces(LwView3d *self)
{
  if (!self->renderer)
    return;
  lw_renderer_clear_traces(self->renderer);
  for (guint k = 0; k < self->traces->len; k++) {
    const trace_copy *t = &g_array_index(self->traces, trace_copy, k);
    if (t->n > 0)
      lw_renderer_set_trace(self->renderer, (int)k, t->xyz, t->n);
  }
}

/* the selection path of a pick, or NULL */
static char *pick_path(LwView3d *self, lw_pick p)
{
  if (!self->desc || p.kind == LW_PICK_NONE || p.index < 0)
    return NULL;
  const char *name = NULL;
  if (p.kind == LW_PICK_BODY && p.index < self->desc->nbodies)
    name = self->desc->bodies[p.index].name;
  else if (p.kind == LW_PICK_JOINT && p.index < self->desc->njoints)
    name = self->desc->joints[p.index].name;
  else if (p.kind == LW_PICK_FORCE && p.index < self->desc->nforces)
    name = self->desc->forces[p.index].name;
  else if (p.kind == LW_PICK_BEAM && p.index < self->desc->nbeams)
    name = self->desc->beams[p.index].name;
  return name ? g_strconcat(kind_prefix[p.kind], name, NULL) : NULL;
}

static lw_pick path_pick(LwView3d *self, const char *path)
{
  lw_pick p = {LW_PICK_NONE, -1};
  if (!self->desc || !path)
    return p;
  const lw_desc *d = self->desc;
  for (int k = LW_PICK_BODY; k <= LW_PICK_BEAM; k++) {
    if (!g_str_has_prefix(path, kind_prefix[k]))
      continue;
    const char *name = path + strlen(kind_prefix[k]);
    int n = k == LW_PICK_BODY    ? d->nbodies
            : k == LW_PICK_JOINT ? d->njoints
            : k == LW_PICK_FORCE ? d->nforces
                                 : d->nbeams;
    for (int i = 0; i < n; i++) {
      const char *ni = k == LW_PICK_BODY    ? d->bodies[i].name
                       : k == LW_PICK_JOINT ? d->joints[i].name
                       : k == LW_PICK_FORCE ? d->forces[i].name
                                            : d->beams[i].name;
      if (g_strcmp0(ni, name) == 0)
        return (lw_pick){(lw_pick_kind)k, i};
    }
  }
  return p;
}

static void apply_selection(LwView3d *self, lw_pick p)
{
  g_autofree char *path = pick_path(self, p);
  if (!path)
    p = (lw_pick){LW_PICK_NONE, -1};
  self->sel = p;
  self->rt_dirty |= RT_SEL;
  if (self->renderer)
    lw_renderer_set_selection(self->renderer, p);
  changed(self);
  if (g_strcmp0(path, self->selection) != 0) {
    g_free(self->selection);
    self->selection = g_steal_pointer(&path);
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SELECTION]);
  }
}

/* ---- GtkGLArea -------------------------------------------------------- */
static void lw_view3d_realize(GtkWidget *widget)
{
  LwView3d *self = LW_VIEW3D(widget);
  GTK_WIDGET_CLASS(lw_view3d_parent_class)->realize(widget);
  gtk_gl_area_make_current(GTK_GL_AREA(self));
  GError *e = gtk_gl_area_get_error(GTK_GL_AREA(self));
  if (e) {
    g_autofree char *msg = g_strdup_printf(_("OpenGL is not available: %s"), e->message);
    set_gl_error(self, msg);
    return;
  }
  g_autoptr(GError) err = NULL;
  self->renderer = lw_renderer_new(&err);
  if (!self->renderer) {
    g_autofree char *msg = g_strdup_printf(_("The 3-D view cannot use OpenGL: %s"), err->message);
    set_gl_error(self, msg);
    return;
  }
  set_gl_error(self, NULL);
  /* the read-back path stores B8G8R8A8 and resolves a multisampled
   * R8G8B8A8 picture into it, which OpenGL ES does not allow: there the
   * view goes through GtkGLArea's own path */
  self->rb_bgra = epoxy_is_desktop_gl();
  lw_renderer_set_model(self->renderer, self->desc);
  lw_renderer_set_options(self->renderer, &self->opt);
  lw_renderer_set_selection(self->renderer, self->sel);
  push_traces(self);
}

static void rb_drop_images(LwView3d *self);
static void rt_free(LwView3d *self);

/* nothing drawn ahead any more: the pending frame is dropped */
static void stop_readahead(LwView3d *self)
{
  self->rb_pending = FALSE;
  if (self->rb_tick) {
    gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->rb_tick);
    self->rb_tick = 0;
  }
}

/* the software path's framebuffer (its GL objects only when the context is
 * current: gl) and picture */
static void readback_free(LwView3d *self, gboolean gl)
{
  if (gl)
    lw_readback_fb_free(&self->rb);
  self->rb = (lw_readback_fb){0};
  stop_readahead(self);
  rb_drop_images(self);
}

static void lw_view3d_unrealize(GtkWidget *widget)
{
  LwView3d *self = LW_VIEW3D(widget);
  gboolean gl = FALSE;
  if (self->renderer) {
    gtk_gl_area_make_current(GTK_GL_AREA(self));
    gl = !gtk_gl_area_get_error(GTK_GL_AREA(self));
  }
  rt_free(self);
  readback_free(self, gl);
  if (self->renderer) {
    if (gl)
      lw_renderer_free(self->renderer);
    self->renderer = NULL;
  }
  GTK_WIDGET_CLASS(lw_view3d_parent_class)->unrealize(widget);
}

/* the box lo..hi grown to hold the traces drawn */
static void add_trace_bounds(const LwView3d *self, double lo[3], double hi[3])
{
  for (guint k = 0; k < self->traces->len; k++) {
    const trace_copy *t = &g_array_index(self->traces, trace_copy, k);
    for (int i = 0; i < t->n; i++)
      for (int c = 0; c < 3; c++) {
        double v = t->xyz[3 * i + c];
        if (isfinite(v)) {
          lo[c] = fmin(lo[c], v);
          hi[c] = fmax(hi[c], v);
        }
      }
  }
}

/* the camera fitted to the box lo..hi (for a w x h picture), which it
 * widens from then on */
static void fit_frame(LwView3d *self, const double lo[3], const double hi[3], int w, int h)
{
  gboolean planar = self->renderer ? lw_renderer_planar(self->renderer) : !self->desc || self->desc->planar;
  lw_camera_fit_aspect(&self->cam, lo, hi, planar, (double)w / h);
  memmove(self->frame_lo, lo, sizeof self->frame_lo); /* lo may be frame_lo */
  memmove(self->frame_hi, hi, sizeof self->frame_hi);
  self->frame_w = w, self->frame_h = h;
  self->need_fit = FALSE;
  self->auto_frame = TRUE;
}

/* every corner of the box lo..hi inside the w x h picture of cam */
static gboolean box_in_view(const lw_camera *cam, const double lo[3], const double hi[3], int w, int h)
{
  for (int k = 0; k < 8; k++) {
    double p[3] = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]}, x, y;
    if (!lw_camera_project(cam, w, h, p, &x, &y) || x < 0 || x > w || y < 0 || y > h)
      return FALSE;
  }
  return TRUE;
}

/* A mechanism (or its traces) that goes out of the picture (a pendulum
 * swinging out of its starting pose) widens the box the camera is fitted
 * to, by a fifth of the box's size on each side it crossed, and the camera
 * is fitted again: the motion stays in view and the camera changes only now
 * and then.  It never narrows. */
static void widen_frame(LwView3d *self, const lw_render_state *s, int w, int h)
{
  double lo[3], hi[3];
  if (!lw_renderer_bounds(self->renderer, s, lo, hi))
    return;
  add_trace_bounds(self, lo, hi);
  for (int i = 0; i < 3; i++)
    if (!isfinite(lo[i]) || !isfinite(hi[i]))
      return;
  if (box_in_view(&self->cam, lo, hi, w, h))
    return;
  for (int i = 0; i < 3; i++) {
    double nlo = fmin(self->frame_lo[i], lo[i]), nhi = fmax(self->frame_hi[i], hi[i]), margin = 0.2 * (nhi - nlo);
    if (lo[i] < self->frame_lo[i])
      self->frame_lo[i] = nlo - margin;
    if (hi[i] > self->frame_hi[i])
      self->frame_hi[i] = nhi + margin;
  }
  fit_frame(self, self->frame_lo, self->frame_hi, w, h);
}

/* the camera for a frame of w x h device pixels (fitted, refitted to a new
 * shape, or widened to the motion); TRUE when the picture has been still
 * long enough to be drawn with anti-aliasing */
static gboolean frame_begin(LwView3d *self, int w, int h, gint64 t0)
{
  const lw_render_state *s = self->has_state ? &self->state : NULL;
  if (self->need_fit && (s || !self->desc) && w > 0 && h > 0) {
    double lo[3], hi[3];
    lw_renderer_reset_scale(self->renderer);
    self->rt_dirty |= RT_SCALE;
    lw_renderer_bounds(self->renderer, s, lo, hi);
    add_trace_bounds(self, lo, hi); /* a run already made: its whole motion */
    lw_renderer_up(self->renderer, self->cam.up);
    fit_frame(self, lo, hi, w, h);
  } else if (self->auto_frame && w > 0 && h > 0 && (w != self->frame_w || h != self->frame_h)) {
    /* the view was resized (the window, or the palette sliding in beside
     * it): the same box fitted to the new shape, edits or not */
    fit_frame(self, self->frame_lo, self->frame_hi, w, h);
  } else if (self->auto_frame && !self->no_follow && s && w > 0 && h > 0) {
    widen_frame(self, s, w, h);
  }
  return t0 - self->last_change >= AA_IDLE_US;
}

/* a frame drawn (or handed to the render thread): anti-aliased once the
 * picture stays still */
static void frame_end(LwView3d *self, gboolean still)
{
  if (!still && !self->aa_source)
    self->aa_source = g_timeout_add(AA_IDLE_US / 1000 + 20, aa_timeout, self);
  g_signal_emit(self, signals[SIGNAL_RENDERED], 0);
}

/* draw the scene into the bound framebuffer, w x h device pixels */
static void draw_scene(LwView3d *self, int w, int h, gboolean finish)
{
  gint64 t0 = g_get_monotonic_time();
  gboolean still = frame_begin(self, w, h, t0);
  lw_renderer_set_samples(self->renderer, still ? AA_SAMPLES : 0);
  lw_renderer_draw(self->renderer, &self->cam, w, h, self->has_state ? &self->state : NULL);
  if (finish)
    glFinish(); /* the frame time includes the rasterisation */
  else
    glFlush(); /* rasterised while the caller goes on */
  self->frame_ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
  frame_end(self, still);
}

/* GtkGLArea 4.8 allows desktop GL only (its use-es is a yes or no): this
 * context may be desktop GL 3.3 core or, where that is what there is,
 * OpenGL ES 3.0; the renderer's shaders are written for both. */
static GdkGLContext *lw_view3d_create_context(GtkGLArea *area)
{
  GError *error = NULL;
  GtkNative *native = gtk_widget_get_native(GTK_WIDGET(area));
  GdkGLContext *ctx = native ? gdk_surface_create_gl_context(gtk_native_get_surface(native), &error) : NULL;
  if (ctx) {
    gdk_gl_context_set_allowed_apis(ctx, GDK_GL_API_GL | GDK_GL_API_GLES);
    gdk_gl_context_set_required_version(ctx, 3, 0); /* 3.3 for desktop GL is checked by the renderer */
    if (!gdk_gl_context_realize(ctx, &error))
      g_clear_object(&ctx);
  }
  if (!ctx) {
    if (!error)
      error = g_error_new_literal(GDK_GL_ERROR, GDK_GL_ERROR_NOT_AVAILABLE, _("the view has no window to draw in"));
    gtk_gl_area_set_error(area, error);
    g_error_free(error);
  }
  return ctx;
}

static gboolean lw_view3d_render(GtkGLArea *area, GdkGLContext *context)
{
  (void)context;
  LwView3d *self = LW_VIEW3D(area);
  int w, h;
  device_size(self, &w, &h);
  if (!self->renderer) {
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    return TRUE;
  }
  lw_renderer_set_flip_y(self->renderer, FALSE);
  draw_scene(self, w, h, TRUE);
  self->pictures++;
  return TRUE;
}

static void rb_drop_images(LwView3d *self)
{
  for (int i = 0; i < RB_RING; i++)
    g_clear_pointer(&self->rb_ring[i], cairo_surface_destroy);
  self->rb_img = NULL;
  self->rb_next = 0;
}

/* the picture in the read-back framebuffer into rb_img: the oldest surface
 * of the ring, which no frame GTK will draw again shows */
static void readback_image(LwView3d *self, int w, int h)
{
  cairo_surface_t *img = lw_readback_surface(&self->rb_ring[self->rb_next], w, h);
  self->rb_next = (self->rb_next + 1) % RB_RING;
  lw_readback_read(&self->rb, img);
  self->rb_img = img;
  self->pictures++;
}

/* a frame drawn ahead is waiting to be read back: redraw the view */
static gboolean rb_tick_cb(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  (void)clock, (void)data;
  LwView3d *self = LW_VIEW3D(widget);
  if (self->rb_pending) {
    self->rb_tick_only = TRUE;
    gtk_widget_queue_draw(widget);
    return G_SOURCE_CONTINUE;
  }
  if (self->rt && lw_render_thread_has_new(self->rt)) {
    gtk_widget_queue_draw(widget); /* shown at this frame */
    return G_SOURCE_CONTINUE;
  }
  if (self->rt && lw_render_thread_busy(self->rt))
    return G_SOURCE_CONTINUE;
  self->rb_tick = 0;
  return G_SOURCE_REMOVE;
}

/* the picture img (w x h device pixels) over the whole view, painted
 * through cairo: a cairo node's surface is composited by pixman (a memory
 * texture would be converted pixel by pixel through floating point: a fifth
 * more of the main thread) */
static void paint_picture(LwView3d *self, GtkSnapshot *snapshot, cairo_surface_t *img, int w, int h)
{
  GtkWidget *widget = GTK_WIDGET(self);
  double sw = gtk_widget_get_width(widget), sh = gtk_widget_get_height(widget);
  cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, (float)sw, (float)sh));
  cairo_scale(cr, sw / w, sh / h);
  cairo_set_source_surface(cr, img, 0, 0);
  cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
  cairo_paint(cr);
  cairo_destroy(cr);
}

static void rt_free(LwView3d *self)
{
  g_clear_pointer(&self->rt, lw_render_thread_free);
  self->rt_img = NULL;
  self->rt_primed = FALSE;
  self->rt_gen = 0;
  self->rt_w = self->rt_h = 0;
}

/* tell the render thread what changed besides the state */
static void rt_sync(LwView3d *self)
{
  guint d = self->rt_dirty;
  self->rt_dirty = 0;
  if (d & RT_MODEL)
    lw_render_thread_set_model(self->rt, self->desc);
  if (d & RT_OPT)
    lw_render_thread_set_options(self->rt, &self->opt);
  if (d & RT_SEL)
    lw_render_thread_set_selection(self->rt, self->sel);
  if (d & RT_TRACES) {
    int n = (int)self->traces->len;
    const double **xyz = g_newa(const double *, MAX(n, 1));
    int *np = g_newa(int, MAX(n, 1));
    for (int k = 0; k < n; k++) {
      const trace_copy *t = &g_array_index(self->traces, trace_copy, k);
      xyz[k] = t->xyz, np[k] = t->n;
    }
    lw_render_thread_set_traces(self->rt, n, xyz, np);
  }
  if (d & RT_SCALE)
    lw_render_thread_reset_scale(self->rt);
}

/* the render thread, started at the first frame of the software path; FALSE
 * (this frame drawn here) while it starts and until it has drawn a first
 * frame (llvmpipe compiles the shaders' variants then: tens of ms nobody
 * waits for), when it could not start or when LW_VIEW_NO_THREAD is set */
static gboolean rt_usable(LwView3d *self, int w, int h)
{
  if (self->rt_failed || g_getenv("LW_VIEW_NO_THREAD"))
    return FALSE;
  if (!self->rt) {
    self->rt = lw_render_thread_new();
    self->rt_dirty = RT_ALL;
  }
  switch (lw_render_thread_get_status(self->rt)) {
  case LW_RENDER_THREAD_READY:
    if (!self->rt_img && !self->rt_primed) {
      rt_sync(self);
      lw_render_thread_submit(self->rt, &self->cam, w, h, 0, self->has_state ? &self->state : NULL, self->gen);
      self->rt_primed = TRUE;
      /* taken over at the frame after it is done, while the view is still
       * (rb_tick_cb) */
      if (!self->rb_tick)
        self->rb_tick = gtk_widget_add_tick_callback(GTK_WIDGET(self), rb_tick_cb, NULL, NULL);
    }
    if (!self->rt_img && !lw_render_thread_has_new(self->rt))
      return FALSE;
    stop_readahead(self); /* a frame drawn ahead here is not waited for */
    return TRUE;
  case LW_RENDER_THREAD_FAILED: /* the thread said why */
    rt_free(self);
    self->rt_failed = TRUE;
    return FALSE;
  default:
    return FALSE;
  }
}

/* The software path with the render thread: a new picture is handed over
 * when the scene or the size changed.  While the picture keeps changing it
 * is shown when done (at a later frame: rb_tick_cb), the newest done shown
 * meanwhile; so is the anti-aliased picture of a scene already shown (a
 * large model's takes a tenth of a second); any other still one is waited
 * for. */
static void thread_snapshot(LwView3d *self, GtkSnapshot *snapshot, int w, int h)
{
  if (self->rt_gen != self->gen || self->rt_w != w || self->rt_h != h || !self->rt_img) {
    gboolean moving = self->last_change - self->prev_change < ASYNC_GAP_US;
    gboolean smoothing = self->aa_only && self->rt_w == w && self->rt_h == h;
    gboolean still = frame_begin(self, w, h, g_get_monotonic_time());
    rt_sync(self);
    lw_render_thread_submit(self->rt, &self->cam, w, h, still ? AA_SAMPLES : 0,
                            self->has_state ? &self->state : NULL, self->gen);
    self->rt_gen = self->gen;
    self->rt_w = w, self->rt_h = h;
    /* the first frame of a moving picture on the thread: the last one read
     * back here is shown meanwhile */
    gboolean fallback = !self->rt_img && moving && self->rb_img;
    if ((!self->rt_img && !fallback) || (!moving && !smoothing))
      lw_render_thread_wait(self->rt, self->gen);
    else if (!self->rb_tick)
      self->rb_tick = gtk_widget_add_tick_callback(GTK_WIDGET(self), rb_tick_cb, NULL, NULL);
    frame_end(self, still);
  }
  guint64 gen;
  double ms;
  cairo_surface_t *img = lw_render_thread_take(self->rt, &gen, &ms);
  if (img && gen != self->rt_shown_gen)
    self->pictures++;
  self->rt_shown_gen = gen;
  if (img) {
    self->rt_img = img;
    self->frame_ms = ms;
  }
  self->threaded = self->rt_img != NULL;
  cairo_surface_t *shown = self->rt_img ? self->rt_img : self->rb_img;
  if (shown)
    paint_picture(self, snapshot, shown, cairo_image_surface_get_width(shown), cairo_image_surface_get_height(shown));
}

/* With GTK's cairo renderer (chosen on software GL: see lw-application.c)
 * GtkGLArea's texture is read back and converted pixel by pixel through
 * floating point, which cost more than drawing the frame.  Here the scene
 * is drawn into a framebuffer of our own and read back as B8G8R8A8
 * premultiplied, the format cairo composites, so GTK copies it as it is. */
static gboolean readback_snapshot(LwView3d *self, GtkSnapshot *snapshot)
{
  GtkWidget *widget = GTK_WIDGET(self);
  GtkNative *native = gtk_widget_get_native(widget);
  GskRenderer *gr = native ? gtk_native_get_renderer(native) : NULL;
  if (!gr || !GSK_IS_CAIRO_RENDERER(gr) || !self->renderer || !self->rb_bgra || g_getenv("LW_VIEW_NO_READBACK")) {
    stop_readahead(self); /* GtkGLArea's own path */
    return FALSE;
  }
  int w, h;
  device_size(self, &w, &h);
  if (w <= 0 || h <= 0)
    return TRUE;
  if (rt_usable(self, w, h)) {
    thread_snapshot(self, snapshot, w, h);
    return TRUE;
  }
  gtk_gl_area_make_current(GTK_GL_AREA(self));
  if (gtk_gl_area_get_error(GTK_GL_AREA(self)))
    return FALSE;
  if (!self->rb.fbo || self->rb.w != w || self->rb.h != h) {
    readback_free(self, TRUE);
    if (!lw_readback_fb_size(&self->rb, w, h)) {
      readback_free(self, TRUE);
      return FALSE; /* GtkGLArea's own path */
    }
    self->rb_warm = FALSE;
  }
  if (!self->rb_warm && self->has_state) {
    /* llvmpipe compiles shader variants at the first draw into a kind of
     * framebuffer.  The frames of a moving picture go without multisampling
     * straight into rb, the still ones through a multisampled buffer:
     * one frame of the first kind drawn now, while the picture is still,
     * keeps that compilation (15-35 ms) out of the first frame of a run.
     * The still frame drawn next overwrites it. */
    glBindFramebuffer(GL_FRAMEBUFFER, self->rb.fbo);
    lw_renderer_set_flip_y(self->renderer, TRUE);
    lw_renderer_set_samples(self->renderer, 0);
    lw_renderer_draw(self->renderer, &self->cam, w, h, &self->state);
    self->rb_warm = TRUE;
  }
  gboolean moving = self->last_change - self->prev_change < ASYNC_GAP_US;
  if (self->rb_pending) {
    gint64 t0 = g_get_monotonic_time();
    readback_image(self, w, h);
    self->rb_img_gen = self->rb_pending_gen;
    self->rb_pending = FALSE;
    /* the frame time: submission, and what is left to wait for now */
    self->frame_ms = self->rb_submit_ms + (double)(g_get_monotonic_time() - t0) / 1000.0;
  }
  gboolean tick_only = self->rb_tick_only;
  self->rb_tick_only = FALSE;
  if (!self->rb_img || self->rb_img_gen != self->gen || !tick_only) {
    gboolean async = self->rb_img && moving;
    glBindFramebuffer(GL_FRAMEBUFFER, self->rb.fbo);
    lw_renderer_set_flip_y(self->renderer, TRUE);
    draw_scene(self, w, h, !async);
    if (async) {
      self->rb_pending = TRUE;
      self->rb_pending_gen = self->gen;
      self->rb_submit_ms = self->frame_ms;
      /* shown at the next frame even when nothing else changes */
      if (!self->rb_tick)
        self->rb_tick = gtk_widget_add_tick_callback(widget, rb_tick_cb, NULL, NULL);
    } else {
      readback_image(self, w, h);
      self->rb_img_gen = self->gen;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
  }
  self->threaded = FALSE;
  paint_picture(self, snapshot, self->rb_img, w, h);
  return TRUE;
}

static void measure_snapshot(LwView3d *self, GtkSnapshot *snapshot);

static void lw_view3d_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
  if (!readback_snapshot(LW_VIEW3D(widget), snapshot)) {
    LW_VIEW3D(widget)->threaded = FALSE;
    GTK_WIDGET_CLASS(lw_view3d_parent_class)->snapshot(widget, snapshot);
  }
  measure_snapshot(LW_VIEW3D(widget), snapshot);
}

/* ---- pointer -------------------------------------------------------- */
/* the user (or set_camera) has placed the camera: no fit, no widening */
static void camera_taken(LwView3d *self)
{
  self->need_fit = self->auto_frame = FALSE;
  changed(self);
}

static gboolean perturb_begin(LwView3d *self, double x, double y);
static gboolean measure_drag_update(LwView3d *self, double ox, double oy);
static gboolean measure_drag_end(LwView3d *self, double ox, double oy);

static void drag_begin(GtkGestureDrag *g, double x, double y, LwView3d *self)
{
  self->drag_button = gtk_gesture_single_get_current_button(GTK_GESTURE_SINGLE(g));
  self->drag_mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));
  self->drag_x0 = x, self->drag_y0 = y;
  self->drag_dx = self->drag_dy = 0;
  self->dragging = FALSE;
  gtk_widget_grab_focus(GTK_WIDGET(self));
  perturb_begin(self, x, y);
}

static void drag_update(GtkGestureDrag *g, double ox, double oy, LwView3d *self)
{
  (void)g;
  if (measure_drag_update(self, ox, oy))
    return;
  if (!self->dragging && hypot(ox, oy) < DRAG_THRESHOLD)
    return;
  self->dragging = TRUE;
  double dx = ox - self->drag_dx, dy = oy - self->drag_dy;
  self->drag_dx = ox, self->drag_dy = oy;
  gboolean shift = (self->drag_mods & GDK_SHIFT_MASK) != 0;
  gboolean planar = self->desc && self->desc->planar;
  gboolean orbit = self->drag_button == GDK_BUTTON_PRIMARY && (planar ? shift : !shift);
  if (orbit)
    lw_camera_orbit(&self->cam, -dx * ORBIT_RATE, dy * ORBIT_RATE);
  else
    lw_camera_pan(&self->cam, dx, dy, gtk_widget_get_width(GTK_WIDGET(self)),
                  gtk_widget_get_height(GTK_WIDGET(self)));
  camera_taken(self);
}

static void drag_end(GtkGestureDrag *g, double ox, double oy, LwView3d *self)
{
  (void)g;
  if (measure_drag_end(self, ox, oy))
    return;
  if (!self->dragging && self->drag_button == GDK_BUTTON_PRIMARY) {
    lw_pick p;
    lw_view3d_pick(self, self->drag_x0 + ox, self->drag_y0 + oy, &p);
    if (!self->gl_error)
      apply_selection(self, p);
  }
  self->dragging = FALSE;
}

static void motion(GtkEventControllerMotion *c, double x, double y, LwView3d *self)
{
  (void)c;
  self->pointer_x = x, self->pointer_y = y;
}

static gboolean scroll(GtkEventControllerScroll *c, double dx, double dy, LwView3d *self)
{
  (void)c, (void)dx;
  if (dy == 0)
    return FALSE;
  lw_camera_zoom(&self->cam, pow(1.15, dy), self->pointer_x, self->pointer_y,
                 gtk_widget_get_width(GTK_WIDGET(self)), gtk_widget_get_height(GTK_WIDGET(self)));
  camera_taken(self);
  return TRUE;
}

/* ---- actions ----------------------------------------------------------- */
static void action_reset(GtkWidget *w, const char *name, GVariant *param)
{
  (void)name, (void)param;
  lw_view3d_reset_camera(LW_VIEW3D(w));
}

static void action_zoom(GtkWidget *w, const char *name, GVariant *param)
{
  (void)param;
  lw_view3d_zoom(LW_VIEW3D(w), strcmp(name, "view.zoom-in") == 0 ? 1 / ZOOM_STEP : ZOOM_STEP);
}

/* ---- GObject ------------------------------------------------------------ */
static gboolean *option_field(LwView3d *self, guint prop)
{
  switch (prop) {
  case PROP_SHOW_GRID: return &self->opt.show_grid;
  case PROP_SHOW_JOINTS: return &self->opt.show_joints;
  case PROP_SHOW_FRAMES: return &self->opt.show_frames;
  case PROP_SHOW_FORCES: return &self->opt.show_forces;
  case PROP_SHOW_TRACES: return &self->opt.show_traces;
  case PROP_DARK: return &self->opt.dark;
  default: return NULL;
  }
}

static void lw_view3d_get_property(GObject *obj, guint prop, GValue *value, GParamSpec *pspec)
{
  LwView3d *self = LW_VIEW3D(obj);
  gboolean *f = option_field(self, prop);
  if (f) {
    g_value_set_boolean(value, *f);
    return;
  }
  switch (prop) {
  case PROP_SELECTION:
    g_value_set_string(value, self->selection);
    break;
  case PROP_GL_ERROR:
    g_value_set_string(value, self->gl_error);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, prop, pspec);
  }
}

void lw_view3d_set_grid_step(LwView3d *self, double step)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  if (!(step > 0) || step == self->opt.grid_step)
    return;
  self->opt.grid_step = step;
  self->rt_dirty |= RT_OPT;
  if (self->renderer)
    lw_renderer_set_options(self->renderer, &self->opt);
  changed(self);
}

double lw_view3d_get_grid_spacing(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), 0);
  lw_camera cam;
  lw_view3d_get_camera(self, &cam);
  return lw_grid_step(&cam, self->opt.grid_step);
}

static void lw_view3d_set_property(GObject *obj, guint prop, const GValue *value, GParamSpec *pspec)
{
  LwView3d *self = LW_VIEW3D(obj);
  gboolean *f = option_field(self, prop);
  if (f) {
    gboolean v = g_value_get_boolean(value);
    if (*f != v) {
      *f = v;
      self->rt_dirty |= RT_OPT;
      if (self->renderer)
        lw_renderer_set_options(self->renderer, &self->opt);
      changed(self);
      g_object_notify_by_pspec(obj, pspec);
    }
    return;
  }
  switch (prop) {
  case PROP_SELECTION:
    lw_view3d_set_selection(self, g_value_get_string(value));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, prop, pspec);
  }
}

static void clear_trace_copies(LwView3d *self)
{
  self->rt_dirty |= RT_TRACES;
  for (guint k = 0; k < self->traces->len; k++)
    g_free(g_array_index(self->traces, trace_copy, k).xyz);
  g_array_set_size(self->traces, 0);
}

static void lw_view3d_dispose(GObject *obj)
{
  LwView3d *self = LW_VIEW3D(obj);
  g_clear_handle_id(&self->aa_source, g_source_remove);
  G_OBJECT_CLASS(lw_view3d_parent_class)->dispose(obj);
}

static void lw_view3d_finalize(GObject *obj)
{
  LwView3d *self = LW_VIEW3D(obj);
  clear_trace_copies(self);
  g_array_unref(self->traces);
  lw_desc_free(self->desc);
  g_free(self->poses);
  g_free(self->joints);
  g_free(self->sticking);
  g_free(self->marks);
  g_free(self->forces);
  g_free(self->beam_pts);
  g_free(self->beam_rgb);
  g_free(self->selection);
  g_free(self->gl_error);
  lw_measure_overlay_free(self->measure);
  rb_drop_images(self);
  rt_free(self);
  G_OBJECT_CLASS(lw_view3d_parent_class)->finalize(obj);
}

static void lw_view3d_class_init(LwView3dClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS(klass);
  GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
  GtkGLAreaClass *ac = GTK_GL_AREA_CLASS(klass);
  oc->get_property = lw_view3d_get_property;
  oc->set_property = lw_view3d_set_property;
  oc->dispose = lw_view3d_dispose;
  oc->finalize = lw_view3d_finalize;
  wc->realize = lw_view3d_realize;
  wc->unrealize = lw_view3d_unrealize;
  wc->snapshot = lw_view3d_snapshot;
  ac->render = lw_view3d_render;
  ac->create_context = lw_view3d_create_context;

  props[PROP_SELECTION] = g_param_spec_string("selection", NULL, NULL, NULL,
                                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_SHOW_GRID] = g_param_spec_boolean("show-grid", NULL, NULL, TRUE,
                                               G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_SHOW_JOINTS] = g_param_spec_boolean("show-joints", NULL, NULL, TRUE,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_SHOW_FRAMES] = g_param_spec_boolean("show-frames", NULL, NULL, FALSE,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_SHOW_FORCES] = g_param_spec_boolean("show-forces", NULL, NULL, TRUE,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_SHOW_TRACES] = g_param_spec_boolean("show-traces", NULL, NULL, TRUE,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the dark style's background (the application follows the desktop's style) */
  props[PROP_DARK] = g_param_spec_boolean("dark", NULL, NULL, FALSE,
                                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_GL_ERROR] = g_param_spec_string("gl-error", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties(oc, N_PROPS, props);

  signals[SIGNAL_RENDERED] = g_signal_new("rendered", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
  /* a Ctrl+drag grabbed, pulled or let go of a body (lw_view3d_get_perturbation) */
  signals[SIGNAL_PERTURBATION] = g_signal_new("perturbation-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                              0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_install_action(wc, "view.reset-camera", NULL, action_reset);
  gtk_widget_class_install_action(wc, "view.zoom-in", NULL, action_zoom);
  gtk_widget_class_install_action(wc, "view.zoom-out", NULL, action_zoom);
  gtk_widget_class_install_property_action(wc, "view.show-grid", "show-grid");
  gtk_widget_class_install_property_action(wc, "view.show-joints", "show-joints");
  gtk_widget_class_install_property_action(wc, "view.show-frames", "show-frames");
  gtk_widget_class_install_property_action(wc, "view.show-forces", "show-forces");
  gtk_widget_class_install_property_action(wc, "view.show-traces", "show-traces");
  gtk_widget_class_add_binding_action(wc, GDK_KEY_Home, 0, "view.reset-camera", NULL);
  gtk_widget_class_add_binding_action(wc, GDK_KEY_plus, 0, "view.zoom-in", NULL);
  gtk_widget_class_add_binding_action(wc, GDK_KEY_KP_Add, 0, "view.zoom-in", NULL);
  gtk_widget_class_add_binding_action(wc, GDK_KEY_minus, 0, "view.zoom-out", NULL);
  gtk_widget_class_add_binding_action(wc, GDK_KEY_KP_Subtract, 0, "view.zoom-out", NULL);
  gtk_widget_class_set_accessible_role(wc, GTK_ACCESSIBLE_ROLE_IMG);
  gtk_widget_class_set_css_name(wc, "lw-view3d");
}

/* ---- Measure tool and perturbation spring (lw-measure-overlay.h) ---- */
static void measure_snapshot(LwView3d *self, GtkSnapshot *snapshot)
{
  if (self->has_state && self->measure)
    lw_measure_overlay_snapshot(self->measure, GTK_WIDGET(self), snapshot, self->desc && self->desc->planar,
                                &self->state, &self->cam, gtk_widget_get_width(GTK_WIDGET(self)),
                                gtk_widget_get_height(GTK_WIDGET(self)));
}

static void measure_changed(LwView3d *self)
{
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* Ctrl+primary on a body grabs it (perturbation spring) */
static gboolean perturb_begin(LwView3d *self, double x, double y)
{
  lw_pick p;
  if (self->drag_button != GDK_BUTTON_PRIMARY || !(self->drag_mods & GDK_CONTROL_MASK) || !self->has_state ||
      !lw_view3d_pick(self, x, y, &p) || p.kind != LW_PICK_BODY)
    return FALSE;
  lw_measure_overlay_grab(self->measure, self->desc && self->desc->planar, &self->state, &self->cam,
                          gtk_widget_get_width(GTK_WIDGET(self)), gtk_widget_get_height(GTK_WIDGET(self)),
                          p.index, x, y);
  self->perturbing = TRUE;
  g_signal_emit(self, signals[SIGNAL_PERTURBATION], 0);
  measure_changed(self);
  return TRUE;
}

static gboolean measure_drag_update(LwView3d *self, double ox, double oy)
{
  if (!self->perturbing)
    return FALSE;
  lw_measure_overlay_pull(self->measure, self->desc && self->desc->planar, &self->state, &self->cam,
                          gtk_widget_get_width(GTK_WIDGET(self)), gtk_widget_get_height(GTK_WIDGET(self)),
                          self->drag_x0 + ox, self->drag_y0 + oy);
  g_signal_emit(self, signals[SIGNAL_PERTURBATION], 0);
  measure_changed(self);
  return TRUE;
}

/* the end of a perturbation, or a click of the Measure tool */
static gboolean measure_drag_end(LwView3d *self, double ox, double oy)
{
  if (self->perturbing) {
    self->perturbing = FALSE;
    lw_measure_overlay_release(self->measure);
    g_signal_emit(self, signals[SIGNAL_PERTURBATION], 0);
    measure_changed(self);
    return TRUE;
  }
  if (self->dragging || self->drag_button != GDK_BUTTON_PRIMARY || !lw_measure_overlay_get_tool(self->measure))
    return FALSE;
  lw_view3d_measure_click(self, self->drag_x0 + ox, self->drag_y0 + oy);
  return TRUE;
}

gboolean lw_view3d_perturbation_grab(LwView3d *self, double x, double y)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), FALSE);
  self->drag_button = GDK_BUTTON_PRIMARY;
  self->drag_mods = GDK_CONTROL_MASK;
  self->drag_x0 = x, self->drag_y0 = y;
  self->dragging = FALSE;
  return perturb_begin(self, x, y);
}

void lw_view3d_perturbation_pull(LwView3d *self, double ox, double oy)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  measure_drag_update(self, ox, oy);
}

void lw_view3d_perturbation_release(LwView3d *self)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  if (self->perturbing)
    measure_drag_end(self, 0, 0);
}

void lw_view3d_measure_click(LwView3d *self, double x, double y)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  lw_pick p;
  int body = lw_view3d_pick(self, x, y, &p) && p.kind == LW_PICK_BODY ? p.index : -1;
  lw_measure_overlay_click(self->measure, self->desc, self->has_state ? &self->state : NULL, &self->cam,
                           gtk_widget_get_width(GTK_WIDGET(self)), gtk_widget_get_height(GTK_WIDGET(self)), x, y,
                           body);
  measure_changed(self);
}

/* Escape drops a half-made measure, Delete the selected one */
static gboolean measure_key(GtkEventControllerKey *c, guint keyval, guint code, GdkModifierType mods,
                            LwView3d *self)
{
  (void)c, (void)code, (void)mods;
  gboolean used = FALSE;
  if (keyval == GDK_KEY_Escape)
    used = lw_measure_overlay_cancel(self->measure);
  else if (keyval == GDK_KEY_Delete || keyval == GDK_KEY_KP_Delete)
    used = lw_measure_overlay_delete_selected(self->measure);
  if (used)
    measure_changed(self);
  return used;
}

static void measure_init(LwView3d *self)
{
  self->measure = lw_measure_overlay_new();
  GtkEventController *k = gtk_event_controller_key_new();
  g_signal_connect(k, "key-pressed", G_CALLBACK(measure_key), self);
  gtk_widget_add_controller(GTK_WIDGET(self), k);
}

void lw_view3d_set_measure_tool(LwView3d *self, gboolean on)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  lw_measure_overlay_set_tool(self->measure, on);
  measure_changed(self);
}

gboolean lw_view3d_get_measure_tool(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), FALSE);
  return lw_measure_overlay_get_tool(self->measure);
}

LwMeasureOverlay *lw_view3d_get_measures(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), NULL);
  return self->measure;
}

void lw_view3d_clear_measures(LwView3d *self)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  lw_measure_overlay_clear(self->measure);
  measure_changed(self);
}

gboolean lw_view3d_get_perturbation(LwView3d *self, int *body, double p[3], double target[3])
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), FALSE);
  return lw_measure_overlay_get_perturbation(self->measure, body, p, target);
}

static void lw_view3d_init(LwView3d *self)
{
  GtkGLArea *area = GTK_GL_AREA(self);
  gtk_gl_area_set_required_version(area, 3, 3);
  gtk_gl_area_set_has_depth_buffer(area, TRUE);
  gtk_gl_area_set_auto_render(area, FALSE); /* redrawn on changes only */
  gtk_widget_set_focusable(GTK_WIDGET(self), TRUE);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("3-D view"), -1);

  self->traces = g_array_new(FALSE, TRUE, sizeof(trace_copy));
  self->opt = (lw_render_options){TRUE, TRUE, FALSE, TRUE, TRUE, 0.1, FALSE};
  self->sel = (lw_pick){LW_PICK_NONE, -1};
  lw_camera_init(&self->cam);
  self->need_fit = TRUE;

  GtkGesture *drag = gtk_gesture_drag_new();
  gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), 0);
  g_signal_connect(drag, "drag-begin", G_CALLBACK(drag_begin), self);
  g_signal_connect(drag, "drag-update", G_CALLBACK(drag_update), self);
  g_signal_connect(drag, "drag-end", G_CALLBACK(drag_end), self);
  gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drag));

  GtkEventController *m = gtk_event_controller_motion_new();
  g_signal_connect(m, "enter", G_CALLBACK(motion), self);
  g_signal_connect(m, "motion", G_CALLBACK(motion), self);
  gtk_widget_add_controller(GTK_WIDGET(self), m);

  GtkEventController *sc = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect(sc, "scroll", G_CALLBACK(scroll), self);
  gtk_widget_add_controller(GTK_WIDGET(self), sc);
  measure_init(self);
}

/* ---- public API ------------------------------------------------------- */
GtkWidget *lw_view3d_new(void)
{
  return g_object_new(LW_TYPE_VIEW3D, NULL);
}

void lw_view3d_set_model(LwView3d *self, const lw_desc *desc)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  lw_desc *copy = desc ? lw_desc_copy(desc) : NULL;
  if (self->measure)
    lw_measure_overlay_follow_model(self->measure, self->desc, copy);
  lw_desc_free(self->desc);
  self->desc = copy;
  self->rt_dirty |= RT_MODEL;
  self->has_state = FALSE;
  clear_trace_copies(self);
  if (self->renderer) {
    lw_renderer_set_model(self->renderer, self->desc);
    lw_renderer_clear_traces(self->renderer);
  }
  apply_selection(self, (lw_pick){LW_PICK_NONE, -1});
  self->need_fit = TRUE;
  self->rb_warm = FALSE;
  changed(self);
}

static double *copy_into(double **buf, int *cap, const double *src, size_t n)
{
  if (!src || n == 0)
    return NULL;
  if ((size_t)*cap < n) {
    *buf = g_renew(double, *buf, n);
    *cap = (int)n;
  }
  memcpy(*buf, src, n * sizeof(double));
  return *buf;
}

void lw_view3d_set_state(LwView3d *self, const lw_render_state *state)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  if (!state) {
    self->has_state = FALSE;
    changed(self);
    return;
  }
  lw_render_state *s = &self->state;
  s->t = state->t;
  s->nbodies = state->body_pose ? state->nbodies : 0;
  s->njoints = state->joints ? state->njoints : 0;
  s->nforces = state->forces ? state->nforces : 0;
  s->body_pose = copy_into(&self->poses, &self->cap_poses, state->body_pose, 12 * (size_t)s->nbodies);
  s->joints = copy_into(&self->joints, &self->cap_joints, state->joints, 6 * (size_t)s->njoints);
  s->forces = copy_into(&self->forces, &self->cap_forces, state->forces, 6 * (size_t)s->nforces);
  s->joint_sticking = state->joint_sticking && s->njoints
                        ? copy_into(&self->sticking, &self->cap_sticking, state->joint_sticking, (size_t)s->njoints)
                        : NULL;
  s->nmarks = state->marks ? state->nmarks : 0;
  s->marks = s->nmarks ? copy_into(&self->marks, &self->cap_marks, state->marks,
                                   LW_RENDER_MARK_DOUBLES * (size_t)s->nmarks)
                       : NULL;
  s->nbeam_pts = state->beam_pts ? state->nbeam_pts : 0;
  s->beam_pts = copy_into(&self->beam_pts, &self->cap_beam_pts, state->beam_pts, 4 * (size_t)s->nbeam_pts);
  s->beam_rgb = state->beam_rgb && s->nbeam_pts
                  ? copy_into(&self->beam_rgb, &self->cap_beam_rgb, state->beam_rgb, 3 * (size_t)s->nbeam_pts)
                  : NULL;
  self->has_state = TRUE;
  changed(self);
}

void lw_view3d_set_trace(LwView3d *self, int k, const double *xyz, int n)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  if (k < 0)
    return;
  if ((guint)k >= self->traces->len)
    g_array_set_size(self->traces, (guint)k + 1);
  trace_copy *t = &g_array_index(self->traces, trace_copy, k);
  g_free(t->xyz);
  t->xyz = xyz && n > 0 ? g_memdup2(xyz, sizeof(double) * 3 * (size_t)n) : NULL;
  t->n = t->xyz ? n : 0;
  self->rt_dirty |= RT_TRACES;
  if (self->renderer)
    lw_renderer_set_trace(self->renderer, k, t->xyz, t->n);
  changed(self);
}

void lw_view3d_clear_traces(LwView3d *self)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  clear_trace_copies(self);
  if (self->renderer)
    lw_renderer_clear_traces(self->renderer);
  changed(self);
}

void lw_view3d_redraw(LwView3d *self)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  changed(self);
}

void lw_view3d_reset_camera(LwView3d *self)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  self->need_fit = TRUE;
  changed(self);
}

void lw_view3d_zoom(LwView3d *self, double factor)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
  lw_camera_zoom(&self->cam, factor, 0.5 * w, 0.5 * h, w, h);
  camera_taken(self);
}

const char *lw_view3d_get_selection(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), NULL);
  return self->selection;
}

void lw_view3d_set_selection(LwView3d *self, const char *path)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  apply_selection(self, path_pick(self, path));
}

const char *lw_view3d_get_gl_error(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), NULL);
  return self->gl_error;
}

gboolean lw_view3d_get_threaded(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), FALSE);
  return self->threaded;
}

guint64 lw_view3d_get_pictures(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), 0);
  return self->pictures;
}

double lw_view3d_get_frame_time_ms(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), 0);
  return self->frame_ms;
}

void lw_view3d_get_camera(LwView3d *self, lw_camera *cam)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  *cam = self->cam;
}

void lw_view3d_set_camera(LwView3d *self, const lw_camera *cam)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  self->cam = *cam;
  camera_taken(self);
}

gboolean lw_view3d_get_auto_frame(LwView3d *self)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), FALSE);
  return self->auto_frame;
}

void lw_view3d_keep_camera(LwView3d *self)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  self->need_fit = FALSE;
}

void lw_view3d_set_follow_motion(LwView3d *self, gboolean follow)
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  self->no_follow = !follow;
  changed(self);
}

void lw_view3d_fit_box(LwView3d *self, const double lo[3], const double hi[3])
{
  g_return_if_fail(LW_IS_VIEW3D(self));
  fit_frame(self, lo, hi, MAX(gtk_widget_get_width(GTK_WIDGET(self)), 1),
            MAX(gtk_widget_get_height(GTK_WIDGET(self)), 1));
  changed(self);
}

gboolean lw_view3d_pick(LwView3d *self, double x, double y, lw_pick *out)
{
  g_return_val_if_fail(LW_IS_VIEW3D(self), FALSE);
  lw_pick none = {LW_PICK_NONE, -1};
  if (out)
    *out = none;
  if (!self->renderer || !self->has_state || !gtk_widget_get_realized(GTK_WIDGET(self)))
    return FALSE;
  gtk_gl_area_make_current(GTK_GL_AREA(self));
  if (gtk_gl_area_get_error(GTK_GL_AREA(self)))
    return FALSE;
  int w, h, s = device_size(self, &w, &h);
  return lw_renderer_pick(self->renderer, &self->cam, w, h, &self->state, x * s, y * s, out);
}
