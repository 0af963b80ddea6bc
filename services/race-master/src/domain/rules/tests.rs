//! Tests of the race's rules.

use super::*;

#[test]
fn nth_lines_modules_up_pilots_engines_weapons() {
    let m = Modules::new(1, 2, 1);
    let kinds: Vec<_> = (0..5).map(|i| m.nth(i)).collect();
    assert_eq!(
        kinds,
        [
            Some(Module::Pilot),
            Some(Module::Engine),
            Some(Module::Engine),
            Some(Module::Weapon),
            None
        ]
    );
}

#[test]
fn the_distribution_reads_cumulatively() {
    let d = Distribution::default();
    assert_eq!(d.event(0), EventKind::Nothing);
    assert_eq!(d.event(49), EventKind::Nothing);
    assert_eq!(d.event(50), EventKind::Pirates);
    assert_eq!(d.event(60), EventKind::Garage);
    assert_eq!(d.event(70), EventKind::Wreck);
    assert_eq!(d.event(85), EventKind::MineField);
    assert_eq!(d.event(99), EventKind::MineField);
}
