/* lw-window.h: a window showing one model: 3-D view, playback, plots,
 * inspector, sensitivities and optimization. */
#pragma once

#include <adwaita.h>

#include "linkwright.h"
#include "lw-application.h"
#include "lw-sim-runner.h"

G_BEGIN_DECLS

#define LW_TYPE_WINDOW (lw_window_get_type())
G_DECLARE_FINAL_TYPE(LwWindow, lw_window, LW, WINDOW, AdwApplicationWindow)

LwWindow *lw_window_new(LwApplication *app);
/* Open a model file.  On any problem the current model stays and the
 * message (file, line, field) is shown; returns FALSE then. */
gboolean lw_window_open_file(LwWindow *self, GFile *file);
/* The built-in five-bar. */
void lw_window_open_builtin(LwWindow *self);
/* The built-in five-bar, keeping the message of a failed open on screen. */
void lw_window_open_builtin_keep_message(LwWindow *self);
/* An example shipped with the application, by file stem ("four-bar"). */
gboolean lw_window_open_example(LwWindow *self, const char *name);

/* For tests and automation. */
const lw_desc *lw_window_get_desc(LwWindow *self);
LwSimRunner *lw_window_get_runner(LwWindow *self);
const char *lw_window_get_message(LwWindow *self); /* the message bar's text, NULL when hidden */
GtkWidget *lw_window_get_view(LwWindow *self);
GtkWidget *lw_window_get_plot_view(LwWindow *self); /* the first plot of the Plots page */
GtkWidget *lw_window_get_plot_page(LwWindow *self);  /* an LwPlotPage */
GtkWidget *lw_window_get_sens_panel(LwWindow *self);
GtkWidget *lw_window_get_inspector(LwWindow *self);
GtkWidget *lw_window_get_opt_panel(LwWindow *self);
/* The model was changed (an optimized design applied) since it was loaded or saved. */
gboolean lw_window_get_modified(LwWindow *self);
double lw_window_get_shown_time(LwWindow *self); /* time of the frame on screen */
GtkAdjustment *lw_window_get_time_adjustment(LwWindow *self); /* the time scale's */
/* Editing (see lw-editor.h, lw-prop-editor.h, lw-palette.h). */
GtkWidget *lw_window_get_editor(LwWindow *self);
GtkWidget *lw_window_get_palette(LwWindow *self);
GtkWidget *lw_window_get_prop_editor(LwWindow *self);
guint lw_window_get_undo_depth(LwWindow *self);
/* This window's autosave file (NULL before the first edit). */
const char *lw_window_get_autosave_path(LwWindow *self);
/* Offer the newest autosave left by a process that has gone (a dialog:
 * Recover, Discard, Later); FALSE when there is none. */
gboolean lw_window_offer_recovery(LwWindow *self);
GtkWidget *lw_window_get_recovery_dialog(LwWindow *self); /* the AdwMessageDialog shown, or NULL */
/* Make an autosaved model the document (unsaved, undoable). */
gboolean lw_window_recover_file(LwWindow *self, const char *path);
/* What Save does, to this file (no dialog); FALSE with the message shown on failure. */
gboolean lw_window_save_to_file(LwWindow *self, GFile *file);
/* Save a PNG of the window as drawn now. */
gboolean lw_window_save_screenshot(LwWindow *self, const char *filename, GError **error);

G_END_DECLS
