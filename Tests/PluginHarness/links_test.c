/*
 * links_test.c — test driver for the links and shortcodes plugins. It dlopens both shared
 * objects, checks their plugin tables, runs init with hand-built option trees and checks
 * detection and attachment results at exact byte offsets, then times every link kind on
 * 1 MB pathological inputs. Texts are handed over in exact-size heap copies without a
 * terminating NUL, so a read past text_length shows up under valgrind or ASan.
 *
 * Exits 0 when every check passes, 1 otherwise. LINKS_TEST_TIME_LIMIT (seconds, default 1)
 * bounds each timed run; raise it under valgrind. Build and run from the package root:
 */
// cc -std=c11 -Wall -Wextra -O2 -fPIC -shared -fvisibility=hidden -I Sources/CLayoutPlugin/include Plugins/links/*.c -o /tmp/links.so
// cc -std=c11 -Wall -Wextra -O2 -fPIC -shared -fvisibility=hidden -I Sources/CLayoutPlugin/include Plugins/shortcodes/*.c -o /tmp/shortcodes.so
// cc -std=c11 -Wall -Wextra -I Sources/CLayoutPlugin/include Tests/PluginHarness/links_test.c -ldl -lm -o /tmp/lt
// /tmp/lt /tmp/links.so /tmp/shortcodes.so
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layoutd_plugin.h"

static int failures, checks;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        checks++;                                                          \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

/* ---- option trees ------------------------------------------------------------------- */

static layoutd_value v_str(const char *s) {
    layoutd_value v = {0};
    v.type = LAYOUTD_VALUE_STRING;
    v.string = s;
    v.length = strlen(s);
    return v;
}

static layoutd_value v_num(double d) {
    layoutd_value v = {0};
    v.type = LAYOUTD_VALUE_NUMBER;
    v.number = d;
    return v;
}

static layoutd_value v_null(void) { return (layoutd_value){0}; }

static layoutd_value v_obj(const layoutd_member *members, uint32_t count) {
    layoutd_value v = {0};
    v.type = LAYOUTD_VALUE_OBJECT;
    v.count = count;
    v.members = members;
    return v;
}

/** A member: M("key", value). */
#define M(key, value) {key, sizeof(key) - 1, value}
/** An object of members: OBJ(M(...), M(...)). The members live in the enclosing block. */
#define OBJ(...) \
    v_obj((const layoutd_member[]){__VA_ARGS__}, sizeof((const layoutd_member[]){__VA_ARGS__}) / sizeof(layoutd_member))

static const layoutd_value empty_object = {LAYOUTD_VALUE_OBJECT, 0, 0, NULL, 0, NULL, NULL};

/* ---- results ------------------------------------------------------------------------- */

/** One result copied out of a sink (links leave the sizes 0). */
typedef struct found {
    uint32_t start, end;
    char *kind, *value;
    double width, ascent, descent;
} found;

typedef struct found_list {
    found *items;
    size_t count, capacity;
} found_list;

static char *dup_or_null(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d) abort();
    return memcpy(d, s, n);
}

static found *push(found_list *list) {
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 16;
        list->items = realloc(list->items, list->capacity * sizeof *list->items);
        if (!list->items) abort();
    }
    found *f = &list->items[list->count++];
    memset(f, 0, sizeof *f);
    return f;
}

static void clear(found_list *list) {
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].kind);
        free(list->items[i].value);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}

static void link_sink(void *context, const layoutd_link *link) {
    found *f = push(context);
    f->start = link->start;
    f->end = link->end;
    f->kind = dup_or_null(link->kind);
    f->value = dup_or_null(link->value);
}

static void attachment_sink(void *context, const layoutd_attachment *a) {
    found *f = push(context);
    f->start = a->start;
    f->end = a->end;
    f->value = dup_or_null(a->value);
    f->width = a->width;
    f->ascent = a->ascent;
    f->descent = a->descent;
}

/** Counts results without keeping them (for the timed runs). */
static void count_sink(void *context, const layoutd_link *link) {
    (void)link;
    (*(size_t *)context)++;
}

