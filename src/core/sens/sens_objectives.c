/* sens_objectives.c: the outputs and objectives along a run: their values,
 * their derivatives with respect to the state (Y, gy) and the parameters
 * (YT, gth), and the integrals' trapezoidal weights. */
#include "sens_internal.h"
#include "dyn/lw_init.h"
#include "dyn/lw_rows.h"
#include "lin/lw_jvp.h"

#include <stdlib.h>

/* coordinate c's gradient g (its blocks' layout) at global coordinate gq */
static double coord_grad_at(const lw_model *m, const lw_coord *c, const double *g, int gq)
{
  for (int l = 0; l < lw_loc_width(m, c->nblk, c->blk, 0); l++)
    if (lw_loc_global(m, c->blk, l, 0) == gq)
      return g[l];
  return 0.0;
}

/* whether parameter tangent tg can move output k at a fixed state: a
 * joint coordinate or rate through its coordinate alone, a controller's
 * force through the controller (its gains, target, measured and actuated
 * coordinates: force_on); any other output is evaluated */
static int output_moves_with(const lw_model *m, const lw_tangent *tg, int k)
{
  const lw_output *op = &m->outputs[k];
  if (op->type == LW_OUT_JOINT_COORDINATE || op->type == LW_OUT_JOINT_VELOCITY)
    return tg->coord_on[op->coord];
  if (op->type == LW_OUT_CONTROL)
    return tg->force_on[op->force];
  return 1;
}

/* the outputs at state st into s->yrow; with lin, also their derivatives
 * Y (ncols x nx, x = [q qd qdd lambda z]) and YT (ncols x p) for the
 * outputs read at this state (at the last state, final is set).  The rows
 * of an output not read here are left as they were: its objective
 * derivatives gy are exactly 0 at this state. */
void sens_outputs_at(sens *s, const double *st, int lin, int final)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  memcpy(d->q, ST_Q(s, st), sizeof(double) * (size_t)s->nq);
  memcpy(d->qd, ST_QD(s, st), sizeof(double) * (size_t)s->nq);
  memcpy(d->qdd, ST_QDD(s, st), sizeof(double) * (size_t)s->nq);
  memcpy(d->lambda, ST_L(s, st), sizeof(double) * (size_t)s->nc);
  memcpy(d->coord_prev, ST_C(s, st), sizeof(double) * (size_t)s->ncoords);
  if (s->nz) { /* controllers' integrals */
    memcpy(d->fbz, ST_Z(s, st), sizeof(double) * (size_t)s->nz);
    memcpy(d->fbc, ST_Z(s, st), sizeof(double) * (size_t)s->nz);
  }
  d->fb_beta = 0.0;
  d->t = ST_T(st);
  lw_outputs_some(m, d, s->yrow, s->out_used);
  if (!lin)
    return;
  int nq = s->nq, nx = s->nxs, nc = s->ncols;
  lw_lin_point pt = {ST_Q(s, st), ST_QD(s, st), ST_QD(s, st), ST_QDD(s, st), {ST_L(s, st), NULL, NULL},
                     ST_T(st)};
  int e_zero = 0; /* s->e cleared for the unit directions, set one entry at a time */
  for (int k = 0; k < m->nout; k++) {
    if (!(s->out_used[k] & OUT_EVERY) && !(final && s->out_used[k] & OUT_FINAL))
      continue;
    int c0 = m->out_col[k], w = m->outputs[k].width;
    lw_output_type ty = m->outputs[k].type;
    int linear = ty == LW_OUT_POSITION || ty == LW_OUT_VELOCITY || ty == LW_OUT_ACCELERATION;
    if (!s->y_const[k])
      s->y_dirty = 1;
    if (!linear)
      s->y_varies = 1;
    if (!s->y_const[k] && !e_zero) {
      memset(s->e, 0, sizeof(double) * (size_t)nx);
      e_zero = 1;
    }
    /* a joint rate's gradient along qd: its coordinate's along q */
    const lw_coord *rc = ty == LW_OUT_JOINT_VELOCITY ? &m->coords[m->outputs[k].coord] : NULL;
    double rg[2 * LW_MAXQB];
    if (rc && !s->y_const[k])
      lw_coord_eval(m, rc, pt.q, rg);
    /* along its directions alone (sens_setup.c): its other rows of Y stay 0 */
    for (int n = s->od_ptr[k]; n < s->od_ptr[k + 1] && !s->y_const[k]; n++) {
      int x = s->od_x[n];
      if (rc && x >= nq) {
        s->Y[(size_t)x * nc + c0] = coord_grad_at(m, rc, rg, x - nq);
        continue;
      }
      s->e[x] = 1.0;
      lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, NULL, -1};
      if (x < nq)
        dir.dq = s->e;
      else if (x < 2 * nq)
        dir.dqd = s->e + nq;
      else if (x < 3 * nq)
        dir.dqdd = s->e + 2 * nq;
      else
        dir.dl = s->e + 3 * nq;
      if (x < 3 * nq)
        dir.body = lw_body_of(m, x % nq);
      /* a state direction lives in one body: outputs elsewhere are skipped */
      lw_output_jvp(m, d, NULL, k, &pt, &dir, s->dy);
      s->e[x] = 0.0;
      for (int i = 0; i < w; i++)
        s->Y[(size_t)x * nc + c0 + i] = s->dy[i];
    }
    if (ty == LW_OUT_CONTROL) {
      /* u = ... - ki z at a state */
      const lw_force *f = &m->forces[m->outputs[k].force];
      for (int i = f->fb0; i < f->fb0 + f->nfb; i++)
        s->Y[(size_t)(nx + i) * nc + c0] = -m->fbs[i].ki;
    }
    s->y_const[k] = linear;
    for (int a = 0; a < s->nplain; a++) { /* outputs do not read time functions: their YT stays 0 */
      int j = s->plist[a];
      for (int i = 0; i < w; i++)
        s->YT[(size_t)j * nc + c0 + i] = 0;
      if (!s->tg[j] || !s->tg[j]->any || (linear && !s->tg[j]->out_on[k]) || !output_moves_with(m, s->tg[j], k))
        continue; /* a point's output moves with the parameter only through its vector */
      lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, s->tg[j], -1};
      lw_output_jvp(m, d, s->tg[j], k, &pt, &dir, s->dy);
      for (int i = 0; i < w; i++)
        s->YT[(size_t)j * nc + c0 + i] = s->dy[i];
    }
  }
}

