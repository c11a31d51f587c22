import Foundation

/// A small, fast, deterministic random number generator (SplitMix64).
///
/// The same seed gives the same sequence on every platform and run, which is what
/// simulations, synthetic tracks and property tests need. Not for cryptography.
///
/// ```swift
/// var rng = SplitMix64(seed: 42)
/// let noise = rng.gaussian(sigma: 5)      // metres
/// let pick = Int.random(in: 0..<10, using: &rng)
/// ```
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    private var state: UInt64

    /// Makes a generator; equal seeds give equal sequences.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A normally distributed value with mean 0 and standard deviation `sigma` (Box–Muller).
    public mutating func gaussian(sigma: Double) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