static void print_found(const found_list *list) {
    for (size_t i = 0; i < list->count; i++)
        fprintf(stderr, "    [%u, %u) %s \"%s\"\n", list->items[i].start, list->items[i].end,
                list->items[i].kind ? list->items[i].kind : "-",
                list->items[i].value ? list->items[i].value : "(null)");
}

/* ---- plugins ------------------------------------------------------------------------- */

static const layoutd_plugin *links, *shortcodes;
static void *links_state;
static char error[256];

/** dlopens `path` (the handle goes to `*handle`, for dlclose) and checks its table. */
static const layoutd_plugin *load(const char *path, void **handle_out) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        exit(1);
    }
    *handle_out = handle;
    layoutd_plugin_entry_fn entry;
    void *symbol = dlsym(handle, LAYOUTD_PLUGIN_ENTRY_SYMBOL);
    memcpy(&entry, &symbol, sizeof entry);
    if (!entry) {
        fprintf(stderr, "%s has no %s\n", path, LAYOUTD_PLUGIN_ENTRY_SYMBOL);
        exit(1);
    }
    CHECK(entry(LAYOUTD_PLUGIN_ABI_VERSION + 1) == NULL, "%s accepts a foreign ABI version", path);
    const layoutd_plugin *p = entry(LAYOUTD_PLUGIN_ABI_VERSION);
    if (!p) {
        fprintf(stderr, "%s returned no table\n", path);
        exit(1);
    }
    CHECK(p->abi_version == LAYOUTD_PLUGIN_ABI_VERSION, "abi_version %u", p->abi_version);
    CHECK(p->struct_size == sizeof(layoutd_plugin), "struct_size %u", p->struct_size);
    CHECK(p->init && p->fini, "init/fini missing");
    return p;
}

/** Runs one detect call on an exact-size, unterminated copy of `text`. */
static int detect(const char *kind, const char *text, const layoutd_value *options, found_list *out) {
    size_t n = strlen(text);
    char *copy = malloc(n ? n : 1);
    if (!copy) abort();
    memcpy(copy, text, n);
    layoutd_detect_request request = {0};
    request.struct_size = sizeof request;
    request.text = copy;
    request.text_length = n;
    request.kind = kind;
    request.options = options ? options : &empty_object;
    request.language = "";
    error[0] = '\0';
    int rc = links->detect(links_state, &request, link_sink, out, error, sizeof error);
    free(copy);
    return rc;
}

/** An expected link (or attachment, ignoring sizes). */
typedef struct expect {
    uint32_t start, end;
    const char *value;
} expect;

/** Checks that `kind` on `text` gives exactly the expected links, in text order. */
static void expect_links(const char *kind, const char *text, const layoutd_value *options,
                         const expect *want, size_t count, int line) {
    found_list got = {0};
    int rc = detect(kind, text, options, &got);
    int ok = rc == 0 && got.count == count;
    for (size_t i = 0; ok && i < count; i++) {
        const found *f = &got.items[i];
        ok = f->start == want[i].start && f->end == want[i].end && f->kind && strcmp(f->kind, kind) == 0 &&
             ((!f->value && !want[i].value) || (f->value && want[i].value && strcmp(f->value, want[i].value) == 0));
    }
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL line %d: %s in \"%s\" (rc %d %s)\n  want:\n", line, kind, text, rc, error);
        for (size_t i = 0; i < count; i++)
            fprintf(stderr, "    [%u, %u) \"%s\"\n", want[i].start, want[i].end, want[i].value ? want[i].value : "(null)");
        fprintf(stderr, "  got:\n");
        print_found(&got);
    }
    clear(&got);
}

#define EXPECT(kind, text, options, ...)                                                     \
    expect_links(kind, text, options, (const expect[]){__VA_ARGS__},                         \
                 sizeof((const expect[]){__VA_ARGS__}) / sizeof(expect), __LINE__)
#define EXPECT_NONE(kind, text) expect_links(kind, text, NULL, NULL, 0, __LINE__)

/* ---- links cases --------------------------------------------------------------------- */

static const char *sentence =
    "很久很久以前[smile]，在一个群里，生活着@百度、@腾讯这样的居民 … https://example.com/a?b=1 … #话题#";

