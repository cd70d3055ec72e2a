/* lw-template-dialog.c: the template dialog (see lw-template-dialog.h).
 *
 * The dimensions live in an LwFourBar and an LwSliderCrank, always in
 * metres and radians; the spin buttons show them in the chosen unit and
 * degrees, and every change recomputes the figures (lw-templates.c) and
 * redraws the sketch. */
#include "lw-template-dialog.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stddef.h>

#include "lw-templates.h"

typedef enum { F_LENGTH, F_SIGNED_LENGTH, F_ANGLE, F_SPEED, F_DENSITY, F_MASS } FieldKind;

typedef struct {
  const char *id;
  LwTemplateKind tmpl;
  const char *group;
  const char *title;
  const char *subtitle;
  FieldKind kind;
  gsize offset; /* of the double in LwFourBar or LwSliderCrank */
} FieldDef;

static const FieldDef fields[] = {
  {"fb-ground", LW_TEMPLATE_FOUR_BAR, N_("Links"), N_("Ground"), N_("Between the pivots A and D"), F_LENGTH,
   offsetof(LwFourBar, ground)},
  {"fb-crank", LW_TEMPLATE_FOUR_BAR, N_("Links"), N_("Crank"), N_("A to B, the input"), F_LENGTH,
   offsetof(LwFourBar, crank)},
  {"fb-coupler", LW_TEMPLATE_FOUR_BAR, N_("Links"), N_("Coupler"), N_("B to C"), F_LENGTH,
   offsetof(LwFourBar, coupler)},
  {"fb-rocker", LW_TEMPLATE_FOUR_BAR, N_("Links"), N_("Rocker"), N_("D to C, the output"), F_LENGTH,
   offsetof(LwFourBar, rocker)},
  {"fb-point-along", LW_TEMPLATE_FOUR_BAR, N_("Coupler point P"), N_("Along the coupler"), N_("From B towards C"),
   F_SIGNED_LENGTH, offsetof(LwFourBar, point_along)},
  {"fb-point-offset", LW_TEMPLATE_FOUR_BAR, N_("Coupler point P"), N_("Off the coupler"),
   N_("To the left of B to C; its path is the output coupler_point"), F_SIGNED_LENGTH,
   offsetof(LwFourBar, point_offset)},
  {"fb-angle", LW_TEMPLATE_FOUR_BAR, N_("Start and mass"), N_("Crank angle"), N_("From the ground line A to D"),
   F_ANGLE, offsetof(LwFourBar, crank_angle)},
  {"fb-speed", LW_TEMPLATE_FOUR_BAR, N_("Start and mass"), N_("Crank speed"), N_("Initial, counter-clockwise"),
   F_SPEED, offsetof(LwFourBar, crank_speed)},
  {"fb-density", LW_TEMPLATE_FOUR_BAR, N_("Start and mass"), N_("Mass per length"), N_("Of every link"),
   F_DENSITY, offsetof(LwFourBar, density)},
  {"sc-crank", LW_TEMPLATE_SLIDER_CRANK, N_("Links"), N_("Crank"), N_("About the origin"), F_LENGTH,
   offsetof(LwSliderCrank, crank)},
  {"sc-rod", LW_TEMPLATE_SLIDER_CRANK, N_("Links"), N_("Connecting rod"), N_("Crank pin to slider pin"), F_LENGTH,
   offsetof(LwSliderCrank, rod)},
  {"sc-offset", LW_TEMPLATE_SLIDER_CRANK, N_("Links"), N_("Offset"),
   N_("Eccentricity: the slider line's height above the crank pivot"), F_SIGNED_LENGTH,
   offsetof(LwSliderCrank, offset)},
  {"sc-angle", LW_TEMPLATE_SLIDER_CRANK, N_("Start and mass"), N_("Crank angle"), N_("From the slider's direction"),
   F_ANGLE, offsetof(LwSliderCrank, crank_angle)},
  {"sc-speed", LW_TEMPLATE_SLIDER_CRANK, N_("Start and mass"), N_("Crank speed"), N_("Initial, counter-clockwise"),
   F_SPEED, offsetof(LwSliderCrank, crank_speed)},
  {"sc-slider-mass", LW_TEMPLATE_SLIDER_CRANK, N_("Start and mass"), N_("Slider mass"), NULL, F_MASS,
   offsetof(LwSliderCrank, slider_mass)},
  {"sc-density", LW_TEMPLATE_SLIDER_CRANK, N_("Start and mass"), N_("Mass per length"), N_("Of crank and rod"),
   F_DENSITY, offsetof(LwSliderCrank, density)},
};

