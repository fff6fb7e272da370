/*
 * The controller and its puppets talk over SOCK_SEQPACKET socket pairs:
 * one command, one reply. A new task's socket travels with the fork or
 * thread command (SCM_RIGHTS), and the new task says hello on it first.
 */
#ifndef NPG_REAL_WIRE_H
#define NPG_REAL_WIRE_H

#include <stdint.h>
#include <sys/types.h>

#include "scenario/scenario.h"

#define NPG_PUPPET_EXE_FD 3	/* the nprocguard binary, for execveat() */
#define NPG_PUPPET_SOCK_FD 4	/* a process's own socket, kept across execve */

enum npg_wire_kind {
	NPG_WIRE_CMD,		/* controller -> puppet: run the op */
	NPG_WIRE_RESULT,	/* puppet -> controller: the op's result */
	NPG_WIRE_HELLO,		/* a new puppet (fork, thread, or after execve) */
	NPG_WIRE_DUMPABLE,	/* controller -> puppet: what PR_GET_DUMPABLE says (a RESULT) */
	NPG_WIRE_PEEK_EXIT,	/* controller -> puppet: how its child target_pid ended,
				 * left a zombie (waitid(WNOWAIT); a RESULT, wait_status) */
};

struct npg_wire_msg {
	int32_t kind;
	/* command */
	struct npg_op op;
	int64_t target_pid;	/* wait, prlimit, kill, ptrace: the real pid (a tid for ptrace) */
	/* ptrace seize: the target's thread-group id and its real parent's,
	 * so that the tracer knows which exits are its own to reap */
	int32_t target_tgid, target_ppid;
	char path[256];		/* execve of a declared file: where it is here ("": plain);
				 * write, sysctl: the file the puppet opens */
	char text[256];		/* write, sysctl: what it writes there, in one write(2) */
	/* result */
	int32_t result;		/* enum npg_result_kind */
	int64_t value;		/* errno, returned id, pid */
	int32_t wait_status;	/* wait: the status of the reaped child */
	/* hello */
	int32_t pid, tid;
};

/* Send @m, with @fd attached when >= 0. 0 or -1. */
int npg_wire_send(int sock, const struct npg_wire_msg *m, int fd);
/* Receive one message; *fd gets an attached descriptor or -1. 1, 0 on EOF, -1 on error. */
int npg_wire_recv(int sock, struct npg_wire_msg *m, int *fd);

/* capset() of the calling thread's effective and permitted sets (64-bit, raw). */
long npg_puppet_capset(uint64_t eff, uint64_t prm);

/* Tests only: sleep NPG_PUPPET_DELAY_MS before an effect (puppet.c). */
void npg_puppet_test_delay(void);
/* Close every descriptor from @first up, with or without close_range(). */
void npg_close_from(int first);

/* The puppet's command loop; never returns. */
void npg_puppet_main(int sock) __attribute__((noreturn));

#endif
