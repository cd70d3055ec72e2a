/* The animation export (src/render/lw-anim-export.c, src/cli/render.c,
 * src/app/lw-anim-dialog.c): videos decoded back frame by frame, GIFs read
 * by gdk-pixbuf and walked block by block, PNG sequences counted, a
 * cancelled export that leaves nothing, and the application's dialog
 * writing while the main loop runs.  The dialog's test needs a display
 * (the test command starts Xvfb); the others draw offscreen. */
#include "lw-test.h"
#include "lw-app-test.h"

#include <adwaita.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lw-anim-dialog.h"
#include "lw-anim-export.h"
#include "lw-application.h"
#include "lw-window.h"

static char *tmp_dir;
static gboolean have_display;

static char *tmp_path(const char *name)
{
  return g_build_filename(tmp_dir, name, NULL);
}

/* ---- the frames of a run -------------------------------------------------------- */
typedef struct {
  lw_model *m;
  GArray *t, *q;
} run;

/* the five-bar stepped to t_end, one state per step */
static run run_five_bar(double t_end)
{
  run r = {lwt_open("five-bar.json"), g_array_new(FALSE, FALSE, sizeof(double)),
           g_array_new(FALSE, FALSE, sizeof(double))};
  lw_data *d = lw_data_new(r.m);
  lw_error err;
  g_assert_cmpint(lw_initialize(r.m, d, &err), ==, 0);
  int nq = lw_model_nq(r.m);
  for (;;) {
    double t = lw_data_time(d);
    g_array_append_val(r.t, t);
    g_array_append_vals(r.q, lw_data_q(d), (guint)nq);
    if (t >= t_end - 1e-12)
      break;
    g_assert_cmpint(lw_step(r.m, d, NULL, &err), ==, 0);
  }
  lw_data_free(d);
  return r;
}

static void run_clear(run *r)
{
  lw_model_free(r->m);
  g_array_unref(r->t);
  g_array_unref(r->q);
}

/* the frames a video of fps at speed shows, picked from the run */
static lw_anim_frames frames_of(run *r, double fps, double speed, double **t, double **q)
{
  int *pick = NULL;
  int n = lw_anim_pick_frames((const double *)r->t->data, (int)r->t->len, fps, speed, &pick);
  int nq = lw_model_nq(r->m);
  *t = g_new(double, n);
  *q = g_new(double, (gsize)n * nq);
  for (int k = 0; k < n; k++) {
    (*t)[k] = g_array_index(r->t, double, pick[k]);
    memcpy(*q + (gsize)k * nq, &g_array_index(r->q, double, (gsize)pick[k] * nq), sizeof(double) * nq);
  }
  g_free(pick);
  return (lw_anim_frames){r->m, n, *t, *q};
}

/* ---- 1. which recorded state each video frame shows ------------------------------ */
static void test_pick_frames(void)
{
  /* recorded every 0.01 s to 1 s; 10 frames/s at half speed: a frame every
   * 0.05 s of the run, 21 of them, the last at 1 s */
  double t[101];
  for (int i = 0; i <= 100; i++)
    t[i] = 0.01 * i;
  int *pick = NULL;
  int n = lw_anim_pick_frames(t, 101, 10, 0.5, &pick);
  g_assert_cmpint(n, ==, 21);
  for (int k = 0; k < n; k++)
    g_assert_cmpint(pick[k], ==, 5 * k);
  g_free(pick);
  /* an uneven record: the last state at or before each frame's time */
  const double u[] = {0, 0.3, 0.35, 0.9, 1.0};
  n = lw_anim_pick_frames(u, 5, 4, 1, &pick); /* frames at 0, 0.25, 0.5, 0.75, 1 */
  g_assert_cmpint(n, ==, 5);
  const int want[] = {0, 0, 2, 2, 4};
  for (int k = 0; k < n; k++)
    g_assert_cmpint(pick[k], ==, want[k]);
  g_free(pick);
  lw_anim_format f;
  g_assert_true(lw_anim_format_from_path("a/Run.WEBM", &f) && f == LW_ANIM_WEBM);
  g_assert_true(lw_anim_format_from_path("run.gif", &f) && f == LW_ANIM_GIF);
  g_assert_true(lw_anim_format_from_path("f.png", &f) && f == LW_ANIM_PNG);
  g_assert_false(lw_anim_format_from_path("run.mp4", &f));
  g_assert_false(lw_anim_format_from_path(".webm", &f));
  g_autofree char *p5 = lw_anim_png_frame_path("dir/f.png", 5);
  g_assert_cmpstr(p5, ==, "dir/f-00005.png");
}

