import Foundation
import WaymarkEngine
import WaymarkGeo

/// Where the geofence experiment runs: a day (or a ride) and the fences an app of that kind would
/// watch, like the ones real apps use (issue #34).
///
/// - ``Kind/park``: a ride through a park past 100 circles of 100–500 m placed around the route
///   (a boundary is nearly always within 300 m).
/// - ``Kind/commute``: a working day: home, a drive past a shop to work, a walk to the gym and back,
///   a drive home past another shop; long still stretches between. 20 fences: home, work, the gym,
///   the two shops, 8 more along the route and 7 off it.
/// - ``Kind/city``: a day of errands on foot and by car in a city, past 200 circles of 50–300 m,
///   half placed around the route, half scattered over the district.
///
/// The route of `commute` and `city` is fixed; the fences away from the named places are drawn
/// from the seed. A `Sendable` value type.
public struct GeofenceLayout: Sendable {
    /// The layouts.
    public enum Kind: String, CaseIterable, Sendable, Codable {
        /// A park ride past 100 fences.
        case park
        /// A working day past 20 fences.
        case commute
        /// A day of errands past 200 fences.
        case city
    }

    /// Which layout.
    public var kind: Kind
    /// The true path.
    public var trajectory: Trajectory
    /// The fences (circles), with the experiment's mode set later.
    public var fences: [Fence]
    /// Whether recording the same trips needs automatic tracking (trips separated by still
    /// stretches), or one ride from the start.
    public var recordsAutomatically: Bool

    /// The park layout along `ride`, with `fenceCount` fences (default 100).
    public static func park(_ ride: Trajectory, seed: UInt64, fenceCount: Int = 100) -> GeofenceLayout {
        GeofenceLayout(kind: .park, trajectory: ride, fences: GeofenceExperiment.fences(along: ride, count: fenceCount, seed: seed),
                       recordsAutomatically: false)
    }

    /// A layout by kind; `park` needs the ride (``park(_:seed:fenceCount:)``).
    ///
    /// - precondition: `kind` is not ``Kind/park`` unless `ride` is given.
    public static func make(_ kind: Kind, seed: UInt64, ride: Trajectory? = nil) -> GeofenceLayout {
        switch kind {
        case .park:
            guard let ride else { preconditionFailure("GeofenceLayout.make(.park): the park layout needs the ride") }
            return park(ride, seed: seed)
        case .commute: return commute(seed: seed)
        case .city: return city(seed: seed)
        }
    }

    /// The point `east` and `north` metres from `origin`.
    static func offset(_ origin: Coordinate, east: Double, north: Double) -> Coordinate {
        let d = (east * east + north * north).squareRoot()
        guard d > 0 else { return origin }
        let bearing = atan2(east, north) * 180 / .pi
        return Geodesy.destination(from: origin, bearing: bearing < 0 ? bearing + 360 : bearing, distance: d)
    }

    static let origin = Coordinate(uncheckedLatitude: 42.3601, longitude: -71.0589)

