/* lw-frame-stats.h: display frame statistics for the frame-rate benchmarks
 * (the application's --bench-fps and bench/gtk-tick), reported alike. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where the processor time went, read at the start and at the end of a
 * measurement. */
typedef struct {
  double thread_s;      /* the calling (main) thread's processor time */
  double process_s;     /* the whole process's */
  guint64 steal, total; /* the machine's time in /proc/stat (clock ticks): taken by the hypervisor, all of it */
} LwCpuMark;

void lw_cpu_mark(LwCpuMark *m);

/* Appends "frames N, mean interval ... ms (F fps), median, 95th percentile,
 * worst, late K[: i (ms), ...]" for the intervals (seconds, in order) between
 * frames.  A frame is late when its interval is over 1.5 times the median
 * (it missed a refresh); the first six are named by their place. */
void lw_frame_stats_append(GString *out, GArray *intervals);

/* Appends ", main thread X ms a frame, process Y ms a frame, steal Z %": the
 * processor time between marks a and b per frame, and the share of the
 * machine's time the hypervisor took meanwhile (left out where /proc/stat
 * cannot be read). */
void lw_cpu_stats_append(GString *out, const LwCpuMark *a, const LwCpuMark *b, guint frames);

G_END_DECLS
