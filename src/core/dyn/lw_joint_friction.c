/* lw_joint_friction.c: joint friction in the step (docs/friction.md
 * sec. 8): each friction element's reaction from the multipliers of its
 * joint's equations (8.1), the rates of its coordinates (8.2), the kernel's
 * generalized friction mapped onto q through the coordinates' gradients,
 * and the symmetric positive part of its damping for the Newton matrix
 * (8.4, option (a)). */
#include "dyn/lw_joint_friction.h"
#include "lw_internal.h"
#include "compile/lw_vexpr.h"
#include "dyn/lw_rows.h"
#include "la/lw_matrix.h"
#include "model/lw_friction.h"

#include <math.h>
#include <string.h>

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* g = -(J_j^T lam_j) on the element's body: the constraint force of the
 * joint's equations in that body's coordinates (nqb) */
static void joint_gen_force(const lw_model *m, const lw_data *d, const lw_jfric *f, const double *lam, double *g)
{
  int nqb = m->nqb, w = 2 * nqb;
  memset(g, 0, sizeof(double) * (size_t)nqb);
  for (int r = f->row0; r < f->row0 + f->nrow; r++) {
    const lw_row *row = &m->rows[r];
    for (int kb = 0; kb < row->nblk; kb++)
      if (row->blk[kb] == f->body)
        for (int i = 0; i < nqb; i++)
          g[i] -= d->jac[(size_t)r * w + kb * nqb + i] * lam[r];
  }
}

/* the reaction [F; T] in joint axes: the force on the body and its moment
 * about the joint origin P (sec. 8.1).  A force f at the body point
 * r0 + x u + y v + z w has the generalized force [f, x f, y f, z f], so the
 * moment about r0 is u x g_u + v x g_v + w x g_w (planar: u x g_u, which
 * covers v = S u). */
static void reaction_at(const lw_model *m, const lw_data *d, const lw_jfric *f, const double *q, const double *lam,
                        double R[6], double *g, double *P, double *X, double *Y, double *Z)
{
  double F[3] = {0}, n[3] = {0}, dP[3], c[3];
  const double *qb = q + (size_t)f->body * m->nqb;
  memset(P, 0, sizeof(double) * 3);
  memset(X, 0, sizeof(double) * 3);
  memset(Y, 0, sizeof(double) * 3);
  memset(Z, 0, sizeof(double) * 3);
  joint_gen_force(m, d, f, lam, g);
  lw_vexpr_eval(m, &f->o, q, P);
  lw_vexpr_eval(m, &f->x, q, X);
  lw_vexpr_eval(m, &f->y, q, Y);
  memset(R, 0, sizeof(double) * 6);
  if (m->planar) {
    F[0] = g[0];
    F[1] = g[1];
    double n0 = qb[2] * g[3] - qb[3] * g[2];
    double nz = n0 - ((P[0] - qb[0]) * F[1] - (P[1] - qb[1]) * F[0]);
    R[0] = X[0] * F[0] + X[1] * F[1];
    R[1] = Y[0] * F[0] + Y[1] * F[1];
    R[5] = nz;
    return;
  }
  lw_vexpr_eval(m, &f->z, q, Z);
  memcpy(F, g, sizeof F);
  for (int a = 1; a < 4; a++) {
    cross3(qb + 3 * a, g + 3 * a, c);
    for (int i = 0; i < 3; i++)
      n[i] += c[i];
  }
  for (int i = 0; i < 3; i++)
    dP[i] = P[i] - qb[i];
  cross3(dP, F, c);
  for (int i = 0; i < 3; i++)
    n[i] -= c[i];
  R[0] = dot3(X, F);
  R[1] = dot3(Y, F);
  R[2] = dot3(Z, F);
  R[3] = dot3(X, n);
  R[4] = dot3(Y, n);
  R[5] = dot3(Z, n);
}

static void reaction(const lw_model *m, const lw_data *d, const lw_jfric *f, const double *q, const double *lam,
                     double R[6])
{
  double g[LW_MAXQB], P[3], X[3], Y[3], Z[3];
  reaction_at(m, d, f, q, lam, R, g, P, X, Y, Z);
}

void lw_joint_friction_spin_grad(const lw_model *m, const lw_jfric *f, const double *q, double *G)
{
  int nqb = m->nqb, w = 2 * nqb;
  double A[3][3], c[3];
  lw_vexpr_eval(m, &f->x, q, A[0]);
  lw_vexpr_eval(m, &f->y, q, A[1]);
  lw_vexpr_eval(m, &f->z, q, A[2]);
  memset(G, 0, sizeof(double) * 3 * (size_t)w);
  for (int b = 0; b < f->nblk; b++) {
    const double *qb = q + (size_t)f->blk[b] * nqb;
    double h = f->blk[b] == f->bodies[1] ? 0.5 : -0.5; /* omega_2 - omega_1 */
    for (int a = 1; a < 4; a++)
      for (int k = 0; k < 3; k++) {
        cross3(A[k], qb + 3 * a, c);
        for (int i = 0; i < 3; i++)
          G[(size_t)k * w + b * nqb + 3 * a + i] = h * c[i];
      }
  }
}