/* length units of the unit drop-down */
static const double unit_scale[] = {1.0, 1000.0};
static const char *const unit_names[] = {"m", "mm"};

/* the link colours of the models the templates build */
static const double sketch_colors[][3] = {{0.85, 0.33, 0.10}, {0.20, 0.45, 0.80}, {0.20, 0.65, 0.35}};

struct _LwTemplateDialog {
  AdwWindow parent_instance;
  GtkWidget *stack, *unit_dropdown, *open_button;
  GtkWidget *fb_fields, *sc_fields, *fb_sketch, *sc_sketch;
  GtkWidget *fb_grashof, *fb_transmission, *fb_assembly;
  GtkWidget *sc_stroke, *sc_quick_return, *sc_assembly;
  LwWindow *window; /* weak */
  LwFourBar fb;
  LwSliderCrank sc;
  guint unit;
  gboolean filling; /* the spin buttons are being set from the dimensions */
  GHashTable *spins; /* field id -> GtkSpinButton */
};

G_DEFINE_FINAL_TYPE(LwTemplateDialog, lw_template_dialog, ADW_TYPE_WINDOW)

static double *field_value(LwTemplateDialog *self, const FieldDef *f)
{
  char *base = f->tmpl == LW_TEMPLATE_FOUR_BAR ? (char *)&self->fb : (char *)&self->sc;
  return (double *)(base + f->offset);
}

static gboolean is_length(FieldKind k)
{
  return k == F_LENGTH || k == F_SIGNED_LENGTH;
}

/* display value = stored value * factor */
static double field_factor(const LwTemplateDialog *self, const FieldDef *f)
{
  if (is_length(f->kind))
    return unit_scale[self->unit];
  return f->kind == F_ANGLE ? 180 / G_PI : 1.0;
}

static const char *field_unit(const LwTemplateDialog *self, const FieldDef *f)
{
  switch (f->kind) {
  case F_LENGTH:
  case F_SIGNED_LENGTH: return unit_names[self->unit];
  case F_ANGLE: return "°";
  case F_SPEED: return "rad/s";
  case F_DENSITY: return "kg/m";
  default: return "kg";
  }
}

/* range, step and digits of a field in the current unit */
static void field_configure(LwTemplateDialog *self, const FieldDef *f, GtkSpinButton *spin)
{
  gboolean mm = self->unit == 1;
  double lo, hi, step;
  int digits;
  switch (f->kind) {
  case F_LENGTH: lo = mm ? 1 : 0.001, hi = mm ? 1e5 : 100, step = mm ? 1 : 0.01, digits = mm ? 1 : 4; break;
  case F_SIGNED_LENGTH: lo = mm ? -1e5 : -100, hi = -lo, step = mm ? 1 : 0.01, digits = mm ? 1 : 4; break;
  case F_ANGLE: lo = -360, hi = 360, step = 1, digits = 1; break;
  case F_SPEED: lo = -100, hi = 100, step = 0.5, digits = 2; break;
  default: lo = 0.001, hi = 1e4, step = 0.1, digits = 3; break;
  }
  gtk_spin_button_set_digits(spin, (guint)digits);
  gtk_spin_button_set_range(spin, lo, hi);
  gtk_spin_button_set_increments(spin, step, 10 * step);
  gtk_spin_button_set_value(spin, *field_value(self, f) * field_factor(self, f));
  GtkWidget *unit = g_object_get_data(G_OBJECT(spin), "unit-label");
  gtk_label_set_text(GTK_LABEL(unit), field_unit(self, f));
}

/* ---- the figures ------------------------------------------------------------ */
static void set_result(GtkWidget *row, const char *text)
{
  adw_action_row_set_subtitle(ADW_ACTION_ROW(row), text);
}

