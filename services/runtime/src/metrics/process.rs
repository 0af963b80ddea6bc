//! The process metrics of the Prometheus client conventions, read from `/proc` at each scrape
//! (Linux; elsewhere none): `process_cpu_seconds_total`, `process_resident_memory_bytes`,
//! `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds`,
//! `process_start_time_seconds`, `process_threads`; and `arcade_build_info{version,commit}`
//! (always 1; the commit the build script found, `unknown` without git).

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Unit;

/// The version the binary was built as.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit the binary was built from (`ARCADE_BUILD_COMMIT` at build time, else `git`),
/// or `unknown`.
pub const COMMIT: &str = env!("ARCADE_BUILD_COMMIT");

/// Clock ticks per second of `/proc`'s CPU times and start time (`USER_HZ`, 100 on every
/// Linux architecture Arcade builds for; the Prometheus clients assume it too).
const USER_HZ: f64 = 100.0;

/// What `/proc` says of this process, each figure absent when it cannot be read.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ProcessFigures {
    /// User and system CPU time, in seconds.
    pub cpu_seconds: Option<f64>,
    /// Resident memory, in bytes.
    pub resident_bytes: Option<u64>,
    /// Virtual memory, in bytes.
    pub virtual_bytes: Option<u64>,
    /// Open file descriptors.
    pub open_fds: Option<u64>,
    /// The soft limit of open file descriptors.
    pub max_fds: Option<u64>,
    /// When the process started, in seconds since the Unix epoch.
    pub start_time_seconds: Option<f64>,
    /// Threads.
    pub threads: Option<u64>,
}

impl ProcessFigures {
    /// This process's figures now.
    pub fn read() -> Self {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let mut figures = ProcessFigures {
            open_fds: std::fs::read_dir("/proc/self/fd")
                .ok()
                .map(|entries| entries.count() as u64),
            max_fds: read("/proc/self/limits").and_then(|text| max_open_files(&text)),
            ..ProcessFigures::default()
        };
        if let Some(status) = read("/proc/self/status") {
            figures.resident_bytes = status_kib(&status, "VmRSS:").map(|k| k * 1024);
            figures.virtual_bytes = status_kib(&status, "VmSize:").map(|k| k * 1024);
            figures.threads = status_kib(&status, "Threads:");
        }
        if let Some(stat) = read("/proc/self/stat") {
            let fields = stat_fields(&stat);
            figures.cpu_seconds = fields
                .as_ref()
                .map(|f| (f.utime + f.stime) as f64 / USER_HZ);
            let boot = read("/proc/stat").and_then(|text| boot_time(&text));
            figures.start_time_seconds = fields
                .zip(boot)
                .map(|(f, boot)| boot as f64 + f.start_ticks as f64 / USER_HZ);
        }
        figures
    }

    /// Encodes the figures read, as the Prometheus client conventions name them.
    pub fn encode(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        if let Some(cpu) = self.cpu_seconds {
            let family = encoder.encode_descriptor(
                "process_cpu",
                "Total user and system CPU time spent.",
                Some(&Unit::Seconds),
                MetricType::Counter,
            )?;
            ConstCounter::new(cpu).encode(family)?;
        }
        let gauges: [(&str, &str, Option<Unit>, Option<f64>); 6] = [
            (
                "process_resident_memory",
                "Resident memory size.",
                Some(Unit::Bytes),
                self.resident_bytes.map(|v| v as f64),
            ),
            (
                "process_virtual_memory",
                "Virtual memory size.",
                Some(Unit::Bytes),
                self.virtual_bytes.map(|v| v as f64),
            ),
            (
                "process_open_fds",
                "Open file descriptors.",
                None,
                self.open_fds.map(|v| v as f64),
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors.",
                None,
                self.max_fds.map(|v| v as f64),
            ),
            (
                "process_start_time",
                "Start time of the process since the Unix epoch.",
                Some(Unit::Seconds),
                self.start_time_seconds,
            ),
            (
                "process_threads",
                "Threads of the process.",
                None,
                self.threads.map(|v| v as f64),
            ),
        ];
        for (name, help, unit, value) in gauges {
            if let Some(value) = value {
                let family =
                    encoder.encode_descriptor(name, help, unit.as_ref(), MetricType::Gauge)?;
                ConstGauge::new(value).encode(family)?;
            }
        }
        Ok(())
    }
}

