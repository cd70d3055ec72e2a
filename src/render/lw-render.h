/* lw-render.h: OpenGL renderer of a mechanism (GL 3.3 core or GLES 3.0 via
 * epoxy; no GTK).
 *
 * Functions that touch GL objects (new, draw, pick, free) need the context
 * they were created in to be current.  The others only record data and may
 * be called at any time; what they change is uploaded at the next draw.
 *
 * The renderer draws into whatever framebuffer is bound when lw_renderer_draw
 * is called (GtkGLArea's, or an offscreen one), over the whole of
 * width_px x height_px starting at (0, 0).
 */
#ifndef LW_RENDER_H
#define LW_RENDER_H

#include <glib.h>

#include "linkwright.h"
#include "lw-camera.h"

G_BEGIN_DECLS

/* The pose of the mechanism at one instant, filled by the caller from the
 * core (lw_body_pose, lw_scene_geometry).  The renderer does not keep it. */
typedef struct {
  double t;
  int nbodies;  const double *body_pose; /* nbodies x 12: origin[3], then R[9] row-major (R[3*i+j]) */
  int njoints;  const double *joints;    /* njoints x 6: origin[3], unit axis[3] */
  int nforces;  const double *forces;    /* nforces x 6, see lw_scene_geometry() */
  /* optional (NULL: none): per joint, nonzero draws the joint in the
   * sticking colour (friction holds it: |slip| below the transition speed) */
  const double *joint_sticking;          /* njoints */
  /* optional marks fixed in space, drawn as flat boxes in the mark colour
   * (contact planes and lines, joint limits): nmarks x 12, the centre, then
   * the three half-axis vectors (each as long as the box's half extent) */
  int nmarks;   const double *marks;
  int nbeam_pts; const double *beam_pts; /* nbeam_pts x 4, see lw_scene_beams() */
  /* optional (NULL: the beams' own colour): nbeam_pts x 3, the colour (RGB,
   * 0 to 1) of the tube at each beam point, blended along each segment */
  const double *beam_rgb;
} lw_render_state;
#define LW_RENDER_MARK_DOUBLES 12

typedef struct {
  gboolean show_grid, show_joints, show_frames, show_forces, show_traces;
  double grid_step; /* the finest grid spacing (the editor's snapping), m; <= 0: 0.1 */
  gboolean dark;    /* the dark style: a dark background, lighter grid lines */
} lw_render_options;

/* The grid: lines every lw_grid_step(), a major line every LW_GRID_MAJOR
 * cells, over the whole visible part of the grid plane.  Its spacing is the
 * finest step (the snapping step) times the power of ten that keeps at
 * most LW_GRID_MAX_CELLS cells across the view's height at the camera's
 * target (whatever the window's size or scale), so that a view zoomed far
 * out shows a coarser grid, and snapping (which asks the same function)
 * follows it. */
#define LW_GRID_MAJOR 10
#define LW_GRID_MAX_CELLS 100.0
double lw_grid_step(const lw_camera *cam, double finest);

typedef enum {
  LW_PICK_NONE,
  LW_PICK_BODY,
  LW_PICK_JOINT,
  LW_PICK_FORCE,
  LW_PICK_BEAM,
} lw_pick_kind;

typedef struct {
  lw_pick_kind kind;
  int index; /* into desc->bodies / joints / forces / beams; -1 with LW_PICK_NONE */
} lw_pick;

typedef struct lw_renderer lw_renderer;

#define LW_RENDER_ERROR (lw_render_error_quark())
typedef enum {
  LW_RENDER_ERROR_VERSION, /* the context is older than GL 3.3 / GLES 3.0 */
  LW_RENDER_ERROR_SHADER,  /* a shader failed to load, compile or link */
  LW_RENDER_ERROR_FAILED,
} LwRenderError;
GQuark lw_render_error_quark(void);

/* Needs a current context. NULL with error set when GL is unusable. */
lw_renderer *lw_renderer_new(GError **error);
void lw_renderer_free(lw_renderer *r);

/* Keep what the drawing needs from desc (names, types, display geometry);
 * desc may be freed afterwards.  NULL clears the model. */
void lw_renderer_set_model(lw_renderer *r, const lw_desc *desc);
/* The model's mesh files that could not be read (one a line, each with
 * why), drawn as boxes; NULL when none. */
const char *lw_renderer_mesh_notes(const lw_renderer *r);
int lw_renderer_planar(const lw_renderer *r);
/* The world's up direction: -gravity (planar: +y). */
void lw_renderer_up(const lw_renderer *r, double up[3]);

lw_render_options lw_renderer_get_options(const lw_renderer *r);
void lw_renderer_set_options(lw_renderer *r, const lw_render_options *opt);
/* Highlight one element (LW_PICK_NONE clears). */
void lw_renderer_set_selection(lw_renderer *r, lw_pick sel);

/* Trace k (k >= 0): a polyline of n points xyz (n x 3), drawn in the trace
 * colour k; n = 0 or xyz = NULL removes it. */
void lw_renderer_set_trace(lw_renderer *r, int k, const double *xyz, int n);
void lw_renderer_clear_traces(lw_renderer *r);

/* Sizes of joint glyphs, springs, arrows and the grid follow the model's
 * size; it is measured at the first draw after set_model (or after this
 * call) so that the glyphs do not breathe while the mechanism moves. */
void lw_renderer_reset_scale(lw_renderer *r);

/* Bounding box of the mechanism at this state (display geometry, points,
 * joints, force points). FALSE (and a unit box) when there is nothing. */
gboolean lw_renderer_bounds(const lw_renderer *r, const lw_render_state *state, double bmin[3],
                            double bmax[3]);

/* Multisampled offscreen drawing (0 or 1: off).  When on, draw renders into
 * an internal MSAA framebuffer and resolves into the bound one. */
void lw_renderer_set_samples(lw_renderer *r, int samples);

/* Draw upside down (the top row first in memory, as cairo and most image
 * formats store it), so that a picture read back with glReadPixels needs
 * no flip.  Picking is not affected. */
void lw_renderer_set_flip_y(lw_renderer *r, gboolean flip);

/* The colour scale of a stress view: u from 0 (blue, low) through cyan,
 * green and yellow to 1 (red, high), clamped. */
void lw_stress_color(double u, double rgb[3]);

/* state may be NULL (background and grid only). */
void lw_renderer_draw(lw_renderer *r, const lw_camera *cam, int width_px, int height_px,
                      const lw_render_state *state);

/* The element under pixel (x, y) (from the top-left corner; a few pixels of
 * slack around thin elements).  Renders ids into a small offscreen
 * framebuffer and restores the bound framebuffer and viewport. */
gboolean lw_renderer_pick(lw_renderer *r, const lw_camera *cam, int width_px, int height_px,
                          const lw_render_state *state, double x_px, double y_px, lw_pick *out);

/* Element name for a pick ("A1"), or NULL. */
const char *lw_renderer_element_name(const lw_renderer *r, lw_pick_kind kind, int index);
/* "GL 4.5 (Core Profile) Mesa ..." of the context the renderer was made in */
const char *lw_renderer_gl_version(const lw_renderer *r);

G_END_DECLS
#endif