static void update_four_bar(LwTemplateDialog *self)
{
  const LwFourBar *fb = &self->fb;
  LwFourBarInfo info;
  lw_four_bar_analyze(fb, &info);
  double u = unit_scale[self->unit], deg = 180 / G_PI;
  const char *un = unit_names[self->unit];
  const double len[4] = {fb->ground, fb->crank, fb->coupler, fb->rocker};
  double s = len[0], l = len[0], sum = 0;
  for (int i = 0; i < 4; i++) {
    s = fmin(s, len[i]);
    l = fmax(l, len[i]);
    sum += len[i];
  }
  g_autofree char *grashof =
      g_strdup_printf(_("%s. %s (s + l = %.4g %s, p + q = %.4g %s)."), lw_grashof_class_name(info.grashof),
                      lw_grashof_class_meaning(info.grashof), (s + l) * u, un, (sum - s - l) * u, un);
  set_result(self->fb_grashof, grashof);
  g_autofree char *mu = NULL;
  if (info.assembly == LW_ASSEMBLY_BAD_LENGTH || info.assembly == LW_ASSEMBLY_NEVER)
    mu = g_strdup(_("None: the linkage does not assemble at any crank angle."));
  else if (info.crank_turns)
    mu = g_strdup_printf(_("%.1f° to %.1f° over a full crank turn (at 0° and 180°)."), info.mu_min * deg,
                         info.mu_max * deg);
  else
    mu = g_strdup_printf(_("%.1f° to %.1f° over the crank angles it reaches, %.1f° to %.1f° (and the same below "
                           "the ground line)."),
                         info.mu_min * deg, info.mu_max * deg, info.crank_lo * deg, info.crank_hi * deg);
  if (mu && info.assembly != LW_ASSEMBLY_NEVER && info.assembly != LW_ASSEMBLY_BAD_LENGTH &&
      (info.mu_min < 40 / deg || info.mu_max > 140 / deg)) {
    char *more = g_strconcat(mu, " ", _("Outside 40° to 140° the linkage transmits force poorly."), NULL);
    g_free(mu);
    mu = more;
  }
  set_result(self->fb_transmission, mu);
  g_autofree char *why = lw_four_bar_assembly_text(fb, &info, u, un);
  g_autofree char *ok = g_strdup_printf(_("Assembles at %.1f°."), fb->crank_angle * deg);
  set_result(self->fb_assembly, why ? why : ok);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "template.open", info.assembly == LW_ASSEMBLY_OK);
  gtk_widget_queue_draw(self->fb_sketch);
}

static void update_slider_crank(LwTemplateDialog *self)
{
  const LwSliderCrank *sc = &self->sc;
  LwSliderCrankInfo info;
  lw_slider_crank_analyze(sc, &info);
  double u = unit_scale[self->unit], deg = 180 / G_PI;
  const char *un = unit_names[self->unit];
  g_autofree char *stroke = NULL, *qr = NULL, *rod = NULL;
  double need = sc->crank + fabs(sc->offset);
  if (info.rod_long_enough) {
    stroke = g_strdup_printf(_("%.4g %s: the slider moves from %.4g to %.4g %s."), info.stroke * u, un,
                             info.x_min * u, info.x_max * u, un);
    double slow = 360 * info.quick_return / (1 + info.quick_return);
    qr = sc->offset == 0 ? g_strdup(_("1: without offset both strokes take half a crank turn."))
                         : g_strdup_printf(_("%.4f: one stroke takes %.1f° of crank turn, the other %.1f°."),
                                           info.quick_return, slow, 360 - slow);
    rod = g_strdup_printf(_("Long enough: rod %.4g %s > crank + |offset| = %.4g %s; the crank turns fully."),
                          sc->rod * u, un, need * u, un);
  } else {
    stroke = g_strdup(_("None: the crank cannot turn fully."));
    qr = g_strdup(_("None: the crank cannot turn fully."));
    rod = g_strdup_printf(_("Too short for a full crank turn: rod %.4g %s <= crank + |offset| = %.4g %s."),
                          sc->rod * u, un, need * u, un);
  }
  set_result(self->sc_stroke, stroke);
  set_result(self->sc_quick_return, qr);
  g_autofree char *why = lw_slider_crank_assembly_text(sc, &info, u, un);
  g_autofree char *all = g_strdup_printf("%s %s", rod, why ? why : "");
  (void)deg;
  set_result(self->sc_assembly, g_strstrip(all));
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "template.open", info.assembly == LW_ASSEMBLY_OK);
  gtk_widget_queue_draw(self->sc_sketch);
}

static LwTemplateKind visible_kind(LwTemplateDialog *self)
{
  const char *page = adw_view_stack_get_visible_child_name(ADW_VIEW_STACK(self->stack));
  return g_strcmp0(page, "slider-crank") == 0 ? LW_TEMPLATE_SLIDER_CRANK : LW_TEMPLATE_FOUR_BAR;
}

static void update_figures(LwTemplateDialog *self)
{
  /* both pages' figures; Open follows the page shown */
  if (visible_kind(self) == LW_TEMPLATE_FOUR_BAR) {
    update_slider_crank(self);
    update_four_bar(self);
  } else {
    update_four_bar(self);
    update_slider_crank(self);
  }
}

static void spin_changed_cb(GtkSpinButton *spin, gpointer user)
{
  LwTemplateDialog *self = user;
  if (self->filling)
    return;
  const FieldDef *f = g_object_get_data(G_OBJECT(spin), "field");
  *field_value(self, f) = gtk_spin_button_get_value(spin) / field_factor(self, f);
  update_figures(self);
}

