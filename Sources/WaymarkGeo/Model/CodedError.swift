/// What every Waymark module's error type shares: a ``code`` to branch on and a ``message`` to show.
///
/// Each module throws one error type of its own (``GeoError`` here; `EngineError`, `SyncError`,
/// `TransportError`, `SimulatorError` and `ServerError` in the others), each with its own codes.
/// A `catch` can name a code directly, as with GRDB's `DatabaseError`:
///
/// ```swift
/// do { _ = try GPXDocument(contentsOf: url) }
/// catch GeoError.Code.malformedXML { /* not XML at all */ }
/// catch let error as GeoError { print(error.message) }
/// ```
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The module's codes.
    associatedtype Code: ErrorCode
    /// What kind of problem this is.
    var code: Code { get }
    /// A sentence saying what is wrong and what to do about it.
    var message: String { get }
}

extension CodedError {
    /// The message, prefixed with the code (a type may say less, e.g. where in a file instead).
    public var description: String { "\(code): \(message)" }
}

/// The code of a ``CodedError``: a name, compared by name. New codes may be added to a module;
/// a `switch` over them needs a `default`.
public protocol ErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The error type that carries this code.
    associatedtype Thrown: CodedError
    /// The code's name, as in logs and JSON replies (`"malformedXML"`).
    var rawValue: String { get }
}

extension ErrorCode {
    /// The code's name.
    public var description: String { rawValue }
}

extension ErrorCode where Thrown.Code == Self {
    /// True when `error` is a ``Thrown`` of this code. Each code type's `~=` uses it, so that
    /// `catch GeoError.Code.invalidCoordinate { … }` works wherever the module is imported.
    public func matches(_ error: any Error) -> Bool {
        (error as? Thrown)?.code == self
    }
}
