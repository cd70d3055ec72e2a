/* test-fricstep.c: the cost side of joint friction in the ALI3-P step and
 * its sensitivities (docs/friction.md sec. 8.4, 8.5):
 *   - the element's local derivatives (lw_joint_friction_jac: one kernel
 *     evaluation, the DOT rows' and coordinates' constant Hessians) equal
 *     lw_joint_friction_jvp's along every unit direction of q, the slip's
 *     velocity and the joint's multipliers, on planar and spatial
 *     prismatic, revolute, planar and spherical joints;
 *   - the step's exact Newton matrix with friction's columns from the
 *     structure of dQ^f (ali3p_friction.c) equals the one from those
 *     local derivatives;
 *   - with the exact tangent in every iteration (lw_opt.friction_exact)
 *     the Newton iteration needs no more iterations with friction than
 *     without it, within 2 %, on the planar slider-crank bench-friction
 *     measures, and its final state is the default iteration's to the
 *     Newton tolerance. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_rows.h"
#include "integ/ali3p_friction.h"
#include "lin/lw_friction_jvp.h"

#include <stdio.h>
#include <string.h>

/* a 1 kg bar pendulum with pin friction (an angle coordinate) */
static const char *pendulum_json =
  "{\"linkwright\": 1, \"name\": \"pin-friction pendulum\", \"planar\": true, \"gravity\": [0, -9.81],\n"
  " \"solver\": {\"t_end\": 0.1, \"step\": 0.001},\n"
  " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": 0.02, \"position\": [0, 0],\n"
  "   \"angle\": -0.5235987755982988}],\n"
  " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"bob\", \"at\": [0, 0],\n"
  "   \"friction\": {\"mu_s\": 0.5, \"mu_d\": 0.3, \"v_t\": 0.01, \"radius\": 0.05, \"viscous\": 0.2, \"preload\": 1}}],\n"
  " \"initial\": [{\"joint\": \"pivot\", \"value\": -0.5235987755982988, \"velocity\": 0}]}\n";

static lw_desc *read_model(const char *path)
{
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d)
    g_error("%s: %s", path, err.msg);
  return d;
}

/* the state after a few steps (slip and reactions), with the multipliers
 * perturbed so that every row of the joints carries load */
static void some_state(const lw_model *m, lw_data *d, double *q, double *v, double *l)
{
  lw_error err;
  if (lw_initialize(m, d, &err))
    g_error("%s", err.msg);
  for (int k = 0; k < 20; k++)
    if (lw_step(m, d, NULL, &err))
      g_error("%s", err.msg);
  GRand *rng = g_rand_new_with_seed(3);
  memcpy(q, d->q, sizeof(double) * (size_t)m->nq);
  for (int i = 0; i < m->nq; i++)
    v[i] = d->qd[i] + g_rand_double_range(rng, -0.5, 0.5);
  for (int r = 0; r < m->nc; r++)
    l[r] = d->lambda[r] + g_rand_double_range(rng, -5, 5);
  g_rand_free(rng);
  lw_rows_eval(m, d, q, d->t, 1);
}

/* the largest |a - b| and |b| over element e's coordinates' blocks, a
 * local column (nout) and b a global vector (nq) */
static void compare(const lw_model *m, int e, const double *a, const double *b, double *err, double *scale)
{
  const lw_jfric *f = &m->fric[e];
  for (int k = 0; k < f->nblk; k++)
    for (int i = 0; i < m->nqb; i++) {
      double y = b[m->blk_off[f->blk[k]] + i];
      *err = fmax(*err, fabs(a[k * m->nqb + i] - y));
      *scale = fmax(*scale, fabs(y));
    }
}

/* every element's local derivatives against lw_joint_friction_jvp along
 * each unit direction, to 1e-12 of the largest entry of each matrix */
