import WaymarkSync

/// The tests' name for WaymarkSync's simulated-time uploader.
typealias VirtualUploader = VirtualTimeUploader
