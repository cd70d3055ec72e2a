/* lw-anim-export.c: see lw-anim-export.h.
 *
 * Each frame is drawn (multisampled) into a read-back framebuffer, read into
 * a cairo image surface (ARGB32: B, G, R, A bytes in memory on a
 * little-endian machine, GStreamer's BGRA) and handed to the sink of its
 * format: a GStreamer pipeline appsrc ! videoconvert ! vp8enc ! webmmux !
 * filesink, the GIF writer, or a PNG file of its own. */
#include "lw-anim-export.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <math.h>
#include <string.h>

#include "lw-gif-writer.h"
#include "lw-render-thread.h"

#define AA_SAMPLES 4

G_DEFINE_QUARK(lw-anim-error-quark, lw_anim_error)

gboolean lw_anim_format_from_path(const char *path, lw_anim_format *format)
{
  static const struct {
    const char *ext;
    lw_anim_format f;
  } ext[] = {{".webm", LW_ANIM_WEBM}, {".gif", LW_ANIM_GIF}, {".png", LW_ANIM_PNG}};
  g_autofree char *lower = g_ascii_strdown(path, -1);
  for (guint i = 0; i < G_N_ELEMENTS(ext); i++)
    if (g_str_has_suffix(lower, ext[i].ext) && strlen(lower) > strlen(ext[i].ext)) {
      *format = ext[i].f;
      return TRUE;
    }
  return FALSE;
}

char *lw_anim_png_frame_path(const char *path, int k)
{
  gsize n = strlen(path);
  gsize stem = n >= 4 && !g_ascii_strcasecmp(path + n - 4, ".png") ? n - 4 : n;
  return g_strdup_printf("%.*s-%05d.png", (int)stem, path, k);
}

int lw_anim_pick_frames(const double *t, int n, double fps, double speed, int **pick)
{
  *pick = NULL;
  if (n <= 0 || !(fps > 0) || !(speed > 0))
    return 0;
  double dt = speed / fps, span = t[n - 1] - t[0];
  /* a frame whose time is within round-off of the end still shows */
  int count = (int)floor(span / dt * (1 + 1e-12) + 1e-9) + 1;
  int *p = g_new(int, count);
  int j = 0;
  for (int k = 0; k < count; k++) {
    double tk = t[0] + k * dt;
    double tol = 1e-9 * fmax(fabs(tk), dt);
    while (j + 1 < n && t[j + 1] <= tk + tol)
      j++;
    p[k] = j;
  }
  *pick = p;
  return count;
}

/* ---- the sinks ------------------------------------------------------------ */
typedef struct {
  lw_anim_format format;
  const char *path;
  int w, h, frames;
  double fps;
  GstElement *pipeline;
  GstElement *src;
  lw_gif_writer *gif;
} sink;

static GstElement *make_element(const char *factory, GError **error)
{
  GstElement *e = gst_element_factory_make(factory, NULL);
  if (!e)
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_ENCODER,
                "the GStreamer element '%s' is not installed (packages gstreamer1.0-plugins-base and -good)", factory);
  return e;
}

static gboolean webm_open(sink *s, GError **error)
{
  GError *init_error = NULL;
  if (!gst_init_check(NULL, NULL, &init_error)) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_ENCODER, "GStreamer cannot start: %s", init_error->message);
    g_error_free(init_error);
    return FALSE;
  }
  const char *names[] = {"appsrc", "videoconvert", "vp8enc", "webmmux", "filesink"};
  GstElement *e[G_N_ELEMENTS(names)] = {NULL};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (!(e[i] = make_element(names[i], error))) {
      for (guint j = 0; j < i; j++)
        gst_object_unref(gst_object_ref_sink(e[j]));
      return FALSE;
    }
  int num, den;
  gst_util_double_to_fraction(s->fps, &num, &den);
  GstCaps *caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "BGRA", "width", G_TYPE_INT, s->w,
                                      "height", G_TYPE_INT, s->h, "framerate", GST_TYPE_FRACTION, num, den, NULL);
  g_object_set(e[0], "caps", caps, "format", GST_FORMAT_TIME, "block", TRUE, "max-bytes",
               (guint64)s->w * s->h * 4 * 8, NULL);
  gst_caps_unref(caps);
  /* good-time encoding with a rate for sharp lines on flat colours:
   * about 0.15 bit a pixel */
  int kbps = (int)CLAMP(0.15 * s->w * s->h * s->fps / 1000.0, 200, 20000);
  g_object_set(e[2], "target-bitrate", kbps * 1000, "deadline", (gint64)1, "cpu-used", 4,
               "keyframe-max-dist", (int)CLAMP(2 * s->fps, 1, 300), NULL);
  g_object_set(e[4], "location", s->path, NULL);
  s->pipeline = gst_pipeline_new("lw-anim");
  gst_bin_add_many(GST_BIN(s->pipeline), e[0], e[1], e[2], e[3], e[4], NULL);
  if (!gst_element_link_many(e[0], e[1], e[2], e[3], e[4], NULL)) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_ENCODER, "the GStreamer elements for WebM do not link");
    return FALSE;
  }
  s->src = e[0];
  if (gst_element_set_state(s->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_ENCODER, "cannot write %s", s->path);
    return FALSE;
  }
  return TRUE;
}

