import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
import WaymarkSync
import WaymarkTransport

/// A simulated iPhone running the device half as an app ships it: an `EngineApp` records a ride,
/// what it records goes into a `RideStore` file, and an `UploadQueue` sends it over a real transport.
/// Everything runs on the simulation's virtual time.
///
/// Each call to ``advance(to:)`` does four things:
/// 1. It runs the simulation to the given time.
/// 2. It stores the fixes, gap markers and geofence events the app recorded meanwhile, as the app
///    writes them to its disk.
/// 3. It handles the app's process life. A launch is a new process: it opens the store file afresh
///    and starts a new upload queue (a `VirtualTimeUploader`). A process that dies loses its queue,
///    but not the store.
/// 4. While the app runs (foreground or background), it lets the queue work: it tells the queue
///    about the backlog and runs the deadlines that are due. A suspended or dead app uploads nothing.
///
/// With a ``FenceSource``, each process also runs a `FenceSync` over the same store, as an app that
/// takes its fences from a server does: every event the process receives goes to it (a launch makes a
/// fetch due, a position far from the last fetch or an old copy too), a fetch goes through the
/// scenario's network at the event's time, and fences that changed are handed to the engine
/// (`replaceFences`). A new process first hands the engine the store's copy when the engine's own
/// fences differ from it (a process that died between storing a copy and applying it), so the phone
/// keeps working offline from its last copy. ``fenceUpdates`` lists what was handed over.
///
/// The scenario's network stands between the queue and the transport you give: a
/// `SimulatedNetworkTransport` fails sends during `world.network.offline` windows, answers the
/// server's rules (413 over `maxBodyBytes`, refusals, silence, lost replies) on virtual time, and passes
/// the rest on. Each upload is recorded in the simulation (radio energy, timeline).
/// ``finishOnline(maxSteps:)`` plays the end of the day: the rider opens the app at home and everything
/// left is sent.
///
/// ```swift
/// var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: transport,
///                                credentials: DeviceCredentials(token: token))
/// while phone.simulation.now < phone.simulation.endTime {
///     try await phone.advance(to: min(phone.simulation.now + 15, phone.simulation.endTime))
/// }
/// try await phone.finishOnline()
/// print(phone.recorded.count, phone.sends.count, try phone.store.backlog())
/// ```
///
/// The demo (`waymark demo`) and the no-point-lost acceptance tests both run on it. A value type; not
/// `Sendable`, because its upload queue (a `VirtualTimeUploader`) is not.
public struct SimulatedPhone {
    /// The simulated phone and the app on it. ``advance(to:)`` moves it.
    public private(set) var simulation: Simulation
    /// The app's store as the current process opened it.
    public private(set) var store: RideStore
    /// The store's ride that this phone records into.
    public let rideID: RideID
    /// The current process's upload queue: nil before the first launch and once the app has died;
    /// kept while the app is suspended (it sends nothing then).
    public private(set) var uploader: VirtualTimeUploader?
    /// Every fix the app recorded (and this phone stored), in order.
    public private(set) var recorded: [Fix] = []
    /// Every gap marker the app reported (and this phone stored), in order.
    public private(set) var gaps: [GapMarker] = []
    /// Every geofence event the app's engine decided (and this phone stored), in order.
    public private(set) var fenceEvents: [FenceEvent] = []
    /// App launches the simulation delivered (each one a new process and a new queue).
    public private(set) var launches = 0
    /// Fence sets handed to the engine (with a ``FenceSource``), in order.
    public private(set) var fenceUpdates: [FenceUpdate] = []
    /// Fence fetches made (every page is one), and of them the ones that failed.
    public var fenceFetches: (requests: Int, failed: Int) { get async { await fenceClock.counts } }
    /// ``advance(to:)`` calls that ended with the app suspended, and with it not running.
    public private(set) var suspendedSteps = 0, deadSteps = 0
    /// The app's field log, if it keeps one: what the engine decided (the `EngineApp`'s
    /// `fieldLog`, written after each step), the Background App Refresh reading at each launch and
    /// return to the foreground, and every upload outcome, all on virtual time.
    public let fieldLog: FieldLog?
    /// Engine entries already written to ``fieldLog``.
    private var loggedEntries = 0
    /// The Background App Refresh readings already written.
    private var backgroundNotes = FieldLogNotes(core: EngineCore())

