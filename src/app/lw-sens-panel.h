/* lw-sens-panel.h: choose an objective and parameters, compute the gradient
 * (forward, adjoint or central differences) on a worker thread, and show it
 * as a bar chart and the sensitivities of an output over time. */
#pragma once

#include <gtk/gtk.h>

#include "linkwright.h"

G_BEGIN_DECLS

#define LW_TYPE_SENS_PANEL (lw_sens_panel_get_type())
G_DECLARE_FINAL_TYPE(LwSensPanel, lw_sens_panel, LW, SENS_PANEL, GtkWidget)

/* The model on screen (the panel keeps a copy; NULL clears) and whether it
 * can be simulated; when it cannot, reason says why, the page says so and
 * Compute is off.  A running computation is cancelled and its result
 * dropped, and the previous result is cleared: every number shown belongs
 * to this model.  Cheap enough to call on every edit. */
void lw_sens_panel_set_model_state(LwSensPanel *self, const lw_desc *desc, gboolean runnable, const char *reason);
/* The same for a model that runs. */
void lw_sens_panel_set_desc(LwSensPanel *self, const lw_desc *desc);
/* Start (or cancel, when running) with the choices on screen. */
void lw_sens_panel_run(LwSensPanel *self);
gboolean lw_sens_panel_is_busy(LwSensPanel *self);
/* Choices, for tests and scripts. */
void lw_sens_panel_select(LwSensPanel *self, const char *objective, lw_sens_method method);
/* The last result (NULL before the first). */
const lw_sens_result *lw_sens_panel_get_result(LwSensPanel *self);
/* The message shown under the chart (value, or the error). */
const char *lw_sens_panel_get_status(LwSensPanel *self);

G_END_DECLS
