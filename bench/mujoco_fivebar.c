/* MuJoCo (2.2.2) reference benchmark: planar five-bar linkage with two springs.
 *
 * Build: include <mujoco/mujoco.h>, link with -lmujoco (Debian 12 package
 * libmujoco-dev ships no pkg-config file, only a CMake config "mujoco").
 *
 * Mechanism (XY plane, gravity 9.81 along -y, all hinge axes along z):
 *   ground points A=(0,0,0), B=(1,0,0); points 1=(-1,-1), 2=(0.5,-2), 3=(2,-1)
 *   bar A1 (m=1,   L=sqrt 2),     bar 12 (m=1.5, L=sqrt 13/2),
 *   bar 23 (m=1.5, L=sqrt 13/2),  bar 3B (m=1,   L=sqrt 2)
 *   uniform slender rods: CoM at midpoint, I_zz = m L^2/12 about the CoM.
 *   springs k=100 N/m, no damping: B-1 (rest sqrt 5), B-2 (rest sqrt 17/2).
 *
 * Topology chosen: tree world -A-> A1 -1-> 12 -2-> 23, and bar 3B as a
 * separate child of the world hinged at B.  The loop is closed at point 3 with
 * an equality <connect body1="b23" body2="b3B" anchor="p3 in b23's frame"/>
 * (default solref/solimp, i.e. MuJoCo's soft constraint).  Sites "c23" (on b23)
 * and "c3B" (on b3B) mark the two copies of point 3; the loop residual is
 * |site_xpos(c23) - site_xpos(c3B)|.
 *
 * Every body frame is placed at its proximal joint point with world-aligned
 * orientation in the initial configuration, so qpos0 = 0 is the initial state
 * (all bars at rest).  Inertias are explicit <inertial> elements (diaginertia
 * in a frame whose x axis runs along the bar: axial 1e-6*mL^2/12, transverse
 * mL^2/12, mL^2/12), geoms are visual only (contype=conaffinity=0).
 *
 * Springs are spatial tendons with stiffness/springlength (springlength exists
 * in 2.2.2: mjModel->tendon_lengthspring), between sites at B (world), point 1
 * (on A1) and point 2 (on 12).
 *
 * Integrator: default Euler (semi-implicit), timestep h, default Newton solver.
 *
 * The MJCF is generated in memory and loaded through MuJoCo's virtual file
 * system (mjVFS), so no temporary file is written.
 *
 * Note on timing/residual: mj_step computes positions (site_xpos, xpos) for
 * the state at the *start* of the step, so inside the loop we see states
 * 0..N-1; after the timed loop mj_kinematics() is called once (not timed) to
 * get state N (t_end), which also enters the max residual and gives final_r2.
 * The timed loop includes the (negligible) residual evaluation per step.
 */
#define _POSIX_C_SOURCE 200809L

#include "mujoco_fivebar.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

static void lw_mj_seterr(char *err, int errlen, const char *fmt, ...)
{
  if (!err || errlen <= 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, (size_t)errlen, fmt, ap);
  va_end(ap);
}

/* Append to a fixed buffer; returns 0 on success, -1 on overflow. */
static int lw_mj_cat(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
  if (*len >= cap) return -1;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= cap - *len) return -1;
  *len += (size_t)n;
  return 0;
}

/* <inertial> for a uniform slender rod from p to q (both in the body frame). */
static int lw_mj_rod_inertial(char *buf, size_t cap, size_t *len, double m,
                              double px, double py, double qx, double qy)
{
  double dx = qx - px, dy = qy - py;
  double L2 = dx * dx + dy * dy;
  double I = m * L2 / 12.0;
  double th = atan2(dy, dx); /* inertial x axis along the bar */
  return lw_mj_cat(buf, cap, len,
                   "<inertial pos=\"%.17g %.17g 0\" quat=\"%.17g 0 0 %.17g\" "
                   "mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\"/>\n",
                   0.5 * (px + qx), 0.5 * (py + qy), cos(0.5 * th), sin(0.5 * th),
                   m, 1e-6 * I, I, I);
}

