import Foundation
import Observation
import WaymarkEngine
import WaymarkGeo
import WaymarkSync

/// The Ride tab: start, pause, resume and stop a ride that records in the background with the
/// engine's battery-aware policy, and upload what it records to `waymark serve`.
///
/// Starting the first ride asks for the Always upgrade (once per install, through the engine's
/// sequencer); the ride then asks for motion itself. What the ride records goes into WaymarkSync's
/// `RideStore` through a `RideRecorder` (``AppModel`` wires it), and an `UploadDriver` empties the
/// store in batches: when a batch is full or old enough, when the network returns, when the app
/// goes to the background, and on ``uploadNow()``. A point leaves the phone's store only when the
/// server acknowledged it, and a batch keeps its idempotency key across kills.
///
/// ```swift
/// await model.start()
/// model.state.ride            // .moving
/// model.state.waitingPoints   // recorded, not yet acknowledged
/// ```
///
/// Main-actor isolated, observable by SwiftUI.
@MainActor
public final class RideModel: Observable {
    /// What the Ride tab shows.
    public struct State: Hashable, Sendable {
        /// The ride's state.
        public var ride: RideState = .idle
        /// Where automatic tracking stands (`engine.ride.automatic`): still, checking, riding.
        public var automatic: AutomaticTracking.State = .off
        /// Distance, moving time and speed.
        public var statistics = RideStatistics()
        /// The current (or last) ride's identifier.
        public var rideID: RideID?
        /// Fixes recorded in this process.
        public var recordedFixes = 0
        /// Gap markers recorded in this process.
        public var gaps = 0
        /// Points recorded and not yet acknowledged by the server (stored on the phone).
        public var waitingPoints = 0
        /// Batches the server could never accept, set aside on the phone.
        public var quarantinedBatches = 0
        /// Whether an upload is on its way.
        public var uploading = false
        /// Failed attempts since the last success (the driver backs off between them).
        public var uploadFailures = 0
        /// Whether a start was tapped and the ride has not started yet (the Always prompt may be up).
        public var starting = false
        /// Whether the user chose approximate location (the ride would be 1–20 km off).
        public var approximateLocation = false
        /// Whether a server is set.
        public var serverConfigured = false

        /// Whether the Start button is enabled.
        public var canStart: Bool { !ride.isActive && !starting }
        /// Whether the Pause button is enabled.
        public var canPause: Bool { ride == .moving || ride == .autoPaused }
        /// Whether the Resume button is enabled.
        public var canResume: Bool { ride == .userPaused }
        /// Whether the Stop button is enabled.
        public var canStop: Bool { ride.isActive }
    }

    private var observed = ObservedValue(State())
    private let engine: Engine
    private let device: any Device
    private let makeRideID: @MainActor () -> RideID
    /// The phone's durable store of rides and uploads.
    public let store: RideStore
    /// The upload driver of the server in use; nil while no server is set.
    public private(set) var driver: UploadDriver?
    private var statusTask: Task<Void, Never>?
    /// Whether the driver's latest status had nothing waiting and nothing on its way.
    private var settled = true
    private var settleWaiters: [CheckedContinuation<Void, Never>] = []

    /// What the tab shows.
    public private(set) var state: State {
        get { observed.read(self, \.state) }
        set { observed.write(self, \.state, newValue) }
    }

    /// Makes a model over `engine` and its `device`, with the phone's `store`.
    ///
    /// - parameter makeRideID: names a new ride (a UUID by default).
    public init(engine: Engine, device: any Device, store: RideStore,
                makeRideID: @escaping @MainActor () -> RideID = { RideID() }) {
        self.engine = engine
        self.device = device
        self.store = store
        self.makeRideID = makeRideID
        state.rideID = try? store.lastCheckpoint()?.rideID
        refreshBacklog()
    }

