/* Building models with the mouse, through the window (needs a display: the
 * test command starts Xvfb).  On X11 with the XTest extension the pointer
 * itself is moved, pressed and released through the X server: palette items
 * are dragged from their buttons into the view by GTK's drag and drop, and
 * links are drawn by pressing and dragging in the view.  Elsewhere (or with
 * LW_TEST_POINTER=signals) the same steps go through the signals: the palette
 * button's GtkDragSource prepares the content, the editor's GtkDropTarget
 * receives it at view coordinates, strokes go through the editor's drag
 * gesture.  Properties are typed into the property page's fields and applied
 * with Enter.
 *
 *  - a four-bar drawn from an empty document, its lengths, masses, pins and
 *    initial condition set in the property page, runs and follows the
 *    shipped models/four-bar.json;
 *  - a slider-crank drawn in the plane with a slider along a drawn line and
 *    a motor: its stroke matches the closed form;
 *  - undo back to the empty document and redo to the end give the saved
 *    file byte for byte; reading the file back gives it again;
 *  - invalid edits are refused at the field, the model unchanged; a model
 *    that cannot assemble or has redundant joints is kept and flagged;
 *  - a process killed mid-edit leaves an autosave that the next start offers.
 * Screenshots of the steps go to LW_SCREENSHOT_DIR (or the build directory). */
#include "lw-test.h"
#include "lw-app-test.h"
#include "lw-test-xpointer.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "lw-application.h"
#include "lw-autosave.h"
#include "lw-editor.h"
#include "lw-palette.h"
#include "lw-prop-editor.h"
#include "lw-view3d.h"
#include "lw-window.h"
#include "lw_io.h"

static LwApplication *app;
static char *cache_dir;

/* ---- helpers (shared ones in lw-app-test.h) ------------------------------------ */

static char *json_of(LwWindow *w);

/* the pointer used by the helpers below: XTest when the display has it
 * (LW_TEST_POINTER=signals forces the signal path), else NULL */
static xpointer *pointer;

static LwWindow *new_window(void)
{
  pointer = xpointer_shared("signals of the drag source, drop target and gesture");
  return lwt_builtin_window(app);
}

static const char *shot_dir(void)
{
  const char *d = g_getenv("LW_SCREENSHOT_DIR");
  return d && *d ? d : LW_EDIT_SHOT_DIR;
}

static void shot(LwWindow *w, const char *name)
{
  g_free(lwt_shot(w, "edit", LW_EDIT_SHOT_DIR, name));
}

/* ---- the real pointer: XTest events through the X server (lw-test-xpointer.h) */

/* press at (x0, y0), move there in steps, release; then wait until the
 * signal 'done' of 'instance' says the drag was handled (a gesture's
 * drag-end, a drag source's drag-end): the X server delivers the events
 * when GTK gets to them, which on a loaded machine is long after they were
 * sent, so a fixed pause is not enough */
static void xdrag(xpointer *xp, int x0, int y0, int x1, int y1, gpointer instance, const char *done)
{
  int ended = 0;
  g_test_message("drag (%d, %d) -> (%d, %d)", x0, y0, x1, y1);
  gulong id = g_signal_connect_swapped(instance, done, G_CALLBACK(lwt_count_signal), &ended);
  xmove(xp, x0, y0);
  xbutton(xp, TRUE);
  for (int k = 1; k <= 12; k++)
    xmove(xp, x0 + (x1 - x0) * k / 12, y0 + (y1 - y0) * k / 12);
  lwt_spin(0.1);
  xbutton(xp, FALSE);
  /* the edit is made by then: a gesture's handler in the editor is
   * connected first, a drag source ends when the drop target has finished */
  gboolean handled = lwt_wait_until(lwt_counter_positive, &ended, LWT_WAIT);
  g_signal_handler_disconnect(instance, id);
  if (!handled)
    g_error("the drag from (%d, %d) to (%d, %d) was not handled within %g s (no %s from %s)", x0, y0, x1, y1,
            LWT_WAIT, done, G_OBJECT_TYPE_NAME(instance));
}

/* a palette item dragged to the world point p: the button's drag source
 * prepares the content, the editor's drop target receives it there */
static gboolean drop_at3(LwWindow *w, const char *id, const double p[3])
{
  LwPalette *pal = LW_PALETTE(lw_window_get_palette(w));
  GtkDragSource *src = lw_palette_get_drag_source(pal, id);
  g_assert_nonnull(src);
  if (pointer) { /* the button pressed, dragged into the view, released at p */
    lwt_editor_settle(w);
    GtkWidget *button = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(src));
    int bx, by, vx, vy;
    double x, y;
    g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), p, &x, &y));
    root_point(pointer, button, 0.5 * gtk_widget_get_width(button), 0.5 * gtk_widget_get_height(button), &bx, &by);
    root_point(pointer, GTK_WIDGET(lwt_editor_of(w)), x, y, &vx, &vy);
    g_autofree char *before = json_of(w);
    xdrag(pointer, bx, by, vx, vy, src, "drag-end");
    g_autofree char *after = json_of(w);
    return strcmp(before, after) != 0;
  }
  GdkContentProvider *content = NULL;
  g_signal_emit_by_name(src, "prepare", 0.0, 0.0, &content);
  g_assert_nonnull(content);
  GValue v = G_VALUE_INIT;
  g_value_init(&v, G_TYPE_STRING);
  g_assert_true(gdk_content_provider_get_value(content, &v, NULL));
  g_object_unref(content);
  double x, y;
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), p, &x, &y));
  GtkDropTarget *target = lw_editor_get_drop_target(lwt_editor_of(w));
  gboolean ok = FALSE;
  g_signal_emit_by_name(target, "drop", &v, x, y, &ok);
  g_value_unset(&v);
  return ok;
}

static gboolean drop_at(LwWindow *w, const char *id, double px, double py)
{
  double p[3] = {px, py, 0};
  return drop_at3(w, id, p);
}

/* a stroke with the primary button from world point a to b */
static void stroke3(LwWindow *w, const double a[3], const double b[3])
{
  double x0, y0, x1, y1;
  if (pointer)
    lwt_editor_settle(w);
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), a, &x0, &y0));
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), b, &x1, &y1));
  if (pointer) {
    int rx0, ry0, rx1, ry1;
    root_point(pointer, GTK_WIDGET(lwt_editor_of(w)), x0, y0, &rx0, &ry0);
    root_point(pointer, GTK_WIDGET(lwt_editor_of(w)), x1, y1, &rx1, &ry1);
    xdrag(pointer, rx0, ry0, rx1, ry1, lw_editor_get_stroke_gesture(lwt_editor_of(w)), "drag-end");
    return;
  }
  GtkGesture *g = lw_editor_get_stroke_gesture(lwt_editor_of(w));
  g_signal_emit_by_name(g, "drag-begin", x0, y0);
  for (int k = 1; k <= 4; k++)
    g_signal_emit_by_name(g, "drag-update", (x1 - x0) * k / 4, (y1 - y0) * k / 4);
  g_signal_emit_by_name(g, "drag-end", x1 - x0, y1 - y0);
}

static void stroke(LwWindow *w, double ax, double ay, double bx, double by)
{
  double a[3] = {ax, ay, 0}, b[3] = {bx, by, 0};
  stroke3(w, a, b);
}

