#if canImport(UIKit)
import Foundation
import UIKit
import WaymarkTransport
import os

/// The upload transport that goes on while iOS has the app suspended: a background `URLSession`.
/// A transfer that finished while the app was suspended or not running is picked up by the next
/// send of its batch after a relaunch.
///
/// **Use it behind `HandOffUploadTransport` (WaymarkTransport), not alone.** A task created while
/// the app is in the background is discretionary, whatever `isDiscretionary` says, and each resume of
/// the app doubles the wait before the next one (Apple, `URLSessionConfiguration.isDiscretionary`;
/// "Downloading files in the background"), so a batch given to it during a background ride may wait
/// minutes to hours. `HandOffUploadTransport` sends at once with a foreground session while the
/// process runs and gives this transport only what is left when the app is about to be suspended
/// (review 2, M6):
///
/// ```swift
/// let background = try BackgroundUploadTransport(server: server)   // once per process, at launch
/// let uploads = HandOffUploadTransport(
///     running: try URLSessionUploadTransport(server: server),
///     continuing: background,
///     route: { await BackgroundUploadTransport.applicationRoute(keepsRunning: { model.isRecording }) })
/// ```
///
/// Each transfer writes the batch body to a file (background sessions upload only from files) and
/// starts an upload task whose `taskDescription` is the batch's idempotency key. The session's
/// delegate records how each transfer ended in an `UploadOutcomeStore` (Application Support)
/// the moment iOS reports it. A send then works in this order:
///
/// 1. an outcome already recorded for the key (the transfer finished while nobody was waiting:
///    app suspended, killed, relaunched) comes back at once, and its record is removed;
/// 2. otherwise, if a transfer for the key is still in the session (started earlier by this
///    process or a previous one), the send waits for it instead of uploading again;
/// 3. otherwise it starts a new transfer and waits for it.
///
/// ``handOff(_:)`` starts a transfer without waiting (step 3 alone). Cancelling a send (the queue
/// does when its background time runs out) returns `UploadResponse.cancelled` at once but leaves
/// the transfer running in the system; the batch stays pending and its outcome waits on disk for
/// the next send. The queue's rule holds: points are deleted only on an acknowledgement, and every
/// attempt carries the same `Idempotency-Key`, so a transfer that landed twice is stored once by the
/// server. iOS itself retries a background transfer that loses its network, up to
/// `resourceTimeout`; until then a send may wait.
///
/// Create it once per process at launch, before anything else, so that a relaunch for background
/// events finds its session, and forward the app delegate's events:
///
/// ```swift
/// func application(_ app: UIApplication, handleEventsForBackgroundURLSession identifier: String,
///                  completionHandler: @escaping () -> Void) {
///     background.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler)
/// }
/// ```
///
/// Thread-safety: `Sendable`; call ``send(_:)`` from any task, ``handleEvents(forBackgroundURLSession:completionHandler:)``
/// on the main actor.
public final class BackgroundUploadTransport: ContinuingUploadTransport {
    /// The identifier this app's Waymark session uses unless told otherwise: the bundle
    /// identifier followed by `.waymark.uploads`.
    public static var defaultIdentifier: String { (Bundle.main.bundleIdentifier ?? "app") + ".waymark.uploads" }

    /// The background session's identifier.
    public let identifier: String
    /// Where batches go.
    public let endpoint: IngestEndpoint
    /// Where finished transfers are recorded and awaited.
    public let completions: UploadCompletions
    let session: URLSession
    let events: BackgroundSessionEvents
    let requestTimeout: TimeInterval

    /// Identifiers with a session in this process. Apple, `URLSessionConfiguration.background(withIdentifier:)`:
    /// "You must create exactly one session per identifier … The behavior of multiple sessions
    /// sharing the same identifier is undefined."
    private static let identifiersInUse = OSAllocatedUnfairLock(initialState: Set<String>())

