/* sens_step.c: the linearization of one step from state a to state b:
 * the step matrices AP and KM factored, the rate matrices, the parameter
 * columns FP, FV, FA, and the controllers' errors' gradients. */
#include "sens_internal.h"
#include "dyn/lw_forces.h"
#include "dyn/lw_rows.h"
#include "la/lw_matrix.h"
#include "lin/lw_jvp.h"
#include "model/lw_error.h"

#include <stdlib.h>

/* y (nq) at coordinate c's blocks = its gradient at q */
static void coord_grad_scatter(const lw_model *m, const lw_coord *c, const double *q, double *y)
{
  double g[2 * LW_MAXQB];
  lw_coord_eval(m, c, q, g);
  for (int l = 0; l < lw_loc_width(m, c->nblk, c->blk, 0); l++)
    y[lw_loc_global(m, c->blk, l, 0)] = g[l];
}

/* the controllers' errors e_i at state st: gradients eq, eqd (nz x nq) and
 * parameter partials pe (nz x p) */
static void controller_error_grads(sens *s, const double *st, double *eq, double *eqd, double *pe)
{
  const lw_model *m = s->m;
  int nq = s->nq;
  lw_lin_point pt = {ST_Q(s, st), ST_QD(s, st), ST_QD(s, st), ST_QDD(s, st), {NULL, NULL, NULL}, ST_T(st)};
  memset(eq, 0, sizeof(double) * (size_t)s->nz * nq);
  memset(eqd, 0, sizeof(double) * (size_t)s->nz * nq);
  memset(s->e, 0, sizeof(double) * (size_t)nq); /* the unit directions, one entry set at a time */
  for (int i = 0; i < s->nz; i++) {
    const lw_fb *b = &m->fbs[i];
    double de;
    /* along the coordinates that its coordinate reads (sens_setup.c): along
     * the others the gradients are exactly 0 */
    for (int n = s->cd_ptr[b->coord]; n < s->cd_ptr[b->coord + 1]; n++) {
      int g = s->cd_q[n];
      s->e[g] = 1.0;
      lw_lin_dir dir = {s->e, NULL, NULL, NULL, NULL, NULL, lw_body_of(m, g)};
      lw_fb_error_jvp(m, s->d, NULL, i, &pt, &dir, &de);
      s->e[g] = 0.0;
      eq[(size_t)i * nq + g] = de;
    }
    if (b->rate) /* a rate's gradient along qd: its coordinate's along q */
      coord_grad_scatter(m, &m->coords[b->coord], pt.q, eqd + (size_t)i * nq);
    for (int j = 0; j < s->p; j++) {
      const lw_tangent *tg = s->tg[j];
      de = 0.0;
      if (tg && tg->any && tg->force_on[b->force]) {
        lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
        lw_fb_error_jvp(m, s->d, tg, i, &pt, &dir, &de);
      }
      pe[(size_t)i * s->p + j] = de;
    }
  }
}

/* the step's rates from the states a (n) and b: qd* = c2 (q - qn) - qdn,
 * qdd* = c4 (q - qn) - 2 c2 qdn - qddn, in vectors */
LW_CLONES static void step_rates(double *restrict qds, double *restrict qdds, const double *restrict q,
                                 const double *restrict qn, const double *restrict qdn,
                                 const double *restrict qddn, double c2, double c4, int nq)
{
  lw_v4d a2 = {c2, c2, c2, c2}, a4 = {c4, c4, c4, c4}, b2 = (lw_v4d){2.0, 2.0, 2.0, 2.0} * a2;
  int i = 0;
  for (; i + 4 <= nq; i += 4) {
    lw_v4d dq = lw_v4d_load(q + i) - lw_v4d_load(qn + i), v = lw_v4d_load(qdn + i);
    lw_v4d_store(qds + i, a2 * dq - v);
    lw_v4d_store(qdds + i, a4 * dq - b2 * v - lw_v4d_load(qddn + i));
  }
  for (; i < nq; i++) {
    qds[i] = c2 * (q[i] - qn[i]) - qdn[i];
    qdds[i] = c4 * (q[i] - qn[i]) - 2.0 * c2 * qdn[i] - qddn[i];
  }
}

/* the step's rates with numerical damping (s->nm.on, dyn/lw_newmark.h):
 * qd* = c2 q + bq qn + bv qdn + ba an, qdd* = c4 q + aq qn + av qdn + aa an
 * + ad qddn from state a's pseudo-acceleration an, in the step's order */
