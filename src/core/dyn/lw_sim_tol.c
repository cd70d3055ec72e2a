/* lw_sim_tol.c: the tolerance mode of a run.  Steps of the model's
 * integrator whose lengths follow an estimate of their local error, and
 * the outputs at the requested times interpolated between the steps
 * (docs/model-format.md, "Tolerance mode").
 *
 * Order 2: one step of length H; the local position error of the
 * trapezoidal rule, H^3/12 q''', is estimated from the difference of the
 * step's result and its predictor q_n + H qd_n + H^2/2 qdd_n, which is
 * H^2/4 (qdd_n+1 - qdd_n) = H^3/4 q''' + O(H^4): a third of it.
 *
 * Order 4: the step of length H taken as 1, 2 and 3 steps of the
 * integrator from the same state (y1, y2, y3).  Their errors from an exact
 * start expand as e2(H) h^2 + e3(H) h^3 + ... in the substep h (the
 * trapezoidal rule alone is symmetric and has no h^3 term, but the
 * velocity and acceleration projections bring one in: the two-term
 * extrapolation gains only a factor 8 for a halved step on the pendulum);
 * y1/12 - 4 y2/3 + 9 y3/4 cancels both terms (Richardson extrapolation;
 * Hairer, Norsett, Wanner I, sec. II.9), a step of order 4, whose error is
 * estimated by its difference from the order-3 (4 y2 - y1)/3.
 *
 * The step length follows H_new = H min(5, max(0.2, 0.9 err^-1/p)) with err
 * the weighted root mean square of the estimate over the coordinates,
 * weights 1 / (atol + rtol |q_i|); a step with err > 1, or one whose
 * Newton iteration failed (then H / 4), is taken again from the state
 * before it.  Dense output: the quintic Hermite interpolant of q through
 * q, qd, qdd at both ends of the step (error O(H^6)), its derivatives for
 * qd and qdd, the multipliers and the integrals (controllers, dissipated
 * energy) linear. */
#define _POSIX_C_SOURCE 200809L
#include "dyn/lw_sim_tol.h"
#include "dyn/lw_events.h"
#include "dyn/lw_step.h"
#include "model/lw_error.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- a state of the workspace, kept to take a step again ---------------- */
typedef struct {
  double t, t0, h, dissipated, applied_work;
  long nstep;
  int fric_kap_ok;
  size_t nq, nl, nfb, nco, nfw; /* the arrays' lengths (as lw_data_new allocates them) */
  double *q, *qd, *qdd, *lambda, *sig, *kap, *fbz, *fbc, *coord_prev, *fric_work;
  double *mem;
} snap;

static int snap_init(const lw_model *m, snap *s)
{
  memset(s, 0, sizeof *s);
  s->nq = (size_t)m->nq;
  s->nl = (size_t)m->nc + 1;
  s->nfb = (size_t)m->nfbs + 1;
  s->nco = (size_t)m->ncoords + 1;
  s->nfw = 2 * (size_t)m->nfric + (m->nfric ? 2 * s->nl : 0) + 1;
  s->mem = malloc(sizeof(double) * (3 * s->nq + 3 * s->nl + 2 * s->nfb + s->nco + s->nfw));
  if (!s->mem)
    return -1;
  double *p = s->mem;
  s->q = p, p += s->nq;
  s->qd = p, p += s->nq;
  s->qdd = p, p += s->nq;
  s->lambda = p, p += s->nl;
  s->sig = p, p += s->nl;
  s->kap = p, p += s->nl;
  s->fbz = p, p += s->nfb;
  s->fbc = p, p += s->nfb;
  s->coord_prev = p, p += s->nco;
  s->fric_work = p;
  return 0;
}

