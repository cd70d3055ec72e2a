/* Flexible beams in the editor and the stress colouring of the view (needs a
 * display: the test command starts Xvfb).
 *
 *  - the core's edit layer knows beams: removing one takes the joints,
 *    outputs and parameter targets on it; renaming one renames them; its
 *    name is taken; lw_desc_find finds it;
 *  - the stress along a clamped cantilever settled under gravity
 *    (lw_scene_beam_stress) is the beam theory's rho A g (L - s)^2 / 2 * c / I
 *    at the root and falls to 0 at the tip;
 *  - a beam drawn with the palette's Beam tool (the X pointer through
 *    XTest when the display has it, else the editor's gesture) lands in
 *    the model; its elements, section and material are set on its page;
 *    a weld dropped on its start clamps it; a slider there is refused;
 *    undo takes the weld and then the beam away, redo brings them back;
 *    the saved file read back keeps them; the model runs;
 *  - with View > Colour Beams by Stress the cantilever's tube is red at the
 *    root and blue at the tip, the legend gives the range in MPa, and
 *    without it the tube has one colour.
 * Screenshots go to LW_SCREENSHOT_DIR/beamtool (or the build directory). */
#include "lw-test.h"
#include "lw-app-test.h"
#include "lw-test-xpointer.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lw-application.h"
#include "lw-editor.h"
#include "lw-inspector.h"
#include "lw-palette.h"
#include "lw-prop-editor.h"
#include "lw-stress-legend.h"
#include "lw-view3d.h"
#include "lw-window.h"
#include "lw_io.h"

static LwApplication *app;

/* ---- helpers (shared ones in lw-app-test.h) ---------------------------------- */

static xpointer *pointer;

static char *shot(LwWindow *w, const char *name)
{
  return lwt_shot(w, "beamtool", LW_BEAMTOOL_SHOT_DIR, name);
}

static LwWindow *new_window(void)
{
  pointer = xpointer_shared("signals of the editor's gesture");
  return lwt_builtin_window(app);
}

/* A stroke with the primary button from world point a to b; with `held`
 * a screenshot of the stroke being drawn is taken before the release (its
 * path returned, else NULL). */
static char *stroke3(LwWindow *w, const double a[3], const double b[3], const char *held)
{
  double x0, y0, x1, y1;
  lwt_await(lwt_palette_revealed, w, LWT_WAIT);
  lwt_settle(5); /* the layout, once a message bar has come or gone */
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), a, &x0, &y0));
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), b, &x1, &y1));
  GtkGesture *g = lw_editor_get_stroke_gesture(lwt_editor_of(w));
  char *png = NULL;
  if (pointer) {
    int rx0, ry0, rx1, ry1, ended = 0;
    root_point(pointer, GTK_WIDGET(lwt_editor_of(w)), x0, y0, &rx0, &ry0);
    root_point(pointer, GTK_WIDGET(lwt_editor_of(w)), x1, y1, &rx1, &ry1);
    gulong id = g_signal_connect_swapped(g, "drag-end", G_CALLBACK(lwt_count_signal), &ended);
    xmove(pointer, rx0, ry0);
    xbutton(pointer, TRUE);
    for (int k = 1; k <= 12; k++)
      xmove(pointer, rx0 + (rx1 - rx0) * k / 12, ry0 + (ry1 - ry0) * k / 12);
    if (held)
      png = shot(w, held);
    xbutton(pointer, FALSE);
    /* the editor's handler, connected first, has made the edit by then */
    lwt_await(lwt_counter_positive, &ended, LWT_WAIT);
    g_signal_handler_disconnect(g, id);
    return png;
  }
  g_signal_emit_by_name(g, "drag-begin", x0, y0);
  for (int k = 1; k <= 4; k++)
    g_signal_emit_by_name(g, "drag-update", (x1 - x0) * k / 4, (y1 - y0) * k / 4);
  if (held)
    png = shot(w, held);
  g_signal_emit_by_name(g, "drag-end", x1 - x0, y1 - y0);
  return png;
}

