/* lw-editor.c: building a model with the mouse (see lw-editor.h).
 *
 * The editor never changes the document in place: each edit copies the
 * description, changes the copy and hands it on, so that the window can
 * keep the previous one for undo and refuse nothing silently.  Positions
 * come from the live check's configuration when the model compiles (the
 * assembled preview, or the closest configuration the assembly reached),
 * else from the bodies' initial guesses. */
#include "lw-editor.h"
#include "lw-event-marks.h"
#include "lw-sim-runner.h"
#include "lw-window.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#define SNAP_PX 12.0      /* a point this close to the pointer is taken */
#define CLICK_PX 4.0      /* below this a press-release is a click */

typedef enum {
  ANCHOR_POINT,    /* a named point of a body */
  ANCHOR_JOINT,    /* a joint's place on the ground */
  ANCHOR_SPRING,   /* a spring's end on the ground */
  ANCHOR_BEAM,     /* an end of a beam (index: the beam, side: 0 start, 1 end) */
} AnchorKind;

typedef struct {
  int body;        /* index, -1 ground */
  char *point;     /* a named point of the body, or NULL (literal) */
  double w[3];     /* world position */
  AnchorKind kind;
  int index;       /* the point, joint or force */
  int side;        /* ground places: which end of the joint or spring */
} Anchor;

struct _LwEditor {
  GtkWidget parent_instance;
  LwView3d *view;
  LwPalette *palette;

  lw_desc *doc;
  int nbodies, njoints, nforces;
  double *pose;          /* nbodies x 12: origin, R row-major */
  double *jpos;          /* njoints x 3, world */
  double *fpos;          /* nforces x 6 (lw_scene_geometry), NULL when not compiled */
  int nbpts;             /* the beams' centre lines: lw_scene_beams' points */
  double *bpts;          /* nbpts x 4 */
  int *jstate;           /* njoints: LW_CHECK_* */
  lw_check_result info;  /* numbers only (no arrays, no model) */
  gboolean have_info;
  char *status;
  GArray *anchors;       /* Anchor */

  gboolean snap_grid;
  double grid;
  int plane_axis;
  double plane_offset;

  /* pointer */
  guint button;
  GdkModifierType mods;
  double x0, y0, x1, y1;
  gboolean dragging, stroking;
  gboolean pulling;      /* a Ctrl+drag pulls the running simulation */
  int moving;            /* index of the anchor being moved + 1, or 0 */
  lw_camera cam0;
  lw_camera cam_drawn;   /* the camera of the last drawing */
  gboolean hover;
  double hx, hy;

  /* grab-and-drag of a body through the assembled positions */
  lw_drag *kdrag;        /* the constrained solve, NULL when not dragging */
  lw_data *kdata;        /* scratch for the poses of kdrag's model */
  int kbody;             /* the grabbed body */
  double kpoint[3];      /* the grabbed point, body axes */

  /* the text labels of the last drawing (for tests of their placement) */
  graphene_rect_t label_box[4];
  int nlabel_boxes;

  char *message;
  GtkDropTarget *drop;
  GtkGesture *gesture;
};

G_DEFINE_FINAL_TYPE(LwEditor, lw_editor, GTK_TYPE_WIDGET)

enum { SIGNAL_EDIT, SIGNAL_MESSAGE, N_SIGNALS };
static guint signals[N_SIGNALS];

static const double palette_colors[][3] = {
  {0.85, 0.33, 0.10}, {0.20, 0.45, 0.80}, {0.20, 0.65, 0.35}, {0.60, 0.35, 0.70}, {0.80, 0.60, 0.10},
};

/* ---- geometry helpers -------------------------------------------------- */
static int dim(const LwEditor *self)
{
  return self->doc && self->doc->planar ? 2 : 3;
}

static void quat_to_R(const double q[4], double R[9])
{
  double w = q[0], x = q[1], y = q[2], z = q[3], n = sqrt(w * w + x * x + y * y + z * z);
  if (n < 1e-12)
    w = 1, x = y = z = 0, n = 1;
  w /= n, x /= n, y /= n, z /= n;
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* the rotation taking x to the unit vector d (shortest arc), as a quaternion */
static void quat_from_x(const double d[3], double q[4])
{
  double c = d[0];
  if (c < -1 + 1e-12) {
    q[0] = 0, q[1] = 0, q[2] = 0, q[3] = 1; /* half turn about z */
    return;
  }
  /* axis x × d = (0, -d2, d1) */
  double w = 1 + c, n;
  q[0] = w, q[1] = 0, q[2] = -d[2], q[3] = d[1];
  n = sqrt(q[0] * q[0] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; i++)
    q[i] /= n;
}

static void body_world(const LwEditor *self, int b, const double local[3], double w[3])
{
  if (b < 0) {
    memcpy(w, local, 3 * sizeof(double));
    return;
  }
  const double *o = self->pose + 12 * b, *R = o + 3;
  for (int i = 0; i < 3; i++)
    w[i] = o[i] + R[3 * i] * local[0] + R[3 * i + 1] * local[1] + R[3 * i + 2] * local[2];
}

static void body_local(const LwEditor *self, int b, const double w[3], double local[3])
{
  if (b < 0) {
    memcpy(local, w, 3 * sizeof(double));
    return;
  }
  const double *o = self->pose + 12 * b, *R = o + 3;
  double d[3] = {w[0] - o[0], w[1] - o[1], w[2] - o[2]};
  for (int j = 0; j < 3; j++)
    local[j] = R[j] * d[0] + R[3 + j] * d[1] + R[6 + j] * d[2];
  if (dim(self) == 2)
    local[2] = 0;
}

/* the body's x axis in the world and its planar angle */
static double body_angle(const LwEditor *self, int b)
{
  if (b < 0)
    return 0;
  const double *R = self->pose + 12 * b + 3;
  return atan2(R[3], R[0]);
}

static int body_index(const lw_desc *d, const char *name)
{
  if (!name || !strcmp(name, "ground"))
    return -1;
  for (int i = 0; i < d->nbodies; i++)
    if (!strcmp(d->bodies[i].name, name))
      return i;
  return -2;
}

static const double *place_local(const lw_desc *d, int b, const lw_place *pl)
{
  if (!pl->ref || b < 0)
    return pl->p;
  const lw_body_desc *bd = &d->bodies[b];
  for (int k = 0; k < bd->npoints; k++)
    if (!strcmp(bd->points[k].name, pl->ref))
      return bd->points[k].p;
  for (int k = 0; k < bd->nframes; k++)
    if (!strcmp(bd->frames[k].name, pl->ref))
      return bd->frames[k].origin;
  return pl->p;
}

static void view_size(LwEditor *self, int *w, int *h)
{
  *w = MAX(gtk_widget_get_width(GTK_WIDGET(self->view)), 1);
  *h = MAX(gtk_widget_get_height(GTK_WIDGET(self->view)), 1);
}

gboolean lw_editor_world_to_view(LwEditor *self, const double p[3], double *x, double *y)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), FALSE);
  lw_camera cam;
  int w, h;
  lw_view3d_get_camera(self->view, &cam);
  view_size(self, &w, &h);
  return lw_camera_project(&cam, w, h, p, x, y);
}

/* the work-plane point under (x, y) */
static gboolean plane_point(LwEditor *self, double x, double y, double out[3])
{
  lw_camera cam;
  int w, h;
  lw_view3d_get_camera(self->view, &cam);
  view_size(self, &w, &h);
  double o[3], dir[3];
  lw_camera_ray(&cam, w, h, x, y, o, dir);
  int a = dim(self) == 2 ? 2 : self->plane_axis;
  double c = dim(self) == 2 ? 0 : self->plane_offset;
  if (fabs(dir[a]) < 1e-9)
    return FALSE;
  double t = (c - o[a]) / dir[a];
  if (t <= 0)
    return FALSE;
  for (int i = 0; i < 3; i++)
    out[i] = o[i] + t * dir[i];
  out[a] = c;
  return TRUE;
}

/* the nearest anchor within SNAP_PX of (x, y), or NULL; never `moved`
 * itself nor, when it is a body's point, the points of its body */
static const Anchor *anchor_near(LwEditor *self, double x, double y, const Anchor *moved)
{
  const Anchor *best = NULL;
  double bd = SNAP_PX;
  for (guint i = 0; i < self->anchors->len; i++) {
    const Anchor *a = &g_array_index(self->anchors, Anchor, i);
    if (moved && (a == moved || (moved->body >= 0 && a->body == moved->body)))
      continue;
    double ax, ay;
    if (!lw_editor_world_to_view(self, a->w, &ax, &ay))
      continue;
    double dd = hypot(ax - x, ay - y);
    if (dd < bd) {
      bd = dd;
      best = a;
    }
  }
  return best;
}

static double grid_spacing(LwEditor *self)
{
  return self->view ? lw_view3d_get_grid_spacing(self->view) : self->grid;
}

/* snapped as a drop would be; a moved anchor snaps neither to itself nor,
 * for a body's point, to the points of its own body */
static gboolean snap_except(LwEditor *self, double x, double y, const Anchor *moved, double out[3])
{
  const Anchor *a = anchor_near(self, x, y, moved);
  if (a) {
    memcpy(out, a->w, 3 * sizeof(double));
    return TRUE;
  }
  if (!plane_point(self, x, y, out))
    return FALSE;
  /* the spacing of the grid drawn: the snapping step, or coarser when the
   * view is zoomed far out */
  double step = grid_spacing(self);
  if (self->snap_grid && step > 0) {
    int ax = dim(self) == 2 ? 2 : self->plane_axis;
    for (int i = 0; i < 3; i++)
      if (i != ax)
        out[i] = step * round(out[i] / step);
  }
  return TRUE;
}

gboolean lw_editor_snap(LwEditor *self, double x, double y, double out[3])
{
  g_return_val_if_fail(LW_IS_EDITOR(self), FALSE);
  return snap_except(self, x, y, NULL, out);
}

/* distance in pixels from (x, y) to the screen segment p-q */
static double seg_dist_px(LwEditor *self, const double p[3], const double q[3], double x, double y)
{
  double px, py, qx, qy;
  if (!lw_editor_world_to_view(self, p, &px, &py) || !lw_editor_world_to_view(self, q, &qx, &qy))
    return INFINITY;
  double dx = qx - px, dy = qy - py, l2 = dx * dx + dy * dy;
  double t = l2 > 0 ? ((x - px) * dx + (y - py) * dy) / l2 : 0;
  t = CLAMP(t, 0, 1);
  return hypot(px + t * dx - x, py + t * dy - y);
}

