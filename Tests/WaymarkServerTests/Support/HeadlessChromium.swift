import Foundation
import NIOConcurrencyHelpers
import Glibc

/// Headless Chromium driven through the DevTools protocol, for dashboard tests that act on the page
/// (real wheel and drag input, script evaluation, screenshots) rather than only read its final DOM.
///
/// The protocol runs over two pipes (`--remote-debugging-pipe`): commands go in on the browser's file
/// descriptor 3, replies and events come out of its descriptor 4, each message a JSON text followed by
/// a NUL byte. No WebSocket and no port. One page per instance, opened by ``open(width:height:timeZone:)``.
/// A reader thread (not the cooperative pool, which the server under test shares) parses what comes
/// out; commands wait for their replies. Every page-side console message, uncaught exception, log entry
/// and CSP violation is kept (``problems()``). `Sendable`: its state is behind a lock.
///
/// For example:
///
///     let browser = try HeadlessChromium(executable: chromium)
///     defer { browser.close() }
///     try await browser.open(width: 1280, height: 800)
///     try await browser.navigate("http://127.0.0.1:8080/")
///     let title = try await browser.evaluate("document.title") as? String
final class HeadlessChromium: Sendable {
    /// A failed command, a reply that was not understood, or a browser that went away.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct Shared {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<Data, any Error>] = [:]
        var events: [Data] = []
        var ended = false
        var closed = false
    }

    private let process: pid_t
    private let commands: Int32
    private let profile: URL
    private let shared = NIOLockedValueBox(Shared())
    private let page = NIOLockedValueBox<String?>(nil)

    /// Starts the browser (headless, no sandbox, a fresh profile). Its own stderr goes to `log` when given.
    /// A browser still running after `lifetime` seconds is ended, so a hung page fails its test instead
    /// of hanging it.
    init(executable: String, log: URL? = nil, lifetime: TimeInterval = 120) throws {
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-cdp-\(UUID().uuidString)")
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure(description: "pipe() failed: errno \(errno)") }
        // Above 4 and close-on-exec, so that the dup2 below are the only copies the browser inherits.
        let lifted = (toBrowser + fromBrowser).map { fd -> Int32 in
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 10)
            Glibc.close(fd)
            return copy
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, lifted[0], 3)
        posix_spawn_file_actions_adddup2(&actions, lifted[3], 4)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments = [executable, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
                         "--hide-scrollbars", "--user-data-dir=\(profile.path)", "--remote-debugging-pipe",
                         "--enable-logging=stderr", "--v=0", "about:blank"]
        let argv = arguments.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + environment).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        Glibc.close(lifted[0])
        Glibc.close(lifted[3])
        guard status == 0 else {
            Glibc.close(lifted[1])
            Glibc.close(lifted[2])
            throw Failure(description: "could not start \(executable): error \(status)")
        }
        process = pid
        commands = lifted[1]
        let replies = lifted[2], shared = self.shared, child = pid
        let reader = Thread { Self.read(replies, into: shared) }
        reader.start()
        let watchdog = Thread {
            Thread.sleep(forTimeInterval: lifetime)
            // Under the lock: close() marks the browser closed before it reaps it, so this never signals a reused pid.
            shared.withLockedValue { state in if !state.closed { kill(child, SIGKILL) } }
        }
        watchdog.start()
    }

    /// Ends the browser and removes its profile.
    func close() {
        shared.withLockedValue { state in
            state.closed = true
            kill(process, SIGKILL)
        }
        var status: Int32 = 0
        waitpid(process, &status, 0)
        Glibc.close(commands)
        try? FileManager.default.removeItem(at: profile)
    }

    /// Reads NUL-terminated messages until the browser closes its end: a reply resumes its command, an
    /// event is kept.
    private static func read(_ fd: Int32, into shared: NIOLockedValueBox<Shared>) {
        var buffer: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            buffer.append(contentsOf: chunk[0..<count])
            var start = 0
            while let end = buffer[start...].firstIndex(of: 0) {
                let message = Data(buffer[start..<end])
                start = end + 1
                let id = (try? JSONSerialization.jsonObject(with: message) as? [String: Any])?["id"] as? Int
                let waiter = shared.withLockedValue { state -> CheckedContinuation<Data, any Error>? in
                    guard let id else { state.events.append(message); return nil }
                    return state.waiting.removeValue(forKey: id)
                }
                waiter?.resume(returning: message)
            }
            buffer.removeFirst(start)
        }
        Glibc.close(fd)
        let waiters = shared.withLockedValue { state in
            state.ended = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        waiters.forEach { $0.resume(throwing: Failure(description: "the browser closed its DevTools pipe")) }
    }

    /// Sends one command (to the page once ``open(width:height:timeZone:)`` attached one) and returns its
    /// result; a protocol error is thrown.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], toBrowser: Bool = false) async throws -> [String: Any] {
        var message: [String: Any] = ["method": method, "params": params]
        if !toBrowser, let session = page.withLockedValue({ $0 }) { message["sessionId"] = session }
        let reply: Data = try await withCheckedThrowingContinuation { continuation in
            let id = shared.withLockedValue { state -> Int? in
                guard !state.ended else { return nil }
                defer { state.nextID += 1 }
                state.waiting[state.nextID] = continuation
                return state.nextID
            }
            guard let id else {
                continuation.resume(throwing: Failure(description: "the browser is gone (\(method))"))
                return
            }
            message["id"] = id
            do {
                var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
                bytes.append(0)
                var written = 0
                while written < bytes.count {
                    let n = bytes[written...].withUnsafeBytes { Glibc.write(commands, $0.baseAddress, $0.count) }
                    guard n > 0 else { throw Failure(description: "writing \(method) failed: errno \(errno)") }
                    written += n
                }
            } catch {
                if let waiter = shared.withLockedValue({ $0.waiting.removeValue(forKey: id) }) { waiter.resume(throwing: error) }
            }
        }
        let object = try JSONSerialization.jsonObject(with: reply) as? [String: Any] ?? [:]
        if let error = object["error"] as? [String: Any] {
            throw Failure(description: "\(method): \(error["message"] ?? error)")
        }
        return object["result"] as? [String: Any] ?? [:]
    }

    /// Opens a page of `width`×`height` CSS pixels (in `timeZone` when given) and attaches to it; later
    /// commands go to it. CSP violations are recorded from the first script of every document on.
    func open(width: Int, height: Int, timeZone: String? = nil) async throws {
        let target = try await send("Target.createTarget", ["url": "about:blank"], toBrowser: true)
        let attached = try await send("Target.attachToTarget", ["targetId": target["targetId"] ?? "", "flatten": true], toBrowser: true)
        guard let session = attached["sessionId"] as? String else { throw Failure(description: "no session for the page") }
        page.withLockedValue { $0 = session }
        for domain in ["Page", "Runtime", "Log"] { try await send("\(domain).enable") }
        try await send("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
        if let timeZone { try await send("Emulation.setTimezoneOverride", ["timezoneId": timeZone]) }
        try await send("Page.addScriptToEvaluateOnNewDocument", ["source": """
            document.addEventListener("securitypolicyviolation", (e) =>
              console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline")));
            """])
    }

    /// Loads `url` and waits until `readyWhen` (a JavaScript expression) is true, for at most `seconds`.
    func navigate(_ url: String, readyWhen: String = "document.readyState === 'complete'", seconds: Int = 20) async throws {
        try await send("Page.navigate", ["url": url])
        try await waitUntil(readyWhen, seconds: seconds)
    }

    /// Waits until `condition` (a JavaScript expression, checked every 50 ms in the page) is true; throws
    /// after `seconds`.
    func waitUntil(_ condition: String, seconds: Int = 20) async throws {
        let met = try await evaluate("""
            new Promise((resolve) => {
              const until = Date.now() + \(seconds * 1000);
              const check = () => { try { if (\(condition)) return resolve(true); } catch (e) {}
                                    if (Date.now() > until) return resolve(false); setTimeout(check, 50); };
              check();
            })
            """)
        guard met as? Bool == true else { throw Failure(description: "not true within \(seconds) s: \(condition)") }
    }

    /// The value of a JavaScript expression in the page (a promise is awaited), as JSON values.
    func evaluate(_ expression: String) async throws -> Any? {
        let result = try await send("Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true])
        if let details = result["exceptionDetails"] as? [String: Any] {
            let exception = (details["exception"] as? [String: Any])?["description"] ?? details["text"] ?? details
            throw Failure(description: "\(expression.prefix(80))…: \(exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Sends a wheel turn at (`x`, `y`); a negative `deltaY` scrolls up, which zooms a map in.
    func wheel(x: Double, y: Double, deltaY: Double) async throws {
        try await send("Input.dispatchMouseEvent", ["type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": deltaY])
    }

    /// Drags with the left button from `from` to `to` in `steps` moves.
    func drag(from: (x: Double, y: Double), to: (x: Double, y: Double), steps: Int = 10) async throws {
        try await send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": from.x, "y": from.y])
        try await send("Input.dispatchMouseEvent", ["type": "mousePressed", "x": from.x, "y": from.y, "button": "left", "buttons": 1, "clickCount": 1])
        for step in 1...steps {
            let t = Double(step) / Double(steps)
            try await send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": from.x + (to.x - from.x) * t,
                                                        "y": from.y + (to.y - from.y) * t, "button": "left", "buttons": 1])
        }
        try await send("Input.dispatchMouseEvent", ["type": "mouseReleased", "x": to.x, "y": to.y, "button": "left", "buttons": 0, "clickCount": 1])
    }

    /// A left click at (`x`, `y`).
    func click(at point: (x: Double, y: Double)) async throws {
        try await send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": point.x, "y": point.y])
        for type in ["mousePressed", "mouseReleased"] {
            try await send("Input.dispatchMouseEvent", ["type": type, "x": point.x, "y": point.y, "button": "left", "clickCount": 1])
        }
    }

    /// A PNG of the page's viewport.
    func screenshot() async throws -> Data {
        let result = try await send("Page.captureScreenshot", ["format": "png"])
        guard let text = result["data"] as? String, let png = Data(base64Encoded: text) else { throw Failure(description: "no screenshot") }
        return png
    }

    /// Every console error or warning, uncaught exception and browser log entry of level warning or
    /// error so far (a CSP violation is all three: the listener above, and Chromium's own log entry).
    func problems() -> [String] {
        let events = shared.withLockedValue { $0.events }
        return events.compactMap { data -> String? in
            guard let event = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let params = event["params"] as? [String: Any] else { return nil }
            switch event["method"] as? String {
            case "Runtime.consoleAPICalled":
                guard ["error", "warning", "assert"].contains(params["type"] as? String) else { return nil }
                let args = (params["args"] as? [[String: Any]] ?? []).map { "\($0["value"] ?? $0["description"] ?? "")" }
                return "console: " + args.joined(separator: " ")
            case "Runtime.exceptionThrown":
                return "exception: \(params["exceptionDetails"] ?? "")"
            case "Log.entryAdded":
                guard let entry = params["entry"] as? [String: Any], ["error", "warning"].contains(entry["level"] as? String) else { return nil }
                return "log (\(entry["source"] ?? "")): \(entry["text"] ?? "") \(entry["url"] ?? "")"
            default:
                return nil
            }
        }
    }
}
