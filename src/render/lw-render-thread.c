/* lw-render-thread.c: see lw-render-thread.h.
 *
 * The worker owns a ring of RING image surfaces.  It writes a picture into
 * one that is neither the one the caller took last (shown: a cairo node may
 * still paint it) nor the newest done (ready: the caller may take it next),
 * so with three there is always one to write.  The surfaces are written in
 * place with glReadPixels, never flushed nor marked dirty: either would make
 * cairo copy the picture for the snapshots that old render nodes keep of it.
 */
#include "lw-render-thread.h"

#include <string.h>

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#define RING 3

/* The surfaceless display is one for the whole process, shared by the views'
 * threads and by anyone else who uses it (the renderer's tests do): it is
 * initialised under this lock and never terminated here. */
static GMutex egl_lock;

typedef struct {
  double *xyz;
  int n;
} trace_copy;

/* what the caller hands over for the next frame */
typedef struct {
  gboolean frame; /* a frame is asked for (in the caller's job) */
  lw_camera cam;
  int w, h, samples;
  guint64 gen;
  gboolean has_state;
  lw_render_state state;
  double *pose, *joints, *forces, *sticking, *marks, *beam_pts, *beam_rgb;
  size_t cap_pose, cap_joints, cap_forces, cap_sticking, cap_marks, cap_beam_pts, cap_beam_rgb;

  gboolean model_set;
  lw_desc *model;
  gboolean opt_set;
  lw_render_options opt;
  gboolean sel_set;
  lw_pick sel;
  gboolean traces_set;
  GArray *traces; /* trace_copy */
  gboolean reset_scale;
} job;

struct lw_render_thread {
  GThread *thread;
  GMutex lock;
  GCond cond;
  gboolean quit;
  lw_render_thread_status status;
  char *error;

  job next;       /* filled by the caller */
  gboolean busy;  /* the worker is drawing a frame */

  cairo_surface_t *slot[RING];
  guint64 slot_gen[RING];
  double slot_ms[RING];
  int ready, shown; /* slots, -1: none */
  guint64 done_gen;

  /* the worker's own */
  lw_offscreen_gl gl;
  lw_renderer *r;
  lw_readback_fb fb;
  gboolean warm;
};

static void traces_free(GArray *a)
{
  if (!a)
    return;
  for (guint k = 0; k < a->len; k++)
    g_free(g_array_index(a, trace_copy, k).xyz);
  g_array_unref(a);
}

static void job_clear_extras(job *j)
{
  if (j->model_set)
    lw_desc_free(j->model);
  j->model = NULL;
  j->model_set = FALSE;
  traces_free(j->traces);
  j->traces = NULL;
  j->traces_set = j->opt_set = j->sel_set = j->reset_scale = FALSE;
}

static void job_free(job *j)
{
  job_clear_extras(j);
  g_free(j->pose);
  g_free(j->joints);
  g_free(j->forces);
  g_free(j->sticking);
  g_free(j->marks);
  g_free(j->beam_pts);
  g_free(j->beam_rgb);
}

static double *copy_into(double **buf, size_t *cap, const double *src, size_t n)
{
  if (!src || n == 0)
    return NULL;
  if (*cap < n) {
    *buf = g_renew(double, *buf, n);
    *cap = n;
  }
  memcpy(*buf, src, n * sizeof(double));
  return *buf;
}

/* ---- a surfaceless context --------------------------------------------- */
gboolean lw_offscreen_gl_begin(lw_offscreen_gl *g, const char **problem)
{
  g->dpy = EGL_NO_DISPLAY;
  g->ctx = EGL_NO_CONTEXT;
  if (!epoxy_has_egl() || !epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless")) {
    *problem = "EGL_MESA_platform_surfaceless is not available";
    return FALSE;
  }
  g_mutex_lock(&egl_lock);
  EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  EGLint major, minor;
  if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
    g_mutex_unlock(&egl_lock);
    *problem = "cannot initialise a surfaceless EGL display";
    return FALSE;
  }
  g_mutex_unlock(&egl_lock);
  g->dpy = dpy;
  if (!eglBindAPI(EGL_OPENGL_API)) {
    *problem = "EGL cannot bind desktop OpenGL";
    return FALSE;
  }
  static const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  g->ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
  if (g->ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, g->ctx)) {
    *problem = "no OpenGL 3.3 core context";
    return FALSE;
  }
  return TRUE;
}

