import WaymarkGeo

/// The one error type of `WaymarkSimulator`: a scenario that cannot be read or run.
///
/// ```swift
/// do { _ = try Scenario.decode(from: data) }
/// catch let error as SimulatorError where error.code == .invalidScenario { print(error) }
/// ```
public struct SimulatorError: CodedError {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: ErrorCode {
        /// The error type that carries these codes.
        public typealias Thrown = SimulatorError
        /// Matches a thrown `SimulatorError` of this code, so `catch` can name it: `catch SimulatorError.Code.<code> { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool { code.matches(error) }
        /// The code's name.
        public let rawValue: String
        /// The scenario is not valid JSON or a field has the wrong shape or value.
        public static let invalidScenario = Code(rawValue: "invalidScenario")
        /// The scenario's `version` is not one this simulator reads.
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// A file the scenario refers to could not be read.
        public static let io = Code(rawValue: "io")
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
