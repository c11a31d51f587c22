/// The one error type of `WaymarkSimulator`: a scenario that cannot be read or run.
///
/// ```swift
/// do { _ = try Scenario.decode(from: data) }
/// catch let error as SimulatorError where error.code == .invalidScenario { print(error) }
/// ```
public struct SimulatorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let rawValue: String
        /// The scenario is not valid JSON or a field has the wrong shape or value.
        public static let invalidScenario = Code(rawValue: "invalidScenario")
        /// The scenario's `version` is not one this simulator reads.
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// A file the scenario refers to could not be read.
        public static let io = Code(rawValue: "io")
        public var description: String { rawValue }
        /// Matches a thrown `SimulatorError` of this code, so `catch` can name the code:
        /// `catch SimulatorError.Code.<code> { … }` (as GRDB does with `DatabaseError`).
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SimulatorError)?.code == code
        }
    }

    /// The kind of problem.
    public var code: Code
    /// The field path (`device.location`, `world.outages[2].to`) when the problem is in one field.
    public var fieldPath: String?
    /// What is wrong and what was expected.
    public var message: String

    /// Makes an error.
    public init(_ code: Code, _ message: String, at fieldPath: String? = nil) {
        self.code = code
        self.message = message
        self.fieldPath = fieldPath
    }

    public var description: String {
        if let fieldPath, !fieldPath.isEmpty { return "\(fieldPath): \(message)" }
        return message
    }
}
