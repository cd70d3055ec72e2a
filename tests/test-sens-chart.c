/* The Sensitivity page after Compute on the five-bar (needs a display: the
 * test command starts Xvfb): the gradient chart makes room for one bar a
 * parameter, and a screenshot of the page is written to LW_SCREENSHOT_DIR
 * (or the build's screenshots/sens-chart) to be looked at. */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <string.h>

#include "lw-application.h"
#include "lw-sens-panel.h"
#include "lw-window.h"

static LwApplication *app;

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
  g_free(lwt_shot(w, "sens-chart", LW_SENS_CHART_SHOT_DIR, name));
}

/* Compute psi1 on the five-bar: one bar a parameter, the page on screen */
static void test_five_bar_gradient(void)
{
  LwWindow *w = lwt_builtin_window(app);
  lwt_show_page(w, "sensitivity");
  LwSensPanel *sp = LW_SENS_PANEL(lw_window_get_sens_panel(w));
  lw_sens_panel_select(sp, "psi1", LW_SENS_ADJOINT);
  lw_sens_panel_run(sp);
  lwt_await(lwt_sens_idle, sp, 120);
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
