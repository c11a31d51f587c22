import Foundation
import NIOCore
import Testing
import WaymarkGeo
@testable import WaymarkServer
import WaymarkTransport

/// The native batch format from the phone's encoder to both of its decoders: the format's own
/// (WaymarkTransport, which test servers and tools use) and the server's ingest decoder.
@Suite("Native batch format: phone encoder → decoders")
struct NativeBatchRoundTripTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000.25)

    static func fixes() -> [Fix] {
        [
            Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), altitude: 295.5, horizontalAccuracy: 4.8,
                verticalAccuracy: 3, speed: 5.25, course: 91, timestamp: start, source: .gnss),
            // Unknown values are left out, and read back as unknown.
            Fix(coordinate: Coordinate(uncheckedLatitude: -33.8688, longitude: 151.2093), timestamp: start.addingTimeInterval(1.5)),
            Fix(coordinate: Coordinate(uncheckedLatitude: 89.9999, longitude: -179.9999), altitude: -12, horizontalAccuracy: 1200,
                verticalAccuracy: nil, speed: 0, course: 0, timestamp: start.addingTimeInterval(86_400 * 400 + 0.999)),
        ]
    }

    static let gaps = [NativeBatchFormat.Gap(rideID: "ride-ü-1", start: start.addingTimeInterval(2), end: start.addingTimeInterval(300),
                                             reason: "terminated")]

    /// The format writes times to the millisecond.
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    @Test("the format's decoder gives back every value the encoder wrote, times to the millisecond")
    func sharedDecoder() throws {
        let body = NativeBatchFormat(deviceID: "phone-7").body(for: Self.fixes(), gaps: Self.gaps)
        let decoded = try NativeBatchFormat.decode(body)
        #expect(decoded.deviceID == "phone-7")
        #expect(decoded.gaps == Self.gaps)
        #expect(decoded.fixes.count == 3)
        for (read, written) in zip(decoded.fixes, Self.fixes()) {
            #expect(read.coordinate == written.coordinate)
            #expect(Self.millis(read.timestamp) == Self.millis(written.timestamp))
            #expect(read.altitude == written.altitude && read.speed == written.speed && read.course == written.course)
            #expect(read.horizontalAccuracy == written.horizontalAccuracy && read.verticalAccuracy == written.verticalAccuracy)
        }
        // Encoding what was decoded gives the same bytes (the source is not part of the format).
        #expect(NativeBatchFormat(deviceID: "phone-7").body(for: decoded.fixes, gaps: decoded.gaps) == body)
    }

    @Test("the server's ingest decoder reads the same fixes and gap markers from the phone's bytes")
    func serverDecoder() throws {
        let body = NativeBatchFormat(deviceID: "phone-7").body(for: Self.fixes(), gaps: Self.gaps)
        let shared = try NativeBatchFormat.decode(body)
        let server = try OverlandDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body)))
        let points = server.candidates.filter { $0.gap == nil }
        let gaps = server.candidates.compactMap(\.gap)
        #expect(points.count == shared.fixes.count)
        for (candidate, fix) in zip(points, shared.fixes) {
            #expect(candidate.latitude == fix.coordinate.latitude && candidate.longitude == fix.coordinate.longitude)
            #expect(candidate.timestamp.map(Self.millis) == Self.millis(fix.timestamp))
            #expect(candidate.altitude == fix.altitude && candidate.speed == fix.speed && candidate.course == fix.course)
            #expect(candidate.horizontalAccuracy == fix.horizontalAccuracy)
            #expect(candidate.verticalAccuracy == fix.verticalAccuracy)
        }
        #expect(gaps.count == 1)
        #expect(gaps.first?.rideID == "ride-ü-1" && gaps.first?.reason == "terminated")
        #expect(gaps.first?.start == Self.gaps[0].start && gaps.first?.end == Self.gaps[0].end)
    }

    @Test("a golden request: the bytes the phone sends for a fixed batch never change unnoticed")
    func goldenRequest() throws {
        let fix = Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), altitude: 295.5, horizontalAccuracy: 4.8,
                      verticalAccuracy: 3, speed: 5.25, course: 91, timestamp: Self.start, source: .gnss)
        let gap = NativeBatchFormat.Gap(rideID: "r1", start: Self.start, end: Self.start.addingTimeInterval(60), reason: "signalLost")
        let body = String(decoding: NativeBatchFormat(deviceID: "p").body(for: [fix], gaps: [gap]), as: UTF8.self)
        let golden = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05,295.5]},"#
            + #""properties":{"timestamp":"2025-06-15T15:06:40.250Z","horizontal_accuracy":4.8,"vertical_accuracy":3,"#
            + #""speed":5.25,"course":91,"altitude":295.5,"device_id":"p"}},"#
            + #"{"type":"Feature","geometry":null,"properties":{"waymark_kind":"gap","ride_id":"r1","#
            + #""start":"2025-06-15T15:06:40.250Z","end":"2025-06-15T15:07:40.250Z","reason":"signalLost","device_id":"p"}}]}"#
        #expect(body == golden)
    }

    @Test("a body the format did not write is refused with the feature and field named",
          arguments: [
            (#"{"points":[]}"#, "no \"locations\" array"),
            (#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5]},"properties":{}}]}"#, "feature 0: geometry"),
            (#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46]},"properties":{"timestamp":"yesterday"}}]}"#, "feature 0: timestamp"),
            (#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,95]},"properties":{"timestamp":"2025-06-15T15:06:40Z"}}]}"#, "feature 0: latitude"),
            (#"{"locations":[{"type":"Feature","geometry":null,"properties":{"waymark_kind":"gap","start":"2025-06-15T15:06:40Z"}}]}"#, "gap marker 0: ride_id"),
          ])
    func refusals(body: String, expected: String) {
        #expect { try NativeBatchFormat.decode(Array(body.utf8)) } throws: { error in
            guard let error = error as? TransportError, error.code == .format else { return false }
            return error.message.contains(expected)
        }
    }

    @Test("a boolean where a number belongs is not read as 1; a number 0 is read as 0")
    func booleansAreNotNumbers() throws {
        let body = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46]},"#
            + #""properties":{"timestamp":"2025-06-15T15:06:40Z","speed":true,"course":0}}]}"#
        let fix = try #require(try NativeBatchFormat.decode(Array(body.utf8)).fixes.first)
        #expect(fix.speed == nil)
        #expect(fix.course == 0)
    }
}
