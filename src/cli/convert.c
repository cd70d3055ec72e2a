/* convert.c: `linkwright-cli convert IN --out MODEL.json`: a URDF robot
 * description or a MuJoCo model (or a Linkwright model) written as a
 * Linkwright model file, with what was not imported said on stderr. */
#include "convert.h"

#include <stdio.h>
#include <string.h>

#include "cli-error.h"
#include "lw_io.h"

static const char *format_name(lw_model_format f)
{
  switch (f) {
  case LW_FORMAT_URDF:
    return "URDF";
  case LW_FORMAT_MJCF:
    return "MJCF";
  case LW_FORMAT_JSON:
    return "Linkwright JSON";
  default:
    return "unknown";
  }
}

int lw_cli_convert(int argc, char **argv)
{
  const char *in = NULL, *out = NULL;
  int quiet = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--quiet"))
      quiet = 1;
    else if (argv[i][0] == '-' && argv[i][1]) {
      lw_cli_error("convert: unknown or incomplete option '%s'", argv[i]);
      return 1;
    } else if (!in)
      in = argv[i];
    else {
      lw_cli_error("convert: unexpected argument '%s'", argv[i]);
      return 1;
    }
  }
  if (!in || !out) {
    fprintf(stderr, "usage: linkwright-cli convert IN.urdf|IN.xml --out MODEL.json [--quiet]\n");
    return 1;
  }
  lw_model_format f;
  char *notes = NULL;
  lw_error err;
  lw_desc *d = lw_model_import_file(in, &f, &notes, NULL, &err);
  if (!d) {
    lw_cli_error("%s", err.msg);
    return 2;
  }
  /* a model that does not compile is still written (it can be mended in
   * the editor), but said */
  lw_check_result chk;
  lw_check(d, &chk);
  GError *error = NULL;
  int code = 0;
  if (!lw_model_write_file(d, out, &error)) {
    lw_cli_error("cannot write %s: %s", out, error->message);
    g_error_free(error);
    code = 2;
  } else if (!quiet) {
    fprintf(stderr, "%s (%s): %d bodies, %d joints, %d forces -> %s\n", in, format_name(f), d->nbodies, d->njoints,
            d->nforces, out);
    if (chk.status != LW_OK)
      fprintf(stderr, "warning: the model does not run as it is: %s\n", chk.err.msg);
    else
      fprintf(stderr, "assembled: %d degrees of freedom\n", chk.dof);
    if (notes) {
      fputs("import notes:\n", stderr);
      char **lines = g_strsplit(notes, "\n", -1);
      for (char **l = lines; *l; l++)
        fprintf(stderr, "  %s\n", *l);
      g_strfreev(lines);
    }
  }
  g_free(notes);
  lw_check_result_clear(&chk);
  lw_desc_free(d);
  return code;
}
