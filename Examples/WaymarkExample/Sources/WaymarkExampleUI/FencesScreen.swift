#if canImport(SwiftUI) && os(iOS)
import SwiftUI
import WaymarkEngine
import WaymarkExampleModels

/// The Fences tab: the fences with their presence, and the enter and exit events, newest first.
@MainActor
struct FencesScreen: View {
    let app: AppModel
    let model: FencesModel
    @State private var radius = 150.0

    var body: some View {
        NavigationStack {
            List {
                Section("Fences") {
                    ForEach(model.state.fences) { fence in
                        HStack {
                            Text(fence.name)
                            if fence.fromServer {
                                Image(systemName: "server.rack").foregroundStyle(.secondary)
                            }
                            Spacer()
                            Text("\(Int(fence.radiusMeters)) m · \(Self.presence(fence.presence))")
                                .foregroundStyle(.secondary)
                        }
                    }
                    .onDelete { offsets in
                        let ids = offsets.map { model.state.fences[$0].id }
                        Task { for id in ids { await model.removeFence(id: id) } }
                    }
                    Stepper("Radius \(Int(radius)) m", value: $radius, in: 100...1_000, step: 50)
                    Button("Add a fence here") {
                        guard let here = app.state.lastKnownLocation else { return }
                        let name = "Place \(model.state.fences.count + 1)"
                        Task { try? await model.addFence(named: name, at: here, radiusMeters: radius) }
                    }
                    .disabled(app.state.lastKnownLocation == nil)
                    if let status = model.state.serverStatus {
                        Text(status).font(.footnote).foregroundStyle(.secondary)
                    }
                    if let problem = model.state.problem {
                        Text(problem).foregroundStyle(.red)
                    }
                }
                Section("Events") {
                    if model.state.events.isEmpty {
                        Text("No events yet: ride through a fence.").foregroundStyle(.secondary)
                    }
                    ForEach(model.state.events) { row in
                        VStack(alignment: .leading) {
                            Text(row.title)
                            Text("\(row.event.time.formatted(date: .abbreviated, time: .shortened)) · \(row.detail)")
                                .font(.footnote)
                                .foregroundStyle(.secondary)
                        }
                    }
                }
            }
            .navigationTitle("Fences")
        }
    }

    static func presence(_ presence: FencePresence) -> String {
        switch presence {
        case .inside: "inside"
        case .outside: "outside"
        case .unknown: "not known yet"
        }
    }
}
#endif
