/* lw-frame-stats.c: display frame statistics for the frame-rate benchmarks. */
#include "lw-frame-stats.h"

#include <stdio.h>
#include <time.h>

static double clock_s(clockid_t id)
{
  struct timespec ts;
  if (clock_gettime(id, &ts))
    return 0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void lw_cpu_mark(LwCpuMark *m)
{
  m->thread_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
  m->process_s = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  m->steal = m->total = 0;
  /* "cpu  user nice system idle iowait irq softirq steal ..." */
  FILE *f = fopen("/proc/stat", "r");
  if (!f)
    return;
  unsigned long long v[8];
  if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
             &v[7]) == 8) {
    for (int i = 0; i < 8; i++)
      m->total += v[i];
    m->steal = v[7];
  }
  fclose(f);
}

static int cmp_double(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void lw_frame_stats_append(GString *out, GArray *intervals)
{
  guint n = intervals->len;
  double sum = 0;
  for (guint i = 0; i < n; i++)
    sum += g_array_index(intervals, double, i);
  GArray *sorted = g_array_copy(intervals);
  g_array_sort(sorted, cmp_double);
  double mean = n ? sum / n : 0, med = n ? g_array_index(sorted, double, n / 2) : 0;
  double p95 = n ? g_array_index(sorted, double, (guint)(0.95 * (n - 1))) : 0;
  double worst = n ? g_array_index(sorted, double, n - 1) : 0;
  g_array_unref(sorted);
  GString *late = g_string_new(NULL);
  guint nlate = 0;
  for (guint i = 0; i < n; i++) {
    double dt = g_array_index(intervals, double, i);
    if (dt > 1.5 * med && ++nlate <= 6)
      g_string_append_printf(late, "%s%u (%.1f ms)", nlate > 1 ? ", " : ": ", i + 1, 1e3 * dt);
  }
  g_string_append_printf(out,
                         "frames %u, mean interval %.2f ms (%.1f fps), median %.2f ms, 95th percentile %.2f ms, "
                         "worst %.2f ms, late %u%s",
                         n, 1e3 * mean, mean > 0 ? 1 / mean : 0, 1e3 * med, 1e3 * p95, 1e3 * worst, nlate, late->str);
  g_string_free(late, TRUE);
}

void lw_cpu_stats_append(GString *out, const LwCpuMark *a, const LwCpuMark *b, guint frames)
{
  double per = frames ? 1e3 / frames : 0;
  g_string_append_printf(out, ", main thread %.2f ms a frame, process %.2f ms a frame", per * (b->thread_s - a->thread_s),
                         per * (b->process_s - a->process_s));
  if (b->total > a->total)
    g_string_append_printf(out, ", steal %.1f %%", 100.0 * (double)(b->steal - a->steal) / (double)(b->total - a->total));
}
