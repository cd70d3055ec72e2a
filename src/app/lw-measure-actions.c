/* lw-measure-actions.c: win.measure, win.clear-measures and the
 * perturbation spring's link to the runner (see lw-measure-actions.h). */
#include "lw-measure-actions.h"

#include "lw-view3d.h"
#include "lw-window.h"

static void measure_change_state(GSimpleAction *a, GVariant *value, gpointer view)
{
  g_simple_action_set_state(a, value);
  lw_view3d_set_measure_tool(LW_VIEW3D(view), g_variant_get_boolean(value));
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
