/* lw-stress-legend.c: the stress colouring of beams and its legend (see
 * lw-stress-legend.h). */
#include "lw-stress-legend.h"

#include <glib/gi18n.h>
#include <math.h>

#include "lw-render.h"

#define BAR_W 16.0
#define BAR_H 140.0
#define PAD 8.0

struct _LwStressLegend {
  GtkWidget parent_instance;
  double lo, hi; /* Pa */
};

G_DEFINE_FINAL_TYPE(LwStressLegend, lw_stress_legend, GTK_TYPE_WIDGET)

void lw_stress_legend_color_beams(LwStressLegend *self, const lw_model *m, const lw_data *d, double *rgb)
{
  g_return_if_fail(LW_IS_STRESS_LEGEND(self));
  int n = lw_scene_beam_points(m);
  double *stress = g_new(double, (gsize)MAX(n, 1)), hi = 0;
  lw_scene_beam_stress(m, d, stress);
  for (int k = 0; k < n; k++)
    if (isfinite(stress[k]))
      hi = fmax(hi, stress[k]);
  for (int k = 0; k < n; k++)
    lw_stress_color(hi > 0 ? stress[k] / hi : 0, rgb + 3 * k);
  g_free(stress);
  if (self->lo != 0 || self->hi != hi) {
    self->lo = 0, self->hi = hi;
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_autofree char *text = lw_stress_legend_get_text(self);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
  }
}

void lw_stress_legend_get_range(LwStressLegend *self, double *lo, double *hi)
{
  g_return_if_fail(LW_IS_STRESS_LEGEND(self));
  *lo = self->lo;
  *hi = self->hi;
}

/* a stress in MPa, to three significant digits */
static char *mpa_text(double pa)
{
  /* TRANSLATORS: a stress in megapascals */
  return g_strdup_printf(_("%.3g MPa"), pa * 1e-6);
}

char *lw_stress_legend_get_text(LwStressLegend *self)
{
  g_return_val_if_fail(LW_IS_STRESS_LEGEND(self), NULL);
  g_autofree char *lo = mpa_text(self->lo), *hi = mpa_text(self->hi);
  /* TRANSLATORS: the range of the beams' stress colour scale */
  return g_strdup_printf(_("Stress %s to %s"), lo, hi);
}

static void show_text(GtkWidget *w, cairo_t *cr, const char *text, double x, double y)
{
  PangoLayout *pl = gtk_widget_create_pango_layout(w, text);
  int tw, th;
  pango_layout_get_pixel_size(pl, &tw, &th);
  cairo_move_to(cr, x, y - th / 2.0);
  pango_cairo_show_layout(cr, pl);
  g_object_unref(pl);
}

static void lw_stress_legend_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
  LwStressLegend *self = LW_STRESS_LEGEND(widget);
  int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
  cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, w, h));
  cairo_set_source_rgba(cr, 0.12, 0.12, 0.12, 0.72);
  cairo_rectangle(cr, 0, 0, w, h);
  cairo_fill(cr);
  double x0 = PAD, y0 = PAD + 22, y1 = y0 + BAR_H;
  /* the scale, high at the top */
  for (int i = 0; i < (int)BAR_H; i++) {
    double rgb[3];
    lw_stress_color(1.0 - (i + 0.5) / BAR_H, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_rectangle(cr, x0, y0 + i, BAR_W, 1);
    cairo_fill(cr);
  }
  cairo_set_source_rgb(cr, 1, 1, 1);
  show_text(widget, cr, _("Stress"), x0, PAD + 8);
  g_autofree char *hi = mpa_text(self->hi), *mid = mpa_text(0.5 * (self->lo + self->hi)), *lo = mpa_text(self->lo);
  show_text(widget, cr, hi, x0 + BAR_W + 6, y0);
  show_text(widget, cr, mid, x0 + BAR_W + 6, 0.5 * (y0 + y1));
  show_text(widget, cr, lo, x0 + BAR_W + 6, y1);
  cairo_destroy(cr);
}

static void lw_stress_legend_measure(GtkWidget *widget, GtkOrientation o, int for_size, int *min, int *nat, int *min_base,
                                     int *nat_base)
{
  (void)for_size;
  if (o == GTK_ORIENTATION_HORIZONTAL) {
    PangoLayout *pl = gtk_widget_create_pango_layout(widget, "000000 MPa");
    int tw, th;
    pango_layout_get_pixel_size(pl, &tw, &th);
    g_object_unref(pl);
    *min = *nat = (int)(2 * PAD + BAR_W + 6) + tw;
  } else
    *min = *nat = (int)(2 * PAD + 22 + BAR_H + 8);
  *min_base = *nat_base = -1;
}

static void lw_stress_legend_class_init(LwStressLegendClass *klass)
{
  GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
  wc->snapshot = lw_stress_legend_snapshot;
  wc->measure = lw_stress_legend_measure;
  gtk_widget_class_set_css_name(wc, "lw-stress-legend");
  gtk_widget_class_set_accessible_role(wc, GTK_ACCESSIBLE_ROLE_IMG);
}

static void lw_stress_legend_init(LwStressLegend *self)
{
  gtk_widget_set_can_target(GTK_WIDGET(self), FALSE);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Stress scale"), -1);
}

GtkWidget *lw_stress_legend_new(void)
{
  return g_object_new(LW_TYPE_STRESS_LEGEND, NULL);
}
