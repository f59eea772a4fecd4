// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* mcp-scan's syscall tracer: system calls of the traced process tree (and of a pid namespace),
 * with their arguments, path strings, socket addresses and bounded payload excerpts, plus
 * fork/exec/exit, through one ring buffer. Attached as BTF tracepoints (tp_btf), which need no
 * tracefs. The record layout is mirrored in src/ebpf.rs (`RecHeader`). */
#include "kernel.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define NR_MAX 512
#define CAP 4096 /* bytes of blobs per record */
#define STR_MAX 512 /* the largest single read; data[] has this much slack past CAP */
#define ARG_STR_MAX 256
#define ARGV_MAX 24
#define PAYLOAD_MAX 256
#define ARGV_AREA_MAX 496
#define SOCKADDR_MAX 128
#define BLOBS_MAX 8

/* R_CALL: a whole call (entry arguments, result); R_ENTER/R_EXIT: exec and exit, recorded at
 * entry (their result, if any, follows as R_EXIT). */
enum rec_kind { R_ENTER = 1, R_EXIT = 2, R_FORK = 3, R_EXEC = 4, R_TASK_EXIT = 5, R_CALL = 6 };
enum blob_kind { B_STR = 1, B_SOCKADDR = 2, B_PAYLOAD = 3, B_ARGV = 4, B_OPEN_HOW = 5 };
/* rec_hdr.flags */
#define F_TRUNCATED 1   /* a blob was cut to its bound or skipped for room */
#define F_UNREADABLE 2  /* a user pointer could not be read (page not resident, bad pointer) */
#define F_FD_MODE 4     /* fd_mode holds the i_mode of the file behind args[0] */

struct rec_hdr {
	u32 kind;
	u32 nr;
	u32 tgid;
	u32 tid;
	u64 ts;      /* entry */
	u64 ts_exit; /* R_CALL: return */
	u64 args[6];
	s64 ret;
	u32 fd_mode;
	u32 flags;
	u16 nblobs;
	u16 used; /* bytes of data[] filled */
	u16 pad[2];
	u16 blob_kind[BLOBS_MAX];
	u16 blob_len[BLOBS_MAX];
};

struct rec {
	struct rec_hdr h;
	u8 data[CAP + STR_MAX];
};

/* Set before load: the pid namespace whose processes are traced (0: none). */
const volatile u32 pidns_inum = 0;
/* Set before load: queued bytes above which a record wakes the reader. */
const volatile u64 wake_bytes = 1 << 20;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR_MAX);
	__type(key, u32);
	__type(value, u8);
} traced_nr SEC(".maps");

/* Thread groups traced: seeded from user space, grown at fork, shrunk when a group dies. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u32);
	__type(value, u8);
} tracked SEC(".maps");

/* Calls in flight, by thread: their entry time and arguments until they return. */
struct call {
	u64 ts;
	u64 args[7]; /* the six arguments, then the syscall number */
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u32);
	__type(value, struct call);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 * 1024 * 1024);
} events SEC(".maps");

/* 0: records lost (ring buffer or in-flight table full), 1: records sent, 2: user reads that
 * failed. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct rec);
} scratch SEC(".maps");

static __always_inline void count(u32 idx)
{
	u64 *v = bpf_map_lookup_elem(&stats, &idx);
	if (v)
		*v += 1;
}

static __always_inline bool is_tracked(u32 tgid)
{
	return bpf_map_lookup_elem(&tracked, &tgid) != 0;
}

static __always_inline u32 task_pidns_inum(struct task_struct *t)
{
	struct pid *p = BPF_CORE_READ(t, thread_pid);
	unsigned int level = BPF_CORE_READ(p, level);
	struct upid up = {};
	bpf_core_read(&up, sizeof(up), &p->numbers[level & 31]);
	return BPF_CORE_READ(up.ns, ns.inum);
}

/* Whether the current process is traced: tracked already, or in the traced pid namespace (then
 * tracked from now on; this catches processes that were in it before the tracer started). */
static __always_inline bool current_traced(u32 tgid)
{
	if (is_tracked(tgid))
		return true;
	if (!pidns_inum)
		return false;
	if (task_pidns_inum((struct task_struct *)bpf_get_current_task()) != pidns_inum)
		return false;
	u8 one = 1;
	bpf_map_update_elem(&tracked, &tgid, &one, BPF_ANY);
	return true;
}

