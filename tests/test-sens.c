/* Sensitivities: every analytic partial derivative against central
 * differences, forward against discrete adjoint against finite differences
 * of the whole simulation on every shipped model, the published five-bar
 * gradients (seed 002 tables 7.4-7.6), checkpointing and bad requests. */
#include "lw-test.h"
#include "lw_internal.h"
#include "la/lw_matrix.h"
#include "lin/lw_jvp.h"
#include "lin/lw_tangent.h"

#include <stdio.h>
#include <string.h>

/* ---- models that use every element type ---------------------------------- */
static const char *planar_json =
  "{\"linkwright\": 1, \"name\": \"elements\", \"planar\": true, \"gravity\": [0.3, -9.81],"
  " \"solver\": {\"t_end\": 0.2, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.0, \"com\": [0.5, 0.05], \"inertia\": 0.1, \"position\": [0, 0],"
  "   \"angle\": 0.3, \"points\": {\"start\": [0, 0], \"end\": [1, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 2.0, \"com\": [0.4, -0.02], \"inertia\": 0.2, \"position\": [0.95, 0.3],"
  "   \"angle\": -0.1, \"points\": {\"start\": [0, 0], \"end\": [0.8, 0]}},"
  "  {\"name\": \"wheel\", \"mass\": 0.7, \"com\": [0.01, 0.02], \"inertia\": 0.05, \"position\": [2.0, 0],"
  "   \"points\": {\"rim\": [0.3, 0]}}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\","
  "   \"point1\": \"end\", \"point2\": \"start\"},"
  "  {\"name\": \"hub\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"wheel\", \"at\": [2.0, 0]}],"
  " \"forces\": ["
  "  {\"name\": \"jsd\", \"type\": \"joint_spring_damper\", \"joint\": \"elbow\", \"stiffness\": 5,"
  "   \"damping\": 0.3, \"rest_value\": 0.2},"
  "  {\"name\": \"tq\", \"type\": \"torque\", \"body\": \"link1\", \"value\": 0.7,"
  "   \"function\": {\"type\": \"sine\", \"offset\": 0.2, \"amplitude\": 1.5, \"omega\": 4, \"phase\": 0.1}},"
  "  {\"name\": \"push\", \"type\": \"force\", \"body\": \"link2\", \"point\": \"end\", \"vector\": [1, 0.5],"
  "   \"function\": {\"type\": \"linear\", \"value\": 0.5, \"rate\": 2}},"
  "  {\"name\": \"sp\", \"type\": \"spring_damper\", \"body1\": \"wheel\", \"point1\": \"rim\","
  "   \"body2\": \"link2\", \"point2\": \"end\", \"stiffness\": 20, \"damping\": 0.5, \"rest_length\": 0.6},"
  "  {\"name\": \"fb\", \"type\": \"state_feedback\", \"joint\": \"shoulder\", \"gains\": ["
  "   {\"joint\": \"shoulder\", \"kp\": 4, \"kd\": 0.5, \"ki\": 1.5, \"target\": {\"type\": \"sine\", \"offset\": 0.2,"
  "    \"amplitude\": 0.3, \"omega\": 2, \"phase\": 0}},"
  "   {\"joint\": \"elbow\", \"kp\": -1.5, \"kd\": 0.2}]},"
  "  {\"name\": \"spd\", \"type\": \"pid\", \"joint\": \"elbow\", \"measure\": \"rate\", \"kp\": 0.8, \"ki\": 0.6,"
  "   \"target\": {\"type\": \"linear\", \"value\": 0.3, \"rate\": -0.5}}],"
  " \"drivers\": [{\"name\": \"motor\", \"joint\": \"hub\", \"function\": {\"type\": \"sine\","
  "   \"offset\": 0.1, \"amplitude\": 0.5, \"omega\": 3, \"phase\": 0.2}}],"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.3, \"velocity\": 0.5},"
  "   {\"joint\": \"elbow\", \"value\": -0.4, \"velocity\": -0.2}],"
  " \"outputs\": ["
  "  {\"name\": \"p\", \"type\": \"position\", \"body\": \"link2\", \"point\": \"end\"},"
  "  {\"name\": \"v\", \"type\": \"velocity\", \"body\": \"link2\", \"point\": \"end\"},"
  "  {\"name\": \"a\", \"type\": \"acceleration\", \"body\": \"link2\", \"point\": [0.2, 0.1]},"
  "  {\"name\": \"th\", \"type\": \"joint_coordinate\", \"joint\": \"elbow\"},"
  "  {\"name\": \"thd\", \"type\": \"joint_velocity\", \"joint\": \"elbow\"},"
  "  {\"name\": \"R\", \"type\": \"reaction_force\", \"joint\": \"shoulder\"},"
  "  {\"name\": \"ke\", \"type\": \"kinetic_energy\"},"
  "  {\"name\": \"pe\", \"type\": \"potential_energy\"},"
  "  {\"name\": \"u\", \"type\": \"control\", \"force\": \"fb\"},"
  "  {\"name\": \"u2\", \"type\": \"control\", \"force\": \"spd\"},"
  "  {\"name\": \"spl\", \"type\": \"spring_length\", \"force\": \"sp\"},"
  "  {\"name\": \"spf\", \"type\": \"spring_force\", \"force\": \"sp\"},"
  "  {\"name\": \"jsl\", \"type\": \"spring_length\", \"force\": \"jsd\"},"
  "  {\"name\": \"jsf\", \"type\": \"spring_force\", \"force\": \"jsd\"}],"
  " \"parameters\": ["
  "  {\"name\": \"k_elbow\", \"bind\": \"forces/jsd/stiffness\"},"
  "  {\"name\": \"c_elbow\", \"bind\": \"forces/jsd/damping\"},"
  "  {\"name\": \"rest_elbow\", \"bind\": \"forces/jsd/rest_value\"},"
  "  {\"name\": \"tq_amp\", \"bind\": \"forces/tq/function/1\"},"
  "  {\"name\": \"tq_omega\", \"bind\": \"forces/tq/function/2\"},"
  "  {\"name\": \"tq_value\", \"bind\": \"forces/tq/vector/2\"},"
  "  {\"name\": \"push_x\", \"bind\": \"forces/push/vector/0\"},"
  "  {\"name\": \"push_rate\", \"bind\": \"forces/push/function/1\"},"
  "  {\"name\": \"sp_k\", \"bind\": \"forces/sp/stiffness\"},"
  "  {\"name\": \"sp_c\", \"bind\": \"forces/sp/damping\"},"
  "  {\"name\": \"sp_rest\", \"bind\": \"forces/sp/rest_length\"},"
  "  {\"name\": \"fb_kp0\", \"bind\": \"forces/fb/gains/0/kp\"},"
  "  {\"name\": \"fb_kd1\", \"bind\": \"forces/fb/gains/1/kd\"},"
  "  {\"name\": \"fb_amp\", \"bind\": \"forces/fb/gains/0/target/1\"},"
  "  {\"name\": \"spd_kp\", \"bind\": \"forces/spd/kp\"},"
  "  {\"name\": \"fb_ki0\", \"bind\": \"forces/fb/gains/0/ki\"},"
  "  {\"name\": \"spd_ki\", \"bind\": \"forces/spd/ki\"},"
  "  {\"name\": \"spd_rate\", \"bind\": \"forces/spd/target/1\"},"
  "  {\"name\": \"m2\", \"bind\": \"bodies/link2/mass\"},"
  "  {\"name\": \"com2y\", \"bind\": \"bodies/link2/com/1\"},"
  "  {\"name\": \"J2\", \"bind\": \"bodies/link2/inertia/2\"},"
  "  {\"name\": \"end1y\", \"bind\": \"bodies/link1/points/end/1\"},"
  "  {\"name\": \"rim\", \"bind\": \"bodies/wheel/points/rim/0\"},"
  "  {\"name\": \"drv_omega\", \"bind\": \"drivers/motor/function/2\"},"
  "  {\"name\": \"drv_phase\", \"bind\": \"drivers/motor/function/3\"},"
  "  {\"name\": \"gy\", \"bind\": \"gravity/1\"},"
  "  {\"name\": \"sh0\", \"bind\": \"initial/shoulder/value\"},"
  "  {\"name\": \"el_v0\", \"bind\": \"initial/elbow/velocity\"},"
  "  {\"name\": \"w_o1\", \"bind\": \"objectives/o1/terms/0/weight\"},"
  "  {\"name\": \"tgt_o1\", \"bind\": \"objectives/o1/terms/0/target/1\"}],"
  " \"objectives\": ["
  "  {\"name\": \"o1\", \"terms\": [{\"output\": \"p\", \"target\": [1.5, 0.2], \"weight\": 2},"
  "    {\"output\": \"th\", \"kind\": \"final\", \"form\": \"value\"}, {\"output\": \"u2\", \"kind\": \"final\"}]},"
  "  {\"name\": \"o2\", \"terms\": [{\"output\": \"R\"}, {\"output\": \"ke\", \"kind\": \"final\"},"
  "    {\"output\": \"a\", \"component\": 0}, {\"output\": \"v\"}, {\"output\": \"thd\", \"form\": \"value\"},"
  "    {\"output\": \"pe\", \"kind\": \"final\", \"form\": \"value\"}, {\"output\": \"u\"}]}]}";

