/* The four-bar and slider-crank templates (src/app/lw-templates.c and the
 * dialog of src/app/lw-template-dialog.c).  The Grashof class of a textbook
 * linkage of every class; the transmission angle's extremes and the
 * slider-crank's stroke and quick-return ratio from their closed forms
 * against brute-force sweeps of the crank angle over the assembled model
 * (lw_check at each angle, continuing from the pose before); the models the
 * templates build assemble and run; and the dialog: editing a length updates
 * the Grashof class, Open makes an unsaved document that runs. */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lw-application.h"
#include "lw-template-dialog.h"
#include "lw-templates.h"
#include "lw-window.h"

#define DEG (G_PI / 180)

/* ---- Grashof classes -------------------------------------------------------- */
typedef struct {
  double ground, crank, coupler, rocker;
  LwGrashofClass expect;
} GrashofCase;

/* s, l, p, q: shortest, longest, the other two (worked by hand) */
static const GrashofCase grashof_cases[] = {
  /* s = crank 0.5, l = 2: 0.5 + 2 = 2.5 < 2 + 1.5 = 3.5, crank shortest */
  {2.0, 0.5, 2.0, 1.5, LW_GRASHOF_CRANK_ROCKER},
  /* s = ground 1, l = coupler 3.5: 4.5 < 3 + 2.5 = 5.5, ground shortest */
  {1.0, 3.0, 3.5, 2.5, LW_GRASHOF_DOUBLE_CRANK},
  /* s = coupler 1, l = ground 3: 4 < 2.5 + 2 = 4.5, coupler shortest */
  {3.0, 2.5, 1.0, 2.0, LW_GRASHOF_DOUBLE_ROCKER},
  /* s = rocker 0.5, l = 2: 2.5 < 1.5 + 2 = 3.5, rocker shortest */
  {2.0, 1.5, 2.0, 0.5, LW_GRASHOF_ROCKER_CRANK},
  /* parallelogram: 1 + 2 = 2 + 1 */
  {2.0, 1.0, 2.0, 1.0, LW_GRASHOF_CHANGE_POINT},
  /* s = crank 1, l = ground 3: 4 = 2 + 2 */
  {3.0, 1.0, 2.0, 2.0, LW_GRASHOF_CHANGE_POINT},
  /* typed decimals: 0.1 + 0.3 = 0.2 + 0.2 although 0.1 + 0.3 != 0.4 in binary */
  {0.3, 0.1, 0.2, 0.2, LW_GRASHOF_CHANGE_POINT},
  /* s = rocker 1.2, l = ground 3: 4.2 > 1.5 + 2 = 3.5 */
  {3.0, 1.5, 2.0, 1.2, LW_GRASHOF_TRIPLE_ROCKER},
  /* just Grashof: s = 1.2, l = 2: 3.2 < 1.5 + 1.8 = 3.3 */
  {2.0, 1.5, 1.8, 1.2, LW_GRASHOF_ROCKER_CRANK},
  {2.0, 0.0, 2.0, 1.5, LW_GRASHOF_INVALID},
  {2.0, -1, 2.0, 1.5, LW_GRASHOF_INVALID},
  {NAN, 1.0, 2.0, 1.5, LW_GRASHOF_INVALID},
};

static void test_grashof(void)
{
  for (gsize i = 0; i < G_N_ELEMENTS(grashof_cases); i++) {
    const GrashofCase *c = &grashof_cases[i];
    LwGrashofClass got = lw_grashof_classify(c->ground, c->crank, c->coupler, c->rocker);
    g_test_message("%g %g %g %g: %s", c->ground, c->crank, c->coupler, c->rocker, lw_grashof_class_name(got));
    g_assert_cmpint(got, ==, c->expect);
  }
  /* the class is the ground's view: the same four lengths around the loop,
   * each link in turn the ground (crank-rocker's inversions) */
  g_assert_cmpint(lw_grashof_classify(0.5, 2.0, 1.5, 2.0), ==, LW_GRASHOF_DOUBLE_CRANK);
  g_assert_cmpint(lw_grashof_classify(2.0, 1.5, 2.0, 0.5), ==, LW_GRASHOF_ROCKER_CRANK);
  g_assert_cmpint(lw_grashof_classify(1.5, 2.0, 0.5, 2.0), ==, LW_GRASHOF_DOUBLE_ROCKER);
}

/* ---- sweeps over the assembled model ---------------------------------------- */
typedef struct {
  lw_desc *d;
  int ok;
  double pose[3][3];  /* x, y, angle of each body */
  double out[8];      /* the outputs */
} Assembled;

/* assemble the model at crank angle theta from the guesses in a->d; on
 * success the guesses become the assembled pose (continuation) */
