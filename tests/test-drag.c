/* Kinematic drag: the core solve (lw_drag.c) and the editor's grab-and-drag
 * of a body in the 3-D view, plus the view's editing layer (picking after a
 * run, the grid, the drawing labels).  The window tests need a display (the
 * test command starts Xvfb); on X11 with XTest the X pointer itself is moved.
 *
 *  - core: a drag of the four-bar's crank end keeps the constraints to
 *    1e-10, its distance to the target is the least over a sweep of the
 *    crank angle, a target out of reach gives the nearest reachable point;
 *    timings of a solve on the four-bar and the five-bar are printed. */
#include "lw-test.h"
#include "lw-app-test.h"
#include "lw-test-xpointer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <adwaita.h>
#include <dlfcn.h>

#include "linkwright.h"
#include "lw-application.h"
#include "lw-editor.h"
#include "lw-palette.h"
#include "lw-view3d.h"
#include "lw-window.h"
#include "lw_io.h"

static LwApplication *app;

/* ---- windows (shared helpers in lw-app-test.h) ------------------------------- */
static const char *shot_dir(void)
{
  const char *d = g_getenv("LW_SCREENSHOT_DIR");
  return d && *d ? d : LW_DRAG_SHOT_DIR;
}

static void shot(LwWindow *w, const char *name)
{
  g_free(lwt_shot(w, "drag", LW_DRAG_SHOT_DIR, name));
}

/* a window with models/NAME open */
static LwWindow *open_model(const char *name)
{
  LwWindow *w = lw_window_new(app);
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, name, NULL);
  g_autoptr(GFile) f = g_file_new_for_path(path);
  g_assert_true(lw_window_open_file(w, f));
  return lwt_present(w);
}

static gboolean view_drawn(gpointer w)
{
  double o[3] = {0, 0, 0}, x, y;
  return lw_editor_world_to_view(lwt_editor_of(LW_WINDOW(w)), o, &x, &y);
}

static void enter_edit_mode(LwWindow *w)
{
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_is_mapped, lwt_editor_of(w), LWT_WAIT);
  lwt_await(view_drawn, w, LWT_WAIT);
  lwt_fresh_picture(w);
  lwt_settle(5);
}

/* ---- the real pointer: XTest events through the X server (lw-test-xpointer.h) */

/* the pointer used by the helpers below: XTest when the display has it
 * (LW_TEST_POINTER=signals forces the signal path), else NULL */
static xpointer *pointer;

static void pointer_init(void)
{
  pointer = xpointer_shared("signals of the drag source, drop target and gesture");
}

/* the editor's drag gesture is at offset (dx, dy) from its start: the
 * pointer's last move has arrived */
typedef struct {
  GtkGesture *gesture;
  double dx, dy;
} drag_offset;

static gboolean drag_reached(gpointer p)
{
  drag_offset *o = p;
  double x, y;
  return gtk_gesture_drag_get_offset(GTK_GESTURE_DRAG(o->gesture), &x, &y) && fabs(x - o->dx) <= 1 &&
         fabs(y - o->dy) <= 1;
}

static lw_desc *read_model(const char *name)
{
  char *path = g_build_filename(LW_MODELS_DIR, name, NULL);
  lw_error err = {0};
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(d);
  g_free(path);
  return d;
}

static int body_index(const lw_desc *d, const char *name)
{
  for (int b = 0; b < d->nbodies; b++)
    if (!strcmp(d->bodies[b].name, name))
      return b;
  g_assert_not_reached();
}

/* the crank angle (rad) of point "end" of the crank at the drag's pose */
static double crank_angle(const lw_drag *g, int crank)
{
  double p[3] = {0.5, 0, 0}, x[3];
  lw_drag_point(g, crank, p, x);
  return atan2(x[1], x[0]);
}

/* distance from the crank end to target at crank angle th, by assembly */
static double distance_at(const lw_desc *d0, double th, const double target[3])
{
  lw_desc *d = lw_desc_copy(d0);
  d->initial[0].value = th;
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  g_assert_nonnull(g);
  double p[3] = {0.5, 0, 0}, x[3];
  lw_drag_point(g, body_index(d, "crank"), p, x);
  lw_drag_free(g);
  lw_desc_free(d);
  return hypot(x[0] - target[0], x[1] - target[1]);
}