static __always_inline struct rec *begin(u32 kind, u32 nr)
{
	u32 zero = 0;
	struct rec *r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	u64 pt = bpf_get_current_pid_tgid();
	r->h.kind = kind;
	r->h.nr = nr;
	r->h.tgid = pt >> 32;
	r->h.tid = (u32)pt;
	r->h.ts = bpf_ktime_get_boot_ns();
	r->h.ts_exit = 0;
	r->h.ret = 0;
	r->h.fd_mode = 0;
	r->h.flags = 0;
	r->h.nblobs = 0;
	r->h.used = 0;
	return r;
}

/* Offset of the next blob. */
static __always_inline u32 used(struct rec *r)
{
	return r->h.used;
}

static __always_inline void add_blob(struct rec *r, u16 kind, u32 len)
{
	u32 n = r->h.nblobs;
	if (n >= BLOBS_MAX)
		return;
	/* the barrier keeps the mask, which the verifier needs where clang merged paths */
	barrier_var(n);
	n &= BLOBS_MAX - 1;
	r->h.blob_kind[n] = kind;
	r->h.blob_len[n] = len;
	r->h.nblobs = n + 1;
	r->h.used += len;
}

static __always_inline void user_str(struct rec *r, const void *ptr)
{
	u32 off = used(r);
	if (off + STR_MAX > CAP || r->h.nblobs >= BLOBS_MAX) {
		/* an empty blob keeps the later strings at their argument's place */
		r->h.flags |= F_TRUNCATED;
		add_blob(r, B_STR, 0);
		return;
	}
	if (!ptr) { /* NULL: an optional path left out */
		add_blob(r, B_STR, 0);
		return;
	}
	barrier_var(off);
	long n = bpf_probe_read_user_str(&r->data[off & (CAP - 1)], STR_MAX, ptr);
	if (n <= 0) {
		r->h.flags |= F_UNREADABLE;
		count(2);
		add_blob(r, B_STR, 0);
		return;
	}
	if (n >= STR_MAX)
		r->h.flags |= F_TRUNCATED;
	add_blob(r, B_STR, n);
}

static __always_inline void user_bytes(struct rec *r, u16 kind, const void *ptr, u64 len, u32 max)
{
	u32 off = used(r);
	if (off + max > CAP || r->h.nblobs >= BLOBS_MAX) {
		r->h.flags |= F_TRUNCATED;
		return;
	}
	if (len > max) {
		len = max;
		r->h.flags |= F_TRUNCATED;
	}
	len &= STR_MAX - 1; /* max < STR_MAX */
	if (len == 0) {
		add_blob(r, kind, 0);
		return;
	}
	barrier_var(off);
	barrier_var(len);
	if (bpf_probe_read_user(&r->data[off & (CAP - 1)], len & (STR_MAX - 1), ptr)) {
		r->h.flags |= F_UNREADABLE;
		count(2);
		add_blob(r, kind, 0);
		return;
	}
	add_blob(r, kind, len);
}

/* argv as one blob of NUL-terminated strings. */
static __always_inline void user_argv(struct rec *r, const char *const *argv)
{
	u32 start = used(r);
	if (start + ARG_STR_MAX > CAP || r->h.nblobs >= BLOBS_MAX) {
		r->h.flags |= F_TRUNCATED;
		return;
	}
	/* The running offset lives in r->h.used, reloaded every round: in a register its range
	 * would differ on every round and the verifier would walk each way out of the loop to the
	 * end of the program separately (800k instructions, most of the tracer's start-up). */
	for (int i = 0; i < ARGV_MAX; i++) {
		const char *a = 0;
		if (bpf_probe_read_user(&a, sizeof(a), &argv[i])) {
			r->h.flags |= F_UNREADABLE;
			count(2);
			break;
		}
		if (!a)
			break;
		asm volatile("" ::: "memory");
		u32 off = r->h.used;
		if (off + ARG_STR_MAX > CAP) {
			r->h.flags |= F_TRUNCATED;
			break;
		}
		long n = bpf_probe_read_user_str(&r->data[off & (CAP - 1)], ARG_STR_MAX, a);
		if (n <= 0) {
			r->h.flags |= F_UNREADABLE;
			count(2);
			break;
		}
		if (n >= ARG_STR_MAX)
			r->h.flags |= F_TRUNCATED;
		r->h.used = off + n;
		if (i == ARGV_MAX - 1)
			r->h.flags |= F_TRUNCATED;
	}
	asm volatile("" ::: "memory");
	u32 len = r->h.used - start;
	r->h.used = start;
	add_blob(r, B_ARGV, len);
}

