//! The depths of the consumed durable queues, as the broker last said them: written by the
//! lag watcher (`lag.rs`), read by [`crate::bus::Bus::queue_depth`].

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

/// The last depth read of each watched queue (`None`: not known now).
#[derive(Debug, Default)]
pub(super) struct Depths {
    pub(super) queues: Mutex<BTreeMap<String, Option<u64>>>,
    pub(super) watching: AtomicBool,
}

impl Depths {
    /// The depth of `queue` as last read, if it is watched and was readable.
    pub(super) fn get(&self, queue: &str) -> Option<u64> {
        self.queues.lock().ok()?.get(queue).copied().flatten()
    }

    pub(super) fn queues(&self) -> Vec<String> {
        self.queues
            .lock()
            .map(|queues| queues.keys().cloned().collect())
            .unwrap_or_default()
    }

    pub(super) fn set(&self, queue: &str, depth: Option<u64>) {
        if let Ok(mut queues) = self.queues.lock()
            && let Some(slot) = queues.get_mut(queue)
        {
            *slot = depth;
        }
    }

    pub(super) fn forget_all(&self) {
        if let Ok(mut queues) = self.queues.lock() {
            queues.values_mut().for_each(|depth| *depth = None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_watched_queues_have_a_depth_and_unknown_is_absent() {
        let depths = Depths::default();
        depths.set("a", Some(3));
        assert_eq!(depths.get("a"), None, "an unwatched queue is not recorded");
        depths.queues.lock().unwrap().insert("a".into(), None);
        assert_eq!(depths.get("a"), None);
        depths.set("a", Some(3));
        assert_eq!(depths.get("a"), Some(3));
        depths.forget_all();
        assert_eq!(depths.get("a"), None);
        assert_eq!(depths.queues(), vec!["a".to_string()]);
    }
}
