import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
import WaymarkSync
import WaymarkSimulatedPhone
import WaymarkTransport

/// Runs the whole demo once against a running ``DemoServer``: WaymarkSimulator's ``SimulatedPhone``
/// records the ride, its ``RideStore`` and upload queue send the fixes over real HTTP, and the result
/// holds the timeline and the summary figures.
///
/// The phone advances in steps of ``step`` virtual seconds (the sends themselves are real HTTP
/// requests to the in-process server); after each step the demo turns what happened into timeline
/// lines.
struct DemoRun {
    /// Virtual seconds per step.
    static let step: Double = 10

    var seed: UInt64 = 1
    var startTime: Date
    /// What the phone uploads as (`--upload-format`).
    var uploadFormat: DemoUploadFormat = .native
    var uploads = UploadQueue.Configuration(maxBatchPoints: 500, maxBatchAge: 600, backoffBase: 5, backoffCap: 300)

    /// Runs the demo; `progress` receives the share of virtual time done (0…1), `line` each timeline line as it happens.
    func run(server: DemoServer, progress: (Double) -> Void = { _ in },
             line: (DemoTimelineEntry) -> Void = { _ in }) async throws -> DemoResult {
        let clock = ContinuousClock()
        let began = clock.now
        let ride = try DemoRide.bundled(startTime: startTime)
        // The operator defines the fences on the server; the phone fetches them (FenceSync, through the
        // scenario's network). The energy baseline gets the set the server returns to the same request.
        try await server.loadFences(ride.fences)
        let http = try HTTPUploadTransport(server: server.baseURL, timeout: .seconds(10))
        let served = try await Self.fences(from: http, token: server.deviceToken)
        let names = Dictionary(served.map { ($0.id, $0.userData["name"] ?? $0.id) }, uniquingKeysWith: { first, _ in first })
        var serverEvents = DemoServerEvents(names: names)
        let baseline = Task.detached { [self] in try alwaysBestEnergy(ride, fences: served) }
        let sim = try Simulation(scenario: ride.scenario, seed: seed, app: EngineApp(configuration: DemoAppReader.configuration(), script: DemoAppReader.script()),
                                 trajectory: ride.trajectory)
        let storePath = server.folder.appendingPathComponent("device.sqlite").path
        // The app's field log beside its store (the terminal shows the timeline, so no system-log copy).
        let fieldLog = FieldLog(.init(besideStoreAt: storePath, systemLog: false))
        // The phone uploads to the route of its format on the same server (`/api/ingest`, `/pub` or `/`).
        let format = try uploadFormat.format(deviceID: server.deviceID)
        let uploadPath = format.defaultPath ?? "/api/ingest"
        let uploadTransport = try uploadPath == "/api/ingest" ? http : HTTPUploadTransport(server: server.baseURL, path: uploadPath,
                                                                                           timeout: .seconds(10))
        var phone = try SimulatedPhone(simulation: sim, storePath: storePath,
                                       transport: uploadTransport, credentials: DeviceCredentials(token: server.deviceToken),
                                       deviceID: server.deviceID, uploadFormat: format,
                                       uploads: uploads, ridePolicy: "waymark-default", seed: seed,
                                       fences: FenceSource(transport: http), log: fieldLog)
        var reader = DemoAppReader(ride: ride)
        let epoch = sim.epoch
        var timeline: [DemoTimelineEntry] = []
        var pending: [DemoTimelineEntry] = []
        func flush() {
            for entry in pending.sorted(by: { $0.t < $1.t }) { emit(entry) }
            pending = []
        }
        func emit(_ entry: DemoTimelineEntry) {
            if let last = timeline.last, last.kind == entry.kind, last.text == entry.text, entry.t - last.t < 120 { return }
            timeline.append(entry)
            line(entry)
        }
        var cursor = Cursor()
        var t = 0.0
        while t < ride.endTime {
            t = min(t + Self.step, ride.endTime)
            try await phone.advance(to: t)
            let log = phone.simulation.log.entries
            var recordingStopped = false                // GNSS lost or the app killed: close the spell of fixes
            for entry in log[cursor.log...] {
                if let note = entry.note, let item = DemoNotes.entry(note: note, at: entry.t) {
                    pending.append(item)
                    recordingStopped = recordingStopped || item.kind == .gnss || note.hasPrefix("terminated") || note.hasPrefix("force-quit")
                }
            }
            cursor.log = log.count
            for update in phone.fenceUpdates.dropFirst(cursor.fenceUpdates) {
                let source = switch update.source {
                case .server: "fetched from the server (GET /api/fences)"
                case .storedCopy: "restored from the phone's last copy"
                }
                pending.append(DemoTimelineEntry(t: update.at.timeIntervalSince(epoch), kind: .fence,
                                                 text: "\(update.fences.count) fences \(source), handed to the engine"))
            }
            cursor.fenceUpdates = phone.fenceUpdates.count
            if let app = phone.simulation.engineApp {
                pending += reader.read(app, epoch: epoch)
                if recordingStopped, let spell = reader.finish(app, epoch: epoch) { pending.append(spell) }
            }
            let sends = phone.sends
            if sends.count > cursor.sends {
                pending += sends[cursor.sends...].map { Self.entry(DemoAttempt($0), epoch: epoch) }
                pending += try await serverEvents.poll(server, at: t, epoch: epoch)
                cursor.sends = sends.count
            }
            flush()
            progress(t / ride.endTime)
        }
        if let app = phone.simulation.engineApp, let last = reader.finish(app, epoch: epoch) { emit(last) }
        // Home: the rider opens the app; it is online and sends what is left.
        try await phone.finishOnline()
        for send in phone.sends.dropFirst(cursor.sends) { emit(Self.entry(DemoAttempt(send), epoch: epoch)) }
        pending += try await serverEvents.poll(server, at: phone.simulation.now, epoch: epoch)
        flush()
        let stored = try await server.storedPointCount()
        let storedGaps = try await server.storedGapCount()
        emit(DemoTimelineEntry(t: phone.simulation.now, kind: .server, text: "server stored \(stored) points and \(storedGaps) gap "
                               + "\(storedGaps == 1 ? "marker" : "markers") for \(server.deviceID)"))
        let simulationSeconds = (clock.now - began).seconds
        let baselineEnergy = try await baseline.value
        let summary = try DemoSummary(sim: phone.simulation, store: phone.store, uploadFormat: uploadFormat,
                                      attempts: phone.sends.map(DemoAttempt.init),
                                      storedOnServer: stored, gapsOnServer: storedGaps,
                                      reportedOnServer: try await server.reportedFenceEvents(), serverFenceEvents: serverEvents.events,
                                      alwaysBestEnergy: baselineEnergy, simulationSeconds: simulationSeconds,
                                      fenceUpdates: phone.fenceUpdates, fenceRequests: await phone.fenceFetches)
        return DemoResult(timeline: timeline, summary: summary, fieldLog: try await DemoFieldLog(fieldLog))
    }

