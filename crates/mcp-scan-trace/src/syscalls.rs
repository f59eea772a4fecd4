//! x86_64 system call numbers and names (the ones the analysis traces or names in evidence).

/// (number, name), x86_64.
const TABLE: &[(u32, &str)] = &[
    (0, "read"),
    (1, "write"),
    (2, "open"),
    (3, "close"),
    (17, "pread64"),
    (18, "pwrite64"),
    (19, "readv"),
    (20, "writev"),
    (32, "dup"),
    (33, "dup2"),
    (40, "sendfile"),
    (41, "socket"),
    (42, "connect"),
    (43, "accept"),
    (44, "sendto"),
    (45, "recvfrom"),
    (46, "sendmsg"),
    (47, "recvmsg"),
    (49, "bind"),
    (50, "listen"),
    (56, "clone"),
    (57, "fork"),
    (58, "vfork"),
    (59, "execve"),
    (60, "exit"),
    (72, "fcntl"),
    (80, "chdir"),
    (81, "fchdir"),
    (82, "rename"),
    (83, "mkdir"),
    (84, "rmdir"),
    (85, "creat"),
    (86, "link"),
    (87, "unlink"),
    (88, "symlink"),
    (89, "readlink"),
    (90, "chmod"),
    (91, "fchmod"),
    (101, "ptrace"),
    (165, "mount"),
    (231, "exit_group"),
    (257, "openat"),
    (258, "mkdirat"),
    (263, "unlinkat"),
    (264, "renameat"),
    (265, "linkat"),
    (266, "symlinkat"),
    (267, "readlinkat"),
    (268, "fchmodat"),
    (288, "accept4"),
    (292, "dup3"),
    (307, "sendmmsg"),
    (316, "renameat2"),
    (319, "memfd_create"),
    (322, "execveat"),
    (425, "io_uring_setup"),
    (428, "open_tree"),
    (429, "move_mount"),
    (435, "clone3"),
    (437, "openat2"),
];

/// The name of system call `nr`, if it is one this crate knows.
pub fn name(nr: u32) -> Option<&'static str> {
    TABLE.iter().find(|(n, _)| *n == nr).map(|(_, s)| *s)
}

/// The number of the system call named `name`.
pub fn number(name: &str) -> Option<u32> {
    TABLE.iter().find(|(_, s)| *s == name).map(|(n, _)| *n)
}

/// The system calls the runtime analysis reads (the strace backend's set, see
/// mcp-scan-dynamic's `TRACED_SYSCALLS`), plus `mkdir`/`mkdirat`/`rmdir`.
pub const ANALYSIS: &[&str] = &[
    "open",
    "openat",
    "openat2",
    "creat",
    "rename",
    "renameat",
    "renameat2",
    "unlink",
    "unlinkat",
    "mkdir",
    "mkdirat",
    "rmdir",
    "chmod",
    "fchmod",
    "fchmodat",
    "symlink",
    "symlinkat",
    "readlink",
    "readlinkat",
    "link",
    "linkat",
    "chdir",
    "fchdir",
    "dup",
    "dup2",
    "dup3",
    "fcntl",
    "socket",
    "connect",
    "bind",
    "sendto",
    "sendmsg",
    "write",
    "writev",
    "sendmmsg",
    "sendfile",
    "clone",
    "clone3",
    "fork",
    "vfork",
    "execve",
    "execveat",
    "exit_group",
    "io_uring_setup",
    "memfd_create",
    "mount",
    "open_tree",
    "move_mount",
    "ptrace",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_analysis_syscall_has_an_x86_64_number() {
        for s in ANALYSIS {
            assert!(number(s).is_some(), "{s}");
        }
        assert_eq!(number("openat"), Some(257));
        assert_eq!(name(59), Some("execve"));
    }
}
