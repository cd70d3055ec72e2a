/* lw_import.c: a model from any file Linkwright reads: its own JSON, a
 * URDF robot description or a MuJoCo model, told apart by the file's first
 * element rather than its name (URDF and MJCF files both end in .xml). */
#include "lw_io.h"

#include <stdio.h>
#include <string.h>

lw_model_format lw_model_sniff(const char *filename)
{
  FILE *f = fopen(filename, "rb");
  if (!f)
    return LW_FORMAT_UNKNOWN;
  char buf[4097];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  /* past a byte-order mark, white space, the XML declaration, comments and
   * a document type: the first element */
  const char *p = buf;
  if (!strncmp(p, "\xef\xbb\xbf", 3))
    p += 3;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
      p++;
    if (*p == '{')
      return LW_FORMAT_JSON;
    if (*p != '<')
      return LW_FORMAT_UNKNOWN;
    if (!strncmp(p, "<?", 2) || !strncmp(p, "<!--", 4) || !strncmp(p, "<!", 2)) {
      int comment = !strncmp(p, "<!--", 4);
      const char *end = comment ? strstr(p, "-->") : strchr(p, '>');
      if (!end)
        return LW_FORMAT_UNKNOWN;
      p = end + (comment ? 3 : 1);
      continue;
    }
    if (!strncmp(p, "<robot", 6))
      return LW_FORMAT_URDF;
    if (!strncmp(p, "<mujoco", 7))
      return LW_FORMAT_MJCF;
    return LW_FORMAT_UNKNOWN;
  }
}

lw_desc *lw_model_import_file(const char *filename, lw_model_format *format, char **notes, LwSourceMap **map,
                              lw_error *err)
{
  lw_model_format f = lw_model_sniff(filename);
  if (format)
    *format = f;
  if (notes)
    *notes = NULL;
  if (map)
    *map = NULL;
  switch (f) {
  case LW_FORMAT_URDF:
    return lw_urdf_read_file(filename, notes, err);
  case LW_FORMAT_MJCF:
    return lw_mjcf_read_file(filename, notes, err);
  default:
    /* JSON, or what the JSON reader explains (a missing file, binary data) */
    return lw_model_read_file(filename, map, err);
  }
}
