/* lw-render.c: draws a mechanism with one shader program and a handful of
 * static unit meshes placed by per-instance matrices.
 *
 * The elements of a pass are not drawn one by one: each is recorded as an
 * instance (model-view and normal matrices, colours, coil parameters), and
 * at the end of the pass the instances are uploaded in one buffer and drawn
 * with one instanced draw per mesh kind and winding.  A 100-body chain thus
 * costs a handful of draw calls instead of several hundred, each of which
 * llvmpipe turns into a scene bin pass and uniform re-upload.
 *
 * GL objects are made in lw_renderer_new (static meshes, the program), the
 * grid when the model's scale is measured, trace buffers when a trace
 * changes, and the pick / multisample framebuffers on first use; nothing
 * else is allocated per frame.  Springs and torque arcs are bent from one
 * parameter grid in the vertex shader, so they need no per-frame uploads.
 */
#include "lw-render.h"
#include "lw-vec3.h"

#include <epoxy/gl.h>
#include <gio/gio.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lw-mesh.h"
#include "lw-mesh-file.h"
#include "lw-render-resources.h"

#define SHADER_PATH "/io/github/linkwright/Linkwright/shaders/"
#define PICK_SIZE 9 /* pick window: the pixel and 4 pixels around it */
#define HALO_PX 3.0f /* width of the selection outline */
#define LW_PI 3.14159265358979323846

G_DEFINE_QUARK(lw-render-error-quark, lw_render_error)

typedef struct {
  char *name;
  int ngeoms;
  lw_geom_desc *geoms;  /* (their mesh names are not kept: mesh_id says) */
  int *mesh_id;         /* (ngeoms) a mesh geometry's mesh, -1: not loaded */
  double *mesh_r;       /* (ngeoms) its radius about its origin, scaled */
  int npoints;
  double *points;     /* npoints x 3 */
  float color[3]; /* for bodies drawn without geometry */
} rbody;

typedef struct {
  char *name;
  lw_joint_type type;
  int body1;          /* index, -1: ground */
  double slide[3];    /* planar prismatic: slide direction on body 1 (local) */
  int driven;         /* a motor (driver) prescribes its motion */
} rjoint;

typedef struct {
  char *name;
  lw_force_type type;
  int damper;         /* spring-damper with damping: draw the damper too */
  double turns;       /* spring coils, fixed when the scale is measured */
} rforce;

/* one recorded element: the per-instance vertex attributes (see mesh.vert),
 * with its batch key */
#define INST_FLOATS 37
typedef struct {
  float a[INST_FLOATS]; /* mv[16], nrm[9], color[4], rim[3] + coil ramp, coil[4] */
  int mesh, front;      /* batch key: mesh kind, GL_CCW / GL_CW */
  int seq;              /* record order, to keep it within a batch */
} rinst;

typedef struct {
  float *xyz;
  int n;
  int dirty;
  GLuint vao, vbo;
  int gl_cap;         /* points the GL buffer holds */
} rtrace;

/* uniforms of all programs (a program lacking one gets location -1, which
 * glUniform ignores) */
enum {
  U_MODE, U_MV, U_PROJ, U_COLOR, U_PICKING,
  U_FADE, U_BG_TOP, U_BG_BOTTOM, U_EXTRUDE, U_N
};
static const char *const uniform_names[U_N] = {
  "u_mode", "u_mv", "u_proj", "u_color", "u_picking", "u_fade", "u_bg_top", "u_bg_bottom", "u_extrude"};

/* Separate small programs rather than one with a mode switch: llvmpipe
 * runs both sides of a branch, so a lit shader on the background pixels
 * cost more than everything else together. */
enum { P_MESH, P_HALO, P_LINE, P_BACKGROUND, P_N };
static const char *const program_files[P_N][3] = {
  {"mesh.vert", "mesh.frag", ""}, {"mesh.vert", "mesh.frag", "#define LW_HALO 1\n"},
  {"line.vert", "line.frag", ""}, {"background.vert", "background.frag", ""}};

enum { MODE_MESH = 0, MODE_COIL = 1 };

struct lw_renderer {
  char *gl_version;
  GLuint program[P_N];
  GLint u[P_N][U_N];
  GLuint vao, vbo, ibo;
  /* the unit meshes (lw-mesh.h), then the model's mesh files: first index
   * and index count of each of nmesh */
  lw_mesh_set unit;
  int *mesh_first, *mesh_count, nmesh;
  GString *mesh_notes; /* mesh files of the model that could not be read */

  /* instances of the current pass, and the GL buffer they go to */
  rinst *inst;
  int ninst, cap_inst;
  GLuint inst_vbo;
  size_t inst_gl_bytes;

  /* grid lines: minor, major, then the two axes through the origin */
  GLuint grid_vao, grid_vbo;
  int grid_first[4], grid_count[4];
  float grid_fade[4];
  int grid_built;
  double grid_key[6]; /* step and the covered rectangle (u0 u1 v0 v1), height */

  int samples, max_samples;
  GLuint ms_fbo, ms_rb[2];
  int ms_w, ms_h, ms_samples;
  /* the background drawn once into a texture of the view's size, copied
   * into each frame (see draw_background) */
  GLuint bg_fbo, bg_tex;
  int bg_w, bg_h, bg_flip, bg_dark;
  GLuint pick_fbo, pick_rb[2];

  /* model */
  int has_model, planar;
  double up[3];
  double weight;      /* mean body weight [N]: the force arrow reference */
  int nbodies, njoints, nforces;
  int nbeams;
  char **beam_names;  /* (nbeams) */
  rbody *bodies;
  rjoint *joints;
  rforce *forces;

  lw_render_options opt;
  lw_pick sel;
  int ntraces;
  rtrace *traces;

  /* scale, measured at the first draw after set_model / reset_scale */
  int scale_valid;
  double diag, glyph, bmin[3], bmax[3];

  /* per pass */
  double view[16];
  float projf[16];
  int picking, cur_mode, front_face;
  int flip_y;  /* draw upside down (lw_renderer_set_flip_y) */
  int flipped; /* the current pass is drawn upside down */
  int vw, vh;         /* viewport of the pass */
  float alpha;        /* 1, or less for the see-through pass of joints */
  int halo;           /* drawing the selection halo: only the selected element */
  int mp;             /* the mesh program in use: P_MESH or P_HALO */
};

static const float body_palette[][3] = {
  {0.85f, 0.33f, 0.10f}, {0.20f, 0.45f, 0.80f}, {0.20f, 0.65f, 0.35f}, {0.60f, 0.30f, 0.70f},
  {0.90f, 0.65f, 0.10f}, {0.10f, 0.60f, 0.65f}, {0.75f, 0.25f, 0.45f}, {0.45f, 0.50f, 0.55f}};
static const float trace_palette[][3] = {
  {0.88f, 0.11f, 0.14f}, {0.15f, 0.39f, 0.80f}, {0.18f, 0.60f, 0.22f}, {0.60f, 0.24f, 0.72f},
  {0.93f, 0.46f, 0.00f}, {0.05f, 0.58f, 0.62f}};
static const float joint_color[3] = {0.30f, 0.32f, 0.36f};
static const float spring_color[3] = {0.92f, 0.66f, 0.16f};
static const float damper_color[3] = {0.40f, 0.42f, 0.46f};
static const float force_color[3] = {0.86f, 0.16f, 0.22f};
static const float beam_color[3] = {0.18f, 0.55f, 0.62f};
static const float motor_color[3] = {0.50f, 0.30f, 0.66f};
static const float torque_color[3] = {0.80f, 0.20f, 0.60f};
static const float sticking_color[3] = {0.0f, 0.78f, 0.80f}; /* a joint its friction holds: cyan */
static const float mark_color[3] = {0.62f, 0.50f, 0.36f};     /* contact planes, joint limits */
static const float axis_colors[3][3] = {{0.86f, 0.20f, 0.20f}, {0.22f, 0.68f, 0.25f}, {0.20f, 0.38f, 0.90f}};

/* ---- small vector helpers ---------------------------------------------- */
/* two unit vectors completing ez to a right-handed basis */
static void perp_basis(const double ez[3], double ex[3], double ey[3])
{
  double h[3] = {0, 0, 0};
  int k = fabs(ez[0]) < fabs(ez[1]) ? (fabs(ez[0]) < fabs(ez[2]) ? 0 : 2) : (fabs(ez[1]) < fabs(ez[2]) ? 1 : 2);
  h[k] = 1;
  lw_cross3(h, ez, ex);
  lw_normalize3(ex);
  lw_cross3(ez, ex, ey);
}

/* columns ex sx, ey sy, ez sz, origin o */
static void mat_frame(double m[16], const double o[3], const double ex[3], const double ey[3], const double ez[3],
                      double sx, double sy, double sz)
{
  for (int i = 0; i < 3; i++) {
    m[i] = ex[i] * sx;
    m[4 + i] = ey[i] * sy;
    m[8 + i] = ez[i] * sz;
    m[12 + i] = o[i];
  }
  m[3] = m[7] = m[11] = 0;
  m[15] = 1;
}

/* the unit cylinder / cone (z from 0 to 1) stretched from a to b */
static int mat_segment(double m[16], const double a[3], const double b[3], double radius)
{
  double ez[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ex[3], ey[3];
  double len = lw_normalize3(ez);
  if (!(len > 0))
    return 0;
  perp_basis(ez, ex, ey);
  mat_frame(m, a, ex, ey, ez, radius, radius, len);
  return 1;
}

static void mat_sphere(double m[16], const double c[3], double radius)
{
  static const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
  mat_frame(m, c, x, y, z, radius, radius, radius);
}

/* body pose (origin, row-major R) as a column-major matrix */
/* the axes of a rotation given as a quaternion (w x y z; all 0: none) */
static void quat_axes(const double q[4], double ex[3], double ey[3], double ez[3])
{
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  double w = n > 0 ? q[0] / n : 1, x = n > 0 ? q[1] / n : 0, y = n > 0 ? q[2] / n : 0, z = n > 0 ? q[3] / n : 0;
  ex[0] = 1 - 2 * (y * y + z * z), ex[1] = 2 * (x * y + w * z), ex[2] = 2 * (x * z - w * y);
  ey[0] = 2 * (x * y - w * z), ey[1] = 1 - 2 * (x * x + z * z), ey[2] = 2 * (y * z + w * x);
  ez[0] = 2 * (x * z + w * y), ez[1] = 2 * (y * z - w * x), ez[2] = 1 - 2 * (x * x + y * y);
}

static void mat_pose(double m[16], const double *pose)
{
  const double *o = pose, *R = pose + 3;
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 3; i++)
      m[c * 4 + i] = R[3 * i + c];
  m[3] = m[7] = m[11] = 0;
  for (int i = 0; i < 3; i++)
    m[12 + i] = o[i];
  m[15] = 1;
}

