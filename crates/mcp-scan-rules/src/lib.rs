//! Rules as data. Every rule family (description rules here, static rules elsewhere) shares one
//! metadata shape, [`RuleMeta`] with [`RuleDocs`], read from a `[rule]` table of a TOML file
//! ([`RawRuleMeta`]) and compiled with file and line in every error ([`RuleError`]).
//!
//! The description rules themselves (weighted cues over tool/resource/prompt text) are loaded
//! from `rules/description/*.toml`, embedded at build time, in [`description`].
//! [`RuleCatalog`] collects the docs of every built-in rule for `mcp-scan rules` / `rule <ID>`.

pub mod catalog;
pub mod description;
pub mod literals;
pub mod meta;

pub use catalog::RuleCatalog;
pub use meta::{RawRuleDocs, RawRuleMeta, RuleDocs, RuleError, RuleMeta, RuleOrigin, SourceFile};
