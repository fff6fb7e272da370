/* Drops with setgid() then setuid(), checking both (CERT POS36-C, POS37-C). */
#include <err.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	FILE *f;

	if (argc != 3)
		return 100;
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0)
		err(1, "unable to drop privileges");
	if (setuid(0) == 0)
		errx(1, "root can be regained");
	f = fopen(argv[2], "w");
	if (!f)
		err(111, "%s", argv[2]);
	fprintf(f, "%u %u\n", (unsigned)getuid(), (unsigned)geteuid());
	fclose(f);
	return 0;
}
