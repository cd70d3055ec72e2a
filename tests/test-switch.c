/* test-switch.c: switches of forces at events (seed 003 theorem 4, eqs.
 * 28 / 64: the equations of motion change where a point crosses a plane,
 * the velocity does not).  The falling mass of models/switch-fall.json
 * against the closed form of notes sec. 2.4 b, its sensitivities (forward =
 * adjoint, both against the closed form and against Richardson-extrapolated
 * central differences), a switch turned off again, a five-bar whose force
 * and spring are switched among ground impacts, and the file format. */
#include "lw-test.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "linkwright.h"
#include "lw_io.h"

/* ---- helpers ----------------------------------------------------------- */
static lw_sens_result sens_all(const lw_desc *d, lw_sens_method method, double fd_step)
{
  int p = d->nparams, no = d->nobjectives, params[16], objs[16];
  for (int j = 0; j < p; j++)
    params[j] = j;
  for (int o = 0; o < no; o++)
    objs[o] = o;
  lw_sens_options opt = {0};
  opt.method = method;
  opt.nparams = p;
  opt.params = params;
  opt.nobj = no;
  opt.objectives = objs;
  opt.threads = 1;
  opt.fd_step = fd_step;
  lw_sens_result r;
  lw_sensitivity(d, &opt, &r);
  if (r.status)
    g_error("%s: %s", lw_sens_method_name(method), r.error.msg);
  return r;
}

/* central differences of whole runs from the relative steps eps and eps/2,
 * Richardson-extrapolated; the runs' final times lie away from the events
 * (no switch appears or vanishes within the perturbation) */
static lw_sens_result fd_richardson(const lw_desc *d, double eps)
{
  lw_sens_result a = sens_all(d, LW_SENS_FD, eps), b = sens_all(d, LW_SENS_FD, 0.5 * eps);
  for (int k = 0; k < d->nparams * d->nobjectives; k++)
    b.gradient[k] = (4.0 * b.gradient[k] - a.gradient[k]) / 3.0;
  lw_sens_result_clear(&a);
  return b;
}

/* the largest difference of the gradients, relative to each objective's largest entry */
static double grad_diff(const lw_sens_result *f, const lw_sens_result *g)
{
  double worst = 0;
  for (int o = 0; o < f->nobj; o++) {
    double scale = 0;
    for (int j = 0; j < f->nparams; j++)
      scale = fmax(scale, fabs(f->gradient[(size_t)o * f->nparams + j]));
    for (int j = 0; j < f->nparams; j++) {
      size_t k = (size_t)o * f->nparams + j;
      worst = fmax(worst, fabs(f->gradient[k] - g->gradient[k]) / scale);
    }
  }
  return worst;
}

static lw_sim_result run(const lw_desc *d)
{
  lw_model *m = lwt_compile(d);
  lw_sim_result sr;
  lw_simulate(m, d->solver.t_end, d->solver.step, &sr, NULL, NULL);
  g_assert_cmpint(sr.status, ==, LW_OK);
  lw_model_free(m);
  return sr;
}

/* ---- the falling mass (notes sec. 2.4 b) -------------------------------- */
/* y'' = -g above y = 0, -g + c below; y(0) = h0 = 1, g = 9.81, c = 2 g, T = 1 */
static const double fall_te = 0.451523640986, fall_y = -0.953893836140, fall_yd = 0.951106163860;
/* d/dh0 and d/dc of y(T), dy/dt(T), t_e (complex step, notes sec. 2.4 b) */
static const double fall_dh[3] = {-1.429446918070, -4.429446918070, 0.2257618204929};
static const double fall_dc[3] = {0.1504131581988, 0.5484763590143, 0.0};

/* The run reproduces the notes' numbers (computed with RK4 at dt = 1e-3
 * and an exact event location) at the model's own step, 1 ms: the motion
 * is piecewise of constant acceleration, which the trapezoidal rule
 * integrates exactly, so only the event's root tolerance is left. */
