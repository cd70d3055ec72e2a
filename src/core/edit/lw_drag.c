/* lw_drag.c: kinematic drag.  A point of a body is pulled toward a target;
 * the mechanism moves through its assembled positions: the point's distance
 * to the target is minimized in least squares, the constraints hold exactly
 * and the coordinates the point does not need stay where they are.  The
 * model's drivers are left out (the mechanism is moved by hand), so a
 * driven coordinate moves as freely as any other.
 *
 * Each iteration solves the dense equality-constrained least squares step
 *   min |Jp dq + r|^2 + mu |dq|^2  subject to  J dq = -Phi
 * through its KKT system (a tiny negative diagonal keeps redundant
 * equations solvable), then projects back onto Phi = 0 and backtracks until
 * the distance falls.  The point of a body is linear in the natural
 * coordinates, so Jp is constant.  Models are small: dense is fastest. */
#include "lw_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lw_drag {
  lw_model *m;
  lw_data *d;
  int nq, nc, n;       /* n = nq + nc: the KKT size */
  double *q, *qt, *dq, *qd0;
  double *phi, *jac;   /* Phi (nc), Phi_q (nc x nq, column-major) */
  double *K, *rhs;     /* KKT matrix (n x n) and right side */
  int *piv;
};

static double *dalloc(size_t n)
{
  return calloc(n ? n : 1, sizeof(double));
}

lw_drag *lw_drag_new(const lw_desc *desc, lw_error *err)
{
  lw_desc *copy = lw_desc_copy(desc);
  while (copy->ndrivers > 0) {
    char path[300];
    snprintf(path, sizeof path, "drivers/%s", copy->drivers[0].name);
    if (lw_desc_remove(copy, path) <= 0)
      break;
  }
  lw_model *m = lw_compile(copy, err);
  lw_desc_free(copy);
  if (!m)
    return NULL;
  lw_drag *g = calloc(1, sizeof *g);
  g->m = m;
  g->d = lw_data_new(m);
  g->nq = m->nq;
  g->nc = m->nc;
  g->n = g->nq + g->nc;
  g->q = dalloc((size_t)g->nq);
  g->qt = dalloc((size_t)g->nq);
  g->dq = dalloc((size_t)g->n);
  g->qd0 = dalloc((size_t)g->nq);
  g->phi = dalloc((size_t)g->nc);
  g->jac = dalloc((size_t)g->nc * g->nq);
  g->K = dalloc((size_t)g->n * g->n);
  g->rhs = dalloc((size_t)g->n);
  g->piv = calloc((size_t)g->n + 1, sizeof(int));
  if (lw_initialize(m, g->d, err) != LW_OK) {
    lw_drag_free(g);
    return NULL;
  }
  memcpy(g->q, g->d->q, sizeof(double) * (size_t)g->nq);
  return g;
}

void lw_drag_free(lw_drag *g)
{
  if (!g)
    return;
  lw_data_free(g->d);
  lw_model_free(g->m);
  free(g->q);
  free(g->qt);
  free(g->dq);
  free(g->qd0);
  free(g->phi);
  free(g->jac);
  free(g->K);
  free(g->rhs);
  free(g->piv);
  free(g);
}

int lw_drag_nq(const lw_drag *g)
{
  return g->nq;
}

const double *lw_drag_q(const lw_drag *g)
{
  return g->q;
}

const lw_model *lw_drag_model(const lw_drag *g)
{
  return g->m;
}

int lw_drag_set_q(lw_drag *g, const double *q, int nq)
{
  if (nq != g->nq)
    return -1;
  memcpy(g->q, q, sizeof(double) * (size_t)nq);
  return 0;
}

/* world position of point p of body b at q, and the point's Jacobian
 * (3 x nq, row-major) when jp is given; linear in the natural coordinates */