static void test_core_four_bar(void)
{
  lw_desc *d = read_model("four-bar.json");
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  g_assert_nonnull(g);
  int crank = body_index(d, "crank");
  const lw_model *m = lw_drag_model(g);
  lw_data *data = lw_data_new(m);
  double p[3] = {0.5, 0, 0};
  /* a target off the crank's circle: the point goes to the circle's nearest
   * point, the rest follows assembled */
  double target[3] = {0.1, -0.7, 0};
  lw_drag_info info;
  g_assert_cmpint(lw_drag_solve(g, crank, p, target, &info), ==, 0);
  lw_data_set_state(m, data, 0, lw_drag_q(g), NULL, NULL, NULL);
  g_assert_cmpfloat(lw_constraint_residual(m, data), <=, 1e-10);
  double want = atan2(-0.7, 0.1);
  g_assert_cmpfloat(fabs(crank_angle(g, crank) - want), <, 1e-8);
  /* least squares: no crank angle of a fine sweep is nearer */
  double best = INFINITY;
  for (int k = 0; k < 720; k++)
    best = fmin(best, distance_at(d, -M_PI + k * M_PI / 360, target));
  g_assert_cmpfloat(info.distance, <=, best + 1e-12);
  g_assert_cmpfloat(fabs(info.distance - (hypot(0.1, -0.7) - 0.5)), <, 1e-9);
  /* out of reach: the nearest reachable pose, not a failure */
  double far[3] = {30, 30, 0};
  g_assert_cmpint(lw_drag_solve(g, crank, p, far, &info), ==, 0);
  lw_data_set_state(m, data, 0, lw_drag_q(g), NULL, NULL, NULL);
  g_assert_cmpfloat(lw_constraint_residual(m, data), <=, 1e-10);
  g_assert_cmpfloat(fabs(crank_angle(g, crank) - M_PI / 4), <, 1e-8);
  g_assert_cmpfloat(fabs(info.distance - (30 * M_SQRT2 - 0.5)), <, 1e-9);
  /* stored: the initial value follows, and assembling gives the same pose */
  g_assert_cmpint(lw_drag_store(g, d), ==, 0);
  g_assert_cmpfloat(fabs(d->initial[0].value - M_PI / 4), <, 1e-9);
  lw_drag *g2 = lw_drag_new(d, &err);
  g_assert_nonnull(g2);
  for (int i = 0; i < lw_drag_nq(g); i++)
    g_assert_cmpfloat(fabs(lw_drag_q(g)[i] - lw_drag_q(g2)[i]), <, 1e-8);
  lw_drag_free(g2);
  lw_data_free(data);
  lw_drag_free(g);
  lw_desc_free(d);
}

/* bad arguments are refused, the pose unchanged */
static void test_core_bad_input(void)
{
  lw_desc *d = read_model("four-bar.json");
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  double q0[64];
  memcpy(q0, lw_drag_q(g), sizeof(double) * lw_drag_nq(g));
  double p[3] = {0.5, 0, 0}, t[3] = {NAN, 0, 0};
  g_assert_cmpint(lw_drag_solve(g, 0, p, t, NULL), ==, -1);
  g_assert_cmpint(lw_drag_solve(g, 99, p, p, NULL), ==, -1);
  g_assert_cmpint(memcmp(q0, lw_drag_q(g), sizeof(double) * lw_drag_nq(g)), ==, 0);
  lw_drag_free(g);
  lw_desc_free(d);
}

/* ms per solve while following a pointer: small steps along a path */
static double time_solves(const char *model, const char *body, const double p[3], double radius)
{
  lw_desc *d = read_model(model);
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  g_assert_nonnull(g);
  int b = body_index(d, body);
  double x0[3];
  lw_drag_point(g, b, p, x0);
  const int n = 200;
  gint64 t0 = g_get_monotonic_time();
  for (int k = 1; k <= n; k++) {
    double a = 2 * M_PI * k / n;
    double t[3] = {x0[0] + radius * (cos(a) - 1), x0[1] + radius * sin(a), 0};
    lw_drag_info info;
    g_assert_cmpint(lw_drag_solve(g, b, p, t, &info), ==, 0);
    g_assert_cmpfloat(info.residual, <=, 1e-10);
  }
  double ms = (g_get_monotonic_time() - t0) / 1000.0 / n;
  lw_drag_free(g);
  lw_desc_free(d);
  return ms;
}

