/* make check-boot-arm64 only (scripts/check-boot/run.sh with ARCH=arm64): a
 * pidfd_spawn(3) that qemu-user 7.2 can run, preloaded into the emulated
 * container's systemd (PID 1) alone, never into orientd or the amd64 boot.
 *
 * systemd 257 starts every unit's systemd-executor with glibc's pidfd_spawn.
 * glibc 2.41 tries clone3, which qemu-aarch64 7.2 does not implement (ENOSYS),
 * then clone with CLONE_PIDFD, which qemu 7.2 refuses (EINVAL: its do_fork
 * accepts no CLONE_PIDFD). systemd takes EINVAL as final ("Failed to spawn
 * executor: Invalid argument"), so no unit at all starts. This one does what
 * qemu can: posix_spawn (its CLONE_VM|CLONE_VFORK clone, which qemu runs as a
 * fork), then pidfd_open on the child.
 *
 * With POSIX_SPAWN_SETCGROUP (clone3's CLONE_INTO_CGROUP) it answers ENOSYS,
 * the "not supported" systemd expects from a kernel without clone3: systemd
 * then clears the flag, calls again, and moves the child into the unit's
 * cgroup itself, as on kernels older than 5.7.
 *
 * The same qemu refuses any namespace flag in a fork-like clone (EINVAL:
 * "We cannot support any of CLONE_NEWNS, ..." in its do_fork), which
 * systemd's raw_clone(SIGCHLD|CLONE_NEWNS) asks for through glibc's
 * syscall(3): PID 1 for the generators, systemd-executor (started with PID
 * 1's environment, so preloaded too) for credentials and mount namespaces.
 * syscall() here turns such a clone into the plain fork qemu can do, and the
 * child unshare(2)s the same namespaces before it returns: what the kernel
 * does for clone itself. CLONE_NEWPID (its unshare differs) and everything
 * else go to glibc's syscall() unchanged.
 *
 * And qemu 7.2's statx keeps STATX_MNT_ID in stx_mask but never copies
 * stx_mnt_id, which reads 0. systemd-executor, matching its remounts against
 * /proc/self/mountinfo by that id, gave up on every sandboxed unit: "Failed to
 * set up mount namespacing: Invalid argument" (systemd-logind, orientd).
 * statx() here clears the mask bits when the id is 0 (no real mount has id
 * 0), so systemd takes the id from /proc/self/fdinfo as on kernels before
 * 5.8. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef POSIX_SPAWN_SETCGROUP
#define POSIX_SPAWN_SETCGROUP 0x100 /* glibc 2.39's <spawn.h> */
#endif
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x1000U
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x4000U
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int pidfd_spawn(int *pidfd, const char *path, const posix_spawn_file_actions_t *actions,
                const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
    short flags = 0;
    if (attr != NULL && posix_spawnattr_getflags(attr, &flags) != 0)
        return EINVAL;
    if (flags & POSIX_SPAWN_SETCGROUP)
        return ENOSYS;
    pid_t pid;
    int r = posix_spawn(&pid, path, actions, attr, argv, envp);
    if (r != 0)
        return r;
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) {
        r = errno;
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return r;
    }
    *pidfd = fd;
    return 0;
}

static void fix_mnt_id(struct statx *buf) {
    if (buf->stx_mnt_id == 0)
        buf->stx_mask &= ~(STATX_MNT_ID | STATX_MNT_ID_UNIQUE);
}

int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf) {
    static int (*next)(int, const char *, int, unsigned int, struct statx *);
    if (next == NULL)
        next = (int (*)(int, const char *, int, unsigned int, struct statx *))dlsym(RTLD_NEXT, "statx");
    int r = next(dirfd, path, flags, mask, buf);
    if (r == 0)
        fix_mnt_id(buf);
    return r;
}

long syscall(long number, ...) {
    static long (*next)(long, ...);
    va_list ap;
    long a[6];
    va_start(ap, number);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long); /* as glibc's own syscall() reads them */
    va_end(ap);
    if (next == NULL)
        next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    if (number == SYS_clone) {
        const unsigned long namespaces = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWCGROUP | CLONE_NEWUSER;
        unsigned long flags = (unsigned long)a[0];
        if ((flags & namespaces) && !(flags & (CLONE_VM | CLONE_THREAD | CLONE_NEWPID)) && a[1] == 0) {
            long pid = next(SYS_clone, (long)(flags & ~namespaces), 0L, a[2], a[3], a[4]);
            if (pid == 0 && unshare((int)(flags & namespaces)) < 0) {
                fprintf(stderr, "qemu-pidfd-spawn: unshare(0x%lx) after clone: %m\n", flags & namespaces);
                _exit(127);
            }
            return pid;
        }
    }
    long r = next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (number == SYS_statx && r == 0)
        fix_mnt_id((struct statx *)a[4]);
    return r;
}
