import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
import WaymarkSync

/// Runs the whole demo once against a running ``DemoServer``: the simulated phone records the
/// ride, its ``RideStore`` and upload queue send the fixes over real HTTP, and the result holds
/// the timeline and the summary figures.
///
/// The simulation advances in steps of ``step`` virtual seconds; after each step the new fixes go
/// into the device store and the upload queue runs its due deadlines (on virtual time; the sends
/// themselves are real HTTP requests to the in-process server).
struct DemoRun {
    /// Virtual seconds per step.
    static let step: Double = 10

    var seed: UInt64 = 1
    var startTime: Date
    var uploads = UploadQueue.Configuration(maxBatchPoints: 500, maxBatchAge: 600, backoffBase: 5, backoffCap: 300)

    /// Runs the demo; `progress` receives the share of virtual time done (0…1), `line` each timeline line as it happens.
    func run(server: DemoServer, progress: (Double) -> Void = { _ in },
             line: (DemoTimelineEntry) -> Void = { _ in }) async throws -> DemoResult {
        let clock = ContinuousClock()
        let began = clock.now
        let ride = try DemoRide.bundled(startTime: startTime)
        try await server.loadFences(ride.fences)
        let names = Dictionary(uniqueKeysWithValues: ride.fences.map { ($0.id, $0.name) })
        var serverEvents = DemoServerEvents(names: names)
        let baseline = Task.detached { [self] in try alwaysBestEnergy(ride) }
        var sim = try Simulation(scenario: ride.scenario, seed: seed, app: EngineApp(script: DemoAppReader.script(ride)),
                                 trajectory: ride.trajectory)
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
        let store = try RideStore(path: server.folder.appendingPathComponent("device.sqlite").path)
        let rideID = try store.startRide(at: epoch, policy: "waymark-default").id
        var uploader: DemoUploader? = try makeUploader(store, server: server, ride: ride, now: epoch, foreground: true)
        var attempts: [DemoUploader.Attempt] = []
        var cursor = Cursor()
        var t = 0.0
        while t < ride.endTime {
            t = min(t + Self.step, ride.endTime)
            sim.run(until: t)
            let now = sim.date(t)
            var recordingStopped = false                // GNSS lost or the app killed: close the spell of fixes
            for entry in sim.log.entries[cursor.log...] {
                if let note = entry.note, let item = DemoNotes.entry(note: note, at: entry.t) {
                    pending.append(item)
                    recordingStopped = recordingStopped || item.kind == .gnss || note.hasPrefix("terminated") || note.hasPrefix("force-quit")
                }
            }
            cursor.log = sim.log.entries.count
            let running = sim.appState == .foreground || sim.appState == .background
            if !running && sim.appState == .notRunning, let dead = uploader {
                attempts += dead.attempts
                uploader = nil
            }
            for timed in sim.received[cursor.events...] {
                if case .launched(let reason) = timed.event, uploader == nil {
                    uploader = try makeUploader(store, server: server, ride: ride, now: timed.time, foreground: reason == .user)
                }
                if let event = UploadQueue.relevantPart(of: timed.event) { try await uploader?.feed(.device(event), at: now) }
            }
            cursor.events = sim.received.count
            if let app = sim.engineApp {
                pending += try reader.read(app, into: store, ride: rideID, epoch: epoch)
                if recordingStopped, let spell = reader.finish(app, epoch: epoch) { pending.append(spell) }
            }
            if running, var u = uploader {
                u.offline = ride.offline.contains(t)
                try await u.feed(.backlogChanged(try store.backlog()), at: now)
                try await u.runDeadlines(upTo: now)
                pending += u.attempts.dropFirst(cursor.attempts).map { Self.entry($0, epoch: epoch) }
                if u.attempts.count > cursor.attempts { pending += try await serverEvents.poll(server, at: t, epoch: epoch) }
                cursor.attempts = u.attempts.count
                uploader = u
            } else {
                cursor.attempts = uploader?.attempts.count ?? 0
            }
            flush()
            progress(t / ride.endTime)
        }
        if let app = sim.engineApp, let last = reader.finish(app, epoch: epoch) { emit(last) }
        // Home: the rider opens the app; it is online and sends what is left.
        var final = try uploader ?? makeUploader(store, server: server, ride: ride, now: sim.currentDate, foreground: true)
        let before = final.attempts.count
        _ = try await final.drain(from: sim.currentDate)
        for attempt in final.attempts.dropFirst(before) { emit(Self.entry(attempt, epoch: epoch)) }
        attempts += final.attempts
        pending += try await serverEvents.poll(server, at: sim.now, epoch: epoch)
        flush()
        let stored = try await server.storedPointCount()
        let storedGaps = try await server.storedGapCount()
        emit(DemoTimelineEntry(t: sim.now, kind: .server, text: "server stored \(stored) points and \(storedGaps) gap "
                               + "\(storedGaps == 1 ? "marker" : "markers") for \(server.deviceID)"))
        let simulationSeconds = (clock.now - began).seconds
        let baselineEnergy = try await baseline.value
        let summary = try DemoSummary(sim: sim, store: store, attempts: attempts, storedOnServer: stored,
                                      gapsOnServer: storedGaps, serverFenceEvents: serverEvents.events,
                                      alwaysBestEnergy: baselineEnergy, simulationSeconds: simulationSeconds)
        return DemoResult(timeline: timeline, summary: summary)
    }

    /// Energy of the same app, ride, seed and events with policy A (always best accuracy).
    func alwaysBestEnergy(_ ride: DemoRide) throws -> Double {
        let configuration = EngineCore.Configuration(ride: RidePolicyChoice.alwaysBest.configuration)
        var sim = try Simulation(scenario: ride.scenario, seed: seed,
                                 app: EngineApp(configuration: configuration, script: DemoAppReader.script(ride)),
                                 trajectory: ride.trajectory)
        sim.runToEnd()
        return sim.energy.total
    }

    private func makeUploader(_ store: RideStore, server: DemoServer, ride: DemoRide, now: Date,
                              foreground: Bool) throws -> DemoUploader {
        let t = now.timeIntervalSince(startTime)
        return try DemoUploader(store: store, server: server.baseURL, token: server.deviceToken, deviceID: server.deviceID,
                                configuration: uploads, seed: seed, now: now, foreground: foreground,
                                online: !ride.offline.contains(t))
    }

    private struct Cursor {
        var log = 0, events = 0, attempts = 0
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
        }
    }

    static func entry(_ attempt: DemoUploader.Attempt, epoch: Date) -> DemoTimelineEntry {
        let text = attempt.status.map { "upload \(attempt.points) points → HTTP \($0) \(attempt.detail)" }
            ?? "upload \(attempt.points) points failed: \(attempt.detail); will retry"
        return DemoTimelineEntry(t: attempt.time.timeIntervalSince(epoch), kind: .upload, text: text)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
