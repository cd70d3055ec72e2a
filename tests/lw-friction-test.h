/* lw-friction-test.h: the joint friction's directional derivative checked
 * against central differences of the step's own friction, shared by the
 * white-box friction tests (test-friction-sens, test-friction-sph).
 * Header-only, included after lw-test.h and lw_internal.h. */
#ifndef LW_FRICTION_TEST_H
#define LW_FRICTION_TEST_H

#include <string.h>

#include "dyn/lw_joint_friction.h"
#include "dyn/lw_rows.h"
#include "lin/lw_friction_jvp.h"
#include "lin/lw_tangent.h"

/* the generalized friction of every element at (q, v, l) by the step's own
 * evaluation */
static inline void lwt_friction_Q(const lw_model *m, lw_data *d, const double *q, const double *v, const double *l,
                                  double *Q)
{
  memset(Q, 0, sizeof(double) * (size_t)m->nq);
  lw_rows_eval(m, d, q, 0.0, 1);
  lw_joint_friction_eval(m, d, q, v, l, Q, NULL, 0.0);
}

/* the same through lw_joint_friction_jvp, summed over the elements */
static inline void lwt_friction_jvp(const lw_model *m, const lw_tangent *tg, const lw_lin_point *p,
                                    const lw_lin_dir *dir, double *Q, double *dQ)
{
  for (int e = 0; e < m->nfric; e++)
    lw_joint_friction_jvp(m, tg, e, p, dir, Q, dQ);
}

/* a state near the model's initial one, moving (slip: the velocities'
 * scale), and multipliers */
static inline void lwt_some_state(const lw_model *m, lw_data *d, double slip, double *q, double *v, double *l)
{
  lw_error err;
  if (lw_initialize(m, d, &err))
    g_error("%s", err.msg);
  GRand *rng = g_rand_new_with_seed(7);
  memcpy(q, d->q, sizeof(double) * (size_t)m->nq);
  for (int i = 0; i < m->nq; i++)
    v[i] = slip * g_rand_double_range(rng, -1, 1);
  for (int r = 0; r < m->nc; r++)
    l[r] = d->lambda[r] + g_rand_double_range(rng, -5, 5);
  g_rand_free(rng);
}

/* the prepared point's columns (the step's linearization) are the
 * derivative J along dir */
static inline void lwt_check_prepared(const lw_model *m, const lw_lin_point *p, const lw_lin_dir *dir,
                                      const double *J)
{
  double *K = g_new0(double, m->nq);
  for (int e = 0; e < m->nfric; e++) {
    lw_fric_pt pt;
    g_assert_cmpint(lw_joint_friction_prepare(m, e, p, &pt), ==, 0);
    lw_joint_friction_jvp_at(m, p, &pt, dir, K);
  }
  for (int i = 0; i < m->nq; i++)
    g_assert_cmpfloat(fabs(K[i] - J[i]), <=, 1e-14 * (1.0 + fabs(J[i])));
  g_free(K);
}

/* the derivative along q, v, l (each in turn, then together) against
 * central differences of the step's own friction, to 1e-7 of the
 * derivative (and the differences' round-off); its value is the step's,
 * and so are the prepared point's columns */
