//! Runtime analysis data from `rules/runtime/runtime.toml`: canary files and variables, sensitive
//! and persistence paths, words that declare network or command use, adversarial probes.
//! Raw TOML deserialises into `Raw*`; [`RuntimeRules::compile`] validates it.

use serde::Deserialize;
use std::sync::LazyLock;

const RUNTIME_TOML: &str = include_str!("../../../rules/runtime/runtime.toml");
const RUNTIME_PATH: &str = "rules/runtime/runtime.toml";

#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("{file}:{line}: {message}")]
    Invalid {
        file: String,
        line: usize,
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    canary_file: Vec<RawTemplate>,
    canary_env: Vec<RawEnv>,
    sensitive: RawSensitive,
    persistence: RawPersistence,
    declared: RawDeclared,
    probe: Vec<RawProbe>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTemplate {
    path: String,
    template: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnv {
    name: String,
    template: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSensitive {
    paths: Vec<String>,
    dirs: Vec<String>,
    http_client_files: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPersistence {
    paths: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeclared {
    network_words: Vec<String>,
    exec_words: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProbe {
    name: String,
    kind: String,
    value: String,
}

/// A canary file: path relative to HOME and a template with `{token}` / `{token_upper}`.
#[derive(Debug, Clone)]
pub struct CanaryTemplate {
    pub path: String,
    pub template: String,
}

/// What an adversarial probe tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeKind {
    Path,
    Command,
    Code,
    Sql,
    Url,
    Size,
}

#[derive(Debug, Clone)]
pub struct Probe {
    pub name: String,
    pub kind: ProbeKind,
    pub value: String,
}

/// The compiled runtime rules.
#[derive(Debug, Clone)]
pub struct RuntimeRules {
    pub canary_files: Vec<CanaryTemplate>,
    pub canary_env: Vec<(String, String)>,
    pub sensitive_paths: Vec<String>,
    pub sensitive_dirs: Vec<String>,
    pub http_client_files: Vec<String>,
    pub persistence_paths: Vec<String>,
    pub network_words: Vec<String>,
    pub exec_words: Vec<String>,
    pub probes: Vec<Probe>,
}

impl RuntimeRules {
    /// Parses and validates rules text; errors carry file and line.
    pub fn compile(file: &str, text: &str) -> Result<Self, RulesError> {
        let err = |line: usize, message: String| RulesError::Invalid {
            file: file.to_string(),
            line,
            message,
        };
        let line_of = |needle: &str| {
            text.find(needle)
                .map(|i| text[..i].matches('\n').count() + 1)
                .unwrap_or(1)
        };
        let raw: RawRules = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
                .unwrap_or(1);
            err(line, e.message().to_string())
        })?;
        for t in &raw.canary_file {
            if !t.template.contains("{token") {
                return Err(err(
                    line_of(&t.path),
                    format!("canary file `{}` has no {{token}} in its template", t.path),
                ));
            }
            if t.path.starts_with('/') || t.path.contains("..") {
                return Err(err(
                    line_of(&t.path),
                    format!("canary file `{}` must be relative to HOME", t.path),
                ));
            }
        }
        for e in &raw.canary_env {
            if !e.template.contains("{token") {
                return Err(err(
                    line_of(&e.name),
                    format!("canary variable `{}` has no {{token}}", e.name),
                ));
            }
        }
        let mut probes = Vec::new();
        for p in raw.probe {
            let kind = match p.kind.as_str() {
                "path" => ProbeKind::Path,
                "command" => ProbeKind::Command,
                "code" => ProbeKind::Code,
                "sql" => ProbeKind::Sql,
                "url" => ProbeKind::Url,
                "size" => ProbeKind::Size,
                other => {
                    return Err(err(
                        line_of(&format!("name = \"{}\"", p.name)),
                        format!(
                            "probe `{}` has unknown kind `{other}` (path, command, code, sql, url, size)",
                            p.name
                        ),
                    ));
                }
            };
            if matches!(kind, ProbeKind::Command | ProbeKind::Code) && !p.value.contains("{probe}")
            {
                return Err(err(
                    line_of(&format!("name = \"{}\"", p.name)),
                    format!("probe `{}` must contain {{probe}} to be detectable", p.name),
                ));
            }
            probes.push(Probe {
                name: p.name,
                kind,
                value: p.value,
            });
        }
        let lower = |v: Vec<String>| v.into_iter().map(|w| w.to_lowercase()).collect();
        Ok(RuntimeRules {
            canary_files: raw
                .canary_file
                .into_iter()
                .map(|t| CanaryTemplate {
                    path: t.path,
                    template: t.template,
                })
                .collect(),
            canary_env: raw
                .canary_env
                .into_iter()
                .map(|e| (e.name, e.template))
                .collect(),
            sensitive_paths: raw.sensitive.paths,
            sensitive_dirs: raw.sensitive.dirs,
            http_client_files: raw.sensitive.http_client_files,
            persistence_paths: raw.persistence.paths,
            network_words: lower(raw.declared.network_words),
            exec_words: lower(raw.declared.exec_words),
            probes,
        })
    }

    /// The built-in rules embedded from `rules/runtime/runtime.toml`.
    pub fn builtin() -> &'static RuntimeRules {
        static RULES: LazyLock<RuntimeRules> = LazyLock::new(|| {
            // Embedded data, validated by `embedded_runtime_rules_compile`.
            RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML)
                .unwrap_or_else(|e| panic!("embedded runtime rules are invalid: {e}"))
        });
        &RULES
    }
}

/// Matches `path` against a pattern where `*` stands for exactly one path component.
pub fn path_matches(pattern: &str, path: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').collect();
    let s: Vec<&str> = path.split('/').collect();
    p.len() == s.len() && p.iter().zip(&s).all(|(a, b)| *a == "*" || a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_runtime_rules_compile() {
        let r = RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML).expect("valid");
        assert!(r.canary_files.len() >= 11);
        for needed in [
            ".ssh/id_rsa",
            ".ssh/id_ed25519",
            ".aws/credentials",
            ".env",
            ".netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            ".config/gh/hosts.yml",
            ".kube/config",
            ".docker/config.json",
        ] {
            assert!(
                r.canary_files.iter().any(|c| c.path == needed),
                "missing canary {needed}"
            );
        }
        assert!(r.probes.iter().any(|p| p.kind == ProbeKind::Command));
    }

    #[test]
    fn invalid_rules_report_file_and_line() {
        let bad = RUNTIME_TOML.replace("kind = \"sql\"", "kind = \"nosql\"");
        let e = RuntimeRules::compile("x.toml", &bad).expect_err("unknown kind");
        let msg = e.to_string();
        assert!(msg.starts_with("x.toml:"), "{msg}");
        assert!(msg.contains("unknown kind `nosql`"), "{msg}");
        let line: usize = msg
            .split(':')
            .nth(1)
            .and_then(|l| l.parse().ok())
            .expect("line number");
        assert!(
            bad.lines()
                .nth(line - 1)
                .is_some_and(|l| l.contains("sql-injection")),
            "line {line} should point at the probe"
        );
        let syntax = RuntimeRules::compile("y.toml", "canary_file = 3\n").expect_err("syntax");
        assert!(syntax.to_string().starts_with("y.toml:1:"), "{syntax}");
    }

    #[test]
    fn star_matches_exactly_one_component() {
        assert!(path_matches("/proc/*/environ", "/proc/12/environ"));
        assert!(!path_matches("/proc/*/environ", "/proc/12/task/12/environ"));
        assert!(!path_matches("/proc/*/environ", "/proc/12/status"));
    }
}