static void fill_fields(LwTemplateDialog *self)
{
  self->filling = TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS(fields); i++)
    field_configure(self, &fields[i], g_hash_table_lookup(self->spins, fields[i].id));
  self->filling = FALSE;
  update_figures(self);
}

static void unit_changed_cb(GObject *dropdown, GParamSpec *pspec, gpointer user)
{
  (void)pspec;
  LwTemplateDialog *self = user;
  guint u = gtk_drop_down_get_selected(GTK_DROP_DOWN(dropdown));
  self->unit = u < G_N_ELEMENTS(unit_scale) ? u : 0;
  fill_fields(self);
}

static void page_changed_cb(GObject *stack, GParamSpec *pspec, gpointer user)
{
  (void)stack;
  (void)pspec;
  update_figures(user);
}

/* ---- building the fields ------------------------------------------------------ */
static GtkWidget *group_for(GtkWidget *box, const char *title)
{
  for (GtkWidget *c = gtk_widget_get_first_child(box); c; c = gtk_widget_get_next_sibling(c))
    if (g_strcmp0(adw_preferences_group_get_title(ADW_PREFERENCES_GROUP(c)), title) == 0)
      return c;
  GtkWidget *g = adw_preferences_group_new();
  adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(g), title);
  gtk_box_append(GTK_BOX(box), g);
  return g;
}

static void add_field(LwTemplateDialog *self, const FieldDef *f)
{
  GtkWidget *box = f->tmpl == LW_TEMPLATE_FOUR_BAR ? self->fb_fields : self->sc_fields;
  GtkWidget *group = group_for(box, _(f->group));
  GtkWidget *row = adw_action_row_new();
  adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _(f->title));
  if (f->subtitle)
    adw_action_row_set_subtitle(ADW_ACTION_ROW(row), _(f->subtitle));
  GtkWidget *spin = gtk_spin_button_new_with_range(0, 1, 1);
  gtk_widget_set_valign(spin, GTK_ALIGN_CENTER);
  gtk_editable_set_width_chars(GTK_EDITABLE(spin), 9);
  gtk_widget_set_name(spin, f->id);
  gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL, _(f->title), -1);
  GtkWidget *unit = gtk_label_new(NULL);
  gtk_label_set_width_chars(GTK_LABEL(unit), 5);
  gtk_label_set_xalign(GTK_LABEL(unit), 0);
  gtk_widget_add_css_class(unit, "dim-label");
  g_object_set_data(G_OBJECT(spin), "field", (gpointer)f);
  g_object_set_data(G_OBJECT(spin), "unit-label", unit);
  adw_action_row_add_suffix(ADW_ACTION_ROW(row), spin);
  adw_action_row_add_suffix(ADW_ACTION_ROW(row), unit);
  adw_action_row_set_activatable_widget(ADW_ACTION_ROW(row), spin);
  adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
  g_hash_table_insert(self->spins, (gpointer)f->id, spin);
  g_signal_connect(spin, "value-changed", G_CALLBACK(spin_changed_cb), self);
}

/* ---- sketches ------------------------------------------------------------------ */
typedef struct {
  double lo[2], hi[2];
} Bounds;

static void bounds_add(Bounds *b, double x, double y)
{
  b->lo[0] = fmin(b->lo[0], x);
  b->lo[1] = fmin(b->lo[1], y);
  b->hi[0] = fmax(b->hi[0], x);
  b->hi[1] = fmax(b->hi[1], y);
}

/* model coordinates to the area: the bounds fitted with a margin, y up */
typedef struct {
  double s, ox, oy;
} Fit;

static Fit fit_bounds(const Bounds *b, int w, int h)
{
  double margin = 28, bw = fmax(b->hi[0] - b->lo[0], 1e-9), bh = fmax(b->hi[1] - b->lo[1], 1e-9);
  Fit f;
  f.s = fmin((w - 2 * margin) / bw, (h - 2 * margin) / bh);
  f.ox = 0.5 * w - f.s * 0.5 * (b->lo[0] + b->hi[0]);
  f.oy = 0.5 * h + f.s * 0.5 * (b->lo[1] + b->hi[1]);
  return f;
}

static void to_area(const Fit *f, const double p[2], double *x, double *y)
{
  *x = f->ox + f->s * p[0];
  *y = f->oy - f->s * p[1];
}

static void draw_link(cairo_t *cr, const Fit *f, const double a[2], const double b[2], const double color[3])
{
  double x0, y0, x1, y1;
  to_area(f, a, &x0, &y0);
  to_area(f, b, &x1, &y1);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_line_width(cr, 7);
  cairo_set_source_rgb(cr, color[0], color[1], color[2]);
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
}

