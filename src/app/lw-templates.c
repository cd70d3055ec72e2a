/* lw-templates.c: parametric four-bar and slider-crank (see lw-templates.h).
 *
 * Four-bar notation: ground d = |AD|, crank a = |AB|, coupler b = |BC|,
 * rocker c = |DC|, crank angle theta from A -> D.  The diagonal from the
 * crank pin to the rocker pivot,
 *   f(theta)^2 = a^2 + d^2 - 2 a d cos(theta)                       (1)
 * grows from |d - a| at theta = 0 to d + a at theta = pi.  Coupler and rocker
 * close the triangle B C D only while |b - c| <= f <= b + c, and the angle
 * at C between them, the transmission angle mu, follows from the law of
 * cosines in that triangle:
 *   cos(mu) = (b^2 + c^2 - f^2) / (2 b c)                           (2)
 * (the same for the open and the crossed assembly).  mu grows with f, so its
 * extremes over the reachable crank angles are at the extremes of f:
 *   mu_min = acos((b^2 + c^2 - f_lo^2) / (2 b c)),
 *   mu_max = acos((b^2 + c^2 - f_hi^2) / (2 b c)),
 *   f_lo = max(|d - a|, |b - c|), f_hi = min(d + a, b + c).
 * When the crank turns fully f_lo = |d - a| and f_hi = d + a, the classical
 * mu_min = acos((b^2 + c^2 - (d - a)^2) / (2 b c)) at theta = 0 and
 * mu_max = acos((b^2 + c^2 - (d + a)^2) / (2 b c)) at theta = pi; otherwise
 * the crank stops where coupler and rocker fall in line (mu = 0 or pi) and
 * the reachable angles are those of (1) with f in [f_lo, f_hi]. */
#include "lw-templates.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* colours of the editor's first links */
static const double link_colors[][3] = {{0.85, 0.33, 0.10}, {0.20, 0.45, 0.80}, {0.20, 0.65, 0.35}};

static gboolean positive(double x)
{
  return isfinite(x) && x > 0;
}

static double clamp1(double x)
{
  return x < -1 ? -1 : x > 1 ? 1 : x;
}

/* equality of sums of lengths up to rounding of the typed values */
static double length_tol(double a, double b, double c, double d)
{
  return 1e-9 * (a + b + c + d);
}

/* ---- four-bar: classification and angles ----------------------------------- */
void lw_four_bar_defaults(LwFourBar *fb)
{
  /* the shipped four-bar example's crank-rocker */
  fb->ground = 2.0;
  fb->crank = 0.5;
  fb->coupler = 2.0;
  fb->rocker = 1.5;
  fb->crank_angle = G_PI / 2;
  fb->crank_speed = 6.0;
  fb->point_along = 1.0;
  fb->point_offset = 0.5;
  fb->density = LW_LINK_DENSITY;
}

LwGrashofClass lw_grashof_classify(double ground, double crank, double coupler, double rocker)
{
  if (!positive(ground) || !positive(crank) || !positive(coupler) || !positive(rocker))
    return LW_GRASHOF_INVALID;
  const double len[4] = {ground, crank, coupler, rocker};
  int is = 0, il = 0;
  for (int i = 1; i < 4; i++) {
    if (len[i] < len[is])
      is = i;
    if (len[i] > len[il])
      il = i;
  }
  if (is == il) /* all four equal: a rhombus, s + l = p + q */
    return LW_GRASHOF_CHANGE_POINT;
  double s = len[is], l = len[il], pq = ground + crank + coupler + rocker - s - l;
  double tol = length_tol(ground, crank, coupler, rocker);
  if (fabs(s + l - pq) <= tol)
    return LW_GRASHOF_CHANGE_POINT;
  if (s + l > pq)
    return LW_GRASHOF_TRIPLE_ROCKER;
  /* Grashof: the shortest link turns fully relative to all others; two
   * equally short links cannot occur here (s + s' + l < s' + q needs l < q) */
  switch (is) {
  case 0: return LW_GRASHOF_DOUBLE_CRANK;
  case 1: return LW_GRASHOF_CRANK_ROCKER;
  case 2: return LW_GRASHOF_DOUBLE_ROCKER;
  default: return LW_GRASHOF_ROCKER_CRANK;
  }
}

