//! A seeded headless player: plays real Strata Relay sessions through the public pulse rule
//! and reports what a client would publish (`turns`, `outcome`, `durationMs`). The producer for
//! `arcade puzzle simulate`, the demo and load tests.
//!
//! The player model, per session (all draws from a SplitMix64 stream seeded by the caller):
//! - 4 % open the board and leave at once (abandoned, 0 turns);
//! - before each turn, 2.5 % leave (abandoned, the turns so far);
//! - if a single pulse wins now, the player spots it 60 % of the time and plays it (so some
//!   wins are shorter than the move limit);
//! - otherwise a mistake (a pulse on a random mutable cell) with probability
//!   `1.5 % + 2 % × stage`, else the next pulse of the witness not yet played; with the
//!   witness used up and no win, random pulses until the budget is spent (failed).
//!
//! Duration: reading the board `2–6 s × (1 + stage / 5)`, then per turn a think time of
//! `(800 + 400 × stage) ms` times a triangular factor in `[0.5, 2.5]`, and one turn in ten is a
//! hesitation of 2–4 times that. Integer arithmetic only, so durations are identical on
//! every platform.

use arcade_contracts::game::{GameSessionCompleted, GameSessionCompletedV2, Pulse};

use super::strata::{CELLS, Cell, MAX_WITNESS, Puzzle, Stage, State};
use super::telemetry::Outcome;

/// A SplitMix64 stream: small, fast and the same everywhere.
#[derive(Debug, Clone)]
pub struct BotRng(u64);

impl BotRng {
    /// A stream from a seed.
    pub fn new(seed: u64) -> Self {
        BotRng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A draw in `0..n` (`n ≥ 1`), by multiply-shift.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n.max(1))) >> 64) as u64
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
}

/// What a played session reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// Pulses played.
    pub turns: u32,
    /// How it ended.
    pub outcome: Outcome,
    /// Simulated wall-clock length in milliseconds.
    pub duration_ms: u64,
    /// The cells pulsed, in order (the first `turns`).
    cells: [Cell; MAX_WITNESS],
}

impl Played {
    /// The cells pulsed, in order.
    pub fn moves(&self) -> &[Cell] {
        &self.cells[..self.turns as usize]
    }
}

fn think_ms(stage: Stage, rng: &mut BotRng) -> u64 {
    let base = 800 + 400 * u64::from(stage.number());
    // Triangular factor in [0.5, 2.5], in thousandths.
    let factor = 500 + rng.below(1001) + rng.below(1001);
    let hesitation = if rng.chance(100) { 2 + rng.below(3) } else { 1 };
    base * factor / 1000 * hesitation
}

fn winning_pulse(state: &State) -> Option<Cell> {
    (0..CELLS)
        .filter_map(Cell::from_index)
        .find(|&cell| state.pulse(cell).is_ok_and(|p| p.state.is_won()))
}

fn random_mutable(state: &State, rng: &mut BotRng) -> Cell {
    let ground = state.mutable_cells();
    let pick = rng.below(ground.len() as u64) as usize;
    ground.iter().nth(pick).unwrap_or(state.source())
}

