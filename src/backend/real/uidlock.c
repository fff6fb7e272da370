#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/real/uidlock.h"

/* The pid the holder wrote into the lock file, or 0 if none yet. */
static long holder_of(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static int lock_block(int dirfd, uint32_t block, uint32_t base, bool wait, char *err,
		      size_t errlen)
{
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "uid-window-%u.lock", block);
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s/%s: %s", NPG_UID_LOCK_DIR, name,
			 strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		long pid = holder_of(fd);

		if (errno != EWOULDBLOCK || !wait) {
			snprintf(err, errlen,
				 "uids %u..%u are in use by another real run (nprocguard pid %ld, "
				 "lock %s/%s): wait for it with --wait, or pick another --uid-base",
				 base, base + NPG_UID_WINDOW - 1, pid, NPG_UID_LOCK_DIR, name);
			close(fd);
			return -1;
		}
		fprintf(stderr, "nprocguard: waiting for nprocguard pid %ld, which holds uids "
			"%u..%u (lock %s/%s)\n", pid, base, base + NPG_UID_WINDOW - 1,
			NPG_UID_LOCK_DIR, name);
		while (flock(fd, LOCK_EX) < 0) {
			if (errno != EINTR) {
				snprintf(err, errlen, "flock %s/%s: %s", NPG_UID_LOCK_DIR, name,
					 strerror(errno));
				close(fd);
				return -1;
			}
		}
	}
	/* the holder's pid, for the message of whoever comes next */
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%ld\n", (long)getpid());
	/* fd stays open: the lock lasts as long as this process */
	return 0;
}

int npg_uid_window_lock(uint32_t base, bool wait, char *err, size_t errlen)
{
	uint32_t first = base / NPG_UID_WINDOW * NPG_UID_WINDOW;
	uint32_t last = (base + NPG_UID_WINDOW - 1) / NPG_UID_WINDOW * NPG_UID_WINDOW;
	int dirfd, rc = 0;

	if (mkdir(NPG_UID_LOCK_DIR, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", NPG_UID_LOCK_DIR, strerror(errno));
		return -1;
	}
	dirfd = open(NPG_UID_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dirfd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", NPG_UID_LOCK_DIR, strerror(errno));
		return -1;
	}
	/* a window overlaps at most two blocks; lock them in ascending order so
	 * that two waiting runs cannot deadlock */
	if (lock_block(dirfd, first, base, wait, err, errlen) < 0 ||
	    (last != first && lock_block(dirfd, last, base, wait, err, errlen) < 0))
		rc = -1;
	close(dirfd);
	return rc;
}
