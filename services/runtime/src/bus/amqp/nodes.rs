//! The broker nodes a bus may connect to, and which to try next.
//!
//! `ARCADE_AMQP_URL` may list several nodes of one cluster, comma-separated, each a full URL
//! (`amqp://u:p@host1:5672/vhost,amqp://u:p@host2:5672/vhost`). The bus connects to one at a
//! time; when that connection is lost it tries the next node first (round robin), so a node
//! that is down costs one refused attempt, not the whole backoff. What it published without a
//! confirm, and what it consumed without an ack, are settled as on any lost connection: the
//! relay publishes again from its cursor, the broker delivers again, consumers deduplicate.

use std::sync::atomic::{AtomicUsize, Ordering};

use lapin::uri::AMQPUri;

/// The parsed node URLs, and the position of the one to try first.
#[derive(Debug)]
pub struct Nodes {
    uris: Vec<AMQPUri>,
    /// Each node's URL, its password hidden.
    shown: Vec<String>,
    next: AtomicUsize,
}

/// The URLs of `list` (comma-separated), with `frame_max` and `heartbeat` (seconds) proposed
/// where a URL sets none; the error names the bad entry (password hidden) and why.
pub fn parse(
    list: &str,
    frame_max: Option<u32>,
    heartbeat: Option<u16>,
) -> Result<Nodes, (String, String)> {
    let mut uris = Vec::new();
    let mut shown = Vec::new();
    for entry in list.split(',').map(str::trim) {
        if entry.is_empty() {
            return Err((
                super::redact(list),
                "an empty entry in the list of nodes".into(),
            ));
        }
        let mut uri: AMQPUri = entry
            .parse()
            .map_err(|reason| (super::redact(entry), reason))?;
        if uri.query.frame_max.is_none() {
            uri.query.frame_max = frame_max;
        }
        if uri.query.heartbeat.is_none() {
            uri.query.heartbeat = heartbeat;
        }
        uris.push(uri);
        shown.push(super::redact(entry));
    }
    Ok(Nodes {
        uris,
        shown,
        next: AtomicUsize::new(0),
    })
}

impl Nodes {
    /// The nodes in the order to try them now: the next one first, then round the list.
    pub fn attempts(&self) -> impl Iterator<Item = (usize, &AMQPUri, &str)> {
        let start = self.next.load(Ordering::Relaxed) % self.uris.len();
        (0..self.uris.len()).map(move |k| {
            let i = (start + k) % self.uris.len();
            (i, &self.uris[i], self.shown[i].as_str())
        })
    }

    /// Node `i` answered: after a loss of its connection, the one after it is tried first.
    pub fn connected(&self, i: usize) {
        self.next.store(i + 1, Ordering::Relaxed);
    }

    /// Node `i`'s URL, its password hidden.
    pub fn shown(&self, i: usize) -> &str {
        &self.shown[i % self.shown.len()]
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.uris.len()
    }

    /// Never: a list holds one node at least.
    pub fn is_empty(&self) -> bool {
        self.uris.is_empty()
    }

    /// The first node's parsed URL (for tests of the defaults).
    pub fn first(&self) -> &AMQPUri {
        &self.uris[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_tried_round_robin_from_the_node_after_the_last_good_one() {
        let nodes = parse(
            "amqp://g:pw@127.0.0.1:5701/%2f, amqp://g:pw@127.0.0.1:5702/%2f,amqp://g:pw@127.0.0.1:5703/%2f",
            Some(16384),
            Some(10),
        )
        .unwrap();
        assert_eq!(nodes.len(), 3);
        let order = |n: &Nodes| n.attempts().map(|(i, _, _)| i).collect::<Vec<_>>();
        assert_eq!(order(&nodes), [0, 1, 2]);
        nodes.connected(0);
        assert_eq!(order(&nodes), [1, 2, 0]);
        nodes.connected(2);
        assert_eq!(order(&nodes), [0, 1, 2]);
        assert_eq!(nodes.shown(1), "amqp://g:***@127.0.0.1:5702/%2f");
        assert!(nodes.attempts().all(
            |(_, uri, _)| uri.query.frame_max == Some(16384) && uri.query.heartbeat == Some(10)
        ));
    }

    #[test]
    fn a_bad_entry_is_named_without_its_password() {
        let (entry, _) = parse(
            "amqp://g:pw@127.0.0.1:5701/%2f,http://g:secret@x",
            None,
            None,
        )
        .err()
        .unwrap();
        assert_eq!(entry, "http://g:***@x");
        let (list, reason) = parse("amqp://g:pw@127.0.0.1:5701/%2f,", None, None)
            .err()
            .unwrap();
        assert!(
            !list.contains("pw") && reason.contains("empty"),
            "{list} {reason}"
        );
    }
}
