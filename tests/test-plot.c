/* Plots: ticks, views, pixel mapping, what is drawn where, export, and the
 * widget's actions and input (the widget only when a display is there). */
#include <glib.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <gtk/gtktestatcontext.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "lw-plot-view.h"
#include "lw-plot.h"

/* Under LeakSanitizer: fontconfig, which cairo's text goes through, loses
 * a few small blocks of its own (allocated and dropped inside
 * libfontconfig); they are not the plot's, and nothing here can free them. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
  return "leak:libfontconfig.so\n";
}

static gboolean have_display;
static char *tmp_dir;

static char *tmp_path(const char *name)
{
  return g_build_filename(tmp_dir, name, NULL);
}

/* ---- pixels ---- */
static cairo_surface_t *render(LwPlot *plot, int w, int h)
{
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
  cairo_t *cr = cairo_create(s);
  lw_plot_draw(plot, cr, w, h);
  g_assert_cmpint(cairo_status(cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy(cr);
  cairo_surface_flush(s);
  return s;
}

/* the (opaque) color of a pixel, 0..1 */
static void pixel(cairo_surface_t *s, int x, int y, double rgb[3])
{
  g_assert_cmpint(x, >=, 0);
  g_assert_cmpint(y, >=, 0);
  g_assert_cmpint(x, <, cairo_image_surface_get_width(s));
  g_assert_cmpint(y, <, cairo_image_surface_get_height(s));
  const unsigned char *d = cairo_image_surface_get_data(s);
  guint32 p = *(const guint32 *)(d + (gsize)y * cairo_image_surface_get_stride(s) + 4 * (gsize)x);
  g_assert_cmpuint(p >> 24, ==, 255);
  rgb[0] = ((p >> 16) & 255) / 255.0;
  rgb[1] = ((p >> 8) & 255) / 255.0;
  rgb[2] = (p & 255) / 255.0;
}

static gboolean color_is(const double rgb[3], double r, double g, double b, double tol)
{
  return fabs(rgb[0] - r) <= tol && fabs(rgb[1] - g) <= tol && fabs(rgb[2] - b) <= tol;
}

/* any pixel within +-dx, +-dy of (x, y) of the color */
static gboolean color_near(cairo_surface_t *s, double x, double y, int dx, int dy, const LwPlotColor *c, double tol)
{
  for (int j = -dy; j <= dy; j++)
    for (int i = -dx; i <= dx; i++) {
      double rgb[3];
      pixel(s, (int)floor(x) + i, (int)floor(y) + j, rgb);
      if (color_is(rgb, c->red, c->green, c->blue, tol))
        return TRUE;
    }
  return FALSE;
}

static LwPlot *plot_with(const char *name, const double *x, const double *y, gsize n)
{
  LwPlot *plot = lw_plot_new();
  guint s = lw_plot_add_series(plot, name);
  lw_plot_series_append_many(plot, s, x, y, n);
  return plot;
}

/* ---- ticks ---- */
static void check_ticks(double lo, double hi, guint max)
{
  double t[64], step;
  guint n = lw_plot_nice_ticks(lo, hi, max, t, G_N_ELEMENTS(t), &step);
  g_test_message("[%g, %g] max %u: %u ticks, step %g", lo, hi, max, n, step);
  g_assert_cmpuint(n, >=, 2);
  g_assert_cmpuint(n, <=, MAX(max, 2) + 1);
  /* step = 1, 2 or 5 x 10^k */
  double mant = step / pow(10, floor(log10(step)));
  g_assert_true(fabs(mant - 1) < 1e-9 || fabs(mant - 2) < 1e-9 || fabs(mant - 5) < 1e-9);
  double eps = 1e-9 * step;
  for (guint i = 0; i < n; i++) {
    g_assert_cmpfloat(t[i], >=, lo - eps);
    g_assert_cmpfloat(t[i], <=, hi + eps);
    double k = t[i] / step;
    g_assert_cmpfloat(fabs(k - round(k)), <, 1e-6);
    if (i > 0)
      g_assert_cmpfloat(fabs(t[i] - t[i - 1] - step), <, 1e-6 * step);
  }
  /* they cover the range: no gap of a whole step at either end */
  g_assert_cmpfloat(t[0] - lo, <, step);
  g_assert_cmpfloat(hi - t[n - 1], <, step);
}

static void test_ticks(void)
{
  check_ticks(0, 1, 5);
  check_ticks(0, 10, 6);
  check_ticks(-3.7, 12.2, 8);
  check_ticks(0.001, 0.0047, 5);
  check_ticks(-1e-7, 3e-7, 4);
  check_ticks(1e6, 7.5e8, 10);
  check_ticks(100, 100.5, 2);
  check_ticks(-1, -0.999, 7);
  check_ticks(12345.6, 12345.61, 5);
  check_ticks(0, 9.99, 2); /* the step that fits 2 at most would show just one */
  check_ticks(-250, 250, 12);

  double t[8], step;
  /* 0.1 x 3 is the label 0.3, and the value 0.3 itself */
  guint n = lw_plot_nice_ticks(0, 1, 11, t, 8, &step);
  g_assert_cmpuint(n, ==, 8); /* capped by the output size */
  g_assert_cmpfloat(step, ==, 0.1);
  g_assert_cmpfloat(t[3], ==, 0.3);
  /* no range, no ticks */
  g_assert_cmpuint(lw_plot_nice_ticks(1, 1, 5, t, 8, &step), ==, 0);
  g_assert_cmpuint(lw_plot_nice_ticks(2, 1, 5, t, 8, &step), ==, 0);
  g_assert_cmpuint(lw_plot_nice_ticks(0, NAN, 5, t, 8, &step), ==, 0);
}

static void check_label(double v, double step, const char *want)
{
  g_autofree char *s = lw_plot_format_tick(v, step);
  g_assert_cmpstr(s, ==, want);
}

static void test_tick_labels(void)
{
  check_label(0.30000000000000004, 0.1, "0.3");
  check_label(-1e-17, 0.1, "0");
  check_label(-0.0, 1, "0");
  check_label(1500, 500, "1500");
  check_label(0.25, 0.05, "0.25");
  check_label(-2, 0.5, "-2.0");
  check_label(2.5e6, 5e5, "2.5e6");
  check_label(3e6, 1e6, "3e6");
  check_label(1.5e-5, 5e-6, "1.5e-5");
  check_label(0.0002, 0.0001, "0.0002");
  /* a comma-decimal locale changes nothing */
  const char *loc = setlocale(LC_NUMERIC, "de_DE.UTF-8");
  if (!loc)
    loc = setlocale(LC_NUMERIC, "fr_FR.UTF-8");
  if (loc) {
    check_label(0.5, 0.1, "0.5");
    check_label(2.5e6, 5e5, "2.5e6");
    setlocale(LC_NUMERIC, "C");
  } else
    g_test_message("no comma-decimal locale installed: locale part not run");
}

/* ---- series and views ---- */
static void test_series(void)
{
  g_autoptr(LwPlot) plot = lw_plot_new();
  guint a = lw_plot_add_series(plot, "a");
  /* point by point, far past any initial capacity */
  for (int i = 0; i < 100000; i++)
    lw_plot_series_append(plot, a, i * 1e-3, sin(i * 1e-3));
  g_assert_cmpuint(lw_plot_series_get_n_points(plot, a), ==, 100000);
  g_assert_cmpfloat(lw_plot_series_get_x(plot, a)[99999], ==, 99999 * 1e-3);
  g_assert_cmpfloat(lw_plot_series_get_y(plot, a)[54321], ==, sin(54321 * 1e-3));

  /* ten palette colors, all different */
  for (int i = 1; i < 10; i++)
    lw_plot_add_series(plot, "s");
  for (guint i = 0; i < 10; i++)
    for (guint j = 0; j < i; j++) {
      LwPlotColor ci = lw_plot_series_get_color(plot, i), cj = lw_plot_series_get_color(plot, j);
      g_assert_false(ci.red == cj.red && ci.green == cj.green && ci.blue == cj.blue);
    }
  /* a new series takes the color a removed one freed */
  LwPlotColor freed = lw_plot_series_get_color(plot, 3);
  lw_plot_series_set_name(plot, 4, "four");
  lw_plot_set_hover(plot, 5, 1, 2);
  lw_plot_remove_series(plot, 3);
  g_assert_cmpuint(lw_plot_get_n_series(plot), ==, 9);
  g_assert_cmpstr(lw_plot_series_get_name(plot, 3), ==, "four");
  guint n = lw_plot_add_series(plot, "new");
  LwPlotColor c = lw_plot_series_get_color(plot, n);
  g_assert_true(c.red == freed.red && c.green == freed.green && c.blue == freed.blue);

  lw_plot_series_clear(plot, a);
  g_assert_cmpuint(lw_plot_series_get_n_points(plot, a), ==, 0);
  g_assert_cmpuint(lw_plot_get_n_series(plot), ==, 10);
}

static void test_autoscale(void)
{
  const double x[] = {0, 1, 2, 3, 4}, y[] = {-2, 5, 1, 7.5, 3};
  g_autoptr(LwPlot) plot = plot_with("a", x, y, 5);
  guint b = lw_plot_add_series(plot, "b");
  lw_plot_series_append(plot, b, -1, 0);
  lw_plot_series_append(plot, b, NAN, 100); /* a NaN x is not data: no effect */
  lw_plot_series_append(plot, b, 2, INFINITY);
  double x0, x1, y0, y1;
  g_assert_true(lw_plot_is_autoscaled(plot));
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, <, -1);
  g_assert_cmpfloat(x1, >, 4);
  g_assert_cmpfloat(y0, <, -2);
  g_assert_cmpfloat(y1, >, 7.5);
  /* a little padding, not a lot */
  g_assert_cmpfloat(x1 - x0, <, 1.2 * 5);
  g_assert_cmpfloat(y1 - y0, <, 1.2 * 9.5);

  /* appended data extends the automatic view live */
  lw_plot_series_append(plot, b, 10, -20);
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x1, >, 10);
  g_assert_cmpfloat(y0, <, -20);

  /* but not a manual one */
  lw_plot_set_view(plot, 0, 1, 0, 1);
  g_assert_false(lw_plot_is_autoscaled(plot));
  lw_plot_series_append(plot, b, 50, 50);
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, ==, 0);
  g_assert_cmpfloat(x1, ==, 1);
  g_assert_cmpfloat(y1, ==, 1);
  /* an empty or inverted range is refused */
  lw_plot_set_view(plot, 1, 1, 0, 1);
  lw_plot_set_view(plot, 0, 1, 2, -2);
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x1, ==, 1);
  g_assert_cmpfloat(y0, ==, 0);
  lw_plot_reset_view(plot);
  g_assert_true(lw_plot_is_autoscaled(plot));
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x1, >, 50);

  /* flat series: a range around the value */
  const double fx[] = {0, 1, 2}, fy[] = {3, 3, 3};
  g_autoptr(LwPlot) flat = plot_with("flat", fx, fy, 3);
  lw_plot_get_view(flat, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(y0, <, 3);
  g_assert_cmpfloat(y1, >, 3);
  g_assert_cmpfloat(y1 - y0, >, 0.1);
  g_assert_cmpfloat(y1 - y0, <, 3);
  double t[32], step;
  g_assert_cmpuint(lw_plot_nice_ticks(y0, y1, 5, t, 32, &step), >=, 2);
  /* one point at zero, and nothing at all */
  const double zx[] = {0}, zy[] = {0};
  g_autoptr(LwPlot) zero = plot_with("zero", zx, zy, 1);
  lw_plot_get_view(zero, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, <, 0);
  g_assert_cmpfloat(x1, >, 0);
  g_assert_cmpfloat(y0, <, 0);
  g_assert_cmpfloat(y1, >, 0);
  g_autoptr(LwPlot) empty = lw_plot_new();
  lw_plot_get_view(empty, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, <, x1);
  g_assert_cmpfloat(y0, <, y1);
}

