/* lw_compile.c: validate a description and compile it to natural
 * coordinates: constant mass blocks, constraint equations, forces, joint
 * coordinates, outputs and the sparsity pattern. */
#include "compile/lw_compile.h"
#include "lw_internal.h"
#include "compile/lw_hess.h"
#include "compile/lw_model.h"
#include "compile/lw_vexpr.h"
#include "la/lw_matrix.h"
#include "model/lw_error.h"
#include "kind/lw_kind.h"
#include "lw_compile_ctx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define KFAIL_B(path, ...)                                                                         \
  do {                                                                                             \
    lw_set_error(err, LW_ERR_MODEL, path, NAN, __VA_ARGS__);                                       \
    return -1;                                                                                     \
  } while (0)
#define FAIL(path, ...)                                                                            \
  do {                                                                                             \
    lw_set_error(err, LW_ERR_MODEL, path, NAN, __VA_ARGS__);                                       \
    goto fail;                                                                                     \
  } while (0)


static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static void cross3(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void quat_to_rot(const double *q, double *R)
{
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  /* R[3*i+j], columns are the body axes */
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}

/* 3x3 symmetric positive definiteness by Cholesky */
static int spd3(const double A[3][3])
{
  double l00 = A[0][0];
  if (!(l00 > 0)) return 0;
  l00 = sqrt(l00);
  double l10 = A[1][0] / l00, l20 = A[2][0] / l00;
  double d1 = A[1][1] - l10 * l10;
  if (!(d1 > 0)) return 0;
  double l11 = sqrt(d1);
  double l21 = (A[2][1] - l20 * l10) / l11;
  double d2 = A[2][2] - l20 * l20 - l21 * l21;
  return d2 > 0;
}

typedef lw_compile_ctx ctx;



static lw_vexpr vx_vector(const lw_model *m, int b, const double *a)
{
  lw_vexpr e = lw_cc_vx_point(m, b, a);
  if (b >= 0)
    e.w[0][0] = 0.0;
  return e;
}

static lw_vexpr vx_const(const double *c)
{
  lw_vexpr e;
  memset(&e, 0, sizeof e);
  memcpy(e.c, c, sizeof e.c);
  return e;
}



/* ---- pattern ---------------------------------------------------------- */
typedef struct {
  int n, cap;
  int (*p)[2];
} pairset;

static void pair_add(pairset *s, int a, int b)
{
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->p = realloc(s->p, sizeof *s->p * (size_t)s->cap);
  }
  s->p[s->n][0] = a;
  s->p[s->n][1] = b;
  s->n++;
}

static int pair_cmp(const void *x, const void *y)
{
  const int *a = x, *b = y;
  if (a[1] != b[1])
    return a[1] - b[1];
  return a[0] - b[0];
}

static void build_pattern(lw_model *m, pairset *ps)
{
  for (int b = 0; b < m->nb; b++)
    pair_add(ps, b, b);
  qsort(ps->p, (size_t)ps->n, sizeof *ps->p, pair_cmp);
  int k = 0;
  for (int i = 0; i < ps->n; i++)
    if (k == 0 || ps->p[i][0] != ps->p[k - 1][0] || ps->p[i][1] != ps->p[k - 1][1])
      memcpy(ps->p[k++], ps->p[i], sizeof ps->p[0]);
  ps->n = k;
  m->adj_ptr = calloc((size_t)m->nb + 1, sizeof(int));
  m->adj = malloc(sizeof(int) * (size_t)k);
  for (int i = 0; i < k; i++) {
    m->adj[i] = ps->p[i][0];
    m->adj_ptr[ps->p[i][1] + 1]++;
  }
  for (int b = 0; b < m->nb; b++)
    m->adj_ptr[b + 1] += m->adj_ptr[b];
  /* a block column's entries: the blocks above it whole, its own diagonal
   * block's upper triangle */
  m->adj_row = malloc(sizeof(int) * ((size_t)k + 1));
  m->colptr = malloc(sizeof(int) * ((size_t)m->nq + 1));
  m->colptr[0] = 0;
  for (int bj = 0; bj < m->nb; bj++) {
    int above = 0;
    for (int a = m->adj_ptr[bj]; a < m->adj_ptr[bj + 1]; a++) {
      m->adj_row[a] = above;
      above += m->adj[a] == bj ? 0 : m->blk_n[m->adj[a]];
    }
    for (int kc = 0; kc < m->blk_n[bj]; kc++) {
      int c = m->blk_off[bj] + kc;
      m->colptr[c + 1] = m->colptr[c] + above + kc + 1;
    }
  }
  m->nnz = m->colptr[m->nq];
  m->rowind = malloc(sizeof(int) * (size_t)m->nnz);
  for (int bj = 0; bj < m->nb; bj++)
    for (int kc = 0; kc < m->blk_n[bj]; kc++) {
      int p = m->colptr[m->blk_off[bj] + kc];
      for (int a = m->adj_ptr[bj]; a < m->adj_ptr[bj + 1]; a++) {
        int bi = m->adj[a];
        int kmax = bi == bj ? kc + 1 : m->blk_n[bi];
        for (int kr = 0; kr < kmax; kr++)
          m->rowind[p++] = m->blk_off[bi] + kr;
      }
    }
}

/* where block row bi starts in a column of block column bj (bi <= bj), or -1 */
static int pattern_row(const lw_model *m, int bi, int bj)
{
  int pos = lw_pattern_pos(m, bi, bj);
  return pos < 0 ? -1 : m->adj_row[m->adj_ptr[bj] + pos];
}

static void set_pairpos(const lw_model *m, int nblk, const int *blk, int *pp)
{
  pp[0] = nblk > 0 ? pattern_row(m, blk[0], blk[0]) : -1;
  pp[1] = nblk > 1 ? pattern_row(m, blk[0], blk[1]) : -1;
  pp[2] = nblk > 1 ? pattern_row(m, blk[1], blk[1]) : -1;
}

/* ---- joint frames --------------------------------------------------- */
typedef struct {
  double o[3], x[3], y[3], z[3]; /* local to its body */
} jframe;





static int unit_perp(double *x, const double *z)
{
  double d = x[0] * z[0] + x[1] * z[1] + x[2] * z[2];
  for (int i = 0; i < 3; i++)
    x[i] -= d * z[i];
  double n = norm3(x);
  if (n < 1e-9)
    return -1;
  for (int i = 0; i < 3; i++)
    x[i] /= n;
  return 0;
}

static void any_perp(const double *z, double *x)
{
  double e[3] = {1, 0, 0};
  if (fabs(z[0]) > 0.8) {
    e[0] = 0;
    e[1] = 1;
  }
  memcpy(x, e, sizeof e);
  unit_perp(x, z);
}

static int joint_frames(const ctx *c, const lw_joint_desc *j, int bi[2], jframe f[2], lw_error *err)
{
  const lw_model *m = c->m;
  char path[200];
  for (int k = 0; k < 2; k++) {
    const lw_frame_desc *fr = NULL;
    snprintf(path, sizeof path, "joints/%s/point%d", j->name, k + 1);
    if (j->has_place[k] || j->place[k].ref) {
      if (lw_cc_resolve_place(c, bi[k], &j->place[k], path, f[k].o, &fr, err))
        return -1;
    } else if (j->has_at) {
      lw_cc_to_local(c, bi[k], j->at, 1, f[k].o);
    } else {
      lw_set_error(err, LW_ERR_MODEL, path, NAN,
                   "joint '%s' has no location: give \"at\" (global) or \"point%d\"", j->name, k + 1);
      return -1;
    }
    if (!lw_cc_finite(f[k].o, 3)) {
      lw_set_error(err, LW_ERR_MODEL, path, NAN, "not a finite number");
      return -1;
    }
    if (m->planar) {
      f[k].o[2] = 0;
      double a = j->angle[k];
      if (fr)
        a += fr->angle;
      f[k].x[0] = cos(a);
      f[k].x[1] = sin(a);
      f[k].x[2] = 0;
      f[k].y[0] = -f[k].x[1];
      f[k].y[1] = f[k].x[0];
      f[k].y[2] = 0;
      f[k].z[0] = f[k].z[1] = 0;
      f[k].z[2] = 1;
      continue;
    }
    /* axis */
    double z[3] = {0, 0, 1};
    int universal2 = j->type == LW_JOINT_UNIVERSAL && k == 1;
    snprintf(path, sizeof path, "joints/%s/axis%d", j->name, k + 1);
    if (j->has_axis[k])
      memcpy(z, j->axis[k], sizeof z);
    else if (fr)
      memcpy(z, fr->axis, sizeof z);
    else if (universal2 && j->has_gaxis2)
      lw_cc_to_local(c, bi[k], j->gaxis2, 0, z);
    else if (universal2) {
      lw_set_error(err, LW_ERR_MODEL, path, NAN,
                   "a universal joint needs its second axis: give \"second_axis\" (global) or \"axis2\" (local to body 2)");
      return -1;
    } else if (j->has_gaxis)
      lw_cc_to_local(c, bi[k], j->gaxis, 0, z);
    else if (k == 1 && j->has_axis[0]) {
      /* same global direction as the first body's axis at the initial pose */
      double g[3];
      const double *R = bi[0] >= 0 ? c->R + 9 * bi[0] : NULL;
      for (int i = 0; i < 3; i++)
        g[i] = R ? R[3 * i] * j->axis[0][0] + R[3 * i + 1] * j->axis[0][1] + R[3 * i + 2] * j->axis[0][2]
                 : j->axis[0][i];
      lw_cc_to_local(c, bi[k], g, 0, z);
    } else {
      double g[3] = {0, 0, 1};
      lw_cc_to_local(c, bi[k], g, 0, z);
    }
    double n = norm3(z);
    if (!(n > 1e-12) || !lw_cc_finite(z, 3)) {
      lw_set_error(err, LW_ERR_MODEL, path, NAN, "axis must be a nonzero finite vector");
      return -1;
    }
    for (int i = 0; i < 3; i++)
      f[k].z[i] = z[i] / n;
    /* reference direction */
    double x[3];
    snprintf(path, sizeof path, "joints/%s/ref%d", j->name, k + 1);
    int have = 1;
    if (j->has_ref[k])
      memcpy(x, j->ref[k], sizeof x);
    else if (fr)
      memcpy(x, fr->ref, sizeof x);
    else if (j->has_gref)
      lw_cc_to_local(c, bi[k], j->gref, 0, x);
    else
      have = 0;
    if (!have) {
      /* a perpendicular chosen in global axes of body 1 so that both bodies agree */
      double g1[3], gz[3];
      const double *R = bi[k] >= 0 ? c->R + 9 * bi[k] : NULL;
      for (int i = 0; i < 3; i++)
        gz[i] = R ? R[3 * i] * f[k].z[0] + R[3 * i + 1] * f[k].z[1] + R[3 * i + 2] * f[k].z[2] : f[k].z[i];
      if (universal2) {
        /* second body's reference: the first axis */
        const double *R0 = bi[0] >= 0 ? c->R + 9 * bi[0] : NULL;
        for (int i = 0; i < 3; i++)
          g1[i] = R0 ? R0[3 * i] * f[0].z[0] + R0[3 * i + 1] * f[0].z[1] + R0[3 * i + 2] * f[0].z[2] : f[0].z[i];
      } else
        any_perp(gz, g1);
      lw_cc_to_local(c, bi[k], g1, 0, x);
    }
    if (unit_perp(x, f[k].z)) {
      lw_set_error(err, LW_ERR_MODEL, path, NAN, "reference direction is parallel to the axis");
      return -1;
    }
    memcpy(f[k].x, x, sizeof x);
    cross3(f[k].z, f[k].x, f[k].y);
  }
  return 0;
}

