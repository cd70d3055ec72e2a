/* lw_internal.h: the compiled model's and the workspace's layout and the
 * types the core's files share (private to src/core); each file's functions
 * are declared in its own header beside it (la/lw_matrix.h, dyn/lw_rows.h, ...). */
#ifndef LW_INTERNAL_H
#define LW_INTERNAL_H

#include "linkwright.h"

#include <cholmod.h>

#define LW_MAXQB 12 /* coordinates of a 3-D body */
/* a coordinate's body and place within it (i / nqb, i % nqb, i >= 0),
 * without a division for the planar (4) and the spatial body (12) */
static inline int lw_qb_div(int i, int nqb) { return nqb == 4 ? i >> 2 : nqb == 12 ? i / 12 : i / nqb; }
static inline int lw_qb_mod(int i, int nqb) { return nqb == 4 ? i & 3 : nqb == 12 ? i % 12 : i % nqb; }
/* call(N) with N a constant for a few columns or sides (1-6, 8: the
 * compiler unrolls their loops and keeps a row's sums in registers), else
 * with the variable n */
#define LW_FOR_FEW(n, call)                                                                                          \
  switch (n) {                                                                                                     \
  case 1: call(1); break;                                                                                        \
  case 2: call(2); break;                                                                                        \
  case 3: call(3); break;                                                                                        \
  case 4: call(4); break;                                                                                        \
  case 5: call(5); break;                                                                                        \
  case 6: call(6); break;                                                                                        \
  case 8: call(8); break;                                                                                        \
  default: call(n); break;                                                                                       \
  }
/* n sides from side c0 on, call(c0, N) for each chunk: up to 4 times
 * LW_FEW_CHUNK sides go in chunks of it, the rest in one (each of a width
 * LW_FOR_FEW writes out); more sides go at once (the loop over them
 * vectorizes).  c0 is an int variable of the caller, set here. */
#define LW_FEW_CHUNK 8
#define LW_FEW_CHUNKS(n, c0, call)                                                                                   \
  do {                                                                                                             \
    for (c0 = 0; (n) - c0 > LW_FEW_CHUNK && (n) <= 4 * LW_FEW_CHUNK; c0 += LW_FEW_CHUNK)                          \
      call(LW_FEW_CHUNK);                                                                                          \
    LW_FOR_FEW((n) - c0, call)                                                                                     \
  } while (0)

/* A vector linear in q: V = c + sum_t (w0 r0 + w1 u + w2 v + w3 w) over the
 * bodies t (3-D); planar: V = c + sum_t (w0 r0 + w1 u + w2 S u).  Ground
 * contributions are folded into the constant c. */
typedef struct {
  int nterm;
  int body[2];
  double w[2][4];
  double c[3];
} lw_vexpr;

typedef enum {
  LW_ROW_DOT,   /* Phi = a.b - c0 - f(t) */
  LW_ROW_ANGLE, /* Phi = wrap(atan2(a.b, c.d) - c0 - f(t)) */
} lw_row_kind;

typedef enum { LW_OWNER_BODY, LW_OWNER_JOINT, LW_OWNER_DRIVER, LW_OWNER_BEAM } lw_owner_kind;

typedef struct {
  lw_row_kind kind;
  lw_vexpr a, b, c, d;
  double c0;
  int func;         /* driver index or -1 */
  lw_owner_kind owner_kind;
  int owner;
  int nblk;         /* bodies this row touches (1 or 2) */
  int blk[2];       /* body indices */
  int pairpos[3];   /* matrix slots of blocks (0,0), (0,1), (1,1): where their rows start in a column */
} lw_row;

/* A joint coordinate as a function of q (same kinds as the rows). */
typedef struct {
  lw_row_kind kind;
  lw_vexpr a, b, c, d;
  double offset;
  int nblk, blk[2], pairpos[3];
} lw_coord;

/* one measured coordinate of a controller (lw_feedback_desc compiled) */
typedef struct {
  int coord;            /* index into m->coords */
  int force;            /* the controller it belongs to */
  int rate;             /* error of the rate instead of the position */
  double kp, kd, ki;
  lw_func r;            /* target r(t) */
} lw_fb;

