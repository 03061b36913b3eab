/* colors.c: a complete layoutd link detector, the example of docs/plugins.md.
 *
 * Finds CSS hex colours such as "#1a73e8" or "#fff" (a '#' not inside a word, then three or
 * six hex digits, not followed by another letter or digit) and gives each as a region of
 * kind "color" whose value is the colour as "#rrggbb" in lower case. With "upper": true in
 * the request's options ({"kind": "color", "upper": true}) or in the daemon's configuration
 * (plugins.options.colors.upper), the value is upper case instead.
 *
 * Build: cc -shared -fPIC -I/path/to/layoutd/Sources/CLayoutPlugin/include colors.c -o colors.so
 * Load:  layoutd --plugin-dir /folder/holding/colors.so
 */
#include <layoutd_plugin.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What init keeps: the configured letter case (options die after init). */
typedef struct {
    int upper;
} colors_state;

/* The boolean member `key` of an object value: 1, 0, or `otherwise` when absent. */
static int member_bool(const layoutd_value *object, const char *key, int otherwise) {
    if (!object || object->type != LAYOUTD_VALUE_OBJECT) return otherwise;
    for (uint32_t i = 0; i < object->count; i++) {
        const layoutd_member *m = &object->members[i];
        if (strcmp(m->key, key) == 0 && m->value.type == LAYOUTD_VALUE_BOOL) return m->value.number != 0;
    }
    return otherwise;
}

static int colors_init(const layoutd_host *host, const layoutd_value *options, void **state,
                       char *error, size_t error_size) {
    colors_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(error, error_size, "out of memory");
        return 1;
    }
    s->upper = member_bool(options, "upper", 0);
    host->log(host, 6, "color detector ready");
    *state = s;
    return 0;
}

static void colors_fini(void *state) { free(state); }

static int is_hex(char c) { return isxdigit((unsigned char)c); }
/* ASCII letters and digits, and any byte of a non-ASCII character, continue a word. */
static int is_word(char c) { return isalnum((unsigned char)c) || c == '_' || (c & 0x80); }

static int colors_detect(void *state, const layoutd_detect_request *request, layoutd_link_sink emit,
                         void *context, char *error, size_t error_size) {
    const colors_state *s = state;
    if (strcmp(request->kind, "color") != 0) {
        snprintf(error, error_size, "unknown kind \"%s\"", request->kind);
        return 1;
    }
    int upper = member_bool(request->options, "upper", s->upper);
    const char *t = request->text;
    size_t n = request->text_length;
    for (size_t i = 0; i < n; i++) {
        if (t[i] != '#' || (i > 0 && is_word(t[i - 1]))) continue;
        size_t k = i + 1;
        while (k < n && is_hex(t[k])) k++;
        size_t digits = k - i - 1;
        if ((digits != 3 && digits != 6) || (k < n && is_word(t[k]))) continue;
        char value[8] = "#";
        for (int d = 0; d < 6; d++) {
            char c = digits == 3 ? t[i + 1 + d / 2] : t[i + 1 + d];
            value[1 + d] = (char)(upper ? toupper((unsigned char)c) : tolower((unsigned char)c));
        }
        value[7] = 0;
        layoutd_link link = {(uint32_t)i, (uint32_t)k, "color", value};
        emit(context, &link); /* the host copies it at once: `value` may live on our stack */
        i = k - 1;
    }
    return 0;
}

static const char *const colors_kinds[] = {"color", NULL};

static const layoutd_plugin colors_plugin = {
    .abi_version = LAYOUTD_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(layoutd_plugin),
    .kind = LAYOUTD_KIND_LINK_DETECTOR,
    .name = "colors",
    .version = "1.0",
    .kinds = colors_kinds,
    .init = colors_init,
    .fini = colors_fini,
    .detect = colors_detect,
};

LAYOUTD_PLUGIN_EXPORT const layoutd_plugin *layoutd_plugin_entry(uint32_t host_abi_version) {
    return host_abi_version == LAYOUTD_PLUGIN_ABI_VERSION ? &colors_plugin : NULL;
}
