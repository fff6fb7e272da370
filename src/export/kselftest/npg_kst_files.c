/*
 * The private directory of what the scenario executes by path (`file
 * PATH ...`): copies of this program with the declared owner, set-id bits
 * and file capabilities, a nosuid tmpfs for the files declared `nosuid`.
 */
#include "npg_kst.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

/*
 * Every directory from / down to @path is searchable by others: a task
 * running as a scenario uid must reach what it executes
 */
static bool reachable_by_all(const char *path)
{
	char prefix[256];
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

/* Where a declared file is: a nosuid one on the nosuid mount; a missing one is never made */
void kst_file_path(int file, char *buf, size_t len)
{
	const struct kst_file *f = &kst_sc->files[file - 1];

	snprintf(buf, len, "%.200s/%s%d", kst_execdir, f->missing ? "missing-" :
		 f->nosuid ? "nosuid/file-" : "file-", file);
}

/*
 * security.capability as declared: VFS_CAP_REVISION_2, little-endian as
 * on disk (struct vfs_cap_data), the fE bit in the magic
 */
static int write_fcaps(int fd, const struct kst_file *f)
{
	uint32_t v[5] = {
		htole32(0x02000000u | (f->fcap_effective ? 0x000001u : 0)),
		htole32((uint32_t)f->fcap_permitted), htole32((uint32_t)f->fcap_inheritable),
		htole32((uint32_t)(f->fcap_permitted >> 32)),
		htole32((uint32_t)(f->fcap_inheritable >> 32)),
	};

	return fsetxattr(fd, "security.capability", v, sizeof(v), 0);
}

/*
 * A declared set-id or file-capability program: a copy of this program
 * (a puppet that executes it goes on as a puppet), owned by the mapped
 * owner and group, with S_ISUID/S_ISGID (S_IXGRP, which bprm_fill_uid()
 * wants for S_ISGID, is in 0755). Owner first, mode after: chown() clears
 * the set-id bits; the capabilities last.
 */
static int make_copy(const struct kst_file *f, const char *path)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700), err;

	if (fd < 0)
		return -1;
	while ((n = pread(kst_exe_fd, buf, sizeof(buf), off)) > 0) {
		if (write(fd, buf, (size_t)n) != n)
			goto fail;
		off += n;
	}
	if (n < 0 ||
	    fchown(fd, f->setuid ? kst_map_id(f->uid) : 0, f->setgid ? kst_map_id(f->gid) : 0) < 0 ||
	    fchmod(fd, 0755 | (f->setuid ? S_ISUID : 0) | (f->setgid ? S_ISGID : 0)) < 0 ||
	    (f->has_fcaps && write_fcaps(fd, f) < 0))
		goto fail;
	return close(fd);
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/*
 * A tmpfs mounted nosuid for the files declared `nosuid` (mnt_may_suid()
 * is false there: no set-id bits, no file capabilities), in this mount
 * namespace, which is the tasks' too. 0, or -1 with why in @why.
 */
static int mount_nosuid(char *why, size_t len)
{
	char dir[sizeof(kst_nosuid_dir)], opts[64];
	struct stat st;
	unsigned long long n = 0;

	for (int i = 0; i < kst_sc->nfiles; i++)
		n += kst_sc->files[i].nosuid && !kst_sc->files[i].missing;
	if (n == 0)
		return 0;
	if (fstat(kst_exe_fd, &st) < 0) {
		snprintf(why, len, "fstat of /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/nosuid", kst_execdir);
	snprintf(opts, sizeof(opts), "size=%llu,mode=0755",
		 n * (unsigned long long)st.st_size + (1u << 20));
	if (mkdir(dir, 0755) < 0) {
		snprintf(why, len, "mkdir %.100s: %s", dir, strerror(errno));
		return -1;
	}
	if (mount("npg-kselftest-nosuid", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0) {
		snprintf(why, len, "mount -t tmpfs -o nosuid,nodev: %s", strerror(errno));
		rmdir(dir);
		return -1;
	}
	memcpy(kst_nosuid_dir, dir, sizeof(dir));
	return 0;
}

/*
 * The private directory for what the scenario executes by path: a path
 * declared missing is a name never made in it, so execve() of it fails
 * with ENOENT whatever this machine has at the path the scenario says;
 * the others are copies of this program. Root-owned, 0755, reachable by
 * every uid, on a file system that honours set-id bits and allows exec.
 * A file this machine cannot make (no security.* xattrs, no tmpfs) is not
 * run: the steps that execute it are skipped, saying why.
 */
void kst_make_execdir(void)
{
	const char *dirs[] = { getenv("TMPDIR"), "/tmp", "/var/tmp", "/dev/shm", "/" };
	char nosuid_why[160] = "";
	bool nosuid_ok;

	if (!(kst_file_why = calloc((size_t)kst_sc->nfiles, sizeof(*kst_file_why))))
		kst_bail_out("out of memory");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !kst_execdir[0]; i++) {
		struct statvfs vfs;

		if (!dirs[i] || dirs[i][0] != '/' || strlen(dirs[i]) > 150 ||
		    !reachable_by_all(dirs[i]) || statvfs(dirs[i], &vfs) < 0 ||
		    (vfs.f_flag & (ST_NOSUID | ST_NOEXEC)))
			continue;
		snprintf(kst_execdir, sizeof(kst_execdir), "%s%snpg-kselftest.XXXXXX", dirs[i],
			 dirs[i][strlen(dirs[i]) - 1] == '/' ? "" : "/");
		if (!mkdtemp(kst_execdir) || chmod(kst_execdir, 0755) < 0)
			kst_execdir[0] = '\0';
	}
	if (!kst_execdir[0])
		kst_bail_out("no directory for the scenario's programs: $TMPDIR, /tmp, /var/tmp, /dev/shm "
			     "and / are each missing, not searchable by every uid, or mounted nosuid or "
			     "noexec");
	nosuid_ok = mount_nosuid(nosuid_why, sizeof(nosuid_why)) == 0;
	for (int i = 0; i < kst_sc->nfiles; i++) {
		const struct kst_file *f = &kst_sc->files[i];
		char path[sizeof(kst_execdir) + 64];

		if (f->missing)
			continue;
		if (f->nosuid && !nosuid_ok) {
			snprintf(kst_file_why[i], sizeof(kst_file_why[i]), "'%.60s' is on a nosuid file "
				 "system, and none can be mounted here (%.100s)", f->path, nosuid_why);
			continue;
		}
		kst_file_path(i + 1, path, sizeof(path));
		if (make_copy(f, path) < 0) {
			/* a file system without security.* xattrs: this file, not the rest */
			if ((errno == ENOTSUP || errno == EOPNOTSUPP) && f->has_fcaps) {
				snprintf(kst_file_why[i], sizeof(kst_file_why[i]), "this file system "
					 "cannot hold the file capabilities of '%.60s' "
					 "(security.capability: %s)", f->path, strerror(errno));
				unlink(path);
				continue;
			}
			kst_bail_out("making %s for '%s': %s", path, f->path, strerror(errno));
		}
	}
}
