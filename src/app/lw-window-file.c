/* lw-window-file.c: the main window's documents.
 *
 * Open, save and save-as with their file choosers, exporting the plots,
 * the Recent menu, the examples dialog, New, and offering to recover an
 * autosaved model.  Replacing the document always goes through
 * lw_window_confirm_replace, which asks Save / Discard / Cancel before
 * unsaved changes are dropped. */
#include "lw-window-private.h"
#include "lw-mesh-file.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lw-autosave.h"
#include "lw-editor.h"
#include "lw-plot-view.h"
#include "lw-template-dialog.h"

/* The Recent menu lists the files this application opened or saved, in
 * this group: a file chooser adds every file chosen to the user's recent
 * list (GTK does, on accepting), also one that then fails to open. */
#define RECENT_GROUP "Linkwright"

static void add_recent(GFile *file)
{
  g_autofree char *uri = g_file_get_uri(file);
  if (!g_str_has_prefix(uri, "file:"))
    return;
  const char *groups[] = {RECENT_GROUP, NULL};
  GtkRecentData data = {
    .mime_type = (char *)"application/json",
    .app_name = (char *)g_get_application_name(),
    .app_exec = (char *)"linkwright %u",
    .groups = (char **)groups,
  };
  gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data);
}

/* the mesh files a model names that cannot be found, one a line (NULL: none) */
static char *missing_meshes(const lw_desc *d)
{
  GString *s = g_string_new(NULL);
  for (int b = 0; b < d->nbodies; b++)
    for (int k = 0; k < d->bodies[b].ngeoms; k++) {
      const lw_geom_desc *g = &d->bodies[b].geoms[k];
      if (g->type != LW_GEOM_MESH || !g->mesh)
        continue;
      g_autofree char *path = lw_mesh_file_resolve(g->mesh, d->source_dir, NULL);
      if (!g_file_test(path, G_FILE_TEST_EXISTS) && !strstr(s->str, g->mesh))
        g_string_append_printf(s, "%s%s", s->len ? ", " : "", g->mesh);
    }
  return g_string_free(s, s->len == 0);
}

/* A URDF robot description or a MuJoCo model: imported into a new document
 * without a file (Save asks where; the original is never overwritten),
 * what was not imported said. */