static void xform_point(const double m[16], const double p[3], double out[3])
{
  double r[3];
  for (int i = 0; i < 3; i++)
    r[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
  memcpy(out, r, sizeof r);
}

static void xform_dir(const double m[16], const double p[3], double out[3])
{
  double r[3];
  for (int i = 0; i < 3; i++)
    r[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2];
  memcpy(out, r, sizeof r);
}

/* ---- GL setup -------------------------------------------------------- */
/* attribute location, float offset and width of the per-instance data */
#define INST_ATTRIBS 10
static const int inst_attr[INST_ATTRIBS][2] = {
  {0, 4}, {4, 4}, {8, 4}, {12, 4}, /* a_mv columns */
  {16, 3}, {19, 3}, {22, 3},       /* a_nrm columns */
  {25, 4},                         /* a_color */
  {29, 4},                         /* a_rim (w: coil ramp) */
  {33, 4}};                        /* a_coil */

/* point the instance attributes at instance `first` of the bound buffer */
static void set_instance_pointers(size_t first)
{
  size_t base = first * INST_FLOATS * sizeof(float);
  for (int a = 0; a < INST_ATTRIBS; a++)
    glVertexAttribPointer((GLuint)(2 + a), inst_attr[a][1], GL_FLOAT, GL_FALSE, INST_FLOATS * sizeof(float),
                          (void *)(base + sizeof(float) * (size_t)inst_attr[a][0]));
}

static GLuint compile_shader(GLenum type, const char *name, const char *defines, GError **error)
{
  g_autoptr(GBytes) bytes = g_resource_lookup_data(lw_render_resources_get_resource(), name,
                                                   G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (!bytes) {
    g_prefix_error(error, "shader %s: ", name);
    return 0;
  }
  /* one shader body serves desktop GL 3.3 and GLES 3.0: only the header differs */
  const char *header = epoxy_is_desktop_gl() ? "#version 330 core\n"
                                             : "#version 300 es\nprecision highp float;\nprecision highp int;\n";
  gsize len = 0;
  const char *body = g_bytes_get_data(bytes, &len);
  const char *src[3] = {header, defines, body};
  GLint lens[3] = {(GLint)strlen(header), (GLint)strlen(defines), (GLint)len};
  GLuint sh = glCreateShader(type);
  glShaderSource(sh, 3, src, lens);
  glCompileShader(sh);
  GLint ok = 0;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = "";
    glGetShaderInfoLog(sh, sizeof log, NULL, log);
    g_set_error(error, LW_RENDER_ERROR, LW_RENDER_ERROR_SHADER, "shader %s does not compile: %s", name, log);
    glDeleteShader(sh);
    return 0;
  }
  return sh;
}

static GLuint link_program(const char *vs_name, const char *fs_name, const char *defines, GError **error)
{
  g_autofree char *vpath = g_strconcat(SHADER_PATH, vs_name, NULL);
  g_autofree char *fpath = g_strconcat(SHADER_PATH, fs_name, NULL);
  GLuint vs = compile_shader(GL_VERTEX_SHADER, vpath, defines, error);
  if (!vs)
    return 0;
  GLuint fs = compile_shader(GL_FRAGMENT_SHADER, fpath, defines, error);
  if (!fs) {
    glDeleteShader(vs);
    return 0;
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, vs);
  glAttachShader(p, fs);
  glBindAttribLocation(p, 0, "a_pos");
  glBindAttribLocation(p, 1, "a_normal");
  glLinkProgram(p);
  glDetachShader(p, vs);
  glDetachShader(p, fs);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = "";
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    g_set_error(error, LW_RENDER_ERROR, LW_RENDER_ERROR_SHADER, "shaders %s + %s do not link: %s", vs_name, fs_name,
                log);
    glDeleteProgram(p);
    return 0;
  }
  return p;
}

lw_renderer *lw_renderer_new(GError **error)
{
  int desktop = epoxy_is_desktop_gl(), version = epoxy_gl_version();
  const char *vs = (const char *)glGetString(GL_VERSION);
  if ((desktop && version < 33) || (!desktop && version < 30)) {
    g_set_error(error, LW_RENDER_ERROR, LW_RENDER_ERROR_VERSION,
                "the 3-D view needs OpenGL 3.3 or OpenGL ES 3.0; this context is %s %d.%d (%s)",
                desktop ? "OpenGL" : "OpenGL ES", version / 10, version % 10, vs ? vs : "unknown");
    return NULL;
  }
  lw_renderer *r = g_new0(lw_renderer, 1);
  r->gl_version = g_strdup(vs ? vs : "");
  for (int p = 0; p < P_N; p++) {
    r->program[p] = link_program(program_files[p][0], program_files[p][1], program_files[p][2], error);
    if (!r->program[p]) {
      lw_renderer_free(r);
      return NULL;
    }
    for (int i = 0; i < U_N; i++)
      r->u[p][i] = glGetUniformLocation(r->program[p], uniform_names[i]);
  }

  lw_mesh_set ms;
  if (!lw_mesh_set_build(&ms)) {
    g_set_error(error, LW_RENDER_ERROR, LW_RENDER_ERROR_FAILED, "out of memory building meshes");
    lw_renderer_free(r);
    return NULL;
  }
  r->nmesh = LW_MESH_N;
  r->mesh_first = g_memdup2(ms.first, sizeof ms.first);
  r->mesh_count = g_memdup2(ms.count, sizeof ms.count);
  r->mesh_notes = g_string_new(NULL);
  glGenVertexArrays(1, &r->vao);
  glBindVertexArray(r->vao);
  glGenBuffers(1, &r->vbo);
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof(float) * 6 * (size_t)ms.nvertices, ms.vertices, GL_STATIC_DRAW);
  glGenBuffers(1, &r->ibo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->ibo);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(unsigned) * (size_t)ms.nindices, ms.indices, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)0);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)(3 * sizeof(float)));
  /* per-instance attributes 2..11 (pointers set per batch in flush_instances) */
  glGenBuffers(1, &r->inst_vbo);
  glBindBuffer(GL_ARRAY_BUFFER, r->inst_vbo);
  r->inst_gl_bytes = sizeof(float) * INST_FLOATS * 64;
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)r->inst_gl_bytes, NULL, GL_STREAM_DRAW);
  for (int a = 2; a < 2 + INST_ATTRIBS; a++) {
    glEnableVertexAttribArray((GLuint)a);
    glVertexAttribDivisor((GLuint)a, 1);
  }
  set_instance_pointers(0);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  r->unit = ms; /* kept: a model's mesh files are appended to it */

  glGetIntegerv(GL_MAX_SAMPLES, &r->max_samples);
  r->opt = (lw_render_options){TRUE, TRUE, FALSE, TRUE, TRUE, 0.1, FALSE};
  r->sel.kind = LW_PICK_NONE;
  r->sel.index = -1;
  r->up[1] = 1;
  r->weight = 9.81;
  r->diag = 2;
  r->glyph = 0.024;
  GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    g_set_error(error, LW_RENDER_ERROR, LW_RENDER_ERROR_FAILED, "OpenGL error 0x%04x while setting up", e);
    lw_renderer_free(r);
    return NULL;
  }
  return r;
}

static void delete_trace_buffers(lw_renderer *r);

static void free_model(lw_renderer *r)
{
  for (int b = 0; b < r->nbodies; b++) {
    g_free(r->bodies[b].name);
    g_free(r->bodies[b].geoms);
    g_free(r->bodies[b].mesh_id);
    g_free(r->bodies[b].mesh_r);
    g_free(r->bodies[b].points);
  }
  for (int j = 0; j < r->njoints; j++)
    g_free(r->joints[j].name);
  for (int k = 0; k < r->nforces; k++)
    g_free(r->forces[k].name);
  g_clear_pointer(&r->bodies, g_free);
  g_clear_pointer(&r->joints, g_free);
  g_clear_pointer(&r->forces, g_free);
  for (int k = 0; k < r->nbeams; k++)
    g_free(r->beam_names[k]);
  g_clear_pointer(&r->beam_names, g_free);
  r->nbodies = r->njoints = r->nforces = r->nbeams = 0;
  r->has_model = 0;
}

static void delete_ms(lw_renderer *r)
{
  if (r->ms_fbo) {
    glDeleteFramebuffers(1, &r->ms_fbo);
    glDeleteRenderbuffers(2, r->ms_rb);
    r->ms_fbo = 0;
  }
}

static void delete_bg(lw_renderer *r)
{
  if (r->bg_fbo) {
    glDeleteFramebuffers(1, &r->bg_fbo);
    glDeleteTextures(1, &r->bg_tex);
    r->bg_fbo = r->bg_tex = 0;
  }
}

void lw_renderer_free(lw_renderer *r)
{
  if (!r)
    return;
  lw_renderer_clear_traces(r);
  delete_trace_buffers(r);
  g_free(r->traces);
  free_model(r);
  delete_ms(r);
  delete_bg(r);
  if (r->pick_fbo) {
    glDeleteFramebuffers(1, &r->pick_fbo);
    glDeleteRenderbuffers(2, r->pick_rb);
  }
  if (r->grid_vao) {
    glDeleteVertexArrays(1, &r->grid_vao);
    glDeleteBuffers(1, &r->grid_vbo);
  }
  if (r->vao) {
    glDeleteVertexArrays(1, &r->vao);
    glDeleteBuffers(1, &r->vbo);
    glDeleteBuffers(1, &r->ibo);
  }
  if (r->inst_vbo)
    glDeleteBuffers(1, &r->inst_vbo);
  g_free(r->inst);
  for (int p = 0; p < P_N; p++)
    if (r->program[p])
      glDeleteProgram(r->program[p]);
  lw_mesh_set_clear(&r->unit);
  g_free(r->mesh_first);
  g_free(r->mesh_count);
  if (r->mesh_notes)
    g_string_free(r->mesh_notes, TRUE);
  g_free(r->gl_version);
  g_free(r);
}

const char *lw_renderer_gl_version(const lw_renderer *r)
{
  return r->gl_version;
}

/* ---- model ------------------------------------------------------------ */
static int body_index(const lw_desc *d, const char *name)
{
  for (int b = 0; name && b < d->nbodies; b++)
    if (d->bodies[b].name && strcmp(d->bodies[b].name, name) == 0)
      return b;
  return -1;
}

/* the unit meshes and the files' triangles (non-indexed: their indices
 * count up) into the GL buffers */
static void upload_meshes(lw_renderer *r, GPtrArray *files)
{
  size_t nv = (size_t)r->unit.nvertices, ni = (size_t)r->unit.nindices;
  for (guint f = 0; f < files->len; f++) {
    const lw_mesh_file *mf = g_ptr_array_index(files, f);
    nv += 3 * (size_t)mf->ntriangles;
    ni += 3 * (size_t)mf->ntriangles;
  }
  float *v = g_new(float, 6 * nv);
  unsigned *idx = g_new(unsigned, ni);
  memcpy(v, r->unit.vertices, sizeof(float) * 6 * (size_t)r->unit.nvertices);
  memcpy(idx, r->unit.indices, sizeof(unsigned) * (size_t)r->unit.nindices);
  size_t vo = (size_t)r->unit.nvertices, io = (size_t)r->unit.nindices;
  r->nmesh = LW_MESH_N + (int)files->len;
  r->mesh_first = g_renew(int, r->mesh_first, r->nmesh);
  r->mesh_count = g_renew(int, r->mesh_count, r->nmesh);
  for (guint f = 0; f < files->len; f++) {
    const lw_mesh_file *mf = g_ptr_array_index(files, f);
    size_t n = 3 * (size_t)mf->ntriangles;
    memcpy(v + 6 * vo, mf->vertices, sizeof(float) * 6 * n);
    r->mesh_first[LW_MESH_N + f] = (int)io;
    r->mesh_count[LW_MESH_N + f] = (int)n;
    for (size_t k = 0; k < n; k++)
      idx[io + k] = (unsigned)(vo + k);
    vo += n;
    io += n;
  }
  glBindVertexArray(r->vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 6 * nv), v, GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->ibo);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(sizeof(unsigned) * ni), idx, GL_STATIC_DRAW);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  g_free(v);
  g_free(idx);
}

