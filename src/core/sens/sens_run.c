/* sens_run.c: the public entry points (lw_sensitivity, lw_sensitivity_model)
 * and one run's set-up and finish.  Exact sensitivities of objectives over a
 * simulation: forward (direct differentiation, sens_forward.c) and discrete
 * adjoint (sens_adjoint.c) of the discretized ALI3-P step, central finite
 * differences of the whole simulation as a verifier (here).
 *
 * The step from t_n to t_n+1 solves, at convergence (seed 002 eqs. 3.28,
 * 3.35, 3.39 with the trapezoidal rule, beta = 1/4, gamma = 1/2):
 *   E_P(q, lambda):  M qdd*(q) - Q(q, qd*(q)) + J(q)^T lambda = 0,  Phi(q, t) = 0
 *   E_V(qd, sigma):  M (qd - qd*) + J^T sigma = 0,                  J qd + Phi_t = 0
 *   E_A(qdd, kappa): M (qdd - qdd*) + J^T kappa = 0,                J qdd + gamma(q, qd) = 0
 * with qd* = c2 q + bh, qdd* = c4 q + ah, c2 = 2/h, c4 = 4/h^2 and the
 * history terms bh = -(c2 q_n + qd_n), ah = -(c4 q_n + 2 c2 qd_n + qdd_n).
 * With numerical damping (rho_inf < 1) c2, c4, bh and ah are those of the
 * generalized-alpha method (dyn/lw_newmark.h), whose pseudo-acceleration
 * a_n+1 = ea qdd_n+1 + en qdd_n + eo a_n joins the state
 * (docs/methods-numerical-damping.md).
 * Position, velocity and acceleration problems at t = 0 start it.  The
 * Newton iteration converges to the tolerance and the projections are exact,
 * so these equations are what was simulated: their linearization, solved
 * forward (one LU of each step matrix, one back-substitution per parameter)
 * or transposed backward (the discrete adjoint: the exact transpose of the
 * same matrices, cost independent of the number of parameters), gives the
 * derivative of the discrete objective
 *   psi = sum_k w_k g(y_k) (trapezoidal weights) + final terms g(y_N).
 * The step matrices are dense (models up to a few hundred coordinates).
 *
 * Where the rest lives: the workspace (sens_setup.c), stored states
 * (sens_state.c), one step's linearization (sens_step.c), the initial
 * state's (sens_initial.c), outputs and objectives (sens_objectives.c), the
 * solves (sens_linalg.c), the forward on two threads (sens_pipeline.c). */
#include "sens_internal.h"
#include "dyn/lw_sim_tol.h"
#include "sens/sens_events.h"
#include "lin/lw_tangent.h"
#include "model/lw_error.h"

#include <stdlib.h>
#include <unistd.h>

int lw_desc_param_index(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->nparams; i++)
    if (name && !strcmp(d->params[i].name, name))
      return i;
  return -1;
}

int lw_desc_objective_index(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->nobjectives; i++)
    if (name && !strcmp(d->objectives[i].name, name))
      return i;
  return -1;
}

void lw_sens_result_clear(lw_sens_result *r)
{
  free(r->value);
  free(r->gradient);
  free(r->depends);
  free(r->table);
  free(r->events);
  free(r->event_dt);
  memset(r, 0, sizeof *r);
}

/* solver settings are not differentiable parameters */
static int check_param(const lw_desc *d, int j, lw_sens_method method, lw_error *err)
{
  (void)method;
  const lw_param_desc *p = &d->params[j];
  for (int k = 0; k < p->ntargets; k++) {
    if (!strncmp(p->targets[k], "solver/", 7)) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN,
                   "parameter '%s' sets the solver setting '%s'; the simulation is not a "
                   "differentiable function of it",
                   p->name, p->targets[k]);
      return -1;
    }
  }
  return 0;
}

/* ---- one run: set-up, a driver, finish ---------------------------------- */

