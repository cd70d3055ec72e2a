/* lw-panel-util.h: pieces the sensitivity and optimization panels share. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* A preferences group with a title (or none), appended to box. */
GtkWidget *lw_panel_group(GtkWidget *box, const char *title);
/* Appends to box the controls of a long job: a pill button labelled with
 * the mnemonic label (clicked calls clicked with user), a progress bar shown
 * while the job runs, and a wrapping, selectable status label.  The
 * accessible names of the bar and the label are progress_name and
 * status_name. */
void lw_panel_run_controls(GtkWidget *box, const char *label, const char *tooltip, const char *progress_name,
                           const char *status_name, GCallback clicked, gpointer user, GtkWidget **button,
                           GtkWidget **progress, GtkWidget **status);
/* The button turns into Cancel (destructive) while busy, back to label
 * (suggested) after; the progress bar shows while busy. */
void lw_panel_set_busy(GtkWidget *button, GtkWidget *progress, gboolean busy, const char *label);

G_END_DECLS