/* the slips' rates at (q, qd) and their gradients in G (nslip x 2 nqb,
 * NULL: not wanted): the coordinates' rates, or a ball's relative angular
 * velocity (lw_joint_friction_spin_grad) */
static void slip_rates(const lw_model *m, const lw_jfric *f, const double *q, const double *qd, double *rate,
                       double *G)
{
  int w = 2 * m->nqb;
  if (f->kind == LW_FRICTION_SPHERICAL) {
    double Gs[3 * 2 * LW_MAXQB];
    double *g = G ? G : Gs;
    lw_joint_friction_spin_grad(m, f, q, g);
    for (int k = 0; k < 3; k++) {
      rate[k] = 0;
      for (int b = 0; b < f->nblk; b++)
        for (int i = 0; i < m->nqb; i++)
          rate[k] += g[(size_t)k * w + b * m->nqb + i] * qd[(size_t)f->blk[b] * m->nqb + i];
    }
    return;
  }
  double Gs[2 * LW_MAXQB];
  for (int k = 0; k < f->nslip; k++) {
    const lw_coord *c = &m->coords[f->coord0 + k];
    double *g = G ? G + (size_t)k * w : Gs;
    lw_coord_eval(m, c, q, g);
    if (c->kind != LW_ROW_DOT) {
      rate[k] = lw_coord_rate(m, c, q, qd);
      continue;
    }
    rate[k] = 0.0; /* G_k . qd */
    for (int b = 0; b < c->nblk; b++)
      for (int i = 0; i < m->nqb; i++)
        rate[k] += g[b * m->nqb + i] * qd[(size_t)c->blk[b] * m->nqb + i];
  }
}

/* the kernel at the element's reaction and rates; the rates' gradients
 * into G (nslip x 2 nqb) when G != NULL */
static void element_eval(const lw_model *m, const lw_data *d, const lw_jfric *f, const double *q, const double *qd,
                         const double *lam, double *G, lw_friction_out *out)
{
  double R[6], rate[LW_FRICTION_MAXSLIP];
  lw_friction_params p;
  memcpy(p.p, f->p, sizeof p.p);
  reaction(m, d, f, q, lam, R);
  slip_rates(m, f, q, qd, rate, G);
  lw_friction_eval_state(&p, (lw_friction_kind)f->kind, R, rate, out);
}

void lw_joint_friction_point(const lw_model *m, const lw_data *d, int e, const double *q, const double *qd,
                             const double *lam, double *G, double *g, double frame[4][3], lw_friction_out *out)
{
  const lw_jfric *f = &m->fric[e];
  double R[6], rate[LW_FRICTION_MAXSLIP];
  lw_friction_params p;
  memcpy(p.p, f->p, sizeof p.p);
  reaction_at(m, d, f, q, lam, R, g, frame[0], frame[1], frame[2], frame[3]);
  slip_rates(m, f, q, qd, rate, G);
  lw_friction_eval_state(&p, (lw_friction_kind)f->kind, R, rate, out);
}

/* vals += cs W (G I + N psi+ u u^T) W in the coordinates' gradients: the
 * kernel's damping -dQ/drate with its N psi u u^T part dropped where psi
 * < 0 (where mu falls from mu_s to mu_d), so that it stays positive
 * semidefinite (docs/friction.md sec. 8.4 (a)) */
static void add_damping(const lw_model *m, const lw_jfric *f, const lw_friction_out *out, const double *G,
                        double *vals, double cs)
{
  int w = 2 * m->nqb, nw = f->nblk * m->nqb;
  double gu[2 * LW_MAXQB] = {0};
  for (int k = 0; k < f->nslip; k++) {
    double wk = out->slip_w[k];
    lw_mat_add_outer(m, vals, cs * out->G * wk * wk, f->nblk, f->blk, f->pairpos, G + (size_t)k * w);
    for (int i = 0; i < nw; i++)
      gu[i] += wk * out->slip_u[k] * G[(size_t)k * w + i];
  }
  if (out->psi > 0)
    lw_mat_add_outer(m, vals, cs * out->N * out->psi, f->nblk, f->blk, f->pairpos, gu);
}

size_t lw_joint_friction_kept_size(const lw_model *m)
{
  return 1 + 2 * (size_t)m->nq + (size_t)m->nc + (size_t)m->nfric * (sizeof(lw_fric_point) / sizeof(double) + 1) + 1 +
         3 * (size_t)m->nfric;
}

