//! Read models: each game folds the events it cares about into a [`Projection`] of its own;
//! [`Projections`] holds one of each registered game ([`crate::games::GAMES`]) and is the
//! console's state (the fold of its log).
//!
//! A projection is pure: `apply` reads only the observed event (its time included), never a
//! clock or a store. Its snapshot is its own section, tagged with its key and format version:
//! a snapshot that lacks a registered projection's section, or holds it in another version, is
//! refused as a whole, and the host folds the log from the start instead, so adding a game or
//! changing a projection's format never leaves a state the full replay would not give.

use std::any::Any;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::observed::Observed;

/// One game's read model.
pub trait Projection: Any + Send + Sync + std::fmt::Debug {
    /// Its name: the key of its snapshot section (`tables`, `bingo`…), stable across builds.
    fn key(&self) -> &'static str;
    /// The version of its snapshot format; bump it when the encoding changes.
    fn version(&self) -> u32;
    /// Folds one observed event; returns whether anything it shows changed.
    fn apply(&mut self, event: &Observed) -> bool;
    /// Its snapshot section.
    fn encode(&self) -> Result<Vec<u8>, String>;
    /// A projection of the same kind from a section this version wrote.
    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn Projection>, String>;
    /// A copy (the live read model starts from the state rebuilt at start).
    fn boxed_clone(&self) -> Box<dyn Projection>;
    /// For [`Projections::get`].
    fn as_any(&self) -> &dyn Any;
}

/// A game's read model as the game writes it: its key, its format version and its fold. Every
/// one is a [`Projection`], with its snapshot section as JSON.
pub trait ReadModel:
    Clone + Serialize + DeserializeOwned + Any + Send + Sync + std::fmt::Debug
{
    /// [`Projection::key`].
    const KEY: &'static str;
    /// [`Projection::version`].
    const VERSION: u32;
    /// [`Projection::apply`].
    fn apply(&mut self, event: &Observed) -> bool;
}

impl<T: ReadModel> Projection for T {
    fn key(&self) -> &'static str {
        T::KEY
    }

    fn version(&self) -> u32 {
        T::VERSION
    }

    fn apply(&mut self, event: &Observed) -> bool {
        ReadModel::apply(self, event)
    }

    fn encode(&self) -> Result<Vec<u8>, String> {
        serde_json::to_vec(self).map_err(|e| e.to_string())
    }

    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn Projection>, String> {
        serde_json::from_slice::<T>(bytes)
            .map(|p| Box::new(p) as Box<dyn Projection>)
            .map_err(|e| e.to_string())
    }

    fn boxed_clone(&self) -> Box<dyn Projection> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Whether `event` is one of `topic`'s (`<topic>.…`): what a game's fold of one topic takes.
pub fn of_topic(event: &Observed, topic: &str) -> bool {
    event
        .message_type
        .strip_prefix(topic)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// Every registered game's projection: the console's state.
#[derive(Debug)]
pub struct Projections {
    parts: Vec<Box<dyn Projection>>,
    /// Events folded, in all.
    events: u64,
}

impl Clone for Projections {
    fn clone(&self) -> Self {
        Projections {
            parts: self.parts.iter().map(|p| p.boxed_clone()).collect(),
            events: self.events,
        }
    }
}

impl Projections {
    /// These projections, empty, before any event (the registry's are
    /// `Projections::default()`, in `games.rs`).
    pub fn new(parts: Vec<Box<dyn Projection>>) -> Self {
        Projections { parts, events: 0 }
    }

    /// Folds one event into every projection; returns whether any changed.
    pub fn apply(&mut self, event: &Observed) -> bool {
        self.events += 1;
        let mut changed = false;
        for part in &mut self.parts {
            changed |= part.apply(event);
        }
        changed
    }

    /// The projection of type `P`, if registered.
    pub fn get<P: Projection>(&self) -> Option<&P> {
        self.parts
            .iter()
            .find_map(|part| part.as_any().downcast_ref::<P>())
    }

    /// Events folded so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The snapshot: every projection's section.
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        let mut sections = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            sections.push(Section {
                key: part.key().to_string(),
                version: part.version(),
                bytes: part.encode()?,
            });
        }
        postcard::to_allocvec(&Frame {
            events: self.events,
            sections,
        })
        .map_err(|e| e.to_string())
    }

    /// The state back from a snapshot; refused (with which projection and why) when a
    /// registered projection's section is missing, of another version, or unreadable.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let frame: Frame = postcard::from_bytes(bytes).map_err(|e| e.to_string())?;
        let empty = Projections::default();
        let mut parts = Vec::with_capacity(empty.parts.len());
        for part in &empty.parts {
            let section = frame
                .sections
                .iter()
                .find(|s| s.key == part.key())
                .ok_or_else(|| format!("no section for projection `{}`", part.key()))?;
            if section.version != part.version() {
                return Err(format!(
                    "projection `{}` has format version {}, this build reads {}",
                    part.key(),
                    section.version,
                    part.version()
                ));
            }
            parts.push(
                part.decode(&section.bytes)
                    .map_err(|e| format!("projection `{}`: {e}", part.key()))?,
            );
        }
        Ok(Projections {
            parts,
            events: frame.events,
        })
    }
}

/// The console's snapshot format (version [`crate::service::SNAPSHOT_VERSION`], postcard): each
/// section's bytes are its projection's own encoding.
#[derive(Serialize, Deserialize)]
struct Frame {
    events: u64,
    sections: Vec<Section>,
}

#[derive(Serialize, Deserialize)]
struct Section {
    key: String,
    version: u32,
    bytes: Vec<u8>,
}
