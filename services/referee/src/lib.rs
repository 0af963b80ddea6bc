//! Foosball table referee: JSON rules engine, game state machine, ball-lock (IBR) decisions, table hardware
