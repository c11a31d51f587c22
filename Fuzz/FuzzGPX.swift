// libFuzzer entry point for the GPX reader (parse only).
//
// Built by Scripts/fuzz_gpx.sh together with the WaymarkGeo sources into one
// module with `swiftc -sanitize=fuzzer,address`. Every input must either read
// to the end or throw a GeoError; a crash, hang or unbounded memory is a bug.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    for lenient in [false, true] {
        // Small buffers so that token boundaries land everywhere; small limits so memory stays bounded.
        let options = GPXReadOptions(lenient: lenient, chunkSize: 4096, maxTokenBytes: 1 << 20, maxDepth: 64)
        do {
            var reader = try GPXReader(data: data, name: "fuzz", options: options)
            var events = 0
            while let event = try reader.next() {
                events += 1
                if case .issue(let issue) = event { _ = issue.description }
            }
            // What was read must also write and read back.
            if !lenient, let doc = try? GPXDocument(data: data, options: options) {
                let again = try GPXDocument(data: doc.gpxData(), options: GPXReadOptions())
                precondition(again.waypoints.count == doc.waypoints.count && again.tracks.count == doc.tracks.count,
                             "round trip changed the document")
            }
        } catch {
            _ = error.description
        }
    }
    return 0
}
