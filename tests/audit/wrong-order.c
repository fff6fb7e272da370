/* uid first, then gid, unchecked (CERT POS36-C's "wrong order"): setgid() can no longer work. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t id;
	FILE *f;

	if (argc != 3)
		return 100;
	id = (uid_t)strtoul(argv[1], NULL, 10);
	setuid(id);
	setgid(id);
	setgroups(0, NULL);
	f = fopen(argv[2], "w");
	if (!f)
		return 111;
	fprintf(f, "%u %u %u\n", (unsigned)getuid(), (unsigned)geteuid(), (unsigned)getgid());
	fclose(f);
	return 0;
}
