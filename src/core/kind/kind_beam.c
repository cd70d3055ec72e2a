/* kind_beam.c: the elastic forces of one element of a flexible beam, the
 * two-node gradient-deficient ANCF Euler-Bernoulli element (docs/core.md,
 * Beams).  The element's block is e = [r_i, r_i', r_j, r_j'] (4 nd), the
 * centre line r(x) = S(x) e for x in [0, l] with cubic Hermite shape
 * functions (lw_beam_shape).  Its strain energy
 *
 *   U = 1/2 EA int eps^2 dx + 1/2 EI int |r''|^2 dx,   eps = (r'.r' - 1) / 2,
 *
 * is the Green-Lagrange axial strain (exact for any rotation and stretch)
 * and the curvature of an inextensible line (|r''| = kappa where |r'| = 1).
 * The force Q = -dU/de is conservative; its stiffness K = d2U/de2 is the
 * exact, symmetric Hessian: the bending part EI Kb (constant, Kb = int
 * S''^T S'' dx), the axial part int EA (S'^T r')(S'^T r')^T + N S'^T S' dx
 * by Gauss-Legendre quadrature with 5 points, exact for the degree-8
 * integrand.
 *
 * Material damping (Kelvin-Voigt, time eta) acts on both strain measures:
 * the moment EI (r'' + eta dr''/dt) and the axial force N_t = EA (eps +
 * eta deps/dt), deps/dt = r'.v'.  The bending part Q = -eta EI Kb v is
 * linear; the axial part has C = -dQ/dv = int eta EA (S'^T r')(S'^T r')^T
 * dx, symmetric and exact in the Newton matrix, and adds to -dQ/de
 * int eta EA ((S'^T r')(S'^T v')^T + (r'.v') S'^T S') dx, which the
 * directional derivatives (jvp: the sensitivities and the variational
 * step's exact Newton matrix of dense models) carry and the symmetric
 * Newton matrix the eval hook assembles leaves out: its first term is not
 * symmetric, and the second (a geometric stiffness of the damping force,
 * as large as the damping's own share times h |v'| / 2 but of either
 * sign) made the Newton matrix indefinite on a settling cantilever, whose
 * stiff axial modes the damping holds at a strain rate that changes sign
 * from step to step.
 *
 * Compiled constants (lw_compile.c, beam_forces): k = EA, rest = l, vec[0]
 * = EI, vec[1] = eta; the parameters' tangents reach them there (the
 * numerical tangent combines k, rest and vec; the tangent hook gives the
 * exact one for a beam's material and section, which lw_tangent.c sends
 * it for every element of the beam).  A beam's end points move the element
 * length l (rest): Q and U are rational in l through Kb (its entries
 * l^(p_a + p_c - 3) times constants, p = (0, 1, 0, 1) for positions and
 * slopes), the slopes' shape functions at a fixed xi = x / l (those of the
 * positions scale as 1 / l, those of the slopes do not) and the quadrature
 * weights (w l); their derivatives in l are taken in closed form. */
#include "lw_kind.h"
#include "lw_kind_jvp.h"
#include "la/lw_matrix.h"
#include "model/lw_beam_desc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NG 5
static const double gx[NG] = {0.046910077030668004, 0.23076534494715845, 0.5, 0.76923465505284155,
                              0.95308992296933200};
static const double gw[NG] = {0.11846344252809454, 0.23931433524968324, 0.28444444444444444,
                              0.23931433524968324, 0.11846344252809454};

#define BN (4 * 3) /* the largest element block */

/* the element's material and length */
typedef struct {
  double EA, EI, eta, l;
} bpar;

static bpar par_of(const lw_force *f)
{
  return (bpar){f->k, f->vec[0], f->vec[1], f->rest};
}

/* Kb[a][c] = int s_a'' s_c'' dx over the element (slots a, c of 4) */
static void bending_kb(double l, double Kb[4][4])
{
  const double l2 = l * l, l3 = l2 * l;
  const double K[4][4] = {{12, 6 * l, -12, 6 * l},
                          {6 * l, 4 * l2, -6 * l, 2 * l2},
                          {-12, -6 * l, 12, -6 * l},
                          {6 * l, 2 * l2, -6 * l, 4 * l2}};
  for (int a = 0; a < 4; a++)
    for (int c = 0; c < 4; c++)
      Kb[a][c] = K[a][c] / l3;
}

