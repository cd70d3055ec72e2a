/* Dynamics of the shipped models: constraints, convergence order,
 * energy, analytic period, published reference solutions. */
#include "lw-test.h"
#include "lw_internal.h"
#include "dyn/lw_rows.h"
#include "la/lw_matrix.h"

#include <stdio.h>
#include <string.h>

/* five-bar, 5 s at h = 1 ms: every step closes the loop to 1e-10 */
static void test_fivebar_constraints(void)
{
  lw_model *m = lwt_open("five-bar.json");
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  g_assert_cmpint(lw_data_dof(d), ==, 2);
  double worst = lw_constraint_residual(m, d), worst_v = 0;
  int maxit = 0;
  for (int k = 0; k < 5000; k++) {
    lw_step_info info;
    g_assert_cmpint(lw_step(m, d, &info, &err), ==, LW_OK);
    /* measured independently of the step's own report */
    double r = lw_constraint_residual(m, d);
    worst = fmax(worst, r);
    worst_v = fmax(worst_v, info.velocity_residual);
    maxit = MAX(maxit, info.iterations);
  }
  g_assert_cmpfloat(fabs(lw_data_time(d) - 5.0), <, 1e-12);
  g_test_message("five-bar: max |Phi| = %.3g, max |Phi_q qdot| = %.3g, max Newton iterations %d", worst,
                 worst_v, maxit);
  g_assert_cmpfloat(worst, <=, 1e-10);
  g_assert_cmpfloat(worst_v, <=, 1e-8);
  lw_data_free(d);
  lw_model_free(m);
}

static void r2_at(const lw_model *m, double h, double t_end, double r[2])
{
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, t_end, h, &res, NULL, NULL), ==, LW_OK);
  int cx = lwt_col(m, "r2.x"), cy = lwt_col(m, "r2.y");
  r[0] = lwt_at(&res, res.rows - 1, cx);
  r[1] = lwt_at(&res, res.rows - 1, cy);
  g_assert_cmpfloat(fabs(lwt_at(&res, res.rows - 1, 0) - t_end), <, 1e-12);
  lw_sim_result_clear(&res);
}

/* second order: differences between successive halvings shrink 4x */
static void test_fivebar_order(void)
{
  lw_model *m = lwt_open("five-bar.json");
  double hs[4] = {4e-3, 2e-3, 1e-3, 5e-4}, r[4][2];
  for (int i = 0; i < 4; i++)
    r2_at(m, hs[i], 2.0, r[i]);
  double e[3];
  for (int i = 0; i < 3; i++)
    e[i] = hypot(r[i][0] - r[i + 1][0], r[i][1] - r[i + 1][1]);
  for (int i = 0; i < 2; i++) {
    double order = log2(e[i] / e[i + 1]);
    g_test_message("h = %g -> %g: |dr2| = %.3e, %.3e, observed order %.3f", hs[i], hs[i + 1], e[i],
                   e[i + 1], order);
    g_assert_cmpfloat(order, >, 1.9);
    g_assert_cmpfloat(order, <, 2.1);
  }
  lw_model_free(m);
}

/* energy drift of a conservative model (total_energy output) and the largest
 * kinetic energy, the scale of the energy the model exchanges */
