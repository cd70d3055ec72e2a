/* test-affine.c: the affine rows' tables (compile/lw_hess.c, affine_rows)
 * against the generic paths they replace.
 *
 * For every shipped model and for beams built here (spatial and planar
 * chains of elements, a planar rigid body on a beam), at a state moved
 * off the model's own by random amounts: each affine row's value and
 * gradient as lw_rows_eval makes them from the tables against the row
 * kind's value hook (the same bits), gamma against the kind's rate hook,
 * J x and J^T y over the tables' nonzero entries against the dense row
 * products, and s g g^T through the list of additions against
 * lw_mat_add_outer (the same bits in the Newton matrix's values).  Then
 * the gradient buffer's mark: the affine rows are not written again into
 * a buffer that holds them, and are written into one that does not. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_rows.h"
#include "kind/lw_kind.h"
#include "la/lw_bmat.h"
#include "la/lw_matrix.h"

#include <string.h>

static const char *const shipped[] = {
  "bouncing-ball.json",  "cart-pendulum.json",       "double-pendulum.json",       "five-bar-ground.json",
  "five-bar.json",       "flexible-pendulum.json",   "flyball-governor.json",      "four-bar.json",
  "inverted-pendulum.json", "newtons-cradle.json",   "pendulum.json",              "rigid-spring-beam.json",
  "slider-crank-codesign.json", "slider-crank-friction.json", "slider-crank-iftomm.json", "slider-crank.json",
  "spherical-pendulum-friction.json", "switch-fall.json"};

static lw_model *beam_model(int nel, int spatial)
{
  g_autofree char *json = g_strdup_printf(
    "{\"linkwright\": 1, \"name\": \"beam\", \"planar\": %s, \"gravity\": %s,"
    " \"solver\": {\"t_end\": 0.01, \"step\": 0.001},"
    " \"beams\": [{\"name\": \"beam\", \"elements\": %d, \"start\": %s, \"end\": %s, \"young\": 1e7,"
    "  \"density\": 4000, \"section\": \"rectangle\", \"size\": [0.05, 0.05]}],"
    " \"joints\": [{\"name\": \"pin\", \"type\": \"%s\", \"body1\": \"ground\", \"body2\": \"beam\", \"at\": %s}]}",
    spatial ? "false" : "true", spatial ? "[0, -9.81, 0]" : "[0, -9.81]", nel, spatial ? "[0.1, 0.2, 0.3]" : "[0.1, 0.2]",
    spatial ? "[1.3, -0.4, 0.5]" : "[1.3, -0.4]", spatial ? "spherical" : "revolute",
    spatial ? "[0.1, 0.2, 0.3]" : "[0.1, 0.2]");
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "affine", NULL, &err);
  g_assert_nonnull(d);
  lw_model *m = lwt_compile(d);
  lw_desc_free(d);
  return m;
}

/* q, qd: the model's initial coordinates moved by random amounts */
static void random_state(const lw_model *m, GRand *rng, double *q, double *qd)
{
  for (int i = 0; i < m->nq; i++) {
    q[i] = m->q0[i] + g_rand_double_range(rng, -0.3, 0.3);
    qd[i] = g_rand_double_range(rng, -2, 2);
  }
}

/* the bits of two doubles equal, or both zeros (the tables leave out
 * products by zero, which can only change a zero's sign) */
static void assert_same(double a, double b, const char *what, int r)
{
  if (a == 0.0 && b == 0.0)
    return;
  if (memcmp(&a, &b, sizeof a) != 0)
    g_error("%s of row %d: %.17g from the tables, %.17g generic", what, r, a, b);
}