/* the powers of l in the slots' shape functions: 0 for the positions, 1
 * for the slopes */
static const int lpow[4] = {0, 1, 0, 1};

/* dKb = dKb/dl: entry (a, c) is a constant times l^(p_a + p_c - 3) */
static void bending_kb_dl(double l, const double Kb[4][4], double dKb[4][4])
{
  for (int a = 0; a < 4; a++)
    for (int c = 0; c < 4; c++)
      dKb[a][c] = (double)(lpow[a] + lpow[c] - 3) * Kb[a][c] / l;
}

/* the helpers of elem_force, inlined into its planar and spatial cases
 * so that their loops over the nd components unroll */
#define BEAM_INLINE static inline __attribute__((always_inline))
/* the loops over the nd components and the four slots, written out
 * (their operations, and the order of each entry's, those of the loops) */
#define BEAM_UNROLL _Pragma("GCC unroll 4")

/* y (n) = Kb e, slot by slot, nd components */
BEAM_INLINE void kb_mul(const double Kb[4][4], int nd, const double *e, double *y)
{
  BEAM_UNROLL for (int a = 0; a < 4; a++)
    BEAM_UNROLL for (int i = 0; i < nd; i++) {
      double s = 0;
      BEAM_UNROLL for (int c = 0; c < 4; c++)
        s += Kb[a][c] * e[c * nd + i];
      y[a * nd + i] = s;
    }
}

/* the slope sum_a ds_a x_a (nd) */
BEAM_INLINE void slope(int nd, const double *ds, const double *x, double *r)
{
  for (int i = 0; i < nd; i++)
    r[i] = ds[0] * x[i] + ds[1] * x[nd + i] + ds[2] * x[2 * nd + i] + ds[3] * x[3 * nd + i];
}

/* the slopes' shape functions at Gauss point g (lw_beam_shape's ds) and
 * their derivative in l at a fixed xi (dds: NULL to skip) */
static void gauss_slope(int g, double l, double *ds, double *dds)
{
  lw_beam_shape(gx[g], l, NULL, ds, NULL);
  if (dds)
    for (int a = 0; a < 4; a++)
      dds[a] = lpow[a] ? 0.0 : -ds[a] / l;
}

/* K (n x n) += w l (S'^T S') x (EA r' r'^T + N I) at one Gauss point (ds:
 * its S', r: its slope), and with ce != 0 C += w l ce (S'^T S') x r' r'^T:
 * the nd x nd factors once, then each slot pair's multiple of them.  Only
 * the slot pairs a <= c, which hold K's and C's upper triangle (all that
 * the Newton matrix reads of them, being symmetric) */
BEAM_INLINE void axial_tangent_n(double wl, const double *ds, const double *r, double EA, double N, double ce,
                                   double *K, double *C, const int ND)
{
  const int n = 4 * ND;
  double G[3][3];
  BEAM_UNROLL for (int j = 0; j < ND; j++)
    BEAM_UNROLL for (int i = 0; i < ND; i++)
      G[j][i] = EA * r[i] * r[j] + (i == j ? N : 0.0);
  BEAM_UNROLL for (int c = 0; c < 4; c++)
    BEAM_UNROLL for (int a = 0; a <= c; a++) {
      double s = wl * ds[a] * ds[c], *k = K + (size_t)(c * ND) * n + a * ND;
      BEAM_UNROLL for (int j = 0; j < ND; j++)
        BEAM_UNROLL for (int i = 0; i < ND; i++)
          k[j * n + i] += s * G[j][i];
    }
  if (ce == 0.0)
    return;
  double H[3][3];
  BEAM_UNROLL for (int j = 0; j < ND; j++)
    BEAM_UNROLL for (int i = 0; i < ND; i++)
      H[j][i] = ce * r[i] * r[j];
  for (int c = 0; c < 4; c++)
    for (int a = 0; a <= c; a++) {
      double s = wl * ds[a] * ds[c], *cc = C + (size_t)(c * ND) * n + a * ND;
      BEAM_UNROLL for (int j = 0; j < ND; j++)
        BEAM_UNROLL for (int i = 0; i < ND; i++)
          cc[j * n + i] += s * H[j][i];
    }
}

