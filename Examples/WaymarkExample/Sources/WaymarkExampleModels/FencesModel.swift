import Foundation
import Observation
import WaymarkEngine
import WaymarkGeo
import WaymarkSync

/// The Fences tab: the fences with the engine's presence, and the enter and exit events, newest first.
///
/// Events come from `engine.geofences.events` (each delivered once) and are kept in the stored
/// state, so the list survives a relaunch; presence comes from `engine.geofences.states`.
///
/// Fences come from two places: the ones added in the app, and the server's, which `FenceSync`
/// fetches (``apply(server:)``); a server fence is marked in its user data
/// (``sourceKey`` = ``serverSource``), replaced whole when the server's set changes, and removed only
/// on the server.
///
/// ```swift
/// try await model.addFence(named: "Office", at: coordinate, radiusMeters: 150)
/// model.state.events.first?.title   // "Entered Office"
/// ```
///
/// Main-actor isolated, observable by SwiftUI.
@MainActor
public final class FencesModel: Observable {
    /// The most events kept.
    public static let logLimit = 200

    /// One fence in the list.
    public struct Row: Hashable, Sendable, Identifiable {
        /// The fence's identifier.
        public var id: String
        /// Its name (the fence's `userData["name"]`, else its identifier).
        public var name: String
        /// Its radius, metres (the enclosing circle's, for a polygon).
        public var radiusMeters: Double
        /// Inside, outside or not yet known.
        public var presence: FencePresence
        /// Whether the fence comes from the server (it is removed there, not in the app).
        public var fromServer: Bool
    }

    /// One event in the list.
    public struct EventRow: Hashable, Sendable, Identifiable {
        /// Fence identifier and sequence number: unique, stable across relaunches.
        public var id: String
        /// The event.
        public var event: FenceEvent
        /// "Entered Office", "Left Office", "Stayed at Office".
        public var title: String
        /// How the event was found and how late, e.g. "live" or "reported by iOS 4 min late".
        public var detail: String
    }

    /// What the Fences tab shows.
    public struct State: Hashable, Sendable {
        /// The fences, by name.
        public var fences: [Row] = []
        /// Enter and exit (and dwell) events, newest first.
        public var events: [EventRow] = []
        /// The last problem adding or removing a fence, or refreshing the server's.
        public var problem: String?
        /// The server's fences as last fetched, e.g. "12 fences from the server"; nil before the first fetch.
        public var serverStatus: String?
    }

    /// The user-data key that marks a fence's origin.
    public static let sourceKey = "source"
    /// Its value on a fence fetched from the server.
    public static let serverSource = "server"

    private var observed = ObservedValue(State())
    private let engine: Engine
    private var fenceDefinitions: [String: Fence] = [:]
    private var presence: [String: FencePresence] = [:]
    private var log: [FenceEvent]
    /// Called with the new log whenever an event is added (the app stores it).
    var logChanged: (([FenceEvent]) -> Void)?

    /// What the Fences tab shows; observed by SwiftUI.
    public private(set) var state: State {
        get { observed.read(self, \.state) }
        set { observed.write(self, \.state, newValue) }
    }

    /// Makes a model over `engine` with the stored fences and event log.
    public init(engine: Engine, stored: GeofenceMonitor.PersistentState?, log: [FenceEvent]) {
        self.engine = engine
        self.log = log
        fenceDefinitions = stored?.fences ?? [:]
        refresh()
    }

    /// Adds a circular fence that reports entries and exits.
    /// - throws: the `GeoError` of an invalid fence (for example a radius that is not positive).
    public func addFence(named name: String, at center: Coordinate, radiusMeters: Double) async throws(GeoError) {
        let id = "fence-" + UUID().uuidString.prefix(8).lowercased()
        let fence = Fence(id: id, shape: .circle(center: center, radiusMeters: radiusMeters), triggers: [.enter, .exit],
                          userData: ["name": name.isEmpty ? id : name])
        do {
            try await engine.geofences.add([fence])
            state.problem = nil
        } catch {
            state.problem = "Could not add the fence: \(error)"
            throw error
        }
        fenceDefinitions[id] = fence
        refresh()
    }

