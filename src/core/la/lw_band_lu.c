/* lw_band_lu.c: the reverse Cuthill-McKee order, which brings a matrix of
 * chain structure (the elements of a beam, the links of a chain, each
 * joined to the next by a few rows) to a band whose width does not grow
 * with the chain's length, and the LU factorization of such a band with
 * partial pivoting (the unblocked algorithm of LAPACK's dgbtf2, written
 * out: its bands are a few tens wide, where a call into BLAS per column
 * would cost more than the arithmetic). */
#include "la/lw_band_lu.h"
#include "la/lw_rowvec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the symmetric adjacency of the kept off-diagonal entries: xadj (n + 1),
 * adj (its neighbours, each list sorted by increasing degree, ties by
 * index); NULL adj when memory runs out */
typedef struct {
  int *xadj, *adj, *deg;
} graph;

/* a short list sorted by key[] (NULL: by value), ties by value */
static void sort_by(int *a, int na, const int *key)
{
  for (int i = 1; i < na; i++)
    for (int k = i; k > 0; k--) {
      int x = a[k - 1], y = a[k], kx = key ? key[x] : x, ky = key ? key[y] : y;
      if (kx < ky || (kx == ky && x <= y))
        break;
      a[k - 1] = y;
      a[k] = x;
    }
}

/* the graph's arrays (and fill, n + 1) in work, xadj zeroed */
static void graph_build(int n, const int *Ap, const int *Ai, const unsigned char *keep, graph *g, int *work)
{
  g->xadj = work;
  g->deg = work + n + 1;
  int *fill = work + 2 * ((size_t)n + 1);
  g->adj = work + 3 * ((size_t)n + 1);
  memset(g->xadj, 0, sizeof(int) * ((size_t)n + 1));
  memset(fill, 0, sizeof(int) * ((size_t)n + 1));
  for (int j = 0; j < n; j++)
    for (int k = Ap[j]; k < Ap[j + 1]; k++)
      if (keep[k] && Ai[k] != j)
        g->xadj[Ai[k] + 1]++, g->xadj[j + 1]++;
  for (int i = 0; i < n; i++)
    g->xadj[i + 1] += g->xadj[i];
  for (int j = 0; j < n; j++)
    for (int k = Ap[j]; k < Ap[j + 1]; k++)
      if (keep[k] && Ai[k] != j) {
        int i = Ai[k];
        g->adj[g->xadj[i] + fill[i]++] = j;
        g->adj[g->xadj[j] + fill[j]++] = i;
      }
  /* duplicates (an entry and its mirror both kept) removed */
  int q = 0;
  for (int i = 0; i < n; i++) {
    int *a = g->adj + g->xadj[i], na = g->xadj[i + 1] - g->xadj[i], start = q;
    sort_by(a, na, NULL);
    for (int k = 0; k < na; k++)
      if (k == 0 || a[k] != a[k - 1])
        g->adj[q++] = a[k];
    g->xadj[i] = start;
    g->deg[i] = q - start;
  }
  g->xadj[n] = q;
  for (int i = 0; i < n; i++)
    sort_by(g->adj + g->xadj[i], g->deg[i], g->deg);
}

/* breadth-first from s over the unvisited (mark 0) nodes, appended to
 * order[*no..]; the marks set to tag; returns the first node of the last
 * level (the lowest degree there, the lists being so sorted) and the
 * number of levels in *depth */
static int bfs(const graph *g, int s, int *mark, int tag, int *order, int *no, int *depth)
{
  int head = *no, tail = *no;
  order[tail++] = s;
  mark[s] = tag;
  int level_start = head, levels = 0, last = s;
  while (head < tail) {
    int level_end = tail;
    levels++;
    last = order[level_start];
    int best = last;
    for (int k = level_start; k < level_end; k++) {
      int v = order[k];
      if (g->deg[v] < g->deg[best])
        best = v;
      for (int e = g->xadj[v]; e < g->xadj[v] + g->deg[v]; e++)
        if (mark[g->adj[e]] != tag) {
          mark[g->adj[e]] = tag;
          order[tail++] = g->adj[e];
        }
    }
    last = best;
    head = level_end;
    level_start = level_end;
  }
  *no = tail;
  *depth = levels;
  return last;
}

