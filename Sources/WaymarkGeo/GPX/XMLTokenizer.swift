import Foundation

/// A byte-level, pull XML tokenizer over a sliding buffer of UTF-8 (internal).
///
/// It checks well-formedness (matching tags, attribute syntax, quoting, entity
/// references, a single root) and skips comments, processing instructions and
/// the DOCTYPE. Names and values are handed out as byte ranges into the
/// buffer, valid until the next call to ``next()``; nothing is allocated per
/// element once the buffers have warmed up. Memory is bounded by
/// `maxTokenBytes` (the longest single tag, text run or comment) and
/// `maxDepth`; work is linear in the input: duplicate attributes are found by
/// a short scan up to ``hashedDuplicateCheckThreshold`` attributes and through
/// a reused hash table above it, and an element may have at most
/// `maxAttributes` of them. Every ``cancellationCheckInterval`` tokens the
/// current task's cancellation is checked (a `.cancelled` ``GeoError``).
final class XMLTokenizer {
    enum Token: Equatable { case startTag, endTag, text, end }

    struct Attribute {
        var nameStart: Int, nameEnd: Int, valueStart: Int, valueEnd: Int
        var hasEntity: Bool
    }

    let input: GPXInput
    @exclusivity(unchecked) private(set) var buf: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    private let maxCapacity: Int
    let maxDepth: Int
    /// The most attributes one element may have.
    let maxAttributes: Int
    /// The most start tags one document may have (`Int.max`: no limit).
    let maxElements: Int
    @exclusivity(unchecked) var pos = 0
    @exclusivity(unchecked) var end = 0
    @exclusivity(unchecked) private var eof = false
    /// Absolute offset of `buf[0]` in the (UTF-8) input.
    @exclusivity(unchecked) private(set) var base = 0
    @exclusivity(unchecked) private var countedTo = 0
    @exclusivity(unchecked) private var line = 1
    @exclusivity(unchecked) private var lineStart = 0

    // The current token.
    @exclusivity(unchecked) private(set) var tokenStart = 0
    @exclusivity(unchecked) var nameStart = 0
    @exclusivity(unchecked) var nameEnd = 0
    /// The current start tag's attributes (valid until the next call to ``next()``).
    var attributes: UnsafeBufferPointer<Attribute> { UnsafeBufferPointer(start: attributeStorage, count: attributeCount) }
    @exclusivity(unchecked) private var attributeStorage: UnsafeMutablePointer<Attribute>
    @exclusivity(unchecked) private var attributeCapacity = 8
    @exclusivity(unchecked) private var attributeCount = 0
    /// Open-addressing hash table over the current element's attributes (index + 1; 0 is
    /// empty), used from ``hashedDuplicateCheckThreshold`` attributes on. Its first
    /// `slotMask + 1` slots are in use; the allocation is kept for later elements.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Int>?
    @exclusivity(unchecked) private var slotCapacity = 0
    @exclusivity(unchecked) private var slotMask = 0
    /// Earlier attributes (or hash slots) looked at by the duplicate check so far, for tests
    /// showing the check is linear.
    @exclusivity(unchecked) private(set) var duplicateCheckProbes = 0
    /// Start tags read so far.
    @exclusivity(unchecked) private(set) var elementCount = 0
    /// Loop turns of ``next()`` left before the next cancellation check.
    @exclusivity(unchecked) private var untilCancellationCheck = 0
    @exclusivity(unchecked) var isEmptyElement = false
    /// Whether the current start tag has an attribute whose name starts with `xmlns`.
    @exclusivity(unchecked) private(set) var hasNamespaceDeclaration = false
    @exclusivity(unchecked) var textStart = 0
    @exclusivity(unchecked) var textEnd = 0
    @exclusivity(unchecked) var textHasEntity = false
    @exclusivity(unchecked) var textIsCDATA = false
    @exclusivity(unchecked) private var pendingEnd = false

