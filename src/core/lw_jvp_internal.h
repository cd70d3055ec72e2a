/* lw_jvp_internal.h: the pieces of the directional derivatives (lw_jvp.c)
 * that the element kinds (kind/) build their own derivatives from: scalars
 * of vectors linear in q with their derivatives (lw_sc), the closed-form
 * gradients and Hessians of a row or coordinate scalar (lw_sx), and the
 * blocks of the step's linearization (lw_bmat).  Private to src/core. */
#ifndef LW_JVP_INTERNAL_H
#define LW_JVP_INTERNAL_H

#include "lw_internal.h"
#include "lw_rowvec.h"

/* ---- scalars built from vectors linear in q --------------------------------
 * value v, gradient g (local blocks), rate r = g.qd, second-order term gm
 * (so that d2/dt2 = g.qdd + gm), and their directional derivatives. */
typedef struct {
  double v, dv, r, dr, gm, dgm;
  double g[2 * LW_MAXQB], dg[2 * LW_MAXQB];
} lw_sc;

static inline double lw_dot(int n, const double *a, const double *b)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* y[blk] += a g over the local blocks */
static inline void lw_blk_add(const lw_model *m, int nblk, const int *blk, const double *g, double a, double *y)
{
  int nqb = m->nqb;
  for (int k = 0; k < nblk; k++)
    for (int i = 0; i < nqb; i++)
      y[(size_t)blk[k] * nqb + i] += a * g[k * nqb + i];
}

static inline int lw_blk_touches(int nblk, const int *blk, int body)
{
  if (body < 0)
    return 1;
  for (int k = 0; k < nblk; k++)
    if (blk[k] == body)
      return 1;
  return 0;
}

/* whether an element (blocks nblk/blk, tangent flag on) can contribute */
static inline int lw_dir_active(const lw_lin_dir *dir, int state, int nblk, const int *blk, int on)
{
  if (dir->tg && on)
    return 1;
  return state && lw_blk_touches(nblk, blk, dir->body);
}

/* a vector linear in q at x and its derivative along dx (NULL: 0) and the
 * tangent vexpr te (NULL: none); lin = 1 for rates (no constant term) */
void lw_vx_jvp(const lw_model *m, const lw_vexpr *e, const lw_vexpr *te, const double *x, const double *dx,
               int lin, double *v, double *dv);
/* joint coordinate ci as a scalar at p and along dir (tm: tangent model or NULL) */
void lw_coord_sc(const lw_model *m, const lw_model *tm, int ci, const lw_lin_point *p, const lw_lin_dir *dir,
                 lw_sc *s);
/* a time function's derivative along the tangent: kind 1 force, 2 driver, 3 target */
void lw_func_tan(const lw_tangent *tg, int kind, int idx, const lw_func *f, const lw_func *tf, double t, double *v,
                 double *dv, double *ddv);
/* the error e of measured coordinate i and its derivative de along the
 * direction; ed and ded: the error's rate (position measure) */
void lw_fb_err_jvp(const lw_model *m, const lw_data *d, int i, int fon, const lw_lin_point *pf,
                   const lw_lin_dir *df, double *e, double *de, double *ed, double *ded);
/* the nd x w matrix of a vexpr over the blocks blk (row-major, w = nblk nqb) */
void lw_vx_matrix(const lw_model *m, const lw_vexpr *e, int nblk, const int *blk, double *A);

/* A scalar of a row or a coordinate in closed form (lw_sx_eval): x = a.b
 * (DOT) or theta = atan2(S, C), S = a.b, C = c.d (ANGLE), with a..d linear
 * in q (matrices X[0..3] over the w local coordinates); its gradient g, its
 * rate xd = g.qd and d(xd)/dq (gd) at (q, qd). */
typedef struct {
  int angle, w, nd;
  double X[4][3 * 2 * LW_MAXQB];
  double S, C, Sd, Cd, sig, kap, r2, x, xd;
  double gS[2 * LW_MAXQB], gC[2 * LW_MAXQB], hS[2 * LW_MAXQB], hC[2 * LW_MAXQB]; /* dS, dC, dS', dC' by q */
  double g[2 * LW_MAXQB], gd[2 * LW_MAXQB];
} lw_sx;

