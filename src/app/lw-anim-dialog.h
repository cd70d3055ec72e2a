/* lw-anim-dialog.h: Export Animation: the size, frame rate, playback speed
 * and format of a video of the window's recorded run, written on a worker
 * thread (lw-anim-export.h) with a progress bar and Cancel; the window
 * stays usable meanwhile. */
#pragma once

#include <adwaita.h>

#include "lw-anim-export.h"
#include "lw-sim-runner.h"

G_BEGIN_DECLS

#define LW_TYPE_ANIM_DIALOG (lw_anim_dialog_get_type())
G_DECLARE_FINAL_TYPE(LwAnimDialog, lw_anim_dialog, LW, ANIM_DIALOG, AdwWindow)

/* A dialog for the run of runner (the frames recorded so far), transient
 * for parent; camera NULL: fitted to the whole run. */
LwAnimDialog *lw_anim_dialog_new(GtkWindow *parent, LwSimRunner *runner, const lw_camera *camera,
                                 const lw_render_options *options);

/* What the fields hold (tests set them as a user would type them). */
void lw_anim_dialog_set_size(LwAnimDialog *self, int width, int height);
void lw_anim_dialog_set_fps(LwAnimDialog *self, double fps);
void lw_anim_dialog_set_speed(LwAnimDialog *self, double speed);
void lw_anim_dialog_set_format(LwAnimDialog *self, lw_anim_format format);
/* Starts writing file (what the file chooser's Export does); FALSE with
 * the reason shown in the dialog when it cannot start. */
gboolean lw_anim_dialog_export_to(LwAnimDialog *self, GFile *file);
/* Cancel while writing: the partial file is removed. */
void lw_anim_dialog_cancel(LwAnimDialog *self);
gboolean lw_anim_dialog_get_running(LwAnimDialog *self);
double lw_anim_dialog_get_fraction(LwAnimDialog *self);
/* the dialog's message line ("" when none) */
const char *lw_anim_dialog_get_message(LwAnimDialog *self);

G_END_DECLS
