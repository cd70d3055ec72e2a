/* lw-application.h: the Linkwright application (one window per model). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define LW_TYPE_APPLICATION (lw_application_get_type())
G_DECLARE_FINAL_TYPE(LwApplication, lw_application, LW, APPLICATION, AdwApplication)

LwApplication *lw_application_new(void);

/* Automation from the command line (smoke tests, benchmarks): run the model
 * at once, save a screenshot of the window when the run ends, quit. */
typedef struct {
  gboolean run;             /* --run */
  char *screenshot;         /* --screenshot FILE */
  gboolean quit_after_run;  /* --quit-after-run */
  double bench_fps;         /* --bench-fps SECONDS: print frame statistics */
  gboolean flat_out;        /* --flat-out: do not pace to real time */
} LwAutomation;

const LwAutomation *lw_application_get_automation(LwApplication *self);

G_END_DECLS