static void test_core_timing(void)
{
  double p4[3] = {1.0, 0, 0};
  double ms4 = time_solves("four-bar.json", "coupler", p4, 0.3);
  lw_desc *d = read_model("five-bar.json");
  const char *b5 = d->bodies[0].name;
  double p5[3] = {d->bodies[0].points[d->bodies[0].npoints - 1].p[0],
                  d->bodies[0].points[d->bodies[0].npoints - 1].p[1], 0};
  char *name = g_strdup(b5);
  lw_desc_free(d);
  double ms5 = time_solves("five-bar.json", name, p5, 0.1);
  g_free(name);
  g_test_message("drag solve: four-bar %.3f ms, five-bar %.3f ms", ms4, ms5);
  printf("# drag solve: four-bar %.3f ms, five-bar %.3f ms\n", ms4, ms5);
  g_assert_cmpfloat(ms4, <, 10);
  g_assert_cmpfloat(ms5, <, 10);
}

/* press the button at root point (rx, ry) over the editor and wait until
 * its gesture has begun a drag; a button left down (a failure before)
 * is released first, and on a loaded server a press right after a release
 * is now and then not seen as one: it is pressed again */
static void press_at(LwWindow *w, int rx, int ry)
{
  int began = 0;
  GtkGesture *gest = lw_editor_get_stroke_gesture(lwt_editor_of(w));
  gulong id = g_signal_connect_swapped(gest, "drag-begin", G_CALLBACK(lwt_count_signal), &began);
  for (int attempt = 0; attempt < 4 && !began; attempt++) {
    xbutton(pointer, FALSE);
    xmove(pointer, rx, ry);
    lwt_spin(0.2);
    xbutton(pointer, TRUE);
    if (!lwt_wait_until(lwt_counter_positive, &began, 5)) {
      g_test_message("press %d at (%d, %d) not seen", attempt, rx, ry);
      xbutton(pointer, FALSE);
      lwt_spin(0.8);
    }
  }
  g_signal_handler_disconnect(gest, id);
  if (!began) {
    shot(w, "no-press");
    g_error("the press at (%d, %d) did not start a drag", rx, ry);
  }
}

/* ---- picking after a run ----------------------------------------------------- */
/* After a run the view showed the last frame while the editor picked at the
 * model's pose: entering edit mode returns the view to the model's pose, so
 * that what is under the pointer is what a click takes. */
static LwWindow *window_of(GtkAdjustment *time)
{
  return g_object_get_data(G_OBJECT(time), "lwt-window");
}

/* the window shows the frame at its time scale's value */
static gboolean shown_time_reached(gpointer time)
{
  return fabs(lw_window_get_shown_time(window_of(time)) - gtk_adjustment_get_value(time)) <= 1e-3 + 1e-9;
}

static void test_pick_after_run(void)
{
  LwWindow *w = open_model("four-bar.json");
  lwt_set_state(w, "real-time", FALSE);
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, 2 * LWT_WAIT);
  LwView3d *view = LW_VIEW3D(lw_window_get_view(w));
  const lw_desc *d = lw_window_get_desc(w);
  int crank = body_index(d, "crank"), rocker = body_index(d, "rocker");
  /* the crank's and the rocker's middles at the model's pose */
  const double cm[3] = {0, 0.25, 0};
  double rm[3] = {2 + 0.75 * cos(d->bodies[rocker].angle), 0.75 * sin(d->bodies[rocker].angle), 0};
  const double *pts[2] = {cm, rm};
  int want[2] = {crank, rocker};
  /* a frame of the run where the crank is not where the model has it */
  GtkAdjustment *time = lw_window_get_time_adjustment(w);
  g_object_set_data(G_OBJECT(time), "lwt-window", w);
  gboolean moved = FALSE;
  for (double t = 0.05; t <= 5 && !moved; t += 0.05) {
    gtk_adjustment_set_value(time, t);
    lwt_await(shown_time_reached, time, LWT_WAIT);
    double x, y;
    lw_pick pk = {0};
    g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), cm, &x, &y));
    moved = !lw_view3d_pick(view, x, y, &pk) || pk.kind != LW_PICK_BODY || pk.index != crank;
  }
  g_assert_true(moved);
  shot(w, "pick-run-frame");
  enter_edit_mode(w);
  for (int k = 0; k < 2; k++) {
    double x, y;
    g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), pts[k], &x, &y));
    lw_pick pk = {0};
    g_assert_true(lw_view3d_pick(view, x, y, &pk));
    g_assert_cmpint(pk.kind, ==, LW_PICK_BODY);
    g_assert_cmpint(pk.index, ==, want[k]);
    lw_editor_click(lwt_editor_of(w), x, y);
    g_autofree char *path = g_strconcat("bodies/", d->bodies[want[k]].name, NULL);
    g_assert_cmpstr(lw_view3d_get_selection(view), ==, path);
  }
  shot(w, "pick-after-run");
  gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- grab and drag ------------------------------------------------------------- */
