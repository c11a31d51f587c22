/// The one error type of `WaymarkEngine`.
///
/// ```swift
/// do { _ = try await engine.permissions.request([.locationWhenInUse]) }
/// catch let error as EngineError where error.code == .stopped { /* the device stream ended */ }
/// ```
///
/// A `Sendable` value.
public struct EngineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let rawValue: String
        /// The engine stopped (its device's event stream ended) before the operation finished.
        public static let stopped = Code(rawValue: "stopped")
        public var description: String { rawValue }
        /// Matches a thrown `EngineError` of this code, so `catch` can name the code:
        /// `catch EngineError.Code.<code> { … }` (as GRDB does with `DatabaseError`).
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? EngineError)?.code == code
        }
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

    public var description: String { "\(code): \(message)" }
}