/* the topmost body whose display shape lies under (x, y), or -1 */
static int body_under(LwEditor *self, double x, double y)
{
  double P[3];
  gboolean onplane = plane_point(self, x, y, P);
  for (int b = self->nbodies - 1; b >= 0; b--) {
    const lw_body_desc *bd = &self->doc->bodies[b];
    for (int g = 0; g < bd->ngeoms; g++) {
      const lw_geom_desc *gd = &bd->geoms[g];
      if (gd->type == LW_GEOM_BAR || gd->type == LW_GEOM_CYLINDER) {
        double p[3], q[3];
        body_world(self, b, gd->from, p);
        body_world(self, b, gd->to, q);
        if (seg_dist_px(self, p, q, x, y) <= SNAP_PX * 0.75)
          return b;
      } else if (onplane) {
        double c[3], r = gd->type == LW_GEOM_BOX ? fmax(gd->size[0], gd->size[1]) : gd->size[0];
        body_world(self, b, gd->center, c);
        if (hypot(hypot(c[0] - P[0], c[1] - P[1]), c[2] - P[2]) <= r)
          return b;
      }
    }
  }
  return -1;
}

/* the beam whose centre line passes under (x, y), or -1 */
static int beam_under(LwEditor *self, double x, double y)
{
  int beam = -1;
  for (int i = 0; i < self->nbpts; i++) {
    const double *p = self->bpts + 4 * i;
    beam += i == 0 || p[3] < 0;
    if (i > 0 && p[3] > 0 && seg_dist_px(self, p - 4, p, x, y) <= SNAP_PX * 0.75)
      return beam < self->doc->nbeams ? beam : -1;
  }
  return -1;
}

/* the joint drawn nearest (x, y) within a few snap radii, or -1 */
static int joint_near(LwEditor *self, double x, double y)
{
  int best = -1;
  double bd = 2 * SNAP_PX;
  for (int j = 0; j < self->njoints; j++) {
    double jx, jy;
    if (!lw_editor_world_to_view(self, self->jpos + 3 * j, &jx, &jy))
      continue;
    double dd = hypot(jx - x, jy - y);
    if (dd < bd)
      bd = dd, best = j;
  }
  return best;
}

/* ---- the document ------------------------------------------------------ */
static void clear_anchors(LwEditor *self)
{
  for (guint i = 0; i < self->anchors->len; i++)
    g_free(g_array_index(self->anchors, Anchor, i).point);
  g_array_set_size(self->anchors, 0);
}

static void add_anchor(LwEditor *self, int body, const char *point, const double w[3], AnchorKind kind, int index,
                       int side)
{
  Anchor a = {body, g_strdup(point), {w[0], w[1], w[2]}, kind, index, side};
  g_array_append_val(self->anchors, a);
}

static void update_status(LwEditor *self)
{
  g_free(self->status);
  const lw_check_result *c = &self->info;
  if (!self->doc || self->doc->nbodies + self->doc->nbeams == 0)
    self->status = g_strdup(_("Empty model: drag a link into the view, or draw one"));
  else if (!self->have_info || !c->compiled)
    self->status = g_strdup_printf(_("Incomplete: %s"), self->have_info ? c->err.msg : "");
  else if (!c->assembled)
    self->status = g_strdup_printf(_("Cannot assemble (max |Φ| %.2g): %s"), c->residual, c->err.msg);
  else if (c->nredundant > 0)
    self->status = g_strdup_printf(_("%d DOF · %d redundant equation(s) (joints ringed)"), c->dof, c->nredundant);
  else if (c->dof != c->dof_driven)
    self->status = g_strdup_printf(_("%d DOF, %d left by the motors · assembled"), c->dof, c->dof_driven);
  else
    self->status = g_strdup_printf(_("%d DOF · assembled"), c->dof);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->status, -1);
}

/* the beams' centre lines as lw_scene_beams gives them: from the live
 * check's configuration when it compiled the beams, else straight from
 * start to end as the description gives them */
static void beam_lines(LwEditor *self, const lw_check_result *check)
{
  const lw_desc *d = self->doc;
  g_clear_pointer(&self->bpts, g_free);
  self->nbpts = 0;
  if (check && check->model && check->data && lw_model_desc(check->model)->nbeams == d->nbeams) {
    self->nbpts = lw_scene_beam_points(check->model);
    self->bpts = g_new0(double, 4 * (gsize)self->nbpts + 1);
    lw_scene_beams(check->model, check->data, self->bpts);
    return;
  }
  for (int k = 0; k < d->nbeams; k++)
    self->nbpts += MAX(d->beams[k].nel, 1) * LW_BEAM_DRAW_PER_ELEMENT + 1;
  self->bpts = g_new0(double, 4 * (gsize)self->nbpts + 1);
  double *p = self->bpts;
  for (int k = 0; k < d->nbeams; k++) {
    const lw_beam_desc *bd = &d->beams[k];
    double A = 0, I = 0;
    double rad = lw_beam_section(bd, &A, &I) == 0 ? sqrt(A / G_PI) : 0.01;
    int n = MAX(bd->nel, 1) * LW_BEAM_DRAW_PER_ELEMENT;
    for (int j = 0; j <= n; j++, p += 4) {
      for (int i = 0; i < 3; i++)
        p[i] = bd->start[i] + (bd->end[i] - bd->start[i]) * j / n;
      p[3] = j == 0 ? -rad : rad;
    }
  }
}

/* the first point of beam k in self->bpts (NULL: none), and its count */
static const double *beam_line(LwEditor *self, int k, int *n)
{
  int beam = -1, first = -1;
  *n = 0;
  for (int i = 0; i < self->nbpts; i++) {
    if (i == 0 || self->bpts[4 * i + 3] < 0)
      beam++;
    if (beam == k) {
      first = first < 0 ? i : first;
      (*n)++;
    }
  }
  return first >= 0 ? self->bpts + 4 * first : NULL;
}

/* The view draws the bodies where the editor picks them: at the model's
 * assembled pose.  A run may have left the view at a later frame; editing
 * acts on the description, whose pose is the initial one, so the view
 * returns to it (joints: njoints x 6 from lw_scene_geometry). */
static void show_model_pose(LwEditor *self, const double *joints)
{
  if (!self->view)
    return;
  lw_render_state rs = {0,    self->nbodies, self->pose, self->njoints, joints,      self->nforces, self->fpos,
                        NULL, 0,             NULL,       self->nbpts,   self->bpts, NULL};
  /* the contacts' planes and the joint limits, as in a run */
  double *marks = NULL;
  if (self->doc && self->doc->nevents && joints && self->nbodies == self->doc->nbodies) {
    marks = g_new0(double, LW_RENDER_MARK_DOUBLES * (gsize)lw_event_marks_max(self->doc));
    rs.nmarks = lw_event_marks_fill(self->doc, self->pose, joints, lw_event_marks_size(self->nbodies, self->pose),
                                    marks);
    rs.marks = marks;
  }
  lw_view3d_set_state(self->view, &rs);
  g_free(marks);
}