const char *lw_grashof_class_name(LwGrashofClass c)
{
  switch (c) {
  case LW_GRASHOF_CRANK_ROCKER: return _("Crank-rocker");
  case LW_GRASHOF_ROCKER_CRANK: return _("Rocker-crank");
  case LW_GRASHOF_DOUBLE_CRANK: return _("Double-crank (drag link)");
  case LW_GRASHOF_DOUBLE_ROCKER: return _("Double-rocker (Grashof)");
  case LW_GRASHOF_CHANGE_POINT: return _("Change-point");
  case LW_GRASHOF_TRIPLE_ROCKER: return _("Triple-rocker (non-Grashof)");
  default: return _("Invalid lengths");
  }
}

const char *lw_grashof_class_meaning(LwGrashofClass c)
{
  switch (c) {
  case LW_GRASHOF_CRANK_ROCKER: return _("s + l < p + q, crank shortest: the crank turns fully, the rocker rocks");
  case LW_GRASHOF_ROCKER_CRANK:
    return _("s + l < p + q, rocker shortest: the rocker turns fully, the crank only rocks");
  case LW_GRASHOF_DOUBLE_CRANK: return _("s + l < p + q, ground shortest: crank and rocker both turn fully");
  case LW_GRASHOF_DOUBLE_ROCKER:
    return _("s + l < p + q, coupler shortest: the coupler turns fully, crank and rocker rock");
  case LW_GRASHOF_CHANGE_POINT:
    return _("s + l = p + q: all four links fall in line once per turn, where the motion can change branch "
             "and a run may stop");
  case LW_GRASHOF_TRIPLE_ROCKER: return _("s + l > p + q: no link turns fully, crank and rocker rock");
  default: return _("Every length must be a positive number");
  }
}

/* f of (1) at crank angle theta */
static double pin_reach(const LwFourBar *fb, double theta)
{
  double a = fb->crank, d = fb->ground;
  return sqrt(fmax(0.0, a * a + d * d - 2 * a * d * cos(theta)));
}

/* |theta| at which (1) gives f */
static double crank_angle_at(const LwFourBar *fb, double f)
{
  double a = fb->crank, d = fb->ground;
  return acos(clamp1((a * a + d * d - f * f) / (2 * a * d)));
}

/* mu of (2) for diagonal f */
static double transmission_at(const LwFourBar *fb, double f)
{
  double b = fb->coupler, c = fb->rocker;
  return acos(clamp1((b * b + c * c - f * f) / (2 * b * c)));
}

void lw_four_bar_analyze(const LwFourBar *fb, LwFourBarInfo *info)
{
  memset(info, 0, sizeof *info);
  double a = fb->crank, b = fb->coupler, c = fb->rocker, d = fb->ground;
  info->grashof = lw_grashof_classify(d, a, b, c);
  if (info->grashof == LW_GRASHOF_INVALID || !isfinite(fb->crank_angle)) {
    info->assembly = LW_ASSEMBLY_BAD_LENGTH;
    return;
  }
  double tol = length_tol(a, b, c, d);
  info->reach_lo = fabs(b - c);
  info->reach_hi = b + c;
  double f_lo = fmax(fabs(d - a), info->reach_lo), f_hi = fmin(d + a, info->reach_hi);
  info->reach = pin_reach(fb, fb->crank_angle);
  if (f_lo > f_hi + tol) {
    info->assembly = LW_ASSEMBLY_NEVER;
    return;
  }
  info->crank_turns = info->reach_lo <= fabs(d - a) + tol && d + a <= info->reach_hi + tol;
  info->crank_lo = crank_angle_at(fb, f_lo);
  info->crank_hi = crank_angle_at(fb, f_hi);
  if (info->crank_turns) {
    info->crank_lo = 0;
    info->crank_hi = G_PI;
  }
  info->mu_min = transmission_at(fb, f_lo);
  info->mu_max = transmission_at(fb, f_hi);
  if (info->reach > info->reach_hi + tol)
    info->assembly = LW_ASSEMBLY_TOO_FAR;
  else if (info->reach < info->reach_lo - tol)
    info->assembly = LW_ASSEMBLY_TOO_CLOSE;
  else
    info->assembly = LW_ASSEMBLY_OK;
}

