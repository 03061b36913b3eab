import Foundation
import Testing

/// The man pages say what the programs do: every option of `--help`, every command of
/// layoutctl and every configuration key appear in them, and mandoc finds nothing to fix.
@Suite struct ManPageTests {
    func page(_ name: String) throws -> String {
        // Written as roff: a hyphen in a name is "\-".
        try String(contentsOfFile: "\(repositoryRoot)/docs/man/\(name)", encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
    }

    /// The `--option` words of a help text.
    func options(_ help: String) -> Set<String> {
        let words = help.split(whereSeparator: { " \n[]|,()".contains($0) })
        return Set(words.filter { $0.hasPrefix("--") && $0.count > 2 }.map { String($0.prefix { $0 != "=" }) })
    }

    @Test func everyOptionAndCommandIsDocumented() throws {
        let layoutd = try run(try Daemon.binary(), ["--help"]).output
        let daemonPage = try page("layoutd.8")
        for option in options(layoutd) { #expect(daemonPage.contains(option), "layoutd(8) documents \(option)") }
        #expect(options(layoutd).count >= 8)
        let layoutctl = URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent().appendingPathComponent("layoutctl").path
        let help = try run(layoutctl, ["--help"]).output
        let clientPage = try page("layoutctl.1")
        for option in options(help) { #expect(clientPage.contains(option), "layoutctl(1) documents \(option)") }
        let commands = help.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { !$0.hasPrefix("-") && !$0.allSatisfy(\.isNumber) }
        #expect(commands.count >= 7, "\(commands)")
        for command in commands { #expect(clientPage.contains(".B \(command)") || clientPage.contains(".BR \(command) "), "layoutctl(1) documents \(command)") }
    }

    @Test func everyConfigurationKeyIsDocumented() throws {
        let check = try run(try Daemon.binary(), ["--check-config", "\(repositoryRoot)/config/layoutd.json"]).output
        let keys = check.split(separator: "\n").dropFirst().compactMap { $0.split(separator: ":").first.map(String.init) }
            .filter { key in !key.isEmpty && key.allSatisfy { $0.isLetter || $0 == "." } }   // (not the log lines)
            .filter { $0 != "fontFingerprint" }   // what --check-config found, not a key: layoutd(8)'s
        #expect(try page("layoutd.8").contains("fontFingerprint"), "layoutd(8) says what --check-config prints of the fonts")
        #expect(keys.count >= 25, "\(keys)")
        let page = try page("layoutd.json.5")
        for key in keys { #expect(page.contains(".B \(key)"), "layoutd.json(5) documents \(key)") }
    }

    @Test func mandocFindsNothingToFix() throws {
        let pages = ["layoutd.8", "layoutctl.1", "layoutd.json.5"].map { "\(repositoryRoot)/docs/man/\($0)" }
        let (status, output) = try run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning"] + pages)
        #expect(status == 0 && output.isEmpty, "mandoc -T lint: \(output)")
    }
}
