/* lw-editor.h: building a model with the mouse, over the 3-D view.
 *
 * In editing mode this transparent layer lies over the view: palette items
 * dropped on it (GtkDropTarget, the item id as a string) land on the work
 * plane where they are dropped, snapped to the points of the model near the
 * pointer or else to a grid; a stroke (primary-button drag from one point to
 * another) draws a link, a spring or a beam; a click selects; middle- or right-drag
 * pans, the wheel zooms.  Joints flagged by the live check (redundant:
 * orange, violated: red) are ringed, and the degrees of freedom are shown.
 *
 * Every edit is a new model description handed to the "edit" signal
 * (handler: void (LwEditor *, gpointer desc, const char *what, gpointer);
 * the handler takes desc).  A refused edit emits "message" with the reason.
 *
 * Planar models use the x-y plane; spatial models a work plane normal to a
 * global axis through an offset (lw_editor_set_work_plane).
 */
#pragma once

#include <gtk/gtk.h>

#include "linkwright.h"
#include "lw-palette.h"
#include "lw-view3d.h"

G_BEGIN_DECLS

#define LW_TYPE_EDITOR (lw_editor_get_type())
G_DECLARE_FINAL_TYPE(LwEditor, lw_editor, LW, EDITOR, GtkWidget)

GtkWidget *lw_editor_new(LwView3d *view, LwPalette *palette);
/* The document and its live check (the configuration shown and the flags);
 * check may be NULL.  The editor keeps copies. */
void lw_editor_set_document(LwEditor *self, const lw_desc *doc, const lw_check_result *check);

/* What a drop of palette item `id` at view coordinates (x, y) does; FALSE
 * (and "message") when it is refused. */
gboolean lw_editor_drop(LwEditor *self, const char *id, double x, double y);
/* What a stroke from (x0, y0) to (x1, y1) with tool "link", "spring" or
 * "beam" does.  A beam gets LW_EDITOR_BEAM_ELEMENTS elements of steel with
 * a 20 mm square section (its page changes them); its ends are snapping
 * targets, and a pin, ball or weld dropped on one joins it to what lies
 * there (or to the ground). */
#define LW_EDITOR_BEAM_ELEMENTS 8
gboolean lw_editor_stroke(LwEditor *self, const char *tool, double x0, double y0, double x1, double y1);
/* What a drag from (x0, y0) to (x1, y1) with the tool "move" does: the body's
 * point, or the ground place of a joint or spring, under (x0, y0) goes to
 * the work-plane point under (x1, y1), snapped (not to the points of its own
 * body).  A drawn link stretches with its point (lw_desc_move_point). */
gboolean lw_editor_move(LwEditor *self, double x0, double y0, double x1, double y1);
/* Grab the body under view point (x0, y0) and drag it to (x1, y1) through
 * the mechanism's assembled positions (the move tool's drag on a link's
 * interior); the pose reached becomes the initial pose, one edit.  FALSE
 * when no body is there or the model cannot be assembled. */
gboolean lw_editor_drag_body(LwEditor *self, double x0, double y0, double x1, double y1);
/* The boxes (view coordinates) of the text labels of the last drawing, at
 * most max of them; returns how many there were. */
int lw_editor_get_label_boxes(LwEditor *self, graphene_rect_t *boxes, int max);
/* A click: select what lies under (x, y) (NULL: nothing). */
void lw_editor_click(LwEditor *self, double x, double y);

/* Where a world point is in view coordinates (tests aim with it). */
gboolean lw_editor_world_to_view(LwEditor *self, const double p[3], double *x, double *y);
/* The work-plane point under (x, y), snapped as a drop would be. */
gboolean lw_editor_snap(LwEditor *self, double x, double y, double out[3]);

void lw_editor_set_snap_to_grid(LwEditor *self, gboolean on);
gboolean lw_editor_get_snap_to_grid(LwEditor *self);
void lw_editor_set_grid_step(LwEditor *self, double step);
/* spatial models: the plane normal to global axis `axis` (0 x, 1 y, 2 z) at `offset` */
void lw_editor_set_work_plane(LwEditor *self, int axis, double offset);

GtkDropTarget *lw_editor_get_drop_target(LwEditor *self);
GtkGesture *lw_editor_get_stroke_gesture(LwEditor *self);
/* LW_CHECK_* flags the live check gave a joint (-1: no such joint). */
int lw_editor_get_joint_state(LwEditor *self, const char *joint);
/* The last refusal's text, or NULL. */
const char *lw_editor_get_message(LwEditor *self);
/* The status line: degrees of freedom and assembly. */
const char *lw_editor_get_status(LwEditor *self);

/* A body's pose from its initial guess (origin, R row-major). */
void lw_editor_guess_pose(const lw_desc *d, int b, double origin[3], double R[9]);

/* A new empty model (planar or spatial) with the editor's defaults. */
lw_desc *lw_editor_new_document(gboolean planar);

G_END_DECLS
