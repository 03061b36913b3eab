/* epoll and eventfd from the C library (Glibc's Swift module does not export them). */
#include <sys/epoll.h>
#include <sys/eventfd.h>