/* ---- rows ------------------------------------------------------------ */
typedef struct {
  int n, cap;
  lw_row *r;
} rowset;

static lw_row *row_new(rowset *s, lw_owner_kind ok, int owner)
{
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->r = realloc(s->r, sizeof *s->r * (size_t)s->cap);
  }
  lw_row *r = &s->r[s->n++];
  memset(r, 0, sizeof *r);
  r->owner_kind = ok;
  r->owner = owner;
  r->func = -1;
  return r;
}

static void row_dot(rowset *s, lw_owner_kind ok, int owner, lw_vexpr a, lw_vexpr b, double c0)
{
  lw_row *r = row_new(s, ok, owner);
  r->kind = LW_ROW_DOT;
  r->a = a;
  r->b = b;
  r->c0 = c0;
}

/* joint coordinate k of a joint, from its frames */
static int make_coord(const lw_model *m, lw_joint_type type, int k, const lw_vexpr *O, const lw_vexpr *X,
                      const lw_vexpr *Y, const lw_vexpr *Z, lw_coord *c)
{
  memset(c, 0, sizeof *c);
  lw_vexpr D = lw_cc_sub(O[1], &O[0]);
  int angle = 0;
  const lw_vexpr *dir = NULL;
  switch (type) {
  case LW_JOINT_REVOLUTE:
    angle = 1;
    break;
  case LW_JOINT_PRISMATIC:
    dir = m->planar ? &X[0] : &Z[0];
    break;
  case LW_JOINT_CYLINDRICAL:
    if (k == 0)
      dir = &Z[0];
    else
      angle = 1;
    break;
  case LW_JOINT_PLANAR:
    if (k == 0)
      dir = &X[0];
    else if (k == 1)
      dir = &Y[0];
    else
      angle = 1;
    break;
  default:
    return -1;
  }
  if (angle) {
    /* rotation of x_2 about the axis, from x_1: atan2(y1.x2, x1.x2) */
    c->kind = LW_ROW_ANGLE;
    c->a = Y[0];
    c->b = X[1];
    c->c = X[0];
    c->d = X[1];
  } else {
    c->kind = LW_ROW_DOT;
    c->a = *dir;
    c->b = D;
  }
  const lw_vexpr *es[4] = {&c->a, &c->b, &c->c, &c->d};
  lw_cc_blocks(es, angle ? 4 : 2, &c->nblk, c->blk);
  return 0;
}

static int joint_rows(const lw_model *m, rowset *rs, int ji, lw_joint_type type, const lw_vexpr *O,
                      const lw_vexpr *X, const lw_vexpr *Y, const lw_vexpr *Z)
{
  lw_vexpr D = lw_cc_sub(O[1], &O[0]);
  static const double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  int nd = m->nd;
  int coinc = 0, axis = 0, twist = 0, perp = 0, normal = 0, univ = 0;
  if (m->planar) {
    switch (type) {
    case LW_JOINT_REVOLUTE: coinc = 1; break;
    case LW_JOINT_PRISMATIC: twist = 1; perp = 1; break;
    case LW_JOINT_FIXED: coinc = 1; twist = 1; break;
    default: return -1;
    }
  } else {
    switch (type) {
    case LW_JOINT_REVOLUTE: coinc = axis = 1; break;
    case LW_JOINT_PRISMATIC: axis = twist = perp = 1; break;
    case LW_JOINT_SPHERICAL: coinc = 1; break;
    case LW_JOINT_CYLINDRICAL: axis = perp = 1; break;
    case LW_JOINT_UNIVERSAL: coinc = univ = 1; break;
    case LW_JOINT_PLANAR: axis = normal = 1; break;
    case LW_JOINT_FIXED: coinc = axis = twist = 1; break;
    default: return -1;
    }
  }
  if (coinc)
    for (int i = 0; i < nd; i++)
      row_dot(rs, LW_OWNER_JOINT, ji, D, vx_const(e[i]), 0.0);
  if (axis) {
    row_dot(rs, LW_OWNER_JOINT, ji, X[0], Z[1], 0.0);
    row_dot(rs, LW_OWNER_JOINT, ji, Y[0], Z[1], 0.0);
  }
  if (twist) {
    if (m->planar)
      row_dot(rs, LW_OWNER_JOINT, ji, Y[0], X[1], 0.0);
    else
      row_dot(rs, LW_OWNER_JOINT, ji, X[0], Y[1], 0.0);
  }
  if (perp) {
    if (m->planar)
      row_dot(rs, LW_OWNER_JOINT, ji, Y[0], D, 0.0);
    else {
      row_dot(rs, LW_OWNER_JOINT, ji, X[0], D, 0.0);
      row_dot(rs, LW_OWNER_JOINT, ji, Y[0], D, 0.0);
    }
  }
  if (normal)
    row_dot(rs, LW_OWNER_JOINT, ji, Z[0], D, 0.0);
  if (univ)
    row_dot(rs, LW_OWNER_JOINT, ji, Z[0], Z[1], 0.0);
  return 0;
}

static void finish_row_blocks(lw_row *r)
{
  const lw_vexpr *es[4] = {&r->a, &r->b, &r->c, &r->d};
  lw_cc_blocks(es, lw_row_kind_of(r->kind)->nvec, &r->nblk, r->blk);
}

/* ---- mass ----------------------------------------------------------- */
static void body_mass(lw_model *m, int b, const lw_body_desc *bd)
{
  double *M = m->mass_blocks + m->mblk_off[b];
  double mass = bd->mass;
  const double *c = bd->com;
  if (bd->point) {
    /* m I */
    for (int i = 0; i < m->nd; i++)
      M[i * m->nd + i] = mass;
    return;
  }
  if (m->planar) {
    /* [[m I, m(c1 I + c2 S)], [., Jo I]], S = [[0,-1],[1,0]] */
    double Jo = bd->inertia[2] + mass * (c[0] * c[0] + c[1] * c[1]);
    double A[4][4] = {{mass, 0, mass * c[0], -mass * c[1]},
                      {0, mass, mass * c[1], mass * c[0]},
                      {mass * c[0], mass * c[1], Jo, 0},
                      {-mass * c[1], mass * c[0], 0, Jo}};
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++)
        M[j * 4 + i] = A[i][j];
    return;
  }
  const double *I = bd->inertia;
  double In[3][3] = {{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}};
  double tr = I[0] + I[1] + I[2];
  double J[4][4];
  J[0][0] = mass;
  for (int k = 0; k < 3; k++) {
    J[0][k + 1] = J[k + 1][0] = mass * c[k];
    for (int l = 0; l < 3; l++)
      J[k + 1][l + 1] = (k == l ? 0.5 * tr : 0.0) - In[k][l] + mass * c[k] * c[l];
  }
  memset(M, 0, sizeof(double) * 144);
  for (int a = 0; a < 4; a++)
    for (int bb = 0; bb < 4; bb++)
      for (int i = 0; i < 3; i++)
        M[(3 * bb + i) * 12 + 3 * a + i] = J[a][bb];
}

/* body_mass's derivative along (dmass, dc, dI), added into dM: the planar
 * block is linear in the mass and the inertia, quadratic in the centre of
 * mass (m c, m |c|^2), and so is the spatial one (m c, m c c^T) */
static void body_mass_tangent(const lw_model *m, const lw_body_desc *bd, double dmass, const double *dc,
                              const double *dI, double *dM)
{
  double mass = bd->mass;
  const double *c = bd->com;
  if (bd->point) { /* m I */
    for (int i = 0; i < m->nd; i++)
      dM[i * m->nd + i] += dmass;
    return;
  }
  if (m->planar) {
    double dJo = dI[2] + dmass * (c[0] * c[0] + c[1] * c[1]) + 2.0 * mass * (c[0] * dc[0] + c[1] * dc[1]);
    double d0 = dmass * c[0] + mass * dc[0], d1 = dmass * c[1] + mass * dc[1];
    double A[4][4] = {{dmass, 0, d0, -d1}, {0, dmass, d1, d0}, {d0, d1, dJo, 0}, {-d1, d0, 0, dJo}};
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++)
        dM[j * 4 + i] += A[i][j];
    return;
  }
  double dIn[3][3] = {{dI[0], dI[3], dI[4]}, {dI[3], dI[1], dI[5]}, {dI[4], dI[5], dI[2]}};
  double dtr = dI[0] + dI[1] + dI[2];
  double J[4][4];
  J[0][0] = dmass;
  for (int k = 0; k < 3; k++) {
    J[0][k + 1] = J[k + 1][0] = dmass * c[k] + mass * dc[k];
    for (int l = 0; l < 3; l++)
      J[k + 1][l + 1] = (k == l ? 0.5 * dtr : 0.0) - dIn[k][l] + dmass * c[k] * c[l] +
                        mass * (dc[k] * c[l] + c[k] * dc[l]);
  }
  for (int a = 0; a < 4; a++)
    for (int bb = 0; bb < 4; bb++)
      for (int i = 0; i < 3; i++)
        dM[(3 * bb + i) * 12 + 3 * a + i] += J[a][bb];
}

void lw_body_tangent(const lw_model *m, int b, double dmass, const double *dcom, const double *dinertia,
                     const double *dgrav, double *dM, double *dQ)
{
  const lw_body_desc *bd = &m->desc->bodies[b];
  const double *g = m->desc->gravity;
  body_mass_tangent(m, bd, dmass, dcom, dinertia, dM);
  /* Q_g = dG/dq^T (m g), G the centre of mass (linear in com) */
  double a[3], mg[3];
  for (int i = 0; i < 3; i++) {
    a[i] = dmass * g[i] + bd->mass * dgrav[i];
    mg[i] = bd->mass * g[i];
  }
  int blk[2] = {b, -1};
  lw_vexpr G = lw_cc_vx_point(m, b, bd->com), dG = lw_cc_vx_point(m, b, dcom);
  dG.w[0][0] = 0.0; /* the body's origin does not move with the centre of mass */
  lw_vexpr_grad(m, &G, a, 1.0, 1, blk, dQ);
  lw_vexpr_grad(m, &dG, mg, 1.0, 1, blk, dQ);
}

/* ---- parameters ------------------------------------------------------- */
typedef struct {
  const char *name;
  int i;
} named_index;

