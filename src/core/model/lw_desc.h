/* lw_desc.h: what model/lw_desc.c offers the rest of the core beyond the
 * public interface (private to src/core). */
#ifndef LW_MODEL_LW_DESC_H
#define LW_MODEL_LW_DESC_H

#include "linkwright.h"

/* the derivative of f's value v and its first two time derivatives dv,
 * ddv (each may be NULL) at t along the coefficients' tangent tf (a
 * function of f's type; a spline's knot times are not parameters) */
void lw_func_tangent(const lw_func *f, const lw_func *tf, double t, double *v, double *dv, double *ddv);
/* the derivative of f's value and its first two time derivatives at t
 * with respect to t itself: f', f'', f''' (each may be NULL; a spline's
 * f''' is that of its cubic piece at t, zero outside [a[0], a[1]]) */
void lw_func_time_tangent(const lw_func *f, double t, double *v, double *dv, double *ddv);

#endif
