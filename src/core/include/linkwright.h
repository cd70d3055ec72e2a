/* linkwright.h: the solver library's public API (plain C11).
 *
 * Data flows one way: a model description (lw_desc, what a model file holds)
 * is compiled into an immutable lw_model; an lw_data holds the state and every
 * scratch array, allocated once; lw_step advances it without allocating.
 *
 * Coordinates are global natural coordinates: every body carries a point (the
 * origin of its frame) and its frame vectors.  3-D bodies: q_b = [r0 u v w]
 * (12), planar bodies: q_b = [r0 u] (4) with the second axis v = S u, S the
 * rotation by +90 degrees.  Any body point is linear in q, the mass matrix is
 * constant and every joint constraint is bilinear (seed 002 ch. 3, seed 001
 * sec. 5.2).
 */
#ifndef LINKWRIGHT_H
#define LINKWRIGHT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LW_FORMAT_VERSION 1

/* ---- status codes --------------------------------------------------- */
typedef enum {
  LW_OK = 0,
  LW_ERR_MODEL = 2,  /* the description is invalid or cannot be assembled */
  LW_ERR_SOLVER = 3, /* the integrator failed (Newton divergence, singular matrix) */
  LW_ERR_NOMEM = 4,
} lw_status;

/* An error says what, where (a field path such as "bodies/A1/mass", the same
 * syntax parameters use) and, for solver failures, when. */
typedef struct {
  int status;
  char path[160];  /* offending field or element, "" if none */
  double time;     /* simulated time of a solver failure, NaN otherwise */
  char msg[512];
} lw_error;

/* ---- time functions ----------------------------------------------------- */
typedef enum {
  LW_FUNC_CONSTANT, /* a[0] */
  LW_FUNC_LINEAR,   /* a[0] + a[1] t */
  LW_FUNC_POLY,     /* sum a[k] t^k, k < n */
  LW_FUNC_SINE,     /* a[0] + a[1] sin(a[2] t + a[3]) : offset, amplitude, omega, phase */
  LW_FUNC_SPLINE,   /* cubic Hermite spline through the n values knots[k] at the uniformly
                       spaced times a[0] + k (a[1] - a[0]) / (n - 1), slopes by central
                       differences (Catmull-Rom; one-sided at the ends), held constant
                       outside [a[0], a[1]]: C1, and each value moves the curve only over
                       the four knot intervals around it */
} lw_func_type;

#define LW_FUNC_MAXCOEF 8
#define LW_SPLINE_MAXKNOTS 100000
typedef struct {
  lw_func_type type;
  int n;         /* number of coefficients used (POLY) or of knots (SPLINE) */
  double a[LW_FUNC_MAXCOEF];
  double *knots; /* SPLINE: (n) values, owned by the description that holds the function */
} lw_func;

/* f, df/dt, d2f/dt2 at t; any output pointer may be NULL */
void lw_func_eval(const lw_func *f, double t, double *v, double *dv, double *ddv);
/* The derivatives of f, df/dt and d2f/dt2 at t with respect to the
 * coefficient k (a[k]; for a spline the value knots[k]).  Returns 0 when all
 * three are exactly zero at t (a spline value far from t). */
int lw_func_coef_tangent(const lw_func *f, int k, double t, double *v, double *dv, double *ddv);
/* an interval [lo, hi] of time outside which coefficient k of f has no
 * effect (lw_func_coef_tangent answers 0 there); wider than needed is allowed */
void lw_func_coef_support(const lw_func *f, int k, double *lo, double *hi);
/* number of coefficients a path .../function/K can name */
int lw_func_ncoef(const lw_func *f);

/* ---- model description (what a model file holds) ----------------------- */
/* joint friction's parameters: mu_s mu_d v_t viscous length offset width
 * radius preload eps (docs/friction.md sec. 1) */
#define LW_FRICTION_NPARAMS 10
typedef enum {
  LW_JOINT_REVOLUTE,
  LW_JOINT_PRISMATIC,
  LW_JOINT_SPHERICAL,
  LW_JOINT_CYLINDRICAL,
  LW_JOINT_UNIVERSAL,
  LW_JOINT_PLANAR,
  LW_JOINT_FIXED,
  LW_JOINT_NTYPES
} lw_joint_type;

typedef enum {
  LW_FORCE_SPRING_DAMPER,       /* point to point, F = k (l - l0) + c dl/dt */
  LW_FORCE_JOINT_SPRING_DAMPER, /* on a joint coordinate */
  LW_FORCE_FORCE,               /* vector * f(t) at a body point, global axes */
  LW_FORCE_TORQUE,              /* vector * f(t) on a body, global axes */
  LW_FORCE_PID,                 /* controller: force / torque along a joint coordinate from the
                                   error of that coordinate (or its rate) to a target r(t) */
  LW_FORCE_STATE_FEEDBACK,      /* controller: force / torque along a joint coordinate from
                                   the errors of several joint coordinates and their rates */
  LW_FORCE_BEAM,                /* the elastic forces of one element of a beam (compiled from the
                                   beams section, never written in forces) */
  LW_FORCE_NTYPES
} lw_force_type;

static inline int lw_force_is_controller(lw_force_type t)
{
  return t == LW_FORCE_PID || t == LW_FORCE_STATE_FEEDBACK;
}

