/* lw_model.c: a compiled model's accessors, its outputs' names and units,
 * the element a constraint row belongs to, and freeing it. */
#include "compile/lw_model.h"
#include "lw_internal.h"
#include "model/lw_error.h"
#include "kind/lw_kind.h"
#include "model/lw_friction.h"
#include "integ/lw_integrator.h"

#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lw_model_free(lw_model *m)
{
  if (!m)
    return;
  lw_desc_free(m->desc);
  free(m->beams);
  free(m->q0);
  free(m->qd0);
  free(m->mass_blocks);
  free(m->minv_blocks);
  free(m->spair);
  free(m->rh_ptr);
  free(m->rh_ij);
  free(m->rh_v);
  free(m->ch_ptr);
  free(m->ch_ij);
  free(m->ch_v);
  free(m->rq0);
  free(m->row_gconst);
  free(m->row_grad);
  free(m->gz_ptr), free(m->gz_loc), free(m->gz_q);
  free(m->af_c0), free(m->af_func), free(m->var_runs);
  free(m->op_ptr), free(m->op_pos), free(m->op_a), free(m->op_b);
  free(m->af_ptr), free(m->af_gptr), free(m->af_eptr), free(m->af_q);
  free(m->af_cb), free(m->af_c), free(m->af_w);
  free(m->qgrav);
  free(m->body_mass);
  free(m->rows);
  free(m->joint_row0);
  free(m->joint_o);
  free(m->joint_z);
  free(m->fric);
  free(m->joint_fric);
  free(m->coords);
  free(m->joint_coord0);
  free(m->forces);
  free(m->fbs);
  free(m->init_coord);
  free(m->init_value);
  free(m->init_vel);
  free(m->init_has_value);
  free(m->init_has_vel);
  free(m->outputs);
  free(m->out_col);
  free(m->objs);
  free(m->terms);
  free(m->drivers);
  free(m->blk_n);
  free(m->blk_off);
  free(m->mblk_off);
  free(m->spair_n);
  free(m->adj_row);
  free(m->adj_ptr);
  free(m->adj);
  free(m->colptr);
  free(m->rowind);
  free(m->mass_csc);
  free(m->guards);
  free(m);
}

int lw_model_nq(const lw_model *m) { return m->nq; }

int lw_model_nc(const lw_model *m) { return m->nc; }

int lw_model_nbodies(const lw_model *m) { return m->nbd; }

int lw_model_njoints(const lw_model *m) { return m->njoints; }

int lw_model_nforces(const lw_model *m) { return m->desc->nforces; }

int lw_model_noutputs(const lw_model *m) { return m->nout; }

int lw_model_output_width(const lw_model *m, int k) { return m->outputs[k].width; }

const char *lw_model_output_name(const lw_model *m, int k) { return m->desc->outputs[k].name; }

int lw_model_output_columns(const lw_model *m) { return m->ncols; }

int lw_model_planar(const lw_model *m) { return m->planar; }

double lw_model_body_mass(const lw_model *m, int b) { return b >= 0 && b < m->nb ? m->body_mass[b] : 0.0; }

int lw_model_body_coords(const lw_model *m, int b, int *size)
{
  if (size)
    *size = m->blk_n[b];
  return m->blk_off[b];
}

const lw_desc *lw_model_desc(const lw_model *m) { return m->desc; }

const lw_opt *lw_model_opt(const lw_model *m) { return &m->opt; }

void lw_opt_of_solver(lw_opt *o, const lw_solver_desc *s)
{
  o->t_end = s->t_end;
  o->step = s->step;
  o->alpha = s->alpha;
  o->tolerance = s->tolerance;
  o->constraint_tolerance = s->constraint_tolerance;
  o->max_iterations = s->max_iterations;
  o->lambda_scale = s->lambda_scale;
  o->allow_redundant = s->allow_redundant;
  memcpy(o->integrator, s->integrator, sizeof o->integrator);
  o->integrator[sizeof o->integrator - 1] = '\0';
  o->mode = s->mode;
  o->rtol = s->rtol;
  o->atol = s->atol;
  o->order = s->order;
  o->friction_exact = 1; /* set on the compiled model only */
  o->rho_inf = s->rho_inf;
}

static void solver_of_opt(lw_solver_desc *s, const lw_opt *o)
{
  s->t_end = o->t_end;
  s->step = o->step;
  s->alpha = o->alpha;
  s->tolerance = o->tolerance;
  s->constraint_tolerance = o->constraint_tolerance;
  s->max_iterations = o->max_iterations;
  s->lambda_scale = o->lambda_scale;
  s->allow_redundant = o->allow_redundant;
  memcpy(s->integrator, o->integrator, sizeof s->integrator);
  s->mode = o->mode;
  s->rtol = o->rtol;
  s->atol = o->atol;
  s->order = o->order;
  s->rho_inf = o->rho_inf;
}

/* the solver section's checks (the compiler's, on the description's
 * values): 0, or -1 with err filled */