    /// Energy of the same app, ride, seed, events and fences with policy A (always best accuracy).
    func alwaysBestEnergy(_ ride: DemoRide, fences: [Fence]) throws -> Double {
        let configuration = DemoAppReader.configuration(ride: RidePolicyChoice.alwaysBest.configuration)
        var sim = try Simulation(scenario: ride.scenario, seed: seed,
                                 app: EngineApp(configuration: configuration, script: DemoAppReader.script(fences: fences)),
                                 trajectory: ride.trajectory)
        sim.runToEnd()
        return sim.energy.total
    }

    private struct Cursor {
        var log = 0, sends = 0, fenceUpdates = 0
    }

    /// Every fence the server holds for the device, read as the phone reads them (`GET /api/fences`,
    /// page by page, with the device token).
    static func fences(from transport: HTTPUploadTransport, token: String) async throws -> [Fence] {
        var fences: [Fence] = [], after: String?
        repeat {
            switch await transport.fetchFences(FenceListRequest(token: token, after: after)) {
            case .page(let body, _):
                let page = try FenceFeatures.page(body)
                fences += page.fences
                after = page.next
            case .notModified:
                throw InputError("the demo server answered 304 to a request without If-None-Match")
            case .status(let code, let body):
                throw InputError("the demo server refused GET /api/fences (HTTP \(code)): \(String(decoding: body.prefix(200), as: UTF8.self))")
            case .failed(let why):
                throw InputError("GET /api/fences failed: \(why)")
            }
        } while after != nil
        return fences
    }

    static func describe(_ state: RideState) -> String {
        switch state {
        case .idle: "ride idle"
        case .moving: "moving: recording with the cycling policy"
        case .autoPaused: "auto-paused (rider stopped): GNSS off, low-power watch"
        case .userPaused: "paused by the rider"
        case .ended: "ride ended"
        }
    }

    static func describe(_ reason: GapMarker.Reason) -> String {
        switch reason {
        case .terminated: "app was terminated"
        case .notRunningUntilOpened: "not running until opened"
        case .signalLost: "signal lost"
        case .departureNotRecorded: "set off before the first fix on the move"
        }
    }

    static func entry(_ attempt: DemoAttempt, epoch: Date) -> DemoTimelineEntry {
        let text = attempt.status.map { "upload \(attempt.points) points → HTTP \($0) \(attempt.detail)" }
            ?? "upload \(attempt.points) points failed: \(attempt.detail); will retry"
        return DemoTimelineEntry(t: attempt.time.timeIntervalSince(epoch), kind: .upload, text: text)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The formats `waymark demo --upload-format` offers: the phone's built-in `UploadFormat`s, each sent to
/// its own route of the demo server.
enum DemoUploadFormat: String, CaseIterable, Hashable, Sendable, Codable {
    case native, owntracks, traccar, overland

    /// The phone's format for the demo's device.
    func format(deviceID: String) throws -> UploadFormat {
        switch self {
        case .native: return .native(deviceID: deviceID)
        case .owntracks: return try .owntracks(user: "demo", device: "phone", trackerID: "DR")
        case .traccar: return .traccar()
        case .overland: return .overland(deviceID: deviceID)
        }
    }
}
