/* lw_kind.h: the element kinds of the solver core behind one interface.
 *
 * A force kind is a table of hooks (lw_force_kind); lw_forces_eval, the
 * energy and damper power, the linearization (lw_lin_blocks) and the
 * directional derivatives (lw_lin_jvp) and the parameters' tangent models
 * (lw_tangent_new) loop over the model's forces and call the hooks of each
 * one's kind, never testing its type.  A new kind is a new file under
 * src/core/kind that defines its table, one entry in the registry
 * (kind_registry.c) and one entry in tests/test-kinds.c and in
 * tests/test-tangent.c.
 *
 * Shapes: nq = m->nq generalized coordinates in blocks (m->blk_n, m->blk_off),
 * w local coordinates of the bodies an element touches (their blocks' in turn); Q, dQ are
 * (nq); vals are the Newton matrix's values (lw_mat_add_outer's layout);
 * KC, C are lw_bmat (nq x nq, block diagonal plus off-diagonal blocks). */
#ifndef LW_KIND_H
#define LW_KIND_H

#include "lw_internal.h"
#include "model/lw_error.h"
#include "compile/lw_compile_ctx.h"

#include <stdint.h>

/* the element's error at path: set it and fail */
#define KFAIL(path, ...)                                                                           \
  do {                                                                                             \
    lw_set_error(err, LW_ERR_MODEL, path, NAN, __VA_ARGS__);                                       \
    return -1;                                                                                     \
  } while (0)

typedef struct lw_force_kind {
  const char *name;
  /* the element acts along a joint coordinate f->coord (its unit, its
   * tangent follows the coordinate's) */
  int on_joint;
  /* whether Q depends on the velocities (C = -dQ/dqd nonzero) for this
   * element; NULL: never */
  int (*uses_velocity)(const lw_force *f);
  /* fill m->forces[i] from d->forces[i] past the checks every force gets
   * (name, stiffness, damping, finite values, its function): its vectors,
   * bodies (nblk, blk), coordinate, controllers' measures; 0, or -1 with
   * err set at the element's path */
  int (*compile)(lw_compile_ctx *c, int i, lw_error *err);
  /* Q (nq) += the force at (q, qd, t); when vals != NULL also
   * vals += ks K + cs C in the Newton matrix (K = -dQ/dq, C = -dQ/dqd,
   * the symmetric Gauss-Newton part only) */
  void (*eval)(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd, double t,
               double *Q, double *vals, double ks, double cs);
  /* the stored energy at q (scalar); NULL: none */
  double (*energy)(const lw_model *m, lw_data *d, const lw_force *f, const double *q);
  /* a spring-damper's length (or coordinate, unwrapped) x and its rate xd
   * at (q, qd): the damper power is c xd^2 and the spring outputs read it;
   * NULL: no damper, no length */
  void (*spring_state)(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                       double *x, double *xd);
  /* *s += the derivative of energy's value along dir and the tangent
   * model tm (NULL: none) at p, each term added on its own; NULL: none */
  void (*energy_jvp)(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                     const lw_lin_dir *dir, double *s);
  /* spring_state at p (rate from p->qd, 0 without) and its derivatives
   * dx, dxd along dir and tm (NULL: none); the spring outputs' jvp */
  void (*state_jvp)(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                    const lw_lin_dir *dir, double *x, double *dx, double *xd, double *dxd);
  /* dQ (nq) += the derivative of force n along dir (state directions dq,
   * dv and/or the parameter tangent dir->tg) at p; pf/df: the same point
   * and direction with the velocity argument v in qd / dqd; state: dir has
   * a state part */
  void (*jvp)(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
              const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ);
  /* the bodies whose coordinates the force depends on: *blk (count
   * returned, 0 for a force independent of the state) */
  int (*blocks)(const lw_model *m, const lw_force *f, const int **blk);
  /* KC += -dQ/dq - cv dQ/dv, C += -dQ/dv (lw_bmat, NULL: skip) in closed
   * form; NULL: lw_lin_blocks takes them column by column from jvp */
  void (*lin)(const lw_model *m, const lw_data *d, const lw_force *f, const lw_lin_point *p, double cv,
              const lw_bmat *KC, const lw_bmat *C);
  /* where the view draws the element at the data's state: a (3) and b (3),
   * both 0 on entry (a spring: its two ends; a force or torque: its point
   * and its vector; an element on a joint: the joint's origin and axis);
   * planar models get the third component cleared where it has none */
  void (*geometry)(const lw_model *m, const lw_data *d, const lw_force *f, double *a, double *b);
  /* an actuator's force or torque along its coordinate at (q, qd, t) (the
   * control output); NULL: not an actuator */
  double (*actuation)(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                      double t);
  /* the exact derivative of force n's compiled constants with respect to
   * one field of its description: field is the field's address in
   * m->desc (what lw_desc_field gives for a path forces/NAME/..., such as
   * stiffness, damping, rest_length, vector/K, function/K, a controller's
   * kp, kd, ki, target/K or gains/I/...).  With dm != NULL, adds into dm
   * (a tangent model: m's layout, numbers are derivatives per unit of the
   * field) the derivative of force n's constants (k, c, rest, vec (3),
   * func) and of its measures dm->fbs[fb0 .. fb0 + nfb); with dm == NULL
   * only answers.  Returns 1 when that derivative is exact and complete,
   * 0 when the kind leaves the field to the numerical tangent (points:
   * they pass through the compile's frames).  Reads only m's structure
   * (bodies, coordinates, measures) and m->desc, never m's constants: m
   * may be dm itself.  NULL: every field numerically. */
  int (*tangent)(const lw_model *m, int n, const double *field, lw_model *dm);
  /* the outputs every element of the kind offers (name suffix after the
   * element's name and type), noutputs of them */
  const struct lw_kind_output { const char *suffix; lw_output_type type; } *outputs;
  int noutputs;
  /* reserved for kinds with multipliers or events (friction, contact);
   * NULL for every kind so far: the derivative of Q with respect to the
   * multipliers l (nc) along dl, a guard g(q, qd, t) whose sign change is
   * an event, and the jump of the state at that event */
  void (*dlambda)(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const double *dl, double *dQ);
  double (*guard)(const lw_model *m, const lw_data *d, int n, const double *q, const double *qd, double t);
  void (*jump)(const lw_model *m, lw_data *d, int n, double *q, double *qd);
} lw_force_kind;