static char *stroke(LwWindow *w, double ax, double ay, double bx, double by, const char *held)
{
  double a[3] = {ax, ay, 0}, b[3] = {bx, by, 0};
  return stroke3(w, a, b, held);
}

/* a palette item dropped at world point (px, py): through the editor's
 * drop target, as GTK's drag and drop delivers it */
static gboolean drop_at3(LwWindow *w, const char *id, const double p[3])
{
  double x, y;
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), p, &x, &y));
  GValue v = G_VALUE_INIT;
  g_value_init(&v, G_TYPE_STRING);
  g_value_set_string(&v, id);
  gboolean ok = FALSE;
  g_signal_emit_by_name(lw_editor_get_drop_target(lwt_editor_of(w)), "drop", &v, x, y, &ok);
  g_value_unset(&v);
  return ok;
}

static gboolean drop_at(LwWindow *w, const char *id, double px, double py)
{
  double p[3] = {px, py, 0};
  return drop_at3(w, id, p);
}

/* the colour of the screenshot at view point (x, y): of the pixels within
 * 3 px, the most saturated (the tube, not the background around it) */
static void view_color(const char *png, LwWindow *w, double x, double y, int rgb[3])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new_from_file(png, &error);
  g_assert_no_error(error);
  GtkWidget *view = lw_window_get_view(w);
  graphene_point_t p;
  g_assert_true(gtk_widget_compute_point(view, GTK_WIDGET(w), &GRAPHENE_POINT_INIT((float)x, (float)y), &p));
  int nc = gdk_pixbuf_get_n_channels(pb), rs = gdk_pixbuf_get_rowstride(pb);
  int W = gdk_pixbuf_get_width(pb), H = gdk_pixbuf_get_height(pb);
  double sx = (double)W / gtk_widget_get_width(GTK_WIDGET(w)), sy = (double)H / gtk_widget_get_height(GTK_WIDGET(w));
  const guint8 *px = gdk_pixbuf_read_pixels(pb);
  int cx = (int)(p.x * sx), cy = (int)(p.y * sy), best = -1;
  for (int yy = MAX(cy - 3, 0); yy <= MIN(cy + 3, H - 1); yy++)
    for (int xx = MAX(cx - 3, 0); xx <= MIN(cx + 3, W - 1); xx++) {
      const guint8 *q = px + yy * rs + xx * nc;
      int sat = MAX(MAX(q[0], q[1]), q[2]) - MIN(MIN(q[0], q[1]), q[2]);
      if (sat > best) {
        best = sat;
        for (int c = 0; c < 3; c++)
          rgb[c] = q[c];
      }
    }
}

/* the view point of world point (px, py, 0) */
static void view_of(LwWindow *w, double px, double py, double *x, double *y)
{
  double p[3] = {px, py, 0};
  g_assert_true(lw_editor_world_to_view(lwt_editor_of(w), p, x, y));
}

/* ---- 1. the edit layer ---------------------------------------------------------- */

/* a planar model: a link, a beam welded to the ground and pinned to the
 * link, an output and a parameter on the beam */
static lw_desc *beam_model(void)
{
  lw_desc *d = lw_editor_new_document(TRUE);
  lw_body_desc *b = lw_desc_add_body(d, "link");
  b->mass = 1;
  b->inertia[2] = 0.1;
  lw_beam_desc *bm = lw_desc_add_beam(d, "beam", 4);
  bm->end[0] = 1;
  lw_joint_desc *j = lw_desc_add_joint(d, "weld", LW_JOINT_FIXED, "ground", "beam");
  j->has_at = 1;
  lw_output_desc *o = lw_desc_add_output(d, "tip", LW_OUT_BEAM_STRAIN);
  o->body = strdup("beam");
  lw_param_desc *p = lw_desc_add_param(d, "E", "beams/beam/young");
  p->targets = realloc(p->targets, 2 * sizeof *p->targets);
  p->targets[p->ntargets++] = strdup("bodies/link/mass");
  return d;
}