static double energy_drift(const char *model, double t_end, double h, double *ke_max)
{
  lw_model *m = lwt_open(model);
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, t_end, h, &res, NULL, NULL), ==, LW_OK);
  int ce = lwt_col(m, "energy");
  lw_desc *d = lw_desc_copy(lw_model_desc(m));
  double e0 = lwt_at(&res, 0, ce), drift = 0;
  for (long i = 0; i < res.rows; i++)
    drift = fmax(drift, fabs(lwt_at(&res, i, ce) - e0));
  /* kinetic energy = total - potential: recompute from a kinetic output */
  lw_output_desc *o = lw_desc_add_output(d, "lwt_kinetic", LW_OUT_KINETIC_ENERGY);
  (void)o;
  lw_model *mk = lwt_compile(d);
  lw_sim_result rk;
  g_assert_cmpint(lw_simulate(mk, t_end, h, &rk, NULL, NULL), ==, LW_OK);
  int ck = lwt_col(mk, "lwt_kinetic");
  *ke_max = 0;
  for (long i = 0; i < rk.rows; i++)
    *ke_max = fmax(*ke_max, lwt_at(&rk, i, ck));
  g_test_message("%s: %g s at h = %g: energy %.9g J, max drift %.3e J, max kinetic energy %.4g J", model,
                 t_end, h, e0, drift, *ke_max);
  lw_sim_result_clear(&rk);
  lw_sim_result_clear(&res);
  lw_model_free(mk);
  lw_model_free(m);
  lw_desc_free(d);
  return drift;
}

/* bounded: below 1e-3 of the energy exchanged; and an integrator error:
 * it falls with the square of the step */
static void energy_check(const char *model, double t_end)
{
  double ke, ke2;
  double e1 = energy_drift(model, t_end, 1e-3, &ke);
  double e2 = energy_drift(model, t_end, 5e-4, &ke2);
  g_test_message("%s: drift ratio h / (h/2) = %.2f", model, e1 / e2);
  g_assert_cmpfloat(e1, <, 1e-3 * ke);
  g_assert_cmpfloat(e1 / e2, >, 3.0);
}

static void test_energy_pendulum(void) { energy_check("pendulum.json", 10.0); }
static void test_energy_double_pendulum(void) { energy_check("double-pendulum.json", 3.0); }
static void test_energy_fivebar(void) { energy_check("five-bar.json", 5.0); }

/* small-angle period of the pendulum: 2 pi sqrt(J_O / (m g c)) */
static void test_pendulum_period(void)
{
  lw_desc *d = lwt_read("pendulum.json");
  double amp = 1e-3;
  d->initial[0].value = -M_PI / 2 + amp;
  lw_model *m = lwt_compile(d);
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, 12.0, 1e-3, &res, NULL, NULL), ==, LW_OK);
  int ca = lwt_col(m, "angle");
  /* upward zero crossings of angle + pi/2, located by linear interpolation */
  double cross[16];
  int n = 0;
  for (long i = 1; i < res.rows && n < 16; i++) {
    double a0 = lwt_at(&res, i - 1, ca) + M_PI / 2, a1 = lwt_at(&res, i, ca) + M_PI / 2;
    if (a0 < 0 && a1 >= 0) {
      double t0 = lwt_at(&res, i - 1, 0), t1 = lwt_at(&res, i, 0);
      cross[n++] = t0 + (t1 - t0) * (-a0) / (a1 - a0);
    }
  }
  g_assert_cmpint(n, >=, 3);
  double T = (cross[n - 1] - cross[0]) / (n - 1);
  const lw_body_desc *b = &lw_model_desc(m)->bodies[0];
  double c = b->com[0], J = b->inertia[2] + b->mass * c * c;
  double T0 = 2 * M_PI * sqrt(J / (b->mass * 9.81 * c));
  g_test_message("pendulum period %.9f s, analytic %.9f s, relative error %.2e", T, T0, fabs(T - T0) / T0);
  /* trapezoidal period error (omega h)^2/12 ~ 8e-7 at h = 1 ms */
  g_assert_cmpfloat(fabs(T - T0) / T0, <, 5e-6);
  lw_sim_result_clear(&res);
  lw_model_free(m);
  lw_desc_free(d);
}

