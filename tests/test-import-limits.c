/* test-import-limits.c: joint limits and joint friction from URDF and MJCF
 * (src/io/lw_urdf.c, src/io/lw_mjcf.c, src/io/lw_import_joint.c).
 *
 * A URDF arm falls onto the upper limit of its shoulder and rests there:
 * its angle never passes the bound by more than the events' tolerance; a
 * URDF turntable with <dynamics friction="F"> spins down with a friction
 * torque of size F while it slides (and a slider with a force of size F);
 * an MJCF arm in degrees (MuJoCo's default), with a reference angle, stops
 * at its range converted to radians from the reference pose, and
 * autolimits works as MuJoCo 2.2.2 defines it; the notes say what was
 * mapped and how; the KUKA arm of ../shared/urdf imports with its seven
 * limits as events and runs 1 s, and R2D2, whose grippers start at their
 * bounds, runs 1 s too. */
#include "lw-test.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "linkwright.h"
#include "lw_io.h"

/* what the importers choose (src/io/lw_import_joint.h) */
#define KAPPA 1e-9

/* a guard at zero counts as touching within 1e-10 (1 + |bound|), and a
 * resting joint holds its bound to the solver's constraint tolerance */
static double limit_tolerance(const lw_desc *d, double bound)
{
  return 1e-10 * (1.0 + fabs(bound)) + d->solver.constraint_tolerance;
}

static lw_desc *urdf_string(const char *xml, char **notes)
{
  lw_error err;
  lw_desc *d = lw_urdf_read_data(xml, strlen(xml), "robot.urdf", notes, &err);
  if (!d)
    g_error("%s", err.msg);
  g_test_message("notes:\n%s", *notes ? *notes : "(none)");
  return d;
}

static const lw_event_desc *event_named(const lw_desc *d, const char *name)
{
  for (int i = 0; i < d->nevents; i++)
    if (!strcmp(d->events[i].name, name))
      return &d->events[i];
  return NULL;
}

static void no_stale_notes(const char *notes)
{
  g_assert_null(strstr(notes, "not available yet"));
  g_assert_null(strstr(notes, "not applied"));
  g_assert_null(strstr(notes, "is not modelled"));
}

static void run(const lw_desc *d, double t_end, lw_sim_result *r)
{
  lw_model *m = lwt_compile(d);
  if (lw_simulate(m, t_end, d->solver.step, r, NULL, NULL) != LW_OK)
    g_error("%s", r->error.msg);
  lw_model_free(m);
}

/* ---- a limit ---------------------------------------------------------- */
/* an arm of 1 kg, its centre of mass 0.5 m out along x, on a shoulder about
 * y: it falls towards positive angles onto the upper bound 1 */
static const char *arm =
    "<robot name=\"arm\">\n"
    "  <link name=\"base\"/>\n"
    "  <link name=\"upper\">\n"
    "    <inertial><origin xyz=\"0.5 0 0\"/><mass value=\"1\"/>\n"
    "      <inertia ixx=\"0.001\" iyy=\"0.02\" izz=\"0.02\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
    "  </link>\n"
    "  <joint name=\"shoulder\" type=\"revolute\">\n"
    "    <parent link=\"base\"/><child link=\"upper\"/><origin xyz=\"0 0 1\"/><axis xyz=\"0 1 0\"/>\n"
    "    <limit lower=\"-0.5\" upper=\"1\" effort=\"10\" velocity=\"1\"/>\n"
    "  </joint>\n"
    "</robot>\n";

/* the largest coordinate of output column col, the final one, and the
 * event log's rest on the given event */
static void stops_at(const lw_desc *d, const lw_sim_result *r, int col, const char *event, double upper)
{
  double top = -INFINITY;
  for (long i = 0; i < r->rows; i++)
    top = fmax(top, lwt_at(r, i, col));
  double last = lwt_at(r, r->rows - 1, col);
  g_test_message("upper bound %.12g: largest %.12g, at the end %.12g (t = %g s); %ld events", upper, top, last,
                 lwt_at(r, r->rows - 1, 0), r->nevents);
  g_assert_cmpfloat(fabs(lwt_at(r, r->rows - 1, 0) - 1.0), <, 1e-9);
  g_assert_cmpfloat(top - upper, <=, limit_tolerance(d, upper));
  g_assert_cmpfloat(fabs(last - upper), <=, limit_tolerance(d, upper));
  int rest = -1;
  for (long k = 0; k < r->nevents && rest < 0; k++) {
    const lw_event_record *e = &r->events[k];
    g_test_message("t = %.9f s: %s %s, normal speed %.6g -> %.6g", e->t, d->events[e->event].name,
                   lw_event_action_name(e->action), e->v_pre, e->v_post);
    if (!strcmp(d->events[e->event].name, event) && e->side == 1 &&
        (e->action == LW_EVREC_REST || e->action == LW_EVREC_IMPACT)) {
      rest = (int)k;
      g_assert_cmpfloat(fabs(e->v_post), <, 1e-9); /* plastic: no bounce */
    }
  }
  g_assert_cmpint(rest, >=, 0);
}