/* the crank angle at the initial pose of the window's description, and
 * the constraint residual there */
static double assembled_crank(LwWindow *w, double *residual)
{
  const lw_desc *d = lw_window_get_desc(w);
  lw_error err = {0};
  lw_drag *g = lw_drag_new(d, &err);
  g_assert_nonnull(g);
  const lw_model *m = lw_drag_model(g);
  lw_data *data = lw_data_new(m);
  lw_data_set_state(m, data, 0, lw_drag_q(g), NULL, NULL, NULL);
  *residual = lw_constraint_residual(m, data);
  double a = crank_angle(g, body_index(d, "crank"));
  lw_data_free(data);
  lw_drag_free(g);
  return a;
}

static void view_root_point(xpointer *xp, LwWindow *w, const double p[3], int *rx, int *ry)
{
  double x, y;
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), p, &x, &y));
  root_point(xp, GTK_WIDGET(lwt_editor_of(w)), x, y, rx, ry);
}

/* the crank grabbed at its interior and dragged, with the X pointer, round
 * to -30 degrees: the mechanism follows assembled, the pose becomes the
 * initial one, undo brings the old one back */
/* the model's initial crank angle is back at a0 */
typedef struct {
  LwWindow *w;
  double a0;
} crank_wait;

static gboolean crank_restored(gpointer p)
{
  crank_wait *c = p;
  return lw_window_get_desc(c->w)->initial[0].value == c->a0;
}

static void test_drag_crank(void)
{
  pointer_init();
  if (!pointer) {
    g_test_skip("no XTest pointer");
    return;
  }
  LwWindow *w = open_model("four-bar.json");
  enter_edit_mode(w);
  lw_palette_set_stroke_tool(LW_PALETTE(lw_window_get_palette(w)), "move");
  lwt_editor_settle(w);
  double a0 = lw_window_get_desc(w)->initial[0].value;
  guint depth0 = lw_window_get_undo_depth(w);
  const double r = 0.35, grab[3] = {0, r, 0};
  const double ang = -30 * M_PI / 180;
  int rx0, ry0, rx1, ry1;
  view_root_point(pointer, w, grab, &rx0, &ry0);
  int ended = 0;
  gulong id = g_signal_connect_swapped(lw_editor_get_stroke_gesture(lwt_editor_of(w)), "drag-end",
                                       G_CALLBACK(lwt_count_signal), &ended);
  press_at(w, rx0, ry0);
  /* round the crank's pivot through 120 degrees, in steps */
  for (int k = 1; k <= 24; k++) {
    double a = M_PI / 2 + (ang - M_PI / 2) * k / 24;
    double p[3] = {r * cos(a), r * sin(a), 0};
    view_root_point(pointer, w, p, &rx1, &ry1);
    xmove(pointer, rx1, ry1);
    if (k == 12)
      shot(w, "drag-four-bar-middle");
  }
  drag_offset at = {lw_editor_get_stroke_gesture(lwt_editor_of(w)), rx1 - rx0, ry1 - ry0};
  lwt_await(drag_reached, &at, LWT_WAIT);
  shot(w, "drag-four-bar-end");
  xbutton(pointer, FALSE);
  /* the editor's handler, connected first, has made the edit by then */
  lwt_await(lwt_counter_positive, &ended, LWT_WAIT);
  g_signal_handler_disconnect(lw_editor_get_stroke_gesture(lwt_editor_of(w)), id);
  /* one edit; the description's initial crank angle where the pointer left it */
  g_assert_cmpuint(lw_window_get_undo_depth(w), ==, depth0 + 1);
  double a1 = lw_window_get_desc(w)->initial[0].value;
  g_test_message("initial crank angle %.6f -> %.6f rad (pointer at %.6f)", a0, a1, ang);
  g_assert_cmpfloat(fabs(a1 - ang), <, M_PI / 180);
  double res;
  double assembled = assembled_crank(w, &res);
  g_assert_cmpfloat(res, <=, 1e-10);
  g_assert_cmpfloat(fabs(assembled - ang), <, M_PI / 180);
  shot(w, "drag-four-bar-released");
  /* Ctrl+Z */
  lwt_act(w, "undo");
  crank_wait back = {w, a0};
  lwt_await(crank_restored, &back, LWT_WAIT);
  g_assert_cmpfloat(lw_window_get_desc(w)->initial[0].value, ==, a0);
  g_assert_cmpfloat(fabs(assembled_crank(w, &res) - a0), <, 1e-9);
  gtk_window_destroy(GTK_WINDOW(w));
}


