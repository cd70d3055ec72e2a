/* The window's document: nothing the user has not saved is dropped without
 * a question (Save / Discard / Cancel before New, Open, Open Recent, an
 * example, a recovered model, closing), undoing New gives back the file,
 * autosaves keep their lock and the model's file, and the small things a
 * user sees: the time scale of a new model, the Recent menu after a failed
 * open, the status of a redundant model, the width going to the 3-D view,
 * a Replay button unlike Run.  Needs a display (the test command starts
 * Xvfb); autosaves and the recent list go to a private directory. */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lw-application.h"
#include "lw-autosave.h"
#include "lw-window.h"
#include "lw_io.h"

static LwApplication *app;
static char *tmp_dir;

/* ---- helpers (shared ones in lw-app-test.h) -------------------------------------- */
static char *json_of(LwWindow *w)
{
  return lw_model_to_json(lw_window_get_desc(w));
}

static char *copy_model(const char *name)
{
  return lwt_copy_model(tmp_dir, name);
}

/* a window on a copy of a shipped model (its path in *path) */
static LwWindow *window_on(const char *model, char **path)
{
  char *p = copy_model(model);
  LwWindow *w = lw_window_new(app);
  g_autoptr(GFile) f = g_file_new_for_path(p);
  g_assert_true(lw_window_open_file(w, f));
  if (path)
    *path = p;
  else
    g_free(p);
  return lwt_show(w);
}

static void assert_kept(LwWindow *w, const char *json, GFile *file)
{
  g_autofree char *now = json_of(w);
  g_assert_cmpstr(now, ==, json);
  g_assert_true(lw_window_get_modified(w));
  g_assert_true(lw_window_get_file(w) && g_file_equal(lw_window_get_file(w), file));
}

/* ---- 1. asking before the document is replaced ----------------------------------- */
/* New and New Spatial: Cancel keeps all; Discard starts the new model, and
 * Undo brings back the old one with its file and name */
static void test_ask_new(void)
{
  const char *actions[] = {"new", "new-spatial"};
  for (guint i = 0; i < G_N_ELEMENTS(actions); i++) {
    g_autofree char *path = NULL;
    LwWindow *w = window_on("four-bar.json", &path);
    g_autoptr(GFile) file = g_file_new_for_path(path);
    g_autofree char *name = g_strdup(lw_window_get_display_name(w));
    lwt_edit_mass(w);
    g_autofree char *edited = json_of(w);
    lwt_act(w, actions[i]);
    lwt_await(lwt_dialog_shown, w, LWT_WAIT);
    g_assert_nonnull(lwt_dialog_for(w));
    assert_kept(w, edited, file);
    lwt_respond(w, "cancel");
    g_assert_null(lwt_dialog_for(w));
    assert_kept(w, edited, file);
    lwt_act(w, actions[i]);
    lwt_respond(w, "discard");
    g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 0);
    g_assert_null(lw_window_get_file(w));
    lwt_act(w, "undo");
    assert_kept(w, edited, file);
    g_assert_cmpstr(lw_window_get_display_name(w), ==, name);
    gtk_window_destroy(GTK_WINDOW(w));
  }
}

/* New with nothing unsaved (no question), then Undo: the model comes back
 * with its file and name, and Save writes there again */
static void test_undo_new_file(void)
{
  g_autofree char *path = NULL;
  LwWindow *w = window_on("four-bar.json", &path);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  g_autofree char *name = g_strdup(lw_window_get_display_name(w));
  g_autofree char *before = json_of(w);
  lwt_act(w, "new");
  g_assert_null(lwt_dialog_for(w));
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 0);
  g_assert_null(lw_window_get_file(w));
  lwt_act(w, "undo");
  g_autofree char *back = json_of(w);
  g_assert_cmpstr(back, ==, before);
  g_assert_nonnull(lw_window_get_file(w));
  g_assert_true(g_file_equal(lw_window_get_file(w), file));
  g_assert_cmpstr(lw_window_get_display_name(w), ==, name);
  g_assert_false(lw_window_get_modified(w));
  lwt_act(w, "redo");
  g_assert_null(lw_window_get_file(w));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* uri is the newest of the recent files (the first of Open Recent); the
 * list is written asynchronously */
static gboolean newest_recent(gpointer uri)
{
  GtkRecentManager *rm = gtk_recent_manager_get_default();
  GtkRecentInfo *mine = gtk_recent_manager_lookup_item(rm, uri, NULL);
  if (!mine)
    return FALSE;
  gboolean newest = TRUE;
  GList *items = gtk_recent_manager_get_items(rm);
  for (GList *l = items; l; l = l->next)
    if (g_date_time_compare(gtk_recent_info_get_modified(l->data), gtk_recent_info_get_modified(mine)) > 0)
      newest = FALSE;
  g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
  gtk_recent_info_unref(mine);
  return newest;
}