static void test_edit_layer(void)
{
  lw_desc *d = beam_model();
  int i = -1;
  g_assert_cmpint(lw_desc_find(d, "beams/beam", &i), ==, LW_ELEM_BEAM);
  g_assert_cmpint(i, ==, 0);
  g_assert_true(lw_desc_name_used(d, "beam"));
  char name[32];
  lw_desc_unique_name(d, "beam", name, sizeof name);
  g_assert_cmpstr(name, ==, "beam1");
  /* a rename follows the references */
  g_assert_true(lw_desc_rename(d, "beams/beam", "rod"));
  g_assert_cmpstr(d->beams[0].name, ==, "rod");
  g_assert_cmpstr(d->joints[0].body[1], ==, "rod");
  g_assert_cmpstr(d->outputs[0].body, ==, "rod");
  g_assert_cmpstr(d->params[0].targets[0], ==, "beams/rod/young");
  g_assert_false(lw_desc_rename(d, "beams/rod", "link")); /* taken by the body */
  /* removing it takes what is on it; the parameter keeps its other target */
  g_assert_cmpint(lw_desc_remove(d, "beams/rod"), ==, 3);
  g_assert_cmpint(d->nbeams, ==, 0);
  g_assert_cmpint(d->njoints, ==, 0);
  g_assert_cmpint(d->noutputs, ==, 0);
  g_assert_cmpint(d->nparams, ==, 1);
  g_assert_cmpint(d->params[0].ntargets, ==, 1);
  g_assert_cmpstr(d->params[0].targets[0], ==, "bodies/link/mass");
  g_assert_cmpint(d->nbodies, ==, 1);
  lw_desc_free(d);
}

/* ---- 2. the stress along a cantilever ------------------------------------------ */

#define CANT_L 1.0
#define CANT_H 0.02
#define CANT_RHO 7850.0
#define CANT_E 2.1e11

/* a steel cantilever along x, clamped at the ground's origin, its bending
 * damped (about half the critical damping of its first mode) so that it
 * settles under gravity within a second */
static lw_desc *cantilever(int nel)
{
  lw_desc *d = lw_editor_new_document(TRUE);
  lw_beam_desc *b = lw_desc_add_beam(d, "beam", nel);
  b->end[0] = CANT_L;
  b->young = CANT_E;
  b->density = CANT_RHO;
  b->damping = 0.01;
  b->size[0] = b->size[1] = CANT_H;
  lw_joint_desc *j = lw_desc_add_joint(d, "clamp", LW_JOINT_FIXED, "ground", "beam");
  j->has_at = 1;
  d->solver.t_end = 1.0;
  return d;
}

/* the stress of the beam theory at arc length s of the cantilever under
 * its weight: M = rho A g (L - s)^2 / 2, sigma = M (h / 2) / I */
static double cantilever_stress(double s)
{
  double A = CANT_H * CANT_H, I = CANT_H * CANT_H * CANT_H * CANT_H / 12;
  return CANT_RHO * A * 9.81 * (CANT_L - s) * (CANT_L - s) / 2 * (CANT_H / 2) / I;
}

static void test_cantilever_stress(void)
{
  lw_desc *d = cantilever(8);
  lw_model *m = lwt_compile(d);
  lw_data *data = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, data, &err), ==, LW_OK);
  for (int k = 0; k < 1000; k++) /* one second */
    g_assert_cmpint(lw_step(m, data, NULL, &err), ==, LW_OK);
  int n = lw_scene_beam_points(m);
  g_assert_cmpint(n, ==, 8 * LW_BEAM_DRAW_PER_ELEMENT + 1);
  double *s = g_new(double, n);
  lw_scene_beam_stress(m, data, s);
  double root = cantilever_stress(0);
  g_test_message("cantilever: stress at the root %.4g MPa (beam theory %.4g), at mid-length %.4g (%.4g), at the tip %.3g",
                 s[0] * 1e-6, root * 1e-6, s[n / 2] * 1e-6, cantilever_stress(0.5) * 1e-6, s[n - 1] * 1e-6);
  /* the cubic elements' curvature is linear in each: the root's is that of
   * the first element's end, within a few per cent with eight elements */
  g_assert_cmpfloat(fabs(s[0] - root), <, 0.06 * root);
  g_assert_cmpfloat(fabs(s[n / 2] - cantilever_stress(0.5)), <, 0.03 * root);
  g_assert_cmpfloat(s[n - 1], <, 0.01 * root);
  /* falls along the beam, but for the last hundredth near the tip, where
   * the small axial strain of the element ends shows */
  for (int k = 1; k < n; k++)
    if (s[k] > 0.01 * root)
      g_assert_cmpfloat(s[k], <=, s[k - 1] + 1e-3 * root);
  g_free(s);
  lw_data_free(data);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- 3. the Beam tool ------------------------------------------------------------ */