/* read the model's mesh files (each file once), note those that cannot be,
 * and give each mesh geometry its mesh */
static void load_meshes(lw_renderer *r, const lw_desc *d)
{
  g_string_truncate(r->mesh_notes, 0);
  GPtrArray *files = g_ptr_array_new();
  g_autoptr(GHashTable) ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (int b = 0; b < d->nbodies; b++)
    for (int k = 0; k < d->bodies[b].ngeoms; k++) {
      const lw_geom_desc *g = &d->bodies[b].geoms[k];
      if (g->type != LW_GEOM_MESH || !g->mesh)
        continue;
      char *path = lw_mesh_file_resolve(g->mesh, d->source_dir, NULL);
      gpointer found;
      int id = -1;
      if (g_hash_table_lookup_extended(ids, path, NULL, &found)) {
        id = GPOINTER_TO_INT(found);
        g_free(path);
      } else {
        lw_mesh_file *mf = g_new0(lw_mesh_file, 1);
        g_autoptr(GError) error = NULL;
        if (lw_mesh_file_load(path, mf, &error)) {
          id = LW_MESH_N + (int)files->len;
          g_ptr_array_add(files, mf);
        } else {
          g_free(mf);
          g_string_append_printf(r->mesh_notes, "%s%s (drawn as a box)", r->mesh_notes->len ? "\n" : "",
                                 error->message);
        }
        g_hash_table_insert(ids, path, GINT_TO_POINTER(id));
      }
      rbody *rb = &r->bodies[b];
      rb->mesh_id[k] = id;
      if (id >= 0) {
        const lw_mesh_file *mf = g_ptr_array_index(files, id - LW_MESH_N);
        double rr = 0;
        for (int i = 0; i < 3; i++) {
          double sc = g->size[i] != 0 ? fabs(g->size[i]) : 1.0, e = sc * fmax(fabs(mf->lo[i]), fabs(mf->hi[i]));
          rr += e * e;
        }
        rb->mesh_r[k] = sqrt(rr);
      }
    }
  if (files->len || r->nmesh != LW_MESH_N)
    upload_meshes(r, files);
  for (guint f = 0; f < files->len; f++) {
    lw_mesh_file_clear(g_ptr_array_index(files, f));
    g_free(g_ptr_array_index(files, f));
  }
  g_ptr_array_unref(files);
}

const char *lw_renderer_mesh_notes(const lw_renderer *r)
{
  return r->mesh_notes && r->mesh_notes->len ? r->mesh_notes->str : NULL;
}

void lw_renderer_set_model(lw_renderer *r, const lw_desc *d)
{
  free_model(r);
  g_string_truncate(r->mesh_notes, 0);
  r->sel = (lw_pick){LW_PICK_NONE, -1};
  r->scale_valid = 0;
  r->planar = 0;
  memset(r->up, 0, sizeof r->up);
  r->up[1] = 1;
  r->weight = 9.81;
  if (!d)
    return;
  r->has_model = 1;
  r->planar = d->planar;
  double g = lw_norm3(d->gravity);
  if (!d->planar && g > 0)
    for (int i = 0; i < 3; i++)
      r->up[i] = -d->gravity[i] / g;
  double mass = 0;
  r->nbodies = d->nbodies;
  r->bodies = g_new0(rbody, MAX(d->nbodies, 1));
  for (int b = 0; b < d->nbodies; b++) {
    const lw_body_desc *bd = &d->bodies[b];
    rbody *rb = &r->bodies[b];
    rb->name = g_strdup(bd->name);
    rb->ngeoms = bd->ngeoms;
    rb->geoms = g_memdup2(bd->geoms, sizeof(lw_geom_desc) * (size_t)bd->ngeoms);
    rb->mesh_id = g_new(int, MAX(bd->ngeoms, 1));
    rb->mesh_r = g_new0(double, MAX(bd->ngeoms, 1));
    for (int k = 0; k < bd->ngeoms; k++) {
      rb->geoms[k].mesh = NULL;
      rb->mesh_id[k] = -1;
    }
    rb->npoints = bd->npoints;
    rb->points = g_new0(double, 3 * (size_t)MAX(bd->npoints, 1));
    for (int p = 0; p < bd->npoints; p++)
      memcpy(rb->points + 3 * p, bd->points[p].p, 3 * sizeof(double));
    memcpy(rb->color, body_palette[b % G_N_ELEMENTS(body_palette)], sizeof rb->color);
    mass += bd->mass;
  }
  r->weight = (d->nbodies > 0 && mass > 0 ? mass / d->nbodies : 1) * (g > 0 ? g : 9.81);
  load_meshes(r, d);
  r->njoints = d->njoints;
  r->joints = g_new0(rjoint, MAX(d->njoints, 1));
  for (int j = 0; j < d->njoints; j++) {
    const lw_joint_desc *jd = &d->joints[j];
    rjoint *rj = &r->joints[j];
    rj->name = g_strdup(jd->name);
    rj->type = jd->type;
    rj->body1 = body_index(d, jd->body[0]);
    /* planar joints carry their slide direction as an angle on body 1,
     * plus the angle of a frame named as the joint's place */
    double a = jd->angle[0];
    if (rj->body1 >= 0 && jd->place[0].ref) {
      const lw_body_desc *bd = &d->bodies[rj->body1];
      for (int f = 0; f < bd->nframes; f++)
        if (bd->frames[f].name && strcmp(bd->frames[f].name, jd->place[0].ref) == 0)
          a += bd->frames[f].angle;
    }
    rj->slide[0] = cos(a);
    rj->slide[1] = sin(a);
    for (int k = 0; k < d->ndrivers; k++)
      if (d->drivers[k].joint && !strcmp(d->drivers[k].joint, jd->name))
        rj->driven = 1;
  }
  r->nbeams = d->nbeams;
  r->beam_names = g_new0(char *, MAX(d->nbeams, 1));
  for (int k = 0; k < d->nbeams; k++)
    r->beam_names[k] = g_strdup(d->beams[k].name);
  r->nforces = d->nforces;
  r->forces = g_new0(rforce, MAX(d->nforces, 1));
  for (int k = 0; k < d->nforces; k++) {
    r->forces[k].name = g_strdup(d->forces[k].name);
    r->forces[k].type = d->forces[k].type;
    r->forces[k].damper = d->forces[k].type == LW_FORCE_SPRING_DAMPER && d->forces[k].damping > 0;
    r->forces[k].turns = 8;
  }
}

int lw_renderer_planar(const lw_renderer *r)
{
  return r->planar;
}

void lw_renderer_up(const lw_renderer *r, double up[3])
{
  memcpy(up, r->up, sizeof r->up);
}

lw_render_options lw_renderer_get_options(const lw_renderer *r)
{
  return r->opt;
}

void lw_renderer_set_options(lw_renderer *r, const lw_render_options *opt)
{
  r->opt = *opt;
}

void lw_renderer_set_selection(lw_renderer *r, lw_pick sel)
{
  r->sel = sel;
  if (sel.kind == LW_PICK_NONE)
    r->sel.index = -1;
}

const char *lw_renderer_element_name(const lw_renderer *r, lw_pick_kind kind, int index)
{
  switch (kind) {
  case LW_PICK_BODY:
    return index >= 0 && index < r->nbodies ? r->bodies[index].name : NULL;
  case LW_PICK_JOINT:
    return index >= 0 && index < r->njoints ? r->joints[index].name : NULL;
  case LW_PICK_FORCE:
    return index >= 0 && index < r->nforces ? r->forces[index].name : NULL;
  case LW_PICK_BEAM:
    return index >= 0 && index < r->nbeams ? r->beam_names[index] : NULL;
  default:
    return NULL;
  }
}

void lw_renderer_set_samples(lw_renderer *r, int samples)
{
  r->samples = samples > 1 ? samples : 0;
}

void lw_renderer_set_flip_y(lw_renderer *r, gboolean flip)
{
  r->flip_y = flip != 0;
}

void lw_renderer_reset_scale(lw_renderer *r)
{
  r->scale_valid = 0;
}

/* ---- traces ------------------------------------------------------------ */
void lw_renderer_set_trace(lw_renderer *r, int k, const double *xyz, int n)
{
  if (k < 0)
    return;
  if (k >= r->ntraces) {
    if (!xyz || n <= 0)
      return;
    r->traces = g_renew(rtrace, r->traces, k + 1);
    memset(r->traces + r->ntraces, 0, sizeof(rtrace) * (size_t)(k + 1 - r->ntraces));
    r->ntraces = k + 1;
  }
  rtrace *t = &r->traces[k];
  g_free(t->xyz);
  t->xyz = NULL;
  t->n = 0;
  if (xyz && n > 0) {
    t->xyz = g_new(float, 3 * (size_t)n);
    for (size_t i = 0; i < 3 * (size_t)n; i++)
      t->xyz[i] = (float)xyz[i];
    t->n = n;
  }
  t->dirty = 1;
}

/* Only CPU copies are dropped here (callable without a context); the GL
 * buffers are reused by later traces and deleted in lw_renderer_free, which
 * runs with the context current. */
void lw_renderer_clear_traces(lw_renderer *r)
{
  for (int k = 0; k < r->ntraces; k++) {
    g_clear_pointer(&r->traces[k].xyz, g_free);
    r->traces[k].n = 0;
    r->traces[k].dirty = 1;
  }
}

static void delete_trace_buffers(lw_renderer *r)
{
  for (int k = 0; k < r->ntraces; k++)
    if (r->traces[k].vao) {
      glDeleteVertexArrays(1, &r->traces[k].vao);
      glDeleteBuffers(1, &r->traces[k].vbo);
      r->traces[k].vao = r->traces[k].vbo = 0;
    }
}

static void upload_traces(lw_renderer *r)
{
  for (int k = 0; k < r->ntraces; k++) {
    rtrace *t = &r->traces[k];
    if (!t->dirty)
      continue;
    t->dirty = 0;
    if (t->n < 2)
      continue;
    if (!t->vao) {
      glGenVertexArrays(1, &t->vao);
      glGenBuffers(1, &t->vbo);
      glBindVertexArray(t->vao);
      glBindBuffer(GL_ARRAY_BUFFER, t->vbo);
      glEnableVertexAttribArray(0);
      glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), (void *)0);
      glVertexAttrib3f(1, 0, 0, 1);
      t->gl_cap = 0;
    } else {
      glBindBuffer(GL_ARRAY_BUFFER, t->vbo);
    }
    /* grow geometrically: a growing trace is re-sent but rarely reallocated */
    if (t->n > t->gl_cap) {
      t->gl_cap = MAX(t->n, t->gl_cap * 2);
      glBufferData(GL_ARRAY_BUFFER, sizeof(float) * 3 * (size_t)t->gl_cap, NULL, GL_DYNAMIC_DRAW);
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(float) * 3 * (size_t)t->n, t->xyz);
  }
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* ---- bounds and scale -------------------------------------------------- */
static void grow(double bmin[3], double bmax[3], const double p[3])
{
  for (int i = 0; i < 3; i++) {
    if (!isfinite(p[i]))
      return;
  }
  for (int i = 0; i < 3; i++) {
    bmin[i] = fmin(bmin[i], p[i]);
    bmax[i] = fmax(bmax[i], p[i]);
  }
}