static gboolean import_file(LwWindow *self, const char *path, const char *name)
{
  lw_error err;
  g_autofree char *notes = NULL;
  lw_model_format fmt;
  lw_desc *desc = lw_model_import_file(path, &fmt, &notes, NULL, &err);
  if (!desc) {
    g_autofree char *msg = g_strdup_printf(_("%s The current model is kept."), err.msg);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  g_autofree char *base = g_path_get_basename(path);
  g_autofree char *display = g_strdup_printf(_("%s (imported)"), base);
  if (!_lw_window_install_model(self, desc, NULL, display, NULL, &err)) {
    lw_desc_free(desc);
    g_autofree char *msg = g_strdup_printf(_("%s The current model is kept."), err.msg);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  (void)name;
  self->modified = TRUE;
  self->doc_id = _lw_window_next_doc_id();
  g_ptr_array_set_size(self->undo, 0);
  g_ptr_array_set_size(self->redo, 0);
  _lw_window_refresh_editing(self);
  _lw_window_update_actions(self);
  _lw_window_update_subtitle(self);
  g_autofree char *meshes = missing_meshes(self->desc);
  GString *msg = g_string_new(NULL);
  g_string_printf(msg, _("Imported from %s (%s): %d bodies, %d joints."), base, fmt == LW_FORMAT_URDF ? "URDF" : "MJCF",
                  self->desc->nbodies, self->desc->njoints);
  if (meshes)
    g_string_append_printf(msg, _(" Mesh files not found, drawn as boxes: %s."), meshes);
  if (notes) {
    g_autofree char *one = g_strdelimit(g_strdup(notes), "\n", ';');
    g_string_append_printf(msg, _(" Import notes: %s"), one);
  }
  _lw_window_show_message(self, msg->str);
  g_string_free(msg, TRUE);
  return TRUE;
}

static gboolean open_file_impl(LwWindow *self, GFile *file, gboolean user_file)
{
  g_autofree char *local = g_file_get_path(file);
  if (local) {
    lw_model_format f = lw_model_sniff(local);
    if (f == LW_FORMAT_URDF || f == LW_FORMAT_MJCF) {
      g_autofree char *pname = g_file_get_parse_name(file);
      gboolean ok = import_file(self, local, pname);
      if (ok && user_file)
        add_recent(file);
      return ok;
    }
  }
  g_autofree char *name = NULL;
  if (g_file_has_uri_scheme(file, "resource")) {
    g_autofree char *base = g_file_get_basename(file);
    name = g_strdup(base);
  } else
    name = g_file_get_parse_name(file);
  g_autoptr(GError) gerr = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  if (!g_file_load_contents(file, NULL, &data, &len, NULL, &gerr)) {
    g_autofree char *msg = g_strdup_printf(_("Cannot open %s: %s. The current model is kept."), name, gerr->message);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  lw_error err;
  LwSourceMap *map = NULL;
  lw_desc *desc = lw_model_read_data(data, (gssize)len, name, &map, &err);
  if (!desc) {
    g_autofree char *msg = g_strdup_printf(_("%s The current model is kept."), err.msg);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  if (local) { /* files the model names (meshes) are found beside it */
    g_autofree char *dir = g_path_get_dirname(local);
    desc->source_dir = g_strdup(dir);
  }
  gboolean ok = _lw_window_install_model(self, desc, user_file ? file : NULL, name, map, &err);
  lw_source_map_free(map);
  if (!ok) {
    lw_desc_free(desc);
    g_autofree char *msg = g_strdup_printf(_("%s The current model is kept."), err.msg);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  if (user_file)
    add_recent(file);
  self->modified = FALSE;
  self->doc_id = _lw_window_next_doc_id();
  g_ptr_array_set_size(self->undo, 0);
  g_ptr_array_set_size(self->redo, 0);
  _lw_window_refresh_editing(self);
  _lw_window_update_actions(self);
  return TRUE;
}

gboolean lw_window_open_file(LwWindow *self, GFile *file)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_return_val_if_fail(G_IS_FILE(file), FALSE);
  return open_file_impl(self, file, !g_file_has_uri_scheme(file, "resource"));
}

void lw_window_open_builtin(LwWindow *self)
{
  g_autoptr(GFile) f = g_file_new_for_uri(BUILTIN_MODEL);
  open_file_impl(self, f, FALSE);
}

void lw_window_open_builtin_keep_message(LwWindow *self)
{
  g_autofree char *msg = g_strdup(self->message);
  if (!self->runner)
    lw_window_open_builtin(self);
  if (msg)
    _lw_window_show_message(self, msg);
}

gboolean lw_window_open_example(LwWindow *self, const char *name)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_autofree char *uri = g_strdup_printf("resource:///io/github/linkwright/Linkwright/models/%s.json", name);
  g_autoptr(GFile) f = g_file_new_for_uri(uri);
  return open_file_impl(self, f, FALSE);
}

/* a new document without a file, named display_name; undoable like any
 * edit: the model before it stays on the undo stack */
static void begin_new_document(LwWindow *self, const char *display_name)
{
  if (self->desc)
    _lw_window_push_current(self, self->undo);
  g_ptr_array_set_size(self->redo, 0);
  self->doc_id = _lw_window_next_doc_id();
  g_clear_object(&self->file);
  g_free(self->display_name);
  self->display_name = g_strdup(display_name);
}

static void new_document(LwWindow *self, gboolean planar)
{
  begin_new_document(self, _("Untitled"));
  _lw_window_set_document(self, lw_editor_new_document(planar), FALSE);
  adw_window_title_set_title(self->window_title, _("Untitled"));
  if (!self->editing)
    g_action_group_change_action_state(G_ACTION_GROUP(self), "edit-mode", g_variant_new_boolean(TRUE));
  _lw_window_frame_drawing_area(self);
  _lw_window_write_autosave(self);
  _lw_window_update_actions(self);
}

static void new_planar_then(LwWindow *self, gpointer data)
{
  (void)data;
  new_document(self, TRUE);
}

static void new_spatial_then(LwWindow *self, gpointer data)
{
  (void)data;
  new_document(self, FALSE);
}

void _lw_window_new_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  lw_window_confirm_replace(user, _("Starting a new model"), new_planar_then, NULL, NULL);
}

void _lw_window_new_spatial_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  lw_window_confirm_replace(user, _("Starting a new model"), new_spatial_then, NULL, NULL);
}

/* a replacement of the document waiting for the user's answer */
typedef struct {
  LwWindow *self; /* a reference */
  LwWindowReplaceFunc fn;
  gpointer data;
  GDestroyNotify destroy;
} Replace;

static void replace_free(Replace *r)
{
  if (r->destroy)
    r->destroy(r->data);
  g_object_unref(r->self);
  g_free(r);
}

static void replace_run(Replace *r)
{
  r->fn(r->self, r->data);
  replace_free(r);
}

/* open / save / export dialogs: one native chooser, the choice handed to fn */
typedef void (*FileChosenFn)(LwWindow *self, GFile *file, gboolean csv);

typedef struct {
  LwWindow *self;
  FileChosenFn fn;
  gboolean csv;
  Replace *then; /* Save As before a replacement: run once saved */
} FileDialog;

static void file_dialog_response_cb(GtkNativeDialog *dialog, int response, gpointer user)
{
  FileDialog *fd = user;
  if (response == GTK_RESPONSE_ACCEPT) {
    g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
    fd->fn(fd->self, file, fd->csv);
  }
  if (fd->then) {
    /* saved (nothing unsaved left): go on; cancelled or failed: keep all */
    if (response == GTK_RESPONSE_ACCEPT && !fd->self->modified)
      replace_run(fd->then);
    else
      replace_free(fd->then);
  }
  g_free(fd);
  g_object_unref(dialog);
}

/* filters: NULL-terminated pairs of name and pattern */
static FileDialog *file_dialog(LwWindow *self, const char *title, GtkFileChooserAction action, const char *accept,
                               const char *suggest, const char *const *filters, FileChosenFn fn, gboolean csv)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new(title, GTK_WINDOW(self), action, accept, _("_Cancel"));
  if (suggest)
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(native), suggest);
  for (int i = 0; filters && filters[i]; i += 2) {
    g_autoptr(GtkFileFilter) f = gtk_file_filter_new();
    gtk_file_filter_set_name(f, filters[i]);
    /* several patterns separated by ';' */
    g_auto(GStrv) pats = g_strsplit(filters[i + 1], ";", -1);
    for (char **pt = pats; *pt; pt++)
      gtk_file_filter_add_pattern(f, *pt);
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(native), f);
  }
  FileDialog *fd = g_new(FileDialog, 1);
  *fd = (FileDialog){self, fn, csv, NULL};
  g_signal_connect(native, "response", G_CALLBACK(file_dialog_response_cb), fd);
  gtk_native_dialog_show(GTK_NATIVE_DIALOG(native));
  return fd;
}