/* Open Recent: Cancel keeps all; Save writes the edit to its file, then opens */
static void test_ask_open_recent(void)
{
  g_autofree char *path = NULL, *other = NULL;
  LwWindow *w = window_on("four-bar.json", &path);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  LwWindow *w2 = window_on("pendulum.json", &other); /* the newest recent file */
  gtk_window_destroy(GTK_WINDOW(w2));
  g_autoptr(GFile) ofile = g_file_new_for_path(other);
  g_autofree char *ouri = g_file_get_uri(ofile);
  lwt_await(newest_recent, ouri, LWT_WAIT);
  lwt_edit_mass(w);
  g_autofree char *edited = json_of(w);
  g_action_group_activate_action(G_ACTION_GROUP(w), "open-recent", g_variant_new_int32(0));
  lwt_await(lwt_dialog_shown, w, LWT_WAIT);
  g_assert_nonnull(lwt_dialog_for(w));
  assert_kept(w, edited, file);
  lwt_respond(w, "cancel");
  assert_kept(w, edited, file);
  g_action_group_activate_action(G_ACTION_GROUP(w), "open-recent", g_variant_new_int32(0));
  lwt_respond(w, "save");
  g_autofree char *on_disk = NULL;
  g_assert_true(g_file_get_contents(path, &on_disk, NULL, NULL));
  g_assert_cmpstr(on_disk, ==, edited);
  g_assert_true(g_file_equal(lw_window_get_file(w), ofile));
  g_assert_false(lw_window_get_modified(w));
  gtk_window_destroy(GTK_WINDOW(w));
}

static GtkWidget *find_widget(GtkWidget *root, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE(root, type))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = find_widget(c, type);
    if (f)
      return f;
  }
  return NULL;
}

/* the gallery's list of shipped examples (its rows name their example) */
static GtkWidget *examples_list(GtkWidget *root)
{
  if (GTK_IS_LIST_BOX(root)) {
    GtkListBoxRow *row = gtk_list_box_get_row_at_index(GTK_LIST_BOX(root), 0);
    if (row && g_object_get_data(G_OBJECT(row), "example"))
      return root;
  }
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = examples_list(c);
    if (f)
      return f;
  }
  return NULL;
}