#define LW_MAXCBLK 16   /* bodies a controller's coordinates may touch */
/* switches a model may hold: their sides are kept as the bits of one double
 * in the sensitivities' stored states */
#define LW_MAX_SWITCHES 48

typedef struct {
  lw_force_type type;
  int index;            /* element in desc */
  lw_vexpr v;           /* spring: p2 - p1; force: point */
  lw_vexpr p1;          /* spring: p1 (drawing) */
  int body;             /* torque: body */
  int coord;            /* joint spring: index into m->coords */
  double k, c, rest;
  double vec[3];
  lw_func func;
  int nblk, blk[2], pairpos[3];
  /* controllers: actuator coord, feedback m->fbs[fb0 .. fb0 + nfb), and
   * every body the measured and actuated coordinates touch */
  int fb0, nfb;
  int ncblk, cblk[LW_MAXCBLK];
} lw_force;

typedef struct {
  lw_output_type type;
  int width;
  lw_vexpr v;       /* point outputs */
  int coord;        /* joint outputs */
  int force;        /* control: the controller */
  int joint;        /* reaction force: the joint, */
  int rbody;        /* the body the force acts on (body 2, or body 1 when body 2 is the ground) */
  double rsign;     /* +1 on body 2, -1 on body 1 */
  int beam;         /* beam outputs: the beam, */
  double bs;        /* the arc length of the place */
} lw_output;

/* A joint's friction (docs/friction.md sec. 8): the kernel's kind and
 * parameters, the joint's coordinates (their rates are the slips' rates),
 * its equations (their multipliers give the reaction), the body whose
 * reaction is taken (body 1, or body 2 when body 1 is the ground) and the
 * joint's origin and axes on body 2, which carries the bearing. */
typedef struct {
  int joint, kind, nslip, coord0, row0, nrow;
  int body;
  /* the bodies the generalized friction acts on (its slips' gradients'
   * blocks: the coordinates', or a spherical joint's two bodies) and their
   * matrix slots; the joint's body 1 and body 2 (-1: the ground) */
  int nblk, blk[2], pairpos[3];
  int bodies[2];
  lw_vexpr o, x, y, z;
  double p[LW_FRICTION_NPARAMS];
} lw_jfric;

/* an objective term over output `output` (columns col .. col + width) */
typedef struct {
  int output, col, width;
  int comp;            /* -1: all components */
  lw_term_kind kind;
  lw_term_form form;
  double weight, target[3];
} lw_term;

typedef struct {
  int first, n;        /* terms first .. first + n */
} lw_objective;

/* One guard of an event (lw_compile_events.c): a scalar g of the state
 * whose fall through zero (dir < 0), rise (dir > 0) or either (0) is the
 * event.  CONTACT: g = n.p(q) - offset, p the body point v; JOINT_LIMIT:
 * g = x(q) - lower (side -1) or upper - x(q) (side +1), x joint
 * coordinate coord; GUARD: g = y - value, y the scalar `col` of the outputs
 * (output `output`).  A joint limit with two bounds is two guards. */
typedef struct {
  int event;            /* index into desc->events */
  lw_event_type type;
  int dir;              /* the crossing that fires */
  int side;             /* limit: -1 lower, +1 upper */
  lw_vexpr v;           /* contact: the point */
  double n[3];          /* contact: the unit normal */
  double offset;        /* contact: offset + radius; limit: the bound; guard: the value */
  int coord;            /* limit: index into m->coords */
  int output, col;      /* guard */
  double e, rest_speed; /* restitution, speed ending the bouncing (0: |g| x step) */
  int force, sw;        /* switch: the force it switches, its index among the switches */
} lw_guard;

/* A flexible beam compiled (docs/core.md, Beams): its nel elements are the
 * blocks blk0 .. blk0 + nel, each [r_i, r_i', r_j, r_j'] (4 nd
 * coordinates), joined node to node by rows; element k spans the arc
 * length [k l, (k + 1) l] of the undeformed line start + s dir. */
typedef struct {
  int blk0, nel;
  int row0;             /* its rows joining the elements: row0 .. row0 + 2 nd (nel - 1) */
  int force0;           /* its elements' forces force0 .. force0 + nel */
  double L, l;          /* length, element length */
  double start[3], dir[3];
  double EA, EI, rhoA, eta;
} lw_beam;