#define SNAP_COPY(dst, src, s)                                                                                     \
  do {                                                                                                             \
    memcpy((dst)->q, (src)->q, sizeof(double) * (s)->nq);                                                          \
    memcpy((dst)->qd, (src)->qd, sizeof(double) * (s)->nq);                                                        \
    memcpy((dst)->qdd, (src)->qdd, sizeof(double) * (s)->nq);                                                      \
    memcpy((dst)->lambda, (src)->lambda, sizeof(double) * (s)->nl);                                                \
    memcpy((dst)->sig, (src)->sig, sizeof(double) * (s)->nl);                                                      \
    memcpy((dst)->kap, (src)->kap, sizeof(double) * (s)->nl);                                                      \
    memcpy((dst)->fbz, (src)->fbz, sizeof(double) * (s)->nfb);                                                     \
    memcpy((dst)->fbc, (src)->fbc, sizeof(double) * (s)->nfb);                                                     \
    memcpy((dst)->coord_prev, (src)->coord_prev, sizeof(double) * (s)->nco);                                       \
    memcpy((dst)->fric_work, (src)->fric_work, sizeof(double) * (s)->nfw);                                         \
    (dst)->t = (src)->t;                                                                                           \
    (dst)->t0 = (src)->t0;                                                                                         \
    (dst)->h = (src)->h;                                                                                           \
    (dst)->nstep = (src)->nstep;                                                                                   \
    (dst)->dissipated = (src)->dissipated;                                                                         \
    (dst)->applied_work = (src)->applied_work;                                                                     \
    (dst)->fric_kap_ok = (src)->fric_kap_ok;                                                                       \
  } while (0)

static void snap_save(snap *s, const lw_data *d) { SNAP_COPY(s, d, s); }

static void snap_restore(const snap *s, lw_data *d)
{
  SNAP_COPY(d, s, s);
  d->fb_beta = 0.0;
  d->schur_ok = 0;
}

/* ---- error estimate and extrapolation ------------------------------------ */

/* the weighted root mean square of e (nq), weights 1 / (atol + rtol
 * max(|qa_i|, |qb_i|)) */
static double err_norm(const lw_model *m, const double *e, const double *qa, const double *qb)
{
  double s = 0;
  for (int i = 0; i < m->nq; i++) {
    double w = m->opt.atol + m->opt.rtol * fmax(fabs(qa[i]), fabs(qb[i]));
    double x = e[i] / w;
    s += x * x;
  }
  return m->nq ? sqrt(s / m->nq) : 0.0;
}

/* order 2: the trapezoidal rule's local error from the predictor */
static double err_predictor(const lw_model *m, const lw_data *d, const snap *a, double H, double *e)
{
  for (int i = 0; i < m->nq; i++)
    e[i] = (d->q[i] - (a->q[i] + H * a->qd[i] + 0.5 * H * H * a->qdd[i])) / 3.0;
  return err_norm(m, e, a->q, d->q);
}

/* Richardson's weights of the results of 1, 2 and 3 substeps that cancel
 * the h^2 and h^3 terms of their errors: sum w_k = 1, sum w_k / n_k^2 =
 * sum w_k / n_k^3 = 0 */
static const double rich_w[3] = {1.0 / 12.0, -4.0 / 3.0, 9.0 / 4.0};

/* x3 = w0 x1 + w1 x2 + w2 x3 over n entries */
static void extrapolate(double *x3, const double *x1, const double *x2, size_t n)
{
  for (size_t i = 0; i < n; i++)
    x3[i] = rich_w[0] * x1[i] + rich_w[1] * x2[i] + rich_w[2] * x3[i];
}

static void extrapolate_state(const lw_model *m, lw_data *d, const snap *b1, const snap *b2);

/* order 4: d holds the three thirds of the step (y3), b1 the whole step
 * (y1), b2 its halves (y2).  The extrapolated state's error is estimated
 * by its difference from the order-3 solution (4 y2 - y1) / 3 (into
 * *err4), y3's own by (y1 - y3) / 8 (its h^2 term, into *err2).  d becomes
 * the extrapolated state when err4 <= 1; when only err2 is, it keeps y3:
 * a stiff component that the trapezoidal rule carries stably (|R| <= 1
 * on the left half plane) the extrapolation's weights amplify (by up to
 * 1/12 + 4/3 + 9/4), and y3 is then the result within the tolerance. */