/* objective values and derivatives at output row y with integral weight wi
 * and final weight wf: value += ..., gy = dg/dy, gth = direct dg/dtheta */
void sens_objectives_at(sens *s, double wi, double wf, double *value)
{
  const lw_model *m = s->m;
  int nc = s->ncols;
  memset(s->gy, 0, sizeof(double) * (size_t)s->no * nc);
  if (s->term_tg) /* else never written */
    memset(s->gth, 0, sizeof(double) * (size_t)s->no * (s->p ? s->p : 1));
  for (int o = 0; o < s->no; o++) {
    const lw_objective *ob = &m->objs[s->obj[o]];
    for (int k = ob->first; k < ob->first + ob->n; k++) {
      const lw_term *t = &m->terms[k];
      double wk = t->kind == LW_TERM_FINAL ? wf : wi;
      if (wk == 0.0)
        continue;
      for (int i = 0; i < t->width; i++) {
        if (t->comp >= 0 && i != t->comp)
          continue;
        double e = s->yrow[t->col + i] - t->target[i];
        if (t->form == LW_TERM_ABOVE)
          e = fmax(e, 0.0);
        else if (t->form == LW_TERM_BELOW)
          e = fmin(e, 0.0);
        if (t->form != LW_TERM_VALUE) {
          if (value)
            value[o] += wk * t->weight * e * e;
          s->gy[(size_t)o * nc + t->col + i] += wk * 2.0 * t->weight * e;
        } else {
          if (value)
            value[o] += wk * t->weight * e;
          s->gy[(size_t)o * nc + t->col + i] += wk * t->weight;
        }
        for (int j = 0; j < s->p && s->term_tg; j++) {
          const lw_tangent *tg = s->tg[j];
          if (!tg || !tg->term_on[k])
            continue;
          const lw_term *tt = &tg->dm->terms[k];
          double g = t->form != LW_TERM_VALUE
                         ? tt->weight * e * e - 2.0 * t->weight * e * tt->target[i]
                         : tt->weight * e - t->weight * tt->target[i];
          s->gth[(size_t)o * s->p + j] += wk * g;
        }
      }
    }
  }
}

/* y (nx) += Y^T g from the rows of Y (ncols x nx) that g weights: those of
 * an objective's outputs, a few of the ncols.  Returns the number of the x
 * where y can have changed, listed in *xs, or -1 for any x */
int sens_outputs_cotangent(sens *s, const double *g, double *y, const int **xs)
{
  int nc = s->ncols, nx = s->nx;
  if (s->y_varies) {
    for (int c = 0; c < nc; c++)
      if (g[c] != 0.0)
        for (int x = 0; x < nx; x++)
          y[x] += s->Y[(size_t)x * nc + c] * g[c];
    return -1;
  }
  if (s->y_dirty) {
    int k = 0;
    for (int c = 0; c < nc; c++) {
      s->ynz_p[c] = k;
      for (int x = 0; x < nx; x++)
        if (s->Y[(size_t)x * nc + c] != 0.0)
          s->ynz[k++] = x;
    }
    s->ynz_p[nc] = k;
    s->nyx = 0;
    for (int x = 0; x < nx; x++)
      for (int c = 0; c < nc; c++)
        if (s->Y[(size_t)x * nc + c] != 0.0) {
          s->yx[s->nyx++] = x;
          break;
        }
    s->y_dirty = 0;
  }
  /* the terms of the dense loop that are not exactly 0, in its order */
  for (int c = 0; c < nc; c++)
    if (g[c] != 0.0)
      for (int k = s->ynz_p[c]; k < s->ynz_p[c + 1]; k++)
        y[s->ynz[k]] += s->Y[(size_t)s->ynz[k] * nc + c] * g[c];
  *xs = s->yx;
  return s->nyx;
}

void sens_trapezoid_weights(const sens *s, long k, double *wi, double *wf)
{
  if (s->hs) /* the trapezoidal rule over steps of their own lengths */
    *wi = s->N == 0 ? 0.0 : 0.5 * ((k > 0 ? s->hs[k - 1] : 0.0) + (k < s->N ? s->hs[k] : 0.0));
  else
    *wi = s->N == 0 ? 0.0 : (k == 0 || k == s->N) ? 0.5 * s->h : s->h;
  *wf = k == s->N ? 1.0 : 0.0;
}

