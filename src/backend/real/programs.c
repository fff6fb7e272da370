/*
 * The scenario's declared programs on this machine: each a copy of
 * nprocguard itself in the run's private directory (execdir.c), owned
 * by the window's ids, with its set-id bits and file capabilities, on a
 * nosuid mount when declared so; a file declared missing is never made.
 * fs/exec.c bprm_fill_uid(), security/commoncap.c.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backend/real/execdir.h"
#include "backend/real/programs.h"
#include "backend/real/real_priv.h"
#include "backend/real/teardown.h"

/*
 * security.capability as the scenario declares it: VFS_CAP_REVISION_2,
 * or VFS_CAP_REVISION_3 (struct vfs_ns_cap_data, 8db6c34f1dbc, 4.14) with
 * the root id, the window's uid of the scenario's user, little-endian as
 * on disk. Written by root of the initial namespace, a v3 keeps its
 * rootid: cap_convert_nscap() rewrites only a v2 from a writer without
 * CAP_SETFCAP over the file system's namespace, and takes the rootid
 * through make_kuid() / from_kuid() of the initial namespace, unchanged.
 * Kernels before 4.14 store it as it is and refuse it at execve()
 * (get_vfs_caps_from_disk(): EINVAL for an unknown revision), as the
 * model says.
 */
static int write_fcaps(struct real_priv *r, int fd, const struct npg_exec_file *f)
{
	struct vfs_ns_cap_data v = {
		.magic_etc = htole32((f->fcap_v3 ? VFS_CAP_REVISION_3 : VFS_CAP_REVISION_2) |
				     (f->fcap_effective ? VFS_CAP_FLAGS_EFFECTIVE : 0)),
		.data = {
			{ htole32((uint32_t)f->fcap_permitted), htole32((uint32_t)f->fcap_inheritable) },
			{ htole32((uint32_t)(f->fcap_permitted >> 32)),
			  htole32((uint32_t)(f->fcap_inheritable >> 32)) },
		},
		.rootid = htole32(f->fcap_v3 ? npg_real_map_id(r, f->fcap_rootid) : 0),
	};

	return fsetxattr(fd, "security.capability", &v,
			 f->fcap_v3 ? XATTR_CAPS_SZ_3 : XATTR_CAPS_SZ_2, 0);
}

/*
 * A v3 read back as written? cap_inode_getsecurity() hands a reader of
 * the initial namespace a v3 whose rootid is mapped there and not 0 as it
 * is; a rootid of 0 comes back as a v2 ("This comes from a parent
 * namespace. Return as a v2 capability"). Before 4.14 the bytes come
 * back as they are. 0, or -1 with @why.
 */
static int check_fcaps(struct real_priv *r, int fd, const struct npg_exec_file *f, char *why,
		       size_t len)
{
	struct vfs_ns_cap_data v;
	uint32_t want = npg_real_map_id(r, f->fcap_rootid);
	ssize_t n = fgetxattr(fd, "security.capability", &v, sizeof(v));
	uint32_t magic;

	if (!f->fcap_v3)
		return 0;
	if (n < 0) {
		snprintf(why, len, "reading back security.capability: %s", strerror(errno));
		return -1;
	}
	magic = le32toh(v.magic_etc);
	if (n == XATTR_CAPS_SZ_3 && (magic & VFS_CAP_REVISION_MASK) == VFS_CAP_REVISION_3 &&
	    le32toh(v.rootid) == want)
		return 0;
	if (want == 0 && n == XATTR_CAPS_SZ_2 &&
	    (magic & VFS_CAP_REVISION_MASK) == VFS_CAP_REVISION_2)
		return 0;
	snprintf(why, len, "security.capability was stored as revision %#x, %zd bytes, not a v3 "
		 "with rootid %u", magic & VFS_CAP_REVISION_MASK, n, want);
	return -1;
}

/*
 * A declared set-id or file-capability program: a copy of nprocguard
 * itself (the puppet re-executes it as `nprocguard __puppet`), owned by
 * the mapped owner and group, with S_ISUID/S_ISGID (and S_IXGRP, which
 * bprm_fill_uid() wants for S_ISGID) and a security.capability xattr
 * (write_fcaps()). Owner first, mode after: chown() clears the set-id
 * bits; the xattr last. @why gets why a v3 could not be kept.
 */
