/* sens_events.h: the steps with events of a sensitivity run (sens_events.c),
 * for the forward and adjoint drivers (private to src/core/sens). */
#ifndef LW_SENS_SENS_EVENTS_H
#define LW_SENS_SENS_EVENTS_H

#include "sens_internal.h"

typedef struct sens_ev sens_ev;

/* 0 when the run's sensitivities can go through the model's events; -1
 * with err saying what stands in the way (no events: 0) */
int sens_ev_supported(const lw_model *m, int derivs, lw_error *err);
/* the events' state for a run on workspace s from the state in s->d (the
 * initial state); NULL with err set when out of memory or a guard starts
 * violated */
sens_ev *sens_ev_new(sens *s);
void sens_ev_free(sens_ev *e);
/* the events' state taken anew at stored state st (a recomputation from it) */
int sens_ev_restart(sens_ev *e, const double *st);
/* the step of model mk (the run's model, or the copy with the step's
 * length: sens_step_set) from stored state st0 into st1 with every event
 * inside it located and applied (lw_events.c); *fired: it held an event,
 * whose states are kept for sens_ev_jacobian; value (NULL: not wanted): the
 * objectives' integrals corrected for the events inside the step (their
 * trapezoidal rule over the sub-intervals between them).  LW_OK or an error in s->err */
int sens_ev_step(sens_ev *e, const lw_model *mk, const double *st0, double *st1, int *fired, double *value);
/* the derivative of the last step with events (sens_ev_step) with respect
 * to the state it started from and the parameters, kept in e */
int sens_ev_jacobian(sens_ev *e);
/* forward: the nl live columns Sx (nx x nl by rows) carried over that
 * step; parameters the step moves are made live first (live_add) */
void sens_ev_forward(sens_ev *e, double *Sx);
/* the parameters whose columns the step's Jacobian holds nonzero (into
 * s->alist, s->nact) */
void sens_ev_active(sens_ev *e);
/* forward: the derivative of that correction of the integrals added to
 * the gradients (no x p), with the live columns Sx at the step's start */
void sens_ev_quad_grad(const sens_ev *e, const double *Sx, double *grad);
/* forward: the times of the step's events differentiated (their dtau
 * summed, through the live columns Sx at the step's start), appended to
 * the run's list */
void sens_ev_times(sens_ev *e, const double *Sx);
/* the run's event log and (forward) the events' time derivatives (NULL
 * when not computed), handed over into res */
void sens_ev_take_log(sens_ev *e, lw_sens_result *res);
/* adjoint for objective o: cprev (nx) = J_x^T cx plus the correction's
 * derivative, grad (p) += J_p^T cx plus the correction's */
void sens_ev_adjoint(const sens_ev *e, int o, const double *cx, double *cprev, double *grad);

#endif