    private let path: String
    private let transport: SimulatedNetworkTransport
    private let credentials: DeviceCredentials
    private let deviceID: String?
    /// What the upload queue sends batches as (the native format unless the phone was made with another).
    public let uploadFormat: UploadFormat
    private let uploads: UploadQueue.Configuration
    private var processSeeds: SplitMix64
    private var seenEvents = 0
    /// Sends and requests of the processes that ended.
    private var endedSends: [VirtualTimeUploader.Send] = []
    private var endedRequests = 0
    private let fenceSource: FenceSource?
    private let retention: RetentionLimits
    /// Points the retention limits dropped (as `RideRecorder` would), and the gap markers written for them.
    public private(set) var retentionDrops: [RetentionReport] = []
    private var fenceSync: FenceSync?
    private let fenceClock = FenceFetchClock()
    /// Fences to hand to the engine once the process runs.
    private var pendingFences: (fences: [Fence], source: FenceUpdate.Source)?

    /// Makes the phone, with a new ride in the store at `path` started at the simulation's epoch.
    ///
    /// - Parameters:
    ///   - simulation: a simulation whose app is an `EngineApp` (a precondition).
    ///   - storePath: the app's SQLite store file (created if missing).
    ///   - transport: sends the batches the scenario's network lets through (HTTP to a server, or a test double).
    ///   - credentials: the upload token.
    ///   - deviceID: the device id the batches carry, if any (native format).
    ///   - uploadFormat: what batches are sent as (the transport must reach that format's route); nil
    ///     sends the native format with `deviceID`.
    ///   - uploads: batch size, age and backoff.
    ///   - ridePolicy: the policy name stored with the ride.
    ///   - seed: seeds each process's backoff jitter.
    ///   - fences: where the app fetches its fences from, if it does (nil: the app's script installs them).
    ///   - retention: the store's limits, applied after each step's recordings as `RideRecorder` applies them.
    ///   - log: the app's field log (a `FieldLog` beside the store, usually), or nil for none.
    /// - Throws: a `SyncError` when the store cannot be opened.
    public init(simulation: Simulation, storePath: String, transport: any UploadTransport, credentials: DeviceCredentials,
                deviceID: String? = nil, uploadFormat: UploadFormat? = nil,
                uploads: UploadQueue.Configuration = UploadQueue.Configuration(),
                ridePolicy: String = "cycling", seed: UInt64 = 1, fences: FenceSource? = nil,
                retention: RetentionLimits = RetentionLimits(), log: FieldLog? = nil) throws {
        fieldLog = log
        precondition(simulation.engineApp != nil, "SimulatedPhone runs an EngineApp; the simulation runs another app")
        self.simulation = simulation
        path = storePath
        self.transport = SimulatedNetworkTransport(network: simulation.network, epoch: simulation.epoch, server: transport)
        self.credentials = credentials
        self.deviceID = deviceID
        self.uploadFormat = uploadFormat ?? .native(deviceID: deviceID)
        self.uploads = uploads
        processSeeds = SplitMix64(seed: seed ^ 0x5A5A)
        fenceSource = fences
        self.retention = retention
        store = try RideStore(path: storePath)
        rideID = try store.startRide(at: simulation.epoch, policy: ridePolicy).id
    }

    /// Whether the app's process runs (foreground or background) now.
    public var isRunning: Bool { simulation.appState == .foreground || simulation.appState == .background }

    /// Every finished send of every process so far, in order.
    public var sends: [VirtualTimeUploader.Send] { endedSends + (uploader?.sends ?? []) }

    /// HTTP requests made by every process so far (sends that failed offline are not requests).
    public var requests: Int { endedRequests + (uploader?.requests ?? 0) }

    /// Whether the network is off at `t` (seconds from the start).
    public func isOffline(at t: Double) -> Bool { !simulation.isOnline(at: t) }

