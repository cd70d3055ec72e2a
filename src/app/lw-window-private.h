/* lw-window-private.h: what the parts of the main window share.
 *
 * The window is one class in several files, each named for what it holds:
 * lw-window.c (the widget, its construction, installing a model, playback),
 * lw-window-actions.c (the action table and its simple callbacks),
 * lw-window-file.c (open, save, the Save/Discard/Cancel question, recent
 * files, examples, recovery), lw-window-undo.c (the undo and redo stacks) and
 * lw-window-bench.c (screenshots and frame-rate measurement for automation)
 * and lw-window-dnd.c (files dropped on the window).
 * The functions below are private to those files. */
#pragma once

#include "lw-window.h"

#include "lw-frame-stats.h"
#include "lw-inspector.h"
#include "lw-opt-panel.h"
#include "lw-plot-page.h"
#include "lw-prop-editor.h"
#include "lw-render.h"
#include "lw-sens-panel.h"
#include "lw_io.h"

G_BEGIN_DECLS

#define BUILTIN_MODEL "resource:///io/github/linkwright/Linkwright/models/five-bar.json"

struct _LwWindow {
  AdwApplicationWindow parent_instance;

  /* template */
  AdwWindowTitle *window_title;
  AdwToastOverlay *toast_overlay;
  GtkWidget *status_label;
  GtkWidget *message_revealer, *message_label;
  GtkWidget *view_overlay, *gl_status;
  GtkWidget *open_button;
  GtkWidget *time_scale, *time_label, *speed_dropdown;
  GtkAdjustment *time_adjustment;
  GtkWidget *plots_page;
  GtkWidget *side_stack;
  GtkWidget *palette_revealer, *inspector_stack;
  LwInspector *inspector;
  LwPropEditor *prop_editor;
  LwSensPanel *sens_panel;
  LwOptPanel *opt_panel;
  GMenu *recent_section;

  GtkWidget *view;       /* LwView3d */
  GtkWidget *palette;    /* LwPalette */
  GtkWidget *editor;     /* LwEditor, over the view in editing mode */
  GtkWidget *stress_legend; /* LwStressLegend, over the view while beams are coloured by stress */
  gboolean show_stress;  /* win.show-stress: beams coloured by their stress */
  gboolean editing;
  char *autosave_path;   /* this window's autosave file */
  gboolean closing_confirmed;
  AdwMessageDialog *confirm_dialog; /* Save / Discard / Cancel, while it is up */
  AdwMessageDialog *recovery_dialog;
  char *recovery_path;
  LwPlotPage *plot_page;
  GSettings *settings;   /* NULL when the schema is not installed */

  /* the document */
  lw_desc *desc;         /* the user's model, as loaded or saved */
  GFile *file;           /* NULL: built-in or example (save asks where) */
  char *display_name;
  gboolean modified;     /* changed since loaded or saved (an applied design) */
  guint doc_id;          /* which document (opened, new, recovered) the model is a state of */
  GPtrArray *undo, *redo; /* UndoEntry, the newest last */
  LwSimRunner *runner;
  lw_data *view_data;    /* poses from recorded q, main thread only */
  int nq, ncols, nbodies, njoints, nforces;
  double *q, *outputs, *poses, *joints, *forces;
  int n_user_outputs;    /* the model file's outputs (the built-in ones follow) */

  /* playback and live display */
  guint tick_id;
  gboolean playing, loop, real_time;
  double shown_time;
  gint64 last_frame_us;
  gint64 last_plot_us, last_text_us; /* plots; slider and status: last refreshed during a live run */
  guint shown_frame;
  gboolean updating_scale;
  guint live_frames;     /* frames already shown live (the rest are new) */
  char *message;
  char *last_toast;      /* the last toast shown (for tests and scripts) */
  gboolean automation_done;

  /* frame statistics (--bench-fps) */
  GArray *frame_times;   /* intervals between displayed frames, s */
  gint64 bench_start_us;
  LwCpuMark bench_cpu; /* at bench_start_us */
  guint64 bench_pictures; /* the view's pictures by then */
  gint64 bench_shown_us;   /* when the model was shown */
  gint64 bench_run_us;     /* when Run was pressed */
  gboolean bench_threaded; /* the view on its render thread by then */
  guint bench_waits;     /* checks for the view's render thread before Run */

