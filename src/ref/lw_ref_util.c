/* lw_ref_util.c: see lw_ref_util.h. */
#define _POSIX_C_SOURCE 200809L

#include "lw_ref_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

void lw_ref_ida_release(void *mem, SUNLinearSolver LS, SUNMatrix A, N_Vector *v, int nv)
{
  if (mem)
    IDAFree(&mem);
  if (LS)
    SUNLinSolFree(LS);
  if (A)
    SUNMatDestroy(A);
  for (int i = 0; i < nv; i++)
    if (v[i])
      N_VDestroy(v[i]);
}

double lw_ref_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void lw_ref_msg(char *msg, int msglen, const char *fmt, ...)
{
  if (!msg || msglen <= 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, (size_t)msglen, fmt, ap);
  va_end(ap);
}

int lw_ref_residual(const lw_model *m, lw_data *d, const double *M, double *Q, double *J, double *gam, double t,
                    const double *y, const double *yp, double *r)
{
  const int nq = lw_model_nq(m), nc = lw_model_nc(m);
  const double *q = y, *v = y + nq, *lam = y + 2 * nq;
  const double *qp = yp, *vp = yp + nq;
  lw_eval_dense(m, d, q, v, t, Q, NULL, J, NULL, gam);
  double *r1 = r, *r2 = r + nq, *r3 = r + 2 * nq;
  for (int i = 0; i < nq; i++) {
    r1[i] = qp[i] - v[i];
    r2[i] = -Q[i];
  }
  for (int j = 0; j < nq; j++) {
    const double *Mj = M + (size_t)j * nq;
    double vpj = vp[j];
    if (vpj != 0.0)
      for (int i = 0; i < nq; i++)
        r2[i] += Mj[i] * vpj;
  }
  for (int k = 0; k < nc; k++)
    r3[k] = gam[k];
  for (int j = 0; j < nq; j++) {
    const double *Jj = J + (size_t)j * nc;
    double s = 0.0, vpj = vp[j];
    for (int k = 0; k < nc; k++) {
      s += Jj[k] * lam[k];
      r3[k] += Jj[k] * vpj;
    }
    r2[j] += s;
  }
  for (int i = 0; i < 2 * nq + nc; i++)
    if (!isfinite(r[i]))
      return 1;
  return 0;
}