static void test_draw_beam(void)
{
  LwWindow *w = new_window();
  lwt_act(w, "new");
  lw_palette_set_stroke_tool(LW_PALETTE(lw_window_get_palette(w)), "beam");
  g_autofree char *drawing = stroke(w, 0, 0, 1, 0, "01-beam-drawn");
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbeams, ==, 1);
  g_assert_cmpint(d->nbodies, ==, 0);
  g_assert_cmpstr(d->beams[0].name, ==, "beam1");
  g_assert_cmpint(d->beams[0].nel, ==, LW_EDITOR_BEAM_ELEMENTS);
  g_assert_cmpfloat(fabs(d->beams[0].start[0]), <, 1e-9);
  g_assert_cmpfloat(fabs(d->beams[0].end[0] - 1), <, 1e-9);
  g_assert_cmpfloat(fabs(d->beams[0].end[1]), <, 1e-9);
  /* the view draws it while editing, in the beams' teal */
  g_autofree char *drawn = shot(w, "02-beam-in-model");
  double mx, my;
  int mid[3];
  view_of(w, 0.5, 0, &mx, &my);
  view_color(drawn, w, mx, my, mid);
  g_test_message("the drawn beam's colour at mid-length: (%d, %d, %d)", mid[0], mid[1], mid[2]);
  g_assert_cmpint(mid[1], >, mid[0] + 40);
  g_assert_cmpint(mid[2], >, mid[0] + 40);

  /* its page: elements, section, material */
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("inspector"));
  lwt_pick(w, "beams/beam1");
  lwt_enter(w, "beams/beam1/elements", "5");
  g_assert_false(lw_prop_editor_enter(lwt_props_of(w), "beams/beam1/elements", "2.5"));
  g_assert_nonnull(lw_prop_editor_get_error(lwt_props_of(w), "beams/beam1/elements"));
  g_assert_true(lw_prop_editor_set_beam_section(lwt_props_of(w), "beam1", LW_SECTION_TUBE));
  lwt_enter(w, "beams/beam1/size/0", "30 mm");
  lwt_enter(w, "beams/beam1/size/1", "20 mm");
  lwt_enter(w, "beams/beam1/young", "70 GPa");
  g_assert_false(lw_prop_editor_enter(lwt_props_of(w), "beams/beam1/density", "-1"));
  lwt_enter(w, "beams/beam1/density", "2700");
  g_assert_cmpstr(lw_prop_editor_get_unit(lwt_props_of(w), "beams/beam1/young"), ==, "Pa");
  g_assert_cmpstr(lw_prop_editor_get_unit(lwt_props_of(w), "beams/beam1/density"), ==, "kg/m³");
  g_free(shot(w, "07-beam-page"));
  g_assert_true(lw_prop_editor_set_beam_section(lwt_props_of(w), "beam1", LW_SECTION_GENERIC));
  d = lw_window_get_desc(w);
  double A = M_PI * (0.03 * 0.03 - 0.02 * 0.02) / 4;
  g_assert_cmpint(d->beams[0].nel, ==, 5);
  g_assert_cmpint(d->beams[0].section, ==, LW_SECTION_GENERIC);
  g_assert_cmpfloat(fabs(d->beams[0].area - A), <, 1e-12);
  g_assert_cmpfloat(d->beams[0].young, ==, 7e10);
  g_assert_cmpfloat(d->beams[0].density, ==, 2700);
  g_assert_nonnull(lw_prop_editor_get_entry(lwt_props_of(w), "beams/beam1/inertia"));
  g_assert_true(lw_prop_editor_set_beam_section(lwt_props_of(w), "beam1", LW_SECTION_RECTANGLE));
  lwt_enter(w, "beams/beam1/size/0", "20 mm");
  lwt_enter(w, "beams/beam1/size/1", "20 mm");
  lwt_enter(w, "beams/beam1/young", "210 GPa");
  lwt_enter(w, "beams/beam1/density", "7850");
  lwt_enter(w, "beams/beam1/damping", "0.01");
  lwt_pick(w, NULL);
  lwt_enter(w, "solver/t_end", "1");

  /* a slider has no place on a beam; a weld on its start clamps it */
  g_assert_false(drop_at(w, "prismatic", 0, 0));
  g_assert_nonnull(strstr(lw_editor_get_message(lwt_editor_of(w)), "beam"));
  guint depth = lw_window_get_undo_depth(w);
  g_assert_true(drop_at(w, "fixed", 0, 0));
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->njoints, ==, 1);
  g_assert_cmpstr(d->joints[0].body[0], ==, "ground");
  g_assert_cmpstr(d->joints[0].body[1], ==, "beam1");
  g_assert_cmpfloat(d->joints[0].place[1].p[0], ==, 0);
  g_assert_nonnull(lw_window_get_runner(w)); /* it compiles and assembles */

  /* undo: the weld goes, then (back through the edits) the beam; redo brings them back */
  lwt_act(w, "undo");
  g_assert_cmpint(lw_window_get_desc(w)->njoints, ==, 0);
  g_assert_cmpint(lw_window_get_desc(w)->nbeams, ==, 1);
  while (lw_window_get_desc(w)->nbeams > 0 && lw_window_get_undo_depth(w) > 0)
    lwt_act(w, "undo");
  g_assert_cmpint(lw_window_get_desc(w)->nbeams, ==, 0);
  while (lw_window_get_undo_depth(w) < depth + 1)
    lwt_act(w, "redo");
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbeams, ==, 1);
  g_assert_cmpint(d->njoints, ==, 1);
  g_assert_cmpint(d->beams[0].nel, ==, 5);

  /* saved and read back */
  g_autofree char *dir = g_dir_make_tmp("lw-beamtool-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "cantilever.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  g_assert_true(lw_window_save_to_file(w, file));
  g_autofree char *saved = lw_model_to_json(lw_window_get_desc(w));
  LwWindow *w2 = new_window();
  g_assert_true(lw_window_open_file(w2, file));
  const lw_desc *d2 = lw_window_get_desc(w2);
  g_assert_cmpint(d2->nbeams, ==, 1);
  g_assert_cmpint(d2->beams[0].nel, ==, 5);
  g_assert_cmpint(d2->beams[0].section, ==, LW_SECTION_RECTANGLE);
  g_assert_cmpfloat(d2->beams[0].young, ==, 2.1e11);
  g_assert_cmpstr(d2->joints[0].body[1], ==, "beam1");
  g_autofree char *read = lw_model_to_json(d2);
  g_assert_cmpstr(read, ==, saved);
  gtk_window_destroy(GTK_WINDOW(w2));
  g_unlink(path);
  g_rmdir(dir);

  /* it runs: the tip hangs below the root */
  LwSimRunner *r = lwt_run_to_end(w);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, 1001);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a pin on the end of a beam where a link's end lies joins the two; a weld
 * clamps its start; a torque on a beam is refused; a click selects the
 * beam and Delete takes it with its joints */
