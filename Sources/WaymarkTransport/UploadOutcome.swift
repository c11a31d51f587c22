import Foundation

/// How one upload transfer ended, as the ``UploadOutcomeStore`` keeps it: the batch's
/// idempotency key, the ``UploadResponse`` and when the transfer finished.
///
/// A background `URLSession` finishes transfers while the app is suspended or not running; the
/// outcome is written down at once, and the next send of that key returns it instead of
/// uploading again. Only ``isAcknowledgement`` (a 2xx `{"result":"ok"}` from the server) lets
/// the queue delete the batch's points; every other outcome leaves the batch pending (or split,
/// or quarantined, as the ``UploadResponse`` says) and it is sent again under the same key.
///
/// The file format (one JSON object per file, UTF-8; `finished_ms` is Unix time in milliseconds,
/// `body` the reply's bytes in base64):
///
/// ```json
/// {"format":1,"key":"7F2C…","finished_ms":1750000000123,"status":200,"body":"eyJyZXN1bHQiOiJvayJ9"}
/// {"format":1,"key":"7F2C…","finished_ms":1750000000123,"failure":"timedOut"}
/// {"format":1,"key":"7F2C…","finished_ms":1750000000123,"failure":"connectionFailed","message":"…"}
/// {"format":1,"key":"7F2C…","finished_ms":1750000000123,"failure":"cancelled"}
/// ```
///
/// A `Sendable` value type.
public struct UploadOutcome: Hashable, Sendable, Codable {
    /// The batch's idempotency key.
    public var key: String
    /// What came back.
    public var response: UploadResponse
    /// When the transfer finished, to the millisecond.
    public var finishedAt: Date

    /// The version written in `format`; files with another version are not read.
    public static let formatVersion = 1

    /// Makes an outcome; `finishedAt` is kept to the millisecond, as the file keeps it.
    public init(key: String, response: UploadResponse, finishedAt: Date) {
        self.key = key
        self.response = response
        self.finishedAt = Date(timeIntervalSince1970: (finishedAt.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// True when the server committed the batch (see ``UploadResponse/isAcknowledgement``).
    public var isAcknowledgement: Bool { response.isAcknowledgement }

    enum CodingKeys: String, CodingKey {
        case format, key, status, body, failure, message
        case finishedMillis = "finished_ms"
    }

    /// Reads the file format above.
    ///
    /// - throws: `DecodingError` when a field is missing or has an unknown value, or the
    ///   format version is not ``formatVersion``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let format = try c.decode(Int.self, forKey: .format)
        guard format == Self.formatVersion else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: c,
                                                   debugDescription: "outcome format \(format), expected \(Self.formatVersion)")
        }
        key = try c.decode(String.self, forKey: .key)
        finishedAt = Date(timeIntervalSince1970: Double(try c.decode(Int64.self, forKey: .finishedMillis)) / 1000)
        if let status = try c.decodeIfPresent(Int.self, forKey: .status) {
            let body = try c.decodeIfPresent(String.self, forKey: .body) ?? ""
            guard let bytes = Data(base64Encoded: body) else {
                throw DecodingError.dataCorruptedError(forKey: .body, in: c, debugDescription: "body is not base64")
            }
            response = .status(status, body: Array(bytes))
            return
        }
        switch try c.decode(String.self, forKey: .failure) {
        case "timedOut": response = .timedOut
        case "cancelled": response = .cancelled
        case "connectionFailed": response = .connectionFailed(try c.decodeIfPresent(String.self, forKey: .message) ?? "")
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .failure, in: c, debugDescription: "unknown failure '\(other)'")
        }
    }

    /// Writes the file format above.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.formatVersion, forKey: .format)
        try c.encode(key, forKey: .key)
        try c.encode(Int64((finishedAt.timeIntervalSince1970 * 1000).rounded()), forKey: .finishedMillis)
        switch response {
        case .status(let code, let body):
            try c.encode(code, forKey: .status)
            try c.encode(Data(body).base64EncodedString(), forKey: .body)
        case .timedOut:
            try c.encode("timedOut", forKey: .failure)
        case .cancelled:
            try c.encode("cancelled", forKey: .failure)
        case .connectionFailed(let message):
            try c.encode("connectionFailed", forKey: .failure)
            try c.encode(message, forKey: .message)
        }
    }
}