/* read "t,x,y" rows of an IFToMM reference file */
static int read_ref(const char *file, double *t, double *x, double *y, int max)
{
  g_autofree char *path = g_build_filename(LW_IFTOMM_DIR, file, NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return -1;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  int n = 0;
  for (int i = 0; lines[i] && n < max; i++) {
    if (!g_ascii_isdigit(lines[i][0]) && lines[i][0] != '-')
      continue;
    g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
    if (!f[0] || !f[1])
      continue;
    t[n] = g_ascii_strtod(f[0], NULL);
    x[n] = g_ascii_strtod(f[1], NULL);
    y[n] = f[2] ? g_ascii_strtod(f[2], NULL) : 0;
    n++;
  }
  return n;
}

/* IFToMM spatial slider-crank: slider x against the published solution */
static void test_iftomm_slider_crank(void)
{
  static double t[600], x[600], y[600];
  int n = read_ref("slidercrank3d_gonzalez_reference.csv", t, x, y, 600);
  if (n < 0) {
    g_test_skip("reference data not found");
    return;
  }
  lw_model *m = lwt_open("slider-crank-iftomm.json");
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, 5.0, 1e-3, &res, NULL, NULL), ==, LW_OK);
  int cx = lwt_col(m, "slider_x");
  double worst = 0;
  for (int k = 0; k < n; k++) {
    long row = lround(t[k] / 1e-3);
    g_assert_cmpfloat(fabs(lwt_at(&res, row, 0) - t[k]), <, 1e-9);
    worst = fmax(worst, fabs(0.2 + lwt_at(&res, row, cx) - x[k]));
  }
  g_test_message("slider-crank: %d reference points, max |x - x_ref| = %.3e m", n, worst);
  g_assert_cmpfloat(worst, <, 1e-4);
  lw_sim_result_clear(&res);
  lw_model_free(m);
}

/* IFToMM A01 pendulum, first 20 s of the published solution */
static void test_iftomm_pendulum(void)
{
  static double t[5000], x[5000], y[5000];
  int n = read_ref("A01_pendulum_reference.csv", t, x, y, 41);
  if (n < 0) {
    g_test_skip("reference data not found");
    return;
  }
  lw_model *m = lwt_open("pendulum.json");
  lw_sim_result res;
  double h = 2.5e-4;
  g_assert_cmpint(lw_simulate(m, 20.0, h, &res, NULL, NULL), ==, LW_OK);
  int cx = lwt_col(m, "P1.x"), cy = lwt_col(m, "P1.y");
  double worst = 0;
  for (int k = 0; k < n; k++) {
    long row = lround(t[k] / h);
    worst = fmax(worst, hypot(lwt_at(&res, row, cx) - x[k], lwt_at(&res, row, cy) - y[k]));
  }
  g_test_message("A01 pendulum: %d reference points to 20 s, max position error %.3e m", n, worst);
  /* the reference is printed to 6 significant digits; our truncation error
   * at this step is O(1e-5) m */
  g_assert_cmpfloat(worst, <, 5e-5);
  lw_sim_result_clear(&res);
  lw_model_free(m);
}

/* every shipped model runs to its end */
static void test_all_models_run(void)
{
  for (size_t i = 0; i < G_N_ELEMENTS(lwt_models); i++) {
    lw_model *m = lwt_open(lwt_models[i]);
    lw_sim_result res;
    const lw_desc *d = lw_model_desc(m);
    int st = lw_simulate(m, d->solver.t_end, d->solver.step, &res, NULL, NULL);
    g_test_message("%s: status %d, %ld steps, max |Phi| %.2e, %.3g s", lwt_models[i], st, res.steps,
                   res.max_constraint_residual, res.wall_time_s);
    g_assert_cmpint(st, ==, LW_OK);
    g_assert_cmpfloat(res.max_constraint_residual, <=, 1e-10);
    lw_sim_result_clear(&res);
    lw_model_free(m);
  }
}


/* ---- controllers ------------------------------------------------------------
 * A wheel (I = 0.5 kg m^2 about its hub, no gravity) turned by a controller
 * on its hub angle: the closed loop is a linear ODE with a closed form. */
