/* lw-measure-actions.h: the window's actions of the Measure tool and the
 * link from the 3-D view's perturbation spring to the running simulation. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Adds to map (the application window): win.measure (a toggle, Ctrl+Shift+M: the
 * Measure tool of the view), win.clear-measures; and forwards the view's
 * Ctrl+drag perturbation to the window's runner while it runs. */
void lw_measure_actions_install(GtkWidget *view, GActionMap *map);

G_END_DECLS
