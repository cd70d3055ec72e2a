/* test-urdf-mujoco.c: the KUKA iiwa arm of ../shared/urdf imported by
 * Linkwright and loaded by MuJoCo 2.2.2 from the same file, 1 s under
 * gravity with joint damping: the joint angles agree.
 *
 * MuJoCo reads the URDF itself (mj_loadXML; visuals and collisions, whose
 * mesh files are absent, are taken out of the text first), contacts and
 * joint limits off (Linkwright has neither yet), RK4 at 0.1 ms: its own
 * integration error is far below ours.  Ours: ALI3-P at h and h/2, whose
 * difference estimates our error at h (second order); the difference to
 * MuJoCo must be of that size, not of the size of a wrong mapping
 * (a misplaced axis or centre of mass changes the angles by 0.1 rad and
 * more within the second). */
#include "lw-test.h"

#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkwright.h"
#include "lw_io.h"

#define NJ 7

static char *without_meshes(const char *xml)
{
  g_autoptr(GRegex) re = g_regex_new("<(visual|collision)>.*?</\\1>", G_REGEX_DOTALL, 0, NULL);
  return g_regex_replace(re, xml, -1, 0, "", 0, NULL);
}

/* MuJoCo's joint angles after 1 s */
static int mujoco_angles(const char *xml, double *angles)
{
  mjVFS *vfs = malloc(sizeof *vfs);
  g_assert_nonnull(vfs);
  mj_defaultVFS(vfs);
  int len = (int)strlen(xml);
  g_assert_cmpint(mj_makeEmptyFileVFS(vfs, "kuka.urdf", len), ==, 0);
  memcpy(vfs->filedata[mj_findFileVFS(vfs, "kuka.urdf")], xml, (size_t)len);
  char err[1000] = "";
  mjModel *m = mj_loadXML("kuka.urdf", vfs, err, sizeof err);
  mj_deleteVFS(vfs);
  free(vfs);
  if (!m) {
    g_test_message("MuJoCo does not load the file: %s", err);
    return -1;
  }
  m->opt.timestep = 1e-4;
  m->opt.integrator = mjINT_RK4;
  m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT;
  mjData *d = mj_makeData(m);
  for (int k = 0; k < 10000; k++)
    mj_step(m, d);
  g_test_message("MuJoCo: t = %g s, %d joints", d->time, m->njnt);
  for (int j = 0; j < NJ; j++) {
    char name[32];
    snprintf(name, sizeof name, "lbr_iiwa_joint_%d", j + 1);
    int id = mj_name2id(m, mjOBJ_JOINT, name);
    g_assert_cmpint(id, >=, 0);
    angles[j] = d->qpos[m->jnt_qposadr[id]];
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}

/* ours after 1 s at step h: the joints' outputs (the importer adds one per
 * moving joint, in the file's order) */
static void our_angles(const lw_desc *desc, double h, double *angles)
{
  lw_error err;
  lw_model *m = lw_compile(desc, &err);
  if (!m)
    g_error("%s", err.msg);
  lw_sim_result r;
  if (lw_simulate(m, 1.0, h, &r, NULL, NULL) != LW_OK)
    g_error("%s", r.error.msg);
  const double *last = r.table + (r.rows - 1) * r.ncols;
  g_assert_cmpfloat(fabs(last[0] - 1.0), <, 1e-9);
  g_assert_cmpint(desc->noutputs, ==, NJ);
  for (int j = 0; j < NJ; j++)
    angles[j] = last[1 + j];
  lw_sim_result_clear(&r);
  lw_model_free(m);
}

static void test_kuka(void)
{
  g_autofree char *path = g_build_filename(LW_URDF_DIR, "bullet3_kuka_iiwa_model.urdf", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL)) {
    g_test_skip("the shared robot descriptions are absent");
    return;
  }
  lw_error err;
  lw_desc *d = lw_urdf_read_file(path, NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  g_autofree char *bare = without_meshes(text);
  double mj[NJ], h1[NJ], h2[NJ];
  g_assert_cmpint(mujoco_angles(bare, mj), ==, 0);
  our_angles(d, 1e-3, h1);
  our_angles(d, 5e-4, h2);
  double ours = 0, diff = 0, moved = 0;
  for (int j = 0; j < NJ; j++) {
    g_test_message("joint %d: MuJoCo %.8f, ours %.8f (h = 1 ms), %.8f (h = 0.5 ms)", j + 1, mj[j], h1[j], h2[j]);
    ours = fmax(ours, fabs(h1[j] - h2[j]));
    diff = fmax(diff, fabs(h2[j] - mj[j]));
    moved = fmax(moved, fabs(mj[j]));
  }
  g_test_message("largest angle reached %.3f rad; ours at 1 ms vs 0.5 ms: %.2e rad; ours at 0.5 ms vs MuJoCo: "
                 "%.2e rad",
                 moved, ours, diff);
  /* the arm moves (else nothing was compared) */
  g_assert_cmpfloat(moved, >, 0.1);
  /* our error at 0.5 ms is about a third of the 1 ms - 0.5 ms difference
   * (second order); allow that and MuJoCo's much smaller error twice over */
  g_assert_cmpfloat(diff, <, fmax(ours, 1e-6));
  lw_desc_free(d);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/urdf-mujoco/kuka", test_kuka);
  return g_test_run();
}
