/* gtk-tick: the frame rate GTK itself reaches on this display, for
 * bench/app-fps.sh to set beside the application's.  A window whose only
 * widget, of the given size, is painted anew at every frame (a colour that
 * changes, so that every frame sends the whole area to the display), with
 * the renderer the application uses on software GL (GSK's cairo renderer,
 * unless GSK_RENDERER says otherwise).  Frame intervals from the frame
 * clock and the processor time, reported as the application reports them
 * (lw-frame-stats.c).
 *
 *   gtk-tick WIDTH HEIGHT SECONDS */
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>

#include "lw-frame-stats.h"

static struct {
  GArray *iv;
  gint64 last;
  double seconds;
  int done;
  LwCpuMark cpu; /* at the first frame */
} bench;

static void report(void)
{
  LwCpuMark end;
  lw_cpu_mark(&end);
  GString *out = g_string_new(NULL);
  lw_frame_stats_append(out, bench.iv);
  lw_cpu_stats_append(out, &bench.cpu, &end, bench.iv->len);
  g_print("%s\n", out->str);
  g_string_free(out, TRUE);
}

static gboolean tick(GtkWidget *w, GdkFrameClock *clock, gpointer user)
{
  (void)user;
  gint64 t = gdk_frame_clock_get_frame_time(clock);
  if (bench.last) {
    double d = (double)(t - bench.last) * 1e-6;
    g_array_append_val(bench.iv, d);
  } else {
    lw_cpu_mark(&bench.cpu);
  }
  bench.last = t;
  gtk_widget_queue_draw(w);
  double sum = 0;
  for (guint i = 0; i < bench.iv->len; i++)
    sum += g_array_index(bench.iv, double, i);
  if (sum >= bench.seconds && !bench.done) {
    bench.done = 1;
    report();
    gtk_window_destroy(GTK_WINDOW(gtk_widget_get_root(w)));
    return G_SOURCE_REMOVE;
  }
  return G_SOURCE_CONTINUE;
}

static void draw(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user)
{
  (void)area, (void)width, (void)height, (void)user;
  static double phase;
  phase += 0.05;
  cairo_set_source_rgb(cr, 0.5 + 0.4 * sin(phase), 0.6, 0.7);
  cairo_paint(cr);
}

static void activate(GtkApplication *app, gpointer user)
{
  const int *size = user;
  GtkWidget *win = gtk_application_window_new(app);
  GtkWidget *area = gtk_drawing_area_new();
  gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(area), size[0]);
  gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(area), size[1]);
  gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(area), draw, NULL, NULL);
  gtk_window_set_child(GTK_WINDOW(win), area);
  gtk_window_set_resizable(GTK_WINDOW(win), FALSE);
  gtk_widget_add_tick_callback(area, tick, NULL, NULL);
  gtk_window_present(GTK_WINDOW(win));
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    g_printerr("usage: gtk-tick WIDTH HEIGHT SECONDS\n");
    return 1;
  }
  int size[2] = {atoi(argv[1]), atoi(argv[2])};
  bench.seconds = atof(argv[3]);
  if (size[0] <= 0 || size[1] <= 0 || !(bench.seconds > 0)) {
    g_printerr("gtk-tick: the size and the time must be positive\n");
    return 1;
  }
  bench.iv = g_array_new(FALSE, FALSE, sizeof(double));
  g_setenv("GSK_RENDERER", "cairo", FALSE);
  GtkApplication *app = gtk_application_new("io.github.linkwright.GtkTick", G_APPLICATION_NON_UNIQUE);
  g_signal_connect(app, "activate", G_CALLBACK(activate), size);
  int status = g_application_run(G_APPLICATION(app), 1, argv);
  g_object_unref(app);
  g_array_unref(bench.iv);
  return bench.done ? status : 1;
}