static void test_links_table(void) {
    CHECK(links->kind == LAYOUTD_KIND_LINK_DETECTOR, "links kind %u", links->kind);
    CHECK(strcmp(links->name, "links") == 0, "links name %s", links->name);
    CHECK(strcmp(links->version, "1.0") == 0, "links version %s", links->version);
    CHECK(links->detect != NULL, "links has no detect");
    static const char *const kinds[] = {"url", "email", "mention", "hashtag", "phone", "literal", NULL};
    for (size_t i = 0; kinds[i] || links->kinds[i]; i++)
        CHECK(kinds[i] && links->kinds[i] && strcmp(kinds[i], links->kinds[i]) == 0, "links kind #%zu", i);
}

static void test_sentence(void) {
    EXPECT("mention", sentence, NULL, {55, 62, "百度"}, {65, 87, "腾讯这样的居民"});
    EXPECT("url", sentence, NULL, {92, 117, "https://example.com/a?b=1"});
    EXPECT("hashtag", sentence, NULL, {122, 130, "话题"});
    EXPECT_NONE("email", sentence);
    EXPECT_NONE("phone", sentence);
    EXPECT("mention", "生活着@百度、@腾讯这样的", NULL, {9, 16, "百度"}, {19, 35, "腾讯这样的"});
}

static void test_urls(void) {
    EXPECT("url", "see https://a.com/x.", NULL, {4, 19, "https://a.com/x"});
    EXPECT("url", "(see https://a.com/x)", NULL, {5, 20, "https://a.com/x"});
    EXPECT("url", "https://en.wikipedia.org/wiki/Foo_(bar)", NULL,
           {0, 39, "https://en.wikipedia.org/wiki/Foo_(bar)"});
    EXPECT("url", "(https://en.wikipedia.org/wiki/Foo_(bar)).", NULL,
           {1, 40, "https://en.wikipedia.org/wiki/Foo_(bar)"});
    EXPECT("url", "Go to HTTPS://A.com/x?q=1&r=2#frag!", NULL, {6, 34, "HTTPS://A.com/x?q=1&r=2#frag"});
    EXPECT("url", "ftp://files.example.com/pub, 'http://q.org/'", NULL,
           {0, 27, "ftp://files.example.com/pub"}, {30, 43, "http://q.org/"});
    EXPECT("url", "www.bücher.de", NULL, {0, 14, "http://www.bücher.de"});
    EXPECT("url", "visit www.bücher.de.", NULL, {6, 20, "http://www.bücher.de"});
    EXPECT("url", "http://例子.测试/路径", NULL, {0, 27, "http://例子.测试/路径"});
    EXPECT("url", "访问http://例子.测试/路径，谢谢", NULL, {6, 33, "http://例子.测试/路径"});
    EXPECT("url", "「https://a.com/x」", NULL, {3, 18, "https://a.com/x"});
    EXPECT("url", "请访问www.example.com了解更多！", NULL, {9, 24, "http://www.example.com"});
    EXPECT("url", "见https://zh.wikipedia.org/wiki/中文。", NULL, {3, 39, "https://zh.wikipedia.org/wiki/中文"});
    EXPECT("url", "<https://a.com/x>\"http://b.com\"", NULL, {1, 16, "https://a.com/x"}, {18, 30, "http://b.com"});
    EXPECT("url", "mailto:a@b.com", NULL, {0, 14, "mailto:a@b.com"});
    EXPECT("url", "MAILTO:x@y.org?subject=hi.", NULL, {0, 25, "MAILTO:x@y.org?subject=hi"});
    EXPECT_NONE("url", "http://");
    EXPECT_NONE("url", "http:// alone");
    EXPECT_NONE("url", "http:///path");
    EXPECT_NONE("url", "www.");
    EXPECT_NONE("url", "www.example");
    EXPECT_NONE("url", "xhttp://a.com and a.www.b.com");
}