void lw_editor_set_document(LwEditor *self, const lw_desc *doc, const lw_check_result *check)
{
  g_return_if_fail(LW_IS_EDITOR(self));
  lw_desc_free(self->doc);
  self->doc = doc ? lw_desc_copy(doc) : lw_desc_new();
  const lw_desc *d = self->doc;
  self->nbodies = d->nbodies;
  self->njoints = d->njoints;
  self->nforces = d->nforces;
  g_free(self->pose);
  g_free(self->jpos);
  g_free(self->jstate);
  g_clear_pointer(&self->fpos, g_free);
  beam_lines(self, check);
  self->pose = g_new0(double, 12 * (gsize)d->nbodies + 1);
  self->jpos = g_new0(double, 3 * (gsize)d->njoints + 1);
  self->jstate = g_new0(int, (gsize)d->njoints + 1);
  gboolean from_check = check && check->model && check->data && lw_model_nbodies(check->model) == d->nbodies &&
                        lw_model_njoints(check->model) == d->njoints;
  for (int b = 0; b < d->nbodies; b++) {
    double *o = self->pose + 12 * b, *R = o + 3;
    if (from_check)
      lw_body_pose(check->model, check->data, b, o, R);
    else
      lw_editor_guess_pose(d, b, o, R);
  }
  if (from_check) {
    double *jg = g_new0(double, 6 * (gsize)d->njoints + 1);
    self->fpos = g_new0(double, 6 * (gsize)d->nforces + 1);
    lw_scene_geometry(check->model, check->data, jg, self->fpos);
    for (int j = 0; j < d->njoints; j++)
      memcpy(self->jpos + 3 * j, jg + 6 * j, 3 * sizeof(double));
    if (gtk_widget_get_visible(GTK_WIDGET(self)))
      show_model_pose(self, jg);
    g_free(jg);
  } else
    for (int j = 0; j < d->njoints; j++) {
      const lw_joint_desc *jd = &d->joints[j];
      int b1 = body_index(d, jd->body[0]), b2 = body_index(d, jd->body[1]);
      if (jd->has_at)
        memcpy(self->jpos + 3 * j, jd->at, 3 * sizeof(double));
      else if (b1 >= -1 && (jd->has_place[0] || jd->place[0].ref))
        body_world(self, b1, place_local(d, b1, &jd->place[0]), self->jpos + 3 * j);
      else if (b2 >= -1)
        body_world(self, b2, place_local(d, b2, &jd->place[1]), self->jpos + 3 * j);
    }
  self->have_info = check != NULL;
  memset(&self->info, 0, sizeof self->info);
  if (check) {
    self->info = *check;
    self->info.joint_state = NULL;
    self->info.q = NULL;
    self->info.model = NULL;
    self->info.data = NULL;
    for (int j = 0; j < d->njoints && j < check->njoints; j++)
      self->jstate[j] = check->joint_state[j];
  }
  /* snapping targets: every named point of every body, and the ground's
   * joint and spring places */
  clear_anchors(self);
  for (int b = 0; b < d->nbodies; b++)
    for (int k = 0; k < d->bodies[b].npoints; k++) {
      double w[3];
      body_world(self, b, d->bodies[b].points[k].p, w);
      add_anchor(self, b, d->bodies[b].points[k].name, w, ANCHOR_POINT, k, 0);
    }
  for (int j = 0; j < d->njoints; j++) {
    const lw_joint_desc *jd = &d->joints[j];
    for (int k = 0; k < 2; k++)
      if (body_index(d, jd->body[k]) == -1 && (jd->has_place[k] || jd->has_at)) {
        double w[3];
        memcpy(w, jd->has_place[k] ? jd->place[k].p : jd->at, sizeof w);
        add_anchor(self, -1, NULL, w, ANCHOR_JOINT, j, k);
      }
  }
  for (int f = 0; f < d->nforces; f++) {
    const lw_force_desc *fd = &d->forces[f];
    if (fd->type == LW_FORCE_SPRING_DAMPER)
      for (int k = 0; k < 2; k++)
        if (body_index(d, fd->body[k]) == -1)
          add_anchor(self, -1, NULL, fd->place[k].p, ANCHOR_SPRING, f, k);
  }
  /* the ends of the beams, where they are drawn */
  for (int k = 0; k < d->nbeams; k++) {
    int n = 0;
    const double *p = beam_line(self, k, &n);
    if (!p)
      continue;
    add_anchor(self, -1, NULL, p, ANCHOR_BEAM, k, 0);
    add_anchor(self, -1, NULL, p + 4 * (n - 1), ANCHOR_BEAM, k, 1);
  }
  update_status(self);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

void lw_editor_guess_pose(const lw_desc *d, int b, double o[3], double R[9])
{
  const lw_body_desc *bd = &d->bodies[b];
  memcpy(o, bd->position, 3 * sizeof(double));
  if (d->planar) {
    double c = cos(bd->angle), s = sin(bd->angle);
    double Rp[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, Rp, sizeof Rp);
    o[2] = 0;
  } else
    quat_to_R(bd->orientation, R);
}

/* ---- edits ------------------------------------------------------------- */
static void refuse(LwEditor *self, const char *msg)
{
  g_free(self->message);
  self->message = g_strdup(msg);
  g_signal_emit(self, signals[SIGNAL_MESSAGE], 0, msg);
}

static void emit_edit(LwEditor *self, lw_desc *d, const char *what)
{
  g_clear_pointer(&self->message, g_free);
  g_signal_emit(self, signals[SIGNAL_EDIT], 0, d, what);
}

lw_desc *lw_editor_new_document(gboolean planar)
{
  lw_desc *d = lw_desc_new();
  d->planar = planar ? 1 : 0;
  d->gravity[0] = d->gravity[2] = 0;
  d->gravity[1] = -9.81;
  return d;
}

static const double *next_color(const lw_desc *d)
{
  return palette_colors[d->nbodies % G_N_ELEMENTS(palette_colors)];
}

/* a uniform bar of length L along the body x axis from its origin */
static lw_body_desc *add_bar(lw_desc *d, const char *name, double L)
{
  lw_body_desc *b = lw_desc_add_body(d, name);
  double m = LW_LINK_DENSITY * L, u[3] = {1, 0, 0};
  b->mass = m;
  b->com[0] = 0.5 * L;
  lw_bar_inertia(d->planar, m, L, u, b->inertia);
  double p0[3] = {0, 0, 0}, p1[3] = {L, 0, 0};
  lw_body_add_point(b, "start", p0);
  lw_body_add_point(b, "end", p1);
  lw_geom_desc *g = lw_body_add_geom(b, LW_GEOM_BAR);
  memcpy(g->to, p1, sizeof p1);
  g->size[0] = LW_LINK_WIDTH;
  memcpy(g->color, next_color(d), 3 * sizeof(double));
  return b;
}

/* a new link from world point a to world point b */
static gboolean make_link(LwEditor *self, const double a[3], const double bw[3])
{
  double dv[3] = {bw[0] - a[0], bw[1] - a[1], bw[2] - a[2]};
  double L = sqrt(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]);
  if (L < 1e-6) {
    refuse(self, _("A link needs two different end points: drag from one point to another"));
    return FALSE;
  }
  lw_desc *d = lw_desc_copy(self->doc);
  char name[64];
  lw_desc_unique_name(d, "link", name, sizeof name);
  const double *color = next_color(d);
  lw_body_desc *b = add_bar(d, name, L);
  memcpy(b->geoms[0].color, color, 3 * sizeof(double));
  memcpy(b->position, a, 3 * sizeof(double));
  if (d->planar) {
    b->position[2] = 0;
    b->angle = atan2(dv[1], dv[0]);
  } else {
    double u[3] = {dv[0] / L, dv[1] / L, dv[2] / L};
    quat_from_x(u, b->orientation);
  }
  g_autofree char *what = g_strdup_printf(_("Draw link %s"), name);
  emit_edit(self, d, what);
  return TRUE;
}

/* a new beam from world point a to world point b: LW_EDITOR_BEAM_ELEMENTS
 * elements of steel (E 210 GPa, 7850 kg/m^3) with a 20 mm square section,
 * each changed afterwards on its page */
static gboolean make_beam(LwEditor *self, const double a[3], const double bw[3])
{
  double dv[3] = {bw[0] - a[0], bw[1] - a[1], bw[2] - a[2]};
  if (sqrt(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]) < 1e-6) {
    refuse(self, _("A beam needs two different end points: drag from one point to another"));
    return FALSE;
  }
  lw_desc *d = lw_desc_copy(self->doc);
  char name[64];
  lw_desc_unique_name(d, "beam", name, sizeof name);
  lw_beam_desc *b = lw_desc_add_beam(d, name, LW_EDITOR_BEAM_ELEMENTS);
  memcpy(b->start, a, sizeof b->start);
  memcpy(b->end, bw, sizeof b->end);
  if (d->planar)
    b->start[2] = b->end[2] = 0;
  b->young = 2.1e11;
  b->density = 7850;
  b->section = LW_SECTION_RECTANGLE;
  b->size[0] = b->size[1] = 0.02;
  g_autofree char *what = g_strdup_printf(_("Draw beam %s"), name);
  emit_edit(self, d, what);
  return TRUE;
}

/* a box, cylinder or sphere of 1 kg centred at w */
static gboolean make_solid(LwEditor *self, const char *kind, const double w[3])
{
  lw_desc *d = lw_desc_copy(self->doc);
  char name[64];
  lw_desc_unique_name(d, kind, name, sizeof name);
  const double *color = next_color(d);
  lw_body_desc *b = lw_desc_add_body(d, name);
  double m = 1.0;
  b->mass = m;
  memcpy(b->position, w, 3 * sizeof(double));
  double zero[3] = {0, 0, 0};
  lw_body_add_point(b, "centre", zero);
  lw_geom_desc *g;
  if (!strcmp(kind, "box")) {
    double hx = 0.15, hy = 0.1, hz = 0.1;
    g = lw_body_add_geom(b, LW_GEOM_BOX);
    g->size[0] = hx, g->size[1] = hy, g->size[2] = hz;
    b->inertia[0] = m / 3 * (hy * hy + hz * hz);
    b->inertia[1] = m / 3 * (hx * hx + hz * hz);
    b->inertia[2] = m / 3 * (hx * hx + hy * hy);
  } else if (!strcmp(kind, "cylinder")) {
    double r = 0.1, h = 0.3;
    g = lw_body_add_geom(b, LW_GEOM_CYLINDER);
    g->from[0] = -0.5 * h, g->to[0] = 0.5 * h;
    g->size[0] = r;
    b->inertia[0] = 0.5 * m * r * r;
    b->inertia[1] = b->inertia[2] = m * (3 * r * r + h * h) / 12;
  } else {
    double r = 0.1;
    g = lw_body_add_geom(b, LW_GEOM_SPHERE);
    g->size[0] = r;
    b->inertia[0] = b->inertia[1] = b->inertia[2] = 0.4 * m * r * r;
  }
  memcpy(g->color, color, 3 * sizeof(double));
  if (d->planar) {
    b->position[2] = 0;
    b->inertia[0] = b->inertia[1] = 0;
  }
  g_autofree char *what = g_strdup_printf(_("Add %s"), name);
  emit_edit(self, d, what);
  return TRUE;
}

typedef struct {
  int body;          /* -1 ground (or a beam) */
  const char *point; /* named point, or NULL (literal local) */
  double w[3];       /* world */
  int beam1;         /* a beam's end: the beam's index + 1 (0: not a beam) */
  double s;          /* a beam's end: its arc length from the start */
} Attach;

/* which element an attachment is on, for comparing two: the bodies' indices,
 * then the beams' after them; -1 the ground */
static int attach_key(const LwEditor *self, const Attach *a)
{
  return a->beam1 ? self->doc->nbodies + a->beam1 - 1 : a->body;
}

/* the name of the body, beam or ground an attachment is on (in d) */
static const char *attach_name(const lw_desc *d, const Attach *a)
{
  return a->beam1 ? d->beams[a->beam1 - 1].name : a->body < 0 ? "ground" : d->bodies[a->body].name;
}

/* the length of beam k of the document */
static double beam_length(const lw_desc *d, int k)
{
  const double *a = d->beams[k].start, *b = d->beams[k].end;
  return sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
}

/* what lies under (x, y): a named point of a body (nearest first), a body's
 * shape, or nothing; up to n distinct bodies, the earliest body first */
static int attachments(LwEditor *self, double x, double y, Attach *out, int n)
{
  int k = 0;
  /* named points: nearest per body */
  double best[64];
  for (int i = 0; i < 64; i++)
    best[i] = SNAP_PX;
  for (guint i = 0; i < self->anchors->len; i++) {
    const Anchor *a = &g_array_index(self->anchors, Anchor, i);
    gboolean beam = a->kind == ANCHOR_BEAM;
    if (a->body < 0 && !beam)
      continue;
    double ax, ay;
    if (!lw_editor_world_to_view(self, a->w, &ax, &ay))
      continue;
    double dd = hypot(ax - x, ay - y);
    Attach c = {a->body, a->point, {a->w[0], a->w[1], a->w[2]}, 0, 0};
    if (beam) {
      c.beam1 = a->index + 1;
      c.s = a->side ? beam_length(self->doc, a->index) : 0;
    }
    int slot = -1;
    for (int j = 0; j < k; j++)
      if (attach_key(self, &out[j]) == attach_key(self, &c))
        slot = j;
    if (slot < 0 && k < n && dd < SNAP_PX)
      slot = k++;
    if (slot >= 0 && dd < best[slot]) {
      best[slot] = dd;
      out[slot] = c;
    }
  }
  if (k == 0) {
    int b = body_under(self, x, y);
    double P[3];
    if (b >= 0 && lw_editor_snap(self, x, y, P))
      out[k++] = (Attach){b, NULL, {P[0], P[1], P[2]}, 0, 0};
  }
  /* earliest body first, beams after the bodies */
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++)
      if (attach_key(self, &out[j]) < attach_key(self, &out[i])) {
        Attach t = out[i];
        out[i] = out[j];
        out[j] = t;
      }
  return k;
}