static int cmp_named(const void *a, const void *b)
{
  const named_index *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* the first parameter whose name an earlier one has (or nparams): sorted
 * by name, not compared pair by pair (a spline can bring a thousand) */
static int first_duplicate(const lw_desc *d)
{
  int n = 0, dup = d->nparams;
  named_index *ix = malloc(sizeof(named_index) * (size_t)(d->nparams + 1));
  if (!ix)
    return -1;
  for (int i = 0; i < d->nparams; i++)
    if (d->params[i].name && *d->params[i].name)
      ix[n++] = (named_index){d->params[i].name, i};
  qsort(ix, (size_t)n, sizeof(named_index), cmp_named);
  for (int k = 1; k < n; k++)
    if (!strcmp(ix[k - 1].name, ix[k].name) && ix[k].i < dup)
      dup = ix[k].i;
  free(ix);
  return dup;
}

/* "parameters/NAME", for a message about parameter p (formatted only when
 * there is one: a spline can bring a thousand parameters, and a model is
 * compiled often) */
static const char *param_path(char *buf, size_t n, const lw_param_desc *p)
{
  snprintf(buf, n, "parameters/%s", p->name ? p->name : "?");
  return buf;
}

/* target k's factor is finite and its product names another parameter */
static int check_binding(const lw_desc *d, const lw_param_desc *p, int k, char *path, size_t n, lw_error *err)
{
  const char *t = p->times ? p->times[k] : NULL;
  if (p->factors && !isfinite(p->factors[k])) {
    lw_set_error(err, LW_ERR_MODEL, param_path(path, n, p), NAN, "parameter '%s': the factor of '%s' is not finite",
                 p->name, p->targets[k]);
    return -1;
  }
  if (t && (!strcmp(t, p->name) || !isfinite(lw_param_bind_value(d, p, k)))) {
    lw_set_error(err, LW_ERR_MODEL, param_path(path, n, p), NAN,
                 "parameter '%s': '%s' is multiplied by '%s', which is %s", p->name, p->targets[k], t,
                 !strcmp(t, p->name) ? "the parameter itself" : "not a parameter of this model");
    return -1;
  }
  return 0;
}

static int apply_params(lw_desc *d, lw_error *err)
{
  int dup = first_duplicate(d);
  if (dup < 0) {
    lw_set_error(err, LW_ERR_NOMEM, "parameters", NAN, "out of memory");
    return -1;
  }
  char path[200];
  for (int i = 0; i < d->nparams; i++) {
    lw_param_desc *p = &d->params[i];
    if (!p->name || !*p->name) {
      lw_set_error(err, LW_ERR_MODEL, param_path(path, sizeof path, p), NAN, "parameter without a name");
      return -1;
    }
    if (i == dup) {
      lw_set_error(err, LW_ERR_MODEL, param_path(path, sizeof path, p), NAN, "duplicate parameter name '%s'",
                   p->name);
      return -1;
    }
    if (p->ntargets == 0) {
      lw_set_error(err, LW_ERR_MODEL, param_path(path, sizeof path, p), NAN, "parameter '%s' is bound to no field",
                   p->name);
      return -1;
    }
    if (!isfinite(p->value)) {
      lw_set_error(err, LW_ERR_MODEL, param_path(path, sizeof path, p), NAN, "parameter '%s' value is not finite",
                   p->name);
      return -1;
    }
    for (int k = 0; k < p->ntargets; k++) {
      double *f = lw_desc_field(d, p->targets[k]);
      if (!f) {
        lw_set_error(err, LW_ERR_MODEL, param_path(path, sizeof path, p), NAN,
                     "parameter '%s' names '%s', which is not a numeric field of this model",
                     p->name, p->targets[k]);
        return -1;
      }
      if (check_binding(d, p, k, path, sizeof path, err))
        return -1;
      *f = lw_param_bind_value(d, p, k);
    }
  }
  return 0;
}

static int check_name(const char *kind, int i, const char *name, lw_error *err)
{
  if (!name || !*name) {
    char path[64];
    snprintf(path, sizeof path, "%s/%d", kind, i);
    lw_set_error(err, LW_ERR_MODEL, path, NAN, "element %d of \"%s\" has no name", i, kind);
    return -1;
  }
  return 0;
}









static lw_model *compile(const lw_desc *src, int constants_only, const int *rest, int nrest, lw_error *err);
#define LW_BEAM_MAXEL 100000

lw_model *lw_compile(const lw_desc *src, lw_error *err) { return compile(src, 0, NULL, 0, err); }

/* the model with the gaps of guards rest[0 .. nrest) held at zero: one row
 * each after the joints' and drivers' rows, for a contact or joint limit
 * that rests (persistent contact, lw_events.c) */
lw_model *lw_compile_resting(const lw_desc *src, const int *rest, int nrest, lw_error *err)
{
  return compile(src, 0, rest, nrest, err);
}

/* the model's constants alone, for a tangent model (lw_jvp.c): without the
 * tables of the step's linearization (lw_lin_prepare), which only the
 * model simulated reads */
lw_model *lw_compile_constants(const lw_desc *src, lw_error *err) { return compile(src, 1, NULL, 0, err); }



/* the coordinates' blocks, one a body: their sizes, offsets into q and into
 * the packed mass blocks */
static int layout_blocks(lw_model *m, const lw_desc *d)
{
  m->blk_n = malloc(sizeof(int) * (size_t)m->nb);
  m->blk_off = malloc(sizeof(int) * ((size_t)m->nb + 1));
  m->mblk_off = malloc(sizeof(size_t) * ((size_t)m->nb + 1));
  if (!m->blk_n || !m->blk_off || !m->mblk_off)
    return -1;
  m->blk_off[0] = 0;
  m->mblk_off[0] = 0;
  m->nqbmax = 0;
  for (int b = 0; b < m->nb; b++) {
    /* a beam's element: [r_i, r_i', r_j, r_j'] */
    int n = b >= d->nbodies ? 4 * (d->planar ? 2 : 3) : d->bodies[b].point ? (d->planar ? 2 : 3) : d->planar ? 4 : 12;
    m->blk_n[b] = n;
    m->blk_off[b + 1] = m->blk_off[b] + n;
    m->mblk_off[b + 1] = m->mblk_off[b] + (size_t)n * n;
    m->nqbmax = n > m->nqbmax ? n : m->nqbmax;
  }
  m->nq = m->blk_off[m->nb];
  m->nqb = m->blk_n[0];
  for (int b = 1; b < m->nb; b++)
    if (m->blk_n[b] != m->nqb)
      m->nqb = 0;
  m->wrow = 2 * m->nqbmax;
  return 0;
}

/* the format version, parameters, sizes, gravity and solver settings */
static int compile_settings(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  (void)rs;
  (void)ps;
  if (d->version != LW_FORMAT_VERSION)
    FAIL("version", "unsupported format version %d (this build reads version %d)", d->version,
         LW_FORMAT_VERSION);
  if (apply_params(d, err))
    goto fail;
  m->planar = d->planar;
  m->nd = d->planar ? 2 : 3;
  m->nb = m->nbd = d->nbodies;
  for (int i = 0; i < d->nbeams; i++) {
    char path[256];
    snprintf(path, sizeof path, "beams/%s/elements", d->beams[i].name ? d->beams[i].name : "");
    if (d->beams[i].nel < 1 || d->beams[i].nel > LW_BEAM_MAXEL)
      FAIL(path, "beam '%s': the number of elements must be 1 to %d (got %d)", d->beams[i].name ? d->beams[i].name : "",
           LW_BEAM_MAXEL, d->beams[i].nel);
    m->nb += d->beams[i].nel;
  }
  if (m->nb == 0)
    FAIL("bodies", "the model has no moving bodies");
  if (layout_blocks(m, d))
    FAIL("", "out of memory");
  if (!lw_cc_finite(d->gravity, 3))
    FAIL("gravity", "gravity must be finite");
  {
    lw_opt opt;
    lw_opt_of_solver(&opt, &d->solver);
    if (lw_model_set_opt(m, &opt, err))
      goto fail;
  }
  return 0;

fail:
  return -1;
}

/* bodies: initial placement, mass blocks, generalized gravity, the rows that keep the frames orthonormal */
static int compile_bodies(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  (void)ps;
  /* bodies */
  if (lw_cc_index_bodies(c))
    FAIL("", "out of memory");
  c->R = calloc((size_t)m->nb * 9, sizeof(double));
  m->q0 = calloc((size_t)m->nq, sizeof(double));
  m->qd0 = calloc((size_t)m->nq, sizeof(double));
  m->mass_blocks = calloc(m->mblk_off[m->nb], sizeof(double));
  m->qgrav = calloc((size_t)m->nq, sizeof(double));
  m->body_mass = calloc((size_t)m->nb, sizeof(double));
  for (int b = 0; b < m->nbd; b++) {
    const lw_body_desc *bd = &d->bodies[b];
    if (check_name("bodies", b, bd->name, err))
      goto fail;
    if (!strcmp(bd->name, "ground"))
      FAIL("bodies/ground", "'ground' is the fixed body and cannot be declared");
    if (lw_cc_names_find(&c->body_names, bd->name) < b) {
      snprintf(path, sizeof path, "bodies/%s", bd->name);
      FAIL(path, "duplicate body name '%s'", bd->name);
    }
    snprintf(path, sizeof path, "bodies/%s/mass", bd->name);
    if (!isfinite(bd->mass) || !(bd->mass > 0))
      FAIL(path, "body '%s': mass must be a positive number (got %g)", bd->name, bd->mass);
    snprintf(path, sizeof path, "bodies/%s/com", bd->name);
    if (!lw_cc_finite(bd->com, 3))
      FAIL(path, "body '%s': centre of mass must be finite", bd->name);
    snprintf(path, sizeof path, "bodies/%s/position", bd->name);
    if (!lw_cc_finite(bd->position, 3))
      FAIL(path, "body '%s': position must be finite", bd->name);
    snprintf(path, sizeof path, "bodies/%s/inertia", bd->name);
    if (bd->point) {
      /* a point mass: no inertia of its own */
    } else if (m->planar) {
      if (!isfinite(bd->inertia[2]) || !(bd->inertia[2] > 0))
        FAIL(path, "body '%s': inertia must be a positive number (got %g)", bd->name, bd->inertia[2]);
    } else {
      const double *I = bd->inertia;
      if (!lw_cc_finite(I, 6))
        FAIL(path, "body '%s': inertia must be finite", bd->name);
      double In[3][3] = {{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}};
      if (!spd3(In))
        FAIL(path, "body '%s': inertia tensor is not positive definite", bd->name);
      double tr = I[0] + I[1] + I[2];
      double J[3][3];
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
          J[k][l] = (k == l ? 0.5 * tr : 0.0) - In[k][l];
      if (!spd3(J))
        FAIL(path,
             "body '%s': inertia violates the triangle inequality (I1 + I2 > I3 for the principal "
             "moments); no rigid body has it",
             bd->name);
    }
    double *R = c->R + 9 * b;
    double *qb = m->q0 + m->blk_off[b];
    if (bd->point) {
      double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
      memcpy(R, I, sizeof I);
      for (int i = 0; i < m->nd; i++)
        qb[i] = bd->position[i];
    } else if (m->planar) {
      if (!isfinite(bd->angle)) {
        snprintf(path, sizeof path, "bodies/%s/angle", bd->name);
        FAIL(path, "body '%s': angle must be finite", bd->name);
      }
      double ca = cos(bd->angle), sa = sin(bd->angle);
      double Rp[9] = {ca, -sa, 0, sa, ca, 0, 0, 0, 1};
      memcpy(R, Rp, sizeof Rp);
      qb[0] = bd->position[0];
      qb[1] = bd->position[1];
      qb[2] = ca;
      qb[3] = sa;
    } else {
      const double *o = bd->orientation;
      double n = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
      if (!(n > 1e-12) || !lw_cc_finite(o, 4)) {
        snprintf(path, sizeof path, "bodies/%s/orientation", bd->name);
        FAIL(path, "body '%s': orientation must be a nonzero quaternion [w, x, y, z]", bd->name);
      }
      quat_to_rot(o, R);
      for (int i = 0; i < 3; i++) {
        qb[i] = bd->position[i];
        qb[3 + i] = R[3 * i];
        qb[6 + i] = R[3 * i + 1];
        qb[9 + i] = R[3 * i + 2];
      }
    }
    body_mass(m, b, bd);
    m->body_mass[b] = bd->mass;
    double mg[3] = {bd->mass * d->gravity[0], bd->mass * d->gravity[1], bd->mass * d->gravity[2]};
    lw_vexpr G = lw_cc_vx_point(m, b, bd->com);
    int blk[2] = {b, -1};
    lw_vexpr_grad(m, &G, mg, 1.0, 1, blk, m->qgrav + m->blk_off[b]);
    for (int k = 0; k < bd->npoints; k++) {
      snprintf(path, sizeof path, "bodies/%s/points/%s", bd->name, bd->points[k].name);
      if (!lw_cc_finite(bd->points[k].p, 3))
        FAIL(path, "point must be finite");
    }
    /* rigid-body conditions on the frame vectors (a point mass has none) */
    double zero[3] = {0, 0, 0}, e1[3] = {1, 0, 0}, e2[3] = {0, 1, 0}, e3[3] = {0, 0, 1};
    if (bd->point) {
    } else if (m->planar) {
      lw_vexpr u = vx_vector(m, b, e1);
      row_dot(rs, LW_OWNER_BODY, b, u, u, 1.0);
    } else {
      lw_vexpr u = vx_vector(m, b, e1), v = vx_vector(m, b, e2), w = vx_vector(m, b, e3);
      row_dot(rs, LW_OWNER_BODY, b, u, u, 1.0);
      row_dot(rs, LW_OWNER_BODY, b, v, v, 1.0);
      row_dot(rs, LW_OWNER_BODY, b, w, w, 1.0);
      row_dot(rs, LW_OWNER_BODY, b, u, v, 0.0);
      row_dot(rs, LW_OWNER_BODY, b, u, w, 0.0);
      row_dot(rs, LW_OWNER_BODY, b, v, w, 0.0);
    }
    (void)zero;
  }
  return 0;

fail:
  return -1;
}

/* ---- beams ---------------------------------------------------------- */
/* beam k's description checked and its constants into m->beams[k] */
static int beam_check(ctx *c, const lw_desc *d, int k, int blk0, lw_error *err)
{
  const lw_beam_desc *bd = &d->beams[k];
  lw_beam *bm = &c->m->beams[k];
  char path[256];
  if (check_name("beams", k, bd->name, err))
    return -1;
  snprintf(path, sizeof path, "beams/%s", bd->name);
  if (!strcmp(bd->name, "ground") || lw_cc_body_index(d, bd->name) != -3 - k)
    KFAIL_B(path, "beam '%s': the name is taken by %s", bd->name,
            lw_cc_body_index(d, bd->name) >= -1 ? "a body" : "another beam");
  const struct { const char *f; double v; int zero_ok; } pos[] = {
    {"young", bd->young, 0}, {"density", bd->density, 0}, {"damping", bd->damping, 1}};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "beams/%s/%s", bd->name, pos[i].f);
    if (!isfinite(pos[i].v) || pos[i].v < 0 || (!pos[i].zero_ok && pos[i].v == 0))
      KFAIL_B(path, "beam '%s': %s must be a %s number (got %g)", bd->name, pos[i].f,
              pos[i].zero_ok ? "nonnegative" : "positive", pos[i].v);
  }
  double A, I;
  snprintf(path, sizeof path, "beams/%s/%s", bd->name, bd->section == LW_SECTION_GENERIC ? "area" : "size");
  if ((int)bd->section < 0 || bd->section >= LW_SECTION_NTYPES || lw_beam_section(bd, &A, &I) ||
      !isfinite(A) || !isfinite(I))
    KFAIL_B(path, "beam '%s': the %s section needs %s", bd->name, lw_section_type_name(bd->section),
            bd->section == LW_SECTION_GENERIC ? "a positive area and inertia"
            : bd->section == LW_SECTION_TUBE  ? "an outer diameter above an inner one (>= 0)"
                                              : "positive sizes");
  snprintf(path, sizeof path, "beams/%s/end", bd->name);
  double L = 0;
  for (int i = 0; i < 3; i++)
    L += (bd->end[i] - bd->start[i]) * (bd->end[i] - bd->start[i]);
  L = sqrt(L);
  if (!lw_cc_finite(bd->start, 3) || !lw_cc_finite(bd->end, 3) || !(L > 1e-12) || !isfinite(L))
    KFAIL_B(path, "beam '%s': start and end must be finite and apart", bd->name);
  bm->blk0 = blk0;
  bm->nel = bd->nel;
  bm->L = L;
  bm->l = L / bd->nel;
  for (int i = 0; i < 3; i++) {
    bm->start[i] = bd->start[i];
    bm->dir[i] = (bd->end[i] - bd->start[i]) / L;
  }
  bm->EA = bd->young * A;
  bm->EI = bd->young * I;
  bm->rhoA = bd->density * A;
  bm->eta = bd->damping;
  return 0;
}