/* the cubic Hermite shape functions of a beam element of length l at
 * xi = x / l in [0, 1]: s (the weights of r_i, r_i', r_j, r_j'), their
 * first and second derivatives in x (each may be NULL) */
static inline void lw_beam_shape(double xi, double l, double *s, double *ds, double *dds)
{
  double x2 = xi * xi, x3 = x2 * xi;
  if (s) {
    s[0] = 1 - 3 * x2 + 2 * x3;
    s[1] = l * (xi - 2 * x2 + x3);
    s[2] = 3 * x2 - 2 * x3;
    s[3] = l * (x3 - x2);
  }
  if (ds) {
    ds[0] = (-6 * xi + 6 * x2) / l;
    ds[1] = 1 - 4 * xi + 3 * x2;
    ds[2] = (6 * xi - 6 * x2) / l;
    ds[3] = 3 * x2 - 2 * xi;
  }
  if (dds) {
    dds[0] = (-6 + 12 * xi) / (l * l);
    dds[1] = (-4 + 6 * xi) / l;
    dds[2] = (6 - 12 * xi) / (l * l);
    dds[3] = (6 * xi - 2) / l;
  }
}

/* the beam of a reference code (lw_cc_body_index: -3 - beam) */
static inline int lw_beam_of_ref(int b) { return -3 - b; }
static inline int lw_is_beam_ref(int b) { return b <= -3; }

struct lw_integrator;

