/* lw-panel-util.c: pieces the sensitivity and optimization panels share
 * (see lw-panel-util.h). */
#include "lw-panel-util.h"

#include <glib/gi18n.h>
#include <math.h>

void lw_panel_set_busy(GtkWidget *button, GtkWidget *progress, gboolean busy, const char *label)
{
  gtk_button_set_label(GTK_BUTTON(button), busy ? _("_Cancel") : label);
  gtk_widget_remove_css_class(button, busy ? "suggested-action" : "destructive-action");
  gtk_widget_add_css_class(button, busy ? "destructive-action" : "suggested-action");
  gtk_widget_set_visible(progress, busy);
}

double lw_panel_clean(double v, double scale)
{
  if (v == 0 || (isfinite(v) && isfinite(scale) && fabs(v) <= LW_PANEL_ROUNDOFF * scale))
    return 0.0;
  return v;
}

char *lw_panel_format(const char *fmt, double v, double scale)
{
  if (isnan(v))
    return g_strdup("–");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  return g_strdup_printf(fmt, lw_panel_clean(v, scale));
#pragma GCC diagnostic pop
}

char *lw_panel_cannot_run_text(const char *reason, const char *what)
{
  const char *r = reason && *reason ? reason : _("the model is incomplete");
  const char *stop = g_str_has_suffix(r, ".") ? "" : ".";
  /* TRANSLATORS: the first %s is why the model cannot be simulated, the
   * second a full stop when it has none, the third what stays off
   * ("Compute", "Optimize") */
  return g_strdup_printf(_("The model cannot run: %s%s\n%s is off until the model runs, like Run."), r, stop, what);
}

void lw_panel_set_warning(GtkWidget *status, gboolean warning)
{
  if (warning)
    gtk_widget_add_css_class(status, "warning");
  else
    gtk_widget_remove_css_class(status, "warning");
}

void lw_panel_name_inner_buttons(GtkWidget *w, const char *name)
{
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    if (GTK_IS_BUTTON(c) || GTK_IS_MENU_BUTTON(c))
      gtk_accessible_update_property(GTK_ACCESSIBLE(c), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
    lw_panel_name_inner_buttons(c, name);
  }
}

gboolean lw_panel_set_strings(GtkStringList *list, const char *const *items)
{
  static const char *const none[] = {NULL};
  if (!items)
    items = none;
  guint n = g_list_model_get_n_items(G_LIST_MODEL(list)), k = 0;
  while (k < n && items[k] && !g_strcmp0(items[k], gtk_string_list_get_string(list, k)))
    k++;
  if (k == n && !items[k])
    return FALSE;
  gtk_string_list_splice(list, 0, n, items);
  return TRUE;
}

void lw_panel_take_model(lw_desc **panel_desc, gboolean *panel_runnable, char **panel_reason, const lw_desc *desc,
                         gboolean runnable, const char *reason)
{
  lw_desc_free(*panel_desc);
  *panel_desc = desc ? lw_desc_copy(desc) : NULL;
  *panel_runnable = desc && runnable;
  g_free(*panel_reason);
  *panel_reason = g_strdup(desc ? reason : _("there is no model"));
}
