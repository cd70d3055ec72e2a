/* sens_pipeline.c: the forward sensitivities on two threads. */
#include "sens_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

/* ---- the forward sensitivities on two threads ------------------------------
 * One thread steps the simulation (its own lw_data) and stores each state,
 * with the step's Jacobian and Schur factor (aux), in a ring; the calling
 * thread linearizes the steps from the ring and carries the sensitivities.
 * The two stay in step through two counters: states made, states taken. */
enum { PIPE_SLOTS = 128, PIPE_MIN_SLOTS = 8 };
#define PIPE_BYTES ((size_t)32 << 20) /* the ring's size at most */

struct sens_pipe {
  sens *s;
  lw_data *d;
  double *ring;
  size_t sl;
  long N, nslot; /* slots: PIPE_SLOTS, fewer for large states */
  atomic_long made, taken;
  atomic_int stop, done;
  lw_error err; /* the stepping thread's failure (done set, made < N) */
  pthread_t th;
};

/* the taking thread waits a little: spins, then gives the processor up */
static void pipe_wait(int *spins)
{
  if (++*spins < 200)
    return;
  if (*spins < 300) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, 20000};
  nanosleep(&ts, NULL);
}

/* the stepping thread: states 1 .. N into the ring, each once a slot is free */
static void *pipe_run(void *arg)
{
  sens_pipe *pp = arg;
  const sens *s = pp->s;
  for (long k = 1; k <= pp->N; k++) {
    lw_step_info info;
    if (atomic_load_explicit(&pp->stop, memory_order_relaxed) || lw_step(s->m, pp->d, &info, &pp->err))
      break;
    /* the ring full: sleep while the other thread takes a quarter of it
     * (it is the slower one; spinning would only burn the processor) */
    if (k - atomic_load_explicit(&pp->taken, memory_order_acquire) > pp->nslot)
      while (k - atomic_load_explicit(&pp->taken, memory_order_acquire) > 3 * pp->nslot / 4) {
        if (atomic_load_explicit(&pp->stop, memory_order_relaxed))
          goto out;
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
      }
    sens_state_save_data(s, pp->d, pp->ring + pp->sl * (size_t)(k % pp->nslot));
    atomic_store_explicit(&pp->made, k, memory_order_release);
  }
out:
  atomic_store_explicit(&pp->done, 1, memory_order_release);
  return NULL;
}

/* start stepping from the initial state (lw_initialize again, into the
 * thread's own data); NULL: run on one thread (also when a ring of
 * PIPE_MIN_SLOTS states would exceed PIPE_BYTES: a large model) */
sens_pipe *sens_pipe_start(sens *s)
{
  size_t sl = sens_state_len(s), fit = PIPE_BYTES / (sizeof(double) * sl);
  if (fit < PIPE_MIN_SLOTS)
    return NULL;
  sens_pipe *pp = calloc(1, sizeof *pp);
  if (!pp)
    return NULL;
  pp->s = s;
  pp->sl = sl;
  pp->nslot = fit < PIPE_SLOTS ? (long)fit : PIPE_SLOTS;
  pp->N = s->N;
  pp->d = lw_data_new(s->m);
  pp->ring = malloc(sizeof(double) * pp->sl * (size_t)pp->nslot);
  atomic_init(&pp->made, 0);
  atomic_init(&pp->taken, 0);
  atomic_init(&pp->stop, 0);
  atomic_init(&pp->done, 0);
  if (!pp->d || !pp->ring || lw_initialize(s->m, pp->d, &pp->err) ||
      pthread_create(&pp->th, NULL, pipe_run, pp)) {
    lw_data_free(pp->d);
    free(pp->ring);
    free(pp);
    return NULL;
  }
  return pp;
}

/* state k (1 .. N) into st; -1 when the stepping failed before it (the
 * error in pp->err) */
int sens_pipe_get(sens_pipe *pp, long k, double *st)
{
  int spins = 0;
  while (atomic_load_explicit(&pp->made, memory_order_acquire) < k) {
    if (atomic_load_explicit(&pp->done, memory_order_acquire) &&
        atomic_load_explicit(&pp->made, memory_order_acquire) < k)
      return -1;
    pipe_wait(&spins);
  }
  memcpy(st, pp->ring + pp->sl * (size_t)(k % pp->nslot), sizeof(double) * pp->sl);
  atomic_store_explicit(&pp->taken, k, memory_order_release);
  return 0;
}

void sens_pipe_stop(sens_pipe *pp)
{
  if (!pp)
    return;
  atomic_store(&pp->stop, 1);
  pthread_join(pp->th, NULL);
  lw_data_free(pp->d);
  free(pp->ring);
  free(pp);
}


const lw_error *sens_pipe_error(const sens_pipe *pp)
{
  return &pp->err;
}

size_t sens_pipe_bytes(const sens_pipe *pp)
{
  return pp->sl * (size_t)pp->nslot;
}
