/*
 * Leaving nothing behind when the controller is interrupted. A SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT may arrive at any point of a real run --
 * mid-step, while fillers start, while a --then command runs -- and the
 * handler must still end every process the run made and say where the run
 * stood. Everything here is async-signal-safe on the handler's side.
 */
#ifndef NPG_REAL_TEARDOWN_H
#define NPG_REAL_TEARDOWN_H

#include <sys/types.h>

/* Catch the fatal signals (idempotent). */
void npg_teardown_install(void);

/* A process to SIGKILL on a fatal signal (best effort past a fixed number:
 * the puppets and fillers also exit when the controller's sockets close),
 * unless its pid has since been taken by another process (start time) */
void npg_teardown_remember(pid_t pid);
void npg_teardown_forget_all(void);

/*
 * A directory to empty and remove on a fatal signal (execdir.c); one at a
 * time. Its files are the ones named with npg_teardown_remember_file().
 */
void npg_teardown_remember_dir(const char *dir);
void npg_teardown_remember_file(const char *path);
void npg_teardown_forget_dir(void);
/*
 * A mount point in that directory, detached (umount2() with MNT_DETACH) and
 * removed after its files and before the directory; one at a time,
 * forgotten with the directory too.
 */
void npg_teardown_remember_mount(const char *path);
void npg_teardown_forget_mount(void);

/* A process group to SIGKILL on a fatal signal (the --then command); 0 clears. */
void npg_teardown_set_group(pid_t pgid);

/* Where the run stands, for the message an interruption prints:
 * "interrupted by SIGINT at FILE:LINE (WHAT)". @file must stay valid. */
void npg_teardown_set_where(const char *file, int line, const char *what);
/* Only what the run is doing, at the place last set ("the --then command"). */
void npg_teardown_set_phase(const char *what);

#endif