  /* friction and events (lw-window-events.c) */
  guint install_serial;  /* counts the models installed */
  gboolean any_friction; /* a joint of the model has friction */
  int *slip_col;         /* per joint: its slip speed's output column, -1: none */
  double *v_t;           /* per joint: its friction's transition speed */
  double *sticking;      /* per joint: 1 while its friction holds it (the frame shown) */
  double *marks;         /* contact planes and joint limits (LW_RENDER_MARK_DOUBLES each) */
  int nmarks;
  double mark_size;      /* half the length of a contact's plane, m */
  GtkWidget *event_list; /* LwEventList, the Events page */
  gpointer events_runner; /* the runner whose events are shown (compared only) */
  guint shown_events;
  gboolean comparing;    /* the run without friction is under way */
  gboolean disposed;     /* the window is being destroyed */
};

/* lw-window-actions.c */
void _lw_window_actions_init(LwWindow *self);
void _lw_window_update_actions(LwWindow *self);
void _lw_window_watch_focus(LwWindow *self);

/* lw-window-bench.c */
void _lw_window_record_frame_time(LwWindow *self, gint64 now);
void _lw_window_bench_tick(LwWindow *self, gint64 now, LwRunnerState st);
gboolean _lw_window_bench_start_cb(gpointer data);
void _lw_window_take_screenshot_and_maybe_quit(LwWindow *self);

/* lw-window-events.c */
void _lw_window_events_setup(LwWindow *self);
void _lw_window_events_decorate(LwWindow *self, lw_render_state *rs);
void _lw_window_events_sync(LwWindow *self);
void _lw_window_compare_friction_cb(GSimpleAction *a, GVariant *p, gpointer user);

/* lw-window-file.c */
void _lw_window_new_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_new_spatial_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_open_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_save_as_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_save_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_export_plot_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_export_csv_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_rebuild_recent_menu(LwWindow *self);
void _lw_window_open_recent_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_recent_changed_cb(GtkRecentManager *rm, gpointer user);
void _lw_window_examples_cb(GSimpleAction *a, GVariant *p, gpointer user);
/* open file in this window, asking first when the model has unsaved changes */
void _lw_window_open_file_confirmed(LwWindow *self, GFile *file);

/* lw-window-dnd.c */
void _lw_window_dnd_init(LwWindow *self);

/* lw-window-undo.c */
void _lw_window_undo_entry_free(gpointer p);
void _lw_window_push_current(LwWindow *self, GPtrArray *stack);
void _lw_window_rename_undo_entries(LwWindow *self);
void _lw_window_undo_cb(GSimpleAction *a, GVariant *p, gpointer user);
void _lw_window_redo_cb(GSimpleAction *a, GVariant *p, gpointer user);

/* lw-window.c */
void _lw_window_show_message(LwWindow *self, const char *text);
void _lw_window_hide_message(LwWindow *self);
void _lw_window_toast(LwWindow *self, const char *text);
void _lw_window_update_status(LwWindow *self);
void _lw_window_show_frame(LwWindow *self, guint k);
void _lw_window_set_scale_range(LwWindow *self);
gboolean _lw_window_install_model(LwWindow *self, lw_desc *desc, GFile *file, const char *display_name,
                              const LwSourceMap *map, lw_error *err);
guint _lw_window_next_doc_id(void);
void _lw_window_write_autosave(LwWindow *self);
gboolean _lw_window_set_document(LwWindow *self, lw_desc *desc, gboolean modified);
void _lw_window_refresh_editing(LwWindow *self);
/* the subtitle: the display name, and whether the model is modified */
void _lw_window_update_subtitle(LwWindow *self);
void _lw_window_edit_cb(GObject *source, gpointer desc, const char *what, gpointer user);
void _lw_window_frame_drawing_area(LwWindow *self);

G_END_DECLS
