//! Credentials people put in a server's launch arguments (`--api-key sk-…`, `TOKEN=…`, a URL with
//! `?token=`). They are masked when the entry is read, so no output type, `Debug` print or
//! serialisation can show one, and a server under test never receives the user's real credential.
//! Package names, versions, paths and ordinary options are left as they are: the launch command
//! must still name its package.

/// The mask put where a credential was.
pub const MASK: &str = "***";

/// Parts of a flag or variable name that mark its value as a credential.
const SECRET_WORDS: &[&str] = &[
    "key",
    "apikey",
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "pass",
    "authorization",
    "credential",
    "credentials",
    "bearer",
    "cookie",
];

/// Parts that make the value a reference to a credential, or a setting about one, not the
/// credential itself (`--key-file`, `--token-limit`).
const NOT_SECRET_WORDS: &[&str] = &[
    "file", "path", "dir", "env", "var", "name", "id", "type", "mode", "limit", "count", "max",
    "min", "size", "url", "header", "length", "ttl", "expiry",
];

/// A leading word that makes the flag a switch (`--no-auth-token`, `--use-token`), not a value.
const SWITCH_WORDS: &[&str] = &[
    "no", "disable", "enable", "without", "with", "use", "skip", "allow", "require",
];

/// Prefixes of well-known credential formats (OpenAI, Anthropic, GitHub, GitLab, Slack, AWS,
/// Google, Stripe, Hugging Face, npm).
const TOKEN_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "AKIA",
    "ASIA",
    "AIza",
    "hf_",
    "npm_",
];

/// Masks every credential in a launch command's arguments.
pub fn args(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut mask_next = false;
    for arg in args {
        if mask_next && !arg.starts_with('-') {
            mask_next = false;
            out.push(MASK.to_string());
            continue;
        }
        mask_next = false;
        if let Some(flag) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) {
            match flag.split_once('=') {
                Some((name, value)) if is_secret_name(name) && !value.is_empty() => {
                    out.push(format!("{}={MASK}", &arg[..arg.len() - value.len() - 1]));
                }
                Some((name, value)) => {
                    out.push(format!(
                        "{}={}",
                        &arg[..arg.len() - value.len() - 1],
                        value_of(name, value)
                    ));
                }
                None => {
                    mask_next = arg.starts_with("--") && is_secret_name(flag);
                    out.push(arg);
                }
            }
            continue;
        }
        // `NAME=value`, as `env`, `docker -e` and some servers take it.
        if let Some((name, value)) = arg.split_once('=')
            && is_variable_name(name)
        {
            out.push(format!("{name}={}", value_of(name, value)));
            continue;
        }
        out.push(plain(&arg));
    }
    out
}

fn value_of(name: &str, value: &str) -> String {
    if is_secret_name(name) && !value.is_empty() {
        MASK.to_string()
    } else {
        plain(value)
    }
}

/// A lone value: a URL keeps its shape with its credentials masked; a token-looking string goes.
fn plain(value: &str) -> String {
    if value.contains("://") {
        return url(value);
    }
    if looks_like_token(value) {
        return MASK.to_string();
    }
    value.to_string()
}

/// `https://user:pw@host/p?token=x&q=1` → `https://user:***@host/p?token=***&q=1`.
pub fn url(url: &str) -> String {
    let url = crate::discover::redact_userinfo(url);
    let Some((head, query)) = url.split_once('?') else {
        return url;
    };
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let masked: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if !v.is_empty() && (is_secret_name(k) || looks_like_token(v)) => {
                format!("{k}={MASK}")
            }
            _ => pair.to_string(),
        })
        .collect();
    let mut out = format!("{head}?{}", masked.join("&"));
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
}

fn is_secret_name(name: &str) -> bool {
    let ws: Vec<String> = words(name).collect();
    let joined = ws.concat();
    let secret = ws.iter().any(|w| SECRET_WORDS.contains(&w.as_str()))
        || [
            "apikey",
            "accesstoken",
            "authtoken",
            "secretkey",
            "privatekey",
        ]
        .iter()
        .any(|s| joined.contains(s));
    secret
        && !ws.iter().any(|w| NOT_SECRET_WORDS.contains(&w.as_str()))
        && !ws
            .first()
            .is_some_and(|w| SWITCH_WORDS.contains(&w.as_str()))
}

fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.chars().any(|c| c.is_ascii_alphabetic())
}

/// A known credential prefix, or a long run of mixed-case letters and digits with no separator a
/// package name, version or path would have.
fn looks_like_token(v: &str) -> bool {
    if v.len() >= 16
        && TOKEN_PREFIXES.iter().any(|p| v.starts_with(p))
        && v.chars().any(|c| c.is_ascii_digit())
    {
        return true;
    }
    if v.len() < 32
        || !v
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '='))
        || v.starts_with('/')
        || v.contains("//")
    {
        return false;
    }
    let count = |f: fn(&char) -> bool| v.chars().filter(f).count();
    count(char::is_ascii_digit) >= 4
        && count(char::is_ascii_uppercase) >= 2
        && count(char::is_ascii_lowercase) >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn secret_flags_mask_their_value_in_both_spellings() {
        let got = args(s(&[
            "-y",
            "brave-mcp@1.2.0",
            "--api-key",
            "FIXTURE-SECRET-1",
            "--token=FIXTURE-SECRET-2",
            "--github_personal_access_token",
            "FIXTURE-SECRET-3",
        ]));
        assert_eq!(
            got,
            s(&[
                "-y",
                "brave-mcp@1.2.0",
                "--api-key",
                MASK,
                "--token=***",
                "--github_personal_access_token",
                MASK
            ])
        );
    }

    #[test]
    fn variables_urls_and_token_formats_are_masked() {
        let got = args(s(&[
            "-e",
            "SLACK_BOT_TOKEN=xoxb-FIXTURE-SECRET",
            "--db",
            "postgresql://admin:FIXTURE-SECRET@db:5432/prod",
            "https://api.example/v1?api_key=FIXTURE-SECRET&region=eu",
            "sk-FIXTURE0SECRET0abcdef",
            "Zq8xW3vK9pL2mN7bR4tY6uH1jG5fD0sA",
        ]));
        for a in &got {
            assert!(!a.contains("FIXTURE"), "{a} still shows a secret");
        }
        assert_eq!(got[1], "SLACK_BOT_TOKEN=***");
        assert_eq!(got[3], "postgresql://admin:***@db:5432/prod");
        assert_eq!(got[4], "https://api.example/v1?api_key=***&region=eu");
        assert_eq!(got[5], MASK);
        assert_eq!(got[6], MASK);
    }

    #[test]
    fn package_names_paths_and_ordinary_options_are_kept() {
        let honest = s(&[
            "-y",
            "@modelcontextprotocol/server-filesystem@2025.8.21",
            "/home/me/Projects/some-very-long-directory-name-2024",
            "--from",
            "awslabs.aws-documentation-mcp-server@1.2.3",
            "--key-file",
            "/home/me/.ssh/id_ed25519",
            "--token-limit",
            "4000",
            "--port=8080",
            "LOG_LEVEL=debug",
            "--directory",
            "/srv/mcp",
            "https://mcp.example/sse?region=eu",
            "mcp-server-fetch==2026.10.24",
            "--no-auth",
            "server.py",
            "sk-learn-mcp-server",
        ]);
        assert_eq!(args(honest.clone()), honest);
    }
}
