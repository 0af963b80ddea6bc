//! Tools that reach running services (through the admin endpoint of `arcade run` or RabbitMQ),
//! one module per service.

pub mod bingo;
pub mod car;
pub mod duel_ai;
pub mod principals;
pub mod puzzle;
pub mod puzzle_partitions;
pub mod puzzle_stats;
pub mod referee;
pub mod referee_display;
pub mod reference;
pub mod schemas;
