/* lw_ref_util.h: pieces shared by the IDAS reference integrators
 * (lw_ref_idas.c, lw_ref_idas_sens.c); not part of their interface. */
#ifndef LW_REF_UTIL_H
#define LW_REF_UTIL_H

#include "linkwright.h"

#include <idas/idas.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

/* monotonic wall clock, s */
double lw_ref_now(void);
/* printf into msg (may be NULL) */
void lw_ref_msg(char *msg, int msglen, const char *fmt, ...);
/* F(t, y, y') of the index-1 DAE for y = [q; v; lam] into r (2 nq + nc):
 *   q' - v,   M v' + J^T lam - Q(q, v, t),   J v' + gamma(q, v, t),
 * M (nq x nq) given; Q (nq), J (nc x nq) and gam (nc) are filled at
 * (t, q, v).  Returns 1 when r is not finite (IDAS then retries with a
 * smaller step), else 0. */
int lw_ref_residual(const lw_model *m, lw_data *d, const double *M, double *Q, double *J, double *gam, double t,
                    const double *y, const double *yp, double *r);
/* frees what is not NULL: the IDAS memory, a linear solver, its matrix
 * and nv vectors */
void lw_ref_ida_release(void *mem, SUNLinearSolver LS, SUNMatrix A, N_Vector *v, int nv);

#endif