typedef enum {
  LW_OUT_POSITION,
  LW_OUT_VELOCITY,
  LW_OUT_ACCELERATION,
  LW_OUT_JOINT_COORDINATE,
  LW_OUT_JOINT_VELOCITY,
  LW_OUT_REACTION_FORCE,
  LW_OUT_KINETIC_ENERGY,
  LW_OUT_POTENTIAL_ENERGY,
  LW_OUT_TOTAL_ENERGY,
  LW_OUT_CONTROL,       /* a controller's force / torque along its actuated coordinate */
  LW_OUT_SPRING_LENGTH, /* a spring-damper's length l, or a joint spring-damper's coordinate x */
  LW_OUT_SPRING_FORCE,  /* its tension k (l - l0) + c dl/dt (joint: k (x - x0) + c dx/dt) */
  LW_OUT_DISSIPATED_ENERGY, /* energy taken out by every damper since the start: the
                               integral of sum c v^2 by the trapezoidal rule over the steps,
                               and the work of joint friction */
  /* a joint's friction (docs/friction.md): */
  LW_OUT_FRICTION_FORCE,    /* the generalized friction on its first coordinate (N, or N m
                               for an angle), opposing the slip; a spherical joint: the
                               magnitude of its friction moment (N m) */
  LW_OUT_NORMAL_FORCE,      /* the effective normal force N from its reaction (N) */
  LW_OUT_SLIP_SPEED,        /* the slip speed s = |u| (m/s; a rotation's is r_e |omega|) */
  LW_OUT_FRICTION_WORK,     /* the work its friction took out since the start (J) */
  /* a beam at a place on it (docs/model-format.md, beams): */
  LW_OUT_BEAM_STRAIN,       /* the axial strain (r'.r' - 1) / 2 */
  LW_OUT_BEAM_FORCE,        /* the axial force EA times that strain (N; the stress is it over A) */
  LW_OUT_BEAM_CURVATURE,    /* the curvature |r' x r''| / |r'|^3 (1/m; planar: signed, positive to the left) */
  LW_OUT_BEAM_MOMENT,       /* the bending moment EI |r''| (N m; planar: signed) */
  LW_OUT_BEAM_DEFLECTION,   /* planar: the place's distance from the line through the beam's start
                               along its slope there, positive to the left (m) */
  LW_OUT_BEAM_ENERGY,       /* the beam's elastic energy (J) */
  LW_OUT_CONTACT_FORCE,     /* a contact's or joint limit's normal force while it rests, else 0 */
  LW_OUT_BODY_ANGLE,        /* a body's absolute rotation angle (rad), continuous over the run: planar,
                               the angle of its x axis from the ground's; spatial, about a ground
                               axis (the output's axis) */
  LW_OUT_APPLIED_WORK,      /* the work the applied forces and torques, the controllers and the
                               drivers did on the system since the start (J), by the trapezoidal
                               rule over the steps */
  LW_OUT_ENERGY_BALANCE,    /* total energy + dissipated energy - applied work (J): constant up to
                               the integration error */
  LW_OUT_NTYPES
} lw_output_type;

typedef enum { LW_GEOM_NONE, LW_GEOM_BAR, LW_GEOM_BOX, LW_GEOM_CYLINDER, LW_GEOM_SPHERE, LW_GEOM_MESH } lw_geom_type;

typedef struct {
  char *name;
  double p[3];
} lw_point_desc;

typedef struct {
  char *name;
  double origin[3];
  double axis[3];  /* joint axis (z); ignored in planar models */
  double ref[3];   /* reference direction (x); ignored in planar models */
  double angle;    /* planar: direction of x in the body frame */
} lw_frame_desc;

typedef struct {
  lw_geom_type type;
  double from[3], to[3]; /* bar, cylinder: end points (local) */
  double size[3];        /* bar: width; box: half extents; cylinder, sphere: radius */
  double center[3];      /* box, sphere: centre (local); mesh: where its origin is (local) */
  double color[3];
  /* mesh: a triangle mesh file (STL or OBJ) as the model names it: absolute,
   * relative to the model's file (lw_desc.source_dir), or package://PKG/...
   * (found on LW_MESH_PATH); scaled by size (0: 1) and turned by quat
   * (w x y z; all 0: not turned) about its origin */
  char *mesh;
  double quat[4];
} lw_geom_desc;

typedef struct {
  char *name;
  int point;           /* a point mass: its position alone (2 or 3 coordinates), mass
                        * at it; no rotation, so no com, inertia, angle or orientation,
                        * and every place on it is the point itself */
  double mass;
  double com[3];       /* local */
  double inertia[6];   /* about the CoM, body axes: xx yy zz xy xz yz; planar: zz only */
  double position[3];  /* initial guess of the frame origin */
  double angle;        /* planar: initial guess of the frame angle */
  double orientation[4]; /* 3-D: initial guess, unit quaternion w x y z */
  int npoints;
  lw_point_desc *points;
  int nframes;
  lw_frame_desc *frames;
  int ngeoms;
  lw_geom_desc *geoms;
} lw_body_desc;

/* A flexible beam (docs/model-format.md, beams): a chain of nel two-node
 * ANCF Euler-Bernoulli elements (per node its position r and slope r_x:
 * 2 nd coordinates) from start to end, straight and unstrained at the
 * start.  Material: Young's modulus, density and a material damping time
 * (Kelvin-Voigt on bending: moment EI (kappa + damping dkappa/dt)); section: a solid
 * rectangle (size = width b, height h: I = b h^3 / 12), a solid circle (size[0] = d), a hollow circle
 * (size = outer d, inner d) or generic (area, inertia given). */
typedef enum { LW_SECTION_RECTANGLE, LW_SECTION_CIRCLE, LW_SECTION_TUBE, LW_SECTION_GENERIC, LW_SECTION_NTYPES } lw_section_type;

typedef struct {
  char *name;
  int nel;             /* elements */
  double start[3], end[3];
  double young, density, damping;
  lw_section_type section;
  double size[2];      /* rectangle: width b, height h; circle: d; tube: outer d, inner d */
  double area, inertia; /* generic section: A, I (bending, both directions) */
} lw_beam_desc;

/* A place on a body: a named point / frame, or a literal (local) one. */
typedef struct {
  char *ref;       /* name of a point or frame of the body, or NULL */
  double p[3];     /* literal local point (used when ref == NULL) */
} lw_place;

typedef struct {
  char *name;
  lw_joint_type type;
  char *body[2];
  lw_place place[2];       /* the joint frame origin on each body */
  int has_place[2], has_axis[2], has_ref[2];
  int has_at, has_gaxis, has_gaxis2, has_gref;
  double at[3];            /* global joint origin at the initial pose */
  double gaxis[3];         /* global axis at the initial pose (3-D) */
  double gaxis2[3];        /* universal: global second axis (on body 2) */
  double gref[3];          /* global reference direction (3-D) */
  double axis[2][3];       /* local joint axis on each body (3-D) */
  double ref[2][3];        /* local reference direction on each body */
  double angle[2];         /* planar: direction of the reference in the body frame */
  /* joint friction (docs/friction.md): when has_friction, the parameters in
   * the order of lw_friction_param_name; friction[2] (v_t) = 0 stands for
   * its default, ten steps' worth of 1 m/s^2 (10 h m/s) */
  int has_friction;
  double friction[LW_FRICTION_NPARAMS];
} lw_joint_desc;

/* One measured quantity of a controller.  Position: e = x - r(t) and the
 * actuator gets -(kp e + kd de/dt + ki z); rate: e = dx/dt - r(t) and it
 * gets -(kp e + ki z) (kd must be 0).  z is the integral of e from the
 * start, by the trapezoidal rule over the steps.  x is joint coordinate
 * `coordinate` of `joint`. */
typedef struct {
  char *joint;
  int coordinate;
  int rate;        /* 0: position error, 1: rate error */
  double kp, kd, ki;
  lw_func target;  /* r(t); constant 0 by default */
  /* has_between: the measure is a distance instead of joint / coordinate,
   * the component along the global axis of place[1] on body[1] minus
   * place[0] on body[0] (docs/model-format.md sec. 6) */
  int has_between;
  char *body[2];
  lw_place place[2];
  double axis[3];
} lw_feedback_desc;

