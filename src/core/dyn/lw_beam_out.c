/* lw_beam_out.c: the beams' outputs (LW_OUT_BEAM_*): strain, axial force,
 * curvature and moment at a place, the deflection of a place from the
 * beam's starting tangent (planar), the beam's elastic energy; each with
 * its derivative along a state direction and a parameter's tangent model,
 * for the sensitivities of objectives on them (lin/lw_jvp.c). */
#include "dyn/lw_beam_out.h"
#include "kind/lw_kind.h"

#include <math.h>
#include <string.h>

/* v (nd) = sum_a w_a x_a over block b's four vectors (x NULL: 0) */
static void blk_vec(const lw_model *m, int b, const double *w, const double *x, double *v)
{
  int nd = m->nd;
  memset(v, 0, 3 * sizeof(double));
  if (!x)
    return;
  const double *e = x + m->blk_off[b];
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < nd; i++)
      v[i] += w[a] * e[a * nd + i];
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* the beam's elastic energy and its derivative */
static double beam_energy_out(const lw_model *m, lw_data *d, const lw_beam *bm, const double *q, const double *dq,
                              const lw_model *tm, double *dy)
{
  double U = 0, s = 0;
  lw_lin_point p = {q, NULL, NULL, NULL, {NULL, NULL, NULL}, 0};
  lw_lin_dir dir = {dq, NULL, NULL, NULL, NULL, NULL, -1};
  for (int e = 0; e < bm->nel; e++) {
    int n = bm->force0 + e;
    const lw_force_kind *k = lw_force_kind_of(m->forces[n].type);
    U += k->energy(m, d, &m->forces[n], q);
    if (dy)
      k->energy_jvp(m, tm, d, n, &p, &dir, &s);
  }
  if (dy)
    *dy = s;
  return U;
}

/* the curvature (planar: signed) from r', r'' and its derivative along dr', dr'' */
static double curvature(int nd, const double *r1, const double *r2, const double *d1, const double *d2, double *dk)
{
  double n2 = dot3(r1, r1), n = sqrt(n2), n3 = n2 * n, dn = dot3(r1, d1) / n;
  double w[3], dw1[3], dw2[3], c, dc;
  cross(r1, r2, w);
  cross(d1, r2, dw1);
  cross(r1, d2, dw2);
  if (nd == 2) {
    c = w[2];
    dc = dw1[2] + dw2[2];
  } else {
    c = sqrt(dot3(w, w));
    dc = c > 0 ? (dot3(w, dw1) + dot3(w, dw2)) / c : 0.0;
  }
  *dk = dc / n3 - 3.0 * c * dn / (n3 * n);
  return c / n3;
}

/* the element of a place s along the beam, for elements of length l */
static int place_element(const lw_beam *bm, double s, double l)
{
  int el = (int)floor(s / l);
  return el < 0 ? 0 : el > bm->nel - 1 ? bm->nel - 1 : el;
}

/* output k (a place's) for elements of length l, and into *dy its
 * derivative along dq and the tangent tm at that length */
static double place_output(const lw_model *m, const lw_output *op, const lw_beam *bm, double l, const double *q,
                           const double *dq, const lw_model *tm, double *dy)
{
  int el = place_element(bm, op->bs, l);
  int b = bm->blk0 + el, n = bm->force0 + el, nd = m->nd;
  double S[4], dS[4], ddS[4], r1[3], r2[3], d1[3], d2[3], y = 0, dv = 0;
  lw_beam_shape(op->bs / l - el, l, S, dS, ddS);
  blk_vec(m, b, dS, q, r1);
  blk_vec(m, b, dS, dq, d1);
  switch (op->type) {
  case LW_OUT_BEAM_STRAIN:
  case LW_OUT_BEAM_FORCE: {
    double eps = 0.5 * (dot3(r1, r1) - 1.0), de = dot3(r1, d1);
    double EA = op->type == LW_OUT_BEAM_FORCE ? m->forces[n].k : 1.0;
    y = EA * eps;
    dv = EA * de + (tm && op->type == LW_OUT_BEAM_FORCE ? tm->forces[n].k * eps : 0.0);
    break;
  }
  case LW_OUT_BEAM_CURVATURE:
  case LW_OUT_BEAM_MOMENT: {
    blk_vec(m, b, ddS, q, r2);
    blk_vec(m, b, ddS, dq, d2);
    double dk, kap = curvature(nd, r1, r2, d1, d2, &dk);
    double EI = op->type == LW_OUT_BEAM_MOMENT ? m->forces[n].vec[0] : 1.0;
    y = EI * kap;
    dv = EI * dk + (tm && op->type == LW_OUT_BEAM_MOMENT ? tm->forces[n].vec[0] * kap : 0.0);
    break;
  }
  case LW_OUT_BEAM_DEFLECTION: {
    /* (p - r0).nv, nv = S t / |t|, t the slope at the start, S t = (-t_y, t_x) */
    const double w0[4] = {1, 0, 0, 0}, w1[4] = {0, 1, 0, 0};
    double p[3], dp[3], r0[3], dr0[3], t[3], dt[3];
    blk_vec(m, b, S, q, p);
    blk_vec(m, b, S, dq, dp);
    blk_vec(m, bm->blk0, w0, q, r0);
    blk_vec(m, bm->blk0, w0, dq, dr0);
    blk_vec(m, bm->blk0, w1, q, t);
    blk_vec(m, bm->blk0, w1, dq, dt);
    double tn = sqrt(t[0] * t[0] + t[1] * t[1]), tdt = t[0] * dt[0] + t[1] * dt[1];
    double nv[2] = {-t[1] / tn, t[0] / tn};
    double dn[2] = {-dt[1] / tn + t[1] * tdt / (tn * tn * tn), dt[0] / tn - t[0] * tdt / (tn * tn * tn)};
    double u[2] = {p[0] - r0[0], p[1] - r0[1]}, du[2] = {dp[0] - dr0[0], dp[1] - dr0[1]};
    y = u[0] * nv[0] + u[1] * nv[1];
    dv = du[0] * nv[0] + du[1] * nv[1] + u[0] * dn[0] + u[1] * dn[1];
    break;
  }
  default:
    break;
  }
  *dy = dv;
  return y;
}