static void step_rates_alpha(const sens *s, const double *sa, const double *q)
{
  const lw_newmark *k = &s->nm;
  const double *qn = ST_Q(s, sa), *qdn = ST_QD(s, sa), *qddn = ST_QDD(s, sa), *an = ST_A(s, sa);
  for (int i = 0; i < s->nq; i++) {
    s->qds[i] = k->c2 * q[i] + (k->bq * qn[i] + k->bv * qdn[i] + k->ba * an[i]);
    s->qdds[i] = k->c4 * q[i] + (k->aq * qn[i] + k->av * qdn[i] + k->aa * an[i] + k->ad * qddn[i]);
  }
}

/* a parameter's step columns: fp += -dQ + dJ0, fv += dJ1, fa += dJ2 over
 * the nq coordinates, in vectors (the compiler leaves the loop scalar for
 * fear the seven arrays overlap) */
LW_CLONES static void step_cols_add(double *restrict fp, double *restrict fv, double *restrict fa,
                                    const double *restrict dq, double *const dj[3], int nq)
{
  const double *restrict j0 = dj[0], *restrict j1 = dj[1], *restrict j2 = dj[2];
  int i = 0;
  for (; i + 4 <= nq; i += 4) {
    lw_v4d_store(fp + i, lw_v4d_load(fp + i) + (-lw_v4d_load(dq + i) + lw_v4d_load(j0 + i)));
    lw_v4d_store(fv + i, lw_v4d_load(fv + i) + lw_v4d_load(j1 + i));
    lw_v4d_store(fa + i, lw_v4d_load(fa + i) + lw_v4d_load(j2 + i));
  }
  for (; i < nq; i++) {
    fp[i] += -dq[i] + j0[i];
    fv[i] += j1[i];
    fa[i] += j2[i];
  }
}

/* the bucket of time t: floor((t - t0) scale), within 0 .. nbkt - 1 (a
 * monotone map, so that t in [lo, hi] falls between the buckets of lo and
 * hi) */
int sens_time_bucket(const sens *s, double t)
{
  double x = (t - s->bk_t0) * s->bk_scale;
  if (!(x > 0.0))
    return 0;
  return x >= (double)(s->nbkt - 1) ? s->nbkt - 1 : (int)x;
}

/* the controllers' integral terms as the step from sa to sb saw them: the
 * carry into d, the errors' gradients at both states, Rc = dR_P/dc */
static void step_controllers(sens *s, const double *sa, const double *sb)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq;
  const double *q = ST_Q(s, sb);
  memcpy(d->fbc, ST_CARRY(s, sb), sizeof(double) * (size_t)s->nz);
  d->fb_beta = 0.5 * s->h;
  /* a state's gradients serve two steps: the forward pass meets it as
   * state b then a, the backward pass as a then b */
  double ta = ST_T(sa), tb = ST_T(sb);
  if (s->fb_tb == ta || s->fb_ta == tb) {
    double *sw[3][2] = {{s->eqa, s->eqb}, {s->eqda, s->eqdb}, {s->pea, s->peb}};
    s->eqa = sw[0][1], s->eqb = sw[0][0];
    s->eqda = sw[1][1], s->eqdb = sw[1][0];
    s->pea = sw[2][1], s->peb = sw[2][0];
    double t = s->fb_ta;
    s->fb_ta = s->fb_tb;
    s->fb_tb = t;
  }
  if (s->fb_ta != ta)
    controller_error_grads(s, sa, s->eqa, s->eqda, s->pea);
  if (s->fb_tb != tb)
    controller_error_grads(s, sb, s->eqb, s->eqdb, s->peb);
  s->fb_ta = ta;
  s->fb_tb = tb;
  memset(s->Rc, 0, sizeof(double) * (size_t)s->nz * nq);
  double g[2 * LW_MAXQB];
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    if (!lw_force_is_controller(f->type))
      continue;
    const lw_coord *c = &m->coords[f->coord];
    lw_coord_eval(m, c, q, g);
    for (int i = f->fb0; i < f->fb0 + f->nfb; i++)
      for (int l = 0; l < lw_loc_width(m, c->nblk, c->blk, 0); l++)
        s->Rc[(size_t)i * nq + lw_loc_global(m, c->blk, l, 0)] = m->fbs[i].ki * g[l];
  }
}

/* the projection matrix KM = [M J^T; J 0] at state sb (through S = J M^-1
 * J^T or by its LU) and the projections' multipliers sigma, kappa; fresh:
 * s->d holds sb as the step left it */