static char *json_of(LwWindow *w)
{
  return lw_model_to_json(lw_window_get_desc(w));
}

/* the window's model is the one written as json */
typedef struct {
  LwWindow *w;
  const char *json;
} json_wait;

static gboolean json_reached(gpointer p)
{
  json_wait *j = p;
  g_autofree char *now = json_of(j->w);
  return !strcmp(now, j->json);
}

/* column of an output column name in a model, or -1 */
static int column(const lw_model *m, const char *name)
{
  char b[128];
  for (int c = 0; c < lw_model_output_columns(m); c++) {
    lw_model_output_column_name(m, c, b, sizeof b);
    if (!strcmp(b, name))
      return c;
  }
  return -1;
}

/* ---- building the four-bar ------------------------------------------------------ */
static void build_four_bar(LwWindow *w, gboolean shots)
{
  lwt_act(w, "new");
  lwt_editor_settle(w); /* the palette slides in, the drawing area is framed */
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 0);
  g_assert_true(g_variant_get_boolean(g_action_group_get_action_state(G_ACTION_GROUP(w), "edit-mode")));
  if (shots)
    shot(w, "tutorial-01-new");
  /* the crank, the coupler (from the crank's end), the rocker (to the coupler's end) */
  stroke(w, 0, 0, 0, 0.5);
  stroke(w, 0, 0.5, 1.7, 1.5);
  stroke(w, 2, 0, 1.7, 1.5);
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbodies, ==, 3);
  if (shots)
    shot(w, "tutorial-02-links");
  /* pins: to the ground at both ends, between the links where they meet */
  g_assert_true(drop_at(w, "revolute", 0, 0));
  g_assert_true(drop_at(w, "revolute", 0, 0.5));
  g_assert_true(drop_at(w, "revolute", 1.7, 1.5));
  g_assert_true(drop_at(w, "revolute", 2, 0));
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->njoints, ==, 4);
  g_assert_cmpstr(d->joints[0].body[0], ==, "ground");
  g_assert_cmpstr(d->joints[1].body[0], ==, "link1");
  g_assert_cmpstr(d->joints[1].body[1], ==, "link2");
  g_assert_cmpstr(d->joints[2].body[0], ==, "link2");
  g_assert_cmpstr(d->joints[2].body[1], ==, "link3");
  g_assert_cmpstr(d->joints[3].body[0], ==, "ground");
  /* the live check: one degree of freedom, assembled, runnable */
  const char *status = lw_editor_get_status(lwt_editor_of(w));
  g_test_message("after the pins: %s", status);
  g_assert_nonnull(strstr(status, "1 DOF"));
  g_assert_nonnull(lw_window_get_runner(w));
  if (shots)
    shot(w, "tutorial-03-pins");

  /* the shipped model's data, typed into the property page */
  lwt_pick(w, "bodies/link1");
  lwt_enter(w, "bodies/link1/name", "crank");
  lwt_enter(w, "bodies/crank/mass", "0.5");
  lwt_enter(w, "bodies/crank/com/0", "0.25");
  lwt_enter(w, "bodies/crank/inertia/2", "0.010416666666666666");
  lwt_pick(w, "bodies/link2");
  lwt_enter(w, "bodies/link2/name", "coupler");
  lwt_enter(w, "bodies/coupler/points/end/0", "2");
  lwt_enter(w, "bodies/coupler/mass", "2");
  lwt_enter(w, "bodies/coupler/com/0", "1");
  lwt_enter(w, "bodies/coupler/inertia/2", "0.6666666666666666");
  if (shots)
    shot(w, "tutorial-04-properties");
  lwt_pick(w, "bodies/link3");
  lwt_enter(w, "bodies/link3/name", "rocker");
  lwt_enter(w, "bodies/rocker/points/end/0", "1.5");
  lwt_enter(w, "bodies/rocker/mass", "1.5");
  lwt_enter(w, "bodies/rocker/com/0", "0.75");
  lwt_enter(w, "bodies/rocker/inertia/2", "0.28125");
  const char *names[4] = {"A", "B", "C", "D"};
  for (int j = 0; j < 4; j++) {
    g_autofree char *old = g_strdup_printf("joints/pin%d", j + 1);
    g_autofree char *field = g_strdup_printf("joints/pin%d/name", j + 1);
    lwt_pick(w, old);
    lwt_enter(w, field, names[j]);
  }
  lwt_pick(w, "joints/A");
  lwt_enter(w, "initial/A/value", "90"); /* degrees: the interface's default unit of angle */
  lwt_enter(w, "initial/A/velocity", "6 rad/s");
  /* the coupler's midpoint, plotted and traced */
  lwt_pick(w, "bodies/coupler");
  g_assert_true(lw_prop_editor_add_point(lwt_props_of(w)));
  g_assert_true(lw_prop_editor_trace_point(lwt_props_of(w), "p1"));
  lwt_pick(w, NULL);
  lwt_enter(w, "model/name", "Four-bar drawn");
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->noutputs, ==, 1);
  g_assert_nonnull(lw_window_get_runner(w));
}

static void test_four_bar(void)
{
  LwWindow *w = new_window();
  build_four_bar(w, TRUE);
  /* run it, flat out */
  LwSimRunner *r = lwt_run_to_end(w);
  guint n = lw_sim_runner_get_n_frames(r);
  g_assert_cmpuint(n, ==, 5001);
  shot(w, "tutorial-05-run");

  /* the shipped model, simulated by the library */
  lw_model *ref = lwt_open("four-bar.json");
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(ref, 5.0, 1e-3, &res, NULL, NULL), ==, LW_OK);
  g_assert_cmpint(res.rows, ==, (long)n);
  const lw_model *mine = lw_sim_runner_get_model(r);
  int cx = column(mine, "coupler_p1.x"), cy = column(mine, "coupler_p1.y");
  int rx = column(ref, "coupler_mid.x"), ry = column(ref, "coupler_mid.y");
  g_assert_cmpint(cx, >=, 0);
  g_assert_cmpint(rx, >=, 0);
  double *x = g_new(double, n), *y = g_new(double, n), dmax = 0;
  lw_sim_runner_copy_column(r, cx, 0, n, x);
  lw_sim_runner_copy_column(r, cy, 0, n, y);
  for (guint k = 0; k < n; k++) {
    double ex = lwt_at(&res, k, 1 + rx), ey = lwt_at(&res, k, 1 + ry);
    dmax = fmax(dmax, hypot(x[k] - ex, y[k] - ey));
  }
  g_test_message("coupler midpoint over 5 s: largest distance to the shipped model's %.3g m "
                 "(final (%.9f, %.9f) vs (%.9f, %.9f))",
                 dmax, x[n - 1], y[n - 1], lwt_at(&res, n - 1, 1 + rx), lwt_at(&res, n - 1, 1 + ry));
  g_assert_cmpfloat(dmax, <, 1e-8);
  g_free(x);
  g_free(y);
  lw_sim_result_clear(&res);
  lw_model_free(ref);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* undo to the empty document and redo to the end: the saved file exactly */
