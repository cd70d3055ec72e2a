/* lw_rows.h: what dyn/lw_rows.c offers the rest of the core (private to src/core). */
#ifndef LW_DYN_LW_ROWS_H
#define LW_DYN_LW_ROWS_H

#include "lw_internal.h"

void lw_rows_eval(const lw_model *m, lw_data *d, const double *q, double t, int want_jac);
void lw_grad_copy(const lw_model *m, double *dst, const double *src, unsigned long *mark);
void lw_rows_time(const lw_model *m, lw_data *d, const double *q, const double *qd, double t);
void lw_rows_phit(const lw_model *m, lw_data *d, double t);
double lw_wrap_pi(double x);
double lw_coord_eval(const lw_model *m, const lw_coord *c, const double *q, double *g);
double lw_coord_rate(const lw_model *m, const lw_coord *c, const double *q, const double *qd);

#endif
