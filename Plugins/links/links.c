/*
 * links.c — the "links" link-detector plugin: its table and entry point, init/fini, the
 * detect dispatcher (one kind per call) and the helpers detectors emit matches through.
 *
 * Kinds: url, email, mention, hashtag, phone, literal (see url.c, email.c, social.c,
 * phone.c, literal.c). The plugin keeps no state: `state` stays NULL, and every call works
 * only on its own stack and heap, so calls are thread-safe.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_support.h"
#include "links.h"

static const char *const links_kinds[] = {"url", "email", "mention", "hashtag", "phone", "literal", NULL};

int lk_fail(lk_ctx *ctx, const char *format, ...) {
    if (ctx->error && ctx->error_size) {
        va_list args;
        va_start(args, format);
        vsnprintf(ctx->error, ctx->error_size, format, args);
        va_end(args);
    }
    return -1;
}

/** Makes the scratch buffer hold at least `size` bytes. */
static int reserve(lk_ctx *ctx, size_t size) {
    if (size <= ctx->capacity) return 0;
    size_t capacity = ctx->capacity ? ctx->capacity : 256;
    while (capacity < size) capacity *= 2;
    char *buffer = realloc(ctx->buffer, capacity);
    if (!buffer) return lk_fail(ctx, "links: out of memory (%zu bytes for a value)", size);
    ctx->buffer = buffer;
    ctx->capacity = capacity;
    return 0;
}

int lk_emit_value(lk_ctx *ctx, size_t start, size_t end, const char *value) {
    layoutd_link link = {(uint32_t)start, (uint32_t)end, ctx->kind, value};
    ctx->emit(ctx->context, &link);
    return 0;
}

int lk_emit_text(lk_ctx *ctx, size_t start, size_t end, const char *prefix, size_t value_start,
                 size_t value_end) {
    size_t prefix_length = strlen(prefix), length = value_end - value_start;
    if (reserve(ctx, prefix_length + length + 1)) return -1;
    memcpy(ctx->buffer, prefix, prefix_length);
    memcpy(ctx->buffer + prefix_length, ctx->s + value_start, length);
    ctx->buffer[prefix_length + length] = '\0';
    return lk_emit_value(ctx, start, end, ctx->buffer);
}

static int links_init(const layoutd_host *host, const layoutd_value *options, void **state,
                      char *error, size_t error_size) {
    (void)host;
    (void)options;
    (void)error;
    (void)error_size;
    *state = NULL;
    return 0;
}

static void links_fini(void *state) { (void)state; }

/** The request fields this plugin reads end with `options`. */
#define LINKS_REQUEST_MIN_SIZE \
    (offsetof(layoutd_detect_request, options) + sizeof(const layoutd_value *))

static int links_detect(void *state, const layoutd_detect_request *request, layoutd_link_sink emit,
                        void *context, char *error, size_t error_size) {
    (void)state;
    if (!request || !emit) {
        plugin_set_error(error, error_size, "links: no request or sink");
        return 1;
    }
    if (request->struct_size < LINKS_REQUEST_MIN_SIZE) {
        plugin_set_error(error, error_size, "links: request struct too small (%u bytes)", request->struct_size);
        return 1;
    }
    if (!request->kind) {
        plugin_set_error(error, error_size, "links: no kind requested");
        return 1;
    }
    if (!request->text && request->text_length) {
        plugin_set_error(error, error_size, "links: no text");
        return 1;
    }
    if (request->text_length > UINT32_MAX) {
        plugin_set_error(error, error_size, "links: text too long (%zu bytes)", request->text_length);
        return 1;
    }
    size_t which = 0;
    while (links_kinds[which] && strcmp(links_kinds[which], request->kind) != 0) which++;
    if (!links_kinds[which]) {
        plugin_set_error(error, error_size, "links: unknown kind \"%s\"", request->kind);
        return 1;
    }

    static const layoutd_value empty_object = {LAYOUTD_VALUE_OBJECT, 0, 0, NULL, 0, NULL, NULL};
    lk_ctx ctx = {
        .s = (const unsigned char *)(request->text ? request->text : ""),
        .n = request->text_length,
        .kind = links_kinds[which],
        .emit = emit,
        .context = context,
        .error = error,
        .error_size = error_size,
    };
    int rc;
    switch (which) {
    case 0: rc = lk_detect_url(&ctx); break;
    case 1: rc = lk_detect_email(&ctx); break;
    case 2: rc = lk_detect_mention(&ctx); break;
    case 3: rc = lk_detect_hashtag(&ctx); break;
    case 4: rc = lk_detect_phone(&ctx); break;
    default: rc = lk_detect_literal(&ctx, request->options ? request->options : &empty_object); break;
    }
    free(ctx.buffer);
    return rc ? 1 : 0;
}

static const layoutd_plugin links_plugin = {
    .abi_version = LAYOUTD_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(layoutd_plugin),
    .kind = LAYOUTD_KIND_LINK_DETECTOR,
    .name = "links",
    .version = "1.0",
    .kinds = links_kinds,
    .init = links_init,
    .fini = links_fini,
    .detect = links_detect,
};

LAYOUTD_PLUGIN_EXPORT const layoutd_plugin *layoutd_plugin_entry(uint32_t host_abi_version) {
    return host_abi_version == LAYOUTD_PLUGIN_ABI_VERSION ? &links_plugin : NULL;
}
