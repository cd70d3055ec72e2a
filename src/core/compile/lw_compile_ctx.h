/* lw_compile_ctx.h: the compilation's context and the helpers it shares
 * with the kinds' compile hooks (lw_compile_ctx.c). */
#ifndef LW_COMPILE_CTX_H
#define LW_COMPILE_CTX_H

#include "lw_internal.h"

/* names sorted (with their indices, ties by index) for lookups in log
 * time: a generated chain brings ten thousand bodies and joints */
typedef struct {
  const char *name;
  int i;
} lw_cc_named;
typedef struct {
  lw_cc_named *e; /* NULL: not built, lookups go through the description */
  int n;
} lw_cc_names;

/* the compilation as a kind's compile hook sees it (lw_compile.c) */
typedef struct lw_compile_ctx {
  const lw_desc *d; /* the description (parameters applied) */
  lw_model *m;      /* the model so far: bodies, rows and joint coordinates done */
  double *R;        /* (nb x 9) initial rotations */
  int nfb;          /* controllers' measures m->fbs taken so far */
  lw_cc_names body_names, joint_names; /* the description's, once built */
} lw_compile_ctx;

/* the index of the description's body (joint) names into c; 0, or -1
 * without memory */
int lw_cc_index_bodies(lw_compile_ctx *c);
int lw_cc_index_joints(lw_compile_ctx *c);
void lw_cc_names_free(lw_compile_ctx *c);
/* the first index with that name, -1 when none has it */
int lw_cc_names_find(const lw_cc_names *ix, const char *name);

/* body index of a name: -1 ground, -2 missing, -3 - k beam k (lw_is_beam_ref) */
int lw_cc_body(const lw_compile_ctx *c, const char *name);
/* a point of body b (a place: coordinates or a named point) as a vector
 * linear in q; -1 with err set (at path) when it does not resolve */
int lw_cc_point(const lw_compile_ctx *c, int b, const lw_place *pl, const char *path, lw_vexpr *v, lw_error *err);
lw_vexpr lw_cc_sub(lw_vexpr a, const lw_vexpr *b); /* a - b */
/* the bodies the vectors es[0 .. n) touch */
void lw_cc_blocks(const lw_vexpr *const *es, int n, int *nblk, int *blk);
int lw_cc_check_func(const lw_func *f, const char *path, lw_error *err);
int lw_cc_finite(const double *v, int n);
/* coordinate idx of joint jname into *out (m->coords); -1 with err set */
int lw_cc_coord(const lw_compile_ctx *c, const char *jname, int idx, const char *what, const char *path, int *out,
                lw_error *err);
/* a body's index by name in the description: -1 ground, -2 missing, -3 - k beam k */
int lw_cc_body_index(const lw_desc *d, const char *name);
/* the coordinate of force's measure k when it is a distance ("between"):
 * they follow the joints' coordinates in the order of forces and measures */
int lw_cc_measure_coord(const lw_compile_ctx *c, int force, int k);
/* the point (slope 0) or the slope (slope 1) of beam k at arc length x as a vector linear in q */
lw_vexpr lw_cc_vx_beam(const lw_model *m, int k, double x, int slope);
/* the point p (body-local) of body b (the ground: p itself; a beam, -3 - k:
 * its point at arc length p[0]) as a vector linear in q */
lw_vexpr lw_cc_vx_point(const lw_model *m, int b, const double *p);
/* global coordinates g (a point or, is_point = 0, a direction) in body b's initial frame */
void lw_cc_to_local(const lw_compile_ctx *c, int b, const double *g, int is_point, double *l);
/* a place on body b as body-local coordinates p, and the frame it names
 * (NULL: none); 0, or -1 with err set at path */
int lw_cc_resolve_place(const lw_compile_ctx *c, int b, const lw_place *pl, const char *path, double *p,
                        const lw_frame_desc **frame, lw_error *err);

/* the events' guards m->guards (lw_compile_events.c; after the outputs and
 * the joint coordinates); 0, or -1 with err set at the event's field */
int lw_compile_events(lw_compile_ctx *c, lw_error *err);
/* the derivative of body b's compiled mass block and generalized gravity
 * (from m->desc: its mass, centre of mass, inertia and the gravity) along
 * the direction dmass, dcom (3), dinertia (6, as bodies/B/inertia),
 * dgrav (3): added into dM (nqb x nqb, column-major, m->mass_blocks'
 * layout) and dQ (nqb, m->qgrav's).  Exact: the block is linear in the
 * mass and the inertia and quadratic in the centre of mass, the gravity
 * force bilinear in mass x gravity and the centre of mass. */
void lw_body_tangent(const lw_model *m, int b, double dmass, const double *dcom, const double *dinertia,
                     const double *dgrav, double *dM, double *dQ);
/* the same for beam element block b along d(rho A) and dgrav (3): its
 * mass block and gravity force, linear in both */
void lw_beam_tangent(const lw_model *m, int b, double drhoA, const double *dgrav, double *dM, double *dQ);
/* lw_compile_friction.c: joint ji's friction element (when it has one) from
 * its bodies bi, its frame on body 1 (O, X, Y, Z), its equations row0 ..
 * row0 + nrow and its coordinates from coord0; 0, or -1 with err set at
 * the joint's friction */
int lw_cc_joint_friction(lw_model *m, const lw_desc *d, int ji, const int bi[2], const lw_vexpr *O,
                         const lw_vexpr *X, const lw_vexpr *Y, const lw_vexpr *Z, int row0, int nrow, int coord0,
                         lw_error *err);

#endif
