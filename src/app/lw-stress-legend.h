/* lw-stress-legend.h: the beams coloured by stress, and the legend of the
 * colour scale over the 3-D view.
 *
 * lw_stress_legend_color_beams takes the stress at every beam point of a
 * frame (lw_scene_beam_stress: axial and bending, at the extreme fibre),
 * maps it from 0 to the frame's largest onto the scale of lw_stress_color
 * and keeps that range, which the legend (a bar from blue to red with the
 * range in MPa) shows. */
#pragma once

#include <gtk/gtk.h>

#include "linkwright.h"

G_BEGIN_DECLS

#define LW_TYPE_STRESS_LEGEND (lw_stress_legend_get_type())
G_DECLARE_FINAL_TYPE(LwStressLegend, lw_stress_legend, LW, STRESS_LEGEND, GtkWidget)

GtkWidget *lw_stress_legend_new(void);
/* The colours (lw_scene_beam_points x 3) of the beams of m at the state in
 * d; the legend's range becomes 0 to the largest stress among them. */
void lw_stress_legend_color_beams(LwStressLegend *self, const lw_model *m, const lw_data *d, double *rgb);
/* The range shown, Pa (0 to the largest stress of the frame coloured). */
void lw_stress_legend_get_range(LwStressLegend *self, double *lo, double *hi);
/* The text of the legend's labels, "0 MPa", "12.3 MPa" (tests). */
char *lw_stress_legend_get_text(LwStressLegend *self);

G_END_DECLS