/* i_mode of the file behind descriptor `fd` of the current task (0 if none). */
static __always_inline u32 fd_mode(int fd)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = 0;
	bpf_core_read(&f, sizeof(f), &fds[fd]);
	if (!f)
		return 0;
	return BPF_CORE_READ(f, f_inode, i_mode);
}

#define S_IFMT 0170000
#define S_IFSOCK 0140000

struct iovec_u {
	void *base;
	u64 len;
};
struct msghdr_u {
	void *name;
	int namelen;
	struct iovec_u *iov;
	u64 iovlen;
};

static __always_inline void payload_iov(struct rec *r, const struct iovec_u *iov, u64 cnt)
{
	struct iovec_u v = {};
	if (!iov || cnt == 0)
		return;
	if (bpf_probe_read_user(&v, sizeof(v), iov)) {
		r->h.flags |= F_UNREADABLE;
		count(2);
		return;
	}
	if (cnt > 1)
		r->h.flags |= F_TRUNCATED;
	user_bytes(r, B_PAYLOAD, v.base, v.len, PAYLOAD_MAX);
}

static __always_inline void msghdr(struct rec *r, const struct msghdr_u *m)
{
	struct msghdr_u h = {};
	if (bpf_probe_read_user(&h, sizeof(h), m)) {
		r->h.flags |= F_UNREADABLE;
		count(2);
		return;
	}
	if (h.name && h.namelen > 0)
		user_bytes(r, B_SOCKADDR, h.name, h.namelen, SOCKADDR_MAX);
	payload_iov(r, h.iov, h.iovlen);
}

static __always_inline void emit(struct rec *r)
{
	u64 len = used(r);
	/* the barriers keep clang from comparing one copy and passing another to the verifier */
	barrier_var(len);
	if (len > CAP)
		len = CAP;
	barrier_var(len);
	/* Waking the reader for every record costs the traced process a context switch each time:
	 * wake it only once a batch is waiting (it also drains on a short timer). */
	u64 wake = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > wake_bytes ? BPF_RB_FORCE_WAKEUP
									       : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, r, sizeof(struct rec_hdr) + len, wake))
		count(0);
	else
		count(1);
}

/* x86_64 numbers */
enum {
	NR_read = 0, NR_write = 1, NR_open = 2, NR_pread64 = 17, NR_pwrite64 = 18, NR_exit = 60,
	NR_exit_group = 231, NR_writev = 20, NR_sendfile = 40,
	NR_connect = 42, NR_sendto = 44, NR_sendmsg = 46, NR_bind = 49, NR_execve = 59,
	NR_rename = 82, NR_mkdir = 83, NR_rmdir = 84, NR_creat = 85, NR_link = 86, NR_unlink = 87,
	NR_symlink = 88, NR_readlink = 89, NR_chmod = 90, NR_chdir = 80, NR_mount = 165,
	NR_openat = 257, NR_mkdirat = 258, NR_unlinkat = 263, NR_renameat = 264, NR_linkat = 265,
	NR_symlinkat = 266, NR_readlinkat = 267, NR_fchmodat = 268, NR_sendmmsg = 307,
	NR_renameat2 = 316, NR_memfd_create = 319, NR_execveat = 322, NR_open_tree = 428,
	NR_move_mount = 429, NR_openat2 = 437,
};