static void test_zoom(void)
{
  g_autoptr(LwPlot) plot = lw_plot_new();
  lw_plot_set_view(plot, -2, 6, 10, 30);
  double cx = 1.5, cy = 27;
  double x0, x1, y0, y1;
  lw_plot_zoom(plot, 2, cx, cy);
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat_with_epsilon(x1 - x0, 4, 1e-12);
  g_assert_cmpfloat_with_epsilon(y1 - y0, 10, 1e-12);
  /* the point keeps its place in the view, hence on screen */
  g_assert_cmpfloat_with_epsilon((cx - x0) / (x1 - x0), 3.5 / 8, 1e-12);
  g_assert_cmpfloat_with_epsilon((cy - y0) / (y1 - y0), 17.0 / 20, 1e-12);

  /* and its pixel, with a layout that does not change with the view */
  lw_plot_layout(plot, 500, 400);
  double px, py, qx, qy, bx, by;
  lw_plot_to_pixel(plot, cx, cy, &px, &py);
  lw_plot_zoom(plot, 1.25, cx, cy);
  lw_plot_layout(plot, 500, 400);
  lw_plot_get_data_area(plot, &bx, &by, NULL, NULL);
  lw_plot_to_pixel(plot, cx, cy, &qx, &qy);
  g_test_message("pixel %g,%g -> %g,%g (data area at %g,%g)", px, py, qx, qy, bx, by);
  g_assert_cmpfloat_with_epsilon(qy, py, 1e-9);

  /* out and in again: back where it was */
  lw_plot_set_view(plot, -2, 6, 10, 30);
  lw_plot_zoom(plot, 0.5, cx, cy);
  lw_plot_zoom(plot, 2, cx, cy);
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat_with_epsilon(x0, -2, 1e-12);
  g_assert_cmpfloat_with_epsilon(x1, 6, 1e-12);
  g_assert_cmpfloat_with_epsilon(y0, 10, 1e-12);
  g_assert_cmpfloat_with_epsilon(y1, 30, 1e-12);

  /* one axis only */
  lw_plot_zoom_xy(plot, 1, 4, cx, cy);
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, ==, -2);
  g_assert_cmpfloat(x1, ==, 6);
  g_assert_cmpfloat_with_epsilon(y1 - y0, 5, 1e-12);

  /* zooming an automatic view starts from the automatic range */
  const double dx[] = {0, 10}, dy[] = {0, 1};
  g_autoptr(LwPlot) p2 = plot_with("d", dx, dy, 2);
  double a0, a1, b0, b1;
  lw_plot_get_view(p2, &a0, &a1, &b0, &b1);
  lw_plot_zoom(p2, 2, 0.5 * (a0 + a1), 0.5 * (b0 + b1));
  g_assert_false(lw_plot_is_autoscaled(p2));
  lw_plot_get_view(p2, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat_with_epsilon(x1 - x0, 0.5 * (a1 - a0), 1e-12);

  /* endless zooming stops at the resolution of doubles, never collapses */
  for (int i = 0; i < 500; i++)
    lw_plot_zoom(p2, 10, 5, 0.5);
  lw_plot_get_view(p2, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, <, x1);
  g_assert_cmpfloat(y0, <, y1);
  double t[32], step;
  g_assert_cmpuint(lw_plot_nice_ticks(x0, x1, 5, t, 32, &step), >=, 2);
}