static void test_emails(void) {
    EXPECT("email", "write to a.b@example.org.", NULL, {9, 24, "mailto:a.b@example.org"});
    EXPECT_NONE("mention", "write to a.b@example.org.");
    EXPECT("email", "邮箱a@b.com联系我", NULL, {6, 13, "mailto:a@b.com"});
    EXPECT("email", "x+tag@例子.测试", NULL, {0, 19, "mailto:x+tag@例子.测试"});
    EXPECT_NONE("email", "müller@x.de");
    EXPECT_NONE("email", "a@b.c a@b a@.com .@b.com a.@b.com");
    EXPECT("email", "12345678@qq.com", NULL, {0, 15, "mailto:12345678@qq.com"});
    EXPECT_NONE("phone", "12345678@qq.com");
}

static void test_mentions_hashtags(void) {
    EXPECT("mention", "a@b.com @c", NULL, {8, 10, "c"});
    EXPECT_NONE("mention", "user@example.com");
    EXPECT("mention", "@alice, @bob-smith- and @_x1!", NULL, {0, 6, "alice"}, {8, 18, "bob-smith"}, {24, 28, "_x1"});
    EXPECT_NONE("mention", "see https://medium.com/@user/post");
    EXPECT_NONE("mention", "@ @@ @-");
    EXPECT("hashtag", "#tag", NULL, {0, 4, "tag"});
    EXPECT_NONE("hashtag", "#123");
    EXPECT("hashtag", "#tag1 and #2go, not a#b", NULL, {0, 5, "tag1"}, {10, 14, "2go"});
    EXPECT("hashtag", "今天#话题#很好 #タグ", NULL, {6, 14, "话题"}, {21, 28, "タグ"});
    EXPECT("hashtag", "#a b# ok", NULL, {0, 2, "a"});
    EXPECT_NONE("hashtag", "https://a.com/#top and #12#");
}

static void test_phones(void) {
    EXPECT("phone", "+1 (555) 123-4567", NULL, {0, 17, "tel:+15551234567"});
    EXPECT("phone", "010-12345678", NULL, {0, 12, "tel:01012345678"});
    EXPECT("phone", "电话：+86 138 0013 8000。", NULL, {9, 26, "tel:+8613800138000"});
    EXPECT("phone", "call (555) 123-4567 or 555.123.4567.", NULL,
           {5, 19, "tel:5551234567"}, {23, 35, "tel:5551234567"});
    EXPECT("phone", "+49 (0)30 1234567, 13800138000", NULL, {0, 17, "tel:+490301234567"}, {19, 30, "tel:13800138000"});
    EXPECT_NONE("phone", "2024-01-15 192.168.1.100 3.14159265 call 12345 abc1234567 1234567890123456");
}

static void test_literal(void) {
    layoutd_value table = OBJ(M("@百度", v_str("https://www.baidu.com")),
                              M("@百度一下", v_str("https://www.baidu.com/s")),
                              M("一下", v_null()));
    layoutd_value options = OBJ(M("table", table));
    EXPECT("literal", "用@百度一下和@百度", &options, {3, 16, "https://www.baidu.com/s"}, {19, 26, "https://www.baidu.com"});
    EXPECT("literal", "用@百度一下和@百度", &table, {3, 16, "https://www.baidu.com/s"}, {19, 26, "https://www.baidu.com"});
    EXPECT("literal", "一下@百度", &table, {0, 6, NULL}, {6, 13, "https://www.baidu.com"});
    layoutd_value echoed = OBJ(M("kind", v_str("literal")), M("table", table));
    EXPECT("literal", "kind: @百度", &echoed, {6, 13, "https://www.baidu.com"});
    layoutd_value direct = OBJ(M("kind", v_str("literal")), M("@百度", v_str("B")));
    EXPECT("literal", "kind: @百度", &direct, {6, 13, "B"});
    layoutd_value overlapping = OBJ(M("abc", v_str("1")), M("bcd", v_str("2")), M("abcd", v_str("3")),
                                    M("x", v_str("old")), M("x", v_str("new")));
    EXPECT("literal", "abcde bcd abc xabc", &overlapping, {0, 4, "3"}, {6, 9, "2"}, {10, 13, "1"}, {14, 15, "new"},
           {15, 18, "1"});
    EXPECT_NONE("literal", "no table given");

    layoutd_value bad = OBJ(M("k", v_num(1)));
    found_list got = {0};
    CHECK(detect("literal", "k", &bad, &got) != 0 && strstr(error, "\"k\""), "non-string literal value accepted: %s", error);
    clear(&got);
    CHECK(detect("nonsense", "text", NULL, &got) != 0 && strstr(error, "nonsense"), "unknown kind accepted: %s", error);
    clear(&got);
}