static void draw_pin(cairo_t *cr, const Fit *f, const double p[2], const GdkRGBA *fg, const char *label)
{
  double x, y;
  to_area(f, p, &x, &y);
  cairo_set_line_width(cr, 1.5);
  cairo_new_path(cr);
  cairo_arc(cr, x, y, 4, 0, 2 * G_PI);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_fill_preserve(cr);
  gdk_cairo_set_source_rgba(cr, fg);
  cairo_stroke(cr);
  if (label) {
    cairo_set_font_size(cr, 13);
    cairo_move_to(cr, x + 7, y - 7);
    cairo_show_text(cr, label);
    cairo_new_path(cr);
  }
}

/* a ground pivot: a hatched triangle under the point */
static void draw_pivot(cairo_t *cr, const Fit *f, const double p[2], const GdkRGBA *fg)
{
  double x, y;
  to_area(f, p, &x, &y);
  gdk_cairo_set_source_rgba(cr, fg);
  cairo_set_line_width(cr, 1.5);
  cairo_move_to(cr, x, y);
  cairo_line_to(cr, x - 9, y + 14);
  cairo_line_to(cr, x + 9, y + 14);
  cairo_close_path(cr);
  cairo_stroke(cr);
  for (int k = 0; k < 4; k++) {
    cairo_move_to(cr, x - 10 + 6 * k, y + 20);
    cairo_line_to(cr, x - 6 + 6 * k, y + 14);
  }
  cairo_stroke(cr);
}

static void draw_note(cairo_t *cr, int w, const GdkRGBA *fg, const char *text)
{
  (void)fg;
  cairo_set_source_rgb(cr, 0.75, 0.11, 0.16);
  cairo_set_font_size(cr, 14);
  cairo_text_extents_t ext;
  cairo_text_extents(cr, text, &ext);
  cairo_move_to(cr, 0.5 * (w - ext.width), 18);
  cairo_show_text(cr, text);
  cairo_new_path(cr);
}

static void foreground(GtkWidget *w, GdkRGBA *fg)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color(gtk_widget_get_style_context(w), fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
}

/* the coupler curve in one assembly for crank angles t0 to t1 */
static void draw_coupler_arc(cairo_t *cr, const Fit *f, const LwFourBar *fb, gboolean crossed, double t0, double t1)
{
  cairo_new_path(cr);
  cairo_set_source_rgba(cr, 0.55, 0.30, 0.70, 0.9);
  cairo_set_line_width(cr, 1.5);
  gboolean pen = FALSE;
  for (int k = 0; k <= 360; k++) {
    double P[2], x, y;
    if (!lw_four_bar_coupler_point(fb, t0 + (t1 - t0) * k / 360, crossed, P)) {
      pen = FALSE;
      continue;
    }
    to_area(f, P, &x, &y);
    if (pen)
      cairo_line_to(cr, x, y);
    else
      cairo_move_to(cr, x, y);
    pen = TRUE;
  }
  cairo_stroke(cr);
}

/* The coupler curve over the crank angles the linkage reaches: a Grashof
 * linkage stays in the assembly it starts in (the open one); a non-Grashof
 * or change-point linkage's circuit runs through both, joined where coupler
 * and rocker fall in line. */
static void draw_coupler_curve(cairo_t *cr, const Fit *f, const LwFourBar *fb)
{
  LwFourBarInfo info;
  lw_four_bar_analyze(fb, &info);
  if (info.assembly == LW_ASSEMBLY_BAD_LENGTH || info.assembly == LW_ASSEMBLY_NEVER)
    return;
  gboolean both = info.grashof == LW_GRASHOF_TRIPLE_ROCKER || info.grashof == LW_GRASHOF_CHANGE_POINT;
  for (int crossed = 0; crossed <= both; crossed++) {
    if (info.crank_turns) {
      draw_coupler_arc(cr, f, fb, crossed, 0, 2 * G_PI);
      continue;
    }
    draw_coupler_arc(cr, f, fb, crossed, info.crank_lo, info.crank_hi);
    draw_coupler_arc(cr, f, fb, crossed, -info.crank_hi, -info.crank_lo);
  }
}

