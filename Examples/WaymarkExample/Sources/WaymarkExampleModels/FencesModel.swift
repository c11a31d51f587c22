import Foundation
import Observation
import WaymarkEngine
import WaymarkGeo

/// The Fences tab: the fences with the engine's presence, and the enter and exit events, newest first.
///
/// Events come from `engine.geofences.events` (each delivered once) and are kept in the stored
/// state, so the list survives a relaunch; presence comes from `engine.geofences.states`.
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
        /// The last problem adding a fence.
        public var problem: String?
    }

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

    /// Removes a fence; its past events stay in the list.
    public func removeFence(id: String) async {
        await engine.geofences.remove([id])
        fenceDefinitions[id] = nil
        presence[id] = nil
        refresh()
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
            return Row(id: fence.id, name: name(of: fence.id), radiusMeters: radius, presence: presence[fence.id] ?? .unknown)
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
