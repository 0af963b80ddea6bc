//! The race's numbers: budget and prices, module limits, event odds and tables, victory
//! points by square, achievements and their rewards. Where the rule book is explicit it wins
//! (+15 points per 100 squares beyond 300, the four +20 end bonuses, the garage costs one
//! square); where it is silent these are the original master's numbers.

/// Squares of the ring: cars on the same square of the ring (their distances modulo this)
/// meet; scoring keeps the distance driven.
pub const RING_SQUARES: u32 = 300;
/// A team's money above this earns "Picsou".
pub const PICSOU_BUDGET: u32 = 300;
/// A team's money at its first registration, in dollars.
pub const INITIAL_BUDGET: u32 = 100;
/// Most modules a car may have when it registers (it may gain more later).
pub const MAX_MODULES_AT_REGISTRATION: u32 = 10;
/// Squares the garage costs a car that buys a module.
pub const GARAGE_SQUARES: u32 = 1;
/// Turns to miss for going around a mine field (or not answering).
pub const MINE_DETOUR_TURNS: u32 = 3;
/// Turns to miss for exploring a wreck (or not answering at the wreck or garage).
pub const WRECK_TURNS: u32 = 1;
/// Turns to miss for the loser of a duel.
pub const DUEL_LOSS_TURNS: u32 = 1;
/// Turns to miss for an erroneous or missing answer, or a wrong state report.
pub const PENALTY_TURNS: u32 = 1;
/// A crossed mine field's roll (0..=100) below this costs a module.
pub const MINE_HURT_BELOW: u32 = 80;
/// Engines from which a move earns "Rapide comme l'éclair".
pub const FAST_ENGINES: u32 = 8;
/// Weapons from which a fighter earns "Armé jusqu'aux dents".
pub const ARMED_WEAPONS: u32 = 8;
/// Weapons fewer than the loser a winner needs for "Stratège".
pub const STRATEGIST_MARGIN: u32 = 3;
/// Points of each end bonus.
pub const BONUS_POINTS: u32 = 20;
/// Default length of a race: two hours.
pub const DEFAULT_DURATION_MS: u64 = 2 * 60 * 60 * 1000;
/// Default least time between two turns' starts.
pub const DEFAULT_TURN_INTERVAL_MS: u64 = 10_000;
/// Default time a car has to answer.
pub const DEFAULT_DECISION_TIMEOUT_MS: u64 = 5_000;
/// Most turns a race may be configured with (the dice take the turn on 24 bits).
pub const MAX_TURNS: u32 = 100_000;
/// The pirates' name and team.
pub const PIRATES_NAME: &str = "Flying Dutchman";
/// The pirates' team name in fights.
pub const PIRATES_TEAM: &str = "pirates";
/// Most weapons the pirates draw (at least 1).
pub const PIRATES_MAX_WEAPONS: u32 = 8;
/// Modules of the pirates' car.
pub const PIRATES_MODULES: u32 = 10;

/// A kind of module, a random event and an achievement: the contract's `race.*` enums, the same
/// things; the rules about them are the traits [`ModuleRules`] and [`AchievementRules`].
pub use arcade_contracts::race::{Achievement, ModuleKind as Module, RaceEventKind as EventKind};

/// The rules of a kind of module.
pub trait ModuleRules {
    /// Its price at registration and at a garage, in dollars.
    fn price(self) -> u32;
}

impl ModuleRules for Module {
    fn price(self) -> u32 {
        match self {
            Module::Pilot => 1,
            Module::Engine | Module::Weapon => 2,
        }
    }
}

/// A car's modules, and the odds of the random events in percent (read cumulatively in the
/// order nothing, pirates, garage, wreck, mine field): the contract's types, the same things;
/// their rules are the traits [`ModuleCounts`] and [`Odds`].
pub use arcade_contracts::race::{EventDistribution as Distribution, Modules};

/// The rules of a car's modules.
pub trait ModuleCounts {
    /// A car with these counts.
    fn new(pilots: u32, engines: u32, weapons: u32) -> Self;
    /// All modules.
    fn total(&self) -> u32;
    /// Modules of one kind.
    fn count(&self, module: Module) -> u32;
    /// One more of a kind.
    fn gain(&mut self, module: Module);
    /// One less of a kind (none stays none).
    fn lose(&mut self, module: Module);
    /// The price of all of them, in dollars.
    fn price(&self) -> u64;
    /// The kind of the `index`-th module when they are lined up pilots, engines, weapons
    /// (how a random module is picked); `None` past the end.
    fn nth(&self, index: u32) -> Option<Module>;
}

fn slot(modules: &mut Modules, module: Module) -> &mut u32 {
    match module {
        Module::Pilot => &mut modules.pilots,
        Module::Engine => &mut modules.engines,
        Module::Weapon => &mut modules.weapons,
    }
}

impl ModuleCounts for Modules {
    fn new(pilots: u32, engines: u32, weapons: u32) -> Modules {
        Modules {
            pilots,
            engines,
            weapons,
        }
    }

    fn total(&self) -> u32 {
        self.pilots
            .saturating_add(self.engines)
            .saturating_add(self.weapons)
    }

