/// A seeded pseudo-random generator (xoshiro256**, seeded through SplitMix64).
///
/// The simulator never uses the system generator: the same seed always gives the same sequence,
/// on every platform. A value type; copy it to fork a sequence.
public struct SeededRandom: RandomNumberGenerator, Hashable, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// Makes a generator from a seed and an optional stream label (independent streams per label).
    public init(seed: UInt64, stream: String = "") {
        var x = seed ^ SeededRandom.fnv1a(stream)
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// A uniform value in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform value in [lower, upper].
    public mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * unit()
    }

    /// A standard normal value (Box–Muller).
    public mutating func normal() -> Double {
        let u1 = max(unit(), 0x1.0p-60)
        let u2 = unit()
        return (-2 * _log(u1)).squareRoot() * _cos(2 * Double.pi * u2)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// 64-bit FNV-1a of a string, stable across runs (unlike `Hasher`).
    static func fnv1a(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return h
    }
}

@inline(__always) private func _log(_ x: Double) -> Double { Foundation.log(x) }
@inline(__always) private func _cos(_ x: Double) -> Double { Foundation.cos(x) }

import Foundation