static inline void lwt_check_state_jvp(lw_desc *desc, double slip)
{
  lw_model *m = lwt_compile(desc);
  lw_data *d = lw_data_new(m);
  int nq = m->nq, nc = m->nc;
  double *q = g_new(double, nq), *v = g_new(double, nq), *l = g_new(double, nc);
  double *dq = g_new0(double, nq), *dv = g_new0(double, nq), *dl = g_new0(double, nc);
  double *Q0 = g_new0(double, nq), *Qp = g_new(double, nq), *Qm = g_new(double, nq), *J = g_new0(double, nq);
  double *x = g_new(double, nq), *y = g_new(double, nq), *z = g_new(double, nc);
  lwt_some_state(m, d, slip, q, v, l);
  GRand *rng = g_rand_new_with_seed(11);
  for (int pass = 0; pass < 4; pass++) {
    for (int i = 0; i < nq; i++) {
      dq[i] = pass == 0 || pass == 3 ? g_rand_double_range(rng, -1, 1) : 0.0;
      dv[i] = pass == 1 || pass == 3 ? slip * g_rand_double_range(rng, -1, 1) : 0.0;
    }
    for (int r = 0; r < nc; r++)
      dl[r] = pass == 2 || pass == 3 ? g_rand_double_range(rng, -5, 5) : 0.0;
    lw_lin_point p = {q, v, NULL, NULL, {l, NULL, NULL}, 0.0};
    lw_lin_dir dir = {dq, dv, NULL, NULL, dl, NULL, -1};
    memset(Q0, 0, sizeof(double) * nq);
    memset(J, 0, sizeof(double) * nq);
    lwt_friction_jvp(m, NULL, &p, &dir, Q0, J);
    /* the value is the step's */
    lwt_friction_Q(m, d, q, v, l, Qp);
    for (int i = 0; i < nq; i++)
      g_assert_cmpfloat(fabs(Q0[i] - Qp[i]), <=, 1e-12 * (1.0 + fabs(Qp[i])));
    if (pass < 3)
      lwt_check_prepared(m, &p, &dir, J);
    double hs = 1e-6, err = 0, scale = 0, qmax = 0;
    for (int i = 0; i < nq; i++)
      qmax = fmax(qmax, fabs(Q0[i]));
    for (int sgn = 0; sgn < 2; sgn++) {
      double s = sgn ? -hs : hs;
      for (int i = 0; i < nq; i++) {
        x[i] = q[i] + s * dq[i];
        y[i] = v[i] + s * dv[i];
      }
      for (int r = 0; r < nc; r++)
        z[r] = l[r] + s * dl[r];
      lwt_friction_Q(m, d, x, y, z, sgn ? Qm : Qp);
    }
    for (int i = 0; i < nq; i++) {
      err = fmax(err, fabs((Qp[i] - Qm[i]) / (2 * hs) - J[i]));
      scale = fmax(scale, fabs(J[i]));
    }
    g_test_message("%s, slip %g, jvp pass %d: |dQ| %.3e, against differences %.2e (|Q| %.3e)", desc->name, slip,
                   pass, scale, err, qmax);
    g_assert_cmpfloat(scale, >, 0.0);
    /* the differences' round-off: about 1e-16 |Q| / hs */
    g_assert_cmpfloat(err, <=, 1e-7 * scale + 1e-9 * qmax);
  }
  g_rand_free(rng);
  g_free(q), g_free(v), g_free(l), g_free(dq), g_free(dv), g_free(dl);
  g_free(Q0), g_free(Qp), g_free(Qm), g_free(J), g_free(x), g_free(y), g_free(z);
  lw_data_free(d);
  lw_model_free(m);
}

/* the derivative along each parameter's tangent (the friction parameters
 * exactly, the geometric ones by the tangent's differences) against
 * central differences of the model compiled at rho +- h; a friction
 * parameter moves the friction */
static inline void lwt_check_param_jvp(lw_desc *desc, double slip)
{
  lw_model *m = lwt_compile(desc);
  lw_data *d = lw_data_new(m);
  int nq = m->nq, nc = m->nc;
  double *q = g_new(double, nq), *v = g_new(double, nq), *l = g_new(double, nc);
  double *Qp = g_new(double, nq), *Qm = g_new(double, nq), *J = g_new0(double, nq);
  lwt_some_state(m, d, slip, q, v, l);
  for (int j = 0; j < desc->nparams; j++) {
    lw_error err;
    lw_tangent *tg = lw_tangent_new(desc, j, &err);
    g_assert_nonnull(tg);
    lw_lin_point p = {q, v, NULL, NULL, {l, NULL, NULL}, 0.0};
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    memset(J, 0, sizeof(double) * nq);
    lwt_friction_jvp(m, tg, &p, &dir, NULL, J);
    double v0 = desc->params[j].value, hs = 1e-6 * fmax(fabs(v0), 1e-2);
    for (int sgn = 0; sgn < 2; sgn++) {
      lw_desc *dd = lw_desc_copy(desc);
      dd->params[j].value = v0 + (sgn ? -hs : hs);
      lw_model *mk = lwt_compile(dd);
      lw_data *dk = lw_data_new(mk);
      lwt_friction_Q(mk, dk, q, v, l, sgn ? Qm : Qp);
      lw_data_free(dk);
      lw_model_free(mk);
      lw_desc_free(dd);
    }
    double e = 0, scale = 0;
    for (int i = 0; i < nq; i++) {
      e = fmax(e, fabs((Qp[i] - Qm[i]) / (2 * hs) - J[i]));
      scale = fmax(scale, fabs((Qp[i] - Qm[i]) / (2 * hs)));
    }
    g_test_message("%s: d/d%s: |dQ| %.3e, against differences %.2e", desc->name, desc->params[j].name, scale, e);
    if (desc->params[j].ntargets > 0 && strstr(desc->params[j].targets[0], "/friction/"))
      g_assert_cmpfloat(scale, >, 0.0);
    g_assert_cmpfloat(e, <=, 1e-6 * fmax(scale, 1e-3));
    lw_tangent_free(tg);
  }
  g_free(q), g_free(v), g_free(l), g_free(Qp), g_free(Qm), g_free(J);
  lw_data_free(d);
  lw_model_free(m);
}

#endif
