import Foundation
import Testing
@testable import WaymarkGeo

/// The tokenizer's defences against hostile GPX (issue #15, finding H3): linear duplicate-attribute
/// checks, the attribute, element and point limits, cancellation, and bounded echoes in messages.
@Suite("XML tokenizer limits")
struct XMLTokenizerLimitTests {
    /// ` a0="1" a1="1" …` for attributes `from..<to`.
    static func attributes(_ range: Range<Int>) -> String {
        range.map { " a\($0)=\"1\"" }.joined()
    }

    /// A track whose third line is one `<trkpt>` with `lat`, `lon` and `extra` attributes.
    static func document(pointAttributes extra: String) -> String {
        """
        <gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><trkseg>
        <trkpt lat="46" lon="14"\(extra)><time>2026-11-23T10:00:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """
    }

    /// The error reading `data` throws (nil if it reads), and how many earlier attributes (or hash
    /// slots) the tokenizer's duplicate check looked at: a count, not a time, so the bound on the
    /// work is the same on any machine and under any load.
    static func read(_ data: Data, options: GPXReadOptions = GPXReadOptions()) -> (GeoError?, probes: Int) {
        var error: GeoError?
        do throws(GeoError) { _ = try GPXDocument(data: data, name: "bomb.gpx", options: options) } catch let e { error = e }
        var probes = 0
        if let input = try? GPXInput(data: data, name: "bomb.gpx", chunkSize: options.chunkSize) {
            let parser = GPXParser(input: input, options: options)
            while (try? parser.next()) != nil {}   // to the end, or to the error
            probes = parser.tok.duplicateCheckProbes
        }
        return (error, probes)
    }

    /// Reads `xml` with the parser directly and returns how many earlier attributes (or hash slots)
    /// the duplicate check looked at.
    static func duplicateCheckProbes(_ xml: String, options: GPXReadOptions = GPXReadOptions()) throws -> Int {
        let parser = GPXParser(input: try GPXInput(data: Data(xml.utf8), name: "probe.gpx", chunkSize: options.chunkSize),
                               options: options)
        while try parser.next() != nil {}
        return parser.tok.duplicateCheckProbes
    }

    // MARK: attribute bombs

    @Test("the probe's 40,000-attribute <trkpt> is refused at the 257th attribute, naming limit, element and place")
    func fortyThousandAttributes() throws {
        let xml = Self.document(pointAttributes: Self.attributes(0..<40_000))
        let (error, probes) = Self.read(Data(xml.utf8))
        let e = try #require(error)
        #expect(e.code == .malformedXML)
        #expect(e.message == "<trkpt> has more than 256 attributes (the limit, GPXReadOptions.maxAttributes)")
        // lat, lon and a0…a253 are the 256 allowed; a254 is refused where its name starts.
        let line = xml.split(separator: "\n", omittingEmptySubsequences: false)[2]
        let column = line.utf8.distance(from: line.startIndex, to: line.range(of: " a254=")!.lowerBound) + 2
        #expect(e.location == SourceLocation(file: "bomb.gpx", line: 3, column: column))
        // The work stops at the limit: at most two probes per attribute up to the 257th (the
        // quadratic check compared each of the 40,000 with every earlier one, about 27 s in debug).
        #expect((256...(2 * 257)).contains(probes), "\(probes) probes")
    }

    @Test("a 6 MB element with 500,000 attributes is refused in well under a second")
    func fiveHundredThousandAttributes() throws {
        let data = Data(Self.document(pointAttributes: Self.attributes(0..<500_000)).utf8)
        #expect(data.count > 5_800_000)
        let (error, probes) = Self.read(data)
        #expect(error?.code == .malformedXML)
        #expect(error?.message.contains("more than 256 attributes") == true)
        // Old code: still running after 12 minutes (quadratic). Now the check stops at the limit.
        #expect((256...(2 * 257)).contains(probes), "\(probes) probes")
    }