struct lw_model {
  lw_desc *desc;        /* compiled copy, parameters applied */
  /* the solver options (the description's solver section, parameters
   * applied; lw_model_set_opt) and the integrator they name
   * (integ/lw_integrator.h): what the step, the initialization and the
   * sensitivities read, nothing compiled depends on them */
  lw_opt opt;
  const struct lw_integrator *integ;
  int nguards;
  lw_guard *guards;     /* (nguards) the events' guards */
  int nswitches;        /* guards of type LW_EVENT_SWITCH (at most LW_MAX_SWITCHES) */
  int planar;
  int nd;               /* space dimension: 2 or 3 */
  /* the coordinates as blocks, one a body: block b is q[blk_off[b] ..
   * blk_off[b] + blk_n[b]) (blk_off[nb] = nq), its mass block the
   * column-major blk_n[b] x blk_n[b] at mass_blocks + mblk_off[b] (packed;
   * mblk_off[nb] is their total) */
  int nqb;              /* the size every block shares (4 planar, 12 spatial), else 0 */
  int nqbmax;           /* the largest block */
  int wrow;             /* a row gradient's stride in d->jac: 2 nqbmax */
  int *blk_n, *blk_off; /* (nb), (nb + 1) */
  size_t *mblk_off;     /* (nb + 1) */
  int nb, nq, nc;
  /* the description's bodies are blocks 0 .. nbd; the beams' elements follow */
  int nbd;
  int nbeams;
  lw_beam *beams;       /* (nbeams) */
  double *q0;           /* (nq) initial guess from the description */
  double *qd0;          /* (nq) */
  double *mass_blocks;  /* (mblk_off[nb]) column-major body blocks */
  double *qgrav;        /* (nq) constant generalized gravity force */
  double *body_mass;    /* (nb) */
  lw_row *rows;         /* (nc) */
  int *joint_row0;      /* (njoints+1) first row of each joint's equations */
  int ncoords;
  lw_coord *coords;     /* every joint coordinate */
  int *joint_coord0;    /* (njoints+1) */
  int njoints;
  lw_vexpr *joint_o;    /* (njoints) joint frame origin on body 1 (drawing) */
  lw_vexpr *joint_z;    /* (njoints) joint axis on body 1 (drawing) */
  int nfric;            /* joints with friction */
  lw_jfric *fric;       /* (nfric) */
  int *joint_fric;      /* (njoints) the joint's friction element, -1: none */
  int nforces;
  lw_force *forces;
  int ndampers;         /* spring-dampers and joint spring-dampers with c != 0 */
  int napplied;         /* forces that store no energy and are no dampers (force, torque,
                           controllers), plus the drivers: those lw_applied_power reads */
  int nfbs;
  lw_fb *fbs;           /* controllers' measured coordinates */
  int ninit;
  int *init_coord;      /* (ninit) coordinate index */
  double *init_value, *init_vel;
  int *init_has_value, *init_has_vel;
  int nout, ncols;
  lw_output *outputs;
  lw_func *drivers;     /* (ndrivers) */
  int ndrivers;
  int *out_col;         /* (nout) first column of each output */
  int nobj, nterms;
  lw_objective *objs;   /* (nobj) */
  lw_term *terms;       /* (nterms) */
  /* symmetric block-sparse pattern, upper triangle, CSC */
  int *adj_ptr, *adj;   /* per body: coupled bodies <= it, sorted */
  int *adj_row;         /* per entry of adj: where its rows start in a column of the block column */
  int *colptr, *rowind; /* (nq+1), (nnz) */
  int nnz;
  double *mass_csc;     /* (nnz) M in the pattern */
  int dense;            /* solve densely with LAPACK */
  double mass_scale;    /* largest diagonal entry of M */
  double mass_min;      /* smallest diagonal entry of M */
  double *minv_blocks;  /* (mblk_off[nb]) inverses of the mass blocks */
  /* the products making S = J M^-1 J^T (dense models): the pairs of
   * equations (r <= c) and the body they share, as quadruples (entry (c, r)
   * of S, in its lower triangle; offset of r's gradient block in the
   * Jacobian; the same for c in W = M^-1 J^T; entry (r, c)) */
  int nspair;
  int *spair;
  int *spair_n;         /* (nspair) the size of the shared body's block */
  double minv_cond;     /* largest condition number (1-norm) of a mass block */
  /* the constant Hessians of the DOT rows: row r's nonzero entries
   * rh_ptr[r] .. rh_ptr[r + 1] at local coordinates (rh_ij[2k], rh_ij[2k+1])
   * of its w = nblk nqb (both triangles), values rh_v */
  int *rh_ptr, *rh_ij;
  double *rh_v;
  /* the same for the joint coordinates' scalars (lw_coord: a.b, and c.d of
   * an angle): coordinate k's entries ch_ptr[k] .. ch_ptr[k + 1] at local
   * coordinates (ch_ij[2n], ch_ij[2n+1]), values ch_v[2n] (of a.b) and
   * ch_v[2n+1] (of c.d) */
  int *ch_ptr, *ch_ij;
  double *ch_v;
  /* the step's linearization couples bodies (a force between two bodies,
   * an angle row or a bilinear row across two): its matrices then need an
   * off-diagonal part (lw_bmat.off) */
  int lin_coupled;
  /* each row's blocks as the first coordinate of each (the second -1 for a
   * row on one body), for the row products */
  int *rq0;
  /* the gradients of the rows whose gradient is constant (a DOT row one of
   * whose vectors is constant: joints to the ground, the joins of a beam's
   * elements), made once as lw_rows_eval would make them: row r's at
   * row_grad + r wrow where row_gconst[r] (NULL: none kept) */
  unsigned char *row_gconst;
  double *row_grad;
  /* Those rows are affine in q (compile/lw_hess.c, affine_rows).  Their
   * gradients' nonzero entries: row r's gz_ptr[r] .. gz_ptr[r + 1], at
   * place gz_loc[e] of the row's gradient and coordinate gz_q[e], in the
   * order of the places (an empty range for the other rows).  Their value
   * as dot_value sums it, without its products by zero (the same to the
   * bit, up to the sign of a zero): row r's components af_ptr[r] ..
   * af_ptr[r + 1] where the constant vector's entry af_cb[k] is not zero,
   * each with the linear vector's constant af_c[k] and its terms
   * af_gptr[k] .. af_gptr[k + 1], term g the products af_eptr[g] ..
   * af_eptr[g + 1] of coordinate af_q[e] by af_w[e] */
  int *gz_ptr, *gz_loc, *gz_q;
  /* each row's constant c0 and driver (rows[r].c0, .func) packed, for
   * the affine rows' evaluation; and the runs of the other rows,
   * [var_runs[2k], var_runs[2k + 1]) for k < nvar_runs: the part of a set
   * of gradients that lw_grad_copy copies once the affine rows are there */
  double *af_c0;
  int *af_func;
  int nvar_runs, *var_runs;
  /* this compiled model's number among those made by this process (a
   * shallow copy keeps it): what a set of gradients filled with its
   * affine rows is marked with */
  unsigned long serial;
  /* and s g g^T's additions to the Newton matrix's values as
   * lw_mat_add_outer makes them: row r's op_ptr[r] .. op_ptr[r + 1], each
   * vals[op_pos[e]] += (s g[op_a[e]]) g[op_b[e]] */
  int *op_ptr, *op_pos, *op_a, *op_b;
  int *af_ptr, *af_gptr, *af_eptr, *af_q;
  double *af_cb, *af_c, *af_w;
};

