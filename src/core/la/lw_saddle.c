/* lw_saddle.c: the saddle-point matrix K = [A  Gl^T; Gr  0] of the
 * variational step (integ/vi_step.c) as one sparse matrix, LU-factorized
 * by KLU.  On a beam of many elements, joined node to node by rows, the
 * rows are as many as half the coordinates: the Schur complement G A^-1
 * G^T the dense path forms is then a dense nc x nc matrix, one solve with
 * A per row and an O(nc^3) factorization, where K itself is banded and
 * factorizes in time linear in its size.  The pattern (A's, mirrored, and
 * the rows' blocks) and KLU's analysis are made once; each factorization
 * scatters the values through maps kept from the pattern and refactors in
 * the pivot order of the first (no allocation), falling back to a fresh
 * factorization with pivoting when that order has grown ill conditioned. */
#include "la/lw_saddle.h"

#include <klu.h>
#include <stdlib.h>
#include <string.h>

struct lw_saddle {
  int n, nnz;
  int *Ap, *Ai;
  double *Ax, *b;
  /* where each value goes in Ax: A's upper entries (and their mirror,
   * -1 on the diagonal), the gradients' entries into Gr's and Gl^T's
   * places (-1 beyond a row's width) */
  int *a_up, *a_lo, *g_r, *g_l;
  klu_common cc;
  klu_symbolic *sym;
  klu_numeric *num;
};

typedef struct {
  int i, j, src;
} trip;

static int trip_cmp(const void *a, const void *b)
{
  const trip *x = a, *y = b;
  if (x->j != y->j)
    return x->j < y->j ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* the entries of K: (row, column) and their source: A's upper entry k as
 * k (its mirror as nnz + k), gradient entry e of Gr as 2 nnz + e, of Gl^T
 * as 2 nnz + nc wrow + e */
static int triplets(const lw_model *m, trip *t)
{
  int nt = 0, nq = m->nq, nnz = m->nnz, ng = m->nc * m->wrow;
  for (int c = 0; c < nq; c++)
    for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++) {
      int r = m->rowind[k];
      t[nt++] = (trip){r, c, k};
      if (r != c)
        t[nt++] = (trip){c, r, nnz + k};
    }
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    for (int k = 0; k < row->nblk; k++) {
      int b = row->blk[k], o = m->blk_off[b], l = lw_loc(m, row->blk, k, 0);
      for (int j = 0; j < m->blk_n[b]; j++) {
        int e = r * m->wrow + l + j;
        t[nt++] = (trip){nq + r, o + j, 2 * nnz + e};
        t[nt++] = (trip){o + j, nq + r, 2 * nnz + ng + e};
      }
    }
  }
  return nt;
}

/* the compressed columns of the triplets, duplicates summed, and each
 * source's place */
static int compress(lw_saddle *s, const lw_model *m, trip *t, int nt)
{
  int nnz = m->nnz, ng = m->nc * m->wrow;
  qsort(t, (size_t)nt, sizeof *t, trip_cmp);
  s->Ap = calloc((size_t)s->n + 1, sizeof(int));
  s->Ai = malloc(sizeof(int) * ((size_t)nt + 1));
  s->a_up = malloc(sizeof(int) * ((size_t)nnz + 1));
  s->a_lo = malloc(sizeof(int) * ((size_t)nnz + 1));
  s->g_r = malloc(sizeof(int) * ((size_t)ng + 1));
  s->g_l = malloc(sizeof(int) * ((size_t)ng + 1));
  if (!s->Ap || !s->Ai || !s->a_up || !s->a_lo || !s->g_r || !s->g_l)
    return -1;
  for (int k = 0; k < nnz; k++)
    s->a_lo[k] = -1;
  for (int e = 0; e < ng; e++)
    s->g_r[e] = s->g_l[e] = -1;
  int q = -1;
  for (int k = 0; k < nt; k++) {
    if (k == 0 || t[k].i != t[k - 1].i || t[k].j != t[k - 1].j) {
      s->Ai[++q] = t[k].i;
      s->Ap[t[k].j + 1]++;
    }
    int src = t[k].src;
    if (src < nnz)
      s->a_up[src] = q;
    else if (src < 2 * nnz)
      s->a_lo[src - nnz] = q;
    else if (src < 2 * nnz + ng)
      s->g_r[src - 2 * nnz] = q;
    else
      s->g_l[src - 2 * nnz - ng] = q;
  }
  for (int c = 0; c < s->n; c++)
    s->Ap[c + 1] += s->Ap[c];
  s->nnz = q + 1;
  return 0;
}

