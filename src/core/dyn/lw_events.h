/* lw_events.h: what dyn/lw_events.c offers the rest of the core (private to src/core). */
#ifndef LW_DYN_LW_EVENTS_H
#define LW_DYN_LW_EVENTS_H

#include "lw_internal.h"

/* the events of a run (lw_sim.c).  The run saves the state
 * before each step (lw_ev_save); after the step lw_ev_after_step locates
 * the first guard crossing within it, re-steps to it, applies the impact,
 * hands rows at the event to row(), and steps on to the step's end again;
 * returns 0 (the run goes on, d at the step's end), 1 (an event stopped
 * the run at d's state) or -1 (a step failed: err). */
typedef struct lw_ev_run lw_ev_run;
typedef int (*lw_ev_row_fn)(void *user, lw_data *d);
lw_ev_run *lw_ev_run_new(const lw_model *m);
void lw_ev_run_free(lw_ev_run *ev);
/* the guards at the initial state; -1 with err when a contact or limit
 * starts violated */
int lw_ev_start(const lw_model *m, lw_data *d, lw_ev_run *ev, lw_error *err);
void lw_ev_save(const lw_model *m, lw_data *d, lw_ev_run *ev);
int lw_ev_after_step(const lw_model *m, lw_data *d, lw_ev_run *ev, lw_ev_row_fn row, void *user, lw_error *err);
/* a (sub)step shorter than this fraction of the step it is cut from is
 * taken by a predictor-corrector in increments (the trapezoidal rule's
 * velocity 2 (q - q_n) / h - qd_n loses digits as h shrinks: 1e-16 / h) */
#define LW_EV_SHORT 1e-2
/* the guard located last (the event a row callback is called at) and its
 * time *tau after the start of the (sub)step it was found in */
/* persistent contact: whether guards rest (their gaps held at zero, any
 * number at once); that slow impacts make guards rest (else they end the
 * run); the step while some rest, the events and releases in it handled
 * (*evs: as lw_ev_after_step) */
int lw_ev_resting(const lw_ev_run *ev);
void lw_ev_allow_rest(lw_ev_run *ev);
int lw_ev_rest_step(const lw_model *m, lw_data *d, lw_ev_run *ev, lw_step_info *info, lw_ev_row_fn row, void *user,
                    lw_error *err, int *evs);
/* the first contact, limit or collision other than except that touches at
 * d's positions (its gap within 1e-10 of zero), or -1: bodies at rest
 * against each other, whose impacts the simulation chains */
int lw_ev_touching(const lw_model *m, const lw_data *d, const lw_ev_run *ev, int except);
int lw_ev_last(const lw_ev_run *ev, double *tau);
/* the steps to and from events of model m taken by fn (a step of length h
 * from d's state to d->t + h) instead of the model's own step; and, for a
 * run that steps on from an event itself, lw_ev_after_step returning 2
 * with d at the event (after the impact) instead of stepping on to the
 * step's end, the default rest speed g rest_h (steps of changing length) */
typedef int (*lw_ev_step_fn)(void *user, lw_data *d, double h, lw_step_info *info, lw_error *err);
void lw_ev_set_step(lw_ev_run *ev, const lw_model *m, lw_ev_step_fn fn, void *user);
void lw_ev_stop_at_impact(lw_ev_run *ev, double rest_h);
/* the solver options of the resting set's model (its steps' length) */
void lw_ev_rest_opt(lw_ev_run *ev, const lw_opt *o);
/* the run's end by its events said in res->error, their log into res */
void lw_ev_stop_message(const lw_model *m, lw_ev_run *ev, lw_sim_result *res, double t);
/* G (nq) = the gradient dg/dq of guard k at d's positions */
void lw_ev_guard_grad(const lw_model *m, const lw_data *d, lw_ev_run *ev, int k, double *G);
/* the event log so far, handed over (*n records; the caller frees it) */
lw_event_record *lw_ev_take_log(lw_ev_run *ev, long *n);

#endif
