/* test-sim-output.c: what a run keeps and hands on (lw_simulate_ex): every
 * k-th row and the last, the same numbers as the full table, rows handed
 * to a receiver as they are made with nothing kept, and a receiver that
 * stops the run. */
#include "lw-test.h"

#include <math.h>
#include <string.h>

#include "linkwright.h"

typedef struct {
  long rows;
  int ncols;
  double last_t;
  long stop_after;
  const lw_sim_result *full;
  int every;
  double worst;
} receiver;

static int take(const double *row, int ncols, void *user)
{
  receiver *rc = user;
  rc->ncols = ncols;
  rc->last_t = row[0];
  if (rc->full) {
    /* the row of the full table at the same time: identical numbers */
    long k = lround(row[0] / 1e-3);
    const double *f = rc->full->table + (size_t)k * ncols;
    for (int c = 0; c < ncols; c++)
      if (f[c] != row[c])
        rc->worst = 1;
  }
  rc->rows++;
  return rc->stop_after > 0 && rc->rows >= rc->stop_after;
}

static void test_every(void)
{
  lw_desc *d = lw_desc_chain(3, 0);
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  g_assert_nonnull(m);
  lw_sim_result full, some;
  g_assert_cmpint(lw_simulate(m, 1.0, 1e-3, &full, NULL, NULL), ==, LW_OK);
  g_assert_cmpint(full.rows, ==, 1001);
  /* every 7th step and the last: rows 0, 7, ..., 994, 1000 */
  lw_sim_output out = {7, 1, NULL, NULL, NULL};
  g_assert_cmpint(lw_simulate_ex(m, 1.0, 1e-3, &out, &some, NULL, NULL), ==, LW_OK);
  g_assert_cmpint(some.rows, ==, 1000 / 7 + 2);
  for (long i = 0; i < some.rows; i++) {
    long k = i < some.rows - 1 ? 7 * i : 1000;
    g_assert_cmpmem(some.table + (size_t)i * some.ncols, sizeof(double) * some.ncols,
                    full.table + (size_t)k * full.ncols, sizeof(double) * full.ncols);
  }
  g_assert_cmpint(some.steps, ==, full.steps);
  lw_sim_result_clear(&some);
  /* nothing kept, every row handed on */
  receiver rc = {0, 0, 0, 0, &full, 1, 0};
  lw_sim_output stream = {1, 0, take, &rc, NULL};
  g_assert_cmpint(lw_simulate_ex(m, 1.0, 1e-3, &stream, &some, NULL, NULL), ==, LW_OK);
  g_assert_null(some.table);
  g_assert_cmpint(some.rows, ==, 1001);
  g_assert_cmpint(rc.rows, ==, 1001);
  g_assert_cmpint(rc.ncols, ==, full.ncols);
  g_assert_cmpfloat(rc.worst, ==, 0);
  lw_sim_result_clear(&some);
  /* the receiver stops the run */
  receiver stop = {0, 0, 0, 10, NULL, 1, 0};
  lw_sim_output stopping = {1, 0, take, &stop, NULL};
  g_assert_cmpint(lw_simulate_ex(m, 1.0, 1e-3, &stopping, &some, NULL, NULL), ==, LW_OK);
  g_assert_cmpint(stop.rows, ==, 10);
  g_assert_cmpint(some.steps, ==, 9);
  g_assert_nonnull(strstr(some.error.msg, "stopped"));
  lw_sim_result_clear(&some);
  lw_sim_result_clear(&full);
  lw_model_free(m);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sim-output/every", test_every);
  return g_test_run();
}
