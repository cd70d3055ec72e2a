/* lw-window-undo.c: the main window's undo and redo stacks.
 *
 * An entry is a copy of the whole description with its modified flag and
 * the file and name of its document, so that undoing New gives back the
 * model with its file. */
#include "lw-window-private.h"

#include <glib/gi18n.h>

/* ---- undo: whole-model replacements ------------------------------------------ */
#define UNDO_DEPTH 1000

typedef struct {
  lw_desc *desc;
  gboolean modified;
  guint doc_id;         /* the document it is a state of, */
  GFile *file;          /* with its file (NULL: none) */
  char *display_name;   /* and name */
} UndoEntry;

void _lw_window_undo_entry_free(gpointer p)
{
  UndoEntry *e = p;
  lw_desc_free(e->desc);
  g_clear_object(&e->file);
  g_free(e->display_name);
  g_free(e);
}

void _lw_window_push_current(LwWindow *self, GPtrArray *stack)
{
  UndoEntry *e = g_new(UndoEntry, 1);
  e->desc = lw_desc_copy(self->desc);
  e->modified = self->modified;
  e->doc_id = self->doc_id;
  e->file = self->file ? g_object_ref(self->file) : NULL;
  e->display_name = g_strdup(self->display_name);
  if (stack->len >= UNDO_DEPTH)
    g_ptr_array_remove_index(stack, 0);
  g_ptr_array_add(stack, e);
}

/* a document saved under a new name: its states on the stacks go with it */
void _lw_window_rename_undo_entries(LwWindow *self)
{
  GPtrArray *stacks[] = {self->undo, self->redo};
  for (guint s = 0; s < G_N_ELEMENTS(stacks); s++)
    for (guint i = 0; i < stacks[s]->len; i++) {
      UndoEntry *e = g_ptr_array_index(stacks[s], i);
      if (e->doc_id != self->doc_id)
        continue;
      g_set_object(&e->file, self->file);
      g_free(e->display_name);
      e->display_name = g_strdup(self->display_name);
    }
}

/* the newest entry of `from` becomes the model, the model goes onto `to` */
static void undo_redo(LwWindow *self, GPtrArray *from, GPtrArray *to, const char *done)
{
  if (!self->desc || !from->len)
    return;
  UndoEntry *e = g_ptr_array_steal_index(from, from->len - 1);
  _lw_window_push_current(self, to);
  /* the entry's document, with its file (undoing New gives the file back) */
  self->doc_id = e->doc_id;
  g_set_object(&self->file, e->file);
  g_free(self->display_name);
  self->display_name = g_strdup(e->display_name);
  _lw_window_set_document(self, g_steal_pointer(&e->desc), e->modified);
  _lw_window_toast(self, done);
  _lw_window_undo_entry_free(e);
  _lw_window_write_autosave(self);
  _lw_window_update_actions(self);
}

void _lw_window_undo_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  undo_redo(self, self->undo, self->redo, _("Undone"));
}

void _lw_window_redo_cb(GSimpleAction *a, GVariant *p, gpointer user)
{
  (void)a;
  (void)p;
  LwWindow *self = user;
  undo_redo(self, self->redo, self->undo, _("Redone"));
}

guint lw_window_get_undo_depth(LwWindow *self)
{
  g_return_val_if_fail(LW_IS_WINDOW(self), 0);
  return self->undo->len;
}