typedef struct {
  char *name;
  lw_force_type type;
  char *body[2];
  lw_place place[2];
  char *joint;     /* joint spring-damper */
  int coordinate;  /* joint coordinate index */
  double stiffness, damping, rest;  /* spring-dampers: rest length / rest value */
  double vector[3];                 /* force, torque: direction and magnitude */
  lw_func func;                     /* force, torque: time factor */
  /* controllers (pid, state_feedback): joint / coordinate above is the
   * actuator; pid has one feedback on that coordinate */
  int nfeedback;
  lw_feedback_desc *feedback;
} lw_force_desc;

typedef struct {
  char *name;
  char *joint;
  int coordinate;
  lw_func func;
} lw_driver_desc;

typedef struct {
  char *joint;
  int coordinate;
  int has_value, has_velocity;
  double value, velocity;
} lw_initial_desc;

typedef struct {
  char *name;
  lw_output_type type;
  char *body;      /* point outputs */
  lw_place place;
  char *joint;     /* joint outputs */
  int coordinate;
  char *force;     /* control: the controller; spring outputs: the spring-damper */
  char *event;     /* contact force: the contact or joint limit */
  int has_axis;    /* body angle of a spatial model: the ground axis it turns about */
  double axis[3];
} lw_output_desc;

typedef struct {
  char *name;
  int ntargets;
  char **targets;  /* field paths, e.g. "bodies/A1/points/p1/0" */
  double value;    /* current value; compile writes it into every target */
  /* per target k (both NULL: every factor 1, no product): the field holds
   * factors[k] * value * (times[k] ? the value of parameter times[k] : 1) */
  double *factors;
  char **times;
} lw_param_desc;

/* An objective is a sum of terms over named outputs y (seed 002 eqs.
 * 7.17-7.19): weight * sum_i (y_i - target_i)^2 ("square") or
 * weight * sum_i (y_i - target_i) ("value"), either integrated over time
 * (trapezoidal rule on the steps) or taken at the final time. */
typedef enum { LW_TERM_INTEGRAL, LW_TERM_FINAL } lw_term_kind;
/* ABOVE: weight * sum_i max(0, y_i - target_i)^2, BELOW: weight * sum_i
 * min(0, y_i - target_i)^2: zero while y stays on the allowed side, so an
 * integral of them is a pointwise bound over the whole run as a constraint
 * "<= 0" (continuously differentiable) */
typedef enum { LW_TERM_SQUARE, LW_TERM_VALUE, LW_TERM_ABOVE, LW_TERM_BELOW } lw_term_form;

typedef struct {
  char *output;
  lw_term_kind kind;
  lw_term_form form;
  int component;     /* -1: every component of the output */
  double weight;
  double target[3];
} lw_term_desc;

typedef struct {
  char *name;
  int nterms;
  lw_term_desc *terms;
} lw_objective_desc;

/* ---- optimization problems ---------------------------------------------- */
typedef enum { LW_OPT_LBFGS, LW_OPT_MMA, LW_OPT_SLSQP, LW_OPT_AUGLAG, LW_OPT_NALGORITHMS } lw_opt_algorithm;
typedef enum { LW_CON_LE, LW_CON_GE, LW_CON_EQ } lw_con_type;

typedef struct {
  char *parameter;     /* a parameter name, or NAME[*] for every NAME[k] */
  int has_lower, has_upper;
  double lower, upper; /* bounds on the parameter's value */
  double scale;        /* the optimizer sees value / scale (default 1) */
} lw_var_desc;

typedef struct {
  char *objective;     /* an objective of the model */
  lw_con_type type;
  double value;        /* objective <= value, >= value or = value */
} lw_con_desc;

typedef struct {
  char *name;
  char *description;   /* or NULL */
  char *objective;     /* minimized (maximized with maximize) */
  int maximize;
  int nvars;
  lw_var_desc *vars;
  int ncons;
  lw_con_desc *cons;
  lw_opt_algorithm algorithm;
  int gradient;        /* lw_sens_method: LW_SENS_ADJOINT (default), FORWARD or FD */
  int max_evaluations; /* default 500 */
  double f_tolerance;  /* relative change of the objective (default 1e-12) */
  double x_tolerance;  /* relative change of the design (default 1e-10) */
  double gradient_tolerance; /* stop when the projected gradient falls to this
                                fraction of its value at the start (default 1e-8) */
  int multistart;      /* starts: the given design, then random designs within the bounds (default 1) */
  unsigned seed;       /* of the random starts (default 1) */
} lw_problem_desc;

/* Events (docs/model-format.md sec. 10): where the motion is not smooth.
 * CONTACT: a body point against a plane (3-D) or line (planar) fixed to the
 * ground, n.x = offset (n the unit normal, pointing to the free side); the
 * gap n.p - offset - radius falling through 0 is an impact.  JOINT_LIMIT:
 * a joint coordinate reaching lower or upper.  Both end in Newton's
 * restitution on the normal velocity with the joints held.  GUARD: an
 * output's scalar crossing a value (rising, falling or either) stops the
 * run there.  SWITCH: a body point crossing a plane (line) n.x = offset
 * switches a force: the force acts while the point is on the plane's
 * negative side (n.p < offset) and not on its positive side; the velocity
 * does not jump, the equations of motion change (seed 003 theorem 4).
 * CAPTURE: a body point reaching the distance `radius` from the ground
 * point `center` is caught there: a plastic impact, then the distance held
 * by a constraint for the rest of the run (seed 003 remark 11).
 * COLLISION: two body points (the centres of two balls) coming within
 * `distance` of each other: Newton's restitution on their closing speed
 * with the joints held, as a contact's. */
typedef enum {
  LW_EVENT_CONTACT,
  LW_EVENT_JOINT_LIMIT,
  LW_EVENT_GUARD,
  LW_EVENT_SWITCH,
  LW_EVENT_CAPTURE,
  LW_EVENT_COLLISION,
  LW_EVENT_NTYPES
} lw_event_type;