static int assemble_at(Assembled *a, double theta)
{
  a->d->initial[0].value = theta;
  lw_check_result chk;
  lw_check(a->d, &chk);
  a->ok = chk.status == LW_OK;
  if (a->ok) {
    for (int b = 0; b < 3; b++) {
      double o[3], R[9];
      lw_body_pose(chk.model, chk.data, b, o, R);
      a->pose[b][0] = o[0];
      a->pose[b][1] = o[1];
      a->pose[b][2] = atan2(R[3], R[0]);
      a->d->bodies[b].position[0] = o[0];
      a->d->bodies[b].position[1] = o[1];
      a->d->bodies[b].angle = a->pose[b][2];
    }
    g_assert_cmpint(lw_model_output_columns(chk.model), <=, 8);
    lw_outputs(chk.model, chk.data, a->out);
    /* the crank is where it was asked to be */
    g_assert_cmpfloat(fabs(remainder(a->pose[0][2] - theta, 2 * G_PI)), <, 1e-9);
  }
  lw_check_result_clear(&chk);
  return a->ok;
}

/* transmission angle at the assembled pose: cos(mu) = u3 . u4, u3 the
 * coupler's direction B -> C and u4 the rocker's D -> C (the angle at C
 * between C -> B and C -> D) */
static double assembled_mu(const Assembled *a)
{
  double t3 = a->pose[1][2], t4 = a->pose[2][2];
  return acos(fmax(-1, fmin(1, cos(t3) * cos(t4) + sin(t3) * sin(t4))));
}

typedef double (*SweepValue)(const Assembled *a);

/* brute force: the extremes of value() over crank angles [t0, t0 + span]
 * sampled at n + 1 angles, each refined by 400 finer samples across the
 * neighbourhood of the best coarse one; *at receives the crank angles */
static void sweep_extremes(Assembled *a, double t0, double span, int n, SweepValue value, double ext[2],
                           double at[2])
{
  double best[2] = {INFINITY, -INFINITY}, best_t[2] = {0, 0};
  double guess[2][3][3];
  for (int k = 0; k <= n; k++) {
    double t = t0 + span * k / n;
    g_assert_true(assemble_at(a, t));
    double v = value(a);
    for (int s = 0; s < 2; s++)
      if (s == 0 ? v < best[0] : v > best[1]) {
        best[s] = v;
        best_t[s] = t;
        memcpy(guess[s], a->pose, sizeof a->pose);
      }
  }
  double h = span / n;
  for (int s = 0; s < 2; s++) {
    double center = best_t[s];
    for (int k = -200; k <= 200; k++) {
      double t = center + h * k / 200;
      if (t < t0 || t > t0 + span)
        continue;
      if (k == -200 || !a->ok)
        for (int b = 0; b < 3; b++) {
          a->d->bodies[b].position[0] = guess[s][b][0];
          a->d->bodies[b].position[1] = guess[s][b][1];
          a->d->bodies[b].angle = guess[s][b][2];
        }
      g_assert_true(assemble_at(a, t));
      double v = value(a);
      if (s == 0 ? v < best[0] : v > best[1]) {
        best[s] = v;
        best_t[s] = t;
      }
    }
  }
  memcpy(ext, best, sizeof best);
  memcpy(at, best_t, sizeof best_t);
}

static LwFourBar four_bar(double ground, double crank, double coupler, double rocker, double angle)
{
  LwFourBar fb;
  lw_four_bar_defaults(&fb);
  fb.ground = ground;
  fb.crank = crank;
  fb.coupler = coupler;
  fb.rocker = rocker;
  fb.crank_angle = angle;
  return fb;
}

/* The extremes of mu over a full crank turn: closed form (lw-templates.c,
 * eqs. 1-2: mu_min = acos((b^2 + c^2 - (d - a)^2) / (2 b c)),
 * mu_max = acos((b^2 + c^2 - (d + a)^2) / (2 b c))) against the sweep. */
static void check_full_turn(const LwFourBar *fb)
{
  LwFourBarInfo info;
  lw_four_bar_analyze(fb, &info);
  g_assert_true(info.crank_turns);
  double a = fb->crank, b = fb->coupler, c = fb->rocker, d = fb->ground;
  double mu_min = acos((b * b + c * c - (d - a) * (d - a)) / (2 * b * c));
  double mu_max = acos((b * b + c * c - (d + a) * (d + a)) / (2 * b * c));
  g_assert_cmpfloat(fabs(info.mu_min - mu_min), <, 1e-14);
  g_assert_cmpfloat(fabs(info.mu_max - mu_max), <, 1e-14);
  Assembled as = {lw_four_bar_desc(fb), 0, {{0}}, {0}};
  g_assert_nonnull(as.d);
  double ext[2], at[2];
  sweep_extremes(&as, fb->crank_angle, 2 * G_PI, 720, assembled_mu, ext, at);
  g_test_message("%s: mu %.9f..%.9f deg (closed form %.9f..%.9f) at crank %.4f, %.4f deg",
                 lw_grashof_class_name(info.grashof), ext[0] / DEG, ext[1] / DEG, mu_min / DEG, mu_max / DEG,
                 remainder(at[0], 2 * G_PI) / DEG, remainder(at[1], 2 * G_PI) / DEG);
  g_assert_cmpfloat(fabs(ext[0] - info.mu_min), <, 1e-7);
  g_assert_cmpfloat(fabs(ext[1] - info.mu_max), <, 1e-7);
  /* at theta = 0 and pi */
  g_assert_cmpfloat(fabs(remainder(at[0], 2 * G_PI)), <, 1e-3);
  g_assert_cmpfloat(fabs(remainder(at[1] - G_PI, 2 * G_PI)), <, 1e-3);
  lw_desc_free(as.d);
}

