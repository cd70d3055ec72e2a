/* test-urdf.c: robot descriptions in URDF (src/io/lw_urdf.c).
 *
 * Every file of ../shared/urdf imports, compiles and runs 1 s under gravity
 * with the energy balance kept (kinetic + potential + dissipated constant);
 * imported, saved as JSON and read back it is the same model; broken and
 * hostile files are refused quickly with the file, the line and the
 * element named; and two small robots built by hand check the mapping
 * (lumped inertia of fixed links, joint placement, damping). */
#include "lw-test.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "linkwright.h"
#include "lw_io.h"

static lw_desc *import_string(const char *xml, char **notes, lw_error *err)
{
  return lw_urdf_read_data(xml, strlen(xml), "robot.urdf", notes, err);
}

/* E(t) + D(t) - E(0) over a 1 s run, relative to the largest energy seen */
static double energy_drift(const lw_desc *desc, double h, int *status, char *why, size_t nwhy)
{
  lw_desc *d = lw_desc_copy(desc);
  /* a joint's stop takes energy out at its plastic impact, which
   * dissipated_energy does not count: the balance is that of the motion
   * without the stops */
  while (d->nevents) {
    g_autofree char *path = g_strdup_printf("events/%s", d->events[0].name);
    g_assert_cmpint(lw_desc_remove(d, path), >, 0);
  }
  int first = d->noutputs;
  lw_desc_add_builtin_outputs(d);
  int e_out = -1, diss = -1;
  for (int k = first; k < d->noutputs; k++) {
    if (d->outputs[k].type == LW_OUT_TOTAL_ENERGY)
      e_out = k;
    if (d->outputs[k].type == LW_OUT_DISSIPATED_ENERGY)
      diss = k;
  }
  g_assert_cmpint(e_out, >=, 0);
  g_assert_cmpint(diss, >=, 0);
  lw_error err;
  lw_model *m = lw_compile(d, &err);
  if (!m)
    g_error("%s", err.msg);
  lw_sim_result r;
  *status = lw_simulate(m, 1.0, h, &r, NULL, NULL);
  snprintf(why, nwhy, "%s", r.error.msg);
  double drift = 0, scale = 1e-300;
  if (*status == LW_OK) {
    /* columns: time, then the outputs in order, each of its width */
    int ce = 1, cd = 1;
    for (int k = 0; k < d->noutputs; k++) {
      int w = lw_output_width(d->outputs[k].type, d->planar);
      if (k < e_out)
        ce += w;
      if (k < diss)
        cd += w;
    }
    double e0 = r.table[ce];
    for (long i = 0; i < r.rows; i++) {
      const double *row = r.table + i * r.ncols;
      drift = fmax(drift, fabs(row[ce] + row[cd] - e0));
      scale = fmax(scale, fabs(row[ce] - e0));
    }
  }
  lw_sim_result_clear(&r);
  lw_model_free(m);
  lw_desc_free(d);
  return drift / fmax(scale, 1e-3);
}

static void test_shared_file(gconstpointer data)
{
  const char *path = data;
  g_autofree char *notes = NULL;
  lw_error err;
  lw_desc *d = lw_urdf_read_file(path, &notes, &err);
  if (!d) {
    /* refused: only for what no rigid body has, with the line */
    g_test_message("refused: %s", err.msg);
    g_assert_true(g_str_has_prefix(err.msg, path));
    g_assert_nonnull(strstr(err.msg, "the inertia is not one of a rigid body"));
    return;
  }
  g_test_message("%s: %d bodies, %d joints, %d forces; not represented:\n%s", path, d->nbodies, d->njoints,
                 d->nforces, notes ? notes : "(nothing)");
  g_assert_cmpint(d->nbodies, >, 0);
  lw_check_result chk;
  lw_check(d, &chk);
  if (chk.status != LW_OK)
    g_error("%s: %s", path, chk.err.msg);
  g_assert_cmpint(chk.nredundant, ==, 0);
  g_test_message("%s: %d degrees of freedom, assembled to %.2g", path, chk.dof, chk.residual);
  lw_check_result_clear(&chk);
  int status;
  char why[512];
  double drift = energy_drift(d, 1e-3, &status, why, sizeof why);
  if (status != LW_OK)
    g_error("%s: %s", path, why);
  g_test_message("%s: 1 s at h = 1 ms, energy balance kept to %.2g of the energy exchanged", path, drift);
  g_assert_cmpfloat(drift, <, 1e-2);
  /* the round trip through the model format */
  g_autofree char *json = lw_model_to_json(d);
  lw_desc *back = lw_model_read_data(json, -1, "round-trip.json", NULL, &err);
  if (!back)
    g_error("%s", err.msg);
  g_autofree char *again = lw_model_to_json(back);
  g_assert_cmpstr(json, ==, again);
  lw_desc_free(back);
  lw_desc_free(d);
}