static void set_place(LwEditor *self, lw_place *pl, int *has, const Attach *a)
{
  if (a->beam1) { /* a place on a beam is its arc length, [s, 0, 0] */
    lw_place_set_ref(pl, NULL);
    pl->p[0] = a->s, pl->p[1] = pl->p[2] = 0;
  } else if (a->point) {
    lw_place_set_ref(pl, a->point);
  } else {
    lw_place_set_ref(pl, NULL);
    body_local(self, a->body, a->w, pl->p);
  }
  if (has)
    *has = 1;
}

static const char *joint_prefix(lw_joint_type t)
{
  static const char *const p[LW_JOINT_NTYPES] = {"pin", "slider", "ball", "cylindrical", "universal", "planar", "weld"};
  return p[t];
}

/* a joint on a beam holds a place of it: a pin (planar), a ball (spatial)
 * or a weld, and never joins two beams by a pin (docs/model-format.md,
 * joints on a beam); FALSE (and "message") for another */
static gboolean beam_joint_allowed(LwEditor *self, lw_joint_type type, const Attach *a1, const Attach *a2)
{
  gboolean planar = self->doc->planar;
  if (type == LW_JOINT_FIXED || (planar && type == LW_JOINT_REVOLUTE) || (!planar && type == LW_JOINT_SPHERICAL)) {
    if (type == LW_JOINT_REVOLUTE && a1->beam1 && a2->beam1) {
      refuse(self, _("A pin cannot join two beams: weld them, or pin each to a link"));
      return FALSE;
    }
    return TRUE;
  }
  refuse(self, planar ? _("A joint on a beam end is a pin or a weld")
                      : _("A joint on a beam end is a ball or a weld"));
  return FALSE;
}

/* the unit vector from beam k's start to its end */
static void beam_direction(const lw_desc *d, int k, double u[3])
{
  double L = beam_length(d, k);
  for (int i = 0; i < 3; i++)
    u[i] = L > 0 ? (d->beams[k].end[i] - d->beams[k].start[i]) / L : i == 0;
}

static gboolean make_joint(LwEditor *self, lw_joint_type type, double x, double y, gboolean anchor)
{
  const lw_desc *doc = self->doc;
  if (doc->planar && type != LW_JOINT_REVOLUTE && type != LW_JOINT_PRISMATIC && type != LW_JOINT_FIXED) {
    g_autofree char *msg = g_strdup_printf(_("A %s joint has no meaning in a planar model (use a pin, a slider or "
                                             "a weld)"),
                                           lw_joint_type_name(type));
    refuse(self, msg);
    return FALSE;
  }
  Attach at[2];
  int n = attachments(self, x, y, at, 2);
  if (n == 0) {
    refuse(self, anchor ? _("Drop the anchor on a body") : _("Drop the joint on a link or a body: nothing lies under it"));
    return FALSE;
  }
  Attach a1, a2;
  if (n == 1 || anchor) {
    a2 = at[0];
    a1 = (Attach){-1, NULL, {a2.w[0], a2.w[1], a2.w[2]}, 0, 0};
  } else {
    a1 = at[0];
    a2 = at[1];
  }
  if (attach_key(self, &a1) == attach_key(self, &a2)) {
    refuse(self, _("A joint cannot join a body to itself"));
    return FALSE;
  }
  if ((a1.beam1 || a2.beam1) && !beam_joint_allowed(self, type, &a1, &a2))
    return FALSE;
  lw_desc *d = lw_desc_copy(doc);
  char name[64];
  lw_desc_unique_name(d, anchor ? "anchor" : joint_prefix(type), name, sizeof name);
  const char *b1 = attach_name(d, &a1);
  const char *b2 = attach_name(d, &a2);
  lw_joint_desc *j = lw_desc_add_joint(d, name, type, b1, b2);
  double th1 = body_angle(self, a1.body), th2 = body_angle(self, a2.body);
  if (d->planar) {
    /* the ground's place is the global point itself */
    Attach g1 = a1;
    if (a1.body < 0)
      g1.w[2] = 0;
    set_place(self, &j->place[0], &j->has_place[0], &g1);
    set_place(self, &j->place[1], &j->has_place[1], &a2);
    if (type == LW_JOINT_PRISMATIC) {
      /* slide along the line of body 2 (a drawn link's start-to-end) */
      double s = th2;
      j->angle[0] = remainder(s - th1, 2 * G_PI);
      j->angle[1] = 0;
    } else if (type == LW_JOINT_FIXED) {
      j->angle[0] = remainder(th2 - th1, 2 * G_PI);
      j->angle[1] = 0;
    }
  } else {
    j->has_at = 1;
    memcpy(j->at, a2.w, sizeof j->at);
    double nrm[3] = {0, 0, 0};
    nrm[self->plane_axis] = 1;
    double line[3] = {1, 0, 0};
    if (a2.beam1)
      beam_direction(doc, a2.beam1 - 1, line);
    else {
      const double *R2 = self->pose + 12 * a2.body + 3;
      line[0] = R2[0], line[1] = R2[3], line[2] = R2[6];
    }
    j->has_gaxis = 1;
    memcpy(j->gaxis, type == LW_JOINT_PRISMATIC ? line : nrm, sizeof j->gaxis);
    if (type == LW_JOINT_UNIVERSAL) {
      j->has_gaxis2 = 1;
      /* the second axis in the work plane, across the link */
      double c[3] = {nrm[1] * line[2] - nrm[2] * line[1], nrm[2] * line[0] - nrm[0] * line[2],
                     nrm[0] * line[1] - nrm[1] * line[0]};
      double l = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
      if (l < 1e-9)
        c[0] = 1, l = 1;
      for (int i = 0; i < 3; i++)
        j->gaxis2[i] = c[i] / l;
    }
  }
  g_autofree char *what = g_strdup_printf(_("Add joint %s (%s, %s – %s)"), name, lw_joint_type_name(type), b1, b2);
  emit_edit(self, d, what);
  return TRUE;
}

/* the current value of a joint coordinate at the configuration shown */
static double joint_coordinate_now(LwEditor *self, const char *joint)
{
  lw_desc *t = lw_desc_copy(self->doc);
  lw_output_desc *o = lw_desc_add_output(t, "__coordinate", LW_OUT_JOINT_COORDINATE);
  o->joint = strdup(joint);
  lw_error err;
  double v = 0;
  lw_model *m = lw_compile(t, &err);
  if (m) {
    lw_data *dd = lw_data_new(m);
    /* at the configuration shown: assembled, or as close as assembly got */
    lw_initialize(m, dd, &err);
    int nc = lw_model_output_columns(m);
    double *out = g_new0(double, nc + 1);
    lw_outputs(m, dd, out);
    v = out[nc - 1];
    g_free(out);
    lw_data_free(dd);
    lw_model_free(m);
  }
  lw_desc_free(t);
  return v;
}

static gboolean make_motor(LwEditor *self, double x, double y)
{
  int j = joint_near(self, x, y);
  if (j < 0) {
    refuse(self, _("Drop the motor on a pin or a slider"));
    return FALSE;
  }
  const lw_joint_desc *jd = &self->doc->joints[j];
  int revolute = jd->type == LW_JOINT_REVOLUTE || jd->type == LW_JOINT_CYLINDRICAL;
  if (!revolute && jd->type != LW_JOINT_PRISMATIC) {
    g_autofree char *msg = g_strdup_printf(_("A motor drives a pin or a slider; %s is a %s joint"), jd->name,
                                           lw_joint_type_name(jd->type));
    refuse(self, msg);
    return FALSE;
  }
  for (int k = 0; k < self->doc->ndrivers; k++)
    if (!g_strcmp0(self->doc->drivers[k].joint, jd->name)) {
      g_autofree char *msg = g_strdup_printf(_("Joint %s already has a motor (%s)"), jd->name, self->doc->drivers[k].name);
      refuse(self, msg);
      return FALSE;
    }
  /* the cylindrical joint's angle is coordinate 1 */
  int coord = jd->type == LW_JOINT_CYLINDRICAL ? 1 : 0;
  double x0 = joint_coordinate_now(self, jd->name);
  lw_desc *d = lw_desc_copy(self->doc);
  char name[64];
  lw_desc_unique_name(d, "motor", name, sizeof name);
  lw_driver_desc *r = lw_desc_add_driver(d, name, jd->name, coord);
  r->func.type = LW_FUNC_LINEAR;
  r->func.n = 2;
  r->func.a[0] = x0;
  r->func.a[1] = jd->type == LW_JOINT_PRISMATIC ? 0.1 : 2 * G_PI; /* 0.1 m/s or one turn a second */
  /* the motor fixes the coordinate: an initial condition on it would fight it */
  for (int k = d->ninitial - 1; k >= 0; k--)
    if (!g_strcmp0(d->initial[k].joint, jd->name) && d->initial[k].coordinate == coord) {
      free(d->initial[k].joint);
      memmove(d->initial + k, d->initial + k + 1, sizeof *d->initial * (size_t)(d->ninitial - k - 1));
      d->ninitial--;
    }
  g_autofree char *what = g_strdup_printf(_("Add motor %s on %s"), name, jd->name);
  emit_edit(self, d, what);
  return TRUE;
}

/* one end of a spring: a body's point (or shape) under (x, y), else the ground */
static Attach spring_end(LwEditor *self, double x, double y, gboolean *ok)
{
  Attach a[1];
  if (attachments(self, x, y, a, 1) == 1)
    return a[0];
  Attach g = {-1, NULL, {0, 0, 0}, 0, 0};
  *ok = lw_editor_snap(self, x, y, g.w);
  return g;
}

