/* lw-measure-overlay.c: the Measure tool's dimensions and the perturbation
 * spring, drawn with cairo over the 3-D view (see lw-measure-overlay.h). */
#include "lw-measure-overlay.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#define SNAP_PX 12.0   /* a click this near a body point takes the point */
#define ARROW_PX 9.0

struct LwMeasureOverlay {
  gboolean tool;
  GArray *measures;       /* LwMeasure */
  int selected;           /* index or -1 */
  int npending;           /* clicks of the measure being made */
  gboolean pending_link;  /* the first click took a link (angle) */
  LwBodyPoint pending[2];
  /* perturbation */
  gboolean grabbed;
  LwBodyPoint grab;
  double target[3];
};

LwMeasureOverlay *lw_measure_overlay_new(void)
{
  LwMeasureOverlay *mo = g_new0(LwMeasureOverlay, 1);
  mo->measures = g_array_new(FALSE, TRUE, sizeof(LwMeasure));
  mo->selected = -1;
  return mo;
}

void lw_measure_overlay_free(LwMeasureOverlay *mo)
{
  if (!mo)
    return;
  g_array_unref(mo->measures);
  g_free(mo);
}

void lw_measure_overlay_set_tool(LwMeasureOverlay *mo, gboolean on)
{
  mo->tool = on;
  mo->npending = 0;
}

gboolean lw_measure_overlay_get_tool(const LwMeasureOverlay *mo) { return mo->tool; }
guint lw_measure_overlay_n_measures(const LwMeasureOverlay *mo) { return mo->measures->len; }

const LwMeasure *lw_measure_overlay_get(const LwMeasureOverlay *mo, guint i)
{
  return i < mo->measures->len ? &g_array_index(mo->measures, LwMeasure, i) : NULL;
}

void lw_measure_overlay_add(LwMeasureOverlay *mo, const LwMeasure *ms)
{
  g_array_append_val(mo->measures, *ms);
}

void lw_measure_overlay_clear(LwMeasureOverlay *mo)
{
  g_array_set_size(mo->measures, 0);
  mo->selected = -1;
  mo->npending = 0;
}

/* the index in to of body b of from (by name), -1 for the ground, -2 when
 * to has no body of that name */
static int same_body(const lw_desc *from, const lw_desc *to, int b)
{
  if (b < 0)
    return -1;
  if (!from || b >= from->nbodies || !to)
    return -2;
  const char *name = from->bodies[b].name;
  for (int k = 0; k < to->nbodies; k++)
    if (name && to->bodies[k].name && !strcmp(name, to->bodies[k].name))
      return k;
  return -2;
}

void lw_measure_overlay_follow_model(LwMeasureOverlay *mo, const lw_desc *from, const lw_desc *to)
{
  for (guint i = mo->measures->len; i-- > 0;) {
    LwMeasure *ms = &g_array_index(mo->measures, LwMeasure, i);
    LwBodyPoint *pts[4] = {&ms->a[0], &ms->a[1], &ms->b[0], &ms->b[1]};
    int np = ms->kind == LW_MEASURE_DISTANCE ? 2 : 4;
    gboolean keep = TRUE;
    int nb[4];
    for (int k = 0; k < np; k++)
      keep &= (nb[k] = same_body(from, to, pts[k]->body)) != -2;
    if (!keep) {
      g_array_remove_index(mo->measures, i);
      continue;
    }
    for (int k = 0; k < np; k++)
      pts[k]->body = nb[k];
  }
  mo->selected = -1;
  mo->npending = 0;
  mo->grabbed = FALSE;
}

gboolean lw_measure_overlay_cancel(LwMeasureOverlay *mo)
{
  gboolean had = mo->npending > 0;
  mo->npending = 0;
  return had;
}

gboolean lw_measure_overlay_delete_selected(LwMeasureOverlay *mo)
{
  if (mo->selected < 0 || (guint)mo->selected >= mo->measures->len)
    return FALSE;
  g_array_remove_index(mo->measures, (guint)mo->selected);
  mo->selected = -1;
  return TRUE;
}

/* the body point nearest pixel (x, y) within SNAP_PX (the description's
 * named points of every body) */
static gboolean snap_point(const lw_desc *desc, const lw_render_state *s, const lw_camera *cam, int w, int h,
                           double x, double y, LwBodyPoint *out)
{
  double best = SNAP_PX;
  gboolean found = FALSE;
  for (int b = 0; desc && b < desc->nbodies && b < s->nbodies; b++)
    for (int k = 0; k < desc->bodies[b].npoints; k++) {
      LwBodyPoint bp = {b, {0, 0, 0}};
      memcpy(bp.p, desc->bodies[b].points[k].p, sizeof bp.p);
      double g[3], px, py;
      lw_body_point_at_pose(s->body_pose, &bp, g);
      if (!lw_camera_project(cam, w, h, g, &px, &py))
        continue;
      double dd = hypot(px - x, py - y);
      if (dd < best) {
        best = dd;
        *out = bp;
        found = TRUE;
      }
    }
  return found;
}

