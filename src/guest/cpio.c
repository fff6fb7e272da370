/*
 * A cpio "newc" writer, the format the kernel unpacks an initramfs from
 * (init/initramfs.c; Documentation/driver-api/early-userspace/buffer-format.rst).
 * Written here rather than by cpio(1) so that owners are root without
 * running as root, times are zero (the same input gives the same bytes, so
 * the hash of the bytes can name the cached archive), and no tool is needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest/guest.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static int put(struct npg_cpio *c, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		c->hash = (c->hash ^ p[i]) * FNV_PRIME;
	if (c->f && len && fwrite(data, 1, len, c->f) != len) {
		snprintf(c->error, sizeof(c->error), "write: %s", strerror(errno));
		return -1;
	}
	c->off += len;
	return 0;
}

static int pad4(struct npg_cpio *c)
{
	static const char zero[4];

	return put(c, zero, (4 - c->off % 4) % 4);
}

/* @path without its leading '/': the kernel takes names relative to the root. */
static int header(struct npg_cpio *c, const char *path, unsigned mode, size_t size)
{
	char h[111];
	const char *name = path[0] == '/' ? path + 1 : path;
	size_t namesize = strlen(name) + 1;

	if (size > 0xffffffffu) {
		snprintf(c->error, sizeof(c->error), "%s: too large for cpio newc", path);
		return -1;
	}
	snprintf(h, sizeof(h), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ++c->ino, mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, (unsigned)size, 0u, 0u, 0u,
		 0u, (unsigned)namesize, 0u);
	if (put(c, h, 110) < 0 || put(c, name, namesize) < 0)
		return -1;
	return pad4(c);
}

/* @f NULL: only hash, to learn the name of an archive before writing it. */
int npg_cpio_open(struct npg_cpio *c, FILE *f)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->hash = FNV_OFFSET;
	return 0;
}

static bool have_dir(const struct npg_cpio *c, const char *path)
{
	for (int i = 0; i < c->ndirs; i++)
		if (strcmp(c->dirs[i], path) == 0)
			return true;
	return false;
}

static int parents(struct npg_cpio *c, const char *path)
{
	char buf[4096];
	char *slash;

	if (strlen(path) >= sizeof(buf)) {
		snprintf(c->error, sizeof(c->error), "%.64s...: path too long", path);
		return -1;
	}
	strcpy(buf, path);
	for (slash = strchr(buf + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (npg_cpio_dir(c, buf) < 0)
			return -1;
		*slash = '/';
	}
	return 0;
}

int npg_cpio_dir(struct npg_cpio *c, const char *path)
{
	char **dirs;

	if (strcmp(path, "/") == 0 || have_dir(c, path))
		return 0;
	if (parents(c, path) < 0 || header(c, path, S_IFDIR | 0755, 0) < 0)
		return -1;
	dirs = realloc(c->dirs, (size_t)(c->ndirs + 1) * sizeof(*dirs));
	if (!dirs || !(dirs[c->ndirs] = strdup(path))) {
		c->dirs = dirs ? dirs : c->dirs;
		snprintf(c->error, sizeof(c->error), "out of memory");
		return -1;
	}
	c->dirs = dirs;
	c->ndirs++;
	return 0;
}

int npg_cpio_data(struct npg_cpio *c, const char *path, unsigned mode, const void *data,
		  size_t len)
{
	if (parents(c, path) < 0 || header(c, path, S_IFREG | mode, len) < 0 ||
	    put(c, data, len) < 0)
		return -1;
	return pad4(c);
}

/* Why @src is no file to copy into an archive, or NULL: it is, and @fd holds it open */
static const char *open_regular(const char *src, int *fd, struct stat *sb)
{
	*fd = -1;
	/* not opened unless a regular file: a FIFO would block, a device act */
	if (stat(src, sb) < 0)
		return strerror(errno);
	if (!S_ISREG(sb->st_mode))
		return "not a regular file";
	*fd = open(src, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, sb) < 0)
		return strerror(errno);
	if (!S_ISREG(sb->st_mode))
		return "not a regular file";
	if (sb->st_size > NPG_CPIO_FILE_MAX)
		return "larger than 128 MiB, more than a guest holds";
	return NULL;
}

int npg_cpio_file(struct npg_cpio *c, const char *path, unsigned mode, const char *src)
{
	struct stat sb;
	char *buf = NULL;
	ssize_t n = 0;
	int ret = -1, fd;
	const char *why = open_regular(src, &fd, &sb);

	if (why) {
		snprintf(c->error, sizeof(c->error), "%s: %s", src, why);
		goto out;
	}
	buf = malloc(sb.st_size ? (size_t)sb.st_size : 1);
	if (!buf) {
		snprintf(c->error, sizeof(c->error), "%s: out of memory", src);
		goto out;
	}
	for (off_t got = 0; got < sb.st_size; got += n) {
		n = read(fd, buf + got, (size_t)(sb.st_size - got));
		if (n <= 0) {
			snprintf(c->error, sizeof(c->error), "%s: %s", src,
				 n < 0 ? strerror(errno) : "file shrank while read");
			goto out;
		}
	}
	ret = npg_cpio_data(c, path, mode, buf, (size_t)sb.st_size);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

void npg_cpio_abandon(struct npg_cpio *c)
{
	for (int i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	free(c->dirs);
	c->dirs = NULL;
	c->ndirs = 0;
}

int npg_cpio_close(struct npg_cpio *c)
{
	int ret = header(c, "TRAILER!!!", 0, 0);

	npg_cpio_abandon(c);
	return ret;
}
