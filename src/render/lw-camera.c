/* lw-camera.c: orbit / pan / zoom camera and its matrices. */
#include "lw-camera.h"
#include "lw-vec3.h"

#include <math.h>
#include <string.h>

#define LW_PI 3.14159265358979323846
#define PITCH_LIMIT (89.0 * LW_PI / 180.0)

void lw_mat4_identity(double m[16])
{
  memset(m, 0, 16 * sizeof(double));
  m[0] = m[5] = m[10] = m[15] = 1;
}

void lw_mat4_mul(const double a[16], const double b[16], double out[16])
{
  double r[16];
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 4; i++) {
      double s = 0;
      for (int k = 0; k < 4; k++)
        s += a[k * 4 + i] * b[c * 4 + k];
      r[c * 4 + i] = s;
    }
  memcpy(out, r, sizeof r);
}

void lw_camera_init(lw_camera *cam)
{
  memset(cam, 0, sizeof *cam);
  cam->distance = 5;
  cam->fov_y = 30.0 * LW_PI / 180.0;
  cam->up[1] = 1;
  cam->radius = 1;
}

void lw_camera_set_up(lw_camera *cam, const double up[3])
{
  double u[3] = {up[0], up[1], up[2]};
  if (lw_normalize3(u) < 1e-12) {
    u[0] = u[2] = 0;
    u[1] = 1;
  }
  memcpy(cam->up, u, sizeof u);
}

/* world basis e0 (horizontal "x"), e1 = up, e2 = e0 x e1 */
static void world_basis(const lw_camera *cam, double e0[3], double e1[3], double e2[3])
{
  memcpy(e1, cam->up, 3 * sizeof(double));
  static const double ax[2][3] = {{1, 0, 0}, {0, 1, 0}};
  for (int k = 0; k < 2; k++) {
    double d = lw_dot3(ax[k], e1);
    for (int i = 0; i < 3; i++)
      e0[i] = ax[k][i] - d * e1[i];
    if (lw_normalize3(e0) > 0.1)
      break;
  }
  lw_cross3(e0, e1, e2);
}

void lw_camera_axes(const lw_camera *cam, double right[3], double up[3], double back[3])
{
  double e0[3], e1[3], e2[3];
  world_basis(cam, e0, e1, e2);
  double cy = cos(cam->yaw), sy = sin(cam->yaw), cp = cos(cam->pitch), sp = sin(cam->pitch);
  for (int i = 0; i < 3; i++) {
    back[i] = cp * (sy * e0[i] + cy * e2[i]) + sp * e1[i];
    right[i] = cy * e0[i] - sy * e2[i];
  }
  lw_cross3(back, right, up);
}

void lw_camera_eye(const lw_camera *cam, double eye[3])
{
  double r[3], u[3], b[3];
  lw_camera_axes(cam, r, u, b);
  for (int i = 0; i < 3; i++)
    eye[i] = cam->target[i] + cam->distance * b[i];
}

void lw_camera_view_matrix(const lw_camera *cam, double m[16])
{
  double r[3], u[3], b[3], eye[3];
  lw_camera_axes(cam, r, u, b);
  lw_camera_eye(cam, eye);
  lw_mat4_identity(m);
  for (int i = 0; i < 3; i++) {
    m[i * 4 + 0] = r[i];
    m[i * 4 + 1] = u[i];
    m[i * 4 + 2] = b[i];
  }
  m[12] = -lw_dot3(r, eye);
  m[13] = -lw_dot3(u, eye);
  m[14] = -lw_dot3(b, eye);
}

/* Near and far planes bracket the scene sphere around the target; the near
 * plane never comes closer than 1 % of the distance so that depth precision
 * stays usable when the eye is inside the scene. */
static void clip_planes(const lw_camera *cam, double *n, double *f)
{
  double r = cam->radius > 0 ? cam->radius : 1;
  *n = fmax(cam->distance - 4 * r, 0.01 * cam->distance);
  *f = cam->distance + 8 * r;
}

void lw_camera_proj_matrix(const lw_camera *cam, double aspect, double m[16])
{
  double n, f, t = 1.0 / tan(0.5 * cam->fov_y);
  if (!(aspect > 0))
    aspect = 1;
  clip_planes(cam, &n, &f);
  memset(m, 0, 16 * sizeof(double));
  m[0] = t / aspect;
  m[5] = t;
  m[10] = (f + n) / (n - f);
  m[11] = -1;
  m[14] = 2 * f * n / (n - f);
}

int lw_camera_project(const lw_camera *cam, int width, int height, const double p[3], double *x_px,
                      double *y_px)
{
  double r[3], u[3], b[3], eye[3], d[3];
  lw_camera_axes(cam, r, u, b);
  lw_camera_eye(cam, eye);
  for (int i = 0; i < 3; i++)
    d[i] = p[i] - eye[i];
  double z = -lw_dot3(d, b);
  if (z <= 0)
    return 0;
  double t = tan(0.5 * cam->fov_y), aspect = (double)width / (height > 0 ? height : 1);
  double xn = lw_dot3(d, r) / (z * t * aspect), yn = lw_dot3(d, u) / (z * t);
  *x_px = 0.5 * (xn + 1) * width;
  *y_px = 0.5 * (1 - yn) * height;
  return 1;
}

