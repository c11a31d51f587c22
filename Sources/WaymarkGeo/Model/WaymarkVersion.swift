/// The package's version: the one place it is written.
///
/// Every module reports this value (`WaymarkEngineInfo.version`, `WaymarkServerInfo.version`, the
/// OpenAPI document's `info.version`, `waymark --version`). A release tag is `v` followed by it
/// (for example `v0.2.0`), and CHANGELOG.md has a section with the same number; the tagging rule
/// is in CHANGELOG.md.
public enum WaymarkVersion {
    /// The semantic version of this build of the package, `MAJOR.MINOR.PATCH`.
    public static let current = "0.2.0"
}
