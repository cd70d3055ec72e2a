/* lw-palette.c: the editing palette (see lw-palette.h). */
#include "lw-palette.h"

#include <glib/gi18n.h>
#include <string.h>

static const LwPaletteItem items[] = {
  {"move", LW_ITEM_TOOL, N_("Move points"),
   N_("Drag a point of a body, or a pin's place on the ground, to move it; links drawn here stretch with it"), TRUE},
  {"link", LW_ITEM_BODY, N_("Link"), N_("A bar: drag it into the view, or draw it from one point to another"), TRUE},
  {"beam", LW_ITEM_BODY, N_("Beam"),
   N_("A flexible beam: draw it from one point to another; a pin or a weld dropped on its end holds it"), TRUE},
  {"box", LW_ITEM_BODY, N_("Box"), N_("A box-shaped body"), FALSE},
  {"cylinder", LW_ITEM_BODY, N_("Cylinder"), N_("A cylinder"), FALSE},
  {"sphere", LW_ITEM_BODY, N_("Sphere"), N_("A sphere"), FALSE},
  {"anchor", LW_ITEM_BODY, N_("Ground anchor"), N_("Drop on a body to clamp it to the ground (fixed joint)"), FALSE},
  {"revolute", LW_ITEM_JOINT, N_("Pin"), N_("Revolute joint: drop on a link end to join it to what lies under it"), FALSE},
  {"prismatic", LW_ITEM_JOINT, N_("Slider"), N_("Prismatic joint: drop on a link to make it slide along its line"), FALSE},
  {"spherical", LW_ITEM_JOINT, N_("Ball"), N_("Spherical joint (spatial models)"), FALSE},
  {"universal", LW_ITEM_JOINT, N_("Universal"), N_("Universal joint (spatial models)"), FALSE},
  {"cylindrical", LW_ITEM_JOINT, N_("Cylindrical"), N_("Cylindrical joint (spatial models)"), FALSE},
  {"planar", LW_ITEM_JOINT, N_("Planar"), N_("Planar joint (spatial models)"), FALSE},
  {"fixed", LW_ITEM_JOINT, N_("Weld"), N_("Fixed joint: welds two bodies together"), FALSE},
  {"spring", LW_ITEM_FORCE, N_("Spring"), N_("Spring-damper: draw it from one point to another, or drop it on a point"), TRUE},
  {"motor", LW_ITEM_FORCE, N_("Motor"), N_("Prescribed motion of a joint: drop it on a pin or a slider"), FALSE},
  {"torque", LW_ITEM_FORCE, N_("Torque"), N_("Applied torque: drop it on a body"), FALSE},
  {"force", LW_ITEM_FORCE, N_("Force"), N_("Applied force: drop it on a point of a body"), FALSE},
  {"measure", LW_ITEM_TOOL, N_("Measure"),
   N_("Click two points for a distance, or two links for the angle between them; Escape cancels, Delete removes the selected dimension"), TRUE},
  {NULL, 0, NULL, NULL, FALSE},
};

struct _LwPalette {
  GtkWidget parent_instance;
  GtkWidget *scroller;
  GHashTable *sources; /* id -> GtkDragSource */
  GHashTable *toggles; /* id -> GtkToggleButton (stroke tools) */
  char *stroke_tool;
  GtkWidget *plane_box, *plane_drop, *plane_spin; /* the work plane (spatial models) */
  int plane_axis;
  double plane_offset;
};

G_DEFINE_FINAL_TYPE(LwPalette, lw_palette, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_STROKE_TOOL, PROP_PLANE_AXIS, PROP_PLANE_OFFSET, N_PROPS };
static GParamSpec *props[N_PROPS];

const LwPaletteItem *lw_palette_items(void)
{
  return items;
}

const LwPaletteItem *lw_palette_item_find(const char *id)
{
  for (int i = 0; id && items[i].id; i++)
    if (!strcmp(items[i].id, id))
      return &items[i];
  return NULL;
}

