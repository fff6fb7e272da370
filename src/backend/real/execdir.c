#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "backend/real/execdir.h"
#include "backend/real/teardown.h"

/*
 * Every directory from / down to @path is searchable by others: a puppet
 * running as a scenario uid must reach what it executes (a clone under
 * /root, mode 0700, is not; its TMPDIR may not be either).
 */
static bool reachable_by_all(const char *path)
{
	char prefix[NPG_EXECDIR_PATH];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(prefix) || path[0] != '/')
		return false;
	for (size_t i = 1; i <= n; i++) {
		struct stat st;

		if (i < n && path[i] != '/')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		if (stat(prefix, &st) < 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & S_IXOTH))
			return false;
	}
	return true;
}

/* nosuid would silently drop the set-id bits (bprm_fill_uid(): mnt_may_suid()) */
static bool exec_and_suid_allowed(const char *path)
{
	struct statvfs vfs;

	return statvfs(path, &vfs) == 0 && !(vfs.f_flag & ST_NOSUID) && !(vfs.f_flag & ST_NOEXEC);
}

int npg_execdir_create(char *dir, size_t len, char *err, size_t errlen)
{
	const char *cands[] = { getenv("TMPDIR"), "/tmp", "/var/tmp", "/dev/shm" };

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		const char *c = cands[i];

		if (!c || !*c || !reachable_by_all(c) || !exec_and_suid_allowed(c))
			continue;
		if ((size_t)snprintf(dir, len, "%s/nprocguard-exec.XXXXXX", c) >= len ||
		    strlen(dir) + 32 >= NPG_EXECDIR_PATH)
			continue;
		if (!mkdtemp(dir))
			continue;
		npg_teardown_remember_dir(dir);
		/* mkdtemp() makes it 0700: every scenario uid must search it */
		if (chmod(dir, 0755) < 0) {
			snprintf(err, errlen, "chmod %s: %s", dir, strerror(errno));
			npg_execdir_remove(dir);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "no directory for the scenario's executables: $TMPDIR, /tmp, "
		 "/var/tmp and /dev/shm are each missing, not searchable by every uid, or "
		 "mounted nosuid or noexec");
	return -1;
}

/*
 * fs/namespace.c mnt_may_suid() is false on a MNT_NOSUID mount: fs/exec.c
 * bprm_fill_uid() then ignores the set-id bits and security/commoncap.c
 * get_file_caps() the file capabilities. A tmpfs of our own rather than a
 * nosuid bind mount: nothing of the host's is remounted, and it holds
 * security.* xattrs (CONFIG_TMPFS_XATTR). It is mounted where we are, in
 * the host's mount namespace, which is the puppets' too.
 */
int npg_execdir_mount_nosuid(const char *dir, unsigned long long size, char *sub, size_t len,
			     char *err, size_t errlen)
{
	char opts[64];
	int e;

	if ((size_t)snprintf(sub, len, "%s/" NPG_EXECDIR_NOSUID, dir) >= len) {
		snprintf(err, errlen, "%s/" NPG_EXECDIR_NOSUID ": path too long", dir);
		errno = ENAMETOOLONG;
		return -1;
	}
	/* remembered before mkdir() and mount(): a signal right after them must not leave it */
	npg_teardown_remember_mount(sub);
	if (mkdir(sub, 0755) < 0) {
		e = errno;
		snprintf(err, errlen, "mkdir %s: %s", sub, strerror(e));
		npg_teardown_forget_mount();
		errno = e;
		return -1;
	}
	snprintf(opts, sizeof(opts), "size=%llu,mode=0755", size);
	if (mount("nprocguard-nosuid", sub, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0) {
		e = errno;
		snprintf(err, errlen, "mount -t tmpfs -o nosuid,nodev on %s: %s", sub, strerror(e));
		rmdir(sub);
		npg_teardown_forget_mount();
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * MNT_DETACH: a puppet killed but not reaped yet may still hold a file of
 * it; the mount leaves the tree now and goes with its last user.
 * UMOUNT_NOFOLLOW: only what is there, never what a link points to. Not a
 * mount point (EINVAL) or no such directory (ENOENT): nothing was mounted.
 */
static void detach_nosuid(const char *dir)
{
	char sub[NPG_EXECDIR_PATH];

	if ((size_t)snprintf(sub, sizeof(sub), "%s/" NPG_EXECDIR_NOSUID, dir) >= sizeof(sub))
		return;
	if (umount2(sub, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL && errno != ENOENT)
		fprintf(stderr, "nprocguard: warning: unmounting %s: %s\n", sub, strerror(errno));
}

void npg_execdir_remove(const char *dir)
{
	DIR *d;
	struct dirent *e;

	detach_nosuid(dir);
	d = opendir(dir);
	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			    unlinkat(dirfd(d), e->d_name, 0) < 0 && errno == EISDIR)
				unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);	/* the nosuid mount point */
		closedir(d);
	}
	rmdir(dir);
	npg_teardown_forget_dir();
}
