import Foundation
import WaymarkTransport

/// A background `URLSession` on the simulation's virtual time: the transfers iOS carries on for an
/// app, as WaymarkApple's `BackgroundUploadTransport` hands them over, with iOS's scheduling rules
/// (review 2, M6; PLATFORM.md §10):
///
/// - **A transfer created while the app is in the background is discretionary.** Apple,
///   `URLSessionConfiguration.isDiscretionary`: "for transfers started while your app is in the
///   background, the system always starts transfers at its discretion", whatever the property says.
///   Here it starts ``Settings/discretionaryDelay`` seconds later, or when the rate limiter's delay
///   ends if that is later. Apple publishes no figure; field
///   reports say minutes to hours, so it is a setting.
/// - **The resume rate limiter.** Apple, "Downloading files in the background": each time the system
///   resumes or relaunches the app for the session's events, the delay before a task the app then
///   starts in the background grows; it goes back to 0 when the user brings the app to the foreground,
///   or when the delay passes without another resume. Here the first resume sets it to
///   ``Settings/resumeDelay`` and each further one multiplies it by ``Settings/resumeDelayGrowth``
///   (both settings: Apple gives no numbers).
/// - **A transfer created in the foreground starts at once** (`isDiscretionary` false).
///
/// Finished transfers keep their outcome until a send of their key takes it, as the real transport's
/// outcome store does. Drive it with the app's lifecycle (``appEnteredForeground(at:)``,
/// ``appEnteredBackground(at:)``) and with time (``advance(to:)``; a send advances too).
///
/// ```swift
/// let session = SimulatedBackgroundSession(server: network, foreground: false)
/// await session.handOff(request, at: sim.date(600))      // discretionary: starts 30 min later
/// let delivered = await session.advance(to: sim.date(4_000))
/// ```
///
/// Thread-safety: an actor.
public actor SimulatedBackgroundSession: ContinuingUploadTransport {
    /// iOS's scheduling figures, none of them published by Apple.
    public struct Settings: Hashable, Sendable {
        /// How long after its creation a discretionary transfer starts, s.
        public var discretionaryDelay: TimeInterval
        /// The rate limiter's delay after the first resume for session events, s.
        public var resumeDelay: TimeInterval
        /// What each further resume multiplies the delay by.
        public var resumeDelayGrowth: Double

        /// Makes settings; by default a discretionary transfer waits 30 min, and the rate limiter
        /// starts at 1 min and doubles.
        public init(discretionaryDelay: TimeInterval = 1_800, resumeDelay: TimeInterval = 60, resumeDelayGrowth: Double = 2) {
            self.discretionaryDelay = discretionaryDelay
            self.resumeDelay = resumeDelay
            self.resumeDelayGrowth = resumeDelayGrowth
        }
    }

    /// One transfer as iOS ran it.
    public struct Delivery: Hashable, Sendable {
        /// The batch's idempotency key.
        public var key: String
        /// When the app handed it over.
        public var created: Date
        /// When iOS sent it.
        public var sent: Date
        /// What came back.
        public var response: UploadResponse
    }

    private struct Transfer {
        var request: UploadRequest
        var created: Date
        var starts: Date
        var outcome: UploadResponse?
    }

    /// The figures in use.
    public let settings: Settings
    /// Where transfers go when they start (the simulated network in front of a server).
    public let server: any UploadTransport
    private var foreground: Bool
    private var now: Date?
    /// The rate limiter's delay now, and when the last resume set it.
    private var limiterDelay: TimeInterval = 0
    private var lastResume: Date?
    private var transfers: [String: Transfer] = [:]
    /// Every transfer iOS has sent, in order.
    public private(set) var deliveries: [Delivery] = []
    /// How many times iOS resumed or relaunched the app for the session's events.
    public private(set) var resumes = 0

    /// Makes a session whose transfers reach `server`; `foreground` is the app's state now.
    public init(server: any UploadTransport, foreground: Bool, settings: Settings = Settings()) {
        self.server = server
        self.foreground = foreground
        self.settings = settings
    }

    /// The user brought the app to the foreground: the rate limiter's delay goes back to 0.
    public func appEnteredForeground(at time: Date) async {
        _ = await advance(to: time)
        foreground = true
        limiterDelay = 0
    }

    /// The app left the foreground: transfers it creates from now on are discretionary.
    public func appEnteredBackground(at time: Date) async {
        _ = await advance(to: time)
        foreground = false
    }

    /// The rate limiter's delay at `time`: 0 once the delay has passed without another resume.
    public func rateLimiterDelay(at time: Date) -> TimeInterval {
        guard let lastResume, time <= lastResume.addingTimeInterval(limiterDelay) else { return 0 }
        return limiterDelay
    }

    /// What is left of the rate limiter's delay at `time`.
    func rateLimiterRemaining(at time: Date) -> TimeInterval {
        guard let lastResume else { return 0 }
        return max(0, lastResume.addingTimeInterval(limiterDelay).timeIntervalSince(time))
    }

    /// Whether a transfer for `key` runs, waits to start, or finished with an untaken outcome.
    public func holdsTransfer(for key: String) async -> Bool { transfers[key] != nil }

    /// Whether the transfer for `key` finished with an untaken outcome (by the last time the session saw).
    public func hasOutcome(for key: String) async -> Bool { transfers[key]?.outcome != nil }

    /// Hands the batch over at the last time the session saw.
    public func handOff(_ request: UploadRequest) async {
        await handOff(request, at: now ?? Date(timeIntervalSince1970: 0))
    }

    /// Hands the batch over at `time`: it starts at once from the foreground, after the discretionary
    /// delay and the rate limiter's from the background. A key already held is left as it is.
    public func handOff(_ request: UploadRequest, at time: Date) async {
        _ = await advance(to: time)
        guard transfers[request.key] == nil else { return }
        let wait = foreground ? 0 : max(settings.discretionaryDelay, rateLimiterRemaining(at: time))
        transfers[request.key] = Transfer(request: request, created: time, starts: time.addingTimeInterval(wait))
    }

    /// Sends at the last time the session saw.
    public func send(_ request: UploadRequest) async -> UploadResponse {
        await send(request, at: now ?? Date(timeIntervalSince1970: 0))
    }

    /// The outcome of the batch's transfer by `time`, taken (a new transfer is handed over first if
    /// none is held); `.timedOut` while it has not run yet, as a real send gives up waiting.
    public func send(_ request: UploadRequest, at time: Date) async -> UploadResponse {
        await handOff(request, at: time)
        _ = await advance(to: time)
        guard let outcome = transfers[request.key]?.outcome else { return .timedOut }
        transfers[request.key] = nil
        return outcome
    }

    /// Runs every transfer due by `time`, in start order. A transfer that ends while the app is in
    /// the background resumes it for the session's events, which grows the rate limiter's delay.
    /// Returns the deliveries made.
    @discardableResult
    public func advance(to time: Date) async -> [Delivery] {
        if let now, time < now { return [] }
        now = time
        var made: [Delivery] = []
        while let next = transfers.filter({ $0.value.outcome == nil && $0.value.starts <= time })
            .min(by: { ($0.value.starts, $0.key) < ($1.value.starts, $1.key) }) {
            let key = next.key, transfer = next.value
            let response = await server.send(transfer.request, at: transfer.starts)
            transfers[key]?.outcome = response
            let delivery = Delivery(key: key, created: transfer.created, sent: transfer.starts, response: response)
            deliveries.append(delivery)
            made.append(delivery)
            if !foreground { resumed(at: transfer.starts) }
        }
        return made
    }

    private func resumed(at time: Date) {
        resumes += 1
        let current = rateLimiterDelay(at: time)
        limiterDelay = current == 0 ? settings.resumeDelay : current * settings.resumeDelayGrowth
        lastResume = time
    }
}
