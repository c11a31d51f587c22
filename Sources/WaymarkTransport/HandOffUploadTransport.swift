import Foundation

/// A transport whose transfers go on in the system after the app's process stops running, such
/// as a background `URLSession` (WaymarkApple's `BackgroundUploadTransport`).
///
/// ``HandOffUploadTransport`` gives such a transport only the batches the running process
/// cannot finish itself.
///
/// Thread-safety: implementations are `Sendable` and may be called from any task.
public protocol ContinuingUploadTransport: UploadTransport {
    /// Whether the system holds a transfer for this idempotency key: still running, or finished
    /// with an outcome that no send has taken yet.
    func holdsTransfer(for key: String) async -> Bool

    /// Whether the system's transfer for this key has finished with an outcome that no send has
    /// taken yet (a send of the key returns it at once).
    func hasOutcome(for key: String) async -> Bool

    /// Starts the transfer in the system and returns without waiting for its outcome; the next
    /// ``UploadTransport/send(_:)`` of the same key waits for it or takes its recorded outcome.
    ///
    /// Called when the calling task may already be cancelled (the process is about to stop), so
    /// it must not give up on cancellation. Starting a key the system already holds does nothing.
    func handOff(_ request: UploadRequest) async

    /// Starts the transfer at `time`, the time the sender reasons in (virtual time in a simulation).
    /// A real session ignores it: the default calls ``handOff(_:)``.
    func handOff(_ request: UploadRequest, at time: Date) async
}

extension ContinuingUploadTransport {
    /// Starts the transfer; `time` is ignored.
    public func handOff(_ request: UploadRequest, at time: Date) async {
        await handOff(request)
    }
}

/// Where the next send should go, as the app's state tells it.
public enum UploadRoute: Hashable, Sendable {
    /// The process runs and will go on running for the send (foreground, or background with
    /// location updates or enough background time): send it now in the running process.
    case running
    /// The process is about to be suspended: hand the batch to the system.
    case handOff
}

/// Sends each batch at once in the running process, and hands to a continuing transport only what
/// the process cannot finish: the review's M6.
///
/// A background `URLSession` is the only way to upload while iOS has an app suspended, but a task
/// created while the app is in the background is discretionary: iOS may defer it for minutes or
/// hours, and each resume of the app doubles the delay before the next one (Apple,
/// `URLSessionConfiguration.isDiscretionary`, and "Downloading files in the background": "apps that
/// declare appropriate background modes can use default URL sessions and data tasks, just as if they
/// were in the foreground"). During a ride the app does run in the background (location mode), so
/// its uploads should go out at once. This transport does that. For each send:
///
/// 1. When the continuing transport holds a finished transfer for the batch's key (handed off
///    earlier, by this process or one before it), the send takes its recorded outcome and uploads
///    nothing.
/// 2. When `route` answers ``UploadRoute/handOff``, the batch goes to the continuing transport at
///    once (or the send waits for the transfer it already runs for the key).
/// 3. Otherwise the `running` transport sends it now. If that send is cancelled (the queue cancels a
///    send when its background task expires, or the app stops the driver), the batch is handed to the
///    continuing transport before the send returns ``UploadResponse/cancelled``, so the system
///    carries it on while the app is suspended; the queue keeps it pending, and its next send
///    picks up the outcome (step 1).
///
/// A transfer the system still runs (a discretionary one may wait for hours) never holds up a
/// running process: the running transport sends the batch itself, and the system's copy, when it
/// lands, is absorbed by the server. The queue's rule holds throughout: every attempt of a batch
/// carries the same `Idempotency-Key`, so a batch delivered twice (by the running send just before
/// its cancellation and by the system, or by both sessions) is stored once, and points are deleted
/// only on an acknowledgement.
///
/// ```swift
/// let uploads = HandOffUploadTransport(
///     running: try URLSessionUploadTransport(server: server),
///     continuing: try BackgroundUploadTransport(server: server),
///     route: { await BackgroundUploadTransport.applicationRoute() })
/// ```
///
/// Thread-safety: `Sendable`; call it from any task.
public struct HandOffUploadTransport: UploadTransport {
    /// Sends while the process runs.
    public let running: any UploadTransport
    /// Carries on what is handed off after the process stops.
    public let continuing: any ContinuingUploadTransport
    /// Decides, before each send, whether the process will run long enough to send it.
    public let route: @Sendable () async -> UploadRoute

    /// Makes a transport over the two.
    ///
    /// - parameter running: sends while the process runs, for example `URLSessionUploadTransport`.
    /// - parameter continuing: carries handed-off batches on in the system, for example
    ///   WaymarkApple's `BackgroundUploadTransport`; create it once per process at launch.
    /// - parameter route: asked before each send; ``UploadRoute/running`` by default, so only a
    ///   cancelled send is handed off. WaymarkApple's `BackgroundUploadTransport.applicationRoute()`
    ///   reads the app's state.
    public init(running: any UploadTransport, continuing: any ContinuingUploadTransport,
                route: @escaping @Sendable () async -> UploadRoute = { .running }) {
        self.running = running
        self.continuing = continuing
        self.route = route
    }

    /// Sends the batch as the type's overview describes; never throws.
    public func send(_ request: UploadRequest) async -> UploadResponse {
        await send(request, at: nil)
    }

    /// Sends the batch at `time` (the running transport's `send(_:at:)`, for simulated networks).
    public func send(_ request: UploadRequest, at time: Date) async -> UploadResponse {
        await send(request, at: Optional(time))
    }

    private func send(_ request: UploadRequest, at time: Date?) async -> UploadResponse {
        if await continuing.hasOutcome(for: request.key) {
            return await Self.send(request, at: time, through: continuing)
        }
        if Task.isCancelled {
            await handOff(request, at: time)
            return .cancelled
        }
        if await route() == .handOff {
            await handOff(request, at: time)
            return await Self.send(request, at: time, through: continuing)
        }
        let response = await Self.send(request, at: time, through: running)
        if response == .cancelled {
            await handOff(request, at: time)
        }
        return response
    }

    private func handOff(_ request: UploadRequest, at time: Date?) async {
        if let time { await continuing.handOff(request, at: time) } else { await continuing.handOff(request) }
    }

    private static func send(_ request: UploadRequest, at time: Date?, through transport: any UploadTransport) async -> UploadResponse {
        if let time { return await transport.send(request, at: time) }
        return await transport.send(request)
    }
}