void lw_camera_ray(const lw_camera *cam, int width, int height, double x_px, double y_px, double origin[3],
                   double dir[3])
{
  double r[3], u[3], b[3];
  lw_camera_axes(cam, r, u, b);
  lw_camera_eye(cam, origin);
  double t = tan(0.5 * cam->fov_y), aspect = (double)width / (height > 0 ? height : 1);
  double xn = 2 * x_px / (width > 0 ? width : 1) - 1, yn = 1 - 2 * y_px / (height > 0 ? height : 1);
  for (int i = 0; i < 3; i++)
    dir[i] = xn * t * aspect * r[i] + yn * t * u[i] - b[i];
  lw_normalize3(dir);
}

void lw_camera_fit(lw_camera *cam, const double bbox_min[3], const double bbox_max[3], int planar)
{
  lw_camera_fit_aspect(cam, bbox_min, bbox_max, planar, 4.0 / 3.0);
}

void lw_camera_fit_aspect(lw_camera *cam, const double bbox_min[3], const double bbox_max[3], int planar,
                          double aspect)
{
  double lo[3], hi[3], c[3], diag = 0;
  for (int i = 0; i < 3; i++) {
    lo[i] = bbox_min[i];
    hi[i] = bbox_max[i];
    if (!(hi[i] >= lo[i]) || !isfinite(lo[i]) || !isfinite(hi[i]))
      lo[i] = hi[i] = 0;
    diag += (hi[i] - lo[i]) * (hi[i] - lo[i]);
  }
  diag = sqrt(diag);
  if (diag < 1e-9) { /* a point: show a unit neighbourhood */
    for (int i = 0; i < 3; i++) {
      lo[i] -= 0.5;
      hi[i] += 0.5;
    }
    diag = sqrt(3.0);
  }
  for (int i = 0; i < 3; i++)
    c[i] = 0.5 * (lo[i] + hi[i]);
  if (planar) {
    static const double y[3] = {0, 1, 0};
    lw_camera_set_up(cam, y);
    cam->yaw = cam->pitch = 0;
  } else {
    cam->yaw = 35.0 * LW_PI / 180.0;
    cam->pitch = 25.0 * LW_PI / 180.0;
  }
  if (!(aspect > 0))
    aspect = 4.0 / 3.0;
  memcpy(cam->target, c, sizeof c);
  cam->radius = 0.5 * diag;

  /* the smallest distance at which every corner is inside the frustum,
   * shrunk by a margin so that the model does not touch the border */
  double r[3], u[3], b[3];
  lw_camera_axes(cam, r, u, b);
  double ty = 0.82 * tan(0.5 * cam->fov_y), tx = ty * aspect, d = 0;
  for (int k = 0; k < 8; k++) {
    double p[3] = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]};
    for (int i = 0; i < 3; i++)
      p[i] -= c[i];
    double z = lw_dot3(p, b);
    d = fmax(d, z + fabs(lw_dot3(p, r)) / tx);
    d = fmax(d, z + fabs(lw_dot3(p, u)) / ty);
  }
  cam->distance = fmax(d, 0.05 * diag);
}

void lw_camera_orbit(lw_camera *cam, double dyaw, double dpitch)
{
  cam->yaw = remainder(cam->yaw + dyaw, 2 * LW_PI);
  cam->pitch = fmin(fmax(cam->pitch + dpitch, -PITCH_LIMIT), PITCH_LIMIT);
}

void lw_camera_pan(lw_camera *cam, double dx_px, double dy_px, int width, int height)
{
  (void)width;
  double r[3], u[3], b[3];
  lw_camera_axes(cam, r, u, b);
  double s = 2 * cam->distance * tan(0.5 * cam->fov_y) / (height > 0 ? height : 1);
  for (int i = 0; i < 3; i++)
    cam->target[i] += s * (-dx_px * r[i] + dy_px * u[i]);
}

void lw_camera_zoom(lw_camera *cam, double factor, double x_px, double y_px, int width, int height)
{
  if (!(factor > 0))
    return;
  double r = cam->radius > 0 ? cam->radius : 1;
  double dist = fmin(fmax(cam->distance * factor, 1e-3 * r), 1e3 * r);
  factor = dist / cam->distance; /* what the limits allow */
  double eye[3], dir[3], rr[3], u[3], b[3];
  lw_camera_axes(cam, rr, u, b);
  lw_camera_ray(cam, width, height, x_px, y_px, eye, dir);
  /* P: where the ray meets the focal plane through the target; moving the
   * target towards P by (1 - factor) keeps P's direction from the eye */
  double t = cam->distance / fmax(-lw_dot3(dir, b), 1e-9);
  for (int i = 0; i < 3; i++) {
    double p = eye[i] + t * dir[i];
    cam->target[i] += (1 - factor) * (p - cam->target[i]);
  }
  cam->distance = dist;
}
