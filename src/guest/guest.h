/*
 * Running `nprocguard conform` inside another kernel: an initramfs holding
 * this binary, its libraries and the scenarios is booted under QEMU, and
 * the guest's report comes back over serial ports.
 *
 *   cpio.c       cpio "newc" archive writer, hashing what it writes
 *   initramfs.c  what goes into the guest, cached by content hash
 *   qemu.c       starting, watching and always killing QEMU
 *   stream.c     the guest's status lines and the console diagnosis
 *   image.c      the release a kernel image will report, read before a boot
 *   guest.c      `conform --kernel`: the pieces above, end to end
 */
#ifndef NPG_GUEST_GUEST_H
#define NPG_GUEST_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --- cpio.c --- */
#define NPG_CPIO_FILE_MAX (128 << 20)	/* bytes of one file copied in (the guest has 512 MiB) */

struct npg_cpio {
	FILE *f;
	uint64_t hash;		/* FNV-1a of every byte written */
	uint32_t ino;
	uint64_t off;
	char **dirs;		/* directories already written */
	int ndirs;
	char error[256];
};

/* @f NULL: only hash, to learn the name of an archive before writing it. */
int npg_cpio_open(struct npg_cpio *c, FILE *f);
/* Every missing parent of @path is added as a directory first. */
int npg_cpio_dir(struct npg_cpio *c, const char *path);
int npg_cpio_data(struct npg_cpio *c, const char *path, unsigned mode, const void *data,
		  size_t len);
int npg_cpio_file(struct npg_cpio *c, const char *path, unsigned mode, const char *src);
/* The trailer; frees the directory list. */
int npg_cpio_close(struct npg_cpio *c);
/* After an error, instead of the trailer: frees the directory list. */
void npg_cpio_abandon(struct npg_cpio *c);

/* --- initramfs.c --- */
struct npg_initramfs_spec {
	const char *exe;	/* the program to run in the guest: this nprocguard, or any */
	const char *guest_exe;	/* its path there; NULL: its path on the host */
	/* keep the part that depends on @exe alone (with its libraries) in the
	 * cache: nprocguard's, which every run of one build shares */
	bool cache_base;
	const char *cwd;	/* its working directory there (the host's) */
	char **argv;		/* its argv, argv[0] included */
	int argc;
	char **files;		/* scenario files to copy, at their host paths */
	int nfiles;
	char **env;		/* NAME=VALUE for the program, after /init's own */
	int nenv;
	/*
	 * A directory the program writes files to (as it names it, from @cwd):
	 * made in the guest, and what appears in it is sent back as it comes
	 * (/init polls it every second, and once more at the end) to the same
	 * directory here. NULL: none.
	 */
	const char *out_dir;
};

/*
 * Write to @out (a new file) the initramfs for @s: the part that depends
 * only on the binary (/init, the program, the libraries ldd(1) lists for a
 * dynamic one) is built once and, with @s->cache_base, reused from
 * @cache_dir, named by the hash of its content; the part of this run
 * (arguments, files) is a second cpio archive appended to it, which the
 * kernel unpacks over the first (init/initramfs.c reads archives until the
 * end of the image).
 */
int npg_initramfs_write(const struct npg_initramfs_spec *s, const char *cache_dir,
			const char *out, char *err, size_t errlen);
/* $NPROCGUARD_CACHE, $XDG_CACHE_HOME/nprocguard, ~/.cache/nprocguard or /var/cache/nprocguard. */
int npg_cache_dir(char *out, size_t len);

/* --- stream.c --- */
enum npg_guest_state { NPG_GUEST_BOOTING, NPG_GUEST_RUNNING, NPG_GUEST_DONE, NPG_GUEST_FAILED };

#define NPG_GUEST_FILE_MAX (16 << 20)	/* bytes of one file the guest sends back */

/*
 * Files the guest sends back ("npg-guest: file SIZE NAME", then SIZE
 * bytes): each written to the host's directory @dirfd as NAME, through a
 * hidden temporary file renamed when whole.
 */
struct npg_guest_files {
	int dirfd;
	const char *dir;	/* its name, for messages */
	int fd;			/* the file being received; -1: its bytes are dropped */
	char name[256], part[272];
	uint64_t left;		/* its bytes still to come */
	int received;
	char error[4400];	/* the first file that could not be written, and why */
};

