/* lw-window-bench.c: automation of the main window from the command line.
 *
 * --screenshot and --quit-after-run: a picture of the window once a run
 * has ended; --bench-fps: the intervals between displayed frames during a
 * live run, reported with the processor time used. */
#include "lw-window-private.h"

#include <glib/gi18n.h>

#include "lw-view3d.h"

void _lw_window_record_frame_time(LwWindow *self, gint64 now)
{
  const LwAutomation *au = lw_application_get_automation(LW_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  if (!au || au->bench_fps <= 0 || !self->frame_times)
    return;
  if (self->last_frame_us) {
    double dt = (now - self->last_frame_us) * 1e-6;
    g_array_append_val(self->frame_times, dt);
  }
}

static void bench_report_and_quit(LwWindow *self)
{
  LwCpuMark end;
  lw_cpu_mark(&end);
  GString *out = g_string_new(NULL);
  lw_frame_stats_append(out, self->frame_times);
  int scale = gtk_widget_get_scale_factor(self->view);
  g_string_append_printf(out, ", pictures %" G_GUINT64_FORMAT ", render %.2f ms, view %dx%d, simulated t = %.3f s, real-time factor %.2f, Run %.1f s after the model was shown%s",
                         lw_view3d_get_pictures(LW_VIEW3D(self->view)) - self->bench_pictures,
                         lw_view3d_get_frame_time_ms(LW_VIEW3D(self->view)), scale * gtk_widget_get_width(self->view),
                         scale * gtk_widget_get_height(self->view), lw_sim_runner_get_time(self->runner),
                         lw_sim_runner_get_real_time_factor(self->runner),
                         (double)(self->bench_run_us - self->bench_shown_us) * 1e-6,
                         self->bench_threaded ? "" : " (the view not yet on its render thread)");
  lw_cpu_stats_append(out, &self->bench_cpu, &end, self->frame_times->len);
  g_print("%s\n", out->str);
  g_string_free(out, TRUE);
  g_application_quit(G_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
}

gboolean _lw_window_bench_start_cb(gpointer data)
{
  LwWindow *self = data;
  /* on software GL the 3-D view hands its drawing to a render thread once
   * that has drawn a first picture (llvmpipe compiling its shaders); a run
   * started before that shares the first frames with the start-up.  Run
   * waits for the hand-over, 5 s at most */
  if (!self->automation_done && !lw_view3d_get_threaded(LW_VIEW3D(self->view)) && !g_getenv("LW_VIEW_NO_THREAD") &&
      self->bench_waits++ < 50) {
    g_timeout_add_full(G_PRIORITY_DEFAULT, 100, _lw_window_bench_start_cb, g_object_ref(self), g_object_unref);
    return G_SOURCE_REMOVE;
  }
  if (self->runner && !self->automation_done && lw_sim_runner_get_state(self->runner) != LW_RUNNER_RUNNING) {
    self->bench_run_us = g_get_monotonic_time();
    self->bench_threaded = lw_view3d_get_threaded(LW_VIEW3D(self->view));
    lw_sim_runner_start(self->runner);
  }
  return G_SOURCE_REMOVE;
}

/* ---- screenshots ------------------------------------------------------------- */
gboolean lw_window_save_screenshot(LwWindow *self, const char *filename, GError **error)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  GtkWidget *w = GTK_WIDGET(self);
  GdkPaintable *paintable = gtk_widget_paintable_new(w);
  int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
  GtkSnapshot *snap = gtk_snapshot_new();
  gdk_paintable_snapshot(paintable, snap, width, height);
  GskRenderNode *node = gtk_snapshot_free_to_node(snap);
  gboolean ok = FALSE;
  if (node) {
    GskRenderer *renderer = gtk_native_get_renderer(GTK_NATIVE(self));
    GdkTexture *tex = gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, width, height));
    ok = gdk_texture_save_to_png(tex, filename);
    g_object_unref(tex);
    gsk_render_node_unref(node);
  }
  g_object_unref(paintable);
  if (!ok)
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write the screenshot %s"), filename);
  return ok;
}

static gboolean delayed_screenshot_cb(gpointer user)
{
  LwWindow *self = user;
  static int tries;
  /* a short run can end before the window is on screen, or drawn */
  if (!gtk_widget_get_mapped(GTK_WIDGET(self)) || gtk_widget_get_width(GTK_WIDGET(self)) == 0)
    return G_SOURCE_CONTINUE;
  const LwAutomation *au = lw_application_get_automation(LW_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  if (au->screenshot) {
    g_autoptr(GError) error = NULL;
    if (!lw_window_save_screenshot(self, au->screenshot, &error)) {
      if (++tries < 50)
        return G_SOURCE_CONTINUE;
      g_printerr("linkwright: %s\n", error->message);
    } else
      g_print("screenshot %s\n", au->screenshot);
  }
  if (au->quit_after_run)
    g_application_quit(G_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  return G_SOURCE_REMOVE;
}

void _lw_window_take_screenshot_and_maybe_quit(LwWindow *self)
{
  GtkApplication *app = gtk_window_get_application(GTK_WINDOW(self));
  const LwAutomation *au = app ? lw_application_get_automation(LW_APPLICATION(app)) : NULL;
  if (!au || self->automation_done || au->bench_fps > 0 || (!au->screenshot && !au->quit_after_run))
    return;
  self->automation_done = TRUE;
  /* let the last frame reach the screen first */
  g_timeout_add(300, delayed_screenshot_cb, self);
}

/* --bench-fps: starts measuring when the run starts, reports and stops the
 * run after the given number of seconds.  Called on every frame. */
void _lw_window_bench_tick(LwWindow *self, gint64 now, LwRunnerState st)
{
  const LwAutomation *au = lw_application_get_automation(LW_APPLICATION(gtk_window_get_application(GTK_WINDOW(self))));
  if (!au || au->bench_fps <= 0 || self->automation_done)
    return;
  if (!self->bench_start_us && st == LW_RUNNER_RUNNING) {
    self->bench_start_us = now;
    lw_cpu_mark(&self->bench_cpu);
    self->bench_pictures = lw_view3d_get_pictures(LW_VIEW3D(self->view));
  }
  if (self->bench_start_us && (now - self->bench_start_us) * 1e-6 >= au->bench_fps) {
    self->automation_done = TRUE;
    bench_report_and_quit(self); /* reads the real-time factor before the pause resets it */
    lw_sim_runner_pause(self->runner);
  }
}