/* the measure whose label or line passes within a few pixels of (x, y) */
static int hit_measure(LwMeasureOverlay *mo, const lw_render_state *s, const lw_camera *cam, int w, int h,
                       double x, double y)
{
  for (guint i = 0; i < mo->measures->len; i++) {
    const LwMeasure *ms = &g_array_index(mo->measures, LwMeasure, i);
    double a[3], b[3], ax, ay, bx, by;
    lw_body_point_at_pose(s->body_pose, &ms->a[0], a);
    lw_body_point_at_pose(s->body_pose, ms->kind == LW_MEASURE_DISTANCE ? &ms->a[1] : &ms->b[0], b);
    if (!lw_camera_project(cam, w, h, a, &ax, &ay) || !lw_camera_project(cam, w, h, b, &bx, &by))
      continue;
    double mx = 0.5 * (ax + bx), my = 0.5 * (ay + by);
    if (hypot(mx - x, my - y) < 20)
      return (int)i;
  }
  return -1;
}

gboolean lw_measure_overlay_click(LwMeasureOverlay *mo, const lw_desc *desc, const lw_render_state *s,
                                  const lw_camera *cam, int w, int h, double x, double y, int picked_body)
{
  if (!s || !s->body_pose)
    return FALSE;
  LwBodyPoint bp;
  gboolean point = snap_point(desc, s, cam, w, h, x, y, &bp);
  if (!point && mo->npending == 0) {
    int hit = hit_measure(mo, s, cam, w, h, x, y);
    if (hit >= 0) {
      mo->selected = hit;
      return TRUE;
    }
  }
  if (!point && picked_body < 0)
    return TRUE; /* nothing there: the click is the tool's, it does nothing */
  if (!point)
    bp = (LwBodyPoint){picked_body, {0, 0, 0}};
  if (mo->npending == 1 && mo->pending_link != !point)
    mo->npending = 0; /* a point after a link (or the reverse) starts over */
  mo->pending_link = !point;
  mo->pending[mo->npending++] = bp;
  if (mo->npending < 2)
    return TRUE;
  LwMeasure ms;
  if (point)
    lw_measure_distance(&ms, &mo->pending[0], &mo->pending[1]);
  else
    lw_measure_axes_angle(&ms, mo->pending[0].body, mo->pending[1].body);
  lw_measure_overlay_add(mo, &ms);
  mo->selected = (int)mo->measures->len - 1;
  mo->npending = 0;
  return TRUE;
}

/* the point where the ray through pixel (x, y) meets the plane through p0
 * with normal n */
static void ray_on_plane(const lw_camera *cam, int w, int h, double x, double y, const double p0[3],
                         const double n[3], double out[3])
{
  double o[3], d[3];
  lw_camera_ray(cam, w, h, x, y, o, d);
  double dn = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
  double t = fabs(dn) < 1e-12 ? 0.0
                              : ((p0[0] - o[0]) * n[0] + (p0[1] - o[1]) * n[1] + (p0[2] - o[2]) * n[2]) / dn;
  for (int i = 0; i < 3; i++)
    out[i] = o[i] + t * d[i];
}

static void drag_plane_normal(int planar, const lw_camera *cam, double n[3])
{
  double r[3], u[3];
  if (planar) {
    n[0] = n[1] = 0, n[2] = 1;
    return;
  }
  lw_camera_axes(cam, r, u, n);
}

void lw_measure_overlay_grab(LwMeasureOverlay *mo, int planar, const lw_render_state *s, const lw_camera *cam,
                             int w, int h, int b, double x, double y)
{
  if (!s || !s->body_pose || b < 0 || b >= s->nbodies)
    return;
  double n[3], g[3];
  const double *origin = s->body_pose + 12 * (size_t)b;
  double p0[3] = {origin[0], origin[1], planar ? 0.0 : origin[2]};
  drag_plane_normal(planar, cam, n);
  ray_on_plane(cam, w, h, x, y, p0, n, g);
  /* into the body's axes: R^T (g - origin) */
  const double *R = origin + 3;
  mo->grab.body = b;
  for (int k = 0; k < 3; k++)
    mo->grab.p[k] = R[k] * (g[0] - origin[0]) + R[3 + k] * (g[1] - origin[1]) + R[6 + k] * (g[2] - origin[2]);
  memcpy(mo->target, g, sizeof g);
  mo->grabbed = TRUE;
}

