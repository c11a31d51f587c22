import Foundation
import Testing
@testable import WaymarkEngine
import WaymarkGeo

/// The ride tracker's duty cycle on its own (#16): steady fixes earn a rest, a held prediction
/// lengthens the next one, a missed one starts over.
@Suite("GNSS duty cycle: rests on steady stretches, longer while predictions hold")
struct GNSSDutyCycleTests {
    static let start = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// A fix `seconds` in, `metres` east of the start, heading east at `speed`.
    static func fix(_ seconds: Double, speed: Double = 5, course: Double = 90) -> Fix {
        Fix(coordinate: Geodesy.destination(from: start, bearing: 90, distance: seconds * speed), horizontalAccuracy: 5,
            speed: speed, course: course, timestamp: t0.addingTimeInterval(seconds), source: .gnss)
    }

    @Test("ten seconds of steady fixes earn a rest of the initial length; a held prediction lengthens the next")
    func restsAndLengthens() {
        let cycle = RideTracker.DutyCycle()
        var duty = GNSSDutyCycle(cycle)
        var spell: TimeInterval?
        var t = 0.0
        while spell == nil, t < 30 {
            spell = duty.consider(after: Self.fix(t), allowed: true, cycle: cycle, restLimitMeters: nil)
            t += 1
        }
        #expect(spell == cycle.initialOffSeconds)
        #expect(t - 1 >= cycle.steadySeconds - 0.5)
        #expect(duty.isCoasting && duty.spells == 1)
        let after = Self.fix(t - 1 + cycle.initialOffSeconds)   // exactly where the straight line predicts
        let held = duty.checkPrediction(against: after, cycle: cycle)
        #expect(held)
        #expect(!duty.isCoasting)
        #expect(duty.offSeconds == min(cycle.maximumOffSeconds, cycle.initialOffSeconds * 1.5))
    }

    @Test("a missed prediction (a turn) starts the spell length over; a boundary close ahead forbids a rest")
    func missAndBoundary() throws {
        let cycle = RideTracker.DutyCycle()
        var duty = GNSSDutyCycle(cycle)
        var t = 0.0
        while duty.consider(after: Self.fix(t), allowed: true, cycle: cycle, restLimitMeters: nil) == nil, t < 30 { t += 1 }
        // First a held prediction lengthens the spell…
        t += cycle.initialOffSeconds
        let held = duty.checkPrediction(against: Self.fix(t), cycle: cycle)
        #expect(held && duty.offSeconds > cycle.initialOffSeconds)
        // …then the next spell's prediction misses (a turn) and the length starts over.
        var next: TimeInterval?
        while next == nil, t < 90 {
            t += 1
            next = duty.consider(after: Self.fix(t), allowed: true, cycle: cycle, restLimitMeters: nil)
        }
        let spell = try #require(next)
        var turned = Self.fix(t + spell)
        turned.coordinate = Geodesy.destination(from: turned.coordinate, bearing: 0, distance: 80)
        let missed = !duty.checkPrediction(against: turned, cycle: cycle)
        #expect(missed)
        #expect(duty.offSeconds == cycle.initialOffSeconds)

        var near = GNSSDutyCycle(cycle)
        var rested = false
        for s in 0..<30 {
            // 20 m to a fence boundary at 5 m/s: under half the initial spell, so GNSS stays on.
            if near.consider(after: Self.fix(Double(s)), allowed: true, cycle: cycle, restLimitMeters: 20) != nil { rested = true }
        }
        #expect(!rested && near.spells == 0)
    }

    @Test("not allowed (recording paused, a setting without duty cycling) forgets the stretch")
    func notAllowedForgets() {
        let cycle = RideTracker.DutyCycle()
        var duty = GNSSDutyCycle(cycle)
        for s in 0..<9 { _ = duty.consider(after: Self.fix(Double(s)), allowed: true, cycle: cycle, restLimitMeters: nil) }
        _ = duty.consider(after: Self.fix(9), allowed: false, cycle: cycle, restLimitMeters: nil)
        // The steady window starts again: the next fix alone is not ten seconds of evidence.
        let spell = duty.consider(after: Self.fix(10), allowed: true, cycle: cycle, restLimitMeters: nil)
        #expect(spell == nil)
    }
}