/* Build the MJCF text; returns 0 on success. */
static int lw_mj_fivebar_xml(double h, char *buf, size_t cap)
{
  /* points (world, initial configuration) */
  const double Ax = 0.0, Ay = 0.0, Bx = 1.0, By = 0.0;
  const double P1x = -1.0, P1y = -1.0, P2x = 0.5, P2y = -2.0, P3x = 2.0, P3y = -1.0;
  const double mA1 = 1.0, m12 = 1.5, m23 = 1.5, m3B = 1.0;
  const double k = 100.0;
  const double rest1 = sqrt(5.0), rest2 = 0.5 * sqrt(17.0);
  const double r = 0.02; /* visual capsule radius */
  size_t n = 0;
  int e = 0;

  e |= lw_mj_cat(buf, cap, &n,
                 "<mujoco model=\"fivebar\">\n"
                 "<compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n"
                 "<option timestep=\"%.17g\" gravity=\"0 -9.81 0\" integrator=\"Euler\"/>\n"
                 "<default><joint type=\"hinge\" axis=\"0 0 1\" damping=\"0\"/>"
                 "<geom type=\"capsule\" size=\"%.17g\" contype=\"0\" conaffinity=\"0\"/></default>\n"
                 "<worldbody>\n"
                 "<site name=\"sB\" pos=\"%.17g %.17g 0\"/>\n",
                 h, r, Bx, By);
  /* bar A1, frame at A */
  e |= lw_mj_cat(buf, cap, &n, "<body name=\"bA1\" pos=\"%.17g %.17g 0\">\n", Ax, Ay);
  e |= lw_mj_rod_inertial(buf, cap, &n, mA1, 0, 0, P1x - Ax, P1y - Ay);
  e |= lw_mj_cat(buf, cap, &n,
                 "<joint name=\"jA\" pos=\"0 0 0\"/>\n"
                 "<geom fromto=\"0 0 0 %.17g %.17g 0\"/>\n"
                 "<site name=\"s1\" pos=\"%.17g %.17g 0\"/>\n",
                 P1x - Ax, P1y - Ay, P1x - Ax, P1y - Ay);
  /* bar 12, frame at point 1 */
  e |= lw_mj_cat(buf, cap, &n, "<body name=\"b12\" pos=\"%.17g %.17g 0\">\n",
                 P1x - Ax, P1y - Ay);
  e |= lw_mj_rod_inertial(buf, cap, &n, m12, 0, 0, P2x - P1x, P2y - P1y);
  e |= lw_mj_cat(buf, cap, &n,
                 "<joint name=\"j1\" pos=\"0 0 0\"/>\n"
                 "<geom fromto=\"0 0 0 %.17g %.17g 0\"/>\n"
                 "<site name=\"s2\" pos=\"%.17g %.17g 0\"/>\n",
                 P2x - P1x, P2y - P1y, P2x - P1x, P2y - P1y);
  /* bar 23, frame at point 2 */
  e |= lw_mj_cat(buf, cap, &n, "<body name=\"b23\" pos=\"%.17g %.17g 0\">\n",
                 P2x - P1x, P2y - P1y);
  e |= lw_mj_rod_inertial(buf, cap, &n, m23, 0, 0, P3x - P2x, P3y - P2y);
  e |= lw_mj_cat(buf, cap, &n,
                 "<joint name=\"j2\" pos=\"0 0 0\"/>\n"
                 "<geom fromto=\"0 0 0 %.17g %.17g 0\"/>\n"
                 "<site name=\"c23\" pos=\"%.17g %.17g 0\"/>\n"
                 "</body>\n</body>\n</body>\n",
                 P3x - P2x, P3y - P2y, P3x - P2x, P3y - P2y);
  /* bar 3B, separate child of the world, frame at B (bar runs from B to 3) */
  e |= lw_mj_cat(buf, cap, &n, "<body name=\"b3B\" pos=\"%.17g %.17g 0\">\n", Bx, By);
  e |= lw_mj_rod_inertial(buf, cap, &n, m3B, 0, 0, P3x - Bx, P3y - By);
  e |= lw_mj_cat(buf, cap, &n,
                 "<joint name=\"jB\" pos=\"0 0 0\"/>\n"
                 "<geom fromto=\"0 0 0 %.17g %.17g 0\"/>\n"
                 "<site name=\"c3B\" pos=\"%.17g %.17g 0\"/>\n"
                 "</body>\n"
                 "</worldbody>\n",
                 P3x - Bx, P3y - By, P3x - Bx, P3y - By);
  /* loop closure at point 3 (anchor in b23's frame), default solref/solimp */
  e |= lw_mj_cat(buf, cap, &n,
                 "<equality><connect name=\"loop3\" body1=\"b23\" body2=\"b3B\" "
                 "anchor=\"%.17g %.17g 0\"/></equality>\n",
                 P3x - P2x, P3y - P2y);
  /* springs */
  e |= lw_mj_cat(buf, cap, &n,
                 "<tendon>\n"
                 "<spatial name=\"spring1\" stiffness=\"%.17g\" damping=\"0\" springlength=\"%.17g\">"
                 "<site site=\"sB\"/><site site=\"s1\"/></spatial>\n"
                 "<spatial name=\"spring2\" stiffness=\"%.17g\" damping=\"0\" springlength=\"%.17g\">"
                 "<site site=\"sB\"/><site site=\"s2\"/></spatial>\n"
                 "</tendon>\n"
                 "</mujoco>\n",
                 k, rest1, k, rest2);
  return e ? -1 : 0;
}

