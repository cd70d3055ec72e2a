/* lw-gif-writer.c: see lw-gif-writer.h.
 *
 * The image data is LZW-coded as GIF89a specifies: codes of 9 to 12 bits
 * (minimum code size 8), the dictionary in an open-addressed hash table of
 * (prefix code, byte) keys, a clear code when its 4096 codes are used up.
 * The code width grows when the next code to assign passes 2^width, one
 * code after the decoder's own table reaches it (the decoder adds each
 * entry one code later than the encoder). */
#include "lw-gif-writer.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#define HASH_SIZE 5003 /* a prime above 4096 */
#define MAX_CODES 4096
#define KEY15(r, g, b) ((((r) >> 3) << 10) | (((g) >> 3) << 5) | ((b) >> 3))

struct lw_gif_writer {
  FILE *f;
  char *path;
  int w, h, frames;
  double fps;
  guint8 palette[256][3];
  int ncolors;
  gint16 *nearest; /* 32768 15-bit colours to palette index, -1: not yet */
  guint8 *indices; /* w x h */
  /* the LZW coder */
  gint32 hkey[HASH_SIZE];
  gint16 hcode[HASH_SIZE];
  guint32 bits;
  int nbits;
  guint8 block[256];
  int nblock;
};

static void put16(FILE *f, int v)
{
  fputc(v & 0xff, f);
  fputc((v >> 8) & 0xff, f);
}

lw_gif_writer *lw_gif_writer_new(const char *path, int w, int h, double fps, GError **error)
{
  g_return_val_if_fail(w > 0 && h > 0 && w <= 65535 && h <= 65535 && fps > 0, NULL);
  FILE *f = g_fopen(path, "wb");
  if (!f) {
    int e = errno;
    g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "cannot write %s: %s", path, g_strerror(e));
    return NULL;
  }
  lw_gif_writer *g = g_new0(lw_gif_writer, 1);
  g->f = f;
  g->path = g_strdup(path);
  g->w = w, g->h = h, g->fps = fps;
  g->nearest = g_new(gint16, 32768);
  memset(g->nearest, 0xff, 32768 * sizeof(gint16));
  g->indices = g_new(guint8, (gsize)w * h);
  return g;
}

/* ---- the palette ---------------------------------------------------------- */
typedef struct {
  guint32 count;
  guint16 key;
} bin;

static int bin_by_count(const void *a, const void *b)
{
  const bin *x = a, *y = b;
  return x->count < y->count ? 1 : x->count > y->count ? -1 : (int)x->key - (int)y->key;
}

/* the 256 most frequent colours of the first frame, each the centre of its
 * cell of the 15-bit grid */
static void make_palette(lw_gif_writer *g, const guint8 *px, int stride)
{
  bin *bins = g_new0(bin, 32768);
  for (int k = 0; k < 32768; k++)
    bins[k].key = (guint16)k;
  for (int y = 0; y < g->h; y++)
    for (int x = 0; x < g->w; x++) {
      const guint8 *p = px + (gsize)y * stride + 4 * x; /* B, G, R, A in memory */
      bins[KEY15(p[2], p[1], p[0])].count++;
    }
  qsort(bins, 32768, sizeof(bin), bin_by_count);
  g->ncolors = 0;
  for (int k = 0; k < 256 && bins[k].count > 0; k++, g->ncolors++) {
    int key = bins[k].key;
    g->palette[k][0] = (guint8)(((key >> 10) & 31) << 3 | 4);
    g->palette[k][1] = (guint8)(((key >> 5) & 31) << 3 | 4);
    g->palette[k][2] = (guint8)((key & 31) << 3 | 4);
  }
  g_free(bins);
}

static int nearest_color(lw_gif_writer *g, int key)
{
  if (g->nearest[key] >= 0)
    return g->nearest[key];
  int r = ((key >> 10) & 31) << 3 | 4, gr = ((key >> 5) & 31) << 3 | 4, b = (key & 31) << 3 | 4;
  int best = 0, best_d = G_MAXINT;
  for (int k = 0; k < g->ncolors; k++) {
    int dr = r - g->palette[k][0], dg = gr - g->palette[k][1], db = b - g->palette[k][2];
    int d = 3 * dr * dr + 4 * dg * dg + 2 * db * db; /* green weighs most to the eye */
    if (d < best_d)
      best_d = d, best = k;
  }
  g->nearest[key] = (gint16)best;
  return best;
}

static void write_header(lw_gif_writer *g)
{
  fputs("GIF89a", g->f);
  put16(g->f, g->w);
  put16(g->f, g->h);
  fputc(0xf7, g->f); /* a global colour table of 256 entries, 8 bits a primary */
  fputc(0, g->f);    /* background colour */
  fputc(0, g->f);    /* square pixels */
  for (int k = 0; k < 256; k++)
    fwrite(g->palette[k], 1, 3, g->f);
  /* loop forever (the NETSCAPE2.0 application extension) */
  static const guint8 loop[] = {0x21, 0xff, 0x0b, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0',
                                0x03, 0x01, 0x00, 0x00, 0x00};
  fwrite(loop, 1, sizeof loop, g->f);
}

