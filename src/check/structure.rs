//! `structure.*`: substructures and their cardinality.

use super::{Finding, Rule, Version};
use crate::tree::NodeRef;

/// The rules of this file.
pub(crate) static RULES: &[&Rule] = &[];

/// Checks `record`'s structures against the data model of `version`,
/// pushing a finding per problem.
pub(crate) fn check(record: NodeRef<'_>, version: Version, out: &mut Vec<Finding>) {
    let _ = (record, version, out);
}

/// The tags of the records a pointer at `node` may point to (`None`: any,
/// or `node` is not a pointer structure the data model knows).
pub(crate) fn pointer_target(
    node: NodeRef<'_>,
    version: Version,
) -> Option<&'static [&'static str]> {
    let _ = (node, version);
    None
}