/* the run's method, sizes and memory limit, before anything is allocated */
static int run_configure(sens_run *r, lw_tangent **tg)
{
  sens *s = r->s;
  const lw_model *m = r->m;
  const lw_sens_options *opt = r->opt;
  sens_sizes_init(s, m, tg, opt->method == LW_SENS_VALUE ? 0 : opt->nparams, r->err);
  /* the forward on two threads: the stepping thread keeps each step's
   * constraint data with the state (aux), as the adjoint's forward pass */
  r->pipelined = opt->method == LW_SENS_FORWARD && s->p > 0 && m->dense && opt->threads != 1 &&
                 m->opt.mode == LW_MODE_STEP && !m->nguards && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
  /* with pipelined, W = M^-1 J^T too: the ring holds a few states, and the
   * taking thread is the slower */
  s->aux = r->pipelined || (opt->method == LW_SENS_ADJOINT && m->dense) ? 2 : 0;
  s->no = opt->nobj;
  s->obj = opt->objectives;
  s->N = (long)floor(m->opt.t_end / s->h + 0.5);
  /* the adjoint keeps every state unless they exceed the memory limit
   * (then checkpoints); the step data kept with them must not be what
   * makes it checkpoint. They are J, S's factor and W = M^-1 J^T (which
   * the backward pass would otherwise compute again), all or none; J and
   * S's factor alone where it checkpoints either way */
  r->limit = opt->memory_limit ? opt->memory_limit : ((size_t)512 << 20);
  if (!r->pipelined && s->aux && sens_state_len(s) * sizeof(double) * (size_t)(s->N + 1) > r->limit) {
    s->aux = 0;
    if (sens_state_len(s) * sizeof(double) * (size_t)(s->N + 1) > r->limit)
      s->aux = 1; /* checkpoints either way */
  }
  s->value = r->res->value;
  s->grad = r->res->gradient;
  r->forward = opt->method == LW_SENS_FORWARD;
  r->adjoint = opt->method == LW_SENS_ADJOINT;
  if (s->n1 > 3000 && (r->forward || r->adjoint)) {
    lw_set_error(r->err, LW_ERR_MODEL, "", NAN,
                 "the model has %d coordinates and %d constraints; sensitivities use dense step "
                 "matrices and are limited to 3000 unknowns",
                 s->nq, s->nc);
    return LW_ERR_MODEL;
  }
  if (m->nfric && (r->forward || r->adjoint) && m->integ->sens_run) {
    /* joint friction's terms are in the ALI3-P step's linearization
     * (sens_friction.c, docs/friction.md sec. 8.5), not in another
     * integrator's own drivers: refused rather than a derivative without
     * them */
    lw_set_error(r->err, LW_ERR_MODEL, "", NAN,
                 "the model has joint friction, whose forward and adjoint sensitivities are computed for the "
                 "ALI3-P integrator only (this model uses '%s'); use ALI3-P or finite differences (fd)",
                 m->integ->name);
    return LW_ERR_MODEL;
  }
  if (sens_ev_supported(m, r->forward || r->adjoint, r->err))
    return LW_ERR_MODEL;
  return LW_OK;
}

/* the workspace: the simulation's data, the arrays, the mass matrix, and
 * which outputs the objectives (or the output table) read */