static GdkContentProvider *prepare_cb(GtkDragSource *src, double x, double y, gpointer user)
{
  (void)x, (void)y, (void)user;
  const char *id = g_object_get_data(G_OBJECT(src), "item");
  GtkWidget *button = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(src));
  g_autoptr(GdkPaintable) icon = gtk_widget_paintable_new(button);
  gtk_drag_source_set_icon(src, icon, 0, 0);
  return gdk_content_provider_new_typed(G_TYPE_STRING, id);
}

static void toggled_cb(GtkToggleButton *b, gpointer user)
{
  LwPalette *self = user;
  const char *id = g_object_get_data(G_OBJECT(b), "item");
  if (gtk_toggle_button_get_active(b))
    lw_palette_set_stroke_tool(self, id);
  else if (!g_strcmp0(self->stroke_tool, id))
    lw_palette_set_stroke_tool(self, "link"); /* one tool is always chosen */
}

/* the drop-down's rows, in order, and the axis normal to each plane */
static const char *const plane_names[] = {N_("Front (x-y)"), N_("Top (z-x)"), N_("Side (y-z)"), NULL};
static const int plane_normal[] = {2, 1, 0};

static void plane_changed_cb(GObject *obj, GParamSpec *pspec, gpointer user)
{
  (void)obj, (void)pspec;
  LwPalette *self = user;
  guint row = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->plane_drop));
  int axis = plane_normal[row < 3 ? row : 1];
  double off = gtk_spin_button_get_value(GTK_SPIN_BUTTON(self->plane_spin));
  if (axis != self->plane_axis) {
    self->plane_axis = axis;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PLANE_AXIS]);
  }
  if (off != self->plane_offset) {
    self->plane_offset = off;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PLANE_OFFSET]);
  }
}

