/*
 * What an x86 kernel image says of itself before it boots: the boot
 * protocol's setup header (Documentation/x86/boot.rst, "THE REAL-MODE
 * KERNEL HEADER"), read without booting it -- whether QEMU can boot it with
 * an initramfs as a 64-bit kernel, and the uname -r and uname -v it will
 * give, so that a tool can refuse a wrong file before any work and pick its
 * model or its scenarios before a boot.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "guest/guest.h"

/* Offsets and values of the setup header (boot.rst) */
#define HDR_SETUP_SECTS 0x1f1	/* 512-byte sectors of setup after the boot sector; 0: 4 */
#define HDR_SYSSIZE 0x1f4	/* the protected-mode code, in 16-byte paragraphs (2.04+) */
#define HDR_MAGIC 0x202		/* "HdrS" */
#define HDR_VERSION 0x206	/* the boot protocol, 0x020f for 2.15 */
#define HDR_KERNEL_VERSION 0x20e	/* the version string's offset less 0x200 (2.00+) */
#define HDR_XLOADFLAGS 0x236	/* 2.12+ */
#define XLF_KERNEL_64 0x1	/* the 64-bit entry point at 0x200 (3.8+, a relocatable x86_64) */
#define HDR_PAYLOAD_OFFSET 0x248	/* the compressed kernel, from the protected-mode code (2.08+) */
#define HDR_PAYLOAD_LENGTH 0x24c
#define HDR_END 0x250

#define INFLATE_INPUT_MAX (1 << 20)	/* payload bytes read to reach its ELF header */
#define IMAGE_TRAILER_MAX (1 << 20)	/* bytes after what the header describes (a signature) */

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/*
 * The first @len bytes of a gzip stream at @off of @fd (the payload of
 * every kernel built with KERNEL_GZIP, the default before 3.8), in @out.
 * 0, or -1 if they cannot be had.
 */
static int gunzip_head(int fd, off_t off, uint32_t avail, unsigned char *out, size_t len)
{
	unsigned char in[16384];
	z_stream z = { .next_out = out, .avail_out = (uInt)len };
	uint32_t read_total = 0;
	int rc = Z_OK;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -1;
	while (z.avail_out > 0 && rc == Z_OK && read_total < avail && read_total < INFLATE_INPUT_MAX) {
		size_t want = avail - read_total < sizeof(in) ? avail - read_total : sizeof(in);
		ssize_t n = pread(fd, in, want, off + (off_t)read_total);

		if (n <= 0)
			break;
		read_total += (uint32_t)n;
		z.next_in = in;
		z.avail_in = (uInt)n;
		while (z.avail_in > 0 && z.avail_out > 0 && rc == Z_OK)
			rc = inflate(&z, Z_NO_FLUSH);
	}
	inflateEnd(&z);
	return z.avail_out == 0 ? 0 : -1;
}

/*
 * Is the kernel 64-bit? 1 yes, 0 no (@why says what it is), -1 not known
 * from what can be read here (a payload compressed other than by gzip, a
 * protocol before 2.08): taken on trust.
 */
