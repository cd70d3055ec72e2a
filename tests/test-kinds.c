/* test-kinds: every registered force kind (src/core/kind) in a small planar
 * and a small spatial model, its hooks against central differences of its
 * own evaluation hook at a random state:
 *   lin (KC = -dQ/dq - cv dQ/dv, C = -dQ/dv) column by column,
 *   jvp along a random state direction (also in one body's coordinates,
 *   the same with the body named) and along each parameter's tangent,
 *   blocks (Q depends on no coordinate outside them),
 *   potential (-dV/dq = Q at rest), potential_jvp, length_jvp, damper_power. */
#include "lw-test.h"
#include "lw_internal.h"
#include "kind/lw_kind.h"

#include <string.h>

/* relative tolerance of a derivative against its central difference (step
 * 1e-6: truncation ~1e-12, rounding ~1e-10 of the scale); a wrong sign or
 * a missing term is off by the order of the scale itself */
#define TOL 1e-6

typedef struct {
  lw_desc *desc;
  lw_model *m;
  lw_data *d;
  const lw_force_kind *kind;
  int nq;
  double *q, *v, t;
} rig;

static void set_param(lw_desc *d, const char *name, const char *target)
{
  double *x = lw_desc_field(d, target);
  g_assert_nonnull(x);
  lw_desc_add_param(d, name, target)->value = *x;
}

static void set_linear(lw_func *f, double a0, double a1)
{
  f->type = LW_FUNC_LINEAR;
  f->a[0] = a0;
  f->a[1] = a1;
}

static void set_gains(lw_feedback_desc *b, double kp, double kd, double ki)
{
  b->kp = kp;
  b->kd = kd;
  b->ki = ki;
  set_linear(&b->target, 0.2, 0.1);
}

/* a two-link pendulum (joints J1, J2 about z) with one element of type t,
 * named "F", and two parameters on it */
static lw_desc *kind_desc(lw_force_type t, int spatial)
{
  lw_desc *d = lw_desc_chain(2, spatial);
  lw_force_desc *f = lw_desc_add_force(d, "F", t);
  switch (t) {
  case LW_FORCE_SPRING_DAMPER:
    f->body[0] = strdup("link1");
    f->body[1] = strdup("link2");
    f->place[0].p[0] = 0.5, f->place[0].p[1] = 0.1;
    f->place[1].p[0] = 0.8, f->place[1].p[1] = -0.1, f->place[1].p[2] = spatial ? 0.05 : 0.0;
    f->stiffness = 40, f->damping = 3, f->rest = 0.6;
    set_param(d, "k", "forces/F/stiffness");
    set_param(d, "x2", "forces/F/point2/0");
    break;
  case LW_FORCE_JOINT_SPRING_DAMPER:
    f->joint = strdup("J2");
    f->stiffness = 25, f->damping = 2, f->rest = 0.3;
    set_param(d, "k", "forces/F/stiffness");
    set_param(d, "x0", "forces/F/rest_value");
    break;
  case LW_FORCE_FORCE:
    f->body[0] = strdup("link2");
    f->place[0].p[0] = 0.7, f->place[0].p[1] = 0.05;
    f->vector[0] = 3, f->vector[1] = -2, f->vector[2] = spatial ? 1 : 0;
    set_linear(&f->func, 1.2, 0.4);
    set_param(d, "fy", "forces/F/vector/1");
    set_param(d, "px", "forces/F/point1/0");
    break;
  case LW_FORCE_TORQUE:
    f->body[0] = strdup("link2");
    f->vector[0] = spatial ? 0.4 : 0, f->vector[1] = spatial ? -0.3 : 0, f->vector[2] = 2;
    set_linear(&f->func, 1.2, 0.4);
    set_param(d, "tz", "forces/F/vector/2");
    set_param(d, "f0", "forces/F/function/0");
    break;
  case LW_FORCE_PID:
    f->joint = strdup("J2");
    set_gains(lw_force_add_feedback(f, "J2", 0), 30, 4, 5);
    set_param(d, "kp", "forces/F/kp");
    set_param(d, "kd", "forces/F/kd");
    break;
  case LW_FORCE_STATE_FEEDBACK:
    f->joint = strdup("J2");
    set_gains(lw_force_add_feedback(f, "J1", 0), 10, 1, 2);
    lw_feedback_desc *b = lw_force_add_feedback(f, "J2", 0);
    set_gains(b, 3, 0, 1);
    b->rate = 1;
    set_param(d, "kp0", "forces/F/gains/0/kp");
    set_param(d, "ki1", "forces/F/gains/1/ki");
    break;
  default:
    g_assert_not_reached();
  }
  return d;
}

