/// What keeps a run together: one face, one script, one bidi level, one shaping style
/// (font, size, features, axes, letter spacing, baseline offset). Colors, decorations and
/// links do not split shaping.
struct RunKey: Equatable {
    /// Unretained, as `FontSelector.face` hands it out (its selector holds it).
    var face: Unmanaged<FontFace>
    var script: Script
    var level: UInt8
    /// The shaping identity of the style (see `RequestContext.shapingID`).
    var shaping: Int
    /// The first style index seen with this shaping identity (for its font and features).
    var styleIndex: Int

    static func == (a: RunKey, b: RunKey) -> Bool {
        a.face.toOpaque() == b.face.toOpaque() && a.script == b.script && a.level == b.level && a.shaping == b.shaping
    }
}