static gboolean make_spring(LwEditor *self, const Attach *e1, const Attach *e2)
{
  double dv[3] = {e2->w[0] - e1->w[0], e2->w[1] - e1->w[1], e2->w[2] - e1->w[2]};
  double L = sqrt(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]);
  if (L < 1e-6) {
    refuse(self, _("A spring needs two different end points"));
    return FALSE;
  }
  if (attach_key(self, e1) == attach_key(self, e2)) {
    refuse(self, attach_key(self, e1) < 0 ? _("A spring between two ground points does nothing: attach one end to a body")
                                          : _("A spring between two points of the same body does nothing"));
    return FALSE;
  }
  lw_desc *d = lw_desc_copy(self->doc);
  char name[64];
  lw_desc_unique_name(d, "spring", name, sizeof name);
  lw_force_desc *f = lw_desc_add_force(d, name, LW_FORCE_SPRING_DAMPER);
  const Attach *e[2] = {e1, e2};
  for (int k = 0; k < 2; k++) {
    f->body[k] = strdup(attach_name(d, e[k]));
    set_place(self, &f->place[k], NULL, e[k]);
    if (d->planar)
      f->place[k].p[2] = 0;
  }
  f->stiffness = 100;
  f->damping = 1;
  f->rest = L; /* unstressed where it is drawn */
  g_autofree char *what = g_strdup_printf(_("Add spring %s"), name);
  emit_edit(self, d, what);
  return TRUE;
}

static gboolean make_load(LwEditor *self, gboolean torque, double x, double y)
{
  Attach a[1];
  if (attachments(self, x, y, a, 1) != 1) {
    refuse(self, torque ? _("Drop the torque on a body") : _("Drop the force on a point of a body"));
    return FALSE;
  }
  if (torque && a[0].beam1) {
    refuse(self, _("A beam takes no torque: drop a force on its end, or the torque on a body"));
    return FALSE;
  }
  lw_desc *d = lw_desc_copy(self->doc);
  char name[64];
  lw_desc_unique_name(d, torque ? "torque" : "force", name, sizeof name);
  lw_force_desc *f = lw_desc_add_force(d, name, torque ? LW_FORCE_TORQUE : LW_FORCE_FORCE);
  f->body[0] = strdup(attach_name(d, &a[0]));
  if (torque) {
    f->vector[2] = 1; /* N m about z (planar) or the global z axis */
  } else {
    set_place(self, &f->place[0], NULL, &a[0]);
    if (d->planar)
      f->place[0].p[2] = 0;
    f->vector[0] = 10; /* N along x */
  }
  f->func.type = LW_FUNC_CONSTANT;
  f->func.n = 1;
  f->func.a[0] = 1;
  g_autofree char *what = g_strdup_printf(_("Add %s %s on %s"), torque ? _("torque") : _("force"), name,
                                          attach_name(d, &a[0]));
  emit_edit(self, d, what);
  return TRUE;
}

gboolean lw_editor_drop(LwEditor *self, const char *id, double x, double y)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), FALSE);
  const LwPaletteItem *it = lw_palette_item_find(id);
  if (!it) {
    g_autofree char *msg = g_strdup_printf(_("Unknown palette item '%s'"), id ? id : "");
    refuse(self, msg);
    return FALSE;
  }
  double P[3];
  if (!lw_editor_snap(self, x, y, P)) {
    refuse(self, _("Drop it on the work plane"));
    return FALSE;
  }
  if (!strcmp(id, "link")) {
    /* one metre along the plane's first direction */
    double Q[3] = {P[0], P[1], P[2]};
    int ax = dim(self) == 2 ? 2 : self->plane_axis;
    Q[ax == 0 ? 1 : 0] += 1.0;
    return make_link(self, P, Q);
  }
  if (!strcmp(id, "box") || !strcmp(id, "cylinder") || !strcmp(id, "sphere"))
    return make_solid(self, id, P);
  if (!strcmp(id, "anchor"))
    return make_joint(self, LW_JOINT_FIXED, x, y, TRUE);
  if (it->kind == LW_ITEM_JOINT)
    return make_joint(self, (lw_joint_type)lw_joint_type_from_name(id), x, y, FALSE);
  if (!strcmp(id, "motor"))
    return make_motor(self, x, y);
  if (!strcmp(id, "torque") || !strcmp(id, "force"))
    return make_load(self, !strcmp(id, "torque"), x, y);
  if (!strcmp(id, "spring")) {
    gboolean ok = TRUE;
    Attach e1 = spring_end(self, x, y, &ok);
    /* the other end on the ground, half a metre above */
    Attach e2 = {-1, NULL, {e1.w[0], e1.w[1] + 0.5, e1.w[2]}, 0, 0};
    return ok && make_spring(self, &e1, &e2);
  }
  return FALSE;
}

gboolean lw_editor_stroke(LwEditor *self, const char *tool, double x0, double y0, double x1, double y1)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), FALSE);
  if (!g_strcmp0(tool, "spring")) {
    gboolean ok0 = TRUE, ok1 = TRUE;
    Attach e1 = spring_end(self, x0, y0, &ok0), e2 = spring_end(self, x1, y1, &ok1);
    if (!ok0 || !ok1) {
      refuse(self, _("Draw the spring on the work plane"));
      return FALSE;
    }
    return make_spring(self, &e1, &e2);
  }
  gboolean beam = !g_strcmp0(tool, "beam");
  double a[3], b[3];
  if (!lw_editor_snap(self, x0, y0, a) || !lw_editor_snap(self, x1, y1, b)) {
    refuse(self, beam ? _("Draw the beam on the work plane") : _("Draw the link on the work plane"));
    return FALSE;
  }
  return beam ? make_beam(self, a, b) : make_link(self, a, b);
}

void lw_editor_click(LwEditor *self, double x, double y)
{
  g_return_if_fail(LW_IS_EDITOR(self));
  int j = joint_near(self, x, y);
  g_autofree char *path = NULL;
  double jx, jy;
  if (j >= 0 && lw_editor_world_to_view(self, self->jpos + 3 * j, &jx, &jy) && hypot(jx - x, jy - y) <= SNAP_PX)
    path = g_strconcat("joints/", self->doc->joints[j].name, NULL);
  if (!path) {
    int b = body_under(self, x, y);
    if (b >= 0)
      path = g_strconcat("bodies/", self->doc->bodies[b].name, NULL);
  }
  if (!path) {
    int k = beam_under(self, x, y);
    if (k >= 0)
      path = g_strconcat("beams/", self->doc->beams[k].name, NULL);
  }
  if (!path && self->fpos)
    for (int f = 0; f < self->nforces && !path; f++) {
      const lw_force_desc *fd = &self->doc->forces[f];
      if (fd->type == LW_FORCE_SPRING_DAMPER && seg_dist_px(self, self->fpos + 6 * f, self->fpos + 6 * f + 3, x, y) <= SNAP_PX)
        path = g_strconcat("forces/", fd->name, NULL);
    }
  lw_view3d_set_selection(self->view, path);
}

/* ---- moving points ---------------------------------------------------- */
static gboolean is_moving_tool(LwEditor *self)
{
  return self->palette && !g_strcmp0(lw_palette_get_stroke_tool(self->palette), "move");
}

/* the Measure tool's clicks go to the view's dimensions (lw-measure-overlay.h) */
static gboolean is_measure_tool(LwEditor *self)
{
  return self->palette && !g_strcmp0(lw_palette_get_stroke_tool(self->palette), "measure");
}

/* anchor a (a body's named point, a ground place of a joint or spring, or
 * a beam's end: the beam's straight initial shape follows it) moved to
 * world point w */
static gboolean move_anchor(LwEditor *self, const Anchor *a, const double w0[3])
{
  double w[3] = {w0[0], w0[1], w0[2]};
  if (dim(self) == 2)
    w[2] = 0;
  lw_desc *d = lw_desc_copy(self->doc);
  g_autofree char *what = NULL;
  if (a->kind == ANCHOR_POINT) {
    const lw_body_desc *b = &d->bodies[a->body];
    double local[3];
    body_local(self, a->body, w, local);
    what = g_strdup_printf(_("Move point %s.%s"), b->name, b->points[a->index].name);
    if (lw_desc_move_point(d, a->body, a->index, local) < 0) {
      lw_desc_free(d);
      return FALSE;
    }
  } else if (a->kind == ANCHOR_JOINT) {
    lw_joint_desc *j = &d->joints[a->index];
    if (j->has_place[a->side])
      memcpy(j->place[a->side].p, w, sizeof w);
    else
      memcpy(j->at, w, sizeof w);
    what = g_strdup_printf(_("Move joint %s on the ground"), j->name);
  } else if (a->kind == ANCHOR_BEAM) {
    lw_beam_desc *b = &d->beams[a->index];
    memcpy(a->side ? b->end : b->start, w, sizeof w);
    what = g_strdup_printf(a->side ? _("Move the end of beam %s") : _("Move the start of beam %s"), b->name);
  } else {
    lw_force_desc *f = &d->forces[a->index];
    memcpy(f->place[a->side].p, w, sizeof w);
    what = g_strdup_printf(_("Move spring %s on the ground"), f->name);
  }
  emit_edit(self, d, what);
  return TRUE;
}

/* the anchor a move starting at (x, y) takes: the nearest, except that the
 * selected joint's or spring's ground place wins over a body's point lying
 * at the same place (a pin on the ground and the link end it holds) */
static const Anchor *moved_anchor(LwEditor *self, double x, double y)
{
  const Anchor *a = anchor_near(self, x, y, NULL);
  const char *sel = lw_view3d_get_selection(self->view);
  int idx = -1;
  lw_elem_kind k = sel ? lw_desc_find(self->doc, sel, &idx) : LW_ELEM_NONE;
  if (k != LW_ELEM_JOINT && k != LW_ELEM_FORCE)
    return a;
  for (guint i = 0; i < self->anchors->len; i++) {
    const Anchor *c = &g_array_index(self->anchors, Anchor, i);
    double cx, cy;
    if (c->index == idx && c->kind == (k == LW_ELEM_JOINT ? ANCHOR_JOINT : ANCHOR_SPRING) &&
        lw_editor_world_to_view(self, c->w, &cx, &cy) && hypot(cx - x, cy - y) < SNAP_PX)
      return c;
  }
  return a;
}

