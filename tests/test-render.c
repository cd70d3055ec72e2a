/* The GL renderer and the 3-D view.
 *
 * Renderer tests run headless: an EGL context on Mesa's surfaceless
 * platform draws into an offscreen framebuffer, and the pixels are compared
 * with reference PNGs in tests/data/render (LW_UPDATE_REFERENCE=1 rewrites
 * them; on a mismatch the actual image is written to the build directory).
 * The widget test needs a display and is skipped without one.
 */
#include "lw-test.h"

#include <cairo.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "lw-render.h"
#include "lw-render-thread.h"
#include "lw-view3d.h"

#define W 320
#define H 240

/* Tolerance of the reference comparison.  llvmpipe is deterministic for
 * one Mesa build, but rounding in a different Mesa (or CPU vector width)
 * moves anti-aliased edges and shading by a level or two.  A mean absolute
 * difference under 2/255 per channel allows that noise everywhere, and at
 * most 0.5 % of the pixels (384 of 76800) may differ by more than 16/255:
 * enough for edge pixels to move, too few for a missing, displaced or
 * recoloured element (a bar covers about 1500 pixels). */
#define MEAN_TOL (2.0 / 255.0)
#define BAD_LEVEL 16
#define BAD_FRACTION 0.005

/* ---- headless GL -------------------------------------------------------- */
static EGLDisplay egl_dpy = EGL_NO_DISPLAY;
static EGLContext egl_ctx = EGL_NO_CONTEXT;
static char *egl_problem;
static GLuint fbo, fbo_rb[2];

static gboolean gl_up(void)
{
  if (egl_ctx != EGL_NO_CONTEXT)
    return eglMakeCurrent(egl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_ctx);
  if (egl_problem)
    return FALSE;
  if (!epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless")) {
    egl_problem = g_strdup("EGL_MESA_platform_surfaceless is not available");
    return FALSE;
  }
  egl_dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  EGLint major, minor;
  if (egl_dpy == EGL_NO_DISPLAY || !eglInitialize(egl_dpy, &major, &minor)) {
    egl_problem = g_strdup("cannot initialise a surfaceless EGL display");
    return FALSE;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    egl_problem = g_strdup("EGL cannot bind desktop OpenGL");
    return FALSE;
  }
  static const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  egl_ctx = eglCreateContext(egl_dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
  if (egl_ctx == EGL_NO_CONTEXT ||
      !eglMakeCurrent(egl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_ctx)) {
    egl_problem = g_strdup_printf("no GL 3.3 core context (EGL error 0x%x)", eglGetError());
    egl_ctx = EGL_NO_CONTEXT;
    return FALSE;
  }
  /* the target: RGBA8 + depth, like GtkGLArea's */
  glGenFramebuffers(1, &fbo);
  glGenRenderbuffers(2, fbo_rb);
  glBindRenderbuffer(GL_RENDERBUFFER, fbo_rb[0]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
  glBindRenderbuffer(GL_RENDERBUFFER, fbo_rb[1]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, W, H);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, fbo_rb[0]);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, fbo_rb[1]);
  g_assert_cmpint(glCheckFramebufferStatus(GL_FRAMEBUFFER), ==, GL_FRAMEBUFFER_COMPLETE);
  g_test_message("headless GL: %s, %s", glGetString(GL_VERSION), glGetString(GL_RENDERER));
  return TRUE;
}

static void gl_down(void)
{
  if (egl_ctx == EGL_NO_CONTEXT)
    return;
  eglMakeCurrent(egl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_ctx);
  glDeleteFramebuffers(1, &fbo);
  glDeleteRenderbuffers(2, fbo_rb);
  eglMakeCurrent(egl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(egl_dpy, egl_ctx);
  eglTerminate(egl_dpy);
  egl_ctx = EGL_NO_CONTEXT;
}

#define REQUIRE_GL()                  \
  do {                                \
    if (!gl_up()) {                   \
      g_test_skip(egl_problem);       \
      return;                         \
    }                                 \
  } while (0)

/* ---- a mechanism at t = 0 ------------------------------------------- */
typedef struct {
  lw_model *m;
  lw_data *d;
  double *pose, *joints, *forces;
  lw_render_state s;
} scene;

static void scene_update(scene *sc)
{
  for (int b = 0; b < sc->s.nbodies; b++)
    lw_body_pose(sc->m, sc->d, b, sc->pose + 12 * b, sc->pose + 12 * b + 3);
  lw_scene_geometry(sc->m, sc->d, sc->joints, sc->forces);
  sc->s.t = lw_data_time(sc->d);
}

/* n steps on, and the state updated */
static void scene_advance(scene *sc, int n)
{
  for (int k = 0; k < n; k++) {
    lw_step_info info;
    lw_error err;
    g_assert_cmpint(lw_step(sc->m, sc->d, &info, &err), ==, LW_OK);
  }
  scene_update(sc);
}

static void scene_open(scene *sc, const char *file)
{
  memset(sc, 0, sizeof *sc); /* the state's optional parts (marks, sticking) are none */
  sc->m = lwt_open(file);
  sc->d = lw_data_new(sc->m);
  lw_error err;
  if (lw_initialize(sc->m, sc->d, &err) != LW_OK)
    g_error("%s: %s", file, err.msg);
  sc->s.nbodies = lw_model_nbodies(sc->m);
  sc->s.njoints = lw_model_njoints(sc->m);
  sc->s.nforces = lw_model_nforces(sc->m);
  sc->pose = g_new0(double, 12 * MAX(sc->s.nbodies, 1));
  sc->joints = g_new0(double, 6 * MAX(sc->s.njoints, 1));
  sc->forces = g_new0(double, 6 * MAX(sc->s.nforces, 1));
  sc->s.body_pose = sc->pose;
  sc->s.joints = sc->joints;
  sc->s.forces = sc->forces;
  scene_update(sc);
}

static void scene_close(scene *sc)
{
  g_free(sc->pose);
  g_free(sc->joints);
  g_free(sc->forces);
  lw_data_free(sc->d);
  lw_model_free(sc->m);
}

/* ---- images -------------------------------------------------------------- */
typedef struct {
  guint8 px[W * H * 4]; /* RGBA, top row first */
} image;

/* the picture of a w x h viewport at the framebuffer's corner, RGBA, as
 * read (the bottom row first) */
static guint8 *render_at(lw_renderer *r, const lw_camera *cam, const lw_render_state *s, int w, int h)
{
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  lw_renderer_draw(r, cam, w, h, s);
  g_assert_cmpint(glGetError(), ==, GL_NO_ERROR);
  GLint bound = -1, rbound = -1;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &bound);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &rbound);
  g_assert_cmpint(bound, ==, (GLint)fbo); /* the renderer put both bindings back */
  g_assert_cmpint(rbound, ==, (GLint)fbo);
  guint8 *px = g_malloc(4 * (size_t)w * h);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
  return px;
}

static void render(lw_renderer *r, const lw_camera *cam, const lw_render_state *s, image *img)
{
  guint8 *tmp = render_at(r, cam, s, W, H);
  for (int y = 0; y < H; y++)
    memcpy(img->px + 4 * W * y, tmp + 4 * W * (H - 1 - y), 4 * W);
  g_free(tmp);
}

static const guint8 *pixel(const image *img, double x, double y)
{
  int ix = CLAMP((int)x, 0, W - 1), iy = CLAMP((int)y, 0, H - 1);
  return img->px + 4 * (iy * W + ix);
}

static int pixel_diff(const guint8 *a, const guint8 *b)
{
  int d = 0;
  for (int c = 0; c < 3; c++)
    d = MAX(d, abs(a[c] - b[c]));
  return d;
}

static void write_png(const image *img, const char *path)
{
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
  guint8 *data = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  cairo_surface_flush(s);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const guint8 *p = img->px + 4 * (y * W + x);
      guint32 v = 0xff000000u | (guint32)p[0] << 16 | (guint32)p[1] << 8 | p[2];
      memcpy(data + y * stride + 4 * x, &v, 4);
    }
  cairo_surface_mark_dirty(s);
  g_assert_cmpint(cairo_surface_write_to_png(s, path), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy(s);
}

