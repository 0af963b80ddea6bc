//! The referee of one table as a running service on the Arcade runtime.
//!
//! - Its queue (and name) is `referee.<tableId>`: `table.game.start.v1`,
//!   `table.goal.report.v1` and `table.game.abort.v1` addressed to the table arrive there.
//! - The table's goal sensors are polled (every 100 ms, as the source did) while a game is in
//!   progress; each ball is a local input of the host.
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
use arcade_runtime::{
    Context, Decided, Decider, Decoded, HostError, HostHandle, MappingError, Outbound, Runtime,
    Service, ServiceSpec,
};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::display::{DisplayPlan, board_of};
use crate::domain::referee::BallSeen;
use crate::domain::{Event, Input, Referee, Rejection, TableState};
pub use crate::mapping::{Fact, TableInput};
use crate::mapping::{TableCommand, TableRejection, abort_game, goal_report, start_game};
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
    type Input = TableInput;
    type Event = Fact;
    type Rejection = Rejection;

    fn decide(&self, state: &TableState, input: &TableInput, ctx: &Context) -> Decided<Self> {
        let input = match input {
            TableInput::Start(command) => Input::Start(start_game(command, ctx.now_ms)),
            TableInput::Report(command) => Input::Report(goal_report(command, ctx.now_ms)),
            TableInput::Abort(command) => Input::Abort(abort_game(command, ctx.now_ms)),
            TableInput::Ball(ball) => Input::Ball(BallSeen {
                side: ball.side,
                kind: ball.kind,
                at_ms: ctx.now_ms,
            }),
            TableInput::Tick { now_ms } => Input::Tick { now_ms: *now_ms },
        };
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

    fn input(&self, message: &Envelope) -> Result<Decoded<TableInput>, MappingError> {
        match TableCommand::read(&message.message_type, &message.payload)? {
            Some(command) => command.into_domain().map(Decoded::Input),
            None => Err(MappingError::unknown(
                &message.message_type,
                format_args!("the referee of table \"{}\"", self.table_id()),
                TableCommand::TYPES,
            )),
        }
    }

    fn tick(&self, now_ms: u64) -> Option<TableInput> {
        Some(TableInput::Tick { now_ms })
    }

    fn refusal(&self, _input: &TableInput, rejection: &Rejection) -> Vec<Fact> {
        vec![Fact::Refused(rejection.to_message(self.table_id()))]
    }

    fn encode(&self, fact: &Fact) -> Result<Outbound, MappingError> {
        match fact {
            Fact::Table(event) => event.to_message(self.table_id()).outbound(),
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
                Fact::Table(event) => event_game(event),
                Fact::Refused(TableRejection::Game(m)) => &m.game_id,
                Fact::Refused(TableRejection::Goal(m)) => &m.game_id,
            }
            .to_string(),
        )
    }

    fn effect(&self, state: &TableState, fact: &Fact) {
        if let Fact::Table(event) = fact {
            if let Event::IbrChanged { ibr, .. } = event {
                self.set_locks(*ibr);
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

fn event_game(event: &Event) -> &str {
    match event {
        Event::GameStarted { game_id, .. }
        | Event::GoalScored { game_id, .. }
        | Event::PhaseChanged { game_id, .. }
        | Event::IbrChanged { game_id, .. }
        | Event::GameFinished { game_id, .. }
        | Event::GameAborted { game_id, .. } => game_id,
    }
}

/// Starts the referee of table `table_id` on `runtime`, acting on `locks`, with `sensors`
/// read every `poll` while a game is in progress, and the score on `display`.
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
    spawn_sensors(sensors, handle.local(), playing, poll);
    display.start(board, handle.local());
    Ok(handle)
}

/// Reads `sensors` every `poll` while `playing` is true and sends each ball to the host. Ends
/// when the host stops.
pub fn spawn_sensors<S: GoalSensors + Send + 'static>(
    mut sensors: S,
    balls: mpsc::Sender<TableInput>,
    mut playing: watch::Receiver<bool>,
    poll: Duration,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut failing = false;
        loop {
            tokio::select! {
                () = balls.closed() => return,
                waited = playing.wait_for(|p| *p) => if waited.is_err() { return },
            }
            let mut every = tokio::time::interval(poll);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // The first tick is immediate: the first ball is read one period after the start.
            every.tick().await;
            while *playing.borrow() {
                tokio::select! {
                    () = balls.closed() => return,
                    _ = every.tick() => {}
                    changed = playing.changed() => {
                        if changed.is_err() { return }
                        continue;
                    }
                }
                match sensors.poll_ball() {
                    Ok(Some(ball)) => {
                        failing = false;
                        if balls.send(TableInput::Ball(ball)).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => failing = false,
                    Err(error) => {
                        if !failing {
                            warn!(%error, "cannot read the goal sensors; retrying");
                            failing = true;
                        }
                    }
                }
            }
        }
    })
}