static void test_pan(void)
{
  g_autoptr(LwPlot) plot = lw_plot_new();
  lw_plot_set_view(plot, -2, 6, 10, 30);
  lw_plot_pan(plot, 1.25, -7.5);
  double x0, x1, y0, y1;
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, ==, -0.75);
  g_assert_cmpfloat(x1, ==, 7.25);
  g_assert_cmpfloat(y0, ==, 2.5);
  g_assert_cmpfloat(y1, ==, 22.5);
  /* panning an automatic view makes it manual, by exactly the amount */
  const double dx[] = {0, 10}, dy[] = {0, 1};
  g_autoptr(LwPlot) p2 = plot_with("d", dx, dy, 2);
  double a0, a1, b0, b1;
  lw_plot_get_view(p2, &a0, &a1, &b0, &b1);
  lw_plot_pan(p2, 3, -0.5);
  g_assert_false(lw_plot_is_autoscaled(p2));
  lw_plot_get_view(p2, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, ==, a0 + 3);
  g_assert_cmpfloat(x1, ==, a1 + 3);
  g_assert_cmpfloat(y0, ==, b0 - 0.5);
  g_assert_cmpfloat(y1, ==, b1 - 0.5);
}

static void test_mapping(void)
{
  g_autoptr(LwPlot) plot = lw_plot_new();
  double px, py, x, y;
  g_assert_false(lw_plot_to_pixel(plot, 0, 0, &px, &py));
  g_assert_false(lw_plot_from_pixel(plot, 0, 0, &x, &y));
  lw_plot_set_title(plot, "Title");
  lw_plot_set_x_label(plot, "t [s]");
  lw_plot_set_y_label(plot, "r2.x [m]");
  lw_plot_set_view(plot, -3, 17, -0.002, 0.005);
  lw_plot_layout(plot, 640, 480);
  double ax, ay, aw, ah;
  g_assert_true(lw_plot_get_data_area(plot, &ax, &ay, &aw, &ah));
  /* room for labels on the left and below, the data area inside */
  g_assert_cmpfloat(ax, >, 20);
  g_assert_cmpfloat(ay, >, 10);
  g_assert_cmpfloat(ax + aw, <=, 640);
  g_assert_cmpfloat(ay + ah, <, 480 - 20);
  g_assert_cmpfloat(aw, >, 400);
  g_assert_cmpfloat(ah, >, 300);
  /* view corners are data-area corners; y grows upwards */
  lw_plot_to_pixel(plot, -3, -0.002, &px, &py);
  g_assert_cmpfloat_with_epsilon(px, ax, 1e-9);
  g_assert_cmpfloat_with_epsilon(py, ay + ah, 1e-9);
  lw_plot_to_pixel(plot, 17, 0.005, &px, &py);
  g_assert_cmpfloat_with_epsilon(px, ax + aw, 1e-9);
  g_assert_cmpfloat_with_epsilon(py, ay, 1e-9);
  const double pts[][2] = {{0, 0}, {1.5, 0.001}, {-3, 0.005}, {16.9, -0.0019}, {100, 1}};
  for (gsize i = 0; i < G_N_ELEMENTS(pts); i++) {
    g_assert_true(lw_plot_to_pixel(plot, pts[i][0], pts[i][1], &px, &py));
    g_assert_true(lw_plot_from_pixel(plot, px, py, &x, &y));
    g_assert_cmpfloat_with_epsilon(x, pts[i][0], 1e-12 * 20);
    g_assert_cmpfloat_with_epsilon(y, pts[i][1], 1e-12 * 0.007);
  }
}