static int check_model(const lw_model *m, GRand *rng)
{
  int nq = m->nq, nc = m->nc, w = m->wrow, naff = 0;
  if (!m->af_ptr)
    return 0;
  lw_data *d = lw_data_new(m);
  double *q = g_new(double, nq), *qd = g_new(double, nq), *x = g_new(double, nq), *y = g_new(double, nc);
  double *g = g_new0(double, w), *jx = g_new0(double, nc), *jx2 = g_new0(double, nc);
  double *jty = g_new0(double, nq), *jty2 = g_new0(double, nq);
  random_state(m, rng, q, qd);
  for (int i = 0; i < nq; i++)
    x[i] = g_rand_double_range(rng, -1, 1);
  for (int r = 0; r < nc; r++)
    y[r] = g_rand_double_range(rng, -1, 1);

  /* values and gradients */
  lw_rows_eval(m, d, q, 0.37, 1);
  for (int r = 0; r < nc; r++) {
    if (!m->row_gconst[r])
      continue;
    naff++;
    const lw_row *row = &m->rows[r];
    const lw_row_kind_ops *k = lw_row_kind_of(row->kind);
    const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
    memset(g, 0, sizeof(double) * (size_t)w);
    double f = 0;
    if (row->func >= 0)
      lw_func_eval(&m->drivers[row->func], 0.37, &f, NULL, NULL);
    double phi = k->residual(k->value(m, v, q, row->nblk, row->blk, g) - row->c0 - f);
    assert_same(d->phi[r], phi, "Phi", r);
    for (int l = 0; l < w; l++)
      assert_same(d->jac[(size_t)r * w + l], g[l], "gradient entry", r);
  }

  /* gamma */
  lw_rows_time(m, d, q, qd, 0.37);
  for (int r = 0; r < nc; r++) {
    if (!m->row_gconst[r])
      continue;
    const lw_row *row = &m->rows[r];
    const lw_vexpr *v[4] = {&row->a, &row->b, &row->c, &row->d};
    double xd, gam, fd = 0, fdd = 0;
    lw_row_kind_of(row->kind)->rate(m, v, q, qd, &xd, &gam);
    if (row->func >= 0)
      lw_func_eval(&m->drivers[row->func], 0.37, NULL, &fd, &fdd);
    assert_same(d->gam[r], gam - fdd, "gamma", r);
    assert_same(d->phit[r], -fd, "Phi_t", r);
  }

  /* J x, J^T y */
  lw_jac_mul(m, d, x, jx);
  lw_rowmat_mul(m, d->jac, x, jx2);
  for (int r = 0; r < nc; r++)
    assert_same(jx[r], jx2[r], "J x", r);
  lw_jact_mul(m, d, y, jty);
  lw_rowmat_mul_t(m, d->jac, 1.0, y, jty2);
  for (int i = 0; i < nq; i++)
    assert_same(jty[i], jty2[i], "J^T y at a coordinate; its", i);

  /* s g g^T into the Newton matrix's values, on top of the mass */
  double *v1 = g_new(double, m->nnz), *v2 = g_new(double, m->nnz);
  memcpy(v1, m->mass_csc, sizeof(double) * (size_t)m->nnz);
  memcpy(v2, m->mass_csc, sizeof(double) * (size_t)m->nnz);
  for (int r = 0; r < nc; r++) {
    const lw_row *row = &m->rows[r];
    lw_mat_add_row_outer(m, v1, 1.234e3, r, d->jac + (size_t)r * w);
    lw_mat_add_outer(m, v2, 1.234e3, row->nblk, row->blk, row->pairpos, d->jac + (size_t)r * w);
  }
  for (int k = 0; k < m->nnz; k++)
    assert_same(v1[k], v2[k], "matrix entry; its", k);

  /* the mark: a buffer holding the affine rows is not written again, one
   * whose mark was cleared is */
  int r0 = -1;
  for (int r = 0; r < nc && r0 < 0; r++)
    if (m->row_gconst[r])
      r0 = r;
  double keep = d->jac[(size_t)r0 * w];
  d->jac[(size_t)r0 * w] = 42.0;
  lw_rows_eval(m, d, q, 0.37, 1);
  g_assert_cmpfloat(d->jac[(size_t)r0 * w], ==, 42.0);
  d->jac_aff_buf = NULL;
  lw_rows_eval(m, d, q, 0.37, 1);
  assert_same(d->jac[(size_t)r0 * w], keep, "gradient entry after the mark was cleared", r0);

  g_free(v1), g_free(v2), g_free(q), g_free(qd), g_free(x), g_free(y), g_free(g);
  g_free(jx), g_free(jx2), g_free(jty), g_free(jty2);
  lw_data_free(d);
  return naff;
}

static void test_shipped(void)
{
  GRand *rng = g_rand_new_with_seed(7);
  int total = 0, with = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(shipped); i++) {
    lw_model *m = lwt_open(shipped[i]);
    int n = check_model(m, rng);
    g_test_message("%s: %d affine rows of %d", shipped[i], n, m->nc);
    total += n;
    with += n > 0;
    lw_model_free(m);
  }
  /* the rigid models pinned to the ground and the beams have some */
  g_assert_cmpint(with, >=, 8);
  g_assert_cmpint(total, >, 40);
  g_rand_free(rng);
}

static void test_beams(void)
{
  GRand *rng = g_rand_new_with_seed(11);
  for (int spatial = 0; spatial < 2; spatial++)
    for (int nel = 1; nel <= 12; nel += 11) {
      lw_model *m = beam_model(nel, spatial);
      int n = check_model(m, rng);
      /* the joins (2 nd rows each) and the pin (nd rows) */
      int nd = spatial ? 3 : 2;
      g_assert_cmpint(n, ==, 2 * nd * (nel - 1) + nd);
      lw_model_free(m);
    }
  g_rand_free(rng);
}

/* lw_grad_copy: the other rows alone once the mark is the model's */
static void test_grad_copy(void)
{
  lw_model *m = lwt_open("rigid-spring-beam.json");
  size_t ng = (size_t)m->nc * m->wrow;
  double *src = g_new(double, ng), *dst = g_new0(double, ng);
  for (size_t e = 0; e < ng; e++)
    src[e] = (double)e + 0.5;
  unsigned long mark = 0;
  lw_grad_copy(m, dst, src, &mark);
  g_assert_cmpmem(dst, ng * sizeof(double), src, ng * sizeof(double));
  g_assert_true(mark == m->serial);
  memset(dst, 0, ng * sizeof(double));
  lw_grad_copy(m, dst, src, &mark);
  int some_var = 0;
  for (int r = 0; r < m->nc; r++)
    for (int l = 0; l < m->wrow; l++) {
      double v = dst[(size_t)r * m->wrow + l];
      if (m->row_gconst[r])
        g_assert_cmpfloat(v, ==, 0.0);
      else {
        g_assert_cmpfloat(v, ==, src[(size_t)r * m->wrow + l]);
        some_var = 1;
      }
    }
  g_assert_true(some_var);
  g_free(src), g_free(dst);
  lw_model_free(m);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/affine/shipped", test_shipped);
  g_test_add_func("/affine/beams", test_beams);
  g_test_add_func("/affine/grad-copy", test_grad_copy);
  return g_test_run();
}
