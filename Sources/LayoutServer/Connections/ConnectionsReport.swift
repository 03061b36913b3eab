/// What `stats` says of a server's connections: open now, served by each event loop, and
/// moved from one loop to another.
struct ConnectionsReport: Sendable {
    var open = 0
    var perLoop: [Int] = []
    var moved = 0
}
