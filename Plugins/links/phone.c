/*
 * phone.c — the "phone" kind: international (+CC) and national numbers written with
 * digits, single spaces, dashes, dots and parenthesized groups; value "tel:" + the digits,
 * with the leading "+" kept ("+1 (555) 123-4567" → "tel:+15551234567").
 *
 * Grammar: ["+"] group (sep group)*, where a group is ASCII digits or "(" digits ")", sep
 * is one " ", "-" or "." followed by a digit or "(", and a parenthesized group may be
 * followed directly by digits ("+49 (0)30 1234567"). A space after a "-" or "." separator
 * ends the number ("010-12345678 2024年" is "010-12345678"). 7 to 15 digits in all.
 * Not part of a longer token: the character before must not join a word (u_joins_word;
 * CJK before is fine: "电话010-12345678") nor be a digit followed by . , - / : (the tail of
 * another number); the character after must not join a word either.
 * Rejected as other numbers when written without "+" and parentheses: dates
 * 2024-01-15 / 15.01.2024 (4-2-2 or 2-2-4 digit groups with one repeated "-" or "."),
 * IPv4 addresses (four dot-separated groups of 1–3 digits) and dotted numbers with fewer
 * than three groups ("3.14159265"). Plain digit runs of 7–15 digits do count.
 * Not inside URLs or emails. Linear time: each start reads at most ~60 bytes (15 digits).
 */
#include "links.h"
#include "utf8.h"

#define PHONE_MIN_DIGITS 7
#define PHONE_MAX_DIGITS 15

/** What phone_at found: digit count per group and the separator before each group. */
typedef struct phone_shape {
    size_t groups, digits;
    size_t sizes[PHONE_MAX_DIGITS];
    unsigned char seps[PHONE_MAX_DIGITS]; /* seps[g]: before group g (0: none) */
    bool plus, parens;
} phone_shape;

static bool is_digit_byte(unsigned char c) { return c >= '0' && c <= '9'; }

/** True when a number may start at i (s[i] is a digit, "+" or "("). */
static bool phone_may_start(const unsigned char *s, size_t n, size_t i) {
    if (i == 0) return true;
    uint32_t before = u8_before(s, n, i);
    if (s[i] == '(') return !u_is_digit(before);
    if (u_joins_word(before) || before == '+') return false;
    bool number_tail = before == '.' || before == ',' || before == '-' || before == '/' || before == ':';
    return !(number_tail && i >= 2 && is_digit_byte(s[i - 2]));
}

/** Reads a number starting at i into `shape`, the digits (and "+") into `digits`.
 * Returns its end, or 0 when there is none. */
static size_t phone_at(const unsigned char *s, size_t n, size_t i, phone_shape *shape, char *digits) {
    size_t q = i, end = 0, v = 0;
    *shape = (phone_shape){0};
    if (s[q] == '+') {
        shape->plus = true;
        digits[v++] = '+';
        q++;
        if (q >= n || !is_digit_byte(s[q])) return 0;
    }
    unsigned char sep = 0;
    bool dashed = false; /* a "-" or "." separator seen: a space now ends the number */
    for (;;) {
        size_t saved_v = v, saved_digits = shape->digits, group = q;
        bool paren = q < n && s[q] == '(';
        if (paren) group = ++q;
        while (q < n && is_digit_byte(s[q])) {
            if (shape->digits == PHONE_MAX_DIGITS) return 0;
            digits[v++] = (char)s[q++];
            shape->digits++;
        }
        bool ok = q > group && (!paren || (q < n && s[q] == ')'));
        if (!ok) {
            v = saved_v;
            shape->digits = saved_digits;
            break;
        }
        shape->sizes[shape->groups] = q - group;
        if (paren) {
            q++;
            shape->parens = true;
        }
        shape->seps[shape->groups] = sep;
        shape->groups++;
        end = q;
        if (q + 1 < n && ((s[q] == ' ' && !dashed) || s[q] == '-' || s[q] == '.') &&
            (is_digit_byte(s[q + 1]) || s[q + 1] == '(')) {
            sep = s[q++];
            dashed = dashed || sep != ' ';
            continue;
        }
        if (paren && q < n && is_digit_byte(s[q])) {
            sep = 0;
            continue;
        }
        break;
    }
    digits[v] = '\0';
    return shape->groups ? end : 0;
}

/** True when the shape reads as a date, an IPv4 address or a decimal number. */
static bool looks_like_other_number(const phone_shape *p) {
    if (p->plus || p->parens) return false;
    size_t dots = 0;
    for (size_t g = 1; g < p->groups; g++) dots += p->seps[g] == '.';
    if (dots && p->groups < 3) return true;
    if (p->groups == 4 && dots == 3 && p->sizes[0] <= 3 && p->sizes[1] <= 3 && p->sizes[2] <= 3 && p->sizes[3] <= 3)
        return true;
    if (p->groups == 3 && p->seps[1] == p->seps[2] && (p->seps[1] == '-' || p->seps[1] == '.')) {
        const size_t *z = p->sizes;
        if ((z[0] == 4 && z[1] <= 2 && z[2] <= 2) || (z[0] <= 2 && z[1] <= 2 && z[2] == 4)) return true;
    }
    return false;
}

int lk_detect_phone(lk_ctx *ctx) {
    const unsigned char *s = ctx->s;
    size_t n = ctx->n;
    lk_exclusions x;
    lk_exclusions_init(&x, s, n);
    char value[4 + 1 + PHONE_MAX_DIGITS + 1] = "tel:";
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (!is_digit_byte(c) && c != '+' && c != '(') {
            i++;
            continue;
        }
        size_t skip = lk_exclusions_skip(&x, i);
        if (skip != i) {
            i = skip;
            continue;
        }
        phone_shape shape;
        size_t end = phone_may_start(s, n, i) ? phone_at(s, n, i, &shape, value + 4) : 0;
        if (end && (shape.digits < PHONE_MIN_DIGITS || looks_like_other_number(&shape))) end = 0;
        if (end && end < n) {
            size_t length;
            if (u_joins_word(u8_decode(s, n, end, &length))) end = 0;
        }
        if (!end) {
            i++;
            continue;
        }
        if (lk_emit_value(ctx, i, end, value)) return -1;
        i = end;
    }
    return 0;
}
