/// Strict UTF-8 decoding that works at the package's platform floors.
///
/// The standard library's `String(validating:as:)` is new in iOS 18 and macOS 15, and the package
/// supports iOS 17 and macOS 14: on those systems this validates with `transcode(_:from:to:stoppingOnError:into:)`
/// (present everywhere) and then decodes. Both paths refuse the same inputs: ill-formed sequences,
/// overlong forms, surrogates and truncated characters.
public enum UTF8Text {
    /// The string `bytes` spell in UTF-8, or nil when they are not well-formed UTF-8.
    public static func string<Bytes: Collection<UInt8>>(validating bytes: Bytes) -> String? {
        if #available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        return stringByTranscoding(validating: bytes)
    }

    /// The older systems' path, callable on any system so tests run it where the newer one exists.
    static func stringByTranscoding<Bytes: Collection<UInt8>>(validating bytes: Bytes) -> String? {
        let failed = transcode(bytes.makeIterator(), from: UTF8.self, to: UTF8.self,
                               stoppingOnError: true) { _ in }
        return failed ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
