import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("GeofenceMonitor decisions")
struct GeofencingMonitorTests {
    static let origin = Coordinate(uncheckedLatitude: 46.05, longitude: 14.50)
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func east(_ m: Double) -> Coordinate { Geodesy.destination(from: origin, bearing: 90, distance: m) }
    static func fix(_ eastMeters: Double, at t: Double, accuracy: Double = 5) -> Fix {
        Fix(coordinate: east(eastMeters), horizontalAccuracy: accuracy, timestamp: t0.addingTimeInterval(t), source: .gnss)
    }
    /// A circle of radius 200 m whose boundary is 1000 m east of the origin (centre 1200 m east).
    static let shop = Fence(id: "shop", shape: .circle(center: east(1200), radiusMeters: 200), triggers: .all, loiteringDelay: 120)

    /// Feeds fixes at the given east offsets, one per second from `start`, and returns the events.
    static func walk(_ monitor: inout GeofenceMonitor, _ offsets: [Double], from start: Double = 0) -> [FenceEvent] {
        var events: [FenceEvent] = []
        for (i, x) in offsets.enumerated() {
            let t = start + Double(i)
            let out = monitor.handle(.locations([fix(x, at: t)]), at: t0.addingTimeInterval(t))
            for case .event(let e) in out.updates { events.append(e) }
        }
        return events
    }

    static func monitor(_ fences: [Fence] = [shop], _ configuration: GeofenceMonitor.Configuration = .init()) throws -> GeofenceMonitor {
        var m = GeofenceMonitor(configuration: configuration)
        _ = try m.add(fences, at: t0)
        return m
    }

