import Foundation

/// Reads a GPX 1.0 or 1.1 file as a stream of ``GPXEvent``s, in constant memory.
///
/// The file is read in chunks (``GPXReadOptions/chunkSize``) by a byte-level XML
/// tokenizer, so memory does not grow with the file: a 1 GB track needs the same
/// few hundred KiB as a small one. UTF-8, UTF-16 (LE/BE, with or without BOM) and
/// ISO-8859-1 inputs are accepted; namespace prefixes are ignored (elements match
/// on their local names); CDATA, the predefined entities and character references
/// are decoded; comments, processing instructions and the DOCTYPE are skipped.
///
/// ```swift
/// var reader = try GPXReader(contentsOf: URL(fileURLWithPath: "ride.gpx"))
/// var points = 0
/// while let event = try reader.next() {
///     if case .trackPoint(let point) = event, point.elevation != nil { points += 1 }
/// }
/// ```
///
/// Errors are ``GeoError``s naming `file:line:column` (column in UTF-8 bytes) and
/// what was expected: `.malformedXML` for XML that is not well formed,
/// `.invalidGPX` for a wrong root element or a missing `lat`/`lon`,
/// `.invalidCoordinate` and `.invalidValue` for values that do not parse or are out
/// of range, `.encoding` and `.io`. Names and values repeated in a message are cut to
/// 64 bytes (then "…"). With ``GPXReadOptions/lenient`` invalid points
/// are skipped and reported as ``GPXEvent/issue(_:)``; XML that is not well formed
/// still throws once every event before the fault has been returned. After a throw,
/// every further call throws the same error.
///
/// Hostile input: the work is linear in the input size, and the limits of
/// ``GPXReadOptions`` (`maxTokenBytes`, `maxDepth`, `maxAttributes`, and the optional
/// `maxElements` and `maxPoints`) throw `.malformedXML` naming the limit, the element and
/// the location. Every few thousand tokens the reader checks whether the current task
/// is cancelled and, if so, throws a ``GeoError`` with code `.cancelled`; run a parse of
/// untrusted bytes in a task you cancel when its client goes away.
///
/// Thread safety: a reader is a single-owner cursor; use it from one task at a time.
/// It is a reference to its buffer, so a copy of a reader advances the same stream.
public struct GPXReader {
    private let parser: GPXParser

    /// Opens the file at `url` for streaming.
    ///
    /// - throws: ``GeoError`` with code `.io` if the file cannot be opened, `.encoding`
    ///   if it declares an unsupported encoding.
    public init(contentsOf url: URL, options: GPXReadOptions = GPXReadOptions()) throws(GeoError) {
        parser = GPXParser(input: try GPXInput(url: url, chunkSize: options.chunkSize), options: options)
    }

    /// Reads GPX from bytes in memory; `name` is used in error locations (e.g. a file name).
    ///
    /// - throws: ``GeoError`` with code `.encoding` if the bytes declare an unsupported encoding.
    public init(data: Data, name: String? = nil, options: GPXReadOptions = GPXReadOptions()) throws(GeoError) {
        parser = GPXParser(input: try GPXInput(data: data, name: name, chunkSize: options.chunkSize), options: options)
    }

    /// The next event in file order, or nil after the end of the document.
    ///
    /// - throws: ``GeoError`` (see the type's documentation).
    public mutating func next() throws(GeoError) -> GPXEvent? {
        try parser.next()
    }

    /// How many bytes of UTF-8 the reader has consumed so far (for progress reporting).
    public var bytesRead: Int { parser.tok.base + parser.tok.pos }
}