void lw_measure_overlay_pull(LwMeasureOverlay *mo, int planar, const lw_render_state *s, const lw_camera *cam,
                             int w, int h, double x, double y)
{
  if (!mo->grabbed || !s || !s->body_pose)
    return;
  double n[3], g[3];
  lw_body_point_at_pose(s->body_pose, &mo->grab, g);
  drag_plane_normal(planar, cam, n);
  ray_on_plane(cam, w, h, x, y, g, n, mo->target);
  if (planar)
    mo->target[2] = 0;
}

void lw_measure_overlay_release(LwMeasureOverlay *mo) { mo->grabbed = FALSE; }

gboolean lw_measure_overlay_get_perturbation(const LwMeasureOverlay *mo, int *body, double p[3], double target[3])
{
  if (!mo->grabbed)
    return FALSE;
  *body = mo->grab.body;
  memcpy(p, mo->grab.p, sizeof mo->grab.p);
  memcpy(target, mo->target, sizeof mo->target);
  return TRUE;
}

/* ---- drawing ---------------------------------------------------------- */
static void label(GtkWidget *widget, cairo_t *cr, double x, double y, const char *text, gboolean selected)
{
  PangoLayout *pl = gtk_widget_create_pango_layout(widget, text);
  int tw, th;
  pango_layout_get_pixel_size(pl, &tw, &th);
  cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
  cairo_rectangle(cr, x - tw / 2.0 - 3, y - th / 2.0 - 1, tw + 6, th + 2);
  cairo_fill(cr);
  if (selected)
    cairo_set_source_rgb(cr, 0.85, 0.3, 0.0);
  else
    cairo_set_source_rgb(cr, 0.05, 0.2, 0.5);
  cairo_move_to(cr, x - tw / 2.0, y - th / 2.0);
  pango_cairo_show_layout(cr, pl);
  g_object_unref(pl);
}

static void arrow_head(cairo_t *cr, double x, double y, double dx, double dy)
{
  double n = hypot(dx, dy);
  if (n < 1e-9)
    return;
  dx /= n, dy /= n;
  cairo_move_to(cr, x, y);
  cairo_line_to(cr, x - ARROW_PX * dx - 0.4 * ARROW_PX * dy, y - ARROW_PX * dy + 0.4 * ARROW_PX * dx);
  cairo_line_to(cr, x - ARROW_PX * dx + 0.4 * ARROW_PX * dy, y - ARROW_PX * dy - 0.4 * ARROW_PX * dx);
  cairo_close_path(cr);
  cairo_fill(cr);
}

/* a dimension line offset 14 px to the side of the segment, extension lines,
 * arrows at both ends and the value with its unit */
static void draw_distance(GtkWidget *widget, cairo_t *cr, double ax, double ay, double bx, double by, double v,
                          gboolean selected)
{
  double dx = bx - ax, dy = by - ay, n = hypot(dx, dy);
  double ox = n > 0 ? -dy / n * 14 : 0, oy = n > 0 ? dx / n * 14 : 0;
  cairo_set_line_width(cr, 1.2);
  cairo_move_to(cr, ax, ay), cairo_line_to(cr, ax + 1.3 * ox, ay + 1.3 * oy);
  cairo_move_to(cr, bx, by), cairo_line_to(cr, bx + 1.3 * ox, by + 1.3 * oy);
  cairo_move_to(cr, ax + ox, ay + oy), cairo_line_to(cr, bx + ox, by + oy);
  cairo_stroke(cr);
  arrow_head(cr, ax + ox, ay + oy, -dx, -dy);
  arrow_head(cr, bx + ox, by + oy, dx, dy);
  g_autofree char *t = g_strdup_printf(_("%.4g m"), v);
  label(widget, cr, 0.5 * (ax + bx) + 2 * ox, 0.5 * (ay + by) + 2 * oy, t, selected);
}

/* an arc about the first link's start from its direction to the second's,
 * with the value in degrees */