static void test_urdf_limit(void)
{
  g_autofree char *notes = NULL;
  lw_desc *d = urdf_string(arm, &notes);
  const lw_event_desc *e = event_named(d, "shoulder limits");
  g_assert_nonnull(e);
  g_assert_cmpint(e->type, ==, LW_EVENT_JOINT_LIMIT);
  g_assert_cmpstr(e->joint, ==, "shoulder");
  g_assert_true(e->has_lower && e->has_upper);
  g_assert_cmpfloat(e->lower, ==, -0.5);
  g_assert_cmpfloat(e->upper, ==, 1.0);
  g_assert_cmpfloat(e->restitution, ==, 0.0);
  g_assert_nonnull(strstr(notes, "joint shoulder: limits [-0.5, 1] become the joint_limit event \"shoulder limits\" "
                                 "(restitution 0"));
  no_stale_notes(notes);
  lw_sim_result r;
  run(d, 1.0, &r);
  stops_at(d, &r, 1, "shoulder limits", 1.0);
  lw_sim_result_clear(&r);
  lw_desc_free(d);
}

/* ---- friction ------------------------------------------------------------ */
/* a turntable about the vertical (gravity has no moment about its axis),
 * Izz = 0.1 kg m^2 about the axis, friction 0.3 N m; and a slider of 2 kg
 * along x with friction 1.5 N */
static const char *turntable =
    "<robot name=\"turntable\">\n"
    "  <link name=\"base\"/>\n"
    "  <link name=\"table\">\n"
    "    <inertial><origin xyz=\"0.2 0 0\"/><mass value=\"1\"/>\n"
    "      <inertia ixx=\"0.05\" iyy=\"0.05\" izz=\"0.06\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
    "  </link>\n"
    "  <link name=\"block\">\n"
    "    <inertial><mass value=\"2\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
    "  </link>\n"
    "  <joint name=\"spin\" type=\"continuous\">\n"
    "    <parent link=\"base\"/><child link=\"table\"/><axis xyz=\"0 0 1\"/>\n"
    "    <limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/>\n"
    "    <dynamics friction=\"0.3\"/>\n"
    "  </joint>\n"
    "  <joint name=\"slide\" type=\"prismatic\">\n"
    "    <parent link=\"base\"/><child link=\"block\"/><origin xyz=\"0 2 0\"/><axis xyz=\"1 0 0\"/>\n"
    "    <dynamics friction=\"1.5\"/>\n"
    "  </joint>\n"
    "</robot>\n";

typedef struct {
  const char *joint;
  double F, v0, inertia;
} spin_case;

/* the joint set going at v0 and left to its friction: while it slides
 * (|rate| well above the transition speed v_t = 10 h) its friction is F
 * but for the reaction's share kappa N_r (N_r = N - N0, N the output
 * normal_force), and its rate falls at F / inertia */
