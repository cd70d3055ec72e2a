/* lw_hess.c: the compile-time tables of the step's linearization: the
 * constant Hessians of the DOT rows and of the joint coordinates' scalars,
 * and whether the linearization couples bodies. */
#include "compile/lw_hess.h"
#include "lw_internal.h"
#include "la/lw_rowvec.h"
#include "kind/lw_kind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the nd x w matrix of a vexpr over the blocks blk (row-major, w their
 * coordinates) */
void lw_vexpr_matrix(const lw_model *m, const lw_vexpr *e, int nblk, const int *blk, double *A)
{
  int nqb = m->nqb, w = lw_loc_width(m, nblk, blk, nqb);
  memset(A, 0, sizeof(double) * (size_t)m->nd * w);
  for (int t = 0; t < e->nterm; t++) {
    int k = 0;
    while (k < nblk && blk[k] != e->body[t])
      k++;
    const double *wt = e->w[t];
    int o = lw_loc(m, blk, k, nqb);
    double *a0 = A + o, *a1 = A + w + o;
    if (lw_is_point(m, e->body[t])) {
      /* a point: its position alone */
      a0[0] += wt[0];
      a1[1] += wt[0];
      if (m->nd == 3)
        A[2 * w + o + 2] += wt[0];
    } else if (m->nd == 2 && m->blk_n[e->body[t]] == 8) {
      /* a planar beam element */
      for (int j = 0; j < 4; j++) {
        a0[2 * j] += wt[j];
        a1[2 * j + 1] += wt[j];
      }
    } else if (m->nd == 3) {
      double *a2 = A + 2 * w + o;
      for (int j = 0; j < 4; j++) {
        a0[3 * j] += wt[j];
        a1[3 * j + 1] += wt[j];
        a2[3 * j + 2] += wt[j];
      }
    } else {
      a0[0] += wt[0];
      a1[1] += wt[0];
      a0[2] += wt[1];
      a0[3] -= wt[2];
      a1[3] += wt[1];
      a1[2] += wt[2];
    }
  }
}

/* A bilinear form of q (a row or a coordinate) as hess_table reads it */
typedef struct {
  int skip;  /* no Hessian kept */
  int angle; /* the Hessian of c.d as well (an angle's cosine side) */
  const lw_vexpr *a, *b, *c, *d;
  int nblk;
  const int *blk;
} hform;

static void row_form(const lw_model *m, int k, hform *f)
{
  const lw_row *r = &m->rows[k];
  *f = (hform){!lw_row_kind_of(r->kind)->const_hessian, 0, &r->a, &r->b, &r->c, &r->d, r->nblk, r->blk};
}

static void coord_form(const lw_model *m, int k, hform *f)
{
  const lw_coord *c = &m->coords[k];
  *f = (hform){0, lw_row_kind_of(c->kind)->nvec == 4, &c->a, &c->b, &c->c, &c->d, c->nblk, c->blk};
}

/* The constant Hessians of n bilinear forms over their bodies' coordinates
 * (w of them): H(a.b) = A^T B + B^T A, and H(c.d) as a second
 * value (nval = 2) for angles.  Form k's entries where a value is nonzero:
 * ptr[k] .. ptr[k + 1], at local coordinates (ij[2e], ij[2e + 1]) with
 * values v[nval e ..].  *cross (when given) is set where an entry couples
 * two bodies.  Counted in a first pass, filled in a second. */