typedef struct {
  char *name;
  lw_event_type type;
  /* contact */
  char *body;
  lw_place place;          /* the body point */
  double normal[3];        /* global, normalized when compiled */
  double offset, radius;
  /* joint limit */
  char *joint;
  int coordinate;
  int has_lower, has_upper;
  double lower, upper;
  /* contact and limit: e in [0, 1]; impacts whose normal speed is below
   * rest_speed (0: |gravity| x step) end the bouncing: the run stops there */
  double restitution, rest_speed;
  /* guard: output (by name), its scalar `component`, the value, the
   * direction (+1 rising, -1 falling, 0 either); the action is a stop */
  char *output;
  int component;
  double value;
  int direction;
  /* switch: the force (by name) that acts on the negative side only; the
   * plane is body, place, normal and offset as a contact's */
  char *force;
  /* capture: the circle's (sphere's) centre, fixed to the ground; its
   * radius is `radius` */
  double center[3];
  /* collision: the second body and its point, the distance of contact */
  char *body2;
  lw_place place2;
  double distance;
} lw_event_desc;

typedef struct {
  double t_end, step;
  double alpha;           /* ALI3-P penalty (seed 002 table 7.2: 1e9) */
  double tolerance;       /* Newton increment tolerance, 2-norm */
  double constraint_tolerance; /* max |Phi| accepted at the end of a step */
  int max_iterations;
  double lambda_scale;    /* varpi: lambda warm start factor (3.29) */
  int allow_redundant;    /* accept dependent constraints (ALI3-P copes) */
  char integrator[16];    /* the integrator's name (default "ali3p") */
  /* how steps are chosen (docs/model-format.md, "Tolerance mode"): the
   * fixed step (LW_MODE_STEP, the default), or steps sized to keep the
   * local error below rtol |q| + atol, with the outputs at every `step`
   * (LW_MODE_TOLERANCE) */
  int mode;
  double rtol, atol;      /* tolerance mode: relative and absolute (m) error */
  int order;              /* tolerance mode: 2 (trapezoidal rule) or 4 (extrapolated) */
  /* ALI3-P's numerical damping: the spectral radius at infinite frequency
   * of the generalized-alpha method, 0 to 1 (1, the default: the
   * trapezoidal rule, no damping; docs/methods-numerical-damping.md) */
  double rho_inf;
} lw_solver_desc;

/* lw_solver_desc.mode and lw_opt.mode */
enum { LW_MODE_STEP = 0, LW_MODE_TOLERANCE = 1 };

typedef struct {
  int version;
  char *name;
  char *description;
  /* the directory of the file the model was read from (NULL: none); files
   * the model names (meshes) are found relative to it; not saved */
  char *source_dir;
  int planar;
  double gravity[3];
  lw_solver_desc solver;
  int nbodies; lw_body_desc *bodies;
  int njoints; lw_joint_desc *joints;
  int nforces; lw_force_desc *forces;
  int ndrivers; lw_driver_desc *drivers;
  int ninitial; lw_initial_desc *initial;
  int noutputs; lw_output_desc *outputs;
  int nparams; lw_param_desc *params;
  int nobjectives; lw_objective_desc *objectives;
  int nproblems; lw_problem_desc *problems;
  int nevents; lw_event_desc *events;
  int nbeams; lw_beam_desc *beams;
} lw_desc;

lw_desc *lw_desc_new(void);
void lw_desc_free(lw_desc *d);
lw_desc *lw_desc_copy(const lw_desc *d);
void lw_solver_defaults(lw_solver_desc *s);
/* Append an element with defaults; returns it (owned by d). */
lw_body_desc *lw_desc_add_body(lw_desc *d, const char *name);
lw_point_desc *lw_body_add_point(lw_body_desc *b, const char *name, const double p[3]);
lw_frame_desc *lw_body_add_frame(lw_body_desc *b, const char *name);
lw_geom_desc *lw_body_add_geom(lw_body_desc *b, lw_geom_type type);
/* Append a copy of g (its mesh name duplicated). */
lw_geom_desc *lw_body_copy_geom(lw_body_desc *b, const lw_geom_desc *g);
lw_joint_desc *lw_desc_add_joint(lw_desc *d, const char *name, lw_joint_type type,
                                 const char *body1, const char *body2);
lw_force_desc *lw_desc_add_force(lw_desc *d, const char *name, lw_force_type type);
/* a beam of nel elements from start to end (E, density 1, a unit square section) */
lw_beam_desc *lw_desc_add_beam(lw_desc *d, const char *name, int nel);
/* the section type's name in the model format (rectangle, circle, tube, generic), and back (-1: none) */
const char *lw_section_type_name(lw_section_type t);
int lw_section_type_from_name(const char *s);
/* a beam's section area A and second moment I from its section; 0, or -1 when a size is not positive */
int lw_beam_section(const lw_beam_desc *b, double *A, double *I);
/* a controller's measured coordinate (target constant 0, gains 0) */
lw_feedback_desc *lw_force_add_feedback(lw_force_desc *f, const char *joint, int coordinate);
/* Joint friction: the parameters' names in the model format, a name's
 * index (-1: none), the defaults (has_friction set; v_t 0: ten steps'
 * worth) and the check of joint j's friction: LW_OK, or LW_ERR_MODEL with
 * the field's path in err (joints/J/friction/FIELD) for a joint type
 * without friction (universal, fixed; cylindrical, spherical and planar in
 * a planar model) or a value out of its range. */
const char *lw_friction_param_name(int k);
int lw_friction_param_index(const char *name);
void lw_joint_friction_defaults(lw_joint_desc *j);
int lw_joint_friction_check(const lw_desc *d, int j, lw_error *err);
lw_driver_desc *lw_desc_add_driver(lw_desc *d, const char *name, const char *joint, int coordinate);
lw_initial_desc *lw_desc_add_initial(lw_desc *d, const char *joint, int coordinate);
lw_output_desc *lw_desc_add_output(lw_desc *d, const char *name, lw_output_type type);
lw_param_desc *lw_desc_add_param(lw_desc *d, const char *name, const char *target);
lw_objective_desc *lw_desc_add_objective(lw_desc *d, const char *name);
lw_term_desc *lw_objective_add_term(lw_objective_desc *o, const char *output);
lw_problem_desc *lw_desc_add_problem(lw_desc *d, const char *name, const char *objective);
lw_var_desc *lw_problem_add_var(lw_problem_desc *p, const char *parameter);
lw_con_desc *lw_problem_add_con(lw_problem_desc *p, const char *objective, lw_con_type type, double value);
lw_event_desc *lw_desc_add_event(lw_desc *d, const char *name, lw_event_type type);
const char *lw_event_type_name(lw_event_type t);     /* "contact", "joint_limit", "guard", "switch", "capture", "collision" */
int lw_event_type_from_name(const char *s);          /* -1 if unknown */
const char *lw_opt_algorithm_name(lw_opt_algorithm a);
int lw_opt_algorithm_from_name(const char *s);
int lw_desc_problem_index(const lw_desc *d, const char *name);
void lw_place_set_ref(lw_place *pl, const char *ref);
/* Append, after the description's own outputs, one output for every
 * quantity a user may want to plot without declaring it: each joint's
 * coordinates and their rates (named J.q, or J.q0, J.q1, ... for joints of
 * several; J.qd...) and reaction force (J.reaction), each spring-damper's
 * and joint spring-damper's length and force (S.length, S.force), each
 * controller's effort (C.effort), each body's named points (B.P), and the
 * kinetic, potential, total and dissipated energies.  A name already used
 * gets a '#' and a number appended.  Returns the number added. */