static void check_jac(lw_desc *desc)
{
  lw_model *m = lwt_compile(desc);
  lw_data *d = lw_data_new(m);
  int nq = m->nq, nc = m->nc, nqb = m->nqb;
  double *q = g_new(double, nq), *v = g_new(double, nq), *l = g_new(double, nc);
  double *u = g_new0(double, nq), *w = g_new0(double, nc), *J = g_new(double, nq);
  some_state(m, d, q, v, l);
  lw_lin_point p = {q, v, NULL, NULL, {l, NULL, NULL}, d->t};
  g_assert_cmpint(m->nfric, >, 0);
  for (int e = 0; e < m->nfric; e++) {
    const lw_jfric *f = &m->fric[e];
    int nout = f->nblk * nqb, blk[2], nb = lw_joint_friction_bodies(m, e, blk);
    double Fq[24 * 24], Fv[24 * 24], Fl[24 * LW_FRIC_PT_MAXROWS];
    g_assert_cmpint(lw_joint_friction_jac(m, e, &p, blk, nb, u, Fq, Fv, Fl, NULL), ==, 0);
    for (int i = 0; i < nq; i++)
      g_assert_cmpfloat(u[i], ==, 0.0); /* the scratch left zero */
    double err[3] = {0}, scale[3] = {0};
    for (int k = 0; k < nb; k++)
      for (int a = 0; a < nqb; a++) {
        int j = k * nqb + a, gj = m->blk_off[blk[k]] + a;
        u[gj] = 1.0;
        for (int pass = 0; pass < 2; pass++) {
          lw_lin_dir dir = {pass ? NULL : u, pass ? u : NULL, NULL, NULL, NULL, NULL, -1};
          memset(J, 0, sizeof(double) * (size_t)nq);
          lw_joint_friction_jvp(m, NULL, e, &p, &dir, NULL, J);
          compare(m, e, (pass ? Fv : Fq) + (size_t)j * nout, J, &err[pass], &scale[pass]);
        }
        u[gj] = 0.0;
      }
    for (int r = f->row0; r < f->row0 + f->nrow; r++) {
      w[r] = 1.0;
      lw_lin_dir dir = {NULL, NULL, NULL, NULL, w, NULL, -1};
      memset(J, 0, sizeof(double) * (size_t)nq);
      lw_joint_friction_jvp(m, NULL, e, &p, &dir, NULL, J);
      compare(m, e, Fl + (size_t)(r - f->row0) * nout, J, &err[2], &scale[2]);
      w[r] = 0.0;
    }
    for (int k = 0; k < 3; k++) {
      g_test_message("%s, element %d: %s: largest %.3e, difference %.2e", desc->name, e,
                     k == 0 ? "dQ/dq" : k == 1 ? "dQ/dqd" : "dQ/dl", scale[k], err[k]);
      g_assert_cmpfloat(scale[k], >, 0.0);
      g_assert_cmpfloat(err[k], <=, 1e-12 * scale[k]);
    }
  }
  g_free(q), g_free(v), g_free(l), g_free(u), g_free(w), g_free(J);
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(desc);
}

static void test_jac_planar_prismatic(void)
{
  check_jac(read_model(LW_SOURCE_ROOT "/tests/data/slider-crank-friction-planar.json"));
}

static void test_jac_planar_revolute(void)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(pendulum_json, -1, "pendulum.json", NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  check_jac(d);
}

static void test_jac_spatial_prismatic(void)
{
  check_jac(read_model(LW_MODELS_DIR "/slider-crank-friction.json"));
}

static void test_jac_spatial_planar_joint(void)
{
  check_jac(read_model(LW_MODELS_DIR "/inverted-pendulum-friction.json"));
}

static void test_jac_spherical(void)
{
  check_jac(read_model(LW_MODELS_DIR "/spherical-pendulum-friction.json"));
}

/* Newton iterations of a run to t_end (exact: the friction's exact
 * tangent in every iteration); the final q into qf (nq) */
static long iterations(lw_desc *desc, int exact, double *qf)
{
  lw_model *m = lwt_compile(desc);
  lw_error err;
  lw_opt o = *lw_model_opt(m);
  o.friction_exact = exact;
  g_assert_cmpint(lw_model_set_opt(m, &o, &err), ==, LW_OK);
  lw_data *d = lw_data_new(m);
  if (lw_initialize(m, d, &err))
    g_error("%s", err.msg);
  long n = lround(o.t_end / o.step), it = 0;
  for (long k = 0; k < n; k++) {
    lw_step_info info;
    if (lw_step(m, d, &info, &err))
      g_error("%s", err.msg);
    it += info.iterations;
  }
  if (qf)
    memcpy(qf, d->q, sizeof(double) * (size_t)m->nq);
  lw_data_free(d);
  lw_model_free(m);
  return it;
}

/* a copy of d without its joint friction and the parameters bound to it
 * (as bench-friction makes it) */
