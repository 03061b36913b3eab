import Foundation
import LayoutProtocol
import Testing

/// Runs `command` with `arguments` (and `environment`, when given, instead of this
/// process's): its exit status and what it printed (standard output and error together).
@discardableResult
func run(_ command: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The Debian package `scripts/package` built (`$LAYOUTD_PACKAGE`, which scripts/test sets),
/// taken apart in a scratch root and run from there as its units would run it.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["LAYOUTD_PACKAGE"] != nil,
                              "scripts/test builds the package and names it in LAYOUTD_PACKAGE"))
struct PackageTests {
    static let package = ProcessInfo.processInfo.environment["LAYOUTD_PACKAGE"] ?? ""

    /// The package unpacked into a fresh folder (`dpkg-deb -x`), once per test.
    func unpacked() throws -> String {
        let root = try temporaryFolder()
        #expect(chmod(root, 0o755) == 0)
        let (status, output) = try run("/usr/bin/dpkg-deb", ["-x", Self.package, root])
        #expect(status == 0, "dpkg-deb -x: \(output)")
        return root
    }

    @Test func itHoldsWhatItShouldWhereItShould() throws {
        let root = try unpacked()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let plugins = ["links", "shortcodes", "render", "ticket"].map { "usr/lib/layoutd/plugins/liblayoutd-plugin-\($0).so" }
        let files = ["usr/bin/layoutd", "usr/bin/layoutctl", "usr/share/layoutd/fonts.conf", "etc/layoutd/layoutd.json",
                     "usr/lib/systemd/system/layoutd.socket", "usr/lib/systemd/system/layoutd.service",
                     "usr/lib/systemd/user/layoutd.socket", "usr/lib/systemd/user/layoutd.service",
                     "usr/share/doc/layoutd/copyright", "usr/share/doc/layoutd/README.md", "usr/share/doc/layoutd/changelog.Debian.gz",
                     "usr/share/man/man8/layoutd.8.gz", "usr/share/man/man1/layoutctl.1.gz", "usr/share/man/man5/layoutd.json.5.gz",
                     "usr/share/bash-completion/completions/layoutctl"]
        for path in files + plugins {
            #expect(FileManager.default.fileExists(atPath: "\(root)/\(path)"), "\(path) is in the package")
        }
        let fields = try run("/usr/bin/dpkg-deb", ["-f", Self.package, "Depends", "Recommends"]).output
        for library in ["libharfbuzz0b", "libicu72", "libfontconfig1", "libfreetype6", "libpng16-16", "adduser"] {
            #expect(fields.contains(library), "Depends names \(library): \(fields)")
        }
        #expect(fields.contains("Recommends: fonts-noto-core"))
        #expect(fields.contains("hyphen-en-us, hyphen-de, hyphen-fr"), "the dictionaries hyphenation: auto reads")
        let control = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: control) }
        _ = try run("/usr/bin/dpkg-deb", ["-e", Self.package, control])
        #expect(try String(contentsOfFile: "\(control)/conffiles", encoding: .utf8) == "/etc/layoutd/layoutd.json\n")
        #expect(try String(contentsOfFile: "\(control)/postinst", encoding: .utf8).contains("addgroup --system --quiet layoutd"))
    }

    @Test func itRunsWithoutTheSwiftToolchain() throws {
        let root = try unpacked()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bare = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        let plugins = ["links", "shortcodes", "render", "ticket"].map { "../lib/layoutd/plugins/liblayoutd-plugin-\($0).so" }
        for program in ["layoutd", "layoutctl"] + plugins {
            let (status, output) = try run("/usr/bin/ldd", ["\(root)/usr/bin/\(program)"], environment: bare)
            #expect(status == 0 && !output.contains("not found"), "\(program): \(output)")
            #expect(!output.contains("/opt/swift") && !output.contains("libswift"), "\(program) needs nothing of the toolchain: \(output)")
        }
        #expect(try run("\(root)/usr/bin/layoutd", ["--version"], environment: bare).output == "layoutd \(LayoutdVersion.current)\n")
        #expect(try run("\(root)/usr/bin/layoutctl", ["--version"], environment: bare + ["LAYOUTD_SOCKET": "/nonexistent"]).output
                == "layoutctl \(LayoutdVersion.current)\n")
    }

    @Test func itsUnitsVerifyAndTheUserSocketIsWhereClientsLook() throws {
        let root = try unpacked()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let units = ["system", "user"].flatMap { kind in ["socket", "service"].map { "\(root)/usr/lib/systemd/\(kind)/layoutd.\($0)" } }
        // The installed units as systemd would read them on that root: their ExecStart
        // naming the root's layoutd, their documentation found by `man` in the package
        // (--user needs a runtime folder).
        let checked = "\(root)/verify"
        for kind in ["system", "user"] {
            try FileManager.default.createDirectory(atPath: "\(checked)/\(kind)", withIntermediateDirectories: true)
            for unit in ["layoutd.socket", "layoutd.service"] {
                let text = try String(contentsOfFile: "\(root)/usr/lib/systemd/\(kind)/\(unit)", encoding: .utf8)
                try text.replacingOccurrences(of: "ExecStart=/usr/bin/", with: "ExecStart=\(root)/usr/bin/")
                    .write(toFile: "\(checked)/\(kind)/\(unit)", atomically: true, encoding: .utf8)
            }
        }
        try FileManager.default.createDirectory(atPath: "\(root)/run/user", withIntermediateDirectories: true)
        let environment = ProcessInfo.processInfo.environment + ["MANPATH": "\(root)/usr/share/man", "XDG_RUNTIME_DIR": "\(root)/run/user"]
        let (status, output) = try run("/usr/bin/systemd-analyze", ["verify", "\(checked)/system/layoutd.socket", "\(checked)/system/layoutd.service"],
                                       environment: environment)
        #expect(status == 0 && output.isEmpty, "systemd-analyze verify (system units): \(output)")
        let user = try run("/usr/bin/systemd-analyze", ["--user", "verify", "\(checked)/user/layoutd.socket", "\(checked)/user/layoutd.service"],
                           environment: environment)
        #expect(user.status == 0 && user.output.isEmpty, "systemd-analyze verify (user units): \(user.output)")
        // %t is the user's runtime folder ($XDG_RUNTIME_DIR): the socket is where clients look first.
        let socket = try String(contentsOfFile: units[2], encoding: .utf8)
        #expect(socket.contains("ListenStream=%t/layoutd/layoutd.sock\n"))
        let found = try run("\(root)/usr/bin/layoutctl", ["ping"], environment: ["XDG_RUNTIME_DIR": "/nonexistent-runtime", "PATH": "/usr/bin:/bin"])
        #expect(found.output.contains("/nonexistent-runtime/layoutd/layoutd.sock: no such socket"), "\(found.output)")
        let system = try String(contentsOfFile: units[0], encoding: .utf8)
        for line in ["ListenStream=/run/layoutd/layoutd.sock", "SocketGroup=layoutd", "SocketMode=0660", "DirectoryMode=0755"] {
            #expect(system.contains(line + "\n"), "the system socket unit has \(line)")
        }
    }

    /// The system service's ExecStart, run by systemd-socket-activate as the unit would run
    /// it (its socket made 0666 here so that the daemon's own check is what an outsider
    /// meets; the unit's 0660 stops outsiders at the kernel already): a member of the group
    /// layoutd is served, a user outside it refused with the daemon's line, shown by layoutctl.
    @Test func theSystemServiceServesItsGroupAndRefusesOthers() throws {
        let root = try unpacked()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try ensureUsers()
        // The installed configuration, its fonts where the scratch root has them.
        let configPath = "\(root)/etc/layoutd/layoutd.json"
        let config = try String(contentsOfFile: configPath, encoding: .utf8)
        #expect(config.contains(#""allowedGroups": ["#))
        try config.replacingOccurrences(of: "\"/usr/share/layoutd/", with: "\"\(root)/usr/share/layoutd/")
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        let service = try String(contentsOfFile: "\(root)/usr/lib/systemd/system/layoutd.service", encoding: .utf8)
        let execStart = try #require(service.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let command = execStart.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(command == ["/usr/bin/layoutd", "--config", "/etc/layoutd/layoutd.json"])
        let socket = "\(root)/run/layoutd.sock"
        try FileManager.default.createDirectory(atPath: "\(root)/run", withIntermediateDirectories: true)
        // Started detached by a shell that says its pid and exits: systemd-socket-activate
        // closes every descriptor it did not make, Foundation's watch on its own child among
        // them, after which Foundation would wait on it for good.
        let started = try run("/bin/sh", ["-c", #"systemd-socket-activate -l "$0" "$@" >/dev/null 2>&1 </dev/null & echo $!"#,
                                          socket, "\(root)\(command[0])", command[1], configPath])
        let pid = try #require(pid_t(started.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(started.output)")
        defer { kill(pid, SIGTERM) }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
        #expect(chmod(socket, 0o666) == 0)
        let layoutctl = "\(root)/usr/bin/layoutctl"
        let member = try run("/usr/sbin/runuser", ["-u", "layoutd-test-member", "--", layoutctl, "--socket", socket, "ping"])
        #expect(member.status == 0 && member.output.contains("layoutd \(LayoutdVersion.current) at \(socket)"), "member: \(member.output)")
        let outsider = try run("/usr/sbin/runuser", ["-u", "layoutd-test-outsider", "--", layoutctl, "--socket", socket, "ping"])
        #expect(outsider.status == 3, "outsider: \(outsider.output)")
        #expect(outsider.output.contains("may not use this layoutd (allowed: uids 0; groups layoutd"), "outsider: \(outsider.output)")
    }

    /// The group layoutd (the package's postinst makes it) and two users to connect as, one
    /// in it and one not; made when missing.
    func ensureUsers() throws {
        if try run("/usr/bin/getent", ["group", "layoutd"]).status != 0 {
            #expect(try run("/usr/sbin/addgroup", ["--system", "layoutd"]).status == 0)
        }
        for (user, groups) in [("layoutd-test-member", ["-G", "layoutd"]), ("layoutd-test-outsider", [])]
            where try run("/usr/bin/id", [user]).status != 0 {
            let made = try run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin"] + groups + [user])
            #expect(made.status == 0, "useradd \(user): \(made.output)")
        }
    }

    @Test func lintianFindsNoErrors() throws {
        let (_, output) = try run("/usr/bin/lintian", ["--allow-root", "--tag-display-limit", "0", Self.package])
        let errors = output.split(separator: "\n").filter { $0.hasPrefix("E: ") }
        #expect(errors.isEmpty, "lintian errors:\n\(errors.joined(separator: "\n"))")
        // Every warning left is one docs/packaging.md explains.
        let explained = try String(contentsOfFile: "\(repositoryRoot)/docs/packaging.md", encoding: .utf8)
        for warning in output.split(separator: "\n").filter({ $0.hasPrefix("W: ") }) {
            let tag = warning.split(separator: " ").dropFirst(2).first.map(String.init) ?? ""
            #expect(explained.contains("`\(tag)`"), "docs/packaging.md explains the lintian warning \(tag)")
        }
    }
}

extension Dictionary where Key == String, Value == String {
    static func + (a: Self, b: Self) -> Self { a.merging(b) { $1 } }
}