static GtkWidget *section(GtkWidget *box, const char *title)
{
  GtkWidget *l = gtk_label_new(title);
  gtk_label_set_xalign(GTK_LABEL(l), 0);
  gtk_widget_add_css_class(l, "heading");
  gtk_widget_set_margin_top(l, 6);
  gtk_box_append(GTK_BOX(box), l);
  GtkWidget *flow = gtk_flow_box_new();
  gtk_flow_box_set_selection_mode(GTK_FLOW_BOX(flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line(GTK_FLOW_BOX(flow), 2);
  gtk_flow_box_set_min_children_per_line(GTK_FLOW_BOX(flow), 2);
  gtk_flow_box_set_homogeneous(GTK_FLOW_BOX(flow), TRUE);
  gtk_flow_box_set_column_spacing(GTK_FLOW_BOX(flow), 4);
  gtk_flow_box_set_row_spacing(GTK_FLOW_BOX(flow), 4);
  gtk_accessible_update_property(GTK_ACCESSIBLE(flow), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  gtk_box_append(GTK_BOX(box), flow);
  return flow;
}

static void lw_palette_init(LwPalette *self)
{
  self->sources = g_hash_table_new(g_str_hash, g_str_equal);
  self->toggles = g_hash_table_new(g_str_hash, g_str_equal);
  self->stroke_tool = g_strdup("link");
  self->scroller = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent(self->scroller, GTK_WIDGET(self));
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start(box, 6);
  gtk_widget_set_margin_end(box, 6);
  gtk_widget_set_margin_bottom(box, 6);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroller), box);
  const char *titles[] = {N_("Bodies"), N_("Joints"), N_("Forces"), N_("Tools")};
  GtkWidget *flows[4];
  for (int k = 0; k < 4; k++)
    flows[k] = section(box, _(titles[k]));
  for (int i = 0; items[i].id; i++) {
    const LwPaletteItem *it = &items[i];
    GtkWidget *b = it->stroke ? gtk_toggle_button_new_with_label(_(it->label)) : gtk_button_new_with_label(_(it->label));
    gtk_widget_set_tooltip_text(b, _(it->tooltip));
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, _(it->label),
                                   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _(it->tooltip), -1);
    g_object_set_data(G_OBJECT(b), "item", (gpointer)it->id);
    if (it->kind != LW_ITEM_TOOL) { /* a tool is chosen, not dragged */
      GtkDragSource *src = gtk_drag_source_new();
      gtk_drag_source_set_actions(src, GDK_ACTION_COPY);
      g_object_set_data(G_OBJECT(src), "item", (gpointer)it->id);
      g_signal_connect(src, "prepare", G_CALLBACK(prepare_cb), self);
      gtk_widget_add_controller(b, GTK_EVENT_CONTROLLER(src));
      g_hash_table_insert(self->sources, (gpointer)it->id, src);
    }
    if (it->stroke) {
      gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(b), !strcmp(it->id, "link"));
      g_signal_connect(b, "toggled", G_CALLBACK(toggled_cb), self);
      g_hash_table_insert(self->toggles, (gpointer)it->id, b);
    }
    gtk_flow_box_append(GTK_FLOW_BOX(flows[it->kind]), b);
  }
  /* the work plane of spatial models: which plane, and where along its normal */
  self->plane_axis = 1;
  self->plane_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *pl = gtk_label_new(_("Work plane"));
  gtk_label_set_xalign(GTK_LABEL(pl), 0);
  gtk_widget_add_css_class(pl, "heading");
  gtk_widget_set_margin_top(pl, 6);
  gtk_box_append(GTK_BOX(self->plane_box), pl);
  const char *names[4];
  for (int k = 0; k < 4; k++)
    names[k] = plane_names[k] ? _(plane_names[k]) : NULL;
  self->plane_drop = gtk_drop_down_new_from_strings(names);
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->plane_drop), 1);
  gtk_widget_set_tooltip_text(self->plane_drop, _("The plane that drops and strokes land on"));
  gtk_accessible_update_property(GTK_ACCESSIBLE(self->plane_drop), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Work plane"), -1);
  for (GtkWidget *c = gtk_widget_get_first_child(self->plane_drop); c; c = gtk_widget_get_next_sibling(c))
    if (GTK_IS_BUTTON(c)) /* the button assistive technology meets */
      gtk_accessible_update_property(GTK_ACCESSIBLE(c), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Work plane"), -1);
  gtk_box_append(GTK_BOX(self->plane_box), self->plane_drop);
  GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *ol = gtk_label_new(_("Offset (m)"));
  gtk_widget_add_css_class(ol, "caption");
  gtk_box_append(GTK_BOX(row), ol);
  self->plane_spin = gtk_spin_button_new_with_range(-100, 100, 0.1);
  gtk_spin_button_set_digits(GTK_SPIN_BUTTON(self->plane_spin), 3);
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->plane_spin), 0);
  gtk_widget_set_hexpand(self->plane_spin, TRUE);
  gtk_widget_set_tooltip_text(self->plane_spin, _("Where the work plane lies along its normal axis"));
  gtk_accessible_update_property(GTK_ACCESSIBLE(self->plane_spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                 _("Work plane offset"), -1);
  gtk_box_append(GTK_BOX(row), self->plane_spin);
  gtk_box_append(GTK_BOX(self->plane_box), row);
  g_signal_connect(self->plane_drop, "notify::selected", G_CALLBACK(plane_changed_cb), self);
  g_signal_connect(self->plane_spin, "notify::value", G_CALLBACK(plane_changed_cb), self);
  gtk_widget_set_visible(self->plane_box, FALSE);
  gtk_box_append(GTK_BOX(box), self->plane_box);

  GtkWidget *hint = gtk_label_new(_("Drag an item into the view. Draw a link or a spring by dragging from one "
                                    "point to another in the view. With Move points, drag a point to move it, "
                                    "or drag a link along its length to move the mechanism through its "
                                    "assembled positions (the pose it is left in becomes its initial pose)."));
  gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
  gtk_label_set_xalign(GTK_LABEL(hint), 0);
  gtk_label_set_max_width_chars(GTK_LABEL(hint), 20);
  gtk_widget_add_css_class(hint, "dim-label");
  gtk_widget_add_css_class(hint, "caption");
  gtk_widget_set_margin_top(hint, 8);
  gtk_box_append(GTK_BOX(box), hint);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Palette"), -1);
}