/* a local box [lo, hi] of a body, transformed */
static void grow_box(double bmin[3], double bmax[3], const double m[16], const double lo[3], const double hi[3])
{
  for (int k = 0; k < 8; k++) {
    double p[3] = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]}, w[3];
    xform_point(m, p, w);
    grow(bmin, bmax, w);
  }
}

static void geom_local_box(const lw_geom_desc *g, double lo[3], double hi[3])
{
  double r;
  switch (g->type) {
  case LW_GEOM_BAR:
  case LW_GEOM_CYLINDER:
    r = g->type == LW_GEOM_BAR ? 0.5 * g->size[0] : g->size[0];
    for (int i = 0; i < 3; i++) {
      lo[i] = fmin(g->from[i], g->to[i]) - r;
      hi[i] = fmax(g->from[i], g->to[i]) + r;
    }
    break;
  case LW_GEOM_BOX:
    for (int i = 0; i < 3; i++) {
      lo[i] = g->center[i] - fabs(g->size[i]);
      hi[i] = g->center[i] + fabs(g->size[i]);
    }
    break;
  default:
    r = g->type == LW_GEOM_SPHERE ? g->size[0] : 0;
    for (int i = 0; i < 3; i++) {
      lo[i] = g->center[i] - r;
      hi[i] = g->center[i] + r;
    }
    break;
  }
}

gboolean lw_renderer_bounds(const lw_renderer *r, const lw_render_state *s, double bmin[3], double bmax[3])
{
  for (int i = 0; i < 3; i++) {
    bmin[i] = INFINITY;
    bmax[i] = -INFINITY;
  }
  if (r->has_model && s) {
    int nb = MIN(s->nbodies, r->nbodies);
    for (int b = 0; b < nb && s->body_pose; b++) {
      const rbody *rb = &r->bodies[b];
      double m[16];
      mat_pose(m, s->body_pose + 12 * (size_t)b);
      for (int k = 0; k < rb->ngeoms; k++) {
        double lo[3], hi[3];
        geom_local_box(&rb->geoms[k], lo, hi);
        if (rb->geoms[k].type == LW_GEOM_MESH)
          for (int i = 0; i < 3; i++) {
            lo[i] = rb->geoms[k].center[i] - rb->mesh_r[k];
            hi[i] = rb->geoms[k].center[i] + rb->mesh_r[k];
          }
        grow_box(bmin, bmax, m, lo, hi);
      }
      for (int p = 0; p < rb->npoints; p++) {
        double w[3];
        xform_point(m, rb->points + 3 * p, w);
        grow(bmin, bmax, w);
      }
      grow(bmin, bmax, s->body_pose + 12 * (size_t)b);
    }
    for (int j = 0; j < MIN(s->njoints, r->njoints) && s->joints; j++)
      grow(bmin, bmax, s->joints + 6 * (size_t)j);
    /* the marks along their first axis: a joint's end stop is in the picture */
    for (int k = 0; k < s->nmarks && s->marks; k++) {
      const double *mk = s->marks + LW_RENDER_MARK_DOUBLES * (size_t)k;
      double a[3], b[3];
      for (int i = 0; i < 3; i++) {
        a[i] = mk[i] + mk[3 + i];
        b[i] = mk[i] - mk[3 + i];
      }
      grow(bmin, bmax, a);
      grow(bmin, bmax, b);
    }
    for (int k = 0; k < s->nbeam_pts && s->beam_pts; k++)
      grow(bmin, bmax, s->beam_pts + 4 * (size_t)k);
    for (int k = 0; k < MIN(s->nforces, r->nforces) && s->forces; k++) {
      const double *f = s->forces + 6 * (size_t)k;
      grow(bmin, bmax, f);
      if (r->forces[k].type == LW_FORCE_SPRING_DAMPER)
        grow(bmin, bmax, f + 3);
    }
  }
  if (!(bmin[0] <= bmax[0])) {
    for (int i = 0; i < 3; i++) {
      bmin[i] = -1;
      bmax[i] = 1;
    }
    if (r->planar)
      bmin[2] = bmax[2] = 0;
    return FALSE;
  }
  return TRUE;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double lw_grid_step(const lw_camera *cam, double finest)
{
  if (!(finest > 0))
    finest = 0.1;
  double seen = 2 * cam->distance * tan(0.5 * cam->fov_y); /* the view's height at the target */
  double step = finest;
  for (int k = 0; k < 30 && step * LW_GRID_MAX_CELLS < seen; k++)
    step *= 10;
  return step;
}

/* the grid's axes (gu, gv in the plane, n its normal) and its height h */
static double grid_frame(const lw_renderer *r, double gu[3], double gv[3], double n[3])
{
  if (r->planar) {
    n[0] = n[1] = 0, n[2] = 1;
    gu[0] = 1, gu[1] = gu[2] = 0;
    gv[0] = 0, gv[1] = 1, gv[2] = 0;
    /* just behind the mechanism */
    return -2.5 * r->glyph;
  }
  /* the camera's horizontal basis: global x made horizontal */
  lw_camera c;
  lw_camera_init(&c);
  lw_camera_set_up(&c, r->up);
  c.yaw = c.pitch = 0;
  double back[3];
  lw_camera_axes(&c, gu, n, back);
  memcpy(n, r->up, 3 * sizeof(double));
  lw_cross3(gu, n, gv); /* completes (gu, gv, n) right-handed */
  double lo = INFINITY;
  for (int k = 0; k < 8; k++) {
    double p[3] = {(k & 1) ? r->bmax[0] : r->bmin[0], (k & 2) ? r->bmax[1] : r->bmin[1],
                   (k & 4) ? r->bmax[2] : r->bmin[2]};
    lo = fmin(lo, lw_dot3(p, n));
  }
  /* a floor under it */
  return lo - 0.01 * r->diag;
}

/* the part of the grid plane the view sees, in (u, v), whole major cells;
 * rays above the horizon count as reaching out to `far` */
static void visible_rect(const lw_renderer *r, const lw_camera *cam, int w, int h, const double gu[3],
                         const double gv[3], const double n[3], double hgt, double major, double far,
                         double rect[4])
{
  double eye[3];
  lw_camera_eye(cam, eye);
  rect[0] = rect[2] = INFINITY;
  rect[1] = rect[3] = -INFINITY;
  for (int k = 0; k < 9; k++) {
    double o[3], d[3], p[3];
    lw_camera_ray(cam, w, h, (k % 3) * 0.5 * w, (k / 3) * 0.5 * h, o, d);
    double dn = lw_dot3(d, n), t = dn != 0 ? (hgt - lw_dot3(o, n)) / dn : -1;
    if (!(t > 0) || t > far) {
      /* toward the horizon: as far as `far` along the ray, on the plane */
      t = far;
    }
    for (int i = 0; i < 3; i++)
      p[i] = o[i] + t * d[i];
    double u = lw_dot3(p, gu), v = lw_dot3(p, gv);
    rect[0] = fmin(rect[0], u), rect[1] = fmax(rect[1], u);
    rect[2] = fmin(rect[2], v), rect[3] = fmax(rect[3], v);
  }
  (void)r;
  rect[0] = floor(rect[0] / major) * major, rect[1] = ceil(rect[1] / major) * major;
  rect[2] = floor(rect[2] / major) * major, rect[3] = ceil(rect[3] / major) * major;
}

static void upload_grid(lw_renderer *r, const float *v, int nv, const int count[3])
{
  if (!r->grid_vao) {
    glGenVertexArrays(1, &r->grid_vao);
    glGenBuffers(1, &r->grid_vbo);
    glBindVertexArray(r->grid_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->grid_vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), (void *)0);
    glVertexAttrib3f(1, 0, 0, 1);
  } else {
    glBindVertexArray(r->grid_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->grid_vbo);
  }
  glBufferData(GL_ARRAY_BUFFER, sizeof(float) * 3 * (size_t)nv, v, GL_STATIC_DRAW);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  r->grid_first[0] = 0;
  for (int g = 0; g < 3; g++) {
    r->grid_count[g] = count[g];
    if (g > 0)
      r->grid_first[g] = r->grid_first[g - 1] + count[g - 1];
  }
}

/* The grid over what the camera sees, at the spacing lw_grid_step() gives;
 * built again only when the spacing or the covered rectangle changes. */
static void build_grid(lw_renderer *r, const lw_camera *cam, int w, int h)
{
  double n[3], gu[3], gv[3];
  double hgt = grid_frame(r, gu, gv, n);
  double step = lw_grid_step(cam, r->opt.grid_step), major = LW_GRID_MAJOR * step;
  /* spatial views: no further than where the cells shrink below a pixel */
  double far = cam->distance + 20 * major;
  double rect[4];
  visible_rect(r, cam, w, h, gu, gv, n, hgt, major, far, rect);
  /* at most 2000 lines a direction: beyond, the cells are coarser anyway */
  int nu = (int)lround((rect[1] - rect[0]) / step), nv_ = (int)lround((rect[3] - rect[2]) / step);
  if (nu > 2000 || nv_ > 2000) {
    double cu = 0.5 * (rect[0] + rect[1]), cv = 0.5 * (rect[2] + rect[3]);
    cu = round(cu / major) * major, cv = round(cv / major) * major;
    rect[0] = cu - 1000 * step, rect[1] = cu + 1000 * step;
    rect[2] = cv - 1000 * step, rect[3] = cv + 1000 * step;
    nu = nv_ = 2000;
  }
  double key[6] = {step, rect[0], rect[1], rect[2], rect[3], hgt};
  if (r->grid_built && !memcmp(key, r->grid_key, sizeof key))
    return;
  memcpy(r->grid_key, key, sizeof key);
  int maxv = 2 * (nu + 1) + 2 * (nv_ + 1) + 8;
  float *v = g_new(float, 3 * (size_t)maxv);
  int count[3] = {0, 0, 0}, nv = 0;
  /* three passes so that each group is contiguous: minor, major, axes */
  for (int pass = 0; pass < 3; pass++) {
    int start = nv;
    for (int dir = 0; dir < 2; dir++) {
      int nl = dir == 0 ? nu : nv_;
      double a0 = dir == 0 ? rect[0] : rect[2];
      for (int l = 0; l <= nl; l++) {
        double a = a0 + l * step;
        long cell = lround(a / step);
        int is_axis = cell == 0;
        int is_major = cell % LW_GRID_MAJOR == 0;
        int group = is_axis ? 2 : is_major ? 1 : 0;
        if (group != pass)
          continue;
        a = cell * step;
        /* dir 0: a line of constant u along v; dir 1: constant v along u */
        for (int e = 0; e < 2; e++) {
          double u = dir == 0 ? a : rect[e], wv = dir == 0 ? rect[2 + e] : a;
          for (int i = 0; i < 3; i++)
            v[3 * nv + i] = (float)(u * gu[i] + wv * gv[i] + hgt * n[i]);
          nv++;
        }
      }
    }
    count[pass] = nv - start;
  }
  upload_grid(r, v, nv, count);
  g_free(v);
  /* planar: no fading, the grid reaches the view's edges; spatial: it
   * fades out toward the horizon */
  double c[3];
  for (int i = 0; i < 3; i++)
    c[i] = cam->target[i];
  double ct = lw_dot3(c, n);
  for (int i = 0; i < 3; i++)
    r->grid_fade[i] = (float)(c[i] + (hgt - ct) * n[i]);
  r->grid_fade[3] = r->planar ? 0.0f : (float)(far - cam->distance + 2 * cam->distance);
  r->grid_built = 1;
}