static void test_fall_run(void)
{
  lw_desc *d = lwt_read("switch-fall.json");
  g_assert_cmpfloat(d->solver.step, ==, 1e-3);
  lw_sim_result sr = run(d);
  g_assert_cmpint(sr.nevents, ==, 1);
  g_assert_cmpint(sr.events[0].action, ==, LW_EVREC_SWITCH);
  g_assert_cmpint(sr.events[0].side, ==, -1); /* the force turned on */
  g_assert_cmpfloat(fabs(sr.events[0].t - fall_te), <, 1e-10);
  g_assert_cmpfloat(sr.events[0].v_pre, ==, sr.events[0].v_post);
  g_assert_cmpfloat(fabs(sr.events[0].v_pre + 9.81 * fall_te), <, 1e-9);
  /* the last row: t, centre.x, centre.y, speed.x, speed.y */
  const double *last = sr.table + (size_t)(sr.rows - 1) * sr.ncols;
  g_assert_cmpfloat(fabs(last[0] - 1.0), <, 1e-12);
  g_test_message("y(1) = %.12f (notes %.12f), dy/dt(1) = %.12f (notes %.12f), t_e = %.12f", last[2], fall_y, last[4],
                 fall_yd, sr.events[0].t);
  g_assert_cmpfloat(fabs(last[2] - fall_y), <, 1e-9);
  g_assert_cmpfloat(fabs(last[4] - fall_yd), <, 1e-9);
  lw_sim_result_clear(&sr);
  lw_desc_free(d);
}

/* Sensitivities across the switch with respect to the plane's height (it
 * enters as -h0: the drop height is 1 - offset, and y(T) moves with the
 * plane: dy/doffset = 1 - dy/dh0) and the lift c; the event time's
 * derivative from the forward; forward = adjoint to 1e-8 and both against
 * the closed form and central differences */
static void test_fall_sens(void)
{
  lw_desc *d = lwt_read("switch-fall.json");
  g_assert_cmpint(d->nparams, ==, 2);
  g_assert_cmpint(d->nobjectives, ==, 2);
  lw_sens_result f = sens_all(d, LW_SENS_FORWARD, 0), a = sens_all(d, LW_SENS_ADJOINT, 0);
  const double exact[2][2] = {{1.0 - fall_dh[0], fall_dc[0]}, {-fall_dh[1], fall_dc[1]}};
  for (int o = 0; o < 2; o++)
    for (int j = 0; j < 2; j++) {
      double gf = f.gradient[o * 2 + j], ga = a.gradient[o * 2 + j];
      g_test_message("objective %d parameter %d: forward %.13g adjoint %.13g closed form %.13g", o, j, gf, ga,
                     exact[o][j]);
      g_assert_cmpfloat(fabs(gf - ga), <=, 1e-8 * fabs(exact[o][j]));
      g_assert_cmpfloat(fabs(gf - exact[o][j]), <=, 1e-8 * fabs(exact[o][j]));
    }
  g_assert_cmpint(f.nevents, ==, 1);
  g_assert_nonnull(f.event_dt);
  g_assert_cmpfloat(fabs(f.event_dt[0] + fall_dh[2]), <, 1e-9);
  g_assert_cmpfloat(fabs(f.event_dt[1] - fall_dc[2]), <, 1e-12);
  lw_sens_result c = fd_richardson(d, 1e-4);
  double fc = grad_diff(&f, &c);
  g_test_message("central differences (Richardson) to %.3g", fc);
  g_assert_cmpfloat(fc, <, 1e-6);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&c);
  lw_desc_free(d);
}

/* To T = 2 the mass comes back up through the plane at t_e + 2 |v_e| / g
 * (the lift's net g decelerates and returns it) and the force turns off:
 * two switches, the motion after the second free flight again; y(2) in
 * closed form, and the derivatives through both switches */
