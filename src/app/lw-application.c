/* lw-application.c: application actions, accelerators, About, automation options. */
#include "lw-application.h"

#include <glib/gi18n.h>
#include <string.h>

#include "lw-window.h"

#include <epoxy/gl.h>

struct _LwApplication {
  AdwApplication parent_instance;
  LwAutomation automation;
  gboolean recovery_offered;
};

G_DEFINE_FINAL_TYPE(LwApplication, lw_application, ADW_TYPE_APPLICATION)

static void quit_cb(GSimpleAction *action, GVariant *param, gpointer user)
{
  (void)action;
  (void)param;
  GApplication *app = user;
  /* close every window so that each can ask about unsaved changes */
  GList *windows = gtk_application_get_windows(GTK_APPLICATION(app));
  if (!windows) {
    g_application_quit(app);
    return;
  }
  GList *copy = g_list_copy(windows);
  for (GList *it = copy; it; it = it->next)
    gtk_window_close(GTK_WINDOW(it->data));
  g_list_free(copy);
}

static void about_cb(GSimpleAction *action, GVariant *param, gpointer user)
{
  (void)action;
  (void)param;
  GtkApplication *app = user;
  const char *developers[] = {"The Linkwright developers", NULL};
  GtkWindow *parent = gtk_application_get_active_window(app);
  AdwAboutWindow *about = ADW_ABOUT_WINDOW(g_object_new(
      ADW_TYPE_ABOUT_WINDOW, "application-name", "Linkwright", "application-icon", "io.github.linkwright.Linkwright",
      "version", PACKAGE_VERSION, "comments", _("Multibody dynamics with exact sensitivities and co-design optimization"),
      "copyright", _("© 2026 The Linkwright developers"), "license-type", GTK_LICENSE_GPL_3_0, "developers",
      developers, "website", "https://github.com/linkwright/linkwright", "transient-for", parent, NULL));
  /* the translators of the language in use, by the usual convention: none
   * where the message has no translation */
  const char *translators = _("translator-credits");
  if (strcmp(translators, "translator-credits") != 0)
    adw_about_window_set_translator_credits(about, translators);
  gtk_window_present(GTK_WINDOW(about));
}

static const GActionEntry app_actions[] = {
  {"quit", quit_cb, NULL, NULL, NULL, {0}},
  {"about", about_cb, NULL, NULL, NULL, {0}},
};

/* every action and its keys; the shortcuts window lists the same */
static const struct {
  const char *action;
  const char *accels[4];
} accels[] = {
  {"app.quit", {"<Control>q", NULL}},
  {"app.about", {"<Shift>F1", NULL}},
  {"win.help", {"F1", NULL}},
  {"win.new", {"<Control>n", NULL}},
  {"win.new-spatial", {"<Control><Shift>n", NULL}},
  {"win.open", {"<Control>o", NULL}},
  {"win.examples", {"<Control>e", NULL}},
  {"win.open-recent(0)", {"<Control>1", NULL}},
  {"win.open-recent(1)", {"<Control>2", NULL}},
  {"win.open-recent(2)", {"<Control>3", NULL}},
  {"win.open-recent(3)", {"<Control>4", NULL}},
  {"win.open-recent(4)", {"<Control>5", NULL}},
  {"win.save", {"<Control>s", NULL}},
  {"win.save-as", {"<Control><Shift>s", NULL}},
  {"win.close", {"<Control>w", NULL}},
  {"win.run", {"F5", NULL}},
  {"win.pause", {"F6", NULL}},
  {"win.step", {"F7", NULL}},
  {"win.reset", {"F8", NULL}},
  {"win.compare-friction", {"<Control><Shift>r", NULL}},
  {"win.real-time", {"<Control>t", NULL}},
  {"win.run-sensitivity", {"<Control>g", NULL}},
  {"win.run-optimization", {"<Control><Shift>o", NULL}},
  {"win.undo", {"<Control>z", NULL}},
  {"win.redo", {"<Control><Shift>z", "<Control>y", NULL}},
  {"win.play", {"<Control>p", NULL}},
  {"win.loop", {"<Control>l", NULL}},
  {"win.slower", {"<Control>bracketleft", NULL}},
  {"win.faster", {"<Control>bracketright", NULL}},
  {"win.reset-camera", {"<Control>0", NULL}},
  {"win.zoom-in", {"<Control>plus", "<Control>equal", NULL}},
  {"win.zoom-out", {"<Control>minus", NULL}},
  {"win.show-frames", {"<Control><Shift>f", NULL}},
  {"win.show-traces", {"<Control><Shift>t", NULL}},
  {"win.show-stress", {"<Control><Shift>b", NULL}},
  {"win.measure", {"<Control><Shift>m", NULL}},
  {"win.clear-measures", {"<Control><Shift>BackSpace", NULL}},
  {"win.show-page('plots')", {"<Alt>1", NULL}},
  {"win.show-page('inspector')", {"<Alt>2", NULL}},
  {"win.show-page('sensitivity')", {"<Alt>3", NULL}},
  {"win.show-page('optimization')", {"<Alt>4", NULL}},
  {"win.show-page('events')", {"<Alt>5", NULL}},
  {"win.dismiss-message", {"Escape", NULL}},
  {"win.add-series", {"<Control><Shift>a", NULL}},
  {"win.clear-plot", {"<Control><Shift>k", NULL}},
  {"win.export-plot", {"<Control><Shift>e", NULL}},
  {"win.export-csv", {"<Control><Shift>c", NULL}},
  {"win.export-animation", {"<Control><Shift>v", NULL}},
  {"win.edit-mode", {"<Control>m", NULL}},
  {"win.delete", {"Delete", NULL}},
  {"win.duplicate", {"<Control>d", NULL}},
  {"win.snap-grid", {"<Control><Shift>g", NULL}},
};