/* d/dl of place_output at a fixed place s (the shape functions at s / l
 * and their derivatives in x): fourth-order central differences in l,
 * exact to about 1e-12 of the output for these polynomials in 1 / l */
static double place_output_dl(const lw_model *m, const lw_output *op, const lw_beam *bm, const double *q)
{
  double h = 1e-3 * bm->l, f[4], dv;
  const double off[4] = {-2, -1, 1, 2};
  for (int i = 0; i < 4; i++)
    f[i] = place_output(m, op, bm, bm->l + off[i] * h, q, NULL, NULL, &dv);
  return (8.0 * (f[2] - f[1]) - (f[3] - f[0])) / (12.0 * h);
}

double lw_beam_output(const lw_model *m, lw_data *d, int k, const double *q, const double *dq, const lw_model *tm,
                      double *dy)
{
  const lw_output *op = &m->outputs[k];
  const lw_beam *bm = &m->beams[op->beam];
  if (op->type == LW_OUT_BEAM_ENERGY)
    return beam_energy_out(m, d, bm, q, dq, tm, dy);
  double dv = 0, y = place_output(m, op, bm, bm->l, q, dq, tm, &dv);
  /* a parameter that moves the beam's ends changes its element length,
   * and with it where the place s lies on its element */
  int n = bm->force0 + place_element(bm, op->bs, bm->l);
  if (dy && tm && tm->forces[n].rest != 0.0)
    dv += tm->forces[n].rest * place_output_dl(m, op, bm, q);
  if (dy)
    *dy = dv;
  return y;
}

/* the distance of a section's extreme fibre from its neutral axis */
static double extreme_fibre(const lw_beam_desc *bd, double A, double I)
{
  switch (bd->section) {
  case LW_SECTION_RECTANGLE:
    return 0.5 * bd->size[1];
  case LW_SECTION_CIRCLE:
  case LW_SECTION_TUBE:
    return 0.5 * bd->size[0];
  default: /* a solid circle of the same A and I: I / A = d^2 / 16 */
    return 2.0 * sqrt(I / A);
  }
}

void lw_scene_beam_stress(const lw_model *m, const lw_data *d, double *stress)
{
  int nd = m->nd;
  for (int k = 0; k < m->nbeams; k++) {
    const lw_beam *bm = &m->beams[k];
    const lw_beam_desc *bd = &m->desc->beams[k];
    double A = 1, I = 1;
    lw_beam_section(bd, &A, &I);
    double E = bm->EA / A, c = extreme_fibre(bd, A, I);
    for (int e = 0; e < bm->nel; e++) {
      const double *x = d->q + m->blk_off[bm->blk0 + e];
      for (int j = e ? 1 : 0; j <= LW_BEAM_DRAW_PER_ELEMENT; j++) {
        double dS[4], ddS[4], r1[3] = {0, 0, 0}, r2[3] = {0, 0, 0}, z[3] = {0, 0, 0}, dk;
        lw_beam_shape((double)j / LW_BEAM_DRAW_PER_ELEMENT, bm->l, NULL, dS, ddS);
        for (int a = 0; a < 4; a++)
          for (int i = 0; i < nd; i++) {
            r1[i] += dS[a] * x[a * nd + i];
            r2[i] += ddS[a] * x[a * nd + i];
          }
        double eps = 0.5 * (dot3(r1, r1) - 1.0);
        double kap = curvature(nd, r1, r2, z, z, &dk);
        *stress++ = fabs(E * eps) + E * fabs(kap) * c;
      }
    }
  }
}
