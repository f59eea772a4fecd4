/* The few kernel types the tracer reads, declared by hand instead of a generated vmlinux.h: every
 * field access is relocated against the running kernel's BTF (CO-RE), so only names must match.
 * x86_64 only (syscall numbers and pt_regs are the x86_64 ones). */
#ifndef MCP_SCAN_KERNEL_H
#define MCP_SCAN_KERNEL_H

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef int pid_t;
typedef unsigned short umode_t;
typedef _Bool bool;
#define true 1
#define false 0

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_RINGBUF = 27,
};
enum { BPF_ANY = 0 };
enum { BPF_RB_NO_WAKEUP = 1, BPF_RB_FORCE_WAKEUP = 2 };
enum { BPF_RB_AVAIL_DATA = 0 };

#define PAI __attribute__((preserve_access_index))

struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip,
		cs, flags, sp, ss;
} PAI;

typedef struct {
	int counter;
} atomic_t;

struct ns_common {
	unsigned int inum;
} PAI;
struct pid_namespace {
	struct ns_common ns;
} PAI;
struct upid {
	int nr;
	struct pid_namespace *ns;
} PAI;
struct pid {
	unsigned int level;
	struct upid numbers[1];
} PAI;
struct signal_struct {
	atomic_t live;
} PAI;
struct inode {
	umode_t i_mode;
} PAI;
struct file {
	struct inode *f_inode;
} PAI;
struct fdtable {
	unsigned int max_fds;
	struct file **fd;
} PAI;
struct files_struct {
	struct fdtable *fdt;
} PAI;
struct mm_struct {
	unsigned long arg_start;
	unsigned long arg_end;
} PAI;
struct task_struct {
	struct mm_struct *mm;
	pid_t pid;
	pid_t tgid;
	int exit_code;
	struct pid *thread_pid;
	struct files_struct *files;
	struct signal_struct *signal;
} PAI;
struct linux_binprm {
	const char *filename;
} PAI;

#endif