/* the pipeline's first error as a GError (TRUE when there is one) */
static gboolean pipeline_error(sink *s, GstClockTime timeout, gboolean want_eos, GError **error)
{
  GstBus *bus = gst_element_get_bus(s->pipeline);
  GstMessageType types = GST_MESSAGE_ERROR | (want_eos ? GST_MESSAGE_EOS : 0);
  GstMessage *msg = gst_bus_timed_pop_filtered(bus, timeout, types);
  gst_object_unref(bus);
  if (!msg)
    return FALSE;
  gboolean failed = GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR;
  if (failed) {
    GError *e = NULL;
    gst_message_parse_error(msg, &e, NULL);
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_ENCODER, "cannot write %s: %s", s->path,
                e ? e->message : "the encoder failed");
    g_clear_error(&e);
  }
  gst_message_unref(msg);
  return failed;
}

static gboolean webm_add(sink *s, cairo_surface_t *img, GError **error)
{
  gsize stride = (gsize)cairo_image_surface_get_stride(img), row = (gsize)s->w * 4;
  GstBuffer *buf = gst_buffer_new_allocate(NULL, row * s->h, NULL);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  const guint8 *px = cairo_image_surface_get_data(img);
  for (int y = 0; y < s->h; y++)
    memcpy(map.data + row * y, px + stride * y, row);
  gst_buffer_unmap(buf, &map);
  GST_BUFFER_PTS(buf) = (GstClockTime)llround(s->frames * (double)GST_SECOND / s->fps);
  GST_BUFFER_DURATION(buf) = (GstClockTime)llround((s->frames + 1) * (double)GST_SECOND / s->fps) - GST_BUFFER_PTS(buf);
  if (gst_app_src_push_buffer(GST_APP_SRC(s->src), buf) != GST_FLOW_OK) {
    if (!pipeline_error(s, 0, FALSE, error))
      g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_ENCODER, "cannot write %s: the encoder stopped", s->path);
    return FALSE;
  }
  return !pipeline_error(s, 0, FALSE, error);
}

static gboolean webm_finish(sink *s, GError **error)
{
  gst_app_src_end_of_stream(GST_APP_SRC(s->src));
  return !pipeline_error(s, GST_CLOCK_TIME_NONE, TRUE, error);
}

static gboolean png_add(sink *s, cairo_surface_t *img, GError **error)
{
  g_autofree char *file = lw_anim_png_frame_path(s->path, s->frames);
  cairo_surface_mark_dirty(img);
  cairo_status_t st = cairo_surface_write_to_png(img, file);
  if (st != CAIRO_STATUS_SUCCESS) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write %s: %s", file, cairo_status_to_string(st));
    return FALSE;
  }
  return TRUE;
}

static gboolean sink_open(sink *s, GError **error)
{
  if (s->format == LW_ANIM_WEBM)
    return webm_open(s, error);
  if (s->format == LW_ANIM_GIF)
    return (s->gif = lw_gif_writer_new(s->path, s->w, s->h, s->fps, error)) != NULL;
  return TRUE;
}

