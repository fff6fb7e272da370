/*
 * Capabilities: capget()/capset() of the calling thread as 64-bit sets
 * (no libcap: the runtime needs nothing but libc), and their names.
 */
#include "npg_kst.h"

#include <stdio.h>
#include <unistd.h>

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

#define CAP_VERSION_3 0x20080522	/* _LINUX_CAPABILITY_VERSION_3, 2.6.26+ */

int kst_caps_get(uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	struct cap_header h = { CAP_VERSION_3, 0 };
	struct cap_data d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

long kst_caps_set(uint64_t eff, uint64_t prm, uint64_t inh)
{
	struct cap_header h = { CAP_VERSION_3, 0 };
	struct cap_data d[2] = {
		{ (uint32_t)eff, (uint32_t)prm, (uint32_t)inh },
		{ (uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32) },
	};

	return syscall(SYS_capset, &h, d);
}

bool kst_cap_has(uint64_t set, int cap)
{
	return cap >= 0 && cap < 64 && (set >> cap & 1);
}
/* --- by name, for messages --- */

static const char *const cap_names[CAP_LAST + 1] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid",
	"setuid", "setpcap", "linux_immutable", "net_bind_service", "net_broadcast",
	"net_admin", "net_raw", "ipc_lock", "ipc_owner", "sys_module", "sys_rawio",
	"sys_chroot", "sys_ptrace", "sys_pacct", "sys_admin", "sys_boot", "sys_nice",
	"sys_resource", "sys_time", "sys_tty_config", "mknod", "lease", "audit_write",
	"audit_control", "setfcap", "mac_override", "mac_admin", "syslog", "wake_alarm",
	"block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
};

void kst_cap_list(uint64_t set, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c <= CAP_LAST && used < len; c++)
		if (kst_cap_has(set, c))
			used += (size_t)snprintf(buf + used, len - used, "%scap_%s", used ? "," : "",
						 cap_names[c]);
}