static void test_transmission_full_turn(void)
{
  /* crank-rocker: mu from acos(4/6) = 48.19 deg to acos(0) = 90 deg */
  LwFourBar cr = four_bar(2.0, 0.5, 2.0, 1.5, 90 * DEG);
  check_full_turn(&cr);
  LwFourBarInfo info;
  lw_four_bar_analyze(&cr, &info);
  g_assert_cmpfloat(fabs(info.mu_min - acos(4.0 / 6.0)), <, 1e-14);
  g_assert_cmpfloat(fabs(info.mu_max - G_PI / 2), <, 1e-14);
  /* double-crank (drag link) */
  LwFourBar dc = four_bar(1.0, 3.0, 3.5, 2.5, 30 * DEG);
  check_full_turn(&dc);
  /* a crank-rocker with mu beyond 90 deg */
  LwFourBar cr2 = four_bar(3.0, 1.0, 2.5, 2.8, 200 * DEG);
  g_assert_cmpint(lw_grashof_classify(3.0, 1.0, 2.5, 2.8), ==, LW_GRASHOF_CRANK_ROCKER);
  check_full_turn(&cr2);
}

/* A linkage whose crank cannot turn: the reachable crank angles from (1)
 * with f in [max(|d - a|, |b - c|), min(d + a, b + c)], mu over them from
 * (2); checked against where lw_check assembles and the sweep inside. */
static void check_rocking(const LwFourBar *fb, double mu_lo_expect, double mu_hi_expect)
{
  LwFourBarInfo info;
  lw_four_bar_analyze(fb, &info);
  g_assert_false(info.crank_turns);
  g_assert_cmpfloat(fabs(info.mu_min - mu_lo_expect), <, 1e-12);
  g_assert_cmpfloat(fabs(info.mu_max - mu_hi_expect), <, 1e-12);
  Assembled as = {lw_four_bar_desc(fb), 0, {{0}}, {0}};
  g_assert_nonnull(as.d);
  /* sweep the arc lo <= theta <= hi the initial angle is on, short of its ends */
  double lo = info.crank_lo, hi = info.crank_hi, margin = 1e-4;
  double t0 = info.crank_lo > 0 ? lo + margin : -hi + margin;
  double span = info.crank_lo > 0 ? hi - lo - 2 * margin : 2 * (hi - margin);
  g_assert_true(assemble_at(&as, fb->crank_angle));
  double ext[2], at[2];
  sweep_extremes(&as, t0, span, 720, assembled_mu, ext, at);
  g_test_message("%s: crank %.6f..%.6f deg, mu %.6f..%.6f deg (closed form %.6f..%.6f)",
                 lw_grashof_class_name(info.grashof), lo / DEG, hi / DEG, ext[0] / DEG, ext[1] / DEG,
                 info.mu_min / DEG, info.mu_max / DEG);
  /* inside the range, close to its ends (mu moves as the square root of the
   * distance to a dead point there) */
  g_assert_cmpfloat(ext[0], >=, info.mu_min - 1e-9);
  g_assert_cmpfloat(ext[1], <=, info.mu_max + 1e-9);
  g_assert_cmpfloat(ext[0] - info.mu_min, <, 0.05);
  g_assert_cmpfloat(info.mu_max - ext[1], <, 0.05);
  /* beyond the ends nothing assembles */
  Assembled far = {lw_four_bar_desc(fb), 0, {{0}}, {0}};
  g_assert_true(assemble_at(&far, hi - margin));
  g_assert_false(assemble_at(&far, hi + 1e-3));
  if (lo > 0) {
    g_assert_true(assemble_at(&far, lo + margin));
    g_assert_false(assemble_at(&far, lo - 1e-3));
  }
  lw_desc_free(far.d);
  lw_desc_free(as.d);
}

static void test_transmission_rocking(void)
{
  /* triple-rocker d 3, a 1.5, b 2, c 1.2: f from |d - a| = 1.5 (theta = 0)
   * to b + c = 3.2: mu from acos((4 + 1.44 - 2.25) / 4.8) to pi, the crank
   * within |theta| <= acos((2.25 + 9 - 10.24) / 9) = 83.56 deg */
  LwFourBar tr = four_bar(3.0, 1.5, 2.0, 1.2, 20 * DEG);
  LwFourBarInfo info;
  lw_four_bar_analyze(&tr, &info);
  g_assert_cmpint(info.grashof, ==, LW_GRASHOF_TRIPLE_ROCKER);
  g_assert_cmpfloat(info.crank_lo, ==, 0);
  g_assert_cmpfloat(fabs(info.crank_hi - acos(1.01 / 9)), <, 1e-12);
  check_rocking(&tr, acos(3.19 / 4.8), G_PI);
  /* Grashof double-rocker d 3, a 2.5, b 1, c 2: f from |b - c| = 1 to
   * b + c = 3: mu from 0 to pi, the crank within acos(14.25 / 15) = 18.19
   * deg <= |theta| <= acos(6.25 / 15) = 65.38 deg */
  LwFourBar dr = four_bar(3.0, 2.5, 1.0, 2.0, 40 * DEG);
  lw_four_bar_analyze(&dr, &info);
  g_assert_cmpint(info.grashof, ==, LW_GRASHOF_DOUBLE_ROCKER);
  g_assert_cmpfloat(fabs(info.crank_lo - acos(14.25 / 15)), <, 1e-12);
  g_assert_cmpfloat(fabs(info.crank_hi - acos(6.25 / 15)), <, 1e-12);
  check_rocking(&dr, 0, G_PI);
}

