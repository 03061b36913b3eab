/*
 * layoutd_plugin.h — the whole contract between layoutd and its plugins.
 *
 * A plugin is a shared object (.so) that exports one C symbol, LAYOUTD_PLUGIN_ENTRY_SYMBOL:
 *
 *     const layoutd_plugin *layoutd_plugin_entry(uint32_t host_abi_version);
 *
 * It returns a table (static storage in the plugin, never freed) that names the plugin, its
 * kind and its functions. The host checks `abi_version` and `struct_size` before it calls
 * anything, then calls `init` once, the kind's function any number of times (from several
 * threads at once: functions must be thread-safe with respect to `state`), and `fini` once
 * before the object is closed. A plugin never links layoutd's own modules; everything it
 * needs from the host comes through `layoutd_host`.
 *
 * Ownership, for every pointer that crosses the boundary:
 *   - Everything the host passes in (text, options, lines, canvases, host tables) is owned by
 *     the host and valid only for the duration of the call it is passed to. Copy what you keep.
 *     `layoutd_host` passed to `init` is the exception: it stays valid until `fini` returns.
 *   - Results go out through sink callbacks (`emit`, `append`, ...). The host copies
 *     whatever a sink is given before the sink returns, so the plugin may pass stack or
 *     temporary memory and frees its own memory itself. Nothing is ever freed across the
 *     boundary: neither side calls the other's free.
 *   - Strings in the plugin table (`name`, `version`, `kinds`) are the plugin's, static, and
 *     must stay valid until the object is closed.
 *   - `state` is created by `init` and freed by `fini`; the host only passes it back.
 *
 * Text is UTF-8 (valid: the host repairs bad input before a plugin sees it) and offsets are
 * byte offsets into that text, half-open [start, end). Results must lie inside the text and
 * on UTF-8 character boundaries, with finite non-negative sizes; the host validates every
 * result and drops (with a log line) whatever does not, it never trusts a plugin's numbers.
 *
 * Return codes: 0 is success; anything else is a failure, and the plugin may write a
 * NUL-terminated message into `error` (at most `error_size` bytes, always terminated) that
 * the host logs.
 */
#ifndef LAYOUTD_PLUGIN_H
#define LAYOUTD_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI version this header describes. A host refuses a table with another version. */
#define LAYOUTD_PLUGIN_ABI_VERSION 1u
/** The name of the one symbol a plugin exports. */
#define LAYOUTD_PLUGIN_ENTRY_SYMBOL "layoutd_plugin_entry"

/** Marks the entry point exported (plugins may build with -fvisibility=hidden). Write:
 *     LAYOUTD_PLUGIN_EXPORT const layoutd_plugin *layoutd_plugin_entry(uint32_t v) { ... } */
#if defined(__GNUC__) || defined(__clang__)
#define LAYOUTD_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define LAYOUTD_PLUGIN_EXPORT
#endif

/** What a plugin does. */
typedef enum layoutd_plugin_kind {
    LAYOUTD_KIND_LINK_DETECTOR = 1,       /**< text → {start, end, kind, value} */
    LAYOUTD_KIND_ATTACHMENT_PROVIDER = 2, /**< text → {start, end, width, ascent, descent, value} */
    LAYOUTD_KIND_LINE_RENDERER = 3        /**< laid-out line → decorations and/or pixels/SVG */
} layoutd_plugin_kind;

/* ---------------------------------------------------------------------------------------
 * Options: a read-only JSON value tree built by the host from JSON (the plugin's section of
 * the daemon's config for `init`, the request's object for a call). Host-owned.
 * --------------------------------------------------------------------------------------- */

typedef enum layoutd_value_type {
    LAYOUTD_VALUE_NULL = 0,
    LAYOUTD_VALUE_BOOL = 1,
    LAYOUTD_VALUE_NUMBER = 2,
    LAYOUTD_VALUE_STRING = 3,
    LAYOUTD_VALUE_ARRAY = 4,
    LAYOUTD_VALUE_OBJECT = 5
} layoutd_value_type;

typedef struct layoutd_member layoutd_member;

