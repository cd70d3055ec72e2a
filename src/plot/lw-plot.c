/* lw-plot.c: x-y line plots drawn with cairo.
 *
 * One drawing routine serves the screen and every export format, so what is
 * exported is what was seen. Long series are reduced per pixel column
 * (first, min, max, last; see lw_path_columns) before cairo sees them: a
 * stroke costs in proportion to its segments, and a column cannot show more
 * than its extremes anyway, so spikes survive while the path stays short.
 */
#include "lw-plot.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <float.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK(lw-plot-error-quark, lw_plot_error)

#define LW_PLOT_FONT "sans-serif"
#define LW_PLOT_TICK_FONT_SIZE 12.0
#define LW_PLOT_LABEL_FONT_SIZE 13.0
#define LW_PLOT_TITLE_FONT_SIZE 14.0
#define LW_PLOT_PAD 8.0
#define LW_PLOT_TICK_LEN 4.0
#define LW_PLOT_LINE_WIDTH 1.5
#define LW_PLOT_MAX_TICKS 32
/* Pixel coordinates are clamped to this far outside the data area: cairo
 * stores coordinates in 24.8 fixed point, and a deep zoom would otherwise
 * overflow it. The clipped part is invisible, so the distortion is too. */
#define LW_PLOT_FAR 1e6

/* Tableau 10: distinct hues of similar weight that read on light and dark
 * backgrounds. */
static const LwPlotColor lw_plot_palette[] = {
  {0.122, 0.467, 0.706, 1}, {1.000, 0.498, 0.055, 1}, {0.173, 0.627, 0.173, 1}, {0.839, 0.153, 0.157, 1},
  {0.580, 0.404, 0.741, 1}, {0.549, 0.337, 0.294, 1}, {0.890, 0.467, 0.761, 1}, {0.498, 0.498, 0.498, 1},
  {0.737, 0.741, 0.133, 1}, {0.090, 0.745, 0.812, 1},
};

static const LwPlotColor lw_plot_default_fg = {0.1, 0.1, 0.1, 1};
static const LwPlotColor lw_plot_default_bg = {1, 1, 1, 1};

typedef struct {
  char *name;
  LwPlotColor color;
  int palette_index; /* -1: the caller chose the color */
  double *x, *y;
  gsize n, cap;
  /* x never NaN and never decreasing: the visible points can be found by
   * bisection and decimated per pixel column */
  gboolean sorted;
  double xmin, xmax, ymin, ymax; /* of the finite points; xmin > xmax: none */
  gboolean dashed;               /* drawn dashed (a comparison beside the others) */
} LwSeries;

typedef struct {
  gboolean valid;
  double width, height;
  double ax, ay, aw, ah; /* data area, pixels */
  double x0, x1, y0, y1; /* view range drawn into it */
} LwLayout;

/* Ticks and margins, decided by the layout and used by the drawing. */
typedef struct {
  LwLayout l;
  double xt[LW_PLOT_MAX_TICKS], yt[LW_PLOT_MAX_TICKS];
  guint nxt, nyt;
  double xstep, ystep;
} LwFrame;

struct _LwPlot {
  char *title, *x_label, *y_label;
  gboolean legend;
  LwPlotColor fg, bg;
  GPtrArray *series; /* LwSeries * */
  gboolean manual;
  double vx0, vx1, vy0, vy1; /* the manual view */
  gboolean manual_x;         /* only x manual (vx0, vx1), y automatic */
  double floor;              /* unit scale below which a range is round-off */
  gboolean equal_aspect;     /* a data unit as long on x as on y */
  double cursor;             /* x of the cursor line, NaN: none */
  GArray *marks;             /* double: x of each mark line (events) */
  LwLayout layout;           /* of the last draw */
  int hover_series;          /* -1: none */
  gboolean exporting;        /* drawing a file: quality over speed */
  double hover_x, hover_y;
  /* a bar chart: nbars > 0 */
  guint nbars;
  char **bar_names;
  double *bar_values;
};

/* ---- series ------------------------------------------------------------ */
static void lw_series_reset_bounds(LwSeries *s)
{
  s->xmin = s->ymin = INFINITY;
  s->xmax = s->ymax = -INFINITY;
  s->sorted = TRUE;
}

static void lw_series_free(gpointer p)
{
  LwSeries *s = p;
  g_free(s->name);
  g_free(s->x);
  g_free(s->y);
  g_free(s);
}

static LwSeries *lw_plot_series(const LwPlot *plot, guint series)
{
  g_return_val_if_fail(plot != NULL, NULL);
  g_return_val_if_fail(series < plot->series->len, NULL);
  return g_ptr_array_index(plot->series, series);
}

LwPlot *lw_plot_new(void)
{
  LwPlot *plot = g_new0(LwPlot, 1);
  plot->legend = TRUE;
  plot->fg = lw_plot_default_fg;
  plot->bg = lw_plot_default_bg;
  plot->series = g_ptr_array_new_with_free_func(lw_series_free);
  plot->hover_series = -1;
  plot->floor = 1.0;
  plot->cursor = NAN;
  plot->marks = g_array_new(FALSE, FALSE, sizeof(double));
  return plot;
}

void lw_plot_free(LwPlot *plot)
{
  if (!plot)
    return;
  g_free(plot->title);
  g_free(plot->x_label);
  g_free(plot->y_label);
  g_ptr_array_unref(plot->series);
  g_array_unref(plot->marks);
  g_strfreev(plot->bar_names);
  g_free(plot->bar_values);
  g_free(plot);
}

static void lw_set_string(char **dst, const char *s)
{
  char *copy = s && *s ? g_strdup(s) : NULL;
  g_free(*dst);
  *dst = copy;
}

void lw_plot_set_title(LwPlot *plot, const char *title)
{
  g_return_if_fail(plot != NULL);
  lw_set_string(&plot->title, title);
}

const char *lw_plot_get_title(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, NULL);
  return plot->title;
}

void lw_plot_set_x_label(LwPlot *plot, const char *label)
{
  g_return_if_fail(plot != NULL);
  lw_set_string(&plot->x_label, label);
}

const char *lw_plot_get_x_label(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, NULL);
  return plot->x_label;
}

void lw_plot_set_y_label(LwPlot *plot, const char *label)
{
  g_return_if_fail(plot != NULL);
  lw_set_string(&plot->y_label, label);
}

const char *lw_plot_get_y_label(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, NULL);
  return plot->y_label;
}

void lw_plot_set_legend_visible(LwPlot *plot, gboolean visible)
{
  g_return_if_fail(plot != NULL);
  plot->legend = visible;
}

void lw_plot_set_colors(LwPlot *plot, const LwPlotColor *foreground, const LwPlotColor *background)
{
  g_return_if_fail(plot != NULL);
  plot->fg = foreground ? *foreground : lw_plot_default_fg;
  plot->bg = background ? *background : lw_plot_default_bg;
}

guint lw_plot_add_series(LwPlot *plot, const char *name)
{
  g_return_val_if_fail(plot != NULL, 0);
  /* the first palette color nobody uses, so that removing and adding
   * series does not give two of them the same color */
  gboolean used[G_N_ELEMENTS(lw_plot_palette)] = {FALSE};
  for (guint i = 0; i < plot->series->len; i++) {
    const LwSeries *s = g_ptr_array_index(plot->series, i);
    if (s->palette_index >= 0)
      used[s->palette_index] = TRUE;
  }
  int pick = (int)(plot->series->len % G_N_ELEMENTS(lw_plot_palette));
  for (guint i = 0; i < G_N_ELEMENTS(lw_plot_palette); i++)
    if (!used[i]) {
      pick = (int)i;
      break;
    }
  LwSeries *s = g_new0(LwSeries, 1);
  s->name = g_strdup(name ? name : "");
  s->palette_index = pick;
  s->color = lw_plot_palette[pick];
  lw_series_reset_bounds(s);
  g_ptr_array_add(plot->series, s);
  return plot->series->len - 1;
}

guint lw_plot_get_n_series(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, 0);
  return plot->series->len;
}

void lw_plot_remove_series(LwPlot *plot, guint series)
{
  g_return_if_fail(lw_plot_series(plot, series) != NULL);
  g_ptr_array_remove_index(plot->series, series);
  if (plot->hover_series == (int)series)
    plot->hover_series = -1;
  else if (plot->hover_series > (int)series)
    plot->hover_series--;
}

void lw_plot_series_set_name(LwPlot *plot, guint series, const char *name)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_if_fail(s != NULL);
  char *copy = g_strdup(name ? name : "");
  g_free(s->name);
  s->name = copy;
}

const char *lw_plot_series_get_name(const LwPlot *plot, guint series)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_val_if_fail(s != NULL, NULL);
  return s->name;
}

