#if canImport(SwiftUI) && os(iOS)
import SwiftUI
import WaymarkExampleModels

/// The app's window: a tab bar with Map, Ride and Fences, and a banner for configuration problems.
///
/// When it first appears (the app is in the foreground, where location prompts can show) it asks
/// for notifications, then location, through the engine: one prompt at a time.
///
/// ```swift
/// WindowGroup { RootView(app: delegate.app) }
/// ```
@MainActor
public struct RootView: View {
    private let app: AppModel
    @Environment(\.scenePhase) private var phase

    /// Makes the root view over `app`.
    public init(app: AppModel) { self.app = app }

    #if DEBUG
    static let showsProblems = true
    #else
    static let showsProblems = false
    #endif

    /// The tab bar, the problems banner and the first-launch requests.
    public var body: some View {
        TabView(selection: Binding(get: { app.state.tab }, set: { app.select($0) })) {
            MapScreen(model: app.map)
                .tabItem { Label("Map", systemImage: "map") }
                .tag(AppModel.Tab.map)
            RideScreen(app: app, model: app.ride)
                .tabItem { Label("Ride", systemImage: "bicycle") }
                .tag(AppModel.Tab.ride)
            FencesScreen(app: app, model: app.fences)
                .tabItem { Label("Fences", systemImage: "mappin.and.ellipse") }
                .tag(AppModel.Tab.fences)
        }
        .safeAreaInset(edge: .top) {
            // Developer-facing configuration problems: debug builds only, never for end users.
            if Self.showsProblems, !app.state.problems.isEmpty {
                VStack(alignment: .leading, spacing: 4) {
                    ForEach(app.state.problems, id: \.self) { Text($0) }
                }
                .font(.footnote)
                .foregroundStyle(.white)
                .padding(8)
                .frame(maxWidth: .infinity, alignment: .leading)
                .background(.red)
            }
        }
        .task { await app.requestFirstLaunchPermissions() }
        .onChange(of: phase) { _, phase in
            if phase == .background { app.save() }
        }
    }
}
#endif
