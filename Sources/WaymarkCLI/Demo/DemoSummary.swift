import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulatedPhone
import WaymarkSimulator
import WaymarkSync

/// What one demo run produced: the timeline and the summary figures.
struct DemoResult: Hashable, Sendable, Codable {
    var timeline: [DemoTimelineEntry]
    var summary: DemoSummary
    /// Where the phone's field log is, and its export.
    var fieldLog: DemoFieldLog
}

/// One fence event, as compared between the device and the server.
struct DemoFenceEvent: Hashable, Sendable, Codable {
    /// The fence's identifier.
    var fence: String
    /// `enter`, `exit` or `dwell`.
    var kind: String
    /// When the side that decided it places the event.
    var time: Date
    /// For phone events, what decided it: `fix`, `region`, `region state` or `debounce`; nil for the server.
    var decidedBy: String?
    /// For phone events that were not decided live (``FenceEvent/Timing``: `osDelayed` or
    /// `caughtUp`), the window the crossing lies in: the last position on the old side (when
    /// known) and the deciding position or iOS delivery. Nil for live events and the server.
    var earliest: Date? = nil, latest: Date? = nil
    /// For phone events, ``FenceEvent/Timing`` (`live`, `osDelayed`, `caughtUp`); nil for the server.
    var timing: String? = nil
}

/// The figures the demo prints at the end.
struct DemoSummary: Hashable, Sendable, Codable {
    /// What the phone uploaded as (`--upload-format`).
    var uploadFormat: DemoUploadFormat
    /// Metres along the recorded fixes (straight lines across gaps).
    var distanceMeters: Double
    /// Seconds from the first to the last recorded fix.
    var durationSeconds: Double
    /// Seconds moving (pauses excluded), from the ride's statistics.
    var movingSeconds: Double
    /// Energy of the run (relative units of PLATFORM.md §9).
    var energy: Double
    /// Energy of policy A (always best accuracy) on the same ride.
    var alwaysBestEnergy: Double
    /// ``energy`` relative to ``alwaysBestEnergy`` (0…1).
    var energyRatio: Double
    /// Fixes the phone recorded.
    var pointsRecorded: Int
    /// Points in batches the server acknowledged.
    var pointsUploaded: Int
    /// Points the server holds for the device.
    var pointsStoredOnServer: Int
    /// Points still on the phone after the final upload.
    var pointsLeftOnDevice: Int
    /// Upload attempts (acknowledged or not).
    var uploadAttempts: Int
    /// Batches the server acknowledged.
    var uploadBatches: Int
    /// Attempts that failed (offline, errors).
    var uploadFailures: Int
    /// Gap markers recorded.
    var gaps: Int
    /// Gap markers the server holds for the device (uploaded with the points).
    var gapsStoredOnServer: Int
    /// Gap markers and geofence events kept on the phone, not sent, because the upload format cannot
    /// carry them (every format but the native one).
    var gapsKeptOnPhone: Int, fenceEventsKeptOnPhone: Int
    /// Fence events decided on the phone, in order.
    var deviceFenceEvents: [DemoFenceEvent]
    /// How many of ``deviceFenceEvents`` the server holds as events the device reported (uploaded with
    /// the points, stored apart from its own), matched by fence, kind and time (to the millisecond).
    var deviceFenceEventsStoredOnServer: Int
    /// Fence events decided by the server from the uploaded points, in order.
    var serverFenceEvents: [DemoFenceEvent]
    /// Whether the phone's and the server's fence events agree (see ``DemoFenceAgreement``).
    var fenceAgreement: DemoFenceAgreement
    /// Wall-clock seconds the simulation and uploads took.
    var simulationSeconds: Double
    /// Whether automatic tracking started the ride (the app script starts none).
    var rideStartedAutomatically: Bool
    /// Metres from where the rider set off (the true position at the first movement) to the first recorded fix.
    var rideStartDistanceMeters: Double?
    /// Fences the phone fetched from the server (`GET /api/fences`) and handed to its engine: the
    /// last set it holds. The demo's app installs no fence itself.
    var fencesFromServer: Int
    /// Fence requests the phone made (a 304 for an unchanged set is one), and of them the ones that failed.
    var fenceRequests: Int, fenceRequestsFailed: Int


