/* lw-view3d.h: the GTK 4 3-D view of a mechanism (a GtkGLArea).
 *
 * Mouse: scroll zooms about the pointer; a click without a drag selects the
 * element under the pointer (on empty space it clears the selection).
 *   spatial models: left-drag orbits; Shift+left-drag, middle- or
 *                   right-drag pan;
 *   planar models:  left-drag, middle- or right-drag pan; Shift+left-drag
 *                   orbits (out of the plane).
 * Keys (when focused): Home resets the camera, +/- zoom.
 *
 * Actions: view.reset-camera, view.zoom-in, view.zoom-out and the property
 * actions view.show-grid, view.show-joints, view.show-frames,
 * view.show-forces, view.show-traces.  The property "dark" draws the dark
 * style's background.
 *
 * Signals: notify::selection when the user picks; "rendered" after each
 * frame is drawn, with the context current and the area's framebuffer still
 * bound (tests read pixels there; benchmarks count frames).
 *
 * When OpenGL cannot be used the widget stays empty and `gl-error` holds
 * the reason; the application shows it.
 */
#ifndef LW_VIEW3D_H
#define LW_VIEW3D_H

#include <gtk/gtk.h>

#include "lw-render.h"
#include "lw-measure-overlay.h"

G_BEGIN_DECLS

#define LW_TYPE_VIEW3D (lw_view3d_get_type())
G_DECLARE_FINAL_TYPE(LwView3d, lw_view3d, LW, VIEW3D, GtkGLArea)

GtkWidget *lw_view3d_new(void);
/* The view keeps a copy; NULL clears. Resets the selection and the traces
 * and frames the camera on the next state. */
void lw_view3d_set_model(LwView3d *self, const lw_desc *desc);
/* Copies the arrays and queues a redraw. */
void lw_view3d_set_state(LwView3d *self, const lw_render_state *state);
void lw_view3d_set_trace(LwView3d *self, int k, const double *xyz, int n);
void lw_view3d_clear_traces(LwView3d *self);
void lw_view3d_reset_camera(LwView3d *self);
/* draw again now ("rendered" follows).  On the software path a redraw that
 * only shows a frame drawn ahead does not draw, so gtk_gl_area_queue_render
 * alone may not bring "rendered"; this does. */
void lw_view3d_redraw(LwView3d *self);
/* Zoom about the centre: factor < 1 zooms in. */
void lw_view3d_zoom(LwView3d *self, double factor);
/* "bodies/NAME", "joints/NAME", "forces/NAME" or NULL */
const char *lw_view3d_get_selection(LwView3d *self);
void lw_view3d_set_selection(LwView3d *self, const char *path);
/* NULL when GL works; otherwise a human-readable reason */
const char *lw_view3d_get_gl_error(LwView3d *self);
/* Wall time of the last frame's drawing, GPU work included (glFinish), ms. */
double lw_view3d_get_frame_time_ms(LwView3d *self);
/* how many different pictures the view has shown (a frame of GTK's that
 * shows the picture of the frame before does not count) */
guint64 lw_view3d_get_pictures(LwView3d *self);
/* the picture shown last was drawn on the view's render thread (software
 * path: lw-render-thread.h) */
gboolean lw_view3d_get_threaded(LwView3d *self);
/* The camera (for tests and for saving a view); set_camera queues a redraw
 * and cancels a pending automatic fit. */
void lw_view3d_get_camera(LwView3d *self, lw_camera *cam);
void lw_view3d_set_camera(LwView3d *self, const lw_camera *cam);
/* The camera fitted to the mechanism (after a model is set, reset_camera or
 * fit_box, until the user or set_camera moves it) widens by itself when the
 * mechanism leaves the picture.  fit_box fits it to the box lo..hi. */
gboolean lw_view3d_get_auto_frame(LwView3d *self);
void lw_view3d_fit_box(LwView3d *self, const double lo[3], const double hi[3]);
/* Cancels the fit a new model asks for: the camera stays as it is, fitted
 * (and widening) or placed by the user. */
void lw_view3d_keep_camera(LwView3d *self);
/* With follow FALSE the camera does not widen by itself (while the user
 * edits the mechanism under the pointer); TRUE by default. */
void lw_view3d_set_follow_motion(LwView3d *self, gboolean follow);
/* Pick as a click at widget coordinates (x, y) would; FALSE on empty space
 * or when GL is not available. */
gboolean lw_view3d_pick(LwView3d *self, double x, double y, lw_pick *out);
/* The Measure tool: clicks make dimensions (a view overlay, not part of the
 * model); Escape drops a half-made one, Delete the selected one. */
void lw_view3d_set_measure_tool(LwView3d *self, gboolean on);
gboolean lw_view3d_get_measure_tool(LwView3d *self);
LwMeasureOverlay *lw_view3d_get_measures(LwView3d *self);
void lw_view3d_clear_measures(LwView3d *self);
/* a click of the Measure tool at (x, y) (the edit mode's palette tool too) */
void lw_view3d_measure_click(LwView3d *self, double x, double y);
/* While a Ctrl+drag holds a body ("perturbation-changed" tells of changes):
 * the body, the grabbed point in its axes and the pointer's target. */
/* A Ctrl+drag that another controller (the editor, in editing mode) took:
 * grab the body under (x, y) as the view's own Ctrl+drag does (FALSE: none
 * there, or no state shown), pull it by the drag's offset, let it go. */
gboolean lw_view3d_perturbation_grab(LwView3d *self, double x, double y);
void lw_view3d_perturbation_pull(LwView3d *self, double ox, double oy);
void lw_view3d_perturbation_release(LwView3d *self);
gboolean lw_view3d_get_perturbation(LwView3d *self, int *body, double p[3], double target[3]);

/* The grid's finest spacing (the editor's snapping step), m; the grid
 * drawn is that or, zoomed out, a power of ten coarser: the spacing
 * lw_grid_step() gives for the current camera, which get_grid_spacing
 * returns. */
void lw_view3d_set_grid_step(LwView3d *self, double step);
double lw_view3d_get_grid_spacing(LwView3d *self);

G_END_DECLS
#endif