/* Which arguments are user path strings. */
static __always_inline u32 str_mask(u32 nr)
{
	switch (nr) {
	case NR_open: case NR_creat: case NR_unlink: case NR_mkdir: case NR_rmdir: case NR_chmod:
	case NR_readlink: case NR_chdir: case NR_execve: case NR_memfd_create:
		return 1;
	case NR_rename: case NR_link: case NR_symlink:
		return 3;
	case NR_openat: case NR_openat2: case NR_unlinkat: case NR_mkdirat: case NR_readlinkat:
	case NR_fchmodat: case NR_execveat: case NR_open_tree:
		return 2;
	case NR_renameat: case NR_renameat2: case NR_linkat: case NR_move_mount:
		return 2 | 8;
	case NR_symlinkat:
		return 1 | 4;
	case NR_mount:
		return 1 | 2 | 4;
	}
	return 0;
}

/* exec's path and argv, read at entry (exec replaces the memory they are in). Kept apart from
 * fill: each program is verified path by path, and the argv loop and fill's switch in one
 * program cost most of the tracer's start-up (docs/benchmarks.md, session 12). */
static __always_inline void fill_exec(struct rec *r, u32 nr, const u64 *a)
{
	if (nr == NR_execve) {
		user_str(r, (const void *)a[0]);
		user_argv(r, (const char *const *)a[1]);
	} else if (nr == NR_execveat) {
		user_str(r, (const void *)a[1]);
		user_argv(r, (const char *const *)a[2]);
	}
}

/* Reads what the call's arguments point to, for every call but exec (fill_exec). Called at exit:
 * by then the kernel has copied (and so faulted in) the user memory, which a tracepoint may not
 * fault in itself. */
static __always_inline void fill(struct rec *r, u32 nr, const u64 *a)
{
	u32 mask = str_mask(nr);
	for (int i = 0; i < 6; i++) {
		if (mask & (1u << i))
			user_str(r, (const void *)a[i]);
	}
	switch (nr) {
	case NR_openat2:
		user_bytes(r, B_OPEN_HOW, (const void *)a[2], 24, 24);
		break;
	case NR_connect:
	case NR_bind:
		user_bytes(r, B_SOCKADDR, (const void *)a[1], a[2], SOCKADDR_MAX);
		break;
	case NR_sendto:
		if (a[4])
			user_bytes(r, B_SOCKADDR, (const void *)a[4], a[5], SOCKADDR_MAX);
		user_bytes(r, B_PAYLOAD, (const void *)a[1], a[2], PAYLOAD_MAX);
		break;
	case NR_sendmsg:
	case NR_sendmmsg: /* the first message's header starts the mmsghdr */
		msghdr(r, (const struct msghdr_u *)a[1]);
		break;
	case NR_read:
	case NR_pread64:
	case NR_write:
	case NR_pwrite64:
	case NR_writev:
	case NR_sendfile: {
		u32 mode = fd_mode((int)a[0]);
		r->h.fd_mode = mode;
		r->h.flags |= F_FD_MODE;
		if ((mode & S_IFMT) != S_IFSOCK)
			break;
		if (nr == NR_write)
			user_bytes(r, B_PAYLOAD, (const void *)a[1], a[2], PAYLOAD_MAX);
		else if (nr == NR_writev)
			payload_iov(r, (const struct iovec_u *)a[1], a[2]);
		break;
	}
	}
}

static __always_inline void read_args(struct pt_regs *regs, u64 *a)
{
	a[0] = BPF_CORE_READ(regs, di);
	a[1] = BPF_CORE_READ(regs, si);
	a[2] = BPF_CORE_READ(regs, dx);
	a[3] = BPF_CORE_READ(regs, r10);
	a[4] = BPF_CORE_READ(regs, r8);
	a[5] = BPF_CORE_READ(regs, r9);
}

