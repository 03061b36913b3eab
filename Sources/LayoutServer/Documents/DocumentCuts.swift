import LayoutEngine
import LayoutProtocol

/// A client's span in UTF-16: its range and attributes.
typealias TextSpan = (start: Int, end: Int, attributes: SpanAttributes)

/// Where a document's text is cut into pieces: after whole paragraphs (a paragraph's lines,
/// UAX #9 levels and line breaks are its own), once a piece holds `pieceLength` units, never
/// inside a span that makes a region (a region is found in one piece, as one region).
enum DocumentCuts {
    /// The length a piece grows to before it is cut: an edit lays out about this much again.
    static let pieceLength = 1024
    /// Shorter documents stay whole.
    static let piecedLength = 2 * pieceLength

    /// The pieces' ranges, in order, covering `text`; the last one holds the text's last
    /// paragraph (empty after a closing separator).
    static func ranges(_ text: [UInt16], spans: [TextSpan]) -> [Range<Int>] {
        let regionSpans = spans.filter { $0.end > $0.start && makesRegion($0.attributes) }
            .map { ($0.start, $0.end) }.sorted { $0.0 < $1.0 }
        var ranges: [Range<Int>] = [], start = 0, k = 0, reach = 0
        // Each cut is the first paragraph end a piece's length on that no region span
        // crosses: only the units from there to it are read, not every paragraph's.
        var from = pieceLength
        while let end = nextParagraphEnd(in: text, atOrAfter: from) {
            // The furthest any region span that starts before `end` reaches.
            while k < regionSpans.count, regionSpans[k].0 < end {
                reach = max(reach, regionSpans[k].1)
                k += 1
            }
            if reach <= end {
                ranges.append(start..<end)
                start = end
                from = end + pieceLength
            } else {
                from = reach   // no end before it can be cut at
            }
        }
        ranges.append(start..<text.count)
        return ranges
    }

    /// Whether a span's attributes make a region (see `RegionSpan.of`).
    static func makesRegion(_ a: SpanAttributes) -> Bool {
        a.link != nil || a.data != nil || a.code == true || a.attachment != nil
    }

    /// Each piece's spans, relative to its start, in the order given: a span over several
    /// pieces is cut at their bounds (the styles it composes are the same either side); an
    /// empty one goes to the piece holding it.
    static func split(_ spans: [TextSpan], at ranges: [Range<Int>]) -> [[TextSpan]] {
        var pieces = [[TextSpan]](repeating: [], count: ranges.count)
        for span in spans {
            var i = max(0, ranges.partitionPoint { $0.lowerBound <= span.start } - 1)
            repeat {
                let r = ranges[i]
                pieces[i].append((max(span.start, r.lowerBound) - r.lowerBound, min(span.end, r.upperBound) - r.lowerBound,
                                  span.attributes))
                i += 1
            } while i < ranges.count && ranges[i].lowerBound < span.end
        }
        return pieces
    }
}
