//! Every built-in rule's metadata and docs, for `mcp-scan rules` and `mcp-scan rule <ID>`.

use crate::description::DescriptionRules;
use crate::meta::{RuleError, RuleMeta};

/// The docs registry: rule metadata of every family, sorted by id.
#[derive(Debug, Clone, Default)]
pub struct RuleCatalog {
    rules: Vec<RuleMeta>,
}

impl RuleCatalog {
    /// The built-in rules. Other families add theirs with [`RuleCatalog::extend`].
    pub fn builtin() -> Result<Self, RuleError> {
        let mut c = RuleCatalog::default();
        c.extend(
            DescriptionRules::builtin()?
                .rules
                .iter()
                .map(|r| r.meta.clone()),
        );
        Ok(c)
    }

    pub fn extend(&mut self, rules: impl IntoIterator<Item = RuleMeta>) {
        self.rules.extend(rules);
        self.rules.sort_by(|a, b| a.id.cmp(&b.id));
    }

    pub fn iter(&self) -> impl Iterator<Item = &RuleMeta> {
        self.rules.iter()
    }

    /// Looks a rule up by id (case-insensitive) or by its slug name.
    pub fn get(&self, id_or_name: &str) -> Option<&RuleMeta> {
        let key = id_or_name.trim();
        self.rules
            .iter()
            .find(|r| r.id.eq_ignore_ascii_case(key) || r.name == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalog_finds_rules_by_id_and_name() {
        let c = RuleCatalog::builtin().expect("built-ins compile");
        let first = c.iter().next().expect("at least one rule");
        assert_eq!(
            c.get(&first.id.to_lowercase()).map(|r| &r.id),
            Some(&first.id)
        );
        assert_eq!(c.get(&first.name).map(|r| &r.id), Some(&first.id));
        assert!(c.get("MCPS-D999").is_none());
    }
}
