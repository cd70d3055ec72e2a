/* render.c: `linkwright-cli render MODEL --out FILE`: the model simulated
 * and its 3-D animation drawn offscreen (no display) into a WebM video, an
 * animated GIF or PNG files (lw-anim-export.h).
 *
 * The run keeps one state per video frame: frame k shows the state of the
 * first step at or after t = k * speed / fps. */
#include "render.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>

#include "cli-error.h"
#include "lw-anim-export.h"
#include "lw_io.h"

enum { EXIT_USAGE = 1, EXIT_MODEL = 2, EXIT_SOLVER = 3 };

typedef struct {
  GArray *t, *q; /* double each */
} recording;

static void record(recording *rec, const lw_model *m, const lw_data *d)
{
  double t = lw_data_time(d);
  g_array_append_val(rec->t, t);
  g_array_append_vals(rec->q, lw_data_q(d), (guint)lw_model_nq(m));
}

/* steps the model to t_end, recording the states the video shows; the
 * states up to a failure are kept */
static int simulate_frames(const lw_model *m, double t_end, double dt, recording *rec, lw_error *err)
{
  lw_data *d = lw_data_new(m);
  int st = lw_initialize(m, d, err);
  if (st) {
    lw_data_free(d);
    return st;
  }
  double h = lw_model_opt(m)->step;
  long steps = (long)floor(t_end / h + 0.5);
  int count = (int)floor(t_end / dt * (1 + 1e-12) + 1e-9) + 1;
  int k = 1;
  record(rec, m, d);
  for (long i = 0; i < steps && k < count; i++) {
    st = lw_step(m, d, NULL, err);
    if (st)
      break;
    double t = lw_data_time(d);
    while (k < count && k * dt <= t + 1e-9 * fmax(t, dt)) {
      record(rec, m, d);
      k++;
    }
  }
  lw_data_free(d);
  return st;
}

/* --progress: {"t": the simulated time drawn, "fraction": frames done} */
static int say_progress(double fraction, void *user)
{
  const double *t_last = user;
  char t[G_ASCII_DTOSTR_BUF_SIZE], f[G_ASCII_DTOSTR_BUF_SIZE];
  fprintf(stderr, "{\"t\": %s, \"fraction\": %s}\n", g_ascii_formatd(t, sizeof t, "%.9g", fraction * *t_last),
          g_ascii_formatd(f, sizeof f, "%.6g", fraction));
  fflush(stderr);
  return 0;
}

int lw_cli_render(const lw_cli_render_args *a)
{
  lw_anim_options o = {.width = a->width, .height = a->height, .fps = a->fps, .dark = a->dark};
  if (!lw_anim_format_from_path(a->out, &o.format)) {
    lw_cli_error("render: %s: the output is a .webm video, a .gif or .png files", a->out);
    return EXIT_USAGE;
  }
  lw_error err;
  lw_model *m = lw_model_open(a->file, &err);
  if (!m) {
    lw_cli_error("%s", err.msg);
    return EXIT_MODEL;
  }
  double t_end = isnan(a->t_end) ? lw_model_opt(m)->t_end : a->t_end;
  recording rec = {g_array_new(FALSE, FALSE, sizeof(double)), g_array_new(FALSE, FALSE, sizeof(double))};
  int st = simulate_frames(m, t_end, a->speed / a->fps, &rec, &err);
  int code = 0;
  if (st) {
    lw_cli_error("%s: %s%s", a->file, err.msg,
            rec.t->len > 1 ? "; the animation up to that time is written" : "");
    code = st == LW_ERR_SOLVER ? EXIT_SOLVER : EXIT_MODEL;
  }
  if (rec.t->len > 1 || (rec.t->len == 1 && !st)) {
    lw_anim_frames fr = {m, (int)rec.t->len, (const double *)rec.t->data, (const double *)rec.q->data};
    GError *e = NULL;
    double t_last = fr.t[fr.n - 1];
    if (!lw_anim_export(&fr, &o, a->out, a->progress ? say_progress : NULL, &t_last, &e)) {
      lw_cli_error("render: %s", e->message);
      code = e->domain == LW_ANIM_ERROR && e->code == LW_ANIM_ERROR_INVALID ? EXIT_USAGE : EXIT_MODEL;
      g_error_free(e);
    } else {
      printf("%s: %u frames of %d x %d at %g frames/s (%g s of simulated time a second) written to %s\n",
              a->file, rec.t->len, o.width, o.height, o.fps, a->speed, a->out);
    }
  }
  g_array_unref(rec.t);
  g_array_unref(rec.q);
  lw_model_free(m);
  return code;
}