static void test_fall_and_return(void)
{
  lw_desc *d = lwt_read("switch-fall.json");
  d->solver.t_end = 2.0;
  lw_sim_result sr = run(d);
  g_assert_cmpint(sr.nevents, ==, 2);
  double g = 9.81, te = sqrt(2.0 / g), ve = g * te, t2 = te + 2.0 * ve / g;
  g_assert_cmpfloat(fabs(sr.events[1].t - t2), <, 1e-10);
  g_assert_cmpint(sr.events[1].side, ==, 1); /* off again */
  double s = 2.0 - t2, y2 = ve * s - 0.5 * g * s * s, yd2 = ve - g * s;
  const double *last = sr.table + (size_t)(sr.rows - 1) * sr.ncols;
  g_assert_cmpfloat(fabs(last[2] - y2), <, 1e-9);
  g_assert_cmpfloat(fabs(last[4] - yd2), <, 1e-9);
  lw_sim_result_clear(&sr);
  /* d/dc: the time below the plane is 2 ve / (c - g), so
   * d t2/dc = -2 ve / (c - g)^2; after it y = ve s - g s^2 / 2 with s = 2 - t2 */
  double dt2 = -2.0 * ve / (g * g), dy = (ve - g * s) * -dt2, dyd = g * dt2;
  lw_sens_result f = sens_all(d, LW_SENS_FORWARD, 0), a = sens_all(d, LW_SENS_ADJOINT, 0);
  g_test_message("d/dc: y %.12g (closed form %.12g), dy/dt %.12g (%.12g), second switch's dt %.12g (%.12g)",
                 f.gradient[1], dy, f.gradient[3], dyd, f.event_dt[3], dt2);
  g_assert_cmpfloat(fabs(f.gradient[1] - dy), <, 1e-8 * fabs(dy));
  g_assert_cmpfloat(fabs(f.gradient[3] - dyd), <, 1e-8 * fabs(dyd));
  g_assert_cmpfloat(fabs(f.event_dt[3] - dt2), <, 1e-9);
  for (int k = 0; k < 4; k++)
    g_assert_cmpfloat(fabs(f.gradient[k] - a.gradient[k]), <=, 1e-8 * fmax(1.0, fabs(f.gradient[k])));
  lw_sens_result c = fd_richardson(d, 1e-4);
  g_assert_cmpfloat(grad_diff(&f, &c), <, 1e-6);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&c);
  lw_desc_free(d);
}

/* ---- a mechanism ------------------------------------------------------- */
/* The five-bar with ground impacts and two switches (a force on point 2
 * below y = -2.2, spring 2 only below y = -2.05, off at the start): the
 * switches' plane height and the force as parameters besides the springs'
 * rest lengths, a mass, a centre of mass and a length; forward = adjoint to
 * 1e-8, both against central differences */
static void test_five_bar(void)
{
  g_autofree char *path = g_build_filename(LW_SOURCE_ROOT, "tests", "data", "five-bar-switch.json", NULL);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  g_assert_nonnull(d);
  d->solver.tolerance = 1e-13; /* the differences divide the runs' noise by eps */
  lw_sim_result sr = run(d);
  int nsw = 0, nimp = 0;
  for (long k = 0; k < sr.nevents; k++) {
    nsw += sr.events[k].action == LW_EVREC_SWITCH;
    nimp += sr.events[k].action == LW_EVREC_IMPACT;
  }
  g_test_message("%d switches, %d impacts", nsw, nimp);
  g_assert_cmpint(nsw, >=, 30);
  g_assert_cmpint(nimp, >=, 8);
  g_assert_cmpfloat(sr.max_constraint_residual, <, 1e-8);
  lw_sim_result_clear(&sr);
  lw_sens_result f = sens_all(d, LW_SENS_FORWARD, 0), a = sens_all(d, LW_SENS_ADJOINT, 0);
  double fa = grad_diff(&f, &a);
  lw_sens_result c = fd_richardson(d, 2e-4);
  double fc = grad_diff(&f, &c);
  g_test_message("forward = adjoint to %.3g, central differences (Richardson) to %.3g", fa, fc);
  g_assert_cmpfloat(fa, <, 1e-8);
  g_assert_cmpfloat(fc, <, 2e-5);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&c);
  lw_desc_free(d);
}

