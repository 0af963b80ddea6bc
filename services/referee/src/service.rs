//! The referee of one table as a running service on the Arcade runtime.
//!
//! - Its queue (and name) is `referee.<tableId>`: `table.game.start.v1`,
//!   `table.goal.report.v1` and `table.game.abort.v1` addressed to the table arrive there.
//! - The table's goal sensors are polled (every 100 ms, as the source did) while a game is in
//!   progress (real sensors between games too: such a ball is logged and counted, not
//!   scored); each ball is a local input of the host, the same path as a reported goal. A
//!   sensor that cannot be read makes the process not ready (part `goal_sensors`) until it
//!   reads again.
//! - The game clock is the runtime's clock: the host sends a tick at the game's timeout
//!   ([`Referee::next_deadline`]).
//! - The ball locks are set in [`Service::effect`], once the `table.ibr.changed.v1` that decides
//!   them is durable in the log, and set again at start ([`Service::resume`]) from the state the
//!   log rebuilds.
//! - The score display ([`crate::display`]) follows the state each applied event leaves
//!   ([`RefereeService::board`]), in its own task.
//! - Events leave through the runtime's relay: with no broker the referee keeps refereeing and
//!   the whole game goes out, in order, when the connection is back.

use std::sync::Mutex;
use std::time::Duration;

use arcade_contracts::Envelope;
use arcade_contracts::table::referee_queue;
use arcade_runtime::parts::Part;
use arcade_runtime::{
    Context, Decided, Decider, Decoded, HostError, HostHandle, MappingError, Outbound, Runtime,
    Service, ServiceSpec,
};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::display::{DisplayPlan, board_of};
pub use crate::domain::Input;
use crate::domain::{Event, Ibr, Referee, Rejection, TableState};
pub use crate::mapping::Fact;
use crate::mapping::{TableCommand, TableEvent, TableRejection};
use crate::table::{BallLocks, GoalSensors};

/// How often the goal sensors are read by default (the source polled I2C every 100 ms).
pub const DEFAULT_POLL: Duration = Duration::from_millis(100);

/// The referee of one table, with its ball locks.
#[derive(Debug)]
pub struct RefereeService<L> {
    referee: Referee,
    locks: Mutex<LockWriter<L>>,
    playing: watch::Sender<bool>,
    board: watch::Sender<Option<arcade_scoreboard::Board>>,
}

#[derive(Debug)]
struct LockWriter<L> {
    locks: L,
    failing: bool,
}

impl<L: BallLocks + Send + 'static> RefereeService<L> {
    /// The referee of table `table_id`, acting on `locks`.
    pub fn new(table_id: impl Into<String>, locks: L) -> RefereeService<L> {
        RefereeService {
            referee: Referee::new(table_id),
            locks: Mutex::new(LockWriter {
                locks,
                failing: false,
            }),
            playing: watch::channel(false).0,
            board: watch::channel(None).0,
        }
    }

    /// The table it referees.
    pub fn table_id(&self) -> &str {
        self.referee.table_id()
    }

    /// Whether a game is being played, as the durable log says (the sensor poller reads
    /// balls only then).
    pub fn playing(&self) -> watch::Receiver<bool> {
        self.playing.subscribe()
    }

    /// What the score display shows, as the durable log says.
    pub fn board(&self) -> watch::Receiver<Option<arcade_scoreboard::Board>> {
        self.board.subscribe()
    }

    fn set_locks(&self, ibr: crate::domain::Ibr) {
        let mut writer = self
            .locks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match writer.locks.apply(ibr) {
            Ok(()) => {
                if writer.failing {
                    info!(table = %self.table_id(), ?ibr, "ball locks written again");
                }
                writer.failing = false;
            }
            Err(error) => {
                // The decision stays in the log; the next change (or a restart) writes both
                // locks again.
                warn!(table = %self.table_id(), ?ibr, %error, "cannot set the ball locks");
                writer.failing = true;
            }
        }
    }

    fn track_game(&self, state: &TableState) {
        let playing = state.game().is_some_and(|g| g.in_progress());
        self.playing.send_if_modified(|p| {
            let changed = *p != playing;
            *p = playing;
            changed
        });
        let board = board_of(state);
        self.board.send_if_modified(|b| {
            let changed = *b != board;
            *b = board;
            changed
        });
    }
}

impl<L: BallLocks + Send + 'static> Decider for RefereeService<L> {
    type State = TableState;
    type Input = Input;
    type Event = Fact;
    type Rejection = Rejection;

    fn decide(&self, state: &TableState, input: &Input, ctx: &Context) -> Decided<Self> {
        let input = input.clone().at(ctx.now_ms);
        let events = self.referee.decide(state, &input)?;
        Ok(events.into_iter().map(Fact::Table).collect())
    }

    fn evolve(state: &mut TableState, fact: &Fact) {
        if let Fact::Table(event) = fact {
            Referee::evolve(state, event);
        }
    }

    fn next_deadline(&self, state: &TableState) -> Option<u64> {
        Referee::next_deadline(state)
    }
}

