/*
 * The audit supervisor: starts the program under the audit filter, answers
 * every notification -- drop steps failed or let through by the policy,
 * watched actions always let through but recorded when a process carries
 * on with effective uid 0 after a failed drop -- and reaches a verdict.
 *
 * If the supervisor dies, the kernel answers the trapped calls with ENOSYS
 * and the program would run on unsupervised: a watchdog process, holding
 * the other end of a pipe, kills the program's process group as soon as
 * the supervisor's end closes, however it closes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/real/wire.h"
#include "system/procfs.h"
#include "tools/audit/audit.h"
#include "tools/audit/decide.h"

#define NONE 0xffffffffu
#define MAX_PROCS 512

struct proc_state {
	pid_t tgid;
	bool went_on;		/* acted holding uid 0 after a failed drop */
	bool failed;
	double failed_at;
	char failed_call[80];
};

struct supervisor {
	const struct npg_audit_options *o;
	struct npg_audit_result *r;
	int fd;
	pid_t child, watchdog;
	struct proc_state procs[MAX_PROCS];
	int nprocs;
	/* the last drop decision: glibc replays set*id in every thread */
	struct {
		pid_t tgid;
		int nr;
		uint64_t args[3];
		struct npg_audit_decision decision;
		double at;
	} last;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct task_ids {
	pid_t tgid, ppid;
	unsigned uid[4], gid[4];
	uint64_t cap_eff;
};

static int read_ids(pid_t tid, struct task_ids *t)
{
	char path[64], buf[4096];
	const char *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	memset(t, 0, sizeof(*t));
	if ((p = strstr(buf, "\nTgid:")))
		t->tgid = (pid_t)atoi(p + 6);
	if ((p = strstr(buf, "\nPPid:")))
		t->ppid = (pid_t)atoi(p + 6);
	if ((p = strstr(buf, "\nUid:")))
		sscanf(p + 5, "%u %u %u %u", &t->uid[0], &t->uid[1], &t->uid[2], &t->uid[3]);
	if ((p = strstr(buf, "\nGid:")))
		sscanf(p + 5, "%u %u %u %u", &t->gid[0], &t->gid[1], &t->gid[2], &t->gid[3]);
	if ((p = strstr(buf, "\nCapEff:")))
		t->cap_eff = strtoull(p + 8, NULL, 16);
	return t->tgid > 0 ? 0 : -1;
}

static struct proc_state *state_of(struct supervisor *s, pid_t tgid, bool create)
{
	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].tgid == tgid)
			return &s->procs[i];
	if (!create || s->nprocs == MAX_PROCS)
		return NULL;
	s->procs[s->nprocs] = (struct proc_state){ .tgid = tgid };
	return &s->procs[s->nprocs++];
}

/* The failed drop this process, or an ancestor up to the program, carries */
static struct proc_state *failed_drop_of(struct supervisor *s, pid_t tgid)
{
	for (int depth = 0; tgid > 1 && depth < 64; depth++) {
		struct proc_state *p = state_of(s, tgid, false);
		struct task_ids ids;

		if (p && p->failed)
			return p;
		if (tgid == s->child || read_ids(tgid, &ids) < 0)
			return NULL;
		tgid = ids.ppid;
	}
	return NULL;
}

/*
 * The calling thread as the model sees it: ids and capabilities of the
 * thread, RLIMIT_NPROC and PF_NPROC_EXCEEDED, and -- when the policy reads
 * them -- the counts of the users the call may move it to.
 */