static void err_richardson(const lw_model *m, lw_data *d, const snap *a, const snap *b1, const snap *b2, double *e,
                           double *err4, double *err2)
{
  for (int i = 0; i < m->nq; i++) {
    double y = rich_w[0] * b1->q[i] + rich_w[1] * b2->q[i] + rich_w[2] * d->q[i];
    e[i] = y - (4.0 * b2->q[i] - b1->q[i]) / 3.0;
  }
  *err4 = err_norm(m, e, a->q, d->q);
  for (int i = 0; i < m->nq; i++)
    e[i] = (b1->q[i] - d->q[i]) / 8.0;
  *err2 = err_norm(m, e, a->q, d->q);
  if (*err4 <= 1.0)
    extrapolate_state(m, d, b1, b2);
}

/* d (y3) becomes the extrapolation of b1 (y1), b2 (y2) and itself */
static void extrapolate_state(const lw_model *m, lw_data *d, const snap *b1, const snap *b2)
{
  extrapolate(d->q, b1->q, b2->q, b1->nq);
  extrapolate(d->qd, b1->qd, b2->qd, b1->nq);
  extrapolate(d->qdd, b1->qdd, b2->qdd, b1->nq);
  extrapolate(d->lambda, b1->lambda, b2->lambda, (size_t)m->nc);
  extrapolate(d->fbz, b1->fbz, b2->fbz, (size_t)m->nfbs);
  memcpy(d->fbc, d->fbz, sizeof(double) * (size_t)m->nfbs);
  extrapolate(d->fric_work, b1->fric_work, b2->fric_work, (size_t)m->nfric);
  extrapolate(&d->dissipated, &b1->dissipated, &b2->dissipated, 1);
  extrapolate(&d->applied_work, &b1->applied_work, &b2->applied_work, 1);
  lw_coords_update(m, d);
}

/* ---- one step --------------------------------------------------------- */
typedef struct {
  const lw_model *m; /* the model the run was asked for */
  lw_model mh;       /* a shallow copy whose step option is the step's length */
  lw_data *d;
  snap a, b1, b2;    /* the state the step starts from; the whole step and its halves (order 4) */
  int use_y3;        /* the step kept y3, not the extrapolation (order 4) */
  /* events: the run's, the start of a step taken to or from one (order
   * 4), the state at the event before the impact (in dpre when have_pre) */
  lw_ev_run *ev;
  snap ea, pre;
  lw_data *dpre;
  int have_pre;
  double *e;         /* (nq) the error estimate */
  lw_sim_result *res;
  double hmax;       /* the longest step */
  double h0;         /* the first step's length (and the first after an impact) */
  double *hs;        /* the steps' lengths, when recorded (nhs of them, room for cap) */
  long nhs, cap;
} tol_run;

/* H appended to the recorded lengths; -1 out of memory */
static int record_step(tol_run *r, double H)
{
  if (r->nhs == r->cap) {
    long cap = r->cap ? 2 * r->cap : 1024;
    double *hs = realloc(r->hs, sizeof(double) * (size_t)cap);
    if (!hs)
      return -1;
    r->hs = hs;
    r->cap = cap;
  }
  r->hs[r->nhs++] = H;
  return 0;
}

/* the penalty of a step of length h: the model's, or less where alpha
 * h^2/4 would pass 1e7 times the largest mass entry (where lw_initialize
 * refuses it: the Newton matrix loses the motion to round-off), so that
 * long steps stay well conditioned */
static double step_penalty(const lw_model *m, double h)
{
  return fmin(m->opt.alpha, 0.9 * 4e7 * m->mass_scale / (h * h));
}

void lw_tol_step_opt(const lw_model *m, double h, lw_opt *o)
{
  /* the Newton iteration converged well below the error allowed, so that
   * its own error does not show in the estimate */
  double tol_newton = 1e-2 * fmin(m->opt.atol, m->opt.rtol);
  o->tolerance = fmin(m->opt.tolerance, tol_newton);
  o->constraint_tolerance = fmin(m->opt.constraint_tolerance, tol_newton);
  o->step = h;
  o->alpha = step_penalty(m, h);
}

/* one step of the integrator of length h */
static int substep(tol_run *r, double h, lw_error *err)
{
  lw_step_info info = {0};
  lw_tol_step_opt(r->m, h, &r->mh.opt);
  int st = lw_step(&r->mh, r->d, &info, err);
  r->res->newton_iterations += info.iterations;
  if (info.iterations > r->res->max_step_iterations)
    r->res->max_step_iterations = info.iterations;
  return st;
}

