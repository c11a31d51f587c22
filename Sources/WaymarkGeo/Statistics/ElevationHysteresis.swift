/// Elevation gain and loss with spike removal and a dead band (internal helper of
/// ``TrackStatisticsAccumulator``).
///
/// First, each elevation is replaced by the median of itself and its two
/// neighbours in the segment (the first and last points are kept as they are); this
/// removes single-point spikes entirely, which an average would only shrink. Then the filter follows the elevation in one direction, remembering the extreme
/// reached. A change of direction is accepted only once the elevation has moved
/// more than `threshold` metres back from that extreme; then the finished climb
/// (or descent), from the previous turning point to the extreme, is added to the
/// gain (or loss). Oscillations smaller than the threshold are ignored entirely,
/// while a real climb is counted in full, not minus the threshold. At the end of a
/// segment the climb or descent in progress is added if it exceeded the threshold.
struct ElevationHysteresis: Sendable {
    let threshold: Double
    private(set) var gain = 0.0
    private(set) var loss = 0.0

    private var reference = 0.0
    private var extreme = 0.0
    /// +1 climbing, -1 descending, 0 undecided (no move beyond the threshold yet), nil before the first value.
    private var direction: Int?

    // The running median's last two raw values and how many the segment has had (capped at 2).
    private var older = 0.0
    private var newer = 0.0
    private var seen = 0

    init(threshold: Double) {
        self.threshold = threshold
    }

    /// Adds the next raw elevation of the segment, metres.
    @inline(__always)
    mutating func add(_ elevation: Double) {
        switch seen {
        case 0:
            follow(elevation)
            older = elevation
            seen = 1
        case 1:
            newer = elevation
            seen = 2
        default:
            follow(max(min(older, newer), min(max(older, newer), elevation)))
            older = newer
            newer = elevation
        }
    }

    /// Feeds a spike-filtered elevation to the hysteresis.
    @inline(__always)
    private mutating func follow(_ elevation: Double) {
        guard let dir = direction else {
            reference = elevation
            extreme = elevation
            direction = 0
            return
        }
        switch dir {
        case 1:
            if elevation > extreme {
                extreme = elevation
            } else if extreme - elevation > threshold {
                gain += extreme - reference
                reference = extreme
                extreme = elevation
                direction = -1
            }
        case -1:
            if elevation < extreme {
                extreme = elevation
            } else if elevation - extreme > threshold {
                loss += reference - extreme
                reference = extreme
                extreme = elevation
                direction = 1
            }
        default:
            if elevation - reference > threshold {
                extreme = elevation
                direction = 1
            } else if reference - elevation > threshold {
                extreme = elevation
                direction = -1
            }
        }
    }

    /// Adds the climb or descent in progress and forgets the segment.
    mutating func endSegment() {
        if seen == 2 { follow(newer) }
        seen = 0
        if direction == 1 { gain += extreme - reference }
        if direction == -1 { loss += reference - extreme }
        direction = nil
    }
}
