/* test-mjcf.c: MuJoCo models (src/io/lw_mjcf.c) from Debian's
 * libmujoco-samples.
 *
 * The slider-crank and the tendon arm import, compile, run 1 s and survive
 * the round trip through the model format; the humanoid is refused with
 * every body that has no Linkwright joint named; the tendon arm (an open
 * chain of two hinges) agrees with MuJoCo run on the same file; broken and
 * huge files are refused with MuJoCo's message or by their size. */
#include "lw-test.h"

#include <glib/gstdio.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "linkwright.h"
#include "lw_io.h"

#define SAMPLES "/usr/share/mujoco/model"

static lw_desc *import(const char *rel, char **notes, lw_error *err)
{
  g_autofree char *path = g_build_filename(SAMPLES, rel, NULL);
  return lw_mjcf_read_file(path, notes, err);
}

static gboolean samples_present(void)
{
  if (g_file_test(SAMPLES "/slider_crank/slider_crank.xml", G_FILE_TEST_EXISTS))
    return TRUE;
  g_test_skip("libmujoco-samples is not installed");
  return FALSE;
}

static void runs_one_second(const lw_desc *d)
{
  lw_check_result chk;
  lw_check(d, &chk);
  if (chk.status != LW_OK)
    g_error("%s", chk.err.msg);
  g_test_message("%d bodies, %d joints, %d degrees of freedom", d->nbodies, d->njoints, chk.dof);
  lw_check_result_clear(&chk);
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  g_assert_nonnull(m);
  lw_sim_result r;
  if (lw_simulate(m, 1.0, d->solver.step, &r, NULL, NULL) != LW_OK)
    g_error("%s", r.error.msg);
  g_assert_cmpfloat(fabs(r.table[(r.rows - 1) * r.ncols] - 1.0), <, 1e-9);
  lw_sim_result_clear(&r);
  lw_model_free(m);
  g_autofree char *json = lw_model_to_json(d);
  lw_desc *back = lw_model_read_data(json, -1, "round-trip.json", NULL, &err);
  g_assert_nonnull(back);
  g_autofree char *again = lw_model_to_json(back);
  g_assert_cmpstr(json, ==, again);
  lw_desc_free(back);
}

static void test_samples(void)
{
  if (!samples_present())
    return;
  const char *files[] = {"slider_crank/slider_crank.xml", "tendon_arm/arm26.xml"};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autofree char *notes = NULL;
    lw_error err;
    lw_desc *d = import(files[i], &notes, &err);
    if (!d)
      g_error("%s", err.msg);
    g_test_message("%s; not imported:\n%s", files[i], notes ? notes : "(nothing)");
    g_assert_nonnull(strstr(notes, "actuator"));
    runs_one_second(d);
    lw_desc_free(d);
  }
}

static void test_humanoid_refused(void)
{
  if (!samples_present())
    return;
  lw_error err;
  lw_desc *d = import("humanoid/humanoid.xml", NULL, &err);
  g_assert_null(d);
  g_test_message("%s", err.msg);
  g_assert_nonnull(strstr(err.msg, "humanoid.xml"));
  g_assert_nonnull(strstr(err.msg, "right_foot"));
  g_assert_nonnull(strstr(err.msg, "left_foot"));
}

/* the arm moves in the horizontal plane, gravity along its axes: it is set
 * turning (shoulder 2 rad/s, elbow -3 rad/s) and coasts, its joints coupled
 * through their inertia, slowed by the joints' damping */
static const double qd0[2] = {2.0, -3.0};

/* MuJoCo's shoulder and elbow angles after 1 s (actuators, contacts and
 * limits off; RK4 at 0.1 ms) */
static void mujoco_arm(double *q)
{
  char err[1000] = "";
  mjModel *m = mj_loadXML(SAMPLES "/tendon_arm/arm26.xml", NULL, err, sizeof err);
  g_assert_nonnull(m);
  m->opt.timestep = 1e-4;
  m->opt.integrator = mjINT_RK4;
  m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_ACTUATION;
  mjData *d = mj_makeData(m);
  d->qvel[0] = qd0[0];
  d->qvel[1] = qd0[1];
  for (int k = 0; k < 10000; k++)
    mj_step(m, d);
  const char *names[2] = {"shoulder", "elbow"};
  for (int j = 0; j < 2; j++)
    q[j] = d->qpos[m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, names[j])]] - m->qpos0[m->jnt_qposadr[j]];
  mj_deleteData(d);
  mj_deleteModel(m);
}