static void draw_angle(GtkWidget *widget, cairo_t *cr, double cx, double cy, double a1, double a2, double v,
                       gboolean selected)
{
  double r = 36;
  cairo_set_line_width(cr, 1.2);
  cairo_move_to(cr, cx, cy), cairo_line_to(cr, cx + 1.4 * r * cos(a1), cy + 1.4 * r * sin(a1));
  cairo_move_to(cr, cx, cy), cairo_line_to(cr, cx + 1.4 * r * cos(a2), cy + 1.4 * r * sin(a2));
  cairo_stroke(cr);
  /* screen angles grow clockwise (y down): the arc goes the short way */
  double d = remainder(a2 - a1, 2 * M_PI);
  cairo_new_sub_path(cr);
  if (d >= 0)
    cairo_arc(cr, cx, cy, r, a1, a1 + d);
  else
    cairo_arc_negative(cr, cx, cy, r, a1, a1 + d);
  cairo_stroke(cr);
  double e = a1 + d;
  arrow_head(cr, cx + r * cos(e), cy + r * sin(e), (d >= 0 ? -1 : 1) * sin(e), (d >= 0 ? 1 : -1) * cos(e));
  g_autofree char *t = g_strdup_printf(_("%.1f°"), v * 180.0 / M_PI);
  double m = a1 + 0.5 * d;
  label(widget, cr, cx + (r + 18) * cos(m), cy + (r + 18) * sin(m), t, selected);
}

static gboolean project2(const lw_camera *cam, int w, int h, const double *poses, const LwBodyPoint *bp,
                         double *x, double *y)
{
  double g[3];
  lw_body_point_at_pose(poses, bp, g);
  return lw_camera_project(cam, w, h, g, x, y);
}

static void draw_measure(GtkWidget *widget, cairo_t *cr, int planar, const lw_render_state *s,
                         const lw_camera *cam, int w, int h, const LwMeasure *ms, gboolean selected)
{
  double x[4], y[4];
  const LwBodyPoint *bp[4] = {&ms->a[0], &ms->a[1], &ms->b[0], &ms->b[1]};
  for (int k = 0; k < 4; k++) {
    if (bp[k]->body >= s->nbodies || !project2(cam, w, h, s->body_pose, bp[k], &x[k], &y[k]))
      return;
  }
  double v = lw_measure_value_at_pose(planar, s->body_pose, ms);
  if (selected)
    cairo_set_source_rgb(cr, 0.85, 0.3, 0.0);
  else
    cairo_set_source_rgb(cr, 0.05, 0.2, 0.5);
  if (ms->kind == LW_MEASURE_DISTANCE) {
    draw_distance(widget, cr, x[0], y[0], x[1], y[1], v, selected);
    return;
  }
  /* the arc at the second link's start, from the first link's direction */
  draw_angle(widget, cr, x[2], y[2], atan2(y[1] - y[0], x[1] - x[0]), atan2(y[3] - y[2], x[3] - x[2]), v,
             selected);
}

/* a zigzag spring from the grabbed point to the pointer's target */
static void draw_spring(cairo_t *cr, double ax, double ay, double bx, double by)
{
  double dx = bx - ax, dy = by - ay, n = hypot(dx, dy);
  cairo_set_source_rgba(cr, 0.8, 0.1, 0.1, 0.9);
  cairo_set_line_width(cr, 2);
  cairo_arc(cr, ax, ay, 4, 0, 2 * M_PI);
  cairo_fill(cr);
  cairo_move_to(cr, ax, ay);
  if (n > 24) {
    double ux = dx / n, uy = dy / n;
    int turns = 8;
    for (int i = 1; i < 2 * turns; i++) {
      double f = 0.15 + 0.7 * i / (2.0 * turns), side = (i % 2 ? 6 : -6);
      cairo_line_to(cr, ax + f * dx - side * uy, ay + f * dy + side * ux);
    }
  }
  cairo_line_to(cr, bx, by);
  cairo_stroke(cr);
  cairo_arc(cr, bx, by, 3, 0, 2 * M_PI);
  cairo_stroke(cr);
}

void lw_measure_overlay_snapshot(LwMeasureOverlay *mo, GtkWidget *widget, GtkSnapshot *snapshot, int planar,
                                 const lw_render_state *s, const lw_camera *cam, int w, int h)
{
  if (!s || !s->body_pose || (mo->measures->len == 0 && !mo->grabbed && mo->npending == 0))
    return;
  cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, (float)w, (float)h));
  for (guint i = 0; i < mo->measures->len; i++)
    draw_measure(widget, cr, planar, s, cam, w, h, &g_array_index(mo->measures, LwMeasure, i),
                 (int)i == mo->selected);
  double x, y;
  if (mo->npending > 0 && project2(cam, w, h, s->body_pose, &mo->pending[0], &x, &y)) {
    cairo_set_source_rgb(cr, 0.85, 0.3, 0.0);
    cairo_arc(cr, x, y, 5, 0, 2 * M_PI);
    cairo_stroke(cr);
  }
  double bx, by;
  if (mo->grabbed && mo->grab.body < s->nbodies && project2(cam, w, h, s->body_pose, &mo->grab, &x, &y) &&
      lw_camera_project(cam, w, h, mo->target, &bx, &by))
    draw_spring(cr, x, y, bx, by);
  cairo_destroy(cr);
}