/* assembly at the initial crank angle, and the reason when not */
static void test_four_bar_assembly(void)
{
  LwFourBarInfo info;
  /* the double-rocker above at 10 deg: f^2 = 6.25 + 9 - 15 cos(10 deg), f = 0.70 < |b - c| = 1 */
  LwFourBar fb = four_bar(3.0, 2.5, 1.0, 2.0, 10 * DEG);
  lw_four_bar_analyze(&fb, &info);
  g_assert_cmpint(info.assembly, ==, LW_ASSEMBLY_TOO_CLOSE);
  g_assert_null(lw_four_bar_desc(&fb));
  g_autofree char *why = lw_four_bar_assembly_text(&fb, &info, 1000, "mm");
  g_test_message("%s", why);
  g_assert_nonnull(strstr(why, "less than |coupler - rocker| (1000 mm)"));
  g_assert_nonnull(strstr(why, "18.2° to 65.4°"));
  /* ... and at 90 deg: f = sqrt(15.25) = 3.91 > b + c = 3 */
  fb.crank_angle = 90 * DEG;
  lw_four_bar_analyze(&fb, &info);
  g_assert_cmpint(info.assembly, ==, LW_ASSEMBLY_TOO_FAR);
  g_assert_cmpfloat(fabs(info.reach - sqrt(15.25)), <, 1e-12);
  /* a ground longer than the rest together: never */
  fb = four_bar(10, 1, 1, 1, 0);
  lw_four_bar_analyze(&fb, &info);
  g_assert_cmpint(info.assembly, ==, LW_ASSEMBLY_NEVER);
  g_autofree char *never = lw_four_bar_assembly_text(&fb, &info, 1, "m");
  g_assert_nonnull(strstr(never, "ground (10 m) is longer than the other three links together (3 m)"));
  fb = four_bar(2, -0.5, 2, 1.5, 0);
  lw_four_bar_analyze(&fb, &info);
  g_assert_cmpint(info.assembly, ==, LW_ASSEMBLY_BAD_LENGTH);
  g_assert_null(lw_four_bar_desc(&fb));
}

/* the built model: where the closed form puts it, 1 degree of freedom, and it runs */
static void test_four_bar_model(void)
{
  LwFourBar fb = four_bar(2.0, 0.5, 2.0, 1.5, 90 * DEG);
  fb.point_along = 1.2;
  fb.point_offset = -0.3;
  fb.density = 2.0;
  lw_desc *d = lw_four_bar_desc(&fb);
  g_assert_nonnull(d);
  g_assert_cmpfloat(fabs(d->bodies[1].mass - 4.0), <, 1e-15); /* coupler 2 m at 2 kg/m */
  lw_check_result chk;
  lw_check(d, &chk);
  g_assert_cmpint(chk.status, ==, LW_OK);
  g_assert_cmpint(chk.dof, ==, 1);
  g_assert_cmpint(chk.nredundant, ==, 0);
  /* the coupler point where lw_four_bar_coupler_point puts it */
  double out[8], P[2];
  lw_outputs(chk.model, chk.data, out);
  g_assert_true(lw_four_bar_coupler_point(&fb, fb.crank_angle, FALSE, P));
  g_assert_cmpfloat(fabs(out[0] - P[0]) + fabs(out[1] - P[1]), <, 1e-9);
  g_assert_cmpfloat(fabs(out[2] - fb.crank_angle), <, 1e-9);
  lw_check_result_clear(&chk);
  /* it runs for its default time */
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  g_assert_nonnull(m);
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, d->solver.t_end, d->solver.step, &res, NULL, NULL), ==, LW_OK);
  g_assert_cmpint(res.rows, ==, 5001);
  g_assert_cmpfloat(res.max_constraint_residual, <, 1e-6);
  lw_sim_result_clear(&res);
  lw_model_free(m);
  lw_desc_free(d);
}

/* a linkage of each class runs its default 5 s from its start, through the
 * rocking linkages' dead points (where only the crank stops) */