void lw_plot_series_set_color(LwPlot *plot, guint series, const LwPlotColor *color)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_if_fail(s != NULL && color != NULL);
  s->color = *color;
  s->palette_index = -1;
}

LwPlotColor lw_plot_series_get_color(const LwPlot *plot, guint series)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_val_if_fail(s != NULL, lw_plot_default_fg);
  return s->color;
}

static void lw_series_reserve(LwSeries *s, gsize extra)
{
  if (s->n + extra <= s->cap)
    return;
  gsize cap = MAX(s->cap * 2, 256);
  while (cap < s->n + extra)
    cap *= 2;
  s->x = g_renew(double, s->x, cap);
  s->y = g_renew(double, s->y, cap);
  s->cap = cap;
}

static inline void lw_series_push(LwSeries *s, double x, double y)
{
  if (isnan(x) || (s->n > 0 && x < s->x[s->n - 1]))
    s->sorted = FALSE;
  s->x[s->n] = x;
  s->y[s->n] = y;
  s->n++;
  if (isfinite(x) && isfinite(y)) {
    s->xmin = fmin(s->xmin, x);
    s->xmax = fmax(s->xmax, x);
    s->ymin = fmin(s->ymin, y);
    s->ymax = fmax(s->ymax, y);
  }
}

void lw_plot_series_append(LwPlot *plot, guint series, double x, double y)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_if_fail(s != NULL);
  lw_series_reserve(s, 1);
  lw_series_push(s, x, y);
}

void lw_plot_series_append_many(LwPlot *plot, guint series, const double *x, const double *y, gsize n)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_if_fail(s != NULL);
  g_return_if_fail(n == 0 || (x != NULL && y != NULL));
  lw_series_reserve(s, n);
  for (gsize i = 0; i < n; i++)
    lw_series_push(s, x[i], y[i]);
}

void lw_plot_series_clear(LwPlot *plot, guint series)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_if_fail(s != NULL);
  /* the storage stays: the next run fills it again */
  s->n = 0;
  lw_series_reset_bounds(s);
  if (plot->hover_series == (int)series)
    plot->hover_series = -1;
}

void lw_plot_clear_data(LwPlot *plot)
{
  g_return_if_fail(plot != NULL);
  for (guint i = 0; i < plot->series->len; i++)
    lw_plot_series_clear(plot, i);
}

gsize lw_plot_series_get_n_points(const LwPlot *plot, guint series)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_val_if_fail(s != NULL, 0);
  return s->n;
}

const double *lw_plot_series_get_x(const LwPlot *plot, guint series)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_val_if_fail(s != NULL, NULL);
  return s->x;
}

const double *lw_plot_series_get_y(const LwPlot *plot, guint series)
{
  LwSeries *s = lw_plot_series(plot, series);
  g_return_val_if_fail(s != NULL, NULL);
  return s->y;
}

/* ---- bar chart --------------------------------------------------------- */
void lw_plot_set_bars(LwPlot *plot, const char *const *names, const double *values, guint n)
{
  g_return_if_fail(plot != NULL);
  g_return_if_fail(n == 0 || (names != NULL && values != NULL));
  g_clear_pointer(&plot->bar_names, g_strfreev);
  g_clear_pointer(&plot->bar_values, g_free);
  plot->nbars = n;
  plot->hover_series = -1;
  if (n == 0)
    return;
  plot->bar_names = g_new0(char *, n + 1);
  for (guint i = 0; i < n; i++)
    plot->bar_names[i] = g_strdup(names[i] ? names[i] : "");
  plot->bar_values = g_memdup2(values, n * sizeof(double));
}

guint lw_plot_get_n_bars(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, 0);
  return plot->nbars;
}

const char *lw_plot_get_bar_name(const LwPlot *plot, guint bar)
{
  g_return_val_if_fail(plot != NULL && bar < plot->nbars, NULL);
  return plot->bar_names[bar];
}

/* the largest finite magnitude of the bars */
static double lw_bars_scale(const LwPlot *plot)
{
  double m = 0;
  for (guint i = 0; i < plot->nbars; i++)
    if (isfinite(plot->bar_values[i]))
      m = fmax(m, fabs(plot->bar_values[i]));
  return m;
}

/* v, or 0 when it is round-off beside scale (the same 1e-12 as a range's) */
static double lw_bar_clean(double v, double scale)
{
  return fabs(v) <= 1e-12 * scale ? 0 : v;
}

double lw_plot_get_bar_value(const LwPlot *plot, guint bar)
{
  g_return_val_if_fail(plot != NULL && bar < plot->nbars, NAN);
  return lw_bar_clean(plot->bar_values[bar], lw_bars_scale(plot));
}

/* the y of bar i: the first at the top */
static double lw_bar_y(const LwPlot *plot, guint i)
{
  return (double)(plot->nbars - 1 - i);
}

/* ---- view -------------------------------------------------------------- */
/* Widen [lo, hi] by frac of its span on each side.  A flat range, or one
 * whose span is round-off (below 1e-12 of max(|value|, floor): 0 to 1e-17
 * is no motion for a quantity of unit scale), becomes +-10 % of
 * max(|value|, floor) around its middle (+-1 around zero with no floor). */
static void lw_pad_range(double *lo, double *hi, double frac, double floor);

/* bars: x from 0 to every value, y half a bar beyond the first and last */
static void lw_bars_auto_view(const LwPlot *plot, double *v)
{
  double scale = lw_bars_scale(plot);
  v[0] = v[1] = 0;
  for (guint i = 0; i < plot->nbars; i++) {
    double b = lw_bar_clean(plot->bar_values[i], scale);
    if (isfinite(b)) {
      v[0] = fmin(v[0], b);
      v[1] = fmax(v[1], b);
    }
  }
  lw_pad_range(&v[0], &v[1], 0.05, plot->floor);
  v[2] = -0.5;
  v[3] = plot->nbars - 0.5;
}

static void lw_pad_range(double *lo, double *hi, double frac, double floor)
{
  double span = *hi - *lo, mag = fmax(fabs(*lo), fabs(*hi));
  if (!(span > fmax(mag, floor) * 1e-12)) {
    double scale = fmax(mag, floor), c = 0.5 * (*lo + *hi), half = scale > 0 ? 0.1 * scale : 1.0;
    *lo = c - half;
    *hi = c + half;
    return;
  }
  if (!isfinite(span)) { /* data near +-DBL_MAX: keep a finite span */
    *lo = -DBL_MAX / 4;
    *hi = DBL_MAX / 4;
    return;
  }
  *lo -= frac * span;
  *hi += frac * span;
}

void lw_plot_get_auto_view(const LwPlot *plot, double *x0, double *x1, double *y0, double *y1)
{
  g_return_if_fail(plot != NULL);
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (guint i = 0; i < plot->series->len; i++) {
    const LwSeries *s = g_ptr_array_index(plot->series, i);
    if (s->xmin > s->xmax)
      continue;
    xmin = fmin(xmin, s->xmin);
    xmax = fmax(xmax, s->xmax);
    ymin = fmin(ymin, s->ymin);
    ymax = fmax(ymax, s->ymax);
  }
  if (xmin > xmax) {
    xmin = ymin = 0;
    xmax = ymax = 1;
  }
  /* x is usually time, whose ends matter less than the y extremes, which
   * must never touch the frame */
  lw_pad_range(&xmin, &xmax, 0.02, plot->floor);
  lw_pad_range(&ymin, &ymax, 0.05, plot->floor);
  if (plot->nbars) {
    double v[4];
    lw_bars_auto_view(plot, v);
    xmin = v[0], xmax = v[1], ymin = v[2], ymax = v[3];
  }
  if (x0)
    *x0 = xmin;
  if (x1)
    *x1 = xmax;
  if (y0)
    *y0 = ymin;
  if (y1)
    *y1 = ymax;
}

static gboolean lw_span_ok(double lo, double hi);

/* the view before equal aspect: manual, automatic, or automatic in y only */
static void lw_plot_base_view(const LwPlot *plot, double *v)
{
  if (plot->manual) {
    v[0] = plot->vx0, v[1] = plot->vx1, v[2] = plot->vy0, v[3] = plot->vy1;
    return;
  }
  lw_plot_get_auto_view(plot, &v[0], &v[1], &v[2], &v[3]);
  if (plot->manual_x)
    v[0] = plot->vx0, v[1] = plot->vx1;
}

/* widen the narrower axis of v about its middle so that a data unit takes
 * as many pixels on x as on y in a data area aw x ah */