gboolean lw_four_bar_pose(const LwFourBar *fb, double theta, gboolean crossed, double B[2], double C[2])
{
  double a = fb->crank, b = fb->coupler, c = fb->rocker, d = fb->ground;
  if (lw_grashof_classify(d, a, b, c) == LW_GRASHOF_INVALID || !isfinite(theta))
    return FALSE;
  B[0] = a * cos(theta);
  B[1] = a * sin(theta);
  double fx = d - B[0], fy = -B[1], f = hypot(fx, fy);
  double tol = length_tol(a, b, c, d);
  if (f > b + c + tol || f < fabs(b - c) - tol || f == 0)
    return FALSE;
  /* the angle at B between B -> D and B -> C, law of cosines in B C D */
  double psi = acos(clamp1((b * b + f * f - c * c) / (2 * b * f)));
  double beta = atan2(fy, fx);
  if (crossed)
    psi = -psi;
  C[0] = B[0] + b * cos(beta + psi);
  C[1] = B[1] + b * sin(beta + psi);
  return TRUE;
}

gboolean lw_four_bar_coupler_point(const LwFourBar *fb, double theta, gboolean crossed, double P[2])
{
  double B[2], C[2];
  if (!lw_four_bar_pose(fb, theta, crossed, B, C))
    return FALSE;
  double ux = (C[0] - B[0]) / fb->coupler, uy = (C[1] - B[1]) / fb->coupler;
  P[0] = B[0] + fb->point_along * ux - fb->point_offset * uy;
  P[1] = B[1] + fb->point_along * uy + fb->point_offset * ux;
  return TRUE;
}

char *lw_four_bar_assembly_text(const LwFourBar *fb, const LwFourBarInfo *info, double unit, const char *unit_name)
{
  double deg = 180 / G_PI;
  switch (info->assembly) {
  case LW_ASSEMBLY_OK:
    return NULL;
  case LW_ASSEMBLY_BAD_LENGTH:
    return g_strdup(_("Every length must be a positive number."));
  case LW_ASSEMBLY_NEVER: {
    const double len[4] = {fb->ground, fb->crank, fb->coupler, fb->rocker};
    const char *names[4] = {_("ground"), _("crank"), _("coupler"), _("rocker")};
    int il = 0;
    for (int i = 1; i < 4; i++)
      if (len[i] > len[il])
        il = i;
    double rest = len[0] + len[1] + len[2] + len[3] - len[il];
    return g_strdup_printf(_("No crank angle assembles: the %s (%.4g %s) is longer than the other three "
                             "links together (%.4g %s)."),
                           names[il], len[il] * unit, unit_name, rest * unit, unit_name);
  }
  case LW_ASSEMBLY_TOO_FAR:
  case LW_ASSEMBLY_TOO_CLOSE: {
    g_autofree char *why =
        info->assembly == LW_ASSEMBLY_TOO_FAR
            ? g_strdup_printf(_("the crank pin is %.4g %s from the rocker pivot, more than coupler + rocker "
                                "(%.4g %s)"),
                              info->reach * unit, unit_name, info->reach_hi * unit, unit_name)
            : g_strdup_printf(_("the crank pin is %.4g %s from the rocker pivot, less than |coupler - rocker| "
                                "(%.4g %s)"),
                              info->reach * unit, unit_name, info->reach_lo * unit, unit_name);
    return g_strdup_printf(_("Cannot assemble at this crank angle: %s. The crank reaches %.1f° to %.1f° "
                             "(and the same below the ground line)."),
                           why, info->crank_lo * deg, info->crank_hi * deg);
  }
  }
  return NULL;
}

