import Synchronization

/// What a request's font selector starts a family from: the family's fallback list for the
/// language, its primary face (the best match with a space), that face's coverage bits and
/// the fallback decisions every request of the family shares. The same for every request
/// of one family and language, so the last few are kept, found by comparing keys rather
/// than hashing them into two tables for every request.
struct FamilyStart: Sendable {
    let key: FontSystem.FallbackKey
    let list: FallbackList
    let primary: FontFace?
    let shared: ScalarFaces
    /// The primary face's coverage bits when it is the list's first candidate, else none.
    let primaryCoverage: [UInt64]
}

extension FontSystem {
    /// How many family starts are kept (a daemon's requests mostly use one or two families).
    static let recentFamilyStartCount = 8

    /// The start of the family `descriptor` names (`key`: its selection key), in `language`:
    /// a kept one, else made from the fallback list and kept. Counted as a fallback-list
    /// lookup. Fails as `fallbackList` does.
    func familyStart(for descriptor: FontDescriptor, key: FontDescriptor.SelectionKey, language: String) throws -> FamilyStart {
        let found = recentFamilyStarts.withLock { starts in
            starts.last { $0.key.selection == key && $0.key.language == language }
        }
        if let found {
            countFallbackLookup(found: true)
            return found
        }
        let list = try fallbackList(for: descriptor, language: language)
        let primaryIndex = list.candidate(forCluster: CollectionOfOne(UInt32(0x20)))
        let start = FamilyStart(key: FallbackKey(selection: key, language: language), list: list,
                                primary: list.face(at: primaryIndex), shared: scalarFaces(for: key, language: language),
                                primaryCoverage: primaryIndex == 0 ? list.firstCandidateCoverage() : [])
        recentFamilyStarts.withLock { starts in
            if starts.count >= Self.recentFamilyStartCount { starts.removeFirst() }
            starts.append(start)
        }
        return start
    }
}