/* the factor of the next step from an error estimate of local order p */
static double step_factor(double err, double p)
{
  double f = err > 0 ? 0.9 * pow(err, -1.0 / p) : 5.0;
  return fmin(5.0, fmax(0.2, f));
}

/* the step of length H from the state in r->a, d at its end: whether it
 * is within the tolerance (0: refused, or -1: a step of the integrator
 * failed, err set) and in *fac the factor of the next step's length */
static int attempt(tol_run *r, double H, double *fac, lw_error *err)
{
  const lw_model *m = r->m;
  *fac = 0.25;
  if (r->mh.opt.order == 2) {
    if (substep(r, H, err))
      return -1;
    double e2 = err_predictor(m, r->d, &r->a, H, r->e);
    *fac = step_factor(e2, 3.0);
    return e2 <= 1.0;
  }
  snap *y[2] = {&r->b1, &r->b2};
  for (int n = 1; n <= 3; n++) {
    if (n > 1)
      snap_restore(&r->a, r->d);
    for (int k = 0; k < n; k++)
      if (substep(r, H / n, err))
        return -1;
    if (n < 3)
      snap_save(y[n - 1], r->d);
  }
  double e4, e2;
  err_richardson(m, r->d, &r->a, &r->b1, &r->b2, r->e, &e4, &e2);
  r->use_y3 = 0;
  if (e4 <= 1.0) {
    *fac = step_factor(e4, 4.0);
    return 1;
  }
  /* y3 (order 2) where the extrapolation made things worse than it */
  if (e2 <= 1.0 && e2 < e4) {
    *fac = step_factor(e2, 3.0);
    r->use_y3 = 1;
    return 1;
  }
  *fac = fmax(step_factor(e4, 4.0), step_factor(e2, 3.0));
  return 0;
}

/* ---- events ----------------------------------------------------------- */
/* a step of length h from d (the run's workspace) to or from an event
 * inside the step just accepted: taken as that step was (one step of the
 * integrator, or three extrapolated as it chose), so that the event's
 * time and state are found to the step's own order (lw_ev_set_step) */
static int event_step(void *user, lw_data *d, double h, lw_step_info *info, lw_error *err)
{
  tol_run *r = user;
  memset(info, 0, sizeof *info);
  if (r->mh.opt.order == 2)
    return substep(r, h, err);
  snap *y[2] = {&r->b1, &r->b2};
  snap_save(&r->ea, d);
  for (int n = 1; n <= 3; n++) {
    if (n > 1)
      snap_restore(&r->ea, d);
    for (int k = 0; k < n; k++)
      if (substep(r, h / n, err))
        return -1;
    if (n < 3)
      snap_save(y[n - 1], d);
  }
  if (!r->use_y3)
    extrapolate_state(r->m, d, &r->b1, &r->b2);
  d->t = r->ea.t + h;
  return 0;
}

/* the rows at an event: the first is the state before the impact, which
 * ends the step's interpolant */
static int event_row(void *user, lw_data *d)
{
  tol_run *r = user;
  if (!r->have_pre) {
    snap_save(&r->pre, d);
    snap_restore(&r->pre, r->dpre);
    r->have_pre = 1;
  }
  return 0;
}

/* ---- dense output ----------------------------------------------------- */

/* the quintic Hermite interpolant through the values p, first derivatives
 * v and second a at both ends of a step of length H, at s = (t - t_a) / H:
 * value, first and second derivative */