/* the examples gallery: an example asks first */
static void test_ask_example(void)
{
  g_autofree char *path = NULL;
  LwWindow *w = window_on("four-bar.json", &path);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  lwt_edit_mass(w);
  g_autofree char *edited = json_of(w);
  for (int round = 0; round < 2; round++) {
    lwt_act(w, "examples");
    GtkWidget *gallery = NULL;
    GList *all = gtk_window_list_toplevels();
    for (GList *l = all; l; l = l->next)
      if (ADW_IS_WINDOW(l->data) && gtk_window_get_transient_for(GTK_WINDOW(l->data)) == GTK_WINDOW(w))
        gallery = l->data;
    g_list_free(all);
    g_assert_nonnull(gallery);
    GtkWidget *list = examples_list(gallery);
    g_assert_nonnull(list);
    GtkListBoxRow *row = gtk_list_box_get_row_at_index(GTK_LIST_BOX(list), 0);
    g_signal_emit_by_name(list, "row-activated", row);
    lwt_await(lwt_dialog_shown, w, LWT_WAIT);
    g_assert_nonnull(lwt_dialog_for(w));
    assert_kept(w, edited, file);
    lwt_respond(w, round == 0 ? "cancel" : "discard");
  }
  g_autofree char *now = json_of(w);
  g_assert_cmpstr(now, !=, edited);
  g_assert_null(lw_window_get_file(w)); /* an example has no file */
  g_assert_false(lw_window_get_modified(w));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a model built by a template of the gallery (lw_window_open_document):
 * the same question; Cancel frees it, Discard opens it */
static void test_ask_template(void)
{
  g_autofree char *path = NULL;
  LwWindow *w = window_on("four-bar.json", &path);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  lwt_edit_mass(w);
  g_autofree char *edited = json_of(w);
  for (int round = 0; round < 2; round++) {
    lw_desc *d = lwt_read("pendulum.json");
    g_assert_false(lw_window_open_document(w, d, "Untitled pendulum"));
    lwt_await(lwt_dialog_shown, w, LWT_WAIT);
    g_assert_nonnull(lwt_dialog_for(w));
    assert_kept(w, edited, file);
    lwt_respond(w, round == 0 ? "cancel" : "discard");
  }
  lw_desc *pendulum = lwt_read("pendulum.json");
  g_autofree char *expect = lw_model_to_json(pendulum);
  lw_desc_free(pendulum);
  g_autofree char *now = json_of(w);
  g_assert_cmpstr(now, ==, expect);
  g_assert_null(lw_window_get_file(w));
  g_assert_cmpstr(lw_window_get_display_name(w), ==, "Untitled pendulum");
  g_assert_true(lw_window_get_modified(w));
  lwt_act(w, "undo"); /* the edited four-bar, with its file */
  assert_kept(w, edited, file);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* Open (the file chooser): the file chosen, the question, then Discard opens it */
static void test_ask_open(void)
{
  g_autofree char *path = NULL, *other = copy_model("pendulum.json");
  LwWindow *w = window_on("four-bar.json", &path);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  lwt_edit_mass(w);
  g_autofree char *edited = json_of(w);
  lwt_act(w, "open");
  lwt_choose(w, other, FALSE);
  g_assert_nonnull(lwt_dialog_for(w));
  assert_kept(w, edited, file);
  lwt_respond(w, "cancel");
  assert_kept(w, edited, file);
  lwt_act(w, "open");
  lwt_choose(w, other, FALSE);
  lwt_respond(w, "discard");
  g_autoptr(GFile) ofile = g_file_new_for_path(other);
  g_assert_true(g_file_equal(lw_window_get_file(w), ofile));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* Save that fails (the file's folder is gone): nothing is replaced */
static void test_ask_save_fails(void)
{
  g_autofree char *path = NULL;
  LwWindow *w = window_on("four-bar.json", &path);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  lwt_edit_mass(w);
  g_autofree char *edited = json_of(w);
  g_autofree char *dir = g_path_get_dirname(path);
  g_assert_cmpint(g_unlink(path), ==, 0);
  g_assert_cmpint(g_rmdir(dir), ==, 0);
  lwt_act(w, "new");
  lwt_respond(w, "save");
  assert_kept(w, edited, file);
  g_assert_nonnull(lw_window_get_message(w));
  g_assert_nonnull(strstr(lw_window_get_message(w), "Cannot save"));
  g_assert_null(lwt_dialog_for(w));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a model without a file: Save asks where (Save As); cancelled, nothing is
 * replaced; saved, the new model follows */
static void test_ask_save_as(void)
{
  LwWindow *w = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w);
  lwt_act(w, "new"); /* nothing unsaved: no question */
  g_assert_null(lwt_dialog_for(w));
  lw_desc *d = lw_desc_copy(lw_window_get_desc(w));
  lw_desc_add_body(d, "b1");
  g_signal_emit_by_name(lw_window_get_prop_editor(w), "edit", d, "add a body");
  g_assert_true(lw_window_get_modified(w));
  g_assert_null(lw_window_get_file(w));
  g_autofree char *edited = json_of(w);
  lwt_act(w, "new-spatial");
  lwt_respond(w, "save");
  GtkWidget *chooser = lwt_chooser_for(w);
  g_assert_nonnull(chooser);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_dialog_response(GTK_DIALOG(chooser), GTK_RESPONSE_CANCEL);
  G_GNUC_END_IGNORE_DEPRECATIONS
  lwt_await(lwt_chooser_gone, w, LWT_WAIT);
  g_autofree char *now = json_of(w);
  g_assert_cmpstr(now, ==, edited);
  g_assert_true(lw_window_get_modified(w));
  lwt_act(w, "new-spatial");
  lwt_respond(w, "save");
  g_autofree char *target = g_build_filename(tmp_dir, "saved-as.json", NULL);
  lwt_choose(w, target, TRUE);
  g_autofree char *on_disk = NULL;
  g_assert_true(g_file_get_contents(target, &on_disk, NULL, NULL));
  g_assert_cmpstr(on_disk, ==, edited);
  g_assert_false(lw_window_get_desc(w)->planar); /* the spatial model followed */
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 0);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* an autosave left by a process that has gone: Recover asks first too */
static void test_ask_recover(void)
{
  g_autofree char *path = NULL;
  LwWindow *w = window_on("four-bar.json", &path);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  g_autofree char *dir = g_build_filename(tmp_dir, "cache", "linkwright", "autosave", NULL);
  g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
  g_autofree char *orphan = g_build_filename(dir, "999999-1.json", NULL);
  g_autofree char *orphan_lock = g_build_filename(dir, "999999-1.lock", NULL);
  g_autofree char *model = NULL;
  g_autofree char *src = g_build_filename(LW_MODELS_DIR, "pendulum.json", NULL);
  g_assert_true(g_file_get_contents(src, &model, NULL, NULL));
  g_assert_true(g_file_set_contents(orphan, model, -1, NULL));
  g_assert_true(g_file_set_contents(orphan_lock, "", -1, NULL));
  lwt_edit_mass(w);
  g_autofree char *edited = json_of(w);
  g_assert_true(lw_window_offer_recovery(w));
  GtkWidget *offer = lw_window_get_recovery_dialog(w);
  g_assert_nonnull(offer);
  g_object_ref(offer);
  adw_message_dialog_response(ADW_MESSAGE_DIALOG(offer), "recover");
  gtk_window_destroy(GTK_WINDOW(offer));
  lwt_await(lwt_dialog_shown, w, LWT_WAIT);
  AdwMessageDialog *ask = lwt_dialog_for(w);
  g_assert_nonnull(ask);
  g_assert_true(GTK_WIDGET(ask) != offer);
  g_object_unref(offer);
  assert_kept(w, edited, file);
  lwt_respond(w, "cancel");
  assert_kept(w, edited, file);
  g_assert_true(g_file_test(orphan, G_FILE_TEST_EXISTS)); /* still there for later */
  lw_autosave_remove(orphan);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* the question, as drawn (for the report: build/screenshots/document) */
static void save_dialog_shot(AdwMessageDialog *dialog, const char *name)
{
  lwt_await(lwt_is_mapped, dialog, LWT_WAIT);
  lwt_settle(2);
  GtkWidget *wd = GTK_WIDGET(dialog);
  GdkPaintable *paintable = gtk_widget_paintable_new(wd);
  int dw = gtk_widget_get_width(wd), dh = gtk_widget_get_height(wd);
  GtkSnapshot *snap = gtk_snapshot_new();
  gdk_paintable_snapshot(paintable, snap, dw, dh);
  GskRenderNode *node = gtk_snapshot_free_to_node(snap);
  g_mkdir_with_parents(LW_DOC_SHOT_DIR, 0755);
  g_autofree char *png = g_build_filename(LW_DOC_SHOT_DIR, name, NULL);
  if (node && dw > 0 && dh > 0) {
    GdkTexture *tex =
      gsk_renderer_render_texture(gtk_native_get_renderer(GTK_NATIVE(wd)), node, &GRAPHENE_RECT_INIT(0, 0, dw, dh));
    if (gdk_texture_save_to_png(tex, png))
      g_test_message("screenshot %s", png);
    g_object_unref(tex);
  }
  if (node)
    gsk_render_node_unref(node);
  g_object_unref(paintable);
}

static gboolean pointer_cleared(gpointer p)
{
  return *(gpointer *)p == NULL;
}

/* closing: the same question; Save on a model without a file asks where and closes once saved */
static void test_close_save_as(void)
{
  LwWindow *w = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w);
  lwt_edit_mass(w);
  g_autofree char *edited = json_of(w);
  g_object_add_weak_pointer(G_OBJECT(w), (gpointer *)&w);
  gtk_window_close(GTK_WINDOW(w));
  lwt_await(lwt_dialog_shown, w, LWT_WAIT);
  AdwMessageDialog *ask = lwt_dialog_for(w);
  g_assert_nonnull(ask);
  save_dialog_shot(ask, "save-discard-cancel.png");
  lwt_respond(w, "save");
  g_autofree char *target = g_build_filename(tmp_dir, "closed-saved.json", NULL);
  lwt_choose(w, target, TRUE);
  lwt_await(pointer_cleared, &w, LWT_WAIT); /* closed on an idle */
  g_assert_null(w);
  g_autofree char *on_disk = NULL;
  g_assert_true(g_file_get_contents(target, &on_disk, NULL, NULL));
  g_assert_cmpstr(on_disk, ==, edited);
}

/* ---- 2. autosave ------------------------------------------------------------------ */
static gboolean lock_held(const char *autosave)
{
  g_autofree char *stem = g_strndup(autosave, strlen(autosave) - strlen(".json"));
  g_autofree char *lock = g_strconcat(stem, ".lock", NULL);
  int fd = g_open(lock, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return FALSE;
  /* a lock of this process's window conflicts with one taken on another open file */
  gboolean held = flock(fd, LOCK_EX | LOCK_NB) != 0;
  close(fd);
  return held;
}

/* after a Save, the next autosave is locked again (else a later start
 * could not tell it from a crashed one's, nor a crashed one's from ours) */
static void test_autosave_lock_after_save(void)
{
  g_autofree char *path = NULL;
  LwWindow *w = window_on("four-bar.json", &path);
  lwt_edit_mass(w);
  g_autofree char *first = g_strdup(lw_window_get_autosave_path(w));
  g_assert_nonnull(first);
  g_assert_true(lock_held(first));
  g_autoptr(GFile) file = g_file_new_for_path(path);
  g_assert_true(lw_window_save_to_file(w, file));
  g_assert_false(g_file_test(first, G_FILE_TEST_EXISTS));
  lwt_edit_mass(w);
  const char *next = lw_window_get_autosave_path(w);
  g_assert_nonnull(next);
  g_assert_true(g_file_test(next, G_FILE_TEST_EXISTS));
  g_assert_true(lock_held(next));
  g_autofree char *orphan = lw_autosave_find_orphan();
  g_assert_null(orphan); /* this process's own is not offered */
  gtk_window_destroy(GTK_WINDOW(w));
}

/* a recovered model is its file again, modified, the same model */
/* autosaves are written on their own thread, in order: after a burst of
 * edits the file holds the last one, and a removal waits for the writes
 * still queued (else one would bring the file back) */
static void test_autosave_queue(void)
{
  g_autofree char *path = lw_autosave_path_new();
  for (int k = 0; k < 20; k++) {
    lw_desc *d = lw_desc_chain(2 + k % 3, 0);
    g_free(d->name);
    d->name = g_strdup_printf("burst %d", k);
    lw_autosave_queue(path, d, NULL, "burst");
  }
  lw_autosave_flush();
  lw_error err;
  lw_desc *back = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(back);
  g_assert_cmpstr(back->name, ==, "burst 19");
  g_assert_cmpint(back->nbodies, ==, 2 + 19 % 3);
  lw_desc_free(back);
  for (int k = 0; k < 5; k++)
    lw_autosave_queue(path, lw_desc_chain(2, 0), NULL, "burst");
  lw_autosave_remove(path);
  g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
}

static void test_recover_origin(void)
{
  g_autofree char *path = NULL;
  LwWindow *w = window_on("four-bar.json", &path);
  g_autoptr(GFile) file = g_file_new_for_path(path);
  lwt_edit_mass(w);
  g_autofree char *edited = json_of(w);
  g_autofree char *name = g_strdup(lw_window_get_display_name(w));
  const char *as = lw_window_get_autosave_path(w);
  g_assert_nonnull(as);
  /* what a killed process leaves: its autosave and what lies beside it */
  g_autofree char *dir = g_path_get_dirname(as);
  g_autofree char *stem = g_strndup(as, strlen(as) - strlen(".json"));
  const char *suffixes[] = {".json", ".origin"};
  for (guint i = 0; i < G_N_ELEMENTS(suffixes); i++) {
    g_autofree char *src = g_strconcat(stem, suffixes[i], NULL);
    g_autofree char *dst = g_strdup_printf("%s/999998-1%s", dir, suffixes[i]);
    g_autofree char *data = NULL;
    gsize len;
    if (g_file_get_contents(src, &data, &len, NULL))
      g_assert_true(g_file_set_contents(dst, data, (gssize)len, NULL));
  }
  g_autofree char *orphan = g_strdup_printf("%s/999998-1.json", dir);
  LwWindow *w2 = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w2);
  g_assert_true(lw_window_recover_file(w2, orphan));
  g_autofree char *back = json_of(w2);
  g_assert_cmpstr(back, ==, edited);
  g_assert_true(lw_window_get_modified(w2));
  g_assert_nonnull(lw_window_get_file(w2));
  g_assert_true(g_file_equal(lw_window_get_file(w2), file));
  g_assert_cmpstr(lw_window_get_display_name(w2), ==, name);
  gtk_window_destroy(GTK_WINDOW(w2));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* ---- 3. smaller things -------------------------------------------------------------- */
/* a new model starts at t = 0 on the time scale */
static void test_new_resets_time(void)
{
  LwWindow *w = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  lwt_act(w, "run");
  lwt_await(lwt_run_shown, w, 2 * LWT_WAIT);
  GtkAdjustment *adj = lw_window_get_time_adjustment(w);
  g_assert_cmpfloat(gtk_adjustment_get_value(adj), >, 1.0);
  lwt_act(w, "new");
  g_assert_cmpfloat(lw_window_get_shown_time(w), ==, 0.0);
  g_assert_cmpfloat(gtk_adjustment_get_value(adj), ==, 0.0);
  g_assert_cmpfloat(gtk_adjustment_get_upper(adj), ==, 0.0);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* the labels of the window's Recent menu */
static GPtrArray *recent_menu_labels(LwWindow *w)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  GtkWidget *split = find_widget(GTK_WIDGET(w), ADW_TYPE_SPLIT_BUTTON);
  g_assert_nonnull(split);
  GMenuModel *menu = adw_split_button_get_menu_model(ADW_SPLIT_BUTTON(split));
  for (int s = 0; s < g_menu_model_get_n_items(menu); s++) {
    g_autoptr(GMenuModel) section = g_menu_model_get_item_link(menu, s, G_MENU_LINK_SECTION);
    if (!section)
      continue;
    for (int i = 0; i < g_menu_model_get_n_items(section); i++) {
      g_autofree char *action = NULL, *label = NULL;
      g_menu_model_get_item_attribute(section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action);
      if (g_strcmp0(action, "win.open-recent"))
        continue;
      g_menu_model_get_item_attribute(section, i, G_MENU_ATTRIBUTE_LABEL, "s", &label);
      g_ptr_array_add(out, g_steal_pointer(&label));
    }
  }
  return out;
}

static gboolean has_label(GPtrArray *labels, const char *label)
{
  for (guint i = 0; i < labels->len; i++)
    if (!g_strcmp0(g_ptr_array_index(labels, i), label))
      return TRUE;
  return FALSE;
}

/* the Open Recent menu lists the model opened last */
static gboolean recent_lists_good(gpointer w)
{
  g_autoptr(GPtrArray) labels = recent_menu_labels(LW_WINDOW(w));
  return has_label(labels, "double-pendulum.json");
}

/* files that fail to open (broken JSON, a model that cannot assemble) stay
 * out of the Recent menu; one that opens goes in */
static void test_failed_open_not_recent(void)
{
  LwWindow *w = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w);
  g_autofree char *broken = g_build_filename(tmp_dir, "broken-json.json", NULL);
  g_assert_true(g_file_set_contents(broken, "{\"name\": \"x\", \"bodies\": [", -1, NULL));
  /* a four-bar whose links are too short to close */
  g_autofree char *src = g_build_filename(LW_MODELS_DIR, "four-bar.json", NULL);
  g_autofree char *fb = NULL;
  g_assert_true(g_file_get_contents(src, &fb, NULL, NULL));
  lw_error err;
  lw_desc *d = lw_model_read_data(fb, -1, "four-bar.json", NULL, &err);
  g_assert_nonnull(d);
  for (int b = 0; b < d->nbodies; b++)
    for (int k = 0; k < d->bodies[b].npoints; k++)
      for (int c = 0; c < 3; c++)
        d->bodies[b].points[k].p[c] *= 0.1;
  g_autofree char *no_assembly = g_build_filename(tmp_dir, "cannot-assemble.json", NULL);
  g_assert_true(lw_model_write_file(d, no_assembly, NULL));
  lw_desc_free(d);
  g_autofree char *good = copy_model("double-pendulum.json");
  const char *bad[] = {broken, no_assembly};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    lwt_act(w, "open");
    lwt_choose(w, bad[i], FALSE);
    g_assert_nonnull(lw_window_get_message(w));
    g_test_message("%s: %s", bad[i], lw_window_get_message(w));
  }
  lwt_act(w, "open");
  lwt_choose(w, good, FALSE);
  g_assert_null(lw_window_get_message(w));
  g_autoptr(GPtrArray) labels = NULL;
  /* the recent list is written asynchronously (slowly under the sanitizers) */
  lwt_await(recent_lists_good, w, LWT_WAIT);
  lwt_spin(0.5); /* time for a refused file to come too, were it added */
  g_clear_pointer(&labels, g_ptr_array_unref);
  labels = recent_menu_labels(w);
  for (guint i = 0; i < labels->len; i++)
    g_test_message("recent: %s", (char *)g_ptr_array_index(labels, i));
  g_assert_true(has_label(labels, "double-pendulum.json"));
  g_assert_false(has_label(labels, "broken-json.json"));
  g_assert_false(has_label(labels, "cannot-assemble.json"));
  gtk_window_destroy(GTK_WINDOW(w));
  /* the recent list's file is written asynchronously: let the write end
   * (cut off at exit, its buffers show as leaks) */
  lwt_spin(1.5);
}

static gboolean status_redundant(gpointer w)
{
  return strstr(lw_window_get_status_text(LW_WINDOW(w)), "redundant") != NULL;
}

/* a redundant but assembled model says so, not "cannot assemble" */
static void test_redundant_status(void)
{
  LwWindow *w = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w);
  g_autofree char *src = g_build_filename(LW_MODELS_DIR, "four-bar.json", NULL);
  g_autofree char *fb = NULL;
  g_assert_true(g_file_get_contents(src, &fb, NULL, NULL));
  /* joint A twice: two dependent equations, the linkage still assembled */
  char *at = strstr(fb, "\"joints\": [");
  g_assert_nonnull(at);
  at += strlen("\"joints\": [");
  GString *text = g_string_new_len(fb, at - fb);
  g_string_append(text, "{\"name\": \"A2\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"crank\", "
                        "\"at\": [0, 0]},");
  g_string_append(text, at);
  lw_error err;
  lw_desc *d = lw_model_read_data(text->str, (gssize)text->len, "redundant.json", NULL, &err);
  g_string_free(text, TRUE);
  g_assert_nonnull(d);
  g_signal_emit_by_name(lw_window_get_prop_editor(w), "edit", d, "a redundant joint");
  lwt_await(status_redundant, w, LWT_WAIT);
  const char *status = lw_window_get_status_text(w);
  g_test_message("status: %s", status);
  g_assert_null(strstr(status, "cannot assemble"));
  g_assert_nonnull(strstr(status, "assembled"));
  g_assert_nonnull(strstr(status, "redundant"));
  gtk_window_destroy(GTK_WINDOW(w));
}

/* the window's width is no longer what it was (a new size taken: its
 * children are allocated in the same layout) */
typedef struct {
  GtkWidget *window;
  int width;
} width_wait;

static gboolean width_changed(gpointer p)
{
  width_wait *ww = p;
  return gtk_widget_get_width(ww->window) != ww->width;
}

/* the window resized by a new default size, as the window manager would */
static void resize(LwWindow *w, int width, int height)
{
  width_wait ww = {GTK_WIDGET(w), gtk_widget_get_width(GTK_WIDGET(w))};
  gtk_window_set_default_size(GTK_WINDOW(w), width, height);
  lwt_await(width_changed, &ww, LWT_WAIT);
  lwt_settle(2);
}

/* a wider window widens the 3-D view, not the side panel; narrower again,
 * the view keeps a useful width in edit mode; the divider has a handle */
static void test_paned(void)
{
  LwWindow *w = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w);
  GtkWidget *paned = find_widget(GTK_WIDGET(w), GTK_TYPE_PANED);
  g_assert_nonnull(paned);
  g_assert_true(gtk_paned_get_wide_handle(GTK_PANED(paned)));
  GtkWidget *view = lw_window_get_view(w);
  GtkWidget *side = gtk_paned_get_end_child(GTK_PANED(paned));
  resize(w, 1100, 760);
  int v1 = gtk_widget_get_width(view), s1 = gtk_widget_get_width(side), w1 = gtk_widget_get_width(GTK_WIDGET(w));
  resize(w, 1400, 860);
  int v2 = gtk_widget_get_width(view), s2 = gtk_widget_get_width(side), w2 = gtk_widget_get_width(GTK_WIDGET(w));
  g_test_message("window %d -> %d: view %d -> %d, side panel %d -> %d", w1, w2, v1, v2, s1, s2);
  g_assert_cmpint(w2 - w1, >, 200);
  g_assert_cmpint(s2, ==, s1);
  g_assert_cmpint(v2 - v1, ==, w2 - w1);
  lwt_set_state(w, "edit-mode", TRUE);
  lwt_await(lwt_palette_revealed, w, LWT_WAIT);
  lwt_settle(2);
  g_autofree char *png = g_build_filename(LW_DOC_SHOT_DIR, "edit-enlarged.png", NULL);
  g_mkdir_with_parents(LW_DOC_SHOT_DIR, 0755);
  if (lw_window_save_screenshot(w, png, NULL))
    g_test_message("screenshot %s", png);
  resize(w, 900, 700);
  int v3 = gtk_widget_get_width(view);
  g_test_message("window %d in edit mode: view %d", gtk_widget_get_width(GTK_WIDGET(w)), v3);
  g_assert_cmpint(v3, >=, 320);
  gtk_window_destroy(GTK_WINDOW(w));
}

static GtkWidget *button_for_action(GtkWidget *root, const char *action)
{
  if (GTK_IS_ACTIONABLE(root) && !g_strcmp0(gtk_actionable_get_action_name(GTK_ACTIONABLE(root)), action))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child(root); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *f = button_for_action(c, action);
    if (f)
      return f;
  }
  return NULL;
}