int lw_desc_add_builtin_outputs(lw_desc *d);
/* An N-link pendulum chain (planar, or spatial with revolute joints about z). */
lw_desc *lw_desc_chain(int n, int spatial);

/* The address of the numeric field a path names, or NULL.
 * Paths: gravity/K, solver/<field>, bodies/B/{mass,angle,com/K,inertia/K,
 * position/K,orientation/K,points/P/K,frames/F/{origin,axis,ref}/K},
 * joints/J/{point1,point2,axis1,axis2,ref1,ref2}/K, joints/J/angle1|angle2,
 * forces/F/{stiffness,damping,rest_length,rest_value,vector/K,function/K},
 * drivers/D/function/K, initial/J[.C]/{value,velocity},
 * objectives/O/terms/K/{weight,target/I}. */
double *lw_desc_field(lw_desc *d, const char *path);
/* Parameter bindings (docs/model-format.md sec. 10): the value target k of
 * parameter p gives its field, factor * value * (the value of parameter
 * `times`, when the binding names one); NAN when `times` names no parameter */
double lw_param_bind_value(const lw_desc *d, const lw_param_desc *p, int k);
/* writes every parameter's value into its fields (a field it names that
 * does not exist is skipped) */
void lw_desc_apply_params(lw_desc *d);
/* 1 if parameter j's fields hold its value itself: every factor 1, no
 * product, and no other parameter's binding multiplied by it */
int lw_param_is_plain(const lw_desc *d, int j);
/* the value parameter i takes when its field k is set to v (v itself for a
 * plain binding; NAN when the binding's factor times product is 0) */
double lw_param_value_for_field(const lw_desc *d, int i, int k, double v);
/* sets target k's factor and product (times may be NULL) */
void lw_param_set_binding(lw_param_desc *p, int k, double factor, const char *times);

const char *lw_joint_type_name(lw_joint_type t);
int lw_joint_type_from_name(const char *s);
int lw_joint_ncoords(lw_joint_type t, int planar);
const char *lw_force_type_name(lw_force_type t);
int lw_force_type_from_name(const char *s);
const char *lw_output_type_name(lw_output_type t);
int lw_output_type_from_name(const char *s);
int lw_output_width(const lw_output_type t, int planar);

/* ---- compiled model -------------------------------------------------- */
typedef struct lw_model lw_model;
typedef struct lw_data lw_data;

/* Validates and compiles; on failure returns NULL and fills err. */
lw_model *lw_compile(const lw_desc *d, lw_error *err);
void lw_model_free(lw_model *m);

int lw_model_nq(const lw_model *m);     /* number of coordinates */
int lw_model_nc(const lw_model *m);     /* number of constraint equations */
int lw_model_nbodies(const lw_model *m); /* the description's bodies (a beam's elements not counted) */
int lw_model_njoints(const lw_model *m);
int lw_model_nforces(const lw_model *m); /* the description's forces (a beam's elements not counted) */
int lw_model_noutputs(const lw_model *m);
int lw_model_output_width(const lw_model *m, int k); /* scalars in output k */
const char *lw_model_output_name(const lw_model *m, int k);
/* SI unit of output k's scalars ("m", "rad", "N", "N m", "J", ...; "" when
 * they mix units) */
const char *lw_model_output_unit(const lw_model *m, int k);
int lw_model_output_columns(const lw_model *m); /* sum of widths */
/* Column label of scalar column c (e.g. "r2.x"), written into buf. */
void lw_model_output_column_name(const lw_model *m, int c, char *buf, size_t len);
int lw_model_planar(const lw_model *m);
double lw_model_body_mass(const lw_model *m, int b); /* body b (0-based, ground excluded) */
/* body b's coordinates in q: their first index (returned) and, when size is
 * given, their number (planar 4, spatial 12; a point mass 2 or 3) */
int lw_model_body_coords(const lw_model *m, int b, int *size);
const lw_desc *lw_model_desc(const lw_model *m); /* the compiled copy */

/* A compiled model's solver options: the description's solver section with
 * the parameters applied, read by the step, the initialization and the
 * sensitivities.  They can be set on a compiled model without compiling it
 * again (nothing compiled depends on them). */
typedef struct {
  double t_end;           /* end of a run (the sensitivities' runs) */
  double step;            /* step size h */
  double alpha;           /* ALI3-P penalty */
  double tolerance;       /* Newton increment tolerance */
  double constraint_tolerance; /* max |Phi| accepted at the end of a step */
  int max_iterations;     /* Newton iterations a step may take */
  double lambda_scale;    /* multipliers' warm start factor */
  int allow_redundant;    /* accept dependent constraints */
  char integrator[16];    /* the integrator's name: "ali3p" */
  int mode;               /* LW_MODE_STEP or LW_MODE_TOLERANCE (step is then the output interval) */
  double rtol, atol;      /* tolerance mode: the local error allowed, rtol |q_i| + atol */
  int order;              /* tolerance mode: 2 or 4 */
  /* joint friction's exact (non-symmetric) tangent in every Newton
   * iteration of the ALI3-P step (dense models; docs/friction.md sec. 8.4
   * (b)); 0: only where the iteration with its symmetric part stalls.  Not
   * in the model file: 0 when compiled. */
  int friction_exact;
  double rho_inf;         /* ALI3-P's spectral radius at infinity: 1 the trapezoidal rule, < 1 damped */
} lw_opt;

const lw_opt *lw_model_opt(const lw_model *m);
/* Set the options of a compiled model, checked as the compiler checks the
 * solver section (the same paths and messages); the description copy the
 * model keeps (lw_model_desc) takes them too, so that what is made from it
 * (the parameters' tangents, the perturbed copies of finite differences)
 * agrees.  An option a parameter binds (solver/step, say) is changed
 * through the parameter instead.  Returns LW_OK, or LW_ERR_MODEL with err
 * filled and the model unchanged.  Not while the model is being stepped or read on another
 * thread. */
int lw_model_set_opt(lw_model *m, const lw_opt *opt, lw_error *err);
/* The step size alone: lw_model_set_opt with opt.step = h. */
int lw_model_set_step(lw_model *m, double h, lw_error *err);

/* ---- data and the integrator ----------------------------------------- */
lw_data *lw_data_new(const lw_model *m);
void lw_data_free(lw_data *d);

