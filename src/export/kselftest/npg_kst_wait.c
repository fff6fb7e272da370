/*
 * Waiting, in slices that notice an interruption or the test's timeout:
 * a signal that ends the test is acted on within 100 ms, whatever the
 * controller was waiting for.
 */
#include "npg_kst.h"

#include <errno.h>

/* An interruption or the test's timeout: clean up and end now */
void kst_check_stop(void)
{
	if (kst_stop_sig && !kst_tearing_down)
		kst_finish_stopped();
}

long kst_elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

void kst_nap_ms(long ms)
{
	struct timespec t = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&t, NULL);
	kst_check_stop();
}

/* poll() for up to @ms, in slices that notice an interruption: as poll() */
int kst_poll_slices(struct pollfd *p, int n, long ms)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int r;

		kst_check_stop();
		r = poll(p, (nfds_t)n, 100);
		if (r > 0 || (r < 0 && errno != EINTR))
			return r;
		if (kst_elapsed_ms(&start) >= ms) {
			errno = ETIMEDOUT;
			return 0;
		}
	}
}

/* One answer within ANSWER_TIMEOUT_MS: 1, 0 on EOF, -1 (ETIMEDOUT) */
int kst_recv_timed(int sock, struct msg *m, int *fd)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int n = kst_poll_slices(&p, 1, ANSWER_TIMEOUT_MS);

	if (n == 0)
		errno = ETIMEDOUT;
	if (n <= 0)
		return -1;
	return kst_recv_msg(sock, m, fd);
}
