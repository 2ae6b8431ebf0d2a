//! Logs for the operator: every start, warning and failure of background work (webhooks, print
//! jobs, async jobs) goes to stderr and to a daily file in the data folder's `logs/`, the last 14
//! days kept. The filter is `--log` or `RUST_LOG` (default `info`); `debug` adds one line per
//! HTTP request with its id.

use std::path::{Path, PathBuf};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, EnvFilter};

/// Days of log files kept.
pub const KEEP_DAYS: usize = 14;

/// The folder of the log files of a data folder.
pub fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Keeps the file writer flushing; dropping it flushes what is left.
pub struct Logging {
    pub dir: PathBuf,
    _file: tracing_appender::non_blocking::WorkerGuard,
}

/// Starts logging to stderr and to `<data_dir>/logs/packdesk.<date>.log` with `filter` (tracing's
/// `EnvFilter` syntax, e.g. `info` or `packdesk_service=debug`).
pub fn init(data_dir: &Path, filter: &str) -> Result<Logging, String> {
    let dir = log_dir(data_dir);
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(&dir)
        .map_err(|e| format!("cannot create the log folder {}: {e}", dir.display()))?;
    let filter = EnvFilter::try_new(filter).map_err(|e| format!("--log `{filter}`: {e}"))?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("packdesk")
        .filename_suffix("log")
        .max_log_files(KEEP_DAYS)
        .build(&dir)
        .map_err(|e| format!("cannot write logs in {}: {e}", dir.display()))?;
    let (file, guard) = tracing_appender::non_blocking(appender);
    tracing_subscriber::registry()
        .with(filter)
        // No colours on either: span fields are formatted once and shared by both layers, so a
        // coloured terminal would put escape codes into the file.
        .with(fmt::layer().with_ansi(false).with_writer(std::io::stderr))
        .with(fmt::layer().with_ansi(false).with_writer(file))
        .try_init()
        .map_err(|e| format!("logging already started: {e}"))?;
    Ok(Logging { dir, _file: guard })
}
