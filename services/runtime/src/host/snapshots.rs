//! The host's snapshots: when one is due it is encoded between batches, written on the blocking
//! pool once the log entries it covers are durable, and at start the newest one that checks,
//! decodes and fits the log is restored before the log after it is replayed.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tracing::{debug, warn};

use super::{Flow, Host};
use crate::decider::Service;
#[cfg(doc)]
use crate::snapshot::SnapshotPolicy;
use crate::store::StoreError;
use crate::store::snapshot::FlowEntry;

/// The host's snapshot bookkeeping.
#[derive(Default)]
pub(super) struct Snapshots {
    /// The last log entry the newest snapshot covers (0: none).
    covered: u64,
    /// When it was taken (or the host opened), in real time: what paces encodings by their cost.
    pub(super) since: Option<Instant>,
    /// The same, by the runtime's clock: what the policy's interval is measured on, so that a
    /// manual clock (a simulation of days) takes snapshots as days of a deployment would.
    pub(super) since_ms: Option<u64>,
    /// How long its encoding took.
    cost: Duration,
    /// Encoded, waiting for the entries it covers to be durable: (seq, taken_ms, frame).
    ready: Option<(u64, u64, Vec<u8>)>,
    /// Being written on the blocking pool; gives (seq, taken_ms).
    pub(super) writing: Option<tokio::task::JoinHandle<Result<(u64, u64), StoreError>>>,
}

impl<S: Service> Host<S> {
    /// The newest snapshot that checks, decodes and fits the log, into the state and flows;
    /// the last entry it covers (0: none, replay everything). Each one skipped is logged.
    pub(super) fn restore(&mut self) -> u64 {
        let Some(codec) = self.codec.clone() else {
            return 0;
        };
        let name = &self.spec.name;
        let stored = match self.store.snapshots() {
            Ok(stored) => stored,
            Err(error) => {
                warn!(service = %name, %error, "cannot list snapshots; replaying the whole log");
                return 0;
            }
        };
        let end = self.store.end();
        for candidate in stored {
            let restored = crate::store::snapshot::parse(&candidate, None).and_then(|frame| {
                if frame.seq >= end {
                    return Err(crate::SnapshotError::AheadOfLog {
                        seq: frame.seq,
                        end,
                    });
                }
                let state = codec.read(frame.seq, frame.version, &frame.state)?;
                codec.check_fits(frame.seq, &state)?;
                Ok((frame, state))
            });
            match restored {
                Ok((frame, state)) => {
                    self.state = state;
                    self.flows = frame
                        .flows
                        .into_iter()
                        .map(|f| {
                            (
                                f.flow,
                                Flow {
                                    correlation: f.correlation,
                                    last: f.last,
                                    traceparent: f.traceparent,
                                },
                            )
                        })
                        .collect();
                    self.snapshots.covered = frame.seq;
                    self.counters
                        .snapshot_seq
                        .store(frame.seq, Ordering::Relaxed);
                    self.counters
                        .snapshot_taken_ms
                        .store(frame.taken_ms, Ordering::Relaxed);
                    debug!(service = %name, seq = frame.seq, "state restored from a snapshot");
                    return frame.seq;
                }
                Err(error) => {
                    warn!(service = %name, %error, "snapshot skipped; using an older one or the whole log");
                }
            }
        }
        0
    }

    /// Encodes the state as a snapshot when one is due (see [`SnapshotPolicy`]); it is written
    /// once the entries it covers are durable ([`Host::write_snapshot`]).
    pub(super) fn maybe_snapshot(&mut self) {
        let elapsed = self.snapshots.since.map_or(Duration::MAX, |t| t.elapsed());
        let busy = self.snapshots.ready.is_some()
            || self
                .snapshots
                .writing
                .as_ref()
                .is_some_and(|w| !w.is_finished());
        if busy || elapsed < self.snapshots.cost.saturating_mul(20) || !self.snapshot_due() {
            return;
        }
        self.encode_snapshot();
    }

