//! The race master's behaviour, as given/when/then: given past facts, when an input, then
//! these facts or this refusal. One test binary for all (it links once).

mod support;

mod account;
mod achievements;
mod combats;
mod duel_examples;
mod duel_properties;
mod events;
mod penalties;
mod pirates;
mod registration;
mod ring;
mod scoring;
mod simulate;