static void open_file_then(LwWindow *self, gpointer file)
{
  lw_window_open_file(self, file);
}

/* asks first when the model has unsaved changes */
void _lw_window_open_file_confirmed(LwWindow *self, GFile *file)
{
  lw_window_confirm_replace(self, _("Opening another model"), open_file_then, g_object_ref(file), g_object_unref);
}

static void open_chosen(LwWindow *self, GFile *file, gboolean csv)
{
  (void)csv;
  _lw_window_open_file_confirmed(self, file);
}

void _lw_window_open_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  const char *const filters[] = {_("Models and robot descriptions"), "*.json;*.urdf;*.xml", _("Linkwright models"),
                                 "*.json", _("Robot descriptions (URDF, MuJoCo)"), "*.urdf;*.xml", _("All files"), "*",
                                 NULL};
  file_dialog(user, _("Open Model"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL, filters, open_chosen, FALSE);
}

/* Save the model to file; FALSE with the message shown when it failed */
static gboolean save_file(LwWindow *self, GFile *file)
{
  g_autofree char *path = g_file_get_path(file);
  g_autoptr(GError) error = NULL;
  if (!path || !lw_model_write_file(self->desc, path, &error)) {
    g_autofree char *msg = g_strdup_printf(_("Cannot save %s: %s"), path ? path : "?",
                                           error ? error->message : _("not a local file"));
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  g_set_object(&self->file, file);
  g_free(self->display_name);
  self->display_name = g_file_get_parse_name(file);
  self->modified = FALSE;
  _lw_window_rename_undo_entries(self);
  /* saved: nothing to recover; the next change autosaves to a new file
   * under a new lock */
  lw_autosave_remove(self->autosave_path);
  g_clear_pointer(&self->autosave_path, g_free);
  adw_window_title_set_subtitle(self->window_title, self->display_name);
  add_recent(file);
  g_autofree char *msg = g_strdup_printf(_("Saved %s"), self->display_name);
  _lw_window_toast(self, msg);
  return TRUE;
}

static void save_to(LwWindow *self, GFile *file, gboolean csv)
{
  (void)csv;
  save_file(self, file);
}

/* Save As; then (may be NULL) runs once the model is saved */
static void save_as_dialog(LwWindow *self, Replace *then)
{
  g_autofree char *suggest = g_strdup_printf("%s.json", self->desc->name && *self->desc->name ? self->desc->name : "model");
  const char *const filters[] = {_("Linkwright models"), "*.json", NULL};
  FileDialog *fd = file_dialog(self, _("Save Model"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), suggest, filters,
                               save_to, FALSE);
  fd->then = then;
}

void _lw_window_save_as_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  if (!self->desc)
    return;
  save_as_dialog(self, NULL);
}