/** One JSON value. Strings are UTF-8, NUL-terminated, with their byte length. */
typedef struct layoutd_value {
    uint32_t type;                  /**< a layoutd_value_type */
    uint32_t count;                 /**< items (array) or members (object); 0 otherwise */
    double number;                  /**< NUMBER; BOOL is 0 or 1 */
    const char *string;             /**< STRING; NULL otherwise */
    size_t length;                  /**< STRING byte length */
    const struct layoutd_value *items;   /**< ARRAY: `count` values */
    const layoutd_member *members;       /**< OBJECT: `count` members, in document order */
} layoutd_value;

/** One member of an object: key (UTF-8, NUL-terminated) and value. */
struct layoutd_member {
    const char *key;
    size_t key_length;
    layoutd_value value;
};

/* ---------------------------------------------------------------------------------------
 * Geometry shared by renderers. Units are points, y down, origin at the layout box's
 * top-left corner (the same space as the `layout` result).
 * --------------------------------------------------------------------------------------- */

typedef struct layoutd_rect {
    double x, y, width, height;
} layoutd_rect;

/** A color, 0xRRGGBBAA. */
typedef uint32_t layoutd_color;

/** A font the line uses: a file and face index as fontconfig found them, the size in
 * points and the variation axis values in effect. */
typedef struct layoutd_font {
    const char *file;               /**< absolute path, NUL-terminated */
    uint32_t index;                 /**< face index in the file */
    uint32_t variation_count;
    double size;                    /**< points */
    const uint32_t *variation_tags; /**< OpenType axis tags ('wght' = 0x77676874) */
    const double *variation_values;
} layoutd_font;

/** One positioned glyph: its origin on the baseline, absolute (x, y), in points. */
typedef struct layoutd_glyph {
    uint32_t id;                    /**< glyph id in `font` */
    uint32_t cluster;               /**< UTF-8 byte offset of its cluster in the text */
    double x, y;                    /**< pen position plus offsets; y is the baseline (shifted) */
    double advance;
} layoutd_glyph;

/** The character style in effect on a run (spans resolved). */
typedef struct layoutd_style {
    layoutd_color color;            /**< text color */
    layoutd_color background;       /**< 0 when none */
    layoutd_color underline_color;  /**< 0 when no underline */
    layoutd_color strikethrough_color; /**< 0 when none */
    uint32_t underline;             /**< 0 none, 1 single, 2 double, 3 thick */
    uint32_t strikethrough;         /**< 0 none, 1 single */
    uint32_t is_attachment;         /**< 1 when the run is an inline object */
    uint32_t reserved;
} layoutd_style;

/** A run of glyphs on one line, in visual order within the line. */
typedef struct layoutd_run {
    uint32_t start, end;            /**< UTF-8 byte range of the text */
    uint32_t font;                  /**< index into layoutd_line.fonts; ignore for attachments */
    uint32_t rtl;                   /**< 1 when the run is right-to-left */
    double x, width;                /**< absolute left edge and width */
    double baseline;                /**< absolute y of this run's (shifted) baseline */
    layoutd_style style;
    uint32_t glyph_count;
    uint32_t is_token;              /**< 1 for the truncation token's run */
    const layoutd_glyph *glyphs;
    const char *attachment_value;   /**< for an attachment run: its value, or NULL */
} layoutd_run;

/** layoutd_region.flags: the region is a disabled link (a span with `enabled: false`). */
#define LAYOUTD_REGION_DISABLED 1u

/** A region (link, mention, code, attachment, truncation token, ...) as it falls on this line. */
typedef struct layoutd_region {
    uint32_t start, end;            /**< UTF-8 byte range of the whole region */
    const char *kind;               /**< "link", "url", "mention", "code", "attachment", ... */
    const char *value;              /**< NULL when none */
    uint32_t rect_count;            /**< the region's rects on this line only */
    uint32_t flags;                 /**< LAYOUTD_REGION_* bits; other bits are 0 (ignore them) */
    const layoutd_rect *rects;
} layoutd_region;

