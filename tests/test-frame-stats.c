/* The frame-rate benchmarks' statistics (src/app/lw-frame-stats.c): late
 * frames, the summary figures, and the processor time per frame. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "lw-frame-stats.h"

static GArray *intervals(const double *ms, guint n)
{
  GArray *a = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint i = 0; i < n; i++) {
    double s = 1e-3 * ms[i];
    g_array_append_val(a, s);
  }
  return a;
}

static char *frames_text(GArray *a)
{
  GString *out = g_string_new(NULL);
  lw_frame_stats_append(out, a);
  return g_string_free(out, FALSE);
}

/* at 60 Hz, two refreshes missed at frames 4 and 8 (by their place); frame
 * 10 came 1.44 times the median after the one before: not late */
static void test_late(void)
{
  double ms[12];
  for (int i = 0; i < 12; i++)
    ms[i] = 1000.0 / 60.0;
  ms[3] = 2000.0 / 60.0;
  ms[7] = 3000.0 / 60.0;
  ms[9] = 24.0;
  GArray *a = intervals(ms, 12);
  g_autofree char *t = frames_text(a);
  g_test_message("%s", t);
  g_assert_nonnull(strstr(t, "frames 12, "));
  /* mean (9 x 16.67 + 24 + 33.33 + 50) / 12 = 21.44 ms, 46.6 fps */
  g_assert_nonnull(strstr(t, "mean interval 21.44 ms (46.6 fps)"));
  g_assert_nonnull(strstr(t, "median 16.67 ms"));
  g_assert_nonnull(strstr(t, "worst 50.00 ms"));
  g_assert_nonnull(strstr(t, "late 2: 4 (33.3 ms), 8 (50.0 ms)"));
  g_array_unref(a);
}

/* every late frame counted, the first six named; none late, none named */
static void test_many_late(void)
{
  /* late (over 1.5 x the median 16.7 ms): frames 2, 4, 6, 8, 10, 13, 15 */
  double ms[20] = {16.7, 33.3, 16.7, 33.3, 16.7, 33.3, 16.7, 33.3, 16.7, 33.3,
                   16.7, 16.7, 40.0, 16.7, 40.0, 16.7, 16.7, 16.7, 16.7, 16.7};
  GArray *a = intervals(ms, 20);
  g_autofree char *t = frames_text(a);
  g_test_message("%s", t);
  g_assert_nonnull(strstr(t, "late 7: 2 (33.3 ms), 4 (33.3 ms), 6 (33.3 ms), 8 (33.3 ms), 10 (33.3 ms), 13 (40.0 ms)"));
  g_assert_null(strstr(t, "15 (40.0 ms)"));
  g_array_unref(a);

  double even[5] = {16.7, 16.7, 16.7, 16.7, 16.7};
  a = intervals(even, 5);
  g_autofree char *u = frames_text(a);
  g_assert_nonnull(strstr(u, "late 0"));
  g_assert_null(strstr(u, "late 0:"));
  g_array_unref(a);

  a = intervals(NULL, 0);
  g_autofree char *v = frames_text(a);
  g_assert_nonnull(strstr(v, "frames 0, "));
  g_array_unref(a);
}

static void test_cpu(void)
{
  LwCpuMark a = {1.0, 2.0, 10, 1000}, b = {1.1, 2.2, 20, 1100};
  GString *out = g_string_new(NULL);
  lw_cpu_stats_append(out, &a, &b, 10);
  g_test_message("%s", out->str);
  g_assert_cmpstr(out->str, ==, ", main thread 10.00 ms a frame, process 20.00 ms a frame, steal 10.0 %");
  /* no machine totals (no /proc/stat): no steal */
  LwCpuMark c = {1.0, 2.0, 0, 0}, e = {1.05, 2.05, 0, 0};
  g_string_truncate(out, 0);
  lw_cpu_stats_append(out, &c, &e, 5);
  g_assert_cmpstr(out->str, ==, ", main thread 10.00 ms a frame, process 10.00 ms a frame");
  g_string_free(out, TRUE);

  /* the marks themselves: processor time spent between them shows */
  LwCpuMark m0, m1;
  lw_cpu_mark(&m0);
  volatile double x = 0;
  for (int i = 0; i < 20000000; i++)
    x += sqrt((double)i);
  lw_cpu_mark(&m1);
  g_assert_cmpfloat(m1.thread_s - m0.thread_s, >, 0.001);
  g_assert_cmpfloat(m1.process_s, >=, m1.thread_s);
#ifdef __linux__
  g_assert_cmpuint(m0.total, >, 0);
  g_assert_cmpuint(m1.total, >=, m0.total);
#endif
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/frame-stats/late", test_late);
  g_test_add_func("/frame-stats/many-late", test_many_late);
  g_test_add_func("/frame-stats/cpu", test_cpu);
  return g_test_run();
}
