/* lw-event-list.c: the event log as a list (see lw-event-list.h). */
#include "lw-event-list.h"

#include <glib/gi18n.h>

struct _LwEventList {
  GtkWidget parent_instance;
  GtkWidget *box, *title, *scroller, *list, *placeholder;
  GtkAdjustment *adj;
  GArray *times; /* double: each row's event time */
};

G_DEFINE_FINAL_TYPE(LwEventList, lw_event_list, GTK_TYPE_WIDGET)

const char *lw_event_type_label(lw_event_type type)
{
  switch (type) {
  case LW_EVENT_CONTACT:
    return _("contact");
  case LW_EVENT_JOINT_LIMIT:
    return _("joint limit");
  case LW_EVENT_GUARD:
    return _("guard");
  case LW_EVENT_SWITCH:
    return _("switch");
  case LW_EVENT_CAPTURE:
    return _("capture");
  case LW_EVENT_COLLISION:
    return _("collision");
  default:
    return "";
  }
}

const char *lw_event_action_label(lw_event_action action)
{
  switch (action) {
  case LW_EVREC_IMPACT:
    return _("impact");
  case LW_EVREC_REST:
    return _("came to rest");
  case LW_EVREC_STOP:
    return _("stop");
  case LW_EVREC_RELEASE:
    return _("released");
  case LW_EVREC_SWITCH:
    return _("switched");
  case LW_EVREC_CAPTURE:
    return _("captured");
  default:
    return "";
  }
}

static void row_activated_cb(GtkListBox *box, GtkListBoxRow *row, gpointer user)
{
  (void)box;
  LwEventList *self = user;
  int k = gtk_list_box_row_get_index(row);
  if (self->adj && k >= 0 && (guint)k < self->times->len)
    gtk_adjustment_set_value(self->adj, g_array_index(self->times, double, k));
}

static GtkWidget *cell(const char *text, int chars, gboolean numeric)
{
  GtkWidget *l = gtk_label_new(text);
  gtk_label_set_xalign(GTK_LABEL(l), numeric ? 1 : 0);
  gtk_label_set_width_chars(GTK_LABEL(l), chars);
  gtk_label_set_ellipsize(GTK_LABEL(l), PANGO_ELLIPSIZE_END);
  if (numeric)
    gtk_widget_add_css_class(l, "numeric");
  return l;
}

void lw_event_list_append(LwEventList *self, const lw_event_record *rec, const char *name, lw_event_type type)
{
  g_return_if_fail(LW_IS_EVENT_LIST(self));
  char t[32], pre[32], post[32];
  g_snprintf(t, sizeof t, "%.6f s", rec->t);
  /* a guard's stop has no normal velocity */
  gboolean normal = type != LW_EVENT_GUARD;
  g_snprintf(pre, sizeof pre, normal ? "%+.4g" : "–", rec->v_pre);
  g_snprintf(post, sizeof post, normal ? "%+.4g" : "–", rec->v_post);
  g_autofree char *what = g_strdup_printf("%s (%s)", name ? name : "?", lw_event_type_label(type));
  GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_margin_start(row, 6);
  gtk_widget_set_margin_end(row, 6);
  gtk_widget_set_margin_top(row, 3);
  gtk_widget_set_margin_bottom(row, 3);
  GtkWidget *cols[5] = {cell(t, 11, TRUE), cell(what, 14, FALSE), cell(lw_event_action_label(rec->action), 9, FALSE),
                        cell(pre, 8, TRUE), cell(post, 8, TRUE)};
  gtk_widget_set_hexpand(cols[1], TRUE);
  for (int i = 0; i < 5; i++)
    gtk_box_append(GTK_BOX(row), cols[i]);
  g_autofree char *tip = normal ? g_strdup_printf(_("%s at t = %.9g s: %s; normal velocity %.6g before, %.6g after "
                                                    "(m/s or rad/s). Click to show the moment."),
                                                  what, rec->t, lw_event_action_label(rec->action), rec->v_pre,
                                                  rec->v_post)
                                 : g_strdup_printf(_("%s at t = %.9g s: %s. Click to show the moment."), what, rec->t,
                                                   lw_event_action_label(rec->action));
  gtk_widget_set_tooltip_text(row, tip);
  gtk_list_box_append(GTK_LIST_BOX(self->list), row);
  g_array_append_val(self->times, rec->t);
}

void lw_event_list_clear(LwEventList *self, gboolean model_has_events)
{
  g_return_if_fail(LW_IS_EVENT_LIST(self));
  GtkListBoxRow *r;
  while ((r = gtk_list_box_get_row_at_index(GTK_LIST_BOX(self->list), 0)))
    gtk_list_box_remove(GTK_LIST_BOX(self->list), GTK_WIDGET(r));
  g_array_set_size(self->times, 0);
  gtk_label_set_text(GTK_LABEL(self->placeholder), model_has_events ? _("No event yet: run the simulation")
                                                                    : _("The model has no events (contacts, joint "
                                                                        "limits or guards)"));
}

