/* lw-plot-view.h: a GTK 4 widget showing an LwPlot.
 *
 * Scroll zooms about the pointer (over an axis: that axis only), dragging
 * pans, a double click returns to the automatic view, hovering shows the
 * nearest point. Actions: plot.reset-view, plot.zoom-in, plot.zoom-out
 * (also Ctrl+0, Ctrl+plus, Ctrl+minus while focused).
 *
 * Signal "view-changed" (no arguments) after the user zooms, pans or returns
 * to the automatic view, so that plots sharing an axis can follow.
 */
#ifndef LW_PLOT_VIEW_H
#define LW_PLOT_VIEW_H

#include <gtk/gtk.h>

#include "lw-plot.h"

G_BEGIN_DECLS

#define LW_TYPE_PLOT_VIEW (lw_plot_view_get_type())
/* a drawing area whose content is lw_plot_draw() of its plot */
G_DECLARE_FINAL_TYPE(LwPlotView, lw_plot_view, LW, PLOT_VIEW, GtkDrawingArea)

GtkWidget *lw_plot_view_new(void);
/* The plot shown, owned by the view for its whole life: change it freely
 * (series, data, titles), then call lw_plot_view_queue_update(). */
LwPlot *lw_plot_view_get_plot(LwPlotView *self);
/* Redraw at the next frame (many calls per frame cost one draw) and bring
 * the accessible label up to date with the plot's title. */
void lw_plot_view_queue_update(LwPlotView *self);
/* Whether the mouse wheel zooms (the default).  Off, only Ctrl+wheel zooms
 * and the plain wheel goes on to what holds the view (a plot inside a
 * scrolled page scrolls the page). */
void lw_plot_view_set_wheel_zoom(LwPlotView *self, gboolean wheel_zoom);

G_END_DECLS

#endif /* LW_PLOT_VIEW_H */