static const char *icon_of(GtkWidget *button)
{
  const char *icon = gtk_button_get_icon_name(GTK_BUTTON(button));
  if (icon)
    return icon;
  GtkWidget *content = find_widget(button, ADW_TYPE_BUTTON_CONTENT);
  return content ? adw_button_content_get_icon_name(ADW_BUTTON_CONTENT(content)) : NULL;
}

/* Replay does not look like Run: its own icon and a label */
static void test_replay_unlike_run(void)
{
  LwWindow *w = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w);
  GtkWidget *run = button_for_action(GTK_WIDGET(w), "win.run");
  GtkWidget *replay = button_for_action(GTK_WIDGET(w), "win.play");
  g_assert_nonnull(run);
  g_assert_nonnull(replay);
  g_test_message("Run: %s; Replay: %s", icon_of(run), icon_of(replay));
  g_assert_cmpstr(icon_of(replay), !=, icon_of(run));
  GtkWidget *content = find_widget(replay, ADW_TYPE_BUTTON_CONTENT);
  g_assert_nonnull(content);
  g_assert_cmpstr(adw_button_content_get_label(ADW_BUTTON_CONTENT(content)), ==, "Replay");
  g_assert_cmpstr(gtk_widget_get_tooltip_text(replay), !=, gtk_widget_get_tooltip_text(run));
  gtk_window_destroy(GTK_WINDOW(w));
}


