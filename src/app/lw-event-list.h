/* lw-event-list.h: the event log of a run as a list: one row per event
 * (time, event, what happened, normal velocity before and after); a click
 * on a row moves the time adjustment given (the window's scrubber) to the
 * event's time. */
#pragma once

#include <gtk/gtk.h>

#include "linkwright.h"

G_BEGIN_DECLS

#define LW_TYPE_EVENT_LIST (lw_event_list_get_type())
G_DECLARE_FINAL_TYPE(LwEventList, lw_event_list, LW, EVENT_LIST, GtkWidget)

GtkWidget *lw_event_list_new(void);
/* The adjustment a click on a row sets (NULL: none). */
void lw_event_list_set_adjustment(LwEventList *self, GtkAdjustment *adj);
/* No rows; the placeholder says whether the model has events at all. */
void lw_event_list_clear(LwEventList *self, gboolean model_has_events);
/* A row for rec; name is the event's name in the model, type its type. */
void lw_event_list_append(LwEventList *self, const lw_event_record *rec, const char *name, lw_event_type type);
guint lw_event_list_get_n_rows(LwEventList *self);
/* Row k (a GtkListBoxRow; NULL past the end), its time, and its text as
 * shown (the columns joined by " | "). */
GtkWidget *lw_event_list_get_row(LwEventList *self, guint k);
double lw_event_list_get_row_time(LwEventList *self, guint k);
char *lw_event_list_dup_row_text(LwEventList *self, guint k);

/* The translated names of an event's type and of what it did. */
const char *lw_event_type_label(lw_event_type type);
const char *lw_event_action_label(lw_event_action action);

G_END_DECLS