/* On a software rasterizer (Mesa llvmpipe, no GPU) GTK's GL renderer
 * composites the whole window on the CPU every frame: measured here, the
 * cairo renderer animates the same window 3-4 times faster.  The 3-D view
 * itself still draws with OpenGL. */
static void prefer_cairo_on_software_gl(void)
{
  if (g_getenv("GSK_RENDERER"))
    return;
  GdkDisplay *display = gdk_display_get_default();
  if (!display)
    return;
  GdkGLContext *ctx = gdk_display_create_gl_context(display, NULL);
  if (!ctx)
    return;
  if (gdk_gl_context_realize(ctx, NULL)) {
    gdk_gl_context_make_current(ctx);
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    g_debug("GL renderer: %s", renderer ? renderer : "(none)");
    if (renderer && (strstr(renderer, "llvmpipe") || strstr(renderer, "softpipe") || strstr(renderer, "swrast")))
      g_setenv("GSK_RENDERER", "cairo", FALSE);
    gdk_gl_context_clear_current();
  }
  g_object_unref(ctx);
}

static void lw_application_startup(GApplication *app)
{
  G_APPLICATION_CLASS(lw_application_parent_class)->startup(app);
  prefer_cairo_on_software_gl(); /* before the first window is realized */
  g_action_map_add_action_entries(G_ACTION_MAP(app), app_actions, G_N_ELEMENTS(app_actions), app);
  for (guint i = 0; i < G_N_ELEMENTS(accels); i++)
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), accels[i].action, accels[i].accels);
  GtkIconTheme *theme = gtk_icon_theme_get_for_display(gdk_display_get_default());
  gtk_icon_theme_add_resource_path(theme, "/io/github/linkwright/Linkwright/icons");
}

/* A model left by a crash or a kill is offered back once, in the first
 * window, whether the process started with a file or without.  The dialog
 * comes after the window is presented: presenting the window again would
 * raise it over its dialog where no window manager keeps dialogs on top. */
static void offer_recovery_once(LwApplication *self, LwWindow *w)
{
  const LwAutomation *au = &self->automation;
  if (self->recovery_offered || au->screenshot || au->quit_after_run || au->bench_fps > 0)
    return; /* not in a run without a user */
  self->recovery_offered = TRUE;
  lw_window_offer_recovery(w);
}

static void lw_application_activate(GApplication *app)
{
  LwApplication *self = LW_APPLICATION(app);
  GtkWindow *win = gtk_application_get_active_window(GTK_APPLICATION(app));
  if (win) {
    gtk_window_present(win);
    return;
  }
  LwWindow *w = lw_window_new(self);
  lw_window_open_builtin(w);
  gtk_window_present(GTK_WINDOW(w));
  offer_recovery_once(self, w);
}