static void test_undo_redo_file(void)
{
  LwWindow *w = new_window();
  build_four_bar(w, FALSE);
  g_autofree char *dir = g_dir_make_tmp("lw-edit-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "drawn-four-bar.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  g_assert_true(lw_window_save_to_file(w, file));
  g_assert_false(lw_window_get_modified(w));
  g_autofree char *saved = NULL;
  g_assert_true(g_file_get_contents(path, &saved, NULL, NULL));
  g_autofree char *now = json_of(w);
  g_assert_cmpstr(now, ==, saved);
  /* the saved file reads back to the same description, and writes the same */
  lw_error err;
  lw_desc *back = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(back);
  g_autofree char *again = lw_model_to_json(back);
  g_assert_cmpstr(again, ==, saved);
  lw_desc_free(back);

  /* undo every edit since New */
  lw_desc *empty = lw_editor_new_document(TRUE);
  g_autofree char *empty_json = lw_model_to_json(empty);
  lw_desc_free(empty);
  int undone = 0;
  while (g_action_group_get_action_enabled(G_ACTION_GROUP(w), "undo")) {
    g_autofree char *j = json_of(w);
    if (!strcmp(j, empty_json))
      break;
    lwt_act(w, "undo");
    undone++;
  }
  g_autofree char *at_empty = json_of(w);
  g_assert_cmpstr(at_empty, ==, empty_json);
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 0);
  g_assert_null(lw_window_get_runner(w));
  g_test_message("%d edits undone to the empty document", undone);
  g_assert_cmpint(undone, >=, 25);
  for (int k = 0; k < undone; k++) {
    g_assert_true(g_action_group_get_action_enabled(G_ACTION_GROUP(w), "redo"));
    lwt_act(w, "redo");
  }
  g_assert_false(g_action_group_get_action_enabled(G_ACTION_GROUP(w), "redo"));
  g_autofree char *redone = json_of(w);
  g_assert_cmpstr(redone, ==, saved);
  g_assert_false(lw_window_get_modified(w)); /* the saved state is back */
  g_assert_nonnull(lw_window_get_runner(w));
  /* opened in a new window: the same file again */
  LwWindow *w2 = new_window();
  g_assert_true(lw_window_open_file(w2, file));
  g_autofree char *opened = json_of(w2);
  g_assert_cmpstr(opened, ==, saved);
  gtk_window_destroy(GTK_WINDOW(w2));
  gtk_window_destroy(GTK_WINDOW(w));
  g_unlink(path);
  g_rmdir(dir);
}

static gboolean flag_set(gpointer flag)
{
  return *(gboolean *)flag;
}

static void lwt_set_true(gboolean *flag)
{
  *flag = TRUE;
}

/* ---- moving points with the handles ------------------------------------------ */
static const lw_body_desc *body_named(LwWindow *w, const char *name)
{
  const lw_desc *d = lw_window_get_desc(w);
  for (int b = 0; b < d->nbodies; b++)
    if (!strcmp(d->bodies[b].name, name))
      return &d->bodies[b];
  g_error("no body %s", name);
  return NULL;
}

static void test_move_points(void)
{
  LwWindow *w = new_window();
  lwt_act(w, "new");
  lwt_editor_settle(w);
  LwPalette *pal = LW_PALETTE(lw_window_get_palette(w));
  stroke(w, 0, 0, 1, 0);
  g_assert_true(drop_at(w, "revolute", 0, 0));
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "1 DOF"));

  /* the move tool: a stroke from the link's end drags the end, and the
   * drawn link stays a uniform bar of 1 kg/m */
  lw_palette_set_stroke_tool(pal, "move");
  lwt_pick(w, NULL);
  stroke(w, 1, 0, 1.5, 0);
  const lw_body_desc *b = body_named(w, "link1");
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 1); /* moved, not drawn */
  g_assert_cmpfloat(b->points[1].p[0], ==, 1.5);
  g_assert_cmpfloat(b->points[1].p[1], ==, 0.0);
  g_assert_cmpfloat(b->geoms[0].to[0], ==, 1.5);
  g_assert_cmpfloat_with_epsilon(b->mass, 1.5, 1e-15);
  g_assert_cmpfloat_with_epsilon(b->com[0], 0.75, 1e-15);
  g_assert_cmpfloat_with_epsilon(b->inertia[2], 1.5 * 1.5 * 1.5 / 12, 1e-15);
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "1 DOF"));
  shot(w, "move-points");

  /* the selected pin's ground place wins over the link end it holds */
  lwt_pick(w, "joints/pin1");
  stroke(w, 0, 0, 0.2, 0.3);
  const lw_joint_desc *j = &lw_window_get_desc(w)->joints[0];
  g_assert_cmpfloat_with_epsilon(j->place[0].p[0], 0.2, 1e-12);
  g_assert_cmpfloat_with_epsilon(j->place[0].p[1], 0.3, 1e-12);
  b = body_named(w, "link1");
  g_assert_cmpfloat(b->points[0].p[0], ==, 0.0);
  g_assert_cmpfloat(b->points[0].p[1], ==, 0.0);
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "assembled"));

  /* a link whose mass was typed in keeps it: only the point and the bar move */
  lwt_pick(w, "bodies/link1");
  lwt_enter(w, "bodies/link1/mass", "3");
  lwt_pick(w, NULL);
  stroke(w, 1.7, 0.3, 1.2, 0.3);
  b = body_named(w, "link1");
  g_assert_cmpfloat_with_epsilon(b->points[1].p[0], 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon(b->geoms[0].to[0], 1.0, 1e-12);
  g_assert_cmpfloat(b->mass, ==, 3.0);
  g_assert_cmpfloat_with_epsilon(b->com[0], 0.75, 1e-15);

  /* with the move tool a drag on empty space pans; a move asked to start
   * on nothing is refused; the model is unchanged by either */
  g_autofree char *before = json_of(w);
  stroke(w, 0.6, 1.0, 0.9, 1.2);
  double e0[3] = {0.6, 1.0, 0}, ex, ey;
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), e0, &ex, &ey));
  g_assert_false(lw_editor_move(lwt_editor_of(w), ex, ey, ex + 30, ey));
  g_assert_nonnull(lw_editor_get_message(lwt_editor_of(w)));
  g_test_message("refused: %s", lw_editor_get_message(lwt_editor_of(w)));
  g_autofree char *after = json_of(w);
  g_assert_cmpstr(before, ==, after);

  /* typing a drawn link's end coordinate stretches it the same way */
  lw_palette_set_stroke_tool(pal, "link");
  stroke(w, 0, -1, 1, -1);
  lwt_pick(w, "bodies/link2");
  lwt_enter(w, "bodies/link2/points/end/0", "2");
  b = body_named(w, "link2");
  g_assert_cmpfloat(b->geoms[0].to[0], ==, 2.0);
  g_assert_cmpfloat_with_epsilon(b->mass, 2.0, 1e-15);
  g_assert_cmpfloat_with_epsilon(b->inertia[2], 8.0 / 12, 1e-15);

  /* undo takes the edits back one by one */
  lwt_act(w, "undo");
  lwt_act(w, "undo");
  lwt_act(w, "undo");
  b = body_named(w, "link1");
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 1);
  g_assert_cmpfloat(b->points[1].p[0], ==, 1.5);
  g_assert_cmpfloat(b->mass, ==, 3.0);
  lwt_act(w, "undo");
  lwt_act(w, "undo");
  b = body_named(w, "link1");
  g_assert_cmpfloat(lw_window_get_desc(w)->joints[0].place[0].p[0], ==, 0.0);
  g_assert_cmpfloat_with_epsilon(b->mass, 1.5, 1e-15);

  /* duplicate: a copy of the selected body alone, 0.2 m aside, undoable */
  lwt_pick(w, "bodies/link1");
  lwt_act(w, "duplicate");
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbodies, ==, 2);
  g_assert_cmpint(d->njoints, ==, 1);
  const lw_body_desc *b0 = &d->bodies[0], *b1 = &d->bodies[1];
  g_test_message("duplicate of %s: %s", b0->name, b1->name);
  g_assert_cmpstr(b1->name, !=, b0->name);
  g_assert_cmpfloat(b1->mass, ==, b0->mass);
  g_assert_cmpint(b1->npoints, ==, b0->npoints);
  g_assert_cmpfloat(b1->points[1].p[0], ==, b0->points[1].p[0]);
  g_assert_cmpfloat_with_epsilon(b1->position[0] - b0->position[0], 0.2, 1e-15);
  lwt_act(w, "undo");
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 1);

  /* closing with unsaved changes asks; Cancel keeps the window and the model,
   * Discard closes it */
  g_assert_true(lw_window_get_modified(w));
  g_autofree char *kept = json_of(w);
  gboolean destroyed = FALSE;
  g_signal_connect_swapped(w, "destroy", G_CALLBACK(lwt_set_true), &destroyed);
  gtk_window_close(GTK_WINDOW(w));
  lwt_await(lwt_dialog_shown, w, LWT_WAIT);
  AdwMessageDialog *ask = lwt_dialog_for(w);
  g_assert_false(destroyed);
  adw_message_dialog_response(ask, "cancel");
  lwt_spin(0.2);
  g_assert_false(destroyed);
  g_autofree char *still = json_of(w);
  g_assert_cmpstr(still, ==, kept);
  gtk_window_close(GTK_WINDOW(w));
  lwt_await(lwt_dialog_shown, w, LWT_WAIT);
  ask = lwt_dialog_for(w);
  adw_message_dialog_response(ask, "discard");
  /* the window goes when the main loop gets to it (late on a loaded machine) */
  lwt_await(flag_set, &destroyed, LWT_WAIT);
}

