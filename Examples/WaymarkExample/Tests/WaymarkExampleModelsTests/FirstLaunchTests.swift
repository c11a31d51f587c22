import Foundation
import Testing
import WaymarkEngine
import WaymarkSimulator
@testable import WaymarkExampleModels

/// The field reports' first launch: notifications, then location, never two prompts at once.
@Suite("First launch: one prompt at a time")
@MainActor
struct FirstLaunchTests {
    @Test("a fresh install asks for notifications, then location, then motion for automatic tracking; zero collisions", arguments: LocationBackend.allCases)
    func notificationsThenLocation(backend: LocationBackend) async throws {
        let phone = try SimulatedPhone(scenario: Scenarios.fresh(duration: 300), backend: backend)
        await phone.launch()
        let app = phone.app
        let outcomes = try await phone.whileAdvancing(limit: 60) {
            await app.requestFirstLaunchPermissions()
            return app.state.firstLaunch
        }
        guard case .finished(let results) = outcomes else { Issue.record("not finished: \(outcomes)"); return }
        #expect(results.map(\.request) == ExampleApp.firstLaunchRequests)
        #expect(results.map(\.result) == [.granted, .granted])
        // Automatic tracking (on in the example) asks for motion once location is determined,
        // after the app's own first-launch prompts, through the same sequencer.
        let prompts = await phone.promptsShown
        #expect(prompts == ["notifications", "location when-in-use", "motion"], "\(prompts)")
        let sim = await phone.sim
        #expect(sim.stats.promptCollisions == 0)
        // The location prompt went up only after the notification answer (and the APNs token) came.
        let answered = try #require(sim.log.entries.first {
            if case .notificationAuthorization = $0.event { true } else { false }
        }?.t)
        let asked = try #require(sim.log.entries.first { $0.command == .requestWhenInUseAuthorization }?.t)
        #expect(asked >= answered)
        #expect(app.state.authorization?.status == .authorizedWhenInUse)
        #expect(app.state.problems.isEmpty)
    }

    @Test("the first ride adds the Always upgrade and the motion prompt: four prompts, zero collisions")
    func everyPromptOfTheApp() async throws {
        let route = Scenarios.eastbound(speed: 5, seconds: 200, after: 90)
        let phone = try SimulatedPhone(scenario: Scenarios.fresh(route: route, duration: 400))
        await phone.launch()
        let app = phone.app
        // The user taps Start while the first-launch prompts may still be up: the engine queues it.
        let firstLaunch = Task { @MainActor in await app.requestFirstLaunchPermissions() }
        await phone.advance(seconds: 3)
        let start = Task { @MainActor in await app.ride.start() }
        await phone.advance(until: { app.ride.state.ride == .moving }, limit: 200)
        _ = await (firstLaunch.value, start.value)
        #expect(app.ride.state.ride == .moving)
        let prompts = await phone.promptsShown
        #expect(prompts == ["notifications", "location when-in-use", "location always (upgrade)", "motion"], "\(prompts)")
        #expect(await phone.sim.stats.promptCollisions == 0)
    }

    @Test("control: the same requests sent straight to the device collide on the simulated iPhone")
    func withoutTheSequencerPromptsCollide() async throws {
        // Proves the collision count above can fail: an app that asks for both at launch, as the
        // field reports' apps did, loses one prompt.
        let device = try SimulatedDevice(scenario: Scenarios.fresh(duration: 60), seed: 1)
        await device.open()
        await device.perform(.createLocationManager)
        await device.perform(.requestNotificationAuthorization([.alert, .sound, .badge]))
        await device.perform(.requestWhenInUseAuthorization)
        await device.advance(by: 30)
        #expect(await device.state.stats.promptCollisions == 1)
    }
}