    @Test("enter once the fix is 20 m inside, exit once 20 m beyond; nothing in between")
    func hysteresis() throws {
        var m = try Self.monitor()
        #expect(Self.walk(&m, [900, 995, 1005, 1015, 1008]).isEmpty)   // undecided band: no event
        let enter = Self.walk(&m, [1021], from: 5)
        #expect(enter.map(\.kind) == [.enter])
        #expect(Self.walk(&m, [995, 1003, 985, 990], from: 6).isEmpty)   // back out by under 20 m: still inside
        #expect(m.presence(of: "shop") == .inside)
        let exit = Self.walk(&m, [979], from: 10)
        #expect(exit.map(\.kind) == [.exit])
        #expect(exit.first?.sequence == 2)
        if case .fix(let f)? = exit.first?.cause { #expect(f.coordinate == Self.east(979)) } else { Issue.record("no fix cause") }
    }

    @Test("a fence the device is inside when it is added gives no enter; the option reports it")
    func initialState() throws {
        var silent = try Self.monitor()
        #expect(Self.walk(&silent, [1200, 1201]).isEmpty)
        #expect(silent.presence(of: "shop") == .inside)
        var reporting = try Self.monitor([Self.shop], .init(reportsInitialState: true))
        #expect(Self.walk(&reporting, [1200]).map(\.kind) == [.enter])
    }

    @Test("a re-entry within the debounce window is held back, and released if the device stays")
    func debounce() throws {
        var m = try Self.monitor()
        _ = Self.walk(&m, [900, 1100])                             // enter at t=1
        #expect(Self.walk(&m, [900], from: 2).map(\.kind) == [.exit])   // exit at t=2
        #expect(Self.walk(&m, [1100], from: 20).isEmpty)           // back 18 s later: held back
        #expect(Self.walk(&m, [900], from: 30).isEmpty)            // and its exit too
        #expect(Self.walk(&m, [1100], from: 40).isEmpty)           // back again, stays...
        let released = Self.walk(&m, [1100], from: 63)              // the window (60 s after t=2) ends inside
        #expect(released.map(\.kind) == [.enter])
    }

    @Test("dwell fires after the loitering delay inside, from a fix or from the deadline")
    func dwell() throws {
        var m = try Self.monitor()
        _ = Self.walk(&m, [900, 1100])                             // entered at t=1
        #expect(m.nextDeadline == Self.t0.addingTimeInterval(121))
        #expect(m.deadlineReached(at: Self.t0.addingTimeInterval(100)).updates.isEmpty)
        let out = m.deadlineReached(at: Self.t0.addingTimeInterval(121))
        #expect(out.updates.contains { if case .event(let e) = $0 { e.kind == .dwell } else { false } })
        #expect(m.nextDeadline == nil)
    }

    @Test("a polygon is decided by the polygon, not its enclosing circle")
    func polygon() throws {
        // An L: the square's north-east quarter is cut away, but the enclosing circle covers it.
        let map = LocalProjection(origin: Self.east(2000))
        let ring = [(0.0, 0.0), (400, 0), (400, 200), (200, 200), (200, 400), (0, 400)].map { map.coordinate(east: $0.0, north: $0.1) }
        let l = Fence(id: "L", shape: .polygon(exterior: ring, holes: []))
        var m = try Self.monitor([l])
        let cutAway = Fix(coordinate: map.coordinate(east: 320, north: 320), horizontalAccuracy: 5, timestamp: Self.t0, source: .gnss)
        var out = m.handle(.locations([cutAway]), at: Self.t0)
        #expect(m.presence(of: "L") == .outside)
        let insideArm = Fix(coordinate: map.coordinate(east: 100, north: 300), horizontalAccuracy: 5,
                            timestamp: Self.t0.addingTimeInterval(60), source: .gnss)
        out = m.handle(.locations([insideArm]), at: Self.t0.addingTimeInterval(60))
        #expect(out.updates.contains { if case .event(let e) = $0 { e.kind == .enter } else { false } })
    }

    @Test("without fresh fixes an OS region event decides; with them it is ignored")
    func regionEvents() throws {
        var m = try Self.monitor()
        _ = Self.walk(&m, [0])
        let region = m.configuration.regionIdentifier(forFence: "shop")
        #expect(m.monitoredRegions[region] != nil)
        var out = m.handle(.regionEntered(identifier: region), at: Self.t0.addingTimeInterval(5))
        #expect(!out.updates.contains { if case .event = $0 { true } else { false } })   // fresh fix says outside
        out = m.handle(.regionEntered(identifier: region), at: Self.t0.addingTimeInterval(600))
        let enter = out.updates.compactMap { if case .event(let e) = $0 { e } else { nil } }
        #expect(enter.map(\.kind) == [.enter])
        #expect(enter.first?.cause == .region(identifier: region, entered: true))
    }

    @Test("the stored state survives encoding: a restored monitor neither repeats nor loses events")
    func persistence() throws {
        var m = try Self.monitor()
        #expect(Self.walk(&m, [0, 1100]).map(\.kind) == [.enter])
        let data = try JSONEncoder().encode(m.persistentState)
        let state = try JSONDecoder().decode(GeofenceMonitor.PersistentState.self, from: data)
        var restored = GeofenceMonitor(restoring: state, osMonitoredRegions: Set(state.regions.keys).union(["host.x", "waymark.fence.gone"]))
        #expect(restored.presence(of: "shop") == .inside)
        let first = restored.handle(.locations([Self.fix(1100, at: 10)]), at: Self.t0.addingTimeInterval(10))
        #expect(!first.updates.contains { if case .event = $0 { true } else { false } })
        #expect(first.commands.contains(.stopMonitoring(identifier: "waymark.fence.gone")))   // a Waymark orphan
        #expect(!first.commands.contains(.stopMonitoring(identifier: "host.x")))              // never the host's
        let out = restored.handle(.locations([Self.fix(0, at: 20)]), at: Self.t0.addingTimeInterval(20))
        let exit = out.updates.compactMap { if case .event(let e) = $0 { e } else { nil } }
        #expect(exit.map(\.kind) == [.exit])
        #expect(exit.first?.sequence == 2)
    }

    @Test("selection keeps the nearest fences in the budget plus a refresh fence")
    func selection() throws {
        let fences = (0..<50).map { Fence(id: "f\($0)", shape: .circle(center: Self.east(Double($0) * 500 + 1000), radiusMeters: 100)) }
        var m = try Self.monitor(fences, .init(hostRegionCount: 7))
        let out = m.handle(.locations([Self.fix(0, at: 0)]), at: Self.t0)
        let started = out.commands.compactMap { if case .startMonitoring(let r) = $0 { r } else { nil } }
        #expect(started.count == 13)
        #expect(started.first?.identifier == "waymark.refresh")
        #expect(Set(started.dropFirst().map(\.identifier)) == Set((0..<12).map { "waymark.fence.f\($0)" }))
        // The refresh fence reaches to the first fence left out (boundary 6900 m away), clamped to 5 km.
        #expect(started.first?.radiusMeters == 5000)
        #expect(m.demands.contains(.significantChanges))
    }
}
