//! The table hardware: the exact I2C bytes of the ball locks (against a mock bus), and the
//! simulated table's sensors and locks.

use arcade_referee::table::{
    Ball, BallLocks, GoalSensors, I2cAddresses, I2cBallLocks, I2cLockError, NoSensors,
    SimulatedTable,
};
use arcade_referee::{BallKind, Ibr, IbrLock, Side};
use embedded_hal::i2c::ErrorKind;
use embedded_hal_mock::eh1::i2c::{Mock, Transaction};

const ADDRESSES: I2cAddresses = I2cAddresses {
    hinge: 0x20,
    lock: 0x21,
};

#[test]
fn lock_writes_0x51_0x00_and_release_0x51_0x01_at_each_sides_address() {
    let bus = Mock::new(&[
        Transaction::write(0x20, vec![0x51, 0x00]),
        Transaction::write(0x21, vec![0x51, 0x01]),
        Transaction::write(0x21, vec![0x51, 0x00]),
        Transaction::write(0x20, vec![0x51, 0x01]),
    ]);
    let mut locks = I2cBallLocks::new(bus, ADDRESSES).unwrap();
    locks.set_lock(Side::Hinge, IbrLock::Locked).unwrap();
    locks.set_lock(Side::Lock, IbrLock::Released).unwrap();
    locks.set_lock(Side::Lock, IbrLock::Locked).unwrap();
    locks.set_lock(Side::Hinge, IbrLock::Released).unwrap();
    locks.release_bus().done();
}

#[test]
fn a_decision_is_applied_hinge_first() {
    let bus = Mock::new(&[
        Transaction::write(0x20, vec![0x51, 0x00]),
        Transaction::write(0x21, vec![0x51, 0x01]),
    ]);
    let mut locks = I2cBallLocks::new(bus, ADDRESSES).unwrap();
    locks
        .apply(Ibr {
            hinge: IbrLock::Locked,
            lock: IbrLock::Released,
        })
        .unwrap();
    locks.release_bus().done();
}

#[test]
fn a_bus_error_names_the_side_and_address() {
    let bus = Mock::new(&[Transaction::write(0x21, vec![0x51, 0x00]).with_error(ErrorKind::Other)]);
    let mut locks = I2cBallLocks::new(bus, ADDRESSES).unwrap();
    let error = locks.set_lock(Side::Lock, IbrLock::Locked).unwrap_err();
    assert!(matches!(
        error,
        I2cLockError::Write {
            side: Side::Lock,
            address: 0x21,
            kind: ErrorKind::Other,
            ..
        }
    ));
    assert!(
        error
            .to_string()
            .starts_with("writing the lock ball lock at I2C address 0x21 failed"),
        "{error}"
    );
    locks.release_bus().done();
}

#[test]
fn an_address_beyond_7_bits_is_refused() {
    let mut bus = Mock::new(&[]);
    let error = I2cBallLocks::new(
        bus.clone(),
        I2cAddresses {
            hinge: 0x20,
            lock: 0x80,
        },
    )
    .unwrap_err();
    assert_eq!(
        error,
        I2cLockError::Address {
            side: Side::Lock,
            address: 0x80
        }
    );
    bus.done();
}

#[test]
fn a_scripted_table_gives_its_balls_in_order_then_none() {
    let balls = [
        Ball {
            side: Side::Lock,
            kind: BallKind::Goal,
        },
        Ball {
            side: Side::Hinge,
            kind: BallKind::Inout,
        },
    ];
    let mut table = SimulatedTable::scripted(balls);
    assert_eq!(table.poll_ball().unwrap(), Some(balls[0]));
    assert_eq!(table.poll_ball().unwrap(), Some(balls[1]));
    assert_eq!(table.poll_ball().unwrap(), None);
}

#[test]
fn a_random_table_is_the_same_for_the_same_seed_and_uses_both_sides_and_kinds() {
    let draw = |seed| {
        let mut table = SimulatedTable::random(seed);
        (0..200)
            .map(|_| table.poll_ball().unwrap().unwrap())
            .collect::<Vec<_>>()
    };
    let balls = draw(7);
    assert_eq!(balls, draw(7));
    assert_ne!(balls, draw(8));
    for side in Side::ALL {
        for kind in BallKind::ALL {
            assert!(
                balls.contains(&Ball { side, kind }),
                "{side} {kind} never drawn"
            );
        }
    }
}

#[test]
fn the_simulated_locks_record_every_write() {
    let mut table = SimulatedTable::scripted([]);
    assert_eq!(table.lock(Side::Hinge), None);
    table.apply(Ibr::LOCKED).unwrap();
    table.set_lock(Side::Lock, IbrLock::Released).unwrap();
    assert_eq!(table.lock(Side::Hinge), Some(IbrLock::Locked));
    assert_eq!(table.lock(Side::Lock), Some(IbrLock::Released));
    assert_eq!(
        table.writes(),
        [
            (Side::Hinge, IbrLock::Locked),
            (Side::Lock, IbrLock::Locked),
            (Side::Lock, IbrLock::Released)
        ]
    );
}

#[test]
fn no_sensors_never_see_a_ball() {
    assert_eq!(NoSensors.poll_ball().unwrap(), None);
}
