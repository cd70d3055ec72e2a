/* lw_opt.h: design optimization over a model's parameters (NLopt).
 *
 * A problem of the model file (lw_problem_desc) names an objective to
 * minimize (or maximize), the parameters that are the design variables with
 * their bounds and scales, and constraints that bound other objectives.
 * Every evaluation is one lw_sensitivity call: the objective, the
 * constraints and their exact gradients (adjoint by default).  The best
 * design seen is kept whatever happens later: a failed simulation, a
 * cancel, a multistart run that ends worse. */
#ifndef LW_OPT_H
#define LW_OPT_H

#include "linkwright.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int start;            /* 0-based start of a multistart run */
  int evaluation;       /* evaluations so far, all starts */
  int iteration;        /* evaluations so far that improved the best design */
  double f;             /* the objective at this evaluation (as the model defines it) */
  double best_f;        /* the best so far */
  double violation;     /* largest constraint violation at this evaluation */
  double pgnorm;        /* infinity norm of the projected gradient, scaled variables */
  int n;
  const double *x;      /* parameter values of this evaluation */
  int failed;           /* this evaluation's simulation failed */
  const char *message;  /* and why */
} lw_opt_progress;

/* called after every evaluation; returning nonzero stops the optimization */
typedef int (*lw_opt_progress_fn)(const lw_opt_progress *p, void *user);

typedef struct {
  int algorithm;        /* lw_opt_algorithm, or -1 for the problem's */
  int gradient;         /* lw_sens_method (ADJOINT, FORWARD, FD), or -1 for the problem's */
  int max_evaluations;  /* 0: the problem's */
  int multistart;       /* 0: the problem's */
  lw_opt_progress_fn progress;
  void *user;
} lw_opt_options;

typedef struct {
  int status;           /* LW_OK, LW_ERR_MODEL (a bad problem), LW_ERR_SOLVER (no design could be simulated) */
  lw_error error;
  int n;                /* design variables */
  int *params;          /* (n) their parameter indices */
  double *x0, *x;       /* (n) initial and best parameter values */
  double *grad;         /* (n) gradient of the objective at the best design (unscaled) */
  double f0, f;         /* objective at the initial and the best design */
  double violation;     /* largest constraint violation at the best design */
  double pgnorm0, pgnorm; /* projected gradient (infinity norm, scaled variables) at both */
  int evaluations, iterations, failed_evaluations, starts;
  double wall_time_s;
  char stop[160];       /* why it stopped */
  char last_failure[600]; /* the last failed evaluation's error, "" if none */
  int nhist;            /* per evaluation: */
  double *hist_f, *hist_violation, *hist_pgnorm;
  int *hist_start;
  lw_desc *optimized;   /* the model with the best design's parameter values */
} lw_opt_result;

/* Solve problem `problem` of d.  opt may be NULL. */
int lw_optimize(const lw_desc *d, int problem, const lw_opt_options *opt, lw_opt_result *res);
void lw_opt_result_clear(lw_opt_result *r);

/* The parameters a problem's variables name (NAME or NAME[*]), with bounds
 * and scales; returns the count or -1 with err filled. */
int lw_opt_variables(const lw_desc *d, const lw_problem_desc *p, int **params, double **lower, double **upper,
                     double **scale, lw_error *err);

/* infinity norm of the projected gradient: max_i |P(x_i - g_i) - x_i| for
 * the box [lo, hi] */
double lw_projected_gradient_norm(int n, const double *x, const double *g, const double *lo, const double *hi);

#ifdef __cplusplus
}
#endif
#endif