static const char *spatial_json =
  "{\"linkwright\": 1, \"name\": \"elements-3d\", \"gravity\": [0, -1, -9.81],"
  " \"solver\": {\"t_end\": 0.2, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.0, \"com\": [0.5, 0.01, 0.02], \"inertia\": [0.02, 0.08, 0.09, 0.001, 0, 0.002],"
  "   \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"end\": [1, 0, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 1.5, \"com\": [0.4, 0, 0.03], \"inertia\": [0.02, 0.1, 0.1, 0, 0.003, 0],"
  "   \"position\": [1, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"tip\": [0.8, 0.05, 0]}},"
  "  {\"name\": \"slider\", \"mass\": 0.5, \"com\": [0, 0, 0], \"inertia\": [0.001, 0.001, 0.001, 0, 0, 0],"
  "   \"position\": [0, -1, 0], \"orientation\": [1, 0, 0, 0]}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0, 0],"
  "   \"axis\": [0, 0, 1]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\", \"at\": [1, 0, 0],"
  "   \"axis\": [0, 0.6, 0.8]},"
  "  {\"name\": \"rail\", \"type\": \"prismatic\", \"body1\": \"ground\", \"body2\": \"slider\", \"at\": [0, -1, 0],"
  "   \"axis\": [1, 0, 0]}],"
  " \"forces\": ["
  "  {\"name\": \"jsd\", \"type\": \"joint_spring_damper\", \"joint\": \"elbow\", \"stiffness\": 3,"
  "   \"damping\": 0.2, \"rest_value\": 0.1},"
  "  {\"name\": \"tq\", \"type\": \"torque\", \"body\": \"link2\", \"vector\": [0.1, 0.2, 0.3],"
  "   \"function\": {\"type\": \"sine\", \"offset\": 0.5, \"amplitude\": 1, \"omega\": 2, \"phase\": 0}},"
  "  {\"name\": \"push\", \"type\": \"force\", \"body\": \"link1\", \"point\": \"end\", \"vector\": [0, 0.3, -1]},"
  "  {\"name\": \"sp\", \"type\": \"spring_damper\", \"body1\": \"ground\", \"point1\": [1, 1, 0.5],"
  "   \"body2\": \"link2\", \"point2\": \"tip\", \"stiffness\": 15, \"damping\": 0.4, \"rest_length\": 0.9},"
  "  {\"name\": \"rail_sd\", \"type\": \"joint_spring_damper\", \"joint\": \"rail\", \"stiffness\": 8,"
  "   \"damping\": 0.1, \"rest_value\": 0.2},"
  "  {\"name\": \"rail_ctl\", \"type\": \"state_feedback\", \"joint\": \"rail\", \"gains\": ["
  "   {\"joint\": \"rail\", \"kp\": 6, \"kd\": 0.8, \"target\": {\"type\": \"constant\", \"value\": 0.05}},"
  "   {\"joint\": \"elbow\", \"measure\": \"rate\", \"kp\": 0.3, \"ki\": 0.2}]},"
  "  {\"name\": \"sh_pid\", \"type\": \"pid\", \"joint\": \"shoulder\", \"kp\": 2, \"kd\": 0.3, \"ki\": 0.8,"
  "   \"target\": {\"type\": \"sine\", \"offset\": 0.2, \"amplitude\": 0.2, \"omega\": 3, \"phase\": 0}}],"
  " \"drivers\": [],"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.2, \"velocity\": 0.4},"
  "   {\"joint\": \"elbow\", \"value\": 0.3, \"velocity\": -0.3}, {\"joint\": \"rail\", \"value\": 0.1}],"
  " \"outputs\": ["
  "  {\"name\": \"p\", \"type\": \"position\", \"body\": \"link2\", \"point\": \"tip\"},"
  "  {\"name\": \"a\", \"type\": \"acceleration\", \"body\": \"link2\", \"point\": \"tip\"},"
  "  {\"name\": \"th\", \"type\": \"joint_coordinate\", \"joint\": \"elbow\"},"
  "  {\"name\": \"R\", \"type\": \"reaction_force\", \"joint\": \"elbow\"},"
  "  {\"name\": \"E\", \"type\": \"total_energy\"},"
  "  {\"name\": \"u\", \"type\": \"control\", \"force\": \"rail_ctl\"},"
  "  {\"name\": \"spf\", \"type\": \"spring_force\", \"force\": \"sp\"},"
  "  {\"name\": \"spl\", \"type\": \"spring_length\", \"force\": \"sp\"},"
  "  {\"name\": \"rsf\", \"type\": \"spring_force\", \"force\": \"rail_sd\"}],"
  " \"parameters\": ["
  "  {\"name\": \"k_elbow\", \"bind\": \"forces/jsd/stiffness\"},"
  "  {\"name\": \"tq_y\", \"bind\": \"forces/tq/vector/1\"},"
  "  {\"name\": \"tq_phase\", \"bind\": \"forces/tq/function/3\"},"
  "  {\"name\": \"push_z\", \"bind\": \"forces/push/vector/2\"},"
  "  {\"name\": \"sp_rest\", \"bind\": \"forces/sp/rest_length\"},"
  "  {\"name\": \"sp_anchor\", \"bind\": \"forces/sp/point1/2\"},"
  "  {\"name\": \"m2\", \"bind\": \"bodies/link2/mass\"},"
  "  {\"name\": \"com1z\", \"bind\": \"bodies/link1/com/2\"},"
  "  {\"name\": \"Ixy2\", \"bind\": \"bodies/link1/inertia/3\"},"
  "  {\"name\": \"tip_y\", \"bind\": \"bodies/link2/points/tip/1\"},"
  "  {\"name\": \"rail_k\", \"bind\": \"forces/rail_sd/stiffness\"},"
  "  {\"name\": \"rail_kp\", \"bind\": \"forces/rail_ctl/gains/0/kp\"},"
  "  {\"name\": \"el_rate_k\", \"bind\": \"forces/rail_ctl/gains/1/kp\"},"
  "  {\"name\": \"sh_kd\", \"bind\": \"forces/sh_pid/kd\"},"
  "  {\"name\": \"sh_ki\", \"bind\": \"forces/sh_pid/ki\"},"
  "  {\"name\": \"el_rate_ki\", \"bind\": \"forces/rail_ctl/gains/1/ki\"},"
  "  {\"name\": \"sh_tgt\", \"bind\": \"forces/sh_pid/target/0\"},"
  "  {\"name\": \"el0\", \"bind\": \"initial/elbow/value\"}],"
  " \"objectives\": ["
  "  {\"name\": \"o1\", \"terms\": [{\"output\": \"p\", \"target\": [1, 0.5, 0]}, {\"output\": \"E\", \"kind\": \"final\","
  "    \"form\": \"value\"}]},"
  "  {\"name\": \"o2\", \"terms\": [{\"output\": \"R\"}, {\"output\": \"a\", \"weight\": 0.01},"
  "    {\"output\": \"th\", \"kind\": \"final\"}, {\"output\": \"u\", \"weight\": 0.1}]}]}";

/* a driver between two moving bodies: its angle row's second derivatives
 * do not vanish as they do for a driver on ground (planar, then spatial) */