/* a base, an arm on a revolute joint about y with a box fixed to its end,
 * a slider on the arm: the mapping checked against hand computation */
static const char *arm =
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"arm\">\n"
    "  <material name=\"red\"><color rgba=\"1 0 0 1\"/></material>\n"
    "  <link name=\"base\"/>\n"
    "  <link name=\"upper\">\n"
    "    <inertial><origin xyz=\"0.5 0 0\"/><mass value=\"2\"/>\n"
    "      <inertia ixx=\"0.01\" iyy=\"0.2\" izz=\"0.2\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
    "    <visual><origin xyz=\"0.5 0 0\" rpy=\"0 1.5707963267948966 0\"/>\n"
    "      <geometry><cylinder radius=\"0.05\" length=\"1\"/></geometry><material name=\"red\"/></visual>\n"
    "  </link>\n"
    "  <link name=\"tip\">\n"
    "    <inertial><mass value=\"1\"/><inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
    "    <visual><geometry><box size=\"0.2 0.1 0.1\"/></geometry></visual>\n"
    "  </link>\n"
    "  <link name=\"slider\">\n"
    "    <inertial><mass value=\"0.5\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
    "    <visual><geometry><mesh filename=\"package://arm/slider.stl\"/></geometry></visual>\n"
    "  </link>\n"
    "  <joint name=\"shoulder\" type=\"revolute\">\n"
    "    <parent link=\"base\"/><child link=\"upper\"/>\n"
    "    <origin xyz=\"0 0 1\"/><axis xyz=\"0 2 0\"/>\n"
    "    <limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/>\n"
    "    <dynamics damping=\"0.5\" friction=\"0.1\"/>\n"
    "  </joint>\n"
    "  <joint name=\"weld\" type=\"fixed\">\n"
    "    <parent link=\"upper\"/><child link=\"tip\"/><origin xyz=\"1 0 0\"/>\n"
    "  </joint>\n"
    "  <joint name=\"slide\" type=\"prismatic\">\n"
    "    <parent link=\"upper\"/><child link=\"slider\"/><origin xyz=\"0.5 0 0\" rpy=\"0 0 1.5707963267948966\"/>\n"
    "    <axis xyz=\"1 0 0\"/>\n"
    "  </joint>\n"
    "  <gazebo/>\n"
    "</robot>\n";