/* an element's mass block rho A int S^T S dx (length l) into M
 * and gravity force rho A int S^T dx g into Q (added) */
static void beam_mass(const lw_model *m, double l, double rhoA, const double *g, double *M, double *Q)
{
  int nd = m->nd, n = 4 * nd;
  const double Mh[4][4] = {{156, 22 * l, 54, -13 * l},
                           {22 * l, 4 * l * l, 13 * l, -3 * l * l},
                           {54, 13 * l, 156, -22 * l},
                           {-13 * l, -3 * l * l, -22 * l, 4 * l * l}};
  double f = rhoA * l / 420.0;
  for (int a = 0; a < 4; a++)
    for (int c2 = 0; c2 < 4; c2++)
      for (int i = 0; i < nd; i++)
        M[(size_t)(c2 * nd + i) * n + a * nd + i] += f * Mh[a][c2];
  const double s[4] = {0.5, l / 12.0, 0.5, -l / 12.0};
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < nd; i++)
      Q[a * nd + i] += rhoA * l * s[a] * g[i];
}

/* the beam whose element block b is */
static const lw_beam *beam_of_block(const lw_model *m, int b)
{
  for (int k = 0; k < m->nbeams; k++)
    if (b >= m->beams[k].blk0 && b < m->beams[k].blk0 + m->beams[k].nel)
      return &m->beams[k];
  return NULL;
}

void lw_beam_tangent(const lw_model *m, int b, double drhoA, const double *dgrav, double *dM, double *dQ)
{
  const lw_beam *bm = beam_of_block(m, b);
  double Mz[LW_MAXQB * LW_MAXQB];
  /* linear in rho A and in g: each derivative on its own (the mass block
   * does not depend on g: Mz takes the part to drop) */
  if (drhoA != 0.0)
    beam_mass(m, bm->l, drhoA, m->desc->gravity, dM, dQ);
  if (dgrav[0] != 0.0 || dgrav[1] != 0.0 || dgrav[2] != 0.0) {
    memset(Mz, 0, sizeof Mz);
    beam_mass(m, bm->l, bm->rhoA, dgrav, Mz, dQ);
  }
}

/* the derivative of beam_mass's M and Q along the element length, dl:
 * the block's entries are rho A l / 420 times l^(p_a + p_c) and the
 * gravity's rho A l g times l^p_a (p = 0 for positions, 1 for slopes) */
static void beam_mass_dl(const lw_model *m, double l, double dl, double rhoA, const double *g, double *dM, double *dQ)
{
  int nd = m->nd, n = 4 * nd;
  static const int p[4] = {0, 1, 0, 1};
  const double Mh[4][4] = {{156, 22 * l, 54, -13 * l},
                           {22 * l, 4 * l * l, 13 * l, -3 * l * l},
                           {54, 13 * l, 156, -22 * l},
                           {-13 * l, -3 * l * l, -22 * l, 4 * l * l}};
  double f = rhoA * dl / 420.0;
  for (int a = 0; a < 4; a++)
    for (int c2 = 0; c2 < 4; c2++)
      for (int i = 0; i < nd; i++)
        dM[(size_t)(c2 * nd + i) * n + a * nd + i] += f * (double)(p[a] + p[c2] + 1) * Mh[a][c2];
  const double s[4] = {0.5, l / 12.0, 0.5, -l / 12.0};
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < nd; i++)
      dQ[a * nd + i] += rhoA * dl * (double)(p[a] + 1) * s[a] * g[i];
}

void lw_beam_geom_tangent(const lw_model *m, int k, const double *dstart, const double *dend, lw_model *dm)
{
  const lw_beam *bm = &m->beams[k];
  int nd = m->nd;
  double dL = 0, ddir[3];
  for (int i = 0; i < 3; i++)
    dL += bm->dir[i] * (dend[i] - dstart[i]);
  for (int i = 0; i < 3; i++)
    ddir[i] = (dend[i] - dstart[i] - bm->dir[i] * dL) / bm->L;
  double l = bm->l, dl = dL / bm->nel;
  for (int e = 0; e < bm->nel; e++) {
    int b = bm->blk0 + e;
    beam_mass_dl(m, l, dl, bm->rhoA, m->desc->gravity, dm->mass_blocks + m->mblk_off[b], dm->qgrav + m->blk_off[b]);
    double *dq = dm->q0 + m->blk_off[b];
    for (int i = 0; i < nd; i++) {
      double dx = dl * bm->dir[i] + l * ddir[i];
      dq[i] += dstart[i] + e * dx;
      dq[nd + i] += ddir[i];
      dq[2 * nd + i] += dstart[i] + (e + 1) * dx;
      dq[3 * nd + i] += ddir[i];
    }
    dm->forces[bm->force0 + e].rest += dl;
  }
}

/* element e of beam k: its straight unstrained coordinates, mass block and gravity */
static void beam_element(lw_model *m, const lw_desc *d, int k, int e)
{
  const lw_beam *bm = &m->beams[k];
  int b = bm->blk0 + e, nd = m->nd;
  double l = bm->l;
  double *qb = m->q0 + m->blk_off[b];
  for (int i = 0; i < nd; i++) {
    qb[i] = bm->start[i] + e * l * bm->dir[i];
    qb[nd + i] = bm->dir[i];
    qb[2 * nd + i] = bm->start[i] + (e + 1) * l * bm->dir[i];
    qb[3 * nd + i] = bm->dir[i];
  }
  beam_mass(m, l, bm->rhoA, d->gravity, m->mass_blocks + m->mblk_off[b], m->qgrav + m->blk_off[b]);
  m->body_mass[b] = bm->rhoA * l;
}

