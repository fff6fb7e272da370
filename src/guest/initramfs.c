/*
 * What the guest needs, as an initramfs: the static /init, the program to
 * run (this nprocguard, or a user's for `nprocguard guest`) and, when it
 * is dynamic, the shared libraries ldd(1) says it loads (ld.so included,
 * at the paths the loader will look for them), the mount points, then the
 * run's arguments and files.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/guest.h"

extern const char npg_guest_init_start[], npg_guest_init_end[];

#define LIBS_MAX 64
#define LDD_OUTPUT_MAX (1 << 20)
#define ARGS_MAX 65536	/* the size /init reads */
#define CACHE_KEEP 8	/* base archives kept, the most recently used (one per binary built) */

/*
 * Does @exe name a program interpreter (PT_INTERP)? A static program has
 * none, and ldd(1) refuses it ("not a dynamic executable"). -1: not ELF.
 */
static int elf_dynamic(const char *exe)
{
	unsigned char ident[EI_NIDENT];
	int fd = open(exe, O_RDONLY | O_CLOEXEC), ret = -1;
	uint64_t phoff;
	unsigned phnum, phentsize;

	if (fd < 0)
		return -1;
	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		goto out;
	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;

		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			goto out;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;

		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			goto out;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
	} else {
		goto out;
	}
	ret = 0;
	/* p_type is the first word of both classes' program headers */
	for (unsigned i = 0; i < phnum && phnum < 4096; i++) {
		uint32_t type;

		if (pread(fd, &type, sizeof(type), (off_t)(phoff + (uint64_t)i * phentsize)) !=
		    (ssize_t)sizeof(type)) {
			ret = -1;
			break;
		}
		if (type == PT_INTERP) {
			ret = 1;
			break;
		}
	}
out:
	close(fd);
	return ret;
}

/*
 * What ldd says, whole, in @buf (NUL-terminated): a read cut short by a
 * signal handled while a guest starts (SIGPIPE) goes on; one that ends the
 * run (npg_guest_pending_signal()) stops it. -1 with errno on an error.
 */
static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR && !npg_guest_pending_signal())
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len == size - 1)
		return errno = EFBIG, -1;
	return (ssize_t)len;
}

/* The libraries ldd lists for @exe, each at the path the loader opens. */
static int ldd_libs(const char *exe, char libs[][4096], int max, char *err, size_t errlen)
{
	static char out[LDD_OUTPUT_MAX];
	int fd[2], n = 0, st;
	char *line, *save = NULL;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return snprintf(err, errlen, "pipe: %s", strerror(errno)), -1;
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fd[0]), close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		execlp("ldd", "ldd", exe, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	if (read_all(fd[0], out, sizeof(out)) < 0) {
		snprintf(err, errlen, "reading what ldd %s says: %s", exe, strerror(errno));
		n = -1;
	}
	close(fd[0]);
	if (n < 0 || npg_guest_pending_signal())	/* the run is over: so is ldd */
		kill(pid, SIGKILL);
	for (line = strtok_r(out, "\n", &save); n >= 0 && line; line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, "=> "), *end;

		p = p ? p + 3 : line + strspn(line, " \t");
		if (strstr(line, "not found")) {
			snprintf(err, errlen, "%s: a library is not found: %s", exe, line);
			n = -1;
			break;
		}
		if (*p != '/')
			continue;	/* linux-vdso.so.1, "statically linked" */
		end = strstr(p, " (");
		if (end)
			*end = '\0';
		if (n >= max) {
			snprintf(err, errlen, "%s: more than %d libraries", exe, max);
			n = -1;
			break;
		}
		snprintf(libs[n++], 4096, "%s", p);
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = -1;
			break;
		}
		if (npg_guest_pending_signal())
			kill(pid, SIGKILL);
	}
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (n >= 0)
			snprintf(err, errlen, "ldd %s failed (is ldd installed?)", exe);
		return -1;
	}
	return npg_guest_pending_signal() ? -1 : n;
}