static const char *driven_json =
  "{\"linkwright\": 1, \"name\": \"relative-driver\", \"planar\": true, \"gravity\": [0, -9.81],"
  " \"solver\": {\"t_end\": 0.2, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.0, \"com\": [0.5, 0.02], \"inertia\": 0.1, \"position\": [0, 0],"
  "   \"points\": {\"end\": [1, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 0.6, \"com\": [0.3, -0.01], \"inertia\": 0.04, \"position\": [1, 0],"
  "   \"points\": {\"start\": [0, 0], \"tip\": [0.8, 0.1]}}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\","
  "   \"point1\": \"end\", \"point2\": \"start\"}],"
  " \"drivers\": [{\"name\": \"motor\", \"joint\": \"elbow\", \"function\": {\"type\": \"sine\","
  "   \"offset\": 0.3, \"amplitude\": 0.5, \"omega\": 3, \"phase\": 0.2}}],"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.3, \"velocity\": 0.5}],"
  " \"outputs\": [{\"name\": \"p\", \"type\": \"position\", \"body\": \"link2\", \"point\": \"tip\"}],"
  " \"parameters\": [{\"name\": \"m2\", \"bind\": \"bodies/link2/mass\"},"
  "  {\"name\": \"drv_omega\", \"bind\": \"drivers/motor/function/2\"}],"
  " \"objectives\": [{\"name\": \"o\", \"terms\": [{\"output\": \"p\"}]}]}";

static const char *driven_spatial_json =
  "{\"linkwright\": 1, \"name\": \"relative-driver-3d\", \"gravity\": [0, -1, -9.81],"
  " \"solver\": {\"t_end\": 0.2, \"step\": 0.001},"
  " \"bodies\": ["
  "  {\"name\": \"link1\", \"mass\": 1.0, \"com\": [0.5, 0.01, 0.02], \"inertia\": [0.02, 0.08, 0.09, 0.001, 0, 0.002],"
  "   \"position\": [0, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"end\": [1, 0, 0]}},"
  "  {\"name\": \"link2\", \"mass\": 1.5, \"com\": [0.4, 0, 0.03], \"inertia\": [0.02, 0.1, 0.1, 0, 0.003, 0],"
  "   \"position\": [1, 0, 0], \"orientation\": [1, 0, 0, 0], \"points\": {\"tip\": [0.8, 0.05, 0]}}],"
  " \"joints\": ["
  "  {\"name\": \"shoulder\", \"type\": \"revolute\", \"body1\": \"ground\", \"body2\": \"link1\", \"at\": [0, 0, 0],"
  "   \"axis\": [0, 0.2, 1]},"
  "  {\"name\": \"elbow\", \"type\": \"revolute\", \"body1\": \"link1\", \"body2\": \"link2\", \"at\": [1, 0, 0],"
  "   \"axis\": [0, 0.6, 0.8]}],"
  " \"drivers\": [{\"name\": \"motor\", \"joint\": \"elbow\", \"function\": {\"type\": \"sine\","
  "   \"offset\": 0.3, \"amplitude\": 0.5, \"omega\": 3, \"phase\": 0.2}}],"
  " \"initial\": [{\"joint\": \"shoulder\", \"value\": 0.2, \"velocity\": 0.4}],"
  " \"outputs\": [{\"name\": \"p\", \"type\": \"position\", \"body\": \"link2\", \"point\": \"tip\"}],"
  " \"parameters\": [{\"name\": \"m2\", \"bind\": \"bodies/link2/mass\"},"
  "  {\"name\": \"drv_omega\", \"bind\": \"drivers/motor/function/2\"}],"
  " \"objectives\": [{\"name\": \"o\", \"terms\": [{\"output\": \"p\"}]}]}";

static lw_desc *parse(const char *json)
{
  lw_error err;
  lw_desc *d = lw_model_read_data(json, -1, "test", NULL, &err);
  if (!d)
    g_error("%s", err.msg);
  return d;
}

/* ---- partial derivatives against central differences ---------------------- */
typedef struct {
  int nq, nc;
  double *q, *v, *qd, *qdd, *l[3];
} state;

/* F = [Q(q, v); Phi; J^T l1; J^T l2; J^T l3; J qd + Phi_t; J qdd + gamma(q, qd)] */
static int flen(int nq, int nc) { return 4 * nq + 3 * nc; }

static void fvals(const lw_model *m, lw_data *d, const state *s, double t, double *F)
{
  int nq = s->nq, nc = s->nc;
  double *Jd = g_new0(double, (size_t)nc * nq + 1), *pt = g_new0(double, nc + 1), *gm = g_new0(double, nc + 1);
  lw_eval_dense(m, d, s->q, s->v, t, F, NULL, NULL, NULL, NULL);
  lw_eval_dense(m, d, s->q, s->qd, t, NULL, F + nq, Jd, pt, gm);
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < nq; j++) {
      double a = 0;
      for (int r = 0; r < nc; r++)
        a += Jd[(size_t)j * nc + r] * s->l[k][r];
      F[nq + nc + k * nq + j] = a;
    }
  for (int r = 0; r < nc; r++) {
    double a = pt[r], b = gm[r];
    for (int j = 0; j < nq; j++) {
      a += Jd[(size_t)j * nc + r] * s->qd[j];
      b += Jd[(size_t)j * nc + r] * s->qdd[j];
    }
    F[4 * nq + nc + r] = a;
    F[4 * nq + 2 * nc + r] = b;
  }
  g_free(Jd);
  g_free(pt);
  g_free(gm);
}

static void fjvp(const lw_model *m, lw_data *d, const state *s, double t, const lw_lin_dir *dir, double *F)
{
  int nq = s->nq, nc = s->nc;
  lw_lin_point p = {s->q, s->v, s->qd, s->qdd, {s->l[0], s->l[1], s->l[2]}, t};
  lw_lin_out o = {F, {F + nq + nc, F + 2 * nq + nc, F + 3 * nq + nc}, F + nq, F + 4 * nq + nc,
                  F + 4 * nq + 2 * nc};
  lw_lin_jvp(m, d, &p, dir, &o);
}

static double vmax(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s = fmax(s, fabs(x[i]));
  return s;
}

/* largest |a - b| relative to the scale of a (per block of the vector) */
static double rel_err(const double *a, const double *b, int n)
{
  double e = 0;
  for (int i = 0; i < n; i++)
    e = fmax(e, fabs(a[i] - b[i]));
  return e / fmax(vmax(a, n), 1e-12);
}

/* the controllers' integral terms: within a step (beta = h/2) or at a state
 * (beta = 0, the carry is the integral itself) */
static void set_integrals(const lw_model *m, lw_data *d, double beta)
{
  for (int i = 0; i < m->nfbs; i++)
    d->fbz[i] = d->fbc[i] = 0.4 - 0.3 * i;
  d->fb_beta = beta;
}