static int describe_caller(struct supervisor *s, pid_t tgid, pid_t tid,
			   const struct npg_audit_call *call, struct npg_audit_caller *c)
{
	struct npg_proc_task t;
	npg_id uids[NPG_AUDIT_MAX_COUNTS];
	long counts[NPG_AUDIT_MAX_COUNTS];
	int n;

	memset(c, 0, sizeof(*c));
	if (npg_proc_read_task(tgid, tid, &t) < 0)
		return -1;
	c->uid = (struct npg_ids){ t.uid[0], t.uid[1], t.uid[2], t.uid[3] };
	c->gid = (struct npg_ids){ t.gid[0], t.gid[1], t.gid[2], t.gid[3] };
	c->cap_effective = t.cap_eff;
	c->cap_permitted = t.cap_prm;
	c->cap_bset = t.cap_bnd;
	c->nproc_exceeded = (t.flags & NPG_PF_NPROC_EXCEEDED) != 0;
	if (npg_proc_read_nproc(tgid, &c->nproc_cur, &c->nproc_max) < 0)
		return -1;
	if (!npg_audit_policy_reads_counts(s->o->policy))
		return 0;
	n = npg_audit_count_uids(c, call, uids);
	if (npg_proc_count_by_ruid(uids, n, counts) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		c->counts[i] = (struct npg_count){ .uid = uids[i], .count = counts[i] };
	c->ncounts = n;
	return 0;
}

/* A string argument of the task, read from its memory */
static void read_string(pid_t tid, uint64_t addr, char *buf, size_t len)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(buf, len, "%#llx", (unsigned long long)addr);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = pread(fd, buf + 1, len - 3, (off_t)addr);
	close(fd);
	if (n <= 0) {
		snprintf(buf, len, "%#llx", (unsigned long long)addr);
		return;
	}
	buf[1 + n] = '\0';
	buf[1 + strnlen(buf + 1, (size_t)n)] = '\0';
	buf[0] = '"';
	strcat(buf, "\"");
}

/* Which argument of a watched call is a path, or -1 */
static int path_arg(const char *name)
{
	static const struct {
		const char *name;
		int arg;
	} paths[] = {
		{ "execve", 0 }, { "execveat", 1 }, { "open", 0 }, { "openat", 1 }, { "creat", 0 },
		{ "chmod", 0 }, { "fchmodat", 1 }, { "chown", 0 }, { "lchown", 0 }, { "chown32", 0 },
		{ "lchown32", 0 }, { "fchownat", 1 }, { "unlink", 0 }, { "unlinkat", 1 },
		{ "rename", 0 }, { "renameat", 1 }, { "renameat2", 1 },
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strcmp(paths[i].name, name) == 0)
			return paths[i].arg;
	return -1;
}

/* The socket address a connect()/bind() names: "unix:/dev/log", "inet", ... */
static void read_sockaddr(pid_t tid, uint64_t addr, uint64_t len, char *buf, size_t buflen)
{
	struct sockaddr_un sun = { 0 };
	char path[64];
	int fd;
	ssize_t n;

	snprintf(buf, buflen, "?");
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = pread(fd, &sun, len < sizeof(sun) ? (size_t)len : sizeof(sun), (off_t)addr);
	close(fd);
	if (n < (ssize_t)sizeof(sa_family_t))
		return;
	if (sun.sun_family == AF_UNIX)
		snprintf(buf, buflen, "unix:%.*s", (int)sizeof(sun.sun_path) - 1, sun.sun_path);
	else if (sun.sun_family == AF_INET)
		snprintf(buf, buflen, "inet");
	else if (sun.sun_family == AF_INET6)
		snprintf(buf, buflen, "inet6");
	else
		snprintf(buf, buflen, "family %d", sun.sun_family);
}

static void record_finding(struct supervisor *s, const struct seccomp_notif *req, const char *name,
			   const struct proc_state *failed, const struct task_ids *t)
{
	struct npg_finding *f = &s->r->finding;
	int p = path_arg(name);
	char path[256];

	f->pid = (pid_t)req->pid;
	for (int i = 0; i < 3; i++)
		f->uids[i] = t->uid[i];
	snprintf(f->syscall, sizeof(f->syscall), "%s", name);
	if (p >= 0) {
		read_string((pid_t)req->pid, req->data.args[p], path, sizeof(path));
		snprintf(f->args, sizeof(f->args), "%s%s", path,
			 strncmp(name, "open", 4) == 0 || strcmp(name, "creat") == 0 ? ", for writing" : "");
	} else if (strcmp(name, "connect") == 0 || strcmp(name, "bind") == 0) {
		read_sockaddr((pid_t)req->pid, req->data.args[1], req->data.args[2], path, sizeof(path));
		snprintf(f->args, sizeof(f->args), "%lld, %s", (long long)req->data.args[0], path);
	} else {
		snprintf(f->args, sizeof(f->args), "%lld, %lld", (long long)req->data.args[0],
			 (long long)req->data.args[1]);
	}
	f->seconds_after = now() - failed->failed_at;
	npg_symbolize((pid_t)req->pid, req->data.instruction_pointer, f->where, sizeof(f->where));
	snprintf(f->failed_call, sizeof(f->failed_call), "%s", failed->failed_call);
	/* only now is the record trusted: the task could have died and its pid been reused */
	if (seccomp_notify_id_valid(s->fd, req->id) == 0)
		s->r->found = true;
}

