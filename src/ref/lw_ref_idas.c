/* lw_ref_idas.c: reference integrator on SUNDIALS IDAS 6.x (see lw_ref_idas.h). */
#define _POSIX_C_SOURCE 200809L

#include "lw_ref_idas.h"
#include "lw_ref_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

typedef struct {
  const lw_model *m;
  lw_data *d;
  int nq, nc;
  double *M;    /* nq x nq, column-major */
  double *Q;    /* nq */
  double *Phi;  /* nc */
  double *Jq;   /* nc x nq, column-major */
  double *gam;  /* nc */
  char err[400];
} ref_ctx;

/* F(t, y, y') for y = [q; v; lam]. */
static int residual(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, void *user)
{
  ref_ctx *c = user;
  return lw_ref_residual(c->m, c->d, c->M, c->Q, c->Jq, c->gam, t, N_VGetArrayPointer(yy), N_VGetArrayPointer(yp),
                         N_VGetArrayPointer(rr));
}

static void err_handler(int code, const char *module, const char *function, char *text, void *user)
{
  ref_ctx *c = user;
  snprintf(c->err, sizeof c->err, "%s/%s (%d): %s", module ? module : "IDAS",
           function ? function : "?", code, text ? text : "");
}

int lw_ref_idas_run(const lw_model *m, double rtol, double atol, const double *times, int ntimes,
                    double *out, lw_ref_stats *stats, char *msg, int msglen)
{
  if (stats)
    memset(stats, 0, sizeof *stats);
  if (msg && msglen > 0)
    msg[0] = '\0';
  if (!m || ntimes < 0 || (ntimes > 0 && !times) || !(rtol > 0) || !(atol > 0)) {
    lw_ref_msg(msg, msglen, "invalid arguments");
    return 1;
  }
  for (int k = 0; k < ntimes; k++)
    if (!(times[k] >= 0) || (k > 0 && !(times[k] >= times[k - 1]))) {
      lw_ref_msg(msg, msglen, "output times must be non-negative and increasing (times[%d] = %g)", k,
              times[k]);
      return 1;
    }

  int rc = 1;
  ref_ctx c;
  memset(&c, 0, sizeof c);
  c.m = m;
  c.nq = lw_model_nq(m);
  c.nc = lw_model_nc(m);
  const int nq = c.nq, nc = c.nc, n = 2 * nq + nc;
  const int ncols = lw_model_output_columns(m);

  SUNContext sctx = NULL;
  N_Vector yy = NULL, yp = NULL, id = NULL;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  void *mem = NULL;
  double *qdd = NULL;

  c.d = lw_data_new(m);
  c.M = calloc((size_t)nq * nq, sizeof(double));
  c.Q = calloc((size_t)nq, sizeof(double));
  c.Phi = calloc((size_t)(nc > 0 ? nc : 1), sizeof(double));
  c.Jq = calloc((size_t)(nc > 0 ? nc : 1) * nq, sizeof(double));
  c.gam = calloc((size_t)(nc > 0 ? nc : 1), sizeof(double));
  if (!c.d || !c.M || !c.Q || !c.Phi || !c.Jq || !c.gam) {
    lw_ref_msg(msg, msglen, "out of memory");
    goto done;
  }
  lw_eval_mass_dense(m, c.M);

  lw_error lerr;
  memset(&lerr, 0, sizeof lerr);
  if (lw_initialize(m, c.d, &lerr)) {
    lw_ref_msg(msg, msglen, "lw_initialize failed: %s", lerr.msg);
    goto done;
  }

  if (SUNContext_Create(NULL, &sctx)) {
    lw_ref_msg(msg, msglen, "SUNContext_Create failed");
    goto done;
  }
  yy = N_VNew_Serial(n, sctx);
  yp = N_VNew_Serial(n, sctx);
  id = N_VNew_Serial(n, sctx);
  if (!yy || !yp || !id) {
    lw_ref_msg(msg, msglen, "out of memory for the IDAS vectors");
    goto done;
  }
  double *y0 = N_VGetArrayPointer(yy), *yp0 = N_VGetArrayPointer(yp), *idv = N_VGetArrayPointer(id);
  memcpy(y0, lw_data_q(c.d), sizeof(double) * (size_t)nq);
  memcpy(y0 + nq, lw_data_qd(c.d), sizeof(double) * (size_t)nq);
  memcpy(y0 + 2 * nq, lw_data_lambda(c.d), sizeof(double) * (size_t)nc);
  memcpy(yp0, lw_data_qd(c.d), sizeof(double) * (size_t)nq);
  memcpy(yp0 + nq, lw_data_qdd(c.d), sizeof(double) * (size_t)nq);
  for (int k = 0; k < nc; k++)
    yp0[2 * nq + k] = 0.0;
  for (int i = 0; i < n; i++)
    idv[i] = i < 2 * nq ? 1.0 : 0.0;

  mem = IDACreate(sctx);
  if (!mem) {
    lw_ref_msg(msg, msglen, "IDACreate failed");
    goto done;
  }
  IDASetErrHandlerFn(mem, err_handler, &c);
  A = SUNDenseMatrix(n, n, sctx);
  LS = A ? SUNLinSol_Dense(yy, A, sctx) : NULL;
  if (!A || !LS || IDAInit(mem, residual, 0.0, yy, yp) != IDA_SUCCESS ||
      IDASStolerances(mem, rtol, atol) != IDA_SUCCESS || IDASetUserData(mem, &c) != IDA_SUCCESS ||
      IDASetLinearSolver(mem, LS, A) != IDA_SUCCESS || IDASetId(mem, id) != IDA_SUCCESS ||
      IDASetSuppressAlg(mem, SUNTRUE) != IDA_SUCCESS ||
      IDASetMaxNumSteps(mem, 50000000L) != IDA_SUCCESS) {
    lw_ref_msg(msg, msglen, "IDAS setup failed: %s", c.err[0] ? c.err : "(no message)");
    goto done;
  }
  if (ntimes > 0)
    IDASetStopTime(mem, times[ntimes - 1]);

  qdd = malloc(sizeof(double) * (size_t)nq);
  if (!qdd) {
    lw_ref_msg(msg, msglen, "out of memory");
    goto done;
  }
  double integ = 0.0, tcur = 0.0, maxphi = 0.0;
  for (int k = 0; k < ntimes; k++) {
    double tout = times[k], tret = tcur;
    if (tout > tcur) {
      double ta = lw_ref_now();
      int flag = IDASolve(mem, tout, &tret, yy, yp, IDA_NORMAL);
      integ += lw_ref_now() - ta;
      if (flag < 0) {
        lw_ref_msg(msg, msglen, "IDASolve failed at t = %.9g s (flag %d): %s", tret, flag,
                c.err[0] ? c.err : "(no message)");
        goto done;
      }
      tcur = tret;
    }
    /* y, y' at tout (at t = 0 the initial values) */
    const double *y = N_VGetArrayPointer(yy), *ydot = N_VGetArrayPointer(yp);
    memcpy(qdd, ydot + nq, sizeof(double) * (size_t)nq);
    lw_eval_dense(m, c.d, y, y + nq, tout, NULL, c.Phi, NULL, NULL, NULL);
    for (int i = 0; i < nc; i++)
      if (!(fabs(c.Phi[i]) <= maxphi))
        maxphi = fabs(c.Phi[i]);
    lw_data_set_state(m, c.d, tout, y, y + nq, qdd, y + 2 * nq);
    if (out)
      lw_outputs(m, c.d, out + (size_t)k * ncols);
  }
  if (stats) {
    long ns = 0, nre = 0, nrels = 0;
    IDAGetNumSteps(mem, &ns);
    IDAGetNumResEvals(mem, &nre);
    IDAGetNumLinResEvals(mem, &nrels);
    stats->steps = ns;
    stats->nfevals = nre + nrels;
    stats->wall_time_s = integ;
    stats->max_constraint_residual = maxphi;
  }
  rc = 0;

done:
  lw_ref_ida_release(mem, LS, A, (N_Vector[]){yy, yp, id}, 3);
  if (sctx)
    SUNContext_Free(&sctx);
  free(qdd);
  free(c.M);
  free(c.Q);
  free(c.Phi);
  free(c.Jq);
  free(c.gam);
  if (c.d)
    lw_data_free(c.d);
  return rc;
}
