import Foundation

extension GPXWriter {
    mutating func element(_ tag: String, _ value: String?, indent: String) {
        guard let value else { return }
        write(indent); write("<\(tag)>"); write(GPXWriter.escape(value)); write("</\(tag)>\n")
    }

    mutating func element(_ tag: String, _ value: Double?, indent: String) {
        guard let value, value.isFinite else { return }
        write(indent); write("<\(tag)>"); write(GPXWriter.decimal(value)); write("</\(tag)>\n")
    }

    mutating func element(_ tag: String, _ value: Int?, indent: String) {
        guard let value else { return }
        write(indent); write("<\(tag)>\(value)</\(tag)>\n")
    }

    mutating func element(_ tag: String, _ value: Date?, indent: String) {
        guard let value else { return }
        write(indent); write("<\(tag)>"); write(GPXTime.format(value)); write("</\(tag)>\n")
    }

    mutating func writeLink(_ link: GPXLink, indent: String) {
        write(indent); write("<link href=\""); write(GPXWriter.escape(link.href, attribute: true))
        if link.text == nil && link.type == nil { write("\"/>\n"); return }
        write("\">\n")
        element("text", link.text, indent: indent + "  ")
        element("type", link.type, indent: indent + "  ")
        write(indent); write("</link>\n")
    }

    mutating func writeRawExtensions(_ raw: [String], indent: String) {
        guard !raw.isEmpty else { return }
        write(String(indent.dropLast(2))); write("<extensions>\n")
        for fragment in raw { write(indent); write(GPXWriter.qualifiedExtension(fragment)); write("\n") }
        write(String(indent.dropLast(2))); write("</extensions>\n")
    }

    mutating func writeMetadata(_ m: GPXMetadata) {
        write("  <metadata>\n")
        let i = "    "
        element("name", m.name, indent: i)
        element("desc", m.description, indent: i)
        if let author = m.author {
            write("    <author>\n")
            element("name", author.name, indent: i + "  ")
            if let email = author.email, let at = email.lastIndex(of: "@") {
                write("      <email id=\""); write(GPXWriter.escape(String(email[..<at]), attribute: true))
                write("\" domain=\""); write(GPXWriter.escape(String(email[email.index(after: at)...]), attribute: true))
                write("\"/>\n")
            }
            if let link = author.link { writeLink(link, indent: i + "  ") }
            write("    </author>\n")
        }
        if let c = m.copyright {
            write("    <copyright author=\""); write(GPXWriter.escape(c.author, attribute: true)); write("\">\n")
            element("year", c.year, indent: i + "  ")
            element("license", c.license, indent: i + "  ")
            write("    </copyright>\n")
        }
        for link in m.links { writeLink(link, indent: i) }
        element("time", m.time, indent: i)
        element("keywords", m.keywords, indent: i)
        if let b = m.bounds {
            write("    <bounds minlat=\"\(GPXWriter.decimal(b.minLatitude))\" minlon=\"\(GPXWriter.decimal(b.minLongitude))\"")
            write(" maxlat=\"\(GPXWriter.decimal(b.maxLatitude))\" maxlon=\"\(GPXWriter.decimal(b.maxLongitude))\"/>\n")
        }
        writeRawExtensions(m.extensions, indent: i + "  ")
        write("  </metadata>\n")
    }

    mutating func writePathInfo(_ info: PathInfo) {
        let i = "    "
        element("name", info.name, indent: i)
        element("cmt", info.comment, indent: i)
        element("desc", info.description, indent: i)
        element("src", info.source, indent: i)
        for link in info.links { writeLink(link, indent: i) }
        element("number", info.number, indent: i)
        element("type", info.type, indent: i)
        writeRawExtensions(info.extensions, indent: i + "  ")
    }

    mutating func writePoint(_ p: Waypoint, tag: String, indent: String) {
        write(indent); write("<\(tag) lat=\""); write(GPXWriter.decimal(p.coordinate.latitude))
        write("\" lon=\""); write(GPXWriter.decimal(p.coordinate.longitude)); write("\">\n")
        let i = indent + "  "
        element("ele", p.elevation, indent: i)
        element("time", p.time, indent: i)
        let d = p.details
        element("magvar", d.magneticVariation, indent: i)
        element("geoidheight", d.geoidHeight, indent: i)
        element("name", d.name, indent: i)
        element("cmt", d.comment, indent: i)
        element("desc", d.description, indent: i)
        element("src", d.source, indent: i)
        for link in d.links { writeLink(link, indent: i) }
        element("sym", d.symbol, indent: i)
        element("type", d.type, indent: i)
        element("fix", p.fix?.rawValue, indent: i)
        element("sat", p.satellites, indent: i)
        element("hdop", p.hdop, indent: i)
        element("vdop", p.vdop, indent: i)
        element("pdop", p.pdop, indent: i)
        element("ageofdgpsdata", d.ageOfDGPSData, indent: i)
        element("dgpsid", d.dgpsID, indent: i)
        writePointExtensions(p, indent: i)
        write(indent); write("</\(tag)>\n")
    }

    private mutating func writePointExtensions(_ p: Waypoint, indent: String) {
        let e = p.extensions
        let finite: (Double?) -> Double? = { v in v.flatMap { $0.isFinite ? $0 : nil } }
        let hasTPX = finite(e.temperature) != nil || finite(e.waterTemperature) != nil || e.heartRate != nil
            || e.cadence != nil || finite(p.speed) != nil || finite(p.course) != nil
        let power = finite(e.power)
        guard hasTPX || power != nil || !e.raw.isEmpty else { return }
        write(indent); write("<extensions>\n")
        let i = indent + "  "
        if hasTPX {
            write(i); write("<gpxtpx:TrackPointExtension>\n")
            let j = i + "  "
            element("gpxtpx:atemp", e.temperature, indent: j)
            element("gpxtpx:wtemp", e.waterTemperature, indent: j)
            element("gpxtpx:hr", e.heartRate, indent: j)
            element("gpxtpx:cad", e.cadence, indent: j)
            element("gpxtpx:speed", p.speed, indent: j)
            element("gpxtpx:course", p.course, indent: j)
            write(i); write("</gpxtpx:TrackPointExtension>\n")
        }
        element("pwr:PowerInWatts", power, indent: i)
        for fragment in e.raw { write(i); write(GPXWriter.qualifiedExtension(fragment)); write("\n") }
        write(indent); write("</extensions>\n")
    }
}
