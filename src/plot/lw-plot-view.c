/* lw-plot-view.c: the GTK 4 widget around LwPlot.
 *
 * All drawing is lw_plot_draw() into a cairo node, so the screen shows
 * exactly what export writes; the widget only turns pointer and keyboard
 * input into view changes and keeps the plot's colors in step with the
 * style.
 */
#include "lw-plot-view.h"

#include <glib/gi18n.h>
#include <math.h>

#define LW_ZOOM_STEP 1.25     /* per wheel notch and per zoom action */
#define LW_HOVER_DIST 16.0    /* pixels from the pointer to a point to read it out */
#define LW_DRAG_THRESHOLD 3.0 /* pixels before a press becomes a pan */

struct _LwPlotView {
  GtkDrawingArea parent_instance;
  LwPlot *plot;
  char *a11y_text; /* label and description last given to assistive technologies */
  gboolean pointer_in;
  double pointer_x, pointer_y;
  gboolean panning;
  double start_x0, start_x1, start_y0, start_y1; /* view when the drag began */
  double units_x, units_y;                       /* data units per pixel then */
  gboolean ctrl_wheel_only;                      /* the plain wheel is left to the parent */
};

G_DEFINE_FINAL_TYPE(LwPlotView, lw_plot_view, GTK_TYPE_DRAWING_AREA)

enum { SIGNAL_VIEW_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* the user moved the view: zoom, pan or back to automatic */
static void lw_plot_view_changed(LwPlotView *self)
{
  g_signal_emit(self, signals[SIGNAL_VIEW_CHANGED], 0);
}

static void lw_plot_view_sync_accessible(LwPlotView *self)
{
  const char *title = lw_plot_get_title(self->plot);
  const char *xl = lw_plot_get_x_label(self->plot), *yl = lw_plot_get_y_label(self->plot);
  const char *label = title ? title : _("Plot");
  g_autofree char *desc = xl && yl ? g_strdup_printf(_("%s against %s"), yl, xl) : g_strdup("");
  g_autofree char *text = g_strconcat(label, "\n", desc, NULL);
  if (g_strcmp0(text, self->a11y_text) == 0)
    return;
  g_free(self->a11y_text);
  self->a11y_text = g_steal_pointer(&text);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                 GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, desc, -1);
}

static void lw_plot_view_clear_hover(LwPlotView *self)
{
  lw_plot_set_hover(self->plot, -1, 0, 0);
}

/* Zoom about a pixel: over the left margin the y axis only, over the
 * bottom margin the x axis only, elsewhere both. */
static void lw_plot_view_zoom_at(LwPlotView *self, double factor, double px, double py)
{
  double ax, ay, aw, ah, cx, cy;
  if (!lw_plot_get_data_area(self->plot, &ax, &ay, &aw, &ah))
    return;
  lw_plot_from_pixel(self->plot, px, py, &cx, &cy);
  double fx = factor, fy = factor;
  if (px < ax && py >= ay && py <= ay + ah)
    fx = 1;
  else if (py > ay + ah && px >= ax && px <= ax + aw)
    fy = 1;
  lw_plot_zoom_xy(self->plot, fx, fy, cx, cy);
  lw_plot_view_clear_hover(self);
  gtk_widget_queue_draw(GTK_WIDGET(self));
  lw_plot_view_changed(self);
}

static void lw_plot_view_zoom_center(LwPlotView *self, double factor)
{
  double x0, x1, y0, y1;
  lw_plot_get_view(self->plot, &x0, &x1, &y0, &y1);
  lw_plot_zoom(self->plot, factor, 0.5 * (x0 + x1), 0.5 * (y0 + y1));
  lw_plot_view_clear_hover(self);
  gtk_widget_queue_draw(GTK_WIDGET(self));
  lw_plot_view_changed(self);
}

static void lw_plot_view_action(GtkWidget *widget, const char *name, GVariant *param)
{
  LwPlotView *self = LW_PLOT_VIEW(widget);
  (void)param;
  if (g_str_equal(name, "plot.zoom-in"))
    lw_plot_view_zoom_center(self, LW_ZOOM_STEP);
  else if (g_str_equal(name, "plot.zoom-out"))
    lw_plot_view_zoom_center(self, 1 / LW_ZOOM_STEP);
  else {
    lw_plot_reset_view(self->plot);
    lw_plot_view_clear_hover(self);
    gtk_widget_queue_draw(widget);
    lw_plot_view_changed(self);
  }
}