size_t lw_rcm_work(int n, int nnz) { return 4 * ((size_t)n + 1) + 2 * (size_t)nnz + 1; }

void lw_rcm_order(int n, const int *Ap, const int *Ai, const unsigned char *keep, int *perm, int *work)
{
  graph g;
  graph_build(n, Ap, Ai, keep, &g, work);
  int *mark = work + 2 * ((size_t)n + 1); /* fill's place, no longer needed */
  memset(mark, 0, sizeof(int) * ((size_t)n + 1));
  int no = 0, tag = 1;
  for (int s0 = 0; s0 < n; s0++) {
    if (mark[s0] > 0)
      continue;
    /* a pseudo-peripheral start in s0's component: the far end of a
     * search, while the far end's own search goes deeper */
    int s = s0, depth = 0, d2, trial;
    for (int it = 0; it < 4; it++) {
      trial = no;
      int far = bfs(&g, s, mark, -(++tag), perm, &trial, &d2);
      if (it > 0 && d2 <= depth)
        break;
      depth = d2;
      s = far;
    }
    bfs(&g, s, mark, 1, perm, &no, &d2);
  }
  for (int i = 0; i < n / 2; i++) {
    int t = perm[i];
    perm[i] = perm[n - 1 - i];
    perm[n - 1 - i] = t;
  }
}

LW_CLONES int lw_band_factor(lw_band *b)
{
  int n = b->n, kl = b->kl, ku = b->ku, kv = b->kv, ld = b->ld, ju = 0;
  for (int j = 0; j < n; j++) {
    double *cj = b->ab + (size_t)j * ld + kv; /* cj[i] = A(j + i, j) */
    int km = n - 1 - j < kl ? n - 1 - j : kl, p = 0;
    double amax = fabs(cj[0]);
    for (int i = 1; i <= km; i++)
      if (fabs(cj[i]) > amax) {
        amax = fabs(cj[i]);
        p = i;
      }
    b->ipiv[j] = j + p;
    if (cj[p] == 0.0)
      return -1;
    int jend = j + ku + p < n - 1 ? j + ku + p : n - 1;
    ju = jend > ju ? jend : ju;
    if (p)
      for (int c = j; c <= ju; c++) {
        double *col = b->ab + (size_t)c * ld + kv - c, t = col[j];
        col[j] = col[j + p];
        col[j + p] = t;
      }
    double r = 1.0 / cj[0];
    for (int i = 1; i <= km; i++)
      cj[i] *= r;
    cj[0] = r; /* the solve multiplies by it */
    for (int c = j + 1; c <= ju; c++) {
      double *col = b->ab + (size_t)c * ld + kv - c + j, a = col[0];
      if (a != 0.0)
        lw_sub_scaled(col + 1, cj + 1, a, km);
    }
  }
  return 0;
}

LW_CLONES void lw_band_solve(const lw_band *b, double *x)
{
  int n = b->n, kl = b->kl, kv = b->kv, ld = b->ld;
  for (int j = 0; j < n; j++) {
    const double *cj = b->ab + (size_t)j * ld + kv;
    int km = n - 1 - j < kl ? n - 1 - j : kl, p = b->ipiv[j];
    double y = x[p];
    x[p] = x[j];
    x[j] = y;
    if (y != 0.0)
      lw_sub_scaled(x + j + 1, cj + 1, y, km);
  }
  for (int j = n - 1; j >= 0; j--) {
    const double *col = b->ab + (size_t)j * ld + kv - j;
    double y = x[j] * col[j];
    x[j] = y;
    int i0 = j - kv > 0 ? j - kv : 0;
    if (y != 0.0)
      lw_sub_scaled(x + i0, col + i0, y, j - i0);
  }
}
