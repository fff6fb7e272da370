/* An unprivileged program probing whether it could regain root: EPERM is the answer. */
#include <errno.h>
#include <unistd.h>

int main(void)
{
	if (getuid() == 0)
		return 100;
	return setuid(0) == -1 && errno == EPERM ? 0 : 1;
}
