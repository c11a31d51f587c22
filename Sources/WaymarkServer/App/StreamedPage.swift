import Foundation
import Hummingbird
import NIOCore

/// One page of a list route written to the connection in pieces as it is read from the store, never built whole.
///
/// The page is `HEAD item,item,… TAIL(next)`: items are read `batch` at a time, a page ends at `limit` items or
/// after the item that passes `byteBudget` bytes, and `next` is the cursor of the last item written when another
/// item follows (nil on the last page: one item more than the page is read to know).
struct StreamedPage<Item: Sendable, Cursor: Sendable>: Sendable {
    /// Text before the first item, such as `{"devices":[`.
    var head: String
    /// Items read from the store at a time.
    var batch = 100
    /// Most items on the page.
    var limit: Int
    /// Bytes of items after which the page ends (after the item that passed it).
    var byteBudget = Routes.listPageBytes
    /// Where reading starts (nil: from the first item).
    var start: Cursor?
    /// Up to `count` items after `cursor`, in the page's order.
    var fetch: @Sendable (_ cursor: Cursor?, _ count: Int) async throws -> [Item]
    /// The cursor that continues after `item`.
    var cursor: @Sendable (Item) -> Cursor
    /// Appends one item's JSON.
    var encode: @Sendable (Item, inout ByteBuffer) -> Void
    /// Text after the last item, given the next page's cursor (nil on the last page), such as `],"next_after":7}`.
    var tail: @Sendable (Cursor?) -> String

    /// The `200` response whose body writes the page.
    func response() -> Response {
        let page = self
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: page.head))
            var position = page.start, written = 0, bytes = 0, more = false
            while true {
                // One more than the page still holds, so the last page knows it is the last.
                let wanted = min(page.batch, page.limit - written + 1)
                let items = try await page.fetch(position, wanted)
                var chunk = ByteBuffer()
                for item in items {
                    if written == page.limit || bytes >= page.byteBudget { more = true; break }
                    if written > 0 { chunk.writeString(",") }
                    let before = chunk.writerIndex
                    page.encode(item, &chunk)
                    bytes += chunk.writerIndex - before
                    written += 1
                    position = page.cursor(item)
                }
                if chunk.readableBytes > 0 { try await writer.write(chunk) }
                if more || items.count < wanted { break }
            }
            try await writer.write(ByteBuffer(string: page.tail(more ? position : nil)))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: body)
    }
}

extension ByteBuffer {
    /// Appends `value` as compact JSON with sorted keys (``JSONReply/data(_:)``).
    mutating func writeJSON(_ value: some Encodable) {
        writeBytes((try? JSONReply.data(value)) ?? Data("null".utf8))
    }

    /// Appends a Foundation property-list value as compact JSON with sorted keys.
    mutating func writeJSON(object: Any) {
        writeBytes((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
                   ?? Data("null".utf8))
    }
}

extension Routes {
    /// Most bytes of entries one page of a list route carries (fences, events, devices, deliveries): the page
    /// ends after the entry that passes it, with its cursor for the next page.
    static let listPageBytes = 8 << 20
}