/* ---- replacing the document: never without asking ------------------------------ */
/* the dialog's Save: to the file, or Save As; r goes on only once saved */
static void save_then(LwWindow *self, Replace *r)
{
  if (!self->file) {
    save_as_dialog(self, r);
    return;
  }
  if (save_file(self, self->file))
    replace_run(r);
  else
    replace_free(r); /* the reason is shown; the model and its changes stay */
}

static void confirm_response_cb(AdwMessageDialog *dialog, const char *response, gpointer user)
{
  LwWindow *self = user;
  Replace *r = g_object_steal_data(G_OBJECT(dialog), "replace");
  if (self->confirm_dialog == dialog) {
    g_object_remove_weak_pointer(G_OBJECT(dialog), (gpointer *)&self->confirm_dialog);
    self->confirm_dialog = NULL;
  }
  if (!r)
    return;
  /* answered: the question goes, however the answer came (a button closes
   * its dialog, a response given otherwise does not) */
  /* destroyed here, before the answer is carried out (which may close the
   * window it belongs to): the emission holds the dialog until it returns,
   * and a second destroy by the dialog's own button does nothing */
  gtk_window_destroy(GTK_WINDOW(dialog));
  if (!g_strcmp0(response, "discard"))
    replace_run(r);
  else if (!g_strcmp0(response, "save"))
    save_then(self, r);
  else
    replace_free(r);
}