/* ---- the grid ------------------------------------------------------------------ */
typedef struct {
  guchar *px;
  int w, h;
  gsize stride;
} picture;

/* the window as drawn, RGBA */
static picture window_picture(LwWindow *w, const char *name)
{
  lwt_fresh_picture(w);
  lwt_settle(2);
  g_mkdir_with_parents(shot_dir(), 0755);
  g_autofree char *file = g_strdup_printf("%s.png", name);
  g_autofree char *path = g_build_filename(shot_dir(), file, NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true(lw_window_save_screenshot(w, path, &error));
  g_test_message("screenshot %s", path);
  GdkTexture *t = gdk_texture_new_from_filename(path, &error);
  g_assert_no_error(error);
  picture p = {NULL, gdk_texture_get_width(t), gdk_texture_get_height(t), 0};
  p.stride = 4 * (gsize)p.w;
  p.px = g_malloc(p.stride * (gsize)p.h);
  gdk_texture_download(t, p.px, p.stride);
  g_object_unref(t);
  return p;
}

static double lum(const picture *p, int x, int y)
{
  const guchar *c = p->px + (gsize)y * p->stride + 4 * (gsize)x;
  return 0.3 * c[2] + 0.59 * c[1] + 0.11 * c[0];
}

static int cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the centres of the grid lines crossing row y between x0 and x1: runs of
 * pixels darker than the row's median */
static int lines_on_row(const picture *p, int y, int x0, int x1, double *out, int max)
{
  int n = x1 - x0;
  double *v = g_new(double, n), *sorted = g_new(double, n);
  for (int x = x0; x < x1; x++)
    v[x - x0] = sorted[x - x0] = lum(p, x, y);
  qsort(sorted, n, sizeof(double), cmp_dbl);
  double med = sorted[n / 2];
  int k = 0;
  for (int i = 0; i < n && k < max;) {
    if (med - v[i] > 4) {
      double sw = 0, sx = 0;
      int j = i;
      for (; j < n && med - v[j] > 4; j++)
        sw += med - v[j], sx += (med - v[j]) * (x0 + j);
      out[k++] = sx / sw;
      i = j;
    } else
      i++;
  }
  g_free(v);
  g_free(sorted);
  return k;
}

/* the spacing (px) of the lines on a row near the view's top, checking
 * that they reach both sides of the view */
static double grid_spacing_px(LwWindow *w, const char *name)
{
  GtkWidget *view = lw_window_get_view(w);
  graphene_point_t o;
  g_assert_true(gtk_widget_compute_point(view, GTK_WIDGET(w), &GRAPHENE_POINT_INIT(0, 0), &o));
  int vw = gtk_widget_get_width(view);
  picture p = window_picture(w, name);
  int x0 = (int)o.x + 2, x1 = (int)o.x + vw - 2, y = (int)o.y + 12;
  double xs[800] = {0};
  int n = lines_on_row(&p, y, x0, x1, xs, 800);
  g_free(p.px);
  g_assert_cmpint(n, >=, 3);
  double d[800];
  for (int i = 0; i + 1 < n; i++)
    d[i] = xs[i + 1] - xs[i];
  qsort(d, n - 1, sizeof(double), cmp_dbl);
  double sp = d[(n - 1) / 2];
  g_test_message("%s: %d lines on the top row, spacing %.2f px, first at %.1f, last at %.1f (view %d..%d)",
                 name, n, sp, xs[0], xs[n - 1], x0, x1);
  /* the grid reaches the view's sides */
  g_assert_cmpfloat(xs[0] - x0, <, sp + 2);
  g_assert_cmpfloat(x1 - xs[n - 1], <, sp + 2);
  return sp;
}

/* pixels per metre along x at the origin */
static double px_per_m(LwWindow *w)
{
  double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, xa, ya, xb, yb;
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), a, &xa, &ya));
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), b, &xb, &yb));
  return xb - xa;
}

