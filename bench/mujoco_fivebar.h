/* MuJoCo (2.2.2) reference benchmark: planar five-bar linkage with two springs.
 * Implementation in mujoco_fivebar.c; needs -lmujoco (no pkg-config file in
 * Debian's libmujoco-dev; header is <mujoco/mujoco.h>). */
#ifndef LW_MUJOCO_FIVEBAR_H
#define LW_MUJOCO_FIVEBAR_H

typedef struct {
  double sec_per_step;      /* mean wall time of one mj_step, seconds (measured with clock_gettime MONOTONIC over the whole run, excluding model compile) */
  double max_loop_residual; /* max over all steps of the distance between the two copies of the loop-closing point (metres) */
  double final_r2[2];       /* x,y of point 2 (joint between bar 12 and bar 23) at t_end */
  long steps;
} lw_mj_result;

/* Returns 0 on success, nonzero with a message in err (size errlen) on failure. */
int lw_mj_fivebar_run(double h, double t_end, lw_mj_result *out, char *err, int errlen);

#endif /* LW_MUJOCO_FIVEBAR_H */
