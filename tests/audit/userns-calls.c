/*
 * Calls a user namespace refuses by its own rules, each expected to fail
 * and the program to carry on: setgroups() with /proc/self/setgroups
 * "deny" (EPERM), setuid() and setgid() to an id the namespace does not map
 * (EINVAL). Prints "carried on" and exits 0 if every answer was the
 * kernel's; run in `unshare -U -r` with UNMAPPED-ID.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int expect(const char *call, int rc, int want)
{
	if (rc == -1 && errno == want)
		return 0;
	fprintf(stderr, "userns-calls: %s: rc %d, %s; want %s\n", call, rc,
		rc ? strerror(errno) : "no error", strerror(want));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long id;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: userns-calls UNMAPPED-ID\n");
		return 2;
	}
	id = strtoul(argv[1], NULL, 10);
	bad += expect("setgroups(0 groups)", setgroups(0, NULL), EPERM);
	bad += expect("setuid(unmapped)", setuid((uid_t)id), EINVAL);
	bad += expect("setgid(unmapped)", setgid((gid_t)id), EINVAL);
	bad += expect("setresuid(unmapped)", setresuid((uid_t)id, (uid_t)id, (uid_t)id), EINVAL);
	if (bad)
		return 1;
	printf("carried on\n");
	return 0;
}