static void lw_application_open(GApplication *app, GFile **files, int n_files, const char *hint)
{
  (void)hint;
  LwApplication *self = LW_APPLICATION(app);
  for (int i = 0; i < n_files; i++) {
    LwWindow *w = lw_window_new(self);
    if (!lw_window_open_file(w, files[i]))
      lw_window_open_builtin_keep_message(w);
    gtk_window_present(GTK_WINDOW(w));
    offer_recovery_once(self, w);
  }
}

static int lw_application_handle_local_options(GApplication *app, GVariantDict *options)
{
  LwApplication *self = LW_APPLICATION(app);
  const char *shot = NULL;
  g_variant_dict_lookup(options, "run", "b", &self->automation.run);
  g_variant_dict_lookup(options, "quit-after-run", "b", &self->automation.quit_after_run);
  g_variant_dict_lookup(options, "flat-out", "b", &self->automation.flat_out);
  if (g_variant_dict_lookup(options, "screenshot", "^&ay", &shot))
    self->automation.screenshot = g_strdup(shot);
  g_variant_dict_lookup(options, "bench-fps", "d", &self->automation.bench_fps);
  if (g_variant_dict_contains(options, "version")) {
    g_print("linkwright %s\n", PACKAGE_VERSION);
    return 0;
  }
  if (self->automation.screenshot || self->automation.bench_fps > 0)
    self->automation.run = TRUE;
  /* one instance per session: a second launch hands its files to the
   * running one and ends; runs driven by scripts (a screenshot, a
   * benchmark, quit after the run) stay on their own */
  if (!self->automation.screenshot && !self->automation.quit_after_run && !(self->automation.bench_fps > 0))
    g_application_set_flags(app, g_application_get_flags(app) & ~G_APPLICATION_NON_UNIQUE);
  return -1;
}

static void lw_application_finalize(GObject *object)
{
  LwApplication *self = LW_APPLICATION(object);
  g_free(self->automation.screenshot);
  G_OBJECT_CLASS(lw_application_parent_class)->finalize(object);
}

/* the windows go before the process ends: their views' render threads
 * (and the GL threads under them) are stopped and joined, not left running
 * into exit */
static void lw_application_shutdown(GApplication *app)
{
  GList *l;
  while ((l = gtk_application_get_windows(GTK_APPLICATION(app))))
    gtk_window_destroy(GTK_WINDOW(l->data));
  G_APPLICATION_CLASS(lw_application_parent_class)->shutdown(app);
}

static void lw_application_class_init(LwApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS(klass);
  app_class->startup = lw_application_startup;
  app_class->shutdown = lw_application_shutdown;
  app_class->activate = lw_application_activate;
  app_class->open = lw_application_open;
  app_class->handle_local_options = lw_application_handle_local_options;
  G_OBJECT_CLASS(klass)->finalize = lw_application_finalize;
}

static void lw_application_init(LwApplication *self)
{
  static const GOptionEntry entries[] = {
    {"version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL},
    {"run", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Start the simulation at once"), NULL},
    {"flat-out", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Run as fast as possible instead of in real time"), NULL},
    /* for scripts and tests: not shown by --help */
    {"screenshot", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, NULL, N_("Save a PNG of the window when the run ends"), N_("FILE")},
    {"quit-after-run", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, NULL, N_("Quit when the run (and screenshot) is done"), NULL},
    {"bench-fps", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_DOUBLE, NULL, N_("Measure display frame times for SECONDS of a live run"), N_("SECONDS")},
    {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  g_application_add_main_option_entries(G_APPLICATION(self), entries);
  /* TRANSLATORS: the files that may follow the options on the command line */
  g_application_set_option_context_parameter_string(G_APPLICATION(self), _("[FILE…]"));
  g_application_set_option_context_summary(G_APPLICATION(self),
                                           _("Open Linkwright models, URDF robot descriptions or MuJoCo models."));
}

LwApplication *lw_application_new(void)
{
  return g_object_new(LW_TYPE_APPLICATION, "application-id", "io.github.linkwright.Linkwright", "flags",
                      G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE, "resource-base-path",
                      "/io/github/linkwright/Linkwright", NULL);
}

const LwAutomation *lw_application_get_automation(LwApplication *self)
{
  g_return_val_if_fail(LW_IS_APPLICATION(self), NULL);
  return &self->automation;
}