static void test_four_bar_classes_run(void)
{
  static const double cases[][5] = {
    {2, 0.5, 2, 1.5, 90}, {1, 3, 3.5, 2.5, 30}, {3, 2.5, 1, 2, 40},
    {2, 1.5, 2, 0.5, 90}, {2, 1, 2, 1, 60},     {3, 1.5, 2, 1.2, 20},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    LwFourBar fb = four_bar(cases[i][0], cases[i][1], cases[i][2], cases[i][3], cases[i][4] * DEG);
    lw_desc *d = lw_four_bar_desc(&fb);
    g_assert_nonnull(d);
    lw_error err;
    lw_model *m = lw_compile(d, &err);
    g_assert_nonnull(m);
    lw_sim_result res;
    int st = lw_simulate(m, d->solver.t_end, d->solver.step, &res, NULL, NULL);
    g_test_message("%s: status %d, %ld rows, max |Phi| %.2g",
                   lw_grashof_class_name(lw_grashof_classify(fb.ground, fb.crank, fb.coupler, fb.rocker)), st,
                   res.rows, res.max_constraint_residual);
    g_assert_cmpint(st, ==, LW_OK);
    g_assert_cmpfloat(res.max_constraint_residual, <, 1e-6);
    lw_sim_result_clear(&res);
    lw_model_free(m);
    lw_desc_free(d);
  }
}

/* ---- slider-crank -------------------------------------------------------------- */
static double slider_x(const Assembled *a)
{
  return a->out[0];
}

static LwSliderCrank slider_crank(double crank, double rod, double offset, double angle)
{
  LwSliderCrank sc;
  lw_slider_crank_defaults(&sc);
  sc.crank = crank;
  sc.rod = rod;
  sc.offset = offset;
  sc.crank_angle = angle;
  return sc;
}

/* stroke and quick-return ratio against a sweep of the assembled model */
static void check_stroke(const LwSliderCrank *sc)
{
  LwSliderCrankInfo info;
  lw_slider_crank_analyze(sc, &info);
  g_assert_true(info.rod_long_enough);
  Assembled as = {lw_slider_crank_desc(sc), 0, {{0}}, {0}};
  g_assert_nonnull(as.d);
  double ext[2], at[2];
  sweep_extremes(&as, sc->crank_angle, 2 * G_PI, 720, slider_x, ext, at);
  /* the crank turns from the outer dead centre to the inner one and on */
  double delta = fmod(at[0] - at[1] + 4 * G_PI, 2 * G_PI);
  double q = fmax(delta, 2 * G_PI - delta) / fmin(delta, 2 * G_PI - delta);
  g_test_message("r %g l %g e %g: x %.10f..%.10f (closed form %.10f..%.10f), Q %.6f (closed form %.6f)",
                 sc->crank, sc->rod, sc->offset, ext[0], ext[1], info.x_min, info.x_max, q, info.quick_return);
  g_assert_cmpfloat(fabs(ext[0] - info.x_min), <, 1e-9);
  g_assert_cmpfloat(fabs(ext[1] - info.x_max), <, 1e-9);
  g_assert_cmpfloat(fabs(ext[1] - ext[0] - info.stroke), <, 2e-9);
  /* the dead centres' angles are found to the refined step (2 pi / 720 / 200) */
  g_assert_cmpfloat(fabs(q - info.quick_return), <, 1e-4);
  lw_desc_free(as.d);
}

static void test_slider_crank(void)
{
  /* centred: stroke 2 r, Q = 1 */
  LwSliderCrank sc = slider_crank(0.5, 1.5, 0, 30 * DEG);
  LwSliderCrankInfo info;
  lw_slider_crank_analyze(&sc, &info);
  g_assert_cmpfloat(fabs(info.stroke - 1.0), <, 1e-15);
  g_assert_cmpfloat(info.quick_return, ==, 1.0);
  check_stroke(&sc);
  /* offset 0.4: x_max = sqrt(4 - 0.16), x_min = sqrt(1 - 0.16),
   * alpha = asin(0.4) - asin(0.2), Q = (pi + alpha) / (pi - alpha) */
  sc = slider_crank(0.5, 1.5, 0.4, 100 * DEG);
  lw_slider_crank_analyze(&sc, &info);
  g_assert_cmpfloat(fabs(info.stroke - (sqrt(3.84) - sqrt(0.84))), <, 1e-15);
  double alpha = asin(0.4) - asin(0.2);
  g_assert_cmpfloat(fabs(info.quick_return - (G_PI + alpha) / (G_PI - alpha)), <, 1e-14);
  check_stroke(&sc);
  /* a negative offset: the same figures */
  sc = slider_crank(0.5, 1.5, -0.4, 100 * DEG);
  LwSliderCrankInfo neg;
  lw_slider_crank_analyze(&sc, &neg);
  g_assert_cmpfloat(fabs(neg.quick_return - info.quick_return), <, 1e-15);
  check_stroke(&sc);
  /* millimetre sizes */
  sc = slider_crank(0.04, 0.12, 0.02, 0);
  check_stroke(&sc);
}

