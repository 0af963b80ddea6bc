//! Tests of an embedded queue: chunks, acks, redelivery.

use super::*;

fn message(n: u32) -> WireMessage {
    WireMessage {
        message_type: Some("test.a.b.v1".into()),
        message_id: Some(format!("m{n}")),
        body: format!(r#"{{"n":{n}}}"#).into_bytes(),
        ..Default::default()
    }
}

fn ready(queue: &Queue) -> Vec<WireMessage> {
    let state = lock(&queue.state);
    state.ready.values().map(|e| (*e.message).clone()).collect()
}

#[test]
fn chunks_hold_messages_in_order_within_their_size() {
    let messages: Vec<Arc<WireMessage>> = (1..=50).map(|n| Arc::new(message(n))).collect();
    let chunks = encode_chunks(&messages, 512).unwrap();
    assert!(chunks.len() > 1);
    assert!(chunks.iter().all(|(bytes, _)| bytes.len() <= 512));
    let decoded: Vec<WireMessage> = chunks
        .iter()
        .flat_map(|(bytes, _)| decode_chunk("q", 1, bytes).unwrap())
        .collect();
    assert_eq!(decoded, (1..=50).map(message).collect::<Vec<_>>());
    let members: usize = chunks.iter().map(|(_, m)| m.len()).sum();
    assert_eq!(members, 50);
}

#[test]
fn a_queue_written_one_message_per_entry_is_still_read() {
    let db = sled::Config::new().temporary(true).open().unwrap();
    let tree = db.open_tree("queue:q").unwrap();
    for seq in [3u64, 5] {
        let bytes = postcard::to_allocvec(&message(seq as u32)).unwrap();
        tree.insert(seq.to_be_bytes(), bytes).unwrap();
    }
    let queue = Queue::load("q", tree).unwrap();
    assert_eq!(ready(&queue), vec![message(3), message(5)]);
}

#[test]
fn markers_hide_settled_messages_and_orphans_are_cleared() {
    let db = sled::Config::new().temporary(true).open().unwrap();
    let tree = db.open_tree("queue:q").unwrap();
    let messages: Vec<Arc<WireMessage>> = (1..=3).map(|n| Arc::new(message(n))).collect();
    let (bytes, _) = encode_chunks(&messages, usize::MAX).unwrap().remove(0);
    tree.insert(9u64.to_be_bytes(), bytes).unwrap();
    tree.insert(Pos { chunk: 9, index: 1 }.marker_key(), &[])
        .unwrap();
    // A marker whose chunk is gone (a crash between the two removals).
    tree.insert(Pos { chunk: 4, index: 0 }.marker_key(), &[])
        .unwrap();
    let queue = Queue::load("q", tree.clone()).unwrap();
    assert_eq!(ready(&queue), vec![message(1), message(3)]);
    assert_eq!(tree.len(), 2, "the chunk and its one marker");
    // Acking the two that are left removes the chunk and its marker.
    for index in [0, 2] {
        let pos = Pos { chunk: 9, index };
        let mut state = lock(&queue.state);
        let entry = state.ready.remove(&pos).unwrap();
        state.unacked.insert(pos, (1, entry));
        state.take_unacked(pos).unwrap();
        let emptied = state.acked(pos);
        drop(state);
        if let Some(emptied) = emptied {
            queue.remove(emptied).unwrap();
        }
    }
    assert!(tree.is_empty());
}

#[test]
fn a_damaged_chunk_is_refused_with_where_it_is() {
    let db = sled::Config::new().temporary(true).open().unwrap();
    let tree = db.open_tree("queue:q").unwrap();
    tree.insert(7u64.to_be_bytes(), chunk::seal(&[200, 0, 0, 0, 1]))
        .unwrap();
    let Err(error) = Queue::load("q", tree) else {
        panic!("a damaged chunk must not load")
    };
    let error = error.to_string();
    assert!(
        error.contains("queue q") && error.contains("chunk 7") && error.contains("inside"),
        "{error}"
    );
}