/* Measure the model: glyph size from the display geometry's typical
 * thickness, spring turns from their lengths, and the grid. */
static void measure(lw_renderer *r, const lw_render_state *s)
{
  lw_renderer_bounds(r, s, r->bmin, r->bmax);
  double d[3] = {r->bmax[0] - r->bmin[0], r->bmax[1] - r->bmin[1], r->bmax[2] - r->bmin[2]};
  r->diag = fmax(lw_norm3(d), 1e-6);
  int nw = 0;
  for (int b = 0; b < r->nbodies; b++)
    nw += r->bodies[b].ngeoms;
  double *w = g_new(double, MAX(nw, 1));
  nw = 0;
  for (int b = 0; b < r->nbodies; b++)
    for (int k = 0; k < r->bodies[b].ngeoms; k++) {
      const lw_geom_desc *g = &r->bodies[b].geoms[k];
      if (g->type == LW_GEOM_BAR && g->size[0] > 0)
        w[nw++] = g->size[0];
      else if (g->type == LW_GEOM_CYLINDER && g->size[0] > 0)
        w[nw++] = 2 * g->size[0];
    }
  if (nw > 0) {
    qsort(w, (size_t)nw, sizeof(double), cmp_double);
    r->glyph = fmin(fmax(0.75 * w[nw / 2], 0.004 * r->diag), 0.02 * r->diag);
  } else {
    r->glyph = 0.012 * r->diag;
  }
  g_free(w);
  for (int k = 0; s && s->forces && k < MIN(r->nforces, s->nforces); k++)
    if (r->forces[k].type == LW_FORCE_SPRING_DAMPER) {
      const double *f = s->forces + 6 * (size_t)k;
      double v[3] = {f[3] - f[0], f[4] - f[1], f[5] - f[2]};
      r->forces[k].turns = fmin(fmax(round(lw_norm3(v) / (2.2 * r->glyph)), 4), LW_COIL_MAX_TURNS);
    }
  r->grid_built = 0; /* built again at the next drawing, at the new height */
  /* a model drawn without a state is measured again when one comes */
  r->scale_valid = !r->has_model || s != NULL;
}

/* ---- drawing ----------------------------------------------------------- */
static void set_mode(lw_renderer *r, int mode)
{
  if (r->cur_mode != mode) {
    glUniform1i(r->u[r->mp][U_MODE], mode);
    r->cur_mode = mode;
  }
}

static rinst *new_instance(lw_renderer *r, int mesh, const double model[16])
{
  if (r->ninst == r->cap_inst) {
    r->cap_inst = MAX(64, 2 * r->cap_inst);
    r->inst = g_renew(rinst, r->inst, r->cap_inst);
  }
  rinst *in = &r->inst[r->ninst];
  in->mesh = mesh;
  in->seq = r->ninst++;
  float *f = in->a;
  double mv[16];
  lw_mat4_mul(r->view, model, mv);
  for (int i = 0; i < 16; i++)
    f[i] = (float)mv[i];
  /* normal matrix: the cofactor matrix of the 3x3 part (the inverse
   * transpose up to a scale the shader normalises away), sign-corrected */
  double a[3][3];
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 3; i++)
      a[c][i] = mv[c * 4 + i];
  double cof[3][3];
  lw_cross3(a[1], a[2], cof[0]);
  lw_cross3(a[2], a[0], cof[1]);
  lw_cross3(a[0], a[1], cof[2]);
  double det = lw_dot3(a[0], cof[0]), sg = det < 0 ? -1 : 1;
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 3; i++)
      f[16 + c * 3 + i] = (float)(sg * cof[c][i]);
  /* back faces are culled; a mirroring matrix turns the winding over */
  in->front = (det < 0) != (r->flipped != 0) ? GL_CW : GL_CCW;
  memset(f + 25, 0, sizeof(float) * (INST_FLOATS - 25));
  return in;
}

static gboolean is_selected(const lw_renderer *r, lw_pick_kind kind, int index)
{
  return kind != LW_PICK_NONE && r->sel.kind == kind && r->sel.index == index;
}

/* colour (or pick id) and rim light of an instance */
static void set_element(lw_renderer *r, rinst *in, const float color[3], float alpha, lw_pick_kind kind, int index)
{
  static const float accent[3] = {0.208f, 0.518f, 0.894f}; /* GNOME blue #3584e4 */
  float *col = in->a + 25, *rim = in->a + 29;
  if (r->halo) {
    for (int i = 0; i < 3; i++)
      col[i] = accent[i] * accent[i];
    col[3] = 1.0f;
    return;
  }
  if (r->picking) {
    int id = kind == LW_PICK_NONE ? 0 : index;
    col[0] = (float)kind / 255.0f;
    col[1] = (float)(id & 255) / 255.0f;
    col[2] = (float)((id >> 8) & 255) / 255.0f;
    col[3] = 1.0f;
    return;
  }
  /* the shader lights in linear space with gamma 2: square the colour;
   * a selected element is lightened towards a pale accent (so that a blue
   * body changes too) and gets a rim light; the halo pass outlines it */
  gboolean hl = is_selected(r, kind, index);
  for (int i = 0; i < 3; i++) {
    float a = accent[i] * accent[i], pale = 0.5f * (1.0f + a);
    col[i] = color[i] * color[i];
    if (hl) {
      col[i] = 0.55f * col[i] + 0.45f * pale;
      rim[i] = 0.6f * a;
    }
  }
  col[3] = alpha;
}

static void draw_mesh(lw_renderer *r, lw_mesh_id mesh, const double model[16], const float color[3],
                      lw_pick_kind kind, int index)
{
  if (r->halo && !is_selected(r, kind, index))
    return;
  rinst *in = new_instance(r, mesh, model);
  set_element(r, in, color, r->alpha, kind, index);
}

static int cmp_instance(const void *pa, const void *pb)
{
  const rinst *a = pa, *b = pb;
  if (a->mesh != b->mesh)
    return a->mesh - b->mesh;
  if (a->front != b->front)
    return a->front - b->front;
  return a->seq - b->seq;
}

/* draw the recorded instances: one instanced draw per mesh kind and
 * winding; the program, VAO and pass state are those of the pass */