static void check_partials(const char *json)
{
  lw_desc *desc = parse(json);
  lw_model *m = lwt_compile(desc);
  lw_data *d = lw_data_new(m);
  lw_error err;
  g_assert_cmpint(lw_initialize(m, d, &err), ==, LW_OK);
  int nq = lw_model_nq(m), nc = lw_model_nc(m), n = flen(nq, nc);
  GRand *rnd = g_rand_new_with_seed(7);
  state s = {.nq = nq, .nc = nc};
  s.q = g_new(double, nq);
  s.v = g_new(double, nq);
  s.qd = g_new(double, nq);
  s.qdd = g_new(double, nq);
  for (int k = 0; k < 3; k++) {
    s.l[k] = g_new(double, nc + 1);
    for (int r = 0; r < nc; r++)
      s.l[k][r] = g_rand_double_range(rnd, -3, 3);
  }
  for (int i = 0; i < nq; i++) {
    /* near the assembled configuration but not on it */
    s.q[i] = lw_data_q(d)[i] + g_rand_double_range(rnd, -0.05, 0.05);
    s.v[i] = g_rand_double_range(rnd, -1, 1);
    s.qd[i] = g_rand_double_range(rnd, -1, 1);
    s.qdd[i] = g_rand_double_range(rnd, -5, 5);
  }
  double t = 0.37;
  set_integrals(m, d, 0.3);
  double *dq = g_new(double, nq), *dv = g_new(double, nq), *dqd = g_new(double, nq), *dqdd = g_new(double, nq);
  for (int i = 0; i < nq; i++) {
    dq[i] = g_rand_double_range(rnd, -1, 1);
    dv[i] = g_rand_double_range(rnd, -1, 1);
    dqd[i] = g_rand_double_range(rnd, -1, 1);
    dqdd[i] = g_rand_double_range(rnd, -1, 1);
  }
  double *Fa = g_new0(double, n), *Fp = g_new0(double, n), *Fm = g_new0(double, n), *Fd = g_new0(double, n);
  /* 1. state directions: all at once */
  lw_lin_dir dir = {dq, dv, dqd, dqdd, NULL, NULL, -1};
  fjvp(m, d, &s, t, &dir, Fa);
  const double eps = 1e-6;
  state sp = s, sm = s;
  sp.q = g_new(double, nq);
  sp.v = g_new(double, nq);
  sp.qd = g_new(double, nq);
  sp.qdd = g_new(double, nq);
  sm.q = g_new(double, nq);
  sm.v = g_new(double, nq);
  sm.qd = g_new(double, nq);
  sm.qdd = g_new(double, nq);
  for (int i = 0; i < nq; i++) {
    sp.q[i] = s.q[i] + eps * dq[i];
    sm.q[i] = s.q[i] - eps * dq[i];
    sp.v[i] = s.v[i] + eps * dv[i];
    sm.v[i] = s.v[i] - eps * dv[i];
    sp.qd[i] = s.qd[i] + eps * dqd[i];
    sm.qd[i] = s.qd[i] - eps * dqd[i];
    sp.qdd[i] = s.qdd[i] + eps * dqdd[i];
    sm.qdd[i] = s.qdd[i] - eps * dqdd[i];
  }
  fvals(m, d, &sp, t, Fp);
  fvals(m, d, &sm, t, Fm);
  for (int i = 0; i < n; i++)
    Fd[i] = (Fp[i] - Fm[i]) / (2 * eps);
  /* per piece: Q, Phi, J^T l (3), rates */
  int off[8] = {0, nq, nq + nc, 2 * nq + nc, 3 * nq + nc, 4 * nq + nc, 4 * nq + 2 * nc, n};
  const char *names[7] = {"Q", "Phi", "J^T l1", "J^T l2", "J^T l3", "J qd + Phi_t", "J qdd + gamma"};
  for (int k = 0; k < 7; k++) {
    double e = rel_err(Fa + off[k], Fd + off[k], off[k + 1] - off[k]);
    g_test_message("%s: d%s/d(q, v, qd, qdd): relative difference to central differences %.2e", desc->name,
                   names[k], e);
    g_assert_cmpfloat(e, <, 1e-7);
  }
  /* 2. one body at a time gives the same columns as the full evaluation */
  int nqb = lw_model_planar(m) ? 4 : 12;
  double *e1 = g_new0(double, nq), *Fb = g_new0(double, n);
  for (int j = 0; j < nq; j++) {
    memset(e1, 0, sizeof(double) * nq);
    e1[j] = 1.0;
    lw_lin_dir full = {e1, e1, e1, e1, NULL, NULL, -1}, blk = {e1, e1, e1, e1, NULL, NULL, j / nqb};
    fjvp(m, d, &s, t, &full, Fa);
    fjvp(m, d, &s, t, &blk, Fb);
    for (int i = 0; i < n; i++)
      g_assert_cmpfloat(Fa[i], ==, Fb[i]);
  }
  /* 2b. the step's matrices (the structured linearization, densified by
   * lw_lin_matrices) hold the same derivatives, column by column:
   * H_k = d(J^T l_k)/dq, RV = d(J qd + Phi_t)/dq, RA = d(J qdd + gamma)/dq,
   * RAd = d gamma/d qd, KC = -dQ/dq - cv dQ/dv, C = -dQ/dv */
  {
    const double cv = 0.7;
    double *Hm[3], *Hj[3];
    for (int k = 0; k < 3; k++) {
      Hm[k] = g_new0(double, (size_t)nq * nq);
      Hj[k] = g_new0(double, (size_t)nq * nq);
    }
    double *RV = g_new0(double, (size_t)nc * nq), *RA = g_new0(double, (size_t)nc * nq),
           *RAd = g_new0(double, (size_t)nc * nq), *KC = g_new0(double, (size_t)nq * nq),
           *Cm = g_new0(double, (size_t)nq * nq);
    double *RVj = g_new0(double, (size_t)nc * nq), *RAj = g_new0(double, (size_t)nc * nq),
           *RAdj = g_new0(double, (size_t)nc * nq), *KCj = g_new0(double, (size_t)nq * nq),
           *Cj = g_new0(double, (size_t)nq * nq);
    lw_lin_point lp0 = {s.q, s.v, s.qd, s.qdd, {s.l[0], s.l[1], s.l[2]}, t};
    g_assert_cmpint(lw_lin_matrices(m, d, &lp0, cv, Hm, nq, RV, RA, RAd, nc, KC, nq, Cm, nq), ==, 0);
    double *ev = g_new0(double, nq);
    for (int j = 0; j < nq; j++) {
      memset(e1, 0, sizeof(double) * nq);
      memset(ev, 0, sizeof(double) * nq);
      e1[j] = 1.0;
      ev[j] = cv;
      lw_lin_dir dpos = {e1, NULL, NULL, NULL, NULL, NULL, -1}, dkc = {e1, ev, NULL, NULL, NULL, NULL, -1},
                 dvel = {NULL, e1, NULL, NULL, NULL, NULL, -1}, drate = {NULL, NULL, e1, NULL, NULL, NULL, -1};
      fjvp(m, d, &s, t, &dpos, Fa);
      for (int k = 0; k < 3; k++)
        memcpy(Hj[k] + (size_t)j * nq, Fa + off[2 + k], sizeof(double) * nq);
      memcpy(RVj + (size_t)j * nc, Fa + off[5], sizeof(double) * nc);
      memcpy(RAj + (size_t)j * nc, Fa + off[6], sizeof(double) * nc);
      fjvp(m, d, &s, t, &dkc, Fa);
      for (int i = 0; i < nq; i++)
        KCj[(size_t)j * nq + i] = -Fa[i];
      fjvp(m, d, &s, t, &dvel, Fa);
      for (int i = 0; i < nq; i++)
        Cj[(size_t)j * nq + i] = -Fa[i];
      fjvp(m, d, &s, t, &drate, Fa);
      memcpy(RAdj + (size_t)j * nc, Fa + off[6], sizeof(double) * nc);
    }
    const char *mn[8] = {"H1", "H2", "H3", "RV", "RA", "RAd", "KC", "C"};
    const double *mat[8] = {Hm[0], Hm[1], Hm[2], RV, RA, RAd, KC, Cm},
                 *ref[8] = {Hj[0], Hj[1], Hj[2], RVj, RAj, RAdj, KCj, Cj};
    for (int k = 0; k < 8; k++) {
      int len = k >= 3 && k <= 5 ? nc * nq : nq * nq;
      double e = rel_err(ref[k], mat[k], len);
      g_test_message("%s: step matrix %s against the directional derivatives: %.2e (largest entry %.3g)", desc->name,
                     mn[k], e, vmax(ref[k], len));
      g_assert_cmpfloat(e, <, 1e-12);
    }
    for (int k = 0; k < 3; k++) {
      g_free(Hm[k]);
      g_free(Hj[k]);
    }
    g_free(RV), g_free(RA), g_free(RAd), g_free(KC), g_free(Cm);
    g_free(RVj), g_free(RAj), g_free(RAdj), g_free(KCj), g_free(Cj);
    g_free(ev);
  }
  /* 3. outputs: state directions */
  int ncols = lw_model_output_columns(m);
  double *y0 = g_new0(double, ncols), *yp = g_new0(double, ncols), *ym = g_new0(double, ncols);
  double *dl = g_new(double, nc + 1);
  for (int r = 0; r < nc; r++)
    dl[r] = g_rand_double_range(rnd, -1, 1);
  double *lp = g_new(double, nc + 1), *lm = g_new(double, nc + 1);
  for (int r = 0; r < nc; r++) {
    lp[r] = s.l[0][r] + eps * dl[r];
    lm[r] = s.l[0][r] - eps * dl[r];
  }
  lw_data_set_state(m, d, t, s.q, s.qd, s.qdd, s.l[0]);
  lw_data_set_state(m, d, t, sp.q, sp.qd, sp.qdd, lp);
  set_integrals(m, d, 0.0);
  lw_outputs(m, d, yp);
  lw_data_set_state(m, d, t, sm.q, sm.qd, sm.qdd, lm);
  set_integrals(m, d, 0.0);
  lw_outputs(m, d, ym);
  lw_data_set_state(m, d, t, s.q, s.qd, s.qdd, s.l[0]);
  set_integrals(m, d, 0.0);
  lw_lin_point pt = {s.q, s.qd, s.qd, s.qdd, {s.l[0], NULL, NULL}, t};
  lw_lin_dir od = {dq, NULL, dqd, dqdd, dl, NULL, -1};
  for (int k = 0, c = 0; k < lw_model_noutputs(m); k++) {
    int w = lw_model_output_width(m, k);
    lw_output_jvp(m, d, NULL, k, &pt, &od, y0 + c);
    double fd[3];
    for (int i = 0; i < w; i++)
      fd[i] = (yp[c + i] - ym[c + i]) / (2 * eps);
    double e = rel_err(y0 + c, fd, w);
    g_test_message("%s: output %s: state derivative vs central differences %.2e", desc->name,
                   lw_model_output_name(m, k), e);
    g_assert_cmpfloat(e, <, 1e-7);
    c += w;
  }
  /* 4. every parameter: residual pieces, mass and outputs */
  double *x = g_new(double, nq), *Mx = g_new0(double, nq), *Mp = g_new0(double, (size_t)nq * nq),
         *Mm = g_new0(double, (size_t)nq * nq);
  for (int i = 0; i < nq; i++)
    x[i] = g_rand_double_range(rnd, -1, 1);
  for (int j = 0; j < desc->nparams; j++) {
    lw_tangent *tg = lw_tangent_new(desc, j, &err);
    g_assert_nonnull(tg);
    lw_lin_dir pdir = {NULL, NULL, NULL, NULL, NULL, tg, -1};
    set_integrals(m, d, 0.3);
    fjvp(m, d, &s, t, &pdir, Fa);
    memset(Mx, 0, sizeof(double) * nq);
    lw_tangent_mass_mul(m, tg, x, Mx);
    lw_desc *dd = lw_desc_copy(desc);
    double v = dd->params[j].value, h = 1e-6 * fmax(fabs(v), 1.0);
    dd->params[j].value = v + h;
    lw_model *m1 = lwt_compile(dd);
    dd->params[j].value = v - h;
    lw_model *m2 = lwt_compile(dd);
    lw_data *d1 = lw_data_new(m1), *d2 = lw_data_new(m2);
    memcpy(d1->coord_prev, d->coord_prev, sizeof(double) * m->ncoords);
    memcpy(d2->coord_prev, d->coord_prev, sizeof(double) * m->ncoords);
    set_integrals(m1, d1, 0.3);
    set_integrals(m2, d2, 0.3);
    fvals(m1, d1, &s, t, Fp);
    fvals(m2, d2, &s, t, Fm);
    for (int i = 0; i < n; i++)
      Fd[i] = (Fp[i] - Fm[i]) / (2 * h);
    double e = 0;
    for (int k = 0; k < 7; k++) {
      /* pieces the parameter does not reach must be exactly zero */
      double ek = vmax(Fd + off[k], off[k + 1] - off[k]) < 1e-9 ? vmax(Fa + off[k], off[k + 1] - off[k])
                                                               : rel_err(Fa + off[k], Fd + off[k], off[k + 1] - off[k]);
      e = fmax(e, ek);
    }
    lw_eval_mass_dense(m1, Mp);
    lw_eval_mass_dense(m2, Mm);
    double me = 0, ms = 1e-12;
    for (int i = 0; i < nq; i++) {
      double a = 0;
      for (int k = 0; k < nq; k++)
        a += (Mp[(size_t)k * nq + i] - Mm[(size_t)k * nq + i]) / (2 * h) * x[k];
      me = fmax(me, fabs(a - Mx[i]));
      ms = fmax(ms, fabs(a));
    }
    /* outputs */
    double oe = 0;
    lw_data_set_state(m1, d1, t, s.q, s.qd, s.qdd, s.l[0]);
    set_integrals(m1, d1, 0.0);
    lw_outputs(m1, d1, yp);
    lw_data_set_state(m2, d2, t, s.q, s.qd, s.qdd, s.l[0]);
    set_integrals(m2, d2, 0.0);
    lw_outputs(m2, d2, ym);
    set_integrals(m, d, 0.0);
    for (int k = 0, c = 0; k < lw_model_noutputs(m); k++) {
      int w = lw_model_output_width(m, k);
      lw_output_jvp(m, d, tg, k, &pt, &pdir, y0 + c);
      for (int i = 0; i < w; i++) {
        double fd = (yp[c + i] - ym[c + i]) / (2 * h);
        oe = fmax(oe, fabs(fd - y0[c + i]) / fmax(1.0, fabs(fd)));
      }
      c += w;
    }
    g_test_message("%s: parameter %s: residuals %.2e, mass %.2e, outputs %.2e (relative to central differences)",
                   desc->name, desc->params[j].name, e, me / ms, oe);
    g_assert_cmpfloat(e, <, 1e-7);
    g_assert_cmpfloat(me / ms, <, 1e-7);
    g_assert_cmpfloat(oe, <, 1e-7);
    lw_data_free(d1);
    lw_data_free(d2);
    lw_model_free(m1);
    lw_model_free(m2);
    lw_desc_free(dd);
    lw_tangent_free(tg);
  }
  g_free(x);
  g_free(Mx);
  g_free(Mp);
  g_free(Mm);
  g_free(y0);
  g_free(yp);
  g_free(ym);
  g_free(dl);
  g_free(lp);
  g_free(lm);
  g_free(e1);
  g_free(Fb);
  g_free(Fa);
  g_free(Fp);
  g_free(Fm);
  g_free(Fd);
  g_free(dq);
  g_free(dv);
  g_free(dqd);
  g_free(dqdd);
  state *ss[3] = {&s, &sp, &sm};
  for (int k = 0; k < 3; k++) {
    g_free(ss[k]->q);
    g_free(ss[k]->v);
    g_free(ss[k]->qd);
    g_free(ss[k]->qdd);
  }
  for (int k = 0; k < 3; k++)
    g_free(s.l[k]);
  g_rand_free(rnd);
  lw_data_free(d);
  lw_model_free(m);
  lw_desc_free(desc);
}

