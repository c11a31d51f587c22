import Foundation
import Testing
import WaymarkServer
import WaymarkEngine
import WaymarkSimulator
@testable import WaymarkCLI
import ArgumentParser

@Suite("waymark demo")
struct DemoTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("end to end: the server stores exactly the points the phone recorded, and both see the same fence events",
          arguments: [UInt64(1), 2, 3])
    func endToEnd(seed: UInt64) async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        var lines: [DemoTimelineEntry] = []
        var shares: [Double] = []
        let result = try await DemoRun(seed: seed, startTime: Self.start).run(server: server, progress: { shares.append($0) },
                                                                              line: { lines.append($0) })
        let summary = result.summary
        // Every recorded point reached the server once, counted on the server itself.
        #expect(summary.pointsRecorded > 300)
        #expect(try await server.storedPointCount() == summary.pointsRecorded)
        #expect(summary.pointsStoredOnServer == summary.pointsRecorded)
        #expect(summary.pointsUploaded == summary.pointsRecorded)
        #expect(summary.pointsLeftOnDevice == 0)
        // The server decided fence events from the uploads; they are the ones it stored.
        let stored = try await server.fenceEvents(after: 0).map { DemoFenceEvent(fence: $0.event.fenceID, kind: $0.event.kind.rawValue,
                                                                                 time: $0.event.timestamp) }
        #expect(stored == summary.serverFenceEvents)
        // Same fences, same kinds, same order on both sides; every fence entered and left.
        let device = summary.deviceFenceEvents.map { "\($0.kind) \($0.fence)" }
        let onServer = summary.serverFenceEvents.map { "\($0.kind) \($0.fence)" }
        #expect(device == onServer)
        for fence in 1...5 {
            #expect(device.contains("enter fence-\(fence)") && device.contains("exit fence-\(fence)"))
        }
        // Times within the documented bounds (DemoFenceAgreement), checked pair by pair here too.
        #expect(summary.fenceAgreement.agree, "\(summary.fenceAgreement.problems)")
        for (d, s) in zip(summary.deviceFenceEvents, summary.serverFenceEvents) {
            if let latest = d.latest, d.timing != "live" {
                // A late event (iOS's region event, or caught up after a gap): the server's time lies in its window.
                #expect(s.time >= (d.earliest ?? s.time).addingTimeInterval(-DemoFenceAgreement.fixToleranceSeconds), "\(d) vs \(s)")
                #expect(s.time <= latest.addingTimeInterval(DemoFenceAgreement.fixToleranceSeconds), "\(d) vs \(s)")
            } else {
                #expect(abs(d.time.timeIntervalSince(s.time)) <= DemoFenceAgreement.debounceToleranceSeconds, "\(d) vs \(s)")
            }
        }
        #expect(result.timeline.contains { $0.kind == .fence && $0.text.hasPrefix("server: enter") })
        #expect(result.timeline.contains { $0.kind == .fence && $0.text.hasPrefix("device: enter") })
        // While offline the queue holds its batches (the reachability change told it), and it sends them
        // as the phone comes back online.
        let offline = try DemoRide.bundled(startTime: Self.start).offline
        let back = try #require(offline.to)
        let uploads = result.timeline.filter { $0.kind == .upload }
        #expect(!uploads.contains { $0.t > offline.from && $0.t < back }, "\(uploads)")
        #expect(uploads.contains { $0.t >= back && $0.t <= back + DemoRun.step && $0.text.contains("acknowledged") }, "\(uploads)")
        #expect(summary.uploadFailures == 0)
        #expect(result.timeline.contains { $0.kind == .network && $0.text.contains("offline") })
        // The kill and the background relaunch are on the timeline, with an app-terminated gap.
        #expect(result.timeline.contains { $0.kind == .app && $0.text.contains("killed") })
        #expect(result.timeline.contains { $0.kind == .app && $0.text.contains("relaunched") })
        #expect(result.timeline.contains { $0.kind == .gap && $0.text.contains("app was terminated") })
        // The phone wrote one field log beside its store: the launches with their cause, the automatic
        // start, every fence event the device decided and every upload the queue acted on (issue #32 item 3).
        let log = result.fieldLog
        defer { try? FileManager.default.removeItem(atPath: log.export) }
        #expect(log.folder == server.folder.appendingPathComponent("WaymarkLog").path)
        #expect(!log.files.isEmpty && log.entries > 0 && log.bytes > 0)
        let exported = try String(contentsOfFile: log.export, encoding: .utf8).split(separator: "\n")
        let entries = exported.compactMap { FieldLogEntry(line: $0) }
        #expect(entries.count == log.entries, "the export holds every entry kept")
        #expect(entries.contains { $0.category == .launch && $0.message == "launched by the user (cause: opened by the user)" })
        #expect(entries.contains { $0.category == .launch && $0.message.hasPrefix("launched in the background") })
        #expect(entries.contains { $0.category == .ride && $0.message.contains("started automatically") })
        #expect(entries.filter { $0.category == .geofence && $0.message.hasPrefix("fence '") }.count == summary.deviceFenceEvents.count)
        #expect(entries.filter { $0.category == .upload && $0.message.hasPrefix("upload accepted") }.count == summary.uploadBatches)
        #expect(entries.contains { $0.category == .upload && $0.message.hasPrefix("upload failed (connection failed: offline)") }
                == (summary.uploadAttempts > summary.uploadBatches))
        // The default policy spends well under always-best accuracy; the ride is the 15 km loop.
        #expect(summary.energyRatio > 0 && summary.energyRatio < 0.9)
        #expect(summary.distanceMeters > 12_000 && summary.distanceMeters < 20_000)
        // Lines were streamed as they happened, in time order, with progress up to the end.
        #expect(lines == result.timeline)
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0.t <= $1.t + DemoRun.step })
        #expect(shares.last == 1)
    }

    @Test("--upload-format: the server stores every recorded point in each format; gap markers and the phone's events stay on the phone",
          arguments: [DemoUploadFormat.owntracks, .traccar, .overland])
    func uploadFormats(format: DemoUploadFormat) async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        let result = try await DemoRun(seed: 1, startTime: Self.start, uploadFormat: format).run(server: server)
        let summary = result.summary
        #expect(summary.uploadFormat == format)
        #expect(summary.pointsRecorded > 300)
        #expect(try await server.storedPointCount() == summary.pointsRecorded)
        #expect(summary.pointsStoredOnServer == summary.pointsRecorded)
        #expect(summary.pointsLeftOnDevice == 0)
        #expect(summary.uploadFailures == 0)
        // What the format cannot carry is kept on the phone and counted, never lost without a word.
        #expect(summary.gaps > 0 && summary.gapsKeptOnPhone == summary.gaps && summary.gapsStoredOnServer == 0)
        #expect(!summary.deviceFenceEvents.isEmpty && summary.fenceEventsKeptOnPhone == summary.deviceFenceEvents.count)
        #expect(summary.deviceFenceEventsStoredOnServer == 0)
        #expect(!summary.table.contains("MISMATCH"), "\(summary.table)")
        // The server decides fence events from the points in any format.
        #expect(summary.serverFenceEvents.map { "\($0.kind) \($0.fence)" } == summary.deviceFenceEvents.map { "\($0.kind) \($0.fence)" })
        if format != .overland {
            #expect(summary.uploadBatches == summary.pointsRecorded, "one point per request")
        }
    }

    @Test("--upload-format refuses an unknown format, naming the ones it knows")
    func unknownUploadFormat() throws {
        #expect(throws: (any Error).self) { try DemoCommand.parse(["--upload-format", "gpx"]) }
        let command = try DemoCommand.parse(["--upload-format", "traccar"])
        #expect(command.uploadFormat == "traccar")
    }

    @Test("timeline: the tunnel is a signal-lost gap, not a pause; the stops are named; fixes are summarized")
    func timeline() async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        let result = try await DemoRun(seed: 1, startTime: Self.start).run(server: server)
        defer { try? FileManager.default.removeItem(atPath: result.fieldLog.export) }
        let timeline = result.timeline
        let lost = try #require(timeline.firstIndex { $0.kind == .gnss && $0.text.contains("tunnel") })
        let gap = try #require(timeline[lost...].firstIndex { $0.kind == .gap })
        #expect(timeline[gap].text.contains("signal lost"))
        #expect(!timeline[lost..<gap].contains { $0.kind == .ride && $0.text.hasPrefix("auto-paused") })
        #expect(timeline.contains { $0.kind == .ride && $0.text.contains("stopped at traffic lights") })
        #expect(timeline.contains { $0.kind == .ride && $0.text.contains("long stop") })
        // The fix lines account for every recorded fix, once.
        let counted = timeline.filter { $0.kind == .fixes }.compactMap { Int($0.text.split(separator: " ")[1]) }.reduce(0, +)
        #expect(counted == result.summary.pointsRecorded)
        #expect(timeline.filter { $0.kind == .fixes }.count < result.summary.pointsRecorded / 20)
        // Four prompts, one at a time: each is answered before the next is shown.
        let prompts = timeline.filter { $0.kind == .prompt }.map(\.text)
        #expect(prompts.filter { $0.hasSuffix("prompt shown") }.count == 4)
        #expect(!prompts.contains { $0.contains("collision") })
        for (shown, answered) in zip(prompts.filter { $0.hasSuffix("shown") }, prompts.filter { $0.contains("user taps") }) {
            #expect(answered.hasPrefix(shown.replacingOccurrences(of: " shown", with: "")))
        }
    }

    @Test("--no-serve --json writes one JSON document with every summary figure and exits")
    func jsonOutput() async throws {
        let command = try DemoCommand.parse(["--no-serve", "--json", "--port", "0", "--seed", "2"])
        var written: [String] = []
        let (demo, server) = try await command.perform(write: { written.append($0) })
        server.stop()
        try? FileManager.default.removeItem(atPath: demo.fieldLog.export)
        #expect(written.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any])
        for key in ["distanceMeters", "durationSeconds", "movingSeconds", "energy", "alwaysBestEnergy", "energyRatio",
                    "pointsRecorded", "pointsUploaded", "pointsStoredOnServer", "pointsLeftOnDevice", "uploadAttempts",
                    "uploadBatches", "uploadFailures", "gaps", "deviceFenceEvents", "serverFenceEvents", "fenceAgreement",
                    "simulationSeconds", "rideStartedAutomatically", "rideStartDistanceMeters", "deviceFenceEventsStoredOnServer",
                    "fencesFromServer", "fenceRequests", "fenceRequestsFailed"] {
            #expect(summary[key] != nil, "missing \(key)")
        }
        #expect((summary["fenceAgreement"] as? [String: Any])?["agree"] as? Bool == true)
        #expect(summary["pointsStoredOnServer"] as? Int == summary["pointsRecorded"] as? Int)
        // No start call: automatic tracking started the ride near where the rider set off (issue #31).
        #expect(summary["rideStartedAutomatically"] as? Bool == true)
        #expect((summary["rideStartDistanceMeters"] as? Double).map { $0 <= 150 } == true, "\(summary["rideStartDistanceMeters"] ?? "none")")
        // The app installs no fence: the phone fetched the five the operator loaded (issue #31 item 3).
        #expect(summary["fencesFromServer"] as? Int == 5)
        #expect((summary["fenceRequests"] as? Int).map { $0 >= 1 } == true)
        #expect((summary["deviceFenceEvents"] as? [Any])?.count == summary["deviceFenceEventsStoredOnServer"] as? Int)
        #expect((summary["deviceFenceEvents"] as? [Any])?.isEmpty == false)
        let timeline = try #require(object["timeline"] as? [[String: Any]])
        #expect(timeline.contains { ($0["text"] as? String)?.hasPrefix("5 fences fetched from the server") == true })
        #expect(((object["timeline"] as? [Any])?.count ?? 0) > 50)
    }

    @Test("the fence comparison reports a missing event, a different order and a time beyond the bound")
    func agreementDetectsDifferences() {
        let t0 = Self.start
        func event(_ kind: String, _ fence: String, _ seconds: Double, _ cause: String? = "fix") -> DemoFenceEvent {
            DemoFenceEvent(fence: fence, kind: kind, time: t0.addingTimeInterval(seconds), decidedBy: cause)
        }
        let device = [event("enter", "a", 100), event("exit", "a", 200)]
        let recorded = stride(from: 0.0, through: 300, by: 1).map { t0.addingTimeInterval($0) }
        #expect(DemoFenceAgreement(device: device, server: [event("enter", "a", 95, nil), event("exit", "a", 190, nil)],
                                   recorded: recorded).agree)
        #expect(!DemoFenceAgreement(device: device, server: [event("enter", "a", 95, nil)], recorded: recorded).agree)
        #expect(!DemoFenceAgreement(device: device, server: [event("exit", "a", 95, nil), event("enter", "a", 190, nil)],
                                    recorded: recorded).agree)
        #expect(!DemoFenceAgreement(device: device, server: [event("enter", "a", 20, nil), event("exit", "a", 200, nil)],
                                    recorded: recorded).agree)
        // A region event inside a span without points may be as far from the server's time as the span is long.
        let holed = recorded.filter { $0 < t0.addingTimeInterval(50) || $0 > t0.addingTimeInterval(250) }
        let region = [event("enter", "a", 120, "region"), event("exit", "a", 260)]
        #expect(DemoFenceAgreement(device: region, server: [event("enter", "a", 251, nil), event("exit", "a", 255, nil)],
                                   recorded: holed).agree)
        #expect(!DemoFenceAgreement(device: region, server: [event("enter", "a", 251, nil), event("exit", "a", 255, nil)],
                                    recorded: recorded).agree)
    }

    @Test("the summary table names every figure")
    func summaryTable() async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        let result = try await DemoRun(seed: 2, startTime: Self.start).run(server: server)
        defer { try? FileManager.default.removeItem(atPath: result.fieldLog.export) }
        let table = result.summary.table
        for label in ["ride started", "distance", "duration", "energy vs always-best", "points recorded", "points uploaded",
                      "points stored on server", "fence events on device", "fence events on server",
                      "phone and server agree"] {
            #expect(table.contains(label))
        }
        #expect(table.contains("(all of them)"))
        #expect(result.summary.gaps > 0 && result.summary.gapsStoredOnServer == result.summary.gaps,
                "every gap marker the ride recorded reaches the server")
    }

    @Test("options parse; a bad port is a usage error")
    func options() throws {
        let demo = try DemoCommand.parse(["--no-serve", "--port", "9999", "--seed", "3", "--json"])
        #expect(demo.noServe && demo.port == 9999 && demo.seed == 3 && demo.json)
        #expect(try DemoCommand.parse([]).port == 8080)
        #expect(throws: (any Error).self) { try DemoCommand.parse(["--port", "-1"]) }
    }

    @Test("a busy preferred port falls back to a free one")
    func portFallback() async throws {
        let first = try await DemoServer.start(port: 0)
        defer { first.stop() }
        let second = try await DemoServer.start(port: first.port)
        defer { second.stop() }
        #expect(second.port != first.port && second.port > 0)
    }
}
