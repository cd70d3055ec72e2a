/* lw-test-alloc.h: malloc and friends interposed and counted while
 * `counting` is set (glibc's __libc_* entry points do the work), for the
 * tests that check a step allocates nothing.  Included once, by a test
 * program's main file.  Under AddressSanitizer (LW_SANITIZED) the sanitizer
 * owns malloc: nothing is interposed and the count is the plain build's. */
#ifndef LW_TEST_ALLOC_H
#define LW_TEST_ALLOC_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define LW_SANITIZED 1
#endif

#ifndef LW_SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static volatile int counting;
static volatile long count;

void *malloc(size_t n)
{
  if (counting)
    count++;
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
  if (counting)
    count++;
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
  if (counting)
    count++;
  return __libc_realloc(p, n);
}
void free(void *p)
{
  if (counting && p)
    count++;
  __libc_free(p);
}
#endif

#endif
