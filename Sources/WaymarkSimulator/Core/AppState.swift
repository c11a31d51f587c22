import Foundation
import WaymarkEngine
import WaymarkGeo

/// What the simulated app process is doing. `suspended` is invisible to the app itself.
public enum AppState: String, Hashable, Sendable, Codable, CaseIterable {
    case notRunning, foreground, background, suspended
}
