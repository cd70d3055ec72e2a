/* linkwright-cli: the studies without a display.
 *
 *   linkwright-cli simulate MODEL [--t-end S] [--step S] [--csv FILE|-] [--every K] [--json]
 *   linkwright-cli convert IN.urdf|IN.xml --out MODEL.json
 *   linkwright-cli check MODEL
 *   linkwright-cli demo [--json]                 (the built-in five-bar)
 *   linkwright-cli generate-chain N [--out FILE] [--planar|--spatial]
 *   linkwright-cli sensitivity MODEL --objective NAME [--params a,b,...]
 *                  [--method forward|adjoint|fd] [--json] [--csv FILE] [--t-end S]
 *                  [--fd-step X] [--one-thread] [--events-csv FILE|-]
 *
 * Exit codes: 0 ok, 1 usage, 2 model error, 3 solver failure. */
#include <gio/gio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linkwright.h"
#include "lw_io.h"
#include "lw_opt.h"
#include "cli-error.h"
#include "convert.h"
#ifdef LW_HAVE_RENDER
#include "render.h"
#endif
#include <errno.h>

enum { EXIT_USAGE = 1, EXIT_MODEL = 2, EXIT_SOLVER = 3 };

static void usage(FILE *f)
{
  fputs("usage:\n"
        "  linkwright-cli simulate MODEL [--t-end S] [--step S] [--csv FILE|-] [--every K] [--json] [--progress]\n"
        "  linkwright-cli check MODEL\n"
        "  linkwright-cli convert IN.urdf|IN.xml --out MODEL.json [--quiet]\n"
        "  linkwright-cli demo [--json] [--csv FILE]\n"
        "  linkwright-cli generate-chain N [--out FILE] [--spatial]\n"
        "  linkwright-cli sensitivity MODEL --objective NAME [--params a,b,...]\n"
        "                 [--method forward|adjoint|fd] [--json] [--csv FILE] [--t-end S] [--fd-step X]\n"
        "                 [--events-csv FILE|-]\n"
        "                 [--one-thread] [--progress]\n"
        "  linkwright-cli optimize MODEL [--problem NAME] [--json] [--out OPTIMIZED]\n"
        "                 [--algorithm lbfgs|mma|slsqp|auglag] [--gradient adjoint|forward|fd]\n"
        "                 [--max-evaluations N] [--multistart N] [--quiet] [--progress]\n"
        "  linkwright-cli render MODEL --out FILE.webm|FILE.gif|FILE.png [--width W] [--height H]\n"
        "                 [--fps F] [--speed S] [--t-end T] [--dark] [--progress]\n"
        "  linkwright-cli --version | COMMAND --help\n"
        "solver settings for simulate, sensitivity and optimize (they override the file's):\n"
        "  [--alpha A] [--tolerance X] [--constraint-tolerance X] [--max-iterations N]\n"
        "  [--integrator ali3p|variational] [--mode step|tolerance] [--rtol X] [--atol X] [--order 2|4]\n"
        "  [--rho-inf X]\n"
        "  (--rho-inf: ali3p's numerical damping, the spectral radius at infinite frequency from 0\n"
        "  to 1; 1, the default, is the trapezoidal rule without damping)\n"
        "  (--mode tolerance: steps sized to keep the local error below rtol |q| + atol;\n"
        "  --step is then the interval of the output rows, interpolated between the steps)\n"
        "--progress: JSON lines on stderr as the work goes ({\"t\": .., \"fraction\": ..}; optimize:\n"
        "  {\"evaluation\": .., \"fraction\": .., \"objective\": .., \"best\": ..}); --json: the result, or the\n"
        "  error, as JSON on stdout (every command)\n"
        "exit codes: 0 ok, 1 usage, 2 model error, 3 solver failure\n",
        f);
}

static void json_str(GString *s, const char *v)
{
  lw_cli_json_str(s, v);
}

/* set when a command wrote its JSON result (errors included) on stdout */
static gboolean json_written;

static void json_print(GString *s)
{
  fputs(s->str, stdout);
  json_written = TRUE;
}

static void json_num(GString *s, double v)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  if (!isfinite(v)) {
    g_string_append(s, "null");
    return;
  }
  lw_format_double(b, sizeof b, v);
  g_string_append(s, b);
}

/* --progress: a JSON line on stderr, {"t": simulated time, "fraction": done} */
static int json_progress(double fraction, void *user)
{
  const double *t_end = user;
  char t[G_ASCII_DTOSTR_BUF_SIZE], f[G_ASCII_DTOSTR_BUF_SIZE];
  fprintf(stderr, "{\"t\": %s, \"fraction\": %s}\n", g_ascii_formatd(t, sizeof t, "%.9g", fraction * *t_end),
          g_ascii_formatd(f, sizeof f, "%.6g", fraction));
  fflush(stderr);
  return 0;
}

/* the member "error" of a JSON result: what failed, where and when */
static void json_error(GString *s, const lw_error *e)
{
  g_string_append(s, ", \"error\": {\"message\": ");
  json_str(s, e->msg);
  g_string_append(s, ", \"where\": ");
  json_str(s, e->path);
  g_string_append(s, ", \"time\": ");
  json_num(s, e->time);
  g_string_append_c(s, '}');
}

static const char *objective_name(const lw_desc *d, int i)
{
  return d->objectives[i].name;
}

static const char *param_name(const lw_desc *d, int i)
{
  return d->params[i].name;
}

/* "FILE has no KIND 'NAME' (it has: A, B)": the n names that name(d, i) gives */
static void report_unknown_name(const char *file, const char *kind, const char *kinds, const char *name,
                                const lw_desc *d, int n, const char *(*name_of)(const lw_desc *, int))
{
  GString *names = g_string_new("");
  for (int i = 0; i < n; i++)
    g_string_append_printf(names, "%s%s", i ? ", " : "", name_of(d, i));
  lw_cli_error("%s has no %s '%s' (%s%s%s)", file, kind, name, n ? "it has: " : "it defines no ",
          n ? "" : kinds, names->str);
  g_string_free(names, TRUE);
}

/* the value of option a: a positive finite number, or a message and FALSE */
static gboolean positive_arg(const char *a, const char *v, double *x)
{
  char *end;
  *x = g_ascii_strtod(v, &end);
  if (*end || end == v || !(*x > 0) || !isfinite(*x)) {
    lw_cli_error("%s needs a positive number, not '%s'", a, v);
    return FALSE;
  }
  return TRUE;
}

