/* Friction on a spherical joint in the application window (needs a display:
 * the test command starts Xvfb): the property page of a ball joint shows
 * the friction switch and the law's fields with their units, a value
 * typed there reaches the model, and a ball joint without friction can be
 * given it by the switch (with the defaults) and the model still runs.
 * Screenshots go to LW_SCREENSHOT_DIR/friction-sph-app (or the build
 * directory). */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lw-application.h"
#include "lw-prop-editor.h"
#include "lw-view3d.h"
#include "lw-window.h"
#include "lw_io.h"

#define BALL_MODEL LW_MODELS_DIR "/spherical-pendulum-friction.json"

static LwApplication *app;
static char *tmp_dir;

/* ---- helpers (as tests/test-app-fe.c's) ------------------------------ */
/* a model text written in the test's directory, opened in a new window */
static LwWindow *window_on_text(const char *text, const char *stem)
{
  g_autofree char *file = g_strdup_printf("%s.json", stem);
  g_autofree char *path = g_build_filename(tmp_dir, file, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  LwWindow *w = lw_window_new(app);
  gtk_window_set_default_size(GTK_WINDOW(w), 1300, 850);
  g_autoptr(GFile) gf = g_file_new_for_path(path);
  g_assert_true(lw_window_open_file(w, gf));
  gtk_window_present(GTK_WINDOW(w));
  g_assert_true(lwt_wait_until(lwt_is_mapped, w, 10));
  lwt_settle(10);
  return w;
}

static GtkWidget *find_widget(GtkWidget *root, gboolean (*match)(GtkWidget *, gconstpointer), gconstpointer data)
{
  if (match(root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = find_widget(c, match, data);
    if (f)
      return f;
  }
  return NULL;
}

static gboolean is_switch_of(GtkWidget *w, gconstpointer path)
{
  return GTK_IS_SWITCH(w) && !g_strcmp0(g_object_get_data(G_OBJECT(w), "path"), path) && gtk_widget_get_mapped(w);
}

/* the joint's page in the inspector, in edit mode */
static void select_joint(LwWindow *w, const char *jpath)
{
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(TRUE));
  lwt_settle(5);
  g_action_group_activate_action(G_ACTION_GROUP(w), "show-page", g_variant_new_string("inspector"));
  lw_view3d_set_selection(LW_VIEW3D(lw_window_get_view(w)), jpath);
  lwt_settle(5);
  g_assert_cmpstr(lw_prop_editor_get_selection(lwt_props_of(w)), ==, jpath);
}

static const lw_joint_desc *joint_of(LwWindow *w, const char *name)
{
  const lw_desc *d = lw_window_get_desc(w);
  for (int j = 0; j < d->njoints; j++)
    if (!strcmp(d->joints[j].name, name))
      return &d->joints[j];
  return NULL;
}

/* ---- tests ------------------------------------------------------------ */

/* the shipped ball joint with friction: the switch on, every field with
 * its unit, a value typed reaches the model */
static void test_ball_fields(void)
{
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(BALL_MODEL, &text, NULL, NULL));
  LwWindow *w = window_on_text(text, "ball");
  select_joint(w, "joints/ball");
  GtkWidget *sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, "joints/ball/friction");
  g_assert_nonnull(sw);
  g_assert_true(gtk_switch_get_active(GTK_SWITCH(sw)));
  static const struct { const char *field, *unit; } units[] = {
    {"mu_s", ""}, {"mu_d", ""}, {"v_t", "m/s"}, {"viscous", "N·s/m"}, {"length", "m"}, {"offset", "m"},
    {"width", "m"}, {"radius", "m"}, {"preload", "N"}, {"eps", "N"}};
  for (gsize i = 0; i < G_N_ELEMENTS(units); i++) {
    g_autofree char *p = g_strdup_printf("joints/ball/friction/%s", units[i].field);
    g_assert_nonnull(lw_prop_editor_get_entry(lwt_props_of(w), p));
    const char *u = lw_prop_editor_get_unit(lwt_props_of(w), p);
    g_test_message("%s: '%s' shown in %s", p, lw_prop_editor_get_text(lwt_props_of(w), p), u ? u : "-");
    if (*units[i].unit)
      g_assert_true(u && *u);
  }
  g_assert_cmpstr(lw_prop_editor_get_text(lwt_props_of(w), "joints/ball/friction/radius"), ==, "0.02");
  GtkWidget *e = lw_prop_editor_get_entry(lwt_props_of(w), "joints/ball/friction/radius");
  gtk_editable_set_text(GTK_EDITABLE(e), "0.03");
  g_signal_emit_by_name(e, "activate");
  lwt_settle(3);
  g_assert_cmpfloat(joint_of(w, "ball")->friction[7], ==, 0.03);
  lw_prop_editor_scroll_to_end(lwt_props_of(w));
  g_free(lwt_shot(w, "friction-sph-app", LW_FSPHAPP_SHOT_DIR, "ball-joint-friction"));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

/* a ball joint without friction: the switch is offered, turning it on
 * gives the defaults, and the model runs to its end */
static void test_ball_switch(void)
{
  static const char *json =
    "{\"linkwright\": 1, \"name\": \"bare ball\", \"gravity\": [0, 0, -9.81],\n"
    " \"solver\": {\"t_end\": 0.5, \"step\": 0.001},\n"
    " \"bodies\": [{\"name\": \"bar\", \"mass\": 1, \"com\": [0.5, 0.02, 0.03],\n"
    "   \"inertia\": [0.01, 0.085, 0.088, 0.002, -0.001, 0.003], \"position\": [0, 0, 0],\n"
    "   \"orientation\": [1, 0, 0, 0]}],\n"
    " \"joints\": [{\"name\": \"ball\", \"type\": \"spherical\", \"body1\": \"ground\", \"body2\": \"bar\",\n"
    "   \"at\": [0, 0, 0]}]}\n";
  LwWindow *w = window_on_text(json, "bare-ball");
  select_joint(w, "joints/ball");
  GtkWidget *sw = find_widget(GTK_WIDGET(lwt_props_of(w)), is_switch_of, "joints/ball/friction");
  g_assert_nonnull(sw);
  g_assert_false(gtk_switch_get_active(GTK_SWITCH(sw)));
  g_assert_null(lw_prop_editor_get_entry(lwt_props_of(w), "joints/ball/friction/mu_s"));
  gtk_switch_set_active(GTK_SWITCH(sw), TRUE);
  lwt_settle(3);
  g_assert_true(joint_of(w, "ball")->has_friction);
  g_assert_cmpfloat(joint_of(w, "ball")->friction[0], ==, 0.4);
  g_assert_nonnull(lw_prop_editor_get_entry(lwt_props_of(w), "joints/ball/friction/mu_s"));
  g_action_group_change_action_state(G_ACTION_GROUP(w), "edit-mode", g_variant_new_boolean(FALSE));
  lwt_settle(2);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "run", NULL);
  g_assert_true(lwt_wait_until(lwt_runner_idle, w, 60));
  lwt_settle(2);
  g_assert_cmpint(lw_sim_runner_get_state(lw_window_get_runner(w)), ==, LW_RUNNER_FINISHED);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_settle(1);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  tmp_dir = g_dir_make_tmp("lw-friction-sph-app-XXXXXX", NULL);
  g_setenv("XDG_CACHE_HOME", tmp_dir, TRUE);
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/friction-sph-app/ball-fields", test_ball_fields);
  g_test_add_func("/friction-sph-app/ball-switch", test_ball_switch);
  int rc = g_test_run();
  g_object_unref(app);
  return rc;
}