static void lw_palette_get_property(GObject *obj, guint prop, GValue *value, GParamSpec *pspec)
{
  LwPalette *self = LW_PALETTE(obj);
  if (prop == PROP_STROKE_TOOL)
    g_value_set_string(value, self->stroke_tool);
  else if (prop == PROP_PLANE_AXIS)
    g_value_set_int(value, self->plane_axis);
  else if (prop == PROP_PLANE_OFFSET)
    g_value_set_double(value, self->plane_offset);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, prop, pspec);
}

static void lw_palette_dispose(GObject *obj)
{
  LwPalette *self = LW_PALETTE(obj);
  g_clear_pointer(&self->scroller, gtk_widget_unparent);
  G_OBJECT_CLASS(lw_palette_parent_class)->dispose(obj);
}

static void lw_palette_finalize(GObject *obj)
{
  LwPalette *self = LW_PALETTE(obj);
  g_hash_table_unref(self->sources);
  g_hash_table_unref(self->toggles);
  g_free(self->stroke_tool);
  G_OBJECT_CLASS(lw_palette_parent_class)->finalize(obj);
}

static void lw_palette_class_init(LwPaletteClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS(klass);
  oc->get_property = lw_palette_get_property;
  oc->dispose = lw_palette_dispose;
  oc->finalize = lw_palette_finalize;
  props[PROP_STROKE_TOOL] = g_param_spec_string("stroke-tool", NULL, NULL, "link",
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_PLANE_AXIS] = g_param_spec_int("plane-axis", NULL, NULL, 0, 2, 1,
                                            G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_PLANE_OFFSET] = g_param_spec_double("plane-offset", NULL, NULL, -100, 100, 0,
                                                 G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties(oc, N_PROPS, props);
  gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role(GTK_WIDGET_CLASS(klass), GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "lw-palette");
}

GtkWidget *lw_palette_new(void)
{
  return g_object_new(LW_TYPE_PALETTE, NULL);
}

const char *lw_palette_get_stroke_tool(LwPalette *self)
{
  g_return_val_if_fail(LW_IS_PALETTE(self), NULL);
  return self->stroke_tool;
}

void lw_palette_set_stroke_tool(LwPalette *self, const char *id)
{
  g_return_if_fail(LW_IS_PALETTE(self));
  const LwPaletteItem *it = lw_palette_item_find(id);
  if (!it || !it->stroke || !g_strcmp0(id, self->stroke_tool))
    return;
  g_free(self->stroke_tool);
  self->stroke_tool = g_strdup(id);
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init(&iter, self->toggles);
  while (g_hash_table_iter_next(&iter, &key, &value)) {
    g_signal_handlers_block_by_func(value, toggled_cb, self);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(value), !strcmp(key, id));
    g_signal_handlers_unblock_by_func(value, toggled_cb, self);
  }
  g_object_notify_by_pspec(G_OBJECT(self), props[PROP_STROKE_TOOL]);
}

GtkDragSource *lw_palette_get_drag_source(LwPalette *self, const char *id)
{
  g_return_val_if_fail(LW_IS_PALETTE(self), NULL);
  return g_hash_table_lookup(self->sources, id);
}

void lw_palette_set_spatial(LwPalette *self, gboolean spatial)
{
  g_return_if_fail(LW_IS_PALETTE(self));
  gtk_widget_set_visible(self->plane_box, spatial);
}

void lw_palette_set_work_plane(LwPalette *self, int axis, double offset)
{
  g_return_if_fail(LW_IS_PALETTE(self));
  for (guint row = 0; row < 3; row++)
    if (plane_normal[row] == axis)
      gtk_drop_down_set_selected(GTK_DROP_DOWN(self->plane_drop), row);
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->plane_spin), offset);
}

int lw_palette_get_plane_axis(LwPalette *self)
{
  g_return_val_if_fail(LW_IS_PALETTE(self), 1);
  return self->plane_axis;
}

double lw_palette_get_plane_offset(LwPalette *self)
{
  g_return_val_if_fail(LW_IS_PALETTE(self), 0);
  return self->plane_offset;
}