/* the element's generalized force Q (n) at e, v (v NULL: at rest) with
 * parameters P; K, C (n x n, column-major; NULL: skip) += -dQ/de without
 * the damping's share (see above) and -dQ/dv, both symmetric: their upper
 * triangles (the slot pairs a <= c; the rest is left as it was) */
BEAM_INLINE void elem_force_n(const bpar *P, const double *e, const double *v, double *Q, double *K, double *C,
                              const int nd)
{
  int n = 4 * nd;
  double Kb[4][4];
  bending_kb(P->l, Kb);
  double t[BN];
  kb_mul(Kb, nd, e, t);
  for (int i = 0; i < n; i++)
    Q[i] = -P->EI * t[i];
  int damp = v && P->eta != 0.0;
  if (damp) {
    kb_mul(Kb, nd, v, t);
    for (int i = 0; i < n; i++)
      Q[i] -= P->eta * P->EI * t[i];
  }
  for (int a = 0; K && a < 4; a++)
    BEAM_UNROLL for (int c = 0; c < 4; c++)
      BEAM_UNROLL for (int i = 0; i < nd; i++) {
        K[(size_t)(c * nd + i) * n + a * nd + i] += P->EI * Kb[a][c];
        if (C)
          C[(size_t)(c * nd + i) * n + a * nd + i] += P->eta * P->EI * Kb[a][c];
      }
  for (int g = 0; g < NG; g++) {
    double ds[4], r[3], rv[3];
    gauss_slope(g, P->l, ds, NULL);
    slope(nd, ds, e, r);
    double eps = 0.5 * (dot(nd, r, r) - 1.0);
    double N = P->EA * eps, wl = gw[g] * P->l, Nt = N;
    if (damp) {
      slope(nd, ds, v, rv);
      Nt += P->EA * P->eta * dot(nd, r, rv);
    }
    BEAM_UNROLL for (int a = 0; a < 4; a++)
      BEAM_UNROLL for (int i = 0; i < nd; i++)
        Q[a * nd + i] -= wl * Nt * ds[a] * r[i];
    if (K)
      axial_tangent_n(wl, ds, r, P->EA, N, C && P->eta != 0.0 ? P->eta * P->EA : 0.0, K, C, nd);
  }
}

static void elem_force(int nd, const bpar *P, const double *e, const double *v, double *Q, double *K, double *C)
{
  if (nd == 2)
    elem_force_n(P, e, v, Q, K, C, 2);
  else
    elem_force_n(P, e, v, Q, K, C, 3);
}

/* dQ (n) -= dl dQ_b/dl, the bending force's share of the length's
 * derivative: -EI dKb/dl (e + eta v) */
static void bending_dl(int nd, const bpar *P, double dl, const double Kb[4][4], const double *e, const double *v,
                       double *dQ)
{
  int n = 4 * nd;
  double dKb[4][4], t[BN], u[BN];
  bending_kb_dl(P->l, Kb, dKb);
  kb_mul(dKb, nd, e, t);
  kb_mul(dKb, nd, v, u);
  for (int i = 0; i < n; i++)
    dQ[i] -= dl * P->EI * (t[i] + P->eta * u[i]);
}

/* dQ (n) = the derivative of elem_force's Q along de, dv (NULL: 0) and the
 * parameters' derivatives dP (NULL: none; its l from a beam's end points).
 * At a Gauss point Q_a = -w l N ds_a r', N = EA (eps + eta r'.v'); along
 * l at a fixed xi, ds_a' = dds_a (lw_beam_shape: -ds_a / l for positions,
 * 0 for slopes), r' and v' move by dds e and dds v, and w l by w. */