/* ---- input ------------------------------------------------------------- */
static gboolean lw_plot_view_scroll(GtkEventControllerScroll *controller, double dx, double dy, LwPlotView *self)
{
  (void)dx;
  if (self->ctrl_wheel_only &&
      !(gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(controller)) & GDK_CONTROL_MASK))
    return FALSE;
  /* a wheel notch is 1; touchpads report pixels, a few dozen per gesture */
  if (gtk_event_controller_scroll_get_unit(controller) == GDK_SCROLL_UNIT_SURFACE)
    dy /= 20;
  if (dy == 0)
    return FALSE;
  double px = self->pointer_x, py = self->pointer_y;
  if (!self->pointer_in) {
    px = 0.5 * gtk_widget_get_width(GTK_WIDGET(self));
    py = 0.5 * gtk_widget_get_height(GTK_WIDGET(self));
  }
  lw_plot_view_zoom_at(self, pow(LW_ZOOM_STEP, -dy), px, py);
  return TRUE;
}

static void lw_plot_view_motion(GtkEventControllerMotion *controller, double x, double y, LwPlotView *self)
{
  (void)controller;
  self->pointer_in = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  if (self->panning)
    return;
  guint series;
  double px, py;
  if (lw_plot_nearest(self->plot, x, y, LW_HOVER_DIST, &series, &px, &py))
    lw_plot_set_hover(self->plot, (int)series, px, py);
  else
    lw_plot_view_clear_hover(self);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void lw_plot_view_leave(GtkEventControllerMotion *controller, LwPlotView *self)
{
  (void)controller;
  self->pointer_in = FALSE;
  lw_plot_view_clear_hover(self);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void lw_plot_view_drag_begin(GtkGestureDrag *gesture, double x, double y, LwPlotView *self)
{
  (void)gesture;
  (void)x;
  (void)y;
  double aw, ah;
  self->panning = FALSE;
  self->units_x = self->units_y = 0;
  if (!lw_plot_get_data_area(self->plot, NULL, NULL, &aw, &ah))
    return;
  lw_plot_get_view(self->plot, &self->start_x0, &self->start_x1, &self->start_y0, &self->start_y1);
  self->units_x = (self->start_x1 - self->start_x0) / aw;
  self->units_y = (self->start_y1 - self->start_y0) / ah;
}

static void lw_plot_view_drag_update(GtkGestureDrag *gesture, double ox, double oy, LwPlotView *self)
{
  (void)gesture;
  if (self->units_x == 0)
    return;
  /* a click that wobbles a pixel must not leave the automatic view */
  if (!self->panning && hypot(ox, oy) < LW_DRAG_THRESHOLD)
    return;
  if (!self->panning) {
    self->panning = TRUE;
    lw_plot_view_clear_hover(self);
    gtk_widget_set_cursor_from_name(GTK_WIDGET(self), "grabbing");
  }
  /* the data follows the pointer, so the view moves against it; pixel y
   * grows downwards, data y upwards */
  lw_plot_set_view(self->plot, self->start_x0, self->start_x1, self->start_y0, self->start_y1);
  lw_plot_pan(self->plot, -ox * self->units_x, oy * self->units_y);
  gtk_widget_queue_draw(GTK_WIDGET(self));
  lw_plot_view_changed(self);
}

static void lw_plot_view_drag_end(GtkGestureDrag *gesture, double ox, double oy, LwPlotView *self)
{
  (void)gesture;
  (void)ox;
  (void)oy;
  if (self->panning)
    gtk_widget_set_cursor(GTK_WIDGET(self), NULL);
  self->panning = FALSE;
}

static void lw_plot_view_pressed(GtkGestureClick *gesture, int n_press, double x, double y, LwPlotView *self)
{
  (void)gesture;
  (void)x;
  (void)y;
  gtk_widget_grab_focus(GTK_WIDGET(self));
  if (n_press == 2)
    gtk_widget_activate_action(GTK_WIDGET(self), "plot.reset-view", NULL);
}

/* ---- GtkWidget --------------------------------------------------------- */
static void lw_plot_view_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
  LwPlotView *self = LW_PLOT_VIEW(widget);
  int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
  if (width <= 0 || height <= 0)
    return;
  GdkRGBA c;
  gtk_style_context_get_color(gtk_widget_get_style_context(widget), &c);
  LwPlotColor fg = {c.red, c.green, c.blue, c.alpha};
  /* GTK 4.8 offers no background color to ask for: light text means a dark
   * style, which gets the dark view background of Adwaita */
  double luma = 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue;
  LwPlotColor bg = luma > 0.5 ? (LwPlotColor){0.118, 0.118, 0.118, 1} : (LwPlotColor){1, 1, 1, 1};
  lw_plot_set_colors(self->plot, &fg, &bg);
  cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, width, height));
  lw_plot_draw(self->plot, cr, width, height);
  cairo_destroy(cr);
}