/* the value of option a: a finite number, or a message and FALSE */
static gboolean number_arg(const char *a, const char *v, double *x)
{
  char *end;
  *x = g_ascii_strtod(v, &end);
  if (*end || end == v || !isfinite(*x)) {
    lw_cli_error("%s needs a number, not '%s'", a, v);
    return FALSE;
  }
  return TRUE;
}

/* the options of a command: a flag sets an int to 1; the others take the
 * next argument as text, a positive number (double), a positive whole
 * number (int) or a finite number (double, its range checked by the
 * compiler) */
typedef enum { OPT_FLAG, OPT_TEXT, OPT_POSITIVE, OPT_COUNT, OPT_NUMBER } opt_kind;
typedef struct {
  const char *name;
  opt_kind kind;
  void *dst;
} cli_opt;

/* solver settings given on the command line (NAN / 0: the file's) */
typedef struct {
  double alpha, tolerance, constraint_tolerance;
  int max_iterations;
  const char *integrator;
  const char *mode; /* "step" or "tolerance" */
  double rtol, atol;
  int order;
  double rho_inf;
} solver_args;

#define SOLVER_ARGS_INIT {NAN, NAN, NAN, 0, NULL, NULL, NAN, NAN, 0, NAN}
#define SOLVER_OPTS(sa)                                                                            \
  {"--alpha", OPT_POSITIVE, &(sa).alpha}, {"--tolerance", OPT_POSITIVE, &(sa).tolerance},          \
    {"--constraint-tolerance", OPT_POSITIVE, &(sa).constraint_tolerance},                          \
    {"--max-iterations", OPT_COUNT, &(sa).max_iterations}, {"--integrator", OPT_TEXT, &(sa).integrator}, \
    {"--mode", OPT_TEXT, &(sa).mode}, {"--rtol", OPT_POSITIVE, &(sa).rtol},                        \
    {"--atol", OPT_POSITIVE, &(sa).atol}, {"--order", OPT_COUNT, &(sa).order}, \
    {"--rho-inf", OPT_NUMBER, &(sa).rho_inf}

static void apply_solver_args(lw_desc *d, const solver_args *sa)
{
  if (!isnan(sa->alpha))
    d->solver.alpha = sa->alpha;
  if (!isnan(sa->tolerance))
    d->solver.tolerance = sa->tolerance;
  if (!isnan(sa->constraint_tolerance))
    d->solver.constraint_tolerance = sa->constraint_tolerance;
  if (sa->max_iterations > 0)
    d->solver.max_iterations = sa->max_iterations;
  /* a name too long for the field is kept whole enough to be refused by
   * the compiler's check (unknown integrator) */
  if (sa->integrator)
    snprintf(d->solver.integrator, sizeof d->solver.integrator, "%s", sa->integrator);
  if (sa->mode)
    d->solver.mode = !strcmp(sa->mode, "tolerance") ? LW_MODE_TOLERANCE : !strcmp(sa->mode, "step") ? LW_MODE_STEP : -1;
  if (!isnan(sa->rtol))
    d->solver.rtol = sa->rtol;
  if (!isnan(sa->atol))
    d->solver.atol = sa->atol;
  if (sa->order > 0)
    d->solver.order = sa->order;
  if (!isnan(sa->rho_inf))
    d->solver.rho_inf = sa->rho_inf;
}

/* argv by opts (ended by a NULL name); a bare argument is the model file,
 * none when file is NULL.  0, or EXIT_USAGE after a message. */
static int parse_args(int argc, char **argv, const cli_opt *opts, const char **file)
{
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const cli_opt *o = opts;
    while (o->name && strcmp(a, o->name))
      o++;
    if (o->name && o->kind == OPT_FLAG) {
      *(int *)o->dst = 1;
      continue;
    }
    if (o->name && i + 1 < argc) {
      const char *v = argv[++i];
      if (o->kind == OPT_TEXT) {
        *(const char **)o->dst = v;
      } else if (o->kind == OPT_POSITIVE) {
        if (!positive_arg(a, v, o->dst))
          return EXIT_USAGE;
      } else if (o->kind == OPT_NUMBER) {
        if (!number_arg(a, v, o->dst))
          return EXIT_USAGE;
      } else {
        char *end = NULL;
        long x = strtol(v, &end, 10);
        if (!end || end == v || *end || x < 1 || x > 100000000) {
          lw_cli_error("%s needs a positive whole number, not '%s'", a, v);
          return EXIT_USAGE;
        }
        *(int *)o->dst = (int)x;
      }
      continue;
    }
    if (a[0] == '-' && a[1]) {
      lw_cli_error("unknown or incomplete option '%s'", a);
      usage(stderr);
      return EXIT_USAGE;
    }
    if (file && !*file) {
      *file = a;
      continue;
    }
    lw_cli_error("unexpected argument '%s'", a);
    return EXIT_USAGE;
  }
  return 0;
}

/* header line s (consumed) and the rows of a row-major table, to file */
static gboolean write_rows(GString *s, const double *table, long rows, int ncols, const char *file,
                           GError **error)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_c(s, '\n');
  for (long i = 0; i < rows; i++) {
    for (int c = 0; c < ncols; c++) {
      lw_format_double(b, sizeof b, table[(size_t)i * ncols + c]);
      if (c)
        g_string_append_c(s, ',');
      g_string_append(s, b);
    }
    g_string_append_c(s, '\n');
  }
  gboolean ok = g_file_set_contents(file, s->str, (gssize)s->len, error);
  g_string_free(s, TRUE);
  return ok;
}

/* a CSV field: quoted (quotes doubled) when it holds a comma, a quote or a
 * line break, so that every row keeps its number of columns */
static void csv_field(GString *s, const char *v)
{
  if (!strpbrk(v, ",\"\n\r")) {
    g_string_append(s, v);
    return;
  }
  g_string_append_c(s, '"');
  for (const char *p = v; *p; p++) {
    if (*p == '"')
      g_string_append_c(s, '"');
    g_string_append_c(s, *p);
  }
  g_string_append_c(s, '"');
}