/*
 * Logging to the local syslog socket is not acting for anyone: the
 * hardening library itself does it on its way to aborting.
 */
static bool logs_to_syslog(const char *name, const struct seccomp_notif *req)
{
	char where[128];

	if (strcmp(name, "connect") != 0)
		return false;
	read_sockaddr((pid_t)req->pid, req->data.args[1], req->data.args[2], where, sizeof(where));
	return strcmp(where, "unix:/dev/log") == 0;
}

/*
 * A signal to its own thread group is no action on anyone else: glibc
 * itself sends SIGSETXID to every thread to replay a set*id call.
 */
static bool signals_itself(const char *name, const struct seccomp_notif *req,
			   const struct task_ids *t)
{
	pid_t target = (pid_t)req->data.args[0];

	if (strcmp(name, "tgkill") == 0)
		return target == t->tgid;
	if (strcmp(name, "kill") == 0)
		return target == t->tgid || target == 0;
	if (strcmp(name, "tkill") == 0) {
		struct task_ids other;

		return read_ids(target, &other) == 0 && other.tgid == t->tgid;
	}
	return false;
}

/* An id as the call gave it: unsigned, and -1 for "leave unchanged" */
static int print_id(char *buf, size_t len, npg_id id)
{
	return id == NPG_ID_NONE ? snprintf(buf, len, "-1") : snprintf(buf, len, "%u", id);
}

/* "setresuid(-1, 3700000300, -1)": ids above 2^31-1 are uids too, not negative numbers */
static void describe_call(const char *name, const struct npg_audit_call *call, const uint64_t *a,
			  char *buf, size_t len)
{
	int nids = call->kind == NPG_CALL_SETRESUID ? 3 : call->kind == NPG_CALL_SETREUID ? 2 : 1;
	size_t n;

	if (call->kind == NPG_CALL_SETGROUPS) {
		snprintf(buf, len, "%s(%u groups)", name, (unsigned)a[0]);
		return;
	}
	snprintf(buf, len, "%s(", name);
	for (int i = 0; i < nids; i++) {
		char id[16];

		print_id(id, sizeof(id), call->id[i]);
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s", i ? ", " : "", id);
	}
	n = strlen(buf);
	snprintf(buf + n, len - n, ")");
}

/* A trapped set*id call: the model decides; drops and failures are counted */
static void handle_setid(struct supervisor *s, const struct seccomp_notif *req, const char *name,
			 const uint64_t *args, const struct npg_audit_call *call, pid_t tgid,
			 struct seccomp_notif_resp *resp)
{
	uint64_t key[3] = { args[0], args[1], args[2] };
	bool same = s->last.tgid == tgid && s->last.nr == req->data.nr &&
		    memcmp(s->last.args, key, sizeof(key)) == 0 && now() - s->last.at < 2.0;
	struct npg_audit_decision d;

	if (same) {
		d = s->last.decision;	/* another thread of the same call: the same answer */
	} else {
		struct npg_audit_caller c;

		/* a thread that is gone, or a model that cannot be built: the kernel decides */
		if (describe_caller(s, tgid, (pid_t)req->pid, call, &c) < 0 ||
		    npg_audit_decide(s->o->policy, &s->o->model, s->r->failed, &c, call, &d) < 0 ||
		    d.action == NPG_AUDIT_PASS)
			return;
		s->r->drops++;
		s->last.tgid = tgid;
		s->last.nr = req->data.nr;
		memcpy(s->last.args, key, sizeof(key));
		s->last.decision = d;
		s->last.at = now();
		if (d.action != NPG_AUDIT_ALLOW) {
			struct proc_state *p = state_of(s, tgid, true);

			if (s->r->failed++ == 0)
				describe_call(name, call, args, s->r->first_failed,
					      sizeof(s->r->first_failed));
			if (p && !p->failed) {
				p->failed = true;
				p->failed_at = now();
				describe_call(name, call, args, p->failed_call,
					      sizeof(p->failed_call));
			}
			if (d.action == NPG_AUDIT_KILL &&
			    seccomp_notify_id_valid(s->fd, req->id) == 0) {
				/* seed 003: force_sig(SIGSEGV, current) */
				kill(tgid, SIGSEGV);
				s->r->killed_pid = tgid;
			}
		}
	}
	if (d.action == NPG_AUDIT_FAIL || d.action == NPG_AUDIT_KILL) {
		resp->flags = 0;
		if (d.returns_id) {
			resp->error = 0;
			resp->val = d.id;
		} else {
			resp->error = -d.error;
			resp->val = -1;
		}
	}
}

