/// layoutd's version, shared by the daemon (`initialize`, `--version`) and its clients
/// (`layoutctl --version`), and the protocol version `initialize` reports.
public enum LayoutdVersion {
    public static let current = "0.1.0"
    public static let protocolVersion = 1
}
