// SPDX-License-Identifier: GPL-2.0
/*
 * rmload: rolling-restart load program of `make demo` (reuseport-migrate).
 *
 * W worker processes each own one SO_REUSEPORT listener on a loopback port and answer every
 * connection with a fixed-size reply.  A client process keeps C connections in flight (each
 * connects, writes a request, reads the whole reply until EOF, with a deadline).  The
 * controller restarts the workers one after another K times: the old worker closes its
 * listener and exits, then a new one listens in its slot.  Every run gets its own network
 * namespace, so the sysctls a mode sets do not leak into the next run.
 *
 * Modes: off (tcp_migrate_req=0), sysctl (=1), bpf (sk_reuseport/migrate program steering
 * migrated requests to the next live worker), drain (user-space workaround: the closing worker
 * removes itself from the sk_reuseport program's socket array, accepts until its queue stays
 * empty, then closes; migration off), cost (close() time of a listener holding Q children,
 * migration on vs off), synrate (connection rate with W listeners and no restarts).
 *
 * One machine-readable line per run: RESULT ... / COST ... (see --help).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rmload_bpf.skel.h"

#ifndef SO_ATTACH_REUSEPORT_EBPF
#define SO_ATTACH_REUSEPORT_EBPF 52
#endif
#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

#define MAX_WORKERS 64
#define REQ_LEN 16

enum mode { M_OFF, M_SYSCTL, M_BPF, M_DRAIN, M_COST, M_SYNRATE, M_NR };
static const char *const mode_name[M_NR] = { "off", "sysctl", "bpf", "drain", "cost", "synrate" };

static struct opts {
	int modes[M_NR * 2], nmodes;
	int families[4], nfamilies;
	int workers, clients, restarts, interval_ms, warmup_ms, cooldown_ms, duration_ms;
	long connections;
	int rate, timeout_ms, backlog, reply_bytes, port;
	int drain_quiet_ms, drain_max_ms;
	int cost_q[16], ncost_q, cost_reps;
	int synrate_ms, migrate;
	int verbose;
} o = {
	.workers = 4, .clients = 16, .restarts = 20, .interval_ms = 100, .warmup_ms = 200,
	.cooldown_ms = 200, .timeout_ms = 3000, .backlog = 128, .reply_bytes = 64, .port = 7777,
	.drain_quiet_ms = 50, .drain_max_ms = 3000, .cost_reps = 1, .synrate_ms = 2000,
	.migrate = -1,
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: rmload [OPTIONS]\n"
"Rolling restart of SO_REUSEPORT TCP listeners under load; run as root, ideally in a VM.\n"
"Each run (mode x family) runs in its own network namespace (unshare(CLONE_NEWNET), lo up)\n"
"and sets net.ipv4.tcp_migrate_req there.\n"
"\n"
"  --mode LIST         comma list of modes, or 'all' (= off,sysctl,bpf,drain) [all];\n"
"                      when --mode, --family or --cost-q is given twice, the last one counts\n"
"                        off      tcp_migrate_req=0: a closing listener resets its queue\n"
"                        sysctl   tcp_migrate_req=1: the kernel migrates it by hash\n"
"                        bpf      sk_reuseport/migrate program + REUSEPORT_SOCKARRAY:\n"
"                                 migrated requests go to the next live worker, SYNs by hash\n"
"                        drain    user-space workaround, migration off: the closing worker\n"
"                                 leaves the sk_reuseport program's array, accepts until its\n"
"                                 queue stayed empty --drain-quiet-ms, then closes\n"
"                        cost     close() of a listener holding Q established children,\n"
"                                 tcp_migrate_req 0 vs 1, for each Q of --cost-q\n"
"                        synrate  connections/s with W listeners, no restarts\n"
"  --family LIST       4, 6 or 4,6 (127.0.0.1 / ::1) [4]\n"
"  --workers W         listener processes, 2..%d [%d]\n"
"  --clients C         connections kept in flight [%d]\n"
"  --restarts K        worker restarts per run (round robin); -1 = keep restarting until\n"
"                      --duration-ms and --connections are reached [%d]\n"
"  --interval-ms MS    pause after each restart [%d]\n"
"  --warmup-ms MS      load before the first restart [%d]\n"
"  --cooldown-ms MS    load after the last restart [%d]\n"
"  --duration-ms MS    minimum load time of a run (0: warmup + restarts + cooldown) [0]\n"
"  --connections N     the client starts exactly N connections; the run lasts until they\n"
"                      are done (0: no limit, the run ends after the restarts) [0]\n"
"  --rate R            at most R new connections/s (0: closed loop, C always in flight) [0]\n"
"  --timeout-ms MS     deadline of one connection (connect+request+reply) [%d]\n"
"  --backlog N         listen() backlog of each worker [%d]\n"
"  --reply-bytes N     size of a reply, 8..65536 [%d]\n"
"  --port P            TCP port [%d]\n"
"  --drain-quiet-ms MS drain: close once accept() found nothing for MS [%d]\n"
"  --drain-max-ms MS   drain: close after MS whatever the queue [%d]\n"
"  --cost-q LIST       cost: children per listener [100,1000,10000]\n"
"  --cost-reps N       cost: repetitions of each measurement, the median is reported [%d]\n"
"  --synrate-ms MS     synrate: load time [%d]\n"
"  --migrate 0|1       synrate: tcp_migrate_req during the run (default: both, one line each)\n"
"  -v, --verbose       progress on stderr\n"
"  -h, --help          this text\n"
"\n"
"Output, one line per run on stdout:\n"
"  RESULT mode= family= workers= clients= restarts= tcp_migrate_req= attempted= answered=\n"
"         failed= fail_pct= reset= refused= timeout= short= short_empty= other=\n"
"         restart_p50_ms= restart_p99_ms= restart_max_ms= conn_p50_ms= conn_p99_ms= load_ms=\n"
"         conn_per_s= migrate_ok= migrate_fail= listen_overflows= listen_drops=\n"
"         srv_accepted= srv_replied= srv_noreq_tmo= srv_noreq_eof= srv_noreq_err=\n"
"         srv_write_err= [bpf_* counters] cpus=\n"
"  migrate_ok/fail, listen_*: TcpExt TCPMigrateReq{Success,Failure}, Listen{Overflows,Drops}\n"
"  deltas of the run's netns.  srv_*: server side; srv_noreq_*: accepted connections closed\n"
"  without a request (1 s wait elapsed, EOF, error).  short_empty: EOF before any reply byte.\n"
"  COST family= q= migrate= close_us= per_child_us= moved= migrate_ok= migrate_fail=\n"
"  restart_*_ms: from telling the old worker to stop until its successor listens.\n"
"  conn_*_ms: connect to the end of the reply, answered connections.\n"
"  failed = reset (ECONNRESET/EPIPE) + refused (ECONNREFUSED) + timeout (deadline or\n"
"  ETIMEDOUT) + short (EOF before the full reply, or a wrong reply) + other (other errno).\n"
"Exit status: 0 all runs completed, 1 a run failed to set up, 2 bad usage.\n",
		MAX_WORKERS, o.workers, o.clients, o.restarts, o.interval_ms, o.warmup_ms,
		o.cooldown_ms, o.timeout_ms, o.backlog, o.reply_bytes, o.port, o.drain_quiet_ms,
		o.drain_max_ms, o.cost_reps, o.synrate_ms);
}

static void __attribute__((noreturn, format(printf, 1, 2))) bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rmload: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'rmload --help'.\n");
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	fprintf(stderr, "rmload[%d]: error: ", getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (e && strchr(fmt, '%') == NULL)
		fprintf(stderr, ": %s", strerror(e));
	fprintf(stderr, "\n");
	exit(1);
}

#define vlog(...) do { if (o.verbose) { fprintf(stderr, "rmload: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

static long parse_num(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		bad_usage("%s: '%s' is not a number", opt, s);
	if (v < min || v > max)
		bad_usage("%s: %ld is out of range %ld..%ld", opt, v, min, max);
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of n sorted values */
static uint32_t pct(const uint32_t *v, size_t n, double p)
{
	size_t k;

	if (!n)
		return 0;
	k = (size_t)(p / 100.0 * n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

/* ---------------------------------------------------------------- netns and sysctls */

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static void sysctl_set(const char *name, const char *val, int must)
{
	char path[256];

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (char *p = path + 10; *p; p++)
		if (*p == '.')
			*p = '/';
	if (write_file(path, val) && must)
		die("cannot set %s=%s: %s", name, val, strerror(errno));
}

static void new_netns(void)
{
	struct ifreq ifr = { 0 };
	int fd;

	if (unshare(CLONE_NEWNET))
		die("unshare(CLONE_NEWNET) (root and CONFIG_NET_NS needed): %s", strerror(errno));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		die("SIOCGIFFLAGS lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		die("SIOCSIFFLAGS lo up");
	close(fd);
}

/* TcpExt counter from /proc/net/netstat of the current netns, -1 if absent */
static long long tcpext(const char *name)
{
	static char buf[16384];
	char *names, *vals, *sn, *sv, *n, *v;
	long long ret = -1;
	ssize_t len;
	int fd;

	fd = open("/proc/net/netstat", O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	names = strstr(buf, "TcpExt:");
	if (!names)
		return -1;
	vals = strstr(names + 1, "TcpExt:");
	if (!vals)
		return -1;
	*strchr(names, '\n') = 0;
	n = strtok_r(names + 7, " \n", &sn);
	v = strtok_r(vals + 7, " \n", &sv);
	for (; n && v; n = strtok_r(NULL, " \n", &sn), v = strtok_r(NULL, " \n", &sv))
		if (!strcmp(n, name)) {
			ret = atoll(v);
			break;
		}
	return ret;
}

struct tcpext_snap { long long mig_ok, mig_fail, overflows, drops; };

static void snap(struct tcpext_snap *s)
{
	s->mig_ok = tcpext("TCPMigrateReqSuccess");
	s->mig_fail = tcpext("TCPMigrateReqFailure");
	s->overflows = tcpext("ListenOverflows");
	s->drops = tcpext("ListenDrops");
}

/* ---------------------------------------------------------------- sockets */

static socklen_t make_addr(int family, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == 4) {
		struct sockaddr_in *s = (void *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		s->sin6_addr = in6addr_loopback;
		return sizeof(*s);
	}
}

static int make_listener(int family, int port, int backlog)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, port, &ss);
	int one = 1, fd;

	fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
	    (family == 6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (void *)&ss, len) || listen(fd, backlog)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int listener_queue(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return -1;
	return ti.tcpi_unacked;
}

/* ---------------------------------------------------------------- shared state of a run */

struct shm {
	int stop;		/* controller -> client: start no more connections, finish */
	long started;		/* client -> controller: connections started so far */
	int done;
	long attempted, answered, reset, refused, timeout, shortr, other;
	int other_errno;
	long short_empty;	/* short: EOF before any byte of the reply */
	uint32_t conn_p50_us, conn_p99_us;
	uint64_t load_ns;
	/* server side, all workers (atomic adds) */
	long srv_accepted, srv_replied, srv_noreq_tmo, srv_noreq_eof, srv_noreq_err, srv_write_err;
	int srv_noreq_errno;
};

struct run {
	int mode, family;
	int migrate_sysctl;	/* value of net.ipv4.tcp_migrate_req in this run */
	struct shm *shm;
	struct rmload_bpf *skel;
	int prog_fd, map_fd, cookie_fd;
	pid_t pid[MAX_WORKERS];
	int ctl[MAX_WORKERS];	/* write end: one byte = stop */
	int ready[MAX_WORKERS];	/* read end: 'R' = listening */
	int restarts;		/* restarts planned (-1 = until the other limits) */
	int load_ms;		/* minimum load time */
};

/* ---------------------------------------------------------------- worker */

static char *reply_buf;
static struct shm *g_shm;

#define SRV_INC(field) __atomic_add_fetch(&g_shm->field, 1, __ATOMIC_RELAXED)

/* answer one connection: read the request line (1 s at most), write the reply, close */
static void serve(int cfd, int slot)
{
	char req[256];
	struct pollfd p = { .fd = cfd, .events = POLLIN };
	ssize_t n, got = 0, off = 0;

	SRV_INC(srv_accepted);
	/* the request: read until '\n' (or EOF / 1 s) */
	while (got < (ssize_t)sizeof(req)) {
		if (poll(&p, 1, 1000) <= 0) {
			SRV_INC(srv_noreq_tmo);
			goto out;
		}
		n = read(cfd, req + got, sizeof(req) - got);
		if (n == 0) {
			SRV_INC(srv_noreq_eof);
			goto out;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			g_shm->srv_noreq_errno = errno;
			SRV_INC(srv_noreq_err);
			goto out;
		}
		got += n;
		if (memchr(req, '\n', got))
			break;
	}
	(void)slot;
	p.events = POLLOUT;
	while (off < o.reply_bytes) {
		n = write(cfd, reply_buf + off, o.reply_bytes - off);
		if (n < 0 && errno == EAGAIN) {
			if (poll(&p, 1, 1000) <= 0)
				break;
			continue;
		}
		if (n <= 0)
			break;
		off += n;
	}
	if (off == o.reply_bytes)
		SRV_INC(srv_replied);
	else
		SRV_INC(srv_write_err);
out:
	close(cfd);
}

static void worker_drain(struct run *r, int lfd, int slot)
{
	uint64_t t0 = now_ns(), last = t0;
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	/* new SYNs: the program no longer finds us in the array */
	if (bpf_map_delete_elem(r->map_fd, &slot) && errno != ENOENT)
		fprintf(stderr, "rmload: worker %d: deleting its array slot: %s\n", slot, strerror(errno));
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		uint64_t t = now_ns();

		if (c >= 0) {
			serve(c, slot);
			last = now_ns();
			continue;
		}
		if (t - last >= (uint64_t)o.drain_quiet_ms * 1000000 && listener_queue(lfd) == 0)
			break;
		if (t - t0 >= (uint64_t)o.drain_max_ms * 1000000)
			break;
		poll(&p, 1, 1);
	}
}

static void worker_main(struct run *r, int slot, int ctl_fd, int ready_fd)
{
	int lfd = make_listener(r->family, o.port, o.backlog);
	struct pollfd p[2];
	char c = 'R';

	g_shm = r->shm;
	reply_buf = malloc(o.reply_bytes);
	memset(reply_buf, '.', o.reply_bytes);
	memcpy(reply_buf, "OK ", 3);
	reply_buf[o.reply_bytes - 1] = '\n';

	if (lfd < 0) {
		fprintf(stderr, "rmload: worker %d: listen on port %d: %s\n", slot, o.port, strerror(errno));
		c = 'E';
	} else if (r->prog_fd >= 0) {
		__u64 fd64 = lfd, cookie;
		socklen_t len = sizeof(cookie);
		__u32 s = slot;

		if (setsockopt(lfd, SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &r->prog_fd, sizeof(int))) {
			fprintf(stderr, "rmload: worker %d: SO_ATTACH_REUSEPORT_EBPF: %s\n", slot, strerror(errno));
			c = 'E';
		} else if (bpf_map_update_elem(r->map_fd, &s, &fd64, BPF_ANY)) {
			fprintf(stderr, "rmload: worker %d: REUSEPORT_SOCKARRAY update: %s\n", slot, strerror(errno));
			c = 'E';
		} else if (getsockopt(lfd, SOL_SOCKET, SO_COOKIE, &cookie, &len) ||
			   bpf_map_update_elem(r->cookie_fd, &cookie, &s, BPF_ANY)) {
			fprintf(stderr, "rmload: worker %d: cookie map: %s\n", slot, strerror(errno));
			c = 'E';
		}
	}
	if (write(ready_fd, &c, 1) != 1 || c != 'R')
		_exit(1);
	close(ready_fd);

	p[0] = (struct pollfd){ .fd = ctl_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents)
			break;
		if (p[1].revents & POLLIN) {
			int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (cfd >= 0)
				serve(cfd, slot);
		}
	}
	if (r->mode == M_DRAIN)
		worker_drain(r, lfd, slot);
	close(lfd);	/* off: resets the queue; sysctl/bpf: migrates it */
	_exit(0);
}

static int spawn_worker(struct run *r, int slot)
{
	int ctl[2], rdy[2];
	pid_t pid;
	char c = 0;

	if (pipe2(ctl, O_CLOEXEC) || pipe2(rdy, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (int i = 0; i < MAX_WORKERS; i++) {
			if (r->ctl[i] >= 0)
				close(r->ctl[i]);
			if (r->ready[i] >= 0)
				close(r->ready[i]);
		}
		close(ctl[1]);
		close(rdy[0]);
		worker_main(r, slot, ctl[0], rdy[1]);
	}
	close(ctl[0]);
	close(rdy[1]);
	r->pid[slot] = pid;
	r->ctl[slot] = ctl[1];
	r->ready[slot] = rdy[0];
	if (read(rdy[0], &c, 1) != 1 || c != 'R') {
		fprintf(stderr, "rmload: worker %d did not start\n", slot);
		return -1;
	}
	return 0;
}

/* tell worker slot to stop and wait for it (SIGKILL after 20 s) */
static void stop_worker(struct run *r, int slot)
{
	uint64_t t0 = now_ns();
	char c = 'q';
	int st;

	if (r->pid[slot] <= 0)
		return;
	if (write(r->ctl[slot], &c, 1) != 1)
		fprintf(stderr, "rmload: stopping worker %d: %s\n", slot, strerror(errno));
	for (;;) {
		pid_t p = waitpid(r->pid[slot], &st, WNOHANG);

		if (p == r->pid[slot] || (p < 0 && errno != EINTR))
			break;
		if (now_ns() - t0 > 20000000000ull) {
			fprintf(stderr, "rmload: worker %d hangs, killing it\n", slot);
			kill(r->pid[slot], SIGKILL);
			waitpid(r->pid[slot], &st, 0);
			break;
		}
		usleep(200);
	}
	close(r->ctl[slot]);
	close(r->ready[slot]);
	r->ctl[slot] = r->ready[slot] = -1;
	r->pid[slot] = 0;
}

/* ---------------------------------------------------------------- client */

enum { C_FREE, C_CONNECTING, C_READING };
enum { R_ANSWERED, R_RESET, R_REFUSED, R_TIMEOUT, R_SHORT, R_OTHER };

struct conn {
	int fd, state;
	long got;
	int bad;
	uint64_t t0, deadline;
};

struct client {
	struct run *r;
	struct conn *c;
	int ep, inflight;
	long count[6], short_empty;
	int other_errno;
	uint32_t *lat;
	size_t nlat, caplat;
	struct sockaddr_storage dst;
	socklen_t dstlen;
	char req[REQ_LEN];
};

static int classify(int err)
{
	switch (err) {
	case ECONNRESET:
	case EPIPE:
		return R_RESET;
	case ECONNREFUSED:
		return R_REFUSED;
	case ETIMEDOUT:
		return R_TIMEOUT;
	default:
		return R_OTHER;
	}
}

static void finish(struct client *cl, struct conn *c, int res, int err)
{
	cl->count[res]++;
	if (res == R_OTHER)
		cl->other_errno = err;
	if (res == R_ANSWERED) {
		if (cl->nlat == cl->caplat) {
			cl->caplat = cl->caplat ? cl->caplat * 2 : 65536;
			cl->lat = realloc(cl->lat, cl->caplat * sizeof(*cl->lat));
			if (!cl->lat)
				die("out of memory");
		}
		cl->lat[cl->nlat++] = (uint32_t)((now_ns() - c->t0) / 1000);
	}
	close(c->fd);
	c->fd = -1;
	c->state = C_FREE;
	cl->inflight--;
}

static void send_request(struct client *cl, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
	ssize_t n = send(c->fd, cl->req, REQ_LEN, MSG_NOSIGNAL);

	if (n != REQ_LEN) {
		finish(cl, c, n < 0 ? classify(errno) : R_OTHER, n < 0 ? errno : EMSGSIZE);
		return;
	}
	c->state = C_READING;
	if (epoll_ctl(cl->ep, EPOLL_CTL_MOD, c->fd, &ev))
		die("epoll_ctl mod");
}

static void start_conn(struct client *cl, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };

	c->t0 = now_ns();
	c->deadline = c->t0 + (uint64_t)o.timeout_ms * 1000000;
	c->got = 0;
	c->bad = 0;
	c->fd = socket(cl->r->family == 4 ? AF_INET : AF_INET6,
		       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		die("client socket");
	cl->inflight++;
	c->state = C_CONNECTING;
	if (epoll_ctl(cl->ep, EPOLL_CTL_ADD, c->fd, &ev))
		die("epoll_ctl add");
	if (connect(c->fd, (void *)&cl->dst, cl->dstlen) == 0)
		send_request(cl, c);
	else if (errno != EINPROGRESS)
		finish(cl, c, classify(errno), errno);
}

static void on_event(struct client *cl, struct conn *c, uint32_t events)
{
	char buf[65536];

	if (c->state == C_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err)
			finish(cl, c, classify(err), err);
		else if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			send_request(cl, c);
		return;
	}
	for (;;) {
		ssize_t n = read(c->fd, buf, sizeof(buf));

		if (n > 0) {
			if (c->got == 0 && (n < 3 || memcmp(buf, "OK ", 3)))
				c->bad = 1;
			c->got += n;
			continue;
		}
		if (n == 0) {
			if (c->got == 0)
				cl->short_empty++;
			finish(cl, c, c->got == o.reply_bytes && !c->bad ? R_ANSWERED : R_SHORT, 0);
			return;
		}
		if (errno == EAGAIN)
			return;
		if (errno == EINTR)
			continue;
		finish(cl, c, classify(errno), errno);
		return;
	}
}

static void client_main(struct run *r)
{
	struct client cl = { .r = r };
	struct shm *s = r->shm;
	struct epoll_event evs[128];
	uint64_t period = o.rate ? 1000000000ull / o.rate : 0, next = now_ns(), t_start = now_ns();
	long started = 0;
	int stopping = 0;

	cl.c = calloc(o.clients, sizeof(*cl.c));
	cl.ep = epoll_create1(EPOLL_CLOEXEC);
	if (!cl.c || cl.ep < 0)
		die("client setup");
	cl.dstlen = make_addr(r->family, o.port, &cl.dst);
	memset(cl.req, ' ', REQ_LEN);
	memcpy(cl.req, "GET", 3);
	cl.req[REQ_LEN - 1] = '\n';
	for (int i = 0; i < o.clients; i++)
		cl.c[i].fd = -1;

	for (;;) {
		uint64_t t = now_ns();
		int n, tmo = 5;

		if (!stopping && __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
			stopping = 1;
		for (int i = 0; !stopping && i < o.clients; i++) {
			if (cl.c[i].state != C_FREE)
				continue;
			if (o.connections && started >= o.connections)
				break;
			if (period) {
				if (t < next)
					break;
				next += period;
				if (next + period * 4 < t)	/* do not burst after a stall */
					next = t;
			}
			start_conn(&cl, &cl.c[i]);
			started++;
		}
		__atomic_store_n(&s->started, started, __ATOMIC_RELEASE);
		if (stopping && cl.inflight == 0)
			break;
		if (period && next > t)
			tmo = (int)((next - t) / 1000000) + 1;
		if (tmo > 5)
			tmo = 5;
		n = epoll_wait(cl.ep, evs, 128, tmo);
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (c->state != C_FREE)
				on_event(&cl, c, evs[i].events);
		}
		t = now_ns();
		for (int i = 0; i < o.clients; i++)
			if (cl.c[i].state != C_FREE && t > cl.c[i].deadline)
				finish(&cl, &cl.c[i], R_TIMEOUT, 0);
	}

	qsort(cl.lat, cl.nlat, sizeof(*cl.lat), cmp_u32);
	s->answered = cl.count[R_ANSWERED];
	s->reset = cl.count[R_RESET];
	s->refused = cl.count[R_REFUSED];
	s->timeout = cl.count[R_TIMEOUT];
	s->shortr = cl.count[R_SHORT];
	s->other = cl.count[R_OTHER];
	s->other_errno = cl.other_errno;
	s->short_empty = cl.short_empty;
	s->attempted = 0;
	for (int i = 0; i < 6; i++)
		s->attempted += cl.count[i];
	s->conn_p50_us = pct(cl.lat, cl.nlat, 50);
	s->conn_p99_us = pct(cl.lat, cl.nlat, 99);
	s->load_ns = now_ns() - t_start;
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	_exit(0);
}

/* ---------------------------------------------------------------- one load run */

static const char *const bpf_stat_name[] = {
	"bpf_syn_selected", "bpf_syn_fallback", "bpf_mig_established", "bpf_mig_syn_recv",
	"bpf_mig_request", "bpf_mig_fallback", "bpf_mig_noslot",
};

static int load_bpf(struct run *r)
{
	struct bpf_program *prog;

	r->skel = rmload_bpf__open();
	if (!r->skel)
		die("opening the BPF object: %s", strerror(errno));
	r->skel->rodata->nworkers = o.workers;
	/* load only the program the mode attaches */
	bpf_program__set_autoload(r->skel->progs.rm_migrate, r->mode == M_BPF);
	bpf_program__set_autoload(r->skel->progs.rm_select, r->mode == M_DRAIN);
	if (rmload_bpf__load(r->skel))
		die("loading the BPF programs: %s", strerror(errno));
	prog = r->mode == M_BPF ? r->skel->progs.rm_migrate : r->skel->progs.rm_select;
	r->prog_fd = bpf_program__fd(prog);
	r->map_fd = bpf_map__fd(r->skel->maps.workers);
	r->cookie_fd = bpf_map__fd(r->skel->maps.cookie_slot);
	return 0;
}

static void run_load(int mode, int family, int migrate)
{
	struct run rr = { .mode = mode, .family = family, .prog_fd = -1, .map_fd = -1, .cookie_fd = -1 };
	struct run *r = &rr;
	struct tcpext_snap a, b;
	uint32_t *lat = NULL;
	size_t nlat = 0, caplat = 0;
	uint64_t t_begin, t_load_end;
	pid_t client;
	int st, k = 0;
	char extra[512] = "";

	r->migrate_sysctl = mode == M_SYSCTL || (mode == M_SYNRATE && migrate);
	r->restarts = mode == M_SYNRATE ? 0 : o.restarts;
	for (int i = 0; i < MAX_WORKERS; i++)
		r->ctl[i] = r->ready[i] = -1;

	new_netns();
	sysctl_set("net.ipv4.tcp_migrate_req", r->migrate_sysctl ? "1" : "0", 1);
	sysctl_set("net.core.somaxconn", "65535", 0);
	sysctl_set("net.ipv4.ip_local_port_range", "10000 65001", 0);
	r->shm = mmap(NULL, sizeof(struct shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->shm == MAP_FAILED)
		die("mmap");
	if (mode == M_BPF || mode == M_DRAIN)
		load_bpf(r);

	snap(&a);
	for (int i = 0; i < o.workers; i++)
		if (spawn_worker(r, i))
			die("starting worker %d failed", i);
	vlog("%s/%d: %d workers listening", mode_name[mode], family, o.workers);

	client = fork();
	if (client < 0)
		die("fork");
	if (client == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (int i = 0; i < o.workers; i++) {
			close(r->ctl[i]);
			close(r->ready[i]);
		}
		client_main(r);
	}

	t_begin = now_ns();
	sleep_ms(mode == M_SYNRATE ? o.synrate_ms : o.warmup_ms);
	for (;;) {
		uint64_t t0, t1;
		int slot = k % o.workers;
		int elapsed = (int)((now_ns() - t_begin) / 1000000);
		int conns_done = !o.connections ||
			__atomic_load_n(&r->shm->started, __ATOMIC_ACQUIRE) >= o.connections;

		if (r->restarts >= 0 && k >= r->restarts)
			break;
		if (r->restarts < 0 && elapsed >= o.duration_ms && conns_done)
			break;
		t0 = now_ns();
		stop_worker(r, slot);
		if (spawn_worker(r, slot))
			die("restarting worker %d failed", slot);
		t1 = now_ns();
		if (nlat == caplat) {
			caplat = caplat ? caplat * 2 : 1024;
			lat = realloc(lat, caplat * sizeof(*lat));
			if (!lat)
				die("out of memory");
		}
		lat[nlat++] = (uint32_t)((t1 - t0) / 1000);
		k++;
		if (o.verbose && k % 100 == 0)
			vlog("%s/%d: %d restarts, %ld connections", mode_name[mode], family, k,
			     __atomic_load_n(&r->shm->started, __ATOMIC_ACQUIRE));
		sleep_ms(o.interval_ms);
	}
	if (mode != M_SYNRATE)
		sleep_ms(o.cooldown_ms);
	/* keep the load up for --duration-ms and until --connections were started */
	while ((int)((now_ns() - t_begin) / 1000000) < o.duration_ms ||
	       (o.connections && __atomic_load_n(&r->shm->started, __ATOMIC_ACQUIRE) < o.connections))
		sleep_ms(5);
	__atomic_store_n(&r->shm->stop, 1, __ATOMIC_RELEASE);
	if (waitpid(client, &st, 0) != client || !WIFEXITED(st) || st || !r->shm->done)
		die("the client process failed (status %d)", st);
	t_load_end = now_ns();
	(void)t_load_end;
	for (int i = 0; i < o.workers; i++)
		stop_worker(r, i);
	snap(&b);

	if (r->skel) {
		size_t off = 0;

		for (__u32 i = 0; i < sizeof(bpf_stat_name) / sizeof(*bpf_stat_name); i++) {
			__u64 v = 0;

			bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.stats), &i, &v);
			off += snprintf(extra + off, sizeof(extra) - off, " %s=%llu", bpf_stat_name[i],
					(unsigned long long)v);
		}
	}
	if (r->shm->other)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " other_errno=%d",
			 r->shm->other_errno);
	if (r->shm->srv_noreq_err)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " srv_noreq_errno=%d",
			 r->shm->srv_noreq_errno);

	qsort(lat, nlat, sizeof(*lat), cmp_u32);
	{
		struct shm *s = r->shm;
		long failed = s->reset + s->refused + s->timeout + s->shortr + s->other;
		double load_s = s->load_ns / 1e9;

		printf("RESULT mode=%s family=%d workers=%d clients=%d restarts=%d tcp_migrate_req=%d"
		       " attempted=%ld answered=%ld failed=%ld fail_pct=%.4f reset=%ld refused=%ld"
		       " timeout=%ld short=%ld short_empty=%ld other=%ld restart_p50_ms=%.2f restart_p99_ms=%.2f"
		       " restart_max_ms=%.2f conn_p50_ms=%.2f conn_p99_ms=%.2f load_ms=%.0f"
		       " conn_per_s=%.0f migrate_ok=%lld migrate_fail=%lld listen_overflows=%lld"
		       " listen_drops=%lld srv_accepted=%ld srv_replied=%ld srv_noreq_tmo=%ld"
		       " srv_noreq_eof=%ld srv_noreq_err=%ld srv_write_err=%ld%s cpus=%ld\n",
		       mode_name[mode], family, o.workers, o.clients, k, r->migrate_sysctl,
		       s->attempted, s->answered, failed,
		       s->attempted ? 100.0 * failed / s->attempted : 0.0,
		       s->reset, s->refused, s->timeout, s->shortr, s->short_empty, s->other,
		       pct(lat, nlat, 50) / 1000.0, pct(lat, nlat, 99) / 1000.0,
		       nlat ? lat[nlat - 1] / 1000.0 : 0.0,
		       s->conn_p50_us / 1000.0, s->conn_p99_us / 1000.0, load_s * 1000,
		       load_s > 0 ? s->attempted / load_s : 0.0,
		       b.mig_ok - a.mig_ok, b.mig_fail - a.mig_fail, b.overflows - a.overflows,
		       b.drops - a.drops, s->srv_accepted, s->srv_replied, s->srv_noreq_tmo,
		       s->srv_noreq_eof, s->srv_noreq_err, s->srv_write_err, extra,
		       sysconf(_SC_NPROCESSORS_ONLN));
		fflush(stdout);
	}
	if (r->skel)
		rmload_bpf__destroy(r->skel);
	exit(0);
}

