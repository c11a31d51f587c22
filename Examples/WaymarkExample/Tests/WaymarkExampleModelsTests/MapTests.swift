import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkExampleModels

/// The Map tab: centre once on the launch location, keep the zoom, button only while authorized.
@Suite("Map tab")
@MainActor
struct MapTests {
    @Test("centres once on the launch fix, at the zoom the user left, and enables the button", arguments: LocationBackend.allCases)
    func centresOnceKeepingTheZoom(backend: LocationBackend) async throws {
        let phone = try SimulatedPhone(scenario: Scenarios.fresh(duration: 300), backend: backend)
        let map = phone.app.map
        await phone.launch()
        map.cameraMoved(to: MapViewport(center: nil, distanceMeters: 1_200))   // the user zoomed in before the fix
        #expect(!map.state.currentLocationButtonEnabled)
        let app = phone.app
        _ = try await phone.whileAdvancing(limit: 60) { await app.requestFirstLaunchPermissions() }
        await phone.advance(until: { map.state.centeredOnLaunch }, limit: 60)

        let launchFix = try #require(await phone.app.engine.launchLocation.current.fix)
        let command = try #require(map.state.command)
        #expect(command.id == 1)
        #expect(command.kind == .show(MapViewport(center: launchFix.coordinate, distanceMeters: 1_200)))
        #expect(map.state.currentLocationButtonEnabled)
        #expect(map.state.status.hasPrefix("Located"))

        // The rest of the launch (and a ride's fixes) never moves the camera again.
        let start = Task { @MainActor in await app.ride.start() }
        await phone.advance(seconds: 120)
        _ = await start.value
        #expect(map.state.command?.id == 1)
        // The view applies the centre once, however often it is made again (a tab switch).
        map.didApply(command)
        #expect(map.pendingCommand == nil)

        map.currentLocationTapped()
        #expect(map.pendingCommand?.kind == .followUser)
        #expect(map.state.command?.kind == .followUser)
    }

    @Test("location denied: no centre, the button stays disabled and a tap does nothing")
    func deniedKeepsTheButtonDisabled() async throws {
        let phone = try SimulatedPhone(scenario: Scenarios.fresh(prompts: [.locationWhenInUse: PromptResponse(.deny)], duration: 120))
        let map = phone.app.map
        await phone.launch()
        let app = phone.app
        _ = try await phone.whileAdvancing(limit: 60) { await app.requestFirstLaunchPermissions() }
        await phone.advance(seconds: 60)
        #expect(app.state.authorization?.status == .denied)
        #expect(!map.state.centeredOnLaunch)
        #expect(!map.state.currentLocationButtonEnabled)
        #expect(map.state.status.contains("Settings"))
        map.currentLocationTapped()
        #expect(map.state.command == nil)
    }

    @Test("authorized but before the fix: the button waits for the fix")
    func buttonWaitsForTheFix() {
        let map = MapModel()
        map.apply(MapLaunchState(center: nil, currentLocationButtonEnabled: false))
        #expect(!map.state.currentLocationButtonEnabled)
        let here = Scenarios.origin
        map.apply(MapLaunchState(center: here, currentLocationButtonEnabled: true))
        map.apply(MapLaunchState(center: Scenarios.east(500), currentLocationButtonEnabled: true))
        #expect(map.state.command?.kind == .show(MapViewport(center: here, distanceMeters: 5_000)))
        #expect(map.state.command?.id == 1)
        map.apply(MapLaunchState(center: here, currentLocationButtonEnabled: false))   // authorization revoked
        #expect(!map.state.currentLocationButtonEnabled)
    }
}