static void slides_with(lw_desc *d, const spin_case *c)
{
  g_autofree char *fn = g_strdup_printf("%s.friction", c->joint);
  g_autofree char *nn = g_strdup_printf("%s.N", c->joint);
  g_autofree char *sn = g_strdup_printf("%s.slip", c->joint);
  lw_desc_add_output(d, fn, LW_OUT_FRICTION_FORCE)->joint = g_strdup(c->joint);
  lw_desc_add_output(d, nn, LW_OUT_NORMAL_FORCE)->joint = g_strdup(c->joint);
  lw_desc_add_output(d, sn, LW_OUT_SLIP_SPEED)->joint = g_strdup(c->joint);
  lw_initial_desc *in = lw_desc_add_initial(d, c->joint, 0);
  in->has_velocity = 1;
  in->velocity = c->v0;
  lw_model *m = lwt_compile(d);
  lw_sim_result r;
  if (lw_simulate(m, 1.0, d->solver.step, &r, NULL, NULL) != LW_OK)
    g_error("%s", r.error.msg);
  int cf = lwt_col(m, fn), cn = lwt_col(m, nn), cs = lwt_col(m, sn);
  double vt = 10 * d->solver.step, N0 = c->F / KAPPA, worst = 0;
  long sliding = 0;
  for (long i = 0; i < r.rows; i++) {
    if (lwt_at(&r, i, cs) < 10 * vt)
      continue;
    double tau = lwt_at(&r, i, cf), Nr = lwt_at(&r, i, cn) - N0;
    g_assert_cmpfloat(Nr, >, 0);
    g_assert_cmpfloat(tau, <, 0); /* it opposes the motion */
    g_assert_cmpfloat(fabs(fabs(tau) - c->F), <=, KAPPA * Nr + 1e-12 * c->F);
    worst = fmax(worst, fabs(fabs(tau) - c->F));
    sliding++;
  }
  g_test_message("%s: friction within %.3g of %g in %ld sliding rows", c->joint, worst, c->F, sliding);
  g_assert_cmpint(sliding, >, r.rows / 2);
  /* the rate falls at F / I from the first step's end to 0.5 s (the
   * first step starts from the accelerations initialization found, which
   * leave friction out) */
  long half = (long)llround(0.5 / d->solver.step);
  double slope = (lwt_at(&r, 1, cs) - lwt_at(&r, half, cs)) / (lwt_at(&r, half, 0) - lwt_at(&r, 1, 0));
  g_test_message("%s: deceleration %.12g, F / I = %.12g", c->joint, slope, c->F / c->inertia);
  g_assert_cmpfloat(fabs(slope - c->F / c->inertia), <, 1e-6 * c->F / c->inertia);
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

static void test_urdf_friction(void)
{
  g_autofree char *notes = NULL;
  lw_desc *d = urdf_string(turntable, &notes);
  g_assert_nonnull(strstr(notes, "joint spin: friction 0.3 becomes joint friction of that constant size (N m)"));
  g_assert_nonnull(strstr(notes, "joint slide: friction 1.5 becomes joint friction of that constant size (N)"));
  g_assert_nonnull(strstr(notes, "joint spin is continuous: the bounds of its <limit> do not apply"));
  g_assert_cmpint(d->nevents, ==, 0);
  no_stale_notes(notes);
  g_assert_true(d->joints[0].has_friction);
  /* Izz about the axis: 0.06 + 1 kg (0.2 m)^2 = 0.1 kg m^2; the radius is 1 m, so the slip speed is the rate */
  const spin_case cases[2] = {{"spin", 0.3, 2.0, 0.1}, {"slide", 1.5, 1.0, 2.0}};
  for (int k = 0; k < 2; k++) {
    lw_desc *dk = lw_desc_copy(d);
    slides_with(dk, &cases[k]);
    lw_desc_free(dk);
  }
  lw_desc_free(d);
}

/* a range that leaves out 0 (the imported pose): the joint starts at the
 * nearer bound; a <limit> without bounds stops nothing and is said */
static void test_urdf_start_outside(void)
{
  g_autofree char *xml = g_strdup(arm);
  g_autofree char *moved = NULL;
  {
    g_autoptr(GString) s = g_string_new(xml);
    g_string_replace(s, "lower=\"-0.5\" upper=\"1\"", "lower=\"0.25\" upper=\"1\"", 1);
    moved = g_strdup(s->str);
  }
  g_autofree char *notes = NULL;
  lw_desc *d = urdf_string(moved, &notes);
  g_assert_nonnull(strstr(notes, "joint shoulder: 0 lies outside its limits: it starts at 0.25"));
  g_assert_cmpint(d->ninitial, ==, 1);
  g_assert_cmpfloat(d->initial[0].value, ==, 0.25);
  lw_sim_result r;
  run(d, 1.0, &r);
  g_assert_cmpfloat(fabs(lwt_at(&r, 0, 1) - 0.25), <, 1e-9);
  stops_at(d, &r, 1, "shoulder limits", 1.0);
  lw_sim_result_clear(&r);
  lw_desc_free(d);
  g_autoptr(GString) s = g_string_new(arm);
  g_string_replace(s, "lower=\"-0.5\" upper=\"1\" ", "", 1);
  g_autofree char *notes2 = NULL;
  d = urdf_string(s->str, &notes2);
  g_assert_cmpint(d->nevents, ==, 0);
  g_assert_nonnull(strstr(notes2, "joint shoulder: <limit> gives neither lower nor upper: no stop"));
  lw_desc_free(d);
}

/* ---- MJCF ------------------------------------------------------------- */
static lw_desc *mjcf_string(const char *xml, char **notes, lw_error *err)
{
  g_autofree char *dir = g_dir_make_tmp("lw-limits-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "arm.xml", NULL);
  g_assert_true(g_file_set_contents(path, xml, -1, NULL));
  lw_desc *d = lw_mjcf_read_file(path, notes, err);
  g_unlink(path);
  g_rmdir(dir);
  if (!d)
    g_test_message("%s", err->msg);
  else
    g_test_message("notes:\n%s", *notes ? *notes : "(none)");
  return d;
}

static gboolean without_mujoco(const lw_error *err)
{
  if (!strstr(err->msg, "built without"))
    return FALSE;
  g_test_skip("built without MuJoCo");
  return TRUE;
}

/* the arm of the URDF test in MJCF: angles in degrees (MuJoCo's default),
 * the hinge's reference 10 degrees, its range -30 to 60 degrees, a
 * frictionloss of 0.2 N m */
#define MJCF_ARM(COMPILER, JOINT)                                                                                  \
  "<mujoco model=\"arm\">" COMPILER "<worldbody><body name=\"upper\" pos=\"0 0 1\">" JOINT                         \
  "<inertial pos=\"0.5 0 0\" mass=\"1\" diaginertia=\"0.001 0.02 0.02\"/>"                                          \
  "<geom type=\"capsule\" fromto=\"0 0 0 1 0 0\" size=\"0.02\" contype=\"0\" conaffinity=\"0\"/>"                  \
  "</body></worldbody></mujoco>"

static void test_mjcf_degrees(void)
{
  static const char *xml =
      MJCF_ARM("", "<joint name=\"shoulder\" type=\"hinge\" axis=\"0 1 0\" limited=\"true\" range=\"-30 60\" "
                   "ref=\"10\" frictionloss=\"0.2\"/>");
  g_autofree char *notes = NULL;
  lw_error err;
  lw_desc *d = mjcf_string(xml, &notes, &err);
  if (!d && without_mujoco(&err))
    return;
  g_assert_nonnull(d);
  const lw_event_desc *e = event_named(d, "shoulder limits");
  g_assert_nonnull(e);
  double deg = M_PI / 180;
  g_assert_cmpfloat(fabs(e->lower - (-30 - 10) * deg), <, 1e-12);
  g_assert_cmpfloat(fabs(e->upper - (60 - 10) * deg), <, 1e-12);
  g_assert_cmpfloat(e->restitution, ==, 0.0);
  g_assert_nonnull(strstr(notes, "joint shoulder: range [-0.523599, 1.0472] rad becomes the joint_limit event "
                                 "\"shoulder limits\" at [-0.698132, 0.872665]"));
  g_assert_nonnull(strstr(notes, "joint shoulder: frictionloss 0.2 becomes joint friction of that constant size"));
  no_stale_notes(notes);
  g_assert_true(d->joints[0].has_friction);
  lw_sim_result r;
  run(d, 1.0, &r);
  stops_at(d, &r, 1, "shoulder limits", e->upper);
  lw_sim_result_clear(&r);
  lw_desc_free(d);
}

/* MuJoCo 2.2.2: a range without `limited` is refused unless the compiler
 * says autolimits="true", which makes it limited; limited="false" keeps
 * the range out; angle="radian" takes the range as it is */
static void test_mjcf_autolimits(void)
{
  g_autofree char *notes = NULL;
  lw_error err;
  lw_desc *d = mjcf_string(MJCF_ARM("", "<joint name=\"shoulder\" axis=\"0 1 0\" range=\"-30 60\"/>"), &notes, &err);
  if (!d && without_mujoco(&err))
    return;
  g_assert_null(d);
  g_assert_nonnull(strstr(err.msg, "autolimits"));
  d = mjcf_string(MJCF_ARM("<compiler autolimits=\"true\" angle=\"radian\"/>",
                           "<joint name=\"shoulder\" axis=\"0 1 0\" range=\"-0.5 1\"/>"),
                  &notes, &err);
  g_assert_nonnull(d);
  const lw_event_desc *e = event_named(d, "shoulder limits");
  g_assert_nonnull(e);
  g_assert_cmpfloat(e->lower, ==, -0.5);
  g_assert_cmpfloat(e->upper, ==, 1.0);
  lw_desc_free(d);
  g_clear_pointer(&notes, g_free);
  d = mjcf_string(MJCF_ARM("", "<joint name=\"shoulder\" axis=\"0 1 0\" limited=\"false\" range=\"-30 60\"/>"),
                  &notes, &err);
  g_assert_nonnull(d);
  g_assert_cmpint(d->nevents, ==, 0);
  lw_desc_free(d);
}

/* ---- real robots ------------------------------------------------------- */
/* a file of ../shared/urdf imported (NULL: absent, the test skipped).
 * LW_URDF_DIR in the environment stands in for the build's (a work tree
 * whose ../shared does not hold the files) */
static lw_desc *shared_robot(const char *file, char **notes)
{
  const char *dir = g_getenv("LW_URDF_DIR") ? g_getenv("LW_URDF_DIR") : LW_URDF_DIR;
  g_autofree char *path = g_build_filename(dir, file, NULL);
  if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
    g_test_skip("the shared robot descriptions are absent");
    return NULL;
  }
  lw_error err;
  lw_desc *d = lw_urdf_read_file(path, notes, &err);
  if (!d)
    g_error("%s", err.msg);
  g_test_message("notes:\n%s", *notes);
  return d;
}

/* R2D2's gripper joints start at a bound (0 in [-0.38, 0] and [0, 0.548])
 * and nothing pushes them: round-off of the order of 1e-56 on either side
 * of the bound is no event, and the run goes on to 1 s */
static void test_r2d2_at_bounds(void)
{
  g_autofree char *notes = NULL;
  lw_desc *d = shared_robot("bullet3_r2d2.urdf", &notes);
  if (!d)
    return;
  static const char *const names[3] = {"gripper_extension limits", "left_gripper_joint limits",
                                       "right_gripper_joint limits"};
  g_assert_cmpint(d->nevents, ==, 3);
  for (int k = 0; k < 3; k++)
    g_assert_nonnull(event_named(d, names[k]));
  g_assert_nonnull(strstr(notes, "joint head_swivel is continuous: the bounds of its <limit> do not apply"));
  lw_sim_result r;
  run(d, 1.0, &r);
  g_test_message("t = %g s at the end, %ld events%s%s", lwt_at(&r, r.rows - 1, 0), r.nevents,
                 r.error.msg[0] ? ": " : "", r.error.msg);
  g_assert_cmpfloat(fabs(lwt_at(&r, r.rows - 1, 0) - 1.0), <, 1e-9);
  lw_sim_result_clear(&r);
  lw_desc_free(d);
}

static void test_kuka(void)
{
  g_autofree char *notes = NULL;
  lw_desc *d = shared_robot("bullet3_kuka_iiwa_model.urdf", &notes);
  if (!d)
    return;
  no_stale_notes(notes);
  g_assert_nonnull(strstr(notes, "the effort and velocity of <limit> are not imported (no actuators): joints "
                                 "lbr_iiwa_joint_1, lbr_iiwa_joint_2,"));
  /* the file's bounds, joint by joint */
  static const double bound[7] = {2.96705972839, 2.09439510239, 2.96705972839, 2.09439510239,
                                  2.96705972839, 2.09439510239, 3.05432619099};
  g_assert_cmpint(d->nevents, ==, 7);
  for (int j = 0; j < 7; j++) {
    g_autofree char *name = g_strdup_printf("lbr_iiwa_joint_%d limits", j + 1);
    const lw_event_desc *e = event_named(d, name);
    g_assert_nonnull(e);
    g_assert_cmpint(e->type, ==, LW_EVENT_JOINT_LIMIT);
    g_assert_cmpfloat(e->lower, ==, -bound[j]);
    g_assert_cmpfloat(e->upper, ==, bound[j]);
  }
  lw_sim_result r;
  run(d, 1.0, &r);
  g_assert_cmpfloat(fabs(lwt_at(&r, r.rows - 1, 0) - 1.0), <, 1e-9);
  /* every angle inside its limits all the way */
  for (long i = 0; i < r.rows; i++)
    for (int j = 0; j < 7; j++)
      g_assert_cmpfloat(fabs(lwt_at(&r, i, 1 + j)), <=, bound[j] + limit_tolerance(d, bound[j]));
  g_test_message("1 s run, %ld events", r.nevents);
  lw_sim_result_clear(&r);
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/import-limits/urdf-limit", test_urdf_limit);
  g_test_add_func("/import-limits/urdf-friction", test_urdf_friction);
  g_test_add_func("/import-limits/urdf-start-outside", test_urdf_start_outside);
  g_test_add_func("/import-limits/mjcf-degrees", test_mjcf_degrees);
  g_test_add_func("/import-limits/mjcf-autolimits", test_mjcf_autolimits);
  g_test_add_func("/import-limits/kuka", test_kuka);
  g_test_add_func("/import-limits/r2d2-at-bounds", test_r2d2_at_bounds);
  return g_test_run();
}
