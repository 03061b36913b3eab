// layoutctl — command-line client for layoutd. Links neither HarfBuzz nor ICU: it speaks
// the protocol only. Commands, options and exit statuses: `layoutctl --help` (Help.swift).
#if canImport(Glibc)
import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
var socket: String?
while let first = arguments.first, first.hasPrefix("-") {
    arguments.removeFirst()
    switch first {
    case "--socket":
        guard !arguments.isEmpty else { fail("--socket needs a path\n\(Help.synopsis)", status: ExitStatus.usage) }
        socket = arguments.removeFirst()
    case "-h", "--help":
        print(Help.text)
        exit(0)
    case "--version":
        await version(socket: socket)
        exit(0)
    default:
        fail("unknown option \(first)\n\(Help.text)", status: ExitStatus.usage)
    }
}
guard let command = arguments.first else { fail("a command is needed\n\(Help.text)", status: ExitStatus.usage) }
arguments.removeFirst()
if arguments.contains("--help") || arguments.contains("-h"), command != "help" {
    print(Help.text(for: command) ?? Help.text)
    exit(Help.text(for: command) == nil ? ExitStatus.usage : 0)
}

switch command {
case "ping": await ping(arguments, socket: socket)
case "layout": await layout(arguments, socket: socket)
case "render": await render(arguments, socket: socket)
case "stats": await stats(arguments, socket: socket)
case "fonts": await fonts(arguments, socket: socket)
case "catalog": await catalog(arguments, socket: socket)
case "version": await version(socket: socket)
case "help":
    guard let name = arguments.first else { print(Help.text); break }
    guard let text = Help.text(for: name) else { fail("unknown command \(name)\n\(Help.text)", status: ExitStatus.usage) }
    print(text)
default:
    fail("unknown command \(command)\n\(Help.text)", status: ExitStatus.usage)
}
