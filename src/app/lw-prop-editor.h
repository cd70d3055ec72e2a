/* lw-prop-editor.h: every property of the selected body, joint or force of
 * the document being edited (or of the model, with nothing selected), as
 * fields with units.  A field is applied with Enter, Tab or when the focus
 * leaves it; it takes an expression ("pi/2", "2*0.35") and a unit ("250
 * mm", "90 deg"), converted to the field's own (angles shown in degrees or
 * radians as the "angles-in-degrees" setting says; the model keeps radians).
 * A value that is not a number or not allowed is refused with the reason
 * under the field, and the model is not changed (on focus loss the field
 * shows the model's value again).  The model page lists the parameters, an
 * array of them as one row that opens onto a list; a parameter's row can
 * become a slider whose value becomes the model's on release.  Each numeric field has a button that makes a named
 * parameter of it (for sensitivities and optimization).
 *
 * Accepted edits are new descriptions handed to the "edit" signal, as the
 * editor does (the handler takes the description). */
#pragma once

#include <gtk/gtk.h>

#include "linkwright.h"

G_BEGIN_DECLS

#define LW_TYPE_PROP_EDITOR (lw_prop_editor_get_type())
G_DECLARE_FINAL_TYPE(LwPropEditor, lw_prop_editor, LW, PROP_EDITOR, GtkWidget)

GtkWidget *lw_prop_editor_new(void);
/* The document (copied) and its live check (may be NULL).  Only the parts
 * of the page whose shape changed are built again; the other fields take
 * their new values in place, and the focus stays where it was. */
void lw_prop_editor_set_document(LwPropEditor *self, const lw_desc *doc, const lw_check_result *check);
/* "bodies/NAME", "joints/NAME", "forces/NAME", "beams/NAME" or NULL (the
 * model).  A beam's page has its name, its number of elements
 * ("beams/B/elements", a whole number up to LW_EDIT_BEAM_MAX_ELEMENTS), its
 * section (a drop-down; the sizes of the type chosen, or the area and
 * second moment of a generic one), its material and its ends. */
#define LW_EDIT_BEAM_MAX_ELEMENTS 1000
void lw_prop_editor_set_selection(LwPropEditor *self, const char *path);
const char *lw_prop_editor_get_selection(LwPropEditor *self);

/* Type text into the field of a path (as lw_desc_field names it, or
 * ".../name", "joints/J/body1|body2", "initial/J/value|velocity") and press
 * Enter.  FALSE when there is no such field shown or the value is refused. */
gboolean lw_prop_editor_enter(LwPropEditor *self, const char *path, const char *text);
/* The section drop-down of beam `beam` set to t, as a user would choose it:
 * the sizes carry over (lw-prop-editor.c, beam_section_convert). */
gboolean lw_prop_editor_set_beam_section(LwPropEditor *self, const char *beam, lw_section_type t);
/* The model page's solver drop-downs set as a user would choose: setting
 * "integrator" (0 ALI3-P, 1 variational), "mode" (0 fixed step, 1 error
 * tolerance) or "order" (of the tolerance mode: 0 second, 1 fourth).  The
 * variational integrator takes the fixed step and no numerical damping
 * with it.  The tolerances ("solver/rtol", "solver/atol") and the
 * numerical damping ("solver/rho_inf") are fields (lw_prop_editor_enter),
 * not parameters.  FALSE for a choice that is not open (the tolerance mode
 * with the variational integrator). */
gboolean lw_prop_editor_set_solver(LwPropEditor *self, const char *setting, guint choice);
/* The refusal shown at a field, or NULL. */
const char *lw_prop_editor_get_error(LwPropEditor *self, const char *path);
/* The text of a field, or NULL when it is not shown. */
const char *lw_prop_editor_get_text(LwPropEditor *self, const char *path);
/* The field's "make parameter" button: a parameter named after the field. */
gboolean lw_prop_editor_make_parameter(LwPropEditor *self, const char *path);
/* Buttons of the body page: a named point at the centre of mass, and a
 * position output of a point (what the plots and traces show). */
gboolean lw_prop_editor_add_point(LwPropEditor *self);
gboolean lw_prop_editor_trace_point(LwPropEditor *self, const char *point);

/* The model page's "New objective" form, filled in and applied as a user
 * would: output is a row of its output list ("coupler_p1" for every
 * component, "coupler_p1.y" for one), measure the row of its measures (0: ∫
 * (y − target)² dt, 1: (y − target)² at the end, 2: ∫ (y − target) dt, 3:
 * y − target at the end).  FALSE when the form refused it (the reason:
 * lw_prop_editor_get_objective_error) or the model page is not shown. */
gboolean lw_prop_editor_add_objective(LwPropEditor *self, const char *name, const char *output, int measure,
                                      const char *target, const char *weight);
const char *lw_prop_editor_get_objective_error(LwPropEditor *self);
/* Scroll the page to its end (the model page's objectives and their form). */
void lw_prop_editor_scroll_to_end(LwPropEditor *self);
/* Remove an objective (and the problems that optimize it), as its trash button does. */
gboolean lw_prop_editor_remove_objective(LwPropEditor *self, const char *name);

/* The entry of a field (NULL when not shown), and the unit shown beside it. */
GtkWidget *lw_prop_editor_get_entry(LwPropEditor *self, const char *path);
const char *lw_prop_editor_get_unit(LwPropEditor *self, const char *path);
/* Angles in degrees (TRUE) or radians: the page's switch (and the setting). */
void lw_prop_editor_set_degrees(LwPropEditor *self, gboolean degrees);
gboolean lw_prop_editor_get_degrees(LwPropEditor *self);
/* Open or close the row of a parameter array ("u" for u[0], u[1]...). */
gboolean lw_prop_editor_expand_array(LwPropEditor *self, const char *base, gboolean expanded);
/* A parameter's row shown as a slider (its toggle), the slider (NULL when
 * not shown), and a slider moved to a value and released. */
gboolean lw_prop_editor_set_slider(LwPropEditor *self, const char *name, gboolean on);
GtkWidget *lw_prop_editor_get_slider(LwPropEditor *self, const char *name);
gboolean lw_prop_editor_slide(LwPropEditor *self, const char *name, double value);

G_END_DECLS