    init(sim: Simulation, store: RideStore, uploadFormat: DemoUploadFormat = .native, attempts: [DemoAttempt], storedOnServer: Int, gapsOnServer: Int,
         reportedOnServer: [DemoFenceEvent], serverFenceEvents: [DemoFenceEvent], alwaysBestEnergy: Double,
         simulationSeconds: Double, fenceUpdates: [FenceUpdate], fenceRequests: (requests: Int, failed: Int)) throws {
        let app = sim.engineApp
        let fixes = app?.recordedFixes ?? []
        distanceMeters = zip(fixes, fixes.dropFirst()).reduce(0) { $0 + Geodesy.haversineDistance($1.0.coordinate, $1.1.coordinate) }
        durationSeconds = (fixes.last?.timestamp).map { $0.timeIntervalSince(fixes[0].timestamp) } ?? 0
        movingSeconds = app?.rideStatistics?.movingSeconds ?? 0
        energy = sim.energy.total
        self.alwaysBestEnergy = alwaysBestEnergy
        energyRatio = alwaysBestEnergy > 0 ? energy / alwaysBestEnergy : 0
        pointsRecorded = fixes.count
        pointsUploaded = attempts.filter { $0.status.map { (200..<300).contains($0) } ?? false }.reduce(0) { $0 + $1.points }
        pointsStoredOnServer = storedOnServer
        pointsLeftOnDevice = try store.fixCount()
        uploadAttempts = attempts.count
        uploadFailures = attempts.filter { !($0.status.map { (200..<300).contains($0) } ?? false) }.count
        uploadBatches = uploadAttempts - uploadFailures
        gaps = app?.gaps.count ?? 0
        gapsStoredOnServer = gapsOnServer
        self.uploadFormat = uploadFormat
        let unsent = try store.unsentRecords()
        gapsKeptOnPhone = unsent.gaps.count
        fenceEventsKeptOnPhone = unsent.fenceEvents.count
        deviceFenceEvents = (app?.fenceEvents ?? []).map {
            DemoFenceEvent(fence: $0.fenceID, kind: $0.kind.rawValue, time: $0.time, decidedBy: Self.describe($0.cause),
                           earliest: $0.timing == .live ? nil : $0.earliest, latest: $0.timing == .live ? nil : $0.latest,
                           timing: $0.timing.rawValue)
        }
        deviceFenceEventsStoredOnServer = Self.matched(deviceFenceEvents, on: reportedOnServer)
        self.serverFenceEvents = serverFenceEvents
        fenceAgreement = DemoFenceAgreement(device: deviceFenceEvents, server: serverFenceEvents, recorded: fixes.map(\.timestamp))
        self.simulationSeconds = simulationSeconds
        fencesFromServer = fenceUpdates.last?.fences.count ?? 0
        self.fenceRequests = fenceRequests.requests
        fenceRequestsFailed = fenceRequests.failed
        rideStartedAutomatically = app?.timeline.lazy.compactMap {
            if case .ride(.checkpoint(let snapshot)) = $0.value { snapshot.startedAutomatically } else { nil }
        }.first ?? false
        let setOff = stride(from: 0.0, through: sim.trajectory.endTime, by: 1).first { sim.trajectory.state(at: $0).speed >= 1 }
        rideStartDistanceMeters = setOff.flatMap { t in
            fixes.first.map { Geodesy.haversineDistance(sim.trajectory.position(at: t), $0.coordinate) }
        }
    }

    /// The summary as an aligned two-column table.
    var table: String {
        var rows: [(String, String)] = [
            ("ride started", (rideStartedAutomatically ? "automatically" : "by the app")
                + (rideStartDistanceMeters.map { String(format: ", first fix %.0f m from where the rider set off", $0) } ?? "")),
            ("distance", String(format: "%.2f km", distanceMeters / 1000)),
            ("duration", DemoTimelineEntry.clock(durationSeconds) + " (moving " + DemoTimelineEntry.clock(movingSeconds) + ")"),
            ("energy vs always-best", String(format: "%.0f%% of policy A (%.0f vs %.0f units)", energyRatio * 100, energy, alwaysBestEnergy)),
            ("upload format", uploadFormat.rawValue),
            ("points recorded", "\(pointsRecorded)"),
            ("points uploaded", "\(pointsUploaded) in \(uploadBatches) batches (\(uploadFailures) failed \(uploadFailures == 1 ? "attempt" : "attempts") retried)"),
            ("points stored on server", "\(pointsStoredOnServer)" + (pointsStoredOnServer == pointsRecorded ? " (all of them)" : " (MISMATCH)")),
            ("points left on phone", "\(pointsLeftOnDevice)"),
            ("gap markers", "\(gaps), \(gapsStoredOnServer) stored on server"
                + (gapsKeptOnPhone > 0 ? ", \(gapsKeptOnPhone) kept on the phone (the \(uploadFormat.rawValue) format cannot carry them)" : "")
                + (gapsStoredOnServer + gapsKeptOnPhone == gaps ? "" : " (MISMATCH)")),
            ("fences from the server", "\(fencesFromServer) fetched by the phone (\(fenceRequests) \(fenceRequests == 1 ? "request" : "requests"), "
                + "\(fenceRequestsFailed) failed; unchanged sets answered 304)"),
            ("fence events on device", Self.list(deviceFenceEvents)),
            ("device events on server", "\(deviceFenceEventsStoredOnServer) of \(deviceFenceEvents.count) stored as reported by the phone"
                + (fenceEventsKeptOnPhone > 0 ? ", \(fenceEventsKeptOnPhone) kept on the phone (the \(uploadFormat.rawValue) format cannot carry them)" : "")
                + (deviceFenceEventsStoredOnServer + fenceEventsKeptOnPhone == deviceFenceEvents.count ? "" : " (MISMATCH)")),
        ]
        rows.append(("fence events on server", Self.list(serverFenceEvents)))
        rows.append(("phone and server agree", fenceAgreement.text))
        rows.append(("simulation time", String(format: "%.1f s", simulationSeconds)))
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }

    /// How many of `device` have a counterpart in `server` with the same fence, kind and millisecond (each
    /// counterpart counts once).
    static func matched(_ device: [DemoFenceEvent], on server: [DemoFenceEvent]) -> Int {
        func key(_ e: DemoFenceEvent) -> String { "\(e.fence)|\(e.kind)|\(Int64((e.time.timeIntervalSince1970 * 1000).rounded()))" }
        var held: [String: Int] = [:]
        for event in server { held[key(event), default: 0] += 1 }
        return device.reduce(0) { count, event in
            guard let n = held[key(event)], n > 0 else { return count }
            held[key(event)] = n - 1
            return count + 1
        }
    }

    /// What decided a phone fence event, for ``DemoFenceEvent/decidedBy``.
    static func describe(_ cause: FenceEvent.Cause) -> String {
        switch cause {
        case .fix: "fix"
        case .region: "region"
        case .regionState: "region state"
        case .elapsed: "debounce"
        }
    }

    static func list(_ events: [DemoFenceEvent]) -> String {
        events.isEmpty ? "0" : "\(events.count): " + events.map { "\($0.kind) \($0.fence)" }.joined(separator: ", ")
    }
}