static void our_arm(const lw_desc *desc, double h, double *q)
{
  lw_error err;
  lw_model *m = lw_compile(desc, &err);
  g_assert_nonnull(m);
  lw_sim_result r;
  g_assert_cmpint(lw_simulate(m, 1.0, h, &r, NULL, NULL), ==, LW_OK);
  /* the importer's outputs: shoulder.q, elbow.q */
  const double *last = r.table + (r.rows - 1) * r.ncols;
  q[0] = last[1];
  q[1] = last[2];
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

static void test_arm_against_mujoco(void)
{
  if (!samples_present())
    return;
  lw_error err;
  lw_desc *d = import("tendon_arm/arm26.xml", NULL, &err);
  g_assert_nonnull(d);
  g_assert_cmpstr(d->outputs[0].joint, ==, "shoulder");
  g_assert_cmpstr(d->outputs[1].joint, ==, "elbow");
  /* limits off on both sides: the imported stops go */
  while (d->nevents) {
    g_autofree char *path = g_strdup_printf("events/%s", d->events[0].name);
    g_assert_cmpint(lw_desc_remove(d, path), >, 0);
  }
  for (int j = 0; j < 2; j++) {
    lw_initial_desc *in = lw_desc_add_initial(d, d->outputs[j].joint, 0);
    in->has_velocity = 1;
    in->velocity = qd0[j];
  }
  double mj[2], h1[2], h2[2];
  mujoco_arm(mj);
  our_arm(d, 1e-3, h1);
  our_arm(d, 5e-4, h2);
  double ours = 0, diff = 0, moved = 0;
  for (int j = 0; j < 2; j++) {
    g_test_message("%s: MuJoCo %.8f, ours %.8f (1 ms), %.8f (0.5 ms)", d->outputs[j].joint, mj[j], h1[j], h2[j]);
    ours = fmax(ours, fabs(h1[j] - h2[j]));
    diff = fmax(diff, fabs(h2[j] - mj[j]));
    moved = fmax(moved, fabs(mj[j]));
  }
  g_test_message("largest angle %.3f rad; ours 1 ms vs 0.5 ms %.2e rad; ours 0.5 ms vs MuJoCo %.2e rad", moved, ours,
                 diff);
  g_assert_cmpfloat(moved, >, 0.1);
  g_assert_cmpfloat(diff, <, fmax(ours, 1e-6));
  lw_desc_free(d);
}

static void test_bad_files(void)
{
  g_autofree char *dir = g_dir_make_tmp("lw-mjcf-XXXXXX", NULL);
  g_autofree char *broken = g_build_filename(dir, "broken.xml", NULL);
  g_assert_true(g_file_set_contents(broken,
                                    "<mujoco>\n  <worldbody>\n    <body pos=\"0 0 one\">\n"
                                    "      <joint type=\"hinge\"/><geom size=\".1\"/>\n    </body>\n"
                                    "  </worldbody>\n</mujoco>\n",
                                    -1, NULL));
  lw_error err;
  g_assert_null(lw_mjcf_read_file(broken, NULL, &err));
  g_test_message("%s", err.msg);
  g_assert_nonnull(strstr(err.msg, "broken.xml"));
  g_assert_nonnull(strstr(err.msg, "line 3"));
  g_autofree char *big = g_build_filename(dir, "big.xml", NULL);
  FILE *f = fopen(big, "w");
  g_assert_nonnull(f);
  g_assert_cmpint(fseek(f, (1L << 30) - 1, SEEK_SET), ==, 0);
  fputc('\n', f);
  fclose(f);
  g_assert_null(lw_mjcf_read_file(big, NULL, &err));
  g_test_message("%s", err.msg);
  g_assert_nonnull(strstr(err.msg, "too large"));
  g_unlink(broken);
  g_unlink(big);
  g_rmdir(dir);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mjcf/samples", test_samples);
  g_test_add_func("/mjcf/humanoid-refused", test_humanoid_refused);
  g_test_add_func("/mjcf/arm-against-mujoco", test_arm_against_mujoco);
  g_test_add_func("/mjcf/bad-files", test_bad_files);
  return g_test_run();
}
