import Foundation
import Testing
@testable import WaymarkGeo

@Suite("GPX reader")
struct GPXReaderTests {
    @Test("reads a GPX 1.0 file with speed, course and dilution fields")
    func gpx10SpeedCourse() throws {
        let doc = try GPXTestSupport.document("""
        <gpx version="1.0" creator="x" xmlns="http://www.topografix.com/GPX/1/0">
          <time>2009-03-02T14:05:00Z</time>
          <trk><trkseg><trkpt lat="52.330848" lon="5.541371"><ele>48.96</ele><time>2009-03-02T14:05:52Z</time>
            <course>271.5</course><speed>1.2</speed><fix>3d</fix><sat>7</sat><hdop>0.9</hdop><vdop>1.4</vdop><pdop>1.7</pdop>
          </trkpt></trkseg></trk>
        </gpx>
        """)
        #expect(doc.version == "1.0")
        let p = try #require(doc.tracks.first?.points.first)
        #expect(p.coordinate.latitude == 52.330848 && p.coordinate.longitude == 5.541371)
        #expect(p.elevation == 48.96)
        #expect(p.speed == 1.2 && p.course == 271.5)
        #expect(p.fix == .threeD && p.satellites == 7)
        #expect(p.hdop == 0.9 && p.vdop == 1.4 && p.pdop == 1.7)
        #expect(p.time == Date(timeIntervalSince1970: 1_236_002_752))
        #expect(doc.metadata.time == Date(timeIntervalSince1970: 1_236_002_700))
    }

    @Test("converts times with fractional seconds and zone offsets to UTC", arguments: [
        ("2024-05-01T10:00:00Z", 1_714_557_600.0),
        ("2024-05-01T10:00:00.250Z", 1_714_557_600.25),
        ("2024-05-01T12:00:00+02:00", 1_714_557_600.0),
        ("2024-05-01T05:30:00.5-04:30", 1_714_557_600.5),
        ("2024-05-01T10:00:00", 1_714_557_600.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
    ])
    func times(text: String, unix: Double) throws {
        let doc = try GPXTestSupport.document(GPXTestSupport.track("<trkpt lat=\"1\" lon=\"2\"><time>\(text)</time></trkpt>"))
        let time = try #require(doc.tracks.first?.points.first?.time)
        #expect(abs(time.timeIntervalSince1970 - unix) < 1e-6)
    }

    @Test("reads Garmin TrackPointExtension v1/v2 and power as typed fields, keeps unknown extensions raw")
    func extensions() throws {
        let doc = try GPXTestSupport.document("""
        <gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" xmlns:acme="urn:acme">
        <trk><trkseg><trkpt lat="46" lon="14"><extensions>
          <ns3:TrackPointExtension><ns3:atemp>21.5</ns3:atemp><ns3:wtemp>18</ns3:wtemp><ns3:hr>142</ns3:hr><ns3:cad>88</ns3:cad></ns3:TrackPointExtension>
          <power>250</power>
          <acme:battery level="80">ok</acme:battery>
        </extensions></trkpt></trkseg></trk></gpx>
        """)
        let e = try #require(doc.tracks.first?.points.first?.extensions)
        #expect(e.heartRate == 142 && e.cadence == 88)
        #expect(e.temperature == 21.5 && e.waterTemperature == 18)
        #expect(e.power == 250)
        #expect(e.raw == ["<acme:battery xmlns:acme=\"urn:acme\" level=\"80\">ok</acme:battery>"])
    }

    @Test("matches elements on local names when the GPX namespace has a prefix")
    func prefixedNamespace() throws {
        let doc = try GPXTestSupport.document("""
        <g:gpx xmlns:g="http://www.topografix.com/GPX/1/1" version="1.1" creator="x">
          <g:wpt lat="1.5" lon="2.5"><g:name>Hut</g:name></g:wpt>
        </g:gpx>
        """)
        #expect(doc.waypoints.first?.details.name == "Hut")
    }

    @Test("decodes CDATA, predefined entities and character references; skips comments, PIs and DOCTYPE")
    func textDecoding() throws {
        let doc = try GPXTestSupport.document("""
        <?xml version="1.0"?>
        <!DOCTYPE gpx [ <!ELEMENT gpx ANY> ]>
        <?some-pi data?>
        <gpx version="1.1" creator="A &amp; B">
          <!-- a comment with <tags> -->
          <wpt lat="1" lon="2"><name>Caf&#233; &lt;&#x1F6B2;&gt; &quot;x&quot; &apos;y&apos;</name>
            <desc><![CDATA[<b>bold</b> & raw]]> tail<!-- c --> end</desc></wpt>
        </gpx>
        """)
        #expect(doc.creator == "A & B")
        #expect(doc.waypoints.first?.details.name == "Café <🚲> \"x\" 'y'")
        #expect(doc.waypoints.first?.details.description == "<b>bold</b> & raw tail end")
    }

    @Test("reads UTF-8 with BOM and UTF-16 LE/BE with and without BOM", arguments: [
        ("utf8-bom", 0), ("utf16le-bom", 1), ("utf16be-bom", 2), ("utf16le", 3), ("utf16be", 4),
    ])
    func encodings(label: String, kind: Int) throws {
        let xml = "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"x\"><wpt lat=\"1\" lon=\"2\"><name>Žirovnica 🚲</name></wpt></gpx>"
        var data = Data()
        switch kind {
        case 0: data = Data([0xEF, 0xBB, 0xBF]) + Data(xml.utf8)
        case 1, 3:
            if kind == 1 { data.append(contentsOf: [0xFF, 0xFE]) }
            for u in xml.utf16 { data.append(UInt8(u & 0xFF)); data.append(UInt8(u >> 8)) }
        default:
            if kind == 2 { data.append(contentsOf: [0xFE, 0xFF]) }
            for u in xml.utf16 { data.append(UInt8(u >> 8)); data.append(UInt8(u & 0xFF)) }
        }
        let doc = try GPXDocument(data: data, name: label)
        #expect(doc.waypoints.first?.details.name == "Žirovnica 🚲")
    }

    @Test("reads ISO-8859-1 declared files")
    func latin1() throws {
        var data = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx version=\"1.1\" creator=\"x\"><wpt lat=\"1\" lon=\"2\"><name>Gr".utf8)
        data.append(0xFC) // ü
        data.append(contentsOf: Array("n</name></wpt></gpx>".utf8))
        #expect(try GPXDocument(data: data).waypoints.first?.details.name == "Grün")
    }

