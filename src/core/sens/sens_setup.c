/* sens_setup.c: the sensitivity workspace (struct sens): its sizes and
 * constants for a model, its arrays, the buckets of the time functions'
 * coefficients. */
#include "sens_internal.h"
#include "compile/lw_vexpr.h"
#include "kind/lw_kind.h"
#include "lin/lw_friction_jvp.h"

#include <stdlib.h>

/* ---- setup ------------------------------------------------------------------ */
void sens_free(sens *s)
{
  void *arrs[] = {s->M,   s->AP,  s->KM,  s->Ab.blk, s->Ab.off, s->Hv.blk, s->Hv.off, s->Ha.blk, s->Ha.off,
                  s->Cb.blk, s->Cb.off, s->Kb.blk, s->RV, s->RA, s->RAd, s->WP, s->SP, s->ipS, s->apt, s->Ainv, s->SPd, s->FP,  s->FV,
                  s->FA,  s->ipP, s->ipM, s->dP, s->dM, s->qds, s->qdds, s->sig, s->kap, s->dQ,  s->dJ[0],
                  s->dJ[1], s->dJ[2], s->dphi, s->dvel, s->dacc, s->e, s->e2, s->kxm, s->rhs, s->out_used, s->y_const,
                  s->ynz_p, s->ynz, s->yx, s->cd_ptr, s->cd_q, s->fd_ptr, s->fd_q, s->opair, s->od_ptr, s->od_x,
                  s->Y,   s->YT,  s->yrow, s->dy, s->gy, s->gth, s->Rc, s->eqa, s->eqda,
                  s->eqb, s->eqdb, s->pea, s->peb, s->alist, s->plo, s->phi, s->plist,
                  s->col, s->live, s->bk_ptr, s->bk_idx, s->fric_L, s->fric_l, s->fric_e, s->fric_d, s->fric_dp, s->fric_Z, s->fric_t};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
    free(arrs[i]);
  sens_tri_free(&s->tri);
}

/* whether a joint's friction couples two bodies in the step's matrices:
 * its generalized force on one body depends on the other's coordinates
 * (sens_friction.c writes the columns of its bodies into the rows of its
 * coordinates' blocks) */
static int friction_couples(const lw_model *m)
{
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    int blk[2], nb = lw_joint_friction_bodies(m, e, blk);
    for (int k = 0; k < nb; k++)
      for (int b = 0; b < f->nblk; b++)
        if (f->blk[b] != blk[k])
          return 1;
  }
  return 0;
}

/* whether joint coordinate c reads coordinate q_g: one of its vectors
 * moves along the unit vector e_g (e: nq zeros, left so) */
static int coord_reads(const lw_model *m, const lw_coord *c, int g, double *e)
{
  const lw_vexpr *v[4] = {&c->a, &c->b, &c->c, &c->d};
  int reads = 0;
  e[g] = 1.0;
  for (int k = 0; k < lw_row_kind_of(c->kind)->nvec && !reads; k++) {
    double y[3] = {0.0, 0.0, 0.0};
    lw_vexpr_eval_lin(m, v[k], e, y);
    reads = y[0] != 0.0 || y[1] != 0.0 || y[2] != 0.0;
  }
  e[g] = 0.0;
  return reads;
}

/* the coordinates each joint coordinate reads (cd_ptr, cd_q), ascending */
static int coord_reads_init(sens *s, double *e)
{
  const lw_model *m = s->m;
  s->cd_ptr = calloc((size_t)m->ncoords + 1, sizeof(int));
  s->cd_q = calloc((size_t)m->ncoords * m->wrow + 1, sizeof(int));
  if (!s->cd_ptr || !s->cd_q)
    return -1;
  int n = 0;
  for (int ci = 0; ci < m->ncoords; ci++) {
    const lw_coord *c = &m->coords[ci];
    int n0 = n;
    for (int k = 0; k < c->nblk; k++)
      for (int l = 0; l < m->blk_n[c->blk[k]]; l++) {
        int g = m->blk_off[c->blk[k]] + l, i = n;
        if (!coord_reads(m, c, g, e))
          continue;
        for (; i > n0 && s->cd_q[i - 1] > g; i--) /* insertion: the blocks may come in any order */
          s->cd_q[i] = s->cd_q[i - 1];
        s->cd_q[i] = g;
        n++;
      }
    s->cd_ptr[ci + 1] = n;
  }
  return 0;
}

