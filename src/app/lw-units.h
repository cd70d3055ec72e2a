/* lw-units.h: numbers typed into a field with a quantity: simple
 * expressions (+ - * / ^, parentheses, pi, e, sqrt, sin, cos, tan, abs,
 * exp, ln, log10) followed by an optional unit ("90 deg", "250 mm",
 * "1 N/mm", "3 N m", "2 kg m^2"), converted to the field's SI unit.  A number
 * without a unit is in the field's display unit (degrees for angles when
 * the interface shows degrees).  Plain C, no GTK: the property page and
 * its tests use it (GLib only). */
#pragma once

#include <stddef.h>

typedef enum {
  LW_Q_NONE,          /* dimensionless */
  LW_Q_LENGTH,        /* m */
  LW_Q_ANGLE,         /* rad */
  LW_Q_MASS,          /* kg */
  LW_Q_INERTIA,       /* kg m² */
  LW_Q_STIFFNESS,     /* N/m */
  LW_Q_ROT_STIFFNESS, /* N m/rad */
  LW_Q_DAMPING,       /* N s/m */
  LW_Q_ROT_DAMPING,   /* N m s/rad */
  LW_Q_FORCE,         /* N */
  LW_Q_TORQUE,        /* N m */
  LW_Q_TIME,          /* s */
  LW_Q_VELOCITY,      /* m/s */
  LW_Q_ANG_VELOCITY,  /* rad/s */
  LW_Q_ACCELERATION,  /* m/s² */
  LW_Q_PRESSURE,      /* Pa: a modulus of elasticity, a stress */
  LW_Q_DENSITY,       /* kg/m³ */
  LW_Q_AREA,          /* m²: a section's area */
  LW_Q_SECOND_MOMENT, /* m⁴: a section's second moment of area */
  LW_Q_COUNT
} lw_quantity;

/* the longest text a field accepts */
#define LW_UNITS_MAX_TEXT 256

/* The unit a quantity is shown in ("m", "deg", "kg m²"; "" for none) and
 * the factor from it to SI (value_si = shown * factor). */
const char *lw_quantity_unit(lw_quantity q, int degrees);
double lw_quantity_factor(lw_quantity q, int degrees);
/* The quantity's name for messages ("length", "angle"...). */
const char *lw_quantity_name(lw_quantity q);

/* Parse text as a value of quantity q.  On success returns LW_UNITS_OK
 * and *si the value in SI units; on failure the reason (translated) in err
 * and LW_UNITS_WRONG_UNIT when the text was a value with a unit of another
 * quantity, LW_UNITS_INVALID when it was not a value at all. */
enum { LW_UNITS_WRONG_UNIT = -1, LW_UNITS_INVALID = 0, LW_UNITS_OK = 1 };
int lw_units_parse(const char *text, lw_quantity q, int degrees, double *si,
                   char *err, size_t errlen);

/* Format an SI value in the quantity's display unit, without the unit
 * ("%.10g", C locale). */
void lw_units_format(double si, lw_quantity q, int degrees, char *buf,
                     size_t len);
