/* The target user's environment: its HOME, not root's (runuser, setpriv --reset-env). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "privdrop/exec.h"

/* setpriv(1) --reset-env: the PATH of login(1) for a user and for root */
#define PATH_USER "/usr/local/bin:/bin:/usr/bin"
#define PATH_ROOT "/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin"

int npg_exec_environment(const struct npg_exec_user *u, bool reset)
{
	char number[16];
	const char *name = u->name;

	if (reset) {
		const char *term = getenv("TERM");
		char *keep = term ? strdup(term) : NULL;

		if (term && !keep)
			return -1;
		if (clearenv() != 0 || (keep && setenv("TERM", keep, 1) < 0)) {
			free(keep);
			return -1;
		}
		free(keep);
		if (setenv("PATH", u->uid == 0 ? PATH_ROOT : PATH_USER, 1) < 0)
			return -1;
	}
	if (!name) {
		/* a bare uid: no home to name, and root's must not stay */
		snprintf(number, sizeof(number), "%u", (unsigned)u->uid);
		name = number;
		unsetenv("HOME");
	} else if (setenv("HOME", u->dir && u->dir[0] ? u->dir : "/", 1) < 0) {
		return -1;
	}
	if (setenv("USER", name, 1) < 0 || setenv("LOGNAME", name, 1) < 0)
		return -1;
	if (u->shell && u->shell[0] ? setenv("SHELL", u->shell, 1) < 0 : (unsetenv("SHELL"), false))
		return -1;
	return 0;
}