typedef struct {
  int iterations;           /* Newton iterations of the last step */
  double residual;          /* 2-norm of the last Newton increment */
  double constraint_residual; /* max |Phi| at the end of the step */
  double velocity_residual;   /* max |Phi_q qdot + Phi_t| after projection */
} lw_step_info;

/* Solve the initial position (degrees of freedom held at the values the
 * description gives), velocity and acceleration problems at t = 0, count
 * the degrees of freedom and check for redundant constraints. */
int lw_initialize(const lw_model *m, lw_data *d, lw_error *err);
/* One step of the model's integrator (lw_opt.integrator; "ali3p": the
 * ALI3-P step with the trapezoidal rule, seed 002 eqs. 3.28-3.40) of
 * length lw_opt.step. */
int lw_step(const lw_model *m, lw_data *d, lw_step_info *info, lw_error *err);

/* Steps through the model's events (contacts, joint limits, guards) as
 * lw_simulate takes them, one step at a time, for callers that step
 * themselves.  lw_event_run_new after lw_initialize (NULL with err set
 * when a contact or limit starts violated or memory runs out; a model
 * without events gets a run that only steps).  lw_step_events: one step on
 * the grid with every event inside it located and applied; LW_OK,
 * LW_EVENT_STOP (a guard stopped, or a second contact came to rest while
 * one rests: d holds the state at the event) or LW_ERR_SOLVER.  A contact
 * that stops bouncing rests (held at zero gap) until its normal force
 * turns tensile, as in lw_simulate.  A state set from outside
 * (lw_data_set_state) is noticed by its time and starts free.  A run does not go past a stop: stepping on
 * stops again at once. */
#define LW_EVENT_STOP 1
typedef struct lw_ev_run lw_event_run;
lw_event_run *lw_event_run_new(const lw_model *m, lw_data *d, lw_error *err);
void lw_event_run_free(lw_event_run *ev);
int lw_step_events(const lw_model *m, lw_data *d, lw_event_run *ev, lw_step_info *info, lw_error *err);
/* the events so far (*n of them, in time order; valid until the next step) */
const struct lw_event_record *lw_event_run_log(const lw_event_run *ev, long *n);

double lw_data_time(const lw_data *d);
const double *lw_data_q(const lw_data *d);     /* (nq) */
const double *lw_data_qd(const lw_data *d);    /* (nq) */
const double *lw_data_qdd(const lw_data *d);   /* (nq) */
const double *lw_data_lambda(const lw_data *d);/* (nc) */
int lw_data_dof(const lw_data *d);             /* degrees of freedom found at initialization */
/* Write every output (lw_model_output_columns scalars) at the current state. */
void lw_outputs(const lw_model *m, lw_data *d, double *out);
/* max |Phi| at the current state */
double lw_constraint_residual(const lw_model *m, lw_data *d);
/* Body frame of body b (0-based, ground excluded): origin and rotation
 * matrix columns (row-major 3x3, R[3*i+j]); planar: z = 0, R a rotation about z. */
void lw_body_pose(const lw_model *m, const lw_data *d, int b, double origin[3], double R[9]);
/* What a view draws besides the bodies, at the state in d (global axes):
 *   joints (njoints x 6): origin and unit axis of each joint's frame on body 1
 *     (planar: the axis is z);
 *   forces (nforces x 6), by type: spring-damper: its two end points;
 *     force: the point of application and the force vector (N) at time t;
 *     torque: the body origin and the torque vector (N m) at time t;
 *     joint spring-damper: the joint origin and its unit axis.
 * Either array may be NULL. */
void lw_scene_geometry(const lw_model *m, const lw_data *d, double *joints, double *forces);
/* The beams' centre lines for a view: LW_BEAM_DRAW_PER_ELEMENT points an
 * element along its shape functions, each (x, y, z, radius), the beams one
 * after the other; a beam's first point has its radius negated (no segment
 * leads to it).  lw_scene_beam_points gives their count (0: no beams);
 * pts holds 4 that many. */
#define LW_BEAM_DRAW_PER_ELEMENT 8
int lw_scene_beam_points(const lw_model *m);
void lw_scene_beams(const lw_model *m, const lw_data *d, double *pts);
/* The stress at the same points (Pa, lw_scene_beam_points of them): the
 * largest of the extreme fibres', |E eps| + E |kappa| c, the axial stress
 * of the Green-Lagrange strain eps = (r'.r' - 1) / 2 and the bending
 * stress of the curvature kappa = |r' x r''| / |r'|^3 at the distance c of
 * the extreme fibre from the neutral axis: half the height of a rectangle,
 * half the (outer) diameter of a circle or tube, and 2 sqrt(I / A) (that of
 * a solid circle of the same A and I) for a generic section. */
void lw_scene_beam_stress(const lw_model *m, const lw_data *d, double *stress);

/* Lower-level evaluations used by verifiers and the independent reference
 * integrator (all at the state in d, time t):
 *   M (nq x nq, dense column-major), Q (nq), Phi (nc), Phi_q (nc x nq dense
 *   column-major), Phi_t (nc), gamma = dPhi_q/dt qdot + dPhi_t/dt (nc). */
/* An external force F (global axes) on body b (0-based) at the body-fixed
 * point p (body axes), applied by every step from now on until replaced;
 * b < 0 removes it.  F is held constant over a step: at a body point that
 * is linear in the coordinates, its generalized force does not depend on the
 * state, so it adds nothing to the step's Newton matrix.  A force that
 * depends on the state (a spring to a target) is thus explicit in the
 * state at which the caller sets it. */
void lw_data_set_perturbation(lw_data *d, int b, const double p[3], const double F[3]);
/* Overwrite the state (any pointer may be NULL to keep that part); joint
 * angles are unwrapped against the previous state; controllers' integrals
 * restart from zero. */
void lw_data_set_state(const lw_model *m, lw_data *d, double t, const double *q, const double *qd,
                       const double *qdd, const double *lambda);
void lw_eval_mass_dense(const lw_model *m, double *M);
void lw_eval_dense(const lw_model *m, lw_data *d, const double *q, const double *qd, double t,
                   double *Q, double *Phi, double *Phi_q, double *Phi_t, double *gamma);
/* Values for programs that check the library from outside (lw_public_eval.c).
 * The number of objectives of the description; the sum of objective
 * `objective`'s terms of one kind (integrands or final terms) at the output
 * row `outputs` (lw_model_output_columns values, as lw_outputs writes them;
 * NAN for an objective out of range). */