    /// Whether the policy wants a snapshot of the log as it is: entries after the newest one,
    /// and enough of them or enough time since it.
    fn snapshot_due(&self) -> bool {
        let covered = self.store.end().saturating_sub(1);
        let elapsed = self.snapshots.since_ms.map_or(Duration::MAX, |t| {
            Duration::from_millis(self.clock.now_ms().saturating_sub(t))
        });
        self.codec.is_some()
            && self
                .config
                .snapshots
                .due(covered - self.snapshots.covered.min(covered), elapsed)
    }

    /// On a clean stop, once the whole log is durable: the snapshot the policy wants but that
    /// was put off while the host was busy (one is encoded at most once every 20 times its
    /// encoding cost, and never while another is being written), so the next start replays
    /// no more than the policy allows. Written before the host returns.
    pub(super) async fn snapshot_on_stop(&mut self) {
        self.finish_snapshot_write().await;
        if self.snapshots.ready.is_none() && self.snapshot_due() {
            self.encode_snapshot();
        }
        self.write_snapshot(self.store.end()).await;
        self.finish_snapshot_write().await;
    }

    /// Encodes the state and flows as the snapshot of the log's last entry, to be written once
    /// that entry is durable.
    fn encode_snapshot(&mut self) {
        let Some((version, encode)) = self.codec.as_ref().map(|c| (c.version, c.encode)) else {
            return;
        };
        let covered = self.store.end().saturating_sub(1);
        let started = Instant::now();
        let state = encode(&self.state);
        let flows: Vec<FlowEntry> = self
            .flows
            .iter()
            .map(|(flow, f)| FlowEntry {
                flow: flow.clone(),
                correlation: f.correlation.clone(),
                last: f.last.clone(),
                traceparent: f.traceparent.clone(),
            })
            .collect();
        let taken_ms = self.clock.now_ms();
        let frame = crate::store::snapshot::encode(version, covered, taken_ms, &flows, &state);
        self.snapshots.cost = started.elapsed();
        self.snapshots.since = Some(Instant::now());
        self.snapshots.since_ms = Some(taken_ms);
        self.snapshots.covered = covered;
        self.snapshots.ready = Some((covered, taken_ms, frame));
        debug!(service = %self.spec.name, seq = covered, cost_us = self.snapshots.cost.as_micros() as u64, "snapshot encoded");
    }

    /// Starts writing the encoded snapshot on the blocking pool once the log is durable past
    /// what it covers (`durable_end`: one past the last durable entry).
    pub(super) async fn write_snapshot(&mut self, durable_end: u64) {
        let Some((seq, _, _)) = &self.snapshots.ready else {
            return;
        };
        if *seq >= durable_end {
            return;
        }
        self.finish_snapshot_write().await;
        let Some((seq, taken_ms, frame)) = self.snapshots.ready.take() else {
            return;
        };
        let store = self.store.clone();
        let counters = self.counters.clone();
        self.snapshots.writing = Some(tokio::task::spawn_blocking(move || {
            store.write_snapshot(seq, frame)?;
            // Recorded as soon as it is written, not when the host next looks: an idle service
            // would otherwise report its previous snapshot until its next batch.
            counters.snapshot_seq.store(seq, Ordering::Relaxed);
            counters
                .snapshot_taken_ms
                .store(taken_ms, Ordering::Relaxed);
            Ok((seq, taken_ms))
        }));
    }

    /// Waits for the snapshot being written, if any, and records it.
    pub(super) async fn finish_snapshot_write(&mut self) {
        let Some(writing) = self.snapshots.writing.take() else {
            return;
        };
        match writing.await {
            Ok(Ok((seq, _taken_ms))) => {
                debug!(service = %self.spec.name, seq, "snapshot written");
            }
            Ok(Err(error)) => {
                warn!(service = %self.spec.name, %error, "snapshot not written; the next one will be tried");
            }
            Err(error) => {
                warn!(service = %self.spec.name, %error, "snapshot write failed");
            }
        }
    }
}
