import WaymarkGeo

/// The one error type of `WaymarkEngine`.
///
/// ```swift
/// do { _ = try await engine.permissions.request([.locationWhenInUse]) }
/// catch let error as EngineError where error.code == .stopped { /* the device stream ended */ }
/// ```
///
/// A `Sendable` value.
public struct EngineError: CodedError {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: ErrorCode {
        /// The error type that carries these codes.
        public typealias Thrown = EngineError
        /// Matches a thrown `EngineError` of this code, so `catch` can name it: `catch EngineError.Code.<code> { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool { code.matches(error) }
        /// The code's name.
        public let rawValue: String
        /// The engine stopped (``Engine/stop()`` was called, or its device's event stream ended) before
        /// the operation finished.
        public static let stopped = Code(rawValue: "stopped")
        /// The field log could not be exported (``FieldLog/export(since:to:)``): the message names the
        /// file and the system's reason. Recording never throws.
        public static let fieldLog = Code(rawValue: "fieldLog")
    }

    /// The kind of problem.
    public var code: Code
    /// What happened and what to do about it.
    public var message: String

    /// Makes an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