static void test_slider_crank_short_rod(void)
{
  LwSliderCrankInfo info;
  /* rod 0.8 < crank 0.5 + offset 0.4: the crank cannot turn, but at 90 deg
   * the pin is 0.1 from the line */
  LwSliderCrank sc = slider_crank(0.5, 0.8, 0.4, 90 * DEG);
  lw_slider_crank_analyze(&sc, &info);
  g_assert_false(info.rod_long_enough);
  g_assert_cmpint(info.assembly, ==, LW_ASSEMBLY_OK);
  lw_desc *d = lw_slider_crank_desc(&sc);
  g_assert_nonnull(d);
  lw_check_result chk;
  lw_check(d, &chk);
  g_assert_cmpint(chk.status, ==, LW_OK);
  lw_check_result_clear(&chk);
  lw_desc_free(d);
  /* at -90 deg it is 0.9 away: no model, and the reason */
  sc.crank_angle = -90 * DEG;
  lw_slider_crank_analyze(&sc, &info);
  g_assert_cmpint(info.assembly, ==, LW_ASSEMBLY_TOO_FAR);
  g_assert_null(lw_slider_crank_desc(&sc));
  g_autofree char *why = lw_slider_crank_assembly_text(&sc, &info, 1000, "mm");
  g_assert_nonnull(strstr(why, "900 mm from the slider line, more than the rod length (800 mm)"));
}

static void test_slider_crank_model(void)
{
  LwSliderCrank sc = slider_crank(0.5, 1.5, 0.2, 60 * DEG);
  sc.slider_mass = 3.0;
  lw_desc *d = lw_slider_crank_desc(&sc);
  g_assert_nonnull(d);
  lw_check_result chk;
  lw_check(d, &chk);
  g_assert_cmpint(chk.status, ==, LW_OK);
  g_assert_cmpint(chk.dof, ==, 1);
  g_assert_cmpint(chk.nredundant, ==, 0);
  double out[8], B[2], C[2];
  lw_outputs(chk.model, chk.data, out);
  g_assert_true(lw_slider_crank_pose(&sc, sc.crank_angle, B, C));
  g_assert_cmpfloat(fabs(out[0] - C[0]), <, 1e-9); /* slider_x */
  lw_check_result_clear(&chk);
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  lw_sim_result res;
  g_assert_cmpint(lw_simulate(m, d->solver.t_end, d->solver.step, &res, NULL, NULL), ==, LW_OK);
  g_assert_cmpfloat(res.max_constraint_residual, <, 1e-6);
  lw_sim_result_clear(&res);
  lw_model_free(m);
  lw_desc_free(d);
}

/* ---- the dialog ---------------------------------------------------------------------- */
static LwApplication *app;

static LwWindow *new_window(void)
{
  LwWindow *w = lw_window_new(app);
  lw_window_open_builtin(w);
  return lwt_present(w);
}

static GtkWidget *find_named(GtkWidget *w, const char *name)
{
  if (g_strcmp0(gtk_widget_get_name(w), name) == 0)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *hit = find_named(c, name);
    if (hit)
      return hit;
  }
  return NULL;
}

/* the toplevel of type `type` other than `not`, or NULL */
static GtkWidget *find_toplevel(GType type, gpointer not)
{
  GListModel *tops = gtk_window_get_toplevels();
  for (guint i = 0; i < g_list_model_get_n_items(tops); i++) {
    g_autoptr(GObject) o = g_list_model_get_item(tops, i);
    if (G_TYPE_CHECK_INSTANCE_TYPE(o, type) && o != not)
      return GTK_WIDGET(o);
  }
  return NULL;
}

/* the examples gallery is up (a window of its own beside w) */
static gboolean gallery_shown(gpointer w)
{
  return find_toplevel(ADW_TYPE_WINDOW, w) != NULL;
}

static gboolean template_dialog_shown(gpointer unused)
{
  (void)unused;
  return find_toplevel(LW_TYPE_TEMPLATE_DIALOG, NULL) != NULL;
}

static gboolean template_dialog_gone(gpointer unused)
{
  (void)unused;
  return find_toplevel(LW_TYPE_TEMPLATE_DIALOG, NULL) == NULL;
}

static void set_field(LwTemplateDialog *dlg, const char *id, double v)
{
  GtkSpinButton *spin = lw_template_dialog_get_field(dlg, id);
  g_assert_nonnull(spin);
  gtk_spin_button_set_value(spin, v);
}

static void save_png(GtkWidget *w, const char *name)
{
  g_mkdir_with_parents(LW_TEMPLATES_SHOT_DIR, 0755);
  g_autofree char *path = g_build_filename(LW_TEMPLATES_SHOT_DIR, name, NULL);
  /* a window just mapped may not have drawn yet: its paintable is empty until it has */
  GdkPaintable *paintable = gtk_widget_paintable_new(w);
  GskRenderNode *node = NULL;
  int width = 0, height = 0;
  for (int tries = 0; !node && tries < 50; tries++) {
    lwt_spin(0.1);
    width = gtk_widget_get_width(w);
    height = gtk_widget_get_height(w);
    GtkSnapshot *snap = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snap, width, height);
    node = gtk_snapshot_free_to_node(snap);
  }
  g_assert_nonnull(node);
  GskRenderer *renderer = gtk_native_get_renderer(GTK_NATIVE(w));
  GdkTexture *tex = gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, width, height));
  g_assert_true(gdk_texture_save_to_png(tex, path));
  g_test_message("screenshot %s", path);
  g_object_unref(tex);
  gsk_render_node_unref(node);
  g_object_unref(paintable);
}

