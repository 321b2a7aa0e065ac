#ifndef ORIENTD_CLINUX_SHIM_H
#define ORIENTD_CLINUX_SHIM_H
/* Linux interfaces the daemon's event loop needs that Swift's Glibc module
   does not export: epoll, timerfd, signalfd, eventfd, and the SO_PEERCRED
   record. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
/* mallopt(M_ARENA_MAX): one malloc arena for the daemon's few threads. */
#include <malloc.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
/* struct ucred needs _GNU_SOURCE, which Glibc's module was built without. */
struct orientd_ucred { pid_t pid; uid_t uid; gid_t gid; };

/* accept4 needs _GNU_SOURCE too. */
extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
static inline int orientd_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

/* posix_spawn file actions glibc (2.34+) declares only under _GNU_SOURCE; the
   test harness spawns the daemon with them (Tests/OrientdIntegrationTests/
   ChildProcess.swift). */
#include <spawn.h>

/* A poller's thread is named for `ps -L` (pthread_setname_np needs
   _GNU_SOURCE as well). */
#include <pthread.h>
extern int pthread_setname_np(pthread_t thread, const char *name);
/* The Sensor Core's process gets its pipes with O_CLOEXEC (pipe2 needs
   _GNU_SOURCE too). */
extern int pipe2(int pipefd[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
#endif
