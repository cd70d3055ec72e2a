/* lw-window-dnd.c: model files dropped on the main window.
 *
 * The first file opens in this window, through the same question as Open
 * when the model has unsaved changes; further files dropped with it open
 * in windows of their own, as files given on the command line do. */
#include "lw-window-private.h"

static gboolean drop_cb(GtkDropTarget *target, const GValue *value, double x, double y, gpointer user)
{
  (void)target, (void)x, (void)y;
  LwWindow *self = user;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_object_unref);
  if (G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST)) {
    for (GSList *l = g_value_get_boxed(value); l; l = l->next)
      g_ptr_array_add(files, g_object_ref(l->data));
  } else if (G_VALUE_HOLDS(value, G_TYPE_FILE) && g_value_get_object(value)) {
    g_ptr_array_add(files, g_value_dup_object(value));
  }
  if (files->len == 0)
    return FALSE;
  if (files->len > 1) {
    GApplication *app = G_APPLICATION(gtk_window_get_application(GTK_WINDOW(self)));
    if (app)
      g_application_open(app, (GFile **)files->pdata + 1, (int)files->len - 1, "");
  }
  _lw_window_open_file_confirmed(self, g_ptr_array_index(files, 0));
  return TRUE;
}

void _lw_window_dnd_init(LwWindow *self)
{
  GtkDropTarget *target = gtk_drop_target_new(G_TYPE_INVALID, GDK_ACTION_COPY);
  GType types[] = {GDK_TYPE_FILE_LIST, G_TYPE_FILE};
  gtk_drop_target_set_gtypes(target, types, G_N_ELEMENTS(types));
  g_signal_connect(target, "drop", G_CALLBACK(drop_cb), self);
  gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(target));
}
