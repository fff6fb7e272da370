/*
 * What an x86 kernel image says of itself before it boots: the boot
 * protocol's setup header (Documentation/x86/boot.rst) has, from protocol
 * 2.00 on, "kernel_version" at 0x20e: the offset less 0x200 of a string
 * "RELEASE (USER@HOST) VERSION", the uname -r and uname -v the kernel will
 * give -- so a tool can pick its model or its scenarios before a boot.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "guest/guest.h"

int npg_image_release(const char *image, char *release, size_t rlen, char *version, size_t vlen)
{
	unsigned char hdr[0x210];
	char text[512], *p;
	unsigned off;
	size_t n;
	FILE *f = fopen(image, "rb");

	if (!f)
		return -1;
	n = fread(hdr, 1, sizeof(hdr), f);
	if (n != sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4) != 0 ||
	    (hdr[0x206] | hdr[0x207] << 8) < 0x200 || !(off = hdr[0x20e] | hdr[0x20f] << 8) ||
	    fseek(f, (long)off + 0x200, SEEK_SET) < 0 || !fgets(text, sizeof(text), f)) {
		fclose(f);
		errno = ENOEXEC;
		return -1;
	}
	fclose(f);
	text[strcspn(text, "\n")] = '\0';
	n = strcspn(text, " ");
	snprintf(release, rlen, "%.*s", (int)n, text);
	p = strstr(text + n, ") #");
	snprintf(version, vlen, "%s", p ? p + 2 : "");
	return n ? 0 : (errno = ENOEXEC, -1);
}