static lw_desc *wheel_desc(const char *controller, double h)
{
  g_autofree char *json = g_strdup_printf(
      "{\"linkwright\": 1, \"name\": \"wheel\", \"planar\": true, \"gravity\": [0, 0],"
      " \"solver\": {\"t_end\": 3, \"step\": %.17g},"
      " \"bodies\": [{\"name\": \"wheel\", \"mass\": 1, \"com\": [0, 0], \"inertia\": 0.5,"
      "   \"position\": [0, 0], \"angle\": 0}],"
      " \"joints\": [{\"name\": \"hub\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"wheel\","
      "   \"at\": [0, 0]}],"
      " \"forces\": [%s],"
      " \"initial\": [{\"joint\": \"hub\", \"value\": 0, \"velocity\": 0}],"
      " \"outputs\": [{\"name\": \"th\", \"type\": \"joint_coordinate\", \"joint\": \"hub\"},"
      "   {\"name\": \"w\", \"type\": \"joint_velocity\", \"joint\": \"hub\"},"
      "   {\"name\": \"u\", \"type\": \"control\", \"force\": \"c\"}]}",
      h, controller);
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "wheel.json", NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  return d;
}

static lw_sim_result wheel_run(const char *controller, double h)
{
  lw_desc *d = wheel_desc(controller, h);
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  g_assert_cmpint(lw_simulate(m, 3.0, h, &r, NULL, NULL), ==, LW_OK);
  lw_model_free(m);
  lw_desc_free(d);
  return r;
}

static const char *pd_ctl = "{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"kp\": 20, \"kd\": 3,"
                            " \"target\": {\"type\": \"constant\", \"value\": 1}}";

/* 0.5 th'' + 3 th' + 20 th = 20: th = 1 - exp(-3t) (cos wd t + 3/wd sin wd t),
 * wd = sqrt(31); the error falls as h^2 (trapezoidal rule) and the output
 * u is -20 (th - 1) - 3 th' at every stored state */
static void test_control_pd(void)
{
  double err[2];
  for (int k = 0; k < 2; k++) {
    double h = k ? 5e-4 : 1e-3;
    lw_sim_result r = wheel_run(pd_ctl, h);
    double wd = sqrt(31.0), e = 0, eu = 0;
    for (long i = 0; i < r.rows; i++) {
      double t = lwt_at(&r, i, 0), th = lwt_at(&r, i, 1), w = lwt_at(&r, i, 2), u = lwt_at(&r, i, 3);
      double ex = 1.0 - exp(-3.0 * t) * (cos(wd * t) + 3.0 / wd * sin(wd * t));
      e = fmax(e, fabs(th - ex));
      eu = fmax(eu, fabs(u - (-20.0 * (th - 1.0) - 3.0 * w)));
    }
    g_assert_cmpfloat(eu, <=, 1e-12);
    err[k] = e;
    lw_sim_result_clear(&r);
  }
  g_test_message("PD wheel: largest angle error %.3e (h = 1 ms), %.3e (h = 0.5 ms), ratio %.3f", err[0], err[1],
                 err[0] / err[1]);
  g_assert_cmpfloat(err[0], <, 1e-4);
  g_assert_cmpfloat(err[0] / err[1], >, 3.5);
  g_assert_cmpfloat(err[0] / err[1], <, 4.5);
}

/* speed control: 0.5 w' = -2 (w + 10): w = -10 (1 - exp(-4 t)) */
static void test_control_rate(void)
{
  double err[2];
  for (int k = 0; k < 2; k++) {
    double h = k ? 5e-4 : 1e-3;
    lw_sim_result r = wheel_run("{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"measure\": \"rate\","
                                " \"kp\": 2, \"target\": {\"type\": \"constant\", \"value\": -10}}",
                                h);
    double e = 0, eu = 0;
    for (long i = 0; i < r.rows; i++) {
      double t = lwt_at(&r, i, 0), w = lwt_at(&r, i, 2), u = lwt_at(&r, i, 3);
      e = fmax(e, fabs(w - (-10.0 * (1.0 - exp(-4.0 * t)))));
      eu = fmax(eu, fabs(u + 2.0 * (w + 10.0)));
    }
    g_assert_cmpfloat(eu, <=, 1e-11);
    err[k] = e;
    lw_sim_result_clear(&r);
  }
  g_test_message("speed-controlled wheel: largest speed error %.3e (h = 1 ms), %.3e (h = 0.5 ms), ratio %.3f",
                 err[0], err[1], err[0] / err[1]);
  g_assert_cmpfloat(err[0], <, 1e-4);
  g_assert_cmpfloat(err[0] / err[1], >, 3.5);
  g_assert_cmpfloat(err[0] / err[1], <, 4.5);
}