static void body_point(const lw_model *m, const double *q, int b, const double p[3], double out[3], double *jp)
{
  int o = m->blk_off[b];
  const double *qb = q + o;
  if (jp)
    memset(jp, 0, sizeof(double) * 3 * (size_t)m->nq);
  if (m->blk_n[b] == m->nd) {
    /* a point: its position, whatever p */
    for (int i = 0; i < 3; i++) {
      out[i] = i < m->nd ? qb[i] : 0.0;
      if (jp && i < m->nd)
        jp[(size_t)i * m->nq + o + i] = 1;
    }
    return;
  }
  if (m->planar) {
    double c = qb[2], s = qb[3];
    out[0] = qb[0] + c * p[0] - s * p[1];
    out[1] = qb[1] + s * p[0] + c * p[1];
    out[2] = 0;
    if (jp) {
      double *r0 = jp + o, *r1 = r0 + m->nq;
      r0[0] = 1, r0[2] = p[0], r0[3] = -p[1];
      r1[1] = 1, r1[2] = p[1], r1[3] = p[0];
    }
    return;
  }
  for (int i = 0; i < 3; i++) {
    out[i] = qb[i] + qb[3 + i] * p[0] + qb[6 + i] * p[1] + qb[9 + i] * p[2];
    if (jp) {
      double *row = jp + (size_t)i * m->nq + o;
      row[i] = 1, row[3 + i] = p[0], row[6 + i] = p[1], row[9 + i] = p[2];
    }
  }
}

int lw_drag_point(const lw_drag *g, int body, const double p[3], double out[3])
{
  if (body < 0 || body >= g->m->nb)
    return -1;
  body_point(g->m, g->q, body, p, out, NULL);
  return 0;
}

/* LU with partial pivoting of the n x n row-major A, solved in place in b */
static int lu_solve(double *A, double *b, int *piv, int n)
{
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[(size_t)i * n + k]) > fabs(A[(size_t)p * n + k]))
        p = i;
    if (!(fabs(A[(size_t)p * n + k]) > 1e-300))
      return -1;
    piv[k] = p;
    if (p != k) {
      for (int j = 0; j < n; j++) {
        double t = A[(size_t)k * n + j];
        A[(size_t)k * n + j] = A[(size_t)p * n + j];
        A[(size_t)p * n + j] = t;
      }
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    for (int i = k + 1; i < n; i++) {
      double f = A[(size_t)i * n + k] / A[(size_t)k * n + k];
      if (f == 0)
        continue;
      for (int j = k + 1; j < n; j++)
        A[(size_t)i * n + j] -= f * A[(size_t)k * n + j];
      b[i] -= f * b[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < n; j++)
      s -= A[(size_t)i * n + j] * b[j];
    b[i] = s / A[(size_t)i * n + i];
  }
  return 0;
}

/* Phi and Phi_q at q; returns |Phi| */
static double eval_constraints(lw_drag *g, const double *q)
{
  lw_eval_dense(g->m, g->d, q, g->qd0, 0.0, NULL, g->phi, g->jac, NULL, NULL);
  double s = 0;
  for (int r = 0; r < g->nc; r++)
    s += g->phi[r] * g->phi[r];
  return sqrt(s);
}

/* the KKT matrix [H J^T; J -eps I] with H = Jp^T Jp + mu I (jp may be NULL) */
static void build_kkt(lw_drag *g, const double *jp, int dim, double mu)
{
  int n = g->n, nq = g->nq, nc = g->nc;
  memset(g->K, 0, sizeof(double) * (size_t)n * n);
  for (int i = 0; i < nq; i++) {
    for (int j = 0; j < nq; j++) {
      double s = 0;
      for (int k = 0; jp && k < dim; k++)
        s += jp[(size_t)k * nq + i] * jp[(size_t)k * nq + j];
      g->K[(size_t)i * n + j] = s;
    }
    g->K[(size_t)i * n + i] += mu;
    for (int r = 0; r < nc; r++) {
      double v = g->jac[(size_t)i * nc + r];
      g->K[(size_t)i * n + nq + r] = v;
      g->K[(size_t)(nq + r) * n + i] = v;
    }
  }
  for (int r = 0; r < nc; r++)
    g->K[(size_t)(nq + r) * n + nq + r] = -1e-14;
}

/* Gauss-Newton onto Phi = 0 with the smallest change of q; returns |Phi| */
static double project(lw_drag *g, double *q)
{
  double res = eval_constraints(g, q);
  for (int it = 0; it < 30 && res > 1e-13; it++) {
    build_kkt(g, NULL, 0, 1.0);
    memset(g->rhs, 0, sizeof(double) * (size_t)g->n);
    for (int r = 0; r < g->nc; r++)
      g->rhs[g->nq + r] = -g->phi[r];
    if (lu_solve(g->K, g->rhs, g->piv, g->n))
      break;
    for (int i = 0; i < g->nq; i++)
      q[i] += g->rhs[i];
    double rnew = eval_constraints(g, q);
    if (!(rnew < res))
      return rnew;
    res = rnew;
  }
  return res;
}