static gboolean read_png(const char *path, image *img)
{
  cairo_surface_t *s = cairo_image_surface_create_from_png(path);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS || cairo_image_surface_get_width(s) != W ||
      cairo_image_surface_get_height(s) != H) {
    cairo_surface_destroy(s);
    return FALSE;
  }
  cairo_surface_flush(s);
  const guint8 *data = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      guint32 v;
      memcpy(&v, data + y * stride + 4 * x, 4);
      guint8 *p = img->px + 4 * (y * W + x);
      p[0] = (v >> 16) & 255, p[1] = (v >> 8) & 255, p[2] = v & 255, p[3] = 255;
    }
  cairo_surface_destroy(s);
  return TRUE;
}

static void compare_reference(const image *img, const char *name)
{
  g_autofree char *file = g_strdup_printf("%s.png", name);
  g_autofree char *ref_path = g_build_filename(LW_RENDER_DATA_DIR, file, NULL);
  if (g_strcmp0(g_getenv("LW_UPDATE_REFERENCE"), "1") == 0) {
    write_png(img, ref_path);
    g_test_message("wrote %s", ref_path);
    return;
  }
  image *ref = g_new(image, 1);
  g_autofree char *actual = g_strdup_printf("%s/render-%s-actual.png", LW_RENDER_OUT_DIR, name);
  if (!read_png(ref_path, ref)) {
    write_png(img, actual);
    g_free(ref);
    g_error("no %dx%d reference %s (run with LW_UPDATE_REFERENCE=1); actual image: %s", W, H, ref_path, actual);
  }
  double sum = 0;
  long bad = 0;
  for (int i = 0; i < W * H; i++) {
    for (int c = 0; c < 3; c++)
      sum += abs(img->px[4 * i + c] - ref->px[4 * i + c]);
    if (pixel_diff(img->px + 4 * i, ref->px + 4 * i) > BAD_LEVEL)
      bad++;
  }
  double mean = sum / (3.0 * W * H) / 255.0, frac = (double)bad / (W * H);
  g_test_message("%s: mean |difference| %.3f/255, %ld pixels (%.3f %%) off by more than %d/255", name, mean * 255,
                 bad, 100 * frac, BAD_LEVEL);
  if (mean >= MEAN_TOL || frac >= BAD_FRACTION) {
    write_png(img, actual);
    g_test_message("actual image written to %s", actual);
  }
  g_assert_cmpfloat(mean, <, MEAN_TOL);
  g_assert_cmpfloat(frac, <, BAD_FRACTION);
  g_free(ref);
}

/* cameras of the reference images: fixed numbers, so that the pixel test
 * does not move when the fit heuristics change */
static void five_bar_camera(lw_camera *cam)
{
  lw_camera_init(cam);
  cam->target[0] = 0.5, cam->target[1] = -1.0, cam->target[2] = 0;
  cam->distance = 5.4;
  cam->radius = 1.8;
}

static void slider_crank_camera(lw_camera *cam)
{
  static const double up[3] = {0, 0, 1};
  lw_camera_init(cam);
  lw_camera_set_up(cam, up);
  cam->target[0] = 0.12, cam->target[1] = 0.042, cam->target[2] = 0.092;
  cam->distance = 0.8;
  cam->yaw = 35 * G_PI / 180;
  cam->pitch = 25 * G_PI / 180;
  cam->radius = 0.25;
}

static lw_renderer *renderer_for(const scene *sc)
{
  g_autoptr(GError) err = NULL;
  lw_renderer *r = lw_renderer_new(&err);
  g_assert_no_error(err);
  g_assert_nonnull(r);
  lw_renderer_set_samples(r, 4);
  if (sc)
    lw_renderer_set_model(r, lw_model_desc(sc->m));
  return r;
}

/* the five-bar, a renderer on it and the camera on the five-bar */
static lw_renderer *five_bar_open(scene *sc, lw_camera *cam)
{
  scene_open(sc, "five-bar.json");
  five_bar_camera(cam);
  return renderer_for(sc);
}

/* ---- tests ---------------------------------------------------------- */

/* the shaders come from the GResource linked in with the renderer */
static void test_resource(void)
{
  g_autoptr(GError) err = NULL;
  g_autoptr(GBytes) b = g_resources_lookup_data("/io/github/linkwright/Linkwright/shaders/mesh.frag",
                                                G_RESOURCE_LOOKUP_FLAGS_NONE, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(g_bytes_get_size(b), >, 100);
  REQUIRE_GL();
  lw_renderer *r = renderer_for(NULL);
  g_test_message("%s", lw_renderer_gl_version(r));
  lw_renderer_free(r);
}

/* the five-bar: a trace of the point B12.end over the first 0.6 s */
static void five_bar_trace(scene *sc, lw_renderer *r)
{
  int n = 601;
  double *xyz = g_new(double, 3 * n);
  lw_data *d = lw_data_new(sc->m);
  lw_error err;
  g_assert_cmpint(lw_initialize(sc->m, d, &err), ==, LW_OK);
  const lw_desc *desc = lw_model_desc(sc->m);
  const double *pe = desc->bodies[1].points[1].p; /* B12.end */
  for (int i = 0; i < n; i++) {
    double o[3], R[9];
    if (i > 0) {
      lw_step_info info;
      g_assert_cmpint(lw_step(sc->m, d, &info, &err), ==, LW_OK);
    }
    lw_body_pose(sc->m, d, 1, o, R);
    for (int k = 0; k < 3; k++)
      xyz[3 * i + k] = o[k] + R[3 * k] * pe[0] + R[3 * k + 1] * pe[1] + R[3 * k + 2] * pe[2];
  }
  lw_renderer_set_trace(r, 0, xyz, n);
  lw_data_free(d);
  g_free(xyz);
}

static void test_five_bar_reference(void)
{
  REQUIRE_GL();
  scene sc;
  lw_camera cam;
  lw_renderer *r = five_bar_open(&sc, &cam);
  five_bar_trace(&sc, r);
  image *img = g_new(image, 1);
  render(r, &cam, &sc.s, img);
  compare_reference(img, "five-bar");
  g_free(img);
  lw_renderer_free(r);
  scene_close(&sc);
}

static void test_slider_crank_reference(void)
{
  REQUIRE_GL();
  scene sc;
  scene_open(&sc, "slider-crank.json");
  lw_renderer *r = renderer_for(&sc);
  lw_render_options o = lw_renderer_get_options(r);
  o.show_frames = TRUE;
  lw_renderer_set_options(r, &o);
  lw_camera cam;
  slider_crank_camera(&cam);
  image *img = g_new(image, 1);
  render(r, &cam, &sc.s, img);
  compare_reference(img, "slider-crank");
  g_free(img);
  lw_renderer_free(r);
  scene_close(&sc);
}

/* world point of B's local point p */
static void body_point(const scene *sc, int b, const double p[3], double w[3])
{
  const double *o = sc->pose + 12 * b, *R = o + 3;
  for (int i = 0; i < 3; i++)
    w[i] = o[i] + R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2];
}

/* the middle of body b's first geometry item */
static void geom_middle(const scene *sc, int b, double w[3])
{
  const lw_geom_desc *g = &lw_model_desc(sc->m)->bodies[b].geoms[0];
  double p[3];
  for (int i = 0; i < 3; i++)
    p[i] = 0.5 * (g->from[i] + g->to[i]);
  body_point(sc, b, p, w);
}

static double chroma(const guint8 *p)
{
  return (MAX(p[0], MAX(p[1], p[2])) - MIN(p[0], MIN(p[1], p[2]))) / 255.0;
}

/* bodies are drawn where they are; without a model only the background
 * and the (grey) grid are */