/* Block sizes in kernels: a kernel written for a block size N takes N as a
 * constant (4, 12: its loops unroll) and reads the sizes from the model when
 * N is 0 (blocks of mixed sizes).  Block b's size and offsets, the place of
 * block k of an element's blocks blk in its local gradient, and the body and
 * global coordinate of its local coordinate i. */
static inline int lw_bn(const lw_model *m, int b, const int N) { return N ? N : m->blk_n[b]; }
static inline int lw_boff(const lw_model *m, int b, const int N) { return N ? b * N : m->blk_off[b]; }
static inline size_t lw_mboff(const lw_model *m, int b, const int N)
{
  return N ? (size_t)b * N * N : m->mblk_off[b];
}
static inline int lw_loc(const lw_model *m, const int *blk, int k, const int N)
{
  if (N)
    return k * N;
  int o = 0;
  for (int j = 0; j < k; j++)
    o += m->blk_n[blk[j]];
  return o;
}
/* local coordinate i of the blocks blk: its block k (returned) and place j */
static inline int lw_loc_split(const lw_model *m, const int *blk, int i, const int N, int *j)
{
  if (N) {
    *j = lw_qb_mod(i, N);
    return lw_qb_div(i, N);
  }
  int k = 0;
  while (i >= m->blk_n[blk[k]])
    i -= m->blk_n[blk[k++]];
  *j = i;
  return k;
}
static inline int lw_loc_global(const lw_model *m, const int *blk, int i, const int N)
{
  int j, k = lw_loc_split(m, blk, i, N, &j);
  return lw_boff(m, blk[k], N) + j;
}
/* the size of row r's block k (0 past its blocks) */
static inline int lw_row_bn(const lw_model *m, int r, int k, const int N)
{
  if (N)
    return N;
  return k < m->rows[r].nblk ? m->blk_n[m->rows[r].blk[k]] : 0;
}
/* the width of an element's local gradient over its blocks */
static inline int lw_loc_width(const lw_model *m, int nblk, const int *blk, const int N)
{
  return lw_loc(m, blk, nblk, N);
}
/* whether body b is a point mass (its position alone): in a model of one
 * block size, whether that size is the space's dimension */
static inline int lw_is_point(const lw_model *m, int b)
{
  return m->nqb ? m->nqb == m->nd : m->blk_n[b] == m->nd;
}
/* the body of global coordinate i */
static inline int lw_body_of(const lw_model *m, int i)
{
  if (m->nqb)
    return lw_qb_div(i, m->nqb);
  int b = 0;
  while (i >= m->blk_off[b + 1])
    b++;
  return b;
}

/* an nq x nq matrix of the step's linearization: the bodies' diagonal blocks
 * (packed like the mass blocks, column-major) and, for models whose linearization couples
 * bodies (m->lin_coupled), the entries between bodies in a dense nq x nq
 * (column-major; NULL otherwise) */
typedef struct {
  double *blk;
  double *off;
} lw_bmat;

/* linear solver for symmetric positive definite matrices in the pattern */
typedef struct {
  int n, dense;
  double *a;            /* dense: n x n column-major */
  cholmod_common cc;
  cholmod_sparse A;
  cholmod_factor *L;
  int started;
  /* fill-reducing order applied by us, so that CHOLMOD factorizes in its
   * natural order and allocates nothing per factorization */
  int *pinv;            /* (n) new index of coordinate i */
  int *pmap;            /* (nnz) position of each entry in the permuted matrix
                         * (banded: in ab) */
  int *pcolptr, *prowind;
  double *pvals, *px;   /* (nnz), (n) */
  /* banded: the pattern in its natural order lies within bw of the
   * diagonal, few enough entries that a band Cholesky beats CHOLMOD's
   * (a beam's elements in a row); ab holds the lower band by columns,
   * L(i, j) at ab[j (bw + 1) + i - j], with the reciprocal pivots;
   * last[j] the last column whose entries reach up to row j (the
   * envelope: column j of L has no entry below row last[j]) */
  int band, bw;
  double *ab;
  int *last;
} lw_spd;