/* anchor a to the work-plane point under (x1, y1), snapped */
static gboolean move_to(LwEditor *self, const Anchor *a, double x1, double y1)
{
  double w[3];
  if (!snap_except(self, x1, y1, a, w)) {
    refuse(self, _("Move the point on the work plane"));
    return FALSE;
  }
  if (w[0] == a->w[0] && w[1] == a->w[1] && w[2] == a->w[2])
    return FALSE; /* it stays where it was */
  return move_anchor(self, a, w);
}

gboolean lw_editor_move(LwEditor *self, double x0, double y0, double x1, double y1)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), FALSE);
  const Anchor *a = moved_anchor(self, x0, y0);
  if (!a) {
    refuse(self, _("Start on a point of a body or a pin on the ground to move it"));
    return FALSE;
  }
  return move_to(self, a, x1, y1);
}

/* ---- grab and drag: the mechanism through its assembled positions -------
 * With the move tool, pressing on a body's point or a pin on the ground
 * moves that point (an edit of the geometry); pressing on a link's interior
 * grabs the body there instead: while the button is held the mechanism
 * moves through its assembled positions (lw_drag_solve, the model's drivers
 * left out), the grabbed point following the pointer as closely as the
 * joints allow, and on release the pose becomes the model's initial pose,
 * one undoable edit. */

/* natural coordinates (lw_drag's model) of the editor's poses */
static void poses_to_q(const LwEditor *self, double *q)
{
  for (int b = 0; b < self->nbodies; b++) {
    const double *o = self->pose + 12 * b, *R = o + 3;
    if (dim(self) == 2) {
      double *qb = q + 4 * b;
      qb[0] = o[0], qb[1] = o[1], qb[2] = R[0], qb[3] = R[3];
    } else {
      double *qb = q + 12 * b;
      for (int i = 0; i < 3; i++) {
        qb[i] = o[i];
        qb[3 + i] = R[3 * i];
        qb[6 + i] = R[3 * i + 1];
        qb[9 + i] = R[3 * i + 2];
      }
    }
  }
}

/* the editor's poses, handles and the view follow the drag's pose */
static void show_drag_pose(LwEditor *self)
{
  const lw_model *m = lw_drag_model(self->kdrag);
  lw_data_set_state(m, self->kdata, 0, lw_drag_q(self->kdrag), NULL, NULL, NULL);
  for (int b = 0; b < self->nbodies; b++)
    lw_body_pose(m, self->kdata, b, self->pose + 12 * b, self->pose + 12 * b + 3);
  double *jg = g_new0(double, 6 * (gsize)self->njoints + 1);
  if (!self->fpos)
    self->fpos = g_new0(double, 6 * (gsize)self->nforces + 1);
  lw_scene_geometry(m, self->kdata, jg, self->fpos);
  for (int j = 0; j < self->njoints; j++)
    memcpy(self->jpos + 3 * j, jg + 6 * j, 3 * sizeof(double));
  for (guint i = 0; i < self->anchors->len; i++) {
    Anchor *a = &g_array_index(self->anchors, Anchor, i);
    if (a->kind == ANCHOR_POINT)
      body_world(self, a->body, self->doc->bodies[a->body].points[a->index].p, a->w);
  }
  show_model_pose(self, jg);
  g_free(jg);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void end_body_drag(LwEditor *self)
{
  g_clear_pointer(&self->kdrag, lw_drag_free);
  g_clear_pointer(&self->kdata, lw_data_free);
}

/* grab the body under (x, y) at the work-plane point there; FALSE when
 * there is none or the model cannot be assembled */
static gboolean begin_body_drag(LwEditor *self, double x, double y)
{
  double w[3];
  int b = body_under(self, x, y);
  if (b < 0 || !plane_point(self, x, y, w))
    return FALSE;
  lw_error err = {0};
  lw_drag *g = lw_drag_new(self->doc, &err);
  if (!g) {
    refuse(self, _("The mechanism cannot be assembled: fix it before dragging it"));
    return FALSE;
  }
  double *q = g_new0(double, (gsize)lw_drag_nq(g) + 1);
  if (lw_model_nbodies(lw_drag_model(g)) == self->nbodies) {
    poses_to_q(self, q);
    lw_drag_set_q(g, q, lw_drag_nq(g));
  }
  g_free(q);
  end_body_drag(self);
  self->kdrag = g;
  self->kdata = lw_data_new(lw_drag_model(g));
  self->kbody = b;
  body_local(self, b, w, self->kpoint);
  return TRUE;
}

/* the grabbed point pulled toward the work-plane point under (x, y) */
static void body_drag_to(LwEditor *self, double x, double y)
{
  double w[3];
  if (!self->kdrag || !plane_point(self, x, y, w))
    return;
  lw_drag_info info;
  lw_drag_solve(self->kdrag, self->kbody, self->kpoint, w, &info);
  show_drag_pose(self);
}

/* the pose reached becomes the model's initial pose: one edit */
static void finish_body_drag(LwEditor *self)
{
  lw_desc *d = lw_desc_copy(self->doc);
  if (lw_drag_store(self->kdrag, d) == 0)
    emit_edit(self, d, _("Drag the mechanism"));
  else
    lw_desc_free(d);
  end_body_drag(self);
}

gboolean lw_editor_drag_body(LwEditor *self, double x0, double y0, double x1, double y1)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), FALSE);
  if (!begin_body_drag(self, x0, y0))
    return FALSE;
  body_drag_to(self, x1, y1);
  finish_body_drag(self);
  return TRUE;
}

/* ---- pointer ------------------------------------------------------------ */
/* a simulation runs in this window: Ctrl+drag pulls it (as outside
 * editing mode) rather than editing */
static gboolean simulation_running(LwEditor *self)
{
  GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(self->view));
  LwSimRunner *r = LW_IS_WINDOW(root) ? lw_window_get_runner(LW_WINDOW(root)) : NULL;
  return r && lw_sim_runner_get_state(r) == LW_RUNNER_RUNNING;
}

static void drag_begin_cb(GtkGestureDrag *g, double x, double y, LwEditor *self)
{
  self->button = gtk_gesture_single_get_current_button(GTK_GESTURE_SINGLE(g));
  if (!self->button) /* no button event: a stylus or a synthesized stroke */
    self->button = GDK_BUTTON_PRIMARY;
  self->mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));
  self->x0 = self->x1 = x, self->y0 = self->y1 = y;
  self->dragging = self->stroking = FALSE;
  self->moving = 0;
  self->pulling = FALSE;
  if (self->button == GDK_BUTTON_PRIMARY && (self->mods & GDK_CONTROL_MASK) && !(self->mods & GDK_SHIFT_MASK) &&
      simulation_running(self) && lw_view3d_perturbation_grab(self->view, x, y)) {
    self->pulling = TRUE;
    return;
  }
  if (self->button == GDK_BUTTON_PRIMARY && !(self->mods & GDK_SHIFT_MASK) && is_moving_tool(self)) {
    const Anchor *a = moved_anchor(self, x, y);
    if (a)
      self->moving = (int)(a - &g_array_index(self->anchors, Anchor, 0)) + 1;
    else
      begin_body_drag(self, x, y);
  }
  lw_view3d_get_camera(self->view, &self->cam0);
  gtk_widget_grab_focus(GTK_WIDGET(self->view));
}