static int run_workspace(sens_run *r)
{
  sens *s = r->s;
  const lw_model *m = r->m;
  s->d = lw_data_new(m);
  if (!s->d || sens_alloc(s)) {
    lw_set_error(r->err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    return LW_ERR_NOMEM;
  }
  lw_eval_mass_dense(m, s->M);
  for (int o = 0; o < s->no; o++) {
    const lw_objective *ob = &m->objs[s->obj[o]];
    for (int k = ob->first; k < ob->first + ob->n; k++)
      s->out_used[m->terms[k].output] |= m->terms[k].kind == LW_TERM_FINAL ? OUT_FINAL : OUT_EVERY;
  }
  if (!r->adjoint && r->opt->keep_outputs) /* the table: every output, also without sensitivities */
    for (int k = 0; k < m->nout; k++)
      s->out_used[k] |= OUT_EVERY;
  return LW_OK;
}

/* the initial state into st0; with derivatives, its problems linearized */
static int run_initial_state(sens_run *r)
{
  sens *s = r->s;
  if (lw_initialize(s->hs ? &r->mh : r->m, s->d, r->err))
    return r->err->status ? r->err->status : LW_ERR_MODEL;
  sens_state_save(s, r->st0);
  if ((r->forward || r->adjoint) && sens_initial_linearize(s, r->st0, &r->L))
    return r->err->status;
  /* a parameter that moves only a rigid body's placement reaches the run
   * where the assembly keeps some of it */
  for (int j = 0; (r->forward || r->adjoint) && j < s->p; j++)
    if (s->tg[j] && s->tg[j]->guess_only)
      r->res->depends[j] = r->L.guess_free[j];
  return LW_OK;
}

int sens_run_cancelled(const sens_run *r, long k, double fraction)
{
  return r->opt->progress && k % r->every == 0 && r->opt->progress(fraction, r->opt->user);
}

/* one pass: values only (method VALUE), forward, or adjoint; in the
 * tolerance mode over the steps' lengths hs (n of them; NULL: those of a
 * run of m) */
static int run_exact(const lw_model *m, const lw_sens_options *opt, lw_sens_result *res, lw_tangent **tg,
                     const double *hs, long n)
{
  sens S = {0};
  sens_run R = {.m = m, .opt = opt, .res = res, .s = &S, .err = &res->error};
  double *own_hs = NULL;
  int status = run_configure(&R, tg);
  if (!status && m->opt.mode == LW_MODE_TOLERANCE)
    status = sens_steps_start(&R, hs, n, &own_hs);
  if (status) {
    free(own_hs);
    return status;
  }
  status = run_workspace(&R);
  if (!status) {
    R.sl = sens_state_len(&S);
    R.st0 = calloc(R.sl, sizeof(double));
    R.st1 = calloc(R.sl, sizeof(double));
    double t_start = now_s();
    status = run_initial_state(&R);
    R.every = S.N / 100 > 0 ? S.N / 100 : 1;
    if (!status && m->integ->sens_run)
      status = m->integ->sens_run(&R);
    else if (!status)
      status = R.adjoint ? sens_adjoint_run(&R) : sens_forward_run(&R);
    res->sim_steps = S.N;
    res->wall_time_s = now_s() - t_start;
    free(R.st0);
    free(R.st1);
    sens_initial_free(&R.L);
  }
  sens_free(&S);
  lw_data_free(S.d);
  free(own_hs);
  return status;
}

/* ---- the public entry points --------------------------------------------- */

/* the result's arrays, and the objectives and parameters checked against desc */
static int result_start(const lw_desc *desc, const lw_sens_options *opt, lw_sens_result *res)
{
  memset(res, 0, sizeof *res);
  res->error.time = NAN;
  lw_error *err = &res->error;
  int p = opt->nparams, no = opt->nobj;
  res->nparams = p;
  res->nobj = no;
  res->value = calloc((size_t)no + 1, sizeof(double));
  res->gradient = calloc((size_t)no * (p > 0 ? p : 1) + 1, sizeof(double));
  res->depends = calloc((size_t)p + 1, sizeof(int));
  for (int o = 0; o < no; o++)
    if (opt->objectives[o] < 0 || opt->objectives[o] >= desc->nobjectives) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "objective index %d out of range", opt->objectives[o]);
      return res->status = LW_ERR_MODEL;
    }
  for (int j = 0; j < p; j++) {
    if (opt->params[j] < 0 || opt->params[j] >= desc->nparams) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "parameter index %d out of range", opt->params[j]);
      return res->status = LW_ERR_MODEL;
    }
    if (check_param(desc, opt->params[j], opt->method, err))
      return res->status = LW_ERR_MODEL;
  }
  return LW_OK;
}

/* central differences of the whole simulation: 2p + 1 runs, the 2p
 * perturbed ones on copies of desc (m compiled from it) */
/* the objectives' values of a run of the model compiled from desc; in the
 * tolerance mode over the steps' lengths hs (n of them) */
static int fd_values(const lw_model *m, const lw_desc *desc, const lw_sens_options *o1, const double *hs, long n,
                     lw_sens_result *res)
{
  if (!hs)
    return m ? lw_sensitivity_model(m, o1, res) : lw_sensitivity(desc, o1, res);
  if (result_start(desc, o1, res))
    return res->status;
  lw_model *mm = m ? NULL : lw_compile(desc, &res->error);
  if (!m && !mm)
    return res->status = res->error.status;
  res->status = run_exact(m ? m : mm, o1, res, NULL, hs, n);
  lw_model_free(mm);
  return res->status;
}

