//! The MCP servers a user has configured, and the source of the registry packages they launch.
//!
//! - [`discover()`] reads the well-known client configurations (Claude Desktop, Claude Code,
//!   Cursor, VS Code, Windsurf, Gemini CLI; user and project files; Linux and macOS paths) under
//!   a given HOME and project directory, and returns every configured server. Environment and
//!   header *values* are secrets: only their names are kept, so no output type, `Debug` print
//!   or serialisation can show one.
//! - [`classify`] reads a server's launch command: which registry package (`uvx`, `pipx run`,
//!   `npx`, `bunx`, `pnpm dlx`) and which version it runs, or why its source cannot be fetched.
//! - [`fetch()`] resolves that version on the registry, downloads the wheel or tarball, verifies
//!   the registry's hash, unpacks it safely into a cache and returns the source directory.
//!
//! - [`resolve_source`] puts the two together for one configured server: its source directory
//!   (local project or fetched package), a remote URL, or the reason there is none.
//!
//! No I/O happens in types; nothing is printed. The binary decides what to show.

pub mod discover;
pub mod fetch;
mod jsonc;
pub mod launch;
pub mod redact;
pub mod source;
#[cfg(feature = "testing")]
pub mod testing;
mod unpack;

pub use discover::{
    Client, ConfigDiagnostic, ConfigFile, ConfiguredServer, DiagnosticLevel, Discovery,
    DiscoveryContext, Platform, RemoteProtocol, Scope, Transport, discover, read_config,
    read_named_config,
};
pub use fetch::{FetchConfig, FetchError, FetchedPackage, Limits, fetch};
pub use launch::{Ecosystem, LaunchTarget, PackageRef, Requested, classify};
pub use source::{ServerSource, resolve_source};
