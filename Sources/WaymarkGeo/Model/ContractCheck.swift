import Foundation

/// Collects what in a configuration breaks its consumer's contract: a programmer error (a negative
/// limit, a zero interval), not bad input, which is thrown as an error naming the field instead.
///
/// Consumers check in their initializer, so a configuration changed through its `var`s after it
/// was made is checked too, and stop with a message naming every offending field:
///
/// ```swift
/// ContractCheck.require(configuration.contractViolations, in: "RideTracker.Configuration")
/// ```
package struct ContractCheck: Sendable {
    /// The violations found so far, in the order checked.
    package private(set) var violations: [String] = []

    package init() {}

    /// `value` must be above zero (infinity is allowed, as "no limit"; NaN is not).
    package mutating func positive(_ name: String, _ value: Double) {
        if !(value > 0) { violations.append("\(name) must be positive, not \(value)") }
    }

    /// `value` must be above zero and finite (it becomes a timer or an integer count).
    package mutating func finitePositive(_ name: String, _ value: Double) {
        if !(value > 0 && value.isFinite) { violations.append("\(name) must be positive and finite, not \(value)") }
    }

    /// `value` must be zero or above (infinity is allowed; NaN is not).
    package mutating func nonNegative(_ name: String, _ value: Double) {
        if !(value >= 0) { violations.append("\(name) must be zero or more, not \(value)") }
    }

    /// Every value must be zero or above (infinity is allowed; NaN is not), checked in order.
    package mutating func nonNegative(_ fields: KeyValuePairs<String, Double>) {
        for (name, value) in fields { nonNegative(name, value) }
    }

    /// `value` must be zero or above.
    package mutating func nonNegative(_ name: String, _ value: Int) {
        if value < 0 { violations.append("\(name) must be zero or more, not \(value)") }
    }

    /// `condition` must hold; `message` says what it requires.
    package mutating func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { violations.append(message()) }
    }

    /// Stops the program when `violations` is not empty, naming `type` and every violation.
    package static func require(_ violations: [String], in type: String,
                                file: StaticString = #fileID, line: UInt = #line) {
        guard !violations.isEmpty else { return }
        preconditionFailure("\(type): " + violations.joined(separator: "; "), file: file, line: line)
    }
}