/* ---- the solids, the ground anchor and the loads of the palette ------------------ */
static void test_solids_and_loads(void)
{
  LwWindow *w = new_window();
  lwt_act(w, "new");
  lwt_editor_settle(w);
  g_assert_true(drop_at(w, "box", 0, 0));
  g_assert_true(drop_at(w, "cylinder", 1, 0));
  g_assert_true(drop_at(w, "sphere", 2, 0));
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbodies, ==, 3);
  const lw_geom_type types[3] = {LW_GEOM_BOX, LW_GEOM_CYLINDER, LW_GEOM_SPHERE};
  for (int b = 0; b < 3; b++) {
    g_assert_cmpint(d->bodies[b].geoms[0].type, ==, types[b]);
    g_assert_cmpfloat(d->bodies[b].mass, ==, 1.0);
    g_assert_cmpfloat_with_epsilon(d->bodies[b].position[0], (double)b, 1e-12); /* where it was dropped */
    g_assert_cmpfloat(d->bodies[b].inertia[2], >, 0.0);
  }
  g_assert_true(drop_at(w, "anchor", 0, 0));   /* the box clamped to the ground */
  g_assert_true(drop_at(w, "torque", 1, 0));   /* on the cylinder */
  g_assert_true(drop_at(w, "force", 2, 0));    /* at the sphere's centre */
  g_assert_false(drop_at(w, "torque", 3, 3)); /* on nothing: refused */
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->njoints, ==, 1);
  g_assert_cmpint(d->joints[0].type, ==, LW_JOINT_FIXED);
  g_assert_cmpstr(d->joints[0].body[0], ==, "ground");
  g_assert_cmpstr(d->joints[0].body[1], ==, d->bodies[0].name);
  g_assert_cmpint(d->nforces, ==, 2);
  g_assert_cmpint(d->forces[0].type, ==, LW_FORCE_TORQUE);
  g_assert_cmpstr(d->forces[0].body[0], ==, d->bodies[1].name);
  g_assert_cmpint(d->forces[1].type, ==, LW_FORCE_FORCE);
  g_assert_cmpstr(d->forces[1].body[0], ==, d->bodies[2].name);
  g_test_message("solids and loads: %s", lw_editor_get_status(lwt_editor_of(w)));
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "assembled"));
  shot(w, "solids-and-loads");
  gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- a spatial model, drawn on two work planes ---------------------------------- */
