/* lw_band_lu.h: a narrow-band order of a sparse square matrix and the LU
 * factorization with partial pivoting of the band (la/lw_band_lu.c). */
#ifndef LW_LA_LW_BAND_LU_H
#define LW_LA_LW_BAND_LU_H

#include <stddef.h>

/* the reverse Cuthill-McKee order of the symmetric pattern of A + A^T:
 * A's n columns in compressed form (Ap, Ai), keep[k] != 0 for the entries
 * that count; perm[new] = old; work holds lw_rcm_work(n, Ap[n]) ints (no
 * allocation) */
size_t lw_rcm_work(int n, int nnz);
void lw_rcm_order(int n, const int *Ap, const int *Ai, const unsigned char *keep, int *perm, int *work);

/* a band matrix of n columns with kl sub- and ku superdiagonals, stored by
 * columns with room for the kl more superdiagonals that row interchanges
 * bring (LAPACK's band layout): entry (i, j) at ab[j ld + kv + i - j], kv
 * = kl + ku, ld = 2 kl + ku + 1 */
typedef struct {
  int n, kl, ku, kv, ld;
  double *ab;
  int *ipiv;
} lw_band;

static inline double *lw_band_at(lw_band *b, int i, int j) { return b->ab + (size_t)j * b->ld + b->kv + i - j; }

/* the LU factorization of the band in place (partial pivoting by rows),
 * U's diagonal stored as its reciprocals (the solve multiplies, rather
 * than divides, on its chain from one unknown to the next): 0, or -1 at a
 * pivot column that is exactly zero */
int lw_band_factor(lw_band *b);
/* x = A^-1 x with the factorization */
void lw_band_solve(const lw_band *b, double *x);

#endif
