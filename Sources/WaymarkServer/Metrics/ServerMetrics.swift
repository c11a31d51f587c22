import CoreMetrics
import Foundation
import Prometheus

/// The server's Prometheus metrics, kept in a registry of their own (no global bootstrap).
///
/// - `waymark_ingest_points_total`: positions newly stored.
/// - `waymark_http_request_duration_seconds{method,route,status}`: request latency histogram.
/// - `waymark_outbox_depth`: webhook deliveries pending.
/// - `waymark_outbox_dead`: webhook deliveries dead.
/// - `waymark_webhook_failures_total`: failed webhook attempts.
/// - `waymark_refused_total{reason}`: work the server refused or abandoned to protect itself: `cancelled`
///   (the client left during a decode), `busy` (decode queue full), `connections` (connection cap),
///   `timeout` (header or body too slow), `stream_lagging` (a live-stream subscriber too far behind).
///
/// One instance per server process (or per test); thread-safe, `Sendable`.
///
/// ```swift
/// let metrics = ServerMetrics()
/// metrics.pointsStored(500)
/// let text = metrics.exposition()   // Prometheus text format
/// ```
public struct ServerMetrics: Sendable {
    /// The registry `/metrics` renders.
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    private let ingestPoints: CoreMetrics.Counter
    private let webhookFailures: CoreMetrics.Counter
    private let outbox: CoreMetrics.Gauge
    private let dead: CoreMetrics.Gauge

    /// Makes a fresh set of metrics in a new registry.
    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10_000].map { .milliseconds($0) }
        self.factory = factory
        ingestPoints = CoreMetrics.Counter(label: "waymark_ingest_points_total", factory: factory)
        webhookFailures = CoreMetrics.Counter(label: "waymark_webhook_failures_total", factory: factory)
        outbox = CoreMetrics.Gauge(label: "waymark_outbox_depth", factory: factory)
        dead = CoreMetrics.Gauge(label: "waymark_outbox_dead", factory: factory)
    }

    /// Counts `count` newly stored positions.
    public func pointsStored(_ count: Int) { if count > 0 { ingestPoints.increment(by: Int64(count)) } }

    /// Counts one request or connection refused or abandoned for `reason` (see the type's list).
    public func refused(_ reason: String) {
        CoreMetrics.Counter(label: "waymark_refused_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// Counts one failed webhook attempt.
    public func webhookFailed() { webhookFailures.increment() }

    /// Sets the outbox gauges.
    public func outboxDepth(_ depth: (pending: Int, dead: Int)) {
        outbox.record(depth.pending)
        dead.record(depth.dead)
    }

    /// Records one request's duration (seconds) under its route pattern and status.
    public func request(method: String, route: String, status: Int, seconds: Double) {
        CoreMetrics.Timer(label: "waymark_http_request_duration_seconds",
              dimensions: [("method", method), ("route", route), ("status", String(status))], factory: factory)
            .recordNanoseconds(Int64(seconds * 1e9))
    }

    /// Every metric in the Prometheus text exposition format.
    public func exposition() -> String { registry.emitToString() }
}
