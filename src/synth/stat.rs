//! Reads the output of Yosys `stat` (as written by `tee -o FILE stat ...`, Yosys 0.23 format)
//! for one flattened module: cells by type, transistor estimate, Liberty chip area.

use std::collections::BTreeMap;

#[derive(Debug, Default, PartialEq)]
pub struct Stat {
    pub cells: BTreeMap<String, u64>,
    /// `stat -tech cmos`; Yosys appends `+` when some cells (black boxes) have no estimate.
    pub transistors: Option<u64>,
    /// `stat -liberty`: cells of unknown area (black boxes) are left out by Yosys.
    pub chip_area: Option<f64>,
}

/// `None` when the text holds no cell statistics.
pub fn parse(text: &str) -> Option<Stat> {
    let mut stat = Stat::default();
    let mut seen_cells = false;
    let mut in_cells = false;
    for line in text.lines().map(str::trim) {
        // The cell list is `TYPE COUNT` lines right after `Number of cells:`.
        if in_cells {
            if let [cell, count] = line.split_whitespace().collect::<Vec<_>>()[..]
                && let Ok(n) = count.parse::<u64>()
            {
                *stat.cells.entry(cell.to_string()).or_default() += n;
                continue;
            }
            in_cells = false;
        }
        if let Some(rest) = line.strip_prefix("Number of cells:") {
            seen_cells = rest.trim().parse::<u64>().is_ok();
            in_cells = true;
        } else if let Some(rest) = line.strip_prefix("Estimated number of transistors:") {
            stat.transistors = rest.trim().trim_end_matches('+').parse().ok();
        } else if line.starts_with("Chip area for module") {
            stat.chip_area = line.rsplit(':').next().and_then(|v| v.trim().parse().ok());
        }
    }
    seen_cells.then_some(stat)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shape of the Debian Yosys 0.23 output for a module with a black-boxed leaf.
    const STAT_023: &str = "
9. Printing statistics.

=== small_mrf ===

   Number of wires:               3533
   Number of cells:               12
     $_ANDNOT_                       5
     $_DFFE_PP_                      3
     small_sram_1r1w_16x128          4

   Area for cell type \\small_sram_1r1w_16x128 is unknown!

   Estimated number of transistors:      34248+
   Chip area for module '\\small_mrf': 70855.456000
";

    #[test]
    fn reads_cells_transistors_and_area() {
        let s = parse(STAT_023).unwrap();
        assert_eq!(s.cells.len(), 3);
        assert_eq!(s.cells["$_DFFE_PP_"], 3);
        assert_eq!(s.cells["small_sram_1r1w_16x128"], 4);
        assert_eq!(s.transistors, Some(34248));
        assert_eq!(s.chip_area, Some(70855.456));
    }

    #[test]
    fn text_without_statistics_is_refused() {
        assert_eq!(parse("ERROR: something\n"), None);
    }
}
