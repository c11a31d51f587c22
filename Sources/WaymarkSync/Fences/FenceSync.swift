import Foundation
import GRDB
import Logging
import WaymarkEngine
import WaymarkGeo

/// Keeps the phone's copy of the fences a Waymark server holds, and fetches them only when they may
/// have changed.
///
/// The server is the one place fences are defined (`POST /api/fences`); the phone fetches them
/// (`GET /api/fences`, page by page) and hands them to the engine, which keeps the nearest ones
/// registered with iOS as always. Every fetch is conditional: the copy's `ETag` goes out as
/// `If-None-Match`, and while no fence changed the server answers 304 with no body. The copy is
/// stored beside the rides (``RideStore``), so a phone that starts offline works from its last copy
/// (``storedFences()``).
///
/// When to fetch is ``refreshIfDue(at:position:)``'s decision, fed by ``handle(_:at:)`` with the
/// device's events: at every launch, and after that when the copy is older than
/// ``Configuration/refreshInterval`` or the phone has moved ``Configuration/refetchDistanceMeters`` from
/// where it last fetched (a significant change, a visit, fixes).
///
/// ```swift
/// let sync = FenceSync(store: store, transport: transport, credentials: credentials)
/// try await engine.geofences.replace(with: try await sync.storedFences())   // offline start
/// Task {
///     for await event in await engine.system.events.subscribe() {
///         if case .updated(let fences)? = await sync.handle(event, at: .now) {
///             try? await engine.geofences.replace(with: fences)
///         }
///     }
/// }
/// ```
///
/// A fetch that fails (offline, a 5xx) changes nothing: the copy stays, and the next event that finds
/// a refresh due tries again, at most once per ``Configuration/retryInterval``. Thread safety: an actor.
public actor FenceSync {
    /// When and how much to fetch.
    ///
    /// A `Sendable` value type.
    public struct Configuration: Hashable, Sendable {
        /// The copy is re-checked when it is older than this, s (6 h by default).
        public var refreshInterval: TimeInterval
        /// The copy is re-checked when the phone is this far from where it last fetched, m.
        public var refetchDistanceMeters: Double
        /// After a failed fetch, no new attempt before this, s.
        public var retryInterval: TimeInterval
        /// Fences per page asked for (the server allows 1–10,000).
        public var pageLimit: Int
        /// Most fences kept; a server holding more is an error (``Outcome/failed(_:)``), not a truncated copy.
        public var maxFences: Int

        /// Makes a configuration.
        public init(refreshInterval: TimeInterval = 6 * 3600, refetchDistanceMeters: Double = 5_000,
                    retryInterval: TimeInterval = 300, pageLimit: Int = 1000, maxFences: Int = 50_000) {
            self.refreshInterval = refreshInterval
            self.refetchDistanceMeters = refetchDistanceMeters
            self.retryInterval = retryInterval
            self.pageLimit = max(1, min(10_000, pageLimit))
            self.maxFences = maxFences
        }
    }

    /// What a refresh found.
    public enum Outcome: Hashable, Sendable {
        /// The server's fences are those of the copy (304).
        case unchanged
        /// The server's fences changed; the copy now holds these. Hand them to the engine.
        case updated([Fence])
        /// The fetch failed; the copy is unchanged. The text says why.
        case failed(String)
    }

    /// The store the copy is kept in.
    public nonisolated let store: RideStore
    let transport: any FenceListTransport
    let credentials: DeviceCredentials
    /// The configuration.
    public nonisolated let configuration: Configuration
    private var lastAttempt: Date?
    private var launchedSinceRefresh = true
    private let logger = Logger(label: "waymark.fences")

    /// Makes a sync over `store`'s copy; it fetches nothing until asked.
    public init(store: RideStore, transport: any FenceListTransport, credentials: DeviceCredentials,
                configuration: Configuration = Configuration()) {
        self.store = store
        self.transport = transport
        self.credentials = credentials
        self.configuration = configuration
    }

    /// The fences of the stored copy (empty before the first successful fetch).
    ///
    /// - throws: ``SyncError`` `.storage` when the store cannot be read.
    public func storedFences() throws -> [Fence] {
        try store.fenceCopy()?.fences ?? []
    }

    /// Takes one device event: a launch makes the next refresh due at once; a position (fixes, a
    /// significant change, a visit) refreshes when the phone moved far enough or the copy is old;
    /// coming to the foreground or back online refreshes when the copy is old. Returns the refresh's
    /// outcome when one ran.
    public func handle(_ event: DeviceEvent, at now: Date) async -> Outcome? {
        switch event {
        case .launched:
            launchedSinceRefresh = true
            return await refreshIfDue(at: now, position: nil)
        case .locations(let fixes):
            return await refreshIfDue(at: now, position: fixes.last?.coordinate)
        case .significantChange(let fix):
            return await refreshIfDue(at: now, position: fix.coordinate)
        case .visit(let visit):
            return await refreshIfDue(at: now, position: visit.coordinate)
        case .willEnterForeground, .networkReachability(online: true):
            return await refreshIfDue(at: now, position: nil)
        default:
            return nil
        }
    }

    /// Whether the copy should be re-checked now: after a launch, when there is none, when it is older
    /// than ``Configuration/refreshInterval``, or when `position` lies ``Configuration/refetchDistanceMeters``
    /// from where it was fetched; never sooner than ``Configuration/retryInterval`` after a failed try.
    ///
    /// - throws: ``SyncError`` `.storage` when the store cannot be read.
    public func isDue(at now: Date, position: Coordinate?) throws -> Bool {
        if let lastAttempt, now.timeIntervalSince(lastAttempt) < configuration.retryInterval { return false }
        guard let copy = try store.fenceCopy() else { return true }
        if launchedSinceRefresh || now.timeIntervalSince(copy.fetched) >= configuration.refreshInterval { return true }
        if let position, let fetchedAt = copy.position {
            return Geodesy.haversineDistance(position, fetchedAt) >= configuration.refetchDistanceMeters
        }
        return false
    }

    /// Refreshes when ``isDue(at:position:)``; returns nil when it was not due.
    public func refreshIfDue(at now: Date, position: Coordinate?) async -> Outcome? {
        do {
            guard try isDue(at: now, position: position) else { return nil }
        } catch {
            return .failed("\(error)")
        }
        return await refresh(at: now, position: position)
    }

    /// Fetches the server's fences now, conditionally, page by page, and stores the new copy in one
    /// transaction when they changed. A fence set that changes while its pages are read is read again
    /// from the first page (up to three times).
    public func refresh(at now: Date, position: Coordinate?) async -> Outcome {
        lastAttempt = now
        let outcome = await fetch(at: now, position: position)
        switch outcome {
        case .failed(let why): logger.warning("fence refresh failed: \(why)")
        case .updated(let fences): logger.info("fences updated from the server: \(fences.count)")
        case .unchanged: break
        }
        if case .failed = outcome { return outcome }
        lastAttempt = nil
        launchedSinceRefresh = false
        return outcome
    }

    private func fetch(at now: Date, position: Coordinate?) async -> Outcome {
        let held: RideStore.FenceCopy?
        do {
            held = try store.fenceCopy()
        } catch {
            return .failed("\(error)")
        }
        let token = await credentials.token
        attempts: for _ in 0..<3 {
            var fences: [Fence] = []
            var after: String?, tag: String?
            repeat {
                let request = FenceListRequest(token: token, after: after, limit: configuration.pageLimit,
                                               ifNoneMatch: after == nil ? held?.etag : nil)
                switch await transport.fetchFences(request) {
                case .notModified:
                    guard after == nil else { continue attempts }    // the set changed between pages
                    do {
                        try store.saveFenceCopy(RideStore.FenceCopy(etag: held?.etag, fetched: now, position: position ?? held?.position,
                                                                     fences: held?.fences ?? []))
                    } catch {
                        return .failed("\(error)")
                    }
                    return .unchanged
                case .page(let body, let etag):
                    if after != nil, etag != tag { continue attempts }   // a newer version: start again
                    tag = etag
                    let page: FenceFeatures.Page
                    do {
                        page = try FenceFeatures.page(body)
                    } catch {
                        return .failed("the server's fences cannot be read: \(error)")
                    }
                    fences += page.fences
                    guard fences.count <= configuration.maxFences else {
                        return .failed("the server holds more than \(configuration.maxFences) fences (FenceSync.Configuration.maxFences)")
                    }
                    after = page.next
                case .status(let code, let body):
                    return .failed("the server answered \(code): \(String(decoding: body.prefix(200), as: UTF8.self))")
                case .failed(let why):
                    return .failed(why)
                }
            } while after != nil
            do {
                try store.saveFenceCopy(RideStore.FenceCopy(etag: tag, fetched: now, position: position ?? held?.position,
                                                             fences: fences))
            } catch {
                return .failed("\(error)")
            }
            return held?.fences == fences ? .unchanged : .updated(fences)
        }
        return .failed("the server's fences kept changing while they were read")
    }
}