/* the controllers' integral terms within a step */
static void set_integrals(const lw_model *m, lw_data *d)
{
  for (int i = 0; i < m->nfbs; i++)
    d->fbz[i] = d->fbc[i] = 0.4 - 0.3 * i;
  d->fb_beta = 0.3;
}

static lw_data *rig_data(const rig *r, const lw_model *m)
{
  lw_data *d = lw_data_new(m);
  memcpy(d->coord_prev, r->d->coord_prev, sizeof(double) * (size_t)m->ncoords);
  set_integrals(m, d);
  return d;
}

static void rig_open(rig *r, lw_force_type t, int spatial)
{
  r->desc = kind_desc(t, spatial);
  r->m = lwt_compile(r->desc);
  r->kind = lw_force_kind_of(t);
  g_assert_nonnull(r->kind);
  lw_data *d0 = lw_data_new(r->m);
  lw_error err;
  g_assert_cmpint(lw_initialize(r->m, d0, &err), ==, LW_OK);
  r->nq = lw_model_nq(r->m);
  r->q = g_new(double, r->nq);
  r->v = g_new(double, r->nq);
  /* a random state near the assembled one (the forces do not need the
   * constraints to hold) */
  GRand *rnd = g_rand_new_with_seed(11 + 2 * (guint32)t + (guint32)spatial);
  for (int i = 0; i < r->nq; i++) {
    r->q[i] = d0->q[i] + g_rand_double_range(rnd, -0.05, 0.05);
    r->v[i] = g_rand_double_range(rnd, -1, 1);
  }
  r->t = 0.37;
  g_rand_free(rnd);
  r->d = d0;
  set_integrals(r->m, r->d);
}

static void rig_close(rig *r)
{
  lw_data_free(r->d);
  lw_model_free(r->m);
  lw_desc_free(r->desc);
  g_free(r->q);
  g_free(r->v);
}

/* Q of the element alone (force 0 of model m) at (q, v) */
static void elem_q(const rig *r, const lw_model *m, lw_data *d, const double *q, const double *v, double *Q)
{
  memset(Q, 0, sizeof(double) * (size_t)r->nq);
  r->kind->eval(m, d, &m->forces[0], q, v, r->t, Q, NULL, 0.0, 0.0);
}

/* (Q(q + h dq, v + h dv) - Q(q - h dq, v - h dv)) / 2h */
static void elem_q_diff(const rig *r, const double *dq, const double *dv, double *D)
{
  int nq = r->nq;
  double h = 1e-6, *qp = g_new(double, nq), *vp = g_new(double, nq), *Qp = g_new(double, nq),
         *Qm = g_new(double, nq);
  for (int s = 0; s < 2; s++) {
    double a = s == 0 ? h : -h;
    for (int i = 0; i < nq; i++) {
      qp[i] = r->q[i] + (dq ? a * dq[i] : 0.0);
      vp[i] = r->v[i] + (dv ? a * dv[i] : 0.0);
    }
    elem_q(r, r->m, r->d, qp, vp, s == 0 ? Qp : Qm);
  }
  for (int i = 0; i < nq; i++)
    D[i] = (Qp[i] - Qm[i]) / (2 * h);
  g_free(qp), g_free(vp), g_free(Qp), g_free(Qm);
}

static double vmax(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s = fmax(s, fabs(x[i]));
  return s;
}

/* |a - b| against the scale of the reference b (at least 1) */
static void check_close(const char *what, const double *a, const double *b, int n)
{
  double e = 0;
  for (int i = 0; i < n; i++)
    e = fmax(e, fabs(a[i] - b[i]));
  double scale = fmax(vmax(b, n), 1.0);
  if (e > TOL * scale)
    g_error("%s: the hook differs from the central difference by %.3g (scale %.3g)", what, e, scale);
}

static lw_lin_point rig_point(const rig *r, lw_lin_point *pf)
{
  lw_lin_point p = {r->q, r->v, r->v, NULL, {NULL, NULL, NULL}, r->t};
  *pf = p;
  pf->qd = r->v;
  return p;
}