/* ---- timing -------------------------------------------------------------------------- */

/* This thread's CPU time, not the wall clock: the bound is there to catch work that grows
 * faster than the text (quadratic in 1 MB would take minutes), and other processes on a
 * loaded machine must not make a linear detector miss it. */
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/** Runs every kind over 1 MB of `unit` repeated and prints the times. */
static void time_kinds(const char *label, const char *unit, double limit) {
    size_t n = 1 << 20, k = strlen(unit);
    char *text = malloc(n);
    if (!text) abort();
    for (size_t i = 0; i < n; i++) text[i] = unit[i % k];
    /* A literal table whose keys keep the matcher walking: "a"... "aaa...ab" */
    char long_key[201];
    memset(long_key, unit[0], 199);
    long_key[199] = 'b';
    long_key[200] = '\0';
    layoutd_value table = OBJ(M("a", v_str("A")), M("(", v_str("P")), M("@", v_str("@")), {long_key, 200, v_str("L")});
    static const char *const kinds[] = {"url", "email", "mention", "hashtag", "phone", "literal"};
    printf("1 MB of \"%s\":", label);
    for (size_t i = 0; i < 6; i++) {
        layoutd_detect_request request = {0};
        request.struct_size = sizeof request;
        request.text = text;
        request.text_length = n;
        request.kind = kinds[i];
        request.options = i == 5 ? &table : &empty_object;
        request.language = "";
        size_t count = 0;
        double t0 = now();
        int rc = links->detect(links_state, &request, count_sink, &count, error, sizeof error);
        double dt = now() - t0;
        printf(" %s %.1f ms (%zu)%s", kinds[i], dt * 1e3, count, i == 5 ? "\n" : ",");
        CHECK(rc == 0, "%s on %s failed: %s", kinds[i], label, error);
        CHECK(dt < limit, "%s on 1 MB of %s took %.3f s", kinds[i], label, dt);
    }
    free(text);
}

/** A 3000-key literal table over 1 MB of text that is full of keys and near-keys. */
static void time_big_table(double limit) {
    enum { KEYS = 3000 };
    static char names[KEYS][16];
    static layoutd_member members[KEYS];
    for (int i = 0; i < KEYS; i++) {
        snprintf(names[i], sizeof names[i], "k%d", i);
        members[i] = (layoutd_member){names[i], strlen(names[i]), v_str(names[i])};
    }
    layoutd_value table = v_obj(members, KEYS);
    const char *unit = "k12 k29999 kk ";
    size_t n = 1 << 20, k = strlen(unit);
    char *text = malloc(n);
    if (!text) abort();
    for (size_t i = 0; i < n; i++) text[i] = unit[i % k];
    layoutd_detect_request request = {0};
    request.struct_size = sizeof request;
    request.text = text;
    request.text_length = n;
    request.kind = "literal";
    request.options = &table;
    request.language = "";
    size_t count = 0;
    double t0 = now();
    int rc = links->detect(links_state, &request, count_sink, &count, error, sizeof error);
    double dt = now() - t0;
    printf("1 MB against %d literal keys: %.1f ms (%zu)\n", KEYS, dt * 1e3, count);
    CHECK(rc == 0 && count == 2 * (n / k) + (n % k > 3), "big table: rc %d, %zu matches", rc, count);
    CHECK(dt < limit, "big table took %.3f s", dt);
    free(text);
}

/* ---- shortcodes ---------------------------------------------------------------------- */

/** Runs one attachments call on an unterminated copy of `text`. */
static int attach(void *state, const char *text, double font_size, const layoutd_value *options, found_list *out) {
    size_t n = strlen(text);
    char *copy = malloc(n ? n : 1);
    if (!copy) abort();
    memcpy(copy, text, n);
    layoutd_attachment_request request = {0};
    request.struct_size = sizeof request;
    request.text = copy;
    request.text_length = n;
    request.font_size = font_size;
    request.options = options ? options : &empty_object;
    error[0] = '\0';
    int rc = shortcodes->attachments(state, &request, attachment_sink, out, error, sizeof error);
    free(copy);
    return rc;
}

