/* lw_beam_desc.h: the description's beams as lw_desc.c frees, copies and
 * addresses them (lw_beam_desc.c). */
#ifndef LW_BEAM_DESC_H
#define LW_BEAM_DESC_H

#include "linkwright.h"

void lw_desc_beams_free(lw_desc *d);
/* dst's beams become a deep copy of src's (dst's own are not freed) */
void lw_desc_beams_copy(lw_desc *dst, const lw_desc *src);
/* the numeric field p ("young", "size/1", "start/0", ...) of the beam
 * named name, or NULL */
double *lw_beam_field(lw_desc *d, const char *name, const char *p);

/* the derivatives of the beam's section area and second moment with
 * respect to its field at address x (a size, the area or the inertia):
 * 1, or 0 when x is none of them */
int lw_beam_section_tangent(const lw_beam_desc *b, const double *x, double *dA, double *dI);

#endif