    /// Runs the simulation to `t` (seconds from the start) and does what the app's process did
    /// meanwhile; see the type's description.
    /// - Throws: a `SyncError` from the store, or an error from the transport.
    /// - Precondition: `t` is not before the simulation's current second.
    public mutating func advance(to t: Double) async throws {
        simulation.run(until: t)
        let now = simulation.date(t)
        try storeRecordings()
        for timed in simulation.received[seenEvents...] {
            if case .launched(let reason) = timed.event {
                try startProcess(at: timed.time, foreground: reason == .user)
                launches += 1
            }
            switch timed.event {
            case .launched, .willEnterForeground:
                // As the Engine actor reads `Device.backgroundAppRefreshAvailable()`.
                fieldLog?.record(backgroundNotes.backgroundLocation(available: simulation.backgroundRefreshAvailable, at: timed.time))
            default:
                break
            }
            if let event = UploadQueue.relevantPart(of: timed.event), let queueTime = uploader?.now {
                // The radio as it is when the event arrives (a reachability event comes with the change).
                let offline = isOffline(at: timed.time.timeIntervalSince(simulation.epoch))
                uploader?.offline = offline
                try await uploader?.feed(.device(event), at: max(queueTime, timed.time))
            }
            if let sync = fenceSync {
                await fenceClock.set(timed.time)
                if case .updated(let fences)? = await sync.handle(timed.event, at: timed.time) {
                    pendingFences = (fences, .server(fetchedAt: timed.time))
                }
            }
        }
        seenEvents = simulation.received.count
        handFencesToEngine()
        switch simulation.appState {
        case .notRunning:
            endProcess()
            deadSteps += 1
        case .suspended:
            suspendedSteps += 1
        case .foreground, .background:
            guard uploader != nil else { break }
            let offline = isOffline(at: t), backlog = try store.backlog(), queueTime = uploader?.now ?? now
            uploader?.offline = offline
            try await uploader?.feed(.backlogChanged(backlog), at: max(queueTime, now))
            try await uploader?.runDeadlines(upTo: now)
        }
        await recordTransmissions()
    }

    /// The end of the day, on the upload side only: the rider opens the app (a new process if it was
    /// not running) at the simulation's current time, or once the scenario's network is back if it is
    /// offline then, and the queue sends everything left.
    /// It flushes whatever waits and follows the queue's deadlines (backoff after a failure) until the
    /// backlog is empty, or `maxSteps` sends or deadlines have passed. Returns the virtual time it
    /// ended at. The simulation itself is neither launched nor advanced (``launches`` does not
    /// count this process), so call this once, after the last ``advance(to:)``.
    /// - Throws: a `SyncError` from the store, or an error from the transport.
    @discardableResult
    public mutating func finishOnline(maxSteps: Int = 1_000) async throws -> Date {
        try storeRecordings()
        // Online from here (an offline window that never ends leaves every send failing until `maxSteps`).
        let online = simulation.network.nextOnline(atOrAfter: simulation.now).map(simulation.date) ?? simulation.currentDate
        if uploader == nil { try startProcess(at: online, foreground: true) }
        guard var queue = uploader else { return online }
        defer { uploader = queue }
        queue.offline = false
        let start = max(queue.now, online)
        try await queue.feed(.device(.networkReachability(online: true)), at: start)
        try await queue.feed(.device(.willEnterForeground), at: start)
        try await queue.sendAll(maxSteps: maxSteps)
        await recordTransmissions()
        return queue.now
    }

    /// Hands the waiting fence set to the engine while the process runs (a dead or suspended process
    /// keeps it waiting).
    private mutating func handFencesToEngine() {
        guard let pending = pendingFences, isRunning, simulation.perform(.replaceFences(pending.fences)) else { return }
        fenceUpdates.append(FenceUpdate(at: simulation.currentDate, fences: pending.fences, source: pending.source))
        pendingFences = nil
    }

    /// Accounts in the simulation for the uploads the network saw since the last call.
    private mutating func recordTransmissions() async {
        for transmission in await transport.takeTransmissions() { simulation.recordTransmission(transmission) }
    }

