//! The `arcade` binary.

fn main() {}
