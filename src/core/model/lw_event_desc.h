/* lw_event_desc.h: the description's events as lw_desc.c frees, copies
 * and addresses them (lw_event_desc.c). */
#ifndef LW_EVENT_DESC_H
#define LW_EVENT_DESC_H

#include "linkwright.h"

#include <stddef.h>

void lw_desc_events_free(lw_desc *d);
/* remove event i (its strings freed) */
void lw_desc_event_take(lw_desc *d, int i);
/* dst's events become a deep copy of src's (dst's own are not freed) */
void lw_desc_events_copy(lw_desc *dst, const lw_desc *src);
/* the numeric field p ("restitution", "normal/1", ...) of the event named
 * name, or NULL */
double *lw_event_field(lw_desc *d, const char *name, const char *p);

#endif
