/* lw-measure-actions.c: win.measure, win.clear-measures and the
 * perturbation spring's link to the runner (see lw-measure-actions.h). */
#include "lw-measure-actions.h"

#include "lw-view3d.h"
#include "lw-window.h"

#include "lw-palette.h"

/* the palette's tool changed away from Measure: the menu's tick follows */
static void stroke_tool_changed(GObject *palette, GParamSpec *pspec, gpointer action)
{
  (void)pspec;
  gboolean on = !g_strcmp0(lw_palette_get_stroke_tool(LW_PALETTE(palette)), "measure");
  GVariant *state = g_action_get_state(G_ACTION(action));
  gboolean was = g_variant_get_boolean(state);
  g_variant_unref(state);
  if (was && !on)
    g_simple_action_set_state(G_SIMPLE_ACTION(action), g_variant_new_boolean(FALSE));
}

static gboolean editing(GtkWidget *view)
{
  GtkRoot *root = gtk_widget_get_root(view);
  GVariant *st = root && G_IS_ACTION_GROUP(root) ? g_action_group_get_action_state(G_ACTION_GROUP(root), "edit-mode") : NULL;
  gboolean on = st && g_variant_get_boolean(st);
  if (st)
    g_variant_unref(st);
  return on;
}

/* Measure on: in editing mode the palette's Measure tool takes the clicks
 * (the editor has them there), outside it the view's measure tool */
static void measure_change_state(GSimpleAction *a, GVariant *value, gpointer view)
{
  g_simple_action_set_state(a, value);
  gboolean on = g_variant_get_boolean(value);
  lw_view3d_set_measure_tool(LW_VIEW3D(view), on);
  GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(view));
  GtkWidget *palette = LW_IS_WINDOW(root) ? lw_window_get_palette(LW_WINDOW(root)) : NULL;
  if (!palette)
    return;
  if (!g_object_get_data(G_OBJECT(palette), "lw-measure-action")) {
    g_object_set_data(G_OBJECT(palette), "lw-measure-action", a);
    g_signal_connect_object(palette, "notify::stroke-tool", G_CALLBACK(stroke_tool_changed), a, 0);
  }
  gboolean tool = !g_strcmp0(lw_palette_get_stroke_tool(LW_PALETTE(palette)), "measure");
  if (on && !tool && editing(GTK_WIDGET(view)))
    lw_palette_set_stroke_tool(LW_PALETTE(palette), "measure");
  else if (!on && tool)
    lw_palette_set_stroke_tool(LW_PALETTE(palette), "link");
}

static void clear_measures(GSimpleAction *a, GVariant *param, gpointer view)
{
  (void)a, (void)param;
  lw_view3d_clear_measures(LW_VIEW3D(view));
}

/* the view's grab (or its release) to the runner: only a running
 * simulation is perturbed; a release always clears */
static void perturbation_changed(LwView3d *view, gpointer map)
{
  LwSimRunner *r = LW_IS_WINDOW(map) ? lw_window_get_runner(LW_WINDOW(map)) : NULL;
  if (!r)
    return;
  int body;
  double p[3], target[3];
  if (lw_view3d_get_perturbation(view, &body, p, target) && lw_sim_runner_get_state(r) == LW_RUNNER_RUNNING)
    lw_sim_runner_set_perturbation(r, body, p, target);
  else
    lw_sim_runner_clear_perturbation(r);
}

void lw_measure_actions_install(GtkWidget *view, GActionMap *map)
{
  g_return_if_fail(LW_IS_VIEW3D(view));
  GSimpleAction *measure = g_simple_action_new_stateful("measure", NULL, g_variant_new_boolean(FALSE));
  g_signal_connect_object(measure, "change-state", G_CALLBACK(measure_change_state), view, 0);
  g_action_map_add_action(map, G_ACTION(measure));
  g_object_unref(measure);
  GSimpleAction *clear = g_simple_action_new("clear-measures", NULL);
  g_signal_connect_object(clear, "activate", G_CALLBACK(clear_measures), view, 0);
  g_action_map_add_action(map, G_ACTION(clear));
  g_object_unref(clear);
  g_signal_connect_object(view, "perturbation-changed", G_CALLBACK(perturbation_changed), map, 0);
  GtkApplication *app = GTK_IS_WINDOW(map) ? gtk_window_get_application(GTK_WINDOW(map)) : NULL;
  if (app) {
    const char *accels[] = {"<Control><Shift>m", NULL};
    gtk_application_set_accels_for_action(app, "win.measure", accels);
  }
}