static void test_nearest(void)
{
  g_autoptr(LwPlot) plot = lw_plot_new();
  guint a = lw_plot_add_series(plot, "a"), b = lw_plot_add_series(plot, "b"), c = lw_plot_add_series(plot, "c");
  for (int i = 0; i < 4; i++) {
    lw_plot_series_append(plot, a, i, i * i);
    lw_plot_series_append(plot, b, i, 5);
  }
  /* x in no order: searched without bisection */
  lw_plot_series_append(plot, c, 3, 0.5);
  lw_plot_series_append(plot, c, 0.5, 2);
  lw_plot_series_append(plot, c, 1.5, 7);
  lw_plot_series_append(plot, a, 100, 100); /* outside the view: not found */
  lw_plot_set_view(plot, -0.5, 3.5, -1, 10);
  guint s;
  double x, y, px, py;
  g_assert_false(lw_plot_nearest(plot, 100, 100, 10, &s, &x, &y)); /* no layout yet */
  lw_plot_layout(plot, 600, 400);

  lw_plot_to_pixel(plot, 2, 4, &px, &py);
  g_assert_true(lw_plot_nearest(plot, px + 3, py - 2, 10, &s, &x, &y));
  g_assert_cmpuint(s, ==, a);
  g_assert_cmpfloat(x, ==, 2);
  g_assert_cmpfloat(y, ==, 4);

  lw_plot_to_pixel(plot, 1, 5, &px, &py);
  g_assert_true(lw_plot_nearest(plot, px - 1, py + 4, 10, &s, &x, &y));
  g_assert_cmpuint(s, ==, b);
  g_assert_cmpfloat(x, ==, 1);

  lw_plot_to_pixel(plot, 0.5, 2, &px, &py);
  g_assert_true(lw_plot_nearest(plot, px, py + 5, 10, &s, &x, &y));
  g_assert_cmpuint(s, ==, c);
  g_assert_cmpfloat(x, ==, 0.5);
  g_assert_cmpfloat(y, ==, 2);

  /* nothing within reach */
  lw_plot_to_pixel(plot, 2.5, 8, &px, &py);
  g_assert_false(lw_plot_nearest(plot, px, py, 10, &s, &x, &y));
  lw_plot_to_pixel(plot, 2, 4, &px, &py);
  g_assert_false(lw_plot_nearest(plot, px + 12, py, 10, &s, &x, &y));
  g_assert_true(lw_plot_nearest(plot, px + 12, py, 13, &s, &x, &y));
}

/* ---- drawing ---- */
/* A plot whose layout does not depend on the data: fixed view, no legend. */
static LwPlot *fixed_plot(void)
{
  LwPlot *plot = lw_plot_new();
  lw_plot_set_legend_visible(plot, FALSE);
  lw_plot_set_view(plot, 0, 10, 0, 1);
  lw_plot_layout(plot, 400, 300);
  return plot;
}

static void test_draw_color(void)
{
  g_autoptr(LwPlot) plot = fixed_plot();
  const LwPlotColor c = {0, 0.5, 1, 1};
  guint s = lw_plot_add_series(plot, "line");
  lw_plot_series_set_color(plot, s, &c);
  /* a horizontal line through pixel centers covers whole pixels */
  double px, py, y;
  lw_plot_to_pixel(plot, 2.5, 0.55, &px, &py);
  lw_plot_from_pixel(plot, px, floor(py) + 0.5, NULL, &y);
  lw_plot_series_append(plot, s, 0, y);
  lw_plot_series_append(plot, s, 10, y);
  cairo_surface_t *img = render(plot, 400, 300);
  double rgb[3];
  pixel(img, (int)px, (int)py, rgb);
  g_test_message("pixel %g %g %g", rgb[0], rgb[1], rgb[2]);
  g_assert_true(color_is(rgb, c.red, c.green, c.blue, 1.5 / 255));
  /* two rows away: background */
  pixel(img, (int)px, (int)py + 2, rgb);
  g_assert_true(color_is(rgb, 1, 1, 1, 1.5 / 255));
  /* nothing outside the data area, though the line goes on */
  double ax, ay, aw, ah;
  lw_plot_get_data_area(plot, &ax, &ay, &aw, &ah);
  lw_plot_series_append(plot, s, 30, y);
  cairo_surface_destroy(img);
  img = render(plot, 400, 300);
  pixel(img, (int)(ax + aw) + 3, (int)py, rgb);
  g_assert_true(color_is(rgb, 1, 1, 1, 1.5 / 255));
  cairo_surface_destroy(img);
}

