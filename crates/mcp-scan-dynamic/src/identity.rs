//! Who the sandbox pretends to be: a user name, hostname and HOME chosen per run (from a seed, so
//! a run can be reproduced with `--seed`), a lived-in HOME (dotfiles, caches, history, a git
//! config) whose files were last touched days to months ago, and an environment shaped like a
//! desktop session holding a few secrets rather than every cloud key at once. Red-team servers
//! stayed dormant on `USER=sandbox`, a HOME of seconds-old canaries, and five cloud keys at once.

use std::time::{Duration, SystemTime};

/// Deterministic generator (splitmix64): identities must be reproducible from the seed alone.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x6d63_7073_6361_6e21)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A fresh seed from the system's randomness (the time as a fallback: a seed only needs to vary).
pub fn random_seed() -> u64 {
    let mut b = [0u8; 8];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut b))
        .is_ok()
    {
        return u64::from_le_bytes(b);
    }
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x1234_5678)
}

const FIRST: &[&str] = &[
    "alex", "maria", "jonas", "priya", "tom", "chen", "sofia", "david", "emma", "lukas", "nina",
    "omar", "julia", "marco", "anna", "ben", "lena", "raj", "sara", "felix", "kate", "ivan",
];
const LAST: &[&str] = &[
    "meyer", "garcia", "novak", "smith", "rossi", "kim", "patel", "weber", "dubois", "silva",
    "lopez", "brown", "jensen", "kowalski", "tanaka", "fischer", "moreau", "olsen",
];
const HOST_KIND: &[&str] = &[
    "laptop",
    "thinkpad",
    "xps",
    "desktop",
    "workstation",
    "framework",
    "dev",
    "pc",
];

/// The persona of one run.
#[derive(Debug, Clone)]
pub struct Identity {
    pub seed: u64,
    pub user: String,
    /// Display name (`Maria Garcia`), for the git config.
    pub full_name: String,
    pub hostname: String,
    /// `/home/<user>`.
    pub home: String,
    /// `<home>/workspace`: the server's working directory.
    pub work: String,
    /// Which secret variables this run puts in the environment.
    pub secret_vars: Vec<String>,
    /// Seconds in the past the HOME was "installed" (oldest file times).
    age_days: u64,
}

/// How many of the secret environment variables a run gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SecretEnv {
    /// A few, picked per run (a developer's session rarely holds every cloud key).
    #[default]
    Few,
    /// Every one the rules name (tests of channels that need a given variable).
    All,
}

