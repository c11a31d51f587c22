import WaymarkGeo

/// The tests' deterministic generator.
typealias SeededGenerator = SplitMix64
