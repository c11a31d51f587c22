import Foundation
import Observation
import WaymarkEngine
import WaymarkGeo

/// The Ride tab: start, pause, resume and stop a ride that records in the background with the
/// engine's battery-aware policy, and upload what it records to `waymark serve`.
///
/// Starting the first ride asks for the Always upgrade (once per install, through the engine's
/// sequencer); the ride then asks for motion itself. Recorded fixes and gap markers go into an
/// ``UploadBuffer``; a batch goes out when ``batchThreshold`` fixes are waiting, when the ride
/// pauses or ends, and on ``uploadNow()``. A record leaves the buffer only when the server
/// acknowledged it.
///
/// ```swift
/// await model.start()
/// model.state.ride            // .moving
/// model.state.uploads.acknowledgedFixes
/// ```
///
/// Main-actor isolated, observable by SwiftUI.
@MainActor
public final class RideModel: Observable {
    /// What the Ride tab shows.
    public struct State: Hashable, Sendable {
        /// The ride's state.
        public var ride: RideState = .idle
        /// Distance, moving time and speed.
        public var statistics = RideStatistics()
        /// The current (or last) ride's identifier.
        public var rideID: String?
        /// Fixes recorded in this process.
        public var recordedFixes = 0
        /// Gap markers recorded in this process.
        public var gaps = 0
        /// The upload buffer: pending, acknowledged, the last problem.
        public var uploads = UploadBuffer()
        /// Whether an upload is on its way.
        public var uploading = false
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

    /// Upload when this many fixes wait (about 30 s of riding at 1 Hz).
    public let batchThreshold: Int
    private var observed = ObservedValue(State())
    private let engine: Engine
    private let device: any Device
    private let makeRideID: @MainActor () -> String
    /// Sends batches; nil until the user sets a server.
    public var uploader: (any RideUploader)? {
        didSet { state.serverConfigured = uploader != nil; if uploader != nil { pumpUploads() } }
    }
    /// Called whenever something the app stores changed (the buffer, the ride checkpoint).
    var changed: ((_ uploads: UploadBuffer, _ checkpoint: RideSnapshot?) -> Void)?
    private var checkpoint: RideSnapshot?
    private var uploadTask: Task<Void, Never>?
    private var flushRequested = false

    /// What the Ride tab shows; observed by SwiftUI.
    public private(set) var state: State {
        get { observed.read(self, \.state) }
        set { observed.write(self, \.state, newValue) }
    }

    /// Makes a model over `engine` and its `device`, with the stored upload buffer and checkpoint.
    ///
    /// - parameter makeRideID: names a new ride (a UUID by default).
    public init(engine: Engine, device: any Device, uploads: UploadBuffer, checkpoint: RideSnapshot?,
                uploader: (any RideUploader)? = nil, batchThreshold: Int = 30,
                makeRideID: @escaping @MainActor () -> String = { UUID().uuidString }) {
        self.engine = engine
        self.device = device
        self.batchThreshold = batchThreshold
        self.makeRideID = makeRideID
        self.checkpoint = checkpoint
        self.uploader = uploader
        state.uploads = uploads
        state.rideID = checkpoint?.rideID
        state.serverConfigured = uploader != nil
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

    /// Sends what is waiting now.
    public func uploadNow() {
        pumpUploads(all: true)
    }

    /// Waits for the upload in progress, if any (tests, and the app before it is suspended).
    public func uploadsSettled() async {
        while let task = uploadTask { await task.value }
    }

    func apply(_ ride: RideState) {
        let previous = state.ride
        state.ride = ride
        if ride != previous, ride == .autoPaused || ride == .userPaused || ride == .ended {
            pumpUploads(all: true)
        }
    }

    func apply(_ statistics: RideStatistics) {
        state.statistics = statistics
    }

    func apply(_ authorization: LocationAuthorization) {
        state.approximateLocation = authorization.accuracy == .reduced
    }

    func record(_ record: RideEntry) {
        switch record {
        case .fix(let fix):
            state.uploads.append(.fix(fix, rideID: currentRideID))
            state.recordedFixes += 1
            if state.uploads.pendingFixes >= batchThreshold { pumpUploads() }
        case .gap(let gap):
            state.uploads.append(.gap(gap, rideID: currentRideID))
            state.gaps += 1
        case .checkpoint(let snapshot):
            checkpoint = snapshot
            if state.rideID == nil { state.rideID = snapshot.rideID }
        }
        changed?(state.uploads, checkpoint)
    }

    private var currentRideID: String { checkpoint?.rideID ?? state.rideID ?? "unknown" }

    /// Starts sending, unless a send is under way (it then takes the request into account).
    ///
    /// - parameter all: send everything waiting, not only full batches.
    private func pumpUploads(all: Bool = false) {
        if all { flushRequested = true }
        guard uploadTask == nil, uploader != nil else { return }
        uploadTask = Task { [weak self] in
            await self?.drain()
            self?.uploadTask = nil
        }
    }

    /// Sends batches one at a time while a full batch waits (or anything waits after a flush was
    /// asked), until a batch fails or no uploader is set. A failure keeps the flush request, so
    /// the next trigger sends everything.
    private func drain() async {
        state.uploading = true
        defer { state.uploading = false }
        while let uploader, flushRequested || state.uploads.pendingFixes >= batchThreshold,
              let batch = state.uploads.nextBatch() {
            let outcome = await uploader.upload(batch)
            state.uploads.finish(batch, with: outcome)
            changed?(state.uploads, checkpoint)
            if case .failed = outcome { return }
        }
        if state.uploads.pending.isEmpty { flushRequested = false }
    }
}
