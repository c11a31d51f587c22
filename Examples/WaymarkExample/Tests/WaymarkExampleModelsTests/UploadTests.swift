import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkExampleModels
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The upload seam: the body `waymark serve` reads, the request, the answers, and the buffer's
/// rule that a record leaves the phone only once acknowledged.
@Suite("Uploads")
struct UploadTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_254_400.25)
    static func fix(_ second: Double) -> Fix {
        Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), altitude: 300, horizontalAccuracy: 5,
            verticalAccuracy: -1, speed: 4.5, course: nil, timestamp: t0.addingTimeInterval(second), source: .gnss)
    }

    @Test("the body is the native batch: fixes as Points, then gap markers without geometry")
    func body() {
        let gap = GapMarker(start: Self.t0, end: Self.t0.addingTimeInterval(60), reason: .signalLost)
        let batch = RideUploadBatch(records: [.gap(gap, rideID: "r\"1"), .fix(Self.fix(0), rideID: "r\"1")])
        let text = String(decoding: batch.body, as: UTF8.self)
        #expect(text == """
        {"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05,300]},\
        "properties":{"timestamp":"2026-01-01T08:00:00.250Z","horizontal_accuracy":5,"speed":4.5,"altitude":300}},\
        {"type":"Feature","geometry":null,"properties":{"waymark_kind":"gap","ride_id":"r\\"1",\
        "start":"2026-01-01T08:00:00.250Z","end":"2026-01-01T08:01:00.250Z","reason":"signalLost"}}]}
        """)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil)
    }

    @Test("the request: POST /api/ingest with the bearer token, the idempotency key and JSON")
    func request() throws {
        let settings = try #require(ServerSettings(url: " http://192.168.1.20:8080 ", token: "wmd_abc\n"))
        let batch = RideUploadBatch(records: [.fix(Self.fix(0), rideID: "r1"), .fix(Self.fix(1), rideID: "r1")])
        let request = URLSessionRideUploader(settings: settings).request(for: batch)
        #expect(request.url?.absoluteString == "http://192.168.1.20:8080/api/ingest")
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer wmd_abc")
        #expect(request.value(forHTTPHeaderField: "Idempotency-Key") == batch.idempotencyKey)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.httpBody == Data(batch.body))
        #expect(ServerSettings(url: "ftp://host", token: "t") == nil)
        #expect(ServerSettings(url: "http://host", token: " ") == nil)
    }

    @Test("the server's answers", arguments: [
        (200, #"{"result":"ok","stored":2,"rejected":[]}"#, RideUploadOutcome.accepted(rejected: 0)),
        (200, #"{"result":"ok","stored":1,"rejected_count":1}"#, .accepted(rejected: 1)),
        (413, "", .tooLarge),
        (422, #"{"error":{"code":"noValidPoint","message":"no valid point"}}"#, .refused(status: 422, message: "no valid point")),
        (401, "", .failed("The server refused the device token (401); check it in Settings")),
        (503, "", .failed("The server answered 503; will try again")),
    ])
    func outcomes(status: Int, body: String, expected: RideUploadOutcome) {
        #expect(URLSessionRideUploader.outcome(status: status, body: Data(body.utf8)) == expected)
    }

    static func take(_ buffer: inout UploadBuffer) -> RideUploadBatch? { buffer.nextBatch() }

    @Test("a record leaves the buffer only when acknowledged; a failed batch comes back whole with its key")
    func buffer() throws {
        var buffer = UploadBuffer(batchSize: 3)
        for second in 0..<5 { buffer.append(.fix(Self.fix(Double(second)), rideID: "r1")) }
        let first = try #require(Self.take(&buffer))
        #expect(first.records.count == 3)
        #expect(Self.take(&buffer) == nil, "one batch at a time")
        buffer.append(.fix(Self.fix(5), rideID: "r1"))
        buffer.finish(first, with: .failed("offline"))
        #expect(buffer.pending.count == 6)
        #expect(buffer.lastProblem == "offline")
        let again = try #require(Self.take(&buffer))
        #expect(again == first)
        buffer.finish(again, with: .accepted(rejected: 0))
        #expect(buffer.pending.count == 3)
        #expect(buffer.acknowledgedFixes == 3)
        #expect(buffer.lastProblem == nil)
        let tooBig = try #require(Self.take(&buffer))
        buffer.finish(tooBig, with: .tooLarge)
        #expect(buffer.batchSize == 1)
        let refused = try #require(Self.take(&buffer))
        buffer.finish(refused, with: .refused(status: 422, message: "no valid point"))
        #expect(buffer.pending.count == 2)
        #expect(buffer.rejected == 1)
    }
}