/* ---------------------------------------------------------------- cost: close() of a full listener */

struct cost_res { double close_us; long moved; long long mig_ok, mig_fail; int ok; };

static void cost_once(int family, int q, int migrate, struct cost_res *res)
{
	struct rlimit rl = { q + 1024, q + 1024 };
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, o.port, &ss);
	struct tcpext_snap a, b;
	int la, lb, *cfd, ok = 0;
	uint64_t t0, t1, deadline;
	char buf[32];

	new_netns();
	snprintf(buf, sizeof(buf), "%d", migrate);
	sysctl_set("net.ipv4.tcp_migrate_req", buf, 1);
	sysctl_set("net.core.somaxconn", "65535", 1);
	sysctl_set("net.ipv4.tcp_max_syn_backlog", "65535", 0);
	sysctl_set("net.ipv4.ip_local_port_range", "10000 65001", 0);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE, %d): %s", q + 1024, strerror(errno));

	la = make_listener(family, o.port, q + 16);
	if (la < 0)
		die("cost: listener: %s", strerror(errno));
	cfd = calloc(q, sizeof(int));
	for (int i = 0; i < q; i++) {
		cfd[i] = socket(family == 4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (cfd[i] < 0)
			die("cost: socket %d: %s", i, strerror(errno));
		if (connect(cfd[i], (void *)&ss, len) && errno != EINPROGRESS)
			die("cost: connect %d: %s", i, strerror(errno));
	}
	deadline = now_ns() + 60000000000ull;
	while (listener_queue(la) < q && now_ns() < deadline)
		sleep_ms(2);
	if (listener_queue(la) != q)
		die("cost: only %d of %d children reached the accept queue", listener_queue(la), q);
	lb = make_listener(family, o.port, q + 16);	/* the sibling that receives them */
	if (lb < 0)
		die("cost: second listener: %s", strerror(errno));

	snap(&a);
	t0 = now_ns();
	close(la);
	t1 = now_ns();
	sleep_ms(5);
	snap(&b);
	res->close_us = (t1 - t0) / 1000.0;
	res->moved = listener_queue(lb);
	res->mig_ok = b.mig_ok - a.mig_ok;
	res->mig_fail = b.mig_fail - a.mig_fail;
	ok = migrate ? res->moved == q : res->moved == 0;
	res->ok = ok;
	/* the netns goes away with this process */
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int run_cost(int family)
{
	int fail = 0;

	for (int qi = 0; qi < o.ncost_q; qi++) {
		for (int migrate = 0; migrate <= 1; migrate++) {
			int q = o.cost_q[qi], reps = o.cost_reps;
			struct cost_res *res = mmap(NULL, sizeof(*res) * reps, PROT_READ | PROT_WRITE,
						    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			double us[64];
			long moved = 0;
			long long mok = 0, mfail = 0;
			int allok = 1;

			for (int i = 0; i < reps; i++) {
				pid_t p = fork();
				int st;

				if (p == 0) {
					cost_once(family, q, migrate, &res[i]);
					_exit(0);
				}
				if (p < 0 || waitpid(p, &st, 0) != p || st) {
					fprintf(stderr, "rmload: cost q=%d migrate=%d failed\n", q, migrate);
					allok = 0;
					res[i].close_us = 0;
				}
				us[i] = res[i].close_us;
				moved = res[i].moved;
				mok = res[i].mig_ok;
				mfail = res[i].mig_fail;
				allok &= res[i].ok;
			}
			qsort(us, reps, sizeof(double), cmp_dbl);
			printf("COST family=%d q=%d migrate=%d close_us=%.0f per_child_us=%.3f moved=%ld"
			       " migrate_ok=%lld migrate_fail=%lld reps=%d check=%s cpus=%ld\n",
			       family, q, migrate, us[reps / 2], us[reps / 2] / q, moved, mok, mfail,
			       reps, allok ? "ok" : "FAILED", sysconf(_SC_NPROCESSORS_ONLN));
			fflush(stdout);
			fail |= !allok;
			munmap(res, sizeof(*res) * reps);
		}
	}
	return fail;
}

/* ---------------------------------------------------------------- main */

static void parse_list(const char *opt, const char *arg, void (*add)(const char *opt, const char *item))
{
	char *s = strdup(arg), *save, *t;

	if (!*s)
		bad_usage("%s: empty list", opt);
	for (t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save))
		add(opt, t);
	free(s);
}

static void add_mode(const char *opt, const char *m)
{
	if (!strcmp(m, "all")) {
		for (int i = M_OFF; i <= M_DRAIN; i++)
			add_mode(opt, mode_name[i]);
		return;
	}
	for (int i = 0; i < M_NR; i++)
		if (!strcmp(m, mode_name[i])) {
			if (o.nmodes >= (int)(sizeof(o.modes) / sizeof(*o.modes)))
				bad_usage("%s: too many modes", opt);
			o.modes[o.nmodes++] = i;
			return;
		}
	bad_usage("%s: unknown mode '%s' (off, sysctl, bpf, drain, cost, synrate, all)", opt, m);
}

static void add_family(const char *opt, const char *f)
{
	if (o.nfamilies >= 4)
		bad_usage("%s: too many families", opt);
	o.families[o.nfamilies++] = (int)parse_num(opt, f, 4, 6);
	if (o.families[o.nfamilies - 1] == 5)
		bad_usage("%s: family is 4 or 6", opt);
}

static void add_q(const char *opt, const char *q)
{
	if (o.ncost_q >= 16)
		bad_usage("%s: at most 16 values", opt);
	o.cost_q[o.ncost_q++] = (int)parse_num(opt, q, 1, 1000000);
}

int main(int argc, char **argv)
{
	enum { O_MODE = 256, O_FAMILY, O_WORKERS, O_CLIENTS, O_RESTARTS, O_INTERVAL, O_WARMUP,
	       O_COOLDOWN, O_DURATION, O_CONNECTIONS, O_RATE, O_TIMEOUT, O_BACKLOG, O_REPLY,
	       O_PORT, O_DQUIET, O_DMAX, O_COSTQ, O_COSTREPS, O_SYNRATE, O_MIGRATE };
	static const struct option lo[] = {
		{ "mode", required_argument, 0, O_MODE },
		{ "family", required_argument, 0, O_FAMILY },
		{ "workers", required_argument, 0, O_WORKERS },
		{ "clients", required_argument, 0, O_CLIENTS },
		{ "restarts", required_argument, 0, O_RESTARTS },
		{ "interval-ms", required_argument, 0, O_INTERVAL },
		{ "warmup-ms", required_argument, 0, O_WARMUP },
		{ "cooldown-ms", required_argument, 0, O_COOLDOWN },
		{ "duration-ms", required_argument, 0, O_DURATION },
		{ "connections", required_argument, 0, O_CONNECTIONS },
		{ "rate", required_argument, 0, O_RATE },
		{ "timeout-ms", required_argument, 0, O_TIMEOUT },
		{ "backlog", required_argument, 0, O_BACKLOG },
		{ "reply-bytes", required_argument, 0, O_REPLY },
		{ "port", required_argument, 0, O_PORT },
		{ "drain-quiet-ms", required_argument, 0, O_DQUIET },
		{ "drain-max-ms", required_argument, 0, O_DMAX },
		{ "cost-q", required_argument, 0, O_COSTQ },
		{ "cost-reps", required_argument, 0, O_COSTREPS },
		{ "synrate-ms", required_argument, 0, O_SYNRATE },
		{ "migrate", required_argument, 0, O_MIGRATE },
		{ "verbose", no_argument, 0, 'v' },
		{ "help", no_argument, 0, 'h' },
		{ 0 }
	};
	int c, fail = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vh", lo, NULL)) != -1) {
		const char *n = optind > 1 ? argv[optind - 1] : "";

		switch (c) {
		case O_MODE: o.nmodes = 0; parse_list("--mode", optarg, add_mode); break;
		case O_FAMILY: o.nfamilies = 0; parse_list("--family", optarg, add_family); break;
		case O_WORKERS: o.workers = parse_num("--workers", optarg, 2, MAX_WORKERS); break;
		case O_CLIENTS: o.clients = parse_num("--clients", optarg, 1, 20000); break;
		case O_RESTARTS: o.restarts = parse_num("--restarts", optarg, -1, INT_MAX); break;
		case O_INTERVAL: o.interval_ms = parse_num("--interval-ms", optarg, 0, 3600000); break;
		case O_WARMUP: o.warmup_ms = parse_num("--warmup-ms", optarg, 0, 3600000); break;
		case O_COOLDOWN: o.cooldown_ms = parse_num("--cooldown-ms", optarg, 0, 3600000); break;
		case O_DURATION: o.duration_ms = parse_num("--duration-ms", optarg, 0, 86400000); break;
		case O_CONNECTIONS: o.connections = parse_num("--connections", optarg, 0, LONG_MAX); break;
		case O_RATE: o.rate = parse_num("--rate", optarg, 0, 10000000); break;
		case O_TIMEOUT: o.timeout_ms = parse_num("--timeout-ms", optarg, 1, 3600000); break;
		case O_BACKLOG: o.backlog = parse_num("--backlog", optarg, 1, 65535); break;
		case O_REPLY: o.reply_bytes = parse_num("--reply-bytes", optarg, 8, 65536); break;
		case O_PORT: o.port = parse_num("--port", optarg, 1, 65535); break;
		case O_DQUIET: o.drain_quiet_ms = parse_num("--drain-quiet-ms", optarg, 0, 3600000); break;
		case O_DMAX: o.drain_max_ms = parse_num("--drain-max-ms", optarg, 1, 3600000); break;
		case O_COSTQ: o.ncost_q = 0; parse_list("--cost-q", optarg, add_q); break;
		case O_COSTREPS: o.cost_reps = parse_num("--cost-reps", optarg, 1, 63); break;
		case O_SYNRATE: o.synrate_ms = parse_num("--synrate-ms", optarg, 1, 3600000); break;
		case O_MIGRATE: o.migrate = parse_num("--migrate", optarg, 0, 1); break;
		case 'v': o.verbose = 1; break;
		case 'h': usage(stdout); return 0;
		case ':': bad_usage("option '%s' needs a value", n);
		default: bad_usage("unknown option '%s'", n);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (!o.nmodes)
		add_mode("--mode", "all");
	if (!o.nfamilies)
		o.families[o.nfamilies++] = 4;
	if (!o.ncost_q) {
		o.cost_q[0] = 100, o.cost_q[1] = 1000, o.cost_q[2] = 10000;
		o.ncost_q = 3;
	}
	if (o.restarts < 0 && !o.duration_ms && !o.connections)
		bad_usage("--restarts -1 needs --duration-ms or --connections to end");
	if (geteuid() != 0)
		fprintf(stderr, "rmload: warning: not root, unshare(CLONE_NEWNET) will fail\n");
	signal(SIGPIPE, SIG_IGN);
	{	/* room for --clients sockets */
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)o.clients + 256) {
			rl.rlim_cur = (rlim_t)o.clients + 256;
			if (rl.rlim_max < rl.rlim_cur)
				rl.rlim_max = rl.rlim_cur;	/* root may raise it */
			if (setrlimit(RLIMIT_NOFILE, &rl))
				fprintf(stderr, "rmload: warning: RLIMIT_NOFILE %ld: %s\n",
					(long)rl.rlim_cur, strerror(errno));
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (int mi = 0; mi < o.nmodes; mi++) {
		for (int fi = 0; fi < o.nfamilies; fi++) {
			int mode = o.modes[mi], family = o.families[fi];

			if (mode == M_COST) {
				fail |= run_cost(family);
				continue;
			}
			for (int m = 0; m <= 1; m++) {
				pid_t p;
				int st;

				if (mode == M_SYNRATE ? (o.migrate >= 0 && m != o.migrate) : m)
					continue;
				p = fork();
				if (p < 0)
					die("fork");
				if (p == 0)
					run_load(mode, family, m);
				if (waitpid(p, &st, 0) != p || st) {
					fprintf(stderr, "rmload: run mode=%s family=%d failed\n",
						mode_name[mode], family);
					printf("RESULT mode=%s family=%d error=1\n", mode_name[mode], family);
					fail = 1;
				}
			}
		}
	}
	return fail;
}
