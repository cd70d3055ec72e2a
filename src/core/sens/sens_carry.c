/* sens_carry.c: columns of the state's derivatives carried over one ALI3-P
 * step linearized in s (sens_step.c): the forward's live columns
 * (sens_forward.c) and the columns of a step with events (sens_events.c)
 * go through the same solves.  The adjoint (sens_adjoint.c,
 * adjoint_step_transposed) is this carry transposed. */
#include "sens_internal.h"

/* the predictor of the carried columns and the velocity's history:
 * x' = q' + h qd' + h^2/4 qdd' (the position's sensitivity if the step's
 * own terms were zero), v' = qd' + h/2 qdd', n entries, in vectors */
LW_CLONES static void predictor_rows(double *restrict xp, double *restrict vp, const double *restrict q1,
                                     const double *restrict q2, const double *restrict q3, double h, size_t n)
{
  double h2 = 0.5 * h, hh4 = 0.25 * h * h;
  lw_v4d a1 = {h, h, h, h}, a2 = {h2, h2, h2, h2}, a4 = {hh4, hh4, hh4, hh4};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    lw_v4d x2 = lw_v4d_load(q2 + i), x3 = lw_v4d_load(q3 + i);
    lw_v4d_store(xp + i, lw_v4d_load(q1 + i) + a1 * x2 + a4 * x3);
    lw_v4d_store(vp + i, x2 + a2 * x3);
  }
  for (; i < n; i++) {
    xp[i] = q1[i] + h * q2[i] + hh4 * q3[i];
    vp[i] = q2[i] + h2 * q3[i];
  }
}

/* with numerical damping (dyn/lw_newmark.h), the predictor x' = q' + h
 * qd' + px a', the velocity's history v' = qd' + pv a' and the rest of the
 * acceleration's history r' = rm a' + rd qdd', n entries */
static void predictor_rows_alpha(const lw_newmark *k, double *restrict xp, double *restrict vp, double *restrict rp,
                                 const double *restrict q1, const double *restrict q2, const double *restrict q3,
                                 const double *restrict a1, double h, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    xp[i] = q1[i] + h * q2[i] + k->px * a1[i];
    vp[i] = q2[i] + k->pv * a1[i];
    rp[i] = k->rm * a1[i] + k->rd * q3[i];
  }
}

/* the position problem for the increment d' over the predictor x':
 * AP [d'; lambda'] = -(FP + K x' + C bh' + Rc c' (- M r'); J x'), then
 * q' = x' + d' */
static void carry_position(sens *s, const sens_cols *c)
{
  const lw_model *m = s->m;
  int w = c->w, nq = s->nq, nc = s->nc;
  size_t np = (size_t)nq * w;
  double *Sx = c->X, *R = c->r, *XP = c->xp, *DP = c->dp, *DC = c->dc;
  double *Sq = Sx, *Sqd = Sx + np, *Sl = Sx + 3 * np, *Sz = Sx + (size_t)s->nxs * w;
  double *Sa = Sx + (size_t)s->nx * w; /* a' (na rows: no friction rows then) */
  /* C bh' = -C (c2 q'_n + qd'_n) */
  sens_step_cols_scatter(s, c->col, s->FP, -1.0, R, w);
  sens_bmat_rows(m, &s->Kb, 0.0, -1.0, XP, R, w);
  sens_rowmat_rows(m, s->d->jac, -1.0, 0, XP, R + np, w);
  if (!s->undamped && !s->na) {
    sens_bmat_rows(m, &s->Cb, 0.0, s->c2, Sq, R, w);
    sens_bmat_rows(m, &s->Cb, 0.0, 1.0, Sqd, R, w);
  } else if (!s->undamped) { /* -C bh', bh' = bq q'_n + bv qd'_n + ba a'_n */
    sens_bmat_rows(m, &s->Cb, 0.0, -s->nm.bq, Sq, R, w);
    sens_bmat_rows(m, &s->Cb, 0.0, -s->nm.bv, Sqd, R, w);
    sens_bmat_rows(m, &s->Cb, 0.0, -s->nm.ba, Sa, R, w);
  }
  if (s->na)
    sens_blocks_rows(m, m->mass_blocks, NULL, 0.0, -1.0, c->rp, R, w);
  if (s->nz) {
    /* the carry c' = z' + h/2 e'(state k-1) enters through Rc */
    sens_carry_rows(s, s->eqa, s->eqda, s->pea, Sq, Sqd, Sz, DC, w);
    for (int i = 0; i < s->nz; i++)
      for (int l = 0; l < nq; l++) {
        double rc = s->Rc[(size_t)i * nq + l];
        if (rc == 0.0)
          continue;
        for (int k = 0; k < w; k++)
          R[(size_t)l * w + k] -= rc * DC[(size_t)i * w + k];
      }
  }
  if (m->nfric) /* friction read kappa_a: + Q^f_l kappa_a' */
    sens_friction_kap_rows(s, Sx + (size_t)s->nx * w, R, w);
  sens_ap_solve_rows(s, R, DP, w);
  memcpy(Sl, R + np, sizeof(double) * (size_t)nc * w);
  for (size_t i = 0; i < np; i++)
    Sq[i] = XP[i] + DP[i];
}