static void test_partials_planar(void) { check_partials(planar_json); }
static void test_partials_spatial(void) { check_partials(spatial_json); }
static void test_partials_driven(void)
{
  check_partials(driven_json);
  check_partials(driven_spatial_json);
}

/* ---- whole-run gradients ------------------------------------------------------ */

/* forward vs adjoint (<= 1e-8) vs central differences of step fd_step, on
 * one description; under the sanitizers forward and adjoint only (the
 * differences are plain runs, checked for memory with every other test) */
static void agree(lw_desc *d, double fd_step, double fd_tol)
{
  lw_sens_result f = lwt_sens_all(d, LW_SENS_FORWARD, 0, 0), a = lwt_sens_all(d, LW_SENS_ADJOINT, 0, 0),
                 c = LW_UNDER_SANITIZERS ? a : lwt_sens_all(d, LW_SENS_FD, fd_step, 0);
  int p = d->nparams;
  double efa = 0, efd = 0;
  for (int o = 0; o < d->nobjectives; o++) {
    g_assert_cmpfloat(fabs(f.value[o] - a.value[o]), <=, 1e-14 * fabs(a.value[o]));
    g_assert_cmpfloat(fabs(c.value[o] - a.value[o]), <=, 1e-14 * fabs(a.value[o]));
    double rowmax = 0;
    for (int j = 0; j < p; j++)
      rowmax = fmax(rowmax, fabs(a.gradient[o * p + j]));
    for (int j = 0; j < p; j++) {
      double ga = a.gradient[o * p + j], gf = f.gradient[o * p + j], gc = c.gradient[o * p + j];
      /* relative per component; a component far below the largest (a
       * gradient crossing zero) is measured against 1e-3 of the largest:
       * its digits are the round-off of the sum that cancels there */
      efa = fmax(efa, fabs(ga - gf) / fmax(fabs(ga), 1e-3 * rowmax));
      efd = fmax(efd, fabs(ga - gc) / fmax(fabs(ga), 1e-2 * rowmax));
    }
  }
  g_test_message("%s (%ld steps): forward vs adjoint %.2e, adjoint vs central differences (step %g) %.2e; "
                 "times: forward %.3f s, adjoint %.3f s, differences %.3f s",
                 d->name, a.steps, efa, fd_step, efd, f.wall_time_s, a.wall_time_s, LW_UNDER_SANITIZERS ? 0.0 : c.wall_time_s);
  g_assert_cmpfloat(efa, <=, 1e-8);
  g_assert_cmpfloat(efd, <=, fd_tol);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  if (!LW_UNDER_SANITIZERS)
    lw_sens_result_clear(&c);
}

