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

    /// A JSON value for an optional number: the number, or `NSNull`.
    static func value(_ number: Double?) -> Any { number.map { $0 as Any } ?? NSNull() }
}