static void test_five_bar_content(void)
{
  REQUIRE_GL();
  scene sc;
  lw_camera cam;
  lw_renderer *r = five_bar_open(&sc, &cam);
  image *full = g_new(image, 1), *empty = g_new(image, 1), *sel = g_new(image, 1), *nojoints = g_new(image, 1);
  render(r, &cam, &sc.s, full);

  lw_renderer *e = renderer_for(NULL);
  render(e, &cam, NULL, empty);
  long colourful = 0;
  for (int i = 0; i < W * H; i++) {
    g_assert_cmpfloat(chroma(empty->px + 4 * i), <, 0.1);
    if (chroma(full->px + 4 * i) > 0.25)
      colourful++;
  }
  /* the grid: some pixels differ from their row's background */
  long off_bg = 0;
  for (int y = 0; y < H; y++)
    for (int x = 1; x < W; x++)
      if (pixel_diff(pixel(empty, x, y), pixel(empty, 0, y)) > 6)
        off_bg++;
  g_assert_cmpint(off_bg, >, 500);
  g_assert_cmpint(colourful, >, 1500);

  for (int b = 0; b < sc.s.nbodies; b++) {
    double w[3], x, y;
    geom_middle(&sc, b, w);
    g_assert_true(lw_camera_project(&cam, W, H, w, &x, &y));
    const guint8 *pf = pixel(full, x, y), *pe = pixel(empty, x, y);
    g_test_message("body %d at (%.1f, %.1f): #%02x%02x%02x over #%02x%02x%02x", b, x, y, pf[0], pf[1], pf[2], pe[0],
                   pe[1], pe[2]);
    g_assert_cmpint(pixel_diff(pf, pe), >, 40);
    g_assert_cmpfloat(chroma(pf), >, 0.25);
  }

  /* selecting A1 tints it; hiding joints removes the pin at A */
  lw_renderer_set_selection(r, (lw_pick){LW_PICK_BODY, 0});
  render(r, &cam, &sc.s, sel);
  double w[3], x, y;
  geom_middle(&sc, 0, w);
  lw_camera_project(&cam, W, H, w, &x, &y);
  g_assert_cmpint(pixel_diff(pixel(sel, x, y), pixel(full, x, y)), >, 20);
  geom_middle(&sc, 2, w);
  lw_camera_project(&cam, W, H, w, &x, &y);
  g_assert_cmpint(pixel_diff(pixel(sel, x, y), pixel(full, x, y)), <=, 2);
  lw_renderer_set_selection(r, (lw_pick){LW_PICK_NONE, -1});

  lw_render_options o = lw_renderer_get_options(r);
  o.show_joints = FALSE;
  lw_renderer_set_options(r, &o);
  render(r, &cam, &sc.s, nojoints);
  g_assert_true(lw_camera_project(&cam, W, H, sc.joints, &x, &y)); /* joint A */
  g_assert_cmpint(pixel_diff(pixel(nojoints, x, y), pixel(full, x, y)), >, 20);

  lw_renderer_free(e);
  lw_renderer_free(r);
  g_free(full);
  g_free(empty);
  g_free(sel);
  g_free(nojoints);
  scene_close(&sc);
}

static void test_pick(void)
{
  REQUIRE_GL();
  scene sc;
  lw_camera cam;
  lw_renderer *r = five_bar_open(&sc, &cam);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, W, H);
  double w[3], x, y;
  lw_pick p;
  for (int b = 0; b < sc.s.nbodies; b++) {
    geom_middle(&sc, b, w);
    g_assert_true(lw_camera_project(&cam, W, H, w, &x, &y));
    g_assert_true(lw_renderer_pick(r, &cam, W, H, &sc.s, x, y, &p));
    g_assert_cmpint(p.kind, ==, LW_PICK_BODY);
    g_assert_cmpint(p.index, ==, b);
  }
  /* a few pixels off the thin bar still hit it */
  geom_middle(&sc, 0, w);
  lw_camera_project(&cam, W, H, w, &x, &y);
  g_assert_true(lw_renderer_pick(r, &cam, W, H, &sc.s, x + 3, y - 3, &p));
  g_assert_cmpint(p.kind, ==, LW_PICK_BODY);
  g_assert_cmpint(p.index, ==, 0);
  /* joint B (on the ground at (1, 0)) and the springs */
  g_assert_true(lw_camera_project(&cam, W, H, sc.joints + 6 * 4, &x, &y));
  g_assert_true(lw_renderer_pick(r, &cam, W, H, &sc.s, x, y, &p));
  g_assert_cmpint(p.kind, ==, LW_PICK_JOINT);
  g_assert_cmpint(p.index, ==, 4);
  double mid[3];
  for (int k = 0; k < 2; k++) {
    const double *f = sc.forces + 6 * k;
    for (int i = 0; i < 3; i++)
      mid[i] = f[i] + 0.37 * (f[3 + i] - f[i]);
    lw_camera_project(&cam, W, H, mid, &x, &y);
    g_assert_true(lw_renderer_pick(r, &cam, W, H, &sc.s, x, y, &p));
    g_assert_cmpint(p.kind, ==, LW_PICK_FORCE);
    g_assert_cmpint(p.index, ==, k);
  }
  /* empty corner */
  g_assert_false(lw_renderer_pick(r, &cam, W, H, &sc.s, 3, 3, &p));
  g_assert_cmpint(p.kind, ==, LW_PICK_NONE);
  /* the framebuffer and viewport are restored */
  GLint bound = -1, vp[4];
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &bound);
  glGetIntegerv(GL_VIEWPORT, vp);
  g_assert_cmpint(bound, ==, (GLint)fbo);
  g_assert_cmpint(vp[2], ==, W);
  g_assert_cmpint(vp[3], ==, H);
  g_assert_cmpstr(lw_renderer_element_name(r, LW_PICK_JOINT, 4), ==, "B");
  lw_renderer_free(r);
  scene_close(&sc);
}

/* a body drawn by a mesh file (a cube of OBJ quads, scaled to 0.4 m and
 * placed 0.5 m along x): it is hit where it is drawn and not beside it; a
 * mesh file that is missing is drawn as a box and named */
static void test_mesh(void)
{
  REQUIRE_GL();
  g_autofree char *dir = g_dir_make_tmp("lw-render-mesh-XXXXXX", NULL);
  g_autofree char *obj = g_build_filename(dir, "cube.obj", NULL);
  g_assert_true(g_file_set_contents(obj,
                                    "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\n"
                                    "v -1 1 1\nf 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n",
                                    -1, NULL));
  lw_desc *d = lw_desc_new();
  d->planar = 0;
  d->source_dir = g_strdup(dir);
  lw_body_desc *b = lw_desc_add_body(d, "box");
  b->mass = 1;
  b->inertia[0] = b->inertia[1] = b->inertia[2] = 0.1;
  b->orientation[0] = 1;
  lw_geom_desc *g = lw_body_add_geom(b, LW_GEOM_MESH);
  g->mesh = g_strdup("cube.obj");
  g->center[0] = 0.5;
  g->size[0] = g->size[1] = g->size[2] = 0.2;
  g = lw_body_add_geom(b, LW_GEOM_MESH);
  g->mesh = g_strdup("meshes/absent.stl");
  g->center[0] = -0.5;
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  g_assert_nonnull(m);
  g_autoptr(GError) gerr = NULL;
  lw_renderer *r = lw_renderer_new(&gerr);
  g_assert_nonnull(r);
  lw_renderer_set_model(r, lw_model_desc(m));
  const char *notes = lw_renderer_mesh_notes(r);
  g_test_message("%s", notes ? notes : "(no notes)");
  g_assert_nonnull(notes);
  g_assert_nonnull(strstr(notes, "meshes/absent.stl"));
  g_assert_null(strstr(notes, "cube.obj"));
  double pose[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  lw_render_state st = {0, 1, pose, 0, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, NULL};
  lw_camera cam;
  lw_camera_init(&cam);
  cam.distance = 3;
  cam.radius = 1;
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, W, H);
  double x, y;
  lw_pick p;
  /* the mesh's centre and 0.15 m from it (inside the 0.4 m cube) are hit */
  double inside[2][3] = {{0.5, 0, 0}, {0.65, 0.15, 0}};
  for (int k = 0; k < 2; k++) {
    g_assert_true(lw_camera_project(&cam, W, H, inside[k], &x, &y));
    g_assert_true(lw_renderer_pick(r, &cam, W, H, &st, x, y, &p));
    g_assert_cmpint(p.kind, ==, LW_PICK_BODY);
  }
  /* 0.3 m from it is outside the cube */
  double outside[3] = {0.5, 0.3, 0};
  g_assert_true(lw_camera_project(&cam, W, H, outside, &x, &y));
  g_assert_false(lw_renderer_pick(r, &cam, W, H, &st, x, y, &p));
  /* the missing mesh's stand-in is drawn where it would be */
  double stand_in[3] = {-0.5, 0, 0};
  g_assert_true(lw_camera_project(&cam, W, H, stand_in, &x, &y));
  g_assert_true(lw_renderer_pick(r, &cam, W, H, &st, x, y, &p));
  g_assert_cmpint(p.kind, ==, LW_PICK_BODY);
  /* a model without meshes afterwards draws as before */
  lw_renderer_set_model(r, NULL);
  g_assert_null(lw_renderer_mesh_notes(r));
  lw_renderer_free(r);
  lw_model_free(m);
  lw_desc_free(d);
  g_unlink(obj);
  g_rmdir(dir);
}

