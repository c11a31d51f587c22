import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo

/// `LocationRequests` as a pure state machine: each rule on both sides of its threshold.
@Suite("LocationRequests: one fix on demand, streams")
struct LocationRequestsTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_254_400)
    static func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }
    static func fix(_ s: Double, accuracy: Double, east: Double = 0) -> Fix {
        Fix(coordinate: Geodesy.destination(from: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), bearing: 90, distance: east),
            horizontalAccuracy: accuracy, timestamp: at(s), source: .gnss)
    }
    static let authorized = DeviceEvent.authorizationChanged(LocationAuthorization(status: .authorizedWhenInUse))

    static func answers(_ out: LocationRequests.Output) -> [Int: Result<Fix, LocationRequestError>] {
        Dictionary(out.updates.compactMap { if case .completed(let id, let r) = $0 { (id, r) } else { nil } }, uniquingKeysWith: { a, _ in a })
    }

    @Test("accuracy: a fix at the threshold answers, one just over it does not")
    func accuracyThreshold() throws {
        var r = LocationRequests()
        _ = r.handle(Self.authorized, at: Self.at(0))
        _ = r.request(id: 1, accuracy: .best, maximumAge: 0, timeout: 10, at: Self.at(0))
        #expect(r.demand == .standard(StandardDemand(accuracy: .best)))
        #expect(Self.answers(r.handle(.locations([Self.fix(1, accuracy: 20.5)]), at: Self.at(1))).isEmpty)
        let out = r.handle(.locations([Self.fix(2, accuracy: 20)]), at: Self.at(2))
        #expect(try Self.answers(out)[1]?.get().horizontalAccuracy == 20)
        #expect(r.demand == LocationDemand.none)
    }

    @Test("maximum age: a cached fix that old answers at once, an older one does not")
    func maximumAge() throws {
        var r = LocationRequests()
        _ = r.handle(Self.authorized, at: Self.at(0))
        _ = r.handle(.locations([Self.fix(0, accuracy: 8)]), at: Self.at(0))
        #expect(try Self.answers(r.request(id: 1, accuracy: .best, maximumAge: 60, timeout: 10, at: Self.at(60)))[1]?.get().timestamp == Self.at(0))
        #expect(Self.answers(r.request(id: 2, accuracy: .best, maximumAge: 59.9, timeout: 10, at: Self.at(60))).isEmpty)
        #expect(r.isActive)
    }

    @Test("timeout: the most accurate fresh fix seen, else a timeout error; a stale fix never answers")
    func timeout() throws {
        var r = LocationRequests()
        _ = r.handle(Self.authorized, at: Self.at(0))
        _ = r.request(id: 1, accuracy: .best, maximumAge: 0, timeout: 10, at: Self.at(0))
        _ = r.request(id: 2, accuracy: .best, maximumAge: 0, timeout: 10, at: Self.at(5))
        _ = r.handle(.locations([Self.fix(1, accuracy: 65), Self.fix(2, accuracy: 40), Self.fix(3, accuracy: 90)]), at: Self.at(3))
        #expect(r.nextDeadline == Self.at(10))
        #expect(Self.answers(r.deadlineReached(at: Self.at(9.9))).isEmpty)
        let first = Self.answers(r.deadlineReached(at: Self.at(10)))
        #expect(try first[1]?.get().horizontalAccuracy == 40)
        let second = Self.answers(r.deadlineReached(at: Self.at(15)))
        guard case .failure(let error)? = second[2] else { Issue.record("\(second)"); return }
        #expect(error.reason == .timedOut)
    }

    @Test("authorization: refused at once when denied or not asked; waits while not heard; pending requests fail on a denial")
    func authorization() {
        var r = LocationRequests()
        _ = r.request(id: 1, accuracy: .best, maximumAge: 0, timeout: 10, at: Self.at(0))   // not heard yet: waits
        let denied = Self.answers(r.handle(.authorizationChanged(LocationAuthorization(status: .denied)), at: Self.at(1)))
        guard case .failure(let error)? = denied[1] else { Issue.record("\(denied)"); return }
        #expect(error.reason == .notAuthorized)
        guard case .failure? = Self.answers(r.request(id: 2, accuracy: .best, maximumAge: 0, timeout: 10, at: Self.at(2)))[2] else {
            Issue.record("a request while denied is refused at once"); return
        }
        #expect(r.demand == LocationDemand.none)
    }

    @Test("streams: the distance filter on both sides, the finest accuracy wins, closing drops the demand")
    func streams() {
        var r = LocationRequests()
        _ = r.handle(Self.authorized, at: Self.at(0))
        _ = r.openStream(id: 7, accuracy: .hundredMeters, distanceFilterMeters: 50)
        _ = r.openStream(id: 8, accuracy: .nearestTenMeters, distanceFilterMeters: nil)
        #expect(r.demand == .standard(StandardDemand(accuracy: .nearestTenMeters, distanceFilterMeters: 50)))
        func delivered(_ out: LocationRequests.Output, to id: Int) -> Int {
            out.updates.filter { if case .fix(let s, _) = $0 { s == id } else { false } }.count
        }
        #expect(delivered(r.handle(.locations([Self.fix(1, accuracy: 5, east: 0)]), at: Self.at(1)), to: 7) == 1)
        #expect(delivered(r.handle(.locations([Self.fix(2, accuracy: 5, east: 49)]), at: Self.at(2)), to: 7) == 0)
        let out = r.handle(.locations([Self.fix(3, accuracy: 5, east: 50.5)]), at: Self.at(3))
        #expect(delivered(out, to: 7) == 1 && delivered(out, to: 8) == 1)
        r.closeStream(id: 7)
        r.closeStream(id: 8)
        #expect(r.demand == LocationDemand.none)
    }
}
