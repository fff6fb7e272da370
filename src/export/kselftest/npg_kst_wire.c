/*
 * The wire between the controller and its puppets: one command, one
 * answer (struct msg), over a SOCK_SEQPACKET socket pair, a new task's
 * socket passed along with SCM_RIGHTS.
 */
#include "npg_kst.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

int kst_send_msg(int sock, const struct msg *m, int fd)
{
	struct iovec iov = { (void *)m, sizeof(*m) };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		h.msg_control = cbuf;
		h.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &h, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

/*
 * 1, 0 on EOF (an empty datagram too), -1 on error; *fd an attached
 * descriptor or -1. Every descriptor that comes is closed here but the one
 * a whole message carries for a caller that takes it: a datagram of
 * another size (a longer one is cut: MSG_TRUNC) or with more than one
 * descriptor is no message (EPROTO).
 */
int kst_recv_msg(int sock, struct msg *m, int *fd)
{
	struct iovec iov = { m, sizeof(*m) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
			    .msg_controllen = sizeof(cbuf.buf) };
	struct cmsghdr *c;
	int got = -1, extra = 0;
	ssize_t n;

	if (fd)
		*fd = -1;
	do
		n = recvmsg(sock, &h, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int d;

			memcpy(&d, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (got < 0)
				got = d;
			else
				close(d), extra++;
		}
	}
	if (n == 0 || n != (ssize_t)sizeof(*m) || extra || (h.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (got >= 0)
			close(got);
		errno = EPROTO;
		return n == 0 ? 0 : -1;
	}
	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	return 1;
}

pid_t kst_my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Close every descriptor from @first up; kernels before 5.9 lack close_range() */
void kst_close_from(int first)
{
	struct rlimit lim;

	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur > 65536)
		lim.rlim_cur = 65536;
	for (int fd = first; fd < (int)lim.rlim_cur; fd++)
		close(fd);
}
