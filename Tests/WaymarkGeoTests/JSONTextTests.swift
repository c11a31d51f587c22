import Foundation
import Testing
import WaymarkGeo

/// The package's one JSON string and number writer.
@Suite("JSONText")
struct JSONTextTests {
    @Test("strings: quotes, backslash and control characters escaped; the result parses back to the input")
    func quoted() throws {
        let input = "a \"b\" \\ c\n\r\t\u{01}\u{1F} é 🚲"
        let text = JSONText.quoted(input)
        #expect(text == #""a \"b\" \\ c\n\r\t\u0001\u001f é 🚲""#)
        let parsed = try JSONSerialization.jsonObject(with: Data(("[" + text + "]").utf8)) as? [String]
        #expect(parsed == [input])
    }

    @Test("numbers: whole numbers without a fraction, others round-trip, non-finite as null")
    func numbers() {
        #expect(JSONText.number(5) == "5")
        #expect(JSONText.number(-0.25) == "-0.25")
        #expect(Double(JSONText.number(46.051234567891)) == 46.051234567891)
        #expect(JSONText.number(.nan) == "null")
        #expect(JSONText.number(.infinity) == "null")
    }
}
