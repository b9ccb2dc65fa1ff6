// SPDX-License-Identifier: GPL-2.0
/*
 * rm-attach: turn on migration for the SO_REUSEPORT group of a running server by BPF.
 *
 *   rm-attach PID PORT
 *
 * Finds a TCP socket of process PID listening on PORT (the inodes of LISTEN sockets in
 * /proc/net/tcp and /proc/net/tcp6 against the socket:[inode] links of /proc/PID/fd), takes a
 * copy of it with pidfd_open() + pidfd_getfd(), loads a minimal BPF_PROG_TYPE_SK_REUSEPORT
 * program with expected_attach_type BPF_SK_REUSEPORT_SELECT_OR_MIGRATE ("sk_reuseport/migrate")
 * and attaches it to the socket's reuseport group with setsockopt(SO_ATTACH_REUSEPORT_EBPF).
 * The group holds the program; it stays attached after rm-attach exits, for every listener
 * that joins the group later (a restarted server's), until the group's last listener closes.
 *
 * The program is "return SK_PASS" without bpf_sk_select_reuseport(): the kernel then picks a
 * listener by hash, for new connections and for migrated ones (reuseport_migrate_sock() in
 * net/core/sock_reuseport.c).  Its attach type alone makes the group migrate the requests of
 * a closing listener, whatever net.ipv4.tcp_migrate_req says.  Two instructions, so no
 * compiler or libbpf is needed: the program is given as bytecode.
 *
 * Exit 0 when attached; 1 with a message on stderr otherwise.  Built statically by
 * tools/demo/run-servers.sh.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SO_ATTACH_REUSEPORT_EBPF
#define SO_ATTACH_REUSEPORT_EBPF 52
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rm-attach: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Collect the inodes of the LISTEN (state 0A) sockets on PORT from one /proc/net file. */
static int listen_inodes(const char *path, unsigned int port, unsigned long *ino, int n, int max)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return n;	/* no IPv6 in this kernel */
	if (!fgets(line, sizeof(line), f)) {	/* header */
		fclose(f);
		return n;
	}
	while (n < max && fgets(line, sizeof(line), f)) {
		char local[80], remote[80], *colon;
		unsigned int st, lport;
		unsigned long inode;

		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*s %79s %79s %x %*s %*s %*s %*u %*u %lu", local, remote, &st,
			   &inode) != 4)
			continue;
		colon = strrchr(local, ':');
		if (!colon || sscanf(colon + 1, "%x", &lport) != 1)
			continue;
		if (st == 0x0A && lport == port && inode)
			ino[n++] = inode;
	}
	fclose(f);
	return n;
}

/* The first fd of PID that is one of the sockets INO[0..N). */
static int find_fd(pid_t pid, const unsigned long *ino, int n, unsigned long *found)
{
	char dir[64], path[PATH_MAX], link[128];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d)
		die("cannot open %s: %s (is %d running?)", dir, strerror(errno), pid);
	while ((de = readdir(d))) {
		unsigned long inode;
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		if (sscanf(link, "socket:[%lu]", &inode) != 1)
			continue;
		for (int i = 0; i < n; i++) {
			if (ino[i] == inode) {
				closedir(d);
				*found = inode;
				return atoi(de->d_name);
			}
		}
	}
	closedir(d);
	return -1;
}

static int load_prog(void)
{
	/* r0 = SK_PASS; exit */
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = SK_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char logbuf[4096];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SK_REUSEPORT;
	attr.expected_attach_type = BPF_SK_REUSEPORT_SELECT_OR_MIGRATE;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)logbuf;
	attr.log_size = sizeof(logbuf);
	attr.log_level = 1;
	strncpy(attr.prog_name, "rm_attach_pass", sizeof(attr.prog_name) - 1);
	fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		die("BPF_PROG_LOAD (sk_reuseport/migrate): %s%s%s", strerror(errno),
		    logbuf[0] ? "; verifier: " : "", logbuf);
	return fd;
}

int main(int argc, char **argv)
{
	unsigned long ino[256], inode = 0;
	int n, fd, pidfd, sfd, prog;
	char *end;
	long pid, port;

	if (argc != 3)
		die("usage: rm-attach PID PORT");
	pid = strtol(argv[1], &end, 10);
	if (*end || pid <= 0)
		die("bad PID '%s'", argv[1]);
	port = strtol(argv[2], &end, 10);
	if (*end || port <= 0 || port > 65535)
		die("bad PORT '%s'", argv[2]);

	n = listen_inodes("/proc/net/tcp", port, ino, 0, 256);
	n = listen_inodes("/proc/net/tcp6", port, ino, n, 256);
	if (!n)
		die("no TCP socket listens on port %ld", port);
	fd = find_fd(pid, ino, n, &inode);
	if (fd < 0)
		die("process %ld holds none of the %d listening sockets on port %ld", pid, n, port);

	pidfd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pidfd < 0)
		die("pidfd_open(%ld): %s", pid, strerror(errno));
	sfd = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (sfd < 0)
		die("pidfd_getfd(%ld, fd %d): %s", pid, fd, strerror(errno));

	prog = load_prog();
	if (setsockopt(sfd, SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &prog, sizeof(prog)))
		die("setsockopt(SO_ATTACH_REUSEPORT_EBPF) on pid %ld fd %d: %s", pid, fd,
		    strerror(errno));
	printf("rm-attach: sk_reuseport/migrate program attached to the reuseport group of "
	       "port %ld through pid %ld fd %d (socket inode %lu)\n", port, pid, fd, inode);
	return 0;
}
