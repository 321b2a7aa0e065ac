#ifndef ORIENTD_CBENCH_H
#define ORIENTD_CBENCH_H
/* What Swift's Glibc module does not export and orientd-fanout needs: epoll.
   (The daemon has its own CLinux module; it is not a product of the package.) */
#include <sys/epoll.h>
#endif