static void test_spatial(void)
{
  LwWindow *w = new_window();
  lwt_act(w, "new-spatial");
  lwt_editor_settle(w);
  g_assert_false(lw_window_get_desc(w)->planar);
  LwPalette *pal = LW_PALETTE(lw_window_get_palette(w));
  LwEditor *ed = lwt_editor_of(w);

  /* the front plane (x-y, through z = 0): a link along x, on a ball joint */
  lw_palette_set_work_plane(pal, 2, 0.0);
  g_assert_cmpint(lw_palette_get_plane_axis(pal), ==, 2);
  double probe[3] = {0.3, 0.7, 0}, x, y, got[3];
  g_assert_true(lw_editor_world_to_view(ed, probe, &x, &y));
  g_assert_true(lw_editor_snap(ed, x, y, got));
  g_assert_cmpfloat_with_epsilon(got[0], 0.3, 1e-12);
  g_assert_cmpfloat_with_epsilon(got[1], 0.7, 1e-12);
  g_assert_cmpfloat(got[2], ==, 0.0);
  double o[3] = {0, 0, 0}, a[3] = {1, 0, 0}, b[3] = {1, 0, 1};
  stroke3(w, o, a);
  g_assert_true(drop_at3(w, "spherical", o));
  shot(w, "spatial-front-plane");

  /* the side plane (y-z) moved to x = 1, through the link's end: a second
   * link along z from there, on a universal joint */
  lw_palette_set_work_plane(pal, 0, 1.0);
  g_assert_cmpint(lw_palette_get_plane_axis(pal), ==, 0);
  g_assert_cmpfloat(lw_palette_get_plane_offset(pal), ==, 1.0);
  double probe2[3] = {1.0, 0.4, 0.6};
  g_assert_true(lw_editor_world_to_view(ed, probe2, &x, &y));
  g_assert_true(lw_editor_snap(ed, x, y, got));
  g_assert_cmpfloat(got[0], ==, 1.0); /* on the moved plane */
  g_assert_cmpfloat_with_epsilon(got[1], 0.4, 1e-12);
  g_assert_cmpfloat_with_epsilon(got[2], 0.6, 1e-12);
  stroke3(w, a, b);
  g_assert_true(drop_at3(w, "universal", a));
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbodies, ==, 2);
  g_assert_cmpint(d->njoints, ==, 2);
  g_assert_cmpint(d->joints[0].type, ==, LW_JOINT_SPHERICAL);
  g_assert_cmpstr(d->joints[0].body[0], ==, "ground");
  g_assert_cmpint(d->joints[1].type, ==, LW_JOINT_UNIVERSAL);
  g_assert_cmpstr(d->joints[1].body[0], ==, "link1");
  g_assert_cmpstr(d->joints[1].body[1], ==, "link2");
  const char *status = lw_editor_get_status(ed);
  g_test_message("spatial double pendulum: %s", status);
  g_assert_nonnull(strstr(status, "5 DOF"));
  lwt_pick(w, "bodies/link2");
  g_assert_true(lw_prop_editor_trace_point(lwt_props_of(w), "end"));
  lwt_pick(w, NULL);
  lwt_act(w, "reset-camera");
  shot(w, "spatial-side-plane");

  /* run it; the drawn end starts where it was drawn */
  LwSimRunner *r = lwt_run_to_end(w);
  shot(w, "spatial-run");
  const lw_model *mine = lw_sim_runner_get_model(r);
  int cx = column(mine, "link2_end.x");
  g_assert_cmpint(cx, >=, 0);
  guint n = lw_sim_runner_get_n_frames(r);
  double e0[3], e1[3];
  for (int c = 0; c < 3; c++) {
    lw_sim_runner_copy_column(r, cx + c, 0, 1, e0 + c);
    lw_sim_runner_copy_column(r, cx + c, n - 1, 1, e1 + c);
  }
  g_test_message("link2 end: (%.6f, %.6f, %.6f) at 0, (%.6f, %.6f, %.6f) at the end", e0[0], e0[1], e0[2], e1[0],
                 e1[1], e1[2]);
  for (int c = 0; c < 3; c++)
    g_assert_cmpfloat_with_epsilon(e0[c], b[c], 1e-12);
  g_assert_cmpfloat(hypot(hypot(e1[0] - b[0], e1[1] - b[1]), e1[2] - b[2]), >, 0.1); /* it fell */

  /* the same document in the library, with its energy: no damping, so the
   * energy lost to the projections of ALI3-P falls with the square of the
   * step; the constraints hold to round-off */
  lw_desc *t = lw_desc_copy(lw_window_get_desc(w));
  lw_desc_add_output(t, "E", LW_OUT_TOTAL_ENERGY);
  lw_error err;
  lw_model *m = lw_compile(t, &err);
  g_assert_nonnull(m);
  int ce = column(m, "E"), cl = column(m, "link2_end.x");
  double spread[2];
  lw_sim_result res;
  for (int pass = 0; pass < 2; pass++) {
    double h = pass ? 5e-4 : 1e-3;
    g_assert_cmpint(lw_simulate(m, 2.0, h, &res, NULL, NULL), ==, LW_OK);
    double emin = INFINITY, emax = -INFINITY, dmax = 0;
    for (long k = 0; k < res.rows; k++) {
      double e = lwt_at(&res, k, 1 + ce);
      emin = fmin(emin, e), emax = fmax(emax, e);
      if (pass == 0 && k < (long)n) {
        double v;
        lw_sim_runner_copy_column(r, cx, (guint)k, 1, &v);
        dmax = fmax(dmax, fabs(v - lwt_at(&res, k, 1 + cl)));
      }
    }
    spread[pass] = emax - emin;
    g_test_message("h = %g s: energy over 2 s within [%.9f, %.9f] J (spread %.4g); max |Phi| %.3g%s", h, emin, emax,
                   spread[pass], res.max_constraint_residual, pass ? "" : "; the window's run is the library's");
    g_assert_cmpfloat(res.max_constraint_residual, <, 1e-10);
    if (pass == 0)
      g_assert_cmpfloat(dmax, <, 1e-12);
    if (pass == 0)
      lw_sim_result_clear(&res);
  }
  g_test_message("energy spread ratio h / (h/2): %.3f", spread[0] / spread[1]);
  g_assert_cmpfloat(spread[0], <, 0.01 * 15.0);      /* about 1 % of the 15-20 J the fall frees */
  g_assert_cmpfloat(spread[0] / spread[1], >, 3.0); /* second order (first: 2, third: 8) */
  g_assert_cmpfloat(spread[0] / spread[1], <, 5.5);
  lw_sim_result_clear(&res);
  lw_model_free(m);
  lw_desc_free(t);
  gtk_window_destroy(GTK_WINDOW(w));
}

static void view_root_point(xpointer *xp, LwWindow *w, double px, double py, int *rx, int *ry)
{
  double p[3] = {px, py, 0}, x, y;
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), p, &x, &y));
  root_point(xp, GTK_WIDGET(lwt_editor_of(w)), x, y, rx, ry);
}

/* a link drawn and a pin dragged from the palette with the pointer itself:
 * X events through the server, GTK's own drag and drop between the
 * palette's button and the view */
static void test_pointer(void)
{
  xpointer xp;
  if (!xpointer_open(&xp)) {
    xpointer_close(&xp);
    g_test_skip("needs X11 with the XTest extension (libX11, libXtst)");
    return;
  }
  LwWindow *w = new_window();
  lwt_act(w, "new");
  lwt_editor_settle(w);
  int ax, ay, bx, by;
  view_root_point(&xp, w, 0, 0, &ax, &ay);
  view_root_point(&xp, w, 1, 0.5, &bx, &by);
  xdrag(&xp, ax, ay, bx, by, lw_editor_get_stroke_gesture(lwt_editor_of(w)), "drag-end");
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbodies, ==, 1);
  g_test_message("drawn with the pointer: link1 from (%g, %g), angle %.6f rad", d->bodies[0].position[0],
                 d->bodies[0].position[1], d->bodies[0].angle);
  g_assert_cmpfloat(d->bodies[0].position[0], ==, 0.0);
  g_assert_cmpfloat_with_epsilon(d->bodies[0].angle, atan2(0.5, 1.0), 1e-12);
  /* the pin: from its palette button into the view, at the link's start */
  LwPalette *pal = LW_PALETTE(lw_window_get_palette(w));
  GtkWidget *pin = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(lw_palette_get_drag_source(pal, "revolute")));
  int px, py;
  root_point(&xp, pin, 0.5 * gtk_widget_get_width(pin), 0.5 * gtk_widget_get_height(pin), &px, &py);
  view_root_point(&xp, w, 0, 0, &ax, &ay);
  xdrag(&xp, px, py, ax, ay, lw_palette_get_drag_source(pal, "revolute"), "drag-end");
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->njoints, ==, 1);
  g_assert_cmpint(d->joints[0].type, ==, LW_JOINT_REVOLUTE);
  g_assert_cmpstr(d->joints[0].body[0], ==, "ground");
  g_assert_cmpstr(d->joints[0].body[1], ==, "link1");
  const char *status = lw_editor_get_status(lwt_editor_of(w));
  g_test_message("after the pin dropped with the pointer: %s", status);
  g_assert_nonnull(strstr(status, "1 DOF"));
  shot(w, "pointer-drag");
  gtk_window_destroy(GTK_WINDOW(w));
  xpointer_close(&xp);
}

