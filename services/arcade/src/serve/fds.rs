//! How many connections a listener may serve within the process's open-file limit.

/// File descriptors kept for what is not a served connection: the bus's and logs' files, the
/// listeners, outgoing connections.
const RESERVED_FDS: usize = 256;

/// `wanted` connections for a listener whose `setting` asked for them, or fewer when they,
/// the other listeners' `others` and [`RESERVED_FDS`] would not fit in the process's open-file
/// limit (`ulimit -n`, read from `/proc/self/limits`): then a warning names the setting.
pub fn within_fd_limit(wanted: usize, others: usize, setting: &str) -> usize {
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| open_file_limit(&text));
    let fitted = fit(wanted, others, limit);
    if fitted < wanted {
        tracing::warn!(
            setting,
            wanted,
            serving = fitted,
            open_file_limit = limit,
            "fewer connections than asked: raise the open-file limit (ulimit -n)"
        );
    }
    fitted
}

/// The soft `Max open files` of a `/proc/<pid>/limits` text (`None`: unlimited or unknown).
fn open_file_limit(limits: &str) -> Option<usize> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// What of `wanted` fits beside `others` and the reserve in `limit` (at least 64).
fn fit(wanted: usize, others: usize, limit: Option<usize>) -> usize {
    match limit {
        Some(limit) => wanted.min(limit.saturating_sub(RESERVED_FDS + others).max(64)),
        None => wanted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_kept_within_the_open_file_limit() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max open files            1024                 524288               files\n";
        assert_eq!(open_file_limit(limits), Some(1024));
        assert_eq!(
            open_file_limit("Max open files unlimited unlimited files"),
            None
        );
        assert_eq!(fit(2048, 1024, Some(20_000)), 2048, "room enough");
        assert_eq!(fit(2048, 1024, Some(2048)), 2048 - 1024 - RESERVED_FDS);
        assert_eq!(fit(2048, 1024, Some(1024)), 64, "never none");
        assert_eq!(fit(2048, 1024, None), 2048);
    }
}