static GString *csv_header(const lw_model *m)
{
  GString *s = g_string_new("time");
  char name[256];
  for (int c = 0; c < lw_model_output_columns(m); c++) {
    lw_model_output_column_name(m, c, name, sizeof name);
    g_string_append_c(s, ',');
    csv_field(s, name);
  }
  return s;
}

/* rows written as the run makes them (--csv with --every, or to stdout):
 * the memory stays flat whatever the run's length; the last row is kept
 * for the summary */
typedef struct {
  FILE *f;
  double *last;
  int ncols;
  gboolean failed;
} csv_stream;

static int stream_row(const double *row, int ncols, void *user)
{
  csv_stream *cs = user;
  memcpy(cs->last, row, sizeof(double) * (size_t)ncols);
  cs->ncols = ncols;
  if (!cs->f)
    return 0;
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  for (int c = 0; c < ncols; c++) {
    lw_format_double(b, sizeof b, row[c]);
    if (c)
      fputc(',', cs->f);
    fputs(b, cs->f);
  }
  fputc('\n', cs->f);
  if (ferror(cs->f)) {
    cs->failed = TRUE;
    return 1;
  }
  return 0;
}

/* the run's events (models with events only): time, event, what happened,
 * the normal velocity before and after; and why the run stopped early */
static void json_events(GString *s, const lw_model *m, const lw_sim_result *r)
{
  const lw_desc *d = lw_model_desc(m);
  if (!d->nevents)
    return;
  g_string_append(s, ", \"events\": [");
  for (long i = 0; i < r->nevents; i++) {
    const lw_event_record *e = &r->events[i];
    g_string_append_printf(s, "%s{\"t\": ", i ? ", " : "");
    json_num(s, e->t);
    g_string_append(s, ", \"event\": ");
    json_str(s, d->events[e->event].name);
    g_string_append(s, ", \"type\": ");
    json_str(s, lw_event_type_name(d->events[e->event].type));
    g_string_append(s, ", \"action\": ");
    json_str(s, lw_event_action_name(e->action));
    if (d->events[e->event].type == LW_EVENT_JOINT_LIMIT)
      g_string_append_printf(s, ", \"bound\": \"%s\"", e->side < 0 ? "lower" : "upper");
    if (e->action != LW_EVREC_STOP) {
      g_string_append(s, ", \"v_pre\": ");
      json_num(s, e->v_pre);
      g_string_append(s, ", \"v_post\": ");
      json_num(s, e->v_post);
    }
    g_string_append_c(s, '}');
  }
  g_string_append_c(s, ']');
  if (r->status == LW_OK && r->error.msg[0]) {
    g_string_append(s, ", \"stopped\": ");
    json_str(s, r->error.msg);
  }
}

static int run_model(lw_model *m, const char *label, double t_end, double h, const char *csv, int json, long every,
                     int progress)
{
  lw_sim_result r;
  /* rows are written as the run makes them (every K-th, and the last) and
   * not kept: the memory stays flat whatever the run's length */
  csv_stream cs = {NULL, NULL, 0, FALSE};
  if (csv) {
    cs.f = strcmp(csv, "-") ? fopen(csv, "w") : stdout;
    if (!cs.f) {
      lw_cli_error("cannot write %s: %s", csv, g_strerror(errno));
      return EXIT_MODEL;
    }
    GString *hdr = csv_header(m);
    fprintf(cs.f, "%s\n", hdr->str);
    g_string_free(hdr, TRUE);
  }
  cs.last = g_new0(double, 1 + (size_t)lw_model_output_columns(m));
  lw_sim_output out = {every > 1 ? every : 1, 0, stream_row, &cs};
  lw_simulate_ex(m, t_end, h, &out, &r, progress ? json_progress : NULL, &t_end);
  if (csv && ((cs.f != stdout && fclose(cs.f) != 0) || cs.failed))
    lw_cli_error("cannot write %s", csv);
  /* the summary reads the last row from the table */
  free(r.table);
  r.table = NULL;
  if (r.rows > 0) {
    r.table = cs.last;
    cs.last = NULL;
    r.ncols = cs.ncols ? cs.ncols : 1 + lw_model_output_columns(m);
    r.rows = 1;
  }
  g_free(cs.last);
  int code = r.status == LW_OK ? 0 : r.status == LW_ERR_SOLVER ? EXIT_SOLVER : EXIT_MODEL;
  double tf = r.rows > 0 ? r.table[(size_t)(r.rows - 1) * r.ncols] : 0.0;
  if (json) {
    GString *s = g_string_new("{");
    g_string_append(s, "\"model\": ");
    json_str(s, label);
    g_string_append_printf(s, ", \"status\": \"%s\"",
                           r.status == LW_OK ? "ok" : r.status == LW_ERR_SOLVER ? "solver_failure" : "model_error");
    g_string_append_printf(s, ", \"steps\": %ld, \"wall_time_s\": ", r.steps);
    json_num(s, r.wall_time_s);
    g_string_append(s, ", \"t_final\": ");
    json_num(s, tf);
    g_string_append(s, ", \"max_constraint_residual\": ");
    json_num(s, r.max_constraint_residual);
    g_string_append_printf(s, ", \"newton_iterations\": %ld, \"max_step_iterations\": %d",
                           r.newton_iterations, r.max_step_iterations);
    g_string_append(s, ", \"final\": {");
    if (r.rows > 0) {
      const double *row = r.table + (size_t)(r.rows - 1) * r.ncols + 1;
      int c = 0;
      for (int k = 0; k < lw_model_noutputs(m); k++) {
        int w = lw_model_output_width(m, k);
        g_string_append_printf(s, "%s", k ? ", " : "");
        json_str(s, lw_model_output_name(m, k));
        g_string_append(s, ": ");
        if (w == 1) {
          json_num(s, row[c]);
        } else {
          g_string_append_c(s, '[');
          for (int i = 0; i < w; i++) {
            if (i)
              g_string_append(s, ", ");
            json_num(s, row[c + i]);
          }
          g_string_append_c(s, ']');
        }
        c += w;
      }
    }
    g_string_append_c(s, '}');
    json_events(s, m, &r);
    if (r.status != LW_OK) {
      json_error(s, &r.error);
    }
    g_string_append(s, "}\n");
    json_print(s);
    g_string_free(s, TRUE);
  } else {
    fprintf(csv && !strcmp(csv, "-") ? stderr : stdout,
           "%s: %ld steps to t = %.6g s in %.4g s (%.3g us/step), max constraint residual %.3g, "
           "%ld Newton iterations (max %d per step)\n",
           label, r.steps, tf, r.wall_time_s, r.steps ? 1e6 * r.wall_time_s / (double)r.steps : 0.0,
           r.max_constraint_residual, r.newton_iterations, r.max_step_iterations);
  }
  if (r.status == LW_OK && r.error.msg[0])
    lw_cli_error("%s: %s", label, r.error.msg); /* stopped by an event */
  if (!json && r.nevents)
    fprintf(csv && !strcmp(csv, "-") ? stderr : stdout, "%s: %ld event(s), the last at t = %.12g s\n", label,
            r.nevents, r.events[r.nevents - 1].t);
  if (r.status != LW_OK)
    lw_cli_error("%s: %s%s%s", label, r.error.msg,
            r.rows > 0 && csv ? "; results up to that time written to " : "", r.rows > 0 && csv ? csv : "");
  lw_sim_result_clear(&r);
  return code;
}