static void elem_force_jvp(int nd, const bpar *P, const bpar *dP, const double *e, const double *v,
                           const double *de, const double *dv, double *dQ)
{
  int n = 4 * nd;
  double Kb[4][4];
  bending_kb(P->l, Kb);
  double t[BN], u[BN], z[BN];
  memset(z, 0, sizeof z);
  if (!v)
    v = z;
  if (!de)
    de = z;
  if (!dv)
    dv = z;
  double dl = dP ? dP->l : 0.0;
  /* bending: Q_b = -EI Kb e - eta EI Kb v */
  kb_mul(Kb, nd, de, t);
  kb_mul(Kb, nd, dv, u);
  for (int i = 0; i < n; i++)
    dQ[i] = -P->EI * t[i] - P->eta * P->EI * u[i];
  if (dP) {
    kb_mul(Kb, nd, e, t);
    kb_mul(Kb, nd, v, u);
    for (int i = 0; i < n; i++)
      dQ[i] -= dP->EI * t[i] + (dP->eta * P->EI + P->eta * dP->EI) * u[i];
  }
  if (dl != 0.0)
    bending_dl(nd, P, dl, Kb, e, v, dQ);
  /* axial: Q_a = -sum w l N S'^T r' */
  int damp = P->eta != 0.0 || (dP && dP->eta != 0.0);
  for (int g = 0; g < NG; g++) {
    double ds[4], dds[4], r[3], dr[3];
    gauss_slope(g, P->l, ds, dl != 0.0 ? dds : NULL);
    slope(nd, ds, e, r);
    slope(nd, ds, de, dr);
    double eps = 0.5 * (dot(nd, r, r) - 1.0), deps = dot(nd, r, dr);
    double N = P->EA * eps, dN = P->EA * deps;
    if (dP)
      dN += dP->EA * eps;
    double rv[3], drv[3], rl[3], rvl[3];
    if (damp) {
      slope(nd, ds, v, rv);
      slope(nd, ds, dv, drv);
      double ed = dot(nd, r, rv), ded = dot(nd, dr, rv) + dot(nd, r, drv);
      N += P->EA * P->eta * ed;
      dN += P->EA * P->eta * ded;
      if (dP)
        dN += (dP->EA * P->eta + P->EA * dP->eta) * ed;
    }
    if (dl != 0.0) {
      slope(nd, dds, e, rl);
      double dnl = dot(nd, r, rl);
      if (damp) {
        slope(nd, dds, v, rvl);
        dnl += P->eta * (dot(nd, rl, rv) + dot(nd, r, rvl));
      }
      dN += dl * P->EA * dnl;
    }
    double wl = gw[g] * P->l;
    for (int a = 0; a < 4; a++)
      for (int i = 0; i < nd; i++)
        dQ[a * nd + i] -= wl * ds[a] * (dN * r[i] + N * dr[i]);
    if (dl != 0.0) /* d(w l ds_a r')/dl at N fixed */
      for (int a = 0; a < 4; a++)
        for (int i = 0; i < nd; i++)
          dQ[a * nd + i] -= dl * gw[g] * N * ((ds[a] + P->l * dds[a]) * r[i] + P->l * ds[a] * rl[i]);
  }
}

/* the strain energy at e with parameters P, and its derivative along de
 * and dP (NULL: none) into *dU */
static double elem_energy(int nd, const bpar *P, const bpar *dP, const double *e, const double *de, double *dU)
{
  double Kb[4][4], t[BN];
  bending_kb(P->l, Kb);
  kb_mul(Kb, nd, e, t);
  int n = 4 * nd;
  double Ub = 0.5 * dot(n, e, t), U = P->EI * Ub, d = 0;
  double dl = dP ? dP->l : 0.0;
  if (de)
    d += P->EI * dot(n, de, t);
  if (dP)
    d += dP->EI * Ub;
  for (int g = 0; g < NG; g++) {
    double ds[4], dds[4], r[3], dr[3] = {0, 0, 0};
    gauss_slope(g, P->l, ds, dl != 0.0 ? dds : NULL);
    slope(nd, ds, e, r);
    double eps = 0.5 * (dot(nd, r, r) - 1.0), wl = gw[g] * P->l;
    U += wl * 0.5 * P->EA * eps * eps;
    if (de) {
      slope(nd, ds, de, dr);
      d += wl * P->EA * eps * dot(nd, r, dr);
    }
    if (dP)
      d += wl * 0.5 * dP->EA * eps * eps;
    if (dl != 0.0) { /* d(w l EA eps^2 / 2)/dl, eps moving by r'.(dds e) */
      double rl[3];
      slope(nd, dds, e, rl);
      d += dl * gw[g] * P->EA * eps * (0.5 * eps + P->l * dot(nd, r, rl));
    }
  }
  if (dl != 0.0) { /* EI / 2 e^T dKb/dl e */
    double dKb[4][4];
    bending_kb_dl(P->l, Kb, dKb);
    kb_mul(dKb, nd, e, t);
    d += dl * P->EI * 0.5 * dot(n, e, t);
  }
  if (dU)
    *dU += d;
  return U;
}

