/* lw-palette.h: the editing palette: bodies, joints and forces that are
 * dragged into the 3-D view (GtkDragSource, the item's id as a string) or
 * clicked to choose what a stroke in the view draws. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define LW_TYPE_PALETTE (lw_palette_get_type())
G_DECLARE_FINAL_TYPE(LwPalette, lw_palette, LW, PALETTE, GtkWidget)

typedef enum {
  LW_ITEM_BODY,
  LW_ITEM_JOINT,
  LW_ITEM_FORCE,
  LW_ITEM_TOOL,  /* chosen for what a stroke in the view does; not dragged */
} LwItemKind;

typedef struct {
  const char *id;       /* "link", "revolute", "spring", ... (the drag content) */
  LwItemKind kind;
  const char *label;    /* untranslated; shown through _() */
  const char *tooltip;
  gboolean stroke;      /* can be drawn by a stroke from one point to another */
} LwPaletteItem;

/* Every item, NULL-terminated by id */
const LwPaletteItem *lw_palette_items(void);
const LwPaletteItem *lw_palette_item_find(const char *id);

GtkWidget *lw_palette_new(void);
/* What a stroke in the view does: draw a "link" or a "spring", or "move" a point. */
const char *lw_palette_get_stroke_tool(LwPalette *self);
void lw_palette_set_stroke_tool(LwPalette *self, const char *id);
/* The drag source of an item's button (tests synthesize a drag with it). */
GtkDragSource *lw_palette_get_drag_source(LwPalette *self, const char *id);

/* Spatial models show the work plane's controls: a drop-down of the planes
 * x-y, z-x and y-z (properties plane-axis: the normal axis, 0 x, 1 y, 2 z)
 * and an offset along the normal (plane-offset, m). */
void lw_palette_set_spatial(LwPalette *self, gboolean spatial);
/* Set the controls (as a user would); plane-axis and plane-offset follow. */
void lw_palette_set_work_plane(LwPalette *self, int axis, double offset);
int lw_palette_get_plane_axis(LwPalette *self);
double lw_palette_get_plane_offset(LwPalette *self);
G_END_DECLS
