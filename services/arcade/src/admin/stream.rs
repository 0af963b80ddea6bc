//! The newline-delimited JSON stream of deliveries every streaming route serves (`GET
//! /stream`, a race team's stream): bounded in lines and bytes, and dropped when its reader
//! stalls or the process stops.

use std::sync::Arc;

use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Runtime, SubscriptionSpec};
use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::Response;

use super::limits::{Limits, STREAM_PREFETCH};
use crate::auth::ReaderGuard;
use crate::json_error::error;

/// A stream's line and the bytes of its budget it holds.
type Line = (axum::body::Bytes, tokio::sync::OwnedSemaphorePermit);

/// A delivery as a stream line: its envelope as JSON, with the W3C `traceparent` it came with
/// when it has one (a client answering it continues that trace), and a newline.
fn stream_line(message: &arcade_runtime::WireMessage) -> axum::body::Bytes {
    let mut envelope = serde_json::to_value(lossy_envelope(message)).unwrap_or_default();
    if let (Some(object), Some(traceparent)) = (envelope.as_object_mut(), &message.traceparent) {
        object.insert("traceparent".into(), traceparent.clone().into());
    }
    let mut line = serde_json::to_vec(&envelope).unwrap_or_default();
    line.push(b'\n');
    line.into()
}

/// Subscribes with `spec` and streams every delivery as one JSON envelope per line, acking each
/// once handed to the response. The consumer lives as long as the response (or until the
/// process stops: [`Runtime::stopping`]), and `reader` (a
/// team's one-reader guard) with it. At most `limits.stream_buffer` lines wait for the reader;
/// a reader that leaves one unread for `limits.stream_stall` is dropped, with a log line.
pub async fn ndjson_stream(
    runtime: &Runtime,
    spec: &SubscriptionSpec,
    limits: &Limits,
    reader: Option<ReaderGuard>,
) -> Response {
    let mut spec = spec.clone();
    spec.prefetch = spec.prefetch.min(STREAM_PREFETCH);
    let mut consumer = match runtime.bus().subscribe(&spec).await {
        Ok(consumer) => consumer,
        Err(e) => return error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    };
    let (lines, receiver) = tokio::sync::mpsc::channel::<Line>(limits.stream_buffer.max(1));
    // A line holds permits of this budget, one per byte, until it is handed to the socket.
    let budget = limits.stream_buffer_bytes.max(1);
    let bytes = Arc::new(tokio::sync::Semaphore::new(budget));
    let stall = limits.stream_stall;
    let queue = spec.queue.clone();
    // The stream ends when the process stops, so an open tap never holds a shutdown.
    let stopping = runtime.stopping();
    tokio::spawn(async move {
        let _reader = reader;
        loop {
            let delivery = tokio::select! {
                delivery = consumer.next() => match delivery {
                    Ok(delivery) => delivery,
                    Err(_) => break,
                },
                () = lines.closed() => break,
                () = stopping.cancelled() => break,
            };
            let line = stream_line(&delivery.message);
            let held = u32::try_from(line.len().min(budget)).unwrap_or(u32::MAX);
            let handed = tokio::time::timeout(stall, async {
                let permit = bytes.clone().acquire_many_owned(held).await.ok()?;
                lines.send((line, permit)).await.ok()
            });
            match handed.await {
                Ok(Some(())) => {
                    let _ = delivery.ack().await;
                }
                // The reader went away: the delivery goes back to its queue.
                Ok(None) => break,
                Err(_) => {
                    tracing::warn!(
                        %queue,
                        stall_secs = stall.as_secs(),
                        "stream reader dropped: it left a line unread too long"
                    );
                    break;
                }
            }
        }
    });
    let body = futures::stream::unfold(receiver, |mut receiver| async move {
        // The permit goes when the line is handed on: the socket's buffers bound the rest.
        let (line, _permit) = receiver.recv().await?;
        Some((Ok::<_, std::convert::Infallible>(line), receiver))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "application/x-ndjson")
        .body(Body::from_stream(body))
        .unwrap_or_else(|e| error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}