static int step_projections(sens *s, const double *sb, int fresh)
{
  const lw_model *m = s->m;
  lw_data *d = s->d;
  int nq = s->nq, nc = s->nc, n1 = s->n1;
  double t = ST_T(sb);
  const double *q = ST_Q(s, sb), *qd = ST_QD(s, sb);
  fresh = fresh && d->schur_ok;
  const double *mult = ST_MULT(s, sb);
  /* through M^-1 only when the mass blocks are well conditioned: a point
   * mass without rotary inertia is not, and M^-1 would carry its round-off
   * into the derivatives (the pendulum's forward and adjoint then differ by
   * 1e-6 instead of 1e-11) */
  int schur = m->dense && m->minv_cond <= 1e6;
  int kept = !fresh && s->aux && schur && mult[0] != 0.0; /* S as the step factorized it */
  if (!fresh && s->aux)
    sens_state_aux_load(s, sb, kept);
  else if (!fresh)
    lw_rows_eval(m, d, q, t, 1);
  s->km_schur = schur && (fresh || kept || lw_schur_factor(m, d) == 0);
  if (!s->km_schur)
    sens_km_build(s, s->KM);
  if (!s->km_schur && lw_lu_dense(s->KM, n1, s->ipM)) {
    lw_set_error(s->err, LW_ERR_SOLVER, "", t,
                 "the projection matrix [M J^T; J 0] is singular at t = %.6g s (dependent "
                 "constraints); sensitivities need independent constraints",
                 t);
    return -1;
  }
  if (!s->km_schur)
    sens_lu_recip(s->KM, n1, s->dM);
  /* multipliers of the projections: as the step found them, or again
   * (with the rows' time terms Phi_t, gamma) */
  if (s->km_schur && mult[0] != 0.0) {
    memcpy(s->sig, mult + 1, sizeof(double) * (size_t)nc);
    memcpy(s->kap, mult + 1 + nc, sizeof(double) * (size_t)nc);
  } else {
    if (!fresh)
      lw_rows_time(m, d, q, qd, t);
    lw_mass_mul(m, s->qds, s->rhs);
    for (int r = 0; r < nc; r++)
      s->rhs[nq + r] = -d->phit[r];
    sens_km_solve(s, s->rhs);
    memcpy(s->sig, s->rhs + nq, sizeof(double) * (size_t)nc);
    lw_mass_mul(m, s->qdds, s->rhs);
    for (int r = 0; r < nc; r++)
      s->rhs[nq + r] = -d->gam[r];
    sens_km_solve(s, s->rhs);
    memcpy(s->kap, s->rhs + nq, sizeof(double) * (size_t)nc);
  }
  return 0;
}

/* the off-diagonal blocks of the body pairs opair (nopair) zeroed: the
 * only ones the linearization writes */
static void off_clear(const lw_model *m, const int *opair, int nopair, double *off)
{
  int nq = m->nq;
  for (int k = 0; k < nopair; k++) {
    int bi = opair[2 * k], bj = opair[2 * k + 1];
    for (int j = m->blk_off[bj]; j < m->blk_off[bj] + m->blk_n[bj]; j++)
      memset(off + (size_t)j * nq + m->blk_off[bi], 0, sizeof(double) * (size_t)m->blk_n[bi]);
  }
}

/* the step's matrices in blocks at pt (A = c4 M + K + C' + H(lambda), H(sigma),
 * H(kappa), C and the rate matrices) and AP = [A J^T; J 0] factored */
static int step_matrices(sens *s, const lw_lin_point *pt)
{
  const lw_model *m = s->m;
  int nc = s->nc;
  size_t nbb = m->mblk_off[m->nb], nr = (size_t)nc * m->wrow;
  lw_bmat *bm[4] = {&s->Ab, &s->Hv, &s->Ha, &s->Cb};
  for (int k = 0; k < 4; k++) {
    memset(bm[k]->blk, 0, sizeof(double) * nbb);
    if (bm[k]->off)
      off_clear(m, s->opair, s->nopair, bm[k]->off);
  }
  memset(s->RV, 0, sizeof(double) * nr);
  memset(s->RA, 0, sizeof(double) * nr);
  memset(s->RAd, 0, sizeof(double) * nr);
  const lw_bmat *H[3] = {&s->Ab, &s->Hv, &s->Ha};
  lw_lin_blocks_dirs(m, s->d, pt, s->c2, H, s->RV, s->RA, s->RAd, &s->Ab, &s->Cb, s->fd_ptr, s->fd_q);
  if (m->nfric)
    sens_friction_lin(s, pt);
  /* K = A - c4 M kept apart: the carries apply it to the predictor
   * (sens_carry.c, sens_adjoint.c), where A's c4 M would cancel */
  memcpy(s->Kb.blk, s->Ab.blk, sizeof(double) * nbb);
  sens_vec_axpy(s->Ab.blk, s->c4, m->mass_blocks, nbb);
  if (s->ap_struct ? sens_ap_factor(s) : sens_ap_factor_dense(s)) {
    lw_set_error(s->err, LW_ERR_SOLVER, "", pt->t,
                 "the step's tangent matrix is singular at t = %.6g s; the sensitivities are "
                 "undefined there",
                 pt->t);
    return -1;
  }
  return 0;
}

