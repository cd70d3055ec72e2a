/* lw-opt-panel.h: design optimization of the model's problems.
 *
 * Choose a problem of the model, which of its design variables take part
 * and the algorithm; run lw_optimize() on a worker thread with live
 * progress (evaluation, iteration, objective, constraint violation,
 * projected gradient) and a convergence plot; then read a summary, the
 * variables before and after, and watch the initial and the optimized
 * design move side by side.
 *
 * Apply emits "apply" with the optimized model (a const lw_desc *, valid
 * during the emission; the handler copies what it keeps and returns TRUE
 * when it took the design).  The window puts it on its undo stack.
 * Discard drops the result. */
#pragma once

#include <gtk/gtk.h>

#include "linkwright.h"
#include "lw-plot.h"
#include "lw_opt.h"

G_BEGIN_DECLS

#define LW_TYPE_OPT_PANEL (lw_opt_panel_get_type())
G_DECLARE_FINAL_TYPE(LwOptPanel, lw_opt_panel, LW, OPT_PANEL, GtkWidget)

/* The model on screen (the panel keeps a copy; NULL clears) and whether it
 * can be simulated; when it cannot, reason says why, the page says so and
 * Optimize is off.  Cancels a run (its result is dropped when it arrives)
 * and drops the result.  Cheap enough to call on every edit. */
void lw_opt_panel_set_model_state(LwOptPanel *self, const lw_desc *desc, gboolean runnable, const char *reason);
/* The same for a model that runs. */
void lw_opt_panel_set_desc(LwOptPanel *self, const lw_desc *desc);
/* Start with the choices on screen, or cancel when running. */
void lw_opt_panel_run(LwOptPanel *self);
void lw_opt_panel_cancel(LwOptPanel *self);
gboolean lw_opt_panel_is_busy(LwOptPanel *self);

/* Choices, for tests and scripts.  FALSE when there is no such problem. */
gboolean lw_opt_panel_select_problem(LwOptPanel *self, const char *name);
/* Include or leave out variable k (0-based, as the problem lists them). */
void lw_opt_panel_set_variable_included(LwOptPanel *self, int k, gboolean included);
/* An lw_opt_algorithm, or -1 for the problem's own. */
void lw_opt_panel_set_algorithm(LwOptPanel *self, int algorithm);

/* The progress shown: evaluations so far (also the "evaluations" property)
 * and the last evaluation's values; any pointer may be NULL. */
int lw_opt_panel_get_progress(LwOptPanel *self, int *iteration, double *f, double *violation, double *pgnorm);
/* The convergence plot. */
LwPlot *lw_opt_panel_get_plot(LwOptPanel *self);
/* The last finished run (NULL before, after Apply or Discard). */
const lw_opt_result *lw_opt_panel_get_result(LwOptPanel *self);
/* The status line ("status" property). */
const char *lw_opt_panel_get_status(LwOptPanel *self);
/* Both designs of the comparison are simulated and playing. */
gboolean lw_opt_panel_comparison_ready(LwOptPanel *self);

/* Offer the result to the "apply" handlers; TRUE when one took it. */
gboolean lw_opt_panel_apply(LwOptPanel *self);
void lw_opt_panel_discard(LwOptPanel *self);

G_END_DECLS
