/* lw_import_joint.h: what the importers (lw_urdf.c, lw_mjcf.c) put on a
 * moving joint besides its place: a stop at its limits and a constant
 * Coulomb friction (docs/model-format.md, "Importing URDF"); private to
 * src/io. */
#pragma once

#include "linkwright.h"

/* A stop that does not bounce back: a plastic impact, after which the
 * joint rests against its bound while it is pushed there (persistent
 * contact, docs/model-format.md sec. 8a). */
#define LW_IMPORT_LIMIT_RESTITUTION 0.0

/* Constant friction F from the Brown-McPhee law: mu_s = mu_d = kappa, so
 * that mu(s) = kappa tanh(4 s / v_t), a preload N0 = F / kappa, and a
 * radius of 1 m (the slip speed of a revolute joint is its angle rate, so
 * the default transition speed v_t applies to both kinds alike).  Sliding
 * (s >> v_t) the friction is F (1 + kappa N_r / F), N_r the part of the
 * normal force the joint's reaction adds, which the law has no way to
 * leave out: kappa is small enough to make it 1e-9 N a newton. */
#define LW_IMPORT_FRICTION_KAPPA 1e-9
#define LW_IMPORT_FRICTION_RADIUS 1.0

/* The joint_limit event "J limits" on coordinate 0 of joint J, with the
 * bounds given (has_lower, has_upper), restitution
 * LW_IMPORT_LIMIT_RESTITUTION.  A coordinate of 0 (the imported pose)
 * outside the bounds would violate the limit at the start: the joint then
 * starts at the nearer bound (an initial condition); the value it starts
 * at is returned (0 when inside). */
double lw_import_add_limit(lw_desc *d, const char *joint, int has_lower, double lower, int has_upper, double upper);

/* Friction of constant magnitude F (N, or N m for an angle) while the
 * joint slides, on joint j (LW_IMPORT_FRICTION_*). */
void lw_import_set_friction(lw_joint_desc *j, double F);