/* ---- the hooks ------------------------------------------------------------ */
static const double *elem(const lw_model *m, const lw_force *f, const double *x)
{
  return x ? x + m->blk_off[f->blk[0]] : NULL;
}

static void beam_eval(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd, double t,
                      double *Q, double *vals, double ks, double cs)
{
  (void)d, (void)t;
  int nd = m->nd, n = 4 * nd;
  bpar P = par_of(f);
  double Qe[BN], K[BN * BN], C[BN * BN];
  if (vals) {
    memset(K, 0, sizeof(double) * (size_t)n * n);
    memset(C, 0, sizeof(double) * (size_t)n * n);
  }
  elem_force(nd, &P, elem(m, f, q), elem(m, f, qd), Qe, vals ? K : NULL, vals ? C : NULL);
  double *Qb = Q + m->blk_off[f->blk[0]];
  for (int i = 0; i < n; i++)
    Qb[i] += Qe[i];
  if (!vals)
    return;
  for (int kc = 0; kc < n; kc++) /* the upper triangle, which lw_mat_add_block reads */
    for (int kr = 0; kr <= kc; kr++)
      K[kc * n + kr] = ks * K[kc * n + kr] + cs * C[kc * n + kr];
  lw_mat_add_block(m, vals, 1.0, f->blk[0], f->pairpos[0], K);
}

static void beam_jvp(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                     const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ)
{
  (void)d, (void)pf, (void)df;
  const lw_tangent *tg = dir->tg;
  const lw_force *f = &m->forces[n];
  int fon = tg && tg->force_on[n];
  if (!active(dir, state, f->nblk, f->blk, fon))
    return;
  int nd = m->nd, ne = 4 * nd;
  bpar P = par_of(f), dP;
  if (fon)
    dP = par_of(&tg->dm->forces[n]);
  int st = state && touches(f->nblk, f->blk, dir->body);
  double dQe[BN];
  elem_force_jvp(nd, &P, fon ? &dP : NULL, elem(m, f, p->q), elem(m, f, p->v), st ? elem(m, f, dir->dq) : NULL,
                 st ? elem(m, f, dir->dv) : NULL, dQe);
  double *y = dQ + m->blk_off[f->blk[0]];
  for (int i = 0; i < ne; i++)
    y[i] += dQe[i];
}

static double beam_energy(const lw_model *m, lw_data *d, const lw_force *f, const double *q)
{
  (void)d;
  bpar P = par_of(f);
  return elem_energy(m->nd, &P, NULL, elem(m, f, q), NULL, NULL);
}

static void beam_energy_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                            const lw_lin_dir *dir, double *s)
{
  (void)d;
  const lw_force *f = &m->forces[n];
  bpar P = par_of(f), dP;
  if (tm)
    dP = par_of(&tm->forces[n]);
  elem_energy(m->nd, &P, tm ? &dP : NULL, elem(m, f, p->q), elem(m, f, dir->dq), s);
}

/* the chord |r_j - r_i| and its rate: what the element offers as a length */
static void beam_state(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                       double *x, double *xd)
{
  (void)d;
  int nd = m->nd;
  const double *e = elem(m, f, q), *v = elem(m, f, qd);
  double c[3], cd[3] = {0, 0, 0};
  for (int i = 0; i < nd; i++) {
    c[i] = e[2 * nd + i] - e[i];
    if (v)
      cd[i] = v[2 * nd + i] - v[i];
  }
  *x = sqrt(dot(nd, c, c));
  *xd = *x > 0 ? dot(nd, c, cd) / *x : 0.0;
}

