#include <pcap/pcap.h>
#include <stdio.h>
#include <sys/types.h>

// glibc's fopencookie(3), which <stdio.h> declares only under _GNU_SOURCE: a FILE whose
// reads call back into Swift, so that libpcap can read a live stream (a pipe, a socket, a
// file still being written) that bleanalyze feeds and can interrupt. The struct has the
// layout of glibc's cookie_io_functions_t.
typedef struct {
  ssize_t (*read)(void *cookie, char *buffer, size_t size);
  ssize_t (*write)(void *cookie, const char *buffer, size_t size);
  int (*seek)(void *cookie, long long *offset, int whence);
  int (*close)(void *cookie);
} bleanalyze_cookie_functions;

FILE *bleanalyze_fopencookie(void *cookie, const char *mode, bleanalyze_cookie_functions functions)
  __asm__("fopencookie");