static gboolean sink_add(sink *s, cairo_surface_t *img, GError **error)
{
  gboolean ok;
  if (s->format == LW_ANIM_WEBM)
    ok = webm_add(s, img, error);
  else if (s->format == LW_ANIM_GIF)
    ok = lw_gif_writer_add(s->gif, cairo_image_surface_get_data(img), cairo_image_surface_get_stride(img), error);
  else
    ok = png_add(s, img, error);
  if (ok)
    s->frames++;
  return ok;
}

static gboolean sink_finish(sink *s, GError **error)
{
  gboolean ok = TRUE;
  if (s->format == LW_ANIM_WEBM) {
    ok = webm_finish(s, error);
  } else if (s->format == LW_ANIM_GIF) {
    ok = lw_gif_writer_finish(s->gif, error);
    s->gif = NULL;
  }
  return ok;
}

/* frees what is open and, when failed, removes what was written */
static void sink_close(sink *s, gboolean failed)
{
  if (s->pipeline) {
    gst_element_set_state(s->pipeline, GST_STATE_NULL);
    g_clear_pointer(&s->pipeline, gst_object_unref);
  }
  if (s->gif)
    lw_gif_writer_abort(s->gif);
  s->gif = NULL;
  if (!failed)
    return;
  if (s->format == LW_ANIM_PNG) {
    for (int k = 0; k < s->frames; k++) {
      g_autofree char *file = lw_anim_png_frame_path(s->path, k);
      g_unlink(file);
    }
  } else {
    g_unlink(s->path);
  }
}

/* ---- drawing -------------------------------------------------------------- */
typedef struct {
  const lw_anim_frames *fr;
  lw_data *data;
  int nbodies, njoints, nforces, nbeam_pts;
  double *poses, *joints, *forces, *beam_pts;
} posing;

static void posing_init(posing *p, const lw_anim_frames *fr)
{
  const lw_model *m = fr->model;
  p->fr = fr;
  p->data = lw_data_new(m);
  p->nbodies = lw_model_nbodies(m);
  p->njoints = lw_model_njoints(m);
  p->nforces = lw_model_nforces(m);
  p->poses = g_new0(double, 12 * (gsize)MAX(p->nbodies, 1));
  p->joints = g_new0(double, 6 * (gsize)MAX(p->njoints, 1));
  p->forces = g_new0(double, 6 * (gsize)MAX(p->nforces, 1));
  p->nbeam_pts = lw_scene_beam_points(m);
  p->beam_pts = g_new0(double, 4 * (gsize)MAX(p->nbeam_pts, 1));
}

static void posing_clear(posing *p)
{
  lw_data_free(p->data);
  g_free(p->poses);
  g_free(p->joints);
  g_free(p->forces);
  g_free(p->beam_pts);
}

/* the render state of frame k (pointing into p) */
static lw_render_state posing_state(posing *p, int k)
{
  const lw_model *m = p->fr->model;
  int nq = lw_model_nq(m);
  lw_data_set_state(m, p->data, p->fr->t[k], p->fr->q + (gsize)k * nq, NULL, NULL, NULL);
  for (int b = 0; b < p->nbodies; b++)
    lw_body_pose(m, p->data, b, p->poses + 12 * b, p->poses + 12 * b + 3);
  lw_scene_geometry(m, p->data, p->joints, p->forces);
  lw_scene_beams(m, p->data, p->beam_pts);
  return (lw_render_state){p->fr->t[k], p->nbodies, p->poses, p->njoints, p->joints, p->nforces, p->forces,
                           NULL, 0, NULL, p->nbeam_pts, p->beam_pts, NULL};
}

/* a camera that keeps every frame's mechanism in the picture */
static void fit_camera(lw_renderer *r, posing *p, double aspect, lw_camera *cam)
{
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int k = 0; k < p->fr->n; k++) {
    lw_render_state s = posing_state(p, k);
    double a[3], b[3];
    lw_renderer_bounds(r, &s, a, b);
    for (int i = 0; i < 3; i++)
      lo[i] = fmin(lo[i], a[i]), hi[i] = fmax(hi[i], b[i]);
  }
  double up[3];
  lw_camera_init(cam);
  lw_renderer_up(r, up);
  lw_camera_set_up(cam, up);
  lw_camera_fit_aspect(cam, lo, hi, lw_renderer_planar(r), aspect);
}