/* ---- 2. the command line: a WebM decoded back ------------------------------------ */
/* decodes a WebM: the number of frames, their size; frame `keep` as a PNG */
static int decode_webm(const char *path, int *w, int *h, int keep, const char *png)
{
  g_autofree char *desc = g_strdup_printf("filesrc name=src ! matroskademux ! vp8dec ! videoconvert ! "
                                          "video/x-raw,format=BGRx ! appsink name=sink sync=false");
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch(desc, &error);
  g_assert_no_error(error);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipe), "src"), *sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  g_object_set(src, "location", path, NULL);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  int n = 0;
  GstSample *sample;
  while ((sample = gst_app_sink_pull_sample(GST_APP_SINK(sink)))) {
    GstStructure *s = gst_caps_get_structure(gst_sample_get_caps(sample), 0);
    gst_structure_get_int(s, "width", w);
    gst_structure_get_int(s, "height", h);
    if (n == keep && png) {
      GstMapInfo map;
      GstBuffer *buf = gst_sample_get_buffer(sample);
      gst_buffer_map(buf, &map, GST_MAP_READ);
      cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, *w, *h);
      int stride = cairo_image_surface_get_stride(img);
      cairo_surface_flush(img);
      for (int y = 0; y < *h; y++)
        memcpy(cairo_image_surface_get_data(img) + (gsize)stride * y, map.data + (gsize)4 * *w * y, 4 * (gsize)*w);
      cairo_surface_mark_dirty(img);
      g_assert_cmpint(cairo_surface_write_to_png(img, png), ==, CAIRO_STATUS_SUCCESS);
      cairo_surface_destroy(img);
      gst_buffer_unmap(buf, &map);
    }
    gst_sample_unref(sample);
    n++;
  }
  GstBus *bus = gst_element_get_bus(pipe);
  GstMessage *err = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  g_assert_null(err);
  gst_object_unref(bus);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  return n;
}

static void test_cli_webm(void)
{
  g_autofree char *out = tmp_path("five-bar.webm");
  g_autofree char *model = g_build_filename(LW_MODELS_DIR, "five-bar.json", NULL);
  /* 1.5 s of the run at 20 frames/s and half speed: 61 frames (0 .. 3 s of video) */
  const char *argv[] = {LW_CLI, "render", model, "--out", out, "--width", "320", "--height", "240",
                        "--fps", "20", "--speed", "0.5", "--t-end", "1.5", NULL};
  g_autofree char *sout = NULL, *serr = NULL;
  int status;
  GError *error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &sout, &serr, &status, &error));
  g_assert_no_error(error);
  g_test_message("%s%s", sout, serr);
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_assert_nonnull(strstr(sout, "61 frames of 320 x 240"));
  int w = 0, h = 0;
  g_mkdir_with_parents(LW_ANIM_SHOT_DIR, 0755);
  g_autofree char *png = g_build_filename(LW_ANIM_SHOT_DIR, "webm-frame-30.png", NULL);
  g_assert_cmpint(decode_webm(out, &w, &h, 30, png), ==, 61);
  g_assert_cmpint(w, ==, 320);
  g_assert_cmpint(h, ==, 240);
  g_test_message("frame 30 of the video: %s", png);
}

