/// A position inside a text input, for error messages: file, 1-based line and column.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file's path or another name for the input (`"<stdin>"`, `"<memory>"`); may be nil.
    public var file: String?
    /// 1-based line number.
    public var line: Int
    /// 1-based column, counted in bytes of UTF-8 from the start of the line.
    public var column: Int

    public init(file: String? = nil, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file ?? "<input>"):\(line):\(column)" }
}

/// The one error type of `WaymarkGeo`.
///
/// Match on ``code`` in a `catch`:
///
/// ```swift
/// do { _ = try GPXDocument(contentsOf: url) }
/// catch let error as GeoError where error.code == .malformedXML { print(error) }
/// ```
///
/// The ``description`` names what is wrong and, where the input is a file, where
/// (`file:line:column`) and what was expected.
public struct GeoError: CodedError {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: ErrorCode {
        /// The error type that carries these codes.
        public typealias Thrown = GeoError
        /// Matches a thrown `GeoError` of this code, so `catch` can name it: `catch GeoError.Code.<code> { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool { code.matches(error) }
        /// The code's name.
        public let rawValue: String
        /// A latitude or longitude is NaN, infinite, or out of range.
        public static let invalidCoordinate = Code(rawValue: "invalidCoordinate")
        /// Some other numeric value is NaN, infinite or out of its range.
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The input is not well-formed XML.
        public static let malformedXML = Code(rawValue: "malformedXML")
        /// The XML is well formed but not GPX as expected (wrong root, missing attribute...).
        public static let invalidGPX = Code(rawValue: "invalidGPX")
        /// The input is not valid JSON / GeoJSON of the expected shape.
        public static let invalidGeoJSON = Code(rawValue: "invalidGeoJSON")
        /// The input could not be decoded as text (unknown or broken encoding).
        public static let encoding = Code(rawValue: "encoding")
        /// Reading or writing a file failed.
        public static let io = Code(rawValue: "io")
    }

    /// The kind of problem.
    public var code: Code
    /// A sentence saying what is wrong and what was expected.
    public var message: String
    /// Where in the input, when the input is text.
    public var location: SourceLocation?

    public init(_ code: Code, _ message: String, at location: SourceLocation? = nil) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String {
        if let location { return "\(location): \(message)" }
        return message
    }
}
