#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void npg_execdir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
	npg_teardown_forget_dir();
}