/* ---- LZW ------------------------------------------------------------------ */
static void flush_block(lw_gif_writer *g)
{
  if (g->nblock == 0)
    return;
  fputc(g->nblock, g->f);
  fwrite(g->block, 1, (size_t)g->nblock, g->f);
  g->nblock = 0;
}

static void put_code(lw_gif_writer *g, int code, int width)
{
  g->bits |= (guint32)code << g->nbits;
  g->nbits += width;
  while (g->nbits >= 8) {
    g->block[g->nblock++] = (guint8)(g->bits & 0xff);
    g->bits >>= 8;
    g->nbits -= 8;
    if (g->nblock == 255)
      flush_block(g);
  }
}

static void hash_clear(lw_gif_writer *g)
{
  memset(g->hkey, 0xff, sizeof g->hkey);
}

/* the slot of key (prefix << 8 | byte): its own or the empty one it goes in */
static int hash_slot(const lw_gif_writer *g, gint32 key)
{
  int i = (int)((guint32)key % HASH_SIZE);
  while (g->hkey[i] >= 0 && g->hkey[i] != key)
    i = i + 1 == HASH_SIZE ? 0 : i + 1;
  return i;
}

static void lzw_encode(lw_gif_writer *g, const guint8 *idx, gsize n)
{
  const int clear = 256, eoi = 257;
  int width = 9, next = 258;
  hash_clear(g);
  g->bits = 0, g->nbits = 0, g->nblock = 0;
  fputc(8, g->f); /* minimum code size */
  put_code(g, clear, width);
  int prefix = idx[0];
  for (gsize k = 1; k < n; k++) {
    int c = idx[k];
    gint32 key = (gint32)prefix << 8 | c;
    int s = hash_slot(g, key);
    if (g->hkey[s] == key) {
      prefix = g->hcode[s];
      continue;
    }
    put_code(g, prefix, width);
    if (next < MAX_CODES) {
      g->hkey[s] = key;
      g->hcode[s] = (gint16)next++;
      if (next > (1 << width) && width < 12)
        width++;
    } else {
      put_code(g, clear, width);
      hash_clear(g);
      width = 9, next = 258;
    }
    prefix = c;
  }
  put_code(g, prefix, width);
  put_code(g, eoi, width);
  if (g->nbits > 0)
    put_code(g, 0, 8 - g->nbits);
  flush_block(g);
  fputc(0, g->f); /* the end of the image data */
}

gboolean lw_gif_writer_add(lw_gif_writer *g, const guint8 *pixels, int stride, GError **error)
{
  if (g->frames == 0) {
    make_palette(g, pixels, stride);
    write_header(g);
  }
  for (int y = 0; y < g->h; y++)
    for (int x = 0; x < g->w; x++) {
      const guint8 *p = pixels + (gsize)y * stride + 4 * x;
      g->indices[(gsize)y * g->w + x] = (guint8)nearest_color(g, KEY15(p[2], p[1], p[0]));
    }
  /* the delay in hundredths of a second, rounded so that the frames add up
   * to the run's length */
  int delay = (int)(100.0 * (g->frames + 1) / g->fps + 0.5) - (int)(100.0 * g->frames / g->fps + 0.5);
  const guint8 gce[] = {0x21, 0xf9, 0x04, 0x00, (guint8)(delay & 0xff), (guint8)(delay >> 8), 0x00, 0x00};
  fwrite(gce, 1, sizeof gce, g->f);
  fputc(0x2c, g->f);
  put16(g->f, 0);
  put16(g->f, 0);
  put16(g->f, g->w);
  put16(g->f, g->h);
  fputc(0, g->f); /* no local colour table, not interlaced */
  lzw_encode(g, g->indices, (gsize)g->w * g->h);
  g->frames++;
  if (ferror(g->f)) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write %s", g->path);
    return FALSE;
  }
  return TRUE;
}

static void writer_free(lw_gif_writer *g)
{
  g_free(g->path);
  g_free(g->nearest);
  g_free(g->indices);
  g_free(g);
}

gboolean lw_gif_writer_finish(lw_gif_writer *g, GError **error)
{
  if (g->frames == 0) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "no frames for %s", g->path);
    lw_gif_writer_abort(g);
    return FALSE;
  }
  fputc(0x3b, g->f);
  gboolean ok = !ferror(g->f);
  ok = fclose(g->f) == 0 && ok;
  if (!ok) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write %s", g->path);
    g_unlink(g->path);
  }
  writer_free(g);
  return ok;
}

void lw_gif_writer_abort(lw_gif_writer *g)
{
  if (!g)
    return;
  fclose(g->f);
  g_unlink(g->path);
  writer_free(g);
}
