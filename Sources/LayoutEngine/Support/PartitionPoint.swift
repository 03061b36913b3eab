extension Array {
    /// The first index whose element is not `belongsBefore` (the elements must be
    /// partitioned: all that belong before come first). Binary search.
    package func partitionPoint(_ belongsBefore: (Element) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if belongsBefore(self[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