/* a URDF opened: imported into a document without a file (Save asks
 * where, the robot description is never overwritten), modified, with what
 * was not imported and the missing mesh files said */
static void test_import_urdf(void)
{
  g_autofree char *urdf = g_build_filename(LW_SOURCE_ROOT, "..", "shared", "urdf", "bullet3_kuka_iiwa_model.urdf", NULL);
  if (!g_file_test(urdf, G_FILE_TEST_EXISTS)) {
    g_test_skip("the shared robot descriptions are absent");
    return;
  }
  LwWindow *w = lwt_show(lw_window_new(app));
  lw_window_open_builtin(w);
  g_autoptr(GFile) f = g_file_new_for_path(urdf);
  g_assert_true(lw_window_open_file(w, f));
  g_assert_cmpint(lw_window_get_desc(w)->nbodies, ==, 7);
  g_assert_null(lw_window_get_file(w));
  g_assert_true(lw_window_get_modified(w));
  g_assert_nonnull(lw_window_get_runner(w));
  const char *msg = lw_window_get_message(w);
  g_test_message("%s", msg);
  g_assert_nonnull(strstr(msg, "Imported from bullet3_kuka_iiwa_model.urdf (URDF): 7 bodies, 7 joints"));
  g_assert_nonnull(strstr(msg, "meshes/link_1.obj"));
  g_assert_nonnull(strstr(msg, "limits"));
  g_assert_nonnull(strstr(lw_window_get_display_name(w), "(imported)"));
  g_mkdir_with_parents(LW_DOC_SHOT_DIR, 0755);
  g_autofree char *png = g_build_filename(LW_DOC_SHOT_DIR, "imported-kuka.png", NULL);
  g_autoptr(GError) error = NULL;
  lwt_fresh_picture(w);
  lwt_settle(2);
  if (lw_window_save_screenshot(w, png, &error))
    g_test_message("screenshot %s", png);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.1);
}