static int run_fd(const lw_model *m, const lw_desc *desc, const lw_sens_options *opt, lw_sens_result *res)
{
  int p = opt->nparams, no = opt->nobj;
  lw_sens_options o1 = *opt;
  o1.method = LW_SENS_VALUE;
  o1.keep_outputs = 0;
  o1.progress = NULL;
  lw_sens_result r0;
  /* the tolerance mode: every run over the nominal run's steps */
  double *hs = NULL;
  long nhs = 0;
  if (m->opt.mode == LW_MODE_TOLERANCE) {
    int s0 = lw_tol_step_lengths(m, m->opt.t_end, &hs, &nhs, &res->error);
    if (s0)
      return s0;
  }
  int st = fd_values(m, desc, &o1, hs, nhs, &r0);
  if (st) {
    res->error = r0.error;
    lw_sens_result_clear(&r0);
    return st;
  }
  memcpy(res->value, r0.value, sizeof(double) * (size_t)no);
  res->steps = r0.steps;
  res->sim_steps = r0.sim_steps;
  lw_sens_result_clear(&r0);
  double rel = opt->fd_step > 0 ? opt->fd_step : 1e-6;
  for (int j = 0; j < p && !st; j++) {
    lw_desc *dd = lw_desc_copy(desc);
    lw_param_desc *pp = &dd->params[opt->params[j]];
    double v = pp->value, hstep = rel * fmax(fabs(v), 1.0);
    double fv[2][64];
    for (int sgn = 0; sgn < 2 && !st; sgn++) {
      pp->value = v + (sgn ? -hstep : hstep);
      lw_sens_result rr;
      st = fd_values(NULL, dd, &o1, hs, nhs, &rr);
      if (st)
        res->error = rr.error;
      for (int o = 0; o < no && o < 64; o++)
        fv[sgn][o] = rr.value[o];
      lw_sens_result_clear(&rr);
    }
    for (int o = 0; o < no && o < 64 && !st; o++)
      res->gradient[(size_t)o * p + j] = (fv[0][o] - fv[1][o]) / (2.0 * hstep);
    res->depends[j] = 1;
    lw_desc_free(dd);
    if (opt->progress && opt->progress((double)(j + 1) / (double)p, opt->user))
      break;
  }
  free(hs);
  return st;
}

/* the parameters' tangents (none for values alone) from desc, then one run */
static int run_with_tangents(const lw_model *m, const lw_desc *desc, const lw_sens_options *opt,
                             lw_sens_result *res)
{
  int p = opt->nparams, st = LW_OK;
  lw_error *err = &res->error;
  lw_tangent **tg = calloc((size_t)p + 1, sizeof(lw_tangent *));
  lw_model *zero = NULL;
  if (opt->method != LW_SENS_VALUE)
    for (int j = 0; j < p; j++) {
      /* a time-function coefficient (a spline value): its derivative is
       * taken directly, on a shared model of zeros */
      if (!zero)
        zero = lw_tangent_zero_model(desc, err);
      tg[j] = zero ? lw_tangent_new_func(desc, opt->params[j], zero) : NULL;
      if (!tg[j])
        tg[j] = lw_tangent_new(desc, opt->params[j], err);
      if (!tg[j]) {
        st = err->status ? err->status : LW_ERR_MODEL;
        break;
      }
      res->depends[j] = tg[j]->any;
    }
  if (!st)
    st = run_exact(m, opt, res, tg, NULL, 0);
  for (int j = 0; j < p; j++)
    lw_tangent_free(tg[j]);
  free(tg);
  lw_model_free(zero);
  return st;
}

/* the method's run on model m compiled from desc; the result's status set */
static int sensitivity_of(const lw_model *m, const lw_desc *desc, const lw_sens_options *opt, lw_sens_result *res)
{
  double t0 = now_s();
  int st = opt->method == LW_SENS_FD ? run_fd(m, desc, opt, res) : run_with_tangents(m, desc, opt, res);
  res->wall_time_s = now_s() - t0;
  if (st && !res->error.status)
    res->error.status = st;
  return res->status = st;
}

int lw_sensitivity_model(const lw_model *m, const lw_sens_options *opt, lw_sens_result *res)
{
  const lw_desc *desc = lw_model_desc(m);
  if (result_start(desc, opt, res))
    return res->status;
  return sensitivity_of(m, desc, opt, res);
}

int lw_sensitivity(const lw_desc *desc, const lw_sens_options *opt, lw_sens_result *res)
{
  if (result_start(desc, opt, res))
    return res->status;
  lw_model *m = lw_compile(desc, &res->error);
  if (!m)
    return res->status = res->error.status;
  int st = sensitivity_of(m, desc, opt, res);
  lw_model_free(m);
  return st;
}
