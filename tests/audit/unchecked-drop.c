/* Drops to UID with setuid() and ignores the result (CVE-2006-2607 style), then acts. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 3)
		return 100;
	setuid((uid_t)strtoul(argv[1], NULL, 10));	/* the bug: result ignored */
	f = fopen(argv[2], "w");	/* "the user's work", done as whoever we are */
	if (!f)
		return 111;
	fprintf(f, "%u %u\n", (unsigned)getuid(), (unsigned)geteuid());
	fclose(f);
	return 0;
}
