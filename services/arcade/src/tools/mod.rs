//! Tools of the services that need the bus (the pure ones live in the service crates).

pub mod car;