struct lw_data {
  double t;
  double t0;   /* time of the last initialization or state change */
  long nstep;  /* steps since t0: t = t0 + nstep h without drift */
  double h;    /* the length of those steps (0: none taken yet) */
  double *q, *qd, *qdd, *lambda;     /* (nq) (nq) (nq) (nc) */
  double *normal_force;              /* (nguards) a resting guard's normal force, 0 when free (lw_events.c) */
  /* switches (lw_forces.c): whether each switch's point is on its plane's
   * negative side, and so whether each force is off */
  unsigned char *sw_in;              /* (nswitches) */
  unsigned char *force_off;          /* (nforces) */
  double *qn, *qdn, *qddn;           /* previous step */
  double *qhat_d, *qhat_dd;          /* Newmark history terms */
  /* the generalized-alpha pseudo-acceleration a (nq; rho_inf < 1,
   * dyn/lw_newmark.h), valid for the state at t0 + acc_nstep h of steps
   * acc_h: a state set or restored otherwise starts it again from qdd */
  double *acc;
  double acc_t0, acc_h;
  long acc_nstep;
  double *phi, *phit, *gam;          /* (nc) */
  double *jac;                       /* (nc x wrow) row gradients, contiguous over the row's blocks */
  /* the buffer jac pointed to and the model's serial when lw_rows_eval
   * last wrote the affine rows' constant gradients into it: there they
   * are not written again (jac_aff_buf NULL: unknown) */
  const double *jac_aff_buf;
  unsigned long jac_aff_serial;
  double *Q;                         /* (nq) generalized forces */
  double *r, *dq, *tmp, *tmp2;       /* (nq) */
  double *vals;                      /* (nnz) assembled matrix */
  double *coord_prev;                /* (ncoords) for angle unwrapping */
  /* controllers' integral action, per measured coordinate m->fbs[i]: the
   * integral z of the error e, and the controller's integral term
   * fbc[i] + fb_beta e(q, qd, t).  At a state fbc = z and fb_beta = 0; within
   * a step fbc = z_n + h/2 e_n and fb_beta = h/2, so that the converged step
   * has z_n+1 = z_n + h/2 (e_n + e_n+1) (trapezoidal rule). */
  double *fbz, *fbc;                 /* (nfbs) */
  double *fbcs;                      /* (nfbs) fbc of the last step */
  double fb_beta;
  /* energy the dampers took out since the last initialization or state
   * change: the trapezoidal sum of h/2 (P_n + P_n+1) over the steps, P the
   * damper power lw_damper_power (LW_OUT_DISSIPATED_ENERGY) */
  double dissipated;
  /* work the applied forces and torques, controllers and drivers did over
   * the same span (lw_applied_power by the trapezoidal rule; the
   * LW_OUT_APPLIED_WORK output), and (nq + 2 nc) for it: a scratch, the
   * drivers' multipliers at a step's start and the last acceleration
   * projection's multipliers (ali3p_step.c) */
  double applied_work;
  double *qa;
  /* (2 nfric + 2 nc) the work each joint's friction took out over the same
   * span (included in dissipated), then the scratch of a step: its works
   * (nfric), the multipliers at its start and those friction reads (nc
   * each) */
  double *fric_work;
  /* kap holds the last step's acceleration-projection multipliers, so that
   * lambda + kap is the multiplier consistent with the projected
   * acceleration (friction reads its reaction there); reset with the state */
  int fric_kap_ok;
  /* the generalized friction's terms Q_k G_k at the state the last step
   * ended in (lw_joint_friction_terms), then that state's q, qd and the
   * multipliers friction read (nq, nq, nc): the next step's friction work
   * starts from them when it starts from that state; valid when
   * fric_terms_ok */
  double *fric_terms;
  int fric_terms_ok;
  /* dense models with friction: the step's exact Newton matrix, LU-factored
   * (nq x nq, column-major), then 3 nq + nc of scratch, and its pivots (nq)
   * (docs/friction.md sec. 8.4 (b)) */
  double *fric_lu;
  int *fric_piv;
  lw_spd solver;
  /* exact projections of dense models: S = J M^-1 J^T (nc x nc), W = M^-1 J^T rows */
  double *S, *W;
  int schur_ok; /* S and W hold the factors at the step's final state */
  /* the multipliers of the exact velocity and acceleration projections of
   * the last step (when schur_ok) */
  double *sig, *kap;
  int dof;
  int ncoords;
  /* scratch of an integrator other than ALI3-P, made by its first step
   * (or by lw_data_new when the model names it) and freed with the data */
  double *integ_work;
  int *integ_iwork;
  /* the variational step's two sets of gradients in integ_work (at q_n,
   * and of the factorized matrix): lw_grad_copy's marks */
  unsigned long vi_grad_mark[2];
  /* the banded saddle's Newton factorization (lw_saddle's lu) was made by
   * the step that ended at vi_newton_t, of length vi_newton_h, for the
   * model of serial vi_newton_serial (0: none to take over) */
  double vi_newton_t, vi_newton_h;
  unsigned long vi_newton_serial;
  /* the variational step's sparse saddle-point factorization (sparse
   * models with rows; la/lw_saddle.h), made by its first step */
  struct lw_saddle *saddle;
  /* an external force (global axes, constant over a step) on body
   * perturb_body (-1: none) at the body-fixed point perturb_p */
  int perturb_body;
  double perturb_p[3], perturb_f[3];
};