static int hess_table(const lw_model *m, int n, void (*get)(const lw_model *, int, hform *), int nval, int **ptr,
                      int **ij, double **v, int *cross)
{
  int nqb = m->nqb, nd = m->nd;
  double A[3 * 2 * LW_MAXQB], B[3 * 2 * LW_MAXQB], C[3 * 2 * LW_MAXQB], D[3 * 2 * LW_MAXQB];
  *ptr = calloc((size_t)n + 1, sizeof(int));
  if (!*ptr)
    return -1;
  for (int pass = 0; pass < 2; pass++) {
    int e = 0;
    for (int k = 0; k < n; k++) {
      hform f;
      get(m, k, &f);
      if (pass == 0)
        (*ptr)[k] = e;
      if (f.skip)
        continue;
      int w = lw_loc_width(m, f.nblk, f.blk, nqb);
      lw_vexpr_matrix(m, f.a, f.nblk, f.blk, A);
      lw_vexpr_matrix(m, f.b, f.nblk, f.blk, B);
      if (f.angle) {
        lw_vexpr_matrix(m, f.c, f.nblk, f.blk, C);
        lw_vexpr_matrix(m, f.d, f.nblk, f.blk, D);
      }
      for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
          double h[2] = {0, 0};
          for (int c = 0; c < nd; c++) {
            h[0] += A[c * w + i] * B[c * w + j] + B[c * w + i] * A[c * w + j];
            if (f.angle)
              h[1] += C[c * w + i] * D[c * w + j] + D[c * w + i] * C[c * w + j];
          }
          if (h[0] == 0.0 && h[1] == 0.0)
            continue;
          if (pass) {
            (*ij)[2 * e] = i;
            (*ij)[2 * e + 1] = j;
            for (int l = 0; l < nval; l++)
              (*v)[(size_t)nval * e + l] = h[l];
          } else if (cross && f.nblk > 1 && (i < m->blk_n[f.blk[0]]) != (j < m->blk_n[f.blk[0]])) {
            *cross = 1;
          }
          e++;
        }
    }
    if (pass == 0) {
      (*ptr)[n] = e;
      *ij = malloc(sizeof(int) * 2 * ((size_t)e + 1));
      *v = malloc(sizeof(double) * (size_t)nval * ((size_t)e + 1));
      if (!*ij || !*v)
        return -1;
    }
  }
  return 0;
}

/* the gradients of the DOT rows one of whose vectors is constant, made by
 * the kind's value hook as lw_rows_eval calls it: the gradient is the
 * linear vector's matrix times the constant one, the same at every q to
 * the bit.  None kept (the tables NULL) when no row has one. */
static int const_gradients(lw_model *m)
{
  int w = m->wrow, any = 0;
  for (int r = 0; r < m->nc; r++)
    any |= m->rows[r].kind == LW_ROW_DOT && (m->rows[r].a.nterm == 0 || m->rows[r].b.nterm == 0);
  if (!any)
    return 0;
  m->row_gconst = calloc((size_t)m->nc, 1);
  m->row_grad = calloc((size_t)m->nc * (size_t)w, sizeof(double));
  if (!m->row_gconst || !m->row_grad)
    return -1;
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    if (row->kind != LW_ROW_DOT || (row->a.nterm != 0 && row->b.nterm != 0))
      continue;
    const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
    lw_row_kind_of(row->kind)->value(m, v, m->q0, row->nblk, row->blk, m->row_grad + (size_t)r * w);
    m->row_gconst[r] = 1;
  }
  return 0;
}

/* the DOT rows' and the coordinates' constant Hessians, and whether the
 * step's linearization couples bodies (the cases lw_lin_blocks writes
 * across two) */
int lw_lin_prepare(lw_model *m)
{
  m->lin_coupled = 0;
  m->rq0 = malloc(sizeof(int) * 2 * ((size_t)m->nc + 1));
  if (!m->rq0)
    return -1;
  for (int r = 0; r < m->nc; r++) {
    for (int k = 0; k < 2; k++)
      m->rq0[2 * r + k] = k < m->rows[r].nblk ? m->blk_off[m->rows[r].blk[k]] : -1;
    if (!lw_row_kind_of(m->rows[r].kind)->const_hessian && m->rows[r].nblk > 1)
      m->lin_coupled = 1;
  }
  if (hess_table(m, m->nc, row_form, 1, &m->rh_ptr, &m->rh_ij, &m->rh_v, &m->lin_coupled) || const_gradients(m))
    return -1;
  for (int n = 0; n < m->nforces; n++) {
    const int *blk;
    if (lw_force_blocks(m, &m->forces[n], &blk) > 1)
      m->lin_coupled = 1;
  }
  return hess_table(m, m->ncoords, coord_form, 2, &m->ch_ptr, &m->ch_ij, &m->ch_v, NULL);
}