/* the rows joining element e to e + 1 of beam k: the shared node's position and slope */
static void beam_joins(lw_model *m, rowset *rs, int k, int e)
{
  static const double ex[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  int b = m->beams[k].blk0 + e;
  for (int slope = 0; slope < 2; slope++) {
    lw_vexpr a, bj;
    memset(&a, 0, sizeof a);
    memset(&bj, 0, sizeof bj);
    a.nterm = bj.nterm = 1;
    a.body[0] = b + 1;
    a.w[0][slope] = 1.0;
    bj.body[0] = b;
    bj.w[0][2 + slope] = 1.0;
    lw_vexpr D = lw_cc_sub(a, &bj);
    for (int i = 0; i < m->nd; i++)
      row_dot(rs, LW_OWNER_BEAM, k, D, vx_const(ex[i]), 0.0);
  }
}

/* beams: their elements' blocks (coordinates, mass, gravity) and the rows joining them */
static int compile_beams(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  m->nbeams = d->nbeams;
  m->beams = calloc((size_t)d->nbeams + 1, sizeof(lw_beam));
  if (!m->beams)
    FAIL("", "out of memory");
  for (int k = 0, blk0 = m->nbd; k < d->nbeams; blk0 += d->beams[k].nel, k++) {
    if (beam_check(c, d, k, blk0, err))
      goto fail;
    m->beams[k].row0 = rs->n;
    for (int e = 0; e < d->beams[k].nel; e++) {
      beam_element(m, d, k, e);
      if (e + 1 < d->beams[k].nel) {
        beam_joins(m, rs, k, e);
        pair_add(ps, m->beams[k].blk0 + e, m->beams[k].blk0 + e + 1);
      }
    }
  }
  return 0;

fail:
  return -1;
}

/* the arc length on beam bi (a reference code) where joint j holds it,
 * side k: its point k, or the projection of "at" on the undeformed line */
static int beam_joint_place(ctx *c, const lw_joint_desc *j, int k, int bi, double *x, lw_error *err)
{
  char path[256];
  snprintf(path, sizeof path, "joints/%s/point%d", j->name, k + 1);
  const lw_beam *bm = &c->m->beams[lw_beam_of_ref(bi)];
  double p[3];
  if (j->has_place[k] || j->place[k].ref) {
    if (lw_cc_resolve_place(c, bi, &j->place[k], path, p, NULL, err))
      return -1;
    *x = p[0];
    return 0;
  }
  if (!j->has_at)
    KFAIL_B(path, "joint '%s' has no location: give \"at\" (global) or \"point%d\" (the arc length along the beam)",
            j->name, k + 1);
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += (j->at[i] - bm->start[i]) * bm->dir[i];
  if (!(s >= -1e-9 * bm->L && s <= bm->L * (1 + 1e-9)))
    KFAIL_B(path, "joint '%s': \"at\" lies beyond the ends of beam '%s'", j->name, c->d->beams[lw_beam_of_ref(bi)].name);
  *x = fmin(fmax(s, 0.0), bm->L);
  return 0;
}

/* v scaled by a */
static lw_vexpr vx_scaled(lw_vexpr v, double a)
{
  for (int i = 0; i < 3; i++)
    v.c[i] *= a;
  for (int t = 0; t < v.nterm; t++)
    for (int j = 0; j < 4; j++)
      v.w[t][j] *= a;
  return v;
}

/* a weld between two beams, written so that it holds under any rotation of
 * the pair: where the two slopes start parallel (or opposite), the slope
 * goes on through the joint, T1 - T0 = 0 (T1 + T0 = 0), nd rows; at an
 * angle, the angle between them is kept through their dot product,
 * T0.T1 = its initial value, one row (a gradient-deficient element carries
 * no twist, so the dot product is all that two slopes share under a
 * rotation; like the rigid weld's components it also holds the product of
 * the slopes' lengths there, which the axial strain changes by 1 + eps) */
static void beam_weld_rows(lw_model *m, rowset *rs, int ji, const lw_vexpr *T)
{
  static const double ex[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double t0[3] = {0, 0, 0}, t1[3] = {0, 0, 0}, cr[3], dot = 0, n0 = 0, n1 = 0;
  lw_vexpr_eval(m, &T[0], m->q0, t0);
  lw_vexpr_eval(m, &T[1], m->q0, t1);
  for (int i = 0; i < 3; i++) {
    dot += t0[i] * t1[i];
    n0 += t0[i] * t0[i];
    n1 += t1[i] * t1[i];
  }
  cr[0] = t0[1] * t1[2] - t0[2] * t1[1];
  cr[1] = t0[2] * t1[0] - t0[0] * t1[2];
  cr[2] = t0[0] * t1[1] - t0[1] * t1[0];
  double sin2 = (cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]) / (n0 * n1);
  if (sin2 > 1e-18) {
    row_dot(rs, LW_OWNER_JOINT, ji, T[0], T[1], dot);
    return;
  }
  lw_vexpr Ts = lw_cc_sub(T[1], (const lw_vexpr[]){vx_scaled(T[0], dot > 0 ? 1.0 : -1.0)});
  for (int i = 0; i < m->nd; i++)
    row_dot(rs, LW_OWNER_JOINT, ji, vx_const(ex[i]), Ts, 0.0);
}

/* a joint with a beam on one side or both: a pin (revolute, planar) or a
 * spherical joint (3-D) makes the points coincide; a weld (fixed) also
 * holds the beam's slope there in the other body's frame (in global axes
 * when the other side is the ground; between two beams, beam_weld_rows).  Side k's point O[k], its
 * frame X, Y, Z (a rigid body or the ground) or its slope T (a beam). */
static int beam_joint(ctx *c, rowset *rs, int ji, const int bi[2], lw_error *err)
{
  lw_model *m = c->m;
  const lw_joint_desc *j = &c->d->joints[ji];
  char path[256];
  snprintf(path, sizeof path, "joints/%s/type", j->name);
  int pin = m->planar ? j->type == LW_JOINT_REVOLUTE : j->type == LW_JOINT_SPHERICAL;
  if (!pin && j->type != LW_JOINT_FIXED)
    KFAIL_B(path, "joint '%s': a beam takes a %s joint or a weld (fixed), not a %s joint", j->name,
            m->planar ? "revolute" : "spherical", lw_joint_type_name(j->type));
  if (j->has_friction) {
    snprintf(path, sizeof path, "joints/%s/friction", j->name);
    KFAIL_B(path, "joint '%s': a joint on a beam has no friction", j->name);
  }
  int beam[2] = {lw_is_beam_ref(bi[0]), lw_is_beam_ref(bi[1])};
  if (m->planar && pin && beam[0] && beam[1]) {
    snprintf(path, sizeof path, "joints/%s/body2", j->name);
    KFAIL_B(path, "joint '%s': a revolute joint between two beams is not available (its angle needs a rigid side)",
            j->name);
  }
  /* the rigid side's frame from the joint as if the beam's side were the
   * ground at the beam point's initial place */
  lw_joint_desc jr = *j;
  lw_vexpr O[2], X[2], Y[2], Z[2], T[2];
  memset(X, 0, sizeof X), memset(Y, 0, sizeof Y), memset(Z, 0, sizeof Z), memset(T, 0, sizeof T);
  double x[2] = {0, 0};
  for (int k = 0; k < 2; k++)
    if (beam[k]) {
      if (beam_joint_place(c, j, k, bi[k], &x[k], err))
        return -1;
      O[k] = lw_cc_vx_beam(m, lw_beam_of_ref(bi[k]), x[k], 0);
      T[k] = lw_cc_vx_beam(m, lw_beam_of_ref(bi[k]), x[k], 1);
      lw_vexpr_eval(m, &O[k], m->q0, jr.place[k].p);
      jr.place[k].ref = NULL;
      jr.has_place[k] = 1;
    }
  int bg[2] = {beam[0] ? -1 : bi[0], beam[1] ? -1 : bi[1]};
  jframe f[2];
  if (joint_frames(c, &jr, bg, f, err))
    return -1;
  for (int k = 0; k < 2; k++)
    if (!beam[k]) {
      O[k] = lw_cc_vx_point(m, bi[k], f[k].o);
      X[k] = vx_vector(m, bi[k], f[k].x);
      Y[k] = vx_vector(m, bi[k], f[k].y);
      Z[k] = vx_vector(m, bi[k], f[k].z);
    }
  static const double ex[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  int r0 = m->joint_row0[ji] = rs->n;
  lw_vexpr D = lw_cc_sub(O[1], &O[0]);
  for (int i = 0; i < m->nd; i++)
    row_dot(rs, LW_OWNER_JOINT, ji, D, vx_const(ex[i]), 0.0);
  if (!pin && beam[0] && beam[1]) {
    beam_weld_rows(m, rs, ji, T);
  } else if (!pin) {
    /* the slope's components in the rigid side's axes, or in global axes
     * (the ground) */
    int s = beam[1] ? 1 : 0, o = 1 - s;
    lw_vexpr Ts = beam[o] ? lw_cc_sub(T[s], &T[o]) : T[s];
    const lw_vexpr *ax[3] = {&X[o], &Y[o], &Z[o]};
    for (int i = 0; i < m->nd; i++) {
      lw_vexpr a = beam[o] ? vx_const(ex[i]) : *ax[i];
      double va[3], vt[3], c0 = 0;
      lw_vexpr_eval(m, &a, m->q0, va);
      lw_vexpr_eval(m, &Ts, m->q0, vt);
      for (int q = 0; q < m->nd; q++)
        c0 += va[q] * vt[q];
      row_dot(rs, LW_OWNER_JOINT, ji, a, Ts, c0);
    }
  }
  m->joint_o[ji] = O[0];
  m->joint_z[ji] = beam[0] ? vx_const(ex[2]) : Z[0];
  m->joint_coord0[ji] = m->ncoords;
  if (m->planar && pin) {
    /* the angle of the beam's slope from the rigid side's x axis (body 1 the
     * rigid one), or minus that (body 2 the rigid one) */
    int s = beam[1] ? 1 : 0, o = 1 - s;
    lw_coord *co = &m->coords[m->ncoords++];
    memset(co, 0, sizeof *co);
    co->kind = LW_ROW_ANGLE;
    co->a = Y[o];
    if (s == 0)
      for (int t = 0; t < co->a.nterm; t++)
        for (int q = 0; q < 4; q++)
          co->a.w[t][q] = -co->a.w[t][q];
    if (s == 0)
      for (int q = 0; q < 3; q++)
        co->a.c[q] = -co->a.c[q];
    co->b = T[s];
    co->c = X[o];
    co->d = T[s];
    const lw_vexpr *es[4] = {&co->a, &co->b, &co->c, &co->d};
    lw_cc_blocks(es, 4, &co->nblk, co->blk);
  }
  return lw_cc_joint_friction(m, c->d, ji, bi, O, X, Y, Z, r0, rs->n - r0, m->joint_coord0[ji], err);
}

/* the beams' element forces from force n0 on: k = EA, rest = l, vec = (EI,
 * material damping time); c stays 0, the damper power being the
 * dampers' along a length (kind_beam.c) */
static void beam_forces(lw_model *m, int n0)
{
  for (int k = 0, n = n0; k < m->nbeams; k++) {
    lw_beam *bm = &m->beams[k];
    bm->force0 = n;
    for (int e = 0; e < bm->nel; e++, n++) {
      lw_force *f = &m->forces[n];
      f->type = LW_FORCE_BEAM;
      f->index = k;
      f->body = -1;
      f->k = bm->EA;
      f->rest = bm->l;
      f->vec[0] = bm->EI;
      f->vec[1] = bm->eta;
      f->nblk = 1;
      f->blk[0] = bm->blk0 + e;
    }
  }
}

/* the distance a controller's measure k of force i names: a coordinate
 * axis . (p2 - p1), the axis normalized, into co */
static int measure_coord(ctx *c, const lw_desc *d, int i, int k, lw_coord *co, lw_error *err)
{
  const lw_force_desc *fd = &d->forces[i];
  const lw_feedback_desc *b = &fd->feedback[k];
  char path[256], base[200];
  if (fd->type == LW_FORCE_PID)
    snprintf(base, sizeof base, "forces/%s/between", fd->name);
  else
    snprintf(base, sizeof base, "forces/%s/gains/%d/between", fd->name, k);
  lw_vexpr v[2];
  for (int s = 0; s < 2; s++) {
    snprintf(path, sizeof path, "%s/body%d", base, s + 1);
    int bi = lw_cc_body(c, b->body[s]);
    if (bi == -2 || lw_is_beam_ref(bi))
      KFAIL_B(path, "controller '%s': body '%s' %s", fd->name, b->body[s] ? b->body[s] : "(missing)",
              bi == -2 ? "does not exist" : "is a beam (a distance is measured between rigid bodies)");
    snprintf(path, sizeof path, "%s/point%d", base, s + 1);
    if (lw_cc_point(c, bi, &b->place[s], path, &v[s], err))
      return -1;
  }
  double n = norm3(b->axis), ax[3];
  snprintf(path, sizeof path, "%s/axis", base);
  if (!(n > 0) || !isfinite(n))
    KFAIL_B(path, "controller '%s': the axis of its distance must be a nonzero finite vector", fd->name);
  for (int q = 0; q < 3; q++)
    ax[q] = b->axis[q] / n;
  memset(co, 0, sizeof *co);
  co->kind = LW_ROW_DOT;
  co->a = vx_const(ax);
  co->b = lw_cc_sub(v[1], &v[0]);
  const lw_vexpr *es[2] = {&co->a, &co->b};
  lw_cc_blocks(es, 2, &co->nblk, co->blk);
  return 0;
}

/* the controllers' measured distances: coordinates after the joints', in
 * the order of the forces and their measures (lw_cc_measure_coord) */
static int compile_measures(ctx *c, const lw_desc *d, lw_error *err)
{
  lw_model *m = c->m;
  for (int i = 0; i < d->nforces; i++)
    for (int k = 0; k < d->forces[i].nfeedback; k++)
      if (d->forces[i].feedback[k].has_between && measure_coord(c, d, i, k, &m->coords[m->ncoords++], err))
        return -1;
  return 0;
}

/* joints: frames, rows and joint coordinates */
static int compile_joints(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  (void)ps;
  /* joints */
  m->joint_row0 = calloc((size_t)d->njoints + 1, sizeof(int));
  m->joint_coord0 = calloc((size_t)d->njoints + 1, sizeof(int));
  m->njoints = d->njoints;
  m->joint_o = calloc((size_t)d->njoints + 1, sizeof(lw_vexpr));
  m->joint_z = calloc((size_t)d->njoints + 1, sizeof(lw_vexpr));
  int ncoord_total = 0;
  for (int i = 0; i < d->njoints; i++)
    ncoord_total += lw_joint_ncoords(d->joints[i].type, m->planar);
  for (int i = 0; i < d->nforces; i++)
    for (int k = 0; k < d->forces[i].nfeedback; k++)
      ncoord_total += d->forces[i].feedback[k].has_between != 0;
  for (int i = 0; i < d->noutputs; i++) /* a body angle is a coordinate past the joints' */
    ncoord_total += d->outputs[i].type == LW_OUT_BODY_ANGLE;
  m->coords = calloc((size_t)ncoord_total + 1, sizeof(lw_coord));
  if (lw_cc_index_joints(c))
    FAIL("", "out of memory");
  for (int ji = 0; ji < d->njoints; ji++) {
    const lw_joint_desc *j = &d->joints[ji];
    if (check_name("joints", ji, j->name, err))
      goto fail;
    if (lw_cc_names_find(&c->joint_names, j->name) < ji) {
      snprintf(path, sizeof path, "joints/%s", j->name);
      FAIL(path, "duplicate joint name '%s'", j->name);
    }
    snprintf(path, sizeof path, "joints/%s/type", j->name);
    if ((int)j->type < 0 || j->type >= LW_JOINT_NTYPES)
      FAIL(path, "joint '%s': unknown type", j->name);
    if (m->planar && j->type != LW_JOINT_REVOLUTE && j->type != LW_JOINT_PRISMATIC &&
        j->type != LW_JOINT_FIXED)
      FAIL(path, "joint '%s': a %s joint has no meaning in a planar model (use revolute, prismatic or fixed)",
           j->name, lw_joint_type_name(j->type));
    int bi[2];
    for (int k = 0; k < 2; k++) {
      snprintf(path, sizeof path, "joints/%s/body%d", j->name, k + 1);
      bi[k] = lw_cc_body(c, j->body[k]);
      if (bi[k] == -2) {
        if (!j->body[k])
          FAIL(path, "joint '%s': body%d is missing", j->name, k + 1);
        FAIL(path, "joint '%s': body%d '%s' does not exist", j->name, k + 1, j->body[k]);
      }
    }
    if (bi[0] == bi[1]) {
      snprintf(path, sizeof path, "joints/%s/body2", j->name);
      FAIL(path, "joint '%s' joins body '%s' to itself", j->name, j->body[0]);
    }
    if (lw_is_beam_ref(bi[0]) || lw_is_beam_ref(bi[1])) {
      if (beam_joint(c, rs, ji, bi, err))
        goto fail;
      continue;
    }
    for (int k = 0; k < 2; k++)
      if (bi[k] >= 0 && d->bodies[bi[k]].point && j->type != LW_JOINT_SPHERICAL) {
        snprintf(path, sizeof path, "joints/%s/body%d", j->name, k + 1);
        FAIL(path, "joint '%s': body '%s' is a point mass, which has no axes: only a spherical joint holds it",
             j->name, j->body[k]);
      }
    jframe f[2];
    if (joint_frames(c, j, bi, f, err))
      goto fail;
    lw_vexpr O[2], X[2], Y[2], Z[2];
    for (int k = 0; k < 2; k++) {
      O[k] = lw_cc_vx_point(m, bi[k], f[k].o);
      X[k] = vx_vector(m, bi[k], f[k].x);
      Y[k] = vx_vector(m, bi[k], f[k].y);
      Z[k] = vx_vector(m, bi[k], f[k].z);
    }
    m->joint_o[ji] = O[0];
    m->joint_z[ji] = Z[0];
    m->joint_row0[ji] = rs->n;
    joint_rows(m, rs, ji, j->type, O, X, Y, Z);
    m->joint_coord0[ji] = m->ncoords;
    for (int k = 0; k < lw_joint_ncoords(j->type, m->planar); k++)
      make_coord(m, j->type, k, O, X, Y, Z, &m->coords[m->ncoords++]);
    if (lw_cc_joint_friction(m, d, ji, bi, O, X, Y, Z, m->joint_row0[ji], rs->n - m->joint_row0[ji],
                             m->joint_coord0[ji], err))
      goto fail;
  }
  m->joint_row0[d->njoints] = rs->n;
  m->joint_coord0[d->njoints] = m->ncoords;
  return compile_measures(c, d, err);

fail:
  return -1;
}

/* drivers (rows prescribing joint coordinates); the rows and coordinates into the pattern's pairs */
static int compile_drivers(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  /* drivers: prescribed joint coordinates */
  m->drivers = calloc((size_t)d->ndrivers + 1, sizeof(lw_func));
  m->ndrivers = d->ndrivers;
  for (int i = 0; i < d->ndrivers; i++) {
    const lw_driver_desc *dr = &d->drivers[i];
    if (check_name("drivers", i, dr->name, err))
      goto fail;
    snprintf(path, sizeof path, "drivers/%s/joint", dr->name);
    int ci;
    if (lw_cc_coord(c, dr->joint, dr->coordinate, "driver", path, &ci, err))
      goto fail;
    snprintf(path, sizeof path, "drivers/%s/function", dr->name);
    if (!lw_cc_finite(dr->func.a, LW_FUNC_MAXCOEF))
      FAIL(path, "driver '%s': function coefficients must be finite", dr->name);
    if (lw_cc_check_func(&dr->func, path, err))
      goto fail;
    m->drivers[i] = dr->func;
    const lw_coord *co = &m->coords[ci];
    lw_row *r = row_new(rs, LW_OWNER_DRIVER, i);
    r->kind = co->kind;
    r->a = co->a;
    r->b = co->b;
    r->c = co->c;
    r->d = co->d;
    r->c0 = co->offset;
    r->func = i;
  }

  m->nc = rs->n;
  m->rows = rs->r;
  rs->r = NULL;
  for (int r = 0; r < m->nc; r++) {
    finish_row_blocks(&m->rows[r]);
    if (m->rows[r].nblk == 2)
      pair_add(ps, m->rows[r].blk[0], m->rows[r].blk[1]);
  }
  for (int i = 0; i < m->ncoords; i++)
    if (m->coords[i].nblk == 2)
      pair_add(ps, m->coords[i].blk[0], m->coords[i].blk[1]);
  return 0;

fail:
  return -1;
}

/* initial conditions */
static int compile_initial(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  (void)rs;
  (void)ps;
  /* initial conditions */
  m->ninit = d->ninitial;
  m->init_coord = calloc((size_t)m->ninit + 1, sizeof(int));
  m->init_value = calloc((size_t)m->ninit + 1, sizeof(double));
  m->init_vel = calloc((size_t)m->ninit + 1, sizeof(double));
  m->init_has_value = calloc((size_t)m->ninit + 1, sizeof(int));
  m->init_has_vel = calloc((size_t)m->ninit + 1, sizeof(int));
  for (int i = 0; i < m->ninit; i++) {
    const lw_initial_desc *in = &d->initial[i];
    snprintf(path, sizeof path, "initial/%s", in->joint ? in->joint : "?");
    int ci;
    if (lw_cc_coord(c, in->joint, in->coordinate, "initial condition", path, &ci, err))
      goto fail;
    for (int k = 0; k < i; k++)
      if (m->init_coord[k] == ci)
        FAIL(path, "initial condition given twice for joint '%s' coordinate %d", in->joint,
             in->coordinate);
    if ((in->has_value && !isfinite(in->value)) || (in->has_velocity && !isfinite(in->velocity)))
      FAIL(path, "initial value and velocity must be finite");
    m->init_coord[i] = ci;
    m->init_value[i] = in->value;
    m->init_vel[i] = in->velocity;
    m->init_has_value[i] = in->has_value;
    m->init_has_vel[i] = in->has_velocity;
  }
  return 0;

fail:
  return -1;
}

/* forces: the checks every force shares, then its kind's compile hook */
static int compile_forces(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  (void)rs;
  /* forces: the description's, then one a beam element */
  m->nforces = d->nforces;
  for (int k = 0; k < m->nbeams; k++)
    m->nforces += m->beams[k].nel;
  m->forces = calloc((size_t)m->nforces + 1, sizeof(lw_force));
  m->nfbs = 0;
  for (int i = 0; i < d->nforces; i++)
    m->nfbs += d->forces[i].nfeedback;
  m->fbs = calloc((size_t)m->nfbs + 1, sizeof(lw_fb));
  c->nfb = 0;
  for (int i = 0; i < d->nforces; i++) {
    const lw_force_desc *fd = &d->forces[i];
    lw_force *f = &m->forces[i];
    if (check_name("forces", i, fd->name, err))
      goto fail;
    f->type = fd->type;
    f->index = i;
    f->k = fd->stiffness;
    f->c = fd->damping;
    f->rest = fd->rest;
    memcpy(f->vec, fd->vector, sizeof f->vec);
    f->func = fd->func;
    f->body = -1;
    snprintf(path, sizeof path, "forces/%s", fd->name);
    if (!isfinite(fd->stiffness) || fd->stiffness < 0) {
      snprintf(path, sizeof path, "forces/%s/stiffness", fd->name);
      FAIL(path, "force '%s': stiffness must be a nonnegative number", fd->name);
    }
    if (!isfinite(fd->damping) || fd->damping < 0) {
      snprintf(path, sizeof path, "forces/%s/damping", fd->name);
      FAIL(path, "force '%s': damping must be a nonnegative number", fd->name);
    }
    if (!isfinite(fd->rest) || !lw_cc_finite(fd->vector, 3) || !lw_cc_finite(fd->func.a, LW_FUNC_MAXCOEF))
      FAIL(path, "force '%s': values must be finite", fd->name);
    {
      char fp[256];
      snprintf(fp, sizeof fp, "forces/%s/function", fd->name);
      if (lw_cc_check_func(&fd->func, fp, err))
        goto fail;
    }
    if ((int)fd->type < 0 || fd->type >= LW_FORCE_NTYPES) {
      snprintf(path, sizeof path, "forces/%s/type", fd->name);
      FAIL(path, "force '%s': unknown type", fd->name);
    }
    if (lw_force_kind_of(fd->type)->compile(c, i, err))
      goto fail;
    if (f->nblk == 2)
      pair_add(ps, f->blk[0], f->blk[1]);
    if (lw_force_kind_of(f->type)->spring_state && f->c != 0.0)
      m->ndampers++;
    /* lw_force_is_applied: stores no energy, no damper */
    if (!lw_force_kind_of(f->type)->energy && !lw_force_kind_of(f->type)->spring_state)
      m->napplied++;
  }
  m->napplied += m->ndrivers;
  beam_forces(m, d->nforces);
  return 0;

fail:
  return -1;
}

/* a body angle output: the angle of the body's image R e1 of a ground unit
 * vector e1 normal to the axis n, from e1, about n: atan2(e2.R e1, e1.R e1)
 * with e2 = n x e1 (planar: n = z, e1 = x, R e1 the body's x axis).  It
 * is a coordinate like a revolute joint's, past the joints' ones: unwrapped
 * from step to step by lw_coords_update, differentiated by the coordinates'
 * jvp.  For a body turning about n it is its rotation angle; otherwise
 * that of the projection of R e1 on the plane normal to n. */
static int body_angle_coord(ctx *c, const lw_output_desc *od, lw_output *o, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  snprintf(path, sizeof path, "outputs/%s/body", od->name);
  int b = lw_cc_body_index(c->d, od->body);
  if (b == -2 || lw_is_beam_ref(b))
    FAIL(path, "output '%s': body '%s' does not exist%s", od->name, od->body ? od->body : "(missing)",
         lw_is_beam_ref(b) ? " as a rigid body (a beam has no single angle)" : "");
  if (b < 0)
    FAIL(path, "output '%s': the ground does not turn: a body angle reads a moving body", od->name);
  if (m->blk_n[b] == m->nd)
    FAIL(path, "output '%s': body '%s' is a point mass, which has no axes", od->name, od->body);
  double n[3] = {0, 0, 1};
  snprintf(path, sizeof path, "outputs/%s/axis", od->name);
  if (!m->planar) {
    if (!od->has_axis)
      FAIL(path, "output '%s': a spatial model's body angle needs the ground axis it turns about "
                 "(\"axis\": [x, y, z])", od->name);
    double l = sqrt(od->axis[0] * od->axis[0] + od->axis[1] * od->axis[1] + od->axis[2] * od->axis[2]);
    if (!(l > 1e-12) || !lw_cc_finite(od->axis, 3))
      FAIL(path, "output '%s': the axis must be a finite nonzero vector", od->name);
    for (int i = 0; i < 3; i++)
      n[i] = od->axis[i] / l;
  }
  /* e1: the ground's x axis (y when x is almost along n) made normal to n */
  double e1[3] = {1, 0, 0}, e2[3];
  if (fabs(n[0]) > 0.9)
    e1[0] = 0, e1[1] = 1;
  double dn = e1[0] * n[0] + e1[1] * n[1] + e1[2] * n[2], l1 = 0;
  for (int i = 0; i < 3; i++)
    e1[i] -= dn * n[i], l1 += e1[i] * e1[i];
  for (int i = 0; i < 3; i++)
    e1[i] /= sqrt(l1);
  e2[0] = n[1] * e1[2] - n[2] * e1[1];
  e2[1] = n[2] * e1[0] - n[0] * e1[2];
  e2[2] = n[0] * e1[1] - n[1] * e1[0];
  lw_coord *co = &m->coords[m->ncoords];
  memset(co, 0, sizeof *co);
  co->kind = LW_ROW_ANGLE;
  co->a = vx_const(e2);
  co->b = vx_vector(m, b, e1);
  co->c = vx_const(e1);
  co->d = co->b;
  const lw_vexpr *es[4] = {&co->a, &co->b, &co->c, &co->d};
  lw_cc_blocks(es, 4, &co->nblk, co->blk);
  o->coord = m->ncoords++;
  return 0;

fail:
  return -1;
}

/* outputs */
/* a joint_coordinate (joint_velocity) output of a controller's measure
 * `coordinate`: the coordinate it measures */
static int measured_coord(const lw_model *m, const lw_desc *d, const lw_output_desc *od, char *path, size_t np,
                          int *ci, lw_error *err)
{
  snprintf(path, np, "outputs/%s/force", od->name);
  for (int k = 0; k < d->nforces; k++) {
    if (strcmp(d->forces[k].name, od->force))
      continue;
    if (!lw_force_is_controller(d->forces[k].type))
      KFAIL_B(path, "output '%s': force '%s' is a %s, not a controller", od->name, od->force,
              lw_force_type_name(d->forces[k].type));
    if (od->coordinate < 0 || od->coordinate >= m->forces[k].nfb)
      KFAIL_B(path, "output '%s': controller '%s' has %d measure(s); measure %d does not exist", od->name,
              od->force, m->forces[k].nfb, od->coordinate);
    *ci = m->fbs[m->forces[k].fb0 + od->coordinate].coord;
    return 0;
  }
  KFAIL_B(path, "output '%s': controller '%s' does not exist", od->name, od->force);
}

/* a beam's output: the beam, and the arc length of its place */
static int beam_output(ctx *c, const lw_desc *d, const lw_output_desc *od, lw_output *o, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  snprintf(path, sizeof path, "outputs/%s/body", od->name);
  int b = lw_cc_body_index(d, od->body);
  if (!lw_is_beam_ref(b))
    FAIL(path, "output '%s': '%s' is not a beam (a %s output reads a beam)", od->name,
         od->body ? od->body : "(missing)", lw_output_type_name(od->type));
  if (od->type == LW_OUT_BEAM_DEFLECTION && !m->planar)
    FAIL(path, "output '%s': a beam's deflection is measured in a planar model only", od->name);
  o->beam = lw_beam_of_ref(b);
  double p[3] = {0, 0, 0};
  snprintf(path, sizeof path, "outputs/%s/point", od->name);
  if (od->type != LW_OUT_BEAM_ENERGY && lw_cc_resolve_place(c, b, &od->place, path, p, NULL, err))
    goto fail;
  o->bs = p[0];
  return 0;

fail:
  return -1;
}

static int compile_outputs(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  (void)rs;
  (void)ps;
  /* outputs */
  m->nout = d->noutputs;
  m->outputs = calloc((size_t)m->nout + 1, sizeof(lw_output));
  m->out_col = calloc((size_t)m->nout + 1, sizeof(int));
  m->ncols = 0;
  for (int i = 0; i < d->noutputs; i++) {
    const lw_output_desc *od = &d->outputs[i];
    lw_output *o = &m->outputs[i];
    if (check_name("outputs", i, od->name, err))
      goto fail;
    for (int k = 0; k < i; k++)
      if (!strcmp(d->outputs[k].name, od->name)) {
        snprintf(path, sizeof path, "outputs/%s", od->name);
        FAIL(path, "duplicate output name '%s'", od->name);
      }
    o->type = od->type;
    o->width = lw_output_width(od->type, m->planar);
    o->joint = -1;
    o->coord = -1;
    switch (od->type) {
    case LW_OUT_POSITION:
    case LW_OUT_VELOCITY:
    case LW_OUT_ACCELERATION: {
      snprintf(path, sizeof path, "outputs/%s/body", od->name);
      int b = lw_cc_body_index(d, od->body);
      if (b == -2)
        FAIL(path, "output '%s': body '%s' does not exist", od->name, od->body ? od->body : "(missing)");
      double p[3];
      snprintf(path, sizeof path, "outputs/%s/point", od->name);
      if (lw_cc_resolve_place(c, b, &od->place, path, p, NULL, err))
        goto fail;
      o->v = lw_cc_vx_point(m, b, p);
      break;
    }
    case LW_OUT_JOINT_COORDINATE:
    case LW_OUT_JOINT_VELOCITY: {
      snprintf(path, sizeof path, "outputs/%s/joint", od->name);
      int ci;
      if (!od->joint && od->force) {
        if (measured_coord(m, d, od, path, sizeof path, &ci, err))
          goto fail;
      } else if (lw_cc_coord(c, od->joint, od->coordinate, "output", path, &ci, err)) {
        goto fail;
      }
      o->coord = ci;
      break;
    }
    case LW_OUT_CONTROL: {
      snprintf(path, sizeof path, "outputs/%s/force", od->name);
      o->force = -1;
      for (int k = 0; od->force && k < d->nforces; k++)
        if (!strcmp(d->forces[k].name, od->force))
          o->force = k;
      if (o->force < 0)
        FAIL(path, "output '%s': controller '%s' does not exist", od->name, od->force ? od->force : "(missing)");
      if (!lw_force_is_controller(d->forces[o->force].type))
        FAIL(path, "output '%s': force '%s' is a %s, not a controller", od->name, od->force,
             lw_force_type_name(d->forces[o->force].type));
      break;
    }
    case LW_OUT_SPRING_LENGTH:
    case LW_OUT_SPRING_FORCE: {
      snprintf(path, sizeof path, "outputs/%s/force", od->name);
      o->force = -1;
      for (int k = 0; od->force && k < d->nforces; k++)
        if (!strcmp(d->forces[k].name, od->force))
          o->force = k;
      if (o->force < 0)
        FAIL(path, "output '%s': spring-damper '%s' does not exist", od->name, od->force ? od->force : "(missing)");
      if (!lw_force_kind_of(d->forces[o->force].type)->spring_state)
        FAIL(path, "output '%s': force '%s' is a %s, not a spring_damper or joint_spring_damper", od->name,
             od->force, lw_force_type_name(d->forces[o->force].type));
      break;
    }
    case LW_OUT_FRICTION_FORCE:
    case LW_OUT_NORMAL_FORCE:
    case LW_OUT_SLIP_SPEED:
    case LW_OUT_FRICTION_WORK: {
      snprintf(path, sizeof path, "outputs/%s/joint", od->name);
      int ji = -1;
      for (int k = 0; od->joint && k < d->njoints; k++)
        if (!strcmp(d->joints[k].name, od->joint))
          ji = k;
      if (ji < 0)
        FAIL(path, "output '%s': joint '%s' does not exist", od->name, od->joint ? od->joint : "(missing)");
      if (m->joint_fric[ji] < 0)
        FAIL(path, "output '%s': joint '%s' has no friction", od->name, od->joint);
      o->joint = ji;
      o->coord = m->joint_fric[ji]; /* the friction element */
      break;
    }
    case LW_OUT_CONTACT_FORCE:
      o->coord = -1; /* the event's (first) guard, set when the events are compiled */
      break;
    case LW_OUT_BODY_ANGLE:
      if (body_angle_coord(c, od, o, err))
        goto fail;
      break;
    case LW_OUT_BEAM_STRAIN:
    case LW_OUT_BEAM_FORCE:
    case LW_OUT_BEAM_CURVATURE:
    case LW_OUT_BEAM_MOMENT:
    case LW_OUT_BEAM_DEFLECTION:
    case LW_OUT_BEAM_ENERGY:
      if (beam_output(c, d, od, o, err))
        goto fail;
      break;
    case LW_OUT_REACTION_FORCE: {
      snprintf(path, sizeof path, "outputs/%s/joint", od->name);
      int ji = -1;
      for (int k = 0; od->joint && k < d->njoints; k++)
        if (!strcmp(d->joints[k].name, od->joint))
          ji = k;
      if (ji < 0)
        FAIL(path, "output '%s': joint '%s' does not exist", od->name, od->joint ? od->joint : "(missing)");
      o->joint = ji;
      /* the force on body 2, or minus the force on body 1 when body 2 is the ground */
      int b2 = lw_cc_body_index(d, d->joints[ji].body[1]), b1 = lw_cc_body_index(d, d->joints[ji].body[0]);
      if (lw_is_beam_ref(b1) || lw_is_beam_ref(b2))
        FAIL(path, "output '%s': the reaction of joint '%s', which holds a beam, is not available", od->name,
             od->joint);
      o->rbody = b2 >= 0 ? b2 : b1;
      o->rsign = b2 >= 0 ? 1.0 : -1.0;
      break;
    }
    default:
      break;
    }
    m->out_col[i] = m->ncols;
    m->ncols += o->width;
  }
  return 0;

fail:
  return -1;
}

/* objectives and their terms */
static int compile_objectives(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  char path[256];
  (void)rs;
  (void)ps;
  /* objectives */
  m->nobj = d->nobjectives;
  m->objs = calloc((size_t)m->nobj + 1, sizeof(lw_objective));
  for (int i = 0; i < d->nobjectives; i++)
    m->nterms += d->objectives[i].nterms;
  m->terms = calloc((size_t)m->nterms + 1, sizeof(lw_term));
  for (int i = 0, nt = 0; i < d->nobjectives; i++) {
    const lw_objective_desc *od = &d->objectives[i];
    if (check_name("objectives", i, od->name, err))
      goto fail;
    snprintf(path, sizeof path, "objectives/%s", od->name);
    for (int k = 0; k < i; k++)
      if (!strcmp(d->objectives[k].name, od->name))
        FAIL(path, "duplicate objective name '%s'", od->name);
    for (int k = 0; k < d->noutputs; k++)
      if (!strcmp(d->outputs[k].name, od->name))
        FAIL(path, "objective '%s' has the name of an output", od->name);
    if (od->nterms == 0)
      FAIL(path, "objective '%s' has no terms", od->name);
    m->objs[i].first = nt;
    m->objs[i].n = od->nterms;
    for (int k = 0; k < od->nterms; k++, nt++) {
      const lw_term_desc *td = &od->terms[k];
      lw_term *t = &m->terms[nt];
      snprintf(path, sizeof path, "objectives/%s/terms/%d/output", od->name, k);
      t->output = -1;
      for (int j = 0; td->output && j < d->noutputs; j++)
        if (!strcmp(d->outputs[j].name, td->output))
          t->output = j;
      if (t->output < 0)
        FAIL(path, "objective '%s': output '%s' does not exist", od->name,
             td->output ? td->output : "(missing)");
      lw_output_type ot = m->outputs[t->output].type;
      if (ot == LW_OUT_DISSIPATED_ENERGY || (ot >= LW_OUT_FRICTION_FORCE && ot < LW_OUT_BEAM_STRAIN) ||
          ot == LW_OUT_CONTACT_FORCE || ot == LW_OUT_APPLIED_WORK || ot == LW_OUT_ENERGY_BALANCE)
        FAIL(path, "objective '%s': output '%s' (%s) cannot be used in an objective: "
                   "its sensitivities are not computed", od->name, td->output,
             lw_output_type_name(m->outputs[t->output].type));
      t->col = m->out_col[t->output];
      t->width = m->outputs[t->output].width;
      snprintf(path, sizeof path, "objectives/%s/terms/%d/component", od->name, k);
      if (td->component < -1 || td->component >= t->width)
        FAIL(path, "objective '%s': output '%s' has no component %d (it has %d)", od->name,
             td->output, td->component, t->width);
      t->comp = td->component;
      if (td->kind != LW_TERM_INTEGRAL && td->kind != LW_TERM_FINAL)
        FAIL(path, "objective '%s': unknown term kind", od->name);
      if (td->form != LW_TERM_SQUARE && td->form != LW_TERM_VALUE && td->form != LW_TERM_ABOVE && td->form != LW_TERM_BELOW)
        FAIL(path, "objective '%s': unknown term form", od->name);
      t->kind = td->kind;
      t->form = td->form;
      snprintf(path, sizeof path, "objectives/%s/terms/%d/weight", od->name, k);
      if (!isfinite(td->weight) || !lw_cc_finite(td->target, 3))
        FAIL(path, "objective '%s': weight and target must be finite", od->name);
      t->weight = td->weight;
      memcpy(t->target, td->target, sizeof t->target);
    }
  }
  return 0;

fail:
  return -1;
}

/* the sparsity pattern of the Newton matrix and the mass in it */
static int compile_pattern(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  (void)d;
  (void)rs;
  (void)err;
  build_pattern(m, ps);
  for (int r = 0; r < m->nc; r++)
    set_pairpos(m, m->rows[r].nblk, m->rows[r].blk, m->rows[r].pairpos);
  for (int i = 0; i < m->ncoords; i++)
    set_pairpos(m, m->coords[i].nblk, m->coords[i].blk, m->coords[i].pairpos);
  for (int i = 0; i < m->nforces; i++)
    set_pairpos(m, m->forces[i].nblk, m->forces[i].blk, m->forces[i].pairpos);
  for (int e = 0; e < m->nfric; e++)
    set_pairpos(m, m->fric[e].nblk, m->fric[e].blk, m->fric[e].pairpos);
  m->mass_csc = calloc((size_t)m->nnz, sizeof(double));
  for (int b = 0; b < m->nb; b++) {
    int n = m->blk_n[b], row = pattern_row(m, b, b);
    const double *M = m->mass_blocks + m->mblk_off[b];
    for (int kc = 0; kc < n; kc++) {
      for (int kr = 0; kr <= kc; kr++)
        m->mass_csc[m->colptr[m->blk_off[b] + kc] + row + kr] = M[kc * n + kr];
      m->mass_scale = fmax(m->mass_scale, M[kc * n + kc]);
      m->mass_min = b == 0 && kc == 0 ? M[0] : fmin(m->mass_min, M[kc * n + kc]);
    }
  }
  return 0;
}

/* the inverse mass blocks, their conditioning and the dense pairs */
static int compile_mass_inverse(ctx *c, lw_desc *d, rowset *rs, pairset *ps, lw_error *err)
{
  lw_model *m = c->m;
  (void)d;
  (void)rs;
  (void)ps;
  /* dense below this size (bench/), CHOLMOD above */
  m->dense = m->nq <= 96;
  m->minv_blocks = calloc(m->mblk_off[m->nb], sizeof(double));
  for (int b = 0; b < m->nb; b++) {
    int n = m->blk_n[b];
    const double *M = m->mass_blocks + m->mblk_off[b];
    double *X = m->minv_blocks + m->mblk_off[b];
    /* Gauss-Jordan on a copy (the blocks are symmetric positive definite) */
    double A[LW_MAXQB * LW_MAXQB];
    memcpy(A, M, sizeof(double) * (size_t)n * n);
    for (int i = 0; i < n; i++)
      X[i * n + i] = 1.0;
    for (int k = 0; k < n; k++) {
      double piv = A[k * n + k];
      for (int j = 0; j < n; j++) {
        A[j * n + k] /= piv;
        X[j * n + k] /= piv;
      }
      for (int i = 0; i < n; i++) {
        if (i == k)
          continue;
        double f = A[k * n + i];
        if (f == 0.0)
          continue;
        for (int j = 0; j < n; j++) {
          A[j * n + i] -= f * A[j * n + k];
          X[j * n + i] -= f * X[j * n + k];
        }
      }
    }
  }
  for (int b = 0; b < m->nb; b++) {
    int n = m->blk_n[b];
    const double *M = m->mass_blocks + m->mblk_off[b], *X = m->minv_blocks + m->mblk_off[b];
    double nm = 0, nx = 0;
    for (int j = 0; j < n; j++) {
      double cm = 0, cx = 0;
      for (int i = 0; i < n; i++) {
        cm += fabs(M[j * n + i]);
        cx += fabs(X[j * n + i]);
      }
      nm = fmax(nm, cm);
      nx = fmax(nx, cx);
    }
    double cond = nm * nx;
    m->minv_cond = fmax(m->minv_cond, cond == cond ? cond : INFINITY);
  }
  if (m->dense) {
    /* the pairs of equations that share a body, for S = J M^-1 J^T */
    int w = m->wrow, n = 0;
    for (int pass = 0; pass < 2; pass++) {
      for (int cc = 0; cc < m->nc; cc++)
        for (int r = 0; r <= cc; r++)
          for (int a = 0; a < m->rows[r].nblk; a++)
            for (int b = 0; b < m->rows[cc].nblk; b++)
              if (m->rows[r].blk[a] == m->rows[cc].blk[b]) {
                if (pass) {
                  m->spair[4 * n] = r * m->nc + cc;
                  m->spair[4 * n + 1] = r * w + lw_loc(m, m->rows[r].blk, a, m->nqb);
                  m->spair[4 * n + 2] = cc * w + lw_loc(m, m->rows[cc].blk, b, m->nqb);
                  m->spair[4 * n + 3] = cc * m->nc + r;
                  m->spair_n[n] = m->blk_n[m->rows[r].blk[a]];
                }
                n++;
              }
      if (!pass) {
        m->nspair = n;
        m->spair = malloc(sizeof(int) * 4 * ((size_t)n + 1));
        m->spair_n = malloc(sizeof(int) * ((size_t)n + 1));
        if (!m->spair || !m->spair_n)
          FAIL("", "out of memory");
        n = 0;
      }
    }
  }
  return 0;

fail:
  return -1;
}

/* the resting guards' rows: a contact's n.p(q) - offset, a limit's
 * coordinate minus its bound (each zero where the guard is) */
static int append_rest_rows(lw_model *m, const int *rest, int nrest)
{
  if (!nrest)
    return 0;
  lw_row *rows = realloc(m->rows, sizeof *rows * (size_t)(m->nc + nrest));
  if (!rows)
    return -1;
  m->rows = rows;
  for (int i = 0; i < nrest; i++) {
    const lw_guard *g = &m->guards[rest[i]];
    lw_row *r = &m->rows[m->nc++];
    memset(r, 0, sizeof *r);
    r->func = -1;
    r->kind = LW_ROW_DOT;
    /* the row is named after the contact's body or the limit's joint */
    int on_body = g->type == LW_EVENT_CONTACT || g->type == LW_EVENT_CAPTURE || g->type == LW_EVENT_COLLISION;
    r->owner_kind = on_body ? LW_OWNER_BODY : LW_OWNER_JOINT;
    r->owner = g->v.body[0];
    for (int j = 0; !on_body && j < m->njoints; j++)
      if (g->coord >= m->joint_coord0[j] && g->coord < m->joint_coord0[j + 1])
        r->owner = j;
    if (g->type == LW_EVENT_CAPTURE || g->type == LW_EVENT_COLLISION) {
      /* |p - centre|^2 - R^2, |p1 - p2|^2 - d^2 */
      r->a = g->v;
      r->b = g->v;
      r->c0 = g->offset * g->offset;
    } else if (g->type == LW_EVENT_CONTACT) {
      r->a = g->v;
      memset(&r->b, 0, sizeof r->b);
      memcpy(r->b.c, g->n, sizeof g->n);
      r->c0 = g->offset;
    } else {
      const lw_coord *co = &m->coords[g->coord];
      r->kind = co->kind;
      r->a = co->a;
      r->b = co->b;
      r->c = co->c;
      r->d = co->d;
      r->c0 = co->offset + g->offset;
    }
    finish_row_blocks(r);
  }
  return 0;
}

static lw_model *compile(const lw_desc *src, int constants_only, const int *rest, int nrest, lw_error *err)
{
  rowset rs = {0};
  pairset ps = {0};
  ctx c = {0};
  static unsigned long serials;
  lw_model *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
  lw_desc *d = lw_desc_copy(src);
  m->desc = d;
  c.d = d;
  c.m = m;
  if (err)
    memset(err, 0, sizeof *err);

  if (compile_settings(&c, d, &rs, &ps, err) ||
      compile_bodies(&c, d, &rs, &ps, err) ||
      compile_beams(&c, d, &rs, &ps, err) ||
      compile_joints(&c, d, &rs, &ps, err) ||
      compile_drivers(&c, d, &rs, &ps, err) ||
      compile_initial(&c, d, &rs, &ps, err) ||
      compile_forces(&c, d, &rs, &ps, err) ||
      compile_outputs(&c, d, &rs, &ps, err) ||
      lw_compile_events(&c, err) ||
      append_rest_rows(m, rest, nrest) ||
      compile_objectives(&c, d, &rs, &ps, err) ||
      compile_pattern(&c, d, &rs, &ps, err) ||
      compile_mass_inverse(&c, d, &rs, &ps, err) ||
      lw_opt_check_model(m, &m->opt, err))
    goto fail;
  if (!constants_only && lw_lin_prepare(m))
    FAIL("", "out of memory");
  free(c.R);
  free(ps.p);
  lw_cc_names_free(&c);
  return m;

fail:
  free(c.R);
  free(ps.p);
  lw_cc_names_free(&c);
  free(rs.r);
  lw_model_free(m);
  return NULL;
}