/* derivative of the compiled constants with respect to one parameter */
typedef struct {
  lw_model *dm;        /* same layout as the model; numbers are derivatives */
  char *row_on, *force_on, *body_on, *coord_on, *out_on, *term_on; /* nonzero parts */
  /* of those, the rows whose vectors move (not only their constant or
   * driver), the forces whose vector v moves: along the parameter alone a
   * row without is its constant's derivative, a spring without needs no
   * derivative of its vector */
  char *row_vx_on, *force_vx_on;
  char *fric_on; /* joint friction elements whose parameters or frame move */
  int grav_on, init_on, any;
  /* the parameter moves a rigid body's placement, the initial guess of the
   * assembly; guess_only: nothing else (it reaches the run only where the
   * assembly leaves the guess free: sens_initial.c) */
  int guess_on, guess_only;
  /* a parameter bound only to one coefficient of one time function (a spline
   * value, say): fn_kind 1 (force) or 2 (driver), the element, the
   * coefficient and the derivative's scale (1: bound there twice, it still
   * holds the value once); dm is then a shared model of zeros (shared_dm)
   * and the function's derivative is taken directly */
  int fn_kind, fn_index, fn_coef;  /* fn_coef LW_FN_TIME: the time itself */
  double fn_scale;
  double fn_lo, fn_hi; /* outside [fn_lo, fn_hi] the coefficient has no effect */
  int shared_dm;
} lw_tangent;
/* a function tangent's coefficient that stands for the time: the
 * derivative of the equations with respect to t through that function */
#define LW_FN_TIME (-1)

/* the point of linearization */
typedef struct {
  const double *q;     /* positions */
  const double *v;     /* velocity argument of the forces Q(q, v, t) */
  const double *qd;    /* velocity of the constraint rates J qd + Phi_t */
  const double *qdd;   /* acceleration of J qdd + gamma(q, qd) */
  const double *l[3];  /* multipliers of J^T l (may be NULL when unused) */
  double t;
} lw_lin_point;

/* a direction: state perturbations (NULL = 0) and/or a parameter */
typedef struct {
  const double *dq, *dv, *dqd, *dqdd, *dl;
  const lw_tangent *tg;
  int body;            /* >= 0: the state perturbation lives in this body only */
} lw_lin_dir;

/* what to differentiate (NULL = not wanted); every output is overwritten */
typedef struct {
  double *dQ;          /* (nq) Q(q, v, t) */
  double *dJl[3];      /* (nq) J(q)^T l_k */
  double *dphi;        /* (nc) Phi(q, t) */
  double *dvel;        /* (nc) J qd + Phi_t */
  double *dacc;        /* (nc) J qdd + gamma(q, qd, t) */
} lw_lin_out;

#endif