impl Identity {
    /// The persona for `seed`. `secret_names` are the canary variables the rules define.
    pub fn generate(seed: u64, secret_names: &[String], secrets: SecretEnv) -> Self {
        let mut r = Rng::new(seed);
        let first = *r.pick(FIRST);
        let last = *r.pick(LAST);
        let user = match r.below(4) {
            0 => format!("{first}{}", &last[..1]),
            1 => format!("{}{last}", &first[..1]),
            2 => format!("{first}.{last}"),
            _ => first.to_string(),
        };
        let cap = |s: &str| {
            let mut c = s.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        };
        let full_name = format!("{} {}", cap(first), cap(last));
        let hostname = match r.below(3) {
            0 => format!("{first}-{}", r.pick(HOST_KIND)),
            1 => format!("{}-{}", r.pick(HOST_KIND), 100 + r.below(900)),
            _ => format!("{}{}", first, r.pick(HOST_KIND)),
        };
        let home = format!("/home/{user}");
        // `~/workspace` (Eclipse's and many editors' default): the analysis names paths under it
        // like the canonical workspace, so the name stays fixed while the user varies.
        let work = format!("{home}/workspace");
        let secret_vars = match secrets {
            SecretEnv::All => secret_names.to_vec(),
            SecretEnv::Few => {
                // One or two, never the whole set; an AWS key id comes with its secret.
                let mut v: Vec<String> = Vec::new();
                let want = 1 + r.below(2) as usize;
                let mut names: Vec<&String> = secret_names.iter().collect();
                while v.len() < want && !names.is_empty() {
                    let i = r.below(names.len() as u64) as usize;
                    let n = names.remove(i).clone();
                    if n == "AWS_SECRET_ACCESS_KEY" || n == "AWS_ACCESS_KEY_ID" {
                        for pair in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
                            if secret_names.iter().any(|s| s == pair)
                                && !v.iter().any(|x| x == pair)
                            {
                                v.push(pair.to_string());
                            }
                        }
                        names.retain(|x| !x.starts_with("AWS_"));
                    } else {
                        v.push(n);
                    }
                }
                v
            }
        };
        Identity {
            seed,
            user,
            full_name,
            hostname,
            home,
            work,
            secret_vars,
            age_days: 60 + r.below(300),
        }
    }

    /// The environment of a desktop session (besides PATH, LANG and the secrets).
    pub fn session_env(&self) -> Vec<(String, String)> {
        let mut r = Rng::new(self.seed ^ 0xe1);
        let desktop = *r.pick(&["GNOME", "KDE", "ubuntu:GNOME", "XFCE"]);
        let mut v = vec![
            ("HOME".to_string(), self.home.clone()),
            ("USER".to_string(), self.user.clone()),
            ("LOGNAME".to_string(), self.user.clone()),
            (
                "SHELL".to_string(),
                r.pick(&["/bin/bash", "/usr/bin/zsh"]).to_string(),
            ),
            ("PWD".to_string(), self.work.clone()),
            ("TMPDIR".to_string(), "/tmp".to_string()),
            ("XDG_CURRENT_DESKTOP".to_string(), desktop.to_string()),
            (
                "XDG_SESSION_TYPE".to_string(),
                r.pick(&["wayland", "x11"]).to_string(),
            ),
            ("XDG_SESSION_DESKTOP".to_string(), desktop.to_lowercase()),
            ("XDG_CONFIG_DIRS".to_string(), "/etc/xdg".to_string()),
            (
                "XDG_DATA_DIRS".to_string(),
                "/usr/local/share:/usr/share".to_string(),
            ),
            (
                "EDITOR".to_string(),
                r.pick(&["vim", "nano", "code --wait"]).to_string(),
            ),
            ("COLORTERM".to_string(), "truecolor".to_string()),
        ];
        if r.chance(50) {
            v.push(("DISPLAY".to_string(), ":0".to_string()));
        }
        v
    }

    /// A time `days_ago` days (plus some hours) in the past, never after now.
    fn past(&self, r: &mut Rng, max_days: u64) -> SystemTime {
        let days = 1 + r.below(max_days.max(1));
        let secs = days * 86_400 + r.below(86_400);
        SystemTime::now()
            .checked_sub(Duration::from_secs(secs))
            .unwrap_or(SystemTime::UNIX_EPOCH)
    }

    /// Everyday files of a developer's HOME (relative path, content), besides the canaries.
    pub fn lived_in_files(&self) -> Vec<(String, String)> {
        let mut r = Rng::new(self.seed ^ 0xf11e);
        let email = format!(
            "{}@{}",
            self.user.replace('.', ""),
            r.pick(&["gmail.com", "posteo.de", "outlook.com", "fastmail.com"])
        );
        let cmds = [
            "git status",
            "git pull --rebase",
            "ls -la",
            "cd ~/projects",
            "code .",
            "npm install",
            "python3 -m venv .venv",
            "source .venv/bin/activate",
            "pip install -r requirements.txt",
            "docker ps",
            "make test",
            "cargo build",
            "htop",
            "git log --oneline | head",
            "ssh-add -l",
            "kubectl get pods",
            "git checkout -b fix-typo",
            "pytest -x",
            "grep -rn TODO src/",
            "df -h",
            "sudo apt update",
            "vim ~/.bashrc",
            "git push",
        ];
        let mut history = String::new();
        for _ in 0..(40 + r.below(80)) {
            history.push_str(cmds[r.below(cmds.len() as u64) as usize]);
            history.push('\n');
        }
        vec![
            (".bashrc".into(), "# ~/.bashrc: executed by bash(1) for non-login shells.\ncase $- in\n    *i*) ;;\n      *) return;;\nesac\nHISTCONTROL=ignoreboth\nshopt -s histappend\nHISTSIZE=1000\nalias ll='ls -alF'\nalias gs='git status'\nexport PATH=\"$HOME/.local/bin:$PATH\"\n".into()),
            (".profile".into(), "# ~/.profile: executed by the command interpreter for login shells.\nif [ -n \"$BASH_VERSION\" ]; then\n    if [ -f \"$HOME/.bashrc\" ]; then\n\t. \"$HOME/.bashrc\"\n    fi\nfi\nif [ -d \"$HOME/.local/bin\" ] ; then\n    PATH=\"$HOME/.local/bin:$PATH\"\nfi\n".into()),
            (".bash_logout".into(), "# ~/.bash_logout: executed by bash(1) when login shell exits.\n".into()),
            (".bash_history".into(), history),
            (".gitconfig".into(), format!("[user]\n\tname = {}\n\temail = {email}\n[init]\n\tdefaultBranch = main\n[pull]\n\trebase = true\n[core]\n\teditor = vim\n", self.full_name)),
            (".ssh/known_hosts".into(), "|1|c2FsdHNhbHRzYWx0c2FsdA==|aGFzaGhhc2hoYXNoaGFzaA== ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n".into()),
            (".ssh/config".into(), "Host github.com\n  IdentityFile ~/.ssh/id_ed25519\n  AddKeysToAgent yes\n".into()),
            (".config/user-dirs.dirs".into(), "XDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOWNLOAD_DIR=\"$HOME/Downloads\"\nXDG_DOCUMENTS_DIR=\"$HOME/Documents\"\n".into()),
            (".config/Code/User/settings.json".into(), "{\n    \"editor.fontSize\": 14,\n    \"files.autoSave\": \"afterDelay\",\n    \"git.confirmSync\": false\n}\n".into()),
            (".config/pip/pip.conf".into(), "[global]\ndisable-pip-version-check = true\n".into()),
            (".cache/pip/selfcheck/2f3a9c.json".into(), "{\"last_check\":\"2025-09-12T08:14:03Z\",\"pypi_version\":\"24.2\"}\n".into()),
            (".cache/fontconfig/CACHEDIR.TAG".into(), "Signature: 8a477f597d28d172789f06886806bc55\n".into()),
            (".cache/mesa_shader_cache/index".into(), "\n".into()),
            (".local/share/recently-used.xbel".into(), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xbel version=\"1.0\"></xbel>\n".into()),
            (".local/share/nano/search_history".into(), "TODO\nfixme\n".into()),
            (".local/state/wireplumber/restore-stream".into(), "[restore-stream]\n".into()),
            (".npm/_logs/2025-10-02T09_12_44_102Z-debug-0.log".into(), "0 verbose cli /usr/bin/node /usr/bin/npm\n1 info using npm@10.8.2\n".into()),
            (".python_history".into(), "import json\nprint(sys.version)\n".into()),
            (".wget-hsts".into(), "# HSTS 1.0 Known Hosts database for GNU Wget.\n".into()),
            ("Documents/todo.md".into(), "- [ ] renew passport\n- [x] fix CI\n".into()),
            ("Downloads/.keep".into(), String::new()),
            ("Desktop/.keep".into(), String::new()),
        ]
    }

    /// Gives every file and directory under `root` (the host directory behind HOME) a time in the
    /// past: files days to months old, varied, each directory as old as its newest entry.
    pub fn age_tree(&self, root: &std::path::Path) {
        let mut r = Rng::new(self.seed ^ 0xa9e);
        fn walk(
            id: &Identity,
            r: &mut Rng,
            dir: &std::path::Path,
            skip: &std::path::Path,
        ) -> Option<SystemTime> {
            let mut newest: Option<SystemTime> = None;
            let Ok(rd) = std::fs::read_dir(dir) else {
                return None;
            };
            for e in rd.flatten() {
                let p = e.path();
                let Ok(md) = std::fs::symlink_metadata(&p) else {
                    continue;
                };
                let t = if md.is_dir() {
                    if p == skip {
                        continue;
                    }
                    walk(id, r, &p, skip).unwrap_or_else(|| id.past(r, id.age_days))
                } else if md.is_file() {
                    id.past(r, id.age_days)
                } else {
                    continue;
                };
                set_times(&p, t);
                newest = Some(newest.map_or(t, |n| n.max(t)));
            }
            newest
        }
        // The workspace is the project in use today: its own times stay as they are.
        let skip = root.join(
            self.work
                .trim_start_matches(&self.home)
                .trim_start_matches('/'),
        );
        if let Some(t) = walk(self, &mut r, root, &skip) {
            set_times(root, t);
        }
    }
}

