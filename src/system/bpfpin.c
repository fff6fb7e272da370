/*
 * The pin of the BPF task iterator is read by root. Where bpffs is mounted
 * with mode 1777 (a plain `mount -t bpf`), any user can make
 * /sys/fs/bpf/nprocguard before root does, then rename root's pin inside
 * it and plant another object: so nothing here trusts a directory another
 * user controls, nothing follows a symbolic link, every operation is
 * relative to a directory fd already checked, and the pinned object is
 * checked to be our iterator before a byte of it is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "system/bpfpin.h"

/* The reasons name paths and uids: one message at a time, for one CLI call */
static char reason[4608];

int npg_bpffs_ensure(const char *path, const char **why)
{
	size_t n = strlen(NPG_BPFFS_ROOT);
	struct statfs sf;

	if (strncmp(path, NPG_BPFFS_ROOT "/", n + 1) != 0)
		return 0;
	if (statfs(NPG_BPFFS_ROOT, &sf) < 0) {
		*why = "cannot find " NPG_BPFFS_ROOT " (is sysfs mounted?)";
		return -1;
	}
	if (sf.f_type == BPF_FS_MAGIC)
		return 0;
	/* 0700 as bpftool and systemd mount it: 1777 lets users plant entries */
	if (mount("bpf", NPG_BPFFS_ROOT, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") < 0) {
		*why = errno == EPERM ? "no bpf filesystem at " NPG_BPFFS_ROOT " and mounting one "
					"needs CAP_SYS_ADMIN (mount -t bpf -o mode=0700 bpf " NPG_BPFFS_ROOT ")"
				      : "cannot mount a bpf filesystem at " NPG_BPFFS_ROOT;
		return -1;
	}
	return 1;
}

/* May the owner of @st, or anyone else who can write it, be trusted with the pin? */
static bool trusted(const struct stat *st, const char *shown, const char **why)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(reason, sizeof(reason), "%s is owned by uid %u, not root: refusing to use it "
			 "(remove it if you did not make it)", shown, (unsigned)st->st_uid);
		*why = reason;
		return false;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) {
		snprintf(reason, sizeof(reason), "%s is writable by group or others (mode %04o): "
			 "refusing to use it", shown, (unsigned)(st->st_mode & 07777));
		*why = reason;
		return false;
	}
	return true;
}

int npg_pin_dir_open(const char *path, bool create, const char **name, const char **why)
{
	char shown[4096];
	const char *p = path, *last = strrchr(path, '/');
	int fd = open(*path == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (strlen(path) >= sizeof(shown) || !last || !last[1]) {
		if (fd >= 0)
			close(fd);
		*why = "the pin path must name a file in a directory";
		errno = EINVAL;
		return -1;
	}
	if (fd < 0) {
		*why = "cannot open the directory of the pin";
		return -1;
	}
	*name = last + 1;
	while (p < last) {
		size_t len = strcspn(p, "/");
		char comp[NAME_MAX + 1];
		int next;

		if (len == 0) {
			p++;
			continue;
		}
		if (len > NAME_MAX) {
			close(fd);
			*why = "a directory name of the pin path is too long";
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		snprintf(shown, sizeof(shown), "%.*s", (int)(p + len - path), path);
		next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create && p + len == last) {
			/* the caller's umask applies: the pin inside stays root's alone */
			if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
				snprintf(reason, sizeof(reason), "cannot create %s", shown);
				*why = reason;
				close(fd);
				return -1;
			}
			next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			int err = errno;

			snprintf(reason, sizeof(reason), err == ELOOP || err == ENOTDIR
				 ? "%s is not a directory (a symbolic link?): refusing to use it"
				 : "cannot open %s", shown);
			*why = reason;
			close(fd);
			errno = err == ELOOP ? EPERM : err;
			return -1;
		}
		close(fd);
		fd = next;
		if (fstat(fd, &st) < 0) {
			snprintf(reason, sizeof(reason), "cannot stat %s", shown);
			*why = reason;
			close(fd);
			return -1;
		}
		if (!trusted(&st, shown, why)) {
			close(fd);
			errno = EPERM;
			return -1;
		}
		p += len;
	}
	return fd;
}

void npg_pin_fd_path(int dirfd, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d/%s", dirfd, name);
}

/* The kind of BPF object behind @fd, as its anon inode is named: "bpf_link", "bpf-map", ... */
static const char *bpf_kind(int fd, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return "unknown";
	buf[n] = '\0';
	return strncmp(buf, "anon_inode:", 11) == 0 ? buf + 11 : buf;
}

int npg_pin_is_ours(int fd, const char **why)
{
	struct bpf_link_info link;
	struct bpf_prog_info prog;
	__u32 len = sizeof(link);
	char target[32] = "", kind[64];
	const char *k = bpf_kind(fd, kind, sizeof(kind));
	int pfd;

	/* "bpf-link" since 6.x, "bpf_link" before */
	if (strcmp(k, "bpf-link") != 0 && strcmp(k, "bpf_link") != 0) {
		snprintf(reason, sizeof(reason), "the pin is a %s, not nprocguard's task iterator: "
			 "refusing to read it (remove it, then nprocguard status --pin)", k);
		*why = reason;
		errno = EBADFD;
		return -1;
	}
	memset(&link, 0, sizeof(link));
	link.iter.target_name = (__u64)(uintptr_t)target;
	link.iter.target_name_len = sizeof(target);
	if (bpf_obj_get_info_by_fd(fd, &link, &len) < 0) {
		*why = "cannot query the pinned BPF link";
		return -1;
	}
	target[sizeof(target) - 1] = '\0';
	if (link.type != BPF_LINK_TYPE_ITER || strcmp(target, "task") != 0)
		goto foreign;
	pfd = bpf_prog_get_fd_by_id(link.prog_id);
	if (pfd < 0) {
		*why = "cannot query the program of the pinned BPF link";
		return -1;
	}
	len = sizeof(prog);
	memset(&prog, 0, sizeof(prog));
	if (bpf_obj_get_info_by_fd(pfd, &prog, &len) < 0) {
		close(pfd);
		*why = "cannot query the program of the pinned BPF link";
		return -1;
	}
	close(pfd);
	if (prog.type == BPF_PROG_TYPE_TRACING && strcmp(prog.name, "npg_dump_task") == 0)
		return 0;
foreign:
	snprintf(reason, sizeof(reason), "the pin is a BPF link of another program (%s iterator, "
		 "link type %u), not nprocguard's task iterator: refusing to read it (remove it, "
		 "then nprocguard status --pin)", *target ? target : "not an", link.type);
	*why = reason;
	errno = EBADFD;
	return -1;
}
