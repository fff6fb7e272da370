#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backend/real/wire.h"

int npg_wire_send(int sock, const struct npg_wire_msg *m, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

/*
 * Every descriptor that comes is closed here but the one a whole message
 * carries for a caller that takes it: a datagram of another size (longer
 * ones are cut to a message: MSG_TRUNC), or more than one descriptor, is
 * no message of ours (EPROTO), and a peer that sends them leaks nothing
 * into this process. An empty datagram reads as the peer's end.
 */
int npg_wire_recv(int sock, struct npg_wire_msg *m, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	int got = -1, extra = 0;
	ssize_t n;

	if (fd)
		*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
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
	if (n == 0 || n != (ssize_t)sizeof(*m) || extra || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
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
