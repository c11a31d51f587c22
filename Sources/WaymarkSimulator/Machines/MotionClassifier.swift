import Foundation
import WaymarkEngine
import WaymarkGeo

/// The motion coprocessor's activity classifier (PLATFORM.md §7), owned by ``Simulation``.
///
/// It reports the true activity once that has been stable for a lag (longer for cycling, and with
/// lower confidence), or a scripted classification. Each report bumps ``serial``, so a process that
/// was suspended can tell whether it missed one. Delivery to the app is the simulation's business:
/// the classifier only says what it reports and when.
struct MotionClassifier: Sendable {
    /// The latest classification reported, nil before the first.
    private(set) var current: MotionActivity?
    /// Counts classifications reported so far.
    private(set) var serial = 0
    private var candidate: MotionActivity.Kind = .unknown
    private var candidateSince = 0.0

    /// Observes the true activity at `now`; returns the new classification when the classifier
    /// reports one (the activity has been stable for the lag and differs from the last report).
    mutating func observe(_ activity: MotionActivity.Kind, at now: Double, constants: PlatformConstants,
                          rng: inout SeededRandom) -> MotionActivity? {
        if activity != candidate {
            candidate = activity
            candidateSince = now
        }
        guard current?.kind != candidate else { return nil }
        let cycling = candidate == .cycling
        let lag = cycling ? constants.motionCyclingLagSeconds : constants.motionLagSeconds
        guard now - candidateSince >= lag else { return nil }
        let confidence: MotionActivity.Confidence = cycling
            ? (rng.chance(constants.cyclingMediumConfidenceProbability) ? .medium : .low) : .high
        return report(MotionActivity(candidate, confidence: confidence))
    }

    /// Reports a scripted classification (``MotionSetup/Mode/scripted``) and returns it.
    mutating func script(_ item: MotionSetup.ScriptedActivity) -> MotionActivity {
        report(MotionActivity(item.activity, confidence: item.confidence ?? .high))
    }

    private mutating func report(_ activity: MotionActivity) -> MotionActivity {
        current = activity
        serial += 1
        return activity
    }
}