static int make_setid_copy(struct real_priv *r, const struct npg_exec_file *f, const char *path,
			   char *why, size_t len)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700), err;

	if (fd < 0)
		return -1;
	npg_teardown_remember_file(path);
	while ((n = pread(r->exe_fd, buf, sizeof(buf), off)) > 0) {
		if (write(fd, buf, (size_t)n) != n)
			goto fail;
		off += n;
	}
	if (n < 0 || fchown(fd, f->setuid ? npg_real_map_id(r, f->uid) : 0,
			    f->setgid ? npg_real_map_id(r, f->gid) : 0) < 0 ||
	    fchmod(fd, 0755 | (f->setuid ? S_ISUID : 0) | (f->setgid ? S_ISGID : 0)) < 0)
		goto fail;
	if (f->has_fcaps && write_fcaps(r, fd, f) < 0)
		goto fail;
	if (f->has_fcaps)
		check_fcaps(r, fd, f, why, len);
	return close(fd);
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/*
 * The nosuid mount for the scenario's files declared `nosuid`, if it has
 * any: room for one copy of nprocguard each. 0 if mounted or none is
 * needed, -1 (why in @why) if this machine cannot mount one (no
 * CAP_SYS_ADMIN, say): then those files cannot be reproduced here.
 */
static int mount_nosuid(struct real_priv *r, char *why, size_t len)
{
	char sub[NPG_EXECDIR_PATH];
	unsigned long long n = 0;
	struct stat st;

	for (int i = 0; i < r->sc->nfiles; i++)
		n += r->sc->files[i].exec.nosuid && !r->sc->files[i].exec.missing;
	if (n == 0)
		return 0;
	if (fstat(r->exe_fd, &st) < 0) {
		snprintf(why, len, "fstat of /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	return npg_execdir_mount_nosuid(r->execdir, n * (unsigned long long)st.st_size + (1u << 20),
					sub, sizeof(sub), why, len);
}

/*
 * The private directory for the scenario's declared files: a file
 * declared missing is a name never created in it, so execve() of it
 * fails with ENOENT whatever the host has at the path the scenario says.
 */
int npg_real_make_files(struct npg_backend *b, struct real_priv *r)
{
	char nosuid_why[160] = "";
	bool nosuid_mounted;

	if (r->sc->nfiles == 0)
		return 0;
	if (npg_execdir_create(r->execdir, sizeof(r->execdir), b->error, sizeof(b->error)) < 0)
		return -1;
	nosuid_mounted = mount_nosuid(r, nosuid_why, sizeof(nosuid_why)) == 0;
	for (int i = 0; i < r->sc->nfiles; i++) {
		const struct npg_exec_file *f = &r->sc->files[i].exec;
		char path[NPG_EXECDIR_PATH];

		if (f->missing)
			continue;
		if (f->nosuid && !nosuid_mounted) {
			snprintf(r->file_why[i], sizeof(r->file_why[i]), "'%.60s' is on a nosuid "
				 "file system, and none can be mounted here (%.70s)",
				 r->sc->files[i].path, nosuid_why);
			continue;
		}
		npg_real_file_path(r, i + 1, path, sizeof(path));
		if (make_setid_copy(r, f, path, r->file_why[i], sizeof(r->file_why[i])) < 0) {
			/*
			 * A file system without security.* extended attributes (the
			 * initramfs of a kernel built without them, a tmpfs without
			 * CONFIG_TMPFS_XATTR for a nosuid file) cannot hold file
			 * capabilities: executing this file cannot be reproduced
			 * here, the rest of the scenario can.
			 */
			if ((errno == ENOTSUP || errno == EOPNOTSUPP) && f->has_fcaps) {
				snprintf(r->file_why[i], sizeof(r->file_why[i]), "this file system "
					 "cannot hold the file capabilities of '%.60s' "
					 "(security.capability: %s)", r->sc->files[i].path,
					 strerror(errno));
				unlink(path);
				continue;
			}
			snprintf(b->error, sizeof(b->error), "making %.80s for '%.60s': %s", path,
				 r->sc->files[i].path, strerror(errno));
			return -1;
		}
	}
	return 0;
}