/* ---- building models ---------------------------------------------------------- */
/* a uniform bar from its origin along body x, as the editor draws links */
static lw_body_desc *add_bar(lw_desc *d, const char *name, double L, double density, double width,
                             const double color[3])
{
  lw_body_desc *b = lw_desc_add_body(d, name);
  double u[3] = {1, 0, 0}, p0[3] = {0, 0, 0}, p1[3] = {L, 0, 0};
  b->mass = density * L;
  b->com[0] = 0.5 * L;
  lw_bar_inertia(1, b->mass, L, u, b->inertia);
  lw_body_add_point(b, "start", p0);
  lw_body_add_point(b, "end", p1);
  lw_geom_desc *g = lw_body_add_geom(b, LW_GEOM_BAR);
  memcpy(g->to, p1, sizeof p1);
  g->size[0] = width;
  memcpy(g->color, color, 3 * sizeof(double));
  return b;
}

static void place_bar(lw_body_desc *b, const double from[2], const double to[2])
{
  b->position[0] = from[0];
  b->position[1] = from[1];
  b->angle = atan2(to[1] - from[1], to[0] - from[0]);
}

/* a revolute joint between two named points */
static void pin_points(lw_desc *d, const char *name, const char *b1, const char *p1, const char *b2,
                       const char *p2)
{
  lw_joint_desc *j = lw_desc_add_joint(d, name, LW_JOINT_REVOLUTE, b1, b2);
  lw_place_set_ref(&j->place[0], p1);
  lw_place_set_ref(&j->place[1], p2);
  j->has_place[0] = j->has_place[1] = 1;
}

/* a revolute joint from the ground at global point (x, y) to a named point */
static void pin_ground(lw_desc *d, const char *name, double x, double y, const char *body, const char *point)
{
  lw_joint_desc *j = lw_desc_add_joint(d, name, LW_JOINT_REVOLUTE, "ground", body);
  j->place[0].p[0] = x;
  j->place[0].p[1] = y;
  j->has_place[0] = 1;
  lw_place_set_ref(&j->place[1], point);
  j->has_place[1] = 1;
}

static void joint_output(lw_desc *d, const char *name, const char *joint)
{
  lw_output_desc *o = lw_desc_add_output(d, name, LW_OUT_JOINT_COORDINATE);
  o->joint = strdup(joint);
}

static void point_output(lw_desc *d, const char *name, const char *body, double x, double y)
{
  lw_output_desc *o = lw_desc_add_output(d, name, LW_OUT_POSITION);
  o->body = strdup(body);
  o->place.p[0] = x;
  o->place.p[1] = y;
}

static lw_desc *planar_desc(const char *name, const char *description)
{
  lw_desc *d = lw_desc_new();
  d->planar = 1;
  d->name = strdup(name);
  d->description = strdup(description);
  d->gravity[0] = d->gravity[2] = 0;
  d->gravity[1] = -9.81;
  d->solver.t_end = 5;
  d->solver.step = 1e-3;
  return d;
}

static void crank_initial(lw_desc *d, double angle, double speed)
{
  lw_initial_desc *in = lw_desc_add_initial(d, "A", 0);
  in->has_value = in->has_velocity = 1;
  in->value = angle;
  in->velocity = speed;
}

/* bars a tenth of the shortest link wide at most, the editor's width at least
 * for metre-sized links */
static double bar_width(double shortest)
{
  return fmin(LW_LINK_WIDTH, 0.1 * shortest);
}