/* from the gallery: the four-bar's class follows its lengths, a linkage that
 * does not assemble cannot be opened, and Open makes a new unsaved model
 * that runs */
static void test_dialog_four_bar(void)
{
  LwWindow *w = new_window();
  guint undo0 = lw_window_get_undo_depth(w);
  g_action_group_activate_action(G_ACTION_GROUP(w), "examples", NULL);
  lwt_await(gallery_shown, w, LWT_WAIT);
  GtkWidget *gallery = find_toplevel(ADW_TYPE_WINDOW, w);
  g_assert_nonnull(gallery);
  GtkWidget *row = find_named(gallery, "template-four-bar");
  g_assert_nonnull(row);
  lwt_await(lwt_is_mapped, gallery, LWT_WAIT);
  save_png(gallery, "gallery.png");
  gtk_widget_activate(row);
  lwt_await(template_dialog_shown, NULL, LWT_WAIT);
  LwTemplateDialog *dlg = LW_TEMPLATE_DIALOG(find_toplevel(LW_TYPE_TEMPLATE_DIALOG, NULL));
  g_assert_nonnull(dlg);
  lwt_await(lwt_is_mapped, dlg, LWT_WAIT);
  /* the gallery made way for it */
  g_assert_null(find_toplevel(ADW_TYPE_WINDOW, dlg));
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "fb-grashof"), "Crank-rocker"));
  g_assert_nonnull(strstr(lw_template_dialog_get_result(dlg, "fb-transmission"), "48.2° to 90.0° over a full crank turn"));
  save_png(GTK_WIDGET(dlg), "four-bar-crank-rocker.png");

  /* the triple-rocker of /templates/transmission-rocking, length by length */
  set_field(dlg, "fb-ground", 3.0); /* 0.5 + 3 = 2 + 1.5 */
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "fb-grashof"), "Change-point"));
  set_field(dlg, "fb-crank", 1.5); /* 1.5 + 3 > 2 + 1.5 */
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "fb-grashof"), "Triple-rocker"));
  set_field(dlg, "fb-rocker", 1.2);
  g_test_message("%s", lw_template_dialog_get_result(dlg, "fb-grashof"));
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "fb-grashof"), "Triple-rocker"));
  /* at 90 deg the pin is sqrt(11.25) = 3.354 m from D, more than 2 + 1.2 */
  const char *why = lw_template_dialog_get_result(dlg, "fb-assembly");
  g_test_message("%s", why);
  g_assert_nonnull(strstr(why, "3.354 m from the rocker pivot, more than coupler + rocker (3.2 m)"));
  const lw_desc *before = lw_window_get_desc(w);
  gtk_widget_activate_action(GTK_WIDGET(dlg), "template.open", NULL);
  lwt_spin(0.1);
  g_assert_true(lw_window_get_desc(w) == before); /* Open is disabled: nothing replaced */
  g_assert_true(gtk_widget_get_visible(GTK_WIDGET(dlg)));
  set_field(dlg, "fb-angle", 20);
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "fb-assembly"), "Assembles at 20.0°"));
  g_assert_nonnull(strstr(lw_template_dialog_get_result(dlg, "fb-transmission"), "48.3° to 180.0° over the crank angles it reaches, 0.0° to 83.6°"));
  save_png(GTK_WIDGET(dlg), "four-bar-triple-rocker.png");

  /* back to a crank-rocker, in millimetres: the fields convert, the model is in metres */
  lw_template_dialog_set_unit(dlg, 1);
  g_assert_cmpfloat(gtk_spin_button_get_value(lw_template_dialog_get_field(dlg, "fb-ground")), ==, 3000);
  set_field(dlg, "fb-ground", 2000);
  set_field(dlg, "fb-crank", 500);
  set_field(dlg, "fb-rocker", 1500);
  set_field(dlg, "fb-point-offset", -250);
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "fb-grashof"), "Crank-rocker"));
  g_assert_nonnull(strstr(lw_template_dialog_get_result(dlg, "fb-grashof"), "s + l = 2500 mm, p + q = 3500 mm"));
  gtk_widget_activate_action(GTK_WIDGET(dlg), "template.open", NULL);
  lwt_await(template_dialog_gone, NULL, LWT_WAIT);
  g_assert_null(find_toplevel(LW_TYPE_TEMPLATE_DIALOG, NULL));
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_true(d != before);
  g_assert_cmpstr(d->name, ==, "Four-bar linkage");
  g_assert_cmpint(d->nbodies, ==, 3);
  g_assert_cmpfloat(fabs(d->joints[3].place[0].p[0] - 2.0), <, 1e-12); /* D at 2 m */
  g_assert_cmpfloat(fabs(d->outputs[0].place.p[1] + 0.25), <, 1e-12);
  g_assert_true(lw_window_get_modified(w));
  g_assert_cmpuint(lw_window_get_undo_depth(w), ==, undo0 + 1); /* the five-bar is one Undo away */
  g_assert_null(lw_window_get_message(w));
  /* assembled and runnable: run it */
  LwSimRunner *r = lw_window_get_runner(w);
  g_assert_nonnull(r);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "run", NULL);
  lwt_await(lwt_runner_idle, w, 60);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
  g_assert_cmpuint(lw_sim_runner_get_n_frames(r), ==, 5001);
  save_png(GTK_WIDGET(w), "four-bar-opened.png");
  gtk_window_destroy(GTK_WINDOW(w));
}