/* the parameters' step columns FP, FV, FA at pt (qd, qdd: state b's rates);
 * a parameter left out of alist has a column that is exactly zero (not
 * written): a spline value far from t */
static void step_param_cols(sens *s, const lw_lin_point *pt, const double *qd, const double *qdd)
{
  const lw_model *m = s->m;
  int nq = s->nq, n1 = s->n1;
  double t = pt->t;
  lw_lin_out o1 = {s->dQ, {s->dJ[0], s->dJ[1], s->dJ[2]}, s->dphi, s->dvel, s->dacc};
  for (int i = 0; i < nq; i++) {
    s->e[i] = qd[i] - s->qds[i];
    s->e2[i] = qdd[i] - s->qdds[i];
  }
  s->nact = 0;
  /* the parameters that are not time functions' coefficients, and those
   * coefficients listed in t's bucket, merged in ascending order */
  int bt = s->nbkt ? sens_time_bucket(s, t) : 0;
  const int *bl = s->nbkt ? s->bk_idx + s->bk_ptr[bt] : NULL;
  int nbl = s->nbkt ? s->bk_ptr[bt + 1] - s->bk_ptr[bt] : 0;
  for (int ia = 0, ib = 0; ia < s->nplain || ib < nbl;) {
    int j = ib >= nbl || (ia < s->nplain && s->plist[ia] < bl[ib]) ? s->plist[ia++] : bl[ib++];
    /* a time function's coefficient: most are far from t (a long spline) */
    if (t < s->plo[j] || t > s->phi[j])
      continue;
    double *fp = s->FP + (size_t)j * n1, *fv = s->FV + (size_t)j * n1, *fa = s->FA + (size_t)j * n1;
    const lw_tangent *tg = s->tg[j];
    if (!lw_tangent_active(m, tg, t))
      continue;
    s->alist[s->nact++] = j;
    memset(fp, 0, sizeof(double) * (size_t)nq);
    memset(fv, 0, sizeof(double) * (size_t)nq);
    memset(fa, 0, sizeof(double) * (size_t)nq);
    lw_lin_dir dir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    /* the constraint rows' derivatives straight into the columns */
    o1.dphi = fp + nq;
    o1.dvel = fv + nq;
    o1.dacc = fa + nq;
    lw_lin_jvp(m, s->d, pt, &dir, &o1);
    {
      const double *x[3] = {s->qdds, s->e, s->e2};
      double *y[3] = {fp, fv, fa};
      lw_tangent_mass_mul_k(m, tg, 3, x, y);
    }
    step_cols_add(fp, fv, fa, s->dQ, s->dJ, nq);
    if (m->nfric)
      sens_friction_param_col(s, pt, tg, fp);
  }
}

/* linearize the step from state a (t_n) to state b (t_n+1); fresh: s->d
 * holds state b as lw_step left it (the constraint rows, their time terms
 * and the Schur factors at b are not evaluated again) */
int sens_step_linearize(sens *s, const double *sa, const double *sb, int fresh)
{
  lw_data *d = s->d;
  double t = ST_T(sb);
  const double *q = ST_Q(s, sb), *qd = ST_QD(s, sb), *qdd = ST_QDD(s, sb), *lam = ST_L(s, sb);
  memcpy(d->coord_prev, ST_C(s, sb), sizeof(double) * (size_t)s->ncoords);
  if (s->m->nswitches) /* the forces that act at b */
    lw_switches_unpack(s->m, d, *ST_SW(s, sb));
  if (s->nz)
    step_controllers(s, sa, sb);
  if (s->nm.on)
    step_rates_alpha(s, sa, q);
  else
    step_rates(s->qds, s->qdds, q, ST_Q(s, sa), ST_QD(s, sa), ST_QDD(s, sa), s->c2, s->c4, s->nq);
  if (step_projections(s, sb, fresh))
    return -1;
  if (s->m->nfric)
    sens_friction_point(s, sa, sb);
  lw_lin_point pt = {q, s->qds, qd, qdd, {lam, s->sig, s->kap}, t};
  if (step_matrices(s, &pt))
    return -1;
  step_param_cols(s, &pt, qd, qdd);
  if (s->nz) {
    memcpy(d->fbc, ST_Z(s, sb), sizeof(double) * (size_t)s->nz);
    d->fb_beta = 0.0;
  }
  return 0;
}
