// libFuzzer entry point for the chunk codec PostgreSQL keeps finished days in (PositionChunkCodec).
//
// Built by Scripts/fuzz_chunks.sh with the WaymarkGeo sources, Position.swift and PositionChunkCodec.swift
// in one module (`swiftc -sanitize=fuzzer,address`). Every input must either throw a PositionChunkError or
// decode to points that encode and decode again to the same bits; a crash, hang or unbounded memory is a bug.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPositionChunk(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let points: [ChunkPoint]
    do {
        points = try PositionChunkCodec.decode(bytes, deviceID: "fuzz")
    } catch let error as PositionChunkError {
        _ = error.description
        return 0
    } catch {
        preconditionFailure("decode threw something other than a PositionChunkError: \(error)")
    }
    precondition((try? PositionChunkCodec.timestamps(bytes)) == points.map(\.millis), "timestamps disagree with decode")
    guard let again = try? PositionChunkCodec.decode(PositionChunkCodec.encode(points), deviceID: "fuzz") else {
        preconditionFailure("a decoded chunk did not encode and decode again")
    }
    func bits(_ p: ChunkPoint) -> [UInt64?] {
        let f = p.position.fix
        return [f.coordinate.latitude.bitPattern, f.coordinate.longitude.bitPattern, f.altitude?.bitPattern,
                f.horizontalAccuracy?.bitPattern, f.verticalAccuracy?.bitPattern, f.speed?.bitPattern, f.course?.bitPattern,
                p.position.batteryLevel?.bitPattern, UInt64(bitPattern: p.millis), UInt64(bitPattern: p.receivedMillis)]
    }
    precondition(again.map(bits) == points.map(bits) && again.map(\.position.activity) == points.map(\.position.activity)
                 && again.map(\.position.isCharging) == points.map(\.position.isCharging)
                 && again.map(\.position.fix.source) == points.map(\.position.fix.source)
                 && again.map(\.position.fix.packedFlags) == points.map(\.position.fix.packedFlags), "the round trip changed a value")
    return 0
}