static void hermite5(double s, double H, const double p[2], const double v[2], const double a[2], double out[3])
{
  double s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
  double h0 = 1 - 10 * s3 + 15 * s4 - 6 * s5, h5 = 10 * s3 - 15 * s4 + 6 * s5;
  double h1 = s - 6 * s3 + 8 * s4 - 3 * s5, h4 = -4 * s3 + 7 * s4 - 3 * s5;
  double h2 = 0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5, h3 = 0.5 * s3 - s4 + 0.5 * s5;
  out[0] = h0 * p[0] + h5 * p[1] + H * (h1 * v[0] + h4 * v[1]) + H * H * (h2 * a[0] + h3 * a[1]);
  double d0 = -30 * s2 + 60 * s3 - 30 * s4;
  double d1 = 1 - 18 * s2 + 32 * s3 - 15 * s4, d4 = -12 * s2 + 28 * s3 - 15 * s4;
  double d2 = s - 4.5 * s2 + 6 * s3 - 2.5 * s4, d3 = 1.5 * s2 - 4 * s3 + 2.5 * s4;
  out[1] = d0 * (p[0] - p[1]) / H + d1 * v[0] + d4 * v[1] + H * (d2 * a[0] + d3 * a[1]);
  double c0 = -60 * s + 180 * s2 - 120 * s3;
  double c1 = -36 * s + 96 * s2 - 60 * s3, c4 = -24 * s + 84 * s2 - 60 * s3;
  double c2 = 1 - 9 * s + 18 * s2 - 10 * s3, c3 = 3 * s - 12 * s2 + 10 * s3;
  out[2] = c0 * (p[0] - p[1]) / (H * H) + (c1 * v[0] + c4 * v[1]) / H + c2 * a[0] + c3 * a[1];
}

static void lerp(double *out, const double *a, const double *b, double s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    out[i] = a[i] + s * (b[i] - a[i]);
}

/* into o the state at t between the step's start a and its end b (t_a < t
 * < t_b) */
static void interpolate(const lw_model *m, const snap *a, const lw_data *b, double t, lw_data *o)
{
  double H = b->t - a->t, s = (t - a->t) / H;
  for (int i = 0; i < m->nq; i++) {
    double p[2] = {a->q[i], b->q[i]}, v[2] = {a->qd[i], b->qd[i]}, c[2] = {a->qdd[i], b->qdd[i]}, y[3];
    hermite5(s, H, p, v, c, y);
    o->q[i] = y[0];
    o->qd[i] = y[1];
    o->qdd[i] = y[2];
  }
  lerp(o->lambda, a->lambda, b->lambda, s, (size_t)m->nc);
  lerp(o->fbz, a->fbz, b->fbz, s, (size_t)m->nfbs);
  memcpy(o->fbc, o->fbz, sizeof(double) * (size_t)m->nfbs);
  lerp(o->fric_work, a->fric_work, b->fric_work, s, (size_t)m->nfric);
  memcpy(o->kap, b->kap, sizeof(double) * (size_t)m->nc);
  o->fric_kap_ok = b->fric_kap_ok;
  o->dissipated = a->dissipated + s * (b->dissipated - a->dissipated);
  o->applied_work = a->applied_work + s * (b->applied_work - a->applied_work);
  o->fb_beta = 0.0;
  o->t = t;
  memcpy(o->coord_prev, a->coord_prev, sizeof(double) * (size_t)m->ncoords);
  lw_coords_update(m, o);
}

/* ---- rows ------------------------------------------------------------- */
typedef struct {
  const lw_sim_output *out;
  lw_sim_result *res;
  size_t cap;   /* rows the table holds */
  long k, n;    /* the next output time's index, and the last index */
  double h_out, t_end;
} rows;

static double row_time(const rows *rw, long k) { return k >= rw->n ? rw->t_end : (double)k * rw->h_out; }

/* the row of state d at time t (index k): kept when every-th or the last,
 * handed on; 1 when the receiver stopped the run, -1 out of memory */
static int put_row(const lw_model *m, rows *rw, lw_data *d, double t, long k)
{
  lw_sim_result *res = rw->res;
  if (k % rw->out->every != 0 && k != rw->n)
    return 0;
  double *row = res->table;
  if (rw->out->keep) {
    if ((size_t)res->rows + 1 > rw->cap) {
      double *tb = realloc(res->table, sizeof(double) * 2 * rw->cap * (size_t)res->ncols);
      if (!tb)
        return -1;
      res->table = tb;
      rw->cap *= 2;
    }
    row = res->table + (size_t)res->rows * res->ncols;
  }
  row[0] = t;
  lw_outputs(m, d, row + 1);
  res->rows++;
  if (rw->out->row && rw->out->row(row, res->ncols, rw->out->user))
    return 1;
  return rw->out->state_row && rw->out->state_row(d, row, res->ncols, rw->out->user) ? 1 : 0;
}

/* the rows at the output times in (t_a, t_b] of the step just taken (b at
 * t_b, r->a at t_a); nonzero as put_row */
