import Foundation

/// The GPX element names the reader knows, matched on the local name (after any prefix). Internal.
enum GPXTag: UInt8 {
    case unknown
    case gpx
    case metadata
    case wpt
    case rte
    case rtept
    case trk
    case trkseg
    case trkpt
    case extensions
    case ele
    case time
    case magvar
    case geoidheight
    case name
    case cmt
    case desc
    case src
    case link
    case url
    case urlname
    case sym
    case type
    case fix
    case sat
    case hdop
    case vdop
    case pdop
    case ageofdgpsdata
    case dgpsid
    case number
    case speed
    case course
    case author
    case email
    case copyright
    case year
    case license
    case keywords
    case bounds
    case text
    case hr
    case cad
    case atemp
    case wtemp
    case power
    case powerInWatts
    case trackPointExtension

    /// The tag for the local part of the name in bytes `[s, e)` of `p`.
    static func match(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int) -> GPXTag {
        var start = s
        var k = e - 1
        while k > s {
            if p[k] == UInt8(ascii: ":") { start = k + 1; break }
            k -= 1
        }
        let q = p + start
        @inline(__always) func eq(_ name: StaticString) -> Bool { XMLTokenizer.bytesEqual(q, name.utf8Start, name.utf8CodeUnitCount) }
        switch e - start {
        case 2:
            if eq("hr") { return .hr }
            return .unknown
        case 3:
            if eq("gpx") { return .gpx }
            if eq("wpt") { return .wpt }
            if eq("rte") { return .rte }
            if eq("trk") { return .trk }
            if eq("ele") { return .ele }
            if eq("cmt") { return .cmt }
            if eq("src") { return .src }
            if eq("url") { return .url }
            if eq("sym") { return .sym }
            if eq("fix") { return .fix }
            if eq("sat") { return .sat }
            if eq("cad") { return .cad }
            return .unknown
        case 4:
            if eq("time") { return .time }
            if eq("name") { return .name }
            if eq("desc") { return .desc }
            if eq("link") { return .link }
            if eq("type") { return .type }
            if eq("hdop") { return .hdop }
            if eq("vdop") { return .vdop }
            if eq("pdop") { return .pdop }
            if eq("year") { return .year }
            if eq("text") { return .text }
            return .unknown
        case 5:
            if eq("rtept") { return .rtept }
            if eq("trkpt") { return .trkpt }
            if eq("speed") { return .speed }
            if eq("email") { return .email }
            if eq("atemp") { return .atemp }
            if eq("wtemp") { return .wtemp }
            if eq("power") { return .power }
            return .unknown
        case 6:
            if eq("trkseg") { return .trkseg }
            if eq("magvar") { return .magvar }
            if eq("dgpsid") { return .dgpsid }
            if eq("number") { return .number }
            if eq("course") { return .course }
            if eq("author") { return .author }
            if eq("bounds") { return .bounds }
            return .unknown
        case 7:
            if eq("urlname") { return .urlname }
            if eq("license") { return .license }
            return .unknown
        case 8:
            if eq("metadata") { return .metadata }
            if eq("keywords") { return .keywords }
            return .unknown
        case 9:
            if eq("copyright") { return .copyright }
            return .unknown
        case 10:
            if eq("extensions") { return .extensions }
            return .unknown
        case 11:
            if eq("geoidheight") { return .geoidheight }
            return .unknown
        case 12:
            if eq("PowerInWatts") { return .powerInWatts }
            return .unknown
        case 13:
            if eq("ageofdgpsdata") { return .ageofdgpsdata }
            return .unknown
        case 19:
            if eq("TrackPointExtension") { return .trackPointExtension }
            return .unknown
        default:
            return .unknown
        }
    }
}
