/*
 * Where `status --pin` keeps its BPF task iterator, reached safely: bpffs
 * mounted at /sys/fs/bpf when nothing is (as bpftool does), every
 * directory on the way checked before it is trusted, and the pinned object
 * checked to be nprocguard's iterator before anything is read from it.
 */
#ifndef NPG_SYSTEM_BPFPIN_H
#define NPG_SYSTEM_BPFPIN_H

#include <stdbool.h>

#define NPG_BPFFS_ROOT "/sys/fs/bpf"

/*
 * If @path lies under /sys/fs/bpf and no bpffs is mounted there, mount
 * one (mode 0700). 1 if mounted now, 0 if nothing was needed, -1 with
 * errno and @why.
 */
int npg_bpffs_ensure(const char *path, const char **why);

/*
 * The directory of @path, opened with O_PATH one component at a time
 * without following symbolic links. Every directory must be owned by root
 * or the caller, and not writable by group or others unless sticky (a
 * 1777 bpffs root): anyone else who could rename entries in it could swap
 * the pin. With @create, a missing last directory is made (mode 0755).
 * Returns the directory fd and points @name at the last component of
 * @path; -1 with errno and @why (errno EPERM for an untrusted directory).
 */
int npg_pin_dir_open(const char *path, bool create, const char **name, const char **why);

/* "/proc/self/fd/DIRFD/NAME": a path for APIs that take no dirfd. */
void npg_pin_fd_path(int dirfd, const char *name, char *buf, size_t len);

/*
 * Is @fd (from bpf_obj_get()) a link of nprocguard's task iterator: an
 * iterator link over tasks, of a tracing program named npg_dump_task?
 * 0, or -1 with @why (errno EBADFD for something else, or the errno of
 * the query).
 */
int npg_pin_is_ours(int fd, const char **why);

#endif