    @Test("with the limit lifted, 160,000 attributes are checked for duplicates in linear time")
    func liftedLimitStaysLinear() throws {
        let data = Data(Self.document(pointAttributes: Self.attributes(0..<160_000)).utf8)
        let options = GPXReadOptions(maxAttributes: 1_000_000)
        let (error, probes) = Self.read(data, options: options)
        #expect(error == nil)
        // About one probe per attribute; the quadratic check would make 12.8 billion (about 7 minutes).
        #expect((160_000...(2 * 160_000)).contains(probes), "\(probes) probes")
    }

    @Test("elements with 200 distinct attributes parse, and keep their coordinates")
    func twoHundredAttributesParse() throws {
        let point = "<trkpt lat=\"46\" lon=\"14\"\(Self.attributes(0..<198))><time>2026-11-23T10:00:00Z</time></trkpt>\n"
        let xml = GPXTestSupport.track(String(repeating: point, count: 50))
        let doc = try GPXDocument(data: Data(xml.utf8), name: "wide.gpx")
        #expect(doc.tracks.first?.points.count == 50)
        #expect(doc.tracks.first?.points.first?.coordinate.latitude == 46)
    }

    @Test("exactly the limit is accepted; one more is refused", arguments: [3, 16, 17, 256])
    func limitBoundary(limit: Int) throws {
        let atLimit = Self.document(pointAttributes: Self.attributes(0..<(limit - 2)))
        _ = try GPXDocument(data: Data(atLimit.utf8), options: GPXReadOptions(maxAttributes: limit))
        let over = Self.document(pointAttributes: Self.attributes(0..<(limit - 1)))
        let (error, _) = Self.read(Data(over.utf8), options: GPXReadOptions(maxAttributes: limit))
        #expect(error?.message == "<trkpt> has more than \(limit) attributes (the limit, GPXReadOptions.maxAttributes)")
    }

    @Test("a duplicate is caught below and above the hash threshold", arguments: [4, 15, 16, 17, 150, 251])
    func duplicates(position: Int) throws {
        // 252 attributes lat, lon, a0, a1, …; the one at index `position` (0-based) repeats a1 (index 3).
        var names = ["lat", "lon"] + (0..<250).map { "a\($0)" }
        names[position] = "a1"
        let extra = names.dropFirst(2).map { " \($0)=\"1\"" }.joined()
        let xml = Self.document(pointAttributes: extra)
        let (error, _) = Self.read(Data(xml.utf8))
        let e = try #require(error)
        #expect(e.code == .malformedXML)
        #expect(e.message == "duplicate attribute a1 in <trkpt>")
        let before = "<trkpt lat=\"46\" lon=\"14\"" + names[2..<position].map { " \($0)=\"1\"" }.joined() + " "
        #expect(e.location == SourceLocation(file: "bomb.gpx", line: 3, column: before.utf8.count + 1))
    }

    @Test("names that differ only in length or in the last byte are not duplicates")
    func nearDuplicates() throws {
        let extra = (0..<100).map { " n\(String(repeating: "x", count: $0))=\"1\" m\($0)=\"1\"" }.joined()
        _ = try GPXDocument(data: Data(Self.document(pointAttributes: extra).utf8))
    }

    @Test("the duplicate check's work grows linearly with the number of attributes")
    func duplicateCheckIsLinear() throws {
        func probes(_ n: Int, options: GPXReadOptions = GPXReadOptions()) throws -> Int {
            // n attributes on the <trkpt> (lat, lon and n - 2 more); the root and the other elements add 3.
            try Self.duplicateCheckProbes(Self.document(pointAttributes: Self.attributes(0..<(n - 2))), options: options)
        }
        let small = try probes(32), large = try probes(256)
        // A comparison with every earlier attribute would be 32·31/2 = 496 and 256·255/2 = 32,640.
        #expect(large <= 2 * 256, "\(large) probes for 256 attributes")
        #expect(Double(large) / Double(small) <= 8 * 2, "\(small) → \(large)")
        let lifted = GPXReadOptions(maxAttributes: .max)
        let n10k = try probes(10_000, options: lifted), n80k = try probes(80_000, options: lifted)
        // About one probe per attribute; quadratic would be 50 million and 3.2 billion (ratio 64).
        #expect(n80k <= 2 * 80_000, "\(n80k) probes for 80,000 attributes")
        #expect(Double(n80k) / Double(n10k) <= 8 * 2, "\(n10k) → \(n80k)")
    }