/* the coordinates each force's derivatives are taken along (fd_ptr,
 * fd_q): a controller's Q = tau(c_i, c_i') grad c (docs: PID and state
 * feedback) reads q and qd only through its actuated and measured
 * coordinates, so that along any coordinate none of them reads its
 * column is exactly zero; mark (nq) is left cleared */
static int force_dirs_init(sens *s, char *mark)
{
  const lw_model *m = s->m;
  int nqb = m->nqb, n = 0, cap = 0;
  for (int f = 0; f < m->nforces; f++) {
    const int *blk;
    int nblk = lw_force_kind_of(m->forces[f].type)->blocks(m, &m->forces[f], &blk);
    cap += lw_loc_width(m, nblk, blk, nqb);
  }
  s->fd_ptr = calloc((size_t)m->nforces + 1, sizeof(int));
  s->fd_q = calloc((size_t)cap + 1, sizeof(int));
  if (!s->fd_ptr || !s->fd_q)
    return -1;
  for (int f = 0; f < m->nforces; f++) {
    const lw_force *fo = &m->forces[f];
    const int *blk;
    int nblk = lw_force_kind_of(fo->type)->blocks(m, fo, &blk);
    int w = lw_loc_width(m, nblk, blk, nqb);
    if (!lw_force_is_controller(fo->type)) {
      for (int i = 0; i < w; i++)
        s->fd_q[n++] = lw_loc_global(m, blk, i, nqb);
      s->fd_ptr[f + 1] = n;
      continue;
    }
    for (int k = -1; k < fo->nfb; k++) {
      int c = k < 0 ? fo->coord : m->fbs[fo->fb0 + k].coord;
      for (int i = s->cd_ptr[c]; i < s->cd_ptr[c + 1]; i++)
        mark[s->cd_q[i]] = 1;
    }
    for (int i = 0; i < w; i++) { /* in the order of its blocks, as without the list */
      int g = lw_loc_global(m, blk, i, nqb);
      if (mark[g])
        s->fd_q[n++] = g;
    }
    for (int k = -1; k < fo->nfb; k++) {
      int c = k < 0 ? fo->coord : m->fbs[fo->fb0 + k].coord;
      for (int i = s->cd_ptr[c]; i < s->cd_ptr[c + 1]; i++)
        mark[s->cd_q[i]] = 0;
    }
    s->fd_ptr[f + 1] = n;
  }
  return 0;
}

/* mark[g] = 1 for the coordinates that output k's joint coordinates read
 * (a joint coordinate or rate: its own; a controller's force: its measured
 * ones); returns 0 for an output read along every state direction */
static int output_reads(const sens *s, int k, char *mark)
{
  const lw_model *m = s->m;
  const lw_output *op = &m->outputs[k];
  int c[64], nc = 0;
  if (op->type == LW_OUT_JOINT_COORDINATE || op->type == LW_OUT_JOINT_VELOCITY) {
    c[nc++] = op->coord;
  } else if (op->type == LW_OUT_CONTROL) {
    const lw_force *f = &m->forces[op->force];
    if (f->nfb > 64)
      return 0;
    for (int i = f->fb0; i < f->fb0 + f->nfb; i++)
      c[nc++] = m->fbs[i].coord;
  } else {
    return 0;
  }
  for (int n = 0; n < nc; n++)
    for (int i = s->cd_ptr[c[n]]; i < s->cd_ptr[c[n] + 1]; i++)
      mark[s->cd_q[i]] = 1;
  return 1;
}

/* the state directions of each output (od_ptr, od_x): a joint coordinate
 * along the coordinates it reads, its rate and a controller's force along
 * those and their rates, any other output along every x of [q qd qdd
 * lambda] */
static int output_dirs_init(sens *s)
{
  const lw_model *m = s->m;
  int nq = s->nq, nx = s->nxs;
  char *mark = calloc((size_t)nq + 1, 1);
  s->od_ptr = calloc((size_t)m->nout + 1, sizeof(int));
  s->od_x = calloc((size_t)m->nout * nx + 1, sizeof(int));
  if (!mark || !s->od_ptr || !s->od_x) {
    free(mark);
    return -1;
  }
  int n = 0;
  for (int k = 0; k < m->nout; k++) {
    if (!output_reads(s, k, mark)) {
      for (int x = 0; x < nx; x++)
        s->od_x[n++] = x;
    } else {
      int rate = m->outputs[k].type != LW_OUT_JOINT_COORDINATE;
      for (int x = 0; x < (rate ? 2 : 1) * nq; x++)
        if (mark[x % nq])
          s->od_x[n++] = x;
      memset(mark, 0, (size_t)nq);
    }
    s->od_ptr[k + 1] = n;
  }
  free(mark);
  return 0;
}