lw_desc *lw_four_bar_desc(const LwFourBar *fb)
{
  LwFourBarInfo info;
  lw_four_bar_analyze(fb, &info);
  double B[2], C[2];
  if (info.assembly != LW_ASSEMBLY_OK || !positive(fb->density) || !isfinite(fb->crank_speed) ||
      !isfinite(fb->point_along) || !isfinite(fb->point_offset) ||
      !lw_four_bar_pose(fb, fb->crank_angle, FALSE, B, C))
    return NULL;
  g_autofree char *text =
      g_strdup_printf(_("Four-bar from the template: ground %g m, crank %g m, coupler %g m, rocker %g m (%s), "
                        "bars of %g kg/m; the crank starts at %.4g° and %g rad/s, then moves freely under "
                        "gravity along -y."),
                      fb->ground, fb->crank, fb->coupler, fb->rocker, lw_grashof_class_name(info.grashof),
                      fb->density, fb->crank_angle * 180 / G_PI, fb->crank_speed);
  lw_desc *d = planar_desc(_("Four-bar linkage"), text);
  double w = bar_width(fmin(fmin(fb->ground, fb->crank), fmin(fb->coupler, fb->rocker)));
  const double A[2] = {0, 0}, D[2] = {fb->ground, 0};
  place_bar(add_bar(d, "crank", fb->crank, fb->density, w, link_colors[0]), A, B);
  place_bar(add_bar(d, "coupler", fb->coupler, fb->density, w, link_colors[1]), B, C);
  place_bar(add_bar(d, "rocker", fb->rocker, fb->density, w, link_colors[2]), D, C);
  pin_ground(d, "A", 0, 0, "crank", "start");
  pin_points(d, "B", "crank", "end", "coupler", "start");
  pin_points(d, "C", "coupler", "end", "rocker", "end");
  pin_ground(d, "D", fb->ground, 0, "rocker", "start");
  crank_initial(d, fb->crank_angle, fb->crank_speed);
  point_output(d, "coupler_point", "coupler", fb->point_along, fb->point_offset);
  joint_output(d, "crank_angle", "A");
  joint_output(d, "rocker_angle", "D");
  return d;
}

/* ---- slider-crank ------------------------------------------------------------
 * Crank r about the origin, rod l, slider pin C on the line y = e, on the
 * +x side:  C_x(theta) = r cos(theta) + sqrt(l^2 - (e - r sin(theta))^2).
 * The dead centres are where crank and rod fall in line: outer, extended,
 * |C| = l + r, at theta_o = asin(e / (l + r)); inner, folded back, |C| = l - r,
 * at theta_i = pi + asin(e / (l - r)).  So
 *   x_max = sqrt((l + r)^2 - e^2),  x_min = sqrt((l - r)^2 - e^2),
 *   stroke = x_max - x_min,
 * and at constant crank speed the two strokes take the crank angles
 * pi + alpha and pi - alpha, alpha = asin(e / (l - r)) - asin(e / (l + r)):
 *   quick-return ratio Q = (pi + |alpha|) / (pi - |alpha|).
 * All of it needs l > r + |e|: otherwise the rod cannot reach the slider
 * line with the crank pointing away from it, and the crank cannot turn. */
void lw_slider_crank_defaults(LwSliderCrank *sc)
{
  sc->crank = 0.5;
  sc->rod = 1.5;
  sc->offset = 0.0;
  sc->crank_angle = G_PI / 2;
  sc->crank_speed = 6.0;
  sc->slider_mass = 1.0;
  sc->density = LW_LINK_DENSITY;
}

void lw_slider_crank_analyze(const LwSliderCrank *sc, LwSliderCrankInfo *info)
{
  memset(info, 0, sizeof *info);
  double r = sc->crank, l = sc->rod, e = sc->offset;
  info->valid = positive(r) && positive(l) && isfinite(e) && isfinite(sc->crank_angle);
  if (!info->valid) {
    info->assembly = LW_ASSEMBLY_BAD_LENGTH;
    return;
  }
  double tol = 1e-9 * (r + l + fabs(e));
  info->rod_long_enough = l > r + fabs(e) + tol;
  double reach = fabs(e - r * sin(sc->crank_angle));
  info->assembly = reach <= l + tol ? LW_ASSEMBLY_OK : LW_ASSEMBLY_TOO_FAR;
  if (!info->rod_long_enough)
    return;
  info->x_max = sqrt((l + r) * (l + r) - e * e);
  info->x_min = sqrt((l - r) * (l - r) - e * e);
  info->stroke = info->x_max - info->x_min;
  double alpha = fabs(asin(e / (l - r)) - asin(e / (l + r)));
  info->quick_return = (G_PI + alpha) / (G_PI - alpha);
}