static void test_mapping(void)
{
  g_autofree char *notes = NULL;
  lw_error err;
  lw_desc *d = import_string(arm, &notes, &err);
  if (!d)
    g_error("%s", err.msg);
  g_test_message("notes:\n%s", notes);
  g_assert_cmpstr(d->name, ==, "arm");
  g_assert_cmpint(d->nbodies, ==, 2); /* upper with tip lumped, slider */
  const lw_body_desc *up = &d->bodies[0];
  g_assert_cmpstr(up->name, ==, "upper");
  /* 2 kg at x = 0.5 and 1 kg at x = 1: 3 kg at x = 2/3 */
  g_assert_cmpfloat_with_epsilon(up->mass, 3.0, 1e-15);
  g_assert_cmpfloat_with_epsilon(up->com[0], 2.0 / 3.0, 1e-15);
  /* Iyy = 0.2 + 2 (1/6)^2 + 0.1 + 1 (1/3)^2 */
  double iyy = 0.2 + 2.0 / 36.0 + 0.1 + 1.0 / 9.0;
  g_assert_cmpfloat_with_epsilon(up->inertia[1], iyy, 1e-14);
  g_assert_cmpfloat_with_epsilon(up->inertia[0], 0.11, 1e-14);
  g_assert_cmpfloat_with_epsilon(up->position[2], 1.0, 1e-15);
  /* the cylinder along x from 0 to 1, the tip's box at x = 1 */
  g_assert_cmpint(up->ngeoms, ==, 2);
  g_assert_cmpint(up->geoms[0].type, ==, LW_GEOM_CYLINDER);
  g_assert_cmpfloat(fabs(up->geoms[0].from[0]) + fabs(up->geoms[0].to[0] - 1), <, 1e-12);
  g_assert_cmpfloat(up->geoms[0].color[0], ==, 1.0);
  g_assert_cmpint(up->geoms[1].type, ==, LW_GEOM_BOX);
  g_assert_cmpfloat_with_epsilon(up->geoms[1].center[0], 1.0, 1e-15);
  g_assert_cmpfloat_with_epsilon(up->geoms[1].size[0], 0.1, 1e-15);
  /* the slider turned 90 degrees about z: its axis is the world's y */
  g_assert_cmpint(d->njoints, ==, 2);
  const lw_joint_desc *sh = &d->joints[0], *sl = &d->joints[1];
  g_assert_cmpstr(sh->body[0], ==, "ground");
  g_assert_cmpint(sh->type, ==, LW_JOINT_REVOLUTE);
  g_assert_cmpfloat_with_epsilon(sh->gaxis[1], 1.0, 1e-15); /* normalized */
  g_assert_cmpfloat_with_epsilon(sh->at[2], 1.0, 1e-15);
  g_assert_cmpint(sl->type, ==, LW_JOINT_PRISMATIC);
  g_assert_cmpstr(sl->body[0], ==, "upper");
  g_assert_cmpfloat_with_epsilon(sl->gaxis[1], 1.0, 1e-15);
  g_assert_cmpfloat_with_epsilon(sl->at[0], 0.5, 1e-15);
  /* damping as a joint damper; what is not represented is said */
  g_assert_cmpint(d->nforces, ==, 1);
  g_assert_cmpint(d->forces[0].type, ==, LW_FORCE_JOINT_SPRING_DAMPER);
  g_assert_cmpfloat(d->forces[0].damping, ==, 0.5);
  /* the mesh kept as a mesh geometry: the view reads it, or draws a box */
  g_assert_cmpint(d->bodies[1].ngeoms, ==, 1);
  g_assert_cmpint(d->bodies[1].geoms[0].type, ==, LW_GEOM_MESH);
  g_assert_cmpstr(d->bodies[1].geoms[0].mesh, ==, "package://arm/slider.stl");
  g_assert_nonnull(strstr(notes, "friction"));
  g_assert_nonnull(strstr(notes, "limits [-1, 1]"));
  g_assert_nonnull(strstr(notes, "<gazebo>"));
  /* it runs */
  int status;
  char why[512];
  double drift = energy_drift(d, 1e-3, &status, why, sizeof why);
  g_assert_cmpint(status, ==, LW_OK);
  g_assert_cmpfloat(drift, <, 1e-2);
  lw_desc_free(d);
}