static void drag_update_cb(GtkGestureDrag *g, double ox, double oy, LwEditor *self)
{
  (void)g;
  if (self->pulling) {
    lw_view3d_perturbation_pull(self->view, ox, oy);
    return;
  }
  if (!self->dragging && hypot(ox, oy) < CLICK_PX)
    return;
  self->dragging = TRUE;
  self->x1 = self->x0 + ox, self->y1 = self->y0 + oy;
  gboolean shift = (self->mods & GDK_SHIFT_MASK) != 0;
  if (self->moving) {
    gtk_widget_queue_draw(GTK_WIDGET(self));
    return;
  }
  if (self->kdrag) {
    body_drag_to(self, self->x1, self->y1);
    return;
  }
  if (self->button == GDK_BUTTON_PRIMARY && !shift && !is_moving_tool(self) && !is_measure_tool(self)) {
    self->stroking = TRUE;
    gtk_widget_queue_draw(GTK_WIDGET(self));
    return;
  }
  lw_camera cam = self->cam0;
  int w, h;
  view_size(self, &w, &h);
  if (self->button == GDK_BUTTON_SECONDARY && dim(self) == 3)
    lw_camera_orbit(&cam, -ox * 0.008, oy * 0.008);
  else
    lw_camera_pan(&cam, ox, oy, w, h);
  lw_view3d_set_camera(self->view, &cam);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void drag_end_cb(GtkGestureDrag *g, double ox, double oy, LwEditor *self)
{
  (void)g;
  if (self->pulling) {
    self->pulling = FALSE;
    lw_view3d_perturbation_release(self->view);
    return;
  }
  if (self->kdrag && self->dragging) {
    body_drag_to(self, self->x0 + ox, self->y0 + oy);
    finish_body_drag(self);
  } else if (!self->dragging && self->button == GDK_BUTTON_PRIMARY && is_measure_tool(self)) {
    end_body_drag(self);
    lw_view3d_measure_click(self->view, self->x0 + ox, self->y0 + oy);
  } else if (!self->dragging && self->button == GDK_BUTTON_PRIMARY) {
    end_body_drag(self);
    lw_editor_click(self, self->x0 + ox, self->y0 + oy);
  } else if (self->moving && (guint)self->moving <= self->anchors->len) {
    /* the anchor taken when the button went down */
    move_to(self, &g_array_index(self->anchors, Anchor, self->moving - 1), self->x0 + ox, self->y0 + oy);
  } else if (self->stroking) {
    self->stroking = FALSE;
    const char *tool = self->palette ? lw_palette_get_stroke_tool(self->palette) : "link";
    lw_editor_stroke(self, tool, self->x0, self->y0, self->x0 + ox, self->y0 + oy);
  }
  self->dragging = self->stroking = FALSE;
  self->moving = 0;
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void motion_cb(GtkEventControllerMotion *c, double x, double y, LwEditor *self)
{
  (void)c;
  self->hover = TRUE;
  self->hx = x, self->hy = y;
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void leave_cb(GtkEventControllerMotion *c, LwEditor *self)
{
  (void)c;
  self->hover = FALSE;
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static gboolean scroll_cb(GtkEventControllerScroll *c, double dx, double dy, LwEditor *self)
{
  (void)c, (void)dx;
  if (dy == 0)
    return FALSE;
  lw_camera cam;
  int w, h;
  lw_view3d_get_camera(self->view, &cam);
  view_size(self, &w, &h);
  lw_camera_zoom(&cam, pow(1.15, dy), self->hx, self->hy, w, h);
  lw_view3d_set_camera(self->view, &cam);
  gtk_widget_queue_draw(GTK_WIDGET(self));
  return TRUE;
}

static gboolean drop_cb(GtkDropTarget *t, const GValue *value, double x, double y, LwEditor *self)
{
  (void)t;
  self->hover = FALSE;
  if (!G_VALUE_HOLDS_STRING(value))
    return FALSE;
  return lw_editor_drop(self, g_value_get_string(value), x, y);
}

static GdkDragAction drop_motion_cb(GtkDropTarget *t, double x, double y, LwEditor *self)
{
  (void)t;
  self->hover = TRUE;
  self->hx = x, self->hy = y;
  gtk_widget_queue_draw(GTK_WIDGET(self));
  return GDK_ACTION_COPY;
}

/* ---- drawing ------------------------------------------------------------ */
static void ring(cairo_t *cr, double x, double y, double r)
{
  cairo_new_sub_path(cr);
  cairo_arc(cr, x, y, r, 0, 2 * G_PI);
}

/* text drawn with its top-left corner at (x, y), its box kept */
static void show_label(LwEditor *self, cairo_t *cr, PangoLayout *pl, double x, double y)
{
  int tw, th;
  pango_layout_get_pixel_size(pl, &tw, &th);
  cairo_move_to(cr, x, y);
  pango_cairo_show_layout(cr, pl);
  if (self->nlabel_boxes < (int)G_N_ELEMENTS(self->label_box))
    self->label_box[self->nlabel_boxes++] = GRAPHENE_RECT_INIT((float)x, (float)y, (float)tw, (float)th);
}

/* the coordinates of world point p as text */
static PangoLayout *coord_layout(LwEditor *self, GtkWidget *widget, const double p[3])
{
  PangoLayout *pl = gtk_widget_create_pango_layout(widget, NULL);
  /* round-off of a point on an axis (1e-18) is shown as the 0 it is */
  double c[3], size = fmax(1.0, fmax(fabs(p[0]), fmax(fabs(p[1]), fabs(p[2]))));
  for (int i = 0; i < 3; i++)
    c[i] = fabs(p[i]) < 1e-9 * size ? 0.0 : p[i];
  g_autofree char *t = dim(self) == 2 ? g_strdup_printf("(%.3g, %.3g)", c[0], c[1])
                                      : g_strdup_printf("(%.3g, %.3g, %.3g)", c[0], c[1], c[2]);
  pango_layout_set_text(pl, t, -1);
  return pl;
}

/* the coordinates of world point p, written beside its place (x, y) in the view */
static void coord_label(LwEditor *self, GtkWidget *widget, cairo_t *cr, const double p[3], double x, double y)
{
  PangoLayout *pl = coord_layout(self, widget, p);
  show_label(self, cr, pl, x + 9, y + 4);
  g_object_unref(pl);
}

static gboolean boxes_overlap(double x0, double y0, double w0, double h0, double x1, double y1, double w1, double h1)
{
  const double gap = 3;
  return x0 < x1 + w1 + gap && x1 < x0 + w0 + gap && y0 < y1 + h1 + gap && y1 < y0 + h0 + gap;
}

/* The labels of a stroke from view point (ax, ay) to (bx, by): the end's
 * coordinates beside the pointer, as everywhere, and the length beside the
 * stroke's middle, off the stroke on the side away from the coordinates;
 * pushed further out along that side until the two never overlap (short
 * strokes). */
static void stroke_labels(LwEditor *self, GtkWidget *widget, cairo_t *cr, const double a[3], const double b[3],
                          double ax, double ay, double bx, double by)
{
  PangoLayout *cl = coord_layout(self, widget, b);
  PangoLayout *ll = gtk_widget_create_pango_layout(widget, NULL);
  g_autofree char *t = g_strdup_printf("%.3f m", hypot(hypot(b[0] - a[0], b[1] - a[1]), b[2] - a[2]));
  pango_layout_set_text(ll, t, -1);
  int cw, ch, lw, lh;
  pango_layout_get_pixel_size(cl, &cw, &ch);
  pango_layout_get_pixel_size(ll, &lw, &lh);
  double cx = bx + 9, cy = by + 4;
  /* the stroke's normal pointing away from the coordinates' box (below right of the pointer) */
  double dx = bx - ax, dy = by - ay, len = hypot(dx, dy);
  double nx = 0, ny = -1;
  if (len > 1e-9)
    nx = -dy / len, ny = dx / len;
  if (nx * (cx + 0.5 * cw - bx) + ny * (cy + 0.5 * ch - by) > 0)
    nx = -nx, ny = -ny;
  double mx = 0.5 * (ax + bx), my = 0.5 * (ay + by);
  double lx = 0, ly = 0;
  for (double off = 8; off < 400; off += 4) {
    /* the box's centre `off` plus its half extent along the normal away from the stroke */
    double half = 0.5 * (fabs(nx) * lw + fabs(ny) * lh);
    lx = mx + nx * (off + half) - 0.5 * lw;
    ly = my + ny * (off + half) - 0.5 * lh;
    if (!boxes_overlap(lx, ly, lw, lh, cx, cy, cw, ch))
      break;
  }
  show_label(self, cr, ll, lx, ly);
  show_label(self, cr, cl, cx, cy);
  g_object_unref(ll);
  g_object_unref(cl);
}

int lw_editor_get_label_boxes(LwEditor *self, graphene_rect_t *boxes, int max)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), 0);
  int n = MIN(max, self->nlabel_boxes);
  memcpy(boxes, self->label_box, sizeof(graphene_rect_t) * (size_t)MAX(n, 0));
  return self->nlabel_boxes;
}

static void draw_work_plane(LwEditor *self, cairo_t *cr)
{
  /* spatial models: the work plane, a 4 m square ruled every 0.5 m about
   * the point of the plane nearest the origin */
  if (dim(self) == 3) {
    int ax = self->plane_axis, u = (ax + 1) % 3, v = (ax + 2) % 3;
    cairo_set_source_rgba(cr, 0.1, 0.35, 0.75, 0.35);
    cairo_set_line_width(cr, 1);
    for (int k = -4; k <= 4; k++)
      for (int dir = 0; dir < 2; dir++) {
        double p[3], q[3], px, py, qx, qy;
        p[ax] = q[ax] = self->plane_offset;
        p[dir ? u : v] = q[dir ? u : v] = 0.5 * k;
        p[dir ? v : u] = -2, q[dir ? v : u] = 2;
        if (lw_editor_world_to_view(self, p, &px, &py) && lw_editor_world_to_view(self, q, &qx, &qy)) {
          cairo_move_to(cr, px, py);
          cairo_line_to(cr, qx, qy);
        }
      }
    cairo_stroke(cr);
  }
}

static void draw_anchors(LwEditor *self, cairo_t *cr)
{
  double x, y;
  /* body points: small open circles (snap targets), with the move tool
   * square handles; ground places: ground marks */
  gboolean handles = is_moving_tool(self);
  cairo_set_line_width(cr, 1.5);
  for (guint i = 0; i < self->anchors->len; i++) {
    const Anchor *a = &g_array_index(self->anchors, Anchor, i);
    if (!lw_editor_world_to_view(self, a->w, &x, &y))
      continue;
    if (handles) {
      cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
      cairo_rectangle(cr, x - 4.5, y - 4.5, 9, 9);
      cairo_fill_preserve(cr);
      cairo_set_source_rgba(cr, 0.1, 0.35, 0.75, 0.95);
      cairo_stroke(cr);
    }
    if (a->body >= 0 || a->kind == ANCHOR_BEAM) {
      if (handles)
        continue;
      cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.7);
      ring(cr, x, y, 3.5);
      cairo_stroke(cr);
    } else {
      cairo_set_source_rgba(cr, 0.25, 0.25, 0.25, 0.8);
      cairo_move_to(cr, x, y);
      cairo_line_to(cr, x - 8, y + 12);
      cairo_line_to(cr, x + 8, y + 12);
      cairo_close_path(cr);
      cairo_stroke(cr);
      for (int k = -2; k <= 2; k++) {
        cairo_move_to(cr, x + 4 * k, y + 12);
        cairo_line_to(cr, x + 4 * k - 4, y + 17);
      }
      cairo_stroke(cr);
    }
  }
}

static void draw_joint_flags(LwEditor *self, GtkWidget *widget, cairo_t *cr)
{
  double x, y;
  /* joints flagged by the live check; labels of joints at one place stack */
  int nlab = 0;
  double labx[16], laby[16];
  for (int j = 0; j < self->njoints; j++) {
    if (!self->jstate[j] || !lw_editor_world_to_view(self, self->jpos + 3 * j, &x, &y))
      continue;
    gboolean conflict = (self->jstate[j] & LW_CHECK_CONFLICT) != 0;
    if (conflict)
      cairo_set_source_rgba(cr, 0.85, 0.1, 0.1, 0.9);
    else
      cairo_set_source_rgba(cr, 0.95, 0.55, 0.0, 0.9);
    cairo_set_line_width(cr, 3);
    ring(cr, x, y, 14);
    cairo_stroke(cr);
    PangoLayout *pl = gtk_widget_create_pango_layout(widget, NULL);
    g_autofree char *t = g_strdup_printf("%s %s", self->doc->joints[j].name, conflict ? _("violated") : _("redundant"));
    pango_layout_set_text(pl, t, -1);
    double ly = y - 18;
    for (int k = 0; k < nlab; k++)
      if (fabs(labx[k] - x) < 40 && fabs(laby[k] - ly) < 16)
        ly = laby[k] + 16;
    if (nlab < 16)
      labx[nlab] = x, laby[nlab++] = ly;
    cairo_move_to(cr, x + 16, ly);
    pango_cairo_show_layout(cr, pl);
    g_object_unref(pl);
  }
}