static void test_pin_link(void)
{
  LwWindow *w = new_window();
  lwt_act(w, "new");
  LwPalette *pal = LW_PALETTE(lw_window_get_palette(w));
  lw_palette_set_stroke_tool(pal, "beam");
  stroke(w, 0, 0, 1, 0, NULL);
  lw_palette_set_stroke_tool(pal, "link");
  stroke(w, 1, 0, 1, -0.5, NULL); /* from the beam's end: snapped to it */
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbeams, ==, 1);
  g_assert_cmpint(d->nbodies, ==, 1);
  g_assert_cmpfloat(fabs(d->bodies[0].position[0] - 1), <, 1e-9);
  g_assert_true(drop_at(w, "revolute", 1, 0));
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->njoints, ==, 1);
  g_assert_cmpint(d->joints[0].type, ==, LW_JOINT_REVOLUTE);
  g_assert_cmpstr(d->joints[0].body[0], ==, "link1");
  g_assert_cmpstr(d->joints[0].body[1], ==, "beam1");
  g_assert_cmpfloat(fabs(d->joints[0].place[1].p[0] - 1), <, 1e-9); /* s = L: the beam's end */
  g_assert_true(drop_at(w, "fixed", 0, 0));
  g_assert_cmpint(lw_window_get_desc(w)->njoints, ==, 2);
  g_assert_nonnull(lw_window_get_runner(w)); /* it compiles and assembles */
  g_assert_false(drop_at(w, "torque", 0, 0));
  g_assert_nonnull(strstr(lw_editor_get_message(lwt_editor_of(w)), "torque"));
  g_assert_true(drop_at(w, "force", 1, 0));
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->nforces, ==, 1);
  g_assert_cmpstr(d->forces[0].body[0], ==, "link1"); /* the link's end comes first where both end */
  /* the beam selected by a click on it, then deleted with what is on it */
  double x, y;
  view_of(w, 0.5, 0, &x, &y);
  lw_editor_click(lwt_editor_of(w), x, y);
  g_assert_cmpstr(lw_view3d_get_selection(LW_VIEW3D(lw_window_get_view(w))), ==, "beams/beam1");
  lwt_act(w, "delete");
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbeams, ==, 0);
  g_assert_cmpint(d->njoints, ==, 0);
  g_assert_cmpint(d->nbodies, ==, 1);
  g_assert_cmpint(d->nforces, ==, 1);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a spatial model: the beam drawn on the work plane; a pin is refused on
 * its end, a ball holds it there */
