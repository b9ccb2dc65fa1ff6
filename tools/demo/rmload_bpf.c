// SPDX-License-Identifier: GPL-2.0
/*
 * sk_reuseport programs of rmload (the `make demo` load program).
 *
 * workers: REUSEPORT_SOCKARRAY, slot i = the listener of worker i (each worker inserts itself
 * after listen(); the kernel removes a listener from the array when it is closed).
 *
 * rm_migrate (SEC "sk_reuseport/migrate", expected_attach_type SELECT_OR_MIGRATE), mode bpf:
 *   plain SYN (migrating_sk == NULL): slot hash % nworkers, probing forward over empty slots;
 *   migration (migrating_sk != NULL): the closing listener's slot is found by its socket
 *   cookie (cookie_slot, filled by the workers); the request goes to the next live slot
 *   after it.  Nothing selected: SK_PASS without a socket, the kernel falls back to its hash.
 * rm_select (SEC "sk_reuseport", SELECT only), mode drain: the same hash selection over the
 *   array; a draining worker deletes itself from the array, so new SYNs no longer reach it.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#define RM_MAX_WORKERS 64
#define TCP_ESTABLISHED 1
#define TCP_SYN_RECV 3
#define TCP_NEW_SYN_RECV 12

/* stats slots, read by rmload after the run */
enum {
	ST_SYN_SELECTED,	/* plain SYN steered to a slot */
	ST_SYN_FALLBACK,	/* plain SYN, no live slot: kernel hash */
	ST_MIG_ESTABLISHED,	/* accept-queue child migrated (close of the listener) */
	ST_MIG_SYN_RECV,	/* SYN_RECV full socket (fastopen) migrated */
	ST_MIG_REQUEST,		/* request socket migrated (ACK or SYN+ACK retransmit) */
	ST_MIG_FALLBACK,	/* migration, no live slot found: kernel hash */
	ST_MIG_NOSLOT,		/* closing listener's cookie unknown: probed from the hash */
	ST_MAX,
};

struct {
	__uint(type, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY);
	__uint(max_entries, RM_MAX_WORKERS);
	__type(key, __u32);
	__type(value, __u64);
} workers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);	/* socket cookie of a listener */
	__type(value, __u32);	/* its worker slot */
} cookie_slot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ST_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

const volatile __u32 nworkers = 1;

static __always_inline void count(__u32 what)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &what);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* select the first live slot at start, start+1, ... (mod nworkers); 1 if one was selected */
static __always_inline int select_from(struct sk_reuseport_md *md, __u32 start)
{
	__u32 n = nworkers, i, key;

	if (n == 0 || n > RM_MAX_WORKERS)
		return 0;
	for (i = 0; i < RM_MAX_WORKERS; i++) {
		if (i >= n)
			break;
		key = (start + i) % n;
		if (bpf_sk_select_reuseport(md, &workers, &key, 0) == 0)
			return 1;
	}
	return 0;
}

SEC("sk_reuseport/migrate")
int rm_migrate(struct sk_reuseport_md *md)
{
	struct bpf_sock *msk = md->migrating_sk;
	__u64 cookie;
	__u32 *slot, start, state;

	if (!msk) {
		count(select_from(md, md->hash % nworkers) ? ST_SYN_SELECTED : ST_SYN_FALLBACK);
		return SK_PASS;
	}

	state = msk->state;
	cookie = bpf_get_socket_cookie(md->sk);
	slot = bpf_map_lookup_elem(&cookie_slot, &cookie);
	if (slot) {
		start = *slot + 1;
	} else {
		start = md->hash % nworkers;
		count(ST_MIG_NOSLOT);
	}
	if (!select_from(md, start)) {
		count(ST_MIG_FALLBACK);
		return SK_PASS;
	}
	if (state == TCP_ESTABLISHED)
		count(ST_MIG_ESTABLISHED);
	else if (state == TCP_SYN_RECV)
		count(ST_MIG_SYN_RECV);
	else
		count(ST_MIG_REQUEST);
	return SK_PASS;
}

SEC("sk_reuseport")
int rm_select(struct sk_reuseport_md *md)
{
	count(select_from(md, md->hash % nworkers) ? ST_SYN_SELECTED : ST_SYN_FALLBACK);
	return SK_PASS;
}

char _license[] SEC("license") = "GPL";
