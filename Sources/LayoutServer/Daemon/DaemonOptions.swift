/// What layoutd's command line asks of the daemon (see `layoutd --help`).
public struct DaemonOptions: Sendable {
    /// `--socket`: where to listen (nil: the default path; ignored under socket activation).
    public var socketPath: String?
    /// `--config` or `--check-config`: the configuration file (nil: the default search).
    public var configurationPath: String?
    /// `--check-config`: validate and print the settings, then exit.
    public var checkOnly = false
    /// `--plugin-dir`, absolute: loaded after the configured folders.
    public var pluginFolders: [String] = []
    /// False with `--no-builtin-plugins`.
    public var builtinPlugins = true

    public init() {}
}