/* snapping along a row of pointer positions one cell long: every snapped x
 * is a multiple of `spacing` and two neighbouring multiples come up */
static void check_snap_spacing(LwWindow *w, double spacing)
{
  LwEditor *ed = lwt_editor_of(w);
  /* a pointer row far from the link's ends (points snap before the grid) */
  GtkWidget *view = lw_window_get_view(w);
  double x = 0.2 * gtk_widget_get_width(view), y = 0.15 * gtk_widget_get_height(view);
  for (int k = 0; k < 2; k++) {
    double e[3] = {k, 0, 0}, ex, ey;
    g_assert_true(lw_editor_world_to_view(ed, e, &ex, &ey));
    g_assert_cmpfloat(hypot(ex - x, ey - y), >, 40);
  }
  double cell = spacing * px_per_m(w);
  double lo = INFINITY, hi = -INFINITY;
  for (double dx = 0; dx <= cell + 1; dx += 1) {
    double s[3];
    g_assert_true(lw_editor_snap(ed, x + dx, y, s));
    double k = s[0] / spacing;
    g_assert_cmpfloat(fabs(k - round(k)), <, 1e-6);
    lo = fmin(lo, s[0]), hi = fmax(hi, s[0]);
  }
  g_assert_cmpfloat(fabs(hi - lo - spacing), <, 1e-9);
}

/* after the first link, the grid covers the view at the snapping spacing;
 * zoomed in it keeps it, zoomed out it gets coarser by tens and snapping
 * follows */
static void test_grid(void)
{
  LwWindow *w = lw_window_new(app);
  lw_window_open_builtin(w);
  gtk_window_present(GTK_WINDOW(w));
  lwt_await(lwt_is_mapped, w, 10);
  lwt_act(w, "new");
  enter_edit_mode(w);
  LwEditor *ed = lwt_editor_of(w);
  double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, xa, ya, xb, yb;
  g_assert_true(lw_editor_world_to_view(ed, a, &xa, &ya));
  g_assert_true(lw_editor_world_to_view(ed, b, &xb, &yb));
  g_assert_true(lw_editor_stroke(ed, "link", xa, ya, xb, yb));
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 1);
  LwView3d *view = LW_VIEW3D(lw_window_get_view(w));
  double sp = grid_spacing_px(w, "grid-first-link");
  double ppm = px_per_m(w);
  g_test_message("first link: %.1f px per m, grid %.4f m", ppm, sp / ppm);
  g_assert_cmpfloat(fabs(sp / ppm - 0.1), <, 0.1 * 0.05);
  check_snap_spacing(w, 0.1);
  /* zoomed in: still the snapping step */
  lw_view3d_zoom(view, 0.3);
  sp = grid_spacing_px(w, "grid-zoomed-in");
  ppm = px_per_m(w);
  g_test_message("zoomed in: %.1f px per m, grid %.4f m", ppm, sp / ppm);
  g_assert_cmpfloat(fabs(sp / ppm - 0.1), <, 0.1 * 0.05);
  check_snap_spacing(w, 0.1);
  /* zoomed far out: a coarser grid, and snapping on it */
  lw_view3d_zoom(view, 40);
  sp = grid_spacing_px(w, "grid-zoomed-out");
  ppm = px_per_m(w);
  double m = sp / ppm, decade = pow(10, round(log10(m / 0.1)));
  g_test_message("zoomed out: %.2f px per m, grid %.4f m", ppm, m);
  g_assert_cmpfloat(decade, >=, 10);
  g_assert_cmpfloat(fabs(m / (0.1 * decade) - 1), <, 0.05);
  check_snap_spacing(w, 0.1 * decade);
  gtk_window_destroy(GTK_WINDOW(w));
}