    /// Removes a fence added in the app; its past events stay in the list. A server fence is not
    /// removed (``State/problem`` says so): the next refresh would bring it back.
    public func removeFence(id: String) async {
        if fenceDefinitions[id]?.userData[Self.sourceKey] == Self.serverSource {
            state.problem = "\(name(of: id)) is defined on the server: remove it there."
            return
        }
        await engine.geofences.remove([id])
        fenceDefinitions[id] = nil
        presence[id] = nil
        refresh()
    }

    /// Takes the outcome of a refresh of the server's fences: a changed set replaces the server
    /// fences the engine holds (the app's own stay); a failure is shown and changes nothing, so the
    /// phone keeps working from its last copy.
    func apply(server outcome: FenceSync.Outcome) async {
        switch outcome {
        case .unchanged:
            break
        case .failed(let why):
            state.problem = "The server's fences could not be refreshed: \(why)"
        case .updated(let fetched):
            let server = fetched.map { fence in
                var fence = fence
                fence.userData[Self.sourceKey] = Self.serverSource
                return fence
            }
            let ids = Set(server.map(\.id))
            let own = fenceDefinitions.values.filter { $0.userData[Self.sourceKey] != Self.serverSource && !ids.contains($0.id) }
            do {
                try await engine.geofences.replace(with: own.sorted { $0.id < $1.id } + server)
            } catch {
                state.problem = "The server's fences could not be installed: \(error)"
                return
            }
            for fence in fenceDefinitions.values where fence.userData[Self.sourceKey] == Self.serverSource && !ids.contains(fence.id) {
                fenceDefinitions[fence.id] = nil
                presence[fence.id] = nil
            }
            for fence in server { fenceDefinitions[fence.id] = fence }
            state.serverStatus = "\(server.count) \(server.count == 1 ? "fence" : "fences") from the server"
            refresh()
        }
    }

    /// Folds in one event from the engine.
    func record(_ event: FenceEvent) {
        guard !log.contains(where: { $0.fenceID == event.fenceID && $0.sequence == event.sequence }) else { return }
        log.insert(event, at: 0)
        if log.count > Self.logLimit { log.removeLast(log.count - Self.logLimit) }
        logChanged?(log)
        refresh()
    }

    /// Folds in the engine's presence map.
    func apply(presence: [String: FencePresence]) {
        self.presence = presence
        refresh()
    }

    /// Folds in the engine's stored state (the authoritative fence set).
    func apply(stored: GeofenceMonitor.PersistentState) {
        fenceDefinitions = stored.fences
        refresh()
    }

    private func name(of id: String, userData: [String: String]? = nil) -> String {
        userData?["name"] ?? fenceDefinitions[id]?.userData["name"] ?? id
    }

    private func refresh() {
        var next = state
        next.fences = fenceDefinitions.values.map { fence in
            let radius: Double = switch fence.shape {
            case .circle(_, let r): r
            case .polygon: 0
            }
            return Row(id: fence.id, name: name(of: fence.id), radiusMeters: radius, presence: presence[fence.id] ?? .unknown,
                       fromServer: fence.userData[Self.sourceKey] == Self.serverSource)
        }.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        next.events = log.map { event in
            let fenceName = name(of: event.fenceID, userData: event.userData)
            let title = switch event.kind {
            case .enter: "Entered \(fenceName)"
            case .exit: "Left \(fenceName)"
            case .dwell: "Stayed at \(fenceName)"
            }
            let minutes = Int((event.delay / 60).rounded())
            let detail = switch event.timing {
            case .live: "live"
            case .osDelayed: "reported by iOS \(minutes) min late"
            case .caughtUp: "caught up \(minutes) min late"
            }
            return EventRow(id: "\(event.fenceID)#\(event.sequence)", event: event, title: title, detail: detail)
        }
        state = next
    }
}
