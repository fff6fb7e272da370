/* A temporary drop: seteuid(UID), then back to root through the saved uid. */
#include <err.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 100;
	if (seteuid((uid_t)strtoul(argv[1], NULL, 10)) != 0)
		err(1, "seteuid");
	if (seteuid(0) != 0)
		err(1, "seteuid(0)");
	return geteuid() == 0 ? 0 : 1;
}