static lw_desc *without_friction(const lw_desc *d)
{
  lw_desc *free_d = lw_desc_copy(d);
  for (int j = 0; j < free_d->njoints; j++)
    free_d->joints[j].has_friction = 0;
  for (int j = d->nparams; j-- > 0;)
    for (int k = 0; k < d->params[j].ntargets; k++)
      if (strstr(d->params[j].targets[k], "/friction/")) {
        char path[300];
        snprintf(path, sizeof path, "parameters/%s", d->params[j].name);
        lw_desc_remove(free_d, path);
        break;
      }
  for (int k = free_d->noutputs; k-- > 0;)
    if (free_d->outputs[k].type >= LW_OUT_FRICTION_FORCE) {
      char path[300];
      snprintf(path, sizeof path, "outputs/%s", free_d->outputs[k].name);
      lw_desc_remove(free_d, path);
    }
  return free_d;
}

static void test_exact_iterations(void)
{
  lw_desc *d = read_model(LW_SOURCE_ROOT "/tests/data/slider-crank-friction-planar.json");
  lw_desc *free_d = without_friction(d);
  double qe[64], qa[64];
  long it_exact = iterations(d, 1, qe), it_default = iterations(d, 0, qa), it_free = iterations(free_d, 0, NULL);
  g_test_message("Newton iterations: exact tangent %ld, default %ld, without friction %ld", it_exact, it_default,
                 it_free);
  g_assert_cmpint(it_exact, <=, it_free + it_free / 50);
  double e = 0;
  for (int i = 0; i < 12; i++)
    e = fmax(e, fabs(qe[i] - qa[i]));
  g_test_message("final q, exact against default: %.2e", e);
  g_assert_cmpfloat(e, <=, 1e-4);
  lw_desc_free(free_d);
  lw_desc_free(d);
}

/* the step's exact Newton matrix with friction's columns from the
 * structure of dQ^f (lw_ali3p_fric_matrix, local = 0) against the same
 * from lw_joint_friction_jac's local matrices (local = 1), with and
 * without the damping, to 1e-13 of the matrix's largest entry; friction
 * present in it (its multiplier term makes it non-symmetric) */
static void check_rank_matrix(const char *path)
{
  lw_desc *desc = read_model(path);
  lw_model *m = lwt_compile(desc);
  lw_data *d = lw_data_new(m);
  int n = m->nq;
  double *q = g_new(double, n), *v = g_new(double, n), *l = g_new(double, m->nc);
  double *A = g_new(double, (size_t)n * n), *B = g_new(double, (size_t)n * n);
  some_state(m, d, q, v, l);
  memcpy(d->qd, v, sizeof(double) * (size_t)n);
  for (int damping = 0; damping < 2; damping++) {
    lw_ali3p_fric_matrix(m, d, m->mass_csc, l, m->opt.alpha, m->opt.step, d->t, damping, 0, A);
    lw_ali3p_fric_matrix(m, d, m->mass_csc, l, m->opt.alpha, m->opt.step, d->t, damping, 1, B);
    double err = 0, scale = 0, asym = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        err = fmax(err, fabs(A[(size_t)j * n + i] - B[(size_t)j * n + i]));
        scale = fmax(scale, fabs(B[(size_t)j * n + i]));
        asym = fmax(asym, fabs(B[(size_t)j * n + i] - B[(size_t)i * n + j]));
      }
    g_test_message("%s, damping %d: largest %.3e, asymmetry %.3e, difference %.2e", path, damping, scale, asym,
                   err);
    g_assert_cmpfloat(asym, >, 1e-9 * scale);
    g_assert_cmpfloat(err, <=, 1e-13 * scale);
  }
  g_free(q), g_free(v), g_free(l), g_free(A), g_free(B);
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(desc);
}

static void test_rank_matrix(void)
{
  check_rank_matrix(LW_SOURCE_ROOT "/tests/data/slider-crank-friction-planar.json");
  check_rank_matrix(LW_SOURCE_ROOT "/models/slider-crank-friction.json");
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/fricstep/jac/planar-prismatic", test_jac_planar_prismatic);
  g_test_add_func("/fricstep/jac/planar-revolute", test_jac_planar_revolute);
  g_test_add_func("/fricstep/jac/spatial-prismatic", test_jac_spatial_prismatic);
  g_test_add_func("/fricstep/jac/spatial-planar-joint", test_jac_spatial_planar_joint);
  g_test_add_func("/fricstep/jac/spherical", test_jac_spherical);
  g_test_add_func("/fricstep/exact-iterations", test_exact_iterations);
  g_test_add_func("/fricstep/rank-matrix", test_rank_matrix);
  return g_test_run();
}