/* A row kind: a scalar x(q) of vectors linear in q, a.b (DOT) or
 * atan2(a.b, c.d) (ANGLE); the rows of joints and drivers and the joint
 * coordinates are built from them.  v[4] = {a, b, c, d} (c, d unused by
 * DOT); g, the gradient over the element's blocks (w: the blocks' coordinates in turn). */
struct lw_sc;
typedef struct lw_row_kind_ops {
  const char *name;
  int nvec;            /* vectors it reads: 2 (a.b) or 4 */
  int const_hessian;   /* its Hessian is constant (kept in m->rh_v) */
  /* x(q); g += dx/dq when g != NULL */
  double (*value)(const lw_model *m, const lw_vexpr *const v[4], const double *q, int nblk, const int *blk,
                  double *g);
  /* the residual of x - target: itself, or an angle wrapped into (-pi, pi] */
  double (*residual)(double e);
  /* xdot = g.qd and gamma (xddot = g.qdd + gamma); gam may be NULL */
  void (*rate)(const lw_model *m, const lw_vexpr *const v[4], const double *q, const double *qd, double *xdot,
               double *gam);
  /* the scalar at p (rate from p->qd when given), its gradient (when
   * need_g > 0; an angle needs its dot products' anyway), second-order
   * term and their derivatives along dir and the tangent vectors tv (NULL:
   * none) into *s (lw_kind_jvp.h); need_g < 0 (LW_SC_VALUES): the gradient
   * and its derivative are neither needed nor set */
  void (*jvp)(const lw_model *m, const lw_vexpr *const v[4], const lw_vexpr *const tv[4], int nblk, const int *blk,
              const lw_lin_point *p, const lw_lin_dir *dir, int need_g, struct lw_sc *s);
  /* row r's step blocks at p: H[k] += l_k[r] d2x/dq2 (lw_bmat, NULL: skip);
   * rv, ra, rad (w) += d(g.qd)/dq, d(g.qdd + gamma)/dq, d gamma/d qd */
  void (*lin)(const lw_model *m, const lw_row *row, const lw_lin_point *p, const lw_bmat *const H[3], int r,
              double *rv, double *ra, double *rad);
} lw_row_kind_ops;

extern const lw_row_kind_ops lw_row_kind_dot, lw_row_kind_angle;

static inline const lw_row_kind_ops *lw_row_kind_of(lw_row_kind k)
{
  return k == LW_ROW_DOT ? &lw_row_kind_dot : &lw_row_kind_angle;
}

/* the rows' closed-form step blocks (lw_jvp.c, with the Hessian tables and
 * the scalar machinery they share with the springs') */