static void test_dialog_slider_crank(void)
{
  LwWindow *w = new_window();
  LwTemplateDialog *dlg = lw_template_dialog_new(w, LW_TEMPLATE_SLIDER_CRANK);
  gtk_window_present(GTK_WINDOW(dlg));
  lwt_await(lwt_is_mapped, dlg, LWT_WAIT);
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "sc-stroke"), "1 m"));
  set_field(dlg, "sc-offset", 0.4);
  /* Q = (pi + alpha) / (pi - alpha), alpha = asin(0.4) - asin(0.2) */
  g_test_message("%s", lw_template_dialog_get_result(dlg, "sc-quick-return"));
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "sc-quick-return"), "1.1434"));
  save_png(GTK_WIDGET(dlg), "slider-crank-offset.png");
  set_field(dlg, "sc-rod", 0.8);
  g_assert_true(g_str_has_prefix(lw_template_dialog_get_result(dlg, "sc-assembly"), "Too short"));
  set_field(dlg, "sc-angle", -90);
  g_assert_nonnull(strstr(lw_template_dialog_get_result(dlg, "sc-assembly"), "Cannot assemble"));
  const lw_desc *before = lw_window_get_desc(w);
  gtk_widget_activate_action(GTK_WIDGET(dlg), "template.open", NULL);
  lwt_spin(0.1);
  g_assert_true(lw_window_get_desc(w) == before);
  set_field(dlg, "sc-rod", 1.5);
  gtk_widget_activate_action(GTK_WIDGET(dlg), "template.open", NULL);
  lwt_await(template_dialog_gone, NULL, LWT_WAIT);
  const lw_desc *d = lw_window_get_desc(w);
  g_assert_cmpstr(d->name, ==, "Slider-crank");
  g_assert_true(lw_window_get_modified(w));
  LwSimRunner *r = lw_window_get_runner(w);
  g_assert_nonnull(r);
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "run", NULL);
  lwt_await(lwt_runner_idle, w, 60);
  g_assert_cmpint(lw_sim_runner_get_state(r), ==, LW_RUNNER_FINISHED);
  gtk_window_destroy(GTK_WINDOW(w));
}

/* Cancel (and Escape, its binding) leaves the model alone; a dialog goes
 * with its window */
static void test_dialog_cancel(void)
{
  LwWindow *w = new_window();
  const lw_desc *before = lw_window_get_desc(w);
  guint undo0 = lw_window_get_undo_depth(w);
  LwTemplateDialog *dlg = lw_template_dialog_new(w, LW_TEMPLATE_FOUR_BAR);
  gtk_window_present(GTK_WINDOW(dlg));
  lwt_await(lwt_is_mapped, dlg, LWT_WAIT);
  set_field(dlg, "fb-crank", 0.7);
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(dlg), "window.close", NULL));
  lwt_await(template_dialog_gone, NULL, LWT_WAIT);
  g_assert_null(find_toplevel(LW_TYPE_TEMPLATE_DIALOG, NULL));
  g_assert_true(lw_window_get_desc(w) == before);
  g_assert_cmpuint(lw_window_get_undo_depth(w), ==, undo0);
  g_assert_false(lw_window_get_modified(w));
  dlg = lw_template_dialog_new(w, LW_TEMPLATE_SLIDER_CRANK);
  gtk_window_present(GTK_WINDOW(dlg));
  lwt_await(lwt_is_mapped, dlg, LWT_WAIT);
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_await(template_dialog_gone, NULL, LWT_WAIT);
  g_assert_null(find_toplevel(LW_TYPE_TEMPLATE_DIALOG, NULL));
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/templates/grashof", test_grashof);
  g_test_add_func("/templates/transmission-full-turn", test_transmission_full_turn);
  g_test_add_func("/templates/transmission-rocking", test_transmission_rocking);
  g_test_add_func("/templates/four-bar-assembly", test_four_bar_assembly);
  g_test_add_func("/templates/four-bar-model", test_four_bar_model);
  g_test_add_func("/templates/four-bar-classes-run", test_four_bar_classes_run);
  g_test_add_func("/templates/slider-crank", test_slider_crank);
  g_test_add_func("/templates/slider-crank-short-rod", test_slider_crank_short_rod);
  g_test_add_func("/templates/slider-crank-model", test_slider_crank_model);
  if (gtk_init_check()) {
    adw_init();
    app = lw_application_new();
    g_application_register(G_APPLICATION(app), NULL, NULL);
    g_test_add_func("/templates/dialog-four-bar", test_dialog_four_bar);
    g_test_add_func("/templates/dialog-slider-crank", test_dialog_slider_crank);
    g_test_add_func("/templates/dialog-cancel", test_dialog_cancel);
  } else
    g_test_message("no display: the dialog's tests are skipped (the test command starts Xvfb)");
  int rc = g_test_run();
  g_clear_object(&app);
  return rc;
}
