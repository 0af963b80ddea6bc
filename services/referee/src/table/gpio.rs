//! Goal sensors on GPIO lines (`--sensors gpio`): the kernel timestamps each activation edge
//! (Linux GPIO character device, `/dev/gpiochipN`, through the `gpiocdev` crate with the `gpio`
//! feature) and [`GpioSensors`] turns the edges into balls through the [`Debounce`]. The line
//! source is a small trait, so the sensors are tested on edge sequences without a chip.
//!
//! Lines are requested as inputs, active low (a sensor pulls its line to ground while a ball
//! cuts its beam or closes its switch) with the pull-up bias where the chip supports one, and
//! rising-edge detection (inactive to active) on the monotonic clock.

use std::collections::VecDeque;
use std::time::Duration;

use super::debounce::Debounce;
use super::sensors::{SENSOR_NAMES, SensorError, SensorLevel, ball_of};
use super::{Ball, GoalSensors};

/// One sensor line becoming active, stamped by the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineEdge {
    /// The line's offset on its chip.
    pub offset: u32,
    /// When, in nanoseconds of the monotonic clock.
    pub timestamp_ns: u64,
}

/// Where the sensor lines' edges come from: the GPIO character device, or a test's script.
pub trait LineSource {
    /// Appends the activation edges seen since the last call to `edges`, oldest first. Never
    /// blocks.
    fn read_edges(&mut self, edges: &mut Vec<LineEdge>) -> Result<(), SensorError>;
    /// Whether each of `offsets` is active now.
    fn levels(&mut self, offsets: &[u32; 4]) -> Result<[bool; 4], SensorError>;
}

/// The goal sensors on four GPIO lines.
#[derive(Debug)]
pub struct GpioSensors<S> {
    source: S,
    offsets: [u32; 4],
    debounce: Debounce,
    edges: Vec<LineEdge>,
    balls: VecDeque<Ball>,
}

impl<S: LineSource> GpioSensors<S> {
    /// The sensors on lines `offsets` (in `HINGE_GOAL,HINGE_INOUT,LOCK_GOAL,LOCK_INOUT`
    /// order) of `source`, debounced over `window`.
    pub fn new(source: S, offsets: [u32; 4], window: Duration) -> GpioSensors<S> {
        GpioSensors {
            source,
            offsets,
            debounce: Debounce::new(window),
            edges: Vec::new(),
            balls: VecDeque::new(),
        }
    }

    /// The line source (a test's, to look at).
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: LineSource> GoalSensors for GpioSensors<S> {
    type Error = SensorError;

    fn poll_ball(&mut self) -> Result<Option<Ball>, SensorError> {
        self.edges.clear();
        self.source.read_edges(&mut self.edges)?;
        for edge in &self.edges {
            // Edges of lines not requested cannot come; skip rather than guess.
            let Some(index) = self.offsets.iter().position(|o| *o == edge.offset) else {
                continue;
            };
            if self.debounce.accept(edge.timestamp_ns) {
                self.balls.push_back(ball_of(index));
            }
        }
        Ok(self.balls.pop_front())
    }

    fn idle_reads(&self) -> bool {
        true
    }

    fn levels(&mut self) -> Result<Vec<SensorLevel>, SensorError> {
        let active = self.source.levels(&self.offsets)?;
        Ok((0..4)
            .map(|i| SensorLevel {
                sensor: SENSOR_NAMES[i],
                wired: format!("line {}", self.offsets[i]),
                active: active[i],
            })
            .collect())
    }
}

/// The sensor lines of a Linux GPIO chip. The lines are requested at the first read, and
/// requested again after a failure (a chip that came back).
#[cfg(feature = "gpio")]
#[derive(Debug)]
pub struct CdevLines {
    chip: std::path::PathBuf,
    offsets: [u32; 4],
    request: Option<gpiocdev::Request>,
}

#[cfg(feature = "gpio")]
impl CdevLines {
    /// Lines `offsets` of the chip at `chip` (`/dev/gpiochip0`).
    pub fn new(chip: impl Into<std::path::PathBuf>, offsets: [u32; 4]) -> CdevLines {
        CdevLines {
            chip: chip.into(),
            offsets,
            request: None,
        }
    }

    fn error(&self, action: &'static str, error: &gpiocdev::Error) -> SensorError {
        SensorError::Gpio {
            chip: self.chip.display().to_string(),
            action,
            detail: error.to_string(),
        }
    }

    fn request(&mut self) -> Result<&gpiocdev::Request, SensorError> {
        use gpiocdev::line::{Bias, EdgeDetection, EventClock};
        let request = match self.request.take() {
            Some(request) => request,
            None => gpiocdev::Request::builder()
                .on_chip(&self.chip)
                .with_consumer("arcade-referee")
                .with_lines(&self.offsets)
                .as_input()
                .as_active_low()
                .with_bias(Bias::PullUp)
                .with_edge_detection(EdgeDetection::RisingEdge)
                .with_event_clock(EventClock::Monotonic)
                .request()
                .map_err(|e| self.error("requesting the sensor lines", &e))?,
        };
        Ok(self.request.insert(request))
    }
}

#[cfg(feature = "gpio")]
impl LineSource for CdevLines {
    fn read_edges(&mut self, edges: &mut Vec<LineEdge>) -> Result<(), SensorError> {
        let request = self.request()?;
        let read = (|| {
            while request.has_edge_event()? {
                let event = request.read_edge_event()?;
                edges.push(LineEdge {
                    offset: event.offset,
                    timestamp_ns: event.timestamp_ns,
                });
            }
            Ok::<(), gpiocdev::Error>(())
        })();
        read.map_err(|e| {
            let error = self.error("reading edge events", &e);
            self.request = None;
            error
        })
    }

    fn levels(&mut self, offsets: &[u32; 4]) -> Result<[bool; 4], SensorError> {
        let request = self.request()?;
        let mut active = [false; 4];
        let mut failed = None;
        for (i, offset) in offsets.iter().enumerate() {
            match request.value(*offset) {
                Ok(value) => active[i] = value == gpiocdev::line::Value::Active,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        match failed {
            None => Ok(active),
            Some(e) => {
                let error = self.error("reading the line values", &e);
                self.request = None;
                Err(error)
            }
        }
    }
}
