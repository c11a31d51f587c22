// The transport seam (`UploadTransport`, `UploadRequest`, `UploadResponse`, `UploadRejection`,
// `URLSessionUploadTransport`, `UploadOutcomeStore`) lives in WaymarkTransport, which needs only
// Foundation and so compiles for iOS with the 17.4 SDK. Re-exported: `import WaymarkSync` keeps
// giving all of it.
@_exported import WaymarkTransport