lw_saddle *lw_saddle_new(const lw_model *m)
{
  lw_saddle *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->n = m->nq + m->nc;
  size_t cap = 2 * (size_t)m->nnz + 2 * (size_t)m->nc * (size_t)m->wrow + 1;
  trip *t = malloc(sizeof *t * cap);
  int ok = t && compress(s, m, t, triplets(m, t)) == 0;
  free(t);
  s->Ax = ok ? calloc((size_t)s->nnz + 1, sizeof(double)) : NULL;
  s->b = ok ? calloc((size_t)s->n, sizeof(double)) : NULL;
  if (ok && s->Ax && s->b) {
    klu_defaults(&s->cc);
    s->sym = klu_analyze(s->n, s->Ap, s->Ai, &s->cc);
  }
  if (!s->sym) {
    lw_saddle_free(s);
    return NULL;
  }
  return s;
}

void lw_saddle_free(lw_saddle *s)
{
  if (!s)
    return;
  if (s->num)
    klu_free_numeric(&s->num, &s->cc);
  if (s->sym)
    klu_free_symbolic(&s->sym, &s->cc);
  free(s->Ap), free(s->Ai), free(s->Ax), free(s->b);
  free(s->a_up), free(s->a_lo), free(s->g_r), free(s->g_l);
  free(s);
}

/* K's values from A's and the gradients */
static void scatter(lw_saddle *s, const lw_model *m, const double *vals, const double *gl, const double *gr)
{
  memset(s->Ax, 0, sizeof(double) * (size_t)s->nnz);
  for (int k = 0; k < m->nnz; k++) {
    s->Ax[s->a_up[k]] += vals[k];
    if (s->a_lo[k] >= 0)
      s->Ax[s->a_lo[k]] += vals[k];
  }
  int ng = m->nc * m->wrow;
  for (int e = 0; e < ng; e++)
    if (s->g_r[e] >= 0) {
      s->Ax[s->g_r[e]] += gr[e];
      s->Ax[s->g_l[e]] += gl[e];
    }
}

int lw_saddle_factor(lw_saddle *s, const lw_model *m, const double *vals, const double *gl, const double *gr)
{
  scatter(s, m, vals, gl, gr);
  /* the last pivot order, while its pivots stay above 1e-12 of the
   * largest (KLU's cheap estimate of the reciprocal condition) */
  if (s->num && klu_refactor(s->Ap, s->Ai, s->Ax, s->sym, s->num, &s->cc) &&
      klu_rcond(s->sym, s->num, &s->cc) && s->cc.rcond > 1e-12)
    return 0;
  if (s->num)
    klu_free_numeric(&s->num, &s->cc);
  s->num = klu_factor(s->Ap, s->Ai, s->Ax, s->sym, &s->cc);
  return s->num && s->cc.status == KLU_OK ? 0 : -1;
}

void lw_saddle_solve(lw_saddle *s, const lw_model *m, double *x, double *y)
{
  int nq = m->nq;
  memcpy(s->b, x, sizeof(double) * (size_t)nq);
  memcpy(s->b + nq, y, sizeof(double) * (size_t)m->nc);
  klu_solve(s->sym, s->num, s->n, 1, s->b, &s->cc);
  memcpy(x, s->b, sizeof(double) * (size_t)nq);
  memcpy(y, s->b + nq, sizeof(double) * (size_t)m->nc);
}
