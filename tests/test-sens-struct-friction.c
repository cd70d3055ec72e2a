/* test-sens-struct-friction.c: the step's position matrix AP = [A J^T - L;
 * J 0] with joint friction (L = dQ^f/dl) solved through A's blocks and the
 * Schur complement J A^-1 (J^T - L) (sens_linalg.c), and the outputs' and
 * controllers' derivatives taken along the coordinates their joint
 * coordinates read: on the planar slider-crank with slider friction (a
 * joint-rate output, a controller's force output, a rate controller), the
 * adjoint and forward gradients of both objectives against those of the
 * dense LU of AP with every direction evaluated, recorded to 17 digits. */
#include "lw-test.h"
#include "lw_internal.h"

#include <math.h>

#define MODEL LW_SOURCE_ROOT "/tests/data/slider-crank-friction-planar.json"

/* d psi / d (L1, L2, a, mu_d, m_slider, kp) and d xf / d (...) by the
 * dense LU of AP */
static const double dense_grad[2][6] = {
  {36.51068743445786, -2.199395162532518, 0.0, 2.1283979869894143, 0.8126251700152639, -1.80087218786964},
  {-0.8672375297729851, 0.9950412688324004, 0.0, 0.027828905366444702, 0.004149378875383923,
   -0.009112431365702344},
};

/* the model meets the blocks' conditions: A's blocks well conditioned, no
 * force coupling two bodies (sens_setup.c), so the Schur path is taken */
static void test_model_takes_blocks(void)
{
  lw_error err;
  lw_desc *d = lw_model_read_file(MODEL, NULL, &err);
  g_assert_nonnull(d);
  lw_model *m = lw_compile(d, &err);
  g_assert_nonnull(m);
  g_assert_cmpint(m->nfric, ==, 1);
  g_assert_true(m->dense);
  g_assert_cmpfloat(m->minv_cond, <=, 1e6);
  g_assert_false(m->lin_coupled);
  lw_model_free(m);
  lw_desc_free(d);
}

/* objective o's gradient over every parameter by method */
static void gradient(const lw_desc *d, lw_sens_method method, int o, double *g)
{
  int P[6] = {0, 1, 2, 3, 4, 5}, O[1] = {o};
  g_assert_cmpint(d->nparams, ==, 6);
  lw_sens_options opt = {.method = method, .nparams = 6, .params = P, .nobj = 1, .objectives = O, .threads = 1};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity(d, &opt, &r), ==, LW_OK);
  memcpy(g, r.gradient, sizeof(double) * 6);
  lw_sens_result_clear(&r);
}

static void test_gradients_as_dense(void)
{
  lw_error err;
  lw_desc *d = lw_model_read_file(MODEL, NULL, &err);
  g_assert_nonnull(d);
  for (int o = 0; o < 2; o++) {
    double ga[6], gf[6], big = 0, ea = 0, ef = 0;
    gradient(d, LW_SENS_ADJOINT, o, ga);
    gradient(d, LW_SENS_FORWARD, o, gf);
    for (int j = 0; j < 6; j++)
      big = fmax(big, fabs(dense_grad[o][j]));
    for (int j = 0; j < 6; j++) {
      ea = fmax(ea, fabs(ga[j] - dense_grad[o][j]) / big);
      ef = fmax(ef, fabs(gf[j] - dense_grad[o][j]) / big);
    }
    g_test_message("objective %d: adjoint %.2e, forward %.2e from the dense LU's", o, ea, ef);
    g_assert_cmpfloat(ea, <=, 1e-12);
    g_assert_cmpfloat(ef, <=, 1e-12);
  }
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sens-struct-friction/model-takes-blocks", test_model_takes_blocks);
  g_test_add_func("/sens-struct-friction/gradients-as-dense", test_gradients_as_dense);
  return g_test_run();
}