/* integral action against a load torque of -3 N m.
 * Speed PI (kp 2, ki 8, target -10): e = w + 10 obeys 0.5 e' = -2 e - 8 z - 3,
 * z' = e, so e'' + 4 e' + 16 e = 0 with e(0) = 10, e'(0) = -46:
 * e = exp(-2t) (10 cos bt - 26/b sin bt), b = sqrt(12), and u = -2 e - 8 z =
 * 0.5 e' + 3.  Without the integral the speed would settle 1.5 rad/s off. */
static void test_control_pi_rate(void)
{
  double err[2], erru[2];
  for (int k = 0; k < 2; k++) {
    double h = k ? 5e-4 : 1e-3;
    lw_sim_result r = wheel_run("{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"measure\": \"rate\","
                                " \"kp\": 2, \"ki\": 8, \"target\": {\"type\": \"constant\", \"value\": -10}},"
                                " {\"name\": \"load\", \"type\": \"torque\", \"body\": \"wheel\", \"value\": -3}",
                                h);
    double b = sqrt(12.0), e = 0, eu = 0;
    for (long i = 0; i < r.rows; i++) {
      double t = lwt_at(&r, i, 0), w = lwt_at(&r, i, 2), u = lwt_at(&r, i, 3);
      double x = exp(-2.0 * t), ex = x * (10.0 * cos(b * t) - 26.0 / b * sin(b * t));
      double exd = -2.0 * ex + x * (-10.0 * b * sin(b * t) - 26.0 * cos(b * t));
      e = fmax(e, fabs(w + 10.0 - ex));
      eu = fmax(eu, fabs(u - (0.5 * exd + 3.0)));
    }
    double wend = lwt_at(&r, r.rows - 1, 2);
    g_assert_cmpfloat(fabs(wend + 10.0), <, 0.05);
    err[k] = e;
    erru[k] = eu;
    lw_sim_result_clear(&r);
  }
  g_test_message("speed PI wheel under load: largest speed error %.3e (h = 1 ms), %.3e (h = 0.5 ms), ratio %.3f; "
                 "control %.3e, %.3e, ratio %.3f",
                 err[0], err[1], err[0] / err[1], erru[0], erru[1], erru[0] / erru[1]);
  g_assert_cmpfloat(err[0], <, 1e-3);
  g_assert_cmpfloat(err[0] / err[1], >, 3.5);
  g_assert_cmpfloat(err[0] / err[1], <, 4.5);
  g_assert_cmpfloat(erru[0], <, 1e-2);
  g_assert_cmpfloat(erru[0] / erru[1], >, 3.5);
  g_assert_cmpfloat(erru[0] / erru[1], <, 4.5);
}

/* position PID (kp 20, kd 3, ki 40, target 1) under the same load:
 * 0.5 th'' = -20 (th - 1) - 3 th' - 40 z - 3, z' = th - 1, against a
 * fourth-order Runge-Kutta solution at 1/20 of the step; the angle reaches
 * the target (a PD would stop 0.15 rad short) */
