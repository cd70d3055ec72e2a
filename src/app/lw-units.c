/* lw-units.c: expressions with units typed into a field (see lw-units.h).
 *
 * The text is an expression of numbers, followed by an optional unit
 * expression.  The expression is read by recursive descent (sums of
 * products of powers of signed primaries), the unit as a product of unit
 * names with integer powers, '/' dividing by the next name only ("N m/rad",
 * "m/s^2").  A unit carries its dimension as exponents of metre, kilogram,
 * second and radian; the angle is a dimension of its own so that "90 kg" is
 * refused in an angle field and "90 deg" in a length field. */
#include "lw-units.h"

#include <errno.h>
#include <glib.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

enum { D_M, D_KG, D_S, D_RAD, ND };

typedef struct {
  signed char dim[ND];
} Dim;

static const struct {
  const char *unit, *unit_deg; /* shown unit; in degrees mode */
  double factor_deg;           /* shown in degrees: to SI */
  Dim dim;
  const char *name;
} quantities[LW_Q_COUNT] = {
    [LW_Q_NONE] = {"", "", 1, {{0, 0, 0, 0}}, N_("number")},
    [LW_Q_LENGTH] = {"m", "m", 1, {{1, 0, 0, 0}}, N_("length")},
    [LW_Q_ANGLE] = {"rad", "deg", G_PI / 180, {{0, 0, 0, 1}}, N_("angle")},
    [LW_Q_MASS] = {"kg", "kg", 1, {{0, 1, 0, 0}}, N_("mass")},
    [LW_Q_INERTIA] =
        {"kg m²", "kg m²", 1, {{2, 1, 0, 0}}, N_("moment of inertia")},
    [LW_Q_STIFFNESS] = {"N/m", "N/m", 1, {{0, 1, -2, 0}}, N_("stiffness")},
    [LW_Q_ROT_STIFFNESS] =
        {"N m/rad", "N m/rad", 1, {{2, 1, -2, -1}}, N_("torsional stiffness")},
    [LW_Q_DAMPING] = {"N s/m", "N s/m", 1, {{0, 1, -1, 0}}, N_("damping")},
    [LW_Q_ROT_DAMPING] = {"N m s/rad",
                          "N m s/rad",
                          1,
                          {{2, 1, -1, -1}},
                          N_("torsional damping")},
    [LW_Q_FORCE] = {"N", "N", 1, {{1, 1, -2, 0}}, N_("force")},
    [LW_Q_TORQUE] = {"N m", "N m", 1, {{2, 1, -2, 0}}, N_("torque")},
    [LW_Q_TIME] = {"s", "s", 1, {{0, 0, 1, 0}}, N_("time")},
    [LW_Q_VELOCITY] = {"m/s", "m/s", 1, {{1, 0, -1, 0}}, N_("velocity")},
    [LW_Q_ANG_VELOCITY] =
        {"rad/s", "deg/s", G_PI / 180, {{0, 0, -1, 1}}, N_("angular velocity")},
    [LW_Q_ACCELERATION] =
        {"m/s²", "m/s²", 1, {{1, 0, -2, 0}}, N_("acceleration")},
    [LW_Q_PRESSURE] = {"Pa", "Pa", 1, {{-1, 1, -2, 0}}, N_("pressure")},
    [LW_Q_DENSITY] = {"kg/m³", "kg/m³", 1, {{-3, 1, 0, 0}}, N_("density")},
    [LW_Q_AREA] = {"m²", "m²", 1, {{2, 0, 0, 0}}, N_("area")},
    [LW_Q_SECOND_MOMENT] =
        {"m⁴", "m⁴", 1, {{4, 0, 0, 0}}, N_("second moment of area")},
};

