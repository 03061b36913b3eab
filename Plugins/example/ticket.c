/* ticket.c: a complete layoutd link detector, the example of docs/plugins.md.
 *
 * Finds ticket keys such as "ABC-123" (2 to 10 capital ASCII letters, a dash, 1 to 9
 * digits, not inside a longer word) and links each to `baseURL` + key, where `baseURL`
 * comes from the request, {"kind": "ticket", "baseURL": "https://tracker.example/browse/"},
 * or else from the daemon's configuration (plugins.options.ticket.baseURL).
 *
 * Build: cc -shared -fPIC -I/path/to/layoutd/Sources/CLayoutPlugin/include ticket.c -o ticket.so
 * Load:  layoutd --plugin-dir /folder/holding/ticket.so
 */
#include <layoutd_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What init keeps: the configured base URL (a copy: options die after init). */
typedef struct {
    char base_url[512];
} ticket_state;

/* The string member `key` of an object value, or NULL. */
static const char *member_string(const layoutd_value *object, const char *key) {
    if (!object || object->type != LAYOUTD_VALUE_OBJECT) return NULL;
    for (uint32_t i = 0; i < object->count; i++) {
        const layoutd_member *m = &object->members[i];
        if (strcmp(m->key, key) == 0 && m->value.type == LAYOUTD_VALUE_STRING) return m->value.string;
    }
    return NULL;
}

static int ticket_init(const layoutd_host *host, const layoutd_value *options, void **state,
                       char *error, size_t error_size) {
    ticket_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(error, error_size, "out of memory");
        return 1;
    }
    const char *base = member_string(options, "baseURL");
    snprintf(s->base_url, sizeof s->base_url, "%s", base ? base : "https://tickets.example/");
    host->log(host, 6, "ticket detector ready");
    *state = s;
    return 0;
}

static void ticket_fini(void *state) { free(state); }

static int is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
/* ASCII letters and digits, and any byte of a non-ASCII character, continue a word. */
static int is_word(char c) { return is_upper(c) || is_digit(c) || (c >= 'a' && c <= 'z') || c == '_' || (c & 0x80); }

static int ticket_detect(void *state, const layoutd_detect_request *request, layoutd_link_sink emit,
                         void *context, char *error, size_t error_size) {
    const ticket_state *s = state;
    const char *base = member_string(request->options, "baseURL");
    if (!base) base = s->base_url;
    if (strcmp(request->kind, "ticket") != 0) {
        snprintf(error, error_size, "unknown kind \"%s\"", request->kind);
        return 1;
    }
    const char *t = request->text;
    size_t n = request->text_length, i = 0;
    while (i < n) {
        if (!is_upper(t[i]) || (i > 0 && is_word(t[i - 1]))) { i++; continue; }
        size_t j = i;
        while (j < n && is_upper(t[j])) j++;
        size_t letters = j - i;
        if (letters < 2 || letters > 10 || j >= n || t[j] != '-') { i = j; continue; }
        size_t k = j + 1;
        while (k < n && is_digit(t[k])) k++;
        size_t digits = k - j - 1;
        if (digits < 1 || digits > 9 || (k < n && is_word(t[k]))) { i = k; continue; }
        char value[600];
        snprintf(value, sizeof value, "%s%.*s", base, (int)(k - i), t + i);
        layoutd_link link = {(uint32_t)i, (uint32_t)k, "ticket", value};
        emit(context, &link); /* the host copies it at once: `value` may live on our stack */
        i = k;
    }
    return 0;
}

static const char *const ticket_kinds[] = {"ticket", NULL};

static const layoutd_plugin ticket_plugin = {
    .abi_version = LAYOUTD_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(layoutd_plugin),
    .kind = LAYOUTD_KIND_LINK_DETECTOR,
    .name = "ticket",
    .version = "1.0",
    .kinds = ticket_kinds,
    .init = ticket_init,
    .fini = ticket_fini,
    .detect = ticket_detect,
};

LAYOUTD_PLUGIN_EXPORT const layoutd_plugin *layoutd_plugin_entry(uint32_t host_abi_version) {
    return host_abi_version == LAYOUTD_PLUGIN_ABI_VERSION ? &ticket_plugin : NULL;
}
