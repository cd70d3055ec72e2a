/* lw_forces.h: what dyn/lw_forces.c offers the rest of the core (private to src/core). */
#ifndef LW_DYN_LW_FORCES_H
#define LW_DYN_LW_FORCES_H

#include "lw_internal.h"

void lw_perturb_eval(const lw_model *m, const lw_data *d, double *Q);
/* value x of coordinate ci continued across +-pi from the data's last value */
double lw_coord_continue(const lw_model *m, const lw_data *d, int ci, double x);
void lw_forces_eval(const lw_model *m, lw_data *d, const double *q, const double *qd, double t,
                    double *Q, double *vals, double ks, double cs);
/* the error e of measured coordinate i (m->fbs[i]) at (q, qd, t) */
double lw_fb_error(const lw_model *m, const lw_data *d, int i, const double *q, const double *qd, double t);
/* integral action: enter a step from the current state (fbc = z + h/2 e,
 * fb_beta = h/2), leave it at the new state (z = fbc + h/2 e, fbc = z,
 * fb_beta = 0), or reset to z = 0 */
void lw_fb_step_begin(const lw_model *m, lw_data *d, double h);
void lw_fb_step_end(const lw_model *m, lw_data *d, double h);
void lw_fb_reset(const lw_model *m, lw_data *d);
/* a spring-damper's length (joint spring-damper: its coordinate, unwrapped)
 * x and its rate xd at q, qd */
void lw_spring_state(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                     double *x, double *xd);
/* power the dampers take out at q, qd: sum c xd^2 over the spring-dampers
 * and joint spring-dampers (>= 0 for c >= 0) */
double lw_damper_power(const lw_model *m, const lw_data *d, const double *q, const double *qd);
double lw_potential_energy(const lw_model *m, lw_data *d, const double *q);
/* switches: the signed distance n.p - offset of switch guard g's point at
 * q; the sides of every switch taken from q (a point on its plane keeps
 * the side it had) and the forces turned on or off to match (each force a
 * switch names acts while its point is on the negative side) */
double lw_switch_gap(const lw_model *m, const lw_guard *g, const double *q);
void lw_switches_set(const lw_model *m, lw_data *d, const double *q);
void lw_switches_apply(const lw_model *m, lw_data *d);
/* the sides as the bits of a number, and back (the stored states) */
double lw_switches_pack(const lw_model *m, const lw_data *d);
void lw_switches_unpack(const lw_model *m, lw_data *d, double bits);

#endif
