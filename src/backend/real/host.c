/* What this machine's kernel and this process can do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/real/idmap.h"
#include "system/procfs.h"

/*
 * kernel.yama.ptrace_scope (only with Yama built in: -1 when the file is
 * absent) and fs.suid_dumpable (always there), for the model of this
 * machine. 0, or -1 if one that must be there cannot be read.
 */
static int probe_ptrace_sysctls(struct npg_host *h)
{
	char buf[32];

	h->yama_scope = -1;
	if (npg_read_small("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf)) > 0)
		h->yama_scope = atoi(buf);
	else if (errno != ENOENT)
		return -1;
	if (npg_read_small("/proc/sys/fs/suid_dumpable", buf, sizeof(buf)) <= 0)
		return -1;
	h->suid_dumpable = atoi(buf);
	return 0;
}

int npg_host_probe(struct npg_host *h)
{
	struct utsname u;
	struct rlimit lim;
	struct npg_proc_task self;
	enum npg_userns_form form;
	char why[160];

	memset(h, 0, sizeof(*h));
	/*
	 * Tests only: NPG_TEST_ROOT_NPROC=N gives this root process a finite
	 * hard RLIMIT_NPROC, as some machines configure root, so that the
	 * task set-up meets it while holding CAP_SYS_RESOURCE (in a guest).
	 */
	if (getenv("NPG_TEST_ROOT_NPROC") && geteuid() == 0) {
		struct rlimit fin;

		fin.rlim_cur = fin.rlim_max = strtoul(getenv("NPG_TEST_ROOT_NPROC"), NULL, 10);
		if (setrlimit(RLIMIT_NPROC, &fin) < 0)
			return -1;
	}
	if (uname(&u) < 0)
		return -1;
	snprintf(h->release, sizeof(h->release), "%s", u.release);
	if (npg_running_release(&h->rel) == 0)
		h->policy = h->rel.policy;
	h->root = geteuid() == 0;
	if (npg_proc_read_task(getpid(), gettid(), &self) < 0)
		return -1;
	/* capabilities the model knows of; 3.0 shows a full set as all 64 bits */
	h->cap_bnd = self.cap_bnd & NPG_CAP_ALL;
	h->cap_eff = self.cap_eff & NPG_CAP_ALL;
	h->cap_beyond = self.cap_bnd & self.cap_prm & ~NPG_CAP_ALL;
	h->no_new_privs = self.no_new_privs;
	/* CONFIG_USER_NS on a 3.8+ kernel: the namespace's /proc entry; or 2.6.39-3.4's */
	form = npg_userns_form_probe(why, sizeof(why));
	h->userns = form == NPG_USERNS_MAPS;
	h->userns_legacy = form == NPG_USERNS_LEGACY;
	if (getrlimit(RLIMIT_NPROC, &lim) < 0)
		return -1;
	h->nproc_hard = lim.rlim_max == RLIM_INFINITY ? NPG_RLIM_INFINITY : lim.rlim_max;
	/* the guest's /init (src/guest/init) sets it for the one program it runs */
	h->own_kernel = getenv("NPG_GUEST_KERNEL") && getppid() == 1;
	h->init_reaped = h->own_kernel ? getenv("NPG_GUEST_REAPED") : NULL;
	return probe_ptrace_sysctls(h);
}