/* unit names: factor to SI and dimension */
static const struct {
  const char *name;
  double factor;
  Dim dim;
} units[] = {
    {"m", 1, {{1, 0, 0, 0}}},
    {"mm", 1e-3, {{1, 0, 0, 0}}},
    {"cm", 1e-2, {{1, 0, 0, 0}}},
    {"km", 1e3, {{1, 0, 0, 0}}},
    {"um", 1e-6, {{1, 0, 0, 0}}},
    {"µm", 1e-6, {{1, 0, 0, 0}}},
    {"in", 0.0254, {{1, 0, 0, 0}}},
    {"kg", 1, {{0, 1, 0, 0}}},
    {"g", 1e-3, {{0, 1, 0, 0}}},
    {"mg", 1e-6, {{0, 1, 0, 0}}},
    {"t", 1e3, {{0, 1, 0, 0}}},
    {"s", 1, {{0, 0, 1, 0}}},
    {"ms", 1e-3, {{0, 0, 1, 0}}},
    {"min", 60, {{0, 0, 1, 0}}},
    {"h", 3600, {{0, 0, 1, 0}}},
    {"rad", 1, {{0, 0, 0, 1}}},
    {"mrad", 1e-3, {{0, 0, 0, 1}}},
    {"deg", G_PI / 180, {{0, 0, 0, 1}}},
    {"°", G_PI / 180, {{0, 0, 0, 1}}},
    {"rev", 2 * G_PI, {{0, 0, 0, 1}}},
    {"rpm", G_PI / 30, {{0, 0, -1, 1}}},
    {"Hz", 1, {{0, 0, -1, 0}}},
    {"N", 1, {{1, 1, -2, 0}}},
    {"kN", 1e3, {{1, 1, -2, 0}}},
    {"mN", 1e-3, {{1, 1, -2, 0}}},
    {"Nm", 1, {{2, 1, -2, 0}}},
    {"J", 1, {{2, 1, -2, 0}}},
    {"Pa", 1, {{-1, 1, -2, 0}}},
    {"kPa", 1e3, {{-1, 1, -2, 0}}},
    {"MPa", 1e6, {{-1, 1, -2, 0}}},
    {"GPa", 1e9, {{-1, 1, -2, 0}}},
};

typedef struct {
  const char *s; /* the text */
  const char *p; /* the position read */
  int depth;
  char *err;
  size_t errlen;
  gboolean failed;
} Parser;

#define MAX_DEPTH 64

const char *lw_quantity_unit(lw_quantity q, int degrees) {
  g_return_val_if_fail(q >= 0 && q < LW_Q_COUNT, "");
  return degrees ? quantities[q].unit_deg : quantities[q].unit;
}

double lw_quantity_factor(lw_quantity q, int degrees) {
  g_return_val_if_fail(q >= 0 && q < LW_Q_COUNT, 1);
  return degrees ? quantities[q].factor_deg : 1;
}

const char *lw_quantity_name(lw_quantity q) {
  g_return_val_if_fail(q >= 0 && q < LW_Q_COUNT, "");
  return _(quantities[q].name);
}

static void fail(Parser *ps, const char *msg) {
  if (ps->failed)
    return;
  ps->failed = TRUE;
  g_snprintf(ps->err, ps->errlen, "%s", msg);
}

static void skip_space(Parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t')
    ps->p++;
}

/* a letter of a name: ASCII letters, '°' and 'µ' (UTF-8) */
static int name_char_len(const char *p) {
  if (g_ascii_isalpha(*p) || *p == '_')
    return 1;
  if ((unsigned char)p[0] == 0xC2 &&
      ((unsigned char)p[1] == 0xB0 || (unsigned char)p[1] == 0xB5))
    return 2;
  return 0;
}

/* the name at p (NUL-terminated into buf); its length in bytes */
static size_t read_name(const char *p, char *buf, size_t len) {
  size_t n = 0;
  int k;
  while ((k = name_char_len(p + n)) > 0)
    n += (size_t)k;
  g_strlcpy(buf, p, MIN(n + 1, len));
  return n;
}

static double parse_expr(Parser *ps);

static double parse_number(Parser *ps) {
  const char *q = ps->p;
  while (g_ascii_isdigit(*q))
    q++;
  if (*q == '.')
    for (q++; g_ascii_isdigit(*q);)
      q++;
  /* an exponent only when digits follow: "2e" is 2 and a name */
  if (*q == 'e' || *q == 'E') {
    const char *r = q + 1;
    if (*r == '+' || *r == '-')
      r++;
    if (g_ascii_isdigit(*r)) {
      while (g_ascii_isdigit(*r))
        r++;
      q = r;
    }
  }
  if (q == ps->p || (q == ps->p + 1 && *ps->p == '.')) {
    fail(ps, _("a number was expected"));
    return NAN;
  }
  char buf[LW_UNITS_MAX_TEXT + 1];
  g_strlcpy(buf, ps->p, MIN((size_t)(q - ps->p) + 1, sizeof buf));
  errno = 0;
  double v = g_ascii_strtod(buf, NULL);
  if (errno == ERANGE && !isfinite(v))
    fail(ps, _("the number is too large"));
  ps->p = q;
  return v;
}

