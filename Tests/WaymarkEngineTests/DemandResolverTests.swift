import Testing
@testable import WaymarkEngine

@Suite("DemandResolver")
struct DemandResolverTests {
    static let best = LocationDemand.standard(StandardDemand(accuracy: .best))

    @Test("restating the same demand starts standard updates once")
    func startsOnce() {
        var resolver = DemandResolver()
        #expect(resolver.resolve([Self.best]) == [.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best))])
        #expect(resolver.resolve([Self.best]).isEmpty)
        #expect(resolver.resolve([Self.best, .none]).isEmpty)
        #expect(resolver.standardStarts == 1)
    }

    @Test("a refused start is not asked for again until the app may start services again; another configuration is")
    func refusedStart() {
        var resolver = DemandResolver()
        let started = resolver.resolve([Self.best])
        #expect(started.count == 1)
        resolver.deviceStoppedStandardUpdates()   // CLError.denied: a when-in-use app in the background
        #expect(resolver.resolve([Self.best]).isEmpty, "retrying at once would be refused again, in a loop")
        let coarse = LocationDemand.standard(StandardDemand(accuracy: .hundredMeters))
        #expect(resolver.resolve([coarse]) == [.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .hundredMeters))])
        resolver.deviceStoppedStandardUpdates()
        #expect(resolver.resolve([coarse]).isEmpty)
        resolver.deviceMayStartAgain()            // the app came to the foreground
        #expect(resolver.resolve([coarse]) == [.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .hundredMeters))])
    }

    @Test("dropping the last demand stops updates once")
    func stopsOnce() {
        var resolver = DemandResolver()
        _ = resolver.resolve([Self.best])
        #expect(resolver.resolve([.none]) == [.stopUpdatingLocation])
        #expect(resolver.resolve([.none]).isEmpty)
        #expect(resolver.resolve([]).isEmpty)
    }

    @Test("merging takes the finest accuracy, the smallest filter and background if anyone needs it")
    func merge() {
        let coarse = LocationDemand.standard(StandardDemand(accuracy: .hundredMeters, distanceFilterMeters: 50, background: true))
        let fine = LocationDemand.standard(StandardDemand(accuracy: .nearestTenMeters, distanceFilterMeters: 20,
                                                          pausesAutomatically: false))
        let merged = DemandResolver.mergedStandard([coarse, .significantChanges, fine])
        #expect(merged == LocationConfiguration(desiredAccuracy: .nearestTenMeters, distanceFilterMeters: 20,
                                                pausesLocationUpdatesAutomatically: false,
                                                allowsBackgroundLocationUpdates: true))
        let unfiltered = LocationDemand.standard(StandardDemand(accuracy: .kilometer))
        #expect(DemandResolver.mergedStandard([coarse, unfiltered])?.distanceFilterMeters == nil)
    }

    @Test("a changed merge reconfigures with one start command, no stop in between")
    func reconfigure() {
        var resolver = DemandResolver()
        _ = resolver.resolve([.standard(StandardDemand(accuracy: .hundredMeters))])
        let commands = resolver.resolve([.standard(StandardDemand(accuracy: .hundredMeters)), Self.best])
        #expect(commands == [.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best))])
    }

    @Test("significant changes start and stop with the demand; unknown state is left alone")
    func significantChanges() {
        var resolver = DemandResolver()
        #expect(resolver.resolve([.none]).isEmpty)
        #expect(resolver.resolve([.significantChanges]) == [.startSignificantChanges])
        #expect(resolver.resolve([.significantChanges, .none]).isEmpty)
        #expect(resolver.resolve([.none]) == [.stopSignificantChanges])
    }

    @Test("a one-fix demand asks once, and not at all while standard updates run")
    func oneFix() {
        var resolver = DemandResolver()
        #expect(resolver.resolve([.oneFix(.hundredMeters)]) == [.requestLocation(.hundredMeters)])
        #expect(resolver.resolve([.oneFix(.hundredMeters)]).isEmpty)
        #expect(resolver.resolve([.none]).isEmpty)
        var running = DemandResolver()
        #expect(running.resolve([Self.best, .oneFix(.kilometer)]).count == 1)
    }

    @Test("after the OS stopped updates on its own, the same demand starts them again once the app may (authorization back)")
    func restartAfterOSStop() {
        var resolver = DemandResolver()
        _ = resolver.resolve([Self.best])
        resolver.deviceStoppedStandardUpdates()
        resolver.deviceMayStartAgain()
        #expect(resolver.resolve([Self.best]).count == 1)
        #expect(resolver.standardStarts == 2)
    }
}
