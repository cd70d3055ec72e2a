/* lw-inspector.h: properties of the selected body, joint or force, the
 * model's parameters and the current value of every output. */
#pragma once

#include <gtk/gtk.h>

#include "linkwright.h"

G_BEGIN_DECLS

#define LW_TYPE_INSPECTOR (lw_inspector_get_type())
G_DECLARE_FINAL_TYPE(LwInspector, lw_inspector, LW, INSPECTOR, GtkWidget)

/* The model to show (NULL clears); the inspector keeps its own copy. */
void lw_inspector_set_model(LwInspector *self, const lw_model *model);
/* "bodies/NAME", "joints/NAME", "forces/NAME", "beams/NAME", or NULL for the model overview. */
void lw_inspector_set_selection(LwInspector *self, const char *path);
const char *lw_inspector_get_selection(LwInspector *self);
/* Output values at time t (one per output column). */
void lw_inspector_set_outputs(LwInspector *self, double t, const double *outputs);
/* Text shown for a row, by title (tests): NULL when there is no such row. */
const char *lw_inspector_lookup(LwInspector *self, const char *title);

G_END_DECLS
