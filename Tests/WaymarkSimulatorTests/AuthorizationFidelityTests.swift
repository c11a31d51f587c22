import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator
import WaymarkGeo

/// PLATFORM.md §2 (second edition, issue #14): provisional Always, Allow Once lapsing out of use,
/// reduced accuracy's documented figures and temporary full accuracy.
@Suite("§2 location authorization over time")
struct AuthorizationFidelityTests {
    private var authorizations: (Simulation) -> [LocationAuthorization] {
        { sim in sim.events { if case .authorizationChanged(let a) = $0 { a } else { nil } } }
    }

    // MARK: provisional Always [S5][S6]

    @Test("requestAlways from notDetermined: Allow While Using reads authorizedAlways until the first use of location out of use; iOS then asks, and the held fix is delivered (Always) or dropped (While Using)",
          arguments: [(PromptResponse.Answer.allow, [LocationAuthorizationStatus.notDetermined, .authorizedAlways], 1),
                      (.deny, [.notDetermined, .authorizedAlways, .authorizedWhenInUse], 0)])
    func provisionalAlways(confirmation: PromptResponse.Answer, statuses: [LocationAuthorizationStatus], fixes: Int) throws {
        let scenario = Fixture.opened(prompts: [.locationAlways: PromptResponse(confirmation)],
                                      actions: [UserAction(at: 10, .background), UserAction(at: 60, .silentPush)])
        var sim = try Simulation(scenario: scenario)
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestAlwaysAuthorization)
        sim.run(until: 5)
        #expect(sim.stats.promptsShown == 1)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedAlways])
        #expect(sim.log.systemNotes.contains("prompt shown: location when-in-use"))
        sim.run(until: 60)
        #expect(sim.appState == .background)   // woken by the silent push: not in use
        sim.perform(.requestLocation(.hundredMeters))
        sim.run(until: 63)
        #expect(sim.fixes.isEmpty)              // held while the user decides
        #expect(sim.stats.promptsShown == 2)
        #expect(sim.log.systemNotes.contains("prompt shown: location always (confirming provisional always)"))
        sim.run(until: 70)
        #expect(sim.authorizationStatuses == statuses)
        #expect(sim.fixes.count == fixes)
        #expect(sim.locationAuthorization.status == statuses.last)
    }

    @Test("provisional Always asks nothing while the app is in use")
    func provisionalAlwaysInUse() throws {
        var sim = try Simulation(scenario: Fixture.opened(overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestAlwaysAuthorization)
        sim.run(until: 5)
        sim.perform(.requestLocation(.hundredMeters))
        sim.run(until: 10)
        #expect(sim.fixes.count == 1)
        #expect(sim.stats.promptsShown == 1)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedAlways])
    }

    @Test("iOS 12 keeps the old rule: always requested from notDetermined and allowed reads when-in-use")
    func noProvisionalAlwaysOnIOS12() throws {
        var sim = try Simulation(scenario: Fixture.opened(profile: .ios12))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestAlwaysAuthorization)
        sim.run(until: 5)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
        #expect(!PlatformConstants.profile(.ios12).provisionalAlwaysAvailable)
        #expect(PlatformConstants.profile(.ios13).provisionalAlwaysAvailable)
    }

    // MARK: Allow Once [S8]

    private func allowOnce(openAt: Double, overrides: [String: JSONValue]? = nil) throws -> Simulation {
        let scenario = Fixture.opened(prompts: [.locationWhenInUse: PromptResponse(.allowOnce)],
                                      actions: [UserAction(at: 10, .background), UserAction(at: openAt, .open)],
                                      overrides: overrides)
        var sim = try Simulation(scenario: scenario)
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: openAt - 1)
        return sim
    }

    @Test("Allow Once lapses after time out of use, not only at relaunch: notDetermined when the app runs again, and the next request prompts")
    func allowOnceLapsesInBackground() throws {
        var sim = try allowOnce(openAt: 400)   // out of use from 15 s (5 s grace); lapses at 315 s
        #expect(sim.appState == .suspended)
        #expect(sim.locationAuthorization.status == .notDetermined)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
        sim.run(until: 400)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse, .notDetermined])
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 410)
        #expect(sim.stats.promptsShown == 2)
        #expect(sim.stats.terminations == 0)
    }

    @Test("a short trip out of the app keeps the Allow Once grant")
    func allowOnceSurvivesShortBackground() throws {
        var sim = try allowOnce(openAt: 200)
        sim.run(until: 200)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
        #expect(sim.locationAuthorization.status == .authorizedWhenInUse)
        #expect(PlatformConstants().temporaryAuthorizationLapseSeconds == 300)
    }

    @Test("the lapse delay is a setting")
    func allowOnceLapseSetting() throws {
        var sim = try allowOnce(openAt: 100, overrides: ["temporaryAuthorizationLapseSeconds": .number(60)])
        sim.run(until: 100)
        #expect(sim.authorizationStatuses.last == .notDetermined)
    }

    // MARK: reduced accuracy [S9]

    @Test("reduced accuracy: fixes 1–20 km off, at most a few (three) an hour, as Apple documents")
    func reducedAccuracyFigures() throws {
        let device = DeviceSetup(install: .existing, location: .authorizedWhenInUse, preciseLocation: false)
        var sim = try Simulation(scenario: Fixture.opened(device: device, overrides: Fixture.noCache, duration: 4 * 3600))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best, pausesLocationUpdatesAutomatically: false)))
        sim.run(until: 4 * 3600)
        let times = sim.times { if case .locations = $0 { true } else { false } }
        #expect(times.count >= 3)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1200 - 1e-6 })
        #expect(sim.fixes.allSatisfy { (1000...20_000).contains($0.horizontalAccuracy ?? 0) })
        let defaults = PlatformConstants()
        #expect(defaults.reducedAccuracyMinMeters == 1000 && defaults.reducedAccuracyMaxMeters == 20_000)
        #expect(defaults.reducedUpdateIntervalSeconds >= 1200)
    }

    // MARK: temporary full accuracy [S10]

    private func approximate(prompts: [PromptKind: PromptResponse]? = nil, actions: [UserAction] = [],
                             keys: [String]? = nil, precise: Bool = false) throws -> Simulation {
        let device = DeviceSetup(install: .existing, location: .authorizedWhenInUse, preciseLocation: precise,
                                 temporaryUsagePurposeKeys: keys)
        var sim = try Simulation(scenario: Fixture.opened(device: device, prompts: prompts, actions: actions, overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        return sim
    }

    @Test("temporary full accuracy: a prompt; allowed, a callback with full accuracy and precise fixes")
    func temporaryFullAccuracyGranted() throws {
        var sim = try approximate()
        sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best)))
        sim.perform(.requestTemporaryFullAccuracy(purposeKey: "Ride"))
        sim.run(until: 1.9)
        #expect(sim.stats.promptsShown == 1)
        sim.run(until: 60)
        #expect(authorizations(sim).map(\.accuracy) == [.reduced, .full])
        #expect(authorizations(sim).map(\.status) == [.authorizedWhenInUse, .authorizedWhenInUse])
        #expect(sim.locationAuthorization.accuracy == .full)
        #expect(sim.energy[.gnss] > 0)
        #expect(sim.fixes.contains { ($0.horizontalAccuracy ?? .infinity) <= 30 })
    }

    @Test("temporary full accuracy declined: no callback, accuracy stays reduced")
    func temporaryFullAccuracyDeclined() throws {
        var sim = try approximate(prompts: [.temporaryFullAccuracy: PromptResponse(.deny)])
        sim.perform(.requestTemporaryFullAccuracy(purposeKey: "Ride"))
        sim.run(until: 30)
        #expect(sim.stats.promptsShown == 1)
        #expect(authorizations(sim).map(\.accuracy) == [.reduced])
        #expect(sim.locationAuthorization.accuracy == .reduced)
    }

    @Test("temporary full accuracy lapses once the app is out of use; the app hears of it when it returns")
    func temporaryFullAccuracyLapses() throws {
        var sim = try approximate(actions: [UserAction(at: 20, .background), UserAction(at: 500, .open)])
        sim.perform(.requestTemporaryFullAccuracy(purposeKey: "Ride"))
        sim.run(until: 499)
        #expect(authorizations(sim).map(\.accuracy) == [.reduced, .full])
        #expect(sim.locationAuthorization.accuracy == .reduced)
        sim.run(until: 500)
        #expect(authorizations(sim).map(\.accuracy) == [.reduced, .full, .reduced])
    }

    @Test("temporary full accuracy does nothing: purpose key not declared, app in the background, or full accuracy already",
          arguments: ["missing key", "background", "precise"])
    func temporaryFullAccuracyRefused(reason: String) throws {
        var sim = try approximate(actions: reason == "background" ? [UserAction(at: 10, .background)] : [],
                                  keys: reason == "missing key" ? ["Delivery"] : nil, precise: reason == "precise")
        sim.run(until: 12)
        sim.perform(.requestTemporaryFullAccuracy(purposeKey: "Ride"))
        sim.run(until: 30)
        #expect(sim.stats.promptsShown == 0)
        #expect(authorizations(sim).count == 1)
        #expect(sim.stats.missingUsageDescriptions == (reason == "missing key" ? 1 : 0))
        #expect(sim.stats.promptsRefusedInBackground == (reason == "background" ? 1 : 0))
    }
}