static void flush_instances(lw_renderer *r)
{
  int n = r->ninst;
  r->ninst = 0;
  if (n == 0)
    return;
  qsort(r->inst, (size_t)n, sizeof(rinst), cmp_instance);
  float *data = g_new(float, (size_t)n * INST_FLOATS);
  for (int i = 0; i < n; i++)
    memcpy(data + (size_t)i * INST_FLOATS, r->inst[i].a, sizeof(float) * INST_FLOATS);
  size_t bytes = sizeof(float) * INST_FLOATS * (size_t)n;
  glBindBuffer(GL_ARRAY_BUFFER, r->inst_vbo);
  /* a fresh store each pass: never waits for draws still reading the old */
  r->inst_gl_bytes = MAX(r->inst_gl_bytes, bytes);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)r->inst_gl_bytes, NULL, GL_STREAM_DRAW);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, data);
  g_free(data);
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && r->inst[j].mesh == r->inst[i].mesh && r->inst[j].front == r->inst[i].front)
      j++;
    int mesh = r->inst[i].mesh;
    if (r->halo) {
      float zc = mesh == LW_MESH_CYLINDER || mesh == LW_MESH_CONE ? 0.5f : 0.0f;
      glUniform4f(r->u[P_HALO][U_EXTRUDE], HALO_PX, 2.0f / r->vw, 2.0f / r->vh, zc);
    }
    set_mode(r, mesh == LW_MESH_COIL ? MODE_COIL : MODE_MESH);
    if (r->inst[i].front != r->front_face) {
      glFrontFace((GLenum)r->inst[i].front);
      r->front_face = r->inst[i].front;
    }
    set_instance_pointers((size_t)i);
    glDrawElementsInstanced(GL_TRIANGLES, r->mesh_count[mesh], GL_UNSIGNED_INT,
                            (void *)(sizeof(unsigned) * (size_t)r->mesh_first[mesh]), j - i);
    i = j;
  }
  set_instance_pointers(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

static void draw_segment(lw_renderer *r, lw_mesh_id mesh, const double a[3], const double b[3], double radius,
                         const float color[3], lw_pick_kind kind, int index)
{
  double m[16];
  if (mat_segment(m, a, b, radius))
    draw_mesh(r, mesh, m, color, kind, index);
}

static void draw_sphere(lw_renderer *r, const double c[3], double radius, const float color[3], lw_pick_kind kind,
                        int index)
{
  double m[16];
  mat_sphere(m, c, radius);
  draw_mesh(r, LW_MESH_SPHERE, m, color, kind, index);
}

/* a helix (or, with length 0 and no ramp, a circular arc) around the z axis
 * of frame m */
static void draw_coil(lw_renderer *r, const double m[16], double turns, double radius, double wire, double length,
                      int ramp, const float color[3], lw_pick_kind kind, int index)
{
  if (r->halo && !is_selected(r, kind, index))
    return;
  rinst *in = new_instance(r, LW_MESH_COIL, m);
  set_element(r, in, color, r->alpha, kind, index);
  in->a[32] = ramp ? 1.0f : 0.0f;
  in->a[33] = (float)turns;
  in->a[34] = (float)radius;
  in->a[35] = (float)wire;
  in->a[36] = (float)length;
}

static void draw_arrow(lw_renderer *r, const double from[3], const double dir[3], double len, double radius,
                       const float color[3], lw_pick_kind kind, int index)
{
  double u[3] = {dir[0], dir[1], dir[2]};
  if (!(lw_normalize3(u) > 0) || !(len > 0))
    return;
  double head = fmin(0.4 * len, 4.5 * radius), mid[3], tip[3];
  for (int i = 0; i < 3; i++) {
    mid[i] = from[i] + (len - head) * u[i];
    tip[i] = from[i] + len * u[i];
  }
  draw_segment(r, LW_MESH_CYLINDER, from, mid, radius, color, kind, index);
  draw_segment(r, LW_MESH_CONE, mid, tip, 2.4 * radius, color, kind, index);
}

static void draw_body(lw_renderer *r, int b, const double *pose)
{
  const rbody *rb = &r->bodies[b];
  double B[16], m[16];
  mat_pose(B, pose);
  /* planar bodies overlap at their joints in one plane: stagger them a
   * little in z so that the depth test has a winner */
  if (r->planar)
    B[14] += (b % 8) * 0.06 * r->glyph;
  for (int k = 0; k < rb->ngeoms; k++) {
    const lw_geom_desc *g = &rb->geoms[k];
    float col[3] = {(float)g->color[0], (float)g->color[1], (float)g->color[2]};
    double L[16];
    switch (g->type) {
    case LW_GEOM_BAR: {
      /* a link: a flat box with round ends; thickness along the body's z */
      double ex[3] = {g->to[0] - g->from[0], g->to[1] - g->from[1], g->to[2] - g->from[2]};
      double len = lw_normalize3(ex), w = g->size[0] > 0 ? g->size[0] : r->glyph, th = 0.5 * w;
      double ez[3] = {0, 0, 1}, ey[3], c[3];
      if (len <= 0)
        break;
      double d = lw_dot3(ez, ex);
      for (int i = 0; i < 3; i++)
        ez[i] -= d * ex[i];
      if (lw_normalize3(ez) < 1e-6)
        perp_basis(ex, ey, ez);
      lw_cross3(ez, ex, ey);
      for (int i = 0; i < 3; i++)
        c[i] = 0.5 * (g->from[i] + g->to[i]);
      mat_frame(L, c, ex, ey, ez, 0.5 * len, 0.5 * w, 0.5 * th);
      lw_mat4_mul(B, L, m);
      draw_mesh(r, LW_MESH_CUBE, m, col, LW_PICK_BODY, b);
      for (int e = 0; e < 2; e++) {
        const double *p = e ? g->to : g->from;
        double o[3];
        for (int i = 0; i < 3; i++)
          o[i] = p[i] - 0.5 * th * ez[i];
        mat_frame(L, o, ex, ey, ez, 0.5 * w, 0.5 * w, th);
        lw_mat4_mul(B, L, m);
        draw_mesh(r, LW_MESH_CYLINDER, m, col, LW_PICK_BODY, b);
      }
      break;
    }
    case LW_GEOM_BOX: {
      static const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
      mat_frame(L, g->center, x, y, z, fabs(g->size[0]), fabs(g->size[1]), fabs(g->size[2]));
      lw_mat4_mul(B, L, m);
      draw_mesh(r, LW_MESH_CUBE, m, col, LW_PICK_BODY, b);
      break;
    }
    case LW_GEOM_CYLINDER:
      if (mat_segment(L, g->from, g->to, g->size[0] > 0 ? g->size[0] : r->glyph)) {
        lw_mat4_mul(B, L, m);
        draw_mesh(r, LW_MESH_CYLINDER, m, col, LW_PICK_BODY, b);
      }
      break;
    case LW_GEOM_SPHERE:
      mat_sphere(L, g->center, g->size[0] > 0 ? g->size[0] : r->glyph);
      lw_mat4_mul(B, L, m);
      draw_mesh(r, LW_MESH_SPHERE, m, col, LW_PICK_BODY, b);
      break;
    case LW_GEOM_MESH: {
      /* the file's mesh turned, scaled and placed; a small box stands in
       * for one that could not be read */
      double ex[3], ey[3], ez[3], sc[3];
      quat_axes(g->quat, ex, ey, ez);
      for (int i = 0; i < 3; i++)
        sc[i] = g->size[i] != 0 ? g->size[i] : 1.0;
      if (rb->mesh_id[k] >= 0) {
        mat_frame(L, g->center, ex, ey, ez, sc[0], sc[1], sc[2]);
        lw_mat4_mul(B, L, m);
        draw_mesh(r, rb->mesh_id[k], m, col, LW_PICK_BODY, b);
      } else {
        mat_frame(L, g->center, ex, ey, ez, 2 * r->glyph, 2 * r->glyph, 2 * r->glyph);
        lw_mat4_mul(B, L, m);
        draw_mesh(r, LW_MESH_CUBE, m, col, LW_PICK_BODY, b);
      }
      break;
    }
    default:
      break;
    }
  }
  if (rb->ngeoms > 0)
    return;
  /* no display geometry: balls at the points joined by thin rods, or a
   * ball at the origin */
  double prev[3], w[3];
  for (int p = 0; p < rb->npoints; p++) {
    xform_point(B, rb->points + 3 * p, w);
    draw_sphere(r, w, 0.8 * r->glyph, rb->color, LW_PICK_BODY, b);
    if (p > 0)
      draw_segment(r, LW_MESH_CYLINDER, prev, w, 0.35 * r->glyph, rb->color, LW_PICK_BODY, b);
    memcpy(prev, w, sizeof w);
  }
  if (rb->npoints == 0) {
    double o[3] = {B[12], B[13], B[14]};
    draw_sphere(r, o, r->glyph, rb->color, LW_PICK_BODY, b);
  }
}

/* an arc of `sweep` turns of radius R about the unit axis ez through o
 * (right-hand sense), with a cone at its end; planar models keep it in the
 * x-y plane, counter-clockwise for +z (ez becomes +-z) */
static void draw_turn(lw_renderer *r, const double o[3], double ez[3], double R, double wire, double sweep,
                      const float color[3], lw_pick_kind kind, int index)
{
  double ex[3], ey[3], m[16];
  if (r->planar) {
    double x[3] = {1, 0, 0}, y[3] = {0, ez[2] < 0 ? -1 : 1, 0};
    memcpy(ex, x, sizeof ex);
    memcpy(ey, y, sizeof ey);
    ez[0] = ez[1] = 0;
    ez[2] = ez[2] < 0 ? -1 : 1;
  } else {
    perp_basis(ez, ex, ey);
  }
  mat_frame(m, o, ex, ey, ez, 1, 1, 1);
  draw_coil(r, m, sweep, R, wire, 0, 0, color, kind, index);
  double th = 2 * LW_PI * sweep, c[3], t[3], tip[3];
  for (int i = 0; i < 3; i++) {
    c[i] = o[i] + R * (cos(th) * ex[i] + sin(th) * ey[i]);
    t[i] = -sin(th) * ex[i] + cos(th) * ey[i];
    tip[i] = c[i] + 3.2 * wire * t[i];
  }
  draw_segment(r, LW_MESH_CONE, c, tip, 2.4 * wire, color, kind, index);
}

/* a motor on a turning joint: a drum behind the joint on its axis and an
 * arrow turning about it */
static void draw_motor(lw_renderer *r, int j, const double o[3], const double a[3])
{
  double g = r->glyph, p0[3], p1[3], ez[3] = {a[0], a[1], a[2]};
  for (int i = 0; i < 3; i++) {
    p0[i] = o[i] - 1.2 * g * a[i];
    p1[i] = o[i] - 3.0 * g * a[i];
  }
  draw_segment(r, LW_MESH_CYLINDER, p1, p0, 1.7 * g, motor_color, LW_PICK_JOINT, j);
  draw_turn(r, o, ez, 2.6 * g, 0.25 * g, 0.7, motor_color, LW_PICK_JOINT, j);
}

static void draw_joint(lw_renderer *r, int j, const double *jg, const lw_render_state *s)
{
  const rjoint *rj = &r->joints[j];
  const float *jc = s->joint_sticking && s->joint_sticking[j] != 0 ? sticking_color : joint_color;
  double g = r->glyph, o[3] = {jg[0], jg[1], jg[2]}, a[3] = {jg[3], jg[4], jg[5]}, p0[3], p1[3], m[16];
  if (lw_normalize3(a) <= 0)
    a[2] = 1;
  double ex[3], ey[3];
  perp_basis(a, ex, ey);
  switch (rj->type) {
  case LW_JOINT_REVOLUTE:
    for (int i = 0; i < 3; i++) {
      p0[i] = o[i] - 1.3 * g * a[i];
      p1[i] = o[i] + 1.3 * g * a[i];
    }
    draw_segment(r, LW_MESH_CYLINDER, p0, p1, g, jc, LW_PICK_JOINT, j);
    if (rj->driven)
      draw_motor(r, j, o, a);
    break;
  case LW_JOINT_PRISMATIC: {
    double sdir[3] = {a[0], a[1], a[2]};
    if (r->planar) {
      double B[16];
      if (rj->body1 >= 0 && rj->body1 < s->nbodies && s->body_pose) {
        mat_pose(B, s->body_pose + 12 * (size_t)rj->body1);
        xform_dir(B, rj->slide, sdir);
      } else {
        memcpy(sdir, rj->slide, sizeof sdir);
      }
      lw_normalize3(sdir);
    }
    double sy[3], sz[3];
    perp_basis(sdir, sy, sz);
    /* a rail along the slide direction and a block on it */
    mat_frame(m, o, sdir, sy, sz, 5 * g, 0.3 * g, 0.3 * g);
    draw_mesh(r, LW_MESH_CUBE, m, jc, LW_PICK_JOINT, j);
    mat_frame(m, o, sdir, sy, sz, 1.4 * g, 0.75 * g, 0.75 * g);
    draw_mesh(r, LW_MESH_CUBE, m, jc, LW_PICK_JOINT, j);
    if (rj->driven) { /* a motor: the block pushed along the rail */
      mat_frame(m, o, sdir, sy, sz, 0.9 * g, 0.95 * g, 0.95 * g);
      draw_mesh(r, LW_MESH_CUBE, m, motor_color, LW_PICK_JOINT, j);
      draw_arrow(r, o, sdir, 4.5 * g, 0.3 * g, motor_color, LW_PICK_JOINT, j);
    }
    break;
  }
  case LW_JOINT_SPHERICAL:
    draw_sphere(r, o, 1.1 * g, jc, LW_PICK_JOINT, j);
    break;
  case LW_JOINT_CYLINDRICAL:
    for (int i = 0; i < 3; i++) {
      p0[i] = o[i] - 4 * g * a[i];
      p1[i] = o[i] + 4 * g * a[i];
    }
    draw_segment(r, LW_MESH_CYLINDER, p0, p1, 0.25 * g, jc, LW_PICK_JOINT, j);
    for (int i = 0; i < 3; i++) {
      p0[i] = o[i] - 1.2 * g * a[i];
      p1[i] = o[i] + 1.2 * g * a[i];
    }
    draw_segment(r, LW_MESH_CYLINDER, p0, p1, 0.8 * g, jc, LW_PICK_JOINT, j);
    if (rj->driven)
      draw_motor(r, j, o, a);
    break;
  case LW_JOINT_UNIVERSAL:
    /* a cross: the axis and one perpendicular */
    for (int k = 0; k < 2; k++) {
      const double *d = k ? ex : a;
      for (int i = 0; i < 3; i++) {
        p0[i] = o[i] - 1.5 * g * d[i];
        p1[i] = o[i] + 1.5 * g * d[i];
      }
      draw_segment(r, LW_MESH_CYLINDER, p0, p1, 0.4 * g, jc, LW_PICK_JOINT, j);
    }
    draw_sphere(r, o, 0.6 * g, jc, LW_PICK_JOINT, j);
    break;
  case LW_JOINT_PLANAR:
    for (int i = 0; i < 3; i++) {
      p0[i] = o[i] - 0.15 * g * a[i];
      p1[i] = o[i] + 0.15 * g * a[i];
    }
    draw_segment(r, LW_MESH_CYLINDER, p0, p1, 1.8 * g, jc, LW_PICK_JOINT, j);
    break;
  case LW_JOINT_FIXED:
  default:
    mat_frame(m, o, ex, ey, a, 0.7 * g, 0.7 * g, 0.7 * g);
    draw_mesh(r, LW_MESH_CUBE, m, jc, LW_PICK_JOINT, j);
    break;
  }
}

/* saturating length: |v| = ref gives half of the longest arrow */
static double arrow_length(double mag, double ref, double longest)
{
  return longest * mag / (mag + (ref > 0 ? ref : 1));
}

static void draw_force(lw_renderer *r, int k, const double *f)
{
  const rforce *rf = &r->forces[k];
  double g = r->glyph, m[16];
  const double *a = f, *v = f + 3;
  switch (rf->type) {
  case LW_FORCE_SPRING_DAMPER: {
    double ez[3] = {v[0] - a[0], v[1] - a[1], v[2] - a[2]}, ex[3], ey[3];
    double len = lw_normalize3(ez);
    if (!(len > 1e-12))
      break;
    perp_basis(ez, ex, ey);
    mat_frame(m, a, ex, ey, ez, 1, 1, 1);
    double R = 1.5 * g;
    draw_coil(r, m, rf->turns, R, 0.16 * R, len, 1, spring_color, LW_PICK_FORCE, k);
    if (rf->damper) {
      double p0[3], p1[3], p2[3], p3[3];
      for (int i = 0; i < 3; i++) {
        p0[i] = a[i] + 0.12 * len * ez[i];
        p1[i] = a[i] + 0.58 * len * ez[i];
        p2[i] = a[i] + 0.45 * len * ez[i];
        p3[i] = a[i] + 0.88 * len * ez[i];
      }
      draw_segment(r, LW_MESH_CYLINDER, p0, p1, 0.5 * R, damper_color, LW_PICK_FORCE, k);
      draw_segment(r, LW_MESH_CYLINDER, p2, p3, 0.18 * R, damper_color, LW_PICK_FORCE, k);
    }
    break;
  }
  case LW_FORCE_JOINT_SPRING_DAMPER: {
    double ez[3] = {v[0], v[1], v[2]}, ex[3], ey[3], o[3];
    if (lw_normalize3(ez) <= 0)
      ez[2] = 1;
    perp_basis(ez, ex, ey);
    for (int i = 0; i < 3; i++)
      o[i] = a[i] - 1.6 * g * ez[i];
    mat_frame(m, o, ex, ey, ez, 1, 1, 1);
    draw_coil(r, m, 3, 1.7 * g, 0.2 * g, 3.2 * g, 1, spring_color, LW_PICK_FORCE, k);
    break;
  }
  case LW_FORCE_PID:
  case LW_FORCE_STATE_FEEDBACK: {
    /* a motor: a drum on the actuated joint's axis, behind the joint, with
     * a thin shaft to it */
    double ez[3] = {v[0], v[1], v[2]}, p0[3], p1[3], p2[3];
    if (lw_normalize3(ez) <= 0)
      ez[2] = 1;
    for (int i = 0; i < 3; i++) {
      p0[i] = a[i] - 1.2 * g * ez[i];
      p1[i] = a[i] - 3.4 * g * ez[i];
      p2[i] = a[i];
    }
    draw_segment(r, LW_MESH_CYLINDER, p1, p0, 1.5 * g, motor_color, LW_PICK_FORCE, k);
    draw_segment(r, LW_MESH_CYLINDER, p0, p2, 0.35 * g, damper_color, LW_PICK_FORCE, k);
    break;
  }
  case LW_FORCE_FORCE: {
    double mag = lw_norm3(v);
    if (mag > 0)
      draw_arrow(r, a, v, arrow_length(mag, r->weight, 0.3 * r->diag), 0.3 * g, force_color, LW_PICK_FORCE, k);
    break;
  }
  case LW_FORCE_TORQUE: {
    /* a 3/4 arc around the torque axis (right-hand sense), its sweep
     * growing with the magnitude, with a cone at its end */
    double ez[3] = {v[0], v[1], v[2]};
    double mag = lw_normalize3(ez);
    if (!(mag > 0))
      break;
    double R = 3.5 * g, wire = 0.28 * g;
    double sweep = 0.15 + 0.7 * arrow_length(mag, r->weight * 0.25 * r->diag, 1.0);
    draw_turn(r, a, ez, R, wire, sweep, torque_color, LW_PICK_FORCE, k);
    if (!r->planar) /* the axis itself, thin */
      draw_arrow(r, a, ez, 2 * R, 0.5 * wire, torque_color, LW_PICK_FORCE, k);
    break;
  }
  default:
    break;
  }
}

static void draw_triad(lw_renderer *r, const double *pose, double len, lw_pick_kind kind, int index)
{
  double o[3] = {pose[0], pose[1], pose[2]};
  for (int c = 0; c < (r->planar ? 2 : 3); c++) {
    double d[3] = {pose[3 + c], pose[6 + c], pose[9 + c]};
    draw_arrow(r, o, d, len, 0.12 * r->glyph, axis_colors[c], kind, index);
  }
}

/* a mark fixed in space: a box of centre c and half-axis vectors u, v, w */
static void draw_mark(lw_renderer *r, const double *mk)
{
  double ex[3] = {mk[3], mk[4], mk[5]}, ey[3] = {mk[6], mk[7], mk[8]}, ez[3] = {mk[9], mk[10], mk[11]}, m[16];
  double sx = lw_normalize3(ex), sy = lw_normalize3(ey), sz = lw_normalize3(ez);
  if (!(sx > 0) || !(sy > 0) || !(sz > 0))
    return;
  mat_frame(m, mk, ex, ey, ez, sx, sy, sz);
  draw_mesh(r, LW_MESH_CUBE, m, mark_color, LW_PICK_NONE, -1);
}

/* everything that can be picked; shared by the colour and the id passes */
void lw_stress_color(double u, double rgb[3])
{
  /* blue, cyan, green, yellow, red at u = 0, 1/4, 1/2, 3/4, 1 */
  static const double stops[5][3] = {{0.10, 0.25, 0.85}, {0.10, 0.75, 0.85}, {0.20, 0.75, 0.25},
                                     {0.95, 0.85, 0.10}, {0.85, 0.10, 0.10}};
  u = isfinite(u) ? fmin(fmax(u, 0.0), 1.0) : 0.0;
  int i = (int)fmin(floor(4.0 * u), 3.0);
  double f = 4.0 * u - i;
  for (int c = 0; c < 3; c++)
    rgb[c] = (1.0 - f) * stops[i][c] + f * stops[i + 1][c];
}

/* the colour of beam point k: its own in s->beam_rgb, else the beams' */
static void beam_point_color(const lw_render_state *s, int k, float col[3])
{
  for (int c = 0; c < 3; c++)
    col[c] = s->beam_rgb ? (float)s->beam_rgb[3 * (size_t)k + c] : beam_color[c];
}

/* the beams: a tube along their centre lines, a short cylinder from point
 * to point with a sphere at each, so that the bends show smooth; a segment
 * takes the mean of its two points' colours, so that a colouring by point
 * varies along the tube at the points' spacing */
static void draw_beams(lw_renderer *r, const lw_render_state *s)
{
  int beam = -1;
  for (int k = 0; s->beam_pts && k < s->nbeam_pts; k++) {
    const double *p = s->beam_pts + 4 * (size_t)k;
    double rad = fabs(p[3]);
    beam += p[3] < 0 || k == 0;
    float col[3], prev[3];
    beam_point_color(s, k, col);
    draw_sphere(r, p, rad, col, LW_PICK_BEAM, beam);
    if (k > 0 && p[3] > 0) {
      beam_point_color(s, k - 1, prev);
      for (int c = 0; c < 3; c++)
        prev[c] = 0.5f * (prev[c] + col[c]);
      draw_segment(r, LW_MESH_CYLINDER, p - 4, p, rad, prev, LW_PICK_BEAM, beam);
    }
  }
}

static void draw_solids(lw_renderer *r, const lw_render_state *s)
{
  if (!r->has_model || !s)
    return;
  int nb = s->body_pose ? MIN(s->nbodies, r->nbodies) : 0;
  for (int b = 0; b < nb; b++)
    draw_body(r, b, s->body_pose + 12 * (size_t)b);
  if (r->opt.show_joints && s->joints)
    for (int j = 0; j < MIN(s->njoints, r->njoints); j++)
      draw_joint(r, j, s->joints + 6 * (size_t)j, s);
  if (r->opt.show_forces && s->forces)
    for (int k = 0; k < MIN(s->nforces, r->nforces); k++)
      draw_force(r, k, s->forces + 6 * (size_t)k);
  for (int k = 0; s->marks && k < s->nmarks; k++)
    draw_mark(r, s->marks + LW_RENDER_MARK_DOUBLES * (size_t)k);
  draw_beams(r, s);
  if (r->opt.show_frames) {
    static const double ground[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    double len = 5 * r->glyph;
    for (int b = 0; b < nb; b++)
      draw_triad(r, s->body_pose + 12 * (size_t)b, len, LW_PICK_BODY, b);
    draw_triad(r, ground, 1.5 * len, LW_PICK_NONE, -1);
  }
  flush_instances(r);
}

static void begin_pass(lw_renderer *r, const lw_camera *cam, int w, int h, const double *pick_window, int program)
{
  r->mp = program;
  r->vw = w, r->vh = h;
  double proj[16];
  lw_camera_view_matrix(cam, r->view);
  lw_camera_proj_matrix(cam, (double)w / (h > 0 ? h : 1), proj);
  if (pick_window)
    lw_mat4_mul(pick_window, proj, proj);
  /* upside down: y negated in clip space, which turns the winding over */
  r->flipped = r->flip_y && !pick_window;
  if (r->flipped)
    for (int i = 1; i < 16; i += 4)
      proj[i] = -proj[i];
  for (int i = 0; i < 16; i++)
    r->projf[i] = (float)proj[i];
  glUseProgram(r->program[program]);
  glUniformMatrix4fv(r->u[program][U_PROJ], 1, GL_FALSE, r->projf);
  glUniform1i(r->u[program][U_PICKING], r->picking);
  r->alpha = 1.0f;
  r->cur_mode = -1;
  set_mode(r, MODE_MESH);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  r->front_face = r->flipped ? GL_CW : GL_CCW;
  glFrontFace((GLenum)r->front_face);
  glBindVertexArray(r->vao);
}

static void ensure_ms(lw_renderer *r, int w, int h, int samples)
{
  if (r->ms_fbo && r->ms_w == w && r->ms_h == h && r->ms_samples == samples)
    return;
  delete_ms(r);
  glGenFramebuffers(1, &r->ms_fbo);
  glGenRenderbuffers(2, r->ms_rb);
  glBindRenderbuffer(GL_RENDERBUFFER, r->ms_rb[0]);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, w, h);
  glBindRenderbuffer(GL_RENDERBUFFER, r->ms_rb[1]);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, w, h);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, r->ms_fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->ms_rb[0]);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, r->ms_rb[1]);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    g_warning("lw-render: multisample framebuffer incomplete; drawing without anti-aliasing");
    delete_ms(r);
    r->samples = 0;
  }
  r->ms_w = w, r->ms_h = h, r->ms_samples = samples;
}