void lw_joint_friction_eval_keep(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                                 const double *lam, double *Q, double *vals, double cs, lw_fric_point *keep)
{
  int nqb = m->nqb, w = 2 * nqb;
  lw_fric_point pt;
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    lw_fric_point *x = keep ? &keep[e] : &pt;
    const double *G = x->G;
    const lw_friction_out *out = &x->out;
    lw_joint_friction_point(m, d, e, q, qd, lam, x->G, x->g, x->frame, &x->out);
    for (int k = 0; k < f->nslip; k++)
      for (int b = 0; b < f->nblk; b++) {
        double *Qb = Q + (size_t)f->blk[b] * nqb;
        const double *gk = G + (size_t)k * w + b * nqb;
        for (int i = 0; i < nqb; i++)
          Qb[i] += out->Q[k] * gk[i];
      }
    if (vals)
      add_damping(m, f, out, G, vals, cs);
  }
}

void lw_joint_friction_eval(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                            const double *lam, double *Q, double *vals, double cs)
{
  lw_joint_friction_eval_keep(m, d, q, qd, lam, Q, vals, cs, NULL);
}

void lw_joint_friction_work(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                            const double *lam, const double *dq, double *W)
{
  int w = 2 * m->nqb;
  double G[LW_FRICTION_MAXSLIP * 2 * LW_MAXQB];
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    lw_friction_out out;
    element_eval(m, d, f, q, qd, lam, G, &out);
    double s = 0;
    for (int k = 0; k < f->nslip; k++)
      for (int b = 0; b < f->nblk; b++) {
        const double *dqb = dq + (size_t)f->blk[b] * m->nqb;
        const double *gk = G + (size_t)k * w + b * m->nqb;
        for (int i = 0; i < m->nqb; i++)
          s += out.Q[k] * gk[i] * dqb[i];
      }
    W[e] = -s;
  }
}

int lw_joint_friction_nterms(const lw_model *m)
{
  int n = 0;
  for (int e = 0; e < m->nfric; e++)
    n += m->fric[e].nslip * m->fric[e].nblk * m->nqb;
  return n;
}

void lw_joint_friction_terms(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                             const double *lam, double *T)
{
  int w = 2 * m->nqb;
  double G[LW_FRICTION_MAXSLIP * 2 * LW_MAXQB];
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    lw_friction_out out;
    element_eval(m, d, f, q, qd, lam, G, &out);
    for (int k = 0; k < f->nslip; k++)
      for (int b = 0; b < f->nblk; b++) {
        const double *gk = G + (size_t)k * w + b * m->nqb;
        for (int i = 0; i < m->nqb; i++)
          *T++ = out.Q[k] * gk[i];
      }
  }
}

void lw_joint_friction_terms_work(const lw_model *m, const double *T, const double *dq, double *W)
{
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    double s = 0;
    for (int k = 0; k < f->nslip; k++)
      for (int b = 0; b < f->nblk; b++) {
        const double *dqb = dq + (size_t)f->blk[b] * m->nqb;
        for (int i = 0; i < m->nqb; i++)
          s += *T++ * dqb[i];
      }
    W[e] = -s;
  }
}

double lw_joint_friction_power(const lw_model *m, const lw_data *d, const double *q, const double *qd,
                               const double *lam, double *P)
{
  double sum = 0;
  for (int e = 0; e < m->nfric; e++) {
    lw_friction_out out;
    element_eval(m, d, &m->fric[e], q, qd, lam, NULL, &out);
    double pe = out.F * out.slip_speed; /* -sum_k Q_k rate_k */
    if (P)
      P[e] = pe;
    sum += pe;
  }
  return sum;
}

const double *lw_joint_friction_lambda(const lw_model *m, const lw_data *d, const double *lam, double *buf)
{
  if (!d->fric_kap_ok)
    return lam;
  for (int r = 0; r < m->nc; r++)
    buf[r] = lam[r] + d->kap[r];
  return buf;
}

void lw_joint_friction_state(const lw_model *m, const lw_data *d, int e, const double *q, const double *qd,
                             const double *lam, double *o)
{
  lw_friction_out out;
  element_eval(m, d, &m->fric[e], q, qd, lam, NULL, &out);
  o[0] = out.Q[0];
  if (m->fric[e].kind == LW_FRICTION_SPHERICAL) /* a ball: the moment's magnitude r_e F */
    o[0] = sqrt(out.Q[0] * out.Q[0] + out.Q[1] * out.Q[1] + out.Q[2] * out.Q[2]);
  o[1] = out.N;
  o[2] = out.slip_speed;
}
