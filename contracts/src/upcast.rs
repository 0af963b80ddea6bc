//! Upcasters: how one consumer reads several versions of a message. A consumer registers, in
//! one place, a function per consumed type that turns its payload into the one shape its
//! domain sees (an older version upcast, fields it lacks marked unknown). The registry also
//! names the types to bind, so the bindings and the decoding cannot disagree.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::Message;

type Upcast<T> = Box<dyn Fn(&Value) -> Result<T, String> + Send + Sync>;

/// Functions from each consumed message type to one target shape `T`.
pub struct Upcasters<T> {
    by_type: BTreeMap<&'static str, Upcast<T>>,
}

impl<T> fmt::Debug for Upcasters<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.by_type.keys()).finish()
    }
}

impl<T: 'static> Default for Upcasters<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: 'static> Upcasters<T> {
    /// An empty registry.
    pub fn new() -> Self {
        Upcasters {
            by_type: BTreeMap::new(),
        }
    }

    /// Registers how a payload of `M` becomes a `T`. A type registered twice keeps the later.
    pub fn register<M: Message>(mut self, upcast: impl Fn(M) -> T + Send + Sync + 'static) -> Self {
        self.by_type.insert(
            M::TYPE,
            Box::new(move |payload| {
                M::deserialize(payload)
                    .map(&upcast)
                    .map_err(|e| format!("{}: {e}", M::TYPE))
            }),
        );
        self
    }

    /// The registered message types, in name order (what the consumer binds).
    pub fn types(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.by_type.keys().copied()
    }

    /// Whether a type is registered.
    pub fn knows(&self, message_type: &str) -> bool {
        self.by_type.contains_key(message_type)
    }

    /// The payload of a `message_type` message in the target shape; the error names the type
    /// and what does not decode.
    pub fn upcast(&self, message_type: &str, payload: &Value) -> Result<T, String> {
        let upcast = self.by_type.get(message_type).ok_or_else(|| {
            format!(
                "{message_type} is not consumed here (consumed: {})",
                self.by_type.keys().copied().collect::<Vec<_>>().join(", ")
            )
        })?;
        upcast(payload)
    }
}