/* the buckets of the time functions' coefficients (none: nbkt = 0) */
static int coef_buckets_init(sens *s)
{
  int nf = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (int j = 0; j < s->p; j++) {
    if (!s->tg[j] || !s->tg[j]->fn_kind)
      continue;
    nf++;
    double e[2] = {s->plo[j], s->phi[j]};
    for (int k = 0; k < 2; k++)
      if (isfinite(e[k])) {
        lo = fmin(lo, e[k]);
        hi = fmax(hi, e[k]);
      }
  }
  s->nbkt = 0;
  if (nf == 0)
    return 0;
  s->nbkt = nf < 1024 ? nf : 1024;
  s->bk_t0 = isfinite(lo) ? lo : 0.0;
  s->bk_scale = hi > lo ? s->nbkt / (hi - lo) : 0.0;
  s->bk_ptr = calloc((size_t)s->nbkt + 1, sizeof(int));
  if (!s->bk_ptr)
    return -1;
  /* count, then fill in ascending order of the parameters */
  for (int pass = 0; pass < 2; pass++) {
    for (int j = 0; j < s->p; j++) {
      if (!s->tg[j] || !s->tg[j]->fn_kind || !(s->plo[j] <= s->phi[j]))
        continue;
      int b1 = sens_time_bucket(s, s->phi[j]);
      for (int b = sens_time_bucket(s, s->plo[j]); b <= b1; b++)
        if (pass == 0)
          s->bk_ptr[b + 1]++;
        else
          s->bk_idx[s->bk_ptr[b]++] = j;
    }
    if (pass == 0) {
      for (int b = 0; b < s->nbkt; b++)
        s->bk_ptr[b + 1] += s->bk_ptr[b];
      s->bk_idx = malloc(sizeof(int) * ((size_t)s->bk_ptr[s->nbkt] + 1));
      if (!s->bk_idx)
        return -1;
    } else { /* the fill moved each start to the next bucket's */
      for (int b = s->nbkt; b > 0; b--)
        s->bk_ptr[b] = s->bk_ptr[b - 1];
      s->bk_ptr[0] = 0;
    }
  }
  return 0;
}

/* every pair of the bodies blk[0 .. n) marked in pm (nb x nb) */
static void mark_pairs(char *pm, int nb, const int *blk, int n)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (blk[i] >= 0 && blk[j] >= 0 && blk[i] != blk[j])
        pm[(size_t)blk[i] * nb + blk[j]] = 1;
}

/* the pairs of bodies whose off-diagonal blocks the step's linearization
 * writes (opair): those of the rows, the forces and the friction elements */
static int off_pairs_init(sens *s)
{
  const lw_model *m = s->m;
  int nb = m->nb;
  char *pm = calloc((size_t)nb * nb + 1, 1);
  if (!pm)
    return -1;
  for (int r = 0; r < m->nc; r++)
    mark_pairs(pm, nb, m->rows[r].blk, m->rows[r].nblk);
  for (int n = 0; n < m->nforces; n++) {
    const int *blk;
    int nblk = lw_force_kind_of(m->forces[n].type)->blocks(m, &m->forces[n], &blk);
    mark_pairs(pm, nb, blk, nblk);
  }
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    int blk[LW_MAXCBLK + 2], n = lw_joint_friction_bodies(m, e, blk);
    for (int b = 0; b < f->nblk && n < LW_MAXCBLK + 2; b++)
      blk[n++] = f->blk[b];
    mark_pairs(pm, nb, blk, n);
  }
  s->nopair = 0;
  for (size_t k = 0; k < (size_t)nb * nb; k++)
    s->nopair += pm[k];
  s->opair = calloc(2 * (size_t)s->nopair + 1, sizeof(int));
  if (!s->opair) {
    free(pm);
    return -1;
  }
  int n = 0;
  for (int j = 0; j < nb; j++)
    for (int i = 0; i < nb; i++)
      if (pm[(size_t)i * nb + j]) {
        s->opair[2 * n] = i;
        s->opair[2 * n + 1] = j;
        n++;
      }
  free(pm);
  return 0;
}

