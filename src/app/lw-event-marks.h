/* lw-event-marks.h: what a 3-D view draws for a model's events, as marks
 * of lw_render_state (LW_RENDER_MARK_DOUBLES each): a contact's plane as a
 * slab whose top face is the plane (a planar model's line as a long thin
 * slab), under the place of the contact's point on it; a joint limit on a
 * slide as a plate across the rail at the bound, on a turning joint as a
 * spoke from the joint at the bound's angle from body 1's reference. */
#pragma once

#include "linkwright.h"
#include "lw-render.h"

G_BEGIN_DECLS

/* the most marks d's events make */
int lw_event_marks_max(const lw_desc *d);
/* the marks' size (a contact's half length), m: the spread of the body
 * origins in poses (nbodies x 12), at least 0.5 */
double lw_event_marks_size(int nbodies, const double *poses);
/* The marks of d's events at the pose given (poses: nbodies x 12 as
 * lw_body_pose writes them, in d's order; joints: njoints x 6 from
 * lw_scene_geometry) into marks (room for lw_event_marks_max); returns
 * their number. */
int lw_event_marks_fill(const lw_desc *d, const double *poses, const double *joints, double size, double *marks);

G_END_DECLS
