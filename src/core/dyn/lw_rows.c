/* lw_rows.c: constraint equations Phi(q, t), their gradients, Phi_t and
 * gamma = d(Phi_q)/dt qdot + d(Phi_t)/dt, so that Phi_q qdd + gamma = 0.
 *
 * Every equation is a dot product of two vectors linear in q (bilinear:
 * rigid-body unit and orthogonality conditions, point coincidence, axis
 * alignment) or the angle atan2(a.b, c.d) of two such products (driven
 * rotations). */
#include "dyn/lw_rows.h"
#include "lw_internal.h"
#include "kind/lw_kind.h"

#include <math.h>
#include <string.h>

double lw_wrap_pi(double x)
{
  /* into (-pi, pi] */
  x = fmod(x + M_PI, 2.0 * M_PI);
  if (x < 0)
    x += 2.0 * M_PI;
  return x - M_PI;
}

/* the value a.b of affine row r (one of a, b constant): dot_value's sum
 * without its products by zero (lw_internal.h, af_) */
static double affine_value(const lw_model *m, int r, const double *q)
{
  double x = 0;
  for (int k = m->af_ptr[r]; k < m->af_ptr[r + 1]; k++) {
    double v = m->af_c[k];
    for (int g = m->af_gptr[k]; g < m->af_gptr[k + 1]; g++) {
      int e = m->af_eptr[g], e1 = m->af_eptr[g + 1];
      double t = m->af_w[e] * q[m->af_q[e]];
      for (e++; e < e1; e++)
        t += m->af_w[e] * q[m->af_q[e]];
      v += t;
    }
    x += v * m->af_cb[k];
  }
  return x;
}

/* Phi at q, t and with want_jac the gradients into d->jac: those of the
 * rows whose gradient is constant copied from the model's table, unless
 * d->jac holds them already (jac_aff_buf), and their value from the
 * affine tables */
void lw_rows_eval(const lw_model *m, lw_data *d, const double *q, double t, int want_jac)
{
  int w = m->wrow;
  int aff = m->af_ptr != NULL;
  int fill = want_jac && aff && !(d->jac_aff_buf == d->jac && d->jac_aff_serial == m->serial);
  for (int r = 0; r < m->nc; r++) {
    if (aff && m->row_gconst[r]) {
      if (fill)
        memcpy(d->jac + (size_t)r * w, m->row_grad + (size_t)r * w, sizeof(double) * (size_t)w);
      double f = 0;
      if (m->af_func[r] >= 0)
        lw_func_eval(&m->drivers[m->af_func[r]], t, &f, NULL, NULL);
      d->phi[r] = affine_value(m, r, q) - m->af_c0[r] - f; /* a DOT row: its residual is the value */
      continue;
    }
    /* a row of its own gradient (the affine ones are above: row_gconst
     * comes with the affine tables) */
    const lw_row *row = &m->rows[r];
    double *g = want_jac ? d->jac + (size_t)r * w : NULL;
    if (g)
      memset(g, 0, sizeof(double) * (size_t)w);
    double f = 0;
    if (row->func >= 0)
      lw_func_eval(&m->drivers[row->func], t, &f, NULL, NULL);
    const lw_row_kind_ops *k = lw_row_kind_of(row->kind);
    const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
    d->phi[r] = k->residual(k->value(m, v, q, row->nblk, row->blk, g) - row->c0 - f);
  }
  if (fill) {
    d->jac_aff_buf = d->jac;
    d->jac_aff_serial = m->serial;
  }
}

/* dst = src for two sets of the rows' gradients (nc x wrow): whole when
 * *mark is not the model's serial (then set to it), else the rows other
 * than the affine ones alone, dst holding those already */
void lw_grad_copy(const lw_model *m, double *dst, const double *src, unsigned long *mark)
{
  size_t w = (size_t)m->wrow;
  if (!m->af_ptr || *mark != m->serial) {
    memcpy(dst, src, sizeof(double) * (size_t)m->nc * w);
    *mark = m->af_ptr ? m->serial : 0;
    return;
  }
  for (int k = 0; k < m->nvar_runs; k++) {
    size_t r0 = (size_t)m->var_runs[2 * k], r1 = (size_t)m->var_runs[2 * k + 1];
    memcpy(dst + r0 * w, src + r0 * w, sizeof(double) * (r1 - r0) * w);
  }
}

void lw_rows_time(const lw_model *m, lw_data *d, const double *q, const double *qd, double t)
{
  for (int r = 0; r < m->nc; r++) {
    double fd = 0, fdd = 0, xd, g;
    if (m->af_ptr && m->row_gconst[r]) {
      /* an affine row: gamma = 2 adot.bdot is zero, one vector constant */
      if (m->af_func[r] >= 0)
        lw_func_eval(&m->drivers[m->af_func[r]], t, NULL, &fd, &fdd);
      d->phit[r] = -fd;
      d->gam[r] = 0.0 - fdd;
      continue;
    }
    const lw_row *row = &m->rows[r];
    if (row->func >= 0)
      lw_func_eval(&m->drivers[row->func], t, NULL, &fd, &fdd);
    const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
    lw_row_kind_of(row->kind)->rate(m, v, q, qd, &xd, &g);
    d->phit[r] = -fd;
    d->gam[r] = g - fdd;
  }
}

/* Phi_t alone (the driving functions' rates): the target of the velocity
 * projection, which needs none of gamma */
void lw_rows_phit(const lw_model *m, lw_data *d, double t)
{
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    double fd = 0;
    if (row->func >= 0)
      lw_func_eval(&m->drivers[row->func], t, NULL, &fd, NULL);
    d->phit[r] = -fd;
  }
}

double lw_coord_eval(const lw_model *m, const lw_coord *c, const double *q, double *g)
{
  if (g)
    memset(g, 0, sizeof(double) * (size_t)m->wrow);
  const lw_vexpr *v[4] = {&c->a, &c->b, &c->c, &c->d};
  return lw_row_kind_of(c->kind)->value(m, v, q, c->nblk, c->blk, g) - c->offset;
}

double lw_coord_rate(const lw_model *m, const lw_coord *c, const double *q, const double *qd)
{
  double xd;
  const lw_vexpr *v[4] = {&c->a, &c->b, &c->c, &c->d};
  lw_row_kind_of(c->kind)->rate(m, v, q, qd, &xd, NULL);
  return xd;
}