/* The part that depends on the program only. */
static int write_base_parts(struct npg_cpio *c, const struct npg_initramfs_spec *s,
			    char libs[][4096], int nlibs)
{
	static const char *const dirs[] = { "/dev", "/proc", "/sys", "/tmp", "/root", "/run" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (npg_cpio_dir(c, dirs[i]) < 0)
			return -1;
	if (npg_cpio_data(c, "/init", 0755, npg_guest_init_start,
			  (size_t)(npg_guest_init_end - npg_guest_init_start)) < 0 ||
	    npg_cpio_file(c, s->guest_exe ? s->guest_exe : s->exe, 0755, s->exe) < 0)
		return -1;
	for (int i = 0; i < nlibs; i++)
		if (npg_cpio_file(c, libs[i], 0755, libs[i]) < 0)
			return -1;
	return npg_cpio_close(c);
}

static int write_base(struct npg_cpio *c, const struct npg_initramfs_spec *s, char libs[][4096],
		      int nlibs)
{
	int ret = write_base_parts(c, s, libs, nlibs);

	if (ret < 0)
		npg_cpio_abandon(c);
	return ret;
}

/* @path made absolute against @cwd, "." and ".." resolved by name. */
static int guest_path(const char *cwd, const char *path, char *out, size_t len)
{
	char buf[8192], *save = NULL;
	size_t n = 0;

	if (snprintf(buf, sizeof(buf), "%s/%s", path[0] == '/' ? "" : cwd, path) >= (int)sizeof(buf))
		return -1;
	out[0] = '\0';
	for (char *seg = strtok_r(buf, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
		if (strcmp(seg, ".") == 0)
			continue;
		if (strcmp(seg, "..") == 0) {
			char *slash = strrchr(out, '/');

			n = slash ? (size_t)(slash - out) : 0;
			out[n] = '\0';
			continue;
		}
		if (n + strlen(seg) + 2 > len)
			return -1;
		n += (size_t)snprintf(out + n, len - n, "/%s", seg);
	}
	if (n == 0)
		snprintf(out, len, "/");
	return 0;
}

/* Paths the guest mounts over: a scenario there would be hidden. */
static bool hidden_in_guest(const char *path)
{
	static const char *const mounts[] = { "/proc", "/sys", "/dev", "/init", "/npg-args", "/npg-env",
					      "/npg-tmp", "/npg-out", "/npg-reaped" };

	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		size_t l = strlen(mounts[i]);

		if (strncmp(path, mounts[i], l) == 0 && (path[l] == '\0' || path[l] == '/'))
			return true;
	}
	return false;
}

/* Environment the guest's nprocguard gets from ours: test hooks only */
static const char *const guest_env[] = { "NPG_PUPPET_DELAY_MS", "NPG_TEST_ROOT_NPROC",
					 "NPG_GUEST_YAMA_SCOPE" };

/* Append "@name=@value\0" (@value NULL: @name is "NAME=VALUE" already) to @buf. */
static int env_add(char *buf, size_t *len, const char *name, const char *value)
{
	int n = snprintf(buf + *len, ARGS_MAX - *len, "%s%s%s", name, value ? "=" : "",
			 value ? value : "");

	if (n < 0 || (size_t)n + 1 >= ARGS_MAX - *len)
		return -1;
	*len += (size_t)n + 1;
	return 0;
}

/*
 * @s->out_dir made in the guest as the program will name it: each
 * directory its path walks through, ".." taken by name (a symbolic link
 * here is a plain directory there); its absolute path in @path.
 */
static int out_dir(struct npg_cpio *c, const struct npg_initramfs_spec *s, char *path, size_t len,
		   char *err, size_t errlen)
{
	char prefix[4096];
	size_t n = strlen(s->out_dir);

	if (n >= sizeof(prefix))
		return snprintf(err, errlen, "%s: path too long", s->out_dir), -1;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && s->out_dir[i] != '/')
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)i, s->out_dir);
		if (guest_path(s->cwd, prefix, path, len) < 0)
			return snprintf(err, errlen, "%s: path too long", s->out_dir), -1;
		if (hidden_in_guest(path))
			return snprintf(err, errlen, "%s: the guest uses %s itself; name another "
					"directory", s->out_dir, path), -1;
		if (npg_cpio_dir(c, path) < 0)
			return snprintf(err, errlen, "%s", c->error), -1;
	}
	return 0;
}

