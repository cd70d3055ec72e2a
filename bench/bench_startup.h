/* bench_startup.h: the N-link chains' start-up times (bench_startup.c) */
#ifndef BENCH_STARTUP_H
#define BENCH_STARTUP_H

/* prints the table and the fitted slopes; nrep runs per size (best of);
 * returns 1 when a chain failed or a slope is above 1.1, else 0 */
int bench_startup(int nrep);

#endif
