/* The model page's solver settings (needs a display: the test command
 * starts Xvfb).
 *
 *  - the page shows the end time and step, the integrator, the step
 *    control and, by the choices, the numerical damping (ALI3-P at a fixed
 *    step) or the tolerances and order (the tolerance mode);
 *  - values out of range are refused with the reason, the model unchanged;
 *    the tolerances and the damping are settings, not parameters (no
 *    "make parameter" button);
 *  - the variational integrator takes the fixed step and no damping with
 *    it, and refuses the tolerance mode;
 *  - each choice is one undoable edit; the saved file read back keeps
 *    them; the model runs with each integrator and in the tolerance mode,
 *    and the header says so.
 * Screenshots go to LW_SCREENSHOT_DIR/solver-ui (or the build directory). */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lw-application.h"
#include "lw-prop-editor.h"
#include "lw-window.h"
#include "lw_io.h"

static LwApplication *app;

/* ---- helpers (after tests/test-beamtool.c) ------------------------------------- */

static LwWindow *new_window(void)
{
  LwWindow *w = lwt_builtin_window(app);
  lwt_show_page(w, "inspector");
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_is_mapped, lw_window_get_editor(w), LWT_WAIT);
  return w;
}

static gboolean shown(LwWindow *w, const char *path)
{
  return lw_prop_editor_get_entry(lwt_props_of(w), path) != NULL;
}

/* the field's row has a "make parameter" button (a flat button beside the unit) */
static gboolean has_param_button(LwWindow *w, const char *path)
{
  GtkWidget *e = lw_prop_editor_get_entry(lwt_props_of(w), path);
  g_assert_nonnull(e);
  for (GtkWidget *c = gtk_widget_get_first_child(gtk_widget_get_parent(e)); c; c = gtk_widget_get_next_sibling(c))
    if (GTK_IS_BUTTON(c))
      return TRUE;
  return FALSE;
}

static const lw_solver_desc *solver(LwWindow *w)
{
  return &lw_window_get_desc(w)->solver;
}

static gboolean tolerance_mode(gpointer w)
{
  return solver(w)->mode == LW_MODE_TOLERANCE;
}

static gboolean variational(gpointer w)
{
  return !g_strcmp0(solver(w)->integrator, "variational");
}

static gboolean ali3p(gpointer w)
{
  return !g_strcmp0(solver(w)->integrator, "ali3p");
}

static gboolean order_4(gpointer w)
{
  return solver(w)->order == 4;
}

/* runs to the end without real time: TRUE when it finished */
static gboolean run_to_end(LwWindow *w)
{
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, 2 * LWT_WAIT);
  return lw_sim_runner_get_state(lw_window_get_runner(w)) == LW_RUNNER_FINISHED;
}

/* ---- the settings --------------------------------------------------------------- */

