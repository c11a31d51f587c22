import Foundation
import WaymarkEngine
import WaymarkGeo

/// Counters a test or a report reads after a run.
public struct SimulationStats: Hashable, Sendable, Codable {
    /// System prompts shown.
    public var promptsShown = 0
    /// App-refresh tasks iOS ran (the heartbeat's wakes), requests it refused, tasks that ran out of time.
    public var appRefreshRuns = 0, appRefreshRefusals = 0, appRefreshExpired = 0
    /// Permission requests made while another prompt was on screen (lost).
    public var promptCollisions = 0
    /// Permission requests that showed nothing because a usage description is missing.
    public var missingUsageDescriptions = 0
    /// Location deliveries (callbacks) and the fixes they carried.
    public var locationDeliveries = 0, fixesDelivered = 0
    /// Fixes the system held while the app could not take them and delivered late in a batch.
    public var fixesDeliveredLate = 0
    /// Fixes measured but not delivered because of the distance filter.
    public var fixesSuppressedByDistanceFilter = 0
    /// Standard-update starts ignored because a when-in-use app was in the background and not in
    /// use (an Always app may start them from any background wake) [S5][S22].
    public var startsIgnoredInBackground = 0
    /// Live updates iOS 18 withheld from an app that declares `NSLocationRequireExplicitServiceSession`
    /// but held no explicit `CLServiceSession` (the `serviceSessionRequired` diagnostic) [S43].
    public var liveUpdatesWithheldForServiceSession = 0
    /// Fixes the system held for a suspended app and lost when the process ended (a termination by
    /// the system, a crash or the user): nothing survives the process [S41] (issue #14).
    public var fixesLostWithProcess = 0
    /// Process launches by reason.
    public var launches: [String: Int] = [:]
    /// Suspensions and terminations (system and force-quit).
    public var suspensions = 0, terminations = 0
    /// Uploads sent.
    public var uploads = 0
    // Permission fidelity (issue #14).
    /// Prompts (location, temporary full accuracy) not shown because the app was not in the
    /// foreground when it asked [S3]; the request is dropped.
    public var promptsRefusedInBackground = 0
    /// App crashes (e.g. a motion query without `NSMotionUsageDescription` [S12]); each also counts
    /// as a termination.
    public var crashes = 0
    // Region fidelity (issue #14).
    /// Committed region crossings iOS never reported (``PlatformConstants/regionMissProbability``).
    public var regionEventsMissed = 0
    /// Region events that came due while they could not be delivered (offline, or an entry after a
    /// push launch) and were delivered later.
    public var regionEventsHeld = 0
    /// Region events that came due while region monitoring was unavailable (reduced accuracy) and
    /// were dropped.
    public var regionEventsDroppedUnavailable = 0
}