static int kernel_64(int fd, const unsigned char *h, unsigned version, off_t setup_end, off_t size,
		     char *why, size_t len)
{
	unsigned char e[EI_NIDENT + 4];
	uint32_t off, plen;
	unsigned machine;

	if (version >= 0x20c && (le16(h + HDR_XLOADFLAGS) & XLF_KERNEL_64))
		return 1;
	if (version < 0x208)
		return -1;
	off = le32(h + HDR_PAYLOAD_OFFSET);
	plen = le32(h + HDR_PAYLOAD_LENGTH);
	if (plen < 2 || setup_end + (off_t)off + (off_t)plen > size) {
		snprintf(why, len, "not a whole kernel image: its header places the compressed kernel "
			 "at bytes %lld-%lld, the file has %lld", (long long)(setup_end + off),
			 (long long)(setup_end + off + plen), (long long)size);
		return 0;
	}
	if (pread(fd, e, 2, setup_end + off) != 2)
		return -1;
	if (e[0] == 0x1f && e[1] == 0x8b) {
		if (gunzip_head(fd, setup_end + off, plen, e, sizeof(e)) < 0) {
			snprintf(why, len, "its gzip-compressed kernel does not decompress");
			return 0;
		}
	} else if (plen < sizeof(e) || pread(fd, e, sizeof(e), setup_end + off) != (ssize_t)sizeof(e) ||
		   memcmp(e, ELFMAG, SELFMAG) != 0) {
		return -1;	/* xz, lzma, bzip2, lzo, lz4, zstd: not read here */
	}
	if (memcmp(e, ELFMAG, SELFMAG) != 0) {
		snprintf(why, len, "its compressed kernel is not an ELF file");
		return 0;
	}
	machine = le16(e + EI_NIDENT + 2);	/* e_machine: after e_type, in both classes */
	if (e[EI_CLASS] == ELFCLASS64 && machine == EM_X86_64)
		return 1;
	snprintf(why, len, "a %s kernel (ELF machine %u%s), not x86_64: the guest runs x86_64 programs",
		 e[EI_CLASS] == ELFCLASS32 ? "32-bit" : "non-x86_64", machine,
		 machine == EM_386 ? ", i386" : "");
	return 0;
}

int npg_image_check(const char *image, char *why, size_t len)
{
	unsigned char h[HDR_END];
	struct stat sb;
	unsigned version, sects;
	off_t setup_end, whole;
	ssize_t n;
	int fd;

	if (!image[0])
		return snprintf(why, len, "no file named"), -1;
	/* a device is not opened: opening some (a watchdog, a tape) acts */
	if (stat(image, &sb) < 0)
		return snprintf(why, len, "%s", strerror(errno)), -1;
	if (!S_ISREG(sb.st_mode))
		return snprintf(why, len, "%s, not a kernel image", file_kind(sb.st_mode)), -1;
	fd = open(image, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return snprintf(why, len, "%s", strerror(errno)), -1;
	/* what was opened, should the path have changed since */
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		snprintf(why, len, "%s, not a kernel image", file_kind(sb.st_mode));
		goto refused;
	}
	memset(h, 0, sizeof(h));
	n = pread(fd, h, sizeof(h), 0);
	if (n < 0) {
		snprintf(why, len, "%s", strerror(errno));
		goto refused;
	}
	if (n < HDR_VERSION + 2 || memcmp(h + HDR_MAGIC, "HdrS", 4) != 0) {
		snprintf(why, len, "not an x86 kernel image (no boot protocol header: \"HdrS\" at "
			 "0x202)%s", sb.st_size ? "" : ": the file is empty");
		goto refused;
	}
	version = le16(h + HDR_VERSION);
	if (version < 0x200) {
		snprintf(why, len, "boot protocol %u.%02u, before 2.00: no initramfs can be loaded "
			 "with it", version >> 8, version & 0xff);
		goto refused;
	}
	/* the setup code, then the protected-mode code (its size known from 2.04) */
	sects = h[HDR_SETUP_SECTS] ? h[HDR_SETUP_SECTS] : 4;
	setup_end = (off_t)(sects + 1) * 512;
	whole = setup_end + (version >= 0x204 ? (off_t)le32(h + HDR_SYSSIZE) * 16 : 0);
	if (whole > sb.st_size) {
		snprintf(why, len, "not a whole kernel image: its header describes %lld bytes, the "
			 "file has %lld", (long long)whole, (long long)sb.st_size);
		goto refused;
	}
	/* QEMU would load all of it as the kernel (a 1.5 GB file: 12 s, then a guest that
	 * never speaks); a signature appended (sbsign) is a few KiB */
	if (version >= 0x204 && sb.st_size - whole > IMAGE_TRAILER_MAX) {
		snprintf(why, len, "not a kernel image as built: the file has %lld bytes, %lld more "
			 "than its header describes", (long long)sb.st_size,
			 (long long)(sb.st_size - whole));
		goto refused;
	}
	if (kernel_64(fd, h, version, setup_end, sb.st_size, why, len) == 0)
		goto refused;
	close(fd);
	return 0;
refused:
	close(fd);
	return -1;
}

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
