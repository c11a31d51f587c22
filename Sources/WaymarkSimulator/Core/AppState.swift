import Foundation
import WaymarkEngine
import WaymarkGeo

/// What the simulated app process is doing. `suspended` is invisible to the app itself.
public enum AppState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Not launched yet, or terminated (by the system or a force-quit).
    case notRunning
    /// On screen; the user sees it.
    case foreground
    /// Running off screen (a background window, a task, or background location updates).
    case background
    /// In memory but not running; receives nothing until it is resumed, woken or terminated.
    case suspended
}