static int near(double a, double b) { return fabs(a - b) < 1e-9; }

/** Checks one attachment: range, image and sizes in points. */
static void check_attachment(const found_list *got, size_t i, uint32_t start, uint32_t end, const char *image,
                             double width, double ascent, double descent, int line) {
    checks++;
    const found *f = i < got->count ? &got->items[i] : NULL;
    if (!f || f->start != start || f->end != end || !f->value || strcmp(f->value, image) != 0 ||
        !near(f->width, width) || !near(f->ascent, ascent) || !near(f->descent, descent)) {
        failures++;
        fprintf(stderr, "FAIL line %d: attachment #%zu: want [%u, %u) %s %g/%g/%g, got ", line, i, start, end, image,
                width, ascent, descent);
        if (f)
            fprintf(stderr, "[%u, %u) %s %g/%g/%g\n", f->start, f->end, f->value ? f->value : "(null)", f->width,
                    f->ascent, f->descent);
        else
            fprintf(stderr, "nothing (%zu results)\n", got->count);
    }
}

static void test_shortcodes(void) {
    CHECK(shortcodes->kind == LAYOUTD_KIND_ATTACHMENT_PROVIDER, "shortcodes kind %u", shortcodes->kind);
    CHECK(strcmp(shortcodes->name, "shortcodes") == 0, "shortcodes name %s", shortcodes->name);
    CHECK(strcmp(shortcodes->version, "1.0") == 0, "shortcodes version %s", shortcodes->version);
    CHECK(shortcodes->kinds[0] && strcmp(shortcodes->kinds[0], "shortcodes") == 0 && !shortcodes->kinds[1],
          "shortcodes kinds");
    CHECK(shortcodes->attachments != NULL, "shortcodes has no attachments");

    /* Default table. */
    void *state = NULL;
    found_list got = {0};
    CHECK(shortcodes->init(NULL, &empty_object, &state, error, sizeof error) == 0, "default init: %s", error);
    CHECK(attach(state, "a[thumbsup][ok][nope]", 20, NULL, &got) == 0, "attachments: %s", error);
    CHECK(got.count == 2, "default table: %zu attachments", got.count);
    check_attachment(&got, 0, 1, 11, "emoji/thumbsup.png", 24, 19, 5, __LINE__);
    check_attachment(&got, 1, 11, 15, "emoji/ok.png", 24, 19, 5, __LINE__);
    clear(&got);
    shortcodes->fini(state);

    /* A configured table: em and pt units, a string shorthand, overlapping codes. */
    layoutd_value config = OBJ(
        M("codes", OBJ(M("[smile]", OBJ(M("image", v_str("/usr/share/layoutd/smile.png")), M("width", v_num(1.2)),
                                        M("ascent", v_num(0.9)), M("descent", v_num(0.3)))),
                       M("[cry]", v_str("cry.png")),
                       M("[cry][cry]", OBJ(M("image", v_str("sob.png")), M("width", v_num(2)))))),
        M("unit", v_str("em")));
    state = NULL;
    CHECK(shortcodes->init(NULL, &config, &state, error, sizeof error) == 0, "init: %s", error);
    CHECK(attach(state, sentence, 10, NULL, &got) == 0, "attachments: %s", error);
    CHECK(got.count == 1, "sentence: %zu attachments", got.count);
    check_attachment(&got, 0, 18, 25, "/usr/share/layoutd/smile.png", 12, 9, 3, __LINE__);
    clear(&got);
    CHECK(attach(state, "[cry][cry][cry][smile", 10, NULL, &got) == 0, "attachments: %s", error);
    CHECK(got.count == 2, "overlap: %zu attachments", got.count);
    check_attachment(&got, 0, 0, 10, "sob.png", 20, 9.5, 2.5, __LINE__);
    check_attachment(&got, 1, 10, 15, "cry.png", 12, 9.5, 2.5, __LINE__);
    clear(&got);

    /* Request codes merged over the config (request wins), in points. */
    layoutd_value request = OBJ(M("codes", OBJ(M("[smile]", OBJ(M("image", v_str("override.png")),
                                                                 M("width", v_num(14)), M("ascent", v_num(11)),
                                                                 M("descent", v_num(3)))),
                                               M("[new]", v_str("new.png")))),
                                M("unit", v_str("pt")));
    CHECK(attach(state, "[new][smile][cry]", 10, &request, &got) == 0, "merged attachments: %s", error);
    CHECK(got.count == 3, "merged: %zu attachments", got.count);
    check_attachment(&got, 0, 0, 5, "new.png", 12, 9.5, 2.5, __LINE__);
    check_attachment(&got, 1, 5, 12, "override.png", 14, 11, 3, __LINE__);
    check_attachment(&got, 2, 12, 17, "cry.png", 12, 9.5, 2.5, __LINE__);
    clear(&got);
    CHECK(attach(state, "[new]", 10, NULL, &got) == 0 && got.count == 0, "request codes leaked into state");
    clear(&got);

    layoutd_value bad_request = OBJ(M("codes", OBJ(M("[x]", OBJ(M("width", v_num(1)))))));
    CHECK(attach(state, "[x]", 10, &bad_request, &got) != 0 && strstr(error, "[x]"), "bad request codes: %s", error);
    clear(&got);
    CHECK(attach(state, "[cry]", NAN, NULL, &got) != 0, "NaN font size accepted");
    clear(&got);
    shortcodes->fini(state);

    /* Invalid configs fail init with a message naming the code. */
    layoutd_value negative = OBJ(M("codes", OBJ(M("[bad]", OBJ(M("image", v_str("x.png")), M("width", v_num(-1)))))));
    layoutd_value infinite = OBJ(M("codes", OBJ(M("[inf]", OBJ(M("image", v_str("x.png")), M("ascent", v_num(INFINITY)))))));
    layoutd_value no_image = OBJ(M("codes", OBJ(M("[noimg]", OBJ(M("width", v_num(1)))))));
    layoutd_value empty_key = OBJ(M("codes", OBJ(M("", v_str("x.png")))));
    layoutd_value bad_unit = OBJ(M("codes", OBJ(M("[a]", v_str("a.png")))), M("unit", v_str("px")));
    const struct {
        const layoutd_value *options;
        const char *mentions;
    } invalid[] = {{&negative, "[bad]"}, {&infinite, "[inf]"}, {&no_image, "[noimg]"}, {&empty_key, "empty"},
                   {&bad_unit, "unit"}};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        state = (void *)1;
        error[0] = '\0';
        int rc = shortcodes->init(NULL, invalid[i].options, &state, error, sizeof error);
        CHECK(rc != 0 && strstr(error, invalid[i].mentions), "invalid config #%zu accepted or unnamed: %s", i, error);
        if (rc == 0) shortcodes->fini(state);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s liblayoutd-plugin-links.so liblayoutd-plugin-shortcodes.so\n", argv[0]);
        return 2;
    }
    const char *limit_env = getenv("LINKS_TEST_TIME_LIMIT");
    double limit = limit_env ? atof(limit_env) : 1.0;

    void *links_handle, *shortcodes_handle;
    links = load(argv[1], &links_handle);
    shortcodes = load(argv[2], &shortcodes_handle);
    test_links_table();
    CHECK(links->init(NULL, &empty_object, &links_state, error, sizeof error) == 0, "links init: %s", error);

    test_sentence();
    test_urls();
    test_emails();
    test_mentions_hashtags();
    test_phones();
    test_literal();
    time_kinds("(", "(", limit);
    time_kinds("@", "@", limit);
    time_kinds("a", "a", limit);
    time_kinds("#", "#", limit);
    time_kinds("1 ", "1 ", limit);
    time_kinds("www.", "www.", limit);
    time_kinds("http://", "http://", limit);
    time_kinds("a@", "a@", limit);
    time_big_table(limit);
    links->fini(links_state);

    test_shortcodes();

    dlclose(links_handle);
    dlclose(shortcodes_handle);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
