/* lw-plot.h: x-y line plots and bar charts drawn with cairo, for the screen
 * and for export.
 *
 * An LwPlot is a chart of series (name, color, x and y data) over two axes.
 * It knows nothing of GTK: the same lw_plot_draw() paints the widget
 * (lw-plot-view.h) and the PNG, SVG and PDF files of lw_plot_export().
 *
 * A plot can instead be a bar chart (lw_plot_set_bars()): named values as
 * horizontal bars, with the same view, zoom, export and round-off rules.
 *
 * Series are addressed by index, 0 .. lw_plot_get_n_series() - 1; removing
 * a series shifts the indices of the later ones down by one.
 *
 * The view is either automatic (the data bounds plus a little padding,
 * extended live as points are appended) or manual (a range set by zoom, pan
 * or lw_plot_set_view(), left alone by new data) until lw_plot_reset_view().
 *
 * Pixel coordinates have their origin at the top left, y downwards, like
 * cairo and GTK; the mapping helpers use the layout of the last
 * lw_plot_draw() (or lw_plot_layout()).
 */
#ifndef LW_PLOT_H
#define LW_PLOT_H

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

#define LW_PLOT_ERROR (lw_plot_error_quark())
GQuark lw_plot_error_quark(void);

typedef enum {
  LW_PLOT_ERROR_FORMAT, /* unknown export file type */
  LW_PLOT_ERROR_FAILED, /* cairo could not render the file */
} LwPlotError;

typedef struct {
  double red, green, blue, alpha;
} LwPlotColor;

typedef struct _LwPlot LwPlot;

LwPlot *lw_plot_new(void);
void lw_plot_free(LwPlot *plot);

/* Titles: NULL or "" for none. */
void lw_plot_set_title(LwPlot *plot, const char *title);
const char *lw_plot_get_title(const LwPlot *plot);
void lw_plot_set_x_label(LwPlot *plot, const char *label);
const char *lw_plot_get_x_label(const LwPlot *plot);
void lw_plot_set_y_label(LwPlot *plot, const char *label);
const char *lw_plot_get_y_label(const LwPlot *plot);
void lw_plot_set_legend_visible(LwPlot *plot, gboolean visible);

/* Text and frame color, and the background painted behind everything
 * (alpha 0: none). The defaults are dark on white. Exports always use the
 * defaults, whatever the screen uses: they go into documents. */
void lw_plot_set_colors(LwPlot *plot, const LwPlotColor *foreground, const LwPlotColor *background);

/* ---- series ---- */
/* Add an empty series; its color comes from the palette (the first palette
 * color no other series uses). Returns its index. */
guint lw_plot_add_series(LwPlot *plot, const char *name);
guint lw_plot_get_n_series(const LwPlot *plot);
void lw_plot_remove_series(LwPlot *plot, guint series);
void lw_plot_series_set_name(LwPlot *plot, guint series, const char *name);
const char *lw_plot_series_get_name(const LwPlot *plot, guint series);
void lw_plot_series_set_color(LwPlot *plot, guint series, const LwPlotColor *color);
LwPlotColor lw_plot_series_get_color(const LwPlot *plot, guint series);
/* Append points (amortized O(1) each). NaN in x or y breaks the line. */
void lw_plot_series_append(LwPlot *plot, guint series, double x, double y);
void lw_plot_series_append_many(LwPlot *plot, guint series, const double *x, const double *y, gsize n);
/* Drop every point of a series (it stays, with its name and color). */
void lw_plot_series_clear(LwPlot *plot, guint series);
/* Drop every point of every series. */
void lw_plot_clear_data(LwPlot *plot);
gsize lw_plot_series_get_n_points(const LwPlot *plot, guint series);
const double *lw_plot_series_get_x(const LwPlot *plot, guint series);
const double *lw_plot_series_get_y(const LwPlot *plot, guint series);

/* ---- bar chart ---- */
/* Make the plot a chart of horizontal bars, one per name, top down: bar i
 * runs from 0 to values[i] along x, its name labels it on the left and its
 * value is printed in a column on the right.  A value that is round-off
 * beside the largest bar (|v| <= 1e-12 of it) is drawn and printed as 0.
 * The view, zoom, pan and export work as for lines (y is the bar index,
 * the first bar at n - 1); the series are not drawn.  n == 0 turns the
 * plot back into an x-y plot. */
void lw_plot_set_bars(LwPlot *plot, const char *const *names, const double *values, guint n);
guint lw_plot_get_n_bars(const LwPlot *plot);
const char *lw_plot_get_bar_name(const LwPlot *plot, guint bar);
/* The value as drawn and printed (round-off as 0). */
double lw_plot_get_bar_value(const LwPlot *plot, guint bar);

/* ---- view ---- */
/* The range drawn next: the manual view, or the autoscaled one. */
void lw_plot_get_view(const LwPlot *plot, double *x0, double *x1, double *y0, double *y1);
/* Autoscaled range, whatever the current view. */
void lw_plot_get_auto_view(const LwPlot *plot, double *x0, double *x1, double *y0, double *y1);
/* Manual view; ignored unless x0 < x1 and y0 < y1, all finite. */
void lw_plot_set_view(LwPlot *plot, double x0, double x1, double y0, double y1);
gboolean lw_plot_is_autoscaled(const LwPlot *plot);
void lw_plot_reset_view(LwPlot *plot);
/* Zoom in by factor (> 1 magnifies, < 1 zooms out) about the data point
 * (cx, cy), which stays where it is on screen. Switches to a manual view. */
