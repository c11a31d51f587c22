import Foundation
import WaymarkEngine

/// The small state the app keeps across launches besides the ride store: what the engine asks
/// the app to store, the fence log and the server's address.
///
/// Fixes, gap markers, the ride's checkpoint and the upload queue live in WaymarkSync's
/// `RideStore` (SQLite, written entry by entry), not here; the device token lives in a
/// ``TokenStore``. So this file is small and written only when one of these few things changes.
///
/// A `Sendable`, `Codable` value type.
public struct StoredAppState: Hashable, Sendable, Codable {
    /// The permission sequencer's memory (the Always upgrade is asked once per install).
    public var permissionMemory = PermissionMemory()
    /// The geofences and their records, for `Engine(geofences:)`.
    public var geofences: GeofenceMonitor.PersistentState?
    /// The latest fence events, newest first (at most ``FencesModel/logLimit``).
    public var fenceLog: [FenceEvent] = []
    /// The server to upload to; nil until the user sets it (its token is in the ``TokenStore``).
    public var serverURL: URL?

    /// Makes a state; a fresh install has nothing stored.
    public init(permissionMemory: PermissionMemory = PermissionMemory(), geofences: GeofenceMonitor.PersistentState? = nil,
                fenceLog: [FenceEvent] = [], serverURL: URL? = nil) {
        self.permissionMemory = permissionMemory
        self.geofences = geofences
        self.fenceLog = fenceLog
        self.serverURL = serverURL
    }
}


/// Where ``StoredAppState`` lives: a JSON file on the phone, memory in tests.
@MainActor
public protocol AppStateStore: AnyObject {
    /// The stored state, or a fresh one when nothing (or nothing readable) is stored.
    func load() -> StoredAppState
    /// Replaces the stored state.
    func save(_ state: StoredAppState)
}

/// Keeps the state in memory: for tests and previews.
@MainActor
public final class MemoryAppStateStore: AppStateStore {
    /// The state last saved.
    public private(set) var state: StoredAppState
    /// How many times ``save(_:)`` was called.
    public private(set) var saves = 0

    /// Makes a store holding `state`.
    public init(_ state: StoredAppState = StoredAppState()) { self.state = state }

    /// The state last saved.
    public func load() -> StoredAppState { state }

    /// Keeps `state` and counts the save.
    public func save(_ state: StoredAppState) {
        self.state = state
        saves += 1
    }
}

/// Keeps the state in one JSON file, written atomically (on the phone: Application Support,
/// protected until first unlock so a background relaunch can read it).
@MainActor
public final class FileAppStateStore: AppStateStore {
    /// The file.
    public let url: URL
    /// The last error writing the file, if any.
    public private(set) var lastError: String?

    /// Makes a store for the file at `url`; its folder is created on the first save.
    public init(url: URL) { self.url = url }

    /// Reads the file; a fresh state when it is missing or unreadable.
    public func load() -> StoredAppState {
        guard let data = try? Data(contentsOf: url),
              let state = try? JSONDecoder().decode(StoredAppState.self, from: data) else { return StoredAppState() }
        return state
    }

    /// Writes the file atomically; a failure is kept in ``lastError``.
    public func save(_ state: StoredAppState) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var options: Data.WritingOptions = [.atomic]
            #if os(iOS)
            options.insert(.completeFileProtectionUntilFirstUserAuthentication)
            #endif
            try JSONEncoder().encode(state).write(to: url, options: options)
            lastError = nil
        } catch {
            lastError = "Could not save \(url.lastPathComponent): \(error.localizedDescription)"
        }
    }
}