/* a size the encoder cannot take, a name of no known format: usage errors, nothing written */
static void test_cli_bad(void)
{
  g_autofree char *model = g_build_filename(LW_MODELS_DIR, "five-bar.json", NULL);
  g_autofree char *odd = tmp_path("odd.webm"), *mp4 = tmp_path("run.mp4");
  const char *a1[] = {LW_CLI, "render", model, "--out", odd, "--width", "321", "--t-end", "0.1", NULL};
  const char *a2[] = {LW_CLI, "render", model, "--out", mp4, NULL};
  const char *const *args[] = {a1, a2};
  const char *said[] = {"even width and height", "a .webm video, a .gif or .png files"};
  for (int i = 0; i < 2; i++) {
    g_autofree char *serr = NULL;
    int status;
    g_assert_true(g_spawn_sync(NULL, (char **)args[i], NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &serr,
                               &status, NULL));
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_nonnull(strstr(serr, said[i]));
  }
  g_assert_false(g_file_test(odd, G_FILE_TEST_EXISTS));
  g_assert_false(g_file_test(mp4, G_FILE_TEST_EXISTS));
}

/* ---- 3. a GIF and a PNG sequence of the same frames ------------------------------ */
/* the number of images in a GIF, walking its blocks; its screen size */
static int gif_images(const char *path, int *w, int *h)
{
  g_autofree guint8 *b = NULL;
  gsize n;
  g_assert_true(g_file_get_contents(path, (char **)&b, &n, NULL));
  g_assert_cmpmem(b, 6, "GIF89a", 6);
  *w = b[6] | b[7] << 8, *h = b[8] | b[9] << 8;
  gsize i = 13 + ((b[10] & 0x80) ? 3u << ((b[10] & 7) + 1) : 0);
  int images = 0;
  while (i < n && b[i] != 0x3b) {
    if (b[i] == 0x21) { /* an extension: its label, then sub-blocks */
      i += 2;
    } else {
      g_assert_cmpint(b[i], ==, 0x2c);
      images++;
      i += 10 + ((b[i + 9] & 0x80) ? 3u << ((b[i + 9] & 7) + 1) : 0) + 1; /* descriptor, LZW size */
    }
    while (i < n && b[i] != 0)
      i += b[i] + 1u;
    i++;
  }
  g_assert_cmpuint(i, <, n); /* the trailer was found */
  return images;
}

/* the mean difference of two pictures' channels, 0..255 */
static double mean_difference(GdkPixbuf *a, GdkPixbuf *b)
{
  int w = gdk_pixbuf_get_width(a), h = gdk_pixbuf_get_height(a);
  g_assert_cmpint(gdk_pixbuf_get_width(b), ==, w);
  g_assert_cmpint(gdk_pixbuf_get_height(b), ==, h);
  int na = gdk_pixbuf_get_n_channels(a), nb = gdk_pixbuf_get_n_channels(b);
  const guint8 *pa = gdk_pixbuf_read_pixels(a), *pb = gdk_pixbuf_read_pixels(b);
  double sum = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++)
        sum += abs(pa[y * gdk_pixbuf_get_rowstride(a) + x * na + c] - pb[y * gdk_pixbuf_get_rowstride(b) + x * nb + c]);
  return sum / (3.0 * w * h);
}