static int step_rows(tol_run *r, rows *rw, lw_data *o, lw_data *b, double tb)
{
  while (rw->k <= rw->n) {
    double t = row_time(rw, rw->k);
    if (t > tb && rw->k < rw->n)
      return 0;
    if (rw->k == rw->n && tb < rw->t_end)
      return 0;
    lw_data *src = b;
    if (t < tb) {
      interpolate(r->m, &r->a, b, t, o);
      /* the resting contacts' forces are not interpolated: those at the
       * step's end (0 for a contact that comes to rest only at its end) */
      if (r->m->nguards)
        memcpy(o->normal_force, b->normal_force, sizeof(double) * (size_t)r->m->nguards);
      src = o;
    }
    int st = put_row(r->m, rw, src, t, rw->k);
    rw->k++;
    if (st)
      return st;
  }
  return 0;
}

/* ---- the run ---------------------------------------------------------- */

/* the run's checks and its table: 0, or the status with res->error set */
static int tol_setup(const lw_model *m, double t_end, double h_out, const lw_sim_output *out, lw_sim_result *res,
                     rows *rw)
{
  double n = ceil(t_end / h_out - 1e-9);
  if (n > 1e9) {
    lw_set_error(&res->error, LW_ERR_MODEL, "solver/step", NAN,
                 "t_end %.6g s at an output interval of %.6g s is %.3g rows: more than the 1e9 a run may keep",
                 t_end, h_out, n);
    return LW_ERR_MODEL;
  }
  *rw = (rows){out, res, 0, 0, n < 1 ? 0 : (long)n, h_out, t_end};
  rw->cap = out->keep ? (size_t)(rw->n / out->every) + 2 : 1;
  res->ncols = 1 + m->ncols;
  res->table = malloc(sizeof(double) * rw->cap * (size_t)res->ncols);
  if (!res->table) {
    lw_set_error(&res->error, LW_ERR_NOMEM, "", NAN, "out of memory for %zu result rows", rw->cap);
    return LW_ERR_NOMEM;
  }
  return LW_OK;
}

/* one step of length H while a guard rests (the resting model's, fixed:
 * no estimate of its error); *evs as lw_ev_after_step; -1 when it failed */
static int rest_step(tol_run *r, double H, int *evs, lw_error *err)
{
  lw_opt o = r->mh.opt;
  lw_tol_step_opt(r->m, H, &o);
  lw_ev_rest_opt(r->ev, &o);
  lw_step_info info;
  if (lw_ev_rest_step(&r->mh, r->d, r->ev, &info, event_row, r, err, evs) || *evs < 0)
    return -1;
  r->res->steps++;
  r->res->newton_iterations += info.iterations;
  return 0;
}

/* after a step that met events (evs: 0 none or handled within, 1 a stop, 2
 * d at an impact's time): its rows, up to the event's state before the
 * impact where there was one; 1 when the run ends here (res->status and
 * res->error set), else 0 */
static int tol_events(tol_run *r, rows *rw, lw_data *o, int evs, double *H)
{
  lw_sim_result *res = r->res;
  lw_data *b = evs && r->have_pre ? r->dpre : r->d;
  int st = step_rows(r, rw, o, b, b->t);
  if (st == 0 && evs == 1 && row_time(rw, rw->k - 1) < b->t)
    st = put_row(r->m, rw, b, b->t, rw->n); /* the stop's state ends the rows */
  if (st < 0) {
    lw_set_error(&res->error, LW_ERR_NOMEM, "", r->d->t, "out of memory for the result rows");
    res->status = LW_ERR_NOMEM;
    return 1;
  }
  if (st > 0) {
    lw_set_error(&res->error, LW_OK, "", b->t, "stopped by the receiver of the rows at t = %.6g s", b->t);
    return 1;
  }
  if (evs == 1) {
    lw_ev_stop_message(&r->mh, r->ev, res, b->t);
    return 1;
  }
  /* from an impact as from the start: the motion after it has a time
   * scale of its own (a rebound's flight may be far shorter than the
   * steps before it, and a longer step would leap over it) */
  if (evs == 2)
    *H = r->h0;
  *H = fmin(*H, r->hmax);
  return 0;
}