/* ---- a slider-crank in the plane ---------------------------------------------- */
static void test_slider_crank(void)
{
  LwWindow *w = new_window();
  lwt_act(w, "new");
  lwt_editor_settle(w);
  stroke(w, 0, 0, 0, 0.3);       /* crank */
  stroke(w, 0, 0.3, 1.0, 0);     /* connecting rod */
  stroke(w, 1.0, 0, 1.3, 0);     /* the slider, drawn along its line */
  g_assert_true(drop_at(w, "revolute", 0, 0));
  g_assert_true(drop_at(w, "revolute", 0, 0.3));
  g_assert_true(drop_at(w, "revolute", 1.0, 0));
  /* a slider dropped on the middle of the drawn line */
  g_assert_true(drop_at(w, "prismatic", 1.15, 0));
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->njoints, ==, 4);
  g_assert_cmpint(d->joints[3].type, ==, LW_JOINT_PRISMATIC);
  g_assert_cmpstr(d->joints[3].body[0], ==, "ground");
  g_assert_cmpstr(d->joints[3].body[1], ==, "link3");
  g_test_message("slider-crank: %s", lw_editor_get_status(lwt_editor_of(w)));
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "1 DOF"));
  /* a motor on the crank's pin: one turn a second */
  g_assert_true(drop_at(w, "motor", 0, 0));
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->ndrivers, ==, 1);
  g_assert_cmpstr(d->drivers[0].joint, ==, "pin1");
  g_test_message("with the motor: %s", lw_editor_get_status(lwt_editor_of(w)));
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "0 left by the motors"));
  lwt_pick(w, "bodies/link3");
  g_assert_true(lw_prop_editor_trace_point(lwt_props_of(w), "start"));
  lwt_pick(w, NULL);
  lwt_enter(w, "solver/t_end", "1");
  shot(w, "slider-crank-drawn");
  LwSimRunner *r = lwt_run_to_end(w);
  guint n = lw_sim_runner_get_n_frames(r);
  int cx = column(lw_sim_runner_get_model(r), "link3_start.x"), cy = column(lw_sim_runner_get_model(r), "link3_start.y");
  g_assert_cmpint(cx, >=, 0);
  double *x = g_new(double, n), *y = g_new(double, n), lo = INFINITY, hi = -INFINITY, ymax = 0;
  lw_sim_runner_copy_column(r, cx, 0, n, x);
  lw_sim_runner_copy_column(r, cy, 0, n, y);
  for (guint k = 0; k < n; k++) {
    lo = fmin(lo, x[k]), hi = fmax(hi, x[k]);
    ymax = fmax(ymax, fabs(y[k]));
  }
  /* slider-crank with crank 0.3 and rod sqrt(1.09): the slider pin moves
   * between l - r and l + r on the x axis over one turn */
  double rr = 0.3, l = sqrt(1.09);
  g_test_message("slider travel [%.6f, %.6f], closed form [%.6f, %.6f], |y| <= %.2g", lo, hi, l - rr, l + rr, ymax);
  g_assert_cmpfloat(fabs(lo - (l - rr)), <, 1e-4);
  g_assert_cmpfloat(fabs(hi - (l + rr)), <, 1e-4);
  g_assert_cmpfloat(ymax, <, 1e-9);
  g_free(x);
  g_free(y);
  lwt_act(w, "reset-camera"); /* framed: the motor and the slider's rail and block show */
  shot(w, "slider-crank-run");
  gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- refusals and flags --------------------------------------------------------- */
static void test_invalid_edits(void)
{
  LwWindow *w = new_window();
  build_four_bar(w, FALSE);
  g_autofree char *before = json_of(w);
  LwPropEditor *pe = lwt_props_of(w);
  lwt_pick(w, "bodies/crank");
  g_assert_false(lw_prop_editor_enter(pe, "bodies/crank/mass", "-1"));
  g_test_message("mass -1: %s", lw_prop_editor_get_error(pe, "bodies/crank/mass"));
  g_assert_nonnull(strstr(lw_prop_editor_get_error(pe, "bodies/crank/mass"), "positive"));
  shot(w, "invalid-mass");
  g_assert_false(lw_prop_editor_enter(pe, "bodies/crank/points/end/0", "half a metre"));
  g_test_message("length 'half a metre': %s", lw_prop_editor_get_error(pe, "bodies/crank/points/end/0"));
  g_assert_nonnull(strstr(lw_prop_editor_get_error(pe, "bodies/crank/points/end/0"), "not a number"));
  g_assert_false(lw_prop_editor_enter(pe, "bodies/crank/com/0", "0,25"));
  g_assert_false(lw_prop_editor_enter(pe, "bodies/crank/name", "coupler"));
  g_assert_nonnull(strstr(lw_prop_editor_get_error(pe, "bodies/crank/name"), "taken"));
  lwt_pick(w, "joints/B");
  g_assert_false(lw_prop_editor_enter(pe, "joints/B/body2", "crank"));
  g_test_message("joint B body2 = crank: %s", lw_prop_editor_get_error(pe, "joints/B/body2"));
  g_assert_nonnull(strstr(lw_prop_editor_get_error(pe, "joints/B/body2"), "itself"));
  g_assert_false(lw_prop_editor_enter(pe, "joints/B/body2", "nobody"));
  /* nothing changed */
  g_autofree char *after = json_of(w);
  g_assert_cmpstr(after, ==, before);
  /* a joint dropped where one body has two points is refused the same way,
   * and a spatial joint in a planar model */
  g_assert_false(drop_at(w, "spherical", 0, 0.5));
  g_assert_nonnull(strstr(lw_editor_get_message(lwt_editor_of(w)), "planar"));
  g_assert_false(drop_at(w, "revolute", 5, 5));

  /* a coupler too long to close the loop: kept, shown as not assembling */
  lwt_pick(w, "bodies/coupler");
  lwt_enter(w, "bodies/coupler/points/end/0", "5");
  g_assert_null(lw_window_get_runner(w));
  double *v = lw_desc_field((lw_desc *)lw_window_get_desc(w), "bodies/coupler/points/end/0");
  g_assert_cmpfloat(*v, ==, 5.0);
  g_test_message("coupler 5 m: %s / %s", lw_editor_get_status(lwt_editor_of(w)), lw_window_get_message(w));
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "Cannot assemble"));
  g_assert_nonnull(lw_window_get_message(w));
  int flagged = 0;
  const char *names[4] = {"A", "B", "C", "D"};
  for (int j = 0; j < 4; j++)
    flagged += (lw_editor_get_joint_state(lwt_editor_of(w), names[j]) & LW_CHECK_CONFLICT) != 0;
  g_assert_cmpint(flagged, >, 0);
  shot(w, "cannot-assemble");
  lwt_act(w, "undo");
  g_assert_nonnull(lw_window_get_runner(w));
  g_autofree char *restored = json_of(w);
  g_assert_cmpstr(restored, ==, before);

  /* a second pin at A: redundant equations, both pins ringed */
  g_assert_true(drop_at(w, "revolute", 0, 0));
  g_assert_null(lw_window_get_runner(w));
  g_test_message("second pin at A: %s", lw_editor_get_status(lwt_editor_of(w)));
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "redundant"));
  g_assert_cmpint(lw_editor_get_joint_state(lwt_editor_of(w), "A") & LW_CHECK_REDUNDANT, !=, 0);
  g_assert_cmpint(lw_editor_get_joint_state(lwt_editor_of(w), "pin1") & LW_CHECK_REDUNDANT, !=, 0);
  g_assert_cmpint(lw_editor_get_joint_state(lwt_editor_of(w), "C") & LW_CHECK_REDUNDANT, ==, 0);
  shot(w, "redundant");
  /* delete it: runnable again */
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), "joints/pin1");
  lwt_act(w, "delete");
  g_assert_nonnull(lw_window_get_runner(w));
  g_autofree char *deleted = json_of(w);
  g_assert_cmpstr(deleted, ==, before);
  /* make parameter: one action on a field */
  lwt_pick(w, "bodies/crank");
  g_assert_true(lw_prop_editor_make_parameter(pe, "bodies/crank/mass"));
  const lw_desc *d = lw_window_get_desc(w);
  int k = lw_desc_param_index(d, "crank_mass");
  g_assert_cmpint(k, >=, 0);
  g_assert_cmpfloat(d->params[k].value, ==, 0.5);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- autosave and recovery ---------------------------------------------------- */