static void test_gif_and_png(void)
{
  run r = run_five_bar(1.0);
  double *t, *q;
  lw_anim_frames fr = frames_of(&r, 10, 1, &t, &q);
  g_assert_cmpint(fr.n, ==, 11);
  lw_anim_options o = {.width = 200, .height = 150, .fps = 10, .format = LW_ANIM_GIF};
  g_autofree char *gif = tmp_path("five-bar.gif"), *png = tmp_path("five-bar.png");
  GError *error = NULL;
  g_assert_true(lw_anim_export(&fr, &o, gif, NULL, NULL, &error));
  g_assert_no_error(error);
  o.format = LW_ANIM_PNG;
  g_assert_true(lw_anim_export(&fr, &o, png, NULL, NULL, &error));
  g_assert_no_error(error);
  int w, h;
  g_assert_cmpint(gif_images(gif, &w, &h), ==, 11);
  g_assert_cmpint(w, ==, 200);
  g_assert_cmpint(h, ==, 150);
  for (int k = 0; k <= 11; k++) {
    g_autofree char *file = lw_anim_png_frame_path(png, k);
    g_assert_cmpint(g_file_test(file, G_FILE_TEST_EXISTS), ==, k < 11);
  }
  /* the GIF's first image, decoded by gdk-pixbuf, is the first PNG to within
   * the palette's rounding; the last PNG is another picture (it moved) */
  g_autofree char *first = lw_anim_png_frame_path(png, 0), *last = lw_anim_png_frame_path(png, 10);
  g_autoptr(GdkPixbuf) g0 = gdk_pixbuf_new_from_file(gif, &error);
  g_assert_no_error(error);
  g_autoptr(GdkPixbuf) p0 = gdk_pixbuf_new_from_file(first, &error);
  g_autoptr(GdkPixbuf) p10 = gdk_pixbuf_new_from_file(last, &error);
  g_assert_no_error(error);
  double d_gif = mean_difference(g0, p0), d_motion = mean_difference(p0, p10);
  g_test_message("mean difference GIF - PNG %.2f, first - last PNG %.2f", d_gif, d_motion);
  g_assert_cmpfloat(d_gif, <, 4.0);
  g_assert_cmpfloat(d_motion, >, 1.0);
  g_free(t);
  g_free(q);
  run_clear(&r);
}

/* ---- 4. cancelled: an error, nothing left ------------------------------------------ */
static int cancel_after_three(double fraction, void *user)
{
  int *calls = user;
  (void)fraction;
  return ++*calls >= 3;
}