static double bm_get(const lw_model *m, const lw_bmat *B, int i, int j)
{
  int nqb = m->nqb;
  if (i / nqb == j / nqb)
    return B->blk[(size_t)(i / nqb) * nqb * nqb + (size_t)(j % nqb) * nqb + i % nqb];
  return B->off[(size_t)j * m->nq + i];
}

/* lin: KC and C, column j against the differences along dq = e_j,
 * dv = cv e_j (KC) and dv = e_j (C) */
static void check_lin(rig *r)
{
  const lw_model *m = r->m;
  int nq = r->nq, nqb = m->nqb;
  const double cv = 0.7;
  size_t nblk = (size_t)m->nb * nqb * nqb;
  lw_bmat KC = {g_new0(double, nblk), g_new0(double, (size_t)nq * nq)};
  lw_bmat C = {g_new0(double, nblk), g_new0(double, (size_t)nq * nq)};
  memset(r->d->r, 0, sizeof(double) * nq);
  memset(r->d->tmp, 0, sizeof(double) * nq);
  memset(r->d->dq, 0, sizeof(double) * nq);
  lw_lin_point pf, p = rig_point(r, &pf);
  r->kind->lin(m, r->d, 0, &p, &pf, cv, &KC, &C);
  double *e = g_new0(double, nq), *ev = g_new0(double, nq), *D = g_new(double, nq), *col = g_new(double, nq);
  for (int j = 0; j < nq; j++) {
    e[j] = 1.0;
    ev[j] = cv;
    elem_q_diff(r, e, ev, D);
    for (int i = 0; i < nq; i++)
      col[i] = -bm_get(m, &KC, i, j);
    char what[64];
    snprintf(what, sizeof what, "lin KC column %d", j);
    check_close(what, col, D, nq);
    elem_q_diff(r, NULL, e, D);
    for (int i = 0; i < nq; i++)
      col[i] = -bm_get(m, &C, i, j);
    snprintf(what, sizeof what, "lin C column %d", j);
    check_close(what, col, D, nq);
    e[j] = 0.0;
    ev[j] = 0.0;
  }
  g_free(KC.blk), g_free(KC.off), g_free(C.blk), g_free(C.off);
  g_free(e), g_free(ev), g_free(D), g_free(col);
}

/* blocks: the columns of the other bodies' coordinates are exactly zero */
static void check_blocks(rig *r)
{
  const lw_model *m = r->m;
  int nq = r->nq, nqb = m->nqb;
  const int *blk;
  int nblk = r->kind->blocks(m, &m->forces[0], &blk);
  double *e = g_new0(double, nq), *D = g_new(double, nq);
  for (int j = 0; j < nq; j++) {
    int in = 0;
    for (int k = 0; k < nblk; k++)
      in |= blk[k] == j / nqb;
    if (in)
      continue;
    e[j] = 1.0;
    elem_q_diff(r, e, e, D);
    if (vmax(D, nq) != 0.0)
      g_error("blocks: Q depends on coordinate %d of body %d, outside the kind's blocks", j, j / nqb);
    e[j] = 0.0;
  }
  g_free(e), g_free(D);
}

/* jvp along a random state direction */
static void check_jvp_state(rig *r)
{
  int nq = r->nq;
  double *dq = g_new(double, nq), *dv = g_new(double, nq), *dQ = g_new0(double, nq), *D = g_new(double, nq);
  GRand *rnd = g_rand_new_with_seed(5);
  for (int i = 0; i < nq; i++) {
    dq[i] = g_rand_double_range(rnd, -1, 1);
    dv[i] = g_rand_double_range(rnd, -1, 1);
  }
  g_rand_free(rnd);
  lw_lin_point pf, p = rig_point(r, &pf);
  lw_lin_dir dir = {dq, dv, NULL, NULL, NULL, NULL, -1}, df = dir;
  df.dqd = dv;
  r->kind->jvp(r->m, r->d, 0, &p, &pf, &dir, &df, 1, dQ);
  elem_q_diff(r, dq, dv, D);
  check_close("jvp along the state", dQ, D, nq);
  g_free(dq), g_free(dv), g_free(dQ), g_free(D);
}

/* a direction in one body's coordinates gives the same jvp whether the
 * kind is told so (dir->body, which lets it skip what it does not touch)
 * or not, bit for bit */