/* fit: every body origin and every bounding-box corner lands inside */
static void check_fit(const char *file, double aspect)
{
  scene sc;
  scene_open(&sc, file);
  lw_renderer *r = renderer_for(&sc);
  double lo[3], hi[3];
  g_assert_true(lw_renderer_bounds(r, &sc.s, lo, hi));
  lw_camera cam;
  lw_camera_init(&cam);
  double up[3];
  lw_renderer_up(r, up);
  lw_camera_set_up(&cam, up);
  lw_camera_fit_aspect(&cam, lo, hi, lw_renderer_planar(r), aspect);
  int w = (int)(240 * aspect), h = 240;
  for (int b = 0; b < sc.s.nbodies; b++) {
    double x, y;
    g_assert_true(lw_camera_project(&cam, w, h, sc.pose + 12 * b, &x, &y));
    g_assert_cmpfloat(x, >, 0);
    g_assert_cmpfloat(x, <, w);
    g_assert_cmpfloat(y, >, 0);
    g_assert_cmpfloat(y, <, h);
  }
  double xmin = w, xmax = 0, ymin = h, ymax = 0;
  for (int k = 0; k < 8; k++) {
    double c[3] = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]}, x, y;
    g_assert_true(lw_camera_project(&cam, w, h, c, &x, &y));
    xmin = MIN(xmin, x), xmax = MAX(xmax, x), ymin = MIN(ymin, y), ymax = MAX(ymax, y);
  }
  g_test_message("%s, aspect %.2f: target (%.3g, %.3g, %.3g), distance %.3g; box spans x %.0f..%.0f of %d, "
                 "y %.0f..%.0f of %d", file, aspect, cam.target[0], cam.target[1], cam.target[2], cam.distance, xmin,
                 xmax, w, ymin, ymax, h);
  g_assert_cmpfloat(xmin, >=, 0);
  g_assert_cmpfloat(xmax, <=, w);
  g_assert_cmpfloat(ymin, >=, 0);
  g_assert_cmpfloat(ymax, <=, h);
  /* and it is not lost in the middle: one direction fills over half */
  g_assert_true(xmax - xmin > 0.5 * w || ymax - ymin > 0.5 * h);
  lw_renderer_free(r);
  scene_close(&sc);
}

static void test_fit(void)
{
  REQUIRE_GL();
  const char *files[] = {"five-bar.json", "slider-crank.json", "pendulum.json", "double-pendulum.json",
                         "four-bar.json"};
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    check_fit(files[i], 4.0 / 3.0);
    check_fit(files[i], 0.6);
    check_fit(files[i], 2.5);
  }
}

/* zooming about a pixel keeps the world point under it there; orbit and
 * pan keep the matrices consistent with project/ray (no GL needed) */
static void test_camera(void)
{
  lw_camera cam;
  lw_camera_init(&cam);
  static const double up[3] = {0, 0, 1}, lo[3] = {-1, -0.5, 0}, hi[3] = {2, 0.5, 0.3};
  lw_camera_set_up(&cam, up);
  lw_camera_fit_aspect(&cam, lo, hi, 0, 1.5);
  int w = 600, h = 400;
  const double px[][2] = {{300, 200}, {17, 390}, {580, 33}};
  for (size_t i = 0; i < G_N_ELEMENTS(px); i++)
    for (int z = 0; z < 2; z++) {
      double o[3], d[3], b[3], rr[3], uu[3], x, y;
      lw_camera_ray(&cam, w, h, px[i][0], px[i][1], o, d);
      lw_camera_axes(&cam, rr, uu, b);
      /* the ray's point on the focal plane */
      double t = cam.distance / -(d[0] * b[0] + d[1] * b[1] + d[2] * b[2]), p[3];
      for (int k = 0; k < 3; k++)
        p[k] = o[k] + t * d[k];
      lw_camera_zoom(&cam, z ? 2.0 : 0.4, px[i][0], px[i][1], w, h);
      g_assert_true(lw_camera_project(&cam, w, h, p, &x, &y));
      g_assert_cmpfloat(fabs(x - px[i][0]), <, 1e-6);
      g_assert_cmpfloat(fabs(y - px[i][1]), <, 1e-6);
    }
  /* project agrees with the GL matrices */
  lw_camera_orbit(&cam, 0.7, -0.3);
  lw_camera_pan(&cam, 25, -10, w, h);
  double V[16], P[16], M[16], p[4] = {0.3, -0.2, 0.1, 1}, c[4] = {0, 0, 0, 0}, x, y;
  lw_camera_view_matrix(&cam, V);
  lw_camera_proj_matrix(&cam, (double)w / h, P);
  lw_mat4_mul(P, V, M);
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 4; k++)
      c[i] += M[k * 4 + i] * p[k];
  g_assert_true(lw_camera_project(&cam, w, h, p, &x, &y));
  g_assert_cmpfloat(fabs(x - 0.5 * (c[0] / c[3] + 1) * w), <, 1e-9);
  g_assert_cmpfloat(fabs(y - 0.5 * (1 - c[1] / c[3]) * h), <, 1e-9);
  g_assert_cmpfloat(fabs(c[2] / c[3]), <, 1); /* inside the depth range */
  /* pan moves the scene with the pointer */
  double x0, y0, x1, y1;
  lw_camera_project(&cam, w, h, p, &x0, &y0);
  lw_camera_pan(&cam, 40, 15, w, h);
  lw_camera_project(&cam, w, h, p, &x1, &y1);
  g_assert_cmpfloat(x1 - x0, >, 0);
  g_assert_cmpfloat(y1 - y0, >, 0);
  /* planar default: looking down -z with x right and y up */
  lw_camera_fit(&cam, lo, hi, 1);
  double rr[3], uu[3], bb[3];
  lw_camera_axes(&cam, rr, uu, bb);
  g_assert_cmpfloat(rr[0], >, 0.999);
  g_assert_cmpfloat(uu[1], >, 0.999);
  g_assert_cmpfloat(bb[2], >, 0.999);
}

/* A frame without multisampling copies its background from a texture drawn
 * once per size and orientation; a multisampled frame draws it.  Without
 * a model and grid the picture is the background alone: the two agree to a
 * level (the resolve of the samples) in every pixel, at the first size, after a change of size and after a change
 * of orientation (a texture kept across either would differ by many
 * levels).  With the model, the scene is drawn over the copy: the two
 * pictures differ only at anti-aliased edges. */
static void test_background_copy(void)
{
  REQUIRE_GL();
  const struct {
    int w, h, flip;
  } cases[] = {{W, H, 0}, {W / 2, H / 2, 0}, {W / 2, H / 2, 1}, {W, H, 1}};
  lw_renderer *r = renderer_for(NULL);
  lw_render_options opt = lw_renderer_get_options(r);
  opt.show_grid = FALSE; /* its lines are anti-aliased only when multisampled */
  lw_renderer_set_options(r, &opt);
  lw_camera cam;
  five_bar_camera(&cam);
  for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
    int w = cases[k].w, h = cases[k].h;
    lw_renderer_set_flip_y(r, cases[k].flip);
    lw_renderer_set_samples(r, 4);
    guint8 *drawn = render_at(r, &cam, NULL, w, h);
    lw_renderer_set_samples(r, 0);
    guint8 *copied = render_at(r, &cam, NULL, w, h);
    int worst = 0;
    for (long i = 0; i < (long)w * h; i++)
      worst = MAX(worst, pixel_diff(drawn + 4 * i, copied + 4 * i));
    g_test_message("background %dx%d%s: largest difference %d levels", w, h, cases[k].flip ? ", flipped" : "", worst);
    g_assert_cmpint(worst, <=, 1); /* the multisampled gradient is resolved from its samples */
    /* the gradient itself: lighter at the top (the last row read) unless flipped */
    int top = copied[4 * ((long)w * (h - 1))], bottom = copied[0];
    g_assert_cmpint(cases[k].flip ? bottom - top : top - bottom, >, 20);
    g_free(drawn);
    g_free(copied);
  }
  lw_renderer_free(r);

  scene sc;
  scene_open(&sc, "five-bar.json");
  r = renderer_for(&sc);
  lw_renderer_set_samples(r, 4);
  guint8 *drawn = render_at(r, &cam, &sc.s, W, H);
  lw_renderer_set_samples(r, 0);
  guint8 *copied = render_at(r, &cam, &sc.s, W, H);
  double sum = 0;
  long bad = 0, bars_drawn = 0, bars = 0;
  for (long i = 0; i < (long)W * H; i++) {
    int dd = pixel_diff(drawn + 4 * i, copied + 4 * i);
    sum += dd;
    bad += dd > BAD_LEVEL;
    bars_drawn += chroma(drawn + 4 * i) > 0.25;
    bars += chroma(copied + 4 * i) > 0.25;
  }
  g_test_message("five-bar with and without multisampling: mean %.2f levels, %ld pixels over %d, %ld and %ld coloured",
                 sum / (W * H), bad, BAD_LEVEL, bars_drawn, bars);
  /* the edges are anti-aliased in one only (measured: 2.5 levels on
   * average, 4 % of the pixels over 16); the bars cover the same pixels */
  g_assert_cmpfloat(sum / (W * H), <, 4.0);
  g_assert_cmpfloat((double)bad / (W * H), <, 0.06);
  g_assert_cmpint(bars_drawn, >, 2000);
  g_assert_cmpfloat(fabs((double)(bars - bars_drawn)), <, 0.1 * bars_drawn);
  g_free(drawn);
  g_free(copied);
  lw_renderer_free(r);
  scene_close(&sc);
}

