/* lw-test-xpointer.h: the real X pointer for GUI tests, moved and clicked
 * through the XTest extension (header-only, included by the tests that
 * drive the pointer). */
#pragma once

#include <dlfcn.h>
#include <gtk/gtk.h>
#include <string.h>

/* libX11 and libXtst are opened at run time, so that the test needs no
 * build dependency; without them (or off X11) it is skipped */
typedef struct {
  void *x11, *xtst, *dpy;
  unsigned long root;
  void *(*open_display)(const char *);
  int (*close_display)(void *);
  int (*flush)(void *);
  unsigned long (*default_root)(void *);
  int (*translate)(void *, unsigned long, unsigned long, int, int, int *, int *, unsigned long *);
  int (*fake_motion)(void *, int, int, int, unsigned long);
  int (*fake_button)(void *, unsigned int, int, unsigned long);
  unsigned long (*surface_xid)(GdkSurface *);
} xpointer;

static inline gboolean xpointer_open(xpointer *xp)
{
  memset(xp, 0, sizeof *xp);
  if (strcmp(G_OBJECT_TYPE_NAME(gdk_display_get_default()), "GdkX11Display"))
    return FALSE;
  xp->x11 = dlopen("libX11.so.6", RTLD_NOW);
  xp->xtst = dlopen("libXtst.so.6", RTLD_NOW);
  if (!xp->x11 || !xp->xtst)
    return FALSE;
  *(void **)&xp->open_display = dlsym(xp->x11, "XOpenDisplay");
  *(void **)&xp->close_display = dlsym(xp->x11, "XCloseDisplay");
  *(void **)&xp->flush = dlsym(xp->x11, "XFlush");
  *(void **)&xp->default_root = dlsym(xp->x11, "XDefaultRootWindow");
  *(void **)&xp->translate = dlsym(xp->x11, "XTranslateCoordinates");
  *(void **)&xp->fake_motion = dlsym(xp->xtst, "XTestFakeMotionEvent");
  *(void **)&xp->fake_button = dlsym(xp->xtst, "XTestFakeButtonEvent");
  *(void **)&xp->surface_xid = dlsym(RTLD_DEFAULT, "gdk_x11_surface_get_xid");
  if (!xp->open_display || !xp->close_display || !xp->flush || !xp->default_root || !xp->translate ||
      !xp->fake_motion || !xp->fake_button || !xp->surface_xid)
    return FALSE;
  xp->dpy = xp->open_display(NULL);
  if (!xp->dpy)
    return FALSE;
  xp->root = xp->default_root(xp->dpy);
  return TRUE;
}

static inline void xpointer_close(xpointer *xp)
{
  if (xp->dpy)
    xp->close_display(xp->dpy);
  if (xp->xtst)
    dlclose(xp->xtst);
  if (xp->x11)
    dlclose(xp->x11);
}

/* the screen position of point (x, y) of a widget */
static inline void root_point(xpointer *xp, GtkWidget *w, double x, double y, int *rx, int *ry)
{
  GtkNative *nat = gtk_widget_get_native(w);
  graphene_point_t in = GRAPHENE_POINT_INIT((float)x, (float)y), out;
  g_assert_true(gtk_widget_compute_point(w, GTK_WIDGET(nat), &in, &out));
  double sx, sy;
  gtk_native_get_surface_transform(nat, &sx, &sy);
  unsigned long child;
  g_assert_true(xp->translate(xp->dpy, xp->surface_xid(gtk_native_get_surface(nat)), xp->root,
                              (int)lround(out.x + sx), (int)lround(out.y + sy), rx, ry, &child));
}

static inline void xmove(xpointer *xp, int x, int y)
{
  xp->fake_motion(xp->dpy, -1, x, y, 0);
  xp->flush(xp->dpy);
  lwt_spin(0.04);
}

static inline void xbutton(xpointer *xp, gboolean press)
{
  xp->fake_button(xp->dpy, 1, press, 0);
  xp->flush(xp->dpy);
  lwt_spin(0.1);
}

/* the display's pointer, opened once per process: NULL when the display
 * has no XTest or LW_TEST_POINTER=signals asks for the tests' signal path
 * (fallback names that path in the test's log) */
static inline xpointer *xpointer_shared(const char *fallback)
{
  static xpointer xp;
  static xpointer *opened;
  static gboolean tried;
  if (tried)
    return opened;
  tried = TRUE;
  if (!g_strcmp0(g_getenv("LW_TEST_POINTER"), "signals"))
    return NULL;
  if (xpointer_open(&xp))
    opened = &xp;
  else
    xpointer_close(&xp);
  g_test_message("pointer: %s", opened ? "X events (XTest)" : fallback);
  return opened;
}