int main(int argc, char **argv)
{
  /* autosaves and the recent list of this test in a private directory,
   * set in the environment the process starts with: libraries preloaded
   * under the sanitizers read the user's directories before main, so the
   * test runs itself again with them set */
  const char *own = g_getenv("LW_DOCUMENT_TEST_DIR");
  if (!own) {
    tmp_dir = g_dir_make_tmp("lw-document-XXXXXX", NULL);
    g_autofree char *cache = g_build_filename(tmp_dir, "cache", NULL);
    g_autofree char *data = g_build_filename(tmp_dir, "data", NULL);
    g_setenv("XDG_CACHE_HOME", cache, TRUE);
    g_setenv("XDG_DATA_HOME", data, TRUE);
    g_setenv("LANGUAGE", "C", TRUE);
    g_setenv("LW_DOCUMENT_TEST_DIR", tmp_dir, TRUE);
    execv("/proc/self/exe", argv);
  } else {
    tmp_dir = g_strdup(own);
  }
  g_test_init(&argc, &argv, NULL);
  if (!gtk_init_check()) {
    printf("1..0 # SKIP no display (the test command starts Xvfb)\n");
    return 0;
  }
  adw_init();
  app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  g_test_add_func("/document/ask/new", test_ask_new);
  g_test_add_func("/document/undo-new-file", test_undo_new_file);
  g_test_add_func("/document/ask/open-recent", test_ask_open_recent);
  g_test_add_func("/document/ask/example", test_ask_example);
  g_test_add_func("/document/ask/open", test_ask_open);
  g_test_add_func("/document/ask/template", test_ask_template);
  g_test_add_func("/document/ask/save-fails", test_ask_save_fails);
  g_test_add_func("/document/ask/save-as", test_ask_save_as);
  g_test_add_func("/document/ask/recover", test_ask_recover);
  g_test_add_func("/document/ask/close-save-as", test_close_save_as);
  g_test_add_func("/document/autosave/lock-after-save", test_autosave_lock_after_save);
  g_test_add_func("/document/autosave/recover-origin", test_recover_origin);
  g_test_add_func("/document/autosave/queue", test_autosave_queue);
  g_test_add_func("/document/import-urdf", test_import_urdf);
  g_test_add_func("/document/new-resets-time", test_new_resets_time);
  g_test_add_func("/document/failed-open-not-recent", test_failed_open_not_recent);
  g_test_add_func("/document/redundant-status", test_redundant_status);
  g_test_add_func("/document/paned", test_paned);
  g_test_add_func("/document/replay-unlike-run", test_replay_unlike_run);
  int rc = g_test_run();
  g_object_unref(app);
  lwt_rm_rf(tmp_dir);
  g_free(tmp_dir);
  return rc;
}
