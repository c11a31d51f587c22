/// Running median of interval speeds over a window of five intervals (internal helper of
/// ``TrackStatisticsAccumulator``).
///
/// Each *interval* joins two consecutive timed points of a segment. The window's
/// median is the "smoothed speed" of its middle interval: one bad point makes two
/// bad intervals, and the median of five ignores up to two, so a single GPS spike
/// never reaches the maximum speed or turns a stop into movement. The first two and
/// last two intervals of a segment take the median of the first and last full window;
/// a segment with fewer than five intervals uses the median of all of them.
///
/// Memory is constant: three 5-element buffers stored inline (no heap, no copy-on-write checks).
struct SpeedWindow: Sendable {
    static let width = 5

    /// Five doubles stored inline, indexed 0..<5 (no heap, no copy-on-write checks).
    struct Five: Sendable {
        var storage: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)

        @inline(__always)
        subscript(_ i: Int) -> Double {
            get {
                switch i {
                case 0: return storage.0
                case 1: return storage.1
                case 2: return storage.2
                case 3: return storage.3
                default: return storage.4
                }
            }
            set {
                switch i {
                case 0: storage.0 = newValue
                case 1: storage.1 = newValue
                case 2: storage.2 = newValue
                case 3: storage.3 = newValue
                default: storage.4 = newValue
                }
            }
        }
    }

    private var speeds = Five()
    private var durations = Five()
    private var distances = Five()
    /// Intervals pushed since the segment began.
    private var count = 0
    private var lastMedian = 0.0

    /// Speed (m/s) at or above which an interval counts as moving.
    let movingThreshold: Double
    /// Largest smoothed speed seen so far, m/s; nil until an interval was pushed.
    private(set) var maximumSpeed: Double?
    /// Seconds classified as moving / stopped.
    private(set) var movingTime = 0.0
    private(set) var stoppedTime = 0.0
    /// Metres covered during moving intervals.
    private(set) var movingDistance = 0.0

    init(movingThreshold: Double) {
        self.movingThreshold = movingThreshold
    }

    /// Adds an interval of `duration` seconds (> 0) covering `distance` metres.
    @inline(__always)
    mutating func push(distance: Double, duration: Double) {
        let slot = count % Self.width
        speeds[slot] = distance / duration
        durations[slot] = duration
        distances[slot] = distance
        count += 1
        guard count >= Self.width else { return }
        let m = medianOfFive()
        lastMedian = m
        record(m)
        if count == Self.width {
            for i in 0...2 { classify(slot: i, speed: m) }
        } else {
            classify(slot: (count - 3) % Self.width, speed: m)
        }
    }

    /// Classifies the intervals still waiting at the end of a segment and starts afresh.
    mutating func endSegment() {
        if count >= Self.width {
            classify(slot: (count - 2) % Self.width, speed: lastMedian)
            classify(slot: (count - 1) % Self.width, speed: lastMedian)
        } else if count > 0 {
            let m = median(of: count)
            record(m)
            for i in 0..<count { classify(slot: i, speed: m) }
        }
        count = 0
    }

    @inline(__always)
    private mutating func record(_ speed: Double) {
        if let current = maximumSpeed, current >= speed { return }
        maximumSpeed = speed
    }

    @inline(__always)
    private mutating func classify(slot: Int, speed: Double) {
        if speed >= movingThreshold {
            movingTime += durations[slot]
            movingDistance += distances[slot]
        } else {
            stoppedTime += durations[slot]
        }
    }

    /// The median of all five speeds without branches: of `a...d`, `max(min(a,b), min(c,d))` and
    /// `min(max(a,b), max(c,d))` are the second and third smallest (the extremes are discarded),
    /// and the median of five is the median of those two and `e`. Selects exactly the same value
    /// as sorting.
    @inline(__always)
    private func medianOfFive() -> Double {
        let (a, b, c, d, e) = speeds.storage
        let f = max(min(a, b), min(c, d))
        let g = min(max(a, b), max(c, d))
        return max(min(f, g), min(max(f, g), e))
    }

    /// Median of the first `n` (1...5) speeds; the mean of the middle two for even `n`.
    @inline(__always)
    private func median(of n: Int) -> Double {
        var values = speeds.storage
        return withUnsafeMutableBytes(of: &values) { raw in
            let v = raw.baseAddress!.assumingMemoryBound(to: Double.self)
            // Insertion sort of the first n values in place.
            var i = 1
            while i < n {
                let x = v[i]
                var j = i
                while j > 0 && v[j - 1] > x {
                    v[j] = v[j - 1]
                    j -= 1
                }
                v[j] = x
                i += 1
            }
            return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
        }
    }
}