/* the steps from the initialized state in r->d to t_end; LW_OK or the status
 * with res->error set */
static int tol_loop(tol_run *r, rows *rw, lw_data *o, double H, lw_progress_fn progress, void *user)
{
  const double hmax = r->hmax;
  lw_sim_result *res = r->res;
  const double t_end = rw->t_end;
  int rejected = 0;
  double next_progress = 0.01 * t_end;
  while (r->d->t < t_end) {
    double ta = r->d->t;
    H = fmin(H, hmax);
    if (ta + 1.01 * H >= t_end)
      H = t_end - ta;
    if (!(H > 1e-12 * fmax(1.0, fabs(ta)))) {
      lw_set_error(&res->error, LW_ERR_SOLVER, "", ta,
                   "the step fell to %.3g s at t = %.6g s: the tolerance (rtol %.3g, atol %.3g) cannot be met "
                   "here%s", H, ta, r->m->opt.rtol, r->m->opt.atol, res->error.msg[0] ? ": " : "");
      return LW_ERR_SOLVER;
    }
    snap_save(&r->a, r->d);
    lw_error err;
    double fac = 1.0;
    int resting = r->ev && lw_ev_resting(r->ev), evs = 0;
    if (r->ev)
      lw_ev_save(&r->mh, r->d, r->ev);
    r->have_pre = 0;
    if (resting) { /* fixed steps of the length reached while the guard rests */
      if (rest_step(r, H, &evs, &res->error))
        return LW_ERR_SOLVER;
      if (tol_events(r, rw, o, evs, &H))
        return res->status ? res->status : LW_OK;
      continue;
    }
    int ok = attempt(r, H, &fac, &err);
    if (ok <= 0) {
      snap_restore(&r->a, r->d);
      res->rejected++;
      if (ok < 0)
        res->error = err; /* said if the steps then fall too small */
      H *= fmin(fac, 1.0);
      rejected = 1;
      continue;
    }
    /* the step's end exactly (thirds of H add up to H only to round-off) */
    r->d->t = H == t_end - ta ? t_end : ta + H;
    r->d->t0 = r->d->t;
    r->d->nstep = 0;
    if (r->cap >= 0 && record_step(r, H)) {
      lw_set_error(&res->error, LW_ERR_NOMEM, "", r->d->t, "out of memory for the steps' lengths");
      return LW_ERR_NOMEM;
    }
    res->steps++;
    res->h_min = res->steps == 1 ? H : fmin(res->h_min, H);
    res->h_max = fmax(res->h_max, H);
    double phi = lw_constraint_residual(&r->mh, r->d);
    if (phi > res->max_constraint_residual)
      res->max_constraint_residual = phi;
    if (r->ev) {
      evs = lw_ev_after_step(&r->mh, r->d, r->ev, event_row, r, &res->error);
      if (evs < 0)
        return LW_ERR_SOLVER;
      if (evs > 0) {
        if (tol_events(r, rw, o, evs, &H))
          return res->status ? res->status : LW_OK;
        continue; /* on from the event, with the step's length as it was */
      }
    }
    int st = step_rows(r, rw, o, r->d, r->d->t);
    if (st) {
      if (st < 0) {
        lw_set_error(&res->error, LW_ERR_NOMEM, "", r->d->t, "out of memory for the result rows");
        return LW_ERR_NOMEM;
      }
      lw_set_error(&res->error, LW_OK, "", r->d->t, "stopped by the receiver of the rows at t = %.6g s", r->d->t);
      return LW_OK;
    }
    H *= rejected ? fmin(fac, 1.0) : fac;
    rejected = 0;
    if (progress && r->d->t >= next_progress) {
      next_progress = r->d->t + 0.01 * t_end;
      if (progress(r->d->t / t_end, user)) {
        lw_set_error(&res->error, LW_OK, "", r->d->t, "cancelled at t = %.6g s", r->d->t);
        return LW_OK;
      }
    }
  }
  res->error.msg[0] = '\0';
  return LW_OK;
}

/* the run at the given order, steps at most hmax long; the steps' lengths
 * into *hs (n of them) when hs is not NULL */
