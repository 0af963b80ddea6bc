//! The live clients: each opens a page's server-sent events over its own TCP connection from
//! its own loopback address, and records when each frame arrived and what it showed.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use serde::Deserialize;

/// What a client's frames showed, in order: (arrival, value), one entry each time the value
/// moved; values count from the client's first frame (a card's free centre is ticked from
/// the start).
pub type Seen = Vec<(Instant, u64)>;

/// Which number of a frame a scenario follows.
#[derive(Debug, Clone, Copy)]
pub enum Shows {
    /// A bingo card page: the card's ticked cells.
    CardTicks,
    /// `/race`: the turn.
    RaceTurn,
}

#[derive(Deserialize)]
struct Frame<V> {
    view: V,
}

#[derive(Deserialize)]
struct CardView {
    card: Option<Ticked>,
}

#[derive(Deserialize)]
struct Ticked {
    ticked: u64,
}

#[derive(Deserialize)]
struct RaceView {
    turn: Option<u64>,
}

impl Shows {
    /// The number a frame's JSON shows. The race's view is large and the same for every
    /// client: its top-level `"turn":N` is found by its place (keys are sorted: it comes just
    /// before `"turns"`), and one frame in 50 is parsed whole to check that reading.
    fn read(self, data: &str, check: bool) -> u64 {
        match self {
            Shows::CardTicks => serde_json::from_str::<Frame<CardView>>(data)
                .unwrap_or_else(|e| panic!("a card frame: {e}"))
                .view
                .card
                .map_or(0, |c| c.ticked),
            Shows::RaceTurn => {
                let quick = race_turn(data);
                if check || quick.is_none() {
                    let parsed = serde_json::from_str::<Frame<RaceView>>(data)
                        .unwrap_or_else(|e| panic!("a race frame: {e}"))
                        .view
                        .turn
                        .unwrap_or(0);
                    assert_eq!(quick.unwrap_or(0), parsed, "the turn read by its place");
                    return parsed;
                }
                quick.unwrap_or(0)
            }
        }
    }
}

fn race_turn(data: &str) -> Option<u64> {
    data.match_indices(",\"turns\":[").find_map(|(end, _)| {
        let head = &data[..end];
        let digits = head.len() - head.bytes().rev().take_while(u8::is_ascii_digit).count();
        head[..digits]
            .ends_with("\"turn\":")
            .then(|| head[digits..].parse().ok())
            .flatten()
    })
}

/// The loopback address of client `i`, `per_address` clients an address from 127.0.0.2.
pub fn address(i: usize, per_address: usize) -> IpAddr {
    let n = 2 + i / per_address.max(1);
    assert!(
        n < 255,
        "too many clients for 127.0.0.2…254 at {per_address} an address"
    );
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, n as u8))
}

/// One client: follows `url` until a frame shows `last` (or the stream ends), sending `ready`
/// at its first frame. Returns what it saw, or why it could not follow.
pub async fn follow(
    http: reqwest::Client,
    url: String,
    shows: Shows,
    last: u64,
    ready: tokio::sync::mpsc::Sender<()>,
    deadline: Instant,
) -> Result<Seen, String> {
    let mut response = http
        .get(&url)
        .header("Accept", "text/event-stream")
        .send()
        .await
        .map_err(|e| format!("GET {url}: {e}"))?;
    if response.status().as_u16() != 200 {
        return Err(format!("GET {url}: {}", response.status()));
    }
    let (mut buffer, mut seen, mut frames) = (String::new(), Seen::new(), 0u64);
    let (mut current, mut first): (Option<u64>, Option<u64>) = (None, None);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = match tokio::time::timeout(left.max(Duration::from_millis(1)), response.chunk())
            .await
        {
            Ok(Ok(Some(chunk))) => chunk,
            Ok(Ok(None)) => return Err(format!("{url}: the stream ended")),
            Ok(Err(e)) => return Err(format!("{url}: {e}")),
            Err(_) => return Ok(seen),
        };
        let now = Instant::now();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let Some(data) = block.lines().find_map(|l| l.strip_prefix("data:")) else {
                continue;
            };
            frames += 1;
            let read = shows.read(data.trim_start(), frames % 50 == 1);
            let base = *first.get_or_insert(read);
            if current.is_none() {
                let _ = ready.try_send(());
            }
            let value = read.saturating_sub(base);
            if current != Some(value) {
                seen.push((now, value));
                current = Some(value);
            }
        }
        if current.is_some_and(|v| v >= last) {
            return Ok(seen);
        }
    }
}