static int write_run_parts(struct npg_cpio *c, const struct npg_initramfs_spec *s, const char *exe,
			   char *err, size_t errlen)
{
	static char args[ARGS_MAX];
	char path[4096];
	size_t len = 0;

	if (npg_cpio_dir(c, s->cwd) < 0)
		goto cpio_error;
	for (int i = 0; i < s->nfiles; i++) {
		if (guest_path(s->cwd, s->files[i], path, sizeof(path)) < 0)
			return snprintf(err, errlen, "%s: path too long", s->files[i]), -1;
		if (hidden_in_guest(path) || strcmp(path, exe) == 0)
			return snprintf(err, errlen, "%s: the guest uses %s itself; copy the file "
					"elsewhere", s->files[i], path), -1;
		if (npg_cpio_file(c, path, 0644, s->files[i]) < 0)
			goto cpio_error;
	}
	if (s->out_dir) {
		if (out_dir(c, s, path, sizeof(path), err, errlen) < 0)
			return -1;
		if (npg_cpio_data(c, "/npg-out", 0644, path, strlen(path)) < 0)
			goto cpio_error;
	}
	/* the working directory, the program, its argv */
	for (int i = -2; i < s->argc; i++) {
		const char *a = i == -2 ? s->cwd : i == -1 ? exe : s->argv[i];
		size_t l = strlen(a) + 1;

		if (len + l >= sizeof(args))
			return snprintf(err, errlen, "arguments longer than %d bytes", ARGS_MAX - 1), -1;
		memcpy(args + len, a, l);
		len += l;
	}
	if (npg_cpio_data(c, "/npg-args", 0644, args, len) < 0)
		goto cpio_error;
	/* the tests' hooks follow the run into the guest, then the caller's
	 * variables ("NAME=VALUE\0"...), which /init sets in that order */
	len = 0;
	for (size_t i = 0; i < sizeof(guest_env) / sizeof(guest_env[0]); i++) {
		const char *v = getenv(guest_env[i]);

		if (v && env_add(args, &len, guest_env[i], v) < 0)
			return snprintf(err, errlen, "%s is too long", guest_env[i]), -1;
	}
	for (int i = 0; i < s->nenv; i++)
		if (env_add(args, &len, s->env[i], NULL) < 0)
			return snprintf(err, errlen, "the environment for the guest is longer than %d "
					"bytes", ARGS_MAX - 1), -1;
	if (npg_cpio_data(c, "/npg-env", 0644, args, len) < 0 || npg_cpio_close(c) < 0)
		goto cpio_error;
	return 0;
cpio_error:
	snprintf(err, errlen, "%s", c->error);
	return -1;
}

static int write_run(struct npg_cpio *c, const struct npg_initramfs_spec *s, const char *exe,
		     char *err, size_t errlen)
{
	int ret = write_run_parts(c, s, exe, err, errlen);

	if (ret < 0)
		npg_cpio_abandon(c);
	return ret;
}

static int copy_into(FILE *out, const char *src, char *err, size_t errlen)
{
	FILE *in = fopen(src, "rb");
	char buf[65536];
	size_t n;

	if (!in)
		return snprintf(err, errlen, "%s: %s", src, strerror(errno)), -1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	if (ferror(in) || ferror(out)) {
		snprintf(err, errlen, "copying %s: %s", src, strerror(errno));
		fclose(in);
		return -1;
	}
	fclose(in);
	return 0;
}

