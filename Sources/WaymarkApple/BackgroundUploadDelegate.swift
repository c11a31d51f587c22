#if canImport(UIKit)
import Foundation
import WaymarkTransport
import os

/// The background session's delegate: collects each upload's reply, records how each transfer
/// ended (``UploadCompletions/transferFinished(key:response:at:)``, durable before the callback
/// returns), and calls the app's background-events completion handler when iOS has delivered
/// everything.
///
/// URLSession calls it on the session's own serial delegate queue, never on the main thread.
/// Nothing main-actor is called from here directly: the completion handler is reached by a hop
/// to the main queue.
///
/// `@unchecked Sendable` because its one mutable member, `received`, is read and written only
/// while holding `lock`.
final class BackgroundUploadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Where finished transfers are recorded and awaited.
    let completions: UploadCompletions
    /// The app's completion handler for background session events.
    let events: BackgroundSessionEvents
    private let lock = NSLock()
    /// Reply bytes received so far, by task identifier; guarded by `lock`.
    private var received: [Int: Data] = [:]
    /// Replies are JSON acknowledgements of a few hundred bytes; a larger one is cut here.
    static let maxReplyBytes = 1 << 20
    /// Made per use: `Logger` is cheap to create and not `Sendable` in the iOS 17 SDK.
    static var log: Logger { Logger(subsystem: "Waymark", category: "BackgroundUpload") }

    init(completions: UploadCompletions, events: BackgroundSessionEvents) {
        self.completions = completions
        self.events = events
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock {
            var body = received[dataTask.taskIdentifier] ?? Data()
            body.append(data.prefix(max(0, Self.maxReplyBytes - body.count)))
            received[dataTask.taskIdentifier] = body
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let body = lock.withLock { received.removeValue(forKey: task.taskIdentifier) }
        // Every task this transport starts carries its batch's idempotency key.
        guard let key = task.taskDescription, !key.isEmpty else { return }
        let response = UploadResponse(urlResponse: task.response, body: body, error: error)
        do {
            try completions.transferFinished(key: key, response: response)
        } catch {
            Self.log.error("could not record the outcome of upload \(key, privacy: .public): \(String(describing: error), privacy: .public)")
        }
        completions.store.removeBody(for: key)
    }

    /// Apple, `urlSessionDidFinishEvents(forBackgroundURLSession:)`: the session calls this once
    /// it has delivered every event that woke the app; the app then calls the completion handler
    /// it got in `application(_:handleEventsForBackgroundURLSession:completionHandler:)`, on the
    /// main thread, "because the provided completion handler is part of UIKit" (Apple, "Downloading
    /// files in the background"). Calling it lets iOS take a new app snapshot and suspend the app.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        let events = events
        DispatchQueue.main.async {
            MainActor.assumeIsolated { events.finish() }
        }
    }
}

/// Holds the completion handler from `application(_:handleEventsForBackgroundURLSession:completionHandler:)`
/// until the session has delivered its events. Main actor only: UIKit hands the handler over on
/// the main thread and it must be called there.
///
/// The session is created at launch, before iOS hands the handler over, so it may finish
/// delivering its events first: then the handler is called as soon as it arrives, in this wake,
/// instead of at the next one (review 2, L1; the race of Alamofire/Alamofire#804 and
/// AFNetworking/AFNetworking#2386, "completion handler was never called").
@MainActor
final class BackgroundSessionEvents {
    private var completionHandler: (() -> Void)?
    /// The session finished delivering its events while no handler was held.
    private var finishedWithoutHandler = false

    nonisolated init() {}

    /// Keeps the handler; one still held from an earlier wake is called first, so iOS is never
    /// left waiting for it. When the session already finished its events in this wake, the
    /// handler is called at once.
    func store(_ handler: @escaping () -> Void) {
        completionHandler?()
        completionHandler = nil
        if finishedWithoutHandler {
            finishedWithoutHandler = false
            handler()
        } else {
            completionHandler = handler
        }
    }

    /// Calls the held handler, once; without one, remembers that the events are finished.
    func finish() {
        guard let handler = completionHandler else {
            finishedWithoutHandler = true
            return
        }
        completionHandler = nil
        handler()
    }
}
#endif
