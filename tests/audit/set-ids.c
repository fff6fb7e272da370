/* set-ids CALL ID: one set*id call with ID and -1 elsewhere, result ignored (audit's id printing). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t id;
	const char *call;

	if (argc != 3)
		return 100;
	call = argv[1];
	id = (uid_t)strtoul(argv[2], NULL, 10);
	if (strcmp(call, "seteuid") == 0)
		return seteuid(id) != 0;
	if (strcmp(call, "setegid") == 0)
		return setegid(id) != 0;
	if (strcmp(call, "setreuid") == 0)
		return setreuid((uid_t)-1, id) != 0;
	if (strcmp(call, "setresuid") == 0)
		return setresuid((uid_t)-1, (uid_t)-1, id) != 0;
	if (strcmp(call, "setresgid") == 0)
		return setresgid(id, (gid_t)-1, (gid_t)-1) != 0;
	return 100;
}