static int cmd_simulate(int argc, char **argv, int builtin)
{
  const char *file = NULL, *csv = NULL;
  double t_end = NAN, h = NAN;
  int json = 0, every = 1, progress = 0;
  solver_args sa = SOLVER_ARGS_INIT;
  const cli_opt opts[] = {{"--json", OPT_FLAG, &json},    {"--t-end", OPT_POSITIVE, &t_end},
                         {"--progress", OPT_FLAG, &progress},
                         {"--step", OPT_POSITIVE, &h},    {"--csv", OPT_TEXT, &csv},
                         {"--every", OPT_COUNT, &every}, SOLVER_OPTS(sa), {NULL, 0, NULL}};
  int rc = parse_args(argc, argv, opts, builtin ? NULL : &file);
  if (rc)
    return rc;
  lw_error err;
  lw_model *m = NULL;
  const char *label = file;
  if (builtin) {
    label = "five-bar (built-in)";
    GBytes *b = g_resources_lookup_data("/io/github/linkwright/models/five-bar.json", 0, NULL);
    if (!b) {
      lw_cli_error("the built-in model is missing");
      return EXIT_MODEL;
    }
    gsize n;
    const char *data = g_bytes_get_data(b, &n);
    lw_desc *d = lw_model_read_data(data, (gssize)n, "five-bar.json", NULL, &err);
    g_bytes_unref(b);
    if (d) {
      apply_solver_args(d, &sa);
      m = lw_compile(d, &err);
      lw_desc_free(d);
    }
  } else {
    if (!file) {
      usage(stderr);
      return EXIT_USAGE;
    }
    g_autoptr(LwSourceMap) map = NULL;
    lw_desc *d = lw_model_read_file(file, &map, &err);
    if (d) {
      apply_solver_args(d, &sa);
      if (!(m = lw_compile(d, &err)))
        lw_error_locate(&err, file, map);
      lw_desc_free(d);
    }
  }
  if (!m) {
    lw_cli_error("%s", err.msg);
    return EXIT_MODEL;
  }
  const lw_desc *d = lw_model_desc(m);
  gboolean given = !isnan(t_end) || !isnan(h);
  if (isnan(t_end))
    t_end = d->solver.t_end;
  if (isnan(h))
    h = d->solver.step;
  /* settings given here that make no run are a usage error; a t_end that
   * is not a whole number of steps is said (the run ends at the step
   * nearest to it) */
  double n = floor(t_end / h + 0.5);
  if (d->solver.mode == LW_MODE_TOLERANCE) /* h is the output interval: any t_end is a run */
    given = FALSE;
  if (given && (n < 1 || n > 1e9)) {
    lw_cli_error("--t-end %g with --step %g is %.3g steps: %s", t_end, h, n,
            n < 1 ? "not one step" : "more than the 1e9 a run may take");
    lw_model_free(m);
    return EXIT_USAGE;
  }
  if (given && fabs(n * h - t_end) > 1e-9 * fmax(t_end, h))
    lw_cli_error("t_end %g s is not a whole number of steps of %g s: the run ends at %.9g s",
            t_end, h, n * h);
  int code = run_model(m, label, t_end, h, csv, json, every, progress);
  lw_model_free(m);
  return code;
}

static int cmd_check(int argc, char **argv)
{
  if (argc != 1) {
    usage(stderr);
    return EXIT_USAGE;
  }
  lw_error err;
  lw_model *m = lw_model_open(argv[0], &err);
  if (!m) {
    lw_cli_error("%s", err.msg);
    return EXIT_MODEL;
  }
  lw_data *d = lw_data_new(m);
  int st = lw_initialize(m, d, &err);
  if (st) {
    /* locate compile-time paths in the file */
    g_autoptr(LwSourceMap) map = NULL;
    lw_desc *dd = lw_model_read_file(argv[0], &map, NULL);
    lw_error_locate(&err, argv[0], map);
    lw_desc_free(dd);
    lw_cli_error("%s", err.msg);
  } else {
    printf("%s: %d bodies, %d coordinates, %d constraint equations, %d degrees of freedom, "
           "assembled (max |Phi| = %.3g)\n",
           argv[0], lw_model_nbodies(m), lw_model_nq(m), lw_model_nc(m), lw_data_dof(d),
           lw_constraint_residual(m, d));
  }
  lw_data_free(d);
  lw_model_free(m);
  return st ? EXIT_MODEL : 0;
}

