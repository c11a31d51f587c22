import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle

/// The background service that keeps delivering webhooks while the server runs.
///
/// Rounds of ``WebhookDeliverer/deliverDue(at:)`` run back to back while work is due, with a
/// pause of ``WebhookPolicy/pollSeconds`` when nothing was. It stops at graceful shutdown.
/// Add it to the application's services (`waymark serve` does). `Sendable`.
///
/// ```swift
/// let service = WebhookService(deliverer: WebhookDeliverer(store: store))
/// ```
public struct WebhookService: Service {
    /// The deliverer it drives.
    public let deliverer: WebhookDeliverer
    /// The clock deliveries are timed by.
    public let clock: @Sendable () -> Date

    /// Makes the service.
    public init(deliverer: WebhookDeliverer, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.deliverer = deliverer
        self.clock = clock
    }

    /// Delivers until graceful shutdown or cancellation.
    public func run() async throws {
        let pause = Duration.milliseconds(Int64(deliverer.policy.pollSeconds * 1000))
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                var attempted = 0
                do {
                    attempted = try await deliverer.deliverDue(at: clock())
                } catch {
                    deliverer.logger.error("webhook round failed", metadata: ["error": "\(error)"])
                }
                if attempted == 0 { try? await Task.sleep(for: pause) }
            }
        }
    }
}