/// Plays one session of `puzzle` with a player drawn from `rng`.
pub fn play(puzzle: &Puzzle, rng: &mut BotRng) -> Played {
    let stage = puzzle.stage();
    let reading = (2_000 + rng.below(4_001)) * (5 + u64::from(stage.number())) / 5;
    let mut duration_ms = reading;
    let mut state = puzzle.start();
    let mut plan = [Cell::new(0, 0); MAX_WITNESS];
    let mut plan_len = 0;
    for cell in puzzle.witness() {
        plan[plan_len] = cell;
        plan_len += 1;
    }
    let mut next_in_plan = 0;
    let mistake = 15 + 20 * u64::from(stage.number());
    let mut cells = [Cell::new(0, 0); MAX_WITNESS];
    let abandoned = |turns: u8, duration_ms, cells| Played {
        turns: turns.into(),
        outcome: Outcome::Abandoned,
        duration_ms,
        cells,
    };
    if rng.chance(40) {
        return abandoned(0, duration_ms, cells);
    }
    while !state.is_finished() {
        if rng.chance(25) {
            return abandoned(state.turn(), duration_ms, cells);
        }
        duration_ms += think_ms(stage, rng);
        let cell = match winning_pulse(&state) {
            Some(cell) if rng.chance(600) => cell,
            _ if next_in_plan < plan_len && !rng.chance(mistake) => {
                next_in_plan += 1;
                plan[next_in_plan - 1]
            }
            _ => random_mutable(&state, rng),
        };
        match state.pulse(cell) {
            Ok(pulsed) => {
                cells[usize::from(state.turn())] = cell;
                state = pulsed.state;
            }
            // Only reachable on a board without ground: the player gives up.
            Err(_) => return abandoned(state.turn(), duration_ms, cells),
        }
    }
    Played {
        turns: state.turn().into(),
        outcome: if state.is_won() {
            Outcome::Won
        } else {
            Outcome::Failed
        },
        duration_ms,
        cells,
    }
}

/// A simulated session: what a v1 producer reports, and the cells a v2 producer adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulatedSession {
    /// The session as `game.session.completed.v1`.
    pub v1: GameSessionCompleted,
    /// The cells pulsed, in order.
    pub moves: Vec<Pulse>,
}

impl SimulatedSession {
    /// The session as `game.session.completed.v2`, from a producer of this version.
    pub fn v2(&self, producer_version: &str) -> GameSessionCompletedV2 {
        let v1 = &self.v1;
        GameSessionCompletedV2 {
            game_id: v1.game_id.clone(),
            seed: v1.seed,
            stage: v1.stage,
            outcome: v1.outcome,
            turns: v1.turns,
            duration_ms: v1.duration_ms,
            moves: self.moves.clone(),
            producer_version: producer_version.to_string(),
        }
    }
}

/// Produces a stream of simulated sessions: puzzle seed and stage drawn, then played.
#[derive(Debug, Clone)]
pub struct Simulator {
    rng: BotRng,
    run: u64,
    played: u64,
}

/// How often each stage is drawn when none is asked for (players reach later stages less).
const STAGE_WEIGHTS: [u64; 5] = [30, 25, 20, 15, 10];

impl Simulator {
    /// A simulator; the same seed gives the same sessions.
    pub fn new(seed: u64) -> Self {
        let mut rng = BotRng::new(seed);
        let run = rng.next_u64() & 0xffff_ffff;
        Simulator {
            rng,
            run,
            played: 0,
        }
    }

    /// Plays the next session, at `stage` or at a drawn stage, as `game.session.completed.v1`.
    pub fn session(&mut self, stage: Option<Stage>) -> GameSessionCompleted {
        self.play(stage).v1
    }

    /// Plays the next session, at `stage` or at a drawn stage, with its moves. Its `gameId`
    /// depends only on the simulator's seed and the session's rank, so the same seed replays
    /// the same sessions under the same ids.
    pub fn play(&mut self, stage: Option<Stage>) -> SimulatedSession {
        let stage = stage.unwrap_or_else(|| {
            let mut draw = self.rng.below(STAGE_WEIGHTS.iter().sum());
            let index = STAGE_WEIGHTS
                .iter()
                .position(|&w| {
                    let hit = draw < w;
                    draw = draw.saturating_sub(w);
                    hit
                })
                .unwrap_or(0);
            Stage::ALL[index]
        });
        let (seed, puzzle) = loop {
            let seed = self.rng.below(1 << 31) as i64;
            if let Ok(puzzle) = Puzzle::generate(seed, stage) {
                break (seed, puzzle);
            }
        };
        let played = play(&puzzle, &mut self.rng);
        self.played += 1;
        SimulatedSession {
            v1: GameSessionCompleted {
                game_id: format!("sim-{:08x}-{}", self.run, self.played),
                seed,
                stage: stage.number(),
                outcome: played.outcome,
                turns: played.turns,
                duration_ms: played.duration_ms,
            },
            moves: played.moves().iter().map(|c| Pulse([c.x, c.y])).collect(),
        }
    }
}