guint lw_event_list_get_n_rows(LwEventList *self)
{
  g_return_val_if_fail(LW_IS_EVENT_LIST(self), 0);
  return self->times->len;
}

GtkWidget *lw_event_list_get_row(LwEventList *self, guint k)
{
  g_return_val_if_fail(LW_IS_EVENT_LIST(self), NULL);
  return k < self->times->len ? GTK_WIDGET(gtk_list_box_get_row_at_index(GTK_LIST_BOX(self->list), (int)k)) : NULL;
}

double lw_event_list_get_row_time(LwEventList *self, guint k)
{
  g_return_val_if_fail(LW_IS_EVENT_LIST(self), 0);
  return k < self->times->len ? g_array_index(self->times, double, k) : 0;
}

char *lw_event_list_dup_row_text(LwEventList *self, guint k)
{
  GtkWidget *row = lw_event_list_get_row(self, k);
  if (!row)
    return NULL;
  GString *s = g_string_new(NULL);
  GtkWidget *box = gtk_list_box_row_get_child(GTK_LIST_BOX_ROW(row));
  for (GtkWidget *c = gtk_widget_get_first_child(box); c; c = gtk_widget_get_next_sibling(c))
    g_string_append_printf(s, "%s%s", s->len ? " | " : "", gtk_label_get_text(GTK_LABEL(c)));
  return g_string_free(s, FALSE);
}

void lw_event_list_set_adjustment(LwEventList *self, GtkAdjustment *adj)
{
  g_return_if_fail(LW_IS_EVENT_LIST(self));
  g_set_object(&self->adj, adj);
}

GtkWidget *lw_event_list_new(void)
{
  return g_object_new(LW_TYPE_EVENT_LIST, NULL);
}

static void lw_event_list_dispose(GObject *object)
{
  LwEventList *self = LW_EVENT_LIST(object);
  g_clear_pointer(&self->box, gtk_widget_unparent);
  g_clear_object(&self->adj);
  G_OBJECT_CLASS(lw_event_list_parent_class)->dispose(object);
}

static void lw_event_list_finalize(GObject *object)
{
  LwEventList *self = LW_EVENT_LIST(object);
  g_array_unref(self->times);
  G_OBJECT_CLASS(lw_event_list_parent_class)->finalize(object);
}

static void lw_event_list_class_init(LwEventListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  object_class->dispose = lw_event_list_dispose;
  object_class->finalize = lw_event_list_finalize;
  gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
}

/* the column heads, aligned with the rows' cells */
static GtkWidget *header_new(void)
{
  GtkWidget *h = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_margin_start(h, 12);
  gtk_widget_set_margin_end(h, 12);
  GtkWidget *cols[5] = {cell(_("Time"), 11, TRUE), cell(_("Event"), 14, FALSE), cell(_("What"), 9, FALSE),
                        cell(_("v before"), 8, TRUE), cell(_("v after"), 8, TRUE)};
  gtk_widget_set_hexpand(cols[1], TRUE);
  for (int i = 0; i < 5; i++) {
    gtk_widget_add_css_class(cols[i], "heading");
    gtk_box_append(GTK_BOX(h), cols[i]);
  }
  return h;
}

static void lw_event_list_init(LwEventList *self)
{
  self->times = g_array_new(FALSE, FALSE, sizeof(double));
  self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_parent(self->box, GTK_WIDGET(self));
  self->title = gtk_label_new(_("Events of the run: a click shows the moment"));
  gtk_widget_add_css_class(self->title, "dim-label");
  gtk_label_set_wrap(GTK_LABEL(self->title), TRUE);
  gtk_box_append(GTK_BOX(self->box), self->title);
  gtk_box_append(GTK_BOX(self->box), header_new());
  self->list = gtk_list_box_new();
  gtk_list_box_set_selection_mode(GTK_LIST_BOX(self->list), GTK_SELECTION_SINGLE);
  gtk_list_box_set_activate_on_single_click(GTK_LIST_BOX(self->list), TRUE);
  gtk_widget_add_css_class(self->list, "boxed-list");
  gtk_widget_set_margin_start(self->list, 6);
  gtk_widget_set_margin_end(self->list, 6);
  gtk_widget_set_valign(self->list, GTK_ALIGN_START);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self->list), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Event log"), -1);
  self->placeholder = gtk_label_new(NULL);
  gtk_widget_add_css_class(self->placeholder, "dim-label");
  gtk_widget_set_margin_top(self->placeholder, 12);
  gtk_widget_set_margin_bottom(self->placeholder, 12);
  gtk_list_box_set_placeholder(GTK_LIST_BOX(self->list), self->placeholder);
  g_signal_connect(self->list, "row-activated", G_CALLBACK(row_activated_cb), self);
  self->scroller = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_vexpand(self->scroller, TRUE);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroller), self->list);
  gtk_box_append(GTK_BOX(self->box), self->scroller);
  lw_event_list_clear(self, FALSE);
}
