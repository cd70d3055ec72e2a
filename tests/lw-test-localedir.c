/* lw-test-localedir.c: a preloaded library for tests that run the built
 * application in another language.  The application binds its text domain
 * to the installation's locale directory, compiled in; this library makes
 * bindtextdomain() use the directory LW_TEST_LOCALEDIR names instead (the
 * build's po/, which holds <lang>/LC_MESSAGES/<domain>.mo), so that the
 * translations are tested before they are installed.  Only the domain
 * LW_TEST_TEXTDOMAIN names is redirected; the others (GTK's, GLib's) keep
 * their directories. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*bind_fn)(const char *domain, const char *dir);

char *bindtextdomain(const char *domain, const char *dir)
{
  static bind_fn real;
  if (!real)
    real = (bind_fn)dlsym(RTLD_NEXT, "bindtextdomain");
  const char *want = getenv("LW_TEST_TEXTDOMAIN");
  const char *to = getenv("LW_TEST_LOCALEDIR");
  if (domain && dir && want && to && *to && !strcmp(domain, want))
    dir = to;
  return real(domain, dir);
}