/* draw time for the animation budget (informative; asserted loosely) */
static void test_draw_time(void)
{
  REQUIRE_GL();
  scene sc;
  lw_camera cam;
  lw_renderer *r = five_bar_open(&sc, &cam);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  lw_renderer_draw(r, &cam, W, H, &sc.s);
  glFinish();
  for (int ms = 0; ms < 2; ms++) {
    lw_renderer_set_samples(r, ms ? 4 : 0);
    int n = 60;
    gint64 t0 = g_get_monotonic_time();
    for (int i = 0; i < n; i++) {
      scene_advance(&sc, 1);
      lw_renderer_draw(r, &cam, W, H, &sc.s);
      glFinish();
    }
    double per = (g_get_monotonic_time() - t0) / 1000.0 / n;
    g_test_message("five-bar %dx%d, %s: %.2f ms per frame (step + draw + finish)", W, H, ms ? "4x MSAA" : "no MSAA",
                   per);
    g_assert_cmpfloat(per, <, 100);
  }
  lw_renderer_free(r);
  scene_close(&sc);
}

/* lw-render-thread: the picture the thread draws is the one this context
 * draws with the same settings, to the bit (same renderer, same Mesa):
 * the five-bar with a trace and a selection, then moved with the selection
 * cleared, where of two frames handed over at once the newer is shown */
static int thread_vs_here(lw_render_thread *t, lw_renderer *r, const lw_camera *cam, const lw_render_state *s,
                          guint64 gen)
{
  g_assert_true(lw_render_thread_wait(t, gen));
  guint64 got = 0;
  double ms = 0;
  cairo_surface_t *img = lw_render_thread_take(t, &got, &ms);
  g_assert_nonnull(img);
  g_assert_cmpuint(got, ==, gen);
  g_assert_cmpint(cairo_image_surface_get_width(img), ==, W);
  g_assert_cmpint(cairo_image_surface_get_height(img), ==, H);
  lw_renderer_set_flip_y(r, TRUE); /* as the thread draws: the top row first */
  guint8 *px = render_at(r, cam, s, W, H);
  lw_renderer_set_flip_y(r, FALSE);
  const guint8 *data = cairo_image_surface_get_data(img);
  int stride = cairo_image_surface_get_stride(img), worst = 0;
  long coloured = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const guint8 *a = data + (size_t)y * stride + 4 * x, *b = px + 4 * ((size_t)y * W + x); /* B G R A, R G B A */
      worst = MAX(worst, MAX(abs(a[2] - b[0]), MAX(abs(a[1] - b[1]), MAX(abs(a[0] - b[2]), abs(a[3] - b[3])))));
      coloured += chroma(b) > 0.25;
    }
  g_free(px);
  g_test_message("frame %" G_GUINT64_FORMAT " on the thread: %.2f ms, largest channel difference %d, %ld coloured "
                 "pixels",
                 gen, ms, worst, coloured);
  g_assert_cmpint(coloured, >, 1000);
  return worst;
}

static void test_thread(void)
{
  REQUIRE_GL();
  scene sc;
  lw_camera cam;
  lw_renderer *r = five_bar_open(&sc, &cam);
  lw_pick sel = {LW_PICK_BODY, 1};
  lw_renderer_set_selection(r, sel);
  double xyz[3 * 60];
  for (int i = 0; i < 60; i++)
    xyz[3 * i] = 0.5 + 0.4 * cos(0.1 * i), xyz[3 * i + 1] = -1.5 + 0.3 * sin(0.1 * i), xyz[3 * i + 2] = 0;
  lw_renderer_set_trace(r, 0, xyz, 60);

  lw_render_thread *t = lw_render_thread_new();
  for (int k = 0; k < 1000 && lw_render_thread_get_status(t) == LW_RENDER_THREAD_STARTING; k++)
    g_usleep(10000);
  g_assert_cmpint(lw_render_thread_get_status(t), ==, LW_RENDER_THREAD_READY);
  g_assert_null(lw_render_thread_error(t));
  g_assert_null(lw_render_thread_take(t, NULL, NULL)); /* nothing drawn yet */
  lw_render_thread_set_model(t, lw_model_desc(sc.m));
  lw_render_thread_set_selection(t, sel);
  const double *txyz[1] = {xyz};
  int tn[1] = {60};
  lw_render_thread_set_traces(t, 1, txyz, tn);
  lw_render_thread_submit(t, &cam, W, H, 4, &sc.s, 1);
  g_assert_cmpint(thread_vs_here(t, r, &cam, &sc.s, 1), ==, 0);
  g_assert_false(lw_render_thread_has_new(t));

  /* moved 0.3 s on, the selection cleared; frame 2 handed over and at once
   * replaced by frame 3 (2 may be dropped), without multisampling */
  lw_render_state before = sc.s;
  double *pose0 = g_memdup2(sc.pose, sizeof(double) * 12 * (size_t)sc.s.nbodies);
  before.body_pose = pose0;
  scene_advance(&sc, 300);
  lw_pick none = {LW_PICK_NONE, -1};
  lw_renderer_set_selection(r, none);
  lw_render_thread_set_selection(t, none);
  lw_render_thread_submit(t, &cam, W, H, 0, &before, 2);
  lw_render_thread_submit(t, &cam, W, H, 0, &sc.s, 3);
  g_free(pose0); /* copied by submit */
  lw_renderer_set_samples(r, 0);
  g_assert_cmpint(thread_vs_here(t, r, &cam, &sc.s, 3), ==, 0);
  lw_render_thread_free(t);
  lw_renderer_free(r);
  scene_close(&sc);
}

/* ---- the widget ------------------------------------------------------ */
typedef struct {
  GMainLoop *loop;
  int frames;
  long non_bg;
  int w, h;
} widget_probe;

static void on_rendered(LwView3d *view, widget_probe *pr)
{
  (void)view;
  /* the area's framebuffer is bound: read it back */
  GLint vp[4];
  glGetIntegerv(GL_VIEWPORT, vp);
  pr->w = vp[2], pr->h = vp[3];
  guint8 *px = g_malloc(4 * (size_t)vp[2] * vp[3]);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, vp[2], vp[3], GL_RGBA, GL_UNSIGNED_BYTE, px);
  long n = 0;
  for (long i = 0; i < (long)vp[2] * vp[3]; i++)
    if (chroma(px + 4 * i) > 0.25)
      n++;
  g_free(px);
  pr->non_bg = n;
  pr->frames++;
  g_main_loop_quit(pr->loop);
}

static gboolean on_timeout(gpointer data)
{
  g_main_loop_quit(data);
  return G_SOURCE_CONTINUE;
}

static gboolean wait_frame(widget_probe *pr, GtkWidget *view)
{
  int before = pr->frames;
  lw_view3d_redraw(LW_VIEW3D(view));
  guint id = g_timeout_add_seconds(10, on_timeout, pr->loop);
  g_main_loop_run(pr->loop);
  g_source_remove(id);
  return pr->frames > before;
}

static void on_notify(GObject *o, GParamSpec *ps, int *count)
{
  (void)o, (void)ps;
  (*count)++;
}

/* a window of w x h showing the scene's model and state in a view whose
 * frames the probe counts */