static double call_function(Parser *ps, const char *name, double x) {
  if (!strcmp(name, "sqrt")) {
    if (x < 0)
      fail(ps, _("the square root of a negative number"));
    return sqrt(x);
  }
  if (!strcmp(name, "abs"))
    return fabs(x);
  if (!strcmp(name, "exp"))
    return exp(x);
  if (!strcmp(name, "ln") || !strcmp(name, "log10")) {
    if (!(x > 0))
      fail(ps, _("the logarithm of a number that is not positive"));
    return name[1] == 'n' ? log(x) : log10(x);
  }
  char msg[128];
  g_snprintf(msg, sizeof msg, _("unknown function '%s'"), name);
  fail(ps, msg);
  return NAN;
}

static double parse_primary(Parser *ps) {
  skip_space(ps);
  if (g_ascii_isdigit(*ps->p) || *ps->p == '.')
    return parse_number(ps);
  if (*ps->p == '(') {
    ps->p++;
    double v = parse_expr(ps);
    skip_space(ps);
    if (*ps->p != ')') {
      fail(ps, _("a ')' is missing"));
      return NAN;
    }
    ps->p++;
    return v;
  }
  char name[32];
  size_t n = read_name(ps->p, name, sizeof name);
  if (n == 0) {
    fail(ps, *ps->p ? _("a number was expected")
                    : _("the expression ends too early"));
    return NAN;
  }
  const char *after = ps->p + n;
  while (*after == ' ')
    after++;
  if (*after == '(') {
    ps->p = after + 1;
    double x = parse_expr(ps);
    skip_space(ps);
    if (*ps->p != ')') {
      fail(ps, _("a ')' is missing"));
      return NAN;
    }
    ps->p++;
    return ps->failed ? NAN : call_function(ps, name, x);
  }
  if (!strcmp(name, "pi")) {
    ps->p += n;
    return G_PI;
  }
  char msg[128];
  g_snprintf(msg, sizeof msg, _("unknown name '%s'"), name);
  fail(ps, msg);
  return NAN;
}

static double parse_unary(Parser *ps);

/* x ^ y, right associative */
static double parse_power(Parser *ps) {
  double x = parse_primary(ps);
  skip_space(ps);
  if (*ps->p == '^') {
    ps->p++;
    double y = parse_unary(ps);
    return pow(x, y);
  }
  return x;
}

static double parse_unary(Parser *ps) {
  if (++ps->depth > MAX_DEPTH) {
    fail(ps, _("the expression is nested too deeply"));
    return NAN;
  }
  skip_space(ps);
  double v;
  if (*ps->p == '-' || *ps->p == '+') {
    gboolean neg = *ps->p == '-';
    ps->p++;
    v = parse_unary(ps);
    v = neg ? -v : v;
  } else
    v = parse_power(ps);
  ps->depth--;
  return v;
}

static double parse_term(Parser *ps) {
  double v = parse_unary(ps);
  for (;;) {
    skip_space(ps);
    char op = *ps->p;
    if (ps->failed || (op != '*' && op != '/'))
      return v;
    ps->p++;
    double w = parse_unary(ps);
    if (op == '/' && w == 0 && !ps->failed) {
      fail(ps, _("division by zero"));
      return NAN;
    }
    v = op == '*' ? v * w : v / w;
  }
}

static double parse_expr(Parser *ps) {
  if (++ps->depth > MAX_DEPTH) {
    fail(ps, _("the expression is nested too deeply"));
    return NAN;
  }
  double v = parse_term(ps);
  for (;;) {
    skip_space(ps);
    char op = *ps->p;
    if (ps->failed || (op != '+' && op != '-'))
      break;
    ps->p++;
    double w = parse_term(ps);
    v = op == '+' ? v + w : v - w;
  }
  ps->depth--;
  return v;
}