static void draw_pointer(LwEditor *self, GtkWidget *widget, cairo_t *cr)
{
  double x, y;
  /* the stroke being drawn, snapped */
  double a[3], b[3];
  if (self->stroking && lw_editor_snap(self, self->x0, self->y0, a) && lw_editor_snap(self, self->x1, self->y1, b)) {
    double ax, ay, bx, by;
    if (lw_editor_world_to_view(self, a, &ax, &ay) && lw_editor_world_to_view(self, b, &bx, &by)) {
      gboolean beam = self->palette && !g_strcmp0(lw_palette_get_stroke_tool(self->palette), "beam");
      if (beam) /* the colour the view draws beams in */
        cairo_set_source_rgba(cr, 0.18, 0.55, 0.62, 0.9);
      else
        cairo_set_source_rgba(cr, 0.1, 0.35, 0.75, 0.9);
      cairo_set_line_width(cr, beam ? 6 : 4);
      cairo_move_to(cr, ax, ay);
      cairo_line_to(cr, bx, by);
      cairo_stroke(cr);
      stroke_labels(self, widget, cr, a, b, ax, ay, bx, by);
    }
  }
  /* a point being moved: from where it was to where it lands */
  if (self->moving && self->dragging && (guint)self->moving <= self->anchors->len) {
    const Anchor *m = &g_array_index(self->anchors, Anchor, self->moving - 1);
    double ax, ay, bx, by;
    if (snap_except(self, self->x1, self->y1, m, b) && lw_editor_world_to_view(self, m->w, &ax, &ay) &&
        lw_editor_world_to_view(self, b, &bx, &by)) {
      cairo_set_source_rgba(cr, 0.1, 0.35, 0.75, 0.9);
      cairo_set_line_width(cr, 1.5);
      double dash[] = {4, 3};
      cairo_set_dash(cr, dash, 2, 0);
      cairo_move_to(cr, ax, ay);
      cairo_line_to(cr, bx, by);
      cairo_stroke(cr);
      cairo_set_dash(cr, NULL, 0, 0);
      cairo_rectangle(cr, bx - 5, by - 5, 10, 10);
      cairo_fill(cr);
      coord_label(self, widget, cr, b, bx, by);
    }
  }
  /* where a drop or a stroke would land */
  if (self->hover && !self->stroking && lw_editor_snap(self, self->hx, self->hy, a) &&
      lw_editor_world_to_view(self, a, &x, &y)) {
    cairo_set_source_rgba(cr, 0.1, 0.35, 0.75, 0.9);
    cairo_set_line_width(cr, 2);
    ring(cr, x, y, 6);
    cairo_stroke(cr);
    coord_label(self, widget, cr, a, x, y);
  }
}

static void draw_status(LwEditor *self, GtkWidget *widget, cairo_t *cr, int w, int h)
{
  /* the live check */
  if (self->status) {
    PangoLayout *pl = gtk_widget_create_pango_layout(widget, self->status);
    pango_layout_set_width(pl, (w - 24) * PANGO_SCALE);
    pango_layout_set_wrap(pl, PANGO_WRAP_WORD_CHAR);
    int tw, th;
    pango_layout_get_pixel_size(pl, &tw, &th);
    gboolean bad = self->have_info && self->doc->nbodies + self->doc->nbeams > 0 && (!self->info.assembled || self->info.nredundant > 0);
    if (bad)
      cairo_set_source_rgba(cr, 0.85, 0.1, 0.1, 0.85);
    else
      cairo_set_source_rgba(cr, 0.15, 0.15, 0.15, 0.75);
    cairo_rectangle(cr, 8, h - th - 18, tw + 12, th + 8);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_move_to(cr, 14, h - th - 14);
    pango_cairo_show_layout(cr, pl);
    g_object_unref(pl);
  }
}

static void lw_editor_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
  LwEditor *self = LW_EDITOR(widget);
  int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
  cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, w, h));
  self->nlabel_boxes = 0;
  lw_view3d_get_camera(self->view, &self->cam_drawn);
  draw_work_plane(self, cr);
  draw_anchors(self, cr);
  draw_joint_flags(self, widget, cr);
  draw_pointer(self, widget, cr);
  draw_status(self, widget, cr, w, h);
  cairo_destroy(cr);
}

/* ---- GObject ------------------------------------------------------------ */
static void lw_editor_dispose(GObject *obj)
{
  LwEditor *self = LW_EDITOR(obj);
  self->view = NULL;
  self->palette = NULL;
  G_OBJECT_CLASS(lw_editor_parent_class)->dispose(obj);
}

static void lw_editor_finalize(GObject *obj)
{
  LwEditor *self = LW_EDITOR(obj);
  end_body_drag(self);
  clear_anchors(self);
  g_array_unref(self->anchors);
  lw_desc_free(self->doc);
  g_free(self->pose);
  g_free(self->jpos);
  g_free(self->fpos);
  g_free(self->bpts);
  g_free(self->jstate);
  g_free(self->status);
  g_free(self->message);
  G_OBJECT_CLASS(lw_editor_parent_class)->finalize(obj);
}

static void lw_editor_class_init(LwEditorClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS(klass);
  GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
  oc->dispose = lw_editor_dispose;
  oc->finalize = lw_editor_finalize;
  wc->snapshot = lw_editor_snapshot;
  signals[SIGNAL_EDIT] = g_signal_new("edit", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_STRING);
  signals[SIGNAL_MESSAGE] = g_signal_new("message", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, G_TYPE_STRING);
  gtk_widget_class_set_accessible_role(wc, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_css_name(wc, "lw-editor");
}

static void lw_editor_init(LwEditor *self)
{
  self->anchors = g_array_new(FALSE, TRUE, sizeof(Anchor));
  self->doc = lw_desc_new();
  self->pose = g_new0(double, 1);
  self->jpos = g_new0(double, 1);
  self->jstate = g_new0(int, 1);
  self->snap_grid = TRUE;
  self->grid = 0.1;
  self->plane_axis = 1;
  gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
  gtk_widget_set_vexpand(GTK_WIDGET(self), TRUE);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Model editor"), -1);

  self->gesture = gtk_gesture_drag_new();
  gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(self->gesture), 0);
  g_signal_connect(self->gesture, "drag-begin", G_CALLBACK(drag_begin_cb), self);
  g_signal_connect(self->gesture, "drag-update", G_CALLBACK(drag_update_cb), self);
  g_signal_connect(self->gesture, "drag-end", G_CALLBACK(drag_end_cb), self);
  gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(self->gesture));

  GtkEventController *m = gtk_event_controller_motion_new();
  g_signal_connect(m, "motion", G_CALLBACK(motion_cb), self);
  g_signal_connect(m, "enter", G_CALLBACK(motion_cb), self);
  g_signal_connect(m, "leave", G_CALLBACK(leave_cb), self);
  gtk_widget_add_controller(GTK_WIDGET(self), m);

  GtkEventController *sc = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect(sc, "scroll", G_CALLBACK(scroll_cb), self);
  gtk_widget_add_controller(GTK_WIDGET(self), sc);

  self->drop = gtk_drop_target_new(G_TYPE_STRING, GDK_ACTION_COPY);
  g_signal_connect(self->drop, "drop", G_CALLBACK(drop_cb), self);
  g_signal_connect(self->drop, "motion", G_CALLBACK(drop_motion_cb), self);
  gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(self->drop));
}

/* the view moved its camera (fitted, reset, zoomed by a key): the marks
 * drawn over it follow */
static void view_rendered_cb(LwView3d *view, LwEditor *self)
{
  lw_camera cam;
  lw_view3d_get_camera(view, &cam);
  if (gtk_widget_get_visible(GTK_WIDGET(self)) && memcmp(&cam, &self->cam_drawn, sizeof cam))
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void plane_notify_cb(LwPalette *palette, GParamSpec *pspec, LwEditor *self)
{
  (void)pspec;
  self->plane_axis = lw_palette_get_plane_axis(palette);
  self->plane_offset = lw_palette_get_plane_offset(palette);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

GtkWidget *lw_editor_new(LwView3d *view, LwPalette *palette)
{
  LwEditor *self = g_object_new(LW_TYPE_EDITOR, NULL);
  self->view = view;
  lw_view3d_set_grid_step(view, self->grid);
  self->palette = palette;
  g_signal_connect_object(view, "rendered", G_CALLBACK(view_rendered_cb), self, 0);
  if (palette) {
    g_signal_connect_object(palette, "notify::plane-axis", G_CALLBACK(plane_notify_cb), self, 0);
    g_signal_connect_object(palette, "notify::plane-offset", G_CALLBACK(plane_notify_cb), self, 0);
    plane_notify_cb(palette, NULL, self);
  }
  return GTK_WIDGET(self);
}

void lw_editor_set_snap_to_grid(LwEditor *self, gboolean on)
{
  g_return_if_fail(LW_IS_EDITOR(self));
  self->snap_grid = on;
}

gboolean lw_editor_get_snap_to_grid(LwEditor *self)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), FALSE);
  return self->snap_grid;
}

void lw_editor_set_grid_step(LwEditor *self, double step)
{
  g_return_if_fail(LW_IS_EDITOR(self));
  if (step > 0)
    self->grid = step;
  if (step > 0 && self->view)
    lw_view3d_set_grid_step(self->view, step);
}

void lw_editor_set_work_plane(LwEditor *self, int axis, double offset)
{
  g_return_if_fail(LW_IS_EDITOR(self));
  if (self->palette) { /* the palette's controls show it, and tell us */
    lw_palette_set_work_plane(self->palette, CLAMP(axis, 0, 2), offset);
    return;
  }
  self->plane_axis = CLAMP(axis, 0, 2);
  self->plane_offset = offset;
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

GtkDropTarget *lw_editor_get_drop_target(LwEditor *self)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), NULL);
  return self->drop;
}

GtkGesture *lw_editor_get_stroke_gesture(LwEditor *self)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), NULL);
  return self->gesture;
}

const char *lw_editor_get_message(LwEditor *self)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), NULL);
  return self->message;
}

const char *lw_editor_get_status(LwEditor *self)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), NULL);
  return self->status;
}

int lw_editor_get_joint_state(LwEditor *self, const char *joint)
{
  g_return_val_if_fail(LW_IS_EDITOR(self), -1);
  for (int j = 0; j < self->njoints; j++)
    if (!g_strcmp0(self->doc->joints[j].name, joint))
      return self->jstate[j];
  return -1;
}