/* the background, a soft vertical gradient, as a quad over the viewport */
static void draw_background_quad(lw_renderer *r)
{
  glUseProgram(r->program[P_BACKGROUND]);
  static const float light[2][3] = {{0.925f, 0.937f, 0.953f}, {0.788f, 0.812f, 0.847f}};
  /* the dark style's view: Adwaita's dark window colour (#242424) at the top */
  static const float dark[2][3] = {{0.188f, 0.192f, 0.204f}, {0.110f, 0.114f, 0.125f}};
  const float *bg_top = r->opt.dark ? dark[0] : light[0], *bg_bottom = r->opt.dark ? dark[1] : light[1];
  glUniform3fv(r->u[P_BACKGROUND][U_BG_TOP], 1, r->flip_y ? bg_bottom : bg_top);
  glUniform3fv(r->u[P_BACKGROUND][U_BG_BOTTOM], 1, r->flip_y ? bg_top : bg_bottom);
  glBindVertexArray(r->vao);
  glDrawElements(GL_TRIANGLES, r->mesh_count[LW_MESH_SCREEN], GL_UNSIGNED_INT,
                 (void *)(sizeof(unsigned) * (size_t)r->mesh_first[LW_MESH_SCREEN]));
}

/* On a software rasterizer a quad shaded over every pixel costs about as
 * much as the whole scene on it (measured with llvmpipe: 3.7 of 8 ms of
 * its threads a frame).  With copy (a single-sampled target) the quad is
 * drawn once into a texture of the viewport's size and copied into each
 * frame: a blit between framebuffers of one format and size is a memory
 * copy.  The pixels are those of the quad.  A multisampled target cannot
 * be blitted into: there the quad is drawn. */