/* ---- the drawing labels ---------------------------------------------------------- */

/* strokes drawn with the X pointer, held before the release: the length
 * and the coordinates are both shown and never overlap */
static void test_stroke_labels(void)
{
  pointer_init();
  if (!pointer) {
    g_test_skip("no XTest pointer");
    return;
  }
  LwWindow *w = lw_window_new(app);
  lw_window_open_builtin(w);
  gtk_window_present(GTK_WINDOW(w));
  lwt_await(lwt_is_mapped, w, 10);
  lwt_act(w, "new");
  enter_edit_mode(w);
  lwt_editor_settle(w);
  xbutton(pointer, FALSE); /* no button left down by an earlier failure */
  const double ends[][2] = {{1, 0}, {0.2, 0}, {0.1, 0.1}, {0.5, -0.5}, {0, 0.6}, {-0.3, 0.1}, {-0.2, -0.4}, {0.6, 0.2}};
  GtkWidget *ed = GTK_WIDGET(lwt_editor_of(w));
  for (guint k = 0; k < G_N_ELEMENTS(ends); k++) {
    const double a[3] = {-0.3 + 0.3 * k, 2.2 - 0.6 * (k % 2), 0}, b[3] = {a[0] + ends[k][0], a[1] + ends[k][1], 0};
    int rx0, ry0, rx1, ry1;
    view_root_point(pointer, w, a, &rx0, &ry0);
    view_root_point(pointer, w, b, &rx1, &ry1);
    press_at(w, rx0, ry0);
    for (int i = 1; i <= 8; i++)
      xmove(pointer, rx0 + (rx1 - rx0) * i / 8, ry0 + (ry1 - ry0) * i / 8);
    drag_offset at = {lw_editor_get_stroke_gesture(lwt_editor_of(w)), rx1 - rx0, ry1 - ry0};
    lwt_await(drag_reached, &at, LWT_WAIT);
    int ticks = 0;
    guint id = gtk_widget_add_tick_callback(ed, lwt_count_tick, &ticks, NULL);
    gtk_widget_queue_draw(ed);
    lwt_await(lwt_two_ticks, &ticks, LWT_WAIT);
    gtk_widget_remove_tick_callback(ed, id);
    if (k <= 1) {
      g_autofree char *name = g_strdup_printf("labels-stroke-%u", k);
      shot(w, name);
    }
    graphene_rect_t box[4];
    int n = lw_editor_get_label_boxes(lwt_editor_of(w), box, 4);
    g_test_message("stroke %u: %d labels", k, n);
    g_assert_cmpint(n, >=, 2);
    for (int i = 0; i < n && i < 4; i++)
      for (int j = i + 1; j < n && j < 4; j++) {
        g_test_message("  (%.0f %.0f %.0f %.0f) (%.0f %.0f %.0f %.0f)", box[i].origin.x, box[i].origin.y,
                       box[i].size.width, box[i].size.height, box[j].origin.x, box[j].origin.y, box[j].size.width,
                       box[j].size.height);
        g_assert_false(graphene_rect_intersection(&box[i], &box[j], NULL));
      }
    xbutton(pointer, FALSE);
    lwt_spin(0.7); /* no double click with the next press */
  }
  gtk_window_destroy(GTK_WINDOW(w));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/drag/core/four-bar", test_core_four_bar);
  g_test_add_func("/drag/core/bad-input", test_core_bad_input);
  g_test_add_func("/drag/core/timing", test_core_timing);
  if (!gtk_init_check()) {
    printf("# no display: the window tests are left out (the test command starts Xvfb)\n");
    return g_test_run();
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/drag/window/pick-after-run", test_pick_after_run);
  g_test_add_func("/drag/window/drag-crank", test_drag_crank);
  g_test_add_func("/drag/window/grid", test_grid);
  g_test_add_func("/drag/window/stroke-labels", test_stroke_labels);
  int rc = g_test_run();
  g_object_unref(app);
  return rc;
}
