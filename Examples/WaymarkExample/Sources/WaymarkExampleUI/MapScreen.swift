#if canImport(SwiftUI) && canImport(MapKit) && os(iOS)
import CoreLocation
import MapKit
import SwiftUI
import WaymarkExampleModels
import WaymarkGeo

/// The Map tab: centres once on the launch location, keeping the zoom, and offers the
/// current-location button only while location is authorized (``MapModel``).
@MainActor
struct MapScreen: View {
    let model: MapModel
    @State private var position: MapCameraPosition = .automatic

    var body: some View {
        Map(position: $position) {
            UserAnnotation()
        }
        .mapControls {
            MapCompass()
            MapScaleView()
        }
        .onMapCameraChange(frequency: .onEnd) { context in
            let center = context.camera.centerCoordinate
            model.cameraMoved(to: MapViewport(center: Coordinate(uncheckedLatitude: center.latitude, longitude: center.longitude),
                                              distanceMeters: context.camera.distance))
        }
        .overlay(alignment: .bottomTrailing) {
            Button {
                model.currentLocationTapped()
            } label: {
                Label("My location", systemImage: "location.fill")
                    .labelStyle(.iconOnly)
                    .padding(12)
                    .background(.regularMaterial, in: Circle())
            }
            .disabled(!model.state.currentLocationButtonEnabled)
            .padding()
        }
        .overlay(alignment: .top) {
            Text(model.state.status)
                .font(.footnote)
                .padding(6)
                .background(.regularMaterial, in: Capsule())
                .padding(.top, 8)
        }
        .onAppear { applyPendingCommand() }
        .onChange(of: model.state.command) { applyPendingCommand() }
    }

    /// Applies the model's camera command once: the launch centre keeps the camera's distance.
    private func applyPendingCommand() {
        guard let command = model.pendingCommand else { return }
        model.didApply(command)
        switch command.kind {
        case .show(let viewport):
            guard let center = viewport.center else { return }
            let coordinate = CLLocationCoordinate2D(latitude: center.latitude, longitude: center.longitude)
            withAnimation {
                position = .camera(MapCamera(centerCoordinate: coordinate, distance: viewport.distanceMeters))
            }
        case .followUser:
            withAnimation { position = .userLocation(fallback: position) }
        }
    }
}
#endif