void lw_offscreen_gl_end(lw_offscreen_gl *g)
{
  if (g->dpy == EGL_NO_DISPLAY)
    return;
  if (g->ctx != EGL_NO_CONTEXT) {
    eglMakeCurrent(g->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(g->dpy, g->ctx);
  }
  g->ctx = EGL_NO_CONTEXT;
  g->dpy = EGL_NO_DISPLAY;
  eglReleaseThread();
}

/* ---- the worker ------------------------------------------------------- */
static gboolean worker_init(lw_render_thread *t)
{
  const char *problem = NULL;
  if (!lw_offscreen_gl_begin(&t->gl, &problem)) {
    g_mutex_lock(&t->lock);
    t->error = g_strdup(problem);
    g_mutex_unlock(&t->lock);
    return FALSE;
  }
  GError *err = NULL;
  t->r = lw_renderer_new(&err);
  if (!t->r) {
    g_mutex_lock(&t->lock);
    t->error = g_strdup(err->message);
    g_mutex_unlock(&t->lock);
    g_error_free(err);
    return FALSE;
  }
  return TRUE;
}

static void worker_done(lw_render_thread *t)
{
  if (t->gl.ctx != EGL_NO_CONTEXT) {
    eglMakeCurrent(t->gl.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, t->gl.ctx);
    lw_readback_fb_free(&t->fb);
    if (t->r)
      lw_renderer_free(t->r);
    t->r = NULL;
  }
  lw_offscreen_gl_end(&t->gl);
}

/* apply what came with the frame to the worker's renderer */
static void worker_apply(lw_render_thread *t, job *j)
{
  if (j->model_set) {
    lw_renderer_set_model(t->r, j->model);
    t->warm = FALSE;
  }
  if (j->opt_set)
    lw_renderer_set_options(t->r, &j->opt);
  if (j->sel_set)
    lw_renderer_set_selection(t->r, j->sel);
  if (j->traces_set) {
    lw_renderer_clear_traces(t->r);
    for (guint k = 0; j->traces && k < j->traces->len; k++) {
      const trace_copy *c = &g_array_index(j->traces, trace_copy, k);
      if (c->n > 0)
        lw_renderer_set_trace(t->r, (int)k, c->xyz, c->n);
    }
  }
  if (j->reset_scale)
    lw_renderer_reset_scale(t->r);
}

static void worker_frame(lw_render_thread *t, job *j)
{
  gint64 t0 = g_get_monotonic_time();
  const lw_render_state *s = j->has_state ? &j->state : NULL;
  if (j->w <= 0 || j->h <= 0)
    return;
  if (t->fb.w != j->w || t->fb.h != j->h)
    t->warm = FALSE;
  if (!lw_readback_fb_size(&t->fb, j->w, j->h))
    return;
  lw_renderer_set_flip_y(t->r, TRUE);
  if (!t->warm && j->samples > 1 && s) {
    /* llvmpipe compiles shader variants at the first draw into a kind of
     * framebuffer: a frame without multisampling drawn now keeps that
     * compilation out of the first frame of a run (overwritten next) */
    lw_renderer_set_samples(t->r, 0);
    lw_renderer_draw(t->r, &j->cam, j->w, j->h, s);
  }
  t->warm = TRUE;
  lw_renderer_set_samples(t->r, j->samples);
  lw_renderer_draw(t->r, &j->cam, j->w, j->h, s);

  g_mutex_lock(&t->lock);
  int k = 0;
  while (k == t->ready || k == t->shown)
    k++;
  g_mutex_unlock(&t->lock);
  lw_readback_read(&t->fb, lw_readback_surface(&t->slot[k], j->w, j->h));

  g_mutex_lock(&t->lock);
  t->slot_gen[k] = j->gen;
  t->slot_ms[k] = (double)(g_get_monotonic_time() - t0) / 1000.0;
  t->ready = k;
  g_mutex_unlock(&t->lock);
}

static gpointer worker(gpointer data)
{
  lw_render_thread *t = data;
  gboolean ok = worker_init(t);
  g_mutex_lock(&t->lock);
  t->status = ok ? LW_RENDER_THREAD_READY : LW_RENDER_THREAD_FAILED;
  g_cond_broadcast(&t->cond);
  g_mutex_unlock(&t->lock);
  if (!ok) {
    /* said here, when it happens (the view may draw no other frame) */
    g_message("the 3-D view draws on the interface's thread: %s", t->error);
    worker_done(t);
    return NULL;
  }
  job j = {0};
  for (;;) {
    g_mutex_lock(&t->lock);
    while (!t->next.frame && !t->quit)
      g_cond_wait(&t->cond, &t->lock);
    if (t->quit) {
      g_mutex_unlock(&t->lock);
      break;
    }
    /* take the frame: its state by swapping buffers (the state points into
     * the buffers, which move with it), the rest by moving */
    job *n = &t->next;
    j.cam = n->cam, j.w = n->w, j.h = n->h, j.samples = n->samples, j.gen = n->gen;
    j.has_state = n->has_state;
    j.state = n->state;
    double *buf[7] = {j.pose, j.joints, j.forces, j.sticking, j.marks, j.beam_pts, j.beam_rgb};
    size_t cap[7] = {j.cap_pose,  j.cap_joints,   j.cap_forces,  j.cap_sticking,
                     j.cap_marks, j.cap_beam_pts, j.cap_beam_rgb};
    j.pose = n->pose, j.joints = n->joints, j.forces = n->forces, j.sticking = n->sticking, j.marks = n->marks;
    j.beam_pts = n->beam_pts, j.beam_rgb = n->beam_rgb;
    j.cap_pose = n->cap_pose, j.cap_joints = n->cap_joints, j.cap_forces = n->cap_forces;
    j.cap_sticking = n->cap_sticking, j.cap_marks = n->cap_marks, j.cap_beam_pts = n->cap_beam_pts;
    j.cap_beam_rgb = n->cap_beam_rgb;
    n->pose = buf[0], n->joints = buf[1], n->forces = buf[2], n->sticking = buf[3], n->marks = buf[4];
    n->beam_pts = buf[5], n->beam_rgb = buf[6];
    n->cap_pose = cap[0], n->cap_joints = cap[1], n->cap_forces = cap[2];
    n->cap_sticking = cap[3], n->cap_marks = cap[4], n->cap_beam_pts = cap[5], n->cap_beam_rgb = cap[6];
    j.model_set = n->model_set, j.model = n->model;
    j.opt_set = n->opt_set, j.opt = n->opt;
    j.sel_set = n->sel_set, j.sel = n->sel;
    j.traces_set = n->traces_set, j.traces = n->traces;
    j.reset_scale = n->reset_scale;
    n->model = NULL, n->traces = NULL;
    n->frame = n->model_set = n->opt_set = n->sel_set = n->traces_set = n->reset_scale = FALSE;
    t->busy = TRUE;
    g_mutex_unlock(&t->lock);

    worker_apply(t, &j);
    worker_frame(t, &j);
    job_clear_extras(&j);

    g_mutex_lock(&t->lock);
    t->busy = FALSE;
    if (j.gen > t->done_gen)
      t->done_gen = j.gen;
    g_cond_broadcast(&t->cond);
    g_mutex_unlock(&t->lock);
  }
  job_free(&j);
  worker_done(t);
  return NULL;
}

/* ---- the caller's side ------------------------------------------------ */
lw_render_thread *lw_render_thread_new(void)
{
  lw_render_thread *t = g_new0(lw_render_thread, 1);
  g_mutex_init(&t->lock);
  g_cond_init(&t->cond);
  t->ready = t->shown = -1;
  t->gl.ctx = EGL_NO_CONTEXT;
  t->gl.dpy = EGL_NO_DISPLAY;
  t->thread = g_thread_new("lw-render", worker, t);
  return t;
}

void lw_render_thread_free(lw_render_thread *t)
{
  if (!t)
    return;
  g_mutex_lock(&t->lock);
  t->quit = TRUE;
  g_cond_broadcast(&t->cond);
  g_mutex_unlock(&t->lock);
  g_thread_join(t->thread);
  for (int k = 0; k < RING; k++)
    g_clear_pointer(&t->slot[k], cairo_surface_destroy);
  job_free(&t->next);
  g_free(t->error);
  g_mutex_clear(&t->lock);
  g_cond_clear(&t->cond);
  g_free(t);
}

lw_render_thread_status lw_render_thread_get_status(lw_render_thread *t)
{
  g_mutex_lock(&t->lock);
  lw_render_thread_status s = t->status;
  g_mutex_unlock(&t->lock);
  return s;
}

const char *lw_render_thread_error(lw_render_thread *t)
{
  return lw_render_thread_get_status(t) == LW_RENDER_THREAD_FAILED ? t->error : NULL;
}

void lw_render_thread_set_model(lw_render_thread *t, const lw_desc *desc)
{
  lw_desc *copy = desc ? lw_desc_copy(desc) : NULL;
  g_mutex_lock(&t->lock);
  if (t->next.model_set)
    lw_desc_free(t->next.model);
  t->next.model = copy;
  t->next.model_set = TRUE;
  g_mutex_unlock(&t->lock);
}

void lw_render_thread_set_options(lw_render_thread *t, const lw_render_options *opt)
{
  g_mutex_lock(&t->lock);
  t->next.opt = *opt;
  t->next.opt_set = TRUE;
  g_mutex_unlock(&t->lock);
}

void lw_render_thread_set_selection(lw_render_thread *t, lw_pick sel)
{
  g_mutex_lock(&t->lock);
  t->next.sel = sel;
  t->next.sel_set = TRUE;
  g_mutex_unlock(&t->lock);
}

void lw_render_thread_set_traces(lw_render_thread *t, int count, const double *const *xyz, const int *n)
{
  GArray *a = g_array_sized_new(FALSE, TRUE, sizeof(trace_copy), (guint)MAX(count, 0));
  for (int k = 0; k < count; k++) {
    trace_copy c = {NULL, 0};
    if (xyz[k] && n[k] > 0) {
      c.xyz = g_memdup2(xyz[k], sizeof(double) * 3 * (size_t)n[k]);
      c.n = n[k];
    }
    g_array_append_val(a, c);
  }
  g_mutex_lock(&t->lock);
  traces_free(t->next.traces);
  t->next.traces = a;
  t->next.traces_set = TRUE;
  g_mutex_unlock(&t->lock);
}

void lw_render_thread_reset_scale(lw_render_thread *t)
{
  g_mutex_lock(&t->lock);
  t->next.reset_scale = TRUE;
  g_mutex_unlock(&t->lock);
}

void lw_render_thread_submit(lw_render_thread *t, const lw_camera *cam, int w, int h, int samples,
                             const lw_render_state *state, guint64 gen)
{
  g_mutex_lock(&t->lock);
  job *n = &t->next;
  n->frame = TRUE;
  n->cam = *cam;
  n->w = w, n->h = h, n->samples = samples, n->gen = gen;
  n->has_state = state != NULL;
  if (state) {
    lw_render_state s = *state;
    s.nbodies = state->body_pose ? state->nbodies : 0;
    s.njoints = state->joints ? state->njoints : 0;
    s.nforces = state->forces ? state->nforces : 0;
    s.body_pose = copy_into(&n->pose, &n->cap_pose, state->body_pose, 12 * (size_t)s.nbodies);
    s.joints = copy_into(&n->joints, &n->cap_joints, state->joints, 6 * (size_t)s.njoints);
    s.forces = copy_into(&n->forces, &n->cap_forces, state->forces, 6 * (size_t)s.nforces);
    s.joint_sticking = state->joint_sticking && s.njoints
                         ? copy_into(&n->sticking, &n->cap_sticking, state->joint_sticking, (size_t)s.njoints)
                         : NULL;
    s.nmarks = state->marks ? state->nmarks : 0;
    s.marks = s.nmarks ? copy_into(&n->marks, &n->cap_marks, state->marks, LW_RENDER_MARK_DOUBLES * (size_t)s.nmarks)
                       : NULL;
    s.nbeam_pts = state->beam_pts ? state->nbeam_pts : 0;
    s.beam_pts = copy_into(&n->beam_pts, &n->cap_beam_pts, state->beam_pts, 4 * (size_t)s.nbeam_pts);
    s.beam_rgb = state->beam_rgb && s.nbeam_pts
                   ? copy_into(&n->beam_rgb, &n->cap_beam_rgb, state->beam_rgb, 3 * (size_t)s.nbeam_pts)
                   : NULL;
    n->state = s;
  }
  g_cond_broadcast(&t->cond);
  g_mutex_unlock(&t->lock);
}

gboolean lw_render_thread_wait(lw_render_thread *t, guint64 gen)
{
  g_mutex_lock(&t->lock);
  while (t->status != LW_RENDER_THREAD_FAILED && t->done_gen < gen)
    g_cond_wait(&t->cond, &t->lock);
  gboolean done = t->done_gen >= gen;
  g_mutex_unlock(&t->lock);
  return done;
}

gboolean lw_render_thread_busy(lw_render_thread *t)
{
  g_mutex_lock(&t->lock);
  gboolean busy = t->busy || t->next.frame;
  g_mutex_unlock(&t->lock);
  return busy;
}

gboolean lw_render_thread_has_new(lw_render_thread *t)
{
  g_mutex_lock(&t->lock);
  gboolean fresh = t->ready >= 0;
  g_mutex_unlock(&t->lock);
  return fresh;
}

cairo_surface_t *lw_render_thread_take(lw_render_thread *t, guint64 *gen, double *ms)
{
  g_mutex_lock(&t->lock);
  if (t->ready >= 0) {
    t->shown = t->ready;
    t->ready = -1;
  }
  cairo_surface_t *img = t->shown >= 0 ? t->slot[t->shown] : NULL;
  if (gen)
    *gen = t->shown >= 0 ? t->slot_gen[t->shown] : 0;
  if (ms)
    *ms = t->shown >= 0 ? t->slot_ms[t->shown] : 0.0;
  g_mutex_unlock(&t->lock);
  return img;
}

/* ---- read-back helpers ------------------------------------------------- */
void lw_readback_fb_free(lw_readback_fb *f)
{
  if (f->fbo) {
    glDeleteFramebuffers(1, &f->fbo);
    glDeleteTextures(1, &f->color);
    glDeleteRenderbuffers(1, &f->depth);
  }
  *f = (lw_readback_fb){0};
}

gboolean lw_readback_fb_size(lw_readback_fb *f, int w, int h)
{
  if (f->fbo && f->w == w && f->h == h) {
    glBindFramebuffer(GL_FRAMEBUFFER, f->fbo);
    return TRUE;
  }
  lw_readback_fb_free(f);
  glGenFramebuffers(1, &f->fbo);
  glGenTextures(1, &f->color);
  glBindTexture(GL_TEXTURE_2D, f->color);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_BGRA, GL_UNSIGNED_BYTE, NULL);
  glBindTexture(GL_TEXTURE_2D, 0);
  glGenRenderbuffers(1, &f->depth);
  glBindRenderbuffer(GL_RENDERBUFFER, f->depth);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, f->fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, f->color, 0);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, f->depth);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    lw_readback_fb_free(f);
    return FALSE;
  }
  f->w = w, f->h = h;
  return TRUE;
}

cairo_surface_t *lw_readback_surface(cairo_surface_t **img, int w, int h)
{
  if (*img && (cairo_image_surface_get_width(*img) != w || cairo_image_surface_get_height(*img) != h))
    g_clear_pointer(img, cairo_surface_destroy);
  if (!*img) {
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, w);
    guchar *data = g_malloc((gsize)stride * (gsize)h);
    *img = cairo_image_surface_create_for_data(data, CAIRO_FORMAT_ARGB32, w, h, stride);
    static cairo_user_data_key_t key;
    cairo_surface_set_user_data(*img, &key, data, g_free);
  }
  return *img;
}

void lw_readback_read(const lw_readback_fb *f, cairo_surface_t *img)
{
  glBindFramebuffer(GL_FRAMEBUFFER, f->fbo);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glPixelStorei(GL_PACK_ROW_LENGTH, cairo_image_surface_get_stride(img) / 4);
  glReadPixels(0, 0, f->w, f->h, GL_BGRA, GL_UNSIGNED_BYTE, cairo_image_surface_get_data(img));
  glPixelStorei(GL_PACK_ROW_LENGTH, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}
