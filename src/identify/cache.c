/* identify's answer for this boot of this kernel, kept in the cache directory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/guest.h"
#include "identify/cache.h"
#include "identify/identify.h"

static int boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int cache_file(char *path, size_t len)
{
	char dir[4096];

	if (npg_cache_dir(dir, sizeof(dir)) < 0)
		return -1;
	if ((size_t)snprintf(path, len, "%s/identified", dir) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int npg_identified_save(const struct npg_identified *id, const char *release)
{
	char path[4200], tmp[4300], boot[64];
	FILE *f;
	int bad;

	if (boot_id(boot, sizeof(boot)) < 0 || cache_file(path, sizeof(path)) < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	if (!(f = fopen(tmp, "we")))
		return -1;
	fprintf(f, "# nprocguard identify: what this kernel follows, for this boot\n"
		"boot_id %s\nrelease %s\nconfig %s\nprobes %d\n", boot, release, id->spec, id->nprobes);
	bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		errno = e ? e : EIO;
		return -1;
	}
	return 0;
}

int npg_identified_load(struct npg_config *c, const char *release, char *path, size_t pathlen,
			char *why, size_t whylen)
{
	char line[1024], boot[64], file_boot[1024] = "", file_release[1024] = "", spec[1024] = "";
	FILE *f;

	if (cache_file(path, pathlen) < 0 || boot_id(boot, sizeof(boot)) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (!(f = fopen(path, "re"))) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "boot_id ", 8) == 0)
			snprintf(file_boot, sizeof(file_boot), "%s", line + 8);
		else if (strncmp(line, "release ", 8) == 0)
			snprintf(file_release, sizeof(file_release), "%s", line + 8);
		else if (strncmp(line, "config ", 7) == 0)
			snprintf(spec, sizeof(spec), "%s", line + 7);
	}
	fclose(f);
	if (strcmp(file_boot, boot) != 0 || strcmp(file_release, release) != 0)
		return 0;
	if (npg_config_parse(c, spec, why, whylen) < 0)
		return -1;
	return 1;
}

int npg_identified_differs(const struct npg_release *version, const char *release, char *buf,
			   size_t len)
{
	struct npg_config kept, said;
	char path[4200], why[256], a[512], b[512];

	if (!version || !version->policy ||
	    npg_identified_load(&kept, release, path, sizeof(path), why, sizeof(why)) != 1)
		return 0;
	said.policy = version->policy;
	said.rules = version->rules;
	if (npg_config_equal(&kept, &said))
		return 0;
	npg_config_format(&kept, a, sizeof(a));
	npg_config_format(&said, b, sizeof(b));
	snprintf(buf, len, "identify found %s for this boot of kernel %s, where its version says %s",
		 a, release, b);
	return 1;
}