static GtkWidget *view_window(scene *sc, widget_probe *pr, int w, int h, GtkWidget **view)
{
  GtkWidget *win = gtk_window_new();
  gtk_window_set_default_size(GTK_WINDOW(win), w, h);
  *view = lw_view3d_new();
  gtk_window_set_child(GTK_WINDOW(win), *view);
  lw_view3d_set_model(LW_VIEW3D(*view), lw_model_desc(sc->m));
  lw_view3d_set_state(LW_VIEW3D(*view), &sc->s);
  g_signal_connect(*view, "rendered", G_CALLBACK(on_rendered), pr);
  gtk_window_present(GTK_WINDOW(win));
  return win;
}

static void view_window_close(GtkWidget *win, widget_probe *pr, scene *sc)
{
  gtk_window_destroy(GTK_WINDOW(win));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_main_loop_unref(pr->loop);
  scene_close(sc);
}

/* the five-bar in a window of w x h, drawn once; NULL (the test skipped)
 * without a display */
static GtkWidget *five_bar_window(scene *sc, widget_probe *pr, int w, int h, GtkWidget **view)
{
  if (!gtk_init_check()) {
    g_test_skip("no display");
    return NULL;
  }
  scene_open(sc, "five-bar.json");
  *pr = (widget_probe){g_main_loop_new(NULL, FALSE), 0, 0, 0, 0};
  GtkWidget *win = view_window(sc, pr, w, h, view);
  g_assert_true(wait_frame(pr, *view));
  return win;
}

static void test_widget(void)
{
  gl_down(); /* the headless context is not needed any more */
  /* the probe reads the picture from the framebuffer bound at "rendered":
   * drawn here, not on the view's render thread (/render/thread and
   * /render/widget/readback test that one) */
  g_setenv("LW_VIEW_NO_THREAD", "1", TRUE);
  scene sc;
  widget_probe pr;
  GtkWidget *view, *win = five_bar_window(&sc, &pr, 480, 360, &view);
  if (!win)
    return;
  const char *gl_error = lw_view3d_get_gl_error(LW_VIEW3D(view));
  g_assert_null(gl_error);
  GdkGLContext *ctx = gtk_gl_area_get_context(GTK_GL_AREA(view));
  gdk_gl_context_make_current(ctx);
  g_test_message("GtkGLArea: %s (%s), %s, %dx%d px, %ld coloured pixels, %.2f ms", glGetString(GL_VERSION),
                 gdk_gl_context_get_use_es(ctx) ? "GLES" : "desktop GL",
                 G_OBJECT_TYPE_NAME(ctx), pr.w, pr.h, pr.non_bg,
                 lw_view3d_get_frame_time_ms(LW_VIEW3D(view)));
  g_assert_cmpint(pr.non_bg, >, 1000);
  g_assert_cmpfloat(lw_view3d_get_frame_time_ms(LW_VIEW3D(view)), >, 0);
  /* told to use OpenGL ES only, the view has such a context (GtkGLArea 4.8
   * alone would have allowed desktop GL only, and drawn nothing) */
  const char *gdk_debug = g_getenv("GDK_DEBUG");
  if (gdk_debug && strstr(gdk_debug, "gl-gles"))
    g_assert_true(gdk_gl_context_get_use_es(ctx));

  /* actions: property toggles and the camera */
  gboolean grid = TRUE;
  g_object_get(view, "show-grid", &grid, NULL);
  g_assert_true(grid);
  g_assert_true(gtk_widget_activate_action(view, "view.show-grid", NULL));
  g_object_get(view, "show-grid", &grid, NULL);
  g_assert_false(grid);
  gboolean frames = FALSE;
  g_assert_true(gtk_widget_activate_action(view, "view.show-frames", NULL));
  g_object_get(view, "show-frames", &frames, NULL);
  g_assert_true(frames);
  g_assert_true(gtk_widget_activate_action(view, "view.zoom-in", NULL));
  lw_camera before, after;
  lw_view3d_get_camera(LW_VIEW3D(view), &before);
  g_assert_true(wait_frame(&pr, view));
  g_assert_true(gtk_widget_activate_action(view, "view.reset-camera", NULL));
  g_assert_true(wait_frame(&pr, view));
  lw_view3d_get_camera(LW_VIEW3D(view), &after);
  g_assert_cmpfloat(after.distance, >, before.distance); /* the zoom was undone */
  g_assert_cmpint(pr.non_bg, >, 1000);
  static const char *const toggles[] = {"view.show-joints", "view.show-forces", "view.show-traces"};
  for (size_t i = 0; i < G_N_ELEMENTS(toggles); i++)
    g_assert_true(gtk_widget_activate_action(view, toggles[i], NULL));
  gboolean joints = TRUE;
  g_object_get(view, "show-joints", &joints, NULL);
  g_assert_false(joints);

  /* picking through the widget and the selection property */
  int notified = 0;
  g_signal_connect(view, "notify::selection", G_CALLBACK(on_notify), &notified);
  double w[3], x, y;
  geom_middle(&sc, 0, w);
  lw_view3d_get_camera(LW_VIEW3D(view), &after);
  int lw = gtk_widget_get_width(view), lh = gtk_widget_get_height(view);
  g_assert_true(lw_camera_project(&after, lw, lh, w, &x, &y));
  lw_pick p;
  g_assert_true(lw_view3d_pick(LW_VIEW3D(view), x, y, &p));
  g_assert_cmpint(p.kind, ==, LW_PICK_BODY);
  g_assert_cmpint(p.index, ==, 0);
  g_assert_false(lw_view3d_pick(LW_VIEW3D(view), 2, 2, &p));
  lw_view3d_set_selection(LW_VIEW3D(view), "bodies/B23");
  g_assert_cmpstr(lw_view3d_get_selection(LW_VIEW3D(view)), ==, "bodies/B23");
  lw_view3d_set_selection(LW_VIEW3D(view), "joints/nonexistent");
  g_assert_null(lw_view3d_get_selection(LW_VIEW3D(view)));
  g_assert_cmpint(notified, ==, 2);
  g_assert_true(wait_frame(&pr, view));

  /* frame time of the five-bar animating in the widget */
  double total = 0;
  int n = 30;
  for (int i = 0; i < n; i++) {
    scene_advance(&sc, 1);
    lw_view3d_set_state(LW_VIEW3D(view), &sc.s);
    g_assert_true(wait_frame(&pr, view));
    total += lw_view3d_get_frame_time_ms(LW_VIEW3D(view));
  }
  g_test_message("widget %dx%d px: %.2f ms per frame (draw + glFinish)", pr.w, pr.h, total / n);

  /* the model can go away */
  lw_view3d_set_model(LW_VIEW3D(view), NULL);
  g_assert_true(wait_frame(&pr, view));
  g_assert_cmpint(pr.non_bg, <, 50);
  view_window_close(win, &pr, &sc);
}

/* The widget as GTK's cairo renderer shows it (the renderer the application
 * picks on software GL): the scene drawn into the view's own framebuffer
 * and read back must give the same picture as GtkGLArea's texture, the
 * right way up. */
enum { VIA_THREAD, VIA_READBACK, VIA_GLAREA };
static GdkTexture *widget_texture(GtkWidget *win, GtkWidget *view, int via, widget_probe *pr, char **node_kind)
{
  if (via == VIA_GLAREA)
    g_setenv("LW_VIEW_NO_READBACK", "1", TRUE);
  else
    g_unsetenv("LW_VIEW_NO_READBACK");
  if (via == VIA_READBACK)
    g_setenv("LW_VIEW_NO_THREAD", "1", TRUE);
  else
    g_unsetenv("LW_VIEW_NO_THREAD");
  /* both pictures of a still view (anti-aliased), and the frame drawn ahead
   * on the read-back path shown: a frame clock tick later; the view's
   * pictures counted until no new one has come for a quarter of a second
   * (the anti-aliased one follows the last change by 0.15-0.35 s) */
  lwt_spin(0.3);
  g_assert_true(wait_frame(pr, view));
  guint64 shown = lw_view3d_get_pictures(LW_VIEW3D(view));
  for (int k = 0; k < 20; k++) {
    lwt_spin(0.25);
    guint64 now = lw_view3d_get_pictures(LW_VIEW3D(view));
    if (now == shown && k >= 1)
      break;
    shown = now;
  }
  int w = gtk_widget_get_width(view), h = gtk_widget_get_height(view);
  GdkPaintable *pt = gtk_widget_paintable_new(view);
  GtkSnapshot *snap = gtk_snapshot_new();
  gdk_paintable_snapshot(pt, snap, w, h);
  GskRenderNode *node = gtk_snapshot_free_to_node(snap);
  g_assert_nonnull(node);
  /* the view's content node under any containers */
  GskRenderNode *leaf = node;
  while (gsk_render_node_get_node_type(leaf) == GSK_CONTAINER_NODE && gsk_container_node_get_n_children(leaf) > 0)
    leaf = gsk_container_node_get_child(leaf, gsk_container_node_get_n_children(leaf) - 1);
  *node_kind = g_strdup(G_OBJECT_TYPE_NAME(leaf));
  GdkTexture *tex = gsk_renderer_render_texture(gtk_native_get_renderer(GTK_NATIVE(win)), node, NULL);
  gsk_render_node_unref(node);
  g_object_unref(pt);
  g_unsetenv("LW_VIEW_NO_READBACK");
  g_unsetenv("LW_VIEW_NO_THREAD");
  return tex;
}

