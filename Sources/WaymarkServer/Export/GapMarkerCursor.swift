import Foundation

/// Walks a device's stored gap markers by start time while an export walks its positions.
struct GapMarkerCursor {
    let store: any Store
    let deviceID: String
    let from: Date?, to: Date?
    let enabled: Bool
    private var page: [PositionGap] = []
    private var next = 0
    private var exhausted = false
    private var after: GapQuery.Cursor?

    init(store: any Store, deviceID: String, from: Date?, to: Date?, enabled: Bool) {
        self.store = store
        self.deviceID = deviceID
        self.from = from
        self.to = to
        self.enabled = enabled
        self.exhausted = !enabled
    }

    /// Whether a marker starts before `time` that no earlier call reported; consumes those markers.
    mutating func anyStart(before time: Date) async throws -> Bool {
        var found = false
        while true {
            if next == page.count {
                guard !exhausted else { return found }
                page = try await store.gaps(GapQuery(deviceID: deviceID, from: from, to: to, after: after, limit: Routes.streamPage))
                next = 0
                exhausted = page.count < Routes.streamPage
                after = page.last.map(GapQuery.Cursor.init(after:))
                if page.isEmpty { return found }
            }
            guard page[next].start < time else { return found }
            found = true
            next += 1
        }
    }
}