/* ---- capture (notes sec. 2.4 c) ------------------------------------------- */
static lw_desc *read_data(const char *name)
{
  g_autofree char *path = g_build_filename(LW_SOURCE_ROOT, "tests", "data", name, NULL);
  lw_error err;
  lw_desc *d = lw_model_read_file(path, NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  return d;
}

/* The mass thrown at the circle is caught at the root of |q(t)| = R of
 * the free fall (q = (0.3 + 0.5 t, 2 - g t^2 / 2)), plastically (no radial
 * velocity after it), and then moves on the circle: its final state
 * against the notes' (RK4 at dt = 1e-3 on the index-1 DAE) to 1e-6, at the
 * file's step of 5e-5 s (the trapezoidal rule's error on the swing,
 * second order, is 1.2e-6 m/s at 1e-4 s and 2.8e-7 at 5e-5 s) */
static void test_capture_run(void)
{
  lw_desc *d = read_data("capture.json");
  lw_sim_result sr = run(d);
  g_assert_cmpint(sr.nevents, ==, 1);
  g_assert_cmpint(sr.events[0].action, ==, LW_EVREC_CAPTURE);
  double tc = 0.4863881827308409; /* bisection of (0.3 + 0.5 t)^2 + (2 - 4.905 t^2)^2 = 1 */
  g_assert_cmpfloat(fabs(sr.events[0].t - tc), <, 2e-9);
  g_assert_cmpfloat(sr.events[0].v_pre, <, -3.0);
  g_assert_cmpfloat(fabs(sr.events[0].v_post), <, 1e-9);
  /* the last row: t, p (3), v (3), N */
  const double *last = sr.table + (size_t)(sr.rows - 1) * sr.ncols;
  const double notes[4] = {-0.0189550039, -0.9998203377, -6.7188762804, 0.1273792115};
  const double got[4] = {last[1], last[2], last[4], last[5]};
  double worst = 0;
  for (int i = 0; i < 4; i++)
    worst = fmax(worst, fabs(got[i] - notes[i]));
  g_test_message("q(1) = (%.10f, %.10f), v(1) = (%.10f, %.10f): %.2g from the notes", got[0], got[1], got[2], got[3],
                 worst);
  g_assert_cmpfloat(worst, <, 1e-6);
  /* on the circle from the capture on, held by a pull m (v^2 / R + g n.(-y)) */
  for (long r = 0; r < sr.rows; r++) {
    const double *row = sr.table + (size_t)r * sr.ncols;
    if (row[0] <= sr.events[0].t)
      continue;
    g_assert_cmpfloat(fabs(hypot(row[1], row[2]) - 1.0), <, 1e-9);
  }
  double v2 = got[2] * got[2] + got[3] * got[3], nz = -got[1];
  g_assert_cmpfloat(fabs(last[7] + (v2 + 9.81 * nz)), <, 1e-3 * v2);
  lw_sim_result_clear(&sr);
  lw_desc_free(d);
}

/* The capture's constraint is not differentiated: sensitivities are refused
 * up front with the event named; a mass that starts inside the circle is
 * refused too */
static void test_capture_refused(void)
{
  lw_desc *d = read_data("capture.json");
  lw_param_desc *p = lw_desc_add_param(d, "x0", "initial/plane/value");
  p->value = 0.3;
  lw_objective_desc *o = lw_desc_add_objective(d, "y");
  lw_term_desc *t = lw_objective_add_term(o, "p");
  t->kind = LW_TERM_FINAL;
  t->form = LW_TERM_VALUE;
  t->component = 1;
  t->weight = 1.0;
  int params[1] = {0}, objs[1] = {0};
  lw_sens_options opt = {.method = LW_SENS_ADJOINT, .nparams = 1, .params = params, .nobj = 1, .objectives = objs};
  lw_sens_result r;
  lw_sensitivity(d, &opt, &r);
  g_assert_cmpint(r.status, ==, LW_ERR_MODEL);
  g_assert_cmpstr(r.error.path, ==, "events/circle");
  g_assert_nonnull(strstr(r.error.msg, "capture"));
  lw_sens_result_clear(&r);
  d->events[0].radius = 3.0;
  lw_model *m = lwt_compile(d);
  lw_sim_result sr;
  lw_simulate(m, 0.1, 1e-3, &sr, NULL, NULL);
  g_assert_cmpint(sr.status, !=, LW_OK);
  g_assert_nonnull(strstr(sr.error.msg, "inside the circle"));
  lw_sim_result_clear(&sr);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- Newton's cradle (models/newtons-cradle.json) -------------------------- */
/* Five touching balls on strings, the first let go from 0.6 rad: each
 * strike on the row is a chain of impacts at one instant (impacts at
 * persistent contact, one after another), which with e = 1 and equal balls
 * hands the whole velocity to the ball at the far end.  Across every
 * instant of impacts the momentum along the row (the balls hang straight
 * down then: the strings take no horizontal impulse) and the energy are
 * kept; the balls between stay at rest. */
static void test_cradle(void)
{
  lw_desc *d = lwt_read("newtons-cradle.json");
  lw_sim_result sr = run(d);
  int nb = 5;
  g_assert_cmpint(sr.ncols, ==, 1 + 2 * nb + 1);
  g_assert_cmpint(sr.nevents, >=, 16);
  int chains = 0;
  for (long r = 0; r + 1 < sr.rows; r++) {
    const double *a = sr.table + (size_t)r * sr.ncols;
    if (r > 0 && a[-sr.ncols] == a[0])
      continue; /* not the first row at its time */
    long e = r;
    while (e + 1 < sr.rows && sr.table[(size_t)(e + 1) * sr.ncols] == a[0])
      e++;
    if (e == r)
      continue;
    const double *b = sr.table + (size_t)e * sr.ncols;
    /* 2 rows an impact: the chain along the four gaps */
    g_assert_cmpint(e - r + 1, ==, 2 * (nb - 1));
    double pa = 0, pb = 0, vmax = 0;
    for (int i = 0; i < nb; i++) {
      pa += a[1 + 2 * i];
      pb += b[1 + 2 * i];
      vmax = fmax(vmax, fabs(a[1 + 2 * i]));
    }
    g_assert_cmpfloat(fabs(pb - pa), <, 1e-12 * vmax);
    g_assert_cmpfloat(fabs(b[1 + 2 * nb] - a[1 + 2 * nb]), <, 1e-12 * a[1 + 2 * nb]);
    /* the moving end ball stops, the far one leaves with its velocity, the rest stay */
    int from = fabs(a[1]) > fabs(a[1 + 2 * (nb - 1)]) ? 0 : nb - 1, to = nb - 1 - from;
    g_assert_cmpfloat(fabs(b[1 + 2 * to] - a[1 + 2 * from]), <, 1e-10 * vmax);
    for (int i = 0; i < nb; i++)
      if (i != to)
        g_assert_cmpfloat(fabs(b[1 + 2 * i]), <, 1e-10 * vmax);
    chains++;
  }
  g_test_message("%ld impacts in %d chains", sr.nevents, chains);
  g_assert_cmpint(chains, ==, sr.nevents / (nb - 1));
  /* the energy over the whole run: the integrator's drift alone */
  double e0 = sr.table[2 * nb + 1], e1 = sr.table[(size_t)(sr.rows - 1) * sr.ncols + 2 * nb + 1];
  g_assert_cmpfloat(fabs(e1 - e0), <, 1e-6 * e0);
  lw_sim_result_clear(&sr);
  lw_desc_free(d);
}

/* ---- the CLI: which method gives the event times' derivatives ------------- */
static char *cli_json(const char *method)
{
  g_autofree char *model = g_build_filename(LW_MODELS_DIR, "switch-fall.json", NULL);
  const char *argv[] = {LW_CLI, "sensitivity", model, "--objective", "y_end", "--method", method, "--json", NULL};
  char *out = NULL;
  int status = 0;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status,
                             NULL));
  g_assert_cmpint(status, ==, 0);
  return out;
}