/* the largest colour difference of pixel i (B G R A, w x h) to its four
 * neighbours: an edge shows as a large one (0 at the picture's rim) */
static int edge_contrast(const guint8 *px, int w, int h, long i)
{
  long x = i % w, y = i / w;
  /* the neighbours inside the picture (a line reaching the border is an
   * edge there too) */
  const long nb[4] = {x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1};
  int e = 0;
  for (int k = 0; k < 4; k++)
    for (int c = 0; c < 3 && nb[k] >= 0; c++)
      e = MAX(e, abs((int)px[4 * i + c] - (int)px[4 * nb[k] + c]));
  return e;
}

/* body origins of state s all inside the w x h view of cam */
static gboolean origins_in_view(const lw_camera *cam, const lw_render_state *s, int w, int h)
{
  for (int b = 0; b < s->nbodies; b++) {
    double x, y;
    if (!lw_camera_project(cam, w, h, s->body_pose + 12 * b, &x, &y) || x < 0 || x > w || y < 0 || y > h)
      return FALSE;
  }
  return TRUE;
}

/* the fitted camera widens to keep a mechanism that leaves its box in
 * view, never narrows, and stays where the user put it */
static void test_widget_auto_frame(void)
{
  g_setenv("LW_VIEW_NO_THREAD", "1", TRUE); /* the probe reads the framebuffer drawn here */
  scene sc;
  widget_probe pr;
  GtkWidget *view, *win = five_bar_window(&sc, &pr, 480, 360, &view);
  if (!win)
    return;
  g_assert_true(lw_view3d_get_auto_frame(LW_VIEW3D(view)));
  int w = gtk_widget_get_width(view), h = gtk_widget_get_height(view);
  lw_camera c0, c1, c2;
  lw_view3d_get_camera(LW_VIEW3D(view), &c0);
  g_assert_true(origins_in_view(&c0, &sc.s, w, h));

  /* the mechanism moved 3 m to the side: out of the first view */
  int nb = sc.s.nbodies, nj = sc.s.njoints;
  double *pose = g_memdup2(sc.pose, sizeof(double) * 12 * nb), *jt = g_memdup2(sc.joints, sizeof(double) * 6 * MAX(nj, 1));
  for (int b = 0; b < nb; b++)
    pose[12 * b] += 3.0;
  for (int j = 0; j < nj; j++)
    jt[6 * j] += 3.0;
  lw_render_state moved = sc.s;
  moved.body_pose = pose;
  moved.joints = jt;
  g_assert_false(origins_in_view(&c0, &moved, w, h));
  lw_view3d_set_state(LW_VIEW3D(view), &moved);
  g_assert_true(wait_frame(&pr, view));
  lw_view3d_get_camera(LW_VIEW3D(view), &c1);
  g_test_message("camera distance %.3f -> %.3f, target x %.3f -> %.3f", c0.distance, c1.distance, c0.target[0],
                 c1.target[0]);
  g_assert_true(origins_in_view(&c1, &moved, w, h));
  g_assert_true(origins_in_view(&c1, &sc.s, w, h)); /* the box grew: where it was is still in view */
  g_assert_true(lw_view3d_get_auto_frame(LW_VIEW3D(view)));

  /* held off (while the user edits): no change */
  for (int b = 0; b < nb; b++)
    pose[12 * b] += 3.0;
  g_assert_false(origins_in_view(&c1, &moved, w, h)); /* it would widen */
  lw_view3d_set_follow_motion(LW_VIEW3D(view), FALSE);
  lw_view3d_set_state(LW_VIEW3D(view), &moved);
  g_assert_true(wait_frame(&pr, view));
  lw_view3d_get_camera(LW_VIEW3D(view), &c2);
  g_assert_true(memcmp(&c1, &c2, sizeof c1) == 0);
  lw_view3d_set_follow_motion(LW_VIEW3D(view), TRUE);
  for (int b = 0; b < nb; b++)
    pose[12 * b] -= 3.0;

  /* back inside the box: no change */
  lw_view3d_set_state(LW_VIEW3D(view), &sc.s);
  g_assert_true(wait_frame(&pr, view));
  lw_view3d_get_camera(LW_VIEW3D(view), &c2);
  g_assert_true(memcmp(&c1, &c2, sizeof c1) == 0);

  /* the user zooms: the camera is theirs, and stays */
  lw_view3d_zoom(LW_VIEW3D(view), 1.0);
  g_assert_false(lw_view3d_get_auto_frame(LW_VIEW3D(view)));
  lw_view3d_get_camera(LW_VIEW3D(view), &c1);
  for (int b = 0; b < nb; b++)
    pose[12 * b] += 10.0;
  g_assert_false(origins_in_view(&c1, &moved, w, h)); /* it would widen */
  lw_view3d_set_state(LW_VIEW3D(view), &moved);
  g_assert_true(wait_frame(&pr, view));
  lw_view3d_get_camera(LW_VIEW3D(view), &c2);
  g_assert_true(memcmp(&c1, &c2, sizeof c1) == 0);

  /* reset_camera fits the current state again, and widens again, also to
   * hold a trace that goes out of the box */
  lw_view3d_set_state(LW_VIEW3D(view), &sc.s);
  lw_view3d_reset_camera(LW_VIEW3D(view));
  g_assert_true(wait_frame(&pr, view));
  g_assert_true(lw_view3d_get_auto_frame(LW_VIEW3D(view)));
  lw_view3d_get_camera(LW_VIEW3D(view), &c1);
  const double far[6] = {sc.pose[0], sc.pose[1], sc.pose[2], sc.pose[0] - 4.0, sc.pose[1] - 3.0, sc.pose[2]};
  double x, y;
  g_assert_false(lw_camera_project(&c1, w, h, far + 3, &x, &y) && x >= 0 && x <= w && y >= 0 && y <= h);
  lw_view3d_set_trace(LW_VIEW3D(view), 0, far, 2);
  g_assert_true(wait_frame(&pr, view));
  lw_view3d_get_camera(LW_VIEW3D(view), &c2);
  g_assert_true(lw_camera_project(&c2, w, h, far + 3, &x, &y) && x >= 0 && x <= w && y >= 0 && y <= h);
  g_assert_true(origins_in_view(&c2, &sc.s, w, h));

  /* a model set again (an edit) with the camera kept: the same camera, and
   * still fitted */
  lw_view3d_set_model(LW_VIEW3D(view), lw_model_desc(sc.m));
  lw_view3d_set_state(LW_VIEW3D(view), &sc.s);
  lw_view3d_keep_camera(LW_VIEW3D(view));
  g_assert_true(wait_frame(&pr, view));
  lw_view3d_get_camera(LW_VIEW3D(view), &c1);
  g_assert_true(memcmp(&c1, &c2, sizeof c1) == 0);
  g_assert_true(lw_view3d_get_auto_frame(LW_VIEW3D(view)));

  /* the view made narrow (a palette slides in beside it), while the user
   * edits: the same box fitted to the new shape, nothing cut off */
  lw_view3d_set_follow_motion(LW_VIEW3D(view), FALSE);
  const double box[2][3] = {{-1.0, -1.0, 0.0}, {3.0, 2.0, 0.0}};
  lw_view3d_fit_box(LW_VIEW3D(view), box[0], box[1]);
  g_assert_true(wait_frame(&pr, view));
  lw_view3d_get_camera(LW_VIEW3D(view), &c1);
  int wide_w = gtk_widget_get_width(view);
  gtk_window_set_default_size(GTK_WINDOW(win), 200, 360);
  gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
  while (gtk_widget_get_width(view) >= wide_w && g_get_monotonic_time() < end)
    g_main_context_iteration(NULL, FALSE);
  g_assert_cmpint(gtk_widget_get_width(view), <, wide_w);
  g_assert_true(wait_frame(&pr, view));
  g_assert_true(wait_frame(&pr, view));
  w = gtk_widget_get_width(view), h = gtk_widget_get_height(view);
  lw_view3d_get_camera(LW_VIEW3D(view), &c2);
  g_test_message("view %d -> %d px wide: camera distance %.3f -> %.3f", wide_w, w, c1.distance, c2.distance);
  for (int k = 0; k < 4; k++) {
    const double p[3] = {box[k & 1][0], box[k >> 1][1], 0.0};
    g_assert_true(lw_camera_project(&c2, w, h, p, &x, &y) && x >= 0 && x <= w && y >= 0 && y <= h);
  }
  g_assert_true(lw_view3d_get_auto_frame(LW_VIEW3D(view)));
  lw_view3d_set_follow_motion(LW_VIEW3D(view), TRUE);
  g_free(pose);
  g_free(jt);
  view_window_close(win, &pr, &sc);
}