static double dist2(const lw_model *m, const double *q, int b, const double p[3], const double x[3])
{
  double P[3];
  body_point(m, q, b, p, P, NULL);
  int dim = m->planar ? 2 : 3;
  double s = 0;
  for (int k = 0; k < dim; k++)
    s += (P[k] - x[k]) * (P[k] - x[k]);
  return s;
}

/* the step [dq; lambda] of the least-squares problem linearized at q (Phi,
 * Phi_q evaluated there) into g->rhs; curv (nq x nq) adds the constraints'
 * curvature weighted by the multipliers, NULL for Gauss-Newton */
static int drag_step(lw_drag *g, const double *jp, const double *P, const double *target, int dim,
                     const double *curv)
{
  int nq = g->nq, n = g->n;
  build_kkt(g, jp, dim, 1e-9);
  if (curv)
    for (int i = 0; i < nq; i++)
      for (int j = 0; j < nq; j++)
        g->K[(size_t)i * n + j] += curv[(size_t)i * nq + j];
  for (int i = 0; i < nq; i++) {
    double s = 0;
    for (int k = 0; k < dim; k++)
      s += jp[(size_t)k * nq + i] * (P[k] - target[k]);
    g->rhs[i] = -s;
  }
  for (int r = 0; r < g->nc; r++)
    g->rhs[nq + r] = -g->phi[r];
  return lu_solve(g->K, g->rhs, g->piv, n);
}

/* sum_r lambda_r Hess(Phi_r) at q by differences of Phi_q^T lambda, made
 * symmetric; leaves Phi, Phi_q evaluated at q */
static void constraint_curvature(lw_drag *g, const double *q, const double *lambda, double *curv)
{
  int nq = g->nq, nc = g->nc;
  double *base = dalloc((size_t)nq), *qh = g->dq;
  eval_constraints(g, q);
  for (int i = 0; i < nq; i++) {
    base[i] = 0;
    for (int r = 0; r < nc; r++)
      base[i] += g->jac[(size_t)i * nc + r] * lambda[r];
  }
  for (int j = 0; j < nq; j++) {
    memcpy(qh, q, sizeof(double) * (size_t)nq);
    double h = 1e-7 * fmax(1.0, fabs(q[j]));
    qh[j] += h;
    eval_constraints(g, qh);
    for (int i = 0; i < nq; i++) {
      double s = 0;
      for (int r = 0; r < nc; r++)
        s += g->jac[(size_t)i * nc + r] * lambda[r];
      curv[(size_t)i * nq + j] = (s - base[i]) / h;
    }
  }
  for (int i = 0; i < nq; i++)
    for (int j = 0; j < i; j++) {
      double a = 0.5 * (curv[(size_t)i * nq + j] + curv[(size_t)j * nq + i]);
      curv[(size_t)i * nq + j] = curv[(size_t)j * nq + i] = a;
    }
  free(base);
  eval_constraints(g, q);
}

/* backtracking along dir from g->q, at most tries halvings: the first step that keeps the
 * constraints and does not increase the distance goes into g->q */
static int line_search(lw_drag *g, const double *dir, int b, const double *p, const double *target,
                       int tries, double *f, double *res, double *moved)
{
  int nq = g->nq;
  double step = 1.0;
  for (int ls = 0; ls < tries; ls++, step *= 0.5) {
    for (int i = 0; i < nq; i++)
      g->qt[i] = g->q[i] + step * dir[i];
    double rnew = project(g, g->qt);
    double fnew = dist2(g->m, g->qt, b, p, target);
    if (rnew <= fmax(*res, 1e-12) && (tries < 10 ? fnew < *f : fnew <= *f * (1 + 1e-13) + 1e-300)) {
      *moved = 0;
      for (int i = 0; i < nq; i++)
        *moved = fmax(*moved, fabs(g->qt[i] - g->q[i]));
      memcpy(g->q, g->qt, sizeof(double) * (size_t)nq);
      *f = fnew;
      *res = rnew;
      return 1;
    }
  }
  return 0;
}

/* 1 when the step in g->rhs goes downhill on a convex model: the
 * distance's slope along it negative and the curvature positive (near a
 * maximum of the distance the Newton step climbs) */
static int descends(const lw_drag *g, const double *jp, const double *P, const double *target, int dim,
                    const double *curv)
{
  int nq = g->nq;
  const double *d = g->rhs;
  double slope = 0, quad = 0;
  for (int k = 0; k < dim; k++) {
    double jd = 0;
    for (int i = 0; i < nq; i++)
      jd += jp[(size_t)k * nq + i] * d[i];
    slope += jd * (P[k] - target[k]);
    quad += jd * jd;
  }
  for (int i = 0; i < nq; i++)
    for (int j = 0; j < nq; j++)
      quad += d[i] * curv[(size_t)i * nq + j] * d[j];
  return slope < 0 && quad > 0;
}

