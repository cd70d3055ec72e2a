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

/* What replaces the document once the user has agreed (see below). */
typedef void (*LwWindowReplaceFunc)(LwWindow *self, gpointer data);
/* Every action that replaces the document goes through here, so that no
 * unsaved change is ever dropped without a question.  When the model has no
 * unsaved changes, fn runs at once.  Otherwise a dialog asks Save / Discard /
 * Cancel: Discard runs fn; Save saves (to the model's file, or asks where
 * with Save As when it has none) and runs fn only once the save succeeded;
 * Cancel, a failed save or a cancelled Save As keep everything as it was.
 * what says in a few words what is about to happen, as the start of the
 * sentence "… discards them unless they are saved first." (e.g. _("Opening
 * another model"), _("Starting a new model")).  destroy (may be NULL) frees
 * data whether fn ran or not.  A new entry of the examples gallery (a
 * template, say) opens its model from fn:
 *   lw_window_confirm_replace(win, _("Opening the template"), open_template,
 *                             g_strdup(name), g_free); */
void lw_window_confirm_replace(LwWindow *self, const char *what, LwWindowReplaceFunc fn, gpointer data,
                               GDestroyNotify destroy);

/* Make desc (taken) a new document named display_name, modified and without
 * a file (Save asks where), undoable.  When the model shown has unsaved
 * changes, asks first (lw_window_confirm_replace): desc waits for the
 * answer and is freed on Cancel.  TRUE when desc became the document at
 * once and assembled (it can run). */
gboolean lw_window_open_document(LwWindow *self, lw_desc *desc, const char *display_name);

/* For tests and automation. */
const lw_desc *lw_window_get_desc(LwWindow *self);
LwSimRunner *lw_window_get_runner(LwWindow *self);
/* The text of the last toast shown (NULL: none yet). */
const char *lw_window_get_last_toast(LwWindow *self);
const char *lw_window_get_message(LwWindow *self); /* the message bar's text, NULL when hidden */
GtkWidget *lw_window_get_view(LwWindow *self);
GtkWidget *lw_window_get_plot_view(LwWindow *self); /* the first plot of the Plots page */
GtkWidget *lw_window_get_plot_page(LwWindow *self);  /* an LwPlotPage */
GtkWidget *lw_window_get_sens_panel(LwWindow *self);
GtkWidget *lw_window_get_inspector(LwWindow *self);
GtkWidget *lw_window_get_opt_panel(LwWindow *self);
/* The model was changed (an optimized design applied) since it was loaded or saved. */
gboolean lw_window_get_modified(LwWindow *self);
GFile *lw_window_get_file(LwWindow *self); /* where Save writes; NULL: it asks */
const char *lw_window_get_display_name(LwWindow *self); /* the file's name as shown under the title */
const char *lw_window_get_status_text(LwWindow *self); /* the header's status line */
double lw_window_get_shown_time(LwWindow *self); /* time of the frame on screen */
GtkAdjustment *lw_window_get_time_adjustment(LwWindow *self); /* the time scale's */
/* Editing (see lw-editor.h, lw-prop-editor.h, lw-palette.h). */
GtkWidget *lw_window_get_editor(LwWindow *self);
/* The stress scale shown over the view while win.show-stress is on and the
 * model has beams (an LwStressLegend). */
GtkWidget *lw_window_get_stress_legend(LwWindow *self);
GtkWidget *lw_window_get_palette(LwWindow *self);
GtkWidget *lw_window_get_prop_editor(LwWindow *self);
guint lw_window_get_undo_depth(LwWindow *self);
/* This window's autosave file (NULL before the first edit), once the
 * copies queued for it are written. */
const char *lw_window_get_autosave_path(LwWindow *self);
/* Offer the newest autosave left by a process that has gone (a dialog:
 * Recover, Discard, Later); FALSE when there is none. */
gboolean lw_window_offer_recovery(LwWindow *self);
GtkWidget *lw_window_get_recovery_dialog(LwWindow *self); /* the AdwMessageDialog shown, or NULL */
/* Make an autosaved model the document (unsaved, undoable). */
gboolean lw_window_recover_file(LwWindow *self, const char *path);
/* What Save does, to this file (no dialog); FALSE with the message shown on failure. */
gboolean lw_window_save_to_file(LwWindow *self, GFile *file);
/* What Export Plot (csv FALSE: PNG, SVG or PDF by the name) and Export Plot
 * Data do with the file chosen; FALSE with the reason shown on failure. */
gboolean lw_window_export_plot_to(LwWindow *self, GFile *file, gboolean csv);
/* Save a PNG of the window as drawn now. */
/* Friction and events: the comparison run without friction is under way;
 * the Events page's LwEventList; joint j drawn as sticking in the frame
 * shown; the marks (contact planes, joint limits) drawn with it. */
gboolean lw_window_get_comparing(LwWindow *self);
GtkWidget *lw_window_get_event_list(LwWindow *self);
gboolean lw_window_get_joint_sticking(LwWindow *self, int j);
int lw_window_get_n_marks(LwWindow *self);
gboolean lw_window_save_screenshot(LwWindow *self, const char *filename, GError **error);

G_END_DECLS