static void draw_four_bar(GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer user)
{
  LwTemplateDialog *self = user;
  const LwFourBar *fb = &self->fb;
  if (lw_grashof_classify(fb->ground, fb->crank, fb->coupler, fb->rocker) == LW_GRASHOF_INVALID)
    return;
  GdkRGBA fg;
  foreground(GTK_WIDGET(area), &fg);
  const double A[2] = {0, 0}, D[2] = {fb->ground, 0};
  double B[2], C[2], P[2];
  gboolean ok = lw_four_bar_pose(fb, fb->crank_angle, FALSE, B, C);
  Bounds bb = {{0, -0.1 * fb->ground}, {fb->ground, 0}};
  bounds_add(&bb, -fb->crank, -fb->crank);
  bounds_add(&bb, fb->crank, fb->crank);
  for (int k = 0; k <= 144; k++)
    for (int crossed = 0; crossed < 2; crossed++) {
      double B2[2], C2[2], t = 2 * G_PI * k / 144;
      if (lw_four_bar_coupler_point(fb, t, crossed, P) && lw_four_bar_pose(fb, t, crossed, B2, C2)) {
        bounds_add(&bb, P[0], P[1]);
        bounds_add(&bb, C2[0], C2[1]);
      }
    }
  Fit f = fit_bounds(&bb, w, h);
  /* the crank circle */
  double ax, ay;
  to_area(&f, A, &ax, &ay);
  cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.3);
  cairo_set_line_width(cr, 1);
  double dash[] = {4, 4};
  cairo_set_dash(cr, dash, 2, 0);
  cairo_new_path(cr);
  cairo_arc(cr, ax, ay, f.s * fb->crank, 0, 2 * G_PI);
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  draw_coupler_curve(cr, &f, fb);
  if (ok) {
    lw_four_bar_coupler_point(fb, fb->crank_angle, FALSE, P);
    /* the coupler's plate from B and C to P */
    double bx, by, cx, cy, px, py;
    to_area(&f, B, &bx, &by);
    to_area(&f, C, &cx, &cy);
    to_area(&f, P, &px, &py);
    cairo_move_to(cr, bx, by);
    cairo_line_to(cr, cx, cy);
    cairo_line_to(cr, px, py);
    cairo_close_path(cr);
    cairo_set_source_rgba(cr, sketch_colors[1][0], sketch_colors[1][1], sketch_colors[1][2], 0.2);
    cairo_fill(cr);
    draw_link(cr, &f, A, B, sketch_colors[0]);
    draw_link(cr, &f, B, C, sketch_colors[1]);
    draw_link(cr, &f, D, C, sketch_colors[2]);
  } else {
    double tip[2] = {fb->crank * cos(fb->crank_angle), fb->crank * sin(fb->crank_angle)};
    draw_link(cr, &f, A, tip, sketch_colors[0]);
    draw_note(cr, w, &fg, _("Does not assemble at this crank angle"));
  }
  draw_pivot(cr, &f, A, &fg);
  draw_pivot(cr, &f, D, &fg);
  draw_pin(cr, &f, A, &fg, "A");
  draw_pin(cr, &f, D, &fg, "D");
  if (ok) {
    draw_pin(cr, &f, B, &fg, "B");
    draw_pin(cr, &f, C, &fg, "C");
    draw_pin(cr, &f, P, &fg, "P");
  }
}

static void draw_slider_crank(GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer user)
{
  LwTemplateDialog *self = user;
  const LwSliderCrank *sc = &self->sc;
  LwSliderCrankInfo info;
  lw_slider_crank_analyze(sc, &info);
  if (!info.valid)
    return;
  GdkRGBA fg;
  foreground(GTK_WIDGET(area), &fg);
  const double A[2] = {0, 0};
  double B[2], C[2];
  gboolean ok = lw_slider_crank_pose(sc, sc->crank_angle, B, C);
  double hx = 0.3 * sc->crank, hy = 0.15 * sc->crank;
  Bounds bb = {{-sc->crank, -sc->crank}, {sc->crank, sc->crank}};
  double right = info.rod_long_enough ? info.x_max : sc->crank + sc->rod;
  bounds_add(&bb, right + hx, sc->offset + hy);
  bounds_add(&bb, right + hx, sc->offset - hy);
  Fit f = fit_bounds(&bb, w, h);
  double ax, ay;
  to_area(&f, A, &ax, &ay);
  /* crank circle and slider line */
  cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.3);
  cairo_set_line_width(cr, 1);
  double dash[] = {4, 4};
  cairo_set_dash(cr, dash, 2, 0);
  cairo_new_path(cr);
  cairo_arc(cr, ax, ay, f.s * sc->crank, 0, 2 * G_PI);
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  double l0[2] = {-sc->crank, sc->offset}, l1[2] = {right + 2 * hx, sc->offset}, x0, y0, x1, y1;
  to_area(&f, l0, &x0, &y0);
  to_area(&f, l1, &x1, &y1);
  cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.6);
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
  if (info.rod_long_enough) {
    /* the dead centres and the stroke between them */
    cairo_set_source_rgba(cr, 0.55, 0.30, 0.70, 0.9);
    cairo_set_line_width(cr, 2);
    for (int k = 0; k < 2; k++) {
      double p[2] = {k ? info.x_max : info.x_min, sc->offset}, x, y;
      to_area(&f, p, &x, &y);
      cairo_move_to(cr, x, y - 14 - f.s * hy);
      cairo_line_to(cr, x, y + 14 + f.s * hy);
    }
    cairo_stroke(cr);
  }
  if (ok) {
    double cx, cy;
    to_area(&f, C, &cx, &cy);
    cairo_rectangle(cr, cx - f.s * hx, cy - f.s * hy, 2 * f.s * hx, 2 * f.s * hy);
    cairo_set_source_rgb(cr, sketch_colors[2][0], sketch_colors[2][1], sketch_colors[2][2]);
    cairo_fill(cr);
    draw_link(cr, &f, A, B, sketch_colors[0]);
    draw_link(cr, &f, B, C, sketch_colors[1]);
  } else {
    double tip[2] = {sc->crank * cos(sc->crank_angle), sc->crank * sin(sc->crank_angle)};
    draw_link(cr, &f, A, tip, sketch_colors[0]);
    draw_note(cr, w, &fg, _("Does not assemble at this crank angle"));
  }
  draw_pivot(cr, &f, A, &fg);
  draw_pin(cr, &f, A, &fg, "A");
  if (ok) {
    draw_pin(cr, &f, B, &fg, "B");
    draw_pin(cr, &f, C, &fg, "C");
  }
}

