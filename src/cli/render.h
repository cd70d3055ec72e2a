/* render.h: the render command of linkwright-cli (render.c). */
#pragma once

typedef struct {
  const char *file, *out;
  int width, height;
  double fps, speed, t_end; /* t_end NAN: the model's */
  int dark;
  int progress; /* JSON lines on stderr */
} lw_cli_render_args;

/* simulates the model and writes its animation; returns the exit code
 * (0 ok, 1 usage, 2 model error, 3 solver failure) */
int lw_cli_render(const lw_cli_render_args *a);
