/* lw_beam_out.h: the beams' outputs and their derivatives (lw_beam_out.c). */
#ifndef LW_DYN_LW_BEAM_OUT_H
#define LW_DYN_LW_BEAM_OUT_H

#include "lw_internal.h"

/* beam output k (LW_OUT_BEAM_*) at q: its value, and into *dy (when dy is
 * given) its derivative along dq (NULL: 0) and the tangent model tm (NULL:
 * none) */
double lw_beam_output(const lw_model *m, lw_data *d, int k, const double *q, const double *dq, const lw_model *tm,
                      double *dy);

#endif