/* a broken file names the file, the line and the element */
static void test_errors(void)
{
  static const struct {
    const char *xml, *expect;
  } cases[] = {
      {"<robot name=\"x\"><link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"hinge\">"
       "<parent link=\"a\"/><child link=\"b\"/></joint></robot>",
       "robot.urdf:3: field joint j: type must be"},
      {"<robot name=\"x\"><link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\">\n"
       "<parent link=\"a\"/><child link=\"c\"/></joint></robot>",
       "robot.urdf:4: field joint j/child: there is no link \"c\""},
      {"<robot name=\"x\"><link name=\"a\"/>\n<link name=\"b\">\n<inertial><mass value=\"one\"/></inertial></link>"
       "</robot>",
       "robot.urdf:3: field link b/inertial: value must be 1 number"},
      {"<robot name=\"x\"><link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\">\n"
       "<parent link=\"a\"/><child link=\"b\"/></joint></robot>",
       "robot.urdf:2: field b: link \"b\" moves but has no mass"},
      {"<robot name=\"x\"><link name=\"a\"/><link name=\"b\"/></robot>", "both have no parent joint"},
      {"<robot name=\"x\"><link name=\"a\">\n</robot>", "robot.urdf:2: not well-formed XML"},
      {"<model/>", "holds one <robot> element"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    lw_error err;
    g_autofree char *notes = NULL;
    lw_desc *d = import_string(cases[i].xml, &notes, &err);
    g_assert_null(d);
    g_test_message("%s", err.msg);
    if (!strstr(err.msg, cases[i].expect))
      g_error("case %u: \"%s\" does not say \"%s\"", i, err.msg, cases[i].expect);
  }
}

/* an XML bomb, an external entity and a huge file are refused at once */
static void test_hostile(void)
{
  GString *bomb = g_string_new("<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n<!ENTITY a \"aaaaaaaaaa\">\n");
  for (int k = 1; k < 10; k++)
    g_string_append_printf(bomb, "<!ENTITY %c \"&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;\">\n", 'a' + k,
                           'a' + k - 1, 'a' + k - 1, 'a' + k - 1, 'a' + k - 1, 'a' + k - 1, 'a' + k - 1, 'a' + k - 1,
                           'a' + k - 1, 'a' + k - 1, 'a' + k - 1);
  g_string_append(bomb, "]>\n<robot name=\"&j;\"><link name=\"a\"/></robot>\n");
  const char *external = "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
                         "<robot name=\"&x;\"><link name=\"a\"/></robot>\n";
  const char *dtd = "<?xml version=\"1.0\"?>\n<!DOCTYPE robot SYSTEM \"http://example.invalid/robot.dtd\">\n"
                    "<robot name=\"x\"><link name=\"a\"/></robot>\n";
  const char *docs[] = {bomb->str, external, dtd};
  for (guint i = 0; i < G_N_ELEMENTS(docs); i++) {
    gint64 t0 = g_get_monotonic_time();
    lw_error err;
    lw_desc *d = import_string(docs[i], NULL, &err);
    g_test_message("%s (%.1f ms)", err.msg, (g_get_monotonic_time() - t0) / 1000.0);
    g_assert_null(d);
    /* by the check of the document type, or by the parser itself (it
     * notices the loop of the bomb first): either way named */
    g_assert_true(strstr(err.msg, "refused") || strstr(err.msg, "entity"));
    g_assert_true(g_str_has_prefix(err.msg, "robot.urdf"));
    /* quickly: not after expanding anything (a bomb takes minutes and
     * gigabytes) */
    g_assert_cmpint(g_get_monotonic_time() - t0, <, G_USEC_PER_SEC);
  }
  g_string_free(bomb, TRUE);
  /* a 1 GB file (sparse: nothing is written) is refused by its size */
  g_autofree char *dir = g_dir_make_tmp("lw-urdf-XXXXXX", NULL);
  g_autofree char *big = g_build_filename(dir, "big.urdf", NULL);
  FILE *f = fopen(big, "w");
  g_assert_nonnull(f);
  g_assert_cmpint(fseek(f, (1L << 30) - 1, SEEK_SET), ==, 0);
  fputc('\n', f);
  fclose(f);
  lw_error err;
  lw_desc *d = lw_urdf_read_file(big, NULL, &err);
  g_assert_null(d);
  g_test_message("%s", err.msg);
  g_assert_nonnull(strstr(err.msg, "too large"));
  g_assert_nonnull(strstr(err.msg, "big.urdf"));
  g_unlink(big);
  g_rmdir(dir);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/urdf/mapping", test_mapping);
  g_test_add_func("/urdf/errors", test_errors);
  g_test_add_func("/urdf/hostile", test_hostile);
  GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
  GDir *dir = g_dir_open(LW_URDF_DIR, 0, NULL);
  if (dir) {
    const char *n;
    while ((n = g_dir_read_name(dir)))
      if (g_str_has_suffix(n, ".urdf"))
        g_ptr_array_add(paths, g_build_filename(LW_URDF_DIR, n, NULL));
    g_dir_close(dir);
  } else
    g_test_message("%s is absent: the shared robot descriptions are not tested", LW_URDF_DIR);
  for (guint i = 0; i < paths->len; i++) {
    g_autofree char *base = g_path_get_basename(g_ptr_array_index(paths, i));
    g_autofree char *tp = g_strdup_printf("/urdf/shared/%s", base);
    g_test_add_data_func(tp, g_ptr_array_index(paths, i), test_shared_file);
  }
  int rc = g_test_run();
  g_ptr_array_unref(paths);
  return rc;
}