static double lw_mj_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double lw_mj_dist(const mjtNum *a, const mjtNum *b)
{
  double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Compile the model from an in-memory XML via the VFS. */
static mjModel *lw_mj_fivebar_load(double h, char *err, int errlen)
{
  static const char fname[] = "lw_fivebar.xml";
  char xml[8192];
  char lerr[1000] = "";
  if (lw_mj_fivebar_xml(h, xml, sizeof xml) != 0) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: XML buffer overflow");
    return NULL;
  }
  mjVFS *vfs = (mjVFS *)malloc(sizeof(mjVFS)); /* ~2 MB: keep off the stack */
  if (!vfs) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: out of memory (mjVFS)");
    return NULL;
  }
  mj_defaultVFS(vfs);
  int len = (int)strlen(xml);
  if (mj_makeEmptyFileVFS(vfs, fname, len) != 0) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: mj_makeEmptyFileVFS failed");
    free(vfs);
    return NULL;
  }
  int idx = mj_findFileVFS(vfs, fname);
  if (idx < 0) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: VFS file not found");
    mj_deleteVFS(vfs);
    free(vfs);
    return NULL;
  }
  memcpy(vfs->filedata[idx], xml, (size_t)len);
  mjModel *m = mj_loadXML(fname, vfs, lerr, (int)sizeof lerr);
  mj_deleteVFS(vfs);
  free(vfs);
  if (!m) lw_mj_seterr(err, errlen, "mujoco_fivebar: mj_loadXML: %s", lerr);
  return m;
}

int lw_mj_fivebar_run(double h, double t_end, lw_mj_result *out, char *err, int errlen)
{
  if (err && errlen > 0) err[0] = '\0';
  if (!out) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: out is NULL");
    return 1;
  }
  if (!(h > 0.0) || !(t_end >= 0.0) || !isfinite(h) || !isfinite(t_end)) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: bad h=%g or t_end=%g", h, t_end);
    return 1;
  }
  double nd = floor(t_end / h + 0.5);
  if (nd > 1e15) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: too many steps");
    return 1;
  }
  long N = (long)nd;

  mjModel *m = lw_mj_fivebar_load(h, err, errlen);
  if (!m) return 2;
  mjData *d = mj_makeData(m);
  if (!d) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: mj_makeData failed");
    mj_deleteModel(m);
    return 3;
  }
  int sa = mj_name2id(m, mjOBJ_SITE, "c23");
  int sb = mj_name2id(m, mjOBJ_SITE, "c3B");
  int b23 = mj_name2id(m, mjOBJ_BODY, "b23"); /* its frame origin is point 2 */
  if (sa < 0 || sb < 0 || b23 < 0) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: missing site/body in model");
    mj_deleteData(d);
    mj_deleteModel(m);
    return 4;
  }

  double maxres = 0.0;
  double t0 = lw_mj_now();
  for (long i = 0; i < N; i++) {
    mj_step(m, d);
    /* site_xpos now holds the positions of the state before this step */
    double r = lw_mj_dist(d->site_xpos + 3 * sa, d->site_xpos + 3 * sb);
    if (r > maxres) maxres = r;
  }
  double t1 = lw_mj_now();

  mj_kinematics(m, d); /* positions of the final state (t_end) */
  {
    double r = lw_mj_dist(d->site_xpos + 3 * sa, d->site_xpos + 3 * sb);
    if (r > maxres) maxres = r;
  }

  int rc = 0;
  if (d->warning[mjWARN_BADQACC].number > 0 || d->warning[mjWARN_BADQPOS].number > 0 ||
      d->warning[mjWARN_BADQVEL].number > 0 || !isfinite(maxres)) {
    lw_mj_seterr(err, errlen, "mujoco_fivebar: simulation became unstable (bad qpos/qvel/qacc)");
    rc = 5;
  }

  out->sec_per_step = N > 0 ? (t1 - t0) / (double)N : 0.0;
  out->max_loop_residual = maxres;
  out->final_r2[0] = d->xpos[3 * b23 + 0];
  out->final_r2[1] = d->xpos[3 * b23 + 1];
  out->steps = N;

  mj_deleteData(d);
  mj_deleteModel(m);
  return rc;
}
