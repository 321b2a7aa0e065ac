#ifndef ORIENTD_CLINUX_SHIM_H
#define ORIENTD_CLINUX_SHIM_H
/* Linux interfaces the daemon's event loop needs that Swift's Glibc module
   does not export: epoll, timerfd, signalfd, and the SO_PEERCRED record. */
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
/* The program's own program headers (getauxval's AT_PHDR, elf.h's Elf64_Phdr)
   and madvise's MADV_PAGEOUT, for releasing start-up's pages
   (Sources/OrientDaemon/ProgramPages.swift). */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>

/* The loaded objects' program headers: link.h declares dl_iterate_phdr and
   struct dl_phdr_info only under _GNU_SOURCE. The first four members, as
   glibc has them (the callback's size argument says more may follow). */
struct orientd_dl_phdr_info {
#if UINTPTR_MAX > 0xffffffffu
    Elf64_Addr dlpi_addr;
    const char *dlpi_name;
    const Elf64_Phdr *dlpi_phdr;
    Elf64_Half dlpi_phnum;
#else
    Elf32_Addr dlpi_addr;
    const char *dlpi_name;
    const Elf32_Phdr *dlpi_phdr;
    Elf32_Half dlpi_phnum;
#endif
};
extern int dl_iterate_phdr(int (*callback)(struct orientd_dl_phdr_info *info, size_t size, void *data), void *data);

/* struct ucred needs _GNU_SOURCE, which Glibc's module was built without. */
struct orientd_ucred { pid_t pid; uid_t uid; gid_t gid; };

/* accept4 needs _GNU_SOURCE too. */
extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
static inline int orientd_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

/* posix_spawn file actions glibc (2.34+) declares only under _GNU_SOURCE; the
   test harness spawns the daemon with them (Tests/OrientdIntegrationTests/
   ChildProcess.swift). */
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
#endif
