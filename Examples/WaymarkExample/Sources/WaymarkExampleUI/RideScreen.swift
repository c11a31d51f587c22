#if canImport(SwiftUI) && os(iOS)
import SwiftUI
import WaymarkEngine
import WaymarkExampleModels

/// The Ride tab: the ride's controls and statistics, and the uploads to `waymark serve`.
@MainActor
struct RideScreen: View {
    let app: AppModel
    let model: RideModel
    @State private var editingServer = false

    var body: some View {
        NavigationStack {
            List {
                Section("Ride") {
                    LabeledContent("State", value: Self.title(model.state.ride))
                    if let automatic = Self.title(model.state.automatic) {
                        LabeledContent("Automatic", value: automatic)
                    }
                    LabeledContent("Distance", value: Self.kilometres(model.state.statistics.distanceMeters))
                    LabeledContent("Moving time", value: Self.duration(model.state.statistics.movingSeconds))
                    LabeledContent("Speed", value: Self.speed(model.state.statistics.currentSpeed))
                    LabeledContent("Recorded", value: "\(model.state.recordedFixes) fixes, \(model.state.gaps) gaps")
                }
                Section {
                    HStack {
                        Button("Start") { Task { await model.start() } }.disabled(!model.state.canStart)
                        Spacer()
                        if model.state.canResume {
                            Button("Resume") { Task { await model.resume() } }
                        } else {
                            Button("Pause") { Task { await model.pause() } }.disabled(!model.state.canPause)
                        }
                        Spacer()
                        Button("Stop", role: .destructive) { Task { await model.stop() } }.disabled(!model.state.canStop)
                    }
                    .buttonStyle(.borderless)
                }
                if model.state.approximateLocation {
                    Section {
                        Button("Use precise location for this ride") { Task { await model.requestPreciseLocation() } }
                    } footer: {
                        Text("Approximate location is 1–20 km off: a ride needs precise location.")
                    }
                }
                Section("Upload") {
                    LabeledContent("Server", value: app.state.server?.baseURL.absoluteString ?? "not set")
                    LabeledContent("Waiting on the phone", value: "\(model.state.waitingPoints) points")
                    if model.state.uploadFailures > 0 {
                        Text("\(model.state.uploadFailures) failed attempts; trying again with backoff").foregroundStyle(.orange)
                    }
                    if model.state.quarantinedBatches > 0 {
                        Text("\(model.state.quarantinedBatches) batches the server refused are kept aside").foregroundStyle(.red)
                    }
                    Button(model.state.uploading ? "Uploading…" : "Upload now") { model.uploadNow() }
                        .disabled(model.state.uploading || !model.state.serverConfigured)
                }
            }
            .navigationTitle("Ride")
            .toolbar {
                Button("Server") { editingServer = true }
            }
            .sheet(isPresented: $editingServer) {
                ServerSettingsView(app: app)
            }
        }
    }

    static func title(_ state: RideState) -> String {
        switch state {
        case .idle: "Not riding"
        case .moving: "Recording"
        case .autoPaused: "Stopped (paused automatically)"
        case .userPaused: "Paused"
        case .ended: "Finished"
        }
    }

    /// The automatic-tracking line; nil while it is off.
    static func title(_ state: AutomaticTracking.State) -> String? {
        switch state {
        case .off: nil
        case .still: "Waiting for you to ride (GPS off)"
        case .checking: "Checking whether you are riding"
        case .riding: "Riding"
        }
    }

    static func kilometres(_ meters: Double) -> String {
        (meters / 1000).formatted(.number.precision(.fractionLength(2))) + " km"
    }

    static func duration(_ seconds: Double) -> String {
        Duration.seconds(seconds).formatted(.time(pattern: .hourMinuteSecond))
    }

    static func speed(_ metersPerSecond: Double?) -> String {
        guard let metersPerSecond else { return "–" }
        return (metersPerSecond * 3.6).formatted(.number.precision(.fractionLength(1))) + " km/h"
    }
}

/// Where to upload: the `waymark serve` URL and the device token from `waymark device add`.
@MainActor
struct ServerSettingsView: View {
    let app: AppModel
    @Environment(\.dismiss) private var dismiss
    @State private var url = ""
    @State private var token = ""
    @State private var invalid = false

    var body: some View {
        NavigationStack {
            Form {
                Section {
                    TextField("http://192.168.1.20:8080", text: $url)
                        .keyboardType(.URL)
                        .textInputAutocapitalization(.never)
                        .autocorrectionDisabled()
                    SecureField("Device token (wmd_…)", text: $token)
                } footer: {
                    Text("On the server: `waymark serve`, then `waymark device add \"My iPhone\"` prints the token.")
                }
                if invalid {
                    Text("Enter an http(s) URL with a host, and the token.").foregroundStyle(.red)
                }
                if app.state.server != nil {
                    Button("Stop uploading", role: .destructive) {
                        Task {
                            await app.setServer(nil)
                            dismiss()
                        }
                    }
                }
            }
            .navigationTitle("Server")
            .toolbar {
                ToolbarItem(placement: .cancellationAction) { Button("Cancel") { dismiss() } }
                ToolbarItem(placement: .confirmationAction) {
                    Button("Save") {
                        guard let settings = ServerSettings(url: url, token: token) else { invalid = true; return }
                        Task {
                            await app.setServer(settings)
                            dismiss()
                        }
                    }
                }
            }
            .onAppear {
                url = app.state.server?.baseURL.absoluteString ?? ""
                token = app.state.server?.deviceToken ?? ""
            }
        }
    }
}
#endif
