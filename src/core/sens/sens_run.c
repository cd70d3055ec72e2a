/* sens_run.c: the public entry points of the exact sensitivities of objectives over a simulation: forward
 * (direct differentiation) and discrete adjoint of the discretized ALI3-P
 * step, central finite differences as a verifier.
 *
 * The step from t_n to t_n+1 solves, at convergence (seed 002 eqs. 3.28,
 * 3.35, 3.39 with the trapezoidal rule, beta = 1/4, gamma = 1/2):
 *   E_P(q, lambda):  M qdd*(q) - Q(q, qd*(q)) + J(q)^T lambda = 0,  Phi(q, t) = 0
 *   E_V(qd, sigma):  M (qd - qd*) + J^T sigma = 0,                  J qd + Phi_t = 0
 *   E_A(qdd, kappa): M (qdd - qdd*) + J^T kappa = 0,                J qdd + gamma(q, qd) = 0
 * with qd* = c2 q + bh, qdd* = c4 q + ah, c2 = 2/h, c4 = 4/h^2 and the
 * history terms bh = -(c2 q_n + qd_n), ah = -(c4 q_n + 2 c2 qd_n + qdd_n).
 * Position, velocity and acceleration problems at t = 0 start it.  The
 * Newton iteration converges to the tolerance and the projections are exact,
 * so these equations are what was simulated: their linearization, solved
 * forward (one LU of each step matrix, one back-substitution per parameter)
 * or transposed backward (the discrete adjoint: the exact transpose of the
 * same matrices, cost independent of the number of parameters), gives the
 * derivative of the discrete objective
 *   psi = sum_k w_k g(y_k) (trapezoidal weights) + final terms g(y_N).
 * The step matrices are dense (models up to a few hundred coordinates). */
#include "sens_internal.h"

#include <stdlib.h>
#include <unistd.h>

int lw_desc_param_index(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->nparams; i++)
    if (name && !strcmp(d->params[i].name, name))
      return i;
  return -1;
}

int lw_desc_objective_index(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->nobjectives; i++)
    if (name && !strcmp(d->objectives[i].name, name))
      return i;
  return -1;
}

void lw_sens_result_clear(lw_sens_result *r)
{
  free(r->value);
  free(r->gradient);
  free(r->depends);
  free(r->table);
  memset(r, 0, sizeof *r);
}

/* solver settings are not differentiable parameters */
static int check_param(const lw_desc *d, int j, lw_error *err)
{
  const lw_param_desc *p = &d->params[j];
  for (int k = 0; k < p->ntargets; k++)
    if (!strncmp(p->targets[k], "solver/", 7)) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN,
                   "parameter '%s' sets the solver setting '%s'; the simulation is not a "
                   "differentiable function of it",
                   p->name, p->targets[k]);
      return -1;
    }
  return 0;
}

/* the step's active parameters become live (a controller's error depends
 * on a parameter only where the step does: its pe are 0 elsewhere): Sx (nx
 * rows of nl) widens by a zero column for each, in place from its end */
static void live_cols(sens *s, double *Sx)
{
  for (int a = 0; a < s->nact; a++) {
    int j = s->alist[a];
    if (s->col[j] >= 0)
      continue;
    int nl = s->nl;
    for (size_t i = (size_t)s->nx; i-- > 0;) {
      Sx[i * (nl + 1) + nl] = 0.0;
      for (int c = nl; c-- > 0;)
        Sx[i * (nl + 1) + c] = Sx[i * nl + c];
    }
    s->col[j] = nl;
    s->live[s->nl++] = j;
  }
}

/* the predictor's terms of the carried columns: ah' = -(c4 q' + 2 c2 qd' +
 * qdd'), bh' = -(c2 q' + qd'), n entries, in vectors */
LW_CLONES static void predictor_rows(double *restrict ah, double *restrict bh, const double *restrict q1,
                                     const double *restrict q2, const double *restrict q3, double c2, double c4,
                                     size_t n)
{
  lw_v4d a2 = {c2, c2, c2, c2}, a4 = {c4, c4, c4, c4}, b2 = a2 * (lw_v4d){2.0, 2.0, 2.0, 2.0};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    lw_v4d x1 = lw_v4d_load(q1 + i), x2 = lw_v4d_load(q2 + i);
    lw_v4d_store(ah + i, -(a4 * x1 + b2 * x2 + lw_v4d_load(q3 + i)));
    lw_v4d_store(bh + i, -(a2 * x1 + x2));
  }
  for (; i < n; i++) {
    ah[i] = -(c4 * q1[i] + 2.0 * c2 * q2[i] + q3[i]);
    bh[i] = -(c2 * q1[i] + q2[i]);
  }
}