int lw_model_nobjectives(const lw_model *m);
double lw_objective_terms(const lw_model *m, int objective, lw_term_kind kind, const double *outputs);
/* The joint coordinates (angles among them) that the data continues angles
 * from across +-pi: lw_model_ncoords values, read and restored so that
 * evaluations out of time order see the angles of an earlier point. */
int lw_model_ncoords(const lw_model *m);
void lw_data_get_coords(const lw_model *m, const lw_data *d, double *coords);
void lw_data_set_coords(const lw_model *m, lw_data *d, const double *coords);

/* ---- simulation driver: runs to t_end, keeps every output row --------- */
typedef struct {
  long steps;               /* steps taken */
  long rows;                /* rows stored (steps + 1 on success) */
  int ncols;                /* 1 + output columns (time first) */
  double *table;            /* rows x ncols, row-major */
  double wall_time_s;
  double max_constraint_residual;
  long newton_iterations;   /* total */
  int max_step_iterations;
  int status;               /* LW_OK or the failure */
  lw_error error;
  /* what happened at the model's events, in time order (nevents of them) */
  long nevents;
  struct lw_event_record *events;
  /* tolerance mode: steps refused (error above the tolerance, or a step
   * that failed) and the smallest and largest step taken */
  long rejected;
  double h_min, h_max;
} lw_sim_result;

/* One event of a run: its time (located to about 1e-12 relative), the
 * event (index into the description's events), what it did, and the normal
 * velocity (the gap's rate; a limit's coordinate rate towards the free side)
 * before and after. */
typedef enum {
  LW_EVREC_IMPACT, /* restitution applied; the run went on */
  LW_EVREC_REST,   /* an impact slower than rest_speed: the contact rests (held at zero gap) */
  LW_EVREC_STOP,   /* a guard with action stop: the run stopped */
  LW_EVREC_RELEASE, /* a resting contact's normal force fell to zero: it is free again */
  LW_EVREC_SWITCH, /* a switch's point crossed its plane: its force turned on (side -1) or off (+1) */
  LW_EVREC_CAPTURE, /* a capture's point reached its circle and is held there from then on */
} lw_event_action;
typedef struct lw_event_record {
  double t;
  int event;
  lw_event_action action;
  int side;        /* joint limit: -1 lower, +1 upper; guard: the direction crossed; else 0 */
  double v_pre, v_post;
} lw_event_record;
const char *lw_event_action_name(lw_event_action a); /* "impact", "rest", "stop", "release", "switch", "capture" */

/* progress: called every `every` steps with the fraction done; returning
 * nonzero cancels. May be NULL. */
typedef int (*lw_progress_fn)(double fraction, void *user);
/* Run m to t_end with steps of h (the model's other options as they are;
 * an h other than lw_model_opt(m)->step is run without compiling again). */
int lw_simulate(const lw_model *m, double t_end, double h, lw_sim_result *res,
                lw_progress_fn progress, void *user);
void lw_sim_result_clear(lw_sim_result *res);
/* What a run keeps and hands on: every `every`-th row (and the last, and
 * the last good one after a failure); kept in res->table when keep, handed
 * to row (when not NULL) as each is made (time first, then the outputs;
 * nonzero stops the run).  With keep = 0 memory stays flat however long
 * the run: rows counts the rows handed on, table is NULL. */
typedef int (*lw_row_fn)(const double *row, int ncols, void *user);
/* a row handed on with the state it was made from (the interpolated state
 * between the steps): what a display draws.  Runs in the tolerance mode
 * call it; the step mode's runs do not (a display steps those itself) */
typedef int (*lw_state_row_fn)(const lw_data *d, const double *row, int ncols, void *user);
typedef struct {
  long every;
  int keep;
  lw_row_fn row;
  void *user;
  lw_state_row_fn state_row; /* called after row (may be NULL), with the same user */
} lw_sim_output;
int lw_simulate_ex(const lw_model *m, double t_end, double h, const lw_sim_output *out, lw_sim_result *res,
                   lw_progress_fn progress, void *user);

/* ---- sensitivities -------------------------------------------------- */
typedef enum {
  LW_SENS_VALUE,   /* objective values only */
  LW_SENS_FORWARD, /* direct differentiation of the discretized step */
  LW_SENS_ADJOINT, /* discrete adjoint: the exact transpose of the same */
  LW_SENS_FD,      /* central differences of the whole simulation (2p + 1 runs) */
} lw_sens_method;

typedef struct {
  lw_sens_method method;
  int nparams;
  const int *params;      /* indices into desc->params */
  int nobj;
  const int *objectives;  /* indices into desc->objectives */
  double fd_step;         /* LW_SENS_FD: step relative to max(|value|, 1); 0: 1e-6 */
  int keep_outputs;       /* forward: every output and its sensitivities over time */
  size_t memory_limit;    /* adjoint: bytes of stored states before checkpointing (0: 512 MiB) */
  int threads;            /* forward: 0 steps the simulation on a second thread alongside where the
                             machine has two processors (dense models), 1 keeps to one */
  lw_progress_fn progress;
  void *user;
} lw_sens_options;

typedef struct {
  int nparams, nobj;
  double *value;          /* (nobj) objective values */
  double *gradient;       /* (nobj x nparams) row-major */
  int *depends;           /* (nparams) 0: the parameter reaches nothing the
                             simulation or the objectives use; its gradient is exactly 0 */
  long steps, sim_steps;  /* steps done / asked */
  double wall_time_s;
  size_t peak_bytes;      /* stored states (adjoint) or sensitivity arrays and the ring of states (forward) */
  int recomputed;         /* adjoint: 1 when segments were recomputed from checkpoints */
  int threads;            /* threads the run used (forward: 2 when the simulation was stepped alongside) */
  /* forward with keep_outputs: rows x ncols, each row: t, the outputs, then
   * for every output column c and parameter j: d y_c / d rho_j (c-major) */
  long rows;
  int ncols;
  double *table;
  int status;
  lw_error error;
  /* the run's events (models with events; not with LW_SENS_FD) and, for
   * LW_SENS_FORWARD, event_dt (nevents x nparams, row-major): the
   * derivatives of each event's time with respect to the parameters */
  long nevents;
  struct lw_event_record *events;
  double *event_dt;
} lw_sens_result;

/* Value and gradient of objectives with respect to parameters over a run of
 * the model to solver.t_end with solver.step.  On a solver failure the
 * status is LW_ERR_SOLVER with the time and place in error, and no gradient
 * is given. */
int lw_sensitivity(const lw_desc *d, const lw_sens_options *opt, lw_sens_result *res);
/* The same from a compiled model: opt's params and objectives index
 * lw_model_desc(m), whose copy also gives the parameters' tangents (and the
 * perturbed copies of LW_SENS_FD).  lw_sensitivity compiles d and gives the
 * same numbers; a caller that runs many sensitivities of one model compiles
 * it once. */