    // MARK: element and point limits

    @Test("a document with more elements than maxElements is refused at the first one over")
    func elementLimit() throws {
        let xml = GPXTestSupport.track(String(repeating: "<trkpt lat=\"1\" lon=\"2\"/>\n", count: 10))
        // gpx, trk, trkseg and 10 trkpt: 13 elements.
        _ = try GPXDocument(data: Data(xml.utf8), options: GPXReadOptions(maxElements: 13))
        let (error, _) = Self.read(Data(xml.utf8), options: GPXReadOptions(maxElements: 12))
        let e = try #require(error)
        #expect(e.code == .malformedXML)
        #expect(e.message == "<trkpt> is element 13; the document may have at most 12 (the limit, GPXReadOptions.maxElements)")
        #expect(e.location == SourceLocation(file: "bomb.gpx", line: 13, column: 1))
    }

    @Test("a document with more points than maxPoints is refused, also in lenient mode", arguments: [false, true])
    func pointLimit(lenient: Bool) throws {
        let xml = GPXTestSupport.track((0..<6).map { "<trkpt lat=\"1\" lon=\"\($0)\"><time>2026-11-23T10:00:0\($0)Z</time></trkpt>" }
                                           .joined(separator: "\n"))
        let fits = try GPXDocument(data: Data(xml.utf8), options: GPXReadOptions(lenient: lenient, maxPoints: 6))
        #expect(fits.tracks.first?.points.count == 6)
        let (error, _) = Self.read(Data(xml.utf8), options: GPXReadOptions(lenient: lenient, maxPoints: 5))
        let e = try #require(error)
        #expect(e.code == .malformedXML)
        #expect(e.message == "<trkpt> is point 6; the document may have at most 5 "
                + "(<wpt>, <rtept> and <trkpt> together; the limit, GPXReadOptions.maxPoints)")
        #expect(e.location == SourceLocation(file: "bomb.gpx", line: 9, column: 1))
    }

    @Test("waypoints and route points count towards maxPoints")
    func pointLimitCountsAllPoints() throws {
        let xml = """
        <gpx version="1.1" creator="x"><wpt lat="1" lon="1"/><rte><rtept lat="1" lon="1"/></rte>
        <trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>
        """
        _ = try GPXDocument(data: Data(xml.utf8), options: GPXReadOptions(maxPoints: 3))
        let (error, _) = Self.read(Data(xml.utf8), options: GPXReadOptions(maxPoints: 2))
        #expect(error?.message.hasPrefix("<trkpt> is point 3;") == true)
    }

    @Test("the defaults put no cap on elements or points")
    func defaultsHaveNoCountLimits() {
        let options = GPXReadOptions()
        #expect(options.maxAttributes == 256)
        #expect(options.maxElements == nil)
        #expect(options.maxPoints == nil)
    }

    // MARK: cancellation

    @Test("a parse started in a task that is already cancelled throws the cancellation error")
    func alreadyCancelled() async throws {
        let data = Data(GPXTestSupport.track("<trkpt lat=\"1\" lon=\"2\"/>").utf8)
        let error = await Task { () -> GeoError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(GeoError) { _ = try GPXDocument(data: data, name: "upload.gpx"); return nil } catch { return error }
        }.value
        let e = try #require(error)
        #expect(e.code == .cancelled)
        #expect(e.message.contains("cancelled"))
        #expect(e.location?.file == "upload.gpx")
    }

    @Test("cancelling the task mid-parse stops the reader within a few thousand tokens")
    func cancelledMidway() async throws {
        let points = (0..<20_000).map { _ in "<trkpt lat=\"1\" lon=\"2\"><time>2026-11-23T10:00:00Z</time></trkpt>" }
        let data = Data(GPXTestSupport.track(points.joined(separator: "\n")).utf8)
        let (events, error) = await Task { () -> (Int, GeoError?) in
            var events = 0
            do throws(GeoError) {
                var reader = try GPXReader(data: data, name: "big.gpx")
                while try reader.next() != nil {
                    events += 1
                    if events == 100 { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return (events, nil)
            } catch {
                return (events, error)
            }
        }.value
        #expect(error?.code == .cancelled)
        #expect(events >= 100 && events <= 100 + XMLTokenizer.cancellationCheckInterval, "\(events) events")
    }

    @Test("outside a task, or in one that is not cancelled, nothing changes")
    func notCancelled() async throws {
        let data = Data(GPXTestSupport.track("<trkpt lat=\"1\" lon=\"2\"/>").utf8)
        let doc = try await Task { try GPXDocument(data: data) }.value
        #expect(doc.tracks.first?.points.count == 1)
    }

    // MARK: bounded echoes

    /// `<trkpt …` bodies that make the reader quote a huge value or name in its error.
    enum HugeEcho: String, CaseIterable {
        case latitude, elevation, time, fix, duplicateName, mismatchedEndTag

        var body: String {
            let huge = String(repeating: "q", count: 1_000_000)
            switch self {
            case .latitude: return "lat=\"\(String(repeating: "9", count: 1_000_000))\" lon=\"1\"/>"
            case .elevation: return "lat=\"1\" lon=\"1\"><ele>\(huge)</ele></trkpt>"
            case .time: return "lat=\"1\" lon=\"1\"><time>\(String(repeating: "é", count: 500_000))</time></trkpt>"
            case .fix: return "lat=\"1\" lon=\"1\"><fix>\(huge)</fix></trkpt>"
            case .duplicateName: return "lat=\"1\" lon=\"1\" \(huge)=\"1\" \(huge)=\"1\"/>"
            case .mismatchedEndTag: return "lat=\"1\" lon=\"1\"><\(huge)></trkpt>"
            }
        }
    }

    @Test("an error message repeats at most 64 bytes of a huge value or name", arguments: HugeEcho.allCases)
    func boundedEcho(echo: HugeEcho) throws {
        let xml = GPXTestSupport.track("<trkpt " + echo.body)
        let (error, _) = Self.read(Data(xml.utf8))
        let e = try #require(error)
        #expect(e.message.utf8.count < 300, "\(e.message.utf8.count) bytes: \(e.message.prefix(200))")
        #expect(e.message.contains("…"), "\(e.message.prefix(200))")
    }

    @Test("excerpts cut at a character boundary and leave short text alone")
    func excerpts() {
        #expect(XMLTokenizer.excerpt("short") == "short")
        #expect(XMLTokenizer.excerpt(String(repeating: "a", count: 64)) == String(repeating: "a", count: 64))
        #expect(XMLTokenizer.excerpt(String(repeating: "a", count: 65)) == String(repeating: "a", count: 64) + "…")
        // "é" is two bytes: 64 bytes end between characters only after 32 of them.
        #expect(XMLTokenizer.excerpt("a" + String(repeating: "é", count: 40)) == "a" + String(repeating: "é", count: 31) + "…")
    }

    @Test("the invalid-latitude message still quotes a short value whole")
    func shortValueUnchanged() throws {
        let error = try #require(GPXTestSupport.error(GPXTestSupport.track("<trkpt lat=\"91.5\" lon=\"2\"/>")))
        #expect(error.message == "invalid latitude \"91.5\" on <trkpt>; expected a number in [-90, 90]")
    }
}