static void lw_plot_view_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                 int *natural, int *minimum_baseline, int *natural_baseline)
{
  (void)widget;
  (void)for_size;
  gboolean h = orientation == GTK_ORIENTATION_HORIZONTAL;
  *minimum = h ? 160 : 120;
  *natural = h ? 480 : 320;
  *minimum_baseline = *natural_baseline = -1;
}

static void lw_plot_view_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS(lw_plot_view_parent_class)->css_changed(widget, change);
  gtk_widget_queue_draw(widget); /* the foreground color may have changed */
}

static void lw_plot_view_finalize(GObject *object)
{
  LwPlotView *self = LW_PLOT_VIEW(object);
  lw_plot_free(self->plot);
  g_free(self->a11y_text);
  G_OBJECT_CLASS(lw_plot_view_parent_class)->finalize(object);
}

static void lw_plot_view_class_init(LwPlotViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  object_class->finalize = lw_plot_view_finalize;
  widget_class->snapshot = lw_plot_view_snapshot;
  widget_class->measure = lw_plot_view_measure;
  widget_class->css_changed = lw_plot_view_css_changed;
  gtk_widget_class_set_css_name(widget_class, "plot");
  signals[SIGNAL_VIEW_CHANGED] = g_signal_new("view-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                              NULL, NULL, G_TYPE_NONE, 0);
  /* a chart is an image to assistive technologies, named by its title */
  gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);

  gtk_widget_class_install_action(widget_class, "plot.reset-view", NULL, lw_plot_view_action);
  gtk_widget_class_install_action(widget_class, "plot.zoom-in", NULL, lw_plot_view_action);
  gtk_widget_class_install_action(widget_class, "plot.zoom-out", NULL, lw_plot_view_action);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "plot.reset-view", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_KP_0, GDK_CONTROL_MASK, "plot.reset-view", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "plot.zoom-in", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "plot.zoom-in", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "plot.zoom-in", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "plot.zoom-out", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK, "plot.zoom-out",
                                      NULL);
}

static void lw_plot_view_init(LwPlotView *self)
{
  GtkWidget *widget = GTK_WIDGET(self);
  self->plot = lw_plot_new();
  gtk_widget_set_focusable(widget, TRUE);
  gtk_widget_set_focus_on_click(widget, TRUE);
  gtk_widget_set_overflow(widget, GTK_OVERFLOW_HIDDEN);

  GtkEventController *scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect(scroll, "scroll", G_CALLBACK(lw_plot_view_scroll), self);
  gtk_widget_add_controller(widget, scroll);

  GtkEventController *motion = gtk_event_controller_motion_new();
  g_signal_connect(motion, "enter", G_CALLBACK(lw_plot_view_motion), self);
  g_signal_connect(motion, "motion", G_CALLBACK(lw_plot_view_motion), self);
  g_signal_connect(motion, "leave", G_CALLBACK(lw_plot_view_leave), self);
  gtk_widget_add_controller(widget, motion);

  GtkGesture *drag = gtk_gesture_drag_new();
  gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), GDK_BUTTON_PRIMARY);
  g_signal_connect(drag, "drag-begin", G_CALLBACK(lw_plot_view_drag_begin), self);
  g_signal_connect(drag, "drag-update", G_CALLBACK(lw_plot_view_drag_update), self);
  g_signal_connect(drag, "drag-end", G_CALLBACK(lw_plot_view_drag_end), self);
  gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(drag));

  GtkGesture *click = gtk_gesture_click_new();
  gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), GDK_BUTTON_PRIMARY);
  g_signal_connect(click, "pressed", G_CALLBACK(lw_plot_view_pressed), self);
  gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(click));

  lw_plot_view_sync_accessible(self);
}

GtkWidget *lw_plot_view_new(void)
{
  return g_object_new(LW_TYPE_PLOT_VIEW, NULL);
}

LwPlot *lw_plot_view_get_plot(LwPlotView *self)
{
  g_return_val_if_fail(LW_IS_PLOT_VIEW(self), NULL);
  return self->plot;
}

void lw_plot_view_queue_update(LwPlotView *self)
{
  g_return_if_fail(LW_IS_PLOT_VIEW(self));
  lw_plot_view_sync_accessible(self);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

void lw_plot_view_set_wheel_zoom(LwPlotView *self, gboolean wheel_zoom)
{
  g_return_if_fail(LW_IS_PLOT_VIEW(self));
  self->ctrl_wheel_only = !wheel_zoom;
}