static __always_inline bool wanted(u32 nr)
{
	if (nr >= NR_MAX)
		return false;
	u8 *on = bpf_map_lookup_elem(&traced_nr, &nr);
	if (!on || !*on)
		return false;
	return current_traced(bpf_get_current_pid_tgid() >> 32);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_enter, struct pt_regs *regs, long id)
{
	u32 nr = id;
	if (!wanted(nr))
		return 0;
	struct call c = {};
	c.ts = bpf_ktime_get_boot_ns();
	read_args(regs, c.args);
	/* exec replaces the memory its arguments are in, exit never returns: both are recorded at
	 * entry; everything else at exit (see fill). */
	if (nr == NR_execve || nr == NR_execveat || nr == NR_exit || nr == NR_exit_group) {
		struct rec *r = begin(R_ENTER, nr);
		if (!r)
			return 0;
		for (int i = 0; i < 6; i++)
			r->h.args[i] = c.args[i];
		fill_exec(r, nr, c.args);
		emit(r);
		return 0;
	}
	u32 tid = (u32)bpf_get_current_pid_tgid();
	c.args[6] = nr;
	if (bpf_map_update_elem(&inflight, &tid, &c, BPF_ANY))
		count(0);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_exit, struct pt_regs *regs, long ret)
{
	u32 nr = BPF_CORE_READ(regs, orig_ax);
	if (!wanted(nr))
		return 0;
	if (nr == NR_execve || nr == NR_execveat) {
		struct rec *r = begin(R_EXIT, nr);
		if (!r)
			return 0;
		r->h.ret = ret;
		emit(r);
		return 0;
	}
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct call *cp = bpf_map_lookup_elem(&inflight, &tid);
	if (!cp)
		return 0; /* entered before it was traced (a new thread returning from clone) */
	struct call c = *cp;
	bpf_map_delete_elem(&inflight, &tid);
	struct rec *r = begin(R_CALL, nr);
	if (!r)
		return 0;
	r->h.ts_exit = r->h.ts;
	r->h.ts = c.ts;
	r->h.ret = ret;
	for (int i = 0; i < 6; i++)
		r->h.args[i] = c.args[i];
	fill(r, nr, c.args);
	emit(r);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	u32 ptgid = BPF_CORE_READ(parent, tgid);
	u32 ctgid = BPF_CORE_READ(child, tgid);
	bool want = is_tracked(ptgid);
	if (!want && pidns_inum)
		want = task_pidns_inum(child) == pidns_inum;
	if (!want)
		return 0;
	if (!is_tracked(ctgid)) {
		u8 one = 1;
		bpf_map_update_elem(&tracked, &ctgid, &one, BPF_ANY);
	}
	struct rec *r = begin(R_FORK, 0);
	if (!r)
		return 0;
	r->h.args[0] = ptgid;
	r->h.args[1] = (u32)BPF_CORE_READ(parent, pid);
	r->h.args[2] = ctgid;
	r->h.args[3] = (u32)BPF_CORE_READ(child, pid);
	emit(r);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	u32 tgid = BPF_CORE_READ(p, tgid);
	if (!current_traced(tgid))
		return 0;
	struct rec *r = begin(R_EXEC, 0);
	if (!r)
		return 0;
	r->h.args[0] = (u32)old_pid;
	const char *fname = BPF_CORE_READ(bprm, filename);
	long n = bpf_probe_read_kernel_str(&r->data[0], STR_MAX, fname);
	if (n >= STR_MAX)
		r->h.flags |= F_TRUNCATED;
	add_blob(r, B_STR, n > 0 ? n : 0);
	/* argv as the new image sees it: its arg area, just written by the kernel */
	struct mm_struct *mm = BPF_CORE_READ(p, mm);
	u64 start = BPF_CORE_READ(mm, arg_start), end = BPF_CORE_READ(mm, arg_end);
	if (end > start)
		user_bytes(r, B_ARGV, (const void *)start, end - start, ARGV_AREA_MAX);
	emit(r);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_task_exit, struct task_struct *p)
{
	u32 tgid = BPF_CORE_READ(p, tgid);
	if (!is_tracked(tgid))
		return 0;
	/* A call the thread never returned from (killed while blocked): its arguments, unfinished. */
	u32 tid = BPF_CORE_READ(p, pid);
	struct call *cp = bpf_map_lookup_elem(&inflight, &tid);
	if (cp) {
		struct call c = *cp;
		bpf_map_delete_elem(&inflight, &tid);
		struct rec *u = begin(R_ENTER, (u32)c.args[6]);
		if (u) {
			u->h.ts = c.ts;
			for (int i = 0; i < 6; i++)
				u->h.args[i] = c.args[i];
			emit(u);
		}
	}
	struct rec *r = begin(R_TASK_EXIT, 0);
	if (!r)
		return 0;
	bool group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;
	r->h.args[0] = (u32)BPF_CORE_READ(p, exit_code);
	r->h.args[1] = group_dead;
	emit(r);
	if (group_dead)
		bpf_map_delete_elem(&tracked, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
