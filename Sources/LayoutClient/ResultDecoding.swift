import LayoutProtocol

/// The protocol's result types read from a client's side of the wire. Each gives nil for an
/// answer that is not the method's result (the caller reports it as malformed).
extension MeasureResult {
    init?(answer json: JSONValue) {
        guard let width = json["size"]?["width"]?.doubleValue, let height = json["size"]?["height"]?.doubleValue,
              let lines = json["lineCount"]?.doubleValue else { return nil }
        self.init(width: width, height: height, lineCount: Int(lines), truncated: json["truncated"] == true,
                  fontFingerprint: json["fontFingerprint"]?.stringValue ?? "")
    }
}

extension MeasuresResult {
    /// `{measures: [{size, lineCount, truncated}], fontFingerprint}`: each measure carries the
    /// one fingerprint.
    init?(answer json: JSONValue) {
        let fingerprint = json["fontFingerprint"]?.stringValue ?? ""
        guard let measures = json["measures"]?.decodedArray({ m -> MeasureResult? in
            var measure = MeasureResult(answer: m)
            measure?.fontFingerprint = fingerprint
            return measure
        }) else { return nil }
        self.init(measures: measures, fontFingerprint: fingerprint)
    }
}

extension HitTestResult {
    init?(answer json: JSONValue) {
        guard let index = json["index"]?.doubleValue, let line = json["line"]?.doubleValue else { return nil }
        var region: Region?
        if let r = json["region"], let kind = r["kind"]?.stringValue, let start = r["start"]?.doubleValue,
           let end = r["end"]?.doubleValue {
            region = Region(kind: kind, start: Int(start), end: Int(end), value: r["value"], enabled: r["enabled"] != false)
        }
        self.init(index: Int(index), character: json["character"]?.doubleValue.map { Int($0) }, line: Int(line),
                  affinity: json["affinity"]?.stringValue ?? "downstream", region: region)
    }
}

extension CaretResult {
    init?(answer json: JSONValue) {
        guard let x = json["x"]?.doubleValue, let y = json["y"]?.doubleValue, let height = json["height"]?.doubleValue else {
            return nil
        }
        self.init(x: x, y: y, height: height, line: Int(json["line"]?.doubleValue ?? 0), weakX: json["weak"]?["x"]?.doubleValue)
    }
}

extension RectParams {
    init?(answer json: JSONValue) {
        guard let x = json["x"]?.doubleValue, let y = json["y"]?.doubleValue, let width = json["width"]?.doubleValue,
              let height = json["height"]?.doubleValue else { return nil }
        self.init(x: x, y: y, width: width, height: height)
    }
}

extension UpdateResult {
    init?(answer json: JSONValue) {
        guard let layout = LayoutResult(json: json), let diff = json["diff"],
              let firstLine = diff["firstLine"]?.doubleValue, let removed = diff["removed"]?.doubleValue,
              let added = diff["added"]?.doubleValue,
              let inserted = (diff["inserted"] ?? []).decodedArray(RangeResult.init(json:)) else { return nil }
        self.init(layout: layout, diff: Diff(firstLine: Int(firstLine), removed: Int(removed), added: Int(added),
                                             inserted: inserted, reusedParagraphs: Int(diff["reusedParagraphs"]?.doubleValue ?? 0),
                                             reshapedParagraphs: Int(diff["reshapedParagraphs"]?.doubleValue ?? 0)))
    }
}

extension RenderResult {
    init?(answer json: JSONValue) {
        guard let format = json["format"]?.stringValue, let width = json["width"]?.doubleValue,
              let height = json["height"]?.doubleValue, let data = json["data"]?.stringValue else { return nil }
        self.init(format: format, width: width, height: height, scale: json["scale"]?.doubleValue ?? 1, data: data,
                  fontFingerprint: json["fontFingerprint"]?.stringValue ?? "")
    }
}

extension InitializeResult {
    init?(answer json: JSONValue) {
        guard let version = json["protocolVersion"]?.doubleValue, let encoding = json["offsetEncoding"]?.stringValue else {
            return nil
        }
        let strings: (JSONValue?) -> [String] = { $0?.arrayValue?.compactMap(\.stringValue) ?? [] }
        self.init(protocolVersion: Int(version), offsetEncoding: encoding,
                  serverName: json["server"]?["name"]?.stringValue ?? "", serverVersion: json["server"]?["version"]?.stringValue ?? "",
                  methods: strings(json["capabilities"]?["methods"]), plugins: json["capabilities"]?["plugins"] ?? [],
                  notifications: strings(json["capabilities"]?["notifications"]),
                  fontFingerprint: json["fontFingerprint"]?.stringValue ?? "",
                  fontFingerprintParts: (json["fontFingerprintParts"]?.objectMembers ?? []).map { ($0.0, $0.1.stringValue ?? "") },
                  serverNode: json["server"]?["node"]?.stringValue ?? "")
    }
}
