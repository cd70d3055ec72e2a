/* sens_state.c: the stored states of a run: the simulation data saved and
 * loaded again, with the step data kept for the adjoint and the pipeline. */
#include "sens_internal.h"
#include "dyn/lw_forces.h"
#include "dyn/lw_step.h"

void sens_state_save_data(const sens *s, const lw_data *d, double *st)
{
  int nq = s->nq;
  st[0] = d->t0;
  st[1] = (double)d->nstep;
  st[2] = d->t;
  memcpy(st + 3, d->q, sizeof(double) * (size_t)nq);
  memcpy(st + 3 + nq, d->qd, sizeof(double) * (size_t)nq);
  memcpy(st + 3 + 2 * nq, d->qdd, sizeof(double) * (size_t)nq);
  memcpy(st + 3 + 3 * nq, d->lambda, sizeof(double) * (size_t)s->nc);
  memcpy(st + 3 + 3 * nq + s->nc, d->coord_prev, sizeof(double) * (size_t)s->ncoords);
  double *z = st + 3 + 3 * nq + s->nc + s->ncoords;
  memcpy(z, d->fbz, sizeof(double) * (size_t)s->nz);
  memcpy(z + s->nz, d->fbcs, sizeof(double) * (size_t)s->nz);
  double *mu = z + 2 * s->nz;
  *ST_SW(s, st) = lw_switches_pack(s->m, d);
  mu[0] = d->schur_ok;
  memcpy(mu + 1, d->sig, sizeof(double) * (size_t)s->nc);
  memcpy(mu + 1 + s->nc, d->kap, sizeof(double) * (size_t)s->nc);
  if (s->aux) {
    int nc = s->nc;
    double *jac = ST_AUX(s, st), *L = jac + (size_t)nc * s->m->wrow;
    memcpy(jac, d->jac, sizeof(double) * (size_t)nc * s->m->wrow);
    for (int j = 0; j < nc && d->schur_ok; j++, L += nc - j + 1)
      memcpy(L, d->S + (size_t)j * nc + j, sizeof(double) * (size_t)(nc - j));
    if (s->aux > 1 && d->schur_ok)
      memcpy(jac + (size_t)nc * s->m->wrow + (size_t)nc * (nc + 1) / 2, d->W, sizeof(double) * (size_t)nc * s->m->wrow);
  }
  if (s->na) { /* the step's pseudo-acceleration, or qdd where it starts (lw_ali3p_step) */
    int own = d->acc_nstep == d->nstep && d->acc_t0 == d->t0 && d->acc_h == s->h;
    memcpy(ST_A(s, st), own ? d->acc : d->qdd, sizeof(double) * (size_t)nq);
  }
}

void sens_state_save(const sens *s, double *st)
{
  sens_state_save_data(s, s->d, st);
}

void sens_state_load(const sens *s, const double *st)
{
  lw_data *d = s->d;
  int nq = s->nq;
  d->t0 = st[0];
  d->nstep = (long)st[1];
  d->t = st[2];
  memcpy(d->q, st + 3, sizeof(double) * (size_t)nq);
  memcpy(d->qd, st + 3 + nq, sizeof(double) * (size_t)nq);
  memcpy(d->qdd, st + 3 + 2 * nq, sizeof(double) * (size_t)nq);
  memcpy(d->lambda, st + 3 + 3 * nq, sizeof(double) * (size_t)s->nc);
  memcpy(d->coord_prev, st + 3 + 3 * nq + s->nc, sizeof(double) * (size_t)s->ncoords);
  const double *z = st + 3 + 3 * nq + s->nc + s->ncoords;
  memcpy(d->fbz, z, sizeof(double) * (size_t)s->nz);
  memcpy(d->fbc, z, sizeof(double) * (size_t)s->nz);
  memcpy(d->fbcs, z + s->nz, sizeof(double) * (size_t)s->nz);
  d->fb_beta = 0.0;
  lw_switches_unpack(s->m, d, *ST_SW(s, st));
  if (s->na) {
    memcpy(d->acc, ST_A(s, st), sizeof(double) * (size_t)nq);
    d->acc_t0 = d->t0;
    d->acc_nstep = d->nstep;
    d->acc_h = s->h;
  }
  if (s->m->nfric && s->m->integ == &lw_integ_ali3p) {
    /* the ALI3-P step's friction reads lambda + kappa of the state's own
     * projections: kept with it, so that a segment stepped again from a
     * checkpoint is the same run (the initial state has none) */
    const double *mu = z + 2 * s->nz;
    d->fric_kap_ok = d->nstep > 0 && mu[0] != 0.0;
    memcpy(d->kap, mu + 1 + s->nc, sizeof(double) * (size_t)s->nc);
  }
}

void sens_state_aux_load(const sens *s, const double *st, int with_s)
{
  lw_data *d = s->d;
  int nc = s->nc;
  const double *jac = ST_AUX(s, st), *L = jac + (size_t)nc * s->m->wrow;
  memcpy(d->jac, jac, sizeof(double) * (size_t)nc * s->m->wrow);
  d->jac_aff_buf = NULL; /* written over: lw_rows_eval writes the affine rows again */
  if (!with_s)
    return;
  for (int j = 0; j < nc; j++, L += nc - j + 1)
    memcpy(d->S + (size_t)j * nc + j, L, sizeof(double) * (size_t)(nc - j));
  if (s->aux > 1)
    memcpy(d->W, L, sizeof(double) * (size_t)nc * s->m->wrow);
  else
    lw_schur_w(s->m, d);
}