static void rk4_pid(double h, long n, double *th_out)
{
  double y[3] = {0, 0, 0}; /* th, w, z */
  int sub = 20;
  double hr = h / sub;
  th_out[0] = 0;
  for (long i = 1; i <= n; i++) {
    for (int s = 0; s < sub; s++) {
      double k[4][3], yt[3];
      for (int st = 0; st < 4; st++) {
        double c = st == 0 ? 0 : st == 3 ? 1 : 0.5;
        for (int l = 0; l < 3; l++)
          yt[l] = y[l] + (st ? c * hr * k[st - 1][l] : 0);
        k[st][0] = yt[1];
        k[st][1] = (-20.0 * (yt[0] - 1.0) - 3.0 * yt[1] - 40.0 * yt[2] - 3.0) / 0.5;
        k[st][2] = yt[0] - 1.0;
      }
      for (int l = 0; l < 3; l++)
        y[l] += hr / 6.0 * (k[0][l] + 2 * k[1][l] + 2 * k[2][l] + k[3][l]);
    }
    th_out[i] = y[0];
  }
}

static void test_control_pid_position(void)
{
  double err[2];
  for (int k = 0; k < 2; k++) {
    double h = k ? 5e-4 : 1e-3;
    lw_sim_result r = wheel_run("{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"kp\": 20, \"kd\": 3,"
                                " \"ki\": 40, \"target\": {\"type\": \"constant\", \"value\": 1}},"
                                " {\"name\": \"load\", \"type\": \"torque\", \"body\": \"wheel\", \"value\": -3}",
                                h);
    double *ref = g_new(double, r.rows);
    rk4_pid(h, r.rows - 1, ref);
    double e = 0;
    for (long i = 0; i < r.rows; i++)
      e = fmax(e, fabs(lwt_at(&r, i, 1) - ref[i]));
    g_assert_cmpfloat(fabs(lwt_at(&r, r.rows - 1, 1) - 1.0), <, 0.01);
    err[k] = e;
    g_free(ref);
    lw_sim_result_clear(&r);
  }
  g_test_message("PID wheel under load: largest angle error %.3e (h = 1 ms), %.3e (h = 0.5 ms), ratio %.3f", err[0],
                 err[1], err[0] / err[1]);
  g_assert_cmpfloat(err[0], <, 1e-4);
  g_assert_cmpfloat(err[0] / err[1], >, 3.5);
  g_assert_cmpfloat(err[0] / err[1], <, 4.5);
}

/* a state feedback with the one gain of a PID runs the same numbers; the
 * controllers are written back and read again unchanged */
static void test_control_state_feedback(void)
{
  lw_sim_result a = wheel_run(pd_ctl, 1e-3);
  const char *sf = "{\"name\": \"c\", \"type\": \"state_feedback\", \"joint\": \"hub\", \"gains\": ["
                   "{\"joint\": \"hub\", \"kp\": 20, \"kd\": 3, \"target\": {\"type\": \"constant\", \"value\": 1}}]}";
  lw_sim_result b = wheel_run(sf, 1e-3);
  g_assert_cmpint(a.rows, ==, b.rows);
  for (long i = 0; i < a.rows * a.ncols; i++)
    g_assert_cmpfloat(a.table[i], ==, b.table[i]);
  lw_sim_result_clear(&a);
  lw_sim_result_clear(&b);
  const char *pid = "{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"kp\": 20, \"kd\": 3, \"ki\": 40,"
                    " \"target\": {\"type\": \"constant\", \"value\": 1}}";
  const char *ctl[3] = {pd_ctl, sf, pid};
  for (int k = 0; k < 3; k++) {
    lw_desc *d = wheel_desc(ctl[k], 1e-3);
    lw_error err;
    g_autofree char *j1 = lw_model_to_json(d);
    g_assert_nonnull(j1);
    lw_desc *d2 = lw_model_read_data(j1, -1, "again.json", NULL, &err);
    g_assert_nonnull(d2);
    g_autofree char *j2 = lw_model_to_json(d2);
    g_assert_cmpstr(j1, ==, j2);
    g_assert_cmpint(d2->forces[0].nfeedback, ==, 1);
    g_assert_cmpfloat(d2->forces[0].feedback[0].kp, ==, 20);
    g_assert_cmpfloat(d2->forces[0].feedback[0].kd, ==, 3);
    g_assert_cmpfloat(d2->forces[0].feedback[0].ki, ==, k == 2 ? 40 : 0);
    g_assert_cmpfloat(d2->forces[0].feedback[0].target.a[0], ==, 1);
    lw_desc_free(d2);
    lw_desc_free(d);
  }
}

