//! What every Arcade service stands on: event log, inbox, relay, bus (embedded or RabbitMQ), telemetry