int lw_sensitivity_model(const lw_model *m, const lw_sens_options *opt, lw_sens_result *res);
void lw_sens_result_clear(lw_sens_result *res);
int lw_desc_param_index(const lw_desc *d, const char *name);
/* "value", "forward", "adjoint", "fd" */
const char *lw_sens_method_name(lw_sens_method m);
int lw_sens_method_from_name(const char *s); /* -1 if unknown */
/* a parameter name pattern: NAME[*] matches every NAME[k], anything else itself */
int lw_param_name_matches(const char *pattern, const char *name);
int lw_desc_objective_index(const lw_desc *d, const char *name);

/* ==== editing (lw_edit.c) ================================================
 * Changes an editor makes to a description, and the live check of a
 * description being edited. */

/* Remove the element a path names ("bodies/B", "beams/B", "joints/J", "forces/F",
 * "drivers/D", "outputs/O", "parameters/P", "objectives/O") with everything
 * that refers to it: a body's or beam's joints, forces, outputs and events; a joint's drivers,
 * initial values, forces and outputs; parameter targets inside it (a
 * parameter left without targets goes too); the problems that optimize an
 * objective, and the constraints on it in other problems.  Returns the number of elements removed (0: none). */
int lw_desc_remove(lw_desc *d, const char *path);
/* Rename the element a path names, and every reference to it.  Returns 0
 * when the element does not exist or the name is empty, has a '/', or is
 * taken. */
int lw_desc_rename(lw_desc *d, const char *path, const char *new_name);
/* The body, joint, force or beam a path "bodies/B", "joints/J", "forces/F",
 * "beams/B" names:
 * its kind and its index in that list (-1 with LW_ELEM_NONE). */
typedef enum { LW_ELEM_NONE, LW_ELEM_BODY, LW_ELEM_JOINT, LW_ELEM_FORCE, LW_ELEM_BEAM } lw_elem_kind;
lw_elem_kind lw_desc_find(const lw_desc *d, const char *path, int *index);

/* A link drawn in the editor: a uniform bar of LW_LINK_DENSITY kg per metre
 * and LW_LINK_WIDTH wide between its points "start" and "end". */
#define LW_LINK_DENSITY 1.0
#define LW_LINK_WIDTH 0.05
/* Move point k of body b to p (body coordinates).  Display shapes that ended
 * or were centred at the point follow it; parameters bound to a coordinate
 * that changes take its new value; a body that is still a drawn link's
 * uniform bar between its two points (its mass, centre of mass and inertia
 * those of the bar) stays one, its mass properties following the new
 * length.  Returns 1 when the mass properties changed, 0 when not, -1 when
 * b or k is out of range. */
int lw_desc_move_point(lw_desc *d, int b, int k, const double p[3]);
/* The mass properties of a uniform bar of length L and mass m along the unit
 * vector u of body axes (planar: inertia[2] only); inertia as in lw_body_desc. */
void lw_bar_inertia(int planar, double m, double L, const double u[3], double inertia[6]);
/* 1 if a body, beam, joint, force, driver, event, output, parameter or
 * objective has the name (or it is "ground") */
int lw_desc_name_used(const lw_desc *d, const char *name);
/* PREFIX1, PREFIX2, ...: the first name nothing uses */
void lw_desc_unique_name(const lw_desc *d, const char *prefix, char *buf, size_t len);

/* ==== kinematic drag (lw_drag.c) ========================================
 * A body point pulled toward a target moves the mechanism through its
 * assembled positions: the point's distance to the target is least in the
 * least-squares sense, the constraints hold exactly, the coordinates the
 * point does not need keep their values.  The model's drivers are left out
 * while dragging: a driven coordinate moves freely.  A target out of reach
 * gives the nearest reachable pose. */
typedef struct lw_drag lw_drag;
typedef struct {
  int iterations;
  double distance;  /* from the point to the target at the solution */
  double residual;  /* |Phi| at the solution */
} lw_drag_info;
/* Compiles d without its drivers and assembles its initial pose; NULL with
 * err set when it cannot. */
lw_drag *lw_drag_new(const lw_desc *d, lw_error *err);
void lw_drag_free(lw_drag *g);
int lw_drag_nq(const lw_drag *g);
const double *lw_drag_q(const lw_drag *g);            /* the current pose */
const lw_model *lw_drag_model(const lw_drag *g);
/* Start from pose q (nq coordinates of the same model); -1 on a size mismatch. */
int lw_drag_set_q(lw_drag *g, const double *q, int nq);
/* World position of point p (body axes) of body b (0-based) at the pose. */
int lw_drag_point(const lw_drag *g, int b, const double p[3], double out[3]);
/* Move the pose so that point p of body b comes as near target as the
 * constraints allow.  0 when the constraints hold (residual <= 1e-10) at the
 * new pose; -1 on bad arguments or when they cannot be made to hold. */
int lw_drag_solve(lw_drag *g, int b, const double p[3], const double target[3], lw_drag_info *info);
/* Make the pose the description's initial pose: the bodies' position and
 * angle (orientation) guesses and the initial values given for the degrees
 * of freedom (angles on the turn nearest their old values).  d is the
 * description the drag was made from; -1 if it no longer matches. */
int lw_drag_store(const lw_drag *g, lw_desc *d);

enum { LW_CHECK_REDUNDANT = 1, LW_CHECK_CONFLICT = 2 };

typedef struct {
  int status;          /* LW_OK: compiled and assembled with independent equations */
  int compiled, assembled;
  int nq, nc;
  int rank;            /* numerical rank of Phi_q (unit rows) at q */
  int rank_free;       /* the same without the drivers' equations */
  int dof;             /* nq - rank_free: degrees of freedom of the mechanism */
  int dof_driven;      /* nq - rank: those left free by the drivers */
  int nredundant;      /* nc - rank: dependent equations */
  double residual;     /* max |Phi| at q */
  int njoints;
  int *joint_state;    /* (njoints) LW_CHECK_* bits: in a dependency, violated */
  double *q;           /* (nq) the configuration checked: assembled, or the
                          least-squares best the assembly reached */
  lw_model *model;     /* compiled (NULL when compiling failed) */
  lw_data *data;       /* its state at q */
  lw_error err;        /* why status is not LW_OK */
} lw_check_result;

/* Compile, assemble and take the rank of the constraint Jacobian at the
 * configuration reached.  Always fills res (free with lw_check_result_clear). */
int lw_check(const lw_desc *d, lw_check_result *res);
void lw_check_result_clear(lw_check_result *res);
/* ==== end of editing ==================================================== */

#ifdef __cplusplus
}
#endif
#endif