    /// Starts a ride: asks for the Always upgrade first (once per install), then starts recording.
    public func start() async {
        guard state.canStart else { return }
        state.starting = true
        // The upgrade is asked here, in context, not at first launch; the engine skips it when it
        // was asked before or when-in-use was not granted, and never shows it over another prompt.
        _ = try? await engine.permissions.request(ExampleApp.rideRequests)
        let id = makeRideID()
        state.rideID = id
        await engine.ride.start(rideID: id)
        state.starting = false
    }

    /// Pauses the ride (nothing is recorded until ``resume()``).
    public func pause() async { await engine.ride.pause() }

    /// Resumes a paused ride.
    public func resume() async { await engine.ride.resume() }

    /// Stops the ride; what it recorded is uploaded.
    public func stop() async { await engine.ride.stop() }

    /// Asks iOS for precise location for this ride while the user chose approximate location.
    ///
    /// Called from a button, so no other system prompt can be on screen (an alert is modal); the
    /// answer arrives as an authorization change, which clears ``State/approximateLocation``.
    public func requestPreciseLocation() async {
        guard state.approximateLocation else { return }
        await device.perform(.requestTemporaryFullAccuracy(purposeKey: ExampleApp.fullAccuracyPurposeKey))
    }

    /// Sends what is waiting now, however small the batch.
    public func uploadNow() {
        guard let driver else { return }
        Task { await driver.flush() }
    }

    /// Returns once nothing is waiting and nothing is on its way, or at once without a server
    /// (tests, and a "Send now" button that shows progress).
    public func uploadsSettled() async {
        guard let driver else { return }
        settled = false
        await driver.flush()
        guard !settled else { return }
        await withCheckedContinuation { settleWaiters.append($0) }
    }

    /// Uses `driver` for uploads from now on (nil: no server); the previous driver is stopped
    /// (its batch in flight, if any, keeps its key in the store and is resent by the next one).
    func use(_ driver: UploadDriver?) async {
        statusTask?.cancel()
        if let old = self.driver { await old.stop() }
        self.driver = driver
        state.serverConfigured = driver != nil
        state.uploading = false
        releaseSettleWaiters()
        guard let driver else { return }
        statusTask = Task { [weak self] in
            for await status in driver.statuses {
                guard let self else { return }
                self.apply(status)
            }
        }
        await driver.start()
    }

    /// The recorder stored an entry: the driver counts it towards the next batch.
    func stored() async {
        if let driver { await driver.recorded() } else { refreshBacklog() }
    }

    func apply(_ status: UploadDriver.Status) {
        state.waitingPoints = status.backlog.unbatchedPoints + status.backlog.pending.reduce(0) { $0 + $1.points }
        state.quarantinedBatches = status.backlog.quarantined
        state.uploadFailures = status.failures
        if case .sending = status.phase { state.uploading = true } else { state.uploading = false }
        settled = status.phase == .idle && status.backlog.pending.isEmpty && !status.backlog.hasUnbatched
        if settled { releaseSettleWaiters() }
    }

    private func releaseSettleWaiters() {
        let waiters = settleWaiters
        settleWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    func apply(_ ride: RideState) {
        let previous = state.ride
        state.ride = ride
        // A pause or the end of a ride sends what it recorded without waiting for a full batch.
        if ride != previous, ride == .autoPaused || ride == .userPaused || ride == .ended { uploadNow() }
    }

    func apply(_ automatic: AutomaticTracking.State) {
        state.automatic = automatic
    }

    func apply(_ statistics: RideStatistics) {
        state.statistics = statistics
    }

    func apply(_ authorization: LocationAuthorization) {
        state.approximateLocation = authorization.accuracy == .reduced
    }

    /// Counts what the engine recorded (the recorder stores it; this is what the tab shows).
    func record(_ record: RideEntry) {
        switch record {
        case .fix: state.recordedFixes += 1
        case .gap: state.gaps += 1
        case .checkpoint(let snapshot): state.rideID = snapshot.rideID
        }
    }

    private func refreshBacklog() {
        guard let backlog = try? store.backlog() else { return }
        state.waitingPoints = backlog.unbatchedPoints + backlog.pending.reduce(0) { $0 + $1.points }
        state.quarantinedBatches = backlog.quarantined
    }
}