void lw_window_confirm_replace(LwWindow *self, const char *what, LwWindowReplaceFunc fn, gpointer data,
                               GDestroyNotify destroy)
{
  g_return_if_fail(LW_IS_WINDOW(self));
  g_return_if_fail(fn != NULL);
  Replace *r = g_new(Replace, 1);
  *r = (Replace){g_object_ref(self), fn, data, destroy};
  if (!self->modified) {
    replace_run(r);
    return;
  }
  if (self->confirm_dialog) {
    /* one question at a time: the one asked stands */
    gtk_window_present(GTK_WINDOW(self->confirm_dialog));
    replace_free(r);
    return;
  }
  GtkWidget *dialog = adw_message_dialog_new(GTK_WINDOW(self), _("Save changes?"), NULL);
  const char *name = self->desc && self->desc->name && *self->desc->name ? self->desc->name : self->display_name;
  /* TRANSLATORS: the second %s is an action, e.g. "Opening another model" */
  adw_message_dialog_format_body(ADW_MESSAGE_DIALOG(dialog),
                                 _("“%s” has changes that are not saved. %s discards them unless they are saved "
                                   "first."),
                                 name ? name : _("Untitled"), what);
  adw_message_dialog_add_responses(ADW_MESSAGE_DIALOG(dialog), "cancel", _("_Cancel"), "discard", _("_Discard"),
                                   "save", self->file ? _("_Save") : _("_Save As…"), NULL);
  adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response(ADW_MESSAGE_DIALOG(dialog), "save");
  adw_message_dialog_set_close_response(ADW_MESSAGE_DIALOG(dialog), "cancel");
  /* freed with the dialog unless a response takes it */
  g_object_set_data_full(G_OBJECT(dialog), "replace", r, (GDestroyNotify)replace_free);
  g_signal_connect(dialog, "response", G_CALLBACK(confirm_response_cb), self);
  self->confirm_dialog = ADW_MESSAGE_DIALOG(dialog);
  g_object_add_weak_pointer(G_OBJECT(dialog), (gpointer *)&self->confirm_dialog);
  gtk_window_present(GTK_WINDOW(dialog));
}

void _lw_window_save_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  LwWindow *self = user;
  if (self->file)
    save_to(self, self->file, FALSE);
  else
    _lw_window_save_as_cb(a, p, user);
}

gboolean lw_window_export_plot_to(LwWindow *self, GFile *file, gboolean csv)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_return_val_if_fail(G_IS_FILE(file), FALSE);
  g_autofree char *path = g_file_get_path(file);
  if (!path) {
    /* a location without a local path (a remote share not mounted through
     * FUSE): the plot is written with stdio and cannot go there */
    g_autofree char *uri = g_file_get_uri(file);
    g_autofree char *msg = g_strdup_printf(_("Cannot export to “%s”: choose a folder on this computer"), uri);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  g_autoptr(GError) error = NULL;
  GtkWidget *view = lw_plot_page_get_current_view(self->plot_page);
  LwPlot *plot = lw_plot_view_get_plot(LW_PLOT_VIEW(view));
  int w = MAX(gtk_widget_get_width(view), 640), h = MAX(gtk_widget_get_height(view), 400);
  gboolean ok = csv ? lw_plot_export_csv(plot, path, &error) : lw_plot_export(plot, path, w, h, &error);
  if (!ok) {
    g_autofree char *msg = g_strdup_printf(_("Cannot export to “%s”"), path);
    _lw_window_show_message(self, error ? error->message : msg);
  } else {
    g_autofree char *msg = g_strdup_printf(_("Exported %s"), path);
    _lw_window_toast(self, msg);
  }
  return ok;
}

static void export_chosen(LwWindow *self, GFile *file, gboolean csv)
{
  lw_window_export_plot_to(self, file, csv);
}

void _lw_window_export_plot_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  const char *const filters[] = {"PNG", "*.png", "SVG", "*.svg", "PDF", "*.pdf", NULL};
  file_dialog(user, _("Export Plot"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), "plot.png", filters,
              export_chosen, FALSE);
}

void _lw_window_export_csv_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  const char *const filters[] = {_("CSV (comma-separated values)"), "*.csv", NULL};
  file_dialog(user, _("Export Plot Data"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), "plot.csv", filters,
              export_chosen, TRUE);
}

