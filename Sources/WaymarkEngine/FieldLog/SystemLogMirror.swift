#if canImport(os)
import os
#else
import Logging
#endif

/// The system-log copy of the field log: `os.Logger` on Apple platforms (subsystem
/// ``FieldLog/Configuration/subsystem``, the entry's category), swift-log elsewhere (label
/// `<subsystem>.<category>`, through whatever handler the process bootstrapped). One logger per
/// category, made on first use.
struct SystemLogMirror {
    let subsystem: String
    #if canImport(os)
    private var loggers: [FieldLogCategory: os.Logger] = [:]
    #else
    private var loggers: [FieldLogCategory: Logging.Logger] = [:]
    #endif

    init(subsystem: String) { self.subsystem = subsystem }

    mutating func log(_ entry: FieldLogEntry) {
        #if canImport(os)
        let logger = loggers[entry.category] ?? os.Logger(subsystem: subsystem, category: entry.category.rawValue)
        loggers[entry.category] = logger
        let message = entry.message
        // Waymark's messages hold no coordinates above debug (a debug entry may: kept private).
        switch entry.level {
        case .debug: logger.debug("\(message, privacy: .private)")
        case .info: logger.info("\(message, privacy: .public)")
        case .notice: logger.notice("\(message, privacy: .public)")
        case .warning: logger.warning("\(message, privacy: .public)")
        case .error: logger.error("\(message, privacy: .public)")
        }
        #else
        var logger = loggers[entry.category] ?? Logging.Logger(label: "\(subsystem).\(entry.category.rawValue)")
        logger.logLevel = .debug
        loggers[entry.category] = logger
        let level: Logging.Logger.Level = switch entry.level {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
        logger.log(level: level, "\(entry.message)")
        #endif
    }
}