/* Still holds root after its failed drop: effective uid 0, or a real or saved uid 0 to take back */
static bool holds_root(const struct task_ids *t)
{
	return t->uid[0] == 0 || t->uid[1] == 0 || t->uid[2] == 0;
}

static bool already_went_on(struct supervisor *s, pid_t tgid)
{
	struct proc_state *p = state_of(s, tgid, false);

	return p && p->went_on;
}

/* Counted once per process; past MAX_PROCS processes the count is a lower bound */
static void went_on(struct supervisor *s, pid_t tgid)
{
	struct proc_state *p = state_of(s, tgid, true);

	if (p && !p->went_on) {
		p->went_on = true;
		s->r->went_on_as_root++;
	}
}

static void handle(struct supervisor *s, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	char *name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
	struct npg_audit_call call;
	struct task_ids t;
	uint64_t args[6];

	resp->id = req->id;
	resp->val = 0;
	resp->error = 0;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	s->r->notifications++;
	if (!name || read_ids((pid_t)req->pid, &t) < 0)
		goto out;
	for (int i = 0; i < 6; i++)
		args[i] = req->data.args[i];
	if (npg_audit_call_of(name, args, req->data.arch == SCMP_ARCH_X86, &call)) {
		handle_setid(s, req, name, args, &call, t.tgid, resp);
	} else if (holds_root(&t) && !already_went_on(s, t.tgid) && !signals_itself(name, req, &t) &&
		   !logs_to_syslog(name, req)) {
		struct proc_state *failed = failed_drop_of(s, t.tgid);

		if (failed) {
			went_on(s, t.tgid);
			if (!s->r->found)
				record_finding(s, req, name, failed, &t);
		}
	}
out:
	free(name);
}

/* A child of ours other than the watchdog: orphans that left the program's group (@kill: kill them all) */
static bool other_children(const struct supervisor *s, bool kill_them)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	bool found = false;
	pid_t self = getpid();

	if (!proc)
		return false;
	while ((kill_them || !found) && (e = readdir(proc))) {
		struct task_ids t;
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid > 0 && pid != s->watchdog && read_ids(pid, &t) == 0 && t.ppid == self) {
			found = true;
			if (kill_them)
				kill(pid, SIGKILL);
		}
	}
	closedir(proc);
	return found;
}

static void reaped(struct supervisor *s, pid_t pid, int status)
{
	if (pid == s->child) {
		s->r->exit_status = status;
		s->r->exited = true;
	}
}

/* Reap what exited; is any process of the program left? */
static bool anything_left(struct supervisor *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0)
		reaped(s, pid, status);
	return kill(-s->child, 0) == 0 || other_children(s, false);
}

/*
 * The end of a run: the watchdog has killed the program's group; processes
 * that left the group (setsid daemons) are ours as subreaper and are killed
 * here, round after round, as their own children are handed to us in turn.
 */
static void kill_leftovers(struct supervisor *s)
{
	int status;
	pid_t pid;

	kill(-s->child, SIGKILL);	/* the watchdog does it too; this does not depend on it */
	for (;;) {
		/* everything waited for below has been sent SIGKILL: no wait can hang */
		other_children(s, true);
		pid = waitpid(-1, &status, __WALL);
		if (pid > 0)
			reaped(s, pid, status);
		else if (errno != EINTR)
			return;	/* ECHILD: nothing left */
	}
}

/* The program's execvp(): EOF when it ran, an errno when it could not */
static void read_exec_result(struct supervisor *s, int sock)
{
	int err = 0;

	if (recv(sock, &err, sizeof(err), MSG_DONTWAIT) == (ssize_t)sizeof(err))
		s->r->exec_errno = err;
}

/*
 * One verdict, the most telling first: nothing ran; the policy killed it;
 * it went on as root; the run was cut short (what it would have done later
 * is unknown); it never dropped; it was safe.
 */
static enum npg_verdict verdict_of(const struct npg_audit_result *r)
{
	if (r->exec_errno)
		return NPG_VERDICT_CANNOT_EXECUTE;
	if (r->killed_pid)
		return NPG_VERDICT_KILLED;
	if (r->found)
		return NPG_VERDICT_VULNERABLE;
	if (r->timed_out)
		return NPG_VERDICT_TIMED_OUT;
	if (r->drops == 0)
		return NPG_VERDICT_NO_DROP;
	return NPG_VERDICT_SAFE;
}

