//! The small enums of the snapshot format, version 1: each mirrors a domain enum without
//! data, and the order of its variants is the format (postcard writes a variant as its
//! index). The conversions are exhaustive both ways, so a new domain variant does not compile
//! until the format says how it is written.

use serde::{Deserialize, Serialize};

use crate::domain::decision::Asked;
use crate::domain::event::StopReason;
use crate::domain::rules::EventKind;
use crate::domain::state::{Choice, Stage, Status};

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(in crate::snapshot) enum StatusV1 {
    Registration,
    Running,
    Finished,
}

impl From<Status> for StatusV1 {
    fn from(value: Status) -> Self {
        match value {
            Status::Registration => StatusV1::Registration,
            Status::Running => StatusV1::Running,
            Status::Finished => StatusV1::Finished,
        }
    }
}

impl From<StatusV1> for Status {
    fn from(value: StatusV1) -> Self {
        match value {
            StatusV1::Registration => Status::Registration,
            StatusV1::Running => Status::Running,
            StatusV1::Finished => Status::Finished,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(in crate::snapshot) enum StageV1 {
    BetweenTurns,
    OnTrack,
    Events,
    Combats,
    StateChecks,
}

impl From<Stage> for StageV1 {
    fn from(value: Stage) -> Self {
        match value {
            Stage::BetweenTurns => StageV1::BetweenTurns,
            Stage::OnTrack => StageV1::OnTrack,
            Stage::Events => StageV1::Events,
            Stage::Combats => StageV1::Combats,
            Stage::StateChecks => StageV1::StateChecks,
        }
    }
}

impl From<StageV1> for Stage {
    fn from(value: StageV1) -> Self {
        match value {
            StageV1::BetweenTurns => Stage::BetweenTurns,
            StageV1::OnTrack => Stage::OnTrack,
            StageV1::Events => Stage::Events,
            StageV1::Combats => Stage::Combats,
            StageV1::StateChecks => Stage::StateChecks,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(in crate::snapshot) enum StopV1 {
    NoEngine,
    NoPilot,
    Destroyed,
}

impl From<StopReason> for StopV1 {
    fn from(value: StopReason) -> Self {
        match value {
            StopReason::NoEngine => StopV1::NoEngine,
            StopReason::NoPilot => StopV1::NoPilot,
            StopReason::Destroyed => StopV1::Destroyed,
        }
    }
}

impl From<StopV1> for StopReason {
    fn from(value: StopV1) -> Self {
        match value {
            StopV1::NoEngine => StopReason::NoEngine,
            StopV1::NoPilot => StopReason::NoPilot,
            StopV1::Destroyed => StopReason::Destroyed,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(in crate::snapshot) enum EventKindV1 {
    Nothing,
    Pirates,
    Garage,
    Wreck,
    MineField,
}

impl From<EventKind> for EventKindV1 {
    fn from(value: EventKind) -> Self {
        match value {
            EventKind::Nothing => EventKindV1::Nothing,
            EventKind::Pirates => EventKindV1::Pirates,
            EventKind::Garage => EventKindV1::Garage,
            EventKind::Wreck => EventKindV1::Wreck,
            EventKind::MineField => EventKindV1::MineField,
        }
    }
}

impl From<EventKindV1> for EventKind {
    fn from(value: EventKindV1) -> Self {
        match value {
            EventKindV1::Nothing => EventKind::Nothing,
            EventKindV1::Pirates => EventKind::Pirates,
            EventKindV1::Garage => EventKind::Garage,
            EventKindV1::Wreck => EventKind::Wreck,
            EventKindV1::MineField => EventKind::MineField,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(in crate::snapshot) enum ChoiceV1 {
    Fight,
    Refuse,
    Silent,
}

impl From<Choice> for ChoiceV1 {
    fn from(value: Choice) -> Self {
        match value {
            Choice::Fight => ChoiceV1::Fight,
            Choice::Refuse => ChoiceV1::Refuse,
            Choice::Silent => ChoiceV1::Silent,
        }
    }
}

impl From<ChoiceV1> for Choice {
    fn from(value: ChoiceV1) -> Self {
        match value {
            ChoiceV1::Fight => Choice::Fight,
            ChoiceV1::Refuse => Choice::Refuse,
            ChoiceV1::Silent => Choice::Silent,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(in crate::snapshot) enum AskedV1 {
    ShouldFight,
    CrossMineField,
    ExploreWreck,
    BuyAtGarage,
    DuelAnswer,
    ReportState,
}

impl From<Asked> for AskedV1 {
    fn from(value: Asked) -> Self {
        match value {
            Asked::ShouldFight => AskedV1::ShouldFight,
            Asked::CrossMineField => AskedV1::CrossMineField,
            Asked::ExploreWreck => AskedV1::ExploreWreck,
            Asked::BuyAtGarage => AskedV1::BuyAtGarage,
            Asked::DuelAnswer => AskedV1::DuelAnswer,
            Asked::ReportState => AskedV1::ReportState,
        }
    }
}

impl From<AskedV1> for Asked {
    fn from(value: AskedV1) -> Self {
        match value {
            AskedV1::ShouldFight => Asked::ShouldFight,
            AskedV1::CrossMineField => Asked::CrossMineField,
            AskedV1::ExploreWreck => Asked::ExploreWreck,
            AskedV1::BuyAtGarage => Asked::BuyAtGarage,
            AskedV1::DuelAnswer => Asked::DuelAnswer,
            AskedV1::ReportState => Asked::ReportState,
        }
    }
}
