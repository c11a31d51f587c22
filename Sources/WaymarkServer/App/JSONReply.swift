import Foundation
import Hummingbird

/// Builds JSON responses from Foundation property-list values.
enum JSONReply {
    /// Serialises `object` (dictionaries, arrays, strings, numbers, `NSNull`) as a JSON response.
    static func response(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"error":{"code":"storage","message":"reply could not be encoded"}}"#.utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// Encodes `value` as a JSON response (sorted keys, like ``response(_:status:)``). Use for hot
    /// replies: JSONEncoder is about 20× faster than JSONSerialization with sorted keys.
    static func response(encoding value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? data(value))
            ?? Data(#"{"error":{"code":"storage","message":"reply could not be encoded"}}"#.utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// `value` as compact JSON with sorted keys and unescaped slashes.
    static func data(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// A JSON value for an optional number: the number, or `NSNull`.
    static func value(_ number: Double?) -> Any { number.map { $0 as Any } ?? NSNull() }
}