static void draw_background(lw_renderer *r, int w, int h, int copy)
{
  if (!copy) {
    draw_background_quad(r);
    return;
  }
  GLint target = 0, read_target = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_target);
  if (!r->bg_fbo || r->bg_w != w || r->bg_h != h || r->bg_flip != r->flip_y || r->bg_dark != (r->opt.dark != FALSE)) {
    delete_bg(r);
    glGenTextures(1, &r->bg_tex);
    glBindTexture(GL_TEXTURE_2D, r->bg_tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    /* stored as the view's read-back framebuffer stores its colour
     * (lw-view3d.c), so that the copy there is one of memory */
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, epoxy_is_desktop_gl() ? GL_BGRA : GL_RGBA, GL_UNSIGNED_BYTE,
                 NULL);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &r->bg_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, r->bg_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->bg_tex, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      delete_bg(r);
      glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)target);
      glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_target);
      draw_background_quad(r);
      return;
    }
    draw_background_quad(r);
    r->bg_w = w, r->bg_h = h, r->bg_flip = r->flip_y, r->bg_dark = r->opt.dark != FALSE;
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)target);
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, r->bg_fbo);
  glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_target);
}

void lw_renderer_draw(lw_renderer *r, const lw_camera *cam, int w, int h, const lw_render_state *s)
{
  if (w <= 0 || h <= 0)
    return;
  if (!r->scale_valid)
    measure(r, s);
  upload_traces(r);

  GLint target = 0, read_target = 0;
  int samples = MIN(r->samples, r->max_samples);
  if (samples > 1) {
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_target);
    ensure_ms(r, w, h, samples);
    if (r->ms_fbo)
      glBindFramebuffer(GL_FRAMEBUFFER, r->ms_fbo);
    else
      glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)target);
  }

  glViewport(0, 0, w, h);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glDepthMask(GL_TRUE);
  glClearDepthf(1.0f);
  glClear(GL_DEPTH_BUFFER_BIT);

  glDisable(GL_DEPTH_TEST);
  draw_background(r, w, h, samples <= 1);
  r->picking = 0;
  /* selection halo: the selected element pushed out by 3 pixels, drawn
   * first without depth so that the element itself covers all but a rim */
  if (r->sel.kind != LW_PICK_NONE && r->has_model && s) {
    r->halo = 1;
    begin_pass(r, cam, w, h, NULL, P_HALO);
    draw_solids(r, s);
    r->halo = 0;
  }
  begin_pass(r, cam, w, h, NULL, P_MESH);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  draw_solids(r, s);
  /* joints hidden inside or behind bodies show through faintly */
  if (r->has_model && s && s->joints && r->opt.show_joints) {
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    glDepthMask(GL_FALSE);
    glDepthFunc(GL_GREATER);
    r->alpha = 0.3f;
    for (int j = 0; j < MIN(s->njoints, r->njoints); j++)
      draw_joint(r, j, s->joints + 6 * (size_t)j, s);
    flush_instances(r);
    r->alpha = 1.0f;
    glDepthFunc(GL_LESS);
  }

  /* lines over the solids: depth-tested, not written, blended; the
   * destination alpha stays 1 because GtkGLArea composites with it */
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
  glDepthMask(GL_FALSE);
  glDisable(GL_CULL_FACE);
  glFrontFace(GL_CCW);
  float viewf[16];
  for (int i = 0; i < 16; i++)
    viewf[i] = (float)r->view[i];
  glUseProgram(r->program[P_LINE]);
  glUniformMatrix4fv(r->u[P_LINE][U_MV], 1, GL_FALSE, viewf);
  glUniformMatrix4fv(r->u[P_LINE][U_PROJ], 1, GL_FALSE, r->projf);
  glUniform4f(r->u[P_LINE][U_FADE], 0, 0, 0, 0);
  if (r->opt.show_grid)
    build_grid(r, cam, w, h);
  if (r->opt.show_grid && r->grid_built) {
    static const float light_rgba[3][4] = {{0.42f, 0.45f, 0.50f, 0.22f}, {0.38f, 0.41f, 0.46f, 0.45f},
                                           {0.30f, 0.33f, 0.38f, 0.70f}};
    static const float dark_rgba[3][4] = {{0.62f, 0.64f, 0.68f, 0.16f}, {0.66f, 0.68f, 0.72f, 0.30f},
                                          {0.72f, 0.74f, 0.78f, 0.50f}};
    const float(*grid_rgba)[4] = r->opt.dark ? dark_rgba : light_rgba;
    glUniform4fv(r->u[P_LINE][U_FADE], 1, r->grid_fade);
    glBindVertexArray(r->grid_vao);
    /* minor lines a few pixels apart are drawn fainter: they are there
     * (the snapping step) without greying the picture */
    double cell_px = r->grid_key[0] / (2 * cam->distance * tan(0.5 * cam->fov_y)) * h;
    float minor_fade = (float)fmin(fmax((cell_px - 4) / 12, 0.25), 1.0);
    for (int gi = 0; gi < 3; gi++)
      if (r->grid_count[gi] > 0) {
        float rgba[4] = {grid_rgba[gi][0], grid_rgba[gi][1], grid_rgba[gi][2],
                         grid_rgba[gi][3] * (gi == 0 ? minor_fade : 1.0f)};
        glUniform4fv(r->u[P_LINE][U_COLOR], 1, rgba);
        glDrawArrays(GL_LINES, r->grid_first[gi], r->grid_count[gi]);
      }
    glUniform4f(r->u[P_LINE][U_FADE], 0, 0, 0, 0);
  }
  if (r->opt.show_traces)
    for (int k = 0; k < r->ntraces; k++) {
      const rtrace *t = &r->traces[k];
      if (t->n < 2 || !t->vao)
        continue;
      const float *c = trace_palette[k % G_N_ELEMENTS(trace_palette)];
      glUniform4f(r->u[P_LINE][U_COLOR], c[0], c[1], c[2], 0.9f);
      glBindVertexArray(t->vao);
      glDrawArrays(GL_LINE_STRIP, 0, t->n);
    }
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glBindVertexArray(0);
  glUseProgram(0);

  if (samples > 1 && r->ms_fbo) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->ms_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)target);
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_target);
  }
}

/* ---- picking ---------------------------------------------------------- */
static int ensure_pick_fbo(lw_renderer *r)
{
  if (r->pick_fbo)
    return 1;
  glGenFramebuffers(1, &r->pick_fbo);
  glGenRenderbuffers(2, r->pick_rb);
  glBindRenderbuffer(GL_RENDERBUFFER, r->pick_rb[0]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, PICK_SIZE, PICK_SIZE);
  glBindRenderbuffer(GL_RENDERBUFFER, r->pick_rb[1]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, PICK_SIZE, PICK_SIZE);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, r->pick_fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->pick_rb[0]);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, r->pick_rb[1]);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    glDeleteFramebuffers(1, &r->pick_fbo);
    glDeleteRenderbuffers(2, r->pick_rb);
    r->pick_fbo = 0;
    return 0;
  }
  return 1;
}

gboolean lw_renderer_pick(lw_renderer *r, const lw_camera *cam, int w, int h, const lw_render_state *s,
                          double x_px, double y_px, lw_pick *out)
{
  lw_pick none = {LW_PICK_NONE, -1};
  if (out)
    *out = none;
  if (w <= 0 || h <= 0 || !r->has_model || !s)
    return FALSE;
  if (!r->scale_valid)
    measure(r, s);
  GLint draw_fb = 0, read_fb = 0, vp[4];
  GLfloat clear[4];
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fb);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fb);
  glGetIntegerv(GL_VIEWPORT, vp);
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
  if (!ensure_pick_fbo(r)) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)draw_fb);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fb);
    return FALSE;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, r->pick_fbo);
  glViewport(0, 0, PICK_SIZE, PICK_SIZE);

  /* a window matrix that maps PICK_SIZE pixels around the pointer (GL
   * pixel centres, y up) onto the whole of clip space */
  double cx = x_px, cy = h - y_px, win[16];
  lw_mat4_identity(win);
  win[0] = (double)w / PICK_SIZE;
  win[5] = (double)h / PICK_SIZE;
  win[12] = (w - 2 * cx) / PICK_SIZE;
  win[13] = (h - 2 * cy) / PICK_SIZE;

  glDisable(GL_BLEND);
  glDisable(GL_DITHER);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glClearColor(0, 0, 0, 0);
  glClearDepthf(1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  r->picking = 1;
  begin_pass(r, cam, w, h, win, P_MESH);
  draw_solids(r, s);
  glDisable(GL_CULL_FACE);
  glFrontFace(GL_CCW);
  r->picking = 0;
  glUniform1i(r->u[P_MESH][U_PICKING], 0);
  glBindVertexArray(0);
  glUseProgram(0);

  guint8 px[PICK_SIZE * PICK_SIZE * 4];
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, PICK_SIZE, PICK_SIZE, GL_RGBA, GL_UNSIGNED_BYTE, px);
  glEnable(GL_DITHER);

  /* the id nearest to the centre wins */
  int best = -1, best_d = INT_MAX, c = PICK_SIZE / 2;
  for (int y = 0; y < PICK_SIZE; y++)
    for (int x = 0; x < PICK_SIZE; x++) {
      const guint8 *p = px + 4 * (y * PICK_SIZE + x);
      int d = (x - c) * (x - c) + (y - c) * (y - c);
      if (p[0] >= LW_PICK_BODY && p[0] <= LW_PICK_BEAM && d < best_d) {
        best_d = d;
        best = y * PICK_SIZE + x;
      }
    }

  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)draw_fb);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fb);
  glViewport(vp[0], vp[1], vp[2], vp[3]);
  glClearColor(clear[0], clear[1], clear[2], clear[3]);
  if (best < 0)
    return FALSE;
  const guint8 *p = px + 4 * best;
  lw_pick hit = {(lw_pick_kind)p[0], p[1] | (p[2] << 8)};
  if (!lw_renderer_element_name(r, hit.kind, hit.index))
    return FALSE;
  if (out)
    *out = hit;
  return TRUE;
}
