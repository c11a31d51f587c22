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

    @Test("a ride's activity type holds whatever the geofence trackers ask: finer, equal or coarser, before or after it")
    func activityTypeOfTheRide() {
        let ride = { (a: DesiredAccuracy) in
            LocationDemand.standard(StandardDemand(accuracy: a, background: true, activityType: .fitness, pausesAutomatically: false))
        }
        let fence = { (a: DesiredAccuracy) in
            LocationDemand.standard(StandardDemand(accuracy: a, background: true, activityType: .other, statesActivity: false))
        }
        for (rideAccuracy, fenceAccuracy) in [(DesiredAccuracy.best, DesiredAccuracy.best), (.hundredMeters, .best), (.best, .hundredMeters)] {
            for demands in [[fence(fenceAccuracy), ride(rideAccuracy)], [ride(rideAccuracy), fence(fenceAccuracy)]] {
                let merged = DemandResolver.mergedStandard(demands)
                #expect(merged?.activityType == .fitness, "ride \(rideAccuracy), fence \(fenceAccuracy)")
                #expect(merged?.desiredAccuracy == .best)
            }
        }
        // Without a ride the trackers' `.other` stands; of demands that state the activity the finer one's wins
        // (a foreground request for a fix, `.other`, finer than the ride's GNSS rest, as before).
        #expect(DemandResolver.mergedStandard([fence(.best)])?.activityType == .other)
        let drive = LocationDemand.standard(StandardDemand(accuracy: .hundredMeters, activityType: .automotiveNavigation))
        #expect(DemandResolver.mergedStandard([drive, fence(.best)])?.activityType == .automotiveNavigation)
        #expect(DemandResolver.mergedStandard([drive, ride(.best)])?.activityType == .fitness)
        #expect(DemandResolver.mergedStandard([ride(.hundredMeters), drive])?.activityType == .fitness, "equal: the first")
        let request = LocationDemand.standard(StandardDemand(accuracy: .best))
        #expect(DemandResolver.mergedStandard([request, ride(.hundredMeters)])?.activityType == .other)
        #expect(DemandResolver.mergedStandard([request, fence(.best), ride(.best)])?.activityType == .other, "equal: the first")
    }

    @Test("a geofence tracker changing its accuracy beside a ride reconfigures without changing the activity type")
    func trackerChangesKeepTheActivityType() {
        var resolver = DemandResolver()
        let ride = LocationDemand.standard(StandardDemand(accuracy: .hundredMeters, background: true, activityType: .fitness))
        _ = resolver.resolve([ride])
        for accuracy in [DesiredAccuracy.best, .hundredMeters, .best] {
            let commands = resolver.resolve([.standard(StandardDemand(accuracy: accuracy, background: true, statesActivity: false)), ride])
            #expect(commands.count == 1)
            #expect(resolver.runningStandard?.activityType == .fitness)
        }
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