void lw_dot_row_lin(const lw_model *m, const lw_row *row, const lw_lin_point *p, const lw_bmat *const H[3], int r,
                    double *rv, double *ra, double *rad);
void lw_angle_row_lin(const lw_model *m, const lw_row *row, const lw_lin_point *p, const lw_bmat *const H[3], int r,
                      double *rv, double *ra, double *rad);

/* the registry: one table per lw_force_type (kind_registry.c) */
extern const lw_force_kind *const lw_force_kinds[LW_FORCE_NTYPES];

static inline const lw_force_kind *lw_force_kind_of(lw_force_type t)
{
  return lw_force_kinds[t];
}

/* Q += s g over the force's blocks (g: its local gradient) */
static inline void lw_kind_add_block_grad(const lw_model *m, double *Q, const lw_force *f, const double *g, double s)
{
  for (int k = 0, o = 0; k < f->nblk; o += m->blk_n[f->blk[k]], k++) {
    double *Qb = Q + m->blk_off[f->blk[k]];
    for (int i = 0; i < m->blk_n[f->blk[k]]; i++)
      Qb[i] += s * g[o + i];
  }
}

/* an element on a joint (joint spring-damper, controller): the joint's
 * origin and axis */
void lw_kind_joint_geometry(const lw_model *m, const lw_data *d, const lw_force *f, double *a, double *b);

/* the index of the field at address x in a (n values), or -1: the
 * tangent hooks find the field a parameter is bound to by its address */
static inline int lw_field_index(const double *x, const double *a, int n)
{
  uintptr_t u = (uintptr_t)x, lo = (uintptr_t)a;
  if (!a || u < lo || u >= lo + (uintptr_t)n * sizeof(double) || (u - lo) % sizeof(double))
    return -1;
  return (int)((u - lo) / sizeof(double));
}

/* coefficient x of the time function f: its index in f->a (*knot = 0)
 * or, for a spline, in its values f->knots (*knot = 1); -1 when x is
 * neither (a tangent model's function holds the derivatives at the same
 * places: lw_kind_func_at) */
int lw_kind_func_coef(const lw_func *f, const double *x, int *knot);

static inline double *lw_kind_func_at(lw_func *f, int i, int knot)
{
  return knot ? &f->knots[i] : &f->a[i];
}

/* a tangent hook's derivative s into the tangent model's constant x;
 * nothing when the hook is only asked (x NULL) */
static inline void lw_kind_tangent_add(double *x, double s)
{
  if (x)
    *x += s;
}

/* the tangent hook's part for the fields every force compiles alike
 * (kind_registry.c): stiffness into k, damping into c, rest_length or
 * rest_value into rest, vector/K into vec[K], function/K into the
 * function's coefficient, each with derivative 1 */
int lw_kind_field_tangent(const lw_model *m, int n, const double *field, lw_model *dm);

/* the force's own bodies f->blk (spring-damper, point force) */
int lw_kind_own_blocks(const lw_model *m, const lw_force *f, const int **blk);

/* the kinds' tables */
extern const lw_force_kind lw_kind_spring, lw_kind_joint_spring, lw_kind_point_force, lw_kind_torque,
  lw_kind_pid, lw_kind_state_feedback, lw_kind_beam;

/* the spring-dampers' outputs: length and force */
extern const struct lw_kind_output lw_kind_spring_outputs[2];

/* shared by the controller kinds and the control outputs: the controller's
 * torque tau and its derivative dtau along df (pf: the forces' point) */
void lw_control_jvp(const lw_model *m, const lw_data *d, int n, const lw_lin_point *pf, const lw_lin_dir *df,
                    double *tau, double *dtau);
/* the closed-form linearizations of the spring-dampers (lw_jvp.c, next to
 * the row kinds' closed forms whose scalar machinery they share) */
void lw_joint_sd_lin(const lw_model *m, const lw_data *d, const lw_force *f, const lw_lin_point *p, double cv,
                     const lw_bmat *KC, const lw_bmat *C);
void lw_point_sd_lin(const lw_model *m, const lw_data *d, const lw_force *f, const lw_lin_point *p, double cv,
                     const lw_bmat *KC, const lw_bmat *C);
/* the bodies of a force through its kind (lw_jvp.c and the tests) */
static inline int lw_force_blocks(const lw_model *m, const lw_force *f, const int **blk)
{
  return lw_force_kind_of(f->type)->blocks(m, f, blk);
}

#endif
