import Foundation
import WaymarkGeo

/// How webhook deliveries are retried (attempts, exponential backoff, timeout, batching) and where
/// they may go.
///
/// The n-th failed attempt waits `min(baseBackoff × 2^(n−1), maxBackoff)` seconds; after
/// ``maxAttempts`` failures the delivery is dead. A claimed delivery is hidden from other
/// workers for ``leaseSeconds`` (longer than the timeout), so two server processes never send
/// the same delivery at once. Internal destinations (loopback, private, link-local, metadata, …) are
/// refused unless ``allowedDestinations`` names them. A `Sendable` value type.
///
/// ```swift
/// var policy = WebhookPolicy()
/// policy.maxAttempts = 5
/// policy.timeoutSeconds = 5
/// policy.allowedDestinations = try AllowedDestination.list("10.20.0.0/16")
/// ```
public struct WebhookPolicy: Hashable, Sendable {
    /// Attempts before a delivery is dead.
    public var maxAttempts: Int = 8
    /// Wait after the first failure, in seconds.
    public var baseBackoffSeconds: Double = 2
    /// Longest wait between attempts, in seconds.
    public var maxBackoffSeconds: Double = 900
    /// Time allowed for one request, in seconds.
    public var timeoutSeconds: Double = 10
    /// How long a claimed delivery stays invisible to other workers, in seconds.
    public var leaseSeconds: Double = 60
    /// Deliveries claimed per round.
    public var batchSize: Int = 32
    /// Pause between rounds when nothing was due, in seconds.
    public var pollSeconds: Double = 0.5
    /// Internal ranges and host names webhooks may reach anyway (`waymark serve --webhook-allow`);
    /// empty by default, so only public addresses receive deliveries.
    public var allowedDestinations: [AllowedDestination] = []

    /// The default policy.
    public init() {}

    /// The wait after `attempts` failed attempts, in seconds.
    public func backoff(afterAttempts attempts: Int) -> Double {
        min(baseBackoffSeconds * pow(2, Double(max(0, attempts - 1))), maxBackoffSeconds)
    }
}

extension WebhookPolicy {
    /// What breaks ``WebhookDeliverer``'s contract (see `ContractCheck`); empty for a usable policy.
    var contractViolations: [String] {
        var check = ContractCheck()
        check.require(maxAttempts >= 1, "maxAttempts must be at least 1, not \(maxAttempts)")
        check.require(batchSize >= 1, "batchSize must be at least 1, not \(batchSize)")
        check.finitePositive("baseBackoffSeconds", baseBackoffSeconds)
        check.require(maxBackoffSeconds >= baseBackoffSeconds && maxBackoffSeconds.isFinite,
                      "maxBackoffSeconds (\(maxBackoffSeconds)) must be finite and at least baseBackoffSeconds (\(baseBackoffSeconds))")
        check.finitePositive("timeoutSeconds", timeoutSeconds)
        check.require(leaseSeconds > timeoutSeconds && leaseSeconds.isFinite,
                      "leaseSeconds (\(leaseSeconds)) must be finite and longer than timeoutSeconds (\(timeoutSeconds)), or a slow delivery is claimed twice")
        check.finitePositive("pollSeconds", pollSeconds)
        return check.violations
    }
}