    /// The working day (about 7.5 hours).
    public static func commute(seed: UInt64) -> GeofenceLayout {
        let o = origin
        func p(_ e: Double, _ n: Double) -> Coordinate { offset(o, east: e, north: n) }
        let home = p(0, 0), shop1 = p(1800, 300), work = p(6200, 2100), gym = p(6700, 2400), shop2 = p(3500, -400)
        let car = 11.0, foot = 1.4
        let legs: [RouteLeg] = [
            .stop(1800),
            .travel([p(0, 300), p(1800, 300)], speed: car, activity: .automotive),
            .stop(600),
            .travel([p(3600, 300), p(3600, 2100), p(6200, 2100)], speed: car, activity: .automotive),
            .stop(10_800),
            .travel([p(6200, 2400), gym], speed: foot, activity: .walking),
            .stop(2700),
            .travel([p(6200, 2400), work], speed: foot, activity: .walking),
            .stop(600),
            .travel([p(6200, -400), shop2], speed: car, activity: .automotive),
            .stop(900),
            .travel([p(0, -400), home], speed: car, activity: .automotive),
            .stop(1800),
        ]
        let trajectory = Trajectory(start: home, legs: legs)
        var rng = SplitMix64(seed: seed ^ 0x636f_6d6d_7574_65)
        var fences = [
            Fence(id: "home", shape: .circle(center: home, radiusMeters: 150), triggers: .all),
            Fence(id: "work", shape: .circle(center: work, radiusMeters: 200), triggers: .all),
            Fence(id: "gym", shape: .circle(center: gym, radiusMeters: 150), triggers: .all),
            Fence(id: "shop-1", shape: .circle(center: shop1, radiusMeters: 150), triggers: .all),
            Fence(id: "shop-2", shape: .circle(center: shop2, radiusMeters: 150), triggers: .all),
        ]
        // 8 along the route (centres up to radius + 300 m off it), 7 anywhere in the district.
        for i in 0..<8 {
            let radius = Double.random(in: 100...400, using: &rng)
            let t = Double.random(in: 0...trajectory.endTime, using: &rng)
            let center = Geodesy.destination(from: trajectory.position(at: t), bearing: Double.random(in: 0..<360, using: &rng),
                                             distance: Double.random(in: 0...(radius + 300), using: &rng))
            fences.append(Fence(id: "route-\(i)", shape: .circle(center: center, radiusMeters: radius), triggers: .all))
        }
        for i in 0..<7 {
            let radius = Double.random(in: 100...400, using: &rng)
            let center = p(Double.random(in: -2000...8000, using: &rng), Double.random(in: -3000...5000, using: &rng))
            fences.append(Fence(id: "off-\(i)", shape: .circle(center: center, radiusMeters: radius), triggers: .all))
        }
        return GeofenceLayout(kind: .commute, trajectory: trajectory, fences: fences, recordsAutomatically: true)
    }

    /// The day of errands (about 5 hours): walks to a café and back, a drive to a mall, a walk in a
    /// park, a drive home; still stretches between.
    public static func city(seed: UInt64) -> GeofenceLayout {
        let o = origin
        func p(_ e: Double, _ n: Double) -> Coordinate { offset(o, east: e, north: n) }
        let car = 9.0, foot = 1.3
        let legs: [RouteLeg] = [
            .stop(1200),
            .travel([p(0, 400), p(700, 400), p(700, 900)], speed: foot, activity: .walking),      // to the café
            .stop(1800),
            .travel([p(700, 400), p(0, 400), p(0, 0)], speed: foot, activity: .walking),           // home
            .stop(900),
            .travel([p(0, -600), p(2500, -600), p(2500, -2200), p(3400, -2200)], speed: car, activity: .automotive), // to the mall
            .stop(2700),
            .travel([p(3400, -1200), p(1800, -1200)], speed: car, activity: .automotive),        // to the park
            .stop(120),
            .travel([p(1800, -400), p(1200, -400), p(1200, -1200), p(1800, -1200)], speed: foot, activity: .walking),
            .stop(600),
            .travel([p(1800, 0), p(0, 0)], speed: car, activity: .automotive),                   // home
            .stop(1800),
        ]
        let trajectory = Trajectory(start: o, legs: legs)
        var rng = SplitMix64(seed: seed ^ 0x6369_7479)
        var fences: [Fence] = []
        for i in 0..<200 {
            let radius = Double.random(in: 50...300, using: &rng)
            let center: Coordinate
            if i < 100 {
                let t = Double.random(in: 0...trajectory.endTime, using: &rng)
                center = Geodesy.destination(from: trajectory.position(at: t), bearing: Double.random(in: 0..<360, using: &rng),
                                             distance: Double.random(in: 0...(radius + 300), using: &rng))
            } else {
                center = p(Double.random(in: -1500...4500, using: &rng), Double.random(in: -3500...2000, using: &rng))
            }
            fences.append(Fence(id: "c\(i)", shape: .circle(center: center, radiusMeters: radius), triggers: .all))
        }
        return GeofenceLayout(kind: .city, trajectory: trajectory, fences: fences, recordsAutomatically: true)
    }
}