struct npg_guest_status {
	enum npg_guest_state state;
	char release[128];	/* from "npg-guest: start RELEASE" */
	int exit_status;	/* from "npg-guest: exit N" */
	int signal;		/* from "npg-guest: signal N" */
	char error[256];	/* from "npg-guest: error ..." */
	char line[512];		/* a partial line */
	size_t linelen;
	struct npg_guest_files *files;	/* NULL: a file sent is dropped */
	uint64_t skip;		/* bytes of a dropped file still to come */
};

/* Feed bytes read from the status port. */
void npg_guest_status_feed(struct npg_guest_status *s, const char *buf, size_t len);
/* After the last byte: a file cut short is removed (and said in @files->error). */
void npg_guest_files_end(struct npg_guest_files *f);
/*
 * Why the guest gave no result, from the tail of its console log @console:
 * @state is how far it got (a program that started and then gave nothing
 * until the deadline hung, whatever the console says).
 */
void npg_guest_diagnose(const char *console, enum npg_guest_state state, bool timed_out,
			double seconds, char *out, size_t len);

/* --- image.c --- */
/*
 * Can @image be booted as the guest's kernel: a regular file (a device is
 * not even opened), readable, with the x86 boot protocol's setup header
 * ("HdrS", protocol 2.00 or later: an initramfs can be loaded), as long as
 * its header says, and a 64-bit x86 kernel where that can be read without
 * booting it (xloadflags' XLF_KERNEL_64 from protocol 2.12, else the ELF
 * header of a gzip-compressed or uncompressed payload from 2.08; any other
 * payload is taken on trust). 0, or -1 with the reason in @why.
 */
int npg_image_check(const char *image, char *why, size_t len);
/*
 * The uname -r and uname -v an x86 bzImage will give, read from its setup
 * header without booting it. -1 (errno ENOEXEC) if it has none.
 */
int npg_image_release(const char *image, char *release, size_t rlen, char *version, size_t vlen);

/* --- qemu.c --- */
struct npg_qemu_opts {
	const char *qemu;	/* default qemu-system-x86_64 */
	int out_fd, err_fd;	/* where the guest's stdout and stderr go (ours: 1, 2) */
	const char *kernel, *initrd;
	const char *accel;	/* "tcg" or "kvm" */
	/*
	 * A KVM boot that is only a trial (--accel auto): what QEMU says is held
	 * back until the guest speaks, and a QEMU that exits with an error
	 * before it does is KVM's failure (in @r->kvm_error)
	 */
	bool kvm_trial;
	int ready_fd;		/* > 2: "ACCEL\n" is written there when the guest speaks */
	int cancel_fd;		/* > 2: readable when the caller gives up on this guest */
	int memory_mb;
	int boot_timeout;	/* seconds until /init must have reported */
	int timeout;		/* seconds for the whole run */
	const char *console_log;
	struct npg_guest_files *files;	/* where files the guest sends go; NULL: dropped */
};

struct npg_qemu_result {
	struct npg_guest_status status;
	bool timed_out;		/* killed at a deadline */
	int signal;		/* killed because we got this signal (SIGINT, SIGTERM, SIGHUP) */
	int qemu_status;	/* QEMU's wait status */
	double seconds;
	int out_errno;		/* the first write to out_fd that failed: its output was lost */
	/*
	 * KVM failed: QEMU's "KVM internal error" line (it stops the vCPU and
	 * waits: QEMU is killed at once), or with o->kvm_trial how QEMU ended
	 * before the guest spoke
	 */
	char kvm_error[320];
	bool cancelled;		/* killed because @o->cancel_fd became readable */
};

/*
 * Boot, copy the guest's stdout and stderr to ours as they come, fill @r.
 * QEMU is dead when this returns, whatever happened. -1 on a host error
 * (in @err), such as QEMU missing.
 */
int npg_qemu_run(const struct npg_qemu_opts *o, struct npg_qemu_result *r, char *err,
		 size_t errlen);

/* SIGINT, SIGTERM and SIGHUP recorded instead of fatal while a guest runs. */
void npg_guest_catch_signals(void);
/* The handlers before; re-raises a recorded signal (after the clean-up). */
void npg_guest_release_signals(void);
int npg_guest_pending_signal(void);

/* --- guest.c --- */
struct npg_guest_opts {
	const char *kernel;	/* the image to boot */
	/*
	 * "tcg", "kvm", or NULL and "auto": KVM when /dev/kvm opens and the
	 * boot under it works (the guest speaks), else TCG, said in one line
	 */
	const char *accel;
	int timeout;		/* 0: NPG_GUEST_TIMEOUT */
	/* conform --random's --out: the directory its files are written to, here */
	const char *out_dir;
	/* one of several guests at once (conform --jobs): */
	int accel_fd;		/* > 2: auto's choice written there, "kvm\n" or "tcg\n" */
	int cancel_fd;		/* > 2: readable when the guest is to be stopped, silently */
	bool quiet_stop;	/* an interruption is said by the caller, once */
};