/** One laid-out line, everything a renderer needs to draw or decorate it. */
typedef struct layoutd_line {
    uint32_t struct_size;           /**< sizeof(layoutd_line) of the host */
    uint32_t index;                 /**< line number, 0-based, visual top to bottom */
    uint32_t start, end;            /**< UTF-8 byte range of the line's text */
    layoutd_rect box;               /**< the line box */
    double baseline, ascent, descent;
    const char *text;               /**< the whole text, UTF-8 */
    size_t text_length;
    uint32_t run_count, font_count, region_count, rtl;
    const layoutd_run *runs;
    const layoutd_font *fonts;
    const layoutd_region *regions;
    const layoutd_value *options;   /**< the request's renderer options; never NULL */
    const void *reserved[4];
} layoutd_line;

/* ---------------------------------------------------------------------------------------
 * Host services, handed to `init` and valid until `fini` returns. Thread-safe.
 * --------------------------------------------------------------------------------------- */

/** A glyph image rasterized by the host (FreeType). Owned by the host; valid until the
 * callback it was passed to returns. */
typedef struct layoutd_glyph_image {
    uint32_t width, height;         /**< pixels */
    int32_t left, top;              /**< bitmap origin: pixels right of and above the glyph origin */
    uint32_t stride;                /**< bytes per row */
    uint32_t format;                /**< 1: 8-bit coverage (tint with the text color); 2: premultiplied BGRA (color emoji) */
    const uint8_t *pixels;
} layoutd_glyph_image;

/** Receives a glyph image. */
typedef void (*layoutd_glyph_image_fn)(void *context, const layoutd_glyph_image *image);

/** An attachment's image, decoded by the host from a file its configuration names: straight
 * (not premultiplied) RGBA, 8 bits a channel. Owned by the host; valid until the callback it
 * was passed to returns. */
typedef struct layoutd_image {
    uint32_t width, height;         /**< pixels, at least 1 each */
    uint32_t stride;                /**< bytes per row, at least 4 × width */
    uint32_t reserved;              /**< 0 */
    const uint8_t *pixels;          /**< R, G, B, A */
} layoutd_image;

/** Receives an attachment's image. */
typedef void (*layoutd_image_fn)(void *context, const layoutd_image *image);

/** Receives a glyph outline, y down, in pixels at the requested size relative to the glyph
 * origin: op 'M' (x0,y0), 'L' (x0,y0), 'Q' (x0,y0 control, x1,y1 end),
 * 'C' (x0,y0, x1,y1 controls, x2,y2 end), 'Z' (close; no points). */
typedef void (*layoutd_path_fn)(void *context, char op, const double *points);

/** Receives bytes (UTF-8 text or data). */
typedef void (*layoutd_bytes_fn)(void *context, const char *bytes, size_t length);

typedef struct layoutd_host {
    uint32_t struct_size;           /**< sizeof(layoutd_host) of the host */
    uint32_t abi_version;           /**< LAYOUTD_PLUGIN_ABI_VERSION of the host */
    /** Logs one line (level: 3 error, 4 warning, 6 info, 7 debug) under the plugin's name. */
    void (*log)(const struct layoutd_host *host, int level, const char *message);
    /** Rasterizes `glyph` of `font` at `pixel_size` pixels per em (the font's size times the
     * render scale); calls `sink` once with the image (an empty glyph gives width 0).
     * Returns 0, or -1 when the font cannot be opened or the glyph rendered. */
    int (*glyph_image)(const struct layoutd_host *host, const layoutd_font *font, uint32_t glyph,
                       double pixel_size, layoutd_glyph_image_fn sink, void *context);
    /** Walks the outline of `glyph` at `pixel_size`, calling `sink` per segment. Returns 0,
     * 1 when the glyph has no outline (a bitmap-only color glyph: use glyph_image), or -1. */
    int (*glyph_outline)(const struct layoutd_host *host, const layoutd_font *font, uint32_t glyph,
                         double pixel_size, layoutd_path_fn sink, void *context);
    /** Encodes premultiplied-or-not RGBA pixels (8 bits each, `stride` bytes per row) as a PNG
     * and passes the base64 of it to `sink` (for data: URIs in SVG). Returns 0 or -1. */
    int (*png_base64)(const struct layoutd_host *host, const uint8_t *rgba, uint32_t width,
                      uint32_t height, uint32_t stride, layoutd_bytes_fn sink, void *context);
    void *host_context;             /**< the host's; do not touch */
    /** (Attachment providers, during `init` only; NULL from hosts before it.) Declares that an
     * attachment whose value is `name` shows the PNG `file`, a path the plugin's configuration
     * gave (relative: to the configuration file's folder) — never one from a request. The host
     * opens it at once (O_NOFOLLOW, a regular file, at most 1 MiB), decodes it (libpng; at
     * most 1024 pixels a side) and keeps the pixels for renderers. Returns 0, or -1 when it
     * is refused, cannot be read or decoded (the host logs why) or `init` has returned. */
    int (*register_image)(const struct layoutd_host *host, const char *name, const char *file);
    /** (Renderers; NULL from hosts before it.) Calls `sink` once with the image registered
     * under `name` (an attachment run's `attachment_value`). Returns 0, or 1 when no image is
     * registered under that name (draw a placeholder). */
    int (*attachment_image)(const struct layoutd_host *host, const char *name, layoutd_image_fn sink,
                            void *context);
    const void *reserved[6];
} layoutd_host;