/* Keep the CACHE_KEEP most recently used base archives; errors are not fatal. */
static void prune_cache(const char *cache_dir)
{
	char oldest[4200];
	DIR *d;

	for (;;) {
		time_t t = 0;
		int n = 0;
		struct dirent *e;

		if (!(d = opendir(cache_dir)))
			return;
		while ((e = readdir(d))) {
			char path[4200];
			struct stat sb;

			if (strncmp(e->d_name, "initramfs-", 10) != 0 || !strstr(e->d_name, ".cpio"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", cache_dir, e->d_name);
			if (stat(path, &sb) < 0)
				continue;
			if (n++ == 0 || sb.st_mtime < t)
				t = sb.st_mtime, snprintf(oldest, sizeof(oldest), "%s", path);
		}
		closedir(d);
		if (n <= CACHE_KEEP || unlink(oldest) < 0)
			return;
	}
}

/* The libraries of @exe: none for a static program */
static int program_libs(const char *exe, char libs[][4096], char *err, size_t errlen)
{
	int dynamic = elf_dynamic(exe);

	if (dynamic < 0)
		return snprintf(err, errlen, "%s: not an ELF program the guest can run", exe), -1;
	return dynamic ? ldd_libs(exe, libs, LIBS_MAX, err, errlen) : 0;
}

/* The cached base archive for @s: hashed first, written only if new. */
static int base_archive(const struct npg_initramfs_spec *s, const char *cache_dir, char *path,
			size_t len, char *err, size_t errlen)
{
	static char libs[LIBS_MAX][4096];
	char tmp[4200];
	struct npg_cpio c;
	int nlibs = program_libs(s->exe, libs, err, errlen), fd;
	FILE *f;

	if (nlibs < 0)
		return -1;
	npg_cpio_open(&c, NULL);
	if (write_base(&c, s, libs, nlibs) < 0)
		return snprintf(err, errlen, "%s", c.error), -1;
	if (snprintf(path, len, "%s/initramfs-%016llx.cpio", cache_dir,
		     (unsigned long long)c.hash) >= (int)len)
		return snprintf(err, errlen, "%s: path too long", cache_dir), -1;
	if (access(path, R_OK) == 0)
		return utimensat(AT_FDCWD, path, NULL, 0), 0;	/* used now: pruned last */
	snprintf(tmp, sizeof(tmp), "%s/.initramfs-XXXXXX", cache_dir);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "wb"))) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd), unlink(tmp);
		return -1;
	}
	npg_cpio_open(&c, f);
	if (write_base(&c, s, libs, nlibs) < 0 || fclose(f) != 0) {
		snprintf(err, errlen, "%s: %s", tmp, c.error[0] ? c.error : strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	prune_cache(cache_dir);
	return 0;
}

int npg_initramfs_write(const struct npg_initramfs_spec *s, const char *cache_dir,
			const char *out, char *err, size_t errlen)
{
	static char libs[LIBS_MAX][4096];
	const char *exe = s->guest_exe ? s->guest_exe : s->exe;
	char base[4200];
	struct npg_cpio c;
	FILE *f;
	int ret, nlibs = 0;

	if (exe[0] != '/' || hidden_in_guest(exe))
		return snprintf(err, errlen, "%s: the program must have an absolute path outside "
				"/proc, /sys, /dev and the guest's own files", exe), -1;
	if (s->cache_base ? base_archive(s, cache_dir, base, sizeof(base), err, errlen) < 0
			  : (nlibs = program_libs(s->exe, libs, err, errlen)) < 0)
		return -1;
	f = fopen(out, "wbx");
	if (!f)
		return snprintf(err, errlen, "%s: %s", out, strerror(errno)), -1;
	if (s->cache_base) {
		ret = copy_into(f, base, err, errlen);
	} else {
		npg_cpio_open(&c, f);
		ret = write_base(&c, s, libs, nlibs);
		if (ret < 0)
			snprintf(err, errlen, "%s", c.error);
	}
	if (ret == 0) {
		npg_cpio_open(&c, f);
		ret = write_run(&c, s, exe, err, errlen);
	}
	if (fclose(f) != 0 && ret == 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		ret = -1;
	}
	return ret;
}

int npg_cache_dir(char *out, size_t len)
{
	const char *env = getenv("NPROCGUARD_CACHE"), *xdg = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	char *p;

	if (env && *env)
		snprintf(out, len, "%s", env);
	else if (xdg && *xdg)
		snprintf(out, len, "%s/nprocguard", xdg);
	else if (home && *home)
		snprintf(out, len, "%s/.cache/nprocguard", home);
	else
		snprintf(out, len, "/var/cache/nprocguard");
	for (p = strchr(out + 1, '/');; p = strchr(p + 1, '/')) {
		if (p)
			*p = '\0';
		if (mkdir(out, 0755) < 0 && errno != EEXIST)
			return -1;
		if (!p)
			return 0;
		*p = '/';
	}
}