static int run(const lw_model *m, const lw_sens_options *opt, lw_sens_result *res, lw_tangent **tg)
{
  sens S = {0}, *s = &S;
  int status = LW_OK;
  lw_error *err = &res->error;
  sens_sizes_init(s, m, tg, opt->method == LW_SENS_VALUE ? 0 : opt->nparams, err);
  /* the forward on two threads: the stepping thread keeps each step's
   * constraint data with the state (aux), as the adjoint's forward pass */
  int pipelined = opt->method == LW_SENS_FORWARD && s->p > 0 && m->dense && opt->threads != 1 &&
                  sysconf(_SC_NPROCESSORS_ONLN) >= 2;
  /* with pipelined, W = M^-1 J^T too: the ring holds a few states, and the
   * taking thread is the slower */
  s->aux = pipelined ? 2 : opt->method == LW_SENS_ADJOINT && m->dense;
  s->no = opt->nobj;
  s->obj = opt->objectives;
  s->N = (long)floor(m->desc->solver.t_end / s->h + 0.5);
  /* the adjoint keeps every state unless they exceed the memory limit
   * (then checkpoints); the step data kept with them must not be what
   * makes it checkpoint */
  size_t limit = opt->memory_limit ? opt->memory_limit : ((size_t)512 << 20);
  if (!pipelined && s->aux && sens_state_len(s) * sizeof(double) * (size_t)(s->N + 1) > limit) {
    s->aux = 0;
    if (sens_state_len(s) * sizeof(double) * (size_t)(s->N + 1) > limit)
      s->aux = 1; /* checkpoints either way */
  }
  s->value = res->value;
  s->grad = res->gradient;
  int forward = opt->method == LW_SENS_FORWARD, adjoint = opt->method == LW_SENS_ADJOINT;
  if (s->n1 > 3000 && (forward || adjoint)) {
    lw_set_error(err, LW_ERR_MODEL, "", NAN,
                 "the model has %d coordinates and %d constraints; sensitivities use dense step "
                 "matrices and are limited to 3000 unknowns",
                 s->nq, s->nc);
    return LW_ERR_MODEL;
  }
  s->d = lw_data_new(m);
  if (!s->d || sens_alloc(s)) {
    lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the sensitivity workspace");
    status = LW_ERR_NOMEM;
    goto out;
  }
  lw_eval_mass_dense(m, s->M);
  for (int o = 0; o < s->no; o++) {
    const lw_objective *ob = &m->objs[s->obj[o]];
    for (int k = ob->first; k < ob->first + ob->n; k++)
      s->out_used[m->terms[k].output] |= m->terms[k].kind == LW_TERM_FINAL ? OUT_FINAL : OUT_EVERY;
  }
  if (!adjoint && opt->keep_outputs) /* the table: every output, also without sensitivities */
    for (int k = 0; k < m->nout; k++)
      s->out_used[k] |= OUT_EVERY;
  int p = s->p, nq = s->nq, nc = s->nc, n1 = s->n1, nx = s->nx, ncols = s->ncols, no = s->no;
  size_t sl = sens_state_len(s);
  double *st0 = calloc(sl, sizeof(double)), *st1 = calloc(sl, sizeof(double));
  double *Sx = NULL, *Sn = NULL, *Z = NULL, *R = NULL, *R2 = NULL;
  double *store = NULL, *seg = NULL, *ab = NULL, *bb = NULL, *cx = NULL, *mu = NULL, *tmp = NULL, *zb = NULL;
  sens_initial_lin L = {0};
  sens_pipe *pipe = NULL;
  double t_start = now_s();
  if (lw_initialize(m, s->d, err)) {
    status = err->status ? err->status : LW_ERR_MODEL;
    goto out2;
  }
  sens_state_save(s, st0);
  if (forward || adjoint) {
    if (sens_initial_linearize(s, st0, &L)) {
      status = err->status;
      goto out2;
    }
  }
  long every = s->N / 100 > 0 ? s->N / 100 : 1;
  /* ----- forward (values, forward sensitivities) ----- */
  if (!adjoint) {
    /* Sx = [q' qd' qdd' lambda' z'] (nx x p, by rows); Sn scratch (3 nq + nz rows used) */
    Sx = calloc((size_t)nx * (p ? p : 1), sizeof(double));
    Sn = calloc((size_t)nx * (p ? p : 1), sizeof(double));
    Z = calloc((size_t)ncols * (p ? p : 1) + 1, sizeof(double));
    R = calloc((size_t)(L.nv > n1 ? L.nv : n1) * (p ? p : 1) + 1, sizeof(double));
    R2 = calloc(2 * (size_t)(L.nv > n1 ? L.nv : n1) + 1, sizeof(double));
    int tri_ok = 1;
    if (p <= 4 * LW_FEW_CHUNK && m->dense) {
      tri_ok = sens_tri_init(&s->tri, m) == 0;
      s->forward_rows = 1;
    }
    if (!Sx || !Sn || !Z || !R || !R2 || !tri_ok) {
      lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the forward sensitivities");
      status = LW_ERR_NOMEM;
      goto out2;
    }
    if (forward && p > 0) {
      /* by columns into Sn, then the nonzero ones by rows into Sx */
      sens_initial_solve(s, &L, Sn, nx, R, R2);
      for (int j = 0; j < p; j++)
        for (int i = 0; i < nx; i++)
          if (Sn[(size_t)j * nx + i] != 0.0) {
            s->col[j] = s->nl;
            s->live[s->nl++] = j;
            break;
          }
      for (int c = 0; c < s->nl; c++)
        for (int i = 0; i < nx; i++)
          Sx[(size_t)i * s->nl + c] = Sn[(size_t)s->live[c] * nx + i];
    }
    if (opt->keep_outputs) {
      res->ncols = 1 + ncols * (1 + p);
      res->table = malloc(sizeof(double) * (size_t)(s->N + 1) * (size_t)res->ncols);
      if (!res->table) {
        lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for the output table");
        status = LW_ERR_NOMEM;
        goto out2;
      }
    }
    if (pipelined && !(pipe = sens_pipe_start(s)))
      s->aux = 0; /* one thread after all: no step data to keep */
    res->threads = pipe ? 2 : 1;
    for (long k = 0; k <= s->N; k++) {
      if (k > 0) {
        memcpy(st0, st1, sizeof(double) * sl);
        if (pipe) {
          if (sens_pipe_get(pipe, k, st1)) {
            *err = *sens_pipe_error(pipe);
            status = LW_ERR_SOLVER;
            goto out2;
          }
          sens_state_load(s, st1);
        } else {
          lw_step_info info;
          sens_state_load(s, st0);
          if (lw_step(m, s->d, &info, err)) {
            status = LW_ERR_SOLVER;
            goto out2;
          }
          sens_state_save(s, st1);
        }
        if (forward && p > 0) {
          if (sens_step_linearize(s, st0, st1, !pipe)) {
            status = err->status;
            goto out2;
          }
          live_cols(s, Sx);
        }
        if (forward && s->nl > 0) {
          /* the nl live columns are carried: Sx by rows, q', qd', qdd',
           * lambda', z' (nq, nq, nq, nc, nz rows of nl) */
          int nl = s->nl;
          size_t np = (size_t)nq * nl;
          double *Sq = Sx, *Sqd = Sx + np, *Sqdd = Sx + 2 * np, *Sl = Sx + 3 * np, *Sz = Sx + (size_t)s->nxs * nl;
          /* scratch: ah', bh', the carry c', M ah' */
          double *AH = Sn, *BH = Sn + np, *DC = Sn + 2 * np, *MAH = DC + (size_t)s->nz * nl;
          /* propagate: ah' = -(c4 q' + 2 c2 qd' + qdd'), bh' = -(c2 q' + qd') */
          predictor_rows(AH, BH, Sq, Sqd, Sqdd, s->c2, s->c4, np);
          memset(MAH, 0, sizeof(double) * np);
          sens_blocks_rows(m, m->mass_blocks, NULL, 0.0, 1.0, AH, MAH, nl);
          /* position: AP [q'; lambda'] = -(FP + M ah' + C bh' + Rc c') */
          sens_step_cols_scatter(s, s->FP, -1.0, R, nl);
          sens_vec_axpy(R, -1.0, MAH, np);
          if (!s->undamped)
            sens_bmat_rows(m, &s->Cb, 0.0, -1.0, BH, R, nl);
          if (s->nz) {
            /* the carry c' = z' + h/2 e'(state k-1) enters through Rc */
            sens_carry_rows(s, s->eqa, s->eqda, s->pea, Sq, Sqd, Sz, DC, nl);
            for (int i = 0; i < s->nz; i++)
              for (int l = 0; l < nq; l++) {
                double rc = s->Rc[(size_t)i * nq + l];
                if (rc == 0.0)
                  continue;
                for (int c = 0; c < nl; c++)
                  R[(size_t)l * nl + c] -= rc * DC[(size_t)i * nl + c];
              }
          }
          sens_ap_solve_rows(s, R, Sq, nl);
          memcpy(Sl, R + np, sizeof(double) * (size_t)nc * nl);
          /* velocity: KM [qd'; .] = -(FV + (DVq - c2 M) q' - M bh'; RV q') */
          sens_step_cols_scatter(s, s->FV, -1.0, R, nl);
          sens_bmat_rows(m, &s->Hv, s->c2, -1.0, Sq, R, nl);
          sens_blocks_rows(m, m->mass_blocks, NULL, 0.0, 1.0, BH, R, nl);
          sens_rowmat_rows(m, s->RV, -1.0, 0, Sq, R + np, nl);
          sens_km_solve_rows(s, R, Sqd, nl);
          /* acceleration: KM [qdd'; .] = -(FA + (DAq - c4 M) q' - M ah'; RA q' + RAd qd') */
          sens_step_cols_scatter(s, s->FA, -1.0, R, nl);
          sens_bmat_rows(m, &s->Ha, s->c4, -1.0, Sq, R, nl);
          sens_vec_axpy(R, 1.0, MAH, np);
          sens_rowmat_rows(m, s->RA, -1.0, 0, Sq, R + np, nl);
          sens_rowmat_rows(m, s->RAd, -1.0, 0, Sqd, R + np, nl);
          sens_km_solve_rows(s, R, Sqdd, nl);
          /* z' = c' + h/2 e'(state k) */
          if (s->nz)
            sens_carry_rows(s, s->eqb, s->eqdb, s->peb, Sq, Sqd, DC, Sz, nl);
        }
      } else {
        memcpy(st1, st0, sizeof(double) * sl);
      }
      /* outputs and objectives at state k */
      sens_outputs_at(s, st1, forward && p > 0, k == s->N);
      double wi, wf;
      sens_trapezoid_weights(s, k, &wi, &wf);
      sens_objectives_at(s, wi, wf, s->value);
      if (forward && p > 0 && !res->table) {
        /* the gradients alone: g_o += (Y^T gy_o) . Sx_j + gy_o . YT_j */
        for (int o = 0; o < no; o++) {
          const double *gyo = s->gy + (size_t)o * ncols;
          memset(s->e2, 0, sizeof(double) * (size_t)nx);
          const int *xs = NULL;
          int nxs = sens_outputs_cotangent(s, gyo, s->e2, &xs);
          double *g = s->grad + (size_t)o * p;
          for (int a = 0; a < (nxs < 0 ? nx : nxs); a++) {
            int x = nxs < 0 ? a : xs[a];
            double ex = s->e2[x];
            if (ex != 0.0)
              for (int c = 0; c < s->nl; c++)
                g[s->live[c]] += ex * Sx[(size_t)x * s->nl + c];
          }
          for (int a = 0; a < s->nplain; a++) { /* YT and gth are 0 for time-function values */
            int j = s->plist[a];
            g[j] += dotn(ncols, gyo, s->YT + (size_t)j * ncols) + s->gth[(size_t)o * p + j];
          }
        }
      } else if (forward && p > 0) {
        /* Z = Y Sx + YT (only the used outputs' rows of Y are filled) */
        for (int j = 0; j < p; j++) {
          double *z = Z + (size_t)j * ncols;
          memcpy(z, s->YT + (size_t)j * ncols, sizeof(double) * (size_t)ncols);
          for (int x = 0, cj = s->col[j]; cj >= 0 && x < nx; x++) {
            double sx = Sx[(size_t)x * s->nl + cj];
            if (sx != 0.0)
              for (int c = 0; c < ncols; c++)
                z[c] += s->Y[(size_t)x * ncols + c] * sx;
          }
          for (int o = 0; o < no; o++)
            s->grad[(size_t)o * p + j] += dotn(ncols, s->gy + (size_t)o * ncols, z) + s->gth[(size_t)o * p + j];
        }
      }
      if (res->table) {
        double *row = res->table + (size_t)k * res->ncols;
        row[0] = ST_T(st1);
        memcpy(row + 1, s->yrow, sizeof(double) * (size_t)ncols);
        for (int c = 0; c < ncols; c++)
          for (int j = 0; j < p; j++)
            row[1 + ncols + (size_t)c * p + j] = Z[(size_t)j * ncols + c];
        res->rows = k + 1;
      }
      res->steps = k;
      if (opt->progress && k % every == 0 && opt->progress(0.999 * (double)k / (double)(s->N + 1), opt->user)) {
        lw_set_error(err, LW_OK, "", ST_T(st1), "cancelled at t = %.6g s", ST_T(st1));
        status = -1;
        goto out2;
      }
    }
    res->peak_bytes = sizeof(double) * ((size_t)nx * p * 2 + (pipe ? sens_pipe_bytes(pipe) : 0));
    goto out2;
  }

  /* ----- adjoint: forward pass storing states or checkpoints ----- */
  {
    size_t need = sl * sizeof(double) * (size_t)(s->N + 1);
    long K = s->N + 1; /* segment length */
    int checkpoint = need > limit;
    if (checkpoint) {
      K = (long)ceil(sqrt((double)(s->N + 1)));
      /* checkpoints + one segment */
      need = sl * sizeof(double) * (size_t)((s->N / K + 2) + K + 1);
    }
    long nck = checkpoint ? s->N / K + 1 : s->N + 1;
    store = malloc(sizeof(double) * sl * (size_t)nck);
    seg = checkpoint ? malloc(sizeof(double) * sl * (size_t)(K + 1)) : NULL;
    if (!store || (checkpoint && !seg)) {
      lw_set_error(err, LW_ERR_NOMEM, "", NAN, "out of memory for %zu bytes of stored states", need);
      status = LW_ERR_NOMEM;
      goto out2;
    }
    res->peak_bytes = sizeof(double) * sl * (size_t)(nck + (checkpoint ? K + 1 : 0));
    res->recomputed = checkpoint;
    memcpy(store, st0, sizeof(double) * sl);
    for (long k = 0; k <= s->N; k++) {
      if (k > 0) {
        lw_step_info info;
        if (lw_step(m, s->d, &info, err)) {
          status = LW_ERR_SOLVER;
          goto out2;
        }
        sens_state_save(s, st1);
        if (!checkpoint)
          memcpy(store + sl * (size_t)k, st1, sizeof(double) * sl);
        else if (k % K == 0)
          memcpy(store + sl * (size_t)(k / K), st1, sizeof(double) * sl);
        sens_state_load(s, st1);
      } else {
        memcpy(st1, st0, sizeof(double) * sl);
      }
      double wi, wf;
      sens_trapezoid_weights(s, k, &wi, &wf);
      sens_outputs_at(s, st1, 0, k == s->N);
      sens_objectives_at(s, wi, wf, s->value);
      sens_state_load(s, st1);
      res->steps = k;
      if (opt->progress && k % every == 0 && opt->progress(0.5 * (double)k / (double)(s->N + 1), opt->user)) {
        lw_set_error(err, LW_OK, "", ST_T(st1), "cancelled at t = %.6g s", ST_T(st1));
        status = -1;
        goto out2;
      }
    }
    /* ----- backward ----- */
    ab = calloc((size_t)nq * no + 1, sizeof(double)); /* d psi / d ah_{k+1} */
    bb = calloc((size_t)nq * no + 1, sizeof(double)); /* d psi / d bh_{k+1} */
    cx = calloc((size_t)nx + 1, sizeof(double));
    zb = calloc((size_t)s->nz * no + 1, sizeof(double)); /* d psi / d c_{k+1} */
    mu = calloc((size_t)3 * n1 + 1, sizeof(double));
    tmp = calloc((size_t)(L.nv > n1 ? L.nv : n1) + nq + 1, sizeof(double));
    double *muA = mu, *muV = mu + n1, *muP = mu + 2 * n1;
    /* per objective: solve transposed systems one objective at a time */
    long segs = checkpoint ? (s->N + K) / K : 1;
    for (long sg = segs - 1; sg >= 0; sg--) {
      long k0 = checkpoint ? sg * K : 0, k1 = checkpoint ? (sg + 1) * K : s->N;
      if (k1 > s->N)
        k1 = s->N;
      const double *base = store;
      if (checkpoint) {
        /* recompute the segment from its checkpoint */
        memcpy(seg, store + sl * (size_t)sg, sizeof(double) * sl);
        sens_state_load(s, seg);
        for (long k = k0 + 1; k <= k1; k++) {
          lw_step_info info;
          if (lw_step(m, s->d, &info, err)) {
            status = LW_ERR_SOLVER;
            goto out2;
          }
          sens_state_save(s, seg + sl * (size_t)(k - k0));
        }
        base = seg - sl * (size_t)k0;
      }
      for (long k = k1; k >= (sg == 0 ? 0 : k0 + 1); k--) {
        const double *stk = base + sl * (size_t)k;
        double wi, wf;
        sens_trapezoid_weights(s, k, &wi, &wf);
        sens_outputs_at(s, stk, 1, k == s->N);
        sens_objectives_at(s, wi, wf, NULL); /* the values were summed going forward */
        if (k > 0 && sens_step_linearize(s, base + sl * (size_t)(k - 1), stk, 0)) {
          status = err->status;
          goto out2;
        }
        for (int o = 0; o < no; o++) {
          double *a = ab + (size_t)o * nq, *b = bb + (size_t)o * nq;
          /* cotangent of [q qd qdd lambda] at state k: outputs + history */
          memset(cx, 0, sizeof(double) * (size_t)nx);
          const int *xs;
          sens_outputs_cotangent(s, s->gy + (size_t)o * ncols, cx, &xs);
          for (int i = 0; i < nq; i++) {
            cx[i] += -s->c4 * a[i] - s->c2 * b[i];
            cx[nq + i] += -2.0 * s->c2 * a[i] - b[i];
            cx[2 * nq + i] += -a[i];
          }
          /* integrals: z_k = c_k + h/2 e_k feeds the outputs and c_k+1 =
           * z_k + h/2 e_k; z_0 = 0.  e_k's gradients: state b of the step
           * to k, or state a of the step from 0 */
          double *zo = zb + (size_t)o * s->nz;
          for (int i = 0; i < s->nz; i++) {
            const double *eq = (k > 0 ? s->eqb : s->eqa) + (size_t)i * nq;
            const double *eqd = (k > 0 ? s->eqdb : s->eqda) + (size_t)i * nq;
            const double *pe = (k > 0 ? s->peb : s->pea) + (size_t)i * p;
            double W = 0.5 * s->h * zo[i];
            if (k > 0) {
              cx[s->nxs + i] += zo[i];
              W += 0.5 * s->h * cx[s->nxs + i];
            }
            for (int l = 0; l < nq; l++) {
              cx[l] += W * eq[l];
              cx[nq + l] += W * eqd[l];
            }
            for (int j = 0; j < p; j++)
              s->grad[(size_t)o * p + j] += W * pe[j];
          }
          for (int a = 0; a < s->nplain; a++) { /* YT and gth are 0 for time-function values */
            int j = s->plist[a];
            s->grad[(size_t)o * p + j] += dotn(ncols, s->gy + (size_t)o * ncols, s->YT + (size_t)j * ncols) +
                                         s->gth[(size_t)o * p + j];
          }
          if (k == 0) {
            /* initial problems, transposed */
            double *cq = cx, *cqd = cx + nq;
            memcpy(muA, cx + 2 * nq, sizeof(double) * (size_t)nq);
            memcpy(muA + nq, cx + 3 * nq, sizeof(double) * (size_t)nc);
            sens_kkt_solve(L.K0, n1, nq, s->sM, L.ip0, 1, muA, 1);
            gemv_t(n1, nq, -1.0, L.D0q, muA, cq);
            gemv_t(n1, nq, -1.0, L.D0qd, muA, cqd);
            for (int j = 0; j < p; j++)
              s->grad[(size_t)o * p + j] -= dotn(n1, L.F0 + (size_t)j * n1, muA);
            /* nu = Pv^T [cqd; 0] */
            memset(tmp, 0, sizeof(double) * (size_t)L.nv);
            memcpy(tmp, cqd, sizeof(double) * (size_t)nq);
            double *nuv = calloc((size_t)L.nv, sizeof(double));
            gemv_t(L.nv, L.nv, 1.0, L.Pv, tmp, nuv);
            gemv_t(L.nv, nq, -1.0, L.Dvq, nuv, cq);
            for (int j = 0; j < p; j++)
              s->grad[(size_t)o * p + j] -= dotn(L.nv, L.Fv + (size_t)j * L.nv, nuv);
            free(nuv);
            double *pg = calloc((size_t)L.ng + 1, sizeof(double));
            gemv_t(nq, L.ng, 1.0, L.Pg, cq, pg);
            for (int j = 0; j < p; j++)
              s->grad[(size_t)o * p + j] -= dotn(L.ng, L.Gth + (size_t)j * L.ng, pg);
            free(pg);
            continue;
          }
          /* step k (from k-1), transposed: A, then V, then P */
          memset(muA, 0, sizeof(double) * (size_t)n1);
          memcpy(muA, cx + 2 * nq, sizeof(double) * (size_t)nq);
          sens_km_solve(s, muA);
          memset(muV, 0, sizeof(double) * (size_t)n1);
          memcpy(muV, cx + nq, sizeof(double) * (size_t)nq);
          lw_rowmat_mul_t(m, s->RAd, -1.0, muA + nq, muV); /* -DAqd^T muA */
          sens_km_solve(s, muV);
          memcpy(muP, cx, sizeof(double) * (size_t)nq);
          memcpy(muP + nq, cx + 3 * nq, sizeof(double) * (size_t)nc);
          lw_bmat_mul_t(m, &s->Hv, -1.0, muV, muP); /* -DVq^T muV - DAq^T muA */
          lw_bmat_mul_t(m, &s->Ha, -1.0, muA, muP);
          mass_axpy(m, s->c2, muV, muP);
          mass_axpy(m, s->c4, muA, muP);
          lw_rowmat_mul_t(m, s->RV, -1.0, muV + nq, muP);
          lw_rowmat_mul_t(m, s->RA, -1.0, muA + nq, muP);
          sens_ap_solve_t(s, muP);
          for (int a = 0; a < s->nact; a++) {
            int j = s->alist[a];
            s->grad[(size_t)o * p + j] -= dotn(n1, s->FP + (size_t)j * n1, muP) + dotn(n1, s->FV + (size_t)j * n1, muV) +
                                       dotn(n1, s->FA + (size_t)j * n1, muA);
          }
          /* history cotangents for step k-1: ah = -M muP_q + M muA_q, bh = -C^T muP_q + M muV_q */
          memset(a, 0, sizeof(double) * (size_t)nq);
          memset(b, 0, sizeof(double) * (size_t)nq);
          mass_axpy(m, -1.0, muP, a);
          mass_axpy(m, 1.0, muA, a);
          lw_bmat_mul_t(m, &s->Cb, -1.0, muP, b);
          mass_axpy(s->m, 1.0, muV, b);
          for (int i = 0; i < s->nz; i++)
            zo[i] = cx[s->nxs + i] - dotn(nq, s->Rc + (size_t)i * nq, muP);
        }
        if (opt->progress && k % every == 0 &&
            opt->progress(0.5 + 0.5 * (double)(s->N - k) / (double)(s->N + 1), opt->user)) {
          lw_set_error(err, LW_OK, "", ST_T(stk), "cancelled");
          status = -1;
          goto out2;
        }
      }
    }
  }
out2:
  sens_pipe_stop(pipe);
  res->sim_steps = s->N;
  res->wall_time_s = now_s() - t_start;
  free(st0);
  free(st1);
  free(Sx);
  free(Sn);
  free(Z);
  free(R);
  free(R2);
  free(store);
  free(seg);
  free(ab);
  free(bb);
  free(cx);
  free(zb);
  free(mu);
  free(tmp);
  sens_initial_free(&L);
out:
  sens_free(s);
  lw_data_free(s->d);
  return status;
}