/* recent files: the menu section and Ctrl+1..5 */
static int recent_cmp(gconstpointer a, gconstpointer b)
{
  GDateTime *x = gtk_recent_info_get_modified((GtkRecentInfo *)a), *y = gtk_recent_info_get_modified((GtkRecentInfo *)b);
  return g_date_time_compare(y, x);
}

static GList *recent_sorted(void)
{
  GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default()), *out = NULL;
  for (GList *l = items; l; l = l->next) {
    GtkRecentInfo *info = l->data;
    /* the models this application opened or saved that are still there
     * (other programs' files, and those the file chooser added, are not
     * in the group) */
    if (g_str_has_suffix(gtk_recent_info_get_uri(info), ".json") && gtk_recent_info_has_group(info, RECENT_GROUP) &&
        gtk_recent_info_exists(info))
      out = g_list_prepend(out, gtk_recent_info_ref(info));
  }
  g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
  return g_list_sort(out, recent_cmp);
}

void _lw_window_rebuild_recent_menu(LwWindow *self)
{
  g_menu_remove_all(self->recent_section);
  GList *items = recent_sorted();
  int k = 0;
  for (GList *l = items; l && k < 5; l = l->next, k++) {
    GtkRecentInfo *info = l->data;
    g_autofree char *action = g_strdup_printf("win.open-recent(%d)", k);
    g_menu_append(self->recent_section, gtk_recent_info_get_display_name(info), action);
  }
  g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
}

void _lw_window_open_recent_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  LwWindow *self = user;
  int k = g_variant_get_int32(p);
  GList *items = recent_sorted();
  GtkRecentInfo *info = g_list_nth_data(items, (guint)k);
  if (info) {
    g_autoptr(GFile) f = g_file_new_for_uri(gtk_recent_info_get_uri(info));
    _lw_window_open_file_confirmed(self, f);
  } else
    _lw_window_toast(self, _("No such recent model"));
  g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
}

void _lw_window_recent_changed_cb(GtkRecentManager *rm, gpointer user)
{
  (void)rm;
  _lw_window_rebuild_recent_menu(user);
}

/* examples gallery: every model shipped in the resource */
static void open_example_then(LwWindow *self, gpointer name)
{
  lw_window_open_example(self, name);
}

static void example_activated_cb(GtkListBox *box, GtkListBoxRow *row, gpointer user)
{
  LwWindow *self = user;
  char *name = g_strdup(g_object_get_data(G_OBJECT(row), "example"));
  /* the gallery goes first: the question, if any, is the window's */
  gtk_window_destroy(GTK_WINDOW(gtk_widget_get_root(GTK_WIDGET(box))));
  lw_window_confirm_replace(self, _("Opening an example"), open_example_then, name, g_free);
}