    /// Creates the background session (or reconnects to the one a previous process left
    /// running) for `server` and the ingest `path`.
    ///
    /// - parameter server: the `waymark serve` base URL (http or https), e.g. `https://track.example.com`.
    /// - parameter path: the ingest route on that server; `/api/ingest` unless the server is mounted elsewhere.
    /// - parameter identifier: the session identifier; one transport per identifier per process
    ///   (a second one is a programming error and stops the app).
    /// - parameter store: where outcomes and bodies are kept; `Application Support/WaymarkUploads`
    ///   by default.
    /// - parameter keepOutcomes: outcomes nobody asked for (a batch split or quarantined since)
    ///   are removed after this long, s.
    /// - parameter requestTimeout: idle time allowed between packets before iOS retries, s.
    /// - parameter resourceTimeout: time iOS keeps trying one transfer before it reports
    ///   `UploadResponse.timedOut`, s.
    /// - parameter configure: adjusts the configuration before the session is made (for example
    ///   `isDiscretionary = true` to let iOS wait for Wi-Fi and power, or `allowsCellularAccess`).
    /// - throws: `TransportError` `.configuration` for a server URL without an http(s) scheme or
    ///   host, `.outcomeStore` when the store's folder cannot be created.
    /// - precondition: `keepOutcomes` is zero or more (a negative one would remove every kept
    ///   outcome and body, also of transfers still running), and both timeouts are positive.
    public init(server: URL, path: String = "/api/ingest", identifier: String = BackgroundUploadTransport.defaultIdentifier,
                store: UploadOutcomeStore? = nil, keepOutcomes: TimeInterval = 7 * 86_400,
                requestTimeout: TimeInterval = 60, resourceTimeout: TimeInterval = 86_400,
                configure: (URLSessionConfiguration) -> Void = { _ in }) throws {
        precondition(keepOutcomes >= 0, "BackgroundUploadTransport: keepOutcomes must be zero or more, not \(keepOutcomes)")
        precondition(requestTimeout > 0 && resourceTimeout > 0,
                     "BackgroundUploadTransport: timeouts must be positive, not \(requestTimeout) and \(resourceTimeout)")
        endpoint = try IngestEndpoint(server: server, path: path)
        let store = try store ?? UploadOutcomeStore.applicationSupport()
        store.prune(before: Date().addingTimeInterval(-keepOutcomes))
        let inserted = Self.identifiersInUse.withLock { $0.insert(identifier).inserted }
        precondition(inserted, "a BackgroundUploadTransport for session '\(identifier)' already exists in this process")
        self.identifier = identifier
        self.requestTimeout = requestTimeout
        completions = UploadCompletions(store: store)
        events = BackgroundSessionEvents()
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        // Relaunch the app in the background when transfers finish, so outcomes are recorded
        // and the queue can go on (Apple, `sessionSendsLaunchEvents`).
        configuration.sessionSendsLaunchEvents = true
        // Ride uploads should go soon, not whenever iOS finds Wi-Fi and power (`isDiscretionary`).
        configuration.isDiscretionary = false
        configuration.timeoutIntervalForRequest = requestTimeout
        configuration.timeoutIntervalForResource = resourceTimeout
        configure(configuration)
        let delegate = BackgroundUploadDelegate(completions: completions, events: events)
        // The session keeps its delegate until invalidated; callbacks come on its own serial queue.
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
        _ = Self.identifiersInUse.withLock { $0.remove(identifier) }
    }

    /// Sends the batch, or picks up the transfer already under way or finished for its key; see
    /// `UploadTransport.send(_:)` and the type's overview.
    public func send(_ request: UploadRequest) async -> UploadResponse {
        if Task.isCancelled { return .cancelled }
        if let earlier = completions.takeRecorded(request.key) { return earlier }
        if await !hasTransfer(for: request.key), let failure = startTransfer(request) {
            return failure
        }
        return await completions.outcome(for: request.key)
    }

