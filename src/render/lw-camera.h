/* lw-camera.h: an orbiting perspective camera for the 3-D view (plain C).
 *
 * The camera looks at `target` from `distance` along a direction given by
 * `yaw` (about the up axis) and `pitch` (above the horizontal), in a world
 * basis (e0, up, e2) with e0 x up = e2.  Planar models use up = +y and
 * e2 = +z, so yaw = pitch = 0 looks down -z at the x-y plane with x to the
 * right.  Spatial models use up = -gravity; e0 is the global x axis (or y when
 * x is vertical) made horizontal.
 *
 * Pixel coordinates are measured from the top-left corner of the viewport
 * (GTK's convention), in the same units as the width and height passed in.
 */
#ifndef LW_CAMERA_H
#define LW_CAMERA_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double target[3];
  double distance;  /* eye to target, > 0 */
  double yaw, pitch;/* radians; pitch is clamped to +-89 degrees */
  double fov_y;     /* vertical field of view, radians */
  double up[3];     /* unit "up" of the world (set with lw_camera_set_up) */
  double radius;    /* size of the scene (for near/far planes), > 0 */
} lw_camera;

/* Defaults: target at the origin, distance 5, planar orientation, 30 degrees. */
void lw_camera_init(lw_camera *cam);
/* Set the world's up direction (normalised; a zero vector means +y). */
void lw_camera_set_up(lw_camera *cam, const double up[3]);
/* Frame the box: planar looks straight down -z, spatial from a three-quarter
 * view; every corner of the box ends up inside a viewport of the given
 * aspect ratio (width / height; <= 0 means 4:3) with a margin. */
void lw_camera_fit(lw_camera *cam, const double bbox_min[3], const double bbox_max[3], int planar);
void lw_camera_fit_aspect(lw_camera *cam, const double bbox_min[3], const double bbox_max[3], int planar,
                          double aspect);

/* Rotate about the target (radians). */
void lw_camera_orbit(lw_camera *cam, double dyaw, double dpitch);
/* Move the target so that the scene follows the pointer by (dx, dy) pixels. */
void lw_camera_pan(lw_camera *cam, double dx_px, double dy_px, int width, int height);
/* Scale the distance by factor (< 1 zooms in) keeping the world point under
 * pixel (x, y) on the target's focal plane fixed on screen. */
void lw_camera_zoom(lw_camera *cam, double factor, double x_px, double y_px, int width, int height);

/* Orthonormal camera axes: right, up (screen), back (from target to eye). */
void lw_camera_axes(const lw_camera *cam, double right[3], double up[3], double back[3]);
void lw_camera_eye(const lw_camera *cam, double eye[3]);
/* Column-major 4x4 matrices (OpenGL convention). */
void lw_camera_view_matrix(const lw_camera *cam, double m[16]);
void lw_camera_proj_matrix(const lw_camera *cam, double aspect, double m[16]);
/* Project a world point to pixels; returns 0 when it is behind the eye. */
int lw_camera_project(const lw_camera *cam, int width, int height, const double p[3], double *x_px,
                      double *y_px);
/* The world ray through pixel (x, y): origin at the eye, unit direction. */
void lw_camera_ray(const lw_camera *cam, int width, int height, double x_px, double y_px, double origin[3],
                   double dir[3]);

/* 4x4 column-major helpers shared with the renderer */
void lw_mat4_mul(const double a[16], const double b[16], double out[16]);
void lw_mat4_identity(double m[16]);

#ifdef __cplusplus
}
#endif
#endif
