import ArgumentParser
import Foundation
import WaymarkGeo
import WaymarkServer
import HTTPTypes

/// `waymark-bench fuzz`: mutated bodies through every ingest decoder and the validator, in-process.
///
/// Each body either decodes (its points valid or reported) or fails with a 4xx ``ServerError``,
/// and where the native fast path accepts a body, the general decoder must read the same points;
/// a trap ends the process (the script reports it), any other error is counted and printed,
/// and the command exits 1 if there was one.
struct BenchFuzzCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz", abstract: "Fuzz the ingest decoders in-process with mutated bodies; print JSON.")

    @Option(help: "How many bodies.")
    var count: Int = 1_000_000
    @Option(help: "Random seed.")
    var seed: UInt64 = 1

    func run() async throws {
        var rng = SplitMix64(seed: seed)
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        var decoded = 0, rejected = 0, validPoints = 0, problems = 0, gaps = 0
        var failures: [String] = []
        let formats = PayloadCheck.Format.allCases
        let clock = ContinuousClock()
        let start = clock.now
        for i in 0..<count {
            let format = formats[i % formats.count]
            let seeds = IngestFuzzer.seeds[format] ?? []
            let body = IngestFuzzer.mutate(Array(seeds[Int.random(in: 0..<seeds.count, using: &rng)].utf8), &rng)
            if format == .native, let mismatch = PayloadCheck.nativeFastPathMismatch(body), failures.count < 20 {
                failures.append("native fast path: \(mismatch) for \(String(decoding: body.prefix(300), as: UTF8.self))")
            }
            do {
                let result = try PayloadCheck.check(body, format: format, now: now)
                decoded += 1
                validPoints += result.valid
                problems += result.problems.count
                gaps += result.gaps
                _ = result.problems.map(\.description)
            } catch let error as ServerError {
                rejected += 1
                _ = error.description
                if !(400..<500).contains(error.status.code), failures.count < 20 {
                    failures.append("\(format.rawValue): \(error) for \(String(decoding: body.prefix(300), as: UTF8.self))")
                }
            } catch {
                if failures.count < 20 { failures.append("\(format.rawValue): unexpected \(type(of: error)): \(error)") }
            }
        }
        let seconds = (clock.now - start).seconds
        printJSON(["bodies": count, "decoded": decoded, "rejected4xx": rejected, "validPoints": validPoints,
                   "pointProblems": problems, "validGaps": gaps, "failures": failures, "seconds": seconds, "bodiesPerSecond": Double(count) / seconds])
        if !failures.isEmpty { throw ExitCode.failure }
    }
}

/// Seeds and mutations for fuzzing the ingest formats (shared with the HTTP fuzz test's shapes).
enum IngestFuzzer {
    static let seeds: [PayloadCheck.Format: [String]] = [
        .native: [
            #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z","speed":3,"battery_level":0.5,"motion":["walking"]}}]}"#,
            #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.621,45.521,80]},"properties":{"timestamp":"2015-10-01T08:00:00-0700","altitude":80,"speed":4.2,"horizontal_accuracy":30,"vertical_accuracy":-1,"motion":["driving","stationary"],"battery_state":"unplugged","battery_level":0.89}},{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.622,45.522]},"properties":{"timestamp":1443711630}}]}"#,
            #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z"}},{"type":"Feature","geometry":null,"properties":{"waymark_kind":"gap","ride_id":"R1","start":"2025-06-15T10:00:00.000Z","end":"2025-06-15T10:04:00.000Z","reason":"terminated"}}]}"#,
        ],
        .ownTracks: [
            #"{"_type":"location","acc":15,"alt":440,"batt":46,"bs":2,"lat":46.0681247,"lon":11.1512805,"tst":1551874878,"vac":2,"vel":9}"#,
            #"[{"_type":"transition","wtst":1425042603,"lat":12.34,"lon":44.5,"tst":1427634603,"acc":130,"event":"enter","desc":"x","t":"b"},{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Home","lat":46.05,"lon":14.5,"rad":100,"tst":1497349000}]}]"#,
        ],
        .traccarJSON: [
            #"{"location":{"timestamp":"2021-07-21T08:06:34.444Z","coords":{"latitude":-6.11,"longitude":106.68,"speed":18.67,"heading":63},"battery":{"level":0.79,"is_charging":false}},"device_id":"x"}"#,
            #"{"location":[{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.42,"longitude":-122.08,"accuracy":5,"speed":-1,"heading":-1,"altitude":5},"activity":{"type":"still"}}],"device_id":48241179}"#,
        ],
        .osmAnd: [
            "id=abc&lat=42.06288&lon=-88.23412&timestamp=2016-01-27T18%3A55%3A47Z&hdop=6.0&altitude=224.0&speed=0.0&batt=50&charge=true",
            "deviceid=abc&location=60.0,30.0&timestamp=1442068686579&bearing=7.1&accuracy=3&valid=1",
            "id=abc&lat=49.60688&lon=6.15788&timestamp=2014-06-04+09%3A10%3A11&altitude=384.7&speed=12",
        ],
    ]

    static let alphabet = Array(#"{}[]":,.-+eE0123456789 tnfalsru%&=TZ\_"#.utf8)
    static let tokens = [
        "1e999", "-1e999", "NaN", "Infinity", "null", "true", "false", #""\u0000""#, #""\ud800""#, "[", "{", "]", "}",
        "99999999999999999999999999", "-0", "0.0000000000000000000001", #""2000-13-45T25:61:61Z""#, #""""#,
        "%", "%zz", "%00", "%FF%FE", "&&&", "==", "lat=", "timestamp=-1", "timestamp=99999999999999", "+",
        String(repeating: "[", count: 2000), String(repeating: "{\"a\":", count: 600), String(repeating: "9", count: 400),
        "\u{FEFF}", "é", "\u{1F6B2}", "location=,", "location=1,2,3",
    ].map { Array($0.utf8) }

    /// Applies 1–8 random byte, token and splice mutations.
    static func mutate(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var b = bytes
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let i = b.isEmpty ? 0 : Int.random(in: 0...b.count, using: &rng)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0 where i < b.count: b[i] = alphabet.randomElement(using: &rng)!
            case 1 where i < b.count: b.remove(at: i)
            case 2: b.insert(alphabet.randomElement(using: &rng)!, at: i)
            case 3: b = Array(b.prefix(i))
            case 4: b.insert(contentsOf: tokens.randomElement(using: &rng)!, at: i)
            case 5 where i < b.count:
                let end = min(b.count, i + Int.random(in: 1...40, using: &rng))
                b.insert(contentsOf: b[i..<end], at: Int.random(in: 0...b.count, using: &rng))
            case 6 where i < b.count: b[i] = UInt8.random(in: 0...255, using: &rng)
            default:
                // Replace a number with an extreme one.
                if let digit = b.indices.dropFirst(i).first(where: { (48...57).contains(b[$0]) }) {
                    var end = digit
                    while end < b.count, (48...57).contains(b[end]) || b[end] == 46 { end += 1 }
                    b.replaceSubrange(digit..<end, with: tokens.randomElement(using: &rng)!)
                }
            }
        }
        return b
    }
}