static int cmd_chain(int argc, char **argv)
{
  const char *out = NULL;
  int n = 0, spatial = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--spatial"))
      spatial = 1;
    else if (!n)
      n = atoi(argv[i]);
    else {
      usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (n < 1 || n > 100000) {
    lw_cli_error("generate-chain needs a number of links between 1 and 100000");
    return EXIT_USAGE;
  }
  lw_desc *d = lw_desc_chain(n, spatial);
  int code = 0;
  if (out) {
    GError *e = NULL;
    if (!lw_model_write_file(d, out, &e)) {
      lw_cli_error("cannot write %s: %s", out, e->message);
      g_error_free(e);
      code = EXIT_USAGE;
    }
  } else {
    char *s = lw_model_to_json(d);
    fputs(s, stdout);
    g_free(s);
  }
  lw_desc_free(d);
  return code;
}

/* the forward sensitivities of every output over time */
static gboolean write_sens_csv(const lw_model *m, const lw_desc *d, const int *P, int np, const lw_sens_result *r,
                               const char *file, GError **error)
{
  GString *s = g_string_new("time");
  char name[256];
  int nc = lw_model_output_columns(m);
  for (int c = 0; c < nc; c++) {
    lw_model_output_column_name(m, c, name, sizeof name);
    g_string_append_printf(s, ",%s", name);
  }
  for (int c = 0; c < nc; c++) {
    lw_model_output_column_name(m, c, name, sizeof name);
    for (int j = 0; j < np; j++)
      g_string_append_printf(s, ",d(%s)/d(%s)", name, d->params[P[j]].name);
  }
  return write_rows(s, r->table, r->rows, r->ncols, file, error);
}

/* d compiled, its end time t_end unless NAN (an option of the compiled
 * model: the description is left as it is); NULL with err filled */
static lw_model *compile_with_t_end(const lw_desc *d, double t_end, lw_error *err)
{
  lw_model *m = lw_compile(d, err);
  if (!m || isnan(t_end))
    return m;
  lw_opt o = *lw_model_opt(m);
  o.t_end = t_end;
  if (lw_model_set_opt(m, &o, err) == LW_OK)
    return m;
  lw_model_free(m);
  return NULL;
}

/* a sensitivity result that failed before its run, with err's reason */
static int sens_failed(lw_sens_result *r, const lw_error *err)
{
  memset(r, 0, sizeof *r);
  r->error = *err;
  return r->status = err->status ? err->status : LW_ERR_MODEL;
}

static int sens_progress(double f, void *user)
{
  int *last = user;
  int pct = (int)(100 * f);
  if (pct >= *last + 10) {
    *last = pct;
    fprintf(stderr, "\r%3d %%", pct);
    fflush(stderr);
  }
  return 0;
}

/* Why only the forward method gives the event times' derivatives: the
 * forward carries dx/drho, and each event's dt/drho is its time's row
 * applied to it (sens_events.c); the adjoint carries d psi/dx for the one
 * objective psi, and an event's time is another function of the
 * parameters, whose gradient would need a backward sweep of its own from
 * that event (one adjoint per event time). */
#define EVENT_DT_WHY                                                                                                \
  "the event times' derivatives dt/dparam come from --method forward; the adjoint gives the objective's gradient " \
  "only (each event time would need a backward sweep of its own)"

/* the sensitivity run's events: time, event, what happened and, from the
 * forward method, the time's derivatives with respect to the parameters */
static void json_sens_events(GString *s, const lw_desc *d, const int *P, int np, const lw_sens_result *r)
{
  if (!d->nevents)
    return;
  if (!r->event_dt && r->nevents > 0) {
    g_string_append(s, ", \"events_note\": ");
    json_str(s, EVENT_DT_WHY);
  }
  g_string_append(s, ", \"events\": [");
  for (long i = 0; i < r->nevents; i++) {
    const lw_event_record *e = &r->events[i];
    g_string_append_printf(s, "%s{\"t\": ", i ? ", " : "");
    json_num(s, e->t);
    g_string_append(s, ", \"event\": ");
    json_str(s, d->events[e->event].name);
    g_string_append(s, ", \"action\": ");
    json_str(s, lw_event_action_name(e->action));
    if (r->event_dt) {
      g_string_append(s, ", \"dt_dparam\": {");
      for (int j = 0; j < np; j++) {
        g_string_append(s, j ? ", " : "");
        json_str(s, d->params[P[j]].name);
        g_string_append(s, ": ");
        json_num(s, r->event_dt[(size_t)i * np + j]);
      }
      g_string_append_c(s, '}');
    }
    g_string_append_c(s, '}');
  }
  g_string_append_c(s, ']');
}

/* the events as CSV: t, event, action, then dt/d(each parameter) */
static gboolean write_events_csv(const lw_desc *d, const int *P, int np, const lw_sens_result *r, const char *path,
                                 GError **err)
{
  GString *s = g_string_new("t,event,action");
  for (int j = 0; j < np && r->event_dt; j++)
    g_string_append_printf(s, ",dt/d%s", d->params[P[j]].name);
  g_string_append_c(s, '\n');
  for (long i = 0; i < r->nevents; i++) {
    const lw_event_record *e = &r->events[i];
    g_string_append_printf(s, "%.17g,%s,%s", e->t, d->events[e->event].name, lw_event_action_name(e->action));
    for (int j = 0; j < np && r->event_dt; j++)
      g_string_append_printf(s, ",%.17g", r->event_dt[(size_t)i * np + j]);
    g_string_append_c(s, '\n');
  }
  gboolean ok = strcmp(path, "-") ? g_file_set_contents(path, s->str, (gssize)s->len, err)
                                  : fputs(s->str, stdout) >= 0;
  g_string_free(s, TRUE);
  return ok;
}

static int cmd_sensitivity(int argc, char **argv)
{
  const char *file = NULL, *objective = NULL, *params = NULL, *method = NULL, *csv = NULL, *ev_csv = NULL;
  double t_end = NAN, fd_step = 0;
  int json = 0, one_thread = 0, progress = 0;
  solver_args sa = SOLVER_ARGS_INIT;
  const cli_opt opts[] = {{"--json", OPT_FLAG, &json},           {"--objective", OPT_TEXT, &objective},
                         {"--events-csv", OPT_TEXT, &ev_csv},
                         {"--progress", OPT_FLAG, &progress},
                         {"--params", OPT_TEXT, &params},        {"--method", OPT_TEXT, &method},
                         {"--csv", OPT_TEXT, &csv},              {"--t-end", OPT_POSITIVE, &t_end},
                         {"--fd-step", OPT_POSITIVE, &fd_step}, {"--one-thread", OPT_FLAG, &one_thread},
                         SOLVER_OPTS(sa),                         {NULL, 0, NULL}};
  int rc = parse_args(argc, argv, opts, &file);
  if (rc)
    return rc;
  if (!file || !objective) {
    lw_cli_error("sensitivity needs a model file and --objective NAME");
    usage(stderr);
    return EXIT_USAGE;
  }
  lw_sens_method mth = csv ? LW_SENS_FORWARD : LW_SENS_ADJOINT;
  if (method) {
    int mi = lw_sens_method_from_name(method);
    if (mi < LW_SENS_FORWARD) {
      lw_cli_error("unknown method '%s' (expected forward, adjoint or fd)", method);
      return EXIT_USAGE;
    }
    mth = mi;
  }
  if (csv && mth != LW_SENS_FORWARD) {
    lw_cli_error("--csv writes forward sensitivities over time; use --method forward");
    return EXIT_USAGE;
  }
  lw_error err;
  g_autoptr(LwSourceMap) map = NULL;
  lw_desc *d = lw_model_read_file(file, &map, &err);
  if (!d) {
    lw_cli_error("%s", err.msg);
    return EXIT_MODEL;
  }
  int code = 0;
  int *P = NULL, np = 0;
  int O[1] = {lw_desc_objective_index(d, objective)};
  if (O[0] < 0) {
    report_unknown_name(file, "objective", "objectives", objective, d, d->nobjectives, objective_name);
    code = EXIT_USAGE;
    goto out;
  }
  if (params) {
    g_auto(GStrv) parts = g_strsplit(params, ",", -1);
    P = g_new0(int, g_strv_length(parts) + 1);
    for (int i = 0; parts[i]; i++) {
      char *nm = g_strstrip(parts[i]);
      if (!*nm)
        continue;
      int j = lw_desc_param_index(d, nm);
      if (j < 0) {
        report_unknown_name(file, "parameter", "parameters", nm, d, d->nparams, param_name);
        code = EXIT_USAGE;
        goto out;
      }
      P[np++] = j;
    }
  } else {
    P = g_new0(int, d->nparams + 1);
    for (int j = 0; j < d->nparams; j++)
      P[np++] = j;
  }
  if (np == 0) {
    lw_cli_error("%s defines no parameters to differentiate with respect to", file);
    code = EXIT_USAGE;
    goto out;
  }
  apply_solver_args(d, &sa);
  int last = -10;
  double run_t_end = isnan(t_end) ? d->solver.t_end : t_end;
  lw_sens_options opt = {.method = mth, .nparams = np, .params = P, .nobj = 1, .objectives = O,
                         .fd_step = fd_step, .keep_outputs = csv != NULL, .threads = one_thread ? 1 : 0,
                         .progress = progress ? json_progress : (!json && isatty(2)) ? sens_progress : NULL,
                         .user = progress ? (void *)&run_t_end : (void *)&last};
  lw_sens_result r;
  /* compiled once, for the run (--t-end an option of the compiled model)
   * and for the CSV's columns */
  lw_model *m = compile_with_t_end(d, t_end, &err);
  int st = m ? lw_sensitivity_model(m, &opt, &r) : sens_failed(&r, &err);
  /* the passes report up to their last step; the whole work is done here */
  if (progress && st == LW_OK)
    json_progress(1.0, &run_t_end);
  if (!progress && opt.progress && last >= 0)
    fputs("\r      \r", stderr);
  if (st == LW_ERR_MODEL)
    lw_error_locate(&r.error, file, map);
  code = st == LW_OK ? 0 : st == LW_ERR_SOLVER ? EXIT_SOLVER : EXIT_MODEL;
  if (csv && st == LW_OK) {
    GError *e = NULL;
    if (!write_sens_csv(m, d, P, np, &r, csv, &e)) {
      lw_cli_error("cannot write %s: %s", csv, e ? e->message : "unknown error");
      g_clear_error(&e);
      code = EXIT_USAGE;
    }
  }
  if (ev_csv && st == LW_OK) {
    GError *e = NULL;
    if (!r.event_dt && r.nevents > 0)
      fprintf(stderr, "linkwright-cli: note: the events CSV has no dt/d columns: %s\n", EVENT_DT_WHY);
    if (!write_events_csv(d, P, np, &r, ev_csv, &e)) {
      lw_cli_error("cannot write %s: %s", ev_csv, e ? e->message : "unknown error");
      g_clear_error(&e);
      code = EXIT_USAGE;
    }
  }
  lw_model_free(m);
  if (json) {
    GString *s = g_string_new("{\"model\": ");
    json_str(s, file);
    g_string_append(s, ", \"objective_name\": ");
    json_str(s, objective);
    g_string_append_printf(s, ", \"method\": \"%s\", \"status\": \"%s\"", lw_sens_method_name(mth),
                           st == LW_OK ? "ok" : st == LW_ERR_SOLVER ? "solver_failure" : "model_error");
    g_string_append(s, ", \"objective\": ");
    if (st == LW_OK)
      json_num(s, r.value[0]);
    else
      g_string_append(s, "null");
    g_string_append(s, ", \"gradient\": ");
    if (st == LW_OK) {
      g_string_append_c(s, '{');
      for (int j = 0; j < np; j++) {
        g_string_append(s, j ? ", " : "");
        json_str(s, d->params[P[j]].name);
        g_string_append(s, ": ");
        json_num(s, r.gradient[j]);
      }
      g_string_append(s, "}, \"independent\": [");
      for (int j = 0, first = 1; j < np; j++)
        if (mth != LW_SENS_FD && !r.depends[j]) {
          g_string_append(s, first ? "" : ", ");
          json_str(s, d->params[P[j]].name);
          first = 0;
        }
      g_string_append_c(s, ']');
    } else {
      g_string_append(s, "null");
    }
    g_string_append_printf(s, ", \"steps\": %ld, \"wall_time_s\": ", r.steps);
    json_num(s, r.wall_time_s);
    g_string_append_printf(s, ", \"peak_bytes\": %zu, \"checkpointed\": %s, \"threads\": %d", r.peak_bytes,
                           r.recomputed ? "true" : "false", r.threads ? r.threads : 1);
    if (st == LW_OK)
      json_sens_events(s, d, P, np, &r);
    if (st != LW_OK) {
      json_error(s, &r.error);
    }
    g_string_append(s, "}\n");
    json_print(s);
    g_string_free(s, TRUE);
  } else if (st == LW_OK) {
    printf("%s: %s = %.10g over %ld steps; %s gradient in %.4g s:\n", file, objective, r.value[0], r.steps,
           lw_sens_method_name(mth), r.wall_time_s);
    for (int j = 0; j < np; j++) {
      printf("  d %s / d %-12s = % .10g", objective, d->params[P[j]].name, r.gradient[j]);
      if (mth != LW_SENS_FD && !r.depends[j])
        printf("   (exactly 0: the parameter reaches nothing the simulation or the objective uses)");
      putchar('\n');
    }
    if (r.nevents > 0)
      printf("  %ld event(s)%s\n", r.nevents,
             r.event_dt ? "; their times and dt/dparam: --json or --events-csv FILE" : "; " EVENT_DT_WHY);
  }
  if (st != LW_OK)
    lw_cli_error("%s: %s; no gradient", file, r.error.msg);
  lw_sens_result_clear(&r);
out:
  g_free(P);
  lw_desc_free(d);
  return code;
}

typedef struct {
  FILE *out;
  int quiet;
  int json_lines; /* --progress: a JSON line on stderr instead */
  int total;      /* evaluations allowed, all starts */
} opt_print;

static int opt_progress(const lw_opt_progress *p, void *user)
{
  opt_print *o = user;
  if (o->json_lines) {
    char f[G_ASCII_DTOSTR_BUF_SIZE], best[G_ASCII_DTOSTR_BUF_SIZE], fr[G_ASCII_DTOSTR_BUF_SIZE];
    fprintf(stderr, "{\"evaluation\": %d, \"fraction\": %s, \"objective\": %s, \"best\": %s}\n", p->evaluation,
            g_ascii_formatd(fr, sizeof fr, "%.6g", MIN(1.0, (double)p->evaluation / MAX(o->total, 1))),
            p->failed || !isfinite(p->f) ? "null" : g_ascii_formatd(f, sizeof f, "%.12g", p->f),
            isfinite(p->best_f) ? g_ascii_formatd(best, sizeof best, "%.12g", p->best_f) : "null");
    fflush(stderr);
    return 0;
  }
  if (o->quiet)
    return 0;
  if (p->failed)
    fprintf(o->out, "%5d  start %d  evaluation failed: %s\n", p->evaluation, p->start + 1, p->message);
  else
    fprintf(o->out, "%5d  start %d  objective % .12g  best % .12g  violation %.3g  projected gradient %.3g\n",
            p->evaluation, p->start + 1, p->f, p->best_f, p->violation, p->pgnorm);
  fflush(o->out);
  return 0;
}

static int cmd_optimize(int argc, char **argv)
{
  const char *file = NULL, *problem = NULL, *out = NULL, *alg = NULL, *grad = NULL;
  int json = 0, quiet = 0, maxeval = 0, starts = 0, progress = 0;
  solver_args sa = SOLVER_ARGS_INIT;
  const cli_opt opts[] = {{"--json", OPT_FLAG, &json},
                         {"--progress", OPT_FLAG, &progress},
                         {"--quiet", OPT_FLAG, &quiet},
                         {"--problem", OPT_TEXT, &problem},
                         {"--out", OPT_TEXT, &out},
                         {"--algorithm", OPT_TEXT, &alg},
                         {"--gradient", OPT_TEXT, &grad},
                         {"--max-evaluations", OPT_COUNT, &maxeval},
                         {"--multistart", OPT_COUNT, &starts},
                         SOLVER_OPTS(sa),
                         {NULL, 0, NULL}};
  int rc = parse_args(argc, argv, opts, &file);
  if (rc)
    return rc;
  if (!file) {
    lw_cli_error("optimize needs a model file");
    usage(stderr);
    return EXIT_USAGE;
  }
  lw_opt_options oo = {.algorithm = -1, .gradient = -1, .max_evaluations = maxeval, .multistart = starts};
  if (alg && (oo.algorithm = lw_opt_algorithm_from_name(alg)) < 0) {
    lw_cli_error("unknown algorithm '%s' (expected lbfgs, mma, slsqp or auglag)", alg);
    return EXIT_USAGE;
  }
  if (grad && (oo.gradient = lw_sens_method_from_name(grad)) < LW_SENS_FORWARD) {
    lw_cli_error("unknown gradient '%s' (expected adjoint, forward or fd)", grad);
    return EXIT_USAGE;
  }
  lw_error err;
  lw_desc *d = lw_model_read_file(file, NULL, &err);
  if (!d) {
    lw_cli_error("%s", err.msg);
    return EXIT_MODEL;
  }
  apply_solver_args(d, &sa);
  int pi = problem ? lw_desc_problem_index(d, problem) : (d->nproblems > 0 ? 0 : -1);
  if (pi < 0) {
    GString *names = g_string_new("");
    for (int i = 0; i < d->nproblems; i++)
      g_string_append_printf(names, "%s%s", i ? ", " : "", d->problems[i].name);
    if (problem)
      lw_cli_error("%s has no problem '%s' (%s)", file, problem,
              d->nproblems ? names->str : "it defines none");
    else
      lw_cli_error("%s defines no optimization problem (\"problems\" in the model file)", file);
    g_string_free(names, TRUE);
    lw_desc_free(d);
    return EXIT_MODEL;
  }
  const lw_problem_desc *pb = &d->problems[pi];
  opt_print pp = {json ? stderr : stdout, quiet, progress,
                  (maxeval > 0 ? maxeval : pb->max_evaluations) * MAX(starts > 0 ? starts : pb->multistart, 1)};
  oo.progress = opt_progress;
  oo.user = &pp;
  if (!quiet)
    fprintf(pp.out, "%s: problem '%s': %s '%s' with %s, %s gradients\n", file, pb->name,
            pb->maximize ? "maximize" : "minimize", pb->objective,
            lw_opt_algorithm_name(oo.algorithm >= 0 ? oo.algorithm : (int)pb->algorithm),
            lw_sens_method_name(oo.gradient >= 0 ? oo.gradient : pb->gradient));
  lw_opt_result r;
  int st = lw_optimize(d, pi, &oo, &r);
  int code = 0;
  if (st == LW_ERR_MODEL) {
    lw_cli_error("%s: %s%s%s", file, r.error.path, r.error.path[0] ? ": " : "", r.error.msg);
    code = EXIT_MODEL;
    goto done;
  }
  if (st != LW_OK) {
    lw_cli_error("%s: %s", file, r.error.msg);
    code = EXIT_SOLVER;
  }
  if (st == LW_OK && out) {
    GError *ge = NULL;
    if (!lw_model_write_file(r.optimized, out, &ge)) {
      lw_cli_error("cannot write %s: %s", out, ge->message);
      g_error_free(ge);
      code = EXIT_USAGE;
    }
  }
  if (json) {
    GString *s = g_string_new("{\"model\": ");
    json_str(s, file);
    g_string_append(s, ", \"problem\": ");
    json_str(s, pb->name);
    g_string_append(s, ", \"status\": ");
    json_str(s, st == LW_OK ? "ok" : "failed");
    g_string_append(s, ", \"stop\": ");
    json_str(s, r.stop);
    if (st == LW_OK) {
      g_string_append(s, ", \"objective\": ");
      json_num(s, r.f);
      g_string_append(s, ", \"initial_objective\": ");
      json_num(s, r.f0);
      g_string_append(s, ", \"constraint_violation\": ");
      json_num(s, r.violation);
      g_string_append(s, ", \"projected_gradient\": ");
      json_num(s, r.pgnorm);
      g_string_append(s, ", \"initial_projected_gradient\": ");
      json_num(s, r.pgnorm0);
      g_string_append(s, ", \"design\": {");
      for (int j = 0; j < r.n; j++) {
        if (j)
          g_string_append(s, ", ");
        json_str(s, d->params[r.params[j]].name);
        g_string_append(s, ": ");
        json_num(s, r.x[j]);
      }
      g_string_append(s, "}");
    } else {
      g_string_append(s, ", \"error\": ");
      json_str(s, r.error.msg);
    }
    g_string_append_printf(s, ", \"iterations\": %d, \"evaluations\": %d, \"failed_evaluations\": %d, \"starts\": %d",
                           r.iterations, r.evaluations, r.failed_evaluations, r.starts);
    g_string_append(s, ", \"wall_time_s\": ");
    json_num(s, r.wall_time_s);
    if (out && st == LW_OK) {
      g_string_append(s, ", \"optimized_model\": ");
      json_str(s, out);
    }
    g_string_append(s, "}\n");
    json_print(s);
    g_string_free(s, TRUE);
  } else if (st == LW_OK) {
    printf("%s after %d evaluations (%d improving, %d failed) in %.3g s\n", r.stop, r.evaluations, r.iterations,
           r.failed_evaluations, r.wall_time_s);
    printf("objective %s: %.12g -> %.12g; constraint violation %.3g; projected gradient %.3g -> %.3g\n",
           pb->objective, r.f0, r.f, r.violation, r.pgnorm0, r.pgnorm);
    int show = r.n <= 20 ? r.n : 20;
    for (int j = 0; j < show; j++)
      printf("  %-14s %.12g -> %.12g\n", d->params[r.params[j]].name, r.x0[j], r.x[j]);
    if (show < r.n)
      printf("  ... and %d more\n", r.n - show);
    if (out)
      printf("optimized model written to %s\n", out);
  }
done:
  lw_opt_result_clear(&r);
  lw_desc_free(d);
  return code;
}

static int cmd_render(int argc, char **argv)
{
#ifdef LW_HAVE_RENDER
  lw_cli_render_args a = {.width = 640, .height = 480, .fps = 30, .speed = 1, .t_end = NAN};
  const cli_opt opts[] = {{"--out", OPT_TEXT, &a.out},        {"--width", OPT_COUNT, &a.width},
                         {"--height", OPT_COUNT, &a.height}, {"--fps", OPT_POSITIVE, &a.fps},
                         {"--speed", OPT_POSITIVE, &a.speed}, {"--t-end", OPT_POSITIVE, &a.t_end},
                         {"--dark", OPT_FLAG, &a.dark},       {"--progress", OPT_FLAG, &a.progress},
                         {NULL, 0, NULL}};
  int rc = parse_args(argc, argv, opts, &a.file);
  if (rc)
    return rc;
  if (!a.file || !a.out) {
    lw_cli_error("render needs a model file and --out FILE");
    usage(stderr);
    return EXIT_USAGE;
  }
  return lw_cli_render(&a);
#else
  (void)argc, (void)argv;
  lw_cli_error("this build has no renderer (built without the application's libraries)");
  return EXIT_USAGE;
#endif
}

static int run_command(const char *cmd, int argc, char **argv)
{
  if (!strcmp(cmd, "convert"))
    return lw_cli_convert(argc, argv);
  if (!strcmp(cmd, "simulate"))
    return cmd_simulate(argc, argv, 0);
  if (!strcmp(cmd, "demo"))
    return cmd_simulate(argc, argv, 1);
  if (!strcmp(cmd, "check"))
    return cmd_check(argc, argv);
  if (!strcmp(cmd, "generate-chain"))
    return cmd_chain(argc, argv);
  if (!strcmp(cmd, "sensitivity"))
    return cmd_sensitivity(argc, argv);
  if (!strcmp(cmd, "optimize"))
    return cmd_optimize(argc, argv);
  if (!strcmp(cmd, "render"))
    return cmd_render(argc, argv);
  lw_cli_error("unknown command '%s'", cmd);
  usage(stderr);
  return EXIT_USAGE;
}

/* --json and a command that failed without writing its result: the error
 * as JSON on stdout */
static void json_failure(const char *cmd, int code)
{
  GString *s = g_string_new("{\"command\": ");
  json_str(s, cmd);
  g_string_append_printf(s, ", \"status\": \"%s\", \"exit_code\": %d, \"error\": {\"message\": ",
                         code == EXIT_USAGE ? "usage_error" : code == EXIT_SOLVER ? "solver_failure" : "model_error",
                         code);
  json_str(s, lw_cli_last_error() ? lw_cli_last_error() : "failed");
  g_string_append(s, "}}\n");
  json_print(s);
  g_string_free(s, TRUE);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("linkwright-cli %s\n", LW_VERSION);
    return 0;
  }
  /* COMMAND --help: the usage on stdout, exit 0 */
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  /* --json is every command's: those without a JSON result of their own
   * take it out of their arguments and give only their errors as JSON */
  static const char *const json_results[] = {"simulate", "demo", "sensitivity", "optimize"};
  gboolean json = FALSE, own = FALSE;
  for (guint k = 0; k < G_N_ELEMENTS(json_results); k++)
    own |= !strcmp(cmd, json_results[k]);
  int n = 0;
  char **args = g_new0(char *, argc);
  for (int i = 2; i < argc; i++) {
    gboolean flag = !strcmp(argv[i], "--json");
    json |= flag;
    if (!flag || own)
      args[n++] = argv[i];
  }
  int code = run_command(cmd, n, args);
  g_free(args);
  if (json && code != 0 && !json_written)
    json_failure(cmd, code);
  return code;
}
