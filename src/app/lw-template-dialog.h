/* lw-template-dialog.h: a four-bar or slider-crank whose dimensions are
 * edited before it opens, with its Grashof class and transmission angles
 * (four-bar) or stroke and quick-return ratio (slider-crank) shown live and
 * a sketch of the linkage.  Open makes it the window's new unsaved
 * document (lw_window_open_document). */
#pragma once

#include <adwaita.h>

#include "lw-window.h"

G_BEGIN_DECLS

typedef enum { LW_TEMPLATE_FOUR_BAR, LW_TEMPLATE_SLIDER_CRANK } LwTemplateKind;

#define LW_TYPE_TEMPLATE_DIALOG (lw_template_dialog_get_type())
G_DECLARE_FINAL_TYPE(LwTemplateDialog, lw_template_dialog, LW, TEMPLATE_DIALOG, AdwWindow)

/* A dialog for `window`, showing the template `kind` first. */
LwTemplateDialog *lw_template_dialog_new(LwWindow *window, LwTemplateKind kind);
/* The gallery's "Templates" group: a row for each template, opening the
 * dialog for `window` (and closing the gallery it sits in). */
GtkWidget *lw_template_gallery_new(LwWindow *window);

/* For tests: the spin button of a field ("fb-ground", "fb-crank", ...,
 * "sc-offset"; see the tables in lw-template-dialog.c), the text of a result
 * row ("fb-grashof", "fb-transmission", "fb-assembly", "sc-stroke",
 * "sc-quick-return", "sc-assembly"), the length unit (0: m, 1: mm). */
GtkSpinButton *lw_template_dialog_get_field(LwTemplateDialog *self, const char *id);
const char *lw_template_dialog_get_result(LwTemplateDialog *self, const char *id);
void lw_template_dialog_set_unit(LwTemplateDialog *self, guint unit);

G_END_DECLS