/* ---------------------------------------------------------------------------------------
 * Calls and their results.
 * --------------------------------------------------------------------------------------- */

/** A link-detector call: one requested kind over one text. */
typedef struct layoutd_detect_request {
    uint32_t struct_size;
    uint32_t reserved0;
    const char *text;               /**< UTF-8 */
    size_t text_length;             /**< bytes */
    const char *kind;               /**< one of the plugin's `kinds` */
    const layoutd_value *options;   /**< the request's object for this kind ({} when a plain string was asked); never NULL */
    const char *language;           /**< BCP 47 tag of the text, "" when unknown */
    const void *reserved[4];
} layoutd_detect_request;

/** One detected link. `value` is what it points to (a URL, a user name, ...), NUL-terminated
 * UTF-8, or NULL to mean the matched text itself. */
typedef struct layoutd_link {
    uint32_t start, end;
    const char *kind;               /**< the kind (normally the request's), NUL-terminated */
    const char *value;
} layoutd_link;

/** Receives one link; the host copies it before returning. */
typedef void (*layoutd_link_sink)(void *context, const layoutd_link *link);

/** One inline object: the text [start, end) lays out as one object `width` wide reaching
 * `ascent` above the baseline and `descent` below. `value` names it (an image file, say). */
typedef struct layoutd_attachment {
    uint32_t start, end;
    double width, ascent, descent;
    const char *value;              /**< NUL-terminated UTF-8 or NULL */
} layoutd_attachment;

/** Receives one attachment; the host copies it before returning. */
typedef void (*layoutd_attachment_sink)(void *context, const layoutd_attachment *attachment);

/** An attachment-provider call. `font_size` is the base font size in points, so that a
 * provider can size objects relative to the text. */
typedef struct layoutd_attachment_request {
    uint32_t struct_size;
    uint32_t reserved0;
    const char *text;
    size_t text_length;
    double font_size;
    const layoutd_value *options;   /**< the request's options for this provider; never NULL */
    const void *reserved[4];
} layoutd_attachment_request;

/** Decoration primitives a renderer returns for a line. */
typedef enum layoutd_decoration_shape {
    LAYOUTD_DECORATION_RECT = 1,          /**< `rect` filled */
    LAYOUTD_DECORATION_ROUNDED_RECT = 2,  /**< `rect` filled with corner `radius` */
    LAYOUTD_DECORATION_LINE = 3           /**< from (x0,y0) to (x1,y1), `thickness` wide */
} layoutd_decoration_shape;

typedef struct layoutd_decoration {
    uint32_t shape;                 /**< a layoutd_decoration_shape */
    layoutd_color color;
    layoutd_rect rect;              /**< RECT, ROUNDED_RECT */
    double radius;                  /**< ROUNDED_RECT */
    double x0, y0, x1, y1;          /**< LINE */
    double thickness;               /**< LINE */
    const char *role;               /**< what it is for ("code", "highlight"...), NUL-terminated or NULL */
} layoutd_decoration;

/** Receives one decoration; the host copies it before returning. */
typedef void (*layoutd_decoration_sink)(void *context, const layoutd_decoration *decoration);