/* ---- open ---------------------------------------------------------------------------- */
static void open_action(GtkWidget *widget, const char *name, GVariant *param)
{
  (void)name;
  (void)param;
  LwTemplateDialog *self = LW_TEMPLATE_DIALOG(widget);
  gboolean four_bar = visible_kind(self) == LW_TEMPLATE_FOUR_BAR;
  lw_desc *desc = four_bar ? lw_four_bar_desc(&self->fb) : lw_slider_crank_desc(&self->sc);
  GtkWidget *status = four_bar ? self->fb_assembly : self->sc_assembly;
  if (!desc) {
    set_result(status, _("The linkage does not assemble at the initial crank angle."));
    return;
  }
  lw_check_result chk;
  lw_check(desc, &chk);
  if (chk.status != LW_OK) {
    g_autofree char *msg = g_strdup_printf(_("The model does not assemble: %s"), chk.err.msg);
    set_result(status, msg);
    lw_check_result_clear(&chk);
    lw_desc_free(desc);
    return;
  }
  lw_check_result_clear(&chk);
  if (!self->window) {
    lw_desc_free(desc);
    gtk_window_destroy(GTK_WINDOW(self));
    return;
  }
  lw_window_open_document(self->window, desc, four_bar ? _("Untitled four-bar") : _("Untitled slider-crank"));
  gtk_window_destroy(GTK_WINDOW(self));
}

/* ---- the class ------------------------------------------------------------------------- */
static void lw_template_dialog_dispose(GObject *object)
{
  LwTemplateDialog *self = LW_TEMPLATE_DIALOG(object);
  if (self->window) {
    g_object_remove_weak_pointer(G_OBJECT(self->window), (gpointer *)&self->window);
    self->window = NULL;
  }
  g_clear_pointer(&self->spins, g_hash_table_unref);
  gtk_widget_dispose_template(GTK_WIDGET(self), LW_TYPE_TEMPLATE_DIALOG);
  G_OBJECT_CLASS(lw_template_dialog_parent_class)->dispose(object);
}

static void lw_template_dialog_class_init(LwTemplateDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  object_class->dispose = lw_template_dialog_dispose;
  gtk_widget_class_set_template_from_resource(widget_class,
                                              "/io/github/linkwright/Linkwright/ui/lw-template-dialog.ui");
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, stack);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, unit_dropdown);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, open_button);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, fb_fields);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, sc_fields);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, fb_sketch);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, sc_sketch);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, fb_grashof);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, fb_transmission);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, fb_assembly);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, sc_stroke);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, sc_quick_return);
  gtk_widget_class_bind_template_child(widget_class, LwTemplateDialog, sc_assembly);
  gtk_widget_class_install_action(widget_class, "template.open", NULL, open_action);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void lw_template_dialog_init(LwTemplateDialog *self)
{
  gtk_widget_init_template(GTK_WIDGET(self));
  self->spins = g_hash_table_new(g_str_hash, g_str_equal);
  lw_four_bar_defaults(&self->fb);
  lw_slider_crank_defaults(&self->sc);
  for (gsize i = 0; i < G_N_ELEMENTS(fields); i++)
    add_field(self, &fields[i]);
  gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->fb_sketch), draw_four_bar, self, NULL);
  gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->sc_sketch), draw_slider_crank, self, NULL);
  g_signal_connect(self->unit_dropdown, "notify::selected", G_CALLBACK(unit_changed_cb), self);
  g_signal_connect(self->stack, "notify::visible-child-name", G_CALLBACK(page_changed_cb), self);
  fill_fields(self);
}

