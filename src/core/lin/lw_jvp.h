/* lw_jvp.h: what lin/lw_jvp.c offers the rest of the core (private to src/core). */
#ifndef LW_LIN_LW_JVP_H
#define LW_LIN_LW_JVP_H

#include "lw_internal.h"

void lw_lin_jvp(const lw_model *m, lw_data *d, const lw_lin_point *p, const lw_lin_dir *dir,
                const lw_lin_out *o);
void lw_coord_jvp(const lw_model *m, const lw_tangent *tg, int ci, const lw_lin_point *p,
                 const lw_lin_dir *dir, double *dx, double *dxd, double *g, double *dg);
/* the error e of measured coordinate i at p (returned; the rate measure
 * takes p->qd) and its derivative de along dir and the parameter tg */
double lw_fb_error_jvp(const lw_model *m, const lw_data *d, const lw_tangent *tg, int i,
                       const lw_lin_point *p, const lw_lin_dir *dir, double *de);
void lw_output_jvp(const lw_model *m, lw_data *d, const lw_tangent *tg, int k, const lw_lin_point *p,
                   const lw_lin_dir *dir, double *dy);
/* the dense form of lw_lin_blocks; -1 when out of memory */
int lw_lin_matrices(const lw_model *m, lw_data *d, const lw_lin_point *p, double cv, double *const H[3], int ldh,
                    double *RV, double *RA, double *RAd, int ldr, double *KC, int ldk, double *C, int ldc);
/* the same matrices in structured form, accumulated (+=): H[k], KC, C as
 * lw_bmat (NULL: skip), RV, RA, RAd by rows and blocks like d->jac */
void lw_lin_blocks(const lw_model *m, lw_data *d, const lw_lin_point *p, double cv, const lw_bmat *const H[3],
                   double *RV, double *RA, double *RAd, const lw_bmat *KC, const lw_bmat *C);
/* the same, force n's derivatives taken along the coordinates
 * fd_q[fd_ptr[n] .. fd_ptr[n + 1]) alone (NULL: along every coordinate of
 * its blocks): the others' columns must be exactly zero */
void lw_lin_blocks_dirs(const lw_model *m, lw_data *d, const lw_lin_point *p, double cv,
                        const lw_bmat *const H[3], double *RV, double *RA, double *RAd, const lw_bmat *KC,
                        const lw_bmat *C, const int *fd_ptr, const int *fd_q);
void lw_tangent_mass_mul(const lw_model *m, const lw_tangent *tg, const double *x, double *y);
void lw_tangent_mass_mul_k(const lw_model *m, const lw_tangent *tg, int k, const double *const *x,
                           double *const *y);
/* 0 when the tangent's step columns are exactly zero at time t */
int lw_tangent_active(const lw_model *m, const lw_tangent *tg, double t);

#endif
