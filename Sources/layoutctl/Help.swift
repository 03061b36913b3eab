import LayoutProtocol

/// What `layoutctl --help` and `layoutctl help COMMAND` print.
enum Help {
    static let synopsis = "usage: layoutctl [--socket PATH] COMMAND [OPTIONS] ..."

    /// Each command: its usage line(s) and what it does.
    static let commands: [(name: String, usage: String, summary: String)] = [
        ("ping", "ping", "check that layoutd answers; prints its version, socket and protocol"),
        ("layout", """
            layout [--width W] [--font "FAMILY [Bold] [Italic] SIZE"] [--language TAG] [--wrap-style STYLE]
                   [--hyphenation none|manual|auto] [--json] TEXT|-
            """,
         "lay out TEXT (- reads standard input) and print each line: range (UTF-8 bytes), box, baseline and its text; --wrap-style is greedy, balance, optimal or pretty; --json prints the result as layoutd sent it"),
        ("render", """
            render [--width W] [--font F] [--language TAG] [--wrap-style STYLE] [--hyphenation H]
                   [--format png|svg] [--scale S] [--margin PT] [--overlay]
                   [--detect KIND,KIND] [--attachments] [--highlight START:END[:normal|pressed|disabled]]
                   [--selection START:END] [--background COLOR|transparent] -o FILE TEXT|-
            """,
         "draw the layout of TEXT into FILE (PNG or SVG) with the \"render\" plugin; offsets are UTF-8 bytes"),
        ("stats", "stats [--json]", "the daemon's counters: requests and errors per method, latency, caches, fonts, memory, plugins"),
        ("fonts", "fonts", "the font families the daemon has, one per line (what --font may name)"),
        ("catalog", "catalog [--port N] [--socket PATH]",
         "serve the catalog, a web page that shows each capability live, on http://127.0.0.1:N/ (0, the default: a free port; the URL is printed); its requests go to the daemon"),
        ("help", "help [COMMAND]", "this help, or one command's"),
        ("version", "version", "layoutctl's version and, when a daemon is reachable, the daemon's (as --version)"),
    ]

    static let options = """
        options:
          --socket PATH   the daemon's socket; without it layoutctl tries $LAYOUTD_SOCKET (alone,
                          when set), then $XDG_RUNTIME_DIR/layoutd/layoutd.sock,
                          /run/layoutd/layoutd.sock and /tmp/layoutd-$UID/layoutd.sock, and uses
                          the first that answers; tcp:HOST:PORT reaches a TCP listener, with the
                          token in the file $LAYOUTD_TOKEN_FILE names
          -h, --help      this help
          --version       layoutctl's version, and the daemon's when it is reachable
        """

    static let exitStatus = """
        exit status:
          0  done
          1  layoutd answered with an error, or the output could not be written
          2  bad usage (an unknown command or option, a missing value)
          3  no daemon reachable, or the daemon refused the connection
        """

    /// The whole help.
    static var text: String {
        var lines = [synopsis, "", "commands:"]
        for command in commands {
            lines.append("  " + command.usage.replacingOccurrences("\n", "\n  "))
            lines.append("      " + command.summary)
        }
        return (lines + ["", options, "", exitStatus]).joined(separator: "\n")
    }

    /// One command's help, or nil for an unknown command.
    static func text(for name: String) -> String? {
        guard let command = commands.first(where: { $0.name == name }) else { return nil }
        return "usage: layoutctl [--socket PATH] \(command.usage)\n\n\(command.summary)"
    }

    static let version = "layoutctl \(LayoutdVersion.current)"
}
