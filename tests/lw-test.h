/* lw-test.h: helpers shared by the test programs. */
#ifndef LW_TEST_H
#define LW_TEST_H

#include <glib.h>
#include <math.h>
#include <stdlib.h>

#include "linkwright.h"
#include "lw_io.h"

/* built with AddressSanitizer: a long numerical validation may run a
 * shorter horizon there, the same code checked for memory (the plain
 * build runs it whole) */
#if defined(__SANITIZE_ADDRESS__)
#define LW_UNDER_SANITIZERS 1
#else
#define LW_UNDER_SANITIZERS 0
#endif

/* every shipped model */
static const char *const lwt_models[] = {"five-bar.json",      "slider-crank.json",    "slider-crank-iftomm.json",
                                         "pendulum.json",      "double-pendulum.json", "four-bar.json",
                                         "cart-pendulum.json", "slider-crank-codesign.json"};

/* Load and compile a shipped model, failing the test with the message. */
static inline lw_model *lwt_open(const char *name)
{
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, name, NULL);
  lw_error err;
  lw_model *m = lw_model_open(path, &err);
  if (!m)
    g_error("%s", err.msg);
  return m;
}

static inline lw_desc *lwt_read(const char *name)
{
  g_autofree char *path = g_build_filename(LW_MODELS_DIR, name, NULL);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  return d;
}

static inline lw_model *lwt_compile(const lw_desc *d)
{
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  if (!m)
    g_error("%s: %s", err.path, err.msg);
  return m;
}

/* drop every initial condition (the description owns their strings) */
static inline void lwt_clear_initial(lw_desc *d)
{
  for (int i = 0; i < d->ninitial; i++)
    free(d->initial[i].joint);
  d->ninitial = 0;
}

/* column index (in lw_sim_result rows, time is column 0) of an output column label */
/* every objective's gradient with respect to every parameter of d by
 * method (fd_step: the differences' step; mem: the memory limit, 0 for
 * the default); the test fails with the error when the run does */
static inline lw_sens_result lwt_sens_all(const lw_desc *d, lw_sens_method method, double fd_step, size_t mem)
{
  g_autofree int *P = g_new(int, d->nparams + 1);
  g_autofree int *O = g_new(int, d->nobjectives + 1);
  for (int i = 0; i < d->nparams; i++)
    P[i] = i;
  for (int i = 0; i < d->nobjectives; i++)
    O[i] = i;
  lw_sens_options o = {.method = method, .nparams = d->nparams, .params = P, .nobj = d->nobjectives,
                       .objectives = O, .fd_step = fd_step, .memory_limit = mem};
  lw_sens_result r;
  if (lw_sensitivity(d, &o, &r))
    g_error("sensitivity of %s failed: %s", d->name, r.error.msg);
  return r;
}

static inline int lwt_col(const lw_model *m, const char *label)
{
  char b[256];
  for (int c = 0; c < lw_model_output_columns(m); c++) {
    lw_model_output_column_name(m, c, b, sizeof b);
    if (!g_strcmp0(b, label))
      return c + 1;
  }
  g_error("no output column %s", label);
  return -1;
}

static inline double lwt_at(const lw_sim_result *r, long row, int col)
{
  return r->table[(size_t)row * r->ncols + col];
}

/* The shipped four-bar with its rocker driven at 1 rad/s from where it
 * assembles, and the crank released: the rocker cannot turn past its extreme
 * position, so the run fails at a dead point (about t = 0.55 s). *rocker0
 * (may be NULL) receives the starting rocker angle. */
static inline lw_desc *lwt_dead_point_desc(double *rocker0)
{
  lw_desc *d = lwt_read("four-bar.json");
  lw_model *m0 = lwt_compile(d);
  lw_sim_result r0;
  if (lw_simulate(m0, 0.0, 1e-3, &r0, NULL, NULL) != LW_OK)
    g_error("four-bar does not assemble: %s", r0.error.msg);
  double a0 = lwt_at(&r0, 0, lwt_col(m0, "rocker_angle"));
  lw_sim_result_clear(&r0);
  lw_model_free(m0);
  lw_driver_desc *dr = lw_desc_add_driver(d, "rocker_motor", "D", 0);
  dr->func.type = LW_FUNC_LINEAR;
  dr->func.a[0] = a0;
  dr->func.a[1] = 1.0;
  lwt_clear_initial(d);
  if (rocker0)
    *rocker0 = a0;
  return d;
}

/* GUI tests: run the main loop for a while, or until cond holds (FALSE
 * when timeout_s passes first) */
static inline void lwt_spin(double seconds)
{
  gint64 end = g_get_monotonic_time() + (gint64)(seconds * 1e6);
  while (g_get_monotonic_time() < end) {
    g_main_context_iteration(NULL, FALSE);
    g_usleep(500);
  }
}

static inline gboolean lwt_wait_until(gboolean (*cond)(gpointer), gpointer data, double timeout_s)
{
  gint64 end = g_get_monotonic_time() + (gint64)(timeout_s * 1e6);
  while (!cond(data)) {
    if (g_get_monotonic_time() > end)
      return FALSE;
    g_main_context_iteration(NULL, FALSE);
    g_usleep(500);
  }
  return TRUE;
}

/* how long a GUI test waits for a state before it fails: generous, since
 * under AddressSanitizer and on a loaded machine everything is several
 * times slower (a wait for a state ends as soon as the state holds) */
#define LWT_WAIT 60.0

/* the main loop run until cond(data) holds; the test fails, naming the
 * condition, its argument and where it was waited for, when timeout_s
 * passes first */
#define lwt_await(cond, data, timeout_s) lwt_await_at((cond), (data), (timeout_s), #cond "(" #data ")", __FILE__, __LINE__, G_STRFUNC)

static inline void lwt_await_at(gboolean (*cond)(gpointer), gpointer data, double timeout_s, const char *what,
                                const char *file, int line, const char *func)
{
  if (lwt_wait_until(cond, data, timeout_s))
    return;
  g_autofree char *msg = g_strdup_printf("waited %g s in vain for %s", timeout_s, what);
  g_assertion_message(G_LOG_DOMAIN, file, line, func, msg);
}

#endif