static void test_spatial_beam(void)
{
  LwWindow *w = new_window();
  lwt_act(w, "new-spatial");
  lw_palette_set_stroke_tool(LW_PALETTE(lw_window_get_palette(w)), "beam");
  const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0.5}; /* on the top plane, y = 0 */
  stroke3(w, a, b, NULL);
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpint(d->nbeams, ==, 1);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat(fabs(d->beams[0].end[i] - b[i]), <, 1e-9);
  g_assert_false(drop_at3(w, "revolute", a));
  g_assert_nonnull(strstr(lw_editor_get_message(lwt_editor_of(w)), "ball"));
  g_assert_true(drop_at3(w, "spherical", a));
  d = lw_window_get_desc(w);
  g_assert_cmpint(d->njoints, ==, 1);
  g_assert_cmpint(d->joints[0].type, ==, LW_JOINT_SPHERICAL);
  g_assert_cmpstr(d->joints[0].body[1], ==, "beam1");
  g_assert_nonnull(lw_window_get_runner(w)); /* it compiles and assembles */
  g_free(shot(w, "06-spatial-beam"));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- 4. the stress colouring -------------------------------------------------- */

static gboolean is_red(const int c[3])
{
  return c[0] > 140 && c[0] > c[1] + 60 && c[0] > c[2] + 60;
}

static gboolean is_blue(const int c[3])
{
  return c[2] > 120 && c[2] > c[0] + 50;
}

static gboolean widget_visible(gpointer widget)
{
  return gtk_widget_get_visible(GTK_WIDGET(widget));
}

static gboolean widget_hidden(gpointer widget)
{
  return !gtk_widget_get_visible(GTK_WIDGET(widget));
}

static gboolean inspector_on_beam(gpointer w)
{
  return !g_strcmp0(lw_inspector_get_selection(LW_INSPECTOR(lw_window_get_inspector(LW_WINDOW(w)))), "beams/beam");
}

