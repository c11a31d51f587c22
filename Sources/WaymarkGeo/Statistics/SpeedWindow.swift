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
/// Memory is constant: three 5-element buffers allocated once in `init`.
struct SpeedWindow: Sendable {
    static let width = 5

    private var speeds: [Double]
    private var durations: [Double]
    private var distances: [Double]
    private var scratch: [Double]
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
        speeds = Array(repeating: 0, count: Self.width)
        durations = speeds
        distances = speeds
        scratch = speeds
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
        let m = median(of: Self.width)
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

    /// Median of the first `n` (1...5) speeds; the mean of the middle two for even `n`.
    private mutating func median(of n: Int) -> Double {
        for i in 0..<n {
            let v = speeds[i]
            var j = i
            while j > 0 && scratch[j - 1] > v {
                scratch[j] = scratch[j - 1]
                j -= 1
            }
            scratch[j] = v
        }
        return n % 2 == 1 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2
    }
}
