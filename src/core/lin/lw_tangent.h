/* lw_tangent.h: what lin/lw_tangent.c offers the rest of the core (private to src/core). */
#ifndef LW_LIN_LW_TANGENT_H
#define LW_LIN_LW_TANGENT_H

#include "lw_internal.h"

/* the tangent of parameter j of desc: exact when every field it is bound
 * to has an exact derivative, numerical otherwise (lw_tangent.c) */
lw_tangent *lw_tangent_new(const lw_desc *desc, int j, lw_error *err);
/* the two ways alone (the tests compare them): exactly (NULL when a bound
 * field has no exact derivative, or with err set when desc does not
 * compile), and by Richardson-extrapolated differences of the compilation */
lw_tangent *lw_tangent_new_exact(const lw_desc *desc, int j, lw_error *err);
lw_tangent *lw_tangent_new_numeric(const lw_desc *desc, int j, lw_error *err);
/* the model of zeros shared by function tangents (free with lw_model_free) */
lw_model *lw_tangent_zero_model(const lw_desc *desc, lw_error *err);
/* parameter j of desc as a function tangent on the zero model, or NULL when
 * it is bound to anything but one coefficient of one time function */
lw_tangent *lw_tangent_new_func(const lw_desc *desc, int j, lw_model *zero);
/* the derivative with respect to the time through time function idx of
 * force (kind 1) or driver (kind 2) alone, on the zero model */
lw_tangent *lw_tangent_new_time(lw_model *zero, int kind, int idx);
void lw_tangent_free(lw_tangent *t);

#endif