static void test_agree_models(void)
{
  for (size_t i = 0; i < G_N_ELEMENTS(lwt_models); i++) {
    lw_desc *d = lwt_read(lwt_models[i]);
    g_assert_cmpint(d->nparams, >, 0);
    g_assert_cmpint(d->nobjectives, >, 0);
    /* one second of each (the five-bar runs in full below) */
    d->solver.t_end = fmin(d->solver.t_end, 1.0);
    /* with the default Newton tolerance (1e-10) central differences see
     * where the iteration stopped: on the cart (h = 5 ms, small objective
     * changes) an offset of 1e-5 of the largest component whatever the
     * difference step, on the spatial slider-crank 8e-5 to 1e-4 depending
     * on the last bits of the linear algebra.  The sensitivities
     * differentiate the converged step equations, so the differences are
     * taken with the iteration converged (1e-14, or round-off) */
    d->solver.tolerance = 1e-14;
    d->solver.constraint_tolerance = 1e-12;
    agree(d, 1e-4, 1e-4);
    lw_desc_free(d);
  }
}

static void test_agree_elements(void)
{
  lw_desc *d = parse(planar_json);
  agree(d, 1e-4, 1e-4);
  lw_desc_free(d);
  d = parse(spatial_json);
  /* as for the cart: the differences are taken with the Newton iteration
   * converged.  Even so the objectives of this model move by about 1e-8
   * under a change of the last bits (o1's difference for Ixy2, which it does
   * not depend on, reads -5e-5 at step 1e-4): the step study gives 1.1e-3,
   * 1.4e-4, 3.0e-5, 8.5e-6, 1.7e-5, 1.9e-4 at steps 1e-5, 1e-4, 3e-4,
   * 1e-3, 3e-3, 1e-2, round-off falling as 1/step and truncation rising as
   * step^2, so the differences are taken at 1e-3 */
  d->solver.tolerance = 1e-14;
  d->solver.constraint_tolerance = 1e-12;
  agree(d, 1e-3, 1e-4);
  lw_desc_free(d);
}

/* seed 002 tables 7.4-7.6 (reference row), h = 1 ms, 5 s */
static void test_fivebar_tables(void)
{
  static const double table[3][5] = {{-4.228, 3.212, 0.3186, 0.4423, 3.360},
                                     {-15.45, 50.32, 0.9700, 0.7454, -27.37},
                                     {221.8, 2437, -32.51, -85.70, -2547}};
  static const char *const pn[5] = {"Ls1", "Ls2", "mA1", "rG", "LA1"};
  static const char *const on[3] = {"psi1", "psi2", "psi3"};
  lw_desc *d = lwt_read("five-bar.json");
  g_assert_cmpfloat(d->solver.t_end, ==, 5.0);
  g_assert_cmpfloat(d->solver.step, ==, 1e-3);
  int P[5], O[3];
  for (int j = 0; j < 5; j++)
    g_assert_cmpint((P[j] = lw_desc_param_index(d, pn[j])), >=, 0);
  for (int o = 0; o < 3; o++)
    g_assert_cmpint((O[o] = lw_desc_objective_index(d, on[o])), >=, 0);
  lw_sens_method ms[2] = {LW_SENS_FORWARD, LW_SENS_ADJOINT};
  for (int k = 0; k < 2; k++) {
    lw_sens_options opt = {.method = ms[k], .nparams = 5, .params = P, .nobj = 3, .objectives = O};
    lw_sens_result r;
    g_assert_cmpint(lw_sensitivity(d, &opt, &r), ==, LW_OK);
    double worst = 0;
    for (int o = 0; o < 3; o++)
      for (int j = 0; j < 5; j++) {
        double g = r.gradient[o * 5 + j], e = fabs(g - table[o][j]) / fabs(table[o][j]);
        g_test_message("%s d%s/d%s = %.6g (printed %.4g): %.3f %%", k ? "adjoint" : "forward", on[o], pn[j], g,
                       table[o][j], 100 * e);
        worst = fmax(worst, e);
        g_assert_cmpfloat(e, <=, 0.005);
      }
    g_test_message("%s: largest deviation from tables 7.4-7.6: %.3f %%, %.3f s", k ? "adjoint" : "forward",
                   100 * worst, r.wall_time_s);
    lw_sens_result_clear(&r);
  }
  lw_desc_free(d);
}

/* checkpointed adjoint = stored adjoint */
/* seed 004 sec. 5.1: at zero force the pendulum hangs at rest, so the
 * swing-up cost is (pi/2 - (-pi/2))^2 / 2 = pi^2/2 for both gamma, and the
 * gradients for gamma = 0 and 1 agree (the final velocities are zero) */
static void test_swing_up_zero_control(void)
{
  lw_desc *d = lwt_read("cart-pendulum.json");
  int p = d->nparams;
  g_assert_cmpint(p, ==, 601);
  int *P = g_new(int, p), O[2] = {lw_desc_objective_index(d, "swing"), lw_desc_objective_index(d, "swing_stop")};
  for (int j = 0; j < p; j++)
    P[j] = j;
  lw_sens_options o = {.method = LW_SENS_ADJOINT, .nparams = p, .params = P, .nobj = 2, .objectives = O};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity(d, &o, &r), ==, LW_OK);
  g_test_message("J(0) = %.17g and %.17g, pi^2/2 = %.17g; adjoint %.3f s for %d values", r.value[0], r.value[1],
                 M_PI * M_PI / 2, r.wall_time_s, p);
  g_assert_cmpfloat(fabs(r.value[0] - M_PI * M_PI / 2), <=, 4 * DBL_EPSILON * r.value[0]);
  g_assert_cmpfloat(fabs(r.value[1] - M_PI * M_PI / 2), <=, 4 * DBL_EPSILON * r.value[1]);
  double gmax = 0, dmax = 0;
  for (int j = 0; j < p; j++) {
    gmax = fmax(gmax, fabs(r.gradient[j]));
    dmax = fmax(dmax, fabs(r.gradient[j] - r.gradient[p + j]));
    g_assert_true(r.depends[j]);
  }
  g_test_message("max |dJ/du| = %.3e, gamma 0 vs 1: %.2e", gmax, dmax);
  g_assert_cmpfloat(gmax, >, 1e-4);
  g_assert_cmpfloat(dmax, <=, 1e-9 * gmax); /* the final velocities are 1e-17, not 0 */
  lw_sens_result_clear(&r);
  g_free(P);
  lw_desc_free(d);
}

static void checkpoint(lw_desc *d, size_t mem, size_t saving)
{
  lw_sens_result a = lwt_sens_all(d, LW_SENS_ADJOINT, 0, 0), b = lwt_sens_all(d, LW_SENS_ADJOINT, 0, mem);
  g_assert_cmpint(a.recomputed, ==, 0);
  g_assert_cmpint(b.recomputed, ==, 1);
  g_test_message("%s: adjoint memory: %zu bytes stored, %zu with checkpoints", d->name, a.peak_bytes, b.peak_bytes);
  g_assert_cmpuint(b.peak_bytes, <, a.peak_bytes / saving);
  for (int i = 0; i < d->nparams * d->nobjectives; i++)
    g_assert_cmpfloat(fabs(a.gradient[i] - b.gradient[i]), <=, 1e-12 * fabs(a.gradient[i]));
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&b);
}

static void test_checkpoint(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  d->solver.t_end = 1.0;
  checkpoint(d, 20000, 10);
  /* a limit the states with the steps' constraint data exceed and the
   * states alone do not: the data are left out, nothing is recomputed */
  lw_sens_result a = lwt_sens_all(d, LW_SENS_ADJOINT, 0, 0), b = lwt_sens_all(d, LW_SENS_ADJOINT, 0, a.peak_bytes - 1);
  g_test_message("%s: adjoint memory: %zu bytes with the steps' data, %zu without", d->name, a.peak_bytes,
                 b.peak_bytes);
  g_assert_cmpint(b.recomputed, ==, 0);
  g_assert_cmpuint(b.peak_bytes, <, a.peak_bytes / 2);
  for (int i = 0; i < d->nparams * d->nobjectives; i++)
    g_assert_cmpfloat(fabs(a.gradient[i] - b.gradient[i]), <=, 1e-12 * fabs(a.gradient[i]));
  lw_sens_result_clear(&a);
  lw_sens_result_clear(&b);
  lw_desc_free(d);
  /* controllers with integral action: their integrals are part of the
   * stored states */
  d = parse(planar_json);
  checkpoint(d, 8000, 5); /* 200 steps: 15 checkpoints and a segment */
  lw_desc_free(d);
}

