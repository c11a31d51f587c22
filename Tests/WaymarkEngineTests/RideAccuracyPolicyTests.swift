import Testing
@testable import WaymarkEngine

@Suite("RideAccuracyPolicy: one table keyed by activity, confidence and speed")
struct RideAccuracyPolicyTests {
    typealias Setting = RideAccuracyPolicy.Setting

    @Test("Waymark's table", arguments: [
        (MotionActivity(.cycling, confidence: .low), 5.0, Setting.cycling),
        (MotionActivity(.automotive, confidence: .high), 20.0, Setting.driving),
        (MotionActivity(.automotive, confidence: .low), 6.0, Setting.cycling),    // low confidence: speed decides
        (MotionActivity(.walking, confidence: .high), 1.4, Setting.walking),
        (MotionActivity(.running, confidence: .medium), 3.3, Setting.running),
        (MotionActivity(.walking, confidence: .high), 6.0, Setting.cycling),      // too fast to be walking
        (MotionActivity(.unknown, confidence: .low), 15.0, Setting.driving),
        (MotionActivity(.stationary, confidence: .high), 0.0, Setting.cycling),   // fallback
    ] as [(MotionActivity, Double, Setting)])
    func waymarkTable(activity: MotionActivity, speed: Double, expected: Setting) {
        #expect(RideAccuracyPolicy.waymark.setting(for: activity, speed: speed) == expected)
    }

    @Test("cycling, running, walking and driving may duty-cycle GNSS; the watch uses no GNSS")
    func dutyCycleAndWatch() throws {
        #expect(Setting.cycling.dutyCycle && Setting.driving.dutyCycle && Setting.running.dutyCycle && Setting.walking.dutyCycle)
        let watch = try #require(RideAccuracyPolicy.waymark.watch)
        #expect(!watch.usesGNSS && !watch.pausesAutomatically)
    }

    @Test("the field report's switch: ten metres and a 10 m filter while cycling, three kilometres otherwise")
    func fieldReportSwitch() {
        let policy = RideAccuracyPolicy.fieldReportMotionSwitch
        let cycling = policy.setting(for: MotionActivity(.cycling, confidence: .low), speed: 5)
        #expect(cycling.accuracy == .nearestTenMeters && cycling.distanceFilterMeters == 10)
        let other = policy.setting(for: MotionActivity(.walking, confidence: .high), speed: 5)
        #expect(other.accuracy == .threeKilometers && other.distanceFilterMeters == nil)
        #expect(policy.watch == nil)
    }

    @Test("a configured table: the first matching row wins")
    func configured() {
        var policy = RideAccuracyPolicy.waymark
        policy.rows.insert(.init(activity: .cycling, minimumConfidence: .low, setting: Setting(accuracy: .nearestTenMeters)), at: 0)
        #expect(policy.setting(for: MotionActivity(.cycling, confidence: .medium), speed: 5).accuracy == .nearestTenMeters)
    }
}
