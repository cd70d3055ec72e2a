/* lw_kind.h: the interface every kind of force element implements, and the
 * registry that gives a force type's kind.  The solver's loops over the
 * forces (lw_forces_eval, lw_lin_blocks, lw_lin_jvp, the energies and the
 * outputs) call these hooks and never look at the type themselves, so a
 * new kind is one new file here and one line in the registry (lw_kind.c).
 *
 * Shapes: nq = nb nqb generalized coordinates; a force element n touches
 * the bodies blocks() lists (w = nblk nqb local coordinates).  Q, dQ, V and
 * the other outputs are accumulated (+=).  A NULL hook is a quantity the
 * kind does not have (it contributes 0).  Private to src/core. */
#ifndef LW_KIND_H
#define LW_KIND_H

#include "lw_internal.h"

/* What a kind's compile hook works with: the description, the model being
 * built (its bodies, joints and coordinates done), the error to fill and
 * the path of the field a message names.  The lw_build_* helpers
 * (lw_compile.c) resolve names and places as the rest of the compiler
 * does. */
typedef struct lw_kind_build {
  const lw_desc *d;
  lw_model *m;
  lw_error *err;
  const void *ctx;  /* the compiler's own context (bodies' initial frames) */
  int nfb;          /* the controllers' measured coordinates filled so far (m->fbs) */
  char path[256];
} lw_kind_build;

/* -1 with the error (b->path, the message) set */
int lw_build_fail(lw_kind_build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* body index of a name: -1 the ground, -2 none (NULL or unknown) */
int lw_build_body(const lw_kind_build *b, const char *name);
/* a place on body `body` in its local axes; 0, or -1 with the error set at b->path */
int lw_build_place(lw_kind_build *b, int body, const lw_place *pl, double p[3]);
/* the body point p (local) as a vector linear in q, and a - b */
lw_vexpr lw_build_point(const lw_kind_build *b, int body, const double p[3]);
lw_vexpr lw_build_sub(lw_vexpr a, const lw_vexpr *b);
/* the bodies (at most 2) a set of vectors linear in q touches */
void lw_build_blocks(const lw_vexpr *const *es, int n, int *nblk, int *blk);
/* joint coordinate idx of the joint named `joint` into *ci; 0, or -1 with
 * the error ("what: joint ... does not exist", ...) set at b->path */
int lw_build_coord(lw_kind_build *b, const char *joint, int idx, const char *what, int *ci);
/* a time function checked as every other one; 0, or -1 with the error set at b->path */
int lw_build_check_func(lw_kind_build *b, const lw_func *f);
int lw_build_finite(const double *v, int n);

typedef struct lw_force_kind {
  const char *name;

  /* f from its description fd (the fields common to every kind, the
   * values' checks and the function are done): the bodies, points,
   * coordinates and blocks (f->nblk, f->blk) it acts through; 0, or -1
   * with the error set */
  int (*compile)(lw_kind_build *b, const lw_force_desc *fd, lw_force *f);

  /* Q (nq) += the generalized force of f at (q, qd, t); when vals != NULL,
   * vals (the Newton matrix in the model's pattern, m->colptr/rowind) +=
   * ks K + cs C with K = -dQ/dq, C = -dQ/dqd in Gauss-Newton form (the
   * symmetric part only, over f->pairpos) */
  void (*eval)(const lw_model *m, lw_data *d, const lw_force *f, const double *q, const double *qd, double t,
               double *Q, double *vals, double ks, double cs);

  /* the step's linearization of force n at p (pf: p with the forces'
   * velocity argument v in qd): KC += -dQ/dq - cv dQ/dv, C += -dQ/dv, both
   * nq x nq block matrices (NULL: skip) written in the blocks of blocks().
   * lw_force_lin_columns is the generic one, a jvp per local coordinate. */
  void (*lin)(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf, double cv,
              const lw_bmat *KC, const lw_bmat *C);

  /* dQ (nq) += the derivative of force n's Q along a state direction dir
   * (dq, dv; dir->body >= 0: the direction lives in one body) and/or the
   * parameter tangent dir->tg; df: dir with dv in dqd, for the forces'
   * velocity argument.  state: whether dir has a state part. */
  void (*jvp)(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
              const lw_lin_dir *dir, const lw_lin_dir *df, int state, double *dQ);

  /* the bodies whose coordinates Q depends on (*blk: nblk body indices, the
   * derivative columns); 0 for a force independent of the state */
  int (*blocks)(const lw_model *m, const lw_force *f, const int **blk);

  /* potential energy: *V += V_f(q) (NULL: none) */
  void (*potential)(const lw_model *m, lw_data *d, const lw_force *f, const double *q, double *V);
  /* *s += its derivative along dir (dq) and the tangent model tm (NULL: none) */
  void (*potential_jvp)(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                        const lw_lin_dir *dir, double *s);
  /* power the damper takes out at (q, qd), c xd^2 >= 0 (NULL: no damper) */
  double (*damper_power)(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd);

  /* the scalar the element stretches (a length, a coordinate) x and its
   * rate xd at (q, qd), for the outputs; NULL: no such scalar */
  void (*length)(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                 double *x, double *xd);
  /* x, xd at p and their derivatives dx, dxd along dir and tm (NULL: none) */
  void (*length_jvp)(const lw_model *m, const lw_model *tm, lw_data *d, int n, const lw_lin_point *p,
                     const lw_lin_dir *dir, double *x, double *dx, double *xd, double *dxd);

  /* whether the force acts through its joint coordinate f->coord (a
   * parameter that moves the coordinate moves the force) */
  int on_coord;

  /* ---- reserved (NULL in every kind so far) ---- */
  /* DL (nq x nc, column-major, leading dimension ld) += dQ/dlambda: a
   * force that depends on the constraint multipliers (joint friction) */
  void (*dlambda)(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, double *DL, int ld);
  /* an event's guard g(q, qd, t) whose sign change ends a step (contacts) */
  double (*guard)(const lw_model *m, const lw_data *d, const lw_force *f, const double *q, const double *qd,
                  double t);
  /* the state's jump at the event (qd+ from qd-, in place) */
  void (*jump)(const lw_model *m, lw_data *d, const lw_force *f, const double *q, double *qd);
} lw_force_kind;

/* the kind of force type t (NULL for a type without one) */
const lw_force_kind *lw_force_kind_of(lw_force_type t);

/* the generic lin hook: force n's blocks column by column through its jvp
 * hook, one local coordinate at a time (pass 0: dq = e, dv = cv e into KC;
 * pass 1: dv = e into C).  Uses d->r, d->tmp and d->dq as zeroed scratch
 * of nq and leaves them zeroed. */
void lw_force_lin_columns(const lw_model *m, lw_data *d, int n, const lw_lin_point *p, const lw_lin_point *pf,
                          double cv, const lw_bmat *KC, const lw_bmat *C);

/* the kinds (kind_*.c) */
extern const lw_force_kind lw_kind_spring_damper;
extern const lw_force_kind lw_kind_joint_spring_damper;
extern const lw_force_kind lw_kind_point_force;
extern const lw_force_kind lw_kind_torque;
extern const lw_force_kind lw_kind_pid;
extern const lw_force_kind lw_kind_state_feedback;

#endif
