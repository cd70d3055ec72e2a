/* lw-plot-page.h: the Plots page of a window: a chooser of every quantity
 * of the model and plots stacked vertically.
 *
 * The chooser groups the quantities (Outputs: the model's own; Joints,
 * Springs, Controllers, Energy, Points: built in, see
 * lw_desc_add_builtin_outputs; points clicked in the 3-D view join Points)
 * and searches them by name.  Plots against time share their time axis
 * (zooming or panning time on one moves all) and show a cursor at the time
 * of the time adjustment given; a quantity plotted against another of the
 * same unit (a coupler curve) is drawn at equal aspect.
 */
#pragma once

#include <gtk/gtk.h>

#include "linkwright.h"
#include "lw-sim-runner.h"

G_BEGIN_DECLS

#define LW_TYPE_PLOT_PAGE (lw_plot_page_get_type())
G_DECLARE_FINAL_TYPE(LwPlotPage, lw_plot_page, LW, PLOT_PAGE, GtkBox)

GtkWidget *lw_plot_page_new(void);
/* desc compiled with the built-in outputs after its own (desc itself is
 * unchanged), or, should they not compile, as it is; NULL with err filled
 * when desc does not compile. */
lw_model *lw_plot_page_compile(const lw_desc *desc, lw_error *err);
/* The runner whose frames are plotted (NULL: none), its model compiled with
 * the built-in outputs after the first n_user outputs (the model file's).
 * Rebuilds the chooser and the plots: the first output, every component,
 * against time. */
void lw_plot_page_set_runner(LwPlotPage *self, LwSimRunner *runner, int n_user);
/* Append the frames recorded since the last call (up to nframes). */
void lw_plot_page_update(LwPlotPage *self, guint nframes);
/* Keep the series, drop their data (the run was reset). */
void lw_plot_page_rewind(LwPlotPage *self);
/* Remove every series and every plot but the first (empty). */
void lw_plot_page_clear(LwPlotPage *self);
/* The cursor of every plot against time follows this adjustment's value. */
void lw_plot_page_set_time_adjustment(LwPlotPage *self, GtkAdjustment *adj);
/* Clicks on a body in this view add the point clicked to the chooser. */
void lw_plot_page_watch_view(LwPlotPage *self, GtkWidget *view3d);

/* The chosen quantity against the chosen horizontal axis: into the last
 * plot, or a new one stacked below when new_plot is set, when the last has
 * a different horizontal axis, or when it has none yet.  FALSE when no
 * quantity is chosen. */
gboolean lw_plot_page_add_chosen(LwPlotPage *self, gboolean new_plot);
/* Choose by label (as the chooser shows it: "D.q", "A.reaction.x",
 * "coupler_mid.x", "time"); FALSE when there is none. */
gboolean lw_plot_page_choose(LwPlotPage *self, const char *quantity, const char *against);
/* A body point (body coordinates) becomes a quantity of the Points group,
 * named name.x, name.y (.z); returns the index of its x quantity. */
int lw_plot_page_add_point(LwPlotPage *self, int body, const double p[3], const char *name);

/* A comparison run of a variant of the model (m, compiled with the
 * built-in outputs; its rows x ncols table, time first, copied): every
 * series whose quantities it has gets a dashed twin in its colour, named
 * "NAME (label)", and so does every series added later, until another
 * runner is set.  m NULL removes it (the twins stay until the plots are
 * cleared). */
void lw_plot_page_set_comparison(LwPlotPage *self, const lw_model *m, const double *table, long rows, int ncols,
                                 const char *label);
gboolean lw_plot_page_has_comparison(LwPlotPage *self);
/* The times of a run's events, marked on every plot against time. */
void lw_plot_page_set_event_times(LwPlotPage *self, const double *t, guint n);

guint lw_plot_page_get_n_plots(LwPlotPage *self);
GtkWidget *lw_plot_page_get_plot_view(LwPlotPage *self, guint i); /* an LwPlotView */
/* the plot that takes the next series (the last) */
GtkWidget *lw_plot_page_get_current_view(LwPlotPage *self);
/* the chooser's group names, in order ("Outputs", "Joints", ...) and the
 * labels of one group's quantities (for tests and screenshots) */
GStrv lw_plot_page_dup_groups(LwPlotPage *self);
GStrv lw_plot_page_dup_group_labels(LwPlotPage *self, const char *group);
/* show a group's list in the chooser */
gboolean lw_plot_page_show_group(LwPlotPage *self, const char *group);

G_END_DECLS
