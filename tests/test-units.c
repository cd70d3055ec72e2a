/* Numbers typed into a field with a quantity (src/app/lw-units.c): a table
 * of texts, each with the quantity of its field, the display mode (degrees
 * or radians) and either the SI value expected or a piece of the message
 * that refuses it. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "lw-units.h"

typedef struct {
  const char *text;
  lw_quantity q;
  int degrees;
  gboolean ok;
  double si;       /* expected value when ok */
  const char *why; /* a piece of the message when refused */
} Case;

static const Case cases[] = {
    /* plain numbers are in the display unit */
    {"2", LW_Q_LENGTH, 1, TRUE, 2, NULL},
    {"90", LW_Q_ANGLE, 1, TRUE, G_PI / 2, NULL},
    {"1.5", LW_Q_ANGLE, 0, TRUE, 1.5, NULL},
    {"360", LW_Q_ANG_VELOCITY, 1, TRUE, 2 * G_PI, NULL},
    {"-0.5e-3", LW_Q_LENGTH, 1, TRUE, -0.5e-3, NULL},
    {"  7  ", LW_Q_MASS, 1, TRUE, 7, NULL},
    {".5", LW_Q_NONE, 1, TRUE, 0.5, NULL},
    /* units converted to SI */
    {"90 deg", LW_Q_ANGLE, 0, TRUE, G_PI / 2, NULL},
    {"90°", LW_Q_ANGLE, 0, TRUE, G_PI / 2, NULL},
    {"1.5 rad", LW_Q_ANGLE, 1, TRUE, 1.5, NULL},
    {"pi/2 rad", LW_Q_ANGLE, 1, TRUE, G_PI / 2, NULL},
    {"250 mm", LW_Q_LENGTH, 1, TRUE, 0.25, NULL},
    {"2 cm", LW_Q_LENGTH, 1, TRUE, 0.02, NULL},
    {"1 m", LW_Q_LENGTH, 1, TRUE, 1, NULL},
    {"5 g", LW_Q_MASS, 1, TRUE, 0.005, NULL},
    {"2 kg", LW_Q_MASS, 1, TRUE, 2, NULL},
    {"3 N", LW_Q_FORCE, 1, TRUE, 3, NULL},
    {"1 N/mm", LW_Q_STIFFNESS, 1, TRUE, 1000, NULL},
    {"2 N s/m", LW_Q_DAMPING, 1, TRUE, 2, NULL},
    {"3 N m", LW_Q_TORQUE, 1, TRUE, 3, NULL},
    {"3 Nm", LW_Q_TORQUE, 1, TRUE, 3, NULL},
    {"2 N m/deg", LW_Q_ROT_STIFFNESS, 1, TRUE, 2 * 180 / G_PI, NULL},
    {"2 kg m^2", LW_Q_INERTIA, 1, TRUE, 2, NULL},
    {"2 kg cm²", LW_Q_INERTIA, 1, TRUE, 2e-4, NULL},
    {"9.81 m/s^2", LW_Q_ACCELERATION, 1, TRUE, 9.81, NULL},
    {"9.81 m/s²", LW_Q_ACCELERATION, 1, TRUE, 9.81, NULL},
    {"5 ms", LW_Q_TIME, 1, TRUE, 0.005, NULL},
    {"60 rpm", LW_Q_ANG_VELOCITY, 1, TRUE, 2 * G_PI, NULL},
    {"1 rev/s", LW_Q_ANG_VELOCITY, 0, TRUE, 2 * G_PI, NULL},
    {"2 m/s", LW_Q_VELOCITY, 1, TRUE, 2, NULL},
    /* expressions */
    {"pi/2", LW_Q_ANGLE, 0, TRUE, G_PI / 2, NULL},
    {"2*0.35", LW_Q_LENGTH, 1, TRUE, 0.7, NULL},
    {"(1+2)/3", LW_Q_NONE, 1, TRUE, 1, NULL},
    {"sqrt(2)", LW_Q_LENGTH, 1, TRUE, G_SQRT2, NULL},
    {"2^3^2", LW_Q_NONE, 1, TRUE, 512, NULL},
    {"-2^2", LW_Q_NONE, 1, TRUE, -4, NULL},
    {"1 - 2 - 3", LW_Q_NONE, 1, TRUE, -4, NULL},
    {"8/2/2", LW_Q_NONE, 1, TRUE, 2, NULL},
    {"2*(0.1 + 0.15) m", LW_Q_LENGTH, 1, TRUE, 0.5, NULL},
    {"--1", LW_Q_NONE, 1, TRUE, 1, NULL},
    /* refused */
    {"", LW_Q_LENGTH, 1, FALSE, 0, "empty"},
    {"   ", LW_Q_LENGTH, 1, FALSE, 0, "empty"},
    {"2 +", LW_Q_LENGTH, 1, FALSE, 0, "ends too early"},
    {"1/0", LW_Q_NONE, 1, FALSE, 0, "division by zero"},
    {"90 kg", LW_Q_ANGLE, 1, FALSE, 0, "not a unit of angle"},
    {"90 deg", LW_Q_LENGTH, 1, FALSE, 0, "not a unit of length"},
    {"3 N", LW_Q_TORQUE, 1, FALSE, 0, "not a unit of torque"},
    {"2 m", LW_Q_NONE, 1, FALSE, 0, "not a unit of number"},
    {"nan", LW_Q_LENGTH, 1, FALSE, 0, "unknown name 'nan'"},
    {"inf", LW_Q_LENGTH, 1, FALSE, 0, "unknown name 'inf'"},
    {"1e400", LW_Q_LENGTH, 1, FALSE, 0, "too large"},
    {"1e308*10", LW_Q_LENGTH, 1, FALSE, 0, "too large"},
    {"half a metre", LW_Q_LENGTH, 1, FALSE, 0, "unknown name 'half'"},
    {"0,25", LW_Q_LENGTH, 1, FALSE, 0, "unexpected ',25'"},
    {"2 furlongs", LW_Q_LENGTH, 1, FALSE, 0, "unknown unit 'furlongs'"},
    {"(1+2", LW_Q_NONE, 1, FALSE, 0, "')' is missing"},
    {"sqrt(-1)", LW_Q_NONE, 1, FALSE, 0, "square root"},
    {"foo(2)", LW_Q_NONE, 1, FALSE, 0, "unknown function 'foo'"},
    {"2 m^x", LW_Q_LENGTH, 1, FALSE, 0, "whole number"},
    {"2 N/", LW_Q_FORCE, 1, FALSE, 0, "missing"},
    {"0/0", LW_Q_NONE, 1, FALSE, 0, "division by zero"},
    {"1e-400/1e-400", LW_Q_NONE, 1, FALSE, 0, "division by zero"},
    {"(-8)^(1/3)", LW_Q_NONE, 1, FALSE, 0, "not a number"},
    {"2 m 3", LW_Q_LENGTH, 1, FALSE, 0, "unexpected '3'"},
};

