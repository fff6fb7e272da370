/*
 * What the two wire harnesses share (fuzz-wire.c: the real backend's,
 * fuzz-kst-wire.c: the exported tests' runtime's): datagrams made of the
 * input are sent over a SOCK_SEQPACKET socket pair, some with descriptors
 * attached, and read back with the receiver under test. Whatever comes,
 * it must never crash, and
 *   - take a datagram as a message when it is exactly one with at most
 *     one descriptor, and nothing else,
 *   - hand back an attached descriptor open and close-on-exec, or none,
 *   - leave no descriptor behind, whether the caller takes one or not.
 *
 * The input, datagram after datagram: a flags byte (bits 0-1: how many
 * descriptors to attach, 0-3; bit 2: send with the sender under test, a
 * whole message; bit 3: the receiver is asked for no descriptor), two
 * bytes of length (little-endian, taken modulo 2 messages + 1), then the
 * datagram's bytes (zeros where the input ends).
 */
#ifndef NPG_FUZZ_WIRE_H
#define NPG_FUZZ_WIRE_H

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define WIRE_MAX_DATAGRAMS 16
#define WIRE_FD_SPAN 64		/* a leak shows within this many descriptors */

struct wire_ops {
	size_t msg_size;
	int (*send)(int sock, const void *m, int fd);
	int (*recv)(int sock, void *m, int *fd);	/* 1, 0 on EOF, -1 */
};

static void wire_fail(const char *what, int n)
{
	fprintf(stderr, "wire harness: %s (%d)\n", what, n);
	abort();
}

/* Send @len bytes of @buf with @nfds descriptors (copies of /dev/null): 0, or -1 (full) */
static int wire_send_raw(int sock, const void *buf, size_t len, int nfds)
{
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[3];
	ssize_t n;

	for (int i = 0; i < nfds; i++)
		if ((fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
			wire_fail("open /dev/null", errno);
	if (nfds) {
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	n = sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);	/* in flight now, or never sent */
	return n == (ssize_t)len ? 0 : -1;
}

/* Which of the descriptors from @lo on are open: WIRE_FD_SPAN bits */
static void wire_open_fds(int lo, bool open_[WIRE_FD_SPAN])
{
	for (int i = 0; i < WIRE_FD_SPAN; i++)
		open_[i] = fcntl(lo + i, F_GETFD) >= 0;
}

static int wire_lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		wire_fail("open /dev/null", errno);
	close(fd);
	return fd;
}

static int wire_fuzz(const struct wire_ops *w, const uint8_t *data, size_t size)
{
	size_t sent_len[WIRE_MAX_DATAGRAMS];
	bool no_fd[WIRE_MAX_DATAGRAMS], whole[WIRE_MAX_DATAGRAMS];
	int nsent = 0, sv[2], lo = wire_lowest_free_fd();
	bool before[WIRE_FD_SPAN], after[WIRE_FD_SPAN];
	char *buf = calloc(1, 2 * w->msg_size + 1), *m = calloc(1, w->msg_size);

	if (!buf || !m)
		abort();
	wire_open_fds(lo, before);	/* the environment's may lie above the lowest free one */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		wire_fail("socketpair", errno);
	while (size >= 3 && nsent < WIRE_MAX_DATAGRAMS) {
		unsigned flags = data[0];
		size_t len = (data[1] | (size_t)data[2] << 8) % (2 * w->msg_size + 1), take;
		int fd = -1, rc;

		data += 3, size -= 3;
		take = len < size ? len : size;
		memset(buf, 0, len);
		memcpy(buf, data, take);
		data += take, size -= take;
		if (flags & 4) {	/* the sender under test: one message, at most one descriptor */
			len = w->msg_size;
			if ((flags & 3) && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
				wire_fail("open /dev/null", errno);
			rc = w->send(sv[1], buf, fd);
			if (fd >= 0)
				close(fd);
		} else {
			rc = wire_send_raw(sv[1], buf, len, (int)(flags & 3));
		}
		if (rc < 0)
			continue;	/* the socket's buffer is full: not sent */
		no_fd[nsent] = flags & 8;
		whole[nsent] = len == w->msg_size && ((flags & 4) || (flags & 3) <= 1);
		sent_len[nsent++] = len;
	}
	shutdown(sv[1], SHUT_WR);
	for (int i = 0; i < nsent; i++) {
		int fd = -2, rc = w->recv(sv[0], m, no_fd[i] ? NULL : &fd);

		if (rc == 0) {
			if (sent_len[i] != 0)
				wire_fail("end of file before the last datagram", i);
			break;	/* an empty datagram reads as the peer gone */
		}
		if (rc != 1 && rc != -1)
			wire_fail("the receiver's answer is neither 1, 0 nor -1", rc);
		if ((rc == 1) != whole[i])
			wire_fail(rc == 1 ? "a datagram of the wrong size or with descriptors taken as a "
				  "message" : "a whole message refused", (int)sent_len[i]);
		if (no_fd[i])
			continue;
		if (fd == -2)
			wire_fail("the receiver left *fd unset", i);
		if (fd >= 0) {
			int fl = fcntl(fd, F_GETFD);

			if (fl < 0 || !(fl & FD_CLOEXEC))
				wire_fail("a descriptor handed back closed or not close-on-exec", fd);
			close(fd);
		}
	}
	close(sv[0]);
	close(sv[1]);
	wire_open_fds(lo, after);
	for (int i = 0; i < WIRE_FD_SPAN; i++)
		if (after[i] && !before[i])
			wire_fail("a descriptor left open", lo + i);
	free(buf);
	free(m);
	return 0;
}

#endif