#define NPG_GUEST_TIMEOUT 3600
#define NPG_GUEST_BOOT_TIMEOUT 180
#define NPG_GUEST_MEMORY_MB 512

/* The options of `conform` that stay on the host (they are not passed on). */
#define NPG_GUEST_OPTIONS \
	{ "kernel", required_argument, NULL, 0x100 }, \
	{ "accel", required_argument, NULL, 0x101 }, \
	{ "guest-timeout", required_argument, NULL, 0x102 }

/* Parse one of those (@c is getopt_long's value); -1 (reported, as @cmd) on a bad value. */
int npg_guest_option(struct npg_guest_opts *g, const char *cmd, int c, const char *arg);

/*
 * --accel auto's first half: "tcg" when KVM's device ($NPROCGUARD_KVM,
 * default /dev/kvm) cannot be opened (said in one line as @cmd), "auto"
 * when a boot is to try KVM; a given "tcg" or "kvm" as it is.
 */
const char *npg_guest_accel(const struct npg_guest_opts *g, const char *cmd);

/* How the guest's program ended */
struct npg_guest_result {
	char release[128];	/* the guest's uname -r */
	int exit_status;	/* when it exited */
	int signal;		/* when a signal killed it */
	int out_errno;		/* its stdout could not all be copied to out_fd: why */
	int files;		/* files it sent back, written to @spec->out_dir */
	bool lost_files;	/* one could not be written here (said) */
};

/*
 * Boot @g->kernel with the program and files of @spec, its stdout copied
 * to @out_fd and its stderr to @err_fd as they come. 0 when the program
 * ran to its end (@res says how), -1 when the guest gave no result (why
 * is said on stderr after "nprocguard @cmd: ") or a signal stopped it
 * (npg_guest_pending_signal()). The caller holds npg_guest_catch_signals()
 * around it; QEMU is dead and the run's files are gone when it returns.
 */
int npg_guest_boot(const struct npg_guest_opts *g, const struct npg_initramfs_spec *spec,
		   int out_fd, int err_fd, const char *cmd, struct npg_guest_result *res);
/*
 * @spec for this binary as the guest's /bin/nprocguard (its base archive
 * cached), run in our working directory; @exe and @cwd hold the paths.
 */
int npg_guest_self(struct npg_initramfs_spec *spec, char *exe, size_t exelen, char *cwd,
		   size_t cwdlen, const char *cmd);
/*
 * npg_image_check(), said as "nprocguard @cmd: @what @image: why" (@what:
 * the option the user gave it with, NULL for an argument); -1 if refused.
 */
int npg_guest_check_image(const char *image, const char *cmd, const char *what);

/*
 * `conform --kernel IMAGE ...`: run conform with the other options of
 * @argv (as getopt_long left it: options before @optind, then scenario
 * files) inside IMAGE, print its report, return its exit status:
 * 2 for a bad image path or too many arguments, NPG_GUEST_NO_RESULT when
 * the run could not happen here (QEMU missing, the initramfs not written)
 * or the guest gave no status (a panic, a hang, a silent console: said).
 * @out_errno: 0, or why some of the report could not be written to stdout.
 */
#define NPG_GUEST_NO_RESULT 3	/* conform's NPG_EXIT_NOT_RUN */
int npg_guest_conform(const struct npg_guest_opts *g, int argc, char **argv, int optind,
		      int *out_errno);
/*
 * Subcommand @cmd of this binary in a guest: its initramfs spec, the
 * options of @argv before @optind that are not the host's, then "--" and
 * the files (each copied in). 0, 2 (said: too many arguments) or
 * NPG_GUEST_NO_RESULT (said: this binary not found).
 */
#define NPG_GUEST_ARGV_MAX 1024
struct npg_guest_cmd {
	struct npg_initramfs_spec spec;
	char *argv[NPG_GUEST_ARGV_MAX];
	char exe[4096], cwd[4096];
};
int npg_guest_cmd_init(struct npg_guest_cmd *gc, const struct npg_guest_opts *g, const char *cmd,
		       int argc, char **argv, int optind);

/* The same for subcommand @cmd (conform, identify) */
int npg_guest_subcommand(const struct npg_guest_opts *g, const char *cmd, int argc, char **argv,
			 int optind, int *out_errno);

#endif