    // Open elements, for matching end tags.
    /// Names of the open elements, back to back; `stackStarts[d]` is where depth `d`'s name starts.
    @exclusivity(unchecked) var stackBytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var stackCapacity = 1024
    @exclusivity(unchecked) var stackCount = 0
    let stackStarts: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) var openCount = 0
    /// Absolute offset that refills must keep in the buffer (the start of a leaf's text), or -1.
    @exclusivity(unchecked) var pinned = -1
    @exclusivity(unchecked) private var sawRoot = false

    /// Below this many attributes on an element duplicates are found by comparing with each
    /// earlier one (no allocation, the common case); from it on, through the hash table.
    static let hashedDuplicateCheckThreshold = 16
    /// Tokens (turns of the ``next()`` loop) between two checks of `Task.isCancelled`.
    static let cancellationCheckInterval = 4096
    /// The longest excerpt of a name or value an error message repeats, in bytes (then "…").
    static let maxEchoedBytes = 64

    init(input: GPXInput, chunkSize: Int, maxTokenBytes: Int, maxDepth: Int,
         maxAttributes: Int = GPXReadOptions.defaultMaxAttributes, maxElements: Int? = nil) {
        self.input = input
        capacity = max(chunkSize, 4096)
        maxCapacity = max(maxTokenBytes, capacity)
        self.maxDepth = maxDepth
        self.maxAttributes = max(maxAttributes, 1)
        self.maxElements = maxElements ?? Int.max
        buf = .allocate(capacity: capacity)
        attributeStorage = .allocate(capacity: attributeCapacity)
        stackBytes = .allocate(capacity: stackCapacity)
        stackStarts = .allocate(capacity: maxDepth + 1)
    }

    deinit {
        buf.deallocate()
        attributeStorage.deallocate()
        stackBytes.deallocate()
        stackStarts.deallocate()
        slots?.deallocate()
    }

    /// The name of the innermost open element.
    private var openName: String {
        let start = stackStarts[openCount - 1]
        return XMLTokenizer.excerpt(UnsafeBufferPointer(start: stackBytes + start, count: stackCount - start))
    }

    /// Number of currently open elements.
    var depth: Int { openCount }

    /// Reads the next token.
    func next() throws(GeoError) -> Token {
        if pendingEnd {
            pendingEnd = false
            return .endTag
        }
        while true {
            untilCancellationCheck &-= 1
            if untilCancellationCheck < 0 { try checkCancellation() }
            tokenStart = pos
            if pos == end {
                if try refill() { continue }
                if openCount > 0 {
                    throw malformed("unexpected end of input; expected </\(openName)>", at: pos)
                }
                if !sawRoot { throw GeoError(.invalidGPX, "the input has no root element; expected <gpx>", at: location(at: pos)) }
                return .end
            }
            let complete: Bool
            let token: Token?
            if buf[pos] != UInt8(ascii: "<") {
                (complete, token) = try scanText()
            } else {
                (complete, token) = try scanMarkup()
            }
            if !complete {
                let scanned = end - tokenStart
                pos = tokenStart
                if try refill() == false {
                    if buf[tokenStart] != UInt8(ascii: "<") { continue }   // trailing text at the end of input
                    throw malformed("unexpected end of input inside markup", at: tokenStart)
                }
                // The token is scanned again from its start: read until at least twice what was
                // scanned is buffered, so the rescans of a token longer than a chunk add up to
                // O(its length) instead of O(length² / chunk size).
                let target = min(tokenStart + 2 * scanned, maxCapacity - 16)
                while end < target, try refill() {}
                continue
            }
            if let token { return token }
        }
    }

    /// Throws a `.cancelled` error when the current task is cancelled; schedules the next check.
    private func checkCancellation() throws(GeoError) {
        untilCancellationCheck = XMLTokenizer.cancellationCheckInterval
        if Task.isCancelled {
            throw GeoError(.cancelled, "reading was cancelled (the task reading the GPX was cancelled)",
                           at: location(at: pos))
        }
    }

    /// Moves the unread bytes to the front and reads more; false at the end of input.
    private func refill() throws(GeoError) -> Bool {
        if eof { return false }
        let keepFrom = pinned >= 0 ? min(tokenStart, pinned - base) : tokenStart
        if keepFrom > 0 {
            countLines(upTo: base + keepFrom)
            let keep = end - keepFrom
            if keep > 0 { buf.update(from: buf + keepFrom, count: keep) }
            base += keepFrom
            pos -= keepFrom
            end = keep
            tokenStart -= keepFrom
        }
        if capacity - end < 16 {
            guard capacity < maxCapacity else {
                throw GeoError(.malformedXML, "a single tag, text or comment is longer than \(maxCapacity) bytes",
                               at: location(at: 0))
            }
            let newCapacity = min(maxCapacity, capacity * 2)
            let newBuf = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBuf.update(from: buf, count: end)
            buf.deallocate()
            buf = newBuf
            capacity = newCapacity
        }
        let n = try input.read(into: buf + end, capacity: capacity - end)
        if n == 0 { eof = true; return false }
        end += n
        return true
    }

    // MARK: text

    private func scanText() throws(GeoError) -> (Bool, Token?) {
        let p = buf
        // Short runs (whitespace between tags, numbers, times) are scanned inline in one pass
        // for '<' and '&'; the rest of a long run is left to memchr.
        var i = pos
        var amp = false
        let limit = min(end, pos &+ 64)
        while i < limit {
            let c = p[i]
            if c == 0x3C { break }
            if c == 0x26 { amp = true }
            i &+= 1
        }
        var stop = -1
        if i < limit {
            stop = i
        } else if i < end, let hit = memchr(p + i, 0x3C, end - i) {
            stop = UnsafeMutableRawPointer(hit).assumingMemoryBound(to: UInt8.self) - p
        } else if eof {
            stop = end
        } else {
            return (false, nil)
        }
        if !amp && stop > i { amp = memchr(p + i, 0x26, stop - i) != nil }
        textStart = pos
        textEnd = stop
        textIsCDATA = false
        textHasEntity = amp
        pos = stop
        if openCount == 0 {
            for i in textStart..<textEnd where !XMLTokenizer.isSpace(p[i]) {
                throw malformed("text outside the root element", at: i)
            }
            return (true, nil)
        }
        return (true, .text)
    }

    // MARK: markup

    private func scanMarkup() throws(GeoError) -> (Bool, Token?) {
        guard pos + 1 < end else { return (false, nil) }
        switch buf[pos + 1] {
        case UInt8(ascii: "/"):
            return (try scanEndTag(), .endTag)
        case UInt8(ascii: "?"):
            guard let close = find2(UInt8(ascii: "?"), UInt8(ascii: ">"), from: pos + 2) else { return (false, nil) }
            pos = close + 2
            return (true, nil)
        case UInt8(ascii: "!"):
            return try scanBang()
        default:
            return (try scanStartTag(), .startTag)
        }
    }

    private func scanBang() throws(GeoError) -> (Bool, Token?) {
        let p = buf
        if hasPrefix("<!--") {
            var i = pos + 4
            while true {
                guard let dash = find2(UInt8(ascii: "-"), UInt8(ascii: "-"), from: i) else { return (false, nil) }
                guard dash + 2 < end else { return (false, nil) }
                if p[dash + 2] == UInt8(ascii: ">") { pos = dash + 3; return (true, nil) }
                i = dash + 1
            }
        }
        if hasPrefix("<![CDATA[") {
            guard openCount > 0 else { throw malformed("CDATA section outside the root element", at: pos) }
            var i = pos + 9
            while true {
                guard let b = find2(UInt8(ascii: "]"), UInt8(ascii: "]"), from: i) else { return (false, nil) }
                guard b + 2 < end else { return (false, nil) }
                if p[b + 2] == UInt8(ascii: ">") {
                    textStart = pos + 9
                    textEnd = b
                    textIsCDATA = true
                    textHasEntity = false
                    pos = b + 3
                    return (true, .text)
                }
                i = b + 1
            }
        }
        if hasPrefix("<!DOCTYPE") {
            guard !sawRoot else { throw malformed("DOCTYPE after the root element started", at: pos) }
            var i = pos + 9, bracket = 0
            var quote: UInt8 = 0
            while i < end {
                let c = p[i]
                if quote != 0 { if c == quote { quote = 0 } }
                else if c == 0x22 || c == 0x27 { quote = c }
                else if c == UInt8(ascii: "[") { bracket += 1 }
                else if c == UInt8(ascii: "]") { bracket -= 1 }
                else if c == UInt8(ascii: ">") && bracket <= 0 { pos = i + 1; return (true, nil) }
                i += 1
            }
            return (false, nil)
        }
        if end - pos < 9 && !eof { return (false, nil) }
        throw malformed("expected a comment, CDATA section or DOCTYPE after '<!'", at: pos)
    }

    private func scanStartTag() throws(GeoError) -> Bool {
        let p = buf
        var i = pos + 1
        guard XMLTokenizer.isNameStart(p[i]) else { throw malformed("expected an element name after '<'", at: i) }
        let ns = i
        while i < end && XMLTokenizer.isNameChar(p[i]) { i += 1 }
        if i == end { return false }
        let ne = i
        attributeCount = 0
        var empty = false
        var declaresNamespace = false
        while true {
            let wsStart = i
            while i < end && XMLTokenizer.isSpace(p[i]) { i += 1 }
            if i == end { return false }
            let c = p[i]
            if c == UInt8(ascii: ">") { i += 1; break }
            if c == UInt8(ascii: "/") {
                if i + 1 == end { return false }
                guard p[i + 1] == UInt8(ascii: ">") else { throw malformed("expected '>' after '/' in a tag", at: i + 1) }
                i += 2
                empty = true
                break
            }
            guard i > wsStart else { throw malformed("expected whitespace, '>' or '/>' in <\(excerpt(ns, ne))>", at: i) }
            guard XMLTokenizer.isNameStart(c) else { throw malformed("expected an attribute name in <\(excerpt(ns, ne))>", at: i) }
            let an = i
            while i < end && XMLTokenizer.isNameChar(p[i]) { i += 1 }
            let ane = i
            guard attributeCount < maxAttributes else {
                throw malformed("<\(excerpt(ns, ne))> has more than \(maxAttributes) attributes "
                                + "(the limit, GPXReadOptions.maxAttributes)", at: an)
            }
            while i < end && XMLTokenizer.isSpace(p[i]) { i += 1 }
            if i == end { return false }
            guard p[i] == UInt8(ascii: "=") else {
                throw malformed("expected '=' after attribute \(excerpt(an, ane)) in <\(excerpt(ns, ne))>", at: i)
            }
            i += 1
            while i < end && XMLTokenizer.isSpace(p[i]) { i += 1 }
            if i == end { return false }
            let q = p[i]
            guard q == 0x22 || q == 0x27 else {
                throw malformed("expected a quoted value for attribute \(excerpt(an, ane)) in <\(excerpt(ns, ne))>", at: i)
            }
            i += 1
            // One pass finds the closing quote and checks for '<' and '&'.
            var k = i
            var amp = false
            while k < end {
                let b = p[k]
                if b == q { break }
                if b == UInt8(ascii: "<") { throw malformed("'<' is not allowed in an attribute value", at: k) }
                if b == UInt8(ascii: "&") { amp = true }
                k &+= 1
            }
            if k == end { return false }
            let ve = k
            if isDuplicateAttribute(an, ane) {
                throw malformed("duplicate attribute \(excerpt(an, ane)) in <\(excerpt(ns, ne))>", at: an)
            }
            if ane - an >= 5 && p[an] == UInt8(ascii: "x") && p[an + 1] == UInt8(ascii: "m") && p[an + 4] == UInt8(ascii: "s") { declaresNamespace = true }
            appendAttribute(Attribute(nameStart: an, nameEnd: ane, valueStart: i, valueEnd: ve, hasEntity: amp))
            i = ve + 1
        }
        if openCount == 0 && sawRoot { throw malformed("a second root element <\(excerpt(ns, ne))>", at: pos) }
        guard elementCount < maxElements else {
            throw malformed("<\(excerpt(ns, ne))> is element \(elementCount + 1); the document may have at most "
                            + "\(maxElements) (the limit, GPXReadOptions.maxElements)", at: pos)
        }
        elementCount += 1
        nameStart = ns
        nameEnd = ne
        isEmptyElement = empty
        hasNamespaceDeclaration = declaresNamespace
        pos = i
        sawRoot = true
        if empty {
            pendingEnd = true
        } else {
            guard openCount < maxDepth else {
                throw malformed("elements are nested deeper than \(maxDepth) levels", at: tokenStart)
            }
            let len = ne - ns
            if stackCount + len > stackCapacity {
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: (stackCount + len) * 2)
                bigger.update(from: stackBytes, count: stackCount)
                stackBytes.deallocate()
                stackBytes = bigger
                stackCapacity = (stackCount + len) * 2
            }
            stackStarts[openCount] = stackCount
            openCount += 1
            (stackBytes + stackCount).update(from: p + ns, count: len)
            stackCount += len
        }
        return true
    }

    private func scanEndTag() throws(GeoError) -> Bool {
        let p = buf
        var i = pos + 2
        if i == end { return false }
        guard XMLTokenizer.isNameStart(p[i]) else { throw malformed("expected an element name after '</'", at: i) }
        let ns = i
        while i < end && XMLTokenizer.isNameChar(p[i]) { i += 1 }
        let ne = i
        while i < end && XMLTokenizer.isSpace(p[i]) { i += 1 }
        if i == end { return false }
        guard p[i] == UInt8(ascii: ">") else { throw malformed("expected '>' to close </\(excerpt(ns, ne))>", at: i) }
        guard openCount > 0 else {
            throw malformed("end tag </\(excerpt(ns, ne))> without a matching start tag", at: pos)
        }
        let top = stackStarts[openCount - 1]
        let len = stackCount - top
        guard len == ne - ns && XMLTokenizer.bytesEqual(stackBytes + top, p + ns, len) else {
            throw malformed("found </\(excerpt(ns, ne))>; expected </\(openName)>", at: pos)
        }
        stackCount = top
        openCount -= 1
        isEmptyElement = false
        nameStart = ns
        nameEnd = ne
        pos = i + 1
        return true
    }

    // MARK: duplicate attributes

    /// Whether the attribute name at `[an, ane)` equals the name of an earlier attribute of
    /// the current start tag. Call once per attribute, in order, before appending it.
    ///
    /// Up to ``hashedDuplicateCheckThreshold`` attributes it compares with each earlier one;
    /// from there on it looks the name up in (and adds it to) a hash table with a per-process
    /// random seed, so an element with n attributes costs O(n), not O(n²), even for names
    /// chosen to collide.
    @inline(__always)
    private func isDuplicateAttribute(_ an: Int, _ ane: Int) -> Bool {
        let len = ane - an
        if attributeCount < XMLTokenizer.hashedDuplicateCheckThreshold {
            let p = buf
            var k = 0
            while k < attributeCount {
                let a = attributeStorage[k]
                duplicateCheckProbes &+= 1
                if a.nameEnd - a.nameStart == len && XMLTokenizer.bytesEqual(p + a.nameStart, p + an, len) { return true }
                k += 1
            }
            return false
        }
        return hashedDuplicate(an, len)
    }

    private func hashedDuplicate(_ an: Int, _ len: Int) -> Bool {
        // Build the table when the threshold is reached; double it when it would pass half full.
        if attributeCount == XMLTokenizer.hashedDuplicateCheckThreshold || (attributeCount + 1) * 2 > slotMask + 1 {
            var size = 64
            while size < (attributeCount + 1) * 2 { size *= 2 }
            rebuildSlots(size: size)
        }
        let p = buf
        let table = slots!
        var i = nameHash(an, len) & slotMask
        while true {
            let slot = table[i]
            if slot == 0 {
                table[i] = attributeCount + 1
                return false
            }
            duplicateCheckProbes &+= 1
            let a = attributeStorage[slot - 1]
            if a.nameEnd - a.nameStart == len && XMLTokenizer.bytesEqual(p + a.nameStart, p + an, len) { return true }
            i = (i + 1) & slotMask
        }
    }

    /// Clears `size` slots (a power of two, reallocating when needed) and enters the
    /// current element's attributes so far.
    private func rebuildSlots(size: Int) {
        if size > slotCapacity {
            slots?.deallocate()
            slots = .allocate(capacity: size)
            slotCapacity = size
        }
        let table = slots!
        table.update(repeating: 0, count: size)
        slotMask = size - 1
        for k in 0..<attributeCount {
            let a = attributeStorage[k]
            var i = nameHash(a.nameStart, a.nameEnd - a.nameStart) & slotMask
            while table[i] != 0 { i = (i + 1) & slotMask }
            table[i] = k + 1
        }
    }

    @inline(__always)
    private func nameHash(_ start: Int, _ count: Int) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(start: buf + start, count: count))
        return hasher.finalize()
    }

    // MARK: helpers

    @inline(__always)
    private func appendAttribute(_ a: Attribute) {
        if attributeCount == attributeCapacity {
            let bigger = UnsafeMutablePointer<Attribute>.allocate(capacity: attributeCapacity * 2)
            bigger.moveInitialize(from: attributeStorage, count: attributeCount)
            attributeStorage.deallocate()
            attributeStorage = bigger
            attributeCapacity *= 2
        }
        (attributeStorage + attributeCount).initialize(to: a)
        attributeCount += 1
    }

    /// The index of the first `a` followed by `b` at or after `from`, if both are in the buffer.
    private func find2(_ a: UInt8, _ b: UInt8, from: Int) -> Int? {
        var i = from
        while i + 1 < end {
            guard let hit = memchr(buf + i, Int32(a), end - i - 1) else { return nil }
            let k = UnsafeMutableRawPointer(hit).assumingMemoryBound(to: UInt8.self) - buf
            if buf[k + 1] == b { return k }
            i = k + 1
        }
        return nil
    }

    private func hasPrefix(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard end - pos >= n else { return false }
        return memcmp(buf + pos, s.utf8Start, n) == 0
    }

    /// The bytes `[s, e)` of the buffer as a String (for string fields; see ``excerpt(_:_:)`` for messages).
    func string(_ s: Int, _ e: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: buf + s, count: e - s), as: UTF8.self)
    }

    /// The bytes `[s, e)` of the buffer for an error message: at most ``maxEchoedBytes``
    /// bytes, then "…", so a message never repeats a huge name or value.
    func excerpt(_ s: Int, _ e: Int) -> String {
        XMLTokenizer.excerpt(UnsafeBufferPointer(start: buf + s, count: e - s))
    }

    func malformed(_ message: String, at index: Int) -> GeoError {
        GeoError(.malformedXML, message, at: location(at: index))
    }

    /// Counts the lines of the bytes that are about to leave the buffer.
    private func countLines(upTo absolute: Int) {
        guard absolute > countedTo else { return }
        let from = countedTo - base, to = absolute - base
        let n = XMLTokenizer.countNewlines(buf + from, to - from)
        if n > 0 {
            line += n
            var k = to - 1
            while buf[k] != 0x0A { k -= 1 }
            lineStart = base + k + 1
        }
        countedTo = absolute
    }

    /// The file, line and column of buffer index `index`.
    func location(at index: Int) -> SourceLocation {
        location(absolute: base + index)
    }

    /// The file, line and column of absolute offset `absolute` in the UTF-8 input.
    ///
    /// Exact for offsets still in the buffer; an offset that already left it is reported at
    /// the start of the buffer.
    func location(absolute requested: Int) -> SourceLocation {
        let absolute = max(requested, base)
        let index = absolute - base
        if absolute >= countedTo {
            countLines(upTo: absolute)
            return SourceLocation(file: input.name, line: line, column: absolute - lineStart + 1)
        }
        var n = 0
        for i in index..<(countedTo - base) where buf[i] == 0x0A { n += 1 }
        var k = index
        while k > 0 && buf[k - 1] != 0x0A { k -= 1 }
        let start = (n == 0 && k == 0) ? lineStart : base + k
        return SourceLocation(file: input.name, line: line - n, column: absolute - start + 1)
    }
}