/* Newton steps on the Lagrangian (the constraints' curvature from
 * differences) converge fast also far from the target, where Gauss-Newton
 * alone crawls; a Newton step that does not help falls back to the
 * Gauss-Newton one. */
int lw_drag_solve(lw_drag *g, int body, const double point[3], const double target[3], lw_drag_info *info)
{
  lw_model *m = g->m;
  int nq = g->nq, nc = g->nc, dim = m->planar ? 2 : 3;
  if (body < 0 || body >= m->nb)
    return -1;
  for (int k = 0; k < dim; k++)
    if (!isfinite(point[k]) || !isfinite(target[k]))
      return -1;
  double *jp = dalloc(3 * (size_t)nq), *dir = dalloc((size_t)nq), *lambda = dalloc((size_t)nc);
  double *curv = dalloc((size_t)nq * nq);
  double P[3];
  double res = project(g, g->q);
  double f = dist2(m, g->q, body, point, target);
  int it;
  for (it = 0; it < 60; it++) {
    eval_constraints(g, g->q);
    body_point(m, g->q, body, point, P, jp);
    if (drag_step(g, jp, P, target, dim, NULL))
      break;
    memcpy(dir, g->rhs, sizeof(double) * (size_t)nq);
    memcpy(lambda, g->rhs + nq, sizeof(double) * (size_t)nc);
    double dmax = 0, moved = 0;
    for (int i = 0; i < nq; i++)
      dmax = fmax(dmax, fabs(dir[i]));
    if (dmax < 1e-13)
      break;
    constraint_curvature(g, g->q, lambda, curv);
    /* near a maximum or a saddle of the distance the Newton step climbs:
     * it must make progress with at most two halvings */
    int ok = !drag_step(g, jp, P, target, dim, curv) && descends(g, jp, P, target, dim, curv) &&
             line_search(g, g->rhs, body, point, target, 3, &f, &res, &moved);
    if (!ok && !line_search(g, dir, body, point, target, 40, &f, &res, &moved))
      break;
    if (moved < 1e-12)
      break;
  }
  free(jp);
  free(dir);
  free(lambda);
  free(curv);
  if (info) {
    info->iterations = it;
    info->distance = sqrt(f);
    info->residual = res;
  }
  return res <= 1e-10 ? 0 : -1;
}

/* quaternion w x y z of the rotation R (row-major) */
static void rot_to_quat(const double *R, double *o)
{
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = 2 * sqrt(1 + tr);
    o[0] = 0.25 * s, o[1] = (R[7] - R[5]) / s, o[2] = (R[2] - R[6]) / s, o[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
    o[0] = (R[7] - R[5]) / s, o[1] = 0.25 * s, o[2] = (R[1] + R[3]) / s, o[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
    o[0] = (R[2] - R[6]) / s, o[1] = (R[1] + R[3]) / s, o[2] = 0.25 * s, o[3] = (R[5] + R[7]) / s;
  } else {
    double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
    o[0] = (R[3] - R[1]) / s, o[1] = (R[2] + R[6]) / s, o[2] = (R[5] + R[7]) / s, o[3] = 0.25 * s;
  }
}

int lw_drag_store(const lw_drag *g, lw_desc *d)
{
  const lw_model *m = g->m;
  if (d->nbodies != m->nb || d->ninitial != m->ninit)
    return -1;
  lw_data_set_state(m, g->d, 0.0, g->q, NULL, NULL, NULL);
  for (int b = 0; b < m->nb; b++) {
    lw_body_desc *bd = &d->bodies[b];
    double o[3], R[9];
    lw_body_pose(m, g->d, b, o, R);
    memcpy(bd->position, o, sizeof o);
    if (m->planar)
      bd->angle = atan2(R[3], R[0]);
    else
      rot_to_quat(R, bd->orientation);
  }
  /* angles continue from the values they had: the nearest turn */
  for (int i = 0; i < m->ninit; i++) {
    lw_initial_desc *in = &d->initial[i];
    if (!in->has_value)
      continue;
    const lw_coord *c = &m->coords[m->init_coord[i]];
    double x = lw_coord_eval(m, c, g->q, NULL);
    if (c->kind == LW_ROW_ANGLE)
      x = in->value + lw_wrap_pi(x - in->value);
    in->value = x;
  }
  return 0;
}