static void start_watchdog(struct supervisor *s, int lifeline[2])
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		close(lifeline[1]);
		close(s->fd);
		while (read(lifeline[0], &c, 1) < 0 && errno == EINTR)
			;
		kill(-s->child, SIGKILL);
		_exit(0);
	}
	s->watchdog = pid;
	close(lifeline[0]);
}

int npg_audit_run(const struct npg_audit_options *o, struct npg_audit_result *r)
{
	struct supervisor s = { .o = o, .r = r, .fd = -1 };
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	int sv[2], lifeline[2];
	struct npg_wire_msg m;
	double deadline;

	memset(r, 0, sizeof(*r));
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(lifeline, O_CLOEXEC) < 0) {
		snprintf(r->error, sizeof(r->error), "setting up: %s", strerror(errno));
		return -1;
	}
	s.child = fork();
	if (s.child < 0) {
		snprintf(r->error, sizeof(r->error), "fork: %s", strerror(errno));
		return -1;
	}
	if (s.child == 0) {
		struct npg_wire_msg hello = { .kind = NPG_WIRE_HELLO };
		int fd;

		setpgid(0, 0);	/* the watchdog kills this group */
		close(sv[0]);
		fd = npg_audit_load_filter();
		if (fd < 0)
			_exit(111);
		if (npg_wire_send(sv[1], &hello, fd) < 0)
			_exit(111);
		close(fd);
		/* wait for the supervisor to hold the listener before running anything */
		if (npg_wire_recv(sv[1], &hello, NULL) <= 0)
			_exit(111);
		/* sv[1] is close-on-exec: the supervisor reads EOF when the program
		 * runs, or the errno of an execvp() that could not run it */
		execvp(o->argv[0], o->argv);
		int err = errno;

		send(sv[1], &err, sizeof(err), MSG_NOSIGNAL);
		_exit(err == ENOENT ? 127 : 126);
	}
	setpgid(s.child, s.child);
	close(sv[1]);
	if (npg_wire_recv(sv[0], &m, &s.fd) <= 0 || s.fd < 0) {
		snprintf(r->error, sizeof(r->error), "the program could not load the audit filter");
		kill(s.child, SIGKILL);
		waitpid(s.child, NULL, 0);
		return -1;
	}
	start_watchdog(&s, lifeline);
	npg_wire_send(sv[0], &m, -1);	/* go */
	if (seccomp_notify_alloc(&req, &resp) < 0) {
		snprintf(r->error, sizeof(r->error), "seccomp_notify_alloc failed");
		close(sv[0]);
		close(lifeline[1]);
		kill_leftovers(&s);
		return -1;
	}
	deadline = now() + (o->timeout > 0 ? o->timeout : 60);
	for (;;) {
		struct pollfd p[2] = { { .fd = s.fd, .events = POLLIN }, { .fd = sv[0], .events = POLLIN } };
		int n = poll(p, 2, 20);

		if (n > 0 && (p[0].revents & POLLIN)) {
			memset(req, 0, sizeof(*req));
			if (seccomp_notify_receive(s.fd, req) == 0) {
				handle(&s, req, resp);
				/* ENOENT: the task died meanwhile -- nothing to answer */
				seccomp_notify_respond(s.fd, resp);
			}
			continue;
		}
		if (n > 0 && p[1].revents) {
			read_exec_result(&s, sv[0]);
			close(sv[0]);
			sv[0] = -1;	/* poll ignores it from now on */
			continue;
		}
		if (now() > deadline) {
			r->timed_out = true;
			break;
		}
		if (!anything_left(&s))
			break;
	}
	if (sv[0] >= 0)
		close(sv[0]);
	if (r->timed_out)
		snprintf(r->error, sizeof(r->error), "timed out after %g s: the program was killed",
			 o->timeout);
	else if (r->exec_errno)
		snprintf(r->error, sizeof(r->error), "could not execute %s: %s", o->argv[0],
			 strerror(r->exec_errno));
	/* the lifeline: the watchdog kills what is left of the program's group */
	close(lifeline[1]);
	close(s.fd);
	kill_leftovers(&s);
	seccomp_notify_free(req, resp);
	r->verdict = verdict_of(r);
	return 0;
}