/// Encodes `arcade_build_info{version,commit} 1`.
pub fn encode_build_info(encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    let mut family = encoder.encode_descriptor(
        "arcade_build_info",
        "The version and commit this binary was built from (always 1).",
        None,
        MetricType::Gauge,
    )?;
    let labels = [("version", VERSION), ("commit", COMMIT)];
    ConstGauge::new(1i64).encode(family.encode_family(&labels)?)
}

/// The fields of `/proc/self/stat` read here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StatFields {
    utime: u64,
    stime: u64,
    start_ticks: u64,
}

/// utime (14), stime (15) and starttime (22) of a `/proc/PID/stat` line; its second field, the
/// command name in parentheses, may hold spaces and parentheses, so fields count from the last
/// `)`.
fn stat_fields(stat: &str) -> Option<StatFields> {
    let after = &stat[stat.rfind(')')? + 1..];
    // `after` starts at field 3 (state).
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some(StatFields {
        utime: field(14)?,
        stime: field(15)?,
        start_ticks: field(22)?,
    })
}

/// A `Key:   N kB` (or `Key: N`) line of `/proc/self/status`.
fn status_kib(status: &str, key: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(key))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The soft limit of `Max open files` in `/proc/self/limits` (`None` when unlimited).
fn max_open_files(limits: &str) -> Option<u64> {
    limits
        .lines()
        .find_map(|line| line.strip_prefix("Max open files"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `btime` of `/proc/stat`: when the machine booted, in seconds since the Unix epoch.
fn boot_time(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|line| line.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stat_line_is_read_from_its_last_parenthesis() {
        let stat = "4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 900 0 0 0 \
                    250 75 0 0 20 0 9 0 123456 104857600 2560 18446744073709551615";
        assert_eq!(
            stat_fields(stat),
            Some(StatFields {
                utime: 250,
                stime: 75,
                start_ticks: 123456
            })
        );
        assert_eq!(stat_fields("4242 (cut short) S 1"), None);
    }

    #[test]
    fn status_limits_and_boot_time() {
        let status = "Name:\tarcade\nVmSize:\t  204800 kB\nVmRSS:\t   10240 kB\nThreads:\t9\n";
        assert_eq!(status_kib(status, "VmRSS:"), Some(10240));
        assert_eq!(status_kib(status, "VmSize:"), Some(204800));
        assert_eq!(status_kib(status, "Threads:"), Some(9));
        assert_eq!(status_kib(status, "VmSwap:"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max open files            1024                 524288               files     \n";
        assert_eq!(max_open_files(limits), Some(1024));
        let unlimited =
            "Max open files            unlimited            unlimited            files\n";
        assert_eq!(max_open_files(unlimited), None);
        assert_eq!(
            boot_time("cpu  1 2 3\nbtime 1765080000\nprocesses 9\n"),
            Some(1765080000)
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_every_figure() {
        let figures = ProcessFigures::read();
        assert!(figures.resident_bytes.is_some_and(|b| b > 0), "{figures:?}");
        assert!(figures.virtual_bytes.is_some_and(|b| b > 0), "{figures:?}");
        assert!(figures.open_fds.is_some_and(|n| n >= 3), "{figures:?}");
        assert!(figures.cpu_seconds.is_some(), "{figures:?}");
        assert!(figures.threads.is_some_and(|n| n >= 1), "{figures:?}");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let started = figures.start_time_seconds.expect("a start time");
        assert!(
            started <= now + 1.0 && started > now - 86_400.0,
            "{started} vs {now}"
        );
    }
}