int sens_alloc(sens *s)
{
  int nq = s->nq, n1 = s->n1, p = s->p > 0 ? s->p : 1, nx = s->nx;
  size_t nn = (size_t)n1 * n1;
  s->M = calloc((size_t)nq * nq + 1, sizeof(double));
  s->AP = calloc(nn + 1, sizeof(double));
  s->KM = calloc(nn + 1, sizeof(double));
  size_t nbb = s->m->mblk_off[s->m->nb] + 1, nr = (size_t)s->nc * s->m->wrow + 1;
  lw_bmat *bm[4] = {&s->Ab, &s->Hv, &s->Ha, &s->Cb};
  int bm_ok = 1, coupled = s->m->lin_coupled || friction_couples(s->m);
  for (int k = 0; k < 4; k++) {
    bm[k]->blk = calloc(nbb, sizeof(double));
    bm[k]->off = coupled ? calloc((size_t)nq * nq + 1, sizeof(double)) : NULL;
    bm_ok = bm_ok && bm[k]->blk && (bm[k]->off || !coupled);
  }
  if (coupled && off_pairs_init(s))
    return -1;
  s->Kb.blk = calloc(nbb, sizeof(double));
  s->Kb.off = s->Ab.off;
  bm_ok = bm_ok && s->Kb.blk;
  if (s->m->nfric && sens_friction_alloc(s))
    return -1;
  s->RV = calloc(nr, sizeof(double));
  s->RA = calloc(nr, sizeof(double));
  s->RAd = calloc(nr, sizeof(double));
  s->WP = calloc(nr, sizeof(double));
  s->SP = calloc((size_t)s->nc * s->nc + 1, sizeof(double));
  s->ipS = calloc((size_t)s->nc + 1, sizeof(int));
  s->apt = calloc((size_t)nq + 1, sizeof(double));
  s->Ainv = calloc(nbb, sizeof(double));
  s->SPd = calloc((size_t)s->nc + 1, sizeof(double));
  s->FP = calloc((size_t)n1 * (p + 1), sizeof(double));
  s->FV = calloc((size_t)n1 * (p + 1), sizeof(double));
  s->FA = calloc((size_t)n1 * (p + 1), sizeof(double));
  s->alist = calloc((size_t)p + 1, sizeof(int));
  s->col = malloc(sizeof(int) * ((size_t)p + 1));
  s->live = calloc((size_t)p + 1, sizeof(int));
  s->plist = calloc((size_t)p + 1, sizeof(int));
  s->plo = calloc((size_t)p + 1, sizeof(double));
  s->phi = calloc((size_t)p + 1, sizeof(double));
  if (!s->alist || !s->plist || !s->plo || !s->phi || !s->col || !s->live)
    return -1;
  for (int j = 0; j < p; j++)
    s->col[j] = -1;
  s->nl = 0;
  s->nact = s->nplain = 0;
  for (int j = 0; j < s->p; j++) {
    const lw_tangent *tg = s->tg[j];
    s->plo[j] = !tg || !tg->any ? INFINITY : tg->fn_kind ? tg->fn_lo : -INFINITY;
    s->phi[j] = !tg || !tg->any ? -INFINITY : tg->fn_kind ? tg->fn_hi : INFINITY;
    if (!tg || !tg->fn_kind)
      s->plist[s->nplain++] = j;
  }
  if (coef_buckets_init(s))
    return -1;
  s->ipP = calloc((size_t)n1 + 1, sizeof(int));
  s->ipM = calloc((size_t)n1 + 1, sizeof(int));
  s->dP = calloc((size_t)n1 + 1, sizeof(double));
  s->dM = calloc((size_t)n1 + 1, sizeof(double));
  s->qds = calloc((size_t)nq + 1, sizeof(double));
  s->qdds = calloc((size_t)nq + 1, sizeof(double));
  s->sig = calloc((size_t)s->nc + 1, sizeof(double));
  s->kap = calloc((size_t)s->nc + 1, sizeof(double));
  s->dQ = calloc((size_t)nq + 1, sizeof(double));
  for (int k = 0; k < 3; k++)
    s->dJ[k] = calloc((size_t)nq + 1, sizeof(double));
  s->dphi = calloc((size_t)s->nc + 1, sizeof(double));
  s->dvel = calloc((size_t)s->nc + 1, sizeof(double));
  s->dacc = calloc((size_t)s->nc + 1, sizeof(double));
  s->e = calloc((size_t)nx + n1 + 1, sizeof(double));
  s->e2 = calloc((size_t)nx + n1 + 1, sizeof(double));
  s->kxm = calloc((size_t)s->nq + 1, sizeof(double));
  s->rhs = calloc((size_t)n1 + 1, sizeof(double));
  s->out_used = calloc((size_t)s->m->nout + 1, 1);
  s->y_const = calloc((size_t)s->m->nout + 1, 1);
  s->ynz_p = calloc((size_t)s->ncols + 1, sizeof(int));
  s->ynz = calloc((size_t)s->ncols * nx + 1, sizeof(int));
  s->yx = calloc((size_t)nx + 1, sizeof(int));
  s->y_dirty = 1;
  if (!s->e || coord_reads_init(s, s->e) || output_dirs_init(s))
    return -1;
  char *mark = calloc((size_t)nq + 1, 1);
  int fd_fail = !mark || force_dirs_init(s, mark);
  free(mark);
  if (fd_fail)
    return -1;
  s->Y = calloc((size_t)s->ncols * nx + 1, sizeof(double));
  s->YT = calloc((size_t)s->ncols * p + 1, sizeof(double));
  s->yrow = calloc((size_t)s->ncols + 1, sizeof(double));
  s->dy = calloc(4, sizeof(double));
  s->gy = calloc((size_t)(s->no ? s->no : 1) * s->ncols + 1, sizeof(double));
  s->gth = calloc((size_t)(s->no ? s->no : 1) * p, sizeof(double));
  if (s->nz) {
    size_t zq = (size_t)s->nz * nq + 1, zp = (size_t)s->nz * p + 1;
    s->Rc = calloc(zq, sizeof(double));
    s->eqa = calloc(zq, sizeof(double));
    s->eqda = calloc(zq, sizeof(double));
    s->eqb = calloc(zq, sizeof(double));
    s->eqdb = calloc(zq, sizeof(double));
    s->pea = calloc(zp, sizeof(double));
    s->peb = calloc(zp, sizeof(double));
    if (!s->Rc || !s->eqa || !s->eqda || !s->eqb || !s->eqdb || !s->pea || !s->peb)
      return -1;
  }
  return s->M && s->kxm && s->AP && s->KM && bm_ok && s->RV && s->RA && s->RAd && s->WP && s->SP &&
                 s->ipS && s->apt && s->Ainv && s->SPd && s->FP && s->FV && s->FA && s->Y && s->YT && s->ynz_p &&
                 s->ynz && s->yx && s->ipP &&
                 s->ipM && s->dP && s->dM
             ? 0
             : -1;
}