void _lw_window_examples_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  GtkWidget *win = adw_window_new();
  gtk_window_set_title(GTK_WINDOW(win), _("Examples"));
  gtk_window_set_transient_for(GTK_WINDOW(win), GTK_WINDOW(self));
  gtk_window_set_modal(GTK_WINDOW(win), TRUE);
  gtk_window_set_default_size(GTK_WINDOW(win), 520, 560);
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append(GTK_BOX(box), adw_header_bar_new());
  GtkWidget *scroller = gtk_scrolled_window_new();
  gtk_widget_set_vexpand(scroller, TRUE);
  GtkWidget *list = gtk_list_box_new();
  gtk_widget_add_css_class(list, "boxed-list");
  gtk_widget_set_margin_start(list, 18);
  gtk_widget_set_margin_end(list, 18);
  gtk_widget_set_margin_top(list, 18);
  gtk_widget_set_margin_bottom(list, 18);
  gtk_widget_set_valign(list, GTK_ALIGN_START);
  gtk_accessible_update_property(GTK_ACCESSIBLE(list), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Examples"), -1);
  char **names = g_resources_enumerate_children("/io/github/linkwright/Linkwright/models", 0, NULL);
  for (int i = 0; names && names[i]; i++) {
    if (!g_str_has_suffix(names[i], ".json"))
      continue;
    g_autofree char *stem = g_strndup(names[i], strlen(names[i]) - 5);
    g_autofree char *uri = g_strdup_printf("resource:///io/github/linkwright/Linkwright/models/%s", names[i]);
    g_autoptr(GFile) f = g_file_new_for_uri(uri);
    g_autofree char *data = NULL;
    gsize len;
    lw_error err;
    lw_desc *d = g_file_load_contents(f, NULL, &data, &len, NULL, NULL)
                     ? lw_model_read_data(data, (gssize)len, names[i], NULL, &err)
                     : NULL;
    GtkWidget *row = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), d && d->name ? d->name : stem);
    adw_preferences_row_set_use_markup(ADW_PREFERENCES_ROW(row), FALSE);
    if (d && d->description)
      adw_action_row_set_subtitle(ADW_ACTION_ROW(row), d->description);
    adw_action_row_set_subtitle_lines(ADW_ACTION_ROW(row), 3);
    gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), TRUE);
    adw_action_row_add_suffix(ADW_ACTION_ROW(row), gtk_image_new_from_icon_name("go-next-symbolic"));
    g_object_set_data_full(G_OBJECT(row), "example", g_strdup(stem), g_free);
    gtk_list_box_append(GTK_LIST_BOX(list), row);
    lw_desc_free(d);
  }
  g_strfreev(names);
  g_signal_connect(list, "row-activated", G_CALLBACK(example_activated_cb), self);
  GtkWidget *content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append(GTK_BOX(content), lw_template_gallery_new(self));
  gtk_box_append(GTK_BOX(content), list);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), content);
  gtk_box_append(GTK_BOX(box), scroller);
  adw_window_set_content(ADW_WINDOW(win), box);
  gtk_window_present(GTK_WINDOW(win));
}

static gboolean open_document_now(LwWindow *self, lw_desc *desc, const char *display_name)
{
  begin_new_document(self, display_name);
  gboolean runnable = _lw_window_set_document(self, desc, TRUE);
  _lw_window_write_autosave(self);
  _lw_window_update_actions(self);
  return runnable;
}

/* a document waiting for the answer to "Save changes?" */
typedef struct {
  lw_desc *desc;
  char *display_name;
} PendingDocument;

static void pending_document_free(gpointer p)
{
  PendingDocument *pd = p;
  lw_desc_free(pd->desc);
  g_free(pd->display_name);
  g_free(pd);
}

static void open_document_then(LwWindow *self, gpointer p)
{
  PendingDocument *pd = p;
  open_document_now(self, g_steal_pointer(&pd->desc), pd->display_name);
}

gboolean lw_window_open_document(LwWindow *self, lw_desc *desc, const char *display_name)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_return_val_if_fail(desc != NULL, FALSE);
  if (!self->modified)
    return open_document_now(self, desc, display_name);
  PendingDocument *pd = g_new(PendingDocument, 1);
  *pd = (PendingDocument){desc, g_strdup(display_name)};
  lw_window_confirm_replace(self, _("Opening the new model"), open_document_then, pd, pending_document_free);
  return FALSE;
}

const char *lw_window_get_autosave_path(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  lw_autosave_flush(); /* the file as of the last change */
  return self->autosave_path;
}