/* both reductions: every point (101), and per pixel column (10001) */
static void test_draw_nan_gap(void)
{
  const int counts[] = {100, 10000};
  for (gsize n = 0; n < G_N_ELEMENTS(counts); n++) {
    g_autoptr(LwPlot) plot = fixed_plot();
    const LwPlotColor red = {1, 0, 0, 1};
    guint s = lw_plot_add_series(plot, "gap");
    lw_plot_series_set_color(plot, s, &red);
    for (int i = 0; i <= counts[n]; i++) {
      double x = i * 10.0 / counts[n];
      lw_plot_series_append(plot, s, x, x > 4 && x < 6 ? NAN : 0.55);
    }
    cairo_surface_t *img = render(plot, 400, 300);
    double px, py, gx;
    lw_plot_to_pixel(plot, 2.5, 0.55, &px, &py);
    lw_plot_to_pixel(plot, 4.5, 0.55, &gx, NULL);
    g_assert_true(color_near(img, px, py, 0, 1, &red, 0.02));
    /* in the gap, every pixel around the line's height is background */
    for (int j = -3; j <= 3; j++) {
      double rgb[3];
      pixel(img, (int)gx, (int)py + j, rgb);
      g_assert_true(color_is(rgb, 1, 1, 1, 1.5 / 255));
    }
    /* and after it the line is back */
    lw_plot_to_pixel(plot, 7.5, 0.55, &px, NULL);
    g_assert_true(color_near(img, px, py, 0, 1, &red, 0.02));
    cairo_surface_destroy(img);
  }
}

static void test_draw_decimation(void)
{
  enum { N = 100000 };
  g_autoptr(LwPlot) plot = lw_plot_new();
  lw_plot_set_legend_visible(plot, FALSE);
  const LwPlotColor c = {0.5, 0, 0.5, 1};
  guint s = lw_plot_add_series(plot, "spikes");
  lw_plot_series_set_color(plot, s, &c);
  double *x = g_new(double, N), *y = g_new(double, N);
  for (int i = 0; i < N; i++) {
    x[i] = i;
    y[i] = 0;
  }
  y[54321] = 1;   /* one point up */
  y[12345] = -1;  /* and one down */
  y[77777] = NAN; /* a NaN among many points in a column does not hide them */
  lw_plot_series_append_many(plot, s, x, y, N);
  lw_plot_set_view(plot, 0, N - 1, -1.2, 1.2);
  cairo_surface_t *img = render(plot, 600, 400);
  double px, py;
  lw_plot_to_pixel(plot, 54321, 0.8, &px, &py);
  g_assert_true(color_near(img, px, py, 1, 0, &c, 0.05));
  lw_plot_to_pixel(plot, 12345, -0.8, &px, &py);
  g_assert_true(color_near(img, px, py, 1, 0, &c, 0.05));
  /* the flat part is there, and away from the spikes nothing is above it */
  lw_plot_to_pixel(plot, 30000, 0, &px, &py);
  g_assert_true(color_near(img, px, py, 0, 1, &c, 0.05));
  lw_plot_to_pixel(plot, 30000, 0.8, &px, &py);
  g_assert_false(color_near(img, px, py, 1, 0, &c, 0.3));
  cairo_surface_destroy(img);

  /* ten such series draw too (speed is for benchmarks, this is for crashes) */
  for (int k = 1; k < 10; k++) {
    guint t = lw_plot_add_series(plot, "more");
    lw_plot_series_append_many(plot, t, x, y, N);
  }
  lw_plot_reset_view(plot);
  img = render(plot, 800, 600);
  cairo_surface_destroy(img);
  g_free(x);
  g_free(y);
}

static void test_draw_hover(void)
{
  g_autoptr(LwPlot) plot = fixed_plot();
  const LwPlotColor c = {0.2, 0.6, 0.2, 1};
  guint s = lw_plot_add_series(plot, "h");
  lw_plot_series_set_color(plot, s, &c);
  lw_plot_series_append(plot, s, 0, 0.3);
  lw_plot_series_append(plot, s, 10, 0.3);
  double px, py;
  lw_plot_to_pixel(plot, 3.3, 0.3, &px, &py);
  cairo_surface_t *img = render(plot, 400, 300);
  g_assert_false(color_near(img, px, py - 3, 0, 0, &c, 0.05));
  cairo_surface_destroy(img);
  /* the marker is a disc around the point */
  lw_plot_set_hover(plot, (int)s, 3.3, 0.3);
  img = render(plot, 400, 300);
  g_assert_true(color_near(img, px, py - 3, 0, 0, &c, 0.05));
  cairo_surface_destroy(img);
  /* removing the series removes the mark */
  lw_plot_remove_series(plot, s);
  img = render(plot, 400, 300);
  g_assert_false(color_near(img, px, py - 3, 0, 0, &c, 0.05));
  cairo_surface_destroy(img);
}

/* ---- export ---- */
static LwPlot *sample_plot(void)
{
  LwPlot *plot = lw_plot_new();
  lw_plot_set_title(plot, "Sample");
  lw_plot_set_x_label(plot, "t [s]");
  lw_plot_set_y_label(plot, "r2.x [m]");
  guint a = lw_plot_add_series(plot, "sin"), b = lw_plot_add_series(plot, "cos");
  for (int i = 0; i <= 200; i++) {
    lw_plot_series_append(plot, a, i * 0.05, sin(i * 0.05));
    lw_plot_series_append(plot, b, i * 0.05, cos(i * 0.05));
  }
  return plot;
}