static void test_stress_colours(void)
{
  LwWindow *w = new_window();
  lw_desc *d = cantilever(8);
  g_assert_true(lw_window_open_document(w, d, "cantilever"));
  lwt_run_to_end(w);
  lwt_settle(5); /* the last frame drawn where view_of looks */
  /* the view's points a tenth of the length from each end */
  double rx, ry, tx, ty;
  view_of(w, 0.1 * CANT_L, 0, &rx, &ry);
  view_of(w, 0.9 * CANT_L, 0, &tx, &ty);
  g_autofree char *plain = shot(w, "03-cantilever-plain");
  int root0[3], tip0[3];
  view_color(plain, w, rx, ry, root0);
  view_color(plain, w, tx, ty, tip0);
  GtkWidget *legend = lw_window_get_stress_legend(w);
  g_assert_false(gtk_widget_get_visible(legend));

  lwt_set_state(w, "show-stress", TRUE);
  lwt_await(widget_visible, legend, LWT_WAIT);
  g_assert_true(gtk_widget_get_visible(legend));
  double lo, hi;
  lw_stress_legend_get_range(LW_STRESS_LEGEND(legend), &lo, &hi);
  g_autofree char *text = lw_stress_legend_get_text(LW_STRESS_LEGEND(legend));
  g_test_message("legend: %s (beam theory at the root: %.4g MPa)", text, cantilever_stress(0) * 1e-6);
  g_assert_cmpfloat(lo, ==, 0);
  g_assert_cmpfloat(fabs(hi - cantilever_stress(0)), <, 0.06 * cantilever_stress(0));
  g_assert_nonnull(strstr(text, "MPa"));
  g_autofree char *coloured = shot(w, "04-cantilever-stress");
  int root1[3], tip1[3];
  view_color(coloured, w, rx, ry, root1);
  view_color(coloured, w, tx, ty, tip1);
  g_test_message("tube colour near the root: (%d, %d, %d) plain, (%d, %d, %d) by stress; near the tip: (%d, %d, %d) "
                 "plain, (%d, %d, %d) by stress",
                 root0[0], root0[1], root0[2], root1[0], root1[1], root1[2], tip0[0], tip0[1], tip0[2], tip1[0], tip1[1],
                 tip1[2]);
  /* plain: one colour along the tube (teal); by stress: red at the root, blue at the tip */
  for (int c = 0; c < 3; c++)
    g_assert_cmpint(abs(root0[c] - tip0[c]), <, 30);
  g_assert_false(is_red(root0));
  g_assert_true(is_red(root1));
  g_assert_true(is_blue(tip1));

  /* the beam selected: its properties on the read-only inspector */
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), "beams/beam");
  lwt_await(inspector_on_beam, w, LWT_WAIT);
  LwInspector *ins = LW_INSPECTOR(lw_window_get_inspector(w));
  g_assert_cmpstr(lw_inspector_get_selection(ins), ==, "beams/beam");
  g_assert_cmpstr(lw_inspector_lookup(ins, "Elements"), ==, "8");
  g_assert_cmpstr(lw_inspector_lookup(ins, "Section"), ==, "rectangle");
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), NULL);

  /* off again: the legend goes, the tube is plain */
  lwt_set_state(w, "show-stress", FALSE);
  lwt_await(widget_hidden, legend, LWT_WAIT);
  g_assert_false(gtk_widget_get_visible(legend));
  g_autofree char *again = shot(w, "05-cantilever-plain-again");
  int root2[3];
  view_color(again, w, rx, ry, root2);
  g_assert_false(is_red(root2));
  gtk_window_destroy(GTK_WINDOW(w));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/beamtool/edit-layer", test_edit_layer);
  g_test_add_func("/beamtool/cantilever-stress", test_cantilever_stress);
  if (!gtk_init_check()) {
    g_test_message("no display: the window tests are left out");
    return g_test_run();
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/beamtool/draw", test_draw_beam);
  g_test_add_func("/beamtool/pin-link", test_pin_link);
  g_test_add_func("/beamtool/spatial", test_spatial_beam);
  g_test_add_func("/beamtool/stress-colours", test_stress_colours);
  int rc = g_test_run();
  g_object_unref(app);
  return rc;
}
