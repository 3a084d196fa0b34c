//! Hive partitioning of the tables: which column a table's rows are
//! spread by, and the directory a row's value goes to
//! (`record_tag=INDI`, `file_id=3`), as DuckDB (`hive_partitioning = true`),
//! Spark and Polars read it.

use super::rows::Cell;
use super::Table;

/// The value of a partition whose column is null or empty: Hive's name
/// for it.
pub const DEFAULT_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// What rows are partitioned by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartitionBy {
    /// The record's tag: the tables with a `record_tag` column (`nodes`,
    /// `events`).
    RecordTag,
    /// The file: the tables with a `file_id` column (all of them).
    File,
}

impl PartitionBy {
    /// Both ways, in the order of their documentation.
    pub const ALL: [PartitionBy; 2] = [PartitionBy::RecordTag, PartitionBy::File];

    /// Its name, as the command line takes it (`record_tag`, `file`).
    pub fn name(self) -> &'static str {
        match self {
            PartitionBy::RecordTag => "record_tag",
            PartitionBy::File => "file",
        }
    }

    /// The way named `name` (as [`PartitionBy::name`] gives it).
    pub fn from_name(name: &str) -> Option<PartitionBy> {
        PartitionBy::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The column the rows are partitioned by.
    pub fn column(self) -> &'static str {
        match self {
            PartitionBy::RecordTag => "record_tag",
            PartitionBy::File => "file_id",
        }
    }

    /// The index of that column in `table`'s columns; `None`: the table
    /// has no such column and is written unpartitioned.
    pub fn column_index(self, table: Table) -> Option<usize> {
        let name = self.column();
        table.columns().iter().position(|c| c.name == name)
    }

    /// The directory of the partition of the rows whose partition column
    /// holds `value`: `column=value`, the value percent-escaped as a URI's
    /// path segment is (every octet but letters, digits and `-._~`, which a
    /// tag never needs: tags are letters, digits and `_`), an integer in
    /// decimal, a null or empty value [`DEFAULT_PARTITION`]. The name is
    /// always a safe file name: never empty, `.` or `..`, never with a
    /// separator.
    pub fn dir_name(self, value: Cell<'_>) -> String {
        let value = match value {
            Cell::Int(n) => n.to_string(),
            Cell::Text(s) if !s.is_empty() => crate::escape::percent_encode(s),
            Cell::Null | Cell::Text(_) => DEFAULT_PARTITION.to_string(),
        };
        format!("{}={value}", self.column())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_with_the_column_are_partitioned() {
        let by_tag: Vec<Table> = Table::ALL
            .into_iter()
            .filter(|t| PartitionBy::RecordTag.column_index(*t).is_some())
            .collect();
        assert_eq!(by_tag, [Table::Nodes, Table::Events]);
        assert!(Table::ALL
            .iter()
            .all(|t| PartitionBy::File.column_index(*t).is_some()));
        assert_eq!(PartitionBy::File.column_index(Table::Nodes), Some(0));
        for p in PartitionBy::ALL {
            assert_eq!(PartitionBy::from_name(p.name()), Some(p));
        }
        assert_eq!(PartitionBy::from_name("nodes"), None);
    }

    #[test]
    fn partition_values_are_escaped_into_safe_names() {
        let dir = |c| PartitionBy::RecordTag.dir_name(c);
        assert_eq!(dir(Cell::Text("INDI")), "record_tag=INDI");
        assert_eq!(dir(Cell::Text("_FOO")), "record_tag=_FOO");
        assert_eq!(dir(Cell::Text("a/b=c d%")), "record_tag=a%2Fb%3Dc%20d%25");
        assert_eq!(dir(Cell::Text("..")), "record_tag=..");
        assert_eq!(dir(Cell::Text("Ü")), "record_tag=%C3%9C");
        assert_eq!(dir(Cell::Text("")), "record_tag=__HIVE_DEFAULT_PARTITION__");
        assert_eq!(dir(Cell::Null), "record_tag=__HIVE_DEFAULT_PARTITION__");
        assert_eq!(PartitionBy::File.dir_name(Cell::Int(3)), "file_id=3");
        let value = "a/b=c d%";
        let name = dir(Cell::Text(value));
        let escaped = name.strip_prefix("record_tag=").unwrap();
        assert_eq!(crate::escape::percent_decode(escaped), value);
    }
}
