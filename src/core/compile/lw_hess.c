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

/* the products making component i of vexpr e in the order eval_n
 * (compile/lw_vexpr.c) sums them for block size N, those by a zero weight
 * left out: term t's into af_q, af_w from *ne on (NULL: counted alone),
 * each term's end into af_eptr from *ng on */
static void affine_terms(lw_model *m, const lw_vexpr *e, int i, const int N, int *ng, int *ne)
{
  int nd = m->nd;
  for (int t = 0; t < e->nterm; t++) {
    int b = e->body[t], o = m->blk_off[b], q[4], nq = 0;
    double w[4];
    const double *wt = e->w[t];
    if (N != 4 && N != 12 && lw_is_point(m, b)) {
      q[0] = o + i, w[0] = wt[0], nq = 1;
    } else if (nd == 2 && N != 4 && lw_bn(m, b, N) == 8) {
      for (int j = 0; j < 4; j++)
        q[j] = o + 2 * j + i, w[j] = wt[j];
      nq = 4;
    } else if (nd == 3) {
      for (int j = 0; j < 4; j++)
        q[j] = o + 3 * j + i, w[j] = wt[j];
      nq = 4;
    } else {
      /* r0 + w1 u + w2 S u: v0 = w0 x + w1 u_x - w2 u_y, v1 = w0 y + w1 u_y + w2 u_x */
      q[0] = o + i, w[0] = wt[0];
      q[1] = o + 2 + i, w[1] = wt[1];
      q[2] = o + 3 - i, w[2] = i == 0 ? -wt[2] : wt[2];
      nq = 3;
    }
    int n0 = *ne;
    for (int j = 0; j < nq; j++)
      if (w[j] != 0.0) {
        if (m->af_q) {
          m->af_q[*ne] = q[j];
          m->af_w[*ne] = w[j];
        }
        ++*ne;
      }
    if (*ne == n0)
      continue;
    if (m->af_eptr)
      m->af_eptr[*ng + 1] = *ne;
    ++*ng;
  }
}

/* the tables of the affine rows (those of constant gradient): counted in
 * a first pass, filled in a second (lw_internal.h, gz_ and af_) */
static void affine_fill(lw_model *m, int *nz, int *nk, int *ng, int *ne)
{
  int N = m->nqb == 4 ? 4 : m->nqb == 8 && m->nd == 2 ? 8 : m->nqb == 12 ? 12 : m->nqb;
  *nz = *nk = *ng = *ne = 0;
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    if (m->af_ptr)
      m->gz_ptr[r] = *nz, m->af_ptr[r] = *nk;
    if (!m->row_gconst[r])
      continue;
    int w = lw_loc_width(m, row->nblk, row->blk, 0);
    const double *g = m->row_grad + (size_t)r * m->wrow;
    for (int l = 0; l < w; l++)
      if (g[l] != 0.0) {
        if (m->af_ptr) {
          m->gz_loc[*nz] = l;
          m->gz_q[*nz] = lw_loc_global(m, row->blk, l, 0);
        }
        ++*nz;
      }
    /* the constant vector and the linear one */
    const lw_vexpr *cv = row->a.nterm == 0 ? &row->a : &row->b, *lv = cv == &row->a ? &row->b : &row->a;
    for (int i = 0; i < m->nd; i++) {
      if (cv->c[i] == 0.0)
        continue;
      if (m->af_ptr) {
        m->af_cb[*nk] = cv->c[i];
        m->af_c[*nk] = lv->c[i];
        m->af_gptr[*nk] = *ng;
      }
      affine_terms(m, lv, i, N, ng, ne);
      ++*nk;
    }
  }
  if (m->af_ptr) {
    m->gz_ptr[m->nc] = *nz, m->af_ptr[m->nc] = *nk;
    m->af_gptr[*nk] = *ng;
    m->af_eptr[0] = 0;
  }
}

/* the additions of s g g^T for each affine row, in add_outer_nz's order
 * (la/lw_matrix.c): pairs of its blocks (x, y) with blk[x] <= blk[y],
 * then y's nonzero entries, then x's up to the diagonal; counted alone
 * while m->op_pos is NULL */
