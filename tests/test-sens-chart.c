/* The Sensitivity page after Compute on the five-bar (needs a display: the
 * test command starts Xvfb): the gradient chart makes room for one bar a
 * parameter, and a screenshot of the page is written to LW_SCREENSHOT_DIR
 * (or the build's screenshots/sens-chart) to be looked at. */
#include "lw-test.h"

#include <adwaita.h>
#include <string.h>

#include "lw-application.h"
#include "lw-sens-panel.h"
#include "lw-window.h"

static LwApplication *app;

static gboolean is_mapped(gpointer w)
{
  return gtk_widget_get_mapped(GTK_WIDGET(w));
}

static gboolean sens_idle(gpointer p)
{
  return !lw_sens_panel_is_busy(LW_SENS_PANEL(p));
}

/* the first drawing area under root, depth first */
static GtkWidget *find_drawing_area(GtkWidget *root)
{
  if (GTK_IS_DRAWING_AREA(root))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = find_drawing_area(c);
    if (f)
      return f;
  }
  return NULL;
}

static void shot(LwWindow *w, const char *name)
{
  lwt_spin(0.4);
  const char *env = g_getenv("LW_SCREENSHOT_DIR");
  const char *dir = env && *env ? env : LW_SENS_CHART_SHOT_DIR;
  g_mkdir_with_parents(dir, 0755);
  g_autofree char *file = g_strdup_printf("%s.png", name);
  g_autofree char *path = g_build_filename(dir, file, NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true(lw_window_save_screenshot(w, path, &error));
  g_test_message("screenshot %s", path);
}

/* Compute psi1 on the five-bar: one bar a parameter, the page on screen */
static void test_five_bar_gradient(void)
{
  LwWindow *w = lw_window_new(app);
  lw_window_open_builtin(w);
  gtk_window_present(GTK_WINDOW(w));
  g_assert_true(lwt_wait_until(is_mapped, w, 10));
  lwt_spin(0.2);
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("sensitivity"));
  lwt_spin(0.1);
  LwSensPanel *sp = LW_SENS_PANEL(lw_window_get_sens_panel(w));
  lw_sens_panel_select(sp, "psi1", LW_SENS_ADJOINT);
  lw_sens_panel_run(sp);
  g_assert_true(lwt_wait_until(sens_idle, sp, 120));
  const lw_sens_result *r = lw_sens_panel_get_result(sp);
  g_assert_nonnull(r);
  g_assert_cmpint(r->status, ==, LW_OK);
  g_assert_cmpint(r->nparams, ==, 5);
  GtkWidget *chart = find_drawing_area(GTK_WIDGET(sp));
  g_assert_nonnull(chart);
  int ch = 0;
  gtk_widget_get_size_request(chart, NULL, &ch);
  g_assert_cmpint(ch, >=, 28 * r->nparams);
  shot(w, "sensitivity-five-bar");
  gtk_window_destroy(GTK_WINDOW(w));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/sens-chart/five-bar-gradient", test_five_bar_gradient);
  return g_test_run();
}