int lw_sensitivity(const lw_desc *desc, const lw_sens_options *opt, lw_sens_result *res)
{
  memset(res, 0, sizeof *res);
  res->error.time = NAN;
  lw_error *err = &res->error;
  int p = opt->nparams, no = opt->nobj;
  res->nparams = p;
  res->nobj = no;
  res->value = calloc((size_t)no + 1, sizeof(double));
  res->gradient = calloc((size_t)no * (p > 0 ? p : 1) + 1, sizeof(double));
  res->depends = calloc((size_t)p + 1, sizeof(int));
  for (int o = 0; o < no; o++)
    if (opt->objectives[o] < 0 || opt->objectives[o] >= desc->nobjectives) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "objective index %d out of range", opt->objectives[o]);
      return res->status = LW_ERR_MODEL;
    }
  for (int j = 0; j < p; j++) {
    if (opt->params[j] < 0 || opt->params[j] >= desc->nparams) {
      lw_set_error(err, LW_ERR_MODEL, "", NAN, "parameter index %d out of range", opt->params[j]);
      return res->status = LW_ERR_MODEL;
    }
    if (check_param(desc, opt->params[j], err))
      return res->status = LW_ERR_MODEL;
  }
  lw_model *m = lw_compile(desc, err);
  if (!m)
    return res->status = err->status;
  double t0 = now_s();
  int st = LW_OK;
  if (opt->method == LW_SENS_FD) {
    /* central differences of the whole simulation: 2p + 1 runs */
    lw_sens_options o1 = *opt;
    o1.method = LW_SENS_VALUE;
    o1.keep_outputs = 0;
    o1.progress = NULL;
    lw_sens_result r0;
    st = lw_sensitivity(desc, &o1, &r0);
    if (st) {
      res->error = r0.error;
      lw_sens_result_clear(&r0);
      goto done;
    }
    memcpy(res->value, r0.value, sizeof(double) * (size_t)no);
    res->steps = r0.steps;
    res->sim_steps = r0.sim_steps;
    lw_sens_result_clear(&r0);
    double rel = opt->fd_step > 0 ? opt->fd_step : 1e-6;
    for (int j = 0; j < p && !st; j++) {
      lw_desc *dd = lw_desc_copy(desc);
      lw_param_desc *pp = &dd->params[opt->params[j]];
      double v = pp->value, hstep = rel * fmax(fabs(v), 1.0);
      double fv[2][64];
      for (int sgn = 0; sgn < 2 && !st; sgn++) {
        pp->value = v + (sgn ? -hstep : hstep);
        lw_sens_result rr;
        st = lw_sensitivity(dd, &o1, &rr);
        if (st)
          res->error = rr.error;
        for (int o = 0; o < no && o < 64; o++)
          fv[sgn][o] = rr.value[o];
        lw_sens_result_clear(&rr);
      }
      for (int o = 0; o < no && o < 64 && !st; o++)
        res->gradient[(size_t)o * p + j] = (fv[0][o] - fv[1][o]) / (2.0 * hstep);
      res->depends[j] = 1;
      lw_desc_free(dd);
      if (opt->progress && opt->progress((double)(j + 1) / (double)p, opt->user))
        break;
    }
    goto done;
  }
  lw_tangent **tg = calloc((size_t)p + 1, sizeof(lw_tangent *));
  lw_model *zero = NULL;
  if (opt->method != LW_SENS_VALUE)
    for (int j = 0; j < p; j++) {
      /* a time-function coefficient (a spline value): its derivative is
       * taken directly, on a shared model of zeros */
      if (!zero)
        zero = lw_tangent_zero_model(desc, err);
      tg[j] = zero ? lw_tangent_new_func(desc, opt->params[j], zero) : NULL;
      if (!tg[j])
        tg[j] = lw_tangent_new(desc, opt->params[j], err);
      if (!tg[j]) {
        st = err->status ? err->status : LW_ERR_MODEL;
        break;
      }
      res->depends[j] = tg[j]->any;
    }
  if (!st)
    st = run(m, opt, res, tg);
  for (int j = 0; j < p; j++)
    lw_tangent_free(tg[j]);
  free(tg);
  lw_model_free(zero);
done:
  res->wall_time_s = now_s() - t0;
  lw_model_free(m);
  if (st && !res->error.status)
    res->error.status = st;
  return res->status = st;
}