fn set_times(p: &std::path::Path, t: SystemTime) {
    // Directories open read-only fine; futimens works on either.
    if let Ok(f) = std::fs::File::open(p) {
        let _ = f.set_times(std::fs::FileTimes::new().set_accessed(t).set_modified(t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Vec<String> {
        [
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn same_seed_gives_the_same_persona_and_other_seeds_vary() {
        let a = Identity::generate(42, &secrets(), SecretEnv::Few);
        let b = Identity::generate(42, &secrets(), SecretEnv::Few);
        assert_eq!((a.user.clone(), a.hostname.clone()), (b.user, b.hostname));
        let users: std::collections::HashSet<String> = (0..40)
            .map(|s| Identity::generate(s, &secrets(), SecretEnv::Few).user)
            .collect();
        assert!(users.len() > 10, "{users:?}");
        for s in 0..40 {
            let id = Identity::generate(s, &secrets(), SecretEnv::Few);
            assert!(!id.user.contains("sandbox") && !id.hostname.contains("sandbox"));
            assert!(id.home.starts_with("/home/") && id.work.starts_with(&id.home));
        }
    }

    #[test]
    fn a_run_holds_a_few_secrets_never_all_and_aws_keys_come_in_pairs() {
        for s in 0..200 {
            let v = Identity::generate(s, &secrets(), SecretEnv::Few).secret_vars;
            assert!(!v.is_empty() && v.len() < secrets().len(), "{v:?}");
            assert_eq!(
                v.iter().any(|x| x == "AWS_ACCESS_KEY_ID"),
                v.iter().any(|x| x == "AWS_SECRET_ACCESS_KEY")
            );
        }
        assert_eq!(
            Identity::generate(1, &secrets(), SecretEnv::All).secret_vars,
            secrets()
        );
    }

    #[test]
    fn home_files_are_dated_in_the_past_and_the_workspace_is_left_alone() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let id = Identity::generate(7, &secrets(), SecretEnv::Few);
        for (rel, body) in id.lived_in_files() {
            let p = tmp.path().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, body).expect("write");
        }
        let work = tmp
            .path()
            .join(id.work.trim_start_matches(&id.home).trim_start_matches('/'));
        std::fs::create_dir_all(&work).expect("work");
        id.age_tree(tmp.path());
        let now = SystemTime::now();
        let age = |p: &std::path::Path| {
            now.duration_since(std::fs::metadata(p).expect("md").modified().expect("mtime"))
                .unwrap_or_default()
        };
        assert!(age(&tmp.path().join(".bashrc")) >= Duration::from_secs(86_400));
        assert!(age(&tmp.path().join(".cache")) >= Duration::from_secs(86_400));
        assert!(age(&work) < Duration::from_secs(3600));
        let ages: std::collections::HashSet<u64> =
            [".bashrc", ".gitconfig", ".profile", ".bash_history"]
                .iter()
                .map(|f| age(&tmp.path().join(f)).as_secs() / 3600)
                .collect();
        assert!(ages.len() > 1, "file times must vary");
    }
}
