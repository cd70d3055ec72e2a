/* lw-measure-overlay.h: what the 3-D view draws over the scene for the
 * Measure tool (dimensions that follow the bodies) and for the perturbation
 * spring (a line from the grabbed body point to the pointer), and the
 * pointer handling of both.  The view keeps one and calls it from its
 * snapshot and pointer handlers; poses come from the view's render state. */
#pragma once

#include <gtk/gtk.h>

#include "lw-measure.h"
#include "lw-render.h"

typedef struct LwMeasureOverlay LwMeasureOverlay;

LwMeasureOverlay *lw_measure_overlay_new(void);
void lw_measure_overlay_free(LwMeasureOverlay *mo);

void lw_measure_overlay_set_tool(LwMeasureOverlay *mo, gboolean on);
gboolean lw_measure_overlay_get_tool(const LwMeasureOverlay *mo);
guint lw_measure_overlay_n_measures(const LwMeasureOverlay *mo);
const LwMeasure *lw_measure_overlay_get(const LwMeasureOverlay *mo, guint i);
void lw_measure_overlay_add(LwMeasureOverlay *mo, const LwMeasure *ms);
void lw_measure_overlay_clear(LwMeasureOverlay *mo);
/* The view's model went from `from` to `to`: measures follow their bodies
 * by name; one whose body is gone (another model opened, a body deleted or
 * renamed) is dropped. */
void lw_measure_overlay_follow_model(LwMeasureOverlay *mo, const lw_desc *from, const lw_desc *to);
/* Escape: drops the pending click (TRUE if there was one) */
gboolean lw_measure_overlay_cancel(LwMeasureOverlay *mo);
/* Delete: removes the selected measure (TRUE if there was one) */
gboolean lw_measure_overlay_delete_selected(LwMeasureOverlay *mo);

/* A click of the Measure tool at pixel (x, y): snaps to the nearest body
 * point within a few pixels (a distance needs two), else takes the picked
 * body as a link (an angle needs two: their x axes); a click on a drawn
 * dimension selects it (whether the tool is on is the caller's to check).
 * Returns TRUE when the click was used. */
gboolean lw_measure_overlay_click(LwMeasureOverlay *mo, const lw_desc *desc, const lw_render_state *s,
                                  const lw_camera *cam, int w, int h, double x, double y, int picked_body);

/* Perturbation: grab body b under pixel (x, y) (the point on the model plane,
 * planar, or on the plane through the body origin parallel to the screen),
 * move the pointer, release.  The target is on the plane through the
 * grabbed point parallel to the screen (planar: the model plane). */
void lw_measure_overlay_grab(LwMeasureOverlay *mo, int planar, const lw_render_state *s, const lw_camera *cam,
                             int w, int h, int b, double x, double y);
void lw_measure_overlay_pull(LwMeasureOverlay *mo, int planar, const lw_render_state *s, const lw_camera *cam,
                             int w, int h, double x, double y);
void lw_measure_overlay_release(LwMeasureOverlay *mo);
/* TRUE while held: the body, its local point and the target (global) */
gboolean lw_measure_overlay_get_perturbation(const LwMeasureOverlay *mo, int *body, double p[3], double target[3]);

void lw_measure_overlay_snapshot(LwMeasureOverlay *mo, GtkWidget *widget, GtkSnapshot *snapshot, int planar,
                                 const lw_render_state *s, const lw_camera *cam, int w, int h);