/* the output sensitivities over time end at the objective's integrand */
static void test_output_table(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  d->solver.t_end = 0.5;
  int P[1] = {lw_desc_param_index(d, "LA1")}, O[1] = {lw_desc_objective_index(d, "psi1")};
  lw_sens_options opt = {.method = LW_SENS_FORWARD, .nparams = 1, .params = P, .nobj = 1, .objectives = O,
                         .keep_outputs = 1};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity(d, &opt, &r), ==, LW_OK);
  g_assert_cmpint(r.rows, ==, 501);
  lw_model *m = lwt_compile(d);
  int nc = lw_model_output_columns(m), cx = lwt_col(m, "r2.x") - 1, cy = lwt_col(m, "r2.y") - 1;
  g_assert_cmpint(r.ncols, ==, 1 + 2 * nc);
  /* d psi1 / d LA1 = trapezoid of 2 (r2 - r20) . d r2 / d LA1 */
  double s = 0;
  for (long k = 0; k < r.rows; k++) {
    const double *row = r.table + (size_t)k * r.ncols;
    double w = (k == 0 || k == r.rows - 1) ? 0.5e-3 : 1e-3;
    s += w * 2 * ((row[1 + cx] - 0.5) * row[1 + nc + cx] + (row[1 + cy] + 2.0) * row[1 + nc + cy]);
  }
  g_assert_cmpfloat(fabs(s - r.gradient[0]), <=, 1e-12 * fabs(r.gradient[0]));
  /* at t = 0: r2 moves with LA1 through the re-assembly with alpha1, alpha2 held */
  g_assert_cmpfloat(fabs(r.table[1 + nc + cx]) + fabs(r.table[1 + nc + cy]), >, 0.1);
  /* the values alone: the same outputs, every one of them (not only those
   * an objective reads) */
  lw_sens_options ov = opt;
  ov.method = LW_SENS_VALUE;
  lw_sens_result v;
  g_assert_cmpint(lw_sensitivity(d, &ov, &v), ==, LW_OK);
  g_assert_cmpint(v.rows, ==, r.rows);
  g_assert_cmpint(v.ncols, ==, 1 + nc);
  for (long k = 0; k < r.rows; k += 50)
    for (int c = 0; c <= nc; c++)
      g_assert_cmpfloat(v.table[(size_t)k * v.ncols + c], ==, r.table[(size_t)k * r.ncols + c]);
  lw_sens_result_clear(&v);
  lw_model_free(m);
  lw_sens_result_clear(&r);
  lw_desc_free(d);
}

static int cancel_at_30(double fraction, void *user)
{
  (void)user;
  return fraction > 0.3;
}

/* the forward on two threads (the simulation stepped alongside, the step
 * data taken from the states) gives what one thread gives: gradient and
 * output table, on every model */
static void test_two_threads(void)
{
  int two = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
  for (size_t i = 0; i < G_N_ELEMENTS(lwt_models); i++) {
    lw_desc *d = lwt_read(lwt_models[i]);
    d->solver.t_end = fmin(d->solver.t_end, 0.5);
    int p = d->nparams < 12 ? d->nparams : 12, *P = g_new(int, p), *O = g_new(int, d->nobjectives);
    for (int j = 0; j < p; j++)
      P[j] = j;
    for (int o = 0; o < d->nobjectives; o++)
      O[o] = o;
    lw_sens_options o2 = {.method = LW_SENS_FORWARD, .nparams = p, .params = P, .nobj = d->nobjectives,
                          .objectives = O, .keep_outputs = 1},
                    o1 = o2;
    o1.threads = 1;
    lw_sens_result r1, r2;
    g_assert_cmpint(lw_sensitivity(d, &o1, &r1), ==, LW_OK);
    g_assert_cmpint(lw_sensitivity(d, &o2, &r2), ==, LW_OK);
    g_assert_cmpint(r1.threads, ==, 1);
    g_assert_cmpint(r2.threads, ==, two ? 2 : 1);
    double e = 0, big = 0;
    for (int k = 0; k < p * d->nobjectives; k++) {
      e = fmax(e, fabs(r1.gradient[k] - r2.gradient[k]));
      big = fmax(big, fabs(r1.gradient[k]));
    }
    g_assert_cmpint(r1.rows, ==, r2.rows);
    g_assert_cmpint(r1.ncols, ==, r2.ncols);
    double et = 0;
    for (size_t k = 0; k < (size_t)r1.rows * r1.ncols; k++)
      et = fmax(et, fabs(r1.table[k] - r2.table[k]) / fmax(fabs(r1.table[k]), 1.0));
    g_test_message("%s: %d threads, one thread %.3f s, two %.3f s; gradients differ by %.2e (largest %.3e), "
                   "tables by %.2e",
                   d->name, r2.threads, r1.wall_time_s, r2.wall_time_s, e, big, et);
    g_assert_cmpfloat(big, >, 0.0);
    g_assert_cmpfloat(e, <=, 1e-12 * big);
    g_assert_cmpfloat(et, <=, 1e-12);
    lw_sens_result_clear(&r1);
    lw_sens_result_clear(&r2);
    /* cancelled part way: both threads stop, the steps so far are said */
    o2.progress = cancel_at_30;
    g_assert_cmpint(lw_sensitivity(d, &o2, &r2), ==, -1);
    g_assert_cmpint(r2.steps, >, 0);
    g_assert_cmpint(r2.steps, <, r2.sim_steps / 2);
    lw_sens_result_clear(&r2);
    g_free(P);
    g_free(O);
    lw_desc_free(d);
  }
}

/* a spline value takes effect late in the run (or not at all): its column
 * is exactly zero until then and is carried from then on; the gradient and
 * the output table as with the value alone, and as the adjoint's */
static void test_late_columns(void)
{
  lw_desc *d = lwt_read("cart-pendulum.json");
  d->solver.t_end = 0.5;
  for (int k = 0; k < d->nparams; k++) /* a nonzero force, so the run is not at rest */
    d->params[k].value = 2.0 * sin(0.05 * k);
  enum { NP = 4 };
  /* u[80] reaches t >= 0.39 s only, u[150] not before 0.74 s */
  int P[NP] = {80, 0, 150, 40}, O[1] = {lw_desc_objective_index(d, "swing")};
  lw_sens_options opt = {.method = LW_SENS_FORWARD, .nparams = NP, .params = P, .nobj = 1, .objectives = O,
                         .keep_outputs = 1};
  lw_sens_result f, a;
  g_assert_cmpint(lw_sensitivity(d, &opt, &f), ==, LW_OK);
  lw_sens_options oa = opt;
  oa.method = LW_SENS_ADJOINT;
  oa.keep_outputs = 0;
  g_assert_cmpint(lw_sensitivity(d, &oa, &a), ==, LW_OK);
  lw_model *m = lwt_compile(d);
  int nc = lw_model_output_columns(m);
  lw_model_free(m);
  g_assert_cmpint(f.ncols, ==, 1 + nc * (1 + NP));
  for (int j = 0; j < NP; j++) {
    g_test_message("u[%d]: forward %.10e, adjoint %.10e", P[j], f.gradient[j], a.gradient[j]);
    g_assert_cmpfloat(fabs(f.gradient[j] - a.gradient[j]), <=, 1e-8 * fabs(a.gradient[j]));
    /* the value alone */
    lw_sens_options o1 = opt;
    o1.nparams = 1;
    o1.params = &P[j];
    lw_sens_result r1;
    g_assert_cmpint(lw_sensitivity(d, &o1, &r1), ==, LW_OK);
    g_assert_cmpfloat(fabs(r1.gradient[0] - f.gradient[j]), <=, 1e-12 * fabs(f.gradient[j]));
    for (long k = 0; k < f.rows; k++)
      for (int c = 0; c < nc; c++) {
        double x = f.table[(size_t)k * f.ncols + 1 + nc + (size_t)c * NP + j];
        double y = r1.table[(size_t)k * r1.ncols + 1 + nc + c];
        g_assert_cmpfloat(fabs(x - y), <=, 1e-12 * fabs(y) + 1e-300);
      }
    lw_sens_result_clear(&r1);
  }
  g_assert_cmpfloat(f.gradient[2], ==, 0.0);
  g_assert_cmpfloat(f.gradient[0], !=, 0.0);
  /* u[80]'s sensitivities: zero before 0.385 s, not after */
  double late = 0;
  for (long k = 0; k < f.rows; k++) {
    const double *row = f.table + (size_t)k * f.ncols;
    for (int c = 0; c < nc; c++) {
      g_assert_cmpfloat(row[1 + nc + (size_t)c * NP + 2], ==, 0.0);
      if (row[0] < 0.385)
        g_assert_cmpfloat(row[1 + nc + (size_t)c * NP + 0], ==, 0.0);
      else
        late = fmax(late, fabs(row[1 + nc + (size_t)c * NP + 0]));
    }
  }
  g_assert_cmpfloat(late, >, 0.0);
  lw_sens_result_clear(&f);
  lw_sens_result_clear(&a);
  lw_desc_free(d);
}

