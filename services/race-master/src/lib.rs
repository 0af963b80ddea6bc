//! Race master: the game master of a turn-based car race whose cars are independent programs