static void check_jvp_body(rig *r)
{
  const lw_model *m = r->m;
  int nq = r->nq, nqb = m->nqb;
  double *dq = g_new0(double, nq), *dv = g_new0(double, nq), *Qa = g_new(double, nq), *Qb = g_new(double, nq);
  lw_lin_point pf, p = rig_point(r, &pf);
  for (int b = 0; b < m->nb; b++) {
    memset(dq, 0, sizeof(double) * nq);
    memset(dv, 0, sizeof(double) * nq);
    for (int i = 0; i < nqb; i++) {
      dq[b * nqb + i] = sin(1.0 + i + b);
      dv[b * nqb + i] = cos(2.0 * i + b);
    }
    for (int s = 0; s < 2; s++) {
      lw_lin_dir dir = {dq, dv, NULL, NULL, NULL, NULL, s == 0 ? -1 : b}, df = dir;
      df.dqd = dv;
      double *out = s == 0 ? Qa : Qb;
      memset(out, 0, sizeof(double) * nq);
      r->kind->jvp(m, r->d, 0, &p, &pf, &dir, &df, 1, out);
    }
    for (int i = 0; i < nq; i++)
      if (Qa[i] != Qb[i])
        g_error("jvp in body %d: %.17g with the body named, %.17g without (entry %d)", b, Qb[i], Qa[i], i);
  }
  g_free(dq), g_free(dv), g_free(Qa), g_free(Qb);
}

/* jvp along each parameter's tangent, against models compiled at v +- h */
static void check_jvp_params(rig *r)
{
  int nq = r->nq;
  double *dQ = g_new(double, nq), *Qp = g_new(double, nq), *Qm = g_new(double, nq), *D = g_new(double, nq);
  g_assert_cmpint(r->desc->nparams, >, 0);
  for (int j = 0; j < r->desc->nparams; j++) {
    lw_error err;
    lw_tangent *tg = lw_tangent_new(r->desc, j, &err);
    g_assert_nonnull(tg);
    lw_lin_point pf, p = rig_point(r, &pf);
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    memset(dQ, 0, sizeof(double) * nq);
    r->kind->jvp(r->m, r->d, 0, &p, &pf, &dir, &dir, 0, dQ);
    lw_desc *dd = lw_desc_copy(r->desc);
    double v = dd->params[j].value, h = 1e-6 * fmax(fabs(v), 1.0);
    for (int s = 0; s < 2; s++) {
      dd->params[j].value = v + (s == 0 ? h : -h);
      lw_model *m1 = lwt_compile(dd);
      lw_data *d1 = rig_data(r, m1);
      elem_q(r, m1, d1, r->q, r->v, s == 0 ? Qp : Qm);
      lw_data_free(d1);
      lw_model_free(m1);
    }
    for (int i = 0; i < nq; i++)
      D[i] = (Qp[i] - Qm[i]) / (2 * h);
    if (vmax(D, nq) < 1e-3)
      g_error("parameter %s does not move the element", dd->params[j].name);
    char what[64];
    snprintf(what, sizeof what, "jvp along parameter %s", dd->params[j].name);
    check_close(what, dQ, D, nq);
    lw_desc_free(dd);
    lw_tangent_free(tg);
  }
  g_free(dQ), g_free(Qp), g_free(Qm), g_free(D);
}

static double elem_v(const rig *r, const double *q)
{
  double V = 0;
  r->kind->potential(r->m, r->d, &r->m->forces[0], q, &V);
  return V;
}

/* potential: Q at rest is -dV/dq; potential_jvp is dV along dq */
static void check_potential(rig *r)
{
  int nq = r->nq;
  double h = 1e-6, *dq = g_new(double, nq), *qp = g_new(double, nq), *qm = g_new(double, nq),
         *zero = g_new0(double, nq), *Q = g_new(double, nq);
  for (int i = 0; i < nq; i++) {
    dq[i] = cos(1.0 + i);
    qp[i] = r->q[i] + h * dq[i];
    qm[i] = r->q[i] - h * dq[i];
  }
  double dV = (elem_v(r, qp) - elem_v(r, qm)) / (2 * h);
  elem_q(r, r->m, r->d, r->q, zero, Q);
  double work = 0;
  for (int i = 0; i < nq; i++)
    work += Q[i] * dq[i];
  double mdv = -dV;
  check_close("potential: Q at rest against -dV/dq", &work, &mdv, 1);
  lw_lin_point p = {r->q, r->v, r->v, NULL, {NULL, NULL, NULL}, r->t};
  lw_lin_dir dir = {dq, NULL, NULL, NULL, NULL, NULL, -1};
  double s = 0;
  r->kind->potential_jvp(r->m, NULL, r->d, 0, &p, &dir, &s);
  check_close("potential_jvp", &s, &dV, 1);
  g_free(dq), g_free(qp), g_free(qm), g_free(zero), g_free(Q);
}

