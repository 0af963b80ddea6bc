//! `arcade demo`: a scripted showcase on a fresh temporary data dir. Every service adds its act;
//! the demo prints what happens and a summary, and exits by itself.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{Runtime, SubscriptionSpec};
use serde_json::json;

use crate::cli::DemoArgs;
use crate::host::{start_services, stop_all};

pub async fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let temporary = tempfile::tempdir()?;
    let data = args.data.unwrap_or_else(|| temporary.path().to_path_buf());
    crate::host::prepare_data_dir(&data)?;
    let bus = EmbeddedBus::open(&data.join("bus"))?;
    let runtime = Runtime::new(Arc::new(bus.clone())).with_data_dir(&data);
    println!("Arcade demo — data in {}", data.display());
    let services = start_services(&runtime)?;
    println!("services: {}", services.iter().map(|s| s.name().to_string()).collect::<Vec<_>>().join(", "));

    // The contract at the boundary: an invalid payload is refused before anything is published.
    println!("\n== contract: every payload is checked against its schema");
    let mut tap = runtime.bus().subscribe(&SubscriptionSpec::temporary("demo.tap", vec!["#".into()])).await?;
    let bad = json!({"gameId":"demo","seed":7,"stage":9,"outcome":"won","turns":3,"durationMs":1000});
    match runtime.send("game.session.completed.v1", bad, "demo").await {
        Ok(_) => anyhow::bail!("an invalid payload was accepted"),
        Err(e) => println!("refused: {e}"),
    }
    let good = json!({"gameId":"demo","seed":7,"stage":2,"outcome":"won","turns":3,"durationMs":1000});
    let sent = runtime.send("game.session.completed.v1", good, "demo").await?;
    println!("sent {} as {}", sent.message_type, sent.message_id);
    let seen = tokio::time::timeout(Duration::from_secs(5), tap.next()).await??;
    println!("a tap on '#' saw {}", seen.message.message_type.clone().unwrap_or_default());
    seen.ack().await?;
    drop(tap);

    println!("\n== summary");
    for (service, counters) in runtime.metrics().snapshot() {
        println!("{service}: {}", serde_json::to_string(&counters)?);
    }
    let clean = stop_all(services).await;
    bus.close().await?;
    Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