/* the engine's sizes and constants for model m and p parameters */
void sens_sizes_init(sens *s, const lw_model *m, lw_tangent **tg, int p, lw_error *err)
{
  s->m = m;
  s->err = err;
  s->nq = m->nq;
  s->nc = m->nc;
  s->n1 = m->nq + m->nc;
  s->nz = m->nfbs;
  s->fb_ta = s->fb_tb = NAN;
  s->nxs = 3 * m->nq + m->nc;
  s->nx = s->nxs + s->nz;
  s->nqb = m->nqb;
  s->ncoords = m->ncoords;
  s->ncols = m->ncols;
  s->p = p;
  s->tg = tg;
  s->term_tg = 0;
  for (int j = 0; j < p; j++)
    for (int k = 0; tg && tg[j] && k < m->nterms && !s->term_tg; k++)
      s->term_tg = tg[j]->term_on[k] != 0;
  s->h = m->opt.step;
  s->c2 = 2.0 / s->h;
  s->c4 = 4.0 / (s->h * s->h);
  s->nm = lw_newmark_coefs(m->opt.rho_inf, s->h);
  s->na = s->nm.on ? m->nq : 0;
  if (s->nm.on) {
    s->c2 = s->nm.c2;
    s->c4 = s->nm.c4;
  }
  s->sM = m->mass_scale > 0 ? m->mass_scale : 1.0;
  s->sP = s->c4 * s->sM;
  /* joint friction makes AP's multiplier columns J^T - dQ^f/dl: not the
   * transpose of its constraint rows (docs/friction.md sec. 8.5), which
   * the Schur complement's friction columns take (sens_linalg.c) while A
   * stays block-diagonal; friction that couples two bodies in A: the
   * dense LU */
  s->ap_struct = m->dense && m->minv_cond <= 1e6 && !m->lin_coupled && !friction_couples(m);
  /* no force depends on the velocities: springs without damping, forces
   * and torques of time alone (C = -dQ/dv is zero) */
  s->undamped = 1;
  for (int n = 0; n < m->nforces; n++) {
    const lw_force *f = &m->forces[n];
    const lw_force_kind *kind = lw_force_kind_of(f->type);
    if (kind && kind->uses_velocity && kind->uses_velocity(f))
      s->undamped = 0;
  }
  if (m->nfric)
    s->undamped = 0; /* friction's damping -dQ^f/dqd */
}