impl<L: BallLocks + Send + 'static> Service for RefereeService<L> {
    fn spec(&self) -> ServiceSpec {
        let queue = referee_queue(self.table_id());
        ServiceSpec::new(queue.clone(), queue, Vec::new())
    }

    fn input(&self, message: &Envelope) -> Result<Decoded<Input>, MappingError> {
        match TableCommand::read(&message.message_type, &message.payload)? {
            Some(command) => Ok(Decoded::Input(command.into())),
            None => Err(MappingError::unknown(
                &message.message_type,
                format_args!("the referee of table \"{}\"", self.table_id()),
                TableCommand::TYPES,
            )),
        }
    }

    fn tick(&self, now_ms: u64) -> Option<Input> {
        Some(Input::Tick { now_ms })
    }

    fn refusal(&self, _input: &Input, rejection: &Rejection) -> Vec<Fact> {
        vec![Fact::Refused(rejection.to_message(self.table_id()))]
    }

    fn encode(&self, fact: &Fact) -> Result<Outbound, MappingError> {
        match fact {
            Fact::Table(event) => TableEvent::from(event).outbound(),
            Fact::Refused(refusal) => refusal.outbound(),
        }
    }

    fn snapshots(&self) -> Option<arcade_runtime::Codec<TableState>> {
        Some(arcade_runtime::Codec::of::<Self>())
    }

    fn decode(&self, envelope: &Envelope) -> Result<Fact, MappingError> {
        Fact::from_log(&envelope.message_type, &envelope.payload)
    }

    fn flow_of_event(&self, fact: &Fact) -> Option<String> {
        Some(
            match fact {
                Fact::Table(event) => event.game_id(),
                Fact::Refused(TableRejection::Game(m)) => &m.game_id,
                Fact::Refused(TableRejection::Goal(m)) => &m.game_id,
            }
            .to_string(),
        )
    }

    fn effect(&self, state: &TableState, fact: &Fact) {
        if let Fact::Table(event) = fact {
            if let Event::IbrChanged(m) = event {
                self.set_locks(Ibr::new(m.hinge, m.lock));
            }
            self.track_game(state);
        }
    }

    fn resume(&self, state: &TableState) {
        if let Some(ibr) = state.ibr() {
            self.set_locks(ibr);
        }
        self.track_game(state);
    }
}

/// The name of the goal sensors among the process's parts (`/ready`, `arcade_part_*`).
pub const SENSORS_PART: &str = "goal_sensors";

/// Starts the referee of table `table_id` on `runtime`, acting on `locks`, with `sensors`
/// read every `poll` (while a game is in progress, or always for real sensors), and the score on
/// `display`. The sensors report as the part [`SENSORS_PART`] of the runtime.
pub fn start<L, S>(
    runtime: &Runtime,
    table_id: &str,
    locks: L,
    sensors: S,
    poll: Duration,
    display: DisplayPlan,
) -> Result<HostHandle<RefereeService<L>>, HostError>
where
    L: BallLocks + Send + 'static,
    S: GoalSensors + Send + 'static,
{
    let service = RefereeService::new(table_id, locks);
    let playing = service.playing();
    let board = service.board();
    let handle = runtime.start(service)?;
    let part = runtime.parts().part(SENSORS_PART);
    spawn_sensors(sensors, handle.local(), playing, poll, part);
    display.start(board, handle.local());
    Ok(handle)
}

/// Reads `sensors` every `poll` and sends each ball to the host while `playing` is true. Real
/// sensors ([`GoalSensors::idle_reads`]) are read between games too: a ball then is logged and
/// counted (`ball_while_idle`), not scored. A read that fails marks `part` failing (one log
/// line per outage) and is retried at the next period; the first good read marks it working
/// again. Ends when the host stops.
pub fn spawn_sensors<S: GoalSensors + Send + 'static>(
    mut sensors: S,
    balls: mpsc::Sender<Input>,
    mut playing: watch::Receiver<bool>,
    poll: Duration,
    part: Part,
) -> JoinHandle<()> {
    let idle_reads = sensors.idle_reads();
    tokio::spawn(async move {
        loop {
            if !idle_reads {
                tokio::select! {
                    () = balls.closed() => return,
                    waited = playing.wait_for(|p| *p) => if waited.is_err() { return },
                }
            }
            let mut every = tokio::time::interval(poll);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // The first tick is immediate: the first ball is read one period after the start.
            every.tick().await;
            loop {
                if !idle_reads && !*playing.borrow() {
                    break;
                }
                tokio::select! {
                    () = balls.closed() => return,
                    _ = every.tick() => {}
                    changed = playing.changed(), if !idle_reads => {
                        if changed.is_err() { return }
                        continue;
                    }
                }
                let in_game = *playing.borrow();
                if !in_game && !idle_reads {
                    break;
                }
                match sensors.poll_ball() {
                    Ok(ball) => {
                        if part.recover() {
                            info!(part = part.name(), "goal sensors read again");
                        }
                        let Some(ball) = ball else { continue };
                        if in_game {
                            part.count("ball");
                            if balls.send(Input::from(ball)).await.is_err() {
                                return;
                            }
                        } else {
                            part.count("ball_while_idle");
                            info!(side = %ball.side, kind = %ball.kind, "ball sensed while no game is played: not scored");
                        }
                    }
                    Err(error) => {
                        if part.fail(error.to_string()) {
                            warn!(part = part.name(), %error, "cannot read the goal sensors; retrying every period, goals reported over the bus still count");
                        }
                    }
                }
            }
        }
    })
}