static int child_edit(void)
{
  /* a window that draws a link and pins it, then is killed */
  LwWindow *w = new_window();
  lwt_act(w, "new");
  lwt_editor_settle(w);
  stroke(w, 0, 0, 0.8, 0.6);
  g_assert_true(drop_at(w, "revolute", 0, 0));
  const char *p = lw_window_get_autosave_path(w);
  g_assert_nonnull(p);
  g_autofree char *marker = g_build_filename(cache_dir, "child-ready", NULL);
  g_file_set_contents(marker, p, -1, NULL);
  for (;;)
    lwt_spin(1);
  return 0;
}

/* whether an autosave's process still runs is told by its lock, not its
 * PID: a PID is given again to other processes */
static void test_autosave_owner(void)
{
  g_autofree char *dir = g_build_filename(cache_dir, "linkwright", "autosave", NULL);
  g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
  /* left by a process whose PID (1) now belongs to a process that runs */
  g_autofree char *json = g_build_filename(dir, "1-1.json", NULL);
  g_autofree char *lock = g_build_filename(dir, "1-1.lock", NULL);
  g_assert_true(g_file_set_contents(json, "{}", -1, NULL));
  g_assert_true(g_file_set_contents(lock, "", -1, NULL));
  g_autofree char *found = lw_autosave_find_orphan();
  g_assert_cmpstr(found, ==, json);
  /* a file from before the locks: the PID is all there is to go by */
  g_unlink(lock);
  g_autofree char *found2 = lw_autosave_find_orphan();
  g_assert_null(found2);
  /* this process's own: locked, not offered; removed with its lock */
  g_autofree char *mine = lw_autosave_path_new();
  g_assert_true(g_file_set_contents(mine, "{}", -1, NULL));
  g_autofree char *stem = g_strndup(mine, strlen(mine) - strlen(".json"));
  g_autofree char *mine_lock = g_strconcat(stem, ".lock", NULL);
  g_assert_true(g_file_test(mine_lock, G_FILE_TEST_EXISTS));
  g_autofree char *found3 = lw_autosave_find_orphan();
  g_assert_null(found3);
  lw_autosave_remove(mine);
  g_assert_false(g_file_test(mine, G_FILE_TEST_EXISTS));
  g_assert_false(g_file_test(mine_lock, G_FILE_TEST_EXISTS));
  /* a lock left without its file is cleared away */
  g_assert_true(g_file_set_contents(lock, "", -1, NULL));
  g_unlink(json);
  g_autofree char *found4 = lw_autosave_find_orphan();
  g_assert_null(found4);
  g_assert_false(g_file_test(lock, G_FILE_TEST_EXISTS));
}

static void test_kill_recover(void)
{
  g_autofree char *marker = g_build_filename(cache_dir, "child-ready", NULL);
  g_unlink(marker);
  const char *self_exe = g_test_get_filename(G_TEST_BUILT, "test-edit", NULL);
  char *argv[] = {(char *)self_exe, "--child-edit", NULL};
  GPid pid;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_async(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error));
  gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
  while (!g_file_test(marker, G_FILE_TEST_EXISTS) && g_get_monotonic_time() < end)
    g_usleep(50000);
  g_assert_true(g_file_test(marker, G_FILE_TEST_EXISTS));
  g_usleep(200000);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  g_spawn_close_pid(pid);
  g_assert_true(WIFSIGNALED(status));
  g_autofree char *autosave = NULL;
  g_assert_true(g_file_get_contents(marker, &autosave, NULL, NULL));
  g_autofree char *saved = NULL;
  g_assert_true(g_file_get_contents(autosave, &saved, NULL, NULL));
  g_test_message("killed %d; autosave %s", (int)pid, autosave);

  /* the next start offers it */
  LwWindow *w = new_window();
  g_assert_true(lw_window_offer_recovery(w));
  GtkWidget *dialog = lw_window_get_recovery_dialog(w);
  g_assert_nonnull(dialog);
  lwt_await(lwt_is_mapped, dialog, LWT_WAIT);
  lwt_settle(2);
  g_autofree char *png = g_build_filename(shot_dir(), "recovery-offer.png", NULL);
  g_mkdir_with_parents(shot_dir(), 0755);
  {
    /* the dialog itself, as drawn */
    GdkPaintable *paintable = gtk_widget_paintable_new(dialog);
    int dw = gtk_widget_get_width(dialog), dh = gtk_widget_get_height(dialog);
    GtkSnapshot *snap = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snap, dw, dh);
    GskRenderNode *node = gtk_snapshot_free_to_node(snap);
    if (node && dw > 0 && dh > 0) {
      GdkTexture *tex = gsk_renderer_render_texture(gtk_native_get_renderer(GTK_NATIVE(dialog)), node,
                                                    &GRAPHENE_RECT_INIT(0, 0, dw, dh));
      if (gdk_texture_save_to_png(tex, png))
        g_test_message("screenshot %s", png);
      g_object_unref(tex);
    }
    if (node)
      gsk_render_node_unref(node);
    g_object_unref(paintable);
  }
  adw_message_dialog_response(ADW_MESSAGE_DIALOG(dialog), "recover");
  json_wait recovered = {w, saved};
  lwt_await(json_reached, &recovered, LWT_WAIT);
  gtk_window_destroy(GTK_WINDOW(dialog));
  g_autofree char *now = json_of(w);
  g_assert_cmpstr(now, ==, saved);
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 1);
  g_assert_cmpint(lw_window_get_desc(w)->njoints, ==, 1);
  g_assert_true(lw_window_get_modified(w));
  g_assert_false(g_file_test(autosave, G_FILE_TEST_EXISTS)); /* taken over by this window */
  /* nothing left to offer */
  g_assert_false(lw_window_offer_recovery(w));
  shot(w, "recovered");
  gtk_window_destroy(GTK_WINDOW(w));
  g_unlink(marker);
}

/* ---- the rest of the tutorial: spring, motor, run, plot, sensitivity ---------------- */
#include "lw-sens-panel.h"

static gboolean sens_idle(gpointer p)
{
  return !lw_sens_panel_is_busy(LW_SENS_PANEL(p));
}

