//! A closed standard output ends any command quietly with exit code 0, as Unix tools do
//! (`arcade types | head -1`): done once, here, for every command.
//!
//! - An I/O error of kind `BrokenPipe` that reaches the top of `main` is not reported.
//! - `println!` panics when stdout is closed; the panic hook turns exactly that panic into a
//!   quiet exit 0 (std reports it as "failed printing to stdout: Broken pipe").
//! - The pure tools of the service crates write through [`Watched`]: once stdout is closed,
//!   their own "cannot write" errors are not shown, and the exit code is 0.

use std::cell::Cell;
use std::io::{self, Write};
use std::process::ExitCode;
use std::rc::Rc;

/// Whether `error` (or one of its causes) is a write to a closed pipe.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Installs the panic hook that exits quietly with 0 when printing to a closed stdout panics;
/// every other panic is reported as before.
pub fn exit_quietly_on_closed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        let broken = std::io::Error::from(io::ErrorKind::BrokenPipe).to_string();
        if message.starts_with("failed printing to stdout")
            && (message.contains("os error 32") || message.contains(&broken))
        {
            std::process::exit(0);
        }
        report(info);
    }));
}

/// A writer that notes when its reader went away.
#[derive(Debug)]
pub struct Watched<W> {
    inner: W,
    closed: Rc<Cell<bool>>,
}

impl<W: Write> Watched<W> {
    /// Watches `inner`; `closed` becomes true at its first broken-pipe error.
    pub fn new(inner: W, closed: Rc<Cell<bool>>) -> Self {
        Watched { inner, closed }
    }

    fn note<T>(&self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            self.closed.set(true);
        }
        result
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.note(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.note(result)
    }
}

/// Standard error that says nothing more once stdout is closed (the tool's complaint about its
/// output is not news to the reader who closed it).
#[derive(Debug)]
pub struct QuietAfter<W> {
    inner: W,
    closed: Rc<Cell<bool>>,
}

impl<W: Write> QuietAfter<W> {
    /// Writes to `inner` until `closed`.
    pub fn new(inner: W, closed: Rc<Cell<bool>>) -> Self {
        QuietAfter { inner, closed }
    }
}

impl<W: Write> Write for QuietAfter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed.get() {
            return Ok(buf.len());
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Runs a pure command-line tool of a service crate on the process's stdout and stderr.
pub fn tool(run: impl FnOnce(&mut dyn Write, &mut dyn Write) -> u8) -> ExitCode {
    let closed = Rc::new(Cell::new(false));
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut out = Watched::new(stdout, closed.clone());
    let mut err = QuietAfter::new(std::io::stderr(), closed.clone());
    let code = run(&mut out, &mut err);
    let flushed = out.flush();
    // A closed pipe (`| head`) is the reader's choice, not a failure of the tool.
    if closed.get() {
        return ExitCode::SUCCESS;
    }
    match flushed {
        Ok(()) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: writing the output: {e}");
            ExitCode::FAILURE
        }
    }
}
