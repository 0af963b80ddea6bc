use super::*;

fn partition(index: u32, count: u32, at: u64) -> Vec<u8> {
    let mut update = PartitionUpdated::example();
    update.partition = index;
    update.partitions = count;
    update.published_at_ms = at;
    serde_json::to_vec(&update).unwrap()
}

#[test]
fn the_newest_of_each_partition_is_merged() {
    let mut gathering = Gathering::new(2);
    gathering.hear(&partition(0, 2, 10)).unwrap();
    assert!(!gathering.complete());
    assert_eq!(gathering.missing(), [1]);
    let mut older = PartitionUpdated::example();
    older.partition = 1;
    older.stages[0].sessions = 0;
    gathering
        .hear(&serde_json::to_vec(&older).unwrap())
        .unwrap();
    // Newer, and valid: it replaces the damaged one, which would be refused.
    gathering.hear(&partition(1, 2, 30)).unwrap();
    // Not one of those asked for.
    gathering.hear(&partition(2, 3, 40)).unwrap();
    assert!(gathering.complete());
    let merged = gathering.merge(Duration::from_secs(1)).unwrap();
    let (_, one) = Stats::from_partition(&PartitionUpdated::example()).unwrap();
    assert_eq!(merged.sessions, 2 * one.sessions());
    assert_eq!(merged.flagged, 2 * one.flagged());
    assert_eq!(merged.published_at_ms, 30);
    assert_eq!(merged.stages[0].sessions, 14);
}

#[test]
fn missing_partitions_and_another_count_are_named() {
    let mut gathering = Gathering::new(4);
    gathering.hear(&partition(1, 4, 1)).unwrap();
    gathering.hear(&partition(3, 4, 1)).unwrap();
    let error = gathering
        .merge(Duration::from_secs(5))
        .unwrap_err()
        .to_string();
    assert!(error.contains("partitions 0, 2 of 4 within 5s"), "{error}");

    let mut gathering = Gathering::new(2);
    gathering.hear(&partition(0, 2, 1)).unwrap();
    gathering.hear(&partition(1, 3, 1)).unwrap();
    let error = gathering
        .merge(Duration::from_secs(5))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("partition 1 reports 3 partitions") && !error.contains("partition 0 "),
        "{error}"
    );

    let mut gathering = Gathering::new(1);
    let mut damaged = PartitionUpdated::example();
    damaged.partition = 0;
    damaged.partitions = 1;
    damaged.stages[2].durations.buckets[0][0] = 5_000;
    gathering
        .hear(&serde_json::to_vec(&damaged).unwrap())
        .unwrap();
    let error = gathering
        .merge(Duration::from_secs(5))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("partition 0: puzzle.partition.updated.v1 stages[2].durations.buckets[0]"),
        "{error}"
    );
    assert!(
        gathering
            .hear(b"{")
            .unwrap_err()
            .contains("does not decode")
    );
}