    fn count(&self, module: Module) -> u32 {
        let mut modules = *self;
        *slot(&mut modules, module)
    }

    fn gain(&mut self, module: Module) {
        let slot = slot(self, module);
        *slot = slot.saturating_add(1);
    }

    fn lose(&mut self, module: Module) {
        let slot = slot(self, module);
        *slot = slot.saturating_sub(1);
    }

    fn price(&self) -> u64 {
        u64::from(self.pilots) * u64::from(Module::Pilot.price())
            + u64::from(self.engines) * u64::from(Module::Engine.price())
            + u64::from(self.weapons) * u64::from(Module::Weapon.price())
    }

    fn nth(&self, index: u32) -> Option<Module> {
        if index < self.pilots {
            Some(Module::Pilot)
        } else if index - self.pilots < self.engines {
            Some(Module::Engine)
        } else if index - self.pilots - self.engines < self.weapons {
            Some(Module::Weapon)
        } else {
            None
        }
    }
}

/// Victory points of a car whose farthest square is `square`: 30 → 1, 50 → 2, 100 → 8,
/// 200 → 18, 300 → 30, then 15 more for every 100 squares beyond 300 (the rule book; the
/// original code gave 10 × hundreds from 400).
pub fn distance_points(square: u32) -> u32 {
    match square {
        0..30 => 0,
        30..50 => 1,
        50..100 => 2,
        100..200 => 8,
        200..300 => 18,
        _ => 30 + 15 * ((square - 300) / 100),
    }
}

/// The rules of the odds.
pub trait Odds {
    /// The sum of the odds (valid when 100).
    fn sum(&self) -> u64;
    /// The event a roll in 0..=99 stands for.
    fn event(&self, roll: u32) -> EventKind;
}

impl Odds for Distribution {
    fn sum(&self) -> u64 {
        [
            self.nothing,
            self.pirates,
            self.garage,
            self.wreck,
            self.mine_field,
        ]
        .iter()
        .map(|&p| u64::from(p))
        .sum()
    }

    fn event(&self, roll: u32) -> EventKind {
        let mut bound = 0u32;
        for (odds, kind) in [
            (self.nothing, EventKind::Nothing),
            (self.pirates, EventKind::Pirates),
            (self.garage, EventKind::Garage),
            (self.wreck, EventKind::Wreck),
            (self.mine_field, EventKind::MineField),
        ] {
            bound = bound.saturating_add(odds);
            if roll < bound {
                return kind;
            }
        }
        EventKind::Nothing
    }
}

/// What exploring a wreck gives for a roll in 0..=100: 0–50 nothing, 51–75 an engine, 76–90 a
/// weapon, 91–98 a pilot, 99–100 snakes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WreckFind {
    /// Nothing.
    Nothing,
    /// A module.
    Module(Module),
    /// Snakes: a pilot lost.
    Snakes,
}

/// The wreck table.
pub fn wreck_find(roll: u32) -> WreckFind {
    match roll {
        0..=50 => WreckFind::Nothing,
        51..=75 => WreckFind::Module(Module::Engine),
        76..=90 => WreckFind::Module(Module::Weapon),
        91..=98 => WreckFind::Module(Module::Pilot),
        _ => WreckFind::Snakes,
    }
}

/// The rules of an achievement, a feat worth money and points once per team.
pub trait AchievementRules {
    /// (money in dollars, victory points).
    fn reward(self) -> (u32, u32);
    /// Its name in the rule book.
    fn title(self) -> &'static str;
    /// Its bit in a team's set of achievements.
    fn bit(self) -> u16;
}

impl AchievementRules for Achievement {
    fn reward(self) -> (u32, u32) {
        match self {
            Achievement::MadMax => (1, 1),
            Achievement::RapideCommeLEclair => (5, 2),
            Achievement::ArmeJusquAuxDents => (5, 2),
            Achievement::SnakesOnACar => (0, 1),
            Achievement::AsDuVolant => (0, 1),
            Achievement::Pacifiste => (0, 1),
            Achievement::TriSelectif => (1, 1),
            Achievement::PimpMyRide => (0, 1),
            Achievement::Stratege => (1, 2),
            Achievement::ClicClic
            | Achievement::PanneDEssence
            | Achievement::Ulysse31
            | Achievement::Picsou => (0, 0),
        }
    }

    fn title(self) -> &'static str {
        match self {
            Achievement::MadMax => "Mad Max",
            Achievement::RapideCommeLEclair => "Rapide comme l'éclair",
            Achievement::ArmeJusquAuxDents => "Armé jusqu'aux dents",
            Achievement::SnakesOnACar => "Snakes on a car",
            Achievement::AsDuVolant => "As du volant",
            Achievement::Pacifiste => "Pacifiste",
            Achievement::TriSelectif => "Tri sélectif",
            Achievement::PimpMyRide => "Pimp my ride",
            Achievement::Stratege => "Stratège",
            Achievement::ClicClic => "Clic Clic",
            Achievement::PanneDEssence => "Panne d'essence",
            Achievement::Ulysse31 => "Ulysse 31",
            Achievement::Picsou => "Picsou",
        }
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

#[cfg(test)]
mod tests;