static gboolean check_options(const lw_anim_frames *fr, const lw_anim_options *o, GError **error)
{
  if (o->width < 16 || o->height < 16 || o->width > 4096 || o->height > 4096 || !(o->fps > 0) || o->fps > 240) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_INVALID,
                "a video of %d x %d pixels at %g frames per second cannot be made "
                "(16 to 4096 pixels a side, up to 240 frames per second)",
                o->width, o->height, o->fps);
    return FALSE;
  }
  if (o->format == LW_ANIM_WEBM && (o->width % 2 || o->height % 2)) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_INVALID,
                "a WebM video needs an even width and height, not %d x %d", o->width, o->height);
    return FALSE;
  }
  if (!fr->model || fr->n < 1) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_INVALID, "there is no frame to draw");
    return FALSE;
  }
  return TRUE;
}

typedef struct {
  lw_offscreen_gl gl;
  lw_renderer *r;
  lw_readback_fb fb;
  cairo_surface_t *img;
} offscreen;

static gboolean offscreen_open(offscreen *os, const lw_model *m, const lw_anim_options *o, GError **error)
{
  const char *problem = NULL;
  if (!lw_offscreen_gl_begin(&os->gl, &problem)) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_GL, "no offscreen OpenGL: %s", problem);
    return FALSE;
  }
  GError *e = NULL;
  if (!(os->r = lw_renderer_new(&e))) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_GL, "no offscreen OpenGL: %s", e->message);
    g_error_free(e);
    return FALSE;
  }
  if (!lw_readback_fb_size(&os->fb, o->width, o->height)) {
    g_set_error(error, LW_ANIM_ERROR, LW_ANIM_ERROR_GL, "no offscreen framebuffer of %d x %d pixels", o->width,
                o->height);
    return FALSE;
  }
  lw_renderer_set_model(os->r, lw_model_desc(m));
  lw_render_options ro = o->has_options ? o->options : lw_renderer_get_options(os->r);
  ro.dark = o->dark;
  lw_renderer_set_options(os->r, &ro);
  lw_renderer_set_flip_y(os->r, TRUE);
  lw_renderer_set_samples(os->r, AA_SAMPLES);
  return TRUE;
}

static void offscreen_close(offscreen *os)
{
  if (os->gl.ctx) {
    lw_readback_fb_free(&os->fb);
    g_clear_pointer(&os->r, lw_renderer_free);
  }
  lw_offscreen_gl_end(&os->gl);
  g_clear_pointer(&os->img, cairo_surface_destroy);
}

static cairo_surface_t *offscreen_draw(offscreen *os, const lw_camera *cam, const lw_anim_options *o,
                                       const lw_render_state *s)
{
  lw_readback_fb_size(&os->fb, o->width, o->height);
  lw_renderer_draw(os->r, cam, o->width, o->height, s);
  cairo_surface_t *img = lw_readback_surface(&os->img, o->width, o->height);
  lw_readback_read(&os->fb, img);
  return img;
}

gboolean lw_anim_export(const lw_anim_frames *fr, const lw_anim_options *o, const char *path,
                        lw_anim_progress progress, void *user, GError **error)
{
  g_return_val_if_fail(fr && o && path, FALSE);
  if (!check_options(fr, o, error))
    return FALSE;
  offscreen os = {{NULL, NULL}, NULL, {0}, NULL};
  sink s = {o->format, path, o->width, o->height, 0, o->fps, NULL, NULL, NULL};
  posing p;
  posing_init(&p, fr);
  gboolean ok = offscreen_open(&os, fr->model, o, error) && sink_open(&s, error);
  lw_camera cam = o->camera;
  if (ok && !o->has_camera)
    fit_camera(os.r, &p, (double)o->width / o->height, &cam);
  for (int k = 0; ok && k < fr->n; k++) {
    lw_render_state st = posing_state(&p, k);
    ok = sink_add(&s, offscreen_draw(&os, &cam, o, &st), error);
    if (ok && progress && progress((double)(k + 1) / fr->n, user)) {
      g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "the export was cancelled");
      ok = FALSE;
    }
  }
  ok = ok && sink_finish(&s, error);
  sink_close(&s, !ok);
  offscreen_close(&os);
  posing_clear(&p);
  return ok;
}