/* the velocity and acceleration problems at the new q', with the rates'
 * mass terms c2 M q' + M bh' = M (v' + c2 d') and c4 M q' + M ah' = c4 M
 * d' (+ M r') */
static void carry_rates(sens *s, const sens_cols *c)
{
  const lw_model *m = s->m;
  int w = c->w, nq = s->nq, nc = s->nc;
  size_t np = (size_t)nq * w;
  double *Sx = c->X, *R = c->r, *DP = c->dp;
  double *Sq = Sx, *Sqd = Sx + np, *Sqdd = Sx + 2 * np, *Sz = Sx + (size_t)s->nxs * w;
  double *Sa = Sx + (size_t)s->nx * w;
  /* velocity: KM [qd'; .] = -(FV + DVq q' - M (v' + c2 d'); RV q') */
  sens_step_cols_scatter(s, c->col, s->FV, -1.0, R, w);
  sens_bmat_rows(m, &s->Hv, 0.0, -1.0, Sq, R, w);
  sens_blocks_rows(m, m->mass_blocks, NULL, 0.0, 1.0, c->vp, R, w);
  sens_blocks_rows(m, m->mass_blocks, NULL, 0.0, s->c2, DP, R, w);
  sens_rowmat_rows(m, s->RV, -1.0, 0, Sq, R + np, w);
  sens_km_solve_rows(s, R, Sqd, w);
  /* acceleration: KM [qdd'; .] = -(FA + DAq q' - c4 M d'; RA q' + RAd qd') */
  sens_step_cols_scatter(s, c->col, s->FA, -1.0, R, w);
  sens_bmat_rows(m, &s->Ha, 0.0, -1.0, Sq, R, w);
  sens_blocks_rows(m, m->mass_blocks, NULL, 0.0, s->c4, DP, R, w);
  if (s->na)
    sens_blocks_rows(m, m->mass_blocks, NULL, 0.0, 1.0, c->rp, R, w);
  sens_rowmat_rows(m, s->RA, -1.0, 0, Sq, R + np, w);
  sens_rowmat_rows(m, s->RAd, -1.0, 0, Sqd, R + np, w);
  if (s->na) /* a' = ea qdd' + en qdd_n' + eo a_n': the old terms first */
    for (size_t i = 0; i < np; i++)
      Sa[i] = s->nm.en * Sqdd[i] + s->nm.eo * Sa[i];
  sens_km_solve_rows(s, R, Sqdd, w);
  if (s->na)
    sens_vec_axpy(Sa, s->nm.ea, Sqdd, np);
  if (m->nfric) /* kappa' for the next step's friction */
    memcpy(Sx + (size_t)s->nx * w, R + np, sizeof(double) * (size_t)nc * w);
  /* z' = c' + h/2 e'(state k) */
  if (s->nz)
    sens_carry_rows(s, s->eqb, s->eqdb, s->peb, Sq, Sqd, c->dc, Sz, w);
}

/* The columns carried over the step: the position problem, then the
 * velocity and acceleration problems, each solved for the w columns by
 * rows.  The position problem is solved for the increment d' = q' - x'
 * over the predictor x' = q'_n + h qd'_n + h^2/4 qdd'_n: with ah' = -(c4
 * q'_n + 2 c2 qd'_n + qdd'_n) = -c4 x' and bh' = -(c2 q'_n + qd'_n), the
 * problem AP [q'; lambda'] = -(FP + M ah' + C bh' + Rc c') becomes AP [d';
 * lambda'] = -(FP + K x' + C bh' + Rc c'; J x'), K = A - c4 M, and the
 * rates' mass terms c2 M q' + M bh' = M (v' + c2 d') and c4 M q' + M ah' =
 * c4 M d'.  Nothing of size c4 |q'| then cancels, which at small steps
 * cost the carried columns digits in proportion to the number of steps
 * times 1/h (forward and adjoint apart by 1e-8 over 5e4 steps of 2e-5 s).
 * With numerical damping (dyn/lw_newmark.h) x' = q'_n + h qd'_n + px
 * a'_n, v' = qd'_n + pv a'_n, and ah' = r' - c4 x', r' = rm a'_n + rd
 * qdd'_n, adds -M r' to the position problem and M r' to the acceleration
 * problem; then a' = ea qdd' + en qdd'_n + eo a'_n */
void sens_step_carry(sens *s, const sens_cols *c)
{
  size_t np = (size_t)s->nq * c->w;
  double *Sq = c->X, *Sqd = c->X + np, *Sqdd = c->X + 2 * np;
  if (s->na)
    predictor_rows_alpha(&s->nm, c->xp, c->vp, c->rp, Sq, Sqd, Sqdd, c->X + (size_t)s->nx * c->w, s->h, np);
  else
    predictor_rows(c->xp, c->vp, Sq, Sqd, Sqdd, s->h, np);
  carry_position(s, c);
  carry_rates(s, c);
}