static void lw_equalize(double *v, double aw, double ah)
{
  if (!(aw > 0) || !(ah > 0))
    return;
  double ux = (v[1] - v[0]) / aw, uy = (v[3] - v[2]) / ah, u = fmax(ux, uy);
  double cx = 0.5 * (v[0] + v[1]), cy = 0.5 * (v[2] + v[3]);
  v[0] = cx - 0.5 * u * aw;
  v[1] = cx + 0.5 * u * aw;
  v[2] = cy - 0.5 * u * ah;
  v[3] = cy + 0.5 * u * ah;
}

void lw_plot_get_view(const LwPlot *plot, double *x0, double *x1, double *y0, double *y1)
{
  g_return_if_fail(plot != NULL);
  double v[4];
  lw_plot_base_view(plot, v);
  if (plot->equal_aspect && plot->layout.valid)
    lw_equalize(v, plot->layout.aw, plot->layout.ah);
  if (x0)
    *x0 = v[0];
  if (x1)
    *x1 = v[1];
  if (y0)
    *y0 = v[2];
  if (y1)
    *y1 = v[3];
}

void lw_plot_set_x_range(LwPlot *plot, double x0, double x1)
{
  g_return_if_fail(plot != NULL);
  if (!lw_span_ok(x0, x1))
    return;
  plot->vx0 = x0;
  plot->vx1 = x1;
  if (!plot->manual)
    plot->manual_x = TRUE;
}

void lw_plot_set_scale_floor(LwPlot *plot, double floor)
{
  g_return_if_fail(plot != NULL);
  plot->floor = isfinite(floor) && floor > 0 ? floor : 0.0;
}

void lw_plot_set_equal_aspect(LwPlot *plot, gboolean equal)
{
  g_return_if_fail(plot != NULL);
  plot->equal_aspect = equal;
}

gboolean lw_plot_get_equal_aspect(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, FALSE);
  return plot->equal_aspect;
}

void lw_plot_series_set_dashed(LwPlot *plot, guint series, gboolean dashed)
{
  LwSeries *s = lw_plot_series(plot, series);
  if (s)
    s->dashed = dashed;
}

gboolean lw_plot_series_get_dashed(const LwPlot *plot, guint series)
{
  const LwSeries *s = lw_plot_series(plot, series);
  return s && s->dashed;
}

void lw_plot_set_marks(LwPlot *plot, const double *x, guint n)
{
  g_return_if_fail(plot != NULL);
  g_array_set_size(plot->marks, 0);
  for (guint i = 0; i < n; i++)
    if (isfinite(x[i]))
      g_array_append_val(plot->marks, x[i]);
}

guint lw_plot_get_n_marks(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, 0);
  return plot->marks->len;
}

double lw_plot_get_mark(const LwPlot *plot, guint i)
{
  g_return_val_if_fail(plot != NULL && i < plot->marks->len, NAN);
  return g_array_index(plot->marks, double, i);
}

void lw_plot_set_cursor(LwPlot *plot, double x)
{
  g_return_if_fail(plot != NULL);
  plot->cursor = isfinite(x) ? x : NAN;
}

double lw_plot_get_cursor(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, NAN);
  return plot->cursor;
}

/* A span is usable when the ticks and the pixel mapping still resolve it. */
static gboolean lw_span_ok(double lo, double hi)
{
  return isfinite(lo) && isfinite(hi) && hi - lo > 1e-12 * fmax(fabs(lo), fabs(hi)) && hi - lo > 1e-300 &&
         hi - lo < 1e300;
}

void lw_plot_set_view(LwPlot *plot, double x0, double x1, double y0, double y1)
{
  g_return_if_fail(plot != NULL);
  if (!lw_span_ok(x0, x1) || !lw_span_ok(y0, y1))
    return;
  plot->manual = TRUE;
  plot->manual_x = FALSE;
  plot->vx0 = x0;
  plot->vx1 = x1;
  plot->vy0 = y0;
  plot->vy1 = y1;
}

gboolean lw_plot_is_autoscaled(const LwPlot *plot)
{
  g_return_val_if_fail(plot != NULL, TRUE);
  return !plot->manual && !plot->manual_x;
}

void lw_plot_reset_view(LwPlot *plot)
{
  g_return_if_fail(plot != NULL);
  plot->manual = FALSE;
  plot->manual_x = FALSE;
}

void lw_plot_zoom_xy(LwPlot *plot, double fx, double fy, double cx, double cy)
{
  g_return_if_fail(plot != NULL);
  if (!(fx > 0) || !(fy > 0) || !isfinite(fx) || !isfinite(fy) || !isfinite(cx) || !isfinite(cy))
    return;
  double x0, x1, y0, y1;
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  /* each end keeps its distance to the center, divided by the factor: the
   * center stays at the same fraction of the view, hence the same pixel */
  double nx0 = cx - (cx - x0) / fx, nx1 = cx + (x1 - cx) / fx;
  double ny0 = cy - (cy - y0) / fy, ny1 = cy + (y1 - cy) / fy;
  /* at the resolution limit an axis stays as it is instead of collapsing */
  if (!lw_span_ok(nx0, nx1)) {
    nx0 = x0;
    nx1 = x1;
  }
  if (!lw_span_ok(ny0, ny1)) {
    ny0 = y0;
    ny1 = y1;
  }
  lw_plot_set_view(plot, nx0, nx1, ny0, ny1);
}

void lw_plot_zoom(LwPlot *plot, double factor, double cx, double cy)
{
  lw_plot_zoom_xy(plot, factor, factor, cx, cy);
}

void lw_plot_pan(LwPlot *plot, double dx, double dy)
{
  g_return_if_fail(plot != NULL);
  double x0, x1, y0, y1;
  lw_plot_get_view(plot, &x0, &x1, &y0, &y1);
  lw_plot_set_view(plot, x0 + dx, x1 + dx, y0 + dy, y1 + dy);
}

/* ---- ticks ------------------------------------------------------------- */
/* The nice step m x 10^k and the tick values i x step, computed as
 * i * m / 10^-k for negative k so that 3 x 0.1 is 0.3, not 0.30000000000000004 */
typedef struct {
  int m, k;
} LwStep;

static double lw_step_value(LwStep s, double i)
{
  return s.k < 0 ? i * s.m / pow(10, -s.k) : i * s.m * pow(10, s.k);
}

static LwStep lw_step_smaller(LwStep s)
{
  if (s.m == 5)
    s.m = 2;
  else if (s.m == 2)
    s.m = 1;
  else {
    s.m = 5;
    s.k--;
  }
  return s;
}

guint lw_plot_nice_ticks(double lo, double hi, guint max_ticks, double *out, guint n_out, double *step)
{
  if (step)
    *step = 0;
  if (!lw_span_ok(lo, hi))
    return 0;
  max_ticks = MAX(max_ticks, 2);
  /* the smallest nice step giving at most max_ticks ticks */
  double raw = (hi - lo) / (max_ticks - 1);
  LwStep s = {1, (int)floor(log10(raw))};
  double norm = raw / pow(10, s.k);
  if (norm > 5.000001) {
    s.m = 1;
    s.k++;
  } else if (norm > 2.000001)
    s.m = 5;
  else if (norm > 1.000001)
    s.m = 2;
  double i0, i1;
  for (;;) {
    double st = lw_step_value(s, 1);
    i0 = ceil(lo / st - 1e-9);
    i1 = floor(hi / st + 1e-9);
    if (i1 - i0 >= 1 || st < (hi - lo) * 1e-3)
      break;
    s = lw_step_smaller(s); /* a wide step fitted once at most: always show two */
  }
  guint n = 0;
  for (double i = i0; i <= i1 && n < n_out; i++)
    out[n++] = lw_step_value(s, i);
  if (step)
    *step = lw_step_value(s, 1);
  return n;
}

/* "1.50e+06" -> "1.5e6": C's exponent form is needlessly wide for a label. */
static void lw_tidy_exponent(char *buf)
{
  char *e = strchr(buf, 'e');
  if (!e)
    return;
  char *w = e + 1, *r = e + 1;
  if (*r == '+')
    r++;
  else if (*r == '-')
    *w++ = *r++;
  while (*r == '0' && r[1])
    r++;
  memmove(w, r, strlen(r) + 1);
}