    /// Whether the session runs a transfer for `key`, or one finished with an outcome no send has
    /// taken yet (`ContinuingUploadTransport`).
    public func holdsTransfer(for key: String) async -> Bool {
        if await hasOutcome(for: key) { return true }
        return await hasTransfer(for: key)
    }

    /// Whether a transfer for `key` finished with an outcome no send has taken yet
    /// (`ContinuingUploadTransport`).
    public func hasOutcome(for key: String) async -> Bool {
        completions.store.outcome(for: key) != nil
    }

    /// Starts the batch's transfer in the background session without waiting for it, unless the
    /// session already holds one for its key (`ContinuingUploadTransport`). Works in a cancelled
    /// task: `HandOffUploadTransport` calls it when a running send was cancelled because the app
    /// is about to be suspended. A body that cannot be written is logged; the batch stays pending
    /// in the queue and is sent again later.
    public func handOff(_ request: UploadRequest) async {
        guard await !holdsTransfer(for: request.key) else { return }
        if let failure = startTransfer(request) {
            BackgroundUploadDelegate.log.error("could not hand off upload \(request.key, privacy: .public): \(String(describing: failure), privacy: .public)")
        }
    }

    /// Writes the body file and resumes an upload task for it; the failure when the file cannot be written.
    private func startTransfer(_ request: UploadRequest) -> UploadResponse? {
        let file: URL
        do {
            file = try completions.store.writeBody(request.body, for: request.key)
        } catch {
            return .connectionFailed("\(error)")
        }
        let task = session.uploadTask(with: endpoint.urlRequest(for: request, timeout: requestTimeout), fromFile: file)
        task.taskDescription = request.key
        task.resume()
        return nil
    }

    /// The route the app's state gives for the next send of a `HandOffUploadTransport`:
    /// `UploadRoute.running` while the app is in the foreground, while `keepsRunning` says the
    /// process will go on running in the background (a ride with background location updates), or
    /// while more than `minimumTime` seconds of background time remain; `UploadRoute.handOff`
    /// otherwise.
    ///
    /// Apple, `UIApplication.backgroundTimeRemaining`: valid once the app is in the background and
    /// has begun a background task, which WaymarkSync's `UploadDriver` does before each send there.
    ///
    /// - parameter minimumTime: background time a send needs to finish in the running process, s.
    /// - parameter keepsRunning: whether something else keeps the process running in the background,
    ///   such as a ride with background location updates; false by default.
    @MainActor
    public static func applicationRoute(minimumTime: TimeInterval = 15,
                                        keepsRunning: () -> Bool = { false }) -> UploadRoute {
        let app = UIApplication.shared
        guard app.applicationState == .background else { return .running }
        if keepsRunning() || app.backgroundTimeRemaining > minimumTime { return .running }
        return .handOff
    }

    /// The idempotency keys of the transfers the session is still running (this process's and
    /// those a previous process started).
    public func keysInFlight() async -> [String] {
        await session.allTasks.filter { $0.state == .running || $0.state == .suspended }.compactMap(\.taskDescription)
    }

    func hasTransfer(for key: String) async -> Bool {
        await keysInFlight().contains(key)
    }

    /// Forward `application(_:handleEventsForBackgroundURLSession:completionHandler:)` here.
    ///
    /// iOS calls that method when it launched or woke the app for this session's events. The
    /// handler is kept and called on the main queue once the session has delivered every event
    /// (`urlSessionDidFinishEvents(forBackgroundURLSession:)`), by then each finished transfer's
    /// outcome is on disk. Apple, `application(_:handleEventsForBackgroundURLSession:completionHandler:)`:
    /// keep the handler and call it when done, so iOS can suspend the app and update its snapshot.
    ///
    /// - returns: false when `identifier` is another session's (the app should handle it itself).
    @MainActor
    @discardableResult
    public func handleEvents(forBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void) -> Bool {
        guard identifier == self.identifier else { return false }
        events.store(completionHandler)
        return true
    }
}
#endif
