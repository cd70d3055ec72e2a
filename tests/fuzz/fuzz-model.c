/* fuzz-model.c: libFuzzer target for what a model file goes through: the
 * reader (JSON, fields, parameters), compilation, initialization
 * (assembly, rank, velocities, accelerations) and a few steps.  Any input
 * must end in a model or a clear error, without a crash, a leak, undefined
 * behaviour or a hang.  Built by `meson setup -Dfuzz=true` with clang
 * (linkwright.sh fuzz); the seed corpus is tests/fuzz/corpus. */
#include "linkwright.h"
#include "lw_io.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  lw_error err;
  lw_desc *d = lw_model_read_data((const char *)data, (gssize)size, "fuzz.json", NULL, &err);
  if (!d)
    return 0;
  /* a model of more than a few hundred coordinates is slow, not wrong */
  if (d->nbodies > 64) {
    lw_desc_free(d);
    return 0;
  }
  lw_model *m = lw_compile(d, &err);
  lw_desc_free(d);
  if (!m)
    return 0;
  lw_data *s = lw_data_new(m);
  if (s && lw_initialize(m, s, &err) == LW_OK) {
    double *out = g_new0(double, (gsize)lw_model_output_columns(m) + 1);
    for (int k = 0; k < 5; k++) {
      lw_step_info info;
      if (lw_step(m, s, &info, &err) != LW_OK)
        break;
      lw_outputs(m, s, out);
    }
    g_free(out);
  }
  lw_data_free(s);
  lw_model_free(m);
  return 0;
}
