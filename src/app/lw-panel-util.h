/* lw-panel-util.h: pieces the sensitivity and optimization panels share. */
#pragma once

#include <adwaita.h>

#include "linkwright.h"

G_BEGIN_DECLS

/* The button turns into Cancel (destructive) while busy, back to label
 * (suggested) after; the progress bar shows while busy. */
void lw_panel_set_busy(GtkWidget *button, GtkWidget *progress, gboolean busy, const char *label);

/* A value that is this small a fraction of the largest magnitude of its
 * column (or of the quantities it is compared with) is round-off and is
 * printed as 0: double precision carries about 16 digits, and results
 * that went through a simulation keep about 12 of them. */
#define LW_PANEL_ROUNDOFF 1e-12
/* v, or 0 when |v| <= LW_PANEL_ROUNDOFF * scale (scale >= 0, the largest
 * magnitude shown beside v). */
double lw_panel_clean(double v, double scale);
/* v cleaned of round-off against scale, printed with printf format fmt
 * (one double conversion, e.g. "%.6g"); "–" when v is NaN. */
char *lw_panel_format(const char *fmt, double v, double scale);
/* The sentence shown when the model on screen cannot be simulated:
 * "The model cannot run: REASON" and what is off until it runs. */
char *lw_panel_cannot_run_text(const char *reason, const char *what);
/* The status label in the warning colour (the model cannot run) or not. */
void lw_panel_set_warning(GtkWidget *status, gboolean warning);

/* Gives every button inside w (a drop-down's or a split button's own
 * button) the accessible name `name`: without one a screen reader says
 * the class name. */
void lw_panel_name_inner_buttons(GtkWidget *w, const char *name);

/* Make list hold items (NULL-terminated: NULL or empty for none) in one
 * change; a list that already holds them is left alone, so that an edit
 * that keeps the model's shape rebuilds no row of a drop-down.  Returns
 * TRUE when the list changed. */
gboolean lw_panel_set_strings(GtkStringList *list, const char *const *items);

/* A panel's copy of the model on screen: *desc becomes a copy of desc (NULL
 * for none), *runnable whether it can be simulated, *reason why not ("there
 * is no model" without one). */
void lw_panel_take_model(lw_desc **panel_desc, gboolean *panel_runnable, char **panel_reason, const lw_desc *desc,
                         gboolean runnable, const char *reason);

G_END_DECLS
