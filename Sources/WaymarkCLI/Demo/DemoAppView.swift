import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator

/// What the demo reads from the simulated app after each step: everything it recorded and
/// published so far, in order. Each list only grows (it is what the app stored on "disk").
protocol DemoAppView {
    /// Every recorded fix.
    var recordedFixes: [Fix] { get }
    /// Every gap marker.
    var gapMarkers: [GapMarker] { get }
    /// Ride states with their times.
    var rideStates: [(time: Date, state: RideState)] { get }
    /// Device-side fence events.
    var fenceEvents: [FenceEvent] { get }
    /// Launch-location and map lines (`"accepted fix …"`, `"map centered …"`) with their times.
    var launchLines: [(time: Date, kind: DemoTimelineEntry.Kind, text: String)] { get }
}

extension RideSimApp: DemoAppView {
    var recordedFixes: [Fix] { storage.recorded }
    var gapMarkers: [GapMarker] { storage.gaps }
    var rideStates: [(time: Date, state: RideState)] { stateLog }
    var fenceEvents: [FenceEvent] { [] }
    var launchLines: [(time: Date, kind: DemoTimelineEntry.Kind, text: String)] { [] }
}
