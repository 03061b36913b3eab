/* epoll and eventfd from the C library (Glibc's Swift module does not export them), and the
   calling thread's CPU affinity (nor does it export sched_getaffinity, a GNU extension). */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* How many CPUs the calling thread may run on (its affinity mask, of up to 1024 CPUs), or -1
   when it cannot be read. */
static inline int layoutd_allowed_cpu_count(void) {
  unsigned long mask[16] = {0};
  long bytes = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
  if (bytes <= 0) return -1;
  int count = 0;
  for (long i = 0; i < bytes / (long)sizeof mask[0]; i++) count += __builtin_popcountl(mask[i]);
  return count;
}