static void test_bad_requests(void)
{
  lw_desc *d = lwt_read("five-bar.json");
  d->solver.t_end = 0.1;
  /* a parameter that reaches only the initial guess: exactly zero, said so */
  lw_param_desc *pg = lw_desc_add_param(d, "guess", "bodies/B12/position/0");
  pg->value = -1.0;
  lw_param_desc *ps = lw_desc_add_param(d, "alpha", "solver/alpha");
  ps->value = 1e9;
  int P[2] = {d->nparams - 2, lw_desc_param_index(d, "Ls1")}, O[1] = {0};
  lw_sens_method ms[2] = {LW_SENS_FORWARD, LW_SENS_ADJOINT};
  for (int k = 0; k < 2; k++) {
    lw_sens_options opt = {.method = ms[k], .nparams = 2, .params = P, .nobj = 1, .objectives = O};
    lw_sens_result r;
    g_assert_cmpint(lw_sensitivity(d, &opt, &r), ==, LW_OK);
    g_assert_cmpint(r.depends[0], ==, 0);
    g_assert_cmpint(r.depends[1], ==, 1);
    g_assert_cmpfloat(r.gradient[0], ==, 0.0);
    g_assert_cmpfloat(r.gradient[1], !=, 0.0);
    lw_sens_result_clear(&r);
  }
  /* a solver setting is not a differentiable parameter */
  int Ps[1] = {d->nparams - 1};
  lw_sens_options opt = {.method = LW_SENS_ADJOINT, .nparams = 1, .params = Ps, .nobj = 1, .objectives = O};
  lw_sens_result r;
  g_assert_cmpint(lw_sensitivity(d, &opt, &r), ==, LW_ERR_MODEL);
  g_assert_nonnull(strstr(r.error.msg, "solver setting"));
  lw_sens_result_clear(&r);
  lw_desc_free(d);
}

/* a run that fails mid-way gives the time and no gradient */
static void test_failure(void)
{
  lw_desc *d = lwt_read("four-bar.json");
  lw_driver_desc *dr = lw_desc_add_driver(d, "rocker_motor", "D", 0);
  dr->func.type = LW_FUNC_LINEAR;
  dr->func.a[1] = 1.0;
  lwt_clear_initial(d);
  /* start where the rocker is */
  lw_desc *d0 = lwt_read("four-bar.json");
  lw_model *m0 = lwt_compile(d0);
  lw_sim_result r0;
  g_assert_cmpint(lw_simulate(m0, 0.0, 1e-3, &r0, NULL, NULL), ==, LW_OK);
  dr->func.a[0] = lwt_at(&r0, 0, lwt_col(m0, "rocker_angle"));
  lw_sim_result_clear(&r0);
  lw_model_free(m0);
  lw_desc_free(d0);
  d->solver.t_end = 3.0;
  lw_sens_method ms[3] = {LW_SENS_FORWARD, LW_SENS_ADJOINT, LW_SENS_FD};
  for (int k = 0; k < 3; k++) {
    int P[1] = {0}, O[1] = {0};
    lw_sens_options opt = {.method = ms[k], .nparams = 1, .params = P, .nobj = 1, .objectives = O};
    lw_sens_result r;
    int st = lw_sensitivity(d, &opt, &r);
    g_test_message("method %d: status %d: %s (t = %g)", k, st, r.error.msg, r.error.time);
    g_assert_cmpint(st, ==, LW_ERR_SOLVER);
    g_assert_true(isfinite(r.error.time) && r.error.time > 0 && r.error.time < 3.0);
    g_assert_nonnull(strstr(r.error.msg, "t = "));
    if (ms[k] == LW_SENS_FORWARD) {
      /* the same failure, at the same step, on one thread */
      lw_sens_options o1 = opt;
      o1.threads = 1;
      lw_sens_result r1;
      g_assert_cmpint(lw_sensitivity(d, &o1, &r1), ==, LW_ERR_SOLVER);
      g_assert_cmpint(r1.threads, ==, 1);
      g_assert_cmpint(r.threads, ==, sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1);
      g_assert_cmpfloat(r1.error.time, ==, r.error.time);
      g_assert_cmpstr(r1.error.msg, ==, r.error.msg);
      g_assert_cmpint(r1.steps, ==, r.steps);
      g_assert_cmpint(r.steps, >, 0);
      lw_sens_result_clear(&r1);
    }
    lw_sens_result_clear(&r);
  }
  lw_desc_free(d);
}

/* the inverse of a body's block in the position problem (lw_inv_small):
 * A inv = I to round-off for matrices whose first pivot is small (row
 * exchanges needed), -1 for a singular one */
static void test_block_inverse(void)
{
  guint32 seed = 12345;
  for (int n = 1; n <= LW_MAXQB; n++)
    for (int trial = 0; trial < 20; trial++) {
      double A[LW_MAXQB * LW_MAXQB], X[LW_MAXQB * LW_MAXQB];
      for (int i = 0; i < n * n; i++) {
        seed = seed * 1664525u + 1013904223u;
        A[i] = (double)(seed >> 8) / (double)(1u << 24) - 0.5;
      }
      A[0] = 1e-9 * A[0]; /* no first pivot without an exchange */
      g_assert_cmpint(lw_inv_small(A, n, X), ==, 0);
      double err = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double sum = 0;
          for (int k = 0; k < n; k++)
            sum += A[k * n + i] * X[j * n + k];
          err = fmax(err, fabs(sum - (i == j)));
        }
      g_assert_cmpfloat(err, <, 1e-11);
    }
  double S[9] = {1, 2, 3, 2, 4, 6, 0, 1, 1}; /* two proportional columns */
  double X[9];
  g_assert_cmpint(lw_inv_small(S, 3, X), ==, -1);
  double S4[16] = {1, 0, 2, 1, 0, 3, 1, 1, 2, 6, 2, 2, 1, 0, 2, 1}; /* the planar body's size: columns 1 and 4 equal */
  double X4[16];
  g_assert_cmpint(lw_inv_small(S4, 4, X4), ==, -1);
  /* a 4 x 4 block near singular but invertible (its determinant 1e-11 of
   * its columns' sizes: past the adjugates, to the elimination with
   * pivoting): the inverse still comes */
  double N4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1e-11};
  g_assert_cmpint(lw_inv_small(N4, 4, X4), ==, 0);
  g_assert_cmpfloat(fabs(X4[12] + 1e11), <, 1e-3);
  g_assert_cmpfloat(fabs(X4[15] - 1e11), <, 1e-3);
  g_assert_cmpfloat(fabs(X4[0] - 1.0), <, 1e-15);
  /* a block like a body's in the position matrix (mass over h^2/4 and a
   * little stiffness): the adjugates' inverse, refined, to round-off */
  double B4[16], Y4[16];
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 4; i++)
      B4[j * 4 + i] = 4e6 * ((i == j) / 3.0 + (i == (j + 2) % 4) / 6.0) + 1e2 * (i + 2 * j);
  g_assert_cmpint(lw_inv_small(B4, 4, Y4), ==, 0);
  double err = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      double sum = 0;
      for (int k = 0; k < 4; k++)
        sum += B4[k * 4 + i] * Y4[j * 4 + k];
      err = fmax(err, fabs(sum - (i == j)));
    }
  g_assert_cmpfloat(err, <, 1e-15);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sens/partials/planar", test_partials_planar);
  g_test_add_func("/sens/partials/spatial", test_partials_spatial);
  g_test_add_func("/sens/partials/relative-driver", test_partials_driven);
  g_test_add_func("/sens/block-inverse", test_block_inverse);
  g_test_add_func("/sens/agree/models", test_agree_models);
  g_test_add_func("/sens/agree/elements", test_agree_elements);
  g_test_add_func("/sens/five-bar-tables", test_fivebar_tables);
  g_test_add_func("/sens/checkpoint", test_checkpoint);
  g_test_add_func("/sens/swing-up-zero-control", test_swing_up_zero_control);
  g_test_add_func("/sens/output-table", test_output_table);
  g_test_add_func("/sens/late-columns", test_late_columns);
  g_test_add_func("/sens/two-threads", test_two_threads);
  g_test_add_func("/sens/bad-requests", test_bad_requests);
  g_test_add_func("/sens/failure", test_failure);
  return g_test_run();
}