static void test_export_png(void)
{
  g_autoptr(LwPlot) plot = sample_plot();
  /* screen colors are dark; the file is not */
  const LwPlotColor fg = {0.9, 0.9, 0.9, 1}, bg = {0.1, 0.1, 0.1, 1};
  lw_plot_set_colors(plot, &fg, &bg);
  lw_plot_layout(plot, 300, 200);
  double ax, aw;
  lw_plot_get_data_area(plot, &ax, NULL, &aw, NULL);
  g_autofree char *path = tmp_path("plot.PNG");
  g_autoptr(GError) error = NULL;
  g_assert_true(lw_plot_export(plot, path, 640, 400, &error));
  g_assert_no_error(error);
  /* the screen layout survives the export */
  double ax2, aw2;
  lw_plot_get_data_area(plot, &ax2, NULL, &aw2, NULL);
  g_assert_cmpfloat(ax2, ==, ax);
  g_assert_cmpfloat(aw2, ==, aw);

  g_autofree char *data = NULL;
  gsize len;
  g_assert_true(g_file_get_contents(path, &data, &len, NULL));
  g_assert_cmpuint(len, >, 8);
  g_assert_cmpmem(data, 8, "\x89PNG\r\n\x1a\n", 8);
  cairo_surface_t *img = cairo_image_surface_create_from_png(path);
  g_assert_cmpint(cairo_surface_status(img), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint(cairo_image_surface_get_width(img), ==, 640);
  g_assert_cmpint(cairo_image_surface_get_height(img), ==, 400);
  double rgb[3];
  pixel(img, 1, 1, rgb);
  g_assert_true(color_is(rgb, 1, 1, 1, 1.5 / 255));
  cairo_surface_destroy(img);
}

static void test_export_vector(void)
{
  g_autoptr(LwPlot) plot = sample_plot();
  g_autoptr(GError) error = NULL;
  g_autofree char *svg = tmp_path("plot.svg");
  g_autofree char *pdf = tmp_path("plot.pdf");
  g_assert_true(lw_plot_export(plot, svg, 500, 300, &error));
  g_assert_no_error(error);
  g_assert_true(lw_plot_export(plot, pdf, 500, 300, &error));
  g_assert_no_error(error);
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true(g_file_get_contents(svg, &data, &len, NULL));
  g_assert_true(g_str_has_prefix(data, "<?xml"));
  g_assert_nonnull(strstr(data, "<svg"));
  g_assert_nonnull(strstr(data, "</svg>"));
  g_free(data);
  g_assert_true(g_file_get_contents(pdf, &data, &len, NULL));
  g_assert_true(g_str_has_prefix(data, "%PDF"));
  g_assert_nonnull(memmem(data, len, "%%EOF", 5));
}

/* Split one CSV line (RFC 4180 quoting, no line breaks in fields). */
static GPtrArray *csv_fields(const char *line)
{
  GPtrArray *f = g_ptr_array_new_with_free_func(g_free);
  const char *p = line;
  for (;;) {
    GString *s = g_string_new(NULL);
    if (*p == '"') {
      for (p++; *p; p++) {
        if (*p == '"' && p[1] == '"')
          g_string_append_c(s, *p++);
        else if (*p == '"') {
          p++;
          break;
        } else
          g_string_append_c(s, *p);
      }
    } else
      for (; *p && *p != ','; p++)
        g_string_append_c(s, *p);
    g_ptr_array_add(f, g_string_free(s, FALSE));
    if (*p != ',')
      break;
    p++;
  }
  return f;
}

static double csv_number(const char *s)
{
  char *end;
  double v = g_ascii_strtod(s, &end);
  g_assert_true(*s && *end == 0);
  return v;
}

static gboolean same_double(double a, double b)
{
  return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

static void test_export_csv_shared(void)
{
  const double x[] = {0, 0.1, 1.0 / 3, 1e-300, 2.5, 6.02214076e23};
  const double y1[] = {-0.0, 4.9406564584124654e-324, -2.5e-17, 123456789.123456789, NAN, 1.7976931348623157e308};
  const double y2[] = {1, 2, 3, 4, 5, 6};
  g_autoptr(LwPlot) plot = plot_with("r2.x, \"m\"", x, y1, 6);
  lw_plot_set_x_label(plot, "t [s]");
  guint b = lw_plot_add_series(plot, "b");
  lw_plot_series_append_many(plot, b, x, y2, 6);
  g_autofree char *path = tmp_path("shared.csv");
  g_autoptr(GError) error = NULL;
  /* written in a comma-decimal locale, if there is one */
  const char *loc = setlocale(LC_NUMERIC, "de_DE.UTF-8");
  g_assert_true(lw_plot_export_csv(plot, path, &error));
  if (loc)
    setlocale(LC_NUMERIC, "C");
  g_assert_no_error(error);

  g_autofree char *data = NULL;
  g_assert_true(g_file_get_contents(path, &data, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(data, "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 6 + 1); /* header, rows, "" after the last \n */
  g_assert_cmpstr(lines[7], ==, "");
  g_autoptr(GPtrArray) head = csv_fields(lines[0]);
  g_assert_cmpuint(head->len, ==, 3);
  g_assert_cmpstr(head->pdata[0], ==, "t [s]");
  g_assert_cmpstr(head->pdata[1], ==, "r2.x, \"m\"");
  g_assert_cmpstr(head->pdata[2], ==, "b");
  for (int i = 0; i < 6; i++) {
    g_autoptr(GPtrArray) f = csv_fields(lines[1 + i]);
    g_assert_cmpuint(f->len, ==, 3);
    g_assert_true(same_double(csv_number(f->pdata[0]), x[i]));
    g_assert_true(same_double(csv_number(f->pdata[1]), y1[i]));
    g_assert_true(same_double(csv_number(f->pdata[2]), y2[i]));
  }
}

static void test_export_csv_pairs(void)
{
  const double xa[] = {0, 0.5, 1}, ya[] = {1.1, 2.2, 3.3};
  const double xb[] = {0, 0.25}, yb[] = {-1e-9, 7};
  g_autoptr(LwPlot) plot = plot_with("a", xa, ya, 3);
  guint b = lw_plot_add_series(plot, "");
  lw_plot_series_append_many(plot, b, xb, yb, 2);
  g_autofree char *path = tmp_path("pairs.csv");
  g_autoptr(GError) error = NULL;
  g_assert_true(lw_plot_export_csv(plot, path, &error));
  g_assert_no_error(error);
  g_autofree char *data = NULL;
  g_assert_true(g_file_get_contents(path, &data, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(data, "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 3 + 1);
  g_assert_cmpstr(lines[0], ==, "a x,a y,series 2 x,series 2 y");
  for (int i = 0; i < 3; i++) {
    g_autoptr(GPtrArray) f = csv_fields(lines[1 + i]);
    g_assert_cmpuint(f->len, ==, 4);
    g_assert_true(same_double(csv_number(f->pdata[0]), xa[i]));
    g_assert_true(same_double(csv_number(f->pdata[1]), ya[i]));
    if (i < 2) {
      g_assert_true(same_double(csv_number(f->pdata[2]), xb[i]));
      g_assert_true(same_double(csv_number(f->pdata[3]), yb[i]));
    } else {
      g_assert_cmpstr(f->pdata[2], ==, "");
      g_assert_cmpstr(f->pdata[3], ==, "");
    }
  }
}

static void test_export_errors(void)
{
  g_autoptr(LwPlot) plot = sample_plot();
  g_autoptr(GError) error = NULL;
  g_autofree char *bmp = tmp_path("plot.bmp");
  g_assert_false(lw_plot_export(plot, bmp, 100, 100, &error));
  g_assert_error(error, LW_PLOT_ERROR, LW_PLOT_ERROR_FORMAT);
  g_test_message("%s", error->message);
  g_assert_nonnull(strstr(error->message, bmp));
  g_assert_false(g_file_test(bmp, G_FILE_TEST_EXISTS));
  g_clear_error(&error);

  g_autofree char *none = tmp_path("noextension");
  g_assert_false(lw_plot_export(plot, none, 100, 100, &error));
  g_assert_error(error, LW_PLOT_ERROR, LW_PLOT_ERROR_FORMAT);
  g_clear_error(&error);

  const char *bad[] = {"no-such-dir/plot.png", "no-such-dir/plot.svg", "no-such-dir/plot.pdf"};
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *path = tmp_path(bad[i]);
    g_assert_false(lw_plot_export(plot, path, 100, 100, &error));
    g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
    g_test_message("%s", error->message);
    g_assert_nonnull(strstr(error->message, path));
    g_clear_error(&error);
  }
  g_autofree char *csv = tmp_path("no-such-dir/data.csv");
  g_assert_false(lw_plot_export_csv(plot, csv, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull(strstr(error->message, csv));
  g_clear_error(&error);
  /* a directory is not a file */
  g_assert_false(lw_plot_export_csv(plot, tmp_dir, &error));
  g_assert_nonnull(error);
  g_assert_nonnull(strstr(error->message, tmp_dir));
}

/* ---- widget ---- */
static GObject *find_controller(GtkWidget *w, GType type)
{
  GListModel *list = gtk_widget_observe_controllers(w);
  GObject *found = NULL;
  for (guint i = 0; i < g_list_model_get_n_items(list) && !found; i++) {
    GObject *c = g_list_model_get_item(list, i);
    if (G_TYPE_CHECK_INSTANCE_TYPE(c, type))
      found = c;
    g_object_unref(c); /* the widget keeps it */
  }
  g_object_unref(list);
  g_assert_nonnull(found);
  return found;
}

/* A shown window holding a plot view with data, drawn at least once. */
static GtkWidget *show_view(GtkWidget **window)
{
  GtkWidget *view = lw_plot_view_new();
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(view));
  guint s = lw_plot_add_series(plot, "y");
  for (int i = 0; i <= 100; i++)
    lw_plot_series_append(plot, s, i * 0.1, sin(i * 0.1));
  lw_plot_view_queue_update(LW_PLOT_VIEW(view));
  *window = gtk_window_new();
  gtk_window_set_default_size(GTK_WINDOW(*window), 640, 480);
  gtk_window_set_child(GTK_WINDOW(*window), view);
  gtk_window_present(GTK_WINDOW(*window));
  gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
  while (!lw_plot_get_data_area(plot, NULL, NULL, NULL, NULL) && g_get_monotonic_time() < deadline)
    g_main_context_iteration(NULL, FALSE);
  g_assert_true(lw_plot_get_data_area(plot, NULL, NULL, NULL, NULL));
  return view;
}

static void test_view_actions(void)
{
  if (!have_display) {
    g_test_skip("no display");
    return;
  }
  GtkWidget *window, *view = show_view(&window);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(view));
  double a0, a1, b0, b1, x0, x1, y0, y1;
  lw_plot_get_view(plot, &a0, &a1, &b0, &b1);
  g_assert_true(gtk_widget_activate_action(view, "plot.zoom-in", NULL));
  g_assert_false(lw_plot_is_autoscaled(plot));
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat_with_epsilon(x1 - x0, (a1 - a0) / 1.25, 1e-12);
  g_assert_cmpfloat_with_epsilon(y1 - y0, (b1 - b0) / 1.25, 1e-12);
  g_assert_cmpfloat_with_epsilon(x0 + x1, a0 + a1, 1e-12); /* about the center */
  g_assert_true(gtk_widget_activate_action(view, "plot.zoom-out", NULL));
  g_assert_true(gtk_widget_activate_action(view, "plot.zoom-out", NULL));
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat_with_epsilon(x1 - x0, (a1 - a0) * 1.25, 1e-12);
  g_assert_true(gtk_widget_activate_action(view, "plot.reset-view", NULL));
  g_assert_true(lw_plot_is_autoscaled(plot));
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat(x0, ==, a0);
  g_assert_cmpfloat(y1, ==, b1);
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_view_input(void)
{
  if (!have_display) {
    g_test_skip("no display");
    return;
  }
  GtkWidget *window, *view = show_view(&window);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(view));
  GObject *motion = find_controller(view, GTK_TYPE_EVENT_CONTROLLER_MOTION);
  GObject *scroll = find_controller(view, GTK_TYPE_EVENT_CONTROLLER_SCROLL);
  GObject *drag = find_controller(view, GTK_TYPE_GESTURE_DRAG);

  /* the wheel zooms about the point under the pointer */
  double px, py, cx, cy, x0, x1, y0, y1, a0, a1, b0, b1;
  lw_plot_to_pixel(plot, 6.5, 0.25, &px, &py);
  lw_plot_get_view(plot, &a0, &a1, &b0, &b1);
  g_signal_emit_by_name(motion, "motion", px, py);
  gboolean handled = FALSE;
  g_signal_emit_by_name(scroll, "scroll", 0.0, -1.0, &handled);
  g_assert_true(handled);
  lw_plot_from_pixel(plot, px, py, &cx, &cy);
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat_with_epsilon(x1 - x0, (a1 - a0) / 1.25, 1e-12);
  g_assert_cmpfloat_with_epsilon((cx - x0) / (x1 - x0), (cx - a0) / (a1 - a0), 1e-9);
  g_assert_cmpfloat_with_epsilon((cy - y0) / (y1 - y0), (cy - b0) / (b1 - b0), 1e-9);

  /* dragging moves the data with the pointer */
  gtk_widget_activate_action(view, "plot.reset-view", NULL);
  double ax, ay, aw, ah;
  lw_plot_get_data_area(plot, &ax, &ay, &aw, &ah);
  lw_plot_get_view(plot, &a0, &a1, &b0, &b1);
  g_signal_emit_by_name(drag, "drag-begin", ax + 50, ay + 50);
  g_signal_emit_by_name(drag, "drag-update", 1.0, 1.0); /* under the threshold: no pan */
  g_assert_true(lw_plot_is_autoscaled(plot));
  g_signal_emit_by_name(drag, "drag-update", 40.0, -20.0);
  g_signal_emit_by_name(drag, "drag-end", 40.0, -20.0);
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat_with_epsilon(x0, a0 - 40 * (a1 - a0) / aw, 1e-9);
  g_assert_cmpfloat_with_epsilon(y0, b0 - 20 * (b1 - b0) / ah, 1e-9);
  g_assert_cmpfloat_with_epsilon(x1 - x0, a1 - a0, 1e-9);
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_view_accessible(void)
{
  if (!have_display) {
    g_test_skip("no display");
    return;
  }
  GtkWidget *view = g_object_ref_sink(lw_plot_view_new());
  gtk_test_accessible_assert_role(GTK_ACCESSIBLE(view), GTK_ACCESSIBLE_ROLE_IMG);
  gtk_test_accessible_assert_property(GTK_ACCESSIBLE(view), GTK_ACCESSIBLE_PROPERTY_LABEL, "Plot");
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(view));
  lw_plot_set_title(plot, "Joint angle");
  lw_plot_set_x_label(plot, "t [s]");
  lw_plot_set_y_label(plot, "q1 [rad]");
  lw_plot_view_queue_update(LW_PLOT_VIEW(view));
  gtk_test_accessible_assert_property(GTK_ACCESSIBLE(view), GTK_ACCESSIBLE_PROPERTY_LABEL, "Joint angle");
  gtk_test_accessible_assert_property(GTK_ACCESSIBLE(view), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                      "q1 [rad] against t [s]");
  g_object_unref(view);
}

int main(int argc, char **argv)
{
  /* the test accessibility backend: no AT-SPI bus needed, properties readable */
  g_setenv("GTK_A11Y", "test", TRUE);
  g_setenv("GSETTINGS_BACKEND", "memory", TRUE);
  g_test_init(&argc, &argv, NULL);
  have_display = gtk_init_check();
  g_autoptr(GError) error = NULL;
  tmp_dir = g_dir_make_tmp("lw-plot-XXXXXX", &error);
  g_assert_no_error(error);

  g_test_add_func("/plot/ticks", test_ticks);
  g_test_add_func("/plot/tick-labels", test_tick_labels);
  g_test_add_func("/plot/series", test_series);
  g_test_add_func("/plot/autoscale", test_autoscale);
  g_test_add_func("/plot/zoom", test_zoom);
  g_test_add_func("/plot/pan", test_pan);
  g_test_add_func("/plot/mapping", test_mapping);
  g_test_add_func("/plot/nearest", test_nearest);
  g_test_add_func("/plot/draw-color", test_draw_color);
  g_test_add_func("/plot/draw-nan-gap", test_draw_nan_gap);
  g_test_add_func("/plot/draw-decimation", test_draw_decimation);
  g_test_add_func("/plot/draw-hover", test_draw_hover);
  g_test_add_func("/plot/export-png", test_export_png);
  g_test_add_func("/plot/export-svg-pdf", test_export_vector);
  g_test_add_func("/plot/export-csv-shared", test_export_csv_shared);
  g_test_add_func("/plot/export-csv-pairs", test_export_csv_pairs);
  g_test_add_func("/plot/export-errors", test_export_errors);
  g_test_add_func("/plot-view/actions", test_view_actions);
  g_test_add_func("/plot-view/input", test_view_input);
  g_test_add_func("/plot-view/accessible", test_view_accessible);
  int ret = g_test_run();

  const char *names[] = {"plot.PNG", "plot.svg", "plot.pdf", "shared.csv", "pairs.csv"};
  for (gsize i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *p = tmp_path(names[i]);
    g_remove(p);
  }
  g_rmdir(tmp_dir);
  g_free(tmp_dir);
  return ret;
}