gboolean lw_slider_crank_pose(const LwSliderCrank *sc, double theta, double B[2], double C[2])
{
  double r = sc->crank, l = sc->rod, e = sc->offset;
  if (!positive(r) || !positive(l) || !isfinite(e) || !isfinite(theta))
    return FALSE;
  B[0] = r * cos(theta);
  B[1] = r * sin(theta);
  double dy = e - B[1];
  if (fabs(dy) > l)
    return FALSE;
  C[0] = B[0] + sqrt(l * l - dy * dy);
  C[1] = e;
  return TRUE;
}

char *lw_slider_crank_assembly_text(const LwSliderCrank *sc, const LwSliderCrankInfo *info, double unit,
                                    const char *unit_name)
{
  if (!info->valid)
    return g_strdup(_("Crank and rod lengths must be positive numbers."));
  if (info->assembly == LW_ASSEMBLY_OK)
    return NULL;
  double reach = fabs(sc->offset - sc->crank * sin(sc->crank_angle));
  return g_strdup_printf(_("Cannot assemble at this crank angle: the crank pin is %.4g %s from the slider line, "
                           "more than the rod length (%.4g %s)."),
                         reach * unit, unit_name, sc->rod * unit, unit_name);
}

lw_desc *lw_slider_crank_desc(const LwSliderCrank *sc)
{
  LwSliderCrankInfo info;
  lw_slider_crank_analyze(sc, &info);
  double B[2], C[2];
  if (info.assembly != LW_ASSEMBLY_OK || !positive(sc->density) || !positive(sc->slider_mass) ||
      !isfinite(sc->crank_speed) || !lw_slider_crank_pose(sc, sc->crank_angle, B, C))
    return NULL;
  g_autofree char *text =
      g_strdup_printf(_("Slider-crank from the template: crank %g m, rod %g m, offset %g m, slider %g kg, bars "
                        "of %g kg/m; the crank starts at %.4g° and %g rad/s, then moves freely under gravity "
                        "along -y."),
                      sc->crank, sc->rod, sc->offset, sc->slider_mass, sc->density, sc->crank_angle * 180 / G_PI,
                      sc->crank_speed);
  lw_desc *d = planar_desc(_("Slider-crank"), text);
  double w = bar_width(fmin(sc->crank, sc->rod));
  const double A[2] = {0, 0};
  place_bar(add_bar(d, "crank", sc->crank, sc->density, w, link_colors[0]), A, B);
  place_bar(add_bar(d, "rod", sc->rod, sc->density, w, link_colors[1]), B, C);
  /* the slider: a block around its pin, its size following the crank */
  lw_body_desc *s = lw_desc_add_body(d, "slider");
  double hx = 0.3 * sc->crank, hy = 0.15 * sc->crank;
  s->mass = sc->slider_mass;
  s->inertia[2] = sc->slider_mass * (4 * hx * hx + 4 * hy * hy) / 12;
  s->position[0] = C[0];
  s->position[1] = C[1];
  double origin[3] = {0, 0, 0};
  lw_body_add_point(s, "pin", origin);
  lw_geom_desc *g = lw_body_add_geom(s, LW_GEOM_BOX);
  g->size[0] = hx;
  g->size[1] = hy;
  g->size[2] = hy;
  memcpy(g->color, link_colors[2], sizeof link_colors[2]);
  pin_ground(d, "A", 0, 0, "crank", "start");
  pin_points(d, "B", "crank", "end", "rod", "start");
  pin_points(d, "C", "rod", "end", "slider", "pin");
  /* the slider's coordinate is its pin's x: the line's origin at (0, e) */
  lw_joint_desc *j = lw_desc_add_joint(d, "slide", LW_JOINT_PRISMATIC, "ground", "slider");
  j->place[0].p[1] = sc->offset;
  j->has_place[0] = 1;
  lw_place_set_ref(&j->place[1], "pin");
  j->has_place[1] = 1;
  crank_initial(d, sc->crank_angle, sc->crank_speed);
  joint_output(d, "slider_x", "slide");
  joint_output(d, "crank_angle", "A");
  point_output(d, "rod_middle", "rod", 0.5 * sc->rod, 0);
  return d;
}