static void beam_state_jvp(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                           const lw_lin_dir *dir, double *x, double *dx, double *xd, double *dxd)
{
  (void)d, (void)tm;
  const lw_force *f = &m->forces[n];
  int nd = m->nd;
  const double *e = elem(m, f, p->q), *v = elem(m, f, p->qd), *de = elem(m, f, dir->dq),
               *dv = elem(m, f, dir->dqd);
  double c[3], cd[3] = {0, 0, 0}, dc[3] = {0, 0, 0}, dcd[3] = {0, 0, 0};
  for (int i = 0; i < nd; i++) {
    c[i] = e[2 * nd + i] - e[i];
    if (v)
      cd[i] = v[2 * nd + i] - v[i];
    if (de)
      dc[i] = de[2 * nd + i] - de[i];
    if (dv)
      dcd[i] = dv[2 * nd + i] - dv[i];
  }
  double l = sqrt(dot(nd, c, c));
  *x = l;
  *dx = *xd = *dxd = 0.0;
  if (!(l > 0))
    return;
  double dl = dot(nd, c, dc) / l, ccd = dot(nd, c, cd);
  *dx = dl;
  *xd = ccd / l;
  *dxd = (dot(nd, dc, cd) + dot(nd, c, dcd)) / l - ccd * dl / (l * l);
}

static void beam_geometry(const lw_model *m, const lw_data *d, const lw_force *f, double *a, double *b)
{
  int nd = m->nd;
  const double *e = elem(m, f, d->q);
  for (int i = 0; i < nd; i++) {
    a[i] = e[i];
    b[i] = e[2 * nd + i];
  }
}

/* the derivative of element n's constants (EA, EI, damping time) and of
 * its block's mass and gravity (rho A) with respect to a field of its
 * beam: young, density, damping, size/K, area, inertia; start and end
 * (the element length, the initial line) are left to the numerical tangent */
static int beam_tangent(const lw_model *m, int n, const double *field, lw_model *dm)
{
  const lw_force *f = &m->forces[n];
  const lw_beam_desc *bd = &m->desc->beams[f->index];
  double A, I, dA = 0, dI = 0;
  double dE = field == &bd->young, drho = field == &bd->density, deta = field == &bd->damping;
  if (!dE && !drho && !deta && !lw_beam_section_tangent(bd, field, &dA, &dI))
    return 0;
  if (!dm || lw_beam_section(bd, &A, &I))
    return 1;
  lw_force *df = &dm->forces[n];
  df->k += dE * A + bd->young * dA;
  df->vec[0] += dE * I + bd->young * dI;
  df->vec[1] += deta;
  double z[3] = {0, 0, 0};
  int b = f->blk[0];
  lw_beam_tangent(m, b, drho * A + bd->density * dA, z, dm->mass_blocks + m->mblk_off[b],
                  dm->qgrav + m->blk_off[b]);
  return 1;
}

static int beam_uses_velocity(const lw_force *f)
{
  return f->vec[1] != 0.0;
}

/* an element is compiled from its beam (lw_compile.c), never from the forces section */
static int beam_compile(lw_compile_ctx *cx, int i, lw_error *err)
{
  char path[256];
  snprintf(path, sizeof path, "forces/%s/type", cx->d->forces[i].name);
  KFAIL(path, "force '%s': beam elements come from the beams section, not from forces", cx->d->forces[i].name);
}

const lw_force_kind lw_kind_beam = {
  .name = "beam_element",
  .uses_velocity = beam_uses_velocity,
  .compile = beam_compile,
  .eval = beam_eval,
  .energy = beam_energy,
  .spring_state = beam_state,
  .energy_jvp = beam_energy_jvp,
  .state_jvp = beam_state_jvp,
  .geometry = beam_geometry,
  .jvp = beam_jvp,
  .blocks = lw_kind_own_blocks,
  .tangent = beam_tangent,
};