/** What a renderer draws into. For RGBA, `pixels` is `height` rows of `stride` bytes, each
 * pixel R, G, B, A (straight alpha), already holding the background and earlier lines:
 * composite over it. For SVG, the renderer calls `append` with SVG elements (no <svg>
 * wrapper; the host writes it) in the layout's point space — the host applies `scale`. */
typedef enum layoutd_canvas_format {
    LAYOUTD_CANVAS_RGBA = 1,
    LAYOUTD_CANVAS_SVG = 2
} layoutd_canvas_format;

/** One highlighted stretch of the layout: rects on this line with a visual state. */
typedef struct layoutd_highlight {
    uint32_t state;                 /**< 0 normal, 1 pressed, 2 disabled */
    uint32_t rect_count;
    const layoutd_rect *rects;      /**< in layout points, on this line only */
} layoutd_highlight;

typedef struct layoutd_canvas {
    uint32_t struct_size;
    uint32_t format;                /**< a layoutd_canvas_format */
    uint32_t width, height;         /**< pixels (RGBA) or points (SVG) */
    uint32_t stride;                /**< RGBA only */
    uint32_t overlay;               /**< 1: draw a debug overlay (line box, baseline, region rects) */
    double scale;                   /**< pixels per point (RGBA); 1 for SVG */
    uint8_t *pixels;                /**< RGBA only; host-owned */
    layoutd_bytes_fn append;        /**< SVG only */
    void *append_context;
    uint32_t highlight_count, selection_count;
    const layoutd_highlight *highlights; /**< on this line */
    const layoutd_rect *selection;       /**< selection rects on this line, layout points */
    const void *reserved[4];
} layoutd_canvas;

/* ---------------------------------------------------------------------------------------
 * The plugin table.
 * --------------------------------------------------------------------------------------- */

typedef struct layoutd_plugin {
    uint32_t abi_version;           /**< LAYOUTD_PLUGIN_ABI_VERSION */
    uint32_t struct_size;           /**< sizeof(layoutd_plugin) */
    uint32_t kind;                  /**< a layoutd_plugin_kind */
    uint32_t reserved0;
    const char *name;               /**< unique, [a-z0-9_-]+, static */
    const char *version;            /**< free-form, static */
    /** NULL-terminated list of what it provides: for a link detector the kinds it detects
     * ("url", "email"), for an attachment provider and a renderer its own name(s). */
    const char *const *kinds;

    /** Called once after loading. `options` is the plugin's section of the daemon's config
     * (`plugins.options.<name>`), or an empty object. Sets `*state` (may stay NULL). Must
     * not keep `options`. Returns 0, or non-zero with a message in `error` to be refused. */
    int (*init)(const layoutd_host *host, const layoutd_value *options, void **state,
                char *error, size_t error_size);
    /** Called once before unloading (reload, shutdown). Frees `state`. May be NULL. */
    void (*fini)(void *state);

    /** LINK_DETECTOR: emits each link of `request->kind` in the text, in any order. */
    int (*detect)(void *state, const layoutd_detect_request *request, layoutd_link_sink emit,
                  void *context, char *error, size_t error_size);
    /** ATTACHMENT_PROVIDER: emits each inline object in the text. */
    int (*attachments)(void *state, const layoutd_attachment_request *request,
                       layoutd_attachment_sink emit, void *context, char *error, size_t error_size);
    /** LINE_RENDERER (optional): emits decorations for one line; they come back in the
     * `layout` result as that line's `decorations`. */
    int (*decorate)(void *state, const layoutd_line *line, layoutd_decoration_sink emit,
                    void *context, char *error, size_t error_size);
    /** LINE_RENDERER (optional): draws one line onto `canvas`. */
    int (*draw)(void *state, const layoutd_line *line, const layoutd_canvas *canvas,
                char *error, size_t error_size);

    const void *reserved[8];        /**< zero */
} layoutd_plugin;

/** The entry point's type. `host_abi_version` is the host's LAYOUTD_PLUGIN_ABI_VERSION; a
 * plugin may return NULL when it cannot serve that version. */
typedef const layoutd_plugin *(*layoutd_plugin_entry_fn)(uint32_t host_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* LAYOUTD_PLUGIN_H */
