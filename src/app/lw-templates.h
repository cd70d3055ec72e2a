/* lw-templates.h: parametric four-bar and slider-crank models and their
 * kinematic figures (Grashof class, transmission angles, stroke,
 * quick-return ratio).  Plain C and GLib, no GTK: the dialog in
 * lw-template-dialog.c shows what these compute.
 *
 * Lengths are in metres, angles in radians.  The four-bar's ground pivots
 * are A = (0, 0) (crank) and D = (ground, 0) (rocker); the slider-crank's
 * crank turns about the origin and its slider runs along y = offset. */
#pragma once

#include <glib.h>

#include "linkwright.h"

G_BEGIN_DECLS

/* ---- four-bar ------------------------------------------------------------ */
typedef struct {
  double ground, crank, coupler, rocker; /* link lengths (m) */
  double crank_angle;                    /* initial crank angle from the ground line A -> D (rad) */
  double crank_speed;                    /* initial crank angular velocity (rad/s) */
  double point_along, point_offset;      /* coupler point: from B along B -> C, and to its left (m) */
  double density;                        /* mass per unit length of every link (kg/m) */
} LwFourBar;

/* The class of a four-bar relative to its ground link: s + l against p + q
 * (shortest, longest, the other two), and which link is the shortest. */
typedef enum {
  LW_GRASHOF_INVALID,       /* a length is not a positive number */
  LW_GRASHOF_CRANK_ROCKER,  /* s + l < p + q, the crank shortest */
  LW_GRASHOF_ROCKER_CRANK,  /* s + l < p + q, the rocker shortest: it turns, the crank rocks */
  LW_GRASHOF_DOUBLE_CRANK,  /* s + l < p + q, the ground shortest (drag link) */
  LW_GRASHOF_DOUBLE_ROCKER, /* s + l < p + q, the coupler shortest */
  LW_GRASHOF_CHANGE_POINT,  /* s + l = p + q */
  LW_GRASHOF_TRIPLE_ROCKER, /* s + l > p + q (non-Grashof) */
} LwGrashofClass;

typedef enum {
  LW_ASSEMBLY_OK,
  LW_ASSEMBLY_BAD_LENGTH, /* a length is not a positive number */
  LW_ASSEMBLY_NEVER,      /* no crank angle assembles */
  LW_ASSEMBLY_TOO_FAR,    /* at this angle the pin is farther than the two links reach */
  LW_ASSEMBLY_TOO_CLOSE,  /* at this angle the pin is nearer than they can fold */
} LwAssembly;

typedef struct {
  LwGrashofClass grashof;
  gboolean crank_turns;        /* the crank can make full turns */
  double crank_lo, crank_hi;   /* reachable crank angles: lo <= |theta| <= hi (rad, in [0, pi]) */
  double mu_min, mu_max;       /* transmission angle over those angles (rad, in [0, pi]) */
  LwAssembly assembly;         /* at crank_angle */
  double reach;                /* at crank_angle: distance from the crank pin B to the rocker pivot D */
  double reach_lo, reach_hi;   /* what coupler and rocker span: |coupler - rocker|, coupler + rocker */
} LwFourBarInfo;

void lw_four_bar_defaults(LwFourBar *fb);
LwGrashofClass lw_grashof_classify(double ground, double crank, double coupler, double rocker);
const char *lw_grashof_class_name(LwGrashofClass c);     /* translated, e.g. "Crank-rocker" */
const char *lw_grashof_class_meaning(LwGrashofClass c);  /* translated: what turns, what rocks */
void lw_four_bar_analyze(const LwFourBar *fb, LwFourBarInfo *info);
/* Crank pin B and rocker pin C at crank angle theta, in the open assembly
 * (C to the left of the line B -> D) or the crossed one (to its right);
 * FALSE when it does not assemble there. */
gboolean lw_four_bar_pose(const LwFourBar *fb, double theta, gboolean crossed, double B[2], double C[2]);
/* The coupler point at crank angle theta; FALSE when it does not assemble there. */
gboolean lw_four_bar_coupler_point(const LwFourBar *fb, double theta, gboolean crossed, double P[2]);
/* Why info->assembly is not OK, in the user's length unit (metres times
 * `unit` and its name); NULL when it is OK.  Free with g_free. */
char *lw_four_bar_assembly_text(const LwFourBar *fb, const LwFourBarInfo *info, double unit,
                                const char *unit_name);
/* A planar model of the four-bar at its initial crank angle: bars crank,
 * coupler, rocker (1 kg/m by default, like the editor's), revolute joints
 * A, B, C, D, gravity along -y, the crank's angle and speed as the initial
 * values of its degree of freedom, outputs coupler_point, crank_angle and
 * rocker_angle.  NULL when it does not assemble there. */
lw_desc *lw_four_bar_desc(const LwFourBar *fb);

/* ---- slider-crank ---------------------------------------------------------- */
typedef struct {
  double crank, rod, offset; /* crank and connecting rod lengths, eccentricity of the slider line (m) */
  double crank_angle;        /* initial crank angle from +x (rad) */
  double crank_speed;        /* initial crank angular velocity (rad/s) */
  double slider_mass;        /* kg */
  double density;            /* crank and rod, kg/m */
} LwSliderCrank;

typedef struct {
  gboolean valid;            /* lengths positive, offset finite */
  gboolean rod_long_enough;  /* rod > crank + |offset|: the crank turns fully */
  double x_min, x_max;       /* slider positions at the two dead centres (m) */
  double stroke;             /* x_max - x_min */
  double quick_return;       /* time of the slower stroke over the faster one at constant crank speed (>= 1) */
  LwAssembly assembly;       /* at crank_angle */
} LwSliderCrankInfo;

void lw_slider_crank_defaults(LwSliderCrank *sc);
void lw_slider_crank_analyze(const LwSliderCrank *sc, LwSliderCrankInfo *info);
/* Crank pin B and slider pin C at crank angle theta (slider on the +x side);
 * FALSE when the rod cannot reach the slider line there. */
gboolean lw_slider_crank_pose(const LwSliderCrank *sc, double theta, double B[2], double C[2]);
char *lw_slider_crank_assembly_text(const LwSliderCrank *sc, const LwSliderCrankInfo *info, double unit,
                                    const char *unit_name);
/* A planar model: bars crank and rod, a slider box on a prismatic joint
 * along y = offset, gravity along -y, outputs slider_x, crank_angle and
 * rod_middle.  NULL when it does not assemble at the initial angle. */
lw_desc *lw_slider_crank_desc(const LwSliderCrank *sc);

G_END_DECLS