static int opt_check(const lw_opt *o, lw_error *err)
{
  const char *path = NULL, *msg = NULL;
  if (!(o->step > 0) || !isfinite(o->step))
    path = "solver/step", msg = "step must be positive";
  else if (!(o->t_end >= 0) || !isfinite(o->t_end))
    path = "solver/t_end", msg = "t_end must be a nonnegative number";
  else if (!(o->alpha > 0) || !isfinite(o->alpha))
    path = "solver/alpha", msg = "alpha must be positive";
  else if (!(o->tolerance > 0))
    path = "solver/tolerance", msg = "tolerance must be positive";
  else if (o->max_iterations < 1)
    path = "solver/max_iterations", msg = "max_iterations must be at least 1";
  else if (o->mode != LW_MODE_STEP && o->mode != LW_MODE_TOLERANCE)
    path = "solver/mode", msg = "mode must be \"step\" or \"tolerance\"";
  else if (!(o->rtol > 0) || !(o->rtol < 1))
    path = "solver/rtol", msg = "rtol must be between 0 and 1 (exclusive)";
  else if (!(o->atol > 0) || !isfinite(o->atol))
    path = "solver/atol", msg = "atol must be positive";
  else if (o->order != 2 && o->order != 4)
    path = "solver/order", msg = "order must be 2 or 4";
  else if (!(o->rho_inf >= 0.0 && o->rho_inf <= 1.0))
    path = "solver/rho_inf", msg = "rho_inf (the numerical damping's spectral radius at infinite frequency) must be "
                                   "between 0 and 1 (1: no damping)";
  else if (o->rho_inf < 1.0 && strncmp(o->integrator, "ali3p", sizeof o->integrator))
    path = "solver/rho_inf", msg = "rho_inf < 1 (numerical damping) is a setting of the ali3p integrator: set "
                                   "\"integrator\": \"ali3p\" or rho_inf 1";
  else if (o->rho_inf < 1.0 && o->mode == LW_MODE_TOLERANCE)
    path = "solver/rho_inf", msg = "rho_inf < 1 (numerical damping) is not available in the tolerance mode (its "
                                   "error estimates are those of the trapezoidal rule): set rho_inf 1 or the step mode";
  else if (o->mode == LW_MODE_TOLERANCE && strncmp(o->integrator, "ali3p", sizeof o->integrator))
    path = "solver/mode", msg = "the tolerance mode steps with the ali3p integrator (its error estimates are "
                                "those of the trapezoidal rule): set \"integrator\": \"ali3p\" or the step mode";
  if (path) {
    lw_set_error(err, LW_ERR_MODEL, path, NAN, "%s", msg);
    return -1;
  }
  if (!memchr(o->integrator, '\0', sizeof o->integrator) || !lw_integrator_find(o->integrator)) {
    char known[128] = "";
    for (int i = 0; i < lw_nintegrators; i++)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", lw_integrators[i]->name);
    lw_set_error(err, LW_ERR_MODEL, "solver/integrator", NAN, "unknown integrator '%.*s' (known: %s)",
                 (int)sizeof o->integrator, o->integrator, known);
    return -1;
  }
  return 0;
}

/* the option a parameter's target "solver/NAME" binds: its value in the
 * model's description (*was) and in o (*now); 0 for another target */
static int bound_option(const lw_solver_desc *s, const lw_opt *o, const char *target, double *was, double *now)
{
  static const char *const names[4] = {"solver/t_end", "solver/step", "solver/alpha", "solver/tolerance"};
  const double was4[4] = {s->t_end, s->step, s->alpha, s->tolerance};
  const double now4[4] = {o->t_end, o->step, o->alpha, o->tolerance};
  for (int k = 0; k < 4; k++)
    if (!strcmp(target, names[k])) {
      *was = was4[k];
      *now = now4[k];
      return 1;
    }
  return 0;
}

/* an option a parameter binds keeps the parameter's value: what is
 * compiled from the description (tangents, finite differences) writes the
 * parameter into it again.  0, or -1 with err filled. */
static int opt_check_params(const lw_desc *d, const lw_opt *o, lw_error *err)
{
  for (int j = 0; j < d->nparams; j++)
    for (int k = 0; k < d->params[j].ntargets; k++) {
      const char *t = d->params[j].targets[k];
      double was, now;
      if (bound_option(&d->solver, o, t, &was, &now) && now != was) {
        lw_set_error(err, LW_ERR_MODEL, t, NAN,
                     "%s is bound to parameter '%s': set the parameter and compile the model again", t,
                     d->params[j].name);
        return -1;
      }
    }
  return 0;
}

int lw_opt_check_model(const lw_model *m, const lw_opt *o, lw_error *err)
{
  const char *what = m->nfric ? "joint friction" : m->nguards ? "events (contacts, joint limits, guards)" : NULL;
  if (o->rho_inf < 1.0 && what) {
    lw_set_error(err, LW_ERR_MODEL, "solver/rho_inf", NAN,
                 "rho_inf < 1 (numerical damping) is not available for a model with %s: set rho_inf 1", what);
    return -1;
  }
  return 0;
}

