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
 * factorization with pivoting when that order has grown ill conditioned.
 *
 * KLU's fill-reducing order leaves the chain of a beam's elements a sparse
 * factor whose left-looking refactorization spends most of its time on
 * bookkeeping.  After a factorization by KLU the entries that were ever
 * nonzero (and every entry of A's diagonal blocks, which a body's own
 * stiffness fills) are put in reverse Cuthill-McKee order; when the band
 * they then form takes fewer operations than KLU counted, the
 * factorizations that follow are LU factorizations of that band with
 * partial pivoting (la/lw_band_lu.c).  An entry that becomes nonzero
 * outside the band sends that factorization back to KLU, and the order is
 * made again with it (a pattern only grows, so it is made a few times at
 * most, the first at the initial state).  The order's scratch is made with
 * the pattern and the band's storage at the first band taken, twice its
 * size: a band that outgrows it is left to KLU, and the steps allocate
 * nothing.
 *
 * The band's order is the narrower of reverse Cuthill-McKee's and the
 * blocks' own (block_order): on a beam, each element's coordinates and
 * then the rows joining it to the next make a band one element wide.  A
 * matrix that repeats from step to step (the rates' M + rho G^T G where
 * the gradients are constant, as a beam's joins are) is factorized once
 * into a second band kept beside the first (lw_saddle_factor_kept). */
#include "la/lw_saddle.h"
#include "la/lw_band_lu.h"

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
  /* the band: in use, K's entries ever nonzero (or in A's diagonal
   * blocks), the order (perm[new] = old, pinv), each entry's place in the
   * band (-1 outside), the permuted right-hand side */
  int band, grown;
  unsigned char *seen;
  int *perm, *perm2, *pinv, *bpos, *rcm_work;
  /* the places in the band of what scatter puts in a_up, a_lo, g_r, g_l
   * (-1 outside the band, -2 nowhere) */
  int *b_up, *b_lo, *b_r, *b_l;
  /* the same as lists in the order band_scatter sums them: the places in
   * the band and the sources (vals', then gr's, then gl's entries: nsc[0],
   * nsc[1], nsc[2] of them), and the sources outside the band (nout[]) */
  int *sc_pos, *sc_src, *out_src, nsc[3], nout[3];
  double *bx;
  size_t ab_cap;
  lw_band lu;
  /* the kept factorization (lw_saddle_factor_kept): its band (storage
   * ab_cap, made with lu's), the values it was made of (vals, gl, gr:
   * nnz + 2 nc wrow), whether it is of the band's present order; and the
   * band the solves use (lu or kept) */
  lw_band kept;
  double *kept_in;
  int kept_ok;
  unsigned long kept_serial; /* the model's compile serial it was made for */
  lw_band *use;
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

/* the band's arrays, and the entries of A's diagonal blocks marked seen */
static int seen_init(lw_saddle *s, const lw_model *m)
{
  s->seen = calloc((size_t)s->nnz + 1, 1);
  s->perm = malloc(sizeof(int) * ((size_t)s->n + 1));
  s->perm2 = malloc(sizeof(int) * ((size_t)s->n + 1));
  s->pinv = malloc(sizeof(int) * ((size_t)s->n + 1));
  s->bpos = malloc(sizeof(int) * ((size_t)s->nnz + 1));
  s->bx = malloc(sizeof(double) * ((size_t)s->n + 1));
  s->lu.ipiv = malloc(sizeof(int) * ((size_t)s->n + 1));
  s->kept.ipiv = malloc(sizeof(int) * ((size_t)s->n + 1));
  s->rcm_work = malloc(sizeof(int) * lw_rcm_work(s->n, s->nnz));
  size_t ng = (size_t)m->nc * (size_t)m->wrow;
  s->kept_in = malloc(sizeof(double) * ((size_t)m->nnz + 2 * ng + 1));
  size_t nsrc = 2 * (size_t)m->nnz + 2 * ng + 1;
  s->sc_pos = malloc(sizeof(int) * nsrc);
  s->sc_src = malloc(sizeof(int) * nsrc);
  s->out_src = malloc(sizeof(int) * nsrc);
  s->b_up = malloc(sizeof(int) * ((size_t)m->nnz + 1));
  s->b_lo = malloc(sizeof(int) * ((size_t)m->nnz + 1));
  s->b_r = malloc(sizeof(int) * (ng + 1));
  s->b_l = malloc(sizeof(int) * (ng + 1));
  if (!s->seen || !s->perm || !s->perm2 || !s->pinv || !s->bpos || !s->bx || !s->lu.ipiv || !s->kept.ipiv || !s->kept_in || !s->sc_pos || !s->sc_src || !s->out_src || !s->rcm_work || !s->b_up ||
      !s->b_lo || !s->b_r || !s->b_l)
    return -1;
  for (int b = 0; b < m->nb; b++)
    for (int c = m->blk_off[b]; c < m->blk_off[b] + m->blk_n[b]; c++)
      for (int k = s->Ap[c]; k < s->Ap[c + 1]; k++)
        if (s->Ai[k] >= m->blk_off[b] && s->Ai[k] < m->blk_off[b] + m->blk_n[b])
          s->seen[k] = 1;
  s->grown = 1;
  return 0;
}

lw_saddle *lw_saddle_new(const lw_model *m)
{
  lw_saddle *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->n = m->nq + m->nc;
  s->use = &s->lu;
  size_t cap = 2 * (size_t)m->nnz + 2 * (size_t)m->nc * (size_t)m->wrow + 1;
  trip *t = malloc(sizeof *t * cap);
  int ok = t && compress(s, m, t, triplets(m, t)) == 0;
  free(t);
  s->Ax = ok ? calloc((size_t)s->nnz + 1, sizeof(double)) : NULL;
  s->b = ok ? calloc((size_t)s->n, sizeof(double)) : NULL;
  ok = ok && s->Ax && s->b && seen_init(s, m) == 0;
  if (ok) {
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
  free(s->b_up), free(s->b_lo), free(s->b_r), free(s->b_l);
  free(s->seen), free(s->rcm_work), free(s->perm), free(s->perm2), free(s->pinv), free(s->bpos), free(s->bx);
  free(s->lu.ab), free(s->lu.ipiv), free(s->kept.ab), free(s->kept.ipiv), free(s->kept_in);
  free(s->sc_pos), free(s->sc_src), free(s->out_src);
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

/* one source's place p in the band into list l (in band), or its
 * index among those outside (p = -1; p = -2: nowhere) */
static void list_add(lw_saddle *s, int l, int p, int src, int *n, int *no)
{
  if (p >= 0) {
    s->sc_pos[*n] = p;
    s->sc_src[*n] = src;
    ++*n, s->nsc[l]++;
  } else if (p == -1) {
    s->out_src[*no] = src;
    ++*no, s->nout[l]++;
  }
}

/* whether gradient entry e (of any set of the rows' gradients) is one of
 * an affine row's zeros: band_scatter leaves it out (it adds nothing) */
static int grad_zero(const lw_model *m, int e)
{
  return m->row_gconst && m->row_gconst[e / m->wrow] && m->row_grad[e] == 0.0;
}

/* the lists band_scatter reads, from the places b_up, b_lo, b_r, b_l */
static void scatter_lists(lw_saddle *s, const lw_model *m)
{
  int n = 0, no = 0;
  for (int l = 0; l < 3; l++)
    s->nsc[l] = s->nout[l] = 0;
  for (int k = 0; k < m->nnz; k++) {
    list_add(s, 0, s->b_up[k], k, &n, &no);
    list_add(s, 0, s->b_lo[k], k, &n, &no);
  }
  int ng = m->nc * m->wrow;
  for (int e = 0; e < ng; e++)
    if (s->g_r[e] >= 0 && !grad_zero(m, e))
      list_add(s, 1, s->b_r[e], e, &n, &no);
  for (int e = 0; e < ng; e++)
    if (s->g_r[e] >= 0 && !grad_zero(m, e))
      list_add(s, 2, s->b_l[e], e, &n, &no);
}

/* the band (lower and upper widths) that the order perm (perm[new] = old)
 * gives the entries seen, its inverse into pinv */
static void band_width(const lw_saddle *s, const int *perm, int *pinv, int *kl, int *ku)
{
  *kl = *ku = 0;
  for (int i = 0; i < s->n; i++)
    pinv[perm[i]] = i;
  for (int j = 0; j < s->n; j++)
    for (int k = s->Ap[j]; k < s->Ap[j + 1]; k++)
      if (s->seen[k]) {
        int d = pinv[s->Ai[k]] - pinv[j];
        *kl = d > *kl ? d : *kl;
        *ku = -d > *ku ? -d : *ku;
      }
}

/* the order of the blocks: the rows on block b alone, its coordinates,
 * then the rows joining it to later blocks (b their lowest); rows on no
 * block first.  A chain of blocks each joined to the next by rows (a
 * beam's elements: the 4 nd coordinates of an element, then the 2 nd rows
 * joining it to the next, its first end's joint before it) comes out with
 * a band 4 nd wide, narrower than reverse Cuthill-McKee finds there. */
static void block_order(const lw_model *m, int *perm, int *work)
{
  int nb = m->nb, *key = work, *at = work + m->nc; /* (nc), (2 nb + 2) */
  for (int g = 0; g < 2 * nb + 2; g++)
    at[g] = 0;
  /* key 2 b: on b alone (and 0, on none), 2 b + 1: b the lowest of several */
  for (int r = 0; r < m->nc; r++) {
    const lw_row *row = &m->rows[r];
    int lo = row->nblk > 0 ? row->blk[0] : 0;
    for (int k = 1; k < row->nblk; k++)
      lo = row->blk[k] < lo ? row->blk[k] : lo;
    key[r] = 2 * lo + (row->nblk > 1);
    at[key[r]]++;
  }
  /* at[g]: where group g's rows go, block b's coordinates between groups
   * 2 b and 2 b + 1 */
  for (int g = 0, p = 0; g < 2 * nb + 2; g++) {
    int nr = at[g];
    at[g] = p;
    p += nr;
    for (int i = 0; g % 2 == 0 && g / 2 < nb && i < m->blk_n[g / 2]; i++)
      perm[p++] = m->blk_off[g / 2] + i;
  }
  for (int r = 0; r < m->nc; r++)
    perm[at[key[r]]++] = m->nq + r;
}

/* the narrower of two orders of the entries seen (reverse Cuthill-McKee's
 * and the blocks', block_order), the band it makes and each entry's place
 * in it; the band is taken when its factorization (n kl (kl + ku + 1)
 * multiply-adds) costs at most the flops KLU counted for its last one and
 * fits the band's storage (made at the first). */
static void band_analyze(lw_saddle *s, const lw_model *m)
{
  int n = s->n, kl = 0, ku = 0, kl2, ku2;
  s->band = 0;
  s->kept_ok = 0;
  if (klu_flops(s->sym, s->num, &s->cc) != 1)
    return;
  lw_rcm_order(n, s->Ap, s->Ai, s->seen, s->perm, s->rcm_work);
  band_width(s, s->perm, s->pinv, &kl, &ku);
  block_order(m, s->perm2, s->rcm_work);
  band_width(s, s->perm2, s->pinv, &kl2, &ku2);
  if ((double)kl2 * (kl2 + ku2 + 1) < (double)kl * (kl + ku + 1)) {
    memcpy(s->perm, s->perm2, sizeof(int) * (size_t)n);
    kl = kl2, ku = ku2;
  }
  for (int i = 0; i < n; i++)
    s->pinv[s->perm[i]] = i;
  if (!((double)n * kl * (kl + ku + 1) <= s->cc.flops))
    return;
  int ld = 2 * kl + ku + 1;
  if (!s->lu.ab) {
    s->ab_cap = 2 * (size_t)ld * (size_t)n;
    s->lu.ab = malloc(sizeof(double) * s->ab_cap);
    s->kept.ab = malloc(sizeof(double) * s->ab_cap);
  }
  if (!s->lu.ab || !s->kept.ab || (size_t)ld * (size_t)n > s->ab_cap)
    return;
  s->lu = (lw_band){n, kl, ku, kl + ku, ld, s->lu.ab, s->lu.ipiv};
  s->kept = (lw_band){n, kl, ku, kl + ku, ld, s->kept.ab, s->kept.ipiv};
  for (int j = 0; j < n; j++)
    for (int k = s->Ap[j]; k < s->Ap[j + 1]; k++) {
      int d = s->pinv[s->Ai[k]] - s->pinv[j];
      s->bpos[k] = d <= kl && -d <= ku ? (int)(lw_band_at(&s->lu, s->pinv[s->Ai[k]], s->pinv[j]) - s->lu.ab) : -1;
    }
  for (int k = 0; k < m->nnz; k++) {
    s->b_up[k] = s->bpos[s->a_up[k]];
    s->b_lo[k] = s->a_lo[k] >= 0 ? s->bpos[s->a_lo[k]] : -2;
  }
  for (int e = 0; e < m->nc * m->wrow; e++) {
    s->b_r[e] = s->g_r[e] >= 0 ? s->bpos[s->g_r[e]] : -2;
    s->b_l[e] = s->g_l[e] >= 0 ? s->bpos[s->g_l[e]] : -2;
  }
  scatter_lists(s, m);
  s->band = 1;
}

/* K's values into the band through the lists (a place takes its values
 * in the order scatter sums them into Ax: the gradients' places are not
 * A's, and Gr's not Gl^T's); -1 when one outside it is nonzero */
static int band_scatter(lw_saddle *s, lw_band *b, const lw_model *m, const double *vals, const double *gl,
                        const double *gr)
{
  (void)m;
  double *ab = b->ab;
  memset(ab, 0, sizeof(double) * (size_t)b->ld * (size_t)s->n);
  const double *src[3] = {vals, gr, gl};
  const int *pos = s->sc_pos, *si = s->sc_src, *so = s->out_src;
  int out = 0;
  for (int l = 0; l < 3; l++) {
    const double *v = src[l];
    for (int i = 0; i < s->nsc[l]; i++)
      ab[pos[i]] += v[si[i]];
    for (int i = 0; i < s->nout[l]; i++)
      out |= v[so[i]] != 0.0;
    pos += s->nsc[l], si += s->nsc[l], so += s->nout[l];
  }
  return out ? -1 : 0;
}

/* the entries nonzero in Ax marked seen (grown when one is new) */
static void mark_seen(lw_saddle *s)
{
  for (int k = 0; k < s->nnz; k++)
    if (s->Ax[k] != 0.0 && !s->seen[k])
      s->seen[k] = s->grown = 1;
}

static int klu_factor_ax(lw_saddle *s)
{
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

int lw_saddle_factor(lw_saddle *s, const lw_model *m, const double *vals, const double *gl, const double *gr)
{
  s->use = &s->lu;
  if (s->band) {
    if (band_scatter(s, &s->lu, m, vals, gl, gr) == 0)
      return lw_band_factor(&s->lu);
    s->band = 0;
  }
  scatter(s, m, vals, gl, gr);
  if (klu_factor_ax(s))
    return -1;
  mark_seen(s);
  if (s->grown) /* the order is made again only for a pattern that grew */
    band_analyze(s, m);
  s->grown = 0;
  return 0;
}

/* whether the kept factorization is of vals, gl, gr (to the bit) */
static int kept_same(const lw_saddle *s, const lw_model *m, const double *vals, const double *gl, const double *gr)
{
  size_t nnz = (size_t)m->nnz, ng = (size_t)m->nc * (size_t)m->wrow, w = (size_t)m->wrow;
  if (!s->kept_ok || memcmp(s->kept_in, vals, sizeof(double) * nnz))
    return 0;
  if (!m->af_ptr)
    return !memcmp(s->kept_in + nnz, gl, sizeof(double) * ng) && !memcmp(s->kept_in + nnz + ng, gr, sizeof(double) * ng);
  /* the affine rows' gradients are the model's constants in any set */
  for (int k = 0; k < m->nvar_runs; k++) {
    size_t o = (size_t)m->var_runs[2 * k] * w, len = sizeof(double) * (size_t)(m->var_runs[2 * k + 1] - m->var_runs[2 * k]) * w;
    if (memcmp(s->kept_in + nnz + o, gl + o, len) || memcmp(s->kept_in + nnz + ng + o, gr + o, len))
      return 0;
  }
  return 1;
}

int lw_saddle_factor_kept(lw_saddle *s, const lw_model *m, const double *vals, const double *gl, const double *gr)
{
  if (!s->band)
    return lw_saddle_factor(s, m, vals, gl, gr);
  if (!kept_same(s, m, vals, gl, gr)) {
    s->kept_ok = 0;
    if (band_scatter(s, &s->kept, m, vals, gl, gr) != 0 || lw_band_factor(&s->kept) != 0)
      return lw_saddle_factor(s, m, vals, gl, gr); /* outside the band or singular: as the others */
    size_t nnz = (size_t)m->nnz, ng = (size_t)m->nc * (size_t)m->wrow;
    memcpy(s->kept_in, vals, sizeof(double) * nnz);
    memcpy(s->kept_in + nnz, gl, sizeof(double) * ng);
    memcpy(s->kept_in + nnz + ng, gr, sizeof(double) * ng);
    s->kept_ok = 1;
    s->kept_serial = m->serial;
  }
  s->use = &s->kept;
  return 0;
}

int lw_saddle_use_kept(lw_saddle *s, const lw_model *m)
{
  if (!s->band || !s->kept_ok || s->kept_serial != m->serial)
    return -1;
  s->use = &s->kept;
  return 0;
}

int lw_saddle_use_last(lw_saddle *s)
{
  if (!s->band)
    return -1;
  s->use = &s->lu;
  return 0;
}

int lw_saddle_kept_in_use(const lw_saddle *s) { return s->use == &s->kept; }

int lw_saddle_banded(const lw_saddle *s) { return s && s->band; }

void lw_saddle_solve(lw_saddle *s, const lw_model *m, double *x, double *y)
{
  int nq = m->nq;
  memcpy(s->b, x, sizeof(double) * (size_t)nq);
  memcpy(s->b + nq, y, sizeof(double) * (size_t)m->nc);
  if (s->band) {
    for (int i = 0; i < s->n; i++)
      s->bx[i] = s->b[s->perm[i]];
    lw_band_solve(s->use, s->bx);
    for (int i = 0; i < s->n; i++)
      s->b[s->perm[i]] = s->bx[i];
  } else
    klu_solve(s->sym, s->num, s->n, 1, s->b, &s->cc);
  memcpy(x, s->b, sizeof(double) * (size_t)nq);
  memcpy(y, s->b + nq, sizeof(double) * (size_t)m->nc);
}