gboolean lw_window_recover_file(LwWindow *self, const char *path)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr(GError) gerr = NULL;
  if (!g_file_get_contents(path, &data, &len, &gerr)) {
    g_autofree char *msg = g_strdup_printf(_("Cannot read the recovered model: %s"), gerr->message);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  lw_error err;
  lw_desc *d = lw_model_read_data(data, (gssize)len, path, NULL, &err);
  if (!d) {
    g_autofree char *msg = g_strdup_printf(_("The recovered model cannot be read: %s"), err.msg);
    _lw_window_show_message(self, msg);
    return FALSE;
  }
  if (self->desc)
    _lw_window_push_current(self, self->undo);
  g_ptr_array_set_size(self->redo, 0);
  self->doc_id = _lw_window_next_doc_id();
  /* the file it was edited from, when the autosave names it: Save writes
   * there again */
  g_autofree char *uri = NULL, *name = NULL;
  lw_autosave_read_origin(path, &uri, &name);
  g_clear_object(&self->file);
  if (uri)
    self->file = g_file_new_for_uri(uri);
  g_free(self->display_name);
  self->display_name = name && *name ? g_steal_pointer(&name) : g_strdup(_("Recovered model"));
  _lw_window_set_document(self, d, TRUE);
  lw_view3d_reset_camera(LW_VIEW3D(self->view));
  /* this window's own autosave takes over */
  _lw_window_write_autosave(self);
  lw_autosave_remove(path);
  if (!self->editing)
    g_action_group_change_action_state(G_ACTION_GROUP(self), "edit-mode", g_variant_new_boolean(TRUE));
  _lw_window_toast(self, _("The unsaved model is back: save it to keep it"));
  return TRUE;
}

static void recover_then(LwWindow *self, gpointer path)
{
  lw_window_recover_file(self, path);
}

static void recovery_response_cb(AdwMessageDialog *dialog, const char *response, gpointer user)
{
  LwWindow *self = user;
  if (!g_strcmp0(response, "recover"))
    lw_window_confirm_replace(self, _("Recovering the unsaved model"), recover_then, g_strdup(self->recovery_path),
                              g_free);
  else if (!g_strcmp0(response, "discard"))
    lw_autosave_remove(self->recovery_path);
  g_clear_pointer(&self->recovery_path, g_free);
  if (self->recovery_dialog == dialog)
    self->recovery_dialog = NULL;
}

gboolean lw_window_offer_recovery(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  g_autofree char *path = lw_autosave_find_orphan();
  if (!path)
    return FALSE;
  g_free(self->recovery_path);
  self->recovery_path = g_strdup(path);
  GtkWidget *dialog = adw_message_dialog_new(GTK_WINDOW(self), _("Recover the unsaved model?"), NULL);
  g_autofree char *when = NULL;
  GStatBuf st;
  if (g_stat(path, &st) == 0) {
    g_autoptr(GDateTime) t = g_date_time_new_from_unix_local((gint64)st.st_mtime);
    when = g_date_time_format(t, "%x %X");
  }
  adw_message_dialog_format_body(ADW_MESSAGE_DIALOG(dialog),
                                 _("Linkwright stopped without saving a model that was being edited (last change: "
                                   "%s)."),
                                 when ? when : "?");
  adw_message_dialog_add_responses(ADW_MESSAGE_DIALOG(dialog), "later", _("_Later"), "discard", _("_Discard"),
                                   "recover", _("_Recover"), NULL);
  adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance(ADW_MESSAGE_DIALOG(dialog), "recover", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response(ADW_MESSAGE_DIALOG(dialog), "recover");
  adw_message_dialog_set_close_response(ADW_MESSAGE_DIALOG(dialog), "later");
  g_signal_connect(dialog, "response", G_CALLBACK(recovery_response_cb), self);
  self->recovery_dialog = ADW_MESSAGE_DIALOG(dialog);
  gtk_window_present(GTK_WINDOW(dialog));
  return TRUE;
}

GtkWidget *lw_window_get_recovery_dialog(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), NULL);
  return self->recovery_dialog ? GTK_WIDGET(self->recovery_dialog) : NULL;
}

gboolean lw_window_save_to_file(LwWindow *self, GFile *file)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), FALSE);
  save_to(self, file, FALSE);
  return !self->modified && self->file && g_file_equal(self->file, file);
}
