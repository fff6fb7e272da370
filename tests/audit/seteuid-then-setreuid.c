/*
 * Perl's "$< = $> = UID": seteuid(UID), checked, then setreuid(UID, -1),
 * unchecked. On 2.6-3.0 the second call is the one set_user() fails (the
 * real uid changes), leaving real and saved uid 0; then it acts.
 */
#include <err.h>
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
	if (seteuid(uid) != 0)
		err(1, "seteuid");
	setreuid(uid, (uid_t)-1);	/* the bug: result ignored */
	f = fopen(argv[2], "w");
	if (!f)
		return 111;
	fprintf(f, "%u %u\n", (unsigned)getuid(), (unsigned)geteuid());
	fclose(f);
	return 0;
}