static int outer_ops(lw_model *m)
{
  int n = 0, nqb = m->nqb;
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    if (m->op_pos)
      m->op_ptr[r] = n;
    if (!m->row_gconst[r])
      continue;
    int n0 = m->blk_n[row->blk[0]];
    for (int x = 0; x < row->nblk; x++)
      for (int y = 0; y < row->nblk; y++) {
        int bi = row->blk[x], bj = row->blk[y];
        if (bi > bj)
          continue;
        int prow = row->pairpos[x == y ? (x == 0 ? 0 : 2) : 1], ni = lw_bn(m, bi, nqb), cj = lw_boff(m, bj, nqb);
        int ox = lw_loc(m, row->blk, x, nqb), oy = lw_loc(m, row->blk, y, nqb);
        for (int ey = m->gz_ptr[r]; ey < m->gz_ptr[r + 1]; ey++) {
          int ly = m->gz_loc[ey];
          if ((ly >= n0) != y)
            continue;
          int kc = ly - oy, kmax = bi == bj ? kc + 1 : ni;
          for (int ex = m->gz_ptr[r]; ex < m->gz_ptr[r + 1]; ex++) {
            int lx = m->gz_loc[ex];
            if ((lx >= n0) != x || lx - ox >= kmax)
              continue;
            if (m->op_pos) {
              m->op_pos[n] = m->colptr[cj + kc] + prow + lx - ox;
              m->op_a[n] = ly;
              m->op_b[n] = lx;
            }
            n++;
          }
        }
      }
  }
  if (m->op_pos)
    m->op_ptr[m->nc] = n;
  return n;
}

static int affine_rows(lw_model *m)
{
  if (!m->row_gconst)
    return 0;
  int nz, nk, ng, ne;
  affine_fill(m, &nz, &nk, &ng, &ne);
  size_t nc1 = (size_t)m->nc + 1;
  m->gz_ptr = malloc(sizeof(int) * nc1);
  m->gz_loc = malloc(sizeof(int) * ((size_t)nz + 1));
  m->gz_q = malloc(sizeof(int) * ((size_t)nz + 1));
  m->af_gptr = malloc(sizeof(int) * ((size_t)nk + 1));
  m->af_eptr = malloc(sizeof(int) * ((size_t)ng + 1));
  m->af_q = malloc(sizeof(int) * ((size_t)ne + 1));
  m->af_cb = malloc(sizeof(double) * ((size_t)nk + 1));
  m->af_c = malloc(sizeof(double) * ((size_t)nk + 1));
  m->af_w = malloc(sizeof(double) * ((size_t)ne + 1));
  m->af_ptr = malloc(sizeof(int) * nc1);
  if (!m->gz_ptr || !m->gz_loc || !m->gz_q || !m->af_gptr || !m->af_eptr || !m->af_q || !m->af_cb || !m->af_c ||
      !m->af_w || !m->af_ptr)
    return -1;
  affine_fill(m, &nz, &nk, &ng, &ne);
  m->af_c0 = malloc(sizeof(double) * nc1);
  m->af_func = malloc(sizeof(int) * nc1);
  m->var_runs = malloc(sizeof(int) * 2 * nc1);
  if (!m->af_c0 || !m->af_func || !m->var_runs)
    return -1;
  m->nvar_runs = 0;
  for (int r = 0; r < m->nc; r++) {
    m->af_c0[r] = m->rows[r].c0;
    m->af_func[r] = m->rows[r].func;
    if (m->row_gconst[r])
      continue;
    if (m->nvar_runs && m->var_runs[2 * m->nvar_runs - 1] == r)
      m->var_runs[2 * m->nvar_runs - 1] = r + 1;
    else {
      m->var_runs[2 * m->nvar_runs] = r;
      m->var_runs[2 * m->nvar_runs + 1] = r + 1;
      m->nvar_runs++;
    }
  }
  int nop = outer_ops(m);
  m->op_ptr = malloc(sizeof(int) * nc1);
  m->op_pos = malloc(sizeof(int) * ((size_t)nop + 1));
  m->op_a = malloc(sizeof(int) * ((size_t)nop + 1));
  m->op_b = malloc(sizeof(int) * ((size_t)nop + 1));
  if (!m->op_ptr || !m->op_pos || !m->op_a || !m->op_b)
    return -1;
  outer_ops(m);
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
  if (hess_table(m, m->nc, row_form, 1, &m->rh_ptr, &m->rh_ij, &m->rh_v, &m->lin_coupled) || const_gradients(m) ||
      affine_rows(m))
    return -1;
  for (int n = 0; n < m->nforces; n++) {
    const int *blk;
    if (lw_force_blocks(m, &m->forces[n], &blk) > 1)
      m->lin_coupled = 1;
  }
  return hess_table(m, m->ncoords, coord_form, 2, &m->ch_ptr, &m->ch_ij, &m->ch_v, NULL);
}