/* length_jvp against differences of length; damper_power = c xd^2 */
static void check_length(rig *r)
{
  int nq = r->nq;
  const lw_force *f = &r->m->forces[0];
  double h = 1e-6, *dq = g_new(double, nq), *dv = g_new(double, nq), *qp = g_new(double, nq),
         *qm = g_new(double, nq), *vp = g_new(double, nq), *vm = g_new(double, nq);
  for (int i = 0; i < nq; i++) {
    dq[i] = sin(2.0 + i);
    dv[i] = cos(3.0 * i);
    qp[i] = r->q[i] + h * dq[i], qm[i] = r->q[i] - h * dq[i];
    vp[i] = r->v[i] + h * dv[i], vm[i] = r->v[i] - h * dv[i];
  }
  double xp, xdp, xm, xdm, x0, xd0;
  r->kind->length(r->m, r->d, f, qp, vp, &xp, &xdp);
  r->kind->length(r->m, r->d, f, qm, vm, &xm, &xdm);
  r->kind->length(r->m, r->d, f, r->q, r->v, &x0, &xd0);
  lw_lin_point p = {r->q, r->v, r->v, NULL, {NULL, NULL, NULL}, r->t};
  lw_lin_dir dir = {dq, NULL, dv, NULL, NULL, NULL, -1};
  double x, dx, xd, dxd;
  r->kind->length_jvp(r->m, NULL, r->d, 0, &p, &dir, &x, &dx, &xd, &dxd);
  g_assert_cmpfloat(fabs(x - x0), <=, 1e-12 * fmax(fabs(x0), 1.0));
  g_assert_cmpfloat(fabs(xd - xd0), <=, 1e-12 * fmax(fabs(xd0), 1.0));
  double fx = (xp - xm) / (2 * h), fxd = (xdp - xdm) / (2 * h);
  check_close("length_jvp dx", &dx, &fx, 1);
  check_close("length_jvp dxd", &dxd, &fxd, 1);
  if (r->kind->damper_power) {
    double P = r->kind->damper_power(r->m, r->d, f, r->q, r->v);
    g_assert_cmpfloat(fabs(P - f->c * xd0 * xd0), <=, 1e-12 * fmax(P, 1.0));
    g_assert_cmpfloat(P, >, 0.0);
  }
  g_free(dq), g_free(dv), g_free(qp), g_free(qm), g_free(vp), g_free(vm);
}

static void test_kind(gconstpointer data)
{
  int code = GPOINTER_TO_INT(data);
  lw_force_type t = (lw_force_type)(code / 2);
  rig r;
  rig_open(&r, t, code % 2);
  check_lin(&r);
  check_blocks(&r);
  check_jvp_state(&r);
  check_jvp_body(&r);
  check_jvp_params(&r);
  if (r.kind->potential)
    check_potential(&r);
  if (r.kind->length)
    check_length(&r);
  rig_close(&r);
}

/* every force type has a kind with the hooks the solver calls, and the
 * reserved ones empty */
static void test_registry(void)
{
  for (int t = 0; t < LW_FORCE_NTYPES; t++) {
    const lw_force_kind *k = lw_force_kind_of((lw_force_type)t);
    g_assert_nonnull(k);
    g_assert_cmpstr(k->name, ==, lw_force_type_name((lw_force_type)t));
    g_assert_true(k->eval && k->lin && k->jvp && k->blocks);
    g_assert_true(!k->potential == !k->potential_jvp);
    g_assert_true(!k->length == !k->length_jvp);
    g_assert_true(!k->dlambda && !k->guard && !k->jump);
  }
  g_assert_null(lw_force_kind_of(LW_FORCE_NTYPES));
  g_assert_null(lw_force_kind_of((lw_force_type)-1));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kinds/registry", test_registry);
  for (int t = 0; t < LW_FORCE_NTYPES; t++) {
    const lw_force_kind *k = lw_force_kind_of((lw_force_type)t);
    if (!k)
      continue;
    for (int spatial = 0; spatial < 2; spatial++) {
      char path[96];
      snprintf(path, sizeof path, "/kinds/%s/%s", k->name, spatial ? "spatial" : "planar");
      g_test_add_data_func(path, GINT_TO_POINTER(2 * t + spatial), test_kind);
    }
  }
  return g_test_run();
}