char *lw_plot_format_tick(double v, double step)
{
  char fmt[16], buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (!isfinite(v))
    return g_strdup(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
  if (!(step > 0) || !isfinite(step))
    step = fabs(v) > 0 ? fabs(v) : 1;
  /* rounding noise at a tick meant to be zero must not print as 1e-17 or -0 */
  if (fabs(v) < step * 1e-6)
    return g_strdup("0");
  int sexp = (int)floor(log10(step) + 1e-9);
  double mag = fabs(v);
  if (step >= 1e5 || step < 1e-4 || mag >= 1e9) {
    int e = (int)floor(log10(mag) + 1e-9);
    g_snprintf(fmt, sizeof fmt, "%%.%de", CLAMP(e - sexp, 0, 15));
    g_ascii_formatd(buf, sizeof buf, fmt, v);
    lw_tidy_exponent(buf);
  } else {
    g_snprintf(fmt, sizeof fmt, "%%.%df", CLAMP(-sexp, 0, 15));
    g_ascii_formatd(buf, sizeof buf, fmt, v);
  }
  return g_strdup(buf);
}

/* ---- layout ------------------------------------------------------------ */
static void lw_set_font(cairo_t *cr, double size, gboolean bold)
{
  cairo_select_font_face(cr, LW_PLOT_FONT, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

static double lw_text_width(cairo_t *cr, const char *s)
{
  cairo_text_extents_t te;
  cairo_text_extents(cr, s, &te);
  return te.x_advance;
}

static double lw_max_label_width(cairo_t *cr, const double *t, guint n, double step)
{
  double w = 0;
  for (guint i = 0; i < n; i++) {
    g_autofree char *s = lw_plot_format_tick(t[i], step);
    w = fmax(w, lw_text_width(cr, s));
  }
  return w;
}

/* the widest bar name, at most max_w */
static double lw_bar_names_width(const LwPlot *plot, cairo_t *cr, double max_w)
{
  double w = 0;
  for (guint i = 0; i < plot->nbars; i++)
    w = fmax(w, lw_text_width(cr, plot->bar_names[i]));
  return fmin(w, max_w);
}

/* a bar's value as printed */
static char *lw_bar_label(const LwPlot *plot, guint i, double scale)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.5g", lw_bar_clean(plot->bar_values[i], scale)));
}

static double lw_bar_values_width(const LwPlot *plot, cairo_t *cr)
{
  double w = 0, scale = lw_bars_scale(plot);
  for (guint i = 0; i < plot->nbars; i++) {
    g_autofree char *s = lw_bar_label(plot, i, scale);
    w = fmax(w, lw_text_width(cr, s));
  }
  return w;
}

/* Margins from the text they hold, then ticks that fit the space between:
 * y ticks first (their count depends only on the height), then the left
 * margin from their labels, then x ticks as dense as their labels allow. */
static void lw_plot_compute_frame(LwPlot *plot, cairo_t *cr, double width, double height, LwFrame *f)
{
  memset(f, 0, sizeof *f);
  LwLayout *l = &f->l;
  l->valid = TRUE;
  l->width = width;
  l->height = height;
  lw_plot_get_view(plot, &l->x0, &l->x1, &l->y0, &l->y1);

  cairo_font_extents_t tick_fe, label_fe, title_fe;
  lw_set_font(cr, LW_PLOT_TITLE_FONT_SIZE, TRUE);
  cairo_font_extents(cr, &title_fe);
  lw_set_font(cr, LW_PLOT_LABEL_FONT_SIZE, FALSE);
  cairo_font_extents(cr, &label_fe);
  lw_set_font(cr, LW_PLOT_TICK_FONT_SIZE, FALSE);
  cairo_font_extents(cr, &tick_fe);
  double tick_h = tick_fe.ascent + tick_fe.descent;

  /* the top y label is centered on the top edge: half of it sticks out */
  double top = LW_PLOT_PAD + (plot->title ? title_fe.height + 4 : 0.5 * tick_h);
  double bottom = LW_PLOT_PAD + LW_PLOT_TICK_LEN + 2 + tick_h +
                  (plot->x_label ? 4 + label_fe.ascent + label_fe.descent : 0);
  /* whole pixels: the clip to the data area then takes cairo's fast path */
  l->ay = round(top);
  l->ah = fmax(floor(height - bottom - l->ay), 1);

  /* bars: their names instead of y ticks, their values in a right column */
  guint ny = (guint)CLAMP(l->ah / 32, 2, 12);
  if (!plot->nbars)
    f->nyt = lw_plot_nice_ticks(l->y0, l->y1, ny, f->yt, LW_PLOT_MAX_TICKS, &f->ystep);
  double ylw = plot->nbars ? lw_bar_names_width(plot, cr, 0.4 * width) : lw_max_label_width(cr, f->yt, f->nyt, f->ystep);
  double left = LW_PLOT_PAD + (plot->y_label ? label_fe.ascent + label_fe.descent + 6 : 0) + ylw +
                LW_PLOT_TICK_LEN + 3;

  /* the last x label is centered on the right edge: leave half of a
   * typical label's width */
  g_autofree char *xl = lw_plot_format_tick(l->x1, (l->x1 - l->x0) / 5);
  double right = fmax(LW_PLOT_PAD, 0.5 * lw_text_width(cr, xl) + 2);
  if (plot->nbars)
    right = fmax(right, LW_PLOT_PAD + lw_bar_values_width(plot, cr) + 6);
  l->ax = round(left);
  l->aw = fmax(floor(width - right - l->ax), 1);

  if (plot->equal_aspect) {
    /* the range for this data area (the margins came from the last one's
     * labels), and its y ticks again */
    double v[4];
    lw_plot_base_view(plot, v);
    lw_equalize(v, l->aw, l->ah);
    l->x0 = v[0], l->x1 = v[1], l->y0 = v[2], l->y1 = v[3];
    if (!plot->nbars)
      f->nyt = lw_plot_nice_ticks(l->y0, l->y1, ny, f->yt, LW_PLOT_MAX_TICKS, &f->ystep);
  }

  guint nx = (guint)CLAMP(l->aw / 60, 2, 12);
  for (int iter = 0; iter < 6; iter++) {
    f->nxt = lw_plot_nice_ticks(l->x0, l->x1, nx, f->xt, LW_PLOT_MAX_TICKS, &f->xstep);
    double spacing = f->xstep / (l->x1 - l->x0) * l->aw;
    if (nx <= 2 || spacing >= lw_max_label_width(cr, f->xt, f->nxt, f->xstep) + 16)
      break;
    nx--;
  }
}

void lw_plot_layout(LwPlot *plot, double width, double height)
{
  g_return_if_fail(plot != NULL);
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create(s);
  LwFrame f;
  lw_plot_compute_frame(plot, cr, width, height, &f);
  plot->layout = f.l;
  cairo_destroy(cr);
  cairo_surface_destroy(s);
}

gboolean lw_plot_get_data_area(const LwPlot *plot, double *x, double *y, double *width, double *height)
{
  g_return_val_if_fail(plot != NULL, FALSE);
  const LwLayout *l = &plot->layout;
  if (!l->valid)
    return FALSE;
  if (x)
    *x = l->ax;
  if (y)
    *y = l->ay;
  if (width)
    *width = l->aw;
  if (height)
    *height = l->ah;
  return TRUE;
}

static inline double lw_map_x(const LwLayout *l, double x)
{
  return l->ax + (x - l->x0) / (l->x1 - l->x0) * l->aw;
}

static inline double lw_map_y(const LwLayout *l, double y)
{
  return l->ay + l->ah - (y - l->y0) / (l->y1 - l->y0) * l->ah;
}

gboolean lw_plot_to_pixel(const LwPlot *plot, double x, double y, double *px, double *py)
{
  g_return_val_if_fail(plot != NULL, FALSE);
  if (!plot->layout.valid)
    return FALSE;
  if (px)
    *px = lw_map_x(&plot->layout, x);
  if (py)
    *py = lw_map_y(&plot->layout, y);
  return TRUE;
}

gboolean lw_plot_from_pixel(const LwPlot *plot, double px, double py, double *x, double *y)
{
  g_return_val_if_fail(plot != NULL, FALSE);
  const LwLayout *l = &plot->layout;
  if (!l->valid)
    return FALSE;
  if (x)
    *x = l->x0 + (px - l->ax) / l->aw * (l->x1 - l->x0);
  if (y)
    *y = l->y0 + (l->ay + l->ah - py) / l->ah * (l->y1 - l->y0);
  return TRUE;
}

/* ---- drawing ----------------------------------------------------------- */
static void lw_source(cairo_t *cr, const LwPlotColor *c, double alpha)
{
  cairo_set_source_rgba(cr, c->red, c->green, c->blue, c->alpha * alpha);
}

/* First index with x[i] >= v (upper: > v) in a sorted series. */
static gsize lw_bisect(const double *x, gsize n, double v, gboolean upper)
{
  gsize lo = 0, hi = n;
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    if (upper ? x[mid] <= v : x[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The index range worth looking at for the x range [x0, x1]: for a sorted
 * series the points inside plus one neighbour on each side (the lines
 * leaving the view), otherwise everything. */
static void lw_series_range(const LwSeries *s, double x0, double x1, gsize *i0, gsize *i1)
{
  *i0 = 0;
  *i1 = s->n;
  if (!s->sorted || s->n == 0)
    return;
  *i0 = lw_bisect(s->x, s->n, x0, FALSE);
  *i1 = lw_bisect(s->x, s->n, x1, TRUE);
  if (*i0 > 0)
    (*i0)--;
  if (*i1 < s->n)
    (*i1)++;
}

/* Data -> pixel as one multiply-add per coordinate, clamped (see
 * LW_PLOT_FAR): the inner loops run over every visible point. */
typedef struct {
  double ox, sx, oy, sy;
  double lox, hix, loy, hiy;
} LwMap;

static LwMap lw_map_new(const LwLayout *l)
{
  LwMap m;
  m.sx = l->aw / (l->x1 - l->x0);
  m.ox = l->ax - l->x0 * m.sx;
  m.sy = -l->ah / (l->y1 - l->y0);
  m.oy = l->ay + l->ah - l->y0 * m.sy;
  m.lox = l->ax - LW_PLOT_FAR;
  m.hix = l->ax + l->aw + LW_PLOT_FAR;
  m.loy = l->ay - LW_PLOT_FAR;
  m.hiy = l->ay + l->ah + LW_PLOT_FAR;
  return m;
}

static inline double lw_map_px(const LwMap *m, double x)
{
  return CLAMP(m->ox + x * m->sx, m->lox, m->hix);
}

static inline double lw_map_py(const LwMap *m, double y)
{
  return CLAMP(m->oy + y * m->sy, m->loy, m->hiy);
}

/* Path building shared by both reductions. A run of points between breaks
 * becomes a subpath; a point within half a pixel of the last one drawn is
 * left out (it cannot change the picture) unless it ends the run; a run of
 * one point becomes a zero-length segment, which the round cap draws as a
 * dot. */
typedef struct {
  cairo_t *cr;
  gboolean down;    /* a subpath is open */
  guint count;      /* points drawn in it */
  double lx, ly;    /* the last point drawn */
  gboolean pending; /* a point left out, (qx, qy), is the newest */
  double qx, qy;
} LwPen;

static inline void lw_pen_draw(LwPen *p, double x, double y)
{
  if (!p->down) {
    cairo_move_to(p->cr, x, y);
    p->down = TRUE;
    p->count = 0;
  } else
    cairo_line_to(p->cr, x, y);
  p->count++;
  p->lx = x;
  p->ly = y;
  p->pending = FALSE;
}

static inline void lw_pen_to(LwPen *p, double x, double y)
{
  if (p->down && fabs(x - p->lx) < 0.5 && fabs(y - p->ly) < 0.5) {
    p->pending = TRUE;
    p->qx = x;
    p->qy = y;
    return;
  }
  lw_pen_draw(p, x, y);
}

static inline void lw_pen_up(LwPen *p)
{
  if (p->pending)
    lw_pen_draw(p, p->qx, p->qy);
  if (p->down && p->count == 1)
    cairo_line_to(p->cr, p->lx, p->ly);
  p->down = FALSE;
}

/* Many more points than columns (sorted x). Per pixel column the path goes
 * through the first point, the lowest and the highest in the order they
 * occur, and the last, each where it is: every point drawn is a data point
 * in data order, so a smooth curve stays smooth, a steep one straight, and
 * no extreme is lost. A column whose path folds back on itself by more
 * than a few pixels (noise, a spike) is filled from its lowest to its
 * highest point instead (and on to the next column's first point),
 * neighbouring such columns as one polygon: the same pixels, but a stroke
 * folded over itself hundreds of times costs cairo tens of milliseconds
 * where the polygon costs next to nothing. */
typedef struct {
  double col, lo, hi;
  gboolean run_start; /* not joined to the bar before */
} LwBar;

#define LW_PLOT_BAR_SPAN 4.0 /* pixels of backtracking that make a column a bar */

static void lw_path_columns(LwPen *pen, const LwSeries *s, const LwMap *m, gsize i0, gsize i1, GArray *bars)
{
  const double *x = s->x, *y = s->y;
  gsize i = i0;
  while (i < i1) {
    if (!isfinite(y[i])) {
      lw_pen_up(pen);
      i++;
      continue;
    }
    /* the column of point i (px - lox >= 0, so the cast is floor() without
     * a libm call), and its points: those left of the next column's edge.
     * This loop sees every visible point, so it is kept branch-light. */
    double col = (double)(long)(lw_map_px(m, x[i]) - m->lox) + m->lox;
    double xend = (col + 1 - m->ox) / m->sx;
    double lo = y[i], hi = y[i];
    gsize e = i + 1;
    for (; e < i1 && x[e] < xend; e++) {
      double v = y[e];
      if (!isfinite(v))
        break;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    /* the column's path: first point, extremes in their order, last */
    gsize imin = i, imax = i;
    while (y[imin] != lo)
      imin++;
    while (y[imax] != hi)
      imax++;
    gsize idx[4] = {i, MIN(imin, imax), MAX(imin, imax), e - 1};
    double py[4], travel = 0;
    for (int k = 0; k < 4; k++) {
      py[k] = lw_map_py(m, y[idx[k]]);
      travel += k > 0 ? fabs(py[k] - py[k - 1]) : 0;
    }
    /* it folds back on itself by more than a few pixels: a bar */
    if (travel - fabs(py[3] - py[0]) <= LW_PLOT_BAR_SPAN) {
      for (int k = 0; k < 4; k++)
        if (k == 0 || idx[k] != idx[k - 1])
          lw_pen_to(pen, lw_map_px(m, x[idx[k]]), py[k]);
    } else {
      /* from lowest to highest, and on to the next column's first point;
       * the line arrives at the column's first point */
      double top = MIN(py[1], py[2]), bottom = MAX(py[1], py[2]);
      if (e < i1 && isfinite(y[e])) {
        double next = lw_map_py(m, y[e]);
        top = MIN(top, next);
        bottom = MAX(bottom, next);
      }
      gboolean joined =
        !pen->down && bars->len > 0 && g_array_index(bars, LwBar, bars->len - 1).col == col - 1;
      if (!joined) {
        lw_pen_to(pen, lw_map_px(m, x[i]), py[0]);
        lw_pen_up(pen);
      }
      LwBar bar = {col, top - LW_PLOT_LINE_WIDTH / 2, bottom + LW_PLOT_LINE_WIDTH / 2, !joined};
      g_array_append_val(bars, bar);
    }
    i = e;
  }
  lw_pen_up(pen);
}

/* Few points, or x in no order (a phase portrait): every point, less
 * those the pen leaves out. */
static void lw_path_points(LwPen *pen, const LwSeries *s, const LwMap *m, gsize i0, gsize i1)
{
  for (gsize i = i0; i < i1; i++) {
    if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
      lw_pen_up(pen);
    else
      lw_pen_to(pen, lw_map_px(m, s->x[i]), lw_map_py(m, s->y[i]));
  }
  lw_pen_up(pen);
}

static void lw_draw_series(cairo_t *cr, const LwSeries *s, const LwLayout *l, GArray *bars, gboolean fast)
{
  gsize i0, i1;
  lw_series_range(s, l->x0, l->x1, &i0, &i1);
  if (i0 >= i1)
    return;
  LwPen pen = {.cr = cr};
  LwMap m = lw_map_new(l);
  g_array_set_size(bars, 0);
  cairo_new_path(cr);
  /* a dashed line needs its points: the columns of a dense series would
   * break the dashes into pixel-long pieces */
  gboolean dense = s->sorted && (double)(i1 - i0) > 2 * l->aw && !s->dashed;
  if (dense)
    lw_path_columns(&pen, s, &m, i0, i1, bars);
  else
    lw_path_points(&pen, s, &m, i0, i1);
  /* the coarser antialiasing (16 levels instead of 256) halves cairo's
   * time on the long paths of dense series, where nobody can tell; files
   * get the fine one */
  cairo_set_antialias(cr, dense && fast ? CAIRO_ANTIALIAS_FAST : CAIRO_ANTIALIAS_DEFAULT);
  /* joins between pixel-long segments look the same whatever their shape,
   * and round ones cost cairo a polygon each */
  cairo_set_line_join(cr, dense ? CAIRO_LINE_JOIN_BEVEL : CAIRO_LINE_JOIN_ROUND);
  lw_source(cr, &s->color, 1);
  static const double dash[2] = {6, 4};
  cairo_set_dash(cr, dash, s->dashed ? 2 : 0, 0);
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  if (bars->len == 0)
    return;
  /* each run of joined bars: along the tops, down the last, back along
   * the bottoms. The ends of a run stick out by a quarter pixel so that a
   * lone bar is as wide as the line; the steps between columns slant over
   * half a pixel, because cairo takes a much slower path for polygons of
   * only horizontal and vertical edges. */
  const LwBar *b = (const LwBar *)(void *)bars->data;
  const double ext = (LW_PLOT_LINE_WIDTH - 1) / 2;
  for (guint a = 0, e; a < bars->len; a = e) {
    for (e = a + 1; e < bars->len && !b[e].run_start; e++)
      ;
    for (guint k = a; k < e; k++) {
      double x0 = b[k].col + (k == a ? -ext : 0.25), x1 = b[k].col + (k == e - 1 ? 1 + ext : 0.75);
      if (k == a)
        cairo_move_to(cr, x0, b[k].lo);
      else
        cairo_line_to(cr, x0, b[k].lo);
      cairo_line_to(cr, x1, b[k].lo);
    }
    for (guint k = e; k-- > a;) {
      double x0 = b[k].col + (k == a ? -ext : 0.25), x1 = b[k].col + (k == e - 1 ? 1 + ext : 0.75);
      cairo_line_to(cr, x1, b[k].hi);
      cairo_line_to(cr, x0, b[k].hi);
    }
    cairo_close_path(cr);
  }
  cairo_fill(cr);
}

/* Grid and frame lines on pixel centers, so that they are crisp on screen. */
static double lw_crisp(double v)
{
  return floor(v) + 0.5;
}

static void lw_show_text(cairo_t *cr, double x, double y, const char *s, double halign, double valign)
{
  cairo_text_extents_t te;
  cairo_font_extents_t fe;
  cairo_text_extents(cr, s, &te);
  cairo_font_extents(cr, &fe);
  /* valign 0: y is the top of the line box, 0.5 its middle, 1 its bottom */
  cairo_move_to(cr, x - halign * te.x_advance, y + fe.ascent - valign * (fe.ascent + fe.descent));
  cairo_show_text(cr, s);
}

static void lw_draw_axes(LwPlot *plot, cairo_t *cr, const LwFrame *f)
{
  const LwLayout *l = &f->l;
  cairo_set_line_width(cr, 1);

  /* grid */
  lw_source(cr, &plot->fg, 0.12);
  for (guint i = 0; i < f->nxt; i++) {
    double px = lw_crisp(lw_map_x(l, f->xt[i]));
    cairo_move_to(cr, px, l->ay);
    cairo_line_to(cr, px, l->ay + l->ah);
  }
  for (guint i = 0; i < f->nyt; i++) {
    double py = lw_crisp(lw_map_y(l, f->yt[i]));
    cairo_move_to(cr, l->ax, py);
    cairo_line_to(cr, l->ax + l->aw, py);
  }
  cairo_stroke(cr);

  /* tick marks and labels */
  lw_source(cr, &plot->fg, 0.6);
  for (guint i = 0; i < f->nxt; i++) {
    double px = lw_crisp(lw_map_x(l, f->xt[i]));
    cairo_move_to(cr, px, l->ay + l->ah);
    cairo_line_to(cr, px, l->ay + l->ah + LW_PLOT_TICK_LEN);
  }
  for (guint i = 0; i < f->nyt; i++) {
    double py = lw_crisp(lw_map_y(l, f->yt[i]));
    cairo_move_to(cr, l->ax - LW_PLOT_TICK_LEN, py);
    cairo_line_to(cr, l->ax, py);
  }
  cairo_stroke(cr);

  lw_source(cr, &plot->fg, 1);
  lw_set_font(cr, LW_PLOT_TICK_FONT_SIZE, FALSE);
  for (guint i = 0; i < f->nxt; i++) {
    g_autofree char *s = lw_plot_format_tick(f->xt[i], f->xstep);
    lw_show_text(cr, lw_map_x(l, f->xt[i]), l->ay + l->ah + LW_PLOT_TICK_LEN + 2, s, 0.5, 0);
  }
  for (guint i = 0; i < f->nyt; i++) {
    g_autofree char *s = lw_plot_format_tick(f->yt[i], f->ystep);
    lw_show_text(cr, l->ax - LW_PLOT_TICK_LEN - 3, lw_map_y(l, f->yt[i]), s, 1, 0.5);
  }

  /* axis titles and title */
  lw_set_font(cr, LW_PLOT_LABEL_FONT_SIZE, FALSE);
  if (plot->x_label)
    lw_show_text(cr, l->ax + 0.5 * l->aw, l->height - LW_PLOT_PAD, plot->x_label, 0.5, 1);
  if (plot->y_label) {
    cairo_save(cr);
    cairo_translate(cr, LW_PLOT_PAD, l->ay + 0.5 * l->ah);
    cairo_rotate(cr, -G_PI / 2);
    lw_show_text(cr, 0, 0, plot->y_label, 0.5, 0);
    cairo_restore(cr);
  }
  if (plot->title) {
    lw_set_font(cr, LW_PLOT_TITLE_FONT_SIZE, TRUE);
    lw_show_text(cr, l->ax + 0.5 * l->aw, LW_PLOT_PAD, plot->title, 0.5, 0);
  }
}

/* s, shortened in the middle with an ellipsis until it is at most max_w wide */
static char *lw_fit_text(cairo_t *cr, const char *s, double max_w)
{
  if (lw_text_width(cr, s) <= max_w)
    return g_strdup(s);
  glong n = g_utf8_strlen(s, -1);
  for (glong keep = n - 1; keep > 1; keep--) {
    const char *head_end = g_utf8_offset_to_pointer(s, (keep + 1) / 2);
    const char *tail = g_utf8_offset_to_pointer(s, n - keep / 2);
    g_autofree char *head = g_strndup(s, (gsize)(head_end - s));
    char *t = g_strconcat(head, "…", tail, NULL);
    if (lw_text_width(cr, t) <= max_w)
      return t;
    g_free(t);
  }
  return g_strdup("…");
}

/* the bars' names on the left and values on the right, every row that has
 * room for its text (a stride when the rows are closer than a line) */
static void lw_draw_bar_labels(const LwPlot *plot, cairo_t *cr, const LwLayout *l)
{
  lw_set_font(cr, LW_PLOT_TICK_FONT_SIZE, FALSE);
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  double row = l->ah / (l->y1 - l->y0), line = fe.ascent + fe.descent + 2;
  guint stride = row >= line ? 1 : (guint)ceil(line / row);
  double scale = lw_bars_scale(plot), name_w = l->ax - LW_PLOT_TICK_LEN - 3 - LW_PLOT_PAD;
  if (plot->y_label)
    name_w -= fe.ascent + fe.descent + 6;
  lw_source(cr, &plot->fg, 1);
  for (guint i = 0; i < plot->nbars; i += stride) {
    double y = lw_bar_y(plot, i);
    if (y < l->y0 || y > l->y1)
      continue;
    double py = lw_map_y(l, y);
    g_autofree char *name = lw_fit_text(cr, plot->bar_names[i], name_w);
    lw_show_text(cr, l->ax - LW_PLOT_TICK_LEN - 3, py, name, 1, 0.5);
    g_autofree char *value = lw_bar_label(plot, i, scale);
    lw_show_text(cr, l->ax + l->aw + 6, py, value, 0, 0.5);
  }
}

/* the bars from 0 (positive in the palette's first color, negative in its
 * second) and the zero line, inside the clip of the data area */
static void lw_draw_bars(const LwPlot *plot, cairo_t *cr, const LwLayout *l)
{
  double scale = lw_bars_scale(plot), px0 = lw_map_x(l, 0);
  double far_lo = l->ax - LW_PLOT_FAR, far_hi = l->ax + l->aw + LW_PLOT_FAR;
  for (guint i = 0; i < plot->nbars; i++) {
    double v = lw_bar_clean(plot->bar_values[i], scale), y = lw_bar_y(plot, i);
    if (!isfinite(v) || y + 0.5 < l->y0 || y - 0.5 > l->y1)
      continue;
    double a = CLAMP(px0, far_lo, far_hi), b = CLAMP(lw_map_x(l, v), far_lo, far_hi);
    double top = lw_map_y(l, y + 0.35), bottom = lw_map_y(l, y - 0.35);
    lw_source(cr, &lw_plot_palette[v >= 0 ? 0 : 1], 1);
    cairo_rectangle(cr, fmin(a, b), top, fabs(b - a), bottom - top);
    cairo_fill(cr);
  }
  if (0 >= l->x0 && 0 <= l->x1) {
    lw_source(cr, &plot->fg, 0.8);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, lw_crisp(px0), l->ay);
    cairo_line_to(cr, lw_crisp(px0), l->ay + l->ah);
    cairo_stroke(cr);
  }
}

static void lw_draw_box(cairo_t *cr, const LwPlot *plot, double x, double y, double w, double h)
{
  cairo_rectangle(cr, x, y, w, h);
  const LwPlotColor *bg = plot->bg.alpha > 0 ? &plot->bg : &lw_plot_default_bg;
  cairo_set_source_rgba(cr, bg->red, bg->green, bg->blue, 0.9);
  cairo_fill_preserve(cr);
  lw_source(cr, &plot->fg, 0.3);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
}

/* Top right inside the data area: one row per named series. */
static void lw_draw_legend(LwPlot *plot, cairo_t *cr, const LwLayout *l)
{
  lw_set_font(cr, LW_PLOT_TICK_FONT_SIZE, FALSE);
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  const double sample = 20, gap = 6, inset = 8, row = fe.ascent + fe.descent + 3;
  double tw = 0;
  guint rows = 0;
  for (guint i = 0; i < plot->series->len; i++) {
    const LwSeries *s = g_ptr_array_index(plot->series, i);
    if (!s->name[0])
      continue;
    tw = fmax(tw, lw_text_width(cr, s->name));
    rows++;
  }
  if (rows == 0)
    return;
  double w = gap + sample + gap + tw + gap, h = rows * row + gap;
  double x = round(l->ax + l->aw - inset - w) + 0.5, y = round(l->ay + inset) + 0.5;
  if (w > l->aw - 2 * inset || h > l->ah - 2 * inset)
    return; /* no room: better none than one hiding everything */
  lw_draw_box(cr, plot, x, y, w, h);
  double ry = y + gap / 2;
  for (guint i = 0; i < plot->series->len; i++) {
    const LwSeries *s = g_ptr_array_index(plot->series, i);
    if (!s->name[0])
      continue;
    double cy = ry + row / 2;
    lw_source(cr, &s->color, 1);
    cairo_set_line_width(cr, 2.5);
    static const double dash[2] = {4, 3};
    cairo_set_dash(cr, dash, s->dashed ? 2 : 0, 0);
    cairo_move_to(cr, x + gap, cy);
    cairo_line_to(cr, x + gap + sample, cy);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    lw_source(cr, &plot->fg, 1);
    lw_show_text(cr, x + 2 * gap + sample, cy, s->name, 0, 0.5);
    ry += row;
  }
}

static char *lw_format_readout(double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof buf, "%.6g", v);
  return g_strdup(buf);
}

static void lw_draw_hover(LwPlot *plot, cairo_t *cr, const LwLayout *l)
{
  if (plot->hover_series < 0 || (guint)plot->hover_series >= plot->series->len)
    return;
  const LwSeries *s = g_ptr_array_index(plot->series, plot->hover_series);
  double px = lw_map_x(l, plot->hover_x), py = lw_map_y(l, plot->hover_y);
  if (!(px >= l->ax - 0.5 && px <= l->ax + l->aw + 0.5 && py >= l->ay - 0.5 && py <= l->ay + l->ah + 0.5))
    return;
  cairo_new_path(cr);
  cairo_arc(cr, px, py, 4.5, 0, 2 * G_PI);
  lw_source(cr, &s->color, 1);
  cairo_fill_preserve(cr);
  const LwPlotColor *ring = plot->bg.alpha > 0 ? &plot->bg : &lw_plot_default_bg;
  cairo_set_source_rgb(cr, ring->red, ring->green, ring->blue);
  cairo_set_line_width(cr, 1.5);
  cairo_stroke(cr);

  g_autofree char *xs = lw_format_readout(plot->hover_x);
  g_autofree char *ys = lw_format_readout(plot->hover_y);
  g_autofree char *text = s->name[0] ? g_strdup_printf("%s: %s, %s", s->name, xs, ys)
                                     : g_strdup_printf("%s, %s", xs, ys);
  lw_set_font(cr, LW_PLOT_TICK_FONT_SIZE, FALSE);
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  double w = lw_text_width(cr, text) + 12, h = fe.ascent + fe.descent + 8;
  /* above right of the point, flipped to stay inside the data area */
  double bx = px + 10, by = py - 10 - h;
  if (bx + w > l->ax + l->aw)
    bx = px - 10 - w;
  if (by < l->ay)
    by = py + 10;
  bx = round(fmax(bx, l->ax)) + 0.5;
  by = round(by) + 0.5;
  lw_draw_box(cr, plot, bx, by, w, h);
  lw_source(cr, &plot->fg, 1);
  lw_show_text(cr, bx + 6, by + h / 2, text, 0, 0.5);
}

/* the marks: a faint dotted vertical line across the data area at each,
 * with a short solid tick at the top */
static void lw_draw_marks(const LwPlot *plot, cairo_t *cr, const LwLayout *l)
{
  static const double dots[2] = {2, 3};
  cairo_save(cr);
  cairo_set_line_width(cr, 1);
  for (guint i = 0; i < plot->marks->len; i++) {
    double x = g_array_index(plot->marks, double, i);
    if (x < l->x0 || x > l->x1)
      continue;
    double px = round(lw_map_x(l, x)) + 0.5;
    lw_source(cr, &plot->fg, 0.35);
    cairo_set_dash(cr, dots, 2, 0);
    cairo_move_to(cr, px, l->ay);
    cairo_line_to(cr, px, l->ay + l->ah);
    cairo_stroke(cr);
    lw_source(cr, &plot->fg, 0.8);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_move_to(cr, px, l->ay);
    cairo_line_to(cr, px, l->ay + 7);
    cairo_stroke(cr);
  }
  cairo_restore(cr);
}

/* the cursor: a vertical line across the data area at its x */
static void lw_draw_cursor(const LwPlot *plot, cairo_t *cr, const LwLayout *l)
{
  if (!isfinite(plot->cursor) || plot->cursor < l->x0 || plot->cursor > l->x1)
    return;
  double px = round(lw_map_x(l, plot->cursor)) + 0.5;
  cairo_save(cr);
  cairo_set_source_rgba(cr, 0.85, 0.15, 0.15, 0.8);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, px, l->ay);
  cairo_line_to(cr, px, l->ay + l->ah);
  cairo_stroke(cr);
  cairo_restore(cr);
}

void lw_plot_draw(LwPlot *plot, cairo_t *cr, double width, double height)
{
  g_return_if_fail(plot != NULL && cr != NULL);
  if (!(width > 0) || !(height > 0))
    return;
  cairo_save(cr);
  LwFrame f;
  lw_plot_compute_frame(plot, cr, width, height, &f);
  plot->layout = f.l;
  const LwLayout *l = &f.l;

  if (plot->bg.alpha > 0) {
    lw_source(cr, &plot->bg, 1);
    cairo_rectangle(cr, 0, 0, width, height);
    cairo_fill(cr);
  }
  lw_draw_axes(plot, cr, &f);
  if (plot->nbars)
    lw_draw_bar_labels(plot, cr, l);

  cairo_save(cr);
  cairo_rectangle(cr, l->ax, l->ay, l->aw, l->ah);
  cairo_clip(cr);
  cairo_set_line_width(cr, LW_PLOT_LINE_WIDTH);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  if (plot->nbars)
    lw_draw_bars(plot, cr, l);
  GArray *bars = g_array_new(FALSE, FALSE, sizeof(LwBar));
  for (guint i = 0; i < plot->series->len && !plot->nbars; i++)
    lw_draw_series(cr, g_ptr_array_index(plot->series, i), l, bars, !plot->exporting);
  g_array_unref(bars);
  if (!plot->nbars)
    lw_draw_marks(plot, cr, l);
  lw_draw_cursor(plot, cr, l);
  cairo_restore(cr);

  lw_source(cr, &plot->fg, 0.5);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, l->ax + 0.5, l->ay + 0.5, l->aw - 1, l->ah - 1);
  cairo_stroke(cr);

  if (plot->legend && !plot->nbars)
    lw_draw_legend(plot, cr, l);
  lw_draw_hover(plot, cr, l);
  cairo_restore(cr);
}

/* ---- hover ------------------------------------------------------------- */
gboolean lw_plot_nearest(const LwPlot *plot, double px, double py, double max_dist_px, guint *series, double *x,
                         double *y)
{
  g_return_val_if_fail(plot != NULL, FALSE);
  if (plot->nbars)
    return FALSE; /* the series are not drawn; a bar prints its value */
  const LwLayout *l = &plot->layout;
  if (!l->valid || !(max_dist_px >= 0))
    return FALSE;
  double best = max_dist_px * max_dist_px;
  gboolean found = FALSE;
  guint bs = 0;
  double bx = 0, by = 0;
  /* only x within max_dist_px can qualify: bisection bounds the scan */
  double xa, xb;
  lw_plot_from_pixel(plot, px - max_dist_px, py, &xa, NULL);
  lw_plot_from_pixel(plot, px + max_dist_px, py, &xb, NULL);
  xa = fmax(xa, l->x0);
  xb = fmin(xb, l->x1);
  for (guint k = 0; k < plot->series->len; k++) {
    const LwSeries *s = g_ptr_array_index(plot->series, k);
    gsize i0 = 0, i1 = s->n;
    if (s->sorted) {
      i0 = lw_bisect(s->x, s->n, xa, FALSE);
      i1 = lw_bisect(s->x, s->n, xb, TRUE);
    }
    for (gsize i = i0; i < i1; i++) {
      double xi = s->x[i], yi = s->y[i];
      if (!(xi >= l->x0 && xi <= l->x1 && yi >= l->y0 && yi <= l->y1))
        continue; /* also skips NaN: not drawn, not found */
      double dx = lw_map_x(l, xi) - px, dy = lw_map_y(l, yi) - py, d = dx * dx + dy * dy;
      if (d < best || (!found && d <= best)) {
        best = d;
        found = TRUE;
        bs = k;
        bx = xi;
        by = yi;
      }
    }
  }
  if (!found)
    return FALSE;
  if (series)
    *series = bs;
  if (x)
    *x = bx;
  if (y)
    *y = by;
  return TRUE;
}

void lw_plot_set_hover(LwPlot *plot, int series, double x, double y)
{
  g_return_if_fail(plot != NULL);
  g_return_if_fail(series < (int)plot->series->len);
  plot->hover_series = series < 0 ? -1 : series;
  plot->hover_x = x;
  plot->hover_y = y;
}

/* ---- export ------------------------------------------------------------ */
static cairo_status_t lw_append_bytes(void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append(closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

/* Write a whole buffer; errors name the file and say why, nothing more. */
static gboolean lw_write_file(const char *filename, const void *data, gsize len, GError **error)
{
  FILE *fp = g_fopen(filename, "wb");
  int saved = 0;
  if (!fp)
    saved = errno;
  else {
    if (len > 0 && fwrite(data, 1, len, fp) != len)
      saved = errno ? errno : EIO;
    if (fclose(fp) != 0 && !saved)
      saved = errno;
  }
  if (!saved)
    return TRUE;
  g_autofree char *disp = g_filename_display_name(filename);
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "Cannot write “%s”: %s", disp,
              g_strerror(saved));
  return FALSE;
}

gboolean lw_plot_export(LwPlot *plot, const char *filename, double width, double height, GError **error)
{
  g_return_val_if_fail(plot != NULL, FALSE);
  g_return_val_if_fail(filename != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  g_autofree char *disp = g_filename_display_name(filename);
  g_autofree char *base = g_path_get_basename(filename);
  const char *dot = strrchr(base, '.');
  g_autofree char *ext = g_ascii_strdown(dot ? dot + 1 : "", -1);
  enum { PNG, SVG, PDF } kind;
  if (strcmp(ext, "png") == 0)
    kind = PNG;
  else if (strcmp(ext, "svg") == 0)
    kind = SVG;
  else if (strcmp(ext, "pdf") == 0)
    kind = PDF;
  else {
    g_set_error(error, LW_PLOT_ERROR, LW_PLOT_ERROR_FORMAT,
                "Cannot export a plot to “%s”: unknown file type (use .png, .svg or .pdf)", disp);
    return FALSE;
  }
  if (!(width >= 1 && height >= 1 && width <= 32767 && height <= 32767)) {
    g_set_error(error, LW_PLOT_ERROR, LW_PLOT_ERROR_FAILED, "Cannot export a plot to “%s”: invalid size %gx%g",
                disp, width, height);
    return FALSE;
  }

  g_autoptr(GByteArray) bytes = g_byte_array_new();
  cairo_surface_t *surface;
  if (kind == PNG)
    surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)ceil(width), (int)ceil(height));
  else if (kind == SVG)
    surface = cairo_svg_surface_create_for_stream(lw_append_bytes, bytes, width, height);
  else
    surface = cairo_pdf_surface_create_for_stream(lw_append_bytes, bytes, width, height);

  /* documents get the default colors and no hover mark; the screen keeps
   * its own layout for the mapping helpers */
  LwLayout layout = plot->layout;
  LwPlotColor fg = plot->fg, bg = plot->bg;
  int hover = plot->hover_series;
  plot->fg = lw_plot_default_fg;
  plot->bg = lw_plot_default_bg;
  plot->hover_series = -1;
  plot->exporting = TRUE;
  cairo_t *cr = cairo_create(surface);
  lw_plot_draw(plot, cr, width, height);
  cairo_status_t status = cairo_status(cr);
  cairo_destroy(cr);
  plot->layout = layout;
  plot->fg = fg;
  plot->bg = bg;
  plot->hover_series = hover;
  plot->exporting = FALSE;

  if (status == CAIRO_STATUS_SUCCESS) {
    if (kind == PNG)
      status = cairo_surface_write_to_png_stream(surface, lw_append_bytes, bytes);
    else {
      cairo_surface_finish(surface);
      status = cairo_surface_status(surface);
    }
  }
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    g_set_error(error, LW_PLOT_ERROR, LW_PLOT_ERROR_FAILED, "Cannot export a plot to “%s”: %s", disp,
                cairo_status_to_string(status));
    return FALSE;
  }
  return lw_write_file(filename, bytes->data, bytes->len, error);
}

static void lw_csv_field(GString *out, const char *s)
{
  if (!strpbrk(s, ",\"\r\n")) {
    g_string_append(out, s);
    return;
  }
  g_string_append_c(out, '"');
  for (const char *p = s; *p; p++) {
    if (*p == '"')
      g_string_append_c(out, '"');
    g_string_append_c(out, *p);
  }
  g_string_append_c(out, '"');
}

static void lw_csv_number(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append(out, g_ascii_dtostr(buf, sizeof buf, v));
}

static void lw_bars_csv(const LwPlot *plot, GString *out)
{
  lw_csv_field(out, "name");
  g_string_append_c(out, ',');
  lw_csv_field(out, plot->x_label ? plot->x_label : "value");
  g_string_append_c(out, '\n');
  for (guint i = 0; i < plot->nbars; i++) {
    lw_csv_field(out, plot->bar_names[i]);
    g_string_append_c(out, ',');
    lw_csv_number(out, lw_plot_get_bar_value(plot, i));
    g_string_append_c(out, '\n');
  }
}

static gboolean lw_plot_shares_x(const LwPlot *plot)
{
  for (guint k = 1; k < plot->series->len; k++) {
    const LwSeries *a = g_ptr_array_index(plot->series, 0), *b = g_ptr_array_index(plot->series, k);
    if (a->n != b->n || (a->n > 0 && memcmp(a->x, b->x, a->n * sizeof(double)) != 0))
      return FALSE;
  }
  return TRUE;
}

gboolean lw_plot_export_csv(LwPlot *plot, const char *filename, GError **error)
{
  g_return_val_if_fail(plot != NULL, FALSE);
  g_return_val_if_fail(filename != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  g_autoptr(GString) out = g_string_new(NULL);
  if (plot->nbars) {
    lw_bars_csv(plot, out);
    return lw_write_file(filename, out->str, out->len, error);
  }
  guint ns = plot->series->len;
  gboolean shared = lw_plot_shares_x(plot);

  if (shared)
    lw_csv_field(out, plot->x_label ? plot->x_label : "x");
  gsize rows = 0;
  for (guint k = 0; k < ns; k++) {
    const LwSeries *s = g_ptr_array_index(plot->series, k);
    g_autofree char *name = s->name[0] ? g_strdup(s->name) : g_strdup_printf("series %u", k + 1);
    rows = MAX(rows, s->n);
    if (shared) {
      g_string_append_c(out, ',');
      lw_csv_field(out, name);
    } else {
      g_autofree char *xn = g_strconcat(name, " x", NULL);
      g_autofree char *yn = g_strconcat(name, " y", NULL);
      if (k > 0)
        g_string_append_c(out, ',');
      lw_csv_field(out, xn);
      g_string_append_c(out, ',');
      lw_csv_field(out, yn);
    }
  }
  g_string_append_c(out, '\n');

  for (gsize i = 0; i < rows; i++) {
    for (guint k = 0; k < ns; k++) {
      const LwSeries *s = g_ptr_array_index(plot->series, k);
      if (shared) {
        if (k == 0)
          lw_csv_number(out, s->x[i]);
        g_string_append_c(out, ',');
        lw_csv_number(out, s->y[i]);
        continue;
      }
      if (k > 0)
        g_string_append_c(out, ',');
      if (i < s->n) {
        lw_csv_number(out, s->x[i]);
        g_string_append_c(out, ',');
        lw_csv_number(out, s->y[i]);
      } else
        g_string_append_c(out, ',');
    }
    g_string_append_c(out, '\n');
  }
  return lw_write_file(filename, out->str, out->len, error);
}