int lw_model_set_opt(lw_model *m, const lw_opt *opt, lw_error *err)
{
  if (opt_check(opt, err) || opt_check_params(m->desc, opt, err) || lw_opt_check_model(m, opt, err))
    return LW_ERR_MODEL;
  m->opt = *opt;
  m->integ = lw_integrator_find(opt->integrator);
  solver_of_opt(&m->desc->solver, opt);
  return LW_OK;
}

int lw_model_set_step(lw_model *m, double h, lw_error *err)
{
  lw_opt o = m->opt;
  o.step = h;
  return lw_model_set_opt(m, &o, err);
}

/* the unit of a joint coordinate: an angle or a length */
static int coord_is_angle(const lw_model *m, int ci)
{
  return ci >= 0 && m->coords[ci].kind == LW_ROW_ANGLE;
}

const char *lw_model_output_unit(const lw_model *m, int k)
{
  const lw_output *o = &m->outputs[k];
  switch (o->type) {
  case LW_OUT_POSITION:
    return "m";
  case LW_OUT_VELOCITY:
    return "m/s";
  case LW_OUT_ACCELERATION:
    return "m/s^2";
  case LW_OUT_JOINT_COORDINATE:
    return coord_is_angle(m, o->coord) ? "rad" : "m";
  case LW_OUT_BODY_ANGLE:
    return "rad";
  case LW_OUT_JOINT_VELOCITY:
    return coord_is_angle(m, o->coord) ? "rad/s" : "m/s";
  case LW_OUT_REACTION_FORCE:
    return "N";
  case LW_OUT_CONTROL:
    return coord_is_angle(m, m->forces[o->force].coord) ? "N m" : "N";
  case LW_OUT_SPRING_LENGTH:
  case LW_OUT_SPRING_FORCE: {
    const lw_force *f = &m->forces[o->force];
    int angle = lw_force_kind_of(f->type)->on_joint && coord_is_angle(m, f->coord);
    if (o->type == LW_OUT_SPRING_LENGTH)
      return angle ? "rad" : "m";
    return angle ? "N m" : "N";
  }
  case LW_OUT_KINETIC_ENERGY:
  case LW_OUT_POTENTIAL_ENERGY:
  case LW_OUT_TOTAL_ENERGY:
  case LW_OUT_DISSIPATED_ENERGY:
  case LW_OUT_FRICTION_WORK:
  case LW_OUT_APPLIED_WORK:
  case LW_OUT_ENERGY_BALANCE:
    return "J";
  case LW_OUT_FRICTION_FORCE:
    return m->fric[o->coord].kind == LW_FRICTION_SPHERICAL || coord_is_angle(m, m->fric[o->coord].coord0) ? "N m" : "N";
  case LW_OUT_NORMAL_FORCE:
    return "N";
  case LW_OUT_CONTACT_FORCE:
    return m->guards[o->coord].type == LW_EVENT_JOINT_LIMIT && coord_is_angle(m, m->guards[o->coord].coord) ? "N m"
                                                                                                           : "N";
  case LW_OUT_SLIP_SPEED:
    return "m/s";
  case LW_OUT_BEAM_FORCE:
    return "N";
  case LW_OUT_BEAM_CURVATURE:
    return "1/m";
  case LW_OUT_BEAM_MOMENT:
    return "N m";
  case LW_OUT_BEAM_DEFLECTION:
    return "m";
  case LW_OUT_BEAM_ENERGY:
    return "J";
  default:
    return "";
  }
}

void lw_model_output_column_name(const lw_model *m, int col, char *buf, size_t len)
{
  static const char *axes[3] = {"x", "y", "z"};
  for (int k = 0; k < m->nout; k++) {
    int w = m->outputs[k].width;
    if (col < w) {
      if (w == 1)
        snprintf(buf, len, "%s", m->desc->outputs[k].name);
      else
        snprintf(buf, len, "%s.%s", m->desc->outputs[k].name, axes[col]);
      return;
    }
    col -= w;
  }
  snprintf(buf, len, "?");
}

const char *lw_row_owner_path(const lw_model *m, const lw_row *r, char *buf, size_t n)
{
  switch (r->owner_kind) {
  case LW_OWNER_BODY:
    snprintf(buf, n, "bodies/%s", m->desc->bodies[r->owner].name);
    break;
  case LW_OWNER_JOINT:
    snprintf(buf, n, "joints/%s", m->desc->joints[r->owner].name);
    break;
  case LW_OWNER_DRIVER:
    snprintf(buf, n, "drivers/%s", m->desc->drivers[r->owner].name);
    break;
  case LW_OWNER_BEAM:
    snprintf(buf, n, "beams/%s", m->desc->beams[r->owner].name);
    break;
  }
  return buf;
}
