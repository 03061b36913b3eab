# Sourced by the scripts: puts a toolchain in /opt/swift on PATH when swift is not already there.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