static void test_tutorial(void)
{
  LwWindow *w = new_window();
  build_four_bar(w, FALSE);
  /* a spring from the coupler's midpoint to a ground point above it */
  g_assert_nonnull(lw_window_get_runner(w));
  lw_palette_set_stroke_tool(LW_PALETTE(lw_window_get_palette(w)), "spring");
  const lw_desc *d = lw_window_get_desc(w);
  /* where the coupler's midpoint is drawn */
  LwSimRunner *r = lw_window_get_runner(w);
  int c = column(lw_sim_runner_get_model(r), "coupler_p1.x");
  double mx, my, t;
  double *out = g_new0(double, lw_model_output_columns(lw_sim_runner_get_model(r)) + 1);
  double *q = g_new0(double, lw_model_nq(lw_sim_runner_get_model(r)) + 1);
  g_assert_true(lw_sim_runner_get_frame(r, 0, &t, q, out));
  mx = out[c], my = out[c + 1];
  g_free(out);
  g_free(q);
  stroke(w, mx, my, 1.0, 2.5);
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->nforces, ==, 1);
  g_assert_cmpstr(d->forces[0].body[0], ==, "coupler");
  g_assert_cmpstr(d->forces[0].place[0].ref, ==, "p1");
  g_assert_cmpstr(d->forces[0].body[1], ==, "ground");
  lw_palette_set_stroke_tool(LW_PALETTE(lw_window_get_palette(w)), "link");
  lwt_pick(w, "forces/spring1");
  lwt_enter(w, "forces/spring1/stiffness", "50");
  shot(w, "tutorial-06-spring");
  /* a motor on A: the crank turns at 6 rad/s */
  g_assert_true(drop_at(w, "motor", 0, 0));
  lwt_pick(w, "joints/A");
  lwt_enter(w, "drivers/motor1/function/1", "6 rad/s");
  shot(w, "tutorial-07-motor");
  g_assert_nonnull(strstr(lw_editor_get_status(lwt_editor_of(w)), "0 left by the motors"));
  /* run, and plot the coupler point's path */
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(FALSE));
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, 120);
  g_assert_cmpint(lw_sim_runner_get_state(lw_window_get_runner(w)), ==, LW_RUNNER_FINISHED);
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("plots"));
  shot(w, "tutorial-08-plot");
  /* its sensitivity: an objective on the coupler point, the spring stiffness a parameter */
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(TRUE));
  /* the motor prescribes the crank: the path depends on the geometry, so
   * the crank length and where the point sits on the coupler become
   * parameters */
  lwt_pick(w, "bodies/crank");
  g_assert_true(lw_prop_editor_make_parameter(lwt_props_of(w), "bodies/crank/points/end/0"));
  lwt_pick(w, "bodies/coupler");
  g_assert_true(lw_prop_editor_make_parameter(lwt_props_of(w), "bodies/coupler/points/p1/0"));
  /* the objective: the coupler point's height, squared and integrated over
   * the run, from the model page's "New objective" form */
  lwt_pick(w, NULL);
  g_assert_false(lw_prop_editor_add_objective(lwt_props_of(w), "height", "coupler_p1.y", 0, "zero", "1"));
  g_test_message("refused: %s", lw_prop_editor_get_objective_error(lwt_props_of(w)));
  g_assert_nonnull(strstr(lw_prop_editor_get_objective_error(lwt_props_of(w)), "not a number"));
  g_assert_false(lw_prop_editor_add_objective(lwt_props_of(w), "coupler_p1", "coupler_p1.y", 0, "0", "1"));
  g_assert_nonnull(strstr(lw_prop_editor_get_objective_error(lwt_props_of(w)), "taken"));
  g_assert_cmpint(lw_window_get_desc(w)->nobjectives, ==, 0);
  g_assert_true(lw_prop_editor_add_objective(lwt_props_of(w), "height", "coupler_p1.y", 0, "0", "1"));
  const lw_desc *dd = lw_window_get_desc(w);
  g_assert_cmpint(dd->nobjectives, ==, 1);
  g_assert_cmpstr(dd->objectives[0].name, ==, "height");
  g_assert_cmpint(dd->objectives[0].nterms, ==, 1);
  g_assert_cmpstr(dd->objectives[0].terms[0].output, ==, "coupler_p1");
  g_assert_cmpint(dd->objectives[0].terms[0].component, ==, 1);
  g_assert_cmpint(dd->objectives[0].terms[0].kind, ==, LW_TERM_INTEGRAL);
  g_assert_cmpint(dd->objectives[0].terms[0].form, ==, LW_TERM_SQUARE);
  g_assert_cmpfloat(dd->objectives[0].terms[0].weight, ==, 1.0);
  lwt_settle(2); /* the new objective's rows laid out */
  lw_prop_editor_scroll_to_end(lwt_props_of(w));
  shot(w, "tutorial-09-objective");
  /* a second one, removed again: undoable edits like any other */
  g_assert_true(lw_prop_editor_add_objective(lwt_props_of(w), "final_x", "coupler_p1.x", 1, "1.5", "2"));
  g_assert_cmpint(lw_window_get_desc(w)->nobjectives, ==, 2);
  g_assert_true(lw_prop_editor_remove_objective(lwt_props_of(w), "final_x"));
  g_assert_cmpint(lw_window_get_desc(w)->nobjectives, ==, 1);
  lwt_act(w, "undo");
  g_assert_cmpint(lw_window_get_desc(w)->nobjectives, ==, 2);
  g_assert_cmpfloat(lw_window_get_desc(w)->objectives[1].terms[0].target[0], ==, 1.5);
  lwt_act(w, "undo");
  g_assert_cmpint(lw_window_get_desc(w)->nobjectives, ==, 1);
  LwSensPanel *panel = LW_SENS_PANEL(lw_window_get_sens_panel(w));
  lw_sens_panel_select(panel, "height", LW_SENS_ADJOINT);
  lwt_act(w, "run-sensitivity");
  lwt_await(sens_idle, panel, 120);
  const lw_sens_result *sr = lw_sens_panel_get_result(panel);
  g_assert_nonnull(sr);
  g_assert_cmpint(sr->status, ==, LW_OK);
  g_assert_cmpint(sr->nparams, ==, 2);
  g_test_message("height = %.6g, gradient (%s %.6g, %s %.6g)", sr->value[0], lw_window_get_desc(w)->params[0].name,
                 sr->gradient[0], lw_window_get_desc(w)->params[1].name, sr->gradient[1]);
  g_assert_cmpfloat(fabs(sr->gradient[0]), >, 1e-6);
  g_assert_cmpfloat(fabs(sr->gradient[1]), >, 1e-6);
  shot(w, "tutorial-10-sensitivity");
  gtk_window_destroy(GTK_WINDOW(w));
}

int main(int argc, char **argv)
{
  gboolean child = argc > 1 && !strcmp(argv[1], "--child-edit");
  if (!child) {
    /* autosaves of this test go to a private cache directory, which the
     * child process inherits */
    cache_dir = g_dir_make_tmp("lw-edit-cache-XXXXXX", NULL);
    g_setenv("XDG_CACHE_HOME", cache_dir, TRUE);
  } else
    cache_dir = g_strdup(g_getenv("XDG_CACHE_HOME"));
  if (child)
    argc = 1;
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  if (child)
    return child_edit();
  g_test_add_func("/edit/four-bar", test_four_bar);
  g_test_add_func("/edit/undo-redo-file", test_undo_redo_file);
  g_test_add_func("/edit/move-points", test_move_points);
  g_test_add_func("/edit/solids-and-loads", test_solids_and_loads);
  g_test_add_func("/edit/spatial", test_spatial);
  g_test_add_func("/edit/pointer", test_pointer);
  g_test_add_func("/edit/slider-crank", test_slider_crank);
  g_test_add_func("/edit/invalid-edits", test_invalid_edits);
  g_test_add_func("/edit/kill-recover", test_kill_recover);
  g_test_add_func("/edit/autosave-owner", test_autosave_owner);
  g_test_add_func("/edit/tutorial", test_tutorial);
  int rc = g_test_run();
  g_object_unref(app);
  lwt_rm_rf(cache_dir);
  g_free(cache_dir);
  return rc;
}