/* the forward's events carry dt_dparam; the adjoint's say where to get them */
static void test_cli_event_dt(void)
{
  g_autofree char *f = cli_json("forward"), *a = cli_json("adjoint");
  g_assert_nonnull(strstr(f, "\"action\": \"switch\""));
  g_assert_nonnull(strstr(f, "\"dt_dparam\""));
  g_assert_null(strstr(f, "events_note"));
  g_assert_null(strstr(a, "\"dt_dparam\""));
  g_assert_nonnull(strstr(a, "\"events_note\""));
  g_assert_nonnull(strstr(a, "--method forward"));
}

/* ---- the format ---------------------------------------------------------- */
static lw_desc *read_text(const char *json, lw_error *err)
{
  g_autofree char *path = g_build_filename(g_get_tmp_dir(), "lw-test-switch.json", NULL);
  g_assert_true(g_file_set_contents(path, json, -1, NULL));
  lw_desc *d = lw_model_read_file(path, NULL, err);
  g_unlink(path);
  return d;
}

/* the switch written and read back is the same switch */
static void test_format_round_trip(void)
{
  lw_desc *d = lwt_read("switch-fall.json");
  g_autofree char *path = g_build_filename(g_get_tmp_dir(), "lw-test-switch-rt.json", NULL);
  lw_error err;
  g_assert_true(lw_model_write_file(d, path, NULL));
  lw_desc *e = lw_model_read_file(path, NULL, &err);
  g_unlink(path);
  g_assert_nonnull(e);
  g_assert_cmpint(e->nevents, ==, 1);
  g_assert_cmpint(e->events[0].type, ==, LW_EVENT_SWITCH);
  g_assert_cmpstr(e->events[0].force, ==, "lift");
  g_assert_cmpstr(e->events[0].body, ==, "mass");
  g_assert_cmpfloat(e->events[0].normal[1], ==, 1.0);
  lw_sim_result a = run(d), b = run(e);
  g_assert_cmpfloat(a.events[0].t, ==, b.events[0].t);
  lw_sim_result_clear(&a);
  lw_sim_result_clear(&b);
  lw_desc_free(e);
  lw_desc_free(d);
}

