//! Strata Relay puzzle rules and generator, and the telemetry service that turns sessions into statistics