    /// Stores what the app recorded since the last call.
    private mutating func storeRecordings() throws {
        guard let app = simulation.engineApp else { return }
        if let fieldLog, app.fieldLog.count > loggedEntries {
            fieldLog.record(Array(app.fieldLog[loggedEntries...]))
            loggedEntries = app.fieldLog.count
        }
        if app.recordedFixes.count > recorded.count {
            let new = Array(app.recordedFixes[recorded.count...])
            try store.append(new, to: rideID)
            recorded += new
        }
        for gap in app.gaps.dropFirst(gaps.count) {
            try store.recordGap(GapRecord(ride: rideID, start: gap.start, end: gap.end, reason: gap.reason.rawValue))
            gaps.append(gap)
        }
        for event in app.fenceEvents.dropFirst(fenceEvents.count) {
            try store.recordFenceEvent(event)
            fenceEvents.append(event)
        }
        if retention != .unlimited, let newest = recorded.last?.timestamp {
            let report = try store.enforceRetention(retention, now: newest)
            if report.droppedPoints > 0 { retentionDrops.append(report) }
        }
    }

    /// A new process at `time`: the store opened afresh and a new queue over it.
    private mutating func startProcess(at time: Date, foreground: Bool) throws {
        endProcess()
        store = try RideStore(path: path)
        uploader = try VirtualTimeUploader(store: store, transport: transport, credentials: credentials, configuration: uploads,
                                           deviceID: deviceID, uploadFormat: uploadFormat, seed: processSeeds.next(), now: time,
                                           foreground: foreground,
                                           online: !isOffline(at: time.timeIntervalSince(simulation.epoch)), log: fieldLog)
        guard let source = fenceSource else { return }
        let sync = FenceSync(store: store, transport: PhoneFenceTransport(network: transport, server: source.transport, clock: fenceClock),
                             credentials: credentials, configuration: source.configuration)
        fenceSync = sync
        // The app's start: the engine gets the stored copy when its own fences differ (offline start).
        if let copy = try store.fenceCopy(), let app = simulation.engineApp {
            let held = app.disk.geofences?.fences ?? [:]
            if held != Dictionary(copy.fences.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }) {
                pendingFences = (copy.fences, .storedCopy)
            }
        }
    }

    /// The process is gone, and its queue with it.
    private mutating func endProcess() {
        fenceSync = nil
        guard let queue = uploader else { return }
        endedSends += queue.sends
        endedRequests += queue.requests
        uploader = nil
    }
}

/// Where a ``SimulatedPhone``'s app fetches its fences: a server's `GET /api/fences` (HTTP to a
/// `waymark serve`, or a test double) and `FenceSync`'s schedule.
///
/// A `Sendable` value type.
public struct FenceSource: Sendable {
    /// The server's fence list (the scenario's network stands in front of it).
    public var transport: any FenceListTransport
    /// When to fetch.
    public var configuration: FenceSync.Configuration

    /// Makes a source.
    public init(transport: any FenceListTransport, configuration: FenceSync.Configuration = FenceSync.Configuration()) {
        self.transport = transport
        self.configuration = configuration
    }
}

/// One fence set a ``SimulatedPhone`` handed to its engine.
///
/// A `Sendable` value type.
public struct FenceUpdate: Hashable, Sendable {
    /// Where the set came from.
    public enum Source: Hashable, Sendable {
        /// A fetch that found the server's fences changed, at this (virtual) time.
        case server(fetchedAt: Date)
        /// The store's copy, at a process's start (the engine's own set differed from it).
        case storedCopy
    }

    /// When the engine got it (virtual time).
    public var at: Date
    /// The fences.
    public var fences: [Fence]
    /// Where they came from.
    public var source: Source
}

/// The virtual time of the fence fetch under way, and a count of fetches.
actor FenceFetchClock {
    private(set) var now = Date(timeIntervalSince1970: 0)
    private(set) var counts = (requests: 0, failed: 0)

    func set(_ date: Date) { now = date }
    func count(failed: Bool) {
        counts.requests += 1
        if failed { counts.failed += 1 }
    }
}

/// A phone's fence fetches: through the scenario's network, at the virtual time of the event that
/// made the fetch due.
struct PhoneFenceTransport: FenceListTransport {
    let network: SimulatedNetworkTransport
    let server: any FenceListTransport
    let clock: FenceFetchClock

    func fetchFences(_ request: FenceListRequest) async -> FenceListResponse {
        let response = await network.fetchFences(request, at: await clock.now, from: server)
        let failed = switch response {
        case .page, .notModified: false
        case .status, .failed: true
        }
        await clock.count(failed: failed)
        return response
    }
}
