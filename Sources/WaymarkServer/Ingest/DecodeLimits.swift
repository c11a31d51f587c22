/// The per-request limits every ingest decoder enforces before it builds anything per entry.
///
/// A request past a limit is answered 413 at once, naming the limit: its cost is the scan that found
/// out, never the work of decoding and validating what would be refused anyway.
public struct DecodeLimits: Hashable, Sendable {
    /// Most entries (points, gap markers, OwnTracks messages, GPX track points) in one request.
    public var maxEntries: Int
    /// Most JSON values in a body read by the general JSON decoder (see ``ServerConfiguration/maxJSONValues``).
    public var maxJSONValues: Int
    /// Most fields in a form body or query string (OsmAnd sends about 15).
    public var maxFormFields: Int

    /// Limits with the server's defaults.
    public init(maxEntries: Int = 200_000, maxJSONValues: Int = 200_000, maxFormFields: Int = 256) {
        self.maxEntries = maxEntries
        self.maxJSONValues = maxJSONValues
        self.maxFormFields = maxFormFields
    }

    /// The 413 error for `count` entries (or "more than" when the count stopped at the limit).
    func tooManyEntries(_ count: Int, exact: Bool = true) -> ServerError {
        ServerError(.payloadTooLarge, "the request has \(exact ? "" : "more than ")\(exact ? count : maxEntries) entries; "
                    + "at most \(maxEntries) are accepted per request; send smaller batches")
    }
}

extension ServerConfiguration {
    /// The decoders' limits under this configuration.
    public var decodeLimits: DecodeLimits {
        DecodeLimits(maxEntries: maxPointsPerRequest, maxJSONValues: maxJSONValues)
    }
}