static void test_fields(void)
{
  LwWindow *w = new_window();
  LwPropEditor *p = lwt_props_of(w);
  /* ALI3-P at a fixed step: the damping, no tolerances */
  g_assert_cmpstr(solver(w)->integrator, ==, "ali3p");
  g_assert_true(shown(w, "solver/t_end"));
  g_assert_true(shown(w, "solver/step"));
  g_assert_true(shown(w, "solver/rho_inf"));
  g_assert_false(shown(w, "solver/rtol"));
  g_assert_cmpstr(lw_prop_editor_get_text(p, "solver/rho_inf"), ==, "1");
  g_assert_true(has_param_button(w, "solver/step"));
  g_assert_false(has_param_button(w, "solver/rho_inf"));
  g_free(lwt_shot(w, "solver-ui", LW_SOLVER_UI_SHOT_DIR, "01-ali3p"));

  /* the damping: in [0, 1] */
  g_assert_false(lw_prop_editor_enter(p, "solver/rho_inf", "1.5"));
  g_test_message("rho_inf 1.5: %s", lw_prop_editor_get_error(p, "solver/rho_inf"));
  g_assert_nonnull(strstr(lw_prop_editor_get_error(p, "solver/rho_inf"), "between 0 and 1"));
  g_assert_cmpfloat(solver(w)->rho_inf, ==, 1.0);
  lwt_enter(w, "solver/rho_inf", "0.8");
  g_assert_cmpfloat(solver(w)->rho_inf, ==, 0.8);
  g_assert_null(lw_prop_editor_get_error(p, "solver/rho_inf"));
  g_assert_true(run_to_end(w));

  /* the tolerance mode: its tolerances and order shown, the damping gone */
  g_assert_true(lw_prop_editor_set_solver(p, "mode", 1));
  lwt_await(tolerance_mode, w, LWT_WAIT);
  g_assert_cmpint(solver(w)->mode, ==, LW_MODE_TOLERANCE);
  g_assert_cmpfloat(solver(w)->rho_inf, ==, 1.0);
  g_assert_true(shown(w, "solver/rtol"));
  g_assert_true(shown(w, "solver/atol"));
  g_assert_false(shown(w, "solver/rho_inf"));
  g_assert_cmpstr(lw_prop_editor_get_unit(p, "solver/atol"), ==, "m");
  g_assert_false(lw_prop_editor_enter(p, "solver/rtol", "2"));
  g_assert_nonnull(lw_prop_editor_get_error(p, "solver/rtol"));
  g_assert_false(lw_prop_editor_enter(p, "solver/atol", "0"));
  g_assert_false(lw_prop_editor_enter(p, "solver/atol", "2 s"));
  lwt_enter(w, "solver/rtol", "1e-7");
  lwt_enter(w, "solver/atol", "0.5 mm");
  g_assert_cmpfloat(solver(w)->rtol, ==, 1e-7);
  g_assert_cmpfloat(fabs(solver(w)->atol - 5e-4), <, 1e-18);
  g_assert_true(lw_prop_editor_set_solver(p, "order", 0));
  g_assert_cmpint(solver(w)->order, ==, 2);
  g_free(lwt_shot(w, "solver-ui", LW_SOLVER_UI_SHOT_DIR, "02-tolerance-mode"));
  g_assert_true(run_to_end(w));
  g_test_message("status: %s", lw_window_get_status_text(w));
  g_assert_nonnull(strstr(lw_window_get_status_text(w), "tolerance mode"));

  /* the variational integrator: back to the fixed step, the mode closed */
  g_assert_true(lw_prop_editor_set_solver(p, "integrator", 1));
  lwt_await(variational, w, LWT_WAIT);
  g_assert_cmpstr(solver(w)->integrator, ==, "variational");
  g_assert_cmpint(solver(w)->mode, ==, LW_MODE_STEP);
  g_assert_false(shown(w, "solver/rho_inf"));
  g_assert_false(shown(w, "solver/rtol"));
  g_assert_false(lw_prop_editor_set_solver(p, "mode", 1));
  g_assert_false(lw_prop_editor_set_solver(p, "integrator", 7));
  g_assert_cmpint(solver(w)->mode, ==, LW_MODE_STEP);
  g_free(lwt_shot(w, "solver-ui", LW_SOLVER_UI_SHOT_DIR, "03-variational"));
  g_assert_true(run_to_end(w));
  g_assert_null(strstr(lw_window_get_status_text(w), "tolerance mode"));
  /* the inspector outside the editor names the integrator */
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(FALSE));
  g_free(lwt_shot(w, "solver-ui", LW_SOLVER_UI_SHOT_DIR, "04-inspector"));
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_is_mapped, lw_window_get_editor(w), LWT_WAIT);

  /* one undo a choice: the variational integrator, then the order */
  lwt_act(w, "undo");
  lwt_await(ali3p, w, LWT_WAIT);
  g_assert_cmpstr(solver(w)->integrator, ==, "ali3p");
  g_assert_cmpint(solver(w)->mode, ==, LW_MODE_TOLERANCE);
  g_assert_cmpint(solver(w)->order, ==, 2);
  lwt_act(w, "undo");
  lwt_await(order_4, w, LWT_WAIT);
  g_assert_cmpint(solver(w)->order, ==, 4);
  lwt_act(w, "redo");
  lwt_act(w, "redo");
  lwt_await(variational, w, LWT_WAIT);
  g_assert_cmpstr(solver(w)->integrator, ==, "variational");

  /* saved and read back */
  g_autofree char *dir = g_dir_make_tmp("lw-solver-ui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "solver.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  g_assert_true(lw_window_save_to_file(w, file));
  lw_error err;
  lw_desc *back = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(back);
  g_assert_cmpstr(back->solver.integrator, ==, "variational");
  g_assert_cmpint(back->solver.mode, ==, LW_MODE_STEP);
  lw_desc_free(back);
  g_unlink(path);
  g_rmdir(dir);
  gtk_window_destroy(GTK_WINDOW(w));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    g_test_message("no display: the window tests are left out");
    return g_test_run();
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/solver-ui/fields", test_fields);
  int rc = g_test_run();
  g_object_unref(app);
  return rc;
}