#define HEAD                                                                                                   \
  "{\"linkwright\": 1, \"planar\": true, \"gravity\": [0, -9.81],"                                               \
  "\"bodies\": [{\"name\": \"m\", \"type\": \"point\", \"mass\": 1, \"position\": [0, 1]}],"                      \
  "\"forces\": [{\"name\": \"lift\", \"type\": \"force\", \"body\": \"m\", \"point\": [0, 0], \"vector\": [0, 20]}],"

/* bad switches are refused with the field named */
static void test_format_errors(void)
{
  lw_error err;
  lw_desc *d = read_text(HEAD "\"events\": [{\"name\": \"s\", \"type\": \"switch\", \"body\": \"m\", \"point\": [0, "
                              "0], \"force\": \"lift\", \"restitution\": 0.5}]}",
                         &err);
  g_assert_null(d);
  g_assert_nonnull(strstr(err.msg, "restitution"));
  g_assert_nonnull(strstr(err.msg, "switch"));
  d = read_text(HEAD "\"events\": [{\"name\": \"s\", \"type\": \"switch\", \"body\": \"m\", \"point\": [0, 0]}]}",
                &err);
  g_assert_null(d);
  g_assert_nonnull(strstr(err.msg, "force"));
  d = read_text(HEAD "\"events\": [{\"name\": \"s\", \"type\": \"switch\", \"body\": \"m\", \"point\": [0, 0], "
                     "\"force\": \"nothing\"}]}",
                &err);
  g_assert_nonnull(d);
  lw_model *m = lw_compile(d, &err);
  g_assert_null(m);
  g_assert_cmpstr(err.path, ==, "events/s/force");
  g_assert_nonnull(strstr(err.msg, "'nothing' does not exist"));
  lw_desc_free(d);
  d = read_text(HEAD "\"events\": [{\"name\": \"s\", \"type\": \"switch\", \"body\": \"m\", \"point\": [0, 0], "
                     "\"force\": \"lift\"}, {\"name\": \"t\", \"type\": \"switch\", \"body\": \"m\", \"point\": [0, 0], "
                     "\"offset\": -1, \"force\": \"lift\"}]}",
                &err);
  g_assert_nonnull(d);
  m = lw_compile(d, &err);
  g_assert_null(m);
  g_assert_cmpstr(err.path, ==, "events/t/force");
  g_assert_nonnull(strstr(err.msg, "switched by 's' already"));
  lw_desc_free(d);
}

/* A switch whose point starts on the negative side has its force on from
 * the start: the mass starts below the plane and rises under c - g */
static void test_starts_inside(void)
{
  lw_error err;
  lw_desc *d = read_text(HEAD "\"solver\": {\"t_end\": 0.3, \"step\": 0.001},"
                              "\"events\": [{\"name\": \"s\", \"type\": \"switch\", \"body\": \"m\", \"point\": [0, "
                              "0], \"offset\": 2, \"force\": \"lift\"}],"
                              "\"outputs\": [{\"name\": \"p\", \"type\": \"position\", \"body\": \"m\", \"point\": [0, 0]}]}",
                         &err);
  g_assert_nonnull(d);
  lw_sim_result sr = run(d);
  g_assert_cmpint(sr.nevents, ==, 0);
  const double *last = sr.table + (size_t)(sr.rows - 1) * sr.ncols;
  double a = 20.0 - 9.81;
  g_assert_cmpfloat(fabs(last[2] - (1.0 + 0.5 * a * 0.09)), <, 1e-10);
  lw_sim_result_clear(&sr);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/switch/fall/run", test_fall_run);
  g_test_add_func("/switch/fall/sensitivities", test_fall_sens);
  g_test_add_func("/switch/fall/return", test_fall_and_return);
  g_test_add_func("/switch/five-bar", test_five_bar);
  g_test_add_func("/switch/capture/run", test_capture_run);
  g_test_add_func("/switch/capture/refused", test_capture_refused);
  g_test_add_func("/switch/cradle", test_cradle);
  g_test_add_func("/switch/cli/event-dt", test_cli_event_dt);
  g_test_add_func("/switch/format/round-trip", test_format_round_trip);
  g_test_add_func("/switch/format/errors", test_format_errors);
  g_test_add_func("/switch/starts-inside", test_starts_inside);
  return g_test_run();
}