/* a picture read back (a) against GtkGLArea's (b) */
static void compare_pictures(GdkTexture *a, GdkTexture *b)
{
  int w = gdk_texture_get_width(a), h = gdk_texture_get_height(a);
  g_assert_cmpint(w, ==, gdk_texture_get_width(b));
  g_assert_cmpint(h, ==, gdk_texture_get_height(b));
  gsize stride = 4 * (gsize)w;
  guint8 *pa = g_malloc(stride * h), *pb = g_malloc(stride * h);
  gdk_texture_download(a, pa, stride);
  gdk_texture_download(b, pb, stride);
  int worst = 0;
  long coloured = 0, top_coloured = 0, differ = 0, edge_differ = 0;
  for (long i = 0; i < (long)w * h; i++) {
    int d = 0;
    for (int c = 0; c < 4; c++)
      d = MAX(d, abs((int)pa[4 * i + c] - (int)pb[4 * i + c]));
    worst = MAX(worst, d);
    if (d > 2) {
      differ++;
      /* an edge in either picture: the grid's minor lines are faint (a few
       * levels against the background), and drawn one pixel apart in the
       * mirrored picture they are edges of one picture and not the other */
      edge_differ += edge_contrast(pb, w, h, i) > 8 ||
                     (d <= 16 && MAX(edge_contrast(pa, w, h, i), edge_contrast(pb, w, h, i)) > 2);
    }
    /* B G R A: the mechanism's saturated colours */
    double mx = MAX(pa[4 * i], MAX(pa[4 * i + 1], pa[4 * i + 2])), mn = MIN(pa[4 * i], MIN(pa[4 * i + 1], pa[4 * i + 2]));
    if ((mx - mn) / 255.0 > 0.25) {
      coloured++;
      if (i < (long)w * h / 2)
        top_coloured++;
    }
  }
  g_test_message("%dx%d px: largest channel difference %d, %ld pixels differ by more than 2 (%ld on edges), %ld "
                 "coloured pixels (%ld in the top half)",
                 w, h, worst, differ, edge_differ, coloured, top_coloured);
  /* 8 x 8 blocks: their mean colours agree (a picture upside down or with
   * red and blue swapped would differ by tens in many blocks) */
  double block_worst = 0;
  for (int by = 0; by + 8 <= h; by += 8)
    for (int bx = 0; bx + 8 <= w; bx += 8)
      for (int c = 0; c < 4; c++) {
        double sa = 0, sb = 0;
        for (int y = by; y < by + 8; y++)
          for (int x = bx; x < bx + 8; x++) {
            sa += pa[4 * ((long)y * w + x) + c];
            sb += pb[4 * ((long)y * w + x) + c];
          }
        block_worst = MAX(block_worst, fabs(sa - sb) / 64.0);
      }
  g_test_message("largest difference of the mean of an 8 x 8 block: %.2f", block_worst);
  g_assert_cmpint(coloured, >, 1000);
  /* the read-back picture is drawn upside down (projection flipped), so
   * the rasteriser samples anti-aliased edges at mirrored positions: edge
   * pixels may differ, nothing else does */
  g_assert_cmpint(edge_differ, ==, differ);
  g_assert_cmpint(differ, <, (long)w * h / 40);
  g_assert_cmpfloat(block_worst, <=, 6.0);
  g_free(pa);
  g_free(pb);
}

static void test_widget_readback(void)
{
  scene sc;
  widget_probe pr;
  GtkWidget *view, *win = five_bar_window(&sc, &pr, 400, 300, &view);
  if (!win)
    return;
  if (!GSK_IS_CAIRO_RENDERER(gtk_native_get_renderer(GTK_NATIVE(win)))) {
    /* GTK picks its renderer once per process: the 'render-cairo' test runs this */
    g_test_skip("needs GSK_RENDERER=cairo (the render-cairo test)");
    view_window_close(win, &pr, &sc);
    return;
  }
  if (gdk_gl_context_get_api(gtk_gl_area_get_context(GTK_GL_AREA(view))) == GDK_GL_API_GLES) {
    g_test_skip("the read-back path is for desktop GL; on OpenGL ES the view uses GtkGLArea's");
    view_window_close(win, &pr, &sc);
    return;
  }

  g_autofree char *kind_a = NULL, *kind_b = NULL, *kind_c = NULL;
  /* drawn on the view's render thread (the default), on the interface's
   * thread, and by GtkGLArea */
  /* the render thread starts at the view's first frame and takes over once
   * it has drawn one (its shaders compiled: seconds under the sanitizers);
   * this test wants it whatever the environment says */
  g_unsetenv("LW_VIEW_NO_THREAD");
  gboolean egl = epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless");
  for (int k = 0; k < 150 && egl && !lw_view3d_get_threaded(LW_VIEW3D(view)); k++) {
    g_assert_true(wait_frame(&pr, view));
    lwt_spin(0.1);
  }
  GdkTexture *a = widget_texture(win, view, VIA_THREAD, &pr, &kind_a);
  gboolean threaded = lw_view3d_get_threaded(LW_VIEW3D(view));
  GdkTexture *c = widget_texture(win, view, VIA_READBACK, &pr, &kind_c);
  g_assert_false(lw_view3d_get_threaded(LW_VIEW3D(view)));
  GdkTexture *b = widget_texture(win, view, VIA_GLAREA, &pr, &kind_b);
  g_test_message("render thread: %s (%s); read back: %s; GtkGLArea: %s", kind_a,
                 threaded ? "drawn there" : "not available", kind_c, kind_b);
  g_assert_cmpstr(kind_a, ==, "GskCairoNode");
  g_assert_cmpstr(kind_c, ==, "GskCairoNode");
  g_assert_cmpstr(kind_b, !=, "GskCairoNode");
  /* surfaceless EGL (which this program's own tests draw with) is there:
   * the view must have drawn on its thread */
  if (egl)
    g_assert_true(threaded);
  compare_pictures(a, b);
  compare_pictures(c, b);
  g_object_unref(a);
  g_object_unref(b);
  g_object_unref(c);

  /* the mechanism moved (0.4 s on): the thread's picture follows */
  scene_advance(&sc, 400);
  lw_view3d_set_state(LW_VIEW3D(view), &sc.s);
  g_clear_pointer(&kind_a, g_free);
  g_clear_pointer(&kind_b, g_free);
  a = widget_texture(win, view, VIA_THREAD, &pr, &kind_a);
  b = widget_texture(win, view, VIA_GLAREA, &pr, &kind_b);
  compare_pictures(a, b);
  g_object_unref(a);
  g_object_unref(b);
  view_window_close(win, &pr, &sc);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/render/camera", test_camera);
  g_test_add_func("/render/resource", test_resource);
  g_test_add_func("/render/five-bar-reference", test_five_bar_reference);
  g_test_add_func("/render/slider-crank-reference", test_slider_crank_reference);
  g_test_add_func("/render/background-copy", test_background_copy);
  g_test_add_func("/render/five-bar-content", test_five_bar_content);
  g_test_add_func("/render/pick", test_pick);
  g_test_add_func("/render/mesh", test_mesh);
  g_test_add_func("/render/fit", test_fit);
  g_test_add_func("/render/draw-time", test_draw_time);
  g_test_add_func("/render/thread", test_thread);
  g_test_add_func("/render/widget", test_widget);
  g_test_add_func("/render/widget/readback", test_widget_readback);
  g_test_add_func("/render/widget/auto-frame", test_widget_auto_frame);
  int ret = g_test_run();
  gl_down();
  g_free(egl_problem);
  return ret;
}