    @Test("streams events in file order with track and segment boundaries")
    func eventOrder() throws {
        let xml = """
        <gpx version="1.1" creator="x"><metadata><name>M</name></metadata><wpt lat="0" lon="0"/>
        <rte><name>R</name><rtept lat="1" lon="1"/></rte>
        <trk><name>T</name><trkseg><trkpt lat="2" lon="2"/></trkseg><trkseg/></trk></gpx>
        """
        let names = try GPXTestSupport.events(Data(xml.utf8)).map { e -> String in
            switch e {
            case .document: "doc"
            case .metadata(let m): "meta:\(m.name ?? "")"
            case .waypoint: "wpt"
            case .routeBegin(let i): "rte:\(i.name ?? "")"
            case .routePoint: "rtept"
            case .routeEnd: "/rte"
            case .trackBegin(let i): "trk:\(i.name ?? "")"
            case .segmentBegin: "seg"
            case .trackPoint: "trkpt"
            case .segmentEnd: "/seg"
            case .trackEnd: "/trk"
            case .extensions: "ext"
            case .issue: "issue"
            }
        }
        #expect(names == ["doc", "meta:M", "wpt", "rte:R", "rtept", "/rte", "trk:T", "seg", "trkpt", "/seg", "seg", "/seg", "/trk"])
    }

    @Test("streams a file far larger than its buffer in constant memory, token boundaries anywhere")
    func largeStream() throws {
        var xml = "<gpx version=\"1.1\" creator=\"x\"><trk><trkseg>\n"
        for i in 0..<20_000 {
            xml += "<trkpt lat=\"\(Double(i % 90) + 0.123456789)\" lon=\"\(Double(i % 180) - 0.5)\"><ele>\(i)</ele><time>2024-05-01T10:00:00Z</time></trkpt>\n"
        }
        xml += "</trkseg></trk></gpx>"
        var reader = try GPXReader(data: Data(xml.utf8), options: GPXReadOptions(chunkSize: 4096))
        var count = 0
        var lastElevation = -1.0
        while let e = try reader.next() {
            if case .trackPoint(let p) = e {
                #expect(p.elevation == lastElevation + 1)
                lastElevation = p.elevation ?? -1
                count += 1
            }
        }
        #expect(count == 20_000)
        #expect(reader.bytesRead == xml.utf8.count)
    }

    @Test("normalises longitude 180 to -180 and keeps empty elements as absent")
    func edgeValues() throws {
        let doc = try GPXTestSupport.document(GPXTestSupport.track("<trkpt lat=\"-90\" lon=\"180\"><ele></ele><fix/><name/></trkpt>"))
        let p = try #require(doc.tracks.first?.points.first)
        #expect(p.coordinate.longitude == -180 && p.coordinate.latitude == -90)
        #expect(p.elevation == nil && p.fix == nil && p.details.isEmpty)
    }
}