/* an integer power after a unit name: ^2, ^-1, ², ³, ⁴ (1 when none) */
static int parse_unit_power(Parser *ps) {
  const unsigned char *u = (const unsigned char *)ps->p;
  if (u[0] == 0xC2 && (u[1] == 0xB2 || u[1] == 0xB3)) {
    ps->p += 2;
    return u[1] == 0xB2 ? 2 : 3;
  }
  if (u[0] == 0xE2 && u[1] == 0x81 && u[2] == 0xB4) { /* U+2074 */
    ps->p += 3;
    return 4;
  }
  if (*ps->p != '^')
    return 1;
  const char *q = ps->p + 1;
  int sign = 1;
  if (*q == '-') {
    sign = -1;
    q++;
  }
  if (!g_ascii_isdigit(*q) || g_ascii_isdigit(q[1])) {
    fail(ps, _("a unit's power must be a small whole number"));
    return 1;
  }
  ps->p = q + 1;
  return sign * (*q - '0');
}

/* "N m/rad", "kg m^2", "m/s²": factor to SI and dimension */
static double parse_unit(Parser *ps, Dim *dim) {
  double factor = 1;
  memset(dim, 0, sizeof *dim);
  int sign = 1;
  for (;;) {
    skip_space(ps);
    char name[32];
    size_t n = read_name(ps->p, name, sizeof name);
    if (n == 0) {
      char msg[128];
      g_snprintf(msg, sizeof msg, _("unexpected '%.8s'"), ps->p);
      fail(ps, *ps->p ? msg : _("a unit is missing after '/'"));
      return NAN;
    }
    guint k = 0;
    while (k < G_N_ELEMENTS(units) && strcmp(units[k].name, name))
      k++;
    if (k == G_N_ELEMENTS(units)) {
      char msg[128];
      g_snprintf(msg, sizeof msg, _("unknown unit '%s'"), name);
      fail(ps, msg);
      return NAN;
    }
    ps->p += n;
    int pw = sign * parse_unit_power(ps);
    factor *= pow(units[k].factor, pw);
    for (int i = 0; i < ND; i++)
      dim->dim[i] = (signed char)(dim->dim[i] + pw * units[k].dim.dim[i]);
    skip_space(ps);
    if (!*ps->p || ps->failed)
      return factor;
    sign = 1;
    if (*ps->p == '/' || *ps->p == '*') {
      sign = *ps->p == '/' ? -1 : 1;
      ps->p++;
    }
  }
}

static gboolean dim_equal(const Dim *a, const Dim *b) {
  return !memcmp(a->dim, b->dim, sizeof a->dim);
}

int lw_units_parse(const char *text, lw_quantity q, int degrees, double *si,
                   char *err, size_t errlen) {
  g_return_val_if_fail(q >= 0 && q < LW_Q_COUNT && si && err && errlen > 0, 0);
  err[0] = 0;
  Parser ps = {text ? text : "", text ? text : "", 0, err, errlen, FALSE};
  if (strlen(ps.s) > LW_UNITS_MAX_TEXT) {
    fail(&ps, _("the text is too long"));
    return 0;
  }
  skip_space(&ps);
  if (!*ps.p) {
    fail(&ps, _("the field is empty"));
    return 0;
  }
  double v = parse_expr(&ps);
  skip_space(&ps);
  double factor = lw_quantity_factor(q, degrees);
  if (!ps.failed && *ps.p) {
    Dim dim;
    const char *unit = ps.p;
    factor = parse_unit(&ps, &dim);
    if (!ps.failed && !dim_equal(&dim, &quantities[q].dim)) {
      char msg[200];
      g_snprintf(msg, sizeof msg, _("'%s' is not a unit of %s (%s)"), unit,
                 lw_quantity_name(q),
                 *quantities[q].unit ? quantities[q].unit : _("no unit"));
      fail(&ps, msg);
      return LW_UNITS_WRONG_UNIT;
    }
  }
  if (ps.failed)
    return 0;
  double r = v * factor;
  if (isnan(r)) {
    fail(&ps, _("the result is not a number"));
    return 0;
  }
  if (!isfinite(r)) {
    fail(&ps, _("the number is too large"));
    return 0;
  }
  *si = r;
  return LW_UNITS_OK;
}

void lw_units_format(double si, lw_quantity q, int degrees, char *buf,
                     size_t len) {
  g_return_if_fail(q >= 0 && q < LW_Q_COUNT && buf && len > 0);
  double v = si / lw_quantity_factor(q, degrees);
  g_ascii_formatd(buf, (int)len, "%.10g", v);
}