static void test_table(void) {
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const Case *c = &cases[i];
    double v = -12345;
    char err[256];
    int ok = lw_units_parse(c->text, c->q, c->degrees, &v, err, sizeof err);
    g_test_message("'%s' (%s, %s): %s %.17g %s", c->text,
                   lw_quantity_name(c->q), c->degrees ? "deg" : "rad",
                   ok == LW_UNITS_OK ? "ok" : "refused",
                   ok == LW_UNITS_OK ? v : 0.0, ok == LW_UNITS_OK ? "" : err);
    g_assert_cmpint(ok == LW_UNITS_OK, ==, c->ok);
    g_assert_cmpint(ok == LW_UNITS_WRONG_UNIT, ==,
                    strstr(c->why ? c->why : "", "not a unit of") != NULL);
    if (ok == LW_UNITS_OK)
      g_assert_cmpfloat_with_epsilon(v, c->si, 1e-12 * fmax(1, fabs(c->si)));
    else {
      g_assert_cmpfloat(v, ==, -12345); /* untouched */
      g_assert_nonnull(strstr(err, c->why));
    }
  }
}

/* input longer than a field takes, and nesting deeper than the parser goes */
static void test_long_input(void) {
  char err[256];
  double v = 0;
  GString *s = g_string_new(NULL);
  for (int i = 0; i < 200; i++)
    g_string_append(s, "1+");
  g_string_append(s, "1");
  g_assert_false(lw_units_parse(s->str, LW_Q_NONE, 1, &v, err, sizeof err));
  g_assert_nonnull(strstr(err, "too long"));
  /* under the limit, deeply nested */
  g_string_truncate(s, 0);
  for (int i = 0; i < 120; i++)
    g_string_append_c(s, '(');
  g_string_append_c(s, '1');
  for (int i = 0; i < 120; i++)
    g_string_append_c(s, ')');
  g_assert_false(lw_units_parse(s->str, LW_Q_NONE, 1, &v, err, sizeof err));
  g_assert_nonnull(strstr(err, "nested too deeply"));
  g_string_truncate(s, 0);
  for (int i = 0; i < 200; i++)
    g_string_append_c(s, '-');
  g_string_append_c(s, '1');
  g_assert_false(lw_units_parse(s->str, LW_Q_NONE, 1, &v, err, sizeof err));
  g_assert_nonnull(strstr(err, "nested too deeply"));
  /* a short message buffer is filled, not overrun */
  char small[8];
  g_assert_false(lw_units_parse("2 +", LW_Q_NONE, 1, &v, small, sizeof small));
  g_assert_cmpuint(strlen(small), ==, sizeof small - 1);
  g_string_free(s, TRUE);
}

/* what a field shows reads back as the same value */
static void test_format_round_trip(void) {
  const double values[] = {
      G_PI / 2, -1.5707963267948966, 0.010416666666666666, 1e-300, 6, 0};
  for (int degrees = 0; degrees < 2; degrees++)
    for (guint i = 0; i < G_N_ELEMENTS(values); i++)
      for (lw_quantity q = 0; q < LW_Q_COUNT; q++) {
        char buf[64], err[256];
        lw_units_format(values[i], q, degrees, buf, sizeof buf);
        double v = 0;
        g_assert_true(lw_units_parse(buf, q, degrees, &v, err, sizeof err));
        g_assert_cmpfloat_with_epsilon(v, values[i],
                                       1e-9 * fmax(1e-300, fabs(values[i])));
      }
  char buf[64];
  lw_units_format(G_PI / 2, LW_Q_ANGLE, 1, buf, sizeof buf);
  g_assert_cmpstr(buf, ==, "90");
  lw_units_format(G_PI / 2, LW_Q_ANGLE, 0, buf, sizeof buf);
  g_assert_cmpstr(buf, ==, "1.570796327");
  g_assert_cmpstr(lw_quantity_unit(LW_Q_ANGLE, 1), ==, "deg");
  g_assert_cmpstr(lw_quantity_unit(LW_Q_ANGLE, 0), ==, "rad");
  g_assert_cmpstr(lw_quantity_unit(LW_Q_STIFFNESS, 1), ==, "N/m");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/units/table", test_table);
  g_test_add_func("/units/long-input", test_long_input);
  g_test_add_func("/units/format-round-trip", test_format_round_trip);
  return g_test_run();
}