LwTemplateDialog *lw_template_dialog_new(LwWindow *window, LwTemplateKind kind)
{
  g_return_val_if_fail(LW_IS_WINDOW(window), NULL);
  LwTemplateDialog *self = g_object_new(LW_TYPE_TEMPLATE_DIALOG, "transient-for", window, NULL);
  self->window = window;
  g_object_add_weak_pointer(G_OBJECT(window), (gpointer *)&self->window);
  adw_view_stack_set_visible_child_name(ADW_VIEW_STACK(self->stack),
                                        kind == LW_TEMPLATE_SLIDER_CRANK ? "slider-crank" : "four-bar");
  return self;
}

GtkSpinButton *lw_template_dialog_get_field(LwTemplateDialog *self, const char *id)
{
  g_return_val_if_fail(LW_IS_TEMPLATE_DIALOG(self), NULL);
  return g_hash_table_lookup(self->spins, id);
}

const char *lw_template_dialog_get_result(LwTemplateDialog *self, const char *id)
{
  g_return_val_if_fail(LW_IS_TEMPLATE_DIALOG(self), NULL);
  GtkWidget *rows[] = {self->fb_grashof, self->fb_transmission, self->fb_assembly,
                       self->sc_stroke,  self->sc_quick_return, self->sc_assembly};
  const char *ids[] = {"fb-grashof", "fb-transmission", "fb-assembly", "sc-stroke", "sc-quick-return", "sc-assembly"};
  for (gsize i = 0; i < G_N_ELEMENTS(ids); i++)
    if (g_strcmp0(ids[i], id) == 0)
      return adw_action_row_get_subtitle(ADW_ACTION_ROW(rows[i]));
  return NULL;
}

void lw_template_dialog_set_unit(LwTemplateDialog *self, guint unit)
{
  g_return_if_fail(LW_IS_TEMPLATE_DIALOG(self));
  gtk_drop_down_set_selected(GTK_DROP_DOWN(self->unit_dropdown), unit);
}

/* ---- the gallery's rows -------------------------------------------------------------- */
static void gallery_row_activated_cb(AdwActionRow *row, gpointer user)
{
  LwWindow *window = user;
  LwTemplateKind kind = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "template"));
  GtkRoot *gallery = gtk_widget_get_root(GTK_WIDGET(row));
  gtk_window_present(GTK_WINDOW(lw_template_dialog_new(window, kind)));
  if (GTK_IS_WINDOW(gallery) && GTK_WIDGET(gallery) != GTK_WIDGET(window))
    gtk_window_destroy(GTK_WINDOW(gallery));
}

GtkWidget *lw_template_gallery_new(LwWindow *window)
{
  g_return_val_if_fail(LW_IS_WINDOW(window), NULL);
  GtkWidget *group = adw_preferences_group_new();
  adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), _("Templates"));
  adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(group),
                                        _("Linkages whose dimensions you set before they open"));
  gtk_widget_set_margin_start(group, 18);
  gtk_widget_set_margin_end(group, 18);
  gtk_widget_set_margin_top(group, 18);
  static const struct {
    LwTemplateKind kind;
    const char *title, *subtitle;
  } rows[] = {
    {LW_TEMPLATE_FOUR_BAR, N_("Four-bar linkage"),
     N_("Link lengths, coupler point, start angle; Grashof class and transmission angles as you type")},
    {LW_TEMPLATE_SLIDER_CRANK, N_("Slider-crank"),
     N_("Crank, connecting rod, offset, slider mass; stroke and quick-return ratio as you type")},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(rows); i++) {
    GtkWidget *row = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _(rows[i].title));
    adw_action_row_set_subtitle(ADW_ACTION_ROW(row), _(rows[i].subtitle));
    gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), TRUE);
    adw_action_row_add_suffix(ADW_ACTION_ROW(row), gtk_image_new_from_icon_name("go-next-symbolic"));
    g_object_set_data(G_OBJECT(row), "template", GINT_TO_POINTER(rows[i].kind));
    gtk_widget_set_name(row, rows[i].kind == LW_TEMPLATE_FOUR_BAR ? "template-four-bar" : "template-slider-crank");
    g_signal_connect(row, "activated", G_CALLBACK(gallery_row_activated_cb), window);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
  }
  return group;
}