void lw_plot_zoom(LwPlot *plot, double factor, double cx, double cy);
/* Zoom each axis by its own factor (1 leaves an axis alone). */
void lw_plot_zoom_xy(LwPlot *plot, double fx, double fy, double cx, double cy);
/* Move the view by (dx, dy) data units: the data appears to move the other way. */
void lw_plot_pan(LwPlot *plot, double dx, double dy);

/* Only the x range manual (time shared by stacked plots): y stays
 * automatic; a manual view keeps its y and takes this x.  Ignored unless
 * x0 < x1, both finite.  lw_plot_reset_view() makes x automatic again. */
void lw_plot_set_x_range(LwPlot *plot, double x0, double x1);
/* Autoscale treats a range as round-off, and shows +-10 % of max(|value|,
 * floor) around it instead, when its span is below 1e-12 max(|value|,
 * floor): data of 0 to 1.2e-17 of a unit-scale quantity is a flat line at
 * 0, not an axis from 0 to 1.2e-17.  Default 1 (SI units of a mechanism);
 * 0 trusts any span. */
void lw_plot_set_scale_floor(LwPlot *plot, double floor);
/* Equal aspect: the view drawn is widened on one axis so that a data unit
 * is as long on x as on y (a coupler curve keeps its shape). */
void lw_plot_set_equal_aspect(LwPlot *plot, gboolean equal);
gboolean lw_plot_get_equal_aspect(const LwPlot *plot);
/* A series drawn dashed (and its legend sample), e.g. a comparison run
 * beside the solid series it is compared with. */
void lw_plot_series_set_dashed(LwPlot *plot, guint series, gboolean dashed);
gboolean lw_plot_series_get_dashed(const LwPlot *plot, guint series);
/* Marks: a faint dotted vertical line with a tick at the top at each x
 * (events of a run along a time axis); n = 0 removes them. Not finite x
 * are skipped. */
void lw_plot_set_marks(LwPlot *plot, const double *x, guint n);
guint lw_plot_get_n_marks(const LwPlot *plot);
double lw_plot_get_mark(const LwPlot *plot, guint i);
/* A vertical cursor line at x (the time shown elsewhere); NaN removes it. */
void lw_plot_set_cursor(LwPlot *plot, double x);
double lw_plot_get_cursor(const LwPlot *plot);

/* ---- ticks (public for the tests and for callers labelling other things) ---- */
/* "Nice" ticks for [lo, hi]: multiples of a step of 1, 2 or 5 x 10^k, about
 * max_ticks of them (at least 2 whenever lo < hi), all inside [lo, hi].
 * Writes at most n_out of them to out; returns their number and the step. */
guint lw_plot_nice_ticks(double lo, double hi, guint max_ticks, double *out, guint n_out, double *step);
/* The label of tick value v for a tick step: as few decimals as the step
 * needs, scientific notation for very large or small values, '.' as the
 * decimal point in every locale, never "-0". Free with g_free(). */
char *lw_plot_format_tick(double v, double step);

/* ---- drawing ---- */
/* Draw the whole plot into the rectangle (0, 0, width, height) of cr (in
 * cr's user units, which are pixels on screen) and remember the layout. */
void lw_plot_draw(LwPlot *plot, cairo_t *cr, double width, double height);
/* Compute and remember the layout for a size without drawing. */
void lw_plot_layout(LwPlot *plot, double width, double height);
/* The data area of the last layout, in pixels; FALSE before any layout. */
gboolean lw_plot_get_data_area(const LwPlot *plot, double *x, double *y, double *width, double *height);
/* Data <-> pixel through the last layout; FALSE (and nothing written)
 * before any layout. */
gboolean lw_plot_to_pixel(const LwPlot *plot, double x, double y, double *px, double *py);
gboolean lw_plot_from_pixel(const LwPlot *plot, double px, double py, double *x, double *y);

/* ---- hover readout ---- */
/* The data point nearest to pixel (px, py), among points inside the last
 * drawn view and within max_dist_px of it. FALSE if there is none. */
gboolean lw_plot_nearest(const LwPlot *plot, double px, double py, double max_dist_px, guint *series, double *x,
                         double *y);
/* Mark a point (a marker and a "name: x, y" label) on the next draws;
 * series < 0 removes the mark. Removing the series removes the mark. */
void lw_plot_set_hover(LwPlot *plot, int series, double x, double y);

/* ---- export ---- */
/* Draw to filename at width x height (pixels for PNG, points for SVG and
 * PDF); the type comes from the extension (.png, .svg, .pdf, any case).
 * The errors name the file. The screen layout is kept. */
gboolean lw_plot_export(LwPlot *plot, const char *filename, double width, double height, GError **error);
/* Write the data as CSV, with a header row of column names:
 *  - when every series has the same x values (bit for bit, same count), one
 *    shared x column (named by the x label, or "x"), then one y column per
 *    series (named by the series);
 *  - otherwise an x and a y column per series ("name x", "name y"), shorter
 *    series leaving empty cells at the end.
 * Numbers are written by g_ascii_dtostr (shortest round-trip form, '.' in
 * every locale, "nan"/"inf" as such); names with ',', '"' or line breaks are
 * quoted. */
/* A bar chart is written as a name and a value column (the values as
 * drawn), headed "name" and the x label (or "value"). */
gboolean lw_plot_export_csv(LwPlot *plot, const char *filename, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(LwPlot, lw_plot_free)

G_END_DECLS

#endif /* LW_PLOT_H */