static int tol_simulate(const lw_model *m, int order, double hmax, double t_end, double h_out,
                        const lw_sim_output *out, lw_sim_result *res, lw_progress_fn progress, void *user,
                        double **hs, long *n)
{
  rows rw;
  memset(res, 0, sizeof *res);
  res->error.time = NAN;
  int st = tol_setup(m, t_end, h_out, out, res, &rw);
  if (st)
    return res->status = st;
  tol_run r = {.m = m, .mh = *m, .res = res, .hmax = hmax, .cap = hs ? 0 : -1};
  double H = fmin(h_out, 1e-3);
  r.h0 = H;
  lw_tol_step_opt(m, H, &r.mh.opt);
  r.mh.opt.order = order;
  r.d = lw_data_new(&r.mh);
  lw_data *o = lw_data_new(&r.mh);
  r.e = malloc(sizeof(double) * ((size_t)m->nq + 1));
  int mem = !r.d || !o || !r.e || snap_init(m, &r.a) || snap_init(m, &r.b1) || snap_init(m, &r.b2);
  if (!mem && m->nguards) {
    r.ev = lw_ev_run_new(&r.mh);
    r.dpre = lw_data_new(&r.mh);
    mem = !r.ev || !r.dpre || snap_init(m, &r.ea) || snap_init(m, &r.pre);
    /* the sensitivities' steps (hs): events inside a step are stepped
     * past to its end as in the step mode, which their run repeats over
     * the same steps (sens_events.c), and a slow impact ends the run */
    if (!mem && !hs) {
      lw_ev_allow_rest(r.ev);
      lw_ev_set_step(r.ev, &r.mh, event_step, &r);
      lw_ev_stop_at_impact(r.ev, m->opt.step);
    }
  }
  double t0 = now_s();
  if (mem) {
    lw_set_error(&res->error, LW_ERR_NOMEM, "", NAN, "out of memory for the workspace");
    st = LW_ERR_NOMEM;
  } else if (!(st = lw_initialize(&r.mh, r.d, &res->error)) &&
             !(r.ev && (st = lw_ev_start(&r.mh, r.d, r.ev, &res->error) ? LW_ERR_MODEL : 0))) {
    res->max_constraint_residual = lw_constraint_residual(&r.mh, r.d);
    int stop = put_row(m, &rw, r.d, 0.0, 0);
    rw.k = 1;
    if (stop)
      lw_set_error(&res->error, LW_OK, "", 0.0, "stopped by the receiver of the rows at t = 0 s");
    else if ((st = tol_loop(&r, &rw, o, H, progress, user)) == LW_ERR_SOLVER && rw.k > 1 &&
             row_time(&rw, rw.k - 1) < r.d->t)
      put_row(m, &rw, r.d, r.d->t, rw.n); /* the last good state ends the rows */
  }
  res->status = st;
  res->wall_time_s = now_s() - t0;
  if (!out->keep) {
    free(res->table);
    res->table = NULL;
  }
  if (r.ev && !res->events)
    res->events = lw_ev_take_log(r.ev, &res->nevents);
  lw_ev_run_free(r.ev);
  lw_data_free(r.dpre);
  free(r.ea.mem);
  free(r.pre.mem);
  lw_data_free(r.d);
  lw_data_free(o);
  free(r.e);
  free(r.a.mem);
  free(r.b1.mem);
  free(r.b2.mem);
  if (hs && !st) {
    *hs = r.hs;
    *n = r.nhs;
  } else {
    free(r.hs);
  }
  return st;
}

int lw_sim_tolerance(const lw_model *m, double t_end, double h_out, const lw_sim_output *out, lw_sim_result *res,
                     lw_progress_fn progress, void *user)
{
  return tol_simulate(m, m->opt.order, INFINITY, t_end, h_out, out, res, progress, user, NULL, NULL);
}

int lw_tol_step_lengths(const lw_model *m, double t_end, double **hs, long *n, lw_error *err)
{
  lw_sim_output none = {1L << 40, 0, NULL, NULL, NULL};
  lw_sim_result res;
  *hs = NULL;
  *n = 0;
  int st = tol_simulate(m, 2, m->opt.step, t_end, m->opt.step, &none, &res, NULL, NULL, hs, n);
  if (st)
    *err = res.error;
  free(res.table); /* none kept */
  free(res.events);
  return st;
}