/* bad controllers are refused with the field named */
static void test_control_errors(void)
{
  static const char *const bad[][2] = {
    {"{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"measure\": \"rate\", \"kp\": 1, \"kd\": 2}",
     "forces/c/kd"},
    {"{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"axle\", \"kp\": 1}", "forces/c/joint"},
    {"{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"coordinate\": 1, \"kp\": 1}", "forces/c/joint"},
    {"{\"name\": \"c\", \"type\": \"state_feedback\", \"joint\": \"hub\", \"gains\": []}", "forces/c/gains"},
    {"{\"name\": \"c\", \"type\": \"state_feedback\", \"joint\": \"hub\", \"gains\": [{\"joint\": \"hub\","
     " \"kp\": 1}, {\"joint\": \"hub\", \"coordinate\": 2, \"kp\": 1}]}",
     "forces/c/gains/1/joint"},
    {"{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"kp\": 1e400}", "forces/c/kp"},
    {"{\"name\": \"c\", \"type\": \"pid\", \"joint\": \"hub\", \"kp\": 1, \"ki\": -1e400}", "forces/c/ki"},
    {"{\"name\": \"c\", \"type\": \"state_feedback\", \"joint\": \"hub\", \"gains\": [{\"joint\": \"hub\","
     " \"kp\": 1}, {\"joint\": \"hub\", \"measure\": \"rate\", \"kp\": 1, \"ki\": 1e400}]}",
     "forces/c/gains/1/ki"},
    {"{\"name\": \"c\", \"type\": \"joint_spring_damper\", \"joint\": \"hub\", \"stiffness\": 1}", "outputs/u/force"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    lw_desc *d = wheel_desc(bad[i][0], 1e-3);
    lw_error err;
    lw_model *m = lw_compile(d, &err);
    g_assert_null(m);
    g_test_message("%s: %s", err.path, err.msg);
    g_assert_cmpstr(err.path, ==, bad[i][1]);
    lw_desc_free(d);
  }
}

/* The dense factorization of a branched model: eliminating the hub body
 * fills the block between its two branches, outside the pattern; every new
 * factorization must start that block from zero again.  Two different
 * matrices are factorized in turn and each solve is checked against the
 * matrix itself. */
static void test_dense_fill(void)
{
  static const char *json =
    "{\"linkwright\": 1, \"name\": \"tree\", \"planar\": true, \"gravity\": [0, -9.81],"
    " \"bodies\": ["
    "  {\"name\": \"hub\", \"mass\": 1, \"com\": [0.5, 0], \"inertia\": 0.1, \"position\": [0, 0], \"angle\": 0,"
    "   \"points\": {\"start\": [0, 0], \"end\": [1, 0]}},"
    "  {\"name\": \"a\", \"mass\": 2, \"com\": [0.5, 0], \"inertia\": 0.2, \"position\": [1, 0], \"angle\": 0,"
    "   \"points\": {\"start\": [0, 0], \"end\": [1, 0]}},"
    "  {\"name\": \"b\", \"mass\": 3, \"com\": [0.5, 0], \"inertia\": 0.3, \"position\": [1, 0], \"angle\": 1.5707963267948966,"
    "   \"points\": {\"start\": [0, 0], \"end\": [1, 0]}}],"
    " \"joints\": ["
    "  {\"name\": \"j0\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"hub\", \"at\": [0, 0]},"
    "  {\"name\": \"ja\", \"type\": \"revolute\", \"body1\": \"hub\", \"body2\": \"a\", \"point1\": \"end\", \"point2\": \"start\"},"
    "  {\"name\": \"jb\", \"type\": \"revolute\", \"body1\": \"hub\", \"body2\": \"b\", \"point1\": \"end\", \"point2\": \"start\"}]}";
  lw_error err;
  lw_desc *dd = lw_model_read_data(json, -1, "tree.json", NULL, &err);
  if (!dd)
    g_error("%s", err.msg);
  lw_model *m = lwt_compile(dd);
  g_assert_true(m->dense);
  g_assert_cmpint(m->nb, ==, 3);
  lw_data *d = lw_data_new(m);
  int n = m->nq, nnz = m->nnz;
  /* the pattern has no entry between bodies a and b */
  g_assert_cmpint(lw_pattern_pos(m, 1, 2), <, 0);
  double *vals = g_new(double, nnz), *x = g_new(double, n), *b = g_new(double, n), *ax = g_new(double, n);
  for (int rep = 0; rep < 3; rep++) {
    /* M + s J^T J with a different s each time (the Newton matrix's form) */
    memcpy(vals, m->mass_csc, sizeof(double) * (size_t)nnz);
    lw_rows_eval(m, d, d->q, 0.0, 1);
    double s = rep == 1 ? 1e3 : 1.0 + rep;
    for (int r = 0; r < m->nc; r++)
      lw_mat_add_outer(m, vals, s, m->rows[r].nblk, m->rows[r].blk, m->rows[r].pairpos,
                       d->jac + (size_t)r * 2 * m->nqb);
    g_assert_cmpint(lw_spd_factor(&d->solver, m, vals), ==, 0);
    for (int i = 0; i < n; i++)
      x[i] = b[i] = sin(1.0 + i * (rep + 1));
    lw_spd_solve(&d->solver, x);
    /* A x from the upper pattern */
    memset(ax, 0, sizeof(double) * (size_t)n);
    for (int c = 0; c < n; c++)
      for (int k = m->colptr[c]; k < m->colptr[c + 1]; k++) {
        int r = m->rowind[k];
        ax[r] += vals[k] * x[c];
        if (r != c)
          ax[c] += vals[k] * x[r];
      }
    double e = 0, bn = 0;
    for (int i = 0; i < n; i++) {
      e = fmax(e, fabs(ax[i] - b[i]));
      bn = fmax(bn, fabs(b[i]));
    }
    g_test_message("factorization %d (s = %g): |A x - b| = %.3g", rep + 1, s, e);
    g_assert_cmpfloat(e, <=, 1e-9 * bn * s);
  }
  g_free(vals);
  g_free(x);
  g_free(b);
  g_free(ax);
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(dd);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/dynamics/five-bar/constraints", test_fivebar_constraints);
  g_test_add_func("/dynamics/five-bar/order", test_fivebar_order);
  g_test_add_func("/dynamics/energy/pendulum", test_energy_pendulum);
  g_test_add_func("/dynamics/energy/double-pendulum", test_energy_double_pendulum);
  g_test_add_func("/dynamics/energy/five-bar", test_energy_fivebar);
  g_test_add_func("/dynamics/pendulum/period", test_pendulum_period);
  g_test_add_func("/dynamics/iftomm/slider-crank", test_iftomm_slider_crank);
  g_test_add_func("/dynamics/iftomm/pendulum", test_iftomm_pendulum);
  g_test_add_func("/dynamics/models/run", test_all_models_run);
  g_test_add_func("/dynamics/solver/dense-fill", test_dense_fill);
  g_test_add_func("/dynamics/control/pd", test_control_pd);
  g_test_add_func("/dynamics/control/rate", test_control_rate);
  g_test_add_func("/dynamics/control/pi-rate", test_control_pi_rate);
  g_test_add_func("/dynamics/control/pid-position", test_control_pid_position);
  g_test_add_func("/dynamics/control/state-feedback", test_control_state_feedback);
  g_test_add_func("/dynamics/control/errors", test_control_errors);
  return g_test_run();
}