void lw_sx_eval(const lw_model *m, lw_row_kind kind, const lw_vexpr *const ve[4], int nblk, const int *blk,
                const double *q, const double *qd, lw_sx *o);

/* a controller's force / torque tau and its derivative dtau along the
 * direction (pf: the forces' point, velocity argument in qd); the integral
 * term ki (fbc + fb_beta e) takes fbc as given (kind/kind_controller.c) */
void lw_control_jvp(const lw_model *m, const lw_data *d, int n, const lw_lin_point *pf, const lw_lin_dir *df,
                    double *tau, double *dtau);

/* ---- blocks of the step's linearization -------------------------------------- */
/* B(gi, gj) += v */
static inline void lw_bm_add(const lw_model *m, const lw_bmat *B, int gi, int gj, double v)
{
  int nqb = m->nqb, bi = lw_qb_div(gi, nqb), bj = lw_qb_div(gj, nqb);
  if (bi == bj)
    B->blk[(size_t)bi * nqb * nqb + (size_t)(lw_qb_mod(gj, nqb)) * nqb + lw_qb_mod(gi, nqb)] += v;
  else
    B->off[(size_t)gj * m->nq + gi] += v; /* present whenever m->lin_coupled (lw_lin_prepare) */
}

/* the part of B in the rows of body br and the columns of body bc:
 * B(br nqb + r, bc nqb + c) = part[c ld + r] */
static inline double *lw_bm_part(const lw_model *m, const lw_bmat *B, int br, int bc, int *ld)
{
  int nqb = m->nqb;
  if (br == bc) {
    *ld = nqb;
    return B->blk + (size_t)br * nqb * nqb;
  }
  *ld = m->nq;
  return B->off + (size_t)bc * nqb * m->nq + (size_t)br * nqb;
}

/* A spring-damper's blocks over the w local coordinates of the bodies blk,
 * from the gradient g = u[0] of its scalar x (a length, an angle) and
 * generalized force Q = tau g:
 *   KC = -dQ/dq - cv dQ/dv = sum_k u[k] v[k]^T - tau H,  C = -dQ/dv = c g g^T
 * (entry (j, i) = row j, column i; nv outer products, v[0] = k g + c gd +
 * cv c g and the rest of the Hessian's terms; H: column i at H + i w, or
 * NULL, read with KC only) */
LW_KERNEL void lw_sd_blocks(const lw_model *m, const lw_force *f, const int *blk, int w, int nv,
                            const double *const u[], const double *const v[], const double *H, double tau,
                            const lw_bmat *KC, const lw_bmat *Cm, const int nqb)
{
  int nblk = w / nqb;
  const double *g = u[0];
  double cc = Cm ? f->c : 0.0;
  for (int kb = 0; kb < nblk; kb++)
    for (int lb = 0; lb < nblk; lb++) {
      int ldk = 0, ldc = 0;
      double *pk = KC ? lw_bm_part(m, KC, blk[lb], blk[kb], &ldk) : NULL;
      double *pc = cc != 0.0 ? lw_bm_part(m, Cm, blk[lb], blk[kb], &ldc) : NULL;
      for (int ii = 0; ii < nqb; ii++) {
        int i = kb * nqb + ii;
        double v0 = v[0][i], v1 = nv > 1 ? v[1][i] : 0.0, v2 = nv > 2 ? v[2][i] : 0.0;
        for (int jj = 0; jj < nqb && pk; jj++) {
          int j = lb * nqb + jj;
          double a = u[0][j] * v0;
          if (nv > 1)
            a += u[1][j] * v1 + u[2][j] * v2;
          if (H)
            a -= tau * H[i * w + j];
          pk[ii * ldk + jj] += a;
        }
        for (int jj = 0; jj < nqb && pc; jj++)
          pc[ii * ldc + jj] += cc * g[lb * nqb + jj] * g[i];
      }
    }
}

#endif