static void test_cancel(void)
{
  run r = run_five_bar(1.0);
  double *t, *q;
  lw_anim_frames fr = frames_of(&r, 20, 1, &t, &q);
  const lw_anim_format formats[] = {LW_ANIM_WEBM, LW_ANIM_GIF, LW_ANIM_PNG};
  const char *names[] = {"c.webm", "c.gif", "c.png"};
  for (int i = 0; i < 3; i++) {
    lw_anim_options o = {.width = 160, .height = 120, .fps = 20, .format = formats[i]};
    g_autofree char *path = tmp_path(names[i]);
    int calls = 0;
    GError *error = NULL;
    g_assert_false(lw_anim_export(&fr, &o, path, cancel_after_three, &calls, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error(&error);
    g_assert_cmpint(calls, ==, 3);
    g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
    g_autofree char *f0 = lw_anim_png_frame_path(path, 0);
    g_assert_false(g_file_test(f0, G_FILE_TEST_EXISTS));
  }
  g_free(t);
  g_free(q);
  run_clear(&r);
}

/* ---- 5. the application's dialog ------------------------------------------------ */
static gboolean runner_done(gpointer w)
{
  LwSimRunner *r = lw_window_get_runner(LW_WINDOW(w));
  return r && lw_sim_runner_get_state(r) == LW_RUNNER_FINISHED;
}

static gboolean export_over(gpointer d)
{
  return !lw_anim_dialog_get_running(LW_ANIM_DIALOG(d));
}

static LwAnimDialog *anim_dialog_for(LwWindow *w)
{
  LwAnimDialog *found = NULL;
  GList *all = gtk_window_list_toplevels();
  for (GList *l = all; l; l = l->next)
    if (LW_IS_ANIM_DIALOG(l->data) && gtk_window_get_transient_for(GTK_WINDOW(l->data)) == GTK_WINDOW(w))
      found = l->data;
  g_list_free(all);
  return found;
}

/* a tick on the main loop while the export runs: the interface stays live */
static gboolean count_tick(gpointer user)
{
  (*(int *)user)++;
  return G_SOURCE_CONTINUE;
}

static gboolean anim_dialog_shown(gpointer w)
{
  return anim_dialog_for(w) != NULL;
}

static void test_dialog(void)
{
  if (!have_display) {
    g_test_skip("no display");
    return;
  }
  LwApplication *app = lw_application_new();
  g_application_register(G_APPLICATION(app), NULL, NULL);
  LwWindow *w = lw_window_new(app);
  g_autofree char *model = g_build_filename(LW_MODELS_DIR, "pendulum.json", NULL);
  g_autoptr(GFile) f = g_file_new_for_path(model);
  g_assert_true(lw_window_open_file(w, f));
  gtk_window_present(GTK_WINDOW(w));
  g_action_group_change_action_state(G_ACTION_GROUP(w), "real-time", g_variant_new_boolean(FALSE));
  g_action_group_activate_action(G_ACTION_GROUP(w), "run", NULL);
  g_assert_true(lwt_wait_until(runner_done, w, 60));
  g_action_group_activate_action(G_ACTION_GROUP(w), "export-animation", NULL);
  lwt_await(anim_dialog_shown, w, LWT_WAIT);
  LwAnimDialog *d = anim_dialog_for(w);
  g_assert_nonnull(d);
  lw_anim_dialog_set_size(d, 320, 240);
  lw_anim_dialog_set_fps(d, 25);
  lw_anim_dialog_set_speed(d, 1.0);
  lw_anim_dialog_set_format(d, LW_ANIM_WEBM);
  g_autofree char *out = tmp_path("dialog.webm");
  g_autoptr(GFile) file = g_file_new_for_path(out);
  int ticks = 0;
  guint tick = g_timeout_add(10, count_tick, &ticks);
  g_assert_true(lw_anim_dialog_export_to(d, file));
  g_assert_true(lw_anim_dialog_get_running(d));
  g_assert_true(lwt_wait_until(export_over, d, 120));
  g_source_remove(tick);
  g_test_message("%s; %d main-loop ticks while it wrote", lw_anim_dialog_get_message(d), ticks);
  g_assert_cmpint(ticks, >, 5);
  LwSimRunner *r = lw_window_get_runner(w);
  double span = lw_sim_runner_get_time(r);
  int want = (int)(span * 25 + 1e-6) + 1;
  g_autofree char *said = g_strdup_printf("Exported %d frames", want);
  g_assert_nonnull(strstr(lw_anim_dialog_get_message(d), said));
  int vw = 0, vh = 0;
  g_assert_cmpint(decode_webm(out, &vw, &vh, -1, NULL), ==, want);
  g_assert_cmpint(vw, ==, 320);
  g_assert_cmpint(vh, ==, 240);

  /* cancelled at once: the message says so and no file is left */
  g_autofree char *gone = tmp_path("cancelled.gif");
  g_autoptr(GFile) gfile = g_file_new_for_path(gone);
  lw_anim_dialog_set_format(d, LW_ANIM_GIF);
  lw_anim_dialog_set_size(d, 640, 480);
  g_assert_true(lw_anim_dialog_export_to(d, gfile));
  lw_anim_dialog_cancel(d);
  g_assert_true(lwt_wait_until(export_over, d, 60));
  g_assert_cmpstr(lw_anim_dialog_get_message(d), ==, "Cancelled: nothing was written");
  g_assert_false(g_file_test(gone, G_FILE_TEST_EXISTS));
  gtk_window_destroy(GTK_WINDOW(d));
  gtk_window_destroy(GTK_WINDOW(w));
  lwt_spin(0.2);
  g_object_unref(app);
}

int main(int argc, char **argv)
{
  tmp_dir = g_dir_make_tmp("lw-anim-XXXXXX", NULL);
  g_setenv("LANGUAGE", "C", TRUE);
  g_autofree char *data = g_build_filename(tmp_dir, "data", NULL);
  g_setenv("XDG_DATA_HOME", data, TRUE);
  g_test_init(&argc, &argv, NULL);
  gst_init(&argc, &argv);
  have_display = gtk_init_check();
  if (have_display)
    adw_init();
  g_test_add_func("/anim/pick-frames", test_pick_frames);
  g_test_add_func("/anim/cli-webm", test_cli_webm);
  g_test_add_func("/anim/cli-bad", test_cli_bad);
  g_test_add_func("/anim/gif-and-png", test_gif_and_png);
  g_test_add_func("/anim/cancel", test_cancel);
  g_test_add_func("/anim/dialog", test_dialog);
  int rc = g_test_run();
  lwt_rm_rf(tmp_dir);
  g_free(tmp_dir);
  return rc;
}
